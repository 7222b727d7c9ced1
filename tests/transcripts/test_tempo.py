"""Grafana Tempo's export envelope, `{"batches": [{resource, scopeSpans |
instrumentationLibrarySpans}]}`: read as the same spans under `resourceSpans` are, detected,
split into conversations, and a malformed one reported with its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatassert.errors import TranscriptError
from chatassert.transcripts import parse_document, parse_record, read_records
from chatassert.transcripts._readers import detected as detect_format

T1 = "W47/95gDgQPSabYzgT/GDA=="  # base64, as Tempo writes ids
T1_HEX = "5b8efff798038103d269b633813fc60c"
T2 = "0af7651916cd43dd8448eb211c80319c"


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _chat(trace: str, span: str, start: int, user: str, reply: str) -> dict[str, Any]:
    messages = {
        "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": user}]}],
        "gen_ai.output.messages": [
            {"role": "assistant", "parts": [{"type": "text", "content": reply}]}
        ],
    }
    return {
        "traceId": trace,
        "spanId": span,
        "name": "chat gpt-4o",
        "kind": "SPAN_KIND_CLIENT",
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 500_000_000),
        "attributes": [
            _kv("gen_ai.operation.name", "chat"),
            _kv("gen_ai.usage.input_tokens", 12),
            *(_kv(k, json.dumps(v)) for k, v in messages.items()),
        ],
    }


def tempo(scope_key: str, *spans: dict[str, Any]) -> dict[str, Any]:
    return {
        "batches": [
            {
                "resource": {"attributes": [_kv("service.name", "support-bot")]},
                scope_key: [{"scope": {"name": "openllmetry"}, "spans": list(spans)}],
            }
        ]
    }


@pytest.mark.parametrize("scope_key", ["scopeSpans", "instrumentationLibrarySpans"])
def test_a_tempo_export_reads_as_its_resource_spans(scope_key: str) -> None:
    record = tempo(scope_key, _chat(T1, "AAAAAAAAAAE=", 1_000_000_000, "Hi", "Hello!"))
    assert detect_format(record) == "otel"
    conversation = parse_record(record)
    assert [(t.input, t.text) for t in conversation.turns] == [("Hi", "Hello!")]
    assert conversation.metadata["trace_id"] == T1_HEX
    assert conversation.turns[0].metadata["input_tokens"] == 12
    as_resource_spans = parse_record({"resourceSpans": record["batches"]})
    assert as_resource_spans == conversation


def test_a_tempo_export_of_several_traces_is_one_conversation_each(tmp_path: Path) -> None:
    """What was 'unrecognised transcript record (keys: ['batches'])'."""
    export = tempo(
        "scopeSpans",
        _chat(T1, "AAAAAAAAAAE=", 1_000_000_000, "Hi", "Hello!"),
        _chat(T2, "00f067aa0ba902b7", 2_000_000_000, "Order 7?", "Ships today."),
    )
    path = tmp_path / "tempo.json"
    path.write_text(json.dumps(export, indent=2), encoding="utf-8")
    records = list(read_records(path))
    assert [r.error for r in records] == [None, None]
    assert [(r.where, r.conversation.turns[0].text) for r in records if r.conversation] == [
        (f"{path}:1#{T1_HEX}", "Hello!"),
        (f"{path}:1#{T2}", "Ships today."),
    ]


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"batches": [5, {"resource": {}}]}, None),  # the first batch is not one: not Tempo's
        ({"batches": [{"resource": {}}, 5]}, "batches[1] must be an object, got 5"),
        (
            {"batches": [{"scopeSpans": [{"spans": "x"}]}]},
            'batches[0].scopeSpans[0].spans must be a list, got "x"',
        ),
    ],
)
def test_a_malformed_tempo_export_says_where(record: Any, expected: str | None) -> None:
    if expected is None:
        assert detect_format(record) is None
        return
    assert detect_format(record) == "otel"
    with pytest.raises(TranscriptError) as caught:
        parse_record(record)
    assert str(caught.value) == expected
    read = parse_document(json.dumps(record), "tempo.json")
    assert read.error == expected
