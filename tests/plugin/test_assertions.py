"""Failure output of checks inside ordinary tests: assert_passes, passes(), plain asserts."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADER = """
from chatassert import Contains, ContainsFunctionCall, OnEveryTurn
from chatassert.testing import assert_passes, call, conversation, passes, turn

REPLY = turn(
    "I'm sorry, I cannot help with that.",
    input="I want my money back",
    calls=[call("lookup_order", order_id="A17")],
)
"""


@pytest.fixture
def strict(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    return pytester


def test_assert_passes_shows_failing_branches_location_reason_and_subject(
    strict: pytest.Pytester,
) -> None:
    strict.makepyfile(
        HEADER
        + """
def test_refund():
    check = Contains("refund") & ContainsFunctionCall("lookup_order", {"order_id": "A17"})
    assert_passes(check, REPLY)

def test_every_turn():
    talk = conversation(("Hi", "Hello, how can I help?"), ("Refund?", "No."))
    assert_passes(OnEveryTurn(Contains("help")), talk)
"""
    )
    result = strict.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*ChatAssertionError: all_of did not pass",
            "E       FAIL all_of: 1 of 2 failed; first: Response does not contain 'refund'",
            "E         FAIL contains: Response does not contain 'refund'",
            "E       subject: turn input 'I want my money back'; text \"I'm sorry, I cannot help"
            " with that.\"; calls lookup_order(order_id='A17')",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ChatAssertionError: on_every_turn did not pass",
            "E         FAIL turns[1] contains: Response does not contain 'help'",
            "E       subject: conversation of 2 turns; last turn: input 'Refund?'; text 'No.'",
        ]
    )
    # the passing branch is not shown
    assert "contains_function_call" not in result.stdout.str()


def test_passing_checks_pass(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        HEADER
        + """
def test_ok():
    assert_passes(Contains("sorry") & ContainsFunctionCall("lookup_order"), REPLY)
    assert REPLY == passes(Contains("cannot"))
"""
    )
    strict.runpytest().assert_outcomes(passed=1)


def test_comparing_with_passes_prints_the_tree(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        HEADER
        + """
def test_matcher():
    assert REPLY == passes(Contains("refund", message="mentions the refund"))
"""
    )
    result = strict.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       assert subject == passes(Contains(value='refund',"
            " message='mentions the refund'))",
            "E         mentions the refund did not pass",
            "E         FAIL mentions the refund [[]contains]: Response does not contain 'refund'",
            "E         subject: turn input 'I want my money back'*",
        ]
    )
    assert "chatassert results that did not pass" not in result.stdout.str()


def test_assert_result_passed_appends_the_tree(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        HEADER
        + """
def test_plain():
    result = (Contains("refund") | Contains("money")).check(REPLY)
    assert result.passed
"""
    )
    result = strict.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*chatassert results that did not pass*",
            "result =",
            "FAIL any_of: none of 2 passed*",
            "  FAIL contains: Response does not contain 'refund'",
            "  FAIL contains: Response does not contain 'money'",
        ]
    )


def test_comparing_a_result_prints_its_tree(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        HEADER
        + """
def test_results():
    assert Contains("refund").check(REPLY) == Contains("sorry").check(REPLY)
"""
    )
    result = strict.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       *assert Result == Result: the chatassert results are",
            "E         FAIL contains: Response does not contain 'refund'",
            "E         PASS contains*",
        ]
    )


def test_comparing_with_a_bare_assertion_explains_and_hints(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        HEADER
        + """
def test_bare():
    assert REPLY == Contains("refund")
"""
    )
    result = strict.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       assert subject == Contains(value='refund')",
            "E         a subject never equals an assertion; write `assert subject =="
            " passes(assertion)`*",
            "E         FAIL contains: Response does not contain 'refund'",
        ]
    )


def test_async_twin_raises_the_same_error(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        HEADER
        + """
import asyncio
from chatassert import LLMRubric
from chatassert.testing import FakeJudge, assert_passes_async

def test_async():
    judge = FakeJudge({"passed": False, "reason": "it refuses without offering help"})
    asyncio.run(assert_passes_async(LLMRubric("Offers help", judge=judge), REPLY))
"""
    )
    result = strict.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E       FAIL llm_rubric: it refuses without offering help"])


def test_importing_the_plugin_loads_no_edge_dependencies() -> None:
    code = (
        "import sys, chatassert.pytest_plugin\n"
        "heavy = {'yaml', 'httpx', 'chatassert.specs', 'chatassert.judges', 'chatassert.testing',"
        " 'chatassert.transcripts'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
