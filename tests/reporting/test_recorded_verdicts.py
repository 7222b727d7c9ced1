"""Reports beside a recording's own verdicts: which recorded verdict pairs with which result,
when two verdicts count as a disagreement, and how the reports show it."""

from __future__ import annotations

from typing import Any

from chatassert import Conversation, GuardrailEvent, OnEveryTurn, Turn
from chatassert._registry import UnknownType
from chatassert.promptkit import ContentIncludes, ConversationToolsCalled, ToolsCalled
from chatassert.reporting import (
    Outcome,
    Summary,
    disagreement_text,
    recorded_verdicts,
    render_text,
)
from chatassert.specs import Case, TurnSpec, loads_suite

CHAT_TURNS = (
    Turn(input="Refund INV-1?", text="Refunded INV-1."),
    Turn(input="And INV-2?", text="I can't find INV-2."),
)


def _chat(*recorded: dict[str, Any]) -> Conversation:
    return Conversation(turns=CHAT_TURNS, metadata={"recorded_assertions": list(recorded)})


def _at(location: str, kind: str | None, passed: Any, **more: Any) -> dict[str, Any]:
    return {"location": location, "type": kind, "passed": passed, "message": None, **more}


def _compare(case: Case, chat: Conversation) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    compared = recorded_verdicts(case.check(chat), chat)
    assert compared is not None
    return compared


SCENARIO = Case(
    "refunds",
    turns=(
        TurnSpec((ContentIncludes(["refunded"]), ContentIncludes(["INV-1"]))),
        TurnSpec((ContentIncludes(["refunded"]),)),
    ),
    checks=(ConversationToolsCalled(["refund"]),),
)


def test_verdicts_pair_by_type_and_place_in_order() -> None:
    chat = _chat(
        _at("turns[0]", "content_includes", True),
        _at("turns[0]", "content_includes", False),  # the second check of that turn: passed
        _at("turns[1]", "content_includes", False),
        _at("conversation", "tools_called", True),  # the conversation-level tools_called
    )
    recorded, differ = _compare(SCENARIO, chat)
    assert [(r["location"], r["recorded"], r["chatassert"]) for r in recorded] == [
        ("turns[0]", "passed", "passed"),
        ("turns[0]", "failed", "passed"),
        ("turns[1]", "failed", "failed"),
        ("conversation", "passed", "failed"),
    ]
    assert [(d["location"], d["label"]) for d in differ] == [
        ("turns[0]", "content_includes"),
        ("conversation", "conversation_tools_called"),
    ]
    assert differ[1]["reason"] == "missing required tools: refund"


def test_a_recorded_verdict_with_no_result_of_its_type_there_is_listed_unpaired() -> None:
    chat = _chat(
        _at("turns[0]", "tools_called", True),  # the case has no tools_called on a turn
        _at("turns[5]", "content_includes", True),  # nor a sixth turn
        _at("conversation", "content_includes", False),  # nor a conversation content check
    )
    recorded, differ = _compare(SCENARIO, chat)
    assert [r["chatassert"] for r in recorded] == [None, None, None]
    assert differ == []


def test_verdicts_without_a_type_pair_by_message_then_by_order() -> None:
    case = Case(
        "replay",
        checks=(
            OnEveryTurn(ContentIncludes(["INV"], message="Names the invoice")),
            OnEveryTurn(ContentIncludes(["refunded"], message="Says refunded")),
        ),
    )
    chat = _chat(
        {"location": "turns[1]", "passed": True, "message": "Says refunded"},
        {"location": "turns[1]", "passed": False},  # no message: the first result left
    )
    recorded, differ = _compare(case, chat)
    assert [(r["type"], r["recorded"], r["chatassert"]) for r in recorded] == [
        (None, "passed", "failed"),
        (None, "failed", "passed"),
    ]
    assert [d["label"] for d in differ] == ["Says refunded", "Names the invoice"]


def test_skipped_or_unknown_verdicts_are_never_disagreements() -> None:
    case = Case(
        "mixed",
        checks=(UnknownType("image_format"), OnEveryTurn(ToolsCalled(["refund"]))),
    )
    chat = _chat(
        _at("conversation", "image_format", False),  # chatassert skipped it
        _at("turns[0]", "tools_called", True, skipped=True),  # PromptKit skipped it
        _at("turns[1]", "tools_called", None),  # PromptKit's verdict is unreadable
    )
    recorded, differ = _compare(case, chat)
    assert [(r["recorded"], r["chatassert"]) for r in recorded] == [
        ("failed", "skipped"),
        ("skipped", "failed"),
        (None, "failed"),
    ]
    assert differ == []


def test_an_error_differs_from_either_recorded_verdict() -> None:
    suite = loads_suite(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - role: user\n      content: Refund INV-1?\n      assertions:\n"
        "        - {type: state_is, params: {state: done}}\n"
    )
    chat = _chat(_at("turns[0]", "state_is", True))
    recorded, differ = _compare(suite.cases[0], chat)
    assert (recorded[0]["recorded"], recorded[0]["chatassert"]) == ("passed", "error")
    assert disagreement_text(differ[0]) == (
        "turns[0] state_is: recorded passed, chatassert error (no workflow state available)"
    )


def test_a_conversation_without_recorded_verdicts_has_nothing_to_compare() -> None:
    chat = Conversation(turns=CHAT_TURNS)
    assert recorded_verdicts(SCENARIO.check(chat), chat) is None


def test_a_guardrail_verdict_pairs_across_spellings() -> None:
    turn = Turn(input="Code?", text="No.", guardrails=[GuardrailEvent(name="BannedWordsValidator")])
    chat = Conversation(
        turns=(turn,),
        metadata={"recorded_assertions": [_at("turns[0]", "Guardrail-Triggered", False)]},
    )
    suite = loads_suite(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - role: user\n      content: Code?\n      assertions:\n"
        "        - {type: guardrail_triggered, params: {validator: banned_words}}\n"
    )
    _, differ = _compare(suite.cases[0], chat)
    assert disagreement_text(differ[0]) == (
        "turns[0] Guardrail-Triggered: recorded failed, chatassert passed"
    )


def test_the_json_form_of_an_outcome_carries_both_lists_only_beside_a_recording() -> None:
    chat = _chat(_at("conversation", "tools_called", True))
    result = SCENARIO.check(chat)
    recorded, differ = _compare(SCENARIO, chat)
    plain = Outcome("s", "refunds", result, "run.json:1").to_dict()
    assert "recorded" not in plain
    assert "disagreements" not in plain
    beside = Outcome("s", "refunds", result, "run.json:1", None, None, tuple(recorded), ())
    assert beside.to_dict()["recorded"] == recorded
    assert beside.to_dict()["disagreements"] == []
    assert len(differ) == 1


def test_the_text_report_lists_each_difference_and_counts_them() -> None:
    summary = Summary(keep=2, records=3)
    for n in range(3):  # each a case checked, whose verdict differs from the recording's
        summary.count("s", "c", "passed", [])
        summary.add_disagreement(f"s / c (run.json:{n})", "turns[1] state_is: recorded failed")
    text = render_text(summary)
    assert text.splitlines()[-5:] == [
        "verdicts that differ from the recording's:",
        "- s / c (run.json:0): turns[1] state_is: recorded failed",
        "- s / c (run.json:1): turns[1] state_is: recorded failed",
        "",
        "3 checked: 3 passed, 0 failed, 0 errors, 0 skipped; 3 verdicts differ from the "
        "recording's",
    ]
    one = Summary(records=1)
    one.count("s", "c", "passed", [])
    one.add_disagreement("s / c (r.json:1)", "x")
    assert render_text(one).endswith("; 1 verdict differs from the recording's")
    assert "differ" not in render_text(Summary(records=1))
