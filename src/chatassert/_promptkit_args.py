"""PromptKit's checks of tool-call arguments: `tool_calls_with_args` and its conversation forms.

Expected arguments compare loosely (G9), or with strict JSON equality when `args_equality` is
`strict` (G14), and may hold matchers (`chatassert.args`); a call's
arguments that are not JSON make the check an `error` when no other call decides it
(docs/promptkit.md). Tests: tests/promptkit/test_promptkit_args.py.

Example:
    >>> from chatassert import ToolCall, Turn
    >>> from chatassert.promptkit import ToolCallsWithArgs
    >>> turn = Turn(tool_calls=[ToolCall(name="book", arguments={"party_size": "4"})])
    >>> ToolCallsWithArgs("book", {"party_size": 4}).check(turn).passed
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chatassert._base import Assertion
from chatassert._early import on_calls
from chatassert._errors import RegexTimeoutError
from chatassert._matchers import ARGS_EQUALITY, Equality, equality
from chatassert._models import ToolCall, as_conversation, turn_of
from chatassert._params import Param, register
from chatassert._promptkit_base import call_arguments, render, timeout_result, unique
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status
from chatassert._trajectory_base import LocatedCall, Tally

__all__ = [
    "ConversationToolCallsWithArgs",
    "ConversationToolsNotCalledWithArgs",
    "ToolCallsWithArgs",
    "describe_violation",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR


# -- tool arguments ----------------------------------------------------------------------------


_Violations = list[dict[str, Any]]

_ARGS_EQUALITY = Param(
    "args_equality",
    "str",
    default="loose",
    choices=ARGS_EQUALITY,
    doc="how argument values compare: loose (4 equals '4') or strict JSON equality",
)


def _matching(per_call: Sequence[_Violations | None]) -> int:
    """How many calls satisfied every requirement (an undecided call, `None`, did not)."""
    return sum(v is not None and not v for v in per_call)


class _ArgsCheck(Assertion):
    """Shared core of `tool_calls_with_args` at both levels: per-call argument violations."""

    __slots__ = (
        "_compiled",
        "_equal",
        "_expected",
        "args_equality",
        "args_match",
        "match",
        "tool_name",
    )
    options = ("regex_timeout",)
    decided_early = on_calls(
        "failed",
        "passed",
        note="each call of the tool against the arguments: with `match: any` a matching call "
        "passes it for good, with `match: all` a call with a wrong or missing argument fails "
        "it for good (arguments that are not JSON make it an error until a call decides it)",
    )
    tool_name: str
    args_match: dict[str, str] | None
    match: str
    args_equality: str
    _equal: Equality
    _expected: dict[str, Any] | None
    _compiled: tuple[tuple[str, Pattern], ...]
    evidence_at = "/tool_calls"

    def _setup(
        self,
        tool_name: str,
        expected: Mapping[str, Any] | None,
        args_match: Mapping[str, str] | None,
        match: str,
        regex_timeout: float,
        args_equality: str = "loose",
    ) -> dict[str, Any] | None:
        if not isinstance(tool_name, str) or not tool_name.strip():
            raise ValueError(f"{self.kind} needs a non-empty tool_name")
        self._set("_equal", equality(args_equality))
        self._set("args_equality", args_equality)
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
            elif not self._equal(want, args[arg]):
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
            elif pattern.search(render(args[arg])) is None:
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

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.calls = []  # the calls of `tool_name`, located
        state.per_call = []  # each one's violations; None when a pattern ran out of time
        state.matching = 0  # calls that satisfy every requirement
        state.real = 0  # calls with a violation other than arguments that are not JSON
        state.invalid = 0  # calls whose arguments are not JSON
        state.timeout = None  # the first pattern that ran out of time (RegexTimeoutError)
        return state

    def _fold_call(self, state: Any, located: Any) -> bool:
        """Fold one call; True when, with `match="all"`, it does not satisfy the requirements
        (or cannot be checked: arguments that are not JSON, a pattern out of time)."""
        call = located.call
        if call.name != self.tool_name:
            return False
        state.calls.append(located)
        try:
            found = self._violations(call)
        except RegexTimeoutError as exc:  # undecided: another call may still decide
            if state.timeout is None:
                state.timeout = exc
            state.per_call.append(None)
            return self.match == "all"
        state.per_call.append(found)
        if not found:
            state.matching += 1
            return False
        if any(v["type"] != "invalid_args_json" for v in found):
            state.real += 1
        else:
            state.invalid += 1
        return self.match == "all"

    def _fold_status(self, state: Any) -> Status:
        """The outcome over the calls folded (at least one).

        Raises:
            RegexTimeoutError: when a pattern ran out of time on a call and no other call
                decides the outcome (a match for `any`, a violation for `all`).
        """
        count, matching = len(state.calls), state.matching
        if (matching and self.match == "any") or matching == count:
            return _P
        if state.timeout is not None and (self.match == "any" or not (state.real or state.invalid)):
            raise state.timeout
        if state.invalid and (self.match == "any" or not state.real):
            return _E
        return _F

    def _fold_now(self, state: Any) -> str:
        if not state.calls:
            return _F.value  # not called (yet)
        try:
            return self._fold_status(state).value
        except RegexTimeoutError:
            return _E.value

    def _fold_settled(self, state: Any) -> str | None:
        if self.match == "any" and state.matching:
            return _P.value  # a matching call stays made
        if self.match == "all" and state.real:
            return _F.value  # a call with a real violation stays made
        return None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: dict[str, Any]) -> None:
        state.undo(mark)

    def _evaluate(self, calls: Sequence[LocatedCall]) -> tuple[Status, list[_Violations | None]]:
        """The outcome over `calls` (of the tool, at least one) and each call's violations.

        A call whose pattern ran out of time is undecided: its entry is `None`.

        Raises:
            RegexTimeoutError: when a pattern ran out of time on a call and no other call
                decides the outcome (a match for `any`, a violation for `all`).
        """
        state = self._fold_start()
        for located in calls:
            self._fold_call(state, located)
        return self._fold_status(state), state.per_call

    def _mode(self) -> dict[str, Any]:
        """The equality in force, for details: said only when it is not the default."""
        return {} if self.args_equality == "loose" else {"args_equality": self.args_equality}

    def describe(self) -> str:
        """Describe the requirement."""
        parts = [f"{k}={v!r}" for k, v in (self._expected or {}).items()]
        parts += [f"{k}~/{p.source}/" for k, p in self._compiled]
        strict = " (strict equality)" if self.args_equality == "strict" else ""
        return f"calls {self.tool_name}({', '.join(parts)}){strict}"


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

    `expected_args` values are compared loosely (G9; `None` only requires presence), or with
    strict JSON equality when `args_equality="strict"` (G14); `args_match` maps an argument to
    a regular expression searched in its string rendering.
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
        _ARGS_EQUALITY,
    )
    expected_args: dict[str, Any] | None

    def __init__(
        self,
        tool_name: str,
        expected_args: Mapping[str, Any] | None = None,
        args_match: Mapping[str, str] | None = None,
        match: str = "any",
        *,
        args_equality: str = "loose",
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set(
            "expected_args",
            self._setup(tool_name, expected_args, args_match, match, regex_timeout, args_equality),
        )

    def _check(self, subject: object) -> Result:
        turn = turn_of(subject)
        calls = [c for c in turn.tool_calls if c.name == self.tool_name]
        if not calls:
            called = unique(turn.called_tools)
            return Result(
                _F,
                self.kind,
                f"Expected a call of '{self.tool_name}' but it was not called (called: {called})",
                {"error": "tool_not_called", "tool_name": self.tool_name, "called_tools": called},
            )
        try:
            status, per_call = self._evaluate([LocatedCall(c, None, "", None) for c in calls])
        except RegexTimeoutError as exc:
            return timeout_result(self.kind, exc, exc.pattern or "args_match")
        matching = _matching(per_call)
        if status is _P:
            return Result(
                _P,
                self.kind,
                self._held(),
                {"violations": [], "matching_calls": matching, **self._mode()},
            )
        violations = [v for vs in per_call if vs for v in vs]
        first = next((v for v in violations if v["type"] != "invalid_args_json"), violations[0])
        reason = describe_violation(first)
        if self.match == "all" and matching:
            failing = sum(bool(v) for v in per_call)
            reason = f"{failing} of {len(calls)} calls do not match: {reason}"
        return Result(
            status,
            self.kind,
            reason,
            {"violations": violations, "matching_calls": matching, **self._mode()},
        )


@register
class ConversationToolCallsWithArgs(_ArgsCheck):
    """Passes when some call of the tool in the conversation has the required arguments.

    `required_args` (alias `expected_args`) compares loosely (G9, `None` = present), or
    strictly with `args_equality="strict"` (G14);
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
        _ARGS_EQUALITY,
    )
    required_args: dict[str, Any] | None

    def __init__(
        self,
        tool_name: str,
        required_args: Mapping[str, Any] | None = None,
        args_match: Mapping[str, str] | None = None,
        match: str = "any",
        *,
        args_equality: str = "loose",
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set(
            "required_args",
            self._setup(tool_name, required_args, args_match, match, regex_timeout, args_equality),
        )

    def _check(self, subject: object) -> Result:
        conversation = as_conversation(subject)
        located = [(i, c) for i, c in conversation.tool_calls if c.name == self.tool_name]
        details: dict[str, Any] = {"tool": self.tool_name, "expected": self.required_args or {}}
        if self.args_match is not None:
            details["args_match"] = self.args_match
        details.update(self._mode())
        if not located:
            called = unique([c.name for _, c in conversation.tool_calls])
            return Result(
                _F,
                self.kind,
                f"tool '{self.tool_name}' was not called",
                {**details, "actual": None, "violations": [], "called_tools": called},
            )
        try:
            status, per_call = self._evaluate([LocatedCall(c, None, "", i) for i, c in located])
        except RegexTimeoutError as exc:
            return timeout_result(self.kind, exc, exc.pattern or "args_match")
        details["matching_calls"] = _matching(per_call)
        if status is _P:
            best = next(
                c for (_, c), v in zip(located, per_call, strict=True) if v is not None and not v
            )
            return Result(
                _P,
                self.kind,
                self._held(),
                {**details, "actual": call_arguments(best), "violations": []},
            )
        violations = [
            {
                **v,
                "turn_index": index,
                "description": describe_violation(v),
                "evidence": {"tool": call.name, "arguments": call_arguments(call)},
            }
            for (index, call), vs in zip(located, per_call, strict=True)
            if vs
            for v in vs
        ]
        failing = [(c, v) for (_, c), v in zip(located, per_call, strict=True) if v]
        details["actual"] = call_arguments(min(failing, key=lambda p: len(p[1]))[0])
        details["violations"] = violations
        return Result(status, self.kind, "tool argument violations", details)


@register
class ConversationToolsNotCalledWithArgs(Assertion):
    """Passes when no call of the tool (any tool, when `tool_name` is empty) has a forbidden value.

    `forbidden_args` (alias `excluded_args`, PromptKit's later name) maps an argument to a
    forbidden value or a list of them (loose equality, G9, or strict with
    `args_equality="strict"`, G14; `None` forbids the argument altogether). PromptKit's later
    `tool_args_excluded_session` is this check.

    Example:
        >>> from chatassert import Conversation, ToolCall, Turn
        >>> from chatassert.promptkit import ConversationToolsNotCalledWithArgs
        >>> conv = Conversation(turns=[Turn(tool_calls=[
        ...     ToolCall(name="refund", arguments={"amount": "5000"})])])
        >>> r = ConversationToolsNotCalledWithArgs("refund", {"amount": [1000, 5000]}).check(conv)
        >>> r.reason, r.details["violations"][0]["evidence"]["value"]
        ('forbidden tool args detected', '5000')
    """

    __slots__ = ("_equal", "args_equality", "forbidden_args", "tool_name")
    kind = "conversation_tools_not_called_with_args"
    decided_early = on_calls(
        "failed",
        note="each call's arguments against the forbidden values: one given fails it for "
        "good (arguments that are not JSON make it an error, unless a later call fails it)",
    )
    level = "conversation"
    evidence_at = "/tool_calls"
    dialect_names = {
        "promptkit.conversation": ("tools_not_called_with_args", "tool_args_excluded_session")
    }
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
            aliases=("excluded_args",),
            doc="argument → forbidden value or list of values",
        ),
        _ARGS_EQUALITY,
    )
    tool_name: str
    forbidden_args: dict[str, Any]
    args_equality: str
    _equal: Equality

    def __init__(
        self,
        tool_name: str = "",
        forbidden_args: Mapping[str, Any] | None = None,
        *,
        args_equality: str = "loose",
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        self._set("_equal", equality(args_equality))
        self._set("args_equality", args_equality)
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
        state = self._fold_start()
        for index, call in as_conversation(subject).tool_calls:
            self._fold_call(state, LocatedCall(call, None, "", index))
        violations, invalid = state.violations, state.invalid
        details: dict[str, Any] = {"violations": violations}
        if invalid:
            details["invalid_calls"] = invalid
        if self.args_equality != "loose":
            details["args_equality"] = self.args_equality
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

    # -- the fold, shared by the offline check and a monitor ------------------------------

    def _fold_start(self) -> Tally:
        state = Tally()
        state.violations = []  # each forbidden value a call was given
        state.invalid = []  # the calls of the tool whose arguments are not JSON
        return state

    def _fold_call(self, state: Any, located: Any) -> bool:
        """Fold one call; True when it has a forbidden value, or arguments that are not JSON
        (which cannot be checked)."""
        call, index = located.call, located.turn
        if self.tool_name and call.name != self.tool_name:
            return False
        if call.arguments_error is not None:
            state.invalid.append({"turn_index": index, "tool": call.name,
                                  "error": call.arguments_error})  # fmt: skip
            return True
        found = False
        for arg, forbidden in self.forbidden_args.items():
            if arg not in call.arguments:
                continue
            options = forbidden if isinstance(forbidden, list) else [forbidden]
            actual = call.arguments[arg]
            if any(self._equal(option, actual) for option in options):
                found = True
                state.violations.append(
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
        return found

    def _fold_now(self, state: Any) -> str:
        return (_F if state.violations else _E if state.invalid else _P).value

    def _fold_settled(self, state: Any) -> str | None:
        return _F.value if state.violations else None

    def _fold_mark(self, state: Any) -> dict[str, Any]:
        return Tally.mark(state)

    def _fold_undo(self, state: Any, mark: dict[str, Any]) -> None:
        state.undo(mark)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.tool_name or 'no tool'} called with {self.forbidden_args}"
