"""Reading parsed JSON values into records (`chatassert.transcripts._reading`).

`read_value` is what `parse_line` does once a line's JSON is decoded, for a caller that holds
the value already (a checker given a dict); `read_one` reads a value as one conversation, never
split into parts (a group of lines `--group-by` joined, named by its key).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatassert.transcripts import FORMATS, RESPONSES, parse_line, read_value
from chatassert.transcripts._reading import read_one

SAMPLES = Path(__file__).parent / "samples"


@pytest.mark.parametrize("name", list(FORMATS))
def test_a_value_is_read_as_its_line_is(name: str) -> None:
    samples = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    for number, record in enumerate(samples, 1):
        line = json.dumps(record, ensure_ascii=False)
        for format in (None, name):
            read = read_value(record, "log.jsonl", number, format)
            assert read == parse_line(line, "log.jsonl", number, format)
            assert [one.error for one in read.each()] == [None] * len(read.each())


@pytest.mark.parametrize(
    ("value", "format", "error"),
    [
        (None, RESPONSES, "the line is JSON null: no response to check"),
        ([1], None, "unrecognised transcript record (a JSON array holding a number at [0]: an "
         "array is read when it holds chat messages (each with a 'role'), calls, or records); "
         "known formats: " + ", ".join(FORMATS)),
        ({"turns": "x"}, "native", "not a native conversation: turns: Input should be a valid "
         'tuple (got "x")'),
    ],
)  # fmt: skip
def test_a_value_that_cannot_be_read_is_a_record_of_why(
    value: object, format: str | None, error: str
) -> None:
    read = read_value(value, "log.jsonl", 7, format)
    assert (read.where, read.conversation, read.error) == ("log.jsonl:7", None, error)
    assert read == parse_line(json.dumps(value), "log.jsonl", 7, format)


def test_read_one_never_splits_a_value_and_names_it_by_its_part() -> None:
    samples = json.loads((SAMPLES / "inspect.json").read_text(encoding="utf-8"))
    log = next(s for s in samples if len(read_value(s, "log.json", 1).parts) == 2)
    whole = read_one(log, "log.json", 1, None, "all")
    assert (whole.where, whole.parts, whole.conversation) == ("log.json:1#all", (), None)
    assert whole.error == (
        "the eval log holds 2 samples: read it with read_records, which reads each as a "
        "conversation"
    )
    one = read_one({"turns": [{"text": "Hi"}]}, "log.jsonl", 2, "native", "s1")
    assert one.where == "log.jsonl:2#s1"
    assert one.conversation is not None
    assert one.conversation.turns[0].text == "Hi"
