"""Realistic subjects for fuzzed suites to check: the example logs' conversations and responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chatassert import Conversation
from chatassert.testing import FakeJudge
from chatassert.transcripts import parse_line

EXAMPLES = Path(__file__).parents[2] / "examples"

JUDGE = FakeJudge.passing()
"""The judge of fuzzed suites' judged checks (a scripted one: no network)."""


def _conversations() -> list[Conversation]:
    out = []
    for name in ("support.jsonl", "booking.jsonl"):
        for number, line in enumerate((EXAMPLES / name).read_text("utf-8").splitlines(), 1):
            record = parse_line(line, name, number)
            assert record.conversation is not None, record.error
            out.append(record.conversation)
    return out


def _responses() -> list[Any]:
    lines = (EXAMPLES / "search.responses.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["response"] for line in lines[:3]] + [[], "not an object", None]


CONVERSATIONS = _conversations()[:3]
RESPONSES = _responses()

SUBJECTS: dict[str, list[Any]] = {"conversation": CONVERSATIONS, "json": RESPONSES}
"""What a case checks, by the case's `subject`."""
