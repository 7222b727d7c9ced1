"""The Anthropic Messages adapter.

Line shapes read:

- a transcript: `{"system"?: ..., "messages": [...], "response"?: <Message>, "model"?,
  "usage"?, "id"?, "metadata"?}`;
- one call: `{"request": {"system"?, "messages": [...], "model"?}, "response": {"type":
  "message", "role": "assistant", "content": [...], "usage"?, "stop_reason"?}}`;
- several calls: `{"calls": [<call>, ...]}` or a JSON array of calls;
- a bare JSON array of messages holding an Anthropic-only block (`tool_use`, `tool_result`,
  `thinking`, ...): the `messages` of a transcript without the object around them. (One of
  plain text messages only is read by the OpenAI chat reader, to the same conversation.)

Content blocks: `text` blocks give the text; `tool_use` blocks give tool calls (`input` is the
arguments); `tool_result` blocks (inside user messages) give tool results linked by
`tool_use_id`, with `is_error` carried. A user message holding only `tool_result` blocks
continues the turn: it is the tools answering, not the user speaking. `image` blocks (a
`base64` or `url` source) are media parts of their message, or of the tool result that holds
them, and so are PromptKit's `{type: image|audio|video, media}` parts, in `content` or in a
`parts` list beside it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts._build import (
    Msg,
    call_metadata,
    conversation,
    fold_calls,
    media_from_part,
    media_parts,
    message_agent,
    parent,
    record_metadata,
    text_of,
    tool_call,
)
from chatassert.transcripts._openai_chat import is_message_list

__all__ = ["detect", "parse"]

_ANTHROPIC_BLOCKS = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "document"}
)


def _has_blocks(messages: object) -> bool:
    if not isinstance(messages, list):
        return False
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if isinstance(kind, str) and kind in _ANTHROPIC_BLOCKS:
                    return True
    return False


def _is_response(response: object) -> bool:
    return isinstance(response, dict) and (
        response.get("type") == "message"
        or (isinstance(response.get("content"), list) and "stop_reason" in response)
    )


def _is_call(record: object) -> bool:
    if not isinstance(record, dict):
        return False
    request = record.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return False
    return (
        "system" in request
        or _is_response(record.get("response"))
        or _has_blocks(request["messages"])
    )


def detect(record: Any) -> bool:
    """Whether `record` looks like an Anthropic Messages transcript, call, list of calls, or
    bare array of messages.

    A `messages` list is Anthropic when the record has a top-level `system`, an Anthropic
    `response`, or any Anthropic-only content block (`tool_use`, `tool_result`, `thinking`);
    a bare array of messages, when it holds such a block.
    """
    if isinstance(record, list):
        return bool(record) and (
            _is_call(record[0]) or (is_message_list(record) and _has_blocks(record))
        )
    if not isinstance(record, dict):
        return False
    messages = record.get("messages")
    if isinstance(messages, list):
        return "system" in record or _is_response(record.get("response")) or _has_blocks(messages)
    if _is_call(record):
        return True
    calls = record.get("calls")
    return isinstance(calls, list) and bool(calls) and _is_call(calls[0])


def _block_text(content: object, where: str) -> str:
    """The text of a `content` field: a string, the `text` blocks of a list joined, nothing
    for None, or any other JSON value as its JSON text (non-ASCII characters kept as they are,
    so text checks see them)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return text_of(content, ("text",), where) or ""
    # not the API's shape (a string or a list of blocks): kept as JSON text, as OTel results are
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def message(raw: object, where: str) -> list[Msg]:
    """Normalise one Anthropic message (a user message may become tool results plus text)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):
        raise TranscriptError(f"{where} is not a message object with a 'role'")
    role = raw["role"]
    content = raw.get("content")
    parts = raw.get("parts")  # PromptKit's parts, beside or instead of `content`
    extra = media_parts(parts, role, f"{where}.parts")
    if content is None and isinstance(parts, list):
        content = text_of(parts, where=f"{where}.parts")
    if content is None or isinstance(content, str):
        return [Msg(role=role, content=content, media=extra, agent=message_agent(raw, where))]
    if not isinstance(content, list):
        raise TranscriptError(f"{where}.content must be a string or a list of blocks")
    texts: list[str] = []
    calls = []
    results: list[Msg] = []
    media = []
    for j, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise TranscriptError(f"{where}.content[{j}] is not a content block with a 'type'")
        kind = block["type"]
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind in ("image", "audio", "video"):  # Anthropic's image, PromptKit's media
            image = media_from_part(block, role, f"{where}.content[{j}]")
            if image is not None:
                media.append(image)
        elif kind in ("tool_use", "server_tool_use"):
            if block.get("id") is None:
                raise TranscriptError(f"{where}.content[{j}] (tool_use) has no 'id'")
            calls.append(tool_call(block.get("name"), block.get("input"), block.get("id")))
        elif kind == "tool_result":
            use_id = block.get("tool_use_id")
            if use_id is None:
                raise TranscriptError(f"{where}.content[{j}] (tool_result) has no 'tool_use_id'")
            inner = block.get("content")
            results.append(
                Msg(
                    role="tool",
                    content=_block_text(inner, f"{where}.content[{j}].content"),
                    tool_call_id=str(use_id),
                    is_error=block.get("is_error") is True,
                    data=inner if isinstance(inner, dict) else None,
                    media=media_parts(inner, "tool", f"{where}.content[{j}].content"),
                )
            )
    media.extend(extra)
    text = "".join(texts) if texts else None
    if role == "assistant":
        agent = message_agent(raw, where)
        return [Msg(role="assistant", content=text, tool_calls=calls, media=media, agent=agent)]
    if results:
        if text:
            return [*results, Msg(role=role, content=text, media=media)]
        results[-1].media.extend(media)  # no words of the user's: the turn goes on
        return results
    return [Msg(role=role, content=text, media=media)]


def messages(raw: object, where: str, system: object = None) -> list[Msg]:
    """Normalise a request's messages, with its `system` prompt first."""
    if not isinstance(raw, list):
        raise TranscriptError(f"{where} is not a list")
    at = f"{where.rpartition('.')[0]}.system".lstrip(".")
    out = [Msg(role="system", content=_block_text(system, at))] if system else []
    for i, m in enumerate(raw):
        out.extend(message(m, f"{where}[{i}]"))
    return out


def _response(response: object, extra: Mapping[str, Any], where: str) -> list[Msg]:
    if response is None:
        return []
    if not isinstance(response, dict) or not isinstance(response.get("content"), list):
        raise TranscriptError(f"{where} is not a message with 'content' blocks")
    out = message({"role": "assistant", "content": response["content"]}, where)
    meta = call_metadata(extra, response, places=(parent(where), where))
    if isinstance(response.get("stop_reason"), str):
        meta["stop_reason"] = response["stop_reason"]
    out[-1].metadata = meta
    return out


def _calls(calls: Sequence[object], where: str) -> list[Msg]:
    return fold_calls(
        calls,
        where,
        _is_call,
        lambda request, at: messages(request["messages"], f"{at}.messages", request.get("system")),
        _response,
    )


def parse(record: Any) -> Conversation:
    """Build a conversation from any of the Anthropic line shapes.

    Raises:
        TranscriptError: when the record is not of those shapes or is malformed.
    """
    if isinstance(record, list):
        if record and not _is_call(record[0]) and is_message_list(record):
            return conversation(messages(record, "record"))
        return conversation(_calls(record, "record"))
    if not isinstance(record, dict):
        raise TranscriptError("expected an object with 'messages' (Anthropic Messages format)")
    if isinstance(record.get("messages"), list):
        history = messages(record["messages"], "messages", record.get("system"))
        history.extend(_response(record.get("response"), record, "response"))
        return conversation(history, id=record.get("id"), metadata=record_metadata(record))
    if _is_call(record):
        return conversation(
            _calls([record], "record"), id=record.get("id"), metadata=record_metadata(record)
        )
    calls = record.get("calls")
    if isinstance(calls, list):
        return conversation(
            _calls(calls, "calls"), id=record.get("id"), metadata=record_metadata(record)
        )
    raise TranscriptError(
        "expected 'messages', a {request, response} call, or 'calls' (Anthropic Messages format)"
    )
