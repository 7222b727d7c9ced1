"""Tool-call checks and the loose argument equality shared by every dialect (G9).

Docs: docs/flat.md (`contains_function_call`) and docs/trajectories.md. Tests:
tests/test_tools.py and tests/test_tools_decisions.py.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from chatassert._base import Assertion, remember
from chatassert._lazy import TURN_TYPES
from chatassert._matchers import ARGS_EQUALITY, Equality, equality, loose_equal
from chatassert._models import ToolCall, Turn, as_turn
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "ContainsFunctionCall",
    "Mismatch",
    "argument_mismatches",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

# The types whose `==`, between two values of the same type, is G9's loose equality. Not the
# containers: Python's `==` takes `1` for `True` inside them (`{"a": 1} == {"a": True}`), G9
# does not, so a mapping or a list always goes through `loose_equal`.
_SCALARS = frozenset({str, int, float, bool})


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One argument that did not match: where, what was expected and what was there."""

    argument: str
    expected: Any
    actual: Any = None
    missing: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form used in result details."""
        out: dict[str, Any] = {"argument": self.argument, "expected": self.expected}
        if self.missing:
            out["problem"] = "missing"
        else:
            out["problem"] = "value_mismatch"
            out["actual"] = self.actual
        return out

    def describe(self, tool: str) -> str:
        """Explain the mismatch as a reason fragment."""
        if self.missing:
            return f"tool '{tool}' was called without argument '{self.argument}'"
        return (
            f"tool '{tool}' was called with {self.argument}={_render(self.actual)}, "
            f"expected {_render(self.expected)}"
        )


def _render(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value).replace("'", '"')
    return text if len(text) <= 60 else text[:45] + "…" + text[-10:]


def argument_mismatches(
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    prefix: str = "",
    equal: Equality = loose_equal,
) -> list[Mismatch]:
    """List the arguments of `actual` that do not match `expected` (partial match).

    Values compare with `equal`: loose (G9) by default, or `strict_equal` (G14). Nested
    mappings are compared key by key so the mismatch names the deepest argument
    (`address.city`); extra actual arguments are fine.
    """
    out: list[Mismatch] = []
    for key, want in expected.items():
        name = f"{prefix}{key}"
        if key not in actual:
            out.append(Mismatch(name, want, missing=True))
            continue
        got = actual[key]
        if isinstance(want, Mapping) and want and isinstance(got, Mapping):
            out.extend(argument_mismatches(want, got, f"{name}.", equal))
        elif not equal(want, got):
            out.append(Mismatch(name, want, got))
    return out


@register
class ContainsFunctionCall(Assertion):
    """Passes when the turn called the tool (exact name) with at least the given arguments.

    Arguments match partially and loosely (G9): extra actual arguments are fine, `4` equals
    `"4"`, an expected `None` only requires presence. With `args_equality="strict"` values
    compare with strict JSON equality instead (G14: `4` is not `"4"`, `true` is not `1`, `1`
    is `1.0`). When the tool was called only with arguments that are not valid JSON, the
    result is an `error`.

    Example:
        >>> from chatassert import ContainsFunctionCall, ToolCall, Turn
        >>> turn = Turn(tool_calls=[ToolCall(name="create_reservation",
        ...                                  arguments={"party_size": 4, "date": "2024-02-15"})])
        >>> ContainsFunctionCall("create_reservation", {"party_size": "4"}).check(turn).passed
        True
        >>> ContainsFunctionCall("cancel").check(turn).reason
        "Expected tool 'cancel', found: ['create_reservation']"
    """

    __slots__ = (
        "_equal",
        "_expected_items",
        "_memo",
        "_pass",
        "args_equality",
        "arguments",
        "tool",
    )
    kind = "contains_function_call"
    dialect_names = {"flat": "contains_function_call"}
    evidence_at = "/tool_calls"
    params = (
        Param("value", "str", required=True, attr="tool", doc="the tool's exact name"),
        Param(
            "arguments",
            "mapping",
            default=None,
            doc="arguments the call must have (partial, loose match)",
        ),
        Param(
            "args_equality",
            "str",
            default="loose",
            choices=ARGS_EQUALITY,
            doc="how argument values compare: loose (4 equals '4') or strict JSON equality",
        ),
    )
    tool: str
    arguments: dict[str, Any] | None
    args_equality: str
    _equal: Equality
    _expected_items: tuple[tuple[str, Any], ...]
    _pass: Result
    _memo: dict[tuple[str, ...], Result]

    def __init__(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        args_equality: str = "loose",
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError("contains_function_call needs a non-empty tool name")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise TypeError(f"arguments must be a mapping, got {type(arguments).__name__}")
        self._set("_equal", equality(args_equality))
        self._set("args_equality", args_equality)
        self._set("tool", tool)
        # no arguments to match ({}) is the same requirement as none given: any call of the tool
        self._set("arguments", _json_ready(dict(arguments)) if arguments else None)
        self._set("_expected_items", tuple((self.arguments or {}).items()))
        self._set("_pass", self._constant(_P, "", self._base_details()))
        self._set("_memo", {})

    def _base_details(self) -> dict[str, Any]:
        details: dict[str, Any] = {"tool": self.tool}
        if self.arguments is not None:
            details["arguments"] = self.arguments
        if self.args_equality != "loose":
            details["args_equality"] = self.args_equality
        return details

    def _matches(self, actual: Mapping[str, Any]) -> bool:
        """The fast test behind a pass: every expected argument present and equal."""
        equal = self._equal
        for key, want in self._expected_items:
            if key not in actual:
                return False
            got = actual[key]
            if type(got) is type(want) and type(want) in _SCALARS and got == want:
                continue  # the common case (equal in both modes), without the type tests
            if not equal(want, got):
                return False
        return True

    def _check(self, subject: object) -> Result:
        turn = cast(Turn, subject) if type(subject) in TURN_TYPES else as_turn(subject)
        tool = self.tool
        if self.arguments is None:
            for call in turn.tool_calls:
                if call.name == tool:
                    return self._pass
        else:
            for call in turn.tool_calls:
                if (
                    call.name == tool
                    and call.arguments_error is None
                    and self._matches(call.arguments)
                ):
                    return self._pass
        return self._explain(turn)

    def _explain(self, turn: Turn) -> Result:
        """Build the failure (or error) with every detail; only reached when no call matched."""
        called = turn.called_tools  # cached on the turn
        if self.tool not in called:  # the same failure for every turn that called these tools
            key = tuple(called)
            result = self._memo.get(key)
            if result is None:
                reason = f"Expected tool '{self.tool}', found: {called}"
                details = {**self._base_details(), "called_tools": list(called)}
                result = remember(self._memo, key, self._constant(_F, reason, details))
            return result
        details = {**self._base_details(), "called_tools": called}
        return self._match_arguments([c for c in turn.tool_calls if c.name == self.tool], details)

    def _match_arguments(self, named: Sequence[ToolCall], details: dict[str, Any]) -> Result:
        assert self.arguments is not None
        reports: list[dict[str, Any]] = []
        first: Mismatch | None = None
        invalid: ToolCall | None = None
        for call in named:
            if call.arguments_error is not None:
                invalid = invalid or call
                reports.append({"arguments": call.raw_arguments, "error": call.arguments_error})
                continue
            mismatches = argument_mismatches(self.arguments, call.arguments, equal=self._equal)
            if not mismatches:
                return Result(
                    _P,
                    self.kind,
                    self._held(),
                    {**details, "calls": [{"arguments": call.arguments, "mismatches": []}]},
                )
            first = first or mismatches[0]
            reports.append(
                {"arguments": call.arguments, "mismatches": [m.to_dict() for m in mismatches]}
            )
        details["calls"] = reports
        if invalid is not None:
            return Result(
                _E,
                self.kind,
                f"cannot compare the arguments of tool '{self.tool}': {invalid.arguments_error}"
                if invalid.arguments_unrecorded
                else f"tool '{self.tool}' was called with arguments that "
                f"are not valid JSON ({invalid.arguments_error})",
                details,
            )
        assert first is not None
        return Result(_F, self.kind, first.describe(self.tool), details)

    def describe(self) -> str:
        """Describe the requirement."""
        if self.arguments is None:
            return f"calls {self.tool}"
        strict = " (strict equality)" if self.args_equality == "strict" else ""
        return f"calls {self.tool} with {self.arguments}{strict}"


def _json_ready(value: Any) -> Any:
    """Copy a spec value, turning dates into ISO strings so specs stay JSON."""
    if isinstance(value, Mapping):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value
