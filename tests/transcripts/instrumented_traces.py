"""What the tests of the trace conventions share: the traces the instrumentation packages wrote
(tests/fixtures/instrumented) and the conversation each of them holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatassert.transcripts import read_records

FIXTURES = Path(__file__).parents[1] / "fixtures" / "instrumented"
GUIDE = Path(__file__).parents[2] / "docs" / "offline.md"

ROME = "What's the weather in Rome?"
SUNNY = "The weather in Rome is sunny."
REPORT = '{"city": "Rome", "sky": "sunny", "celsius": 24}'
MODEL = "gpt-4o-mini-2024-07-18"


def fixture(name: str) -> Any:
    """The one conversation of a fixture, read as `chatassert check` reads the file."""
    (record,) = read_records(FIXTURES / name)
    assert record.error is None, record.error
    assert record.conversation is not None
    return record.conversation
