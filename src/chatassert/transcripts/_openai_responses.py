"""The OpenAI Responses API adapter.

Line shapes read:

- one response with its input: `{"instructions"?: str, "input": str | [items], "output":
  [items], "model"?, "usage"?, "id"?, "metadata"?}` (the response object as returned, with the
  request's `input` and `instructions` added);
- one call: `{"request": {"input", "instructions"?}, "response": {"output": [...], ...}}`;
- several calls: `{"calls": [<call>, ...]}`, or a bare item list `{"items": [...]}` (or the
  JSON array of items itself, when one of them is typed: `{"type": "function_call", ...}`).

Items: messages (`{"type": "message", "role", "content": str | [input_text/output_text parts]}`
or `{"role", "content"}`), `function_call` (`call_id`, `name`, `arguments` as a JSON string) and
`function_call_output` (`call_id`, `output`); `reasoning` and other items are skipped. A
`previous_response_id` chain is not followed: log the whole input. Media: a message's
`input_image` and `input_audio` parts and PromptKit's `{type, media}` parts (in `content` or in
a `parts` list beside it), and the image an `image_generation_call` item returns (its base64
`result`), which is the assistant's.

The OpenAI Agents SDK's run items are read too, as the SDK serialises them (`RunState`):
`{"type": "message_output_item" | "tool_call_item" | "tool_call_output_item" |
"handoff_call_item" | "handoff_output_item" | ..., "raw_item": <item>, "agent": {"name"}}`,
with `source_agent` and `target_agent` on a handoff output. The raw item is read as above, and
the agent the run item names becomes the active agent from there on (for a handoff output, the
target agent): see `Turn.agent`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, make_media
from chatassert.transcripts._build import (
    Msg,
    call_metadata,
    conversation,
    described,
    fold_calls,
    media_parts,
    message_agent,
    parent,
    record_metadata,
    text_of,
    tool_call,
)

__all__ = ["detect", "parse"]

_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "image_generation_call",
        # the OpenAI Agents SDK's run items, which wrap one of those in `raw_item`
        "message_output_item",
        "tool_call_item",
        "tool_call_output_item",
        "handoff_call_item",
        "handoff_output_item",
        "reasoning_item",
    }
)


def _agent_name(value: object) -> str | None:
    """An agent as a run item names it: `{"name": ...}` (as the SDK serialises it) or a name."""
    name = value.get("name") if isinstance(value, Mapping) else value
    return name if isinstance(name, str) and name.strip() else None


def _run_item(item: dict[str, Any], kind: str, at: str) -> tuple[Any, tuple[str, str] | None]:
    """Unwrap an Agents SDK run item: its raw item, and the agent active from it on."""
    raw = item.get("raw_item")
    if not isinstance(raw, dict):
        raise TranscriptError(f"{at} ({kind}) has no 'raw_item' object")
    key = "target_agent" if kind == "handoff_output_item" else "agent"
    name = _agent_name(item.get(key))
    return raw, None if name is None else (name, f"{at}.{key}")


def _typed_items(items: object) -> bool:
    return isinstance(items, list) and any(
        isinstance(i, dict) and isinstance(i.get("type"), str) and i["type"] in _ITEM_TYPES
        for i in items
    )


def _is_response(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("output"), list)
        and (
            value.get("object") == "response"
            or _typed_items(value["output"])
            or not value["output"]
        )
    )


def _is_call(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("request"), Mapping)
        and "input" in value["request"]
    )


def detect(record: Any) -> bool:
    """Whether `record` is a Responses API response, call, list of calls, or item list (an
    object or a bare array)."""
    if isinstance(record, list):
        return _typed_items(record) and all(isinstance(item, dict) for item in record)
    if not isinstance(record, dict):
        return False
    if _is_response(record) or _is_call(record):
        return True
    calls = record.get("calls")
    if isinstance(calls, list) and calls and _is_call(calls[0]):
        return True
    return _typed_items(record.get("items"))


def items(raw: object, where: str) -> list[Msg]:
    """Normalise Responses API items; consecutive function calls join one assistant message."""
    if isinstance(raw, str):
        return [Msg(role="user", content=raw)]
    if not isinstance(raw, list):
        raise TranscriptError(f"{where} must be a string or a list of items")
    out: list[Msg] = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise TranscriptError(f"{at} is not an item object")
        kind = item.get("type", "message")
        if not isinstance(kind, str):
            raise TranscriptError(f"{at}: 'type' must be a string (got {described(kind)})")
        agent = None
        if kind.endswith("_item") and "raw_item" in item:  # an Agents SDK run item
            item, agent = _run_item(item, kind, at)
            at = f"{at}.raw_item"
            kind = item.get("type", "message")
            if not isinstance(kind, str):
                raise TranscriptError(f"{at}: 'type' must be a string (got {described(kind)})")
        if kind == "message":
            role = item.get("role")
            if not isinstance(role, str):
                raise TranscriptError(f"{at} (message) has no 'role'")
            content = item.get("content")
            parts = item.get("parts")  # PromptKit's parts, beside or instead of `content`
            if content is None and isinstance(parts, list):
                text = text_of(parts, where=f"{at}.parts")
            else:
                text = text_of(content, where=f"{at}.content")
            out.append(
                Msg(
                    role=role,
                    content=text,
                    media=[
                        *media_parts(content, role, f"{at}.content"),
                        *media_parts(parts, role, f"{at}.parts"),
                    ],
                    agent=agent or message_agent(item, at),
                )
            )
        elif kind == "function_call":
            if item.get("call_id") is None:
                raise TranscriptError(f"{at} (function_call) has no 'call_id'")
            call = tool_call(item.get("name"), item.get("arguments"), item["call_id"])
            if out and out[-1].role == "assistant" and not out[-1].content and out[-1].tool_calls:
                out[-1].tool_calls.append(call)
                out[-1].agent = agent or out[-1].agent
            else:
                out.append(Msg(role="assistant", tool_calls=[call], agent=agent))
        elif kind == "function_call_output":
            if item.get("call_id") is None:
                raise TranscriptError(f"{at} (function_call_output) has no 'call_id'")
            output = item.get("output")
            text = (
                output if isinstance(output, str) else text_of(output, where=f"{at}.output") or ""
            )
            status = item.get("status")
            out.append(
                Msg(
                    role="tool",
                    content=text,
                    tool_call_id=str(item["call_id"]),
                    is_error=item.get("is_error") is True or status == "failed",
                    agent=agent,
                )
            )
        elif kind == "image_generation_call" and isinstance(item.get("result"), str):
            fmt = item.get("output_format")
            mime = f"image/{fmt}" if isinstance(fmt, str) and fmt else None
            image = make_media(at, kind="image", data=item["result"], mime_type=mime)
            out.append(Msg(role="assistant", media=[image]))
    return out


def _request(request: Mapping[str, Any], where: str) -> list[Msg]:
    instructions = request.get("instructions")
    head = [Msg(role="system", content=instructions)] if isinstance(instructions, str) else []
    return head + items(request.get("input", []), f"{where}.input".lstrip("."))


def _response(response: object, extra: Mapping[str, Any], where: str) -> list[Msg]:
    if response is None:
        return []
    if not isinstance(response, dict) or not isinstance(response.get("output"), list):
        raise TranscriptError(f"{where} has no 'output' list")
    out = items(response["output"], f"{where}.output".lstrip("."))
    if out:
        meta = call_metadata(extra, response, places=(parent(where), where))
        if isinstance(response.get("status"), str):
            meta["status"] = response["status"]
        out[-1].metadata = meta
    return out


def _calls(calls: Sequence[object], where: str) -> list[Msg]:
    return fold_calls(calls, where, _is_call, _request, _response)


def parse(record: Any) -> Conversation:
    """Build a conversation from any of the Responses API line shapes.

    Raises:
        TranscriptError: when the record is not of those shapes or is malformed.
    """
    if isinstance(record, list):  # a bare array of items
        return conversation(items(record, "record"))
    if not isinstance(record, dict):
        raise TranscriptError("expected an object with 'output' or 'items' (OpenAI Responses)")
    if _is_call(record):
        history = _calls([record], "record")
    elif isinstance(record.get("calls"), list):
        history = _calls(record["calls"], "calls")
    elif isinstance(record.get("output"), list):
        history = _request(record, "")
        history.extend(_response(record, {}, ""))
    elif isinstance(record.get("items"), list):
        history = items(record["items"], "items")
    else:
        raise TranscriptError(
            "expected 'input' and 'output', a {request, response} call, "
            "'calls' or 'items' (OpenAI Responses format)"
        )
    return conversation(history, id=record.get("id"), metadata=record_metadata(record))
