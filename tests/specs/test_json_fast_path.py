"""JSON spec text read by the `json` module gives what the YAML loader gives, or is left to it.

`parse_json` is a speed path: whatever it returns must equal what `parse_yaml` returns for the
same text, and a file with problems must still report each one with its line.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import SpecError
from chatassert.specs import loads_suite
from chatassert.specs._yaml import MAX_DEPTH, parse_json, parse_yaml

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON, max_size=5), st.booleans())
def test_what_the_quick_path_returns_is_what_the_yaml_loader_returns(
    doc: dict[str, object], indent: bool
) -> None:
    text = json.dumps(doc, indent=2 if indent else None)
    quick = parse_json(text)
    if quick is not None:
        assert quick == parse_yaml(text)
        assert json.dumps(quick, sort_keys=True) == json.dumps(parse_yaml(text), sort_keys=True)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"a": 1, "a": 2}', "a duplicate key: the YAML loader reports it with its line"),
        ('{"a": "\\ud83d\\ude00"}', "a surrogate escape: the YAML loader joins or refuses it"),
        ('{"a": 1e3}', "YAML 1.1 reads 1e3 as a string"),
        ('{"a": NaN}', "not JSON"),
        ('{"a": "\u0086"}', "a character YAML does not allow as it is"),
        ('{"a": ' + "9" * 4250 + "}", "an integer past the loader's limit"),
        ("[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH, "nesting past the limit: the loader refuses it"),
        ("a: 1", "YAML, not JSON"),
        ('"just a string"', "not an object or array"),
        ('{"a": 1', "not valid JSON: the YAML loader gives the error and its line"),
    ],
)
def test_the_quick_path_leaves_to_the_yaml_loader(text: str, why: str) -> None:
    assert parse_json(text) is None, why


def test_nesting_just_inside_the_limit_reads_the_same_both_ways() -> None:
    text = "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)
    assert parse_json(text) == parse_yaml(text)
    with pytest.raises(SpecError, match="nests deeper"):
        parse_yaml("[" + text + "]")


def test_a_problem_in_a_json_spec_is_reported_with_its_line() -> None:
    text = json.dumps(
        [{"id": "t1", "expect": {"status": "success"}}, {"id": "t2", "expect": {"statsu": "x"}}],
        indent=2,
    )
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename="search.json")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.path) == ("search.json", 11, "[1].expect.statsu")
    assert "did you mean 'status'" in str(problem)


def test_a_json_spec_loads_the_same_either_way() -> None:
    text = json.dumps([{"id": "t1", "expect": {"status": "success", "results_min": 1}}])
    quick = loads_suite(text, filename="a.json")
    slow = loads_suite(" " + text.replace("1}", "1 }"), filename="a.json")  # same document
    assert quick.cases == slow.cases
