"""Transcript builders and records shared by the trajectory tests (docs/trajectories.md).

Used by test_sequence.py, test_call_counts.py, test_tool_results.py and test_trajectory.py in this
directory, which import it as `from trajectory_helpers import ...` (pytest puts the test file's
directory on sys.path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chatassert import Status, ToolCall, ToolResult, Turn

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR


def call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    """A call of `name`; arguments default to none given (`{}`)."""
    return ToolCall(name=name, arguments={} if arguments is None else arguments, id=id)


def turn(
    *calls: str | ToolCall, text: str = "Done.", results: list[ToolResult] | None = None
) -> Turn:
    """A turn answering `text` after these calls (a name is a call without arguments)."""
    return Turn(
        text=text,
        tool_calls=[call(c) if isinstance(c, str) else c for c in calls],
        tool_results=results or [],
    )


def record(result: Any) -> tuple[Status, str, dict[str, Any]]:
    return result.status, result.reason, dict(result.details)


def locations(n: int) -> list[str]:
    return [f"tool_calls[{j}]" for j in range(n)]


def raises_with(build: Callable[[], object], error: type[Exception], message: str) -> None:
    """Building the check raises `error` whose text is exactly `message`."""
    with pytest.raises(error) as info:
        build()
    assert str(info.value) == message


EXPECTED = ["search", "book", "confirm"]

BROKEN = ToolCall(name="book", arguments='{"date": 2024-02-15')

AGENT_LOOP = [
    {"role": "user", "content": "Where is order 1042?"},
    {"role": "assistant", "content": "Let me check.", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "lookup_order", "arguments": '{"order_id": "1042"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "shipped"}'},
    {"role": "assistant", "content": "One moment while I get the tracking link."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c2", "type": "function",
         "function": {"name": "tracking_link", "arguments": '{"order_id": "1042"}'}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "https://track.example/1042"},
    {"role": "assistant", "content": "It shipped: https://track.example/1042"},
]  # fmt: skip

SLOW = "a" * 40000 + "!"  # `(a|aa)+$` backtracks for far longer than 50 ms on this
