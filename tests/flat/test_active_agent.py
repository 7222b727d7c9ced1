"""`ActiveAgent` (`expected_agent`): each verdict, where the agent is read from, and its details.

The agent active after a turn is read from `Turn.agent`, else the turn's last handoff call
(`transfer_to_<agent>`, named by its output `{"assistant": ...}` when there is one), else the
turn's `metadata.agent`; nothing at all is an error. Names match exactly or in the OpenAI
Agents SDK's function-name form (docs/flat.md, "Handoffs: expected_agent").
"""

from __future__ import annotations

import pickle

import pytest

from chatassert import (
    Conversation,
    OnTurn,
    SpecError,
    Status,
    ToolCall,
    ToolResult,
    Turn,
    from_spec,
)
from chatassert.flat import ActiveAgent
from chatassert.specs import loads_suite


def handoff(name: str, output: str | None = None, call_id: str = "h1") -> dict[str, object]:
    """The fields of a turn whose agent called the handoff tool `name` (answered by `output`)."""
    results = [] if output is None else [ToolResult(call_id=call_id, content=output)]
    return {"tool_calls": [ToolCall(name=name, id=call_id)], "tool_results": results}


# -- where the active agent is read from --------------------------------------------------------


@pytest.mark.parametrize(
    ("turn", "actual", "source"),
    [
        pytest.param(Turn(text="Hi", agent="Billing"), "Billing", "Turn.agent", id="field"),
        pytest.param(
            Turn(text="Hi", agent="Billing", metadata={"agent_source": "items[4].agent"}),
            "Billing",
            "Turn.agent, read from the log at items[4].agent",
            id="field-from-a-log",
        ),
        pytest.param(
            Turn(text="Hi", **handoff("transfer_to_billing", '{"assistant": "Billing"}')),
            "Billing",
            "handoff call transfer_to_billing",
            id="handoff-named-by-its-output",
        ),
        pytest.param(
            Turn(text="Hi", **handoff("transfer_to_billing")),
            "billing",
            "handoff call transfer_to_billing",
            id="handoff-without-output",
        ),
        pytest.param(
            Turn(text="Hi", **handoff("transfer_to_billing", "transferred")),
            "billing",
            "handoff call transfer_to_billing",
            id="output-not-json",
        ),
        pytest.param(
            Turn(text="Hi", **handoff("transfer_to_billing", '{"assistant": "  "}')),
            "billing",
            "handoff call transfer_to_billing",
            id="output-names-nobody",
        ),
        pytest.param(
            Turn(text="Hi", metadata={"agent": "Billing"}), "Billing", "metadata.agent", id="meta"
        ),
    ],
)
def test_each_source_names_the_agent_that_passes_or_fails_it(
    turn: Turn, actual: str, source: str
) -> None:
    result = ActiveAgent("Billing").check(turn)
    assert result.status is Status.PASSED
    assert result.details == {"expected": "Billing", "actual": actual, "source": source}
    assert result.reason == f"agent 'Billing' is active after the turn (from {source})"
    other = ActiveAgent("Triage").check(turn)
    assert other.status is Status.FAILED
    assert other.reason == (
        f"Expected agent 'Triage' after the turn, but '{actual}' was active (from {source})"
    )
    assert other.details == {"expected": "Triage", "actual": actual, "source": source}


def test_turn_agent_comes_before_a_handoff_and_a_handoff_before_metadata() -> None:
    both = {**handoff("transfer_to_refunds"), "metadata": {"agent": "triage"}}
    assert ActiveAgent("x").check(Turn(agent="billing", **both)).details["actual"] == "billing"
    assert ActiveAgent("x").check(Turn(**both)).details["actual"] == "refunds"


def test_the_last_handoff_of_the_turn_wins() -> None:
    turn = Turn(
        tool_calls=[
            ToolCall(name="transfer_to_billing", id="h1"),
            ToolCall(name="lookup_invoice", id="t1"),
            ToolCall(name="transfer_to_refunds", id="h2"),
        ],
        tool_results=[
            ToolResult(call_id="h2", content='{"assistant": "Refunds"}'),
            ToolResult(call_id="t1", content="INV-9"),
            ToolResult(call_id="h1", content='{"assistant": "Billing"}'),
        ],
    )
    assert ActiveAgent("Refunds").check(turn).details["actual"] == "Refunds"  # paired by id


def test_a_tool_merely_named_like_a_handoff_prefix_is_not_one() -> None:
    turn = Turn(text="Hi", tool_calls=[ToolCall(name="transfer_to_"), ToolCall(name="transfer")])
    assert ActiveAgent("billing").check(turn).status is Status.ERROR


# -- the verdicts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("Billing Agent", "Billing Agent"),
        ("Billing Agent", "billing_agent"),  # a handoff tool name's form of the name
        ("billing_agent", "Billing Agent"),
        ("billing-agent", "Billing Agent"),
        ("BILLING AGENT", "billing agent"),
    ],
)
def test_names_match_exactly_or_in_function_name_form(expected: str, actual: str) -> None:
    assert ActiveAgent(expected).check(Turn(agent=actual)).status is Status.PASSED


@pytest.mark.parametrize(
    ("expected", "actual"),
    [("billing", "billing_agent"), ("Billing Agent", "BillingAgent"), ("triage", "Triage 2")],
)
def test_other_names_fail(expected: str, actual: str) -> None:
    result = ActiveAgent(expected).check(Turn(agent=actual))
    assert result.status is Status.FAILED
    assert result.reason == (
        f"Expected agent '{expected}' after the turn, but '{actual}' was active (from Turn.agent)"
    )
    assert result.details == {"expected": expected, "actual": actual, "source": "Turn.agent"}


@pytest.mark.parametrize(
    "turn",
    [
        pytest.param(Turn(text="Hello"), id="nothing"),
        pytest.param(Turn(text="Hello", agent=""), id="empty-field"),
        pytest.param(Turn(text="Hello", metadata={"agent": ""}), id="empty-metadata"),
        pytest.param(Turn(text="Hello", metadata={"agent": {"name": "x"}}), id="not-a-name"),
        pytest.param(
            Turn(text="Hello", tool_calls=[ToolCall(name="lookup_invoice")]), id="other-tools"
        ),
    ],
)
def test_a_turn_that_names_no_agent_is_an_error_never_a_pass(turn: Turn) -> None:
    result = ActiveAgent("billing").check(turn)
    assert result.status is Status.ERROR
    assert result.reason == (
        "cannot check for agent 'billing': the log does not say which agent answered the turn "
        "(no Turn.agent, transfer_to_<agent> handoff call or metadata.agent)"
    )
    assert result.details == {"expected": "billing", "actual": None, "source": None}
    negated = from_spec({"type": "not", "assertion": ActiveAgent("billing").as_spec()})
    assert negated.check(turn).status is Status.ERROR


# -- subjects, construction, specs ----------------------------------------------------------------


def test_a_conversation_is_checked_turn_by_turn() -> None:
    chat = Conversation(turns=[Turn(input="a", agent="triage"), Turn(input="b", agent="billing")])
    assert OnTurn(1, ActiveAgent("billing")).check(chat).status is Status.PASSED
    assert ActiveAgent("triage").check(Conversation(turns=[chat.turns[0]])).passed
    with pytest.raises(TypeError, match="OnLastTurn"):
        ActiveAgent("billing").check(chat)


@pytest.mark.parametrize("bad", ["", "  ", None, 3])
def test_an_agent_name_is_required(bad: object) -> None:
    with pytest.raises(ValueError, match="non-empty agent name"):
        ActiveAgent(bad)  # type: ignore[arg-type]


def test_the_spec_round_trips_and_loads_in_a_native_file() -> None:
    check = ActiveAgent("Billing Agent", message="routed to billing")
    assert check.as_spec() == {
        "type": "active_agent",
        "agent": "Billing Agent",
        "message": "routed to billing",
    }
    assert from_spec(check.as_spec()) == check
    assert pickle.loads(pickle.dumps(check)) == check
    suite = loads_suite(
        """
chatassert: 1
name: native routing
cases:
  - name: routed
    turns:
      - input: I was charged twice
        assertions: [{type: active_agent, agent: billing}]
"""
    )
    assert suite.cases[0].turns[0].assertions == (ActiveAgent("billing"),)
    with pytest.raises(SpecError, match="native type 'active_agent' needs the parameter 'agent'"):
        from_spec({"type": "active_agent"})
