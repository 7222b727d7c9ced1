"""The table of log formats (`chatassert.transcripts._readers`): one list, every table from it.

A new log format is one `Reader` in `READERS`; `FORMATS`, `PARTS` and the detection order are
read from that list and nowhere else, so they cannot disagree with it or with one another.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatassert._errors import TranscriptError
from chatassert.transcripts import FORMATS, PARTS
from chatassert.transcripts._readers import READERS, Reader, detected

SAMPLES = Path(__file__).parent / "samples"


def test_formats_and_parts_are_the_readers_in_their_order() -> None:
    names = [reader.name for reader in READERS]
    assert len(set(names)) == len(names), "each format has one reader"
    assert list(FORMATS) == names
    assert {reader.name: (reader.detect, reader.parse) for reader in READERS} == FORMATS
    assert {reader.name: reader.parts for reader in READERS if reader.parts} == PARTS
    assert list(PARTS) == [name for name in names if name in PARTS]


def test_the_detection_order_is_the_one_logs_have_always_been_read_in() -> None:
    # Anthropic before OpenAI chat: both have `messages`, and Anthropic is recognised by what
    # OpenAI lacks; the native shape first, as it is taken as given
    assert list(FORMATS) == [
        "native", "otel", "jaeger", "openai-responses", "anthropic", "openai",
        "promptkit-arena", "promptkit-session", "agents-sdk", "inspect", "langsmith",
        "promptfoo", "adk",
    ]  # fmt: skip


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
def test_detection_gives_each_sample_to_its_reader(reader: Reader) -> None:
    samples = json.loads((SAMPLES / f"{reader.name}.json").read_text(encoding="utf-8"))
    assert [detected(record) for record in samples] == [reader.name] * len(samples)


def test_a_detector_that_fails_is_an_error_of_the_record_naming_the_format() -> None:
    # the readers' detectors take any JSON value; one that fails on a value it did not expect
    # costs its record, never the reading of the log
    class Odd(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:
            raise ValueError("odd record")

    said = r"^malformed record \(ValueError while detecting its format as native: odd record\)$"
    with pytest.raises(TranscriptError, match=said):
        detected(Odd())
