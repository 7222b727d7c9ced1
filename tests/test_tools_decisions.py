"""`contains_function_call` failure records and loose equality at their edges.

Each test names what it pins: SEMANTICS G9 (loose argument equality), the flat table's
`contains_function_call` row (the reason names the first mismatching argument; details
`{tool, called_tools, arguments?, calls?: [{arguments, mismatches}]}`), and docs/flat.md
("Arguments", how a reason shows a value). Found by mutation testing (docs/internals/mutation.md).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest

from chatassert import ContainsFunctionCall, Conversation, Status, ToolCall, Turn
from chatassert._matchers import strict_equal
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


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        (4, "4", True),  # G9: a number equals its canonical decimal rendering
        (4, "4.0", False),  # G19: "4.0" is not the canonical rendering of the integer 4
        (4.0, "4.0", True),  # a float equals its own rendering,
        (4.0, "4", True),  # and, when it is whole, its digits
        (4, "None", False),  # and no other string
        (2.5, "2.50", False),
        (math.inf, "inf", True),  # docs/flat.md: a non-finite number equals its rendering
        (-math.inf, "-inf", True),
        (math.nan, "nan", True),
        (math.inf, "None", False),
        (math.inf, "Infinity", False),
        (math.nan, math.nan, False),  # numerically, NaN equals nothing
    ],
)
def test_loose_equal_of_numbers_and_their_renderings(
    expected: Any, actual: Any, equal: bool
) -> None:
    assert loose_equal(expected, actual) is equal
    assert loose_equal(actual, expected) is equal  # the same rule either way round


def test_a_loose_match_passes_with_the_record_of_an_exact_one() -> None:
    """G9 through the assertion: a pass shares the details built with the assertion,
    `{tool, arguments}` (docs/flat.md, "A pass"), however loosely the arguments matched."""
    check = ContainsFunctionCall("book", {"party_size": "4", "date": dt.date(2024, 2, 15)})
    turn = calls(ToolCall(name="book", arguments={"party_size": 4, "date": "2024-02-15"}))
    result = check.check(turn)
    assert (result.status, result.name, result.reason, result.details) == (
        Status.PASSED,
        "contains_function_call",
        "calls book with {'party_size': '4', 'date': '2024-02-15'}",
        {"tool": "book", "arguments": {"party_size": "4", "date": "2024-02-15"}},
    )
    exact = calls(ToolCall(name="book", arguments={"party_size": "4", "date": "2024-02-15"}))
    assert check.check(exact) == result


@pytest.mark.parametrize(
    ("expected", "actual", "reason"),
    [
        ({"a": True}, {"a": 1}, "tool 'f' was called with x.a=1, expected True"),
        ({"a": 1}, {"a": True}, "tool 'f' was called with x.a=True, expected 1"),
        ([True], [1], "tool 'f' was called with x=[1], expected [True]"),
        ([0], [False], "tool 'f' was called with x=[False], expected [0]"),
    ],
)
def test_a_bool_never_equals_a_number_even_inside_a_mapping_or_list(
    expected: Any, actual: Any, reason: str
) -> None:
    """G9: a bool equals a bool or "true"/"false", never 1 or 0, at any depth (Python's `==`
    says `{"a": 1} == {"a": True}`; a call passed on that once)."""
    assert not loose_equal(expected, actual)
    result = ContainsFunctionCall("f", {"x": expected}).check(
        calls(ToolCall(name="f", arguments={"x": actual}))
    )
    assert (result.status, result.reason) == (Status.FAILED, reason)


def test_a_conversation_of_one_turn_is_checked_as_that_turn() -> None:
    """docs/flat.md, "Subjects", and `as_turn`: a one-turn conversation is checked as its turn."""
    turn = calls(ToolCall(name="f", arguments={"n": 1}))
    check = ContainsFunctionCall("f", {"n": "1"})
    assert check.check(Conversation(turns=(turn,))) == check.check(turn)
    assert check.check(Conversation(turns=(turn,))).passed
    with pytest.raises(TypeError, match="Conversation of 2 turns"):
        check.check(Conversation(turns=(turn, turn)))


@pytest.mark.parametrize(
    ("tool", "arguments", "error", "message"),
    [
        ("", None, ValueError, "contains_function_call needs a non-empty tool name"),
        ("  ", None, ValueError, "contains_function_call needs a non-empty tool name"),
        ("x", [("a", 1)], TypeError, "arguments must be a mapping, got list"),
        ("x", "a=1", TypeError, "arguments must be a mapping, got str"),
    ],
)
def test_bad_arguments_are_named(tool: Any, arguments: Any, error: type, message: str) -> None:
    """Bad arguments fail when the assertion is built, naming what was found (SEMANTICS G4)."""
    with pytest.raises(error) as raised:
        ContainsFunctionCall(tool, arguments)
    assert str(raised.value) == message


# -- G19: the edges of loose equality -------------------------------------------------------

EDGES: list[tuple[Any, Any, bool]] = [
    # a string compared with a number is read without its surrounding whitespace
    (4, " 4 ", True),
    (4, "\t4\n", True),
    (2.5, " 2.5", True),
    (4.0, " 4.0 ", True),
    (4, "4 5", False),  # whitespace inside is kept
    (4, "", False),
    (4, " ", False),
    # nothing else is loosened: only the canonical rendering
    (4, "4.0", False),
    (4, "+4", False),
    (4, "04", False),
    (4, "4e0", False),
    (2.5, "2.50", False),
    # a string compared with a bool ignores case (and its surrounding whitespace)
    (True, "True", True),
    (True, "TRUE", True),
    (True, "tRuE", True),
    (False, "False", True),
    (False, "FALSE", True),
    (True, " true ", True),
    (True, "false", False),
    (False, "True", False),
    (True, "yes", False),
    (True, "1", False),
    (True, "t", False),
    (False, "0", False),
    (False, "", False),
    # a date likewise: its ISO string, without surrounding whitespace
    (dt.date(2024, 2, 15), " 2024-02-15\n", True),
    (dt.date(2024, 2, 15), "2024-2-15", False),
    # two strings compare exactly: no trimming, no case folding
    ("Paris", "paris", False),
    ("Paris", " Paris", False),
    ("true", "True", False),
    ("4", " 4", False),
]


@pytest.mark.parametrize(("expected", "actual", "equal"), EDGES)
def test_loose_equality_at_its_edges(expected: Any, actual: Any, equal: bool) -> None:
    """SEMANTICS G19, decided in docs/flat.md ("Arguments"): the same either way round."""
    assert loose_equal(expected, actual) is equal
    assert loose_equal(actual, expected) is equal


def test_an_integer_of_more_digits_than_python_renders_equals_no_string() -> None:
    """A crash before (`float()` of the integer overflowed): now simply not equal."""
    huge = 10**5000
    assert not loose_equal(huge, "1" + "0" * 5000)
    assert loose_equal(huge, huge)


@pytest.mark.parametrize(
    ("expected", "actual"), [(e, a) for e, a, equal in EDGES if equal and type(e) is not type(a)]
)
def test_strict_equality_has_none_of_the_edges(expected: Any, actual: Any) -> None:
    """G14: under `args_equality: strict` a string never equals a number, a bool or a date's
    value with other whitespace or case."""
    assert not strict_equal(expected, actual)
    assert not strict_equal(actual, expected)


@pytest.mark.parametrize(
    ("expected", "actual", "passed"),
    [
        ({"party_size": 4}, {"party_size": " 4 "}, True),
        ({"party_size": 4}, {"party_size": "4.0"}, False),
        ({"confirm": True}, {"confirm": "True"}, True),
        ({"confirm": True}, {"confirm": "yes"}, False),
    ],
)
def test_the_edges_through_contains_function_call(
    expected: dict[str, Any], actual: dict[str, Any], passed: bool
) -> None:
    turn = calls(ToolCall(name="book", arguments=actual))
    assert ContainsFunctionCall("book", expected).check(turn).passed is passed
    strict = ContainsFunctionCall("book", expected, args_equality="strict")
    assert strict.check(turn).passed is False
