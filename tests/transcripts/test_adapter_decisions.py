"""Whole conversations read from small hand-written records of every log format.

Each table row is one log line written from its format's public definition (docs/offline.md,
"Log formats") and the whole `Conversation` it must become (`model_dump()`): which message,
tool call, tool result and metadata lands in which turn, with which role, id and arguments.
Error rows pin the exact message a user sees for a malformed record.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from chatassert import Conversation
from chatassert._errors import TranscriptError
from chatassert.transcripts import parse_record

# ---------------------------------------------------------------------------------------------
# expected-value builders: every field of the dump, defaults filled in as the models define them


def call(
    name: str,
    args: dict[str, Any] | None = None,
    id: str | None = None,
    raw: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """A dumped `ToolCall`."""
    return {
        "name": name,
        "arguments": {} if args is None else args,
        "id": id,
        "raw_arguments": raw,
        "arguments_error": error,
    }


def msg(
    role: str,
    content: str | None = None,
    calls: tuple[dict[str, Any], ...] = (),
    call_id: str | None = None,
    name: str | None = None,
    media: tuple[dict[str, Any], ...] = (),
) -> dict[str, Any]:
    """A dumped `Message`."""
    return {
        "role": role,
        "content": content,
        "tool_calls": list(calls),
        "tool_call_id": call_id,
        "name": name,
        "media": list(media),
    }


def media(kind: str, role: str = "assistant", **fields: Any) -> dict[str, Any]:
    """A dumped `Media`."""
    empty = dict.fromkeys(
        ("mime_type", "url", "data", "file_path", "format", "width", "height",
         "duration_seconds", "detail", "caption"),
    )  # fmt: skip
    return {"kind": kind, **empty, **fields, "role": role}


def result(
    content: str,
    call_id: str | None = None,
    name: str | None = None,
    data: Any = None,
    is_error: bool = False,
) -> dict[str, Any]:
    """A dumped `ToolResult`."""
    return {
        "content": content,
        "call_id": call_id,
        "name": name,
        "data": data,
        "is_error": is_error,
    }


def turn(
    input: str | None,
    text: str,
    messages: list[dict[str, Any]],
    results: tuple[dict[str, Any], ...] = (),
    metadata: dict[str, Any] | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """A dumped `Turn`; its tool calls are every call of its assistant messages, in order (G2),
    and its media every media part of its messages."""
    calls = [c for m in messages if m["role"] == "assistant" for c in m["tool_calls"]]
    return {
        "input": input,
        "text": text,
        "messages": messages,
        "tool_calls": calls,
        "tool_results": list(results),
        "guardrails": [],
        "workflow": None,
        "data": None,
        "media": [part for m in messages for part in m["media"]],
        "metadata": {} if metadata is None else metadata,
        "agent": agent,
    }


def conv(
    turns: list[dict[str, Any]], id: str | None = None, metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A dumped `Conversation`."""
    return {"turns": turns, "workflow": None, "metadata": metadata or {}, "id": id}


def check(record: Any, format: str | None, expected: dict[str, Any]) -> None:
    """Read `record` (detected, and forced to `format`) and compare the whole dump; a turn
    written here without `unrecorded` is one whose log recorded everything (`{}`)."""
    expected = {
        **expected,
        "turns": [{"unrecorded": {}, **turn} for turn in expected.get("turns", [])],
    }
    got = parse_record(record).model_dump(mode="json")
    assert got == expected
    if format is not None:
        assert parse_record(record, format).model_dump(mode="json") == expected


def error_of(record: Any, format: str | None) -> str:
    with pytest.raises(TranscriptError) as info:
        parse_record(record, format)
    return str(info.value)


ARGS = '{"city": "Paris"}'

# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions

OPENAI_TRANSCRIPT = {
    "id": 7,
    "model": "gpt-4o",
    "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    "latency": 1.5,
    "cost_usd": 0.02,
    "metadata": {"env": "prod"},
    "test_case": "weather",
    "tags": ["smoke"],
    "messages": [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Q1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ARGS},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": "{}"},
                },
            ],
        },
        # answered out of order, the second one failing: linked by id (G2)
        {
            "role": "tool",
            "tool_call_id": "c2",
            "name": "clock",
            "content": "noon",
            "is_error": True,
        },
        {"role": "tool", "tool_call_id": "c1", "content": "18C"},
        {"role": "assistant", "content": "It is 18C at noon.", "refusal": "ignored: content wins"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "And "},
                {"type": "image_url", "text": "not a text part"},
                {"type": "text", "text": "Rome?"},
            ],
        },
        # the legacy single call and its `function` result message
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
        },
        {"role": "function", "name": "get_weather", "content": "20C"},
        {"role": "assistant", "content": None, "refusal": "I can't say."},
        {"role": "assistant", "content": None, "refusal": ""},
        {"role": "tool", "tool_call_id": "c9", "name": 5, "content": "x", "is_error": False},
        {"role": "tool", "tool_call_id": "c9", "content": None},
        {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "u"}}]},
    ],
}

OPENAI_TRANSCRIPT_EXPECTED = conv(
    id="7",
    metadata={
        "env": "prod",
        "test_case": "weather",
        "tags": ["smoke"],
        "model": "gpt-4o",
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 15,
        "latency_ms": 1500.0,
        "cost": 0.02,
    },
    turns=[
        turn(
            "Q1",
            "It is 18C at noon.",
            [
                msg("system", "S"),
                msg("user", "Q1"),
                msg(
                    "assistant",
                    None,
                    (
                        call("get_weather", {"city": "Paris"}, "c1", ARGS),
                        call("get_time", {}, "c2", "{}"),
                    ),
                ),
                msg("tool", "noon", call_id="c2", name="clock"),
                msg("tool", "18C", call_id="c1"),
                msg("assistant", "It is 18C at noon."),
            ],
            (
                result("noon", "c2", "clock", is_error=True),
                result("18C", "c1", "get_weather"),
            ),
        ),
        turn(
            "And Rome?",
            "I can't say.",
            [
                msg("user", "And Rome?", media=(media("image", "user"),)),
                msg(
                    "assistant",
                    None,
                    (call("get_weather", {"city": "Rome"}, None, '{"city": "Rome"}'),),
                ),
                msg("tool", "20C", name="get_weather"),
                msg("assistant", "I can't say."),
                msg("assistant", None),
                msg("tool", "x", call_id="c9"),
                msg("tool", None, call_id="c9"),
                msg("assistant", None, media=(media("image", url="u"),)),
            ],
            (result("20C", None, "get_weather"), result("x", "c9", None), result("", "c9", None)),
        ),
    ],
)


def _chat_call(
    request: list[dict[str, Any]], reply: dict[str, Any], **response: Any
) -> dict[str, Any]:
    return {
        "request": {"model": "gpt-4o", "messages": request},
        "response": {"choices": [{"message": reply, "finish_reason": "stop"}], **response},
    }


OPENAI_ONE_CALL = {
    "id": "one",
    "latency_ms": 350,
    **_chat_call(
        [{"role": "system", "content": "S"}, {"role": "user", "content": "Hi"}],
        {"role": "assistant", "content": "Hello!"},
        model="gpt-4o-2024-08-06",
        usage={"prompt_tokens": 8, "completion_tokens": 2},
    ),
}

OPENAI_ONE_CALL_EXPECTED = conv(
    id="one",
    # the call record's own facts (and its request's model) come first, then the response's
    metadata={"latency_ms": 350, "model": "gpt-4o"},
    turns=[
        turn(
            "Hi",
            "Hello!",
            [msg("system", "S"), msg("user", "Hi"), msg("assistant", "Hello!")],
            metadata={
                "model": "gpt-4o",
                "input_tokens": 8,
                "output_tokens": 2,
                "total_tokens": 10,
                "latency_ms": 350,
                "finish_reason": "stop",
                "model_calls": 1,
            },
        )
    ],
)

_WEATHER = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": ARGS}}
_FIRST = [{"role": "system", "content": "S"}, {"role": "user", "content": "Weather?"}]
_SECOND = [
    # the history repeated without the system prompt, then the new part: the tool's answer
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": None, "tool_calls": [_WEATHER]},
    {"role": "tool", "tool_call_id": "c1", "content": "18C"},
]
OPENAI_CALLS = {
    "id": "s-9",
    "name": "weather case",
    "metadata": "not a mapping: ignored",
    "calls": [
        {
            "request": {"messages": _FIRST},
            "response": {
                "choices": [
                    {"message": {"role": "assistant", "content": None, "tool_calls": [_WEATHER]}}
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1},
            },
            "latency_s": 0.5,
        },
        {
            "request": {"messages": _SECOND},
            "response": {
                "choices": [
                    {"message": {"role": "assistant", "content": "18C."}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 12},
            },
            "cost": 0.5,
        },
    ],
}

OPENAI_CALLS_EXPECTED = conv(
    id="s-9",
    metadata={"name": "weather case"},
    turns=[
        turn(
            "Weather?",
            "18C.",
            [
                msg("system", "S"),
                msg("user", "Weather?"),
                msg("assistant", None, (call("get_weather", {"city": "Paris"}, "c1", ARGS),)),
                msg("tool", "18C", call_id="c1"),
                msg("assistant", "18C."),
            ],
            (result("18C", "c1", "get_weather"),),
            metadata={
                "input_tokens": 14,
                "output_tokens": 3,
                "total_tokens": 18,
                "latency_ms": 500.0,
                "cost": 0.5,
                "finish_reason": "stop",
                "model_calls": 2,
            },
        )
    ],
)

OPENAI_ARRAY = [
    _chat_call([{"role": "user", "content": "Hi"}], {"role": "assistant", "content": "Hello!"}),
    {
        "request": {
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "Bye"},
            ],
        },
        "response": None,
    },
]

OPENAI_ARRAY_EXPECTED = conv(
    metadata={"model": "gpt-4o"},
    turns=[
        turn(
            "Hi",
            "Hello!",
            [msg("user", "Hi"), msg("assistant", "Hello!")],
            metadata={"model": "gpt-4o", "finish_reason": "stop", "model_calls": 1},
        ),
        turn("Bye", "", [msg("user", "Bye")]),
    ],
)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(OPENAI_TRANSCRIPT, OPENAI_TRANSCRIPT_EXPECTED, id="transcript"),
        pytest.param(OPENAI_ONE_CALL, OPENAI_ONE_CALL_EXPECTED, id="one-call"),
        pytest.param(OPENAI_CALLS, OPENAI_CALLS_EXPECTED, id="calls"),
        pytest.param(OPENAI_ARRAY, OPENAI_ARRAY_EXPECTED, id="array-of-calls"),
    ],
)
def test_openai_chat_records_become_these_conversations(
    record: Any, expected: dict[str, Any]
) -> None:
    """docs/offline.md "OpenAI Chat Completions": a transcript, one call, several calls."""
    check(record, "openai", expected)


_OK_REPLY = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ("x", "expected an object with a 'messages' list (OpenAI chat format)"),
        (
            {},
            (
                "expected an object with a 'messages' list, a {request, response} "
                "call, or 'calls' (OpenAI chat format)"
            ),
        ),
        ({"messages": [1]}, "messages[0] is not a message object"),
        ({"messages": [{"content": "x"}]}, "messages[0] has no 'role'"),
        (
            {"messages": [{"role": "assistant", "tool_calls": "x"}]},
            "messages[0].tool_calls is not a list",
        ),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"id": "a"}]}]},
            "messages[0].tool_calls[0] has no 'function'",
        ),
        (
            {
                "messages": [
                    {"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}
                ]
            },
            "a tool call has no name (got None)",
        ),
        (
            {"messages": [{"role": "user", "content": 5}]},
            "messages[0].content: message content must be a string or a list of parts, got 5",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": 1}]}]},
            "messages[0].content[0]: 'type' must be a string (got 1)",
        ),
        ({"request": {"messages": []}, "response": "x"}, "response is not an object"),
        ({"request": {"messages": [5]}}, "request.messages[0] is not a message object"),
        ({"request": {"messages": []}, "response": {"choices": []}}, "response has no 'choices'"),
        (
            {"request": {"messages": []}, "response": {"choices": [{"message": "x"}]}},
            "response.choices[0] has no 'message'",
        ),
        (
            {"request": {"messages": []}, "response": {"choices": [{"message": {"content": "x"}}]}},
            "response.choices[0].message has no 'role'",
        ),
        (
            {
                "request": {"messages": []},
                "response": {**_OK_REPLY, "usage": {"completion_tokens": -1}},
            },
            (
                "response: usage.completion_tokens must be a number of tokens (a whole "
                "number from 0 to 2**63 - 1), got -1"
            ),
        ),
        (
            {"request": {"messages": []}, "response": _OK_REPLY, "cost": -1},
            "cost must be an amount (a number from 0 to 2**63 - 1), got -1",
        ),
        (
            {"calls": [{"request": {"messages": []}, "response": _OK_REPLY, "latency_ms": -1}]},
            "calls[0]: latency_ms must be a duration (a number from 0 to 2**63 - 1), got -1",
        ),
        (
            {"calls": [{"request": {"messages": []}, "response": _OK_REPLY, "latency": -2}]},
            "calls[0]: latency must be a duration (a number from 0 to 2**63 - 1), got -2",
        ),
        (
            {"calls": [{"request": {"messages": []}, "response": _OK_REPLY}, 5]},
            "calls[1] is not a {request, response} call",
        ),
        (
            [{"request": {"messages": []}, "response": _OK_REPLY}, 5],
            "record[1] is not a {request, response} call",
        ),
        (
            {"calls": [{"request": {"messages": [5]}}]},
            "calls[0].request.messages[0] is not a message object",
        ),
        (
            {
                "calls": [
                    {
                        "request": {"messages": []},
                        "response": {"choices": [{"message": {"role": "assistant", "content": 5}}]},
                    }
                ]
            },
            (
                "calls[0].response.choices[0].message.content: message content must be "
                "a string or a list of parts, got 5"
            ),
        ),
    ],
)
def test_malformed_openai_chat_records_say_where_and_why(record: Any, expected: str) -> None:
    """docs/offline.md: an unreadable line is reported naming the field and what it should hold."""
    assert error_of(record, "openai") == expected


def test_an_empty_calls_list_is_no_known_format() -> None:
    """A `calls` list must hold calls to be read as chat completions (detection needs one)."""
    assert error_of({"calls": []}, None).startswith(
        "unrecognised transcript record (keys: ['calls'])"
    )


# ---------------------------------------------------------------------------------------------
# the models built fast from logs behave as validated ones


@pytest.mark.parametrize("record", [OPENAI_TRANSCRIPT, OPENAI_CALLS], ids=["transcript", "calls"])
def test_parsed_conversations_copy_pickle_and_dump_like_validated_ones(record: Any) -> None:
    c = parse_record(record)
    assert pickle.loads(pickle.dumps(c)) == c
    assert copy.deepcopy(c) == c
    assert c.model_copy() == c
    assert c.model_dump(exclude_unset=True) == c.model_dump()
    assert c.turns[0].model_copy(update={"text": "x"}).text == "x"
    assert Conversation.model_validate(json.loads(c.model_dump_json())) == c


# ---------------------------------------------------------------------------------------------
# Anthropic Messages

ANTHROPIC_TRANSCRIPT = {
    "id": "a1",
    "model": "claude-x",
    "case": "booking",
    "system": [{"type": "text", "text": "You "}, {"type": "text", "text": "book."}],
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Table "}, {"type": "text", "text": "for 4?"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Let me "},
                {"type": "text", "text": "check."},
                {"type": "tool_use", "id": "toolu_1", "name": "check", "input": {"n": 4}},
                {
                    "type": "server_tool_use",
                    "id": "srv_1",
                    "name": "web_search",
                    "input": {"q": "x"},
                },
            ],
        },
        # only tool results: the tools answering, so the turn goes on
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "is_error": True,
                    "content": "timeout",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "srv_1",
                    "content": [
                        {"type": "text", "text": "found "},
                        {"type": "image"},
                        {"type": "text", "text": "it"},
                    ],
                },
            ],
        },
        {"role": "assistant", "content": [{"type": "text"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Booking."},
                {"type": "tool_use", "id": "toolu_2", "name": "book", "input": {}},
            ],
        },
        # results and text: the results end this turn, the text starts the next one
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": {"rows": 1, "at": "Café"},
                },
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": 42, "is_error": "yes"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "image"}]},
                {"type": "tool_result", "tool_use_id": "toolu_2"},
                {"type": "text", "text": "Also Sunday?"},
            ],
        },
        {"role": "assistant", "content": None},
    ],
    "response": {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": "Booked."}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 30,
            "output_tokens": 4,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 20,
        },
    },
}

ANTHROPIC_TRANSCRIPT_EXPECTED = conv(
    id="a1",
    metadata={"case": "booking", "model": "claude-x"},
    turns=[
        turn(
            "Table for 4?",
            "Booking.",
            [
                msg("system", "You book."),
                msg("user", "Table for 4?"),
                msg(
                    "assistant",
                    "Let me check.",
                    (call("check", {"n": 4}, "toolu_1"), call("web_search", {"q": "x"}, "srv_1")),
                ),
                msg("tool", "timeout", call_id="toolu_1"),
                msg("tool", "found it", call_id="srv_1"),
                msg("assistant", ""),
                msg("assistant", "Booking.", (call("book", {}, "toolu_2"),)),
                msg("tool", '{"rows": 1, "at": "Café"}', call_id="toolu_2"),
                msg("tool", "42", call_id="toolu_2"),
                msg("tool", "", call_id="toolu_2"),
                msg("tool", "", call_id="toolu_2"),
            ],
            (
                result("timeout", "toolu_1", "check", is_error=True),
                result("found it", "srv_1", "web_search"),
                result(
                    '{"rows": 1, "at": "Café"}',  # JSON text, non-ASCII kept as it is
                    "toolu_2",
                    "book",
                    data={"rows": 1, "at": "Café"},
                ),
                # results past the one call of their id pair with no call (G20): no name
                result("42", "toolu_2", None),
                result("", "toolu_2", None),
                result("", "toolu_2", None),
            ),
        ),
        turn(
            "Also Sunday?",
            "Booked.",
            [msg("user", "Also Sunday?"), msg("assistant", None), msg("assistant", "Booked.")],
            metadata={
                "model": "claude-x",
                "input_tokens": 150,
                "output_tokens": 4,
                "total_tokens": 154,
                "stop_reason": "end_turn",
                "model_calls": 1,
            },
        ),
    ],
)

ANTHROPIC_ONE_CALL = {
    "id": "c-1",
    "metadata": {"env": "dev"},
    "latency_ms": 20,
    "request": {
        "model": "claude-x",
        "system": "S",
        "messages": [{"role": "user", "content": "Hi"}],
    },
    "response": {
        "type": "message",
        "role": "assistant",
        "model": "claude-x-2025",
        "content": [{"type": "text", "text": "Hello"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 1},
    },
}

ANTHROPIC_ONE_CALL_EXPECTED = conv(
    id="c-1",
    metadata={"env": "dev", "latency_ms": 20},
    turns=[
        turn(
            "Hi",
            "Hello",
            [msg("system", "S"), msg("user", "Hi"), msg("assistant", "Hello")],
            metadata={
                "model": "claude-x",
                "latency_ms": 20,
                "input_tokens": 3,
                "output_tokens": 1,
                "total_tokens": 4,
                "stop_reason": "end_turn",
                "model_calls": 1,
            },
        )
    ],
)

_T1 = {"type": "tool_use", "id": "t1", "name": "w", "input": {"c": "Oslo"}}
_ANTHROPIC_FIRST = {
    "request": {"system": "S", "messages": [{"role": "user", "content": "Weather?"}]},
    "response": {
        "content": [_T1],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 2},
    },
}
ANTHROPIC_CALLS = {
    "id": "c-2",
    "tags": ["t"],
    "calls": [
        _ANTHROPIC_FIRST,
        {
            "request": {
                "system": "S",
                "messages": [
                    {"role": "user", "content": "Weather?"},
                    {"role": "assistant", "content": [_T1]},
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5C"}],
                    },
                ],
            },
            "response": {
                "content": [{"type": "text", "text": "5C in Oslo."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 9, "output_tokens": 3},
            },
        },
    ],
}

_OSLO_TURN = turn(
    "Weather?",
    "5C in Oslo.",
    [
        msg("system", "S"),
        msg("user", "Weather?"),
        msg("assistant", None, (call("w", {"c": "Oslo"}, "t1"),)),
        msg("tool", "5C", call_id="t1"),
        msg("assistant", "5C in Oslo."),
    ],
    (result("5C", "t1", "w"),),
    metadata={
        "input_tokens": 14,
        "output_tokens": 5,
        "total_tokens": 19,
        "stop_reason": "end_turn",  # the last call's: the first one's tool_use did not end it
        "model_calls": 2,
    },
)
ANTHROPIC_CALLS_EXPECTED = conv(id="c-2", metadata={"tags": ["t"]}, turns=[_OSLO_TURN])

ANTHROPIC_ARRAY = [
    {
        "request": {"messages": [{"role": "user", "content": "Hi"}]},
        "response": {"type": "message", "content": [{"type": "text", "text": "Hey"}]},
    },
]
ANTHROPIC_ARRAY_EXPECTED = conv(
    turns=[
        turn("Hi", "Hey", [msg("user", "Hi"), msg("assistant", "Hey")], metadata={"model_calls": 1})
    ]
)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(ANTHROPIC_TRANSCRIPT, ANTHROPIC_TRANSCRIPT_EXPECTED, id="transcript"),
        pytest.param(ANTHROPIC_ONE_CALL, ANTHROPIC_ONE_CALL_EXPECTED, id="one-call"),
        pytest.param(ANTHROPIC_CALLS, ANTHROPIC_CALLS_EXPECTED, id="calls"),
        pytest.param(ANTHROPIC_ARRAY, ANTHROPIC_ARRAY_EXPECTED, id="array-of-calls"),
    ],
)
def test_anthropic_records_become_these_conversations(
    record: Any, expected: dict[str, Any]
) -> None:
    """docs/offline.md "Anthropic Messages": tool_use blocks are calls, a user message of only
    tool_result blocks continues the turn, text beside results starts the next one."""
    check(record, "anthropic", expected)


_ANTHROPIC_OK = {"content": [], "stop_reason": "end_turn"}


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ("x", "expected an object with 'messages' (Anthropic Messages format)"),
        (
            {},
            (
                "expected 'messages', a {request, response} call, or 'calls' "
                "(Anthropic Messages format)"
            ),
        ),
        ({"messages": [5]}, "messages[0] is not a message object with a 'role'"),
        (
            {"messages": [{"role": "user", "content": 5}]},
            "messages[0].content must be a string or a list of blocks",
        ),
        (
            {"messages": [{"role": "user", "content": [5]}]},
            "messages[0].content[0] is not a content block with a 'type'",
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "name": "f"}]}]},
            "messages[0].content[0] (tool_use) has no 'id'",
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]},
            "a tool call has no name (got None)",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]},
            "messages[0].content[0] (tool_result) has no 'tool_use_id'",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": 1}]}
                        ],
                    }
                ]
            },
            "messages[0].content[0].content[0]: 'type' must be a string (got 1)",
        ),
        ({"system": [{"type": 1}], "messages": []}, "system[0]: 'type' must be a string (got 1)"),
        ({"messages": [], "response": "x"}, "response is not a message with 'content' blocks"),
        (
            {"messages": [], "response": {"content": [5]}},
            "response.content[0] is not a content block with a 'type'",
        ),
        (
            {"messages": [], "response": {**_ANTHROPIC_OK, "usage": {"output_tokens": -1}}},
            (
                "response: usage.output_tokens must be a number of tokens (a whole "
                "number from 0 to 2**63 - 1), got -1"
            ),
        ),
        (
            {
                "request": {"system": "S", "messages": []},
                "response": {**_ANTHROPIC_OK, "usage": {"output_tokens": 1.5}},
            },
            (
                "record[0].response: usage.output_tokens must be a number of tokens (a "
                "whole number from 0 to 2**63 - 1), got 1.5"
            ),
        ),
        (
            {"request": {"system": "S", "messages": []}, "response": _ANTHROPIC_OK, "cost": -1},
            "record[0]: cost must be an amount (a number from 0 to 2**63 - 1), got -1",
        ),
        (
            [{"request": {"system": "S", "messages": []}}, 5],
            "record[1] is not a {request, response} call",
        ),
        (
            {"calls": [{"request": {"system": "S", "messages": []}}, 5]},
            "calls[1] is not a {request, response} call",
        ),
        (
            {"calls": [{"request": {"system": "S", "messages": [5]}}]},
            "calls[0].request.messages[0] is not a message object with a 'role'",
        ),
        (
            {"calls": [{"request": {"system": [{"type": 1}], "messages": []}}]},
            "calls[0].request.system[0]: 'type' must be a string (got 1)",
        ),
    ],
)
def test_malformed_anthropic_records_say_where_and_why(record: Any, expected: str) -> None:
    """docs/offline.md: an unreadable line is reported naming the field and what it should hold."""
    assert error_of(record, "anthropic") == expected


# ---------------------------------------------------------------------------------------------
# OpenAI Responses API

RESPONSES_OBJECT = {
    "id": "resp_1",
    "object": "response",
    "model": "gpt-4.1",
    "status": "completed",
    "instructions": "Travel.",
    "input": [
        {"role": "user", "content": "Rome?"},
        {
            "type": "function_call",
            "call_id": "fc_1",
            "name": "search",
            "arguments": '{"to": "FCO"}',
        },
        {"type": "function_call", "call_id": "fc_2", "name": "hotels", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "fc_1", "output": "[]"},
        {
            "type": "function_call_output",
            "call_id": "fc_2",
            "output": [{"type": "input_text", "text": "none"}],
            "status": "failed",
        },
        {"type": "reasoning", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Trying trains."}],
        },
        # a call after text is a step of its own
        {"type": "function_call", "call_id": 3, "name": "trains"},
        {"type": "function_call_output", "call_id": 3, "output": None, "is_error": True},
        {
            "type": "function_call_output",
            "call_id": "fc_9",
            "output": "late",
            "status": "completed",
            "is_error": "yes",
        },
        {"type": "message", "role": "assistant", "content": []},
        {"type": "function_call", "call_id": "fc_4", "name": "buses", "arguments": "{}"},
    ],
    "output": [
        {
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "No "},
                {"type": "output_text", "text": "luck."},
            ],
        }
    ],
    "usage": {"input_tokens": 80, "output_tokens": 6},
}

_ROME_CALLS = (
    call("search", {"to": "FCO"}, "fc_1", '{"to": "FCO"}'),
    call("hotels", {}, "fc_2", "{}"),
)
RESPONSES_OBJECT_EXPECTED = conv(
    id="resp_1",
    metadata={"model": "gpt-4.1", "input_tokens": 80, "output_tokens": 6, "total_tokens": 86},
    turns=[
        turn(
            "Rome?",
            "No luck.",
            [
                msg("system", "Travel."),
                msg("user", "Rome?"),
                msg("assistant", None, _ROME_CALLS),
                msg("tool", "[]", call_id="fc_1"),
                msg("tool", "none", call_id="fc_2"),
                msg("assistant", "Trying trains."),
                msg("assistant", None, (call("trains", {}, "3"),)),
                msg("tool", "", call_id="3"),
                msg("tool", "late", call_id="fc_9"),
                msg("assistant", None),
                msg("assistant", None, (call("buses", {}, "fc_4", "{}"),)),
                msg("assistant", "No luck."),
            ],
            (
                result("[]", "fc_1", "search"),
                result("none", "fc_2", "hotels", is_error=True),
                result("", "3", "trains", is_error=True),
                # an id no call has pairs with no call (G20), so it names no tool
                result("late", "fc_9", None),
            ),
            metadata={
                "model": "gpt-4.1",
                "input_tokens": 80,
                "output_tokens": 6,
                "total_tokens": 86,
                "status": "completed",
                "model_calls": 1,
            },
        )
    ],
)

RESPONSES_ONE_CALL = {
    "id": "r2",
    "latency_ms": 9,
    "request": {"model": "gpt-4.1", "instructions": "I", "input": "Hello"},
    "response": {
        "model": "gpt-4.1-2025",
        "status": "incomplete",
        "output": [{"role": "assistant", "content": "Hi there"}],
        "usage": {"input_tokens": 2, "output_tokens": 2},
    },
}
RESPONSES_ONE_CALL_EXPECTED = conv(
    id="r2",
    metadata={"latency_ms": 9},
    turns=[
        turn(
            "Hello",
            "Hi there",
            [msg("system", "I"), msg("user", "Hello"), msg("assistant", "Hi there")],
            metadata={
                "model": "gpt-4.1",
                "latency_ms": 9,
                "input_tokens": 2,
                "output_tokens": 2,
                "total_tokens": 4,
                "status": "incomplete",
                "model_calls": 1,
            },
        )
    ],
)

RESPONSES_CALLS = {
    "id": "r3",
    "test_case": "search",
    "calls": [
        {
            "request": {"input": [{"role": "user", "content": "Find x"}]},
            "response": {
                "output": [
                    {"type": "function_call", "call_id": "f", "name": "find", "arguments": "{}"}
                ]
            },
        },
        {
            "request": {
                "input": [
                    {"role": "user", "content": "Find x"},
                    {"type": "function_call", "call_id": "f", "name": "find", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "f", "output": "x found"},
                ]
            },
            "response": {"output": []},
        },
    ],
}
RESPONSES_CALLS_EXPECTED = conv(
    id="r3",
    metadata={"test_case": "search"},
    turns=[
        turn(
            "Find x",
            "",
            [
                msg("user", "Find x"),
                msg("assistant", None, (call("find", {}, "f", "{}"),)),
                msg("tool", "x found", call_id="f"),
            ],
            (result("x found", "f", "find"),),
            metadata={"model_calls": 1},
        )
    ],
)

RESPONSES_ITEMS = {
    "metadata": {"k": 1},
    "items": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        {"role": "assistant", "content": "Yo"},
        # two calls after text: one step of their own
        {"type": "function_call", "call_id": "x", "name": "fx", "arguments": "{}"},
        {"type": "function_call", "call_id": "y", "name": "fy", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "y", "output": "y-out"},
    ],
}
RESPONSES_ITEMS_EXPECTED = conv(
    metadata={"k": 1},
    turns=[
        turn(
            "Hi",
            "Yo",
            [
                msg("user", "Hi"),
                msg("assistant", "Yo"),
                msg("assistant", None, (call("fx", {}, "x", "{}"), call("fy", {}, "y", "{}"))),
                msg("tool", "y-out", call_id="y"),
            ],
            (result("y-out", "y", "fy"),),
        )
    ],
)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(RESPONSES_OBJECT, RESPONSES_OBJECT_EXPECTED, id="response-object"),
        pytest.param(RESPONSES_ONE_CALL, RESPONSES_ONE_CALL_EXPECTED, id="one-call"),
        pytest.param(RESPONSES_CALLS, RESPONSES_CALLS_EXPECTED, id="calls"),
        pytest.param(RESPONSES_ITEMS, RESPONSES_ITEMS_EXPECTED, id="items"),
    ],
)
def test_openai_responses_records_become_these_conversations(
    record: Any, expected: dict[str, Any]
) -> None:
    """docs/offline.md "OpenAI Responses API": consecutive calls are one assistant step,
    results link by call_id, `status: failed` or `is_error: true` marks a result errored."""
    check(record, "openai-responses", expected)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ("x", "expected an object with 'output' or 'items' (OpenAI Responses)"),
        (
            {},
            (
                "expected 'input' and 'output', a {request, response} call, 'calls' or "
                "'items' (OpenAI Responses format)"
            ),
        ),
        ({"input": 5, "output": []}, "input must be a string or a list of items"),
        ({"input": [5], "output": []}, "input[0] is not an item object"),
        ({"input": [{"type": 5}], "output": []}, "input[0]: 'type' must be a string (got 5)"),
        ({"input": [{"content": "x"}], "output": []}, "input[0] (message) has no 'role'"),
        (
            {"input": [{"role": "user", "content": 5}], "output": []},
            "input[0].content: message content must be a string or a list of parts, got 5",
        ),
        (
            {"input": [{"type": "function_call", "name": "f"}], "output": []},
            "input[0] (function_call) has no 'call_id'",
        ),
        (
            {"input": [{"type": "function_call", "call_id": "c"}], "output": []},
            "a tool call has no name (got None)",
        ),
        (
            {"input": [{"type": "function_call_output", "output": "x"}], "output": []},
            "input[0] (function_call_output) has no 'call_id'",
        ),
        (
            {
                "input": [{"type": "function_call_output", "call_id": "c", "output": 5}],
                "output": [],
            },
            "input[0].output: message content must be a string or a list of parts, got 5",
        ),
        ({"output": [5]}, "output[0] is not an item object"),
        ({"items": [5]}, "items[0] is not an item object"),
        (
            {"output": [{"role": "assistant", "content": "x"}], "usage": {"input_tokens": -1}},
            (
                "usage.input_tokens must be a number of tokens (a whole number from 0 "
                "to 2**63 - 1), got -1"
            ),
        ),
        (
            {"request": {"input": [5]}, "response": None},
            "record[0].request.input[0] is not an item object",
        ),
        (
            {"request": {"input": []}, "response": {"output": 5}},
            "record[0].response has no 'output' list",
        ),
        ({"request": {"input": []}, "response": "x"}, "record[0].response has no 'output' list"),
        (
            {"request": {"input": []}, "response": {"output": [5]}},
            "record[0].response.output[0] is not an item object",
        ),
        (
            {
                "calls": [
                    {
                        "request": {"input": []},
                        "response": {
                            "output": [{"role": "assistant", "content": "x"}],
                            "usage": {"input_tokens": -1},
                        },
                    }
                ]
            },
            (
                "calls[0].response: usage.input_tokens must be a number of tokens (a "
                "whole number from 0 to 2**63 - 1), got -1"
            ),
        ),
        (
            {
                "calls": [
                    {
                        "request": {"input": []},
                        "response": {"output": [{"role": "assistant", "content": "x"}]},
                        "cost": -1,
                    }
                ]
            },
            "calls[0]: cost must be an amount (a number from 0 to 2**63 - 1), got -1",
        ),
        ({"calls": [{"request": {"input": []}}, 5]}, "calls[1] is not a {request, response} call"),
    ],
)
def test_malformed_openai_responses_records_say_where_and_why(record: Any, expected: str) -> None:
    """docs/offline.md: an unreadable line is reported naming the field and what it should hold."""
    assert error_of(record, "openai-responses") == expected


# ---------------------------------------------------------------------------------------------
# format detection, line by line, in the documented order

_USER = {"role": "user", "content": "Hi"}
_TOOL_USE = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
}
_CHAT_REPLY = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}


def detected(record: Any) -> str | None:
    from chatassert.transcripts import FORMATS

    return next((name for name, (detect, _) in FORMATS.items() if detect(record)), None)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"messages": [_USER]}, "openai"),
        ({"messages": [_USER], "system": "S"}, "anthropic"),
        ({"messages": [_TOOL_USE]}, "anthropic"),
        (
            {"messages": ["x", {"role": "user", "content": ["x", {"type": "tool_result"}]}]},
            "anthropic",
        ),
        ({"messages": [{"role": "assistant", "content": [{"type": "thinking"}]}]}, "anthropic"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}, "openai"),
        ({"messages": [_USER], "response": {"type": "message", "content": "x"}}, "anthropic"),
        (
            {"messages": [_USER], "response": {"content": [], "stop_reason": "end_turn"}},
            "anthropic",
        ),
        ({"messages": [_USER], "response": {"content": []}}, "openai"),
        ({"messages": [_USER], "response": {"content": "x", "stop_reason": "end_turn"}}, "openai"),
        ({"messages": [_USER], "response": {"type": "other", "content": []}}, "openai"),
        ({"request": {"system": "S", "messages": [_USER]}, "response": None}, "anthropic"),
        (
            {"request": {"messages": [_USER]}, "response": {"type": "message", "content": []}},
            "anthropic",
        ),
        ({"request": {"messages": [_TOOL_USE]}, "response": None}, "anthropic"),
        ({"request": {"messages": [_USER]}, "response": _CHAT_REPLY}, "openai"),
        ({"request": {"system": "S", "messages": "x"}}, None),
        ([{"request": {"system": "S", "messages": [_USER]}}], "anthropic"),
        ([{"request": {"messages": [_USER]}, "response": _CHAT_REPLY}], "openai"),
        ([], None),
        ({"calls": [{"request": {"system": "S", "messages": [_USER]}}]}, "anthropic"),
        ({"calls": [{"request": {"messages": [_USER]}}]}, "openai"),
        ({"calls": [{"request": {"input": "x"}}]}, "openai-responses"),
        ({"calls": [5, {"request": {"input": "x"}}]}, None),
        ({"calls": []}, None),
        ({"request": {"input": "x"}}, "openai-responses"),
        ({"request": {"inputs": "x"}}, None),
        ({"output": []}, "openai-responses"),
        ({"output": [{"type": "message"}]}, "openai-responses"),
        ({"output": [{"foo": 1}]}, None),
        ({"output": [{"type": "other"}]}, None),
        ({"object": "response", "output": [{"foo": 1}]}, "openai-responses"),
        ({"items": [{"type": "function_call"}]}, "openai-responses"),
        ({"items": [{"foo": 1}]}, None),
    ],
)
def test_each_line_is_detected_as_its_format(record: Any, expected: str | None) -> None:
    """docs/offline.md "Log formats": native, otel, openai-responses, anthropic, openai, in order;
    a `messages` line is Anthropic when it has a top-level `system`, an Anthropic `response`
    (`type: message`, or content blocks with a `stop_reason`), or an Anthropic-only block."""
    assert detected(record) == expected


# ---------------------------------------------------------------------------------------------
# OpenTelemetry GenAI spans


def _a(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def _s(text: str) -> dict[str, Any]:
    return {"stringValue": text}


def _j(value: Any) -> dict[str, Any]:
    return {"stringValue": json.dumps(value)}


_OSLO_ASSISTANT = {
    "role": "assistant",
    "parts": [
        {"type": "text", "content": "Checking."},
        {"type": "reasoning", "content": "not said"},
        {"type": "tool_call", "id": "call_7", "name": "get_weather", "arguments": {"city": "Oslo"}},
        {
            "type": "tool_call",
            "id": "call_8",
            "name": "get_weather",
            "arguments": '{"city": "Rome"}',
        },
    ],
}
_OSLO_USER = {"role": "user", "parts": [{"type": "text", "content": "Oslo and Rome?"}]}

OTEL_OTLP = {
    "resourceSpans": [
        {
            "scopeSpans": [
                {
                    "spans": [
                        {
                            "name": "chat gpt-4o",
                            "traceId": "abc",
                            "startTimeUnixNano": "3000000000",
                            "endTimeUnixNano": "3200000000",
                            "attributes": [
                                _a("gen_ai.operation.name", _s("chat")),
                                _a("gen_ai.request.model", _s("gpt-4o")),
                                _a("gen_ai.usage.prompt_tokens", {"intValue": 60}),
                                _a("gen_ai.usage.completion_tokens", {"doubleValue": 9.0}),
                                _a("gen_ai.system_instructions", _j("Be brief.")),
                                _a(
                                    "gen_ai.input.messages",
                                    _j(
                                        [
                                            _OSLO_USER,
                                            _OSLO_ASSISTANT,
                                            {
                                                "role": "tool",
                                                "parts": [
                                                    {
                                                        "type": "tool_call_response",
                                                        "id": "call_7",
                                                        "response": "5C",
                                                        "result": "not this",
                                                    }
                                                ],
                                            },
                                        ]
                                    ),
                                ),
                                _a(
                                    "gen_ai.output.messages",
                                    _j(
                                        [
                                            {
                                                "role": "assistant",
                                                "parts": [{"type": "text", "content": "Oslo 5C."}],
                                            }
                                        ]
                                    ),
                                ),
                            ],
                        },
                        {
                            "name": "execute_tool get_weather",
                            "startTimeUnixNano": "2000000000",
                            "attributes": [
                                _a("gen_ai.operation.name", _s("execute_tool")),
                                _a("gen_ai.tool.call.id", _s("call_7")),
                                _a("error.type", _s("TimeoutError")),
                            ],
                        },
                        {
                            "name": "chat gpt-4o",
                            "traceId": "abc",
                            "startTimeUnixNano": "1000000000",
                            "endTimeUnixNano": "1500000000",
                            "attributes": [
                                _a("gen_ai.operation.name", _s("chat")),
                                _a("gen_ai.request.model", _s("gpt-4o")),
                                _a("gen_ai.response.model", _s("gpt-4o-2024")),
                                _a("gen_ai.conversation.id", _s("conv-x")),
                                _a("gen_ai.agent.name", _s("weather-bot")),
                                _a("gen_ai.usage.input_tokens", {"intValue": "40"}),
                                _a("gen_ai.usage.output_tokens", {"intValue": "7"}),
                                _a(
                                    "gen_ai.system_instructions",
                                    _j(
                                        [
                                            {"type": "text", "content": "Be "},
                                            "x",
                                            {"type": "image"},
                                            {"type": "text"},
                                            {"type": "text", "content": "brief."},
                                        ]
                                    ),
                                ),
                                _a("gen_ai.input.messages", _j([_OSLO_USER])),
                                _a("gen_ai.output.messages", _j([_OSLO_ASSISTANT])),
                            ],
                        },
                    ]
                }
            ]
        },
        {
            "instrumentationLibrarySpans": [
                {
                    "spans": [
                        {
                            "name": "execute_tool get_weather",
                            "startTimeUnixNano": "2500000000",
                            "status": {"code": 2},
                            "attributes": [
                                _a("gen_ai.operation.name", _s("execute_tool")),
                                _a("gen_ai.tool.call.id", _s("call_8")),
                                _a(
                                    "gen_ai.tool.call.result",
                                    {
                                        "arrayValue": {
                                            "values": [
                                                {"intValue": "-9223372036854775808"},
                                                {"doubleValue": "1.5"},
                                                {"doubleValue": 2},
                                                {"boolValue": False},
                                                {
                                                    "kvlistValue": {
                                                        "values": [_a("a", _s("b")), "skipped"]
                                                    }
                                                },
                                                {"arrayValue": None},
                                                {"kvlistValue": {}},
                                                {"bytesValue": "AA=="},
                                                {"stringValue": "x", "extra": 1},
                                                7,
                                            ]
                                        }
                                    },
                                ),
                            ],
                        }
                    ]
                }
            ]
        },
    ]
}

_OSLO_CALLS = (
    call("get_weather", {"city": "Oslo"}, "call_7"),
    call("get_weather", {"city": "Rome"}, "call_8", '{"city": "Rome"}'),
)
_OTLP_RESULT = (
    '[-9223372036854775808, 1.5, 2, false, {"a": "b"}, [], {}, '
    '{"bytesValue": "AA=="}, {"stringValue": "x", "extra": 1}, 7]'
)
OTEL_OTLP_EXPECTED = conv(
    id="conv-x",
    metadata={"trace_id": "abc", "agent": "weather-bot"},
    turns=[
        turn(
            "Oslo and Rome?",
            "Oslo 5C.",
            [
                msg("system", "Be brief."),
                msg("user", "Oslo and Rome?"),
                msg("assistant", "Checking.", _OSLO_CALLS),
                msg("tool", "5C", call_id="call_7"),
                # the result only the tool span shows, after the results the chat spans show
                msg("tool", _OTLP_RESULT, call_id="call_8"),
                msg("assistant", "Oslo 5C."),
            ],
            (
                result("5C", "call_7", "get_weather", is_error=True),
                result(_OTLP_RESULT, "call_8", "get_weather", is_error=True),
            ),
            metadata={
                "model": "gpt-4o-2024",
                "input_tokens": 100,
                "output_tokens": 16.0,
                "latency_ms": 700.0,
                "model_calls": 2,
            },
        )
    ],
)


def _chat_span(start: int, inputs: list[Any], outputs: list[Any], **attrs: Any) -> dict[str, Any]:
    return {
        "span_id": f"s{start}",
        "start_time_unix_nano": start,
        "attributes": {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(inputs),
            "gen_ai.output.messages": json.dumps(outputs),
            **attrs,
        },
    }


def _tool_span(start: int, call_id: Any, status: Any = None, **attrs: Any) -> dict[str, Any]:
    span: dict[str, Any] = {
        "start_time_unix_nano": start,
        "attributes": {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.id": call_id,
            **attrs,
        },
    }
    if status is not None:
        span["status"] = status
    return span


_GO = {"role": "user", "parts": [{"type": "text", "content": "Go"}]}
_LETTERS = "abcdefgh"
_ALL_CALLS = {
    "role": "assistant",
    "parts": [{"type": "tool_call", "id": c, "name": f"t_{c}"} for c in _LETTERS],
}
OTEL_TOOL_SPANS = {
    "id": "t-1",
    "spans": [
        _chat_span(1, [_GO], [_ALL_CALLS]),
        _tool_span(2, "a", {"code": 2}),
        _tool_span(3, "b", {"code": 1}),
        _tool_span(4, "c", {"code": "STATUS_CODE_ERROR"}, **{"gen_ai.tool.call.result": "c-out"}),
        _tool_span(5, "d", **{"error.type": "Boom"}),
        _tool_span(6, "e", {"code": "ERROR"}, **{"gen_ai.tool.call.result": {"x": 1}}),
        _tool_span(7, "f", {"code": "error"}),
        _tool_span(8, "g", "ERROR"),
        _tool_span(8, "z", {"code": 2}),
        _tool_span(9, None, {"code": 2}),
        _chat_span(
            10,
            [
                _GO,
                _ALL_CALLS,
                {
                    "role": "tool",
                    "parts": [
                        {"type": "tool_call_response", "id": "a", "response": {"r": 1}},
                        {"type": "text", "content": "dropped"},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"type": "tool_call_response", "id": "b", "result": [1, 2]},
                        {"type": "tool_call_response", "response": 5},
                        {"type": "text", "content": "Also "},
                        {"type": "text"},
                        {"type": "text", "content": "this."},
                    ],
                },
            ],
            [{"role": "assistant", "parts": [{"type": "text", "content": "Done"}]}],
        ),
        _chat_span(
            20,
            [{"role": "user", "parts": [{"type": "text", "content": "More"}]}],
            [{"role": "assistant", "parts": [{"type": "tool_call", "id": 11, "name": "t_k"}]}],
        ),
        _tool_span(21, 11, **{"gen_ai.tool.call.result": "k-out"}),
    ],
}

_ALL_CALLS_DUMP = tuple(call(f"t_{c}", {}, c) for c in _LETTERS)
OTEL_TOOL_SPANS_EXPECTED = conv(
    id="t-1",
    metadata={"span_id": "s1"},  # the root span: where a whole-conversation result links
    turns=[
        turn(
            "Go",
            "",
            [
                msg("user", "Go"),
                msg("assistant", None, _ALL_CALLS_DUMP),
                msg("tool", '{"r": 1}', call_id="a"),
                msg("tool", "[1, 2]", call_id="b"),
                msg("tool", "5"),
                msg("tool", "c-out", call_id="c"),
                msg("tool", "Boom", call_id="d"),
                msg("tool", '{"x": 1}', call_id="e"),
                msg("tool", "", call_id="f"),
                msg("tool", "", call_id="g"),
            ],
            (
                result('{"r": 1}', "a", "t_a", data={"r": 1}, is_error=True),
                result("[1, 2]", "b", "t_b", data=[1, 2]),
                # no id: the first call whose id no result names (G20), not the one at its place
                result("5", None, "t_h"),
                result("c-out", "c", "t_c", is_error=True),
                result("Boom", "d", "t_d", is_error=True),
                result('{"x": 1}', "e", "t_e", is_error=True),
                result("", "f", "t_f", is_error=True),
                result("", "g", "t_g"),
            ),
            metadata={"model_calls": 1, "span_id": "s1"},
        ),
        turn(
            "Also this.",
            "Done",
            [msg("user", "Also this."), msg("assistant", "Done")],
            metadata={"model_calls": 1, "span_id": "s10"},
        ),
        turn(
            "More",
            "",
            [
                msg("user", "More"),
                msg("assistant", None, (call("t_k", {}, "11"),)),
                msg("tool", "k-out", call_id="11"),
            ],
            (result("k-out", "11", "t_k"),),
            metadata={"model_calls": 1, "span_id": "s20"},
        ),
    ],
)

_FN_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
OTEL_EVENTS = {
    "case": "legacy",
    "spans": [
        {
            "name": "chat",
            "trace_id": "tt",
            "start_time_unix_nano": 5,
            "end_time_unix_nano": 2000005,
            "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"},
            "events": [
                {"name": "gen_ai.system.message", "body": {"content": "Sys"}},
                {
                    "name": "gen_ai.user.message",
                    "attributes": {"gen_ai.event.content": '{"content": "Hi"}'},
                },
                {
                    "name": "gen_ai.assistant.message",
                    "body": {
                        "content": None,
                        "tool_calls": [_FN_CALL, {"id": "cx", "function": "bad"}, "bad"],
                    },
                },
                {"name": "gen_ai.tool.message", "body": {"id": "c1", "content": {"ok": True}}},
                {"name": "gen_ai.assistant.message", "body": {"id": "ignored", "content": ["a"]}},
                {"name": "other.event", "body": {"content": "ignored"}},
                {"body": {"content": "no name"}},
                "not an event",
                {"name": "gen_ai.user.message", "body": "not a mapping"},
                {
                    "name": "gen_ai.choice",
                    "body": {"index": 0, "finish_reason": "stop", "message": {"content": "Done."}},
                },
                {"name": "gen_ai.user.message", "attributes": [_a("content", _s("Again"))]},
                {
                    "name": "gen_ai.choice",
                    "body": {"content": "Again done.", "message": "not a mapping"},
                },
            ],
        }
    ],
}
OTEL_EVENTS_EXPECTED = conv(
    metadata={"case": "legacy", "trace_id": "tt"},
    turns=[
        turn(
            "Hi",
            '["a"]',
            [
                msg("system", "Sys"),
                msg("user", "Hi"),
                msg("assistant", None, (call("f", {"a": 1}, "c1", '{"a": 1}'),)),
                msg("tool", '{"ok": true}', call_id="c1"),
                msg("assistant", '["a"]'),
            ],
            (result('{"ok": true}', "c1", "f"),),
        ),
        turn(
            "Again",
            "Again done.",
            [msg("user", "Again"), msg("assistant", "Done."), msg("assistant", "Again done.")],
            metadata={"model": "m", "latency_ms": 2.0, "model_calls": 1},
        ),
    ],
)

# a trace of agent spans only: they are all there is to read; no trace id, agent or id at all
OTEL_AGENT_ONLY = {
    "spans": [
        {
            "spanId": "1",
            "startTimeUnixNano": 7,
            "endTimeUnixNano": 7,
            "attributes": {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.system_instructions": "5",
                "gen_ai.input.messages": [
                    {"role": "user", "parts": [{"type": "text", "content": "Hi"}]}
                ],
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": [{"type": "text", "content": "Yo"}]}
                ],
            },
        }
    ]
}
OTEL_AGENT_ONLY_EXPECTED = conv(
    metadata={"span_id": "1"},
    turns=[
        turn(
            "Hi",
            "Yo",
            [msg("user", "Hi"), msg("assistant", "Yo")],
            metadata={"latency_ms": 0.0, "model_calls": 1, "span_id": "1"},
        )
    ],
)

# no operation name but messages: an inference span; output only, no input at all
OTEL_UNNAMED = {
    "spans": [
        {
            "attributes": {
                "gen_ai.input.messages": (
                    '[{"role": "user", "parts": [{"type": "text", "content": "Q"}]}]'
                ),
            }
        },
        {
            "attributes": {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": (
                    '[{"role": "assistant", "parts": [{"type": "text", "content": "A"}]}]'
                ),
            }
        },
    ]
}
OTEL_UNNAMED_EXPECTED = conv(
    turns=[turn("Q", "A", [msg("user", "Q"), msg("assistant", "A")], metadata={"model_calls": 1})]
)


# the agent spoke first, calling a tool: a turn of its own, its result from the tool span
OTEL_AGENT_FIRST = {
    "spans": [
        {
            "attributes": {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "tool_call", "id": "q", "name": "tq"}],
                        }
                    ]
                ),
            }
        },
        _tool_span(1, "q", **{"gen_ai.tool.call.result": "q-out"}),
    ]
}
OTEL_AGENT_FIRST_EXPECTED = conv(
    turns=[
        turn(
            None,
            "",
            [msg("assistant", None, (call("tq", {}, "q"),)), msg("tool", "q-out", call_id="q")],
            (result("q-out", "q", "tq"),),
            metadata={"model_calls": 1},
        )
    ]
)


# a tool span answers one call once: not a call a user message carries, not a reused id again
_Q = {"role": "assistant", "parts": [{"type": "tool_call", "id": "q", "name": "tq"}]}
OTEL_ODD_CALLS = {
    "spans": [
        _chat_span(
            1,
            [
                {
                    "role": "user",
                    "parts": [
                        {"type": "text", "content": "u"},
                        {"type": "tool_call", "id": "p", "name": "tp"},
                    ],
                }
            ],
            [_Q],
        ),
        _chat_span(2, [{"role": "user", "parts": [{"type": "text", "content": "again"}]}], [_Q]),
        _tool_span(3, "p", **{"gen_ai.tool.call.result": "p-out"}),
        _tool_span(4, "q", **{"gen_ai.tool.call.result": "q-out"}),
    ]
}
OTEL_ODD_CALLS_EXPECTED = conv(
    metadata={"span_id": "s1"},
    turns=[
        turn(
            "u",
            "",
            [
                msg("user", "u", (call("tp", {}, "p"),)),
                msg("assistant", None, (call("tq", {}, "q"),)),
                msg("tool", "q-out", call_id="q"),
            ],
            (result("q-out", "q", "tq"),),
            metadata={"model_calls": 1, "span_id": "s1"},
        ),
        turn(
            "again",
            "",
            [msg("user", "again"), msg("assistant", None, (call("tq", {}, "q"),))],
            metadata={"model_calls": 1, "span_id": "s2"},
        ),
    ],
)


def _named_chat(name: str, start: int | None, user: str, reply: str) -> dict[str, Any]:
    span = _chat_span(
        0,
        [{"role": "user", "parts": [{"type": "text", "content": user}]}],
        [{"role": "assistant", "parts": [{"type": "text", "content": reply}]}],
    )
    del span["start_time_unix_nano"]
    return (
        {"name": name, **span}
        if start is None
        else {"name": name, "startTimeUnixNano": start, **span}
    )


# spans in start order; a span without a start time counts as starting at 0; ties keep the
# order of the line
OTEL_ORDER = {
    "spans": [
        _named_chat("z", 1, "second", "2"),
        _named_chat("y", 1, "third", "3"),
        _named_chat("x", None, "first", "1"),
    ]
}
OTEL_ORDER_EXPECTED = conv(
    metadata={"span_id": "s0"},
    turns=[
        turn(
            u,
            r,
            [msg("user", u), msg("assistant", r)],
            metadata={"model_calls": 1, "span_id": "s0"},
        )
        for u, r in (("first", "1"), ("second", "2"), ("third", "3"))
    ],
)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param(OTEL_OTLP, OTEL_OTLP_EXPECTED, id="otlp"),
        pytest.param(OTEL_ORDER, OTEL_ORDER_EXPECTED, id="start-order"),
        pytest.param(OTEL_ODD_CALLS, OTEL_ODD_CALLS_EXPECTED, id="odd-calls"),
        pytest.param(OTEL_AGENT_FIRST, OTEL_AGENT_FIRST_EXPECTED, id="agent-first"),
        pytest.param(OTEL_TOOL_SPANS, OTEL_TOOL_SPANS_EXPECTED, id="tool-spans"),
        pytest.param(OTEL_EVENTS, OTEL_EVENTS_EXPECTED, id="message-events"),
        pytest.param(OTEL_AGENT_ONLY, OTEL_AGENT_ONLY_EXPECTED, id="agent-spans-only"),
        pytest.param(OTEL_UNNAMED, OTEL_UNNAMED_EXPECTED, id="unnamed-inference"),
    ],
)
def test_otel_traces_become_these_conversations(record: Any, expected: dict[str, Any]) -> None:
    """docs/offline.md "OpenTelemetry GenAI spans": spans in start order; inference spans give
    the messages and their turn's metadata; tool spans supply missing results and mark a result
    errored when the status is ERROR or the span has `error.type`."""
    check(record, "otel", expected)


def _one(**span: Any) -> dict[str, Any]:
    return {"spans": [{"name": "s", "attributes": {}, **span}]}


def _attr(value: Any) -> dict[str, Any]:
    return {"spans": [{"name": "s", "attributes": [_a("k", value)]}]}


def _chat(**attrs: Any) -> dict[str, Any]:
    return _one(attributes={"gen_ai.operation.name": "chat", **attrs})


_TIME = (
    "must be a time in nanoseconds since 1970 (a whole number from 0 to "
    "2**64 - 1, or a string of one)"
)
_DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ("x", "expected an exported trace with 'resourceSpans' or 'spans'"),
        (
            {"spans": [{"attributes": {"gen_ai.operation.name": "execute_tool"}}]},
            (
                "the trace has no GenAI inference span (gen_ai.operation.name 'chat') "
                "to read messages from, nor an OpenLLMetry (llm.request.type 'chat') or "
                "OpenInference (openinference.span.kind LLM) model call, nor a tool span "
                "with a tool name"
            ),
        ),
        (
            _one(attributes={"gen_ai.operation.name": 5}),
            "span 's': gen_ai.operation.name must be a string, got 5",
        ),
        (
            {"spans": [{"attributes": {"gen_ai.operation.name": 5}}]},
            "span 0: gen_ai.operation.name must be a string, got 5",
        ),
        ({"resourceSpans": [5]}, "resourceSpans[0] must be an object, got 5"),
        (
            {"resourceSpans": [{"scopeSpans": "x"}]},
            'resourceSpans[0].scopeSpans must be a list, got "x"',
        ),
        (
            {"resourceSpans": [{"scopeSpans": [5]}]},
            "resourceSpans[0].scopeSpans[0] must be an object, got 5",
        ),
        (
            {"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": 5}]}]},
            "resourceSpans[0].instrumentationLibrarySpans[0].spans must be a list, got 5",
        ),
        (
            {"resourceSpans": [{"scopeSpans": [{"spans": [{}, 5]}]}]},
            "resourceSpans[0].scopeSpans[0].spans[1] must be an object, got 5",
        ),
        ({"spans": [{"attributes": {}}, 5]}, "spans[1] must be an object, got 5"),
        (_one(startTimeUnixNano="-1"), f"span 's': startTimeUnixNano {_TIME}, got \"-1\""),
        (
            _one(start_time_unix_nano=2**64),
            f"span 's': start_time_unix_nano {_TIME}, got 18446744073709551616",
        ),
        (_one(startTimeUnixNano=True), f"span 's': startTimeUnixNano {_TIME}, got true"),
        (
            _one(
                attributes={"gen_ai.operation.name": "chat", "gen_ai.input.messages": "[]"},
                endTimeUnixNano=1.5,
            ),
            f"span 's': endTimeUnixNano {_TIME}, got 1.5",
        ),
        (_attr(_s(5)), "span 's': attribute 'k': stringValue must be a string, got 5"),
        (
            _attr({"boolValue": "true"}),
            "span 's': attribute 'k': boolValue must be true or false, got \"true\"",
        ),
        (
            _attr({"intValue": "x"}),
            (
                "span 's': attribute 'k': intValue must be a 64-bit integer, or a "
                'string of one, got "x"'
            ),
        ),
        (
            _attr({"intValue": 2**63}),
            (
                "span 's': attribute 'k': intValue must be a 64-bit integer, or a "
                "string of one, got 9223372036854775808"
            ),
        ),
        (
            _attr({"intValue": True}),
            (
                "span 's': attribute 'k': intValue must be a 64-bit integer, or a "
                "string of one, got true"
            ),
        ),
        (
            _attr({"doubleValue": "abc"}),
            "span 's': attribute 'k': doubleValue must be a number, got \"abc\"",
        ),
        (
            _attr({"doubleValue": False}),
            "span 's': attribute 'k': doubleValue must be a number, got false",
        ),
        (
            _attr({"arrayValue": 5}),
            "span 's': attribute 'k': arrayValue must be an object with a 'values' list, got 5",
        ),
        (
            _attr({"kvlistValue": {"values": 5}}),
            (
                "span 's': attribute 'k': kvlistValue must be an object with a "
                "'values' list, got an object"
            ),
        ),
        (
            _attr({"arrayValue": {"values": [{"intValue": "x"}]}}),
            (
                "span 's': attribute 'k'[0]: intValue must be a 64-bit integer, or a "
                'string of one, got "x"'
            ),
        ),
        (
            _attr({"kvlistValue": {"values": [_a("a", {"boolValue": 1})]}}),
            "span 's': attribute 'k': attribute 'a': boolValue must be true or false, got 1",
        ),
        (
            _one(attributes={"k": {"boolValue": 1}}),
            "span 's': attribute 'k': boolValue must be true or false, got 1",
        ),
        (
            _chat(**{"gen_ai.system_instructions": "Be brief.", "gen_ai.input.messages": "[]"}),
            (
                "span 's': system instructions is not valid JSON: Expecting value: "
                "line 1 column 1 (char 0)"
            ),
        ),
        (
            _chat(**{"gen_ai.input.messages": _DEEP}),
            "span 's': gen_ai.input.messages is JSON nested too deeply to read",
        ),
        (
            _chat(**{"gen_ai.output.messages": "[" + "1" * 5000 + "]"}),
            (
                "span 's': gen_ai.output.messages is not valid JSON: a number has more "
                "than 4300 digits"
            ),
        ),
        (
            _chat(**{"gen_ai.input.messages": '{"a": 1}'}),
            "span 's': gen_ai.input.messages is not a list of messages",
        ),
        (
            _chat(**{"gen_ai.output.messages": "5"}),
            "span 's': gen_ai.output.messages is not a list of messages",
        ),
        (
            _chat(**{"gen_ai.input.messages": '[{"parts": []}]'}),
            "span 's': gen_ai.input.messages[0] is not a message with a 'role'",
        ),
        (
            _chat(**{"gen_ai.input.messages": '[{"role": "user", "parts": 5}]'}),
            "span 's': gen_ai.input.messages[0].parts must be a list, got 5",
        ),
        (
            _chat(**{"gen_ai.input.messages": '[{"role": "user", "parts": [5]}]'}),
            "span 's': gen_ai.input.messages[0].parts[0] is not an object",
        ),
        (
            _chat(
                **{
                    "gen_ai.output.messages": (
                        '[{"role": "assistant", "parts": [{"type": "tool_call"}]}]'
                    )
                }
            ),
            "a tool call has no name (got None)",
        ),
        (
            _chat(**{"gen_ai.usage.input_tokens": -1, "gen_ai.input.messages": "[]"}),
            (
                "span 's': gen_ai.usage.input_tokens must be a number of tokens (a "
                "whole number from 0 to 2**63 - 1), got -1"
            ),
        ),
        (
            _chat(**{"gen_ai.usage.completion_tokens": 1.5, "gen_ai.input.messages": "[]"}),
            (
                "span 's': gen_ai.usage.completion_tokens must be a number of tokens "
                "(a whole number from 0 to 2**63 - 1), got 1.5"
            ),
        ),
        (
            _one(attributes={"gen_ai.operation.name": "chat"}, events=5),
            "span 's': events must be a list, got 5",
        ),
        (
            _one(attributes={"gen_ai.operation.name": "chat"}, events=[{"name": 5}]),
            "span 's'.events[0]: 'name' must be a string (got 5)",
        ),
        (
            _one(
                attributes={"gen_ai.operation.name": "chat"},
                events=[{"name": "gen_ai.assistant.message", "body": {"tool_calls": 5}}],
            ),
            "span 's'.events[0]: tool_calls must be a list, got 5",
        ),
        (
            _one(
                attributes={"gen_ai.operation.name": "chat"},
                events=[
                    {"name": "gen_ai.user.message", "attributes": {"gen_ai.event.content": "{"}}
                ],
            ),
            (
                "span 's'.events[0]: gen_ai.event.content is not valid JSON: Expecting "
                "property name enclosed in double quotes: line 1 column 2 (char 1)"
            ),
        ),
        (
            _one(
                attributes={"gen_ai.operation.name": "chat"},
                events=[{"name": "gen_ai.user.message", "attributes": {"x": {"intValue": "y"}}}],
            ),
            (
                "span 's'.events[0]: attribute 'x': intValue must be a 64-bit integer, "
                'or a string of one, got "y"'
            ),
        ),
        (
            {
                "spans": [
                    {
                        "name": "agent",
                        "attributes": {
                            "gen_ai.operation.name": "invoke_agent",
                            "gen_ai.input.messages": '{"a": 1}',
                        },
                    }
                ]
            },
            "span 'agent': gen_ai.input.messages is not a list of messages",
        ),
    ],
)
def test_malformed_otel_traces_say_where_and_why(record: Any, expected: str) -> None:
    """docs/offline.md: span times must be nanoseconds from 0 to 2**64 - 1, an OTLP attribute
    must hold the type its key names, and every error names the span and the field."""
    assert error_of(record, "otel") == expected


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"resourceSpans": []}, "otel"),
        ({"spans": [{"attributes": {}}]}, "otel"),
        ({"spans": [{"spanId": "x"}]}, "otel"),
        ({"spans": [{"span_id": "x"}]}, "otel"),
        ({"spans": [{"name": "x"}]}, None),
        ({"spans": []}, None),
        ({"spans": ["x"]}, None),
        ({"spans": {"attributes": {}}}, None),
        (["x"], None),
    ],
)
def test_otel_traces_are_detected(record: Any, expected: str | None) -> None:
    """docs/offline.md "OpenTelemetry GenAI spans": `resourceSpans`, or `spans` of span objects."""
    assert detected(record) == expected
