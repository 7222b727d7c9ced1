"""Checks on a logged response beyond its JSON: the model that answered, and stored values.

Two keys of the expect dialect's real test files read something a response alone does not
carry:

- `agent_used_model` (`AgentUsedModel`) compares the model that produced the response, as the
  log records it (a `Turn`'s `metadata["model"]`: the command line puts the `model` logged
  beside a response there), with a model id or a family name;
- `no_overlap` (`NoOverlap`) compares the values at a path with what an earlier step of the same
  multi-step test stored (`store: NAME`), or with values given in the spec.

The values stored by earlier steps reach `NoOverlap` through `stored_values`, a context the
suite's step runner opens around each step (`Case` in `_suite`), so a `no_overlap` nested in
`one_of` or `if_results` sees them too. Docs: docs/expect.md ("Multi-step tests", "The model
that answered"). Tests: tests/expect/test_responses.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._jsonbase import (
    PATH_PARAM,
    Offenders,
    PathCheck,
    item_index,
    json_equal,
    show,
    str_value,
)
from chatassert._matchers import model_matches, word_segments
from chatassert._models import Conversation, NotJSONError, Turn, as_json
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = ["AgentUsedModel", "NoOverlap", "NotLogged", "model_matches", "stored_values"]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR


# -- values stored by earlier steps --------------------------------------------------------


class NotLogged:
    """What a step stores when its response was not logged: the step's number, for reasons.

    Attributes:
        step: The number of the step whose response is missing.
    """

    __slots__ = ("step",)

    def __init__(self, step: int) -> None:
        self.step = step

    def __repr__(self) -> str:
        return f"NotLogged(step={self.step})"


_STORED: ContextVar[Mapping[str, tuple[int, Any]] | None] = ContextVar(
    "chatassert_stored", default=None
)


@contextmanager
def stored_values(values: Mapping[str, tuple[int, Any]]) -> Iterator[None]:
    """Make `values` (`{name: (step, response)}`) what `no_overlap`'s `with` reads meanwhile.

    A step's response that was not logged is stored as `NotLogged(step)`.

    Example:
        >>> check = NoOverlap("results[*].file", stored="page1")
        >>> with stored_values({"page1": (1, {"results": [{"file": "a.md"}]})}):
        ...     check.check({"results": [{"file": "a.md"}]}).reason
        "Value 'a.md' at results[0].file is also in what step 1 stored as 'page1'"
    """
    token = _STORED.set(values)
    try:
        yield
    finally:
        _STORED.reset(token)


def _elements(found: Sequence[tuple[Any, Any]], path: Any) -> list[tuple[Any, str, int | None]]:
    """The elements of the values a path selected: an array gives its items, any other value
    is one element. Each comes with its concrete location and the index of its result."""
    out: list[tuple[Any, str, int | None]] = []
    for value, where in found:
        location = path.location(where)
        if isinstance(value, list):
            out.extend(
                (item, f"{location}[{i}]", item_index(where)) for i, item in enumerate(value)
            )
        else:
            out.append((value, location, item_index(where)))
    return out


def _scalar_key(value: Any) -> tuple[str, Any] | None:
    """A hashable key under which two scalars are strictly JSON-equal, or None (compare in
    full): `1` and `1.0` share a key, `1` and `true` or `"1"` do not."""
    kind = type(value)
    if kind is str:
        return ("s", value)
    if kind is bool:
        return ("b", value)
    if kind is int or (kind is float and value == value):
        return ("n", value)
    if value is None:
        return ("z", None)
    return None


class _Pool:
    """The elements to compare with: scalars in a set, the rest (objects, NaN) in a list."""

    __slots__ = ("others", "scalars")

    def __init__(self, values: Sequence[Any]) -> None:
        self.scalars: set[tuple[str, Any]] = set()
        self.others: list[Any] = []
        for value in values:
            key = _scalar_key(value)
            if key is None:
                self.others.append(value)
            else:
                self.scalars.add(key)

    def __contains__(self, value: Any) -> bool:
        key = _scalar_key(value)
        if key is not None:
            return key in self.scalars
        return any(json_equal(value, other) for other in self.others)


@register
class NoOverlap(PathCheck):
    """Passes when the values at the path share no element with the stored or given values.

    Expect `no_overlap`: `{path, with: NAME}` inside a step of a `multi_step` test compares
    with the values at the same path in the response an earlier step stored as NAME
    (`store: NAME`); `{path, values: [...]}` compares with the values given. A selected array
    contributes its items. Elements compare with strict JSON equality (`1` is `1.0`, not
    `"1"`). Zero values pass, with `checked: 0`; a path without a wildcard names one field,
    and a missing field fails. A name nothing stored is an `error`, never a pass.

    Example:
        >>> from chatassert.expect import NoOverlap
        >>> NoOverlap("results[*].file", values=["journal/a.md"]).check(
        ...     {"results": [{"file": "journal/b.md"}, {"file": "journal/a.md"}]}).reason
        "Value 'journal/a.md' at results[1].file is also in the values given"
    """

    __slots__ = ("_pool", "stored", "values")
    kind = "expect_no_overlap"
    dialect_names = {"expect": "no_overlap"}
    params = (
        PATH_PARAM,
        Param(
            "with",
            "str",
            default=None,
            attr="stored",
            doc="the name an earlier step stored its response under (store: NAME)",
        ),
        Param("values", "any", default=None, doc="values the selected ones must not include"),
    )
    stored: str | None
    values: list[Any] | None
    _pool: _Pool | None

    def __init__(
        self,
        path: str,
        *,
        stored: str | None = None,
        values: Sequence[Any] | None = None,
        message: str | None = None,
    ) -> None:
        super().__init__(path, message=message)
        if (stored is None) == (values is None):
            raise ValueError(
                "no_overlap needs exactly one of 'with' (the name an earlier step stored) "
                "or 'values' (a list)"
            )
        if stored is not None:
            str_value("no_overlap with", stored)
        if values is not None:
            if isinstance(values, str | int | float | bool):
                values = [values]
            if not isinstance(values, list | tuple) or not values:
                raise ValueError("no_overlap 'values' must be a non-empty list")
            values = list(values)
        self._set("stored", stored)
        self._set("values", values)
        self._set("_pool", None if values is None else _Pool(values))

    def _expected(self) -> Any:
        return {"with": self.stored} if self.stored is not None else {"values": self.values}

    def _others(self) -> tuple[_Pool | None, str, Result | None]:
        """The elements to compare with, how reasons name them, or the error that stops it."""
        if self._pool is not None:
            return self._pool, "the values given", None
        name = self.stored
        assert name is not None
        entry = (_STORED.get() or {}).get(name)
        if entry is None:
            return (
                None,
                "",
                self._error(
                    f"no value is stored as {name!r}: 'with' names what an earlier step of a "
                    f"multi_step test stored (store: {name})",
                    "not_stored",
                ),
            )
        step, response = entry
        if isinstance(response, NotLogged):
            return (
                None,
                "",
                self._error(
                    f"step {response.step}, which stores {name!r}, has no response in the log",
                    "stored_step_missing",
                    step=response.step,
                ),
            )
        try:
            data = as_json(response)
        except NotJSONError as exc:
            return (
                None,
                "",
                self._error(
                    f"the response step {step} stored as {name!r} is not JSON ({exc})",
                    "not_json",
                    step=step,
                ),
            )
        found = self._path.find(data)
        if not found and not self._path.fans_out:
            return (
                None,
                "",
                self._error(
                    f"the response step {step} stored as {name!r} has no field {self.path}",
                    "stored_field_missing",
                    step=step,
                ),
            )
        pool = _Pool([value for value, _, _ in _elements(found, self._path)])
        return pool, f"what step {step} stored as {name!r}", None

    def _error(self, reason: str, error: str, **extra: Any) -> Result:
        details = {"path": self.path, "with": self.stored, "error": error, **extra}
        return Result(_E, self.kind, reason, details)

    def _eval(self, data: Any) -> Result:
        found = self._path.find(data)
        if not found and not self._path.fans_out:
            return self._missing(self.path, self._expected())
        pool, source, error = self._others()
        if error is not None:
            return error
        assert pool is not None
        elements = _elements(found, self._path)
        bad = Offenders()
        for value, location, index in elements:
            if value in pool:
                bad.add(location, value, index)
        first = bad.first
        if first is None:
            return self._passed(len(elements))
        reason = f"Value {show(first['actual'])} at {first['path']} is also in {source}"
        details = bad.details(self._expected(), len(elements))
        details["overlap"] = [item["actual"] for item in bad.items]
        return Result(_F, self.kind, reason + bad.more(), details)

    def describe(self) -> str:
        """Describe the requirement."""
        if self.stored is not None:
            return f"{self.path} shares no value with what was stored as {self.stored!r}"
        return f"{self.path} includes none of " + ", ".join(show(v) for v in self.values or ())


# -- the model that answered -----------------------------------------------------------------


def _model_of(subject: object) -> tuple[Any, str]:
    """The model a subject records and where it was found; `(None, "")` when it records none."""
    if isinstance(subject, Turn):
        return subject.metadata.get("model"), "the turn's metadata"
    if isinstance(subject, Conversation):
        for turn in reversed(subject.turns):
            if turn.metadata.get("model") is not None:
                return turn.metadata["model"], "the last turn's metadata"
        return subject.metadata.get("model"), "the conversation's metadata"
    return None, ""


@register
class AgentUsedModel(Assertion):
    """Passes when the logged response was produced by the model (expect `agent_used_model`).

    The model is the one the log records beside the response (a `Turn`'s `metadata["model"]`;
    on the command line, a record's `model` or `metadata.model`), never a field of the response
    itself. The value is a model id or a family name, matched by `model_matches`: `haiku`
    passes for `claude-3-5-haiku-20241022`. A response logged without a model is an `error`.

    Example:
        >>> from chatassert import Turn
        >>> from chatassert.expect import AgentUsedModel
        >>> logged = Turn(data={"status": "success"}, metadata={"model": "claude-sonnet-4-5"})
        >>> AgentUsedModel("haiku").check(logged).reason
        "Expected model 'haiku', got 'claude-sonnet-4-5'"
        >>> AgentUsedModel("haiku").check({"status": "success"}).status.value
        'error'
    """

    __slots__ = ("model",)
    kind = "expect_agent_used_model"
    level: ClassVar[str] = "json"
    dialect_names = {"expect": "agent_used_model"}
    evidence_at = "/metadata/model"
    params = (
        Param(
            "value",
            "str",
            required=True,
            attr="model",
            doc="a model id, or a family name such as haiku",
        ),
    )
    model: str

    def __init__(self, model: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        str_value("agent_used_model", model)
        if not word_segments(model):
            raise ValueError(f"agent_used_model must name a model, got {model!r}")
        self._set("model", model)

    def _check(self, subject: object) -> Result:
        actual, where = _model_of(subject)
        if actual is None:
            return Result(
                _E,
                self.kind,
                "the response was logged without the model that produced it: log it beside "
                'the response ({"id": ..., "model": "...", "response": {...}}), or check a '
                "Turn whose metadata has 'model'",
                {"expected": self.model, "actual": None, "error": "no_model"},
            )
        if not isinstance(actual, str):
            return Result(
                _E,
                self.kind,
                f"the model in {where} is not a model id ({show(actual, 40)})",
                {"expected": self.model, "actual": actual, "error": "not_a_model"},
            )
        details = {"expected": self.model, "actual": actual}
        if model_matches(self.model, actual):
            return Result(_P, self.kind, f"the response came from {actual!r}", details)
        return Result(_F, self.kind, f"Expected model {self.model!r}, got {actual!r}", details)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"the response came from model {self.model!r}"
