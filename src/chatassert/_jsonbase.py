"""The base of the checks on structured JSON responses: `JsonCheck`, paths, offenders, helpers.

The subject is a JSON value, usually an object: a tool's or agent's structured response. A turn
gives its structured `data`, else its text parsed as JSON; a subject that is not JSON makes
every check an `error`. Paths are the dotted notation of `chatassert._jsonpath` (full JSONPath
when they start with `$`), compiled when the check is built. The families built on this base
are `_fields`, `_each`, `_dates` and `_results`; docs/expect.md describes them all.

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

Docs: docs/expect.md. Tests: tests/expect/test_json_shared.py and
tests/expect/test_expect_quick.py.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion, QuickTest, never as _never, remember
from chatassert._errors import RegexTimeoutError
from chatassert._jsonpath import JsonPath, Where, compile_path
from chatassert._models import NotJSONError, Turn, as_json
from chatassert._params import Param
from chatassert._result import Result, Status, location_pointer, shorten

__all__ = [
    "DEFAULT_SENSITIVE_PREFIXES",
    "MAX_OFFENDING",
    "PATH_PARAM",
    "all_equal_to",
    "check_scalar",
    "checked_int",
    "checked_number",
    "checked_strings",
    "EachValue",
    "is_number",
    "item_index",
    "json_equal",
    "JsonCheck",
    "literal_prefixes",
    "Offenders",
    "PathCheck",
    "same_scalar",
    "show",
    "str_value",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR
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


def same_scalar(value: Any, expected: Any) -> bool:
    """A quick, strict test: the same type of string, number or bool, and equal.

    False does not mean unequal (`1` and `1.0`, lists): callers then ask `json_equal`.
    """
    kind = type(expected)
    return kind is type(value) and kind is not list and kind is not dict and value == expected


def all_equal_to(expected: Any) -> Callable[[Iterable[Any]], bool]:
    """Return a test of `all(json_equal(v, expected) for v in values)`, built once per check.

    One loop per kind of scalar, so a check of many values makes no call per value; a check of
    one value asks it about `(value,)`.

    Example:
        >>> all_equal_to(1)([1, 1.0]), all_equal_to(1)([1, True]), all_equal_to("a")([])
        (True, False, True)
    """
    kind = type(expected)
    if kind is str:

        def all_strings(values: Iterable[Any]) -> bool:  # a string equals only a string
            for value in values:  # noqa: SIM110 - a plain loop: no generator on the hot path
                if type(value) is not str or value != expected:
                    return False
            return True

        return all_strings
    if kind is bool or expected is None:

        def all_identical(values: Iterable[Any]) -> bool:  # true, false and null are singletons
            for value in values:  # noqa: SIM110 - a plain loop: no generator on the hot path
                if value is not expected:
                    return False
            return True

        return all_identical
    if kind is int or kind is float:

        def all_numbers(values: Iterable[Any]) -> bool:  # 1 equals 1.0, but not true
            for value in values:
                number = type(value)
                if (number is not int and number is not float) or value != expected:
                    return False
            return True

        return all_numbers
    return lambda values: all(json_equal(value, expected) for value in values)


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
    """Render a JSON value for a reason: strings in single quotes, the rest as JSON.

    Non-ASCII text is kept as it is; a value JSON cannot write (one that contains itself) is
    written as its Python repr. The rendering is cut to `width` characters (see `shorten`).
    """
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


def is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is float and value == value)  # NaN is not a number here


def item_index(where: Where) -> int | None:
    if isinstance(where, tuple):
        return where[0] if where else None
    match = re.search(r"\[(\d+)\]", where)
    return int(match.group(1)) if match else None


def str_value(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    return value


def checked_strings(name: str, values: str | Sequence[str]) -> tuple[str, ...]:
    out = (values,) if isinstance(values, str) else tuple(values)
    if not out:
        raise ValueError(f"{name} needs at least one value, got an empty list")
    for v in out:
        str_value(f"{name} values", v)
    return out


def _one_or_list(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)


def checked_int(name: str, value: object, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def checked_number(name: str, value: object) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    return value


def check_scalar(name: str, value: object) -> Any:
    if isinstance(value, Mapping | list | tuple) or value is None:
        raise TypeError(f"{name} must be a string, number or boolean, got {show(value)}")
    return value


class Offenders:
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
        if extra:
            item.update(extra)
        if self.first is None:
            self.first = item
        self.items.append(item)

    @classmethod
    def at(cls, path: JsonPath, found: list[tuple[Any, Where]], positions: list[int]) -> Offenders:
        """The values at `positions` of `found` (what `path.find` gave), located: the loops
        that test many values note where they failed, and only those are located."""
        bad = cls()
        bad.count = len(positions)
        location, items = path.location, bad.items
        for k in positions[:MAX_OFFENDING]:
            value, where = found[k]
            item: dict[str, Any] = {"path": location(where), "actual": value}
            index = item_index(where)
            if index is not None:
                item["index"] = index
            items.append(item)
        bad.first = items[0] if items else None
        return bad

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
    offending items; it is complete on its own.

    A check's rule is written once and both steps use it: a path check's test of one value
    (`_ok`), from which the quick test's loop is derived, or, where one loop over many values
    pays, that loop (`_all_ok_function`), which the full evaluation asks about one value at a
    time; a field check's lookup and comparison. tests/expect/test_expect_quick.py holds the
    two steps to agree on every document.
    """

    __slots__ = ("_memo", "_quick")
    level = "json"
    dialect_names: ClassVar[Mapping[str, str | tuple[str, ...]]] = {}
    expect_form: ClassVar[str] = "value"
    evidence_at = ""
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

    def _pointer_of(self, result: Result, subject: object) -> str | None:
        """The value the details name (`results[1].file` → `/results/1/file`), else the whole
        response; a response given as a turn is its text."""
        if not isinstance(subject, dict | list):
            return "/text" if isinstance(subject, Turn) else ""
        path = result.details.get("path")
        pointer = location_pointer(path) if isinstance(path, str) else None
        return "" if pointer is None else pointer

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
                spec = self._spec  # named and placed as its spec file has it, as `check` does
                return result if spec is None else spec.place(result)
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


class PathCheck(JsonCheck):
    """A check over the values at a path."""

    __slots__ = ("_path", "path")
    expect_form = "fields"
    path: str
    _path: JsonPath

    def __init__(self, path: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("_path", compile_path(str_value(f"{self.kind} path", path)))
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


PATH_PARAM = Param("path", "str", required=True, doc="a path: a.b, a[*].b, a[0].b, or $ JSONPath")


class EachValue(PathCheck):
    """Every value at the path must satisfy `_ok`; zero values pass with `checked: 0`.

    A subclass writes its rule once: as `_ok`, or as `_all_ok_function` with `_ok(v)` asking
    that loop about `(v,)` (see `JsonCheck`).
    """

    __slots__ = ()

    def _ok(self, value: Any) -> bool:
        """Whether one value satisfies the check."""
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
        positions = [k for k, (value, _) in enumerate(found) if not ok(value)]
        if not positions:
            return self._passed(len(found))
        bad = Offenders.at(self._path, found, positions)
        first = bad.first
        assert first is not None
        return Result(
            _F,
            self.kind,
            self._reason(first["path"], first["actual"], first.get("index")) + bad.more(),
            bad.details(self._expected(), len(found)),
        )
