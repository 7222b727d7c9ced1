"""`contains_function_call` failure records and loose equality at their edges.

Each test names what it pins: SEMANTICS G9 (loose argument equality), the flat table's
`contains_function_call` row (the reason names the first mismatching argument; details
`{tool, called_tools, arguments?, calls?: [{arguments, mismatches}]}`), and docs/flat.md
("Arguments", how a reason shows a value). Found by mutation testing (docs/mutation.md).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from chatassert import ContainsFunctionCall, Status, ToolCall, Turn
from chatassert.args import loose_equal


def calls(*calls: ToolCall) -> Turn:
    return Turn(text="Done.", tool_calls=calls)


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        (True, True, True),  # G9: JSON-equal values are equal
        (False, False, True),
        (True, False, False),
        (False, True, False),
        (dt.date(2024, 2, 15), dt.date(2024, 2, 15), True),  # a date equals itself
        (dt.date(2024, 2, 15), dt.date(2024, 2, 16), False),
        (dt.date(2024, 2, 15), "2024-02-15", True),  # G9: a date equals its ISO string
        ("2024-02-15", dt.date(2024, 2, 15), True),
        ("2024-02-16", dt.date(2024, 2, 15), False),
    ],
)
def test_loose_equal_of_bools_and_dates(expected: Any, actual: Any, equal: bool) -> None:
    assert loose_equal(expected, actual) is equal


# (expected arguments, actual arguments, reason, mismatches of that call)
MISMATCHES: list[tuple[dict[str, Any], dict[str, Any], str, list[dict[str, Any]]]] = [
    (  # every expected argument is reported, not only the first missing one
        {"a": 1, "b": 2, "c": 3},
        {"c": 4},
        "tool 'f' was called without argument 'a'",
        [
            {"argument": "a", "expected": 1, "problem": "missing"},
            {"argument": "b", "expected": 2, "problem": "missing"},
            {"argument": "c", "expected": 3, "problem": "value_mismatch", "actual": 4},
        ],
    ),
    (  # G9: an expected mapping matches a mapping; `{}` is not any value
        {"opts": {}},
        {"opts": "x"},
        "tool 'f' was called with opts='x', expected {}",
        [{"argument": "opts", "expected": {}, "problem": "value_mismatch", "actual": "x"}],
    ),
    (  # an expected mapping against a string: a mismatch of the whole value, not a key test
        {"opts": {"a": 1}},
        {"opts": "a"},
        "tool 'f' was called with opts='a', expected {\"a\": 1}",
        [{"argument": "opts", "expected": {"a": 1}, "problem": "value_mismatch", "actual": "a"}],
    ),
    (  # an expected scalar against a mapping; a non-string value is shown with double quotes
        {"n": 1},
        {"n": {"x": "y"}},
        'tool \'f\' was called with n={"x": "y"}, expected 1',
        [{"argument": "n", "expected": 1, "problem": "value_mismatch", "actual": {"x": "y"}}],
    ),
    (  # nested mappings name the deepest argument
        {"address": {"city": "Paris", "zip": "75001"}},
        {"address": {"city": "Lyon"}},
        "tool 'f' was called with address.city='Lyon', expected 'Paris'",
        [
            {
                "argument": "address.city",
                "expected": "Paris",
                "problem": "value_mismatch",
                "actual": "Lyon",
            },
            {"argument": "address.zip", "expected": "75001", "problem": "missing"},
        ],
    ),
]


@pytest.mark.parametrize(("expected", "actual", "reason", "mismatches"), MISMATCHES)
def test_mismatch_records(
    expected: dict[str, Any],
    actual: dict[str, Any],
    reason: str,
    mismatches: list[dict[str, Any]],
) -> None:
    result = ContainsFunctionCall("f", expected).check(calls(ToolCall(name="f", arguments=actual)))
    assert (result.status, result.name, result.reason) == (
        Status.FAILED,
        "contains_function_call",
        reason,
    )
    assert result.details == {
        "tool": "f",
        "arguments": expected,
        "called_tools": ["f"],
        "calls": [{"arguments": actual, "mismatches": mismatches}],
    }


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a" * 58, "'" + "a" * 58 + "'"),  # 60 characters with the quotes: shown whole
        ("a" * 59, "'" + "a" * 44 + "…" + "a" * 9 + "'"),  # 61: cut to 45 + … + 10
        ("0123456789" * 7, "'" + ("0123456789" * 5)[:44] + "…" + "123456789'"),
        (list(range(30)), str(list(range(30)))[:45] + "…" + str(list(range(30)))[-10:]),
    ],
)
def test_a_long_value_is_cut_in_the_middle_of_the_reason_never_in_details(
    value: Any, shown: str
) -> None:
    """docs/flat.md: over 60 characters, a value shows its first 45 and last 10 around `…`."""
    turn = calls(ToolCall(name="f", arguments={"q": value}))
    result = ContainsFunctionCall("f", {"q": "x"}).check(turn)
    assert result.reason == f"tool 'f' was called with q={shown}, expected 'x'"
    assert result.details["calls"][0]["arguments"] == {"q": value}


def test_invalid_json_arguments_are_an_error_that_still_reports_every_call() -> None:
    turn = calls(
        ToolCall(name="f", arguments="{oops"),
        ToolCall(name="f", arguments={"n": 2}),
        ToolCall(name="g", arguments={"n": 1}),
    )
    result = ContainsFunctionCall("f", {"n": 1}).check(turn)
    assert (result.status, result.name) == (Status.ERROR, "contains_function_call")
    assert result.reason.startswith("tool 'f' was called with arguments that are not valid JSON")
    first, second = result.details["calls"]
    assert first["arguments"] == "{oops"
    assert first["error"]
    assert second == {
        "arguments": {"n": 2},
        "mismatches": [{"argument": "n", "expected": 1, "problem": "value_mismatch", "actual": 2}],
    }
