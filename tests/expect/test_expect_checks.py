"""Each expect check on its own: passes, failures, details, errors and the decided semantics."""

from __future__ import annotations

import datetime as dt
import pickle
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import (
    AllDatesBetween,
    AllMatch,
    AllMatchPattern,
    FieldContains,
    FieldEquals,
    HasFields,
    InRange,
    SortedDesc,
    Status,
    Turn,
)
from chatassert._dates import parse_date
from chatassert._jsonbase import MAX_OFFENDING, all_equal_to, json_equal
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

SEARCH = {
    "status": "success",
    "message": "Search finished",
    "summary": "Found 3 Security notes",
    "results": [
        {
            "file": "journal/2026/01/incident.md",
            "type": "note",
            "relevance": 0.97,
            "metadata": {"tags": ["work", "security"], "created": "2026-01-12T09:30:00Z"},
        },
        {
            "file": "journal/2026/01/review.md",
            "type": "note",
            "relevance": 0.81,
            "metadata": {"tags": ["work"], "created": "2026-01-20"},
        },
        {
            "file": "people/alice.md",
            "type": "person",
            "relevance": 0.5,
            "sensitive": True,
            "metadata": {"created": "2026-01-31T23:30:00"},
        },
    ],
    "pagination": {"total": 3, "offset": 0, "next": None},
    "sensitive_dirs_skipped": ["documents/"],
}


# -- subjects --------------------------------------------------------------------------------


def test_a_turn_gives_its_data_else_its_text_parsed() -> None:
    assert StatusIs("success").check(Turn(text="ignored", data={"status": "success"})).passed
    assert StatusIs("success").check(Turn(text='{"status": "success"}')).passed
    assert StatusIs("success").check('{"status": "success"}').passed


def test_a_subject_that_is_not_json_is_an_error() -> None:
    for check in (
        StatusIs("success"),
        JsonContains("x"),
        AllMatch("a[*]", 1),
        IfResults(StatusIs("success")),
    ):
        result = check.check(Turn(text="Sorry, I cannot help"))
        assert result.status is E
        assert "not JSON" in result.reason
        assert result.details["error"] == "not_json"


# -- status, error_code, content ---------------------------------------------------------------


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


# -- counts ------------------------------------------------------------------------------------


def test_result_counts() -> None:
    assert ResultsMin(3).check(SEARCH).passed
    assert ResultsMax(3).check(SEARCH).passed
    assert ResultsCount(3).check(SEARCH).passed
    assert ResultsMax(2).check(SEARCH).reason == "Expected at most 2 results, got 3"
    assert ResultsCount(1).check(SEARCH).reason == "Expected exactly 1 result, got 3"
    missing = ResultsMin(0).check({"status": "success"})
    assert missing.status is F
    assert missing.reason == "Expected at least 0 results, got no 'results' field"
    assert ResultsMin(1).check({"results": "many"}).status is F


def test_counts_reject_negative_numbers() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        ResultsMin(-1)


# -- fields ------------------------------------------------------------------------------------


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


def test_json_equal() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(0, "0")
    assert not json_equal(True, 1)
    assert not json_equal(False, 0)
    assert json_equal([1, {"a": None}], [1.0, {"a": None}])
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


def test_field_contains() -> None:
    assert FieldContains("summary", "security").check(SEARCH).passed
    assert not FieldContains("summary", "security", case_sensitive=True).check(SEARCH).passed
    assert FieldContains("results[0].metadata.tags", "SEC").check(SEARCH).passed
    result = FieldContains("results[*].file", "journal").check(SEARCH)
    assert result.reason == "results[2].file: expected to contain 'journal', got 'people/alice.md'"
    assert FieldContains("nothing", "x").check(SEARCH).reason == "Missing field: nothing"


# -- arrays ------------------------------------------------------------------------------------


def test_all_match_details() -> None:
    result = AllMatch("results[*].type", "note").check(SEARCH)
    assert result.reason == "Found non-matching item: 'person' at results[2].type"
    assert result.details["path"] == "results[2].type"
    assert result.details["index"] == 2
    assert result.details["actual"] == "person"
    assert result.details["expected"] == "note"
    assert result.details["checked"] == 3
    assert result.details["offending"] == [
        {"path": "results[2].type", "actual": "person", "index": 2}
    ]


def test_vacuous_truth_over_zero_values_says_checked_zero() -> None:
    empty: dict[str, Any] = {"results": []}
    for check in (
        AllMatch("results[*].type", "note"),
        AllMatchOneOf("results[*].type", ["note"]),
        AllMatchPattern("results[*].file", "^journal/"),
        NoneMatchPattern("results[*].file", "^people/"),
        AllHaveTags(["work"]),
        NoneHaveTags(["draft"]),
        EachHasAnyTag(["work"]),
        AllDatesBetween("results[*].d", "2026-01-01", "2026-01-31"),
        AllInRange("results[*].relevance", 0, 1),
        SortedDesc("results[*].relevance"),
        ResultsMatchSchema({"file": "string"}),
    ):
        for subject in (empty, {}, {"results": None}):
            result = check.check(subject)
            assert result.status is P, (check, subject)
            assert result.details["checked"] == 0


def test_a_path_without_a_wildcard_must_exist() -> None:
    assert AllMatch("status", "success").check(SEARCH).passed
    assert AllMatch("state", "success").check(SEARCH).reason == "Missing field: state"
    assert SortedDesc("scores").check({}).reason == "Missing field: scores"


def test_offenders_are_capped() -> None:
    response = {"results": [{"type": "log"} for _ in range(50)]}
    result = AllMatch("results[*].type", "note").check(response)
    assert len(result.details["offending"]) == MAX_OFFENDING
    assert result.details["offending_count"] == 50
    assert result.reason.endswith("(and 49 more)")


def test_all_match_one_of() -> None:
    assert AllMatchOneOf("results[*].type", ["note", "person"]).check(SEARCH).passed
    result = AllMatchOneOf("results[*].type", ["note"]).check(SEARCH)
    assert result.reason == (
        "Found non-matching item: 'person' at results[2].type (expected one of 'note')"
    )
    with pytest.raises(ValueError, match="non-empty list"):
        AllMatchOneOf("results[*].type", [])


def test_patterns_on_files_and_other_fields() -> None:
    result = NoneMatchPattern("results[*].file", "^(people/|documents/)").check(SEARCH)
    assert result.reason == (
        "File 'people/alice.md' at results[2] matches excluded pattern '^(people/|documents/)'"
    )
    generic = AllMatchPattern("results[*].type", "^note$").check(SEARCH)
    assert generic.reason == "Value 'person' at results[2].type doesn't match pattern '^note$'"
    numbers = AllMatchPattern("results[*].relevance", r"^0\.\d+$").check(SEARCH)
    assert numbers.passed


def test_invalid_regex_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError):
        AllMatchPattern("results[*].file", "(unclosed")


def test_a_catastrophic_pattern_is_an_error() -> None:
    check = AllMatchPattern("results[*].text", "(a+)+$", regex_timeout=0.05)
    result = check.check({"results": [{"text": "a" * 5000 + "b"}]})
    assert result.status is E
    assert result.details["error"] == "timeout"


def test_array_contains_values_and_pattern() -> None:
    check = ArrayContains("sensitive_dirs_skipped", ["people/", "documents/"])
    result = check.check(SEARCH)
    assert result.reason == "sensitive_dirs_skipped does not contain 'people/'"
    assert result.details["missing"] == ["people/"]
    assert ArrayContains("sensitive_dirs_skipped", ["documents/"]).check(SEARCH).passed
    assert ArrayContains("results[*].type", ["person"]).check(SEARCH).passed
    assert ArrayContains("results[0].metadata.tags", pattern="^sec").check(SEARCH).passed
    miss = ArrayContains("results[0].metadata.tags", pattern="^draft").check(SEARCH)
    assert miss.reason == "No item of results[0].metadata.tags matches pattern '^draft'"
    assert ArrayContains("summary", ["x"]).check(SEARCH).status is F
    assert ArrayContains("absent", ["x"]).check(SEARCH).reason == "Missing field: absent"
    with pytest.raises(ValueError, match="exactly one"):
        ArrayContains("a", ["x"], pattern="y")
    with pytest.raises(ValueError, match="exactly one"):
        ArrayContains("a")


# -- tags --------------------------------------------------------------------------------------


def test_tags_missing_means_no_tags() -> None:
    assert AllHaveTags(["work"]).check(SEARCH).reason == "Result 2 missing required tag: 'work'"
    assert NoneHaveTags(["work"]).check(SEARCH).reason == (
        "Result 0 has excluded tag: 'work' (and 1 more)"
    )
    assert NoneHaveTags(["draft"]).check(SEARCH).passed
    result = EachHasAnyTag(["work", "personal"]).check(SEARCH)
    assert result.reason == "Result 2 has none of the tags: 'work', 'personal'"
    assert result.details["index"] == 2
    assert result.details["path"] == "results[2].metadata.tags"


def test_tags_that_are_not_a_list_are_an_error() -> None:
    result = AllHaveTags(["work"]).check({"results": [{"metadata": {"tags": 3}}]})
    assert result.status is E


# -- dates -------------------------------------------------------------------------------------


def test_parse_date_takes_naive_as_utc() -> None:
    assert parse_date("2026-01-31T23:30:00") == dt.datetime(2026, 1, 31, 23, 30, tzinfo=dt.UTC)
    assert parse_date("2026-01-31T23:30:00+02:00") == dt.datetime(
        2026, 1, 31, 21, 30, tzinfo=dt.UTC
    )
    assert parse_date("Jan 5 2026") == dt.datetime(2026, 1, 5, tzinfo=dt.UTC)
    assert parse_date("not a date") is None
    assert parse_date(20260101) is None


def test_a_date_only_end_is_the_whole_day() -> None:
    check = AllDatesBetween("results[*].metadata.created", "2026-01-01", "2026-01-31")
    assert check.check(SEARCH).passed  # 2026-01-31T23:30:00 (naive, UTC) is inside


def test_time_zones_are_compared_as_instants() -> None:
    check = AllDatesBetween("d[*]", "2026-01-01T00:00:00Z", "2026-01-31T23:59:59Z")
    assert check.check({"d": ["2026-02-01T00:30:00+01:00"]}).passed  # 23:30 UTC on Jan 31
    late = check.check({"d": ["2026-01-31T23:30:00-01:00"]})  # 00:30 UTC on Feb 1
    assert late.status is F
    assert late.reason == (  # the day as written, and the UTC day that decided it
        "Date 2026-01-31 (2026-02-01 in UTC) at d[0] is outside range 2026-01-01 to 2026-01-31"
    )


def test_a_value_that_is_not_a_date_fails() -> None:
    result = AllDatesBetween("d[*]", "2026-01-01", "2026-01-31").check({"d": ["soon", 3]})
    assert result.reason == "Value 'soon' at d[0] is not a date (and 1 more)"
    assert result.details["offending"][0]["not_a_date"] is True


def test_a_date_before_the_first_instant_in_utc_is_not_a_date_rather_than_an_error() -> None:
    check = AllDatesBetween("d[*]", "2026-01-01", "2026-01-31")
    result = check.check({"d": ["0001-01-01T00:30:00+01:00"]})
    assert result.status is Status.FAILED
    assert result.reason == "Value '0001-01-01T00:30:00+01:00' at d[0] is not a date"


def test_bad_ranges_are_rejected() -> None:
    with pytest.raises(ValueError, match="not a date"):
        AllDatesBetween("d", "yesterday-ish", "2026-01-01")
    with pytest.raises(ValueError, match="before start"):
        AllDatesBetween("d", "2026-02-01", "2026-01-01")


def test_dates_within_days_uses_the_injected_clock() -> None:
    now = dt.datetime(2026, 1, 31, 12, tzinfo=dt.UTC)
    check = DatesWithinDays("results[*].metadata.created", 30, clock=lambda: now)
    assert check.check(SEARCH).passed
    strict = DatesWithinDays("results[*].metadata.created", 5, clock=lambda: now)
    result = strict.check(SEARCH)
    assert result.reason == (
        "Date 2026-01-12 at results[0].metadata.created is 19.1 days from 2026-01-31 "
        "(more than 5) (and 1 more)"
    )
    naive_clock = DatesWithinDays("d[*]", 1, clock=lambda: dt.datetime(2026, 1, 1))
    assert naive_clock.check({"d": ["2026-01-01T20:00:00Z"]}).passed


def test_dates_within_days_defaults_to_the_system_clock_and_pickles() -> None:
    today = dt.datetime.now(dt.UTC).date().isoformat()
    check = DatesWithinDays("d[*]", 2)
    assert check.check({"d": [today]}).passed
    again = pickle.loads(pickle.dumps(check))
    assert again == check
    assert again.check({"d": [today]}).passed


def test_all_dates_in_year_uses_the_written_year() -> None:
    check = AllDatesInYear("d[*]", 2026)
    assert check.check({"d": ["2026-01-01T00:30:00+02:00", "2026-12-31"]}).passed
    assert check.check({"d": ["2025-12-31T23:00:00Z"]}).reason == (
        "Date 2025-12-31 at d[0] is not in 2026"
    )
    assert check.check({"d": ["March 3, 2026"]}).passed


# -- numbers -----------------------------------------------------------------------------------


def test_all_in_range_rejects_non_numbers() -> None:
    check = AllInRange("results[*].relevance", 0, 1)
    assert check.check(SEARCH).passed
    result = check.check({"results": [{"relevance": "0.5"}, {"relevance": True}]})
    assert result.reason == "Value '0.5' at results[0].relevance is not a number (and 1 more)"


def test_range_check_on_one_value() -> None:
    check = InRange("performance.search_duration_ms", 0, 5000)
    assert check.check({"performance": {"search_duration_ms": 5000}}).passed
    assert check.check({}).reason == "Missing field: performance.search_duration_ms"
    assert InRange("x", min=10).check({"x": 3}).reason == "Value 3 at x is outside range 10-inf"
    with pytest.raises(ValueError, match="min"):
        InRange("x")
    with pytest.raises(ValueError, match="larger than max"):
        InRange("x", 5, 1)


def test_sorted_desc_allows_ties_and_errors_on_mixed_values() -> None:
    assert SortedDesc("v[*]").check({"v": [3, 3, 2, 2.0, 1]}).passed
    assert SortedDesc("v[*]").check({"v": ["c", "b", "a"]}).passed
    mixed = SortedDesc("v[*]").check({"v": [3, "b"]})
    assert mixed.status is E
    assert SortedDesc("v[*]").check({"v": [3, None]}).status is E


# -- schema ------------------------------------------------------------------------------------


def test_results_schema() -> None:
    schema = {
        "file": "string",
        "relevance": {"type": "number", "min": 0, "max": 1},
        "metadata": "object",
        "type": {"type": "string", "min": 4},
    }
    assert ResultsMatchSchema(schema).check(SEARCH).passed
    bad = {
        "results": [
            {"file": "a", "relevance": 2, "metadata": {}, "type": "note"},
            {"relevance": 0.5, "metadata": [], "type": "n"},
        ]
    }
    result = ResultsMatchSchema(schema).check(bad)
    assert result.reason == "Result 0 field relevance: value 2 is outside range 0-1 (and 3 more)"
    assert [o["reason"] for o in result.details["offending"]] == [
        "Result 0 field relevance: value 2 is outside range 0-1",
        "Result 1 missing field: file",
        "Result 1 field metadata: expected object, got []",
        "Result 1 field type: length 1 is outside range 4-inf",
    ]
    with pytest.raises(ValueError, match="unknown type"):
        ResultsMatchSchema({"file": "text"})


# -- alternatives and conditions ---------------------------------------------------------------


def test_one_of_with_three_branches_and_errors() -> None:
    check = OneOf(StatusIs("error"), StatusIs("partial"), JsonContains("nothing here"))
    assert check.check(SEARCH).reason == (
        "None of: status is 'error'; status is 'partial'; response contains 'nothing here'"
    )
    errored = OneOf(StatusIs("error"), SortedDesc("v[*]")).check({"status": "ok", "v": [1, "a"]})
    assert errored.status is E


def test_if_has_history() -> None:
    check = IfHasHistory(AllMatch("history_results[*].operation", "delete"))
    assert check.check(SEARCH).status is S
    ok = {"history_results": [{"operation": "delete"}]}
    assert check.check(ok).passed
    bad = check.check({"history_results": [{"operation": "create"}]})
    assert bad.status is F
    assert bad.children[0].reason == (
        "Found non-matching item: 'create' at history_results[0].operation"
    )


def test_if_sensitive_results_field_form() -> None:
    check = IfSensitiveResults(has_field="sensitive", value=True)
    assert check.check(SEARCH).passed
    assert check.check({"results": [{"file": "journal/x.md"}]}).status is S
    missing = check.check({"results": [{"file": "documents/tax.pdf"}]})
    assert missing.reason == "Missing field: results[0].sensitive"
    presence = IfSensitiveResults(has_field="sensitive")
    assert presence.check({"results": [{"file": "people/a", "sensitive": False}]}).passed


def test_if_sensitive_results_with_inner_checks_and_own_prefixes() -> None:
    inner = IfSensitiveResults(ArrayContains("sensitive_dirs_skipped", ["people/"]))
    assert inner.check(SEARCH).status is F
    custom = IfSensitiveResults(has_field="sensitive", sensitive_prefixes=["journal/"])
    result = custom.check(SEARCH)
    assert result.reason == "Missing field: results[0].sensitive (and 1 more)"
    with pytest.raises(ValueError, match="either"):
        IfSensitiveResults()


@pytest.mark.parametrize("partial", ["Monday", "10:00", "1", "2026-01", "January"])
def test_a_partial_date_is_not_a_date(partial: str) -> None:
    # python-dateutil would fill the missing day, month or year from today's date
    check = AllDatesBetween("d[*]", "2000-01-01", "2100-12-31")
    result = check.check({"d": [partial]})
    assert result.status is Status.FAILED
    assert result.reason == f"Value '{partial}' at d[0] is not a date"


def test_an_end_written_without_a_time_means_the_end_of_that_day_in_any_format() -> None:
    for end in ("2026-01-31", "20260131", "Jan 31 2026", "31 January 2026"):
        check = AllDatesBetween("d[*]", "2026-01-01", end)
        assert check.check({"d": ["2026-01-31T23:30:00Z"]}).passed, end
    assert (
        not AllDatesBetween("d[*]", "2026-01-01", "Jan 31 2026 10:30")
        .check({"d": ["2026-01-31T23:30:00Z"]})
        .passed
    )


def test_contains_reads_json_text_as_the_value_it_encodes() -> None:
    check = JsonContains("café")
    assert check.check('{"s": "caf\\u00e9"}').passed
    assert check.check({"s": "café"}).passed
    assert JsonContains('"a": 1').check('{"a":1}').passed


def test_sorted_desc_names_the_item_index_when_items_have_no_value() -> None:
    result = SortedDesc("results[*].relevance").check(
        {"results": [{"relevance": 1}, {"other": 0}, {"relevance": 2}]}
    )
    assert result.details["index"] == 2
    assert result.reason.startswith("Values not sorted descending at index 2: results[2].relevance")


_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-3, 3), st.sampled_from(["", "a", "1"])
)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner),
    max_leaves=6,
)


@settings(max_examples=500, deadline=None)
@given(_JSON_VALUES, st.lists(_JSON_VALUES, max_size=4))
def test_all_equal_to_is_json_equal_over_every_value(expected: Any, values: list[Any]) -> None:
    # the quick tests' compiled form of strict JSON equality decides as `json_equal` does
    assert all_equal_to(expected)(values) == all(json_equal(v, expected) for v in values)
