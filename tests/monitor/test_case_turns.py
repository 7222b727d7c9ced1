"""A suite case's turns, monitored (issue 39): each assertion of the case's i-th turn is
decided on the conversation's i-th user turn, as `Case.check` pairs them, while that turn is
open (a forbidden call denied before it runs, naming the assertion); a turn the conversation
has not reached stays pending; a `fail_fast` case's assertion after a failed one is skipped.
The spec files are in tests/monitor/data/, loaded with the real loaders."""

from __future__ import annotations

from pathlib import Path

from chatassert import OnTurn, ToolCall
from chatassert.monitor import Monitor
from chatassert.promptkit import ToolsNotCalled
from chatassert.specs import Case, load_suite

DATA = Path(__file__).parent / "data"


def case_of(name: str) -> Case:
    (case,) = load_suite(DATA / name).cases
    return case


def test_a_scenario_turn_denies_its_forbidden_call_on_its_own_turn_only() -> None:
    monitor = Monitor(case_of("refund.scenario.yaml"))
    assert monitor.only_at_finish == ()  # every turn assertion was only decided at finish
    monitor.user("I was charged twice for order 1.")
    refund = ToolCall(name="refund", arguments={"id": 1}, id="c1")
    assert monitor.permits(refund).allowed  # the first turn does not forbid it
    monitor.tool_call(ToolCall(name="verify", arguments={}, id="c0"))
    monitor.user("Refund the second charge, please.")
    decision = monitor.permits(refund)
    assert [(d.name, d.status) for d in decision.denied_by] == [("tools_not_called", "failed")]
    (denial,) = decision.denied_by
    assert denial.result is not None
    assert denial.result.message == "The desk may not refund: it hands refunds to a person"
    assert denial.result.spec_path == "spec.turns[1].assertions[0]"
    assert denial.result.pointer == "/turns/1/tool_calls"
    assert "'refund'" in decision.reason
    states = monitor.tool_call(refund)  # made anyway: failed for good, as finish says
    assert [(s.name, s.status, s.final) for s in states] == [
        ("tools_called", "passed", True),  # closed by the second user message
        ("tool_calls_with_args", "failed", True),  # no fetch of id 1 in the first turn
        ("tools_not_called", "failed", True),
        ("content_includes", "pending", False),
        ("tools_not_called", "pending", False),
    ]
    monitor.assistant("A colleague will call you back.")
    result = monitor.finish()
    turn = result.children[1]
    assert turn.children[0].to_dict() == states[2].result.to_dict()  # type: ignore[union-attr]
    assert [c.status.value for c in turn.children] == ["failed", "passed"]


def test_a_turn_the_conversation_lacks_stays_pending_and_errs_at_finish() -> None:
    monitor = Monitor(case_of("refund.scenario.yaml"))
    monitor.user("I was charged twice for order 1.")
    monitor.tool_call(ToolCall(name="refund", arguments={"id": 1}, id="c1"))
    states = monitor.assistant("Refunded.")
    assert [s.status for s in states[2:4]] == ["pending", "pending"]
    result = monitor.finish()
    assert result.children[1].status.value == "error"  # the case's second turn is missing
    assert all(c.status.value == "error" for c in result.children[1].children)


def test_a_greeting_before_the_user_does_not_shift_the_case_turns() -> None:
    # the agent speaks first: a turn no user started, which the case's turns skip
    monitor = Monitor(case_of("refund.scenario.yaml"))
    monitor.assistant("Hello, billing desk here.")
    monitor.user("I was charged twice for order 1.")
    assert monitor.permits(ToolCall(name="refund", arguments={}, id="a")).allowed
    monitor.user("Refund the second charge, please.")
    decision = monitor.permits(ToolCall(name="refund", arguments={}, id="b"))
    assert [d.name for d in decision.denied_by] == ["tools_not_called"]
    assert decision.denied_by[0].result.pointer == "/turns/2/tool_calls"  # type: ignore[union-attr]


def test_a_fail_fast_case_skips_what_follows_a_failure_for_good() -> None:
    monitor = Monitor(case_of("search.scenario.yaml"))
    monitor.user("I was charged twice")
    states = monitor.tool_call(ToolCall(name="refund", arguments={}, id="c1"))
    assert [(s.status, s.final) for s in states[:3]] == [
        ("failed", True),
        ("skipped", True),
        ("skipped", True),
    ]
    assert monitor.permits(ToolCall(name="fetch", arguments={}, id="c2")).allowed  # skipped
    result = monitor.finish()
    assert [c.status.value for c in result.children[0].children] == [
        "failed",
        "skipped",
        "skipped",
    ]
    assert states[2].result.to_dict() == result.children[0].children[2].to_dict()  # type: ignore[union-attr]


def test_a_fail_fast_assertion_waits_for_the_ones_before_it() -> None:
    monitor = Monitor(case_of("search.scenario.yaml"))
    monitor.user("I was charged twice")
    monitor.tool_call(ToolCall(name="search", arguments={"id": 2}, id="c0"))
    fetch = ToolCall(name="fetch", arguments={}, id="c1")
    # the refund check before it may still fail on this turn, which would skip it
    assert monitor.permits(fetch).allowed
    states = monitor.tool_call(fetch)
    assert [s.status for s in states[:3]] == ["pending", "pending", "pending"]
    monitor.user("and now?")  # the turn closes: nothing before it failed
    assert [s.status for s in monitor.states[:3]] == ["passed", "passed", "failed"]


def test_on_turn_blames_no_call_of_another_turn() -> None:
    # on_turn(0) failed in its turn; a refund in turn 1 does not concern it
    monitor = Monitor(OnTurn(0, ToolsNotCalled(["refund"])))
    monitor.user("Refund order 1.")
    monitor.tool_call(ToolCall(name="refund", arguments={}, id="c1"))
    monitor.user("And order 2?")
    assert monitor.permits(ToolCall(name="refund", arguments={}, id="c2")).allowed
