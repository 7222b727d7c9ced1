"""OpenLLMetry (Traceloop) span attributes, read as part of a trace by the OpenTelemetry reader.

OpenLLMetry's instrumentations (`opentelemetry-instrumentation-openai`, `-anthropic`, ...,
and the Traceloop SDK) write a model call's messages as flattened attributes on its span
(`openai.chat`, with `llm.request.type` `chat` or `completion`):

- `gen_ai.prompt.{i}.role|content|tool_call_id` and `gen_ai.prompt.{i}.tool_calls.{j}.id|name|
  arguments`: the request's messages (a legacy completion's prompt is `gen_ai.prompt.0.user`);
- `gen_ai.completion.{i}.role|content|refusal|finish_reason` and
  `gen_ai.completion.{i}.tool_calls.{j}.id|name|arguments`: the response's choices;
- `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.usage.prompt_tokens|
  completion_tokens` (or `input_tokens|output_tokens`) and `llm.usage.total_tokens` (or
  `gen_ai.usage.total_tokens`): the call's facts.

A content given as a list of parts is written as its JSON text: its text parts are the
message's text and its image and audio parts its media. With `TRACELOOP_TRACE_CONTENT=false`
the span holds none of the prompts and completions: its response's text is unrecorded.

The Traceloop SDK's decorators add spans with `traceloop.span.kind` (`workflow`, `task`,
`agent`, `tool`), `traceloop.entity.name` and, with content tracing on,
`traceloop.entity.input` (`{"args": [...], "kwargs": {...}}`, JSON) and
`traceloop.entity.output` (the return value, JSON): a `tool` span is a run of that tool, an
`agent` span names the agent that runs from there on.

Newer OpenLLMetry releases write the standard GenAI attributes (`gen_ai.input.messages`)
instead, which the OpenTelemetry reader reads as such.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Media, ToolCall
from chatassert.transcripts._build import (
    Msg,
    count,
    described,
    media_parts,
    text_of,
    tool_call,
)
from chatassert.transcripts._spans import ToolRun, indexed, result_text, role_of

__all__ = [
    "CONTENT_OFF",
    "agent_name",
    "call_facts",
    "has_messages",
    "is_model_call",
    "model_call",
    "span_kind",
    "tool_run",
]

CONTENT_OFF = (
    "the span records no prompt or completion: OpenLLMetry (Traceloop) records them only "
    "while TRACELOOP_TRACE_CONTENT is true (its default); unset it or set it to true"
)
"""Why a model-call span without its messages has no text, and how to record it."""

_TOOL_CONTENT_OFF = (
    "the tool span records no input: the Traceloop SDK records a tool's arguments only while "
    "TRACELOOP_TRACE_CONTENT is true (its default); unset it or set it to true"
)

_PROMPT = "gen_ai.prompt."
_COMPLETION = "gen_ai.completion."
_REQUEST_TYPES = ("chat", "completion")


def is_model_call(attrs: Mapping[str, Any]) -> bool:
    """Whether a span's attributes are an OpenLLMetry model call: `llm.request.type` `chat` or
    `completion`, or flattened `gen_ai.prompt.*` / `gen_ai.completion.*` messages."""
    kind = attrs.get("llm.request.type")
    if isinstance(kind, str) and kind in _REQUEST_TYPES:
        return True
    return has_messages(attrs)


def has_messages(attrs: Mapping[str, Any]) -> bool:
    """Whether a span's attributes hold flattened `gen_ai.prompt.*` / `gen_ai.completion.*`
    messages."""
    return any(key.startswith((_PROMPT, _COMPLETION)) for key in attrs)


def span_kind(attrs: Mapping[str, Any]) -> str | None:
    """The span's `traceloop.span.kind` (`workflow`, `task`, `agent`, `tool`), if a string."""
    kind = attrs.get("traceloop.span.kind")
    return kind if isinstance(kind, str) else None


def model_call(attrs: Mapping[str, Any], where: str) -> tuple[list[Msg], list[Msg], str | None]:
    """A model-call span's request and response messages, and why its response has no text
    when the span records no messages at all (content tracing off), else None.

    Raises:
        TranscriptError: naming the attribute, for a message that cannot be read.
    """
    request = [
        _message(fields, f"{where}: {_PROMPT}{i}", "user") for i, fields in indexed(attrs, _PROMPT)
    ]
    response = [
        _message(fields, f"{where}: {_COMPLETION}{i}", "assistant")
        for i, fields in indexed(attrs, _COMPLETION)
    ]
    if not request and not response:
        return [], [], CONTENT_OFF
    return request, response, None


def call_facts(attrs: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The model and token counts of a model-call span (`model`, `input_tokens`,
    `output_tokens`, `total_tokens`).

    Raises:
        TranscriptError: naming the attribute, for a token count that is not one.
    """
    facts: dict[str, Any] = {}
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    if isinstance(model, str):
        facts["model"] = model
    for key, names in (
        ("input_tokens", ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")),
        ("output_tokens", ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")),
        ("total_tokens", ("llm.usage.total_tokens", "gen_ai.usage.total_tokens")),
    ):
        for name in names:
            value = count(attrs.get(name), f"{where}: {name}")
            if value is not None:
                facts[key] = value
                break
    return facts


def _role(fields: Mapping[str, Any], where: str, default: str) -> str:
    return role_of(fields.get("role", default), f"{where}.role")


def _content(value: object, role: str, where: str) -> tuple[str | None, list[Media]]:
    """A message content's text and media: a string, or the JSON text of a list of parts."""
    if value is None:
        return None, []
    if not isinstance(value, str):
        raise TranscriptError(f"{where} must be a string, got {described(value)}")
    if value.startswith("[") and value.endswith("]"):
        try:
            parts = json.loads(value)
        except (ValueError, RecursionError):
            return value, []
        if (
            isinstance(parts, list)
            and parts
            and all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parts)
        ):
            return text_of(parts, where=where), media_parts(parts, role, where)
    return value, []


def _calls(fields: Mapping[str, Any], where: str) -> list[ToolCall]:
    calls = []
    for j, call in indexed(fields, "tool_calls."):
        name = call.get("name")
        if not isinstance(name, str):
            raise TranscriptError(
                f"{where}.tool_calls.{j}.name must be the tool's name, got {described(name)}"
            )
        call_id = call.get("id")
        calls.append(tool_call(name, call.get("arguments"), None if call_id is None else call_id))
    return calls


def _message(fields: Mapping[str, Any], where: str, default_role: str) -> Msg:
    if "role" not in fields and "user" in fields:  # a legacy completion's prompt
        text, media = _content(fields["user"], "user", f"{where}.user")
        return Msg(role="user", content=text, media=media)
    role = _role(fields, where, default_role)
    text, media = _content(fields.get("content"), role, f"{where}.content")
    refusal = fields.get("refusal")
    if text is None and isinstance(refusal, str):  # the model declined: its refusal is its text
        text = refusal
    call_id = fields.get("tool_call_id")
    return Msg(
        role=role,
        content=text,
        tool_calls=_calls(fields, where),
        tool_call_id=None if call_id is None or role != "tool" else str(call_id),
        media=media,
    )


def agent_name(attrs: Mapping[str, Any]) -> str | None:
    """The agent an `agent` span names (`traceloop.entity.name`), if any."""
    name = attrs.get("traceloop.entity.name")
    return name if isinstance(name, str) and name.strip() else None


def tool_run(span_name: object, attrs: Mapping[str, Any], errored: bool, where: str) -> ToolRun:
    """The tool run a `tool` span records: the tool named by `traceloop.entity.name` (else the
    span's name less its `.tool` suffix), its arguments from `traceloop.entity.input` (keyword
    arguments by name; positional ones, which have none, as `args`), its result from
    `traceloop.entity.output`.

    Raises:
        TranscriptError: naming the attribute, for an input or output that is not JSON.
    """
    name = agent_name(attrs)
    if name is None and isinstance(span_name, str) and span_name.endswith(".tool"):
        name = span_name.removesuffix(".tool") or None
    run = ToolRun(name=name, call_id=None, is_error=errored)
    raw = attrs.get("traceloop.entity.input")
    if raw is None:
        run.unrecorded = _TOOL_CONTENT_OFF
    else:
        run.arguments = _arguments(_json(raw, f"{where}: traceloop.entity.input"))
    output = attrs.get("traceloop.entity.output")
    if output is not None:
        run.result, run.data = result_text(_json(output, f"{where}: traceloop.entity.output"))
    return run


def _json(value: object, where: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except RecursionError:
        raise TranscriptError(f"{where} is JSON nested too deeply to read") from None
    except ValueError:
        return value  # not JSON: the text as it was written


def _arguments(value: object) -> dict[str, Any]:
    """A tool's arguments from the Traceloop SDK's `{"args": [...], "kwargs": {...}}`."""
    if isinstance(value, Mapping) and set(value) <= {"args", "kwargs"}:
        args, kwargs = value.get("args"), value.get("kwargs")
        out = dict(kwargs) if isinstance(kwargs, Mapping) else {}
        if args:
            out.setdefault("args", args)
        return out
    if isinstance(value, Mapping):
        return dict(value)
    return {"input": value}
