"""OpenLLMetry (Traceloop) spans inside OpenTelemetry traces and Jaeger exports: the flattened
`gen_ai.prompt.{i}` / `gen_ai.completion.{i}` messages, the Traceloop SDK's tool and agent
spans, spans of other conventions beside them, and chat spans that record no content.

The fixtures under tests/fixtures/instrumented are what the instrumentation packages wrote
(see the README there); the hand-written records cover what those do not."""

from __future__ import annotations

import json
from typing import Any

import pytest
from instrumented_traces import GUIDE, MODEL, REPORT, ROME, SUNNY, fixture

from chatassert import Contains
from chatassert.errors import TranscriptError
from chatassert.promptkit import ToolCallsWithArgs, ToolsCalled
from chatassert.transcripts import parse_document, parse_line, parse_record

CONTENT_OFF = "TRACELOOP_TRACE_CONTENT"


def chat(start: int, **attrs: Any) -> dict[str, Any]:
    """An OpenLLMetry chat span (plain attribute mapping), starting at `start` seconds."""
    return {
        "traceId": "7c1d0e0b5a2f4c3d9e8f7a6b5c4d3e2f",
        "spanId": f"{start:016x}",
        "name": "openai.chat",
        "startTimeUnixNano": str(start * 10**9),
        "endTimeUnixNano": str(start * 10**9 + 5 * 10**8),
        "attributes": {"llm.request.type": "chat", **attrs},
    }


def trace(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"spans": list(spans)}


# -- what the instrumentation wrote ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "total"),
    [
        ("openllmetry-chat-tools.json", 188),  # 0.54: gen_ai.prompt.{i} / gen_ai.completion.{i}
        ("openllmetry-current-chat-tools.json", None),  # 0.62: gen_ai.input.messages
    ],
)
def test_an_openllmetry_trace_of_a_tool_call_reads_as_the_conversation_it_was(
    name: str, total: int | None
) -> None:
    conversation = fixture(name)
    (turn,) = conversation.turns
    assert (turn.input, turn.text) == (ROME, SUNNY)
    assert [m.role for m in turn.messages] == ["system", "user", "assistant", "tool", "assistant"]
    (call,) = turn.tool_calls
    assert (call.name, call.id, call.arguments) == (
        "get_weather",
        "call_weather_rome_1",
        {"city": "Rome"},
    )
    (result,) = turn.tool_results
    assert (result.call_id, result.name, result.content, result.is_error) == (
        "call_weather_rome_1",
        "get_weather",
        REPORT,
        False,
    )
    meta = turn.metadata
    assert (meta["model"], meta["input_tokens"], meta["output_tokens"]) == (MODEL, 163, 25)
    assert meta.get("total_tokens") == total
    assert (meta["model_calls"], meta["latency_ms"], meta["response_id"]) == (
        2,
        2.0,
        "chatcmpl-fixture1",
    )
    assert turn.unrecorded == {}


def test_an_openllmetry_trace_without_content_is_a_turn_whose_text_is_unrecorded() -> None:
    """TRACELOOP_TRACE_CONTENT=false: the chat spans keep the model and the tokens only. The
    turn is read, its usage checks run, and its text checks are errors that say why."""
    (turn,) = fixture("openllmetry-no-content.json").turns
    assert turn.text == ""
    assert CONTENT_OFF in turn.unrecorded["text"]
    assert (turn.metadata["input_tokens"], turn.metadata["output_tokens"]) == (163, 25)
    assert turn.metadata["model_calls"] == 2
    result = Contains("Rome").check(turn)
    assert result.status.value == "error"
    assert CONTENT_OFF in result.reason


def test_a_trace_mixing_conventions_reads_as_one_conversation() -> None:
    """OpenLLMetry chat spans, the agent framework's standard execute_tool and invoke_agent
    spans: one conversation, the tool span joined to its call, the agent named."""
    conversation = fixture("mixed-conventions.json")
    (turn,) = conversation.turns
    assert (turn.input, turn.text, turn.agent) == (ROME, SUNNY, "weather_agent")
    assert [(c.name, c.id) for c in turn.tool_calls] == [("get_weather", "call_weather_rome_1")]
    assert [r.content for r in turn.tool_results] == [REPORT]
    assert conversation.metadata["agent"] == "weather_agent"
    assert ToolCallsWithArgs("get_weather", {"city": "Rome"}).check(turn).passed


# -- the attributes, hand-written ------------------------------------------------------------

_ASK = {
    "gen_ai.prompt.0.role": "system",
    "gen_ai.prompt.0.content": "You report the weather.",
    "gen_ai.prompt.1.role": "user",
    "gen_ai.prompt.1.content": "Weather in Oslo?",
}
_CALL = {
    "gen_ai.completion.0.role": "assistant",
    "gen_ai.completion.0.finish_reason": "tool_calls",
    "gen_ai.completion.0.tool_calls.0.id": "call_1",
    "gen_ai.completion.0.tool_calls.0.name": "get_weather",
    "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Oslo"}',
}


def _tool_span(start: int, **attrs: Any) -> dict[str, Any]:
    return {
        "traceId": "7c1d0e0b5a2f4c3d9e8f7a6b5c4d3e2f",
        "spanId": f"{start:016x}",
        "name": "execute_tool get_weather",
        "startTimeUnixNano": str(start * 10**9),
        "attributes": {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            **attrs,
        },
    }


def test_the_indexed_messages_are_read_in_index_order_with_their_calls_and_usage() -> None:
    attrs = {
        **_ASK,
        **_CALL,
        "gen_ai.prompt.10.role": "user",  # index 10 after 1, not between 1 and 2
        "gen_ai.prompt.10.content": "And in Bergen?",
        "gen_ai.prompt.x.role": "user",  # not an index: no message
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
        "gen_ai.usage.prompt_tokens": 40,
        "gen_ai.usage.completion_tokens": 12,
        "llm.usage.total_tokens": 52,
    }
    conversation = parse_record(trace(chat(1, **attrs)), "otel")
    assert [(t.input, [c.name for c in t.tool_calls]) for t in conversation.turns] == [
        ("Weather in Oslo?", []),
        ("And in Bergen?", ["get_weather"]),
    ]
    meta = conversation.turns[1].metadata
    assert (meta["model"], meta["input_tokens"], meta["output_tokens"], meta["total_tokens"]) == (
        "gpt-4o-mini-2024-07-18",
        40,
        12,
        52,
    )


def test_a_tool_span_adds_the_result_the_chat_spans_do_not_show_and_marks_it_errored() -> None:
    record = trace(
        chat(1, **_ASK, **_CALL),
        _tool_span(2, **{"gen_ai.tool.call.id": "call_1", "error.type": "TimeoutError"}),
        chat(3, **_ASK, **{
            "gen_ai.prompt.2.role": "assistant",
            "gen_ai.prompt.2.tool_calls.0.id": "call_1",
            "gen_ai.prompt.2.tool_calls.0.name": "get_weather",
            "gen_ai.prompt.2.tool_calls.0.arguments": '{"city": "Oslo"}',
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "The weather service is down.",
        }),
    )  # fmt: skip
    (turn,) = parse_record(record).turns
    assert [m.role for m in turn.messages] == ["system", "user", "assistant", "tool", "assistant"]
    (result,) = turn.tool_results
    assert (result.call_id, result.content, result.is_error) == ("call_1", "TimeoutError", True)
    assert turn.text == "The weather service is down."


def test_a_tool_span_that_is_the_only_record_of_its_call_is_a_call_where_it_ran() -> None:
    """The issue's case: the chat spans record no content, the agent's execute_tool span does:
    before, the trace read as 0 conversations and the tool span was lost."""
    record = trace(
        chat(1, **{"gen_ai.usage.prompt_tokens": 40, "gen_ai.usage.completion_tokens": 12}),
        _tool_span(
            2,
            **{
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": '{"city": "Oslo"}',
                "gen_ai.tool.call.result": '{"celsius": 4}',
            },
        ),
        chat(3, **{"gen_ai.usage.prompt_tokens": 70, "gen_ai.usage.completion_tokens": 9}),
    )
    (turn,) = parse_record(record).turns
    assert [m.role for m in turn.messages] == ["assistant", "assistant", "tool", "assistant"]
    assert [(c.name, c.id, c.arguments) for c in turn.tool_calls] == [
        ("get_weather", "call_1", {"city": "Oslo"})
    ]
    assert turn.tool_results[0].content == '{"celsius": 4}'
    assert ToolsCalled(["get_weather"]).check(turn).passed
    assert ToolCallsWithArgs("get_weather", {"city": "Oslo"}).check(turn).passed
    assert Contains("4").check(turn).status.value == "error"
    assert turn.metadata["input_tokens"] == 110


def test_a_tool_span_without_its_arguments_makes_a_call_whose_argument_checks_error() -> None:
    record = trace(chat(1, **{"gen_ai.usage.prompt_tokens": 4}), _tool_span(2))
    (turn,) = parse_record(record).turns
    (call,) = turn.tool_calls
    assert (call.name, call.id) == ("get_weather", None)
    result = ToolCallsWithArgs("get_weather", {"city": "Oslo"}).check(turn)
    assert result.status.value == "error"
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in result.reason


def test_the_adk_writes_arguments_and_response_as_empty_objects_with_content_capture_off() -> None:
    span = _tool_span(
        2,
        **{
            "gen_ai.tool.call.id": "<not specified>",
            "gcp.vertex.agent.tool_call_args": "{}",
            "gcp.vertex.agent.tool_response": "{}",
        },
    )
    (turn,) = parse_record(trace(chat(1, **{"gen_ai.usage.prompt_tokens": 4}), span)).turns
    (call,) = turn.tool_calls
    assert call.id is None  # "<not specified>" ties the run to no call
    assert "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS" in (call.arguments_error or "")


def test_a_content_of_parts_is_read_for_its_text_and_media() -> None:
    parts = [
        {"type": "text", "text": "What is on this photo?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/oslo.jpg"}},
    ]
    attrs = {
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": json.dumps(parts),
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": '["not", "parts"]',  # JSON, but no parts: text
    }
    (turn,) = parse_record(trace(chat(1, **attrs))).turns
    assert turn.input == "What is on this photo?"
    assert turn.text == '["not", "parts"]'
    assert [(m.kind, m.url, m.role) for m in turn.media] == [
        ("image", "https://example.com/oslo.jpg", "user")
    ]


def test_a_legacy_completion_and_a_refusal_are_read() -> None:
    completion = chat(
        1,
        **{
            "llm.request.type": "completion",
            "gen_ai.prompt.0.user": "Say hi",
            "gen_ai.completion.0.content": "Hi!",
        },
    )
    assert [(t.input, t.text) for t in parse_record(trace(completion)).turns] == [("Say hi", "Hi!")]
    refusal = chat(
        1,
        **{
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "Help me pick a lock",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.refusal": "I can't help with that.",
        },
    )
    assert parse_record(trace(refusal)).turns[0].text == "I can't help with that."


def test_traceloop_tool_and_agent_spans() -> None:
    """The Traceloop SDK's decorators: an agent span names the agent, a tool span is a run of
    its tool, joined by name to the call the chat span shows (its result added, errored)."""
    agent = {
        "name": "support.agent",
        "startTimeUnixNano": "500000000",
        "attributes": {"traceloop.span.kind": "agent", "traceloop.entity.name": "support"},
    }
    tool = {
        "name": "get_weather.tool",
        "startTimeUnixNano": "2000000000",
        "status": {"code": "STATUS_CODE_ERROR"},
        "attributes": {
            "traceloop.span.kind": "tool",
            "traceloop.entity.input": '{"args": [], "kwargs": {"city": "Oslo"}}',
            "traceloop.entity.output": '"service down"',
        },
    }
    (turn,) = parse_record(trace(agent, chat(1, **_ASK, **_CALL), tool)).turns
    assert turn.agent == "support"
    assert turn.metadata["agent_source"] == "span 'support.agent': traceloop.entity.name"
    (result,) = turn.tool_results
    assert (result.call_id, result.content, result.is_error) == ("call_1", "service down", True)
    # alone, the tool span is the call, its positional arguments under "args"
    tool["attributes"]["traceloop.entity.input"] = '{"args": ["Oslo"], "kwargs": {"units": "C"}}'
    (alone,) = parse_record(trace(chat(1, **{"gen_ai.usage.prompt_tokens": 1}), tool)).turns
    assert alone.tool_calls[0].arguments == {"units": "C", "args": ["Oslo"]}
    del tool["attributes"]["traceloop.entity.input"]  # TRACELOOP_TRACE_CONTENT=false
    (hidden,) = parse_record(trace(chat(1, **{"gen_ai.usage.prompt_tokens": 1}), tool)).turns
    assert CONTENT_OFF in (hidden.tool_calls[0].arguments_error or "")


def test_a_chat_span_with_nothing_at_all_is_still_an_unreadable_record() -> None:
    line = parse_line(json.dumps(trace(chat(1))), "log.jsonl", 4)
    assert line.conversation is None
    assert line.error is not None
    assert "holds no messages to check" in line.error
    assert CONTENT_OFF in line.error


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        (
            {"gen_ai.prompt.0.role": 5},
            "span 'openai.chat': gen_ai.prompt.0.role must be a role (system, developer, user, "
            "assistant or tool), got 5",
        ),
        (
            {"gen_ai.completion.0.content": ["a"]},
            "span 'openai.chat': gen_ai.completion.0.content must be a string, got a list",
        ),
        (
            {"gen_ai.completion.0.tool_calls.0.id": "c"},
            "span 'openai.chat': gen_ai.completion.0.tool_calls.0.name must be the tool's name, "
            "got null",
        ),
        (
            {"gen_ai.usage.prompt_tokens": -1, "gen_ai.prompt.0.content": "x"},
            "span 'openai.chat': gen_ai.usage.prompt_tokens must be a number of tokens (a whole "
            "number from 0 to 2**63 - 1), got -1",
        ),
    ],
)
def test_a_malformed_attribute_is_reported_with_its_span_and_key(
    attrs: dict[str, Any], expected: str
) -> None:
    with pytest.raises(TranscriptError) as caught:
        parse_record(trace(chat(1, **attrs)))
    assert str(caught.value) == expected


# -- the Jaeger export the issue was found with -----------------------------------------------


def _jaeger(span_id: str, name: str, start: int, tags: dict[str, Any]) -> dict[str, Any]:
    return {
        "traceID": "4bf92f3577b34da6a3ce929d0e0e4736",
        "spanID": span_id,
        "operationName": name,
        "references": [],
        "startTime": start,
        "duration": 1000,
        "tags": [{"key": k, "type": "string", "value": v} for k, v in tags.items()],
        "logs": [],
        "processID": "p1",
    }


def test_a_jaeger_export_of_an_adk_agent_behind_an_openai_compatible_model() -> None:
    """Two openai.chat spans (OpenLLMetry) holding the user message, a tool call, its output
    and the answer, the ADK's invoke_agent and execute_tool spans, and unrelated spans: one
    conversation (it was 0, 'the trace has no GenAI inference span')."""
    spans = [
        _jaeger("01", "invocation", 100, {}),
        _jaeger("02", "invoke_agent weather_agent", 110, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent"}),
        _jaeger("03", "call_llm", 120, {"gen_ai.system": "gcp.vertex.agent"}),
        _jaeger("04", "openai.chat", 130, {**_ASK, **_CALL, "llm.request.type": "chat"}),
        _jaeger("05", "execute_tool get_weather", 200, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1", "gcp.vertex.agent.tool_call_args": '{"city": "Oslo"}',
            "gcp.vertex.agent.tool_response": '{"result": "4 C"}'}),
        _jaeger("06", "openai.chat", 300, {
            **_ASK, "llm.request.type": "chat",
            "gen_ai.prompt.2.role": "assistant",
            "gen_ai.prompt.2.tool_calls.0.id": "call_1",
            "gen_ai.prompt.2.tool_calls.0.name": "get_weather",
            "gen_ai.prompt.2.tool_calls.0.arguments": '{"city": "Oslo"}',
            "gen_ai.prompt.3.role": "tool",
            "gen_ai.prompt.3.tool_call_id": "call_1",
            "gen_ai.prompt.3.content": '{"result": "4 C"}',
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "It is 4 C in Oslo."}),
    ]  # fmt: skip
    export = {"data": [{"traceID": "4bf92f3577b34da6a3ce929d0e0e4736", "spans": spans,
                        "processes": {"p1": {"serviceName": "agent"}}}]}  # fmt: skip
    record = parse_document(json.dumps(export), "export.json")
    assert record.error is None, record.error
    conversation = record.conversation
    assert conversation is not None
    (turn,) = conversation.turns
    assert (turn.input, turn.text, turn.agent) == (
        "Weather in Oslo?",
        "It is 4 C in Oslo.",
        "weather_agent",
    )
    assert [(c.name, c.id) for c in turn.tool_calls] == [("get_weather", "call_1")]
    assert [r.content for r in turn.tool_results] == ['{"result": "4 C"}']


# -- the example of docs/offline.md -----------------------------------------------------------


def _guide_block(marker: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(marker) :]
    block = section[section.index("```json\n") + len("```json\n") :]
    return block[: block.index("```")]


def test_the_openllmetry_example_of_the_docs_reads_as_documented() -> None:
    line = _guide_block("#### OpenLLMetry (Traceloop) spans").strip()
    record = parse_line(line, "offline.md", 1)
    assert record.conversation is not None, record.error
    (turn,) = record.conversation.turns
    assert (turn.input, turn.text) == ("Weather in Oslo?", "It is 4°C in Oslo.")
    assert [(c.name, c.id, c.arguments) for c in turn.tool_calls] == [
        ("get_weather", "call_1", {"city": "Oslo"})
    ]
    assert [r.content for r in turn.tool_results] == ['{"celsius": 4}']
    meta = turn.metadata
    assert (meta["model"], meta["input_tokens"], meta["output_tokens"], meta["total_tokens"]) == (
        "gpt-4o-mini",
        110,
        21,
        131,
    )
    assert (meta["model_calls"], meta["latency_ms"]) == (2, 700.0)


def test_image_parts_of_the_current_conventions_are_the_turns_media() -> None:
    """OpenLLMetry from 0.55 on writes an image as a `uri` part, or a `blob` of its bytes."""
    user = {
        "role": "user",
        "parts": [
            {"type": "text", "content": "Where is this?"},
            {"type": "uri", "modality": "image", "uri": "https://example.com/rome.jpg"},
            {
                "type": "blob",
                "modality": "image",
                "mime_type": "image/png",
                "content": "iVBORw0KGgo=",
            },
            {"type": "blob", "modality": "text", "content": "not media"},
        ],
    }
    answer = {"role": "assistant", "parts": [{"type": "refusal", "content": "I can't say."}]}
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps([user]),
        "gen_ai.output.messages": json.dumps([answer]),
    }
    (turn,) = parse_record(trace({"name": "chat", "attributes": attrs})).turns
    assert (turn.input, turn.text) == ("Where is this?", "I can't say.")
    assert [(m.kind, m.url, m.mime_type, m.data) for m in turn.media] == [
        ("image", "https://example.com/rome.jpg", None, None),
        ("image", None, "image/png", "iVBORw0KGgo="),
    ]
