"""Text checks on a turn's response text: the flat dialect's substring, equality and regex types.

The text of a turn is the content of its last assistant message with text (G1); substring
checks are case-insensitive (G3); regular expressions follow Go/RE2 syntax with a time limit (G8).

Docs: docs/flat.md. Tests: tests/test_text.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

from chatassert._base import Assertion, remember
from chatassert._errors import RegexTimeoutError
from chatassert._lazy import TURN_TYPES
from chatassert._models import Turn, lower_text_of, text_of
from chatassert._params import Param, register, string_values
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status, shorten

__all__ = [
    "Contains",
    "ContainsAll",
    "ContainsAny",
    "Equals",
    "Matches",
    "NotContains",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

TEXT = "/text"
"""The JSON Pointer of a turn's text, relative to the turn (a string subject is read as one)."""


def _original(subject: object) -> str:
    return cast(Turn, subject).text if type(subject) in TURN_TYPES else text_of(subject)


def span_of(text: str, lowered: str, low: str) -> tuple[int, int]:
    """The span in `text` of the first `low` found in `lowered` (`text.lower()`), or (-1, -1).

    Lowering may change the length of a few characters (`İ`), so positions in the lowered
    text are mapped back to the original when the lengths differ.

    Example:
        >>> span_of("Sorry, Internal Error", "sorry, internal error", "internal error")
        (7, 21)
        >>> span_of("İx needle", "i̇x needle", "needle")
        (3, 9)
    """
    i = lowered.find(low)
    if i < 0:
        return -1, -1
    if len(lowered) == len(text):
        return i, i + len(low)
    start = _unlowered(text, i)
    return start, _unlowered(text, i + len(low), start)


def _unlowered(text: str, position: int, k: int = 0) -> int:
    size = len(text[:k].lower())
    while size < position and k < len(text):
        size += len(text[k].lower())
        k += 1
    return k


def _one_or_list(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)


class _Substrings(Assertion):
    """Shared construction of the substring types: one string or a list, lowered once.

    Outcomes that do not depend on the subject (every pass, most failures) are built here as
    `Result.shared` records and returned as they are, so those checks allocate nothing.
    Failures that name a subset of the values (`missing`, `found`) are built on first sight
    and remembered per subset (see `remember`).
    """

    __slots__ = ("_fail", "_lowered", "_memo", "_pairs", "_pass", "values")
    evidence_at = "/text"
    params = (
        Param(
            "value", "str_list", required=True, attr="values", doc="a string, or a list of strings"
        ),
    )
    values: tuple[str, ...]
    _lowered: tuple[str, ...]
    _pairs: tuple[tuple[str, str], ...]
    _pass: Result
    _fail: Result
    _memo: dict[tuple[str, ...], Result]

    def __init__(self, values: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("values", string_values(values, self.kind))
        self._set("_lowered", tuple(v.lower() for v in self.values))
        self._set("_pairs", tuple(zip(self.values, self._lowered, strict=True)))
        self._set("_pass", self._constant(_P, "", self._details_on_pass()))
        self._set("_fail", self._constant(_F, *self._constant_failure(), pointer=TEXT))
        self._set("_memo", {})

    def _details_on_pass(self) -> dict[str, Any]:
        raise NotImplementedError

    def _constant_failure(self) -> tuple[str, dict[str, Any]]:
        """The failure when it does not depend on the subject (for one value, say)."""
        raise NotImplementedError

    def _subset_failure(self, subset: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        """The failure naming `subset` of the values (the missing ones, or the found ones)."""
        raise NotImplementedError

    def _failure_for(self, subset: list[str]) -> Result:
        key = tuple(subset)
        result = self._memo.get(key)
        if result is None:
            failure = self._constant(_F, *self._subset_failure(key), pointer=TEXT)
            result = remember(self._memo, key, failure)
        return result

    def _missing(self, text: str) -> list[str]:
        return [v for v, low in self._pairs if low not in text]


@register
class Contains(_Substrings):
    """Passes when the text contains every value, ignoring case (flat `contains`).

    Example:
        >>> from chatassert import Contains
        >>> Contains("reservation confirmed").check("Your reservation confirmed, Saturday").passed
        True
        >>> Contains("reservation confirmed").check("Your booking is set").reason
        "Response does not contain 'reservation confirmed'"
    """

    __slots__ = ()
    kind = "contains"
    dialect_names = {"flat": "contains"}

    def _details_on_pass(self) -> dict[str, Any]:
        return {"expected": _one_or_list(self.values), "missing": []}

    def _constant_failure(self) -> tuple[str, dict[str, Any]]:
        return self._subset_failure(self.values[:1])

    def _subset_failure(self, subset: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        return f"Response does not contain '{subset[0]}'", {
            "expected": _one_or_list(self.values),
            "missing": list(subset),
        }

    def _check(self, subject: object) -> Result:
        text = (
            cast(Turn, subject).text_lower
            if type(subject) in TURN_TYPES
            else lower_text_of(subject)
        )
        if len(self._lowered) == 1:
            return self._pass if self._lowered[0] in text else self._fail
        missing = self._missing(text)
        return self._failure_for(missing) if missing else self._pass

    def describe(self) -> str:
        """Describe the requirement."""
        return "contains " + " and ".join(repr(v) for v in self.values)


@register
class ContainsAll(Contains):
    """Passes when the text contains every value, ignoring case (flat `contains_all`).

    The flat dialect's spelling of `Contains` with a list: the same check, with its own
    reason (naming every value) and detail keys (`values`, `missing`).

    Example:
        >>> from chatassert.flat import ContainsAll
        >>> r = ContainsAll(["date", "time", "party size"]).check("Confirm the date and time")
        >>> r.details["missing"]
        ['party size']
    """

    __slots__ = ()
    kind = "contains_all"
    dialect_names = {"flat": "contains_all"}

    def _details_on_pass(self) -> dict[str, Any]:
        return {"values": list(self.values), "missing": []}

    def _constant_failure(self) -> tuple[str, dict[str, Any]]:
        return self._subset_failure(self.values)

    def _subset_failure(self, subset: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        return f"Response should contain all of: {list(self.values)}", {
            "values": list(self.values),
            "missing": list(subset),
        }

    def describe(self) -> str:
        """Describe the requirement."""
        return "contains all of " + ", ".join(repr(v) for v in self.values)


@register
class NotContains(_Substrings):
    """Passes when the text contains none of the values, ignoring case (flat `not_contains`).

    Example:
        >>> from chatassert import NotContains
        >>> NotContains("goodbye").check("Goodbye!").reason
        "Response should not contain 'goodbye'"
    """

    __slots__ = ()
    kind = "not_contains"
    dialect_names = {"flat": "not_contains"}

    def _details_on_pass(self) -> dict[str, Any]:
        return {"forbidden": _one_or_list(self.values), "found": []}

    def _constant_failure(self) -> tuple[str, dict[str, Any]]:
        return self._subset_failure(self.values[:1])

    def _subset_failure(self, subset: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        return f"Response should not contain '{subset[0]}'", {
            "forbidden": _one_or_list(self.values),
            "found": list(subset),
        }

    def _check(self, subject: object) -> Result:
        text = (
            cast(Turn, subject).text_lower
            if type(subject) in TURN_TYPES
            else lower_text_of(subject)
        )
        if len(self._lowered) == 1:
            low = self._lowered[0]
            return self._pass if low not in text else self._found(self._fail, subject, text, low)
        for low in self._lowered:
            if low in text:
                failure = self._failure_for([v for v, lw in self._pairs if lw in text])
                return self._found(failure, subject, text, low)
        return self._pass

    @staticmethod
    def _found(failure: Result, subject: object, lowered: str, low: str) -> Result:
        """The failure located at the first forbidden value found (the one its reason names)."""
        original = _original(subject)
        start, end = span_of(original, lowered, low)
        return failure._with_evidence(TEXT, original, start, end)

    def describe(self) -> str:
        """Describe the requirement."""
        return "does not contain " + " or ".join(repr(v) for v in self.values)


@register
class ContainsAny(_Substrings):
    """Passes when the text contains at least one of the values, ignoring case.

    Example:
        >>> from chatassert import ContainsAny
        >>> ContainsAny(["available", "open", "free"]).check("That slot is open").passed
        True
    """

    __slots__ = ("_passes",)
    kind = "contains_any"
    dialect_names = {"flat": "contains_any"}
    _passes: tuple[Result, ...]

    def __init__(self, values: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(values, message=message)
        matched = [
            self._constant(_P, "", {"values": list(self.values), "matched": v}) for v in self.values
        ]
        self._set("_passes", tuple(matched))

    def _details_on_pass(self) -> dict[str, Any]:
        return {"values": list(self.values)}

    def _constant_failure(self) -> tuple[str, dict[str, Any]]:
        # The failure of contains_any never depends on the subject.
        values = list(self.values)
        return f"Response should contain at least one of: {values}", {"values": values}

    def _check(self, subject: object) -> Result:
        text = (
            cast(Turn, subject).text_lower
            if type(subject) in TURN_TYPES
            else lower_text_of(subject)
        )
        for i, low in enumerate(self._lowered):
            if low in text:
                return self._passes[i]
        return self._fail

    def describe(self) -> str:
        """Describe the requirement."""
        return "contains any of " + ", ".join(repr(v) for v in self.values)


@register
class Equals(Assertion):
    """Passes when the text equals the value after trimming whitespace; case-sensitive.

    Example:
        >>> from chatassert import Equals
        >>> Equals("Thank you. Goodbye!").check("  Thank you. Goodbye!\\n").passed
        True
    """

    __slots__ = ("_pass", "_stripped", "value")
    kind = "equals"
    dialect_names = {"flat": "equals"}
    params = (Param("value", "text", required=True, doc="the exact expected text"),)
    value: str
    _stripped: str
    _pass: Result
    evidence_at = "/text"

    def __init__(self, value: str | int | float, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise TypeError(f"equals value must be a string, got {type(value).__name__}")
        value = str(value)
        if not value.strip():
            raise ValueError("equals value must not be empty")
        self._set("value", value)
        self._set("_stripped", value.strip())
        self._set("_pass", self._constant(_P, "", {"expected": value, "actual": self._stripped}))

    def _check(self, subject: object) -> Result:
        text = _original(subject)
        actual = text.strip()
        if actual == self._stripped:
            return self._pass
        result = Result(
            _F,
            "equals",
            f"Expected exact match with '{self.value}'",
            {"expected": self.value, "actual": actual},
        )
        # the span runs from the first character that differs to the end of the stripped text
        lead = len(text) - len(text.lstrip())
        same = 0
        for a, b in zip(actual, self._stripped, strict=False):
            if a != b:
                break
            same += 1
        return result._with_evidence(TEXT, text, lead + same, lead + len(actual))

    def describe(self) -> str:
        """Describe the requirement."""
        return f"equals {self.value!r}"


@register
class Matches(Assertion):
    """Passes when the regular expression is found in the text (unanchored; Go/RE2 syntax).

    The pattern is compiled when the assertion is built (an invalid one raises `ValueError`);
    matching stops after `timeout` seconds with an `error` result.

    Example:
        >>> from chatassert import Matches
        >>> Matches(r"\\d{3}-\\d{3}-\\d{4}").check("Call 555-123-4567").passed
        True
        >>> Matches("(?i)hello").check("HELLO there").passed
        True
    """

    __slots__ = ("_compiled", "_fail", "_pass", "pattern")
    kind = "matches"
    dialect_names = {"flat": "matches"}
    evidence_at = "/text"
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "value",
            "str",
            required=True,
            attr="pattern",
            doc="a regular expression (Go/RE2 syntax)",
        ),
    )
    options = ("regex_timeout",)
    _one_search = True  # one search of one text: no budget to share (see `Assertion`)
    pattern: str
    _compiled: Pattern
    _pass: Result
    _fail: Result

    def __init__(
        self,
        pattern: str,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set("pattern", pattern)
        self._set("_compiled", compile_regex(pattern, "matches", regex_timeout))
        self._set("_pass", self._constant(_P, "", {"pattern": pattern, "matched": True}))
        self._set(
            "_fail",
            self._constant(
                _F,
                f"Response does not match pattern '{pattern}'",
                {"pattern": pattern, "matched": False},
                pointer=TEXT,
            ),
        )

    def _check(self, subject: object) -> Result:
        text = _original(subject)
        try:
            found = self._compiled.search(text)
        except RegexTimeoutError as exc:
            return self._timed_out(exc, text)
        return self._missed(text) if found is None else self._found(found, text)

    # How the outcome is spelt; a dialect's spelling of `Matches` may say it otherwise.

    def _found(self, match: Any, text: str) -> Result:
        return self._pass

    def _missed(self, text: str) -> Result:
        return self._fail

    def _timed_out(self, exc: RegexTimeoutError, text: str) -> Result:
        details = {"pattern": self.pattern, "error": "timeout", "text_length": len(text)}
        return Result(_E, "matches", str(exc), details, pointer=TEXT)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"matches /{self.pattern}/"


def excerpt(text: str, width: int = 80) -> str:
    """Return `text` shortened in the middle for a reason (details keep the whole text)."""
    return shorten(text.replace("\n", " "), width)
