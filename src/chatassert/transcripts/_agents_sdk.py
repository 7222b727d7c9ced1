"""The OpenAI Agents SDK trace adapter: one exported trace per record.

The SDK's tracing exports a trace as `{"object": "trace", "id", "workflow_name", "group_id",
"metadata"}` and each span as `{"object": "trace.span", "id", "trace_id", "parent_id",
"started_at", "ended_at", "span_data": {"type", ...}, "error"}`. A record is one trace with its
spans, in any of these shapes:

- the trace object with its spans under `spans`: `{"object": "trace", ..., "spans": [...]}`;
- `{"trace": {...}, "spans": [...]}`;
- the exporter's batch `{"data": [<trace>, <span>, ...]}`, or a bare JSON list of them.

A batch or list holding spans of several traces is one conversation per trace (`parts`, named
by trace id, in order of first appearance). A line holding a single span is not a trace: it is
reported, not read (a trace spread over many lines must be gathered into one record first).

Spans are taken in `started_at` order. `generation` spans (a chat-completions model) give the
messages: their `input` and `output` are chat-completions messages; `response` spans give them
when the exporter wrote the response's `input` items and `response` object (the SDK's default
export keeps only `response_id` and `usage`). `function` spans are the tool calls: `name`,
`input` (the arguments, a JSON string) and `output`, errored when the span has an `error`; they
mark or add the results of the calls the messages show, and when no span carries messages they
are the turn's calls and results. `agent` spans name the agent that runs from there on, and
`handoff` spans (`from_agent`, `to_agent`) hand the conversation over: `Turn.agent`.
`guardrail` spans (`name`, `triggered`) are guardrail events of the turn they ran in.
Once the conversation has begun, the system prompt that opens a model call's input (the
instructions of the agent then running) is not added again as a message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, GuardrailEvent
from chatassert.transcripts._build import (
    Msg,
    SpanWalk,
    call_metadata,
    conversation,
    described,
    guarded,
    iso_latency,
    match_tool_runs,
    record_metadata,
    tool_call,
    unrecorded_call,
)
from chatassert.transcripts._openai_chat import messages as chat_messages
from chatassert.transcripts._openai_responses import items as response_items

__all__ = ["detect", "parse", "parts"]

_OBJECTS = frozenset({"trace", "trace.span"})


def _object(value: Mapping[str, Any]) -> str | None:
    """The `object` an export names (`trace`, `trace.span`), or None: a value of any other
    type (a list, an object) names none, and is never looked up in a set."""
    kind = value.get("object")
    return kind if isinstance(kind, str) and kind in _OBJECTS else None


def _is_item(value: object) -> bool:
    return isinstance(value, Mapping) and (
        _object(value) is not None or isinstance(value.get("span_data"), Mapping)
    )


def _is_span(value: object) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("span_data"), Mapping)


def detect(record: Any) -> bool:
    """Whether `record` is an Agents SDK trace export (a trace, its spans, or a batch of them)."""
    if isinstance(record, list):
        return bool(record) and _is_item(record[0])
    if not isinstance(record, Mapping):
        return False
    if _object(record) is not None:
        return True
    spans = record.get("spans")
    if isinstance(spans, list) and spans and _is_span(spans[0]):
        return True
    data = record.get("data")
    return isinstance(data, list) and bool(data) and _is_item(data[0])


def _items(record: Any) -> list[Any]:
    """The trace and span objects of a batch or list record."""
    if isinstance(record, list):
        return record
    data = record.get("data") if isinstance(record, Mapping) else None
    return data if isinstance(data, list) else []


def _groups(items: list[Any]) -> dict[str, dict[str, Any]]:
    """The traces of a batch by id, in order of first appearance: `{"trace"?, "spans"}`."""
    groups: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TranscriptError(f"[{i}] is not a trace or span object, got {described(item)}")
        if item.get("object") == "trace":
            key = str(item.get("id"))
            groups.setdefault(key, {"spans": []})["trace"] = item
        else:
            key = str(item.get("trace_id"))
            groups.setdefault(key, {"spans": []})["spans"].append(item)
    return groups


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """The traces of a batch or list that holds several, each `(trace id, {"trace", "spans"})`;
    None for a record of one trace."""
    items = _items(record)
    if not items:
        return None
    groups = _groups(items)
    if len(groups) < 2:
        return None
    return list(groups.items())


def _trace_and_spans(record: Any) -> tuple[Mapping[str, Any], list[Any]]:
    if isinstance(record, Mapping) and record.get("object") == "trace.span":
        raise TranscriptError(
            f"the record is one span (of trace {record.get('trace_id')!r}), not a trace: a "
            "record must hold a whole trace, its spans in one JSON document or list"
        )
    items = _items(record)
    if items:
        groups = _groups(items)
        if len(groups) > 1:
            raise TranscriptError(
                f"the record holds {len(groups)} traces: read it with read_records, which "
                "reads each as a conversation"
            )
        ((_, group),) = groups.items()
        return group.get("trace") or {}, group["spans"]
    if not isinstance(record, Mapping):
        raise TranscriptError(
            f"expected an Agents SDK trace (an object, or a list of trace and span objects), "
            f"got {described(record)}"
        )
    trace = record.get("trace", record)
    if not isinstance(trace, Mapping):
        raise TranscriptError(f"'trace' must be an object, got {described(trace)}")
    spans = record.get("spans", [])
    if not isinstance(spans, list):
        raise TranscriptError(f"'spans' must be a list, got {described(spans)}")
    return trace, spans


def _span_data(span: object, index: int) -> tuple[str, Mapping[str, Any], str]:
    """A span's name for messages, its `span_data` and its type."""
    if not isinstance(span, Mapping):
        raise TranscriptError(f"spans[{index}] is not a span object, got {described(span)}")
    where = f"span {span.get('id', index)!r}"
    data = span.get("span_data")
    if not isinstance(data, Mapping):
        raise TranscriptError(f"{where} has no 'span_data' object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise TranscriptError(f"{where}: span_data.type must be a string, got {described(kind)}")
    return where, data, kind


def _has_messages(kind: str, data: Mapping[str, Any]) -> bool:
    if kind == "generation":
        return data.get("input") is not None or data.get("output") is not None
    if kind == "response":
        response = data.get("response")
        return data.get("input") is not None or (
            isinstance(response, Mapping) and isinstance(response.get("output"), list)
        )
    return False


def _model_call(
    span: Mapping[str, Any], kind: str, data: Mapping[str, Any], where: str
) -> tuple[list[Msg], list[Msg]]:
    """The request and response messages of a generation or response span."""
    at = f"{where}.span_data"
    if kind == "generation":
        raw_in, raw_out = data.get("input"), data.get("output")
        request = [] if raw_in is None else chat_messages(raw_in, f"{at}.input")
        response = [] if raw_out is None else chat_messages(raw_out, f"{at}.output")
        meta = call_metadata(data, places=(at,))
    else:
        raw_in, answer = data.get("input"), data.get("response")
        request = [] if raw_in is None else response_items(raw_in, f"{at}.input")
        response = []
        if isinstance(answer, Mapping) and isinstance(answer.get("output"), list):
            response = response_items(answer["output"], f"{at}.response.output")
        meta = call_metadata(data, answer, places=(at, f"{at}.response"))
    latency = iso_latency(span.get("started_at"), span.get("ended_at"))
    if latency is not None:
        meta.setdefault("latency_ms", latency)
    if response:
        response[-1].metadata = meta
    return request, response


def _guardrail(data: Mapping[str, Any], where: str) -> GuardrailEvent:
    name, triggered = data.get("name"), data.get("triggered", False)
    if not isinstance(name, str) or not name:
        raise TranscriptError(f"{where}: a guardrail span's name must be a string")
    if not isinstance(triggered, bool):
        raise TranscriptError(
            f"{where}: span_data.triggered must be true or false, got {described(triggered)}"
        )
    return GuardrailEvent(name=name, triggered=triggered)


def _function(
    span: Mapping[str, Any], data: Mapping[str, Any], where: str
) -> tuple[str, Any, str, bool]:
    """A function span's tool name, arguments, result text and whether it errored."""
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(f"{where}: a function span's name must be a string")
    error = span.get("error")
    output = data.get("output")
    text = output if isinstance(output, str) else "" if output is None else json.dumps(output)
    if error is not None and not text:
        message = error.get("message") if isinstance(error, Mapping) else error
        text = message if isinstance(message, str) else json.dumps(message)
    return name, data.get("input"), text, error is not None


_NO_TEXT = (
    "the trace keeps only the model call's id and usage (the OpenAI Agents SDK's default "
    "export of a response span); record the messages by exporting the span's input and "
    "response (a trace processor of your own), or run the agent with "
    "OpenAIChatCompletionsModel, whose generation spans keep them"
)
_NO_ARGUMENTS = (
    "the function span has no input (the OpenAI Agents SDK leaves it out when "
    "RunConfig.trace_include_sensitive_data is false)"
)


class _Trace(SpanWalk):
    """Walks a trace's spans in order, collecting messages and the facts attached to them."""

    def __init__(self, spans_only: bool) -> None:
        super().__init__()
        self.spans_only = spans_only
        self.functions: list[tuple[str, str, bool]] = []

    def span(self, span: Mapping[str, Any], index: int) -> None:
        where, data, kind = _span_data(span, index)
        before = len(self.history)
        if self.spans_only and kind in ("generation", "response"):  # a call whose text is not kept
            meta = call_metadata(data, places=(f"{where}.span_data",))
            latency = iso_latency(span.get("started_at"), span.get("ended_at"))
            if latency is not None:
                meta.setdefault("latency_ms", latency)
            self.history.append(Msg(role="assistant", metadata=meta, unrecorded=_NO_TEXT))
        elif kind in ("generation", "response"):
            request, response = _model_call(span, kind, data, where)
            if self.history:  # a later agent's instructions open its requests: not new messages
                start = 0
                while start < len(request) and request[start].role in ("system", "developer"):
                    start += 1
                request = request[start:]
            self.exchanges.merge(request, response)
        elif kind == "function":
            name, arguments, text, errored = _function(span, data, where)
            if self.spans_only:
                call_id = str(span.get("id", f"call_{index}"))
                call = (
                    unrecorded_call(name, call_id, _NO_ARGUMENTS)
                    if arguments is None
                    else tool_call(name, arguments, call_id)
                )
                self.history.append(Msg(role="assistant", tool_calls=[call]))
                self.history.append(
                    Msg(role="tool", content=text, tool_call_id=call_id, is_error=errored)
                )
            else:
                self.functions.append((name, text, errored))
        elif kind == "agent":
            agent = data.get("name")
            if isinstance(agent, str) and agent.strip():
                self.pending_agent = (agent, f"{where}.span_data.name")
        elif kind == "handoff":
            target = data.get("to_agent")
            if isinstance(target, str) and target.strip():
                fact = (target, f"{where}.span_data.to_agent")
                if self.history:
                    self.history[-1].agent = fact
                else:
                    self.pending_agent = fact
        elif kind == "guardrail":
            event = _guardrail(data, where)
            if self.history:
                self.events.setdefault(id(self.history[-1]), []).append(event)
            else:
                self.pending_events.append(event)
        self.added(before)


def parse(record: Any) -> Conversation:
    """Build a conversation from one exported trace.

    Raises:
        TranscriptError: when the record is not one trace or a span is malformed.
    """
    trace, spans = _trace_and_spans(record)
    read = [(_span_data(span, i), span, i) for i, span in enumerate(spans)]
    if not read:
        raise TranscriptError("the trace has no spans to read")
    read.sort(key=lambda entry: str(entry[1].get("started_at") or ""))
    spans_only = not any(_has_messages(kind, data) for (_, data, kind), _, _ in read)
    walk = _Trace(spans_only)
    for _, span, index in read:
        walk.span(span, index)
    if walk.pending_events and walk.history:
        walk.events.setdefault(id(walk.history[0]), []).extend(walk.pending_events)
    match_tool_runs(walk.history, walk.functions)
    if not walk.history:
        raise TranscriptError(
            "the trace holds no model messages and no function calls to check (the SDK's "
            "default export keeps only a response span's id: export spans with their input "
            "and response)"
        )
    trace_id = trace.get("id") or next(
        (s.get("trace_id") for _, s, _ in read if s.get("trace_id")), None
    )
    found: dict[str, Any] = {}
    for key, value in (
        ("trace_id", trace_id),
        ("workflow_name", trace.get("workflow_name")),
        ("group_id", trace.get("group_id")),
    ):
        if isinstance(value, str) and value:
            found[key] = value
    metadata = record_metadata(trace, found)
    built = conversation(walk.history, id=trace_id, metadata=metadata)
    return guarded(built, walk.history, walk.events)
