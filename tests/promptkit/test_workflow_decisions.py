"""The decisions of the workflow definition and checks, pinned as whole records.

What is pinned comes from docs/promptkit.md ("Workflows") and the docstrings of
`chatassert._workflow`: a state with no way out is terminal; an event the current state does
not accept is kept as an invalid transition (`valid: false` with an `error`) and the workflow
stays where it was; every workflow assertion lists those under `invalid_transitions`; without
workflow information a workflow assertion is an `error` ("no workflow state available").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from chatassert import (
    Conversation,
    StateIs,
    Status,
    TransitionedTo,
    Turn,
    Workflow,
    WorkflowComplete,
    WorkflowState,
    WorkflowTransition,
)
from chatassert.promptkit import (
    ConversationStateIs,
    ConversationTransitionedTo,
    ConversationWorkflowComplete,
)

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR
T = "workflow__transition"
FLOW = Workflow.from_dict(
    {
        "entry": "intake",
        "states": {
            "intake": {"on_event": {"Escalate": "specialist", "Resolve": "closed"}},
            "specialist": {"on_event": {"Resolve": "closed"}},
            "closed": {},
        },
    }
)
NO_STATE = {
    "error": "no_workflow",
    "hint": "give the scenario a 'workflow:' definition or run with --workflow FILE",
}


def _call(arguments: str, name: str = T) -> dict[str, Any]:
    return {"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}


def _conversation(*calls: str, name: str = T) -> Conversation:
    """One turn per call: the user speaks, the assistant calls the tool with those arguments."""
    messages: list[dict[str, Any]] = []
    for arguments in calls:
        messages += [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [_call(arguments, name)]},
            {"role": "tool", "tool_call_id": "c", "content": "ok"},
        ]
    return Conversation(messages=messages)


def _event(name: Any) -> str:
    return json.dumps({"event": name, "context": {}})


def _transitions(conv: Conversation) -> list[dict[str, Any]]:
    assert conv.workflow is not None
    return [t.model_dump(by_alias=True) for t in conv.workflow.transitions]


# -- derivation --------------------------------------------------------------------------------


def test_every_kind_of_bad_call_is_an_invalid_transition_that_stays_put() -> None:
    """Workflow.step: bad JSON, no event, a non-string event and an unaccepted event."""
    conv = FLOW.apply(
        _conversation(
            "{oops",
            json.dumps({"context": {}}),
            _event(""),
            _event(3),
            _event("Resolve"),
            _event("Escalate"),
        )
    )
    assert [t.workflow.current for t in conv.turns if t.workflow] == ["intake"] * 4 + ["closed"] * 2
    assert _transitions(conv) == [
        {
            "from": "intake",
            "to": "intake",
            "event": None,
            "turn_index": 0,
            "valid": False,
            "error": f"{T} was called with arguments that are not valid JSON",
        },
        {
            "from": "intake",
            "to": "intake",
            "event": None,
            "turn_index": 1,
            "valid": False,
            "error": f"{T} was called without an 'event'",
        },
        {
            "from": "intake",
            "to": "intake",
            "event": None,
            "turn_index": 2,
            "valid": False,
            "error": f"{T} was called without an 'event'",
        },
        {
            "from": "intake",
            "to": "intake",
            "event": None,
            "turn_index": 3,
            "valid": False,
            "error": f"{T} was called without an 'event'",
        },
        {
            "from": "intake",
            "to": "closed",
            "event": "Resolve",
            "turn_index": 4,
            "valid": True,
            "error": None,
        },
        {
            "from": "closed",
            "to": "closed",
            "event": "Escalate",
            "turn_index": 5,
            "valid": False,
            "error": "state 'closed' does not accept event 'Escalate' "
            "(it accepts nothing: it is terminal)",
        },
    ]


def test_an_unaccepted_event_names_every_event_the_state_accepts() -> None:
    conv = FLOW.apply(_conversation(_event("Close")))
    assert _transitions(conv)[0]["error"] == (
        "state 'intake' does not accept event 'Close' (it accepts Escalate, Resolve)"
    )


def test_a_conversation_without_turns_is_in_the_entry_state() -> None:
    """Workflow.apply: the entry state for a conversation without turns."""
    assert FLOW.apply(Conversation()).workflow == WorkflowState(current="intake", complete=False)
    done = Workflow("done", {"done": {}})
    assert done.apply(Conversation()).workflow == WorkflowState(current="done", complete=True)


def test_the_pack_can_name_its_own_transition_tool() -> None:
    """Workflow attribute `tool`: the tool whose calls move the workflow."""
    flow = Workflow.from_dict(
        {"entry": "a", "states": {"a": {"on_event": {"Go": "b"}}, "b": {}}, "tool": "move"}
    )
    assert flow.tool == "move"
    assert flow.apply(_conversation(_event("Go"), name="move")).workflow.current == "b"  # type: ignore[union-attr]
    assert flow.apply(_conversation(_event("Go"))).workflow.current == "a"  # type: ignore[union-attr]


# -- definitions -------------------------------------------------------------------------------


def test_from_dict_reads_a_pack_a_section_and_null_states() -> None:
    """Workflow.from_dict: a pack's `workflow` section or a whole pack; a null state is terminal."""
    section = {"entry": "a", "states": {"a": {"on_event": {"Go": "b"}}, "b": None, "c": {}}}
    flow = Workflow.from_dict({"workflow": section})
    assert flow.to_dict() == {
        "entry": "a",
        "states": {"a": {"on_event": {"Go": "b"}}, "b": {"on_event": {}}, "c": {"on_event": {}}},
    }
    assert flow.terminal_states == ("b", "c")
    assert flow.tool == T
    # a section that has its own `states` is the section, even beside a `workflow` key
    beside = Workflow.from_dict({**section, "workflow": {"entry": "x", "states": {"x": {}}}})
    assert beside.entry == "a"


def test_a_workflow_keeps_its_own_copy_of_the_states() -> None:
    """Workflow is a frozen value: changing the mapping it was built from does not change it."""
    states: dict[str, dict[str, str]] = {"a": {"Go": "b"}, "b": {}}
    flow = Workflow("a", states)
    states["a"]["Go"] = "a"
    states["b"]["Back"] = "a"
    assert flow.states == {"a": {"Go": "b"}, "b": {}}
    assert flow.terminal_states == ("b",)


def _bad(name: str, build: Callable[[], Any], message: str) -> Any:
    return pytest.param(build, message, id=name)


BAD_DEFINITIONS = [
    _bad(
        "entry-empty",
        lambda: Workflow("", {"a": {}}),
        "a workflow needs a non-empty entry state, got ''",
    ),
    _bad(
        "entry-not-text",
        lambda: Workflow(3, {"a": {}}),
        "a workflow needs a non-empty entry state, got 3",
    ),  # type: ignore[arg-type]
    _bad("no-states", lambda: Workflow("a", {}), "a workflow needs at least one state"),
    _bad(
        "states-not-mapping",
        lambda: Workflow("a", [("a", {})]),
        "a workflow needs at least one state",
    ),  # type: ignore[arg-type]
    _bad(
        "state-name-empty",
        lambda: Workflow("a", {"": {}}),
        "workflow state names must be non-empty strings, got ''",
    ),
    _bad(
        "state-name-not-text",
        lambda: Workflow("a", {3: {}}),
        "workflow state names must be non-empty strings, got 3",
    ),  # type: ignore[dict-item]
    _bad(
        "events-not-mapping",
        lambda: Workflow("a", {"a": ["Go"]}),
        "the events of state 'a' must be a mapping",
    ),  # type: ignore[dict-item]
    _bad(
        "target-not-text",
        lambda: Workflow("a", {"a": {"Go": 3}}),
        "state 'a': event 'Go' must map to a state name",
    ),  # type: ignore[dict-item]
    _bad(
        "event-not-text",
        lambda: Workflow("a", {"a": {3: "a"}}),
        "state 'a': event 3 must map to a state name",
    ),  # type: ignore[dict-item]
    _bad(
        "every-problem-entry-first",
        lambda: Workflow("x", {"a": {"Go": "b", "Up": "c"}, "d": {}}),
        "the entry state 'x' is not one of the states; state 'a': event 'Go' goes to unknown "
        "state 'b'; state 'a': event 'Up' goes to unknown state 'c' (states: a, d)",
    ),
    _bad(
        "dict-not-mapping", lambda: Workflow.from_dict([]), "a workflow must be a mapping, got list"
    ),  # type: ignore[arg-type]
    _bad(
        "dict-no-states",
        lambda: Workflow.from_dict({"entry": "a"}),
        "a workflow needs 'states': a mapping of state name to its events",
    ),
    _bad(
        "dict-state-not-mapping",
        lambda: Workflow.from_dict({"entry": "a", "states": {"a": "x"}}),
        "state 'a' must be a mapping with 'on_event'",
    ),
    _bad(
        "dict-on-event-not-mapping",
        lambda: Workflow.from_dict({"entry": "a", "states": {"a": {"on_event": ["b"]}}}),
        "state 'a': 'on_event' must map events to states",
    ),
    _bad(
        "dict-no-entry",
        lambda: Workflow.from_dict({"states": {"a": {}}}),
        "a workflow needs 'entry': the name of its first state",
    ),
    _bad(
        "dict-after-a-null-state",
        lambda: Workflow.from_dict(
            {"entry": "a", "states": {"a": None, "b": {"on_event": {"Go": "z"}}}}
        ),
        "state 'b': event 'Go' goes to unknown state 'z' (states: a, b)",
    ),
    _bad("state-is-blank", lambda: StateIs("  "), "state_is needs a non-empty state name"),
    _bad(
        "state-is-not-text",
        lambda: ConversationTransitionedTo(3),
        "conversation_transitioned_to needs a non-empty state name",
    ),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("build", "message"), BAD_DEFINITIONS)
def test_a_bad_definition_is_a_value_error_naming_the_problem(
    build: Callable[[], Any], message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        build()
    assert str(caught.value) == message


# -- the checks --------------------------------------------------------------------------------

BAD_MOVE = {
    "from": "intake",
    "to": "intake",
    "event": "Close",
    "turn_index": 1,
    "valid": False,
    "error": "state 'intake' does not accept event 'Close' (it accepts Escalate, Resolve)",
}
GOOD_MOVE = {"from": "intake", "to": "closed", "event": "Resolve", "turn_index": 2, "valid": True}
CLOSED = WorkflowState(
    current="closed",
    complete=True,
    transitions=[
        WorkflowTransition.model_validate(BAD_MOVE),
        WorkflowTransition.model_validate(GOOD_MOVE),
    ],
)
OPEN = WorkflowState(current="intake")


def _rec(name: str, check: Any, subject: Any, status: Status, reason: str, details: Any) -> Any:
    return pytest.param(check, subject, status, reason, details, id=name)


RECORDS = [
    _rec(
        "state-is-pass",
        StateIs("closed"),
        Turn(workflow=CLOSED),
        P,
        'workflow is in state "closed"',
        {
            "expected": "closed",
            "actual": "closed",
            "invalid_transitions": [BAD_MOVE],
            "origin_message": 'workflow is in expected state "closed"',
        },
    ),
    _rec(
        "state-is-fail",
        StateIs("closed"),
        Turn(workflow=OPEN),
        F,
        'expected state "closed" but workflow is in state "intake"',
        {
            "expected": "closed",
            "actual": "intake",
            "origin_message": 'expected state "closed" but got "intake"',  # G16
        },
    ),
    _rec(
        "state-is-none",
        StateIs("closed"),
        Turn(text="hi"),
        E,
        "no workflow state available",
        NO_STATE,
    ),
    _rec(
        "transitioned-pass",
        TransitionedTo("closed"),
        Turn(workflow=CLOSED),
        P,
        'workflow transitioned to state "closed"',
        {
            "transition": GOOD_MOVE,
            "origin_message": 'workflow transitioned to "closed"',
            "invalid_transitions": [BAD_MOVE],
        },
    ),
    _rec(
        "transitioned-not-by-an-invalid-move",
        TransitionedTo("intake"),
        Turn(workflow=CLOSED),
        F,
        'workflow never transitioned to state "intake"',
        {
            "expected_state": "intake",
            "target": "intake",  # G16: PromptKit's key beside the document's
            "transitions": [BAD_MOVE, GOOD_MOVE],
            "origin_message": 'no transition to state "intake" found',
            "invalid_transitions": [BAD_MOVE],
        },
    ),
    _rec(
        "transitioned-none",
        TransitionedTo("closed"),
        Turn(text="hi"),
        E,
        "no workflow state available",
        NO_STATE,
    ),
    _rec(
        "complete-pass",
        WorkflowComplete(),
        Turn(workflow=CLOSED),
        P,
        'workflow is complete (state "closed")',
        {
            "complete": True,
            "state": "closed",
            "invalid_transitions": [BAD_MOVE],
            "origin_message": 'workflow completed in terminal state "closed"',
        },
    ),
    _rec(
        "complete-fail",
        WorkflowComplete(),
        Turn(workflow=OPEN),
        F,
        "workflow is not complete",
        {
            "complete": False,
            "state": "intake",
            "origin_message": "workflow has not reached a terminal state",
        },
    ),
    _rec(
        "complete-none",
        WorkflowComplete(),
        Turn(text="hi"),
        E,
        "no workflow state available",
        NO_STATE,
    ),
    _rec(
        "conv-state-is",
        ConversationStateIs("intake"),
        Conversation(workflow=CLOSED),
        F,
        'expected state "intake" but workflow is in state "closed"',
        {
            "expected": "intake",
            "actual": "closed",
            "invalid_transitions": [BAD_MOVE],
            "origin_message": 'expected state "intake" but got "closed"',
        },
    ),
    _rec(
        "conv-state-is-none",
        ConversationStateIs("intake"),
        Conversation(),
        E,
        "no workflow state available",
        NO_STATE,
    ),
    _rec(
        "conv-transitioned",
        ConversationTransitionedTo("closed"),
        Conversation(workflow=CLOSED),
        P,
        'workflow transitioned to state "closed"',
        {
            "transition": GOOD_MOVE,
            "origin_message": 'workflow transitioned to "closed"',
            "invalid_transitions": [BAD_MOVE],
        },
    ),
    _rec(
        "conv-transitioned-none",
        ConversationTransitionedTo("closed"),
        Conversation(),
        E,
        "no workflow state available",
        NO_STATE,
    ),
    _rec(
        "conv-complete",
        ConversationWorkflowComplete(),
        Conversation(workflow=OPEN),
        F,
        "workflow is not complete",
        {
            "complete": False,
            "state": "intake",
            "origin_message": "workflow has not reached a terminal state",
        },
    ),
    _rec(
        "conv-complete-none",
        ConversationWorkflowComplete(),
        Conversation(),
        E,
        "no workflow state available",
        NO_STATE,
    ),
]


@pytest.mark.parametrize(("check", "subject", "status", "reason", "details"), RECORDS)
def test_a_workflow_check_decides_the_documented_record(
    check: Any, subject: Any, status: Status, reason: str, details: dict[str, Any]
) -> None:
    """docs/promptkit.md, Workflows: the status, reason, kind and details of each outcome."""
    result = check.check(subject)
    assert (result.status, result.name, result.reason) == (status, check.kind, reason)
    assert dict(result.details) == details


def test_origin_messages_quote_as_go_does_unicode_kept_and_no_state_empty() -> None:
    # SEMANTICS G16: details.origin_message is PromptKit's wording, names quoted as Go's %q
    # quotes them (printable Unicode kept as it is); an unknown current state reads as ""
    french = StateIs("clôturé").check(Turn(workflow=WorkflowState(current="ouvert")))
    assert french.details["origin_message"] == 'expected state "clôturé" but got "ouvert"'
    unknown = StateIs("closed").check(Turn(workflow=WorkflowState(current=None)))
    assert unknown.details["origin_message"] == 'expected state "closed" but got ""'
