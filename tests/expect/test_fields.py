"""Tests of chatassert._fields (docs/expect.md, "Keys" and "Details"): `HasFields`,
`FieldEquals`, `FieldContains`, `StatusIs`, `ErrorCodeIs`, `JsonContains`, `MessageContains` and
`SummaryContains`, each on its own.

The decision-table rows of these checks (whole records, built by `expect_decisions.row`; see
`expect_decisions` for what a row promises), their construction errors and their descriptions,
then their standalone tests. Checks combined with another family's are in test_json_shared.py.
"""

from __future__ import annotations

from expect_decisions import (
    CONTAINS_ITSELF,
    SEARCH,
    E,
    F,
    P,
    err,
    row,
    table_tests,
)

from chatassert import (
    FieldContains,
    FieldEquals,
    HasFields,
)
from chatassert.expect import (
    ErrorCodeIs,
    JsonContains,
    MessageContains,
    StatusIs,
    SummaryContains,
)

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
        "feq-tuple",
        lambda: FieldEquals({"a": (1, 2)}),
        {"a": [1, 2.0]},
        P,
        "a is [1, 2]",
        {"expected": {"a": (1, 2)}, "checked": 1},
    ),
]


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
]


DESCRIPTIONS = [
    (lambda: HasFields(["a", "b.c"]), "has fields a, b.c"),
    (lambda: FieldEquals({"a": 0, "b": "x"}), "a is 0, b is 'x'"),
    (lambda: FieldContains("summary", "Sec"), "summary contains 'Sec'"),
    (lambda: MessageContains("done"), "message contains 'done'"),
    (lambda: SummaryContains("found"), "summary contains 'found'"),
    (lambda: JsonContains("x"), "response contains 'x'"),
    (lambda: StatusIs("ok"), "status is 'ok'"),
    (lambda: ErrorCodeIs("E"), "error_code is 'E'"),
]


(
    test_a_check_decides_the_documented_record,
    test_a_bad_parameter_is_rejected_when_the_check_is_built,
    test_a_check_describes_its_requirement,
) = table_tests(ROWS, ERRORS, DESCRIPTIONS)


def test_status_is_exact_and_reports_a_missing_status() -> None:
    assert StatusIs("Success").check({"status": "success"}).status is F
    result = StatusIs("success").check({"results": []})
    assert result.reason == "Expected status 'success', but the response has no status"
    assert result.details["missing"] is True
    assert StatusIs(200).check({"status": 200.0}).passed
    assert StatusIs("success").check(["success"]).status is F


def test_error_code_falls_back_to_a_string_error() -> None:
    check = ErrorCodeIs("NO_FILTERS")
    assert check.check({"error_code": "NO_FILTERS"}).passed
    assert check.check({"error": "NO_FILTERS"}).passed
    assert check.check({"error": {"code": "NO_FILTERS"}}).status is F
    result = check.check({"error_code": "BAD_DATE", "error": "NO_FILTERS"})
    assert result.reason == "Expected error_code 'NO_FILTERS', got 'BAD_DATE'"


def test_contains_searches_the_serialised_response_ignoring_case() -> None:
    assert JsonContains("SECURITY").check(SEARCH).passed
    assert JsonContains("people/alice").check(SEARCH).passed
    assert not JsonContains("SECURITY", case_sensitive=True).check(SEARCH).passed
    assert JsonContains("filter").check({"m": "x"}).reason == (
        "Expected the response to contain 'filter'"
    )


def test_message_and_summary_contains() -> None:
    assert MessageContains("FINISHED").check(SEARCH).passed
    assert SummaryContains("security notes").check(SEARCH).passed
    result = SummaryContains("no results").check(SEARCH)
    assert result.reason == "Expected summary to contain 'no results', got 'Found 3 Security notes'"
    assert MessageContains("x").check({"status": "ok"}).reason == "Missing field: message"
    assert MessageContains("3").check({"message": 3}).status is F


def test_has_fields_counts_null_as_present() -> None:
    assert HasFields(["pagination.next", "results[2].sensitive"]).check(SEARCH).passed
    result = HasFields(["pagination.prev", "meta.x"]).check(SEARCH)
    assert result.reason == "Missing fields: pagination.prev, meta.x"
    assert result.details["missing"] == ["pagination.prev", "meta.x"]


def test_field_equals_is_strict_json_equality() -> None:
    assert FieldEquals({"pagination.total": 3.0}).check(SEARCH).passed
    result = FieldEquals({"pagination.total": "3"}).check(SEARCH)
    assert result.reason == "pagination.total: expected '3', got 3"
    assert FieldEquals({"results[2].sensitive": 1}).check(SEARCH).status is F
    assert FieldEquals({"pagination.next": None}).check(SEARCH).passed
    missing = FieldEquals({"pagination.limit": 10}).check(SEARCH)
    assert missing.reason == "Missing field: pagination.limit"


def test_field_equals_reports_every_offender() -> None:
    result = FieldEquals({"status": "error", "pagination.offset": 5}).check(SEARCH)
    assert result.reason == "status: expected 'error', got 'success' (and 1 more)"
    assert [o["path"] for o in result.details["offending"]] == ["status", "pagination.offset"]


def test_field_contains() -> None:
    assert FieldContains("summary", "security").check(SEARCH).passed
    assert not FieldContains("summary", "security", case_sensitive=True).check(SEARCH).passed
    assert FieldContains("results[0].metadata.tags", "SEC").check(SEARCH).passed
    result = FieldContains("results[*].file", "journal").check(SEARCH)
    assert result.reason == "results[2].file: expected to contain 'journal', got 'people/alice.md'"
    assert FieldContains("nothing", "x").check(SEARCH).reason == "Missing field: nothing"


def test_contains_reads_json_text_as_the_value_it_encodes() -> None:
    check = JsonContains("café")
    assert check.check('{"s": "caf\\u00e9"}').passed
    assert check.check({"s": "café"}).passed
    assert JsonContains('"a": 1').check('{"a":1}').passed


def test_a_field_pass_on_json_text_is_the_shared_pass_with_the_checks_message() -> None:
    """`JsonCheck._passed` (built once, then shared) and `_FieldIs._eval` ("the plain pass: the
    quick test's own rule"): text goes to the full evaluation, which answers with the very
    record the quick test gives a dict, message included."""
    check = StatusIs("ok", message="custom")
    first = check.check('{"status": "ok"}')
    assert first.__dict__ == {
        "status": P,
        "name": "expect_status",
        "reason": "status is 'ok'",
        "details": {"path": "status", "expected": "ok", "actual": "ok"},
        "message": "custom",
        "_shared": True,
    }
    assert check.check('{"status": "ok"}') is first
    assert check.check({"status": "ok"}) is first
