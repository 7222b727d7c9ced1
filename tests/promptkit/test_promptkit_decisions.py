"""Whole result records of the PromptKit checks: status, reason and details, pass and fail.

Each table row pins one documented outcome (docs/promptkit.md, the promptkit tables of
SEMANTICS.md, G7 four outcomes, G10 details are a superset, G11 a pass explains itself with the
requirement that held) so that a changed verdict, reason, detail key or value fails a test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from promptkit_helpers import chat, turn

from chatassert import Assertion, Conversation, GuardrailEvent, GuardrailTriggered, ToolCall, Turn
from chatassert.promptkit import (
    AgentInvoked,
    AgentNotInvoked,
    AgentResponseContains,
    ContentIncludes,
    ConversationAgentInvoked,
    ConversationAgentNotInvoked,
    ConversationContentIncludes,
    ConversationContentIncludesAny,
    ConversationContentMatches,
    ConversationContentNotIncludes,
    ConversationToolCallsWithArgs,
    ConversationToolsCalled,
    ConversationToolsNotCalled,
    ConversationToolsNotCalledWithArgs,
    LLMJudge,
    LLMJudgeConversation,
    ToolCallsWithArgs,
    ToolsCalled,
    ToolsNotCalled,
)
from chatassert.testing import FakeJudge

Record = tuple[str, str, dict[str, Any]]
# Table rows build their check when the test runs: a check caches its description, and a
# check shared between test runs would keep the description of the first.
Build = Callable[[], Assertion]


def record(check: Assertion | Build, subject: object) -> Record:
    """The parts of a result a user sees: status, reason and details (and its name, the kind)."""
    if not isinstance(check, Assertion):
        check = check()
    result = check.check(subject)
    assert result.name == check.kind
    return result.status.value, result.reason, dict(result.details)


# -- turn level ---------------------------------------------------------------------------------

# One turn: a plain tool `search` and an agent `a2a__r`, each with a result, then the reply.
TURN = turn("u", "It is Paris", [("search", {"q": "x"}, "res"), ("a2a__r", {"q": "y"}, "Quantum")])
# The agent was called but its result is missing; another tool's result has the text.
NO_RESPONSE = turn("u", "ok", [("a2a__r", {"q": "y"}, None), ("other", {}, "Quantum")])
CALLED = ["search", "a2a__r"]

TURN_CASES: list[tuple[str, Build, object, Record]] = [
    # content_includes: all patterns, case-insensitive; details {missing_patterns} (+ patterns)
    (
        "content_includes pass",
        lambda: ContentIncludes(["Paris", "france"]),
        "PARIS, France",
        (
            "passed",
            "response contains 'Paris', 'france'",
            {"patterns": ["Paris", "france"], "missing_patterns": []},
        ),
    ),
    (
        "content_includes fail names every missing pattern",
        lambda: ContentIncludes(["Paris", "France", "Spain"]),
        "paris",
        (
            "failed",
            "Expected the response to contain 'France', 'Spain' but it does not",
            {"patterns": ["Paris", "France", "Spain"], "missing_patterns": ["France", "Spain"]},
        ),
    ),
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

# guardrail_triggered: details {expected_triggered, actually_triggered, guardrail} (+ the names
# that triggered and that ran). Names match exactly or snake_case <-> PascalCase + Validator.
GUARDED = Turn(
    text="x",
    guardrails=[
        GuardrailEvent(name="BannedWordsValidator"),
        GuardrailEvent(name="max_length", triggered=False),
    ],
)
QUIET = Turn(text="x", guardrails=[GuardrailEvent(name="max_length", triggered=False)])
RAN = ["BannedWordsValidator", "max_length"]


def _guard(expected: bool, actually: bool, name: str | None, fired: list[str]) -> dict[str, Any]:
    ran = RAN if fired else ["max_length"]
    return {
        "expected_triggered": expected,
        "actually_triggered": actually,
        "guardrail": name,
        "triggered_guardrails": fired,
        "guardrails_run": ran,
    }


BANNED = ["BannedWordsValidator"]
TURN_CASES += [
    (
        "guardrail triggered as expected",
        lambda: GuardrailTriggered("banned_words"),
        GUARDED,
        ("passed", "banned_words triggers", _guard(True, True, "banned_words", BANNED)),
    ),
    (
        "guardrail triggered but should not have",
        lambda: GuardrailTriggered("banned_words", expected=False),
        GUARDED,
        (
            "failed",
            "Expected guardrail 'banned_words' not to trigger but it did",
            _guard(False, True, "banned_words", BANNED),
        ),
    ),
    (
        "guardrail ran without flagging",
        lambda: GuardrailTriggered("max_length"),
        GUARDED,
        (
            "failed",
            "Expected guardrail 'max_length' to trigger but it did not",
            _guard(True, False, "max_length", BANNED),
        ),
    ),
    (
        "guardrail not triggered, as expected",
        lambda: GuardrailTriggered("MaxLengthValidator", False),
        GUARDED,
        (
            "passed",
            "MaxLengthValidator does not trigger",
            _guard(False, False, "MaxLengthValidator", BANNED),
        ),
    ),
    (
        "no name, expected: any guardrail flagged",
        lambda: GuardrailTriggered(),
        GUARDED,
        ("passed", "any guardrail triggers", _guard(True, True, None, BANNED)),
    ),
    (
        "no name, not expected: one flagged",
        lambda: GuardrailTriggered(expected=False),
        GUARDED,
        (
            "failed",
            "Expected no guardrail to trigger but 'BannedWordsValidator' did",
            _guard(False, True, None, BANNED),
        ),
    ),
    (
        "no name, expected: none flagged",
        lambda: GuardrailTriggered(),
        QUIET,
        ("failed", "Expected a guardrail to trigger but it did not", _guard(True, False, None, [])),
    ),
    (
        "no name, not expected: none flagged",
        lambda: GuardrailTriggered(expected=False),
        QUIET,
        ("passed", "any guardrail does not trigger", _guard(False, False, None, [])),
    ),
]


@pytest.mark.parametrize(
    ("check", "subject", "expected"),
    [pytest.param(c, s, e, id=name) for name, c, s, e in TURN_CASES],
)
def test_turn_level_records(check: Build, subject: object, expected: Record) -> None:
    assert record(check, subject) == expected


# -- conversation level: tools and agents -------------------------------------------------------

INVALID_JSON = ToolCall(name="refund", arguments="{oops")
JSON_ERROR = INVALID_JSON.arguments_error
REFUNDS = Conversation(
    turns=[
        Turn(
            tool_calls=[
                ToolCall(name="refund", arguments={"amount": 5, "note": "a"}),
                ToolCall(name="search", arguments={"q": "x"}),
            ]
        ),
        Turn(tool_calls=[ToolCall(name="refund", arguments={"amount": 5000, "currency": "EUR"})]),
        Turn(tool_calls=[ToolCall(name="refund", arguments={"amount": "7"})]),
    ]
)
# An invalid call first, then a call without the argument, then one with it.
WITH_INVALID = Conversation(
    turns=[
        Turn(
            tool_calls=[
                INVALID_JSON,
                ToolCall(name="refund", arguments={"note": "x"}),
                ToolCall(name="refund", arguments={"amount": 1}),
            ]
        )
    ]
)


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


def _arg_violation(index: int, name: str, arg: str, value: object) -> dict[str, Any]:
    return {
        "turn_index": index,
        "description": f"tool '{name}' was called with forbidden {arg}={value!r}",
        "evidence": {
            "tool": name,
            "argument": arg,
            "value": value,
            "arguments": {"amount": 5000, "currency": "EUR"} if index == 1 else {arg: value},
        },
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
    # tools_not_called_with_args: no call has a forbidden value (G9); a value or a list of them
    (
        "tools_not_called_with_args: one violation per forbidden argument",
        lambda: ConversationToolsNotCalledWithArgs(
            "refund", {"amount": [1000, 5000], "currency": "EUR"}
        ),
        REFUNDS,
        (
            "failed",
            "forbidden tool args detected",
            {
                "violations": [
                    _arg_violation(1, "refund", "amount", 5000),
                    _arg_violation(1, "refund", "currency", "EUR"),
                ]
            },
        ),
    ),
    (
        "tools_not_called_with_args: no tool_name means any tool",
        lambda: ConversationToolsNotCalledWithArgs(forbidden_args={"q": "x"}),
        REFUNDS,
        (
            "failed",
            "forbidden tool args detected",
            {"violations": [_arg_violation(0, "search", "q", "x")]},
        ),
    ),
    (
        "tools_not_called_with_args: loose equality, and an absent argument is no violation",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"note": "zzz", "amount": 7}),
        REFUNDS,
        (
            "failed",
            "forbidden tool args detected",
            {"violations": [_arg_violation(2, "refund", "amount", "7")]},
        ),
    ),
    (
        "tools_not_called_with_args pass",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"zz": None, "amount": 6}),
        REFUNDS,
        ("passed", "refund called with {'zz': None, 'amount': 6}", {"violations": []}),
    ),
    (
        "tools_not_called_with_args pass for any tool",
        lambda: ConversationToolsNotCalledWithArgs(forbidden_args={"q": "y"}),
        REFUNDS,
        ("passed", "no tool called with {'q': 'y'}", {"violations": []}),
    ),
    (
        "tools_not_called_with_args: a call that is not JSON cannot be checked (G7 error)",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"amount": 5}),
        WITH_INVALID,
        (
            "error",
            "tool calls with arguments that are not valid JSON could not be checked",
            {
                "violations": [],
                "invalid_calls": [{"turn_index": 0, "tool": "refund", "error": JSON_ERROR}],
            },
        ),
    ),
    (
        "tools_not_called_with_args: a violation decides even next to an invalid call",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"amount": 1}),
        WITH_INVALID,
        (
            "failed",
            "forbidden tool args detected",
            {
                "violations": [
                    {
                        "turn_index": 0,
                        "description": "tool 'refund' was called with forbidden amount=1",
                        "evidence": {
                            "tool": "refund",
                            "argument": "amount",
                            "value": 1,
                            "arguments": {"amount": 1},
                        },
                    }
                ],
                "invalid_calls": [{"turn_index": 0, "tool": "refund", "error": JSON_ERROR}],
            },
        ),
    ),
]


def _args_violation(
    index: int, arguments: dict[str, Any], kind: str, arg: str, description: str, **extra: Any
) -> dict[str, Any]:
    return {
        "type": kind,
        "tool": "refund",
        "argument": arg,
        **extra,
        "turn_index": index,
        "description": description,
        "evidence": {"tool": "refund", "arguments": arguments},
    }


FIRST, SECOND, THIRD = (
    {"amount": 5, "note": "a"},
    {"amount": 5000, "currency": "EUR"},
    {"amount": "7"},
)
CONVERSATION_CASES += [
    # tool_calls_with_args: some call satisfies every requirement; on failure
    # `tool argument violations` with {tool, expected, actual, violations}, `actual` being the
    # arguments of the closest call (the one with the fewest violations)
    (
        "tool_calls_with_args pass: actual is the matching call",
        lambda: ConversationToolCallsWithArgs("refund", {"amount": 5000}),
        REFUNDS,
        (
            "passed",
            "calls refund(amount=5000)",
            {
                "tool": "refund",
                "expected": {"amount": 5000},
                "matching_calls": 1,
                "actual": SECOND,
                "violations": [],
            },
        ),
    ),
    (
        "tool_calls_with_args pass with args_match",
        lambda: ConversationToolCallsWithArgs("refund", args_match={"amount": "^7$"}),
        REFUNDS,
        (
            "passed",
            "calls refund(amount~/^7$/)",
            {
                "tool": "refund",
                "expected": {},
                "args_match": {"amount": "^7$"},
                "matching_calls": 1,
                "actual": THIRD,
                "violations": [],
            },
        ),
    ),
    (
        "tool_calls_with_args never called",
        lambda: ConversationToolCallsWithArgs("missing", {"a": 1}, args_match={"b": "x"}),
        REFUNDS,
        (
            "failed",
            "tool 'missing' was not called",
            {
                "tool": "missing",
                "expected": {"a": 1},
                "args_match": {"b": "x"},
                "actual": None,
                "violations": [],
                "called_tools": ["refund", "search"],
            },
        ),
    ),
    (
        "tool_calls_with_args fail: every call's violations, actual of the closest call",
        lambda: ConversationToolCallsWithArgs("refund", {"amount": 5000, "currency": "USD"}),
        REFUNDS,
        (
            "failed",
            "tool argument violations",
            {
                "tool": "refund",
                "expected": {"amount": 5000, "currency": "USD"},
                "matching_calls": 0,
                "actual": SECOND,
                "violations": [
                    _args_violation(
                        0,
                        FIRST,
                        "value_mismatch",
                        "amount",
                        "Expected 'refund' argument 'amount' to be 5000 but got 5",
                        expected=5000,
                        actual=5,
                    ),
                    _args_violation(
                        0,
                        FIRST,
                        "missing_argument",
                        "currency",
                        "Expected 'refund' to be called with argument 'currency' but it was "
                        "not given",
                    ),
                    _args_violation(
                        1,
                        SECOND,
                        "value_mismatch",
                        "currency",
                        "Expected 'refund' argument 'currency' to be 'USD' but got 'EUR'",
                        expected="USD",
                        actual="EUR",
                    ),
                    _args_violation(
                        2,
                        THIRD,
                        "value_mismatch",
                        "amount",
                        "Expected 'refund' argument 'amount' to be 5000 but got '7'",
                        expected=5000,
                        actual="7",
                    ),
                    _args_violation(
                        2,
                        THIRD,
                        "missing_argument",
                        "currency",
                        "Expected 'refund' to be called with argument 'currency' but it was "
                        "not given",
                    ),
                ],
            },
        ),
    ),
    (
        "tool_calls_with_args match=all: one call without the argument fails",
        lambda: ConversationToolCallsWithArgs("refund", {"amount": None}, match="all"),
        WITH_INVALID,
        (
            "failed",
            "tool argument violations",
            {
                "tool": "refund",
                "expected": {"amount": None},
                "matching_calls": 1,
                "actual": "{oops",  # closest: fewest violations, the first of equals
                "violations": [
                    {
                        "type": "invalid_args_json",
                        "tool": "refund",
                        "argument": None,
                        "error": JSON_ERROR,
                        "turn_index": 0,
                        "description": "'refund' was called with arguments that are not valid "
                        f"JSON ({JSON_ERROR})",
                        "evidence": {"tool": "refund", "arguments": "{oops"},
                    },
                    {
                        "type": "missing_argument",
                        "tool": "refund",
                        "argument": "amount",
                        "turn_index": 0,
                        "description": "Expected 'refund' to be called with argument 'amount' "
                        "but it was not given",
                        "evidence": {"tool": "refund", "arguments": {"note": "x"}},
                    },
                ],
            },
        ),
    ),
]


@pytest.mark.parametrize(
    ("check", "subject", "expected"),
    [pytest.param(c, s, e, id=name) for name, c, s, e in CONVERSATION_CASES],
)
def test_conversation_level_tool_records(
    check: Build, subject: Conversation, expected: Record
) -> None:
    assert record(check, subject) == expected


# -- conversation level: content ----------------------------------------------------------------

ORDERS = chat(
    turn("u1", "Your Order shipped"),
    turn("u2", "Order #12345 is late, order again"),
    turn("u3", "Refund issued"),
)
LONG = "x" * 60 + "secret" + "y" * 60 + "secret" + "z" * 10
SNIPPET = "…" + "x" * 40 + "secret" + "y" * 40 + "…"


def _found(index: int, pattern: str, snippet: str) -> dict[str, Any]:
    return {
        "turn_index": index,
        "description": f"forbidden content '{pattern}' found",
        "evidence": {"pattern": pattern, "snippet": snippet},
    }


def _no_response(patterns: list[str], missing: list[str], closest: int | None) -> Record:
    checked = 0 if closest is None else 3
    return (
        "failed",
        "no response contained all patterns",
        {
            "patterns": patterns,
            "responses_checked": checked,
            "missing_patterns": missing,
            "closest_turn_index": closest,
        },
    )


CONTENT_CASES: list[tuple[str, Build, Conversation, Record]] = [
    # content_includes: one assistant message contains all patterns, case-insensitive
    (
        "content_includes pass names the message",
        lambda: ConversationContentIncludes(["order", "#12345"]),
        ORDERS,
        (
            "passed",
            "conversation_content_includes 'order', '#12345'",
            {"patterns": ["order", "#12345"], "turn_index": 1},
        ),
    ),
    (
        "content_includes fail: the closest message and what it misses",
        lambda: ConversationContentIncludes(["order", "late", "refund"]),
        ORDERS,
        _no_response(["order", "late", "refund"], ["refund"], 1),
    ),
    (
        "content_includes fail: the first of equally close messages",
        lambda: ConversationContentIncludes(["zz", "yy"]),
        ORDERS,
        _no_response(["zz", "yy"], ["zz", "yy"], 0),
    ),
    (
        "content_includes fail without any response",
        lambda: ConversationContentIncludes(["a"]),
        Conversation(turns=[]),
        _no_response(["a"], ["a"], None),
    ),
    # content_includes_any: case_sensitive default false
    (
        "content_includes_any pass",
        lambda: ConversationContentIncludesAny(["credit", "REFUND"]),
        ORDERS,
        (
            "passed",
            "conversation_content_includes_any 'credit', 'REFUND'",
            {"patterns": ["credit", "REFUND"], "matched_pattern": "REFUND", "turn_index": 2},
        ),
    ),
    (
        "content_includes_any case-sensitive fail",
        lambda: ConversationContentIncludesAny(["REFUND"], case_sensitive=True),
        ORDERS,
        (
            "failed",
            "no response contained required patterns",
            {"patterns": ["REFUND"], "case_sensitive": True, "responses_checked": 3},
        ),
    ),
    (
        "content_includes_any case-sensitive pass",
        lambda: ConversationContentIncludesAny(["Refund"], case_sensitive=True),
        ORDERS,
        (
            "passed",
            "conversation_content_includes_any 'Refund'",
            {"patterns": ["Refund"], "matched_pattern": "Refund", "turn_index": 2},
        ),
    ),
    # content_not_includes: one violation per (message, pattern) with a snippet
    (
        "content_not_includes fail",
        lambda: ConversationContentNotIncludes(["ORDER", "refund"]),
        ORDERS,
        (
            "failed",
            "forbidden content detected",
            {
                "violations": [
                    _found(0, "ORDER", "Your Order shipped"),
                    _found(1, "ORDER", "Order #12345 is late, order again"),
                    _found(2, "refund", "Refund issued"),
                ]
            },
        ),
    ),
    (
        "content_not_includes case-sensitive",
        lambda: ConversationContentNotIncludes(["Order"], case_sensitive=True),
        chat(turn("u1", "your order"), turn("u2", "Order #1")),
        ("failed", "forbidden content detected", {"violations": [_found(1, "Order", "Order #1")]}),
    ),
    (
        "content_not_includes pass",
        lambda: ConversationContentNotIncludes(["zz"]),
        ORDERS,
        (
            "passed",
            "conversation_content_not_includes 'zz'",
            {"violations": [], "responses_checked": 3},
        ),
    ),
    (
        "content_not_includes snippet: 40 characters around the first occurrence",
        lambda: ConversationContentNotIncludes(["secret"]),
        chat(turn("u", LONG)),
        ("failed", "forbidden content detected", {"violations": [_found(0, "secret", SNIPPET)]}),
    ),
    (
        "content_not_includes snippet at the start of the message",
        lambda: ConversationContentNotIncludes(["SECRET"]),
        chat(turn("u", "secret" + "y" * 60)),
        (
            "failed",
            "forbidden content detected",
            {"violations": [_found(0, "SECRET", "secret" + "y" * 40 + "…")]},
        ),
    ),
]


@pytest.mark.parametrize(
    ("check", "subject", "expected"),
    [pytest.param(c, s, e, id=name) for name, c, s, e in CONTENT_CASES],
)
def test_conversation_level_content_records(
    check: Build, subject: Conversation, expected: Record
) -> None:
    assert record(check, subject) == expected


# -- bad arguments fail at construction, naming the check (G4) -----------------------------------

BAD_ARGUMENTS: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    (
        "content_includes empty",
        lambda: ContentIncludes([]),
        ValueError,
        "content_includes needs at least one value, got an empty list",
    ),
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
        "conversation content_includes empty",
        lambda: ConversationContentIncludes([]),
        ValueError,
        "conversation_content_includes needs at least one value, got an empty list",
    ),
    (
        "case_sensitive not a bool",
        lambda: ConversationContentIncludesAny(["a"], case_sensitive="yes"),  # type: ignore[arg-type]
        TypeError,
        "case_sensitive must be true or false, got 'yes'",
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
    (
        "forbidden_args empty",
        lambda: ConversationToolsNotCalledWithArgs("t", {}),
        ValueError,
        "tools_not_called_with_args needs a non-empty forbidden_args mapping",
    ),
    (
        "forbidden_args missing",
        lambda: ConversationToolsNotCalledWithArgs("t"),
        ValueError,
        "tools_not_called_with_args needs a non-empty forbidden_args mapping",
    ),
    (
        "forbidden_args empty list",
        lambda: ConversationToolsNotCalledWithArgs("t", {"a": []}),
        ValueError,
        "forbidden_args.a is an empty list, which no value matches; list the forbidden values, "
        "or give one value",
    ),
    (
        "tool_name not a string",
        lambda: ConversationToolsNotCalledWithArgs(3, {"a": 1}),  # type: ignore[arg-type]
        TypeError,
        "tool_name must be a string, got int",
    ),
    (
        "tool_name blank",
        lambda: ToolCallsWithArgs("  ", {"a": 1}),
        ValueError,
        "tool_calls_with_args needs a non-empty tool_name",
    ),
    (
        "tool_name not a string",
        lambda: ConversationToolCallsWithArgs(5, {"a": 1}),  # type: ignore[arg-type]
        ValueError,
        "conversation_tool_calls_with_args needs a non-empty tool_name",
    ),
    (
        "match neither any nor all",
        lambda: ToolCallsWithArgs("t", {"a": 1}, match="some"),
        ValueError,
        "match must be 'any' or 'all', got 'some'",
    ),
    (
        "expected arguments not a mapping",
        lambda: ConversationToolCallsWithArgs("t", [1]),  # type: ignore[arg-type]
        TypeError,
        "expected arguments must be a mapping, got list",
    ),
    (
        "args_match not a mapping",
        lambda: ToolCallsWithArgs("t", args_match=["q"]),  # type: ignore[arg-type]
        TypeError,
        "args_match must be a mapping, got list",
    ),
    (
        "args_match pattern empty",
        lambda: ToolCallsWithArgs("t", args_match={"q": ""}),
        ValueError,
        "args_match.q pattern must not be empty",
    ),
    (
        "guardrail blank",
        lambda: GuardrailTriggered("  "),
        ValueError,
        "guardrail must be a non-empty string (or omitted)",
    ),
    (
        "guardrail expected not a bool",
        lambda: GuardrailTriggered("g", expected="no"),  # type: ignore[arg-type]
        TypeError,
        "expected must be true or false, got 'no'",
    ),
]


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [pytest.param(b, e, m, id=name) for name, b, e, m in BAD_ARGUMENTS],
)
def test_bad_arguments_are_refused_with_a_message(
    build: Callable[[], object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        build()
    assert str(caught.value) == message


# -- judged checks: what the judge is asked and what the result says -----------------------------


def test_llm_judge_asks_about_the_turn_and_reports_the_verdict() -> None:
    """`llm_judge`: criteria and/or rubric, min_score and model reach the judge (SEMANTICS,
    promptkit turn level); details {reasoning, score} plus criteria, rubric and min_score."""
    judge = FakeJudge({"passed": True, "score": 0.8, "reason": "fine"})
    subject = turn("What?", "Answer", [("search", {"q": "x"}, "r")])
    check = LLMJudge("Is polite", rubric="1-5", min_score=0.7, model="m1", judge=judge)
    result = check.check(subject)
    assert (result.status.value, result.reason, dict(result.details)) == (
        "passed",
        "fine",
        {
            "criteria": "Is polite",
            "rubric": "1-5",
            "min_score": 0.7,
            "reasoning": "fine",
            "score": 0.8,
            "judge": "fake",
        },
    )
    (request,) = judge.requests
    assert (request.criteria, request.response, request.input, request.kind) == (
        "Is polite\n\nRubric: 1-5",
        "Answer",
        "What?",
        "rubric",
    )
    assert request.tool_calls == ({"name": "search", "arguments": {"q": "x"}},)
    assert (request.model, dict(request.params)) == ("m1", {"min_score": 0.7})


def test_llm_judge_score_below_min_score_fails() -> None:
    """`llm_judge`: passes when the judge passes and its score is >= min_score."""
    judge = FakeJudge({"passed": True, "score": 0.6, "reason": "meh"})
    result = LLMJudge(rubric="R", min_score=0.7, judge=judge).check(turn("Q", "A"))
    assert (result.status.value, result.reason, dict(result.details)) == (
        "failed",
        "score 0.6 is below min_score 0.7: meh",
        {
            "criteria": None,
            "rubric": "R",
            "min_score": 0.7,
            "reasoning": "meh",
            "score": 0.6,
            "judge": "fake",
        },
    )
    assert judge.requests[0].criteria == "R"


def test_llm_judge_conversation_sees_only_user_and_assistant_text() -> None:
    """The conversation judge reads the user and assistant messages with text, in order; tool
    results and tool-call-only messages are not part of the rendered conversation."""
    judge = FakeJudge({"passed": True, "score": 0.6, "reason": "meh"})
    conv = Conversation(
        messages=[
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "1", "content": "tool out"},
            {"role": "assistant", "content": "Hello"},
        ]
    )
    check = LLMJudgeConversation(criteria="warm", min_score=0.5, model="m2", judge=judge)
    result = check.check(conv)
    assert (result.status.value, result.reason, dict(result.details)) == (
        "passed",
        "meh",
        {
            "criteria": "warm",
            "rubric": None,
            "min_score": 0.5,
            "reasoning": "meh",
            "score": 0.6,
            "judge": "fake",
        },
    )
    (request,) = judge.requests
    assert (request.criteria, request.response, request.kind) == (
        "warm",
        "user: Hi\nassistant: Hello",
        "conversation",
    )
    assert request.conversation == (("user", "Hi"), ("assistant", "Hello"))
    assert (request.model, dict(request.params)) == ("m2", {"min_score": 0.5})


def test_llm_judge_conversation_of_turns_without_messages() -> None:
    """A turn built without messages contributes its input as the user's and its text as the
    assistant's message (`assistant_texts`); an empty text adds nothing."""
    judge = FakeJudge({"passed": False, "score": 0.1, "reason": "curt"})
    conv = Conversation(turns=[Turn(input="Q1", text="A1"), Turn(input="Q2", text="")])
    result = LLMJudgeConversation(criteria="warm", judge=judge).check(conv)
    assert (result.status.value, result.reason) == ("failed", "curt")
    (request,) = judge.requests
    assert request.conversation == (("user", "Q1"), ("assistant", "A1"), ("user", "Q2"))
    assert (request.response, request.model, dict(request.params)) == (
        "user: Q1\nassistant: A1\nuser: Q2",
        None,
        {},
    )


# -- a regex timeout on one call leaves the others' records intact (G8) --------------------------

SLOW = {"q": "a" * 40 + "!"}  # `(a|aa)+$` backtracks for far longer than 50 ms on this


def test_conversation_args_pass_reports_the_matching_call_not_the_timed_out_one() -> None:
    """`actual` on a pass holds the arguments of a call that satisfied the requirements."""
    conv = Conversation(
        turns=[
            Turn(tool_calls=[ToolCall(name="get", arguments=SLOW)]),
            Turn(tool_calls=[ToolCall(name="get", arguments={"q": "hello world"})]),
        ]
    )
    check = ConversationToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, regex_timeout=0.05
    )
    assert record(check, conv) == (
        "passed",
        "calls get(q~/(a|aa)+$|world/)",
        {
            "tool": "get",
            "expected": {},
            "args_match": {"q": "(a|aa)+$|world"},
            "matching_calls": 1,
            "actual": {"q": "hello world"},
            "violations": [],
        },
    )


def test_conversation_args_match_all_fails_on_a_decided_call_beside_a_timed_out_one() -> None:
    """match=all: a call that violates decides the failure even when another call's pattern
    ran out of time; the violation carries that call's turn_index."""
    conv = Conversation(
        turns=[
            Turn(tool_calls=[ToolCall(name="get", arguments=SLOW)]),
            Turn(tool_calls=[ToolCall(name="get", arguments={"q": "hello"})]),
        ]
    )
    check = ConversationToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, match="all", regex_timeout=0.05
    )
    assert record(check, conv) == (
        "failed",
        "tool argument violations",
        {
            "tool": "get",
            "expected": {},
            "args_match": {"q": "(a|aa)+$|world"},
            "matching_calls": 0,
            "actual": {"q": "hello"},
            "violations": [
                {
                    "type": "pattern_mismatch",
                    "tool": "get",
                    "argument": "q",
                    "pattern": "(a|aa)+$|world",
                    "actual": "hello",
                    "turn_index": 1,
                    "description": "Expected 'get' argument 'q' to match /(a|aa)+$|world/ "
                    "but got 'hello'",
                    "evidence": {"tool": "get", "arguments": {"q": "hello"}},
                }
            ],
        },
    )


def test_conversation_args_timeout_alone_is_an_error_naming_the_pattern() -> None:
    """G7/G8: a pattern that ran out of time and no other call decides: `error`."""
    conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="get", arguments=SLOW)])])
    check = ConversationToolCallsWithArgs("get", args_match={"q": "(a|aa)+$"}, regex_timeout=0.05)
    assert record(check, conv) == (
        "error",
        "pattern '(a|aa)+$' did not finish within 0.05s on a text of 41 characters",
        {"pattern": "(a|aa)+$", "error": "timeout"},
    )
    assert check.check(conv).name == "conversation_tool_calls_with_args"


def test_turn_args_match_all_counts_only_decided_calls_as_not_matching() -> None:
    """match=all: the reason counts the calls that violate; an undecided (timed-out) call is
    neither a match nor a violation."""
    calls = Turn(
        tool_calls=[
            ToolCall(name="get", arguments=SLOW),
            ToolCall(name="get", arguments={"q": "world"}),
            ToolCall(name="get", arguments={"q": "hello"}),
        ]
    )
    check = ToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, match="all", regex_timeout=0.05
    )
    status, reason, details = record(check, calls)
    assert (status, reason, details["matching_calls"]) == (
        "failed",
        "1 of 3 calls do not match: Expected 'get' argument 'q' to match /(a|aa)+$|world/ "
        "but got 'hello'",
        1,
    )
    assert [v["actual"] for v in details["violations"]] == ["hello"]


# -- tool_calls_with_args at turn level: {violations, matching_calls} ----------------------------

NOT_JSON = ToolCall(name="get", arguments="{oops")
INVALID = {"type": "invalid_args_json", "tool": "get", "argument": None, "error": JSON_ERROR}
HELLO = {
    "type": "pattern_mismatch",
    "tool": "get",
    "argument": "q",
    "pattern": "world",
    "actual": "hello",
}
NOT_WORLD = "Expected 'get' argument 'q' to match /world/ but got 'hello'"


def _calls(*arguments: dict[str, Any] | ToolCall) -> Turn:
    return Turn(
        tool_calls=[
            a if isinstance(a, ToolCall) else ToolCall(name="get", arguments=a) for a in arguments
        ]
    )


ARGS_CASES: list[tuple[str, Build, Turn, Record]] = [
    # args_match reads a value's string rendering: a string itself, else its JSON (unescaped)
    (
        "args_match on numbers, lists and mappings",
        lambda: ToolCallsWithArgs(
            "get", args_match={"n": "^5$", "tags": 'é"\\]$', "o": '^\\{"k": 1\\}$'}
        ),
        _calls({"n": 5, "tags": ["café"], "o": {"k": 1}}),
        (
            "passed",
            'calls get(n~/^5$/, tags~/é"\\]$/, o~/^\\{"k": 1\\}$/)',
            {"violations": [], "matching_calls": 1},
        ),
    ),
    (
        "values and patterns together",
        lambda: ToolCallsWithArgs("get", {"n": 5}, args_match={"q": "x"}),
        _calls({"n": 5, "q": "xy"}),
        ("passed", "calls get(n=5, q~/x/)", {"violations": [], "matching_calls": 1}),
    ),
    (
        "an argument a pattern needs is missing",
        lambda: ToolCallsWithArgs("get", {"n": 5}, args_match={"q": "x"}),
        _calls({"n": 5}),
        (
            "failed",
            "Expected 'get' argument 'q' to match /x/ but it was not given",
            {
                "violations": [
                    {
                        "type": "missing_argument_for_pattern",
                        "tool": "get",
                        "argument": "q",
                        "pattern": "x",
                    }
                ],
                "matching_calls": 0,
            },
        ),
    ),
    # G7: arguments that are not valid JSON make the check `error` unless a call decides: with
    # `any` only a match decides; with `all` a real violation does. The reason names a real
    # violation first.
    (
        "any: invalid JSON beside a violation is an error",
        lambda: ToolCallsWithArgs("get", args_match={"q": "world"}),
        _calls(NOT_JSON, {"q": "hello"}),
        ("error", NOT_WORLD, {"violations": [INVALID, HELLO], "matching_calls": 0}),
    ),
    (
        "all: a violation decides beside invalid JSON",
        lambda: ToolCallsWithArgs("get", args_match={"q": "world"}, match="all"),
        _calls(NOT_JSON, {"q": "hello"}),
        ("failed", NOT_WORLD, {"violations": [INVALID, HELLO], "matching_calls": 0}),
    ),
    (
        "all: invalid JSON beside a match is an error",
        lambda: ToolCallsWithArgs("get", {"q": None}, match="all"),
        _calls(NOT_JSON, {"q": 1}),
        (
            "error",
            "1 of 2 calls do not match: 'get' was called with arguments that are not valid "
            f"JSON ({JSON_ERROR})",
            {"violations": [INVALID], "matching_calls": 1},
        ),
    ),
    (
        "all: no call matches, so no count in the reason",
        lambda: ToolCallsWithArgs("get", {"q": "hi"}, match="all"),
        _calls({"q": "x"}, {"q": "y"}),
        (
            "failed",
            "Expected 'get' argument 'q' to be 'hi' but got 'x'",
            {
                "violations": [
                    {
                        "type": "value_mismatch",
                        "tool": "get",
                        "argument": "q",
                        "expected": "hi",
                        "actual": v,
                    }
                    for v in ("x", "y")
                ],
                "matching_calls": 0,
            },
        ),
    ),
    # G8: with `any`, a violation does not decide; a timeout elsewhere leaves it undecided
    (
        "any: a timeout beside a violation is an error",
        lambda: ToolCallsWithArgs("get", args_match={"q": "(a|aa)+$|world"}, regex_timeout=0.05),
        _calls(SLOW, {"q": "hello"}),
        (
            "error",
            "pattern '(a|aa)+$|world' did not finish within 0.05s on a text of 41 characters",
            {"pattern": "(a|aa)+$|world", "error": "timeout"},
        ),
    ),
]


@pytest.mark.parametrize(
    ("check", "subject", "expected"),
    [pytest.param(c, s, e, id=name) for name, c, s, e in ARGS_CASES],
)
def test_turn_level_tool_calls_with_args_records(
    check: Build, subject: Turn, expected: Record
) -> None:
    assert record(check, subject) == expected


# -- content_matches at conversation level --------------------------------------------------------

MATCH_CASES: list[tuple[str, Build, Conversation, Record]] = [
    # passes when some assistant message matches; on pass {pattern, matched, turn_index, match}
    (
        "content_matches pass",
        lambda: ConversationContentMatches(r"#\d{5,}"),
        chat(turn("u", "Hi"), turn("u", "Order #12345 shipped")),
        (
            "passed",
            "some response matches /#\\d{5,}/",
            {"pattern": r"#\d{5,}", "matched": True, "turn_index": 1, "match": "#12345"},
        ),
    ),
    (
        "content_matches fail",
        lambda: ConversationContentMatches(r"#\d{6,}"),
        chat(turn("u", "Hi"), turn("u", "Order #12345 shipped")),
        (
            "failed",
            "no response matched pattern",
            {"pattern": r"#\d{6,}", "matched": False, "responses_checked": 2},
        ),
    ),
    (
        "content_matches timeout",
        lambda: ConversationContentMatches("(a|aa)+$", regex_timeout=0.05),
        chat(turn("x", "a" * 40 + "!")),
        (
            "error",
            "pattern '(a|aa)+$' did not finish within 0.05s on a text of 41 characters",
            {"pattern": "(a|aa)+$", "error": "timeout"},
        ),
    ),
]


@pytest.mark.parametrize(
    ("check", "subject", "expected"),
    [pytest.param(c, s, e, id=name) for name, c, s, e in MATCH_CASES],
)
def test_conversation_content_matches_records(
    check: Build, subject: Conversation, expected: Record
) -> None:
    assert record(check, subject) == expected


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: ConversationContentMatches(""),
            "conversation_content_matches pattern must not be empty",
        ),
        (lambda: LLMJudge("  "), "llm_judge criteria must be a non-empty string"),
        (lambda: LLMJudge(5), "llm_judge criteria must be a non-empty string"),
        (lambda: LLMJudge(rubric=""), "llm_judge rubric must be a non-empty string"),
        (lambda: LLMJudge(), "llm_judge needs 'criteria' or 'rubric'"),
        (lambda: LLMJudgeConversation(), "llm_judge_conversation needs 'criteria' or 'rubric'"),
    ],
)
def test_judged_and_pattern_arguments_are_refused_with_a_message(
    build: Callable[[], object], message: str
) -> None:
    """G4: an empty pattern, a blank or missing criteria/rubric is refused when built."""
    with pytest.raises(ValueError) as caught:
        build()
    assert str(caught.value) == message
