"""The shared building blocks of the transcript adapters (`chatassert.transcripts._build`).

Each test pins a documented rule of a helper: how a request's history merges (docs/offline.md:
"the messages a request repeats from the history so far are not added again"), how turns split
(G1, "Messages before the first user message join the first turn only when they are system or
developer prompts"), how usage is normalised, and how values are described in messages.
"""

from __future__ import annotations

from typing import Any

import pytest

from chatassert._errors import TranscriptError
from chatassert.transcripts._build import (
    Msg,
    call_metadata,
    described,
    merge_exchange,
    parent,
    split,
    text_of,
)


def _texts(messages: list[Msg]) -> list[str]:
    return [f"{m.role}:{m.content}" for m in messages]


@pytest.mark.parametrize(
    ("history", "request_", "response", "expected"),
    [
        # one repeated message at the end of the history is not added again
        (
            [Msg("user", "a")],
            [Msg("user", "a")],
            [Msg("assistant", "b")],
            ["user:a", "assistant:b"],
        ),
        # the same text from another role is a new message
        ([Msg("user", "a")], [Msg("assistant", "a")], [], ["user:a", "assistant:a"]),
        # a repeated system prompt is skipped, the rest of the request is new
        (
            [Msg("system", "s"), Msg("user", "q"), Msg("assistant", "r")],
            [Msg("system", "s"), Msg("user", "q2")],
            [],
            ["system:s", "user:q", "assistant:r", "user:q2"],
        ),
        (
            [Msg("system", "s")],
            [Msg("system", "s"), Msg("user", "u1"), Msg("user", "u2")],
            [],
            ["system:s", "user:u1", "user:u2"],
        ),
        # system and developer prompts the history holds, in any number
        (
            [Msg("system", "s"), Msg("developer", "d"), Msg("user", "u"), Msg("assistant", "a")],
            [Msg("system", "s"), Msg("developer", "d"), Msg("user", "u2")],
            [Msg("assistant", "a2")],
            ["system:s", "developer:d", "user:u", "assistant:a", "user:u2", "assistant:a2"],
        ),
        (
            [Msg("developer", "d"), Msg("user", "u")],
            [Msg("developer", "d"), Msg("user", "u2")],
            [],
            ["developer:d", "user:u", "user:u2"],
        ),
        # a prompt the history does not hold is new
        ([Msg("user", "u")], [Msg("developer", "d")], [], ["user:u", "developer:d"]),
    ],
)
def test_merge_exchange_adds_only_the_new_part_of_a_request(
    history: list[Msg], request_: list[Msg], response: list[Msg], expected: list[str]
) -> None:
    merged = list(history)  # the table's lists are shared by every run of this test
    merge_exchange(merged, request_, response)
    assert _texts(merged) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (
            [Msg("developer", "d"), Msg("user", "u"), Msg("assistant", "a")],
            [["developer:d", "user:u", "assistant:a"]],
        ),
        (
            [Msg("system", "s"), Msg("developer", "d"), Msg("user", "u")],
            [["system:s", "developer:d", "user:u"]],
        ),
        ([Msg("tool", "t"), Msg("user", "u")], [["tool:t"], ["user:u"]]),
        ([Msg("developer", "d")], [["developer:d"]]),
    ],
)
def test_split_keeps_only_prompts_with_the_first_turn(
    messages: list[Msg], expected: list[list[str]]
) -> None:
    """G1 and docs/offline.md: a preamble of system or developer prompts joins the first turn;
    anything else before the first user message is a turn of its own."""
    assert [_texts(group) for group in split(messages)] == expected


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        # Anthropic: cache reads and writes are input too
        (
            {"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 2},
            {"input_tokens": 7, "output_tokens": 1, "total_tokens": 8},
        ),
        (
            {"input_tokens": None, "cache_creation_input_tokens": 4},
            {"input_tokens": 4},
        ),
        # OpenAI counts cached tokens inside prompt_tokens: nothing is added
        ({"prompt_tokens": 5, "cache_read_input_tokens": 2}, {"input_tokens": 5}),
        (
            {"input_tokens": 5, "prompt_tokens": 5, "cache_read_input_tokens": 2},
            {"input_tokens": 5},
        ),
        # no input count at all: none is made up
        ({"output_tokens": 3}, {"output_tokens": 3}),
        ({"completion_tokens": 3, "total_tokens": 9}, {"output_tokens": 3, "total_tokens": 9}),
    ],
)
def test_call_metadata_normalises_usage(usage: dict[str, Any], expected: dict[str, Any]) -> None:
    """docs/offline.md "Metadata": `input_tokens`, `output_tokens`, `total_tokens`, with
    Anthropic's cache reads and writes counted as input."""
    assert call_metadata({"usage": usage}) == expected


def test_call_metadata_skips_sources_that_are_not_mappings() -> None:
    """`call_metadata`: the mappings that may hold the facts; the first that gives one wins."""
    assert call_metadata(None, {"model": "m", "latency_s": 2}, {"model": "n"}) == {
        "model": "m",
        "latency_ms": 2000,
    }
    assert call_metadata({"latency": 0.25}, {"latency_ms": 9}) == {"latency_ms": 250.0}


def test_parent_is_the_call_around_a_response() -> None:
    assert parent("calls[2].response") == "calls[2]"
    assert parent("response") == ""
    assert parent("record[0].response") == "record[0]"


@pytest.mark.parametrize(
    ("value", "width", "expected"),
    [
        (10**30, 40, "1000000000000000000000000000000"),
        (-(10**30), 40, "-1000000000000000000000000000000"),
        (10**30 + 1, 40, "an integer of 31 digits"),
        (301, 40, "301"),
        ("é", 40, '"é"'),
        ("x" * 38, 40, '"' + "x" * 38 + '"'),
        (True, 40, "true"),
    ],
)
def test_described_values(value: Any, width: int, expected: str) -> None:
    """`described`: short values as JSON (not ASCII-escaped), huge integers by their size."""
    assert described(value, width) == expected


def test_described_shortens_past_forty_characters_by_default() -> None:
    assert described("x" * 38) == '"' + "x" * 38 + '"'
    long = described("x" * 39)
    assert len(long) == 40
    assert "…" in long
    assert len(described("x" * 100, 60)) == 60


def test_text_of_reads_parts_and_names_a_bad_content() -> None:
    """`text_of`: a string, or the joined `text` of its text parts (None when there are none)."""
    assert text_of([]) is None
    assert text_of([{"type": "image_url", "text": "no"}]) is None
    assert text_of([{"text": "a"}, {"type": "input_text", "text": "b"}]) == "ab"
    with pytest.raises(TranscriptError) as info:
        text_of(5)
    assert str(info.value) == "message content must be a string or a list of parts, got 5"
