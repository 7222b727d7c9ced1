"""Fuzzing result trees: `to_dict`, strict JSON and `from_dict` reproduce any tree.

The contract under test: for any `Result` tree (any status, odd strings, scores that are
infinite or NaN, details holding them too, deep children), `to_dict()` is strict JSON
(`json.dumps(..., allow_nan=False)` takes it), and `from_dict` of the decoded JSON gives a
tree whose `to_dict()` is the same; rendering the tree never fails.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st

from chatassert import Result, Status


@functools.cache
def details() -> st.SearchStrategy[dict[str, Any]]:
    """Details: JSON-serialisable mappings (string keys), non-finite numbers included."""
    leaf = st.one_of(
        specgen.json_scalars(),
        st.sampled_from([math.inf, -math.inf, math.nan, -0.0, 10**30, 5e-324]),
    )
    value = st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(specgen.words(), inner, max_size=3)
        ),
        max_leaves=6,
    )
    return st.dictionaries(specgen.words(), value, max_size=4)


PLACES = ["", "cases[0]", "cases[0].turns[1].assertions[0]", "cases[0][1]", "[0]", "assertions[0]"]
"""Spec paths that nest in one another (a case's, its checks'), and ones that do not."""


@functools.cache
def results() -> st.SearchStrategy[Result]:
    """Result trees of any shape."""
    text = st.one_of(specgen.words(), specgen.odd_text(), st.just("x" * 300))
    score = st.one_of(
        st.none(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-(2**60), 2**60),
    )

    def build(children: st.SearchStrategy[tuple[Result, ...]]) -> st.SearchStrategy[Result]:
        return st.builds(
            Result,
            st.sampled_from(list(Status)),
            text,
            text,
            st.one_of(st.none(), details()),
            message=st.one_of(st.none(), text),
            score=score,
            children=children,
            location=st.one_of(st.none(), st.sampled_from(["turns[0]", "results[2].file"]), text),
            duration=st.one_of(st.none(), st.floats(0, 1e6)),
            spec_name=st.one_of(st.none(), specgen.words()),
            spec_path=st.one_of(st.none(), st.sampled_from(PLACES), specgen.odd_text()),
        )

    return st.recursive(
        build(st.just(())),
        lambda inner: build(st.lists(inner, min_size=1, max_size=3).map(tuple)),
        max_leaves=8,
    )


def _deep(result: Result, depth: int) -> Result:
    for _ in range(depth):
        result = Result(Status.FAILED, "all_of", "1 of 1 failed", children=(result,))
    return result


@given(results(), st.sampled_from([0, 0, 0, 50, 400]))
@fuzz_target("result.roundtrip")
def test_result_trees_round_trip_through_strict_json(result: Result, depth: int) -> None:
    result = _deep(result, depth)
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    again = Result.from_dict(json.loads(text))
    assert again.to_dict() == json.loads(text)
    assert json.dumps(again.to_dict(), allow_nan=False) == text
    assert again.status is result.status
    if result.score is not None and not math.isnan(result.score):
        assert again.score == result.score
    result.render(verbose=True)
    str(again)
