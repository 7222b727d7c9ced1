"""Checks on the `results` list of an expect response: counts, tags, schema, conditions.

The expect dialect's responses carry their findings in `results` (docs/expect.md): these
checks count them, read their `metadata.tags`, hold them to a schema, and make checks
conditional on them (`IfResults`, `IfHasHistory`, `IfSensitiveResults`) or alternatives
(`OneOf`). Tests: tests/expect/test_results.py.

Example:
    >>> from chatassert.expect import ResultsMin
    >>> ResultsMin(2).check({"results": [{"file": "a.md"}]}).reason
    'Expected at least 2 results, got 1'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from chatassert._base import AllOf, AnyOf, Assertion, QuickTest
from chatassert._jsonbase import (
    DEFAULT_SENSITIVE_PREFIXES,
    JsonCheck,
    Offenders,
    checked_int,
    checked_number,
    checked_strings,
    is_number,
    json_equal,
    scalar_key,
    show,
    str_value,
)
from chatassert._jsonpath import MISSING, JsonPath, compile_path
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "AllHaveTags",
    "EachHasAnyTag",
    "IfHasHistory",
    "IfResults",
    "IfSensitiveResults",
    "NoneHaveTags",
    "OneOf",
    "ResultsCount",
    "ResultsMatchSchema",
    "ResultsMax",
    "ResultsMin",
]

_F, _E, _S = Status.FAILED, Status.ERROR, Status.SKIPPED

# -- counts --------------------------------------------------------------------------------


def _results_of(data: Any) -> Any:
    """The response's `results` field, or `MISSING`."""
    return data.get("results", MISSING) if isinstance(data, dict) else MISSING


class _ResultsCount(JsonCheck):
    __slots__ = ("value",)
    params = (Param("value", "int", required=True, doc="a number of results"),)
    words: ClassVar[str] = ""
    value: int

    def __init__(self, value: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("value", checked_int(self.kind, value))

    def _ok(self, n: int) -> bool:
        raise NotImplementedError

    def _compile_quick(self) -> QuickTest:
        ok, memo_get, passed = self._ok, self._memo.get, self._passed

        def quick(data: Any) -> Result | None:
            results = _results_of(data)
            if type(results) is list and ok(len(results)):
                return memo_get(len(results)) or passed(len(results))
            return None

        return quick

    def _eval(self, data: Any) -> Result:
        results = _results_of(data)
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

    def _outcome_key(self) -> Callable[[dict[str, Any]], object]:
        def key(data: dict[str, Any]) -> object:  # `_eval` reads the number of results alone
            results = _results_of(data)
            return ("results", len(results)) if type(results) is list else scalar_key(results)

        return key

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


# -- tags ----------------------------------------------------------------------------------


class _Tags(JsonCheck):
    """A check over `results[*].metadata.tags` (a missing tag list is no tags)."""

    __slots__ = ("_set_tags", "tags")
    params = (Param("value", "str_list", required=True, attr="tags", doc="the tags"),)
    tags: tuple[str, ...]
    _set_tags: frozenset[str]

    def __init__(self, tags: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("tags", checked_strings(self.kind, tags))
        self._set("_set_tags", frozenset(self.tags))

    def _fine(self, tags: list[Any]) -> bool:
        """Whether a result with the list `tags` satisfies the check: the check's one rule."""
        raise NotImplementedError

    def _fault(self, index: int, tags: list[Any]) -> str:
        """Why result `index`, whose `tags` are not fine, breaks the check (words only)."""
        raise NotImplementedError

    def _compile_quick(self) -> QuickTest:
        fine, memo_get, passed = self._fine, self._memo.get, self._passed

        def quick(data: Any) -> Result | None:
            results = _results_of(data)
            if type(results) is not list:
                return None
            for item in results:  # every result has a list of tags that satisfies the check
                meta = item.get("metadata") if type(item) is dict else None
                tags = meta.get("tags") if type(meta) is dict else None
                if type(tags) is not list or not fine(tags):
                    return None
            return memo_get(len(results)) or passed(len(results))

        return quick

    def _eval(self, data: Any) -> Result:
        results = _results_of(data)
        if not isinstance(results, list):
            results = []
        bad: Offenders | None = None
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
            if not self._fine(tags):
                if bad is None:
                    bad = Offenders()
                bad.add(f"results[{i}].metadata.tags", tags, i, reason=self._fault(i, tags))
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

    def _fine(self, tags: list[Any]) -> bool:
        for tag in self.tags:  # noqa: SIM110 - a plain loop: no generator on the hot path
            if tag not in tags:
                return False
        return True

    def _fault(self, index: int, tags: list[Any]) -> str:
        missing = next(t for t in self.tags if t not in tags)
        return f"Result {index} missing required tag: '{missing}'"

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

    def _fine(self, tags: list[Any]) -> bool:
        for tag in self.tags:  # noqa: SIM110 - a plain loop: no generator on the hot path
            if tag in tags:
                return False
        return True

    def _fault(self, index: int, tags: list[Any]) -> str:
        found = next(t for t in self.tags if t in tags)
        return f"Result {index} has excluded tag: '{found}'"

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

    def _fault(self, index: int, tags: list[Any]) -> str:
        return f"Result {index} has none of the tags: " + ", ".join(show(t) for t in self.tags)

    def describe(self) -> str:
        """Describe the requirement."""
        return "every result has one of the tags " + ", ".join(show(t) for t in self.tags)


# -- schema --------------------------------------------------------------------------------

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": is_number,
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
            low = checked_number(f"results_schema {field} min", spec.get("min"))
            high = checked_number(f"results_schema {field} max", spec.get("max"))
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
        bad = Offenders()
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
                        if is_number(value)
                        else len(value)
                        if isinstance(value, str | list)
                        else None
                    )
                    if size is None or (
                        (low is None or size >= low) and (high is None or size <= high)
                    ):
                        continue
                    what = "value" if is_number(value) else "length"
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
            else checked_strings("sensitive_prefixes", sensitive_prefixes)
        )
        self._set("child", child)
        self._set("has_field", has_field)
        self._set("value", value)
        self._set("prefixes", tuple(prefixes))
        self._set(
            "_field",
            None if has_field is None else compile_path(str_value("has_field", has_field)),
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
        bad = Offenders()
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
