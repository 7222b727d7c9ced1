"""Reading logged transcripts into `Conversation`s, streaming, one JSON record per line.

A line that cannot be read is reported as a `Record` with its file, line number and error, and
reading carries on.

Example:
    >>> import io, json
    >>> from chatassert.transcripts import read_records
    >>> log = io.StringIO(json.dumps({"messages": [
    ...     {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]})
    ...     + "\\n{not json\\n")
    >>> [(r.line, r.ok) for r in read_records(log)]
    [(1, True), (2, False)]
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts import _anthropic, _openai_chat, _openai_responses, _otel

__all__ = ["FORMATS", "Record", "open_text", "parse_line", "parse_record", "read_records"]


@dataclass(frozen=True, slots=True)
class Record:
    """One line of a log: the conversation read from it, or why it could not be read.

    Attributes:
        source: The file (or `-` for standard input).
        line: The 1-based line number.
        conversation: The conversation, when the line could be read.
        error: Why the line could not be read, otherwise.
        raw: The parsed JSON of the line (when it was JSON), for adapters and reports.
    """

    source: str
    line: int
    conversation: Conversation | None = None
    error: str | None = None
    raw: Any = None

    @property
    def ok(self) -> bool:
        """Whether the line was read into a conversation."""
        return self.conversation is not None

    @property
    def where(self) -> str:
        """`file:line`, for messages."""
        return f"{self.source}:{self.line}"


def _parse_native(record: Any) -> Conversation:
    try:
        return Conversation.model_validate(record)
    except Exception as exc:
        raise TranscriptError(f"not a native conversation: {exc}") from None


def _detect_native(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("turns"), list)


FORMATS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Conversation]]] = {
    "native": (_detect_native, _parse_native),
    "otel": (_otel.detect, _otel.parse),
    "openai-responses": (_openai_responses.detect, _openai_responses.parse),
    "anthropic": (_anthropic.detect, _anthropic.parse),
    "openai": (_openai_chat.detect, _openai_chat.parse),
}
"""Format name → `(detect, parse)`. Detection tries them in this order (Anthropic before OpenAI
chat: both have `messages`, and Anthropic is recognised by what OpenAI lacks)."""


def parse_record(record: Any, format: str | None = None) -> Conversation:
    """Turn one parsed JSON record into a conversation, detecting its format unless given.

    Raises:
        TranscriptError: when the record is of no known format or is malformed.
    """
    if format is not None:
        if format not in FORMATS:
            raise TranscriptError(
                f"unknown transcript format {format!r}; known: {', '.join(FORMATS)}"
            )
        return FORMATS[format][1](record)
    for detect, parse in FORMATS.values():
        if detect(record):
            return parse(record)
    keys = sorted(record)[:8] if isinstance(record, dict) else type(record).__name__
    raise TranscriptError(
        f"unrecognised transcript record (keys: {keys}); known formats: {', '.join(FORMATS)}"
    )


def open_text(path: str | os.PathLike[str] | IO[str]) -> IO[str]:
    """Open a log for reading text: a path (`.gz` is decompressed), `-` for stdin, or a stream."""
    if not isinstance(path, str | os.PathLike):
        return path
    name = os.fspath(path)
    if name == "-":
        return sys.stdin
    if name.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(name, "rb"), encoding="utf-8")
    return open(name, encoding="utf-8")


def parse_line(
    line: str, source: str = "<stream>", number: int = 0, format: str | None = None
) -> Record:
    """Read one log line into a `Record` (never raises for bad content: the error is recorded).

    Example:
        >>> parse_line('{"turns": [{"text": "Hi"}]}', "log.jsonl", 3).conversation.turns[0].text
        'Hi'
        >>> parse_line("[1, 2]", "log.jsonl", 4).error[:31]
        'unrecognised transcript record '
    """
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        return Record(source, number, error=f"line is not JSON: {exc}")
    try:
        return Record(source, number, conversation=parse_record(raw, format), raw=raw)
    except TranscriptError as exc:
        return Record(source, number, error=str(exc), raw=raw)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # malformed in depth
        return Record(source, number, error=f"malformed record: {exc}", raw=raw)


def read_records(
    path: str | os.PathLike[str] | IO[str], *, format: str | None = None
) -> Iterator[Record]:
    """Stream the records of a JSONL log, one per non-blank line.

    Args:
        path: A file path (`.jsonl` or `.jsonl.gz`), `-` for standard input, or an open text
            stream.
        format: Force a transcript format instead of detecting it per line.
    """
    if isinstance(path, str | os.PathLike):
        source = os.fspath(path)
    else:
        source = str(getattr(path, "name", "<stream>"))
    stream = open_text(path)
    try:
        for number, line in enumerate(stream, 1):
            if line.strip():
                yield parse_line(line, source, number, format)
    finally:
        if stream is not path and stream is not sys.stdin:
            stream.close()
