"""Reading log lines, documents and parsed JSON values into `Record`s, and whole logs.

Each function here never raises for bad content: what cannot be read is a `Record` holding its
place and the reason. Which format a record is in, and how it is read, is the readers' table
(`transcripts._readers`); how a log's bytes become numbered lines is `transcripts._io`.
`chatassert.transcripts` re-exports the public names.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import IO, Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, loads_json
from chatassert.transcripts._guess import SUITE_FIRST, not_json, suite_kind, unrecognised
from chatassert.transcripts._io import (
    READ_ERRORS,
    numbered_lines,
    open_text,
    read_error,
    undecodable,
)
from chatassert.transcripts._readers import FORMATS, PARTS, detected

__all__ = [
    "RESPONSES",
    "Record",
    "parse_document",
    "parse_line",
    "parse_record",
    "parse_text",
    "read_one",
    "read_records",
    "read_value",
    "require_format",
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


def require_format(format: str) -> None:
    """Check that `format` names a log format (one of `FORMATS`).

    Raises:
        TranscriptError: when it does not, naming the formats that are known.

    Example:
        >>> require_format("openai")
        >>> require_format("yaml")
        Traceback (most recent call last):
        ...
        chatassert._errors.TranscriptError: unknown transcript format 'yaml'; known: native, ...
    """
    if format not in FORMATS:
        raise TranscriptError(f"unknown transcript format {format!r}; known: {', '.join(FORMATS)}")


def parse_record(record: Any, format: str | None = None) -> Conversation:
    """Turn one parsed JSON record into a conversation, detecting its format unless given.

    Raises:
        TranscriptError: when the record is of no known format or is malformed (nested too
            deeply to read, too).
    """
    if format is not None:
        require_format(format)
    name = format if format is not None else detected(record)
    if name is None:
        raise TranscriptError(unrecognised(record))
    try:
        return _with_turns(FORMATS[name][1](record))
    except TranscriptError:
        suite = _suite_given(record) if format is None else None
        if suite is not None:
            raise TranscriptError(suite) from None
        raise
    except RecursionError:
        raise TranscriptError("malformed record: nested too deeply") from None
    except Exception as exc:  # a reader that failed on a value it did not expect
        raise TranscriptError(
            f"malformed record ({type(exc).__name__} while reading it: {exc})"
        ) from None


def _suite_given(record: Any) -> str | None:
    """The error of a record that is a suite (a flat suite's `turns` look like a native
    log's, so the reader's own error would mislead), or None."""
    kind = suite_kind(record)
    return None if kind is None else f"this is {kind}, not a log: {SUITE_FIRST}"


def _with_turns(conversation: Conversation) -> Conversation:
    """A conversation that has something to check: a record with no turns is an error, not a
    conversation every turn check would pass vacuously."""
    if not conversation.turns:
        raise TranscriptError(
            "the record holds no messages to check (for OpenTelemetry: turn on message "
            "content capture, so spans carry gen_ai.input.messages)"
        )
    return conversation


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
    raw, error = _line_value(line, source, number)
    return error if error is not None else read_value(raw, source, number, format)


def _line_value(line: str, source: str, number: int) -> tuple[Any, Record | None]:
    """The JSON value of one log line: `(value, None)`, or `(None, the record of why the
    line cannot be decoded)`."""
    bad = None if line.isascii() else undecodable(line)  # most lines are ASCII
    if bad is not None:
        byte, index = bad
        return None, Record(
            source,
            number,
            error=f"line is not UTF-8 (byte 0x{byte:02x} at column {index + 1})",
        )
    try:
        raw = loads_json(line)
    except RecursionError:
        return None, Record(source, number, error="line is nested too deeply to read")
    except json.JSONDecodeError as exc:
        # the record's place is the log's line: JSON's own "line 1" would only mislead
        reason = exc.msg.removesuffix(" at")  # "Invalid control character at"
        error = f"line is not JSON: {reason} at column {exc.colno}"
        return None, Record(source, number, error=error)
    except ValueError as exc:  # a number too long to convert
        reason = str(exc).split(";")[0]
        return None, Record(source, number, error=f"line cannot be read: {reason}")
    return raw, None


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
    raw, error = _document_value(text, source, number)
    return error if error is not None else read_value(raw, source, number, format)


def _document_value(text: str, source: str, number: int) -> tuple[Any, Record | None]:
    """The JSON value of a whole one-document file: `(value, None)`, or `(None, the record
    of why the file cannot be decoded)`, naming the file's lines."""
    bad = None if text.isascii() else undecodable(text)
    if bad is not None:
        byte, index = bad
        line = number + text.count("\n", 0, index)
        return None, Record(
            source, number, error=f"the file is not UTF-8 (byte 0x{byte:02x} on line {line})"
        )
    try:
        raw = json.loads(text)
    except RecursionError:
        return None, Record(source, number, error="the file is nested too deeply to read")
    except json.JSONDecodeError as exc:
        where = f"line {number + exc.lineno - 1} column {exc.colno}"
        return None, Record(source, number, error=not_json(text, source, f"{exc.msg}: {where}"))
    except ValueError as exc:  # a number too long to convert
        reason = str(exc).split(";")[0]
        return None, Record(source, number, error=f"the file cannot be read: {reason}")
    return raw, None


def parse_text(
    text: str, source: str = "<stream>", number: int = 0, format: str | None = None
) -> Record:
    """Read what `numbered_lines` gave: one line of a log, or a whole one-document file (text
    that holds a line break before its end)."""
    raw, error = decoded(text, source, number)
    return error if error is not None else read_value(raw, source, number, format)


def decoded(text: str, source: str = "<stream>", number: int = 0) -> tuple[Any, Record | None]:
    r"""The JSON value of what `numbered_lines` gave, decoded as `parse_text` decodes it
    before reading it: `(value, None)`, or `(None, the record of why it cannot be decoded)`.

    An engine that spreads the parts of a large record over processes decodes it here, splits
    it (`split_value`) and sends each process its `Piece`s.

    Example:
        >>> decoded('{"turns": []}\n', "log.jsonl", 2)
        ({'turns': []}, None)
        >>> decoded("{oops", "log.jsonl", 3)[1].error
        'line is not JSON: Expecting property name enclosed in double quotes at column 2'
    """
    if 0 <= text.find("\n") < len(text) - 1:  # a line break before the end: a whole file
        return _document_value(text, source, number)
    return _line_value(text, source, number)


RESPONSES = "responses"
"""The `format` that reads each line as a structured response and no transcript: the line's
JSON is decoded (its errors reported as for any line) and kept in `Record.raw`; no format is
detected and `conversation` stays None. A run whose every case checks JSON responses (an
expect suite) reads its log so."""


def read_value(
    raw: Any, source: str = "<stream>", number: int = 0, format: str | None = None
) -> Record:
    """Read one parsed JSON value (a log's record) into a `Record`, as `parse_line` reads the
    value of a line: its format detected unless given, split into its `parts` when it holds
    several conversations. Never raises for bad content: the error is recorded.

    Example:
        >>> read_value({"turns": [{"text": "Hi"}]}, "log.jsonl", 3).conversation.turns[0].text
        'Hi'
        >>> read_value(7, "log.jsonl", 4).error
        'unrecognised transcript record (a JSON number, not an object); known formats: ...'
    """
    if format == RESPONSES:
        if raw is None:
            return Record(source, number, error="the line is JSON null: no response to check")
        return Record(source, number, raw=raw)
    try:
        name = format if format is not None else detected(raw)
    except TranscriptError as exc:
        return Record(source, number, error=str(exc), raw=raw)
    try:
        pieces = _pieces(raw, name, format)
    except TranscriptError as exc:
        return Record(source, number, error=str(exc), raw=raw)
    except RecursionError:
        return Record(source, number, error="malformed record: nested too deeply", raw=raw)
    except Exception as exc:  # one odd record never ends the reading of a log
        error = f"malformed record ({type(exc).__name__} while reading it: {exc})"
        return Record(source, number, error=error, raw=raw)
    if pieces is None:
        record = read_one(raw, source, number, name)
        suite = _suite_given(raw) if format is None and record.error is not None else None
        return record if suite is None else replace(record, error=suite)
    parts = tuple(one for piece in pieces for one in piece.read(source, number))
    return Record(source, number, raw=raw, parts=parts)


@dataclass(frozen=True, slots=True)
class Piece:
    """One conversation of a record of several, split from it and not yet read
    (`split_value`): picklable, so that the process that checks it is the one that reads it.

    Attributes:
        value: Its JSON value: a sub-record of the format, or an item of a JSON array of
            records.
        format: The format it is read in; for an item, the format forced on the log (None:
            detected).
        part: Its label among the record's parts (a sample id, a trace id, `[2]`).
        item: Whether it is an item of a JSON array of records: read as a record of its own,
            whose own parts are named under its label (`[2]/sample-id`).
    """

    value: Any
    format: str | None
    part: str
    item: bool = False

    def read(self, source: str, number: int) -> tuple[Record, ...]:
        """Its records (several for an item that holds several conversations), as
        `read_value` reads them among the parts of the record `source:number`."""
        if not self.item:
            return (read_one(self.value, source, number, self.format, self.part),)
        return tuple(
            replace(one, part=self.part if one.part is None else f"{self.part}/{one.part}")
            for one in read_value(self.value, source, number, self.format).each()
        )


def _pieces(raw: Any, name: str | None, format: str | None) -> list[Piece] | None:
    """The pieces of a value of the format `name` (`format`: the one forced on the log), or
    None when it is one conversation; raises what the format's split raises."""
    if _is_array_of_records(raw, format):
        return [Piece(item, format, f"[{i}]", item=True) for i, item in enumerate(raw)]
    split = PARTS.get(name) if name is not None else None
    pieces = split(raw) if split is not None else None
    return None if pieces is None else [Piece(sub, name, label) for label, sub in pieces]


def split_value(raw: Any, format: str | None = None) -> list[Piece] | None:
    """The conversations of a record of several (an Inspect log's samples, a trace export's
    traces, a JSON array's records), split from it and not read: the `Piece`s whose records
    (`Piece.read`) are the `parts` `read_value` gives, in order. None when `read_value` reads
    the value whole: one conversation, a JSON response, or a value it reports an error for.

    Example:
        >>> log = {"eval": {"task": "t", "model": "m"}, "samples": [
        ...     {"id": s, "epoch": 1, "messages": [{"role": "user", "content": "Hi"}]}
        ...     for s in ("a", "b")]}
        >>> [(piece.part, piece.format) for piece in split_value(log)]
        [('a', 'inspect'), ('b', 'inspect')]
        >>> [one.where for one in split_value(log)[1].read("log.json", 1)]
        ['log.json:1#b']
        >>> split_value({"turns": [{"text": "Hi"}]}) is None
        True
    """
    if format == RESPONSES:
        return None
    try:
        return _pieces(raw, format if format is not None else detected(raw), format)
    except Exception:  # an error of the value: read_value reports it
        return None


def _is_array_of_records(raw: Any, format: str | None) -> bool:
    """Whether `raw` is a JSON array of records (each read on its own, as a part named by its
    index): a non-empty array of objects, not itself of a format (the forced one, if any: an
    array of messages or of calls is one conversation), some item of which is of a format."""
    if not isinstance(raw, list) or not raw or not all(isinstance(item, dict) for item in raw):
        return False
    if format is not None and format not in FORMATS:
        return False  # read_one names the unknown format
    fits = [FORMATS[format][0]] if format is not None else [d for d, _ in FORMATS.values()]
    try:
        if any(detect(raw) for detect in fits):
            return False
        return any(detect(item) for item in raw for detect in fits)
    except Exception:  # a detector that failed on an odd value: the readers report it
        return False


def read_one(
    raw: Any, source: str, number: int, format: str | None = None, part: str | None = None
) -> Record:
    """The record of one conversation read from a parsed JSON value (or of why it cannot be
    read), named by `part` when it is one of several: the value is never split into parts.

    Example:
        >>> read_one({"turns": [{"text": "Hi"}]}, "log.jsonl", 2, part="s1").where
        'log.jsonl:2#s1'
    """
    try:
        conversation = parse_record(raw, format)
        return Record(source, number, conversation=conversation, raw=raw, part=part)
    except TranscriptError as exc:
        return Record(source, number, error=str(exc), raw=raw, part=part)


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
