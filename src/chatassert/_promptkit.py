"""The PromptKit vocabulary: content, tool, agent, guardrail and judged checks at two levels.

Turn-level types read one turn (its text, G1, and its tool calls, G2); conversation-level types
read a whole conversation and report violations with the `turn_index` they happened in, a
`description` and `evidence`. Agents are tools whose name is the agent member name
(`a2a__research_agent__search_papers`), so agent checks are tool checks over those names. The
workflow types live in `chatassert._workflow`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._errors import RegexTimeoutError
from chatassert._judged_base import JudgedAssertion, tool_call_summary
from chatassert._judging import Judge, JudgeRequest, Verdict, render_conversation
from chatassert._matchers import loose_equal
from chatassert._models import Conversation, ToolCall, as_conversation, text_of, turn_of
from chatassert._params import Param, normalise_type, register, string_values
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status

__all__ = [
    "AgentInvoked",
    "AgentNotInvoked",
    "AgentResponseContains",
    "ContentIncludes",
    "ContentMatches",
    "ConversationAgentInvoked",
    "ConversationAgentNotInvoked",
    "ConversationContentIncludes",
    "ConversationContentIncludesAny",
    "ConversationContentMatches",
    "ConversationContentNotIncludes",
    "ConversationToolCallsWithArgs",
    "ConversationToolsCalled",
    "ConversationToolsNotCalled",
    "ConversationToolsNotCalledWithArgs",
    "GuardrailTriggered",
    "LLMJudge",
    "LLMJudgeConversation",
    "ToolCallsWithArgs",
    "ToolsCalled",
    "ToolsNotCalled",
    "assistant_texts",
    "guardrail_key",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR
CONTENT_LIMIT = 500
"""How much of the response `content_matches` keeps in its failure details."""


# -- shared helpers --------------------------------------------------------------------------


def _quoted(values: Sequence[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _unique(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def assistant_texts(conversation: Conversation) -> list[tuple[int, str]]:
    """Return every assistant message with text as `(turn_index, text)`, in order.

    A turn built without messages contributes its `text`.
    """
    out: list[tuple[int, str]] = []
    for index, turn in enumerate(conversation.turns):
        if turn.messages:
            out.extend(
                (index, m.content) for m in turn.messages if m.role == "assistant" and m.content
            )
        elif turn.text:
            out.append((index, turn.text))
    return out


def _arguments(call: ToolCall) -> Any:
    return call.raw_arguments if call.arguments_error is not None else call.arguments


def _render(value: Any) -> str:
    """The string a pattern is matched against: a string itself, else its JSON rendering."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _timeout(kind: str, exc: RegexTimeoutError, pattern: str) -> Result:
    return Result(_E, kind, str(exc), {"pattern": pattern, "error": "timeout"})


def _names(value: str | Sequence[str], what: str) -> tuple[str, ...]:
    return string_values(value, what)


# -- content -------------------------------------------------------------------------------


@register
class ContentIncludes(Assertion):
    """Passes when the turn's response contains every pattern, ignoring case.

    Example:
        >>> from chatassert.promptkit import ContentIncludes
        >>> ContentIncludes(["Paris"]).check("The capital is PARIS").passed
        True
        >>> ContentIncludes(["Paris", "France"]).check("It is Paris").details
        {'patterns': ['Paris', 'France'], 'missing_patterns': ['France']}
    """

    __slots__ = ("_lowered", "patterns")
    kind = "content_includes"
    dialect_names = {"promptkit.turn": "content_includes"}
    params = (Param("patterns", "str_list", required=True, doc="texts that must all appear"),)
    patterns: tuple[str, ...]
    _lowered: tuple[str, ...]

    def __init__(self, patterns: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("patterns", string_values(patterns, self.kind))
        self._set("_lowered", tuple(p.lower() for p in self.patterns))

    def _check(self, subject: object) -> Result:
        text = text_of(subject).lower()
        missing = [
            p for p, low in zip(self.patterns, self._lowered, strict=True) if low not in text
        ]
        details = {"patterns": list(self.patterns), "missing_patterns": missing}
        if not missing:
            return Result(_P, self.kind, self._held(), details)
        return Result(
            _F,
            self.kind,
            f"Expected the response to contain {_quoted(missing)} but it does not",
            details,
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return "response contains " + _quoted(self.patterns)


@register
class ContentMatches(Assertion):
    """Passes when the regular expression is found in the turn's response (Go/RE2 syntax, G8).

    On a failure the details keep the first 500 characters of the response as `content`.

    Example:
        >>> from chatassert.promptkit import ContentMatches
        >>> ContentMatches(r"\\d{3}-\\d{3}-\\d{4}").check("Call 555-123-4567").passed
        True
        >>> ContentMatches("(?i)email").check("Please call us instead").details
        {'pattern': '(?i)email', 'matched': False, 'content': 'Please call us instead'}
    """

    __slots__ = ("_compiled", "pattern")
    kind = "content_matches"
    dialect_names = {"promptkit.turn": "content_matches"}
    params = (Param("pattern", "str", required=True, doc="a regular expression (Go/RE2 syntax)"),)
    options = ("regex_timeout",)
    pattern: str
    _compiled: Pattern

    def __init__(
        self,
        pattern: str,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set("pattern", pattern)
        self._set("_compiled", compile_regex(pattern, self.kind, regex_timeout))

    def _check(self, subject: object) -> Result:
        text = text_of(subject)
        try:
            match = self._compiled.search(text)
        except RegexTimeoutError as exc:
            return _timeout(self.kind, exc, self.pattern)
        if match is not None:
            return Result(
                _P,
                self.kind,
                self._held(),
                {"pattern": self.pattern, "matched": True, "match": match.group(0)},
            )
        return Result(
            _F,
            self.kind,
            f"Expected the response to match /{self.pattern}/ but it does not",
            {"pattern": self.pattern, "matched": False, "content": text[:CONTENT_LIMIT]},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"response matches /{self.pattern}/"


# -- tools and agents at turn level ----------------------------------------------------------


class _NamesCheck(Assertion):
    """A check over a list of tool (or agent) names called in one turn."""

    __slots__ = ("_names",)
    _names: tuple[str, ...]
    _attr: ClassVar[str] = "tools"

    def __init__(self, names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set(self._attr, _names(names, self.kind))
        self._set("_names", getattr(self, self._attr))

    def _called(self, subject: object) -> list[str]:
        return _unique(turn_of(subject).called_tools)

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
    tools: tuple[str, ...]

    def __init__(self, tools: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(tools, message=message)

    def _check(self, subject: object) -> Result:
        called = self._called(subject)
        missing = [t for t in self.tools if t not in called]
        details = {"missing_tools": missing, "called_tools": called}
        if not missing:
            return Result(_P, self.kind, self._held(), details)
        return Result(
            _F,
            self.kind,
            f"Expected tools {_quoted(missing)} to be called but they were not (called: {called})",
            details,
        )


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
    tools: tuple[str, ...]

    def __init__(self, tools: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(tools, message=message)

    def _check(self, subject: object) -> Result:
        called = self._called(subject)
        forbidden = [t for t in self.tools if t in called]
        details = {"forbidden_tools_called": forbidden, "all_called_tools": called}
        if not forbidden:
            return Result(_P, self.kind, self._held(), details)
        return Result(
            _F,
            self.kind,
            f"Expected tools {_quoted(forbidden)} not to be called but they were",
            details,
        )


@register
class AgentInvoked(_NamesCheck):
    """Passes when every agent (an agent member's tool name) was called in the turn.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import AgentInvoked
        >>> AgentInvoked(["a2a__research_agent__search_papers"]).check(Turn(text="hi")).details
        {'missing_agents': ['a2a__research_agent__search_papers'], 'called_tools': []}
    """

    __slots__ = ("agents",)
    kind = "agent_invoked"
    _attr = "agents"
    dialect_names = {"promptkit.turn": "agent_invoked"}
    params = (Param("agents", "str_list", required=True, doc="agent tool names to be called"),)
    agents: tuple[str, ...]

    def __init__(self, agents: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(agents, message=message)

    def _check(self, subject: object) -> Result:
        called = self._called(subject)
        missing = [a for a in self.agents if a not in called]
        details = {"missing_agents": missing, "called_tools": called}
        if not missing:
            return Result(_P, self.kind, self._held(), details)
        return Result(
            _F,
            self.kind,
            f"Expected agents {_quoted(missing)} to be invoked but they were not",
            details,
        )


@register
class AgentNotInvoked(_NamesCheck):
    """Passes when none of the agents was called in the turn.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import AgentNotInvoked
        >>> turn = Turn(tool_calls=[ToolCall(name="a2a__research_agent__search_papers")])
        >>> AgentNotInvoked(["a2a__research_agent__search_papers"]).check(turn).passed
        False
    """

    __slots__ = ("agents",)
    kind = "agent_not_invoked"
    _attr = "agents"
    dialect_names = {"promptkit.turn": "agent_not_invoked"}
    params = (Param("agents", "str_list", required=True, doc="agent tool names not to be called"),)
    agents: tuple[str, ...]

    def __init__(self, agents: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(agents, message=message)

    def _check(self, subject: object) -> Result:
        called = self._called(subject)
        forbidden = [a for a in self.agents if a in called]
        details = {"forbidden_agents_called": forbidden, "called_tools": called}
        if not forbidden:
            return Result(_P, self.kind, self._held(), details)
        return Result(
            _F,
            self.kind,
            f"Expected agents {_quoted(forbidden)} not to be invoked but they were",
            details,
        )


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


# -- tool arguments ----------------------------------------------------------------------------


_Violations = list[dict[str, Any]]


def _matching(per_call: Sequence[_Violations | None]) -> int:
    """How many calls satisfied every requirement (an undecided call, `None`, did not)."""
    return sum(v is not None and not v for v in per_call)


class _ArgsCheck(Assertion):
    """Shared core of `tool_calls_with_args` at both levels: per-call argument violations."""

    __slots__ = ("_compiled", "_expected", "args_match", "match", "tool_name")
    options = ("regex_timeout",)
    tool_name: str
    args_match: dict[str, str] | None
    match: str
    _expected: dict[str, Any] | None
    _compiled: tuple[tuple[str, Pattern], ...]

    def _setup(
        self,
        tool_name: str,
        expected: Mapping[str, Any] | None,
        args_match: Mapping[str, str] | None,
        match: str,
        regex_timeout: float,
    ) -> dict[str, Any] | None:
        if not isinstance(tool_name, str) or not tool_name.strip():
            raise ValueError(f"{self.kind} needs a non-empty tool_name")
        if match not in ("any", "all"):
            raise ValueError(f"match must be 'any' or 'all', got {match!r}")
        if expected is not None and not isinstance(expected, Mapping):
            raise TypeError(f"expected arguments must be a mapping, got {type(expected).__name__}")
        if not expected and not args_match:
            raise ValueError(
                f"{self.kind} needs arguments to check: give {self.params[1].name} (values) "
                "or args_match (patterns); to require only the call, use tools_called"
            )
        compiled: list[tuple[str, Pattern]] = []
        if args_match is not None:
            if not isinstance(args_match, Mapping):
                raise TypeError(f"args_match must be a mapping, got {type(args_match).__name__}")
            for arg, pattern in args_match.items():
                compiled.append(
                    (str(arg), compile_regex(pattern, f"args_match.{arg}", regex_timeout))
                )
        self._set("tool_name", tool_name)
        self._set("args_match", None if args_match is None else dict(args_match))
        self._set("match", match)
        self._set("_expected", None if expected is None else dict(expected))
        self._set("_compiled", tuple(compiled))
        return self._expected

    def _violations(self, call: ToolCall) -> list[dict[str, Any]]:
        tool = call.name
        if call.arguments_error is not None:
            return [
                {
                    "type": "invalid_args_json",
                    "tool": tool,
                    "argument": None,
                    "error": call.arguments_error,
                }
            ]
        args = call.arguments
        out: list[dict[str, Any]] = []
        for arg, want in (self._expected or {}).items():
            if arg not in args:
                out.append({"type": "missing_argument", "tool": tool, "argument": arg})
            elif not loose_equal(want, args[arg]):
                out.append(
                    {
                        "type": "value_mismatch",
                        "tool": tool,
                        "argument": arg,
                        "expected": want,
                        "actual": args[arg],
                    }
                )
        for arg, pattern in self._compiled:
            if arg not in args:
                out.append(
                    {
                        "type": "missing_argument_for_pattern",
                        "tool": tool,
                        "argument": arg,
                        "pattern": pattern.source,
                    }
                )
            elif pattern.search(_render(args[arg])) is None:
                out.append(
                    {
                        "type": "pattern_mismatch",
                        "tool": tool,
                        "argument": arg,
                        "pattern": pattern.source,
                        "actual": args[arg],
                    }
                )
        return out

    def _evaluate(self, calls: Sequence[ToolCall]) -> tuple[Status, list[_Violations | None]]:
        """The outcome over `calls` and each call's violations, in the order of `calls`.

        A call whose pattern ran out of time is undecided: its entry is `None`.

        Raises:
            RegexTimeoutError: when a pattern ran out of time on a call and no other call
                decides the outcome (a match for `any`, a violation for `all`).
        """
        per_call: list[_Violations | None] = []
        timeout: RegexTimeoutError | None = None
        for call in calls:
            try:
                per_call.append(self._violations(call))
            except RegexTimeoutError as exc:  # undecided: another call may still decide
                timeout = timeout or exc
                per_call.append(None)
        matching = _matching(per_call)
        if (matching and self.match == "any") or (matching == len(calls)):
            return _P, per_call
        if timeout is not None and (self.match == "any" or not any(per_call)):
            raise timeout
        real = [v for vs in per_call if vs for v in vs if v["type"] != "invalid_args_json"]
        invalid = any(v["type"] == "invalid_args_json" for vs in per_call if vs for v in vs)
        if invalid and (self.match == "any" or not real):
            return _E, per_call
        return _F, per_call

    def describe(self) -> str:
        """Describe the requirement."""
        parts = [f"{k}={v!r}" for k, v in (self._expected or {}).items()]
        parts += [f"{k}~/{p.source}/" for k, p in self._compiled]
        return f"calls {self.tool_name}({', '.join(parts)})"


def describe_violation(v: Mapping[str, Any]) -> str:
    """Explain one argument violation as a reason fragment."""
    tool, arg = v["tool"], v.get("argument")
    kind = v["type"]
    if kind == "missing_argument":
        return f"Expected '{tool}' to be called with argument '{arg}' but it was not given"
    if kind == "value_mismatch":
        return f"Expected '{tool}' argument '{arg}' to be {v['expected']!r} but got {v['actual']!r}"
    if kind == "missing_argument_for_pattern":
        return f"Expected '{tool}' argument '{arg}' to match /{v['pattern']}/ but it was not given"
    if kind == "pattern_mismatch":
        return (
            f"Expected '{tool}' argument '{arg}' to match /{v['pattern']}/ but got {v['actual']!r}"
        )
    return f"'{tool}' was called with arguments that are not valid JSON ({v.get('error')})"


@register
class ToolCallsWithArgs(_ArgsCheck):
    """Passes when a call of the tool in the turn has the expected arguments.

    `expected_args` values are compared loosely (G9; `None` only requires presence);
    `args_match` maps an argument to a regular expression searched in its string rendering.
    At least one call must satisfy every requirement; with `match="all"` every call must.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> from chatassert.promptkit import ToolCallsWithArgs
        >>> turn = Turn(tool_calls=[ToolCall(name="get_weather", arguments={"location": "SF"})])
        >>> ToolCallsWithArgs("get_weather", {"location": None}).check(turn).passed
        True
        >>> r = ToolCallsWithArgs("get_weather", {"location": "San Francisco"}).check(turn)
        >>> r.details["violations"][0]["type"], r.details["matching_calls"]
        ('value_mismatch', 0)
    """

    __slots__ = ("expected_args",)
    kind = "tool_calls_with_args"
    dialect_names = {"promptkit.turn": "tool_calls_with_args"}
    params = (
        Param("tool_name", "str", required=True, doc="the tool's exact name"),
        Param(
            "expected_args",
            "mapping",
            default=None,
            doc="argument values (null: present with any value)",
        ),
        Param("args_match", "mapping", default=None, doc="argument → regular expression"),
        Param(
            "match",
            "str",
            default="any",
            choices=("any", "all"),
            doc="whether any call or every call must satisfy the requirements",
        ),
    )
    expected_args: dict[str, Any] | None

    def __init__(
        self,
        tool_name: str,
        expected_args: Mapping[str, Any] | None = None,
        args_match: Mapping[str, str] | None = None,
        match: str = "any",
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set(
            "expected_args", self._setup(tool_name, expected_args, args_match, match, regex_timeout)
        )

    def _check(self, subject: object) -> Result:
        turn = turn_of(subject)
        calls = [c for c in turn.tool_calls if c.name == self.tool_name]
        if not calls:
            called = _unique(turn.called_tools)
            return Result(
                _F,
                self.kind,
                f"Expected a call of '{self.tool_name}' but it was not called (called: {called})",
                {"error": "tool_not_called", "tool_name": self.tool_name, "called_tools": called},
            )
        try:
            status, per_call = self._evaluate(calls)
        except RegexTimeoutError as exc:
            return _timeout(self.kind, exc, exc.pattern or "args_match")
        matching = _matching(per_call)
        if status is _P:
            return Result(
                _P, self.kind, self._held(), {"violations": [], "matching_calls": matching}
            )
        violations = [v for vs in per_call if vs for v in vs]
        first = next((v for v in violations if v["type"] != "invalid_args_json"), violations[0])
        reason = describe_violation(first)
        if self.match == "all" and matching:
            failing = sum(bool(v) for v in per_call)
            reason = f"{failing} of {len(calls)} calls do not match: {reason}"
        return Result(
            status, self.kind, reason, {"violations": violations, "matching_calls": matching}
        )


# -- guardrails --------------------------------------------------------------------------------


def guardrail_key(name: str) -> str:
    """Normalise a guardrail name: `BannedWordsValidator`, `banned-words` → `banned_words`.

    Example:
        >>> guardrail_key("BannedWordsValidator") == guardrail_key("banned_words")
        True
    """
    key = normalise_type(name)
    return key[: -len("_validator")] if key.endswith("_validator") else key


@register
class GuardrailTriggered(Assertion):
    """Passes when the guardrail (validator) flagged the turn, or did not when `expected=False`.

    Names match exactly or as `snake_case` ↔ `PascalCase` + `Validator`
    (`banned_words` ≡ `BannedWordsValidator`). Without a guardrail name, `expected=False`
    passes when no guardrail flagged the turn (and `expected=True` when any did).

    Example:
        >>> from chatassert import GuardrailEvent, GuardrailTriggered, Turn
        >>> turn = Turn(text="...", guardrails=[GuardrailEvent(name="BannedWordsValidator")])
        >>> GuardrailTriggered("banned_words").check(turn).passed
        True
        >>> details = GuardrailTriggered("max_length").check(turn).details
        >>> details["expected_triggered"], details["actually_triggered"], details["guardrail"]
        (True, False, 'max_length')
    """

    __slots__ = ("_key", "expected", "guardrail")
    kind = "guardrail_triggered"
    dialect_names = {"promptkit.turn": "guardrail_triggered"}
    params = (
        Param(
            "guardrail",
            "str",
            default=None,
            aliases=("validator", "validator_type"),
            doc="the validator's name (snake_case or its PascalCase class name)",
        ),
        Param(
            "expected",
            "bool",
            default=True,
            aliases=("should_trigger", "assertions"),
            doc="whether it should trigger (default true)",
        ),
    )
    guardrail: str | None
    expected: bool
    _key: str | None

    def __init__(
        self, guardrail: str | None = None, expected: bool = True, *, message: str | None = None
    ) -> None:
        super().__init__(message=message)
        if guardrail is not None and (not isinstance(guardrail, str) or not guardrail.strip()):
            raise ValueError("guardrail must be a non-empty string (or omitted)")
        if not isinstance(expected, bool):
            raise TypeError(f"expected must be true or false, got {expected!r}")
        self._set("guardrail", guardrail)
        self._set("expected", expected)
        self._set("_key", None if guardrail is None else guardrail_key(guardrail))

    def _check(self, subject: object) -> Result:
        events = turn_of(subject).guardrails
        triggered = [e.name for e in events if e.triggered]
        if self._key is None:
            actually = bool(triggered)
        else:
            actually = any(e.triggered and guardrail_key(e.name) == self._key for e in events)
        details = {
            "expected_triggered": self.expected,
            "actually_triggered": actually,
            "guardrail": self.guardrail,
            "triggered_guardrails": triggered,
            "guardrails_run": [e.name for e in events],
        }
        if actually == self.expected:
            return Result(_P, self.kind, self._held(), details)
        what = f"guardrail '{self.guardrail}'" if self.guardrail else "a guardrail"
        if self.expected:
            reason = f"Expected {what} to trigger but it did not"
        elif self.guardrail:
            reason = f"Expected {what} not to trigger but it did"
        else:
            reason = f"Expected no guardrail to trigger but {_quoted(triggered)} did"
        return Result(_F, self.kind, reason, details)

    def describe(self) -> str:
        """Describe the requirement."""
        what = self.guardrail or "any guardrail"
        return f"{what} {'triggers' if self.expected else 'does not trigger'}"


# -- judged ------------------------------------------------------------------------------------


class _Judged(JudgedAssertion):
    """PromptKit's judged checks: `criteria` and/or `rubric`, an optional `min_score`."""

    __slots__ = ("criteria_text", "rubric")
    params = (
        Param("criteria", "str", default=None, attr="criteria_text", doc="what the judge checks"),
        Param("rubric", "str", default=None, doc="how to grade (with or instead of criteria)"),
        Param("min_score", "number", default=None, doc="the lowest passing score"),
        Param("model", "str", default=None, doc="the judge model to use"),
    )
    criteria_text: str | None
    rubric: str | None

    def __init__(
        self,
        criteria: str | None = None,
        *,
        rubric: str | None = None,
        min_score: float | None = None,
        model: str | None = None,
        judge: Judge | None = None,
        message: str | None = None,
        criteria_text: str | None = None,
    ) -> None:
        super().__init__(model=model, judge=judge, min_score=min_score, message=message)
        if criteria is None:
            criteria = criteria_text
        for name, text in (("criteria", criteria), ("rubric", rubric)):
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise ValueError(f"{self.kind} {name} must be a non-empty string")
        if criteria is None and rubric is None:
            raise ValueError(f"{self.kind} needs 'criteria' or 'rubric'")
        self._set("criteria_text", criteria)
        self._set("rubric", rubric)

    @property
    def criteria(self) -> str:
        """The criteria, followed by the rubric when both are given."""
        parts = [p for p in (self.criteria_text, self.rubric) if p]
        return "\n\nRubric: ".join(parts)

    def _params(self) -> dict[str, Any]:
        return {} if self.min_score is None else {"min_score": self.min_score}

    def _details(self, verdict: Verdict | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "criteria": self.criteria_text,
            "rubric": self.rubric,
            "min_score": self.min_score,
        }
        if verdict is not None:
            out["reasoning"] = verdict.reason
            out["score"] = verdict.score
        return out

    def describe(self) -> str:
        """Describe the criteria."""
        return f"{self.kind} {self.criteria!r}"


@register
class LLMJudge(_Judged):
    """Passes when a judge finds the turn's response meets the criteria (promptkit `llm_judge`).

    Example:
        >>> from chatassert.promptkit import LLMJudge
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge({"passed": True, "score": 0.8, "reason": "polite"})
        >>> r = LLMJudge("Is polite", min_score=0.7, judge=judge).check("Thank you!")
        >>> r.passed, r.details["reasoning"], r.details["score"]
        (True, 'polite', 0.8)
    """

    __slots__ = ()
    kind = "llm_judge"
    dialect_names = {"promptkit.turn": "llm_judge"}

    def _request(self, subject: object) -> JudgeRequest:
        turn = turn_of(subject)
        return JudgeRequest(
            self.criteria,
            turn.text,
            input=turn.input,
            tool_calls=tool_call_summary(turn),
            model=self.model,
            params=self._params(),
        )


def _conversation_pairs(conversation: Conversation) -> tuple[tuple[str, str], ...]:
    pairs: list[tuple[str, str]] = []
    for turn in conversation.turns:
        if turn.messages:
            pairs.extend(
                (m.role, m.content)
                for m in turn.messages
                if m.content and m.role in ("user", "assistant")
            )
        else:
            if turn.input:
                pairs.append(("user", turn.input))
            if turn.text:
                pairs.append(("assistant", turn.text))
    return tuple(pairs)


@register
class LLMJudgeConversation(_Judged):
    """Passes when a judge finds the whole conversation meets the criteria.

    Example:
        >>> from chatassert import Conversation
        >>> from chatassert.promptkit import LLMJudgeConversation
        >>> from chatassert.testing import FakeJudge
        >>> conv = Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                               {"role": "assistant", "content": "Hello!"}])
        >>> judge = FakeJudge({"passed": False, "score": 0.2, "reason": "too curt"})
        >>> LLMJudgeConversation(criteria="Is warm", judge=judge).check(conv).reason
        'too curt'
        >>> judge.requests[0].kind, judge.requests[0].response
        ('conversation', 'user: Hi\\nassistant: Hello!')
    """

    __slots__ = ()
    kind = "llm_judge_conversation"
    level = "conversation"
    dialect_names = {"promptkit.conversation": "llm_judge_conversation"}

    def _request(self, subject: object) -> JudgeRequest:
        pairs = _conversation_pairs(as_conversation(subject))
        return JudgeRequest(
            self.criteria,
            render_conversation(pairs),
            conversation=pairs,
            model=self.model,
            kind="conversation",
            params=self._params(),
        )


# -- conversation level: tools and agents ------------------------------------------------------


class _ConversationNames(Assertion):
    """Counts, or forbids, calls of named tools (agents) over a whole conversation."""

    __slots__ = ("_names",)
    level = "conversation"
    _names: tuple[str, ...]
    _attr: ClassVar[str] = "tool_names"
    _noun: ClassVar[str] = "tool"
    _violation: ClassVar[str] = "forbidden tool was called"

    def __init__(self, names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set(self._attr, _names(names, self.kind))
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

    def _forbidden(self, subject: object, label: str) -> Result:
        conversation = as_conversation(subject)
        noun = self._noun
        violations = [
            {
                "turn_index": index,
                "description": self._violation,
                "evidence": {noun: call.name, "arguments": _arguments(call)},
            }
            for index, call in conversation.tool_calls
            if call.name in self._names
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

    def _check(self, subject: object) -> Result:
        return self._required(subject, self.min_calls, "missing required tools")


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

    def _check(self, subject: object) -> Result:
        return self._forbidden(subject, "forbidden tools were called")


@register
class ConversationAgentInvoked(_ConversationNames):
    """Passes when each agent was invoked at least `min_calls` times in the conversation.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationAgentInvoked
        >>> conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="a2a__research")])])
        >>> r = ConversationAgentInvoked(["a2a__research", "a2a__translate"]).check(conv)
        >>> r.reason, r.details["counts"]
        ('missing required agent invocations: a2a__translate', {'a2a__research': 1})
    """

    __slots__ = ("agent_names", "min_calls")
    kind = "conversation_agent_invoked"
    _attr = "agent_names"
    _noun = "agent"
    _violation = "forbidden agent was invoked"
    dialect_names = {"promptkit.conversation": "agent_invoked"}
    params = (
        Param("agent_names", "str_list", required=True, doc="agents that must be invoked"),
        _MIN_CALLS,
    )
    agent_names: tuple[str, ...]
    min_calls: int

    def __init__(
        self, agent_names: str | Sequence[str], min_calls: int = 1, *, message: str | None = None
    ) -> None:
        super().__init__(agent_names, message=message)
        self._set("min_calls", _min_calls(min_calls))

    def _check(self, subject: object) -> Result:
        return self._required(subject, self.min_calls, "missing required agent invocations")


@register
class ConversationAgentNotInvoked(_ConversationNames):
    """Passes when none of the agents was invoked anywhere in the conversation.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationAgentNotInvoked
        >>> conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="a2a__admin")])])
        >>> ConversationAgentNotInvoked(["a2a__admin"]).check(conv).reason
        'forbidden agents were invoked'
    """

    __slots__ = ("agent_names",)
    kind = "conversation_agent_not_invoked"
    _attr = "agent_names"
    _noun = "agent"
    _violation = "forbidden agent was invoked"
    dialect_names = {"promptkit.conversation": "agent_not_invoked"}
    params = (
        Param("agent_names", "str_list", required=True, doc="agents that must not be invoked"),
    )
    agent_names: tuple[str, ...]

    def __init__(self, agent_names: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(agent_names, message=message)

    def _check(self, subject: object) -> Result:
        return self._forbidden(subject, "forbidden agents were invoked")


@register
class ConversationToolCallsWithArgs(_ArgsCheck):
    """Passes when some call of the tool in the conversation has the required arguments.

    `required_args` (alias `expected_args`) compares loosely (G9, `None` = present);
    `args_match` maps arguments to regular expressions; `match="all"` makes every call have to
    satisfy them. On a failure, `actual` holds the arguments of the closest call.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationToolCallsWithArgs
        >>> conv = Conversation(turns=[Turn(tool_calls=[
        ...     ToolCall(name="get_weather", arguments={"location": "SF"})])])
        >>> check = ConversationToolCallsWithArgs("get_weather", {"location": "San Francisco"})
        >>> r = check.check(conv)
        >>> r.reason, r.details["expected"], r.details["actual"]
        ('tool argument violations', {'location': 'San Francisco'}, {'location': 'SF'})
    """

    __slots__ = ("required_args",)
    kind = "conversation_tool_calls_with_args"
    level = "conversation"
    dialect_names = {"promptkit.conversation": "tool_calls_with_args"}
    params = (
        Param("tool_name", "str", required=True, doc="the tool's exact name"),
        Param(
            "required_args",
            "mapping",
            default=None,
            aliases=("expected_args",),
            doc="argument values (null: present with any value)",
        ),
        Param("args_match", "mapping", default=None, doc="argument → regular expression"),
        Param(
            "match",
            "str",
            default="any",
            choices=("any", "all"),
            doc="whether any call or every call must satisfy the requirements",
        ),
    )
    required_args: dict[str, Any] | None

    def __init__(
        self,
        tool_name: str,
        required_args: Mapping[str, Any] | None = None,
        args_match: Mapping[str, str] | None = None,
        match: str = "any",
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set(
            "required_args", self._setup(tool_name, required_args, args_match, match, regex_timeout)
        )

    def _check(self, subject: object) -> Result:
        conversation = as_conversation(subject)
        located = [(i, c) for i, c in conversation.tool_calls if c.name == self.tool_name]
        details: dict[str, Any] = {"tool": self.tool_name, "expected": self.required_args or {}}
        if self.args_match is not None:
            details["args_match"] = self.args_match
        if not located:
            called = _unique([c.name for _, c in conversation.tool_calls])
            return Result(
                _F,
                self.kind,
                f"tool '{self.tool_name}' was not called",
                {**details, "actual": None, "violations": [], "called_tools": called},
            )
        try:
            status, per_call = self._evaluate([c for _, c in located])
        except RegexTimeoutError as exc:
            return _timeout(self.kind, exc, exc.pattern or "args_match")
        details["matching_calls"] = _matching(per_call)
        if status is _P:
            best = next(
                c for (_, c), v in zip(located, per_call, strict=True) if v is not None and not v
            )
            return Result(
                _P,
                self.kind,
                self._held(),
                {**details, "actual": _arguments(best), "violations": []},
            )
        violations = [
            {
                **v,
                "turn_index": index,
                "description": describe_violation(v),
                "evidence": {"tool": call.name, "arguments": _arguments(call)},
            }
            for (index, call), vs in zip(located, per_call, strict=True)
            if vs
            for v in vs
        ]
        failing = [(c, v) for (_, c), v in zip(located, per_call, strict=True) if v]
        details["actual"] = _arguments(min(failing, key=lambda p: len(p[1]))[0])
        details["violations"] = violations
        return Result(status, self.kind, "tool argument violations", details)


@register
class ConversationToolsNotCalledWithArgs(Assertion):
    """Passes when no call of the tool (any tool, when `tool_name` is empty) has a forbidden value.

    `forbidden_args` maps an argument to a forbidden value or a list of them (loose equality,
    G9; `None` forbids the argument altogether).

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationToolsNotCalledWithArgs
        >>> conv = Conversation(turns=[Turn(tool_calls=[
        ...     ToolCall(name="refund", arguments={"amount": "5000"})])])
        >>> r = ConversationToolsNotCalledWithArgs("refund", {"amount": [1000, 5000]}).check(conv)
        >>> r.reason, r.details["violations"][0]["evidence"]["value"]
        ('forbidden tool args detected', '5000')
    """

    __slots__ = ("forbidden_args", "tool_name")
    kind = "conversation_tools_not_called_with_args"
    level = "conversation"
    dialect_names = {"promptkit.conversation": "tools_not_called_with_args"}
    params = (
        Param(
            "tool_name",
            "str",
            default="",
            allow_empty=True,
            doc="the tool's exact name (empty: any tool)",
        ),
        Param(
            "forbidden_args",
            "mapping",
            required=True,
            doc="argument → forbidden value or list of values",
        ),
    )
    tool_name: str
    forbidden_args: dict[str, Any]

    def __init__(
        self,
        tool_name: str = "",
        forbidden_args: Mapping[str, Any] | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if not isinstance(tool_name, str):
            raise TypeError(f"tool_name must be a string, got {type(tool_name).__name__}")
        if not isinstance(forbidden_args, Mapping) or not forbidden_args:
            raise ValueError("tools_not_called_with_args needs a non-empty forbidden_args mapping")
        for arg, forbidden in forbidden_args.items():
            if isinstance(forbidden, list) and not forbidden:  # would never match: vacuous
                raise ValueError(
                    f"forbidden_args.{arg} is an empty list, which no value matches; "
                    "list the forbidden values, or give one value"
                )
        self._set("tool_name", tool_name)
        self._set("forbidden_args", dict(forbidden_args))

    def _check(self, subject: object) -> Result:
        conversation = as_conversation(subject)
        violations: list[dict[str, Any]] = []
        invalid: list[dict[str, Any]] = []
        for index, call in conversation.tool_calls:
            if self.tool_name and call.name != self.tool_name:
                continue
            if call.arguments_error is not None:
                invalid.append(
                    {"turn_index": index, "tool": call.name, "error": call.arguments_error}
                )
                continue
            for arg, forbidden in self.forbidden_args.items():
                if arg not in call.arguments:
                    continue
                options = forbidden if isinstance(forbidden, list) else [forbidden]
                actual = call.arguments[arg]
                if any(loose_equal(option, actual) for option in options):
                    violations.append(
                        {
                            "turn_index": index,
                            "description": f"tool '{call.name}' was called with forbidden "
                            f"{arg}={actual!r}",
                            "evidence": {
                                "tool": call.name,
                                "argument": arg,
                                "value": actual,
                                "arguments": call.arguments,
                            },
                        }
                    )
        details: dict[str, Any] = {"violations": violations}
        if invalid:
            details["invalid_calls"] = invalid
        if violations:
            return Result(_F, self.kind, "forbidden tool args detected", details)
        if invalid:
            return Result(
                _E,
                self.kind,
                "tool calls with arguments that are not valid JSON could not be checked",
                details,
            )
        return Result(_P, self.kind, self._held(), details)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.tool_name or 'no tool'} called with {self.forbidden_args}"


# -- conversation level: content ---------------------------------------------------------------


class _ConversationPatterns(Assertion):
    """Substring checks over every assistant message of a conversation."""

    __slots__ = ("_folded", "case_sensitive", "patterns")
    level = "conversation"
    params: ClassVar[tuple[Param, ...]] = (
        Param("patterns", "str_list", required=True, doc="texts to look for"),
        Param("case_sensitive", "bool", default=False, doc="compare case-sensitively"),
    )
    patterns: tuple[str, ...]
    case_sensitive: bool
    _folded: tuple[str, ...]

    def __init__(
        self,
        patterns: str | Sequence[str],
        case_sensitive: bool = False,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if not isinstance(case_sensitive, bool):
            raise TypeError(f"case_sensitive must be true or false, got {case_sensitive!r}")
        self._set("patterns", string_values(patterns, self.kind))
        self._set("case_sensitive", case_sensitive)
        self._set(
            "_folded", self.patterns if case_sensitive else tuple(p.lower() for p in self.patterns)
        )

    def _texts(self, subject: object) -> list[tuple[int, str, str]]:
        fold = (lambda s: s) if self.case_sensitive else str.lower
        return [(i, t, fold(t)) for i, t in assistant_texts(as_conversation(subject))]

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.kind} {_quoted(self.patterns)}"


@register
class ConversationContentIncludes(_ConversationPatterns):
    """Passes when one assistant message of the conversation contains every pattern.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentIncludes
        >>> conv = Conversation(turns=[Turn(text="Your order shipped"), Turn(text="It is #12345")])
        >>> ConversationContentIncludes(["order", "#12345"]).check(conv).reason
        'no response contained all patterns'
    """

    __slots__ = ()
    kind = "conversation_content_includes"
    dialect_names = {"promptkit.conversation": "content_includes"}
    params = (Param("patterns", "str_list", required=True, doc="texts that must all appear"),)

    def __init__(self, patterns: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(patterns, message=message)

    def _check(self, subject: object) -> Result:
        best: tuple[int, list[str]] | None = None
        texts = self._texts(subject)
        for index, _, folded in texts:
            missing = [
                p for p, f in zip(self.patterns, self._folded, strict=True) if f not in folded
            ]
            if not missing:
                return Result(
                    _P,
                    self.kind,
                    self._held(),
                    {"patterns": list(self.patterns), "turn_index": index},
                )
            if best is None or len(missing) < len(best[1]):
                best = (index, missing)
        details: dict[str, Any] = {
            "patterns": list(self.patterns),
            "responses_checked": len(texts),
            "missing_patterns": list(self.patterns) if best is None else best[1],
            "closest_turn_index": None if best is None else best[0],
        }
        return Result(_F, self.kind, "no response contained all patterns", details)


@register
class ConversationContentIncludesAny(_ConversationPatterns):
    """Passes when some assistant message contains some pattern (case-insensitive by default).

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentIncludesAny
        >>> conv = Conversation(turns=[Turn(text="Refund issued")])
        >>> r = ConversationContentIncludesAny(["refund", "credit"]).check(conv)
        >>> r.details["matched_pattern"]
        'refund'
    """

    __slots__ = ()
    kind = "conversation_content_includes_any"
    dialect_names = {"promptkit.conversation": "content_includes_any"}

    def _check(self, subject: object) -> Result:
        texts = self._texts(subject)
        for index, _, folded in texts:
            for pattern, f in zip(self.patterns, self._folded, strict=True):
                if f in folded:
                    return Result(
                        _P,
                        self.kind,
                        self._held(),
                        {
                            "patterns": list(self.patterns),
                            "matched_pattern": pattern,
                            "turn_index": index,
                        },
                    )
        return Result(
            _F,
            self.kind,
            "no response contained required patterns",
            {
                "patterns": list(self.patterns),
                "case_sensitive": self.case_sensitive,
                "responses_checked": len(texts),
            },
        )


def _snippet(text: str, start: int, length: int, width: int = 40) -> str:
    lo, hi = max(0, start - width), min(len(text), start + length + width)
    return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")


@register
class ConversationContentNotIncludes(_ConversationPatterns):
    """Passes when no assistant message contains any pattern (case-insensitive by default).

    Each (message, pattern) found is one violation with a snippet of the message around it.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentNotIncludes
        >>> conv = Conversation(turns=[Turn(text="ok"), Turn(text="I guarantee it")])
        >>> r = ConversationContentNotIncludes(["guarantee"]).check(conv)
        >>> r.reason, r.details["violations"][0]["turn_index"]
        ('forbidden content detected', 1)
    """

    __slots__ = ()
    kind = "conversation_content_not_includes"
    dialect_names = {"promptkit.conversation": "content_not_includes"}

    def _check(self, subject: object) -> Result:
        violations: list[dict[str, Any]] = []
        texts = self._texts(subject)
        for index, text, folded in texts:
            for pattern, f in zip(self.patterns, self._folded, strict=True):
                at = folded.find(f)
                if at >= 0:
                    violations.append(
                        {
                            "turn_index": index,
                            "description": f"forbidden content '{pattern}' found",
                            "evidence": {"pattern": pattern, "snippet": _snippet(text, at, len(f))},
                        }
                    )
        if violations:
            return Result(_F, self.kind, "forbidden content detected", {"violations": violations})
        return Result(
            _P, self.kind, self._held(), {"violations": [], "responses_checked": len(texts)}
        )


@register
class ConversationContentMatches(Assertion):
    """Passes when some assistant message of the conversation matches the regular expression.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentMatches
        >>> conv = Conversation(turns=[Turn(text="Hi"), Turn(text="Order #12345 shipped")])
        >>> ConversationContentMatches("#\\\\d{5,}").check(conv).details["turn_index"]
        1
    """

    __slots__ = ("_compiled", "pattern")
    kind = "conversation_content_matches"
    level = "conversation"
    dialect_names = {"promptkit.conversation": "content_matches"}
    params = (Param("pattern", "str", required=True, doc="a regular expression (Go/RE2 syntax)"),)
    options = ("regex_timeout",)
    pattern: str
    _compiled: Pattern

    def __init__(
        self,
        pattern: str,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set("pattern", pattern)
        self._set("_compiled", compile_regex(pattern, self.kind, regex_timeout))

    def _check(self, subject: object) -> Result:
        texts = assistant_texts(as_conversation(subject))
        timeout: RegexTimeoutError | None = None
        for index, text in texts:
            try:
                match = self._compiled.search(text)
            except RegexTimeoutError as exc:  # undecided: a later response may still match
                timeout = timeout or exc
                continue
            if match is not None:
                return Result(
                    _P,
                    self.kind,
                    self._held(),
                    {
                        "pattern": self.pattern,
                        "matched": True,
                        "turn_index": index,
                        "match": match.group(0),
                    },
                )
        if timeout is not None:
            return _timeout(self.kind, timeout, self.pattern)
        return Result(
            _F,
            self.kind,
            "no response matched pattern",
            {"pattern": self.pattern, "matched": False, "responses_checked": len(texts)},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"some response matches /{self.pattern}/"
