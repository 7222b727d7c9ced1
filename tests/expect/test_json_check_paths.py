"""`check` of a decoded response, the path a suite's case takes, is `Assertion.check`'s result.

A JSON check answers a JSON object through a compiled path (`JsonCheck._json_check`): its
quick test, then `_check` made into what `check` returns (`_as_checked`); a path check whose
rule is a loop over the values (`PathCheck._fused`: `all_match_pattern`, `none_match_pattern`,
`all_in_range`, `range_check`) runs that loop once for a pass and a failure alike, and locates
only the values that broke it. These properties hold every such path to the general one,
`Assertion.check` (`_check`, then the failure pointed at its evidence, the message, the place
in the spec file), on random responses and expect objects loaded from spec text, so that
results carry their spec names and places; and a case's result to the one its checks' general
results make; and the places a path gives the values that failed (`JsonPath.places`, by
position when every item gave one) to where `find` finds them. The responses are untidy on
purpose: items without the value a path names (so a value's position is not its item's index),
values of the wrong type, long arrays.
"""

from __future__ import annotations

import json
from time import perf_counter
from typing import Any

from hypothesis import given, settings, strategies as st

from chatassert import AllMatchPattern, Assertion, Result, Status
from chatassert._base import SpecPlace, with_spec
from chatassert._jsonpath import compile_path, item_index
from chatassert.expect import AllInRange, NoneMatchPattern
from chatassert.specs import loads_suite

files = st.sampled_from(
    ["journal/a.md", "journal/2026/b.md", "work/n.md", "people/x.md", "Journal/c.md", "a.md"]
) | st.sampled_from([None, 3, ["journal/x"], {"file": "journal/"}, "", "ünï/journal/"])
numbers = st.floats(-0.5, 1.5, allow_nan=False) | st.sampled_from(
    [0, 1, 2, -0.0, 1e308, float("nan"), float("inf"), "0.5", None, True]
)
metadata = st.fixed_dictionaries({}, optional={"type": st.sampled_from(["note", "task", 1])})
item = st.fixed_dictionaries(
    {}, optional={"file": files, "relevance": numbers, "metadata": metadata}
) | st.sampled_from([None, 3, "results", []])
tidy_item = st.fixed_dictionaries({"file": files, "relevance": numbers})
results = (
    st.lists(tidy_item, max_size=8)
    | st.lists(item, max_size=8)
    | st.lists(tidy_item, min_size=30, max_size=45)  # past the locations a path writes ahead
    | st.sampled_from([None, "results", {"file": "journal/a.md"}])
)
responses = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(["success", "error", 1, None]),
        "summary": st.sampled_from(["Found 3 notes", "FOUND 2 NOTES", "nothing", None, 4]),
        "results": results,
        "pagination": st.fixed_dictionaries({"total": st.integers(0, 6)}),
    },
)

pattern_paths = st.sampled_from(
    ["results[*].file", "results[0].file", "$.results[*].file", "results[*]", "summary"]
)
number_paths = st.sampled_from(
    ["results[*].relevance", "results[1].relevance", "$.results[*].relevance", "pagination.total"]
)
patterns = st.sampled_from(["^journal/", "^(people/|documents/)", r"\.md$", "(?i)^journal/"])
ranges = st.sampled_from([{"min": 0.0, "max": 1.0}, {"min": 0.5}, {"max": 1}, {"min": 0, "max": 0}])
expect_objects = st.fixed_dictionaries(
    {"status": st.sampled_from(["success", 1])},
    optional={
        "results_min": st.integers(0, 2),
        "results_max": st.integers(0, 10),
        "has_fields": st.lists(
            st.sampled_from(["results", "summary", "pagination.total"]), min_size=1, unique=True
        ),
        "all_match_pattern": st.fixed_dictionaries({"path": pattern_paths, "regex": patterns}),
        "none_match_pattern": st.fixed_dictionaries({"path": pattern_paths, "regex": patterns}),
        "all_in_range": st.builds(lambda path, r: {"path": path, **r}, number_paths, ranges),
        "range_check": st.builds(lambda path, r: {"path": path, **r}, number_paths, ranges),
        "summary_contains": st.sampled_from(["notes", "x"]),
        "all_match": st.fixed_dictionaries(
            {
                "path": st.sampled_from(["results[*].metadata.type", "status"]),
                "value": st.just("note"),
            }
        ),
    },
)


def _written(result: Result) -> str:
    tree = result.to_dict()
    del tree["duration"]
    return json.dumps(tree)


def _loaded(expect: dict[str, Any]) -> Any:
    return loads_suite(json.dumps([{"id": "t", "expect": expect}]), filename="t.json").cases[0]


@settings(max_examples=150, deadline=None)
@given(expect_objects, st.lists(responses, min_size=1, max_size=4))
def test_a_decoded_response_is_checked_as_the_general_path_checks_it(
    expect: dict[str, Any], docs: list[dict[str, Any]]
) -> None:
    case = _loaded(expect)
    for doc in docs:
        general = [Assertion.check(check, doc) for check in case.checks]  # no quick test
        assert [check.check(doc) for check in case.checks] == general, doc
        assert case.check(doc) == case._finish(general, perf_counter()), doc
        # the text decoded once, then alike (compared as written: a decoded NaN is a new NaN)
        assert _written(case.check(json.dumps(doc))) == _written(case.check(doc)), doc


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(
        [
            AllMatchPattern("results[*].file", "^journal/"),
            NoneMatchPattern("results[*].file", r"\.md$"),
            AllInRange("results[*].relevance", 0.0, 1.0),
        ]
    ),
    responses,
)
def test_a_path_check_built_in_code_is_checked_as_the_general_path_checks_it(
    check: Assertion, doc: dict[str, Any]
) -> None:
    assert check.check(doc) == Assertion.check(check, doc), doc


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        [
            "results[*].file",
            "results[*].metadata.type",
            "results[*]",
            "results[1].file",
            "$.results[*].file",
        ]
    ),
    responses,
    st.data(),
)
def test_values_are_placed_where_find_finds_them(path: str, doc: dict[str, Any], data: Any) -> None:
    compiled = compile_path(path)
    values = compiled.values(doc)
    found = compiled.find(doc)
    assert values == [value for value, _ in found]  # the same objects, NaN too
    if values:
        positions = sorted(data.draw(st.sets(st.integers(0, len(values) - 1), min_size=1)))
        expected = [(compiled.location(found[k][1]), item_index(found[k][1])) for k in positions]
        assert compiled.places(doc, len(values), positions) == expected


def test_a_failure_names_each_item_where_it_is_when_items_lack_the_value() -> None:
    check = AllMatchPattern("results[*].file", "^journal/")
    doc = {"results": [{"file": "journal/a.md"}, {"title": "no file"}, {"file": "work/b.md"}]}
    result = check.check(doc)
    assert result.details["offending"] == [
        {"path": "results[2].file", "actual": "work/b.md", "index": 2}
    ]
    assert result.pointer == "/results/2/file"
    assert result == Assertion.check(check, doc)


def test_a_check_placed_after_it_has_checked_places_its_passes() -> None:
    check = AllInRange("results[*].relevance", 0.0, 1.0)
    doc = {"results": [{"relevance": 0.5}]}
    assert check.check(doc).spec_path is None  # a shared pass, remembered unplaced
    with_spec(check, SpecPlace("all_in_range", "[0].expect.all_in_range"))
    placed = check.check(doc)
    assert placed.status is Status.PASSED
    assert (placed.spec_name, placed.spec_path) == ("all_in_range", "[0].expect.all_in_range")
    assert check.check(doc) is placed  # and shared again from then on
