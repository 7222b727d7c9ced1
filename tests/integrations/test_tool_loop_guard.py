"""run_tool in a hand-written tool loop: a scripted model speaking OpenAI chat messages, the
loop's log checked offline by `chatassert check`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import ToolCallCount
from chatassert._cli import main
from chatassert.integrations.tool_loop import ToolRun, run_tool
from chatassert.monitor import Monitor
from chatassert.policies import ToolBefore


def asks(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """An assistant message calling tools, as the chat completions API returns it."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ],
    }


async def loop(
    monitor: Monitor, script: list[dict[str, Any]], tools: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[ToolRun[Any]]]:
    """The loop: each model message recorded, each call run through run_tool, its output
    sent back; the messages, as the loop logs them, and what run_tool did."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Refund order A1."}]
    monitor.user("Refund order A1.")
    runs: list[ToolRun[Any]] = []
    for reply in script:
        messages.append(reply)
        if not reply.get("tool_calls"):
            monitor.assistant(reply["content"])
            continue
        for asked in reply["tool_calls"]:
            fn = asked["function"]
            call = {"id": asked["id"], "name": fn["name"], "arguments": fn["arguments"]}
            run = await run_tool(monitor, call, tools[fn["name"]])
            runs.append(run)
            messages.append(
                {"role": "tool", "tool_call_id": asked["id"], "content": run.result.content}
            )
    return messages, runs


def offline(tmp_path: Path, messages: list[dict[str, Any]], spec: str) -> int:
    log = tmp_path / "loop.jsonl"
    log.write_text(json.dumps({"messages": messages}) + "\n", encoding="utf-8")
    return main(["check", "-a", spec, str(log), "-q"])


def test_a_denied_call_never_runs_and_the_log_gives_the_same_verdict(tmp_path: Path) -> None:
    ran: list[str] = []

    async def lookup_order(order: str) -> dict[str, str]:
        ran.append("lookup_order")
        return {"order": order, "status": "paid"}

    def issue_refund(order: str) -> str:
        ran.append("issue_refund")
        return f"refunded {order}"

    monitor = Monitor(
        [ToolBefore("lookup_order", "issue_refund"), ToolCallCount("issue_refund", max=1)]
    )
    script = [
        asks(("c1", "lookup_order", {"order": "A1"})),
        asks(("c2", "issue_refund", {"order": "A1"}), ("c3", "issue_refund", {"order": "A1"})),
        {"role": "assistant", "content": "Order A1 is refunded."},
    ]
    tools = {"lookup_order": lookup_order, "issue_refund": issue_refund}
    messages, runs = asyncio.run(loop(monitor, script, tools))

    assert ran == ["lookup_order", "issue_refund"]  # the second refund's body never ran
    looked, refunded, denied = runs
    assert (looked.ran, looked.value) == (True, {"order": "A1", "status": "paid"})
    assert looked.result.content == '{"order": "A1", "status": "paid"}'
    assert (refunded.ran, refunded.value) == (True, "refunded A1")
    assert (denied.ran, denied.value, denied.decision.allowed) == (False, None, False)
    assert denied.decision.call.id == "c3"
    assert denied.decision.call.arguments == {"order": "A1"}
    assert [s.name for s in denied.decision.denied_by] == ["tool_call_count"]
    assert (denied.result.content, denied.result.is_error) == (denied.decision.reason, True)

    # the loop's log, checked offline: the same verdict for each check
    spec = '{"type": "tool_before", "first": "lookup_order", "then": "issue_refund"}'
    assert offline(tmp_path, messages, spec) == 0
    count = '{"type": "tool_call_count", "tool": "issue_refund", "max": 1}'
    assert offline(tmp_path, messages, count) == 1
    verdict = monitor.finish()
    assert [c.status.value for c in verdict.children] == ["passed", "failed"]


def test_a_refund_before_the_lookup_is_denied(tmp_path: Path) -> None:
    ran: list[str] = []
    monitor = Monitor(ToolBefore("lookup_order", "issue_refund"))
    script = [
        asks(("c1", "issue_refund", {"order": "A1"})),
        {"role": "assistant", "content": "I cannot refund order A1 before it is looked up."},
    ]
    messages, (denied,) = asyncio.run(
        loop(monitor, script, {"issue_refund": lambda order: ran.append(order)})
    )
    assert ran == []
    assert (denied.decision.call.id, denied.ran) == ("c1", False)
    assert monitor.finish().status.value == "failed"
    spec = '{"type": "tool_before", "first": "lookup_order", "then": "issue_refund"}'
    assert offline(tmp_path, messages, spec) == 1


def test_arguments_that_are_not_json_do_not_reach_the_tool() -> None:
    ran: list[str] = []
    monitor = Monitor(ToolCallCount("search", max=3))
    call = {"id": "c1", "name": "search", "arguments": '{"q": '}
    run = asyncio.run(run_tool(monitor, call, lambda **kw: ran.append("search")))
    assert ran == []
    assert not run.ran
    assert run.result.is_error
    assert "cannot be used" in run.result.content


def test_a_tool_that_raises_is_recorded_as_an_errored_result_and_raises() -> None:
    monitor = Monitor(ToolCallCount("search", max=3))

    def search(q: str) -> str:
        raise RuntimeError("the index is down")

    with pytest.raises(RuntimeError, match="the index is down"):
        asyncio.run(
            run_tool(monitor, {"id": "c1", "name": "search", "arguments": {"q": "x"}}, search)
        )
    (turn,) = monitor.conversation.turns
    assert [(r.content, r.is_error) for r in turn.tool_results] == [("the index is down", True)]
