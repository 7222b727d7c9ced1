"""Checks on every value at a path of a JSON response: equality, patterns, ranges, order.

`AllMatch`, `AllMatchPattern`, `InRange` and `SortedDesc` are the native checks (docs/expect.md,
"Checks over values at a path"); `AllMatchOneOf`, `NoneMatchPattern`, `ArrayContains` and
`AllInRange` are the expect dialect's variants. Over zero values they pass with `checked: 0`.
Tests: tests/expect/test_each.py (combined with other families: tests/expect/test_json_shared.py).

Example:
    >>> from chatassert import AllMatch
    >>> response = {"results": [{"type": "note"}, {"type": "incident-log"}]}
    >>> AllMatch("results[*].type", "note").check(response).reason
    "Found non-matching item: 'incident-log' at results[1].type"
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from chatassert._errors import RegexTimeoutError
from chatassert._jsonbase import (
    PATH_PARAM,
    EachValue,
    Offenders,
    PathCheck,
    all_equal_to,
    checked_number,
    is_number,
    item_index,
    json_equal,
    literal_prefixes,
    show,
)
from chatassert._params import Param, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status

__all__ = [
    "AllInRange",
    "AllMatch",
    "AllMatchOneOf",
    "AllMatchPattern",
    "ArrayContains",
    "InRange",
    "NoneMatchPattern",
    "SortedDesc",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

# -- arrays --------------------------------------------------------------------------------


@register
class AllMatch(EachValue):
    """Passes when every value at the path equals the value (expect `all_match`).

    Example:
        >>> from chatassert import AllMatch
        >>> AllMatch("results[*].type", "note").check(
        ...     {"results": [{"type": "note"}, {"type": "incident-log"}]}).reason
        "Found non-matching item: 'incident-log' at results[1].type"
    """

    __slots__ = ("_all_equal", "value")
    kind = "expect_all_match"
    dialect_names = {"expect": "all_match"}
    params = (
        PATH_PARAM,
        Param("value", "any", required=True, doc="the value every item must equal"),
    )
    value: Any
    _all_equal: Callable[[Iterable[Any]], bool]

    def __init__(self, path: str, value: Any, *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        self._set("value", value)
        self._set("_all_equal", all_equal_to(value))

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_all_equal", None)  # a closure: built again from the value
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        super().__setstate__(state)
        object.__setattr__(self, "_all_equal", all_equal_to(self.value))

    def _ok(self, value: Any) -> bool:
        return self._all_equal((value,))

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return self._all_equal

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        return f"Found non-matching item: {show(value)} at {location}"

    def _expected(self) -> Any:
        return self.value

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is {show(self.value)}"


@register
class AllMatchOneOf(EachValue):
    """Passes when every value at the path is one of the values (expect `all_match_one_of`).

    Example:
        >>> from chatassert.expect import AllMatchOneOf
        >>> AllMatchOneOf("results[*].type", ["note", "task"]).check(
        ...     {"results": [{"type": "note"}, {"type": "draft"}]}).reason
        "Found non-matching item: 'draft' at results[1].type (expected one of 'note', 'task')"
    """

    __slots__ = ("values",)
    kind = "expect_all_match_one_of"
    dialect_names = {"expect": "all_match_one_of"}
    params = (PATH_PARAM, Param("values", "any", required=True, doc="the allowed values"))
    values: list[Any]

    def __init__(self, path: str, values: Sequence[Any], *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        if isinstance(values, str | int | float | bool):
            values = [values]  # one value where a list is expected is a one-item list (G5)
        if not isinstance(values, list | tuple) or not values:
            raise ValueError("all_match_one_of needs 'values': a non-empty list")
        self._set("values", list(values))

    def _ok(self, value: Any) -> bool:
        return any(json_equal(value, v) for v in self.values)

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        allowed = ", ".join(show(v) for v in self.values)
        return f"Found non-matching item: {show(value)} at {location} (expected one of {allowed})"

    def _expected(self) -> Any:
        return self.values

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is one of " + ", ".join(show(v) for v in self.values)


def _pattern_text(value: Any) -> str:
    """The text a pattern is matched against: a string itself, anything else its JSON text,
    with non-ASCII characters kept as they are."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _subject_words(location: str) -> tuple[str, str]:
    """`results[2].file` → (`File`, `results[2]`); anything else → (`Value`, the location)."""
    if location.endswith(".file"):
        return "File", location[: -len(".file")]
    return "Value", location


class _PatternEach(PathCheck):
    __slots__ = ("_compiled", "_prefixes", "regex")
    expect_form = "fields"
    _fused = True
    options = ("regex_timeout",)
    params = (
        PATH_PARAM,
        Param(
            "regex",
            "str",
            required=True,
            aliases=("pattern",),
            doc="a regular expression (Go/RE2 syntax, unanchored)",
        ),
    )
    regex: str
    _compiled: Pattern
    _prefixes: tuple[str, ...] | None
    should_match: ClassVar[bool] = True

    def __init__(
        self,
        path: str,
        regex: str,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(path, message=message)
        self._set("regex", regex)
        self._set("_compiled", compile_regex(regex, self.kind, regex_timeout))
        self._set("_prefixes", literal_prefixes(regex))

    def _expected(self) -> Any:
        return self.regex

    def _offending(self, values: list[Any]) -> list[int]:
        """The positions of the values that break the rule: a value that the pattern does not
        find in its text (for `none_*`, one it does).

        The check's one rule, for the quick test and the full evaluation. A `^literal` pattern
        is `str.startswith` on a string, without the regex engine.

        Raises:
            _SearchTimeoutError: a search ran out of time (naming the value's position).
        """
        prefixes, searched, want = self._prefixes, self._searched, self.should_match
        return [
            k
            for k, value in enumerate(values)
            if (
                value.startswith(prefixes)
                if prefixes is not None and type(value) is str
                else searched(k, value)
            )
            is not want
        ]

    def _searched(self, position: int, value: Any) -> bool:
        """Whether the pattern finds something in the text of `value`, at `position`."""
        try:
            return self._compiled.search(_pattern_text(value)) is not None
        except RegexTimeoutError as exc:
            raise _SearchTimeoutError(exc, position) from None

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        offending = self._offending
        return lambda values: not offending(values)

    def _eval(self, data: Any) -> Result:
        try:
            return self._eval_values(data)
        except _SearchTimeoutError as exc:
            where = self._path.places(data, len(self._path.values(data)), [exc.position])
            return Result(
                _E,
                self.kind,
                str(exc),
                {"path": where[0][0], "pattern": self.regex, "error": "timeout"},
            )

    def _failure(self, data: Any, values: list[Any], positions: list[int]) -> Result:
        bad = Offenders.at(self._path, data, values, positions)
        first = bad.first
        assert first is not None
        word, where_text = _subject_words(first["path"])
        verb = "doesn't match pattern" if self.should_match else "matches excluded pattern"
        reason = f"{word} {show(first['actual'])} at {where_text} {verb} '{self.regex}'"
        return Result(
            _F,
            self.kind,
            reason + bad.more(),
            bad.details(self.regex, len(values), pattern=self.regex),
        )


class _SearchTimeoutError(RegexTimeoutError):
    """A search of a value at a path ran out of time; `position` is the value's."""

    def __init__(self, exc: RegexTimeoutError, position: int) -> None:
        super().__init__(str(exc), exc.pattern, exc.timeout)
        self.position = position


@register
class AllMatchPattern(_PatternEach):
    """Passes when every value at the path matches the regex (expect `all_match_pattern`).

    Example:
        >>> from chatassert import AllMatchPattern
        >>> AllMatchPattern("results[*].file", "^journal/").check({"results": [
        ...     {"file": "journal/2026/01/note.md"}, {"file": "work/document.md"}]}).reason
        "File 'work/document.md' at results[1] doesn't match pattern '^journal/'"
    """

    __slots__ = ()
    kind = "expect_all_match_pattern"
    dialect_names = {"expect": "all_match_pattern"}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} matches /{self.regex}/"


@register
class NoneMatchPattern(_PatternEach):
    """Passes when no value at the path matches the regex (expect `none_match_pattern`).

    Example:
        >>> from chatassert.expect import NoneMatchPattern
        >>> NoneMatchPattern("results[*].file", "^(people/|documents/)").check(
        ...     {"results": [{"file": "people/alice.md"}]}).reason
        "File 'people/alice.md' at results[0] matches excluded pattern '^(people/|documents/)'"
    """

    __slots__ = ()
    kind = "expect_none_match_pattern"
    dialect_names = {"expect": "none_match_pattern"}
    should_match = False

    def describe(self) -> str:
        """Describe the requirement."""
        return f"no {self.path} matches /{self.regex}/"


@register
class ArrayContains(PathCheck):
    """Passes when the array at the path contains every value, or an item matching the pattern.

    Expect `array_contains`: `{path, values}` or `{path, pattern}`. With a wildcard path the
    values found make up the array.

    Example:
        >>> from chatassert.expect import ArrayContains
        >>> ArrayContains("sensitive_dirs_skipped", ["people/", "documents/"]).check(
        ...     {"sensitive_dirs_skipped": ["people/"]}).reason
        "sensitive_dirs_skipped does not contain 'documents/'"
    """

    __slots__ = ("_compiled", "pattern", "values")
    kind = "expect_array_contains"
    dialect_names = {"expect": "array_contains"}
    options = ("regex_timeout",)
    params = (
        PATH_PARAM,
        Param(
            "values",
            "any",
            default=None,
            aliases=("value",),
            doc="the values the array must contain",
        ),
        Param(
            "pattern", "str", default=None, aliases=("regex",), doc="a regex some item must match"
        ),
    )
    values: list[Any] | None
    pattern: str | None
    _compiled: Pattern | None

    def __init__(
        self,
        path: str,
        values: Sequence[Any] | None = None,
        *,
        pattern: str | None = None,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(path, message=message)
        if (values is None) == (pattern is None):
            raise ValueError(
                "array_contains needs exactly one of 'values' (a list) or 'pattern' (a regex)"
            )
        if values is not None:
            if isinstance(values, str | int | float | bool):
                values = [values]
            if not isinstance(values, list | tuple) or not values:
                raise ValueError("array_contains 'values' must be a non-empty list")
            values = list(values)
        self._set("values", values)
        self._set("pattern", pattern)
        self._set(
            "_compiled",
            None if pattern is None else compile_regex(pattern, self.kind, regex_timeout),
        )

    def _eval(self, data: Any) -> Result:
        expected = self.values if self.values is not None else self.pattern
        found = self._path.find(data)
        if self._path.fans_out:
            array: Any = [v for v, _ in found]
        elif not found:
            return self._missing(self.path, expected)
        else:
            array = found[0][0]
        if not isinstance(array, list):
            return Result(
                _F,
                self.kind,
                f"Expected {self.path} to be an array, got {show(array)}",
                {"path": self.path, "expected": expected, "actual": array},
            )
        if self._compiled is not None:
            for item in array:
                try:
                    if self._compiled.search(_pattern_text(item)) is not None:
                        return Result(
                            _P,
                            self.kind,
                            self._held(),
                            {"path": self.path, "expected": self.pattern, "actual": item},
                        )
                except RegexTimeoutError as exc:
                    return Result(_E, self.kind, str(exc), {"path": self.path, "error": "timeout"})
            return Result(
                _F,
                self.kind,
                f"No item of {self.path} matches pattern '{self.pattern}'",
                {
                    "path": self.path,
                    "expected": self.pattern,
                    "actual": array,
                    "checked": len(array),
                },
            )
        assert self.values is not None
        missing = [v for v in self.values if not any(json_equal(v, item) for item in array)]
        if not missing:
            return self._passed()
        reason = f"{self.path} does not contain {', '.join(show(v) for v in missing)}"
        return Result(
            _F,
            self.kind,
            reason,
            {"path": self.path, "expected": self.values, "actual": array, "missing": missing},
        )

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": self.path, "expected": self.values}

    def describe(self) -> str:
        """Describe the requirement."""
        if self.pattern is not None:
            return f"{self.path} has an item matching /{self.pattern}/"
        return f"{self.path} contains " + ", ".join(show(v) for v in self.values or ())


# -- numbers -------------------------------------------------------------------------------


def _out_of_range(values: Sequence[Any], low: float, high: float) -> list[int]:
    """The positions of the values that are not numbers (a bool is not) in `[low, high]`: the
    range checks' rule.

    NaN is not a number here: it fails `low <= value`.
    """
    return [
        k
        for k, value in enumerate(values)
        if ((kind := type(value)) is not float and kind is not int) or not low <= value <= high
    ]


class _Range(PathCheck):
    __slots__ = ("_high", "_low", "_range", "max", "min")
    _fused = True
    params = (
        PATH_PARAM,
        Param("min", "number", default=None, doc="the smallest allowed value"),
        Param("max", "number", default=None, doc="the largest allowed value"),
    )
    min: float | int | None
    max: float | int | None
    _low: float
    _high: float
    _range: str

    def __init__(
        self,
        path: str,
        min: float | None = None,
        max: float | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(path, message=message)
        low, high = checked_number(f"{self.kind} min", min), checked_number(f"{self.kind} max", max)
        if low is None and high is None:
            raise ValueError(f"{self.kind} needs 'min', 'max' or both")
        if low is not None and high is not None and low > high:
            raise ValueError(f"{self.kind} min ({low}) is larger than max ({high})")
        self._set("min", low)
        self._set("max", high)
        self._set("_low", -math.inf if low is None else low)
        self._set("_high", math.inf if high is None else high)
        self._set(
            "_range",
            f"{'-inf' if low is None else show(low)}-{'inf' if high is None else show(high)}",
        )

    def _ok(self, value: Any) -> bool:
        return not _out_of_range((value,), self._low, self._high)

    def _offending(self, values: list[Any]) -> list[int]:
        return _out_of_range(values, self._low, self._high)

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        low, high = self._low, self._high
        return lambda values: not _out_of_range(values, low, high)

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        if not is_number(value):
            return f"Value {show(value)} at {location} is not a number"
        return f"Value {show(value)} at {location} is outside range {self._range}"

    def _expected(self) -> Any:
        return {"min": self.min, "max": self.max}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.path} in {self._range}"


@register
class AllInRange(_Range, EachValue):
    """Passes when every number at the path is in the inclusive range (expect `all_in_range`).

    Example:
        >>> from chatassert.expect import AllInRange
        >>> AllInRange("results[*].relevance", 0.0, 1.0).check(
        ...     {"results": [{"relevance": 1.2}]}).reason
        'Value 1.2 at results[0].relevance is outside range 0.0-1.0'
    """

    __slots__ = ()
    kind = "expect_all_in_range"
    dialect_names = {"expect": "all_in_range"}


@register
class InRange(_Range, EachValue):
    """Passes when the single number at the path is in the inclusive range (`range_check`).

    Example:
        >>> from chatassert import InRange
        >>> InRange("performance.search_duration_ms", 0, 5000).check(
        ...     {"performance": {"search_duration_ms": 6200}}).reason
        'Value 6200 at performance.search_duration_ms is outside range 0-5000'
    """

    __slots__ = ()
    kind = "expect_range_check"
    dialect_names = {"expect": "range_check"}
    _vacuous = False  # no value, even at a wildcard path: a missing field


@register
class SortedDesc(PathCheck):
    """Passes when the values at the path never increase; ties are allowed (`sorted_desc`).

    Values of kinds that cannot be compared (a number and a string, `null`) give an error.

    Example:
        >>> from chatassert import SortedDesc
        >>> SortedDesc("results[*].relevance").check({"results": [
        ...     {"relevance": 0.9}, {"relevance": 1.0}, {"relevance": 0.85}]}).reason
        'Values not sorted descending at index 1: results[1].relevance is 1.0, after 0.9'
    """

    __slots__ = ()
    kind = "expect_sorted_desc"
    dialect_names = {"expect": "sorted_desc"}
    params = (PATH_PARAM,)

    def _expected(self) -> Any:
        return "descending"

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return _descending_numbers

    def _eval(self, data: Any) -> Result:
        values = self._path.values(data)
        if not values and not self._path.fans_out:
            return self._missing(self.path, "descending")
        kinds = {"number" if is_number(v) else type(v).__name__ for v in values}
        if len(kinds) > 1 or kinds - {"number", "str"}:
            return Result(
                _E,
                self.kind,
                f"the values at {self.path} cannot be ordered (found {', '.join(sorted(kinds))})",
                {"path": self.path, "actual": values},
            )
        bad = Offenders()
        if any(values[i] > values[i - 1] for i in range(1, len(values))):
            found = self._path.find(data)
            for i in range(1, len(values)):
                if values[i] > values[i - 1]:
                    _, where = found[i]
                    index = item_index(where)  # the item's own index: items without a value skipped
                    bad.add(
                        self._path.location(where),
                        values[i],
                        i if index is None else index,
                        previous=values[i - 1],
                    )
        if not bad:
            return self._passed(len(values))
        first = bad.first
        assert first is not None
        reason = (
            f"Values not sorted descending at index {first['index']}: {first['path']} "
            f"is {show(first['actual'])}, after {show(first['previous'])}"
        )
        return Result(_F, self.kind, reason, bad.details("descending", len(values), values=values))

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.path} sorted descending"


def _descending_numbers(values: list[Any]) -> bool:
    """Whether the values are all numbers (not NaN) that never increase: the common case."""
    previous: Any = math.inf
    for value in values:
        kind = type(value)
        if (kind is not int and kind is not float) or value != value or value > previous:
            return False
        previous = value
    return True
