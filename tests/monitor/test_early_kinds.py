"""The kinds a monitor decides call by call from their own fold (issue 39): each denies the
call that decides it before it runs, naming it, and folds its events without building the
conversation again (O(1) amortised per event); `afinish` from inside an event loop."""

from __future__ import annotations

import asyncio

import pytest

from chatassert import (
    LLMRubric,
    NoRepeatedCalls,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    StepsBeforeAnswer,
    ToolCall,
    ToolResult,
)
from chatassert.judges import FunctionJudge
from chatassert.monitor import Monitor
from chatassert.policies import ToolOnlyAfterResult
from chatassert.promptkit import (
    ConversationAgentNotInvoked,
    ConversationToolCallsWithArgs,
    ConversationToolsNotCalled,
    ConversationToolsNotCalledWithArgs,
    ToolCallsWithArgs,
    ToolsNotCalled,
)

REFUND = ToolCall(name="issue_refund", arguments={"order": 42, "amount": 5000}, id="r1")

DENIED = [
    (ToolOnlyAfterResult("issue_refund", result_of="lookup_order"), "tool_only_after_result"),
    (NoRepeatedCalls(), "no_repeated_calls"),
    (ConversationToolsNotCalled(["issue_refund"]), "conversation_tools_not_called"),
    (ConversationAgentNotInvoked(["issue_refund"]), "conversation_agent_not_invoked"),
    (
        ConversationToolsNotCalledWithArgs("issue_refund", {"amount": [1000, 5000]}),
        "conversation_tools_not_called_with_args",
    ),
    (
        ConversationToolCallsWithArgs("issue_refund", {"amount": 100}, match="all"),
        "conversation_tool_calls_with_args",
    ),
    (OnEveryTurn(ToolsNotCalled(["issue_refund"])), "on_every_turn"),
    (OnTurn(0, ToolCallsWithArgs("issue_refund", {"amount": 100}, match="all")), "on_turn"),
    (OnEveryTurn(ToolOnlyAfterResult("issue_refund", result_of="lookup_order")), "on_every_turn"),
]


def started(check: object) -> Monitor:
    """A monitor that saw a user ask and one refund already made (for `no_repeated_calls`)."""
    monitor = Monitor(check)  # type: ignore[arg-type]
    monitor.user("Refund order 42, please.")
    if isinstance(check, NoRepeatedCalls):
        monitor.tool_call(REFUND)
        monitor.tool_result(ToolResult(call_id="r1", content="refunded"))
    return monitor


IDS = [f"{k}-{i}" for i, (_, k) in enumerate(DENIED)]


@pytest.mark.parametrize(("check", "kind"), DENIED, ids=IDS)
def test_permits_denies_the_deciding_call_naming_it(check: object, kind: str) -> None:
    monitor = started(check)
    asked = REFUND.model_copy(update={"id": "r2"})
    decision = monitor.permits(asked)
    assert not decision.allowed
    assert decision.call is asked
    (denial,) = decision.denied_by
    assert (denial.name, denial.status, denial.final) == (kind, "failed", True)
    assert denial.result is not None
    assert denial.result.status.value == "failed"
    assert "'issue_refund' (id r2) denied" in decision.reason
    (state,) = monitor.tool_call(asked)  # made anyway: the check fails for good, as offline
    assert state.final
    assert state.status == "failed"
    assert monitor.finish().status.value == "failed"


@pytest.mark.parametrize(("check", "kind"), DENIED, ids=IDS)
def test_a_fold_builds_no_conversation_for_a_call_or_result_that_decides_nothing(
    check: object, kind: str
) -> None:
    monitor = started(check)
    before = monitor._log._built
    for event in (
        ToolCall(name="lookup_order", arguments={"order": 42}, id="l1"),
        ToolResult(call_id="l1", content="order 42: paid"),
    ):
        (state,) = monitor.feed(event)
        assert state.status == "pending", kind
        assert monitor._log._built is None, f"{kind} checked the whole conversation again"
    assert before is None or before is not monitor._log._built


def looked_up(*, fail_open: bool = False) -> Monitor:
    """A lookup made, its result not back yet, and a message since."""
    check = ToolOnlyAfterResult("issue_refund", result_of="lookup_order")
    monitor = Monitor(check, fail_open=fail_open)
    monitor.user("Refund order 42, please.")
    monitor.tool_call(ToolCall(name="lookup_order", arguments={"order": 42}, id="l1"))
    monitor.assistant("Looking it up.")
    return monitor


def test_a_call_before_the_result_came_back_is_denied_and_fails_once_it_comes() -> None:
    monitor = looked_up()
    decision = monitor.permits(REFUND)  # if the lookup never returns, offline is an error
    assert [(d.name, d.status) for d in decision.denied_by] == [("tool_only_after_result", "error")]
    assert looked_up(fail_open=True).permits(REFUND).allowed
    (state,) = monitor.tool_call(REFUND)
    assert state.status == "pending"  # the lookup's result may yet never be recorded
    monitor.tool_result(ToolResult(call_id="l1", content="order 42: paid"))
    result = monitor.finish()
    assert result.status.value == "failed"
    assert result.details["violations"][0]["problem"] == "not_returned"


def test_a_result_paired_by_order_is_read_from_the_conversation_and_stays_exact() -> None:
    # a result without an id may pair with another call once more is recorded: the check is
    # then checked on the conversation so far, and still decides as the offline check
    check = ToolOnlyAfterResult("issue_refund", result_of="lookup_order")
    monitor = Monitor(check)
    monitor.user("Refund order 42, please.")
    monitor.tool_call(ToolCall(name="lookup_order", arguments={"order": 42}))
    monitor.tool_result(ToolResult(content="order 42: paid"))
    assert monitor.permits(REFUND).allowed
    monitor.tool_call(REFUND)
    assert monitor.finish().status.value == "passed"
    assert check.check(monitor.conversation).status.value == "passed"


def test_afinish_asks_a_judge_from_inside_an_event_loop() -> None:
    polite = FunctionJudge(lambda request: "please" in request.response.lower())
    monitor = Monitor([OnLastTurn(LLMRubric("is polite", judge=polite)), NoRepeatedCalls()])
    monitor.user("Hi")
    monitor.assistant("How can I help, please?")

    async def run() -> str:
        result = await monitor.afinish()
        return result.status.value

    assert asyncio.run(run()) == "passed"
    assert monitor.finish().to_dict()["children"][1]["status"] == "passed"


def test_a_matching_call_passes_match_any_for_good() -> None:
    check = ConversationToolCallsWithArgs("issue_refund", {"amount": 5000})
    monitor = Monitor(check)
    monitor.user("Refund order 42, please.")
    (state,) = monitor.tool_call(REFUND)
    assert (state.status, state.final) == ("passed", True)
    later = REFUND.model_copy(update={"id": "r2", "arguments": {"amount": 1}})
    assert monitor.permits(later).allowed
    monitor.tool_call(later)
    assert monitor.finish().status.value == "passed"


@pytest.mark.parametrize("match", ["any", "all"])
def test_arguments_that_are_not_json_deny_an_argument_check_failing_closed(match: str) -> None:
    check = ConversationToolCallsWithArgs("issue_refund", {"amount": 5000}, match=match)
    broken = ToolCall(name="issue_refund", arguments="{amount: 5000", id="r9")  # type: ignore[arg-type]
    for fail_open in (False, True):
        monitor = Monitor(check, fail_open=fail_open)
        monitor.user("Refund order 42, please.")
        decision = monitor.permits(broken)
        assert decision.allowed is fail_open
        if not fail_open:
            (denial,) = decision.denied_by
            assert (denial.name, denial.status) == ("conversation_tool_calls_with_args", "error")
    (state,) = monitor.tool_call(broken)
    assert state.status == "pending"  # a later matching call may still pass it
    assert monitor.finish().status.value == "error"


def test_a_turn_rule_denies_a_forbidden_call_on_each_turn_it_is_made() -> None:
    monitor = Monitor(OnEveryTurn(ToolsNotCalled(["issue_refund"])))
    monitor.user("Refund order 42, please.")
    monitor.tool_call(REFUND)  # made anyway: failed for good
    monitor.user("And order 43?")
    assert monitor.permits(ToolCall(name="lookup_order", arguments={"order": 43})).allowed
    again = monitor.permits(REFUND.model_copy(update={"id": "r3"}))
    assert [d.name for d in again.denied_by] == ["on_every_turn"]
    assert monitor.finish().status.value == "failed"


def test_on_last_turn_decides_nothing_a_later_turn_can_undo() -> None:
    # the forbidden call fails this turn, but a later user message opens the last turn
    monitor = Monitor(OnLastTurn(ToolsNotCalled(["issue_refund"])))
    monitor.user("Refund order 42, please.")
    decision = monitor.permits(REFUND)
    assert decision.allowed
    assert decision.pending == ("on_last_turn",)
    monitor.tool_call(REFUND)
    monitor.user("Thanks. Anything else?")
    monitor.assistant("No, all done.")
    assert monitor.finish().status.value == "passed"


def test_steps_before_answer_denies_the_step_over_max_and_waits_for_an_answer() -> None:
    monitor = Monitor(StepsBeforeAnswer(1))
    monitor.user("Refund order 42, please.")
    (state,) = monitor.tool_call(ToolCall(name="lookup_order", arguments={"order": 42}))
    assert state.status == "pending"  # not answered yet: an answer may still come
    decision = monitor.permits(REFUND)
    assert [(d.name, d.status) for d in decision.denied_by] == [("steps_before_answer", "failed")]
    (state,) = monitor.assistant("Order 42 is paid.")
    assert (state.status, state.final) == ("pending", False)  # a later turn may still fail it
    monitor.user("Refund it.")
    monitor.assistant("Let me check.")  # the answer, unless another one follows
    assert monitor.permits(REFUND).allowed  # ending after the refund, the turn took 0 steps
    (state,) = monitor.tool_call(REFUND)
    assert state.status == "pending"
    (state,) = monitor.assistant("Refunded.")  # two steps before this answer
    assert (state.status, state.final) == ("failed", True)
    assert monitor.finish().status.value == "failed"
