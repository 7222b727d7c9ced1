"""`report_line` writes, piece by piece, exactly what `json_line(outcome.to_dict(...))` would."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from chatassert import Contains, ContainsFunctionCall, Conversation, NotContains, OnEveryTurn
from chatassert._result import Result, Status
from chatassert.reporting import Outcome, compact_result, json_line, report_line

SHARED_PASS = Result.shared(Status.PASSED, "contains", "contains 'x'", {"expected": "x"})
SHARED_FAIL = Result.shared(Status.FAILED, "contains", "no 'x'", {"missing": ["x"]}, message="m")


def _trees() -> list[Result]:
    conversation = Conversation.from_messages(
        [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello, café"}]
    )
    checks = [Contains("Hello"), Contains("bye", message="says bye"), NotContains("café")]
    located = [r._with_field("location", f"turns[{i}]") for i, r in enumerate([SHARED_FAIL] * 3)]
    return [
        Result(Status.PASSED, "case", "all passed", {"n": 1}, children=(SHARED_PASS,) * 3),
        Result(Status.FAILED, "case", "2 failed", children=(SHARED_FAIL, SHARED_FAIL)),
        Result(Status.FAILED, "on_every_turn", "x", children=tuple(located)),
        Result(
            Status.FAILED,
            "all_of",
            "odd values \ud800 and \u2028",
            {"score": float("inf"), "nested": [{"t": (1, float("nan"))}]},
            message="café \udcff",
            score=float("nan"),
            location="turns[0]",
            duration=0.5,
            children=(
                Result(Status.PASSED, "judge", "fine", {"a": 1}, score=0.75, location="x"),
                Result(Status.PASSED, "g", "ok", children=(SHARED_PASS,), duration=0.1),
                Result(Status.SKIPPED, "s", "skipped because", {}),
                Result(Status.ERROR, "e", "no data", MappingProxyType({"k": {1: set()}})),
            ),
        ),
        *(check.check(conversation.turns[0]) for check in checks),
        ContainsFunctionCall("lookup", arguments={"a": 1}).check(conversation.turns[0]),
        # selector nodes over constant turn outcomes are shared whole subtrees
        *(OnEveryTurn(check).check(conversation) for check in checks),
    ]


@pytest.mark.parametrize("full", [False, True])
def test_report_line_is_json_line_of_the_dict(full: bool) -> None:
    for _ in range(2):  # the second time, from the remembered pieces
        for i, tree in enumerate(_trees()):
            outcome = Outcome("suite ☕", "case", tree, f"log:{i}", None if i % 2 else f"id-{i}")
            expected = json_line(outcome.to_dict(compact=not full))
            assert report_line(outcome, full=full) == expected
            assert json.loads(expected)  # a lone surrogate is escaped: the line reads back


def test_recorded_verdicts_are_written_too() -> None:
    outcome = Outcome(
        "s",
        "c",
        SHARED_FAIL,
        "run.arena.json:1",
        recorded=({"location": "turns[0]", "recorded": "passed"},),
        disagreements=(),
    )
    line = report_line(outcome)
    assert line == json_line(outcome.to_dict(compact=True))
    assert json.loads(line)["disagreements"] == []


def test_compact_result_drops_reason_and_details_of_passing_nodes_only() -> None:
    tree = _trees()[3]
    compact = compact_result(tree)
    assert "reason" not in compact["children"][0]
    assert compact["children"][0]["score"] == 0.75
    assert compact["children"][1]["children"] == [{"status": "passed", "name": "contains"}]
    assert compact["children"][2]["reason"] == "skipped because"
    assert compact["children"][3]["details"] == {"k": {1: set()}}
    assert compact["reason"].startswith("odd values")
    assert compact["score"] == "NaN"


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])
def test_a_line_separator_in_a_value_is_escaped_so_splitlines_keeps_one_line(
    separator: str,
) -> None:
    """JSON allows NEL, U+2028 and U+2029 raw in a string, but `str.splitlines()` cuts a line
    at each: every JSON Lines writer escapes them (found by the grouping fuzz target)."""
    check = Contains("x", message=f"a{separator}b")
    conversation = Conversation.from_messages([{"role": "assistant", "content": "y"}])
    outcome = Outcome("s", f"case{separator}", check.check(conversation), f"log{separator}:1")
    for line in (report_line(outcome), report_line(outcome, full=True), json_line([separator])):
        assert separator not in line
        assert len(line.splitlines()) == 1
    assert json.loads(report_line(outcome))["case"] == f"case{separator}"
