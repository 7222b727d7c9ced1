"""Workflows: a state machine definition, its derivation from transcripts, and workflow checks.

A `Workflow` is the `workflow` section of a PromptKit pack: an `entry` state and, for each state,
the events that leave it (`states.<name>.on_event.<Event>: <target>`). A state with no way out is
terminal. Given a transcript in which the model calls the tool `workflow__transition` with
`{event, context}`, `Workflow.apply` derives the state after each turn, the transition history
and completion once per conversation, so the workflow checks (`state_is`, `transitioned_to`,
`workflow_complete`) work on plain logged transcripts. An event the current state does not accept
is kept in the history as an invalid transition (`valid=False`, with an `error`) and the workflow
stays where it was.

Docs: docs/promptkit.md. Tests: tests/promptkit/test_workflow_and_details.py and
tests/promptkit/test_workflow_decisions.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chatassert._base import Assertion
from chatassert._models import Conversation, ToolCall, WorkflowState, WorkflowTransition, turn_of
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "NO_WORKFLOW",
    "WORKFLOW_TOOL",
    "ConversationStateIs",
    "ConversationTransitionedTo",
    "ConversationWorkflowComplete",
    "StateIs",
    "TransitionedTo",
    "Workflow",
    "WorkflowComplete",
    "conversation_workflow",
    "has_workflow",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

WORKFLOW_TOOL = "workflow__transition"
"""The tool a model calls to move the workflow: `workflow__transition({event, context})`."""

NO_WORKFLOW = "no workflow state available"


@dataclass(frozen=True)
class Workflow:
    """A workflow state machine: an entry state and the events that leave each state.

    Attributes:
        entry: The state the workflow starts in.
        states: For each state, its events and their target states (`{}` = terminal).
        tool: The tool whose calls move the workflow.

    Example:
        >>> from chatassert import Conversation, Workflow
        >>> flow = Workflow.from_dict({"entry": "intake", "states": {
        ...     "intake": {"on_event": {"Escalate": "specialist", "Resolve": "closed"}},
        ...     "specialist": {"on_event": {"Resolve": "closed"}},
        ...     "closed": {}}})
        >>> flow.terminal_states
        ('closed',)
        >>> conv = flow.apply(Conversation(messages=[
        ...     {"role": "user", "content": "My bill is wrong"},
        ...     {"role": "assistant", "tool_calls": [{"id": "t1", "type": "function", "function": {
        ...         "name": "workflow__transition", "arguments": '{"event": "Escalate"}'}}]},
        ...     {"role": "tool", "tool_call_id": "t1", "content": "ok"},
        ...     {"role": "assistant", "content": "A specialist will help you."}]))
        >>> conv.workflow.current, conv.workflow.complete
        ('specialist', False)
    """

    entry: str
    states: Mapping[str, Mapping[str, str]]
    tool: str = WORKFLOW_TOOL
    _terminal: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.entry, str) or not self.entry:
            raise ValueError(f"a workflow needs a non-empty entry state, got {self.entry!r}")
        if not isinstance(self.states, Mapping) or not self.states:
            raise ValueError("a workflow needs at least one state")
        states: dict[str, dict[str, str]] = {}
        for name, events in self.states.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"workflow state names must be non-empty strings, got {name!r}")
            if not isinstance(events, Mapping):
                raise ValueError(f"the events of state {name!r} must be a mapping")
            states[name] = {}
            for event, target in events.items():
                if not isinstance(event, str) or not isinstance(target, str):
                    raise ValueError(f"state {name!r}: event {event!r} must map to a state name")
                states[name][event] = target
        problems = [
            f"state {name!r}: event {event!r} goes to unknown state {target!r}"
            for name, events in states.items()
            for event, target in events.items()
            if target not in states
        ]
        if self.entry not in states:
            problems.insert(0, f"the entry state {self.entry!r} is not one of the states")
        if problems:
            raise ValueError("; ".join(problems) + f" (states: {', '.join(states)})")
        object.__setattr__(self, "states", states)
        object.__setattr__(self, "_terminal", tuple(n for n, e in states.items() if not e))

    # -- construction --------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Workflow:
        """Build a workflow from a pack's `workflow` section (or a whole pack that has one).

        The section is `{entry, states: {<name>: {on_event: {<Event>: <target>}, ...}}}`; other
        keys of a state (`prompt_task`, `description`, ...) are ignored.

        Raises:
            ValueError: when the shape is wrong or a transition names an unknown state.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"a workflow must be a mapping, got {type(data).__name__}")
        if "states" not in data and isinstance(data.get("workflow"), Mapping):
            data = data["workflow"]
        states = data.get("states")
        if not isinstance(states, Mapping):
            raise ValueError("a workflow needs 'states': a mapping of state name to its events")
        table: dict[str, Mapping[str, str]] = {}
        for name, state in states.items():
            if state is None:
                table[name] = {}
                continue
            if not isinstance(state, Mapping):
                raise ValueError(f"state {name!r} must be a mapping with 'on_event'")
            events = state.get("on_event") or {}
            if not isinstance(events, Mapping):
                raise ValueError(f"state {name!r}: 'on_event' must map events to states")
            table[str(name)] = events
        entry = data.get("entry")
        if not isinstance(entry, str):
            raise ValueError("a workflow needs 'entry': the name of its first state")
        return cls(entry, table, tool=str(data.get("tool", WORKFLOW_TOOL)))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Workflow:
        """Load a workflow from a JSON or YAML file (a pack, or its `workflow` section).

        Only a regular file of at most 10 MiB is read (a path such as `/dev/zero` is refused),
        and it is parsed with the spec loader's limits.

        Raises:
            OSError: when the file cannot be read, is not a regular file, or is too large.
            ValueError: when it is not a valid workflow (a `SpecError` when it is not valid
                YAML or JSON).
        """
        # the spec loader's reader and parser, with their limits: a workflow path comes from a
        # spec file, untrusted input (imported here: YAML is an edge dependency)
        from chatassert.specs._yaml import parse_yaml, read_spec_file

        name = os.fspath(path)
        data = parse_yaml(read_spec_file(name, regular_only=True), name)
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """Return the pack-shaped form, `{entry, states: {name: {on_event}}}`."""
        return {
            "entry": self.entry,
            "states": {n: {"on_event": dict(e)} for n, e in self.states.items()},
        }

    # -- queries -------------------------------------------------------------------------

    @property
    def terminal_states(self) -> tuple[str, ...]:
        """The states with no way out."""
        return self._terminal

    def is_terminal(self, state: str) -> bool:
        """Whether `state` has no outgoing transitions."""
        return not self.states.get(state)

    # -- derivation ----------------------------------------------------------------------

    def step(
        self, current: str, call: ToolCall, turn_index: int | None = None
    ) -> WorkflowTransition:
        """Return the transition a `workflow__transition` call makes from `current`."""
        event = call.arguments.get("event")
        error = None
        if call.arguments_error is not None:
            error = (
                f"{self.tool} was called with arguments it cannot read: {call.arguments_error}"
                if call.arguments_unrecorded
                else f"{self.tool} was called with arguments that are not valid JSON"
            )
            event = None
        elif not isinstance(event, str) or not event:
            error = f"{self.tool} was called without an 'event'"
            event = None
        else:
            events = self.states[current]
            if event in events:
                return WorkflowTransition.model_validate(
                    {"from": current, "to": events[event], "event": event, "turn_index": turn_index}
                )
            accepts = ", ".join(events) if events else "nothing: it is terminal"
            error = f"state {current!r} does not accept event {event!r} (it accepts {accepts})"
        return WorkflowTransition.model_validate(
            {
                "from": current,
                "to": current,
                "event": event,
                "turn_index": turn_index,
                "valid": False,
                "error": error,
            }
        )

    def derive(self, conversation: Conversation) -> list[WorkflowState]:
        """Return the workflow state after each turn of the conversation."""
        current = self.entry
        history: list[WorkflowTransition] = []
        out: list[WorkflowState] = []
        for index, turn in enumerate(conversation.turns):
            for call in turn.tool_calls:
                if call.name == self.tool:
                    transition = self.step(current, call, index)
                    history.append(transition)
                    current = transition.to_state
            out.append(
                WorkflowState(
                    current=current,
                    transitions=tuple(history),
                    complete=self.is_terminal(current),
                )
            )
        return out

    def apply(self, conversation: Conversation) -> Conversation:
        """Return a copy of the conversation with the derived workflow state on every turn.

        The conversation's own `workflow` becomes the state after the last turn (the entry
        state for a conversation without turns).
        """
        states = self.derive(conversation)
        turns = tuple(
            t.model_copy(update={"workflow": s})
            for t, s in zip(conversation.turns, states, strict=True)
        )
        final = (
            states[-1]
            if states
            else WorkflowState(current=self.entry, complete=self.is_terminal(self.entry))
        )
        return conversation.model_copy(update={"turns": turns, "workflow": final})


def has_workflow(conversation: Conversation) -> bool:
    """Whether the conversation already carries workflow information."""
    return conversation.workflow is not None or any(
        t.workflow is not None for t in conversation.turns
    )


def conversation_workflow(conversation: Conversation) -> WorkflowState | None:
    """Return the workflow state of a conversation: its own, else its last turn's that has one."""
    if conversation.workflow is not None:
        return conversation.workflow
    return next((t.workflow for t in reversed(conversation.turns) if t.workflow), None)


def _transition_dict(t: WorkflowTransition) -> dict[str, Any]:
    out: dict[str, Any] = {
        "from": t.from_state,
        "to": t.to_state,
        "event": t.event,
        "turn_index": t.turn_index,
        "valid": t.valid,
    }
    if t.error is not None:
        out["error"] = t.error
    return out


def _no_state(kind: str) -> Result:
    return Result(
        _E,
        kind,
        NO_WORKFLOW,
        {
            "error": "no_workflow",
            "hint": "give the scenario a 'workflow:' definition or run with --workflow FILE",
        },
    )


def _with_invalid(details: dict[str, Any], state: WorkflowState) -> dict[str, Any]:
    invalid = [_transition_dict(t) for t in state.transitions if not t.valid]
    if invalid:
        details["invalid_transitions"] = invalid
    return details


def _go(text: str | None) -> str:
    """`text` quoted as Go's `%q` quotes it in PromptKit's messages (no state: `""`)."""
    return json.dumps(text or "", ensure_ascii=False)


def _state_is(kind: str, expected: str, state: WorkflowState | None) -> Result:
    if state is None:
        return _no_state(kind)
    details = _with_invalid({"expected": expected, "actual": state.current}, state)
    if state.current == expected:
        details["origin_message"] = f"workflow is in expected state {_go(expected)}"
        return Result(_P, kind, f'workflow is in state "{expected}"', details)
    details["origin_message"] = f"expected state {_go(expected)} but got {_go(state.current)}"
    return Result(
        _F, kind, f'expected state "{expected}" but workflow is in state "{state.current}"', details
    )


def _transitioned_to(kind: str, expected: str, state: WorkflowState | None) -> Result:
    if state is None:
        return _no_state(kind)
    for t in state.transitions:
        if t.valid and t.to_state == expected:
            details: dict[str, Any] = {
                "transition": _transition_dict(t),
                "origin_message": f"workflow transitioned to {_go(expected)}",
            }
            return Result(
                _P,
                kind,
                f'workflow transitioned to state "{expected}"',
                _with_invalid(details, state),
            )
    transitions = [_transition_dict(t) for t in state.transitions]
    details = {  # G16: PromptKit's key (`target`) and wording beside the document's
        "expected_state": expected,
        "target": expected,
        "transitions": transitions,
        "origin_message": f"no transition to state {_go(expected)} found",
    }
    return Result(
        _F,
        kind,
        f'workflow never transitioned to state "{expected}"',
        _with_invalid(details, state),
    )


def _complete(kind: str, state: WorkflowState | None) -> Result:
    if state is None:
        return _no_state(kind)
    details = _with_invalid({"complete": state.complete, "state": state.current}, state)
    if state.complete:
        details["origin_message"] = f"workflow completed in terminal state {_go(state.current)}"
        return Result(_P, kind, f'workflow is complete (state "{state.current}")', details)
    details["origin_message"] = "workflow has not reached a terminal state"
    return Result(_F, kind, "workflow is not complete", details)


_STATE = Param("state", "str", required=True, doc="the workflow state's name")


class _TurnWorkflow(Assertion):
    """Reads the workflow state after the checked turn."""

    __slots__ = ()
    level = "turn"
    evidence_at = "/workflow"

    def _state(self, subject: object) -> WorkflowState | None:
        return turn_of(subject).workflow


class _ConversationWorkflow(Assertion):
    """Reads the workflow state of the whole conversation."""

    __slots__ = ()
    level = "conversation"
    evidence_at = "/workflow"

    def _state(self, subject: object) -> WorkflowState | None:
        from chatassert._models import as_conversation

        return conversation_workflow(as_conversation(subject))


class _StateIsMixin(Assertion):
    __slots__ = ("state",)
    params = (_STATE,)
    state: str

    def __init__(self, state: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(state, str) or not state.strip():
            raise ValueError(f"{self.kind} needs a non-empty state name")
        self._set("state", state)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.kind} {self.state!r}"


@register
class StateIs(_StateIsMixin, _TurnWorkflow):
    """Passes when the workflow is in `state` after the turn (promptkit `state_is`).

    Example:
        >>> from chatassert import StateIs, Turn, WorkflowState
        >>> StateIs("intake").check(Turn(workflow=WorkflowState(current="processing"))).reason
        'expected state "intake" but workflow is in state "processing"'
    """

    __slots__ = ()
    kind = "state_is"
    dialect_names = {"promptkit.turn": "state_is"}

    def _check(self, subject: object) -> Result:
        return _state_is(self.kind, self.state, self._state(subject))


@register
class TransitionedTo(_StateIsMixin, _TurnWorkflow):
    """Passes when a valid transition so far went to `state` (promptkit `transitioned_to`).

    Example:
        >>> from chatassert import TransitionedTo, Turn, WorkflowState
        >>> turn = Turn(workflow=WorkflowState(current="intake"))
        >>> TransitionedTo("specialist").check(turn).reason
        'workflow never transitioned to state "specialist"'
    """

    __slots__ = ()
    kind = "transitioned_to"
    dialect_names = {"promptkit.turn": "transitioned_to"}

    def _check(self, subject: object) -> Result:
        return _transitioned_to(self.kind, self.state, self._state(subject))


@register
class WorkflowComplete(_TurnWorkflow):
    """Passes when the workflow is in a terminal state after the turn (`workflow_complete`).

    Example:
        >>> from chatassert import Turn, WorkflowComplete, WorkflowState
        >>> turn = Turn(workflow=WorkflowState(current="closed", complete=True))
        >>> WorkflowComplete().check(turn).passed
        True
        >>> WorkflowComplete().check(Turn(text="hi")).reason
        'no workflow state available'
    """

    __slots__ = ()
    kind = "workflow_complete"
    dialect_names = {"promptkit.turn": "workflow_complete"}

    def _check(self, subject: object) -> Result:
        return _complete(self.kind, self._state(subject))


@register
class ConversationStateIs(_StateIsMixin, _ConversationWorkflow):
    """Passes when the conversation's workflow ends in `state` (conversation-level `state_is`).

    Example:
        >>> from chatassert import Conversation, WorkflowState
        >>> from chatassert.promptkit import ConversationStateIs
        >>> conv = Conversation(workflow=WorkflowState(current="closed", complete=True))
        >>> ConversationStateIs("closed").check(conv).passed
        True
    """

    __slots__ = ()
    kind = "conversation_state_is"
    dialect_names = {"promptkit.conversation": "state_is"}

    def _check(self, subject: object) -> Result:
        return _state_is(self.kind, self.state, self._state(subject))


@register
class ConversationTransitionedTo(_StateIsMixin, _ConversationWorkflow):
    """Passes when some valid transition of the conversation went to `state`.

    Example:
        >>> from chatassert import Conversation, WorkflowState
        >>> from chatassert.promptkit import ConversationTransitionedTo
        >>> from chatassert import WorkflowTransition
        >>> state = WorkflowState(current="closed", transitions=[
        ...     WorkflowTransition.model_validate({"from": "intake", "to": "closed",
        ...                                        "event": "Resolve"})])
        >>> r = ConversationTransitionedTo("closed").check(Conversation(workflow=state))
        >>> r.passed, r.details["transition"]["event"]
        (True, 'Resolve')
    """

    __slots__ = ()
    kind = "conversation_transitioned_to"
    dialect_names = {"promptkit.conversation": "transitioned_to"}

    def _check(self, subject: object) -> Result:
        return _transitioned_to(self.kind, self.state, self._state(subject))


@register
class ConversationWorkflowComplete(_ConversationWorkflow):
    """Passes when the conversation's workflow ended in a terminal state.

    Example:
        >>> from chatassert import Conversation, WorkflowState
        >>> from chatassert.promptkit import ConversationWorkflowComplete
        >>> r = ConversationWorkflowComplete().check(
        ...     Conversation(workflow=WorkflowState(current="intake")))
        >>> r.reason, r.details["complete"]
        ('workflow is not complete', False)
    """

    __slots__ = ()
    kind = "conversation_workflow_complete"
    dialect_names = {"promptkit.conversation": "workflow_complete"}

    def _check(self, subject: object) -> Result:
        return _complete(self.kind, self._state(subject))
