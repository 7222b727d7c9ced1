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
from chatassert._jsonpath import MISSING, JsonPath, compile_path, item_index
from chatassert._models import NotJSONError, Turn, as_json
from chatassert._params import Param
from chatassert._result import ReadOnlyDict, Result, Status, location_pointer, shorten

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
    def at(cls, path: JsonPath, doc: Any, values: list[Any], positions: list[int]) -> Offenders:
        """The values at `positions` of `values` (what `path.values(doc)` gave), located: the
        loops that test many values note where they failed, and only those are located."""
        bad = cls.__new__(cls)  # every field is set here
        bad.count = len(positions)
        shown = positions if len(positions) <= MAX_OFFENDING else positions[:MAX_OFFENDING]
        bad.items = items = [
            {"path": location, "actual": values[k]}
            if index is None
            else {"path": location, "actual": values[k], "index": index}
            for k, (location, index) in zip(
                shown, path.places(doc, len(values), shown), strict=True
            )
        ]
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
        if extra:
            out.update(extra)
        out["offending"] = self.items
        out["offending_count"] = self.count
        out["checked"] = checked
        return out

    def more(self) -> str:
        return f" (and {self.count - 1} more)" if self.count > 1 else ""


_KEYED_SCALARS = frozenset({str, int, bool, type(None), type(MISSING)})
"""The types of a field value that key a shared outcome: a float is not one (`-0.0` equals
`0.0` but is shown otherwise, and NaN equals nothing)."""


def scalar_key(value: object) -> object:
    """The key of an outcome decided by the scalar `value` alone (`JsonCheck._outcome_key`):
    its type and itself (`1`, `True` and `1.0` are equal but shown otherwise); None for a
    value of another type."""
    return ("of", type(value), value) if type(value) in _KEYED_SCALARS else None


_SEEN_KEPT = 4096
"""How many keys a check met once it remembers (then forgets, all): sharing an outcome costs a
copy of its details and a place in the caches above it, which only a value met again repays."""


def as_shared(result: Result) -> Result:
    """`result`, fresh from a check, made a shared outcome (see `Result.shared`): its details
    read-only, and marked so that whoever annotates it copies it."""
    fields = result.__dict__
    if "_shared" not in fields:
        if fields["details"] and type(fields["details"]) is not ReadOnlyDict:
            fields["details"] = ReadOnlyDict(fields["details"])
        fields["_shared"] = True
    return result


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
    pays, that loop (`_all_ok_function`, or `_offending` for a fused check, see `PathCheck`),
    which the full evaluation asks about one value at a time; a field check's lookup and
    comparison. tests/expect/test_expect_quick.py holds the two steps to agree on every
    document, and tests/expect/test_json_check_paths.py holds `check` of a JSON object (what
    a suite's case calls, `_json_check`) to what `Assertion.check` returns.
    """

    __slots__ = ("_memo", "_quick", "_run")
    level = "json"
    dialect_names: ClassVar[Mapping[str, str | tuple[str, ...]]] = {}
    expect_form: ClassVar[str] = "value"
    evidence_at = ""
    """How an expect key's value maps to the params: `value` (the value is the `value`
    param), `fields` (a mapping of params), `text` (a string, or a mapping of params),
    `field_equals`, or `expect` (nested expect objects)."""
    _memo: dict[Any, Result]
    _quick: QuickTest | None
    _run: Callable[[dict[str, Any]], Result] | None

    def __init__(self, *, message: str | None = None) -> None:
        super().__init__(message=message)  # its `_spec` starts `_memo`, `_quick` and `_run`

    def _set(self, name: str, value: Any) -> None:
        super()._set(name, value)
        if name == "_spec":  # the shared passes are placed where the spec has the check
            super()._set("_memo", {})
            super()._set("_quick", None)
            super()._set("_run", None)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_quick"] = state["_run"] = None  # closures: compiled again on first use
        return state

    def _pointer_of(self, result: Result, subject: object) -> str | None:
        """The value the details name (`results[1].file` → `/results/1/file`), else the whole
        response; a response given as a turn is its text."""
        if not isinstance(subject, (dict, list)):  # a tuple: tested faster than a union
            return "/text" if isinstance(subject, Turn) else ""
        path = result.details.get("path")
        pointer = location_pointer(path) if isinstance(path, str) else None
        return "" if pointer is None else pointer

    def check(self, subject: object, /) -> Result:
        """Check `subject` and return the result tree (see `Assertion.check`)."""
        if type(subject) is dict:  # the hot path: answer a pass without layers
            return (self._run or self._json_check())(subject)
        return super().check(subject)

    def _json_check(self) -> Callable[[dict[str, Any]], Result]:
        """`check` of a JSON object, compiled on first use (what a suite's case calls for each
        of its JSON checks; see `_compile_check`)."""
        run = self._run
        if run is None:
            run = self._compile_check()
            self._set("_run", run)
        return run

    def _compile_check(self) -> Callable[[dict[str, Any]], Result]:
        """Build `check` of a JSON object: the quick test; when it is not certain, `_check`
        made what `check` makes of it (`_as_checked`), or `check` itself for a check that
        searches (it opens a regex budget) or asks a judge.

        Whatever is not the plain case — a quick test that raises, a `_check` that raises —
        goes to `check` without its quick test, which reports it as it always does.
        """
        quick, in_full, after_timeout = (
            self._quick_test(),
            self._check_in_full,
            self._check_after_timeout,
        )
        plain = not (self._searches or self.judged)  # else `check` opens a budget or times it
        evaluate = (  # `_check` of a JSON object is `_eval`, unless a subclass says otherwise
            self._eval if type(self)._check is JsonCheck._check else self._check
        )
        as_checked = self._as_checked
        key_of, memo = self._outcome_key(), self._memo
        seen: set[object] = set()  # the keys met once: an outcome is shared when met again

        def run(data: dict[str, Any]) -> Result:
            try:
                result = quick(data)  # a shared pass, placed already (see `_passed`)
            except RegexTimeoutError as exc:
                return after_timeout(data, exc)
            except Exception:  # let the full evaluation report it
                return in_full(data)
            if result is not None:
                return result
            if not plain:
                return in_full(data)
            key = None if key_of is None else key_of(data)
            if key is not None:
                known = memo.get(key)
                if known is not None:
                    return known
            try:
                result = evaluate(data)
            except Exception:  # reported (or raised) by `check`, as it would be
                return in_full(data)
            result = as_checked(result, data)
            if key is None:
                return result
            if key in seen:  # a value met before: its outcome is built once from now on
                return remember(memo, key, as_shared(result))
            if len(seen) >= _SEEN_KEPT:  # a log of ever new values shares nothing
                seen.clear()
            seen.add(key)
            return result

        return run

    def _outcome_key(self) -> Callable[[dict[str, Any]], object] | None:
        """For a check whose outcome on a JSON object is decided by one scalar of it (a
        field's value, the number of results): a function giving that scalar as a key (None
        for a value that does not decide alone); then the outcome of a key met more than once
        is built once more and shared, failures included. None for the other checks."""
        return None

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
        or the number of results), so a pass allocates nothing (see `Result.shared`). It is
        named and placed as the check's spec file has it: a quick test's answer is what
        `check` returns, as it is.
        """
        result = self._memo.get(n)
        if result is None:
            result = self._constant(_P, "", self._pass_details(n))
            if self._spec is not None:  # placed once, as `check` would place it every time
                result = self._spec.place(result)
            remember(self._memo, n, result)
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
    """A check over the values at a path.

    A path check whose rule is a loop over the values (`_offending`) and whose `_eval` is the
    one below sets `_fused`: checking a JSON object then runs that loop once, for a pass and
    for a failure alike, rather than a quick test and then, on failure, the full evaluation.
    """

    __slots__ = ("_path", "path")
    expect_form = "fields"
    _vacuous: ClassVar[bool] = True
    """Whether zero values at a path that may select several pass (with `checked: 0`); when
    not, no value is a missing field, as it is for a path that names one field."""
    _fused: ClassVar[bool] = False
    """Whether `_eval` is: no value a missing field (see `_vacuous`), else `_offending` over the
    values, and a pass when nothing offends, else `_failure`."""
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
        values_of, memo_get, passed = self._path.values, self._memo.get, self._passed
        empty_passes = self._path.fans_out and self._vacuous

        def quick(data: Any) -> Result | None:
            values = values_of(data)
            if (values or empty_passes) and all_ok(values):  # a single field must exist
                return memo_get(len(values)) or passed(len(values))
            return None

        return quick

    def _offending(self, values: list[Any]) -> list[int]:
        """The positions of the values that break the check's rule, in order (a fused check's
        rule: see the class doc)."""
        raise NotImplementedError

    def _failure(self, data: Any, values: list[Any], positions: list[int]) -> Result:
        """The failure of a fused check whose rule the values at `positions` of `values` (what
        the path gave in `data`) break."""
        raise NotImplementedError

    def _eval_values(self, data: Any) -> Result:
        """The `_eval` of a fused check (see `_fused`)."""
        values = self._path.values(data)
        if not values and not (self._path.fans_out and self._vacuous):
            return self._missing(self.path, self._expected())
        positions = self._offending(values)
        return self._failure(data, values, positions) if positions else self._passed(len(values))

    def _compile_check(self) -> Callable[[dict[str, Any]], Result]:
        """For a fused check, `check` of a JSON object in one pass over its values: the
        failure `_eval` would explain, made what `check` makes of it (`_as_checked`); a
        missing field and whatever raises go to `check` without its quick test.

        The loop runs as a quick test does, outside a regex budget: a search out of time
        leaves the full check what is left of the limit (`_check_after_timeout`).
        """
        if not self._fused or self.judged:
            return super()._compile_check()
        values_of, offending, failure = self._path.values, self._offending, self._failure
        memo_get, passed, in_full, after_timeout, as_checked = (
            self._memo.get,
            self._passed,
            self._check_in_full,
            self._check_after_timeout,
            self._as_checked,
        )
        empty_passes = self._path.fans_out and self._vacuous

        def run(data: dict[str, Any]) -> Result:
            try:
                values = values_of(data)
                if not values and not empty_passes:
                    return in_full(data)
                positions = offending(values)
                if not positions:
                    return memo_get(len(values)) or passed(len(values))
                result = failure(data, values, positions)
            except RegexTimeoutError as exc:  # the full check gets what time is left
                return after_timeout(data, exc)
            except Exception:  # reported (or raised) by `check`, as it would be
                return in_full(data)
            return as_checked(result, data)

        return run


PATH_PARAM = Param("path", "str", required=True, doc="a path: a.b, a[*].b, a[0].b, or $ JSONPath")


class EachValue(PathCheck):
    """Every value at the path must satisfy `_ok`; zero values pass with `checked: 0`.

    A subclass writes its rule once: as `_ok`, or as `_all_ok_function` with `_ok(v)` asking
    that loop about `(v,)` (see `JsonCheck`), or, for a fused check (see `PathCheck`), as
    `_offending`, from which `_ok` and `_all_ok_function` are derived.
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

    def _offending(self, values: list[Any]) -> list[int]:
        """The positions of the values that do not satisfy the check (by `_ok`; a subclass
        whose rule is a loop over many values may ask that loop instead)."""
        ok = self._ok
        return [k for k, value in enumerate(values) if not ok(value)]

    def _eval(self, data: Any) -> Result:
        return self._eval_values(data)

    def _failure(self, data: Any, values: list[Any], positions: list[int]) -> Result:
        bad = Offenders.at(self._path, data, values, positions)
        first = bad.first
        assert first is not None
        return Result(
            _F,
            self.kind,
            self._reason(first["path"], first["actual"], first.get("index")) + bad.more(),
            bad.details(self._expected(), len(values)),
        )
