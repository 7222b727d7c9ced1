"""The assertion base class, and the boolean combinators its operators build.

An assertion implements one method, `_check(subject) -> Result`. `a & b`, `a | b` and `~a` build
`AllOf`, `AnyOf` and `Not`, defined here beside `Assertion` so that the base needs no module
above it. Outcomes combine by Kleene logic over the four statuses. A skipped child is left out,
so a group in which nothing was evaluated behaves like an empty group: `AllOf` passes vacuously
and `AnyOf` fails (the expect dialect's `if_results` relies on this: no results, so the
conditional check is skipped and the test passes). These rules keep De Morgan's laws and the
identities `AllOf()` (passed) and `AnyOf()` (failed) exact over all four outcomes.

| combinator | passed when | failed when | otherwise |
|---|---|---|---|
| `AllOf` | no child failed or errored | any child failed | error |
| `AnyOf` | any child passed | every counted child failed | error |
| `Not` | the child failed | the child passed | the child's status |

The other combinators (`When`, `AtLeast`) and the turn selectors are in `_combinators`.

Docs: docs/guide.md. Tests: tests/test_combinators.py, tests/test_combinators_decisions.py
and tests/test_laws.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from time import perf_counter
from typing import Any, ClassVar, NoReturn

from chatassert._budget import close_budget, open_budget
from chatassert._early import AT_FINISH, Early
from chatassert._errors import (
    ChatAssertError,
    RegexTimeoutError,
    UnrecordedError,
    UsageError,
)
from chatassert._judging import planning_enabled, record_judge_avoided, run_sync
from chatassert._lazy import LazyConversation, LazyTurn
from chatassert._models import Conversation, Turn
from chatassert._params import Param, register
from chatassert._result import (
    ReadOnlyDict,
    Result,
    Status,
    all_status,
    any_status,
    status_counts,
)

__all__ = [
    "AllOf",
    "AnyOf",
    "Assertion",
    "first_with_status",
    "Group",
    "Not",
    "QuickTest",
    "SpecPlace",
    "status_counts_of",
    "SubjectTypeError",
    "spec_of",
    "with_spec",
]

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


_PLACES_KEPT = 64


class SpecPlace:
    """Where a loaded assertion is in its spec file and the name the file gives it: what its
    results carry as `spec_name` and `spec_path` (see `with_spec`).

    Placing a fresh result sets the two fields on it; a shared one (a constant outcome) is
    copied once, and the copy, shared in turn, is what later checks return, so a check that
    allocates nothing still allocates nothing once placed.

    Example:
        >>> from chatassert import Contains
        >>> place = SpecPlace("contains", "turns[0].assertions[1]")
        >>> r = place.place(Contains("a").check("b"))
        >>> r.spec_name, r.spec_path
        ('contains', 'turns[0].assertions[1]')
    """

    __slots__ = ("_last", "_placed", "details", "name", "path")

    def __init__(self, name: str, path: str, details: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.path = path
        # what the file says of the assertion that its results carry in their details beside
        # their own: the parameters PromptKit ignores that the file gave it (`ignored_params`)
        self.details = dict(details) if details else None
        self._placed: dict[int, tuple[Result, Result]] = {}
        # the constant placed last and its placed copy, one tuple (read whole by any thread):
        # a check mostly returns the same constant again, found here without a lookup
        self._last: tuple[Result | None, Result | None] = (None, None)

    def place(self, result: Result) -> Result:
        """`result` named and placed as the spec has it (a copy when it is shared)."""
        last = self._last
        if last[0] is result:
            return last[1]  # type: ignore[return-value]  # set together with last[0]
        fields = result.__dict__
        if "_shared" not in fields:  # nobody else has seen it: set the fields in place
            fields["spec_name"] = self.name
            fields["spec_path"] = self.path
            if self.details is not None:
                fields["details"] = {**fields["details"], **self.details}
            return result
        if fields.get("spec_path") is self.path and fields.get("spec_name") is self.name:
            return result  # placed already (a placed constant passed on)
        known = self._placed.get(id(result))
        if known is not None and known[0] is result:
            self._last = known
            return known[1]
        copy = object.__new__(Result)
        copy.__dict__.update(fields)  # still shared: whoever annotates it further copies it
        copy.__dict__["spec_name"] = self.name
        copy.__dict__["spec_path"] = self.path
        if self.details is not None:
            copy.__dict__["details"] = ReadOnlyDict({**fields["details"], **self.details})
        if len(self._placed) >= _PLACES_KEPT:
            self._placed.clear()
        self._placed[id(result)] = self._last = (result, copy)  # kept: its id is not reused
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        return (SpecPlace, (self.name, self.path, self.details))

    def __repr__(self) -> str:
        return f"SpecPlace({self.name!r}, {self.path!r})"


_SUBJECTS = (LazyTurn, LazyConversation, Turn, Conversation)
"""The subjects that say what their log did not record (`Turn.unrecorded`): a tuple, which
`isinstance` tests faster than a union. The lazy ones come first: tested against a model, they
pass only through their `__class__` (a Python-level property)."""

_UNRECORDABLE = {"/text": "text", "/tool_calls": "tool_calls"}
"""The parts of a turn a log may leave unrecorded (`Turn.unrecorded`), by where a check's
evidence is (`Assertion.evidence_at`)."""


class Assertion:
    """Base class of every assertion.

    Subclasses set `kind` (the native spec name) and `params` (the declared spec parameters),
    parse and compile everything in `__init__`, and implement `_check`. Assertions are
    immutable, picklable, comparable by their spec, and safe to share across threads.

    Combine them with `&` (all of), `|` (any of) and `~` (not); `bool(assertion)` raises,
    because `a and b` would silently drop `a`.
    """

    __slots__ = ("_described", "_spec", "message")

    kind: ClassVar[str] = ""
    """The name of this assertion in the native spec form."""
    level: ClassVar[str] = "turn"
    """What it checks: `turn`, `conversation`, `json`, or `any` (combinators)."""
    params: ClassVar[tuple[Param, ...]] = ()
    """The spec parameters, in order (used by the loader, `as_spec` and the JSON Schema)."""
    dialect_names: ClassVar[Mapping[str, str | tuple[str, ...]]] = {}
    """The names this type has in the dialects it belongs to (`{"flat": "contains"}`); a
    tuple gives a dialect's several spellings of it."""
    options: ClassVar[tuple[str, ...]] = ()
    """Keyword-only construction options (not part of the spec) such as `judge`."""
    evidence_at: ClassVar[str | None] = None
    """The part of a turn this check reads, as a JSON Pointer (`/text`, `/tool_calls`, ...):
    a failure that does not locate its own evidence points there, or at `/turns` when the
    subject is a conversation. None for combinators, whose children locate theirs."""
    reads: ClassVar[frozenset[str]] = frozenset()
    """The parts of a turn this check reads that a log may leave unrecorded (`"text"`,
    `"tool_calls"`): on a turn or conversation whose log did not record one
    (`Turn.unrecorded`), checking is an `error` with the log's reason, never a verdict. By
    default, a check reads the part its evidence is in (`evidence_at` `/text`,
    `/tool_calls`)."""
    _searches: ClassVar[bool] = False
    """Whether checking may run regular expressions (a `regex_timeout` option, or a
    combinator): such a check opens the regex time budget that all its searches share."""
    _one_search: ClassVar[bool] = False
    """Whether a check runs at most one search (`matches`): it opens no budget of its own, as
    a lone search outside any check already has the whole limit, and the budget's clock reads
    (a system call each) would cost more than the search."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "regex_timeout" in cls.options:
            cls._searches = not cls._one_search
        if "reads" not in cls.__dict__ and "evidence_at" in cls.__dict__:
            part = _UNRECORDABLE.get(cls.evidence_at or "")
            cls.reads = frozenset() if part is None else frozenset({part})

    decided_early: ClassVar[Early] = AT_FINISH
    """How early a monitor of a running agent can decide this check (`chatassert.monitor`):
    only at the end of the conversation (the default), on the conversation so far, or call by
    call; see `chatassert._early`."""
    judged: ClassVar[bool] = False
    """Whether checking may call a judge (then `acheck` is the efficient entry point)."""
    reads_history: ClassVar[bool] = False
    """Whether checking a turn reads the turns before it (`turns_so_far`): a turn selector
    then tells it where the turn is in its conversation. A combinator reads history when a
    part does (see `reads_history_of`)."""

    message: str | None
    _described: str
    _spec: SpecPlace | None

    def __init__(self, *, message: str | None = None) -> None:
        if message is not None and not isinstance(message, str):
            raise TypeError(f"message must be a string, got {type(message).__name__}")
        self._set("message", message)
        self._set("_spec", None)

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
        subject, only for a subject of the wrong type (`TypeError`). A check that crashes with
        another exception comes out as an error with the reason `could not be evaluated:
        <exception type>: <message>` and the details `{"error": <exception type>,
        "error_message": <message>}`. Judged checks record their `duration`; deterministic
        leaves take microseconds and are not timed (suites time whole cases), which keeps the hot
        path lean.
        """
        if self.reads and isinstance(subject, _SUBJECTS) and subject.unrecorded:
            missing = self._unrecorded(subject)
            if missing is not None:
                return missing
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
            if budget is not None:  # most checks search nothing: no call
                close_budget(budget)
        return self._as_checked(result, subject)

    def _as_checked(self, result: Result, subject: object) -> Result:
        """`result`, what `_check(subject)` gave, made what `check` returns: a failure pointed
        at its evidence, with the check's message, named and placed as its spec file has it
        (for a check that calls its own rule directly, as JSON checks do on a decoded
        object)."""
        if result.status is not _P and self.evidence_at is not None:
            result = self._point_at_evidence(result, subject)
        if self.message is not None and result.message is not self.message:
            result = result._with_field("message", self.message)
        spec = self._spec
        if spec is not None:  # loaded from a spec file: named and placed as the file has it
            result = spec.place(result)
        return result

    def _in_spec(self, result: Result) -> Result:
        """`result` (of this assertion, not made by `check`) named and placed as the spec file
        that this assertion was loaded from has it; unchanged for an assertion built in code."""
        spec = self._spec
        return result if spec is None else spec.place(result)

    def _point_at_evidence(self, result: Result, subject: object) -> Result:
        """A leaf failure (or error) that does not say where its evidence is, pointed at it."""
        fields = result.__dict__
        if "pointer" in fields or "children" in fields or fields["status"] in (_P, _S):
            return result
        pointer = self._pointer_of(result, subject)
        return result if pointer is None else result._with_field("pointer", pointer)

    def _pointer_of(self, result: Result, subject: object) -> str | None:
        """Where a failure of this check is in `subject`, as a JSON Pointer: `evidence_at`; on
        a conversation, that part of the turn its first violation names (`/turns/2/text`),
        else `/turns`. Checks whose details name the offending part in another way (a call, a
        value's path) point at it instead."""
        if not _is_conversation(subject):
            return self.evidence_at
        return _violation_pointer(result.details, self.evidence_at or "") or "/turns"

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
        return self._finish(result, start, subject)

    async def acheck(self, subject: object, /) -> Result:
        """Check `subject` asynchronously; judged parts run concurrently. Always timed."""
        if self.reads and isinstance(subject, _SUBJECTS) and subject.unrecorded:
            missing = self._unrecorded(subject)
            if missing is not None:
                return missing
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
        return self._finish(result, start, subject)

    def _finish(self, result: Result, start: float, subject: object) -> Result:
        if result.status is not _P and self.evidence_at is not None:
            result = self._point_at_evidence(result, subject)
        result = result._with_field("duration", perf_counter() - start)
        if self.message is not None:
            result.__dict__["message"] = self.message  # a fresh or copied result by now
        spec = self._spec
        if spec is not None:
            result = spec.place(result)
        return result

    def _unrecorded(
        self, subject: Turn | Conversation | LazyTurn | LazyConversation
    ) -> Result | None:
        """The error of checking a part of `subject` its log did not record (`reads`), or None
        when every part this check reads was recorded."""
        for part in sorted(self.reads):
            why = subject.unrecorded.get(part)
            if why is None:
                continue
            if isinstance(subject, Turn):
                where, pointer = "this turn", f"/{part}"
            else:  # the first turn that lacks it
                index = next(i for i, t in enumerate(subject.turns) if part in t.unrecorded)
                where, pointer = f"turns[{index}]", f"/turns/{index}/{part}"
                why = subject.turns[index].unrecorded[part]
            result = Result(
                Status.ERROR,
                self.kind,
                f"the log did not record the {part.replace('_', ' ')} of {where}: {why}",
                {"unrecorded": part, "why": why},
                pointer=pointer,
            )
            if self.message is not None:
                result = result._with_field("message", self.message)
            return self._in_spec(result)
        return None

    def _crashed(self, exc: Exception) -> Result:
        if isinstance(exc, UnrecordedError):  # the log left out what the check reads
            return Result(Status.ERROR, self.kind, str(exc), {"unrecorded": str(exc)})
        return Result(
            Status.ERROR,
            self.kind,
            f"could not be evaluated: {type(exc).__name__}: {exc}",
            {"error": type(exc).__name__, "error_message": str(exc)},
        )

    def _constant(
        self,
        status: Status,
        reason: str = "",
        details: Mapping[str, Any] | None = None,
        *,
        pointer: str | None = None,
    ) -> Result:
        """Build an outcome of this assertion that many checks return (see `Result.shared`).

        A pass without a reason of its own gets `_held()`; `pointer` locates the evidence.
        """
        if status is Status.PASSED and not reason:
            reason = self._held()
        elif status is not Status.PASSED and pointer is None and self.level == "turn":
            pointer = self.evidence_at  # a turn check's subject is always a turn: no copy later
        return Result.shared(
            status, self.kind, reason, details, message=self.message, pointer=pointer
        )

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

    def _judge_calls(self) -> int:
        """How many judge requests checking this may make: 1 for a judged leaf, the sum over
        the parts of a combinator (planning counts the ones it avoids with it)."""
        if not self.needs_judge():
            return 0
        parts = _parts(self)
        return sum(p._judge_calls() for p in parts) if parts else 1

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
        """Return a one-line human description of what this assertion requires.

        By default the kind with its spec parameters, `kind(name='value', other=2)`.
        """
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
        if not isinstance(other, Assertion):
            return NotImplemented
        return AllOf(*_flatten(AllOf, self), *_flatten(AllOf, other))

    def __or__(self, other: Assertion) -> AnyOf:
        if not isinstance(other, Assertion):
            return NotImplemented
        return AnyOf(*_flatten(AnyOf, self), *_flatten(AnyOf, other))

    def __invert__(self) -> Not:
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


def not_needed(assertion: Assertion, why: str) -> Result:
    """The `skipped` result of a judged `assertion` that planning did not ask, because `why`
    (what already decides the outcome); its judge requests count as avoided."""
    record_judge_avoided(assertion._judge_calls())
    return assertion._in_spec(
        Result(
            _S,
            assertion.kind,
            f"not needed: {why}",
            {"not_needed": True},
            message=assertion.message,
        )
    )


def spec_of(assertion: Assertion) -> SpecPlace | None:
    """Where `assertion` is in the spec file it was loaded from (None: built in code)."""
    return assertion._spec


def with_spec(assertion: Assertion, place: SpecPlace | None) -> Assertion:
    """Name and place `assertion` as its spec file has it, and return it.

    For loaders, on an assertion they have just built and nobody else has seen: its results
    (and those `check` returns from then on) carry `place.name` as `spec_name` and
    `place.path` as `spec_path`. A check the loader wraps around a written one (a turn check
    the file puts at the top level, run on every turn) takes the written one's place, so the
    report shows what the file says, not the wrapper. The place is not part of the spec:
    two assertions that differ only in it are equal.
    """
    assertion._set("_spec", place)
    return assertion


def _parts(assertion: Assertion) -> list[Assertion]:
    """The assertions among the spec parameters of `assertion` (a combinator's children)."""
    out: list[Assertion] = []
    for param in type(assertion).params:
        value = getattr(assertion, param.attr, None)
        if isinstance(value, Assertion):
            out.append(value)
        elif param.value_type == "assertions" and isinstance(value, tuple | list):
            out.extend(v for v in value if isinstance(v, Assertion))
    return out


def reads_history_of(assertion: Assertion) -> bool:
    """Whether checking a turn with `assertion` may read the turns before it: its class says
    so, a part does, or its class is defined outside chatassert (which cannot be known)."""
    cls = type(assertion)
    if cls.reads_history or not cls.__module__.startswith("chatassert."):
        return True
    return any(reads_history_of(part) for part in _parts(assertion))


def searches_in(assertion: Assertion) -> bool:
    """Whether checking with `assertion` may run a regular expression: it searches itself,
    a part does, or its class is defined outside chatassert (which cannot be known)."""
    cls = type(assertion)
    if cls._one_search or "regex_timeout" in cls.options:
        return True
    if not cls.__module__.startswith("chatassert."):
        return True
    parts = _parts(assertion)
    return any(searches_in(part) for part in parts) if parts else cls._searches


def _flatten(cls: type[Assertion], assertion: Assertion) -> tuple[Assertion, ...]:
    if type(assertion) is cls and assertion.message is None:
        children: tuple[Assertion, ...] = assertion.children  # type: ignore[attr-defined]
        return children
    return (assertion,)


# -- the boolean combinators --------------------------------------------------------------

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


def _is_conversation(subject: object) -> bool:
    return isinstance(subject, Conversation)


def _violation_pointer(details: Mapping[str, Any], part: str) -> str | None:
    """`/turns/i<part>` for the first of a conversation check's `violations` that names its
    `turn_index`, else None."""
    violations = details.get("violations")
    if not violations or not isinstance(violations, list):
        return None
    first = violations[0]
    index = first.get("turn_index") if isinstance(first, Mapping) else None
    return f"/turns/{index}{part}" if type(index) is int else None


def status_counts_of(results: Sequence[Result]) -> dict[str, int]:
    return status_counts([r.status for r in results])


def first_with_status(results: Sequence[Result], status: Status) -> Result | None:
    return next((r for r in results if r.status is status), None)


def _where(result: Result) -> str:
    return f"{result.location}: " if result.location else ""


def _check_all(children: Sequence[Assertion], subject: object) -> list[Result]:
    return [child.check(subject) for child in children]


async def _acheck_all(children: Sequence[Assertion], subject: object) -> list[Result]:
    import asyncio

    if not any(c.needs_judge() for c in children):
        return [child.check(subject) for child in children]
    return list(await asyncio.gather(*(child.acheck(subject) for child in children)))


class Group(Assertion):
    """Shared machinery of combinators over a list of children.

    The children are given as arguments (`AllOf(a, b)`), as one list or tuple (`AllOf([a, b])`),
    or, by the spec loader, as the keyword `children`; anything else is a `TypeError`. The
    option `plan=` (True, False, or None to follow `judge_planning`) turns cost-aware planning
    of judged children on or off for this combinator.
    """

    _searches = True  # children may: all share one regex time budget

    __slots__ = ("_judged_inside", "children", "plan")

    level = "any"
    options: ClassVar[tuple[str, ...]] = ("plan",)
    children: tuple[Assertion, ...]
    _judged_inside: bool
    plan: bool | None

    def __init__(
        self,
        *children: Assertion,
        message: str | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(message=message)
        plan = kw.pop("plan", None)  # a keyword, so subclasses passing **kw along keep theirs
        if plan is not None and not isinstance(plan, bool):
            raise TypeError(f"plan must be True, False or None, got {plan!r}")
        self._set("plan", plan)
        if "children" in kw:  # the keyword form used by the spec loader
            children = (*children, *kw.pop("children"))
        if kw:
            raise TypeError(f"{type(self).__name__} got unexpected arguments {sorted(kw)}")
        if len(children) == 1 and isinstance(children[0], list | tuple):
            children = tuple(children[0])
        for child in children:
            if not isinstance(child, Assertion):
                raise TypeError(
                    f"{type(self).__name__} takes assertions, got {type(child).__name__}"
                )
        self._set("children", tuple(children))
        self._set("_judged_inside", any(c.needs_judge() for c in self.children))

    def needs_judge(self) -> bool:
        """Whether any child may call a judge (decided once, at construction)."""
        return bool(self._judged_inside)

    def _check(self, subject: object) -> Result:
        if self._judged_inside:  # one event loop, judged children concurrently (and batched)
            result: Result = run_sync(self._acheck(subject))
            return result
        return self._combine(_check_all(self.children, subject))

    async def _acheck(self, subject: object) -> Result:
        if not self._judged_inside or not (planning_enabled() if self.plan is None else self.plan):
            return self._combine(await _acheck_all(self.children, subject))
        return self._combine(await self._planned(subject))

    async def _planned(self, subject: object) -> list[Result]:
        """Cost-aware planning: the deterministic children first; the judged ones (together,
        so a batching judge gets them in one request) only when their verdicts can still
        change the outcome, else `skipped` as not needed. Results keep the children's order."""
        import asyncio

        results: list[Result | None] = []
        judged: list[int] = []
        for i, child in enumerate(self.children):
            if child.needs_judge():
                judged.append(i)
                results.append(None)
            else:
                results.append(child.check(subject))
        known = [(c, r) for c, r in zip(self.children, results, strict=True) if r is not None]
        why = self._settled(known, len(judged))
        if why is None:
            done = await asyncio.gather(*(self.children[i].acheck(subject) for i in judged))
            for i, result in zip(judged, done, strict=True):
                results[i] = result
        else:
            for i in judged:
                results[i] = not_needed(self.children[i], why)
        return [r for r in results if r is not None]

    def _settled(self, known: list[tuple[Assertion, Result]], judged: int) -> str | None:
        """Why the deterministic results `known` decide the outcome whatever the `judged`
        children say, or None when they do not (then the judge is asked)."""
        return None

    def _combine(self, results: list[Result]) -> Result:
        raise NotImplementedError

    def describe(self) -> str:
        """Describe the group and its children."""
        inner = ", ".join(c.describe() for c in self.children)
        return f"{self.kind}({inner})"


@register
class AllOf(Group):
    """Passes when every child passes (AND); `a & b` builds one.

    Fails if any child failed, else is an error if any errored; skipped children are left out.

    Example:
        >>> from chatassert import Contains, NotContains
        >>> (Contains("table") & NotContains("goodbye")).check("A table for 4?").passed
        True
    """

    __slots__ = ()
    kind = "all_of"
    params = (
        Param(
            "assertions",
            "assertions",
            required=True,
            aliases=("of",),
            attr="children",
            allow_empty=True,
            doc="the assertions that must all pass",
        ),
    )

    def _settled(self, known: list[tuple[Assertion, Result]], judged: int) -> str | None:
        # A failure decides; an error does not (a judged failure would turn it into a failure).
        for child, result in known:
            if result.status is _F:
                return f"{child.describe()} failed, so {self.kind} fails whatever the judge says"
        return None

    def _combine(self, results: list[Result]) -> Result:
        statuses = [r.status for r in results]
        status, counts = all_status(statuses), status_counts(statuses)
        total = len(results)
        if status is _P:
            reason = (
                f"all {total} passed"
                if not counts["skipped"]
                else (f"{counts['passed']} passed, {counts['skipped']} skipped")
            )
        elif status is _F:
            first = first_with_status(results, _F)
            assert first is not None
            reason = f"{counts['failed']} of {total} failed; first: {_where(first)}{first.reason}"
        elif status is _E:
            first = first_with_status(results, _E)
            assert first is not None
            reason = f"{counts['error']} of {total} could not be evaluated: {first.reason}"
        return Result(status, self.kind, reason, counts, children=tuple(results))


@register
class AnyOf(Group):
    """Passes when at least one child passes (OR); `a | b` builds one.

    Otherwise it is an error if any child errored, else it fails.

    Example:
        >>> from chatassert import Contains
        >>> (Contains("open") | Contains("available")).check("Tables are available").passed
        True
    """

    __slots__ = ()
    kind = "any_of"
    params = (
        Param(
            "assertions",
            "assertions",
            required=True,
            aliases=("of",),
            attr="children",
            allow_empty=True,
            doc="the assertions of which one must pass",
        ),
    )

    def _settled(self, known: list[tuple[Assertion, Result]], judged: int) -> str | None:
        # A pass decides; an error does not (a judged pass would turn it into a pass).
        for child, result in known:
            if result.status is _P:
                return f"{child.describe()} passed, so {self.kind} passes whatever the judge says"
        return None

    def _combine(self, results: list[Result]) -> Result:
        statuses = [r.status for r in results]
        status, counts = any_status(statuses), status_counts(statuses)
        total = len(results)
        if status is _P:
            first = first_with_status(results, _P)
            assert first is not None
            reason = f"{_where(first)}{first.label} passed"
        elif status is _E:
            first = first_with_status(results, _E)
            assert first is not None
            reason = f"none passed and {counts['error']} could not be evaluated: {first.reason}"
        elif counts["failed"]:
            reasons = "; ".join(f"{_where(r)}{r.reason}" for r in results if r.status is _F)
            reason = f"none of {total} passed: {reasons}"
        else:
            reason = f"nothing was evaluated (all {total} skipped)" if total else "no alternatives"
        return Result(status, self.kind, reason, counts, children=tuple(results))


@register
class Not(Assertion):
    """Passes when its child fails; an error or a skip stays what it is (`~a` builds one).

    Example:
        >>> from chatassert import Contains
        >>> (~Contains("goodbye")).check("See you soon").passed
        True
    """

    _searches = True  # children may: all share one regex time budget

    __slots__ = ("child",)
    kind = "not"
    level = "any"
    params = (
        Param(
            "assertion",
            "assertion",
            required=True,
            attr="child",
            doc="the assertion that must not pass",
        ),
    )
    child: Assertion

    def __init__(self, child: Assertion, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(child, Assertion):
            raise TypeError(f"Not takes an assertion, got {type(child).__name__}")
        self._set("child", child)

    def needs_judge(self) -> bool:
        """Whether the child may call a judge."""
        return self.child.needs_judge()

    def _check(self, subject: object) -> Result:
        return self._negate(self.child.check(subject))

    async def _acheck(self, subject: object) -> Result:
        return self._negate(await self.child.acheck(subject))

    def _negate(self, inner: Result) -> Result:
        status = inner.status
        if status is _P:
            described = self.child.describe()
            reason = f"expected not {described}, but it held"
            if inner.reason and inner.reason != described:  # a judge's reason, say
                reason += f" ({inner.reason})"
            status = _F
        elif status is _F:
            status = _P
            reason = f"not {self.child.describe()}"
        else:
            reason = inner.reason
        return Result(status, self.kind, reason, None, children=(inner,))

    def describe(self) -> str:
        """Describe the negated child."""
        return f"not {self.child.describe()}"
