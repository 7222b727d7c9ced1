"""PromptKit's checks of which tools and agents were called, per turn and per conversation.

`tools_called`, `tools_not_called`, `agent_invoked`, `agent_not_invoked` and
`agent_response_contains`, and their conversation forms with `min_calls` (docs/promptkit.md). Tests:
tests/promptkit/test_promptkit_names.py.

Example:
    >>> from chatassert import ToolCall, Turn
    >>> from chatassert.promptkit import ToolsNotCalled
    >>> turn = Turn(tool_calls=[ToolCall(name="delete_account")])
    >>> ToolsNotCalled(["delete_account"]).check(turn).passed
    False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._early import on_calls
from chatassert._models import Conversation, as_conversation, turn_of
from chatassert._params import Param, register
from chatassert._promptkit_base import call_arguments, checked_names, quoted_list, unique
from chatassert._result import Result, Status
from chatassert._trajectory_base import LocatedCall, Tally

__all__ = [
    "AgentInvoked",
    "AgentNotInvoked",
    "AgentResponseContains",
    "ConversationAgentInvoked",
    "ConversationAgentNotInvoked",
    "ConversationToolsCalled",
    "ConversationToolsNotCalled",
    "ToolsCalled",
    "ToolsNotCalled",
]

_P, _F = Status.PASSED, Status.FAILED


# -- tools and agents at turn level ----------------------------------------------------------


class _NamesCheck(Assertion):
    """A check over a list of tool (or agent) names called in one turn."""

    __slots__ = ("_names",)
    _names: tuple[str, ...]
    _attr: ClassVar[str] = "tools"
    evidence_at = "/tool_calls"

    def __init__(self, names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set(self._attr, checked_names(names, self.kind))
        self._set("_names", getattr(self, self._attr))

    # The words of the outcome: the details keys of the names found wanting and of the tools
    # called, and the failure reason (a template over `names` and `called`).
    _named_key: ClassVar[str]
    _called_key: ClassVar[str] = "called_tools"
    _failure: ClassVar[str]

    def _called(self, subject: object) -> list[str]:
        return unique(turn_of(subject).called_tools)

    def _says(self, names: list[str], called: list[str]) -> Result:
        details = {self._named_key: names, self._called_key: called}
        if not names:
            return Result(_P, self.kind, self._held(), details)
        reason = self._failure.format(names=quoted_list(names), called=called)
        return Result(_F, self.kind, reason, details)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.kind} {', '.join(self._names)}"


@register
class ToolsCalled(_NamesCheck):
    """Passes when every tool was called at least once in the turn (order and count ignored).

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import ToolsCalled
        >>> turn = Turn(tool_calls=[ToolCall(name="search_web")])
        >>> ToolsCalled(["get_weather"]).check(turn).details
        {'missing_tools': ['get_weather'], 'called_tools': ['search_web']}
    """

    __slots__ = ("tools",)
    kind = "tools_called"
    dialect_names = {"promptkit.turn": "tools_called"}
    params = (Param("tools", "str_list", required=True, doc="tools that must be called"),)
    _named_key = "missing_tools"
    _failure = "Expected tools {names} to be called but they were not (called: {called})"
    tools: tuple[str, ...]

    def __init__(self, tools: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(tools, message=message)

    def _check(self, subject: object) -> Result:
        called = self._called(subject)
        return self._says([t for t in self._names if t not in called], called)


@register
class ToolsNotCalled(_NamesCheck):
    """Passes when none of the tools was called in the turn.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import ToolsNotCalled
        >>> turn = Turn(tool_calls=[ToolCall(name="get_account"), ToolCall(name="delete_account")])
        >>> details = ToolsNotCalled(["delete_account"]).check(turn).details
        >>> details["forbidden_tools_called"], details["all_called_tools"]
        (['delete_account'], ['get_account', 'delete_account'])
    """

    __slots__ = ("tools",)
    kind = "tools_not_called"
    dialect_names = {"promptkit.turn": "tools_not_called"}
    params = (Param("tools", "str_list", required=True, doc="tools that must not be called"),)
    _named_key = "forbidden_tools_called"
    _called_key = "all_called_tools"
    _failure = "Expected tools {names} not to be called but they were"
    tools: tuple[str, ...]

    def __init__(self, tools: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(tools, message=message)

    decided_early = on_calls(
        "failed",
        note="of one turn: a call of one of the tools fails it for good on its turn",
    )

    def _check(self, subject: object) -> Result:
        state = self._fold_start()
        for call in turn_of(subject).tool_calls:
            self._fold_call(state, LocatedCall(call, None, "", None))
        called = state.called
        return self._says([t for t in self._names if t in called], called)

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.called = []  # the names called, each once, in order of first call
        state.forbidden = 0  # how many of them are forbidden
        return state

    def _fold_call(self, state: Any, located: Any) -> bool:
        """Fold one call; True when it is of a forbidden name."""
        name = located.call.name
        if name not in state.called:
            state.called.append(name)
            if name in self._names:
                state.forbidden += 1
        return name in self._names

    def _fold_now(self, state: Any) -> str:
        return (_F if state.forbidden else _P).value

    def _fold_settled(self, state: Any) -> str | None:
        return _F.value if state.forbidden else None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: dict[str, Any]) -> None:
        state.undo(mark)


@register
class AgentInvoked(ToolsCalled):
    """Passes when every agent (an agent member's tool name) was called in the turn.

    PromptKit's spelling of `ToolsCalled` for agents, whose calls are tool calls named after
    the agent member: the same check, with its own parameter (`agents`), reason and details.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import AgentInvoked
        >>> AgentInvoked(["a2a__research_agent__search_papers"]).check(Turn(text="hi")).details
        {'missing_agents': ['a2a__research_agent__search_papers'], 'called_tools': []}
    """

    __slots__ = ()
    kind = "agent_invoked"
    dialect_names = {"promptkit.turn": "agent_invoked"}
    params = (Param("agents", "str_list", required=True, doc="agent tool names to be called"),)
    _named_key = "missing_agents"
    _failure = "Expected agents {names} to be invoked but they were not"

    def __init__(self, agents: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(agents, message=message)

    @property
    def agents(self) -> tuple[str, ...]:
        """The agent tool names that must be called."""
        return self._names


@register
class AgentNotInvoked(ToolsNotCalled):
    """Passes when none of the agents was called in the turn.

    PromptKit's spelling of `ToolsNotCalled` for agents (see `AgentInvoked`).

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import AgentNotInvoked
        >>> turn = Turn(tool_calls=[ToolCall(name="a2a__research_agent__search_papers")])
        >>> AgentNotInvoked(["a2a__research_agent__search_papers"]).check(turn).passed
        False
    """

    __slots__ = ()
    kind = "agent_not_invoked"
    dialect_names = {"promptkit.turn": "agent_not_invoked"}
    params = (Param("agents", "str_list", required=True, doc="agent tool names not to be called"),)
    _named_key = "forbidden_agents_called"
    _called_key = "called_tools"
    _failure = "Expected agents {names} not to be invoked but they were"

    def __init__(self, agents: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(agents, message=message)

    @property
    def agents(self) -> tuple[str, ...]:
        """The agent tool names that must not be called."""
        return self._names


@register
class AgentResponseContains(Assertion):
    """Passes when a result of the agent's calls in the turn contains the text (case-sensitive).

    Example:
        >>> from chatassert import Turn
        >>> from chatassert.promptkit import AgentResponseContains
        >>> turn = Turn(messages=[
        ...     {"role": "user", "content": "Find papers"},
        ...     {"role": "assistant", "tool_calls": [{"id": "a1", "type": "function",
        ...      "function": {"name": "a2a__research", "arguments": "{}"}}]},
        ...     {"role": "tool", "tool_call_id": "a1", "content": "Quantum Computing Fundamentals"},
        ...     {"role": "assistant", "content": "Found one."}])
        >>> AgentResponseContains("a2a__research", "Quantum").check(turn).details
        {'agent': 'a2a__research', 'found_content': 'Quantum Computing Fundamentals'}
    """

    __slots__ = ("agent", "contains")
    kind = "agent_response_contains"
    dialect_names = {"promptkit.turn": "agent_response_contains"}
    evidence_at = "/tool_results"
    params = (
        Param("agent", "str", required=True, doc="the agent tool name"),
        Param("contains", "text", required=True, doc="text its response must contain"),
    )
    agent: str
    contains: str

    def __init__(self, agent: str, contains: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        for name, value in (("agent", agent), ("contains", contains)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"agent_response_contains needs a non-empty {name}")
        self._set("agent", agent)
        self._set("contains", contains)

    def _check(self, subject: object) -> Result:
        turn = turn_of(subject)
        responses = [
            r.content for c, r in turn.call_results if c.name == self.agent and r is not None
        ]
        for content in responses:
            if self.contains in content:
                return Result(
                    _P, self.kind, self._held(), {"agent": self.agent, "found_content": content}
                )
        details = {
            "agent": self.agent,
            "expected_substr": self.contains,
            "reason": "no matching agent response found containing expected text",
            "responses": responses,
        }
        if not any(c.name == self.agent for c in turn.tool_calls):
            orphans = [r.content for r in turn.tool_results if r.name == self.agent]
            if orphans:  # a result the log names after the agent, paired with no call of it
                details["unmatched_results"] = orphans
                why = "its results in this turn match no call of it (check the call ids)"
            else:
                why = "the agent was not invoked in this turn"
        elif not responses:
            why = "the agent's call has no response in the transcript"
        else:
            why = "none of its responses contains it"
        return Result(
            _F,
            self.kind,
            f"Expected a response of agent '{self.agent}' containing '{self.contains}' but {why}",
            details,
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"agent {self.agent} responds with {self.contains!r}"


# -- conversation level: tools and agents ------------------------------------------------------


class _ConversationNames(Assertion):
    """Counts, or forbids, calls of named tools (agents) over a whole conversation."""

    __slots__ = ("_names",)
    level = "conversation"
    _names: tuple[str, ...]
    _attr: ClassVar[str] = "tool_names"
    _noun: ClassVar[str] = "tool"
    _violation: ClassVar[str] = "forbidden tool was called"
    evidence_at = "/tool_calls"

    def __init__(self, names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set(self._attr, checked_names(names, self.kind))
        self._set("_names", getattr(self, self._attr))

    def _counts(self, conversation: Conversation) -> dict[str, int]:
        counts = dict.fromkeys(self._names, 0)
        for _, call in conversation.tool_calls:
            if call.name in counts:
                counts[call.name] += 1
        return counts

    def _required(self, subject: object, min_calls: int, label: str) -> Result:
        counts = self._counts(as_conversation(subject))
        noun = self._noun
        requirements = [
            {noun: n, "calls": counts[n], "requiredCalls": min_calls} for n in self._names
        ]
        missing = [n for n in self._names if counts[n] < min_calls]
        details = {"requirements": requirements, "counts": {n: c for n, c in counts.items() if c}}
        if not missing:
            return Result(_P, self.kind, self._held(), details)
        return Result(_F, self.kind, f"{label}: {', '.join(missing)}", details)

    # -- the forbidden calls' fold, shared by the offline check and a monitor -------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.called = []  # the calls of a forbidden name (each with its turn)
        return state

    def _fold_call(self, state: Any, call: Any) -> bool:
        """Fold one call; True when it is of a forbidden name."""
        if call.call.name not in self._names:
            return False
        state.called.append(call)
        return True

    def _fold_now(self, state: Any) -> str:
        return (_F if state.called else _P).value

    def _fold_settled(self, state: Any) -> str | None:
        return _F.value if state.called else None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: dict[str, Any]) -> None:
        state.undo(mark)

    def _forbidden(self, subject: object, label: str) -> Result:
        conversation = as_conversation(subject)
        state = self._fold_start()
        for index, call in conversation.tool_calls:
            self._fold_call(state, LocatedCall(call, None, "", index))
        noun = self._noun
        violations = [
            {
                "turn_index": c.turn,
                "description": self._violation,
                "evidence": {noun: c.call.name, "arguments": call_arguments(c.call)},
            }
            for c in state.called
        ]
        if not violations:
            return Result(_P, self.kind, self._held(), {"violations": []})
        return Result(_F, self.kind, label, {"violations": violations})

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.kind} {', '.join(self._names)}"


def _min_calls(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"min_calls must be an integer of at least 1, got {value!r}")
    return value


_MIN_CALLS = Param("min_calls", "int", default=1, doc="the fewest calls of each (default 1)")


@register
class ConversationToolsCalled(_ConversationNames):
    """Passes when each tool was called at least `min_calls` times in the conversation.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationToolsCalled
        >>> conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="search")])])
        >>> ConversationToolsCalled(["search", "book"]).check(conv).reason
        'missing required tools: book'
    """

    __slots__ = ("min_calls", "tool_names")
    kind = "conversation_tools_called"
    dialect_names = {"promptkit.conversation": "tools_called"}
    params = (
        Param(
            "tool_names",
            "str_list",
            required=True,
            aliases=("tools",),
            doc="tools that must be called",
        ),
        _MIN_CALLS,
    )
    tool_names: tuple[str, ...]
    min_calls: int

    def __init__(
        self, tool_names: str | Sequence[str], min_calls: int = 1, *, message: str | None = None
    ) -> None:
        super().__init__(tool_names, message=message)
        self._set("min_calls", _min_calls(min_calls))

    _missing_label: ClassVar[str] = "missing required tools"

    def _check(self, subject: object) -> Result:
        return self._required(subject, self.min_calls, self._missing_label)


@register
class ConversationToolsNotCalled(_ConversationNames):
    """Passes when none of the tools was called anywhere in the conversation.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationToolsNotCalled
        >>> conv = Conversation(turns=[Turn(text="ok"), Turn(tool_calls=[
        ...     ToolCall(name="delete_account", arguments={"id": 7})])])
        >>> violation = ConversationToolsNotCalled(["delete_account"]).check(conv).details[
        ...     "violations"][0]
        >>> violation["turn_index"], violation["description"], violation["evidence"]["arguments"]
        (1, 'forbidden tool was called', {'id': 7})
    """

    __slots__ = ("tool_names",)
    kind = "conversation_tools_not_called"
    dialect_names = {"promptkit.conversation": "tools_not_called"}
    params = (
        Param(
            "tool_names",
            "str_list",
            required=True,
            aliases=("tools",),
            doc="tools that must not be called",
        ),
    )
    tool_names: tuple[str, ...]

    def __init__(self, tool_names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(tool_names, message=message)

    _forbidden_label: ClassVar[str] = "forbidden tools were called"
    decided_early = on_calls("failed", note="a set of names: a call of one fails it for good")

    def _check(self, subject: object) -> Result:
        return self._forbidden(subject, self._forbidden_label)


@register
class ConversationAgentInvoked(ConversationToolsCalled):
    """Passes when each agent was invoked at least `min_calls` times in the conversation.

    PromptKit's spelling of `ConversationToolsCalled` for agents: the same check, with its own
    parameter (`agent_names`), reason and evidence key (`agent`).

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationAgentInvoked
        >>> conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="a2a__research")])])
        >>> r = ConversationAgentInvoked(["a2a__research", "a2a__translate"]).check(conv)
        >>> r.reason, r.details["counts"]
        ('missing required agent invocations: a2a__translate', {'a2a__research': 1})
    """

    __slots__ = ()
    kind = "conversation_agent_invoked"
    _noun = "agent"
    _violation = "forbidden agent was invoked"
    dialect_names = {"promptkit.conversation": "agent_invoked"}
    params = (
        Param("agent_names", "str_list", required=True, doc="agents that must be invoked"),
        _MIN_CALLS,
    )
    _missing_label = "missing required agent invocations"

    def __init__(
        self, agent_names: str | Sequence[str], min_calls: int = 1, *, message: str | None = None
    ) -> None:
        super().__init__(agent_names, min_calls, message=message)

    @property
    def agent_names(self) -> tuple[str, ...]:
        """The agents that must be invoked."""
        return self._names


@register
class ConversationAgentNotInvoked(ConversationToolsNotCalled):
    """Passes when none of the agents was invoked anywhere in the conversation.

    PromptKit's spelling of `ConversationToolsNotCalled` for agents (see
    `ConversationAgentInvoked`).

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationAgentNotInvoked
        >>> conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="a2a__admin")])])
        >>> ConversationAgentNotInvoked(["a2a__admin"]).check(conv).reason
        'forbidden agents were invoked'
    """

    __slots__ = ()
    kind = "conversation_agent_not_invoked"
    _noun = "agent"
    _violation = "forbidden agent was invoked"
    dialect_names = {"promptkit.conversation": "agent_not_invoked"}
    params = (
        Param("agent_names", "str_list", required=True, doc="agents that must not be invoked"),
    )
    _forbidden_label = "forbidden agents were invoked"

    def __init__(self, agent_names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(agent_names, message=message)

    @property
    def agent_names(self) -> tuple[str, ...]:
        """The agents that must not be invoked."""
        return self._names
