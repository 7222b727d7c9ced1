"""Decision tests of grounded_in_tool_results: claims found and not found (with their spans),
number formats, dates, identifiers, JSON paths, the place of a turn in its conversation,
skipped and error outcomes, and specs."""

from __future__ import annotations

import pytest

from chatassert import (
    Conversation,
    LLMRubric,
    OnEveryTurn,
    OnLastTurn,
    SpecError,
    Status,
    ToolResult,
    Turn,
    When,
    from_spec,
)
from chatassert.policies import GroundedInToolResults as Grounded
from chatassert.specs import load_assertion
from chatassert.testing import FakeJudge

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED
SLOW = "a" * 40000 + "!"  # `(a|aa)+$` backtracks for far longer than 50 ms on this


def said(text: str, *results: str | dict[str, object]) -> Turn:
    return Turn(
        text=text,
        tool_results=[
            ToolResult(content=r) if isinstance(r, str) else ToolResult(data=r) for r in results
        ],
    )


TABLE = [
    # (check, turn, status, claims not found)
    (Grounded(), said("Total: $1,250.00", {"total": 1250}), P, []),
    (Grounded(), said("Total: 1250", "amount 1,250.00 USD"), P, []),
    (Grounded(), said("It costs 12.5 now", '{"price": 12.50}'), P, []),
    (Grounded(), said("It costs 12.05 now", '{"price": 12.5}'), F, ["12.05"]),
    (Grounded(), said("It costs 1251", {"total": 1250}), F, ["1251"]),
    (Grounded(), said("Down 15% today", "change: 15 percent"), P, []),
    (Grounded(), said("Order ORD-1042 shipped", "order ord-1042 SHIPPED"), P, []),
    (Grounded(), said("Order ORD-1043 shipped", "ORD-1042"), F, ["ORD-1043"]),
    (Grounded(), said("Code X7K9P2 works", "code x7k9p2"), P, []),
    (Grounded(), said("Code X7K9P3 works", "code X7K9P2"), F, ["X7K9P3"]),
    (Grounded(), said('Book "Blue  Mug" now', "item: blue mug"), P, []),
    (Grounded(), said("Book \u201cRed Mug\u201d now", "item: blue mug"), F, ["Red Mug"]),
    (Grounded(), said('Title "Room 12" is free', "Room 12 free"), P, []),  # one claim
    (Grounded(), said("Due 2024-03-05 at 14:30", "due 2024-03-05 14:30"), P, []),
    (Grounded(), said("Due 2024-03-06", "due 2024-03-05, 2024, 3, 6"), F, ["2024-03-06"]),
    (Grounded(), said("Use v2 or the 3rd one", "nothing"), S, []),  # glued to letters
    (Grounded(), said("Hello there, how can I help?", "anything"), S, []),
    (Grounded(numbers=False), said("It costs 99", "0"), S, []),
    (Grounded(quotes=False), said('Say "hi"', "nothing"), S, []),
    (Grounded(ignore_below=10), said("Step 1: pay 40", "amount 40"), P, []),
    (Grounded(ignore_below=10), said("Step 1: pay 41", "amount 40"), F, ["41"]),
    (Grounded(ignore=[r"\b20[0-9]{2}\b"]), said("Since 2024: 40", "40"), P, []),
    (Grounded(), said("Since 2024: 40", "40"), F, ["2024"]),
    (Grounded(identifiers=[r"\bord_[a-z0-9]+\b"]), said("Ref ord_8fj2k", "ord_8fj2k"), P, []),
    (Grounded(identifiers=[r"\bord_[a-z0-9]+\b"]), said("Ref ord_9", "ord_8"), F, ["ord_9"]),
    (Grounded(), said("Refund RF-7731 of 40", {"id": "RF-7731", "amount": 40}), P, []),
]


@pytest.mark.parametrize(("check", "subject", "status", "missing"), TABLE)
def test_decisions(check: Grounded, subject: Turn, status: Status, missing: list[str]) -> None:
    result = check.check(subject)
    assert result.status is status, result.reason
    assert [row["claim"] for row in result.details["ungrounded"]] == missing


def test_a_failure_lists_each_ungrounded_claim_with_its_span() -> None:
    text = 'Order ORD-9 for "Lamp" costs 1,300.00 and ships 2024-05-01.'
    result = Grounded().check(said(text, {"order": "ORD-9", "total": 1250}))
    assert result.status is F
    rows = result.details["ungrounded"]
    assert [(r["kind"], r["claim"]) for r in rows] == [
        ("quote", "Lamp"),
        ("number", "1,300.00"),
        ("date", "2024-05-01"),
    ]
    for row in rows:
        assert text[row["start"] : row["end"]] == row["claim"]
        assert (row["turn"], row["at"]) == (None, "text")
    assert result.reason == (
        "expected every claim to appear in an earlier tool result but 3 of 4 did not: "
        "Lamp (quote, text 17-21); 1,300.00 (number, text 29-37); "
        "2024-05-01 (date, text 48-58)"
    )
    (found,) = result.details["grounded"]
    assert found["claim"] == "ORD-9"
    assert found["found_in"] == {"turn": None, "tool_result": 0, "at": "tool_results[0]"}


def test_a_pass_lists_where_each_claim_was_found() -> None:
    turn = said("ORD-1 costs 40", "unrelated", {"id": "ORD-1"}, "total 40")
    result = Grounded().check(turn)
    assert result.status is P
    assert [(r["claim"], r["found_in"]["tool_result"]) for r in result.details["grounded"]] == [
        ("ORD-1", 1),
        ("40", 2),
    ]
    assert result.reason == (
        "all 2 claim(s) appear in tool results: ORD-1 (identifier, text 0-5 in tool_results[1]); "
        "40 (number, text 12-14 in tool_results[2])"
    )


def test_claims_without_any_tool_result_fail_and_say_so() -> None:
    result = Grounded().check(Turn(text="Your balance is 420."))
    assert result.status is F
    assert "no tool result came before the response" in result.reason
    assert result.details["tool_results"] == 0


def test_nothing_to_ground_is_skipped_even_without_results() -> None:
    result = Grounded().check(Turn(text="Happy to help!"))
    assert (result.status, result.reason) == (
        S,
        "nothing to ground: the response states no number, identifier or quote",
    )


def test_a_path_narrows_the_evidence_and_is_reported() -> None:
    data = {"order": {"id": "ORD-7", "total": 99}, "note": "call 555"}
    found = Grounded(path="order.total").check(said("It is 99", data))
    assert found.status is P
    assert found.details["grounded"][0]["found_in"]["path"] == "order.total"
    assert Grounded(path="order.total").check(said("Call 555", data)).status is F
    assert Grounded(path="order.total").check(said("Ref ORD-7", data)).status is F
    assert Grounded().check(said("Call 555, ref ORD-7", data)).status is P


def test_a_path_reads_json_content_and_jsonpath() -> None:
    content = '{"items": [{"sku": "AB-12"}, {"sku": "CD-34"}], "total": 7}'
    result = Grounded(path="$.items[*].sku").check(said("You have CD-34", content))
    assert result.status is P
    assert result.details["grounded"][0]["found_in"]["path"] == "items[1].sku"
    not_json = Grounded(path="total").check(said("total 7", "total 7 (plain text)"))
    assert not_json.status is F  # a result that is not JSON has nothing under a path


def test_a_conversation_checks_each_turn_against_the_results_before_it() -> None:
    chat = Conversation(
        turns=[
            said("Looking it up.", {"id": "RF-7731", "amount": 40}),
            Turn(text="Refund RF-7731 of 40 is done; 41 left."),
            Turn(text="Reference RF-9999.", tool_results=[ToolResult(content="RF-9999")]),
        ]
    )
    result = Grounded().check(chat)
    assert result.status is F
    assert [(r["claim"], r["turn"], r["at"]) for r in result.details["ungrounded"]] == [
        ("41", 1, "turns[1].text"),
    ]
    grounded = {r["claim"]: r["found_in"]["at"] for r in result.details["grounded"]}
    assert grounded == {
        "RF-7731": "turns[0].tool_results[0]",
        "40": "turns[0].tool_results[0]",
        "RF-9999": "turns[2].tool_results[0]",
    }


def test_a_later_result_does_not_ground_an_earlier_turn() -> None:
    chat = Conversation(turns=[Turn(text="Ref RF-1"), said("ok", "RF-1")])
    result = Grounded().check(chat)
    assert result.status is F
    assert "no tool result came before the response" not in result.reason
    assert result.details["ungrounded"][0]["at"] == "turns[0].text"


def test_a_turn_checked_in_its_conversation_reads_the_earlier_results() -> None:
    chat = Conversation(turns=[said("Looking.", "balance 420"), Turn(text="It is 420.")])
    leaf = OnLastTurn(Grounded()).check(chat).children[0]
    assert leaf.status is P
    assert leaf.details["grounded"][0]["found_in"]["at"] == "turns[0].tool_results[0]"
    assert leaf.details["grounded"][0]["at"] == "turns[1].text"
    alone = Grounded().check(chat.turns[1])  # a turn on its own has only its own results
    assert alone.status is F
    every = OnEveryTurn(Grounded()).check(chat)
    assert [c.status for c in every.children] == [S, P]


def test_a_suite_case_gives_its_turns_their_place() -> None:
    from chatassert.specs import loads_suite

    suite = loads_suite(
        "chatassert: 1\n"
        "name: grounding\n"
        "cases:\n"
        "  - name: refund\n"
        "    turns:\n"
        "      - input: my refunds?\n"
        "      - input: the total?\n"
        "        assertions:\n"
        "          - type: grounded_in_tool_results\n"
        "            ignore_below: 10\n",
        filename="g.yaml",
    )
    looked_up = Turn(
        input="my refunds?",
        text="Looking them up.",
        tool_results=[ToolResult(content="refunds: 30, 50, total 80")],
    )
    good = Conversation(
        turns=[looked_up, Turn(input="the total?", text="Your 2 refunds total 80.")]
    )
    assert suite.cases[0].check(good).status is P
    bad = Conversation(turns=[looked_up, Turn(input="the total?", text="Your 2 refunds total 90.")])
    result = suite.cases[0].check(bad)
    assert result.status is F
    assert "90 (number, turns[1].text 21-23)" in str(result.to_dict())


def test_a_regex_out_of_time_is_an_error() -> None:
    check = Grounded(identifiers=["(a|aa)+$"], regex_timeout=0.05)
    result = check.check(said(SLOW, "anything"))
    assert result.status is E
    assert result.details["error"] == "timeout"
    assert "did not finish within 0.05s" in result.reason
    ignored = Grounded(ignore=["(a|aa)+$"], regex_timeout=0.05).check(said(SLOW, "x"))
    assert ignored.status is E


def test_the_judge_is_asked_only_when_the_claims_are_not_grounded() -> None:
    judge = FakeJudge(default={"passed": True, "reason": "a fair paraphrase"})
    rule = When(~Grounded(), LLMRubric("Agrees with the tool results", judge=judge))
    assert rule.check(said("Total 40", "total 40")).status is S
    assert judge.requests == []
    result = rule.check(said("Total 41", "total 40"))
    assert (result.status, len(judge.requests)) == (P, 1)


def test_specs_build_the_same_check() -> None:
    assert from_spec({"type": "grounded_in_tool_results"}) == Grounded()
    built = load_assertion(
        "type: grounded_in_tool_results\n"
        "path: order.total\n"
        "identifiers: ['\\bord_[a-z0-9]+\\b']\n"
        "ignore_below: 10\n"
        "ignore: ['\\b20[0-9]{2}\\b']\n"
        "quotes: false\n"
    )
    assert built == Grounded(
        path="order.total",
        identifiers=[r"\bord_[a-z0-9]+\b"],
        ignore_below=10,
        ignore=[r"\b20[0-9]{2}\b"],
        quotes=False,
    )
    assert built.as_spec()["ignore_below"] == 10


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"identifiers": ["(unclosed"]}, "identifiers"),
        ({"ignore": ["a(?=b)"]}, "ignore"),
        ({"ignore_below": -1}, "ignore_below"),
        ({"numbers": "yes"}, "numbers"),
        ({"identifiers": []}, "identifiers"),
        ({"path": "$[?("}, "path"),
    ],
)
def test_spec_problems(spec: dict[str, object], fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        from_spec({"type": "grounded_in_tool_results", **spec})
    assert fragment in str(info.value)
