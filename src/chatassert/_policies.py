"""Tool policies over time: which tools may be called, and when (docs/trajectories.md).

`ToolBefore`, `ToolNeverAfter`, `ToolOnlyAfterResult`, `OnlyTools`, `MaxConsecutive` and
`NoToolLoops` read the calls of a turn, or of a whole conversation in order, as the other
trajectory checks do. A tool is given as a name or as an expected call (`{tool, arguments}`,
`name` also accepted for `tool`, arguments with the matchers of `chatassert.args`).

The three ordering rules have a *trigger*: the event that makes the rule apply (a call of
`then`, a call of `after`, a call of `tool`). Without it the result is `skipped`. The three
limits have none: a trajectory without calls keeps them.

When a call whose arguments are not valid JSON (or a `$regex` that ran out of time, or a call
of `result_of` without a recorded result) could change the outcome, the result is an `error`:
each check is decided twice, once reading every such call in the way that helps it most and
once in the way that hurts it most, and only an outcome both readings agree on is reported.

Tests: tests/test_policies.py and tests/test_policies_props.py.

Example:
    >>> from chatassert import ToolCall, Turn
    >>> turn = Turn(tool_calls=[ToolCall(name="refund"), ToolCall(name="verify")])
    >>> ToolBefore("verify", "refund").check(turn).reason
    "expected every call of 'refund' to come after a call of 'verify' but 'refund' \
(tool_calls[0]) came before the first 'verify' (tool_calls[1])"
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from chatassert._early import on_calls
from chatassert._errors import RegexTimeoutError
from chatassert._matchers import ExpectedCall, check_keys, error_flag, render_arguments
from chatassert._models import ToolResult, Turn
from chatassert._params import Param, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT
from chatassert._result import Result, Status, shorten
from chatassert._trajectory_base import (
    CallCheck,
    CallPattern,
    LocatedCall,
    Tally,
    call_key,
    checked_count,
    located_calls,
    turns_of,
)

__all__ = [
    "MaxConsecutive",
    "NoToolLoops",
    "OnlyTools",
    "ToolBefore",
    "ToolNeverAfter",
    "ToolOnlyAfterResult",
]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED

Marks = list[bool | None]
"""Per call: True/False when it is/is not the event a role looks for, None when undecided."""

_TOOL_DOC = "a tool name, or {tool, arguments} with argument matchers"


def _expected(value: Any, what: str, regex_timeout: float) -> ExpectedCall:
    """Read a tool given as a name, an `ExpectedCall` or a mapping (`name` spells `tool`)."""
    if isinstance(value, Mapping) and "name" in value:
        if "tool" in value:
            raise ValueError(f"{what}: give the tool as 'tool' or 'name', not both")
        value = {("tool" if k == "name" else k): v for k, v in value.items()}
    return ExpectedCall.coerce(value, what, regex_timeout=regex_timeout)


def _label(expected: ExpectedCall) -> str:
    if expected.arguments is None:
        return f"'{expected.tool}'"
    args = json.dumps(render_arguments(expected.arguments), ensure_ascii=False, default=str)
    return f"'{expected.tool}' with {shorten(args, 60)}"


def _where(calls: Sequence[LocatedCall], j: int) -> str:
    return f"'{calls[j].call.name}' ({calls[j].location})"


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return True if a and b else None


class _Undecided:
    """What kept calls undecided: unreadable arguments, regex timeouts, missing results."""

    __slots__ = ("missing", "timeouts")

    def __init__(self) -> None:
        self.timeouts: list[RegexTimeoutError] = []
        self.missing: set[int] = set()


class _Fold:
    """A policy's fold so far: its calls, the calls left undecided, and the state of its rule
    in the reading of those calls that helps it most (`best`) and hurts it most (`worst`)."""

    __slots__ = ("best", "calls", "open", "why", "worst")

    def __init__(self, best: Tally, worst: Tally) -> None:
        self.calls: list[LocatedCall] = []
        self.open: list[int] = []
        self.why = _Undecided()
        self.best = best
        self.worst = worst


class _PolicyCheck(CallCheck):
    """Shared parts of the tool policies: a fold of a per-call step, in the best and worst
    reading.

    A subclass gives, for each call, the mark of every role it plays (`_cells`: True/False,
    None when undecided) and whether more marked calls help the check (`True`) or hurt it
    (`False`); its rule is a fold over the calls in order: `_begin` (the state before any
    call), `_step` (one call, with plain boolean marks), `_status` (the outcome so far) and
    `_conclude` (the result). With undecided marks the rule is folded twice, for the reading
    that helps it most and the one that hurts it most; if they differ, the result is an
    `error`. The offline check folds every call of its subject; a monitor of a running agent
    folds each call as it comes (`_fold_start`, `_fold_call`), the same step.
    """

    __slots__ = ()
    options = ("regex_timeout",)

    def _cells(self, call: LocatedCall, why: _Undecided) -> list[tuple[bool | None, bool]]:
        raise NotImplementedError

    def _begin(self) -> Tally:
        raise NotImplementedError

    def _step(self, state: Any, j: int, marks: list[bool], calls: Sequence[LocatedCall]) -> bool:
        """Fold call `j`; True when it violates the rule."""
        raise NotImplementedError

    def _status(self, state: Any) -> Status:
        raise NotImplementedError

    def _conclude(self, state: Any, calls: Sequence[LocatedCall], subject: object) -> Result:
        raise NotImplementedError

    def _check(self, subject: object) -> Result:
        fold = self._fold_start()
        for c in located_calls(subject):
            self._fold_call(fold, c)
        return self._fold_end(fold, subject)

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> _Fold:
        return _Fold(self._begin(), self._begin())

    def _fold_call(self, fold: _Fold, call: LocatedCall) -> bool:
        """Fold one call; True when it violates the rule in some reading."""
        j = len(fold.calls)
        fold.calls.append(call)
        cells = self._cells(call, fold.why)
        if any(m is None for m, _ in cells):
            fold.open.append(j)
        best = [m is True or (m is None and up) for m, up in cells]
        worst = [m is True or (m is None and not up) for m, up in cells]
        hurt = self._step(fold.best, j, best, fold.calls)
        return self._step(fold.worst, j, worst, fold.calls) or hurt

    def _fold_end(self, fold: _Fold, subject: object) -> Result:
        calls = fold.calls
        best = self._conclude(fold.best, calls, subject)
        if not fold.open or best.status is _F:
            return best
        worst = self._conclude(fold.worst, calls, subject)
        if worst.status is best.status:
            return worst
        return self._undecided(calls, fold.open, fold.why, dict(worst.details))

    def _fold_now(self, fold: _Fold) -> str:
        """The outcome of the calls so far, as `_fold_end` would give it."""
        best = self._status(fold.best)
        if not fold.open or best is _F:
            return best.value
        worst = self._status(fold.worst)
        return worst.value if worst is best else _E.value

    def _fold_settled(self, fold: _Fold) -> str | None:
        """The outcome no later call can change: a failure in the reading that helps most."""
        return _F.value if self._status(fold.best) is _F else None

    def _fold_mark(self, fold: _Fold) -> tuple[Any, ...]:
        why = fold.why
        return (
            len(fold.calls),
            len(fold.open),
            len(why.timeouts),
            fold.best.mark(),
            fold.worst.mark(),
        )

    def _fold_undo(self, fold: _Fold, mark: tuple[Any, ...]) -> None:
        calls, open_, timeouts, best, worst = mark
        del fold.calls[calls:]
        del fold.open[open_:]
        del fold.why.timeouts[timeouts:]
        fold.best.undo(best)
        fold.worst.undo(worst)

    def _undecided(
        self,
        calls: Sequence[LocatedCall],
        open_calls: Sequence[int],
        why: _Undecided,
        details: dict[str, Any],
    ) -> Result:
        rows: list[dict[str, Any]] = []
        for j in open_calls:
            c = calls[j]
            row: dict[str, Any] = {"call": c.location, "tool": c.call.name}
            if c.call.arguments_error is not None:
                row.update(raw_arguments=c.call.raw_arguments, error=c.call.arguments_error)
            elif j in why.missing:
                row["error"] = "no result recorded"
            else:
                row["error"] = "timeout"
            rows.append(row)
        details["undecided"] = rows
        invalid = [j for j in open_calls if calls[j].call.arguments_error is not None]
        if invalid:
            c = calls[invalid[0]]
            reason = (
                f"cannot compare the arguments of '{c.call.name}' ({c.location}): "
                f"{c.call.arguments_error}"
            )
        elif any(j in why.missing for j in open_calls):
            j = next(j for j in open_calls if j in why.missing)
            reason = (
                f"cannot tell whether {_where(calls, j)} returned successfully: "
                "no result of it was recorded"
            )
        else:
            details.update(error="timeout", pattern=why.timeouts[0].pattern)
            reason = str(why.timeouts[0])
        return Result(_E, self.kind, reason, details)

    @staticmethod
    def _cell(pattern: CallPattern, call: LocatedCall, why: _Undecided) -> bool | None:
        try:
            return pattern.cell(call.call)
        except RegexTimeoutError as exc:  # undecided, like arguments that are not JSON
            why.timeouts.append(exc)
            return None

    @staticmethod
    def _marks(pattern: CallPattern, calls: Sequence[LocatedCall], why: _Undecided) -> Marks:
        out: Marks = []
        for c in calls:
            try:
                out.append(pattern.cell(c.call))
            except RegexTimeoutError as exc:  # undecided, like arguments that are not JSON
                why.timeouts.append(exc)
                out.append(None)
        return out


def _tool_param(name: str, doc: str) -> Param:
    return Param(name, "any", required=True, doc=f"{doc}: {_TOOL_DOC}")


class _PairPolicy(_PolicyCheck):
    """A policy relating calls of two tools (kept as expected calls and their patterns)."""

    __slots__ = ("_a", "_b")
    _a: CallPattern
    _b: CallPattern
    _names: ClassVar[tuple[str, str]] = ("", "")

    def _init_pair(self, a: Any, b: Any, regex_timeout: float) -> None:
        first, second = self._names
        self._set(first, _expected(a, first, regex_timeout))
        self._set(second, _expected(b, second, regex_timeout))
        self._set("_a", CallPattern.of(getattr(self, first)))
        self._set("_b", CallPattern.of(getattr(self, second)))

    def spec_params(self) -> dict[str, Any]:
        """Return the spec parameters, each tool in its spec form."""
        return {name: getattr(self, name).to_spec() for name in self._names}

    def _base_details(self) -> dict[str, Any]:
        return {name: getattr(self, name).to_spec() for name in self._names}


@register
class ToolBefore(_PairPolicy):
    """Passes when every call of `then` comes after (earlier in the subject) a call of `first`.

    The trigger is a call of `then`: without one the result is `skipped`. A failure names the
    call of `then` that came too early and the first call of `first` after it, if any.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="verify"), ToolCall(name="refund")])
        >>> ToolBefore("verify", "refund").check(turn).reason
        "every call of 'refund' came after a call of 'verify' (tool_calls[0])"
        >>> ToolBefore("verify", "refund").check(Turn()).status.value
        'skipped'
    """

    __slots__ = ("first", "then")
    kind = "tool_before"
    decided_early = on_calls("failed", note="a call of `then` before any `first` fails it for good")
    params = (
        _tool_param("first", "the tool that must be called first"),
        _tool_param("then", "the tool that may only be called after it (the trigger)"),
    )
    _names = ("first", "then")
    first: ExpectedCall
    then: ExpectedCall

    def __init__(
        self,
        first: str | ExpectedCall | Mapping[str, Any],
        then: str | ExpectedCall | Mapping[str, Any],
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._init_pair(first, then, regex_timeout)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"calls {_label(self.first)} before {_label(self.then)}"

    def _cells(self, call: LocatedCall, why: _Undecided) -> list[tuple[bool | None, bool]]:
        return [(self._cell(self._a, call, why), True), (self._cell(self._b, call, why), False)]

    def _begin(self) -> Tally:
        state = Tally()
        state.earliest = None  # the first call of `first`
        state.triggers = []  # the calls of `then`
        state.violations = []  # those that came before any call of `first`
        return state

    def _step(self, state: Any, j: int, marks: list[bool], calls: Sequence[LocatedCall]) -> bool:
        first, then = marks
        if first and state.earliest is None:
            state.earliest = j
        if not then:
            return False
        state.triggers.append(j)
        if state.earliest is None or state.earliest >= j:
            state.violations.append(j)
            return True
        return False

    def _status(self, state: Any) -> Status:
        return _F if state.violations else _P if state.triggers else _S

    def _conclude(self, state: Any, calls: Sequence[LocatedCall], subject: object) -> Result:
        details = self._base_details()
        triggers, earliest, violations = state.triggers, state.earliest, state.violations
        details["triggers"] = [calls[j].location for j in triggers]
        details["violations"] = [
            {
                "call": calls[j].location,
                "tool": calls[j].call.name,
                "first_call": None if earliest is None else calls[earliest].location,
            }
            for j in violations
        ]
        then_label, first_label = _label(self.then), _label(self.first)
        if not triggers:
            return Result(
                _S,
                self.kind,
                f"{then_label} was never called, so nothing had to come before it",
                details,
            )
        if not violations:
            assert earliest is not None
            return Result(
                _P,
                self.kind,
                f"every call of {then_label} came after a call of {first_label} "
                f"({calls[earliest].location})",
                details,
            )
        j = violations[0]
        if earliest is None:
            event = f"{_where(calls, j)} was called and '{self.first.tool}' never was"
        else:
            event = (
                f"{_where(calls, j)} came before the first '{self.first.tool}' "
                f"({calls[earliest].location})"
            )
        more = f"; and {len(violations) - 1} more" if len(violations) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected every call of {then_label} to come after a call of {first_label} "
            f"but {event}{more}",
            details,
        )


@register
class ToolNeverAfter(_PairPolicy):
    """Passes when `tool` is never called after a call of `after`.

    The trigger is a call of `after`: without one the result is `skipped`. A failure names the
    call of `tool` and the first call of `after` before it.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="confirm"), ToolCall(name="edit")])
        >>> ToolNeverAfter("edit", after="confirm").check(turn).reason
        "expected no call of 'edit' after a call of 'confirm' but 'edit' (tool_calls[1]) came \
after 'confirm' (tool_calls[0])"
    """

    __slots__ = ("after", "tool")
    kind = "tool_never_after"
    decided_early = on_calls("failed", note="a call of `tool` after `after` fails it for good")
    params = (
        _tool_param("tool", "the tool that must not be called"),
        _tool_param("after", "once this tool was called (the trigger)"),
    )
    _names = ("tool", "after")
    tool: ExpectedCall
    after: ExpectedCall

    def __init__(
        self,
        tool: str | ExpectedCall | Mapping[str, Any],
        after: str | ExpectedCall | Mapping[str, Any],
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._init_pair(tool, after, regex_timeout)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"never calls {_label(self.tool)} after {_label(self.after)}"

    def _cells(self, call: LocatedCall, why: _Undecided) -> list[tuple[bool | None, bool]]:
        return [(self._cell(self._a, call, why), False), (self._cell(self._b, call, why), False)]

    def _begin(self) -> Tally:
        state = Tally()
        state.start = None  # the first call of `after`
        state.violations = []  # the calls of `tool` after it
        return state

    def _step(self, state: Any, j: int, marks: list[bool], calls: Sequence[LocatedCall]) -> bool:
        tool, after = marks
        if state.start is None:
            if after:
                state.start = j
            return False
        if tool:
            state.violations.append(j)
            return True
        return False

    def _status(self, state: Any) -> Status:
        return _S if state.start is None else _F if state.violations else _P

    def _conclude(self, state: Any, calls: Sequence[LocatedCall], subject: object) -> Result:
        details = self._base_details()
        start, violations = state.start, state.violations
        details["trigger"] = None if start is None else calls[start].location
        details["violations"] = [
            {
                "call": calls[j].location,
                "tool": calls[j].call.name,
                "after_call": calls[start].location,
            }
            for j in violations
            if start is not None
        ]
        tool_label, after_label = _label(self.tool), _label(self.after)
        if start is None:
            return Result(
                _S,
                self.kind,
                f"{after_label} was never called, so {tool_label} was never after it",
                details,
            )
        if not violations:
            return Result(
                _P,
                self.kind,
                f"no call of {tool_label} after {after_label} ({calls[start].location})",
                details,
            )
        more = f"; and {len(violations) - 1} more" if len(violations) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected no call of {tool_label} after a call of {after_label} but "
            f"{_where(calls, violations[0])} came after {_where(calls, start)}{more}",
            details,
        )


def _timeline(subject: object) -> list[tuple[tuple[int, float], tuple[int, float]]]:
    """For each call, in `located_calls` order: when it was made and when its result came.

    A turn with `messages` orders by message: a call is made in its assistant message and
    returns in its `tool` message (calls of one message are made together, before any of
    their results). Otherwise each call returns before the next one is made.
    """
    out: list[tuple[tuple[int, float], tuple[int, float]]] = []
    for index, turn in turns_of(subject):
        t = index or 0
        out.extend(((t, a), (t, b)) for a, b in _turn_timeline(turn))
    return out


def _turn_timeline(turn: Turn) -> list[tuple[float, float]]:
    n = len(turn.tool_calls)
    if turn.messages:
        made = [float(i) for i, m in enumerate(turn.messages) if m.role == "assistant"
                for _ in m.tool_calls]  # fmt: skip
        back = [float(i) for i, m in enumerate(turn.messages) if m.role == "tool"]
        if len(made) == n and len(back) == len(turn.tool_results):
            position = {id(r): k for k, r in enumerate(turn.tool_results)}
            return [
                (made[j], made[j] + 0.5 if r is None else back[position[id(r)]])
                for j, (_, r) in enumerate(turn.call_results)
            ]
    return [(float(j), j + 0.5) for j in range(n)]


@register
class ToolOnlyAfterResult(_PairPolicy):
    """Passes when every call of `tool` comes after a successful result of `result_of`.

    A result is paired with its call by id, else by order. It is successful when it is not an
    error as `NoToolErrors` counts errors (`is_error`, an `Error:` text, an `error` key). It
    comes before a call when its `tool` message precedes the call's assistant message (a turn
    with messages), or when its own call precedes the call (a turn without). The trigger is a
    call of `tool`: without one the result is `skipped`. A call of `result_of` without a
    recorded result is an `error` when the outcome depends on it.

    Example:
        >>> from chatassert import ToolCall, ToolResult, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="check", id="1"), ToolCall(name="refund")],
        ...             tool_results=[ToolResult(call_id="1", content="Error: not eligible")])
        >>> ToolOnlyAfterResult("refund", result_of="check").check(turn).reason
        "expected every call of 'refund' to come after a successful result of 'check' but \
'refund' (tool_calls[1]) came after 'check' (tool_calls[0]) returned an error"
    """

    __slots__ = ("result_of", "tool")
    kind = "tool_only_after_result"
    decided_early = on_calls(
        "failed",
        reads=("call", "result"),
        note="folded call by call and result by result (a set of results seen); a call of "
        "`tool` with no successful result of `result_of` back before it fails it for good",
    )
    params = (
        _tool_param("tool", "the tool that may only be called after the result (the trigger)"),
        _tool_param("result_of", "the tool whose successful result must come first"),
    )
    _names = ("tool", "result_of")
    tool: ExpectedCall
    result_of: ExpectedCall

    def __init__(
        self,
        tool: str | ExpectedCall | Mapping[str, Any],
        result_of: str | ExpectedCall | Mapping[str, Any],
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._init_pair(tool, result_of, regex_timeout)

    def describe(self) -> str:
        """Describe the requirement."""
        return (
            f"calls {_label(self.tool)} only after a successful result of {_label(self.result_of)}"
        )

    def _check(self, subject: object) -> Result:
        # Its calls are decided by when results came back: the fold takes the calls and the
        # results in the order they happened (a call without a recorded result returns just
        # after its message, as `_timeline` has it).
        calls = located_calls(subject)
        times = _timeline(subject)
        events = sorted(  # a result logged before its own call came back once it was made
            [(made, 0, j) for j, (made, _) in enumerate(times)]
            + [(max(made, back), 1, j) for j, (made, back) in enumerate(times)]
        )
        fold = self._fold_start()
        for _, what, j in events:
            if what == 0:
                self._step_call(fold, calls[j], times[j][0])
            else:
                self._fold_result(fold, j, calls[j].result)
        return self._fold_end(fold, subject)

    # -- the fold, shared by the offline check and a monitor ------------------------------
    #
    # Per reading (`best`, `worst`): `ok` (a successful result of `result_of` came back),
    # `triggers`, `violations` (each `(call, the last call of result_of before it)`),
    # `sources` and `last_source` (the calls of `result_of`), `hoped` (violations a monitor
    # cannot call final yet: a call of `result_of` in an earlier message had not returned,
    # and returns before the call if its result is never recorded). Shared: the calls, their
    # marks, what is undecided, and the calls of `result_of` not returned yet.

    def _fold_start(self) -> Tally:  # type: ignore[override]
        fold = Tally()
        fold.calls = []
        fold.marks = []  # (tool, result_of) per call: True/False, None when undecided
        fold.msgs = []  # the message that made each call
        fold.waits = []  # per call: whether it is a call of result_of in the best reading
        fold.returned = []  # per call: whether its result was folded
        fold.open = []  # the calls with an undecided mark
        fold.open_results = []  # the calls whose result's mark is undecided
        fold.why = _Undecided()
        fold.msg = None  # the message being made
        fold.unreturned = 0  # calls of result_of (best reading) not returned yet
        fold.in_msg = 0  # of those, the ones the current message made
        fold.best, fold.worst = self._begin(), self._begin()
        return fold

    def _begin(self) -> Tally:
        state = Tally()
        state.ok = False
        state.triggers = []
        state.violations = []
        state.hoped = []
        state.sources = []
        state.last_source = None
        return state

    def _fold_call(self, fold: Any, call: Any) -> bool:
        """Fold one call as a monitor records it (`LoggedCall`, made by message
        `call.message`); True when it violates the rule in some reading."""
        return self._step_call(fold, call, call.message)

    def _step_call(self, fold: Any, call: Any, made: object) -> bool:
        j = len(fold.calls)
        fold.calls.append(call)
        if made != fold.msg:
            fold.msg, fold.in_msg = made, 0
        why = fold.why
        source = self._cell(self._b, call, why)
        tool = self._cell(self._a, call, why)
        fold.marks.append((tool, source))
        fold.msgs.append(made)
        if tool is None or source is None:
            fold.open.append(j)
        hoped = fold.unreturned > fold.in_msg
        blamed = False
        for state, up in ((fold.best, True), (fold.worst, False)):
            if tool is True or (tool is None and not up):
                state.triggers.append(j)
                if not state.ok:
                    state.violations.append((j, state.last_source))
                    if up and hoped:
                        state.hoped.append(j)
                    blamed = True
            if source is True or (source is None and up):
                state.last_source = j
                state.sources.append(j)
        waits = source is not False
        fold.waits.append(waits)
        fold.returned.append(False)
        if waits:
            fold.unreturned += 1
            fold.in_msg += 1
        return blamed

    def _fold_result(self, fold: Any, i: int, result: ToolResult | None) -> None:
        """Fold the result of call `i` as it comes back (None: it was never recorded)."""
        if fold.returned[i]:
            return
        fold.returned[i] = True
        if fold.waits[i]:
            fold.unreturned -= 1
            if fold.msgs[i] == fold.msg:
                fold.in_msg -= 1
        source = fold.marks[i][1]
        if result is None:
            if source is not False:
                fold.why.missing.add(i)
            ok = _and(source, None)
        else:
            ok = _and(source, error_flag(result) is None)
        if ok is None:
            fold.open_results.append(i)
        if ok is True or ok is None:
            fold.best.ok = True
        if ok is True:
            fold.worst.ok = True

    def _status(self, state: Any) -> Status:
        return _F if state.violations else _P if state.triggers else _S

    def _fold_end(self, fold: Any, subject: object) -> Result:
        calls = fold.calls
        best = self._conclude(fold.best, calls, subject)
        if not (fold.open or fold.open_results) or best.status is _F:
            return best
        worst = self._conclude(fold.worst, calls, subject)
        if worst.status is best.status:
            return worst
        open_calls = sorted({*fold.open, *fold.open_results})
        return self._undecided(calls, open_calls, fold.why, dict(worst.details))

    def _fold_now(self, fold: Any) -> str:
        """The outcome of the conversation so far (a call of `result_of` not returned yet
        counts as returned without a recorded result)."""
        best = fold.best
        if len(best.violations) > len(best.hoped):
            return _F.value
        high = _P if best.triggers else _S
        low = self._status(fold.worst)
        return low.value if low is high else _E.value

    def _fold_settled(self, fold: Any) -> str | None:
        """Failed for good: a violation in the best reading that no result can undo."""
        best = fold.best
        return _F.value if len(best.violations) > len(best.hoped) else None

    def _fold_mark(self, fold: Any) -> tuple[Any, ...]:
        return fold.mark(), fold.best.mark(), fold.worst.mark(), len(fold.why.timeouts)

    def _fold_undo(self, fold: Any, mark: tuple[Any, ...]) -> None:
        own, best, worst, timeouts = mark
        fold.undo(own)
        fold.best.undo(best)
        fold.worst.undo(worst)
        del fold.why.timeouts[timeouts:]

    def _conclude(self, state: Any, calls: Sequence[LocatedCall], subject: object) -> Result:
        details = self._base_details()
        details["triggers"] = [calls[j].location for j in state.triggers]
        rows: list[dict[str, Any]] = []
        first_text = ""
        for j, last in state.violations:
            if last is None:
                k = bisect_right(state.sources, j)
                later = state.sources[k] if k < len(state.sources) else None
                rows.append({"call": calls[j].location, "tool": calls[j].call.name,
                             "result_of_call": None if later is None else calls[later].location,
                             "problem": "not_called_before"})  # fmt: skip
                text = f"{_where(calls, j)} came before any call of '{self.result_of.tool}'"
                if later is not None:
                    text += f" (the first is {calls[later].location})"
            else:
                i = last
                result = calls[i].result
                if result is not None and error_flag(result) is not None:
                    problem, what = "error", "returned an error"
                elif result is None:
                    problem, what = "no_result", "has no recorded result"
                else:
                    problem, what = "not_returned", "had not returned yet"
                rows.append({"call": calls[j].location, "tool": calls[j].call.name,
                             "result_of_call": calls[i].location, "problem": problem})  # fmt: skip
                text = f"{_where(calls, j)} came after {_where(calls, i)} {what}"
            first_text = first_text or text
        triggers = state.triggers
        details["violations"] = rows
        tool_label, source_label = _label(self.tool), _label(self.result_of)
        if not triggers:
            return Result(
                _S,
                self.kind,
                f"{tool_label} was never called, so no result had to come before it",
                details,
            )
        if not rows:
            return Result(
                _P,
                self.kind,
                f"every call of {tool_label} came after a successful result of {source_label}",
                details,
            )
        more = f"; and {len(rows) - 1} more" if len(rows) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected every call of {tool_label} to come after a successful result of "
            f"{source_label} but {first_text}{more}",
            details,
        )


@register
class OnlyTools(_PolicyCheck):
    """Passes when every call is of one of the `allowed` tools (an allow-list).

    Each allowed tool is a name or `{tool, arguments}`; a call is allowed when it matches one.
    There is no trigger: a subject without calls passes. `tools_not_called` is the deny-list.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="search"), ToolCall(name="delete_user")])
        >>> OnlyTools(["search", "fetch"]).check(turn).reason
        "expected only calls of ['search', 'fetch'] but 'delete_user' (tool_calls[1]) is not \
one of them"
    """

    __slots__ = ("_patterns", "allowed")
    kind = "only_tools"
    decided_early = on_calls("failed", note="a call of another tool fails it for good")
    params = (
        Param(
            "allowed",
            "any",
            required=True,
            doc=f"the tools that may be called, each {_TOOL_DOC}",
        ),
    )
    allowed: tuple[ExpectedCall, ...]
    _patterns: tuple[CallPattern, ...]

    def __init__(
        self,
        allowed: Sequence[str | ExpectedCall | Mapping[str, Any]] | str,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        if isinstance(allowed, str | ExpectedCall | Mapping):
            allowed = [allowed]
        if not isinstance(allowed, Sequence) or not allowed:
            raise ValueError(
                f"allowed must be a non-empty list of tools ({_TOOL_DOC}), got {allowed!r}"
            )
        parsed = tuple(_expected(a, f"allowed[{i}]", regex_timeout) for i, a in enumerate(allowed))
        self._set("allowed", parsed)
        self._set("_patterns", tuple(CallPattern.of(a) for a in parsed))

    def spec_params(self) -> dict[str, Any]:
        """Return the spec parameters, each tool in its spec form."""
        return {"allowed": [a.to_spec() for a in self.allowed]}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"calls only {', '.join(_label(a) for a in self.allowed)}"

    def _cells(self, call: LocatedCall, why: _Undecided) -> list[tuple[bool | None, bool]]:
        cells = [self._cell(p, call, why) for p in self._patterns]
        return [(True if True in cells else None if None in cells else False, True)]

    def _begin(self) -> Tally:
        state = Tally()
        state.bad = []  # the calls of no allowed tool
        return state

    def _step(self, state: Any, j: int, marks: list[bool], calls: Sequence[LocatedCall]) -> bool:
        if marks[0]:
            return False
        state.bad.append(j)
        return True

    def _status(self, state: Any) -> Status:
        return _F if state.bad else _P

    def _conclude(self, state: Any, calls: Sequence[LocatedCall], subject: object) -> Result:
        bad = state.bad
        names = [a.tool for a in self.allowed]
        details: dict[str, Any] = {
            "allowed": [a.to_spec() for a in self.allowed],
            "calls": len(calls),
            "disallowed": [{"call": calls[j].location, "tool": calls[j].call.name} for j in bad],
        }
        if not bad:
            text = f"all {len(calls)} calls were allowed" if calls else "no tool was called"
            return Result(_P, self.kind, text, details)
        more = f"; and {len(bad) - 1} more" if len(bad) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected only calls of {names} but {_where(calls, bad[0])} is not one of them{more}",
            details,
        )


@register
class MaxConsecutive(_PolicyCheck):
    """Passes when `tool` is never called more than `max` times in a row.

    Calls are consecutive when no other call comes between them; in a conversation the calls
    of all turns form one sequence (check each turn on its own with `OnEveryTurn`). There is
    no trigger: a subject without calls of `tool` passes. A failure names the first and the
    last call of the first run that is too long.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="search")] * 3)
        >>> MaxConsecutive("search", 2).check(turn).reason
        "expected at most 2 consecutive calls of 'search' but it was called 3 times in a row \
(tool_calls[0] … tool_calls[2])"
    """

    __slots__ = ("_pattern", "max", "tool")
    kind = "max_consecutive_calls"
    decided_early = on_calls("failed", note="a run longer than `max` fails it for good")
    params = (
        _tool_param("tool", "the tool whose runs are limited"),
        Param("max", "int", required=True, doc="the most calls of it in a row"),
    )
    tool: ExpectedCall
    max: int
    _pattern: CallPattern

    def __init__(
        self,
        tool: str | ExpectedCall | Mapping[str, Any],
        max: int,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set("tool", _expected(tool, "tool", regex_timeout))
        self._set("max", checked_count(max, "max"))
        self._set("_pattern", CallPattern.of(self.tool))

    def spec_params(self) -> dict[str, Any]:
        """Return the spec parameters, the tool in its spec form."""
        return {"tool": self.tool.to_spec(), "max": self.max}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"calls {_label(self.tool)} at most {self.max} times in a row"

    def _cells(self, call: LocatedCall, why: _Undecided) -> list[tuple[bool | None, bool]]:
        return [(self._cell(self._pattern, call, why), False)]

    def _begin(self) -> Tally:
        state = Tally()
        state.calls = 0
        state.start = None  # where the run of calls of `tool` going on began
        state.runs = []  # the runs that ended, (first, last)
        state.too_long = False  # whether a run went over `max`
        return state

    def _step(self, state: Any, j: int, marks: list[bool], calls: Sequence[LocatedCall]) -> bool:
        state.calls = j + 1
        if marks[0]:
            if state.start is None:
                state.start = j
            if j - state.start + 1 > self.max:
                state.too_long = True
                return True
            return False
        if state.start is not None:
            state.runs.append((state.start, j - 1))
            state.start = None
        return False

    def _status(self, state: Any) -> Status:
        return _F if state.too_long else _P

    @staticmethod
    def _runs(state: Any) -> list[tuple[int, int]]:
        runs: list[tuple[int, int]] = state.runs
        return runs if state.start is None else [*runs, (state.start, state.calls - 1)]

    def _conclude(self, state: Any, calls: Sequence[LocatedCall], subject: object) -> Result:
        runs = self._runs(state)
        longest = max((b - a + 1 for a, b in runs), default=0)
        long = [(a, b) for a, b in runs if b - a + 1 > self.max]
        details: dict[str, Any] = {
            "tool": self.tool.to_spec(),
            "max": self.max,
            "longest": longest,
            "violations": [
                {
                    "count": b - a + 1,
                    "from": calls[a].location,
                    "to": calls[b].location,
                    "calls": [calls[k].location for k in range(a, b + 1)],
                }
                for a, b in long
            ],
        }
        label = _label(self.tool)
        if not long:
            return Result(_P, self.kind, f"at most {longest} consecutive calls of {label}", details)
        a, b = long[0]
        more = f"; and {len(long) - 1} more run(s)" if len(long) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected at most {self.max} consecutive calls of {label} but it was called "
            f"{b - a + 1} times in a row ({calls[a].location} … {calls[b].location}){more}",
            details,
        )


@register
class NoToolLoops(CallCheck):
    """Passes when no call is repeated within `window` consecutive calls (a loop).

    Two calls repeat when they have the same name and, with `same_args` (the default), the
    same arguments: JSON-equal without `ignore_keys`, as `no_repeated_calls` compares them
    (arguments that are not valid JSON compare as their raw text, so this check never needs
    to read them). A call repeats within the window when fewer than `window` calls separate
    it from the earlier one: `window: 2` forbids the same call twice in a row. There is no
    trigger. A failure names both calls.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> a, b = ToolCall(name="search", arguments={"q": "x"}), ToolCall(name="fetch")
        >>> NoToolLoops(3).check(Turn(tool_calls=[a, b, a])).reason
        'expected no call repeated within 3 consecutive calls but \\'search\\' (tool_calls[0]) \
was repeated at tool_calls[2] with the same arguments {"q": "x"}'
    """

    __slots__ = ("ignore_keys", "same_args", "window")
    kind = "no_tool_loops"
    decided_early = on_calls("failed", note="a call repeated within the window fails it for good")
    params = (
        Param("window", "int", required=True, doc="how many consecutive calls are looked at (≥ 2)"),
        Param("same_args", "bool", default=True, doc="whether a repeat needs the same arguments"),
        Param(
            "ignore_keys",
            "str_list",
            default=(),
            allow_empty=True,
            doc="argument paths left out when comparing calls (with same_args)",
        ),
    )
    window: int
    same_args: bool
    ignore_keys: tuple[str, ...]

    def __init__(
        self,
        window: int,
        same_args: bool = True,
        *,
        ignore_keys: Sequence[str] = (),
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        size = checked_count(window, "window")
        if size is None or size < 2:
            raise ValueError(f"window must be at least 2 (two calls), got {window}")
        if not isinstance(same_args, bool):
            raise TypeError(f"same_args must be true or false, got {same_args!r}")
        keys = check_keys(ignore_keys, "ignore_keys")
        if keys and not same_args:
            raise ValueError("ignore_keys compares arguments, which needs same_args: true")
        self._set("window", size)
        self._set("same_args", same_args)
        self._set("ignore_keys", keys)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"repeats no call within {self.window} consecutive calls"

    def _check(self, subject: object) -> Result:
        fold = self._fold_start()
        for c in located_calls(subject):
            self._fold_call(fold, c)
        return self._fold_end(fold, subject)

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.calls = []
        state.last = {}  # each call's key: where it was made last
        state.changed = []  # (key, where it was before) for each call, to undo
        state.loops = []  # (earlier call, repeat)
        return state

    def _fold_call(self, state: Any, call: LocatedCall) -> bool:
        """Fold one call; True when it repeats a call within the window."""
        j = len(state.calls)
        state.calls.append(call)
        k = call_key(call.call, self.ignore_keys) if self.same_args else call.call.name
        i = state.last.get(k)
        state.changed.append((k, i))
        state.last[k] = j
        if i is not None and j - i < self.window:
            state.loops.append((i, j))
            return True
        return False

    def _fold_now(self, state: Any) -> str:
        return (_F if state.loops else _P).value

    def _fold_settled(self, state: Any) -> str | None:
        return _F.value if state.loops else None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: Mapping[str, Any]) -> None:
        for k, i in reversed(state.changed[mark["changed"] :]):
            if i is None:
                del state.last[k]
            else:
                state.last[k] = i
        state.undo(mark)

    def _fold_end(self, state: Any, subject: object) -> Result:
        calls, loops = state.calls, state.loops
        details: dict[str, Any] = {
            "window": self.window,
            "same_args": self.same_args,
            "loops": [
                {
                    "tool": calls[j].call.name,
                    "call": calls[i].location,
                    "repeat": calls[j].location,
                    "distance": j - i,
                }
                for i, j in loops
            ],
        }
        if self.ignore_keys:
            details["ignore_keys"] = list(self.ignore_keys)
        if not loops:
            return Result(_P, self.kind, self._held(), details)
        i, j = loops[0]
        args = ""
        if self.same_args:
            c = calls[i].call
            shown = (
                c.raw_arguments
                if c.arguments_error is not None
                else json.dumps(c.arguments, ensure_ascii=False, sort_keys=True, default=str)
            )
            args = f" with the same arguments {shorten(shown or '', 80)}"
        more = f"; and {len(loops) - 1} more" if len(loops) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected no call repeated within {self.window} consecutive calls but "
            f"{_where(calls, i)} was repeated at {calls[j].location}{args}{more}",
            details,
        )
