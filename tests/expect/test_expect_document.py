"""Every PASS/FAIL example of the expect reference document, through the expect dialect."""

from __future__ import annotations

from typing import Any

import pytest

from chatassert import Status
from chatassert.specs import loads_suite


def check(expect: dict[str, Any], response: Any) -> Any:
    """Load one expect object as a suite and check `response` against its only case."""
    import json

    suite = loads_suite(json.dumps(expect), dialect="expect")
    (case,) = suite.cases
    return case.check(response)


def reasons(result: Any) -> list[str]:
    return [r.reason for r in result.children if r.status is Status.FAILED]


EXAMPLES = [
    # (expect, response, expected failure reason or None for a pass)
    ({"status": "success"}, {"status": "success"}, None),
    ({"status": "success"}, {"status": "error"}, "Expected status 'success', got 'error'"),
    ({"contains": "security"}, {"summary": "Found 3 security incidents"}, None),
    ({"results_min": 1}, {"results": [{}, {}]}, None),
    ({"results_min": 1}, {"results": []}, "Expected at least 1 result, got 0"),
    (
        {"has_fields": ["results", "pagination.total"]},
        {"results": [], "pagination": {"total": 10, "offset": 0}},
        None,
    ),
    (
        {"has_fields": ["results", "pagination.total"]},
        {"results": [], "pagination": {"offset": 0}},
        "Missing field: pagination.total",
    ),
    (
        {"field_equals": {"pagination.offset": 0, "status": "success"}},
        {"pagination": {"offset": 0}, "status": "success"},
        None,
    ),
    (
        {"field_equals": {"pagination.offset": 0, "status": "success"}},
        {"pagination": {"offset": 5}, "status": "success"},
        "pagination.offset: expected 0, got 5",
    ),
    (
        {"all_match": {"path": "results[*].type", "value": "note"}},
        {"results": [{"type": "note"}, {"type": "note"}]},
        None,
    ),
    (
        {"all_match": {"path": "results[*].type", "value": "note"}},
        {"results": [{"type": "note"}, {"type": "incident-log"}]},
        "Found non-matching item: 'incident-log' at results[1].type",
    ),
    (
        {"all_match_pattern": {"path": "results[*].file", "regex": "^journal/"}},
        {"results": [{"file": "journal/2026/01/note.md"}, {"file": "journal/2026/02/entry.md"}]},
        None,
    ),
    (
        {"all_match_pattern": {"path": "results[*].file", "regex": "^journal/"}},
        {"results": [{"file": "journal/2026/01/note.md"}, {"file": "work/document.md"}]},
        "File 'work/document.md' at results[1] doesn't match pattern '^journal/'",
    ),
    (
        {"all_have_tags": ["work", "security"]},
        {
            "results": [
                {"metadata": {"tags": ["work", "security", "incident"]}},
                {"metadata": {"tags": ["work", "security"]}},
            ]
        },
        None,
    ),
    (
        {"all_have_tags": ["work", "security"]},
        {
            "results": [
                {"metadata": {"tags": ["work"]}},
                {"metadata": {"tags": ["work", "security"]}},
            ]
        },
        "Result 0 missing required tag: 'security'",
    ),
    (
        {
            "all_dates_between": {
                "path": "results[*].metadata.created",
                "start": "2026-01-01T00:00:00Z",
                "end": "2026-01-31T23:59:59Z",
            }
        },
        {
            "results": [
                {"metadata": {"created": "2026-01-15T10:00:00Z"}},
                {"metadata": {"created": "2026-01-28T14:30:00Z"}},
            ]
        },
        None,
    ),
    (
        {
            "all_dates_between": {
                "path": "results[*].metadata.created",
                "start": "2026-01-01T00:00:00Z",
                "end": "2026-01-31T23:59:59Z",
            }
        },
        {"results": [{"metadata": {"created": "2026-02-05T10:00:00Z"}}]},
        "Date 2026-02-05 at results[0].metadata.created is outside range 2026-01-01 to 2026-01-31",
    ),
    (
        {"all_in_range": {"path": "results[*].relevance", "min": 0.0, "max": 1.0}},
        {"results": [{"relevance": 0.95}, {"relevance": 0.87}, {"relevance": 1.0}]},
        None,
    ),
    (
        {"all_in_range": {"path": "results[*].relevance", "min": 0.0, "max": 1.0}},
        {"results": [{"relevance": 1.2}]},
        "Value 1.2 at results[0].relevance is outside range 0.0-1.0",
    ),
    (
        {"sorted_desc": {"path": "results[*].relevance"}},
        {"results": [{"relevance": 1.0}, {"relevance": 0.9}, {"relevance": 0.85}]},
        None,
    ),
    (
        {"sorted_desc": {"path": "results[*].relevance"}},
        {"results": [{"relevance": 0.9}, {"relevance": 1.0}, {"relevance": 0.85}]},
        "Values not sorted descending at index 1: results[1].relevance is 1.0, after 0.9",
    ),
    (
        {"one_of": [{"status": "error"}, {"contains": "filter"}]},
        {"status": "success", "message": "Please provide a filter"},
        None,
    ),
    (
        {"one_of": [{"status": "error"}, {"contains": "filter"}]},
        {"status": "success", "message": "Done"},
        "Neither status is 'error' nor response contains 'filter'",
    ),
    ({"if_results": {"all_have_tags": ["work"]}}, {"results": [{"metadata": {"tags": ["work"]}}]},
     None),
    (
        {"if_results": {"all_have_tags": ["work"]}},
        {"results": [{"metadata": {"tags": ["personal"]}}]},
        "Result 0 missing required tag: 'work'",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("expect", "response", "reason"), EXAMPLES)
def test_document_example(expect: dict[str, Any], response: Any, reason: str | None) -> None:
    result = check(expect, response)
    if reason is None:
        assert result.status is Status.PASSED, result.render(verbose=True)
    else:
        assert result.status is Status.FAILED
        assert reasons(result) == [reason]


def test_if_results_with_no_results_skips_the_check_and_so_the_case() -> None:
    # SEMANTICS G12: a case that evaluated nothing is skipped, not passed
    result = check({"if_results": {"all_have_tags": ["work"]}}, {"results": []})
    assert result.children[0].status is Status.SKIPPED
    assert result.children[0].reason == "condition not met: no results"
    assert result.status is Status.SKIPPED
    assert result.reason == (
        "the assertion skipped; first: if_results: condition not met: no results"
    )
    assert result.details == {"passed": 0, "failed": 0, "error": 0, "skipped": 1}


def test_a_case_with_one_evaluated_check_beside_skipped_ones_passes() -> None:
    # G12 applies only when nothing was evaluated
    result = check({"status": "ok", "if_results": {"all_have_tags": ["work"]}}, {"status": "ok"})
    assert result.status is Status.PASSED
    assert result.details == {"passed": 1, "failed": 0, "error": 0, "skipped": 1}


def test_the_worked_example_fails_one_of_three() -> None:
    expect = {
        "status": "success",
        "results_max": 5,
        "all_match_pattern": {"path": "results[*].file", "regex": "^journal/"},
    }
    response = {
        "status": "success",
        "results": [
            {"file": "journal/2026/01/incident.md"},
            {"file": "journal/2026/01/review.md"},
            {"file": "work/security-doc.md"},
        ],
    }
    result = check(expect, response)
    assert [r.status for r in result.children] == [Status.PASSED, Status.PASSED, Status.FAILED]
    failed = result.children[2]
    assert failed.reason == (
        "File 'work/security-doc.md' at results[2] doesn't match pattern '^journal/'"
    )
    assert failed.details["path"] == "results[2].file"
    assert failed.details["actual"] == "work/security-doc.md"
    assert failed.details["expected"] == "^journal/"
    assert failed.details["index"] == 2
    assert failed.details["checked"] == 3
    assert result.details["failed"] == 1
