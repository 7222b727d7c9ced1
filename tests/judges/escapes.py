"""Secrets and the ways a reply may write them: for the redaction tests and the fuzz target.

`escaped(secret, depth, rng)` writes a secret as a JSON string's content `depth` times over
(JSON text inside JSON, as a verdict inside a chat completion is): the first level picks any
valid escape for each character (`\\"`, `\\\\`, `\\/`, `\\n`, `\\u00e9` or `\\u00E9`, a
surrogate pair), the deeper levels escape as a JSON writer does. `renderings(secret)` lists
what a report, a log or a cache could hold of a secret that got through: the secret itself,
JSON-escaped (ASCII-only or not, up to three levels), HTML- and XML-escaped.
"""

from __future__ import annotations

import html
import json
import random
from collections.abc import Iterable
from xml.sax.saxutils import escape as xml_escape

from hypothesis import strategies as st

SHORT = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n",
         "\r": "\\r", "\t": "\\t"}  # fmt: skip
"""JSON's two-character escapes."""

TRICKY = '"\\/\t\n\x01\x7fé中\u2028😀'
"""Characters a secret's escaping can go wrong on: quote, backslash, slash, controls, DEL,
non-ASCII, a line separator and a character beyond the Basic Multilingual Plane."""


def _hex(code: int, rng: random.Random) -> str:
    """`\\uXXXX` with each hex digit's case chosen at random."""
    return "\\u" + "".join(rng.choice((d.lower(), d.upper())) for d in f"{code:04x}")


def escape_once(text: str, rng: random.Random, *, first: bool = True) -> str:
    """`text` as the content of a JSON string, each character escaped one of the valid ways.

    On a deeper level (`first=False`) a backslash is always `\\\\`, as JSON writers write it:
    a lower level's escapes stay readable as escapes.
    """
    out = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
            options = [char, _hex(high, rng) + _hex(low, rng)]
        elif char == "\\":
            options = ["\\\\", _hex(code, rng)] if first else ["\\\\"]
        elif char == '"' or code < 0x20:
            options = [SHORT[char]] if char in SHORT else []
            options.append(_hex(code, rng))
        elif char == "/":
            options = ["/", "\\/", _hex(code, rng)]
        elif first or not char.isascii():
            options = [char, _hex(code, rng)]
        else:
            options = [char]  # a writer leaves ASCII letters and digits alone
        out.append(rng.choice(options))
    return "".join(out)


def escaped(secret: str, depth: int, rng: random.Random) -> str:
    """`secret` written as JSON string content `depth` times over (0: as it is)."""
    text = secret
    for level in range(depth):
        text = escape_once(text, rng, first=level == 0)
    return text


def renderings(secret: str) -> set[str]:
    """What an output could hold of `secret`: itself, JSON-escaped up to three levels (ASCII
    only or not), and each of those HTML- and XML-escaped."""
    found = {secret}
    for _ in range(3):
        found |= {json.dumps(f, ensure_ascii=a)[1:-1] for f in found for a in (True, False)}
    found |= {html.escape(f, quote=q) for f in list(found) for q in (True, False)}
    found |= {xml_escape(f, {'"': "&quot;"}) for f in list(found)}
    return found


def leaks(secret: str, text: str, echoed: Iterable[str] = ()) -> list[str]:
    """The renderings of `secret`, and of each form of it a server `echoed`, that `text`
    holds."""
    forms = renderings(secret).union(*(renderings(form) for form in echoed))
    return sorted(form for form in forms if form in text)


_ALPHABET = st.one_of(
    st.sampled_from("abcXYZ019-_"),
    st.sampled_from(TRICKY),
    st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x00"),
)
"""Characters of a secret: any but lone surrogates and NUL (no environment variable holds
one), the tricky ones often."""


def secrets() -> st.SearchStrategy[str]:
    """Any secret of 4 to 24 characters (a shorter one is not redacted), from an alphabet
    rich in the characters escaping treats specially."""
    return st.text(_ALPHABET, min_size=4, max_size=24)


def sendable(secret: str) -> bool:
    """Whether an HTTP header can carry `secret` (no control character but tab, no whitespace
    at either end): a judge refuses to send any other key."""
    controls = any(c != "\t" and (ord(c) < 0x20 or ord(c) == 0x7F) for c in secret)
    return not controls and secret == secret.strip()
