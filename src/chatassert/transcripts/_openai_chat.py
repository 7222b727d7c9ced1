"""The OpenAI Chat Completions adapter: `{"messages": [...]}` lines as logged for fine-tuning."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from chatassert._errors import TranscriptError
from chatassert._models import Conversation

__all__ = ["detect", "parse"]

_META_KEYS = ("model", "usage", "latency", "latency_ms", "cost", "tags")


def detect(record: Any) -> bool:
    """Whether `record` is a chat-completions transcript (a mapping with a `messages` list)."""
    return isinstance(record, Mapping) and isinstance(record.get("messages"), list)


def parse(record: Any) -> Conversation:
    """Build a conversation from `{"messages": [...], "id"?: ..., "metadata"?: {...}}`.

    Tool calls come from `tool_calls[].function` (arguments as a JSON string, kept with its
    parse error when invalid); `tool` messages are linked to their calls by `tool_call_id`.

    Raises:
        TranscriptError: when the record is not of that shape.
    """
    if not detect(record):
        raise TranscriptError("expected an object with a 'messages' list (OpenAI chat format)")
    metadata: dict[str, Any] = dict(record.get("metadata") or {})
    for key in _META_KEYS:
        if key in record:
            metadata.setdefault(key, record[key])
    for key in ("case", "test_case", "name"):
        if key in record and isinstance(record[key], str | int):
            metadata.setdefault(key, record[key])
    raw_id = record.get("id")
    for i, message in enumerate(record["messages"]):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise TranscriptError(f"messages[{i}] is not a message object with a 'role'")
    try:
        return Conversation.from_messages(
            record["messages"], id=None if raw_id is None else str(raw_id), metadata=metadata)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise TranscriptError(f"invalid message data at {where or 'record'}: "
                              f"{first.get('msg')}") from None
