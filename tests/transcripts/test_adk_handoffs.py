"""Google ADK hands a conversation to another agent with its one handoff tool,
`transfer_to_agent`, whose `agent_name` argument names the agent: the turn's agent is that
one, not "agent" (the part of the tool's name after `transfer_to_`). One record of each path
that reads a handoff call: a log adapter building the turns (OpenAI chat messages, an ADK
trace exported by Jaeger or as OTLP JSON) and `active_agent` reading a built turn (an ADK eval
set that records no agent's own words, a native record).
"""

from __future__ import annotations

import json
from typing import Any

from chatassert import ToolCall, ToolResult, Turn
from chatassert._agents import active_agent
from chatassert.flat import ActiveAgent
from chatassert.transcripts import parse_record

ASK = "Refund order 42"
ARGS = {"agent_name": "billing"}


def _agents(record: Any) -> list[tuple[str | None, str | None]]:
    return [(t.agent, t.metadata.get("agent_source")) for t in parse_record(record).turns]


def test_an_openai_chat_log_of_an_adk_agent() -> None:
    call = {"id": "fc-1", "type": "function",
            "function": {"name": "transfer_to_agent", "arguments": json.dumps(ARGS)}}  # fmt: skip
    record = {"messages": [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "fc-1", "content": '{"result": null}'},
        {"role": "assistant", "content": "Billing here: refunding order 42."},
    ]}  # fmt: skip
    assert _agents(record) == [("billing", "handoff call transfer_to_agent in turns[0]")]


def _tags(tags: dict[str, str]) -> list[dict[str, str]]:
    return [{"key": k, "type": "string", "value": v} for k, v in tags.items()]


def _parts(role: str, *parts: dict[str, Any]) -> str:
    return json.dumps([{"role": role, "parts": list(parts)}])


TEXT_ASK = {"type": "text", "content": ASK}
TRANSFER = {"type": "tool_call", "id": "fc-1", "name": "transfer_to_agent", "arguments": ARGS}
ANSWER = {"type": "text", "content": "Billing here: refunding order 42."}
SPANS = [  # (name, start, attributes)
    ("call_llm", 100, {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gemini-2.5-flash",
        "gen_ai.input.messages": _parts("user", TEXT_ASK),
        "gen_ai.output.messages": _parts("assistant", TRANSFER)}),
    ("execute_tool transfer_to_agent", 200, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "transfer_to_agent",
        "gen_ai.tool.call.id": "fc-1", "gcp.vertex.agent.tool_call_args": json.dumps(ARGS),
        "gcp.vertex.agent.tool_response": '{"result": null}'}),
    ("call_llm", 300, {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gemini-2.5-flash",
        "gen_ai.input.messages": json.dumps([
            {"role": "user", "parts": [TEXT_ASK]},
            {"role": "assistant", "parts": [TRANSFER]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": "fc-1",
                                        "response": {"result": None}}]}]),
        "gen_ai.output.messages": _parts("assistant", ANSWER)}),
]  # fmt: skip
"""An ADK agent's trace, no `invoke_agent` span among it: the handoff call alone names the
agent the conversation went to."""


def test_an_adk_trace_exported_by_jaeger() -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    spans = [
        {"traceID": trace_id, "spanID": f"{n:016x}", "operationName": name, "references": [],
         "startTime": start, "duration": 50, "tags": _tags(attrs), "logs": [], "processID": "p1"}
        for n, (name, start, attrs) in enumerate(SPANS, 1)
    ]  # fmt: skip
    record = {"data": [{"traceID": trace_id, "spans": spans,
                        "processes": {"p1": {"serviceName": "adk-app", "tags": []}}}]}  # fmt: skip
    assert [agent for agent, _ in _agents(record)] == ["billing"]


def test_an_adk_trace_as_otlp_json() -> None:
    spans = [
        {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": f"{n:016x}", "name": name,
         "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 50),
         "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]}
        for n, (name, start, attrs) in enumerate(SPANS, 1)
    ]  # fmt: skip
    record = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    assert [agent for agent, _ in _agents(record)] == ["billing"]


def test_an_adk_eval_set_whose_invocation_names_no_author() -> None:
    invocation = {
        "invocation_id": "inv-1",
        "user_content": {"role": "user", "parts": [{"text": ASK}]},
        "final_response": {"role": "model", "parts": [{"text": "Refunding order 42."}]},
        "intermediate_data": {
            "tool_uses": [{"id": "fc-1", "name": "transfer_to_agent", "args": ARGS}],
            "tool_responses": [{"id": "fc-1", "name": "transfer_to_agent", "response": {}}],
            "intermediate_responses": [],
        },
    }
    record = {"eval_set_id": "support", "eval_cases": [
        {"eval_id": "handoff", "conversation": [invocation]}]}  # fmt: skip
    (turn,) = parse_record(record).turns
    assert turn.agent is None  # the eval set names no author: the handoff call says
    assert active_agent(turn) == ("billing", "handoff call transfer_to_agent")
    assert ActiveAgent("billing").check(turn).passed


def test_a_native_turn_with_adks_handoff_call() -> None:
    turn = Turn(
        input=ASK,
        text="Refunding order 42.",
        tool_calls=[ToolCall(name="transfer_to_agent", arguments=ARGS, id="fc-1")],
        tool_results=[ToolResult(call_id="fc-1", content='{"result": null}')],
    )
    assert active_agent(turn) == ("billing", "handoff call transfer_to_agent")
    record = {"turns": [turn.model_dump(mode="json", exclude_none=True)]}
    (read,) = parse_record(record).turns
    result = ActiveAgent("agent").check(read)
    assert (result.status.value, result.details["actual"]) == ("failed", "billing")
    # a transfer_to_agent call without the argument (an Agents SDK agent named "agent")
    bare = Turn(tool_calls=[ToolCall(name="transfer_to_agent", id="h1")])
    assert active_agent(bare) == ("agent", "handoff call transfer_to_agent")
