"""Tests of the behaviour the expect checks share (chatassert._jsonbase, docs/expect.md):
what a subject is, strict JSON equality, the offender cap, the shared passing result and
pickling, and one check of each family over zero values.

Each family's own tests mirror its module: test_fields.py (chatassert._fields), test_each.py
(chatassert._each), test_dates.py (chatassert._dates) and test_results.py
(chatassert._results, with `OneOf` and the conditional checks); `expect_decisions` says what a
decision-table row promises.
"""

from __future__ import annotations

import datetime as dt
import pickle
from collections import OrderedDict
from typing import Any

from expect_decisions import (
    NOW,
    E,
    P,
    _record,
)
from hypothesis import given, settings, strategies as st

from chatassert import (
    AllDatesBetween,
    AllMatch,
    AllMatchPattern,
    FieldEquals,
    SortedDesc,
    Turn,
)
from chatassert._jsonbase import MAX_OFFENDING, all_equal_to, json_equal
from chatassert.expect import (
    AllHaveTags,
    AllInRange,
    AllMatchOneOf,
    DatesWithinDays,
    EachHasAnyTag,
    IfResults,
    JsonContains,
    NoneHaveTags,
    NoneMatchPattern,
    ResultsMatchSchema,
    StatusIs,
)


def fixed_clock() -> dt.datetime:
    """A picklable injected clock, ten days before NOW."""
    return NOW - dt.timedelta(days=10)


_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-3, 3), st.sampled_from(["", "a", "1"])
)


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


def test_a_pass_left_to_the_full_evaluation_is_shared_as_well() -> None:
    """`JsonCheck._passed`: a pass is built once per count, then shared (see `Result.shared`)."""
    check = FieldEquals({"total": 3.0})  # 3 for 3.0: the quick test leaves it to `_eval`
    first = check.check({"total": 3})
    assert first.passed
    assert check.check({"total": 3}) is first


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


def test_json_equal() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(0, "0")
    assert not json_equal(True, 1)
    assert not json_equal(False, 0)
    assert json_equal([1, {"a": None}], [1.0, {"a": None}])
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


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


def test_offenders_are_capped() -> None:
    response = {"results": [{"type": "log"} for _ in range(50)]}
    result = AllMatch("results[*].type", "note").check(response)
    assert len(result.details["offending"]) == MAX_OFFENDING
    assert result.details["offending_count"] == 50
    assert result.reason.endswith("(and 49 more)")


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


def test_a_subject_that_is_not_json_is_an_error_record_named_after_the_check() -> None:
    """Module doc: "a subject that is not JSON makes every check an `error`"; the record is
    the check's own (its name), with the parser's reason and `error: not_json`."""
    result = StatusIs("success").check("Sorry, I cannot help")
    assert result.__dict__ == {
        "status": E,
        "name": "expect_status",
        "reason": "the response is not JSON (Expecting value: line 1 column 1 (char 0))",
        "details": {"error": "not_json"},
        "pointer": "",  # the whole subject: the text that is not JSON
    }


def test_a_path_check_shares_its_pass_when_the_subject_is_json_text() -> None:
    """`JsonCheck._passed`: a pass is built once per count, then shared, also when the subject
    is text that the full evaluation parses (no quick test on a string)."""
    check = AllMatch("a[*]", 1)
    first = check.check('{"a": [1, 1.0]}')
    assert first.passed
    assert first.details == {"path": "a[*]", "expected": 1, "checked": 2}
    assert check.check('{"a": [1, 1]}') is first
