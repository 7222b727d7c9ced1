"""Laws of ToolSequence's agentevals parity, as Hypothesis properties.

- Argument modes: `exact` holds exactly when both `partial` and `subset` hold; `subset` holds
  exactly when every actual argument is expected with an equal value; adding expected
  arguments keeps a `subset` match.
- `per_message` holding implies `any_order` holding on the same steps, flattened; when every
  message makes one call, `per_message` and `exact` agree.
- A comparator that accepts everything gives the verdicts of argument mode `ignore`.
- No steps in order `exact` holds exactly when no tool was called.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, strategies as st

from chatassert import Status, ToolSequence, Turn
from chatassert._matchers import compare_arguments, compile_arguments

P = Status.PASSED

keys = st.sampled_from(["a", "b", "c", "d"])
values = st.integers(min_value=0, max_value=3)
arguments = st.dictionaries(keys, values, max_size=4)
tools = st.sampled_from(["x", "y", "z"])


def holds(expected: dict[str, Any], actual: dict[str, Any], mode: str) -> bool:
    return not compare_arguments(compile_arguments(expected), actual, mode=mode)


@given(arguments, arguments)
def test_exact_is_partial_and_subset(expected: dict[str, Any], actual: dict[str, Any]) -> None:
    assert holds(expected, actual, "exact") == (
        holds(expected, actual, "partial") and holds(expected, actual, "subset")
    )


@given(arguments, arguments, arguments)
def test_subset_is_every_actual_argument_expected(
    expected: dict[str, Any], actual: dict[str, Any], more: dict[str, Any]
) -> None:
    by_hand = all(k in expected and expected[k] == v for k, v in actual.items())
    assert holds(expected, actual, "subset") == by_hand
    if by_hand:
        assert holds({**more, **expected}, actual, "subset")


messages = st.lists(st.lists(tools, min_size=1, max_size=3), max_size=4)


def turn_of(groups: list[list[str]]) -> Turn:
    flat: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    n = 0
    for group in groups:
        calls = []
        for name in group:
            n += 1
            calls.append({"id": str(n), "function": {"name": name, "arguments": "{}"}})
        flat.append({"role": "assistant", "tool_calls": calls})
        flat.extend({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls)
    flat.append({"role": "assistant", "content": "done"})
    return Turn(messages=flat)


@given(messages, messages)
def test_per_message_implies_any_order(expected: list[list[str]], actual: list[list[str]]) -> None:
    subject = turn_of(actual)
    flat = [name for group in expected for name in group]
    grouped = ToolSequence(expected, "per_message").check(subject).status is P
    if grouped:
        assert ToolSequence(flat, "any_order").check(subject).status is P
    assert ToolSequence(actual, "per_message").check(subject).status is P


@given(st.lists(tools, max_size=4), st.lists(tools, max_size=4))
def test_one_call_per_message_makes_per_message_exact(
    expected: list[str], actual: list[str]
) -> None:
    subject = turn_of([[name] for name in actual])
    assert (ToolSequence(expected, "per_message").check(subject).status is P) == (
        ToolSequence(expected, "exact").check(subject).status is P
    )


@given(
    st.lists(st.tuples(tools, arguments), min_size=1, max_size=3),
    st.lists(st.tuples(tools, arguments), max_size=4),
    st.sampled_from(["exact", "in_order", "any_order", "subset", "superset"]),
)
def test_an_accepting_comparator_is_mode_ignore(
    steps: list[tuple[str, dict[str, Any]]],
    calls: list[tuple[str, dict[str, Any]]],
    order: str,
) -> None:
    from chatassert import ToolCall

    subject = Turn(tool_calls=[ToolCall(name=n, arguments=a) for n, a in calls])
    spec = [{"tool": n, "arguments": a} for n, a in steps]
    named = {n for n, _ in steps}
    accepting = ToolSequence(
        spec, order, argument_mode="exact", comparators=dict.fromkeys(named, lambda a, e: True)
    )
    ignoring = ToolSequence(spec, order, argument_mode="ignore")
    assert accepting.check(subject).status is ignoring.check(subject).status


@given(messages)
def test_no_steps_is_no_calls(actual: list[list[str]]) -> None:
    subject = turn_of(actual)
    assert (ToolSequence([], "exact").check(subject).status is P) == (not actual)
