"""The flat dialect's text types: every PASS/FAIL example of the reference document.

Reasons and details follow the flat table of SEMANTICS.md exactly.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import chatassert
import chatassert.flat
from chatassert import (
    Contains,
    ContainsAny,
    Equals,
    Matches,
    NotContains,
    SpecError,
    Status,
    Turn,
    from_spec,
)
from chatassert.flat import ContainsAll

# -- contains -------------------------------------------------------------------------------


def test_contains_passes_on_the_documented_example() -> None:
    result = Contains("reservation confirmed").check("Your reservation confirmed for Saturday")
    assert result.status is Status.PASSED
    assert result.name == "contains"


def test_contains_fails_on_the_documented_example() -> None:
    result = Contains("reservation confirmed").check("Your booking is set")
    assert result.status is Status.FAILED
    assert result.reason == "Response does not contain 'reservation confirmed'"
    assert result.details == {
        "expected": "reservation confirmed",
        "missing": ["reservation confirmed"],
    }


def test_contains_ignores_case_on_both_sides() -> None:
    assert Contains("Reservation CONFIRMED").check("your RESERVATION confirmed").passed


def test_contains_a_list_needs_every_value_and_names_the_first_missing() -> None:
    check = Contains(["table", "saturday", "window"])
    assert check.check("A table on Saturday by the window").passed
    result = check.check("A table on Friday")
    assert result.reason == "Response does not contain 'saturday'"
    assert result.details == {
        "expected": ["table", "saturday", "window"],
        "missing": ["saturday", "window"],
    }


def test_contains_reads_the_last_assistant_message_with_text() -> None:
    turn = Turn(
        messages=[
            {"role": "user", "content": "Book it"},
            {"role": "assistant", "content": "Checking availability..."},
            {"role": "assistant", "content": "Reservation confirmed."},
            {"role": "assistant", "content": None},
        ]
    )
    assert Contains("reservation confirmed").check(turn).passed
    assert not Contains("checking").check(turn).passed


# -- not_contains ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("goodbye", "Anything else I can help with?"),
        ("internal error", "Your ticket was created."),
        ("password", "I reset the link; check your inbox."),
    ],
)
def test_not_contains_passes_when_absent(value: str, text: str) -> None:
    assert NotContains(value).check(text).passed


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("goodbye", "Thanks for calling, Goodbye!"),
        ("internal error", "Sorry, an INTERNAL ERROR occurred"),
        ("password", "Your password is hunter2"),
    ],
)
def test_not_contains_fails_when_present(value: str, text: str) -> None:
    result = NotContains(value).check(text)
    assert result.status is Status.FAILED
    assert result.reason == f"Response should not contain '{value}'"
    assert result.details == {"forbidden": value, "found": [value]}


def test_not_contains_a_list_reports_every_found_value() -> None:
    result = NotContains(["goodbye", "bye", "password"]).check("Bye now, goodbye")
    assert result.reason == "Response should not contain 'goodbye'"
    assert result.details == {
        "forbidden": ["goodbye", "bye", "password"],
        "found": ["goodbye", "bye"],
    }


# -- contains_any ---------------------------------------------------------------------------

ANY = ["available", "open", "free"]


@pytest.mark.parametrize("text", ["We have tables available", "That slot is open", "FREE at 8"])
def test_contains_any_passes_on_any_value(text: str) -> None:
    assert ContainsAny(ANY).check(text).passed


def test_contains_any_fails_on_the_documented_example() -> None:
    result = ContainsAny(ANY).check("Please hold")
    assert result.status is Status.FAILED
    assert result.reason == "Response should contain at least one of: ['available', 'open', 'free']"
    assert result.details == {"values": ANY}


# -- contains_all ---------------------------------------------------------------------------

ALL = ["date", "time", "party size"]


def test_contains_all_passes_on_the_documented_example() -> None:
    assert ContainsAll(ALL).check("Please confirm the date, time, and party size").passed


def test_contains_all_fails_on_the_documented_example() -> None:
    result = ContainsAll(ALL).check("Please confirm the date and time")
    assert result.status is Status.FAILED
    assert result.reason == "Response should contain all of: ['date', 'time', 'party size']"
    assert result.details == {"values": ALL, "missing": ["party size"]}


def test_contains_all_ignores_case() -> None:
    assert ContainsAll(ALL).check("DATE, Time and Party Size please").passed


# -- equals ---------------------------------------------------------------------------------

GOODBYE = "Thank you for calling. Goodbye!"


def test_equals_passes_after_trimming_whitespace() -> None:
    assert Equals(GOODBYE).check(f"  \n{GOODBYE}\t ").passed
    assert Equals(f"  {GOODBYE} ").check(GOODBYE).passed


def test_equals_is_case_sensitive() -> None:
    result = Equals(GOODBYE).check(GOODBYE.lower())
    assert result.status is Status.FAILED
    assert result.reason == f"Expected exact match with '{GOODBYE}'"
    assert result.details == {"expected": GOODBYE, "actual": GOODBYE.lower()}


def test_equals_does_not_accept_a_substring() -> None:
    assert not Equals(GOODBYE).check(f"{GOODBYE} Have a nice day.").passed


def test_equals_renders_a_number_with_str() -> None:
    check = from_spec({"type": "equals", "value": 42})
    assert check == Equals("42")
    assert check.check(" 42 ").passed
    assert Equals(2.5).check("2.5").passed


# -- matches --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("confirmation.*#[A-Z0-9]{6}", "Your confirmation number is #AB12CD."),
        (r"\d{1,2}:\d{2}\s*(AM|PM)", "See you at 7:30 PM"),
        (r"\d{3}-\d{3}-\d{4}", "Call us at 555-123-4567."),
        (r"\d{4}-\d{2}-\d{2}", "Booked for 2024-02-15."),
    ],
)
def test_matches_passes_on_the_documented_patterns(pattern: str, text: str) -> None:
    result = Matches(pattern).check(text)
    assert result.status is Status.PASSED
    assert result.details["matched"] is True


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("confirmation.*#[A-Z0-9]{6}", "Your confirmation number is #ab12cd."),
        (r"\d{1,2}:\d{2}\s*(AM|PM)", "See you at seven"),
        (r"\d{3}-\d{3}-\d{4}", "Call us at 555-1234."),
        (r"\d{4}-\d{2}-\d{2}", "Booked for 15/02/2024."),
    ],
)
def test_matches_fails_with_the_documented_reason(pattern: str, text: str) -> None:
    result = Matches(pattern).check(text)
    assert result.status is Status.FAILED
    assert result.reason == f"Response does not match pattern '{pattern}'"
    assert result.details == {"pattern": pattern, "matched": False}


def test_matches_is_an_unanchored_case_sensitive_search() -> None:
    assert Matches("table").check("a table for two").passed
    assert not Matches("TABLE").check("a table for two").passed
    assert Matches("(?i)TABLE").check("a table for two").passed


def test_matches_understands_go_syntax() -> None:
    assert Matches(r"[[:digit:]]+ guests\z").check("for 4 guests").passed
    assert not Matches(r"guests\z").check("guests arrive").passed
    assert Matches(r"(?P<size>\d+) people").check("a table for 6 people").passed


def test_an_invalid_pattern_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="invalid regular expression '\\(unclosed'"):
        Matches("(unclosed")


def test_an_invalid_pattern_in_a_spec_is_a_spec_error() -> None:
    with pytest.raises(SpecError):
        from_spec({"type": "matches", "value": "[a-"})


# -- construction and spec errors (G4) -------------------------------------------------------


@pytest.mark.parametrize("cls", [Contains, NotContains, ContainsAny, ContainsAll])
def test_substring_types_reject_empty_values(cls: type[Contains]) -> None:
    """G4: the error names the assertion (its `kind`) and what was found."""
    with pytest.raises(ValueError) as empty:
        cls([])
    assert str(empty.value) == f"{cls.kind} needs at least one value, got an empty list"
    with pytest.raises(ValueError, match="empty"):
        cls("")
    with pytest.raises(TypeError) as not_text:
        cls(["a", 1])  # type: ignore[list-item]
    assert str(not_text.value) == f"{cls.kind} values must be strings, got int 1"


def test_descriptions_join_several_values() -> None:
    """`describe()` is one line naming what is required (docs/guide.md): every value must be
    there for `contains`, none of them for `not_contains`."""
    assert Contains(["a", "b", "c"]).describe() == "contains 'a' and 'b' and 'c'"
    assert NotContains(["a", "b", "c"]).describe() == "does not contain 'a' or 'b' or 'c'"


@pytest.mark.parametrize(
    "spec",
    [
        {"type": "contains"},
        {"type": "contains", "value": ""},
        {"type": "contains", "value": []},
        {"type": "contains_any", "value": [1, 2]},
        {"type": "equals", "value": "  "},
        {"type": "contains", "value": "x", "valeu": "y"},
        {"type": "contian", "value": "x"},
    ],
)
def test_bad_specs_fail_loudly(spec: dict[str, object]) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    assert info.value.problems


def test_an_unknown_type_suggests_the_closest_names() -> None:
    with pytest.raises(SpecError, match="did you mean 'contains'"):
        from_spec({"type": "contian", "value": "x"})


def test_a_single_string_where_a_list_is_expected_is_one_value() -> None:
    assert from_spec({"type": "contains_any", "value": "open"}) == ContainsAny(["open"])


def test_type_names_are_normalised() -> None:
    assert from_spec({"type": "Not-Contains", "value": "bye"}) == NotContains("bye")


def test_details_are_json_serialisable() -> None:
    for check in (
        Contains("a"),
        NotContains("a"),
        ContainsAny(["a"]),
        ContainsAll(["a", "b"]),
        Equals("a"),
        Matches("a"),
    ):
        for text in ("a", "b"):
            json.dumps(check.check(text).to_dict())


def test_the_text_types_are_exported_by_the_facade() -> None:
    for name in ("Contains", "NotContains", "ContainsAny", "Equals", "Matches"):
        assert name in chatassert.__all__
    assert "ContainsAll" in chatassert.flat.__all__  # the flat dialect's own spelling


# -- whole records at their edges (found by mutation testing, docs/internals/mutation.md) ----------


def test_two_values_are_each_required_or_each_forbidden() -> None:
    """SEMANTICS flat table: `contains` needs every value, `not_contains` forbids every value;
    with two values, the second counts as much as the first."""
    result = Contains(["table", "window"]).check("A table for two")
    assert (result.status, result.name, result.reason, result.details) == (
        Status.FAILED,
        "contains",
        "Response does not contain 'window'",
        {"expected": ["table", "window"], "missing": ["window"]},
    )
    forbidden = NotContains(["goodbye", "refund"])
    result = forbidden.check("Your REFUND is on its way")
    assert (result.status, result.name, result.reason, result.details) == (
        Status.FAILED,
        "not_contains",
        "Response should not contain 'refund'",
        {"forbidden": ["goodbye", "refund"], "found": ["refund"]},
    )
    result = forbidden.check("Goodbye, and enjoy the refund")
    assert (result.status, result.reason, result.details) == (
        Status.FAILED,
        "Response should not contain 'goodbye'",
        {"forbidden": ["goodbye", "refund"], "found": ["goodbye", "refund"]},
    )
    result = forbidden.check("Anything else?")
    assert (result.status, result.details) == (
        Status.PASSED,
        {"forbidden": ["goodbye", "refund"], "found": []},
    )


@pytest.mark.parametrize(
    ("cls", "value", "text", "reason", "details"),
    [
        (
            Contains,
            ["table", "window"],
            "A TABLE by the window",
            "contains 'table' and 'window'",
            {"expected": ["table", "window"], "missing": []},
        ),
        (
            NotContains,
            "goodbye",
            "Anything else?",
            "does not contain 'goodbye'",
            {"forbidden": "goodbye", "found": []},
        ),
        (  # `matched`: the first value, in the order given, that the text contains
            ContainsAny,
            ["available", "open", "free"],
            "FREE now, and open at 8",
            "contains any of 'available', 'open', 'free'",
            {"values": ["available", "open", "free"], "matched": "open"},
        ),
        (
            ContainsAll,
            ["date", "time"],
            "Confirm the date and TIME",
            "contains all of 'date', 'time'",
            {"values": ["date", "time"], "missing": []},
        ),
        (  # `expected` is the value as given, `actual` the trimmed text
            Equals,
            " Goodbye! ",
            "\nGoodbye!",
            "equals ' Goodbye! '",
            {"expected": " Goodbye! ", "actual": "Goodbye!"},
        ),
        (
            Matches,
            r"#\d+",
            "Ticket #42 created",
            "matches /#\\d+/",
            {"pattern": r"#\d+", "matched": True},
        ),
    ],
    ids=["contains", "not_contains", "contains_any", "contains_all", "equals", "matches"],
)
def test_a_pass_record_names_the_requirement_that_held(
    cls: Any, value: object, text: str, reason: str, details: dict[str, object]
) -> None:
    """docs/flat.md, "A pass": the reason is `describe()`, the details the failure's keys.

    The assertion is built inside the test, not when the parameters are collected: its pass
    record is built by its constructor, and mutation testing runs a mutant of a constructor
    only against the tests that call it.
    """
    check: chatassert.Assertion = cls(value)
    result = check.check(text)
    assert (result.status, result.name, result.reason, result.details) == (
        Status.PASSED,
        check.kind,
        reason,
        details,
    )
    assert result.reason == check.describe()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "equals value must be a string, got bool"),  # a bool is not a number here
        (None, "equals value must be a string, got NoneType"),
        (["Goodbye"], "equals value must be a string, got list"),
    ],
)
def test_equals_takes_text_or_a_number_and_names_what_it_got(value: object, message: str) -> None:
    """SEMANTICS flat table: `equals` takes a string (a number is rendered with `str`); G4."""
    with pytest.raises(TypeError) as raised:
        Equals(value)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_equals_rejects_blank_text() -> None:
    with pytest.raises(ValueError) as raised:
        Equals(" \n\t")
    assert str(raised.value) == "equals value must not be empty"


def test_matches_rejects_an_empty_or_non_string_pattern_naming_itself() -> None:
    """G4: a bad parameter fails at construction, and the message names the type."""
    with pytest.raises(ValueError) as empty:
        Matches("")
    assert str(empty.value) == "matches pattern must not be empty"
    with pytest.raises(TypeError) as wrong:
        Matches(5)  # type: ignore[arg-type]
    assert str(wrong.value) == "matches pattern must be a string, got int"


def test_a_regex_timeout_is_an_error_record() -> None:
    """G7/G8 and docs/flat.md: a search that runs out of its time limit is an `error` whose
    details name the pattern, the cause and the length of the text."""
    slow = "a" * 40_000 + "!"  # `(a|aa)+$` backtracks far past the limit on this
    result = Matches("(a|aa)+$", regex_timeout=0.05).check(slow)
    assert (result.status, result.name, result.reason, result.details) == (
        Status.ERROR,
        "matches",
        "pattern '(a|aa)+$' did not finish within 0.05s on a text of 40001 characters",
        {"pattern": "(a|aa)+$", "error": "timeout", "text_length": 40_001},
    )
