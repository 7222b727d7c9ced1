"""Building `Conversation`s quickly from messages that adapters have already normalised.

Every adapter translates its log shape into a list of `Msg` (role, text, tool calls, tool-result
fields, media parts, per-message metadata) and hands it to `conversation()`, which splits turns
(G1), derives each turn's text, tool calls, tool results (G2) and media exactly as
`Turn(messages=...)` does, and constructs the frozen models without re-validating what the
adapter has already checked.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from chatassert._agents import HANDOFF_PREFIX, handoff_target, is_handoff
from chatassert._errors import TranscriptError
from chatassert._models import (
    UNRECORDED_ARGUMENTS,
    Conversation,
    GuardrailEvent,
    Media,
    Message,
    ToolCall,
    ToolResult,
    Turn,
    media_of_part,
    names_of_results,
    pair_results,
    parse_arguments,
)
from chatassert._result import shorten

__all__ = [
    "MAX_COUNT",
    "Exchanges",
    "Msg",
    "SpanWalk",
    "call_metadata",
    "conversation",
    "count",
    "described",
    "duration",
    "fold_calls",
    "guarded",
    "iso_latency",
    "make_conversation",
    "make_message",
    "make_turn",
    "match_tool_runs",
    "media_from_part",
    "media_parts",
    "merge_exchange",
    "message_agent",
    "number",
    "parent",
    "record_metadata",
    "split",
    "text_of",
    "tool_call",
    "unrecorded_call",
]


_SET = object.__setattr__
# pydantic's slots, set through their descriptors: a name lookup less per write than
# `object.__setattr__`, on the path that builds every message of a log
_SET_FIELDS_SET = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__


def _new(cls: type[Any], values: dict[str, Any]) -> Any:
    """Construct a pydantic model from complete, already-checked field values.

    Like `model_construct`, without its per-call overhead: the adapters build millions of
    messages from logs whose shape they have checked themselves.
    """
    obj = object.__new__(cls)
    _SET(obj, "__dict__", values)
    _SET_FIELDS_SET(obj, set(values))
    _SET_EXTRA(obj, None)
    _SET_PRIVATE(obj, None)
    return obj


@dataclass(slots=True)
class Msg:
    """One normalised message.

    Attributes:
        role: `system`, `developer`, `user`, `assistant` or `tool`.
        content: The message text (None when it has none).
        tool_calls: The calls an assistant message makes.
        tool_call_id: For a `tool` message, the call it answers.
        name: For a `tool` message, the tool's name when the log gives it.
        is_error: For a `tool` message, whether the tool reported an error.
        data: For a `tool` message, the structured result when the log gives one.
        media: The message's images, audio and video (see `media_from_part`).
        metadata: Facts about the model call that produced this message (latency, tokens, ...),
            merged into its turn's metadata.
        agent: The agent the log says is active from this message on (it wrote the message, or
            was handed the conversation), with the place in the record that says so.
        unrecorded: For an assistant message whose text the log did not record (content
            capture off, a span that keeps only the response's id): why, and how to record
            it. A turn with no other text then has `Turn.unrecorded["text"]`, and its text
            checks are errors with this reason.
        unrecorded_calls: For an assistant message whose tool calls the log did not record
            (the same: a model call's whole output left out): why. A turn with no calls from
            elsewhere (tool spans) then has `Turn.unrecorded["tool_calls"]`, and its checks of
            calls are errors with this reason.
    """

    role: str
    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    data: Any = None
    metadata: dict[str, Any] | None = None
    media: list[Media] = field(default_factory=list)
    agent: tuple[str, str] | None = None
    unrecorded: str | None = None
    unrecorded_calls: str | None = None


def media_from_part(part: object, role: str = "assistant", where: str = "") -> Media | None:
    """The `Media` of one content part of a log, or None when the part is not media.

    Reads OpenAI chat `image_url` / `input_audio` parts, Responses `input_image` /
    `input_audio`, Anthropic `image` blocks and PromptKit's `{type: image|audio|video,
    media: {...}}` parts (see `chatassert._models.media_of_part`). `role` is the role of the
    message holding the part; `where` is the part's place in the record, for messages.

    Raises:
        TranscriptError: naming `where`, for a malformed media part.

    Example:
        >>> media_from_part({"type": "video", "media": {"url": "https://x/clip.mp4",
        ...                  "mime_type": "video/mp4", "width": 1920, "height": 1080}}).height
        1080
        >>> media_from_part({"type": "image_url", "image_url": 5}, where="content[0]")
        Traceback (most recent call last):
        ...
        chatassert._errors.TranscriptError: content[0]: an image_url part's URL must be a str...
    """
    try:
        return media_of_part(part, role)
    except ValueError as exc:
        raise TranscriptError(_at(where, str(exc))) from None


def media_parts(parts: object, role: str, where: str = "") -> list[Media]:
    """The media of a list of content parts (nothing for a string or None), in order."""
    if not isinstance(parts, list):
        return []
    return [
        m
        for i, part in enumerate(parts)
        if (m := media_from_part(part, role, f"{where}[{i}]")) is not None
    ]


def tool_call(name: object, arguments: object, call_id: object = None) -> ToolCall:
    """Build a `ToolCall` from raw log values (arguments as a mapping or a JSON string)."""
    if not isinstance(name, str):
        raise TranscriptError(f"a tool call has no name (got {name!r})")
    args, raw, error = parse_arguments(arguments)
    fields: dict[str, Any] = {
        "name": name,
        "arguments": args,
        "id": None if call_id is None else str(call_id),
        "raw_arguments": raw,
        "arguments_error": error,
    }
    return _new(ToolCall, fields)  # type: ignore[no-any-return]


def unrecorded_call(name: object, call_id: object, why: str) -> ToolCall:
    """A call whose arguments the log did not record: `why` (and how to record them) is its
    `arguments_error`, so every check of its arguments is an error with that reason, while
    checks of its name and order still read it.

    Example:
        >>> call = unrecorded_call("search", "c1", "content capture was off")
        >>> call.arguments, call.arguments_error
        ({}, 'the log did not record the arguments: content capture was off')
    """
    call = tool_call(name, None, call_id)
    call.__dict__["arguments_error"] = f"{UNRECORDED_ARGUMENTS}: {why}"
    return call


def number(value: object) -> float | int | None:
    """Return `value` if it is a number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


MAX_COUNT = 2**63 - 1
"""The largest token count, duration or amount read from a log (a signed 64-bit integer's
maximum): sums and products of such numbers never overflow a float."""

_JSON_KINDS = {dict: "an object", list: "a list", type(None): "null"}


def described(value: object, width: int = 40) -> str:
    """Describe a JSON value for a message: short values as JSON, containers by their kind.

    Example:
        >>> described(float("nan")), described([1]), described("12"), described(10**400)
        ('NaN', 'a list', '"12"', 'an integer of 401 digits')
    """
    kind = _JSON_KINDS.get(type(value))
    if kind is not None:
        return kind
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    return shorten(json.dumps(value, ensure_ascii=False), width)


def list_at(value: object, where: str) -> list[Any]:
    """The list a record holds at `where`: `[]` when absent, an error naming `where` when it is
    not a list."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TranscriptError(f"{where} must be a list, got {described(value)}")
    return value


def _bounded(value: object, whole: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and (value != value or (whole and not value.is_integer())):
        return False  # NaN, or a fraction where a whole number is expected
    return 0 <= value <= MAX_COUNT


def count(value: object, field: str) -> int | float | None:
    """Read a token count: None when absent (`null`), else a whole number from 0 to `MAX_COUNT`.

    Raises:
        TranscriptError: naming `field`, for anything else (a negative or fractional number,
            NaN, a number too big, a string, a list...).
    """
    if value is None or _bounded(value, whole=True):
        return value  # type: ignore[return-value]
    raise TranscriptError(
        f"{field} must be a number of tokens (a whole number from 0 to 2**63 - 1), "
        f"got {described(value)}"
    )


def duration(value: object, field: str, what: str = "a duration") -> int | float | None:
    """Read a duration (or, with `what`, another amount) from a conventional metadata key.

    Such keys (`latency_ms`, `cost`, ...) belong to no vendor's schema, so a value that is not
    a number at all (a string, an object) is some other convention's and is read as absent;
    a number must be from 0 to `MAX_COUNT`.

    Raises:
        TranscriptError: naming `field`, for a negative number, NaN or a number too big.
    """
    if number(value) is None:
        return None
    if _bounded(value, whole=False):
        return value  # type: ignore[return-value]
    raise TranscriptError(
        f"{field} must be {what} (a number from 0 to 2**63 - 1), got {described(value)}"
    )


_SUMMED = ("input_tokens", "output_tokens", "total_tokens", "latency_ms", "cost")
"""The facts of a turn that are the sum of its model calls'."""

_LAST = ("finish_reason", "stop_reason")
"""The facts of a turn that are its last model call's: why its answer ended (a first call
that stopped for tool calls does not end the turn). A last call that logs none leaves the
turn without one."""


def _merge_metadata(target: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge a model call's metadata into a turn's, the calls in order: numbers that add up
    are summed (`_SUMMED`), the finish reason is the last call's (`_LAST`), every other fact
    is the first call's that gives it (`model`, `span_id`); the call is counted in
    `model_calls`."""
    for key in _LAST:
        if key not in extra:
            target.pop(key, None)
    for key, value in extra.items():
        if key in _SUMMED and number(value) is not None and number(target.get(key)) is not None:
            target[key] = target[key] + value
        elif key in _LAST:
            target[key] = value
        else:
            target.setdefault(key, value)
    target["model_calls"] = int(target.get("model_calls", 0)) + 1


def make_message(
    role: str,
    content: str | None,
    tool_calls: tuple[ToolCall, ...] = (),
    tool_call_id: str | None = None,
    name: str | None = None,
    media: tuple[Media, ...] = (),
) -> Message:
    """Build a `Message` from already-normalised values."""
    return _new(  # type: ignore[no-any-return]
        Message,
        {
            "role": role,
            "content": content,
            "tool_calls": tool_calls,
            "tool_call_id": tool_call_id,
            "name": name,
            "media": media,
        },
    )


def _message(msg: Msg) -> Message:
    return make_message(
        msg.role,
        msg.content,
        tuple(msg.tool_calls),
        msg.tool_call_id,
        msg.name,
        tuple(msg.media),
    )


def _turn(group: Sequence[Msg], agent: tuple[str, str] | None = None) -> Turn:
    input_text: str | None = None
    text = ""
    calls: list[ToolCall] = []
    outputs: list[Msg] = []
    media: list[Media] = []
    metadata: dict[str, Any] = {}
    unrecorded: str | None = None
    unrecorded_calls: str | None = None
    for msg in group:
        if msg.media:
            media.extend(msg.media)
        role = msg.role
        if role == "user":
            if input_text is None:
                input_text = msg.content
        elif role == "assistant":
            if msg.content:
                text = msg.content
            elif msg.unrecorded is not None:
                unrecorded = msg.unrecorded
            if msg.tool_calls:
                calls.extend(msg.tool_calls)
            elif msg.unrecorded_calls is not None:
                unrecorded_calls = msg.unrecorded_calls
        elif role == "tool":
            outputs.append(msg)
        if msg.metadata is not None:  # a model call's response, even one that logged no facts
            _merge_metadata(metadata, msg.metadata)
    messages = tuple([_message(m) for m in group])
    turn = make_turn(messages, input_text, text, calls, outputs, media, metadata, agent)
    missing: dict[str, str] = {}
    if unrecorded is not None and not text:  # no text recorded, and some left out
        missing["text"] = unrecorded
    if unrecorded_calls is not None and not calls:
        missing["tool_calls"] = unrecorded_calls
    if missing:
        turn.__dict__["unrecorded"] = missing
    return turn


def make_turn(
    messages: tuple[Message, ...],
    input_text: str | None,
    text: str,
    calls: Sequence[ToolCall],
    outputs: Sequence[Msg],
    media: Sequence[Media] = (),
    metadata: dict[str, Any] | None = None,
    agent: tuple[str, str] | None = None,
) -> Turn:
    """Build a `Turn` from what its messages say, as `Turn(messages=...)` derives it.

    `input_text` is the user's message, `text` the last assistant text, `calls` every call of
    its assistant messages, `outputs` its `tool` messages (each result is named after its
    call), `metadata` the model calls' merged facts, `agent` the agent active after it with
    the place in the record that says so.
    """
    results: tuple[ToolResult, ...] = ()
    if outputs:
        names = names_of_results(calls, [(m.tool_call_id, m.name) for m in outputs])
        results = tuple(
            _result(m.content or "", m.tool_call_id, name, m.data, m.is_error)
            for m, name in zip(outputs, names, strict=True)
        )
    if metadata is None:
        metadata = {}
    if agent is not None:
        metadata["agent_source"] = agent[1]
    return _new(  # type: ignore[no-any-return]
        Turn,
        {
            "input": input_text,
            "text": text,
            "messages": messages,
            "tool_calls": tuple(calls),
            "tool_results": results,
            "guardrails": (),
            "workflow": None,
            "data": None,
            "media": tuple(media),
            "metadata": metadata,
            "agent": None if agent is None else agent[0],
            "unrecorded": {},
        },
    )


def _agent_after(
    group: Sequence[Msg], index: int, active: tuple[str, str] | None
) -> tuple[str, str] | None:
    """The agent active after the turn `group` (turn `index`), given the one active before it.

    The log's agent facts are read in order, the last one winning: a message that names its
    agent (`Msg.agent`), and a handoff call (`transfer_to_<agent>`), which hands the
    conversation to the agent ADK's `transfer_to_agent` names in its `agent_name` argument,
    or its output names (`{"assistant": ...}`), else to the one its tool name names. A call's
    output is the result it pairs with (docs/semantics.md G20, `pair_results`), as
    `active_agent` reads it from the built turn's `call_results`.
    """
    outputs: list[str | None] | None = None  # each of the turn's calls' output, when needed
    position = 0  # the turn's calls seen so far
    for msg in group:
        if msg.agent is not None:
            active = msg.agent
        if msg.tool_calls and msg.role == "assistant":
            for call in msg.tool_calls:
                if call.name.startswith(HANDOFF_PREFIX) and is_handoff(call.name):
                    if outputs is None:
                        outputs = _call_outputs(group)
                    target = handoff_target(call, outputs[position])
                    active = (target, f"handoff call {call.name} in turns[{index}]")
                position += 1
    return active


def _call_outputs(group: Sequence[Msg]) -> list[str | None]:
    """The output of each call of the turn `group`, in the order `_turn` gathers its calls:
    the content of the `tool` message it pairs with (docs/semantics.md G20), or None."""
    calls = [c for m in group if m.role == "assistant" and m.tool_calls for c in m.tool_calls]
    results = [m for m in group if m.role == "tool"]
    pairing = pair_results([c.id for c in calls], [m.tool_call_id for m in results])
    return [None if k is None else results[k].content for k in pairing]


def message_agent(raw: Mapping[str, Any], where: str) -> tuple[str, str] | None:
    """The agent a logged message names in its `metadata.agent`, with that place, if any.

    Example:
        >>> message_agent({"role": "assistant", "metadata": {"agent": "billing"}}, "messages[2]")
        ('billing', 'messages[2].metadata.agent')
    """
    meta = raw.get("metadata")
    name = meta.get("agent") if isinstance(meta, Mapping) else None
    if isinstance(name, str) and name.strip():
        return name, f"{where}.metadata.agent"
    return None


def _result(
    content: str, call_id: str | None, name: str | None, data: Any, is_error: bool
) -> ToolResult:
    return _new(  # type: ignore[no-any-return]
        ToolResult,
        {"content": content, "call_id": call_id, "name": name, "data": data, "is_error": is_error},
    )


def split(messages: Sequence[Msg]) -> list[list[Msg]]:
    """Split messages into turns at each user message (as `Conversation(messages=...)` does).

    Messages before the first user message join the first turn when they are only system or
    developer prompts; when the agent spoke first (a greeting), they form a turn of their own,
    with no user input.

    Example:
        >>> turns = split([Msg("system", "s"), Msg("assistant", "Hi!"), Msg("user", "Hello"),
        ...                Msg("assistant", "How can I help?")])
        >>> [[m.content for m in turn] for turn in turns]
        [['s', 'Hi!'], ['Hello', 'How can I help?']]
    """
    groups: list[list[Msg]] = []
    preamble: list[Msg] = []
    for msg in messages:
        if msg.role == "user":
            groups.append([msg])
        elif groups:
            groups[-1].append(msg)
        else:
            preamble.append(msg)
    if preamble:
        if groups and all(m.role in ("system", "developer") for m in preamble):
            groups[0][:0] = preamble
        else:
            groups.insert(0, preamble)
    return groups


def conversation(
    messages: Sequence[Msg], *, id: object = None, metadata: Mapping[str, Any] | None = None
) -> Conversation:
    """Build a conversation from normalised messages.

    Each turn's `agent` is the agent active after it, carried over from earlier turns until
    the log names another (see `_agent_after`); where the log said so is kept in the turn's
    `metadata.agent_source`. A log that names no agent leaves every `agent` None.

    Example:
        >>> c = conversation([Msg("user", "Hi"), Msg("assistant", "Hello!",
        ...                   metadata={"output_tokens": 3})])
        >>> c.turns[0].text, c.turns[0].metadata["output_tokens"]
        ('Hello!', 3)
    """
    turns: list[Turn] = []
    agent: tuple[str, str] | None = None
    for index, group in enumerate(split(messages)):
        agent = _agent_after(group, index, agent)
        turns.append(_turn(group, agent))
    return make_conversation(turns, id=id, metadata=metadata)


def make_conversation(
    turns: Sequence[Turn], *, id: object = None, metadata: Mapping[str, Any] | None = None
) -> Conversation:
    """Build a `Conversation` from built turns."""
    return _new(  # type: ignore[no-any-return]
        Conversation,
        {
            "turns": tuple(turns),
            "workflow": None,
            "metadata": dict(metadata or {}),
            "id": None if id is None else str(id),
        },
    )


def guarded(
    built: Conversation, messages: Sequence[Msg], events: Mapping[int, Sequence[GuardrailEvent]]
) -> Conversation:
    """`built` (the conversation of `messages`) with guardrail events set on its turns: each
    entry of `events`, keyed by `id()` of one of `messages`, goes to that message's turn."""
    if not events:
        return built
    turn_of = {id(m): i for i, group in enumerate(split(messages)) for m in group}
    found: dict[int, list[GuardrailEvent]] = {}
    for msg in messages:
        if id(msg) in events:
            found.setdefault(turn_of[id(msg)], []).extend(events[id(msg)])
    turns = tuple(
        t.model_copy(update={"guardrails": tuple(found[i])}) if i in found else t
        for i, t in enumerate(built.turns)
    )
    return built.model_copy(update={"turns": turns})


def match_tool_runs(history: list[Msg], runs: Sequence[tuple[str, str, bool]]) -> None:
    """Mark errored (or add) the results of the calls `history` shows from logged tool runs
    that carry no call id: `(tool name, result text, errored)`, matched to calls by name, in
    order. A call with no result in `history` gets the run's as a `tool` message after it
    (after the results already there). Linear in the messages and runs.

    Example:
        >>> h = [Msg("user", "Hi"), Msg("assistant", tool_calls=[tool_call("f", {}, "c1")])]
        >>> match_tool_runs(h, [("f", "boom", True)])
        >>> [(m.role, m.content, m.is_error) for m in h[1:]]
        [('assistant', None, False), ('tool', 'boom', True)]
    """
    results = {m.tool_call_id: m for m in history if m.role == "tool"}
    calls: dict[str, deque[tuple[int, ToolCall]]] = {}
    for position, msg in enumerate(history):
        if msg.role == "assistant":
            for call in msg.tool_calls:
                calls.setdefault(call.name, deque()).append((position, call))
    inserts: dict[int, list[Msg]] = {}
    for name, text, errored in runs:
        queue = calls.get(name)
        if not queue:
            continue
        position, call = queue.popleft()
        result = results.get(call.id)
        if result is not None:
            result.is_error = result.is_error or errored
        else:
            added = Msg(role="tool", content=text, tool_call_id=call.id, is_error=errored)
            inserts.setdefault(position, []).append(added)
    if not inserts:
        return
    out: list[Msg] = []
    pending: list[Msg] = []
    for position, msg in enumerate(history):
        if pending and msg.role != "tool":  # after the results its call already had
            out.extend(pending)
            pending = []
        out.append(msg)
        pending = inserts.get(position, pending)
    out.extend(pending)
    history[:] = out


def iso_latency(start: object, end: object) -> float | None:
    """Milliseconds from one ISO 8601 time to another, or None when either is not one (or the
    end is before the start: an unfinished span).

    Example:
        >>> iso_latency("2025-03-01T10:00:00.000Z", "2025-03-01T10:00:01.250Z")
        1250.0
    """
    from datetime import datetime

    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        begun, ended = datetime.fromisoformat(start), datetime.fromisoformat(end)
        elapsed = (ended - begun).total_seconds() * 1000
    except (ValueError, TypeError):  # not ISO 8601, or one with a zone and one without
        return None
    return elapsed if elapsed >= 0 else None


_PROMPTS = ("system", "developer")


def _key(msg: Msg) -> tuple[Any, ...]:
    """What a message is compared by when a request repeats the history: its role, its text,
    the ids of its calls and the call it answers."""
    return (msg.role, msg.content or "", tuple([c.id for c in msg.tool_calls]), msg.tool_call_id)


def _overlap(tail: Sequence[Any], head: Sequence[Any]) -> int:
    """The length of the longest start of `head` that `tail` ends with, in time linear in both
    (the Knuth-Morris-Pratt failure function of `head`).

    Example:
        >>> _overlap("xabab", "ababc"), _overlap("abc", "abc"), _overlap("ab", "ba")
        (4, 3, 1)
    """
    if not tail or not head:
        return 0
    fail = [0] * len(head)
    k = 0
    for i in range(1, len(head)):
        while k and head[i] != head[k]:
            k = fail[k - 1]
        if head[i] == head[k]:
            k += 1
        fail[i] = k
    k = 0
    for item in tail:
        while k and (k == len(head) or item != head[k]):
            k = fail[k - 1]
        if item == head[k]:
            k += 1
    return k


class Exchanges:
    """A conversation's history built from its model calls, one `merge` per call.

    Each merge costs time in proportion to what the call holds, not to the history so far: a
    trace of thousands of model calls is read in linear time. Messages may be appended to
    `history` between merges (a tool's result read from its span); nothing else may change it.

    Example:
        >>> h: list[Msg] = []
        >>> calls = Exchanges(h)
        >>> calls.merge([Msg("system", "s"), Msg("user", "a")], [Msg("assistant", "b")])
        >>> calls.merge([Msg("system", "s"), Msg("user", "a"), Msg("assistant", "b"),
        ...              Msg("user", "c")], [Msg("assistant", "d")])
        >>> [m.content for m in h]
        ['s', 'a', 'b', 'c', 'd']
    """

    __slots__ = ("_prompts", "_seen", "history")

    def __init__(self, history: list[Msg] | None = None) -> None:
        self.history: list[Msg] = [] if history is None else history
        self._prompts: set[tuple[Any, ...]] = set()
        self._seen = 0

    def merge(self, request: Sequence[Msg], response: Sequence[Msg]) -> None:
        """Extend the history with one model call, as `merge_exchange` says."""
        history = self.history
        for index in range(self._seen, len(history)):  # only what was added since
            if history[index].role in _PROMPTS:
                self._prompts.add(_key(history[index]))
        self._seen = len(history)
        start = 0
        new_prompts: list[Msg] = []
        while start < len(request) and request[start].role in _PROMPTS:
            if _key(request[start]) not in self._prompts:
                new_prompts.append(request[start])
            start += 1
        rest = request[start:]
        size = min(len(history), len(rest))
        tail = [_key(history[i]) for i in range(len(history) - size, len(history))]
        shared = _overlap(tail, [_key(m) for m in rest]) if size else 0
        history.extend(new_prompts)
        history.extend(rest[shared:])
        history.extend(response)


class SpanWalk:
    """The state a trace reader keeps while it walks spans in order: the messages so far
    (`history`, merged by `exchanges`), the guardrail events of each message (by `id`), and
    the agent and events that wait for the next message a span adds (`added`)."""

    def __init__(self) -> None:
        self.exchanges = Exchanges()
        self.history = self.exchanges.history
        self.events: dict[int, list[GuardrailEvent]] = {}
        self.pending_agent: tuple[str, str] | None = None
        self.pending_events: list[GuardrailEvent] = []

    def added(self, before: int) -> None:
        """Give the first message added since `before` the agent and events that waited."""
        if len(self.history) <= before:
            return
        first = self.history[before]
        if self.pending_agent is not None:
            first.agent = first.agent or self.pending_agent
            self.pending_agent = None
        if self.pending_events:
            self.events.setdefault(id(first), []).extend(self.pending_events)
            self.pending_events = []


def merge_exchange(history: list[Msg], request: Sequence[Msg], response: Sequence[Msg]) -> None:
    """Extend `history` with one model call: the new part of its request, then its response.

    Each request of a logged conversation usually repeats the history so far, sometimes without
    the system prompt, or trimmed to the system prompt and the latest messages, and after a
    handoff opened by another agent's instructions. Leading system and developer messages that
    `history` already holds are not added again, and new ones (another agent's instructions)
    are added where the call happened, not in front of the history it repeats; of the rest, the
    longest start that repeats the end of `history` is not added again either. (Merging many
    calls into one history: `Exchanges`, which does not read the history again for each.)

    Example:
        >>> h = [Msg("system", "s"), Msg("user", "a"), Msg("assistant", "b")]
        >>> merge_exchange(h, [Msg("user", "a"), Msg("assistant", "b"), Msg("user", "c")],
        ...                [Msg("assistant", "d")])
        >>> [m.content for m in h]
        ['s', 'a', 'b', 'c', 'd']
        >>> merge_exchange(h, [Msg("system", "s"), Msg("user", "c"), Msg("assistant", "d"),
        ...                    Msg("user", "e")], [Msg("assistant", "f")])
        >>> [m.content for m in h]
        ['s', 'a', 'b', 'c', 'd', 'e', 'f']
        >>> handoff = [Msg("system", "t"), *h[1:], Msg("user", "g")]  # another agent's prompt
        >>> merge_exchange(h, handoff, [Msg("assistant", "i")])
        >>> [m.content for m in h]  # its instructions where the call happened, nothing twice
        ['s', 'a', 'b', 'c', 'd', 'e', 'f', 't', 'g', 'i']
    """
    Exchanges(history).merge(request, response)


_USAGE_KEYS = {
    "prompt_tokens": "input_tokens",
    "input_tokens": "input_tokens",
    "completion_tokens": "output_tokens",
    "output_tokens": "output_tokens",
    "total_tokens": "total_tokens",
}
_CACHE_KEYS = ("cache_read_input_tokens", "cache_creation_input_tokens")


def _at(place: str, field: str) -> str:
    return f"{place}: {field}" if place else field


def parent(where: str) -> str:
    """The place of the call record around a response at `where` (`calls[2].response`)."""
    return where.removesuffix("response").removesuffix(".")


# (key, what it is read as, the factor to its unit), in the order the first found wins
_AMOUNTS = (
    ("latency_ms", "latency_ms", 1),
    ("duration_ms", "latency_ms", 1),
    ("latency_s", "latency_ms", 1000),
    ("latency", "latency_ms", 1000),
    ("cost", "cost", 1),
    ("cost_usd", "cost", 1),
)


def call_metadata(*sources: object, places: Sequence[str] = ()) -> dict[str, Any]:
    """Collect a model call's metadata from the mappings that may hold it.

    Recognised: `model`; `usage` (OpenAI `prompt_tokens`/`completion_tokens`, Anthropic and
    Responses `input_tokens`/`output_tokens`, with Anthropic's cache reads and writes counted
    as input, `total_tokens`) as `input_tokens`,
    `output_tokens`, `total_tokens`; `latency_ms` (or `latency_s`, `duration_ms`) as
    `latency_ms`; `cost` (or `cost_usd`) as `cost`. The first source that gives a fact wins.
    `places` says where each source is in the record, for messages.

    Raises:
        TranscriptError: when a token count, duration or cost is not a number in range (a
            `null` is read as absent).
    """
    out: dict[str, Any] = {}
    for index, source in enumerate(sources):
        if not isinstance(source, dict):
            continue
        place = places[index] if index < len(places) else ""
        model = source.get("model")
        if isinstance(model, str):
            out.setdefault("model", model)
        usage = source.get("usage")
        if isinstance(usage, dict):
            tokens = {
                key: count(value, _at(place, f"usage.{key}"))
                for key, value in usage.items()
                if key in _USAGE_KEYS or key in _CACHE_KEYS
            }
            for key, value in tokens.items():
                target = _USAGE_KEYS.get(key)
                if target is not None and value is not None:
                    out.setdefault(target, value)
            # Anthropic counts prompt tokens read from or written to its cache apart from
            # input_tokens; they are input all the same
            cached = [v for k, v in tokens.items() if k in _CACHE_KEYS and v is not None]
            if cached and "input_tokens" in usage and "prompt_tokens" not in usage:
                out["input_tokens"] = out.get("input_tokens", 0) + sum(cached)
        for key, target, scale in _AMOUNTS:
            raw = source.get(key)
            if raw is None:  # the common case: no such key (its place is not even spelt)
                continue
            value = duration(
                raw, _at(place, key), "an amount" if target == "cost" else "a duration"
            )
            if value is not None:
                out.setdefault(target, value if scale == 1 else value * scale)
    if "input_tokens" in out and "output_tokens" in out:
        out.setdefault("total_tokens", out["input_tokens"] + out["output_tokens"])
    return out


def record_metadata(record: Mapping[str, Any], *extra: Mapping[str, Any]) -> dict[str, Any]:
    """The conversation-level metadata of a record: its `metadata` mapping, its case key, and
    the call metadata found at the top level (plus `extra`, which fills gaps)."""
    given = record.get("metadata")
    metadata: dict[str, Any] = (
        dict(given) if given is not None and isinstance(given, Mapping) else {}
    )
    for key in ("case", "test_case", "name"):
        value = record.get(key)
        if value is not None and isinstance(value, str | int) and not isinstance(value, bool):
            metadata.setdefault(key, value)
    for key, value in call_metadata(record).items():
        metadata.setdefault(key, value)
    for source in extra:
        for key, value in source.items():
            metadata.setdefault(key, value)
    tags = record.get("tags")
    if tags is not None:
        metadata.setdefault("tags", tags)
    return metadata


def text_of(
    content: object,
    kinds: tuple[str | None, ...] = ("text", "output_text", "input_text", None),
    where: str = "",
) -> str | None:
    """The text of a message content: a string, or the joined `text` of its text parts.

    A refusal part (`{"type": "refusal", "refusal": ...}`, OpenAI) is the model's text too.
    `where` is the content's place in the record, for messages.

    Raises:
        TranscriptError: when the content is neither, or a part's `type` is not a string.
    """
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            t
            for i, part in enumerate(content)
            if (t := _part_text(part, kinds, f"{where}[{i}]")) is not None
        ]
        return "".join(texts) if texts else None
    raise TranscriptError(
        _at(where, f"message content must be a string or a list of parts, got {described(content)}")
    )


def _part_text(part: object, kinds: tuple[str | None, ...], where: str) -> str | None:
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind is not None and not isinstance(kind, str):
        raise TranscriptError(f"{where}: 'type' must be a string (got {described(kind)})")
    if kind == "refusal":  # the model declined: its refusal is what it said
        value = part.get("refusal")
    else:
        value = part.get("text") if kind in kinds else None
    return value if isinstance(value, str) else None


def fold_calls(
    calls: Sequence[object],
    where: str,
    is_call: Callable[[object], bool],
    read_request: Callable[[dict[str, Any], str], Sequence[Msg]],
    read_response: Callable[[object, Mapping[str, Any], str], Sequence[Msg]],
) -> list[Msg]:
    """Fold a list of logged `{request, response}` model calls into one message history.

    Each adapter supplies how its format reads a request (`read_request(request, where)`) and a
    response (`read_response(response, extra, where)`, where `extra` is the request merged with
    the call record, for metadata); the calls are merged in order with `merge_exchange`.

    Raises:
        TranscriptError: naming the first record that is not a call of this format.
    """
    exchanges = Exchanges()
    for i, call in enumerate(calls):
        at = f"{where}[{i}]" if where else ""
        if not is_call(call):
            raise TranscriptError(f"{at or 'record'} is not a {{request, response}} call")
        assert isinstance(call, dict)
        request = call["request"]
        exchanges.merge(
            read_request(request, f"{at}.request".lstrip(".")),
            read_response(call.get("response"), {**request, **call}, f"{at}.response".lstrip(".")),
        )
    return exchanges.history
