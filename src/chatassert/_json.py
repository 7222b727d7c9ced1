"""Checks on a structured JSON response: the expect vocabulary (`004_*.txt`).

The subject is a JSON value, usually an object: a tool's or agent's structured response. A turn
gives its structured `data`, else its text parsed as JSON; a subject that is not JSON makes
every check an `error`. Paths are the dotted notation of `chatassert._jsonpath` (full JSONPath
when they start with `$`), compiled when the check is built.

Decided semantics (see the expect section of the semantics page):

- `all_*`, `none_*`, `each_*` and `sorted_desc` over zero values pass, with `checked: 0`;
  a path without a wildcard names one field, and a missing field fails.
- `contains`, `message_contains`, `summary_contains` and `field_contains` ignore case unless
  `case_sensitive` is set; `status`, `error_code`, `field_equals`, `all_match*` and tags are
  exact, with strict JSON equality (`0` is not `"0"`, `1` is `1.0`, `true` is not `1`).
- Dates: ISO 8601 (python-dateutil for anything else); naive means UTC; a date-only `end`
  means the end of that day.
- A failure names the concrete item (`results[2].file`); details hold `path`, `expected`,
  `actual` and `index` for the first offender, `offending` (up to 20) and `checked`.

Example:
    >>> from chatassert import AllMatch
    >>> from chatassert.expect import StatusIs
    >>> response = {"status": "success", "results": [{"type": "note"}, {"type": "incident-log"}]}
    >>> StatusIs("success").check(response).passed
    True
    >>> AllMatch("results[*].type", "note").check(response).reason
    "Found non-matching item: 'incident-log' at results[1].type"
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from chatassert._base import AllOf, AnyOf, Assertion, QuickTest, never as _never, remember
from chatassert._errors import RegexTimeoutError
from chatassert._jsonpath import MISSING, JsonPath, Where, compile_path
from chatassert._models import NotJSONError, as_json
from chatassert._params import Param, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status, shorten

__all__ = [
    "DEFAULT_SENSITIVE_PREFIXES",
    "AllDatesBetween",
    "AllDatesInYear",
    "AllHaveTags",
    "AllInRange",
    "AllMatch",
    "AllMatchOneOf",
    "AllMatchPattern",
    "ArrayContains",
    "DatesWithinDays",
    "EachHasAnyTag",
    "ErrorCodeIs",
    "FieldContains",
    "FieldEquals",
    "HasFields",
    "IfHasHistory",
    "IfResults",
    "IfSensitiveResults",
    "InRange",
    "JsonContains",
    "MessageContains",
    "NoneHaveTags",
    "NoneMatchPattern",
    "OneOf",
    "ResultsCount",
    "ResultsMatchSchema",
    "ResultsMax",
    "ResultsMin",
    "SortedDesc",
    "StatusIs",
    "SummaryContains",
    "json_equal",
]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED
MAX_OFFENDING = 20
"""How many offending items a failure's details list."""
DEFAULT_SENSITIVE_PREFIXES = ("people/", "documents/")
"""The result file prefixes `if_sensitive_results` treats as sensitive by default."""

_RESULTS = compile_path("results")
_TAGS = compile_path("metadata.tags")
_FILE = compile_path("file")


# -- helpers -------------------------------------------------------------------------------


def json_equal(a: Any, b: Any) -> bool:
    """Strict JSON equality: `1 == 1.0`, but `0 != "0"` and `true != 1`; recursive.

    Example:
        >>> json_equal(1, 1.0), json_equal(0, "0"), json_equal(True, 1)
        (True, False, False)
        >>> json_equal({"a": [1, 2]}, {"a": [1.0, 2]})
        True
    """
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is list:
            return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
        if ta is dict:
            return a.keys() == b.keys() and all(json_equal(v, b[k]) for k, v in a.items())
        return bool(a == b)
    if ta is bool or tb is bool:
        return False
    if ta in (int, float) and tb in (int, float):
        return bool(a == b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return json_equal(dict(a), dict(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return json_equal(list(a), list(b))
    return False


def _same_scalar(value: Any, expected: Any) -> bool:
    """A quick, strict test: the same type of string, number or bool, and equal.

    False does not mean unequal (`1` and `1.0`, lists): callers then ask `json_equal`.
    """
    kind = type(expected)
    return kind is type(value) and kind is not list and kind is not dict and value == expected


def equal_to(expected: Any) -> Callable[[Any], bool]:
    """Return a fast predicate for `json_equal(value, expected)`, built once per check."""
    kind = type(expected)
    if kind is str:
        return lambda v: v == expected and type(v) is str
    if kind is bool or expected is None:
        return lambda v: v is expected
    if kind is int or kind is float:
        return lambda v: v == expected and (type(v) is int or type(v) is float)
    return lambda v: json_equal(v, expected)


_LITERAL_ALTERNATIVES = re.compile(r"\^(?:\(([^()\[\]{}.*+?^$\\]+)\)|([^()|\[\]{}.*+?^$\\]+))")


def literal_prefixes(pattern: str) -> tuple[str, ...] | None:
    """Return the prefixes of a pattern that only says "starts with one of these literals".

    `^journal/` and `^(people/|documents/)` qualify (without `(?m)`, `^` is the start of the
    text); such checks use `str.startswith` instead of the regex engine.

    Example:
        >>> literal_prefixes("^(people/|documents/)"), literal_prefixes("^jour.al")
        (('people/', 'documents/'), None)
    """
    match = _LITERAL_ALTERNATIVES.fullmatch(pattern)
    if match is None:
        return None
    group, plain = match.groups()
    parts = tuple((group or plain).split("|"))
    return parts if all(parts) else None


def show(value: Any, width: int = 80) -> str:
    """Render a JSON value for a reason: strings in single quotes, the rest as JSON."""
    if isinstance(value, str):
        return f"'{shorten(value, width)}'"
    kind = type(value)
    if kind is int or (kind is float and math.isfinite(value)):
        return shorten(repr(value), width)  # what json.dumps writes, without its machinery
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        text = repr(value)
    return shorten(text, width)


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is float and value == value)  # NaN is not a number here


def _index(where: Where) -> int | None:
    if isinstance(where, tuple):
        return where[0] if where else None
    match = re.search(r"\[(\d+)\]", where)
    return int(match.group(1)) if match else None


def _str_value(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    return value


def _strings(name: str, values: str | Sequence[str]) -> tuple[str, ...]:
    out = (values,) if isinstance(values, str) else tuple(values)
    if not out:
        raise ValueError(f"{name} needs at least one value, got an empty list")
    for v in out:
        _str_value(f"{name} values", v)
    return out


def _one_or_list(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)


def _int(name: str, value: object, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _number(name: str, value: object) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    return value


def _check_scalar(name: str, value: object) -> Any:
    if isinstance(value, Mapping | list | tuple) or value is None:
        raise TypeError(f"{name} must be a string, number or boolean, got {show(value)}")
    return value


class _Offenders:
    """Collects the items that broke a check: the first in full, the rest up to a cap."""

    __slots__ = ("count", "first", "items")

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.count = 0
        self.first: dict[str, Any] | None = None

    def add(self, location: str, actual: Any, index: int | None = None, **extra: Any) -> None:
        self.count += 1
        if self.count > MAX_OFFENDING:
            return
        item: dict[str, Any] = {"path": location, "actual": actual}
        if index is not None:
            item["index"] = index
        item.update(extra)
        if self.first is None:
            self.first = item
        self.items.append(item)

    def __bool__(self) -> bool:
        return self.count > 0

    def details(self, expected: Any, checked: int, **extra: Any) -> dict[str, Any]:
        assert self.first is not None
        out: dict[str, Any] = {
            "path": self.first["path"],
            "expected": expected,
            "actual": self.first["actual"],
        }
        if "index" in self.first:
            out["index"] = self.first["index"]
        out.update(extra)
        out["offending"] = self.items
        out["offending_count"] = self.count
        out["checked"] = checked
        return out

    def more(self) -> str:
        return f" (and {self.count - 1} more)" if self.count > 1 else ""


# -- the base class ------------------------------------------------------------------------


class JsonCheck(Assertion):
    """Base of the checks on a JSON response: coerce the subject, then evaluate `_eval`.

    A subject that is not JSON gives an `error` result.

    Checks run in two steps. The quick test answers the common case, a pass: compiled once per
    check into a closure over its settings (`_compile_quick`), it runs one tight loop and
    returns the shared passing result (see `Result.shared`), or None whenever it is not
    certain. `_eval` is the full evaluation, which explains a failure with locations and
    offending items; it is complete on its own, and the tests hold the two to agree on
    every pass.
    """

    __slots__ = ("_memo", "_quick")
    level = "json"
    dialect_names: ClassVar[dict[str, str]] = {}
    expect_form: ClassVar[str] = "value"
    """How an expect key's value maps to the params: `value` (the value is the `value`
    param), `fields` (a mapping of params), `text` (a string, or a mapping of params),
    `field_equals`, or `expect` (nested expect objects)."""
    _memo: dict[int, Result]
    _quick: QuickTest | None

    def __init__(self, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("_memo", {})
        self._set("_quick", None)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_quick"] = None  # a closure: compiled again on first use
        return state

    def check(self, subject: object, /) -> Result:
        """Check `subject` and return the result tree (see `Assertion.check`)."""
        if type(subject) is dict:  # the hot path: answer a pass without layers
            quick = self._quick or self._quick_test()
            try:
                result = quick(subject)
            except RegexTimeoutError as exc:
                return self._check_after_timeout(subject, exc)
            except Exception:  # let the full evaluation report it
                result = None
            if result is not None:
                return result
        return super().check(subject)

    def _check_in_full(self, subject: object) -> Result:
        return super().check(subject)  # the check without its quick test

    def _quick_test(self) -> QuickTest:
        """The compiled quick test, built on first use (see the class doc)."""
        quick = self._quick
        if quick is None:
            quick = self._compile_quick()
            self._set("_quick", quick)
        return quick

    def _compile_quick(self) -> QuickTest:
        """Build the quick test: a closure over this check's settings (see the class doc)."""
        return _never

    def _check(self, subject: object) -> Result:
        if type(subject) is dict:
            return self._eval(subject)
        try:
            data = as_json(subject)
        except NotJSONError as exc:
            return Result(_E, self.kind, str(exc), {"error": "not_json"})
        return self._eval(data)

    def _eval(self, data: Any) -> Result:
        raise NotImplementedError

    def _passed(self, n: int = -1) -> Result:
        """The passing outcome after checking `n` values: built once per `n`, then shared.

        A passing check's details depend on nothing but the assertion and a count (`checked`,
        or the number of results), so a pass allocates nothing (see `Result.shared`).
        """
        result = self._memo.get(n)
        if result is None:
            result = remember(self._memo, n, self._constant(_P, "", self._pass_details(n)))
        return result

    def _pass_details(self, n: int) -> dict[str, Any]:
        """The details of a pass after checking `n` values."""
        raise NotImplementedError(f"{type(self).__name__} does not share its passes")

    def _missing(self, location: str, expected: Any) -> Result:
        return Result(
            _F,
            self.kind,
            f"Missing field: {location}",
            {"path": location, "expected": expected, "actual": None, "missing": True},
        )


class _PathCheck(JsonCheck):
    """A check over the values at a path."""

    __slots__ = ("_path", "path")
    expect_form = "fields"
    path: str
    _path: JsonPath

    def __init__(self, path: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("_path", compile_path(_str_value(f"{self.kind} path", path)))
        self._set("path", path)

    def _expected(self) -> Any:
        raise NotImplementedError

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": self.path, "expected": self._expected(), "checked": n}

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        """A function telling whether every value at the path passes, or None (no quick test).

        It may say False when unsure: the full evaluation then decides.
        """
        return None

    def _compile_quick(self) -> QuickTest:
        all_ok = self._all_ok_function()
        if all_ok is None:
            return _never
        values_of, fans_out = self._path.values, self._path.fans_out
        memo_get, passed = self._memo.get, self._passed

        def quick(data: Any) -> Result | None:
            values = values_of(data)
            if (values or fans_out) and all_ok(values):  # a single field must exist
                return memo_get(len(values)) or passed(len(values))
            return None

        return quick


_PATH = Param("path", "str", required=True, doc="a path: a.b, a[*].b, a[0].b, or $ JSONPath")


# -- status and content --------------------------------------------------------------------


class _FieldIs(JsonCheck):
    __slots__ = ("value",)
    field: ClassVar[str] = ""
    params = (Param("value", "any", required=True, doc="the expected value"),)
    value: Any

    def __init__(self, value: Any, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("value", _check_scalar(self.kind, value))

    def _actual(self, data: Any) -> Any:
        return data.get(self.field, MISSING) if isinstance(data, dict) else MISSING

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": self.field, "expected": self.value, "actual": self.value}

    def _compile_quick(self) -> QuickTest:
        actual_of, expected, kind, ok = self._actual, self.value, type(self.value), self._passed()

        def quick(data: Any) -> Result | None:
            actual = actual_of(data)
            return ok if type(actual) is kind and actual == expected else None

        return quick

    def _eval(self, data: Any) -> Result:
        actual = self._actual(data)
        if type(actual) is type(self.value) and actual == self.value:
            return self._passed()
        if actual is not MISSING and json_equal(actual, self.value):  # 1 for 1.0
            return Result(
                _P,
                self.kind,
                self._held(),
                {"path": self.field, "expected": self.value, "actual": actual},
            )
        got = (
            f"got {show(actual)}"
            if actual is not MISSING
            else f"but the response has no {self.field}"
        )
        return Result(
            _F,
            self.kind,
            f"Expected {self.field} {show(self.value)}, {got}",
            {
                "path": self.field,
                "expected": self.value,
                "actual": None if actual is MISSING else actual,
                **({"missing": True} if actual is MISSING else {}),
            },
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.field} is {show(self.value)}"


@register
class StatusIs(_FieldIs):
    """Passes when `response.status` equals the value (expect `status`).

    Example:
        >>> from chatassert.expect import StatusIs
        >>> StatusIs("success").check({"status": "error"}).reason
        "Expected status 'success', got 'error'"
    """

    __slots__ = ()
    kind = "expect_status"
    field = "status"
    dialect_names = {"expect": "status"}


@register
class ErrorCodeIs(_FieldIs):
    """Passes when `response.error_code` equals the value (expect `error_code`).

    When the response has no `error_code`, a string `error` field is compared instead.

    Example:
        >>> from chatassert.expect import ErrorCodeIs
        >>> ErrorCodeIs("NO_FILTERS").check({"status": "error", "error": "NO_FILTERS"}).passed
        True
    """

    __slots__ = ()
    kind = "expect_error_code"
    field = "error_code"
    dialect_names = {"expect": "error_code"}

    def _actual(self, data: Any) -> Any:
        if not isinstance(data, dict):
            return MISSING
        if "error_code" in data:
            return data["error_code"]
        error = data.get("error", MISSING)
        return error if isinstance(error, str) else MISSING


class _TextContains(JsonCheck):
    __slots__ = ("_needle", "case_sensitive", "value")
    expect_form = "text"
    params = (
        Param("value", "text", required=True, aliases=("text",), doc="the text to find"),
        Param("case_sensitive", "bool", default=False, doc="compare case exactly"),
    )
    value: str
    case_sensitive: bool
    _needle: str

    def __init__(
        self, value: str, *, case_sensitive: bool = False, message: str | None = None
    ) -> None:
        super().__init__(message=message)
        if not isinstance(case_sensitive, bool):
            raise TypeError("case_sensitive must be true or false")
        self._set("value", _str_value(self.kind, value))
        self._set("case_sensitive", case_sensitive)
        self._set("_needle", value if case_sensitive else value.lower())

    def _has(self, text: str) -> bool:
        return self._needle in (text if self.case_sensitive else text.lower())


@register
class JsonContains(_TextContains):
    """Passes when the whole response, serialised as JSON, contains the text (expect `contains`).

    Case-insensitive unless `case_sensitive=True`.

    Example:
        >>> from chatassert.expect import JsonContains
        >>> JsonContains("security").check({"summary": "Found 3 Security incidents"}).passed
        True
    """

    __slots__ = ()
    kind = "expect_contains"
    dialect_names = {"expect": "contains"}

    def _check(self, subject: object) -> Result:
        if isinstance(subject, str):  # the same text as for the decoded value: serialised
            try:
                data = json.loads(subject)
            except json.JSONDecodeError as exc:
                return Result(
                    _E, self.kind, f"the response is not JSON ({exc})", {"error": "not_json"}
                )
            return self._eval(data)
        return super()._check(subject)

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"expected": self.value}

    def _eval(self, data: Any) -> Result:
        return self._eval_text(json.dumps(data, ensure_ascii=False))

    def _eval_text(self, text: str) -> Result:
        if self._has(text):
            return self._passed()
        return Result(
            _F,
            self.kind,
            f"Expected the response to contain {show(self.value)}",
            {"expected": self.value, "actual": shorten(text, 500)},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"response contains {show(self.value)}"


class _StringFieldContains(_TextContains):
    __slots__ = ()
    field: ClassVar[str] = ""

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": self.field, "expected": self.value}

    def _compile_quick(self) -> QuickTest:
        field, needle, exact, ok = self.field, self._needle, self.case_sensitive, self._passed()

        def quick(data: Any) -> Result | None:
            text = data.get(field) if type(data) is dict else None
            if type(text) is str and needle in (text if exact else text.lower()):
                return ok
            return None

        return quick

    def _eval(self, data: Any) -> Result:
        actual = data.get(self.field, MISSING) if isinstance(data, dict) else MISSING
        if actual is MISSING:
            return self._missing(self.field, self.value)
        if not isinstance(actual, str):
            return Result(
                _F,
                self.kind,
                f"Expected {self.field} to be text containing "
                f"{show(self.value)}, got {show(actual)}",
                {"path": self.field, "expected": self.value, "actual": actual},
            )
        if self._has(actual):
            return self._passed()
        return Result(
            _F,
            self.kind,
            f"Expected {self.field} to contain {show(self.value)}, got {show(actual)}",
            {"path": self.field, "expected": self.value, "actual": actual},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.field} contains {show(self.value)}"


@register
class MessageContains(_StringFieldContains):
    """Passes when `response.message` contains the text, ignoring case (expect `message_contains`).

    Example:
        >>> from chatassert.expect import MessageContains
        >>> MessageContains("filter").check({"message": "Please provide a FILTER"}).passed
        True
    """

    __slots__ = ()
    kind = "expect_message_contains"
    field = "message"
    dialect_names = {"expect": "message_contains"}


@register
class SummaryContains(_StringFieldContains):
    """Passes when `response.summary` contains the text, ignoring case (expect `summary_contains`).

    Example:
        >>> from chatassert.expect import SummaryContains
        >>> SummaryContains("no results").check({"summary": "No results found"}).passed
        True
    """

    __slots__ = ()
    kind = "expect_summary_contains"
    field = "summary"
    dialect_names = {"expect": "summary_contains"}


# -- counts --------------------------------------------------------------------------------


class _ResultsCount(JsonCheck):
    __slots__ = ("value",)
    params = (Param("value", "int", required=True, doc="a number of results"),)
    words: ClassVar[str] = ""
    value: int

    def __init__(self, value: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("value", _int(self.kind, value))

    def _ok(self, n: int) -> bool:
        raise NotImplementedError

    def _compile_quick(self) -> QuickTest:
        ok, memo_get, passed = self._ok, self._memo.get, self._passed

        def quick(data: Any) -> Result | None:
            results = data.get("results") if type(data) is dict else None
            if type(results) is list and ok(len(results)):
                return memo_get(len(results)) or passed(len(results))
            return None

        return quick

    def _eval(self, data: Any) -> Result:
        results = data.get("results", MISSING) if isinstance(data, dict) else MISSING
        noun = "result" if self.value == 1 else "results"
        if not isinstance(results, list):
            got = (
                "no 'results' field"
                if results is MISSING
                else f"'results' that is not a list ({show(results, 40)})"
            )
            return Result(
                _F,
                self.kind,
                f"Expected {self.words} {self.value} {noun}, got {got}",
                {
                    "path": "results",
                    "expected": self.value,
                    "actual": None if results is MISSING else results,
                },
            )
        n = len(results)
        if self._ok(n):
            return self._passed(n)
        return Result(
            _F,
            self.kind,
            f"Expected {self.words} {self.value} {noun}, got {n}",
            self._pass_details(n),
        )

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": "results", "expected": self.value, "actual": n}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.words} {self.value} result{'' if self.value == 1 else 's'}"


@register
class ResultsMin(_ResultsCount):
    """Passes when `response.results` has at least N items (expect `results_min`).

    Example:
        >>> from chatassert.expect import ResultsMin
        >>> ResultsMin(1).check({"results": []}).reason
        'Expected at least 1 result, got 0'
    """

    __slots__ = ()
    kind = "expect_results_min"
    words = "at least"
    dialect_names = {"expect": "results_min"}

    def _ok(self, n: int) -> bool:
        return n >= self.value


@register
class ResultsMax(_ResultsCount):
    """Passes when `response.results` has at most N items (expect `results_max`).

    Example:
        >>> from chatassert.expect import ResultsMax
        >>> ResultsMax(5).check({"results": [{}, {}, {}]}).passed
        True
    """

    __slots__ = ()
    kind = "expect_results_max"
    words = "at most"
    dialect_names = {"expect": "results_max"}

    def _ok(self, n: int) -> bool:
        return n <= self.value


@register
class ResultsCount(_ResultsCount):
    """Passes when `response.results` has exactly N items (expect `results_count`).

    Example:
        >>> from chatassert.expect import ResultsCount
        >>> ResultsCount(2).check({"results": [{}]}).reason
        'Expected exactly 2 results, got 1'
    """

    __slots__ = ()
    kind = "expect_results_count"
    words = "exactly"
    dialect_names = {"expect": "results_count"}

    def _ok(self, n: int) -> bool:
        return n == self.value


# -- fields --------------------------------------------------------------------------------


@register
class HasFields(JsonCheck):
    """Passes when every path exists in the response; a `null` value exists (expect `has_fields`).

    The expect key `has_field` is the same check with one path.

    Example:
        >>> from chatassert import HasFields
        >>> HasFields(["results", "pagination.total"]).check(
        ...     {"results": [], "pagination": {"offset": 0}}).reason
        'Missing field: pagination.total'
    """

    __slots__ = ("_paths", "paths")
    kind = "expect_has_fields"
    dialect_names = {"expect": "has_fields"}
    params = (
        Param("value", "str_list", required=True, attr="paths", doc="the paths that must exist"),
    )
    paths: tuple[str, ...]
    _paths: tuple[JsonPath, ...]

    def __init__(self, paths: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("paths", _strings(self.kind, paths))
        self._set("_paths", tuple(compile_path(p) for p in self.paths))

    def _compile_quick(self) -> QuickTest:
        finders, ok = tuple(p.values for p in self._paths), self._passed()

        def quick(data: Any) -> Result | None:
            for values_of in finders:
                if not values_of(data):
                    return None
            return ok

        return quick

    def _eval(self, data: Any) -> Result:
        missing = [p.source for p in self._paths if not p.find(data)]
        if not missing:
            return self._passed()
        reason = (
            f"Missing field: {missing[0]}"
            if len(missing) == 1
            else f"Missing fields: {', '.join(missing)}"
        )
        return Result(
            _F,
            self.kind,
            reason,
            {"path": missing[0], "expected": list(self.paths), "actual": None, "missing": missing},
        )

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"expected": list(self.paths), "missing": []}

    def describe(self) -> str:
        """Describe the requirement."""
        return "has fields " + ", ".join(self.paths)


@register
class FieldEquals(JsonCheck):
    """Passes when the field at each path equals its value (strict JSON equality).

    Expect `field_equals`: `{path: value, ...}`, or `{path: P, value: V}` for one field.

    Example:
        >>> from chatassert import FieldEquals
        >>> FieldEquals({"pagination.offset": 0}).check({"pagination": {"offset": 5}}).reason
        'pagination.offset: expected 0, got 5'
    """

    __slots__ = ("_fields", "fields")
    kind = "expect_field_equals"
    dialect_names = {"expect": "field_equals"}
    expect_form = "field_equals"
    params = (
        Param(
            "value",
            "mapping",
            required=True,
            attr="fields",
            doc="a mapping of path to expected value",
        ),
    )
    fields: dict[str, Any]
    _fields: tuple[tuple[JsonPath, Any], ...]

    def __init__(self, fields: Mapping[str, Any], *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(fields, Mapping) or not fields:
            raise ValueError("field_equals needs a non-empty mapping of path to value")
        self._set("fields", dict(fields))
        self._set("_fields", tuple((compile_path(str(k)), v) for k, v in fields.items()))

    def _compile_quick(self) -> QuickTest:
        fields = tuple((path.values, expected) for path, expected in self._fields)
        ok = self._passed(len(fields))

        def quick(data: Any) -> Result | None:
            for values_of, expected in fields:  # one strictly equal value per path
                values = values_of(data)
                if len(values) != 1 or not _same_scalar(values[0], expected):
                    return None
            return ok

        return quick

    def _eval(self, data: Any) -> Result:
        bad = _Offenders()
        for path, expected in self._fields:
            found = path.find(data)
            if not found:
                bad.add(path.source, None, expected=expected, missing=True)
                continue
            for value, where in found:
                if not json_equal(value, expected):
                    bad.add(path.location(where), value, expected=expected)
        if not bad:
            return self._passed(len(self._fields))
        first = bad.first
        assert first is not None
        if first.get("missing"):
            reason = f"Missing field: {first['path']}"
        else:
            reason = (
                f"{first['path']}: expected {show(first['expected'])}, got {show(first['actual'])}"
            )
        return Result(
            _F, self.kind, reason + bad.more(), bad.details(first["expected"], len(self._fields))
        )

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"expected": self.fields, "checked": n}

    def describe(self) -> str:
        """Describe the requirement."""
        return ", ".join(f"{k} is {show(v)}" for k, v in self.fields.items())


@register
class FieldContains(_PathCheck):
    """Passes when the text at the path contains the text, ignoring case (`field_contains`).

    A list of strings passes when one of its items contains the text; a wildcard path needs
    every value to contain it.

    Example:
        >>> from chatassert import FieldContains
        >>> FieldContains("summary", "security").check({"summary": "3 Security incidents"}).passed
        True
    """

    __slots__ = ("_needle", "case_sensitive", "text")
    kind = "expect_field_contains"
    dialect_names = {"expect": "field_contains"}
    params = (
        _PATH,
        Param("text", "text", required=True, aliases=("value",), doc="the text to find"),
        Param("case_sensitive", "bool", default=False, doc="compare case exactly"),
    )
    text: str
    case_sensitive: bool
    _needle: str

    def __init__(
        self, path: str, text: str, *, case_sensitive: bool = False, message: str | None = None
    ) -> None:
        super().__init__(path, message=message)
        self._set("text", _str_value("field_contains text", text))
        self._set("case_sensitive", bool(case_sensitive))
        self._set("_needle", text if case_sensitive else text.lower())

    def _expected(self) -> Any:
        return self.text

    def _has(self, value: Any) -> bool:
        if isinstance(value, str):
            return self._needle in (value if self.case_sensitive else value.lower())
        if isinstance(value, list):
            return any(isinstance(v, str) and self._has(v) for v in value)
        return False

    def _eval(self, data: Any) -> Result:
        found = self._path.find(data)
        if not found and not self._path.fans_out:
            return self._missing(self.path, self.text)
        bad = _Offenders()
        for value, where in found:
            if not self._has(value):
                bad.add(self._path.location(where), value, _index(where))
        if not bad:
            return self._passed(len(found))
        first = bad.first
        assert first is not None
        return Result(
            _F,
            self.kind,
            f"{first['path']}: expected to contain "
            f"{show(self.text)}, got {show(first['actual'])}" + bad.more(),
            bad.details(self.text, len(found)),
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.path} contains {show(self.text)}"


# -- arrays --------------------------------------------------------------------------------


class _EachValue(_PathCheck):
    """Every value at the path must satisfy `_ok`; zero values pass with `checked: 0`."""

    __slots__ = ()

    def _ok(self, value: Any) -> bool:
        raise NotImplementedError

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        raise NotImplementedError

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        ok = self._ok
        return lambda values: all(map(ok, values))

    def _eval(self, data: Any) -> Result:
        found = self._path.find(data)
        if not found and not self._path.fans_out:
            return self._missing(self.path, self._expected())
        ok = self._ok
        bad = _Offenders()
        for value, where in found:
            if not ok(value):
                bad.add(self._path.location(where), value, _index(where))
        first = bad.first
        if first is None:
            return self._passed(len(found))
        return Result(
            _F,
            self.kind,
            self._reason(first["path"], first["actual"], first.get("index")) + bad.more(),
            bad.details(self._expected(), len(found)),
        )


@register
class AllMatch(_EachValue):
    """Passes when every value at the path equals the value (expect `all_match`).

    Example:
        >>> from chatassert import AllMatch
        >>> AllMatch("results[*].type", "note").check(
        ...     {"results": [{"type": "note"}, {"type": "incident-log"}]}).reason
        "Found non-matching item: 'incident-log' at results[1].type"
    """

    __slots__ = ("_ok", "value")
    kind = "expect_all_match"
    dialect_names = {"expect": "all_match"}
    params = (_PATH, Param("value", "any", required=True, doc="the value every item must equal"))
    value: Any

    def __init__(self, path: str, value: Any, *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        self._set("value", value)
        self._set("_ok", equal_to(value))

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_ok", None)
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        super().__setstate__(state)
        object.__setattr__(self, "_ok", equal_to(self.value))

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        expected = self.value
        if type(expected) is not str:
            return super()._all_ok_function()

        def all_equal(values: list[Any]) -> bool:  # strict: a string equals only a string
            for value in values:  # noqa: SIM110 - a plain loop: no generator on the hot path
                if type(value) is not str or value != expected:
                    return False
            return True

        return all_equal

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        return f"Found non-matching item: {show(value)} at {location}"

    def _expected(self) -> Any:
        return self.value

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is {show(self.value)}"


@register
class AllMatchOneOf(_EachValue):
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
    params = (_PATH, Param("values", "any", required=True, doc="the allowed values"))
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
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _subject_words(location: str) -> tuple[str, str]:
    """`results[2].file` → (`File`, `results[2]`); anything else → (`Value`, the location)."""
    if location.endswith(".file"):
        return "File", location[: -len(".file")]
    return "Value", location


class _PatternEach(_PathCheck):
    __slots__ = ("_compiled", "_prefixes", "regex")
    expect_form = "fields"
    options = ("regex_timeout",)
    params = (
        _PATH,
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

    def _all_search(self, values: list[Any]) -> bool:
        """Whether every value matches (or, for `none_*`, none does)."""
        search = self._compiled.search
        want = self.should_match
        for value in values:  # a RegexTimeoutError goes to `JsonCheck.check`: see there
            text = value if type(value) is str else _pattern_text(value)
            if (search(text) is not None) is not want:
                return False
        return True

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        prefixes, want, all_search = self._prefixes, self.should_match, self._all_search
        if prefixes is None:
            return all_search

        def all_prefixed(values: list[Any]) -> bool:  # `^literal` patterns: no regex engine
            for value in values:
                if type(value) is not str:
                    return all_search(values)
                if value.startswith(prefixes) is not want:
                    return False
            return True

        return all_prefixed

    def _eval(self, data: Any) -> Result:
        if not self._path.fans_out and not self._path.values(data):
            return self._missing(self.path, self.regex)
        search, prefixes = self._compiled.search, self._prefixes
        want = self.should_match
        found = self._path.find(data)
        bad: _Offenders | None = None
        for value, where in found:
            try:
                if prefixes is not None and type(value) is str:
                    matched = value.startswith(prefixes)
                else:
                    matched = search(_pattern_text(value)) is not None
            except RegexTimeoutError as exc:
                return Result(
                    _E,
                    self.kind,
                    str(exc),
                    {"path": self._path.location(where), "pattern": self.regex, "error": "timeout"},
                )
            if matched is not want:
                if bad is None:
                    bad = _Offenders()
                bad.add(self._path.location(where), value, _index(where))
        if bad is None:
            return self._passed(len(found))
        first = bad.first
        assert first is not None
        word, where_text = _subject_words(first["path"])
        verb = "doesn't match pattern" if want else "matches excluded pattern"
        reason = f"{word} {show(first['actual'])} at {where_text} {verb} '{self.regex}'"
        return Result(
            _F,
            self.kind,
            reason + bad.more(),
            bad.details(self.regex, len(found), pattern=self.regex),
        )


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
class ArrayContains(_PathCheck):
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
        _PATH,
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


# -- tags ----------------------------------------------------------------------------------


class _Tags(JsonCheck):
    """A check over `results[*].metadata.tags` (a missing tag list is no tags)."""

    __slots__ = ("_set_tags", "tags")
    params = (Param("value", "str_list", required=True, attr="tags", doc="the tags"),)
    tags: tuple[str, ...]
    _set_tags: frozenset[str]

    def __init__(self, tags: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("tags", _strings(self.kind, tags))
        self._set("_set_tags", frozenset(self.tags))

    def _problem(self, index: int, tags: list[Any]) -> str | None:
        """Return why result `index` with `tags` breaks the check, or None."""
        raise NotImplementedError

    _wanted: ClassVar[bool | None] = None
    """For the quick test: True, every tag must be present; False, every tag absent; None,
    ask `_fine`."""

    def _fine(self, tags: list[Any]) -> bool:
        """Whether a result with the list `tags` satisfies the check, when `_wanted` is None."""
        raise NotImplementedError

    def _compile_quick(self) -> QuickTest:
        fine, memo_get, passed = self._fine, self._memo.get, self._passed
        required, want = self.tags, self._wanted

        def quick(data: Any) -> Result | None:
            results = data.get("results") if type(data) is dict else None
            if type(results) is not list:
                return None
            for item in results:  # every result has a list of tags that satisfies the check
                meta = item.get("metadata") if type(item) is dict else None
                tags = meta.get("tags") if type(meta) is dict else None
                if type(tags) is not list:
                    return None
                if want is None:
                    if not fine(tags):
                        return None
                else:  # every tag present (want True) or every tag absent (want False)
                    for tag in required:
                        if (tag in tags) is not want:
                            return None
            return memo_get(len(results)) or passed(len(results))

        return quick

    def _eval(self, data: Any) -> Result:
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            results = []
        bad: _Offenders | None = None
        for i, item in enumerate(results):
            meta = item.get("metadata") if isinstance(item, dict) else None
            tags = meta.get("tags") if isinstance(meta, dict) else None
            if tags is None:
                tags = []
            elif isinstance(tags, str):
                tags = [tags]
            elif not isinstance(tags, list):
                return Result(
                    _E,
                    self.kind,
                    f"results[{i}].metadata.tags is not a list of tags ({show(tags, 40)})",
                    {"path": f"results[{i}].metadata.tags", "actual": tags},
                )
            problem = self._problem(i, tags)
            if problem is not None:
                if bad is None:
                    bad = _Offenders()
                bad.add(f"results[{i}].metadata.tags", tags, i, reason=problem)
        if bad is None:
            return self._passed(len(results))
        first = bad.first
        assert first is not None
        return Result(
            _F, self.kind, first["reason"] + bad.more(), bad.details(list(self.tags), len(results))
        )

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": "results[*].metadata.tags", "expected": list(self.tags), "checked": n}


@register
class AllHaveTags(_Tags):
    """Passes when every result has all of the tags in `metadata.tags` (expect `all_have_tags`).

    Example:
        >>> from chatassert.expect import AllHaveTags
        >>> AllHaveTags(["work", "security"]).check({"results": [
        ...     {"metadata": {"tags": ["work"]}}, {"metadata": {"tags": ["work", "security"]}}]}
        ... ).reason
        "Result 0 missing required tag: 'security'"
    """

    __slots__ = ()
    kind = "expect_all_have_tags"
    dialect_names = {"expect": "all_have_tags"}
    _wanted = True

    def _problem(self, index: int, tags: list[Any]) -> str | None:
        missing = next((t for t in self.tags if t not in tags), None)
        return None if missing is None else f"Result {index} missing required tag: '{missing}'"

    def describe(self) -> str:
        """Describe the requirement."""
        return "every result has tags " + ", ".join(show(t) for t in self.tags)


@register
class NoneHaveTags(_Tags):
    """Passes when no result has any of the tags (expect `none_have_tags`).

    Example:
        >>> from chatassert.expect import NoneHaveTags
        >>> NoneHaveTags(["draft"]).check({"results": [{"metadata": {"tags": ["draft"]}}]}).reason
        "Result 0 has excluded tag: 'draft'"
    """

    __slots__ = ()
    kind = "expect_none_have_tags"
    dialect_names = {"expect": "none_have_tags"}
    _wanted = False

    def _problem(self, index: int, tags: list[Any]) -> str | None:
        found = next((t for t in self.tags if t in tags), None)
        return None if found is None else f"Result {index} has excluded tag: '{found}'"

    def describe(self) -> str:
        """Describe the requirement."""
        return "no result has tags " + ", ".join(show(t) for t in self.tags)


@register
class EachHasAnyTag(_Tags):
    """Passes when every result has at least one of the tags (expect `each_has_any_tag`).

    Example:
        >>> from chatassert.expect import EachHasAnyTag
        >>> EachHasAnyTag(["work", "personal"]).check(
        ...     {"results": [{"metadata": {"tags": ["misc"]}}]}).reason
        "Result 0 has none of the tags: 'work', 'personal'"
    """

    __slots__ = ()
    kind = "expect_each_has_any_tag"
    dialect_names = {"expect": "each_has_any_tag"}

    def _fine(self, tags: list[Any]) -> bool:
        return any(t in self._set_tags for t in tags if isinstance(t, str))

    def _problem(self, index: int, tags: list[Any]) -> str | None:
        if self._fine(tags):
            return None
        return f"Result {index} has none of the tags: " + ", ".join(show(t) for t in self.tags)

    def describe(self) -> str:
        """Describe the requirement."""
        return "every result has one of the tags " + ", ".join(show(t) for t in self.tags)


# -- dates ---------------------------------------------------------------------------------

_DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}")
_UTC = _dt.UTC
_FROM_ISO = _dt.datetime.fromisoformat
_EARLY = _dt.datetime(2000, 1, 1)
_LATE = _dt.datetime(2001, 2, 2, 23, 59, 59, 999999)  # every field differs from _EARLY


def _is_iso_date(text: str) -> bool:
    """Whether `text` is an ISO 8601 date without a time (`2026-01-31`, `20260131`)."""
    try:
        _dt.date.fromisoformat(text.strip())
    except ValueError:
        return False
    return True


def parse_date(value: Any, *, end_of_day: bool = False) -> _dt.datetime | None:
    """Parse an ISO 8601 date or datetime (other formats via python-dateutil) as aware UTC.

    A naive value is taken as UTC; a date-only value is midnight, or the last microsecond of
    the day when `end_of_day` is set. Returns None when the value is not a date.

    Example:
        >>> parse_date("2026-01-31", end_of_day=True).isoformat()
        '2026-01-31T23:59:59.999999+00:00'
        >>> parse_date("2026-01-15T10:00:00+02:00").isoformat()
        '2026-01-15T08:00:00+00:00'
    """
    if type(value) is not str:
        if not isinstance(value, str):
            return None
        value = str(value)
    try:
        parsed = _dt.datetime.fromisoformat(value)
        if end_of_day and _is_iso_date(value):
            parsed = parsed.replace(hour=23, minute=59, second=59, microsecond=999999)
    except ValueError:
        text = value.strip()
        if not text:
            return None
        try:
            from dateutil import parser as _parser

            # dateutil fills what the text leaves out from a default: parsed against two
            # different defaults, a partial date ("Monday", "10:00", "2026-01") differs
            first = _parser.parse(text, default=_EARLY)
            second = _parser.parse(text, default=_LATE)
        except (ValueError, OverflowError):
            return None
        if first.date() != second.date():
            return None  # not a date: a day, month or year is missing
        no_time = first.time() == _EARLY.time() and second.time() == _LATE.time()
        parsed = second if end_of_day and no_time else first
    zone = parsed.tzinfo
    if zone is None:
        return parsed.replace(tzinfo=_UTC)
    try:
        return parsed if zone is _UTC else parsed.astimezone(_UTC)
    except OverflowError:  # 0001-01-01T00:30+01:00 is before the first representable instant
        return None


def _shown_day(value: Any, when: _dt.datetime) -> str:
    """The day of a date for a reason: as written, with its UTC day when that differs."""
    written, utc = _day(value), when.date().isoformat()
    return written if written == utc else f"{written} ({utc} in UTC)"


def _day(value: Any) -> str:
    """The `YYYY-MM-DD` a date value was written with (its own calendar day)."""
    if isinstance(value, str):
        text = value.strip()
        if _DATE_PREFIX.match(text):
            return text[:10]
    return str(value)


class _Dates(_PathCheck):
    """Every value at the path must be a date satisfying `_ok_date`."""

    __slots__ = ()

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        raise NotImplementedError

    def _context(self) -> Any:
        return None

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        raise NotImplementedError

    def _all_dates_ok(self, values: list[Any], ctx: Any) -> bool:
        """Whether every value is a date satisfying `_ok_date` (the common case)."""
        ok = self._ok_date
        for value in values:
            when = parse_date(value)
            if when is None or not ok(when, value, ctx):
                return False
        return True

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return lambda values: self._all_dates_ok(values, self._context())

    def _eval(self, data: Any) -> Result:
        found = self._path.find(data)
        if not found and not self._path.fans_out:
            return self._missing(self.path, self._expected())
        ctx = self._context()
        bad: _Offenders | None = None
        first_reason = ""
        for value, where in found:
            when = parse_date(value)
            if when is not None and self._ok_date(when, value, ctx):
                continue
            location = self._path.location(where)
            if bad is None:
                bad = _Offenders()
                first_reason = (
                    f"Value {show(value)} at {location} is not a date"
                    if when is None
                    else self._date_reason(value, when, location, ctx)
                )
            bad.add(
                location, value, _index(where), **({} if when is not None else {"not_a_date": True})
            )
        if bad is None:
            return self._passed(len(found))
        return Result(
            _F, self.kind, first_reason + bad.more(), bad.details(self._expected(), len(found))
        )


@register
class AllDatesBetween(_Dates):
    """Passes when every date at the path is in the inclusive range (`all_dates_between`).

    Naive dates are UTC; a date-only `end` means the end of that day.

    Example:
        >>> from chatassert import AllDatesBetween
        >>> check = AllDatesBetween("results[*].metadata.created", "2026-01-01", "2026-01-31")
        >>> check.check({"results": [{"metadata": {"created": "2026-02-05T10:00:00Z"}}]}).reason
        'Date 2026-02-05 at results[0].metadata.created is outside range 2026-01-01 to 2026-01-31'
    """

    __slots__ = ("_end", "_start", "end", "start")
    kind = "expect_all_dates_between"
    dialect_names = {"expect": "all_dates_between"}
    params = (
        _PATH,
        Param("start", "str", required=True, doc="the earliest date (inclusive)"),
        Param("end", "str", required=True, doc="the latest date (inclusive)"),
    )
    start: str
    end: str
    _start: _dt.datetime
    _end: _dt.datetime

    def __init__(self, path: str, start: str, end: str, *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        parsed_start = parse_date(start)
        parsed_end = parse_date(end, end_of_day=True)
        if parsed_start is None:
            raise ValueError(f"all_dates_between start {start!r} is not a date")
        if parsed_end is None:
            raise ValueError(f"all_dates_between end {end!r} is not a date")
        if parsed_end < parsed_start:
            raise ValueError(f"all_dates_between end {end!r} is before start {start!r}")
        self._set("start", start)
        self._set("end", end)
        self._set("_start", parsed_start)
        self._set("_end", parsed_end)

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        return self._start <= when <= self._end

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        start, end, general = self._start, self._end, super()._all_ok_function()
        assert general is not None

        def all_between(values: list[Any]) -> bool:
            for value in values:
                if type(value) is not str:
                    return general(values)
                try:
                    when = _FROM_ISO(value)
                except ValueError:  # not ISO 8601: python-dateutil may still read it
                    return general(values)
                if when.tzinfo is None:
                    when = when.replace(tzinfo=_UTC)  # naive means UTC, as in parse_date
                if not start <= when <= end:  # aware datetimes compare as instants
                    return False
            return True

        return all_between

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        return (
            f"Date {_shown_day(value, when)} at {location} is outside range "
            f"{self._start.date().isoformat()} to {self._end.date().isoformat()}"
        )

    def _expected(self) -> Any:
        return {"start": self.start, "end": self.end}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is between {self.start} and {self.end}"


def _system_clock() -> _dt.datetime:
    return _dt.datetime.now(_UTC)


@register
class DatesWithinDays(_Dates):
    """Passes when every date at the path is within N days of now (`dates_within_days`).

    "Within" is either side of now. The clock is injectable: `clock` is a callable returning
    an aware datetime (a naive one is taken as UTC); it is called once per check.

    Example:
        >>> import datetime as dt
        >>> from chatassert.expect import DatesWithinDays
        >>> now = lambda: dt.datetime(2026, 1, 31, tzinfo=dt.timezone.utc)
        >>> check = DatesWithinDays("results[*].date", 7, clock=now)
        >>> check.check({"results": [{"date": "2026-01-28"}, {"date": "2026-01-02"}]}).reason
        'Date 2026-01-02 at results[1].date is 29 days from 2026-01-31 (more than 7)'
    """

    __slots__ = ("_clock", "_span", "days")
    kind = "expect_dates_within_days"
    dialect_names = {"expect": "dates_within_days"}
    options = ("clock",)
    params = (_PATH, Param("days", "number", required=True, doc="how many days from now"))
    days: float
    _span: _dt.timedelta
    _clock: Callable[[], _dt.datetime]

    def __init__(
        self,
        path: str,
        days: float,
        *,
        message: str | None = None,
        clock: Callable[[], _dt.datetime] | None = None,
    ) -> None:
        super().__init__(path, message=message)
        number = _number("dates_within_days days", days)
        if number is None or number < 0:
            raise ValueError(f"dates_within_days days must be a non-negative number, got {days!r}")
        if clock is not None and not callable(clock):
            raise TypeError("clock must be a callable returning an aware datetime")
        self._set("days", number)
        self._set("_span", _dt.timedelta(days=number))
        self._set("_clock", clock or _system_clock)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        if state.get("_clock") is _system_clock:
            state["_clock"] = None
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        super().__setstate__({**state, "_clock": state.get("_clock") or _system_clock})

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return None  # no quick test: the clock is read once per check, by the full evaluation

    def _context(self) -> Any:
        now = self._clock()
        return now.replace(tzinfo=_UTC) if now.tzinfo is None else now.astimezone(_UTC)

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        return bool(abs(ctx - when) <= self._span)

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        days = round(abs(ctx - when).total_seconds() / 86400, 1)
        return (
            f"Date {_shown_day(value, when)} at {location} is {days:g} days from "
            f"{ctx.date().isoformat()} (more than {self.days:g})"
        )

    def _expected(self) -> Any:
        return {"days": self.days}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is within {self.days:g} days of now"


@register
class AllDatesInYear(_Dates):
    """Passes when every date at the path falls in the year (expect `all_dates_in_year`).

    The year is that of the date as written (its own time zone).

    Example:
        >>> from chatassert.expect import AllDatesInYear
        >>> AllDatesInYear("results[*].date", 2026).check(
        ...     {"results": [{"date": "2025-12-31T23:00:00Z"}]}).reason
        'Date 2025-12-31 at results[0].date is not in 2026'
    """

    __slots__ = ("year",)
    kind = "expect_all_dates_in_year"
    dialect_names = {"expect": "all_dates_in_year"}
    params = (_PATH, Param("year", "int", required=True, doc="the year"))
    year: int

    def __init__(self, path: str, year: int, *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        self._set("year", _int("all_dates_in_year year", year, 1))

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        if _DATE_PREFIX.match(raw):
            return raw.strip()[:4] == f"{self.year:04d}"
        return when.year == self.year

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        return f"Date {_day(value)} at {location} is not in {self.year}"  # the year as written

    def _expected(self) -> Any:
        return {"year": self.year}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is in {self.year}"


# -- numbers -------------------------------------------------------------------------------


class _Range(_PathCheck):
    __slots__ = ("max", "min")
    params = (
        _PATH,
        Param("min", "number", default=None, doc="the smallest allowed value"),
        Param("max", "number", default=None, doc="the largest allowed value"),
    )
    min: float | int | None
    max: float | int | None

    def __init__(
        self,
        path: str,
        min: float | None = None,
        max: float | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(path, message=message)
        low, high = _number(f"{self.kind} min", min), _number(f"{self.kind} max", max)
        if low is None and high is None:
            raise ValueError(f"{self.kind} needs 'min', 'max' or both")
        if low is not None and high is not None and low > high:
            raise ValueError(f"{self.kind} min ({low}) is larger than max ({high})")
        self._set("min", low)
        self._set("max", high)

    def _ok(self, value: Any) -> bool:
        if not _is_number(value):
            return False
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        low = -math.inf if self.min is None else self.min
        high = math.inf if self.max is None else self.max

        def all_in_range(values: list[Any]) -> bool:
            for value in values:
                kind = type(value)
                # NaN fails `low <= value`, as `_ok` rejects it: the two always agree
                if (kind is not int and kind is not float) or not low <= value <= high:
                    return False
            return True

        return all_in_range

    def _range_text(self) -> str:
        low = "-inf" if self.min is None else show(self.min)
        high = "inf" if self.max is None else show(self.max)
        return f"{low}-{high}"

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        if not _is_number(value):
            return f"Value {show(value)} at {location} is not a number"
        return f"Value {show(value)} at {location} is outside range {self._range_text()}"

    def _expected(self) -> Any:
        return {"min": self.min, "max": self.max}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.path} in {self._range_text()}"


@register
class AllInRange(_Range, _EachValue):
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
class InRange(_Range, _EachValue):
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

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        in_range = super()._all_ok_function()
        assert in_range is not None
        return lambda values: bool(values) and in_range(values)  # no value: a missing field

    def _eval(self, data: Any) -> Result:
        found = self._path.find(data)
        if not found:
            return self._missing(self.path, self._expected())
        return super()._eval(data)


@register
class SortedDesc(_PathCheck):
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
    params = (_PATH,)

    def _expected(self) -> Any:
        return "descending"

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return _descending_numbers

    def _eval(self, data: Any) -> Result:
        values = self._path.values(data)
        if not values and not self._path.fans_out:
            return self._missing(self.path, "descending")
        kinds = {"number" if _is_number(v) else type(v).__name__ for v in values}
        if len(kinds) > 1 or kinds - {"number", "str"}:
            return Result(
                _E,
                self.kind,
                f"the values at {self.path} cannot be ordered (found {', '.join(sorted(kinds))})",
                {"path": self.path, "actual": values},
            )
        bad = _Offenders()
        if any(values[i] > values[i - 1] for i in range(1, len(values))):
            found = self._path.find(data)
            for i in range(1, len(values)):
                if values[i] > values[i - 1]:
                    _, where = found[i]
                    index = _index(where)  # the item's own index: items without a value skipped
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


# -- schema --------------------------------------------------------------------------------

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "integer": lambda v: type(v) is int,
    "boolean": lambda v: type(v) is bool,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def _compile_schema(schema: Mapping[str, Any]) -> tuple[tuple[JsonPath, str, Any, Any], ...]:
    out = []
    for field, spec in schema.items():
        low = high = None
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"type", "min", "max"}
            if unknown:
                raise ValueError(
                    f"results_schema field {field!r}: unknown keys "
                    f"{sorted(unknown)}; use type, min and max"
                )
            low = _number(f"results_schema {field} min", spec.get("min"))
            high = _number(f"results_schema {field} max", spec.get("max"))
            kind = spec.get("type")
        else:
            kind = spec
        if kind not in _TYPES:
            raise ValueError(
                f"results_schema field {field!r}: unknown type {kind!r}; use one "
                f"of {', '.join(_TYPES)}"
            )
        out.append((compile_path(str(field)), str(kind), low, high))
    return tuple(out)


@register
class ResultsMatchSchema(JsonCheck):
    """Passes when every result has each field with its type (expect `results_schema`).

    A field's type is `string`, `number`, `integer`, `boolean`, `object`, `array` or `null`,
    or `{type, min, max}`: a number in range, or a string or array whose length is in range.

    Example:
        >>> from chatassert.expect import ResultsMatchSchema
        >>> check = ResultsMatchSchema({"file": "string", "relevance": {"type": "number",
        ...                                                              "min": 0, "max": 1}})
        >>> check.check({"results": [{"file": "a.md", "relevance": "0.9"}]}).reason
        "Result 0 field relevance: expected number, got '0.9'"
    """

    __slots__ = ("_schema", "schema")
    kind = "expect_results_schema"
    dialect_names = {"expect": "results_schema"}
    params = (
        Param(
            "value",
            "mapping",
            required=True,
            attr="schema",
            doc="field → type name, or {type, min, max}",
        ),
    )
    schema: dict[str, Any]
    _schema: tuple[tuple[JsonPath, str, Any, Any], ...]

    def __init__(self, schema: Mapping[str, Any], *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(schema, Mapping) or not schema:
            raise ValueError("results_schema needs a non-empty mapping of field to type")
        self._set("schema", dict(schema))
        self._set("_schema", _compile_schema(schema))

    def _eval(self, data: Any) -> Result:
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            results = []
        bad = _Offenders()
        first_reason = ""
        for i, item in enumerate(results):
            for path, kind, low, high in self._schema:
                found = path.find(item)
                location = f"results[{i}].{path.source}"
                if not found:
                    reason = f"Result {i} missing field: {path.source}"
                    value: Any = None
                elif not _TYPES[kind](found[0][0]):
                    value = found[0][0]
                    reason = f"Result {i} field {path.source}: expected {kind}, got {show(value)}"
                else:
                    value = found[0][0]
                    size = (
                        value
                        if _is_number(value)
                        else len(value)
                        if isinstance(value, str | list)
                        else None
                    )
                    if size is None or (
                        (low is None or size >= low) and (high is None or size <= high)
                    ):
                        continue
                    what = "value" if _is_number(value) else "length"
                    reason = (
                        f"Result {i} field {path.source}: {what} {show(size)} is outside "
                        f"range {'-inf' if low is None else show(low)}-"
                        f"{'inf' if high is None else show(high)}"
                    )
                if not bad:
                    first_reason = reason
                bad.add(location, value, i, reason=reason)
        if not bad:
            return self._passed(len(results))
        return Result(
            _F, self.kind, first_reason + bad.more(), bad.details(self.schema, len(results))
        )

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"expected": self.schema, "checked": n}

    def describe(self) -> str:
        """Describe the requirement."""
        return "every result matches " + json.dumps(self.schema)


# -- conditional and alternative checks ----------------------------------------------------


def _words(assertion: Assertion) -> str:
    if isinstance(assertion, AllOf):
        return " and ".join(_words(c) for c in assertion.children)
    return assertion.describe()


@register
class OneOf(AnyOf):
    """Passes when at least one branch passes (expect `one_of`; each branch an AND of keys).

    Example:
        >>> from chatassert.expect import JsonContains, OneOf, StatusIs
        >>> check = OneOf(StatusIs("error"), JsonContains("filter"))
        >>> check.check({"status": "success", "message": "Please provide a filter"}).passed
        True
        >>> check.check({"status": "success", "message": "Done"}).reason
        "Neither status is 'error' nor response contains 'filter'"
    """

    __slots__ = ()
    kind = "expect_one_of"
    level = "json"
    dialect_names = {"expect": "one_of"}
    expect_form: ClassVar[str] = "expect"
    params = (
        Param("assertions", "assertions", required=True, attr="children", doc="the alternatives"),
    )

    def __init__(
        self, *children: Assertion, message: str | None = None, **kw: Sequence[Assertion]
    ) -> None:
        super().__init__(*children, message=message, **kw)
        if not self.children:
            raise ValueError("one_of needs at least one branch")

    def _combine(self, results: list[Result]) -> Result:
        result = super()._combine(results)
        if result.status is _F and results:
            words = [_words(c) for c in self.children]
            if len(words) == 1:
                reason = f"Expected {words[0]}"
            elif len(words) == 2:
                reason = f"Neither {words[0]} nor {words[1]}"
            else:
                reason = "None of: " + "; ".join(words)
            result.__dict__["reason"] = reason
        return result

    def describe(self) -> str:
        """Describe the alternatives."""
        return " or ".join(f"({_words(c)})" for c in self.children)


class _Conditional(JsonCheck):
    """Checks `child` when `_holds(data)`; otherwise the result is skipped."""

    __slots__ = ("child",)
    expect_form = "expect"
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "assertion",
            "assertion",
            required=True,
            attr="child",
            doc="checked when the condition holds",
        ),
    )
    child: Assertion

    def __init__(self, child: Assertion, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(child, Assertion):
            raise TypeError(f"{type(self).__name__} takes an assertion, got {type(child).__name__}")
        self._set("child", child)

    def needs_judge(self) -> bool:
        """Whether the child may call a judge."""
        return self.child.needs_judge()

    def _holds(self, data: Any) -> str | None:
        """Return None when the condition holds, else why it does not."""
        raise NotImplementedError

    def _eval(self, data: Any) -> Result:
        why_not = self._holds(data)
        if why_not is not None:
            return Result(_S, self.kind, f"condition not met: {why_not}", {"condition": False})
        inner = self.child.check(data)
        return Result(inner.status, self.kind, inner.reason, {"condition": True}, children=(inner,))

    def describe(self) -> str:
        """Describe the rule."""
        return f"{self._condition_words()}: {_words(self.child)}"

    def _condition_words(self) -> str:
        raise NotImplementedError


@register
class IfResults(_Conditional):
    """Checks the inner assertions when `results` is a non-empty array; else skipped.

    Expect `if_results`.

    Example:
        >>> from chatassert.expect import AllHaveTags, IfResults
        >>> check = IfResults(AllHaveTags(["work"]))
        >>> check.check({"results": []}).status.value
        'skipped'
        >>> check.check({"results": [{"metadata": {"tags": ["personal"]}}]}).reason
        "Result 0 missing required tag: 'work'"
    """

    __slots__ = ()
    kind = "expect_if_results"
    dialect_names = {"expect": "if_results"}

    def _holds(self, data: Any) -> str | None:
        results = data.get("results") if isinstance(data, dict) else None
        if isinstance(results, list) and results:
            return None
        return "no results"

    def _condition_words(self) -> str:
        return "if there are results"


@register
class IfHasHistory(_Conditional):
    """Checks the inner assertions when the response has `history_results`; else skipped.

    Expect `if_has_history`. A `history_results` of `null` exists (as in `has_fields`).

    Example:
        >>> from chatassert import AllMatch
        >>> from chatassert.expect import IfHasHistory
        >>> check = IfHasHistory(AllMatch("history_results[*].operation", "delete"))
        >>> check.check({"results": []}).status.value
        'skipped'
    """

    __slots__ = ()
    kind = "expect_if_has_history"
    dialect_names = {"expect": "if_has_history"}

    def _holds(self, data: Any) -> str | None:
        if isinstance(data, dict) and "history_results" in data:
            return None
        return "no history_results"

    def _condition_words(self) -> str:
        return "if there is history"


@register
class IfSensitiveResults(_Conditional):
    """Checks when some `results[*].file` starts with a sensitive prefix; else skipped.

    Expect `if_sensitive_results`: either inner assertions on the whole response, or
    `{has_field: F, value: V}`: every sensitive result has field F equal to V (without
    `value`, F need only exist). The prefixes default to `people/` and `documents/`; the
    construction option `sensitive_prefixes` changes them.

    Example:
        >>> from chatassert.expect import IfSensitiveResults
        >>> check = IfSensitiveResults(has_field="sensitive", value=True)
        >>> check.check({"results": [{"file": "people/bob.md", "sensitive": False}]}).reason
        'results[0].sensitive: expected true, got false'
        >>> check.check({"results": [{"file": "journal/a.md"}]}).status.value
        'skipped'
    """

    __slots__ = ("_field", "has_field", "prefixes", "value")
    kind = "expect_if_sensitive_results"
    dialect_names = {"expect": "if_sensitive_results"}
    options = ("sensitive_prefixes",)
    params = (
        Param(
            "assertion",
            "assertion",
            default=None,
            attr="child",
            doc="checked when some result is sensitive",
        ),
        Param("has_field", "str", default=None, doc="a field every sensitive result has"),
        Param("value", "any", default=None, doc="the value that field must have"),
    )
    child: Assertion | None  # type: ignore[assignment]
    has_field: str | None
    value: Any
    prefixes: tuple[str, ...]
    _field: JsonPath | None

    def __init__(
        self,
        child: Assertion | None = None,
        *,
        has_field: str | None = None,
        value: Any = None,
        message: str | None = None,
        sensitive_prefixes: Sequence[str] | None = None,
    ) -> None:
        JsonCheck.__init__(self, message=message)
        if (child is None) == (has_field is None):
            raise ValueError(
                "if_sensitive_results needs either inner assertions or "
                "'has_field' (with an optional 'value')"
            )
        if child is not None and not isinstance(child, Assertion):
            raise TypeError(f"IfSensitiveResults takes an assertion, got {type(child).__name__}")
        if child is not None and value is not None:
            raise ValueError("if_sensitive_results 'value' goes with 'has_field'")
        prefixes = (
            DEFAULT_SENSITIVE_PREFIXES
            if sensitive_prefixes is None
            else _strings("sensitive_prefixes", sensitive_prefixes)
        )
        self._set("child", child)
        self._set("has_field", has_field)
        self._set("value", value)
        self._set("prefixes", tuple(prefixes))
        self._set(
            "_field",
            None if has_field is None else compile_path(_str_value("has_field", has_field)),
        )

    def needs_judge(self) -> bool:
        """Whether the inner assertions may call a judge."""
        return self.child is not None and self.child.needs_judge()

    def _sensitive(self, data: Any) -> list[tuple[int, Any]]:
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            return []
        prefixes = self.prefixes
        return [
            (i, item)
            for i, item in enumerate(results)
            if isinstance(item, dict)
            and isinstance(item.get("file"), str)
            and item["file"].startswith(prefixes)
        ]

    def _holds(self, data: Any) -> str | None:
        if self._sensitive(data):
            return None
        return "no result file starts with " + " or ".join(repr(p) for p in self.prefixes)

    def _eval(self, data: Any) -> Result:
        if self.child is not None:
            return super()._eval(data)
        sensitive = self._sensitive(data)
        if not sensitive:
            return Result(
                _S, self.kind, f"condition not met: {self._holds(data)}", {"condition": False}
            )
        assert self._field is not None
        bad = _Offenders()
        for i, item in sensitive:
            found = self._field.find(item)
            location = f"results[{i}].{self._field.source}"
            if not found:
                bad.add(location, None, i, missing=True)
            elif self.value is not None and not json_equal(found[0][0], self.value):
                bad.add(location, found[0][0], i)
        if not bad:
            return self._passed(len(sensitive))
        first = bad.first
        assert first is not None
        reason = (
            f"Missing field: {first['path']}"
            if first.get("missing")
            else f"{first['path']}: expected {show(self.value)}, got {show(first['actual'])}"
        )
        return Result(
            _F,
            self.kind,
            reason + bad.more(),
            bad.details(self.value, len(sensitive), condition=True),
        )

    def _condition_words(self) -> str:
        return "if some result is sensitive"

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"condition": True, "path": self.has_field, "expected": self.value, "checked": n}

    def describe(self) -> str:
        """Describe the rule."""
        if self.child is not None:
            return super().describe()
        want = "exists" if self.value is None else f"is {show(self.value)}"
        return f"every sensitive result's {self.has_field} {want}"
