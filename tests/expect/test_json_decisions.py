"""The decisions of the expect checks, pinned as whole records (docs/expect.md).

Each row is a check, a subject and the full outcome the documentation promises: the status,
the reason (the "failure reason" column of the keys table in docs/expect.md, or the check's
description on a pass) and every detail key (the "Details" section: `path`, `expected`,
`actual`, `index`, `offending`, `offending_count`, `checked`). A row marked `quick` is a
common-case pass that the compiled quick test answers with the shared passing result
(`JsonCheck` class docstring); every row is also checked through the full evaluation alone,
which must give the same record. Checks are built inside the test (a check memoises its
passes and its quick test), so every row sees the code as it is when the test runs.
"""

from __future__ import annotations

import datetime as dt
import pickle
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pytest

from chatassert import (
    AllDatesBetween,
    AllMatch,
    AllMatchPattern,
    AllOf,
    Assertion,
    FieldContains,
    FieldEquals,
    HasFields,
    InRange,
    SortedDesc,
    Status,
)
from chatassert._dates import parse_date
from chatassert._jsonbase import JsonCheck, json_equal
from chatassert.expect import (
    AllDatesInYear,
    AllHaveTags,
    AllInRange,
    AllMatchOneOf,
    ArrayContains,
    DatesWithinDays,
    EachHasAnyTag,
    ErrorCodeIs,
    IfHasHistory,
    IfResults,
    IfSensitiveResults,
    JsonContains,
    MessageContains,
    NoneHaveTags,
    NoneMatchPattern,
    OneOf,
    ResultsCount,
    ResultsMatchSchema,
    ResultsMax,
    ResultsMin,
    StatusIs,
    SummaryContains,
)

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED
NOW = dt.datetime(2026, 1, 20, 12, 0, tzinfo=dt.UTC)


def clock() -> dt.datetime:
    return NOW


def naive_clock() -> dt.datetime:
    """A naive clock reading is UTC (docs/expect.md, Options: `clock=`)."""
    return dt.datetime(2026, 1, 20, 12, 0)


def zone_clock() -> dt.datetime:
    """The same instant as NOW, one hour east of UTC."""
    return dt.datetime(2026, 1, 20, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


CONTAINS_ITSELF: list[Any] = []
CONTAINS_ITSELF.append(CONTAINS_ITSELF)  # a Python value no JSON text can write


def row(
    name: str,
    build: Callable[[], Assertion],
    subject: Any,
    status: Status,
    reason: str,
    details: dict[str, Any],
    *,
    quick: bool = False,
) -> Any:
    return pytest.param(build, subject, status, reason, details, quick, id=name)


ROWS = [
    row(
        "status-pass",
        lambda: StatusIs("success"),
        {"status": "success"},
        P,
        "status is 'success'",
        {"path": "status", "expected": "success", "actual": "success"},
        quick=True,
    ),
    row(
        "status-int-float-pass",
        lambda: StatusIs(200),
        {"status": 200.0},
        P,
        "status is 200",
        {"path": "status", "expected": 200, "actual": 200.0},
    ),
    row(
        "status-wrong",
        lambda: StatusIs("success"),
        {"status": "error"},
        F,
        "Expected status 'success', got 'error'",
        {"path": "status", "expected": "success", "actual": "error"},
    ),
    row(
        "status-bool-vs-int",
        lambda: StatusIs(1),
        {"status": True},
        F,
        "Expected status 1, got true",
        {"path": "status", "expected": 1, "actual": True},
    ),
    # `show`: strings in single quotes, cut to 80 characters; other values as JSON, with
    # their non-ASCII text as it is; a value JSON cannot write (it contains itself) as its repr
    row(
        "status-long-text",
        lambda: StatusIs("ok"),
        {"status": "x" * 100},
        F,
        "Expected status 'ok', got '" + "x" * 53 + "…" + "x" * 26 + "'",
        {"path": "status", "expected": "ok", "actual": "x" * 100},
    ),
    row(
        "status-object-non-ascii",
        lambda: StatusIs("ok"),
        {"status": {"note": "café"}},
        F,
        'Expected status \'ok\', got {"note": "café"}',
        {"path": "status", "expected": "ok", "actual": {"note": "café"}},
    ),
    row(
        "status-contains-itself",
        lambda: StatusIs("ok"),
        {"status": CONTAINS_ITSELF},
        F,
        "Expected status 'ok', got [[...]]",
        {"path": "status", "expected": "ok", "actual": CONTAINS_ITSELF},
    ),
    row(
        "status-missing",
        lambda: StatusIs("success"),
        {"results": []},
        F,
        "Expected status 'success', but the response has no status",
        {"path": "status", "expected": "success", "actual": None, "missing": True},
    ),
    row(
        "status-null",
        lambda: StatusIs("success"),
        {"status": None},
        F,
        "Expected status 'success', got null",
        {"path": "status", "expected": "success", "actual": None},
    ),
    row(
        "status-not-object",
        lambda: StatusIs("success"),
        ["success"],
        F,
        "Expected status 'success', but the response has no status",
        {"path": "status", "expected": "success", "actual": None, "missing": True},
    ),
    row(
        "status-json-text",
        lambda: StatusIs("ok"),
        '{"status": "ok"}',
        P,
        "status is 'ok'",
        {"path": "status", "expected": "ok", "actual": "ok"},
    ),
    row(
        "error-code-pass",
        lambda: ErrorCodeIs("NO_FILTERS"),
        {"error_code": "NO_FILTERS"},
        P,
        "error_code is 'NO_FILTERS'",
        {"path": "error_code", "expected": "NO_FILTERS", "actual": "NO_FILTERS"},
        quick=True,
    ),
    row(
        "error-code-from-error",
        lambda: ErrorCodeIs("NO_FILTERS"),
        {"error": "NO_FILTERS"},
        P,
        "error_code is 'NO_FILTERS'",
        {"path": "error_code", "expected": "NO_FILTERS", "actual": "NO_FILTERS"},
        quick=True,
    ),
    row(
        "error-code-wins-over-error",
        lambda: ErrorCodeIs("NO_FILTERS"),
        {"error_code": "BAD", "error": "NO_FILTERS"},
        F,
        "Expected error_code 'NO_FILTERS', got 'BAD'",
        {"path": "error_code", "expected": "NO_FILTERS", "actual": "BAD"},
    ),
    row(
        "error-code-error-not-string",
        lambda: ErrorCodeIs("NO_FILTERS"),
        {"error": {"code": "NO_FILTERS"}},
        F,
        "Expected error_code 'NO_FILTERS', but the response has no error_code",
        {"path": "error_code", "expected": "NO_FILTERS", "actual": None, "missing": True},
    ),
    row(
        "error-code-not-object",
        lambda: ErrorCodeIs("X"),
        [1],
        F,
        "Expected error_code 'X', but the response has no error_code",
        {"path": "error_code", "expected": "X", "actual": None, "missing": True},
    ),
    row(
        "contains-pass",
        lambda: JsonContains("SECURITY"),
        {"summary": "3 security notes"},
        P,
        "response contains 'SECURITY'",
        {"expected": "SECURITY"},
    ),
    row(
        "contains-case-sensitive-fail",
        lambda: JsonContains("SECURITY", case_sensitive=True),
        {"summary": "3 security notes"},
        F,
        "Expected the response to contain 'SECURITY'",
        {"expected": "SECURITY", "actual": '{"summary": "3 security notes"}'},
    ),
    row(
        "contains-case-sensitive-pass",
        lambda: JsonContains("Sec", case_sensitive=True),
        {"summary": "Sec"},
        P,
        "response contains 'Sec'",
        {"expected": "Sec"},
    ),
    row(
        "contains-fail",
        lambda: JsonContains("filter"),
        {"m": "x"},
        F,
        "Expected the response to contain 'filter'",
        {"expected": "filter", "actual": '{"m": "x"}'},
    ),
    row(
        "contains-unicode",
        lambda: JsonContains("é"),
        {"m": "café"},
        P,
        "response contains 'é'",
        {"expected": "é"},
    ),
    row(
        "contains-text-subject",
        lambda: JsonContains("hello"),
        '"hello"',
        P,
        "response contains 'hello'",
        {"expected": "hello"},
    ),
    row(
        "contains-text-not-json",
        lambda: JsonContains("hello"),
        "hello there",
        E,
        "the response is not JSON (Expecting value: line 1 column 1 (char 0))",
        {"error": "not_json"},
    ),
    row(
        "contains-list-subject",
        lambda: JsonContains("b"),
        ["a", "b"],
        P,
        "response contains 'b'",
        {"expected": "b"},
    ),
    row(
        "message-pass",
        lambda: MessageContains("FINISHED"),
        {"message": "Search finished"},
        P,
        "message contains 'FINISHED'",
        {"path": "message", "expected": "FINISHED"},
        quick=True,
    ),
    row(
        "message-case-sensitive-fail",
        lambda: MessageContains("FINISHED", case_sensitive=True),
        {"message": "Search finished"},
        F,
        "Expected message to contain 'FINISHED', got 'Search finished'",
        {"path": "message", "expected": "FINISHED", "actual": "Search finished"},
    ),
    row(
        "message-case-sensitive-pass",
        lambda: MessageContains("Search", case_sensitive=True),
        {"message": "Search finished"},
        P,
        "message contains 'Search'",
        {"path": "message", "expected": "Search"},
        quick=True,
    ),
    row(
        "message-missing",
        lambda: MessageContains("x"),
        {"status": "ok"},
        F,
        "Missing field: message",
        {"path": "message", "expected": "x", "actual": None, "missing": True},
    ),
    row(
        "message-not-text",
        lambda: MessageContains("3"),
        {"message": 3},
        F,
        "Expected message to be text containing '3', got 3",
        {"path": "message", "expected": "3", "actual": 3},
    ),
    row(
        "message-not-object",
        lambda: MessageContains("3"),
        [3],
        F,
        "Missing field: message",
        {"path": "message", "expected": "3", "actual": None, "missing": True},
    ),
    row(
        "summary-fail",
        lambda: SummaryContains("no results"),
        {"summary": "Found 3 notes"},
        F,
        "Expected summary to contain 'no results', got 'Found 3 notes'",
        {"path": "summary", "expected": "no results", "actual": "Found 3 notes"},
    ),
    row(
        "summary-pass",
        lambda: SummaryContains("found 3"),
        {"summary": "Found 3 notes"},
        P,
        "summary contains 'found 3'",
        {"path": "summary", "expected": "found 3"},
        quick=True,
    ),
    row(
        "min-pass",
        lambda: ResultsMin(2),
        {"results": [{}, {}]},
        P,
        "at least 2 results",
        {"path": "results", "expected": 2, "actual": 2},
        quick=True,
    ),
    row(
        "min-fail",
        lambda: ResultsMin(1),
        {"results": []},
        F,
        "Expected at least 1 result, got 0",
        {"path": "results", "expected": 1, "actual": 0},
    ),
    row(
        "min-fail-plural",
        lambda: ResultsMin(3),
        {"results": [{}, {}]},
        F,
        "Expected at least 3 results, got 2",
        {"path": "results", "expected": 3, "actual": 2},
    ),
    row(
        "max-pass-equal",
        lambda: ResultsMax(2),
        {"results": [{}, {}]},
        P,
        "at most 2 results",
        {"path": "results", "expected": 2, "actual": 2},
        quick=True,
    ),
    row(
        "max-fail",
        lambda: ResultsMax(2),
        {"results": [{}, {}, {}]},
        F,
        "Expected at most 2 results, got 3",
        {"path": "results", "expected": 2, "actual": 3},
    ),
    row(
        "max-one-fail",
        lambda: ResultsMax(1),
        {"results": [{}, {}]},
        F,
        "Expected at most 1 result, got 2",
        {"path": "results", "expected": 1, "actual": 2},
    ),
    row(
        "count-pass",
        lambda: ResultsCount(1),
        {"results": [{}]},
        P,
        "exactly 1 result",
        {"path": "results", "expected": 1, "actual": 1},
        quick=True,
    ),
    row(
        "count-fail-low",
        lambda: ResultsCount(2),
        {"results": [{}]},
        F,
        "Expected exactly 2 results, got 1",
        {"path": "results", "expected": 2, "actual": 1},
    ),
    row(
        "count-fail-high",
        lambda: ResultsCount(1),
        {"results": [{}, {}]},
        F,
        "Expected exactly 1 result, got 2",
        {"path": "results", "expected": 1, "actual": 2},
    ),
    row(
        "count-missing",
        lambda: ResultsMin(0),
        {"status": "success"},
        F,
        "Expected at least 0 results, got no 'results' field",
        {"path": "results", "expected": 0, "actual": None},
    ),
    row(
        "count-not-list",
        lambda: ResultsMin(1),
        {"results": "many"},
        F,
        "Expected at least 1 result, got 'results' that is not a list ('many')",
        {"path": "results", "expected": 1, "actual": "many"},
    ),
    row(
        "count-not-list-long",
        lambda: ResultsCount(1),
        {"results": {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}},
        F,
        'Expected exactly 1 result, got \'results\' that is not a list ({"a": "xxxxxxxxxxxxxxxxxxx…xxxxxxxxxxx"})',  # noqa: E501
        {
            "path": "results",
            "expected": 1,
            "actual": {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
        },
    ),
    # `show`: a value in a reason is cut to 80 characters, or to the width its reason gives it
    row(
        "count-not-list-long-text",
        lambda: ResultsCount(1),
        {"results": "y" * 100},
        F,
        "Expected exactly 1 result, got 'results' that is not a list ('"
        + "y" * 26
        + "…"
        + "y" * 13
        + "')",
        {"path": "results", "expected": 1, "actual": "y" * 100},
    ),
    row(
        "count-not-list-long-number",
        lambda: ResultsCount(1),
        {"results": 10**50},
        F,
        "Expected exactly 1 result, got 'results' that is not a list (1"
        + "0" * 25
        + "…"
        + "0" * 13
        + ")",
        {"path": "results", "expected": 1, "actual": 10**50},
    ),
    row(
        "count-not-object",
        lambda: ResultsMax(1),
        [1, 2],
        F,
        "Expected at most 1 result, got no 'results' field",
        {"path": "results", "expected": 1, "actual": None},
    ),
    row(
        "count-zero-pass",
        lambda: ResultsCount(0),
        {"results": []},
        P,
        "exactly 0 results",
        {"path": "results", "expected": 0, "actual": 0},
        quick=True,
    ),
    row(
        "has-pass-null",
        lambda: HasFields(["pagination.next", "results"]),
        {"results": [], "pagination": {"next": None}},
        P,
        "has fields pagination.next, results",
        {"expected": ["pagination.next", "results"], "missing": []},
        quick=True,
    ),
    row(
        "has-one-missing",
        lambda: HasFields(["results", "pagination.total"]),
        {"results": [], "pagination": {"offset": 0}},
        F,
        "Missing field: pagination.total",
        {
            "path": "pagination.total",
            "expected": ["results", "pagination.total"],
            "actual": None,
            "missing": ["pagination.total"],
        },
    ),
    row(
        "has-two-missing",
        lambda: HasFields(["a", "b.c", "d"]),
        {"d": 1},
        F,
        "Missing fields: a, b.c",
        {"path": "a", "expected": ["a", "b.c", "d"], "actual": None, "missing": ["a", "b.c"]},
    ),
    row(
        "has-single-string",
        lambda: HasFields("a"),
        {"a": 1},
        P,
        "has fields a",
        {"expected": ["a"], "missing": []},
        quick=True,
    ),
    row(
        "has-wildcard-empty",
        lambda: HasFields(["results[*].file"]),
        {"results": []},
        F,
        "Missing field: results[*].file",
        {
            "path": "results[*].file",
            "expected": ["results[*].file"],
            "actual": None,
            "missing": ["results[*].file"],
        },
    ),
    row(
        "feq-pass",
        lambda: FieldEquals({"pagination.offset": 0, "status": "ok"}),
        {"pagination": {"offset": 0}, "status": "ok"},
        P,
        "pagination.offset is 0, status is 'ok'",
        {"expected": {"pagination.offset": 0, "status": "ok"}, "checked": 2},
        quick=True,
    ),
    row(
        "feq-int-float",
        lambda: FieldEquals({"total": 3.0}),
        {"total": 3},
        P,
        "total is 3.0",
        {"expected": {"total": 3.0}, "checked": 1},
    ),
    row(
        "feq-string-vs-int",
        lambda: FieldEquals({"total": "3"}),
        {"total": 3},
        F,
        "total: expected '3', got 3",
        {
            "path": "total",
            "expected": "3",
            "actual": 3,
            "offending": [{"path": "total", "actual": 3, "expected": "3"}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "feq-bool-vs-int",
        lambda: FieldEquals({"flag": 1}),
        {"flag": True},
        F,
        "flag: expected 1, got true",
        {
            "path": "flag",
            "expected": 1,
            "actual": True,
            "offending": [{"path": "flag", "actual": True, "expected": 1}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "feq-null",
        lambda: FieldEquals({"next": None}),
        {"next": None},
        P,
        "next is null",
        {"expected": {"next": None}, "checked": 1},
        quick=True,
    ),
    row(
        "feq-missing",
        lambda: FieldEquals({"pagination.limit": 10}),
        {"pagination": {}},
        F,
        "Missing field: pagination.limit",
        {
            "path": "pagination.limit",
            "expected": 10,
            "actual": None,
            "offending": [
                {"path": "pagination.limit", "actual": None, "expected": 10, "missing": True}
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "feq-two-bad",
        lambda: FieldEquals({"status": "error", "offset": 5, "x": 1}),
        {"status": "ok", "offset": 0, "x": 1},
        F,
        "status: expected 'error', got 'ok' (and 1 more)",
        {
            "path": "status",
            "expected": "error",
            "actual": "ok",
            "offending": [
                {"path": "status", "actual": "ok", "expected": "error"},
                {"path": "offset", "actual": 0, "expected": 5},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "feq-missing-then-bad",
        lambda: FieldEquals({"gone": 1, "status": "error"}),
        {"status": "ok"},
        F,
        "Missing field: gone (and 1 more)",
        {
            "path": "gone",
            "expected": 1,
            "actual": None,
            "offending": [
                {"path": "gone", "actual": None, "expected": 1, "missing": True},
                {"path": "status", "actual": "ok", "expected": "error"},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "feq-object",
        lambda: FieldEquals({"p": {"a": [1, 2]}}),
        {"p": {"a": [1.0, 2]}},
        P,
        'p is {"a": [1, 2]}',
        {"expected": {"p": {"a": [1, 2]}}, "checked": 1},
    ),
    row(
        "feq-object-fail",
        lambda: FieldEquals({"p": {"a": [1, 2]}}),
        {"p": {"a": [2, 1]}},
        F,
        'p: expected {"a": [1, 2]}, got {"a": [2, 1]}',
        {
            "path": "p",
            "expected": {"a": [1, 2]},
            "actual": {"a": [2, 1]},
            "offending": [{"path": "p", "actual": {"a": [2, 1]}, "expected": {"a": [1, 2]}}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "feq-wildcard",
        lambda: FieldEquals({"r[*].t": "n"}),
        {"r": [{"t": "n"}, {"t": "m"}, {"t": "n"}]},
        F,
        "r[1].t: expected 'n', got 'm'",
        {
            "path": "r[1].t",
            "expected": "n",
            "actual": "m",
            "offending": [{"path": "r[1].t", "actual": "m", "expected": "n"}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "feq-wildcard-pass",
        lambda: FieldEquals({"r[*].t": "n"}),
        {"r": [{"t": "n"}, {"t": "n"}]},
        P,
        "r[*].t is 'n'",
        {"expected": {"r[*].t": "n"}, "checked": 1},
    ),
    row(
        "fc-pass",
        lambda: FieldContains("summary", "security"),
        {"summary": "3 Security notes"},
        P,
        "summary contains 'security'",
        {"path": "summary", "expected": "security", "checked": 1},
    ),
    row(
        "fc-case-sensitive",
        lambda: FieldContains("summary", "security", case_sensitive=True),
        {"summary": "3 Security notes"},
        F,
        "summary: expected to contain 'security', got '3 Security notes'",
        {
            "path": "summary",
            "expected": "security",
            "actual": "3 Security notes",
            "offending": [{"path": "summary", "actual": "3 Security notes"}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "fc-case-sensitive-pass",
        lambda: FieldContains("summary", "Sec", case_sensitive=True),
        {"summary": "3 Security notes"},
        P,
        "summary contains 'Sec'",
        {"path": "summary", "expected": "Sec", "checked": 1},
    ),
    row(
        "fc-list",
        lambda: FieldContains("tags", "SEC"),
        {"tags": ["work", "security"]},
        P,
        "tags contains 'SEC'",
        {"path": "tags", "expected": "SEC", "checked": 1},
    ),
    row(
        "fc-list-fail",
        lambda: FieldContains("tags", "x"),
        {"tags": ["work", 3]},
        F,
        "tags: expected to contain 'x', got [\"work\", 3]",
        {
            "path": "tags",
            "expected": "x",
            "actual": ["work", 3],
            "offending": [{"path": "tags", "actual": ["work", 3]}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "fc-number",
        lambda: FieldContains("n", "3"),
        {"n": 3},
        F,
        "n: expected to contain '3', got 3",
        {
            "path": "n",
            "expected": "3",
            "actual": 3,
            "offending": [{"path": "n", "actual": 3}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "fc-wildcard-fail",
        lambda: FieldContains("r[*].f", "journal"),
        {"r": [{"f": "journal/a"}, {"f": "people/b"}, {"f": "x"}]},
        F,
        "r[1].f: expected to contain 'journal', got 'people/b' (and 1 more)",
        {
            "path": "r[1].f",
            "expected": "journal",
            "actual": "people/b",
            "index": 1,
            "offending": [
                {"path": "r[1].f", "actual": "people/b", "index": 1},
                {"path": "r[2].f", "actual": "x", "index": 2},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "fc-wildcard-empty",
        lambda: FieldContains("r[*].f", "journal"),
        {"r": []},
        P,
        "r[*].f contains 'journal'",
        {"path": "r[*].f", "expected": "journal", "checked": 0},
    ),
    row(
        "fc-missing",
        lambda: FieldContains("summary", "x"),
        {},
        F,
        "Missing field: summary",
        {"path": "summary", "expected": "x", "actual": None, "missing": True},
    ),
    row(
        "am-pass",
        lambda: AllMatch("r[*].t", "note"),
        {"r": [{"t": "note"}, {"t": "note"}]},
        P,
        "every r[*].t is 'note'",
        {"path": "r[*].t", "expected": "note", "checked": 2},
        quick=True,
    ),
    row(
        "am-fail",
        lambda: AllMatch("r[*].t", "note"),
        {"r": [{"t": "note"}, {"t": "log"}, {"t": "draft"}]},
        F,
        "Found non-matching item: 'log' at r[1].t (and 1 more)",
        {
            "path": "r[1].t",
            "expected": "note",
            "actual": "log",
            "index": 1,
            "offending": [
                {"path": "r[1].t", "actual": "log", "index": 1},
                {"path": "r[2].t", "actual": "draft", "index": 2},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "am-string-vs-number",
        lambda: AllMatch("r[*].t", "1"),
        {"r": [{"t": 1}]},
        F,
        "Found non-matching item: 1 at r[0].t",
        {
            "path": "r[0].t",
            "expected": "1",
            "actual": 1,
            "index": 0,
            "offending": [{"path": "r[0].t", "actual": 1, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "am-int-float",
        lambda: AllMatch("r[*].v", 1),
        {"r": [{"v": 1.0}, {"v": 1}]},
        P,
        "every r[*].v is 1",
        {"path": "r[*].v", "expected": 1, "checked": 2},
        quick=True,
    ),
    row(
        "am-bool",
        lambda: AllMatch("r[*].v", True),
        {"r": [{"v": 1}]},
        F,
        "Found non-matching item: 1 at r[0].v",
        {
            "path": "r[0].v",
            "expected": True,
            "actual": 1,
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": 1, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "am-null",
        lambda: AllMatch("r[*].v", None),
        {"r": [{"v": None}, {"v": 0}]},
        F,
        "Found non-matching item: 0 at r[1].v",
        {
            "path": "r[1].v",
            "expected": None,
            "actual": 0,
            "index": 1,
            "offending": [{"path": "r[1].v", "actual": 0, "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-empty",
        lambda: AllMatch("r[*].v", 1),
        {"r": []},
        P,
        "every r[*].v is 1",
        {"path": "r[*].v", "expected": 1, "checked": 0},
        quick=True,
    ),
    row(
        "am-single-missing",
        lambda: AllMatch("r[0].v", 1),
        {"r": []},
        F,
        "Missing field: r[0].v",
        {"path": "r[0].v", "expected": 1, "actual": None, "missing": True},
    ),
    row(
        "am-single-pass",
        lambda: AllMatch("r[0].v", "a"),
        {"r": [{"v": "a"}]},
        P,
        "every r[0].v is 'a'",
        {"path": "r[0].v", "expected": "a", "checked": 1},
        quick=True,
    ),
    row(
        "am-list-value",
        lambda: AllMatch("r[*].v", [1, 2]),
        {"r": [{"v": [1, 2.0]}, {"v": [2, 1]}]},
        F,
        "Found non-matching item: [2, 1] at r[1].v",
        {
            "path": "r[1].v",
            "expected": [1, 2],
            "actual": [2, 1],
            "index": 1,
            "offending": [{"path": "r[1].v", "actual": [2, 1], "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-one-of-pass",
        lambda: AllMatchOneOf("r[*].t", ["note", "task"]),
        {"r": [{"t": "note"}, {"t": "task"}]},
        P,
        "every r[*].t is one of 'note', 'task'",
        {"path": "r[*].t", "expected": ["note", "task"], "checked": 2},
        quick=True,
    ),
    row(
        "am-one-of-fail",
        lambda: AllMatchOneOf("r[*].t", ["note", "task"]),
        {"r": [{"t": "note"}, {"t": "draft"}]},
        F,
        "Found non-matching item: 'draft' at r[1].t (expected one of 'note', 'task')",
        {
            "path": "r[1].t",
            "expected": ["note", "task"],
            "actual": "draft",
            "index": 1,
            "offending": [{"path": "r[1].t", "actual": "draft", "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-one-of-scalar",
        lambda: AllMatchOneOf("r[*].t", "note"),
        {"r": [{"t": "draft"}]},
        F,
        "Found non-matching item: 'draft' at r[0].t (expected one of 'note')",
        {
            "path": "r[0].t",
            "expected": ["note"],
            "actual": "draft",
            "index": 0,
            "offending": [{"path": "r[0].t", "actual": "draft", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "pat-pass",
        lambda: AllMatchPattern("r[*].file", "^journal/"),
        {"r": [{"file": "journal/a"}, {"file": "journal/b"}]},
        P,
        "every r[*].file matches /^journal//",
        {"path": "r[*].file", "expected": "^journal/", "checked": 2},
        quick=True,
    ),
    row(
        "pat-fail-file",
        lambda: AllMatchPattern("r[*].file", "^journal/"),
        {"r": [{"file": "journal/a"}, {"file": "work/d.md"}, {"file": "x"}]},
        F,
        "File 'work/d.md' at r[1] doesn't match pattern '^journal/' (and 1 more)",
        {
            "path": "r[1].file",
            "expected": "^journal/",
            "actual": "work/d.md",
            "index": 1,
            "pattern": "^journal/",
            "offending": [
                {"path": "r[1].file", "actual": "work/d.md", "index": 1},
                {"path": "r[2].file", "actual": "x", "index": 2},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "pat-fail-other",
        lambda: AllMatchPattern("r[*].name", "^a"),
        {"r": [{"name": "b"}]},
        F,
        "Value 'b' at r[0].name doesn't match pattern '^a'",
        {
            "path": "r[0].name",
            "expected": "^a",
            "actual": "b",
            "index": 0,
            "pattern": "^a",
            "offending": [{"path": "r[0].name", "actual": "b", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "pat-regex",
        lambda: AllMatchPattern("r[*].file", "\\.md$"),
        {"r": [{"file": "a.md"}, {"file": "b.txt"}]},
        F,
        "File 'b.txt' at r[1] doesn't match pattern '\\.md$'",
        {
            "path": "r[1].file",
            "expected": "\\.md$",
            "actual": "b.txt",
            "index": 1,
            "pattern": "\\.md$",
            "offending": [{"path": "r[1].file", "actual": "b.txt", "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "pat-number",
        lambda: AllMatchPattern("r[*].n", "^4"),
        {"r": [{"n": 42}, {"n": 5}]},
        F,
        "Value 5 at r[1].n doesn't match pattern '^4'",
        {
            "path": "r[1].n",
            "expected": "^4",
            "actual": 5,
            "index": 1,
            "pattern": "^4",
            "offending": [{"path": "r[1].n", "actual": 5, "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "pat-prefix-number",
        lambda: AllMatchPattern("r[*].n", "^4"),
        {"r": [{"n": "4"}, {"n": 41}]},
        P,
        "every r[*].n matches /^4/",
        {"path": "r[*].n", "expected": "^4", "checked": 2},
        quick=True,
    ),
    row(
        "pat-missing",
        lambda: AllMatchPattern("file", "^a"),
        {},
        F,
        "Missing field: file",
        {"path": "file", "expected": "^a", "actual": None, "missing": True},
    ),
    row(
        "pat-empty",
        lambda: AllMatchPattern("r[*].file", "^a"),
        {"r": []},
        P,
        "every r[*].file matches /^a/",
        {"path": "r[*].file", "expected": "^a", "checked": 0},
        quick=True,
    ),
    row(
        "none-pat-fail",
        lambda: NoneMatchPattern("r[*].file", "^(people/|documents/)"),
        {"r": [{"file": "journal/a"}, {"file": "people/alice.md"}]},
        F,
        "File 'people/alice.md' at r[1] matches excluded pattern '^(people/|documents/)'",
        {
            "path": "r[1].file",
            "expected": "^(people/|documents/)",
            "actual": "people/alice.md",
            "index": 1,
            "pattern": "^(people/|documents/)",
            "offending": [{"path": "r[1].file", "actual": "people/alice.md", "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "none-pat-pass",
        lambda: NoneMatchPattern("r[*].file", "^(people/|documents/)"),
        {"r": [{"file": "journal/a"}]},
        P,
        "no r[*].file matches /^(people/|documents/)/",
        {"path": "r[*].file", "expected": "^(people/|documents/)", "checked": 1},
        quick=True,
    ),
    row(
        "none-pat-regex-fail",
        lambda: NoneMatchPattern("r[*].v", "secret"),
        {"r": [{"v": "top secret"}]},
        F,
        "Value 'top secret' at r[0].v matches excluded pattern 'secret'",
        {
            "path": "r[0].v",
            "expected": "secret",
            "actual": "top secret",
            "index": 0,
            "pattern": "secret",
            "offending": [{"path": "r[0].v", "actual": "top secret", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "none-pat-regex-pass",
        lambda: NoneMatchPattern("r[*].v", "secret"),
        {"r": [{"v": "public"}, {"v": 3}]},
        P,
        "no r[*].v matches /secret/",
        {"path": "r[*].v", "expected": "secret", "checked": 2},
        quick=True,
    ),
    row(
        "ac-pass",
        lambda: ArrayContains("dirs", ["people/", "documents/"]),
        {"dirs": ["documents/", "people/", "x"]},
        P,
        "dirs contains 'people/', 'documents/'",
        {"path": "dirs", "expected": ["people/", "documents/"]},
    ),
    row(
        "ac-fail",
        lambda: ArrayContains("dirs", ["people/", "documents/", "x"]),
        {"dirs": ["people/"]},
        F,
        "dirs does not contain 'documents/', 'x'",
        {
            "path": "dirs",
            "expected": ["people/", "documents/", "x"],
            "actual": ["people/"],
            "missing": ["documents/", "x"],
        },
    ),
    row(
        "ac-scalar",
        lambda: ArrayContains("dirs", 1),
        {"dirs": [1.0]},
        P,
        "dirs contains 1",
        {"path": "dirs", "expected": [1]},
    ),
    row(
        "ac-strict",
        lambda: ArrayContains("dirs", [1]),
        {"dirs": [True, "1"]},
        F,
        "dirs does not contain 1",
        {"path": "dirs", "expected": [1], "actual": [True, "1"], "missing": [1]},
    ),
    row(
        "ac-not-array",
        lambda: ArrayContains("dirs", ["a"]),
        {"dirs": "a"},
        F,
        "Expected dirs to be an array, got 'a'",
        {"path": "dirs", "expected": ["a"], "actual": "a"},
    ),
    row(
        "ac-missing",
        lambda: ArrayContains("dirs", ["a"]),
        {},
        F,
        "Missing field: dirs",
        {"path": "dirs", "expected": ["a"], "actual": None, "missing": True},
    ),
    row(
        "ac-missing-pattern",
        lambda: ArrayContains("dirs", pattern="^a"),
        {},
        F,
        "Missing field: dirs",
        {"path": "dirs", "expected": "^a", "actual": None, "missing": True},
    ),
    row(
        "ac-wildcard",
        lambda: ArrayContains("r[*].t", ["a", "b"]),
        {"r": [{"t": "a"}, {"t": "c"}]},
        F,
        "r[*].t does not contain 'b'",
        {"path": "r[*].t", "expected": ["a", "b"], "actual": ["a", "c"], "missing": ["b"]},
    ),
    row(
        "ac-wildcard-pass",
        lambda: ArrayContains("r[*].t", ["a"]),
        {"r": [{"t": "a"}, {"t": "c"}]},
        P,
        "r[*].t contains 'a'",
        {"path": "r[*].t", "expected": ["a"]},
    ),
    row(
        "ac-pattern-pass",
        lambda: ArrayContains("dirs", pattern="^peo"),
        {"dirs": ["x", "people/", "people/b"]},
        P,
        "dirs has an item matching /^peo/",
        {"path": "dirs", "expected": "^peo", "actual": "people/"},
    ),
    row(
        "ac-pattern-number",
        lambda: ArrayContains("dirs", pattern="^4"),
        {"dirs": [42]},
        P,
        "dirs has an item matching /^4/",
        {"path": "dirs", "expected": "^4", "actual": 42},
    ),
    row(
        "ac-pattern-fail",
        lambda: ArrayContains("dirs", pattern="^peo"),
        {"dirs": ["x", "y"]},
        F,
        "No item of dirs matches pattern '^peo'",
        {"path": "dirs", "expected": "^peo", "actual": ["x", "y"], "checked": 2},
    ),
    row(
        "ac-pattern-not-array",
        lambda: ArrayContains("dirs", pattern="^peo"),
        {"dirs": 7},
        F,
        "Expected dirs to be an array, got 7",
        {"path": "dirs", "expected": "^peo", "actual": 7},
    ),
    row(
        "tags-all-pass",
        lambda: AllHaveTags(["work", "security"]),
        {"results": [{"metadata": {"tags": ["security", "work"]}}]},
        P,
        "every result has tags 'work', 'security'",
        {"path": "results[*].metadata.tags", "expected": ["work", "security"], "checked": 1},
        quick=True,
    ),
    row(
        "tags-all-fail",
        lambda: AllHaveTags(["work", "security"]),
        {
            "results": [
                {"metadata": {"tags": ["security", "work"]}},
                {"metadata": {"tags": ["work"]}},
                {"metadata": {}},
            ]
        },
        F,
        "Result 1 missing required tag: 'security' (and 1 more)",
        {
            "path": "results[1].metadata.tags",
            "expected": ["work", "security"],
            "actual": ["work"],
            "index": 1,
            "offending": [
                {
                    "path": "results[1].metadata.tags",
                    "actual": ["work"],
                    "index": 1,
                    "reason": "Result 1 missing required tag: 'security'",
                },
                {
                    "path": "results[2].metadata.tags",
                    "actual": [],
                    "index": 2,
                    "reason": "Result 2 missing required tag: 'work'",
                },
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "tags-all-string-tag",
        lambda: AllHaveTags("work"),
        {"results": [{"metadata": {"tags": "work"}}]},
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 1},
    ),
    row(
        "tags-all-no-meta",
        lambda: AllHaveTags(["work"]),
        {"results": [{"file": "a"}, 3]},
        F,
        "Result 0 missing required tag: 'work' (and 1 more)",
        {
            "path": "results[0].metadata.tags",
            "expected": ["work"],
            "actual": [],
            "index": 0,
            "offending": [
                {
                    "path": "results[0].metadata.tags",
                    "actual": [],
                    "index": 0,
                    "reason": "Result 0 missing required tag: 'work'",
                },
                {
                    "path": "results[1].metadata.tags",
                    "actual": [],
                    "index": 1,
                    "reason": "Result 1 missing required tag: 'work'",
                },
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "tags-all-no-results",
        lambda: AllHaveTags(["work"]),
        {"status": "ok"},
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
    ),
    row(
        "tags-all-results-not-list",
        lambda: AllHaveTags(["work"]),
        {"results": "x"},
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
    ),
    row(
        "tags-not-list",
        lambda: AllHaveTags(["work"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {"tags": 3}}]},
        E,
        "results[1].metadata.tags is not a list of tags (3)",
        {"path": "results[1].metadata.tags", "actual": 3},
    ),
    row(
        "tags-none-pass",
        lambda: NoneHaveTags(["draft", "old"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {}}]},
        P,
        "no result has tags 'draft', 'old'",
        {"path": "results[*].metadata.tags", "expected": ["draft", "old"], "checked": 2},
    ),
    row(
        "tags-none-pass-quick",
        lambda: NoneHaveTags(["draft", "old"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {"tags": []}}]},
        P,
        "no result has tags 'draft', 'old'",
        {"path": "results[*].metadata.tags", "expected": ["draft", "old"], "checked": 2},
        quick=True,
    ),
    row(
        "tags-none-fail",
        lambda: NoneHaveTags(["draft", "old"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {"tags": ["old", "draft"]}}]},
        F,
        "Result 1 has excluded tag: 'draft'",
        {
            "path": "results[1].metadata.tags",
            "expected": ["draft", "old"],
            "actual": ["old", "draft"],
            "index": 1,
            "offending": [
                {
                    "path": "results[1].metadata.tags",
                    "actual": ["old", "draft"],
                    "index": 1,
                    "reason": "Result 1 has excluded tag: 'draft'",
                }
            ],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "tags-any-pass",
        lambda: EachHasAnyTag(["work", "personal"]),
        {"results": [{"metadata": {"tags": ["personal"]}}, {"metadata": {"tags": ["work", "x"]}}]},
        P,
        "every result has one of the tags 'work', 'personal'",
        {"path": "results[*].metadata.tags", "expected": ["work", "personal"], "checked": 2},
        quick=True,
    ),
    row(
        "tags-any-fail",
        lambda: EachHasAnyTag(["work", "personal"]),
        {
            "results": [
                {"metadata": {"tags": ["work"]}},
                {"metadata": {"tags": ["misc", 3]}},
                {"metadata": {"tags": []}},
            ]
        },
        F,
        "Result 1 has none of the tags: 'work', 'personal' (and 1 more)",
        {
            "path": "results[1].metadata.tags",
            "expected": ["work", "personal"],
            "actual": ["misc", 3],
            "index": 1,
            "offending": [
                {
                    "path": "results[1].metadata.tags",
                    "actual": ["misc", 3],
                    "index": 1,
                    "reason": "Result 1 has none of the tags: 'work', 'personal'",
                },
                {
                    "path": "results[2].metadata.tags",
                    "actual": [],
                    "index": 2,
                    "reason": "Result 2 has none of the tags: 'work', 'personal'",
                },
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "tags-any-empty",
        lambda: EachHasAnyTag(["work"]),
        {"results": []},
        P,
        "every result has one of the tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
        quick=True,
    ),
    row(
        "db-pass",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-01-01"}, {"d": "2026-01-31T23:59:59Z"}, {"d": "January 12, 2026"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31",
        {"path": "r[*].d", "expected": {"start": "2026-01-01", "end": "2026-01-31"}, "checked": 3},
        quick=True,
    ),
    row(
        "db-start-edge",
        lambda: AllDatesBetween("r[*].d", "2026-01-01T00:00:00Z", "2026-01-31"),
        {"r": [{"d": "2026-01-01T00:00:00Z"}]},
        P,
        "every r[*].d is between 2026-01-01T00:00:00Z and 2026-01-31",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01T00:00:00Z", "end": "2026-01-31"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-end-edge",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31T12:00:00Z"),
        {"r": [{"d": "2026-01-31T12:00:00Z"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31T12:00:00Z",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31T12:00:00Z"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-end-edge-dateutil",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31T12:00:00Z"),
        {"r": [{"d": "Jan 31 2026 12:00 UTC"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31T12:00:00Z",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31T12:00:00Z"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-fail",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-02-05T10:00:00Z"}, {"d": "2025-12-31"}]},
        F,
        "Date 2026-02-05 at r[0].d is outside range 2026-01-01 to 2026-01-31 (and 1 more)",
        {
            "path": "r[0].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": "2026-02-05T10:00:00Z",
            "index": 0,
            "offending": [
                {"path": "r[0].d", "actual": "2026-02-05T10:00:00Z", "index": 0},
                {"path": "r[1].d", "actual": "2025-12-31", "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "db-fail-zone",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-01-31T23:30:00-01:00"}]},
        F,
        "Date 2026-01-31 (2026-02-01 in UTC) at r[0].d is outside range 2026-01-01 to 2026-01-31",
        {
            "path": "r[0].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": "2026-01-31T23:30:00-01:00",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-31T23:30:00-01:00", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "db-not-a-date",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "soon"}, {"d": 3}, {"d": "2026-02-01"}]},
        F,
        "Value 'soon' at r[0].d is not a date (and 2 more)",
        {
            "path": "r[0].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": "soon",
            "index": 0,
            "offending": [
                {"path": "r[0].d", "actual": "soon", "index": 0, "not_a_date": True},
                {"path": "r[1].d", "actual": 3, "index": 1, "not_a_date": True},
                {"path": "r[2].d", "actual": "2026-02-01", "index": 2},
            ],
            "offending_count": 3,
            "checked": 3,
        },
    ),
    row(
        "db-naive",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-01-31T23:59:59"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31",
        {"path": "r[*].d", "expected": {"start": "2026-01-01", "end": "2026-01-31"}, "checked": 1},
        quick=True,
    ),
    row(
        "db-missing",
        lambda: AllDatesBetween("d", "2026-01-01", "2026-01-31"),
        {},
        F,
        "Missing field: d",
        {
            "path": "d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": None,
            "missing": True,
        },
    ),
    row(
        "db-empty",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": []},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31",
        {"path": "r[*].d", "expected": {"start": "2026-01-01", "end": "2026-01-31"}, "checked": 0},
        quick=True,
    ),
    row(
        "dw-pass",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "2026-01-13T12:00:00Z"}, {"d": "2026-01-27T12:00:00Z"}]},
        P,
        "every r[*].d is within 7 days of now",
        {"path": "r[*].d", "expected": {"days": 7}, "checked": 2},
    ),
    row(
        "dw-fail-after",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "2026-01-27T12:00:00.000001Z"}]},
        F,
        "Date 2026-01-27 at r[0].d is 7 days from 2026-01-20 (more than 7)",
        {
            "path": "r[0].d",
            "expected": {"days": 7},
            "actual": "2026-01-27T12:00:00.000001Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-27T12:00:00.000001Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-fail",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "2026-01-19"}, {"d": "2026-01-02"}, {"d": "nope"}]},
        F,
        "Date 2026-01-02 at r[1].d is 18.5 days from 2026-01-20 (more than 7) (and 1 more)",
        {
            "path": "r[1].d",
            "expected": {"days": 7},
            "actual": "2026-01-02",
            "index": 1,
            "offending": [
                {"path": "r[1].d", "actual": "2026-01-02", "index": 1},
                {"path": "r[2].d", "actual": "nope", "index": 2, "not_a_date": True},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "dw-naive-clock",
        lambda: DatesWithinDays("r[*].d", 1.5, clock=naive_clock),
        {"r": [{"d": "2026-01-18T23:00:00Z"}]},
        F,
        "Date 2026-01-18 at r[0].d is 1.5 days from 2026-01-20 (more than 1.5)",
        {
            "path": "r[0].d",
            "expected": {"days": 1.5},
            "actual": "2026-01-18T23:00:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-18T23:00:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-zone-clock",
        lambda: DatesWithinDays("r[*].d", 0, clock=zone_clock),
        {"r": [{"d": "2026-01-20T12:00:00Z"}]},
        P,
        "every r[*].d is within 0 days of now",
        {"path": "r[*].d", "expected": {"days": 0}, "checked": 1},
    ),
    row(
        "dw-fraction",
        lambda: DatesWithinDays("r[*].d", 1, clock=clock),
        {"r": [{"d": "2026-01-18T20:00:00Z"}]},
        F,
        "Date 2026-01-18 at r[0].d is 1.7 days from 2026-01-20 (more than 1)",
        {
            "path": "r[0].d",
            "expected": {"days": 1},
            "actual": "2026-01-18T20:00:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-18T20:00:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-fraction-2",
        lambda: DatesWithinDays("r[*].d", 1, clock=clock),
        {"r": [{"d": "2026-01-18T11:42:00Z"}]},
        F,
        "Date 2026-01-18 at r[0].d is 2 days from 2026-01-20 (more than 1)",
        {
            "path": "r[0].d",
            "expected": {"days": 1},
            "actual": "2026-01-18T11:42:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-18T11:42:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-missing",
        lambda: DatesWithinDays("d", 1, clock=clock),
        {},
        F,
        "Missing field: d",
        {"path": "d", "expected": {"days": 1}, "actual": None, "missing": True},
    ),
    row(
        "year-pass",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": "2026-01-01T00:30:00+01:00"}, {"d": "January 3, 2026"}]},
        P,
        "every r[*].d is in 2026",
        {"path": "r[*].d", "expected": {"year": 2026}, "checked": 2},
        quick=True,
    ),
    row(
        "year-fail",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": "2025-12-31T23:00:00Z"}, {"d": "2027-01-01"}]},
        F,
        "Date 2025-12-31 at r[0].d is not in 2026 (and 1 more)",
        {
            "path": "r[0].d",
            "expected": {"year": 2026},
            "actual": "2025-12-31T23:00:00Z",
            "index": 0,
            "offending": [
                {"path": "r[0].d", "actual": "2025-12-31T23:00:00Z", "index": 0},
                {"path": "r[1].d", "actual": "2027-01-01", "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "year-fail-dateutil",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": "January 3, 2025"}]},
        F,
        "Date January 3, 2025 at r[0].d is not in 2026",
        {
            "path": "r[0].d",
            "expected": {"year": 2026},
            "actual": "January 3, 2025",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "January 3, 2025", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "year-early",
        lambda: AllDatesInYear("r[*].d", 5),
        {"r": [{"d": "0005-06-01"}]},
        P,
        "every r[*].d is in 5",
        {"path": "r[*].d", "expected": {"year": 5}, "checked": 1},
        quick=True,
    ),
    row(
        "year-not-date",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": 2026}]},
        F,
        "Value 2026 at r[0].d is not a date",
        {
            "path": "r[0].d",
            "expected": {"year": 2026},
            "actual": 2026,
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": 2026, "index": 0, "not_a_date": True}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "range-pass",
        lambda: AllInRange("r[*].v", 0.0, 1.0),
        {"r": [{"v": 0.0}, {"v": 1.0}, {"v": 1}]},
        P,
        "r[*].v in 0.0-1.0",
        {"path": "r[*].v", "expected": {"min": 0.0, "max": 1.0}, "checked": 3},
        quick=True,
    ),
    row(
        "range-fail",
        lambda: AllInRange("r[*].v", 0.0, 1.0),
        {"r": [{"v": 1.2}, {"v": -0.1}]},
        F,
        "Value 1.2 at r[0].v is outside range 0.0-1.0 (and 1 more)",
        {
            "path": "r[0].v",
            "expected": {"min": 0.0, "max": 1.0},
            "actual": 1.2,
            "index": 0,
            "offending": [
                {"path": "r[0].v", "actual": 1.2, "index": 0},
                {"path": "r[1].v", "actual": -0.1, "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "range-not-number",
        lambda: AllInRange("r[*].v", 0, 1),
        {"r": [{"v": "0.5"}, {"v": True}, {"v": None}]},
        F,
        "Value '0.5' at r[0].v is not a number (and 2 more)",
        {
            "path": "r[0].v",
            "expected": {"min": 0, "max": 1},
            "actual": "0.5",
            "index": 0,
            "offending": [
                {"path": "r[0].v", "actual": "0.5", "index": 0},
                {"path": "r[1].v", "actual": True, "index": 1},
                {"path": "r[2].v", "actual": None, "index": 2},
            ],
            "offending_count": 3,
            "checked": 3,
        },
    ),
    row(
        "range-min-only",
        lambda: AllInRange("r[*].v", min=0.5),
        {"r": [{"v": 0.4}]},
        F,
        "Value 0.4 at r[0].v is outside range 0.5-inf",
        {
            "path": "r[0].v",
            "expected": {"min": 0.5, "max": None},
            "actual": 0.4,
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": 0.4, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "range-min-only-pass",
        lambda: AllInRange("r[*].v", min=0.5),
        {"r": [{"v": 99}]},
        P,
        "r[*].v in 0.5-inf",
        {"path": "r[*].v", "expected": {"min": 0.5, "max": None}, "checked": 1},
        quick=True,
    ),
    row(
        "range-max-only",
        lambda: AllInRange("r[*].v", max=5),
        {"r": [{"v": 6}]},
        F,
        "Value 6 at r[0].v is outside range -inf-5",
        {
            "path": "r[0].v",
            "expected": {"min": None, "max": 5},
            "actual": 6,
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": 6, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "range-max-only-pass",
        lambda: AllInRange("r[*].v", max=5),
        {"r": [{"v": -99}]},
        P,
        "r[*].v in -inf-5",
        {"path": "r[*].v", "expected": {"min": None, "max": 5}, "checked": 1},
        quick=True,
    ),
    row(
        "range-empty",
        lambda: AllInRange("r[*].v", 0, 1),
        {"r": []},
        P,
        "r[*].v in 0-1",
        {"path": "r[*].v", "expected": {"min": 0, "max": 1}, "checked": 0},
        quick=True,
    ),
    row(
        "range-single-missing",
        lambda: AllInRange("v", 0, 1),
        {},
        F,
        "Missing field: v",
        {"path": "v", "expected": {"min": 0, "max": 1}, "actual": None, "missing": True},
    ),
    row(
        "inrange-pass",
        lambda: InRange("p.ms", 0, 5000),
        {"p": {"ms": 5000}},
        P,
        "p.ms in 0-5000",
        {"path": "p.ms", "expected": {"min": 0, "max": 5000}, "checked": 1},
        quick=True,
    ),
    row(
        "inrange-fail",
        lambda: InRange("p.ms", 0, 5000),
        {"p": {"ms": 6200}},
        F,
        "Value 6200 at p.ms is outside range 0-5000",
        {
            "path": "p.ms",
            "expected": {"min": 0, "max": 5000},
            "actual": 6200,
            "offending": [{"path": "p.ms", "actual": 6200}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "inrange-missing",
        lambda: InRange("p.ms", 0, 5000),
        {"p": {}},
        F,
        "Missing field: p.ms",
        {"path": "p.ms", "expected": {"min": 0, "max": 5000}, "actual": None, "missing": True},
    ),
    row(
        "inrange-wildcard-empty",
        lambda: InRange("r[*].v", 0, 1),
        {"r": []},
        F,
        "Missing field: r[*].v",
        {"path": "r[*].v", "expected": {"min": 0, "max": 1}, "actual": None, "missing": True},
    ),
    row(
        "sorted-pass-ties",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 2}, {"v": 2}, {"v": 1.5}]},
        P,
        "r[*].v sorted descending",
        {"path": "r[*].v", "expected": "descending", "checked": 3},
        quick=True,
    ),
    row(
        "sorted-fail",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 0.9}, {"v": 1.0}, {"v": 0.85}, {"v": 0.9}]},
        F,
        "Values not sorted descending at index 1: r[1].v is 1.0, after 0.9",
        {
            "path": "r[1].v",
            "expected": "descending",
            "actual": 1.0,
            "index": 1,
            "values": [0.9, 1.0, 0.85, 0.9],
            "offending": [
                {"path": "r[1].v", "actual": 1.0, "index": 1, "previous": 0.9},
                {"path": "r[3].v", "actual": 0.9, "index": 3, "previous": 0.85},
            ],
            "offending_count": 2,
            "checked": 4,
        },
    ),
    row(
        "sorted-strings",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": "b"}, {"v": "c"}]},
        F,
        "Values not sorted descending at index 1: r[1].v is 'c', after 'b'",
        {
            "path": "r[1].v",
            "expected": "descending",
            "actual": "c",
            "index": 1,
            "values": ["b", "c"],
            "offending": [{"path": "r[1].v", "actual": "c", "index": 1, "previous": "b"}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "sorted-strings-pass",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": "c"}, {"v": "b"}]},
        P,
        "r[*].v sorted descending",
        {"path": "r[*].v", "expected": "descending", "checked": 2},
    ),
    row(
        "sorted-mixed",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 1}, {"v": "b"}]},
        E,
        "the values at r[*].v cannot be ordered (found number, str)",
        {"path": "r[*].v", "actual": [1, "b"]},
    ),
    row(
        "sorted-null",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": None}]},
        E,
        "the values at r[*].v cannot be ordered (found NoneType)",
        {"path": "r[*].v", "actual": [None]},
    ),
    row(
        "sorted-skip",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 1}, {}, {"v": 2}]},
        F,
        "Values not sorted descending at index 2: r[2].v is 2, after 1",
        {
            "path": "r[2].v",
            "expected": "descending",
            "actual": 2,
            "index": 2,
            "values": [1, 2],
            "offending": [{"path": "r[2].v", "actual": 2, "index": 2, "previous": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "sorted-missing",
        lambda: SortedDesc("v"),
        {},
        F,
        "Missing field: v",
        {"path": "v", "expected": "descending", "actual": None, "missing": True},
    ),
    row(
        "sorted-empty",
        lambda: SortedDesc("r[*].v"),
        {"r": []},
        P,
        "r[*].v sorted descending",
        {"path": "r[*].v", "expected": "descending", "checked": 0},
        quick=True,
    ),
    row(
        "schema-pass",
        lambda: ResultsMatchSchema(
            {
                "file": "string",
                "rel": {"type": "number", "min": 0, "max": 1},
                "tags": {"type": "array", "max": 2},
            }
        ),
        {"results": [{"file": "a", "rel": 1, "tags": []}, {"file": "", "rel": 0, "tags": [1, 2]}]},
        P,
        'every result matches {"file": "string", "rel": {"type": "number", "min": 0, "max": 1}, "tags": {"type": "array", "max": 2}}',  # noqa: E501
        {
            "expected": {
                "file": "string",
                "rel": {"type": "number", "min": 0, "max": 1},
                "tags": {"type": "array", "max": 2},
            },
            "checked": 2,
        },
    ),
    row(
        "schema-fail-type",
        lambda: ResultsMatchSchema({"file": "string", "rel": "number"}),
        {"results": [{"file": "a.md", "rel": "0.9"}]},
        F,
        "Result 0 field rel: expected number, got '0.9'",
        {
            "path": "results[0].rel",
            "expected": {"file": "string", "rel": "number"},
            "actual": "0.9",
            "index": 0,
            "offending": [
                {
                    "path": "results[0].rel",
                    "actual": "0.9",
                    "index": 0,
                    "reason": "Result 0 field rel: expected number, got '0.9'",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-fail-missing",
        lambda: ResultsMatchSchema({"file": "string", "n": "integer"}),
        {"results": [{"n": 1.5}, {"file": 3, "n": 2}]},
        F,
        "Result 0 missing field: file (and 2 more)",
        {
            "path": "results[0].file",
            "expected": {"file": "string", "n": "integer"},
            "actual": None,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].file",
                    "actual": None,
                    "index": 0,
                    "reason": "Result 0 missing field: file",
                },
                {
                    "path": "results[0].n",
                    "actual": 1.5,
                    "index": 0,
                    "reason": "Result 0 field n: expected integer, got 1.5",
                },
                {
                    "path": "results[1].file",
                    "actual": 3,
                    "index": 1,
                    "reason": "Result 1 field file: expected string, got 3",
                },
            ],
            "offending_count": 3,
            "checked": 2,
        },
    ),
    row(
        "schema-range-high",
        lambda: ResultsMatchSchema({"rel": {"type": "number", "min": 0, "max": 1}}),
        {"results": [{"rel": 1.5}]},
        F,
        "Result 0 field rel: value 1.5 is outside range 0-1",
        {
            "path": "results[0].rel",
            "expected": {"rel": {"type": "number", "min": 0, "max": 1}},
            "actual": 1.5,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].rel",
                    "actual": 1.5,
                    "index": 0,
                    "reason": "Result 0 field rel: value 1.5 is outside range 0-1",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-range-low",
        lambda: ResultsMatchSchema({"rel": {"type": "number", "min": 0}}),
        {"results": [{"rel": -1}]},
        F,
        "Result 0 field rel: value -1 is outside range 0-inf",
        {
            "path": "results[0].rel",
            "expected": {"rel": {"type": "number", "min": 0}},
            "actual": -1,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].rel",
                    "actual": -1,
                    "index": 0,
                    "reason": "Result 0 field rel: value -1 is outside range 0-inf",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-length",
        lambda: ResultsMatchSchema({"name": {"type": "string", "max": 3}}),
        {"results": [{"name": "abcd"}]},
        F,
        "Result 0 field name: length 4 is outside range -inf-3",
        {
            "path": "results[0].name",
            "expected": {"name": {"type": "string", "max": 3}},
            "actual": "abcd",
            "index": 0,
            "offending": [
                {
                    "path": "results[0].name",
                    "actual": "abcd",
                    "index": 0,
                    "reason": "Result 0 field name: length 4 is outside range -inf-3",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-length-low",
        lambda: ResultsMatchSchema({"tags": {"type": "array", "min": 1}}),
        {"results": [{"tags": []}]},
        F,
        "Result 0 field tags: length 0 is outside range 1-inf",
        {
            "path": "results[0].tags",
            "expected": {"tags": {"type": "array", "min": 1}},
            "actual": [],
            "index": 0,
            "offending": [
                {
                    "path": "results[0].tags",
                    "actual": [],
                    "index": 0,
                    "reason": "Result 0 field tags: length 0 is outside range 1-inf",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-object-no-range",
        lambda: ResultsMatchSchema(
            {"m": {"type": "object", "max": 0}, "b": "boolean", "z": "null"}
        ),
        {"results": [{"m": {"a": 1}, "b": False, "z": None}]},
        P,
        'every result matches {"m": {"type": "object", "max": 0}, "b": "boolean", "z": "null"}',
        {
            "expected": {"m": {"type": "object", "max": 0}, "b": "boolean", "z": "null"},
            "checked": 1,
        },
    ),
    row(
        "schema-bool-not-int",
        lambda: ResultsMatchSchema(
            {"b": "integer", "a": "array", "o": "object", "f": "boolean", "z": "null"}
        ),
        {"results": [{"b": True, "a": {}, "o": [], "f": 0, "z": 0}]},
        F,
        "Result 0 field b: expected integer, got true (and 4 more)",
        {
            "path": "results[0].b",
            "expected": {"b": "integer", "a": "array", "o": "object", "f": "boolean", "z": "null"},
            "actual": True,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].b",
                    "actual": True,
                    "index": 0,
                    "reason": "Result 0 field b: expected integer, got true",
                },
                {
                    "path": "results[0].a",
                    "actual": {},
                    "index": 0,
                    "reason": "Result 0 field a: expected array, got {}",
                },
                {
                    "path": "results[0].o",
                    "actual": [],
                    "index": 0,
                    "reason": "Result 0 field o: expected object, got []",
                },
                {
                    "path": "results[0].f",
                    "actual": 0,
                    "index": 0,
                    "reason": "Result 0 field f: expected boolean, got 0",
                },
                {
                    "path": "results[0].z",
                    "actual": 0,
                    "index": 0,
                    "reason": "Result 0 field z: expected null, got 0",
                },
            ],
            "offending_count": 5,
            "checked": 1,
        },
    ),
    row(
        "schema-nested",
        lambda: ResultsMatchSchema({"metadata.tags": "array"}),
        {"results": [{"metadata": {"tags": "x"}}]},
        F,
        "Result 0 field metadata.tags: expected array, got 'x'",
        {
            "path": "results[0].metadata.tags",
            "expected": {"metadata.tags": "array"},
            "actual": "x",
            "index": 0,
            "offending": [
                {
                    "path": "results[0].metadata.tags",
                    "actual": "x",
                    "index": 0,
                    "reason": "Result 0 field metadata.tags: expected array, got 'x'",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-no-results",
        lambda: ResultsMatchSchema({"a": "string"}),
        {"status": "ok"},
        P,
        'every result matches {"a": "string"}',
        {"expected": {"a": "string"}, "checked": 0},
    ),
    row(
        "schema-not-object",
        lambda: ResultsMatchSchema({"a": "string"}),
        [1],
        P,
        'every result matches {"a": "string"}',
        {"expected": {"a": "string"}, "checked": 0},
    ),
    row(
        "oneof-pass",
        lambda: OneOf(StatusIs("error"), JsonContains("filter")),
        {"status": "ok", "m": "filter"},
        P,
        "expect_contains passed",
        {"passed": 1, "failed": 1, "error": 0, "skipped": 0},
    ),
    row(
        "oneof-two",
        lambda: OneOf(StatusIs("error"), JsonContains("filter")),
        {"status": "ok"},
        F,
        "Neither status is 'error' nor response contains 'filter'",
        {"passed": 0, "failed": 2, "error": 0, "skipped": 0},
    ),
    row(
        "oneof-one",
        lambda: OneOf(StatusIs("error")),
        {"status": "ok"},
        F,
        "Expected status is 'error'",
        {"passed": 0, "failed": 1, "error": 0, "skipped": 0},
    ),
    row(
        "oneof-three",
        lambda: OneOf(StatusIs("a"), StatusIs("b"), AllOf(StatusIs("c"), ResultsMin(1))),
        {"status": "ok"},
        F,
        "None of: status is 'a'; status is 'b'; status is 'c' and at least 1 result",
        {"passed": 0, "failed": 3, "error": 0, "skipped": 0},
    ),
    row(
        "ifr-skip",
        lambda: IfResults(AllHaveTags(["work"])),
        {"results": []},
        S,
        "condition not met: no results",
        {"condition": False},
    ),
    row(
        "ifr-skip-missing",
        lambda: IfResults(AllHaveTags(["work"])),
        {},
        S,
        "condition not met: no results",
        {"condition": False},
    ),
    row(
        "ifr-fail",
        lambda: IfResults(AllHaveTags(["work"])),
        {"results": [{"metadata": {"tags": ["x"]}}]},
        F,
        "Result 0 missing required tag: 'work'",
        {"condition": True},
    ),
    row(
        "ifr-pass",
        lambda: IfResults(StatusIs("ok")),
        {"results": [1], "status": "ok"},
        P,
        "status is 'ok'",
        {"condition": True},
    ),
    row(
        "ifh-skip",
        lambda: IfHasHistory(StatusIs("ok")),
        {"results": []},
        S,
        "condition not met: no history_results",
        {"condition": False},
    ),
    row(
        "ifh-null",
        lambda: IfHasHistory(StatusIs("ok")),
        {"history_results": None, "status": "no"},
        F,
        "Expected status 'ok', got 'no'",
        {"condition": True},
    ),
    row(
        "ifh-not-object",
        lambda: IfHasHistory(StatusIs("ok")),
        [1],
        S,
        "condition not met: no history_results",
        {"condition": False},
    ),
    row(
        "ifs-skip",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {"results": [{"file": "journal/a.md"}, {"file": 3}, 5]},
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "ifs-skip-no-results",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {"results": "x"},
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "ifs-pass",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {
            "results": [
                {"file": "journal/a.md"},
                {"file": "people/b.md", "sensitive": True},
                {"file": "documents/c", "sensitive": True},
            ]
        },
        P,
        "every sensitive result's sensitive is true",
        {"condition": True, "path": "sensitive", "expected": True, "checked": 2},
    ),
    row(
        "ifs-fail",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {
            "results": [
                {"file": "journal/a.md"},
                {"file": "people/b.md", "sensitive": 1},
                {"file": "documents/c"},
            ]
        },
        F,
        "results[1].sensitive: expected true, got 1 (and 1 more)",
        {
            "path": "results[1].sensitive",
            "expected": True,
            "actual": 1,
            "index": 1,
            "condition": True,
            "offending": [
                {"path": "results[1].sensitive", "actual": 1, "index": 1},
                {"path": "results[2].sensitive", "actual": None, "index": 2, "missing": True},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "ifs-missing-first",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {"results": [{"file": "people/b.md"}, {"file": "people/c.md", "sensitive": False}]},
        F,
        "Missing field: results[0].sensitive (and 1 more)",
        {
            "path": "results[0].sensitive",
            "expected": True,
            "actual": None,
            "index": 0,
            "condition": True,
            "offending": [
                {"path": "results[0].sensitive", "actual": None, "index": 0, "missing": True},
                {"path": "results[1].sensitive", "actual": False, "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "ifs-exists",
        lambda: IfSensitiveResults(has_field="sensitive"),
        {
            "results": [
                {"file": "people/b.md", "sensitive": None},
                {"file": "people/c.md", "sensitive": False},
            ]
        },
        P,
        "every sensitive result's sensitive exists",
        {"condition": True, "path": "sensitive", "expected": None, "checked": 2},
    ),
    row(
        "ifs-exists-fail",
        lambda: IfSensitiveResults(has_field="meta.flag"),
        {"results": [{"file": "people/b.md", "meta": {}}]},
        F,
        "Missing field: results[0].meta.flag",
        {
            "path": "results[0].meta.flag",
            "expected": None,
            "actual": None,
            "index": 0,
            "condition": True,
            "offending": [
                {"path": "results[0].meta.flag", "actual": None, "index": 0, "missing": True}
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "ifs-own-prefixes",
        lambda: IfSensitiveResults(has_field="s", value="y", sensitive_prefixes=["hr/"]),
        {"results": [{"file": "people/b.md"}, {"file": "hr/x", "s": "n"}]},
        F,
        "results[1].s: expected 'y', got 'n'",
        {
            "path": "results[1].s",
            "expected": "y",
            "actual": "n",
            "index": 1,
            "condition": True,
            "offending": [{"path": "results[1].s", "actual": "n", "index": 1}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "ifs-own-prefixes-skip",
        lambda: IfSensitiveResults(has_field="s", sensitive_prefixes=["hr/", "legal/"]),
        {"results": [{"file": "people/b.md"}]},
        S,
        "condition not met: no result file starts with 'hr/' or 'legal/'",
        {"condition": False},
    ),
    row(
        "ifs-child",
        lambda: IfSensitiveResults(StatusIs("ok")),
        {"status": "no", "results": [{"file": "documents/x"}]},
        F,
        "Expected status 'ok', got 'no'",
        {"condition": True},
    ),
    row(
        "ifs-child-skip",
        lambda: IfSensitiveResults(StatusIs("ok")),
        {"status": "no", "results": [{"file": "x/documents/"}]},
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "ac-timeout",
        lambda: ArrayContains("a", pattern="(a+)+$", regex_timeout=0.05),
        {"a": ["x", "a" * 5000 + "b"]},
        E,
        "pattern '(a+)+$' did not finish within 0.05s on a text of 5001 characters",
        {"path": "a", "error": "timeout"},
    ),
    row(
        "pat-timeout",
        lambda: AllMatchPattern("r[*].t", "(a+)+$", regex_timeout=0.05),
        {"r": [{"t": "a"}, {"t": "a" * 5000 + "b"}]},
        E,
        "pattern '(a+)+$' did not finish within 0.05s on a text of 5001 characters",
        {"path": "r[1].t", "pattern": "(a+)+$", "error": "timeout"},
    ),
    row(
        "ifr-not-object",
        lambda: IfResults(StatusIs("ok")),
        [1],
        S,
        "condition not met: no results",
        {"condition": False},
    ),
    row(
        "ifs-not-object",
        lambda: IfSensitiveResults(has_field="s"),
        [{"file": "people/a"}],
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "tags-not-object",
        lambda: AllHaveTags(["work"]),
        [{"metadata": {"tags": []}}],
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
    ),
    row(
        "tags-not-list-long",
        lambda: EachHasAnyTag(["work"]),
        {
            "results": [
                {
                    "metadata": {
                        "tags": {
                            "work": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                        }
                    }
                }
            ]
        },
        E,
        'results[0].metadata.tags is not a list of tags ({"work": "xxxxxxxxxxxxxxxx…xxxxxxxxxxx"})',
        {
            "path": "results[0].metadata.tags",
            "actual": {"work": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
        },
    ),
    row(
        "contains-long-fail",
        lambda: JsonContains("needle"),
        {
            "text": "hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay "  # noqa: E501
        },
        F,
        "Expected the response to contain 'needle'",
        {
            "expected": "needle",
            "actual": '{"text": "hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay…hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay "}',  # noqa: E501
        },
    ),
    row(
        "dw-far",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "1998-09-04T12:00:00Z"}]},
        F,
        "Date 1998-09-04 at r[0].d is 10000 days from 2026-01-20 (more than 7)",
        {
            "path": "r[0].d",
            "expected": {"days": 7},
            "actual": "1998-09-04T12:00:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "1998-09-04T12:00:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "db-one-instant",
        lambda: AllDatesBetween("r[*].d", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00+01:00"),
        {"r": [{"d": "2026-01-01T10:00:00Z"}]},
        P,
        "every r[*].d is between 2026-01-01T10:00:00Z and 2026-01-01T11:00:00+01:00",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00+01:00"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "range-one-value",
        lambda: InRange("v", 1, 1),
        {"v": 1.0},
        P,
        "v in 1-1",
        {"path": "v", "expected": {"min": 1, "max": 1}, "checked": 1},
        quick=True,
    ),
    row(
        "sorted-no-index",
        lambda: SortedDesc("$..v"),
        {"a": {"v": 1}, "b": {"v": 2}},
        F,
        "Values not sorted descending at index 1: b.v is 2, after 1",
        {
            "path": "b.v",
            "expected": "descending",
            "actual": 2,
            "index": 1,
            "values": [1, 2],
            "offending": [{"path": "b.v", "actual": 2, "index": 1, "previous": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "db-week-date-end",
        lambda: AllDatesBetween("d", "2026-01-01", "2026-W05-6"),
        {"d": "2026-01-31T23:00:00Z"},
        P,
        "every d is between 2026-01-01 and 2026-W05-6",
        {"path": "d", "expected": {"start": "2026-01-01", "end": "2026-W05-6"}, "checked": 1},
        quick=True,
    ),
    row(
        "db-end-minute",
        lambda: AllDatesBetween("d", "2026-01-01", "Jan 31 2026 23:59 UTC"),
        {"d": "2026-01-31T23:59:30Z"},
        F,
        "Date 2026-01-31 at d is outside range 2026-01-01 to 2026-01-31",
        {
            "path": "d",
            "expected": {"start": "2026-01-01", "end": "Jan 31 2026 23:59 UTC"},
            "actual": "2026-01-31T23:59:30Z",
            "offending": [{"path": "d", "actual": "2026-01-31T23:59:30Z"}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "feq-tuple",
        lambda: FieldEquals({"a": (1, 2)}),
        {"a": [1, 2.0]},
        P,
        "a is [1, 2]",
        {"expected": {"a": (1, 2)}, "checked": 1},
    ),
    row(
        "am-string-vs-list",
        lambda: AllMatch("r[*].v", ["a", "b"]),
        {"r": [{"v": "ab"}]},
        F,
        "Found non-matching item: 'ab' at r[0].v",
        {
            "path": "r[0].v",
            "expected": ["a", "b"],
            "actual": "ab",
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": "ab", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
]


def _record(result: Any) -> tuple[Status, str, dict[str, Any]]:
    return result.status, result.reason, dict(result.details)


def _named(result: Any, check: Assertion) -> Any:
    assert result.name == check.kind  # every outcome names the check's kind
    return result


@pytest.mark.parametrize(("build", "subject", "status", "reason", "details", "quick"), ROWS)
def test_a_check_decides_the_documented_record(
    build: Callable[[], Assertion],
    subject: Any,
    status: Status,
    reason: str,
    details: dict[str, Any],
    quick: bool,
) -> None:
    """docs/expect.md, Keys and Details: the status, reason and details of each outcome."""
    check = build()
    result = _named(check.check(subject), check)
    assert _record(result) == (status, reason, details)
    if isinstance(check, JsonCheck):  # the full evaluation alone decides the same, built anew
        alone = build()
        assert isinstance(alone, JsonCheck)
        assert _record(_named(alone._check_in_full(subject), alone)) == (status, reason, details)
    if quick:  # the quick test answers the common-case pass itself (JsonCheck docstring)
        fresh = build()
        assert isinstance(fresh, JsonCheck)
        answer = fresh._quick_test()(subject)
        assert answer is not None
        assert _record(answer) == (status, reason, details)
        assert fresh.check(subject) is answer  # the shared passing result


def err(name: str, build: Callable[[], Any], kind: type[Exception], message: str) -> Any:
    return pytest.param(build, kind, message, id=name)


ERRORS = [
    err(
        "status-list",
        lambda: StatusIs(["a"]),
        TypeError,
        'expect_status must be a string, number or boolean, got ["a"]',
    ),
    err(
        "status-none",
        lambda: StatusIs(None),
        TypeError,
        "expect_status must be a string, number or boolean, got null",
    ),
    err(
        "status-dict",
        lambda: StatusIs({"a": 1}),
        TypeError,
        'expect_status must be a string, number or boolean, got {"a": 1}',
    ),
    err(
        "contains-not-text",
        lambda: JsonContains(3),
        TypeError,
        "expect_contains must be a string, got int 3",
    ),
    err(
        "contains-empty", lambda: JsonContains(""), ValueError, "expect_contains must not be empty"
    ),
    err(
        "contains-case-flag",
        lambda: JsonContains("a", case_sensitive="yes"),
        TypeError,
        "case_sensitive must be true or false",
    ),
    err(
        "count-negative",
        lambda: ResultsMin(-1),
        ValueError,
        "expect_results_min must be at least 0, got -1",
    ),
    err(
        "count-bool",
        lambda: ResultsMax(True),
        TypeError,
        "expect_results_max must be an integer, got bool True",
    ),
    err(
        "count-float",
        lambda: ResultsCount(1.0),
        TypeError,
        "expect_results_count must be an integer, got float 1.0",
    ),
    err(
        "has-fields-empty",
        lambda: HasFields([]),
        ValueError,
        "expect_has_fields needs at least one value, got an empty list",
    ),
    err(
        "has-fields-not-text",
        lambda: HasFields(["a", 3]),
        TypeError,
        "expect_has_fields values must be a string, got int 3",
    ),
    err(
        "has-fields-empty-path",
        lambda: HasFields(["a", ""]),
        ValueError,
        "expect_has_fields values must not be empty",
    ),
    err(
        "field-equals-empty",
        lambda: FieldEquals({}),
        ValueError,
        "field_equals needs a non-empty mapping of path to value",
    ),
    err(
        "field-equals-not-mapping",
        lambda: FieldEquals([("a", 1)]),
        ValueError,
        "field_equals needs a non-empty mapping of path to value",
    ),
    err(
        "field-contains-empty",
        lambda: FieldContains("a", ""),
        ValueError,
        "field_contains text must not be empty",
    ),
    err(
        "path-not-text",
        lambda: AllMatch(3, "x"),
        TypeError,
        "expect_all_match path must be a string, got int 3",
    ),
    err(
        "path-empty",
        lambda: AllMatch("", "x"),
        ValueError,
        "expect_all_match path must not be empty",
    ),
    err(
        "one-of-empty",
        lambda: AllMatchOneOf("a[*]", []),
        ValueError,
        "all_match_one_of needs 'values': a non-empty list",
    ),
    err(
        "one-of-mapping",
        lambda: AllMatchOneOf("a[*]", {"a": 1}),
        ValueError,
        "all_match_one_of needs 'values': a non-empty list",
    ),
    err(
        "array-contains-both",
        lambda: ArrayContains("a", ["x"], pattern="y"),
        ValueError,
        "array_contains needs exactly one of 'values' (a list) or 'pattern' (a regex)",
    ),
    err(
        "array-contains-neither",
        lambda: ArrayContains("a"),
        ValueError,
        "array_contains needs exactly one of 'values' (a list) or 'pattern' (a regex)",
    ),
    err(
        "array-contains-empty",
        lambda: ArrayContains("a", []),
        ValueError,
        "array_contains 'values' must be a non-empty list",
    ),
    err(
        "array-contains-mapping",
        lambda: ArrayContains("a", {"x": 1}),
        ValueError,
        "array_contains 'values' must be a non-empty list",
    ),
    err(
        "tags-empty",
        lambda: AllHaveTags([]),
        ValueError,
        "expect_all_have_tags needs at least one value, got an empty list",
    ),
    err(
        "tags-not-text",
        lambda: NoneHaveTags(["a", 1]),
        TypeError,
        "expect_none_have_tags values must be a string, got int 1",
    ),
    err(
        "dates-bad-start",
        lambda: AllDatesBetween("d", "soon", "2026-01-01"),
        ValueError,
        "all_dates_between start 'soon' is not a date",
    ),
    err(
        "dates-bad-end",
        lambda: AllDatesBetween("d", "2026-01-01", "later"),
        ValueError,
        "all_dates_between end 'later' is not a date",
    ),
    err(
        "dates-reversed",
        lambda: AllDatesBetween("d", "2026-01-02", "2026-01-01"),
        ValueError,
        "all_dates_between end '2026-01-01' is before start '2026-01-02'",
    ),
    err(
        "within-negative",
        lambda: DatesWithinDays("d", -1),
        ValueError,
        "dates_within_days days must be a non-negative number, got -1",
    ),
    err(
        "within-not-number",
        lambda: DatesWithinDays("d", "7"),
        TypeError,
        "dates_within_days days must be a number, got str '7'",
    ),
    err(
        "within-bool",
        lambda: DatesWithinDays("d", True),
        TypeError,
        "dates_within_days days must be a number, got bool True",
    ),
    err(
        "within-nan",
        lambda: DatesWithinDays("d", float("nan")),
        TypeError,
        "dates_within_days days must be a number, got float nan",
    ),
    err(
        "within-none",
        lambda: DatesWithinDays("d", None),
        ValueError,
        "dates_within_days days must be a non-negative number, got None",
    ),
    err(
        "within-clock",
        lambda: DatesWithinDays("d", 1, clock=3),
        TypeError,
        "clock must be a callable returning an aware datetime",
    ),
    err(
        "year-zero",
        lambda: AllDatesInYear("d", 0),
        ValueError,
        "all_dates_in_year year must be at least 1, got 0",
    ),
    err(
        "year-text",
        lambda: AllDatesInYear("d", "2026"),
        TypeError,
        "all_dates_in_year year must be an integer, got str '2026'",
    ),
    err(
        "range-neither",
        lambda: AllInRange("v"),
        ValueError,
        "expect_all_in_range needs 'min', 'max' or both",
    ),
    err(
        "range-reversed",
        lambda: InRange("v", 2, 1),
        ValueError,
        "expect_range_check min (2) is larger than max (1)",
    ),
    err(
        "range-not-number",
        lambda: AllInRange("v", "0", 1),
        TypeError,
        "expect_all_in_range min must be a number, got str '0'",
    ),
    err(
        "range-max-not-number",
        lambda: AllInRange("v", 0, "1"),
        TypeError,
        "expect_all_in_range max must be a number, got str '1'",
    ),
    err(
        "schema-empty",
        lambda: ResultsMatchSchema({}),
        ValueError,
        "results_schema needs a non-empty mapping of field to type",
    ),
    err(
        "schema-not-mapping",
        lambda: ResultsMatchSchema(["a"]),
        ValueError,
        "results_schema needs a non-empty mapping of field to type",
    ),
    err(
        "schema-unknown-type",
        lambda: ResultsMatchSchema({"a": "text"}),
        ValueError,
        "results_schema field 'a': unknown type 'text'; use one of string, number, integer, boolean, object, array, null",  # noqa: E501
    ),
    err(
        "schema-unknown-key",
        lambda: ResultsMatchSchema({"a": {"type": "string", "size": 1, "len": 2}}),
        ValueError,
        "results_schema field 'a': unknown keys ['len', 'size']; use type, min and max",
    ),
    err(
        "schema-bad-min",
        lambda: ResultsMatchSchema({"a": {"type": "number", "min": "0"}}),
        TypeError,
        "results_schema a min must be a number, got str '0'",
    ),
    err(
        "schema-bad-max",
        lambda: ResultsMatchSchema({"a": {"type": "number", "max": "1"}}),
        TypeError,
        "results_schema a max must be a number, got str '1'",
    ),
    err(
        "schema-no-type",
        lambda: ResultsMatchSchema({"a": {"min": 1}}),
        ValueError,
        "results_schema field 'a': unknown type None; use one of string, number, integer, boolean, object, array, null",  # noqa: E501
    ),
    err("oneof-none", lambda: OneOf(), ValueError, "one_of needs at least one branch"),
    err(
        "if-results-not-assertion",
        lambda: IfResults("x"),
        TypeError,
        "IfResults takes an assertion, got str",
    ),
    err(
        "ifs-neither",
        lambda: IfSensitiveResults(),
        ValueError,
        "if_sensitive_results needs either inner assertions or 'has_field' (with an optional 'value')",  # noqa: E501
    ),
    err(
        "ifs-both",
        lambda: IfSensitiveResults(StatusIs("a"), has_field="x"),
        ValueError,
        "if_sensitive_results needs either inner assertions or 'has_field' (with an optional 'value')",  # noqa: E501
    ),
    err(
        "ifs-not-assertion",
        lambda: IfSensitiveResults("x"),
        TypeError,
        "IfSensitiveResults takes an assertion, got str",
    ),
    err(
        "ifs-child-value",
        lambda: IfSensitiveResults(StatusIs("a"), value=1),
        ValueError,
        "if_sensitive_results 'value' goes with 'has_field'",
    ),
    err(
        "ifs-empty-prefixes",
        lambda: IfSensitiveResults(has_field="x", sensitive_prefixes=[]),
        ValueError,
        "sensitive_prefixes needs at least one value, got an empty list",
    ),
    err(
        "ifs-prefix-not-text",
        lambda: IfSensitiveResults(has_field="x", sensitive_prefixes=["a/", 3]),
        TypeError,
        "sensitive_prefixes values must be a string, got int 3",
    ),
    err(
        "ifs-field-empty",
        lambda: IfSensitiveResults(has_field=""),
        ValueError,
        "has_field must not be empty",
    ),
    err(
        "ifs-field-not-text",
        lambda: IfSensitiveResults(has_field=3),
        TypeError,
        "has_field must be a string, got int 3",
    ),
    err(
        "array-contains-bad-regex",
        lambda: ArrayContains("a", pattern="("),
        ValueError,
        "invalid regular expression '(': missing closing ) at position 0; add ')' or escape '(' as \\(",  # noqa: E501
    ),
    err(
        "array-contains-empty-regex",
        lambda: ArrayContains("a", pattern=""),
        ValueError,
        "expect_array_contains pattern must not be empty",
    ),
    err(
        "array-contains-regex-not-text",
        lambda: ArrayContains("a", pattern=3),
        TypeError,
        "expect_array_contains pattern must be a string, got int",
    ),
    err(
        "pattern-empty-regex",
        lambda: AllMatchPattern("a", ""),
        ValueError,
        "expect_all_match_pattern pattern must not be empty",
    ),
    err(
        "pattern-regex-not-text",
        lambda: NoneMatchPattern("a", ["x"]),
        TypeError,
        "expect_none_match_pattern pattern must be a string, got list",
    ),
    err(
        "pattern-bad-regex",
        lambda: NoneMatchPattern("a", "["),
        ValueError,
        "invalid regular expression '[': missing closing ] at position 0; add ']' or escape '[' as \\[ to match it",  # noqa: E501
    ),
]


@pytest.mark.parametrize(("build", "kind", "message"), ERRORS)
def test_a_bad_parameter_is_rejected_when_the_check_is_built(
    build: Callable[[], Any], kind: type[Exception], message: str
) -> None:
    """docs/expect.md, Files: bad values say what was expected and what was found."""
    with pytest.raises(kind) as caught:
        build()
    assert str(caught.value) == message


DESCRIPTIONS = [
    (
        lambda: IfResults(AllOf(StatusIs("ok"), ResultsMin(1))),
        "if there are results: status is 'ok' and at least 1 result",
    ),
    (
        lambda: IfHasHistory(AllMatch("history_results[*].op", "delete")),
        "if there is history: every history_results[*].op is 'delete'",
    ),
    (
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        "every sensitive result's sensitive is true",
    ),
    (
        lambda: IfSensitiveResults(has_field="sensitive"),
        "every sensitive result's sensitive exists",
    ),
    (lambda: IfSensitiveResults(StatusIs("ok")), "if some result is sensitive: status is 'ok'"),
    (
        lambda: OneOf(StatusIs("error"), AllOf(JsonContains("filter"), ResultsMax(0))),
        "(status is 'error') or (response contains 'filter' and at most 0 results)",
    ),
    (lambda: AllHaveTags(["work", "security"]), "every result has tags 'work', 'security'"),
    (lambda: NoneHaveTags(["draft", "old"]), "no result has tags 'draft', 'old'"),
    (
        lambda: EachHasAnyTag(["work", "personal"]),
        "every result has one of the tags 'work', 'personal'",
    ),
    (
        lambda: ResultsMatchSchema({"file": "string", "rel": {"type": "number", "min": 0}}),
        'every result matches {"file": "string", "rel": {"type": "number", "min": 0}}',
    ),
    (lambda: HasFields(["a", "b.c"]), "has fields a, b.c"),
    (lambda: FieldEquals({"a": 0, "b": "x"}), "a is 0, b is 'x'"),
    (lambda: FieldContains("summary", "Sec"), "summary contains 'Sec'"),
    (lambda: MessageContains("done"), "message contains 'done'"),
    (lambda: SummaryContains("found"), "summary contains 'found'"),
    (lambda: JsonContains("x"), "response contains 'x'"),
    (lambda: AllMatch("r[*].t", "note"), "every r[*].t is 'note'"),
    (lambda: AllMatchOneOf("r[*].t", ["note", 1]), "every r[*].t is one of 'note', 1"),
    (lambda: AllMatchPattern("r[*].f", "^a"), "every r[*].f matches /^a/"),
    (lambda: NoneMatchPattern("r[*].f", "^a"), "no r[*].f matches /^a/"),
    (
        lambda: ArrayContains("dirs", ["people/", "documents/"]),
        "dirs contains 'people/', 'documents/'",
    ),
    (lambda: ArrayContains("dirs", pattern="^peo"), "dirs has an item matching /^peo/"),
    (
        lambda: AllDatesBetween("d", "2026-01-01", "2026-01-31"),
        "every d is between 2026-01-01 and 2026-01-31",
    ),
    (lambda: DatesWithinDays("d", 1.5), "every d is within 1.5 days of now"),
    (lambda: AllDatesInYear("d", 2026), "every d is in 2026"),
    (lambda: AllInRange("v", 0, 1.5), "v in 0-1.5"),
    (lambda: InRange("v", max=5), "v in -inf-5"),
    (lambda: SortedDesc("r[*].v"), "r[*].v sorted descending"),
    (lambda: ResultsMin(1), "at least 1 result"),
    (lambda: ResultsCount(2), "exactly 2 results"),
    (lambda: StatusIs("ok"), "status is 'ok'"),
    (lambda: ErrorCodeIs("E"), "error_code is 'E'"),
]


@pytest.mark.parametrize(("build", "words"), DESCRIPTIONS)
def test_a_check_describes_its_requirement(build: Callable[[], Assertion], words: str) -> None:
    """docs/expect.md: a pass says what held, and `one_of` and the conditional checks spell
    out their branches with these words (`Neither status is 'error' nor ...`)."""
    assert build().describe() == words


def test_a_time_written_in_the_end_bound_is_kept() -> None:
    """docs/expect.md, Keys: only an `end` written without a time means the end of that day."""
    check = AllDatesBetween("d", "2026-01-01", "2026-01-31T12:00:00Z")
    assert check.check({"d": "2026-01-31T12:00:00Z"}).passed
    late = check.check({"d": "2026-01-31T12:00:01Z"})
    assert (late.status, late.reason) == (
        F,
        "Date 2026-01-31 at d is outside range 2026-01-01 to 2026-01-31",
    )


def fixed_clock() -> dt.datetime:
    """A picklable injected clock, ten days before NOW."""
    return NOW - dt.timedelta(days=10)


def test_an_unpickled_check_keeps_its_settings_and_its_quick_test() -> None:
    """JsonCheck: the quick test is compiled again on first use after unpickling, and an
    injected clock survives the copy (DatesWithinDays docstring: the clock is injectable)."""
    doc = {"r": [{"v": 1.0}, {"v": 1}]}
    match = pickle.loads(pickle.dumps(AllMatch("r[*].v", 1)))
    passed = match.check(doc)
    assert _record(passed) == (
        P,
        "every r[*].v is 1",
        {"path": "r[*].v", "expected": 1, "checked": 2},
    )
    assert match._quick_test()(doc) is passed
    assert match.check({"r": [{"v": True}]}).reason == "Found non-matching item: true at r[0].v"
    nothing = pickle.loads(pickle.dumps(AllMatch("r[*].v", None)))
    assert nothing.check({"r": [{"v": None}]}).passed
    assert not nothing.check({"r": [{"v": 0}]}).passed

    within = pickle.loads(pickle.dumps(DatesWithinDays("d", 1, clock=fixed_clock)))
    assert within.check({"d": "2026-01-10T12:00:00Z"}).passed
    assert within.check({"d": NOW.isoformat()}).reason == (
        "Date 2026-01-20 at d is 10 days from 2026-01-10 (more than 1)"
    )


def test_the_default_clock_is_utc_whatever_the_local_time_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/expect.md, Options: without `clock=`, `dates_within_days` reads the system clock,
    and dates compare as instants (naive means UTC)."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # nine hours east of UTC, no daylight saving
    time.tzset()
    try:
        now = dt.datetime.now(dt.UTC)
        check = DatesWithinDays("d", 0.1)  # 2.4 hours either side
        assert check.check({"d": now.isoformat()}).passed
        assert check.check({"d": now.replace(tzinfo=None).isoformat()}).passed
        unpickled = pickle.loads(pickle.dumps(check))
        assert unpickled.check({"d": now.isoformat()}).passed
        # 20:00 UTC is 05:00 the next day in Tokyo: the clock's day is its UTC day
        late = dt.datetime(2026, 1, 20, 20, 0)
        naive = DatesWithinDays("d", 0.1, clock=lambda: late)
        assert naive.check({"d": "2026-01-20T20:00:00Z"}).passed
        aware = DatesWithinDays("d", 0.1, clock=lambda: late.replace(tzinfo=dt.UTC))
        assert aware.check({"d": "2026-01-10T20:00:00Z"}).reason == (
            "Date 2026-01-10 at d is 10 days from 2026-01-20 (more than 0.1)"
        )
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    "subject", [{"status": "ok"}, {"results": None}, {"results": "x"}, [{"file": "a"}]]
)
def test_tags_and_schema_pass_with_nothing_checked_without_a_results_array(subject: Any) -> None:
    """docs/expect.md, Keys (decided): like `all_*`, the tag keys and `results_schema` pass
    with `checked: 0` when there is no `results` array; `if_results` is there to require one."""
    for check in (
        AllHaveTags(["work"]),
        NoneHaveTags(["draft"]),
        EachHasAnyTag(["work"]),
        ResultsMatchSchema({"file": "string"}),
    ):
        result = check.check(subject)
        assert (result.status, result.details["checked"]) == (P, 0)
    assert IfResults(ResultsMatchSchema({"file": "string"})).check(subject).status is S


def test_json_equal_compares_mappings_and_sequences_of_any_kind_but_never_a_string() -> None:
    """`json_equal` docstring: strict JSON equality, recursive; a tuple is an array, any
    mapping an object, and a string is never an array of its characters."""
    assert json_equal(OrderedDict(a=1), {"a": 1.0})
    assert not json_equal(OrderedDict(a=1), {"a": 2})
    assert json_equal([1, [2]], (1.0, (2,)))
    assert not json_equal((1, 2), [2, 1])
    assert not json_equal(["a", "b"], "ab")
    assert not json_equal("ab", ("a", "b"))
    assert not json_equal(1, "1")
    assert not json_equal(1.0, None)


def test_parse_date_reads_a_string_subclass_as_its_text() -> None:
    """`parse_date` docstring: an ISO 8601 date is parsed; anything that is not text is None."""

    class Text(str):
        __slots__ = ()

    assert parse_date(Text("2026-01-31"), end_of_day=True) == dt.datetime(
        2026, 1, 31, 23, 59, 59, 999999, tzinfo=dt.UTC
    )
    assert parse_date(20260131) is None


def test_a_pass_left_to_the_full_evaluation_is_shared_as_well() -> None:
    """`JsonCheck._passed`: a pass is built once per count, then shared (see `Result.shared`)."""
    check = FieldEquals({"total": 3.0})  # 3 for 3.0: the quick test leaves it to `_eval`
    first = check.check({"total": 3})
    assert first.passed
    assert check.check({"total": 3}) is first


def test_parse_date_gives_utc_whatever_the_local_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """`parse_date` docstring: a date is parsed "as aware UTC", whatever the local time zone."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # nine hours east of UTC
    time.tzset()
    try:
        parsed = parse_date("2026-01-15T10:00:00+02:00")
        assert parsed is not None
        assert (parsed.isoformat(), parsed.tzinfo) == ("2026-01-15T08:00:00+00:00", dt.UTC)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_partial_date_is_not_a_date_whatever_the_day_today(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/expect.md, Dates: a partial date (`2026-01`) fails; "nothing is filled in from
    today's date", so the answer does not depend on the day the check runs."""
    import types

    from dateutil.parser import _parser

    class SecondOfMarch(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> SecondOfMarch:
            return cls(2026, 3, 2, 12, 0, tzinfo=tz)

    clock = types.ModuleType("datetime")
    clock.__dict__.update(vars(dt))
    clock.datetime = SecondOfMarch  # type: ignore[attr-defined]
    monkeypatch.setattr(_parser, "datetime", clock)
    assert _parser.parser().parse("March").day == 2  # dateutil's own default is today
    for partial in ("January 2026", "2026 January", "Jan 2026"):
        assert parse_date(partial) is None, partial
    assert parse_date("January 2 2026") == dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
