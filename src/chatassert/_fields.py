"""Checks on named fields of a JSON response: presence, equality, containment (docs/expect.md).

`HasFields`, `FieldEquals` and `FieldContains` read any path; `StatusIs`, `ErrorCodeIs`,
`JsonContains`, `MessageContains` and `SummaryContains` are the expect dialect's checks of
the fields its responses carry (`status`, `error`, `message`, `summary`). Tests:
tests/expect/test_fields.py (combined with other families: tests/expect/test_json_shared.py).

Example:
    >>> from chatassert import FieldEquals
    >>> from chatassert.expect import StatusIs
    >>> response = {"status": "success", "meta": {"source": "kb"}}
    >>> StatusIs("success").check(response).passed
    True
    >>> FieldEquals({"meta.source": "web"}).check(response).reason
    "meta.source: expected 'web', got 'kb'"
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from chatassert._base import QuickTest
from chatassert._jsonbase import (
    PATH_PARAM,
    EachValue,
    JsonCheck,
    Offenders,
    all_equal_to,
    check_scalar,
    checked_strings,
    json_equal,
    same_scalar,
    scalar_key,
    show,
    str_value,
)
from chatassert._jsonpath import MISSING, JsonPath, compile_path
from chatassert._params import Param, register
from chatassert._result import Result, Status, shorten

__all__ = [
    "ErrorCodeIs",
    "FieldContains",
    "FieldEquals",
    "HasFields",
    "JsonContains",
    "MessageContains",
    "StatusIs",
    "SummaryContains",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

# -- status and content --------------------------------------------------------------------


class _OneField(JsonCheck):
    """A check of one top-level field of the response (`field`): its outcome is decided by that
    field's value alone, so the outcome of a value met again is shared (`_outcome_key`)."""

    __slots__ = ()
    field: ClassVar[str] = ""

    def _actual(self, data: Any) -> Any:
        return data.get(self.field, MISSING) if isinstance(data, dict) else MISSING

    def _outcome_key(self) -> Callable[[dict[str, Any]], object]:
        actual = self._actual
        return lambda data: scalar_key(actual(data))  # `_eval` reads the field alone


class _FieldIs(_OneField):
    __slots__ = ("value",)
    params = (Param("value", "any", required=True, doc="the expected value"),)
    value: Any

    def __init__(self, value: Any, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("value", check_scalar(self.kind, value))

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": self.field, "expected": self.value, "actual": self.value}

    def _compile_quick(self) -> QuickTest:
        actual_of, expected, ok = self._actual, self.value, self._passed()

        def quick(data: Any) -> Result | None:
            return ok if same_scalar(actual_of(data), expected) else None

        return quick

    def _eval(self, data: Any) -> Result:
        actual = self._actual(data)
        if same_scalar(actual, self.value):  # the plain pass: the quick test's own rule
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
        self._set("value", str_value(self.kind, value))
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


class _StringFieldContains(_TextContains, _OneField):
    __slots__ = ()

    def _pass_details(self, n: int) -> dict[str, Any]:
        return {"path": self.field, "expected": self.value}

    def _compile_quick(self) -> QuickTest:
        actual_of, has, ok = self._actual, self._has, self._passed()

        def quick(data: Any) -> Result | None:
            text = actual_of(data)
            return ok if type(text) is str and has(text) else None

        return quick

    def _eval(self, data: Any) -> Result:
        actual = self._actual(data)
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
    dialect_names = {"expect": ("has_fields", "has_field")}
    params = (
        Param("value", "str_list", required=True, attr="paths", doc="the paths that must exist"),
    )
    paths: tuple[str, ...]
    _paths: tuple[JsonPath, ...]

    def __init__(self, paths: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("paths", checked_strings(self.kind, paths))
        self._set("_paths", tuple(compile_path(p) for p in self.paths))

    def _missing_paths(self, data: Any) -> list[str]:
        return [p.source for p in self._paths if not p.values(data)]

    def _compile_quick(self) -> QuickTest:
        finders, ok = tuple(p.values for p in self._paths), self._passed()

        def quick(data: Any) -> Result | None:  # `_missing_paths` is empty, without a list
            for values_of in finders:
                if not values_of(data):
                    return None
            return ok

        return quick

    def _eval(self, data: Any) -> Result:
        missing = self._missing_paths(data)
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
        # `_eval`'s rule, with `all_equal_to`, json_equal's fast form: every path has a value,
        # and every value at it equals the expected one
        fields = tuple((path.values, all_equal_to(expected)) for path, expected in self._fields)
        ok = self._passed(len(fields))

        def quick(data: Any) -> Result | None:
            for values_of, all_equal in fields:
                values = values_of(data)
                if not values or not all_equal(values):
                    return None
            return ok

        return quick

    def _eval(self, data: Any) -> Result:
        bad = Offenders()
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
class FieldContains(EachValue):
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
        PATH_PARAM,
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
        self._set("text", str_value("field_contains text", text))
        self._set("case_sensitive", bool(case_sensitive))
        self._set("_needle", text if case_sensitive else text.lower())

    def _expected(self) -> Any:
        return self.text

    def _ok(self, value: Any) -> bool:
        if isinstance(value, str):
            return self._needle in (value if self.case_sensitive else value.lower())
        if isinstance(value, list):
            return any(isinstance(v, str) and self._ok(v) for v in value)
        return False

    def _reason(self, location: str, value: Any, index: int | None) -> str:
        return f"{location}: expected to contain {show(self.text)}, got {show(value)}"

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.path} contains {show(self.text)}"
