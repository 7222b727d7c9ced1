"""MonitorCallbacks in real Google ADK runs: a scripted model (a `BaseLlm` that answers from a
list, no network), ADK's own runner, tools, session and eval-set conversion."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
from guard_helpers import offline

from optional_engines import optional_module

optional_module("google.adk", "CHATASSERT_REQUIRE_ADK")  # the adk extra (google-adk)

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.cli.utils.evals import convert_session_to_eval_invocations  # noqa: E402
from google.adk.evaluation.eval_case import EvalCase  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.genai import types  # noqa: E402

from chatassert import ToolCallCount  # noqa: E402
from chatassert.integrations.adk import MonitorCallbacks  # noqa: E402
from chatassert.monitor import Monitor  # noqa: E402
from chatassert.policies import ToolBefore  # noqa: E402
from chatassert.transcripts import read_records  # noqa: E402

APP = "desk"


def calls(*asked: tuple[str, dict[str, Any]]) -> LlmResponse:
    """A model response calling tools, without ids (as Gemini sends them)."""
    parts = [types.Part(function_call=types.FunctionCall(name=n, args=a)) for n, a in asked]
    return LlmResponse(content=types.Content(role="model", parts=parts))


def said(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


class ScriptedLlm(BaseLlm):
    """A model that answers each request with the next response of its script."""

    script: list[LlmResponse]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        yield self.script.pop(0)


def desk(guard: MonitorCallbacks, script: list[LlmResponse], ran: list[str]) -> LlmAgent:
    def lookup_order(order: str) -> dict[str, Any]:
        """Look an order up."""
        ran.append("lookup_order")
        return {"result": f"order {order}: paid, 40 EUR"}

    def issue_refund(order: str) -> dict[str, Any]:
        """Refund an order."""
        ran.append("issue_refund")
        return {"result": f"refunded {order}"}

    return LlmAgent(
        name="desk",
        model=ScriptedLlm(model="scripted", script=script),
        instruction="Help with orders.",
        tools=[lookup_order, issue_refund],
        **guard.callbacks(),
    )


def run(agent: LlmAgent, *messages: str) -> Any:
    """Run the agent over the user's messages in one session; the session, as stored."""

    async def go() -> Any:
        runner = InMemoryRunner(agent=agent, app_name=APP)
        session = await runner.session_service.create_session(app_name=APP, user_id="u")
        for text in messages:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for _ in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                pass
        return await runner.session_service.get_session(
            app_name=APP, user_id="u", session_id=session.id
        )

    return asyncio.run(go())


def eval_set(session: Any, path: Path) -> Path:
    """The session as an eval set file, as `adk eval_set add_session` saves one."""
    case = EvalCase(eval_id="run", conversation=convert_session_to_eval_invocations(session))
    written = EvalSet(eval_set_id="guarded", eval_cases=[case])
    path.write_text(written.model_dump_json(exclude_none=True), encoding="utf-8")
    return path


def same_turns(read: Any, fed: Any) -> None:
    """The turns an eval set gives and the turns the monitor was fed are the same, but for
    what only the eval set records (its invocations' ids and times, the agent that answered)."""
    drop = {"metadata", "agent"}
    assert [t.model_dump(exclude=drop) for t in read.turns] == [
        t.model_dump(exclude=drop) for t in fed.turns
    ]


TOOL_BEFORE = '{"type": "tool_before", "first": "lookup_order", "then": "issue_refund"}'


def test_a_refund_before_the_lookup_is_denied_and_the_session_records_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monitor = Monitor(ToolBefore("lookup_order", "issue_refund"))
    guard = MonitorCallbacks(monitor)
    ran: list[str] = []
    script = [
        calls(("issue_refund", {"order": "A1"})),
        said("I cannot refund order A1 before it is looked up."),
    ]
    session = run(desk(guard, script, ran), "Refund order A1, please.")

    assert ran == []  # the refund's body never ran
    (denial,) = guard.denials
    assert denial.call.name == "issue_refund"
    assert denial.call.arguments == {"order": "A1"}
    assert [s.name for s in denial.denied_by] == ["tool_before"]
    # the call's id is the one ADK recorded, and its function response is the denial
    asked = [c for e in session.events for c in e.get_function_calls()]
    answered = [r for e in session.events for r in e.get_function_responses()]
    assert [c.id for c in asked] == [denial.call.id]
    assert denial.call.id is not None
    assert denial.call.id.startswith("adk-")
    assert [(r.id, r.response) for r in answered] == [(denial.call.id, {"error": denial.reason})]

    verdict = monitor.finish()
    assert verdict.status.value == "failed"
    path = eval_set(session, tmp_path / "guarded.evalset.json")
    (record,) = list(read_records(path))
    assert record.conversation is not None
    (turn,) = record.conversation.turns
    assert turn.input == "Refund order A1, please."
    assert [(c.id, c.name) for c in turn.tool_calls] == [(denial.call.id, "issue_refund")]
    assert [(r.content, r.is_error) for r in turn.tool_results] == [(denial.reason, True)]
    same_turns(record.conversation, monitor.conversation)
    assert offline(path, TOOL_BEFORE, capsys) == "failed"


def test_allowed_calls_run_over_two_invocations_and_the_offline_check_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monitor = Monitor(
        [ToolBefore("lookup_order", "issue_refund"), ToolCallCount("issue_refund", max=1)]
    )
    guard = MonitorCallbacks(monitor)
    ran: list[str] = []
    script = [
        calls(("lookup_order", {"order": "A1"})),
        said("Order A1 is paid. Refund it?"),
        # one response, two refunds: the second is over the count, denied before it runs
        calls(("issue_refund", {"order": "A1"}), ("issue_refund", {"order": "A1"})),
        said("Refunded."),
    ]
    session = run(desk(guard, script, ran), "Look order A1 up.", "Yes, refund it.")

    assert ran == ["lookup_order", "issue_refund"]
    assert [d.allowed for d in guard.decisions] == [True, True, False]
    assert [s.name for s in guard.denials[0].denied_by] == ["tool_call_count"]
    refunds = [c.id for e in session.events for c in e.get_function_calls()][1:]
    assert guard.denials[0].call.id == refunds[1]  # the second of the two, named exactly
    path = eval_set(session, tmp_path / "guarded.evalset.json")
    (record,) = list(read_records(path))
    assert record.conversation is not None
    assert [t.input for t in record.conversation.turns] == ["Look order A1 up.", "Yes, refund it."]
    assert [len(t.tool_results) for t in monitor.conversation.turns] == [1, 2]
    same_turns(record.conversation, monitor.conversation)
    assert monitor.finish().status.value == "failed"
    assert offline(path, TOOL_BEFORE, capsys) == "passed"
    count = '{"type": "tool_call_count", "tool": "issue_refund", "max": 1}'
    assert offline(path, count, capsys) == "failed"


def test_the_callbacks_refuse_what_is_not_a_monitor() -> None:
    with pytest.raises(TypeError, match="takes a Monitor"):
        MonitorCallbacks(ToolBefore("a", "b"))  # type: ignore[arg-type]
