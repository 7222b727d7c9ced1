"""chatassert.monitor: events in every accepted form, guards, fail closed, refusals."""

from __future__ import annotations

import pytest

from chatassert import (
    Contains,
    GuardrailEvent,
    LLMRubric,
    MaxToolCalls,
    OnLastTurn,
    ToolCall,
    WorkflowTransition,
)
from chatassert.errors import MonitorError
from chatassert.monitor import Metadata, Monitor
from chatassert.policies import OnlyTools, ToolBefore
from chatassert.usage import CostAtMost


def test_raw_dicts_of_each_format_make_the_conversation_their_reader_makes() -> None:
    monitor = Monitor(MaxToolCalls(5))
    monitor.feed({"role": "user", "content": "Weather in Rome?"})
    monitor.feed(  # OpenAI chat
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
            ],
        }
    )
    monitor.feed({"role": "tool", "tool_call_id": "a", "content": "21"})
    monitor.feed(  # Anthropic
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "b", "name": "news", "input": {}}],
        }
    )
    monitor.feed(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "b", "content": "quiet"}],
        }
    )
    monitor.feed({"type": "function_call", "call_id": "c", "name": "map", "arguments": "{}"})
    monitor.feed({"type": "function_call_output", "call_id": "c", "output": "ok"})
    monitor.feed(
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "21 and quiet."}],
        }
    )
    (turn,) = monitor.conversation.turns
    assert [c.name for c in turn.tool_calls] == ["weather", "news", "map"]
    assert [r.content for r in turn.tool_results] == ["21", "quiet", "ok"]
    assert turn.text == "21 and quiet."


def test_guardrails_metadata_and_transitions_go_where_the_readers_put_them() -> None:
    monitor = Monitor(CostAtMost(0.01))
    monitor.user("hi")
    monitor.feed(GuardrailEvent(name="pii"))
    monitor.feed(Metadata({"cost": 0.004}))
    monitor.feed(Metadata({"cost": 0.004}))
    monitor.feed(Metadata({"run": "r1"}, scope="conversation"))
    monitor.feed(WorkflowTransition.model_validate({"from": "start", "to": "refund"}))
    chat = monitor.conversation
    assert chat.turns[0].guardrails[0].name == "pii"
    assert chat.turns[0].metadata["cost"] == pytest.approx(0.008)
    assert chat.turns[0].metadata["model_calls"] == 2
    assert chat.metadata == {"run": "r1"}
    assert chat.workflow is not None
    assert chat.workflow.current == "refund"
    assert monitor.finish().passed


def test_malformed_events_are_errors_that_name_the_event() -> None:
    monitor = Monitor(MaxToolCalls(1))
    monitor.user("hi")
    with pytest.raises(MonitorError, match=r"^event 1 \(a dict\): message.tool_calls\[0\]"):
        monitor.feed({"role": "assistant", "tool_calls": [{"name": "x"}]})
    with pytest.raises(MonitorError, match=r"^event 1 \(an int\)"):
        monitor.feed(7)
    with pytest.raises(MonitorError, match="non-empty 'name'"):
        monitor.tool_call({"arguments": {}})
    with pytest.raises(MonitorError, match="before any message"):
        Monitor(MaxToolCalls(1)).feed(GuardrailEvent(name="pii"))
    assert len(monitor.conversation.turns) == 1  # nothing of the refused events was kept


def test_permits_names_the_call_records_nothing_and_denies_with_evidence() -> None:
    monitor = Monitor([ToolBefore("lookup_order", "issue_refund"), MaxToolCalls(1)])
    monitor.user("Refund order 42")
    call = ToolCall(name="issue_refund", arguments={"order": 42}, id="c1")
    decision = monitor.permits(call)
    assert not decision
    assert decision.call == call
    assert [d.name for d in decision.denied_by] == ["tool_before"]
    assert decision.denied_by[0].result is not None
    assert "turns[0].tool_calls[0]" in decision.denied_by[0].result.reason
    assert decision.pending == ("max_tool_calls",)
    assert "'issue_refund' (id c1) denied" in decision.reason
    assert monitor.conversation.turns[0].tool_calls == ()
    monitor.tool_call({"name": "lookup_order", "arguments": {"order": 42}})
    allowed = monitor.permits(call)
    assert not allowed
    assert [d.name for d in allowed.denied_by] == ["max_tool_calls"]


def test_a_call_whose_arguments_are_not_json_is_denied_unless_the_monitor_fails_open() -> None:
    checks = [OnlyTools([{"tool": "search", "arguments": {"q": "refunds"}}])]
    broken = {"name": "search", "arguments": "{not json"}
    closed, opened = Monitor(checks), Monitor(checks, fail_open=True)
    for monitor in (closed, opened):
        monitor.user("hi")
    decision = closed.permits(broken)
    assert not decision
    assert decision.denied_by[0].status == "error"
    assert "not valid JSON" in decision.denied_by[0].result.reason  # type: ignore[union-attr]
    assert opened.permits(broken).allowed


def test_a_misconfigured_monitor_refuses_to_build_listing_every_problem() -> None:
    with pytest.raises(MonitorError) as caught:
        Monitor([Contains("x"), "y", LLMRubric("Is polite")])  # type: ignore[list-item]
    text = str(caught.value)
    assert "4 problems" in text  # the rubric checks one turn, too
    assert "wrap it in OnLastTurn" in text
    assert "checks[1] is a str" in text
    assert "no judge" in text
    with pytest.raises(MonitorError, match="nothing to monitor"):
        Monitor([])


def test_only_at_finish_lists_what_cannot_be_decided_before_the_end() -> None:
    monitor = Monitor([OnLastTurn(Contains("bye")), OnlyTools(["search"])])
    assert monitor.only_at_finish == ("on_last_turn",)
    monitor.user("hi")
    monitor.assistant("bye")
    assert [s.status for s in monitor.states] == ["pending", "pending"]
    assert monitor.finish().passed
