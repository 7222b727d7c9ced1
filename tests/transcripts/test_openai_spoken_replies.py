"""An OpenAI chat answer spoken as audio (docs/offline.md, "OpenAI Chat Completions"): its
`audio.transcript` is its text; without one, the turn's text is unrecorded (docs/semantics.md
G22), as ADK reads an audio-only final response, so text checks are errors, never failures on
an empty text. `Turn(messages=...)` reads the same messages the same way."""

from __future__ import annotations

import io
from typing import Any

from chatassert import Contains, Conversation
from chatassert._cli.convert import _write_adk
from chatassert._models import UNRECORDED_SPOKEN
from chatassert.transcripts import Record, parse_document, parse_record

AUDIO = "UklGRg=="


def _spoken(**audio: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "audio": {"id": "audio_1", **audio}}


def _transcript(*answers: dict[str, Any]) -> dict[str, Any]:
    question = {"role": "user", "content": "Capital of Italy? Say it aloud."}
    return {"id": "voice", "messages": [question, *answers]}


def test_an_answer_of_audio_alone_has_its_text_unrecorded_and_text_checks_error() -> None:
    record = _transcript(_spoken(data=AUDIO))
    (turn,) = parse_record(record).turns
    assert (turn.text, [m.kind for m in turn.media]) == ("", ["audio"])
    assert turn.unrecorded == {"text": UNRECORDED_SPOKEN}
    for check in (Contains("Rome"), ~Contains("Paris")):
        result = check.check(turn)
        assert result.status.value == "error", result.reason
        assert "audio.transcript" in result.reason
    assert Conversation(messages=record["messages"]).turns == parse_record(record).turns


def test_the_transcript_of_a_spoken_answer_is_its_text() -> None:
    record = _transcript(_spoken(data=AUDIO, transcript="Rome."))
    (turn,) = parse_record(record).turns
    assert (turn.text, turn.unrecorded, [m.kind for m in turn.media]) == ("Rome.", {}, ["audio"])
    assert Contains("Rome").check(turn).passed
    assert Conversation(messages=record["messages"]).turns == parse_record(record).turns


def test_a_spoken_answer_referred_to_by_its_id_alone_has_its_text_unrecorded() -> None:
    # a later request refers to an earlier spoken reply by its id: its text is not in the log
    record = _transcript(_spoken())
    (turn,) = parse_record(record).turns
    assert (turn.text, turn.media, turn.unrecorded) == ("", (), {"text": UNRECORDED_SPOKEN})


def test_a_spoken_answer_with_text_or_a_refusal_reads_that_text() -> None:
    said = {**_spoken(data=AUDIO), "content": "Rome."}
    refused = {**_spoken(data=AUDIO), "refusal": "I cannot say."}
    for answer, text in ((said, "Rome."), (refused, "I cannot say.")):
        (turn,) = parse_record(_transcript(answer)).turns
        assert (turn.text, turn.unrecorded) == (text, {})


def test_a_call_s_spoken_response_without_transcript_has_its_text_unrecorded() -> None:
    call = {
        "request": {
            "model": "gpt-4o-audio-preview",
            "messages": [{"role": "user", "content": "Hi"}],
        },
        "response": {"choices": [{"message": _spoken(data=AUDIO), "finish_reason": "stop"}]},
    }
    (turn,) = parse_record(call).turns
    assert turn.unrecorded == {"text": UNRECORDED_SPOKEN}


def test_an_audio_answer_reads_the_same_before_and_after_convert_to_an_eval_set() -> None:
    conversation = parse_record(_transcript(_spoken(data=AUDIO)))
    out, err = io.StringIO(), io.StringIO()
    tally: dict[str, int] = {}
    _write_adk(iter([(Record("log:1", 1, conversation=conversation), conversation)]), out,
               "out.evalset.json", err, tally)  # fmt: skip
    assert tally == {"written": 1}, err.getvalue()
    (again,) = parse_document(out.getvalue(), "out.evalset.json", 1).each()
    assert again.conversation is not None, again.error
    (before,), (after,) = conversation.turns, again.conversation.turns
    assert (after.text, after.unrecorded) == ("", {"text": UNRECORDED_SPOKEN})
    # (the audio itself is not held: OpenAI's spoken reply declares no MIME type)
    assert [m.mime_type for m in before.media] == [None]
