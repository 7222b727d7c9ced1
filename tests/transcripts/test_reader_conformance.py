"""Reader conformance, over every registered log format (`_readers.READERS`).

What a reader gives must survive `chatassert convert`, and what each reader fills is declared,
observed and published:

- a record of the format — its sample records (`samples/<format>.json`), the records that show
  what else it reads (`conformance/<format>.json`), and those records with their values
  changed in ways that still read — read into conversations, written by `convert -f native`
  reads back equal, and written by `convert -f adk-evalset` reads back equal in everything an
  eval set holds (docs/offline.md, "Converting logs", lists what it does not: `held` below
  drops exactly that); a failure names the format, the record, the field and both values;
- the same through the command line, in process, over a log of each format's records;
- each reader's `fills` says which fields its records fill, and the records show each of them
  (docs/tools/formats_table.py observes them and writes the table of docs/offline.md from
  them; tests/docs/test_formats_table.py checks the page is current).
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import json
import math
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import Conversation, Turn
from chatassert._cli import main
from chatassert._cli.convert import _write_adk, _write_native
from chatassert.transcripts import Record, parse_document, parse_line, read_records
from chatassert.transcripts._build import unrecorded_call
from chatassert.transcripts._readers import READERS, detected

ROOT = Path(__file__).resolve().parents[2]
NAMES = [reader.name for reader in READERS]
MORE = Path(__file__).parent / "conformance"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "docs_formats_table", ROOT / "docs/tools/formats_table.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


table = _generator()


# -- comparing conversations -------------------------------------------------------------------


def differences(read: Any, back: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Each place where two dumped values differ, with both values (a NaN equals a NaN)."""
    if isinstance(read, Mapping) and isinstance(back, Mapping):
        for key in [*read, *(k for k in back if k not in read)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in read or key not in back:
                yield where, read.get(key, "<absent>"), back.get(key, "<absent>")
            else:
                yield from differences(read[key], back[key], where)
    elif isinstance(read, list | tuple) and isinstance(back, list | tuple):
        for index in range(max(len(read), len(back))):
            where = f"{path}[{index}]"
            if index >= len(read) or index >= len(back):
                yield (
                    where,
                    read[index] if index < len(read) else "<absent>",
                    back[index] if index < len(back) else "<absent>",
                )
            else:
                yield from differences(read[index], back[index], where)
    elif isinstance(read, float) and isinstance(back, float) and math.isnan(read):
        if not math.isnan(back):
            yield path, read, back
    elif read != back or isinstance(read, bool) != isinstance(back, bool):
        yield path, read, back


def assert_same(read: Any, back: Any, what: str) -> None:
    """Fail naming `what` (format, record, how written), the first differing field and both
    values, when two dumped conversations differ."""
    found = list(differences(read, back))
    if found:
        path, a, b = found[0]
        more = f" (and {len(found) - 1} more differences)" if len(found) > 1 else ""
        pytest.fail(f"{what}: {path}: read {a!r}, read back {b!r}{more}")


def dumped(conversation: Conversation) -> dict[str, Any]:
    """A conversation as the plain values it holds, to compare field by field."""
    return conversation.model_dump()


# -- what an eval set holds (docs/offline.md, "Converting logs") ---------------------------------

_NOT_HELD = ("guardrails", "workflow", "data")
"""A turn's fields an eval set does not hold."""


_KINDS = ("image", "audio", "video")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")


def _held_media(media: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The media as an eval set holds them, a genai `Part` each: the MIME type (of an image,
    audio or video: the kind it names), and the bytes in base64, else the URI (a file's path
    reads back as a URL); a part with neither is left out, as is one of no such MIME type."""
    kept = []
    for item in media:
        mime = item["mime_type"]
        kind = mime.split("/", 1)[0].lower() if mime else None
        if kind not in _KINDS:
            continue
        data = item["data"]
        if data is not None and not (_BASE64.fullmatch(data) and len(data.rstrip("=")) % 4 != 1):
            data = None
        uri = None if data is not None else item["url"] or item["file_path"]
        if data is None and uri is None and item["data"] is not None:
            continue
        kept.append(
            {"kind": kind, "mime_type": mime, "data": data, "url": uri, "role": item["role"]}
        )
    return kept


def _answers(turn: Turn) -> list[Any]:
    """The assistant messages of a turn after its last tool result: its answer."""
    after = [m for m in turn.messages if m.role in ("assistant", "tool")]
    last = max((i for i, m in enumerate(after) if m.role == "tool"), default=-1)
    return after[last + 1 :]


def fields_beyond_messages(turn: Turn) -> bool:
    """Whether a turn's messages do not show its input, tool calls or results (a native turn
    may give both, each as it likes): it is written from those fields."""
    if not turn.messages:
        return False
    shown = Turn(messages=turn.messages)
    calls = [(c.name, c.id, c.arguments) for c in turn.tool_calls]
    return (
        shown.input != turn.input
        or [(c.name, c.id, c.arguments) for c in shown.tool_calls] != calls
        or sum(m.role == "tool" for m in turn.messages) != len(turn.tool_results)
    )


_SYSTEM = ("system", "developer")


def _said(message: Mapping[str, Any]) -> bool:
    """Whether a dumped message says anything an eval set holds: text, tool calls, media."""
    return bool(
        message["content"] or message["tool_calls"] or message["media"] or message["role"] == "tool"
    )


def _answer(message: Mapping[str, Any], text: str) -> bool:
    """Whether a dumped message is a turn's answer alone: its text, and no tool calls."""
    return bool(
        message["role"] == "assistant"
        and not message["tool_calls"]
        and text
        and message["content"] == text
    )


def _held_side(turn: dict[str, Any]) -> None:
    """Drop from a dumped turn what an eval set does not hold, in place."""
    for name in _NOT_HELD:
        turn.pop(name)
    # where the log said who spoke: the eval set says it in its own place
    turn["metadata"].pop("agent_source", None)
    if turn["metadata"].get("model") == "":  # an empty model name names no model
        del turn["metadata"]["model"]
    for result in turn["tool_results"]:
        result["name"] = result["name"] or None  # nor does an empty tool name
    turn["media"] = _held_media(turn["media"])
    messages = []
    for message in turn["messages"]:
        message["media"] = _held_media(message["media"])
        message["content"] = message["content"] or None  # an empty text is no text
        message["name"] = message["name"] or None
        # system prompts are not held, nor a message that says nothing
        if message["role"] not in _SYSTEM and _said(message):
            messages.append(message)
    turn["messages"] = messages
    for call in [*turn["tool_calls"], *(c for m in messages for c in m["tool_calls"])]:
        # an eval set holds arguments as an object, not the text they were logged as (but the
        # text of arguments that were not a JSON object, with why)
        if call["arguments_error"] is None:
            call["raw_arguments"] = None


def _held_turn(turn: Turn, back: Turn) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = turn.model_dump(), back.model_dump()
    _held_side(a)
    _held_side(b)
    if not turn.messages or fields_beyond_messages(turn):
        # a turn given by its fields: written as the messages they imply
        a.pop("messages")
        b.pop("messages")
    elif (
        b["messages"]
        and _answer(b["messages"][-1], b["text"])
        and not (a["messages"] and _answer(a["messages"][-1], a["text"]))
    ):
        # the answer is the invocation's final response: one that came before a tool result
        # reads back as a message of its own, after the others
        b["messages"].pop()
    for result, again in zip(a["tool_results"], b["tool_results"], strict=False):
        if result["data"] is None:  # the eval set's response object, read back as the data
            again["data"] = None
        if result["name"] is None:  # a result is named after its call
            again["name"] = None
    latency, again_latency = a["metadata"].get("latency_ms"), b["metadata"].get("latency_ms")
    # written as ADK's `duration`, in seconds: read back within a float's rounding
    if (
        isinstance(latency, int | float)
        and isinstance(again_latency, int | float)
        and math.isclose(latency, again_latency, rel_tol=1e-12)
    ):
        b["metadata"]["latency_ms"] = latency
    if not turn.text and not turn.unrecorded and any(m.media for m in _answers(turn)):
        # an answer of media alone: ADK reads a final response of media alone as one whose
        # text (the transcript of what the agent said) it did not record
        b.pop("unrecorded", None)
        a.pop("unrecorded", None)
    if a["agent"] == "" and b["agent"] is None:
        # an event's empty author is how an eval set says no agent is known (docs/offline.md)
        b["agent"] = ""
    return a, b


def held(read: Conversation, back: Conversation) -> tuple[dict[str, Any], dict[str, Any]]:
    """The two conversations as far as an eval set holds them, to compare: without what
    docs/offline.md says it cannot hold (system prompts, guardrail events, workflow states, a
    turn's data, media an eval set has no part for), with what writing it adds (the case's
    eval id and the set's id, where the conversation had none; a result's response object as
    its data), and with what it holds
    in its own way (arguments as an object, media as genai parts, a latency in seconds, an
    empty text as none, the answer as a message of its own, a turn given by its fields as the
    messages they imply)."""
    a, b = dumped(read), dumped(back)
    a.pop("workflow")
    b.pop("workflow")
    if not read.id:  # the eval id is then the record's place
        assert back.id, "an eval case has an id"
        a.pop("id")
        b.pop("id")
    if not read.metadata.get("eval_set_id"):  # the set's id is then the output's name
        b["metadata"].pop("eval_set_id", None)
        a["metadata"].pop("eval_set_id", None)
    if len(read.turns) == len(back.turns):
        pairs = [_held_turn(x, y) for x, y in zip(read.turns, back.turns, strict=True)]
        a["turns"] = [x for x, _ in pairs]
        b["turns"] = [y for _, y in pairs]
    return a, b


# -- writing and reading back, as convert does ---------------------------------------------------


def _records(conversations: list[tuple[str, Conversation]]) -> Iterator[tuple[Record, Any]]:
    for n, (where, conversation) in enumerate(conversations, 1):
        yield Record(where, n, conversation=conversation), conversation


def as_native(conversation: Conversation, where: str) -> Conversation:
    """The conversation written as `convert -f native` writes it, and read back."""
    out, err = io.StringIO(), io.StringIO()
    tally: dict[str, int] = {}
    _write_native(_records([(where, conversation)]), out, err, tally)
    assert tally == {"written": 1}, err.getvalue()
    (line,) = out.getvalue().splitlines()
    again = parse_line(line, "native.jsonl", 1)
    assert again.conversation is not None, again.error
    return again.conversation


def as_eval_set(conversation: Conversation, where: str) -> Conversation | None:
    """The conversation written as `convert -f adk-evalset` writes it, and read back; None
    when the eval set cannot carry it (a lone surrogate), which convert names."""
    out, err = io.StringIO(), io.StringIO()
    tally: dict[str, int] = {}
    _write_adk(_records([(where, conversation)]), out, "out.evalset.json", err, tally)
    if tally.get("unwritable"):
        assert "lone surrogate" in err.getvalue(), err.getvalue()
        return None
    assert tally == {"written": 1}, err.getvalue()
    (again,) = parse_document(out.getvalue(), "out.evalset.json", 1).each()
    assert again.conversation is not None, again.error
    return again.conversation


def round_trips(name: str, record: Any, source: str, number: int = 1) -> int:
    """Read `record` (record `number` of `source`) as format `name`; each conversation written
    both ways reads back equal (as far as an eval set holds it). Returns how many conversations
    it held."""
    read = parse_line(json.dumps(record), source, number, name)
    conversations = [one for one in read.each() if one.conversation is not None]
    for one in conversations:
        assert one.conversation is not None
        conversation = one.conversation
        again = as_native(conversation, one.where)
        if again != conversation:
            assert_same(dumped(conversation), dumped(again), f"{name}: {one.where}: native line")
        from_set = as_eval_set(conversation, one.where)
        if from_set is not None:
            expected, got = held(conversation, from_set)
            assert_same(expected, got, f"{name}: {one.where}: ADK eval set")
    return len(conversations)


# -- the records -------------------------------------------------------------------------------


def records(name: str) -> list[Any]:
    """The records of a format: its samples, then its conformance records."""
    return [record for _, _, record in table.records(name)]


@pytest.mark.parametrize("name", NAMES)
def test_every_record_of_every_format_reads_back_equal_after_convert(name: str) -> None:
    for where, n, record in table.records(name):
        assert round_trips(name, record, where, n), f"{where}:{n} holds no conversation"


FIXTURES = list(table.fixtures())
"""What the tools themselves wrote (tests/fixtures/*/), as read: format, place and
conversation."""


@pytest.mark.parametrize(
    ("name", "where", "conversation"), FIXTURES, ids=[w for _, w, _ in FIXTURES]
)
def test_every_conversation_a_tool_wrote_reads_back_equal_after_convert(
    name: str, where: str, conversation: Conversation
) -> None:
    again = as_native(conversation, where)
    assert_same(dumped(conversation), dumped(again), f"{name}: {where}: native line")
    from_set = as_eval_set(conversation, where)
    if from_set is not None:
        expected, got = held(conversation, from_set)
        assert_same(expected, got, f"{name}: {where}: ADK eval set")


# changed values: each leaf of a record replaced by one of its kind

_TEXT = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(["\u2028", "\u2029", "\x85", "\x00", "\ud800", "é", "🙂", '"', "\\"]),
    ),
    max_size=12,
)


_STRUCTURE = frozenset(
    {"role", "Role", "type", "Type", "object", "key", "kind", "run_type", "refType"}
)
"""Keys whose values say what a part of a record is (a message's role, an item's type, an OTel
attribute's key), not what it holds: changing them makes another record, not another value."""


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, child in value.items():
            if key not in _STRUCTURE:
                yield from _leaves(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _leaves(child, (*path, index))
    elif value is not None:
        yield path


def _like(draw: st.DrawFn, old: Any) -> Any:
    """A value of the same kind as `old`: a string for a string (inside the JSON it holds,
    when it holds an object or a list, as logs hold tool arguments), a number of its sign."""
    if isinstance(old, bool):
        return draw(st.booleans())
    if isinstance(old, int):  # up to 2**53: a turn's token counts are the sum of its calls'
        return draw(st.integers(0 if old >= 0 else -(2**53), 2**53))
    if isinstance(old, float):
        low = 0.0 if old >= 0 else -1e12
        return draw(st.floats(low, 1e12, allow_nan=False, allow_infinity=False))
    try:
        inner = json.loads(old)
    except ValueError:
        inner = None
    if isinstance(inner, dict | list) and inner and draw(st.booleans()):
        return json.dumps(draw(changed(inner, 1)), ensure_ascii=False)
    return draw(_TEXT)


@st.composite
def changed(draw: st.DrawFn, record: Any, most: int = 3) -> Any:
    """`record` with up to `most` of its values replaced by values of the same kind."""
    record = copy.deepcopy(record)
    places = list(_leaves(record))
    for _ in range(draw(st.integers(0, most)) if places else 0):
        path = draw(st.sampled_from(places))
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = _like(draw, target[path[-1]])
    return record


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=50)
@given(data=st.data())
def test_a_record_with_changed_values_that_reads_reads_back_equal_after_convert(
    name: str, data: st.DataObject
) -> None:
    record = data.draw(changed(data.draw(st.sampled_from(records(name)))), "record")
    round_trips(name, record, f"{name}.jsonl")


# -- the command line --------------------------------------------------------------------------


def _convert(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["convert", *argv])
    return code, err.getvalue()


@pytest.mark.parametrize("name", NAMES)
def test_convert_writes_a_log_of_each_format_that_reads_back_equal(
    tmp_path: Path, name: str
) -> None:
    log = tmp_path / f"{name}.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records(name)), encoding="utf-8")
    read = [r for r in read_records(log) if r.conversation is not None]
    assert read, f"{name}: the log holds no conversation"
    native, evalset = tmp_path / "out.jsonl", tmp_path / "out.evalset.json"
    for target, path in (("native", native), ("adk-evalset", evalset)):
        code, err = _convert("-f", target, "--log-format", name, str(log), "-o", str(path))
        assert code == 0, err
    from_native = list(read_records(native))
    from_set = list(read_records(evalset))
    set_id = json.loads(evalset.read_text(encoding="utf-8"))["eval_set_id"]
    assert len(from_native) == len(from_set) == len(read), (name, err)
    for one, line, case in zip(read, from_native, from_set, strict=True):
        assert one.conversation is not None
        assert line.conversation is not None, line.error
        assert case.conversation is not None, case.error
        assert_same(
            dumped(one.conversation), dumped(line.conversation), f"{name}: {one.where}: native"
        )
        expected, got = held(one.conversation, case.conversation)
        if expected["metadata"].get("eval_set_id"):  # one set: the first conversation's
            expected["metadata"]["eval_set_id"] = set_id
        if isinstance(got.get("id"), str) and got["id"] != expected.get("id"):
            # eval ids are unique in a set: a conversation's id that an earlier one had gets -2
            assert got["id"].startswith(f"{expected['id']}-"), (expected["id"], got["id"])
            got["id"] = expected["id"]
        assert_same(expected, got, f"{name}: {one.where}: ADK eval set")


# -- what each reader fills --------------------------------------------------------------------


def test_the_conformance_records_are_of_registered_formats_and_detected_as_them() -> None:
    for path in sorted(MORE.glob("*.json")):
        assert path.stem in NAMES, f"{path.name}: no registered format is named {path.stem}"
        for n, record in enumerate(json.loads(path.read_text(encoding="utf-8")), 1):
            assert detected(record) == path.stem, (path.name, n, detected(record))


def test_every_field_a_reader_can_fill_has_a_column() -> None:
    for reader in READERS:
        unknown = set(reader.fills) - set(table.FIELDS)
        assert not unknown, f"{reader.name}: fills names no column: {sorted(unknown)}"


OBSERVED = table.observed()


@pytest.mark.parametrize("reader", READERS, ids=NAMES)
def test_each_reader_declares_what_its_records_fill(reader: Any) -> None:
    seen = OBSERVED[reader.name]
    undeclared, unseen = seen - reader.fills, reader.fills - seen
    assert not undeclared, (
        f"{reader.name}: its records fill {sorted(undeclared)}, which its Reader's fills does "
        "not say (add them in chatassert/transcripts/_readers.py and run "
        f"`{table.REGENERATE}`)"
    )
    assert not unseen, (
        f"{reader.name}: its Reader's fills says {sorted(unseen)}, which none of its records "
        "shows (add a record that does to tests/transcripts/conformance/"
        f"{reader.name}.json, or take them out of fills)"
    )


# -- what an eval set keeps that other formats hold ------------------------------------------


def _one_turn(**fields: Any) -> Conversation:
    return Conversation(turns=(Turn(**fields),), id="c")


def test_an_eval_set_keeps_arguments_the_log_did_not_record_as_unrecorded() -> None:
    call = unrecorded_call("refund", "c1", "the span records no arguments")
    conversation = _one_turn(
        messages=[
            {"role": "user", "content": "Refund"},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": "Done."},
        ]
    )
    assert call.arguments_unrecorded
    back = as_eval_set(conversation, "log:1")
    assert back is not None
    assert back.turns[0].tool_calls[0].arguments_error == call.arguments_error


def test_an_eval_set_keeps_a_turn_whose_text_the_log_did_not_record_as_unrecorded() -> None:
    reason = "the span records only the response id"
    conversation = _one_turn(input="Capital of Italy?", unrecorded={"text": reason})
    back = as_eval_set(conversation, "log:1")
    assert back is not None
    assert back.turns[0].unrecorded == {"text": reason}


def test_an_eval_set_keeps_the_tool_calls_a_turn_gives_beside_its_messages() -> None:
    turn = Turn(
        input="Refund INV-1",
        text="Done.",
        messages=[{"role": "user", "content": "Refund INV-1"}],
        tool_calls=[{"name": "refund", "arguments": {"invoice": "INV-1"}, "id": "c1"}],
        tool_results=[{"content": "ok", "call_id": "c1"}],
    )
    back = as_eval_set(Conversation(turns=(turn,), id="c"), "log:1")
    assert back is not None
    assert back.turns[0].called_tools == ["refund"]


def test_an_eval_set_keeps_an_errored_tool_result_without_text() -> None:
    conversation = _one_turn(
        messages=[
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "tool_calls": [{"name": "weather", "id": "w1"}]},
            {"role": "tool", "tool_call_id": "w1", "content": ""},
            {"role": "assistant", "content": "It failed."},
        ],
        tool_results=[{"content": "", "call_id": "w1", "is_error": True}],
    )
    back = as_eval_set(conversation, "log:1")
    assert back is not None
    assert back.turns[0].tool_results[0].is_error


def test_an_eval_set_of_a_tool_call_named_empty_reads_back() -> None:
    conversation = _one_turn(
        messages=[
            {"role": "user", "content": "Go"},
            {"role": "assistant", "content": "Done.", "tool_calls": [{"name": "", "id": "x"}]},
        ]
    )
    assert as_eval_set(conversation, "log:1") is not None


def test_an_eval_set_keeps_the_media_a_turn_gives_beside_its_messages() -> None:
    image = {"kind": "image", "mime_type": "image/png", "url": "https://example.com/a.png"}
    conversation = _one_turn(input="Draw a cat", text="Here it is.", media=[image])
    assert not conversation.turns[0].messages  # given by its fields: no message carries it
    back = as_eval_set(conversation, "log:1")
    assert back is not None
    assert [m.url for m in back.turns[0].media] == ["https://example.com/a.png"]
