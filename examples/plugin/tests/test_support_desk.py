"""The package's own tests: each piece on its own, and the checks held to chatassert's contract.

Run with the package installed (`pip install ./examples/plugin`), or from a checkout with
`--chatassert-plugin chatassert_support_desk.plugin` and `src/` on `PYTHONPATH`.
"""

from __future__ import annotations

import io
import json

import pytest
from chatassert_support_desk.checks import MessageQuotesOrderId, QuotesOrderId
from chatassert_support_desk.judges import house_rules
from chatassert_support_desk.readers import SUPPORT_DESK
from chatassert_support_desk.reports import MARKDOWN_TALLY

from chatassert import LLMRubric, ToolCall, Turn
from chatassert.errors import TranscriptError
from chatassert.reporting import ReportOptions, Summary
from chatassert.testing import check_contract

LOOKUP = ToolCall(name="lookup_order", arguments={"order_id": "A-1042"}, id="c1")


def test_quotes_order_id_keeps_the_contract() -> None:
    check_contract(
        QuotesOrderId(),
        subjects={
            "passed": [Turn(text="Order A-1042 is refunded.", tool_calls=(LOOKUP,))],
            "failed": [
                Turn(text="Your refund is on its way.", tool_calls=(LOOKUP,)),
                Turn(text="Order A-10420 is refunded.", tool_calls=(LOOKUP,)),  # not the id
            ],
            "error": [Turn(text="Hello!")],  # no order looked up, no id given
        },
    )
    check_contract(
        QuotesOrderId(id="B-77"),
        subjects={"passed": ["B-77 shipped"], "failed": ["It shipped"]},
    )


def test_message_quotes_order_id_keeps_the_contract() -> None:
    check_contract(
        MessageQuotesOrderId(),
        subjects={
            "passed": [{"order_id": "A-1042", "message": "A-1042 is refunded"}],
            "failed": [
                {"order_id": "A-1042", "message": "Refunded"},
                {"order_id": "A-1042"},
            ],
            "error": [{"message": "Refunded"}, ["not", "an", "object"]],
        },
    )


def test_the_reader_reads_a_ticket_into_a_conversation() -> None:
    ticket = {
        "ticket_id": "T-1",
        "case": "refund status",
        "timeline": [
            {"author": "bot", "body": "Hi!"},
            {"author": "customer", "body": "Refund for A-1042?"},
            {"author": "customer", "body": "Please."},
            {
                "author": "bot",
                "action": "lookup_order",
                "params": {"order_id": "A-1042"},
                "result": {"status": "refunded"},
            },
            {"author": "bot", "body": "A-1042 is refunded."},
        ],
    }
    assert SUPPORT_DESK.detect(ticket)
    assert not SUPPORT_DESK.detect({"turns": []})
    conversation = SUPPORT_DESK.parse(ticket)
    assert (conversation.id, conversation.metadata) == ("T-1", {"case": "refund status"})
    greeting, question = conversation.turns
    assert (greeting.input, greeting.text) == (None, "Hi!")
    assert (question.input, question.text) == ("Refund for A-1042?\nPlease.", "A-1042 is refunded.")
    assert [(c.name, c.arguments, c.id) for c in question.tool_calls] == [
        ("lookup_order", {"order_id": "A-1042"}, "T-1#3")
    ]
    assert json.loads(question.tool_results[0].content) == {"status": "refunded"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"author": "agent", "body": "Hi"}, "timeline[0].author should be 'customer' or 'bot'"),
        ({"author": "customer", "body": 3}, "timeline[0].body should be a string"),
        ({"author": "bot", "action": "lookup_order", "params": []}, "timeline[0].params"),
    ],
)
def test_the_reader_names_the_place_of_what_it_cannot_read(
    entry: dict[str, object], message: str
) -> None:
    with pytest.raises(TranscriptError, match=message.replace("[", r"\[").replace("]", r"\]")):
        SUPPORT_DESK.parse({"ticket_id": "T-1", "timeline": [entry]})


def test_the_judge_grades_by_the_quoted_phrases_and_errs_on_none() -> None:
    judge = house_rules()
    reply = Turn(input="Where is it?", text="Sorry! It arrives tomorrow.")
    held = LLMRubric('Says "sorry" and when it "arrives"', judge=judge).check(reply)
    assert (held.status.value, held.score) == ("passed", 1.0)
    half = LLMRubric('Gives the "tracking number" and says "sorry"', judge=judge).check(reply)
    assert (half.status.value, half.score) == ("failed", 0.5)
    unquoted = LLMRubric("Is polite", judge=judge).check(reply)
    assert unquoted.status.value == "error"  # never a pass
    assert "quotes none" in unquoted.reason
    with pytest.raises(ValueError, match="no option 'temperature'"):
        house_rules(temperature="0")


def test_the_report_is_a_markdown_table_of_the_summary() -> None:
    summary = Summary()
    summary.count("support", "refund status", "passed", [])
    summary.count("support", "late | delivery", "failed", [])
    out = io.StringIO()
    MARKDOWN_TALLY.open(out, ReportOptions()).finish(summary, None)
    assert out.getvalue().splitlines() == [
        "| case | passed | failed | error | skipped |",
        "|---|---:|---:|---:|---:|",
        "| support / refund status | 1 | 0 | 0 | 0 |",
        "| support / late \\| delivery | 0 | 1 | 0 | 0 |",
        "| **total** | 1 | 1 | 0 | 0 |",
        "",
        "1 of 2 cases passed.",
    ]
