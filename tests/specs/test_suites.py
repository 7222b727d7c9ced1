"""Checking suites against conversations: turn pairing, fail-fast, missing turns, case pairing."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from chatassert import Contains, Conversation, Status, Turn
from chatassert._suite import Case, Suite, TurnSpec
from chatassert.specs import loads_suite

TWO_TURNS = """
test_cases:
  - name: booking
    turns:
      - user_input: "Book a table"
        assertions:
          - {type: contains, value: available}
          - {type: contains, value: saturday}
          - {type: not_contains, value: goodbye}
      - user_input: "7pm"
        assertions:
          - {type: contains, value: confirmed}
  - name: refund
    turns:
      - user_input: "I want a refund"
        assertions:
          - {type: contains, value: refund}
"""


def chat(*pairs: tuple[str, str], **fields: object) -> Conversation:
    messages = []
    for user, assistant in pairs:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return Conversation.from_messages(messages, **fields)  # type: ignore[arg-type]


def test_turn_i_is_checked_against_the_ith_user_turn_and_every_assertion_is_reported() -> None:
    suite = loads_suite(TWO_TURNS)
    result = suite.cases[0].check(chat(("Book a table", "Sorry, goodbye"), ("7pm", "Confirmed!")))
    first, second = result.children
    assert (first.location, second.location) == ("turns[0]", "turns[1]")
    assert [c.status for c in first.children] == [Status.FAILED, Status.FAILED, Status.FAILED]
    assert second.passed
    assert result.status is Status.FAILED
    assert result.details == {"passed": 1, "failed": 3, "error": 0, "skipped": 0}
    assert result.reason.startswith("3 assertions failed; first: contains:")


def test_fail_fast_reports_the_rest_of_the_turn_as_skipped() -> None:
    case = Case(
        "c",
        turns=(TurnSpec((Contains("x"), Contains("y"), Contains("z"))),),
        fail_fast=True,
    )
    result = case.check(Turn(input="q", text="y z"))
    statuses = [c.status for c in result.children[0].children]
    assert statuses == [Status.FAILED, Status.SKIPPED, Status.SKIPPED]
    assert "fail_fast" in result.children[0].children[1].reason


def test_a_transcript_with_fewer_user_turns_gives_an_error_for_the_missing_turn() -> None:
    suite = loads_suite(TWO_TURNS)
    result = suite.cases[0].check(chat(("Book a table", "available saturday")))
    missing = result.children[1]
    assert missing.status is Status.ERROR
    assert missing.reason == "the case has turn 2 but the transcript has only 1 user turn"
    assert result.status is Status.ERROR


def test_system_and_leading_assistant_messages_do_not_shift_user_turns() -> None:
    conversation = Conversation.from_messages(
        [
            {"role": "system", "content": "be brief"},
            {"role": "assistant", "content": "Welcome!"},
            {"role": "user", "content": "I want a refund"},
            {"role": "assistant", "content": "Your refund is on its way."},
        ]
    )
    suite = loads_suite(TWO_TURNS)
    result = suite.cases[1].check(conversation)
    assert result.passed
    assert result.children[0].location == "turns[1]"


def test_cases_are_paired_by_id_then_first_input_then_single_case() -> None:
    suite = loads_suite(TWO_TURNS)
    assert suite.cases_for(chat(("x", "y"), metadata={"case": "refund"}))[0].name == "refund"
    assert suite.cases_for(chat(("x", "y"), id="booking"))[0].name == "booking"
    assert suite.cases_for(chat(("I  want a\nrefund", "y")))[0].name == "refund"
    assert suite.cases_for(chat(("unknown", "y"))) == []
    single = Suite("one", (Case("only", checks=(Contains("x"),)),))
    assert single.cases_for(chat(("unknown", "y")))[0].name == "only"


@pytest.mark.parametrize("key", ["case", "test_case", "name", "id"])
def test_each_metadata_key_the_docstring_lists_names_the_case(key: str) -> None:
    """`Suite.cases_for`: "a case named by the conversation's metadata (`case`, `test_case`,
    `name`, `id`)" wins; without it this conversation matches no input and there are two
    cases, so none would be chosen."""
    suite = loads_suite(TWO_TURNS)
    assert [c.name for c in suite.cases_for(chat(("x", "y"), metadata={key: "refund"}))] == [
        "refund"
    ]


def test_a_case_turn_without_input_matches_no_logged_input() -> None:
    """A case whose turns give no input (`TurnSpec.input` is None) is not paired by inputs;
    the other cases still are."""
    suite = Suite(
        "s",
        (
            Case("silent", turns=(TurnSpec((Contains("x"),)),)),
            Case("greeting", turns=(TurnSpec((Contains("x"),), input="Hi  there"),)),
        ),
    )
    assert [c.name for c in suite.cases_for(chat(("Hi there", "y")))] == ["greeting"]
    assert suite.cases_for(chat(("Bye", "y"))) == []


def test_acheck_gives_the_same_result_as_check() -> None:
    suite = loads_suite(TWO_TURNS)
    conversation = chat(("Book a table", "Sorry, goodbye"), ("7pm", "Confirmed!"))
    sync = suite.cases[0].check(conversation)
    asynchronous = asyncio.run(suite.cases[0].acheck(conversation))
    assert asynchronous == sync


def test_a_case_failing_on_a_node_without_a_failing_leaf_names_that_node() -> None:
    from chatassert import Not

    case = Case("negated", checks=(Not(Contains("refund")), Contains("sorry")), subject="json")
    result = case.check("Sorry, your refund is on its way")
    assert result.status is Status.FAILED
    assert result.reason.startswith("1 assertion failed; first: not: ")
    assert result.details == {"passed": 1, "failed": 1, "error": 0, "skipped": 0}


def test_a_json_case_that_passes_reports_every_check_and_its_duration() -> None:
    from chatassert.expect import StatusIs, SummaryContains

    case = Case("ok", checks=(StatusIs("success"), SummaryContains("notes")), subject="json")
    result = case.check({"status": "success", "summary": "3 notes"})
    assert result.passed
    assert result.reason == "all 2 assertions passed"
    assert [c.name for c in result.children] == ["expect_status", "expect_summary_contains"]
    assert result.duration is not None
    assert result.duration >= 0


def test_a_constructor_error_is_placed_on_the_line_of_its_parameter() -> None:
    from chatassert import SpecError

    text = (
        "chatassert: 1\n"
        "cases:\n"
        "  - name: dates\n"
        "    assertions:\n"
        "      - type: expect_all_dates_between\n"
        "        path: results[*].created\n"
        "        start: 2026-01-01\n"
        "        end: someday\n"
        "      - type: expect_all_in_range\n"
        "        path: results[*].relevance\n"
        "        max: 0.2\n"
        "        min: 0.5\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="dates.yaml")
    first, second = info.value.problems
    assert (first.line, first.path) == (8, "cases[0].assertions[0].end")
    assert "end 'someday' is not a date" in first.message
    assert (second.line, second.path) == (12, "cases[0].assertions[1].min")
    assert "min (0.5) is larger than max (0.2)" in second.message


def test_a_constructor_error_names_the_parameter_whose_value_it_quotes() -> None:
    from chatassert import SpecError

    text = "all_match_pattern:\n  path: results[*].file\n  regex: '(path'\n"
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="x.yaml", dialect="expect")
    (problem,) = info.value.problems
    assert (problem.line, problem.path) == (3, "all_match_pattern.regex")


def test_a_shorthand_value_the_spec_never_wrote_stays_out_of_the_path() -> None:
    from chatassert import SpecError

    with pytest.raises(SpecError) as info:
        loads_suite("status: success\nresults_min: -1\n", filename="x.yaml", dialect="expect")
    (problem,) = info.value.problems
    assert (problem.line, problem.path) == (2, "results_min")
    assert "must be at least 0, got -1" in problem.message


@pytest.mark.parametrize("dialect", ["native", "flat", "expect", "promptkit", None])
@pytest.mark.parametrize("text", ["42", "- 1", "just text", "[]", "{}"])
def test_a_spec_of_the_wrong_shape_or_empty_is_a_spec_error(dialect: str | None, text: str) -> None:
    from chatassert import SpecError

    with pytest.raises(SpecError):  # never a crash, never a suite that passes vacuously
        loads_suite(text, dialect=dialect, filename="odd.yaml")


def test_native_flags_of_the_wrong_type_and_two_inputs_are_spec_errors() -> None:
    from chatassert import SpecError

    text = (
        "chatassert: 1\n"
        'fail_fast: "yes"\n'
        "cases:\n"
        "  - name: a\n"
        "    fail_fast: 1\n"
        "    turns:\n"
        "      - {input: hi, user_input: hello, assertions: [{type: contains, value: x}]}\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="n.yaml")
    assert [(p.line, p.path) for p in info.value.problems] == [
        (2, "fail_fast"),
        (7, "cases[0].turns[0].user_input"),
        (5, "cases[0].fail_fast"),
    ]


def test_top_level_native_assertions_are_checked_on_every_case() -> None:
    text = (
        "chatassert: 1\n"
        "name: booking agent\n"
        "cases:\n"
        "  - name: books\n"
        "    turns:\n"
        "      - {input: book, assertions: [{type: contains, value: slots}]}\n"
        "assertions:\n"
        "  - {type: not_contains, value: as an AI}\n"
    )
    (case,) = loads_suite(text).cases
    chat = Conversation(turns=[Turn(input="book", text="As an AI, I found slots")])
    result = case.check(chat)
    assert result.status is Status.FAILED
    assert [c.status for c in result.children] == [Status.PASSED, Status.FAILED]
    rules_only = loads_suite("chatassert: 1\nassertions: [{type: contains, value: hi}]\n")
    assert [c.name for c in rules_only.cases] == ["assertions"]


def test_a_group_holding_a_turn_check_where_a_conversation_is_checked_is_a_spec_error() -> None:
    # A group that reads JSON (expect's one_of) adds its own level to its children's: a turn
    # check inside it, at a whole-conversation position, cannot know its turn. The loader says
    # so (it used to load, and checking raised TypeError). Found by the fuzz suite.
    from chatassert.errors import SpecError

    text = (
        "chatassert: 1\n"
        "assertions:\n"
        "  - type: expect_one_of\n"
        "    assertions: [{type: agent_invoked, agents: [check_availability]}]\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="n.yaml")
    (problem,) = info.value.problems
    assert (problem.line, problem.path) == (3, "assertions[0]")
    assert "'expect_one_of' holds a check of one turn" in problem.message
    # the same check alone is wrapped in on_every_turn, as every native turn check there is
    alone = loads_suite("chatassert: 1\nassertions: [{type: agent_invoked, agents: [a]}]\n")
    assert [a.kind for a in alone.cases[0].assertions()] == ["on_every_turn"]


def test_a_case_with_a_workflow_derives_state_unless_the_conversation_has_its_own() -> None:
    # Case.workflow (PromptKit's `workflow:`): state is derived from the transition calls of a
    # conversation that logged none, before any check reads it; logged state is left alone.
    from chatassert import StateIs, ToolCall, Workflow, WorkflowState
    from chatassert.promptkit import ConversationStateIs

    flow = Workflow("open", {"open": {"Escalate": "human"}, "human": {}})
    escalates = Turn(
        input="I want a person",
        text="Passing you on.",
        tool_calls=[ToolCall(name="workflow__transition", arguments={"event": "Escalate"})],
    )
    case = Case(
        name="escalation",
        turns=(TurnSpec(assertions=(StateIs("human"),)),),
        checks=(ConversationStateIs("human"),),
        workflow=flow,
    )
    assert case.check(Conversation(turns=[escalates])).status is Status.PASSED
    assert replace(case, workflow=None).check(Conversation(turns=[escalates])).status is (
        Status.ERROR  # without the definition there is no state to read
    )
    logged = Conversation(turns=[escalates], workflow=WorkflowState(current="open"))
    assert case.check(logged).children[-1].status is Status.FAILED  # its own state wins
    suite = Suite(name="s", cases=(replace(case, workflow=None),)).with_workflow(flow)
    assert suite.cases[0].workflow is flow


def test_with_workflow_leaves_json_cases_as_they_are() -> None:
    # Suite.with_workflow: "every conversation case" is checked under the workflow; a JSON case
    # (a structured response, which has no workflow state) is returned as it is
    from chatassert import FieldEquals, Workflow

    flow = Workflow("open", {"open": {"Close": "done"}, "done": {}})
    talk = Case(name="talk", checks=(Contains("hello"),))
    data = Case(name="data", checks=(FieldEquals({"status": "ok"}),), subject="json")
    suite = Suite(name="s", cases=(talk, data)).with_workflow(flow)
    assert [c.workflow for c in suite.cases] == [flow, None]
    assert suite.cases[1] is data


TWO_OPENINGS = """
test_cases:
  - name: refund
    turns:
      - {user_input: Hi, assertions: [{type: contains, value: hello}]}
      - {user_input: I want a refund, assertions: [{type: contains, value: refund}]}
  - name: booking
    turns:
      - {user_input: Hi, assertions: [{type: contains, value: hello}]}
      - {user_input: Book a table, assertions: [{type: contains, value: booked}]}
"""


def said(*pairs: str, **meta: object) -> Conversation:
    turns = [Turn(input=pairs[i], text=pairs[i + 1]) for i in range(0, len(pairs), 2)]
    return Conversation(turns=turns, metadata=dict(meta))


def test_a_conversation_goes_to_the_case_matching_most_of_its_inputs() -> None:
    suite = loads_suite(TWO_OPENINGS)
    chat = said("Hi", "hello", "Book a table", "booked")
    assert [c.name for c in suite.cases_for(chat)] == ["booking"]
    assert suite.cases_for(said("Hi", "hello")) == []  # both match as far: ambiguous


def test_a_record_naming_its_case_wins_over_its_own_id() -> None:
    suite = loads_suite(TWO_OPENINGS.replace("name: refund", "name: refund\n    id: 1"))
    chat = Conversation(
        id="1", turns=[Turn(input="Hi", text="hello")], metadata={"case": "booking"}
    )
    assert [c.name for c in suite.cases_for(chat)] == ["booking"]


def test_a_user_turn_without_text_still_counts_as_a_turn() -> None:
    from chatassert import Message

    image = Turn(
        messages=[Message(role="user", content=None), Message(role="assistant", content="A cat")]
    )
    chat = Conversation(
        turns=[Turn(input="Look", text="ok"), image, Turn(input="Thanks", text="bye")]
    )
    case = Case(
        "three",
        turns=(
            TurnSpec((Contains("ok"),)),
            TurnSpec((Contains("cat"),)),
            TurnSpec((Contains("bye"),)),
        ),
    )
    result = case.check(chat)
    assert result.passed
    assert [c.location for c in result.children] == ["turns[0]", "turns[1]", "turns[2]"]


def test_a_turn_without_assertions_counts_none() -> None:
    case = Case("pace", turns=(TurnSpec(()), TurnSpec((Contains("b"),))))
    result = case.check(said("one", "a", "two", "b"))
    assert result.reason == "the assertion passed"
    assert result.details["passed"] == 1


def test_a_workflow_file_that_is_not_yaml_is_a_clear_error(tmp_path: Path) -> None:
    from chatassert import Workflow

    bad = tmp_path / "bad.workflow.yaml"
    bad.write_text("entry: start\nstates: {start: {on_event: {go: end}\n")
    # reported where the unclosed '{' opens, not where the parser gave up (line 3)
    with pytest.raises(ValueError, match=r"bad\.workflow\.yaml:2: invalid YAML: a '\{' opened"):
        Workflow.load(bad)


def test_load_assertion_reads_one_promptkit_assertion_in_its_file_shape() -> None:
    # issue 14 item 8: {type, params, message}, at the level the dialect names
    from chatassert import Conversation, SpecError, Turn
    from chatassert.specs import load_assertion

    turn_check = load_assertion(
        {"type": "content_includes", "params": {"patterns": ["Paris"]}, "message": "names it"},
        dialect="promptkit.turn",
    )
    assert turn_check.message == "names it"
    assert turn_check.check(Turn(text="Paris: 18C")).passed
    assert not turn_check.check(Turn(text="Lyon: 20C")).passed
    whole = load_assertion(
        "type: tools_called\nparams: {tool_names: [search], min_calls: 1}",
        dialect="promptkit.conversation",
    )
    assert not whole.check(Conversation(turns=[Turn(input="hi", text="hello")])).passed
    with pytest.raises(SpecError, match="unknown promptkit turn-level assertion type 'nope'"):
        load_assertion({"type": "nope", "params": {}}, dialect="promptkit.turn")
    assert (
        load_assertion(
            {"type": "nope", "params": {}}, dialect="promptkit.turn", unknown_types="skip"
        )
        .check(Turn(text="x"))
        .status
        == "skipped"
    )
