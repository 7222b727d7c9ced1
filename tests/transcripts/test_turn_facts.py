"""A turn answered by several model calls: how the calls' facts make the turn's metadata.

Token counts, latency and cost add up; `model_calls` counts the calls; the turn's
`finish_reason` / `stop_reason` is its last call's (why the turn's answer ended: a first call
that stopped for tool calls does not end the turn); every other fact (`model`, ...) is its
first call's. docs/offline.md ("Metadata found on a line").
"""

from __future__ import annotations

import json
from typing import Any

from chatassert.transcripts import parse_record

ASK = {"role": "user", "content": "Where is parcel P-88?"}
CALL = {"id": "call_7", "type": "function",
        "function": {"name": "track_parcel", "arguments": '{"parcel": "P-88"}'}}  # fmt: skip
CALLED = {"role": "assistant", "content": None, "tool_calls": [CALL]}
ANSWERED = {"role": "tool", "tool_call_id": "call_7", "content": '{"status": "in transit"}'}


def _openai_call(
    messages: list[dict[str, Any]], said: dict[str, Any], model: str, **choice: Any
) -> dict[str, Any]:
    return {
        "request": {"model": model, "messages": messages},
        "response": {"model": model, "choices": [{"message": said, **choice}],
                     "usage": {"prompt_tokens": 20, "completion_tokens": 5}},
    }  # fmt: skip


def test_an_openai_turn_of_two_calls_ends_with_its_last_calls_finish_reason() -> None:
    record = {"calls": [
        _openai_call([ASK], CALLED, "gpt-4o", finish_reason="tool_calls"),
        _openai_call([ASK, CALLED, ANSWERED],
                     {"role": "assistant", "content": "Parcel P-88 is in transit."},
                     "gpt-4o-mini", finish_reason="stop"),
    ]}  # fmt: skip
    (turn,) = parse_record(record).turns
    facts = turn.metadata
    assert facts["finish_reason"] == "stop"
    assert (facts["input_tokens"], facts["output_tokens"], facts["model_calls"]) == (40, 10, 2)
    assert facts["model"] == "gpt-4o"  # the first call's, as before


def test_a_last_call_that_logs_no_finish_reason_leaves_the_turn_without_one() -> None:
    record = {"calls": [
        _openai_call([ASK], CALLED, "gpt-4o", finish_reason="tool_calls"),
        _openai_call([ASK, CALLED, ANSWERED],
                     {"role": "assistant", "content": "Parcel P-88 is in transit."}, "gpt-4o"),
    ]}  # fmt: skip
    (turn,) = parse_record(record).turns
    assert "finish_reason" not in turn.metadata  # why the turn ended is not logged
    assert turn.metadata["model_calls"] == 2


def test_an_anthropic_turn_of_two_calls_ends_with_its_last_calls_stop_reason() -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "check_availability",
           "input": {"date": "2024-02-17"}}  # fmt: skip
    asked = {"role": "user", "content": "Table for 4 on Saturday?"}
    called = {"role": "assistant", "content": [use]}
    answered = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "free at 19:00"}]}  # fmt: skip

    def call(messages: list[dict[str, Any]], content: list[Any], stop: str) -> dict[str, Any]:
        return {"request": {"model": "claude-sonnet-4-5", "messages": messages},
                "response": {"type": "message", "role": "assistant", "content": content,
                             "stop_reason": stop,
                             "usage": {"input_tokens": 100, "output_tokens": 7}}}  # fmt: skip

    record = {"calls": [
        call([asked], [use], "tool_use"),
        call([asked, called, answered], [{"type": "text", "text": "Booked for 19:00."}],
             "end_turn"),
    ]}  # fmt: skip
    (turn,) = parse_record(json.loads(json.dumps(record))).turns
    assert (turn.text, turn.metadata["stop_reason"]) == ("Booked for 19:00.", "end_turn")
    assert (turn.metadata["input_tokens"], turn.metadata["model_calls"]) == (200, 2)
