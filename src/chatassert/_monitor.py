"""The engine of `chatassert.monitor`: each check tracked as a tree of nodes, one per
assertion, each deciding as early as its class declares (`Assertion.decided_early`).

A node's state is an outcome once no later event can change it (`final`), else `pending`.
Leaves follow their `Early`: `finish` ones stay pending; `prefix` ones are checked on the
conversation so far after an event they read, final on an outcome their class lists; `calls`
ones fold each call with their class's own step (`_fold_start`, `_fold_call`,
`_fold_settled`: the same step the offline check folds), O(1) amortised per event.
Combinators combine their children's states by the Kleene rules of the offline combinators,
with `pending` as a fifth state: `AllOf` is failed for good as soon as a child is, `AnyOf`
passed as soon as a child is, `Not` swaps, `When` follows its condition, `AtLeast` counts,
and the turn selectors decide on turns that a later user message has closed.

The result a final node carries is its check on the conversation at the moment it was
decided (its evidence then); `finish` checks the whole conversation offline, so its tree is
the offline tree by construction, and a final state's outcome is the one `finish` gives.

Tests: tests/monitor/.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from chatassert._base import (
    AllOf,
    AnyOf,
    Assertion,
    Not,
    _parts as parts_of,
    reads_history_of,
    spec_of,
)
from chatassert._combinators import AtLeast, OnAnyTurn, OnEveryTurn, OnLastTurn, OnTurn, When
from chatassert._history import checked_at
from chatassert._models import Conversation, ToolResult, Turn
from chatassert._monitor_log import EventLog, LoggedCall
from chatassert._result import Result, Status
from chatassert._suite import Case, TurnSpec, _skipped, turn_result

__all__ = ["Ctx", "Node", "NodeState", "PENDING", "build_node", "case_turn_nodes", "label_of"]

PENDING = "pending"

_P, _F, _E, _S = "passed", "failed", "error", "skipped"


@dataclass(frozen=True, slots=True)
class NodeState:
    """A node's state after an event.

    Attributes:
        status: The outcome once final, else `pending`.
        final: Whether no later event can change the outcome.
        result: The check's result on the conversation when it was decided (None while
            pending).
        provisional: The outcome on the conversation so far, when the node computed one (a
            `prefix` leaf's check, a `calls` leaf's error): how `permits` tells that a call
            made a check err.
        blamed: Whether the last call folded violates the check by itself (`calls` leaves).
    """

    status: str
    final: bool = False
    result: Result | None = None
    provisional: str | None = None
    blamed: bool = False


_OPEN = NodeState(PENDING)


@dataclass
class Ctx:
    """What one event did, as the nodes see it.

    Attributes:
        log: The events so far.
        kind: The kind of the event (`_early.EVENTS`), None for the first evaluation.
        calls: The calls the event made.
        commit: False while `permits` asks about a call: nodes keep nothing of it.
        results: The results the event recorded, each with the number of the call it pairs
            with for good (None when that is not settled yet: `EventLog.results`).
    """

    log: EventLog
    kind: str | None
    calls: Sequence[LoggedCall] = ()
    commit: bool = True
    results: Sequence[tuple[int | None, ToolResult]] = ()

    def conversation(self) -> Conversation:
        """The conversation so far."""
        return self.log.conversation()

    def subject(self) -> object:
        """What the nodes check: the conversation so far."""
        return self.log.conversation()


class _TurnCtx(Ctx):
    """The event as a check of the open turn sees it: its calls and results numbered from the
    turn's first call, and the open turn as what is checked."""

    def __init__(self, ctx: Ctx, turn: int, first: int) -> None:
        results = [(None if n is None else n - first, r) for n, r in ctx.results]
        super().__init__(ctx.log, ctx.kind, ctx.calls, ctx.commit, results)
        self.turn = turn

    def subject(self) -> object:
        """The open turn, as the turn selectors check a turn."""
        return self.log.conversation().turns[self.turn]


def label_of(assertion: Assertion) -> str:
    """The check's label as reports name it: its name in its spec file, else its kind."""
    place = spec_of(assertion)
    return place.name if place is not None else assertion.kind


class Node:
    """One assertion tracked event by event."""

    def __init__(self, assertion: Assertion) -> None:
        self.assertion = assertion
        self.state = _OPEN

    def children(self) -> tuple[Node, ...]:
        """The nodes of the parts this node combines."""
        return ()

    def update(self, ctx: Ctx) -> NodeState:
        """The state after the event in `ctx` (kept when `ctx.commit`)."""
        if self.state.final:
            return self.state
        new = self._evaluate(ctx)
        if ctx.commit:
            self.state = new
        return new

    def _evaluate(self, ctx: Ctx) -> NodeState:
        return _OPEN

    def blamed_now(self, blamed: bool, ctx: Ctx) -> NodeState:
        """The decided state, saying whether the event's calls break the check again (kept
        when `ctx.commit`)."""
        if blamed is self.state.blamed:
            return self.state
        state = replace(self.state, blamed=blamed)
        if ctx.commit:
            self.state = state
        return state

    def rollback(self) -> None:
        """Forget what `update` did without committing (a fold's journal)."""
        for child in self.children():
            child.rollback()

    def decide(self, status: str, ctx: Ctx) -> NodeState:
        """The final state `status`, with the check's result on the conversation so far."""
        return NodeState(status, True, self.assertion.check(ctx.subject()), status)

    def evidence(self, ctx: Ctx) -> Result:
        """The check's result on the conversation so far (what `permits` shows for a call
        that makes it an error)."""
        return self.assertion.check(ctx.conversation())

    def at_finish(self) -> list[str]:
        """The labels of the leaves under this node that are only decided at finish."""
        out: list[str] = []
        for child in self.children():
            out.extend(child.at_finish())
        return out


class _Pending(Node):
    """A check decided only at finish."""

    def at_finish(self) -> list[str]:
        return [label_of(self.assertion)]


class _Prefix(Node):
    """A check checked on the conversation so far after an event it reads."""

    def __init__(self, assertion: Assertion) -> None:
        super().__init__(assertion)
        early = type(assertion).decided_early
        self.final = early.final
        self.reads = early.reads

    def _evaluate(self, ctx: Ctx) -> NodeState:
        if ctx.kind is not None and ctx.kind not in self.reads and self.state is not _OPEN:
            return self.state
        subject = ctx.subject()
        result = self.assertion.check(subject)
        status = result.status.value
        if status in self.final and self._holds(status, subject):
            return NodeState(status, True, result, status)
        return NodeState(PENDING, provisional=status)

    def _holds(self, status: str, subject: object) -> bool:
        """Whether `status`, among the class's final outcomes, is final on this subject: a
        class whose failure is final only on some subjects says which
        (`_failed_for_good`)."""
        settled = getattr(self.assertion, "_failed_for_good", None)
        return settled is None or status != _F or bool(settled(subject))


class _Calls(_Prefix):
    """A check folded call by call with its class's step, and result by result when its
    class folds results too (`_fold_result`).

    A result whose call is not settled yet (`EventLog.results`: no id, or an id no call of
    the turn has yet) cannot be folded: from then on the check is checked again on the
    conversation so far after each event it reads, as a `prefix` check is (`lost`).
    """

    def __init__(self, assertion: Assertion) -> None:
        super().__init__(assertion)
        fold: Any = assertion
        self.fold = fold
        self.acc = fold._fold_start()
        self.mark: object = None
        self.results = hasattr(fold, "_fold_result")
        self.lost = False

    def _fold_results(self, ctx: Ctx) -> bool:
        """Fold the event's results; False when one of them cannot be (the node is lost)."""
        settled = True
        if self.results:
            for number, result in ctx.results:
                if number is None:
                    self.lost, settled = True, False
                else:
                    self.fold._fold_result(self.acc, number, result)
        return settled

    def update(self, ctx: Ctx) -> NodeState:
        """As `Node.update`; once decided for good, the calls of each event are still folded,
        to tell whether one of them violates the rule by itself (`blamed`: a second refund
        before the lookup is denied again), while a call the rule does not forbid is not
        blamed for the earlier failure."""
        if not self.state.final:
            return super().update(ctx)
        if ctx.commit:
            self._fold_results(ctx)  # paired results keep the fold's state for `blamed`
        blamed = False
        if ctx.calls:
            fold = self.fold
            if not ctx.commit:
                self.mark = fold._fold_mark(self.acc)
            for located in ctx.calls:
                try:
                    blamed = fold._fold_call(self.acc, located) or blamed
                except Exception:  # cannot tell: blamed, so the call is not let through
                    blamed = True
        return self.blamed_now(blamed, ctx)

    def _evaluate(self, ctx: Ctx) -> NodeState:
        self._fold_results(ctx)
        fold = self.fold
        if self.lost:  # the calls are still folded, for `blamed` once decided
            if ctx.calls and not ctx.commit:
                self.mark = fold._fold_mark(self.acc)
            for located in ctx.calls:
                try:
                    fold._fold_call(self.acc, located)
                except Exception:  # the check on the conversation says what it makes of it
                    break
            return super()._evaluate(ctx)
        if ctx.results:
            status = fold._fold_settled(self.acc)
            if status is not None and status in self.final:
                return self.decide(status, ctx)
            return NodeState(PENDING, provisional=fold._fold_now(self.acc))
        if not ctx.calls:
            return self.state
        if not ctx.commit:
            self.mark = fold._fold_mark(self.acc)
        blamed = False
        for located in ctx.calls:
            try:
                blamed = fold._fold_call(self.acc, located) or blamed
            except Exception:  # the offline check cannot get past this call either
                result = self.assertion.check(ctx.subject())
                return NodeState(result.status.value, True, result, result.status.value, True)
        status = fold._fold_settled(self.acc)
        if status is not None and status in self.final:
            return NodeState(status, True, self.assertion.check(ctx.subject()), status, blamed)
        return NodeState(PENDING, provisional=fold._fold_now(self.acc), blamed=blamed)

    def rollback(self) -> None:
        if self.mark is not None:
            self.fold._fold_undo(self.acc, self.mark)
            self.mark = None


class _Not(Node):
    def __init__(self, assertion: Not) -> None:
        super().__init__(assertion)
        self.child = build_node(assertion.child)

    def children(self) -> tuple[Node, ...]:
        return (self.child,)

    def _evaluate(self, ctx: Ctx) -> NodeState:
        inner = self.child.update(ctx)
        if not inner.final:
            return NodeState(PENDING, provisional=_swap(inner.provisional))
        return self.decide(_swap(inner.status) or inner.status, ctx)


def _swap(status: str | None) -> str | None:
    return {_P: _F, _F: _P}.get(status or "", status)


class _Group(Node):
    """`AllOf`, `AnyOf` and `AtLeast`: decided by their children's final states."""

    def __init__(self, assertion: AllOf | AnyOf | AtLeast) -> None:
        super().__init__(assertion)
        self.parts = tuple(build_node(c) for c in assertion.children)

    def children(self) -> tuple[Node, ...]:
        return self.parts

    def _evaluate(self, ctx: Ctx) -> NodeState:
        states = [p.update(ctx) for p in self.parts]
        final = [s.status for s in states if s.final]
        status = self._decided(final, len(states))
        if status is None:
            provisional = self._decided(
                [s.status if s.final else (s.provisional or PENDING) for s in states],
                len(states),
            )
            return NodeState(PENDING, provisional=provisional)
        return self.decide(status, ctx)

    def _decided(self, final: list[str], total: int) -> str | None:
        kind = type(self.assertion)
        everything = len(final) == total and PENDING not in final
        if kind is AllOf or issubclass(kind, AllOf):
            if _F in final:
                return _F
            if everything:
                return _E if _E in final else _P
            return None
        if kind is AnyOf or issubclass(kind, AnyOf):
            if _P in final:
                return _P
            if everything:
                return _E if _E in final else _F
            return None
        n: int = self.assertion.n  # type: ignore[attr-defined]
        passed = final.count(_P)
        if passed >= n:
            return _P
        out = final.count(_F) + final.count(_S)
        if total - out < n:  # not even every open child passing or erring would reach n
            return _F
        if everything:
            return _E
        return None


class _When(Node):
    def __init__(self, assertion: When) -> None:
        super().__init__(assertion)
        self.cond = build_node(assertion.condition)
        self.then = build_node(assertion.then)
        self.otherwise = None if assertion.otherwise is None else build_node(assertion.otherwise)

    def children(self) -> tuple[Node, ...]:
        nodes = (self.cond, self.then)
        return nodes if self.otherwise is None else (*nodes, self.otherwise)

    def _evaluate(self, ctx: Ctx) -> NodeState:
        cond = self.cond.update(ctx)
        then = self.then.update(ctx)
        otherwise = None if self.otherwise is None else self.otherwise.update(ctx)
        if not cond.final:
            return _OPEN
        if cond.status == _P:
            branch: NodeState | None = then
        elif cond.status == _F:
            branch = otherwise
            if branch is None:
                return self.decide(_S, ctx)
        else:
            return self.decide(cond.status, ctx)
        assert branch is not None
        if not branch.final:
            return NodeState(PENDING, provisional=branch.provisional)
        return self.decide(branch.status, ctx)


class _Turns(Node):
    """The turn selectors: a closed turn's outcome is final (a later user message closed it),
    and the open turn's is final as soon as its own node says so.

    The open turn is followed by a node of the child (`open`), built afresh for each turn
    and fed that turn's events with the turn as what it checks, when the child reads
    nothing before its turn and holds no turn selector of its own (`_follows_open_turn`).
    A turn only grows until a user message closes it, so an outcome final on the open turn
    is the child's outcome on that turn at finish: `on_every_turn` fails for good on a
    forbidden call (and `permits` denies it), `on_any_turn` passes for good, `on_turn` is
    decided on its turn. `on_last_turn` is not among them: its turn is only known at finish,
    and a later user message opens a turn no call made so far is part of.

    A node that reads one turn (`single`: `on_turn`, a suite case's turn, `_CaseTurn`)
    checks that turn alone once it is closed and follows it alone while it is open: a call
    in another turn neither decides it nor is blamed for it.
    """

    def __init__(self, assertion: Assertion, child: Assertion | None = None) -> None:
        super().__init__(assertion)
        self.child: Assertion = assertion.child if child is None else child  # type: ignore[attr-defined]
        self.history = reads_history_of(self.child)
        self.single = type(assertion) is OnTurn
        self.closed: list[str] = []  # the child's outcome on each closed turn (not `single`)
        self.follows = _follows_open_turn(self.child)
        self.open: Node | None = None  # the child's node on the open turn
        self.open_turn = -1  # the turn `open` follows
        self.first = 0  # the number of that turn's first call
        self.fresh: Node | None = None  # a node built while `permits` asks (kept nowhere)

    def _target(self, log: EventLog) -> int | None:
        """The turn a `single` node reads, None while it is not known (`on_turn` counting
        from the end reads a turn only known at finish)."""
        index: int = self.assertion.index  # type: ignore[attr-defined]
        return index if index >= 0 else None

    def _outcome(self, turns: Sequence[Turn], i: int) -> str:
        """The child's outcome on the closed turn `i`."""
        result = (
            checked_at(self.child.check, turns, i) if self.history else self.child.check(turns[i])
        )
        return result.status.value

    def _close(self, ctx: Ctx) -> None:
        closed = ctx.log.turn  # every turn before the current one is closed
        if self.single or len(self.closed) >= closed:
            return
        turns = ctx.conversation().turns
        while len(self.closed) < closed:
            self.closed.append(self._outcome(turns, len(self.closed)))

    def _on_open(self, ctx: Ctx) -> tuple[NodeState, NodeState] | None:
        """The open turn's node's state before and after the event (None: not followed)."""
        turn = ctx.log.turn
        if not self.follows or turn < 0:
            return None
        if self.single and self._target(ctx.log) != turn:
            return None
        node = self.open
        if node is None or self.open_turn != turn:
            node = build_node(self.child)
            first = len(ctx.log.calls) - ctx.log.calls_in_turn
            if ctx.commit:
                self.open, self.open_turn, self.first = node, turn, first
            else:
                self.fresh = node
                before = node.state
                return before, node.update(_TurnCtx(ctx, turn, first))
        before = node.state
        return before, node.update(_TurnCtx(ctx, turn, self.first))

    def update(self, ctx: Ctx) -> NodeState:
        """As `Node.update`; once decided for good, the open turn is still followed, to tell
        whether a call fails the child on its turn by itself (`blamed`: a second forbidden
        call, in a later turn, is denied again)."""
        if not self.state.final:
            return super().update(ctx)
        if ctx.kind == "user" and ctx.commit:
            self._close(ctx)
        seen = self._on_open(ctx)
        blamed = seen is not None and _breaks(*seen)
        return self.blamed_now(blamed, ctx)

    def rollback(self) -> None:
        self.fresh = None
        if self.open is not None:
            self.open.rollback()

    def _evaluate(self, ctx: Ctx) -> NodeState:
        seen = self._on_open(ctx)
        if seen is None and ctx.kind != "user" and self.state is not _OPEN:
            return self.state
        blamed = seen is not None and _breaks(*seen)
        if self.single:
            target = self._target(ctx.log)
            if target is None:
                return _OPEN
            if target < ctx.log.turn:  # a later user message closed it
                return self.decide(self._outcome(ctx.conversation().turns, target), ctx)
            if seen is None:
                return _OPEN
            now = seen[1]
            if now.final:
                return replace(self.decide(now.status, ctx), blamed=blamed)
            return NodeState(PENDING, provisional=now.provisional, blamed=blamed)
        if ctx.kind == "user" or self.state is _OPEN:
            self._close(ctx)
        kind = type(self.assertion)
        closed = self.closed
        if kind is OnEveryTurn and _F in closed:
            return self.decide(_F, ctx)
        if kind is OnAnyTurn and _P in closed:
            return self.decide(_P, ctx)
        if seen is None:
            return _OPEN
        now = seen[1]
        if now.final and now.status == (_F if kind is OnEveryTurn else _P):
            return replace(self.decide(now.status, ctx), blamed=blamed)
        outcomes = [*closed, now.status if now.final else (now.provisional or PENDING)]
        group = _every if kind is OnEveryTurn else _any
        return NodeState(PENDING, provisional=group(outcomes), blamed=blamed)


class _CaseTurn(_Turns):
    """One assertion of a suite case's turn, checked as `Case.check` checks it: on the turn
    the `index`-th user message started (the case's `index`-th turn pairs with the
    conversation's `index`-th user turn), its result placed in that turn's record
    (`turn_result`).

    A `single` turn reader: decided once a later user message closes its turn, or while the
    turn is open as soon as the assertion is final on it (a forbidden call: denied). Until
    that user message comes it stays pending: a conversation that never reaches the turn is
    the case's error at finish, never decided before.
    """

    def __init__(self, assertion: Assertion, index: int, spec: TurnSpec) -> None:
        super().__init__(assertion, assertion)
        self.single = True
        self.index = index
        self.spec = spec

    def _target(self, log: EventLog) -> int | None:
        return log.user_turn(self.index)

    def _outcome(self, turns: Sequence[Turn], i: int) -> str:
        return checked_at(self.child.check, turns, i).status.value

    def decide(self, status: str, ctx: Ctx) -> NodeState:
        return NodeState(status, True, self.evidence(ctx), status)

    def evidence(self, ctx: Ctx) -> Result:
        """The assertion's result on its turn so far, placed as the case's record places it."""
        return self.placed(ctx, lambda turns, i: checked_at(self.child.check, turns, i))

    def placed(self, ctx: Ctx, check: Callable[[Sequence[Turn], int], Result]) -> Result:
        """`check(turns, i)` on the case's turn `i`, placed in the turn's record."""
        position = ctx.log.user_turn(self.index)
        assert position is not None  # decided only on a turn the conversation has
        turns = ctx.conversation().turns
        result = check(turns, position)
        return turn_result(position, self.index, self.spec, turns[position], [result]).children[0]


class _FailFast(Node):
    """An assertion of a `fail_fast` case's turn after the first: the case skips it once an
    assertion before it on the turn failed or erred. So it is skipped for good once one of
    those is failed or an error for good, as its own `_CaseTurn` says once every one of them
    is final without either, and pending until then.
    """

    def __init__(self, assertion: Assertion, own: _CaseTurn, before: Sequence[Node]) -> None:
        super().__init__(assertion)
        self.own = own
        self.before = tuple(before)

    def children(self) -> tuple[Node, ...]:
        return (*self.before, self.own)

    def update(self, ctx: Ctx) -> NodeState:
        """As `Node.update`; once decided by its own assertion, that assertion's node still
        tells whether a call fails it again (`blamed`)."""
        if not self.state.final or self.state.status == _S:
            return super().update(ctx)
        blamed = self.own.update(ctx).blamed
        return self.blamed_now(blamed, ctx)

    def _evaluate(self, ctx: Ctx) -> NodeState:
        earlier = [node.update(ctx) for node in self.before]
        own = self.own.update(ctx)
        if any(s.final and s.status in (_F, _E) for s in earlier):
            skipped = self.own.placed(ctx, lambda turns, i: _skipped(self.assertion))
            return NodeState(_S, True, skipped, _S)
        if all(s.final for s in earlier):
            return own
        known = [s.provisional for s in earlier]
        provisional = _S if _F in known or _E in known else own.provisional
        return NodeState(PENDING, provisional=provisional, blamed=own.blamed)

    def evidence(self, ctx: Ctx) -> Result:
        return self.own.evidence(ctx)


def case_turn_nodes(case: Case) -> list[Node | None]:
    """A node for each assertion of the case's turns, in order (None: decided at finish, as
    a judged one is asked once then, and every one of a case with a workflow, whose state the
    case derives from the whole conversation)."""
    out: list[Node | None] = []
    for i, spec in enumerate(case.turns):
        before: list[Node] = []
        for assertion in spec.assertions:
            if assertion.needs_judge() or case.workflow is not None:
                out.append(None)
                before.append(_Pending(assertion))
                continue
            own = _CaseTurn(assertion, i, spec)
            if case.fail_fast and before:
                copies = [
                    n if isinstance(n, _Pending) else _CaseTurn(n.assertion, i, spec)
                    for n in before
                ]
                out.append(_FailFast(assertion, own, copies))
            else:
                out.append(own)
            before.append(own)
    return out


def _every(outcomes: list[str]) -> str | None:
    """`AllOf`'s outcome over turn outcomes, None while one is not known."""
    if _F in outcomes:
        return _F
    if PENDING in outcomes:
        return None
    return _E if _E in outcomes else _P


def _any(outcomes: list[str]) -> str | None:
    """`AnyOf`'s outcome over turn outcomes, None while one is not known."""
    if _P in outcomes:
        return _P
    if PENDING in outcomes:
        return None
    return _E if _E in outcomes else _F


def _breaks(before: NodeState, after: NodeState) -> bool:
    """Whether the event made the open turn fail the child for good, by itself."""
    return after.final and after.status == _F and (not before.final or after.blamed)


_SELECTORS = (OnTurn, OnEveryTurn, OnAnyTurn, OnLastTurn)


def _follows_open_turn(child: Assertion) -> bool:
    """Whether the open turn can be followed with a node of `child`: it reads nothing before
    its turn, asks no judge, and holds no turn selector (which would read turns, not a turn)."""
    if reads_history_of(child) or child.needs_judge():
        return False

    def selects(a: Assertion) -> bool:
        return isinstance(a, _SELECTORS) or any(selects(p) for p in parts_of(a))

    return not selects(child)


def build_node(assertion: Assertion) -> Node:
    """The node that tracks `assertion`: by its combinator, else by its `decided_early`."""
    if assertion.needs_judge():
        return _Pending(assertion)  # a judge is asked once, at finish
    kind = type(assertion)
    if kind is Not:
        return _Not(assertion)  # type: ignore[arg-type]
    if kind in (AllOf, AnyOf, AtLeast):
        return _Group(assertion)  # type: ignore[arg-type]
    if kind is When:
        return _When(assertion)  # type: ignore[arg-type]
    if kind in (OnTurn, OnEveryTurn, OnAnyTurn):
        return _Turns(assertion)
    how = kind.decided_early.how
    if how == "calls" and hasattr(assertion, "_fold_call"):
        return _Calls(assertion)
    if how in ("prefix", "calls"):
        return _Prefix(assertion)
    return _Pending(assertion)


def status_of(result: Result) -> str:
    """The outcome of a result, as a state's status."""
    return Status(result.status).value
