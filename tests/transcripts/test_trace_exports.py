"""OTLP JSON and Jaeger JSON trace exports: one document, many conversations, grouped by
session or trace id, each read as the OpenTelemetry GenAI reader reads a trace."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from chatassert.transcripts import parse_document, read_records


def _msgs(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _otlp_chat(
    trace: str, span: str, start: int, user: str, reply: str, parent: str = "", **extra: Any
) -> dict[str, Any]:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.input.messages": _msgs("user", user),
        "gen_ai.output.messages": _msgs("assistant", reply),
        **extra,
    }
    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": "chat gpt-4o",
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
        "status": {},
    }


T1, T2, T3 = "0af7651916cd43dd8448eb211c80319c", "1bf7651916cd43dd8448eb211c80319c", "2c" * 16
OTLP_EXPORT = {
    "resourceSpans": [
        {
            "resource": {"attributes": [_kv("service.name", "support-bot")]},
            "scopeSpans": [
                {
                    "scope": {"name": "opentelemetry.instrumentation.openai_v2"},
                    "spans": [
                        # the session's first trace: an agent span, its chat span under it
                        {
                            "traceId": T1,
                            "spanId": "a1a1a1a1a1a1a1a1",
                            "name": "invoke_agent support",
                            "startTimeUnixNano": "1000",
                            "endTimeUnixNano": "9000000",
                            "attributes": [
                                _kv("gen_ai.operation.name", "invoke_agent"),
                                _kv("session.id", "sess-42"),
                            ],
                        },
                        _otlp_chat(
                            T1, "c1c1c1c1c1c1c1c1", 2000, "Hi", "Hello!", "a1a1a1a1a1a1a1a1"
                        ),
                        # a trace of no session: its own conversation
                        _otlp_chat(T3, "c3c3c3c3c3c3c3c3", 3000, "Other", "Elsewhere."),
                        # the session's second trace (the next request of the same chat)
                        _otlp_chat(
                            T2,
                            "c2c2c2c2c2c2c2c2",
                            50_000_000,
                            "Refund?",
                            "Refunded.",
                            **{"session.id": "sess-42", "gen_ai.response.id": "resp-2"},
                        ),
                    ],
                }
            ],
        }
    ]
}


def _write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document, indent=2))
    return path


def test_an_otlp_export_is_one_conversation_per_session_or_trace(tmp_path: Path) -> None:
    """docs/offline.md "OTLP JSON and Jaeger JSON exports": the two traces of session sess-42
    are one conversation (in start order), the trace of no session another."""
    records = list(read_records(_write(tmp_path, "export.json", OTLP_EXPORT)))
    assert [r.where for r in records] == [
        f"{tmp_path}/export.json:1#sess-42",
        f"{tmp_path}/export.json:1#{T3}",
    ]
    session, other = (r.conversation for r in records)
    assert session is not None
    assert other is not None
    assert [(t.input, t.text) for t in session.turns] == [
        ("Hi", "Hello!"),
        ("Refund?", "Refunded."),
    ]
    assert [(t.input, t.text) for t in other.turns] == [("Other", "Elsewhere.")]
    # the ids an evaluation links to: the root span, each turn's model-call span
    assert session.metadata["trace_id"] == T1
    assert session.metadata["span_id"] == "a1a1a1a1a1a1a1a1"
    assert session.metadata["session_id"] == "sess-42"
    assert session.metadata["trace_ids"] == [T1, T2]
    first, second = session.turns
    assert first.metadata["span_id"] == "c1c1c1c1c1c1c1c1"
    assert "trace_id" not in first.metadata
    assert second.metadata["span_id"] == "c2c2c2c2c2c2c2c2"
    assert second.metadata["trace_id"] == T2  # not the conversation's: kept on the turn
    assert second.metadata["response_id"] == "resp-2"
    assert other.metadata["trace_id"] == T3
    assert other.metadata["span_id"] == "c3c3c3c3c3c3c3c3"


def test_an_export_of_one_trace_is_one_record_and_base64_ids_read_as_hex() -> None:
    raw = bytes.fromhex(T1)
    span = _otlp_chat(base64.b64encode(raw).decode(), "AAECAwQFBgc=", 1, "Hi", "Yo")
    record = parse_document(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    assert record.part is None
    assert record.conversation is not None
    assert record.conversation.metadata["trace_id"] == T1
    assert record.conversation.metadata["span_id"] == "0001020304050607"


def test_a_bad_span_costs_only_its_own_conversation(tmp_path: Path) -> None:
    bad = _otlp_chat(T3, "c3c3c3c3c3c3c3c3", 3000, "Other", "Elsewhere.")
    bad["attributes"].append({"key": "gen_ai.usage.input_tokens", "value": {"intValue": "x"}})
    export = {"resourceSpans": [{"scopeSpans": [{"spans": [
        _otlp_chat(T1, "c1c1c1c1c1c1c1c1", 2000, "Hi", "Hello!"), bad]}]}]}  # fmt: skip
    records = list(read_records(_write(tmp_path, "export.json", export)))
    assert [(r.part, r.ok) for r in records] == [(T1, True), (T3, False)]
    assert "intValue must be a 64-bit integer" in (records[1].error or "")


def _jaeger_span(
    trace: str, span: str, start_us: int, user: str, reply: str, **tags: Any
) -> dict[str, Any]:
    values = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.input.messages": _msgs("user", user),
        "gen_ai.output.messages": _msgs("assistant", reply),
        **tags,
    }
    return {
        "traceID": trace,
        "spanID": span,
        "operationName": "chat gpt-4o",
        "references": [{"refType": "CHILD_OF", "traceID": trace, "spanID": "ffffffffffffffff"}],
        "startTime": start_us,
        "duration": 1500,
        "tags": [
            {"key": k, "type": "bool" if isinstance(v, bool) else "string", "value": v}
            for k, v in values.items()
        ],
        "logs": [],
        "processID": "p1",
        "warnings": None,
    }


def _jaeger_tool(trace: str, start_us: int, call_id: str, error: bool) -> dict[str, Any]:
    tags = [
        {"key": "gen_ai.operation.name", "type": "string", "value": "execute_tool"},
        {"key": "gen_ai.tool.name", "type": "string", "value": "refund"},
        {"key": "gen_ai.tool.call.id", "type": "string", "value": call_id},
        {"key": "gen_ai.tool.call.result", "type": "string", "value": "declined"},
    ]
    if error:
        tags.append({"key": "otel.status_code", "type": "string", "value": "ERROR"})
    return {
        "traceID": trace,
        "spanID": "7777777777777777",
        "operationName": "execute_tool refund",
        "references": [],
        "startTime": start_us,
        "duration": 10,
        "tags": tags,
        "logs": [],
        "processID": "p1",
    }


def _jaeger_calls(trace: str) -> dict[str, Any]:
    span = _jaeger_span(trace, "1111111111111111", 100, "Refund order 7", "")
    call = {"type": "tool_call", "id": "call_1", "name": "refund", "arguments": {"order": 7}}
    span["tags"][3]["value"] = json.dumps([{"role": "assistant", "parts": [call]}])
    return span


JAEGER_EXPORT = {
    "data": [
        {
            "traceID": T1,
            "spans": [
                _jaeger_span(T1, "3333333333333333", 900, "And now?", "Declined, sorry."),
                _jaeger_calls(T1),
                _jaeger_tool(T1, 500, "call_1", error=True),
            ],
            "processes": {"p1": {"serviceName": "support-bot", "tags": []}},
            "warnings": None,
        },
        {
            "traceID": T3,
            "spans": [_jaeger_span(T3, "4444444444444444", 50, "Hi", "Hello!")],
            "processes": {"p1": {"serviceName": "support-bot", "tags": []}},
            "warnings": None,
        },
    ],
    "total": 0,
    "limit": 0,
    "offset": 0,
    "errors": None,
}


def test_a_jaeger_export_reads_as_its_otel_spans(tmp_path: Path) -> None:
    """Tags become attributes, start times (microseconds) order the spans, an ERROR status tag
    marks the tool's result errored, and each trace is a conversation."""
    records = list(read_records(_write(tmp_path, "jaeger.json", JAEGER_EXPORT)))
    assert [r.part for r in records] == [T1, T3]
    refund = records[0].conversation
    assert refund is not None
    assert [(t.input, t.text) for t in refund.turns] == [
        ("Refund order 7", ""),
        ("And now?", "Declined, sorry."),
    ]
    (call,) = refund.turns[0].tool_calls
    assert (call.name, call.arguments) == ("refund", {"order": 7})
    (result,) = refund.turns[0].tool_results
    assert (result.content, result.is_error) == ("declined", True)
    assert refund.turns[1].metadata["latency_ms"] == 1.5
    assert refund.metadata["trace_id"] == T1
    assert refund.metadata["span_id"] == "1111111111111111"  # its parent is not in the export


def test_a_jaeger_export_of_one_trace_is_one_record_and_a_bad_one_says_where() -> None:
    one = {"data": [JAEGER_EXPORT["data"][1]]}
    record = parse_document(json.dumps(one), "j.json")
    assert record.ok
    assert record.part is None
    bad = json.loads(json.dumps(one))
    bad["data"][0]["spans"][0]["startTime"] = "soon"
    assert parse_document(json.dumps(bad), "j.json").error == (
        'data[0].spans[0].startTime must be microseconds (a whole number), got "soon"'
    )


# -- the examples of docs/offline.md -------------------------------------------------------------

_GUIDE = Path(__file__).parents[2] / "docs" / "offline.md"


def _guide_block(marker: str) -> str:
    """The first ```json block after `marker` in docs/offline.md."""
    text = _GUIDE.read_text(encoding="utf-8")
    section = text[text.index(marker) :]
    block = section[section.index("```json\n") + len("```json\n") :]
    return block[: block.index("```")]


def test_the_jaeger_example_of_the_docs_reads_as_documented(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(_guide_block("(`jaeger`)"), encoding="utf-8")
    (record,) = read_records(path)
    conv = record.conversation
    assert conv is not None, record.error
    assert (conv.turns[0].input, conv.turns[0].text) == (
        "Where is order 7?",
        "Order 7 ships today.",
    )
    assert conv.metadata["session_id"] == "sess-42"
    assert conv.metadata["span_id"] == "00f067aa0ba902b7"
    assert conv.turns[0].metadata["latency_ms"] == 850.0


def test_the_grouping_example_of_the_docs_is_two_conversations(tmp_path: Path) -> None:
    from chatassert.transcripts._group import Group, grouped

    text = _guide_block("**Conversations over many lines.**")
    found = list(grouped(enumerate(text.splitlines(), 1), "log.jsonl", "session.id", 1000))
    assert all(isinstance(g, Group) for g in found)
    records = [g.record() for g in found if isinstance(g, Group)]
    assert [r.where for r in records] == ["log.jsonl:1#a", "log.jsonl:2#b"]
    first = records[0].conversation
    assert first is not None
    assert [t.text for t in first.turns] == ["Checking.", "Refunded."]
