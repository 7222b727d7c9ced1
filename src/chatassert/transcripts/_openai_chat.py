"""The OpenAI Chat Completions adapter.

Three line shapes are read:

- a transcript: `{"messages": [...], "id"?, "metadata"?, "model"?, "usage"?, "latency_ms"?,
  "cost"?}` (the fine-tuning and most logging formats);
- one call: `{"request": {"messages": [...], "model"?}, "response": {"choices": [{"message":
  {...}}], "usage"?, "model"?}, "latency_ms"?, "cost"?}`;
- several calls of one conversation: `{"calls": [<call>, ...], "id"?, "metadata"?}` or a JSON
  array of calls. Each request usually repeats the history; only its new messages are added.

Tool calls come from `tool_calls[].function` (arguments as a JSON string, kept with its parse
error when invalid) or the legacy `function_call`; `tool` messages are linked to their calls by
`tool_call_id`, and legacy `function` messages (`{"role": "function", "name", "content"}`) are
read as tool results too. Media: `image_url` and `input_audio` content parts, and an assistant's
`audio` (its base64 `data`), become the message's media parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, Media, make_media
from chatassert.transcripts._build import (
    Msg,
    call_metadata,
    conversation,
    fold_calls,
    media_parts,
    message_agent,
    parent,
    record_metadata,
    text_of,
    tool_call,
)

__all__ = ["detect", "parse"]


def _is_call(record: object) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("request"), Mapping)
        and isinstance(record["request"].get("messages"), list)
    )


def detect(record: Any) -> bool:
    """Whether `record` is a chat-completions transcript, call, or list of calls."""
    if isinstance(record, dict):
        if isinstance(record.get("messages"), list) or _is_call(record):
            return True
        calls = record.get("calls")
        return isinstance(calls, list) and bool(calls) and _is_call(calls[0])
    return isinstance(record, list) and bool(record) and _is_call(record[0])


def message(raw: object, where: str, index: int | None = None) -> Msg:
    """Normalise one chat-completions message (at `where`, or at `where[index]` in a list).

    Most logged messages are plain: a role, string content, maybe tool calls. Their path
    reads only the keys they have and builds the message's place in the record (for error
    messages) only when something needs it.
    """
    if not isinstance(raw, dict):
        raise TranscriptError(f"{_place(where, index)} is not a message object")
    role = raw.get("role")
    if not isinstance(role, str):
        raise TranscriptError(f"{_place(where, index)} has no 'role'")
    calls = []
    raw_calls = raw.get("tool_calls")
    if raw_calls:
        if not isinstance(raw_calls, list):
            raise TranscriptError(f"{_place(where, index)}.tool_calls is not a list")
        for j, call in enumerate(raw_calls):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                raise TranscriptError(f"{_place(where, index)}.tool_calls[{j}] has no 'function'")
            calls.append(tool_call(fn.get("name"), fn.get("arguments"), call.get("id")))
    else:
        fn = raw.get("function_call")
        if fn is not None and isinstance(fn, Mapping):  # the legacy single-call field
            calls.append(tool_call(fn.get("name"), fn.get("arguments")))
    name = raw.get("name")
    call_id = raw.get("tool_call_id")
    if role == "function":  # the legacy result of a `function_call`
        role = "tool"
    content = raw.get("content")
    media: list[Media] = []
    if content is not None and type(content) is not str:  # content parts: text and media
        at = f"{_place(where, index)}.content"
        content, media = text_of(content, where=at), media_parts(content, role, at)
    audio = raw.get("audio")
    if audio is not None and isinstance(audio, Mapping) and isinstance(audio.get("data"), str):
        at = f"{_place(where, index)}.audio"  # a spoken reply
        media.append(make_media(at, kind="audio", data=audio["data"], role=role))
    if not content:
        refusal = raw.get("refusal")
        if isinstance(refusal, str) and refusal:
            content = refusal  # the assistant declined: its refusal is what it said
    return Msg(
        role=role,
        content=content,
        tool_calls=calls,
        tool_call_id=None if call_id is None else str(call_id),
        name=name if isinstance(name, str) else None,
        is_error=raw.get("is_error") is True,
        media=media,
        agent=None if raw.get("metadata") is None else message_agent(raw, _place(where, index)),
    )


def _place(where: str, index: int | None) -> str:
    return where if index is None else f"{where}[{index}]"


def messages(raw: object, where: str = "messages") -> list[Msg]:
    """Normalise a list of chat-completions messages."""
    if not isinstance(raw, list):
        raise TranscriptError(f"{where} is not a list")
    return [message(m, where, i) for i, m in enumerate(raw)]


def _response_messages(response: object, extra: Mapping[str, Any], where: str) -> list[Msg]:
    if response is None:
        return []
    if not isinstance(response, dict):
        raise TranscriptError(f"{where} is not an object")
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        raise TranscriptError(f"{where} has no 'choices'")
    first = choices[0]
    if not isinstance(first, dict) or not isinstance(first.get("message"), Mapping):
        raise TranscriptError(f"{where}.choices[0] has no 'message'")
    out = message(first["message"], f"{where}.choices[0].message")
    meta = call_metadata(extra, response, places=(parent(where), where))
    finish = first.get("finish_reason")
    if isinstance(finish, str):
        meta["finish_reason"] = finish
    out.metadata = meta
    return [out]


def _calls(calls: Sequence[object], where: str) -> tuple[list[Msg], dict[str, Any]]:
    history = fold_calls(
        calls,
        where,
        _is_call,
        lambda request, at: messages(request["messages"], f"{at}.messages"),
        _response_messages,
    )
    models = (c["request"].get("model") for c in calls if isinstance(c, dict))
    model = next((m for m in models if isinstance(m, str)), None)
    return history, ({"model": model} if model is not None else {})


def parse(record: Any) -> Conversation:
    """Build a conversation from any of the three chat-completions line shapes.

    Raises:
        TranscriptError: when the record is not of those shapes or is malformed.
    """
    if isinstance(record, list):
        history, meta = _calls(record, "record")
        return conversation(history, metadata=meta)
    if not isinstance(record, dict):
        raise TranscriptError("expected an object with a 'messages' list (OpenAI chat format)")
    if isinstance(record.get("messages"), list):
        msgs = messages(record["messages"])
        return conversation(msgs, id=record.get("id"), metadata=record_metadata(record))
    if _is_call(record):
        history, meta = _calls([record], "")
        return conversation(history, id=record.get("id"), metadata=record_metadata(record, meta))
    calls = record.get("calls")
    if isinstance(calls, list):
        history, meta = _calls(calls, "calls")
        return conversation(history, id=record.get("id"), metadata=record_metadata(record, meta))
    raise TranscriptError(
        "expected an object with a 'messages' list, a {request, response} "
        "call, or 'calls' (OpenAI chat format)"
    )
