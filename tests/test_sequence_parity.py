"""Decision tests of ToolSequence's agentevals parity: the argument mode `subset`, comparators
given in code, an empty expected trajectory, and the order `per_message` (docs/trajectories.md,
"Matching a reference run"). The laws are in tests/test_sequence_parity_props.py."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from chatassert import Conversation, SpecError, Status, ToolCall, ToolSequence, Turn, from_spec
from chatassert._matchers import compare_arguments, compile_arguments
from chatassert.specs import loads_suite

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "function": {"name": name, "arguments": json.dumps(arguments)}}


def reply(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    """One assistant message making `calls`, then their results."""
    return [
        {"role": "assistant", "tool_calls": list(calls)},
        *({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls),
    ]


def turn(*messages: list[dict[str, Any]], text: str = "Done.") -> Turn:
    flat = [{"role": "user", "content": "Trip to Paris?"}]
    for group in messages:
        flat.extend(group)
    flat.append({"role": "assistant", "content": text})
    return Turn(messages=flat)


# weather and flights in one message, then a booking
TRIP = turn(
    reply(call("weather", "1", city="Paris"), call("flights", "2", to="CDG", day="fri")),
    reply(call("book", "3", flight="AF1")),
)


# -- argument mode subset ------------------------------------------------------------------------

SUBSET_TABLE = [
    # (expected arguments, actual arguments, problems)
    ({"city": "Paris", "units": "C"}, {"city": "Paris"}, []),
    ({"city": "Paris"}, {"city": "Paris"}, []),
    ({"city": "Paris"}, {}, []),
    ({"city": "Paris"}, {"city": "Rome"}, ["value_mismatch"]),
    ({"city": "Paris"}, {"city": "Paris", "units": "C"}, ["unexpected"]),
    ({"where": {"city": "Paris", "zip": "75"}}, {"where": {"city": "Paris"}}, []),
    ({"where": {"city": "Paris"}}, {"where": {"city": "Paris", "zip": "75"}}, ["unexpected"]),
    ({"city": {"$regex": "^Par"}}, {"city": "Paris"}, []),
    ({"n": 4}, {"n": "4"}, []),  # loose equality still applies
]


@pytest.mark.parametrize(("expected", "actual", "problems"), SUBSET_TABLE)
def test_subset_arguments(
    expected: dict[str, Any], actual: dict[str, Any], problems: list[str]
) -> None:
    found = compare_arguments(compile_arguments(expected), actual, mode="subset")
    assert [p.problem for p in found] == problems


def test_subset_mode_in_a_sequence_names_the_unexpected_argument() -> None:
    step = {"tool": "flights", "arguments": {"to": "CDG"}}
    result = ToolSequence([step], "superset", argument_mode="subset").check(TRIP)
    assert result.status is F
    assert "'flights' (tool_calls[1]) differs: unexpected argument day=\"fri\"" in result.reason
    wide = {"tool": "flights", "arguments": {"to": "CDG", "day": "fri", "seat": "12A"}}
    assert ToolSequence([wide], "superset", argument_mode="subset").check(TRIP).status is P


def test_subset_needs_arguments_and_is_a_step_and_per_tool_mode() -> None:
    with pytest.raises(ValueError, match="argument_mode 'subset' but no arguments"):
        ToolSequence([{"tool": "a", "argument_mode": "subset"}])
    per_tool = ToolSequence(
        [{"tool": "weather", "arguments": {"city": "Paris", "units": "C"}}],
        "superset",
        argument_mode="exact",
        per_tool={"weather": {"argument_mode": "subset"}},
    )
    assert per_tool.check(TRIP).status is P
    assert from_spec(per_tool.as_spec()) == per_tool


def test_an_unknown_mode_close_to_subset_is_hinted() -> None:
    with pytest.raises(ValueError, match=r"got 'subst' \(did you mean 'subset'\?\)"):
        ToolSequence(["a"], argument_mode="subst")


# -- comparators in code -------------------------------------------------------------------------


def same_city(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    return str(actual.get("city", "")).casefold() == str(expected.get("city", "")).casefold()


def test_a_comparator_decides_its_tool_instead_of_the_mode() -> None:
    step = {"tool": "weather", "arguments": {"city": "PARIS"}}
    plain = ToolSequence([step], "superset", argument_mode="exact")
    assert plain.check(TRIP).status is F
    custom = ToolSequence([step], "superset", comparators={"weather": same_city})
    assert custom.check(TRIP).status is P
    rejecting = ToolSequence(
        [{"tool": "weather", "arguments": {"city": "Rome"}}],
        "superset",
        comparators={"weather": same_city},
    )
    result = rejecting.check(TRIP)
    assert result.status is F
    assert "the comparator for 'weather' rejected its arguments (tool_calls[0])" in result.reason
    assert result.details["comparators"] == ["weather"]


def test_a_comparator_gets_the_actual_then_the_expected_arguments() -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def spy(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
        seen.append((actual, expected))
        return True

    ToolSequence([{"tool": "book", "arguments": {"flight": {"$regex": "AF"}}}, "weather"],
                 "superset", comparators={"book": spy}).check(TRIP)  # fmt: skip
    assert seen == [({"flight": "AF1"}, {"flight": {"$regex": "AF"}})]
    seen.clear()
    ToolSequence(["book"], "superset", comparators={"book": spy}).check(TRIP)
    assert seen == [({"flight": "AF1"}, {})]  # a step without arguments: {}


@pytest.mark.parametrize(
    ("function", "fragment"),
    [
        (lambda a, e: 1 / 0, "raised ZeroDivisionError: division by zero"),
        (lambda a, e: "yes", "returned 'yes', not True or False"),
    ],
)
def test_a_comparator_that_cannot_decide_is_an_error_only_when_it_matters(
    function: Any, fragment: str
) -> None:
    check = ToolSequence(["weather", "book"], "superset", comparators={"book": function})
    result = check.check(TRIP)
    assert result.status is E
    assert result.reason == f"the comparator for 'book' {fragment}"
    assert result.details["error"] == "comparator"
    # when another step already fails, the comparator's answer cannot change the outcome
    failing = ToolSequence(["cancel", "book"], "superset", comparators={"book": function})
    assert failing.check(TRIP).status is F


def test_comparators_are_checked_when_built() -> None:
    with pytest.raises(TypeError, match=r"comparators\.book must be a function"):
        ToolSequence(["book"], comparators={"book": "exact"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"comparators\.bok: no step calls 'bok'"):
        ToolSequence(["book"], comparators={"bok": same_city})
    with pytest.raises(TypeError, match="comparators must be a mapping"):
        ToolSequence(["book"], comparators=[same_city])  # type: ignore[arg-type]


def test_comparators_take_part_in_equality_but_not_in_the_spec() -> None:
    a = ToolSequence(["weather"], comparators={"weather": same_city})
    assert a.as_spec() == {"type": "tool_sequence", "steps": ["weather"]}
    assert a != ToolSequence(["weather"])
    assert a == ToolSequence(["weather"], comparators={"weather": same_city})
    assert pickle.loads(pickle.dumps(a)) == a  # a module-level function pickles
    built = from_spec({"type": "tool_sequence", "steps": ["weather"]}, comparators={
        "weather": same_city})  # fmt: skip
    assert built == a


# -- an empty expected trajectory ------------------------------------------------------------------


@pytest.mark.parametrize("order", ["exact", "any_order", "subset", "per_message"])
def test_no_steps_means_no_tool_calls(order: str) -> None:
    check = ToolSequence([], order)
    quiet = check.check(Turn(text="Hello!"))
    assert quiet.status is P
    assert quiet.reason == "called no tool"
    busy = check.check(TRIP)
    assert busy.status is F
    assert busy.reason == (
        "expected no tool calls but got [weather, flights, book] "
        "(tool_calls[0], tool_calls[1], tool_calls[2])"
    )
    assert check.describe() == "calls no tool"
    chat = Conversation(turns=[Turn(text="Hi"), Turn(text="Bye")])
    assert check.check(chat).status is P


@pytest.mark.parametrize("order", ["in_order", "superset"])
def test_no_steps_is_refused_where_it_would_hold_for_everything(order: str) -> None:
    with pytest.raises(ValueError, match="steps must name at least one expected call"):
        ToolSequence([], order)


def test_no_steps_in_a_spec() -> None:
    suite = loads_suite(
        "chatassert: 1\n"
        "cases:\n"
        "  - name: small talk\n"
        "    turns:\n"
        "      - input: Hi\n"
        "        assertions:\n"
        "          - {type: tool_sequence, steps: [], order: exact}\n"
    )
    (check,) = suite.cases[0].turns[0].assertions
    assert check == ToolSequence([], "exact")
    with pytest.raises(SpecError, match="steps must name at least one expected call"):
        from_spec({"type": "tool_sequence", "steps": []})


# -- per_message ---------------------------------------------------------------------------------

PER_MESSAGE_TABLE = [
    # (steps, status, reason)
    ([["flights", "weather"], "book"], P, "called [weather, flights, book]"),
    ([["weather", "flights"], ["book"]], P, "called [weather, flights, book]"),
    (
        ["weather", "flights", "book"],
        F,
        "expected messages [[weather], [flights], [book]] but got [[weather, flights], [book]]: "
        "message 1 expected [weather] but got [weather, flights] (tool_calls[0] to "
        "tool_calls[1])",
    ),
    (
        [["weather", "flights", "book"]],
        F,
        "expected messages [[weather, flights, book]] but got [[weather, flights], [book]]: "
        "message 1 expected [weather, flights, book] but got [weather, flights] (tool_calls[0] "
        "to tool_calls[1])",
    ),
    (
        [["weather", "hotels"], "book"],
        F,
        "expected messages [[weather, hotels], [book]] but got [[weather, flights], [book]]: "
        "message 1 expected [weather, hotels] but got [weather, flights] (tool_calls[0] to "
        "tool_calls[1]); 'hotels' was never called",
    ),
    (
        [["weather", "flights"]],
        F,
        "expected messages [[weather, flights]] but got [[weather, flights], [book]]: "
        "unexpected extra message 2 [book] (tool_calls[2])",
    ),
    (
        [["weather", "flights"], "book", "pay"],
        F,
        "expected messages [[weather, flights], [book], [pay]] but got [[weather, flights], "
        "[book]]: message 3 [pay] missing: the last message with calls ends at tool_calls[2]",
    ),
    (
        [["weather", {"tool": "flights", "arguments": {"to": "ORY"}}], "book"],
        F,
        "expected messages [[weather, flights], [book]] but got [[weather, flights], [book]]: "
        "message 1 expected [weather, flights] but got [weather, flights] (tool_calls[0] to "
        'tool_calls[1]); \'flights\' (tool_calls[1]) differs: to="CDG", expected "ORY"',
    ),
]


@pytest.mark.parametrize(("steps", "status", "reason"), PER_MESSAGE_TABLE)
def test_per_message(steps: list[Any], status: Status, reason: str) -> None:
    result = ToolSequence(steps, "per_message").check(TRIP)
    assert result.status is status
    assert result.reason == reason


def test_per_message_details_show_both_groupings() -> None:
    result = ToolSequence([["flights", "weather"], "book"], "per_message").check(TRIP)
    assert result.details["expected_messages"] == [["flights", "weather"], ["book"]]
    assert result.details["actual_messages"] == [
        ["tool_calls[0]", "tool_calls[1]"],
        ["tool_calls[2]"],
    ]
    assert [m["call"] for m in result.details["matched"]] == [
        "tool_calls[1]",
        "tool_calls[0]",
        "tool_calls[2]",
    ]


def test_per_message_across_a_conversation_and_without_messages() -> None:
    chat = Conversation(turns=[TRIP, turn(reply(call("pay", "9", amount=120)))])
    check = ToolSequence([["weather", "flights"], "book", "pay"], "per_message")
    assert check.check(chat).status is P
    missing = ToolSequence([["weather", "flights"], "book"], "per_message").check(chat)
    assert "unexpected extra message 3 [pay] (turns[1].tool_calls[0])" in missing.reason
    # a turn built from its calls alone is one message making all of them
    built = Turn(tool_calls=[ToolCall(name="a"), ToolCall(name="b")])
    assert ToolSequence([["b", "a"]], "per_message").check(built).status is P
    assert ToolSequence(["a", "b"], "per_message").check(built).status is F


def test_per_message_undecidable_arguments_are_an_error() -> None:
    broken = Turn(messages=[
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [
            {"id": "1", "function": {"name": "a", "arguments": "{oops"}}]},
    ])  # fmt: skip
    check = ToolSequence([{"tool": "a", "arguments": {"k": 1}}], "per_message")
    assert check.check(broken).status is E


def test_grouped_steps_need_per_message_and_are_not_empty() -> None:
    with pytest.raises(TypeError, match="give order per_message"):
        ToolSequence([["a", "b"]], "any_order")
    with pytest.raises(ValueError, match=r"steps\[1\] is an empty message"):
        ToolSequence(["a", []], "per_message")


def test_per_message_specs_round_trip() -> None:
    check = ToolSequence([["flights", "weather"], "book"], "per_message")
    assert check.as_spec() == {
        "type": "tool_sequence",
        "steps": [["flights", "weather"], ["book"]],
        "order": "per_message",
    }
    assert from_spec(check.as_spec()) == check
    assert check.describe() == "calls [[flights, weather], [book]] (per message)"
    with pytest.raises(SpecError, match="give order per_message"):
        from_spec({"type": "tool_sequence", "steps": [["a", "b"]]})
