"""`ToolSequence`: the tools called, in which order, with which arguments (docs/trajectories.md).

Orders are `exact`, `in_order`, `any_order`, `subset`, `superset` and `per_message`; steps are
`ExpectedCall`s (`chatassert.args`) matched to calls one-to-one; `comparators` given in code
compare a tool's arguments instead of its argument mode. Tests: tests/test_sequence.py,
tests/test_trajectory_props.py and, for specs shared with the other trajectory checks,
tests/test_trajectory.py.

Example:
    >>> from chatassert import ToolCall, ToolSequence, Turn
    >>> turn = Turn(tool_calls=[ToolCall(name="search"), ToolCall(name="book")])
    >>> ToolSequence(["search", "book"], order="exact").check(turn).passed
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from chatassert._errors import RegexTimeoutError
from chatassert._matchers import (
    ARGS_EQUALITY,
    ARGUMENT_MODES,
    ExpectedCall,
    check_keys,
    check_mode,
    equality,
    error_flag,
    render_arguments,
)
from chatassert._models import ToolCall
from chatassert._params import Param, did_you_mean, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT
from chatassert._result import Result, Status
from chatassert._trajectory_base import (
    ORDERS,
    CallCheck,
    CallPattern,
    Comparator,
    ComparatorError,
    LocatedCall,
    bracketed_names,
    choice,
    located_calls,
    message_groups,
)

__all__ = [
    "ToolSequence",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR


# -- sequences -------------------------------------------------------------------------------


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
class ToolSequence(CallCheck):
    """Passes when the agent's tool calls follow the expected steps in the given `order`.

    Orders (one call is matched per expected step):

    - `exact`: the calls are the steps, in order, with nothing else;
    - `in_order` (default): the steps appear in order, other calls may come between;
    - `any_order`: the calls are the steps in some order (same multiset, nothing else);
    - `subset`: every call is one of the steps (nothing outside them; steps may be skipped);
    - `superset`: every step was called (in any order; other calls are fine);
    - `per_message`: the calls grouped by the assistant message that made them are the steps
      grouped the same way, message by message, in any order within a message (agentevals'
      `strict`). A step that is a list is one message's calls; a single step is a message
      making one call. Messages without calls are not counted; a turn given without messages
      is one message.

    An empty list of steps means "no tool calls" in the orders `exact`, `any_order`, `subset`
    and `per_message` (in `in_order` and `superset` it would hold for every trajectory, and is
    refused).

    A step is a tool name, an `ExpectedCall`, or a mapping `{tool, arguments?,
    argument_mode?, ignore_keys?}`. Arguments compare in `argument_mode` (`partial`: G9 loose
    match, extra arguments fine; `exact`: no extra arguments; `ignore`), which a step or
    `per_tool` (`{tool: {argument_mode?, ignore_keys?}}`) may override. Values compare
    loosely (G9) unless `args_equality="strict"` (G14: strict JSON equality, `4` is not
    `"4"`); matchers keep their own rules. When the outcome depends on a call whose arguments
    are not valid JSON, the result is an `error`.

    `comparators` (in code only, not in specs) maps a tool name to a function
    `(actual_arguments, expected_arguments) -> bool` that decides whether a call of that tool
    matches a step, in place of the argument mode; it gets the step's arguments in their spec
    form (`{}` when the step gives none). A comparator that raises or returns something other
    than a bool, when its answer could change the outcome, makes the result an `error`.

    A passing reason is `called [tools]`. The failure reason lists both sequences and explains
    the first divergence: a call with other arguments names its first three argument problems,
    and `any_order`/`subset`/`superset` name the first four missing steps or unexpected calls,
    each list then ending `; and N more`. `details` hold `matched` pairs, `missing` steps,
    `unexpected` calls, `precision` and `recall`.

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

    __slots__ = (
        "_groups",
        "_steps",
        "args_equality",
        "argument_mode",
        "comparators",
        "ignore_keys",
        "order",
        "per_tool",
        "steps",
    )
    kind = "tool_sequence"
    options = ("regex_timeout", "comparators")
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
            doc="exact, in_order, any_order, subset, superset or per_message",
        ),
        Param(
            "argument_mode",
            "str",
            default="partial",
            choices=ARGUMENT_MODES,
            doc="how arguments compare: partial, exact, ignore or subset",
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
        Param(
            "args_equality",
            "str",
            default="loose",
            choices=ARGS_EQUALITY,
            doc="how argument values compare: loose (4 equals '4') or strict JSON equality",
        ),
    )
    steps: tuple[ExpectedCall, ...]
    args_equality: str
    order: str
    argument_mode: str
    ignore_keys: tuple[str, ...]
    per_tool: dict[str, dict[str, Any]] | None
    comparators: dict[str, Comparator] | None
    _steps: tuple[CallPattern, ...]
    _groups: tuple[tuple[int, int], ...] | None

    def __init__(
        self,
        steps: Sequence[str | ExpectedCall | Mapping[str, Any] | Sequence[Any]],
        order: str = "in_order",
        *,
        argument_mode: str = "partial",
        ignore_keys: Sequence[str] = (),
        per_tool: Mapping[str, Mapping[str, Any]] | None = None,
        args_equality: str = "loose",
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
        comparators: Mapping[str, Comparator] | None = None,
    ) -> None:
        super().__init__(message=message)
        equality(args_equality)  # refuses a name that is not one of ARGS_EQUALITY
        self._set("args_equality", args_equality)
        if isinstance(steps, str | bytes | Mapping) or not isinstance(steps, Sequence):
            raise TypeError(
                "steps must be a list of expected calls (tool names or mappings with 'tool'), "
                f"got {type(steps).__name__} {steps!r}"
            )
        chosen = choice(order, ORDERS, "order") if order in ORDERS else None
        if not steps and chosen not in ("exact", "any_order", "subset", "per_message"):
            raise ValueError("steps must name at least one expected call")
        flat: list[Any] = []
        groups: list[tuple[int, int]] = []
        for i, s in enumerate(steps):
            if isinstance(s, Sequence) and not isinstance(s, str | bytes):
                if order != "per_message":
                    raise TypeError(
                        f"steps[{i}] is a list (one message's calls): give order per_message "
                        "to compare calls message by message"
                    )
                if not s:
                    raise ValueError(
                        f"steps[{i}] is an empty message; each message makes at least one call"
                    )
                groups.append((len(flat), len(flat) + len(s)))
                flat.extend((f"steps[{i}][{k}]", item) for k, item in enumerate(s))
            else:
                groups.append((len(flat), len(flat) + 1))
                flat.append((f"steps[{i}]", s))
        parsed = tuple(
            ExpectedCall.coerce(s, where, regex_timeout=regex_timeout) for where, s in flat
        )
        self._set("steps", parsed)
        self._set("order", choice(order, ORDERS, "order"))
        self._set("_groups", tuple(groups) if order == "per_message" else None)
        check_mode(argument_mode, "argument_mode")
        self._set("argument_mode", argument_mode)
        self._set("ignore_keys", check_keys(ignore_keys, "ignore_keys"))
        self._set("per_tool", _per_tool(per_tool))
        self._set("comparators", _comparators(comparators, {s.tool for s in parsed}))
        overrides = self.per_tool or {}
        custom = self.comparators or {}
        resolved = []
        for step in parsed:
            override = overrides.get(step.tool, {})
            mode = step.argument_mode or override.get("argument_mode") or argument_mode
            ignored = (*self.ignore_keys, *override.get("ignore_keys", ()), *step.ignore_keys)
            resolved.append(
                CallPattern(
                    step.tool,
                    step.arguments,
                    mode,
                    ignored,
                    args_equality,
                    custom.get(step.tool),
                )
            )
        self._set("_steps", tuple(resolved))

    def spec_params(self) -> dict[str, Any]:
        """Return the spec parameters, with each step in its spec form (in `per_message`
        order, each message's steps as a list)."""
        out = super().spec_params()
        specs = [s.to_spec() for s in self.steps]
        if self._groups is None:
            out["steps"] = specs
        else:
            out["steps"] = [specs[a:b] for a, b in self._groups]
        return out

    def _identity(self) -> str:
        """The spec, plus which comparators are given (functions compare by identity)."""
        base = super()._identity()
        if not self.comparators:
            return base
        names = {
            tool: f"{getattr(f, '__qualname__', f)}@{id(f)}" for tool, f in self.comparators.items()
        }
        return base + json.dumps(names, sort_keys=True)

    def describe(self) -> str:
        """Describe the requirement."""
        if not self.steps:
            return "calls no tool"
        if self._groups is not None:
            return f"calls {self._group_names()} (per message)"
        order = self.order.replace("_", " ")
        return f"calls {bracketed_names([s.tool for s in self.steps])} ({order})"

    def _group_names(self) -> str:
        assert self._groups is not None
        return (
            "["
            + ", ".join(
                bracketed_names([s.tool for s in self._steps[a:b]]) for a, b in self._groups
            )
            + "]"
        )

    # -- evaluation ------------------------------------------------------------------------

    def _passes(self, matrix: list[list[bool]], n: int, groups: Sequence[list[int]] = ()) -> bool:
        m = len(matrix)
        order = self.order
        if order == "per_message":
            return self._message_pairs(matrix, groups) is not None
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

    def _message_pairs(
        self, matrix: list[list[bool]], groups: Sequence[list[int]]
    ) -> list[int] | None:
        """`per_message`: the call of each step when every message matches, else None."""
        assert self._groups is not None
        if len(groups) != len(self._groups):
            return None
        pairs = self._group_pairs(matrix, groups)
        return None if -1 in pairs else pairs

    def _group_pairs(self, matrix: list[list[bool]], groups: Sequence[list[int]]) -> list[int]:
        """`per_message`: match each expected message with the actual one at its place."""
        assert self._groups is not None
        pairs = [-1] * len(matrix)
        for (a, b), group in zip(self._groups, groups, strict=False):
            if b - a != len(group):
                continue
            sub = [[matrix[i][j] for j in group] for i in range(a, b)]
            got = _max_matching(sub, len(group))
            if -1 in got:
                continue
            for k, x in enumerate(got):
                pairs[a + k] = group[x]
        return pairs

    def _check(self, subject: object) -> Result:
        calls = located_calls(subject)
        n = len(calls)
        groups = message_groups(subject) if self._groups is not None else []
        undecided: list[RegexTimeoutError | ComparatorError] = []

        def compare(step: CallPattern, call: ToolCall) -> bool | None:
            try:
                return step.cell(call)
            except (RegexTimeoutError, ComparatorError) as exc:  # undecided, like bad JSON
                undecided.append(exc)
                return None

        cells = [[compare(step, c.call) for c in calls] for step in self._steps]
        sure = [[cell is True for cell in row] for row in cells]
        if self._passes(sure, n, groups):
            actual = bracketed_names([c.call.name for c in calls])
            reason = f"called {actual}" if calls else "called no tool"
            return Result(_P, self.kind, reason, self._details(sure, calls, groups))
        maybe = [[cell is not False for cell in row] for row in cells]
        details = self._details(sure, calls, groups)
        if self._passes(maybe, n, groups):
            invalid = [
                (s, c)
                for s, row in zip(self._steps, cells, strict=True)
                for c, cell in zip(calls, row, strict=True)
                if cell is None and c.call.arguments_error is not None
            ]
            if not invalid:  # only a regex out of time, or a comparator, stands in the way
                first = undecided[0]
                if isinstance(first, ComparatorError):
                    details.update(error="comparator", comparator_error=str(first))
                else:
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
        if not self._steps:
            where = ", ".join(c.location for c in calls[:5]) + (", …" if n > 5 else "")
            actual = bracketed_names([c.call.name for c in calls])
            return Result(
                _F, self.kind, f"expected no tool calls but got {actual} ({where})", details
            )
        if self._groups is not None:
            return Result(
                _F,
                self.kind,
                f"{self._message_header(calls, groups)}: "
                f"{self._message_divergence(sure, calls, groups)}",
                details,
            )
        return Result(
            _F, self.kind, f"{self._header(calls)}: {self._divergence(sure, calls)}", details
        )

    def _message_header(self, calls: Sequence[LocatedCall], groups: Sequence[list[int]]) -> str:
        actual = (
            "[" + ", ".join(bracketed_names([calls[j].call.name for j in g]) for g in groups) + "]"
        )
        return f"expected messages {self._group_names()} but got {actual}"

    def _message_divergence(
        self, matrix: list[list[bool]], calls: Sequence[LocatedCall], groups: Sequence[list[int]]
    ) -> str:
        assert self._groups is not None
        pairs = self._group_pairs(matrix, groups)
        for g, (a, b) in enumerate(self._groups):
            expected = bracketed_names([s.tool for s in self._steps[a:b]])
            if g >= len(groups):
                after = (
                    f"the last message with calls ends at {calls[-1].location}"
                    if calls
                    else "no tool was called"
                )
                return f"message {g + 1} {expected} missing: {after}"
            group = groups[g]
            if all(pairs[i] >= 0 for i in range(a, b)):
                continue
            got = [calls[j] for j in group]
            where = f"{got[0].location}" + (f" to {got[-1].location}" if len(got) > 1 else "")
            text = (
                f"message {g + 1} expected {expected} but got "
                f"{bracketed_names([c.call.name for c in got])} ({where})"
            )
            if b - a == len(group):  # same size: name a step no call of the message fulfils
                sub = [[matrix[i][j] for j in group] for i in range(a, b)]
                best = _max_matching(sub, len(group))
                used = {group[x] for x in best if x >= 0}
                free = [calls[j] for j in group if j not in used]
                step = self._steps[a + best.index(-1)]
                text += f"; {self._why_not(step, free)}"
            return text
        extra = groups[len(self._groups)]
        names = bracketed_names([calls[j].call.name for j in extra])
        return (
            f"unexpected extra message {len(self._groups) + 1} {names} ({calls[extra[0]].location})"
        )

    def _header(self, calls: Sequence[LocatedCall]) -> str:
        expected = bracketed_names([s.tool for s in self._steps])
        actual = bracketed_names([c.call.name for c in calls])
        prefix = {
            "exact": f"expected exactly {expected}",
            "in_order": f"expected {expected} in order",
            "any_order": f"expected {expected} in any order",
            "subset": f"expected only calls from {expected}",
            "superset": f"expected at least {expected}",
        }[self.order]
        return f"{prefix} but got {actual}"

    def _pairs(
        self, matrix: list[list[bool]], n: int, groups: Sequence[list[int]] = ()
    ) -> list[int]:
        if self._groups is not None:
            return self._group_pairs(matrix, groups)
        if self.order == "exact":
            return [i if i < n and matrix[i][i] else -1 for i in range(len(matrix))]
        if self.order == "in_order":
            return _lcs(matrix, n)
        return _max_matching(matrix, n)

    def _details(
        self,
        matrix: list[list[bool]],
        calls: Sequence[LocatedCall],
        groups: Sequence[list[int]] = (),
    ) -> dict[str, Any]:
        n, m = len(calls), len(self._steps)
        pairs = self._pairs(matrix, n, groups)
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
        out: dict[str, Any] = {
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
        if self.args_equality != "loose":
            out["args_equality"] = self.args_equality
        if self._groups is not None:
            out["expected_messages"] = [[s.tool for s in self._steps[a:b]] for a, b in self._groups]
            out["actual_messages"] = [[calls[j].location for j in g] for g in groups]
        if self.comparators:
            out["comparators"] = sorted(self.comparators)
        return out

    def _why_not(self, step: CallPattern, candidates: Sequence[LocatedCall]) -> str:
        """Explain why no call among `candidates` fulfils the step."""
        named = [c for c in candidates if c.call.name == step.tool]
        if not named:
            return f"'{step.tool}' was never called"
        first = named[0]
        if first.call.arguments_error is not None:
            return f"'{step.tool}' ({first.location}) has arguments that are not valid JSON"
        if step.comparator is not None:
            return f"the comparator for '{step.tool}' rejected its arguments ({first.location})"
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


def _comparators(
    value: Mapping[str, Comparator] | None, tools: set[str]
) -> dict[str, Comparator] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(
            "comparators must be a mapping {tool: function(actual, expected) -> bool}, "
            f"got {type(value).__name__}"
        )
    out: dict[str, Comparator] = {}
    for tool, function in value.items():
        if not isinstance(tool, str) or not tool:
            raise TypeError(f"comparators keys must be tool names, got {tool!r}")
        if not callable(function):
            raise TypeError(
                f"comparators.{tool} must be a function (actual, expected) -> bool, "
                f"got {type(function).__name__}"
            )
        if tool not in tools:
            hint = did_you_mean(tool, sorted(tools))
            raise ValueError(
                f"comparators.{tool}: no step calls '{tool}'" + (f" ({hint})" if hint else "")
            )
        out[tool] = function
    return out or None
