"""The time budget of one check for its regular expressions.

A pattern's time limit bounds a whole check, not each search: `Assertion.check` opens a budget
(`open_budget`), every search inside draws on it (`run_limited`), and nested checks share the
outer one. Kept apart from `_regex` so that every check can open one without importing the
pattern translator.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token
from time import process_time
from typing import TypeVar

from chatassert._errors import RegexTimeoutError

__all__ = ["BUDGET", "GRACE", "close_budget", "open_budget", "run_limited", "timed_out"]

_T = TypeVar("_T")

GRACE = 0.01
"""The share of the limit a search still gets once its check has used the limit up.

A search over a short text finishes in microseconds, so a later candidate (another tool call,
another turn) can still decide the check; a catastrophic one stops after a hundredth of the
limit, so a check over n candidates takes at most about (1 + n / 100) limits.
"""


class _Budget:
    """The time the regular expressions of one check have spent so far, in seconds."""

    __slots__ = ("spent",)

    def __init__(self) -> None:
        self.spent = 0.0


BUDGET: ContextVar[_Budget | None] = ContextVar("chatassert_regex_budget", default=None)


def open_budget(spent: float = 0.0) -> Token[_Budget | None] | None:
    """Start the shared regex time budget of one check, unless an enclosing check has one.

    Every search inside the check draws on it, so a pattern's time limit bounds the whole check
    (all its searches, over every turn and on every path through it), not each search; see
    `GRACE` for the searches after the limit is used up. Pass the token to `close_budget` when
    the check ends.

    Example:
        >>> token = open_budget()
        >>> open_budget() is None  # nested checks share the outer budget
        True
        >>> close_budget(token)
    """
    if BUDGET.get() is None:
        budget = _Budget()
        budget.spent = spent  # a quick test that already ran out of time
        return BUDGET.set(budget)
    return None


def close_budget(token: Token[_Budget | None] | None) -> None:
    """End the budget `open_budget` started (a None token, from a nested check, is ignored)."""
    if token is not None:
        BUDGET.reset(token)


def run_limited(
    run: Callable[[float], _T], source: str, timeout: float, size: int, what: str = "pattern"
) -> _T:
    """Call `run(seconds)` (a `regex` operation given its `timeout=`) within the time left.

    The time left is `timeout` less what the enclosing check's budget has spent already (at
    least `GRACE` of it); the time this call takes is added to that budget.

    Raises:
        RegexTimeoutError: when `run` runs out of time.
    """
    budget = BUDGET.get()
    if budget is None:
        limit = timeout
    else:  # what is left, but never less than a small slice, so a cheap search still decides
        limit = max(timeout - budget.spent, timeout * GRACE)
    start = process_time()  # the clock `regex` measures its own `timeout=` by
    try:
        return run(limit)
    except TimeoutError as exc:  # one wording, whichever search of the check used up its limit
        raise timed_out(what, source, timeout, size) from exc
    finally:
        if budget is not None:
            budget.spent += process_time() - start


def timed_out(what: str, source: str, timeout: float, size: int) -> RegexTimeoutError:
    """The error for `what` (`pattern`, ...) `source` running out of its `timeout`."""
    return RegexTimeoutError(
        f"{what} {source!r} did not finish within {timeout:g}s on a text of {size} characters",
        source,
        timeout,
    )
