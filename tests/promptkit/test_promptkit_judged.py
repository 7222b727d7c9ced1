"""Tests of chatassert._promptkit_judged (docs/promptkit.md, docs/judges.md): llm_judge.

What `llm_judge` and `llm_judge_conversation` ask the judge and what their results say, and the
criteria they refuse (G4). More in tests/test_judged.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from promptkit_decisions_helpers import (
    refused_with,
)
from promptkit_helpers import turn

from chatassert import Conversation, Turn
from chatassert.promptkit import (
    LLMJudge,
    LLMJudgeConversation,
)
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
