"""What a monitor was fed, kept as the readers keep a log: normalised messages, then a
`Conversation` built from them by the readers' own builder (`transcripts._build`).

An event is one of the subject model's types (`Message`, `ToolCall`, `ToolResult`,
`GuardrailEvent`, `WorkflowTransition`), `Metadata` (the facts of one model call, or of the
whole run), or a raw message dict in OpenAI chat, Anthropic Messages or OpenAI Responses form,
normalised by that format's reader. Anything else, or a malformed dict, is a `MonitorError`
that names the event (`event 7 (a dict): ...`).

Tests: tests/monitor/test_events.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from chatassert._errors import MonitorError, TranscriptError
from chatassert._models import (
    Conversation,
    GuardrailEvent,
    Message,
    ToolCall,
    ToolResult,
    WorkflowState,
    WorkflowTransition,
)
from chatassert._result import shorten

__all__ = ["EventLog", "LoggedCall", "Mark", "Metadata"]


@dataclass(frozen=True)
class Metadata:
    """Run metadata fed to a monitor: the facts of one model call, or of the whole run.

    With `scope="turn"` (the default) the mapping is one model call's facts (`input_tokens`,
    `output_tokens`, `cost`, `latency_ms`, `model`, ...), merged into the current turn's
    metadata as the log readers merge them: numbers that add up are summed, the call is
    counted in `model_calls`. With `scope="conversation"` its keys are set on the
    conversation's own metadata.

    Example:
        >>> Metadata({"cost": 0.002, "output_tokens": 40}).scope
        'turn'
    """

    facts: Mapping[str, Any]
    scope: Literal["turn", "conversation"] = "turn"

    def __post_init__(self) -> None:
        if not isinstance(self.facts, Mapping):
            raise TypeError(f"Metadata takes a mapping, got {type(self.facts).__name__}")
        if self.scope not in ("turn", "conversation"):
            raise ValueError(f"Metadata scope must be 'turn' or 'conversation', got {self.scope!r}")


@dataclass(frozen=True, slots=True)
class LoggedCall:
    """A call as the log has it: the call, its turn, and its index among the turn's calls.

    Attributes:
        number: Its index among every call of the log.
        message: The index of the assistant message that made it (calls made one after the
            other join one message).
    """

    call: ToolCall
    turn: int
    index: int
    number: int = 0
    message: int = 0

    @property
    def location(self) -> str:
        """Where the call is in the conversation: `turns[i].tool_calls[j]`."""
        return f"turns[{self.turn}].tool_calls[{self.index}]"


@dataclass(frozen=True, slots=True)
class Mark:
    """Where an `EventLog` was, to come back to (`EventLog.undo`)."""

    messages: int
    users: int
    joined: int  # the calls of the last message
    calls_in_turn: int
    calls: int
    preamble: tuple[bool, bool]


@dataclass
class EventLog:
    """The events so far as normalised messages, and the conversation they make."""

    messages: list[Any] = field(default_factory=list)  # transcripts._build.Msg
    guardrails: dict[int, list[GuardrailEvent]] = field(default_factory=dict)
    turn_facts: dict[int, list[Mapping[str, Any]]] = field(default_factory=dict)
    run_facts: dict[str, Any] = field(default_factory=dict)
    transitions: list[tuple[int, WorkflowTransition]] = field(default_factory=list)
    calls: list[LoggedCall] = field(default_factory=list)
    results: list[tuple[int | None, ToolResult]] = field(default_factory=list)
    """The results the last message recorded, each with the number of the call it pairs with
    for good, or None when that is not settled yet (no id, an id no call of the turn has
    yet): a fold that reads results takes those from the conversation instead."""
    events: int = 0
    _users: int = 0
    _preamble_speaks: bool = False  # a message before the first user's that is not a prompt
    _preamble: bool = False
    _calls_in_turn: int = 0
    _ids: dict[str, list[int]] = field(default_factory=dict)  # the turn's calls by id
    _named: dict[str, int] = field(default_factory=dict)  # the turn's results by call id
    _built: Conversation | None = None

    # -- where we are ----------------------------------------------------------------------

    @property
    def turns(self) -> int:
        """How many turns the messages so far make (as `split` groups them)."""
        if not self._preamble:
            return self._users
        if self._users == 0 or self._preamble_speaks:
            return self._users + 1
        return self._users

    @property
    def calls_in_turn(self) -> int:
        """How many calls the current turn has made."""
        return self._calls_in_turn

    @property
    def turn(self) -> int:
        """The index of the current (last) turn, -1 before any message."""
        return self.turns - 1

    def user_turn(self, index: int) -> int | None:
        """The index among the turns of the turn the `index`-th user message started (the
        `index`-th of the turns a user started, as a suite case pairs its turns with them),
        None while there are not that many user messages.

        Each user message starts a turn; the messages before the first one make a turn of
        their own when one of them is not a prompt (which no user started), and join the
        first user's turn otherwise.
        """
        if not 0 <= index < self._users:
            return None
        return index + 1 if self._preamble_speaks else index

    # -- recording -------------------------------------------------------------------------

    def add(self, msg: Any) -> list[LoggedCall]:
        """Record one normalised message (`Msg`); return the calls it made, located."""
        from chatassert.transcripts._build import Msg

        assert isinstance(msg, Msg)
        self._built = None
        role = msg.role
        if role == "user":
            before = self.turns
            self._users += 1
            if self.turns != before:
                self._calls_in_turn = 0
                self._ids, self._named = {}, {}
        elif self._users == 0:
            self._preamble = True
            if role not in ("system", "developer"):
                self._preamble_speaks = True
        if (
            role == "assistant"
            and msg.tool_calls
            and not msg.content
            and self.messages
            and self.messages[-1].role == "assistant"
            and not self.messages[-1].content
            and self.messages[-1].tool_calls
        ):  # consecutive calls join one assistant message, as the Responses reader joins them
            self.messages[-1].tool_calls.extend(msg.tool_calls)
            self.messages[-1].media.extend(msg.media)
        else:
            self.messages.append(msg)
        out = []
        at = len(self.messages) - 1
        for call in msg.tool_calls if role == "assistant" else ():
            located = LoggedCall(call, self.turn, self._calls_in_turn, len(self.calls), at)
            self._calls_in_turn += 1
            self.calls.append(located)
            if call.id is not None:
                self._ids.setdefault(call.id, []).append(located.number)
            out.append(located)
        self.results = [self._paired(msg)] if role == "tool" else []
        return out

    def _paired(self, msg: Any) -> tuple[int | None, ToolResult]:
        """The result of a `tool` message and the call it pairs with for good, if settled.

        A result naming an id pairs with the turn's calls of that id in order
        (`pair_results`), whatever comes later; a result without an id, or naming an id
        none of the turn's calls has yet, may pair differently once more is recorded.
        """
        from chatassert.transcripts._build import _result

        result = _result(msg.content or "", msg.tool_call_id, msg.name, msg.data, msg.is_error)
        rid = msg.tool_call_id
        calls = self._ids.get(rid) if rid is not None else None
        done = self._named.get(rid, 0) if rid is not None else 0
        if rid is None or calls is None or done >= len(calls):
            if rid is not None:
                self._named[rid] = done + 1
            return None, result
        self._named[rid] = done + 1
        return calls[done], result

    def mark(self) -> Mark:
        """Where the log is now, to come back to with `undo` (one message at most since)."""
        last = len(self.messages[-1].tool_calls) if self.messages else 0
        return Mark(
            len(self.messages),
            self._users,
            last,
            self._calls_in_turn,
            len(self.calls),
            (self._preamble, self._preamble_speaks),
        )

    def undo(self, mark: Mark) -> None:
        """Forget what was recorded since `mark` (a call asked about, not made)."""
        self._built = None
        del self.messages[mark.messages :]
        if self.messages:
            del self.messages[-1].tool_calls[mark.joined :]
        self._users = mark.users
        self._calls_in_turn = mark.calls_in_turn
        for located in self.calls[mark.calls :]:
            if located.call.id is not None:
                self._ids[located.call.id].pop()
        del self.calls[mark.calls :]
        self._preamble, self._preamble_speaks = mark.preamble

    def guardrail(self, event: GuardrailEvent, where: str) -> None:
        """Attach a guardrail event to the current turn."""
        if self.turn < 0:
            raise MonitorError(f"{where}: a guardrail event before any message has no turn")
        self._built = None
        self.guardrails.setdefault(self.turn, []).append(event)

    def metadata(self, facts: Metadata, where: str) -> None:
        """Merge model-call facts into the current turn, or run facts into the conversation."""
        self._built = None
        if facts.scope == "conversation":
            self.run_facts.update(facts.facts)
            return
        if self.turn < 0:
            raise MonitorError(
                f"{where}: model-call metadata before any message has no turn (give "
                "Metadata(..., scope='conversation') for the run's own facts)"
            )
        self.turn_facts.setdefault(self.turn, []).append(dict(facts.facts))

    def transition(self, event: WorkflowTransition) -> None:
        """Record a workflow transition, in the current turn."""
        self._built = None
        self.transitions.append((max(self.turn, 0), event))

    # -- the conversation ------------------------------------------------------------------

    def conversation(self) -> Conversation:
        """The conversation of everything recorded (built once per change)."""
        if self._built is None:
            self._built = self._build()
        return self._built

    def _build(self) -> Conversation:
        from chatassert.transcripts._build import _merge_metadata, conversation

        built = conversation(self.messages, metadata=self.run_facts)
        if not (self.guardrails or self.turn_facts or self.transitions):
            return built
        turns = list(built.turns)
        for i, turn in enumerate(turns):
            update: dict[str, Any] = {}
            if i in self.guardrails:
                update["guardrails"] = tuple(self.guardrails[i])
            if i in self.turn_facts:
                merged = dict(turn.metadata)
                for facts in self.turn_facts[i]:
                    _merge_metadata(merged, facts)
                update["metadata"] = merged
            if self.transitions:
                upto = tuple(t for k, t in self.transitions if k <= i)
                if upto:
                    update["workflow"] = WorkflowState(current=upto[-1].to_state, transitions=upto)
            if update:
                turns[i] = turn.model_copy(update=update)
        fields: dict[str, Any] = {"turns": tuple(turns)}
        if self.transitions:
            every = tuple(t for _, t in self.transitions)
            fields["workflow"] = WorkflowState(current=every[-1].to_state, transitions=every)
        return built.model_copy(update=fields)


# -- reading events ----------------------------------------------------------------------------


def describe_event(index: int, event: object) -> str:
    """`event 7 (a dict)`: how errors name an event."""
    return f"event {index} ({a_type(event)})"


def a_type(value: object) -> str:
    """`a dict`, `an int`: the type of `value` with its article."""
    kind = type(value).__name__
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"


def message_of(message: Message) -> Any:
    """The normalised form (`Msg`) of a subject-model `Message`."""
    from chatassert.transcripts._build import Msg

    return Msg(
        role=message.role,
        content=message.content,
        tool_calls=list(message.tool_calls),
        tool_call_id=message.tool_call_id,
        name=message.name,
        media=list(message.media),
    )


def call_of(call: object, where: str) -> ToolCall:
    """A `ToolCall` from a `ToolCall` or a mapping (`{name, arguments, id}`, or the OpenAI
    wire shape `{id, function: {name, arguments}}`, or Anthropic's `tool_use` block)."""
    if isinstance(call, ToolCall):
        return call
    if not isinstance(call, Mapping):
        raise MonitorError(
            f"{where}: a tool call must be a ToolCall or a mapping with a 'name', "
            f"got {type(call).__name__}"
        )
    from chatassert.transcripts._build import tool_call

    fn = call.get("function")
    if isinstance(fn, Mapping):
        name, arguments, call_id = fn.get("name"), fn.get("arguments"), call.get("id")
    elif call.get("type") == "tool_use":
        name, arguments, call_id = call.get("name"), call.get("input"), call.get("id")
    else:
        unknown = sorted(set(call) - {"name", "arguments", "id", "raw_arguments", "type"})
        if unknown:
            raise MonitorError(
                f"{where}: a tool call has the keys name, arguments and id, not {unknown}"
            )
        name, arguments, call_id = call.get("name"), call.get("arguments"), call.get("id")
    if not isinstance(name, str) or not name:
        raise MonitorError(f"{where}: a tool call needs a non-empty 'name', got {name!r}")
    if arguments is not None and not isinstance(arguments, str | Mapping):
        raise MonitorError(
            f"{where}: a tool call's arguments must be a mapping or a JSON string, got "
            f"{type(arguments).__name__}"
        )
    if call_id is not None and not isinstance(call_id, str | int):
        raise MonitorError(f"{where}: a tool call's id must be a string, got {call_id!r}")
    try:
        return tool_call(name, arguments, call_id)
    except (TranscriptError, ValidationError, ValueError, TypeError) as exc:
        raise MonitorError(f"{where}: {exc}") from exc


def result_msg(result: object, where: str) -> Any:
    """The `tool` message (`Msg`) of a `ToolResult` or a mapping of its fields."""
    from chatassert.transcripts._build import Msg

    if isinstance(result, Mapping):
        try:
            result = ToolResult.model_validate(dict(result))
        except ValidationError as exc:
            raise MonitorError(f"{where}: not a tool result: {_first_error(exc)}") from exc
    if not isinstance(result, ToolResult):
        raise MonitorError(
            f"{where}: a tool result must be a ToolResult or a mapping of its fields, "
            f"got {type(result).__name__}"
        )
    return Msg(
        role="tool",
        content=result.content,
        tool_call_id=result.call_id,
        name=result.name,
        is_error=result.is_error,
        data=result.data,
    )


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    place = ".".join(str(p) for p in first.get("loc", ()))
    return f"{place}: {first.get('msg', '')}" if place else str(first.get("msg", ""))


_ANTHROPIC_ONLY = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "document"}
)
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "refusal", "input_image", "input_file"})


def raw_messages(raw: Mapping[str, Any], where: str) -> list[Any]:
    """Normalise a raw message dict with the reader of its format (OpenAI chat, Anthropic
    Messages, or a Responses item); a malformed one is a `MonitorError` naming `where`."""
    from chatassert.transcripts import _anthropic, _openai_chat, _openai_responses

    at = where
    where = "message"
    try:
        if not isinstance(raw, dict):
            raw = dict(raw)
        kind = raw.get("type")
        content = raw.get("content")
        blocks = (
            {b.get("type") for b in content if isinstance(b, dict)}
            if isinstance(content, list)
            else set()
        )
        if (kind is not None and kind != "message") or blocks & _RESPONSES_PARTS:
            out: list[Any] = _openai_responses.items([raw], where)
        elif blocks & _ANTHROPIC_ONLY or kind == "message":
            out = _anthropic.message(raw, where)
        else:
            out = [_openai_chat.message(raw, where)]
    except TranscriptError as exc:
        raise MonitorError(f"{at}: {exc}") from exc
    except (ValidationError, ValueError, TypeError, AttributeError, KeyError) as exc:
        raise MonitorError(f"{at}: not a message this monitor can read: {exc}") from exc
    if not out:
        raise MonitorError(
            f"{at}: {shorten(json.dumps(raw, default=str), 80)} holds no message, call or result"
        )
    return out


def event_kind(msg: Any) -> str:
    """The kind of event (`Early.reads`) a normalised message is."""
    if msg.role == "user":
        return "user"
    if msg.role == "tool":
        return "result"
    return "assistant"


def transition_of(event: WorkflowTransition) -> WorkflowTransition:
    """The transition as fed (the subject model's own type)."""
    return event


def known_kinds() -> tuple[type, ...]:
    """The subject-model types a monitor is fed."""
    return (Message, ToolCall, ToolResult, GuardrailEvent, WorkflowTransition, Metadata)
