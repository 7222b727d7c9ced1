"""The OpenAI Chat Completions adapter.

Three line shapes are read:

- a transcript: `{"messages": [...], "id"?, "metadata"?, "model"?, "usage"?, "latency_ms"?,
  "cost"?}` (the fine-tuning and most logging formats);
- one call: `{"request": {"messages": [...], "model"?}, "response": {"choices": [{"message":
  {...}}], "usage"?, "model"?}, "latency_ms"?, "cost"?}`;
- several calls of one conversation: `{"calls": [<call>, ...], "id"?, "metadata"?}` or a JSON
  array of calls. Each request usually repeats the history; only its new messages are added;
- a bare JSON array of messages, `[{"role": "user", ...}, ...]`: the `messages` of a
  transcript without the object around them (`is_message_list`).

Tool calls come from `tool_calls[].function` (arguments as a JSON string, kept with its parse
error when invalid) or the legacy `function_call`; `tool` messages are linked to their calls by
`tool_call_id`, and legacy `function` messages (`{"role": "function", "name", "content"}`) are
read as tool results too. Media: `image_url` and `input_audio` content parts, PromptKit's
`{type, media}` parts in `content` or in a `parts` list beside it (whose text parts are the
message's text when it has no `content`), and an assistant's `audio` (its base64 `data`) become
the message's media parts, as `Message` reads them. A spoken reply's `audio.transcript` is its
text when it has no other; without one, a turn answered by audio alone has its text unrecorded
(`Turn.unrecorded`, `UNRECORDED_SPOKEN`): text checks are errors, never verdicts on "".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, cast

from chatassert._agents import HANDOFF_PREFIX
from chatassert._errors import TranscriptError
from chatassert._lazy import LazyConversation, LazyTurn, as_model
from chatassert._models import (
    UNRECORDED_SPOKEN,
    Conversation,
    Media,
    Message,
    ToolCall,
    Turn,
    make_media,
    unheard,
)
from chatassert.transcripts._build import (
    Msg,
    call_metadata,
    conversation,
    fold_calls,
    make_conversation,
    make_message,
    make_turn,
    media_parts,
    message_agent,
    parent,
    record_metadata,
    text_of,
    tool_call,
)

__all__ = ["detect", "is_message_list", "parse"]


def _is_call(record: object) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("request"), Mapping)
        and isinstance(record["request"].get("messages"), list)
    )


def is_message_list(record: object) -> bool:
    """Whether `record` is a bare JSON array of chat messages: a non-empty list of objects,
    each with a string `role` (as OpenAI's and Anthropic's `messages` are).

    Example:
        >>> is_message_list([{"role": "user", "content": "Hi"}, {"role": "assistant"}])
        True
        >>> is_message_list([{"role": "user"}, "Hi"]), is_message_list([])
        (False, False)
    """
    return (
        isinstance(record, list)
        and bool(record)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in record)
    )


def detect(record: Any) -> bool:
    """Whether `record` is a chat-completions transcript, call, list of calls, or bare array
    of messages."""
    if isinstance(record, dict):
        if isinstance(record.get("messages"), list) or _is_call(record):
            return True
        calls = record.get("calls")
        return isinstance(calls, list) and bool(calls) and _is_call(calls[0])
    return (
        isinstance(record, list)
        and bool(record)
        and (_is_call(record[0]) or is_message_list(record))
    )


def message(raw: object, where: str, index: int | None = None) -> Msg:
    """Normalise one chat-completions message (at `where`, or at `where[index]` in a list).

    Most logged messages are plain: a role, string content, maybe tool calls. Their path
    reads only the keys they have and builds the message's place in the record (for error
    messages) only when something needs it.
    """
    if not isinstance(raw, dict):
        raise TranscriptError(f"{_place(where, index)} is not a message object")
    role = raw.get("role")
    if not isinstance(role, str):
        raise TranscriptError(f"{_place(where, index)} has no 'role'")
    calls = []
    raw_calls = raw.get("tool_calls")
    if raw_calls:
        if not isinstance(raw_calls, list):
            raise TranscriptError(f"{_place(where, index)}.tool_calls is not a list")
        for j, call in enumerate(raw_calls):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                raise TranscriptError(f"{_place(where, index)}.tool_calls[{j}] has no 'function'")
            calls.append(tool_call(fn.get("name"), fn.get("arguments"), call.get("id")))
    else:
        fn = raw.get("function_call")
        if fn is not None and isinstance(fn, Mapping):  # the legacy single-call field
            calls.append(tool_call(fn.get("name"), fn.get("arguments")))
    name = raw.get("name")
    call_id = raw.get("tool_call_id")
    if role == "function":  # the legacy result of a `function_call`
        role = "tool"
    content = raw.get("content")
    media: list[Media] = []
    if content is not None and type(content) is not str:  # content parts: text and media
        at = f"{_place(where, index)}.content"
        content, media = text_of(content, where=at), media_parts(content, role, at)
    parts = raw.get("parts")
    if isinstance(parts, list):  # PromptKit's parts, beside or instead of `content`
        at = f"{_place(where, index)}.parts"
        media.extend(media_parts(parts, role, at))
        if raw.get("content") is None:
            content = text_of(parts, where=at)
    given = raw.get("audio")
    audio: Mapping[str, Any] | None = given if isinstance(given, Mapping) else None
    if audio is not None and isinstance(audio.get("data"), str):
        at = f"{_place(where, index)}.audio"  # a spoken reply
        media.append(make_media(at, kind="audio", data=audio["data"], role=role))
    if not content:
        refusal = raw.get("refusal")
        if isinstance(refusal, str) and refusal:
            content = refusal  # the assistant declined: its refusal is what it said
    unrecorded = None
    if not content and audio is not None and role == "assistant":
        transcript = audio.get("transcript")
        if isinstance(transcript, str):
            content = transcript  # what the spoken reply said, as text
        elif unheard(raw):
            unrecorded = UNRECORDED_SPOKEN
    return Msg(
        role=role,
        content=content,
        tool_calls=calls,
        tool_call_id=None if call_id is None else str(call_id),
        name=name if isinstance(name, str) else None,
        is_error=raw.get("is_error") is True,
        media=media,
        agent=None if raw.get("metadata") is None else message_agent(raw, _place(where, index)),
        unrecorded=unrecorded,
    )


def _place(where: str, index: int | None) -> str:
    return where if index is None else f"{where}[{index}]"


def messages(raw: object, where: str = "messages") -> list[Msg]:
    """Normalise a list of chat-completions messages."""
    if not isinstance(raw, list):
        raise TranscriptError(f"{where} is not a list")
    return [message(m, where, i) for i, m in enumerate(raw)]


_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_PROMPTS = ("system", "developer")


_Plain = tuple[list[Any], str | None, str, list[ToolCall]]
"""A plain turn as `_plain_scan` reads it: its messages (as logged), input, text and calls."""


def _plain_scan(raw: list[Any]) -> list[_Plain] | None:
    """The turns of a transcript whose messages are all plain, read in one pass; else None.

    Most logged transcripts hold only plain messages: a known role, string content (or
    none), tool calls with a name, tool results; no content parts, PromptKit `parts`, audio,
    refusal, legacy function call, handoff or per-message metadata. For them this splits the
    turns and derives what checks read most — each turn's input, text and tool calls (its
    assistant messages' calls, built here) — exactly as `messages` + `conversation` do;
    `_plain_turn` builds the rest. Anything else, including anything malformed, returns None,
    and the general path reads the transcript (and reports its errors). A test holds the two
    paths to the same conversation.
    """
    turns: list[_Plain] = []
    start = 0  # where the turn being read begins
    input_text: str | None = None
    text = ""
    calls: list[ToolCall] = []
    user_seen = False
    prompts_only = True  # the messages before the first user message are all prompts
    for index, m in enumerate(raw):
        if type(m) is not dict:
            return None
        role = m.get("role")
        content = m.get("content")
        if (
            type(role) is not str
            or role not in _ROLES
            or (content is not None and type(content) is not str)
            or m.get("function_call") is not None
            or m.get("audio") is not None
            or m.get("metadata") is not None
            or m.get("parts") is not None
            or (not content and m.get("refusal") is not None)
        ):
            return None
        if role == "user":
            if user_seen or (index > start and not prompts_only):  # a new turn starts here
                turns.append((raw[start:index], input_text, text, calls))
                start, input_text, text, calls = index, None, "", []
            user_seen = True
            input_text = content
        elif not user_seen and role not in _PROMPTS:
            prompts_only = False
        raw_calls = m.get("tool_calls")
        if raw_calls:
            if type(raw_calls) is not list:
                return None
            for call in raw_calls:
                fn = call.get("function") if type(call) is dict else None
                if type(fn) is not dict:
                    return None
                name = fn.get("name")
                if type(name) is not str or name.startswith(HANDOFF_PREFIX):
                    return None  # malformed, or a handoff that changes the active agent
                if role == "assistant":  # the turn's calls; another role's, when built
                    calls.append(tool_call(name, fn.get("arguments"), call.get("id")))
        if role == "assistant" and content:
            text = content
    if start < len(raw):
        turns.append((raw[start:], input_text, text, calls))
    return turns


def _plain_turn(group: list[Any], input_text: str | None, text: str, calls: list[ToolCall]) -> Turn:
    """The `Turn` of a plain turn `_plain_scan` read: its messages (its assistant messages
    holding the calls it built) and tool results, named after their calls."""
    messages: list[Message] = []
    outputs: list[Msg] = []
    taken = 0  # the turn's calls handed to its assistant messages so far
    for m in group:
        role = m["role"]
        content = m.get("content")
        own_calls: tuple[ToolCall, ...] = ()
        raw_calls = m.get("tool_calls")
        if raw_calls:
            if role == "assistant":
                own_calls = tuple(calls[taken : taken + len(raw_calls)])
                taken += len(raw_calls)
            else:
                own_calls = tuple(
                    tool_call(c["function"]["name"], c["function"].get("arguments"), c.get("id"))
                    for c in raw_calls
                )
        call_id = m.get("tool_call_id")
        call_id = None if call_id is None else str(call_id)
        name = m.get("name")
        name = name if type(name) is str else None
        if role == "tool":
            error = m.get("is_error") is True
            outputs.append(Msg("tool", content, tool_call_id=call_id, name=name, is_error=error))
        messages.append(make_message(role, content, own_calls, call_id, name))
    return make_turn(tuple(messages), input_text, text, calls, outputs)


def plain_turns(raw: list[Any]) -> list[Turn] | None:
    """The turns of a transcript whose messages are all plain (`_plain_scan`), built; else
    None."""
    scanned = _plain_scan(raw)
    return None if scanned is None else [_plain_turn(*turn) for turn in scanned]


def _lazy_conversation(
    raw: list[Any], id: object = None, metadata: dict[str, Any] | None = None
) -> Conversation | None:
    """The conversation of a transcript whose messages are all plain, with lazy turns (their
    `Turn`s built on first use: `chatassert._lazy`); else None."""
    scanned = _plain_scan(raw)
    if scanned is None:
        return None
    turns = tuple(
        LazyTurn(turn[1], turn[2], tuple(turn[3]), partial(_plain_turn, *turn)) for turn in scanned
    )
    ident = None if id is None else str(id)
    meta = {} if metadata is None else metadata

    def build() -> Conversation:
        return make_conversation([as_model(cast(Turn, t)) for t in turns], id=ident, metadata=meta)

    return cast(Conversation, LazyConversation(turns, ident, meta, build))


def _response_messages(response: object, extra: Mapping[str, Any], where: str) -> list[Msg]:
    if response is None:
        return []
    if not isinstance(response, dict):
        raise TranscriptError(f"{where} is not an object")
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        raise TranscriptError(f"{where} has no 'choices'")
    first = choices[0]
    if not isinstance(first, dict) or not isinstance(first.get("message"), Mapping):
        raise TranscriptError(f"{where}.choices[0] has no 'message'")
    out = message(first["message"], f"{where}.choices[0].message")
    meta = call_metadata(extra, response, places=(parent(where), where))
    finish = first.get("finish_reason")
    if isinstance(finish, str):
        meta["finish_reason"] = finish
    out.metadata = meta
    return [out]


def _calls(calls: Sequence[object], where: str) -> tuple[list[Msg], dict[str, Any]]:
    history = fold_calls(
        calls,
        where,
        _is_call,
        lambda request, at: messages(request["messages"], f"{at}.messages"),
        _response_messages,
    )
    models = (c["request"].get("model") for c in calls if isinstance(c, dict))
    model = next((m for m in models if isinstance(m, str)), None)
    return history, ({"model": model} if model is not None else {})


def parse(record: Any) -> Conversation:
    """Build a conversation from any of the chat-completions line shapes.

    Raises:
        TranscriptError: when the record is not of those shapes or is malformed.
    """
    if isinstance(record, list):
        if record and not _is_call(record[0]) and is_message_list(record):
            lazy = _lazy_conversation(record)
            if lazy is not None:
                return lazy
            return conversation(messages(record, "record"))
        history, meta = _calls(record, "record")
        return conversation(history, metadata=meta)
    if not isinstance(record, dict):
        raise TranscriptError("expected an object with a 'messages' list (OpenAI chat format)")
    if isinstance(record.get("messages"), list):
        lazy = _lazy_conversation(  # the common case, quickly
            record["messages"], record.get("id"), record_metadata(record)
        )
        if lazy is not None:
            return lazy
        msgs = messages(record["messages"])
        return conversation(msgs, id=record.get("id"), metadata=record_metadata(record))
    if _is_call(record):
        history, meta = _calls([record], "")
        return conversation(history, id=record.get("id"), metadata=record_metadata(record, meta))
    calls = record.get("calls")
    if isinstance(calls, list):
        history, meta = _calls(calls, "calls")
        return conversation(history, id=record.get("id"), metadata=record_metadata(record, meta))
    raise TranscriptError(
        "expected an object with a 'messages' list, a {request, response} "
        "call, or 'calls' (OpenAI chat format)"
    )
