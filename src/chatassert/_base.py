"""The assertion base class: one method to implement, `_check(subject) -> Result`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from time import perf_counter
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

from chatassert._budget import close_budget, open_budget
from chatassert._errors import ChatAssertError, RegexTimeoutError, UsageError
from chatassert._result import Result, Status

if TYPE_CHECKING:
    from chatassert._combinators import AllOf, AnyOf, Not
    from chatassert._registry import Param

__all__ = ["Assertion", "QuickTest", "SubjectTypeError"]

QuickTest = Callable[[Any], "Result | None"]
"""A compiled shortcut: the (shared) result when a JSON object certainly passes, else None."""


def never(data: Any) -> Result | None:
    """The quick test of an assertion that has none: never certain."""
    return None


MEMO_SIZE = 256
"""How many subject-dependent outcomes an assertion remembers (see `remember`)."""


def remember(memo: dict[Any, Result], key: Any, result: Result) -> Result:
    """Keep `result` as the outcome for `key` while `memo` is under `MEMO_SIZE`; return it.

    For failures that depend on a small part of the subject (which values were missing,
    which tools were called): the outcome is built once per distinct part and shared. The
    memo is a cache on an otherwise immutable assertion; a race only builds a result twice.
    """
    if len(memo) < MEMO_SIZE:
        memo[key] = result
    return result


class SubjectTypeError(ChatAssertError, TypeError):
    """An assertion was given a subject it cannot check (misuse: raised, not reported)."""


class Assertion:
    """Base class of every assertion.

    Subclasses set `kind` (the native spec name) and `params` (the declared spec parameters),
    parse and compile everything in `__init__`, and implement `_check`. Assertions are
    immutable, picklable, comparable by their spec, and safe to share across threads.

    Combine them with `&` (all of), `|` (any of) and `~` (not); `bool(assertion)` raises,
    because `a and b` would silently drop `a`.
    """

    __slots__ = ("_described", "message")

    kind: ClassVar[str] = ""
    """The name of this assertion in the native spec form."""
    level: ClassVar[str] = "turn"
    """What it checks: `turn`, `conversation`, `json`, or `any` (combinators)."""
    params: ClassVar[tuple[Param, ...]] = ()
    """The spec parameters, in order (used by the loader, `as_spec` and the JSON Schema)."""
    dialect_names: ClassVar[Mapping[str, str]] = {}
    """The names this type has in the vocabularies it belongs to (`{"flat": "contains"}`)."""
    options: ClassVar[tuple[str, ...]] = ()
    """Keyword-only construction options (not part of the spec) such as `judge`."""
    _searches: ClassVar[bool] = False
    """Whether checking may run regular expressions (a `regex_timeout` option, or a
    combinator): such a check opens the regex time budget that all its searches share."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "regex_timeout" in cls.options:
            cls._searches = True

    judged: ClassVar[bool] = False
    """Whether checking may call a judge (then `acheck` is the efficient entry point)."""

    message: str | None
    _described: str

    def __init__(self, *, message: str | None = None) -> None:
        if message is not None and not isinstance(message, str):
            raise TypeError(f"message must be a string, got {type(message).__name__}")
        self._set("message", message)

    # -- immutability and pickling ------------------------------------------------------

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new assertion")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(getattr(self, "__dict__", {}))  # a subclass without __slots__ has one
        state.update(
            (name, getattr(self, name))
            for cls in type(self).__mro__
            for name in getattr(cls, "__slots__", ())
            if hasattr(self, name)
        )
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    # -- checking ------------------------------------------------------------------------

    def check(self, subject: object, /) -> Result:
        """Check `subject` and return the result tree.

        A check that cannot be evaluated returns an `error` result; it never raises for a bad
        subject, only for a subject of the wrong type (`TypeError`). Judged checks record their
        `duration`; deterministic leaves take microseconds and are not timed (suites time whole
        cases), which keeps the hot path lean.
        """
        if self.judged:
            return self._timed_check(subject)
        budget = open_budget() if self._searches else None  # the regex limit bounds the check
        try:
            result = self._check(subject)
        except (TypeError, UsageError):
            raise
        except Exception as exc:  # a crashing check is an error record, not a failure
            result = self._crashed(exc)
        finally:
            close_budget(budget)
        if self.message is not None and result.message is not self.message:
            result = result._with_field("message", self.message)
        return result

    def _timed_check(self, subject: object) -> Result:
        start = perf_counter()
        budget = open_budget() if self._searches else None
        try:
            result = self._check(subject)
        except (TypeError, UsageError):
            raise
        except Exception as exc:
            result = self._crashed(exc)
        finally:
            close_budget(budget)
        return self._finish(result, start)

    async def acheck(self, subject: object, /) -> Result:
        """Check `subject` asynchronously; judged parts run concurrently. Always timed."""
        start = perf_counter()
        budget = open_budget() if self._searches else None
        try:
            result = await self._acheck(subject)
        except (TypeError, UsageError):
            raise
        except Exception as exc:
            result = self._crashed(exc)
        finally:
            close_budget(budget)
        return self._finish(result, start)

    def _finish(self, result: Result, start: float) -> Result:
        result = result._with_field("duration", perf_counter() - start)
        if self.message is not None:
            result.__dict__["message"] = self.message  # a fresh or copied result by now
        return result

    def _crashed(self, exc: Exception) -> Result:
        return Result(
            Status.ERROR,
            self.kind,
            f"could not be evaluated: {type(exc).__name__}: {exc}",
            {"error": type(exc).__name__, "error_message": str(exc)},
        )

    def _constant(
        self, status: Status, reason: str = "", details: Mapping[str, Any] | None = None
    ) -> Result:
        """Build an outcome of this assertion that many checks return (see `Result.shared`).

        A pass without a reason of its own gets `_held()`.
        """
        if status is Status.PASSED and not reason:
            reason = self._held()
        return Result.shared(status, self.kind, reason, details, message=self.message)

    def _held(self) -> str:
        """The reason of a pass: the requirement that held (`describe()`, computed once)."""
        try:
            text: str = self._described
        except AttributeError:
            text = self.describe()
            self._set("_described", text)
        return text

    def _quick_test(self) -> QuickTest:
        """A shortcut for the common outcome on a JSON object (`dict`), or `never`.

        When it returns a result, that result is what `check` would return; None means "run
        `check`". JSON checks compile one (see `JsonCheck`); suites call it before `check`.
        """
        return never

    def _check_after_timeout(self, subject: object, exc: RegexTimeoutError) -> Result:
        """`check`, after the quick test ran out of regex time: the full evaluation gets only
        what the quick test left of the limit (`GRACE` slices), so the check takes about one
        limit in all rather than two."""
        budget = open_budget(spent=exc.timeout or 0.0)
        try:
            return self._check_in_full(subject)
        finally:
            close_budget(budget)

    def _check_in_full(self, subject: object) -> Result:
        """`check`, for a caller that has already tried `_quick_test` (it is not tried again)."""
        return self.check(subject)

    def needs_judge(self) -> bool:
        """Whether checking this assertion may call a judge (combinators ask their children)."""
        return self.judged

    def _check(self, subject: object) -> Result:
        """Evaluate against `subject`; subclasses implement this."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _check")

    async def _acheck(self, subject: object) -> Result:
        """Evaluate asynchronously; by default the same as `_check`."""
        return self._check(subject)

    # -- description and specs -----------------------------------------------------------

    def spec_params(self) -> dict[str, Any]:
        """Return this assertion's parameters as they appear in its native spec."""
        out: dict[str, Any] = {}
        for param in self.params:
            value = getattr(self, param.attr)
            if param.has_default and value == param.default:
                continue
            out[param.name] = param.to_spec(value)
        return out

    def as_spec(self) -> dict[str, Any]:
        """Return the native spec of this assertion; `chatassert.from_spec` rebuilds it."""
        spec: dict[str, Any] = {"type": self.kind, **self.spec_params()}
        if self.message is not None:
            spec["message"] = self.message
        return spec

    def describe(self) -> str:
        """Return a one-line human description of what this assertion requires."""
        params = ", ".join(f"{k}={v!r}" for k, v in self.spec_params().items())
        return f"{self.kind}({params})"

    def __repr__(self) -> str:
        args = [f"{k}={v!r}" for k, v in self.spec_params().items()]
        if self.message is not None:
            args.append(f"message={self.message!r}")
        return f"{type(self).__name__}({', '.join(args)})"

    def _identity(self) -> str:
        """The spec as canonical JSON: `1`, `1.0` and `true` differ, as they do in checks."""
        return json.dumps(_string_keys(self.as_spec()), sort_keys=True, default=str)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Assertion):
            return NotImplemented
        return type(self) is type(other) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    # -- combining -----------------------------------------------------------------------

    def __and__(self, other: Assertion) -> AllOf:
        from chatassert._combinators import AllOf

        if not isinstance(other, Assertion):
            return NotImplemented
        return AllOf(*_flatten(AllOf, self), *_flatten(AllOf, other))

    def __or__(self, other: Assertion) -> AnyOf:
        from chatassert._combinators import AnyOf

        if not isinstance(other, Assertion):
            return NotImplemented
        return AnyOf(*_flatten(AnyOf, self), *_flatten(AnyOf, other))

    def __invert__(self) -> Not:
        from chatassert._combinators import Not

        return Not(self)

    def __bool__(self) -> NoReturn:
        raise TypeError(
            f"{type(self).__name__} has no truth value: to combine assertions use "
            "`a & b` (all of), `a | b` (any of) and `~a` (not) instead of and/or/not; "
            "to test a subject use assertion.check(subject).passed"
        )


def _string_keys(value: Any) -> Any:
    """The value with every mapping key as a string (JSON's keys; YAML may give others)."""
    if isinstance(value, Mapping):
        return {str(k): _string_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_string_keys(v) for v in value]
    return value


def _flatten(cls: type[Assertion], assertion: Assertion) -> tuple[Assertion, ...]:
    if type(assertion) is cls and assertion.message is None:
        children: tuple[Assertion, ...] = assertion.children  # type: ignore[attr-defined]
        return children
    return (assertion,)
