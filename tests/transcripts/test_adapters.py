"""Each transcript adapter against realistic log lines, including malformed ones."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest

from chatassert._errors import TranscriptError
from chatassert.transcripts import parse_line, parse_record, read_records

WEATHER_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}

OPENAI_CHAT: dict[str, Any] = {
    "id": "conv-1",
    "model": "gpt-4o-mini",
    "usage": {"prompt_tokens": 120, "completion_tokens": 30},
    "latency_ms": 812,
    "messages": [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 18}'},
        {"role": "assistant", "content": "It is 18°C in Paris."},
        {"role": "user", "content": [{"type": "text", "text": "Thanks!"}]},
        {"role": "assistant", "content": "You're welcome."},
    ],
}


def test_openai_chat_transcript() -> None:
    c = parse_record(OPENAI_CHAT)
    assert c.id == "conv-1"
    assert [t.text for t in c.turns] == ["It is 18°C in Paris.", "You're welcome."]
    assert [t.input for t in c.turns] == ["Weather in Paris?", "Thanks!"]
    turn = c.turns[0]
    assert turn.tool_calls[0].arguments == {"city": "Paris"}
    assert turn.tool_results[0].name == "get_weather"
    assert turn.tool_results[0].is_error is False
    assert c.metadata == {
        "model": "gpt-4o-mini",
        "input_tokens": 120,
        "output_tokens": 30,
        "total_tokens": 150,
        "latency_ms": 812,
    }
    assert turn.messages[0].role == "system"


def test_openai_chat_matches_the_core_model() -> None:
    from chatassert import Conversation

    fast = parse_record(OPENAI_CHAT)
    slow = Conversation.from_messages(OPENAI_CHAT["messages"])
    assert fast.turns == slow.turns


def test_openai_chat_invalid_arguments_are_kept_with_their_error() -> None:
    bad = {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{oops"}}],
            },
        ]
    }
    call = parse_record(bad).turns[0].tool_calls[0]
    assert call.raw_arguments == "{oops"
    assert call.arguments_error is not None


def _call(messages: list[dict[str, Any]], reply: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "request": {"model": "gpt-4o", "messages": messages},
        "response": {
            "id": "chatcmpl-1",
            "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "message": reply, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        },
        **extra,
    }


def test_openai_request_response_records() -> None:
    q1 = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    a1 = {"role": "assistant", "content": "Hello!"}
    q2 = [*q1, a1, {"role": "user", "content": "Weather?"}]
    a2 = {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]}
    q3 = [*q2, a2, {"role": "tool", "tool_call_id": "call_1", "content": "18C"}]
    a3 = {"role": "assistant", "content": "18C."}
    record = {
        "id": "s-9",
        "calls": [
            _call(q1, a1, latency_ms=100),
            _call(q2, a2, latency_ms=200),
            _call(q3, a3, latency_ms=300),
        ],
    }
    c = parse_record(record)
    assert [t.input for t in c.turns] == ["Hi", "Weather?"]
    assert [t.text for t in c.turns] == ["Hello!", "18C."]
    assert len(c.turns[1].messages) == 4  # user, assistant call, tool, assistant
    assert c.turns[1].metadata["latency_ms"] == 500
    assert c.turns[1].metadata["model_calls"] == 2
    assert c.turns[1].metadata["input_tokens"] == 100
    assert c.turns[0].metadata["finish_reason"] == "stop"
    assert c.metadata["model"] == "gpt-4o"
    single = parse_record(_call(q1, a1, cost=0.002))
    assert single.turns[0].metadata["cost"] == 0.002
    assert parse_record([_call(q1, a1)]).turns[0].text == "Hello!"


ANTHROPIC: dict[str, Any] = {
    "id": "msg-log-1",
    "model": "claude-sonnet-4-5",
    "system": "You book tables.",
    "messages": [
        {"role": "user", "content": "Table for 4 on Saturday?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "check_availability",
                    "input": {"date": "2024-02-17", "party_size": 4},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "is_error": True,
                    "content": [{"type": "text", "text": "backend timeout"}],
                }
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Sorry, try again later."}]},
        {"role": "user", "content": "OK"},
    ],
    "response": {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": "Anything else?"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 300, "output_tokens": 5},
    },
}


def test_anthropic_tool_results_continue_the_turn() -> None:
    c = parse_record(ANTHROPIC)
    assert [t.input for t in c.turns] == ["Table for 4 on Saturday?", "OK"]
    first = c.turns[0]
    assert first.text == "Sorry, try again later."
    assert first.tool_calls[0].arguments == {"date": "2024-02-17", "party_size": 4}
    result = first.tool_results[0]
    assert (result.name, result.content, result.is_error) == (
        "check_availability",
        "backend timeout",
        True,
    )
    assert first.messages[0].role == "system"
    assert c.turns[1].text == "Anything else?"
    assert c.turns[1].metadata["output_tokens"] == 5
    assert c.turns[1].metadata["stop_reason"] == "end_turn"


def test_anthropic_is_detected_before_openai() -> None:
    line = json.dumps(ANTHROPIC)
    record = parse_line(line)
    assert record.ok
    assert record.conversation is not None
    assert record.conversation.turns[0].tool_results[0].is_error is True


RESPONSES: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "model": "gpt-4.1",
    "instructions": "You are a travel agent.",
    "input": [
        {"role": "user", "content": "Flights to Rome?"},
        {
            "type": "function_call",
            "call_id": "fc_1",
            "name": "search_flights",
            "arguments": '{"to": "FCO"}',
        },
        {"type": "function_call_output", "call_id": "fc_1", "output": "[]"},
    ],
    "output": [
        {"type": "reasoning", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "No flights found."}],
        },
    ],
    "usage": {"input_tokens": 80, "output_tokens": 6, "total_tokens": 86},
}


def test_openai_responses_items() -> None:
    c = parse_record(RESPONSES)
    assert len(c.turns) == 1
    turn = c.turns[0]
    assert turn.input == "Flights to Rome?"
    assert turn.text == "No flights found."
    assert turn.tool_calls[0].id == "fc_1"
    assert turn.tool_results[0].name == "search_flights"
    assert turn.metadata["total_tokens"] == 86
    assert (
        parse_record({"items": RESPONSES["input"]}).turns[0].tool_calls[0].name == "search_flights"
    )


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(name: str, start: int, end: int, attrs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": name[:8],
        "name": name,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
        **extra,
    }


def _msgs(*messages: dict[str, Any]) -> str:
    return json.dumps(list(messages))


OTEL: dict[str, Any] = {
    "resourceSpans": [
        {
            "resource": {"attributes": []},
            "scopeSpans": [
                {
                    "scope": {"name": "opentelemetry.instrumentation.openai"},
                    "spans": [
                        _span(
                            "execute_tool get_weather",
                            2_000_000_000,
                            2_100_000_000,
                            {
                                "gen_ai.operation.name": "execute_tool",
                                "gen_ai.tool.name": "get_weather",
                                "gen_ai.tool.call.id": "call_7",
                                "error.type": "TimeoutError",
                            },
                            status={"code": 2, "message": "timeout"},
                        ),
                        _span(
                            "chat gpt-4o",
                            1_000_000_000,
                            1_500_000_000,
                            {
                                "gen_ai.operation.name": "chat",
                                "gen_ai.request.model": "gpt-4o",
                                "gen_ai.usage.input_tokens": 40,
                                "gen_ai.usage.output_tokens": 12,
                                "gen_ai.system_instructions": json.dumps(
                                    [{"type": "text", "content": "Be brief"}]
                                ),
                                "gen_ai.input.messages": _msgs(
                                    {
                                        "role": "user",
                                        "parts": [{"type": "text", "content": "Weather in Oslo?"}],
                                    }
                                ),
                                "gen_ai.output.messages": _msgs(
                                    {
                                        "role": "assistant",
                                        "parts": [
                                            {
                                                "type": "tool_call",
                                                "id": "call_7",
                                                "name": "get_weather",
                                                "arguments": {"city": "Oslo"},
                                            }
                                        ],
                                        "finish_reason": "tool_call",
                                    }
                                ),
                            },
                        ),
                        _span(
                            "chat gpt-4o 2",
                            3_000_000_000,
                            3_400_000_000,
                            {
                                "gen_ai.operation.name": "chat",
                                "gen_ai.request.model": "gpt-4o",
                                "gen_ai.input.messages": _msgs(
                                    {
                                        "role": "user",
                                        "parts": [{"type": "text", "content": "Weather in Oslo?"}],
                                    },
                                    {
                                        "role": "assistant",
                                        "parts": [
                                            {
                                                "type": "tool_call",
                                                "id": "call_7",
                                                "name": "get_weather",
                                                "arguments": {"city": "Oslo"},
                                            }
                                        ],
                                    },
                                ),
                                "gen_ai.output.messages": _msgs(
                                    {
                                        "role": "assistant",
                                        "parts": [
                                            {
                                                "type": "text",
                                                "content": "The weather service is down.",
                                            }
                                        ],
                                    }
                                ),
                            },
                        ),
                    ],
                }
            ],
        }
    ]
}


def test_otel_spans() -> None:
    c = parse_record(OTEL)
    assert c.metadata["trace_id"] == "5b8efff798038103d269b633813fc60c"
    turn = c.turns[0]
    assert turn.input == "Weather in Oslo?"
    assert turn.text == "The weather service is down."
    assert turn.tool_calls[0].arguments == {"city": "Oslo"}
    assert [(r.name, r.is_error) for r in turn.tool_results] == [("get_weather", True)]
    assert turn.metadata["latency_ms"] == pytest.approx(900.0)
    assert turn.metadata["input_tokens"] == 40
    assert turn.messages[0].role == "system"


def test_otel_legacy_events() -> None:
    trace = {
        "spans": [
            {
                "name": "chat",
                "attributes": {"gen_ai.operation.name": "chat"},
                "events": [
                    {"name": "gen_ai.user.message", "body": {"content": "Hi"}},
                    {
                        "name": "gen_ai.choice",
                        "attributes": {
                            "gen_ai.event.content": json.dumps({"message": {"content": "Hello"}})
                        },
                    },
                ],
            }
        ]
    }
    c = parse_record(trace)
    assert (c.turns[0].input, c.turns[0].text) == ("Hi", "Hello")


def test_native() -> None:
    c = parse_record(
        {
            "id": "n1",
            "turns": [
                {
                    "input": "Hi",
                    "text": "Hello",
                    "tool_results": [{"content": "boom", "is_error": True}],
                }
            ],
        }
    )
    assert c.turns[0].tool_results[0].is_error


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        ({"messages": [{"content": "no role"}]}, "messages[0] has no 'role'"),
        ({"messages": [{"role": "assistant", "tool_calls": [{"id": "x"}]}]}, "has no 'function'"),
        (
            {"system": "s", "messages": [{"role": "user", "content": [{"type": "tool_result"}]}]},
            "has no 'tool_use_id'",
        ),
        ({"output": [{"type": "function_call", "name": "f"}]}, "has no 'call_id'"),
        (
            {"spans": [{"attributes": {"gen_ai.operation.name": "execute_tool"}}]},
            "no GenAI inference span",
        ),
        ({"turns": [{"tool_calls": "x"}]}, "not a native conversation"),
        ({"hello": 1}, "unrecognised transcript record"),
    ],
)
def test_malformed_records_say_why(record: Any, fragment: str) -> None:
    with pytest.raises(TranscriptError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        parse_record(record)


def test_explicit_format_override() -> None:
    with pytest.raises(TranscriptError, match="Anthropic"):
        parse_record({"calls": 3}, "anthropic")
    with pytest.raises(TranscriptError, match="unknown transcript format"):
        parse_record(OPENAI_CHAT, "csv")
    # forced OpenAI on an Anthropic-shaped record reads only what OpenAI understands
    assert parse_record({"messages": [{"role": "user", "content": "x"}]}, "anthropic").turns


def test_read_records_reports_bad_lines_and_carries_on(tmp_path: Path) -> None:
    lines = [json.dumps(OPENAI_CHAT), "{broken", "", json.dumps({"x": 1}), json.dumps(ANTHROPIC)]
    path = tmp_path / "log.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    records = list(read_records(path))
    assert [(r.line, r.ok) for r in records] == [(1, True), (2, False), (4, False), (5, True)]
    assert records[1].where == f"{path}:2"
    assert "not JSON" in (records[1].error or "")
    stream = io.StringIO(lines[0] + "\n")
    assert [r.ok for r in read_records(stream, format="openai")] == [True]


def test_the_sample_lines_of_the_guide_are_read() -> None:
    import re

    guide = Path(__file__).parents[2] / "docs" / "offline.md"
    blocks = re.findall(r"```json\n(.*?)```", guide.read_text(encoding="utf-8"), re.S)
    read = 0
    for line in "".join(blocks).splitlines():
        record = parse_line(line, "offline.md")
        assert all(r.ok for r in record.each()), (line[:80], [r.error for r in record.each()])
        read += 1
    assert read == 22  # every sample, the one-document exports and the ADK set included


def test_a_handoff_to_an_agent_with_other_instructions_repeats_no_turn() -> None:
    """Call-per-record logs: after a handoff, the next model call opens with the other agent's
    system prompt and repeats the history; the history is not added a second time."""
    history = [
        {"role": "system", "content": "You triage."},
        {"role": "user", "content": "My card was charged twice"},
    ]

    def call(messages: list[dict[str, str]], reply: str) -> dict[str, object]:
        message = {"role": "assistant", "content": reply}
        return {
            "request": {"model": "m", "messages": messages},
            "response": {"choices": [{"message": message}]},
        }

    first = call(history, "Billing.")
    second = call(
        [
            {"role": "system", "content": "You handle billing."},
            *history[1:],
            {"role": "assistant", "content": "Billing."},
            {"role": "user", "content": "Refund one, please"},
        ],
        "Refunded.",
    )
    conversation = parse_line(json.dumps({"calls": [first, second]}), "log.jsonl", 1).conversation
    assert conversation is not None
    assert [(t.input, t.text) for t in conversation.turns] == [
        ("My card was charged twice", "Billing."),
        ("Refund one, please", "Refunded."),
    ]
