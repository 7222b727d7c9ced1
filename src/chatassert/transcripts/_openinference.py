"""OpenInference span attributes (Arize Phoenix and the instrumentors built on its conventions),
read as part of a trace by the OpenTelemetry reader.

Every span names its kind in `openinference.span.kind`:

- `LLM`: a model call. `llm.input_messages.{i}.message.*` and `llm.output_messages.{i}.message.*`
  are its messages: `role`, `content` (or `contents.{k}.message_content.type|text|image.image.url
  |audio.audio.url`), `tool_call_id`, and `tool_calls.{j}.tool_call.id|function.name|
  function.arguments` (arguments are left out when they are `{}`); `llm.model_name`
  (`llm.response.model_name`, `llm.request.model_name`) and `llm.token_count.prompt|completion|
  total` are its facts; `input.images.{k}.image.url` are images of its input.
- `TOOL`: a tool run: `tool.name`, its arguments in `input.value` (a JSON object; any other
  input, such as a plain string, as `{"input": ...}`), its result in `output.value`, an ERROR
  status when it failed (`tool.id` or `tool_call.id`, when given, is the call it answers).
  `tool.parameters` is the tool's schema, not the call's arguments. A `TOOL` span named
  `handoff to <agent>` without a `tool.name` (how the OpenAI Agents SDK's handoffs are traced)
  hands the conversation to the agent in its `output.value`.
- `AGENT`: the agent in `agent.name` runs from there on.
- `GUARDRAIL`: a guardrail that ran, named by the span; triggered when an attribute says so
  (`guardrail.triggered`, or `triggered` / `tripwire_triggered` in a JSON `output.value`), when
  its status is ERROR, or when another span's status says its tripwire triggered (what the
  Agents SDK records).
- `CHAIN`, `RETRIEVER`, `EMBEDDING`, `RERANKER` and the rest: no part of the conversation.

With `OPENINFERENCE_HIDE_OUTPUTS` or `OPENINFERENCE_HIDE_OUTPUT_MESSAGES` an LLM span holds
no output messages, and with `OPENINFERENCE_HIDE_OUTPUT_TEXT` their text is `__REDACTED__`:
its response's text is unrecorded, saying which setting left it out. A redacted input text
(`OPENINFERENCE_HIDE_INPUT_TEXT`) is no text at all, and a redacted tool input
(`OPENINFERENCE_HIDE_INPUTS`) leaves the tool's arguments unrecorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Media, ToolCall
from chatassert.transcripts._build import (
    Msg,
    count,
    described,
    media_from_part,
    tool_call,
)
from chatassert.transcripts._spans import ToolRun, indexed, result_text, role_of

__all__ = [
    "KIND",
    "REDACTED",
    "agent_name",
    "call_facts",
    "guardrail",
    "handoff_target",
    "input_images",
    "model_call",
    "span_kind",
    "tool_run",
    "tripwires",
]

KIND = "openinference.span.kind"
"""The attribute that names an OpenInference span's kind."""

REDACTED = "__REDACTED__"
"""What OpenInference writes in place of a value its configuration hides."""

_HIDDEN_OUTPUTS = (
    "the span records no output messages: OpenInference leaves them out while "
    "OPENINFERENCE_HIDE_OUTPUTS is true; set it to false to record them"
)
_HIDDEN_OUTPUT_MESSAGES = (
    "the span records no output messages: OpenInference leaves them out while "
    "OPENINFERENCE_HIDE_OUTPUT_MESSAGES (or OPENINFERENCE_HIDE_OUTPUTS) is true; set it to "
    "false to record them"
)
_NO_OUTPUT = (
    "the span records no output (no llm.output_messages, no output.value): its instrumentation "
    "wrote none; with OPENINFERENCE_HIDE_OUTPUTS or OPENINFERENCE_HIDE_OUTPUT_MESSAGES set to "
    "true, set them to false"
)
_HIDDEN_OUTPUT_TEXT = (
    "the span's output text is __REDACTED__: OpenInference redacts it while "
    "OPENINFERENCE_HIDE_OUTPUT_TEXT is true; set it to false to record it"
)
_HIDDEN_TOOL_INPUT = (
    "the tool span's input is __REDACTED__: OpenInference redacts it while "
    "OPENINFERENCE_HIDE_INPUTS is true; set it to false to record a tool's arguments"
)

_INPUT = "llm.input_messages."
_OUTPUT = "llm.output_messages."


def span_kind(attrs: Mapping[str, Any]) -> str | None:
    """The span's OpenInference kind in upper case (`LLM`, `TOOL`, `AGENT`, ...), or None."""
    kind = attrs.get(KIND)
    return kind.upper() if isinstance(kind, str) else None


def model_call(
    attrs: Mapping[str, Any], errored: bool, where: str
) -> tuple[list[Msg], list[Msg], str | None]:
    """An LLM span's request and response messages, and why its response has no text when the
    span does not record it (else None: also for a failed call, which has no response).

    Raises:
        TranscriptError: naming the attribute, for a message that cannot be read.
    """
    request = _messages(attrs, _INPUT, where)
    images = input_images(attrs, where)
    if images:
        users = [m for m in request if m.role == "user"]
        (users[-1] if users else request[-1] if request else _holder(request)).media.extend(images)
    response = _messages(attrs, _OUTPUT, where)
    reason = None
    if not response:
        output = attrs.get("output.value")
        if output == REDACTED:
            reason = _HIDDEN_OUTPUTS
        elif output is not None:
            reason = _HIDDEN_OUTPUT_MESSAGES
        elif not errored:
            reason = _NO_OUTPUT
    elif any(m.unrecorded is not None for m in response):
        reason = _HIDDEN_OUTPUT_TEXT
    return request, response, reason


def _holder(request: list[Msg]) -> Msg:
    """A user message to hold the input's images when the span records no input message."""
    request.append(Msg(role="user"))
    return request[-1]


def call_facts(attrs: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The model and token counts of an LLM span (`model`, `input_tokens`, `output_tokens`,
    `total_tokens`).

    Raises:
        TranscriptError: naming the attribute, for a token count that is not one.
    """
    facts: dict[str, Any] = {}
    for key in ("llm.response.model_name", "llm.model_name", "llm.request.model_name"):
        model = attrs.get(key)
        if isinstance(model, str) and model:
            facts["model"] = model
            break
    for key, name in (
        ("input_tokens", "llm.token_count.prompt"),
        ("output_tokens", "llm.token_count.completion"),
        ("total_tokens", "llm.token_count.total"),
    ):
        value = count(attrs.get(name), f"{where}: {name}")
        if value is not None:
            facts[key] = value
    return facts


def input_images(attrs: Mapping[str, Any], where: str) -> list[Media]:
    """The images of an LLM span's input given apart from its messages (`input.images`)."""
    out = []
    for k, fields in indexed(attrs, "input.images."):
        url = fields.get("image.url")
        if url is not None and url != REDACTED:
            part = {"type": "image_url", "image_url": {"url": url}}
            media = media_from_part(part, "user", f"{where}: input.images.{k}.image.url")
            if media is not None:
                out.append(media)
    return out


def _messages(attrs: Mapping[str, Any], prefix: str, where: str) -> list[Msg]:
    out = []
    for i, fields in indexed(attrs, prefix):
        msg = _message(fields, f"{where}: {prefix}{i}")
        if msg is not None:
            out.append(msg)
    return out


def _message(fields: Mapping[str, Any], where: str) -> Msg | None:
    """One message (`message.*` fields), or None for one that holds only reasoning."""
    role = role_of(fields.get("message.role", "assistant"), f"{where}.message.role")
    content = fields.get("message.content")
    if content is not None and not isinstance(content, str):
        raise TranscriptError(f"{where}.message.content must be a string, got {described(content)}")
    texts, media, reasoning_only = _contents(fields, role, where)
    redacted = content == REDACTED or REDACTED in texts
    if redacted:
        content = None
    elif content is None and texts:
        content = "".join(texts)
    calls = _calls(fields, where)
    call_id = fields.get("message.tool_call_id")
    if content is None and not calls and not media and reasoning_only and not redacted:
        return None
    return Msg(
        role=role,
        content=content,
        tool_calls=calls,
        tool_call_id=None if call_id is None or role != "tool" else str(call_id),
        name=_name(fields, role),
        media=media,
        unrecorded=_HIDDEN_OUTPUT_TEXT if redacted and role == "assistant" else None,
    )


def _name(fields: Mapping[str, Any], role: str) -> str | None:
    name = fields.get("message.name")
    return name if role == "tool" and isinstance(name, str) and name else None


def _contents(
    fields: Mapping[str, Any], role: str, where: str
) -> tuple[list[str], list[Media], bool]:
    """The text and media of a message's `contents`, and whether they held reasoning only."""
    texts: list[str] = []
    media: list[Media] = []
    kinds = set()
    for k, part in indexed(fields, "message.contents."):
        at = f"{where}.message.contents.{k}"
        kind = part.get("message_content.type")
        kinds.add(kind if isinstance(kind, str) else None)
        if kind == "text":
            text = part.get("message_content.text")
            if isinstance(text, str):
                texts.append(text)
        elif kind == "image":
            url = part.get("message_content.image.image.url")
            if url != REDACTED:
                raw = {"type": "image_url", "image_url": None if url is None else {"url": url}}
                found = media_from_part(raw, role, f"{at}.message_content.image.image.url")
                if found is not None:
                    media.append(found)
        elif kind in ("audio", "video"):
            found = _media(kind, part, role, at)
            if found is not None:
                media.append(found)
    return texts, media, bool(kinds) and kinds <= {"reasoning"}


def _media(kind: str, part: Mapping[str, Any], role: str, where: str) -> Media | None:
    """An audio or video content part (`message_content.audio.audio.url|mime_type`)."""
    url = part.get(f"message_content.{kind}.{kind}.url")
    if url == REDACTED:
        return None
    fields: dict[str, Any] = {}
    if url is not None:
        fields["url"] = url
    mime = part.get(f"message_content.{kind}.{kind}.mime_type")
    if mime is not None:
        fields["mime_type"] = mime
    return media_from_part({"type": kind, "media": fields}, role, where)


def _calls(fields: Mapping[str, Any], where: str) -> list[ToolCall]:
    calls = []
    for j, call in indexed(fields, "message.tool_calls."):
        name = call.get("tool_call.function.name")
        if not isinstance(name, str):
            raise TranscriptError(
                f"{where}.message.tool_calls.{j}.tool_call.function.name must be the tool's "
                f"name, got {described(name)}"
            )
        calls.append(
            tool_call(name, call.get("tool_call.function.arguments"), call.get("tool_call.id"))
        )
    name = fields.get("message.function_call_name")  # the legacy function_call
    if isinstance(name, str) and not calls:
        calls.append(tool_call(name, fields.get("message.function_call_arguments_json")))
    return calls


def agent_name(attrs: Mapping[str, Any]) -> str | None:
    """The agent an `AGENT` span names (`agent.name`), if any."""
    name = attrs.get("agent.name")
    return name if isinstance(name, str) and name.strip() else None


_HANDOFF = "handoff to "


def handoff_target(span_name: object, attrs: Mapping[str, Any]) -> str | None:
    """The agent a `TOOL` span hands the conversation to, when it is a handoff (named
    `handoff to <agent>`, with no `tool.name`): its `output.value`, else the name's agent."""
    if "tool.name" in attrs or not isinstance(span_name, str):
        return None
    if not span_name.startswith(_HANDOFF):
        return None
    target = attrs.get("output.value")
    if not isinstance(target, str) or not target.strip() or target == REDACTED:
        target = span_name.removeprefix(_HANDOFF)
    return target if target.strip() else None


def tool_run(attrs: Mapping[str, Any], errored: bool, where: str) -> ToolRun:
    """The tool run a `TOOL` span records.

    Raises:
        TranscriptError: naming the attribute, for a tool name that is not a string.
    """
    name = attrs.get("tool.name")
    if name is not None and not isinstance(name, str):
        raise TranscriptError(f"{where}: tool.name must be a string, got {described(name)}")
    call_id = attrs.get("tool.id", attrs.get("tool_call.id"))
    run = ToolRun(
        name=name or None,
        call_id=None if call_id is None or call_id == "" else str(call_id),
        is_error=errored,
    )
    raw = attrs.get("input.value")
    if raw == REDACTED:
        run.unrecorded = _HIDDEN_TOOL_INPUT
    elif raw is not None:
        run.arguments = _arguments(raw)
    output = attrs.get("output.value")
    if output is not None:
        run.result, run.data = result_text(output)
    return run


def _arguments(raw: object) -> object:
    """A tool span's arguments from its `input.value`: a JSON object as it was written, any
    other input (a plain string, as many frameworks' tools take) as `{"input": ...}`."""
    if isinstance(raw, Mapping):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return {"input": raw}
        return raw if isinstance(value, dict) else {"input": value}
    return {"input": raw}


_TRIGGERED_KEYS = ("triggered", "tripwire_triggered")


def guardrail(
    span_name: object, attrs: Mapping[str, Any], errored: bool, tripped: set[str], where: str
) -> tuple[str, bool] | None:
    """A `GUARDRAIL` span's guardrail name and whether it triggered (see the module doc), or
    None for a span with no name. `tripped` holds the guardrails other spans' statuses say
    triggered."""
    name = attrs.get("guardrail.name", span_name)
    if not isinstance(name, str) or not name.strip():
        return None
    flag = attrs.get("guardrail.triggered")
    if isinstance(flag, bool):
        return name, flag
    output = attrs.get("output.value")
    if isinstance(output, str) and output.startswith("{"):
        try:
            output = json.loads(output)
        except (ValueError, RecursionError):
            output = None
    if isinstance(output, Mapping):
        for key in _TRIGGERED_KEYS:
            if isinstance(output.get(key), bool):
                return name, output[key]
    return name, errored or name in tripped


_TRIPWIRE = re.compile(r"Guardrail tripwire triggered\b.*?['\"]guardrail['\"]: ['\"]([^'\"]+)")


def tripwires(message: object) -> list[str]:
    """The guardrails a span status's message says tripped (the Agents SDK's `Guardrail
    tripwire triggered: {'guardrail': 'NAME', ...}`).

    Example:
        >>> tripwires("Guardrail tripwire triggered: {'guardrail': 'no_pii', 'type': 'input'}")
        ['no_pii']
    """
    if not isinstance(message, str) or "tripwire" not in message:
        return []
    return _TRIPWIRE.findall(message)
