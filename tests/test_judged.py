"""`llm_rubric`: the rubric, the model, the verdict, and every way a judge can fail."""

from __future__ import annotations

import asyncio
import json

import pytest

from chatassert import LLMRubric, Repeat, SpecError, Status, ToolCall, Turn, from_spec
from chatassert.errors import JudgeError
from chatassert.judges import FunctionJudge, Verdict
from chatassert.testing import FakeJudge

EMPATHY = "Agent should be empathetic and acknowledge the customer's frustration"


def test_a_passing_verdict_passes_and_keeps_the_judges_reason() -> None:
    judge = FakeJudge({"passed": True, "score": 0.9, "reason": "acknowledges the delay"})
    result = LLMRubric(EMPATHY, judge=judge).check("I'm so sorry about the wait.")
    assert result.status is Status.PASSED
    assert result.reason == "acknowledges the delay"
    assert result.score == 0.9
    assert result.details == {
        "rubric": EMPATHY,
        "model": None,
        "verdict": {"passed": True, "score": 0.9, "reason": "acknowledges the delay"},
        "judge": "fake",
        "threshold": None,
        "judge_passed": True,
    }


def test_a_failing_verdict_fails_with_the_judges_reason() -> None:
    judge = FakeJudge({"passed": False, "score": 0.1, "reason": "ignores the complaint"})
    result = LLMRubric(EMPATHY, judge=judge).check("Your order ships Monday.")
    assert result.status is Status.FAILED
    assert result.reason == "ignores the complaint"
    assert result.details["verdict"] == {
        "passed": False,
        "score": 0.1,
        "reason": "ignores the complaint",
    }


def test_the_rubric_can_come_from_value() -> None:
    judge = FakeJudge(True)
    check = from_spec({"type": "llm_rubric", "value": "Explains next steps"}, judge=judge)
    assert check.check("First, ...").passed
    assert judge.requests[0].criteria == "Explains next steps"


def test_the_rubric_can_come_from_the_rubric_field() -> None:
    judge = FakeJudge(True)
    check = from_spec({"type": "llm_rubric", "rubric": "Explains next steps"}, judge=judge)
    result = check.check("First, ...")
    assert result.passed
    assert result.details["rubric"] == "Explains next steps"
    assert judge.requests[0].criteria == "Explains next steps"


def test_value_wins_when_both_are_set() -> None:
    judge = FakeJudge(True)
    check = from_spec(
        {"type": "llm_rubric", "value": "from value", "rubric": "from rubric"}, judge=judge
    )
    check.check("x")
    assert judge.requests[0].criteria == "from value"
    assert check.as_spec() == {"type": "llm_rubric", "value": "from value", "rubric": "from rubric"}


def test_the_model_is_passed_to_the_judge_and_recorded() -> None:
    judge = FakeJudge(True)
    check = from_spec(
        {"type": "llm_rubric", "value": "Accurate pricing", "model": "gpt-4o"}, judge=judge
    )
    result = check.check("It costs $20.")
    assert judge.requests[0].model == "gpt-4o"
    assert result.details["model"] == "gpt-4o"


def test_the_request_carries_the_turn() -> None:
    judge = FakeJudge(True)
    turn = Turn(
        input="Book for 4",
        text="Booked.",
        tool_calls=[ToolCall(name="book", arguments={"size": 4})],
    )
    LLMRubric("Confirms", judge=judge).check(turn)
    request = judge.requests[0]
    assert (request.response, request.input) == ("Booked.", "Book for 4")
    assert list(request.tool_calls) == [{"name": "book", "arguments": {"size": 4}}]


def test_a_pass_without_a_reason_gets_one() -> None:
    assert LLMRubric("x", judge=FakeJudge(True)).check("y").reason == "the judge passed it"
    assert LLMRubric("x", judge=FakeJudge(False)).check("y").reason == "the judge failed it"


def test_a_function_judge_decides() -> None:
    polite = FunctionJudge(lambda request: "please" in request.response.lower())
    check = LLMRubric("Is polite", judge=polite)
    assert check.check("Please hold.").passed
    assert check.check("Hold.").status is Status.FAILED


# -- a judge that cannot decide gives an error, never a pass ----------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        RuntimeError("connection refused"),
        JudgeError("rate limited"),
        {"reason": "looks fine", "score": 1.0},
        {"passed": "true", "reason": "looks fine"},
        {"passed": 1},
        {"passed": None},
        {"passed": True, "score": "high"},
        "this is not JSON",
        '["passed"]',
    ],
    ids=[
        "raises",
        "judge-error",
        "no-passed",
        "string-passed",
        "int-passed",
        "null-passed",
        "bad-score",
        "not-json",
        "not-an-object",
    ],
)
def test_a_judge_failure_is_an_error(reply: object) -> None:
    result = LLMRubric(EMPATHY, judge=FakeJudge(reply)).check("Sorry!")  # type: ignore[arg-type]
    assert result.status is Status.ERROR
    assert not result.passed
    assert result.reason.startswith("judge fake gave no verdict")
    assert result.details["rubric"] == EMPATHY
    assert result.details["error"]
    json.dumps(result.to_dict())


@pytest.mark.parametrize(
    "reply",
    [
        '{"passed": true, "score": NaN, "reason": "x"}',
        '{"passed": true, "score": Infinity, "reason": "x"}',
        {"passed": True, "score": 85, "reason": "on a 0-100 scale"},
        {"passed": True, "score": -0.5},
        {"passed": False, "score": 1.01},
    ],
    ids=["nan", "infinity", "percent", "negative", "just-above-one"],
)
def test_a_score_outside_0_to_1_is_an_error_never_a_pass(reply: object) -> None:
    judge = FakeJudge(default=reply)  # type: ignore[arg-type]
    result = LLMRubric(EMPATHY, judge=judge).check("Sorry!")
    assert result.status is Status.ERROR
    assert "from 0 to 1" in result.reason
    json.dumps(result.to_dict(), allow_nan=False)  # strict JSON, no NaN or Infinity
    repeated = Repeat(3, LLMRubric(EMPATHY, judge=judge), "mean").check("Sorry!")
    assert repeated.status is Status.ERROR
    assert "from 0 to 1" in repeated.reason


def test_a_judge_returning_a_verdict_with_a_bad_score_is_an_error() -> None:
    judge = FunctionJudge(lambda request: Verdict(True, 42.0), name="percent")
    result = LLMRubric(EMPATHY, judge=judge).check("Sorry!")
    assert result.status is Status.ERROR
    assert "from 0 to 1" in result.reason


def test_scores_at_the_ends_of_the_range_are_accepted() -> None:
    judge = FakeJudge({"passed": True, "score": 0}, {"passed": True, "score": 1})
    check = LLMRubric(EMPATHY, judge=judge)
    assert [check.check("Sorry!").score for _ in range(2)] == [0.0, 1.0]
    with pytest.raises(JudgeError, match="from 0 to 1"):
        Verdict(True, float("nan"))


def test_a_function_judge_that_raises_is_an_error() -> None:
    def broken(request: object) -> bool:
        raise TimeoutError("judge timed out")

    result = LLMRubric("x", judge=FunctionJudge(broken)).check("y")
    assert result.status is Status.ERROR
    assert "judge timed out" in result.reason


async def _cancelled_inside(request: object) -> bool:
    future = asyncio.get_running_loop().create_future()
    future.cancel()  # a library's own future was cancelled; the check itself was not
    result: bool = await future
    return result


def test_a_cancelled_error_from_inside_a_judge_is_an_error_result() -> None:
    check = LLMRubric(EMPATHY, judge=FunctionJudge(_cancelled_inside))
    result = check.check("Sorry!")
    assert result.status is Status.ERROR
    assert result.reason.endswith("gave no verdict: CancelledError")
    assert result.details["error"] == "CancelledError"
    assert asyncio.run(check.acheck("Sorry!")).status is Status.ERROR
    assert (check & LLMRubric(EMPATHY, judge=FakeJudge(True))).check("Sorry!").status is (
        Status.ERROR
    )


def test_cancelling_a_judged_check_still_cancels_it() -> None:
    started = asyncio.Event()

    async def slow(request: object) -> bool:
        started.set()
        await asyncio.sleep(10)
        return True

    async def main() -> None:
        task = asyncio.create_task(LLMRubric(EMPATHY, judge=FunctionJudge(slow)).acheck("x"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_without_a_judge_the_result_says_what_to_set() -> None:
    result = LLMRubric(EMPATHY).check("Sorry!")
    assert result.status is Status.ERROR
    assert "no judge configured" in result.reason
    assert "judge=" in result.reason
    assert "CHATASSERT_JUDGE" in result.reason
    assert result.details == {"rubric": EMPATHY, "model": None, "error": "no_judge"}


def test_a_verdict_needs_a_boolean() -> None:
    with pytest.raises(JudgeError):
        Verdict("yes")  # type: ignore[arg-type]
    with pytest.raises(JudgeError):
        Verdict.from_reply({"score": 1})


# -- async ------------------------------------------------------------------------------------


def test_acheck_gives_the_same_result_as_check() -> None:
    reply = {"passed": False, "score": 0.2, "reason": "no apology"}
    sync = LLMRubric("Apologises", judge=FakeJudge(reply)).check("Hi")
    asynchronous = asyncio.run(LLMRubric("Apologises", judge=FakeJudge(reply)).acheck("Hi"))
    assert sync == asynchronous


def test_check_inside_a_running_loop_explains_to_await() -> None:
    async def inside() -> None:
        LLMRubric("x", judge=FakeJudge(True)).check("y")

    with pytest.raises(RuntimeError, match="acheck"):
        asyncio.run(inside())


# -- construction -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        {"type": "llm_rubric"},
        {"type": "llm_rubric", "value": ""},
        {"type": "llm_rubric", "rubric": "  "},
        {"type": "llm_rubric", "value": 3},
        {"type": "llm_rubric", "value": "ok", "model": ""},
        {"type": "llm_rubric", "value": "ok", "criteria": "x"},
    ],
)
def test_bad_rubric_specs_fail_at_load(spec: dict[str, object]) -> None:
    with pytest.raises(SpecError):
        from_spec(spec, judge=FakeJudge(True))


def test_a_judge_must_have_a_judge_method() -> None:
    with pytest.raises(TypeError, match="judge"):
        LLMRubric("x", judge=object())  # type: ignore[arg-type]


def test_the_judge_is_not_part_of_the_spec() -> None:
    check = LLMRubric("x", model="gpt-4o", judge=FakeJudge(True))
    assert check.as_spec() == {"type": "llm_rubric", "value": "x", "model": "gpt-4o"}
    assert check == LLMRubric("x", model="gpt-4o")
    assert check.needs_judge()


# -- malformed verdicts and bad construction (found by mutation testing, docs/internals/mutation.md)


@pytest.mark.parametrize(
    ("fields", "cause"),
    [
        (("yes",), "a verdict needs a boolean 'passed', got 'yes'"),
        ((True, True), "a verdict's 'score' must be a number, got True"),
        ((True, "0.5"), "a verdict's 'score' must be a number, got '0.5'"),
        ((True, 1.01), "a verdict's 'score' must be from 0 to 1, got 1.01"),
    ],
    ids=["passed-not-bool", "score-bool", "score-string", "score-just-above-one"],
)
def test_a_malformed_verdict_is_an_error_record_naming_the_cause(
    fields: tuple[object, ...], cause: str
) -> None:
    """`Verdict` docstring: `passed` is a bool, `score` a number from 0 to 1, anything else a
    `JudgeError`; docs/judges.md "Verdicts, scores and errors": such a verdict is an `error`
    (a boolean score is not a number), and the error names the cause."""

    def judge(request: object) -> Verdict:
        return Verdict(*fields)  # type: ignore[arg-type]

    result = LLMRubric(EMPATHY, judge=FunctionJudge(judge, name="strict")).check("Sorry!")
    assert (result.status, result.name, result.reason, result.details, result.score) == (
        Status.ERROR,
        "llm_rubric",
        f"judge strict gave no verdict: {cause}",
        {
            "rubric": EMPATHY,
            "model": None,
            "judge": "strict",
            "error": "JudgeError",
            "error_message": cause,
        },
        None,
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"value": "  "}, "llm_rubric value must be a non-empty string"),
        ({"value": 3}, "llm_rubric value must be a non-empty string"),
        ({"rubric": "\n"}, "llm_rubric rubric must be a non-empty string"),
        ({"rubric": b"polite"}, "llm_rubric rubric must be a non-empty string"),
        ({}, "llm_rubric needs the rubric in 'value' or 'rubric'"),
    ],
    ids=["blank-value", "number-value", "blank-rubric", "bytes-rubric", "neither"],
)
def test_a_rubric_must_be_a_non_empty_string_named_in_the_error(
    kwargs: dict[str, object], message: str
) -> None:
    """`LLMRubric` docstring, "Raises": a blank or non-string `value`/`rubric` is a ValueError
    naming the parameter, and so is giving neither."""
    with pytest.raises(ValueError) as info:
        LLMRubric(**kwargs, judge=FakeJudge(True))  # type: ignore[arg-type]
    assert str(info.value) == message


def test_a_spec_without_a_rubric_reports_what_it_needs() -> None:
    """docs/specs.md "Errors": each problem says what is wrong; the constructor's message is it."""
    with pytest.raises(SpecError) as info:
        from_spec({"type": "llm_rubric"}, judge=FakeJudge(True))
    assert [p.message for p in info.value.problems] == [
        "llm_rubric needs the rubric in 'value' or 'rubric'"
    ]
