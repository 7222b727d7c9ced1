"""Counted words for every report and message: one rule for plurals and thousands separators.

Text, HTML, JUnit and the command line's messages all say "1 error", "2 errors" and
"20,000 failed" the same way because they all say it through `counted`.

Example:
    >>> counted(1, "error"), counted(20000, "tool call"), counted(2, "was", "were")
    ('1 error', '20,000 tool calls', '2 were')
    >>> number(1234567), counted(0, "case")
    ('1,234,567', '0 cases')
"""

__all__ = ["counted", "number", "plural"]


def number(count: int) -> str:
    """`count` with thousands separators (`1,234`), the way every report writes a count."""
    return f"{count:,}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """`word` for a count of 1, else `words` (default: `word` + "s"); the count is not written."""
    if count == 1:
        return word
    return words if words is not None else word + "s"


def counted(count: int, word: str, words: str | None = None) -> str:
    """`"1 error"`, `"3 errors"`, `"1,200 tool calls"`: the count, then the word that agrees."""
    return f"{number(count)} {plural(count, word, words)}"
