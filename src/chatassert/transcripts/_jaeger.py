"""The Jaeger JSON adapter: a trace export of the Jaeger query API or UI, read as OpenTelemetry.

A Jaeger export is one JSON document, `{"data": [{"traceID", "spans": [...], "processes":
{...}}]}`. Each span (`traceID`, `spanID`, `operationName`, `references` of `refType`
`CHILD_OF`, `startTime` and `duration` in microseconds, `tags` as `[{"key", "type", "value"}]`,
`logs` as `[{"timestamp", "fields": [...]}]`) is turned into the OpenTelemetry span it was
exported from (tags → attributes, a log's `event` field → the event's name, its other fields →
the event's attributes, an `otel.status_code` of `ERROR` or an `error` tag of true → an ERROR
status, with `otel.status_description` as its message) and the spans are then read by the
OpenTelemetry reader, so a span means the same in both, whatever convention it follows
(GenAI, OpenLLMetry, OpenInference). As in an OTLP export, the spans are grouped into
conversations by session or trace (`group_spans`): an export of several is a record of
several conversations, each named by its session or trace id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts._build import described
from chatassert.transcripts._otel import group_spans, hex_id, parse as otel_parse, session_of

__all__ = ["detect", "parse", "parts"]


def detect(record: Any) -> bool:
    """Whether `record` is a Jaeger export: `data`, a list of traces with `spans`."""
    if not isinstance(record, Mapping):
        return False
    data = record.get("data")
    return (
        isinstance(data, list)
        and bool(data)
        and isinstance(data[0], Mapping)
        and isinstance(data[0].get("spans"), list)
        and ("traceID" in data[0] or "processes" in data[0])
    )


def _tag_values(tags: object, where: str) -> dict[str, Any]:
    """Jaeger tags (or log fields) as a mapping of their values."""
    if tags is None:
        return {}
    if not isinstance(tags, list):
        raise TranscriptError(f"{where} must be a list of tags, got {described(tags)}")
    out: dict[str, Any] = {}
    for tag in tags:
        if isinstance(tag, Mapping) and isinstance(tag.get("key"), str):
            out[tag["key"]] = tag.get("value")
    return out


def _micros(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise TranscriptError(f"{where} must be microseconds (a whole number), got {described(value)}")


def _trace_spans(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], Any]]:
    """Every span of the export as `(its place, the span, its process)`."""
    data = record.get("data")
    if not isinstance(data, list):
        raise TranscriptError(f"'data' must be a list of traces, got {described(data)}")
    out: list[tuple[str, Mapping[str, Any], Any]] = []
    for i, trace in enumerate(data):
        if not isinstance(trace, Mapping):
            raise TranscriptError(f"data[{i}] must be a trace object, got {described(trace)}")
        processes = trace.get("processes")
        processes = processes if isinstance(processes, Mapping) else {}
        spans = trace.get("spans")
        if not isinstance(spans, list):
            raise TranscriptError(f"data[{i}].spans must be a list, got {described(spans)}")
        for j, span in enumerate(spans):
            if not isinstance(span, Mapping):
                raise TranscriptError(f"data[{i}].spans[{j}] must be an object")
            key = span.get("processID")  # a process's id: a string, or nothing to look up
            process = span.get("process", processes.get(key) if isinstance(key, str) else None)
            out.append((f"data[{i}].spans[{j}]", span, process))
    return out


def _otel_span(span: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The OpenTelemetry span a Jaeger span was exported from."""
    attrs = _tag_values(span.get("tags"), f"{where}.tags")
    start = _micros(span.get("startTime"), f"{where}.startTime")
    duration = _micros(span.get("duration"), f"{where}.duration")
    out: dict[str, Any] = {"name": span.get("operationName"), "attributes": attrs}
    for key, value in (("traceId", span.get("traceID")), ("spanId", span.get("spanID"))):
        if value is not None:
            out[key] = value
    references = span.get("references")
    for ref in references if isinstance(references, list) else ():
        if isinstance(ref, Mapping) and ref.get("refType") == "CHILD_OF":
            out["parentSpanId"] = ref.get("spanID")
            break
    if start is not None:
        out["startTimeUnixNano"] = start * 1000
        if duration is not None:
            out["endTimeUnixNano"] = (start + duration) * 1000
    if str(attrs.get("otel.status_code", "")).upper() == "ERROR" or attrs.get("error") is True:
        out["status"] = {"code": 2}
        description = attrs.get("otel.status_description")
        if isinstance(description, str):
            out["status"]["message"] = description
    events = []
    logs = span.get("logs")
    for k, log in enumerate(logs if isinstance(logs, list) else ()):
        if not isinstance(log, Mapping):
            continue
        fields = _tag_values(log.get("fields"), f"{where}.logs[{k}].fields")
        name = fields.pop("event", None)
        events.append({"name": name, "attributes": fields})
    if events:
        out["events"] = events
    return out


def _otel_record(record: Mapping[str, Any]) -> dict[str, Any]:
    return {"spans": [_otel_span(span, at) for at, span, _ in _trace_spans(record)]}


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """The conversations of an export holding several, each as `(its session or trace id, the
    export holding only its spans)`; None for an export of one conversation, read whole."""
    if not detect(record):
        return None
    entries: list[tuple[str | None, str | None, Any]] = []
    for at, span, process in _trace_spans(record):
        try:
            attrs = _tag_values(span.get("tags"), at)
        except TranscriptError:
            attrs = {}
        entries.append(
            (
                hex_id(span.get("traceID")),
                session_of(attrs),
                {**span, "process": process},
            )
        )
    groups = group_spans(entries)
    if len(groups) < 2:
        return None
    return [(label, {"data": [{"spans": spans, "processes": {}}]}) for label, spans in groups]


def parse(record: Any) -> Conversation:
    """Build the conversation of a Jaeger export of one conversation.

    Raises:
        TranscriptError: when the record is not a Jaeger export or a span is malformed.
    """
    if not detect(record):
        raise TranscriptError("expected a Jaeger export ('data': traces with 'spans')")
    converted = _otel_record(record)
    if not converted["spans"]:
        raise TranscriptError("the Jaeger export holds no spans")
    return otel_parse(converted)
