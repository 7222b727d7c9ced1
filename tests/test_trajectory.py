"""Trajectory checks: sequences, argument modes and matchers, counts, loops, steps, results."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from chatassert import (
    ContainsFunctionCall,
    Conversation,
    MaxToolCalls,
    NoRepeatedCalls,
    NoToolErrors,
    SpecError,
    Status,
    StepsBeforeAnswer,
    ToolCall,
    ToolCallCount,
    ToolResult,
    ToolResultContains,
    ToolResultMatches,
    ToolSequence,
    Turn,
    from_spec,
)
from chatassert._matchers import compare_arguments, compile_arguments, error_flag
from chatassert.args import ArgAny, ArgInRange, ArgMatches, ArgOneOf, ExpectedCall

DOCS = Path(__file__).resolve().parent.parent / "docs" / "trajectories.md"


def call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    return ToolCall(name=name, arguments=arguments or {}, id=id)


def turn(*calls: str | ToolCall, text: str = "Done.") -> Turn:
    return Turn(text=text, tool_calls=[call(c) if isinstance(c, str) else c for c in calls])


SEARCH_CONFIRM = turn("search", "confirm")
EXPECTED = ["search", "book", "confirm"]


# -- sequence orders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "calls", "passed"),
    [
        ("exact", ["search", "book", "confirm"], True),
        ("exact", ["search", "book", "confirm", "log"], False),
        ("exact", ["search", "confirm", "book"], False),
        ("in_order", ["search", "log", "book", "log", "confirm"], True),
        ("in_order", ["book", "search", "confirm"], False),
        ("any_order", ["confirm", "search", "book"], True),
        ("any_order", ["confirm", "search", "book", "book"], False),
        ("any_order", ["confirm", "search"], False),
        ("subset", ["search", "confirm"], True),
        ("subset", [], True),
        ("subset", ["search", "search"], False),
        ("subset", ["search", "refund"], False),
        ("superset", ["log", "confirm", "book", "search", "log"], True),
        ("superset", ["search", "book"], False),
    ],
)
def test_each_order_passes_and_fails(order: str, calls: list[str], passed: bool) -> None:
    result = ToolSequence(EXPECTED, order).check(turn(*calls))
    assert result.status is (Status.PASSED if passed else Status.FAILED)
    if not passed:
        assert result.reason


def test_in_order_reason_aligns_and_points_at_the_divergence() -> None:
    result = ToolSequence(EXPECTED).check(SEARCH_CONFIRM)
    assert result.reason == (
        "expected [search, book, confirm] in order but got [search, confirm]: step 2 'book' "
        "missing after 'search' (tool_calls[0]); 'book' was never called"
    )


def test_in_order_reason_says_when_the_step_came_too_early() -> None:
    result = ToolSequence(["book", "search"]).check(turn("search", "book"))
    assert result.reason.endswith(
        "step 2 'search' missing after 'book' (tool_calls[1]); "
        "'search' was called only before that (tool_calls[0])"
    )


def test_in_order_first_step_never_called() -> None:
    result = ToolSequence(["lookup", "reply"]).check(turn("reply"))
    assert result.reason.endswith("step 1 'lookup' was never called")


def test_exact_reasons() -> None:
    seq = ToolSequence(EXPECTED, "exact")
    assert seq.check(SEARCH_CONFIRM).reason.endswith(
        "step 2 expected 'book' but got 'confirm' (tool_calls[1])"
    )
    assert seq.check(turn("search", "book")).reason.endswith(
        "step 3 'confirm' missing: the agent stopped after 'book' (tool_calls[1])"
    )
    assert seq.check(turn()).reason.endswith("step 1 'search' missing: no tool was called")
    longer = seq.check(turn("search", "book", "confirm", "log"))
    assert longer.reason.endswith("unexpected extra call 'log' (tool_calls[3]) after step 3")
    assert longer.details["unexpected"] == [
        {"call": "tool_calls[3]", "tool": "log", "arguments": {}}
    ]


def test_set_orders_name_missing_and_unexpected_calls() -> None:
    result = ToolSequence(EXPECTED, "any_order").check(turn("confirm", "refund", "search"))
    assert result.reason == (
        "expected [search, book, confirm] in any order but got [confirm, refund, search]: "
        "step 2 'book' missing ('book' was never called); unexpected 'refund' (tool_calls[1])"
    )
    subset = ToolSequence(EXPECTED, "subset").check(turn("search", "refund"))
    assert subset.reason == (
        "expected only calls from [search, book, confirm] but got [search, refund]: "
        "unexpected 'refund' (tool_calls[1])"
    )
    superset = ToolSequence(EXPECTED, "superset").check(turn("book", "log"))
    assert "step 1 'search' missing" in superset.reason
    assert "step 3 'confirm' missing" in superset.reason
    assert "unexpected" not in superset.reason


def test_details_give_precision_recall_and_pairs() -> None:
    result = ToolSequence(EXPECTED, "in_order").check(turn("search", "log", "confirm"))
    d = result.details
    assert d["matched"] == [
        {"step": 0, "tool": "search", "call": "tool_calls[0]"},
        {"step": 2, "tool": "confirm", "call": "tool_calls[2]"},
    ]
    assert d["missing"] == [{"step": 1, "tool": "book"}]
    assert [u["call"] for u in d["unexpected"]] == ["tool_calls[1]"]
    assert d["precision"] == pytest.approx(2 / 3)
    assert d["recall"] == pytest.approx(2 / 3)
    assert d["expected"] == EXPECTED
    assert d["actual"] == ["search", "log", "confirm"]
    json.dumps(d)


def test_one_call_is_matched_per_step() -> None:
    assert not ToolSequence(["search", "search"], "superset").check(turn("search")).passed
    assert ToolSequence(["search", "search"], "superset").check(turn("search", "search")).passed
    assert not ToolSequence(["search"], "subset").check(turn("search", "search")).passed


def test_conversation_locations_name_turns_and_calls() -> None:
    chat = Conversation(turns=[turn("search"), turn("log", "confirm")])
    result = ToolSequence(EXPECTED, "exact").check(chat)
    assert result.reason.endswith("step 2 expected 'book' but got 'log' (turns[1].tool_calls[0])")
    assert result.details["locations"] == [
        "turns[0].tool_calls[0]",
        "turns[1].tool_calls[0]",
        "turns[1].tool_calls[1]",
    ]
    in_order = ToolSequence(EXPECTED).check(chat)
    assert "missing after 'search' (turns[0].tool_calls[0])" in in_order.reason
    assert ToolSequence(["search", "confirm"]).check(chat).passed


def test_a_string_subject_has_no_calls() -> None:
    assert not ToolSequence(["search"]).check("I could not find it.").passed


# -- argument modes and matchers ----------------------------------------------------------


BOOK = call("book", {"date": "2024-02-15", "party": {"size": 4, "names": ["Ann"]}, "rid": "r1"})


def test_partial_is_the_default_and_loose() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"party": {"size": "4"}}}])
    assert seq.check(turn(BOOK)).passed


def test_partial_mismatch_names_the_deepest_argument() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"party": {"size": 5}}}])
    result = seq.check(turn(BOOK))
    assert result.reason.endswith(
        "step 1 'book' not found; 'book' (tool_calls[0]) differs: party.size=4, expected 5"
    )


def test_exact_mode_rejects_extra_arguments_except_ignored_keys() -> None:
    args = {"date": "2024-02-15", "party": {"size": 4, "names": ["Ann"]}}
    exact = ToolSequence([{"tool": "book", "arguments": args}], argument_mode="exact")
    result = exact.check(turn(BOOK))
    assert not result.passed
    assert 'unexpected argument rid="r1"' in result.reason
    assert (
        ToolSequence(
            [{"tool": "book", "arguments": args}], argument_mode="exact", ignore_keys=["rid"]
        )
        .check(turn(BOOK))
        .passed
    )
    nested = {"date": "2024-02-15", "party": {"size": 4}, "rid": "r1"}
    assert (
        not ToolSequence([{"tool": "book", "arguments": nested}], argument_mode="exact")
        .check(turn(BOOK))
        .passed
    )
    assert (
        ToolSequence(
            [{"tool": "book", "arguments": nested, "ignore_keys": ["party.names"]}],
            argument_mode="exact",
        )
        .check(turn(BOOK))
        .passed
    )


def test_ignore_mode_and_name_only_steps() -> None:
    wrong = [{"tool": "book", "arguments": {"date": "1999-01-01"}, "argument_mode": "ignore"}]
    assert ToolSequence(wrong).check(turn(BOOK)).passed
    assert ToolSequence(["book"]).check(turn(BOOK)).passed


def test_per_tool_overrides_and_step_precedence() -> None:
    args = {"date": "2024-02-15", "party": {"size": 4, "names": ["Ann"]}}
    steps = [{"tool": "book", "arguments": args}]
    assert (
        not ToolSequence(steps, per_tool={"book": {"argument_mode": "exact"}})
        .check(turn(BOOK))
        .passed
    )
    assert (
        ToolSequence(steps, per_tool={"book": {"argument_mode": "exact", "ignore_keys": ["rid"]}})
        .check(turn(BOOK))
        .passed
    )
    stepwise = [{"tool": "book", "arguments": args, "argument_mode": "partial"}]
    assert (
        ToolSequence(stepwise, argument_mode="exact", per_tool={"book": {"argument_mode": "exact"}})
        .check(turn(BOOK))
        .passed
    )


@pytest.mark.parametrize(
    ("matcher", "good", "bad"),
    [
        ({"$regex": r"^C\d+$"}, "C1042", "1042"),
        ({"$regex": "(?i)urgent"}, "URGENT", "low"),
        ({"$regex": "^4$"}, 4, 5),
        ({"$one_of": ["high", "urgent"]}, "urgent", "low"),
        ({"$one_of": [1, 2]}, "2", 3),
        ({"$range": [1, 10]}, 10, 11),
        ({"$range": [None, 0.5]}, "0.25", 0.75),
        ({"$range": [1, 10]}, 1.0, "ten"),
        ({"$any": True}, None, "<missing>"),
    ],
)
def test_argument_matchers(matcher: dict[str, Any], good: Any, bad: Any) -> None:
    seq = ToolSequence([{"tool": "f", "arguments": {"x": matcher}}])
    assert seq.check(turn(call("f", {"x": good}))).passed
    bad_args = {} if bad == "<missing>" else {"x": bad}
    assert not seq.check(turn(call("f", bad_args))).passed


def test_matchers_nest_in_lists_and_one_of() -> None:
    expected = compile_arguments({"items": [{"sku": {"$regex": "^A"}}, {"$any": True}]})
    assert compare_arguments(expected, {"items": [{"sku": "A1", "n": 2}, 7]}) == []
    problems = compare_arguments(expected, {"items": [{"sku": "B1"}, 7]})
    assert [p.argument for p in problems] == ["items[0].sku"]
    one_of = compile_arguments({"$one_of": [{"$regex": "^x"}, 5]})
    assert one_of.matches("xyz")
    assert one_of.matches("5")
    assert not one_of.matches("y")


def test_matcher_objects_in_python_equal_their_spec_form() -> None:
    py = ExpectedCall(
        "f",
        {
            "a": ArgMatches("^a"),
            "b": ArgOneOf([1, 2]),
            "c": ArgInRange(0, None),
            "d": ArgAny(),
        },
    )
    spec = ExpectedCall.from_spec(
        {
            "tool": "f",
            "arguments": {
                "a": {"$regex": "^a"},
                "b": {"$one_of": [1, 2]},
                "c": {"$range": [0, None]},
                "d": {"$any": True},
            },
        }
    )
    assert py == spec
    assert pickle.loads(pickle.dumps(py)) == py
    assert repr(ArgInRange(0, None)) == "ArgInRange(0, None)"


def test_matcher_failure_reason_describes_the_matcher() -> None:
    seq = ToolSequence([{"tool": "f", "arguments": {"n": {"$range": [1, 4]}}}])
    assert seq.check(turn(call("f", {"n": 6}))).reason.endswith("n=6 is not a number in [1, 4]")


# -- invalid JSON arguments -----------------------------------------------------------------


BROKEN = ToolCall(name="book", arguments='{"date": 2024-02-15')


def test_invalid_json_is_an_error_when_arguments_must_be_compared() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"date": "2024-02-15"}}])
    result = seq.check(turn(BROKEN))
    assert result.status is Status.ERROR
    assert result.reason.startswith("cannot compare the arguments of 'book' (tool_calls[0])")
    assert result.details["invalid_arguments"][0]["raw_arguments"] == '{"date": 2024-02-15'


def test_invalid_json_does_not_matter_when_names_decide() -> None:
    assert ToolSequence(["book"]).check(turn(BROKEN)).passed
    seq = ToolSequence([{"tool": "book", "arguments": {"date": "2024-02-15"}}])
    good = call("book", {"date": "2024-02-15"})
    assert seq.check(turn(BROKEN, good)).passed
    # the broken call cannot rescue a sequence that fails whatever its arguments are
    assert seq.check(turn(BROKEN, "refund")).status is Status.ERROR
    assert ToolSequence(["search", "book"], "exact").check(turn(BROKEN)).status is Status.FAILED


# -- counts and limits ------------------------------------------------------------------------


def test_tool_call_count() -> None:
    three = turn("search", "search", "fetch", "search")
    assert ToolCallCount("search", min=1, max=3).check(three).passed
    assert ToolCallCount("search", 3, 3).check(three).passed
    result = ToolCallCount("search", max=2).check(three)
    assert result.reason == (
        "expected 'search' to be called at most 2 times but it was called 3 times "
        "(tool_calls[0], tool_calls[1], tool_calls[3])"
    )
    assert result.details["count"] == 3
    assert ToolCallCount("refund", min=1).check(three).reason == (
        "expected 'refund' to be called at least 1 time but it was called 0 times"
    )
    assert (
        ToolCallCount("fetch", 2, 2)
        .check(three)
        .reason.startswith("expected 'fetch' to be called exactly 2 times")
    )


def test_tool_call_count_over_a_conversation() -> None:
    chat = Conversation(turns=[turn("search"), turn("search")])
    result = ToolCallCount("search", max=1).check(chat)
    assert not result.passed
    assert result.details["calls"] == ["turns[0].tool_calls[0]", "turns[1].tool_calls[0]"]


def test_max_tool_calls() -> None:
    assert MaxToolCalls(3).check(turn("a", "b", "c")).passed
    result = MaxToolCalls(2).check(Conversation(turns=[turn("a", "b"), turn("a")]))
    assert result.reason == "expected at most 2 tool calls but got 3: a x2, b x1"
    assert MaxToolCalls(0).check(turn()).passed


def test_no_repeated_calls() -> None:
    same = turn(call("search", {"q": "refund", "n": 4}), call("search", {"n": 4.0, "q": "refund"}))
    result = NoRepeatedCalls().check(same)
    assert not result.passed
    assert result.details["repeats"][0]["calls"] == ["tool_calls[0]", "tool_calls[1]"]
    assert "'search' was called 2 times with the same arguments" in result.reason
    differ = turn(call("search", {"q": "refund"}), call("search", {"q": "returns"}))
    assert NoRepeatedCalls().check(differ).passed
    ids = turn(call("s", {"q": 1, "meta": {"rid": "a"}}), call("s", {"q": 1, "meta": {"rid": "b"}}))
    assert NoRepeatedCalls().check(ids).passed
    assert not NoRepeatedCalls(ignore_keys=["meta.rid"]).check(ids).passed
    # ignoring a nested key leaves the calls' own arguments as the transcript gave them
    assert [c.arguments["meta"] for c in ids.tool_calls] == [{"rid": "a"}, {"rid": "b"}]
    assert ContainsFunctionCall("s", {"meta": {"rid": "a"}}).check(ids).passed
    assert not NoRepeatedCalls().check(turn(BROKEN, BROKEN)).passed
    chat = Conversation(turns=[turn(call("s", {"q": 1})), turn(call("s", {"q": 1}))])
    assert (
        "(turns[0].tool_calls[0], turns[1].tool_calls[0])" in NoRepeatedCalls().check(chat).reason
    )


AGENT_LOOP = [
    {"role": "user", "content": "Where is order 1042?"},
    {"role": "assistant", "content": "Let me check.", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "lookup_order", "arguments": '{"order_id": "1042"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "shipped"}'},
    {"role": "assistant", "content": "One moment while I get the tracking link."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c2", "type": "function",
         "function": {"name": "tracking_link", "arguments": '{"order_id": "1042"}'}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "https://track.example/1042"},
    {"role": "assistant", "content": "It shipped: https://track.example/1042"},
]  # fmt: skip


def test_steps_before_answer_counts_calls_and_intermediate_messages() -> None:
    t = Turn(messages=AGENT_LOOP)
    assert StepsBeforeAnswer(3).check(t).passed
    result = StepsBeforeAnswer(2).check(t)
    assert result.reason == (
        "expected at most 2 steps before the final answer but took 3 "
        "(2 tool calls, 1 intermediate messages)"
    )
    assert result.details["turns"] == [
        {"turn": None, "steps": 3, "tool_calls": 2, "intermediate_messages": 1, "answered": True}
    ]


def test_steps_before_answer_without_an_answer_fails_and_reads_each_turn() -> None:
    unanswered = Turn(messages=AGENT_LOOP[:3])
    assert StepsBeforeAnswer(5).check(unanswered).reason.endswith("but has no final answer")
    chat = Conversation(turns=[Turn(messages=AGENT_LOOP), turn("a", "b", "c", "d")])
    result = StepsBeforeAnswer(3).check(chat)
    assert result.reason.endswith("but turns[1] took 4 (4 tool calls, 0 intermediate messages)")
    assert StepsBeforeAnswer(0).check(Turn(text="Hello")).passed


# -- results and errors -------------------------------------------------------------------------


def test_tool_result_contains_links_results_by_id() -> None:
    t = Turn(messages=AGENT_LOOP)
    assert ToolResultContains("lookup_order", "SHIPPED").check(t).passed
    assert not ToolResultContains("lookup_order", "SHIPPED", case_sensitive=True).check(t).passed
    result = ToolResultContains("lookup_order", "delivered").check(t)
    assert result.reason == (
        "expected a result of 'lookup_order' containing 'delivered' but none of its 1 "
        """result(s) does (tool_calls[0]: '{"status": "shipped"}')"""
    )
    assert result.details["results"] == [
        {"call": "tool_calls[0]", "content": '{"status": "shipped"}', "matched": False}
    ]


def test_tool_result_checks_all_never_called_and_missing_results() -> None:
    t = turn(call("search", id="a"), call("search", id="b"))
    t = t.model_copy(
        update={
            "tool_results": (
                ToolResult(call_id="b", content="2 refunds"),
                ToolResult(call_id="a", content="no hits"),
            )
        }
    )
    assert ToolResultContains("search", "refund").check(t).passed
    every = ToolResultContains("search", "refund", match="all").check(t)
    assert every.reason == (
        "expected every result of 'search' containing 'refund' but tool_calls[0] does not "
        "('no hits')"
    )
    assert ToolResultContains("fetch", "x").check(t).reason.endswith("'fetch' was never called")
    no_results = turn("search")
    assert ToolResultContains("search", "x").check(no_results).status is Status.ERROR
    half = turn(call("s", id="a"), call("s", id="b")).model_copy(
        update={"tool_results": (ToolResult(call_id="a", content="ok"),)}
    )
    assert ToolResultContains("s", "ok", match="all").check(half).status is Status.ERROR
    assert ToolResultContains("s", "ok").check(half).passed


def test_tool_result_matches_and_structured_data() -> None:
    t = Turn(
        tool_calls=[call("create_ticket")], tool_results=[ToolResult(data={"ticket": "TCK-2291"})]
    )
    assert ToolResultMatches("create_ticket", r'"TCK-\d+"').check(t).passed
    result = ToolResultMatches("create_ticket", r"^INC-").check(t)
    assert result.status is Status.FAILED
    assert "matching /^INC-/" in result.reason


def test_error_recognition_rule() -> None:
    assert error_flag(ToolResult(content="fine", is_error=True)) == "is_error"
    assert error_flag(ToolResult(content="  ERROR: timeout")) == "content"
    assert error_flag(ToolResult(content="Error - 503")) == "content"
    assert error_flag(ToolResult(content="Traceback (most recent call last):\n")) == "content"
    assert error_flag(ToolResult(content='{"error": "not found"}')) == "data"
    assert error_flag(ToolResult(data={"isError": True})) == "data"
    assert error_flag(ToolResult(content='{"error": null, "rows": []}')) is None
    assert error_flag(ToolResult(content="Errors are rare")) is None
    assert error_flag(None) is None


def test_no_tool_errors_and_error_counts() -> None:
    t = Turn(
        tool_calls=[call("search", id="1"), call("charge", id="2"), call("email", id="3")],
        tool_results=[
            ToolResult(call_id="1", content="3 hits"),
            ToolResult(call_id="2", content="card declined", is_error=True),
            ToolResult(call_id="3", content="Error: mailbox full"),
        ],
    )
    result = NoToolErrors().check(t)
    assert result.reason == (
        "expected no tool errors but 2 of 3 calls errored: 'charge' (tool_calls[1]): "
        "'card declined'; 'email' (tool_calls[2]): 'Error: mailbox full'"
    )
    assert [e["flag"] for e in result.details["errors"]] == ["is_error", "content"]
    assert NoToolErrors(["search"]).check(t).passed
    assert not NoToolErrors("charge").check(t).passed
    assert ToolCallCount("charge", max=1).check(t).details["errored"] == 1
    assert ToolSequence(["search"]).check(t).details["errored_calls"] == [
        "tool_calls[1]",
        "tool_calls[2]",
    ]


# -- specs ----------------------------------------------------------------------------------------


EXAMPLES = [
    ToolSequence(EXPECTED),
    ToolSequence(
        [
            "search_kb",
            {"tool": "create_ticket", "arguments": {"priority": {"$one_of": ["high", "urgent"]}}},
            {"tool": "notify", "arguments": {"to": {"$regex": "@"}}, "argument_mode": "exact",
             "ignore_keys": ["trace"]},
        ],
        "superset",
        argument_mode="ignore",
        ignore_keys=["request_id"],
        per_tool={"search_kb": {"argument_mode": "exact", "ignore_keys": ["page"]}},
        message="support flow",
    ),
    ToolCallCount("search", min=1, max=3),
    ToolCallCount("search", max=0),
    MaxToolCalls(8),
    NoRepeatedCalls(),
    NoRepeatedCalls(ignore_keys=["request_id", "meta.trace"]),
    StepsBeforeAnswer(5),
    ToolResultContains("lookup_order", "shipped", case_sensitive=True, match="all"),
    ToolResultMatches("create_ticket", r"TCK-\d+"),
    NoToolErrors(),
    NoToolErrors(["charge_card", "refund"]),
]  # fmt: skip


@pytest.mark.parametrize("assertion", EXAMPLES, ids=repr)
def test_spec_round_trip(assertion: Any) -> None:
    spec = assertion.as_spec()
    json.dumps(spec)
    assert from_spec(spec) == assertion
    assert from_spec(json.loads(json.dumps(spec))) == assertion
    assert pickle.loads(pickle.dumps(assertion)) == assertion
    assert assertion.describe()


YAML_SPECS = """
- type: tool_sequence
  order: in_order
  steps:
    - search_kb
    - tool: create_ticket
      arguments:
        customer_id: {$regex: '^C\\d+$'}
        priority: {$one_of: [high, urgent]}
        refund: {$range: [0, 500]}
        note: {$any: true}
  ignore_keys: [request_id]
- {type: tool_call_count, tool: search_kb, min: 1, max: 3}
- {type: max_tool_calls, max: 8}
- {type: no_repeated_calls}
- {type: steps_before_answer, max: 6}
- {type: tool_result_contains, tool: create_ticket, value: created}
- {type: tool_result_matches, tool: create_ticket, pattern: 'TCK-\\d+'}
- {type: no_tool_errors}
"""


def test_yaml_specs_build() -> None:
    built = [from_spec(node) for node in yaml.safe_load(YAML_SPECS)]
    assert [type(b).__name__ for b in built] == [
        "ToolSequence",
        "ToolCallCount",
        "MaxToolCalls",
        "NoRepeatedCalls",
        "StepsBeforeAnswer",
        "ToolResultContains",
        "ToolResultMatches",
        "NoToolErrors",
    ]
    t = Turn(
        text="Ticket TCK-2291 created.",
        tool_calls=[
            call("search_kb", {"q": "refund"}),
            call("create_ticket", {"customer_id": "C77", "priority": "urgent", "refund": "120",
                                   "note": "", "request_id": "x"}),
        ],
        tool_results=[ToolResult(content="2 articles"), ToolResult(content="created TCK-2291")],
    )  # fmt: skip
    assert [b.check(t).status for b in built] == [Status.PASSED] * len(built)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"type": "tool_sequence", "steps": [{"tool": "a", "argumnts": {}}]},
         "steps[0]: unknown key 'argumnts' in an expected call (did you mean 'arguments'"),
        ({"type": "tool_sequence", "steps": [{"arguments": {}}]}, "steps[0]: an expected call "
         "needs 'tool'"),
        ({"type": "tool_sequence", "steps": [3]}, "steps[0]: an expected call is a tool name"),
        ({"type": "tool_sequence", "steps": "search"}, "steps must be a list"),
        ({"type": "tool_sequence", "steps": []}, "steps must name at least one expected call"),
        ({"type": "tool_sequence", "steps": ["a"], "order": "inorder"}, "'order' must be one of"),
        ({"type": "tool_sequence", "steps": ["a"], "argument_mode": "strict"},
         "'argument_mode' must be one of"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "argument_mode": "exakt",
                                               "arguments": {}}]},
         "(did you mean 'exact'?)"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$regx": "a"}}}]},
         "steps[0].arguments.x: unknown matcher '$regx' (did you mean '$regex'?)"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$regex": "("}}}]},
         "steps[0].arguments.x: invalid regular expression"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$range": [5]}}}]},
         "$range takes a list [min, max]"),
        ({"type": "tool_sequence",
          "steps": [{"tool": "a", "arguments": {"x": {"$range": [5, 1]}}}]},
         "$range min 5 is greater than max 1"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$one_of": []}}}]},
         "$one_of needs a non-empty list"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$any": 1}}}]},
         "$any takes true"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$any": True,
                                                                                "y": 1}}}]},
         "a matcher is a mapping with exactly one key"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "argument_mode": "exact"}]},
         "has argument_mode 'exact' but no arguments"),
        ({"type": "tool_sequence", "steps": ["a"], "per_tool": {"a": {"mode": "exact"}}},
         "per_tool.a: unknown key 'mode'"),
        ({"type": "tool_sequence", "steps": ["a"], "per_tool": {"a": "exact"}},
         "per_tool.a must be a mapping"),
        ({"type": "tool_sequence", "stepz": ["a"]}, "did you mean 'steps'?"),
        ({"type": "tool_call_count", "tool": "a"}, "needs min, max or both"),
        ({"type": "tool_call_count", "tool": "a", "min": 3, "max": 1}, "must not be greater"),
        ({"type": "tool_call_count", "tool": "a", "max": -1}, "max must not be negative"),
        ({"type": "tool_call_count", "tool": "a", "max": "2"}, "wrong type"),
        ({"type": "max_tool_calls"}, "needs the parameter 'max'"),
        ({"type": "steps_before_answer", "max": 1.5}, "wrong type"),
        ({"type": "tool_result_contains", "tool": "a"}, "needs the parameter 'value'"),
        ({"type": "tool_result_contains", "tool": "a", "value": "x", "match": "every"},
         "'match' must be one of"),
        ({"type": "tool_result_matches", "tool": "a", "pattern": "(?<=a)b"},
         "tool_result_matches pattern: invalid regular"),
        ({"type": "no_tool_errors", "tools": []}, "tools"),
    ],
)  # fmt: skip
def test_bad_specs_raise_clear_spec_errors(spec: dict[str, Any], fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    assert fragment in str(info.value)


def test_spec_errors_in_a_suite_file_name_the_line_and_the_path() -> None:
    from chatassert.specs import loads_suite

    text = (
        "chatassert: 1\n"
        "cases:\n"
        "  - name: refund\n"
        "    assertions:\n"
        "      - {type: max_tool_calls, max: 5}\n"
        "      - type: tool_sequence\n"
        "        steps: [lookup, {tool: ticket, arguments: {priority: {$oneof: [high]}}}]\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="support.yaml")
    assert str(info.value).endswith(
        "support.yaml:7: cases[0].assertions[1]: steps[1].arguments.priority: "
        "unknown matcher '$oneof' (did you mean '$one_of'?)"
    )
    suite = loads_suite(text.replace("$oneof", "$one_of"), filename="support.yaml")
    assert suite.cases[0].checks[1] == ToolSequence(
        ["lookup", ExpectedCall("ticket", {"priority": ArgOneOf(["high"])})]
    )


def test_every_problem_of_a_spec_is_reported() -> None:
    with pytest.raises(SpecError) as info:
        from_spec({"type": "tool_call_count", "tol": "a", "max": "x"})
    assert len(info.value.problems) >= 2


def test_python_construction_errors_are_precise() -> None:
    with pytest.raises(TypeError, match="steps must be a list"):
        ToolSequence("search")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("order must be one of exact, in_order")):
        ToolSequence(["a"], "ordered")
    with pytest.raises(TypeError, match="arguments of expected call 'a' must be a mapping"):
        ExpectedCall("a", ["x"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a non-empty tool name"):
        ToolResultContains("", "x")
    with pytest.raises(TypeError, match="min must be an integer"):
        ToolCallCount("a", min=True)


def test_checks_are_immutable() -> None:
    seq = ToolSequence(["a"])
    with pytest.raises(AttributeError):
        seq.order = "exact"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        seq.steps[0].tool = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ArgAny().x = 1  # type: ignore[attr-defined]


# -- docs --------------------------------------------------------------------------------------


def _python_blocks() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def _yaml_blocks() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


def test_docs_python_blocks_run() -> None:
    blocks = _python_blocks()
    assert len(blocks) >= 3
    namespace: dict[str, Any] = {}
    for number, block in enumerate(blocks):
        exec(compile(block, f"{DOCS}[python block {number}]", "exec"), namespace)


def test_docs_yaml_blocks_build() -> None:
    blocks = _yaml_blocks()
    assert blocks
    for block in blocks:
        for node in yaml.safe_load(block):
            assert from_spec(node).as_spec()["type"] == node["type"]


SLOW = "a" * 40000 + "!"  # `(a|aa)+$` backtracks for far longer than 50 ms on this


def test_a_result_regex_that_runs_out_of_time_is_an_error_unless_another_result_decides() -> None:
    chat = Turn(
        tool_calls=[ToolCall(name="get", id="1"), ToolCall(name="get", id="2")],
        tool_results=[ToolResult(call_id="1", content=SLOW), ToolResult(call_id="2", content="ok")],
    )
    assert ToolResultMatches("get", "(a|aa)+$|ok", regex_timeout=0.05).check(chat).passed
    timed_out = ToolResultMatches("get", "(a|aa)+$", regex_timeout=0.05).check(chat)
    assert timed_out.status is Status.ERROR
    assert timed_out.details["error"] == "timeout"
    assert timed_out.details["pattern"] == "(a|aa)+$"
    assert "did not finish within 0.05s" in timed_out.reason
    every = ToolResultMatches("get", "(a|aa)+$", match="all", regex_timeout=0.05).check(chat)
    assert every.status is Status.FAILED  # 'ok' decides: it does not match


def test_a_sequence_regex_that_runs_out_of_time_is_undecided_not_a_crash() -> None:
    step = {"tool": "get", "arguments": {"q": {"$regex": "(a|aa)+$|world"}}}
    calls = Turn(
        tool_calls=[
            ToolCall(name="get", arguments={"q": SLOW}),
            ToolCall(name="get", arguments={"q": "world"}),
        ]
    )
    assert ToolSequence([step], order="superset", regex_timeout=0.05).check(calls).passed
    only_slow = Turn(tool_calls=[ToolCall(name="get", arguments={"q": SLOW})])
    result = ToolSequence([step], order="superset", regex_timeout=0.05).check(only_slow)
    assert result.status is Status.ERROR
    assert result.details["error"] == "timeout"
    assert result.details["pattern"] == "(a|aa)+$|world"


def test_the_regex_time_limit_of_a_spec_reaches_trajectory_regexes_and_survives_pickling() -> None:
    from chatassert.specs import loads_suite

    doc = (
        "chatassert: 1\n"
        "cases:\n"
        "  - name: slow\n"
        "    assertions:\n"
        "      - {type: tool_sequence, order: superset,\n"
        "         steps: [{tool: get, arguments: {q: {$one_of: [{$regex: '(a|aa)+$'}]}}}]}\n"
        "      - {type: tool_result_matches, tool: get, pattern: '(a|aa)+$'}\n"
    )
    (case,) = loads_suite(doc, regex_timeout=0.05).cases
    for check in case.checks:
        copy = pickle.loads(pickle.dumps(check))
        turn_ = Turn(
            tool_calls=[ToolCall(name="get", id="1", arguments={"q": SLOW})],
            tool_results=[ToolResult(call_id="1", content=SLOW)],
        )
        result = copy.check(turn_)
        assert result.status is Status.ERROR
        assert "did not finish within 0.05s" in result.reason
