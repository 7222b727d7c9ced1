"""The guarantee of chatassert.monitor: fed any conversation event by event, `finish()` gives
the offline verdict and tree, and a state reported final never changes and is the outcome
`finish()` gives (pending never reaches a final result).

Every registered check is monitored over the contract's subjects (tests/test_contract.py) and
over random event streams of tool calls, results and messages (Hypothesis); so are suite
cases with per-turn assertions, loaded from spec files (tests/monitor/data/).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from chatassert import (
    Assertion,
    Conversation,
    MaxToolCalls,
    NoRepeatedCalls,
    OnAnyTurn,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    StepsBeforeAnswer,
    ToolCall,
    ToolCallCount,
    ToolResult,
    Turn,
)
from chatassert.monitor import CheckState, Monitor
from chatassert.policies import (
    MaxConsecutive,
    NoToolLoops,
    OnlyTools,
    ToolBefore,
    ToolNeverAfter,
    ToolOnlyAfterResult,
)
from chatassert.promptkit import (
    ConversationAgentNotInvoked,
    ConversationToolCallsWithArgs,
    ConversationToolsNotCalled,
    ConversationToolsNotCalledWithArgs,
    ToolCallsWithArgs,
    ToolsNotCalled,
)
from chatassert.specs import Case, load_suite
from cli_runs import without_durations
from test_contract import CASES, build


def events_of(subject: object) -> list[object]:
    """A conversation (or turn) as the events a running agent would feed."""
    turns = subject.turns if isinstance(subject, Conversation) else (subject,)
    out: list[object] = []
    for turn in turns:
        assert isinstance(turn, Turn)
        out.append({"role": "user", "content": turn.input or "hello"})
        results = dict(enumerate(r for _, r in turn.call_results))
        for j, call in enumerate(turn.tool_calls):
            out.append(call)
            result = results.get(j)
            if result is not None:
                out.append(result)
        if turn.text:
            out.append({"role": "assistant", "content": turn.text})
        out.extend(turn.guardrails)
    return out


def monitored(assertion: Assertion) -> Assertion:
    """A check a monitor follows: one of a turn, on every turn."""
    return OnEveryTurn(assertion) if assertion.level in ("turn", "json") else assertion


def run(assertion: Assertion, events: list[object]) -> tuple[Monitor, list[CheckState]]:
    """Feed every event; return the monitor and the states it reported, in order."""
    monitor = Monitor(assertion)
    seen: list[CheckState] = []
    for event in events:
        (state,) = monitor.feed(event)
        seen.append(state)
    return monitor, seen


def holds(monitor: Monitor, seen: list[CheckState]) -> None:
    final = monitor.finish()
    offline = monitor._checks[0].check(monitor.conversation)
    assert without_durations(final.to_dict()) == without_durations(offline.to_dict())
    decided = [s for s in seen if s.final]
    if decided:
        first = decided[0]
        assert first.status == final.status.value, (first, final)
        assert all(s == first for s in seen[seen.index(first) :]), "a final state changed"
        assert first.result is not None
    for s in seen:
        assert s.final or (s.status == "pending" and s.result is None)


FOLLOWED = [
    (kind, side)
    for kind in sorted(CASES)
    for side in ("good", "bad")
    if isinstance(getattr(CASES[kind], side), Turn | Conversation)
]
"""Every contract case whose subject is a turn or a conversation: the events a monitor is
fed make a conversation, and a JSON subject is none."""


@pytest.mark.parametrize(("kind", "side"), FOLLOWED, ids=[f"{k}-{s}" for k, s in FOLLOWED])
def test_every_registered_check_finishes_with_the_offline_verdict(kind: str, side: str) -> None:
    case = CASES[kind]
    assertion = monitored(build(case, passing=side == "good"))
    monitor, seen = run(assertion, events_of(getattr(case, side)))
    holds(monitor, seen)


# -- random event streams over the call-by-call checks ---------------------------------------

TOOLS = ["search", "fetch", "refund", "verify"]

CHECKS: list[Assertion] = [
    ToolBefore("verify", "refund"),
    ToolBefore({"tool": "verify", "arguments": {"id": 1}}, "refund"),
    ToolNeverAfter("search", after="refund"),
    ToolOnlyAfterResult("refund", result_of="verify"),
    OnlyTools(["search", {"tool": "fetch", "arguments": {"id": 1}}]),
    MaxConsecutive("search", 2),
    NoToolLoops(3),
    NoToolLoops(2, same_args=False),
    MaxToolCalls(3),
    ToolCallCount("search", min=2),
    ToolCallCount("fetch", min=1, max=2),
    NoRepeatedCalls(),
    ConversationToolsNotCalled(["refund"]),
    ConversationAgentNotInvoked(["search"]),
    ConversationToolsNotCalledWithArgs("fetch", {"id": 1}),
    ConversationToolsNotCalledWithArgs("", {"id": [2]}),
    ToolOnlyAfterResult("refund", result_of="refund"),
    NoRepeatedCalls(ignore_keys=["id"]),
    ConversationToolCallsWithArgs("fetch", {"id": 1}),
    ConversationToolCallsWithArgs("search", {"id": 2}, match="all"),
    ConversationToolCallsWithArgs("refund", args_match={"id": "^1$"}, match="all"),
    OnEveryTurn(ToolsNotCalled(["refund"])),
    OnAnyTurn(ToolCallsWithArgs("fetch", {"id": 1})),
    OnTurn(1, ToolCallsWithArgs("search", {"id": 2}, match="all")),
    OnEveryTurn(ToolBefore("verify", "refund") & ~MaxToolCalls(2)),
    OnEveryTurn(ToolOnlyAfterResult("refund", result_of="verify")),
    OnAnyTurn(ConversationToolsNotCalledWithArgs("fetch", {"id": 1})),
    OnLastTurn(ToolsNotCalled(["search"])),
    StepsBeforeAnswer(2),
    OnEveryTurn(StepsBeforeAnswer(1)),
    ToolBefore("verify", "refund") & ~MaxToolCalls(2),
    ToolNeverAfter("search", after="refund") | OnlyTools(["fetch"]),
]


@st.composite
def streams(draw: Any) -> list[object]:
    out: list[object] = []
    ids = 0
    for _ in range(draw(st.integers(0, 14))):
        what = draw(st.sampled_from(["call", "call", "call", "result", "user", "say", "bad"]))
        if what in ("call", "bad"):
            ids += 1
            name = draw(st.sampled_from(TOOLS))
            if what == "bad":
                out.append(ToolCall(name=name, arguments="{not json", id=str(ids)))  # type: ignore[arg-type]
            else:
                args = draw(st.sampled_from([{}, {"id": 1}, {"id": 2}]))
                out.append(ToolCall(name=name, arguments=args, id=str(ids)))
        elif what == "result" and ids:
            content = draw(st.sampled_from(["ok", "Error: no"]))
            out.append(ToolResult(call_id=str(draw(st.integers(1, ids))), content=content))
        elif what == "user":
            out.append({"role": "user", "content": "next"})
        else:
            out.append({"role": "assistant", "content": "done"})
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CHECKS), streams())
def test_random_streams_finish_offline_and_final_states_hold(
    check: Assertion, events: list[object]
) -> None:
    monitor, seen = run(check, events)
    holds(monitor, seen)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CHECKS), streams(), st.sampled_from(TOOLS), st.booleans())
def test_a_denied_call_fails_or_errs_the_check_when_it_runs(
    check: Assertion, events: list[object], tool: str, broken: bool
) -> None:
    monitor, _ = run(check, events)
    before = monitor.states
    call = ToolCall(name=tool, arguments="{x" if broken else {}, id="asked")  # type: ignore[arg-type]
    decision = monitor.permits(call)
    assert monitor.states == before, "permits recorded something"
    assert decision.call is call
    (after,) = monitor.tool_call(call)
    if not decision.allowed:
        (denial,) = decision.denied_by
        assert denial.status in ("failed", "error")
        assert monitor.finish().status.value in ("failed", "error") or denial.status == "error"
    if after.final and after.status == "failed" and not before[0].final:
        assert not decision.allowed, "a call that failed a check for good was allowed"


def test_fold_end_is_the_offline_check() -> None:
    # one definition serves both: the fold the monitor keeps concludes to the offline result
    monitor = Monitor(ToolBefore("verify", "refund"))
    for event in [ToolCall(name="verify"), ToolCall(name="refund"), ToolCall(name="refund")]:
        monitor.feed(event)  # a pass is never final: the fold goes on
    node = monitor._tracked[0][1]
    offline = ToolBefore("verify", "refund").check(monitor.conversation)
    folded = node.fold._fold_end(node.acc, monitor.conversation)  # type: ignore[union-attr]
    assert folded.to_dict() == offline.to_dict()


# -- suite cases with per-turn assertions ----------------------------------------------------

SPEC_CASES: list[Case] = [
    case
    for name in ("refund.scenario.yaml", "desk.flat.yaml", "search.scenario.yaml")
    for case in load_suite(Path(__file__).parent / "data" / name).cases
]
"""A PromptKit scenario with a turn-level `tools_not_called`, a flat file's multi-turn case,
a PromptKit `fail_fast` scenario: every assertion of their turns is tracked on its own turn."""

OPENINGS: list[list[object]] = [
    [],
    [{"role": "user", "content": "I was charged twice"}],
    [{"role": "assistant", "content": "Hello, billing desk here."}],  # a turn no user started
]


def outcomes(case: Case, result: Any) -> list[Any]:
    """The result of each check a monitor of `case` tracks, in its order, from the case's
    tree: each turn's assertions, then the whole-conversation checks."""
    turns = result.children[: len(case.turns)]
    return [r for t in turns for r in t.children] + list(result.children[len(case.turns) :])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SPEC_CASES),
    st.sampled_from(OPENINGS),
    streams(),
    st.sampled_from(TOOLS),
)
def test_a_case_finishes_offline_and_its_turns_final_states_hold(
    case: Case, opening: list[object], events: list[object], tool: str
) -> None:
    monitor = Monitor(case)
    seen = [monitor.feed(event) for event in [*opening, *events]]
    before = monitor.states
    decision = monitor.permits(ToolCall(name=tool, arguments={}, id="asked"))
    assert monitor.states == before, "permits recorded something"
    seen.append(monitor.tool_call(decision.call))
    for denial in decision.denied_by:  # each denial is the state the call brought about
        assert denial.final
        assert denial.status == "failed"
        assert any(s.name == denial.name and s.status == "failed" for s in seen[-1])
    final = monitor.finish()
    assert without_durations(final.to_dict()) == without_durations(
        case.check(monitor.conversation).to_dict()
    )
    expected = outcomes(case, final)
    assert len(expected) == len(seen[-1])
    for i, result in enumerate(expected):
        states = [s[i] for s in seen]
        decided = [s for s in states if s.final]
        if decided:
            first = decided[0]
            assert first.status == result.status.value, (i, first, result)
            assert all(s == first for s in states[states.index(first) :]), "a final state changed"
        for s in states:
            assert s.final or (s.status == "pending" and s.result is None)
