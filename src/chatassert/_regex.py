"""Go/RE2-compatible regular expressions with a time limit on matching.

Specs written for Go tools (PromptKit among them) contain patterns in the syntax of Go's
`regexp` package, which is RE2. This module accepts that syntax, translates it into the
dialect of the third-party `regex` module (in its `V1` mode, where inline flags are scoped
like Go's) and compiles it once. Matching runs with a time limit, so a catastrophic pattern
in a spec cannot hang a test run.

The translation is a single pass over the pattern (`_translate`) that keeps Go's meaning:

* Inline flags `(?i)`, `(?m)`, `(?s)`, `(?U)`, combinations, negation (`(?i-s)`) and scoped
  groups (`(?i:...)`) may appear anywhere; a flag set mid-group lasts to the group's end.
  `(?U)` (ungreedy) is applied by swapping each quantifier's greediness, since `regex` has no
  such flag. `m` is resolved here as well (see `^` and `$` below).
* `^` and `$` are `\\A` and `\\z` unless `(?m)` is in force: in Go a bare `$` does not
  match before a trailing newline, unlike Python's.
* `\\z` is end of text; Go has no `\\Z`, so it is rejected with a hint to use `\\z`.
* `\\d`, `\\s`, `\\w`, `\\b`, `\\B` and the POSIX classes (`[[:alpha:]]`...) are ASCII, as in
  RE2; `\\pL`, `\\p{Greek}` and friends stay Unicode.
* Inside brackets every literal is escaped, so `regex`'s set operators (`--`, `&&`, `||`,
  `~~`) and nested sets never arise from Go text: `[A-Z|a-z]` keeps `|` literal, `[]a]`
  and `[^]a]` start with a literal `]`.
* `\\Q...\\E` is literal text; `\\x{...}`, octal escapes and escaped punctuation become
  explicit literals; a `{` that is not a valid repetition is a literal, as in Go.
* Syntax Go rejects (lookaround, backreferences, atomic groups, possessive or stacked
  quantifiers, unknown escapes, repeat counts over 1000) is rejected with a `ValueError`.

A pattern whose matching work is bounded by its own structure needs no clock: with no
unbounded repeat (`*`, `+`, `{n,}`) it explores a bounded number of paths of bounded length
from each position of the text (`_work_bound`), so a search over a text of ordinary size
cannot run away, and runs without `regex`'s timer (which costs more than the search itself).

Example:
    >>> pattern = compile_pattern(r"(?i)\\b(yes|no)\\b")
    >>> pattern.matches("Yes, please")
    True
"""

from __future__ import annotations

import importlib
import math
from typing import Any, NamedTuple

import regex

from chatassert._budget import BUDGET, run_limited, timed_out

__all__ = [
    "DEFAULT_REGEX_TIMEOUT",
    "Pattern",
    "compile_pattern",
    "compile_regex",
]

# Go limits repeat counts such as `a{2,5}` to this value (regexp/syntax: maxRepeat... 1000).
_MAX_REPEAT = 1000
# Go refuses expressions nested deeper than this (regexp/syntax: maxHeight).
_MAX_DEPTH = 1000

# A class as RE2 defines it: inclusive (low, high) character ranges, and whether it is negated.
_Ranges = tuple[tuple[str, str], ...]

_DIGIT: _Ranges = (("0", "9"),)
_SPACE: _Ranges = (("\t", "\n"), ("\f", "\r"), (" ", " "))  # Go's \s has no \v
_WORD: _Ranges = (("0", "9"), ("A", "Z"), ("_", "_"), ("a", "z"))

# `\d \D \s \S \w \W`: the Perl classes, ASCII-only in RE2.
_PERL_CLASSES: dict[str, tuple[_Ranges, bool]] = {
    "d": (_DIGIT, False),
    "D": (_DIGIT, True),
    "s": (_SPACE, False),
    "S": (_SPACE, True),
    "w": (_WORD, False),
    "W": (_WORD, True),
}

# `[:name:]` inside brackets: the POSIX classes, ASCII-only in RE2 (regexp/syntax/perl_groups.go).
_POSIX_CLASSES: dict[str, _Ranges] = {
    "alnum": (("0", "9"), ("A", "Z"), ("a", "z")),
    "alpha": (("A", "Z"), ("a", "z")),
    "ascii": (("\x00", "\x7f"),),
    "blank": (("\t", "\t"), (" ", " ")),
    "cntrl": (("\x00", "\x1f"), ("\x7f", "\x7f")),
    "digit": _DIGIT,
    "graph": (("!", "~"),),
    "lower": (("a", "z"),),
    "print": ((" ", "~"),),
    "punct": (("!", "/"), (":", "@"), ("[", "`"), ("{", "~")),
    "space": (("\t", "\r"), (" ", " ")),
    "upper": (("A", "Z"),),
    "word": _WORD,
    "xdigit": (("0", "9"), ("A", "F"), ("a", "f")),
}

# Single-letter escapes for control characters (`\n` and so on).
_CONTROL_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}

_OCTAL_DIGITS = "01234567"
_HEX_DIGITS = "0123456789abcdefABCDEF"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

# Hints for `(?...` constructs that Perl and Python have but RE2 does not.
_UNSUPPORTED_GROUPS = (
    ("(?=", "lookahead assertions are not supported by Go's RE2"),
    ("(?!", "lookahead assertions are not supported by Go's RE2"),
    ("(?<=", "lookbehind assertions are not supported by Go's RE2"),
    ("(?<!", "lookbehind assertions are not supported by Go's RE2"),
    ("(?>", "atomic groups are not supported by Go's RE2"),
    ("(?#", "inline comments are not supported by Go's RE2"),
    ("(?P=", "backreferences are not supported by Go's RE2"),
    ("(?P>", "recursion is not supported by Go's RE2"),
    ("(?(", "conditionals are not supported by Go's RE2"),
)


class _Mode(NamedTuple):
    """The flags the translator resolves itself (`i` and `s` are left to `regex`)."""

    multiline: bool = False  # (?m): ^ and $ match at line boundaries
    ungreedy: bool = False  # (?U): quantifiers are lazy unless followed by ?


def _literal(char: str) -> str:
    """Return `regex` syntax matching `char` literally, inside or outside brackets."""
    if char.isascii():
        if char.isalnum() or char == "_":
            return char
        if char.isprintable():  # punctuation and space: a backslash makes them literal
            return "\\" + char
        return f"\\x{ord(char):02x}"
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _class_body(ranges: _Ranges) -> str:
    """Return the inside of a bracket expression (no brackets) for `ranges`."""
    parts = []
    for low, high in ranges:
        parts.append(_literal(low) if low == high else f"{_literal(low)}-{_literal(high)}")
    return "".join(parts)


def _class(ranges: _Ranges, negated: bool) -> str:
    """Return a bracket expression for `ranges`, usable alone or nested in another (V1 sets)."""
    return f"[{'^' if negated else ''}{_class_body(ranges)}]"


class _Translator:
    """One pass over a Go pattern, producing the equivalent `regex` V1 pattern.

    Attributes:
        src: The Go pattern.
        pos: Index of the next character of `src` to read.
        out: Translated pieces, joined at the end.
        mode: The flags in force at `pos`.
        stack: For each open group, the mode to restore at its `)` and where it opened.
        last: What was emitted last, for checking quantifiers: "none" (start, `(`, `|`),
            "atom" (something a quantifier may follow), "repeat" (a quantifier) or
            "flags" (a flag group such as `(?i)`).
        names: The names of the named groups seen so far.
    """

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.out: list[str] = []
        self.mode = _Mode()
        self.stack: list[tuple[_Mode, int]] = []
        self.last = "none"
        self.names: set[str] = set()
        # Nested repeat counts multiply (`(?:a{100}){100}` is 10,000 copies): the weight of
        # the last item, and the largest weight in each open group, as Go checks them.
        self.last_weight = 1
        self.weights: list[int] = [1]

    # -- errors -----------------------------------------------------------------------------

    def error(self, what: str, pos: int, hint: str | None = None) -> ValueError:
        """Return the `ValueError` for an invalid pattern, naming it and the position."""
        message = f"invalid regular expression {self.src!r}: {what} at position {pos}"
        if hint:
            message += f"; {hint}"
        return ValueError(message)

    # -- main loop ----------------------------------------------------------------------------

    def run(self) -> str:
        """Translate the whole pattern and return the `regex` V1 text."""
        src = self.src
        while self.pos < len(src):
            char = src[self.pos]
            if char == "(":
                self.open_group()
            elif char == ")":
                self.close_group()
            elif char == "|":
                self.emit("|", "none")
                self.pos += 1
            elif char in "*+?":
                self.pos += 1
                self.repeat(char, self.pos - 1)
            elif char == "{":
                self.brace()
            elif char == "[":
                self.bracket()
            elif char == "\\":
                self.escape()
            else:
                # `.` means the same in both dialects; `^` and `$` depend on (?m), which is
                # resolved here so the output does not rely on how `regex` scopes `m`.
                if char == ".":
                    text = "."
                elif char == "^":
                    text = "(?m:^)" if self.mode.multiline else "\\A"
                elif char == "$":
                    text = "(?m:$)" if self.mode.multiline else "\\Z"
                else:
                    text = _literal(char)
                self.emit(text, "atom")
                self.pos += 1
        if self.stack:
            raise self.error("missing closing )", self.stack[-1][1], "add ')' or escape '(' as \\(")
        return "".join(self.out)

    def emit(self, text: str, last: str) -> None:
        """Append translated text and record what kind of item it was."""
        self.out.append(text)
        self.last = last
        if last == "atom":
            self.last_weight = 1

    # -- quantifiers --------------------------------------------------------------------------

    def repeat(self, operator: str, start: int) -> None:
        """Emit a quantifier (`*`, `+`, `?` or `{n,m}`); `self.pos` is just past it."""
        lazy = self.src.startswith("?", self.pos)
        if lazy:
            self.pos += 1
        text = self.src[start : self.pos]
        if self.last == "repeat":
            raise self.error(
                f"invalid nested repetition operator {text!r}",
                start,
                "Go does not stack quantifiers or support possessive ones (a++); "
                "remove one, or use a group such as (?:a+)+",
            )
        if self.last == "none":
            raise self.error(
                f"missing argument to repetition operator {text!r}",
                start,
                f"escape it (\\{operator[0]}) to match it literally",
            )
        if self.last == "flags":
            raise self.error(
                f"repetition operator {text!r} directly after a flag group is not supported",
                start,
                "put the flag group before the item being repeated",
            )
        # Under (?U) Go swaps greedy and lazy; `regex` has no such flag, so swap here.
        self.emit(operator + ("?" if lazy != self.mode.ungreedy else ""), "repeat")

    def brace(self) -> None:
        """Handle `{`: a repetition `{n}`, `{n,}`, `{n,m}`, or else a literal `{` as in Go."""
        start = self.pos
        parsed = self.parse_repeat(start)
        if parsed is None:
            self.emit("\\{", "atom")
            self.pos += 1
            return
        low, high, end = parsed
        text = self.src[start:end]
        if low > _MAX_REPEAT or high > _MAX_REPEAT:
            raise self.error(
                f"invalid repeat count {text}", start, f"Go allows at most {_MAX_REPEAT}"
            )
        if high >= 0 and low > high:
            raise self.error(
                f"invalid repeat count {text}", start, "the minimum exceeds the maximum"
            )
        count = high if high >= 0 else low
        if count >= 2:
            weight = self.last_weight * count
            if weight > _MAX_REPEAT:
                raise self.error(
                    f"invalid repeat count {text}",
                    start,
                    f"nested repeat counts multiply, and Go allows at most {_MAX_REPEAT} in all",
                )
            self.last_weight = weight
            self.weights[-1] = max(self.weights[-1], weight)
        self.pos = end
        operator = f"{{{low}}}" if low == high else f"{{{low},{high if high >= 0 else ''}}}"
        self.repeat(operator, start)

    def parse_repeat(self, start: int) -> tuple[int, int, int] | None:
        """Parse `{n}`, `{n,}` or `{n,m}` at `start` the way Go does.

        Returns:
            `(min, max, end)` with max -1 for "no maximum" and `end` just past the `}`, or
            None when the text is not a repetition (then `{` is a literal).
        """
        src = self.src

        def number(pos: int) -> tuple[int, int] | None:
            end = pos
            while end < len(src) and src[end] in "0123456789":
                end += 1
            digits = src[pos:end]
            if not digits or (len(digits) > 1 and digits[0] == "0"):  # Go: no leading zeros
                return None
            return int(digits), end

        first = number(start + 1)
        if first is None:
            return None
        low, pos = first
        high = low
        if src.startswith(",", pos):
            pos += 1
            if src.startswith("}", pos):
                high = -1
            else:
                second = number(pos)
                if second is None:
                    return None
                high, pos = second
        if not src.startswith("}", pos):
            return None
        return low, high, pos + 1

    # -- groups -------------------------------------------------------------------------------

    def open_group(self) -> None:
        """Handle `(`: a capture, a named capture, a non-capturing or a flag group."""
        start = self.pos
        src = self.src
        if len(self.stack) >= _MAX_DEPTH:
            raise self.error("expression nests too deeply", start)
        if not src.startswith("(?", start):
            self.push(start, self.mode)
            self.emit("(", "none")
            self.pos += 1
            return
        for prefix, hint in _UNSUPPORTED_GROUPS:
            if src.startswith(prefix, start):
                raise self.error(f"invalid or unsupported Perl syntax {prefix!r}", start, hint)
        if src.startswith("(?P<", start) or src.startswith("(?<", start):
            self.named_group(start)
        else:
            self.flag_group(start)

    def named_group(self, start: int) -> None:
        """Handle `(?P<name>` or `(?<name>`, emitted as `(?P<name>`."""
        begin = start + (4 if self.src.startswith("(?P<", start) else 3)
        end = self.src.find(">", begin)
        if end < 0:
            raise self.error("invalid named capture: missing '>'", start)
        name = self.src[begin:end]
        if not name or not set(name) <= _NAME_CHARS:
            raise self.error(
                f"invalid named capture {self.src[start : end + 1]!r}",
                start,
                "a group name is made of ASCII letters, digits and '_'",
            )
        if name[0].isdigit():
            raise self.error(
                f"group name {name!r} starts with a digit, which is not supported",
                start,
                "start the name with a letter or '_'",
            )
        if name in self.names:
            raise self.error(f"duplicate capture group name {name!r}", start)
        self.names.add(name)
        self.push(start, self.mode)
        self.emit(f"(?P<{name}>", "none")
        self.pos = end + 1

    def flag_group(self, start: int) -> None:
        """Handle `(?flags)` and `(?flags:`, with flags from `imsU` and one optional `-`.

        As in Go, a later mention of a flag overrides an earlier one. `m` and `U` are
        resolved by the translator and dropped from the output; `i` and `s` are passed on.
        """
        src = self.src
        pos = start + 2
        values: dict[str, bool] = {}
        negated = False
        saw_flag = False
        while pos < len(src):
            char = src[pos]
            if char in "imsU":
                values[char] = not negated
                saw_flag = True
            elif char == "-" and not negated:
                negated = True
                saw_flag = False
            elif char in ":)" and (saw_flag or not negated):
                break
            else:
                raise self.error(
                    f"invalid or unsupported Perl syntax {src[start : pos + 1]!r}",
                    start,
                    "Go supports only the flags i, m, s and U, as in (?i) or (?i-s:...)",
                )
            pos += 1
        else:
            raise self.error("missing closing )", start, "add ')' or escape '(' as \\(")

        mode = _Mode(
            multiline=values.get("m", self.mode.multiline),
            ungreedy=values.get("U", self.mode.ungreedy),
        )
        on = "".join(flag for flag in "is" if values.get(flag) is True)
        off = "".join(flag for flag in "is" if values.get(flag) is False)
        flags = on + (f"-{off}" if off else "")
        self.pos = pos + 1
        if src[pos] == ":":  # `(?flags:...)`: the flags last until the matching `)`
            self.push(start, self.mode)
            self.mode = mode
            self.emit(f"(?{flags}:", "none")
        else:  # `(?flags)`: the flags last until the end of the enclosing group
            self.mode = mode
            self.emit(f"(?{flags})" if flags else "", "flags")

    def push(self, start: int, mode: _Mode) -> None:
        """Remember the mode to restore when the group opened at `start` closes."""
        self.stack.append((mode, start))
        self.weights.append(1)

    def close_group(self) -> None:
        """Handle `)`: restore the flags in force before the group opened."""
        if not self.stack:
            raise self.error("unexpected )", self.pos, "escape it as \\) to match a parenthesis")
        self.mode, _ = self.stack.pop()
        inner = self.weights.pop()
        self.emit(")", "atom")
        self.last_weight = inner  # a group weighs what its heaviest part does
        self.weights[-1] = max(self.weights[-1], inner)
        self.pos += 1

    # -- escapes ------------------------------------------------------------------------------

    def escape(self) -> None:
        """Handle a backslash outside brackets."""
        start = self.pos
        src = self.src
        if start + 1 >= len(src):
            raise self.error("trailing backslash at end of expression", start, "escape it as \\\\")
        char = src[start + 1]
        if char == "Q":
            # `\Q...\E`: literal text up to `\E` or the end of the pattern.
            end = src.find("\\E", start + 2)
            text = src[start + 2 : end if end >= 0 else len(src)]
            self.pos = end + 2 if end >= 0 else len(src)
            if text:
                self.emit(regex.escape(text), "atom")
            return
        if char in "pP":
            self.emit(self.unicode_class(start), "atom")
            return
        self.pos = start + 2
        if char in _PERL_CLASSES:
            ranges, negated = _PERL_CLASSES[char]
            self.emit(_class(ranges, negated), "atom")
        elif char == "A":
            self.emit("\\A", "atom")
        elif char == "z":
            self.emit("\\Z", "atom")  # `regex`'s \Z is the very end, like Go's \z
        elif char in "bB":
            self.emit(f"(?a:\\{char})", "atom")  # ASCII word boundary, as in RE2
        else:
            self.pos = start
            self.emit(_literal(self.escaped_char()), "atom")

    def escaped_char(self) -> str:
        """Read an escape that stands for one character (`\\n`, `\\x41`, `\\.`...) at `pos`.

        Returns:
            The character; `self.pos` is moved past the escape.
        """
        start = self.pos
        src = self.src
        if start + 1 >= len(src):
            raise self.error("trailing backslash at end of expression", start, "escape it as \\\\")
        char = src[start + 1]
        pos = start + 2
        if char in _OCTAL_DIGITS:
            # `\0`, `\012`, `\123`: up to three octal digits. A lone `\1`...`\7` would be a
            # backreference, which Go does not have.
            if char != "0" and not (pos < len(src) and src[pos] in _OCTAL_DIGITS):
                raise self.error(
                    f"invalid escape sequence '\\{char}'",
                    start,
                    "backreferences are not supported by Go's RE2",
                )
            while pos < len(src) and pos < start + 4 and src[pos] in _OCTAL_DIGITS:
                pos += 1
            self.pos = pos
            return chr(int(src[start + 1 : pos], 8))
        if char == "x":
            return self.hex_escape(start)
        if char in _CONTROL_ESCAPES:
            self.pos = pos
            return _CONTROL_ESCAPES[char]
        if char.isascii() and not char.isalnum():  # escaped punctuation is literal
            self.pos = pos
            return char
        hint = "Go only allows escaping punctuation; write the character without '\\'"
        if char == "Z":
            hint = "Go has no \\Z; use \\z for the end of the text"
        elif char in "89":
            hint = "backreferences are not supported by Go's RE2"
        elif char in "AbBz":
            hint = f"\\{char} is not allowed inside brackets"
        elif char == "E":
            hint = "\\E only ends a quotation started with \\Q"
        elif char == "C":
            hint = "Go does not support \\C (any byte); use . instead"
        raise self.error(f"invalid escape sequence '\\{char}'", start, hint)

    def hex_escape(self, start: int) -> str:
        """Read `\\xHH` or `\\x{H...}` at `start` and return the character."""
        src = self.src
        pos = start + 2
        if src.startswith("{", pos):
            end = src.find("}", pos)
            digits = src[pos + 1 : end] if end >= 0 else ""
            if not digits or not all(d in _HEX_DIGITS for d in digits):
                raise self.error("invalid escape sequence '\\x{'", start, "write \\x{41} or \\x41")
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise self.error(
                    f"invalid escape sequence '\\x{{{digits}}}'", start, "max \\x{10FFFF}"
                )
            self.pos = end + 1
            return chr(code)
        digits = src[pos : pos + 2]
        if len(digits) != 2 or not all(d in _HEX_DIGITS for d in digits):
            raise self.error(
                "invalid escape sequence '\\x'", start, "write two hex digits, as in \\x41"
            )
        self.pos = pos + 2
        return chr(int(digits, 16))

    def unicode_class(self, start: int) -> str:
        """Read `\\pL`, `\\p{Greek}`, `\\p{^Greek}` or the `\\P` forms at `start`.

        Returns:
            The escape as `regex` writes it (the same text); `self.pos` is moved past it.
        """
        src = self.src
        pos = start + 2
        if pos < len(src) and src[pos] == "{":
            end = src.find("}", pos)
            name = src[pos + 1 : end].removeprefix("^") if end >= 0 else ""
            if not name or not set(name) <= _NAME_CHARS:
                raise self.error(
                    f"invalid character class range {src[start : max(end + 1, pos + 1)]!r}",
                    start,
                    "write a Unicode category or script, as in \\p{Lu} or \\p{Greek}",
                )
            self.pos = end + 1
        elif pos < len(src) and src[pos].isascii() and src[pos].isalpha():
            self.pos = pos + 1
        else:
            raise self.error(
                f"invalid character class range {src[start : pos + 1]!r}",
                start,
                "write a Unicode category or script, as in \\pL or \\p{Greek}",
            )
        return src[start : self.pos]

    # -- bracket expressions ------------------------------------------------------------------

    def bracket(self) -> None:
        """Handle a bracket expression `[...]` the way Go parses it.

        Every literal is escaped in the output, so `regex`'s V1 set operations (`--`, `&&`,
        `||`, `~~`) and nested sets cannot arise from Go text; negated Perl and POSIX
        classes become nested sets, which in V1 mean union.
        """
        start = self.pos
        src = self.src
        pos = start + 1
        negated = src.startswith("^", pos)
        if negated:
            pos += 1
        items: list[str] = []
        first = True  # a `]` right after `[` or `[^` is a literal in Go
        while True:
            if pos >= len(src):
                raise self.error(
                    "missing closing ]", start, "add ']' or escape '[' as \\[ to match it"
                )
            if src[pos] == "]" and not first:
                break
            first = False
            # POSIX classes: `[:alpha:]`, `[:^alpha:]`.
            if src.startswith("[:", pos):
                end = src.find(":]", pos + 2)
                if end >= 0:
                    items.append(self.posix_class(src[pos : end + 2], pos))
                    pos = end + 2
                    continue
            # Unicode classes: `\pL`, `\p{Greek}`.
            if src.startswith("\\p", pos) or src.startswith("\\P", pos):
                items.append(self.unicode_class(pos))
                pos = self.pos
                continue
            # Perl classes: `\d`, `\W`...
            if src[pos] == "\\" and src[pos + 1 : pos + 2] in _PERL_CLASSES:
                ranges, perl_negated = _PERL_CLASSES[src[pos + 1]]
                items.append(_class(ranges, True) if perl_negated else _class_body(ranges))
                pos += 2
                continue
            # A character or a range `a-z`; `-` before `]` is a literal, as in `[a-]`.
            low, pos = self.class_char(pos)
            high = low
            if src.startswith("-", pos) and pos + 1 < len(src) and src[pos + 1] != "]":
                high, pos = self.class_char(pos + 1)
                if high < low:
                    raise self.error(f"invalid character class range '{low}-{high}'", start)
            items.append(_class_body(((low, high),)))
        self.pos = pos + 1
        self.emit(f"[{'^' if negated else ''}{''.join(items)}]", "atom")

    def class_char(self, pos: int) -> tuple[str, int]:
        """Read one character inside brackets (plain or escaped) at `pos`.

        Returns:
            The character and the position just past it.
        """
        if self.src[pos] != "\\":
            return self.src[pos], pos + 1
        self.pos = pos
        char = self.escaped_char()
        return char, self.pos

    def posix_class(self, name: str, pos: int) -> str:
        """Return the translation of a POSIX class `[:name:]` or `[:^name:]` inside brackets."""
        bare = name[2:-2]
        negated = bare.startswith("^")
        ranges = _POSIX_CLASSES.get(bare.removeprefix("^"))
        if ranges is None:
            raise self.error(
                f"invalid character class range {name!r}",
                pos,
                "known POSIX classes: " + ", ".join(sorted(_POSIX_CLASSES)),
            )
        return _class(ranges, True) if negated else _class_body(ranges)


def _translate(source: str) -> str:
    """Translate a Go/RE2 pattern into an equivalent `regex` V1 pattern.

    Args:
        source: The pattern in Go's `regexp` syntax.

    Returns:
        The pattern for `regex.compile(..., regex.V1)`.

    Raises:
        ValueError: If the pattern is not valid Go syntax, or uses Go syntax not supported
            here; the message names the pattern, the problem, its position and a fix.
    """
    return _Translator(source).run()


class Pattern:
    """A compiled Go/RE2 regular expression that matches under a time limit.

    Build one with `compile_pattern`. A `Pattern` is immutable, hashable, equal to another
    with the same `source` and `timeout`, and picklable (unpickling compiles it again).

    Attributes:
        source: The pattern as written, in Go syntax.
        timeout: The longest a `search` may take, in seconds; inside a check, the longest all
            the check's searches may take together (see `open_budget`).
    """

    __slots__ = ("_compiled", "_work", "source", "timeout")

    source: str
    timeout: float
    _compiled: Any  # a `regex.Pattern`; `regex` ships no type information
    _work: int | None

    def __init__(self, source: str, timeout: float, compiled: Any) -> None:
        """Wrap an already compiled pattern; use `compile_pattern` rather than this.

        Args:
            source: The pattern as written, in Go syntax.
            timeout: The time limit for each search, in seconds.
            compiled: The `regex` pattern compiled from the translation of `source`.
        """
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "_work", _work_bound(source))

    def search(self, text: str) -> regex.Match[str] | None:
        """Find the first match anywhere in `text` (an unanchored search).

        Args:
            text: The text to search.

        Returns:
            The match, or None if there is none.

        Raises:
            RegexTimeoutError: If the search did not finish within `timeout` seconds.
        """
        search = self._compiled.search
        work = self._work
        if work is not None and len(text) * work <= UNTIMED_STEPS:
            return search(text)  # bounded by the pattern's structure: no clock needed
        if BUDGET.get() is None:  # outside a check: this search alone has the time limit
            try:
                return search(text, timeout=self.timeout)
            except TimeoutError as exc:
                raise timed_out("pattern", self.source, self.timeout, len(text)) from exc
        return run_limited(
            lambda limit: search(text, timeout=limit), self.source, self.timeout, len(text)
        )

    def matches(self, text: str) -> bool:
        """Tell whether the pattern matches anywhere in `text`.

        Args:
            text: The text to search.

        Returns:
            True if `search` finds a match.

        Raises:
            RegexTimeoutError: If the search did not finish within `timeout` seconds.
        """
        return self.search(text) is not None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Pattern is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Pattern is immutable; cannot delete {name!r}")

    def __reduce__(self) -> tuple[Any, tuple[str, float]]:
        return (_unpickle_pattern, (self.source, self.timeout))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pattern):
            return NotImplemented
        return (self.source, self.timeout) == (other.source, other.timeout)

    def __hash__(self) -> int:
        return hash((self.source, self.timeout))

    def __repr__(self) -> str:
        return f"Pattern({self.source!r})"


def compile_pattern(source: str, *, timeout: float = 1.0) -> Pattern:
    """Compile a Go/RE2 regular expression.

    Args:
        source: The pattern in Go's `regexp` syntax. An empty pattern is accepted here (it
            matches everywhere); callers that need a non-empty one check for it.
        timeout: The longest a single search may take, in seconds; must be positive.

    Returns:
        The compiled pattern.

    Raises:
        ValueError: If the pattern is invalid (the message names the pattern, the problem,
            its position and, where obvious, a fix) or the timeout is not positive.

    Example:
        >>> compile_pattern(r"\\d{3}-\\d{4}").matches("call 555-1234")
        True
    """
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    translated = _translate(source)
    try:  # (?-f): simple case folding, as RE2 (`(?i)ß` does not match "ss")
        compiled = regex.compile("(?-f)" + translated, regex.V1)
    except MemoryError:
        raise ValueError(
            f"invalid regular expression {source!r}: too large to compile; "
            "use fewer or smaller repeat counts"
        ) from None
    except regex.error as exc:
        raise ValueError(
            f"invalid regular expression {source!r}: {exc.msg} at position "
            f"{max((exc.pos or 0) - len('(?-f)'), 0)} of its translation {translated!r}"
        ) from exc
    return Pattern(source, float(timeout), compiled)


UNTIMED_STEPS = 2_000_000
"""The most steps (the text's length times the pattern's work bound) a search may take untimed:
a few milliseconds of matching at most."""

# CPython's own pattern parser (typeshed leaves these private modules out)
_sre: Any = importlib.import_module("re._constants")
_sre_parser: Any = importlib.import_module("re._parser")

_CAP = 1 << 40
_ATOMS = frozenset((_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN, _sre.CATEGORY))
_NOT_CPYTHON = ("\\p", "\\P", "\\Q", "\\x{", "[:", "(?U")  # Go syntax `re` reads otherwise


def _work_bound(source: str) -> int | None:
    """An upper bound on the steps a backtracking search of the Go pattern `source` takes from
    one position of a text (its paths times its longest match), or None when there is none (an
    unbounded repeat) or the pattern uses syntax this bound is not computed for.

    The pattern's structure is read by CPython's own `re` parser: Go patterns are RE2, whose
    constructs `re` reads alike, but for the syntax listed in `_NOT_CPYTHON` and what `re`
    refuses, which are left timed.

    Example:
        >>> _work_bound("(?i)confirm(ed|ation)"), _work_bound(r"\\d{3}-\\d{4}")
        (24, 8)
        >>> _work_bound("(a+)+b") is None, _work_bound("a*b") is None
        (True, True)
    """
    if any(s in source for s in _NOT_CPYTHON):
        return None
    try:
        parsed = _sre_parser.parse(source)
    except Exception:  # syntax `re` does not read (`\\z`, ...): keep the timer
        return None
    bound = _bound(parsed)
    return None if bound is None else max(bound[0] * bound[1], 1)


def _bound(items: Any) -> tuple[int, int] | None:
    """`(paths, longest match)` of a parsed sequence, or None when unbounded or unknown."""
    paths, length = 1, 0
    for op, av in items:
        if op in _ATOMS:
            p, n = 1, 1
        elif op is _sre.AT:  # an anchor: matches no character
            p, n = 1, 0
        elif op is _sre.SUBPATTERN:
            inner = _bound(av[-1])
            if inner is None:
                return None
            p, n = inner
        elif op is _sre.BRANCH:
            p = n = 0
            for alternative in av[1]:
                inner = _bound(alternative)
                if inner is None:
                    return None
                p, n = min(p + inner[0], _CAP), max(n, inner[1])
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            low, high, sub = av
            inner = _bound(sub)
            if high is _sre.MAXREPEAT or inner is None:
                return None
            p, term = 0, 1  # the paths of 0, 1, ..., high repeats, summed from `low` on
            for count in range(high + 1):
                if count >= low:
                    p = min(p + term, _CAP)
                term = min(term * inner[0], _CAP)
            n = high * inner[1]
        else:  # lookaround, backreferences, ...: Go has none, and no bound is given for them
            return None
        paths, length = min(paths * p, _CAP), length + n
    return paths, length


def _unpickle_pattern(source: str, timeout: float) -> Pattern:
    """Rebuild a pickled `Pattern` by compiling it again."""
    return compile_pattern(source, timeout=timeout)


DEFAULT_REGEX_TIMEOUT = 1.0


def compile_regex(pattern: object, what: str, timeout: float) -> Pattern:
    """Compile a pattern for an assertion, rejecting non-strings and empty patterns (G4)."""
    if not isinstance(pattern, str):
        raise TypeError(f"{what} pattern must be a string, got {type(pattern).__name__}")
    if not pattern:
        raise ValueError(f"{what} pattern must not be empty")
    return compile_pattern(pattern, timeout=timeout)
