"""Reading logged transcripts into `Conversation`s, streaming, one JSON record per line.

A line that cannot be read is reported as a `Record` with its file, line number and error, and
reading carries on. A `.json` file holding one JSON document spread over several lines (a
PromptKit `*.arena.json` or `*.recording.json` recording, an Inspect AI eval log) is read as one
record. A record may hold several conversations (an Inspect AI log: one per sample; a promptfoo
output: one per result; a Google ADK eval set: one per eval case; an OTLP or Jaeger trace
export: one per session or trace): they are its `parts`, each a `Record` of its own whose
`where` names it (`file:line#sample-id`), and `read_records` yields them one by one.

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

import contextlib
import gzip
import io
import itertools
import json
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, loads_json
from chatassert.transcripts import (
    _adk,
    _agents_sdk,
    _anthropic,
    _inspect,
    _jaeger,
    _langsmith,
    _openai_chat,
    _openai_responses,
    _otel,
    _promptfoo,
    _promptkit,
)

__all__ = [
    "FORMATS",
    "PARTS",
    "READ_ERRORS",
    "RESPONSES",
    "Record",
    "numbered_lines",
    "open_text",
    "parse_document",
    "parse_line",
    "parse_record",
    "parse_text",
    "read_error",
    "read_records",
]


@dataclass(frozen=True, slots=True)
class Record:
    """One line of a log: the conversation read from it, or why it could not be read.

    A record that holds several conversations (an Inspect AI eval log, a promptfoo output)
    has neither a conversation nor an error of its own: each conversation is one of its
    `parts`, a record with the same source and line, named by its `part`. `each()` gives the
    records to check either way.

    Attributes:
        source: The file (or `-` for standard input).
        line: The 1-based line number.
        conversation: The conversation, when the line could be read.
        error: Why the line could not be read, otherwise.
        raw: The parsed JSON of the line (when it was JSON), for adapters and reports.
        part: Which of its record's conversations this is (a sample id, a result's index).
        parts: The conversations of a record that holds several, each with its own error.
    """

    source: str
    line: int
    conversation: Conversation | None = None
    error: str | None = None
    raw: Any = None
    part: str | None = None
    parts: tuple[Record, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the line was read into a conversation."""
        return self.conversation is not None

    @property
    def where(self) -> str:
        """`file:line`, or `file:line#part` for one of a record's conversations."""
        if self.part is None:
            return f"{self.source}:{self.line}"
        return f"{self.source}:{self.line}#{self.part}"

    def each(self) -> tuple[Record, ...]:
        """The records to check: the parts of a record of several conversations, else itself.

        Example:
            >>> import json
            >>> log = {"eval": {"task": "t", "model": "m"}, "samples": [
            ...     {"id": s, "epoch": 1, "messages": [{"role": "user", "content": "Hi"}]}
            ...     for s in ("a", "b")]}
            >>> [r.where for r in parse_line(json.dumps(log), "log.json", 1).each()]
            ['log.json:1#a', 'log.json:1#b']
        """
        return self.parts or (self,)


def _parse_native(record: Any) -> Conversation:
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
        >>> from chatassert._errors import TranscriptError
        >>> try:
        ...     _parse_native({"turns": [{"tool_calls": "x"}]})
        ... except TranscriptError as exc:
        ...     print(exc)
        not a native conversation: turns[0].tool_calls: Input should be a valid tuple (got "x")
    """
    from chatassert.transcripts._build import described

    errors = exc.errors(include_url=False)
    first = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    message = str(first["msg"]).removeprefix("Value error, ")
    found = "" if first["type"] == "missing" else f" (got {described(first.get('input'))})"
    more = f"; and {len(errors) - 1} more" if len(errors) > 1 else ""
    return f"{where + ': ' if where else ''}{message}{found}{more}"


def _detect_native(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("turns"), list)


FORMATS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Conversation]]] = {
    "native": (_detect_native, _parse_native),
    "otel": (_otel.detect, _otel.parse),
    "jaeger": (_jaeger.detect, _jaeger.parse),
    "openai-responses": (_openai_responses.detect, _openai_responses.parse),
    "anthropic": (_anthropic.detect, _anthropic.parse),
    "openai": (_openai_chat.detect, _openai_chat.parse),
    "promptkit-arena": (_promptkit.detect_arena, _promptkit.parse_arena),
    "promptkit-session": (_promptkit.detect_session, _promptkit.parse_session),
    "agents-sdk": (_agents_sdk.detect, _agents_sdk.parse),
    "inspect": (_inspect.detect, _inspect.parse),
    "langsmith": (_langsmith.detect, _langsmith.parse),
    "promptfoo": (_promptfoo.detect, _promptfoo.parse),
    "adk": (_adk.detect, _adk.parse),
}
"""Format name → `(detect, parse)`. Detection tries them in this order (Anthropic before OpenAI
chat: both have `messages`, and Anthropic is recognised by what OpenAI lacks)."""

PARTS: dict[str, Callable[[Any], list[tuple[str, Any]] | None]] = {
    "otel": _otel.parts,
    "jaeger": _jaeger.parts,
    "agents-sdk": _agents_sdk.parts,
    "inspect": _inspect.parts,
    "langsmith": _langsmith.parts,
    "promptfoo": _promptfoo.parts,
    "adk": _adk.parts,
}
"""Format name → how a record of that format splits into several conversations: `(label,
sub-record)` pairs, each sub-record read by the format's `parse`, or None when the record is one
conversation. `parse_record` reads a record of one conversation only."""


def _detected(record: Any) -> str | None:
    """The first format whose detector recognises `record`, or None.

    Raises:
        TranscriptError: when a detector fails on the record (a value of a type it did not
            expect): the record is reported, never a crash of the reading of its log.
    """
    for name, (detect, _) in FORMATS.items():
        try:
            found = detect(record)
        except RecursionError:
            raise TranscriptError("malformed record: nested too deeply") from None
        except Exception as exc:  # one odd record never ends the reading of a log
            raise TranscriptError(
                f"malformed record ({type(exc).__name__} while detecting its format as "
                f"{name}: {exc})"
            ) from None
        if found:
            return name
    return None


def parse_record(record: Any, format: str | None = None) -> Conversation:
    """Turn one parsed JSON record into a conversation, detecting its format unless given.

    Raises:
        TranscriptError: when the record is of no known format or is malformed (nested too
            deeply to read, too).
    """
    if format is not None and format not in FORMATS:
        raise TranscriptError(f"unknown transcript format {format!r}; known: {', '.join(FORMATS)}")
    name = format if format is not None else _detected(record)
    if name is not None:
        try:
            return _with_turns(FORMATS[name][1](record))
        except TranscriptError:
            raise
        except RecursionError:
            raise TranscriptError("malformed record: nested too deeply") from None
        except Exception as exc:  # a reader that failed on a value it did not expect
            raise TranscriptError(
                f"malformed record ({type(exc).__name__} while reading it: {exc})"
            ) from None
    if isinstance(record, dict):
        what = f"keys: {sorted(map(str, record))[:8]}"
    elif isinstance(record, list):
        what = "a JSON array, but not of {request, response} calls"
    else:
        what = f"a JSON {_JSON_NAMES.get(type(record), 'value')}, not an object"
    raise TranscriptError(
        f"unrecognised transcript record ({what}); known formats: {', '.join(FORMATS)}"
    )


_JSON_NAMES = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string"}


def _with_turns(conversation: Conversation) -> Conversation:
    """A conversation that has something to check: a record with no turns is an error, not a
    conversation every turn check would pass vacuously."""
    if not conversation.turns:
        raise TranscriptError(
            "the record holds no messages to check (for OpenTelemetry: turn on message "
            "content capture, so spans carry gen_ai.input.messages)"
        )
    return conversation


READ_ERRORS = (OSError, EOFError, zlib.error)
"""What reading the rest of an opened log may raise (a truncated or corrupt `.gz`, an I/O
error); readers report it against the next line and stop reading that log."""

_UNDECODABLE = re.compile("[\udc80-\udcff]")


def open_text(path: str | os.PathLike[str] | IO[str]) -> IO[str]:
    r"""Open a log for reading text: a path (`.gz` is decompressed), `-` for stdin, or a stream.

    Logs are UTF-8, with or without a byte order mark. Lines end at `\n` only (a `\r\n` ending
    is kept and read as whitespace; a bare `\r` inside a line does not split it), and bytes
    that are not UTF-8 are kept as escapes that `parse_line` reports, so one bad line never
    stops the reading of the others.
    """
    if not isinstance(path, str | os.PathLike):
        return path
    name = os.fspath(path)
    encoding, errors, newline = "utf-8-sig", "surrogateescape", "\n"
    if name == "-":
        if isinstance(sys.stdin, io.TextIOWrapper):
            # once read from, its decoding cannot change: it is kept as it is
            with contextlib.suppress(ValueError, io.UnsupportedOperation):
                sys.stdin.reconfigure(encoding=encoding, errors=errors, newline=newline)
        return sys.stdin
    if name.endswith(".gz"):
        raw = gzip.open(name, "rb")  # noqa: SIM115
        return io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline=newline)
    return open(name, encoding=encoding, errors=errors, newline=newline)


def read_error(exc: BaseException) -> str:
    """Describe an error raised while reading an opened log (one of `READ_ERRORS`)."""
    if isinstance(exc, gzip.BadGzipFile):
        return str(exc)
    if isinstance(exc, EOFError | zlib.error):
        return f"corrupt or truncated gzip data: {exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


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
    bad = None if line.isascii() else _UNDECODABLE.search(line)  # most lines are ASCII
    if bad is not None:
        byte = ord(bad.group()) - 0xDC00
        return Record(
            source,
            number,
            error=f"line is not UTF-8 (byte 0x{byte:02x} at column {bad.start() + 1})",
        )
    try:
        raw = loads_json(line)
    except RecursionError:
        return Record(source, number, error="line is nested too deeply to read")
    except json.JSONDecodeError as exc:
        # the record's place is the log's line: JSON's own "line 1" would only mislead
        reason = exc.msg.removesuffix(" at")  # "Invalid control character at"
        return Record(source, number, error=f"line is not JSON: {reason} at column {exc.colno}")
    except ValueError as exc:  # a number too long to convert
        reason = str(exc).split(";")[0]
        return Record(source, number, error=f"line cannot be read: {reason}")
    return _record(raw, source, number, format)


def parse_document(
    text: str, source: str = "<stream>", number: int = 1, format: str | None = None
) -> Record:
    r"""Read a whole file holding one JSON document (from its line `number` on) into a `Record`.

    Like `parse_line`, it never raises for bad content; its errors name the file's lines.

    Example:
        >>> record = parse_document('{"turns": [\n  {"text": "Hi"}\n]}\n', "run.json")
        >>> record.conversation.turns[0].text
        'Hi'
        >>> parse_document('{"turns": [\n  {"text": "Hi"}\n', "run.json", 3).error
        "the file is not JSON: Expecting ',' delimiter: line 5 column 1"
    """
    bad = None if text.isascii() else _UNDECODABLE.search(text)
    if bad is not None:
        byte = ord(bad.group()) - 0xDC00
        line = number + text.count("\n", 0, bad.start())
        return Record(
            source, number, error=f"the file is not UTF-8 (byte 0x{byte:02x} on line {line})"
        )
    try:
        raw = json.loads(text)
    except RecursionError:
        return Record(source, number, error="the file is nested too deeply to read")
    except json.JSONDecodeError as exc:
        where = f"line {number + exc.lineno - 1} column {exc.colno}"
        return Record(source, number, error=f"the file is not JSON: {exc.msg}: {where}")
    except ValueError as exc:  # a number too long to convert
        reason = str(exc).split(";")[0]
        return Record(source, number, error=f"the file cannot be read: {reason}")
    return _record(raw, source, number, format)


def parse_text(
    text: str, source: str = "<stream>", number: int = 0, format: str | None = None
) -> Record:
    """Read what `numbered_lines` gave: one line of a log, or a whole one-document file (text
    that holds a line break before its end)."""
    if 0 <= text.find("\n") < len(text) - 1:  # a line break before the end: a whole file
        return parse_document(text, source, number, format)
    return parse_line(text, source, number, format)


RESPONSES = "responses"
"""The `format` that reads each line as a structured response and no transcript: the line's
JSON is decoded (its errors reported as for any line) and kept in `Record.raw`; no format is
detected and `conversation` stays None. A run whose every case checks JSON responses (an
expect suite) reads its log so."""


def _record(raw: Any, source: str, number: int, format: str | None) -> Record:
    if format == RESPONSES:
        if raw is None:
            return Record(source, number, error="the line is JSON null: no response to check")
        return Record(source, number, raw=raw)
    try:
        name = format if format is not None else _detected(raw)
    except TranscriptError as exc:
        return Record(source, number, error=str(exc), raw=raw)
    split = PARTS.get(name) if name is not None else None
    pieces: list[tuple[str, Any]] | None = None
    if split is not None:
        try:
            pieces = split(raw)
        except TranscriptError as exc:
            return Record(source, number, error=str(exc), raw=raw)
        except RecursionError:
            return Record(source, number, error="malformed record: nested too deeply", raw=raw)
        except Exception as exc:  # one odd record never ends the reading of a log
            error = f"malformed record ({type(exc).__name__} while reading it: {exc})"
            return Record(source, number, error=error, raw=raw)
    if pieces is None:
        return _one(raw, source, number, name)
    parts = tuple(_one(sub, source, number, name, label) for label, sub in pieces)
    return Record(source, number, raw=raw, parts=parts)


def _one(raw: Any, source: str, number: int, format: str | None, part: str | None = None) -> Record:
    """The record of one conversation (or of why it cannot be read)."""
    try:
        conversation = parse_record(raw, format)
        return Record(source, number, conversation=conversation, raw=raw, part=part)
    except TranscriptError as exc:
        return Record(source, number, error=str(exc), raw=raw, part=part)


def _is_document_start(line: str) -> bool:
    """Whether a file's first non-blank line opens a JSON document that goes on past it."""
    if not line.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return True  # not a whole value on its own: the document goes on
    return False


def numbered_lines(stream: IO[str], source: str) -> Iterator[tuple[int, str]]:
    r"""The `(line number, text)` of each line of a log; or, for a `.json` (or `.json.gz`) file
    whose first non-blank line opens a JSON document that does not end on that line, one
    `(number of that line, the rest of the file)`: a pretty-printed recording is one record.

    Errors reading the stream (`READ_ERRORS`) are raised to the caller as it is iterated.

    Example:
        >>> import io
        >>> pretty = io.StringIO('\n{\n  "turns": []\n}\n')
        >>> [(n, text.count("\n")) for n, text in numbered_lines(pretty, "run.arena.json")]
        [(2, 3)]
        >>> [n for n, _ in numbered_lines(io.StringIO('{}\n{}\n'), "runs.json")]
        [1, 2]
    """
    if not source.lower().removesuffix(".gz").endswith(".json"):
        return enumerate(stream, 1)
    return _document_or_lines(stream)


def _document_or_lines(stream: IO[str]) -> Iterator[tuple[int, str]]:
    """`numbered_lines` of a `.json` file: its first non-blank line decides."""
    numbered: Iterator[tuple[int, str]] = enumerate(stream, 1)
    head: list[tuple[int, str]] = []
    for number, line in numbered:
        head.append((number, line))
        if line.strip():
            break
    if head and head[-1][1].strip() and _is_document_start(head[-1][1]):
        number, line = head[-1]
        yield number, line + stream.read()
        return
    yield from itertools.chain(head, numbered)


def read_records(
    path: str | os.PathLike[str] | IO[str], *, format: str | None = None
) -> Iterator[Record]:
    """Stream the records of a JSONL log, one per non-blank line.

    A `.json` file that holds one JSON document over several lines (a PromptKit
    `*.arena.json` or `*.recording.json`) is one record, numbered by its first non-blank line.
    A record of several conversations (an Inspect AI log's samples) is streamed as its parts,
    one per conversation (see `Record.each`).

    Args:
        path: A file path (`.jsonl`, `.jsonl.gz`, `.json`), `-` for standard input, or an open
            text stream.
        format: Force a transcript format instead of detecting it per line.
    """
    if isinstance(path, str | os.PathLike):
        source = os.fspath(path)
    else:
        source = str(getattr(path, "name", "<stream>"))
    stream = open_text(path)
    number = 0
    try:
        for number, line in numbered_lines(stream, source):
            if line.strip():
                yield from parse_text(line, source, number, format).each()
    except READ_ERRORS as exc:
        error = f"cannot read the rest of the log: {read_error(exc)}"
        yield Record(source, number + 1, error=error)
    finally:
        if stream is not path and stream is not sys.stdin:
            stream.close()
