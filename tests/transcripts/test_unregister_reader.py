"""`unregister_reader` takes a log format of one's own out, as `unregister_reporter` does a
report format: its name, its detection and its parts go, and it may be registered again."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from chatassert import Conversation, Turn
from chatassert.transcripts import (
    FORMATS,
    PARTS,
    Reader,
    read_records,
    readers,
    register_reader,
    unregister_reader,
)


def _detect(record: Any) -> bool:
    return isinstance(record, dict) and "tickets" in record


def _parse(record: Any) -> Conversation:
    return Conversation(turns=[Turn(input=record["ask"], text=record["reply"])])


def _parts(record: Any) -> list[tuple[str, Any]]:
    return [(ticket["id"], ticket) for ticket in record["tickets"]]


DESK = Reader("desk-export", _detect, _parse, _parts, keys=("tickets",), wants="'tickets'")
LOG = json.dumps({"tickets": [{"id": "T-1", "ask": "Refund?", "reply": "Sent."}]}) + "\n"


def _read() -> list[tuple[str, bool]]:
    return [(record.where, record.ok) for record in read_records(io.StringIO(LOG))]


def test_a_registered_reader_is_taken_out_and_may_come_back() -> None:
    register_reader(DESK)
    try:
        assert _read() == [("<stream>:1#T-1", True)]
        assert unregister_reader("desk-export") is DESK
        assert DESK not in readers()
        assert "desk-export" not in PARTS
        assert "desk-export" not in list(FORMATS)
        [record] = read_records(io.StringIO(LOG))
        assert not record.ok
        assert record.error is not None
        assert record.error.startswith("unrecognised transcript record (keys: ['tickets'])")
        register_reader(DESK)  # its name is free again
        assert readers()[-1] is DESK
        assert _read() == [("<stream>:1#T-1", True)]
    finally:
        if DESK in readers():
            unregister_reader("desk-export")


def test_a_name_no_reader_has_is_a_key_error_and_a_built_in_one_is_refused() -> None:
    with pytest.raises(KeyError, match="no-such-format"):
        unregister_reader("no-such-format")
    with pytest.raises(ValueError, match=r"log format 'openai' is built in and cannot be taken"):
        unregister_reader("openai")
    assert "openai" in FORMATS
