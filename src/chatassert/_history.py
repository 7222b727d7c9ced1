"""Where the turn being checked sits in its conversation, for the checks that read earlier turns.

A turn-level check is given one `Turn`. A few checks also read what came before it: PromptKit's
`llm_judge` with `conversation_aware` shows the judge the conversation so far, and PromptKit's
later `content_excludes` at turn level scans every assistant message up to this turn. Whoever
checks the turns of a conversation (a suite's case, the turn selectors) says where each turn
sits with `at_turn`; a turn checked on its own has nothing before it.

The place is held in a context variable, so it follows the check into the tasks `acheck`
starts and never leaks from one conversation, thread or task into another.

Tests: tests/promptkit/test_promptkit_later.py and tests/promptkit/test_promptkit_judged.py.

Example:
    >>> from chatassert import Turn
    >>> first, second = Turn(text="Hi"), Turn(text="Bye")
    >>> turns_so_far(second) == (second,)
    True
    >>> with at_turn((first, second), 1):
    ...     [t.text for t in turns_so_far(second)]
    ['Hi', 'Bye']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from chatassert._models import Turn

__all__ = ["at_turn", "checked_at", "turns_so_far"]

_R = TypeVar("_R")

_PLACE: ContextVar[tuple[Sequence[Turn], int] | None] = ContextVar(
    "chatassert_turn_place", default=None
)


@contextmanager
def at_turn(turns: Sequence[Turn], index: int) -> Iterator[None]:
    """Check inside this block knowing that `turns[index]` is the turn of a conversation of
    `turns` being checked."""
    token = _PLACE.set((turns, index))
    try:
        yield
    finally:
        _PLACE.reset(token)


def checked_at(check: Callable[[Turn], _R], turns: Sequence[Turn], index: int) -> _R:
    """`check(turns[index])` inside `at_turn(turns, index)`, without a generator's frames: the
    turn selectors call this once per check of every turn."""
    token = _PLACE.set((turns, index))
    try:
        return check(turns[index])
    finally:
        _PLACE.reset(token)


def turns_so_far(turn: Turn) -> tuple[Turn, ...]:
    """The turns of the conversation up to and including `turn`, in order.

    That is every turn before it when `turn` is the turn being checked (see `at_turn`), else
    `turn` alone. The position of a turn in the tuple is its index in the conversation.
    """
    place = _PLACE.get()
    if place is not None:
        turns, index = place
        if 0 <= index < len(turns) and turns[index] is turn:
            return tuple(turns[: index + 1])
    return (turn,)
