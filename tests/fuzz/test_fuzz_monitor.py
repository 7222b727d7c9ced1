"""Fuzzing `chatassert.monitor.Monitor` with random event streams: subject-model events, raw
OpenAI chat, Anthropic and Responses dicts, and malformed ones (any JSON in place of a field).

The contract: every event is taken, or refused with a `MonitorError` that names it (`event N
(...)`) and leaves the conversation as it was; `permits` records nothing; a final state never
changes; `finish()` is the offline check of the conversation fed. Never a traceback.
"""

from __future__ import annotations

from typing import Any

from fuzzing import fuzz_target
from hypothesis import given, strategies as st

from chatassert import (
    Contains,
    GuardrailEvent,
    MaxToolCalls,
    OnLastTurn,
    ToolCall,
    ToolResult,
    WorkflowTransition,
)
from chatassert.errors import MonitorError
from chatassert.monitor import Metadata, Monitor
from chatassert.policies import NoToolLoops, OnlyTools, ToolBefore, ToolOnlyAfterResult

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_names = st.sampled_from(["search", "refund", "verify", ""])

_good = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, st.text(max_size=10)),
    st.builds(lambda t: {"role": "assistant", "content": t}, st.text(max_size=10)),
    st.builds(
        lambda n, a, i: {
            "role": "assistant",
            "tool_calls": [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}],
        },
        _names,
        st.sampled_from(["{}", '{"q": 1}', "{bad"]),
        st.text(max_size=3),
    ),
    st.builds(
        lambda n, i: {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": i, "name": n, "input": {}}],
        },
        _names,
        st.text(max_size=3),
    ),
    st.builds(
        lambda i, c: {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": i, "content": c}],
        },
        st.text(max_size=3),
        st.text(max_size=5),
    ),
    st.builds(
        lambda n, i: {"type": "function_call", "call_id": i, "name": n, "arguments": "{}"},
        _names,
        st.text(max_size=3),
    ),
    st.builds(
        lambda i: {"type": "function_call_output", "call_id": i, "output": "ok"},
        st.text(max_size=3),
    ),
    st.builds(lambda n: ToolCall(name=n or "x"), _names),
    st.builds(lambda c: ToolResult(content=c), st.text(max_size=5)),
    st.builds(lambda n: GuardrailEvent(name=n or "g"), _names),
    st.builds(lambda t: WorkflowTransition.model_validate({"to": t or "s"}), st.text(max_size=4)),
    st.builds(lambda c: Metadata({"cost": c}), st.floats(0, 1)),
)
_malformed = st.one_of(
    _json,
    st.builds(
        lambda k, v: {"role": "assistant", k: v},
        st.sampled_from(["tool_calls", "content", "function_call"]),
        _json,
    ),
    st.builds(
        lambda k, v: {"type": "function_call", k: v},
        st.sampled_from(["call_id", "name", "arguments"]),
        _json,
    ),
    st.builds(lambda v: {"role": "user", "content": [v]}, _json),
    st.builds(lambda v: {"type": v}, _json),
)
_events = st.lists(st.one_of(_good, _good, _malformed), max_size=12)
_asks = st.one_of(st.builds(lambda n: {"name": n}, _names), _json)


@given(_events, st.lists(_asks, max_size=3))
@fuzz_target("monitor.events")
def test_monitor_takes_or_refuses_every_event(events: list[Any], asks: list[Any]) -> None:
    checks = [
        ToolBefore("verify", "refund"),
        ToolOnlyAfterResult("refund", result_of="verify"),
        OnlyTools(["search", "verify"]),
        NoToolLoops(2),
        MaxToolCalls(3),
        OnLastTurn(Contains("ok")),
    ]
    monitor = Monitor(checks)
    finals: dict[str, Any] = {}
    for i, event in enumerate([*events, *asks]):
        before = monitor.conversation
        try:
            if i >= len(events):
                monitor.permits(event)
                assert monitor.conversation == before
                continue
            states = monitor.feed(event)
        except MonitorError as exc:
            refused = str(exc)
        else:
            refused = None
        if refused is not None:
            assert refused.startswith(f"event {monitor._events} ("), refused
            assert monitor.conversation == before
            continue
        for state in states:
            if state.name in finals:
                assert state == finals[state.name]
            elif state.final:
                finals[state.name] = state
    final = monitor.finish()
    offline = [c.check(monitor.conversation) for c in checks]
    assert [c.status for c in final.children] == [r.status for r in offline]
    for name, state in finals.items():
        index = [c.kind for c in checks].index(name)
        assert state.status == offline[index].status.value
