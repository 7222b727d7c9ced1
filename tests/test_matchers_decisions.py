"""Argument matchers at their edges: bounds, exact mode inside `$one_of`, specs and messages.

Each test names what it pins: the `chatassert._matchers` module docs (docs/trajectories.md,
"Arguments"), the matchers' docstrings, SEMANTICS G4 (bad specs fail when built, saying
where and what), and DESIGN's "assertions are immutable and picklable". Found by mutation
testing (docs/internals/mutation.md), except the last section (matchers, expected calls and the
error rule on their own), whose tests were trajectory tests that exercised `chatassert._matchers`
alone.
"""

from __future__ import annotations

import datetime
import pickle
from typing import Any

import pytest

from chatassert import ToolResult
from chatassert._matchers import (
    ArgAny,
    ArgInRange,
    ArgMatches,
    ArgOneOf,
    ArgProblem,
    ExpectedCall,
    compare_arguments,
    compile_arguments,
    error_flag,
    render_arguments,
)


@pytest.mark.parametrize(
    ("low", "high", "actual", "inside"),
    [
        (5, 5, 5, True),  # a one-point range is allowed: min may equal max
        (5, 5, "5", True),
        (5, 5, 5.5, False),
        (0, None, "inf", False),  # a numeric string is a finite decimal number
        (None, 0, "-inf", False),
        (None, 10, "nan", False),
        (0, None, "12", True),
    ],
)
def test_range_bounds(low: Any, high: Any, actual: Any, inside: bool) -> None:
    assert ArgInRange(low, high).matches(actual) is inside


@pytest.mark.parametrize(
    ("low", "high", "message"),
    [
        ("5", 10, "$range min must be a number or null, got '5'"),
        (1, "10", "$range max must be a number or null, got '10'"),
        ([1], 10, "$range min must be a number or null, got [1]"),
        (1, {"x": 1}, "$range max must be a number or null, got {'x': 1}"),
        (None, None, "$range needs at least one bound: [min, max], null for an open side"),
        (3, 2, "$range min 3 is greater than max 2"),
    ],
)
def test_range_errors_name_the_bad_bound(low: Any, high: Any, message: str) -> None:
    """A bound is a number or null, never a string (docs: `{"$range": [min, max]}`)."""
    with pytest.raises(ValueError) as raised:
        ArgInRange(low, high)
    assert str(raised.value) == message


def test_one_of_choices_follow_the_argument_mode() -> None:
    """`exact`: no argument at any level of nesting that the expectation does not name."""
    expected = compile_arguments({"filter": {"$one_of": [{"kind": "a"}, {"kind": "b"}]}})
    actual = {"filter": {"kind": "b", "extra": 1}}
    assert compare_arguments(expected, actual) == []
    problems = compare_arguments(expected, actual, mode="exact")
    assert [p.to_dict() for p in problems] == [
        {
            "argument": "filter",
            "problem": "value_mismatch",
            "expected": {"$one_of": [{"kind": "a"}, {"kind": "b"}]},
            "actual": {"kind": "b", "extra": 1},
        }
    ]
    assert problems[0].describe() == (
        'filter={"kind": "b", "extra": 1} is not one of [{"kind": "a"}, {"kind": "b"}]'
    )


def test_one_of_matches_mappings_directly() -> None:
    one_of = ArgOneOf([{"kind": "a"}])
    assert one_of.matches({"kind": "a", "extra": 1})  # partial by default
    assert not one_of.matches({"kind": "a", "extra": 1}, exact=True)
    assert not one_of.matches({"kind": "b"})


def test_one_of_describes_its_choices() -> None:
    assert ArgOneOf(["high", "urgent"]).describe() == 'one of ["high", "urgent"]'


@pytest.mark.parametrize(
    "matcher",
    [ArgAny(), ArgMatches("^C\\d+$"), ArgOneOf(["a", 1]), ArgInRange(1, None)],
    ids=["any", "regex", "one_of", "range"],
)
def test_a_matcher_round_trips_through_its_spec_form(matcher: Any) -> None:
    spec = render_arguments(matcher)
    assert next(iter(spec)) == matcher.key
    assert compile_arguments(spec) == matcher


def test_any_spec_form() -> None:
    assert ArgAny().to_spec() == {"$any": True}
    assert compile_arguments({"$any": True}) == ArgAny()


def test_a_pickled_regex_matcher_keeps_its_time_limit() -> None:
    matcher = ArgMatches("a+", timeout=0.25)
    again = pickle.loads(pickle.dumps(matcher))
    assert again == matcher
    assert again.pattern.timeout == 0.25


@pytest.mark.parametrize("matcher", [ArgAny(), ArgInRange(1, 2), ArgOneOf(["a"])])
def test_matchers_are_immutable(matcher: Any) -> None:
    with pytest.raises(AttributeError) as raised:
        matcher.low = 3
    assert str(raised.value) == f"{type(matcher).__name__} is immutable"


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (True, "^true$"),
        (False, "^false$"),
        (None, "^null$"),
        (4, "^4$"),
        # keys sorted, non-ASCII characters as they are
        ({"b": [1, True, None], "a": "é"}, r'^\{"a": "é", "b": \[1, true, null\]\}$'),
        # a value JSON cannot hold is its str()
        ({"day": datetime.date(2024, 2, 15)}, r'^\{"day": "2024-02-15"\}$'),
    ],
    ids=["true", "false", "null", "number", "mapping", "date"],
)
def test_regex_reads_the_json_text_of_a_value(value: Any, pattern: str) -> None:
    """`ArgMatches`: "a non-string value is matched against its JSON rendering" (its
    docstring and docs/trajectories.md, "Arguments")."""
    assert ArgMatches(pattern).matches(value)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: ArgMatches(""), "$regex needs a non-empty pattern string, got ''"),
        (lambda: ArgMatches(5), "$regex needs a non-empty pattern string, got 5"),
        (lambda: ArgOneOf("ab"), "$one_of needs a non-empty list of values, got 'ab'"),
        (lambda: ArgOneOf({"a"}), "$one_of needs a non-empty list of values, got {'a'}"),
        (lambda: ArgOneOf([]), "$one_of needs a non-empty list of values, got []"),
        (
            lambda: ArgOneOf(["a", {"$regx": "b"}]),
            "$one_of[1]: unknown matcher '$regx' (did you mean '$regex'?)",
        ),
    ],
    ids=[
        "empty-pattern",
        "number-pattern",
        "string-choices",
        "set-choices",
        "no-choices",
        "bad-choice",
    ],
)
def test_bad_matchers_fail_when_built(build: Any, message: str) -> None:
    """SEMANTICS G4: an empty pattern or list is an error that says what it found; a string
    is not a list of one-letter choices; a bad choice is named by its place."""
    with pytest.raises(ValueError) as raised:
        build()
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ({"$regex": 5}, TypeError, "arguments.q: $regex takes a pattern string, got 5"),
        ({"$one_of": "a"}, TypeError, "arguments.q: $one_of takes a list of values, got 'a'"),
        (
            {"$one_of": ["a", {"$regx": "b"}]},
            ValueError,
            "arguments.q: $one_of[1]: unknown matcher '$regx' (did you mean '$regex'?)",
        ),
        (
            {"$one_of": [{1: "a"}]},
            TypeError,
            "arguments.q: $one_of[0]: argument names must be strings, got 1",
        ),
        (
            {"$one_of": []},
            ValueError,
            "arguments.q: $one_of needs a non-empty list of values, got []",
        ),
    ],
    ids=["regex-not-a-string", "one-of-not-a-list", "bad-choice", "bad-choice-key", "no-choices"],
)
def test_matcher_spec_errors_name_the_argument(spec: Any, error: type, message: str) -> None:
    """SEMANTICS G4: a spec error names where it is, inside a `$one_of` too."""
    with pytest.raises(error) as raised:
        compile_arguments({"q": spec})
    assert str(raised.value) == message


def test_problem_records_carry_only_what_exists() -> None:
    """`ArgProblem.to_dict`: a missing argument has no `actual`, an unexpected one no
    `expected`."""
    problems = compare_arguments(
        compile_arguments({"a": 1, "b": 2}), {"b": 3, "c": 4}, mode="exact"
    )
    assert [p.to_dict() for p in problems] == [
        {"argument": "a", "problem": "missing", "expected": 1},
        {"argument": "b", "problem": "value_mismatch", "expected": 2, "actual": 3},
        {"argument": "c", "problem": "unexpected", "actual": 4},
    ]


@pytest.mark.parametrize(
    ("step", "spec"),
    [
        (ExpectedCall("search"), "search"),
        (
            ExpectedCall("search", argument_mode="ignore"),
            {"tool": "search", "argument_mode": "ignore"},
        ),
        (ExpectedCall("search", ignore_keys=["id"]), {"tool": "search", "ignore_keys": ["id"]}),
    ],
    ids=["name-alone", "mode", "ignore-keys"],
)
def test_an_expected_call_is_its_tool_name_when_nothing_else_is_set(step: Any, spec: Any) -> None:
    """`ExpectedCall.to_spec`: "the tool name alone when nothing else is set"."""
    assert step.to_spec() == spec
    assert ExpectedCall.from_spec(spec) == step


def test_each_kind_of_problem_is_recorded_and_described_at_its_path() -> None:
    """`ArgProblem` (docstring): `argument` is the path, `problem` one of `missing`,
    `value_mismatch`, `unexpected`; `describe` explains it; `exact` reaches into list items."""
    expected = compile_arguments(
        {"a": 1, "opts": {"x": 1}, "tags": ["a", "b"], "rows": [{"k": 1}], "n": 2}
    )
    actual = {"opts": "flat", "tags": ["a"], "rows": [{"k": 1, "extra": 0}], "n": 3}
    problems = compare_arguments(expected, actual, mode="exact")
    assert [p.to_dict() for p in problems] == [
        {"argument": "a", "problem": "missing", "expected": 1},
        {"argument": "opts", "problem": "value_mismatch", "expected": {"x": 1}, "actual": "flat"},
        {"argument": "tags", "problem": "value_mismatch", "expected": ["a", "b"], "actual": ["a"]},
        {"argument": "rows[0].extra", "problem": "unexpected", "actual": 0},
        {"argument": "n", "problem": "value_mismatch", "expected": 2, "actual": 3},
    ]
    assert [p.describe() for p in problems] == [
        "argument 'a' is missing",
        'opts="flat", expected {"x": 1}',
        'tags=["a"], expected ["a", "b"]',
        "unexpected argument rows[0].extra=0",
        "n=3, expected 2",
    ]


def test_a_list_against_a_scalar_is_one_mismatch_of_the_whole_list() -> None:
    problems = compare_arguments(compile_arguments({"tags": ["a"]}), {"tags": 7})
    assert [p.to_dict() for p in problems] == [
        {"argument": "tags", "problem": "value_mismatch", "expected": ["a"], "actual": 7}
    ]


def test_arguments_that_are_not_a_mapping_are_one_mismatch_named_arguments() -> None:
    """`compare_arguments` docstring: a non-mapping `actual` is a mismatch named `arguments`."""
    bad: Any = ["x"]
    problems = compare_arguments(compile_arguments({"q": {"k": 1}}), bad)
    assert [p.to_dict() for p in problems] == [
        {
            "argument": "arguments",
            "problem": "value_mismatch",
            "expected": {"q": {"k": 1}},
            "actual": ["x"],
        }
    ]


def test_an_ignored_key_skips_only_itself() -> None:
    """`compare_arguments`: `ignore_keys` are left out; the keys after them still count."""
    expected = compile_arguments({"id": 1, "q": "x"})
    problems = compare_arguments(expected, {"id": 2}, ignore_keys=["id"])
    assert [p.to_dict() for p in problems] == [
        {"argument": "q", "problem": "missing", "expected": "x"}
    ]


def test_ignore_mode_finds_no_problem() -> None:
    """`compare_arguments`: `mode` is `partial`, `exact` or `ignore` (nothing is compared)."""
    assert compare_arguments(compile_arguments({"q": "x"}), {}, mode="ignore") == []


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a" * 58, '"' + "a" * 58 + '"'),  # 60 characters with the quotes: shown whole
        ("a" * 59, '"' + "a" * 44 + "…" + "a" * 9 + '"'),  # 61: cut to 45 + … + 10
        ("0123456789" * 7, '"' + ("0123456789" * 5)[:44] + "…" + '123456789"'),
        ("café ✓", '"café ✓"'),  # non-ASCII as it is, not \\u escapes
        (datetime.date(2024, 2, 15), '"2024-02-15"'),  # not JSON: its str
    ],
)
def test_a_problem_shows_values_as_json_cut_in_the_middle(value: Any, shown: str) -> None:
    """`ArgProblem.describe`: JSON, non-ASCII kept, `str` for the rest, 45 + `…` + 10 over 60."""
    problem = ArgProblem("q", "unexpected", actual=value)
    assert problem.describe() == f"unexpected argument q={shown}"


# -- matchers, expected calls and the error rule on their own ------------------------------------


def test_matchers_nest_in_lists_and_one_of() -> None:
    expected = compile_arguments({"items": [{"sku": {"$regex": "^A"}}, {"$any": True}]})
    assert compare_arguments(expected, {"items": [{"sku": "A1", "n": 2}, 7]}) == []
    problems = compare_arguments(expected, {"items": [{"sku": "B1"}, 7]})
    assert [p.argument for p in problems] == ["items[0].sku"]
    one_of = compile_arguments({"$one_of": [{"$regex": "^x"}, 5]})
    assert one_of.matches("xyz")
    assert one_of.matches("5")
    assert not one_of.matches("y")


def test_matcher_objects_in_python_equal_their_spec_form() -> None:
    py = ExpectedCall(
        "f",
        {
            "a": ArgMatches("^a"),
            "b": ArgOneOf([1, 2]),
            "c": ArgInRange(0, None),
            "d": ArgAny(),
        },
    )
    spec = ExpectedCall.from_spec(
        {
            "tool": "f",
            "arguments": {
                "a": {"$regex": "^a"},
                "b": {"$one_of": [1, 2]},
                "c": {"$range": [0, None]},
                "d": {"$any": True},
            },
        }
    )
    assert py == spec
    assert pickle.loads(pickle.dumps(py)) == py
    assert repr(ArgInRange(0, None)) == "ArgInRange(0, None)"


def test_error_recognition_rule() -> None:
    assert error_flag(ToolResult(content="fine", is_error=True)) == "is_error"
    assert error_flag(ToolResult(content="  ERROR: timeout")) == "content"
    assert error_flag(ToolResult(content="Error - 503")) == "content"
    assert error_flag(ToolResult(content="Traceback (most recent call last):\n")) == "content"
    assert error_flag(ToolResult(content='{"error": "not found"}')) == "data"
    assert error_flag(ToolResult(data={"isError": True})) == "data"
    assert error_flag(ToolResult(content='{"error": null, "rows": []}')) is None
    assert error_flag(ToolResult(content="Errors are rare")) is None
    assert error_flag(None) is None


# -- messages of bad specs, and what compiling keeps (survivors of mutation run r3) -------------


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        (
            {"q": {"$regex": "a", "flags": "i"}},
            ValueError,
            "arguments.q: a matcher is a mapping with exactly one key "
            "($any, $regex, $one_of, $range), got keys ['$regex', 'flags']",
        ),
        (
            {"q": {"$zzz": 1}},
            ValueError,
            "arguments.q: unknown matcher '$zzz'; matchers are $any, $regex, $one_of, $range",
        ),
        (
            {"q": [1, {"$regx": "a"}]},
            ValueError,
            "arguments.q[1]: unknown matcher '$regx' (did you mean '$regex'?)",
        ),
        (
            {"q": [1, {2, 3}]},
            TypeError,
            "arguments.q[1]: expected a JSON value, got set {2, 3}",
        ),
        ({"q": b"x"}, TypeError, "arguments.q: expected a JSON value, got bytes b'x'"),
    ],
    ids=["matcher-with-other-keys", "unknown-matcher-no-hint", "list-item", "set", "bytes"],
)
def test_compile_errors_name_the_place_and_the_choices(
    spec: Any, error: type, message: str
) -> None:
    """`compile_arguments` docstring and SEMANTICS G4: a malformed matcher or a non-JSON value
    is an error naming where it is (a list item by its index) and, with no close name to
    suggest, the valid matchers."""
    with pytest.raises(error) as raised:
        compile_arguments(spec)
    assert str(raised.value) == message


def test_compiling_keeps_the_regex_time_limit_inside_lists() -> None:
    """`compile_arguments`: `$regex` patterns in the spec search with `regex_timeout` (G8),
    wherever they are, a list item included."""
    compiled = compile_arguments({"q": [{"$regex": "a"}]}, regex_timeout=0.25)
    assert compiled["q"][0].pattern.timeout == 0.25


def test_a_date_in_expected_arguments_is_its_iso_text() -> None:
    """`compile_arguments` docstring and G9 ("a date equals its ISO string"): a date among the
    expected arguments compiles to its ISO text; JSON scalars stay as they are."""
    compiled = compile_arguments(
        {"day": datetime.date(2024, 2, 15), "n": None, "ok": True, "x": 1.5, "s": "a"}
    )
    assert compiled == {"day": "2024-02-15", "n": None, "ok": True, "x": 1.5, "s": "a"}
    step = ExpectedCall("book", {"day": datetime.date(2024, 2, 15)})
    assert step.to_spec() == {"tool": "book", "arguments": {"day": "2024-02-15"}}
    assert step.arguments is not None
    assert compare_arguments(step.arguments, {"day": "2024-02-15"}) == []


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (
            lambda: ExpectedCall("  "),
            ValueError,
            "an expected call needs a non-empty tool name, got '  '",
        ),
        (
            lambda: ExpectedCall("f", ["q"]),
            TypeError,
            "arguments of expected call 'f' must be a mapping, got list ['q']",
        ),
        (
            lambda: ExpectedCall("f", argument_mode="exakt"),
            ValueError,
            "argument_mode of expected call 'f' must be one of partial, exact, ignore, subset, "
            "got 'exakt' (did you mean 'exact'?)",
        ),
        (
            lambda: ExpectedCall("f", argument_mode="zzz"),
            ValueError,
            "argument_mode of expected call 'f' must be one of partial, exact, ignore, subset, "
            "got 'zzz'",
        ),
        (
            lambda: ExpectedCall("f", argument_mode="exact"),
            ValueError,
            "expected call 'f' has argument_mode 'exact' but no arguments; "
            "give arguments ({} for a call without any)",
        ),
        (
            lambda: ExpectedCall("f", {"q": {"$regx": "a"}}),
            ValueError,
            "f.arguments.q: unknown matcher '$regx' (did you mean '$regex'?)",
        ),
        (
            lambda: ExpectedCall("f", ignore_keys=["id", ""]),
            TypeError,
            "ignore_keys of expected call 'f' must be a list of non-empty argument names, "
            "got ['id', '']",
        ),
        (
            lambda: ExpectedCall.coerce(5),
            TypeError,
            "step: an expected call is a tool name or a mapping with 'tool', got int 5",
        ),
        (
            lambda: ExpectedCall.from_spec(["search"]),
            TypeError,
            "step: an expected call is a tool name or a mapping with 'tool', got list ['search']",
        ),
        (
            lambda: ExpectedCall.from_spec({"tool": "f", "zzzz": 1}),
            ValueError,
            "step: unknown key 'zzzz' in an expected call; "
            "valid keys: tool, arguments, argument_mode, ignore_keys",
        ),
        (
            lambda: ExpectedCall.from_spec({"tool": 5}),
            TypeError,
            "step.tool must be a string, got int 5",
        ),
    ],
    ids=[
        "blank-tool",
        "arguments-not-a-mapping",
        "mode-with-hint",
        "mode-without-hint",
        "exact-without-arguments",
        "bad-matcher",
        "empty-ignored-key",
        "coerce-not-a-step",
        "from-spec-not-a-step",
        "unknown-key-no-hint",
        "tool-not-a-string",
    ],
)
def test_bad_expected_calls_fail_when_built(build: Any, error: type, message: str) -> None:
    """SEMANTICS G4 and the `ExpectedCall` docstrings: a bad expected call fails when built,
    saying where (the tool, or `step` by default) and what it found; with no close name to
    suggest, the valid ones are listed."""
    with pytest.raises(error) as raised:
        build()
    assert str(raised.value) == message


def test_check_mode_rejects_none_unless_allowed() -> None:
    """`check_mode`: `None` is not an argument mode; only `allow_none=True` lets it through."""
    from chatassert._matchers import check_mode

    check_mode(None, "argument_mode", allow_none=True)
    with pytest.raises(ValueError) as raised:
        check_mode(None, "argument_mode")
    assert (
        str(raised.value) == "argument_mode must be one of partial, exact, ignore, subset, got None"
    )


def test_an_expected_call_keeps_the_regex_time_limit_and_one_ignored_key() -> None:
    """`ExpectedCall`: its `$regex` patterns search with `regex_timeout` (G8); a single string
    in `ignore_keys` is one path (`check_keys`)."""
    step = ExpectedCall("f", {"q": {"$regex": "a"}}, regex_timeout=0.25)
    assert step.arguments is not None
    assert step.arguments["q"].pattern.timeout == 0.25
    spec = ExpectedCall.from_spec({"tool": "f", "ignore_keys": "id"})
    assert spec.ignore_keys == ("id",)


@pytest.mark.parametrize(
    ("result", "flag"),
    [
        (ToolResult(data={"is_error": True}), "data"),
        (ToolResult(content='{"is_error": true}'), "data"),
        (ToolResult(data={"is_error": False}), None),
        (ToolResult(data={"error": True}), "data"),
        (ToolResult(data={"error": "boom"}), "data"),
        (ToolResult(data={"error": ""}), None),
        (ToolResult(data={"error": False}), None),
        (ToolResult(data={"error": 0}), None),
        (ToolResult(data={"error": {}}), None),
        (ToolResult(data={"error": []}), None),
        # structured data wins over the text: the text is parsed only without data
        (ToolResult(content='{"status": "ok"}', data={"error": "boom"}), "data"),
        (ToolResult(content='{"error": "boom"}', data={"status": "ok"}), None),
    ],
)
def test_error_flag_reads_the_data_keys(result: ToolResult, flag: str | None) -> None:
    """`error_flag` docstring: structured `data` (or, without it, the text parsed as JSON) is an
    error with a non-empty `error` key (`null`, `false`, `0`, `""`, `{}`, `[]` are empty) or
    `is_error`/`isError` set to true."""
    assert error_flag(result) == flag
