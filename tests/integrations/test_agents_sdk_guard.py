"""MonitorHooks and TraceFile in real OpenAI Agents SDK runs: a scripted model (a `Model` that
answers from a list, no network), the SDK's own runner, tools, guardrails and tracing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from guard_helpers import offline

from optional_engines import optional_module

optional_module("agents", "CHATASSERT_REQUIRE_AGENTS")  # the agents extra (openai-agents)

from agents import (  # noqa: E402
    Agent,
    ModelResponse,
    Runner,
    ToolInputGuardrailTripwireTriggered,
    Usage,
    function_tool,
)
from agents.models.interface import Model  # noqa: E402
from agents.tracing import get_trace_provider, set_trace_processors  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from chatassert import GuardrailTriggered, OnAnyTurn, ToolCallCount  # noqa: E402
from chatassert.integrations.agents_sdk import MonitorHooks, TraceFile  # noqa: E402
from chatassert.monitor import Monitor  # noqa: E402
from chatassert.policies import ToolBefore  # noqa: E402
from chatassert.transcripts import read_records  # noqa: E402


def call(call_id: str, name: str, **arguments: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call",
        call_id=call_id,
        name=name,
        arguments=json.dumps(arguments),
        id=f"fc_{call_id}",
    )


def say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        type="message",
        id="msg_1",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


class Scripted(Model):
    """A model that answers each request with the next response of its script."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.requests: list[Any] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.requests.append(kwargs["input"])
        return ModelResponse(output=self.script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise AssertionError("the tests run the agent without streaming")


@pytest.fixture
def traces(tmp_path: Path) -> Iterator[Path]:
    """The run's traces written by TraceFile, the only trace processor while the test runs."""
    path = tmp_path / "traces.jsonl"
    set_trace_processors([TraceFile(path)])
    try:
        yield path
    finally:
        get_trace_provider().shutdown()
        set_trace_processors([])


def desk(hooks: MonitorHooks, script: list[list[Any]], ran: list[str]) -> Agent[Any]:
    @function_tool(tool_input_guardrails=[hooks.guardrail])
    def lookup_order(order: str) -> str:
        """Look an order up."""
        ran.append("lookup_order")
        return f"order {order}: paid, 40 EUR"

    @function_tool(tool_input_guardrails=[hooks.guardrail])
    def issue_refund(order: str) -> str:
        """Refund an order."""
        ran.append("issue_refund")
        return f"refunded {order}"

    return Agent(
        name="desk",
        instructions="Help with orders.",
        model=Scripted(script),
        tools=[lookup_order, issue_refund],
    )


REFUND_FIRST = [
    [call("c1", "issue_refund", order="A1")],
    [say("I cannot refund order A1 before it is looked up.")],
]


def test_a_refund_before_the_lookup_is_denied_and_the_trace_says_so(
    traces: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monitor = Monitor(ToolBefore("lookup_order", "issue_refund"))
    hooks = MonitorHooks(monitor)
    ran: list[str] = []
    agent = desk(hooks, REFUND_FIRST, ran)
    result = asyncio.run(Runner.run(agent, "Refund order A1, please.", hooks=hooks))

    # the refund's body never ran
    assert ran == []
    (denial,) = hooks.denials
    assert denial.call.id == "c1"
    assert denial.call.name == "issue_refund"
    assert denial.call.arguments == {"order": "A1"}
    assert [s.name for s in denial.denied_by] == ["tool_before"]
    # the model got the reason as the call's output
    sent = agent.model.requests[1]  # type: ignore[union-attr]
    outputs = [i for i in sent if i.get("type") == "function_call_output"]
    assert outputs == [{"call_id": "c1", "output": denial.reason, "type": "function_call_output"}]
    # the SDK's guardrail results carry the decision
    infos = [r.output.output_info for r in result.tool_input_guardrail_results]
    assert [i["allowed"] for i in infos] == [False]
    assert infos[0]["call"] == {"id": "c1", "name": "issue_refund", "arguments": {"order": "A1"}}

    verdict = monitor.finish()
    assert verdict.status.value == "failed"

    # the trace: one line, the denial as a triggered guardrail span with the decision inside
    (line,) = traces.read_text(encoding="utf-8").splitlines()
    spans = json.loads(line)["spans"]
    guard = [s for s in spans if s["span_data"]["type"] == "guardrail"]
    assert [(s["span_data"]["name"], s["span_data"]["triggered"]) for s in guard] == [
        ("chatassert", True)
    ]
    (inside,) = [s for s in spans if s["parent_id"] == guard[0]["id"]]
    assert inside["span_data"]["name"] == "chatassert.denial"
    assert inside["span_data"]["data"]["reason"] == denial.reason

    # offline, the same conversation and the same verdict
    (record,) = list(read_records(traces))
    assert record.conversation is not None
    read = record.conversation
    assert [c.name for t in read.turns for c in t.tool_calls] == [
        c.name for t in monitor.conversation.turns for c in t.tool_calls
    ]
    assert [g.name for t in read.turns for g in t.guardrails] == ["chatassert"]
    assert ToolBefore("lookup_order", "issue_refund").check(read).status == verdict.status
    spec = '{"type": "tool_before", "first": "lookup_order", "then": "issue_refund"}'
    assert offline(traces, spec, capsys) == "failed"
    both = OnAnyTurn(GuardrailTriggered("chatassert"))
    assert both.check(read).status == both.check(monitor.conversation).status


def test_allowed_calls_run_and_the_offline_check_passes_as_the_monitor_does(
    traces: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monitor = Monitor(
        [ToolBefore("lookup_order", "issue_refund"), ToolCallCount("issue_refund", max=1)]
    )
    hooks = MonitorHooks(monitor)
    ran: list[str] = []
    script = [
        # both calls in one response: decided in the model's order, the lookup recorded first
        [call("c1", "lookup_order", order="A1"), call("c2", "issue_refund", order="A1")],
        [say("Refunded.")],
    ]
    asyncio.run(Runner.run(desk(hooks, script, ran), "Refund order A1.", hooks=hooks))

    assert sorted(ran) == ["issue_refund", "lookup_order"]
    assert [(d.call.id, d.allowed) for d in hooks.decisions] == [("c1", True), ("c2", True)]
    assert hooks.denials == ()
    assert monitor.finish().status.value == "passed"
    (turn,) = monitor.conversation.turns
    assert turn.input == "Refund order A1."
    assert [r.content for r in turn.tool_results] == ["order A1: paid, 40 EUR", "refunded A1"]
    spec = '{"type": "tool_before", "first": "lookup_order", "then": "issue_refund"}'
    assert offline(traces, spec, capsys) == "passed"


def test_on_deny_raise_stops_the_run_before_the_tool_runs(traces: Path) -> None:
    monitor = Monitor(ToolBefore("lookup_order", "issue_refund"))
    hooks = MonitorHooks(monitor, name="refund-policy", on_deny="raise")
    ran: list[str] = []
    with pytest.raises(ToolInputGuardrailTripwireTriggered):
        asyncio.run(Runner.run(desk(hooks, REFUND_FIRST, ran), "Refund A1.", hooks=hooks))
    assert ran == []
    assert [d.call.id for d in hooks.denials] == ["c1"]
    assert [g.name for t in monitor.conversation.turns for g in t.guardrails] == ["refund-policy"]
    assert monitor.finish().status.value == "failed"


def test_hooks_refuse_what_is_not_a_monitor_or_a_known_way_to_deny() -> None:
    with pytest.raises(TypeError, match="takes a Monitor"):
        MonitorHooks(ToolBefore("a", "b"))  # type: ignore[arg-type]
    monitor = Monitor(ToolBefore("a", "b"))
    with pytest.raises(ValueError, match="on_deny must be 'reject' or 'raise'"):
        MonitorHooks(monitor, on_deny="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty"):
        MonitorHooks(monitor, name=" ")
