"""Loading flat spec files: every accepted form, the G4 errors, and the G5 coercions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatassert import (
    Contains,
    ContainsAny,
    ContainsFunctionCall,
    Conversation,
    LLMRubric,
    NotContains,
    OnEveryTurn,
    SpecError,
    Status,
    Turn,
)
from chatassert.judges import judge_planning
from chatassert.specs import load_assertion, load_suite, loads_suite
from chatassert.testing import FakeJudge

DOCUMENT_EXAMPLE = """
turns:
  - user_input: "I want to book a table for 4 on Saturday"
    assertions:
      # Verify correct tool was called
      - type: contains_function_call
        value: "check_availability"

      # Verify response contains key info
      - type: contains_any
        value: ["available", "slot", "opening"]

      # Verify no premature goodbye
      - type: not_contains
        value: "goodbye"

      # Semantic quality check
      - type: llm_rubric
        value: "Agent should present available options and ask for preference"
"""


def problems(text: str, **options: object) -> list[str]:
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="suite.yaml", **options)
    return [str(p) for p in info.value.problems]


def test_the_documents_combination_example_loads_as_one_case() -> None:
    suite = loads_suite(DOCUMENT_EXAMPLE, filename="booking.yaml", judge=FakeJudge.passing())
    assert suite.dialect == "flat"
    assert suite.name == "booking"
    (case,) = suite.cases
    (turn,) = case.turns
    assert turn.input == "I want to book a table for 4 on Saturday"
    assert [type(a) for a in turn.assertions] == [
        ContainsFunctionCall,
        ContainsAny,
        NotContains,
        LLMRubric,
    ]


def test_test_cases_form_keeps_names_tags_ids_and_order() -> None:
    suite = loads_suite(
        """
test_cases:
  - name: first
    id: 7
    tags: [booking, smoke]
    description: books a table
    turns:
      - user_input: hi
        assertions: [{type: contains, value: hello}]
  - name: second
    turns:
      - user_input: a
        assertions: [{type: contains, value: x}]
      - user_input: b
        assertions: [{type: equals, value: 42}]
"""
    )
    first, second = suite.cases
    assert (first.name, first.id, first.tags, first.description) == (
        "first",
        "7",
        ("booking", "smoke"),
        "books a table",
    )
    assert [t.input for t in second.turns] == ["a", "b"]
    assert second.turns[1].assertions[0].as_spec() == {"type": "equals", "value": "42"}


def test_a_single_assertion_and_a_list_are_checked_on_every_turn() -> None:
    single = loads_suite("{type: not_contains, value: internal error}")
    listed = loads_suite(
        "- {type: not_contains, value: internal error}\n- {type: contains, value: a}"
    )
    assert single.cases[0].checks == (OnEveryTurn(NotContains("internal error")),)
    assert len(listed.cases[0].checks) == 2
    chat = Conversation(turns=[Turn(input="q", text="a fine answer"), Turn(input="r", text="b")])
    result = listed.cases[0].check(chat)
    assert result.status is Status.FAILED
    assert "turns[1]" in result.render()


def test_coercions_single_strings_type_names_and_labels() -> None:
    suite = loads_suite(
        """
turns:
  - user_input: hi
    assertions:
      - {type: Contains-Any, value: open}
      - {type: llm-rubric, rubric: Is kind, description: kindness}
      - {type: NotContains, value: goodbye, message: no goodbye}
"""
    )
    contains_any, rubric, not_contains = suite.cases[0].turns[0].assertions
    assert contains_any == ContainsAny(["open"])
    assert isinstance(rubric, LLMRubric)
    assert rubric.criteria == "Is kind"
    assert rubric.message == "kindness"
    assert not_contains == NotContains("goodbye", message="no goodbye")


def test_value_wins_over_rubric_when_both_are_set() -> None:
    rubric = load_assertion({"type": "llm_rubric", "value": "A", "rubric": "B"}, dialect="flat")
    assert isinstance(rubric, LLMRubric)
    assert rubric.criteria == "A"


def test_yaml_dates_in_arguments_equal_their_iso_strings() -> None:
    call = load_assertion(
        "{type: contains_function_call, value: book, arguments: {date: 2024-02-15, size: 4}}",
        dialect="flat",
    )
    assert call == ContainsFunctionCall("book", {"date": "2024-02-15", "size": 4})
    turn = Turn(tool_calls=[{"name": "book", "arguments": '{"date": "2024-02-15", "size": "4"}'}])
    assert call.check(turn).passed


def test_every_problem_of_a_file_is_reported_with_its_line_and_a_fix() -> None:
    found = problems(
        """
test_cases:
  - name: a
    turns:
      - user_input: hi
        assertions:
          - type: contain
            value: x
          - type: matches
            value: "("
          - type: contains_function_call
            valu: x
          - type: contains_any
            value: []
          - type: llm_rubric
            value: ""
          - type: equals
            value: [1]
  - nam: b
    turns: []
"""
    )
    assert len(found) == 8
    joined = "\n".join(found)
    assert (
        "suite.yaml:7: test_cases[0].turns[0].assertions[0]: unknown flat assertion type" in joined
    )
    assert "did you mean 'contains'" in joined
    assert (  # a constructor's error is placed on the line of the parameter it is about
        "suite.yaml:10: test_cases[0].turns[0].assertions[1].value: invalid regular expression"
        in joined
    )
    assert "(did you mean 'value'?)" in joined
    assert "needs the parameter 'value'" in joined
    assert "must be a non-empty list of non-empty strings" in joined
    assert "'value' must not be empty" in joined
    assert "found list [1]" in joined
    assert "suite.yaml:19: test_cases[1].nam: unknown key 'nam' in a test case" in joined


def test_a_case_without_assertions_would_pass_vacuously_and_is_an_error() -> None:
    found = problems("test_cases:\n  - name: b\n    turns:\n      - user_input: x\n")
    assert found == [
        "suite.yaml:2: test_cases[0]: case 'b' has no assertions, so it would pass vacuously "
        "(add assertions, or remove the case)"
    ]


def test_native_types_are_not_flat_types() -> None:
    found = problems(
        "turns:\n  - user_input: x\n    assertions:\n      - {type: all_of, assertions: []}\n"
    )
    assert "unknown flat assertion type 'all_of'" in found[0]


def test_yaml_syntax_errors_and_duplicate_keys_name_their_line() -> None:
    assert problems("turns:\n  - user_input: 'unclosed\n") == [
        problems("turns:\n  - user_input: 'unclosed\n")[0]
    ]
    syntax = problems("turns:\n  - user_input: x\n   assertions: []\n")
    assert syntax[0].startswith("suite.yaml:3: invalid YAML")
    duplicate = problems("turns:\n  - user_input: x\n    user_input: y\n    assertions: []\n")
    assert duplicate == [
        "suite.yaml:3: duplicate key 'user_input' (each key may appear once in a mapping; "
        "remove or rename one)"
    ]


def test_an_empty_file_and_an_empty_case_list_are_errors() -> None:
    assert "the spec is empty" in problems("")[0]
    assert "'test_cases' is empty" in problems("test_cases: []")[0]


def test_json_files_load_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    path.write_text(
        json.dumps(
            {"turns": [{"user_input": "hi", "assertions": [{"type": "contians", "value": "x"}]}]},
            indent=2,
        )
    )
    with pytest.raises(SpecError) as info:
        load_suite(path)
    problem = info.value.problems[0]
    assert (problem.file, problem.line) == (str(path), 7)  # the line of its 'type'
    assert problem.hint is not None
    assert "'contains'" in problem.hint


def test_two_cases_with_one_name_are_an_error() -> None:
    text = "test_cases:\n" + "".join(
        "  - name: same\n    turns:\n      - user_input: x\n"
        "        assertions: [{type: contains, value: x}]\n"
        for _ in range(2)
    )
    assert "two cases are named 'same'" in problems(text)[0]


def test_a_judge_passed_to_the_loader_reaches_judged_assertions() -> None:
    judge = FakeJudge({"passed": False, "reason": "no options offered"})
    suite = loads_suite(DOCUMENT_EXAMPLE, judge=judge)
    chat = Conversation.from_messages(
        [
            {"role": "user", "content": "I want to book a table for 4 on Saturday"},
            {"role": "assistant", "content": "Goodbye"},
        ]
    )
    with judge_planning(False):  # the other checks fail: planning would not ask the judge
        result = suite.cases[0].check(chat)
    rubric = result.children[0].children[3]
    assert (rubric.status, rubric.reason) == (Status.FAILED, "no options offered")
    assert judge.requests[0].input == "I want to book a table for 4 on Saturday"


def test_a_regex_timeout_option_reaches_matches() -> None:
    suite = loads_suite(
        "turns:\n  - user_input: x\n    assertions:\n      - {type: matches, value: '(a+)+$'}\n",
        regex_timeout=0.01,
    )
    chat = Conversation(turns=[Turn(input="x", text="a" * 5000 + "b")])
    leaf = suite.cases[0].check(chat).children[0].children[0]
    assert leaf.status is Status.ERROR
    assert "did not finish" in leaf.reason


def test_contains_round_trips_through_the_flat_dialect() -> None:
    assertion = Contains(["a", "b"], message="both")
    assert load_assertion(assertion.as_spec(), dialect="flat") == assertion
