"""Selecting cases by name, as pytest's `-k` does: `refund and not (slow or flaky)`.

A name in the expression matches a case whose name (or id) contains it, ignoring case;
`and`, `or`, `not` and parentheses combine them, with the usual precedence (`not` binds
tightest, then `and`, then `or`). A name with spaces or parentheses can be quoted ('...' or
"..."). The expression is parsed here, never evaluated as Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["KeywordError", "compile_keyword"]

_TOKEN = re.compile(
    r"""\s*(?:(?P<open>\()|(?P<close>\))|"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<word>[^\s()'"]+))"""
)
_KEYWORDS = ("and", "or", "not")

Matcher = Callable[[Iterable[str]], bool]
"""Whether a case, given as the texts it is known by (name, id), is selected."""


class KeywordError(ValueError):
    """A `-k` expression that cannot be parsed; the message says where and what was expected."""


@dataclass(frozen=True)
class _Token:
    kind: str  # "(", ")", "and", "or", "not", "name", "end"
    text: str
    column: int


def _tokens(expression: str) -> list[_Token]:
    out: list[_Token] = []
    position = 0
    while position < len(expression):
        if not expression[position:].strip():
            break
        found = _TOKEN.match(expression, position)
        if found is None:  # an unclosed quote
            column = len(expression) - len(expression[position:].lstrip()) + 1
            raise KeywordError(f"unclosed quote at column {column}")
        column = found.start(found.lastgroup or 0) + 1
        if found.group("open"):
            out.append(_Token("(", "(", column))
        elif found.group("close"):
            out.append(_Token(")", ")", column))
        elif found.group("word") is not None:
            word = found.group("word")
            kind = word if word in _KEYWORDS else "name"
            out.append(_Token(kind, word, column))
        else:
            text = found.group("dq") if found.group("dq") is not None else found.group("sq")
            out.append(_Token("name", text, column - 1))
        position = found.end()
    out.append(_Token("end", "", len(expression) + 1))
    return out


class _Parser:
    def __init__(self, expression: str) -> None:
        self.tokens = _tokens(expression)
        self.at = 0

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def fail(self, wanted: str) -> KeywordError:
        token = self.peek()
        found = "the end" if token.kind == "end" else repr(token.text)
        return KeywordError(f"expected {wanted} at column {token.column}, found {found}")

    def either(self) -> Matcher:
        options = [self.both()]
        while self.peek().kind == "or":
            self.take()
            options.append(self.both())
        if len(options) == 1:
            return options[0]
        return lambda texts: any(option(texts) for option in options)

    def both(self) -> Matcher:
        parts = [self.negated()]
        while self.peek().kind == "and":
            self.take()
            parts.append(self.negated())
        if len(parts) == 1:
            return parts[0]
        return lambda texts: all(part(texts) for part in parts)

    def negated(self) -> Matcher:
        token = self.peek()
        if token.kind == "not":
            self.take()
            inner = self.negated()
            return lambda texts: not inner(texts)
        if token.kind == "(":
            self.take()
            inner = self.either()
            if self.peek().kind != ")":
                raise self.fail("')'")
            self.take()
            return inner
        if token.kind == "name":
            self.take()
            needle = token.text.casefold()
            return lambda texts: any(needle in text.casefold() for text in texts)
        raise self.fail("a name, 'not' or '('")


def compile_keyword(expression: str) -> Matcher:
    """Parse a `-k` expression into a matcher of a case's texts (its name and id).

    An empty expression selects every case.

    Raises:
        KeywordError: when the expression cannot be parsed.

    Example:
        >>> selected = compile_keyword("refund and not (slow or 'two words')")
        >>> selected(["Refund quickly"]), selected(["refund, slow"]), selected(["two words"])
        (True, False, False)
    """
    parser = _Parser(expression)
    if parser.peek().kind == "end":
        return lambda texts: True
    matcher = parser.either()
    if parser.peek().kind != "end":
        raise parser.fail("'and', 'or' or the end")
    return matcher
