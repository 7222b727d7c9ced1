"""Summaries, pass rates, excerpts and the text report at their edges.

Each test names what it pins: the `Summary`, `pass_rate`, `excerpt` and `json_line`
docstrings, and docs/offline.md ("Reports": the text report's counts per assertion, first
failing cases, unreadable lines and final count line). Found by mutation testing
(docs/internals/mutation.md); the exit codes are pinned in tests/test_boundaries.py.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from chatassert import (
    Contains,
    Conversation,
    OnLastTurn,
    Result,
    Status,
    ToolCall,
    ToolResult,
    Turn,
)
from chatassert._suite import Case, TurnSpec
from chatassert.reporting import (
    Outcome,
    Summary,
    excerpt,
    json_line,
    pass_rate,
    render_text,
)

# -- pass_rate: "the share of evaluated outcomes that passed; skipped ones were not evaluated"


@pytest.mark.parametrize(
    ("counts", "rate"),
    [
        ({"passed": 1, "error": 1}, 0.5),  # an error was evaluated: it lowers the rate
        ({"passed": 1, "failed": 1, "error": 2}, 0.25),
        ({"failed": 1}, 0.0),  # no `passed` key: none passed
        ({"error": 3}, 0.0),
        ({"skipped": 3}, None),
    ],
)
def test_pass_rate(counts: dict[str, int], rate: float | None) -> None:
    assert pass_rate(counts) == rate


# -- Summary: counts accumulate; examples are kept up to `keep` ------------------------------


def outcome(
    case: str, result: Result, source: str = "log:1", subject_id: str | None = None
) -> Outcome:
    return Outcome("suite", case, result, source, subject_id)


def failed(reason: str = "no") -> Result:
    return Result(Status.FAILED, "case", reason, children=(Result(Status.FAILED, "leaf", reason),))


def test_counts_accumulate_per_case_and_per_assertion() -> None:
    summary = Summary()
    for _ in range(3):
        summary.add(outcome("c", failed()))
    assert summary.counts == {"failed": 3}
    assert summary.per_case == {"suite / c": {"failed": 3}}
    assert summary.per_assertion == {"leaf": {"failed": 3}}


def test_unreadable_lines_are_all_counted_and_kept_up_to_keep() -> None:
    summary = Summary(keep=2)
    for line in range(1, 4):
        summary.add_unreadable(f"log:{line}", "not JSON")
    assert summary.unreadable_count == 3
    assert summary.unreadable == [("log:1", "not JSON"), ("log:2", "not JSON")]


def test_whole_subject_checks_count_as_one_assertion_turns_as_their_assertions() -> None:
    """`assertion_statuses`: turn groups are unwrapped; any other check is one assertion."""
    case = Case(
        "c",
        turns=(TurnSpec((Contains("a"), Contains("b", message="says b")), input="q"),),
        checks=(OnLastTurn(Contains("zz")),),
    )
    chat = Conversation.from_messages(
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    )
    summary = Summary()
    summary.add(Outcome("suite", "c", case.check(chat)))
    assert summary.per_assertion == {
        "contains": {"passed": 1},
        "says b": {"failed": 1},
        "on_last_turn": {"failed": 1},
    }


# -- json_line: one line, non-ASCII kept, anything else as its repr, non-finite as strings ----


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ({"d": dt.date(2024, 1, 2)}, '{"d": "datetime.date(2024, 1, 2)"}\n'),
        (
            {"x": float("nan"), "t": "café", "d": dt.date(2024, 1, 2)},
            '{"x": "NaN", "t": "café", "d": "datetime.date(2024, 1, 2)"}\n',
        ),
    ],
)
def test_json_line(value: Any, line: str) -> None:
    assert json_line(value) == line


# -- excerpt -----------------------------------------------------------------------------------

BOOKING = Conversation.from_messages(
    [
        {"role": "user", "content": "Book   a table\nfor two"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "book", "arguments": '{"city": "Zürich", "n": 2}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "pay", "arguments": "{oops"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "booked  ok"},
        {"role": "assistant", "content": "Done,\n booked."},
    ]
)
BOOKING_LINES = (
    "user: Book a table for two\n"
    '  -> book({"city": "Zürich", "n": 2})\n'
    "  -> pay({oops)\n"
    "  <- book: booked ok\n"
    "assistant: Done, booked."
)


def test_excerpt_of_a_conversation_and_of_its_turn() -> None:
    assert excerpt(BOOKING) == BOOKING_LINES
    assert excerpt(BOOKING.turns[0]) == BOOKING_LINES


def test_excerpt_of_a_failed_or_nameless_tool_result() -> None:
    turn = Turn(
        input="go",
        text="ok",
        tool_results=[ToolResult(content="boom", is_error=True, name="t"), ToolResult(content="x")],
    )
    assert excerpt(turn) == "user: go\n  <- t [error]: boom\n  <- ?: x\nassistant: ok"


def test_excerpt_of_calls_whose_arguments_could_not_be_read() -> None:
    """`excerpt`: such a call shows the raw text it was logged with, or nothing if none was."""
    turn = Turn(
        input="go",
        text="ok",
        tool_calls=[
            ToolCall(name="pay", arguments="[1, 2]"),
            ToolCall(name="lost", arguments_error="the log kept no arguments"),
        ],
    )
    assert excerpt(turn) == "user: go\n  -> pay([1, 2])\n  -> lost()\nassistant: ok"


def test_excerpt_cuts_each_line_to_its_width() -> None:
    turn = Turn(
        input="u" * 30,
        text="a" * 30,
        tool_calls=[ToolCall(name="f", arguments={"q": "x" * 30})],
        tool_results=[ToolResult(content="r" * 30)],
    )
    assert (
        excerpt(turn, width=20)
        == (
            "user: " + "u" * 13 + "…" + "u" * 6 + "\n"
            '  -> f({"q": …x"})\n'  # the arguments get half the width
            "  <- ?: rrrrrr…rrr\n"
            "assistant: " + "a" * 13 + "…" + "a" * 6
        )
    )


def test_excerpt_of_a_json_value_keeps_non_ascii_and_gets_twice_the_width() -> None:
    assert excerpt({"q": "café", "d": dt.date(2024, 1, 2)}) == '{"q": "café", "d": "2024-01-02"}'
    assert excerpt({"q": "x" * 100}, width=20) == '{"q": "' + "x" * 19 + "…" + "x" * 11 + '"}'


@pytest.mark.parametrize(("count", "last"), [(2, "assistant: t1"), (3, "… 1 more turns")])
def test_excerpt_says_how_many_turns_it_left_out(count: int, last: str) -> None:
    chat = Conversation(turns=[Turn(text=f"t{i}") for i in range(count)])
    assert excerpt(chat, turns=2).splitlines()[-1] == last
    assert excerpt(Conversation(turns=[Turn(text="t")] * 9), turns=2).endswith("… 7 more turns")


# -- render_text ------------------------------------------------------------------------------


def test_text_report_of_errors_skips_and_unmatched_subjects() -> None:
    summary = Summary()
    error = Result(Status.ERROR, "case", "broken", children=(Result(Status.ERROR, "judge", "x"),))
    skipped = Result(
        Status.SKIPPED, "case", "skip", children=(Result(Status.SKIPPED, "judge", ""),)
    )
    summary.add(outcome("e", error, source="", subject_id="conv-7"))
    summary.add(outcome("s", skipped))
    summary.unmatched = 2
    assert render_text(summary) == (
        "per assertion:\n"
        "  judge    0.0% passed  (0/1, 1 error, 1 skipped)\n"
        "\n"
        "the failing case:\n"
        "- suite / e (conv-7)\n"
        "    ERROR judge: x\n"
        "\n"
        "2 checked: 0 passed, 0 failed, 1 error, 1 skipped; 2 without a matching case"
    )


def many_failures(count: int) -> Summary:
    summary = Summary()
    long_label = "a label much longer than the forty-eight characters of the table"
    for index in range(count):
        result = Result(
            Status.FAILED,
            "case",
            "no",
            children=(
                Result(Status.PASSED, "passing leaf", "fine"),
                Result(Status.FAILED, "leaf", "why " * 60, message=long_label),
            ),
        )
        summary.add(outcome(f"c{index}", result, source=f"log:{index + 1}"))
    return summary


def test_text_report_defaults_are_the_documented_ones() -> None:
    """10 failing cases shown (`--show`), passing assertions hidden (no `-v`), width 120."""
    summary = many_failures(11)
    text = render_text(summary)
    assert text == render_text(summary, max_failures=10, verbose=False, width=120)
    assert "the first 10 of 11 failing cases:" in text
    assert text.count("\n- suite / c") == 10
    assert "passing leaf" not in text.split("first 10")[1]
    verbose = render_text(summary, verbose=True).split("first 10")[1]
    assert verbose.count("PASS passing leaf: fine") == 10
    tree_lines = [line for line in text.splitlines() if line.startswith("    ")]
    assert tree_lines
    assert max(len(line) for line in tree_lines) <= 120  # wrapped at the width, not cut
    assert "…" not in text.split("first 10")[1].split("\n- suite / c1 ")[0]
    first = text.split("\n- suite / c0 ")[1].split("\n- suite / c")[0]
    assert " ".join(first.split()).count("why") == 60  # the whole reason, over several lines


def test_text_report_table_cuts_labels_to_48_characters() -> None:
    text = render_text(many_failures(2))
    assert text.splitlines()[1:3] == [
        "  a label much longer than the for…rs of the table    0.0% passed  (0/2, 2 failed)",
        "  passing leaf                                      100.0% passed  (2/2)",
    ]
    assert "the 2 failing cases:" in text


def test_text_report_of_a_run_that_read_nothing_is_the_notice_alone() -> None:
    """G17: "0 checked" would read as a run that checked something."""
    assert render_text(Summary(records=0)) == (
        "\nnothing was checked: the logs held no records (an empty log, or empty standard input)"
    )


def test_text_report_of_an_interrupted_run_keeps_its_counts_and_says_it_is_partial() -> None:
    summary = Summary(records=5, interrupted=True)
    leaf = Result(Status.PASSED, "leaf", "ok")
    summary.add(outcome("c", Result(Status.PASSED, "case", "ok", children=(leaf,))))
    assert render_text(summary) == (
        "per assertion:\n"
        "  leaf  100.0% passed  (1/1)\n"
        "\n"
        "1 checked: 1 passed, 0 failed, 0 errors, 0 skipped\n"
        "interrupted after 5 log records (1 case checked): this report is partial"
    )


def test_text_report_shows_a_lone_surrogate_as_a_replacement_character() -> None:
    summary = Summary()
    summary.add(outcome("c", failed("bad \ud800 char"), source=""))
    assert render_text(summary) == (
        "per assertion:\n"
        "  leaf    0.0% passed  (0/1, 1 failed)\n"
        "\n"
        "the failing case:\n"
        "- suite / c ()\n"
        "    FAIL leaf: bad \ufffd char\n"
        "\n"
        "1 checked: 0 passed, 1 failed, 0 errors, 0 skipped"
    )


def test_excerpt_defaults_show_six_turns_of_240_characters() -> None:
    """The signature's defaults: `turns=6`, `width=240`."""
    chat = Conversation(turns=[Turn(input="x" * 241, text=f"t{i}") for i in range(7)])
    lines = excerpt(chat).splitlines()
    assert lines[-1] == "… 1 more turns"
    assert lines[-2] == "assistant: t5"
    assert lines[0] == "user: " + "x" * 160 + "…" + "x" * 79
    assert excerpt(chat) == excerpt(chat, turns=6, width=240)
