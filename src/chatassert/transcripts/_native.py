"""The native format: a `Conversation` as JSON, `{"turns": [...]}`, read as it is given.

A record is native when it holds a `turns` list; it is validated as a `Conversation` (each turn
as `Turn` takes it: `input`, `text`, `messages`, `tool_calls`, `tool_results`, `agent`, …), so
what it says is taken as given. A record that is not a valid conversation is reported with the
first problem found, at its place in the record (`turns[0].tool_calls`).

Example:
    >>> parse({"turns": [{"input": "Hi", "text": "Hello"}]}).turns[0].text
    'Hello'
"""

from __future__ import annotations

from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts._build import described

__all__ = ["detect", "parse"]


def detect(record: Any) -> bool:
    """Whether `record` is a native conversation: an object with a `turns` list."""
    return isinstance(record, dict) and isinstance(record.get("turns"), list)


def parse(record: Any) -> Conversation:
    """Read a native record into its `Conversation`.

    Raises:
        TranscriptError: naming the first problem (and how many more), when the record is not
            a valid conversation.
    """
    from pydantic import ValidationError

    try:
        return Conversation.model_validate(record)
    except ValidationError as exc:
        raise TranscriptError(f"not a native conversation: {_problem(exc)}") from None
    except (ValueError, TypeError) as exc:
        raise TranscriptError(f"not a native conversation: {exc}") from None


def _problem(exc: Any) -> str:
    """The first problem of a pydantic `ValidationError` as one line: where, what, what was found.

    Example:
        >>> try:
        ...     parse({"turns": [{"tool_calls": "x"}]})
        ... except TranscriptError as exc:
        ...     print(exc)
        not a native conversation: turns[0].tool_calls: Input should be a valid tuple (got "x")
    """
    errors = exc.errors(include_url=False)
    first = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    message = str(first["msg"]).removeprefix("Value error, ")
    found = "" if first["type"] == "missing" else f" (got {described(first.get('input'))})"
    more = f"; and {len(errors) - 1} more" if len(errors) > 1 else ""
    return f"{where + ': ' if where else ''}{message}{found}{more}"
