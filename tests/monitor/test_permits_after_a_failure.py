"""After a check has failed for good, `permits` denies only the calls that violate it again.

A failed `tool_before` must not deny every later call: the lookup that should have come first
is still allowed (the rule does not forbid it), while a second refund before any lookup is
denied again, naming that call.
"""

from __future__ import annotations

from chatassert import ToolCall
from chatassert.monitor import Monitor
from chatassert.policies import MaxConsecutive, ToolBefore


def test_a_failed_rule_denies_only_the_calls_that_break_it_again() -> None:
    monitor = Monitor(ToolBefore("lookup_order", "issue_refund"))
    monitor.user("refund my order")
    monitor.tool_call(ToolCall(name="issue_refund", id="c1"))
    [state] = monitor.states
    assert (state.status, state.final) == ("failed", True)
    lookup = monitor.permits(ToolCall(name="lookup_order", id="c2"))
    assert lookup.allowed
    again = monitor.permits(ToolCall(name="issue_refund", id="c3"))
    assert not again.allowed
    assert again.call.id == "c3"
    monitor.tool_call(ToolCall(name="lookup_order", id="c2"))
    assert monitor.permits(ToolCall(name="issue_refund", id="c4")).allowed  # after a lookup
    assert monitor.finish().status.value == "failed"  # the first refund still decides it


def test_asking_leaves_nothing_behind_once_a_rule_failed() -> None:
    monitor = Monitor(MaxConsecutive("search", 1))
    monitor.user("find it")
    monitor.tool_call(ToolCall(name="search", id="a"))
    monitor.tool_call(ToolCall(name="search", id="b"))
    assert monitor.states[0].status == "failed"
    for _ in range(3):  # asked, never run: the run of searches is not lengthened
        assert not monitor.permits(ToolCall(name="search", id="x")).allowed
    assert monitor.permits(ToolCall(name="fetch", id="c")).allowed
    monitor.tool_call(ToolCall(name="fetch", id="c"))
    assert monitor.permits(ToolCall(name="search", id="d")).allowed
