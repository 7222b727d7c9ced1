"""Tests of chatassert._promptkit_names (docs/promptkit.md): tools and agents called.

Whole result records of tools_called, tools_not_called, agent_invoked, agent_not_invoked and
agent_response_contains at turn level, their conversation forms with `min_calls`, and the
arguments they refuse (G4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from promptkit_decisions_helpers import (
    REFUNDS,
    WITH_INVALID,
    Build,
    Record,
    records_test,
    refusals_test,
)
from promptkit_helpers import turn

from chatassert import Conversation
from chatassert.promptkit import (
    AgentInvoked,
    AgentNotInvoked,
    AgentResponseContains,
    ConversationAgentInvoked,
    ConversationAgentNotInvoked,
    ConversationToolsCalled,
    ConversationToolsNotCalled,
    ToolsCalled,
    ToolsNotCalled,
)

# -- turn level ---------------------------------------------------------------------------------

# One turn: a plain tool `search` and an agent `a2a__r`, each with a result, then the reply.
TURN = turn("u", "It is Paris", [("search", {"q": "x"}, "res"), ("a2a__r", {"q": "y"}, "Quantum")])
# The agent was called but its result is missing; another tool's result has the text.
NO_RESPONSE = turn("u", "ok", [("a2a__r", {"q": "y"}, None), ("other", {}, "Quantum")])
CALLED = ["search", "a2a__r"]

TURN_CASES: list[tuple[str, Build, object, Record]] = [
    # tools_called: every tool called this turn; details {missing_tools, called_tools}
    (
        "tools_called pass",
        lambda: ToolsCalled(CALLED),
        TURN,
        ("passed", "tools_called search, a2a__r", {"missing_tools": [], "called_tools": CALLED}),
    ),
    (
        "tools_called fail",
        lambda: ToolsCalled(["search", "x", "y"]),
        TURN,
        (
            "failed",
            "Expected tools 'x', 'y' to be called but they were not (called: ['search', 'a2a__r'])",
            {"missing_tools": ["x", "y"], "called_tools": CALLED},
        ),
    ),
    # tools_not_called: details {forbidden_tools_called, all_called_tools}
    (
        "tools_not_called pass",
        lambda: ToolsNotCalled(["z", "w"]),
        TURN,
        (
            "passed",
            "tools_not_called z, w",
            {"forbidden_tools_called": [], "all_called_tools": CALLED},
        ),
    ),
    (
        "tools_not_called fail",
        lambda: ToolsNotCalled(["search", "a2a__r", "z"]),
        TURN,
        (
            "failed",
            "Expected tools 'search', 'a2a__r' not to be called but they were",
            {"forbidden_tools_called": CALLED, "all_called_tools": CALLED},
        ),
    ),
    # agent_invoked / agent_not_invoked: agent checks are tool checks over agent tool names
    (
        "agent_invoked pass",
        lambda: AgentInvoked(["a2a__r"]),
        TURN,
        ("passed", "agent_invoked a2a__r", {"missing_agents": [], "called_tools": CALLED}),
    ),
    (
        "agent_invoked fail",
        lambda: AgentInvoked(["a2a__r", "a2a__t", "a2a__u"]),
        TURN,
        (
            "failed",
            "Expected agents 'a2a__t', 'a2a__u' to be invoked but they were not",
            {"missing_agents": ["a2a__t", "a2a__u"], "called_tools": CALLED},
        ),
    ),
    (
        "agent_not_invoked pass",
        lambda: AgentNotInvoked(["a2a__t", "a2a__u"]),
        TURN,
        (
            "passed",
            "agent_not_invoked a2a__t, a2a__u",
            {"forbidden_agents_called": [], "called_tools": CALLED},
        ),
    ),
    (
        "agent_not_invoked fail",
        lambda: AgentNotInvoked(["a2a__r", "search"]),
        TURN,
        (
            "failed",
            "Expected agents 'a2a__r', 'search' not to be invoked but they were",
            {"forbidden_agents_called": ["a2a__r", "search"], "called_tools": CALLED},
        ),
    ),
    # agent_response_contains: a result of that agent's calls contains the text
    # (case-sensitive); on pass {agent, found_content}; on failure {agent, expected_substr,
    # reason: "no matching agent response found containing expected text"} (+ responses)
    (
        "agent_response_contains pass",
        lambda: AgentResponseContains("a2a__r", "Quantum"),
        TURN,
        (
            "passed",
            "agent a2a__r responds with 'Quantum'",
            {"agent": "a2a__r", "found_content": "Quantum"},
        ),
    ),
    (
        "agent_response_contains: no response contains it",
        lambda: AgentResponseContains("a2a__r", "quantum"),
        TURN,
        (
            "failed",
            "Expected a response of agent 'a2a__r' containing 'quantum' but none of its "
            "responses contains it",
            {
                "agent": "a2a__r",
                "expected_substr": "quantum",
                "reason": "no matching agent response found containing expected text",
                "responses": ["Quantum"],
            },
        ),
    ),
    (
        "agent_response_contains: agent not invoked while others were",
        lambda: AgentResponseContains("a2a__t", "Quantum"),
        TURN,
        (
            "failed",
            "Expected a response of agent 'a2a__t' containing 'Quantum' but the agent was not "
            "invoked in this turn",
            {
                "agent": "a2a__t",
                "expected_substr": "Quantum",
                "reason": "no matching agent response found containing expected text",
                "responses": [],
            },
        ),
    ),
    (
        "agent_response_contains: another tool's result does not count",
        lambda: AgentResponseContains("a2a__r", "Quantum"),
        NO_RESPONSE,
        (
            "failed",
            "Expected a response of agent 'a2a__r' containing 'Quantum' but the agent's call "
            "has no response in the transcript",
            {
                "agent": "a2a__r",
                "expected_substr": "Quantum",
                "reason": "no matching agent response found containing expected text",
                "responses": [],
            },
        ),
    ),
]


test_turn_level_records = records_test(TURN_CASES)


# -- conversation level: tools and agents -------------------------------------------------------


def _forbidden_call(index: int, noun: str, name: str, arguments: object) -> dict[str, Any]:
    description = "forbidden agent was invoked" if noun == "agent" else "forbidden tool was called"
    return {
        "turn_index": index,
        "description": description,
        "evidence": {noun: name, "arguments": arguments},
    }


def _required(noun: str, need: int, calls: dict[str, int]) -> dict[str, Any]:
    return {
        "requirements": [{noun: n, "calls": c, "requiredCalls": need} for n, c in calls.items()],
        "counts": {n: c for n, c in calls.items() if c},
    }


CONVERSATION_CASES: list[tuple[str, Build, Conversation, Record]] = [
    # tools_called / agent_invoked: each called at least min_calls times; details
    # {requirements: [{tool|agent, calls, requiredCalls}], counts}; every call is counted
    (
        "tools_called pass",
        lambda: ConversationToolsCalled(["refund", "search"]),
        REFUNDS,
        (
            "passed",
            "conversation_tools_called refund, search",
            _required("tool", 1, {"refund": 3, "search": 1}),
        ),
    ),
    (
        "tools_called counts calls against min_calls",
        lambda: ConversationToolsCalled(["refund", "search"], min_calls=2),
        REFUNDS,
        (
            "failed",
            "missing required tools: search",
            _required("tool", 2, {"refund": 3, "search": 1}),
        ),
    ),
    (
        "agent_invoked fail lists every missing agent",
        lambda: ConversationAgentInvoked(["refund", "search", "x"], min_calls=3),
        REFUNDS,
        (
            "failed",
            "missing required agent invocations: search, x",
            _required("agent", 3, {"refund": 3, "search": 1, "x": 0}),
        ),
    ),
    (
        "agent_invoked pass",
        lambda: ConversationAgentInvoked(["refund", "search"]),
        REFUNDS,
        (
            "passed",
            "conversation_agent_invoked refund, search",
            _required("agent", 1, {"refund": 3, "search": 1}),
        ),
    ),
    # tools_not_called / agent_not_invoked: violations {turn_index, description, evidence}
    (
        "tools_not_called pass",
        lambda: ConversationToolsNotCalled(["nope"]),
        REFUNDS,
        ("passed", "conversation_tools_not_called nope", {"violations": []}),
    ),
    (
        "tools_not_called fail, arguments that are not JSON are shown as written",
        lambda: ConversationToolsNotCalled(["refund", "nope"]),
        WITH_INVALID,
        (
            "failed",
            "forbidden tools were called",
            {
                "violations": [
                    _forbidden_call(0, "tool", "refund", "{oops"),
                    _forbidden_call(0, "tool", "refund", {"note": "x"}),
                    _forbidden_call(0, "tool", "refund", {"amount": 1}),
                ]
            },
        ),
    ),
    (
        "agent_not_invoked pass",
        lambda: ConversationAgentNotInvoked(["x"]),
        REFUNDS,
        ("passed", "conversation_agent_not_invoked x", {"violations": []}),
    ),
    (
        "agent_not_invoked fail",
        lambda: ConversationAgentNotInvoked(["search"]),
        REFUNDS,
        (
            "failed",
            "forbidden agents were invoked",
            {"violations": [_forbidden_call(0, "agent", "search", {"q": "x"})]},
        ),
    ),
]


test_conversation_level_tool_records = records_test(CONVERSATION_CASES)


# -- bad arguments fail at construction, naming the check (G4) -----------------------------------

BAD_ARGUMENTS: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    (
        "tools_called empty",
        lambda: ToolsCalled([]),
        ValueError,
        "tools_called needs at least one value, got an empty list",
    ),
    (
        "conversation tools_called empty",
        lambda: ConversationToolsCalled([]),
        ValueError,
        "conversation_tools_called needs at least one value, got an empty list",
    ),
    (
        "agent empty",
        lambda: AgentResponseContains("", "x"),
        ValueError,
        "agent_response_contains needs a non-empty agent",
    ),
    (
        "agent not a string",
        lambda: AgentResponseContains(5, "x"),  # type: ignore[arg-type]
        ValueError,
        "agent_response_contains needs a non-empty agent",
    ),
    (
        "contains empty",
        lambda: AgentResponseContains("a", ""),
        ValueError,
        "agent_response_contains needs a non-empty contains",
    ),
    (
        "min_calls zero",
        lambda: ConversationToolsCalled(["a"], min_calls=0),
        ValueError,
        "min_calls must be an integer of at least 1, got 0",
    ),
    (
        "min_calls not an integer",
        lambda: ConversationAgentInvoked(["a"], min_calls=2.5),  # type: ignore[arg-type]
        ValueError,
        "min_calls must be an integer of at least 1, got 2.5",
    ),
    (
        "min_calls a bool",
        lambda: ConversationToolsCalled(["a"], min_calls=True),
        ValueError,
        "min_calls must be an integer of at least 1, got True",
    ),
]


test_bad_arguments_are_refused_with_a_message = refusals_test(BAD_ARGUMENTS)


def test_agent_response_contains_names_a_result_that_no_call_of_the_agent_matched() -> None:
    # issue 14 item 8: the agent did return a result, but no call of it pairs with that result;
    # "the agent was not invoked" would send the reader to the wrong place
    from chatassert import ToolCall, ToolResult, Turn
    from chatassert.promptkit import AgentResponseContains

    turn = Turn(
        text="ok",
        tool_calls=[ToolCall(name="search", id="c1")],
        tool_results=[ToolResult(call_id="c9", name="a2a__research", content="Quantum")],
    )
    result = AgentResponseContains("a2a__research", "Quantum").check(turn)
    assert result.status == "failed"
    assert result.reason == (
        "Expected a response of agent 'a2a__research' containing 'Quantum' but its results in "
        "this turn match no call of it (check the call ids)"
    )
    assert result.details == {
        "agent": "a2a__research",
        "expected_substr": "Quantum",
        "reason": "no matching agent response found containing expected text",
        "responses": [],
        "unmatched_results": ["Quantum"],
    }
    quiet = AgentResponseContains("a2a__research", "Quantum").check(Turn(text="ok"))
    assert quiet.reason.endswith("but the agent was not invoked in this turn")
