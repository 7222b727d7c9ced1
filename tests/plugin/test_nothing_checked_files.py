"""A suite file whose transcript yields nothing checked never makes a green pytest run.

pytest's own exit codes are left to pytest (5 when it collected nothing); a suite file it
collects whose transcript is empty, wholly unreadable, or holds only conversations no case
matches gives failing items that say why, so the run is red, as `chatassert check` exits 4.
"""

from __future__ import annotations

import json

import pytest

SUITE = """\
chatassert: 1
name: booking
cases:
  - name: books a table
    id: T-book
    turns:
      - input: Book a table for 4
        assertions: [{type: contains, value: confirmed}]
  - name: declines past dates
    turns:
      - input: Can I book for last Tuesday?
        assertions: [{type: contains, value: past}]
"""


def stranger(record_id: str) -> str:
    messages = [
        {"role": "user", "content": "What's the weather?"},
        {"role": "assistant", "content": "Sunny."},
    ]
    return json.dumps({"id": record_id, "messages": messages})


@pytest.fixture
def strict(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    pytester.makefile(".chatassert.yaml", booking=SUITE)
    return pytester


@pytest.mark.parametrize(
    "transcript",
    ["", "{oops\nnot json\n", "\n".join(stranger(f"conv-{i}") for i in (1, 2))],
    ids=["empty", "unreadable", "unmatched"],
)
def test_a_transcript_that_yields_nothing_checked_fails(
    strict: pytest.Pytester, transcript: str
) -> None:
    (strict.path / "booking.jsonl").write_text(transcript, encoding="utf-8")
    result = strict.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == 0
    result.stdout.fnmatch_lines_random(
        [
            "*case 'books a table' was checked against no conversation of booking.jsonl*",
            "*case 'declines past dates' was checked against no conversation of booking.jsonl*",
        ]
    )


def test_an_unmatched_conversation_is_named_with_the_closest_case(
    strict: pytest.Pytester,
) -> None:
    (strict.path / "booking.jsonl").write_text(stranger("T-bok") + "\n", encoding="utf-8")
    result = strict.runpytest()
    result.stdout.fnmatch_lines(
        [
            "*booking.jsonl:1: no case of 'booking' matches conversation 'T-bok': its id 'T-bok'"
            " is no case's id or name;*the closest to 'T-bok': 'T-book'*"
        ]
    )


JUDGED = """\
chatassert: 1
name: support
cases:
  - name: polite
    turns:
      - input: hello
        assertions: [{type: llm_rubric, value: Is polite}]
  - name: plain
    turns:
      - input: bye
        assertions: [{type: contains, value: bye}]
"""


def _chat(user: str, reply: str) -> str:
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    return json.dumps({"messages": messages})


def test_a_missing_judge_is_one_failing_item_and_the_other_cases_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    pytester.makefile(".chatassert.yaml", support=JUDGED)
    (pytester.path / "support.jsonl").write_text(
        "\n".join([_chat("hello", "hi")] * 3 + [_chat("bye", "bye")]) + "\n", encoding="utf-8"
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*support.chatassert.yaml: 1 judged check has no judge to ask, so nothing was checked:",
            "  - */support.chatassert.yaml: case 'polite', turns[[]0]: llm_rubric 'Is polite': no "
            "judge configured",
            "*give one: --chatassert-judge openai or anthropic*",
        ]
    )
    # once in the failure itself (pytest >= 9.2 repeats a multi-line message in the summary)
    failures = result.stdout.str().split("short test summary info")[0]
    assert failures.count("no judge configured") == 1
    pytester.runpytest("--chatassert-judge", "fake:pass").assert_outcomes(passed=4)
