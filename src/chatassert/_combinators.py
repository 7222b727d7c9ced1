"""Combinators (AND, OR, NOT, conditional, at-least) and turn selectors over conversations.

Outcomes combine by Kleene logic over the four statuses. A skipped child is left out, so a
group in which nothing was evaluated behaves like an empty group: `AllOf` passes vacuously and
`AnyOf` fails (the expect vocabulary's `if_results` relies on this: no results, so the
conditional check is skipped and the test passes). These rules keep De Morgan's laws and the
identities `AllOf()` (passed) and `AnyOf()` (failed) exact over all four outcomes.

| combinator | passed when | failed when | otherwise |
|---|---|---|---|
| `AllOf` | no child failed or errored | any child failed | error |
| `AnyOf` | any child passed | every counted child failed | error |
| `Not` | the child failed | the child passed | the child's status |
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from chatassert._base import Assertion
from chatassert._judging import run_sync
from chatassert._models import Conversation, as_conversation
from chatassert._registry import Param, register
from chatassert._result import Result, Status

__all__ = [
    "AllOf",
    "AnyOf",
    "AtLeast",
    "Not",
    "OnAnyTurn",
    "OnEveryTurn",
    "OnLastTurn",
    "OnTurn",
    "When",
    "all_status",
    "any_status",
]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


def all_status(statuses: Sequence[Status]) -> Status:
    """Kleene AND: failed if any failed, else error if any errored, else passed.

    Skipped statuses are left out; with nothing left (no statuses, or only skipped ones) the
    outcome is passed, the identity of AND.
    """
    if _F in statuses:
        return _F
    if _E in statuses:
        return _E
    return _P


def any_status(statuses: Sequence[Status]) -> Status:
    """Kleene OR: passed if any passed, else error if any errored, else failed.

    Skipped statuses are left out; with nothing left (no statuses, or only skipped ones) the
    outcome is failed, the identity of OR.
    """
    if _P in statuses:
        return _P
    if _E in statuses:
        return _E
    return _F


def _count(results: Sequence[Result]) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for r in results:
        counts[r.status] += 1  # a StrEnum member finds its plain-string key
    return counts


def _first(results: Sequence[Result], status: Status) -> Result | None:
    return next((r for r in results if r.status is status), None)


def _where(result: Result) -> str:
    return f"{result.location}: " if result.location else ""


def _check_all(children: Sequence[Assertion], subject: object) -> list[Result]:
    return [child.check(subject) for child in children]


async def _acheck_all(children: Sequence[Assertion], subject: object) -> list[Result]:
    if not any(c.needs_judge() for c in children):
        return [child.check(subject) for child in children]
    return list(await asyncio.gather(*(child.acheck(subject) for child in children)))


class _Group(Assertion):
    """Shared machinery of combinators over a list of children."""

    _searches = True  # children may: all share one regex time budget

    __slots__ = ("_judged_inside", "children")

    level = "any"
    children: tuple[Assertion, ...]
    _judged_inside: bool

    def __init__(
        self,
        *children: Assertion,
        message: str | None = None,
        **kw: Sequence[Assertion],
    ) -> None:
        super().__init__(message=message)
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
        return self._combine(await _acheck_all(self.children, subject))

    def _combine(self, results: list[Result]) -> Result:
        raise NotImplementedError

    def describe(self) -> str:
        """Describe the group and its children."""
        inner = ", ".join(c.describe() for c in self.children)
        return f"{self.kind}({inner})"


@register
class AllOf(_Group):
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

    def _combine(self, results: list[Result]) -> Result:
        status = all_status([r.status for r in results])
        counts = _count(results)
        total = len(results)
        if status is _P:
            reason = (
                f"all {total} passed"
                if not counts["skipped"]
                else (f"{counts['passed']} passed, {counts['skipped']} skipped")
            )
        elif status is _F:
            first = _first(results, _F)
            assert first is not None
            reason = f"{counts['failed']} of {total} failed; first: {_where(first)}{first.reason}"
        elif status is _E:
            first = _first(results, _E)
            assert first is not None
            reason = f"{counts['error']} of {total} could not be evaluated: {first.reason}"
        return Result(status, self.kind, reason, counts, children=tuple(results))


@register
class AnyOf(_Group):
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

    def _combine(self, results: list[Result]) -> Result:
        status = any_status([r.status for r in results])
        counts = _count(results)
        total = len(results)
        if status is _P:
            first = _first(results, _P)
            assert first is not None
            reason = f"{_where(first)}{first.label} passed"
        elif status is _E:
            first = _first(results, _E)
            assert first is not None
            reason = f"none passed and {counts['error']} could not be evaluated: {first.reason}"
        elif counts["failed"]:
            reasons = "; ".join(f"{_where(r)}{r.reason}" for r in results if r.status is _F)
            reason = f"none of {total} passed: {reasons}"
        else:
            reason = f"nothing was evaluated (all {total} skipped)" if total else "no alternatives"
        return Result(status, self.kind, reason, counts, children=tuple(results))


@register
class AtLeast(_Group):
    """Passes when at least `n` children pass.

    Fails when even counting every errored child as a pass would not reach `n`; otherwise an
    error. The score is the fraction of counted children that passed.

    Example:
        >>> from chatassert import AtLeast, Contains
        >>> AtLeast(2, Contains("a"), Contains("b"), Contains("z")).check("ab").passed
        True
    """

    __slots__ = ("n",)
    kind = "at_least"
    params = (
        Param("n", "int", required=True, doc="how many must pass"),
        Param(
            "assertions",
            "assertions",
            required=True,
            aliases=("of",),
            attr="children",
            doc="the candidates",
        ),
    )
    n: int

    def __init__(
        self, n: int, *children: Assertion, message: str | None = None, **kw: Sequence[Assertion]
    ) -> None:
        super().__init__(*children, message=message, **kw)
        if not self.children:  # at least n of nothing: it could only pass vacuously (G4)
            raise ValueError("at_least needs at least one assertion")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        if n > len(self.children):
            raise ValueError(
                f"at_least needs n ({n}) no larger than the number of assertions "
                f"({len(self.children)}); it could never pass"
            )
        self._set("n", n)

    def _combine(self, results: list[Result]) -> Result:
        counts = _count(results)
        passed, errors = counts["passed"], counts["error"]
        counted = len(results) - counts["skipped"]
        if passed >= self.n:
            status = _P
            reason = f"{passed} of {len(results)} passed (needed {self.n})"
        elif passed + errors >= self.n:
            status = _E
            reason = (
                f"only {passed} of {len(results)} passed (needed {self.n}); "
                f"{errors} could not be evaluated"
            )
        else:
            status = _F
            reason = f"only {passed} of {len(results)} passed (needed {self.n})"
        score = passed / counted if counted else None
        return Result(
            status,
            self.kind,
            reason,
            {**counts, "needed": self.n},
            score=score,
            children=tuple(results),
        )

    def describe(self) -> str:
        """Describe the requirement and the candidates."""
        return f"at_least({self.n}, {', '.join(c.describe() for c in self.children)})"


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


@register
class When(Assertion):
    """Checks `then` when `condition` passes, `otherwise` (if given) when it fails.

    When the condition fails and there is no `otherwise`, the result is skipped; when the
    condition errors, the result is an error; when it is skipped, so is the result.

    Example:
        >>> from chatassert import Contains, When
        >>> rule = When(Contains("refund"), Contains("5 business days"))
        >>> rule.check("Your refund takes 5 business days.").passed
        True
        >>> rule.check("Hello").status.value
        'skipped'
    """

    _searches = True  # children may: all share one regex time budget

    __slots__ = ("condition", "otherwise", "then")
    kind = "when"
    level = "any"
    params = (
        Param(
            "if",
            "assertion",
            required=True,
            attr="condition",
            aliases=("condition",),
            doc="the condition",
        ),
        Param("then", "assertion", required=True, doc="checked when the condition passes"),
        Param(
            "else",
            "assertion",
            default=None,
            attr="otherwise",
            aliases=("otherwise",),
            doc="checked when the condition fails",
        ),
    )
    condition: Assertion
    then: Assertion
    otherwise: Assertion | None

    def __init__(
        self,
        condition: Assertion,
        then: Assertion,
        otherwise: Assertion | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        for name, value in (("condition", condition), ("then", then)):
            if not isinstance(value, Assertion):
                raise TypeError(f"When {name} must be an assertion, got {type(value).__name__}")
        if otherwise is not None and not isinstance(otherwise, Assertion):
            raise TypeError(f"When otherwise must be an assertion, got {type(otherwise).__name__}")
        self._set("condition", condition)
        self._set("then", then)
        self._set("otherwise", otherwise)

    def spec_params(self) -> dict[str, Any]:
        """Return `if`, `then` and (when given) `else`."""
        out = {"if": self.condition.as_spec(), "then": self.then.as_spec()}
        if self.otherwise is not None:
            out["else"] = self.otherwise.as_spec()
        return out

    def needs_judge(self) -> bool:
        """Whether any branch may call a judge."""
        parts = [self.condition, self.then]
        if self.otherwise is not None:
            parts.append(self.otherwise)
        return any(p.needs_judge() for p in parts)

    def _branch(self, cond: Result) -> Assertion | Result:
        if cond.status is _P:
            return self.then
        if cond.status is _F and self.otherwise is not None:
            return self.otherwise
        if cond.status is _F:
            return Result(
                _S, self.kind, f"condition not met: {cond.reason}", None, children=(cond,)
            )
        reason = (
            "the condition could not be evaluated: "
            if cond.status is _E
            else "the condition was skipped: "
        ) + cond.reason
        return Result(cond.status, self.kind, reason, None, children=(cond,))

    def _check(self, subject: object) -> Result:
        cond = self.condition.check(subject)
        branch = self._branch(cond)
        if isinstance(branch, Result):
            return branch
        return self._wrap(cond, branch.check(subject))

    async def _acheck(self, subject: object) -> Result:
        cond = await self.condition.acheck(subject)
        branch = self._branch(cond)
        if isinstance(branch, Result):
            return branch
        return self._wrap(cond, await branch.acheck(subject))

    def _wrap(self, cond: Result, inner: Result) -> Result:
        which = "then" if cond.status is _P else "else"
        return Result(
            inner.status, self.kind, inner.reason, {"branch": which}, children=(cond, inner)
        )

    def describe(self) -> str:
        """Describe the rule."""
        text = f"when {self.condition.describe()} then {self.then.describe()}"
        if self.otherwise is not None:
            text += f" else {self.otherwise.describe()}"
        return text


# -- turn selectors ------------------------------------------------------------------------


class _Selector(Assertion):
    """Shared machinery of the turn selectors: apply a turn assertion to chosen turns."""

    _searches = True  # children may: all share one regex time budget

    __slots__ = ("_judged_inside", "child")
    level = "conversation"
    child: Assertion
    _judged_inside: bool

    def __init__(self, child: Assertion, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(child, Assertion):
            raise TypeError(f"{type(self).__name__} takes an assertion, got {type(child).__name__}")
        self._set("child", child)
        self._set("_judged_inside", child.needs_judge())

    def needs_judge(self) -> bool:
        """Whether the child may call a judge (decided once, at construction)."""
        return bool(self._judged_inside)

    def _at(self, conversation: Conversation, index: int, result: Result) -> Result:
        return result._with_field("location", f"turns[{index}]")

    def _check(self, subject: object) -> Result:
        if self._judged_inside:  # one event loop: every turn's judge calls run concurrently
            result: Result = run_sync(self._acheck(subject))
            return result
        conversation = as_conversation(subject)
        return self._combine(
            conversation,
            [
                self._at(conversation, i, self.child.check(conversation.turns[i]))
                for i in self._indexes(conversation)
            ],
        )

    async def _acheck(self, subject: object) -> Result:
        conversation = as_conversation(subject)
        indexes = self._indexes(conversation)
        results = await asyncio.gather(*(self.child.acheck(conversation.turns[i]) for i in indexes))
        return self._combine(
            conversation,
            [self._at(conversation, i, r) for i, r in zip(indexes, results, strict=True)],
        )

    def _indexes(self, conversation: Conversation) -> list[int]:
        return list(range(len(conversation.turns)))

    def _combine(self, conversation: Conversation, results: list[Result]) -> Result:
        raise NotImplementedError


@register
class OnTurn(_Selector):
    """Checks a turn assertion on turn `index` of a conversation (negative counts from the end).

    A conversation too short to have that turn gives an error result.

    Example:
        >>> from chatassert import Contains, Conversation, OnTurn, Turn
        >>> chat = Conversation(turns=[Turn(text="Hi"), Turn(text="Booked!")])
        >>> OnTurn(1, Contains("booked")).check(chat).children[0].location
        'turns[1]'
    """

    __slots__ = ("index",)
    kind = "on_turn"
    params = (
        Param("index", "int", required=True, doc="the turn, 0-based; -1 is the last"),
        Param("assertion", "assertion", required=True, attr="child"),
    )
    index: int

    def __init__(self, index: int, child: Assertion, *, message: str | None = None) -> None:
        super().__init__(child, message=message)
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index must be an integer, got {type(index).__name__}")
        self._set("index", index)

    def _indexes(self, conversation: Conversation) -> list[int]:
        n = len(conversation.turns)
        if -n <= self.index < n:
            return [self.index % n]
        return []

    def _combine(self, conversation: Conversation, results: list[Result]) -> Result:
        if not results:
            return Result(
                _E,
                self.kind,
                f"the conversation has no turn {self.index} "
                f"(it has {len(conversation.turns)} turns)",
                {"index": self.index, "turns": len(conversation.turns)},
            )
        inner = results[0]
        return Result(inner.status, self.kind, inner.reason, None, children=(inner,))

    def describe(self) -> str:
        """Describe the selection."""
        return f"on turn {self.index}: {self.child.describe()}"


@register
class OnLastTurn(_Selector):
    """Checks a turn assertion on the last turn of a conversation (an empty one is an error)."""

    __slots__ = ()
    kind = "on_last_turn"
    params = (Param("assertion", "assertion", required=True, attr="child"),)

    def _indexes(self, conversation: Conversation) -> list[int]:
        return [len(conversation.turns) - 1] if conversation.turns else []

    def _combine(self, conversation: Conversation, results: list[Result]) -> Result:
        if not results:
            return Result(_E, self.kind, "the conversation has no turns", {"turns": 0})
        inner = results[0]
        return Result(inner.status, self.kind, inner.reason, None, children=(inner,))

    def describe(self) -> str:
        """Describe the selection."""
        return f"on the last turn: {self.child.describe()}"


@register
class OnEveryTurn(_Selector):
    """Checks a turn assertion on every turn; combines like `AllOf` (no turns passes)."""

    __slots__ = ()
    kind = "on_every_turn"
    params = (Param("assertion", "assertion", required=True, attr="child"),)

    def _combine(self, conversation: Conversation, results: list[Result]) -> Result:
        status = all_status([r.status for r in results])
        counts = _count(results)
        if status in (_F, _E):
            bad = [r.location for r in results if r.status is status]
            first = _first(results, status)
            assert first is not None
            reason = (
                f"{len(bad)} of {len(results)} turns "
                f"{'failed' if status is _F else 'could not be evaluated'} "
                f"({', '.join(str(b) for b in bad)}); first: "
                f"{first.location}: {first.reason}"
            )
        else:
            reason = f"{counts['passed']} of {len(results)} turns passed"
        return Result(status, self.kind, reason, counts, children=tuple(results))

    def describe(self) -> str:
        """Describe the selection."""
        return f"on every turn: {self.child.describe()}"


@register
class OnAnyTurn(_Selector):
    """Checks a turn assertion on every turn and passes if any turn passes (like `AnyOf`)."""

    __slots__ = ()
    kind = "on_any_turn"
    params = (Param("assertion", "assertion", required=True, attr="child"),)

    def _combine(self, conversation: Conversation, results: list[Result]) -> Result:
        status = any_status([r.status for r in results])
        counts = _count(results)
        if status is _P:
            first = _first(results, _P)
            assert first is not None
            reason = f"{first.location} passed"
        elif not results:
            reason = "the conversation has no turns"
        else:
            reason = f"none of {len(results)} turns passed; last: " + (
                f"{results[-1].location}: {results[-1].reason}"
            )
        return Result(status, self.kind, reason, counts, children=tuple(results))

    def describe(self) -> str:
        """Describe the selection."""
        return f"on any turn: {self.child.describe()}"
