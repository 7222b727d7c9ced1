"""What the calls returned: `ToolResultContains`, `ToolResultMatches`, `NoToolErrors`.

Each call is paired with its result by id, else by order (docs/trajectories.md, "Results of
calls"). Tests: tests/test_tool_results.py and, for specs shared with the other trajectory
checks, tests/test_trajectory.py.

Example:
    >>> from chatassert import NoToolErrors, ToolCall, ToolResult, Turn
    >>> turn = Turn(tool_calls=[ToolCall(name="fetch", id="1")],
    ...             tool_results=[ToolResult(call_id="1", content="404", is_error=True)])
    >>> NoToolErrors().check(turn).passed
    False
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from chatassert._errors import RegexTimeoutError
from chatassert._matchers import (
    check_keys,
    error_flag,
)
from chatassert._models import ToolResult
from chatassert._params import Param, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_pattern
from chatassert._result import Result, Status
from chatassert._trajectory_base import MATCH, CallCheck, choice, located_calls, quote

__all__ = [
    "NoToolErrors",
    "ToolResultContains",
    "ToolResultMatches",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR


# -- results of calls ------------------------------------------------------------------------


def _result_text(result: ToolResult) -> str:
    if result.content or result.data is None:
        return result.content
    return json.dumps(result.data, ensure_ascii=False, default=str)


class _ResultCheck(CallCheck):
    """Shared parts of the checks on the results of one tool's calls."""

    __slots__ = ("match", "tool")
    tool: str
    match: str
    evidence_at = "/tool_results"

    def _init_common(self, tool: str, match: str) -> None:
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError(f"{self.kind} needs a non-empty tool name, got {tool!r}")
        self._set("tool", tool)
        self._set("match", choice(match, MATCH, "match"))

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
                f"({quote(first['content'])})",
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
                f"{quote(first['content'])})",
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
            "match", "str", default="any", choices=MATCH, doc="any: some result; all: every result"
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
            "match", "str", default="any", choices=MATCH, doc="any: some result; all: every result"
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
class NoToolErrors(CallCheck):
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
    evidence_at = "/tool_results"
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
            f"'{e['tool']}' ({e['call']}): {quote(e['content'])}" for e in errors[:3]
        )
        more = f"; and {len(errors) - 3} more" if len(errors) > 3 else ""
        return Result(
            _F,
            self.kind,
            f"expected no tool errors but {len(errors)} of "
            f"{len(calls)} calls errored: {listed}{more}",
            details,
        )
