"""Guard a hand-written tool loop with a `chatassert.monitor.Monitor`: `run_tool` asks the
monitor before a tool runs, runs it only when allowed, and records the call and its result.

A denied call is recorded as the model asked for it, with an errored result whose text is the
decision's reason, and the tool is not run: send `run.result.content` back to the model as the
call's output, and log it as the call's result, so an offline check of the log sees what the
monitor saw. No extra is needed.

Example:
    >>> import asyncio
    >>> from chatassert.monitor import Monitor
    >>> from chatassert.policies import ToolBefore
    >>> monitor = Monitor(ToolBefore("lookup_order", "issue_refund"))
    >>> _ = monitor.user("Refund order A1.")
    >>> def issue_refund(order: str) -> str:
    ...     return f"refunded {order}"
    >>> run = asyncio.run(run_tool(monitor, {"name": "issue_refund", "arguments":
    ...                                      {"order": "A1"}, "id": "c1"}, issue_refund))
    >>> run.ran, run.result.is_error, run.decision.denied_by[0].name
    (False, True, 'tool_before')
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from chatassert._models import ToolCall, ToolResult
from chatassert.monitor import Decision, Monitor

__all__ = ["ToolRun", "record_answer", "run_tool"]

T = TypeVar("T")


@dataclass(frozen=True)
class ToolRun(Generic[T]):
    """What `run_tool` did with one call.

    Attributes:
        decision: The monitor's decision, naming the exact call.
        ran: Whether the tool ran (False when the call was denied, or its arguments were not
            JSON).
        value: What the tool returned (None when it did not run).
        result: The result recorded in the monitor: the tool's output as text (a string as it
            is, anything else as JSON), or, for a denied call, the decision's reason as an
            errored result. Send its `content` back to the model as the call's output.
    """

    decision: Decision
    ran: bool
    value: T | None
    result: ToolResult


def record_answer(
    monitor: Monitor,
    text: str,
    calls: Sequence[ToolCall],
    decide: Callable[[ToolCall], object],
) -> None:
    """Record a model's answer in `monitor`: its text and the calls it asks for, in order,
    each call given to `decide` before it is recorded (so the decision sees the calls before
    it, as the run will have made them). The text goes with the first call, as one assistant
    message; each further call is recorded alone. The adapters of the Agents SDK and ADK
    record their model's answers this way; `decide` keeps the decision for the guard that
    later lets the call run or not.

    Example:
        >>> from chatassert.monitor import Monitor
        >>> from chatassert.policies import MaxConsecutive
        >>> monitor = Monitor(MaxConsecutive("search", 1))
        >>> _ = monitor.user("Find it.")
        >>> asked = [ToolCall(name="search", id="a"), ToolCall(name="search", id="b")]
        >>> decisions = []
        >>> def decide(call):
        ...     decisions.append(monitor.permits(call))
        >>> record_answer(monitor, "Looking.", asked, decide)
        >>> [d.allowed for d in decisions]
        [True, False]
    """
    rest = list(calls)
    if text:
        first = rest[:1]
        if first:
            decide(first[0])
        monitor.assistant(text, tool_calls=first)
        rest = rest[1:]
    for call in rest:
        decide(call)
        monitor.tool_call(call)


async def run_tool(
    monitor: Monitor,
    call: ToolCall | Mapping[str, Any],
    tool: Callable[..., Awaitable[T]] | Callable[..., T],
) -> ToolRun[T]:
    """Run `tool` for `call` when the monitor permits it; record the call and its result.

    The call (a `ToolCall`, or a mapping `{name, arguments, id}` whose arguments are a mapping
    or a JSON string) is decided with `monitor.permits`, then recorded as made. When allowed,
    `tool(**arguments)` runs (awaited when it returns an awaitable) and its output is recorded
    as the call's result; when denied, the tool does not run and the result is the reason.
    An allowed call whose arguments are not JSON does not run either: its result says so.

    Raises:
        MonitorError: when the call is malformed (as `monitor.permits` raises it).
        Exception: whatever the tool raises, after its message was recorded as the call's
            errored result.
    """
    decision = monitor.permits(call)
    made = decision.call
    monitor.tool_call(made)
    if not decision.allowed:
        denied = ToolResult(content=decision.reason, call_id=made.id, name=made.name, is_error=True)
        monitor.tool_result(denied)
        return ToolRun(decision, False, None, denied)
    if made.arguments_error is not None:  # allowed, but there is nothing to call the tool with
        unusable = ToolResult(
            content=f"the call's arguments cannot be used: {made.arguments_error}",
            call_id=made.id,
            name=made.name,
            is_error=True,
        )
        monitor.tool_result(unusable)
        return ToolRun(decision, False, None, unusable)
    try:
        value = tool(**made.arguments)
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:
        monitor.tool_result(
            ToolResult(content=str(exc), call_id=made.id, name=made.name, is_error=True)
        )
        raise
    result = ToolResult(content=_text(value), call_id=made.id, name=made.name)
    monitor.tool_result(result)
    return ToolRun(decision, True, value, result)


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
