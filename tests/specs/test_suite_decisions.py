"""Case results at their edges: fail-fast, missing turns, whole-subject checks, JSON cases.

Each test pins the records a rule documents (SEMANTICS G6: every assertion is evaluated unless
`fail_fast`, which reports the rest of the turn as `skipped`; G7: an assertion that could not
be evaluated is an `error`; the `Case` docstring: turn *i* is checked against the *i*-th user
turn and `checks` against the whole subject). `Case.acheck` must give the same tree as
`Case.check` (its docstring: it only runs judged assertions concurrently). Found by mutation
testing (docs/internals/mutation.md): the async path and the skip and missing-turn records could
change without a failing test.
"""

from __future__ import annotations

import asyncio
import json
import pickle
from typing import Any

import pytest

from chatassert import (
    AllMatchPattern,
    Assertion,
    Contains,
    Conversation,
    FieldEquals,
    HasFields,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    Result,
    Status,
    Turn,
    When,
)
from chatassert._jsonbase import JsonCheck
from chatassert._suite import Case, TurnSpec
from chatassert.errors import RegexTimeoutError

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
        missing = 3 - available  # each assertion of a missing turn is an error of its own
        assert got["details"] == {"passed": available, "failed": 0, "error": missing, "skipped": 0}
        for index in range(available, 3):
            assert got["children"][index] == {
                "status": "error",
                "name": "turn",
                "reason": f"the case has turn {index + 1} but the transcript has only "
                f"{available} user {turns}",
                "details": {"turn_index": index, "user_turns": available, "input": f"q{index + 1}"},
                "location": f"turns[{index}]",
                "children": [
                    {
                        "status": "error",
                        "name": "contains",
                        "reason": f"not checked: the transcript has no user turn {index + 1}",
                        "details": {
                            "turn_index": index,
                            "user_turns": available,
                            "missing_turn": True,
                        },
                    }
                ],
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


# -- turn records and case counts ------------------------------------------------------------


def test_each_turn_and_the_case_count_the_assertions_themselves() -> None:
    """A turn's reason says how many of its assertions failed and how many could not be
    evaluated, or how many passed; the case counts every assertion of its turns (a turn's
    children) and every whole-conversation check once, as itself (`_leaf_statuses`)."""
    case = Case(
        "c",
        turns=(
            TurnSpec((Contains("a"),), input="q1"),
            TurnSpec((Contains("b"), Contains("b")), input="q2"),
            TurnSpec((Contains("zz"), FieldEquals({"a": 1})), input="q3"),
            TurnSpec((FieldEquals({"a": 1}), FieldEquals({"b": 2})), input="q4"),
        ),
        checks=(OnEveryTurn(Contains("zz")),),
    )
    chat = Conversation(turns=[Turn(input=f"q{i + 1}", text=text) for i, text in enumerate("abcd")])
    for got in both(case, chat):
        assert got["status"] == "failed"
        assert (
            got["reason"] == "2 assertions failed; first: contains: Response does not contain 'zz'"
        )
        assert got["details"] == {"passed": 3, "failed": 2, "error": 3, "skipped": 0}
        turns = [(c["status"], c["reason"], c["details"]) for c in got["children"][:4]]
        assert turns == [
            ("passed", "1 assertion passed", {"turn_index": 0, "input": "q1"}),
            ("passed", "2 assertions passed", {"turn_index": 1, "input": "q2"}),
            ("failed", "1 of 2 failed, 1 could not be evaluated", {"turn_index": 2, "input": "q3"}),
            ("error", "2 could not be evaluated", {"turn_index": 3, "input": "q4"}),
        ]
        assert [c["location"] for c in got["children"]] == [
            "turns[0]",
            "turns[1]",
            "turns[2]",
            "turns[3]",
            "conversation",
        ]


def test_fail_fast_counts_every_skipped_assertion() -> None:
    """G6: what fail_fast leaves out is reported, and counted, as skipped, one by one."""
    case = fail_fast_case(Contains("x"), Contains("y"), Contains("z"), Contains("w"))
    for got in both(case, Turn(input="q", text="y z w")):
        assert got["details"] == {"passed": 0, "failed": 1, "error": 0, "skipped": 3}
        assert got["reason"] == "1 assertion failed; first: contains: Response does not contain 'x'"
        assert got["children"][0]["reason"] == "1 of 4 failed"


def test_a_case_result_is_timed_from_the_start_of_its_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Case.check`: "the case's result records its `duration`" (a fake clock: no timing)."""
    ticks = iter([100.0, 100.25])
    monkeypatch.setattr("chatassert._suite.perf_counter", lambda: next(ticks))
    result = Case("c", turns=(TurnSpec((Contains("a"),), input="q"),)).check(
        Turn(input="q", text="a")
    )
    assert result.passed
    assert result.duration == 0.25


# -- JSON cases: the subject decoded once, quick tests only as shortcuts -----------------------


def test_a_json_array_response_reaches_each_check_decoded() -> None:
    """`_json_once`: JSON that is not an object reaches each check as given, and the check
    decodes it itself, so `$[*]` paths see the array's items (a check's quick test is only
    ever given a JSON object: on the undecoded text it would find nothing and pass)."""
    case = Case("j", checks=(AllMatchPattern("$[*].text", "^a"),), subject="json")
    subject = '[{"text": "abc"}, {"text": "b"}]'
    for got in both(case, subject):
        assert got["status"] == "failed"
        assert got["details"] == {"passed": 0, "failed": 1, "error": 0, "skipped": 0}
        assert got["children"][0]["reason"] == "Value 'b' at [1].text doesn't match pattern '^a'"
        assert got["children"][0]["details"]["checked"] == 2


def test_json_text_is_checked_as_the_object_it_holds_even_out_of_regex_time() -> None:
    """`_json_once`: a JSON case decodes its subject once for all its checks, so JSON text is
    checked exactly as its object: here the quick test runs out of regex time and the full
    evaluation gets only what it left of the limit (`_check_after_timeout`), for both."""
    slow = {"results": [{"text": "a" * 40_000 + "!"}]}  # `(a|aa)+$` backtracks past any limit
    check = AllMatchPattern("results[*].text", "(a|aa)+$", regex_timeout=0.05)
    case = Case("j", checks=(check,), subject="json")
    of_object = record(case.check(slow))
    assert of_object["status"] == "error"
    assert record(case.check(json.dumps(slow))) == of_object


def quick_test_raising(check: JsonCheck, exc: Exception) -> JsonCheck:
    """`check` with a quick test that raises `exc` (a test double of the quick test only)."""

    def quick(data: Any) -> Result | None:
        raise exc

    object.__setattr__(check, "_quick", quick)  # where JsonCheck keeps its compiled quick test
    return check


@pytest.mark.parametrize(
    "exc",
    [RegexTimeoutError("no time left", "(a|aa)+$", timeout=0.25), ValueError("odd data")],
    ids=["regex-timeout", "crash"],
)
def test_a_quick_test_that_raises_leaves_the_decision_to_the_full_check(exc: Exception) -> None:
    """`Assertion._quick_test`: a quick test only shortcuts `check`; when it raises (out of
    regex time, or on data it did not expect) the check evaluates the same data in full and
    reports for itself (`Case.check`, `_check_after_timeout`)."""
    case = Case(
        "j",
        checks=(quick_test_raising(FieldEquals({"status": "ok"}, message="needs ok"), exc),),
        subject="json",
    )
    assert record(case.check({"status": "no"})) == {
        "status": "failed",
        "name": "case",
        "reason": "1 assertion failed; first: needs ok: status: expected 'ok', got 'no'",
        "details": {"passed": 0, "failed": 1, "error": 0, "skipped": 0},
        "message": "j",
        "children": [
            {
                "status": "failed",
                "name": "expect_field_equals",
                "reason": "status: expected 'ok', got 'no'",
                "details": {
                    "path": "status",
                    "expected": "ok",
                    "actual": "no",
                    "offending": [{"path": "status", "actual": "no", "expected": "ok"}],
                    "offending_count": 1,
                    "checked": 1,
                },
                "message": "needs ok",
            }
        ],
    }


class KindTurn(Assertion):
    """A user's whole-conversation check whose kind happens to be `turn` (a test double):
    it fails, with two failed parts."""

    __slots__ = ()
    kind = "turn"
    level = "conversation"

    def _check(self, subject: object) -> Result:
        part = Result(Status.FAILED, "part", "no")
        return Result(Status.FAILED, "turn", "both parts failed", children=(part, part))

    def describe(self) -> str:
        return "a check named turn"


@pytest.mark.parametrize(
    "turns", [(), (TurnSpec((Contains("a"),), input="q"),)], ids=["no turns", "a turn"]
)
def test_a_whole_conversation_check_counts_once_whatever_its_kind(
    turns: tuple[TurnSpec, ...],
) -> None:
    """The case counts each whole-conversation check once, as itself, not by its parts (the
    `Case` docstring: `checks` are assertions on the whole subject): a check is not taken for
    one of the case's turns because its kind is `turn`."""
    case = Case("c", turns=turns, checks=(KindTurn(),))
    for got in both(case, Turn(input="q", text="a")):
        assert got["details"] == {"passed": len(turns), "failed": 1, "error": 0, "skipped": 0}
        assert got["reason"] == "1 assertion failed; first: part: no"


def test_a_conversation_case_whose_every_assertion_was_skipped_is_skipped() -> None:
    # SEMANTICS G12, docs/specs.md "A case's outcome": nothing evaluated is not a pass
    from chatassert import Contains, Conversation, Turn, When
    from chatassert.specs import Case, TurnSpec

    never = When(Contains("refund"), Contains("sorry"))
    case = Case("quiet", turns=(TurnSpec((never,)),), checks=())
    result = case.check(Conversation(turns=[Turn(input="hi", text="hello")]))
    assert result.status == "skipped"
    assert result.details == {"passed": 0, "failed": 0, "error": 0, "skipped": 1}
    assert result.reason.startswith("the assertion skipped; first: ")
    evaluated = Case("one", turns=(TurnSpec((never, Contains("hello"))),), checks=())
    assert evaluated.check(Conversation(turns=[Turn(input="hi", text="hello")])).passed


def test_a_turn_without_input_is_not_a_user_turn_and_the_error_says_how_to_make_one() -> None:
    # issue 14 item 8: a Turn built in code without `input` is not paired with a case's turn
    from chatassert import Contains, Conversation, Turn
    from chatassert.specs import Case, TurnSpec

    case = Case("c", turns=(TurnSpec((Contains("18C"),), input="Weather?"),))
    missing = case.check(Conversation(turns=[Turn(text="18C")])).children[0]
    assert missing.status == "error"
    assert missing.reason == (
        "the case has turn 1 but the transcript has only 0 user turns (1 turn without user "
        "input: a turn built in code is a user turn when it has `input`, "
        "`Turn(input=..., text=...)`)"
    )
    assert missing.details == {"turn_index": 0, "user_turns": 0, "input": "Weather?"}
    assert case.check(Conversation(turns=[Turn(input="Weather?", text="18C")])).passed


def not_met(text: str) -> dict[str, Any]:
    """The record of a `When` whose condition (`contains text`) was not met: skipped (G12)."""
    return {
        "status": "skipped",
        "name": "when",
        "reason": f"condition not met: Response does not contain '{text}'",
        "details": {},
        "children": [
            {
                "status": "failed",
                "name": "contains",
                "reason": f"Response does not contain '{text}'",
                "details": {"expected": text, "missing": [text]},
            }
        ],
    }


def test_a_case_of_several_skipped_assertions_is_skipped_and_its_turns_say_so() -> None:
    # SEMANTICS G12, docs/specs.md "A case's outcome": a case (and a turn) whose every assertion
    # was skipped is `skipped`, with the first skip's reason; a turn without assertions passes.
    quiet = (When(Contains("refund"), Contains("sorry")), When(Contains("cancel"), Contains("ok")))
    case = Case("quiet", turns=(TurnSpec(quiet, input="hi"), TurnSpec((), input="again")))
    subject = Conversation(turns=[Turn(input="hi", text="hello"), Turn(input="again", text="x")])
    for got in both(case, subject):
        assert got == {
            "status": "skipped",
            "name": "case",
            "reason": "all 2 assertions skipped; first: when: condition not met: "
            "Response does not contain 'refund'",
            "details": {"passed": 0, "failed": 0, "error": 0, "skipped": 2},
            "message": "quiet",
            "children": [
                {
                    "status": "skipped",
                    "name": "turn",
                    "reason": "2 skipped",
                    "details": {"turn_index": 0, "input": "hi"},
                    "location": "turns[0]",
                    "children": [not_met("refund"), not_met("cancel")],
                },
                {
                    "status": "passed",
                    "name": "turn",
                    "reason": "0 assertions passed",
                    "details": {"turn_index": 1, "input": "again"},
                    "location": "turns[1]",
                },
            ],
        }


def test_a_turn_with_a_pass_beside_a_skip_passes_and_counts_both() -> None:
    # docs/specs.md "A case's outcome": skipped assertions are left out when something passed
    case = Case(
        "some",
        turns=(TurnSpec((When(Contains("refund"), Contains("x")), Contains("hello")), input="hi"),),
    )
    for got in both(case, Turn(input="hi", text="hello")):
        turn = got["children"][0]
        assert (got["status"], got["details"]) == (
            "passed",
            {"passed": 1, "failed": 0, "error": 0, "skipped": 1},
        )
        assert (turn["status"], turn["reason"]) == ("passed", "1 assertion passed, 1 skipped")
        assert turn["children"][0] == not_met("refund")


def test_the_missing_turn_hint_counts_the_turns_without_input_both_ways() -> None:
    # issue 14 item 8; `Case.acheck` gives the tree `Case.check` gives (its docstring)
    case = Case("c", turns=(TurnSpec((Contains("b"),), input="Weather?"),))
    subject = Conversation(turns=[Turn(text="a"), Turn(text="b")])
    for got in both(case, subject):
        assert got["children"] == [
            {
                "status": "error",
                "name": "turn",
                "reason": "the case has turn 1 but the transcript has only 0 user turns (2 turns "
                "without user input: a turn built in code is a user turn when it has `input`, "
                "`Turn(input=..., text=...)`)",
                "details": {"turn_index": 0, "user_turns": 0, "input": "Weather?"},
                "location": "turns[0]",
                "children": [
                    {
                        "status": "error",
                        "name": "contains",
                        "reason": "not checked: the transcript has no user turn 1",
                        "details": {"turn_index": 0, "user_turns": 0, "missing_turn": True},
                    }
                ],
            }
        ]


@pytest.mark.parametrize(
    "subject", ['{"a":   "ok"}', Turn(input="q", text='{"a":   "ok"}')], ids=["text", "a turn"]
)
def test_a_text_check_in_a_json_case_reads_the_response_as_given(subject: object) -> None:
    # `Case.check` docstring: only JSON checks get the object decoded once; a text check sees
    # the response's own text (not the object written out again), on `check` as on `acheck`
    case = Case("j", checks=(Contains('"a":   "ok"'), FieldEquals({"a": "ok"})), subject="json")
    for got in both(case, subject):
        assert [(c["name"], c["status"]) for c in got["children"]] == [
            ("contains", "passed"),
            ("expect_field_equals", "passed"),
        ]
        assert (got["status"], got["reason"]) == ("passed", "all 2 assertions passed")
