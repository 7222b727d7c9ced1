"""Tests of chatassert._policies (docs/trajectories.md, "Tool policies over time").

Decision tables per check (pass, failure naming both events, skipped, error), locations in a
turn and in a conversation, selectors and combinators, specs and their problems. The laws are
in tests/test_policies_props.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chatassert import (
    AnyOf,
    AtLeast,
    Conversation,
    Not,
    OnAnyTurn,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    SpecError,
    Status,
    ToolCall,
    ToolResult,
    Turn,
    When,
    from_spec,
)
from chatassert.args import ArgMatches, ExpectedCall
from chatassert.policies import (
    MaxConsecutive,
    NoToolLoops,
    OnlyTools,
    ToolBefore,
    ToolNeverAfter,
    ToolOnlyAfterResult,
)
from cli_runs import run_in_process
from trajectory_helpers import BROKEN, call, record, turn

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


def chat(*turns: Turn) -> Conversation:
    return Conversation(turns=list(turns))


# -- tool_before -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "status"),
    [
        (["verify", "refund"], P),
        (["verify", "log", "refund", "refund"], P),
        (["refund", "verify"], F),
        (["verify", "refund", "refund"], P),
        (["refund"], F),
        (["verify"], S),
        ([], S),
        (["log"], S),
    ],
)
def test_tool_before_decisions(calls: list[str], status: Status) -> None:
    assert ToolBefore("verify", "refund").check(turn(*calls)).status is status


def test_tool_before_failure_names_both_calls_across_turns() -> None:
    subject = chat(turn("log"), turn(), turn("refund"), turn(), turn("log", "verify"))
    result = ToolBefore("verify", "refund").check(subject)
    assert record(result) == (
        F,
        "expected every call of 'refund' to come after a call of 'verify' but 'refund' "
        "(turns[2].tool_calls[0]) came before the first 'verify' (turns[4].tool_calls[1])",
        {
            "first": "verify",
            "then": "refund",
            "triggers": ["turns[2].tool_calls[0]"],
            "violations": [
                {
                    "call": "turns[2].tool_calls[0]",
                    "tool": "refund",
                    "first_call": "turns[4].tool_calls[1]",
                }
            ],
        },
    )


def test_tool_before_when_first_was_never_called_and_counts_the_rest() -> None:
    result = ToolBefore("verify", "refund").check(turn("refund", "log", "refund"))
    assert result.reason == (
        "expected every call of 'refund' to come after a call of 'verify' but 'refund' "
        "(tool_calls[0]) was called and 'verify' never was; and 1 more"
    )
    assert [v["first_call"] for v in result.details["violations"]] == [None, None]


def test_tool_before_pass_and_skip_reasons() -> None:
    passed = ToolBefore("verify", "refund").check(turn("log", "verify", "refund"))
    assert passed.reason == "every call of 'refund' came after a call of 'verify' (tool_calls[1])"
    skipped = ToolBefore("verify", "refund").check(turn("verify"))
    assert record(skipped)[:2] == (S, "'refund' was never called, so nothing had to come before it")


def test_tool_before_with_argument_matchers() -> None:
    check = ToolBefore(
        {"tool": "verify", "arguments": {"level": {"$one_of": ["full", "strict"]}}},
        ExpectedCall("refund", {"amount": ArgMatches(r"^\d{3,}$")}),
    )
    small = turn(call("refund", {"amount": "50"}), call("verify", {"level": "full"}))
    assert check.check(small).status is S  # a small refund is no trigger
    big = turn(call("verify", {"level": "quick"}), call("refund", {"amount": "500"}))
    result = check.check(big)
    assert result.status is F
    assert result.reason.startswith(
        'expected every call of \'refund\' with {"amount": {"$regex": "^\\\\d{3,}$"}} to come '
        'after a call of \'verify\' with {"level": {"$one_of": ["full", "strict"]}} but '
        "'refund' (tool_calls[1]) was called and 'verify' never was"
    )
    good = turn(call("verify", {"level": "strict"}), call("refund", {"amount": 500}))
    assert check.check(good).status is P


def test_tool_before_arguments_that_are_not_json_error_only_when_they_matter() -> None:
    check = ToolBefore({"tool": "book", "arguments": {"date": "2024-02-15"}}, "pay")
    # the broken `book` could be the required call: undecided
    result = check.check(turn(BROKEN, "pay"))
    assert result.status is E
    assert result.reason.startswith(
        "cannot compare the arguments of 'book' (tool_calls[0]): arguments are not valid JSON"
    )
    assert result.details["undecided"][0]["call"] == "tool_calls[0]"
    # a real `book` before it: the broken one does not matter
    good = turn(call("book", {"date": "2024-02-15"}), BROKEN, "pay")
    assert check.check(good).status is P
    # no `pay` at all: skipped whatever the broken call is
    assert check.check(turn(BROKEN)).status is S
    # `pay` first: fails whatever the broken call is
    assert check.check(turn("pay", BROKEN)).status is F
    # a trigger with unreadable arguments: skipped or failed, so undecided
    trig = ToolBefore("book", {"tool": "pay", "arguments": {"amount": 5}})
    broken_pay = ToolCall(name="pay", arguments="{amount: 5")
    assert trig.check(turn(broken_pay)).status is E  # failed, or skipped
    assert trig.check(turn(call("pay", {"amount": 5}), broken_pay)).status is F  # decided


def test_an_unreadable_trigger_after_the_required_call_is_pass_or_skip_so_an_error() -> None:
    trig = ToolBefore("book", {"tool": "pay", "arguments": {"amount": 5}})
    broken_pay = ToolCall(name="pay", arguments="{amount: 5")
    # if it is a `pay` of 5 the rule held (passed), if not it never applied (skipped)
    result = trig.check(turn("book", broken_pay))
    assert result.status is E
    assert result.details["undecided"] == [
        {"call": "tool_calls[1]", "tool": "pay", "raw_arguments": "{amount: 5",
         "error": broken_pay.arguments_error}
    ]  # fmt: skip


# -- tool_never_after --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "status"),
    [
        (["edit", "confirm"], P),
        (["edit", "confirm", "log"], P),
        (["confirm", "edit"], F),
        (["edit", "confirm", "log", "edit"], F),
        (["edit"], S),
        ([], S),
    ],
)
def test_tool_never_after_decisions(calls: list[str], status: Status) -> None:
    assert ToolNeverAfter("edit", "confirm").check(turn(*calls)).status is status


def test_tool_never_after_failure_names_both_calls() -> None:
    subject = chat(turn("edit"), turn("confirm"), turn("log", "edit", "edit"))
    result = ToolNeverAfter("edit", after="confirm").check(subject)
    assert record(result) == (
        F,
        "expected no call of 'edit' after a call of 'confirm' but 'edit' "
        "(turns[2].tool_calls[1]) came after 'confirm' (turns[1].tool_calls[0]); and 1 more",
        {
            "tool": "edit",
            "after": "confirm",
            "trigger": "turns[1].tool_calls[0]",
            "violations": [
                {"call": "turns[2].tool_calls[1]", "tool": "edit",
                 "after_call": "turns[1].tool_calls[0]"},
                {"call": "turns[2].tool_calls[2]", "tool": "edit",
                 "after_call": "turns[1].tool_calls[0]"},
            ],
        },
    )  # fmt: skip
    assert ToolNeverAfter("edit", "confirm").check(turn("log")).reason == (
        "'confirm' was never called, so 'edit' was never after it"
    )


def test_tool_never_after_with_unreadable_arguments() -> None:
    check = ToolNeverAfter({"tool": "book", "arguments": {"date": "2024-02-15"}}, "pay")
    assert check.check(turn("pay", BROKEN)).status is E
    assert check.check(turn(BROKEN, "pay")).status is P  # nothing after `pay`
    assert check.check(turn(BROKEN)).status is S


# -- tool_only_after_result --------------------------------------------------------------------


def _ok(call_id: str, content: str = "eligible") -> ToolResult:
    return ToolResult(call_id=call_id, content=content)


@pytest.mark.parametrize(
    ("results", "status", "problem"),
    [
        ([_ok("c1")], P, None),
        ([_ok("c1", "Error: not eligible")], F, "error"),
        ([ToolResult(call_id="c1", content="no", is_error=True)], F, "error"),
        ([ToolResult(call_id="c1", content='{"error": "timeout"}')], F, "error"),
        ([], E, None),
    ],
)
def test_tool_only_after_result_reads_the_result(
    results: list[ToolResult], status: Status, problem: str | None
) -> None:
    subject = Turn(
        tool_calls=[ToolCall(name="check", id="c1"), ToolCall(name="refund", id="c2")],
        tool_results=results,
    )
    result = ToolOnlyAfterResult("refund", result_of="check").check(subject)
    assert result.status is status
    if problem:
        assert result.details["violations"][0]["problem"] == problem
    if status is E:
        assert result.reason == (
            "cannot tell whether 'check' (tool_calls[0]) returned successfully: "
            "no result of it was recorded"
        )


def test_tool_only_after_result_skips_without_the_tool_and_fails_before_any_source() -> None:
    check = ToolOnlyAfterResult("refund", "check")
    assert record(check.check(turn("check")))[:2] == (
        S,
        "'refund' was never called, so no result had to come before it",
    )
    subject = chat(turn("refund"), turn("check"))
    result = check.check(subject)
    assert result.reason == (
        "expected every call of 'refund' to come after a successful result of 'check' but "
        "'refund' (turns[0].tool_calls[0]) came before any call of 'check' "
        "(the first is turns[1].tool_calls[0])"
    )
    assert result.details["violations"] == [
        {
            "call": "turns[0].tool_calls[0]",
            "tool": "refund",
            "result_of_call": "turns[1].tool_calls[0]",
            "problem": "not_called_before",
        }
    ]


def _messages(parallel: bool) -> list[dict[str, Any]]:
    def fn(call_id: str, name: str) -> dict[str, Any]:
        return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}

    head: list[dict[str, Any]] = [{"role": "user", "content": "Refund order 7"}]
    if parallel:  # both calls in one message: the refund went out before the check returned
        return [
            *head,
            {"role": "assistant", "content": None,
             "tool_calls": [fn("c1", "check"), fn("c2", "refund")]},
            {"role": "tool", "tool_call_id": "c1", "content": "eligible"},
            {"role": "tool", "tool_call_id": "c2", "content": "refunded"},
            {"role": "assistant", "content": "Done."},
        ]  # fmt: skip
    return [
        *head,
        {"role": "assistant", "content": None, "tool_calls": [fn("c1", "check")]},
        {"role": "tool", "tool_call_id": "c1", "content": "eligible"},
        {"role": "assistant", "content": None, "tool_calls": [fn("c2", "refund")]},
        {"role": "tool", "tool_call_id": "c2", "content": "refunded"},
        {"role": "assistant", "content": "Done."},
    ]


def test_tool_only_after_result_orders_by_message() -> None:
    check = ToolOnlyAfterResult("refund", "check")
    assert check.check(Turn(messages=_messages(parallel=False))).status is P
    result = check.check(Conversation(messages=_messages(parallel=True)))
    assert result.reason == (
        "expected every call of 'refund' to come after a successful result of 'check' but "
        "'refund' (turns[0].tool_calls[1]) came after 'check' (turns[0].tool_calls[0]) "
        "had not returned yet"
    )
    assert result.details["violations"][0]["problem"] == "not_returned"


def test_tool_only_after_result_a_later_success_still_counts_for_later_calls() -> None:
    subject = Turn(
        tool_calls=[
            ToolCall(name="check", id="a"),
            ToolCall(name="refund", id="b"),
            ToolCall(name="check", id="c"),
            ToolCall(name="refund", id="d"),
        ],
        tool_results=[_ok("a", "Error: busy"), _ok("b"), _ok("c"), _ok("d")],
    )
    result = ToolOnlyAfterResult("refund", "check").check(subject)
    assert result.status is F
    assert [v["call"] for v in result.details["violations"]] == ["tool_calls[1]"]


def test_tool_only_after_result_missing_result_that_does_not_matter() -> None:
    subject = Turn(
        tool_calls=[ToolCall(name="check", id="a"), ToolCall(name="check", id="b"),
                    ToolCall(name="refund", id="c")],
        tool_results=[_ok("b")],
    )  # fmt: skip
    assert ToolOnlyAfterResult("refund", "check").check(subject).status is P


# -- only_tools --------------------------------------------------------------------------------


def test_only_tools_decisions_and_reasons() -> None:
    check = OnlyTools(["search", {"name": "fetch", "arguments": {"url": {"$regex": "^https://"}}}])
    assert check.check(turn()).reason == "no tool was called"
    assert check.check(turn("search", call("fetch", {"url": "https://a"}))).reason == (
        "all 2 calls were allowed"
    )
    subject = chat(turn("search"), turn(call("fetch", {"url": "http://a"}), "delete"))
    result = check.check(subject)
    assert record(result) == (
        F,
        "expected only calls of ['search', 'fetch'] but 'fetch' (turns[1].tool_calls[0]) is not "
        "one of them; and 1 more",
        {
            "allowed": ["search", {"tool": "fetch", "arguments": {"url": {"$regex": "^https://"}}}],
            "calls": 3,
            "disallowed": [
                {"call": "turns[1].tool_calls[0]", "tool": "fetch"},
                {"call": "turns[1].tool_calls[1]", "tool": "delete"},
            ],
        },
    )


def test_only_tools_one_name_and_unreadable_arguments() -> None:
    assert OnlyTools("search").check(turn("search", "search")).status is P
    check = OnlyTools([{"tool": "book", "arguments": {"date": "2024-02-15"}}])
    assert check.check(turn(BROKEN)).status is E
    assert check.check(turn(BROKEN, "delete")).status is F  # `delete` fails it either way
    assert OnlyTools(["book"]).check(turn(BROKEN)).status is P  # the name alone decides


# -- max_consecutive_calls ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "status"),
    [
        ([], P),
        (["s", "s"], P),
        (["s", "s", "x", "s", "s"], P),
        (["s", "s", "s"], F),
        (["x", "s", "s", "s", "x"], F),
    ],
)
def test_max_consecutive_decisions(calls: list[str], status: Status) -> None:
    assert MaxConsecutive("s", 2).check(turn(*calls)).status is status


def test_max_consecutive_runs_across_turns_and_names_both_ends() -> None:
    subject = chat(turn("x", "s"), turn("s"), turn("s", "x", "s", "s", "s"))
    result = MaxConsecutive("s", 2).check(subject)
    assert record(result) == (
        F,
        "expected at most 2 consecutive calls of 's' but it was called 3 times in a row "
        "(turns[0].tool_calls[1] … turns[2].tool_calls[0]); and 1 more run(s)",
        {
            "tool": "s",
            "max": 2,
            "longest": 3,
            "violations": [
                {"count": 3, "from": "turns[0].tool_calls[1]", "to": "turns[2].tool_calls[0]",
                 "calls": ["turns[0].tool_calls[1]", "turns[1].tool_calls[0]",
                           "turns[2].tool_calls[0]"]},
                {"count": 3, "from": "turns[2].tool_calls[2]", "to": "turns[2].tool_calls[4]",
                 "calls": ["turns[2].tool_calls[2]", "turns[2].tool_calls[3]",
                           "turns[2].tool_calls[4]"]},
            ],
        },
    )  # fmt: skip
    # per turn instead: every turn has at most 3 in a row, but not at most 2
    assert OnEveryTurn(MaxConsecutive("s", 3)).check(subject).status is P
    assert OnEveryTurn(MaxConsecutive("s", 2)).check(subject).status is F


def test_max_consecutive_with_arguments_and_unreadable_ones() -> None:
    check = MaxConsecutive({"tool": "book", "arguments": {"date": "2024-02-15"}}, 1)
    good = call("book", {"date": "2024-02-15"})
    assert check.check(turn(good, call("book", {"date": "2024-02-16"}))).status is P
    assert check.check(turn(good, BROKEN)).status is E
    assert check.check(turn(good, "x", BROKEN)).status is P
    assert MaxConsecutive("s", 0).check(turn("s")).status is F


# -- no_tool_loops -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("window", "same_args", "status"),
    [(2, True, P), (3, True, F), (4, True, F), (2, False, F), (3, False, F)],
)
def test_no_tool_loops_decisions(window: int, same_args: bool, status: Status) -> None:
    # search(q=a), search(q=b), fetch, search(q=a): the same call 3 apart; same names 1 apart
    calls = turn(
        call("search", {"q": "a"}), call("search", {"q": "b"}), "fetch", call("search", {"q": "a"})
    )
    expected = status
    if window == 3 and same_args:
        expected = P  # 3 apart is outside a window of 3 consecutive calls
    assert NoToolLoops(window, same_args).check(calls).status is expected


def test_no_tool_loops_names_both_calls_and_ignores_keys() -> None:
    a1 = call("search", {"q": "refund", "request_id": 1})
    a2 = call("search", {"q": "refund", "request_id": 2})
    subject = chat(turn(a1), turn("fetch", a2))
    assert NoToolLoops(3).check(subject).status is P
    result = NoToolLoops(3, ignore_keys=["request_id"]).check(subject)
    assert record(result) == (
        F,
        "expected no call repeated within 3 consecutive calls but 'search' "
        "(turns[0].tool_calls[0]) was repeated at turns[1].tool_calls[1] with the same "
        'arguments {"q": "refund", "request_id": 1}',
        {
            "window": 3,
            "same_args": True,
            "ignore_keys": ["request_id"],
            "loops": [
                {"tool": "search", "call": "turns[0].tool_calls[0]",
                 "repeat": "turns[1].tool_calls[1]", "distance": 2},
            ],
        },
    )  # fmt: skip
    by_name = NoToolLoops(2, same_args=False).check(turn("a", "a"))
    assert by_name.reason == (
        "expected no call repeated within 2 consecutive calls but 'a' (tool_calls[0]) "
        "was repeated at tool_calls[1]"
    )


def test_no_tool_loops_compares_unreadable_arguments_as_text() -> None:
    other = ToolCall(name="book", arguments='{"date": 2024-03-01')
    assert NoToolLoops(2).check(turn(BROKEN, BROKEN)).status is F
    assert NoToolLoops(2).check(turn(BROKEN, other)).status is P
    assert (
        NoToolLoops(2)
        .check(turn(BROKEN, BROKEN))
        .reason.endswith('with the same arguments {"date": 2024-02-15')
    )


# -- selectors, combinators, specs -------------------------------------------------------------


def test_policies_under_selectors_and_combinators() -> None:
    subject = chat(turn("verify", "refund"), turn("refund"), turn("log"))
    before = ToolBefore("verify", "refund")
    assert before.check(subject).status is P  # over the conversation
    assert OnTurn(1, before).check(subject).status is F  # that turn alone
    assert OnTurn(2, before).check(subject).status is S
    assert OnEveryTurn(before).check(subject).status is F
    assert OnAnyTurn(before).check(subject).status is P
    assert OnLastTurn(before).check(subject).status is S
    failing = OnTurn(1, before).check(subject)
    assert failing.children[0].reason.endswith(
        "'refund' (tool_calls[0]) was called and 'verify' never was"
    )
    assert (before & OnlyTools(["verify", "refund", "log"])).check(subject).status is P
    assert (OnlyTools(["verify"]) | before).check(subject).status is P
    assert Not(before).check(subject).status is F
    assert Not(before).check(turn("log")).status is S
    assert AnyOf([ToolNeverAfter("refund", "log"), OnlyTools("log")]).check(subject).status is P
    two_of = AtLeast(2, before, OnlyTools("log"), MaxConsecutive("refund", 2))
    assert two_of.check(subject).status is P  # ToolBefore and MaxConsecutive hold
    assert (
        AtLeast(2, before, OnlyTools("log"), MaxConsecutive("refund", 1)).check(subject).status is F
    )
    gated = When(OnlyTools(["verify", "refund", "log"]), NoToolLoops(2, same_args=False))
    assert gated.check(subject).status is F  # the two refunds are consecutive calls


def test_specs_build_round_trip_and_accept_name_for_tool() -> None:
    specs = [
        {"type": "tool_before", "first": "verify", "then": {"name": "refund",
                                                             "arguments": {"amount": 5}}},
        {"type": "tool_never_after", "tool": "edit", "after": "confirm", "message": "frozen"},
        {"type": "tool_only_after_result", "tool": "refund", "result_of": "check"},
        {"type": "only_tools", "allowed": ["a", {"tool": "b", "arguments": {"x": {"$any": True}}}]},
        {"type": "max_consecutive_calls", "tool": "search", "max": 3},
        {"type": "no_tool_loops", "window": 4, "same_args": False},
    ]  # fmt: skip
    for spec in specs:
        built = from_spec(spec)
        assert from_spec(built.as_spec()) == built
    assert from_spec(specs[0]).as_spec()["then"] == {"tool": "refund", "arguments": {"amount": 5}}


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"type": "tool_before", "first": "a"}, "needs the parameter 'then'"),
        ({"type": "tool_before", "first": "a", "then": {"tool": "b", "name": "c"}},
         "give the tool as 'tool' or 'name', not both"),
        ({"type": "tool_never_after", "tool": {"tool": "a", "argumnts": {}}, "after": "b"},
         "unknown key 'argumnts' in an expected call"),
        ({"type": "tool_only_after_result", "tool": "a", "result_of": 3},
         "an expected call is a tool name or a mapping"),
        ({"type": "only_tools", "allowed": []}, "allowed must be a non-empty list"),
        ({"type": "only_tools", "allowed": [{"tool": "a", "arguments": {"x": {"$regx": "y"}}}]},
         "unknown matcher '$regx'"),
        ({"type": "max_consecutive_calls", "tool": "a", "max": -1}, "max must not be negative"),
        ({"type": "no_tool_loops", "window": 1}, "window must be at least 2"),
        ({"type": "no_tool_loops", "window": 3, "same_args": False, "ignore_keys": ["id"]},
         "ignore_keys compares arguments, which needs same_args: true"),
        ({"type": "no_tool_loops", "windw": 3}, "did you mean 'window'?"),
    ],
)  # fmt: skip
def test_bad_specs_are_spec_errors(spec: dict[str, Any], fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    assert fragment in str(info.value)


def test_a_regex_that_runs_out_of_time_is_an_error_naming_the_pattern() -> None:
    slow = "a" * 40000 + "!"
    check = OnlyTools(
        [{"tool": "s", "arguments": {"q": {"$regex": "(a|aa)+$"}}}], regex_timeout=0.05
    )
    result = check.check(turn(call("s", {"q": slow})))
    assert result.status is E
    assert (result.details["error"], result.details["pattern"]) == ("timeout", "(a|aa)+$")
    assert check.check(turn(call("s", {"q": slow}), "other")).status is F  # decided anyway


def test_describe() -> None:
    assert ToolBefore("a", "b").describe() == "calls 'a' before 'b'"
    assert ToolNeverAfter("a", "b").describe() == "never calls 'a' after 'b'"
    assert ToolOnlyAfterResult("a", "b").describe() == (
        "calls 'a' only after a successful result of 'b'"
    )
    assert OnlyTools(["a", "b"]).describe() == "calls only 'a', 'b'"
    assert MaxConsecutive("a", 2).describe() == "calls 'a' at most 2 times in a row"
    assert NoToolLoops(3).describe() == "repeats no call within 3 consecutive calls"
    assert NoToolLoops(3).check(turn("a")).reason == "repeats no call within 3 consecutive calls"


def test_the_spec_schema_lists_the_policies_with_their_required_parameters() -> None:
    out = run_in_process("schema", "spec")  # tests/cli_runs.py
    assert out.returncode == 0, out.stderr
    defs = json.loads(out.stdout)["$defs"]
    kinds = [branch["then"]["$ref"] for branch in defs["assertion"]["allOf"]]
    required = {
        "tool_before": ["type", "first", "then"],
        "tool_never_after": ["type", "tool", "after"],
        "tool_only_after_result": ["type", "tool", "result_of"],
        "only_tools": ["type", "allowed"],
        "max_consecutive_calls": ["type", "tool", "max"],
        "no_tool_loops": ["type", "window"],
    }
    for kind, names in required.items():
        assert f"#/$defs/kind_{kind}" in kinds
        assert defs[f"kind_{kind}"]["required"] == names
    loops = defs["kind_no_tool_loops"]["properties"]
    assert set(loops) >= {"window", "same_args", "ignore_keys"}


@pytest.mark.parametrize(
    ("first", "status"), [("verify", Status.PASSED), ("search", Status.FAILED)]
)
def test_a_result_logged_before_its_own_call_came_back_once_the_call_was_made(
    first: str, status: Status
) -> None:
    # a log can hold a tool's result before the message that made the call (found by the
    # monitor's fuzz target): the result cannot come back before its call, so it counts from
    # the call on — not an IndexError that made the check an error
    turn = Turn(
        messages=[
            {"role": "tool", "tool_call_id": "v", "content": "ok"},
            {"role": "assistant", "tool_calls": [_raw_call("v", first)]},
            {"role": "assistant", "tool_calls": [_raw_call("r", "refund")]},
        ]
    )
    result = ToolOnlyAfterResult("refund", result_of="verify").check(turn)
    assert result.status is status, result.reason


def _raw_call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
