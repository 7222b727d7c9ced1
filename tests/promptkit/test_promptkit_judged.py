"""Tests of chatassert._promptkit_judged (docs/promptkit.md, docs/judges.md): llm_judge.

What `llm_judge` and `llm_judge_conversation` ask the judge and what their results say, and the
criteria they refuse (G4). More in tests/test_judged.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from promptkit_decisions_helpers import (
    refused_with,
)
from promptkit_helpers import scenario, turn

from chatassert import Conversation, OnEveryTurn, Status, Turn, from_spec
from chatassert.promptkit import (
    LLMJudge,
    LLMJudgeConversation,
)
from chatassert.specs import loads_suite
from chatassert.testing import FakeJudge

# -- judged checks: what the judge is asked and what the result says -----------------------------


def test_llm_judge_asks_about_the_turn_and_reports_the_verdict() -> None:
    """`llm_judge`: criteria and/or rubric, min_score and model reach the judge (SEMANTICS,
    promptkit turn level); details {reasoning, score} plus criteria, rubric and min_score."""
    judge = FakeJudge({"passed": True, "score": 0.8, "reason": "fine"})
    subject = turn("What?", "Answer", [("search", {"q": "x"}, "r")])
    check = LLMJudge("Is polite", rubric="1-5", min_score=0.7, model="m1", judge=judge)
    result = check.check(subject)
    assert (result.status.value, result.reason, dict(result.details)) == (
        "passed",
        "fine",
        {
            "criteria": "Is polite",
            "rubric": "1-5",
            "min_score": 0.7,
            "reasoning": "fine",
            "score": 0.8,
            "judge": "fake",
            "threshold": 0.7,
            "judge_passed": True,
        },
    )
    (request,) = judge.requests
    assert (request.criteria, request.response, request.input, request.kind) == (
        "Is polite\n\nRubric: 1-5",
        "Answer",
        "What?",
        "rubric",
    )
    assert request.tool_calls == ({"name": "search", "arguments": {"q": "x"}},)
    assert (request.model, dict(request.params)) == ("m1", {"min_score": 0.7})


def test_llm_judge_score_below_min_score_fails() -> None:
    """`llm_judge`: passes when the judge passes and its score is >= min_score."""
    judge = FakeJudge({"passed": True, "score": 0.6, "reason": "meh"})
    result = LLMJudge(rubric="R", min_score=0.7, judge=judge).check(turn("Q", "A"))
    assert (result.status.value, result.reason, dict(result.details)) == (
        "failed",
        "score 0.6 is below min_score 0.7: meh",
        {
            "criteria": None,
            "rubric": "R",
            "min_score": 0.7,
            "reasoning": "meh",
            "score": 0.6,
            "judge": "fake",
            "threshold": 0.7,
            "judge_passed": True,
        },
    )
    assert judge.requests[0].criteria == "R"


def test_llm_judge_conversation_sees_only_user_and_assistant_text() -> None:
    """The conversation judge reads the user and assistant messages with text, in order; tool
    results and tool-call-only messages are not part of the rendered conversation."""
    judge = FakeJudge({"passed": True, "score": 0.6, "reason": "meh"})
    conv = Conversation(
        messages=[
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "1", "content": "tool out"},
            {"role": "assistant", "content": "Hello"},
        ]
    )
    check = LLMJudgeConversation(criteria="warm", min_score=0.5, model="m2", judge=judge)
    result = check.check(conv)
    assert (result.status.value, result.reason, dict(result.details)) == (
        "passed",
        "meh",
        {
            "criteria": "warm",
            "rubric": None,
            "min_score": 0.5,
            "reasoning": "meh",
            "score": 0.6,
            "judge": "fake",
            "threshold": 0.5,
            "judge_passed": True,
        },
    )
    (request,) = judge.requests
    assert (request.criteria, request.response, request.kind) == (
        "warm",
        "user: Hi\nassistant: Hello",
        "conversation",
    )
    assert request.conversation == (("user", "Hi"), ("assistant", "Hello"))
    assert (request.model, dict(request.params)) == ("m2", {"min_score": 0.5})


def test_llm_judge_conversation_of_turns_without_messages() -> None:
    """A turn built without messages contributes its input as the user's and its text as the
    assistant's message (`assistant_texts`); an empty text adds nothing."""
    judge = FakeJudge({"passed": False, "score": 0.1, "reason": "curt"})
    conv = Conversation(turns=[Turn(input="Q1", text="A1"), Turn(input="Q2", text="")])
    result = LLMJudgeConversation(criteria="warm", judge=judge).check(conv)
    assert (result.status.value, result.reason) == ("failed", "curt")
    (request,) = judge.requests
    assert request.conversation == (("user", "Q1"), ("assistant", "A1"), ("user", "Q2"))
    assert (request.response, request.model, dict(request.params)) == (
        "user: Q1\nassistant: A1\nuser: Q2",
        None,
        {},
    )


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: LLMJudge("  "), "llm_judge criteria must be a non-empty string"),
        (lambda: LLMJudge(5), "llm_judge criteria must be a non-empty string"),
        (lambda: LLMJudge(rubric=""), "llm_judge rubric must be a non-empty string"),
        (lambda: LLMJudge(), "llm_judge needs 'criteria' or 'rubric'"),
        (lambda: LLMJudgeConversation(), "llm_judge_conversation needs 'criteria' or 'rubric'"),
    ],
)
def test_judged_and_pattern_arguments_are_refused_with_a_message(
    build: Callable[[], object], message: str
) -> None:
    """G4: an empty pattern, a blank or missing criteria/rubric is refused when built."""
    refused_with(build, ValueError, message)


# -- conversation_aware -------------------------------------------------------------------------

AWARE = """\
- role: user
  content: I am Ann
- role: user
  content: What is my name?
  assertions:
    - type: llm_judge
      params: {criteria: Uses the name given earlier, conversation_aware: true}
    - type: llm_judge
      params: {criteria: Answers the question}
"""


def test_a_conversation_aware_judge_sees_the_conversation_so_far() -> None:
    """PromptKit's `conversation_aware` puts the messages before the response in the judge's
    prompt: here every user and assistant message up to and including this turn's."""
    judge = FakeJudge.passing()
    suite = loads_suite(scenario(AWARE), filename="s.yaml", judge=judge)
    logged = Conversation(
        turns=[
            turn("I am Ann", "Nice to meet you, Ann."),
            turn("What is my name?", "Your name is Ann.", [("lookup", {"q": "name"}, "Ann")]),
            turn("Thanks", "You are welcome."),  # after the checked turn: not shown
        ]
    )
    result = suite.cases[0].check(logged)
    assert result.status is Status.PASSED
    aware, plain = sorted(judge.requests, key=lambda r: r.criteria)[::-1]
    assert aware.criteria == "Uses the name given earlier"
    assert aware.conversation == (
        ("user", "I am Ann"),
        ("assistant", "Nice to meet you, Ann."),
        ("user", "What is my name?"),
        ("assistant", "Your name is Ann."),
    )
    assert (aware.response, aware.input, aware.kind) == (
        "Your name is Ann.",
        "What is my name?",
        "rubric",
    )
    assert plain.conversation is None
    aware_result = result.children[1].children[0]
    assert aware_result.details["conversation_aware"] is True
    assert "conversation_aware" not in result.children[1].children[1].details


def test_a_conversation_aware_judge_of_a_lone_turn_sees_that_turn() -> None:
    judge = FakeJudge.passing()
    LLMJudge("Polite", conversation_aware=True, judge=judge).check(turn("Hi", "Hello!"))
    assert judge.requests[0].conversation == (("user", "Hi"), ("assistant", "Hello!"))


def test_the_conversation_reaches_the_judge_on_every_turn_of_a_selector() -> None:
    judge = FakeJudge.passing()
    chat = Conversation(turns=[Turn(input="Q1", text="A1"), Turn(input="Q2", text="A2")])
    asyncio.run(OnEveryTurn(LLMJudge("ok", conversation_aware=True, judge=judge)).acheck(chat))
    seen = sorted(len(r.conversation or ()) for r in judge.requests)
    assert seen == [2, 4]


def test_conversation_aware_round_trips_and_is_refused_when_not_a_bool() -> None:
    check = LLMJudge("Polite", conversation_aware=True)
    assert check.as_spec() == {
        "type": "llm_judge",
        "criteria": "Polite",
        "conversation_aware": True,
    }
    assert from_spec(check.as_spec()) == check
    refused_with(
        lambda: LLMJudge("Polite", conversation_aware="yes"),  # type: ignore[arg-type]
        TypeError,
        "conversation_aware must be true or false, got 'yes'",
    )
