"""Fuzzing the transcript readers: mutated records of every adapter, odd lines, odd bytes.

The contract under test: `parse_record` returns a `Conversation` or raises `TranscriptError`
(never another exception); `parse_line` never raises and returns a record holding a
conversation or an `error` string, and that error is a reason, not the catch-all it keeps for
an exception escaping an adapter. A conversation read from a mutated record can be checked by
a few assertions, and every result serialises as strict JSON. Reading a file of any bytes
through the reader the command line uses (`open_text`, with `READ_ERRORS` and `read_error`)
yields records or one error record, never an exception.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st

from chatassert import (
    Contains,
    Conversation,
    NoToolErrors,
    OnEveryTurn,
    Result,
    StepsBeforeAnswer,
    ToolResultContains,
)
from chatassert._lazy import LazyConversation, as_model
from chatassert.errors import TranscriptError
from chatassert.promptkit import (
    ConversationContentMatches,
    ConversationToolCallsWithArgs,
    ConversationToolsCalled,
)
from chatassert.reporting import json_line
from chatassert.transcripts import (
    FORMATS,
    READ_ERRORS,
    Record,
    parse_line,
    parse_record,
    read_error,
)

# -- one small valid record per adapter (and line shape) ------------------------------------

_ARGS = json.dumps({"invoice_id": "INV-2031", "amount": 49.0})

OPENAI: list[Any] = [
    {
        "id": "run-1",
        "model": "gpt-4.1",
        "metadata": {"case": "refund"},
        "messages": [
            {"role": "system", "content": "You are support."},
            {"role": "user", "content": "Refund my invoice"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "issue_refund", "arguments": _ARGS},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"status": "succeeded"}'},
            {"role": "assistant", "content": [{"type": "text", "text": "Refund issued."}]},
            {"role": "user", "content": "Thanks"},
            {"role": "function", "name": "lookup_invoice", "content": "INV-2031"},
            {
                "role": "assistant",
                "content": "Bye",
                "function_call": {"name": "f", "arguments": "{}"},
            },
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5},
        "latency_ms": 120.5,
        "cost": 0.001,
    },
    {
        "calls": [
            {
                "request": {"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
                "response": {
                    "model": "m",
                    "choices": [{"message": {"role": "assistant", "content": "Hello"}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1},
                },
                "latency_ms": 40,
            },
            {
                "request": {
                    "messages": [
                        {"role": "user", "content": "Hi"},
                        {"role": "assistant", "content": "Hello"},
                        {"role": "user", "content": "Refund?"},
                    ]
                },
                "response": {"choices": [{"message": {"role": "assistant", "content": "Done"}}]},
            },
        ],
        "id": "calls-1",
    },
    {  # PromptKit's media parts under `parts`, beside content and instead of it
        "id": "media-1",
        "messages": [
            {"role": "user", "content": "Draw a cat"},
            {
                "role": "assistant",
                "content": "Here.",
                "parts": [{"type": "image", "media": {"mime_type": "image/png", "width": 8}}],
            },
            {
                "role": "assistant",
                "parts": [
                    {"type": "text", "text": "And its purr."},
                    {"type": "audio", "media": {"url": "u", "duration": 2}},
                ],
            },
        ],
    },
]

RESPONSES: list[Any] = [
    {
        "id": "resp_1",
        "object": "response",
        "model": "gpt-4.1",
        "instructions": "You are a travel agent.",
        "input": [
            {"role": "user", "content": "Flights to Rome?"},
            {"type": "function_call", "call_id": "fc_1", "name": "search", "arguments": _ARGS},
            {"type": "function_call_output", "call_id": "fc_1", "output": "[]"},
        ],
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "No flights found."}],
            },
        ],
        "usage": {"input_tokens": 80, "output_tokens": 6, "total_tokens": 86},
    },
    {
        "calls": [
            {
                "request": {"input": "Hi", "instructions": "Be brief."},
                "response": {
                    "output": [
                        {
                            "type": "message",
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": "Hello"}],
                        }
                    ]
                },
            }
        ]
    },
    {
        "items": [
            {"role": "user", "content": "Hi"},
            {"type": "message", "role": "assistant", "content": "Yo"},
        ]
    },
]

ANTHROPIC: list[Any] = [
    {
        "system": [{"type": "text", "text": "You are BookBot."}],
        "model": "claude",
        "messages": [
            {"role": "user", "content": "Table for 4 on Saturday?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm"},
                    {
                        "type": "tool_use",
                        "id": "tu_1",
                        "name": "check_availability",
                        "input": {"date": "2024-02-17", "party_size": 4},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu_1",
                        "content": [{"type": "text", "text": "backend timeout"}],
                        "is_error": True,
                    }
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "Sorry, try later."}]},
            {"role": "user", "content": "OK"},
        ],
        "response": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "Anything else?"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 300, "output_tokens": 5, "cache_read_input_tokens": 2},
        },
    },
    {
        "calls": [
            {
                "request": {"system": "s", "messages": [{"role": "user", "content": "Hi"}]},
                "response": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Hello"}],
                    "usage": {"input_tokens": 7, "output_tokens": 1},
                },
            }
        ]
    },
]


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, list):
        items = [{"stringValue": str(v)} for v in value]
        return {"key": key, "value": {"arrayValue": {"values": items}}}
    return {"key": key, "value": {"stringValue": value}}


_INPUT = json.dumps(
    [
        {"role": "system", "parts": [{"type": "text", "content": "You are a weather bot."}]},
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]},
    ]
)
_OUTPUT = json.dumps(
    [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_1",
                    "name": "get_weather",
                    "arguments": {"city": "Oslo"},
                },
                {"type": "text", "content": "The weather service is down."},
            ],
            "finish_reason": "stop",
        }
    ]
)

OTEL: list[Any] = [
    {
        "resourceSpans": [
            {
                "resource": {"attributes": [_attr("service.name", "bot")]},
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": "a1",
                                "name": "chat gpt",
                                "startTimeUnixNano": "1000000000",
                                "endTimeUnixNano": "1900000000",
                                "attributes": [
                                    _attr("gen_ai.operation.name", "chat"),
                                    _attr("gen_ai.request.model", "gpt"),
                                    _attr("gen_ai.usage.input_tokens", 40),
                                    _attr("gen_ai.usage.output_tokens", 7),
                                    _attr("gen_ai.input.messages", _INPUT),
                                    _attr("gen_ai.output.messages", _OUTPUT),
                                    _attr("gen_ai.request.temperature", 0.5),
                                    _attr("gen_ai.response.finish_reasons", ["stop"]),
                                ],
                                "status": {"code": 1},
                            },
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": "a2",
                                "name": "execute_tool get_weather",
                                "startTimeUnixNano": "1200000000",
                                "endTimeUnixNano": "1300000000",
                                "attributes": [
                                    _attr("gen_ai.operation.name", "execute_tool"),
                                    _attr("gen_ai.tool.name", "get_weather"),
                                    _attr("gen_ai.tool.call.id", "call_1"),
                                    _attr("gen_ai.tool.call.arguments", '{"city": "Oslo"}'),
                                    _attr("gen_ai.tool.call.result", "timeout"),
                                    _attr("error.type", "TimeoutError"),
                                ],
                                "status": {"code": 2, "message": "timeout"},
                            },
                        ]
                    }
                ],
            }
        ],
        "id": "trace-1",
        "case": "weather",
    },
    {
        "spans": [
            {
                "name": "chat",
                "span_id": "b1",
                "start_time": 5,
                "end_time": 9,
                "attributes": {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 3},
                "events": [
                    {"name": "gen_ai.system.message", "body": {"content": "sys"}},
                    {"name": "gen_ai.user.message", "body": {"content": "Hi"}},
                    {
                        "name": "gen_ai.choice",
                        "attributes": {
                            "gen_ai.event.content": json.dumps({"message": {"content": "Hello"}})
                        },
                    },
                ],
            }
        ]
    },
]

NATIVE: list[Any] = [
    {
        "id": "n1",
        "metadata": {"case": "refund"},
        "turns": [
            {
                "input": "Refund my invoice",
                "text": "Refund issued.",
                "messages": [{"role": "user", "content": "Refund my invoice"}],
                "tool_calls": [
                    {"name": "issue_refund", "arguments": {"invoice_id": "INV-2031"}, "id": "c1"}
                ],
                "tool_results": [{"content": "boom", "is_error": True, "call_id": "c1"}],
                "guardrails": [{"name": "banned_words", "triggered": False}],
                "workflow": {
                    "current": "specialist",
                    "transitions": [
                        {"from_state": "intake", "to_state": "specialist", "event": "Escalate"}
                    ],
                },
                "data": {"status": "success", "results": []},
                "metadata": {"latency_ms": 12},
            },
            {"input": "Thanks", "text": "Bye"},
        ],
        "workflow": {"current": "closed", "transitions": [], "complete": True},
    }
]

# a bare JSON array of a transcript's messages (or items) is one conversation too
OPENAI.append(copy.deepcopy(OPENAI[0]["messages"]))
ANTHROPIC.append(copy.deepcopy(ANTHROPIC[0]["messages"]))
RESPONSES.append(copy.deepcopy(RESPONSES[0]["input"] + RESPONSES[0]["output"]))

SAMPLES: dict[str, list[Any]] = {
    "openai": OPENAI,
    "openai-responses": RESPONSES,
    "anthropic": ANTHROPIC,
    "otel": OTEL,
    "native": NATIVE,
}

_SAMPLE_FILES = Path(__file__).parents[1] / "transcripts" / "samples"
"""One file of valid sample records per registered format, shared with the reader contract
(`tests/transcripts/test_reader_contract.py`, which requires one for every format)."""


def file_samples(name: str) -> list[Any]:
    """The sample records of a format, from `tests/transcripts/samples/<name>.json`."""
    return json.loads((_SAMPLE_FILES / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


MORE_SAMPLES: dict[str, list[Any]] = {
    name: file_samples(name)
    for name in (
        "jaeger",
        "promptkit-arena",
        "promptkit-session",
        "agents-sdk",
        "inspect",
        "langsmith",
        "promptfoo",
        "adk",
    )
}
"""The sample records of the formats whose whole documents (a trace export, an eval log, a
recording) are kept as data files rather than written out here."""

# -- mutation --------------------------------------------------------------------------------

_RAW = "\x00raw:"
"""A string marking a JSON token to be written as it is (`1e309`, `10**400`'s digits...)."""

RAW_NUMBERS = (
    "1e309",
    "-1e309",
    "1" + "0" * 400,
    "-" + "9" * 400,
    "NaN",
    "Infinity",
    "-0",
    "1e-400",
)


def _unwrap(text: str) -> str:
    """Write the raw tokens the mutations put in as they are, unquoted."""
    while f'"{_RAW}' in text:
        start = text.index(f'"{_RAW}')
        end = text.index('"', start + 1)
        text = text[:start] + text[start + 1 + len(_RAW) : end] + text[end + 1 :]
    return text


@functools.cache
def odd_values() -> st.SearchStrategy[Any]:
    """A value of the wrong kind, or one JSON barely holds."""
    return st.one_of(
        specgen.junk().filter(specgen.is_plain),
        st.sampled_from(RAW_NUMBERS).map(lambda n: _RAW + n),
        st.integers(-(10**400), 10**400),
        st.sampled_from([10**400, -(2**63), 2**64, 1e308, 5e-324]),
        st.text(specgen.ALL_CHARACTERS, max_size=6),
        st.sampled_from(["\ud800", "a\udfffb", "\U0010ffff", "\u0000"]),
        specgen.json_values(max_leaves=4),
    )


@st.composite
def mutated_record(draw: st.DrawFn, samples: list[Any]) -> Any:
    """A sample record changed in one to four places: values replaced, keys dropped or added."""
    doc = copy.deepcopy(draw(st.sampled_from(samples)))
    for _ in range(draw(st.integers(1, 4))):
        positions = specgen._node_paths(doc)[1:] or [()]  # the root only by "wrap"
        where = positions[draw(st.integers(0, len(positions) - 1))]
        current = specgen._get(doc, where)
        kind = draw(st.sampled_from(["replace", "replace", "drop", "add", "wrap", "text"]))
        if kind == "replace":
            doc = specgen._put(doc, where, draw(odd_values()))
        elif kind == "drop" and isinstance(current, dict) and current:
            key = draw(st.sampled_from(sorted(current, key=str)))
            doc = specgen._put(doc, where, {k: v for k, v in current.items() if k != key})
        elif kind == "drop" and isinstance(current, list) and current:
            index = draw(st.integers(0, len(current) - 1))
            doc = specgen._put(doc, where, current[:index] + current[index + 1 :])
        elif kind == "add" and isinstance(current, dict):
            key = draw(st.one_of(st.sampled_from(_KEYS), specgen.odd_text()))
            doc = specgen._put(doc, where, {**current, key: draw(odd_values())})
        elif kind == "add" and isinstance(current, list):
            doc = specgen._put(
                doc, where, [*current, draw(st.one_of(odd_values(), st.just(current[:1])))]
            )
        elif kind == "wrap":
            doc = specgen._put(doc, where, draw(st.sampled_from([[current], {"value": current}])))
        elif isinstance(current, str):
            doc = specgen._put(doc, where, current + draw(specgen.odd_text()))
    return doc


_KEYS = (
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "type",
    "text",
    "input",
    "output",
    "messages",
    "usage",
    "is_error",
    "turns",
    "spans",
    "attributes",
    "events",
    "request",
    "response",
    "calls",
    "choices",
    "parts",
    "arguments",
    "latency_ms",
    "cost",
    "metadata",
    "workflow",
)


def to_line(doc: Any, ascii_only: bool) -> str:
    """The record as one JSON line; raw tokens as written, lone surrogates as `\\u` escapes."""
    text = json.dumps(doc, ensure_ascii=ascii_only, allow_nan=True)
    if not ascii_only and any("\ud800" <= c <= "\udfff" for c in text):
        text = json.dumps(doc, ensure_ascii=True, allow_nan=True)
    return _unwrap(text)


# -- what a conversation must survive --------------------------------------------------------

CHECKS = (
    OnEveryTurn(Contains("refund")),
    ConversationToolsCalled(["issue_refund", "get_weather"]),
    ConversationToolCallsWithArgs("issue_refund", {"invoice_id": "INV-2031"}, {"amount": r"\d+"}),
    ConversationContentMatches(r"(?i)weather|refund"),
    NoToolErrors(),
    ToolResultContains("get_weather", "timeout"),
    StepsBeforeAnswer(3),
)


def check_conversation(conversation: Conversation) -> None:
    """A read conversation has turns, and checking it gives results that serialise strictly."""
    assert conversation.turns, "a conversation with nothing to check is an error, not a record"
    for check in CHECKS:
        result = check.check(conversation)
        assert isinstance(result, Result)
        json.dumps(result.to_dict(), allow_nan=False)
        json_line(result.to_dict())
        result.render(verbose=True)


def checks_as_its_model(fresh: Callable[[], Conversation]) -> None:
    """A lazy conversation (plain chat messages, `chatassert._lazy`) is checked as its model:
    every check gives a fresh one, never built, the result tree it gives the model."""
    model = as_model(fresh())
    assert type(model) is Conversation
    for check in CHECKS:
        assert check.check(fresh()).to_dict() == check.check(model).to_dict(), check


def read(line: str, format: str | None) -> None:
    """Read one line both ways: `parse_record` (only `TranscriptError`) and `parse_line`."""
    try:
        raw = json.loads(line)
    except (ValueError, RecursionError):
        raw = None
        decoded = False
    else:
        decoded = True
    if decoded:
        try:
            conversation = parse_record(raw, format)
        except TranscriptError as exc:
            error = str(exc)
        else:
            check_conversation(conversation)
            if type(conversation) is LazyConversation:
                checks_as_its_model(lambda: parse_record(raw, format))
            error = "read"
        assert error.strip(), "a TranscriptError says why"

    record = parse_line(line, "fuzz.jsonl", 7, format)
    check_record(record)


def check_record(record: Record) -> None:
    """A record holds a conversation or says why not (in its own words, not a Python error's);
    a record of several conversations (an export of several traces) holds them as its parts,
    each of which does."""
    assert isinstance(record, Record)
    if record.parts:
        assert record.conversation is None
        assert record.error is None
        for part in record.parts:
            assert part.part is not None
            check_record(part)
        return
    assert (record.conversation is None) != (record.error is None), record
    if record.error is not None:
        assert record.error.strip()
        assert not record.error.startswith("malformed record ("), record.error
        json_line({"error": record.error})


@given(mutated_record(OPENAI), st.booleans(), st.booleans())
@fuzz_target("log.openai")
def test_openai_records_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "openai" if forced else None)


@given(mutated_record(RESPONSES), st.booleans(), st.booleans())
@fuzz_target("log.openai_responses")
def test_openai_responses_records_read_or_fail_cleanly(
    doc: Any, forced: bool, ascii_only: bool
) -> None:
    read(to_line(doc, ascii_only), "openai-responses" if forced else None)


@given(mutated_record(ANTHROPIC), st.booleans(), st.booleans())
@fuzz_target("log.anthropic")
def test_anthropic_records_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "anthropic" if forced else None)


@given(mutated_record(OTEL), st.booleans(), st.booleans())
@fuzz_target("log.otel")
def test_otel_traces_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "otel" if forced else None)


@given(mutated_record(NATIVE), st.booleans(), st.booleans())
@fuzz_target("log.native")
def test_native_records_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "native" if forced else None)


@given(mutated_record(MORE_SAMPLES["jaeger"]), st.booleans(), st.booleans())
@fuzz_target("log.jaeger")
def test_jaeger_exports_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "jaeger" if forced else None)


@given(mutated_record(MORE_SAMPLES["promptkit-arena"]), st.booleans(), st.booleans())
@fuzz_target("log.promptkit_arena")
def test_promptkit_arena_runs_read_or_fail_cleanly(
    doc: Any, forced: bool, ascii_only: bool
) -> None:
    read(to_line(doc, ascii_only), "promptkit-arena" if forced else None)


@given(mutated_record(MORE_SAMPLES["promptkit-session"]), st.booleans(), st.booleans())
@fuzz_target("log.promptkit_session")
def test_promptkit_session_recordings_read_or_fail_cleanly(
    doc: Any, forced: bool, ascii_only: bool
) -> None:
    read(to_line(doc, ascii_only), "promptkit-session" if forced else None)


@given(mutated_record(MORE_SAMPLES["agents-sdk"]), st.booleans(), st.booleans())
@fuzz_target("log.agents_sdk")
def test_agents_sdk_traces_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "agents-sdk" if forced else None)


@given(mutated_record(MORE_SAMPLES["inspect"]), st.booleans(), st.booleans())
@fuzz_target("log.inspect")
def test_inspect_eval_logs_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "inspect" if forced else None)


@given(mutated_record(MORE_SAMPLES["langsmith"]), st.booleans(), st.booleans())
@fuzz_target("log.langsmith")
def test_langsmith_runs_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "langsmith" if forced else None)


@given(mutated_record(MORE_SAMPLES["promptfoo"]), st.booleans(), st.booleans())
@fuzz_target("log.promptfoo")
def test_promptfoo_outputs_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "promptfoo" if forced else None)


ADK_FIXTURES: list[Any] = [
    json.loads(path.read_text(encoding="utf-8"))
    for path in sorted((Path(__file__).parents[1] / "fixtures" / "adk").glob("*.evalset.json"))
]
"""The eval sets ADK itself wrote (tests/fixtures/adk): played cases, paused and resumed
invocations, media, app details, a conversation scenario, in snake_case, camelCase and with
every null."""


@functools.cache
def adk_parts() -> st.SearchStrategy[Any]:
    """A genai part of the kinds a reader may trip on: a function response (in a user's
    message too), media inline or by URI, of any MIME type or none."""
    mime = st.one_of(
        st.sampled_from(["image/png", "audio/wav", "video/mp4", "text/plain"]), odd_values()
    )
    blob = st.fixed_dictionaries({"mime_type": mime}, optional={"data": odd_values()})
    uri = st.fixed_dictionaries({"mimeType": mime}, optional={"fileUri": odd_values()})
    answer = st.fixed_dictionaries(
        {"response": st.one_of(st.just({"confirmed": True}), odd_values())},
        optional={"id": st.sampled_from(["fc-1", "adk-call-1"]), "name": odd_values()},
    )
    return st.one_of(
        st.fixed_dictionaries({"function_response": answer}),
        st.fixed_dictionaries({"inline_data": st.one_of(blob, odd_values())}),
        st.fixed_dictionaries({"fileData": st.one_of(uri, odd_values())}),
    )


@st.composite
def adk_records(draw: st.DrawFn) -> Any:
    """A mutated eval set, sometimes with an odd part added to one of its `parts` lists."""
    doc = draw(mutated_record(MORE_SAMPLES["adk"] + ADK_FIXTURES))
    lists = [p for p in specgen._node_paths(doc) if p and p[-1] == "parts"]
    if lists and draw(st.booleans()):
        where = lists[draw(st.integers(0, len(lists) - 1))]
        found = specgen._get(doc, where)
        if isinstance(found, list):
            doc = specgen._put(doc, where, [*found, draw(adk_parts())])
    return doc


@given(adk_records(), st.booleans(), st.booleans())
@fuzz_target("log.adk")
def test_adk_eval_sets_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "adk" if forced else None)


def test_every_registered_log_format_has_a_fuzz_target_with_a_budget() -> None:
    """A new reader joins `FORMATS`; it must get its target here, and a budget, too."""
    from fuzzing import BUDGETS

    targets = {
        getattr(getattr(f, "hypothesis", None), "inner_test", f).fuzz_target: f
        for f in list(globals().values())
        if hasattr(getattr(getattr(f, "hypothesis", None), "inner_test", f), "fuzz_target")
    }
    table = (Path(__file__).parents[2] / "docs" / "internals" / "fuzzing.md").read_text(
        encoding="utf-8"
    )
    for name in FORMATS:
        target = f"log.{name.replace('-', '_')}"
        assert target in targets, f"add a fuzz target {target!r} for the log format {name!r}"
        assert target in BUDGETS, f"add {target!r} to BUDGETS in tests/fuzz/fuzzing.py"
        assert f"`{target}`" in table, f"add {target!r} to the targets of docs/internals/fuzzing.md"
    assert set(SAMPLES) | set(MORE_SAMPLES) == set(FORMATS)


# -- lines: truncated, garbage, deep ---------------------------------------------------------

_ALL_SAMPLES = [s for samples in SAMPLES.values() for s in samples]


@st.composite
def odd_lines(draw: st.DrawFn) -> str:
    """A record's line cut short, spliced with garbage, nested deep, or garbage outright."""
    line = to_line(draw(st.sampled_from(_ALL_SAMPLES)), draw(st.booleans()))
    how = draw(st.sampled_from(["cut", "splice", "deep", "garbage", "escape", "surrogate_bytes"]))
    at = draw(st.integers(0, len(line)))
    if how == "cut":
        return line[:at]
    if how == "splice":
        return line[:at] + draw(specgen.odd_text()) + line[at:]
    if how == "deep":
        depth = draw(st.sampled_from([50, 500, 5_000, 100_000]))
        bracket = draw(st.sampled_from(["[", '{"messages":']))
        closer = "]" if bracket == "[" else "}"
        return bracket * depth + line + closer * draw(st.sampled_from([0, depth]))
    if how == "escape":
        escape = draw(st.sampled_from(["\\ud800", "\\udfff", "\\u0000", "\\uZZZZ", "\\", "\\x41"]))
        quote = line.find('"', at)
        return line if quote < 0 else line[: quote + 1] + escape + line[quote + 1 :]
    if how == "surrogate_bytes":  # what `open_text` makes of bytes that are not UTF-8
        return line[:at] + chr(0xDC80 + draw(st.integers(0, 0x7F))) + line[at:]
    return draw(st.text(specgen.ALL_CHARACTERS, max_size=40))


@given(odd_lines(), st.sampled_from([None, *SAMPLES, "nope"]))
@fuzz_target("log.lines")
def test_any_line_becomes_a_record(line: str, format: str | None) -> None:
    record = parse_line(line, "fuzz.jsonl", 3, format)
    check_record(record)
    if record.conversation is not None:
        check_conversation(record.conversation)


# -- bytes: through the reader the command line uses ----------------------------------------

_DIR = tempfile.TemporaryDirectory(prefix="chatassert-fuzz-logs-")


@st.composite
def log_bytes(draw: st.DrawFn) -> tuple[bytes, str]:
    """A log file's bytes and its name: stray bytes, BOMs, CRs, cut or corrupt gzip."""
    lines = [
        to_line(doc, True) for doc in draw(st.lists(st.sampled_from(_ALL_SAMPLES), max_size=3))
    ]
    data = "\n".join(lines).encode("utf-8")
    how = draw(st.sampled_from(["stray", "bom", "crlf", "latin1", "gzip", "gzip_cut", "gzip_junk"]))
    at = draw(st.integers(0, len(data)))
    if how == "stray":
        return data[:at] + draw(st.binary(min_size=1, max_size=6)) + data[at:], "log.jsonl"
    if how == "bom":
        return draw(
            st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"])
        ) + data, "log.jsonl"
    if how == "crlf":
        return data.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r", b"\n\r\n"]))), "log.jsonl"
    if how == "latin1":
        return "\n".join(lines).replace("e", "\xe9").encode("latin-1", "replace"), "log.jsonl"
    packed = gzip.compress(data)
    if how == "gzip":
        return packed, "log.jsonl.gz"
    cut = draw(st.integers(0, len(packed)))
    if how == "gzip_cut":
        return packed[:cut], "log.jsonl.gz"
    return packed[:cut] + draw(st.binary(min_size=1, max_size=8)) + packed[cut:], "log.jsonl.gz"


@given(log_bytes())
@fuzz_target("log.bytes")
def test_a_log_of_any_bytes_reads_into_records(file: tuple[bytes, str]) -> None:
    from chatassert.transcripts import read_records

    data, name = file
    path = os.path.join(_DIR.name, name)
    with open(path, "wb") as out:
        out.write(data)
    try:
        records = list(read_records(path))
    except READ_ERRORS as exc:  # opening it (a gzip header too short to read, say)
        records = [Record(path, 1, error=read_error(exc) or "?")]
    for record in records:
        check_record(record)
        if record.conversation is not None:
            check_conversation(record.conversation)
    for record in records[:-1]:
        assert not (record.error or "").startswith("cannot read the rest"), records


# -- files that are not JSON Lines: suites, pretty-printed JSON --------------------------------


@st.composite
def not_json_lines(draw: st.DrawFn) -> tuple[bytes, str]:
    """A file given where a log goes that is not JSON Lines, and its name: a suite of any
    dialect (YAML or JSON), or records pretty-printed (one, an array of them, several one after
    another, or cut short)."""
    how = draw(st.sampled_from(["suite", "pretty", "array", "stream", "cut"]))
    if how == "suite":
        text = draw(specgen.texts(draw(specgen.documents())))
        name = draw(st.sampled_from(["suite.yaml", "suite.yml", "suite.json", "suite.jsonl"]))
        return text.encode("utf-8", "surrogatepass"), name
    records = draw(st.lists(st.sampled_from(_ALL_SAMPLES), min_size=1, max_size=3))
    if how == "array":
        text = json.dumps(records, indent=2)
    elif how == "stream":  # what `jq .` writes
        text = "\n".join(json.dumps(record, indent=2) for record in records)
    else:
        text = json.dumps(records[0], indent=2)
        if how == "cut":
            text = text[: draw(st.integers(1, len(text)))]
    name = draw(st.sampled_from(["log.jsonl", "log.ndjson", "log.json", "log"]))
    return text.encode("utf-8"), name


@given(not_json_lines())
@fuzz_target("log.guess")
def test_a_file_that_is_not_json_lines_is_read_whole_or_line_by_line_cleanly(
    file: tuple[bytes, str],
) -> None:
    """Records with a conversation or an error of their own words; a file read whole
    (`read_as_one`) is one record or its parts, never a line-by-line flood of errors; the
    messages of what it was meant to be are strings, whatever the value."""
    from chatassert.transcripts import read_as_one, read_records
    from chatassert.transcripts._guess import suite_kind, text_suite_kind, unrecognised

    data, name = file
    path = os.path.join(_DIR.name, name)
    with open(path, "wb") as out:
        out.write(data)
    records = list(read_records(path))
    for record in records:
        check_record(record)
        if record.conversation is not None:
            check_conversation(record.conversation)
    if read_as_one(path) is not None:
        assert len({record.line for record in records}) <= 1, records
    kind = text_suite_kind(data.decode("utf-8", "surrogateescape"))
    assert kind is None or kind.startswith(("a ", "an "))
    for record in records:
        if record.raw is not None:
            assert isinstance(unrecognised(record.raw), str)
            assert suite_kind(record.raw) is None or isinstance(suite_kind(record.raw), str)
