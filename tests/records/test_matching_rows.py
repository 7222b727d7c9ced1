"""Rows say how each record met its case, and summaries say why nothing was checked.

`Row.matched_by` / `Row.match_note` (and `Outcome`'s) travel through `to_row` / `from_row`, the
outcome a row rebuilds, and summaries merged from partitions; an unmatched row carries the
record's id and why no case matched (`Row.error`). A summary in which no case checked a
subject has a notice and exit code 4 whatever else it counted; one test that no response
answered is not a check of a subject.
"""

from __future__ import annotations

import json

import pytest

from chatassert import Contains
from chatassert.records import Checker, Row, Summary
from chatassert.reporting import EXIT_ERRORS, EXIT_NOTHING, Outcome
from chatassert.specs import loads_suite
from support_suite import SUPPORT_SUITE

SUITE = SUPPORT_SUITE


def chat(user: str, reply: str, **fields: object) -> str:
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    return json.dumps({**fields, "messages": messages})


def test_checker_rows_say_how_each_record_met_its_case() -> None:
    checker = Checker([loads_suite(SUITE)])
    rows = list(
        checker.check_records(
            [
                chat("x", "refund", id="T-refund"),
                chat("Hello", "hello", id="run-2"),
                chat("x", "hello", case="greeting"),
                chat("Weather?", "Sunny.", id="conv-9"),
            ]
        )
    )
    assert [(r.kind, r.matched_by) for r in rows] == [
        ("case", "id"),
        ("case", "inputs"),
        ("case", "case field"),
        ("unmatched", None),
    ]
    unmatched = rows[-1]
    assert unmatched.subject_id == "conv-9"
    assert (unmatched.error or "").startswith(
        "no case of 'support' matches conversation 'conv-9': its id 'conv-9' is no case's id"
    )


def test_a_row_keeps_how_its_record_met_its_case_through_to_row() -> None:
    row = Row(
        kind="case",
        source="log:1",
        suite="s",
        case="c",
        status="failed",
        matched_by="single case",
        match_note="the case's id 'a' differs from the conversation's id 'b'",
        result='{"status": "failed", "name": "case", "reason": "r", "details": {}}',
    )
    again = Row.from_row(json.loads(json.dumps(row.to_row())))
    assert again == row
    outcome = again.to_outcome()
    assert outcome is not None
    assert (outcome.matched_by, outcome.match_note) == (row.matched_by, row.match_note)


def test_an_outcome_keeps_how_it_was_met_through_a_summary() -> None:
    outcome = Outcome(
        "s", "c", Contains("a").check("b"), "log:1", "b", matched_by="id", match_note="n"
    )
    summary = Summary(records=1)
    summary.add(outcome)
    again = Summary.from_dict(json.loads(json.dumps(summary.to_dict())))
    assert (again.failures[0].matched_by, again.failures[0].match_note) == ("id", "n")
    assert outcome.to_dict()["matched_by"] == "id"


def test_unmatched_ids_and_unanswered_tests_merge_across_partitions() -> None:
    a, b = Summary(records=2), Summary(records=1)
    a.add_row(Row(kind="unmatched", source="log:1", suite="s", subject_id="c1"))
    a.add_row(Row(kind="unmatched", source="log:2", suite="s", subject_id="c2"))
    b.add_row(Row(kind="unmatched", source="log:3", suite="s", subject_id="c3"))
    merged = Summary.from_dict(json.loads(json.dumps(a.merge(b).to_dict())))
    assert merged.unmatched_ids == ["c1", "c2", "c3"]
    assert merged.exit_code() == EXIT_NOTHING
    assert merged.notice == (
        "nothing was checked: 3 conversations matched no case of the suite (ids: c1, c2, c3)"
    )


def test_only_five_ids_are_named() -> None:
    summary = Summary(records=8, keep=20)
    for i in range(8):
        summary.add_row(Row(kind="unmatched", source=f"log:{i}", suite="s", subject_id=f"c{i}"))
    assert summary.notice == (
        "nothing was checked: 8 conversations matched no case of the suite "
        "(ids: c0, c1, c2, c3, c4, … and 3 more)"
    )


def test_a_test_no_response_answered_is_not_a_check() -> None:
    summary = Summary(records=1)
    summary.add_row(Row(kind="unreadable", source="log:1", error="line is not JSON"))
    summary.add_row(Row(kind="case", source="", suite="s", case="T1", status="error"))
    assert (summary.total, summary.checked, summary.unanswered) == (1, 0, 1)
    assert summary.exit_code() == EXIT_NOTHING
    assert summary.notice == (
        "nothing was checked: 1 unreadable log line, 0 responses read; "
        "1 test with no response in the logs"
    )


@pytest.mark.parametrize("records", [None, 63])
def test_unreadable_lines_alone_are_nothing_checked(records: int | None) -> None:
    summary = Summary(records=records, unreadable_count=63)
    assert summary.exit_code() == EXIT_NOTHING
    assert summary.notice == "nothing was checked: 63 unreadable log lines, 0 conversations read"


def test_unreadable_lines_beside_a_checked_case_are_errors() -> None:
    summary = Summary(records=2, unreadable_count=1)
    summary.add(Outcome("s", "c", Contains("a").check("a"), "log:1"))
    assert (summary.notice, summary.exit_code()) == (None, EXIT_ERRORS)
