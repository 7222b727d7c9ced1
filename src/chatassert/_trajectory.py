"""Trajectory checks: which tools an agent called, in which order, how often, and how they went.

Every check here reads a `Turn` (its tool calls, G2) or a `Conversation` (the calls of all its
turns, in order). Calls are located as `tool_calls[j]` in a turn and `turns[i].tool_calls[j]`
in a conversation; each call is paired with its result by id, else by order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chatassert._base import Assertion
from chatassert._errors import RegexTimeoutError
from chatassert._matchers import (
    ARGUMENT_MODES,
    ArgProblem,
    ExpectedCall,
    check_keys,
    check_mode,
    compare_arguments,
    error_flag,
    render_arguments,
)
from chatassert._models import Conversation, ToolCall, ToolResult, Turn, as_turn
from chatassert._params import Param, did_you_mean, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_pattern
from chatassert._result import Result, Status, shorten

__all__ = [
    "ORDERS",
    "LocatedCall",
    "MaxToolCalls",
    "NoRepeatedCalls",
    "NoToolErrors",
    "StepsBeforeAnswer",
    "ToolCallCount",
    "ToolResultContains",
    "ToolResultMatches",
    "ToolSequence",
    "located_calls",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

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


# -- sequences -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Step:
    """An expected call with the sequence's defaults resolved."""

    tool: str
    arguments: dict[str, Any] | None
    mode: str
    ignored: tuple[str, ...]

    @property
    def compares(self) -> bool:
        return self.arguments is not None and self.mode != "ignore"

    def problems(self, call: ToolCall) -> list[ArgProblem]:
        assert self.arguments is not None
        return compare_arguments(
            self.arguments, call.arguments, mode=self.mode, ignore_keys=self.ignored
        )

    def cell(self, call: ToolCall) -> bool | None:
        """True/False when the call does/does not fulfil the step; None when undecidable."""
        if call.name != self.tool:
            return False
        if not self.compares:
            return True
        if call.arguments_error is not None:
            return None
        return not self.problems(call)


def _max_matching(matrix: list[list[bool]], n_calls: int) -> list[int]:
    """Maximum bipartite matching of steps to calls; returns the call of each step or -1."""
    call_of_step = [-1] * len(matrix)
    step_of_call = [-1] * n_calls

    def augment(step: int, seen: list[bool]) -> bool:
        for j in range(n_calls):
            if matrix[step][j] and not seen[j]:
                seen[j] = True
                if step_of_call[j] < 0 or augment(step_of_call[j], seen):
                    step_of_call[j] = step
                    call_of_step[step] = j
                    return True
        return False

    for i in range(len(matrix)):
        augment(i, [False] * n_calls)
    return call_of_step


def _greedy(matrix: list[list[bool]], n_calls: int) -> list[int]:
    """Match steps in order to the earliest possible later call; -1 from the first miss on."""
    out: list[int] = []
    j = 0
    for row in matrix:
        while j < n_calls and not row[j]:
            j += 1
        if j >= n_calls:
            out.extend([-1] * (len(matrix) - len(out)))
            return out
        out.append(j)
        j += 1
    return out


def _lcs(matrix: list[list[bool]], n_calls: int) -> list[int]:
    """The longest order-preserving matching of steps to calls (call of each step or -1)."""
    m = len(matrix)
    best = [[0] * (n_calls + 1) for _ in range(m + 1)]
    for i in range(m - 1, -1, -1):
        for j in range(n_calls - 1, -1, -1):
            take = best[i + 1][j + 1] + 1 if matrix[i][j] else 0
            best[i][j] = max(take, best[i + 1][j], best[i][j + 1])
    out = [-1] * m
    i = j = 0
    while i < m and j < n_calls:
        if matrix[i][j] and best[i][j] == best[i + 1][j + 1] + 1:
            out[i] = j
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


@register
class ToolSequence(_CallCheck):
    """Passes when the agent's tool calls follow the expected steps in the given `order`.

    Orders (one call is matched per expected step):

    - `exact`: the calls are the steps, in order, with nothing else;
    - `in_order` (default): the steps appear in order, other calls may come between;
    - `any_order`: the calls are the steps in some order (same multiset, nothing else);
    - `subset`: every call is one of the steps (nothing outside them; steps may be skipped);
    - `superset`: every step was called (in any order; other calls are fine).

    A step is a tool name, an `ExpectedCall`, or a mapping `{tool, arguments?,
    argument_mode?, ignore_keys?}`. Arguments compare in `argument_mode` (`partial`: G9 loose
    match, extra arguments fine; `exact`: no extra arguments; `ignore`), which a step or
    `per_tool` (`{tool: {argument_mode?, ignore_keys?}}`) may override. When the outcome
    depends on a call whose arguments are not valid JSON, the result is an `error`.

    The failure reason lists both sequences and explains the first divergence; `details`
    hold `matched` pairs, `missing` steps, `unexpected` calls, `precision` and `recall`.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="search"), ToolCall(name="confirm")])
        >>> check = ToolSequence(["search", "book", "confirm"])
        >>> print(check.check(turn).reason)
        expected [search, book, confirm] in order but got [search, confirm]: step 2 'book' \
missing after 'search' (tool_calls[0]); 'book' was never called
        >>> ToolSequence(["confirm", "search"], "any_order").check(turn).passed
        True
    """

    __slots__ = ("_steps", "argument_mode", "ignore_keys", "order", "per_tool", "steps")
    kind = "tool_sequence"
    options = ("regex_timeout",)
    params = (
        Param(
            "steps",
            "any",
            required=True,
            doc="the expected calls: tool names or {tool, arguments, ...} mappings",
        ),
        Param(
            "order",
            "str",
            default="in_order",
            choices=ORDERS,
            doc="exact, in_order, any_order, subset or superset",
        ),
        Param(
            "argument_mode",
            "str",
            default="partial",
            choices=ARGUMENT_MODES,
            doc="how arguments compare: partial, exact or ignore",
        ),
        Param(
            "ignore_keys",
            "str_list",
            default=(),
            allow_empty=True,
            doc="argument paths left out of every comparison",
        ),
        Param(
            "per_tool",
            "mapping",
            default=None,
            doc="per-tool overrides: {tool: {argument_mode?, ignore_keys?}}",
        ),
    )
    steps: tuple[ExpectedCall, ...]
    order: str
    argument_mode: str
    ignore_keys: tuple[str, ...]
    per_tool: dict[str, dict[str, Any]] | None
    _steps: tuple[_Step, ...]

    def __init__(
        self,
        steps: Sequence[str | ExpectedCall | Mapping[str, Any]],
        order: str = "in_order",
        *,
        argument_mode: str = "partial",
        ignore_keys: Sequence[str] = (),
        per_tool: Mapping[str, Mapping[str, Any]] | None = None,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        if isinstance(steps, str | bytes | Mapping) or not isinstance(steps, Sequence):
            raise TypeError(
                "steps must be a list of expected calls (tool names or mappings with 'tool'), "
                f"got {type(steps).__name__} {steps!r}"
            )
        if not steps:
            raise ValueError("steps must name at least one expected call")
        parsed = tuple(
            ExpectedCall.coerce(s, f"steps[{i}]", regex_timeout=regex_timeout)
            for i, s in enumerate(steps)
        )
        self._set("steps", parsed)
        self._set("order", _choice(order, ORDERS, "order"))
        check_mode(argument_mode, "argument_mode")
        self._set("argument_mode", argument_mode)
        self._set("ignore_keys", check_keys(ignore_keys, "ignore_keys"))
        self._set("per_tool", _per_tool(per_tool))
        overrides = self.per_tool or {}
        resolved = []
        for step in parsed:
            override = overrides.get(step.tool, {})
            mode = step.argument_mode or override.get("argument_mode") or argument_mode
            ignored = (*self.ignore_keys, *override.get("ignore_keys", ()), *step.ignore_keys)
            resolved.append(_Step(step.tool, step.arguments, mode, ignored))
        self._set("_steps", tuple(resolved))

    def spec_params(self) -> dict[str, Any]:
        """Return the spec parameters, with each step in its spec form."""
        out = super().spec_params()
        out["steps"] = [s.to_spec() for s in self.steps]
        return out

    def describe(self) -> str:
        """Describe the requirement."""
        return f"calls {_names([s.tool for s in self.steps])} ({self.order.replace('_', ' ')})"

    # -- evaluation ------------------------------------------------------------------------

    def _passes(self, matrix: list[list[bool]], n: int) -> bool:
        m = len(matrix)
        order = self.order
        if order == "exact":
            return n == m and all(matrix[i][i] for i in range(m))
        if order == "in_order":
            return -1 not in _greedy(matrix, n)
        if order == "any_order" and n != m:
            return False
        if order == "subset" and n > m:
            return False
        if order == "superset" and n < m:
            return False
        size = sum(1 for j in _max_matching(matrix, n) if j >= 0)
        return size == (n if order == "subset" else m)

    def _check(self, subject: object) -> Result:
        calls = located_calls(subject)
        n = len(calls)
        timeouts: list[RegexTimeoutError] = []

        def compare(step: _Step, call: ToolCall) -> bool | None:
            try:
                return step.cell(call)
            except RegexTimeoutError as exc:  # undecided, like arguments that are not JSON
                timeouts.append(exc)
                return None

        cells = [[compare(step, c.call) for c in calls] for step in self._steps]
        sure = [[cell is True for cell in row] for row in cells]
        if self._passes(sure, n):
            actual = _names([c.call.name for c in calls])
            return Result(_P, self.kind, f"called {actual}", self._details(sure, calls))
        maybe = [[cell is not False for cell in row] for row in cells]
        details = self._details(sure, calls)
        if self._passes(maybe, n):
            invalid = [
                (s, c)
                for s, row in zip(self._steps, cells, strict=True)
                for c, cell in zip(calls, row, strict=True)
                if cell is None and c.call.arguments_error is not None
            ]
            if not invalid:  # only a regex that ran out of time stands between pass and fail
                first = timeouts[0]
                details.update(error="timeout", pattern=first.pattern)
                return Result(_E, self.kind, str(first), details)
            step, call = invalid[0]
            details["invalid_arguments"] = [
                {
                    "call": c.location,
                    "tool": c.call.name,
                    "raw_arguments": c.call.raw_arguments,
                    "error": c.call.arguments_error,
                }
                for _, c in invalid
            ]
            return Result(
                _E,
                self.kind,
                f"cannot compare the arguments of '{step.tool}' "
                f"({call.location}): {call.call.arguments_error}",
                details,
            )
        return Result(
            _F, self.kind, f"{self._header(calls)}: {self._divergence(sure, calls)}", details
        )

    def _header(self, calls: Sequence[LocatedCall]) -> str:
        expected = _names([s.tool for s in self._steps])
        actual = _names([c.call.name for c in calls])
        prefix = {
            "exact": f"expected exactly {expected}",
            "in_order": f"expected {expected} in order",
            "any_order": f"expected {expected} in any order",
            "subset": f"expected only calls from {expected}",
            "superset": f"expected at least {expected}",
        }[self.order]
        return f"{prefix} but got {actual}"

    def _pairs(self, matrix: list[list[bool]], n: int) -> list[int]:
        if self.order == "exact":
            return [i if i < n and matrix[i][i] else -1 for i in range(len(matrix))]
        if self.order == "in_order":
            return _lcs(matrix, n)
        return _max_matching(matrix, n)

    def _details(self, matrix: list[list[bool]], calls: Sequence[LocatedCall]) -> dict[str, Any]:
        n, m = len(calls), len(self._steps)
        pairs = self._pairs(matrix, n)
        used = {j for j in pairs if j >= 0}
        matched = [
            {"step": i, "tool": self._steps[i].tool, "call": calls[j].location}
            for i, j in enumerate(pairs)
            if j >= 0
        ]
        missing = []
        for i, j in enumerate(pairs):
            if j < 0:
                entry: dict[str, Any] = {"step": i, "tool": self._steps[i].tool}
                if self._steps[i].arguments is not None:
                    entry["arguments"] = render_arguments(self._steps[i].arguments)
                missing.append(entry)
        unexpected = [
            {"call": c.location, "tool": c.call.name, "arguments": c.call.arguments}
            for j, c in enumerate(calls)
            if j not in used
        ]
        return {
            "order": self.order,
            "expected": [s.tool for s in self._steps],
            "actual": [c.call.name for c in calls],
            "locations": [c.location for c in calls],
            "matched": matched,
            "missing": missing,
            "unexpected": unexpected,
            "precision": len(matched) / n if n else 1.0,
            "recall": len(matched) / m if m else 1.0,
            "errored_calls": [c.location for c in calls if error_flag(c.result)],
        }

    def _why_not(self, step: _Step, candidates: Sequence[LocatedCall]) -> str:
        """Explain why no call among `candidates` fulfils the step."""
        named = [c for c in candidates if c.call.name == step.tool]
        if not named:
            return f"'{step.tool}' was never called"
        first = named[0]
        if first.call.arguments_error is not None:
            return f"'{step.tool}' ({first.location}) has arguments that are not valid JSON"
        problems = step.problems(first.call)
        text = "; ".join(p.describe() for p in problems[:3])
        if len(problems) > 3:
            text += f"; and {len(problems) - 3} more"
        return f"'{step.tool}' ({first.location}) differs: {text}"

    def _divergence(self, matrix: list[list[bool]], calls: Sequence[LocatedCall]) -> str:
        n, m = len(calls), len(self._steps)
        steps = self._steps
        if self.order == "exact":
            for i in range(max(n, m)):
                if i >= n:
                    after = (
                        f"the agent stopped after '{calls[-1].call.name}' ({calls[-1].location})"
                        if calls
                        else "no tool was called"
                    )
                    return f"step {i + 1} '{steps[i].tool}' missing: {after}"
                if i >= m:
                    return (
                        f"unexpected extra call '{calls[i].call.name}' "
                        f"({calls[i].location}) after step {m}"
                    )
                if not matrix[i][i]:
                    call = calls[i]
                    if call.call.name != steps[i].tool:
                        return (
                            f"step {i + 1} expected '{steps[i].tool}' but got "
                            f"'{call.call.name}' ({call.location})"
                        )
                    return self._why_not(steps[i], [call])
            return "the sequences differ"  # pragma: no cover - _passes would have passed
        if self.order == "in_order":
            greedy = _greedy(matrix, n)
            k = greedy.index(-1)
            prev = greedy[k - 1] if k else -1
            where = (
                "not found"
                if k == 0
                else f"missing after '{calls[prev].call.name}' ({calls[prev].location})"
            )
            later = calls[prev + 1 :]
            why = self._why_not(steps[k], later)
            if (
                why.endswith("was never called")
                and k
                and any(c.call.name == steps[k].tool for c in calls[: prev + 1])
            ):
                earlier = next(c for c in calls[: prev + 1] if c.call.name == steps[k].tool)
                why = f"'{steps[k].tool}' was called only before that ({earlier.location})"
            if k == 0 and why.endswith("was never called"):
                return f"step 1 '{steps[0].tool}' was never called"
            return f"step {k + 1} '{steps[k].tool}' {where}; {why}"
        pairs = _max_matching(matrix, n)
        used = {j for j in pairs if j >= 0}
        free = [c for j, c in enumerate(calls) if j not in used]
        parts = []
        if self.order != "subset":
            for i, j in enumerate(pairs):
                if j < 0:
                    parts.append(
                        f"step {i + 1} '{steps[i].tool}' missing ({self._why_not(steps[i], free)})"
                    )
        if self.order != "superset":
            for c in free:
                parts.append(f"unexpected '{c.call.name}' ({c.location})")
        return "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "")


def _per_tool(value: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    if value is None or (isinstance(value, Mapping) and not value):
        return None
    if not isinstance(value, Mapping):
        raise TypeError(
            f"per_tool must be a mapping {{tool: {{argument_mode?, ignore_keys?}}}}, "
            f"got {type(value).__name__} {value!r}"
        )
    out: dict[str, dict[str, Any]] = {}
    for tool, settings in value.items():
        where = f"per_tool.{tool}"
        if not isinstance(tool, str) or not tool:
            raise TypeError(f"per_tool keys must be tool names, got {tool!r}")
        if not isinstance(settings, Mapping):
            raise TypeError(
                f"{where} must be a mapping with argument_mode and/or ignore_keys, "
                f"got {type(settings).__name__} {settings!r}"
            )
        entry: dict[str, Any] = {}
        for key, item in settings.items():
            if key == "argument_mode":
                check_mode(item, f"{where}.argument_mode")
                entry[key] = item
            elif key == "ignore_keys":
                entry[key] = list(check_keys(item, f"{where}.ignore_keys"))
            else:
                hint = did_you_mean(str(key), ["argument_mode", "ignore_keys"])
                raise ValueError(
                    f"{where}: unknown key {key!r}"
                    + (f" ({hint})" if hint else "; valid keys: argument_mode, ignore_keys")
                )
        if not entry:
            raise ValueError(f"{where} is empty; give argument_mode and/or ignore_keys")
        out[tool] = entry
    return out


# -- counts and limits -----------------------------------------------------------------------


def _times(n: int) -> str:
    return f"{n} time" if n == 1 else f"{n} times"


@register
class ToolCallCount(_CallCheck):
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
        low = _count(min, "min", optional=True)
        high = _count(max, "max", optional=True)
        if low is None and high is None:
            raise ValueError("tool_call_count needs min, max or both")
        if low is not None and high is not None and low > high:
            raise ValueError(f"min ({low}) must not be greater than max ({high})")
        self._set("tool", tool)
        self._set("min", low)
        self._set("max", high)

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
        calls = [c for c in located_calls(subject) if c.call.name == self.tool]
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
class MaxToolCalls(_CallCheck):
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
    params = (Param("max", "int", required=True, doc="the most tool calls allowed"),)
    max: int

    def __init__(self, max: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("max", _count(max, "max"))

    def describe(self) -> str:
        """Describe the requirement."""
        return f"makes at most {self.max} tool calls"

    def _check(self, subject: object) -> Result:
        calls = located_calls(subject)
        by_tool: dict[str, int] = {}
        for c in calls:
            by_tool[c.call.name] = by_tool.get(c.call.name, 0) + 1
        details = {"max": self.max, "count": len(calls), "by_tool": by_tool}
        if len(calls) <= self.max:
            return Result(_P, self.kind, f"{len(calls)} tool calls", details)
        counts = ", ".join(f"{name} x{n}" for name, n in by_tool.items())
        return Result(
            _F,
            self.kind,
            f"expected at most {self.max} tool calls but got {len(calls)}: {counts}",
            details,
        )


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


@register
class NoRepeatedCalls(_CallCheck):
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
        groups: dict[tuple[str, str], list[LocatedCall]] = {}
        for c in located_calls(subject):
            if c.call.arguments_error is not None:
                key = (c.call.name, "raw:" + (c.call.raw_arguments or ""))
            else:
                args = _canonical(_without(c.call.arguments, self.ignore_keys))
                key = (c.call.name, json.dumps(args, sort_keys=True, default=str))
            groups.setdefault(key, []).append(c)
        repeats: list[dict[str, Any]] = [
            {
                "tool": name,
                "arguments": group[0].call.arguments
                if group[0].call.arguments_error is None
                else group[0].call.raw_arguments,
                "count": len(group),
                "calls": [c.location for c in group],
            }
            for (name, _), group in groups.items()
            if len(group) > 1
        ]
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
class StepsBeforeAnswer(_CallCheck):
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
        self._set("max", _count(max, "max"))

    def describe(self) -> str:
        """Describe the requirement."""
        return f"answers within {self.max} steps"

    def _check(self, subject: object) -> Result:
        rows: list[dict[str, Any]] = []
        problems: list[str] = []
        for index, turn in _turns(subject):
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
                    f"{where}took {steps} ({calls} tool calls, {messages} intermediate messages)"
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


# -- results of calls ------------------------------------------------------------------------


def _result_text(result: ToolResult) -> str:
    if result.content or result.data is None:
        return result.content
    return json.dumps(result.data, ensure_ascii=False, default=str)


class _ResultCheck(_CallCheck):
    """Shared parts of the checks on the results of one tool's calls."""

    __slots__ = ("match", "tool")
    tool: str
    match: str

    def _init_common(self, tool: str, match: str) -> None:
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError(f"{self.kind} needs a non-empty tool name, got {tool!r}")
        self._set("tool", tool)
        self._set("match", _choice(match, _MATCH, "match"))

    def _wanted(self) -> str:
        raise NotImplementedError

    def _test(self, text: str) -> bool:
        raise NotImplementedError

    def _base_details(self) -> dict[str, Any]:
        raise NotImplementedError

    def _check(self, subject: object) -> Result:
        calls = [c for c in located_calls(subject) if c.call.name == self.tool]
        details = self._base_details()
        if not calls:
            details["results"] = []
            return Result(
                _F,
                self.kind,
                f"expected a result of '{self.tool}' "
                f"{self._wanted()} but '{self.tool}' was never called",
                details,
            )
        rows: list[dict[str, Any]] = []
        timeout: RegexTimeoutError | None = None
        for c in calls:
            if c.result is None:
                rows.append({"call": c.location, "content": None, "matched": None})
                continue
            text = _result_text(c.result)
            try:
                rows.append({"call": c.location, "content": text, "matched": self._test(text)})
            except RegexTimeoutError as exc:  # undecided: another result may still decide
                timeout = timeout or exc
                rows.append({"call": c.location, "content": text, "matched": None})
                rows[-1]["error"] = "timeout"
        details["results"] = rows
        present = [r for r in rows if r["matched"] is not None]
        if self.match == "any" and any(r["matched"] for r in present):
            return Result(_P, self.kind, self._held(), details)
        if self.match == "all" and any(not r["matched"] for r in present):
            bad = [r for r in present if not r["matched"]]
            first = bad[0]
            return Result(
                _F,
                self.kind,
                f"expected every result of '{self.tool}' "
                f"{self._wanted()} but {first['call']} does not "
                f"({_quote(first['content'])})",
                details,
            )
        if timeout is not None:
            return Result(_E, self.kind, str(timeout), {**details, "error": "timeout"})
        if self.match == "any":
            if not present:
                return Result(
                    _E,
                    self.kind,
                    f"'{self.tool}' was called but no result of it was recorded",
                    details,
                )
            first = present[0]
            return Result(
                _F,
                self.kind,
                f"expected a result of '{self.tool}' {self._wanted()} "
                f"but none of its {len(present)} result(s) does ({first['call']}: "
                f"{_quote(first['content'])})",
                details,
            )
        if len(present) < len(rows):
            lost = next(r["call"] for r in rows if r["matched"] is None)
            return Result(
                _E, self.kind, f"no result was recorded for '{self.tool}' ({lost})", details
            )
        return Result(_P, self.kind, self._held(), details)


@register
class ToolResultContains(_ResultCheck):
    """Passes when a result of `tool` contains `value` (ignoring case unless told otherwise).

    With `match: all` every call's result must contain it. A result's text is its content,
    or its structured data as JSON. The tool never called → failed; called but no result in
    the transcript → error.

    Example:
        >>> from chatassert import ToolCall, ToolResult, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="lookup_order", id="c1")],
        ...             tool_results=[ToolResult(call_id="c1", content="Order 1042: SHIPPED")])
        >>> ToolResultContains("lookup_order", "shipped").check(turn).passed
        True
    """

    __slots__ = ("_needle", "case_sensitive", "value")
    kind = "tool_result_contains"
    params = (
        Param("tool", "str", required=True, doc="the tool's exact name"),
        Param("value", "text", required=True, doc="the text a result must contain"),
        Param("case_sensitive", "bool", default=False),
        Param(
            "match", "str", default="any", choices=_MATCH, doc="any: some result; all: every result"
        ),
    )
    value: str
    case_sensitive: bool
    _needle: str

    def __init__(
        self,
        tool: str,
        value: str,
        *,
        case_sensitive: bool = False,
        match: str = "any",
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        self._init_common(tool, match)
        if not isinstance(value, str) or not value:
            raise ValueError(f"tool_result_contains needs a non-empty value, got {value!r}")
        if not isinstance(case_sensitive, bool):
            raise TypeError(f"case_sensitive must be true or false, got {case_sensitive!r}")
        self._set("value", value)
        self._set("case_sensitive", case_sensitive)
        self._set("_needle", value if case_sensitive else value.lower())

    def _wanted(self) -> str:
        return f"containing {self.value!r}"

    def _test(self, text: str) -> bool:
        return self._needle in (text if self.case_sensitive else text.lower())

    def _base_details(self) -> dict[str, Any]:
        return {"tool": self.tool, "value": self.value, "match": self.match}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"a result of {self.tool} contains {self.value!r}"


@register
class ToolResultMatches(_ResultCheck):
    """Passes when a result of `tool` matches the regular expression `pattern` (G8).

    With `match: all` every call's result must match. A search that exceeds the regex time
    limit is an error.

    Example:
        >>> from chatassert import ToolCall, ToolResult, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="create_ticket")],
        ...             tool_results=[ToolResult(content="created TCK-2291")])
        >>> ToolResultMatches("create_ticket", r"TCK-\\d+").check(turn).passed
        True
    """

    __slots__ = ("_pattern", "pattern")
    kind = "tool_result_matches"
    params = (
        Param("tool", "str", required=True, doc="the tool's exact name"),
        Param("pattern", "str", required=True, doc="a Go/RE2 regular expression"),
        Param(
            "match", "str", default="any", choices=_MATCH, doc="any: some result; all: every result"
        ),
    )
    options = ("regex_timeout",)
    pattern: str
    _pattern: Pattern

    def __init__(
        self,
        tool: str,
        pattern: str,
        *,
        match: str = "any",
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._init_common(tool, match)
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"tool_result_matches needs a non-empty pattern, got {pattern!r}")
        self._set("pattern", pattern)
        try:
            compiled = compile_pattern(pattern, timeout=regex_timeout)
        except ValueError as exc:
            raise ValueError(f"tool_result_matches pattern: {exc}") from None
        self._set("_pattern", compiled)

    def _wanted(self) -> str:
        return f"matching /{self.pattern}/"

    def _test(self, text: str) -> bool:
        return self._pattern.matches(text)

    def _base_details(self) -> dict[str, Any]:
        return {"tool": self.tool, "pattern": self.pattern, "match": self.match}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"a result of {self.tool} matches /{self.pattern}/"


@register
class NoToolErrors(_CallCheck):
    """Passes when no tool call (of `tools`, if given) errored.

    A call errored when its result is flagged `is_error` in the transcript, starts with
    `Error:` / `Error -` or a Python traceback, or is a JSON object with a non-empty `error`
    key or `is_error`/`isError` true. Calls without a recorded result are not errors.

    Example:
        >>> from chatassert import ToolCall, ToolResult, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="charge_card", id="c1")],
        ...             tool_results=[ToolResult(call_id="c1", content="card declined",
        ...                                      is_error=True)])
        >>> NoToolErrors().check(turn).reason
        "expected no tool errors but 1 of 1 calls errored: 'charge_card' (tool_calls[0]): \
'card declined'"
    """

    __slots__ = ("tools",)
    kind = "no_tool_errors"
    params = (
        Param("tools", "str_list", default=None, doc="only these tools (default: every tool)"),
    )
    tools: tuple[str, ...] | None

    def __init__(
        self, tools: str | Sequence[str] | None = None, *, message: str | None = None
    ) -> None:
        super().__init__(message=message)
        if tools is not None:
            tools = check_keys(tools, "tools")
            if not tools:
                raise ValueError("tools must name at least one tool (or be omitted for all)")
        self._set("tools", tools)

    def describe(self) -> str:
        """Describe the requirement."""
        return "no tool call errored"

    def _check(self, subject: object) -> Result:
        calls = [
            c for c in located_calls(subject) if self.tools is None or c.call.name in self.tools
        ]
        errors = []
        for c in calls:
            flag = error_flag(c.result)
            if flag is not None:
                assert c.result is not None
                errors.append(
                    {
                        "call": c.location,
                        "tool": c.call.name,
                        "flag": flag,
                        "content": _result_text(c.result),
                    }
                )
        details = {"errors": errors, "error_count": len(errors), "call_count": len(calls)}
        if not errors:
            return Result(_P, self.kind, self._held(), details)
        listed = "; ".join(
            f"'{e['tool']}' ({e['call']}): {_quote(e['content'])}" for e in errors[:3]
        )
        more = f"; and {len(errors) - 3} more" if len(errors) > 3 else ""
        return Result(
            _F,
            self.kind,
            f"expected no tool errors but {len(errors)} of "
            f"{len(calls)} calls errored: {listed}{more}",
            details,
        )
