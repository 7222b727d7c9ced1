"""Hypothesis properties of the tool policies (chatassert._policies).

The laws: `ToolBefore(a, b)` holding on a trajectory holds on every prefix that keeps all calls
of `b`; `OnlyTools` is monotone in its allow-list; `MaxConsecutive(n)` implies
`MaxConsecutive(n + 1)`; `NoToolLoops` with a window implies it with a smaller one, and by name
implies by arguments; splitting calls over turns changes no verdict of a rule that reads all
calls in order; without errors and messages `ToolOnlyAfterResult(t, r)` is `ToolBefore(r, t)`;
and a call whose arguments cannot be read gives an `error` exactly when reading them one way or
the other would change the outcome.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings, strategies as st

from chatassert import Conversation, Status, ToolCall, ToolResult, Turn
from chatassert.policies import (
    MaxConsecutive,
    NoToolLoops,
    OnlyTools,
    ToolBefore,
    ToolNeverAfter,
    ToolOnlyAfterResult,
)

NAMES = ["a", "b", "c", "d"]
P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


@st.composite
def calls(draw: st.DrawFn) -> ToolCall:
    name = draw(st.sampled_from(NAMES))
    return ToolCall(name=name, arguments={"x": draw(st.integers(0, 2))})


TRAJECTORY = st.lists(calls(), max_size=10)
POLICIES = st.one_of(
    st.builds(ToolBefore, st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.builds(ToolNeverAfter, st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.builds(OnlyTools, st.lists(st.sampled_from(NAMES), min_size=1, max_size=3)),
    st.builds(MaxConsecutive, st.sampled_from(NAMES), st.integers(0, 3)),
    st.builds(NoToolLoops, st.integers(2, 5), st.booleans()),
)


def status(check: object, trajectory: list[ToolCall]) -> Status:
    return check.check(Turn(tool_calls=trajectory)).status  # type: ignore[attr-defined,no-any-return]


@settings(max_examples=300)
@given(TRAJECTORY, st.sampled_from(NAMES), st.sampled_from(NAMES), st.data())
def test_tool_before_holds_on_every_prefix_keeping_all_calls_of_then(
    trajectory: list[ToolCall], first: str, then: str, data: st.DataObject
) -> None:
    check = ToolBefore(first, then)
    if status(check, trajectory) is not P:
        return
    last = max(j for j, c in enumerate(trajectory) if c.name == then)
    cut = data.draw(st.integers(last + 1, len(trajectory)))
    assert status(check, trajectory[:cut]) is P


@settings(max_examples=300)
@given(TRAJECTORY, st.sampled_from(NAMES), st.sampled_from(NAMES), st.data())
def test_tool_never_after_never_fails_on_a_prefix_of_a_trajectory_it_passes(
    trajectory: list[ToolCall], tool: str, after: str, data: st.DataObject
) -> None:
    check = ToolNeverAfter(tool, after)
    if status(check, trajectory) is F:
        return
    cut = data.draw(st.integers(0, len(trajectory)))
    assert status(check, trajectory[:cut]) is not F


@settings(max_examples=300)
@given(TRAJECTORY, st.lists(st.sampled_from(NAMES), min_size=1), st.lists(st.sampled_from(NAMES)))
def test_only_tools_passing_for_a_set_passes_for_any_superset(
    trajectory: list[ToolCall], allowed: list[str], extra: list[str]
) -> None:
    if status(OnlyTools(allowed), trajectory) is P:
        assert status(OnlyTools([*allowed, *extra]), trajectory) is P
    # and the verdict is exactly "every name is allowed"
    assert (status(OnlyTools(allowed), trajectory) is P) == all(
        c.name in allowed for c in trajectory
    )


@settings(max_examples=300)
@given(TRAJECTORY, st.sampled_from(NAMES), st.integers(0, 5))
def test_max_consecutive_n_implies_n_plus_one(
    trajectory: list[ToolCall], tool: str, n: int
) -> None:
    if status(MaxConsecutive(tool, n), trajectory) is P:
        assert status(MaxConsecutive(tool, n + 1), trajectory) is P
    longest = max(
        (len(list(g)) for k, g in itertools.groupby(c.name == tool for c in trajectory) if k),
        default=0,
    )
    assert (status(MaxConsecutive(tool, n), trajectory) is P) == (longest <= n)


@settings(max_examples=300)
@given(TRAJECTORY, st.integers(3, 6))
def test_no_tool_loops_is_monotone_in_the_window_and_in_what_counts_as_the_same(
    trajectory: list[ToolCall], window: int
) -> None:
    if status(NoToolLoops(window), trajectory) is P:
        assert status(NoToolLoops(window - 1), trajectory) is P
    if status(NoToolLoops(window, same_args=False), trajectory) is P:
        assert status(NoToolLoops(window), trajectory) is P


@settings(max_examples=300)
@given(TRAJECTORY, POLICIES, st.lists(st.integers(0, 10), max_size=4))
def test_splitting_calls_over_turns_changes_no_verdict(
    trajectory: list[ToolCall], policy: object, cuts: list[int]
) -> None:
    bounds = sorted({0, len(trajectory), *(min(c, len(trajectory)) for c in cuts)})
    turns = [Turn(tool_calls=trajectory[a:b]) for a, b in itertools.pairwise(bounds)]
    one = policy.check(Turn(tool_calls=trajectory))  # type: ignore[attr-defined]
    many = policy.check(Conversation(turns=turns))  # type: ignore[attr-defined]
    assert many.status is one.status


@settings(max_examples=300)
@given(TRAJECTORY, st.sampled_from(NAMES), st.sampled_from(NAMES))
def test_only_after_result_without_errors_is_tool_before(
    trajectory: list[ToolCall], tool: str, source: str
) -> None:
    ids = [c.model_copy(update={"id": f"c{j}"}) for j, c in enumerate(trajectory)]
    subject = Turn(
        tool_calls=ids, tool_results=[ToolResult(call_id=c.id, content="ok") for c in ids]
    )
    assert (
        ToolOnlyAfterResult(tool, source).check(subject).status
        is ToolBefore(source, tool).check(subject).status
    )


A1 = st.just({"tool": "a", "arguments": {"x": 1}})  # `a` with x=1: arguments decide
ARGUED = st.one_of(
    st.builds(ToolBefore, A1, st.sampled_from(NAMES)),
    st.builds(ToolBefore, st.sampled_from(NAMES), A1),
    st.builds(ToolNeverAfter, A1, st.sampled_from(NAMES)),
    st.builds(ToolNeverAfter, st.sampled_from(NAMES), A1),
    st.builds(
        OnlyTools,
        st.lists(st.sampled_from(["b", "c", "d", {"tool": "a", "arguments": {"x": 1}}]),
                 min_size=1),
    ),
    st.builds(MaxConsecutive, A1, st.integers(0, 2)),
    st.builds(
        ToolOnlyAfterResult, st.sampled_from(NAMES), A1
    ),
)  # fmt: skip


@settings(max_examples=400)
@given(st.lists(st.sampled_from(NAMES), max_size=7), ARGUED, st.data())
def test_unreadable_arguments_give_an_error_exactly_when_they_could_change_the_outcome(
    names: list[str], policy: object, data: st.DataObject
) -> None:
    broken = [j for j, n in enumerate(names) if n == "a"][:3]
    if broken:
        broken = data.draw(st.lists(st.sampled_from(broken), unique=True, max_size=3))

    def build(fill: dict[int, int | None]) -> Turn:
        out = []
        for j, name in enumerate(names):
            if j in fill and fill[j] is None:
                out.append(ToolCall(name=name, id=f"c{j}", arguments='{"x": 1'))
            else:
                out.append(ToolCall(name=name, id=f"c{j}", arguments={"x": fill.get(j, 1)}))
        results = [ToolResult(call_id=f"c{j}", content="ok") for j in range(len(names))]
        return Turn(tool_calls=out, tool_results=results)

    unread = policy.check(build(dict.fromkeys(broken))).status  # type: ignore[attr-defined]
    outcomes = {
        policy.check(build(dict(zip(broken, values, strict=True)))).status  # type: ignore[attr-defined]
        for values in itertools.product([1, 2], repeat=len(broken))
    }
    assert unread is (outcomes.pop() if len(outcomes) == 1 else E)
