"""Loading expect documents: the accepted shapes, detection, options and spec errors."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from chatassert import AllOf, FieldEquals, HasFields, SpecError, Status, from_spec
from chatassert.expect import IfResults, JsonContains, OneOf, StatusIs
from chatassert.specs import detect_dialect, load_suite, loads_suite

DATA = Path(__file__).parent / "data"
EXAMPLES = Path(__file__).parents[2] / "examples"


def test_a_list_of_test_cases() -> None:
    suite = load_suite(DATA / "tests_list.json")
    assert suite.dialect == "expect"
    assert [c.name for c in suite.cases] == ["t1: finds notes", "t2"]
    first = suite.cases[0]
    assert first.subject == "json"
    assert first.id == "t1"
    assert first.input == {"search_text": "security"}
    assert first.checks == (
        StatusIs("success"),
        from_spec({"type": "expect_results_min", "value": 1}),
    )
    assert suite.find("t2") is suite.cases[1]
    assert isinstance(suite.cases[1].checks[0], OneOf)


def test_a_bare_expect_object_with_aliases_and_forms() -> None:
    suite = load_suite(DATA / "bare.expect.yaml")
    (case,) = suite.cases
    assert case.name == "bare"
    assert case.checks == (
        StatusIs("success"),
        HasFields(["pagination.total"]),
        FieldEquals({"pagination.offset": 0}),
        JsonContains("Security", case_sensitive=True),
    )


def test_the_suite_form_keeps_suite_names_and_priorities() -> None:
    suite = load_suite(EXAMPLES / "search.expect.json")
    assert suite.name == "note-search"
    assert len(suite.cases) == 6
    case = suite.find("filter-001")
    assert case is not None
    assert case.metadata == {"suite": "Tag and date filters", "priority": "medium"}
    assert {c.metadata["suite"] for c in suite.cases} == {"Basic search", "Tag and date filters"}


def test_detection() -> None:
    assert detect_dialect({"status": "success"}).name == "expect"
    assert detect_dialect({"statsu": "success", "results_min": 1}).name == "expect"
    assert detect_dialect([{"id": 1, "expect": {"status": "ok"}}]).name == "expect"
    assert detect_dialect({"test_suites": {}}).name == "expect"
    assert detect_dialect({"type": "contains", "value": "x"}).name != "expect"
    assert detect_dialect({"turns": []}).name != "expect"


def test_nested_objects_are_ands_of_their_keys() -> None:
    suite = loads_suite(
        json.dumps(
            {
                "if_results": {"status": "success", "results_max": 3},
                "one_of": [{"status": "error"}, {"status": "success", "contains": "filter"}],
            }
        )
    )
    if_results, one_of = suite.cases[0].checks
    assert isinstance(if_results, IfResults)
    assert isinstance(if_results.child, AllOf)
    assert isinstance(one_of, OneOf)
    assert isinstance(one_of.children[1], AllOf)
    # the native spec round-trips
    for check in (if_results, one_of):
        assert from_spec(check.as_spec()) == check


def test_every_problem_of_a_file_is_reported_with_lines_and_hints() -> None:
    with pytest.raises(SpecError) as info:
        load_suite(DATA / "broken.expect.yaml")
    text = str(info.value)
    assert "broken.expect.yaml:10: test_suites.basic.tests[0].expect.results_minimum" in text
    assert "did you mean 'results_min'" in text
    assert "'valeu' for expect type 'all_match' (did you mean 'value'?)" in text
    assert "invalid regular expression '(unclosed'" in text
    assert "'max_latency_ms' needs timing or usage data" in text
    assert "use range_check on that field" in text
    assert "'one_of' must be a non-empty list" in text
    assert "unknown key 'nmae' in a test case (did you mean 'name'?)" in text
    assert "an empty one would pass vacuously" in text
    assert len(info.value.problems) == 8


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ({"results_min": "one"}, "wrong type"),
        ({"results_min": -1}, "at least 0"),
        ({"has_fields": []}, "non-empty"),
        ({"all_match": "results[*].type"}, "must be a mapping"),
        ({"all_match": {"path": "results[*].type"}}, "needs the parameter 'value'"),
        ({"all_in_range": {"path": "x"}}, "needs 'min', 'max' or both"),
        ({"all_dates_between": {"path": "x", "start": "soon", "end": "2026-01-01"}}, "not a date"),
        ({"array_contains": {"path": "x", "values": ["a"], "pattern": "b"}}, "exactly one"),
        ({"results_schema": {"file": "text"}}, "unknown type"),
        ({"if_results": {}}, "non-empty expect object"),
        ({"tools_called": ["search"]}, "tool calls"),
        ({"llm_rubric": "is polite"}, "judge"),
        ({"sorted_desc": {"path": "a..b"}}, "cannot read the path"),
    ],
)
def test_bad_values_are_spec_errors(expect: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        loads_suite(json.dumps([{"id": "x", "expect": expect}]))


def test_options_reach_the_types_that_declare_them() -> None:
    now = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)
    suite = load_suite(
        DATA / "sensitive.expect.yaml", sensitive_prefixes=["private/"], clock=lambda: now
    )
    s1, s2 = suite.cases
    response = {"results": [{"file": "private/a.md", "date": "2026-01-08"}]}
    assert s1.check(response).children[0].reason == "Missing field: results[0].sensitive"
    assert s2.check(response).status is Status.PASSED
    default = load_suite(DATA / "sensitive.expect.yaml")
    assert default.cases[0].check(response).children[0].status is Status.SKIPPED


def test_a_case_checks_a_turn_or_text_as_well_as_a_mapping() -> None:
    from chatassert import Turn

    suite = loads_suite('{"status": "success"}')
    (case,) = suite.cases
    assert case.check('{"status": "success"}').passed
    assert case.check(Turn(text="", data={"status": "success"})).passed
    assert case.check("not json").status is Status.ERROR


def test_numbers_with_an_exponent_are_numbers_as_in_json() -> None:
    (case,) = loads_suite('{"field_equals": {"x": 1e3}, "all_in_range": '
                          '{"path": "r[*]", "max": 2.5E-1}}').cases  # fmt: skip
    equals, in_range = case.checks
    assert equals.check({"x": 1000}).passed
    assert not equals.check({"x": "1e3"}).passed
    assert in_range.check({"r": [0.1]}).passed
    assert not in_range.check({"r": [0.3]}).passed


def test_expect_keys_are_normalised_like_type_names() -> None:
    (case,) = loads_suite('{"Results-Min": 1, "Status": "success"}', dialect="expect").cases
    assert [c.kind for c in case.checks] == ["expect_results_min", "expect_status"]


def test_one_allowed_value_may_be_given_without_a_list() -> None:
    (case,) = loads_suite(
        '{"all_match_one_of": {"path": "results[*].type", "values": "note"}}'
    ).cases
    (check,) = case.checks
    assert check.check({"results": [{"type": "note"}]}).passed
    assert not check.check({"results": [{"type": "task"}]}).passed


@pytest.mark.parametrize(
    "expect",
    [
        {"dates_within_days": {"path": "r[*].d", "days": 10**12}},
        {"all_in_range": {"path": "r[*].x", "max": 10**400}},
    ],
)
def test_numbers_too_large_to_use_are_spec_errors(expect: dict[str, object]) -> None:
    with pytest.raises(SpecError):
        loads_suite(json.dumps(expect), dialect="expect")


def test_a_misspelt_expect_object_gets_expect_errors_not_flat_ones() -> None:
    with pytest.raises(SpecError) as info:
        loads_suite('{"statsu": "success"}')
    (problem,) = info.value.problems
    assert problem.message == "unknown expect key 'statsu'"
    assert problem.hint == "did you mean 'status'?"


def test_a_test_list_with_a_case_missing_its_expect_says_so() -> None:
    with pytest.raises(SpecError) as info:
        loads_suite('[{"id": "a", "expect": {"status": "x"}}, {"id": "b"}]')
    (problem,) = info.value.problems
    assert "test case 'b' has no 'expect'" in problem.message
