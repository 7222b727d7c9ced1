r"""JSON Lines as the commands that read reports and labels split them, and how deep JSON nests.

JSON Lines end at `\n` only. `str.splitlines()` also splits at U+2028, U+2029, U+0085 and
other characters a JSON string may hold unescaped (`json.dumps(..., ensure_ascii=False)`
writes them as they are), which cut a valid line in two. `nesting_over` says how many levels
of arrays and objects a JSON text nests when that is more than a limit, without decoding it:
the commands refuse a line (or a record) nested deeper than their readers and writers
can take, by its place, instead of meeting a `RecursionError` half way through.

Docs: docs/offline.md ("Converting logs"), docs/judges.md ("Re-gating stored results").
Tests: tests/test_jsonlines.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import accumulate

__all__ = ["JSON_SPACE", "escape_for_lines", "json_lines", "nesting_over", "not_utf8"]

JSON_SPACE = " \t\n\r"
"""The whitespace JSON allows around a value (`str.isspace` and `str.strip()` take more)."""

_UNDECODABLE = re.compile("[\udc80-\udcff]")
_UNWRITABLE = re.compile("[\ud800-\udfff\x85\u2028\u2029]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def escape_for_lines(line: str) -> str:
    r"""`line` (JSON text) with each lone surrogate, NEL, U+2028 and U+2029 written as its
    `\uXXXX` escape: JSON allows them raw inside a string, but a lone surrogate cannot be
    written as UTF-8 and `str.splitlines()` cuts a line at the others. Every JSON Lines writer
    passes its lines through here; they read back as the same value.

    Example:
        >>> escape_for_lines('{"a": "x\u2028y\ud800"}')
        '{"a": "x\\u2028y\\ud800"}'
    """
    if line.isascii():
        return line
    return _UNWRITABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    r"""Each line of JSON Lines `text` that holds more than JSON whitespace, with its number.

    Lines end at `\n` only (a `\r` before it is JSON whitespace, so CRLF files read too); a
    U+2028 inside a string is part of its line.

    Example:
        >>> list(json_lines('{"a": "x\u2028y"}\r\n\n[1]'))
        [(1, '{"a": "x\u2028y"}\r'), (3, '[1]')]
    """
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip(JSON_SPACE):
            yield number, line


def nesting_over(text: str, limit: int) -> int | None:
    """How many levels of arrays and objects JSON `text` nests, when that is more than
    `limit`; None when it is not.

    Brackets inside strings do not count. The text is not decoded: for text that is not
    JSON the answer is an estimate, and decoding it will say what is wrong. Text with no more
    than `limit` opening brackets is answered without scanning it.

    Example:
        >>> nesting_over('[[["]]]]]"]]]', 2), nesting_over('[[1], {"a": [2]}]', 3)
        (3, None)
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = max(accumulate(map(_STEP.__getitem__, brackets)), default=0)
    return depth if depth > limit else None


def not_utf8(line: str) -> str | None:
    r"""Why a line read with `errors="surrogateescape"` is not UTF-8 (its first stray byte and
    column), or None when it is.

    A file is read so, rather than refused whole at its first stray byte, so that the problem
    is named by its line like any other.

    Example:
        >>> line = b'{"a": "\xff"}'.decode("utf-8", "surrogateescape")
        >>> not_utf8(line), not_utf8('{"a": "\\udcff"}')
        ('the line is not UTF-8 (byte 0xff at column 8)', None)
    """
    if line.isascii():
        return None
    bad = _UNDECODABLE.search(line)
    if bad is None:
        return None
    byte = ord(bad.group()) - 0xDC00
    return f"the line is not UTF-8 (byte 0x{byte:02x} at column {bad.start() + 1})"
