"""The conditional and at-least combinators, and the turn selectors over conversations.

`AllOf`, `AnyOf` and `Not`, which the operators `&`, `|` and `~` build, are in `_base` with the
Kleene rules all combinators follow; `When` and `AtLeast` follow them too (docs/guide.md,
"Combining assertions"). The selectors run one assertion on chosen turns of a conversation.

Tests: tests/test_combinators.py, tests/test_combinators_decisions.py and tests/test_laws.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatassert._base import (
    Assertion,
    Group,
    first_with_status,
    reads_history_of,
    searches_in,
    status_counts_of,
)
from chatassert._history import at_turn, checked_at
from chatassert._judging import run_sync
from chatassert._models import Conversation, as_conversation
from chatassert._params import Param, register
from chatassert._result import (
    Result,
    Status,
    all_status,
    any_status,
    shared_once,
    status_counts,
)

__all__ = [
    "AtLeast",
    "OnAnyTurn",
    "OnEveryTurn",
    "OnLastTurn",
    "OnTurn",
    "When",
]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


@register
class AtLeast(Group):
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
        self,
        n: int,
        *children: Assertion,
        message: str | None = None,
        plan: bool | None = None,
        **kw: Sequence[Assertion],
    ) -> None:
        super().__init__(*children, message=message, plan=plan, **kw)
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

    def _settled(self, known: list[tuple[Assertion, Result]], judged: int) -> str | None:
        passed = sum(r.status is _P for _, r in known)
        errors = sum(r.status is _E for _, r in known)
        total = len(known) + judged
        if passed >= self.n:
            return f"{passed} of {total} already passed (needed {self.n}), so {self.kind} passes"
        if passed + errors + judged < self.n:  # not even an error is possible any more
            return (
                f"even if all {judged} judged passed, only {passed + judged} of {total} would "
                f"pass (needed {self.n}), so {self.kind} fails"
            )
        return None

    def _combine(self, results: list[Result]) -> Result:
        counts = status_counts_of(results)
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

    def _judge_calls(self) -> int:
        # the condition, and the costlier branch (only one is taken)
        branches = [self.then] if self.otherwise is None else [self.then, self.otherwise]
        return self.condition._judge_calls() + max(b._judge_calls() for b in branches)

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


_PLACED: dict[Any, tuple[object, Result]] = {}
"""A check's constant outcomes placed at a turn, under (outcome id, turn index)."""
_COMBINED: dict[Any, tuple[object, Result]] = {}
"""A selector's outcome over constant turn outcomes, under the ids of the selector and of
those outcomes: a log's conversations mostly repeat the same outcomes, so their selector
nodes are built once."""


def _placed(result: Result, index: int) -> Result:
    """`result` located at turn `index`: its location, and its evidence's pointers prefixed."""
    placed = result._with_field("location", f"turns[{index}]")
    if placed.pointer is None and not placed.children:
        return placed
    return placed._prefixed(f"/turns/{index}")


class _Selector(Assertion):
    """Shared machinery of the turn selectors: apply a turn assertion to chosen turns."""

    __slots__ = ("_judged_inside", "_reads_history", "_searches", "child")
    level = "conversation"
    child: Assertion
    _judged_inside: bool
    _reads_history: bool
    _searches: bool  # type: ignore[misc]  # per selector: whether its child may search

    def __init__(self, child: Assertion, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(child, Assertion):
            raise TypeError(f"{type(self).__name__} takes an assertion, got {type(child).__name__}")
        self._set("child", child)
        self._set("_judged_inside", child.needs_judge())
        self._set("_reads_history", reads_history_of(child))
        self._set("_searches", searches_in(child))  # then all turns share one regex budget

    def needs_judge(self) -> bool:
        """Whether the child may call a judge (decided once, at construction)."""
        return bool(self._judged_inside)

    def _check(self, subject: object) -> Result:
        if self._judged_inside:  # one event loop: every turn's judge calls run concurrently
            result: Result = run_sync(self._acheck(subject))
            return result
        conversation = as_conversation(subject)
        turns, check, indexes = conversation.turns, self.child.check, self._indexes(conversation)
        if self._reads_history:  # placed for the checks that read the earlier turns
            return self._combined(
                conversation, indexes, [checked_at(check, turns, i) for i in indexes]
            )
        return self._combined(conversation, indexes, [check(turns[i]) for i in indexes])

    async def _acheck_turn(self, conversation: Conversation, index: int) -> Result:
        with at_turn(conversation.turns, index):
            return await self.child.acheck(conversation.turns[index])

    async def _acheck(self, subject: object) -> Result:
        import asyncio

        conversation = as_conversation(subject)
        indexes = self._indexes(conversation)
        results = await asyncio.gather(*(self._acheck_turn(conversation, i) for i in indexes))
        return self._combined(conversation, indexes, results)

    def _combined(
        self, conversation: Conversation, indexes: list[int], outcomes: Sequence[Result]
    ) -> Result:
        """The turns' `outcomes` (of turns `indexes`) placed at their turns and combined
        (`_combine`): a constant outcome placed at a turn once, and the selector's outcome over
        constant turn outcomes built once for every run of the same ones."""
        results: list[Result] = []
        constant = True  # whether every turn's outcome is a constant one
        known = _PLACED.get
        for i, result in zip(indexes, outcomes, strict=True):
            if not result._shared:
                constant = False
                result = _placed(result, i)
            else:
                placed = known((id(result), i))
                result = (
                    placed[1]
                    if placed is not None
                    else shared_once(_PLACED, (id(result), i), result, _placed, result, i)
                )
            results.append(result)
        if not constant or not results:
            return self._combine(conversation, results)
        key = (id(self), *map(id, results))
        return shared_once(_COMBINED, key, (self, *results), self._combine, conversation, results)

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
        statuses = [r.status for r in results]
        status, counts = all_status(statuses), status_counts(statuses)
        if status in (_F, _E):
            bad = [r.location for r in results if r.status is status]
            first = first_with_status(results, status)
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
        statuses = [r.status for r in results]
        status, counts = any_status(statuses), status_counts(statuses)
        if status is _P:
            first = first_with_status(results, _P)
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
