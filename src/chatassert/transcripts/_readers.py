"""The log formats chatassert reads: one ordered list of readers, from which the tables derive.

Each format is a `Reader`: its name, how a record of it is recognised (`detect`), how a record
is read into a `Conversation` (`parse`), and, for a format whose one record may hold several
conversations, how it splits (`parts`). `READERS` lists them in detection order; `FORMATS`
and `PARTS`, and the detection itself (`detected`), are derived from it. A new log format is
a module with those functions and one `Reader` here.

Example:
    >>> [reader.name for reader in READERS][:3]
    ['native', 'otel', 'jaeger']
    >>> detected({"turns": []})
    'native'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chatassert.transcripts._adk as _adk
import chatassert.transcripts._agents_sdk as _agents_sdk
import chatassert.transcripts._anthropic as _anthropic
import chatassert.transcripts._inspect as _inspect
import chatassert.transcripts._jaeger as _jaeger
import chatassert.transcripts._langsmith as _langsmith
import chatassert.transcripts._native as _native
import chatassert.transcripts._openai_chat as _openai_chat
import chatassert.transcripts._openai_responses as _openai_responses
import chatassert.transcripts._otel as _otel
import chatassert.transcripts._promptfoo as _promptfoo
import chatassert.transcripts._promptkit as _promptkit
from chatassert._errors import TranscriptError
from chatassert._models import Conversation

__all__ = ["FORMATS", "PARTS", "READERS", "Reader", "detected"]


@dataclass(frozen=True, slots=True)
class Reader:
    """One log format: its name, how its records are recognised, read and split.

    Attributes:
        name: The format's name (`--log-format NAME`).
        detect: Whether a parsed JSON record is of this format. Detection asks the readers in
            `READERS` order, and the first that says yes reads the record.
        parse: The record read into a `Conversation`; raises `TranscriptError` for a record it
            cannot read.
        parts: For a format whose one record may hold several conversations (an export of
            many traces, an eval log of many samples): the record's `(label, sub-record)`
            pairs, each sub-record read by `parse`, or None when the record is one
            conversation. None for a format whose record is always one conversation.
        keys: The top-level keys its records use: a record of no known format that shares
            some is described as closest to this one.
        wants: What a record needs to be of this format, as a fragment after "no" ("'turns'
            list"), for the message of a record of no known format.
        fills: The fields of the subject model its records fill: `text`, `tool_calls`,
            `call_ids`, `arguments`, `tool_results`, `media`, `agent`, `guardrails`,
            `tokens`, `model`, `latency`, `unrecorded` (`docs/tools/formats_table.py` says
            what each means).
            The table of docs/offline.md is generated from what its records read into, and
            the reader conformance test checks this declaration says the same.
    """

    name: str
    detect: Callable[[Any], bool]
    parse: Callable[[Any], Conversation]
    parts: Callable[[Any], list[tuple[str, Any]] | None] | None = None
    keys: tuple[str, ...] = ()
    wants: str = "record it recognises"
    fills: frozenset[str] = frozenset()


_TURN = ("text", "tool_calls", "call_ids", "arguments", "tool_results")
"""What the formats that log a turn's tool use with it fill (`Reader.fills`)."""

READERS: tuple[Reader, ...] = (
    Reader(
        "native",
        _native.detect,
        _native.parse,
        fills=frozenset(
            {*_TURN, "media", "agent", "guardrails", "tokens", "model", "latency", "unrecorded"}
        ),
        keys=("turns", "workflow"),
        wants="'turns' list",
    ),
    Reader(
        "otel",
        _otel.detect,
        _otel.parse,
        _otel.parts,
        fills=frozenset(
            {*_TURN, "media", "agent", "guardrails", "tokens", "model", "latency", "unrecorded"}
        ),
        keys=("resourceSpans", "batches", "spans", "traceId", "spanId", "attributes"),
        wants="'resourceSpans' list, 'spans' list, or span ('traceId', 'spanId', "
        "'attributes'), nor Tempo's 'batches' of resource spans",
    ),
    Reader(
        "jaeger",
        _jaeger.detect,
        _jaeger.parse,
        _jaeger.parts,
        fills=frozenset({*_TURN, "agent", "tokens", "model", "latency", "unrecorded"}),
        keys=("data", "traceID", "processes"),
        wants="'data' list of traces with 'traceID' and 'spans'",
    ),
    Reader(
        "openai-responses",
        _openai_responses.detect,
        _openai_responses.parse,
        fills=frozenset({*_TURN, "media", "agent", "tokens", "model", "latency"}),
        keys=("output", "input", "instructions", "items", "request", "calls"),
        wants="'output' with 'input', {request: {input}, response} call, 'calls' of them or "
        "'items' list",
    ),
    # Anthropic before OpenAI chat: both have `messages`, and Anthropic is recognised by what
    # OpenAI lacks
    Reader(
        "anthropic",
        _anthropic.detect,
        _anthropic.parse,
        fills=frozenset({*_TURN, "media", "agent", "tokens", "model", "latency"}),
        keys=("messages", "system", "request", "response", "calls"),
        wants="'messages' list with a 'system' or an Anthropic block (tool_use, tool_result, "
        "thinking), or {request, response} calls",
    ),
    Reader(
        "openai",
        _openai_chat.detect,
        _openai_chat.parse,
        fills=frozenset({*_TURN, "media", "agent", "tokens", "model", "latency"}),
        keys=("messages", "request", "response", "calls", "choices"),
        wants="'messages' list, {request: {messages}, response} call or 'calls' of them",
    ),
    Reader(
        "promptkit-arena",
        _promptkit.detect_arena,
        _promptkit.parse_arena,
        fills=frozenset({*_TURN, "media", "guardrails", "tokens", "latency"}),
        keys=("Messages", "RunID", "ScenarioID", "ProviderID"),
        wants="'Messages' list with 'RunID', 'ScenarioID' or 'ProviderID'",
    ),
    Reader(
        "promptkit-session",
        _promptkit.detect_session,
        _promptkit.parse_session,
        fills=frozenset({*_TURN, "media", "guardrails", "tokens", "model", "latency"}),
        keys=("events", "metadata"),
        wants="'events' list with a 'metadata' object",
    ),
    Reader(
        "agents-sdk",
        _agents_sdk.detect,
        _agents_sdk.parse,
        _agents_sdk.parts,
        fills=frozenset(
            {*_TURN, "agent", "guardrails", "tokens", "model", "latency", "unrecorded"}
        ),
        keys=("object", "span_data", "spans", "data"),
        wants="trace or span 'object', or spans with 'span_data'",
    ),
    Reader(
        "inspect",
        _inspect.detect,
        _inspect.parse,
        _inspect.parts,
        fills=frozenset({*_TURN, "media", "tokens", "model"}),
        keys=("eval", "samples", "status"),
        wants="'eval' object with 'task' beside 'samples' or 'status'",
    ),
    Reader(
        "langsmith",
        _langsmith.detect,
        _langsmith.parse,
        _langsmith.parts,
        fills=frozenset({*_TURN, "tokens", "model", "latency", "unrecorded"}),
        keys=("run_type", "inputs", "outputs", "child_runs", "post", "patch"),
        wants="'run_type' with 'inputs', 'outputs' or 'child_runs', or 'post' / 'patch' lists "
        "of runs (a /runs/batch payload)",
    ),
    Reader(
        "promptfoo",
        _promptfoo.detect,
        _promptfoo.parse,
        _promptfoo.parts,
        fills=frozenset({"text", "tool_calls", "call_ids", "arguments", "tokens", "latency"}),
        keys=("results", "prompt", "response"),
        wants="'results' of {prompt, response} results",
    ),
    Reader(
        "adk",
        _adk.detect,
        _adk.parse,
        _adk.parts,
        fills=frozenset({*_TURN, "media", "agent", "tokens", "model", "latency", "unrecorded"}),
        keys=("eval_set_id", "eval_cases", "eval_id", "conversation", "evalSetId", "evalCases"),
        wants="'eval_set_id' with 'eval_cases', or an eval case's 'eval_id' and 'conversation'",
    ),
)
"""Every log format, in detection order."""

FORMATS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Conversation]]] = {
    reader.name: (reader.detect, reader.parse) for reader in READERS
}
"""Format name → `(detect, parse)`, in detection order (`READERS`)."""

PARTS: dict[str, Callable[[Any], list[tuple[str, Any]] | None]] = {
    reader.name: reader.parts for reader in READERS if reader.parts is not None
}
"""Format name → how a record of that format splits into several conversations: `(label,
sub-record)` pairs, each sub-record read by the format's `parse`, or None when the record is one
conversation. `parse_record` reads a record of one conversation only."""


def detected(record: Any) -> str | None:
    """The first format whose detector recognises `record`, or None.

    Raises:
        TranscriptError: when a detector fails on the record (a value of a type it did not
            expect): the record is reported, never a crash of the reading of its log.
    """
    for reader in READERS:
        try:
            found = reader.detect(record)
        except RecursionError:
            raise TranscriptError("malformed record: nested too deeply") from None
        except Exception as exc:  # one odd record never ends the reading of a log
            raise TranscriptError(
                f"malformed record ({type(exc).__name__} while detecting its format as "
                f"{reader.name}: {exc})"
            ) from None
        if found:
            return reader.name
    return None
