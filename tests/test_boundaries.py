"""Decisions at their boundaries: the cases a one-character change in the code would flip.

Each test names the rule it pins (a docstring, a docs page, or a SEMANTICS rule). Found by
mutation testing (docs/internals/mutation.md): before these, a mutant could move each boundary
and every other test still passed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chatassert import Contains, Conversation, LLMRubric, OnTurn, Repeat, Status, Turn
from chatassert.judges import Verdict
from chatassert.promptkit import LLMJudge
from chatassert.reporting import EXIT_ERRORS, EXIT_FAILED, EXIT_NOTHING, EXIT_OK, Summary
from chatassert.testing import FakeJudge


def turns(*texts: str) -> Conversation:
    return Conversation(turns=[Turn(text=text) for text in texts])


# --- OnTurn: "negative counts from the end" (OnTurn docstring, docs/guide.md) ----------------


@pytest.mark.parametrize("n", [1, 2, 5])
def test_on_turn_minus_n_on_exactly_n_turns_is_the_first_turn(n: int) -> None:
    chat = turns("first", *["later"] * (n - 1))
    result = OnTurn(-n, Contains("first")).check(chat)
    assert result.status is Status.PASSED
    assert result.children[0].location == "turns[0]"


@pytest.mark.parametrize("index", [-3, 2])
def test_on_turn_one_past_either_end_is_an_error_not_a_wraparound(index: int) -> None:
    result = OnTurn(index, Contains("a")).check(turns("a", "a"))
    assert result.status is Status.ERROR
    assert result.reason == f"the conversation has no turn {index} (it has 2 turns)"
    assert result.details == {"index": index, "turns": 2}


def test_on_turn_last_index_is_the_last_turn() -> None:
    result = OnTurn(1, Contains("second")).check(turns("first", "second"))
    assert result.status is Status.PASSED


# --- min_score: "a pass with a lower score fails" (docs/judges.md) ---------------------------


@pytest.mark.parametrize(
    ("score", "status"),
    [(0.7, Status.PASSED), (0.7000001, Status.PASSED), (0.6999999, Status.FAILED)],
)
def test_a_score_exactly_at_min_score_passes(score: float, status: Status) -> None:
    judge = FakeJudge(Verdict(True, score, "fine"))
    result = LLMJudge("Is polite", judge=judge, min_score=0.7).check("Please.")
    assert result.status is status
    assert result.score == score


def test_a_failed_verdict_with_a_high_score_still_fails() -> None:
    judge = FakeJudge(Verdict(False, 1.0, "rude"))
    assert LLMJudge("Is polite", judge=judge, min_score=0.5).check("x").status is Status.FAILED


def test_a_pass_without_a_score_under_min_score_is_an_error() -> None:
    judge = FakeJudge(Verdict(True, None, "fine"))
    result = LLMJudge("Is polite", judge=judge, min_score=0.5).check("x")
    assert result.status is Status.ERROR


# --- Repeat: "majority passes when more than half passed" (Repeat docstring) ------------------


@pytest.mark.parametrize(
    ("replies", "status"),
    [
        ((True, True, False, False), Status.FAILED),  # a tie is not a majority
        ((True, True, True, False), Status.PASSED),
        ((True, False, False), Status.FAILED),
        ((True, True, False), Status.PASSED),
    ],
)
def test_repeat_majority_needs_more_than_half(replies: tuple[bool, ...], status: Status) -> None:
    result = Repeat(len(replies), LLMRubric("x", judge=FakeJudge(*replies))).check("y")
    assert result.status is status
    assert result.reason.startswith(f"{sum(replies)} of {len(replies)} samples passed (majority)")
    assert result.details["stability"] == "flaky"  # every case here mixes passes and fails
    assert result.score == sum(replies) / len(replies)


@pytest.mark.parametrize(
    ("replies", "status"),
    [
        # 2 passed, 1 failed, 1 error: the error could make it 3 of 4 — undecided, an error
        ((True, True, False, OSError("down")), Status.ERROR),
        # 1 passed, 2 failed, 1 error: even a pass would make 2 of 4, a tie — failed
        ((True, False, False, OSError("down")), Status.FAILED),
        # 3 passed, 1 error: a majority whatever the error was
        ((True, True, True, OSError("down")), Status.PASSED),
    ],
)
def test_repeat_majority_with_errors_decides_only_when_the_errors_cannot_matter(
    replies: tuple[object, ...], status: Status
) -> None:
    judge = FakeJudge(*replies)  # type: ignore[arg-type]
    result = Repeat(len(replies), LLMRubric("x", judge=judge)).check("y")
    assert result.status is status
    assert result.details["error"] == 1


@pytest.mark.parametrize(
    ("scores", "status"), [((0.5, 0.5), Status.PASSED), ((0.5, 0.4999), Status.FAILED)]
)
def test_repeat_mean_at_the_threshold_passes(scores: tuple[float, ...], status: Status) -> None:
    judge = FakeJudge(*(Verdict(True, s, "") for s in scores))
    result = Repeat(len(scores), LLMJudge("x", judge=judge), aggregate="mean").check("y")
    assert result.status is status
    assert result.details["threshold"] == 0.5


# --- exit codes: "1 something failed, 3 errors only" (Summary.exit_code, chatassert --help) --


def summary(**counts: int) -> Summary:
    done = Summary(records=sum(counts.values()))
    for status, count in counts.items():
        for index in range(count):
            done.count("suite", f"case {status} {index}", status, [])
    return done


@pytest.mark.parametrize(
    ("counts", "code"),
    [
        ({"failed": 1, "error": 1}, EXIT_FAILED),
        ({"failed": 1, "error": 5, "passed": 3}, EXIT_FAILED),
        ({"error": 1, "passed": 3}, EXIT_ERRORS),
        ({"passed": 3}, EXIT_OK),
        ({"skipped": 2}, EXIT_OK),
    ],
)
def test_exit_code_ranks_failures_above_errors(counts: dict[str, int], code: int) -> None:
    assert summary(**counts).exit_code() == code


def test_exit_code_counts_unreadable_lines_and_unmatched_subjects_as_errors() -> None:
    unreadable = summary(passed=1)
    unreadable.unreadable_count = 1
    unmatched = summary(passed=1)
    unmatched.unmatched = 1
    assert (unreadable.exit_code(), unmatched.exit_code()) == (EXIT_ERRORS, EXIT_ERRORS)


def test_exit_code_of_a_run_that_read_nothing() -> None:
    assert Summary(records=0).exit_code() == EXIT_NOTHING
    assert (EXIT_OK, EXIT_FAILED, EXIT_ERRORS, EXIT_NOTHING) == (0, 1, 3, 4)


def test_the_command_line_exits_1_when_a_run_has_failures_and_errors(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "test_cases:\n"
        "  - name: greet\n    turns:\n"
        "      - user_input: hi\n        assertions: [{type: contains, value: hello}]\n"
    )
    log = tmp_path / "chat.jsonl"
    log.write_text(
        '{"messages": [{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": "goodbye"}]}\n'
        "not json\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", str(suite), str(log)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "chat.jsonl:2" in done.stdout + done.stderr
