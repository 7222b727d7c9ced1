"""Tests of chatassert._sequence (docs/trajectories.md, "Sequence orders", "Arguments").

`ToolSequence`: orders, reasons and details, argument modes and matchers in steps, arguments that
are not JSON, regex timeouts. Spec round trips are in test_trajectory.py, properties in
test_trajectory_props.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chatassert import (
    Conversation,
    Status,
    ToolCall,
    ToolSequence,
    Turn,
)
from trajectory_helpers import (
    BROKEN,
    EXPECTED,
    SLOW,
    F,
    P,
    call,
    locations,
    raises_with,
    record,
    turn,
)

SEARCH_CONFIRM = turn("search", "confirm")


# -- sequence orders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "calls", "passed"),
    [
        ("exact", ["search", "book", "confirm"], True),
        ("exact", ["search", "book", "confirm", "log"], False),
        ("exact", ["search", "confirm", "book"], False),
        ("in_order", ["search", "log", "book", "log", "confirm"], True),
        ("in_order", ["book", "search", "confirm"], False),
        ("any_order", ["confirm", "search", "book"], True),
        ("any_order", ["confirm", "search", "book", "book"], False),
        ("any_order", ["confirm", "search"], False),
        ("subset", ["search", "confirm"], True),
        ("subset", [], True),
        ("subset", ["search", "search"], False),
        ("subset", ["search", "refund"], False),
        ("superset", ["log", "confirm", "book", "search", "log"], True),
        ("superset", ["search", "book"], False),
    ],
)
def test_each_order_passes_and_fails(order: str, calls: list[str], passed: bool) -> None:
    result = ToolSequence(EXPECTED, order).check(turn(*calls))
    assert result.status is (Status.PASSED if passed else Status.FAILED)
    if not passed:
        assert result.reason


def test_in_order_reason_aligns_and_points_at_the_divergence() -> None:
    result = ToolSequence(EXPECTED).check(SEARCH_CONFIRM)
    assert result.reason == (
        "expected [search, book, confirm] in order but got [search, confirm]: step 2 'book' "
        "missing after 'search' (tool_calls[0]); 'book' was never called"
    )


def test_in_order_reason_says_when_the_step_came_too_early() -> None:
    result = ToolSequence(["book", "search"]).check(turn("search", "book"))
    assert result.reason.endswith(
        "step 2 'search' missing after 'book' (tool_calls[1]); "
        "'search' was called only before that (tool_calls[0])"
    )


def test_in_order_first_step_never_called() -> None:
    result = ToolSequence(["lookup", "reply"]).check(turn("reply"))
    assert result.reason.endswith("step 1 'lookup' was never called")


def test_exact_reasons() -> None:
    seq = ToolSequence(EXPECTED, "exact")
    assert seq.check(SEARCH_CONFIRM).reason.endswith(
        "step 2 expected 'book' but got 'confirm' (tool_calls[1])"
    )
    assert seq.check(turn("search", "book")).reason.endswith(
        "step 3 'confirm' missing: the agent stopped after 'book' (tool_calls[1])"
    )
    assert seq.check(turn()).reason.endswith("step 1 'search' missing: no tool was called")
    longer = seq.check(turn("search", "book", "confirm", "log"))
    assert longer.reason.endswith("unexpected extra call 'log' (tool_calls[3]) after step 3")
    assert longer.details["unexpected"] == [
        {"call": "tool_calls[3]", "tool": "log", "arguments": {}}
    ]


def test_set_orders_name_missing_and_unexpected_calls() -> None:
    result = ToolSequence(EXPECTED, "any_order").check(turn("confirm", "refund", "search"))
    assert result.reason == (
        "expected [search, book, confirm] in any order but got [confirm, refund, search]: "
        "step 2 'book' missing ('book' was never called); unexpected 'refund' (tool_calls[1])"
    )
    subset = ToolSequence(EXPECTED, "subset").check(turn("search", "refund"))
    assert subset.reason == (
        "expected only calls from [search, book, confirm] but got [search, refund]: "
        "unexpected 'refund' (tool_calls[1])"
    )
    superset = ToolSequence(EXPECTED, "superset").check(turn("book", "log"))
    assert "step 1 'search' missing" in superset.reason
    assert "step 3 'confirm' missing" in superset.reason
    assert "unexpected" not in superset.reason


def test_details_give_precision_recall_and_pairs() -> None:
    result = ToolSequence(EXPECTED, "in_order").check(turn("search", "log", "confirm"))
    d = result.details
    assert d["matched"] == [
        {"step": 0, "tool": "search", "call": "tool_calls[0]"},
        {"step": 2, "tool": "confirm", "call": "tool_calls[2]"},
    ]
    assert d["missing"] == [{"step": 1, "tool": "book"}]
    assert [u["call"] for u in d["unexpected"]] == ["tool_calls[1]"]
    assert d["precision"] == pytest.approx(2 / 3)
    assert d["recall"] == pytest.approx(2 / 3)
    assert d["expected"] == EXPECTED
    assert d["actual"] == ["search", "log", "confirm"]
    json.dumps(d)


def test_one_call_is_matched_per_step() -> None:
    assert not ToolSequence(["search", "search"], "superset").check(turn("search")).passed
    assert ToolSequence(["search", "search"], "superset").check(turn("search", "search")).passed
    assert not ToolSequence(["search"], "subset").check(turn("search", "search")).passed


def test_conversation_locations_name_turns_and_calls() -> None:
    chat = Conversation(turns=[turn("search"), turn("log", "confirm")])
    result = ToolSequence(EXPECTED, "exact").check(chat)
    assert result.reason.endswith("step 2 expected 'book' but got 'log' (turns[1].tool_calls[0])")
    assert result.details["locations"] == [
        "turns[0].tool_calls[0]",
        "turns[1].tool_calls[0]",
        "turns[1].tool_calls[1]",
    ]
    in_order = ToolSequence(EXPECTED).check(chat)
    assert "missing after 'search' (turns[0].tool_calls[0])" in in_order.reason
    assert ToolSequence(["search", "confirm"]).check(chat).passed


def test_a_string_subject_has_no_calls() -> None:
    assert not ToolSequence(["search"]).check("I could not find it.").passed


# -- argument modes and matchers ----------------------------------------------------------


BOOK = call("book", {"date": "2024-02-15", "party": {"size": 4, "names": ["Ann"]}, "rid": "r1"})


def test_partial_is_the_default_and_loose() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"party": {"size": "4"}}}])
    assert seq.check(turn(BOOK)).passed


def test_partial_mismatch_names_the_deepest_argument() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"party": {"size": 5}}}])
    result = seq.check(turn(BOOK))
    assert result.reason.endswith(
        "step 1 'book' not found; 'book' (tool_calls[0]) differs: party.size=4, expected 5"
    )


def test_exact_mode_rejects_extra_arguments_except_ignored_keys() -> None:
    args = {"date": "2024-02-15", "party": {"size": 4, "names": ["Ann"]}}
    exact = ToolSequence([{"tool": "book", "arguments": args}], argument_mode="exact")
    result = exact.check(turn(BOOK))
    assert not result.passed
    assert 'unexpected argument rid="r1"' in result.reason
    assert (
        ToolSequence(
            [{"tool": "book", "arguments": args}], argument_mode="exact", ignore_keys=["rid"]
        )
        .check(turn(BOOK))
        .passed
    )
    nested = {"date": "2024-02-15", "party": {"size": 4}, "rid": "r1"}
    assert (
        not ToolSequence([{"tool": "book", "arguments": nested}], argument_mode="exact")
        .check(turn(BOOK))
        .passed
    )
    assert (
        ToolSequence(
            [{"tool": "book", "arguments": nested, "ignore_keys": ["party.names"]}],
            argument_mode="exact",
        )
        .check(turn(BOOK))
        .passed
    )


def test_ignore_mode_and_name_only_steps() -> None:
    wrong = [{"tool": "book", "arguments": {"date": "1999-01-01"}, "argument_mode": "ignore"}]
    assert ToolSequence(wrong).check(turn(BOOK)).passed
    assert ToolSequence(["book"]).check(turn(BOOK)).passed


def test_per_tool_overrides_and_step_precedence() -> None:
    args = {"date": "2024-02-15", "party": {"size": 4, "names": ["Ann"]}}
    steps = [{"tool": "book", "arguments": args}]
    assert (
        not ToolSequence(steps, per_tool={"book": {"argument_mode": "exact"}})
        .check(turn(BOOK))
        .passed
    )
    assert (
        ToolSequence(steps, per_tool={"book": {"argument_mode": "exact", "ignore_keys": ["rid"]}})
        .check(turn(BOOK))
        .passed
    )
    stepwise = [{"tool": "book", "arguments": args, "argument_mode": "partial"}]
    assert (
        ToolSequence(stepwise, argument_mode="exact", per_tool={"book": {"argument_mode": "exact"}})
        .check(turn(BOOK))
        .passed
    )


@pytest.mark.parametrize(
    ("matcher", "good", "bad"),
    [
        ({"$regex": r"^C\d+$"}, "C1042", "1042"),
        ({"$regex": "(?i)urgent"}, "URGENT", "low"),
        ({"$regex": "^4$"}, 4, 5),
        ({"$one_of": ["high", "urgent"]}, "urgent", "low"),
        ({"$one_of": [1, 2]}, "2", 3),
        ({"$range": [1, 10]}, 10, 11),
        ({"$range": [None, 0.5]}, "0.25", 0.75),
        ({"$range": [1, 10]}, 1.0, "ten"),
        ({"$any": True}, None, "<missing>"),
    ],
)
def test_argument_matchers(matcher: dict[str, Any], good: Any, bad: Any) -> None:
    seq = ToolSequence([{"tool": "f", "arguments": {"x": matcher}}])
    assert seq.check(turn(call("f", {"x": good}))).passed
    bad_args = {} if bad == "<missing>" else {"x": bad}
    assert not seq.check(turn(call("f", bad_args))).passed


def test_matcher_failure_reason_describes_the_matcher() -> None:
    seq = ToolSequence([{"tool": "f", "arguments": {"n": {"$range": [1, 4]}}}])
    assert seq.check(turn(call("f", {"n": 6}))).reason.endswith("n=6 is not a number in [1, 4]")


# -- invalid JSON arguments -----------------------------------------------------------------


def test_invalid_json_is_an_error_when_arguments_must_be_compared() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"date": "2024-02-15"}}])
    result = seq.check(turn(BROKEN))
    assert result.status is Status.ERROR
    assert result.reason.startswith("cannot compare the arguments of 'book' (tool_calls[0])")
    assert result.details["invalid_arguments"][0]["raw_arguments"] == '{"date": 2024-02-15'


def test_invalid_json_does_not_matter_when_names_decide() -> None:
    assert ToolSequence(["book"]).check(turn(BROKEN)).passed
    seq = ToolSequence([{"tool": "book", "arguments": {"date": "2024-02-15"}}])
    good = call("book", {"date": "2024-02-15"})
    assert seq.check(turn(BROKEN, good)).passed
    # the broken call cannot rescue a sequence that fails whatever its arguments are
    assert seq.check(turn(BROKEN, "refund")).status is Status.ERROR
    assert ToolSequence(["search", "book"], "exact").check(turn(BROKEN)).status is Status.FAILED


def test_a_sequence_regex_that_runs_out_of_time_is_undecided_not_a_crash() -> None:
    step = {"tool": "get", "arguments": {"q": {"$regex": "(a|aa)+$|world"}}}
    calls = Turn(
        tool_calls=[
            ToolCall(name="get", arguments={"q": SLOW}),
            ToolCall(name="get", arguments={"q": "world"}),
        ]
    )
    assert ToolSequence([step], order="superset", regex_timeout=0.05).check(calls).passed
    only_slow = Turn(tool_calls=[ToolCall(name="get", arguments={"q": SLOW})])
    result = ToolSequence([step], order="superset", regex_timeout=0.05).check(only_slow)
    assert (result.status, result.name) == (Status.ERROR, "tool_sequence")  # the sequence's own
    assert result.details["error"] == "timeout"
    assert result.details["pattern"] == "(a|aa)+$|world"


# --- ToolSequence.describe: "calls [steps] (order)" -------------------------------------------


@pytest.mark.parametrize(
    ("order", "text"),
    [("in_order", "in order"), ("any_order", "any order"), ("exact", "exact")],
)
def test_tool_sequence_describes_its_order_in_words(order: str, text: str) -> None:
    assert ToolSequence(["a", "b"], order).describe() == f"calls [a, b] ({text})"


# --- ToolSequence in_order details: "the pairs are the longest in-order matching, and of several
# equally long ones the one whose matched calls come earliest" (docs/trajectories.md) ---------


def sequence_details(
    steps: list[str],
    calls: list[str],
    matched: list[tuple[int, int]],
    precision: float,
    recall: float,
) -> dict[str, Any]:
    used = {j for _, j in matched}
    paired = {i for i, _ in matched}
    return {
        "order": "in_order",
        "expected": steps,
        "actual": calls,
        "locations": locations(len(calls)),
        "matched": [{"step": i, "tool": steps[i], "call": f"tool_calls[{j}]"} for i, j in matched],
        "missing": [{"step": i, "tool": t} for i, t in enumerate(steps) if i not in paired],
        "unexpected": [
            {"call": f"tool_calls[{j}]", "tool": t, "arguments": {}}
            for j, t in enumerate(calls)
            if j not in used
        ],
        "precision": precision,
        "recall": recall,
        "errored_calls": [],
    }


IN_ORDER_CASES = [
    (  # the docs' example: of two equally long pairings, book takes the first book
        ["search", "book"],
        ["book", "book"],
        F,
        "expected [search, book] in order but got [book, book]: step 1 'search' was never called",
        [(1, 0)],
        (1 / 2, 1 / 2),
    ),
    (  # book then search: either can be paired, not both; the earlier call wins
        ["search", "book"],
        ["book", "search"],
        F,
        "expected [search, book] in order but got [book, search]: step 2 'book' missing "
        "after 'search' (tool_calls[1]); 'book' was called only before that (tool_calls[0])",
        [(1, 0)],
        (1 / 2, 1 / 2),
    ),
    (  # a step found after an extra call is still paired
        ["search", "book"],
        ["log", "search"],
        F,
        "expected [search, book] in order but got [log, search]: "
        "step 2 'book' missing after 'search' (tool_calls[1]); 'book' was never called",
        [(0, 1)],
        (1 / 2, 1 / 2),
    ),
    (  # a pass pairs the step with its call, however late
        ["search"],
        ["log", "log", "search"],
        P,
        "called [log, log, search]",
        [(0, 2)],
        (1 / 3, 1.0),
    ),
    (  # confirm (tool_calls[0]) or search (tool_calls[1]): one pair either way, the earlier call
        ["search", "book", "confirm"],
        ["confirm", "search"],
        F,
        "expected [search, book, confirm] in order but got [confirm, search]: "
        "step 2 'book' missing after 'search' (tool_calls[1]); 'book' was never called",
        [(2, 0)],
        (1 / 2, 1 / 3),
    ),
]


@pytest.mark.parametrize(
    ("steps", "calls", "status", "reason", "matched", "scores"), IN_ORDER_CASES
)
def test_in_order_pairs_are_the_longest_matching_with_the_earliest_calls(
    steps: list[str],
    calls: list[str],
    status: Status,
    reason: str,
    matched: list[tuple[int, int]],
    scores: tuple[float, float],
) -> None:
    result = ToolSequence(steps).check(turn(*calls))
    assert record(result) == (status, reason, sequence_details(steps, calls, matched, *scores))


# --- ToolSequence reasons (docstring): "called [tools]" when it passes; three argument problems
# and four missing steps or unexpected calls at most, then "; and N more" ---------------------


def test_tool_sequence_passes_saying_what_was_called() -> None:
    result = ToolSequence(["a", "b"], "exact").check(turn("a", "b"))
    assert (result.status, result.reason) == (P, "called [a, b]")


@pytest.mark.parametrize(
    ("n_args", "tail"),
    [
        (3, ""),
        (4, "; and 1 more"),
        (5, "; and 2 more"),
    ],
)
def test_tool_sequence_names_three_argument_problems_then_counts_the_rest(
    n_args: int, tail: str
) -> None:
    names = "abcde"[:n_args]
    check = ToolSequence([{"tool": "f", "arguments": dict.fromkeys(names, 1)}], "exact")
    result = check.check(turn("f"))
    shown = "; ".join(f"argument '{k}' is missing" for k in names[:3])
    assert (result.status, result.reason) == (
        F,
        f"expected exactly [f] but got [f]: 'f' (tool_calls[0]) differs: {shown}{tail}",
    )


@pytest.mark.parametrize(("n_steps", "tail"), [(4, ""), (5, "; and 1 more"), (6, "; and 2 more")])
def test_tool_sequence_names_four_divergences_then_counts_the_rest(n_steps: int, tail: str) -> None:
    steps = list("abcdef"[:n_steps])
    result = ToolSequence(steps, "any_order").check(Turn(text="Done."))
    shown = "; ".join(
        f"step {i + 1} '{s}' missing ('{s}' was never called)" for i, s in enumerate(steps[:4])
    )
    assert (result.status, result.reason) == (
        F,
        f"expected [{', '.join(steps)}] in any order but got []: {shown}{tail}",
    )


# --- whole records the docstring and docs/trajectories.md ("Sequence orders", "Arguments")
# document: `details` hold `matched` pairs, `missing` steps (with their arguments in spec form)
# and `unexpected` calls; arguments that are not JSON make an `error` naming each such call -----


def test_exact_pairs_step_i_with_call_i_only() -> None:
    # `exact`: "the calls are the steps, in order": step i can only be paired with call i, so
    # swapped calls pair nothing, although each step has a call elsewhere
    steps = ["search", {"tool": "book", "arguments": {"date": {"$regex": "^2024-"}}}]
    result = ToolSequence(steps, "exact").check(
        turn(call("book", {"date": "2023-01-01"}), "search")
    )
    assert (result.status, result.name) == (F, "tool_sequence")
    assert record(result)[1:] == (
        "expected exactly [search, book] but got [book, search]: "
        "step 1 expected 'search' but got 'book' (tool_calls[0])",
        {
            "order": "exact",
            "expected": ["search", "book"],
            "actual": ["book", "search"],
            "locations": locations(2),
            "matched": [],
            "missing": [
                {"step": 0, "tool": "search"},
                {"step": 1, "tool": "book", "arguments": {"date": {"$regex": "^2024-"}}},
            ],
            "unexpected": [
                {"call": "tool_calls[0]", "tool": "book", "arguments": {"date": "2023-01-01"}},
                {"call": "tool_calls[1]", "tool": "search", "arguments": {}},
            ],
            "precision": 0.0,
            "recall": 0.0,
            "errored_calls": [],
        },
    )


def test_invalid_json_error_is_a_whole_tool_sequence_record() -> None:
    seq = ToolSequence([{"tool": "book", "arguments": {"date": "2024-02-15"}}])
    result = seq.check(turn(BROKEN))
    error = "arguments are not valid JSON: Expecting ',' delimiter: line 1 column 14 (char 13)"
    assert (result.status, result.name) == (Status.ERROR, "tool_sequence")
    assert record(result)[1:] == (
        f"cannot compare the arguments of 'book' (tool_calls[0]): {error}",
        {
            "order": "in_order",
            "expected": ["book"],
            "actual": ["book"],
            "locations": locations(1),
            "matched": [],
            "missing": [{"step": 0, "tool": "book", "arguments": {"date": "2024-02-15"}}],
            "unexpected": [{"call": "tool_calls[0]", "tool": "book", "arguments": {}}],
            "precision": 0.0,
            "recall": 0.0,
            "errored_calls": [],
            "invalid_arguments": [
                {
                    "call": "tool_calls[0]",
                    "tool": "book",
                    "raw_arguments": '{"date": 2024-02-15',
                    "error": error,
                }
            ],
        },
    )


# --- construction: exception messages say where, what was expected and what was found
# (DESIGN.md), and an unknown per_tool key gets a "did you mean" or the valid keys ------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"steps": "search"}, TypeError,
         "steps must be a list of expected calls (tool names or mappings with 'tool'), "
         "got str 'search'"),
        ({"steps": []}, ValueError, "steps must name at least one expected call"),
        ({"argument_mode": "strict"}, ValueError,
         "argument_mode must be one of partial, exact, ignore, subset, got 'strict'"),
        ({"ignore_keys": 5}, TypeError,
         "ignore_keys must be a list of non-empty argument names, got 5"),
        ({"per_tool": ["a"]}, TypeError,
         "per_tool must be a mapping {tool: {argument_mode?, ignore_keys?}}, got list ['a']"),
        ({"per_tool": {"": {"argument_mode": "exact"}}}, TypeError,
         "per_tool keys must be tool names, got ''"),
        ({"per_tool": {1: {"argument_mode": "exact"}}}, TypeError,
         "per_tool keys must be tool names, got 1"),
        ({"per_tool": {"a": "exact"}}, TypeError,
         "per_tool.a must be a mapping with argument_mode and/or ignore_keys, got str 'exact'"),
        ({"per_tool": {"a": {"argument_mode": "strict"}}}, ValueError,
         "per_tool.a.argument_mode must be one of partial, exact, ignore, subset, got 'strict'"),
        ({"per_tool": {"a": {"ignore_keys": 5}}}, TypeError,
         "per_tool.a.ignore_keys must be a list of non-empty argument names, got 5"),
        ({"per_tool": {"a": {"mode": "exact"}}}, ValueError,
         "per_tool.a: unknown key 'mode'; valid keys: argument_mode, ignore_keys"),
        ({"per_tool": {"a": {"argument_mod": "exact"}}}, ValueError,
         "per_tool.a: unknown key 'argument_mod' (did you mean 'argument_mode'?)"),
        ({"per_tool": {"a": {"ignore_key": ["x"]}}}, ValueError,
         "per_tool.a: unknown key 'ignore_key' (did you mean 'ignore_keys'?)"),
        ({"per_tool": {"a": {}}}, ValueError,
         "per_tool.a is empty; give argument_mode and/or ignore_keys"),
    ],
)  # fmt: skip
def test_construction_errors_say_what_was_expected_and_found(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    raises_with(lambda: ToolSequence(**{"steps": ["a"], **kwargs}), error, message)
