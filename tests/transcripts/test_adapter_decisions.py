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
) -> dict[str, Any]:
    """A dumped `Message`."""
    return {
        "role": role,
        "content": content,
        "tool_calls": list(calls),
        "tool_call_id": call_id,
        "name": name,
    }


def result(
    content: str,
    call_id: str | None = None,
    name: str | None = None,
    data: Any = None,
    is_error: bool = False,
) -> dict[str, Any]:
    """A dumped `ToolResult`."""
    return {"content": content, "call_id": call_id, "name": name, "data": data, "is_error": is_error}


def turn(
    input: str | None,
    text: str,
    messages: list[dict[str, Any]],
    results: tuple[dict[str, Any], ...] = (),
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A dumped `Turn`; its tool calls are every call of its assistant messages, in order (G2)."""
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
        "metadata": {} if metadata is None else metadata,
    }


def conv(
    turns: list[dict[str, Any]], id: str | None = None, metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A dumped `Conversation`."""
    return {"turns": turns, "workflow": None, "metadata": metadata or {}, "id": id}


def check(record: Any, format: str | None, expected: dict[str, Any]) -> None:
    """Read `record` (detected, and forced to `format`) and compare the whole dump."""
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
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": ARGS}},
                {"id": "c2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
            ],
        },
        # answered out of order, the second one failing: linked by id (G2)
        {"role": "tool", "tool_call_id": "c2", "name": "clock", "content": "noon", "is_error": True},
        {"role": "tool", "tool_call_id": "c1", "content": "18C"},
        {"role": "assistant", "content": "It is 18C at noon.", "refusal": "ignored: content wins"},
        {"role": "user", "content": [{"type": "text", "text": "And "}, {"type": "text", "text": "Rome?"}]},
        # the legacy single call and its `function` result message
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
        {"role": "function", "name": "get_weather", "content": "20C"},
        {"role": "assistant", "content": None, "refusal": "I can't say."},
        {"role": "assistant", "content": None, "refusal": ""},
        {"role": "tool", "tool_call_id": "c9", "name": 5, "content": "x", "is_error": False},
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
                msg("user", "And Rome?"),
                msg("assistant", None, (call("get_weather", {"city": "Rome"}, None, '{"city": "Rome"}'),)),
                msg("tool", "20C", name="get_weather"),
                msg("assistant", "I can't say."),
                msg("assistant", None),
                msg("tool", "x", call_id="c9"),
            ],
            (result("20C", None, "get_weather"), result("x", "c9", None)),
        ),
    ],
)


def _chat_call(request: list[dict[str, Any]], reply: dict[str, Any], **response: Any) -> dict[str, Any]:
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
                "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [_WEATHER]}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1},
            },
            "latency_s": 0.5,
        },
        {
            "request": {"messages": _SECOND},
            "response": {
                "choices": [{"message": {"role": "assistant", "content": "18C."}, "finish_reason": "stop"}],
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
        "request": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}]},
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
def test_openai_chat_records_become_these_conversations(record: Any, expected: dict[str, Any]) -> None:
    """docs/offline.md "OpenAI Chat Completions": a transcript, one call, several calls."""
    check(record, "openai", expected)


_OK_REPLY = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ("x", "expected an object with a 'messages' list (OpenAI chat format)"),
        ({}, "expected an object with a 'messages' list, a {request, response} call, or 'calls' (OpenAI chat format)"),
        ({"messages": [1]}, "messages[0] is not a message object"),
        ({"messages": [{"content": "x"}]}, "messages[0] has no 'role'"),
        ({"messages": [{"role": "assistant", "tool_calls": "x"}]}, "messages[0].tool_calls is not a list"),
        ({"messages": [{"role": "assistant", "tool_calls": [{"id": "a"}]}]}, "messages[0].tool_calls[0] has no 'function'"),
        ({"messages": [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]}, "a tool call has no name (got None)"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content: message content must be a string or a list of parts, got 5"),
        ({"messages": [{"role": "user", "content": [{"type": 1}]}]}, "messages[0].content[0]: 'type' must be a string (got 1)"),
        ({"request": {"messages": []}, "response": "x"}, "response is not an object"),
        ({"request": {"messages": []}, "response": {"choices": []}}, "response has no 'choices'"),
        ({"request": {"messages": []}, "response": {"choices": [{"message": "x"}]}}, "response.choices[0] has no 'message'"),
        ({"request": {"messages": []}, "response": {"choices": [{"message": {"content": "x"}}]}}, "response.choices[0].message has no 'role'"),
        ({"request": {"messages": []}, "response": {**_OK_REPLY, "usage": {"completion_tokens": -1}}}, "response: usage.completion_tokens must be a number of tokens (a whole number from 0 to 2**63 - 1), got -1"),
        ({"request": {"messages": []}, "response": _OK_REPLY, "cost": -1}, "cost must be an amount (a number from 0 to 2**63 - 1), got -1"),
        ({"calls": [{"request": {"messages": []}, "response": _OK_REPLY, "latency_ms": -1}]}, "calls[0]: latency_ms must be a duration (a number from 0 to 2**63 - 1), got -1"),
        ({"calls": [{"request": {"messages": []}, "response": _OK_REPLY, "latency": -2}]}, "calls[0]: latency must be a duration (a number from 0 to 2**63 - 1), got -2"),
        ({"calls": [{"request": {"messages": []}, "response": _OK_REPLY}, 5]}, "calls[1] is not a {request, response} call"),
        ([{"request": {"messages": []}, "response": _OK_REPLY}, 5], "record[1] is not a {request, response} call"),
        ({"calls": [{"request": {"messages": [5]}}]}, "calls[0].request.messages[0] is not a message object"),
        ({"calls": [{"request": {"messages": []}, "response": {"choices": [{"message": {"role": "assistant", "content": 5}}]}}]}, "calls[0].response.choices[0].message.content: message content must be a string or a list of parts, got 5"),
    ],
)
def test_malformed_openai_chat_records_say_where_and_why(record: Any, expected: str) -> None:
    """docs/offline.md: an unreadable line is reported naming the field and what it should hold."""
    assert error_of(record, "openai") == expected


def test_an_empty_calls_list_is_no_known_format() -> None:
    """A `calls` list must hold calls to be read as chat completions (detection needs one)."""
    assert error_of({"calls": []}, None).startswith("unrecognised transcript record (keys: ['calls'])")


# ---------------------------------------------------------------------------------------------
# the models built fast from logs behave as validated ones


@pytest.mark.parametrize(
    "record", [OPENAI_TRANSCRIPT, OPENAI_CALLS], ids=["transcript", "calls"]
)
def test_parsed_conversations_copy_pickle_and_dump_like_validated_ones(record: Any) -> None:
    c = parse_record(record)
    assert pickle.loads(pickle.dumps(c)) == c
    assert copy.deepcopy(c) == c
    assert c.model_copy() == c
    assert c.model_dump(exclude_unset=True) == c.model_dump()
    assert c.turns[0].model_copy(update={"text": "x"}).text == "x"
    assert Conversation.model_validate(json.loads(c.model_dump_json())) == c
