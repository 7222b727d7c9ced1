"""Tests of the behaviour the expect checks share (chatassert._jsonbase, docs/expect.md):
what a subject is, strict JSON equality, the offender cap, the shared passing result and
pickling, and the checks of several families together (`OneOf` and the conditional checks
over `StatusIs`, `AllMatch`, ...; one check of each family over zero values).

Each family's own tests mirror its module: test_fields.py (chatassert._fields), test_each.py
(chatassert._each), test_dates.py (chatassert._dates) and test_results.py
(chatassert._results). The decision tables here hold only the rows that combine families;
`expect_decisions` says what a row promises.
"""

from __future__ import annotations

import datetime as dt
import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pytest
from expect_decisions import (
    NOW,
    SEARCH,
    E,
    F,
    P,
    S,
    _record,
    decides_the_documented_record,
    describes_its_requirement,
    err,
    is_rejected_when_built,
    row,
)
from hypothesis import given, settings, strategies as st

from chatassert import (
    AllDatesBetween,
    AllMatch,
    AllMatchPattern,
    AllOf,
    Assertion,
    FieldEquals,
    SortedDesc,
    Status,
    Turn,
)
from chatassert._jsonbase import MAX_OFFENDING, all_equal_to, json_equal
from chatassert.expect import (
    AllHaveTags,
    AllInRange,
    AllMatchOneOf,
    ArrayContains,
    DatesWithinDays,
    EachHasAnyTag,
    IfHasHistory,
    IfResults,
    IfSensitiveResults,
    JsonContains,
    NoneHaveTags,
    NoneMatchPattern,
    OneOf,
    ResultsMatchSchema,
    ResultsMax,
    ResultsMin,
    StatusIs,
)


def fixed_clock() -> dt.datetime:
    """A picklable injected clock, ten days before NOW."""
    return NOW - dt.timedelta(days=10)


ROWS = [
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
        "ifr-not-object",
        lambda: IfResults(StatusIs("ok")),
        [1],
        S,
        "condition not met: no results",
        {"condition": False},
    ),
]


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
    decides_the_documented_record(build, subject, status, reason, details, quick)


ERRORS = [
    err(
        "ifs-both",
        lambda: IfSensitiveResults(StatusIs("a"), has_field="x"),
        ValueError,
        "if_sensitive_results needs either inner assertions or 'has_field' (with an optional 'value')",  # noqa: E501
    ),
    err(
        "ifs-child-value",
        lambda: IfSensitiveResults(StatusIs("a"), value=1),
        ValueError,
        "if_sensitive_results 'value' goes with 'has_field'",
    ),
]


@pytest.mark.parametrize(("build", "kind", "message"), ERRORS)
def test_a_bad_parameter_is_rejected_when_the_check_is_built(
    build: Callable[[], Any], kind: type[Exception], message: str
) -> None:
    """docs/expect.md, Files: bad values say what was expected and what was found."""
    is_rejected_when_built(build, kind, message)


DESCRIPTIONS = [
    (
        lambda: IfResults(AllOf(StatusIs("ok"), ResultsMin(1))),
        "if there are results: status is 'ok' and at least 1 result",
    ),
    (
        lambda: IfHasHistory(AllMatch("history_results[*].op", "delete")),
        "if there is history: every history_results[*].op is 'delete'",
    ),
    (lambda: IfSensitiveResults(StatusIs("ok")), "if some result is sensitive: status is 'ok'"),
    (
        lambda: OneOf(StatusIs("error"), AllOf(JsonContains("filter"), ResultsMax(0))),
        "(status is 'error') or (response contains 'filter' and at most 0 results)",
    ),
]


@pytest.mark.parametrize(("build", "words"), DESCRIPTIONS)
def test_a_check_describes_its_requirement(build: Callable[[], Assertion], words: str) -> None:
    """docs/expect.md: a pass says what held, and `one_of` and the conditional checks spell
    out their branches with these words (`Neither status is 'error' nor ...`)."""
    describes_its_requirement(build, words)


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


def test_if_sensitive_results_with_inner_checks_and_own_prefixes() -> None:
    inner = IfSensitiveResults(ArrayContains("sensitive_dirs_skipped", ["people/"]))
    assert inner.check(SEARCH).status is F
    custom = IfSensitiveResults(has_field="sensitive", sensitive_prefixes=["journal/"])
    result = custom.check(SEARCH)
    assert result.reason == "Missing field: results[0].sensitive (and 1 more)"
    with pytest.raises(ValueError, match="either"):
        IfSensitiveResults()


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
