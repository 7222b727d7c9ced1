"""PromptKit recordings as logs: arena run output (`promptkit-arena`) and session recordings
(`promptkit-session`), read whole from pretty-printed `.json` files (docs/offline.md)."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import Conversation
from chatassert._errors import TranscriptError
from chatassert.transcripts import FORMATS, parse_record, parse_text, read_records
from chatassert.transcripts._promptkit import go_duration_ms

DATA = Path(__file__).resolve().parents[1] / "promptkit" / "data"
ARENA = DATA / "billing.arena.json"
SESSION = DATA / "billing.recording.json"


def _only(path: Path | str) -> Conversation:
    records = list(read_records(path))
    assert [r.error for r in records] == [None]
    conversation = records[0].conversation
    assert conversation is not None
    return conversation


def _arena() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(ARENA.read_text(encoding="utf-8"))
    return raw


def _session() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(SESSION.read_text(encoding="utf-8"))
    return raw


# -- arena run output ----------------------------------------------------------------------------


def test_an_arena_file_is_one_record_split_into_user_turns() -> None:
    chat = _only(ARENA)
    assert chat.id == "run-billing-7"
    assert [(t.input, t.text) for t in chat.turns] == [
        (
            "I was charged twice for invoice INV-42.",
            # the text parts, joined; the image part is not text
            "I'm sorry about the double charge on INV-42. I have refunded the duplicate payment.",
        ),
        (
            "Great. Can you also give me the internal discount code?",
            "Sorry, I can't share internal codes.",
        ),
    ]
    assert chat.turns[0].messages[0].role == "system"  # the system prompt joins the first turn


def test_arena_tool_calls_and_results_are_promptkits_shape() -> None:
    first = _only(ARENA).turns[0]
    assert [(c.name, c.arguments, c.id) for c in first.tool_calls] == [
        ("lookup_invoice", {"invoice_id": "INV-42"}, "t1")
    ]
    result = first.tool_results[0]
    assert (result.name, result.call_id, result.content, result.is_error) == (
        "lookup_invoice",
        "t1",
        '{"charges": 2, "amount": 30}',
        False,
    )


def test_arena_validations_are_the_guardrail_events_of_their_turn() -> None:
    turns = _only(ARENA).turns
    assert [(g.name, g.triggered, g.details) for g in turns[0].guardrails] == [
        ("*validators.BannedWordsValidator", False, {})
    ]
    assert [(g.name, g.triggered, g.details) for g in turns[1].guardrails] == [
        ("*validators.BannedWordsValidator", True, {"banned_words_found": ["internal"]})
    ]


def test_arena_message_costs_and_latencies_are_summed_per_turn() -> None:
    turns = _only(ARENA).turns
    first = turns[0].metadata
    assert first["model_calls"] == 2
    assert first["latency_ms"] == 1000
    assert (first["input_tokens"], first["output_tokens"], first["total_tokens"]) == (250, 60, 310)
    assert first["cost"] == pytest.approx(0.003)
    assert first["finish_reason"] == "stop"  # the turn's last call's (its first: tool_use)
    assert turns[1].metadata["finish_reason"] == "stop"


def test_arena_run_facts_are_the_conversations_metadata() -> None:
    meta = _only(ARENA).metadata
    assert {k: meta[k] for k in ("run_id", "scenario_id", "case", "provider_id", "region")} == {
        "run_id": "run-billing-7",
        "scenario_id": "billing-double-charge",
        "case": "billing-double-charge",
        "provider_id": "anthropic-claude-sonnet",
        "region": "eu",
    }
    assert meta["params"] == {"temperature": 0.0}
    assert (meta["input_tokens"], meta["output_tokens"], meta["cost"]) == (450, 72, 0.0045)
    assert meta["cost_info"]["output_cost_usd"] == 0.0027
    assert meta["duration_ms"] == 6250.0  # Go's nanoseconds
    assert (meta["start_time"], meta["end_time"]) == (
        "2026-02-01T10:00:00Z",
        "2026-02-01T10:00:06.25Z",
    )
    assert meta["tool_stats"] == {"total_calls": 1, "by_tool": {"lookup_invoice": 1}}
    assert meta["violations"][0]["tool"] == "lookup_invoice"
    assert meta["tags"] == ["nightly"]
    assert meta["self_play"] is False
    assert "run_error" not in meta
    assert "persona_id" not in meta


def test_arena_recorded_verdicts_are_kept_with_their_place() -> None:
    recorded = _only(ARENA).metadata["recorded_assertions"]
    assert [(r["location"], r["type"], r["passed"], r["message"]) for r in recorded] == [
        ("turns[0]", "content_matches", True, "Apologises"),
        ("turns[0]", "guardrail_triggered", True, "No banned words"),
        ("turns[1]", "content_matches", True, "Apologises"),
        ("turns[1]", "guardrail_triggered", True, "No banned words"),
        ("conversation", "tools_called", True, "Looked the invoice up"),
    ]
    assert recorded[0]["details"] == {"matched": True}


def test_recorded_verdicts_in_an_eval_runs_shape_and_the_older_conversation_key() -> None:
    raw = _arena()
    raw["Messages"][4]["meta"] = {
        "assertions": [
            {"passed": False, "message": "Apologises", "details": {"explanation": "no match"}},
            {"passed": "yes"},  # not true or false: kept, never compared
            "not an object",
        ]
    }
    raw["Messages"][6].pop("meta")
    raw.pop("conversation_assertions")
    raw["conv_assertions_results"] = [{"type": "content_not_includes", "passed": True}]
    recorded = parse_record(raw).metadata["recorded_assertions"]
    assert [(r["location"], r["type"], r["passed"], r["message"]) for r in recorded] == [
        ("turns[0]", None, False, "Apologises"),
        ("turns[0]", None, None, None),
        ("conversation", "content_not_includes", True, None),
    ]


def test_a_run_without_recorded_verdicts_has_no_recorded_assertions_key() -> None:
    raw = _arena()
    for message in raw["Messages"]:
        message.pop("meta", None)
    raw.pop("conversation_assertions")
    assert "recorded_assertions" not in parse_record(raw).metadata


def test_a_failed_tool_result_is_an_error_result_and_says_why() -> None:
    raw = _arena()
    raw["Messages"][3]["tool_result"] = {"id": "t1", "name": "lookup_invoice", "error": "timeout"}
    result = parse_record(raw).turns[0].tool_results[0]
    assert (result.is_error, result.content) == (True, "timeout")


def test_tool_result_parts_and_string_arguments_are_read() -> None:
    raw = _arena()
    raw["Messages"][2]["tool_calls"][0]["args"] = '{"invoice_id": "INV-42", "full": true}'
    raw["Messages"][3]["tool_result"] = {
        "id": "t1",
        "name": "lookup_invoice",
        "parts": [{"type": "text", "text": "two charges"}],
    }
    turn = parse_record(raw).turns[0]
    assert turn.tool_calls[0].arguments == {"invoice_id": "INV-42", "full": True}
    assert turn.tool_results[0].content == "two charges"


def test_arguments_that_are_not_json_are_kept_with_their_error() -> None:
    raw = _arena()
    raw["Messages"][2]["tool_calls"][0]["args"] = '{"invoice_id": '
    call = parse_record(raw).turns[0].tool_calls[0]
    assert call.arguments == {}
    assert call.raw_arguments == '{"invoice_id": '
    assert call.arguments_error is not None
    assert "not valid JSON" in call.arguments_error


def _broken(path: str, value: Any) -> dict[str, Any]:
    raw = _arena()
    target: Any = raw
    keys = path.split("/")
    for key in keys[:-1]:
        target = target[int(key) if key.isdigit() else key]
    last = keys[-1]
    if value is _DELETE:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return raw


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "error"),
    [
        ("Messages/1", "hi", "Messages[1] is not a message object"),
        ("Messages/1/role", _DELETE, "Messages[1] has no 'role'"),
        ("Messages/1/content", ["hi"], "Messages[1].content must be a string, got a list"),
        ("Messages/4/parts", "text", 'Messages[4].parts must be a list, got "text"'),
        (
            "Messages/2/tool_calls",
            {"id": "t1"},
            "Messages[2].tool_calls must be a list, got an object",
        ),
        ("Messages/2/tool_calls/0", "call", "Messages[2].tool_calls[0] is not an object"),
        ("Messages/2/tool_calls/0/name", "", "Messages[2].tool_calls[0] has no 'name'"),
        ("Messages/3/tool_result", "ok", "Messages[3].tool_result is not an object"),
        ("Messages/4/validations", {}, "Messages[4].validations must be a list, got an object"),
        ("Messages/4/validations/0", "x", "Messages[4].validations[0] is not an object"),
        (
            "Messages/4/validations/0/validator_type",
            _DELETE,
            "Messages[4].validations[0] has no 'validator_type'",
        ),
        (
            "Messages/4/validations/0/passed",
            "no",
            'Messages[4].validations[0].passed must be true or false, got "no"',
        ),
        (
            "Messages/6/validations/0/details",
            ["internal"],
            "Messages[6].validations[0].details must be an object, got a list",
        ),
        (
            "Messages/2/latency_ms",
            -5,
            "Messages[2].latency_ms must be a duration (a number from 0 to 2**63 - 1), got -5",
        ),
        (
            "Messages/2/cost_info/input_tokens",
            1.5,
            "Messages[2].cost_info.input_tokens must be a number of tokens (a whole number from 0 "
            "to 2**63 - 1), got 1.5",
        ),
        (
            "Duration",
            "soon",
            'Duration must be a duration (nanoseconds, or Go\'s form such as "5.2s"), got "soon"',
        ),
        (
            "Cost/total_cost_usd",
            -1,
            "Cost.total_cost_usd must be an amount (a number from 0 to 2**63 - 1), got -1",
        ),
    ],
)
def test_a_malformed_arena_record_says_where_and_why(path: str, value: Any, error: str) -> None:
    with pytest.raises(TranscriptError) as caught:
        parse_record(_broken(path, value), "promptkit-arena")
    assert str(caught.value) == error


def test_an_arena_record_with_no_messages_is_not_a_conversation() -> None:
    raw = _arena()
    raw["Messages"] = []
    with pytest.raises(TranscriptError, match="holds no messages"):
        parse_record(raw)
    with pytest.raises(TranscriptError, match="an object with a 'Messages' list"):
        parse_record({"RunID": "x"}, "promptkit-arena")


# -- session recordings --------------------------------------------------------------------------


def test_a_session_recording_is_read_from_its_message_events() -> None:
    chat = _only(SESSION)
    assert chat.id == "sess-billing-9"
    assert [(t.input, t.text) for t in chat.turns] == [
        (
            "Cancel my subscription, please.",
            "Your Pro plan is cancelled; you keep access until the end of the month.",
        ),
        (
            "Thanks! Do you still keep my card on file?",
            "Yes: the card 4242 4242 4242 4242 stays on file.",
        ),
    ]
    first = chat.turns[0]
    assert [(c.name, c.arguments, c.id) for c in first.tool_calls] == [
        ("cancel_subscription", {"plan": "pro"}, "call_1")
    ]
    assert [(r.name, r.content) for r in first.tool_results] == [
        ("cancel_subscription", '{"status": "cancelled"}')
    ]


def test_session_message_updates_are_the_facts_of_their_message() -> None:
    turns = _only(SESSION).turns
    first = turns[0].metadata
    assert (first["latency_ms"], first["input_tokens"], first["output_tokens"]) == (930, 200, 36)
    assert first["total_tokens"] == 236
    assert first["cost"] == pytest.approx(0.001)
    assert first["model_calls"] == 2
    assert turns[1].metadata == {"model_calls": 1}  # an answer with no update logged no facts


def test_session_validation_events_are_guardrail_events_of_the_turn_in_progress() -> None:
    turns = _only(SESSION).turns
    assert [(g.name, g.triggered, g.details) for g in turns[0].guardrails] == [
        ("pii_filter", False, {"validator_type": "output"})
    ]
    assert [(g.name, g.triggered, g.details) for g in turns[1].guardrails] == [
        ("pii_filter", True, {"validator_type": "output", "violations": ["card number"]})
    ]


def test_session_metadata_is_kept_with_its_duration_in_milliseconds() -> None:
    meta = _only(SESSION).metadata
    assert meta["duration_ms"] == 4200.0
    assert "duration" not in meta
    assert (meta["model"], meta["provider_name"], meta["conversation_id"]) == (
        "gpt-4o-mini",
        "openai",
        "conv-9",
    )


def test_a_validation_before_any_message_goes_to_the_first_turn() -> None:
    raw = _session()
    early = copy.deepcopy(raw["events"][9])
    early["type"] = "validation.failed"
    raw["events"].insert(0, early)
    turns = parse_record(raw).turns
    assert [(g.name, g.triggered) for g in turns[0].guardrails] == [
        ("pii_filter", True),
        ("pii_filter", False),
    ]


def test_message_events_with_a_message_object_and_openai_tool_calls() -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    record = {
        "metadata": {"session_id": "s-1", "provider_id": "openai", "tags": ["a"]},
        "events": [
            {"type": "message", "timestamp": "2026-01-01T00:00:00Z",
             "message": {"role": "user", "content": "Weather in Oslo?"}},
            {"type": "message",
             "message": {"role": "assistant", "content": "", "tool_calls": [call]}},
            {"type": "message",
             "message": {"role": "tool", "tool_call_id": "c1", "content": "-3C"}},
            {"type": "message",
             "message": {"role": "assistant", "content": "It is -3°C in Oslo."}},
            {"type": "annotation", "event": {"note": "not a message"}},
        ],
    }  # fmt: skip
    chat = parse_record(record)
    assert FORMATS["promptkit-session"][0](record)
    turn = chat.turns[0]
    assert (turn.input, turn.text) == ("Weather in Oslo?", "It is -3°C in Oslo.")
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("get_weather", {"city": "Oslo"})]
    assert [(r.name, r.content) for r in turn.tool_results] == [("get_weather", "-3C")]
    assert (chat.id, chat.metadata["tags"]) == ("s-1", ["a"])


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda r: r["events"].__setitem__(1, "x"), "events[1] is not an object"),
        (lambda r: r["events"][1].__setitem__("data", None), "events[1].data is not an object"),
        (lambda r: r["events"][1]["data"].pop("Role"), "events[1].data has no 'role'"),
        (
            lambda r: (
                r["events"][9]["data"].pop("ValidatorName")
                and r["events"][9]["data"].pop("ValidatorType")
            ),
            "events[9].data has no 'ValidatorName' or 'ValidatorType'",
        ),
        (
            lambda r: r["metadata"].__setitem__("duration", -3),
            "metadata.duration must be a duration (a number from 0 to 2**63 - 1), got -3",
        ),
        (
            lambda r: r["events"][4]["data"].__setitem__("LatencyMs", -1),
            "events[4].data.latency_ms must be a duration (a number from 0 to 2**63 - 1), got -1",
        ),
    ],
)
def test_a_malformed_session_recording_says_where_and_why(change: Any, error: str) -> None:
    raw = _session()
    change(raw)
    with pytest.raises(TranscriptError) as caught:
        parse_record(raw, "promptkit-session")
    assert str(caught.value) == error


# -- detection and reading whole files -----------------------------------------------------------


def test_recordings_are_detected_and_other_formats_are_not_taken_for_them() -> None:
    def detected(record: Any) -> str | None:
        return next((name for name, (detect, _) in FORMATS.items() if detect(record)), None)

    assert detected(_arena()) == "promptkit-arena"
    assert detected(_session()) == "promptkit-session"
    assert detected({"Messages": [], "note": "no run identity"}) is None
    assert detected({"metadata": {}, "events": "x"}) is None
    assert detected({"messages": [{"role": "user", "content": "Hi"}], "metadata": {}}) == "openai"
    names = list(FORMATS)
    assert names[names.index("openai") + 1 :][:2] == ["promptkit-arena", "promptkit-session"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (0, 0.0),
        (1_500_000, 1.5),
        ("5.2s", 5200.0),
        ("1h2m3s", 3_723_000.0),
        ("150ms", 150.0),
        ("2µs", 0.002),
        ("250us", 0.25),
        ("0", 0),
    ],
)
def test_go_durations_are_read_as_milliseconds(value: Any, expected: float | None) -> None:
    assert go_duration_ms(value, "Duration") == expected


@pytest.mark.parametrize("value", ["5.2", "s", "1h-2m", "5 s", True, [1], -1])
def test_what_is_not_a_go_duration_is_refused(value: Any) -> None:
    with pytest.raises(TranscriptError, match=r"^Duration must be"):
        go_duration_ms(value, "Duration")


def test_a_pretty_printed_json_file_is_one_record_numbered_by_its_first_line(
    tmp_path: Path,
) -> None:
    log = tmp_path / "run.json"
    log.write_text("\n\n" + json.dumps(_arena(), indent=2) + "\n", encoding="utf-8")
    records = list(read_records(log))
    assert [(r.line, r.ok) for r in records] == [(3, True)]
    gz = tmp_path / "run.arena.json.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write(json.dumps(_session(), indent=2))
    assert [(r.line, r.ok) for r in read_records(gz)] == [(1, True)]


def test_a_json_file_of_one_line_records_is_still_read_line_by_line(tmp_path: Path) -> None:
    log = tmp_path / "runs.json"
    lines = [json.dumps(_arena()), json.dumps(_session()), "{broken"]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [(r.line, r.ok) for r in read_records(log)] == [(1, True), (2, True), (3, False)]
    compact = tmp_path / "one.arena.json"
    compact.write_text(json.dumps(_arena()), encoding="utf-8")
    assert [(r.line, r.ok) for r in read_records(compact)] == [(1, True)]


def test_a_jsonl_file_is_read_whole_only_when_it_is_pretty_printed_json(tmp_path: Path) -> None:
    """A `.jsonl` file that starts with a lone `{` is one pretty-printed document (JSON Lines
    never has such a line); one whose first line is a whole record is read line by line, also
    when a later line is cut short."""
    log = tmp_path / "run.jsonl"
    log.write_text(json.dumps(_arena(), indent=2), encoding="utf-8")
    assert [(r.line, r.ok) for r in read_records(log)] == [(1, True)]
    lines = tmp_path / "runs.jsonl"
    lines.write_text(json.dumps(_arena()) + "\n{\n" + json.dumps(_session()), encoding="utf-8")
    assert [(r.line, r.ok) for r in read_records(lines)] == [(1, True), (2, False), (3, True)]


def test_a_broken_document_is_one_unreadable_record_naming_its_line(tmp_path: Path) -> None:
    log = tmp_path / "cut.arena.json"
    text = json.dumps(_arena(), indent=2)
    log.write_text("\n" + text[: text.index('"Cost"')], encoding="utf-8")
    records = list(read_records(log))
    assert len(records) == 1
    assert records[0].line == 2
    assert records[0].error is not None
    assert records[0].error.startswith("the file is not JSON: ")
    lines = log.read_text(encoding="utf-8").count("\n") + 1
    assert records[0].error.endswith(f"line {lines} column 3")


def test_a_document_with_bytes_that_are_not_utf8_names_the_line(tmp_path: Path) -> None:
    log = tmp_path / "bad.recording.json"
    text = json.dumps(_session(), indent=2).encode("utf-8")
    cut = text.index(b"Cancel")
    log.write_bytes(text[:cut] + b"\xff" + text[cut:])
    line = text[:cut].count(b"\n") + 1
    [record] = read_records(log)
    assert record.error == f"the file is not UTF-8 (byte 0xff on line {line})"


def test_parse_text_reads_a_line_or_a_whole_document() -> None:
    one = json.dumps({"turns": [{"text": "Hi"}]})
    many = json.dumps({"turns": [{"text": "Hi"}]}, indent=2)
    assert parse_text(one + "\r\n", "log.jsonl", 4).ok
    assert parse_text(many, "run.json", 1).ok
    assert parse_text("{oops\n", "log.jsonl", 5).error == (
        "line is not JSON: Expecting property name enclosed in double quotes at column 2"
    )
    assert parse_text("{\n oops\n", "run.json", 7).error == (
        "the file is not JSON: Expecting property name enclosed in double quotes: line 8 column 2"
    )


def test_media_parts_of_arena_and_session_messages_are_the_turns_media() -> None:
    """docs/offline.md: PromptKit `{type, media}` parts are read, as `Turn(messages=...)`
    reads them; the arena and session readers kept only their text."""
    samples = Path(__file__).parent / "samples" / "promptkit-arena.json"
    arena = parse_record(json.loads(samples.read_text(encoding="utf-8"))[0])
    assert [(m.kind, m.url, m.mime_type) for m in arena.turns[0].media] == [
        ("image", "https://example.com/receipt.png", "image/png")
    ]
    assert arena.turns[0].text.startswith("I'm sorry about the double charge")
    session_file = Path(__file__).parent / "conformance" / "promptkit-session.json"
    session = parse_record(json.loads(session_file.read_text(encoding="utf-8"))[0])
    (image,) = session.turns[0].media
    assert (image.kind, image.role, session.turns[0].input) == (
        "image",
        "user",
        "Is this receipt a duplicate?",
    )
