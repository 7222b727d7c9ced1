"""Claims checked against evidence: `GroundedInToolResults` (`grounded_in_tool_results`).

A response's *claims* are the numbers, identifiers (order ids, confirmation codes) and quoted
strings in its text. Each must appear in a tool result that came before it: the results of the
same turn and of the turns before it in the conversation (a turn checked on its own, outside a
conversation, has only its own results). With `path`, only the values under that path of each
result's JSON count as evidence. The rules (how numbers are normalised, dates, years, what is
ignored) are in docs/grounding.md. Tests: tests/test_grounding.py and
tests/test_grounding_props.py.

Example:
    >>> from chatassert import ToolCall, ToolResult, Turn
    >>> from chatassert.policies import GroundedInToolResults
    >>> turn = Turn(text="Order ORD-1042 comes to $1,250.00.",
    ...             tool_calls=[ToolCall(name="lookup", id="c1")],
    ...             tool_results=[ToolResult(call_id="c1", data={"id": "ORD-1042",
    ...                                                          "total": 1250})])
    >>> GroundedInToolResults().check(turn).passed
    True
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from chatassert._base import Assertion
from chatassert._budget import run_limited
from chatassert._errors import RegexTimeoutError
from chatassert._history import turns_so_far
from chatassert._jsonpath import JsonPath, compile_path
from chatassert._models import Conversation, ToolResult, Turn, loads_json, turn_of
from chatassert._params import Param, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_pattern
from chatassert._result import Result, Status, location_pointer, shorten

__all__ = ["DEFAULT_IDENTIFIERS", "GroundedInToolResults"]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED

DEFAULT_IDENTIFIERS = (
    r"\b[A-Z][A-Z0-9]*[-_][A-Z0-9_-]*[0-9][A-Z0-9_-]*\b",
    r"\b[A-Z0-9]{6,}\b",
)
"""The default identifier patterns: `ORD-1042`, `TCK_2291`, `AB-12-XY` (capitals, a dash or an
underscore, a digit after it) and codes of six or more capitals and digits (`X7K9P2`). A match
of the defaults is an identifier only when it holds both a letter and a digit."""

# Claims that are compared as text rather than split into numbers: ISO and slashed dates, times.
_DATES = r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)?\b|\b[0-9]{1,2}/[0-9]{1,2}/[0-9]{2,4}\b|\b[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\b"  # noqa: E501
_QUOTES = r"\"([^\"\n]{1,300})\"|\x{201C}([^\x{201D}\n]{1,300})\x{201D}"
_NUMBERS = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?"
_PLAIN_NUMBERS = r"[0-9]+(?:\.[0-9]+)?"

_KINDS = ("quote", "date", "identifier", "number")


@dataclass(frozen=True, slots=True)
class _Claim:
    kind: str
    text: str
    start: int
    end: int
    number: Decimal | None = None


@dataclass(slots=True)
class _Evidence:
    """One piece of evidence: a text or a value found in a tool result."""

    turn: int | None
    result: int
    path: str | None
    text: str
    folded: str
    numbers: frozenset[Decimal]


def _finditer(pattern: Pattern, text: str) -> list[tuple[int, int, str]]:
    """Every non-overlapping match of `pattern` in `text` as (start, end, text), under the regex
    time limit; for a pattern with groups, the first group that took part (a quote's inside)."""
    compiled = pattern._compiled

    def run(limit: float) -> list[tuple[int, int, str]]:
        out: list[tuple[int, int, str]] = []
        for match in compiled.finditer(text, timeout=limit):
            group = next((g for g in range(1, compiled.groups + 1) if match.group(g)), 0)
            start, end = match.span(group)
            if end > start:
                out.append((start, end, match.group(group)))
        return out

    return run_limited(run, pattern.source, pattern.timeout, len(text))


@dataclass(frozen=True, slots=True)
class _Fixed:
    """The built-in patterns, compiled for one time limit."""

    quote: Pattern
    date: Pattern
    number: Pattern
    plain: Pattern
    identifiers: tuple[Pattern, ...]


@functools.lru_cache(maxsize=16)
def _fixed(timeout: float) -> _Fixed:
    return _Fixed(
        compile_pattern(_QUOTES, timeout=timeout),
        compile_pattern(_DATES, timeout=timeout),
        compile_pattern(_NUMBERS, timeout=timeout),
        compile_pattern(_PLAIN_NUMBERS, timeout=timeout),
        tuple(compile_pattern(s, timeout=timeout) for s in DEFAULT_IDENTIFIERS),
    )


def _patterns(given: str | Sequence[str] | None, name: str) -> tuple[str, ...] | None:
    if given is None:
        return None
    items = (given,) if isinstance(given, str) else tuple(given)
    if not items:
        raise ValueError(f"{name} must list at least one pattern (or be omitted)")
    for item in items:
        if not isinstance(item, str) or not item:
            raise ValueError(f"{name} patterns must be non-empty strings, got {item!r}")
    return items


def _number(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _fold(text: str) -> str:
    """Casefold and collapse runs of whitespace: how text claims and evidence are compared."""
    return " ".join(text.casefold().split())


def _has_letter_and_digit(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _result_doc(result: ToolResult) -> tuple[bool, Any]:
    """The JSON of a result: its data, else its content parsed; (False, None) when it has none."""
    if result.data is not None:
        return True, result.data
    try:
        return True, loads_json(result.content)
    except ValueError:
        return False, None


def _leaf_numbers(value: Any, out: set[Decimal]) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        out.add(Decimal(value))
    elif isinstance(value, float) and math.isfinite(value):
        out.add(Decimal(repr(value)))
    elif isinstance(value, dict):
        for v in value.values():
            _leaf_numbers(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _leaf_numbers(v, out)


def _at(turn: int | None, what: str) -> str:
    return what if turn is None else f"turns[{turn}].{what}"


@register
class GroundedInToolResults(Assertion):
    """Passes when every claim of the response appears in a tool result that came before it.

    Claims are quoted strings (`"..."`, `“...”`), dates and times (`2024-03-05`, `05/03/2024`,
    `14:30`), identifiers (`identifiers` patterns; by default `ORD-1042`-like ids and codes such
    as `X7K9P2`) and numbers, found in that order of precedence (a number inside a quote or an
    id is part of it, not a claim of its own). Numbers compare by value: `1,250.00`, `1250` and
    `1250.0` are equal (a comma groups thousands, a point is decimal, signs, currency symbols
    and `%` are not part of the number); a number glued to a letter (`v2`, `3rd`) is part of a
    word. Text claims compare ignoring case and runs of whitespace, as substrings of a result.

    On a turn, its text is checked against its own tool results and, when the turn is checked
    as a turn of a conversation (a case, `OnTurn`, `OnEveryTurn`, ...), those of the turns
    before it; on a conversation, every turn's text against the results of it and the turns
    before it. `path` (dotted or `$` JSONPath) narrows the evidence to the values under it in
    each result's JSON. `ignore_below` drops numbers of a smaller absolute value; `ignore`
    patterns drop the parts of the text they match (years, list markers, ...).

    No claims → `skipped`; claims but no tool result before them → failed; a regex out of time
    → `error`. A failure lists every ungrounded claim with its span in the text; a pass lists
    where each claim was found.

    Example:
        >>> from chatassert import ToolResult, Turn
        >>> turn = Turn(text="Refund of 42.50 issued under RF-7731.",
        ...             tool_results=[ToolResult(content='{"refund_id": "RF-7731", "amount": 40}')])
        >>> result = GroundedInToolResults().check(turn)
        >>> result.reason
        'expected every claim to appear in an earlier tool result but 1 of 2 did not: 42.50 \
(number, text 10-15)'
        >>> GroundedInToolResults(ignore_below=100).check(turn).passed
        True
    """

    __slots__ = (
        "_fixed",
        "_identifiers",
        "_ignore",
        "_path",
        "identifiers",
        "ignore",
        "ignore_below",
        "numbers",
        "path",
        "quotes",
    )
    reads_history = True  # reads the turns before the one checked
    kind = "grounded_in_tool_results"
    level = "any"
    evidence_at = "/text"
    params = (
        Param("path", "str", default=None, doc="only the values under this path of a result"),
        Param(
            "identifiers",
            "str_list",
            default=None,
            doc="regular expressions of identifiers (default: ORD-1042-like ids and codes)",
        ),
        Param("numbers", "bool", default=True, doc="check numbers"),
        Param("quotes", "bool", default=True, doc="check quoted strings"),
        Param("ignore_below", "number", default=None, doc="ignore smaller numbers (absolute)"),
        Param("ignore", "str_list", default=None, doc="regular expressions of text to ignore"),
    )
    options = ("regex_timeout",)
    path: str | None
    identifiers: tuple[str, ...] | None
    numbers: bool
    quotes: bool
    ignore_below: float | int | None
    ignore: tuple[str, ...] | None
    _path: JsonPath | None
    _identifiers: tuple[Pattern, ...]
    _ignore: tuple[Pattern, ...]
    _fixed: _Fixed

    def __init__(
        self,
        *,
        path: str | None = None,
        identifiers: str | Sequence[str] | None = None,
        numbers: bool = True,
        quotes: bool = True,
        ignore_below: float | None = None,
        ignore: str | Sequence[str] | None = None,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        if path is not None and not isinstance(path, str):
            raise TypeError(f"path must be a string, got {type(path).__name__}")
        self._set("path", path)
        self._set("_path", None if path is None else compile_path(path))
        for name, flag in (("numbers", numbers), ("quotes", quotes)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be true or false, got {flag!r}")
            self._set(name, flag)
        if ignore_below is not None and (
            isinstance(ignore_below, bool)
            or not isinstance(ignore_below, int | float)
            or not math.isfinite(ignore_below)
            or ignore_below < 0
        ):
            raise ValueError(f"ignore_below must be a number from 0 up, got {ignore_below!r}")
        self._set("ignore_below", ignore_below)
        for name, given in (("identifiers", identifiers), ("ignore", ignore)):
            sources = _patterns(given, name)
            self._set(name, sources)
            compiled = []
            for source in sources or ():
                try:
                    compiled.append(compile_pattern(source, timeout=regex_timeout))
                except ValueError as exc:
                    raise ValueError(f"{self.kind} {name}: {exc}") from None
            self._set(f"_{name}", tuple(compiled))
        self._set("_fixed", _fixed(float(regex_timeout)))

    def describe(self) -> str:
        """Describe the requirement."""
        where = f" (under {self.path})" if self.path else ""
        return f"every claim of the response appears in an earlier tool result{where}"

    # -- claims ------------------------------------------------------------------------

    def _claims(self, text: str) -> list[_Claim]:
        """The claims of a response, in text order, without overlaps (earlier kinds win)."""
        taken: list[tuple[int, int]] = [(s, e) for s, e, _ in self._spans(self._ignore, text)]
        claims: list[_Claim] = []

        def free(start: int, end: int) -> bool:
            return all(end <= s or start >= e for s, e in taken)

        def add(kind: str, found: list[tuple[int, int, str]]) -> None:
            for start, end, part in found:
                if not free(start, end):
                    continue
                number = None
                if kind == "number":
                    before = text[start - 1] if start else " "
                    after = text[end] if end < len(text) else " "
                    if before.isalnum() or before == "_" or after.isalpha():
                        continue  # part of a word: v2, 3rd, gpt4
                    number = _number(part)
                    if number is None:
                        continue
                    if self.ignore_below is not None and abs(number) < Decimal(
                        repr(self.ignore_below)
                    ):
                        continue
                taken.append((start, end))
                claims.append(_Claim(kind, part, start, end, number))

        fixed = self._fixed
        if self.quotes:
            add("quote", _finditer(fixed.quote, text))
        add("date", _finditer(fixed.date, text))
        if self.identifiers is None:
            found = self._spans(fixed.identifiers, text)
            add("identifier", [f for f in found if _has_letter_and_digit(f[2])])
        else:
            add("identifier", self._spans(self._identifiers, text))
        if self.numbers:
            add("number", _finditer(fixed.number, text))
        return sorted(claims, key=lambda c: (c.start, c.end))

    @staticmethod
    def _spans(patterns: Sequence[Pattern], text: str) -> list[tuple[int, int, str]]:
        found: list[tuple[int, int, str]] = []
        for pattern in patterns:
            found.extend(_finditer(pattern, text))
        return sorted(found, key=lambda f: (f[0], -f[1]))

    # -- evidence ----------------------------------------------------------------------

    def _evidence(self, turn: int | None, index: int, result: ToolResult) -> list[_Evidence]:
        """What one tool result offers as evidence: its text, or the values under `path`."""
        if self._path is None:
            numbers: set[Decimal] = set()
            parts = [result.content] if result.content else []
            if result.data is not None:
                parts.append(json.dumps(result.data, ensure_ascii=False, default=str))
                _leaf_numbers(result.data, numbers)
            return [self._piece(turn, index, None, "\n".join(parts), numbers)]
        has_json, doc = _result_doc(result)
        if not has_json:
            return []
        pieces = []
        for value, where in self._path.find(doc):
            numbers = set()
            _leaf_numbers(value, numbers)
            text = (
                value
                if isinstance(value, str)
                else json.dumps(value, ensure_ascii=False, default=str)
            )
            pieces.append(self._piece(turn, index, self._path.location(where), text, numbers))
        return pieces

    def _piece(
        self, turn: int | None, index: int, path: str | None, text: str, numbers: set[Decimal]
    ) -> _Evidence:
        for pattern in (self._fixed.number, self._fixed.plain):
            for _, _, part in _finditer(pattern, text):
                number = _number(part)
                if number is not None:
                    numbers.add(number)
        return _Evidence(turn, index, path, text, _fold(text), frozenset(numbers))

    # -- checking ----------------------------------------------------------------------

    def _check(self, subject: object) -> Result:
        if isinstance(subject, Conversation):
            turns: Sequence[Turn] = subject.turns
            checked = list(range(len(turns)))
            located = True
        else:
            turn = turn_of(subject)
            turns = turns_so_far(turn)
            checked = [len(turns) - 1]
            located = len(turns) > 1
        try:
            return self._judge(turns, checked, located)
        except RegexTimeoutError as exc:
            return Result(_E, self.kind, f"cannot tell the claims: {exc}", {"error": "timeout"})

    def _judge(self, turns: Sequence[Turn], checked: list[int], located: bool) -> Result:
        def where(i: int) -> int | None:
            return i if located else None

        evidence: list[_Evidence] = []
        seen = 0  # turns whose results are in `evidence`
        grounded: list[dict[str, Any]] = []
        ungrounded: list[dict[str, Any]] = []
        claim_count = 0
        for i in checked:
            while seen <= i:
                for j, result in enumerate(turns[seen].tool_results):
                    evidence.extend(self._evidence(where(seen), j, result))
                seen += 1
            text = turns[i].text
            for claim in self._claims(text):
                claim_count += 1
                row: dict[str, Any] = {
                    "claim": claim.text,
                    "kind": claim.kind,
                    "turn": where(i),
                    "at": _at(where(i), "text") if located else "text",
                    "start": claim.start,
                    "end": claim.end,
                }
                found = self._find(claim, evidence)
                if found is None:
                    ungrounded.append(row)
                else:
                    row["found_in"] = {
                        "turn": found.turn,
                        "tool_result": found.result,
                        "at": _at(found.turn, f"tool_results[{found.result}]"),
                    }
                    if found.path is not None:
                        row["found_in"]["path"] = found.path
                    grounded.append(row)
        results = sum(len(turns[i].tool_results) for i in range(seen))
        details: dict[str, Any] = {
            "claims": claim_count,
            "tool_results": results,
            "grounded": grounded,
            "ungrounded": ungrounded,
        }
        if self.path is not None:
            details["path"] = self.path
        if claim_count == 0:
            return Result(
                _S,
                self.kind,
                "nothing to ground: the response states no number, identifier or quote",
                details,
            )
        if ungrounded:  # the first ungrounded claim is the evidence, marked in its text
            first = ungrounded[0]
            text = turns[first["turn"] if located else checked[-1]].text
            none_before = results == 0
            return Result(
                _F,
                self.kind,
                "expected every claim to appear in an earlier tool result but "
                + (
                    f"no tool result came before the response ({len(ungrounded)} claim(s): "
                    f"{_listed(ungrounded)})"
                    if none_before
                    else f"{len(ungrounded)} of {claim_count} did not: {_listed(ungrounded)}"
                ),
                details,
            )._with_evidence(
                location_pointer(first["at"]) or "/text", text, first["start"], first["end"]
            )
        return Result(
            _P,
            self.kind,
            f"all {claim_count} claim(s) appear in tool results: {_listed(grounded)}",
            details,
        )

    @staticmethod
    def _find(claim: _Claim, evidence: Sequence[_Evidence]) -> _Evidence | None:
        """The latest piece of evidence that holds the claim, or None."""
        folded = _fold(claim.text)
        for piece in reversed(evidence):
            if claim.number is not None:
                if claim.number in piece.numbers:
                    return piece
            elif folded in piece.folded:
                return piece
        return None


def _listed(rows: Sequence[dict[str, Any]], limit: int = 5) -> str:
    """`42.50 (number, turns[1].text 10-15 in turns[0].tool_results[1])`, for the first few."""
    shown = []
    for row in rows[:limit]:
        place = row["at"]
        found = row.get("found_in")
        tail = (
            f" in {found['at']}" + (f" at {found['path']}" if "path" in found else "")
            if found
            else ""
        )
        span = f"{row['start']}-{row['end']}"
        shown.append(f"{shorten(row['claim'], 40)} ({row['kind']}, {place} {span}{tail})")
    more = f", and {len(rows) - limit} more" if len(rows) > limit else ""
    return "; ".join(shown) + more
