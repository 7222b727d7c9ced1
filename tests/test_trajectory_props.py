"""Hypothesis properties of the sequence orders of `ToolSequence`.

Because one call is matched per expected step, `subset` and `superset` are statements about
multisets (with argument predicates): `subset` asks for a matching that covers every call,
`superset` one that covers every step. Both together force as many calls as steps and a
perfect matching, which is `any_order` — for any sequences, not only ones with distinct names.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings, strategies as st

from chatassert import Conversation, ToolCall, ToolSequence, Turn

NAMES = st.sampled_from(["search", "book", "confirm", "log"])


@st.composite
def calls(draw: st.DrawFn) -> ToolCall:
    name = draw(NAMES)
    if draw(st.booleans()):
        return ToolCall(name=name)
    return ToolCall(name=name, arguments={"x": draw(st.integers(0, 2)), "y": "z"})


@st.composite
def steps(draw: st.DrawFn) -> Any:
    name = draw(NAMES)
    if draw(st.booleans()):
        return name
    return {"tool": name, "arguments": {"x": draw(st.integers(0, 2))}}


EXPECTED = st.lists(steps(), min_size=1, max_size=4)
ACTUAL = st.lists(calls(), max_size=6)


def passes(order: str, expected: list[Any], actual: list[ToolCall]) -> bool:
    return ToolSequence(expected, order).check(Turn(tool_calls=actual)).passed


def fulfils(step: Any, call: ToolCall) -> bool:
    if isinstance(step, str):
        return call.name == step
    return call.name == step["tool"] and call.arguments.get("x") == step["arguments"]["x"]


@settings(max_examples=300)
@given(EXPECTED, ACTUAL)
def test_exact_implies_in_order_implies_superset(expected: list[Any], actual: list[Any]) -> None:
    exact, in_order = passes("exact", expected, actual), passes("in_order", expected, actual)
    superset = passes("superset", expected, actual)
    assert not exact or in_order
    assert not in_order or superset


@settings(max_examples=300)
@given(EXPECTED, ACTUAL)
def test_exact_implies_any_order_which_implies_subset_and_superset(
    expected: list[Any], actual: list[Any]
) -> None:
    any_order = passes("any_order", expected, actual)
    assert not passes("exact", expected, actual) or any_order
    if any_order:
        assert passes("subset", expected, actual)
        assert passes("superset", expected, actual)


@settings(max_examples=300)
@given(EXPECTED, ACTUAL, st.randoms(use_true_random=False))
def test_any_order_subset_superset_ignore_the_order_of_calls(
    expected: list[Any], actual: list[Any], rnd: Any
) -> None:
    shuffled = list(actual)
    rnd.shuffle(shuffled)
    for order in ("any_order", "subset", "superset"):
        assert passes(order, expected, actual) == passes(order, expected, shuffled)


@settings(max_examples=300)
@given(EXPECTED, ACTUAL)
def test_subset_and_superset_is_any_order(expected: list[Any], actual: list[Any]) -> None:
    both = passes("subset", expected, actual) and passes("superset", expected, actual)
    assert both == passes("any_order", expected, actual)


@settings(max_examples=200)
@given(st.lists(NAMES, min_size=1, max_size=4, unique=True), st.lists(NAMES, max_size=6))
def test_subset_and_superset_is_any_order_for_distinct_names(
    expected: list[str], names: list[str]
) -> None:
    actual = [ToolCall(name=n) for n in names]
    both = passes("subset", expected, actual) and passes("superset", expected, actual)
    assert both == passes("any_order", expected, actual)
    assert both == (sorted(names) == sorted(expected))


@settings(max_examples=300)
@given(EXPECTED, ACTUAL)
def test_orders_agree_with_brute_force(expected: list[Any], actual: list[Any]) -> None:
    m, n = len(expected), len(actual)
    in_order = any(
        all(fulfils(s, actual[j]) for s, j in zip(expected, chosen, strict=True))
        for chosen in itertools.combinations(range(n), m)
    )
    superset = any(
        all(fulfils(s, actual[j]) for s, j in zip(expected, chosen, strict=True))
        for chosen in itertools.permutations(range(n), m)
    )
    subset = (
        any(
            all(fulfils(expected[i], c) for c, i in zip(actual, chosen, strict=True))
            for chosen in itertools.permutations(range(m), n)
        )
        if n <= m
        else False
    )
    exact = m == n and all(fulfils(s, c) for s, c in zip(expected, actual, strict=True))
    assert passes("in_order", expected, actual) == in_order
    assert passes("superset", expected, actual) == superset
    assert passes("subset", expected, actual) == subset
    assert passes("exact", expected, actual) == exact
    assert passes("any_order", expected, actual) == (m == n and superset)


@settings(max_examples=200)
@given(EXPECTED, ACTUAL, st.lists(calls(), max_size=3), st.integers(0, 6))
def test_in_order_and_superset_tolerate_extra_calls(
    expected: list[Any], actual: list[Any], extra: list[ToolCall], at: int
) -> None:
    more = actual[:at] + extra + actual[at:]
    for order in ("in_order", "superset"):
        if passes(order, expected, actual):
            assert passes(order, expected, more)


@settings(max_examples=200)
@given(EXPECTED, ACTUAL, st.integers(0, 6))
def test_splitting_calls_over_turns_changes_nothing(
    expected: list[Any], actual: list[Any], cut: int
) -> None:
    chat = Conversation(turns=[Turn(tool_calls=actual[:cut]), Turn(tool_calls=actual[cut:])])
    for order in ("exact", "in_order", "any_order", "subset", "superset"):
        check = ToolSequence(expected, order)
        on_turn = check.check(Turn(tool_calls=actual))
        on_chat = check.check(chat)
        assert on_turn.status == on_chat.status
        assert on_turn.details["precision"] == on_chat.details["precision"]
        assert 0.0 <= on_chat.details["precision"] <= 1.0
        assert 0.0 <= on_chat.details["recall"] <= 1.0
        if on_chat.passed and order in ("exact", "any_order"):
            assert on_chat.details["precision"] == on_chat.details["recall"] == 1.0
