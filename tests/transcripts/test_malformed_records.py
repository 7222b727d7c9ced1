"""Malformed log records: each is an error naming the field and what was expected, never a crash.

Every record below is valid JSON that a reader must survive: numbers too big for a float, NaN,
negative counts, values of the wrong type. `parse_line` turns each into a `Record` whose error
says which field is wrong and what it should hold, and `read_records` goes on with the next line.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chatassert.transcripts import parse_line, read_records

HUGE = "1" + "0" * 309  # an integer JSON reads exactly but no float can hold
CHAT = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]

# JSON literals for a token count; Python's JSON reads 1e400 as inf and NaN as nan
BAD_COUNTS = {
    "huge-integer": HUGE,
    "huge-negative": "-" + HUGE,
    "float-overflow": "1e400",
    "nan": "NaN",
    "infinity": "-Infinity",
    "negative": "-5",
    "string": '"12"',
    "empty-string": '""',
    "list": "[12]",
    "object": '{"n": 12}',
    "bool": "true",
}


def _openai_transcript(count: str) -> str:
    usage = f'{{"prompt_tokens": 2.0, "completion_tokens": {count}}}'
    return f'{{"messages": {json.dumps(CHAT)}, "usage": {usage}}}'


def _openai_call(count: str) -> str:
    request = json.dumps({"messages": CHAT[:1]})
    response = (
        '{"choices": [{"message": {"role": "assistant", "content": "Hello"}}], '
        f'"usage": {{"prompt_tokens": 3, "completion_tokens": {count}}}}}'
    )
    return f'{{"calls": [{{"request": {request}, "response": {response}}}]}}'


def _anthropic(count: str) -> str:
    response = (
        '{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hello"}],'
        f' "usage": {{"input_tokens": 7, "output_tokens": {count}}}}}'
    )
    return f'{{"system": "s", "messages": {json.dumps(CHAT[:1])}, "response": {response}}}'


def _responses(count: str) -> str:
    output = '[{"type": "message", "role": "assistant", "content": "Hello"}]'
    return (
        f'{{"input": "Hi", "output": {output}, '
        f'"usage": {{"input_tokens": 7, "output_tokens": {count}}}}}'
    )


def _otel(count: str) -> str:
    messages = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
        ),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]}]
        ),
    }
    attributes = json.dumps(messages)[:-1] + f', "gen_ai.usage.output_tokens": {count}}}'
    return f'{{"spans": [{{"name": "chat", "attributes": {attributes}}}]}}'


ADAPTERS = {
    "openai": (_openai_transcript, "usage.completion_tokens"),
    "openai-call": (_openai_call, "calls[0].response: usage.completion_tokens"),
    "anthropic": (_anthropic, "response: usage.output_tokens"),
    "openai-responses": (_responses, "usage.output_tokens"),
    "otel": (_otel, "span 'chat': gen_ai.usage.output_tokens"),
}


@pytest.mark.parametrize("adapter", list(ADAPTERS))
@pytest.mark.parametrize("count", list(BAD_COUNTS))
def test_a_bad_token_count_is_an_error_naming_the_field(adapter: str, count: str) -> None:
    build, field = ADAPTERS[adapter]
    record = parse_line(build(BAD_COUNTS[count]), "log.jsonl", 12)
    assert record.conversation is None
    assert record.error is not None
    assert record.error.startswith(field), record.error
    assert "a number of tokens (a whole number from 0 to 2**63 - 1)" in record.error


@pytest.mark.parametrize("adapter", list(ADAPTERS))
@pytest.mark.parametrize("count", ["0", "12", "12.0", str(2**63 - 1), "null"])
def test_good_token_counts_are_read(adapter: str, count: str) -> None:
    build, _ = ADAPTERS[adapter]
    record = parse_line(build(count), "log.jsonl", 12)
    assert record.error is None
    assert record.conversation is not None


def test_a_count_too_big_for_a_float_is_summed_without_overflow() -> None:
    """The largest accepted count still adds to a float count (the sum of two calls' tokens)."""
    line = _openai_transcript(str(2**63 - 1))
    conversation = parse_line(line, "log.jsonl", 1).conversation
    assert conversation is not None
    assert conversation.metadata["total_tokens"] == pytest.approx(2**63 + 1.0)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("latency_ms", HUGE, "latency_ms must be a duration"),
        ("latency_s", "1e308", "latency_s must be a duration"),
        ("duration_ms", "NaN", "duration_ms must be a duration"),
        ("latency_ms", "-1", "latency_ms must be a duration"),
        ("cost", "-0.5", "cost must be an amount"),
        ("cost_usd", "Infinity", "cost_usd must be an amount"),
    ],
)
def test_a_bad_latency_or_cost_is_an_error_naming_the_field(
    field: str, value: str, expected: str
) -> None:
    line = f'{{"messages": {json.dumps(CHAT)}, "{field}": {value}}}'
    record = parse_line(line, "log.jsonl", 3)
    assert record.conversation is None
    assert (record.error or "").startswith(expected), record.error


@pytest.mark.parametrize("value", ['"fast"', '{"usd": 0.01}', "[1]", "null", "true"])
def test_a_latency_or_cost_of_another_convention_is_not_read(value: str) -> None:
    """`latency_ms` and `cost` belong to no vendor's schema: a value that is no number at all
    is another logger's convention, not a malformed record."""
    line = f'{{"messages": {json.dumps(CHAT)}, "latency": {value}, "cost": {value}}}'
    conversation = parse_line(line, "log.jsonl", 3).conversation
    assert conversation is not None
    assert "latency_ms" not in conversation.metadata
    assert "cost" not in conversation.metadata


def _span(**fields: Any) -> dict[str, Any]:
    parts = [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]}]
    span: dict[str, Any] = {
        "name": "chat",
        "startTimeUnixNano": "1000000000",
        "endTimeUnixNano": "1500000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(parts)}},
            {"key": "gen_ai.output.messages", "value": {"stringValue": json.dumps(answer)}},
        ],
    }
    span.update(fields)
    return span


OPERATION = {"gen_ai.operation.name": "chat"}  # a span whose messages are in its events


def _attribute(key: str, value: Any) -> dict[str, Any]:
    return _span(attributes=[*_span()["attributes"], {"key": key, "value": value}])


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        (_attribute("n", {"intValue": ""}), "span 'chat': attribute 'n': intValue must be"),
        (_attribute("n", {"intValue": "x"}), "span 'chat': attribute 'n': intValue must be"),
        (_attribute("n", {"intValue": [1]}), "span 'chat': attribute 'n': intValue must be"),
        (_attribute("n", {"intValue": 1.5}), "span 'chat': attribute 'n': intValue must be"),
        (_attribute("n", {"stringValue": [1]}), "span 'chat': attribute 'n': stringValue must"),
        (_attribute("n", {"boolValue": "yes"}), "span 'chat': attribute 'n': boolValue must"),
        (_attribute("n", {"doubleValue": []}), "span 'chat': attribute 'n': doubleValue must"),
        (_attribute("n", {"arrayValue": [1]}), "span 'chat': attribute 'n': arrayValue must"),
        (_attribute("n", {"intValue": HUGE}), "span 'chat': attribute 'n': intValue must be"),
        (
            _attribute("gen_ai.usage.input_tokens", {"intValue": "-5"}),
            "span 'chat': gen_ai.usage.input_tokens must be a number of tokens",
        ),
        (
            _attribute("gen_ai.usage.input_tokens", {"doubleValue": "NaN"}),
            "span 'chat': gen_ai.usage.input_tokens must be a number of tokens",
        ),
        (
            _span(attributes={"gen_ai.operation.name": ["chat"]}),
            "span 'chat': gen_ai.operation.name must be a string",
        ),
        (_span(startTimeUnixNano=HUGE), "span 'chat': startTimeUnixNano must be"),
        (_span(endTimeUnixNano="1e400"), "span 'chat': endTimeUnixNano must be"),
        (_span(startTimeUnixNano=-1), "span 'chat': startTimeUnixNano must be"),
        (_span(startTimeUnixNano=[1]), "span 'chat': startTimeUnixNano must be"),
        (_span(attributes=OPERATION, events=5), "span 'chat': events must be a list"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_malformed_span_is_an_error_naming_the_span_and_field(
    span: dict[str, Any], expected: str
) -> None:
    record = parse_line(json.dumps({"spans": [span]}), "trace.jsonl", 1)
    assert record.conversation is None
    assert (record.error or "").startswith(expected), record.error


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        ({"resourceSpans": [{"scopeSpans": 5}]}, "resourceSpans[0].scopeSpans must be a list"),
        ({"resourceSpans": [{"scopeSpans": [{"spans": True}]}]}, "resourceSpans[0].scopeSpans[0]"),
        ({"spans": [_span(), 3]}, "spans[1] must be an object"),
    ],
)
def test_a_malformed_trace_names_the_place(trace: dict[str, Any], expected: str) -> None:
    record = parse_line(json.dumps(trace), "trace.jsonl", 1)
    assert (record.error or "").startswith(expected), record.error


def test_a_span_that_ends_before_it_starts_has_no_latency() -> None:
    trace = {"spans": [_span(startTimeUnixNano="2000000000", endTimeUnixNano="0")]}
    conversation = parse_line(json.dumps(trace), "trace.jsonl", 1).conversation
    assert conversation is not None
    assert "latency_ms" not in conversation.turns[0].metadata


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (
            {"system": "s", "messages": [{"role": "user", "content": [{"type": ["text"]}]}]},
            "messages[0].content[0] is not a content block with a 'type'",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": ["tool_use"]}]}]},
            "messages[0].content[0]: 'type' must be a string (got a list)",
        ),
        (
            {"object": "response", "output": [{"type": {"t": 1}, "role": "assistant"}]},
            "output[0]: 'type' must be a string (got an object)",
        ),
        (
            {"spans": [_span(attributes=OPERATION, events=[{"name": ["gen_ai.user.message"]}])]},
            "span 'chat'.events[0]: 'name' must be a string (got a list)",
        ),
        (None, "unrecognised transcript record (a JSON null, not an object)"),
        ("text", "unrecognised transcript record (a JSON string, not an object)"),
    ],
)
def test_values_of_the_wrong_type_are_named(record: Any, expected: str) -> None:
    read = parse_line(json.dumps(record), "log.jsonl", 1)
    assert read.conversation is None
    assert (read.error or "").startswith(expected), read.error


def test_arguments_json_cannot_hold_are_kept_with_their_error() -> None:
    call = {"id": "c", "function": {"name": "f", "arguments": '{"n": ' + "9" * 5000 + "}"}}
    record = {"messages": [CHAT[0], {"role": "assistant", "tool_calls": [call]}]}
    conversation = parse_line(json.dumps(record), "log.jsonl", 1).conversation
    assert conversation is not None
    error = conversation.turns[0].tool_calls[0].arguments_error or ""
    assert error.startswith("arguments are not valid JSON: the number has more than 4300 digits")


# -- no error message reads like a Python exception --------------------------------------------

_PYTHON = re.compile(
    r"invalid literal|unhashable|has no attribute|not iterable|not subscriptable|NoneType"
    r"|argument must be|too large to convert|cannot convert|not supported between|Exceeds the limit"
    r"|object is not|index out of range"
)
_HOSTILE: list[Any] = [None, True, -1, 1.5, "", "x", [], [1], {}, {"type": []}, 10**309]


def _seeds() -> list[Any]:
    root = Path(__file__).parents[2]
    seeds = [
        json.loads(line)
        for path in sorted((root / "examples").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()[:3]
        if line.strip()
    ]
    import test_adapters as samples  # the realistic records of the adapter tests

    seeds += [samples.OPENAI_CHAT, samples.ANTHROPIC, samples.RESPONSES, samples.OTEL]
    return [*seeds, {"spans": [_span()]}]


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict | list):
        for key, child in value.items() if isinstance(value, dict) else enumerate(value):
            yield from _places(child, (*path, key))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


def test_no_error_message_reads_like_a_python_exception() -> None:
    """Every value of every sample record replaced by hostile ones: errors name the record."""
    rng = random.Random(12)
    seen = 0
    for seed in _seeds():
        for path in _places(seed):
            for new in rng.sample(_HOSTILE, 4):
                line = json.dumps(_replaced(seed, path, new))
                record = parse_line(line, "log.jsonl", 1)
                seen += 1
                assert record.error is None or not _PYTHON.search(record.error), (
                    path,
                    new,
                    record.error,
                )
                assert not (record.error or "").startswith("malformed record"), record.error
    assert seen > 2000


def test_read_records_goes_on_after_a_malformed_record(tmp_path: Path) -> None:
    good = json.dumps({"messages": CHAT})
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join([good, _openai_transcript(HUGE), good]) + "\n", encoding="utf-8")
    records = list(read_records(path))
    assert [(r.line, r.ok) for r in records] == [(1, True), (2, False), (3, True)]
    assert (records[1].error or "").startswith("usage.completion_tokens must be")


@pytest.mark.parametrize("messages", ['"ab"', '{"messages": []}', "[1, 2]", '["hi"]', "7"])
def test_native_messages_that_are_not_message_objects_are_an_error(messages: str) -> None:
    record = parse_line(f'{{"messages": {messages}}}', "log.jsonl", 1, "native")
    assert record.error is not None
    assert record.error.startswith("not a native conversation: "), record.error
    assert "messages" in record.error
    assert not _PYTHON.search(record.error), record.error
