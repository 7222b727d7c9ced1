"""The log formats chatassert reads: one ordered list of readers, from which the tables derive.

Each format is a `Reader`: its name, how a record of it is recognised (`detect`), how a record
is read into a `Conversation` (`parse`), and, for a format whose one record may hold several
conversations, how it splits (`parts`). `READERS` lists the built-in ones in detection order;
`FORMATS` and `PARTS`, and the detection itself (`detected`), are derived from it and from the
formats `register_reader` adds after them (a `chatassert.readers` plugin's, say). A new
built-in log format is a module with those functions and one `Reader` here.

Example:
    >>> [reader.name for reader in READERS][:3]
    ['native', 'otel', 'jaeger']
    >>> detected({"turns": []})
    'native'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
from chatassert import plugins
from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.plugins import PluginTable

__all__ = [
    "FORMATS",
    "PARTS",
    "READERS",
    "Reader",
    "detected",
    "readers",
    "register_reader",
    "unregister_reader",
]


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
        fills=frozenset({*_TURN, "media", "agent", "tokens", "model", "latency", "unrecorded"}),
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

"""Every built-in log format, in detection order (`readers()` adds the registered ones)."""

_PLUGGED: list[Reader] = []
"""The formats registered (`register_reader`), in the order they were."""

_FORMATS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Conversation]]] = {
    reader.name: (reader.detect, reader.parse) for reader in READERS
}

FORMATS: Mapping[str, tuple[Callable[[Any], bool], Callable[[Any], Conversation]]] = PluginTable(
    plugins.READERS, _FORMATS
)
"""Format name → `(detect, parse)`, in detection order (`readers()`): a name no format has
is looked for among the installed plugins (`chatassert.readers`); iterating it lists the
formats registered so far."""

PARTS: dict[str, Callable[[Any], list[tuple[str, Any]] | None]] = {
    reader.name: reader.parts for reader in READERS if reader.parts is not None
}
"""Format name → how a record of that format splits into several conversations: `(label,
sub-record)` pairs, each sub-record read by the format's `parse`, or None when the record is one
conversation. `parse_record` reads a record of one conversation only."""


def readers() -> tuple[Reader, ...]:
    """Every log format registered so far, in detection order: the built-in ones
    (`READERS`), then those `register_reader` added, in the order they were."""
    return READERS + tuple(_PLUGGED)


def register_reader(reader: Reader) -> None:
    """Add a log format: `--log-format NAME` reads it, and detection asks it after every
    built-in format (`READERS`) and the formats registered before it, so that a log a
    built-in format reads is read the same whatever is installed; give `--log-format` to
    read a log in it that a built-in format would claim.

    A `chatassert.readers` entry point names a `Reader`, which is registered when the
    plugins of that group are loaded: when `--log-format` names a format no reader has, or
    a record no reader registered so far recognises is read.

    Raises:
        TypeError: when `reader` is not a `Reader`.
        ValueError: when its name is empty or another format's.
    """
    if not isinstance(reader, Reader):
        raise TypeError(
            "a log format is registered as a chatassert.transcripts.Reader(name, detect, "
            f"parse, ...), not {type(reader).__name__} {reader!r}"
        )
    name = reader.name
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a log format needs a name, got {name!r}")
    if name in _FORMATS:
        raise ValueError(
            f"log format {name!r} is already registered"
            + (" (a built-in format)" if any(r.name == name for r in READERS) else "")
            + "; give the reader a name of its own"
        )
    if not callable(reader.detect) or not callable(reader.parse):
        raise TypeError(f"log format {name!r}: detect and parse must be functions of a record")
    _PLUGGED.append(reader)
    _FORMATS[name] = (reader.detect, reader.parse)
    if reader.parts is not None:
        PARTS[name] = reader.parts


def unregister_reader(name: str) -> Reader:
    """Take a registered log format out (`register_reader`'s, or an installed plugin's) and
    return its `Reader`: `--log-format NAME` no longer reads it, and detection no longer asks
    it. Registering it again puts it last among the registered formats.

    Raises:
        KeyError: when no registered format has that name.
        ValueError: when the name is a built-in format's, which cannot be taken out.
    """
    if any(reader.name == name for reader in READERS):
        raise ValueError(
            f"log format {name!r} is built in and cannot be taken out; to read a log in "
            "another format that claims its records, give that format with --log-format"
        )
    found = next((reader for reader in _PLUGGED if reader.name == name), None)
    if found is None:
        raise KeyError(name)
    _PLUGGED.remove(found)
    del _FORMATS[name]
    PARTS.pop(name, None)
    return found


def _install(name: str, value: object) -> None:
    if not isinstance(value, Reader):
        raise TypeError(
            f"a {plugins.READERS} entry point must name a chatassert.transcripts.Reader, not "
            f"{type(value).__name__} {value!r}"
        )
    if value.name in _FORMATS and any(r is value for r in _PLUGGED):
        return  # registered by its module when imported
    register_reader(value)


plugins.installer(plugins.READERS, _install)


def _detect(reader: Reader, record: Any) -> bool:
    try:
        return bool(reader.detect(record))
    except RecursionError:
        raise TranscriptError("malformed record: nested too deeply") from None
    except Exception as exc:  # one odd record never ends the reading of a log
        raise TranscriptError(
            f"malformed record ({type(exc).__name__} while detecting its format as "
            f"{reader.name}: {exc})"
        ) from None


def detected(record: Any) -> str | None:
    """The first format whose detector recognises `record`, or None: the built-in formats
    first, then the registered ones; when none does, the installed plugins of log formats
    are loaded (once) and asked too.

    Raises:
        TranscriptError: when a detector fails on the record (a value of a type it did not
            expect), or no format recognises it and a plugin of log formats could not be
            loaded: the record is reported, never a crash of the reading of its log.
    """
    for reader in READERS:
        if _detect(reader, record):
            return reader.name
    for reader in _PLUGGED:
        if _detect(reader, record):
            return reader.name
    asked = len(_PLUGGED)
    failed: plugins.PluginError | None = None
    try:
        plugins.load_group(plugins.READERS)  # once: later, what failed is raised again
    except plugins.PluginError as exc:
        failed = exc  # the plugins that did load are asked still
    for reader in _PLUGGED[asked:]:
        if _detect(reader, record):
            return reader.name
    if failed is not None:
        raise TranscriptError(f"no log format recognises the record, and {failed}")
    return None
