"""Paths: the dotted notation, JSONPath, concrete locations, and the edge cases."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given, strategies as st

from chatassert import AllMatch, FieldContains, SortedDesc, Status
from chatassert._jsonpath import MISSING, compile_path

DOC: dict[str, Any] = {
    "results": [
        {"file": "a.md", "metadata": {"tags": ["x", "y"]}},
        {"file": None, "metadata": None},
        {"title": "no file"},
    ],
    "empty": [],
    "nothing": None,
    "pagination": {"total": 3},
    "odd keys": {"a.b": 1},
}


def found(path: str, doc: Any = DOC) -> list[tuple[str, Any]]:
    compiled = compile_path(path)
    return [(compiled.location(w), v) for v, w in compiled.find(doc)]


def test_dotted_paths() -> None:
    assert found("pagination.total") == [("pagination.total", 3)]
    assert found("results[0].file") == [("results[0].file", "a.md")]
    assert found("results[-1].title") == [("results[-1].title", "no file")]
    assert found("results[*].file") == [("results[0].file", "a.md"), ("results[1].file", None)]
    assert found("results[*].metadata.tags[*]") == [
        ("results[0].metadata.tags[0]", "x"),
        ("results[0].metadata.tags[1]", "y"),
    ]


def test_missing_intermediates_are_missing() -> None:
    assert found("pagination.total.value") == []
    assert found("meta.created") == []
    assert found("nothing.inner") == []
    assert compile_path("meta.created").get(DOC) is MISSING


def test_null_values_are_present() -> None:
    assert found("nothing") == [("nothing", None)]
    assert found("results[1].metadata") == [("results[1].metadata", None)]


def test_wildcards_over_missing_null_or_empty_yield_nothing() -> None:
    for path in ("missing[*].x", "nothing[*]", "empty[*].file", "pagination[*]"):
        assert found(path) == []


def test_indexes_out_of_range_are_missing() -> None:
    assert found("results[3].file") == []
    assert found("results[-4].file") == []
    assert found("empty[0]") == []
    assert found("pagination[0]") == []


def test_quoted_keys() -> None:
    assert found("['odd keys']['a.b']") == [("['odd keys']['a.b']", 1)]


def test_fans_out() -> None:
    assert compile_path("results[*].file").fans_out
    assert not compile_path("results[0].file").fans_out
    assert compile_path("$.results[*].file").fans_out
    assert not compile_path("$.pagination.total").fans_out


def test_jsonpath_when_the_path_starts_with_dollar() -> None:
    assert found("$.results[*].file") == [("results[0].file", "a.md"), ("results[1].file", None)]
    assert found("$..tags[*]") == [
        ("results[0].metadata.tags[0]", "x"),
        ("results[0].metadata.tags[1]", "y"),
    ]
    assert found("$.results[?(@.title)].title") == [("results[2].title", "no file")]


def test_jsonpath_locations_appear_in_reasons() -> None:
    result = AllMatch("$.results[*].file", "a.md").check(DOC)
    assert result.reason == "Found non-matching item: null at results[1].file"
    assert result.details["index"] == 1


@pytest.mark.parametrize("bad", ["", "  ", ".a", "a.", "a..b", "a[x]", "a[*", "$.[["])
def test_malformed_paths_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        compile_path(bad)


def test_paths_are_immutable_and_picklable() -> None:
    path = compile_path("results[*].file")
    assert pickle.loads(pickle.dumps(path)) == path
    with pytest.raises(AttributeError):
        path.source = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(compile_path("$..file"))).find(DOC)


def test_importing_chatassert_does_not_import_jsonpath_ng() -> None:
    import subprocess
    import sys

    code = "import sys, chatassert; print('jsonpath_ng' in sys.modules, 'dateutil' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# -- properties ----------------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from(["note", "log", "x"]),
    st.floats(-3, 3, allow_nan=False),
)
items = st.lists(st.fixed_dictionaries({}, optional={"type": json_scalars}), max_size=12)


@given(items, json_scalars)
def test_all_match_agrees_with_all_over_extracted_values(
    results: list[dict[str, Any]], value: Any
) -> None:
    from chatassert._jsonbase import json_equal

    extracted = [r["type"] for r in results if "type" in r]
    result = AllMatch("results[*].type", value).check({"results": results})
    assert result.passed == all(json_equal(v, value) for v in extracted)
    assert result.details["checked"] == len(extracted)


@given(
    st.lists(st.one_of(st.integers(-100, 100), st.floats(-100, 100, allow_nan=False)), max_size=15)
)
def test_sorted_desc_agrees_with_sorted_reverse(values: list[float]) -> None:
    result = SortedDesc("results[*].relevance").check(
        {"results": [{"relevance": v} for v in values]}
    )
    assert result.passed == (values == sorted(values, reverse=True))
    if not result.passed:
        i = result.details["index"]
        assert values[i] > values[i - 1]
        assert all(values[j] <= values[j - 1] for j in range(1, i))


DOTTED = compile_path("a[*]")
FULL = compile_path("$.a[*]")


@given(
    st.recursive(
        json_scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
        ),
        max_leaves=10,
    )
)
def test_dotted_and_jsonpath_agree_on_wildcards(doc: Any) -> None:
    wrapped = {"a": doc}
    dotted = [v for v, _ in DOTTED.find(wrapped)]
    full = [v for v, _ in FULL.find(wrapped)]
    if isinstance(doc, list):
        assert dotted == full == doc
    else:
        assert dotted == []


@pytest.mark.parametrize(
    "path",
    [
        "$.`parent`",  # the root has no parent
        "$.results.`parent`.`parent`",
    ],
)
def test_a_jsonpath_that_cannot_be_evaluated_is_an_error_result(path: str) -> None:
    doc = {"results": [{"file": "a.md", "relevance": 0.9}, {"file": "b.md", "relevance": 0.5}]}
    with pytest.raises(ValueError, match="cannot be evaluated") as raised:
        compile_path(path).find(doc)
    assert path in str(raised.value)
    for check in (SortedDesc(path), AllMatch(path, "a.md")):
        result = check.check(doc)
        assert result.status == "error", result
        assert "cannot be evaluated" in result.reason


@pytest.mark.parametrize(
    ("path", "selected"),
    [
        # RFC 9535 2.3.5.2.2: only two numbers or two strings are ordered; a comparison
        # between other types is false, so the element is not selected (no error).
        ("$.results[?(@.relevance > 'a')].file", []),
        ("$.results[?(@.file > 1)].file", []),
        # a string is never equal to a number, a boolean never equal to a number
        ("$.results[?(@.file == 1)].file", []),
        ("$.results[?(@.rank == true)].file", []),
        ("$.results[?(@.ok == true)].file", ["b.md"]),
        # a missing member equals nothing, so only `!=` selects it
        ("$.results[?(@.missing != 1)].file", ["a.md", "b.md"]),
        ("$.results[?(@.missing == null)].file", []),
        ("$.results[?(@.relevance >= 0.5)].file", ["a.md", "b.md"]),
    ],
)
def test_jsonpath_filters_compare_as_rfc_9535_says(path: str, selected: list[str]) -> None:
    # Pins the filter semantics of the supported jsonpath-ng (>= 1.16): an older release
    # raised on `@.relevance > 'a'` and treated True as 1, which changed verdicts.
    doc = {
        "results": [
            {"file": "a.md", "relevance": 0.9, "rank": 1},
            {"file": "b.md", "relevance": 0.5, "rank": 2, "ok": True},
        ]
    }
    assert [v for v, _ in compile_path(path).find(doc)] == selected


@pytest.mark.parametrize(
    ("path", "fans_out"),
    [
        ("$.results[0,1]", True),
        ("$['a','b']", True),
        ("$.results[*].x", True),
        ("$..x", True),
        ("$.a[?(@.x > 1)]", True),
        ("$.a[1:3]", True),
        ("$.a.*", True),
        ("$.a[-1]", False),
        ("$.results[0].file", False),
        ("$['a:b']", False),
        ("$.a.`len`", False),
    ],
)
def test_a_jsonpath_fans_out_when_it_may_select_several_values(path: str, fans_out: bool) -> None:
    # JsonPath.fans_out: a path that names one field reports it missing instead of passing
    # vacuously, so a union of indices or names must count as several.
    assert compile_path(path).fans_out is fans_out


def test_a_missing_field_named_by_a_union_passes_vacuously_as_a_wildcard_would() -> None:
    check = FieldContains("$.results[0,1].title", "x")
    assert check.check({"results": []}).status is Status.PASSED
