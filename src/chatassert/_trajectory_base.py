"""What the trajectory checks share: locating calls in a turn or a conversation, and their base.

Every trajectory check (docs/trajectories.md) reads a `Turn` (its tool calls, G2) or a
`Conversation` (the calls of all its turns, in order). Calls are located as `tool_calls[j]` in a
turn and `turns[i].tool_calls[j]` in a conversation; each call is paired with its result by id,
else by order. The checks are in `_sequence`, `_call_counts` and `_tool_results`.

Tests: tests/test_sequence.py, tests/test_call_counts.py, tests/test_tool_results.py, the shared
tests/test_trajectory.py and tests/test_trajectory_props.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chatassert._base import Assertion
from chatassert._models import Conversation, ToolCall, ToolResult, Turn, as_turn
from chatassert._params import did_you_mean
from chatassert._result import shorten

__all__ = [
    "LocatedCall",
    "ORDERS",
    "located_calls",
]


ORDERS = ("exact", "in_order", "any_order", "subset", "superset")
"""The sequence orders of `ToolSequence`."""

_MATCH = ("any", "all")


@dataclass(frozen=True, slots=True)
class LocatedCall:
    """A tool call with its result and where it is in the subject.

    Attributes:
        call: The call.
        result: Its result, when the transcript has one.
        location: `tool_calls[j]` in a turn, `turns[i].tool_calls[j]` in a conversation.
        turn: The turn index in a conversation (`None` for a turn subject).
    """

    call: ToolCall
    result: ToolResult | None
    location: str
    turn: int | None


def _turns(subject: object) -> list[tuple[int | None, Turn]]:
    if type(subject) is Turn:
        return [(None, subject)]
    if isinstance(subject, Conversation):
        return list(enumerate(subject.turns))
    if isinstance(subject, list) and subject and all(isinstance(t, Turn) for t in subject):
        return list(enumerate(subject))
    return [(None, as_turn(subject))]


def located_calls(subject: object) -> list[LocatedCall]:
    """Return every tool call of a turn or conversation, in order, with results and locations.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> chat = Conversation(turns=[Turn(), Turn(tool_calls=[ToolCall(name="search")])])
        >>> [c.location for c in located_calls(chat)]
        ['turns[1].tool_calls[0]']
    """
    out: list[LocatedCall] = []
    for index, turn in _turns(subject):
        prefix = "" if index is None else f"turns[{index}]."
        for j, (call, result) in enumerate(turn.call_results):
            out.append(LocatedCall(call, result, f"{prefix}tool_calls[{j}]", index))
    return out


def _names(names: Sequence[str]) -> str:
    return "[" + ", ".join(names) + "]"


def _quote(text: str, width: int = 60) -> str:
    return repr(shorten(text, width))


def _choice(value: Any, choices: Sequence[str], what: str) -> str:
    if value not in choices:
        hint = did_you_mean(str(value), choices)
        raise ValueError(
            f"{what} must be one of {', '.join(choices)}, got {value!r}"
            + (f" ({hint})" if hint else "")
        )
    return str(value)


def _count(value: Any, what: str, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{what} must not be negative, got {value}")
    return value


class _CallCheck(Assertion):
    """Shared parts of the trajectory checks: they read a turn or a conversation."""

    __slots__ = ()
    level = "any"
