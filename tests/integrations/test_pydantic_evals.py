"""ChatAssertEvaluator against the real pydantic-evals package."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pydantic
import pytest
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import EvaluationReason

from chatassert import Contains, ContainsFunctionCall, LLMRubric, Matches, OnLastTurn, SpecError
from chatassert.integrations.pydantic_evals import ChatAssertEvaluator, subject_of
from chatassert.testing import FakeJudge, call, conversation, turn


def run(evaluators: list[ChatAssertEvaluator], output: object) -> object:
    dataset = Dataset(
        name="support",
        cases=[Case(name="only", inputs="I want my money back")],
        evaluators=evaluators,
    )
    # asyncio.run, not evaluate_sync: pydantic-evals' evaluate_sync leaves its event loop open
    report = asyncio.run(dataset.evaluate(lambda _inputs: output, progress=False))
    return report.cases[0]


def test_a_pass_and_a_failure_are_assertions_with_reasons() -> None:
    case = run(
        [
            ChatAssertEvaluator(Contains("refund"), name="mentions refund"),
            ChatAssertEvaluator(
                Contains("apology") & ContainsFunctionCall("issue_refund"), name="apologises"
            ),
        ],
        turn("Your refund is on its way.", calls=[call("issue_refund", amount=20)]),
    )
    assert case.assertions["mentions refund"].value is True
    failed = case.assertions["apologises"]
    assert failed.value is False
    assert failed.reason == (
        "FAIL all_of: 1 of 2 failed; first: Response does not contain 'apology'\n"
        "  FAIL contains: Response does not contain 'apology'"
    )
    assert case.evaluator_failures == []


def test_an_error_result_is_an_evaluator_failure_not_a_pass_or_a_failure() -> None:
    judge = FakeJudge(RuntimeError("judge is down"))
    case = run([ChatAssertEvaluator(LLMRubric("Is polite", judge=judge))], "Thanks!")
    assert case.assertions == {}
    (failure,) = case.evaluator_failures
    assert failure.name == "llm_rubric"
    assert failure.error_type == "ChatAssertEvaluationError"
    assert "llm_rubric could not be evaluated" in failure.error_message
    assert "judge is down" in failure.error_message


def test_judged_assertions_run_with_the_judge_given() -> None:
    judge = FakeJudge({"passed": True, "reason": "courteous", "score": 0.9})
    case = run([ChatAssertEvaluator(LLMRubric("Is polite", judge=judge), name="polite")], "Thanks")
    assert case.assertions["polite"].value is True
    assert case.assertions["polite"].reason == "courteous"
    assert judge.requests[0].response == "Thanks"


def test_conversations_and_pydantic_models_are_subjects() -> None:
    class Answer(pydantic.BaseModel):
        status: str
        results: list[str]

    talk = conversation(("Hi", "Hello"), ("Weather?", turn("Sunny", calls=[call("weather")])))
    case = run([ChatAssertEvaluator(OnLastTurn(ContainsFunctionCall("weather")))], talk)
    assert case.assertions["on_last_turn"].value is True
    assert subject_of(Answer(status="ok", results=["a"])) == {"status": "ok", "results": ["a"]}
    assert subject_of("text") == "text"


def test_specs_are_accepted_and_datasets_round_trip_through_yaml(tmp_path: Path) -> None:
    evaluator = ChatAssertEvaluator({"type": "matches", "value": "#[A-Z0-9]{6}"}, name="code")
    assert evaluator.check == Matches("#[A-Z0-9]{6}")
    flat = ChatAssertEvaluator("{type: contains_any, value: [slot, opening]}", dialect="flat")
    assert flat.check.kind == "contains_any"
    dataset = Dataset[str, str, Any](
        name="bookings", cases=[Case(name="c", inputs="x")], evaluators=[evaluator]
    )
    path = tmp_path / "bookings.yaml"
    dataset.to_file(path)
    assert "ChatAssertEvaluator:\n    assertion:\n      type: matches\n" in path.read_text()
    loaded = Dataset[str, str, Any].from_file(path, custom_evaluator_types=[ChatAssertEvaluator])
    (again,) = loaded.evaluators
    assert isinstance(again, ChatAssertEvaluator)
    assert again.check == evaluator.check
    assert again.name == "code"


def test_bad_arguments_fail_at_construction() -> None:
    with pytest.raises(SpecError, match="did you mean"):
        ChatAssertEvaluator({"type": "contain", "value": "x"})
    with pytest.raises(TypeError, match="needs an Assertion"):
        ChatAssertEvaluator(42)


def test_evaluate_returns_an_evaluation_reason() -> None:
    from pydantic_evals.evaluators import EvaluatorContext

    ctx = EvaluatorContext(
        name="c",
        inputs="x",
        metadata=None,
        expected_output=None,
        output="no",
        duration=0.0,
        _span_tree=None,
        attributes={},
        metrics={},
    )
    reason = asyncio.run(ChatAssertEvaluator(Contains("yes")).evaluate(ctx))
    assert reason == EvaluationReason(
        value=False, reason="FAIL contains: Response does not contain 'yes'"
    )
