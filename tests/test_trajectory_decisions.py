"""Trajectory decisions pinned as whole records: counts, loops, steps, results and errors.

Each test names the rule it pins: the check's docstring or docs/trajectories.md ("Counts, loops
and steps", "Results and errors"). Reasons, details and statuses are compared whole, so a
changed key, count, bound or wording fails here.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from chatassert import (
    Conversation,
    MaxToolCalls,
    NoRepeatedCalls,
    NoToolErrors,
    Status,
    StepsBeforeAnswer,
    ToolCall,
    ToolCallCount,
    ToolResult,
    ToolResultContains,
    ToolResultMatches,
    ToolSequence,
    Turn,
)

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR


def call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    return ToolCall(name=name, arguments={} if arguments is None else arguments, id=id)


def turn(*calls: str | ToolCall, results: list[ToolResult] | None = None) -> Turn:
    return Turn(
        text="Done.",
        tool_calls=[call(c) if isinstance(c, str) else c for c in calls],
        tool_results=results or [],
    )


def record(result: Any) -> tuple[Status, str, dict[str, Any]]:
    return result.status, result.reason, dict(result.details)


# --- ToolCallCount: inclusive bounds; "the reason lists where the calls were" ------------------


def locations(n: int) -> list[str]:
    return [f"tool_calls[{j}]" for j in range(n)]


def count_details(min: int | None, max: int | None, n: int) -> dict[str, Any]:
    return {
        "tool": "search",
        "min": min,
        "max": max,
        "count": n,
        "calls": locations(n),
        "errored": 0,
    }


@pytest.mark.parametrize(
    ("min", "max", "n", "status", "reason"),
    [
        (1, None, 1, P, "'search' was called 1 time"),
        (None, 5, 5, P, "'search' was called 5 times"),
        (None, 0, 1, F,
         "expected 'search' to be called at most 0 times but it was called 1 time (tool_calls[0])"),
        (None, 4, 5, F,
         "expected 'search' to be called at most 4 times but it was called 5 times "
         "(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3], tool_calls[4])"),
        (None, 5, 6, F,
         "expected 'search' to be called at most 5 times but it was called 6 times "
         "(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3], tool_calls[4], …)"),
        (2, 3, 0, F,
         "expected 'search' to be called between 2 and 3 times but it was called 0 times"),
    ],
)  # fmt: skip
def test_tool_call_count_records(
    min: int | None, max: int | None, n: int, status: Status, reason: str
) -> None:
    result = ToolCallCount("search", min=min, max=max).check(turn(*["search"] * n, "fetch"))
    assert record(result) == (status, reason, count_details(min, max, n))


def test_tool_call_count_describes_its_bounds() -> None:
    assert ToolCallCount("search", max=0).describe() == "calls search at most 0 times"
    assert ToolCallCount("search", max=1).describe() == "calls search at most 1 time"
    assert ToolCallCount("search", min=2).describe() == "calls search at least 2 times"
    assert ToolCallCount("search", 2, 2).describe() == "calls search exactly 2 times"


# --- MaxToolCalls: "a budget over all tools; the reason breaks the count down by tool" --------


@pytest.mark.parametrize(
    ("max", "status", "reason"),
    [
        (3, P, "3 tool calls"),
        (2, F, "expected at most 2 tool calls but got 3: search x2, fetch x1"),
    ],
)
def test_max_tool_calls_records(max: int, status: Status, reason: str) -> None:
    result = MaxToolCalls(max).check(turn("search", "fetch", "search"))
    assert record(result) == (
        status,
        reason,
        {"max": max, "count": 3, "by_tool": {"search": 2, "fetch": 1}},
    )


# --- NoRepeatedCalls: "same name and JSON-equal arguments (4 and 4.0 are equal), leaving out
# ignore_keys. Arguments that are not valid JSON compare as their raw text." -----------------


def repeated(*calls: ToolCall, ignore_keys: tuple[str, ...] = ()) -> Any:
    return NoRepeatedCalls(ignore_keys=ignore_keys).check(turn(*calls))


def test_no_repeated_calls_pass_record() -> None:
    result = repeated(call("search", {"q": "a"}), call("search", {"q": "b"}), ignore_keys=("id",))
    assert record(result) == (P, "repeats no tool call", {"repeats": [], "ignore_keys": ["id"]})


def test_a_repeat_reports_the_first_calls_arguments_sorted_and_unescaped() -> None:
    first = call("search", {"q": "café", "n": 4, "rid": "a"})
    again = call("search", {"rid": "b", "n": 4.0, "q": "café"})
    result = repeated(first, again, ignore_keys=("rid",))
    assert record(result) == (
        F,
        "expected no repeated calls but 'search' was called 2 times with the same arguments "
        '{"n": 4, "q": "café", "rid": "a"} (tool_calls[0], tool_calls[1])',
        {
            "repeats": [
                {
                    "tool": "search",
                    "arguments": {"q": "café", "n": 4, "rid": "a"},
                    "count": 2,
                    "calls": ["tool_calls[0]", "tool_calls[1]"],
                }
            ],
            "ignore_keys": ["rid"],
        },
    )


@pytest.mark.parametrize(
    ("a", "b", "loops"),
    [
        ({"n": 4}, {"n": 4.0}, True),  # JSON-equal
        ({"n": 4.5}, {"n": 4}, False),  # a fraction is not rounded away
        ({"q": ["refund"]}, {"q": ["returns"]}, False),  # list items are compared
        ({"q": [1, 2.0]}, {"q": [1.0, 2]}, True),
        ({"day": datetime.date(2024, 2, 15)}, {"day": datetime.date(2024, 2, 15)}, True),
        ({"day": datetime.date(2024, 2, 15)}, {"day": datetime.date(2024, 2, 16)}, False),
    ],
)
def test_which_arguments_are_the_same(a: dict[str, Any], b: dict[str, Any], loops: bool) -> None:
    result = repeated(call("s", a), call("s", b))
    assert result.status is (F if loops else P)


def test_arguments_that_are_not_json_compare_as_raw_text() -> None:
    broken = '{"q": "refund'
    result = repeated(call("s", broken), call("s", broken))
    assert result.status is F
    assert result.details["repeats"][0]["arguments"] == broken
    assert result.reason.endswith(
        'the same arguments "{\\"q\\": \\"refund" (tool_calls[0], tool_calls[1])'
    )
    assert repeated(call("s", broken), call("s", '{"q": "returns')).status is P
    # unreadable arguments without any raw text compare as empty text, unlike any other text
    lost = ToolCall(name="s", arguments_error="the arguments were not recorded")
    assert repeated(lost, lost).status is F
    for raw in ("XXXX", "oops", "raw:"):
        assert repeated(lost, call("s", raw)).status is P


@pytest.mark.parametrize(
    ("ignore_keys", "a", "b", "loops"),
    [
        # an ignored key that is absent is no problem
        (("request_id",), {"q": 1}, {"q": 1}, True),
        (("request_id",), {"q": 1, "request_id": "x"}, {"q": 1, "request_id": "y"}, True),
        (("meta.rid",), {"q": 1, "meta": {"rid": "a"}}, {"q": 1, "meta": {"rid": "b"}}, True),
        (("meta.rid",), {"q": 1, "meta": {"rid": "a", "v": 1}}, {"q": 1, "meta": {"rid": "b"}},
         False),
        # a path whose parent is not an object leaves the arguments as they are
        (("meta.rid",), {"q": 1}, {"q": 2}, False),
        (("meta.rid",), {"q": 1, "meta": "x"}, {"q": 2, "meta": "x"}, False),
        (("meta.rid",), {"q": 1, "meta": "x"}, {"q": 1, "meta": "x"}, True),
    ],
)  # fmt: skip
def test_ignore_keys_leave_out_dotted_paths(
    ignore_keys: tuple[str, ...], a: dict[str, Any], b: dict[str, Any], loops: bool
) -> None:
    result = repeated(call("s", a), call("s", b), ignore_keys=ignore_keys)
    assert result.status is (F if loops else P), result.reason


def test_the_reason_names_the_first_repeat_and_counts_the_others() -> None:
    pairs = [call(name, {"q": 1}) for name in ("a", "b", "c") for _ in range(2)]
    assert repeated(*pairs[:4]).reason.endswith(
        "(tool_calls[0], tool_calls[1]); and 1 more repeated call(s)"
    )
    assert repeated(*pairs).reason.endswith(
        "(tool_calls[0], tool_calls[1]); and 2 more repeated call(s)"
    )
    assert repeated(*pairs[:2]).reason.endswith("(tool_calls[0], tool_calls[1])")


def test_the_reason_lists_five_locations_and_shortens_long_arguments_to_80() -> None:
    six = repeated(*[call("s", {"q": 1})] * 6)
    assert six.reason.endswith(
        "(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3], tool_calls[4])"
    )
    assert six.details["repeats"][0]["count"] == 6
    value = "x" * 72  # '{"q": "' + 72 + '"}' is 81 characters
    long = repeated(call("s", {"q": value}), call("s", {"q": value}))
    shown = long.reason.split("the same arguments ")[1].rsplit(" (tool_calls", 1)[0]
    assert len(shown) == 80
    assert "…" in shown


# --- StepsBeforeAnswer: "The final answer is the turn's last assistant message that has text
# and no tool calls ... A turn without a final answer fails." (docs/trajectories.md) ---------


def tool_call_message(name: str, id: str) -> dict[str, Any]:
    function = {"name": name, "arguments": "{}"}
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": id, "type": "function", "function": function}]}  # fmt: skip


USER = {"role": "user", "content": "Where is order 1042?"}


@pytest.mark.parametrize(
    ("messages", "steps", "calls", "texts", "answered"),
    [
        # the first assistant message is the answer
        ([USER, {"role": "assistant", "content": "It shipped."}], 0, 0, 0, True),
        # no assistant message at all
        ([USER], 0, 0, 0, False),
        # a trailing call after the answer: the answer is the last message with text only
        (
            [
                USER,
                tool_call_message("lookup", "c1"),
                {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
                {"role": "assistant", "content": "It shipped."},
                tool_call_message("log", "c2"),
            ],
            1, 1, 0, True,
        ),
        (
            [
                USER,
                {"role": "assistant", "content": "Let me look."},
                tool_call_message("lookup", "c1"),
                {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
                {"role": "assistant", "content": "One moment."},
                {"role": "assistant", "content": "It shipped."},
            ],
            3, 1, 2, True,
        ),
    ],
)  # fmt: skip
def test_steps_before_answer_counts(
    messages: list[dict[str, Any]], steps: int, calls: int, texts: int, answered: bool
) -> None:
    result = StepsBeforeAnswer(5).check(Turn(messages=messages))
    row = {
        "turn": None,
        "steps": steps,
        "tool_calls": calls,
        "intermediate_messages": texts,
        "answered": answered,
    }
    assert result.details == {"max": 5, "turns": [row]}
    if answered:
        assert (result.status, result.reason) == (P, "answers within 5 steps")
    else:
        assert (result.status, result.reason) == (
            F,
            "expected at most 5 steps before the final answer but has no final answer",
        )


def test_steps_before_answer_names_the_first_problem_and_counts_the_rest() -> None:
    slow = turn("a", "b")
    chat = Conversation(turns=[slow, Turn(text=""), slow])
    result = StepsBeforeAnswer(1).check(chat)
    assert result.reason == (
        "expected at most 1 steps before the final answer but turns[0] took 2 "
        "(2 tool calls, 0 intermediate messages); and 2 more"
    )
    two = StepsBeforeAnswer(1).check(Conversation(turns=[slow, slow]))
    assert two.reason.endswith("(2 tool calls, 0 intermediate messages); and 1 more")
    one = StepsBeforeAnswer(1).check(Conversation(turns=[Turn(text="Hi"), slow]))
    assert one.reason.endswith("turns[1] took 2 (2 tool calls, 0 intermediate messages)")


# --- ToolResultContains / ToolResultMatches: details and case (docs/trajectories.md) ----------


def test_tool_result_contains_records() -> None:
    t = turn(call("lookup", id="c1"), results=[ToolResult(call_id="c1", content="SHIPPED")])
    exact = ToolResultContains("lookup", "SHIPPED", case_sensitive=True).check(t)
    assert record(exact) == (
        P,
        "a result of lookup contains 'SHIPPED'",
        {
            "tool": "lookup",
            "value": "SHIPPED",
            "match": "any",
            "results": [{"call": "tool_calls[0]", "content": "SHIPPED", "matched": True}],
        },
    )
    never = ToolResultContains("fetch", "x", match="all").check(t)
    assert record(never) == (
        F,
        "expected a result of 'fetch' containing 'x' but 'fetch' was never called",
        {"tool": "fetch", "value": "x", "match": "all", "results": []},
    )
    matches = ToolResultMatches("lookup", "^SHIP").check(t)
    assert matches.details == {
        "tool": "lookup",
        "pattern": "^SHIP",
        "match": "any",
        "results": [{"call": "tool_calls[0]", "content": "SHIPPED", "matched": True}],
    }


# --- NoToolErrors: details and the listing of errored calls (docs/trajectories.md) -------------


def failing_turn(errors: int, fine: int = 1) -> Turn:
    calls = [call(f"t{j}", id=f"c{j}") for j in range(errors + fine)]
    results = [
        ToolResult(call_id=f"c{j}", content=f"Error: e{j}" if j < errors else "ok")
        for j in range(errors + fine)
    ]
    return turn(*calls, results=results)


def test_no_tool_errors_pass_record() -> None:
    result = NoToolErrors().check(failing_turn(0, fine=2))
    assert record(result) == (
        P,
        "no tool call errored",
        {"errors": [], "error_count": 0, "call_count": 2},
    )


@pytest.mark.parametrize(
    ("errors", "tail"),
    [
        (3, "'t2' (tool_calls[2]): 'Error: e2'"),
        (4, "'t2' (tool_calls[2]): 'Error: e2'; and 1 more"),
        (5, "'t2' (tool_calls[2]): 'Error: e2'; and 2 more"),
    ],
)
def test_no_tool_errors_lists_three_errors_and_counts_the_rest(errors: int, tail: str) -> None:
    result = NoToolErrors().check(failing_turn(errors))
    assert result.reason == (
        f"expected no tool errors but {errors} of {errors + 1} calls errored: "
        "'t0' (tool_calls[0]): 'Error: e0'; 't1' (tool_calls[1]): 'Error: e1'; " + tail
    )
    assert result.details["error_count"] == errors
    assert result.details["call_count"] == errors + 1
    assert [e["call"] for e in result.details["errors"]] == locations(errors)


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


# --- result checks: "The tool never called is a failure; called but without a recorded result
# is an error"; "a result's text is its content, or its structured data as JSON" -------------


def results_turn(*contents: str | None) -> Turn:
    """One call of `s` per item; None leaves that call without a recorded result."""
    calls = [call("s", id=f"c{j}") for j in range(len(contents))]
    results = [ToolResult(call_id=f"c{j}", content=c) for j, c in enumerate(contents) if c]
    return turn(*calls, results=results)


def row(j: int, content: str | None, matched: bool | None) -> dict[str, Any]:
    return {"call": f"tool_calls[{j}]", "content": content, "matched": matched}


@pytest.mark.parametrize(
    ("match", "contents", "status", "reason", "rows"),
    [
        ("any", (None,), E, "'s' was called but no result of it was recorded",
         [row(0, None, None)]),
        ("any", (None, "ok"), P, "a result of s contains 'ok'",
         [row(0, None, None), row(1, "ok", True)]),
        ("all", (None, "ok"), E, "no result was recorded for 's' (tool_calls[0])",
         [row(0, None, None), row(1, "ok", True)]),
        ("all", ("ok", "OK!"), P, "a result of s contains 'ok'",
         [row(0, "ok", True), row(1, "OK!", True)]),
        ("all", ("ok", "no"), F,
         "expected every result of 's' containing 'ok' but tool_calls[1] does not ('no')",
         [row(0, "ok", True), row(1, "no", False)]),
        ("any", ("no", "nope"), F,
         "expected a result of 's' containing 'ok' but none of its 2 result(s) does "
         "(tool_calls[0]: 'no')",
         [row(0, "no", False), row(1, "nope", False)]),
    ],
)  # fmt: skip
def test_tool_result_contains_outcomes(
    match: str,
    contents: tuple[str | None, ...],
    status: Status,
    reason: str,
    rows: list[dict[str, Any]],
) -> None:
    result = ToolResultContains("s", "ok", match=match).check(results_turn(*contents))
    assert (result.status, result.name, result.reason, dict(result.details)) == (
        status,
        "tool_result_contains",
        reason,
        {"tool": "s", "value": "ok", "match": match, "results": rows},
    )


def test_a_never_called_tool_is_a_failure_named_after_the_check() -> None:
    result = ToolResultMatches("s", "x").check(turn("t"))
    assert (result.status, result.name, dict(result.details)) == (
        F,
        "tool_result_matches",
        {"tool": "s", "pattern": "x", "match": "any", "results": []},
    )


SLOW = "a" * 40000 + "!"  # `(a|aa)+$` backtracks for far longer than 50 ms on this


def test_a_result_that_runs_out_of_time_is_recorded_as_undecided() -> None:
    result = ToolResultMatches("s", "(a|aa)+$", regex_timeout=0.05).check(results_turn(SLOW))
    assert (result.status, result.name) == (E, "tool_result_matches")
    assert dict(result.details) == {
        "tool": "s",
        "pattern": "(a|aa)+$",
        "match": "any",
        "results": [{**row(0, SLOW, None), "error": "timeout"}],
        "error": "timeout",
    }


def test_a_results_text_is_its_content_else_its_data_as_json() -> None:
    both = Turn(
        tool_calls=[call("s", id="c")],
        tool_results=[ToolResult(call_id="c", content="shipped", data={"status": "lost"})],
    )
    assert ToolResultContains("s", "shipped").check(both).passed
    assert not ToolResultContains("s", "lost").check(both).passed
    data = Turn(
        tool_calls=[call("s", id="c")],
        tool_results=[
            ToolResult(call_id="c", data={"city": "Zürich", "day": datetime.date(2024, 2, 15)})
        ],
    )
    result = ToolResultContains("s", "nothing").check(data)
    assert result.details["results"][0]["content"] == '{"city": "Zürich", "day": "2024-02-15"}'
    empty = Turn(tool_calls=[call("s", id="c")], tool_results=[ToolResult(call_id="c", content="")])
    assert empty.tool_results[0].data is None
    assert ToolResultContains("s", "null").check(empty).details["results"][0]["content"] == ""


def test_a_failure_quotes_a_result_shortened_to_60_characters() -> None:
    content = "x" * 61
    result = ToolResultContains("s", "ok").check(results_turn(content))
    shown = result.reason.split("(tool_calls[0]: ")[1][:-1]
    assert shown == repr("x" * 40 + "…" + "x" * 19)


# --- construction: exception messages say what was expected and what was found (DESIGN.md) --


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: MaxToolCalls("3"), TypeError, "max must be an integer, got str '3'"),
        (lambda: MaxToolCalls(None), TypeError, "max must be an integer, got NoneType None"),
        (lambda: StepsBeforeAnswer(2.0), TypeError, "max must be an integer, got float 2.0"),
        (lambda: StepsBeforeAnswer(-1), ValueError, "max must not be negative, got -1"),
        (lambda: NoRepeatedCalls(ignore_keys=5), TypeError,
         "ignore_keys must be a list of non-empty argument names, got 5"),
        (lambda: NoToolErrors(5), TypeError,
         "tools must be a list of non-empty argument names, got 5"),
        (lambda: NoToolErrors([]), ValueError,
         "tools must name at least one tool (or be omitted for all)"),
        (lambda: ToolCallCount(5, max=1), ValueError,
         "tool_call_count needs a non-empty tool name, got 5"),
        (lambda: ToolCallCount(" ", max=1), ValueError,
         "tool_call_count needs a non-empty tool name, got ' '"),
        (lambda: ToolCallCount("s"), ValueError, "tool_call_count needs min, max or both"),
        (lambda: ToolResultContains("s", 5), ValueError,
         "tool_result_contains needs a non-empty value, got 5"),
        (lambda: ToolResultContains("s", ""), ValueError,
         "tool_result_contains needs a non-empty value, got ''"),
        (lambda: ToolResultContains("s", "x", case_sensitive="yes"), TypeError,
         "case_sensitive must be true or false, got 'yes'"),
    ],
)  # fmt: skip
def test_construction_errors_say_what_was_expected_and_found(
    build: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        build()
    assert str(info.value) == message


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
