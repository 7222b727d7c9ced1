"""Every log example of the docs is a real, complete log: each line of a ```json or ```jsonl
block made of one-line JSON objects is read by the transcript readers (no `{...}` stand-ins).

A line that is a response for an expect suite (`id`/`case` and `response`/`output`) is a
JSON object the `check` command pairs with a test; every other line must read as a
conversation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chatassert.transcripts import parse_line

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(jsonl?)[^\n]*\n(.*?)^```", re.S | re.M)


def log_blocks() -> list[tuple[str, list[str]]]:
    """`(page:line, lines)` of each block whose every line is a one-line JSON object."""
    out = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            lines = [line for line in m.group(2).splitlines() if line.strip()]
            if lines and all(line.startswith("{") and line.endswith("}") for line in lines):
                where = f"{page.name}:{text.count(chr(10), 0, m.start()) + 1}"
                out.append((where, lines))
    return out


BLOCKS = log_blocks()


def test_the_docs_have_log_examples_in_every_transcript_format() -> None:
    offline = [lines for where, lines in BLOCKS if where.startswith("offline.md:")]
    assert len(offline) >= 7


@pytest.mark.parametrize(("where", "lines"), BLOCKS, ids=[w for w, _ in BLOCKS])
def test_each_log_line_of_the_docs_is_read(where: str, lines: list[str]) -> None:
    for number, line in enumerate(lines, 1):
        assert "{...}" not in line, f"{where}: line {number}"
        assert "[...]" not in line, f"{where}: line {number}"
        value = json.loads(line)  # a stand-in would fail here
        if {"id", "case"} & value.keys() and {"response", "output"} & value.keys():
            continue  # a response, for an expect suite
        for record in parse_line(line, where, number).each():  # a log of several: each one
            assert record.error is None, f"{record.where}: {record.error}"
            assert record.conversation is not None
            assert record.conversation.turns, f"{record.where} has no turn"
