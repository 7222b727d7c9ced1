"""Reading awkward logs: bad bytes and JSON, cut gzip files, greetings, trimmed call histories."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import Conversation
from chatassert.transcripts import parse_line, parse_record, read_records

SYSTEM = {"role": "system", "content": "You are BookBot."}
GREETING = {"role": "assistant", "content": "Hello! I am BookBot."}
ASK = {"role": "user", "content": "Hello"}
REPLY = {"role": "assistant", "content": "What can I book for you?"}


def _otel(messages: list[dict[str, Any]]) -> dict[str, Any]:
    def parts(msgs: list[dict[str, Any]]) -> str:
        return json.dumps(
            [
                {"role": m["role"], "parts": [{"type": "text", "content": m["content"]}]}
                for m in msgs
            ]
        )

    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": parts(messages[:-1]),
        "gen_ai.output.messages": parts(messages[-1:]),
    }
    return {"spans": [{"name": "chat", "attributes": attributes}]}


@pytest.mark.parametrize(
    "messages",
    [[GREETING, ASK, REPLY], [SYSTEM, GREETING, ASK, REPLY]],
    ids=["greeting", "system-and-greeting"],
)
def test_turns_are_split_as_the_subject_model_splits_them(messages: list[dict[str, Any]]) -> None:
    expected = [(t.input, t.text) for t in Conversation(messages=messages).turns]
    read = parse_record({"messages": messages})
    assert [(t.input, t.text) for t in read.turns] == expected
    assert [len(t.messages) for t in read.turns] == [
        len(t.messages) for t in Conversation(messages=messages).turns
    ]


def test_a_greeting_keeps_its_own_turn_in_every_adapter() -> None:
    anthropic = {"system": "You are BookBot.", "messages": [GREETING, ASK, REPLY]}
    for record in ({"messages": [GREETING, ASK, REPLY]}, anthropic, _otel([GREETING, ASK, REPLY])):
        turns = parse_record(record).turns
        assert [(t.input, t.text) for t in turns] == [
            (None, "Hello! I am BookBot."),
            ("Hello", "What can I book for you?"),
        ]


def _call(messages: list[dict[str, Any]], reply: str) -> dict[str, Any]:
    return {
        "request": {"model": "gpt-4o", "messages": messages},
        "response": {"choices": [{"message": {"role": "assistant", "content": reply}}]},
    }


def test_trimmed_request_histories_are_not_repeated() -> None:
    def user(text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def bot(text: str) -> dict[str, Any]:
        return {"role": "assistant", "content": text}

    calls = [
        _call([SYSTEM, user("u1")], "a1"),
        _call([SYSTEM, user("u1"), bot("a1"), user("u2")], "a2"),
        _call([SYSTEM, user("u2"), bot("a2"), user("u3")], "a3"),  # u1 and a1 dropped
    ]
    turns = parse_record({"calls": calls}).turns
    assert [(t.input, t.text) for t in turns] == [("u1", "a1"), ("u2", "a2"), ("u3", "a3")]
    assert [[m.role for m in t.messages] for t in turns] == [
        ["system", "user", "assistant"],
        ["user", "assistant"],
        ["user", "assistant"],
    ]
    untrimmed = parse_record(
        {
            "calls": [
                _call([SYSTEM, user("u1")], "a1"),
                _call([SYSTEM, user("u1"), bot("a1"), user("u2")], "a2"),
            ]
        }
    )
    assert [(t.input, t.text) for t in untrimmed.turns] == [("u1", "a1"), ("u2", "a2")]


def test_legacy_function_messages_are_tool_results() -> None:
    record = {
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "w", "arguments": "{}"},
            },
            {"role": "function", "name": "w", "content": "18C"},
            {"role": "assistant", "content": "It is 18C."},
        ]
    }
    turn = parse_record(record).turns[0]
    assert [(r.name, r.content) for r in turn.tool_results] == [("w", "18C")]
    assert turn.text == "It is 18C."


def test_otel_traces_keep_their_case_keys() -> None:
    record = {**_otel([ASK, REPLY]), "case": "greets", "tags": ["smoke"], "metadata": {"x": 1}}
    assert parse_record(record).metadata == {"case": "greets", "tags": ["smoke"], "x": 1}


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"id": ' + "7" * 5000 + "}", "Exceeds the limit (4300 digits)"),
    ],
    ids=["deep", "long-integer"],
)
def test_lines_json_cannot_hold_are_errors_not_exceptions(line: str, why: str) -> None:
    record = parse_line(line, "log.jsonl", 7)
    assert record.conversation is None
    assert why in (record.error or "")


def test_undecodable_bytes_a_bom_and_bare_carriage_returns(tmp_path: Path) -> None:
    good = json.dumps({"messages": [ASK, REPLY]})
    path = tmp_path / "log.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + good.encode()
        + b"\n"
        + good.replace('"messages": ', '"messages":\r').encode()
        + b"\r\n"
        + b'{"messages": [{"role": "user", "content": "caf\xe9"}]}\n'
        + good.encode()
        + b"\n"
    )
    records = list(read_records(path))
    assert [(r.line, r.ok) for r in records] == [(1, True), (2, True), (3, False), (4, True)]
    assert records[2].error == "line is not UTF-8 (byte 0xe9 at column 47)"


def test_a_cut_gzip_log_ends_with_an_error_record(tmp_path: Path) -> None:
    whole = gzip.compress(("\n".join([json.dumps({"messages": [ASK, REPLY]})] * 2000)).encode())
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    records = list(read_records(path))
    assert all(r.ok for r in records[:-1])
    assert len(records) > 1
    last = records[-1]
    assert last.line == len(records)
    assert "truncated gzip" in (last.error or "")


@pytest.mark.parametrize(
    "record",
    [
        {"messages": []},
        {"spans": [{"name": "chat", "attributes": {"gen_ai.operation.name": "chat"}}]},
        {"object": "response", "status": "failed", "output": []},
    ],
    ids=["empty-chat", "otel-without-content", "empty-response"],
)
def test_a_record_with_nothing_to_check_is_unreadable_not_a_pass(record: dict[str, Any]) -> None:
    line = parse_line(json.dumps(record), "log.jsonl", 3)
    assert line.conversation is None
    assert line.error is not None
    assert "holds no messages to check" in line.error


def test_an_agent_span_does_not_repeat_the_turn_its_chat_spans_hold() -> None:
    chat = _otel([ASK, REPLY])["spans"][0]
    agent = {
        "name": "invoke_agent",
        "attributes": {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "BookBot",
            "gen_ai.input.messages": chat["attributes"]["gen_ai.input.messages"],
            "gen_ai.output.messages": chat["attributes"]["gen_ai.output.messages"],
        },
    }
    conversation = parse_record({"spans": [agent, chat]})
    assert [(t.input, t.text) for t in conversation.turns] == [
        ("Hello", "What can I book for you?")
    ]
    assert conversation.metadata["agent"] == "BookBot"
    alone = parse_record({"spans": [agent]})  # agent spans are read when nothing else is
    assert [t.input for t in alone.turns] == ["Hello"]


@pytest.mark.parametrize(
    "record",
    [
        {"messages": [ASK, {"role": "assistant", "content": None, "refusal": "I can't do that."}]},
        {"messages": [ASK, {"role": "assistant", "content": [
            {"type": "refusal", "refusal": "I can't do that."}]}]},
        {"object": "response", "input": "Hello", "output": [{"type": "message", "role":
            "assistant", "content": [{"type": "refusal", "refusal": "I can't do that."}]}]},
    ],
    ids=["chat-field", "chat-part", "responses-part"],
)  # fmt: skip
def test_a_refusal_is_what_the_assistant_said(record: dict[str, Any]) -> None:
    (turn,) = parse_record(record).turns
    assert turn.text == "I can't do that."


def test_a_reused_call_id_names_each_result_after_its_own_call() -> None:
    def call(name: str) -> dict[str, Any]:
        return {"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}

    messages = [
        ASK,
        {"role": "assistant", "content": None, "tool_calls": [call("search")]},
        {"role": "tool", "tool_call_id": "call_0", "content": "found"},
        {"role": "assistant", "content": None, "tool_calls": [call("book")]},
        {"role": "tool", "tool_call_id": "call_0", "content": "booked"},
        REPLY,
    ]
    (turn,) = parse_record({"messages": messages}).turns
    assert [r.name for r in turn.tool_results] == ["search", "book"]
    assert [r.name for r in Conversation(messages=messages).turns[0].tool_results] == [
        "search",
        "book",
    ]


def test_anthropic_cache_tokens_are_input_and_older_otel_usage_names_are_read() -> None:
    anthropic = {
        "system": "You are BookBot.",
        "messages": [ASK, REPLY],
        "usage": {
            "input_tokens": 10,
            "cache_read_input_tokens": 1000,
            "cache_creation_input_tokens": 5,
            "output_tokens": 20,
        },
    }
    meta = parse_record(anthropic).metadata
    assert (meta["input_tokens"], meta["total_tokens"]) == (1015, 1035)
    older = _otel([ASK, REPLY])
    older["spans"][0]["attributes"].update(
        {"gen_ai.usage.prompt_tokens": 7, "gen_ai.usage.completion_tokens": 3}
    )
    (turn,) = parse_record(older).turns
    assert (turn.metadata["input_tokens"], turn.metadata["output_tokens"]) == (7, 3)
