"""Tests of chatassert._tool_results (docs/trajectories.md, "Results and errors").

`ToolResultContains`, `ToolResultMatches` and `NoToolErrors`: pairing results with calls, the
text of a result, never called and missing results, regex timeouts, whole records and
construction errors. Specs shared with the other trajectory checks are in test_trajectory.py.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from chatassert import (
    NoToolErrors,
    Status,
    ToolCall,
    ToolResult,
    ToolResultContains,
    ToolResultMatches,
    Turn,
)
from trajectory_helpers import (
    AGENT_LOOP,
    SLOW,
    E,
    F,
    P,
    call,
    locations,
    raises_with,
    record,
    turn,
)

# -- results and errors -------------------------------------------------------------------------


def test_tool_result_contains_links_results_by_id() -> None:
    t = Turn(messages=AGENT_LOOP)
    assert ToolResultContains("lookup_order", "SHIPPED").check(t).passed
    assert not ToolResultContains("lookup_order", "SHIPPED", case_sensitive=True).check(t).passed
    result = ToolResultContains("lookup_order", "delivered").check(t)
    assert result.reason == (
        "expected a result of 'lookup_order' containing 'delivered' but none of its 1 "
        """result(s) does (tool_calls[0]: '{"status": "shipped"}')"""
    )
    assert result.details["results"] == [
        {"call": "tool_calls[0]", "content": '{"status": "shipped"}', "matched": False}
    ]


def test_a_failure_report_names_each_result_after_the_call_the_check_paired_it_with() -> None:
    """SEMANTICS G20: the id-less result is b's (a's id is named later), in the verdict and in
    the transcript excerpt a report prints beside it, which reads the results' names."""
    from chatassert.reporting import excerpt

    t = Turn(
        messages=[
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "x", "function": {"name": "paris", "arguments": "{}"}},
                    {"function": {"name": "rome", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "content": "21C"},
            {"role": "tool", "tool_call_id": "x", "content": "18C"},
            {"role": "assistant", "content": "Paris 18C, Rome 21C."},
        ]
    )
    assert ToolResultContains("rome", "21C").check(t).passed
    failed = ToolResultContains("paris", "21C").check(t)
    assert failed.reason == (
        "expected a result of 'paris' containing '21C' but none of its 1 result(s) does "
        "(tool_calls[0]: '18C')"
    )
    assert excerpt(t).splitlines()[1:5] == [
        "  -> paris({})",
        "  -> rome({})",
        "  <- rome: 21C",
        "  <- paris: 18C",
    ]


def test_tool_result_checks_all_never_called_and_missing_results() -> None:
    t = turn(call("search", id="a"), call("search", id="b"))
    t = t.model_copy(
        update={
            "tool_results": (
                ToolResult(call_id="b", content="2 refunds"),
                ToolResult(call_id="a", content="no hits"),
            )
        }
    )
    assert ToolResultContains("search", "refund").check(t).passed
    every = ToolResultContains("search", "refund", match="all").check(t)
    assert every.reason == (
        "expected every result of 'search' containing 'refund' but tool_calls[0] does not "
        "('no hits')"
    )
    assert ToolResultContains("fetch", "x").check(t).reason.endswith("'fetch' was never called")
    no_results = turn("search")
    assert ToolResultContains("search", "x").check(no_results).status is Status.ERROR
    half = turn(call("s", id="a"), call("s", id="b")).model_copy(
        update={"tool_results": (ToolResult(call_id="a", content="ok"),)}
    )
    assert ToolResultContains("s", "ok", match="all").check(half).status is Status.ERROR
    assert ToolResultContains("s", "ok").check(half).passed


def test_tool_result_matches_and_structured_data() -> None:
    t = Turn(
        tool_calls=[call("create_ticket")], tool_results=[ToolResult(data={"ticket": "TCK-2291"})]
    )
    assert ToolResultMatches("create_ticket", r'"TCK-\d+"').check(t).passed
    result = ToolResultMatches("create_ticket", r"^INC-").check(t)
    assert result.status is Status.FAILED
    assert "matching /^INC-/" in result.reason


def test_a_result_regex_that_runs_out_of_time_is_an_error_unless_another_result_decides() -> None:
    chat = Turn(
        tool_calls=[ToolCall(name="get", id="1"), ToolCall(name="get", id="2")],
        tool_results=[ToolResult(call_id="1", content=SLOW), ToolResult(call_id="2", content="ok")],
    )
    assert ToolResultMatches("get", "(a|aa)+$|ok", regex_timeout=0.05).check(chat).passed
    timed_out = ToolResultMatches("get", "(a|aa)+$", regex_timeout=0.05).check(chat)
    assert timed_out.status is Status.ERROR
    assert timed_out.details["error"] == "timeout"
    assert timed_out.details["pattern"] == "(a|aa)+$"
    assert "did not finish within 0.05s" in timed_out.reason
    every = ToolResultMatches("get", "(a|aa)+$", match="all", regex_timeout=0.05).check(chat)
    assert every.status is Status.FAILED  # 'ok' decides: it does not match


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
        (lambda: NoToolErrors(5), TypeError,
         "tools must be a list of non-empty argument names, got 5"),
        (lambda: NoToolErrors([]), ValueError,
         "tools must name at least one tool (or be omitted for all)"),
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
    raises_with(build, error, message)
