"""Case results at their edges: fail-fast, missing turns, whole-subject checks, JSON cases.

Each test pins the records a rule documents (SEMANTICS G6: every assertion is evaluated unless
`fail_fast`, which reports the rest of the turn as `skipped`; G7: an assertion that could not
be evaluated is an `error`; the `Case` docstring: turn *i* is checked against the *i*-th user
turn and `checks` against the whole subject). `Case.acheck` must give the same tree as
`Case.check` (its docstring: it only runs judged assertions concurrently). Found by mutation
testing (docs/mutation.md): the async path and the skip and missing-turn records could change
without a failing test.
"""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest

from chatassert import (
    Contains,
    Conversation,
    FieldEquals,
    HasFields,
    OnLastTurn,
    OnTurn,
    Result,
    Turn,
)
from chatassert._suite import Case, TurnSpec

FAIL_FAST_SKIP = "not evaluated: an earlier assertion of this turn failed (fail_fast)"


def record(result: Result) -> dict[str, Any]:
    """The observable fields of a result tree (everything but its duration)."""
    out: dict[str, Any] = {
        "status": result.status.value,
        "name": result.name,
        "reason": result.reason,
        "details": dict(result.details),
    }
    if result.location is not None:
        out["location"] = result.location
    if result.message is not None:
        out["message"] = result.message
    if result.children:
        out["children"] = [record(child) for child in result.children]
    return out


def conversation(*pairs: tuple[str, str]) -> Conversation:
    messages = []
    for user, assistant in pairs:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return Conversation.from_messages(messages)


def skipped(message: str | None = None) -> dict[str, Any]:
    """The record of an assertion fail-fast left out (G6): its own name and label kept."""
    out: dict[str, Any] = {
        "status": "skipped",
        "name": "contains",
        "reason": FAIL_FAST_SKIP,
        "details": {"fail_fast": True},
    }
    if message is not None:
        out["message"] = message
    return out


THREE = (Contains("x", message="needs x"), Contains("y"), Contains("z", message="needs z"))


def fail_fast_case(*assertions: Any) -> Case:
    return Case("c", turns=(TurnSpec(assertions or THREE, input="q"),), fail_fast=True)


def json_case() -> Case:
    return Case("j", checks=(FieldEquals({"status": "ok"}), HasFields(["a"])), subject="json")


def three_turn_case() -> Case:
    return Case(
        "c",
        turns=tuple(TurnSpec((Contains(text),), input=f"q{i + 1}") for i, text in enumerate("abc")),
    )


# (id, case, subject): every scenario below, checked both ways.
SCENARIOS: list[tuple[str, Case, object]] = [
    ("fail_fast after a pass", fail_fast_case(), Turn(input="q", text="x z")),
    ("fail_fast on the first", fail_fast_case(), Turn(input="q", text="y z")),
    (
        "fail_fast after an error",
        fail_fast_case(FieldEquals({"a": 1}), Contains("y", message="needs y")),
        Turn(input="q", text="plain text"),
    ),
    ("no fail_fast", Case("c", turns=(TurnSpec(THREE, input="q"),)), Turn(input="q", text="z")),
    ("a missing turn", three_turn_case(), conversation(("q1", "a"), ("q2", "b"))),
    ("no user turns", three_turn_case(), Conversation(turns=[])),
    (
        "whole-conversation checks",
        Case(
            "c",
            turns=(TurnSpec((Contains("a"),), input="q1"),),
            checks=(OnLastTurn(Contains("zz")), OnTurn(0, Contains("a"))),
        ),
        conversation(("q1", "a")),
    ),
    ("a JSON object", json_case(), {"status": "ok"}),
    ("JSON text", json_case(), '{"status": "no", "a": 1}'),
    ("not JSON", json_case(), "not json"),
]


@pytest.mark.parametrize(("case", "subject"), [s[1:] for s in SCENARIOS],
                         ids=[s[0] for s in SCENARIOS])  # fmt: skip
def test_acheck_gives_the_same_tree_as_check(case: Case, subject: object) -> None:
    assert record(asyncio.run(case.acheck(subject))) == record(case.check(subject))


def both(case: Case, subject: object) -> list[dict[str, Any]]:
    """The records of `check` and of `acheck`, which the tests expect to be equal."""
    return [record(case.check(subject)), record(asyncio.run(case.acheck(subject)))]


def test_fail_fast_skips_what_follows_a_failure_but_not_what_precedes_it() -> None:
    for got in both(fail_fast_case(), Turn(input="q", text="x z")):
        assert got["details"] == {"passed": 1, "failed": 1, "error": 0, "skipped": 1}
        assert [c["status"] for c in got["children"][0]["children"]] == [
            "passed",
            "failed",
            "skipped",
        ]
        assert got["children"][0]["children"][2] == skipped("needs z")


def test_fail_fast_reports_every_later_assertion_as_skipped() -> None:
    for got in both(fail_fast_case(), Turn(input="q", text="y z")):
        turn = got["children"][0]
        assert turn["reason"] == "1 of 3 failed"
        assert turn["children"][0]["status"] == "failed"
        assert turn["children"][1:] == [skipped(), skipped("needs z")]


def test_fail_fast_treats_an_error_as_a_failure() -> None:
    case = fail_fast_case(FieldEquals({"a": 1}), Contains("y", message="needs y"))
    for got in both(case, Turn(input="q", text="plain text")):
        assert got["status"] == "error"
        assert [c["status"] for c in got["children"][0]["children"]] == ["error", "skipped"]
        assert got["children"][0]["children"][1] == skipped("needs y")


def test_without_fail_fast_every_assertion_is_evaluated() -> None:
    case = Case("c", turns=(TurnSpec(THREE, input="q"),))
    for got in both(case, Turn(input="q", text="z")):
        assert [c["status"] for c in got["children"][0]["children"]] == [
            "failed",
            "failed",
            "passed",
        ]


@pytest.mark.parametrize(
    ("subject", "available"),
    [
        (conversation(("q1", "a"), ("q2", "b")), 2),
        (conversation(("q1", "a")), 1),
        (Conversation(turns=[]), 0),
    ],
)
def test_a_turn_the_transcript_lacks_is_an_error_record(subject: object, available: int) -> None:
    turns = "turn" if available == 1 else "turns"
    for got in both(three_turn_case(), subject):
        assert got["status"] == "error"
        assert len(got["children"]) == 3
        for index in range(available, 3):
            assert got["children"][index] == {
                "status": "error",
                "name": "turn",
                "reason": f"the case has turn {index + 1} but the transcript has only "
                f"{available} user {turns}",
                "details": {"turn_index": index, "user_turns": available, "input": f"q{index + 1}"},
                "location": f"turns[{index}]",
            }
        assert [c["status"] for c in got["children"][:available]] == ["passed"] * available


def test_whole_conversation_checks_are_located_at_the_conversation() -> None:
    case = Case(
        "c",
        turns=(TurnSpec((Contains("a"),), input="q1"),),
        checks=(OnLastTurn(Contains("zz")), OnTurn(0, Contains("a"))),
    )
    for got in both(case, conversation(("q1", "a"))):
        assert [(c["name"], c["status"], c["location"]) for c in got["children"]] == [
            ("turn", "passed", "turns[0]"),
            ("on_last_turn", "failed", "conversation"),
            ("on_turn", "passed", "conversation"),
        ]
        assert got["children"][1]["children"][0]["location"] == "turns[0]"


@pytest.mark.parametrize("subject", [{"status": "no"}, '{"status": "no"}'])
def test_json_case_results_have_no_location(subject: object) -> None:
    """A JSON response is not a conversation: its checks' results carry no location."""
    for got in both(json_case(), subject):
        assert [(c["name"], c["status"], c.get("location")) for c in got["children"]] == [
            ("expect_field_equals", "failed", None),
            ("expect_has_fields", "failed", None),
        ]
        assert got["reason"] == (
            "2 assertions failed; first: expect_field_equals: status: expected 'ok', got 'no'"
        )


def test_a_case_pickles_before_and_after_it_has_checked_something() -> None:
    """Cases travel to worker processes (docs/offline.md, `--jobs`), checked or not."""
    fresh = pickle.loads(pickle.dumps(json_case()))
    used = json_case()
    used.check({"status": "ok", "a": 1})
    again = pickle.loads(pickle.dumps(used))
    subject = {"status": "no"}
    assert record(fresh.check(subject)) == record(again.check(subject))
    assert record(fresh.check(subject)) == record(json_case().check(subject))
