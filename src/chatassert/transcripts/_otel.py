"""The OpenTelemetry adapter: exported traces, one per line or a whole export, whatever span
conventions their instrumentations follow.

Shapes read: OTLP JSON (`{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`, with
attributes as `[{"key", "value": {"stringValue": ...}}]`, ids in hex or base64), Grafana
Tempo's export (the same resource spans under `batches`, their spans under `scopeSpans` or
`instrumentationLibrarySpans`), a plain `{"spans": [...]}` with attributes as a mapping, or
one span on its own (`traceId`, `spanId`, `attributes`: a span-per-line log, which
`check --group-by` joins into conversations). Spans are ordered by start time.

A record whose spans belong to several conversations (an OTLP JSON export of many traces) is
split into them (`parts`): spans are grouped by their trace, and traces by the conversation
they belong to when a span names one (`gen_ai.conversation.id`, else `session.id`); each
group is named by that id, else by its trace id. (`thread.id` is not used: in OpenTelemetry it
names an operating-system thread, not a chat thread.)

Each span is read by the convention it follows, and all of a trace's spans make one
conversation:

- GenAI inference spans (`gen_ai.operation.name` `chat`, `text_completion` or
  `generate_content`) give the messages: the `gen_ai.system_instructions`,
  `gen_ai.input.messages` and `gen_ai.output.messages` attributes (JSON with `parts` of type
  `text`, `tool_call`, `tool_call_response`, and `blob` / `uri` / `file` media), or the older
  message events (`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
  `gen_ai.tool.message`, `gen_ai.choice`) with their body in `body` or a JSON
  `gen_ai.event.content` attribute. Each span's model, `gen_ai.usage.input_tokens` /
  `output_tokens` and duration become its turn's metadata. `invoke_agent` spans name the
  agent that runs from there on.
- OpenLLMetry (Traceloop) model-call spans (`_openllmetry`) and OpenInference `LLM` spans
  (`_openinference`) give messages and facts the same way, from their flattened attributes;
  their tool, agent, handoff and guardrail spans are read as those modules say.
- Tool spans (GenAI `execute_tool`: `gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, and the ADK's
  `gcp.vertex.agent.tool_call_args` / `tool_response`; OpenLLMetry and OpenInference tool
  spans) are joined to the calls the model-call spans show (`_spans.join_tool_runs`): they
  supply results those do not show and mark a result `is_error` when the span's status is
  ERROR or it has `error.type`; one that joins no call is a call of its own, where it ran.
- A model call whose span records no messages (content capture off, content redacted) is
  still a model call of its turn, whose text is unrecorded (`Msg.unrecorded`, saying which
  setting records it); a trace with nothing at all to check is an error that says why.
- Once the conversation has begun, the system prompts that open a call's request are the
  instructions of the agent then running: those seen before are not added again, and a new
  agent's are added once, where the call that brought them happened.

As in the other formats, the line's `id`, `metadata` and case keys (`case`, `test_case`,
`name`, `tags`) are kept, so a trace can name the suite case it answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import chatassert.transcripts._openinference as openinference
import chatassert.transcripts._openllmetry as openllmetry
from chatassert._errors import TranscriptError
from chatassert._models import Conversation, GuardrailEvent, Media
from chatassert.transcripts._build import (
    Msg,
    SpanWalk,
    conversation,
    count,
    described,
    guarded,
    list_at,
    media_from_part,
    record_metadata,
    tool_call,
)
from chatassert.transcripts._spans import ToolRun, join_tool_runs, result_text

__all__ = [
    "SESSION_KEYS",
    "attributes",
    "detect",
    "group_spans",
    "hex_id",
    "is_span",
    "parse",
    "parts",
    "raw_spans",
]

SESSION_KEYS = ("gen_ai.conversation.id", "session.id")
"""The span attributes that name the conversation a span belongs to, first found first."""

_INFERENCE = frozenset({"chat", "text_completion", "generate_content"})
_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def is_span(record: Any) -> bool:
    """Whether `record` is one span on its own (a span-per-line log): trace and span ids and
    attributes."""
    return (
        isinstance(record, Mapping)
        and ("traceId" in record or "trace_id" in record)
        and ("spanId" in record or "span_id" in record)
        and isinstance(record.get("attributes"), Mapping | list)
    )


_SCOPES = ("scopeSpans", "instrumentationLibrarySpans")


def _is_batches(record: Mapping[str, Any]) -> bool:
    """Whether `record` is Grafana Tempo's envelope: `batches` of resource spans."""
    batches = record.get("batches")
    return (
        isinstance(batches, list)
        and bool(batches)
        and isinstance(batches[0], Mapping)
        and any(key in batches[0] for key in (*_SCOPES, "resource"))
    )


def detect(record: Any) -> bool:
    """Whether `record` is an exported trace (`resourceSpans`, Tempo's `batches` of them, or
    `spans` of span objects), or one span of a span-per-line log (read as a trace of that
    span)."""
    if not isinstance(record, Mapping):
        return False
    if isinstance(record.get("resourceSpans"), list) or is_span(record) or _is_batches(record):
        return True
    spans = record.get("spans")
    return (
        isinstance(spans, list)
        and bool(spans)
        and isinstance(spans[0], Mapping)
        and ("attributes" in spans[0] or "spanId" in spans[0] or "span_id" in spans[0])
    )


_INT64 = 2**63
_INTEGER = re.compile("[+-]?[0-9]{1,19}")
_NUMBER = re.compile("[+-]?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:[eE][+-]?[0-9]+)?|NaN|-?Infinity")


def _value(value: object, where: str) -> Any:
    """Decode an OTLP `AnyValue` (`{"stringValue": ...}`, ...); plain values pass through.

    Raises:
        TranscriptError: when the value is not of the type its key names.
    """
    if not isinstance(value, Mapping) or len(value) != 1:
        return value
    ((kind, inner),) = value.items()
    if kind == "stringValue":
        if isinstance(inner, str):
            return inner
        expected = "a string"
    elif kind == "boolValue":
        if isinstance(inner, bool):
            return inner
        expected = "true or false"
    elif kind == "intValue":  # an int64, written as a string of digits in OTLP JSON
        if isinstance(inner, str) and _INTEGER.fullmatch(inner):
            inner = int(inner)
        if isinstance(inner, int) and not isinstance(inner, bool) and -_INT64 <= inner < _INT64:
            return inner
        expected = "a 64-bit integer, or a string of one"
    elif kind == "doubleValue":  # a number, or a string such as "NaN" or "1.5"
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return inner
        if isinstance(inner, str) and _NUMBER.fullmatch(inner):
            return float(inner)
        expected = "a number"
    elif kind in ("arrayValue", "kvlistValue"):
        values = {} if inner is None else inner
        listed = values.get("values", []) if isinstance(values, Mapping) else None
        if isinstance(listed, list):
            if kind == "kvlistValue":
                return attributes(listed, where)
            return [_value(v, f"{where}[{i}]") for i, v in enumerate(listed)]
        expected = "an object with a 'values' list"
    else:
        return value
    raise TranscriptError(f"{where}: {kind} must be {expected}, got {described(inner)}")


def attributes(raw: object, where: str) -> dict[str, Any]:
    """A span's or event's attributes as a mapping of decoded values: given as a mapping, or
    as OTLP's `[{"key", "value": {"stringValue": ...}}]` list; `{}` for anything else.

    Raises:
        TranscriptError: naming the attribute at `where`, for a value of the wrong type.

    Example:
        >>> attributes([{"key": "n", "value": {"intValue": "3"}}], "spans[0]")
        {'n': 3}
    """
    if isinstance(raw, Mapping):
        return {str(k): _value(v, f"{where}: attribute {str(k)!r}") for k, v in raw.items()}
    if isinstance(raw, list):
        out: dict[str, Any] = {}
        for a in raw:
            if isinstance(a, Mapping):
                key = str(a.get("key"))
                out[key] = _value(a.get("value"), f"{where}: attribute {key!r}")
        return out
    return {}


_NANOS = 2**64  # OTLP times are fixed64 nanoseconds since 1970
_DIGITS = re.compile("[0-9]{1,20}")
_SNAKE_CASE = {"startTimeUnixNano": "start_time_unix_nano", "endTimeUnixNano": "end_time_unix_nano"}


def _nanos(span: Mapping[str, Any], key: str, where: str) -> int | None:
    """A span's start or end time (`startTimeUnixNano`, or the snake_case spelling)."""
    field = key if key in span else _SNAKE_CASE[key]
    value = span.get(field)
    if value is None:
        return None
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _NANOS:
        return value
    raise TranscriptError(
        f"{where}: {field} must be a time in nanoseconds since 1970 (a whole number from 0 to "
        f"2**64 - 1, or a string of one), got {described(value)}"
    )


def _json(value: object, what: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"{what} is not valid JSON: {exc}") from None
        except RecursionError:
            raise TranscriptError(f"{what} is JSON nested too deeply to read") from None
        except ValueError:  # an integer of more than 4300 digits
            raise TranscriptError(
                f"{what} is not valid JSON: a number has more than 4300 digits"
            ) from None
    return value


def _span_name(span: Mapping[str, Any], index: int) -> str:
    return f"span {span.get('name', index)!r}"


def raw_spans(record: Mapping[str, Any]) -> list[tuple[str, object]]:
    """The spans of an exported trace as `(place in the record, span)`, in record order.

    Raises:
        TranscriptError: when the record's span lists are malformed.
    """
    envelope = "resourceSpans" if isinstance(record.get("resourceSpans"), list) else "batches"
    if envelope == "resourceSpans" or _is_batches(record):
        places: list[tuple[str, object]] = []
        for i, rs in enumerate(record[envelope]):
            at = f"{envelope}[{i}]"
            if not isinstance(rs, Mapping):
                raise TranscriptError(f"{at} must be an object, got {described(rs)}")
            key = "scopeSpans" if "scopeSpans" in rs else "instrumentationLibrarySpans"
            for j, ss in enumerate(list_at(rs.get(key), f"{at}.{key}")):
                if not isinstance(ss, Mapping):
                    raise TranscriptError(f"{at}.{key}[{j}] must be an object, got {described(ss)}")
                spans = list_at(ss.get("spans"), f"{at}.{key}[{j}].spans")
                places.extend((f"{at}.{key}[{j}].spans[{k}]", s) for k, s in enumerate(spans))
        return places
    if "spans" not in record and is_span(record):
        return [("span", record)]
    return [(f"spans[{k}]", s) for k, s in enumerate(list_at(record.get("spans"), "spans"))]


_HEX = re.compile("[0-9a-fA-F]+")


def hex_id(value: object) -> str | None:
    """A trace or span id as lowercase hex: OTLP JSON writes hex, the protobuf JSON mapping
    base64 (16 bytes for a trace, 8 for a span); other strings are kept as they are.

    Example:
        >>> hex_id("5B8EFFF798038103D269B633813FC60C"), hex_id("W47/95gDgQPSabYzgT/GDA==")
        ('5b8efff798038103d269b633813fc60c', '5b8efff798038103d269b633813fc60c')
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:x}"
    if not isinstance(value, str) or not value:
        return None
    if len(value) in (16, 32) and _HEX.fullmatch(value):
        return value.lower()
    if len(value) in (12, 24):
        import base64
        import binascii

        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value
        if len(raw) in (8, 16):
            return raw.hex()
    return value


def _trace_of(span: Mapping[str, Any]) -> str | None:
    return hex_id(span.get("traceId", span.get("trace_id", span.get("traceID"))))


def _span_id(span: Mapping[str, Any]) -> str | None:
    return hex_id(span.get("spanId", span.get("span_id", span.get("spanID"))))


def _parent_id(span: Mapping[str, Any]) -> str | None:
    return hex_id(span.get("parentSpanId", span.get("parent_span_id")))


def session_of(attrs: Mapping[str, Any]) -> str | None:
    """The conversation a span's attributes name (`SESSION_KEYS`), if any."""
    for key in SESSION_KEYS:
        value = attrs.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            return str(value)
    return None


def group_spans(
    spans: list[tuple[str | None, str | None, Any]],
) -> list[tuple[str, list[Any]]]:
    """Group `(trace id, session id, span)` entries into conversations, in order of first span:
    by trace, and the traces of one session together (a trace takes the first session id any
    of its spans names). A group is named by its session id, else its trace id. A span with
    neither joins the group of the span before it (the first group, when it comes first):
    hand-written exports often give the trace id once.

    Example:
        >>> group_spans([("t1", None, "a"), ("t2", "s", "b"), ("t1", "s", "c"), (None, None, "x"),
        ...              ("t3", None, "d")])
        [('s', ['a', 'b', 'c', 'x']), ('t3', ['d'])]
    """
    sessions: dict[str, str] = {}
    for trace, session, _ in spans:
        if session is not None and trace is not None:
            sessions.setdefault(trace, session)
    groups: dict[str, list[Any]] = {}
    leading: list[Any] = []
    label: str | None = None
    for trace, session, span in spans:
        label = (sessions.get(trace) if trace is not None else None) or trace or session or label
        if label is None:
            leading.append(span)
        else:
            groups.setdefault(label, []).append(span)
    if not groups:
        return [("?", leading)] if leading else []
    first = next(iter(groups))
    groups[first][:0] = leading
    return list(groups.items())


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """The conversations of an export holding several (`group_spans`), each as `(its session
    or trace id, {"spans": [...]})`; None for a record of one conversation, read whole.

    A span whose attributes cannot be decoded still joins its trace (`parse` then reports
    it), so one bad attribute costs only its own conversation.
    """
    if not detect(record):
        return None
    entries: list[tuple[str | None, str | None, Any]] = []
    for at, span in raw_spans(record):
        if not isinstance(span, Mapping):
            raise TranscriptError(f"{at} must be an object, got {described(span)}")
        try:
            attrs = attributes(span.get("attributes"), at)
        except TranscriptError:
            attrs = {}
        entries.append((_trace_of(span), session_of(attrs), span))
    groups = group_spans(entries)
    if len(groups) < 2:
        return None
    return [(label, {"spans": spans}) for label, spans in groups]


def _spans(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The spans of a trace with their names for messages (`span 'chat'`), by start time."""
    places = raw_spans(record)
    named: list[tuple[int, str, Mapping[str, Any]]] = []
    for index, (at, span) in enumerate(places):
        if not isinstance(span, Mapping):
            raise TranscriptError(f"{at} must be an object, got {described(span)}")
        where = _span_name(span, index)
        named.append((_nanos(span, "startTimeUnixNano", where) or 0, where, span))
    named.sort(key=lambda entry: entry[0])
    return [(where, span) for _, where, span in named]


def _is_error(span: Mapping[str, Any], attrs: Mapping[str, Any]) -> bool:
    status = span.get("status")
    code = status.get("code") if isinstance(status, Mapping) else None
    return code in (2, "STATUS_CODE_ERROR", "ERROR", "error") or "error.type" in attrs


def _status_message(span: Mapping[str, Any]) -> object:
    status = span.get("status")
    return status.get("message") if isinstance(status, Mapping) else None


_MODALITIES = frozenset({"image", "audio", "video"})


def _part_media(part: Mapping[str, Any], role: str, where: str) -> Media | None:
    """The media of a `blob`, `uri` or `file` part (`modality` image, audio or video)."""
    kind = part.get("modality")
    if not isinstance(kind, str) or kind not in _MODALITIES:
        return None
    fields: dict[str, Any] = {}
    for key, name in (("content", "data"), ("uri", "url"), ("mime_type", "mime_type")):
        if part.get(key) is not None and (key != "content" or part.get("type") == "blob"):
            fields[name] = part[key]
    return media_from_part({"type": kind, "media": fields}, role, where)


def _parts_message(raw: object, where: str) -> list[Msg]:
    """A message of the current conventions: `{"role", "parts": [...]}`."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("role"), str):
        raise TranscriptError(f"{where} is not a message with a 'role'")
    role = raw["role"]
    texts: list[str] = []
    calls = []
    results: list[Msg] = []
    media: list[Media] = []
    for j, part in enumerate(list_at(raw.get("parts"), f"{where}.parts")):
        if not isinstance(part, Mapping):
            raise TranscriptError(f"{where}.parts[{j}] is not an object")
        kind = part.get("type")
        if kind in ("text", "refusal"):  # a refusal is what the model said
            texts.append(str(part.get("content", "")))
        elif kind == "tool_call":
            calls.append(tool_call(part.get("name"), part.get("arguments"), part.get("id")))
        elif kind == "tool_call_response":
            response = part.get("response", part.get("result"))
            result_text = response if isinstance(response, str) else json.dumps(response)
            results.append(
                Msg(
                    role="tool",
                    content=result_text,
                    tool_call_id=None if part.get("id") is None else str(part["id"]),
                    data=response if isinstance(response, dict | list) else None,
                )
            )
        elif kind in ("blob", "uri", "file"):
            found = _part_media(part, role, f"{where}.parts[{j}]")
            if found is not None:
                media.append(found)
    text = "".join(texts) if texts else None
    if results:
        return results + (
            [Msg(role="user", content=text, media=media)]
            if (text or media) and role == "user"
            else []
        )
    return [Msg(role=role, content=text, tool_calls=calls, media=media)]


def _event_message(event: Mapping[str, Any], where: str) -> Msg | None:
    name = event.get("name")
    if name is not None and not isinstance(name, str):
        raise TranscriptError(f"{where}: 'name' must be a string (got {described(name)})")
    attrs = attributes(event.get("attributes"), where)
    body = event.get("body")
    if body is None and "gen_ai.event.content" in attrs:
        body = _json(attrs["gen_ai.event.content"], f"{where}: gen_ai.event.content")
    if body is None:
        body = attrs
    if not isinstance(body, Mapping):
        return None
    if name == "gen_ai.choice":
        inner = body.get("message")
        body = inner if isinstance(inner, Mapping) else body
        role = "assistant"
    elif name is not None and name in _EVENT_ROLES:
        role = _EVENT_ROLES[name]
    else:
        return None
    calls = []
    for call in list_at(body.get("tool_calls"), f"{where}: tool_calls"):
        fn = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(fn, Mapping):
            calls.append(tool_call(fn.get("name"), fn.get("arguments"), call.get("id")))
    content = body.get("content")
    text = content if isinstance(content, str) or content is None else json.dumps(content)
    call_id = body.get("id") if role == "tool" else None
    return Msg(
        role=role,
        content=text,
        tool_calls=calls,
        tool_call_id=None if call_id is None else str(call_id),
    )


CONTENT_OFF = (
    "the span records no messages: GenAI instrumentations record them only with message "
    "content capture on (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, or "
    "span_only / span_and_event where the instrumentation takes a mode); content captured "
    "as log events is not in a trace export: export the events' logs with the trace"
)
"""Why a GenAI inference span without its messages has no text, and how to record it."""

_TOOL_CONTENT_OFF = (
    "the tool span records no arguments: GenAI instrumentations record "
    "gen_ai.tool.call.arguments only with message content capture on "
    "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)"
)
_ADK_CONTENT_OFF = (
    "the tool span records its arguments and response as {}: the ADK leaves them out while "
    "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS is false; set it to true to record them"
)
_NO_CALL_ID = "<not specified>"  # what the ADK writes for a tool run it cannot tie to a call


def _has_standard_messages(span: Mapping[str, Any], attrs: Mapping[str, Any]) -> bool:
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        return True
    events = span.get("events")
    return isinstance(events, list) and any(
        isinstance(e, Mapping)
        and (e.get("name") == "gen_ai.choice" or e.get("name") in _EVENT_ROLES)
        for e in events
        if isinstance(e, Mapping) and isinstance(e.get("name"), str)
    )


def _inference(
    span: Mapping[str, Any], attrs: Mapping[str, Any], where: str
) -> tuple[list[Msg], list[Msg], str | None]:
    """A GenAI inference span's request and response messages, and why its response has no
    text when the span records no messages at all (content capture off), else None."""
    request: list[Msg] = []
    response: list[Msg] = []
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        system = _json(attrs.get("gen_ai.system_instructions"), f"{where}: system instructions")
        if isinstance(system, list):
            texts = [
                str(p.get("content", ""))
                for p in system
                if isinstance(p, Mapping) and p.get("type") == "text"
            ]
            request.append(Msg(role="system", content="".join(texts)))
        elif isinstance(system, str):
            request.append(Msg(role="system", content=system))
        for key, target in (
            ("gen_ai.input.messages", request),
            ("gen_ai.output.messages", response),
        ):
            raw = _json(attrs.get(key, "[]"), f"{where}: {key}")
            if not isinstance(raw, list):
                raise TranscriptError(f"{where}: {key} is not a list of messages")
            for i, m in enumerate(raw):
                target.extend(_parts_message(m, f"{where}: {key}[{i}]"))
        return request, response, None
    for i, event in enumerate(list_at(span.get("events"), f"{where}: events")):
        if not isinstance(event, Mapping):
            continue
        msg = _event_message(event, f"{where}.events[{i}]")
        if msg is not None:
            (response if event.get("name") == "gen_ai.choice" else request).append(msg)
    if not request and not response:
        return [], [], CONTENT_OFF
    return request, response, None


def _standard_facts(attrs: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The model and token counts of a GenAI inference span."""
    facts: dict[str, Any] = {}
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    if isinstance(model, str):
        facts["model"] = model
    for key, older in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        name = f"gen_ai.usage.{key}" if f"gen_ai.usage.{key}" in attrs else f"gen_ai.usage.{older}"
        value = count(attrs.get(name), f"{where}: {name}")
        if value is not None:
            facts[key] = value
    return facts


def _call_meta(
    span: Mapping[str, Any], attrs: Mapping[str, Any], where: str, facts: dict[str, Any]
) -> dict[str, Any]:
    """A model call's metadata: the facts its convention gives, its latency, its span and
    trace ids and its response id."""
    meta = facts
    start = _nanos(span, "startTimeUnixNano", where)
    end = _nanos(span, "endTimeUnixNano", where)
    if start is not None and end is not None and end >= start:  # an unfinished span ends at 0
        meta["latency_ms"] = (end - start) / 1e6
    span_id, trace_id = _span_id(span), _trace_of(span)
    if span_id is not None:  # where an evaluation of this turn links to
        meta["span_id"] = span_id
    if trace_id is not None:
        meta["trace_id"] = trace_id
    response_id = attrs.get("gen_ai.response.id")
    if isinstance(response_id, str):
        meta["response_id"] = response_id
    return meta


def _tool_run(span: Mapping[str, Any], attrs: Mapping[str, Any], where: str) -> ToolRun:
    """The tool run of a GenAI `execute_tool` span (and the ADK's own attributes for it)."""
    name = attrs.get("gen_ai.tool.name")
    if not isinstance(name, str) or not name:
        span_name = span.get("name")
        name = None
        if isinstance(span_name, str) and span_name.startswith("execute_tool "):
            name = span_name.removeprefix("execute_tool ").strip() or None
    call_id = attrs.get("gen_ai.tool.call.id")
    if call_id is not None and (isinstance(call_id, bool) or call_id in ("", _NO_CALL_ID)):
        call_id = None
    run = ToolRun(
        name=name,
        call_id=None if call_id is None else str(call_id),
        is_error=_is_error(span, attrs),
    )
    arguments = attrs.get(
        "gen_ai.tool.call.arguments", attrs.get("gcp.vertex.agent.tool_call_args")
    )
    response = attrs.get("gcp.vertex.agent.tool_response")
    if arguments is None:
        run.unrecorded = _TOOL_CONTENT_OFF
    elif arguments == "{}" and response == "{}":  # the ADK with content capture off
        run.unrecorded = _ADK_CONTENT_OFF
    else:
        run.arguments = arguments
    result = attrs.get("gen_ai.tool.call.result")
    if result is None and response is not None and run.unrecorded is None:
        result = response
    if result is None:
        result = attrs.get("error.type", "")
    run.result = result_text(result)[0]  # kept as its text, as the GenAI span writes it
    return run


_OPENINFERENCE_KINDS = frozenset({"LLM", "TOOL", "AGENT", "GUARDRAIL"})
"""The OpenInference span kinds that are part of a conversation; a span of another kind (a
chain, a retriever) is read as any other span, by the attributes it has."""

_CHECKABLE = ("model", "input_tokens", "output_tokens", "total_tokens")


def _checkable(msg: Msg) -> bool:
    """Whether a message holds anything a check reads: text, calls, a result, media, or a
    model call's model or tokens."""
    if msg.content or msg.tool_calls or msg.role == "tool" or msg.media:
        return True
    if msg.role == "assistant" and msg.metadata is None and msg.unrecorded is None:
        return True  # a run stopped before any answer (by a guardrail): its events
    return msg.metadata is not None and any(key in msg.metadata for key in _CHECKABLE)


def _key(msg: Msg) -> tuple[Any, ...]:
    return (msg.role, msg.content or "", tuple([c.id for c in msg.tool_calls]), msg.tool_call_id)


class _Walk(SpanWalk):
    """Walks a trace's spans in start order, whatever convention each follows, collecting the
    conversation's messages and the facts attached to them."""

    def __init__(self, tripped: set[str]) -> None:
        super().__init__()
        self.tripped = tripped
        self.runs: list[ToolRun] = []
        self.last_trace: str | None = None
        self.calls = 0
        self.reasons: list[str] = []
        self.agent_spans: list[tuple[Mapping[str, Any], dict[str, Any], str]] = []
        # the previous model call, while its response is unrecorded: its request's keys and
        # the messages standing for its response
        self.unrecorded: tuple[list[tuple[Any, ...]], list[Msg]] | None = None
        # the instructions of agents that took over once the conversation had begun, held out
        # of the history the model calls are merged into (later requests open with them, so
        # where they were added they would stop those requests from repeating the history)
        # and put where the call that brought them happened, once all are merged
        self.prompt_keys: set[tuple[Any, ...]] = set()
        self.withheld: list[tuple[int, list[Msg]]] = []
        self.conversation_id: Any = None
        self.session: str | None = None
        self.agent: Any = None

    def span(self, where: str, span: Mapping[str, Any], attrs: dict[str, Any]) -> None:
        """Read one span."""
        self.conversation_id = self.conversation_id or attrs.get("gen_ai.conversation.id")
        self.session = self.session or session_of(attrs)
        self.agent = self.agent or attrs.get("gen_ai.agent.name")
        operation = attrs.get("gen_ai.operation.name")
        if operation is not None and not isinstance(operation, str):
            raise TranscriptError(
                f"{where}: gen_ai.operation.name must be a string, got {described(operation)}"
            )
        kind = openinference.span_kind(attrs)
        if kind in _OPENINFERENCE_KINDS and (
            kind != "LLM" or not _has_standard_messages(span, attrs)
        ):
            self.openinference(kind, where, span, attrs)
        elif operation == "execute_tool":
            self.run(_tool_run(span, attrs, where))
        elif operation in _INFERENCE or (operation is None and "gen_ai.input.messages" in attrs):
            if not _has_standard_messages(span, attrs) and openllmetry.has_messages(attrs):
                self.openllmetry_call(where, span, attrs)
            else:
                request, response, reason = _inference(span, attrs, where)
                facts = _standard_facts(attrs, where)
                self.model_call(where, span, attrs, request, response, reason, facts)
        elif operation is None and openllmetry.is_model_call(attrs):
            self.openllmetry_call(where, span, attrs)
        else:
            if "gen_ai.input.messages" in attrs:  # an agent span: its messages repeat the chats'
                self.agent_spans.append((span, attrs, where))
            if operation == "invoke_agent":
                self.agent_fact(attrs.get("gen_ai.agent.name"), f"{where}: gen_ai.agent.name")
            traceloop = openllmetry.span_kind(attrs)
            if traceloop == "tool":
                self.run(
                    openllmetry.tool_run(span.get("name"), attrs, _is_error(span, attrs), where)
                )
            elif traceloop == "agent":
                self.agent_fact(openllmetry.agent_name(attrs), f"{where}: traceloop.entity.name")

    def openllmetry_call(self, where: str, span: Mapping[str, Any], attrs: dict[str, Any]) -> None:
        """Read an OpenLLMetry model-call span."""
        request, response, reason = openllmetry.model_call(attrs, where)
        facts = openllmetry.call_facts(attrs, where)
        self.model_call(where, span, attrs, request, response, reason, facts)

    def openinference(
        self, kind: str, where: str, span: Mapping[str, Any], attrs: dict[str, Any]
    ) -> None:
        """Read an OpenInference span of `kind` (one of `_OPENINFERENCE_KINDS`)."""
        errored = _is_error(span, attrs)
        if kind == "LLM":
            request, response, reason = openinference.model_call(attrs, errored, where)
            facts = openinference.call_facts(attrs, where)
            self.model_call(where, span, attrs, request, response, reason, facts)
        elif kind == "TOOL":
            target = openinference.handoff_target(span.get("name"), attrs)
            if target is not None:
                self.handoff(target, f"{where}: output.value")
            else:
                self.run(openinference.tool_run(attrs, errored, where))
        elif kind == "AGENT":
            self.agent_fact(openinference.agent_name(attrs), f"{where}: agent.name")
        elif kind == "GUARDRAIL":
            found = openinference.guardrail(span.get("name"), attrs, errored, self.tripped, where)
            if found is not None:
                message = _status_message(span)
                event = GuardrailEvent(
                    name=found[0],
                    triggered=found[1],
                    message=message if isinstance(message, str) and message else None,
                )
                self.guardrail(event, _trace_of(span))

    def model_call(
        self,
        where: str,
        span: Mapping[str, Any],
        attrs: Mapping[str, Any],
        request: list[Msg],
        response: list[Msg],
        reason: str | None,
        facts: dict[str, Any],
    ) -> None:
        """Merge one model call into the history."""
        self.calls += 1
        if reason is not None:
            self.reasons.append(reason)
            if not response:  # the response happened; only its text is not in the log
                response = [Msg(role="assistant", unrecorded=reason, unrecorded_calls=reason)]
        meta = _call_meta(span, attrs, where, facts)
        if response:
            response[-1].metadata = meta
        request = self.prompts(request)
        self.recover(request)
        before = len(self.history)
        self.exchanges.merge(request, response)
        unrecorded = [m for m in response if m.unrecorded is not None]
        if unrecorded:
            self.unrecorded = ([_key(m) for m in request if m.role not in _PROMPTS], unrecorded)
        elif request or response:
            self.unrecorded = None
        self.last_trace = _trace_of(span)
        self.added(before)

    def prompts(self, request: list[Msg]) -> list[Msg]:
        """`request` without the system and developer prompts that open it once the
        conversation has begun: those seen before are dropped, new ones withheld."""
        start = 0
        while start < len(request) and request[start].role in _PROMPTS:
            start += 1
        if not start:
            return request
        if not self.history:
            self.prompt_keys.update(_key(m) for m in request[:start])
            return request
        new = []
        for msg in request[:start]:
            key = _key(msg)
            if key not in self.prompt_keys:
                self.prompt_keys.add(key)
                new.append(msg)
        if new:
            self.withheld.append((len(self.history), new))
        return request[start:]

    def place_prompts(self) -> None:
        """Put the withheld prompts where the calls that brought them happened (after the
        tool runs seen before those calls)."""
        if not self.withheld:
            return
        at: dict[int, list[Msg]] = {}
        for position, msgs in self.withheld:
            at.setdefault(position, []).extend(msgs)
        for run in self.runs:
            run.position += sum(len(m) for p, m in self.withheld if p < run.position)
        out: list[Msg] = []
        for position, msg in enumerate(self.history):
            out.extend(at.get(position, ()))
            out.append(msg)
        out.extend(at.get(len(self.history), ()))
        self.history[:] = out
        self.withheld = []

    def recover(self, request: list[Msg]) -> None:
        """Give the previous call's unrecorded response the text this call's request repeats
        of it (an instrumentation that hides outputs may still record inputs)."""
        if self.unrecorded is None or not request:
            return
        keys, standing = self.unrecorded
        rest = [m for m in request if m.role not in _PROMPTS]
        if [_key(m) for m in rest[: len(keys)]] != keys:
            return
        following = []
        for msg in rest[len(keys) :]:
            if msg.role != "assistant":
                break
            following.append(msg)
        if len(following) != len(standing):
            return
        for placeholder, recorded in zip(standing, following, strict=True):
            if placeholder.tool_calls and [c.id for c in placeholder.tool_calls] != [
                c.id for c in recorded.tool_calls
            ]:
                return
        for placeholder, recorded in zip(standing, following, strict=True):
            placeholder.content = recorded.content
            placeholder.tool_calls = placeholder.tool_calls or recorded.tool_calls
            placeholder.media = placeholder.media or recorded.media
            placeholder.unrecorded = None if recorded.content else placeholder.unrecorded
            placeholder.unrecorded_calls = None  # the request repeats the message whole
        self.unrecorded = None

    def run(self, run: ToolRun) -> None:
        """Keep a tool run, to join to its call once every model call is read."""
        run.position = len(self.history)
        self.runs.append(run)

    def agent_fact(self, name: object, where: str) -> None:
        """An agent span: its agent runs from the next message on."""
        if isinstance(name, str) and name.strip():
            self.pending_agent = (name, where)

    def handoff(self, target: str, where: str) -> None:
        """A handoff: the conversation is the target's from the last message on."""
        if self.history:
            self.history[-1].agent = (target, where)
        else:
            self.pending_agent = (target, where)

    def guardrail(self, event: GuardrailEvent, trace: str | None) -> None:
        """A guardrail that ran: an event of the turn its trace's last message is in, or of
        the next message's when its trace has added none yet."""
        if self.history and trace == self.last_trace:
            self.events.setdefault(id(self.history[-1]), []).append(event)
        else:
            self.pending_events.append(event)


_PROMPTS = ("system", "developer")


def parse(record: Any) -> Conversation:
    """Build a conversation from one exported trace.

    Raises:
        TranscriptError: when the record is not a trace, a span's messages are malformed, or
            the trace holds nothing to check.
    """
    if not detect(record):
        raise TranscriptError("expected an exported trace with 'resourceSpans' or 'spans'")
    spans = _spans(record)
    read = [(where, span, attributes(span.get("attributes"), where)) for where, span in spans]
    tripped = {
        name for _, span, _ in read for name in openinference.tripwires(_status_message(span))
    }
    walk = _Walk(tripped)
    for where, span, attrs in read:
        walk.span(where, span, attrs)
    history = walk.history
    if not walk.calls:  # a trace of agent spans only: they are all there is to read
        for agent_span, agent_attrs, agent_where in walk.agent_spans:
            walk.calls += 1
            request, response, _ = _inference(agent_span, agent_attrs, agent_where)
            meta = _call_meta(
                agent_span, agent_attrs, agent_where, _standard_facts(agent_attrs, agent_where)
            )
            if response:
                response[-1].metadata = meta
            walk.exchanges.merge(request, response)
    walk.place_prompts()
    join_tool_runs(history, walk.runs)
    if walk.pending_events:  # guardrails that ran after the last message
        if not history:  # and before any: a run its guardrail stopped, with no answer
            history.append(Msg(role="assistant", agent=walk.pending_agent))
        walk.events.setdefault(id(history[-1]), []).extend(walk.pending_events)
    if not any(_checkable(m) for m in history):
        if walk.reasons:
            raise TranscriptError(
                f"the record holds no messages to check, nor tool calls or usage: {walk.reasons[0]}"
            )
        raise TranscriptError(
            "the trace has no GenAI inference span (gen_ai.operation.name 'chat') to read "
            "messages from, nor an OpenLLMetry (llm.request.type 'chat') or OpenInference "
            "(openinference.span.kind LLM) model call, nor a tool span with a tool name"
        )
    found: dict[str, Any] = {}
    root = _root([span for _, span in spans])
    if root is not None:  # where an evaluation of the whole conversation links to
        trace_id, span_id = _trace_of(root), _span_id(root)
        if trace_id is not None:
            found["trace_id"] = trace_id
        if span_id is not None:
            found["span_id"] = span_id
    traces = list(dict.fromkeys(t for _, span in spans if (t := _trace_of(span)) is not None))
    if len(traces) > 1:
        found["trace_ids"] = traces
    if walk.session is not None and walk.session != walk.conversation_id:
        found["session_id"] = walk.session
    for msg in history:  # a turn's trace is the conversation's, unless sessions join traces
        if msg.metadata and msg.metadata.get("trace_id", found) == found.get("trace_id"):
            del msg.metadata["trace_id"]
    if walk.agent is not None:
        found["agent"] = walk.agent
    metadata = record_metadata(record, found)
    built = conversation(history, id=record.get("id", walk.conversation_id), metadata=metadata)
    return guarded(built, history, walk.events)


def _root(spans: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first span (by start time) whose parent is not among `spans`: the agent's run."""
    ids = {_span_id(span) for span in spans}
    for span in spans:
        parent = _parent_id(span)
        if parent is None or parent not in ids:
            return span
    return spans[0] if spans else None
