"""A bare JSON array of chat messages is one conversation: the `messages` of a transcript
without the object around them, as a line of a `.jsonl` log or as a whole `.json` file.

OpenAI chat messages and Anthropic ones (told apart by Anthropic's own content blocks, as in
`{"messages": [...]}`), and OpenAI Responses items (one of them typed), are each read by their
format's reader, detected or forced.
"""

from __future__ import annotations

import json
from pathlib import Path

from chatassert.transcripts import parse_line, parse_record, read_records

CHAT = [
    {"role": "system", "content": "You are support."},
    {"role": "user", "content": "Refund my invoice"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "refund", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "done"},
    {"role": "assistant", "content": "Refund issued."},
    {"role": "user", "content": "Thanks"},
    {"role": "assistant", "content": "Bye"},
]

ANTHROPIC = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "P"}}],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "18C"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "It is 18C."}]},
]

RESPONSES = [
    {"role": "user", "content": "Flights to Rome?"},
    {"type": "function_call", "call_id": "f1", "name": "search", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "f1", "output": "[]"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "None."}]},
]


def shape(conversation: object) -> list[tuple[str | None, str, list[str]]]:
    """Each turn's input, text and tool call names."""
    return [
        (turn.input, turn.text, [call.name for call in turn.tool_calls])
        for turn in conversation.turns  # type: ignore[attr-defined]
    ]


def test_a_bare_array_of_chat_messages_is_the_conversation_its_wrapped_form_is() -> None:
    bare = parse_record(CHAT)
    assert bare == parse_record({"messages": CHAT})
    assert shape(bare) == [
        ("Refund my invoice", "Refund issued.", ["refund"]),
        ("Thanks", "Bye", []),
    ]
    assert parse_record(CHAT, "openai") == bare


def test_a_bare_array_with_anthropic_blocks_is_read_as_anthropic() -> None:
    bare = parse_record(ANTHROPIC)
    assert bare == parse_record({"messages": ANTHROPIC})
    assert shape(bare) == [("Weather in Paris?", "It is 18C.", ["weather"])]
    assert parse_record(ANTHROPIC, "anthropic") == bare


def test_a_bare_array_of_responses_items_is_read_as_responses() -> None:
    bare = parse_record(RESPONSES)
    assert bare == parse_record({"items": RESPONSES})
    assert shape(bare) == [("Flights to Rome?", "None.", ["search"])]


def test_a_line_of_a_jsonl_log_may_be_a_bare_array(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    lines = [json.dumps(CHAT), json.dumps({"messages": CHAT}), json.dumps(ANTHROPIC)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = list(read_records(log))
    assert [(r.line, r.ok) for r in records] == [(1, True), (2, True), (3, True)]
    assert records[0].conversation == records[1].conversation
    assert records[0].raw == CHAT  # the record as logged


def test_a_pretty_printed_json_file_of_a_bare_array_is_one_conversation(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT, indent=2), encoding="utf-8")
    (record,) = read_records(path)
    assert record.ok
    assert record.line == 1
    assert shape(record.conversation) == shape(parse_record(CHAT))


def test_an_array_of_messages_with_a_bad_message_is_an_error_with_its_place() -> None:
    bad = [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": "x"}]
    record = parse_line(json.dumps(bad), "log.jsonl", 4)
    assert record.error == "record[1].tool_calls is not a list"


def test_an_array_of_messages_under_an_unknown_format_names_the_format() -> None:
    record = parse_line(json.dumps(CHAT), "log.jsonl", 2, "nope")  # found by fuzzing: KeyError
    assert not record.ok
    assert (record.error or "").startswith("unknown transcript format 'nope'; known: native")
