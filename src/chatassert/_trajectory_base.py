"""What the trajectory checks share: locating calls in a turn or a conversation, and their base.

Every trajectory check (docs/trajectories.md) reads a `Turn` (its tool calls, G2) or a
`Conversation` (the calls of all its turns, in order). Calls are located as `tool_calls[j]` in a
turn and `turns[i].tool_calls[j]` in a conversation; each call is paired with its result by id,
else by order. The checks are in `_sequence`, `_call_counts`, `_tool_results` and `_policies`.

Tests: tests/test_sequence.py, tests/test_call_counts.py, tests/test_tool_results.py, the shared
tests/test_trajectory.py and tests/test_trajectory_props.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from chatassert._base import Assertion
from chatassert._errors import UnrecordedError
from chatassert._lazy import TURN_TYPES
from chatassert._matchers import ArgProblem, ExpectedCall, compare_arguments, render_arguments
from chatassert._models import Conversation, ToolCall, ToolResult, Turn, as_turn
from chatassert._params import did_you_mean
from chatassert._result import Result, location_pointer, shorten

__all__ = [
    "MATCH",
    "ORDERS",
    "bracketed_names",
    "call_key",
    "CallCheck",
    "CallPattern",
    "checked_count",
    "choice",
    "Comparator",
    "located_calls",
    "LocatedCall",
    "message_groups",
    "quote",
    "Tally",
    "turns_of",
]


ORDERS = ("exact", "in_order", "any_order", "subset", "superset", "per_message")
"""The sequence orders of `ToolSequence`."""

MATCH = ("any", "all")


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


Comparator = Callable[[dict[str, Any], dict[str, Any]], bool]
"""A comparator of a tool's arguments, given in code: `(actual, expected) -> bool`."""


@dataclass(frozen=True, slots=True)
class CallPattern:
    """An expected call with its argument settings resolved: what a call must be to match.

    `ToolSequence` matches its steps with it, the tool policies their tools.
    """

    tool: str
    arguments: dict[str, Any] | None
    mode: str
    ignored: tuple[str, ...]
    equality: str = "loose"
    comparator: Comparator | None = None
    """Compares the arguments instead of `mode` when given (`ToolSequence(comparators=)`)."""

    @classmethod
    def of(cls, expected: ExpectedCall) -> CallPattern:
        """The pattern of an expected call on its own (mode `partial` unless it says)."""
        return cls(
            expected.tool,
            expected.arguments,
            expected.argument_mode or "partial",
            expected.ignore_keys,
        )

    @property
    def compares(self) -> bool:
        """Whether arguments take part (else the name alone decides)."""
        if self.comparator is not None:
            return True
        return self.arguments is not None and self.mode != "ignore"

    def expected_spec(self) -> dict[str, Any]:
        """The expected arguments in their spec form (`{}` when none are given)."""
        return {} if self.arguments is None else dict(render_arguments(self.arguments))

    def problems(self, call: ToolCall) -> list[ArgProblem]:
        """How the call's arguments differ from the expected ones."""
        assert self.arguments is not None
        return compare_arguments(
            self.arguments,
            call.arguments,
            mode=self.mode,
            ignore_keys=self.ignored,
            args_equality=self.equality,
        )

    def cell(self, call: ToolCall) -> bool | None:
        """True/False when the call does/does not match; None when undecidable.

        Undecidable: the arguments are compared and are not valid JSON. A `$regex` that runs
        out of time raises `RegexTimeoutError`, which callers also take as undecided; so is a
        comparator that raises, or returns something other than a bool (`ComparatorError`).
        """
        if call.name != self.tool:
            return False
        if not self.compares:
            return True
        if call.arguments_error is not None:
            return None
        if self.comparator is not None:
            try:
                verdict = self.comparator(dict(call.arguments), self.expected_spec())
            except Exception as exc:
                raise ComparatorError(self.tool, f"raised {type(exc).__name__}: {exc}") from exc
            if not isinstance(verdict, bool):
                raise ComparatorError(self.tool, f"returned {verdict!r}, not True or False")
            return verdict
        return not self.problems(call)


class ComparatorError(Exception):
    """A comparator given in code could not decide a call: it raised or gave no bool."""

    def __init__(self, tool: str, what: str) -> None:
        super().__init__(f"the comparator for '{tool}' {what}")
        self.tool = tool


def _canonical(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def _without(arguments: Mapping[str, Any], ignored: Sequence[str]) -> dict[str, Any]:
    """A copy of `arguments` without the `ignored` keys (dotted paths reach into objects).

    The mappings along each path are copied before a key is removed: the call's own
    arguments, which every other check reads, are never changed.
    """
    out = dict(arguments)
    for path in ignored:
        *parents, last = path.split(".")
        node = out
        for part in parents:
            inner = node.get(part)
            if not isinstance(inner, Mapping):
                break
            node[part] = node = dict(inner)
        else:
            node.pop(last, None)
    return out


def call_key(call: ToolCall, ignore_keys: Sequence[str] = ()) -> tuple[str, str]:
    """What makes two calls the same call: the name and the JSON of the arguments.

    Arguments compare as canonical JSON (`4` and `4.0` are equal) without `ignore_keys`;
    arguments that are not valid JSON compare as their raw text.

    Raises:
        UnrecordedError: for a call whose arguments the log did not record: whether it
            repeats another call cannot be told.
    """
    if call.arguments_error is not None:
        if call.arguments_unrecorded:
            raise UnrecordedError(
                f"cannot compare the arguments of {call.name}: {call.arguments_error}"
            )
        return (call.name, "raw:" + (call.raw_arguments or ""))
    args = _canonical(_without(call.arguments, ignore_keys))
    return (call.name, json.dumps(args, sort_keys=True, default=str))


def turns_of(subject: object) -> list[tuple[int | None, Turn]]:
    if type(subject) in TURN_TYPES:
        return [(None, cast(Turn, subject))]
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
    for index, turn in turns_of(subject):
        prefix = "" if index is None else f"turns[{index}]."
        for j, (call, result) in enumerate(turn.call_results):
            out.append(LocatedCall(call, result, f"{prefix}tool_calls[{j}]", index))
    return out


def message_groups(subject: object) -> list[list[int]]:
    """Group the calls of `located_calls(subject)` by the assistant message that made them.

    Each group lists the indices of one message's calls, in order; messages without calls are
    left out. A turn given without messages (or whose messages do not account for its calls)
    counts as one message making all its calls.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(messages=[
        ...     {"role": "user", "content": "Weather in Paris and Rome?"},
        ...     {"role": "assistant", "tool_calls": [
        ...         {"id": "1", "function": {"name": "weather", "arguments": "{}"}},
        ...         {"id": "2", "function": {"name": "weather", "arguments": "{}"}}]},
        ...     {"role": "tool", "tool_call_id": "1", "content": "18"},
        ...     {"role": "tool", "tool_call_id": "2", "content": "21"},
        ...     {"role": "assistant", "tool_calls": [
        ...         {"id": "3", "function": {"name": "summarise", "arguments": "{}"}}]}])
        >>> message_groups(turn)
        [[0, 1], [2]]
    """
    out: list[list[int]] = []
    start = 0
    for _, turn in turns_of(subject):
        count = len(turn.tool_calls)
        sizes = [len(m.tool_calls) for m in turn.messages if m.role == "assistant" and m.tool_calls]
        if sum(sizes) != count:
            sizes = [count] if count else []
        for size in sizes:
            out.append(list(range(start, start + size)))
            start += size
    return out


def bracketed_names(names: Sequence[str]) -> str:
    return "[" + ", ".join(names) + "]"


def quote(text: str, width: int = 60) -> str:
    return repr(shorten(text, width))


def choice(value: Any, choices: Sequence[str], what: str) -> str:
    if value not in choices:
        hint = did_you_mean(str(value), choices)
        raise ValueError(
            f"{what} must be one of {', '.join(choices)}, got {value!r}"
            + (f" ({hint})" if hint else "")
        )
    return str(value)


def checked_count(value: Any, what: str, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{what} must not be negative, got {value}")
    return value


class Tally:
    """A fold's state: plain attributes, each a value or an append-only list, so that what one
    step did can be taken back (`mark`, `undo`) without copying the lists."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"this fold has no {name!r} yet")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def mark(self) -> dict[str, Any]:
        """The state now: each list's length, each other attribute's value."""
        return {k: len(v) if type(v) is list else v for k, v in vars(self).items()}

    def undo(self, mark: Mapping[str, Any]) -> None:
        """Take back every step since `mark`."""
        for k, v in vars(self).items():
            if type(v) is list:
                del v[mark[k] :]
            else:
                setattr(self, k, mark[k])


class CallCheck(Assertion):
    """Shared parts of the trajectory checks: they read a turn or a conversation."""

    __slots__ = ()
    level = "any"
    evidence_at = "/tool_calls"

    def _pointer_of(self, result: Result, subject: object) -> str | None:
        """The offending call when the details name it (`turns[4].tool_calls[1]`): a
        violation's call (the repeat of a loop, the last of a run), or a repeated call."""
        details = result.details
        for key, fields in _OFFENDING:
            rows = details.get(key)
            if rows and isinstance(rows, list) and isinstance(rows[0], Mapping):
                for field in fields:
                    at = rows[0].get(field)
                    if isinstance(at, list) and len(at) > 1:
                        at = at[1]  # the first repeat of a call made several times
                    if isinstance(at, str) and (pointer := location_pointer(at)) is not None:
                        return pointer
        return super()._pointer_of(result, subject)


_OFFENDING = (
    ("violations", ("call", "to")),
    ("disallowed", ("call",)),
    ("loops", ("repeat",)),
    ("repeats", ("calls",)),
)
"""Where the call checks' details name the offending call: `(key, fields of its first row)`."""
