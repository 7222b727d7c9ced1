"""OpenInference spans inside OpenTelemetry traces and Jaeger exports: LLM spans' flattened
messages, TOOL, AGENT, handoff and GUARDRAIL spans, media, and what the instrumentation's
`OPENINFERENCE_HIDE_*` settings leave out.

The fixtures under tests/fixtures/instrumented are what `openinference-instrumentation-openai`
and `-openai-agents` wrote (see the README there); the hand-written records cover the rest."""

from __future__ import annotations

import json
from typing import Any

import pytest
from instrumented_traces import GUIDE, MODEL, REPORT, ROME, SUNNY, fixture

from chatassert import Contains, GuardrailTriggered
from chatassert.errors import TranscriptError
from chatassert.promptkit import ToolCallsWithArgs
from chatassert.transcripts import parse_line, parse_record

TRIAGE = "Hand weather questions to the weather agent."
WEATHER = "You are a weather assistant. Use the get_weather tool."


# -- what the instrumentation wrote ----------------------------------------------------------


def test_an_openai_chat_traced_by_openinference_reads_as_the_conversation_it_was() -> None:
    (turn,) = fixture("openinference-chat-tools.json").turns
    assert (turn.input, turn.text) == (ROME, SUNNY)
    assert [m.role for m in turn.messages] == ["system", "user", "assistant", "tool", "assistant"]
    (call,) = turn.tool_calls
    assert (call.name, call.id, call.arguments) == (
        "get_weather",
        "call_weather_rome_1",
        {"city": "Rome"},
    )
    assert [(r.call_id, r.content, r.is_error) for r in turn.tool_results] == [
        ("call_weather_rome_1", REPORT, False)
    ]
    meta = turn.metadata
    assert (meta["model"], meta["input_tokens"], meta["output_tokens"]) == (MODEL, 163, 25)
    assert (meta["total_tokens"], meta["model_calls"], meta["latency_ms"]) == (188, 2, 2.0)


@pytest.mark.parametrize(
    ("name", "total"),
    [("openinference-agents.json", None), ("openinference-agents-responses.json", 326)],
)
def test_an_agents_sdk_run_with_a_handoff_traced_by_openinference(
    name: str, total: int | None
) -> None:
    """Chat-completions and Responses models alike: one turn, the handoff call and the tool
    call with their results, the weather agent's instructions where it took over (not
    repeated by the calls after), the agent that answered, the guardrail that ran."""
    conversation = fixture(name)
    (turn,) = conversation.turns
    assert (turn.input, turn.text, turn.agent) == (ROME, SUNNY, "Weather agent")
    assert [(m.role, m.content) for m in turn.messages if m.role == "system"] == [
        ("system", TRIAGE),
        ("system", WEATHER),
    ]
    assert [m.role for m in turn.messages] == [
        "system", "user", "assistant", "system", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip
    assert [(c.name, c.id, c.arguments) for c in turn.tool_calls] == [
        ("transfer_to_weather_agent", "call_handoff_1", {}),
        ("get_weather", "call_weather_rome_1", {"city": "Rome"}),
    ]
    assert [r.content for r in turn.tool_results] == ['{"assistant": "Weather agent"}', REPORT]
    assert [(g.name, g.triggered) for g in turn.guardrails] == [("weather_only", False)]
    meta = turn.metadata
    assert (meta["model"], meta["input_tokens"], meta["output_tokens"]) == (MODEL, 294, 32)
    assert (meta["model_calls"], meta.get("total_tokens")) == (3, total)


def test_a_run_its_guardrail_stopped_is_a_turn_with_that_event() -> None:
    """The guardrail span records no result; the Agents SDK puts the tripwire on the span it
    stopped, and that is what says the guardrail triggered."""
    (turn,) = fixture("openinference-agents-guardrail.json").turns
    assert [(g.name, g.triggered) for g in turn.guardrails] == [("weather_only", True)]
    assert (turn.input, turn.text, turn.agent) == (None, "", "Triage agent")
    assert GuardrailTriggered("weather_only").check(turn).passed


def test_hidden_outputs_make_the_text_unrecorded_not_a_failure() -> None:
    (turn,) = fixture("openinference-hidden.json").turns
    assert "OPENINFERENCE_HIDE_OUTPUTS" in turn.unrecorded["text"]
    result = Contains("Rome").check(turn)
    assert result.status.value == "error"
    assert "OPENINFERENCE_HIDE_OUTPUTS" in result.reason
    assert (turn.metadata["input_tokens"], turn.metadata["model_calls"]) == (163, 2)


def test_input_images_are_the_turns_media() -> None:
    (turn,) = fixture("openinference-image.json").turns
    assert (turn.input, turn.text) == (
        "Which city are these pictures from?",
        "That is the Colosseum, in Rome.",
    )
    assert [(m.kind, m.url, m.mime_type, m.role) for m in turn.media] == [
        ("image", "https://example.com/photos/colosseum.jpg", None, "user"),
        ("image", None, "image/png", "user"),
    ]
    assert turn.media[1].data is not None  # the data URL's bytes


# -- the attributes, hand-written ------------------------------------------------------------

TRACE = "0af7651916cd43dd8448eb211c80319c"


def span(start: int, kind: str, name: str = "span", **attrs: Any) -> dict[str, Any]:
    return {
        "traceId": TRACE,
        "spanId": f"{start:016x}",
        "name": name,
        "startTimeUnixNano": str(start * 10**9),
        "endTimeUnixNano": str(start * 10**9 + 10**8),
        "attributes": {"openinference.span.kind": kind, **attrs},
    }


def llm(
    start: int, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]], **attrs: Any
) -> dict[str, Any]:
    """An LLM span whose messages are flattened from `{field: value}` dicts."""
    flat: dict[str, Any] = dict(attrs)
    for prefix, messages in (("llm.input_messages", inputs), ("llm.output_messages", outputs)):
        for i, message in enumerate(messages):
            for key, value in message.items():
                flat[f"{prefix}.{i}.message.{key}"] = value
    return span(start, "LLM", "response", **flat)


ASK = {"role": "user", "content": "Weather in Oslo?"}
CALL = {
    "role": "assistant",
    "tool_calls.0.tool_call.id": "call_1",
    "tool_calls.0.tool_call.function.name": "get_weather",
    "tool_calls.0.tool_call.function.arguments": '{"city": "Oslo"}',
}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "4 C"}
ANSWER = {"role": "assistant", "content": "It is 4 C in Oslo."}


def test_a_tool_span_without_a_call_id_joins_its_call_by_name_and_marks_it_errored() -> None:
    tool = span(2, "TOOL", "get_weather", **{"tool.name": "get_weather",
                "input.value": '{"city": "Oslo"}', "output.value": "timeout"})  # fmt: skip
    tool["status"] = {"code": 2, "message": "timeout"}
    record = {"spans": [llm(1, [ASK], [CALL]), tool, llm(3, [ASK, CALL], [ANSWER])]}
    (turn,) = parse_record(record).turns
    assert [(r.call_id, r.content, r.is_error) for r in turn.tool_results] == [
        ("call_1", "timeout", True)
    ]
    assert turn.text == "It is 4 C in Oslo."


def test_a_redacted_tool_input_leaves_the_calls_arguments_unrecorded() -> None:
    tool = span(2, "TOOL", "get_weather", **{"tool.name": "get_weather",
                "input.value": "__REDACTED__", "output.value": "4 C"})  # fmt: skip
    hidden = span(1, "LLM", "response", **{"output.value": "__REDACTED__"})
    (turn,) = parse_record({"spans": [hidden, tool]}).turns
    (call,) = turn.tool_calls
    assert call.name == "get_weather"
    result = ToolCallsWithArgs("get_weather", {"city": "Oslo"}).check(turn)
    assert result.status.value == "error"
    assert "OPENINFERENCE_HIDE_INPUTS" in result.reason


def test_a_redacted_output_text_is_recovered_from_the_next_calls_input() -> None:
    """OPENINFERENCE_HIDE_OUTPUT_TEXT redacts the output messages' text only: a later call's
    input repeats what the model said, and that is its text."""
    first = llm(1, [ASK], [{"role": "assistant", "content": "__REDACTED__"}])
    second = llm(
        3,
        [
            ASK,
            {"role": "assistant", "content": "Oslo is cold."},
            {"role": "user", "content": "How cold?"},
        ],
        [{"role": "assistant", "content": "__REDACTED__"}],
    )
    turns = parse_record({"spans": [first, second]}).turns
    assert [(t.input, t.text, t.unrecorded) for t in turns[:1]] == [
        ("Weather in Oslo?", "Oslo is cold.", {})
    ]
    assert turns[1].input == "How cold?"
    assert "OPENINFERENCE_HIDE_OUTPUT_TEXT" in turns[1].unrecorded["text"]


def test_a_hidden_input_text_is_no_text() -> None:
    redacted = {"role": "user", "content": "__REDACTED__"}
    (turn,) = parse_record({"spans": [llm(1, [redacted], [ANSWER])]}).turns
    assert turn.input is None
    assert turn.text == "It is 4 C in Oslo."


def test_agent_handoff_and_guardrail_spans() -> None:
    agent = span(1, "AGENT", "Triage", **{"agent.name": "Triage"})
    guard = span(2, "GUARDRAIL", "no_pii", **{"output.value": '{"tripwire_triggered": true}'})
    first = llm(3, [ASK], [{"role": "assistant", "content": "Let me hand you over."}])
    handoff = span(4, "TOOL", "handoff to Weather", **{"input.value": "Triage",
                   "output.value": "Weather"})  # fmt: skip
    checked = span(5, "GUARDRAIL", "polite", **{"guardrail.triggered": False})
    (turn,) = parse_record({"spans": [agent, guard, first, handoff, checked]}).turns
    assert turn.agent == "Weather"
    assert turn.metadata["agent_source"] == "span 'handoff to Weather': output.value"
    assert [(g.name, g.triggered) for g in turn.guardrails] == [("no_pii", True), ("polite", False)]
    assert turn.tool_calls == ()  # a handoff span is not a tool call


def test_audio_and_video_contents_and_reasoning_only_messages() -> None:
    user = {
        "role": "user",
        "contents.0.message_content.type": "audio",
        "contents.0.message_content.audio.audio.url": "https://example.com/q.wav",
        "contents.0.message_content.audio.audio.mime_type": "audio/wav",
        "contents.1.message_content.type": "video",
        "contents.1.message_content.video.video.url": "https://example.com/q.mp4",
    }
    reasoning = {"role": "assistant", "contents.0.message_content.type": "reasoning",
                 "contents.0.message_content.text": "thinking..."}  # fmt: skip
    (turn,) = parse_record({"spans": [llm(1, [user], [reasoning, ANSWER])]}).turns
    assert [(m.kind, m.url, m.mime_type) for m in turn.media] == [
        ("audio", "https://example.com/q.wav", "audio/wav"),
        ("video", "https://example.com/q.mp4", None),
    ]
    assert [m.role for m in turn.messages] == ["user", "assistant"]  # no reasoning message


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        (
            {"llm.output_messages.0.message.role": 3},
            "span 'response': llm.output_messages.0.message.role must be a role (system, "
            "developer, user, assistant or tool), got 3",
        ),
        (
            {"llm.input_messages.0.message.content": {"a": 1}},
            "span 'response': llm.input_messages.0.message.content must be a string, got an object",
        ),
        (
            {"llm.output_messages.0.message.tool_calls.0.tool_call.id": "c"},
            "span 'response': llm.output_messages.0.message.tool_calls.0.tool_call.function.name "
            "must be the tool's name, got null",
        ),
        (
            {"llm.token_count.prompt": 1.5, "llm.output_messages.0.message.content": "x"},
            "span 'response': llm.token_count.prompt must be a number of tokens (a whole number "
            "from 0 to 2**63 - 1), got 1.5",
        ),
    ],
)
def test_a_malformed_attribute_is_reported_with_its_span_and_key(
    attrs: dict[str, Any], expected: str
) -> None:
    with pytest.raises(TranscriptError) as caught:
        parse_record({"spans": [span(1, "LLM", "response", **attrs)]})
    assert str(caught.value) == expected


def test_a_tool_span_with_a_tool_name_that_is_not_a_string_is_reported() -> None:
    bad = span(2, "TOOL", "t", **{"tool.name": 7})
    with pytest.raises(TranscriptError) as caught:
        parse_record({"spans": [llm(1, [ASK], [ANSWER]), bad]})
    assert str(caught.value) == "span 't': tool.name must be a string, got 7"


# -- the example of docs/offline.md -----------------------------------------------------------


def _guide_block(marker: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(marker) :]
    block = section[section.index("```json\n") + len("```json\n") :]
    return block[: block.index("```")]


def test_the_openinference_example_of_the_docs_reads_as_documented() -> None:
    line = _guide_block("#### OpenInference spans").strip()
    record = parse_line(line, "offline.md", 1)
    assert record.conversation is not None, record.error
    (turn,) = record.conversation.turns
    assert (turn.input, turn.text, turn.agent) == (
        "Refund this order",
        "Order 7 is refunded.",
        "Support",
    )
    assert [(m.kind, m.url) for m in turn.media] == [("image", "https://example.com/receipt-7.png")]
    assert [(g.name, g.triggered) for g in turn.guardrails] == [("no_pii", False)]
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("refund_order", {"order": 7})]
    assert [r.content for r in turn.tool_results] == ["refunded"]
    meta = turn.metadata
    assert (meta["model"], meta["input_tokens"], meta["output_tokens"]) == ("gpt-4.1", 270, 22)
    assert json.loads(line)  # one line of JSON, as the docs say


# -- the order of what the spans say ----------------------------------------------------------


def test_an_agents_instructions_go_where_it_took_over_and_its_calls_still_join() -> None:
    """A new agent's system prompt opens every later request: it is added once, where the
    call that brought it happened, and the calls after it still repeat the history (they read
    as one turn, not a second copy of it); a tool span that joins no call is placed after it."""
    triage = {"role": "system", "content": "Triage."}
    billing = {"role": "system", "content": "Billing."}
    handoff = {
        "role": "assistant",
        "tool_calls.0.tool_call.id": "h1",
        "tool_calls.0.tool_call.function.name": "transfer_to_billing",
    }
    moved = {"role": "tool", "tool_call_id": "h1", "content": '{"assistant": "Billing"}'}
    spans = [
        llm(1, [triage, ASK], [handoff]),
        llm(2, [billing, ASK, handoff, moved], [{"role": "assistant", "content": "__REDACTED__"}]),
        span(3, "TOOL", "refund", **{"tool.name": "refund", "input.value": "{}"}),
        llm(4, [billing, ASK, handoff, moved, {"role": "assistant", "content": "Checking."}],
            [ANSWER]),
    ]  # fmt: skip
    (turn,) = parse_record({"spans": spans}).turns
    assert [(m.role, m.content) for m in turn.messages] == [
        ("system", "Triage."),
        ("user", "Weather in Oslo?"),
        ("assistant", None),
        ("system", "Billing."),
        ("tool", '{"assistant": "Billing"}'),
        ("assistant", "Checking."),  # the redacted answer, as the next request repeats it
        ("assistant", None),  # the refund tool's span, a call of its own
        ("tool", ""),
        ("assistant", "It is 4 C in Oslo."),
    ]
    assert [c.name for c in turn.tool_calls] == ["transfer_to_billing", "refund"]


def test_a_guardrail_is_an_event_of_the_turn_of_its_own_trace() -> None:
    """Two traces of one session: the second run's input guardrail starts before its model
    call, and belongs to the second turn, not to the last message of the first trace."""
    first = llm(1, [ASK], [ANSWER], **{"session.id": "s"})
    guard = span(5, "GUARDRAIL", "no_pii", **{"session.id": "s"})
    second = llm(6, [ASK, ANSWER, {"role": "user", "content": "Thanks"}],
                 [{"role": "assistant", "content": "Bye."}], **{"session.id": "s"})  # fmt: skip
    for later in (guard, second):
        later["traceId"] = "1" * 32
    turns = parse_record({"spans": [first, guard, second]}).turns
    assert [[g.name for g in t.guardrails] for t in turns] == [[], ["no_pii"]]


def test_a_tripwire_in_a_jaeger_export_triggers_its_guardrail() -> None:
    def jaeger(span_id: str, name: str, start: int, **tags: Any) -> dict[str, Any]:
        return {
            "traceID": TRACE,
            "spanID": span_id,
            "operationName": name,
            "startTime": start,
            "duration": 10,
            "tags": [{"key": k, "type": "string", "value": v} for k, v in tags.items()],
        }

    spans = [
        jaeger("01", "Support", 1, **{"openinference.span.kind": "AGENT", "agent.name": "Support",
               "otel.status_code": "ERROR",
               "otel.status_description": "Guardrail tripwire triggered: {'guardrail': 'no_pii'}"}),
        jaeger("02", "no_pii", 2, **{"openinference.span.kind": "GUARDRAIL"}),
        jaeger("03", "polite", 3, **{"openinference.span.kind": "GUARDRAIL"}),
    ]  # fmt: skip
    (turn,) = parse_record({"data": [{"traceID": TRACE, "spans": spans}]}).turns
    assert [(g.name, g.triggered) for g in turn.guardrails] == [("no_pii", True), ("polite", False)]
    assert turn.agent == "Support"


def test_a_tool_input_that_is_no_json_object_is_the_calls_input() -> None:
    spans = [
        span(1, "LLM", "response", **{"llm.token_count.prompt": 3}),
        span(2, "TOOL", "search", **{"tool.name": "search", "input.value": "weather Oslo"}),
        span(3, "TOOL", "count", **{"tool.name": "count", "input.value": "[1, 2]"}),
        span(4, "TOOL", "get", **{"tool.name": "get", "input.value": '{"id": 7}'}),
    ]
    (turn,) = parse_record({"spans": spans}).turns
    assert [(c.name, c.arguments, c.arguments_error) for c in turn.tool_calls] == [
        ("search", {"input": "weather Oslo"}, None),
        ("count", {"input": [1, 2]}, None),
        ("get", {"id": 7}, None),
    ]
    assert turn.tool_calls[2].raw_arguments == '{"id": 7}'


def test_a_span_of_another_kind_is_read_by_the_attributes_it_has() -> None:
    """A chain span is no part of the conversation as OpenInference: a GenAI chat span that
    also names a kind of chain (an exporter writing both conventions) is still a model call."""
    said = [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Hello!"}]}]
    messages = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps(said),
        "gen_ai.output.messages": json.dumps(answer),
    }
    (turn,) = parse_record({"spans": [span(1, "CHAIN", "chat", **messages)]}).turns
    assert (turn.input, turn.text) == ("Hi", "Hello!")
    with pytest.raises(TranscriptError, match="no GenAI inference span"):
        parse_record({"spans": [span(1, "CHAIN", "chain", **{"input.value": "Hi"})]})
