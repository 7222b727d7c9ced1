"""Text checks on a turn's response text: the flat vocabulary's substring, equality and regex types.

The text of a turn is the content of its last assistant message with text (G1); substring
checks are case-insensitive (G3); regular expressions follow Go/RE2 syntax with a time limit (G8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatassert._base import Assertion
from chatassert._errors import RegexTimeoutError
from chatassert._models import Turn, as_turn
from chatassert._regex import Pattern, compile_pattern
from chatassert._registry import Param, register
from chatassert._result import Result, Status, shorten

__all__ = [
    "Contains",
    "ContainsAll",
    "ContainsAny",
    "Equals",
    "Matches",
    "NotContains",
    "text_of",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR
DEFAULT_REGEX_TIMEOUT = 1.0


def text_of(subject: object) -> str:
    """Return the text a text check reads: a string itself, or a turn's text (G1)."""
    if type(subject) is str:
        return subject
    if type(subject) is Turn:
        return subject.text
    return as_turn(subject).text


def lower_text_of(subject: object) -> str:
    """Return the lowered text (cached on turns, so many checks lower it once)."""
    if type(subject) is str:
        return subject.lower()
    if type(subject) is Turn:
        return subject.text_lower
    return as_turn(subject).text_lower


def _values(value: str | Sequence[str], what: str) -> tuple[str, ...]:
    values = (value,) if isinstance(value, str) else tuple(value)
    if not values:
        raise ValueError(f"{what} needs at least one value, got an empty list")
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"{what} values must be strings, got {type(v).__name__} {v!r}")
        if not v:
            raise ValueError(f"{what} values must not be empty strings")
    return values


def _one_or_list(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)


class _Substrings(Assertion):
    """Shared construction of the substring types: one string or a list, lowered once.

    Passing results share one details mapping built here, so a pass allocates nothing but its
    `Result` (details are read-only, like the result that holds them).
    """

    __slots__ = ("_fail_details", "_fail_reason", "_lowered", "_pairs", "_pass_details", "values")
    params = (
        Param(
            "value", "str_list", required=True, attr="values", doc="a string, or a list of strings"
        ),
    )
    values: tuple[str, ...]
    _lowered: tuple[str, ...]
    _pairs: tuple[tuple[str, str], ...]
    _pass_details: dict[str, Any]
    _fail_reason: str
    _fail_details: dict[str, Any]

    def __init__(self, values: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("values", _values(values, self.kind))
        self._set("_lowered", tuple(v.lower() for v in self.values))
        self._set("_pairs", tuple(zip(self.values, self._lowered, strict=True)))
        self._set("_pass_details", self._details_on_pass())
        reason, details = self._single_value_failure()
        self._set("_fail_reason", reason)
        self._set("_fail_details", details)

    def _details_on_pass(self) -> dict[str, Any]:
        raise NotImplementedError

    def _single_value_failure(self) -> tuple[str, dict[str, Any]]:
        """The failure that does not depend on the subject (shared, like the pass details)."""
        return "", {}

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

    def _single_value_failure(self) -> tuple[str, dict[str, Any]]:
        value = self.values[0]
        return f"Response does not contain '{value}'", {"expected": value, "missing": [value]}

    def _check(self, subject: object) -> Result:
        text = subject.text_lower if type(subject) is Turn else lower_text_of(subject)
        if len(self._pairs) == 1:
            if self._lowered[0] in text:
                return Result(_P, "contains", "", self._pass_details)
            return Result(_F, "contains", self._fail_reason, self._fail_details)
        else:
            missing = self._missing(text)
            if not missing:
                return Result(_P, "contains", "", self._pass_details)
        return Result(
            _F,
            "contains",
            f"Response does not contain '{missing[0]}'",
            {"expected": self._pass_details["expected"], "missing": missing},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return "contains " + " and ".join(repr(v) for v in self.values)


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

    def _single_value_failure(self) -> tuple[str, dict[str, Any]]:
        value = self.values[0]
        return f"Response should not contain '{value}'", {"forbidden": value, "found": [value]}

    def _check(self, subject: object) -> Result:
        text = subject.text_lower if type(subject) is Turn else lower_text_of(subject)
        if len(self._pairs) == 1:
            if self._lowered[0] in text:
                return Result(_F, "not_contains", self._fail_reason, self._fail_details)
            return Result(_P, "not_contains", "", self._pass_details)
        for value, low in self._pairs:
            if low in text:
                found = [v for v, lw in self._pairs if lw in text]
                return Result(
                    _F,
                    "not_contains",
                    f"Response should not contain '{value}'",
                    {"forbidden": self._pass_details["forbidden"], "found": found},
                )
        return Result(_P, "not_contains", "", self._pass_details)

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

    __slots__ = ("_matched_details",)
    kind = "contains_any"
    dialect_names = {"flat": "contains_any"}
    _matched_details: tuple[dict[str, Any], ...]

    def __init__(self, values: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(values, message=message)
        self._set(
            "_matched_details",
            tuple({"values": list(self.values), "matched": v} for v in self.values),
        )

    def _details_on_pass(self) -> dict[str, Any]:
        return {"values": list(self.values)}

    def _single_value_failure(self) -> tuple[str, dict[str, Any]]:
        # The failure of contains_any never depends on the subject.
        values = list(self.values)
        return f"Response should contain at least one of: {values}", {"values": values}

    def _check(self, subject: object) -> Result:
        text = subject.text_lower if type(subject) is Turn else lower_text_of(subject)
        for i, low in enumerate(self._lowered):
            if low in text:
                return Result(_P, "contains_any", "", self._matched_details[i])
        return Result(_F, "contains_any", self._fail_reason, self._fail_details)

    def describe(self) -> str:
        """Describe the requirement."""
        return "contains any of " + ", ".join(repr(v) for v in self.values)


@register
class ContainsAll(_Substrings):
    """Passes when the text contains every value, ignoring case (flat `contains_all`).

    Example:
        >>> from chatassert import ContainsAll
        >>> r = ContainsAll(["date", "time", "party size"]).check("Confirm the date and time")
        >>> r.details["missing"]
        ['party size']
    """

    __slots__ = ()
    kind = "contains_all"
    dialect_names = {"flat": "contains_all"}

    def _details_on_pass(self) -> dict[str, Any]:
        return {"values": list(self.values), "missing": []}

    def _single_value_failure(self) -> tuple[str, dict[str, Any]]:
        return f"Response should contain all of: {list(self.values)}", {}

    def _check(self, subject: object) -> Result:
        text = subject.text_lower if type(subject) is Turn else lower_text_of(subject)
        missing = self._missing(text)
        if not missing:
            return Result(_P, "contains_all", "", self._pass_details)
        return Result(
            _F,
            "contains_all",
            self._fail_reason,
            {"values": self._pass_details["values"], "missing": missing},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return "contains all of " + ", ".join(repr(v) for v in self.values)


@register
class Equals(Assertion):
    """Passes when the text equals the value after trimming whitespace; case-sensitive.

    Example:
        >>> from chatassert import Equals
        >>> Equals("Thank you. Goodbye!").check("  Thank you. Goodbye!\\n").passed
        True
    """

    __slots__ = ("_pass_details", "_stripped", "value")
    kind = "equals"
    dialect_names = {"flat": "equals"}
    params = (Param("value", "text", required=True, doc="the exact expected text"),)
    value: str
    _stripped: str
    _pass_details: dict[str, Any]

    def __init__(self, value: str | int | float, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise TypeError(f"equals value must be a string, got {type(value).__name__}")
        value = str(value)
        if not value.strip():
            raise ValueError("equals value must not be empty")
        self._set("value", value)
        self._set("_stripped", value.strip())
        self._set("_pass_details", {"expected": value, "actual": self._stripped})

    def _check(self, subject: object) -> Result:
        actual = text_of(subject).strip()
        if actual == self._stripped:
            return Result(_P, "equals", "", self._pass_details)
        return Result(
            _F,
            "equals",
            f"Expected exact match with '{self.value}'",
            {"expected": self.value, "actual": actual},
        )

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

    __slots__ = ("_compiled", "_fail_details", "_fail_reason", "_pass_details", "pattern")
    kind = "matches"
    dialect_names = {"flat": "matches"}
    params = (
        Param(
            "value",
            "str",
            required=True,
            attr="pattern",
            doc="a regular expression (Go/RE2 syntax)",
        ),
    )
    options = ("regex_timeout",)
    pattern: str
    _compiled: Pattern
    _pass_details: dict[str, Any]
    _fail_reason: str
    _fail_details: dict[str, Any]

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
        self._set("_pass_details", {"pattern": pattern, "matched": True})
        self._set("_fail_reason", f"Response does not match pattern '{pattern}'")
        self._set("_fail_details", {"pattern": pattern, "matched": False})

    def _check(self, subject: object) -> Result:
        return regex_result(
            self._compiled,
            text_of(subject),
            "matches",
            self._fail_reason,
            pass_details=self._pass_details,
            fail_details=self._fail_details,
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"matches /{self.pattern}/"


def compile_regex(pattern: object, what: str, timeout: float) -> Pattern:
    """Compile a pattern for an assertion, rejecting non-strings and empty patterns (G4)."""
    if not isinstance(pattern, str):
        raise TypeError(f"{what} pattern must be a string, got {type(pattern).__name__}")
    if not pattern:
        raise ValueError(f"{what} pattern must not be empty")
    return compile_pattern(pattern, timeout=timeout)


def regex_result(
    compiled: Pattern,
    text: str,
    name: str,
    failure: str,
    extra: dict[str, Any] | None = None,
    pass_details: dict[str, Any] | None = None,
    fail_details: dict[str, Any] | None = None,
) -> Result:
    """Search `text` and build the result: pass, fail with `failure`, or error on timeout.

    `pass_details` and `fail_details`, when given, are the shared details mappings built once by
    the assertion; otherwise a pass records the pattern and the matched text.
    """
    try:
        match = compiled.search(text)
    except RegexTimeoutError as exc:
        return Result(
            _E,
            name,
            str(exc),
            {"pattern": compiled.source, "error": "timeout", "text_length": len(text)},
        )
    if match is not None:
        if pass_details is not None:
            return Result(_P, name, "", pass_details)
        return Result(
            _P,
            name,
            "",
            {"pattern": compiled.source, "matched": True, "match": match.group(0), **(extra or {})},
        )
    if fail_details is not None:
        return Result(_F, name, failure, fail_details)
    return Result(
        _F, name, failure, {"pattern": compiled.source, "matched": False, **(extra or {})}
    )


def excerpt(text: str, width: int = 80) -> str:
    """Return `text` shortened in the middle for a reason (details keep the whole text)."""
    return shorten(text.replace("\n", " "), width)
