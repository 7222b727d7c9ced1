"""The same checks while an agent runs: a `Monitor` fed events as they happen, and guards
that decide a tool call before it runs (docs/guard-a-running-agent.md).

Build a monitor from checks (or a suite's case), feed it what the agent does — user and
assistant messages, each tool call before it runs and its result, guardrail events, workflow
transitions, run metadata — and read each check's state after every event: `passed`,
`failed`, `error` or `skipped` once decided for good, `pending` while a later event could
still change it. `permits(call)` asks whether a call may run: it is denied when a check the
call decides would fail (or could not be evaluated: fail closed). `finish()` gives the
verdict the offline check gives the same conversation, tree and evidence alike.

How early each check can be decided is declared by its class (`Assertion.decided_early`) and
listed per check in docs/guard-a-running-agent.md.

Example:
    >>> from chatassert import ToolCall
    >>> from chatassert.policies import ToolBefore
    >>> monitor = Monitor([ToolBefore("lookup_order", "issue_refund")])
    >>> _ = monitor.user("Refund order 42, please.")
    >>> decision = monitor.permits(ToolCall(name="issue_refund", arguments={"order": 42}))
    >>> decision.allowed, decision.denied_by[0].name
    (False, 'tool_before')
    >>> _ = monitor.tool_call(ToolCall(name="lookup_order", arguments={"order": 42}))
    >>> bool(monitor.permits({"name": "issue_refund", "arguments": {"order": 42}}))
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from chatassert._base import AllOf, Assertion
from chatassert._errors import MonitorError
from chatassert._models import (
    Conversation,
    GuardrailEvent,
    Message,
    ToolCall,
    ToolResult,
    WorkflowTransition,
)
from chatassert._monitor import Ctx, Node, NodeState, build_node, case_turn_nodes, label_of
from chatassert._monitor_log import (
    EventLog,
    LoggedCall,
    Metadata,
    a_type,
    call_of,
    describe_event,
    event_kind,
    message_of,
    raw_messages,
    result_msg,
)
from chatassert._result import Result
from chatassert._suite import Case

__all__ = [
    "CheckState",
    "Decision",
    "Metadata",
    "Monitor",
    "MonitorError",
    "Status",
]

Status = Literal["passed", "failed", "error", "skipped", "pending"]
"""A check's state: an outcome once decided for good, `pending` while a later event could
still change it. `pending` never reaches a final result."""


@dataclass(frozen=True)
class CheckState:
    """One check's state after an event.

    Attributes:
        name: The check's label as reports name it: its name in its spec file when loaded
            from one, else its kind (`tool_before`).
        status: Its outcome once decided, `pending` while a later event could change it.
        result: Once decided, the check's result tree on the conversation at the moment it
            was decided (the offline check's evidence then); None while pending.
        final: True once decided for good; a final state never changes afterwards.
    """

    name: str
    status: Status
    result: Result | None
    final: bool


@dataclass(frozen=True)
class Decision:
    """Whether a tool call may run, and why; `bool(decision)` is `allowed`.

    Attributes:
        allowed: False when a check denies the call.
        call: The exact call decided on (its id, name and arguments).
        denied_by: The checks that deny it, each as it would be if the call ran (failed, or
            an error when the call makes it one and the monitor fails closed), with its
            evidence.
        pending: The checks the call cannot decide now (decided later, or only at finish).
        reason: One line: what was decided and why.
    """

    allowed: bool
    call: ToolCall
    denied_by: tuple[CheckState, ...]
    pending: tuple[str, ...]
    reason: str

    def __bool__(self) -> bool:
        return self.allowed


class Monitor:
    """Checks fed a running agent's events, deciding each check as early as it can be.

    Args:
        checks: One assertion, a list of them, or a suite's `Case`: each assertion of its
            turns is decided on the user turn the case pairs it with (the case's i-th turn,
            the conversation's i-th user turn), as early as on that turn while it is open;
            its conversation checks as early as they can be (a case with a workflow, and
            judged checks, at finish).
        fail_open: When True, a check that cannot be evaluated on a call (arguments that are
            not JSON, a pattern over its time budget) does not deny it. The default is to
            fail closed: an error is never a pass.

    Raises:
        MonitorError: when the monitor would guard nothing or could not decide a check:
            nothing to monitor, something that is not an assertion, a check of one turn or
            of a JSON value given without a turn selector, a judged check with no judge
            configured, a case that is skipped or checks a JSON response or steps. Every
            problem is listed.

    Attributes:
        only_at_finish: The labels of the checks (or the parts of them) that cannot be
            decided before `finish()`.
    """

    only_at_finish: tuple[str, ...]

    def __init__(
        self,
        checks: Assertion | Sequence[Assertion] | Case,
        *,
        fail_open: bool = False,
    ) -> None:
        if not isinstance(fail_open, bool):
            raise TypeError(f"fail_open must be True or False, got {fail_open!r}")
        self.fail_open = fail_open
        self._case: Case | None = None
        self._checks, tracked, problems = _read_checks(checks)
        if isinstance(checks, Case):
            self._case = checks
        if problems:
            count = len(problems)
            raise MonitorError(
                f"cannot build the monitor ({count} problem{'s' if count != 1 else ''}):\n"
                + "\n".join(f"  - {p}" for p in problems)
            )
        self._tracked = tracked  # (label, node or None: decided at finish only)
        self._log = EventLog()
        self._events = 0
        ctx = Ctx(self._log, None)
        for _, node in tracked:
            if node is not None:
                node.update(ctx)
        late: list[str] = []
        for label, node in tracked:
            if node is None:
                late.append(label)
            else:
                late.extend(node.at_finish())
        self.only_at_finish = tuple(dict.fromkeys(late))

    # -- feeding -------------------------------------------------------------------------

    def feed(self, event: object) -> tuple[CheckState, ...]:
        """Record one event and return every check's state after it.

        `event` is a `Message`, `ToolCall` (a call that runs), `ToolResult`,
        `GuardrailEvent`, `WorkflowTransition`, `Metadata`, or a raw message dict in OpenAI
        chat, Anthropic Messages or OpenAI Responses form (read by that format's reader).

        Raises:
            MonitorError: for an event of another type or a malformed dict, naming the event.
        """
        index = self._events
        where = describe_event(index, event)
        if isinstance(event, Message):
            return self._messages([message_of(event)], where)
        if isinstance(event, ToolCall):
            return self._call(event, where)
        if isinstance(event, ToolResult):
            return self._messages([result_msg(event, where)], where)
        if isinstance(event, GuardrailEvent):
            self._log.guardrail(event, where)
            return self._after("guardrail", ())
        if isinstance(event, WorkflowTransition):
            self._log.transition(event)
            return self._after("workflow", ())
        if isinstance(event, Metadata):
            self._log.metadata(event, where)
            return self._after("metadata", ())
        if isinstance(event, Mapping):
            return self._messages(raw_messages(event, where), where)
        raise MonitorError(
            f"{where}: a monitor is fed a Message, ToolCall, ToolResult, GuardrailEvent, "
            "WorkflowTransition, Metadata or a raw message dict (OpenAI chat, Anthropic, "
            f"Responses), not {a_type(event)}"
        )

    def user(self, text: str) -> tuple[CheckState, ...]:
        """Record a user message; return every check's state after it."""
        _text(text, "user")
        return self.feed(Message(role="user", content=text))

    def assistant(
        self, text: str = "", tool_calls: Sequence[ToolCall] = ()
    ) -> tuple[CheckState, ...]:
        """Record an assistant message (with the calls it made, if any, as made)."""
        _text(text, "assistant")
        where = describe_event(self._events, "assistant")
        calls = tuple(call_of(c, where) for c in tool_calls)
        return self.feed(Message(role="assistant", content=text or None, tool_calls=calls))

    def tool_call(self, call: ToolCall | Mapping[str, Any]) -> tuple[CheckState, ...]:
        """Record a tool call that runs (after `permits` allowed it, typically)."""
        where = describe_event(self._events, call)
        return self._call(call_of(call, where), where)

    def tool_result(self, result: ToolResult | Mapping[str, Any]) -> tuple[CheckState, ...]:
        """Record a tool's result (paired with its call by id, else by order)."""
        where = describe_event(self._events, result)
        return self._messages([result_msg(result, where)], where)

    def _call(self, call: ToolCall, where: str) -> tuple[CheckState, ...]:
        from chatassert.transcripts._build import Msg

        return self._messages([Msg(role="assistant", tool_calls=[call])], where)

    def _messages(self, msgs: list[Any], where: str) -> tuple[CheckState, ...]:
        states: tuple[CheckState, ...] = ()
        for msg in msgs:
            kind = "call" if msg.role == "assistant" and msg.tool_calls else event_kind(msg)
            calls = self._log.add(msg)
            states = self._after(kind, calls, count=False, results=self._log.results)
            if msg.role == "assistant" and msg.content and kind == "call":
                states = self._after("assistant", (), count=False)
        self._events += 1
        return states

    def _after(
        self,
        kind: str,
        calls: Sequence[LoggedCall],
        *,
        count: bool = True,
        results: Sequence[tuple[int | None, ToolResult]] = (),
    ) -> tuple[CheckState, ...]:
        if count:
            self._events += 1
        ctx = Ctx(self._log, kind, calls, results=results)
        for _, node in self._tracked:
            if node is not None:
                node.update(ctx)
        return self.states

    # -- asking --------------------------------------------------------------------------

    def permits(self, call: ToolCall | Mapping[str, Any]) -> Decision:
        """Whether `call` may run now; nothing is recorded (feed `tool_call` when it runs).

        The call is denied by each check that it would make fail for good, and — unless the
        monitor fails open — by each check it would make an error (its arguments are not
        JSON, a pattern over its budget). A check the call cannot decide now is `pending`.

        Raises:
            MonitorError: for a call that is not a `ToolCall` or a mapping of one.
        """
        from chatassert.transcripts._build import Msg

        where = describe_event(self._events, call)
        made = call_of(call, where)
        log = self._log
        mark = log.mark()
        located = log.add(Msg(role="assistant", tool_calls=[made]))
        ctx = Ctx(log, "call", located, commit=False)
        denied: list[CheckState] = []
        pending: list[str] = []
        try:
            for label, node in self._tracked:
                if node is None:
                    pending.append(label)
                    continue
                before = node.state
                after = node.update(ctx)
                verdict = self._verdict(label, before, after, ctx, node)
                if verdict is None:
                    if not after.final:
                        pending.append(label)
                else:
                    denied.append(verdict)
        finally:
            for _, node in self._tracked:
                if node is not None:
                    node.rollback()
            log.undo(mark)
        return _decision(made, denied, pending)

    def _verdict(
        self, label: str, before: NodeState, after: NodeState, ctx: Ctx, node: Node
    ) -> CheckState | None:
        """The state that denies the call, or None when this check lets it run."""
        if after.final and after.status == "failed" and (not before.final or after.blamed):
            return CheckState(label, "failed", after.result, True)
        if self.fail_open:
            return None
        erred = (after.final and after.status == "error") or after.provisional == "error"
        was = (before.final and before.status == "error") or before.provisional == "error"
        if erred and (not was or after.blamed):
            result = after.result or node.evidence(ctx)
            return CheckState(label, "error", result, after.final)
        return None

    # -- reading -------------------------------------------------------------------------

    @property
    def states(self) -> tuple[CheckState, ...]:
        """Every check's state after the last event."""
        out = []
        for label, node in self._tracked:
            state = node.state if node is not None else NodeState("pending")
            status: Any = state.status
            out.append(
                CheckState(label, status, state.result if state.final else None, state.final)
            )
        return tuple(out)

    @property
    def conversation(self) -> Conversation:
        """What was fed, as the subject model: the conversation the offline check reads."""
        return self._log.conversation()

    def finish(self) -> Result:
        """The final verdict tree: the offline check of `conversation`, tree and evidence.

        One check gives its own result; several give an `AllOf` of them; a case gives the
        case's result.
        """
        conversation = self.conversation
        if self._case is not None:
            return self._case.check(conversation)
        if len(self._checks) == 1:
            return self._checks[0].check(conversation)
        return AllOf(*self._checks).check(conversation)

    async def afinish(self) -> Result:
        """As `finish`, awaited: the way to finish from inside an event loop (an agent's run,
        an adapter's hook), where `finish` cannot ask a judge (it would start a loop of its
        own). Judged checks are asked with `acheck`; the tree is the one `finish` gives.
        """
        conversation = self.conversation
        if self._case is not None:
            return await self._case.acheck(conversation)
        if len(self._checks) == 1:
            return await self._checks[0].acheck(conversation)
        return await AllOf(*self._checks).acheck(conversation)

    def __repr__(self) -> str:
        labels = ", ".join(label for label, _ in self._tracked)
        return f"Monitor([{labels}], events={self._events})"


def _text(text: object, role: str) -> None:
    if not isinstance(text, str):
        raise MonitorError(f"a {role} message's text must be a string, got {type(text).__name__}")


def _decision(call: ToolCall, denied: list[CheckState], pending: list[str]) -> Decision:
    what = f"'{call.name}'" + (f" (id {call.id})" if call.id else "")
    if denied:
        reasons = "; ".join(
            f"{d.name}: {d.result.reason if d.result is not None else d.status}" for d in denied
        )
        reason = f"{what} denied by {len(denied)} check(s): {reasons}"
    else:
        reason = f"{what} allowed" + (
            f"; {len(pending)} check(s) cannot decide it now" if pending else ""
        )
    return Decision(not denied, call, tuple(denied), tuple(pending), reason)


def _read_checks(
    checks: object,
) -> tuple[tuple[Assertion, ...], list[tuple[str, Node | None]], list[str]]:
    """The checks, the tracked nodes (label, node), and every problem found."""
    from chatassert._suite import _unjudged

    problems: list[str] = []
    tracked: list[tuple[str, Node | None]] = []
    if isinstance(checks, Case):
        case = checks
        if case.skip is not None:
            problems.append(f"case '{case.name}' is skipped ({case.skip}): it checks nothing")
        if case.subject != "conversation" or case.steps:
            problems.append(
                f"case '{case.name}' checks a JSON response or steps, not a conversation: "
                "a monitor follows a conversation"
            )
        own = tuple(case.checks)
        turn_checks = tuple(a for t in case.turns for a in t.assertions)
        everything: tuple[Assertion, ...] = (*turn_checks, *own)
        for a, turn_node in zip(turn_checks, case_turn_nodes(case), strict=True):
            tracked.append((label_of(a), turn_node))
        for a in own:
            node = None if case.workflow is not None else _node(a, problems)
            tracked.append((label_of(a), node))
    elif isinstance(checks, Assertion):
        everything = (checks,)
    elif isinstance(checks, Sequence) and not isinstance(checks, str | bytes):
        everything = tuple(checks)
    else:
        raise MonitorError(
            "cannot build the monitor: give an assertion, a list of assertions or a Case, "
            f"not {type(checks).__name__}"
        )
    if not isinstance(checks, Case):
        for i, a in enumerate(everything):
            if not isinstance(a, Assertion):
                problems.append(f"checks[{i}] is a {type(a).__name__}, not an assertion")
                continue
            tracked.append((label_of(a), _node(a, problems, f"checks[{i}] ")))
    if not everything:
        problems.append("nothing to monitor: give at least one check")
    for a in everything:
        if isinstance(a, Assertion):
            for judged, why in _unjudged(a):
                problems.append(f"{judged.describe()} has no judge: {why}")
    return tuple(a for a in everything if isinstance(a, Assertion)), tracked, problems


def _node(assertion: Assertion, problems: list[str], where: str = "") -> Node | None:
    if assertion.level in ("turn", "json"):
        what = "one turn" if assertion.level == "turn" else "a JSON value"
        problems.append(
            f"{where}{label_of(assertion)} checks {what}, not a conversation: wrap it in "
            "OnLastTurn(...), OnTurn(n, ...), OnEveryTurn(...) or OnAnyTurn(...)"
        )
        return None
    return build_node(assertion)
