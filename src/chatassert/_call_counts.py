"""How many calls: `ToolCallCount`, `MaxToolCalls`, `NoRepeatedCalls`, `StepsBeforeAnswer`.

Counts are of the calls in a turn or a whole conversation (docs/trajectories.md, "Counts and
limits"). Tests: tests/test_call_counts.py and, for specs shared with the other trajectory
checks, tests/test_trajectory.py.

Example:
    >>> from chatassert import ToolCall, ToolCallCount, Turn
    >>> turn = Turn(tool_calls=[ToolCall(name="search"), ToolCall(name="search")])
    >>> ToolCallCount("search", max=1).check(turn).passed
    False
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from chatassert._early import on_calls, on_prefix
from chatassert._matchers import (
    check_keys,
    error_flag,
)
from chatassert._models import Turn
from chatassert._params import Param, register
from chatassert._result import Result, Status, shorten
from chatassert._trajectory_base import (
    CallCheck,
    LocatedCall,
    Tally,
    call_key,
    checked_count,
    located_calls,
    turns_of,
)

__all__ = [
    "MaxToolCalls",
    "NoRepeatedCalls",
    "StepsBeforeAnswer",
    "ToolCallCount",
]

_P, _F = Status.PASSED, Status.FAILED


# -- counts and limits -----------------------------------------------------------------------


def _times(n: int) -> str:
    return f"{n} time" if n == 1 else f"{n} times"


def _calls(n: int) -> str:
    return f"{n} tool call" if n == 1 else f"{n} tool calls"


@register
class ToolCallCount(CallCheck):
    """Passes when `tool` was called between `min` and `max` times (inclusive).

    Give `min`, `max` or both. Errored calls count as calls; `details.errored` counts them
    separately.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="search")] * 4)
        >>> ToolCallCount("search", max=2).check(turn).reason
        "expected 'search' to be called at most 2 times but it was called 4 times \
(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3])"
    """

    __slots__ = ("max", "min", "tool")
    kind = "tool_call_count"
    decided_early = on_calls(
        "failed",
        "passed",
        note="the call after the `max`-th fails it for good; without `max`, the `min`-th "
        "passes it for good",
    )
    params = (
        Param("tool", "str", required=True, doc="the tool's exact name"),
        Param("min", "int", default=None, doc="the fewest calls allowed"),
        Param("max", "int", default=None, doc="the most calls allowed"),
    )
    tool: str
    min: int | None
    max: int | None

    def __init__(
        self,
        tool: str,
        min: int | None = None,
        max: int | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError(f"tool_call_count needs a non-empty tool name, got {tool!r}")
        low = checked_count(min, "min", optional=True)
        high = checked_count(max, "max", optional=True)
        if low is None and high is None:
            raise ValueError("tool_call_count needs min, max or both")
        if low is not None and high is not None and low > high:
            raise ValueError(f"min ({low}) must not be greater than max ({high})")
        self._set("tool", tool)
        self._set("min", low)
        self._set("max", high)

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.calls = []  # the calls of `tool`
        return state

    def _fold_call(self, state: Any, call: LocatedCall) -> bool:
        """Fold one call; True when it is a call of `tool` beyond `max`."""
        if call.call.name != self.tool:
            return False
        state.calls.append(call)
        return self.max is not None and len(state.calls) > self.max

    def _fold_now(self, state: Any) -> str:
        count = len(state.calls)
        low = self.min is None or count >= self.min
        return (_P if low and (self.max is None or count <= self.max) else _F).value

    def _fold_settled(self, state: Any) -> str | None:
        count = len(state.calls)
        if self.max is not None and count > self.max:
            return _F.value  # more calls only add to it
        if self.max is None and self.min is not None and count >= self.min:
            return _P.value
        return None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: dict[str, Any]) -> None:
        state.undo(mark)

    def _bounds(self) -> str:
        if self.min is not None and self.max is not None:
            if self.min == self.max:
                return f"exactly {_times(self.min)}"
            return f"between {self.min} and {self.max} times"
        if self.min is not None:
            return f"at least {_times(self.min)}"
        return f"at most {_times(self.max or 0)}"

    def describe(self) -> str:
        """Describe the requirement."""
        return f"calls {self.tool} {self._bounds()}"

    def _check(self, subject: object) -> Result:
        state = self._fold_start()
        for c in located_calls(subject):
            self._fold_call(state, c)
        calls = state.calls
        count = len(calls)
        details = {
            "tool": self.tool,
            "min": self.min,
            "max": self.max,
            "count": count,
            "calls": [c.location for c in calls],
            "errored": sum(1 for c in calls if error_flag(c.result)),
        }
        if (self.min is None or count >= self.min) and (self.max is None or count <= self.max):
            return Result(_P, self.kind, f"'{self.tool}' was called {_times(count)}", details)
        where = (
            f" ({', '.join(c.location for c in calls[:5])}" + (", …)" if count > 5 else ")")
            if calls
            else ""
        )
        return Result(
            _F,
            self.kind,
            f"expected '{self.tool}' to be called {self._bounds()} "
            f"but it was called {_times(count)}{where}",
            details,
        )


@register
class MaxToolCalls(CallCheck):
    """Passes when the agent made at most `max` tool calls in total.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="search"), ToolCall(name="search"),
        ...                         ToolCall(name="fetch")])
        >>> MaxToolCalls(2).check(turn).reason
        'expected at most 2 tool calls but got 3: search x2, fetch x1'
    """

    __slots__ = ("max",)
    kind = "max_tool_calls"
    decided_early = on_calls("failed", note="the call after the `max`-th fails it for good")
    params = (Param("max", "int", required=True, doc="the most tool calls allowed"),)
    max: int

    def __init__(self, max: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("max", checked_count(max, "max"))

    def describe(self) -> str:
        """Describe the requirement."""
        return f"makes at most {_calls(self.max)}"

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.calls = []
        state.by_tool = {}  # each tool's count, in order of first call
        return state

    def _fold_call(self, state: Any, call: LocatedCall) -> bool:
        """Fold one call; True when it is beyond `max`."""
        state.calls.append(call)
        name = call.call.name
        state.by_tool[name] = state.by_tool.get(name, 0) + 1
        return len(state.calls) > self.max

    def _fold_now(self, state: Any) -> str:
        return (_F if len(state.calls) > self.max else _P).value

    def _fold_settled(self, state: Any) -> str | None:
        return _F.value if len(state.calls) > self.max else None

    def _fold_mark(self, state: Any) -> tuple[dict[str, Any], str | None]:
        return Tally.mark(state), None

    def _fold_undo(self, state: Any, mark: tuple[dict[str, Any], Any]) -> None:
        n = mark[0]["calls"]
        for c in state.calls[n:]:  # one call at most: a call asked about
            name = c.call.name
            state.by_tool[name] -= 1
            if not state.by_tool[name]:
                del state.by_tool[name]
        state.undo(mark[0])

    def _check(self, subject: object) -> Result:
        state = self._fold_start()
        for c in located_calls(subject):
            self._fold_call(state, c)
        calls, by_tool = state.calls, dict(state.by_tool)
        details = {"max": self.max, "count": len(calls), "by_tool": by_tool}
        if len(calls) <= self.max:
            return Result(_P, self.kind, _calls(len(calls)), details)
        counts = ", ".join(f"{name} x{n}" for name, n in by_tool.items())
        return Result(
            _F,
            self.kind,
            f"expected at most {_calls(self.max)} but got {len(calls)}: {counts}",
            details,
        )


@register
class NoRepeatedCalls(CallCheck):
    """Passes when no tool was called twice with the same arguments (a sign of a loop).

    Arguments are equal when their JSON is equal (`4` and `4.0` are equal); `ignore_keys`
    leaves out arguments such as request ids. Arguments that are not valid JSON compare as text.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> call = ToolCall(name="search", arguments={"q": "refund"})
        >>> NoRepeatedCalls().check(Turn(tool_calls=[call, call])).reason
        'expected no repeated calls but \\'search\\' was called 2 times with the same \
arguments {"q": "refund"} (tool_calls[0], tool_calls[1])'
    """

    __slots__ = ("ignore_keys",)
    kind = "no_repeated_calls"
    decided_early = on_calls(
        "failed",
        note="a set of the calls made (name and arguments); a call made a second time fails "
        "it for good",
    )
    params = (
        Param(
            "ignore_keys",
            "str_list",
            default=(),
            allow_empty=True,
            doc="argument paths left out when comparing calls",
        ),
    )
    ignore_keys: tuple[str, ...]

    def __init__(self, ignore_keys: Sequence[str] = (), *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("ignore_keys", check_keys(ignore_keys, "ignore_keys"))

    def describe(self) -> str:
        """Describe the requirement."""
        return "repeats no tool call"

    def _check(self, subject: object) -> Result:
        state = self._fold_start()
        for c in located_calls(subject):
            self._fold_call(state, c)
        groups = state.groups
        repeats: list[dict[str, Any]] = []
        for key in state.order:
            group = [state.calls[j] for j in groups[key]]
            if len(group) > 1:
                first = group[0].call
                repeats.append(
                    {
                        "tool": key[0],
                        "arguments": first.arguments
                        if first.arguments_error is None
                        else first.raw_arguments,
                        "count": len(group),
                        "calls": [c.location for c in group],
                    }
                )
        details = {"repeats": repeats, "ignore_keys": list(self.ignore_keys)}
        if not repeats:
            return Result(_P, self.kind, self._held(), details)
        first = repeats[0]
        args = json.dumps(first["arguments"], ensure_ascii=False, sort_keys=True, default=str)
        more = f"; and {len(repeats) - 1} more repeated call(s)" if len(repeats) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected no repeated calls but '{first['tool']}' was "
            f"called {first['count']} times with the same arguments "
            f"{shorten(args, 80)} ({', '.join(first['calls'][:5])}){more}",
            details,
        )

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.calls = []
        state.keys = []  # each call's key (`call_key`)
        state.order = []  # the keys, in the order of their first call
        state.groups = {}  # each key's calls, by index
        state.repeated = 0  # how many keys were called more than once
        return state

    def _fold_call(self, state: Any, call: Any) -> bool:
        """Fold one call; True when it repeats an earlier one.

        Raises:
            UnrecordedError: for a call whose arguments were not recorded (the offline check
                is an error on it, whatever comes later).
        """
        key = call_key(call.call, self.ignore_keys)
        j = len(state.calls)
        state.calls.append(call)
        state.keys.append(key)
        group = state.groups.get(key)
        if group is None:
            state.groups[key] = [j]
            state.order.append(key)
            return False
        group.append(j)
        if len(group) == 2:
            state.repeated += 1
        return True

    def _fold_now(self, state: Any) -> str:
        return (_F if state.repeated else _P).value

    def _fold_settled(self, state: Any) -> str | None:
        return _F.value if state.repeated else None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: dict[str, Any]) -> None:
        for j in range(len(state.calls) - 1, mark["calls"] - 1, -1):
            key = state.keys[j]
            group = state.groups[key]
            group.pop()
            if not group:
                del state.groups[key]
        state.undo(mark)


def _steps_of(turn: Turn) -> tuple[int, int, bool]:
    """Count `(tool calls, intermediate messages, answered)` before a turn's final answer."""
    if not turn.messages:
        return len(turn.tool_calls), 0, bool(turn.text)
    assistant = [m for m in turn.messages if m.role == "assistant"]
    final = next(
        (
            k
            for k in range(len(assistant) - 1, -1, -1)
            if assistant[k].content and not assistant[k].tool_calls
        ),
        None,
    )
    before = assistant if final is None else assistant[:final]
    calls = sum(len(m.tool_calls) for m in before)
    messages = sum(1 for m in before if not m.tool_calls)
    return calls, messages, final is not None


@register
class StepsBeforeAnswer(CallCheck):
    """Passes when every turn reaches its final answer within `max` steps.

    A step is one tool call, or one intermediate assistant message (an assistant message
    without tool calls that is not the final answer). The final answer is the turn's last
    assistant message that has text and no tool calls; a turn given without `messages` has
    its tool calls as steps and its `text` as the answer. A turn with no final answer fails.
    In a conversation every turn is counted on its own.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(text="Done.", tool_calls=[ToolCall(name="search")] * 3)
        >>> StepsBeforeAnswer(2).check(turn).reason
        'expected at most 2 steps before the final answer but took 3 (3 tool calls, \
0 intermediate messages)'
    """

    __slots__ = ("max",)
    kind = "steps_before_answer"
    decided_early = on_prefix(
        "failed",
        reads=("user", "assistant", "call"),
        note="failed for good once a closed turn fails, or the open turn has more than `max` "
        "steps: a later answer only counts more steps before it",
    )
    params = (
        Param(
            "max",
            "int",
            required=True,
            doc="the most steps (tool calls and intermediate messages) per turn",
        ),
    )
    max: int

    def __init__(self, max: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("max", checked_count(max, "max"))

    def describe(self) -> str:
        """Describe the requirement."""
        return f"answers within {self.max} steps"

    def _failed_for_good(self, subject: object) -> bool:
        """Whether no later event can bring the subject's failure back (`Early`): a turn
        before the last is closed; the last one, still open, has more than `max` steps even
        if its final answer were the next message (a later answer makes every assistant
        message before it a step, the one answering now included)."""
        turns = turns_of(subject)
        for k, (_, turn) in enumerate(turns):
            calls, messages, answered = _steps_of(turn)
            if k < len(turns) - 1:
                if not answered or calls + messages > self.max:
                    return True
            elif calls + messages > self.max:
                return True
        return False

    def _check(self, subject: object) -> Result:
        rows: list[dict[str, Any]] = []
        problems: list[str] = []
        for index, turn in turns_of(subject):
            calls, messages, answered = _steps_of(turn)
            steps = calls + messages
            rows.append(
                {
                    "turn": index,
                    "steps": steps,
                    "tool_calls": calls,
                    "intermediate_messages": messages,
                    "answered": answered,
                }
            )
            where = "" if index is None else f"turns[{index}] "
            if not answered:
                problems.append(f"{where}has no final answer".strip())
            elif steps > self.max:
                problems.append(
                    f"{where}took {steps} ({_calls(calls)}, {messages} intermediate "
                    f"message{'' if messages == 1 else 's'})"
                )
        details = {"max": self.max, "turns": rows}
        if not problems:
            return Result(_P, self.kind, self._held(), details)
        more = f"; and {len(problems) - 1} more" if len(problems) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"expected at most {self.max} steps before the final answer but {problems[0]}{more}",
            details,
        )
