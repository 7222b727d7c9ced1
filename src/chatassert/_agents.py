"""`ActiveAgent`: which agent was active after a turn — a handoff check (docs/flat.md).

In a multi-agent system one agent hands the conversation to another (the OpenAI Agents SDK
calls a tool named `transfer_to_<agent>`, whose output names the new agent:
`{"assistant": "Billing Agent"}`; Google ADK calls `transfer_to_agent`, whose `agent_name`
argument names it). `ActiveAgent` checks the agent active after a turn, that
is, the one that answered it. It reads, in order:

1. `Turn.agent`, given in code or a native record, or set by a log adapter from the log
   (handoffs in or before the turn, run items that name their agent, `metadata.agent` on a
   message; docs/offline.md);
2. the last handoff call of the turn (`transfer_to_<agent>`): the agent ADK's
   `transfer_to_agent` names in its `agent_name` argument, or its output names, else the
   name after `transfer_to_`;
3. the turn's `metadata.agent`.

A turn none of them speaks for is an `error`, never a pass: a test file's `start_agent` or
`agent_id` says where a live run started, not what the log shows.

Agent names match when equal, or when their function-name forms are (the SDK's own
transformation of an agent's name into its handoff tool name: spaces and other characters
that are not ASCII letters, digits or `_` become `_`, then lower case), so `Billing Agent`,
`billing_agent` and `transfer_to_billing_agent`'s agent are one agent.

Tests: tests/flat/test_active_agent.py, tests/flat/test_flat_real_files.py and
tests/transcripts/test_agent_handoffs.py.
"""

from __future__ import annotations

import json
import re

from chatassert._base import Assertion
from chatassert._models import ToolCall, Turn, turn_of
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "ADK_HANDOFF",
    "HANDOFF_PREFIX",
    "ActiveAgent",
    "active_agent",
    "function_style",
    "handoff_target",
    "is_handoff",
    "same_agent",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

HANDOFF_PREFIX = "transfer_to_"
"""The prefix of the OpenAI Agents SDK's handoff tool names (`transfer_to_billing_agent`)."""

ADK_HANDOFF = "transfer_to_agent"
"""Google ADK's handoff tool, whose `agent_name` argument names the agent handed to."""

_NOT_NAME = re.compile(r"[^a-zA-Z0-9_]")


def function_style(name: str) -> str:
    """An agent name in the form the OpenAI Agents SDK gives it inside a handoff tool name.

    Example:
        >>> function_style("Billing Agent"), function_style("billing-agent")
        ('billing_agent', 'billing_agent')
    """
    return _NOT_NAME.sub("_", name.replace(" ", "_")).lower()


def same_agent(expected: str, actual: str) -> bool:
    """Whether two agent names name one agent: equal, or equal in their function-name form.

    Example:
        >>> same_agent("Billing Agent", "billing_agent"), same_agent("billing", "triage")
        (True, False)
    """
    return expected == actual or function_style(expected) == function_style(actual)


def is_handoff(tool: str) -> bool:
    """Whether a tool name is a handoff (`transfer_to_<agent>`, the SDK's default name)."""
    return tool.startswith(HANDOFF_PREFIX) and len(tool) > len(HANDOFF_PREFIX)


def handoff_target(call: ToolCall, output: str | None) -> str:
    """The agent a handoff call hands the conversation to.

    Google ADK has one handoff tool, `transfer_to_agent`, whose `agent_name` argument names
    the agent: that name, when the call gives it. The OpenAI Agents SDK has a tool per agent
    and answers its call with `{"assistant": "<agent name>"}`: that name, when the call's
    output says it. Else the part of the tool name after `transfer_to_`.

    Example:
        >>> from chatassert import ToolCall
        >>> handoff_target(ToolCall(name="transfer_to_billing_agent"),
        ...                '{"assistant": "Billing Agent"}')
        'Billing Agent'
        >>> handoff_target(ToolCall(name="transfer_to_billing_agent"), None)
        'billing_agent'
        >>> handoff_target(ToolCall(name="transfer_to_agent", arguments={"agent_name": "billing"}),
        ...                '{"result": null}')
        'billing'
    """
    tool = call.name
    if tool == ADK_HANDOFF:
        named = call.arguments.get("agent_name")
        if isinstance(named, str) and named.strip():
            return named
    if output and output.lstrip().startswith("{"):
        try:
            said = json.loads(output)
        except ValueError:
            said = None
        name = said.get("assistant") if isinstance(said, dict) else None
        if isinstance(name, str) and name.strip():
            return name
    return tool[len(HANDOFF_PREFIX) :]


def active_agent(turn: Turn) -> tuple[str, str] | None:
    """The agent active after `turn` and where that was read, or None when nothing says.

    In order: `Turn.agent` (with the log's place when an adapter recorded it in
    `metadata.agent_source`), the turn's last handoff call, the turn's `metadata.agent`.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> active_agent(Turn(tool_calls=[ToolCall(name="transfer_to_billing")]))
        ('billing', 'handoff call transfer_to_billing')
        >>> active_agent(Turn(text="Hi")) is None
        True
    """
    if turn.agent:
        where = turn.metadata.get("agent_source")
        if isinstance(where, str):
            return turn.agent, f"Turn.agent, read from the log at {where}"
        return turn.agent, "Turn.agent"
    for call, result in reversed(turn.call_results):
        if is_handoff(call.name):
            output = None if result is None else result.content
            return handoff_target(call, output), f"handoff call {call.name}"
    named = turn.metadata.get("agent")
    if isinstance(named, str) and named.strip():
        return named, "metadata.agent"
    return None


@register
class ActiveAgent(Assertion):
    """Passes when the given agent was active after the turn (it answered the turn).

    The active agent is read from `Turn.agent`, else the turn's last handoff call
    (`transfer_to_<agent>`), else the turn's `metadata.agent`; a turn that none of them speaks
    for is an `error`, never a pass. Names match exactly or in the function-name form the
    OpenAI Agents SDK gives handoff tools (`Billing Agent` ≡ `billing_agent`). The flat
    dialect's `expected_agent` on a turn is this check.

    Example:
        >>> from chatassert import ToolCall, ToolResult, Turn
        >>> from chatassert.flat import ActiveAgent
        >>> turn = Turn(text="Billing here.",
        ...             tool_calls=[ToolCall(name="transfer_to_billing_agent", id="h1")],
        ...             tool_results=[ToolResult(call_id="h1",
        ...                                      content='{"assistant": "Billing Agent"}')])
        >>> ActiveAgent("billing_agent").check(turn).passed
        True
        >>> result = ActiveAgent("triage").check(turn)
        >>> print(result.reason[:63])
        Expected agent 'triage' after the turn, but 'Billing Agent' was
        >>> result.details["source"]
        'handoff call transfer_to_billing_agent'
        >>> print(ActiveAgent("triage").check(Turn(text="Hello")).status.value)
        error
    """

    __slots__ = ("agent",)
    kind = "active_agent"
    evidence_at = "/agent"
    params = (
        Param(
            "agent",
            "str",
            required=True,
            doc="the agent that should be active after the turn (the one that answered it)",
        ),
    )
    agent: str

    def __init__(self, agent: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(agent, str) or not agent.strip():
            raise ValueError("active_agent needs a non-empty agent name")
        self._set("agent", agent)

    def _check(self, subject: object) -> Result:
        found = active_agent(turn_of(subject))
        if found is None:
            return Result(
                _E,
                self.kind,
                f"cannot check for agent '{self.agent}': the log does not say which agent "
                f"answered the turn (no Turn.agent, {HANDOFF_PREFIX}<agent> handoff call or "
                "metadata.agent)",
                {"expected": self.agent, "actual": None, "source": None},
            )
        actual, source = found
        details = {"expected": self.agent, "actual": actual, "source": source}
        if same_agent(self.agent, actual):
            return Result(_P, self.kind, f"{self._held()} (from {source})", details)
        return Result(
            _F,
            self.kind,
            f"Expected agent '{self.agent}' after the turn, but '{actual}' was active "
            f"(from {source})",
            details,
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"agent '{self.agent}' is active after the turn"
