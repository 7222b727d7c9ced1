"""The OpenTelemetry GenAI adapter: exported traces, one per line or a whole export.

Shapes read: OTLP JSON (`{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`, with
attributes as `[{"key", "value": {"stringValue": ...}}]`, ids in hex or base64), a plain
`{"spans": [...]}` with attributes as a mapping, or one span on its own (`traceId`, `spanId`,
`attributes`: a span-per-line log, which `check --group-by` joins into conversations). Spans
are ordered by start time.

A record whose spans belong to several conversations (an OTLP JSON export of many traces) is
split into them (`parts`): spans are grouped by their trace, and traces by the conversation
they belong to when a span names one (`gen_ai.conversation.id`, else `session.id`); each
group is named by that id, else by its trace id. (`thread.id` is not used: in OpenTelemetry it
names an operating-system thread, not a chat thread.)

- Inference spans (`gen_ai.operation.name` `chat`, `text_completion` or `generate_content`) give
  the messages: the `gen_ai.system_instructions`, `gen_ai.input.messages` and
  `gen_ai.output.messages` attributes (JSON with `parts` of type `text`, `tool_call`,
  `tool_call_response`), or the older message events (`gen_ai.system.message`,
  `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`)
  with their body in `body` or a JSON `gen_ai.event.content` attribute. Each span's model,
  `gen_ai.usage.input_tokens`/`output_tokens` and duration become its turn's metadata.
- Tool-execution spans (`execute_tool`: `gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) supply results the inference spans
  do not show, and mark a result `is_error` when the span's status is ERROR or it has
  `error.type`.

As in the other formats, the line's `id`, `metadata` and case keys (`case`, `test_case`,
`name`, `tags`) are kept, so a trace can name the suite case it answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts._build import (
    Exchanges,
    Msg,
    conversation,
    count,
    described,
    list_at,
    record_metadata,
    tool_call,
)

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


def detect(record: Any) -> bool:
    """Whether `record` is an exported trace (`resourceSpans`, or `spans` of span objects), or
    one span of a span-per-line log (read as a trace of that span)."""
    if not isinstance(record, Mapping):
        return False
    if isinstance(record.get("resourceSpans"), list) or is_span(record):
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
    if isinstance(record.get("resourceSpans"), list):
        places: list[tuple[str, object]] = []
        for i, rs in enumerate(record["resourceSpans"]):
            at = f"resourceSpans[{i}]"
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


def _parts_message(raw: object, where: str) -> list[Msg]:
    """A message of the current conventions: `{"role", "parts": [...]}`."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("role"), str):
        raise TranscriptError(f"{where} is not a message with a 'role'")
    role = raw["role"]
    texts: list[str] = []
    calls = []
    results: list[Msg] = []
    for j, part in enumerate(list_at(raw.get("parts"), f"{where}.parts")):
        if not isinstance(part, Mapping):
            raise TranscriptError(f"{where}.parts[{j}] is not an object")
        kind = part.get("type")
        if kind == "text":
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
    text = "".join(texts) if texts else None
    if results:
        return results + ([Msg(role="user", content=text)] if text and role == "user" else [])
    return [Msg(role=role, content=text, tool_calls=calls)]


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


def _inference(
    span: Mapping[str, Any], attrs: Mapping[str, Any], where: str
) -> tuple[list[Msg], list[Msg]]:
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
    else:
        for i, event in enumerate(list_at(span.get("events"), f"{where}: events")):
            if not isinstance(event, Mapping):
                continue
            msg = _event_message(event, f"{where}.events[{i}]")
            if msg is not None:
                (response if event.get("name") == "gen_ai.choice" else request).append(msg)
    meta: dict[str, Any] = {}
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    if isinstance(model, str):
        meta["model"] = model
    for key, older in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        name = f"gen_ai.usage.{key}" if f"gen_ai.usage.{key}" in attrs else f"gen_ai.usage.{older}"
        value = count(attrs.get(name), f"{where}: {name}")
        if value is not None:
            meta[key] = value
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
    if response:
        response[-1].metadata = meta
    return request, response


def parse(record: Any) -> Conversation:
    """Build a conversation from one exported trace.

    Raises:
        TranscriptError: when the record is not a trace or a span's messages are malformed.
    """
    if not detect(record):
        raise TranscriptError("expected an exported trace with 'resourceSpans' or 'spans'")
    exchanges = Exchanges()
    history = exchanges.history
    tools: dict[str, tuple[Mapping[str, Any], bool]] = {}
    conversation_id: Any = None
    session: str | None = None
    agent: Any = None
    inference = 0
    agent_spans: list[tuple[Any, dict[str, Any], str]] = []
    spans = _spans(record)
    for where, span in spans:
        attrs = attributes(span.get("attributes"), where)
        conversation_id = conversation_id or attrs.get("gen_ai.conversation.id")
        session = session or session_of(attrs)
        agent = agent or attrs.get("gen_ai.agent.name")
        operation = attrs.get("gen_ai.operation.name")
        if operation is not None and not isinstance(operation, str):
            raise TranscriptError(
                f"{where}: gen_ai.operation.name must be a string, got {described(operation)}"
            )
        if operation == "execute_tool":
            call_id = attrs.get("gen_ai.tool.call.id")
            if call_id is not None:
                tools[str(call_id)] = (attrs, _is_error(span, attrs))
        elif operation in _INFERENCE or (operation is None and "gen_ai.input.messages" in attrs):
            inference += 1
            exchanges.merge(*_inference(span, attrs, where))
        elif "gen_ai.input.messages" in attrs:  # an agent span: its messages repeat the chats'
            agent_spans.append((span, attrs, where))
    if not inference:  # a trace of agent spans only: they are all there is to read
        for agent_span, agent_attrs, agent_where in agent_spans:
            inference += 1
            exchanges.merge(*_inference(agent_span, agent_attrs, agent_where))
    if not inference:
        raise TranscriptError(
            "the trace has no GenAI inference span (gen_ai.operation.name "
            "'chat') to read messages from"
        )
    _apply_tool_spans(history, tools)
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
    if session is not None and session != conversation_id:
        found["session_id"] = session
    for msg in history:  # a turn's trace is the conversation's, unless sessions join traces
        if msg.metadata and msg.metadata.get("trace_id", found) == found.get("trace_id"):
            del msg.metadata["trace_id"]
    if agent is not None:
        found["agent"] = agent
    metadata = record_metadata(record, found)
    return conversation(history, id=record.get("id", conversation_id), metadata=metadata)


def _root(spans: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first span (by start time) whose parent is not among `spans`: the agent's run."""
    ids = {_span_id(span) for span in spans}
    for span in spans:
        parent = _parent_id(span)
        if parent is None or parent not in ids:
            return span
    return spans[0] if spans else None


def _apply_tool_spans(
    history: list[Msg], tools: Mapping[str, tuple[Mapping[str, Any], bool]]
) -> None:
    """Mark results errored from their spans, and add results only the tool spans show."""
    answered = set()
    for msg in history:
        if msg.role == "tool" and msg.tool_call_id is not None and msg.tool_call_id in tools:
            answered.add(msg.tool_call_id)
            attrs, errored = tools[msg.tool_call_id]
            msg.is_error = msg.is_error or errored
    out: list[Msg] = []
    position = 0
    while position < len(history):
        msg = history[position]
        position += 1
        out.append(msg)
        if msg.role != "assistant":
            continue
        missing = [c for c in msg.tool_calls if c.id in tools and c.id not in answered]
        if not missing:
            continue
        while position < len(history) and history[position].role == "tool":
            out.append(history[position])
            position += 1
        for call in missing:  # after the results the message's calls already had
            assert call.id is not None
            attrs, errored = tools[call.id]
            result = attrs.get("gen_ai.tool.call.result", attrs.get("error.type", ""))
            text = result if isinstance(result, str) else json.dumps(result)
            out.append(Msg(role="tool", content=text, tool_call_id=call.id, is_error=errored))
            answered.add(call.id)
    history[:] = out
