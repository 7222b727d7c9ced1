r"""Reading a log's bytes as text: gzip, byte order marks, bytes that are not UTF-8, lines.

A log is opened as UTF-8 text (`open_text`), with or without a byte order mark, a `.gz` file
decompressed; bytes that are not UTF-8 are kept as escapes (`undecodable` finds the first, so
the reading reports that line and goes on). `numbered_lines` gives each line with its number,
or a whole `.json` file that holds one document over several lines. What reading the rest of
an opened log may raise is `READ_ERRORS`, described by `read_error`.

Which format a line is in, and what it says, is the readers' business (`transcripts._readers`);
this module only turns bytes into numbered text.

Example:
    >>> import io
    >>> [(n, text) for n, text in numbered_lines(io.StringIO('{}\n\n{}\n'), "log.jsonl")]
    [(1, '{}\n'), (2, '\n'), (3, '{}\n')]
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
from collections.abc import Iterator
from typing import IO

__all__ = ["READ_ERRORS", "numbered_lines", "open_text", "read_error", "undecodable"]

READ_ERRORS = (OSError, EOFError, zlib.error)
"""What reading the rest of an opened log may raise (a truncated or corrupt `.gz`, an I/O
error); readers report it against the next line and stop reading that log."""

_UNDECODABLE = re.compile("[\udc80-\udcff]")
"""The escapes `open_text` keeps for bytes that are not UTF-8 (`surrogateescape`)."""


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


def undecodable(text: str) -> tuple[int, int] | None:
    r"""The first byte of `text` that was not UTF-8, as `(its value, its index in text)`, or None.

    `text` is what a stream `open_text` opened gave: each byte that is not UTF-8 is kept there
    as an escape. (A caller reading mostly ASCII text tests `text.isascii()` first: an ASCII
    text holds no escape.)

    Example:
        >>> undecodable(b"caf\xe9 ok".decode("utf-8", "surrogateescape"))
        (233, 3)
        >>> undecodable("café") is None
        True
    """
    bad = _UNDECODABLE.search(text)
    if bad is None:
        return None
    return ord(bad.group()) - 0xDC00, bad.start()


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
