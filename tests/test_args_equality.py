"""Decision tests of `args_equality: loose | strict` (SEMANTICS G14) on every check that
compares tool-call arguments.

Loose is G9 (`4` equals `"4"`, a bool equals its text); strict is JSON equality (`4` is not
`"4"`, `1` is `1.0`, `true` is neither `1` nor `"true"`), at every depth. The shape rules stay
in both: an expected mapping needs at least its keys, `null` only needs the argument present.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from chatassert import Conversation, Status, ToolCall, Turn, from_spec
from chatassert._matchers import equality, loose_equal, strict_equal
from chatassert.errors import SpecError
from chatassert.specs import loads_suite

# (expected, actual, verdict when loose, verdict when strict): does the call match?
EXAMPLES = [
    pytest.param(4, "4", True, False, id="4-vs-'4'"),
    pytest.param(1, 1.0, True, True, id="1-vs-1.0"),
    pytest.param(True, 1, False, False, id="true-vs-1"),
    pytest.param(True, "true", True, False, id="true-vs-'true'"),
    pytest.param({"n": 4}, {"n": "4", "extra": 1}, True, False, id="nested-4-vs-'4'"),
    pytest.param([1, 2.0], [1.0, 2], True, True, id="list-of-numbers"),
    pytest.param(None, "anything", True, True, id="null-means-present"),
]


def _turn(value: Any) -> Turn:
    return Turn(text="ok", tool_calls=[ToolCall(name="book", arguments={"size": value})])


def _specs(expected: Any, mode: str) -> dict[str, dict[str, Any]]:
    """One spec per check, each requiring (or forbidding) `size: expected` on `book`."""
    return {
        "contains_function_call": {
            "type": "contains_function_call",
            "value": "book",
            "arguments": {"size": expected},
            "args_equality": mode,
        },
        "tool_calls_with_args": {
            "type": "tool_calls_with_args",
            "tool_name": "book",
            "expected_args": {"size": expected},
            "args_equality": mode,
        },
        "conversation_tool_calls_with_args": {
            "type": "conversation_tool_calls_with_args",
            "tool_name": "book",
            "required_args": {"size": expected},
            "args_equality": mode,
        },
        "tool_sequence": {
            "type": "tool_sequence",
            "steps": [{"tool": "book", "arguments": {"size": expected}}],
            "args_equality": mode,
        },
        "conversation_tools_not_called_with_args": {
            "type": "conversation_tools_not_called_with_args",
            "tool_name": "book",
            "forbidden_args": {"size": [expected]},
            "args_equality": mode,
        },
    }


CHECKS = sorted(_specs(0, "loose"))
NEGATED = {"conversation_tools_not_called_with_args"}  # a matching value is a violation
# A forbidden null forbids the argument itself (any value): not a question of equality.
CASES = [
    pytest.param(check, *example.values, id=f"{check}-{example.id}")
    for check in CHECKS
    for example in EXAMPLES
    if not (check in NEGATED and example.values[0] is None)
]


@pytest.mark.parametrize(("check", "expected", "actual", "loose", "strict"), CASES)
def test_each_check_decides_by_its_equality(
    check: str, expected: Any, actual: Any, loose: bool, strict: bool
) -> None:
    for mode, matches in (("loose", loose), ("strict", strict)):
        assertion = from_spec(_specs(expected, mode)[check])
        subject = _turn(actual)
        if check.startswith("conversation_"):
            subject = Conversation(turns=[subject])
        passes = matches != (check in NEGATED)
        result = assertion.check(subject)
        assert result.status is (Status.PASSED if passes else Status.FAILED), (
            mode,
            result.reason,
        )


@pytest.mark.parametrize("check", CHECKS)
def test_loose_is_the_default_and_strict_is_said_in_specs_and_details(check: str) -> None:
    loose = _specs(4, "loose")[check]
    default = {k: v for k, v in loose.items() if k != "args_equality"}
    assert from_spec(default) == from_spec(loose)
    assert "args_equality" not in from_spec(loose).as_spec()
    strict = from_spec(_specs(4, "strict")[check])
    assert strict.as_spec()["args_equality"] == "strict"
    assert from_spec(strict.as_spec()) == strict
    subject: object = _turn(4)
    if check.startswith("conversation_"):
        subject = Conversation(turns=[_turn(4)])
    assert strict.check(subject).details["args_equality"] == "strict"
    assert "args_equality" not in from_spec(loose).check(subject).details


@pytest.mark.parametrize("check", CHECKS)
def test_another_equality_is_a_spec_error_with_a_suggestion(check: str) -> None:
    with pytest.raises(SpecError) as caught:
        from_spec(_specs(4, "stricts")[check])
    (problem,) = caught.value.problems
    assert problem.path == "args_equality"
    assert "one of ['loose', 'strict']" in problem.message
    assert "did you mean 'strict'?" in problem.message


def test_a_promptkit_scenario_sets_it_in_params() -> None:
    suite = loads_suite(
        """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: strict}
spec:
  turns:
    - role: user
      content: Book for four
      assertions:
        - type: tool_calls_with_args
          params: {tool_name: book, expected_args: {size: 4}, args_equality: strict}
""",
        filename="s.yaml",
    )
    logged = Conversation(turns=[Turn(input="Book for four", tool_calls=_turn("4").tool_calls)])
    result = suite.cases[0].check(logged)
    assert result.status is Status.FAILED
    (leaf,) = result.children[0].children
    assert leaf.reason == "Expected 'book' argument 'size' to be 4 but got '4'"


def test_strict_equal_is_json_equality_with_the_shape_rules_of_loose() -> None:
    assert strict_equal({"a": [1, {"b": True}]}, {"a": [1.0, {"b": True, "c": 0}]})
    assert not strict_equal({"a": [1, {"b": True}]}, {"a": [1.0, {"b": 1}]})
    assert not strict_equal([1], [1, 2])
    assert not strict_equal({"a": 1}, [1])
    assert strict_equal(None, {"any": "value"})
    assert not strict_equal("2024-02-15", 20240215)


def test_a_date_is_its_iso_text_in_both_modes() -> None:
    day = dt.date(2024, 2, 15)
    assert strict_equal(day, "2024-02-15")
    assert loose_equal(day, "2024-02-15")
    assert not strict_equal(day, "2024-02-16")


def test_equality_names_its_two_modes() -> None:
    assert equality("loose") is loose_equal
    assert equality("strict") is strict_equal
    with pytest.raises(ValueError, match=r"one of loose, strict, got 'exact'"):
        equality("exact")
