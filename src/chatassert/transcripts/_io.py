r"""Reading a log's bytes as text: gzip, byte order marks, bytes that are not UTF-8, lines.

A log is opened as UTF-8 text (`open_text`), with or without a byte order mark, a `.gz` file
decompressed; bytes that are not UTF-8 are kept as escapes (`undecodable` finds the first, so
the reading reports that line and goes on). `numbered_lines` gives each line with its number,
or the whole text of a file that is one document (`reads_whole`: a `.json` file holding one
document over several lines, pretty-printed JSON whatever the file's name, a YAML file). What
reading the rest of an opened log may raise is `READ_ERRORS`, described by `read_error`.

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

__all__ = [
    "READ_ERRORS",
    "numbered_lines",
    "open_text",
    "read_as_one",
    "read_error",
    "reads_whole",
    "undecodable",
    "whole_file_note",
]

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
    return not _is_json(line)


def _is_json(line: str) -> bool:
    """Whether `line` is one whole JSON value."""
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def reads_whole(first: str, source: str) -> str | None:
    r"""Why a log whose first non-blank line is `first` is read whole, as one text, and not
    line by line; None when it is read line by line.

    - A lone `{` or `[` starts a pretty-printed JSON document, whatever the file is named
      (JSON Lines never has one; a `.jsonl` file holding one is read as the JSON it is);
    - a `.json` file whose first line opens a document that goes on past it is one document;
    - a `.yaml` or `.yml` file is a document (a suite, most likely: its reading says so),
      unless its first line is a whole JSON value.

    Example:
        >>> reads_whole("{\n", "run.jsonl"), reads_whole('{"turns": [\n', "run.json")
        ('one pretty-printed JSON document', 'one JSON document')
        >>> reads_whole("turns:\n", "suite.yaml"), reads_whole('{"turns": []}\n', "x.jsonl")
        ('a YAML file', None)
    """
    name = source.lower().removesuffix(".gz")
    if first.strip() in ("{", "["):
        return "one pretty-printed JSON document"
    if name.endswith(".json"):
        return "one JSON document" if _is_document_start(first) else None
    if name.endswith((".yaml", ".yml")) and not _is_json(first):
        return "a YAML file"
    return None


_PEEKED_LINES = 1000
"""At most how many blank lines `read_as_one` reads past looking for a log's first line."""


def read_as_one(path: str) -> str | None:
    """Why the log file at `path` is read whole (`reads_whole`), from its first non-blank
    line; None when it is read line by line, or is not a regular file (standard input, a
    pipe: peeking would consume it) or cannot be read (its reading says why)."""
    import stat

    try:
        if path == "-" or not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open_text(path) as stream:
            for line in itertools.islice(stream, _PEEKED_LINES):
                if line.strip():
                    return reads_whole(line, path)
    except (*READ_ERRORS, ValueError, UnicodeError):
        return None
    return None


def whole_file_note(path: str) -> str | None:
    r"""A note for a log not named `.json` that is read as one pretty-printed JSON document
    (JSON Lines has one record per line; the file's name says otherwise), or None.

    Example:
        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = os.path.join(folder, "run.jsonl")
        ...     with open(path, "w") as file:
        ...         _ = file.write('{\n  "turns": []\n}\n')
        ...     print(whole_file_note(path).removeprefix(path).split(" (")[0])
        : one pretty-printed JSON document, not JSON Lines: read whole, as one record
    """
    why = read_as_one(path)
    if why != "one pretty-printed JSON document" or path.lower().removesuffix(".gz").endswith(
        ".json"
    ):
        return None
    return (
        f"{path}: {why}, not JSON Lines: read whole, as one record (name it .json to say so, "
        "or write one record per line)"
    )


def numbered_lines(stream: IO[str], source: str) -> Iterator[tuple[int, str]]:
    r"""The `(line number, text)` of each line of a log; or, for a log that is one document
    (`reads_whole`: its first non-blank line decides), one `(number of that line, the rest of
    the file)`: a pretty-printed recording is one record.

    Errors reading the stream (`READ_ERRORS`) are raised to the caller as it is iterated.

    Example:
        >>> import io
        >>> pretty = io.StringIO('\n{\n  "turns": []\n}\n')
        >>> [(n, text.count("\n")) for n, text in numbered_lines(pretty, "run.arena.json")]
        [(2, 3)]
        >>> [n for n, _ in numbered_lines(io.StringIO('{}\n{}\n'), "runs.json")]
        [1, 2]
    """
    numbered: Iterator[tuple[int, str]] = enumerate(stream, 1)
    head: list[tuple[int, str]] = []
    for number, line in numbered:
        head.append((number, line))
        if line.strip():
            break
    if head and head[-1][1].strip() and reads_whole(head[-1][1], source):
        number, line = head[-1]
        yield number, line + stream.read()
        return
    yield from itertools.chain(head, numbered)
