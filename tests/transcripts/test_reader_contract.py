"""The reader contract, over every registered log format (`chatassert.transcripts.FORMATS`).

Like the check contract (`tests/test_contract.py`) for assertions, every reader must hold to
the same promises, whatever a log line holds:

- its sample records (`samples/<format>.json`, one file per registered format: a new reader
  without one fails here) are detected as that format and read into conversations, detected
  and forced alike;
- any JSON value given as a record — and a sample record with any of its values replaced by
  any JSON value — gives conversations or a per-record error with its place: `parse_record`
  returns a `Conversation` or raises `TranscriptError`, `parse_line` returns records each
  holding a conversation or an error of their own words (never the catch-all the reading
  keeps for an exception that escaped a reader), and never raises;
- through the reading path of `chatassert check`, a log mixing bad lines with good ones loses
  no good line, and reports each bad one at its `file:line`.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from chatassert import Conversation
from chatassert._cli import main
from chatassert._errors import TranscriptError
from chatassert.transcripts import FORMATS, PARTS, Record, parse_line, parse_record

SAMPLES = Path(__file__).parent / "samples"
NAMES = list(FORMATS)


def samples(name: str) -> list[Any]:
    """The sample records of one format: valid records of its main shapes."""
    records = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(records, list), f"{name}.json must hold a list of records"
    assert records, f"{name}.json must hold at least one record"
    return records


def detected(record: Any) -> str | None:
    """The format detection picks for a record: the first in `FORMATS` that recognises it."""
    return next((name for name, (detect, _) in FORMATS.items() if detect(record)), None)


# -- the samples -------------------------------------------------------------------------------


def test_every_registered_format_has_sample_records_and_no_sample_is_stray() -> None:
    files = {path.stem for path in SAMPLES.glob("*.json")}
    assert not set(FORMATS) - files, f"add samples/<format>.json for {set(FORMATS) - files}"
    assert not files - set(FORMATS), f"samples of no registered format: {files - set(FORMATS)}"
    assert set(PARTS) <= set(FORMATS)


@pytest.mark.parametrize("name", NAMES)
def test_the_sample_records_of_each_format_are_its_and_read_into_conversations(name: str) -> None:
    for index, record in enumerate(samples(name)):
        assert detected(record) == name, (index, detected(record))
        line = json.dumps(record, ensure_ascii=False)
        for format in (None, name):
            read = parse_line(line, f"{name}.jsonl", index + 1, format)
            assert read.error is None, (index, format, read.error)
            for one in read.each():
                assert one.error is None, (index, format, one.where, one.error)
                assert isinstance(one.conversation, Conversation)
                assert one.conversation.turns
                assert one.where.startswith(f"{name}.jsonl:{index + 1}")


# -- any JSON value ----------------------------------------------------------------------------

_KEYS = (
    "object", "id", "type", "role", "content", "text", "parts", "messages", "turns", "data",
    "spans", "span_data", "trace_id", "traceId", "traceID", "spanId", "attributes", "events",
    "resourceSpans", "scopeSpans", "eval", "task", "samples", "status", "results", "response",
    "prompt", "output", "input", "run_type", "inputs", "outputs", "child_runs", "Messages",
    "RunID", "metadata", "eval_cases", "conversation", "invocation_events", "request", "calls",
    "choices", "tool_calls", "function", "arguments", "name", "processes", "tags", "key",
    "value", "usage", "query", "reference",
)  # fmt: skip
"""Keys the readers look for, so that random objects reach past their detection."""

_WORDS = (
    "trace", "trace.span", "user", "assistant", "system", "tool", "model", "llm", "chat",
    "function", "generation", "response", "message", "text", "tool_call", "execute_tool",
    "attachment://x", "", "\ud800", "a\udfffb", "\x00", "1" * 30, "NaN", "1e309",
)  # fmt: skip


def json_scalars() -> st.SearchStrategy[Any]:
    """Every kind of JSON scalar, with the values readers find hard: huge integers, NaN and
    infinities (which Python's JSON reads), lone surrogates, the words readers look for."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([10**400, -(10**400), 2**63, 2**64, -1, 0]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(_WORDS),
        st.text(max_size=8),
    )


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value: lists and objects at every level, under the keys readers read."""
    return st.recursive(
        json_scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(
                st.one_of(st.sampled_from(_KEYS), st.text(max_size=4)), inner, max_size=5
            ),
        ),
        max_leaves=12,
    )


JSON_VALUES = json_values()
"""`json_values()`, built once: building the recursive strategy again on every draw of
`changed_samples` took most of the time of its tests."""


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


@st.composite
def changed_samples(draw: st.DrawFn, name: str) -> Any:
    """A sample record of the format with one to three of its values replaced by any value."""
    record = draw(st.sampled_from(samples(name)))
    for _ in range(draw(st.integers(1, 3))):
        places = list(_places(record))
        record = _replaced(record, draw(st.sampled_from(places)), draw(JSON_VALUES))
    return record


def holds_the_contract(record: Any, name: str) -> None:
    """`record` read by `name` (forced) and by detection: a conversation or a clean error."""
    line = json.dumps(record, allow_nan=True)
    for format in (name, None):
        try:
            conversation = parse_record(record, format)
        except TranscriptError as exc:
            said = str(exc)
        else:
            assert isinstance(conversation, Conversation)
            assert conversation.turns
            said = "read"
        assert said.strip(), "a TranscriptError says why"
        read = parse_line(line, "log.jsonl", 7, format)
        assert isinstance(read, Record)
        assert (read.source, read.line) == ("log.jsonl", 7)
        if read.parts:
            assert read.conversation is None
            assert read.error is None
        for one in read.each():
            assert (one.conversation is None) != (one.error is None), one
            assert one.where.startswith("log.jsonl:7")
            if one.error is not None:
                assert one.error.strip()
                assert not one.error.startswith("malformed record ("), (format, one.error)


_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", NAMES)
@_SETTINGS
@given(record=JSON_VALUES)
def test_any_json_value_is_a_conversation_or_an_error_of_the_record(name: str, record: Any) -> None:
    holds_the_contract(record, name)


@pytest.mark.parametrize("name", NAMES)
@_SETTINGS
@given(data=st.data())
def test_a_sample_with_any_value_replaced_is_a_conversation_or_an_error_of_the_record(
    name: str, data: st.DataObject
) -> None:
    holds_the_contract(data.draw(changed_samples(name)), name)


_HOSTILE: list[Any] = [
    None, True, -1, 1.5, "", "x", [], [1], [[]], [{}], {}, {"a": []}, {"type": []},
    {"object": []}, {"role": {}}, 10**400, float("nan"), float("-inf"), "\ud800",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_every_value_of_every_sample_replaced_by_hostile_ones_holds_the_contract(
    name: str,
) -> None:
    """Every place of every sample, each given three of the hostile values in turn (so every
    value reaches places of every kind): no place is left to chance."""
    turn = 0
    for sample in samples(name):
        for path in _places(sample):
            for _ in range(3):
                record = _replaced(sample, path, _HOSTILE[turn % len(_HOSTILE)])
                turn += 1
                line = json.dumps(record, allow_nan=True)
                for format in (name, None):
                    for one in parse_line(line, "log.jsonl", 7, format).each():
                        assert (one.conversation is None) != (one.error is None), one
                        assert not (one.error or "").startswith("malformed record ("), one.error


_DEEP = "\x00deep"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("depth", [200, 900, 100_000])
def test_a_value_nested_deep_anywhere_is_an_error_of_the_record(name: str, depth: int) -> None:
    sample = samples(name)[0]
    places = list(_places(sample))
    for path in places[:: max(1, len(places) // 12)]:
        text = json.dumps(_replaced(sample, path, _DEEP))
        line = text.replace(json.dumps(_DEEP), "[" * depth + "]" * depth)
        for format in (name, None):
            read = parse_line(line, "log.jsonl", 3, format)
            for one in read.each():
                assert (one.conversation is None) != (one.error is None)
                assert not (one.error or "").startswith("malformed record ("), one.error


# -- through the command line's reading path ---------------------------------------------------


def _check(path: Path, *extra: str) -> tuple[int, list[dict[str, Any]], str]:
    """`chatassert check` in process over one log: exit code, JSON report lines, stderr."""
    report = path.with_suffix(".report.json")
    out, err = io.StringIO(), io.StringIO()
    argv = ["check", "--assert", "{type: not_contains, value: zzz}", "-o", str(report), *extra]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, str(path)])
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return code, lines, err.getvalue()


_BAD_LINES = [
    '{"object": []}',
    '{"object": {"trace": 1}, "data": [{"object": []}]}',
    '{"eval": {"task": "t"}, "samples": [{"messages": [{"role": []}]}]}',
    "[" * 5_000 + "]" * 5_000,
    '{"messages": "\\ud800"}',
    "not json",
]


@pytest.mark.parametrize("name", NAMES)
def test_check_reads_every_good_line_around_bad_ones_and_names_each_bad_one(
    tmp_path: Path, name: str
) -> None:
    good = [json.dumps(record) for record in samples(name)]
    lines: list[str] = []
    for bad in _BAD_LINES:
        lines += [*good, bad]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, report, err = _check(path)
    assert code == 3, err  # every good line passed; the bad ones could not be read
    assert "Traceback" not in err
    sources = {row["source"].split("#")[0] for row in report if "source" in row}
    unreadable = [row["unreadable"].split("#")[0] for row in report if "unreadable" in row]
    good_numbers = [n for n, line in enumerate(lines, 1) if line in good]
    bad_numbers = [n for n, line in enumerate(lines, 1) if line not in good]
    assert sources == {f"{path}:{n}" for n in good_numbers}
    assert unreadable == [f"{path}:{n}" for n in bad_numbers]
    (summary,) = [row["summary"] for row in report if "summary" in row]
    assert summary["records"] == len(lines)
    assert summary["unreadable"] == len(_BAD_LINES)
    assert summary["failed"] == summary["error"] == 0


def test_an_object_that_is_a_list_does_not_stop_check_with_two_jobs(tmp_path: Path) -> None:
    """The log of finding 1: every line after it is still checked, with --jobs 2 too."""
    chat = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "o"}]}
    lines = ['{"object": []}', json.dumps(chat), '{"object": {}}', json.dumps(chat)]
    path = tmp_path / "o.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for jobs in ("1", "2"):
        code, report, err = _check(path, "--jobs", jobs)
        assert code == 3, err
        assert [row.get("unreadable") for row in report if "unreadable" in row] == [
            f"{path}:1",
            f"{path}:3",
        ]
        assert [row["source"] for row in report if "source" in row] == [f"{path}:2", f"{path}:4"]
        assert report[-1]["summary"]["records"] == 4


# -- arrays of records and pretty-printed files -------------------------------------------------


def _objects(name: str) -> list[dict[str, Any]]:
    return [record for record in samples(name) if isinstance(record, dict)]


ARRAYS = [name for name in NAMES if not FORMATS[name][0](_objects(name))]
"""The formats whose records, put in one JSON array, are an array of records (the others read
such an array themselves, as a batch of runs or spans: their own array shape)."""


def test_only_formats_with_an_array_shape_of_their_own_read_an_array_of_their_records() -> None:
    assert set(NAMES) - set(ARRAYS) <= {"agents-sdk", "langsmith"}


@pytest.mark.parametrize("name", ARRAYS)
def test_an_array_of_sample_records_reads_into_the_conversations_of_each(name: str) -> None:
    """A JSON array of a format's records is read as its records, each a part named by its
    index (a record's own parts after it), detected and forced alike."""
    records = _objects(name)
    one_by_one = [len(parse_line(json.dumps(r), "log.jsonl", 1).each()) for r in records]
    for format in (None, name):
        read = parse_line(json.dumps(records), "log.jsonl", 5, format)
        assert [one.error for one in read.each()] == [None] * len(read.each()), format
        assert len(read.each()) == sum(one_by_one)
        assert read.each()[0].where.startswith("log.jsonl:5#[0]")


@pytest.mark.parametrize("name", ARRAYS)
def test_check_reads_a_pretty_printed_jsonl_file_of_samples_whole(
    tmp_path: Path, name: str
) -> None:
    """What a harness writes with `json.dump(records, f, indent=2)` into a `.jsonl` file: one
    document, read whole (by the main process, also with --jobs 2), every record checked."""
    records = _objects(name)
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    expected = len(parse_line(json.dumps(records), str(path), 1).each())
    for jobs in ("1", "2"):
        code, report, err = _check(path, "--jobs", jobs)
        assert code == 0, err
        assert err.count("one pretty-printed JSON document, not JSON Lines") == 1
        assert len([row for row in report if "source" in row]) == expected
        assert report[-1]["summary"]["records"] == 1
