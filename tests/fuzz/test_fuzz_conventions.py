"""Fuzzing the span conventions inside OpenTelemetry traces: OpenLLMetry's and OpenInference's
flattened attributes, and Grafana Tempo's `batches` envelope.

The records are what the instrumentation packages wrote (tests/fixtures/instrumented) and the
hand-written samples of the reader contract, mutated as `test_fuzz_logs.py` mutates every
reader's records, and also given flattened attributes of their convention with odd keys and
values (indices out of order, huge or not numbers, nested lists of calls and contents). The
contract is the same: `parse_record` returns a `Conversation` or raises `TranscriptError`,
`parse_line` never raises and its error is a reason, a read conversation checks, and its
results are strict JSON.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st
from test_fuzz_logs import file_samples, mutated_record, odd_values, read, to_line

_FIXTURES = Path(__file__).parents[1] / "fixtures" / "instrumented"


def _fixture(name: str) -> Any:
    return json.loads((_FIXTURES / name).read_text(encoding="utf-8"))


def _otel_samples(*markers: str) -> list[Any]:
    """The OTel reader's sample records whose JSON holds one of `markers`."""
    return [r for r in file_samples("otel") if any(m in json.dumps(r) for m in markers)]


OPENLLMETRY: list[Any] = [
    _fixture("openllmetry-chat-tools.json"),
    _fixture("openllmetry-no-content.json"),
    _fixture("mixed-conventions.json"),
    *_otel_samples("gen_ai.prompt.0"),
]
OPENINFERENCE: list[Any] = [
    _fixture("openinference-chat-tools.json"),
    _fixture("openinference-agents-guardrail.json"),
    _fixture("openinference-hidden.json"),
    _fixture("openinference-image.json"),
    *_otel_samples("openinference.span.kind"),
]
TEMPO: list[Any] = [
    *_otel_samples('"batches"'),
    *({"batches": doc["resourceSpans"]} for doc in OPENLLMETRY[:1] + OPENINFERENCE[:2]),
]

_OPENLLMETRY_FIELDS = (
    "role", "content", "user", "refusal", "tool_call_id", "finish_reason",
    "tool_calls.0.id", "tool_calls.0.name", "tool_calls.0.arguments", "tool_calls.7.name",
)  # fmt: skip
_OPENINFERENCE_FIELDS = (
    "message.role", "message.content", "message.tool_call_id", "message.name",
    "message.contents.0.message_content.type", "message.contents.0.message_content.text",
    "message.contents.1.message_content.image.image.url",
    "message.contents.2.message_content.audio.audio.url",
    "message.tool_calls.0.tool_call.id", "message.tool_calls.0.tool_call.function.name",
    "message.tool_calls.0.tool_call.function.arguments", "message.function_call_name",
)  # fmt: skip
_INDICES = ("0", "1", "3", "10", "01", "999999999", "1" * 12, "-1", "x", "")


@st.composite
def flattened_key(draw: st.DrawFn, prefixes: tuple[str, ...], fields: tuple[str, ...]) -> str:
    """A key of a convention's flattened attributes: a list's prefix, an index, a field."""
    return f"{draw(st.sampled_from(prefixes))}{draw(st.sampled_from(_INDICES))}." + draw(
        st.one_of(st.sampled_from(fields), specgen.odd_text())
    )


def _flat_value() -> st.SearchStrategy[Any]:
    """A value such attributes hold: mostly the strings they hold, else any odd value."""
    strings = st.sampled_from(
        [
            "user", "assistant", "tool", "system", "Model", "image", "text", "reasoning",
            "__REDACTED__", '{"city": "Oslo"}', "[{\"type\": \"text\", \"text\": \"hi\"}]",
            "data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png", "get_weather",
        ]
    )  # fmt: skip
    return st.one_of(strings, strings, odd_values())


def _objects(value: Any, key: str) -> list[dict[str, Any]]:
    """The objects of the list `value` holds at `key` (none when it holds no list)."""
    found = value.get(key) if isinstance(value, dict) else None
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def _spans(doc: Any) -> list[dict[str, Any]]:
    """The span objects of a record, whatever its envelope."""
    spans = _objects(doc, "spans")
    for envelope in ("resourceSpans", "batches"):
        for resource in _objects(doc, envelope):
            for scopes in ("scopeSpans", "instrumentationLibrarySpans"):
                for scope in _objects(resource, scopes):
                    spans.extend(_objects(scope, "spans"))
    return spans


@st.composite
def convention_record(
    draw: st.DrawFn, samples: list[Any], prefixes: tuple[str, ...], fields: tuple[str, ...]
) -> Any:
    """A sample record mutated, then given flattened attributes of its convention."""
    doc = copy.deepcopy(draw(mutated_record(samples)))  # its attributes are filled in below
    spans = _spans(doc)
    for _ in range(draw(st.integers(0, 4)) if spans else 0):
        span = draw(st.sampled_from(spans))
        key = draw(flattened_key(prefixes, fields))
        value = draw(_flat_value())
        attrs = span.get("attributes")
        if isinstance(attrs, dict):
            attrs[key] = value
        elif isinstance(attrs, list):
            kind = draw(st.sampled_from(["stringValue", "intValue", "boolValue", "arrayValue"]))
            attrs.append({"key": key, "value": {kind: value}})
    return doc


@given(
    convention_record(OPENLLMETRY, ("gen_ai.prompt.", "gen_ai.completion."), _OPENLLMETRY_FIELDS),
    st.booleans(),
    st.booleans(),
)
@fuzz_target("log.openllmetry")
def test_openllmetry_traces_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "otel" if forced else None)


@given(
    convention_record(
        OPENINFERENCE,
        ("llm.input_messages.", "llm.output_messages.", "input.images."),
        (*_OPENINFERENCE_FIELDS, "image.url"),
    ),
    st.booleans(),
    st.booleans(),
)
@fuzz_target("log.openinference")
def test_openinference_traces_read_or_fail_cleanly(
    doc: Any, forced: bool, ascii_only: bool
) -> None:
    read(to_line(doc, ascii_only), "otel" if forced else None)


@given(mutated_record(TEMPO), st.booleans(), st.booleans())
@fuzz_target("log.tempo")
def test_tempo_exports_read_or_fail_cleanly(doc: Any, forced: bool, ascii_only: bool) -> None:
    read(to_line(doc, ascii_only), "otel" if forced else None)


def test_the_conventions_have_samples_of_each_shape() -> None:
    assert len(OPENLLMETRY) >= 4
    assert len(OPENINFERENCE) >= 5
    assert any("instrumentationLibrarySpans" in json.dumps(r) for r in TEMPO)
