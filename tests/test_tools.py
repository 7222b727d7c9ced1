"""`contains_function_call` and the loose argument equality it uses (G9)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from chatassert import ContainsFunctionCall, SpecError, Status, ToolCall, Turn, from_spec
from chatassert.args import loose_equal


def turn_with(*calls: ToolCall) -> Turn:
    return Turn(text="Done.", tool_calls=calls)


# -- the documented examples -----------------------------------------------------------------


def test_passes_when_the_tool_was_called(booking_turn: Turn) -> None:
    result = ContainsFunctionCall("create_reservation").check(booking_turn)
    assert result.status is Status.PASSED
    # A pass shares the details built with the assertion (the failure details are richer).
    assert result.details == {"tool": "create_reservation"}


def test_fails_naming_the_tools_that_were_called(booking_turn: Turn) -> None:
    result = ContainsFunctionCall("lookup_account").check(booking_turn)
    assert result.status is Status.FAILED
    assert result.reason == (
        "Expected tool 'lookup_account', found: ['check_availability', 'create_reservation']"
    )
    assert result.details == {
        "tool": "lookup_account",
        "called_tools": ["check_availability", "create_reservation"],
    }


def test_fails_on_a_turn_without_tool_calls() -> None:
    result = ContainsFunctionCall("create_ticket").check("I created a ticket for you.")
    assert result.reason == "Expected tool 'create_ticket', found: []"


def test_the_name_is_exact_and_case_sensitive(booking_turn: Turn) -> None:
    assert not ContainsFunctionCall("Create_Reservation").check(booking_turn).passed
    assert not ContainsFunctionCall("create").check(booking_turn).passed


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("create_reservation", {"party_size": 4, "date": "2024-02-15"}),
        ("create_reservation", {"party_size": 4}),
        ("create_ticket", {"priority": "high"}),
        ("schedule_appointment", {"appointment_type": "checkup"}),
    ],
)
def test_documented_argument_examples_pass(tool: str, arguments: dict[str, Any]) -> None:
    turn = turn_with(ToolCall(name=tool, arguments={**arguments, "extra": "fine"}))
    result = ContainsFunctionCall(tool, arguments).check(turn)
    assert result.status is Status.PASSED
    assert result.details == {"tool": tool, "arguments": arguments}


def test_other_arguments_fail_naming_the_first_mismatching_argument() -> None:
    turn = turn_with(ToolCall(name="create_ticket", arguments={"priority": "low", "topic": "x"}))
    result = ContainsFunctionCall("create_ticket", {"topic": "x", "priority": "high"}).check(turn)
    assert result.status is Status.FAILED
    assert result.reason == "tool 'create_ticket' was called with priority='low', expected 'high'"
    assert result.details == {
        "tool": "create_ticket",
        "called_tools": ["create_ticket"],
        "arguments": {"topic": "x", "priority": "high"},
        "calls": [
            {
                "arguments": {"priority": "low", "topic": "x"},
                "mismatches": [
                    {
                        "argument": "priority",
                        "expected": "high",
                        "actual": "low",
                        "problem": "value_mismatch",
                    }
                ],
            }
        ],
    }


def test_a_missing_argument_is_named() -> None:
    turn = turn_with(ToolCall(name="create_reservation", arguments={"date": "2024-02-15"}))
    result = ContainsFunctionCall("create_reservation", {"party_size": 4}).check(turn)
    assert result.reason == "tool 'create_reservation' was called without argument 'party_size'"
    assert result.details["calls"][0]["mismatches"] == [
        {"argument": "party_size", "expected": 4, "problem": "missing"}
    ]


def test_some_call_of_the_turn_must_match() -> None:
    turn = turn_with(
        ToolCall(name="create_reservation", arguments={"party_size": 2}),
        ToolCall(name="create_reservation", arguments={"party_size": 4}),
    )
    assert ContainsFunctionCall("create_reservation", {"party_size": 4}).check(turn).passed
    result = ContainsFunctionCall("create_reservation", {"party_size": 6}).check(turn)
    assert result.status is Status.FAILED
    assert [c["arguments"] for c in result.details["calls"]] == [
        {"party_size": 2},
        {"party_size": 4},
    ]


def test_arguments_given_but_tool_not_called_keep_the_arguments_in_details() -> None:
    result = ContainsFunctionCall("cancel", {"id": 1}).check(turn_with(ToolCall(name="book")))
    assert result.reason == "Expected tool 'cancel', found: ['book']"
    assert result.details == {"tool": "cancel", "called_tools": ["book"], "arguments": {"id": 1}}


# -- G9 loose equality through the assertion --------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (4, "4"),
        ("4", 4),
        (4, 4.0),
        (2.5, "2.5"),
        ("2.5", 2.5),
        (True, "true"),
        (False, "false"),
        ("true", True),
        (dt.date(2024, 2, 15), "2024-02-15"),
        ("2024-02-15", "2024-02-15"),
        (None, "anything"),
        (None, None),
        ({"city": "Paris"}, {"city": "Paris", "zip": "75001"}),
        ({"address": {"city": "Paris"}}, {"address": {"city": "Paris", "street": "Rue"}}),
        ([1, "2"], ["1", 2.0]),
        ([{"a": 1}], [{"a": "1", "b": 2}]),
    ],
)
def test_loosely_equal_arguments_pass(expected: Any, actual: Any) -> None:
    assert loose_equal(expected, actual)
    turn = turn_with(ToolCall(name="f", arguments={"x": actual}))
    assert ContainsFunctionCall("f", {"x": expected}).check(turn).passed


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (4, "4.5"),
        (4, 5),
        (2.5, "2.50x"),
        (True, "yes"),
        (True, 1),
        (False, 0),
        ("true", False),
        (dt.date(2024, 2, 15), "2024-02-16"),
        ({"city": "Paris"}, {"town": "Paris"}),
        ({"city": "Paris"}, "Paris"),
        ([1, 2], [1, 2, 3]),
        ([1, 2], [2, 1]),
        ([1], 1),
        ("Paris", "paris"),
    ],
)
def test_loosely_unequal_arguments_fail(expected: Any, actual: Any) -> None:
    assert not loose_equal(expected, actual)
    turn = turn_with(ToolCall(name="f", arguments={"x": actual}))
    assert ContainsFunctionCall("f", {"x": expected}).check(turn).status is Status.FAILED


def test_null_means_present_with_any_value() -> None:
    check = ContainsFunctionCall("f", {"x": None})
    assert check.check(turn_with(ToolCall(name="f", arguments={"x": None}))).passed
    result = check.check(turn_with(ToolCall(name="f", arguments={"y": 1})))
    assert result.status is Status.FAILED
    assert result.reason == "tool 'f' was called without argument 'x'"


def test_a_nested_mismatch_names_the_deepest_argument() -> None:
    turn = turn_with(ToolCall(name="f", arguments={"address": {"city": "Lyon", "zip": "1"}}))
    result = ContainsFunctionCall("f", {"address": {"city": "Paris"}}).check(turn)
    assert result.reason == "tool 'f' was called with address.city='Lyon', expected 'Paris'"


def test_a_yaml_date_in_a_spec_equals_its_iso_string() -> None:
    check = from_spec(
        {
            "type": "contains_function_call",
            "value": "create_reservation",
            "arguments": {"party_size": 4, "date": dt.date(2024, 2, 15)},
        }
    )
    assert check.as_spec()["arguments"] == {"party_size": 4, "date": "2024-02-15"}
    turn = turn_with(
        ToolCall(name="create_reservation", arguments='{"party_size": "4", "date": "2024-02-15"}')
    )
    assert check.check(turn).passed
    json.dumps(check.as_spec())


# -- arguments that are not JSON --------------------------------------------------------------


def test_a_call_whose_arguments_are_invalid_json_is_an_error() -> None:
    turn = turn_with(ToolCall(name="create_reservation", arguments='{"party_size": 4'))
    result = ContainsFunctionCall("create_reservation", {"party_size": 4}).check(turn)
    assert result.status is Status.ERROR
    assert "not valid JSON" in result.reason
    call = result.details["calls"][0]
    assert call["arguments"] == '{"party_size": 4'
    assert "error" in call
    json.dumps(result.to_dict())


def test_invalid_json_does_not_hide_a_matching_call() -> None:
    turn = turn_with(
        ToolCall(name="create_reservation", arguments="{broken"),
        ToolCall(name="create_reservation", arguments={"party_size": 4}),
    )
    assert ContainsFunctionCall("create_reservation", {"party_size": 4}).check(turn).passed


def test_invalid_json_wins_over_a_mismatch() -> None:
    turn = turn_with(
        ToolCall(name="f", arguments={"x": 1}),
        ToolCall(name="f", arguments="{broken"),
    )
    assert ContainsFunctionCall("f", {"x": 2}).check(turn).status is Status.ERROR


def test_invalid_json_does_not_matter_without_expected_arguments() -> None:
    turn = turn_with(ToolCall(name="f", arguments="{broken"))
    assert ContainsFunctionCall("f").check(turn).passed


def test_arguments_that_are_json_but_not_an_object_are_an_error() -> None:
    turn = turn_with(ToolCall(name="f", arguments="[1, 2]"))
    assert ContainsFunctionCall("f", {"x": 1}).check(turn).status is Status.ERROR


# -- construction -----------------------------------------------------------------------------


def test_an_empty_tool_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="tool name"):
        ContainsFunctionCall("  ")
    with pytest.raises(SpecError):
        from_spec({"type": "contains_function_call", "value": ""})


def test_arguments_must_be_a_mapping() -> None:
    with pytest.raises(TypeError, match="mapping"):
        ContainsFunctionCall("f", [1])  # type: ignore[arg-type]
    with pytest.raises(SpecError):
        from_spec({"type": "contains_function_call", "value": "f", "arguments": [1]})


def test_the_spec_omits_absent_arguments() -> None:
    assert ContainsFunctionCall("f").as_spec() == {"type": "contains_function_call", "value": "f"}
