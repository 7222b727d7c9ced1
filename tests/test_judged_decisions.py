"""Judged decisions pinned as whole records: `Repeat`'s aggregates, the fake and function judges.

Each test names the rule it pins (the `Repeat` docstring, docs/judges.md "Repeats" and
"Caching", the `FakeJudge` / `FunctionJudge` docstrings). The boundaries of `majority` (a tie)
and of `mean` (a score exactly at the threshold) are pinned in tests/test_boundaries.py.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest

from chatassert import Contains, LLMRubric, Repeat, Status, Turn
from chatassert._judged_base import resolve_judge
from chatassert._judging import fill_template, template_fields
from chatassert.judges import CachedJudge, FunctionJudge, JudgeRequest, Verdict
from chatassert.promptkit import LLMJudge
from chatassert.testing import FakeJudge

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR
DOWN = "judge fake gave no verdict: down"


def counts(aggregate: str, passed: int, failed: int, error: int) -> dict[str, Any]:
    return {"aggregate": aggregate, "passed": passed, "failed": failed, "error": error}


# --- Repeat: "all / any: like AllOf / AnyOf over the samples"; "majority: passes when more
# than half passed ... otherwise an error" (Repeat docstring, docs/judges.md "Repeats") -------


@pytest.mark.parametrize(
    ("aggregate", "replies", "status", "reason", "details", "score"),
    [
        ("all", (True, True, True), P, "3 of 3 samples passed (all)", counts("all", 3, 0, 0), 1.0),
        ("all", (True, False, True), F, "2 of 3 samples passed (all)",
         counts("all", 2, 1, 0), 2 / 3),
        ("all", (True, OSError("down")), E, f"1 of 2 samples could not be evaluated: {DOWN}",
         counts("all", 1, 0, 1), 0.5),
        ("all", (False, OSError("down")), F, "0 of 2 samples passed (all)",
         counts("all", 0, 1, 1), 0.0),
        ("any", (False, False, True), P, "1 of 3 samples passed (any)",
         counts("any", 1, 2, 0), 1 / 3),
        ("any", (False, False), F, "0 of 2 samples passed (any)", counts("any", 0, 2, 0), 0.0),
        ("any", (False, OSError("down")), E, f"1 of 2 samples could not be evaluated: {DOWN}",
         counts("any", 0, 1, 1), 0.0),
        ("majority", (True, True, True, True, False), P, "4 of 5 samples passed (majority)",
         counts("majority", 4, 1, 0), 0.8),
        ("majority", (False, False, False, True, True), F, "2 of 5 samples passed (majority)",
         counts("majority", 2, 3, 0), 0.4),
        ("majority", (True, OSError("down"), False), E,
         f"1 of 3 samples could not be evaluated: {DOWN}", counts("majority", 1, 1, 1), 1 / 3),
        ("majority", (True,), P, "1 of 1 samples passed (majority)",
         counts("majority", 1, 0, 0), 1.0),
    ],
)  # fmt: skip
def test_repeat_records(
    aggregate: str,
    replies: tuple[object, ...],
    status: Status,
    reason: str,
    details: dict[str, Any],
    score: float,
) -> None:
    judge = FakeJudge(*replies)  # type: ignore[arg-type]
    result = Repeat(len(replies), LLMRubric("Is polite", judge=judge), aggregate).check("Hi.")
    assert (result.status, result.reason, result.details, result.score) == (
        status,
        reason,
        details,
        score,
    )
    assert [r.location for r in result.children] == [f"samples[{i}]" for i in range(len(replies))]


# --- Repeat mean: "passes when the mean score (a verdict without a score counts 1 for a pass,
# 0 for a fail) is at least the child's min_score (0.5 when unset); any error is an error" -----


def mean_of(*scores: float | None, min_score: float | None = None) -> Any:
    judge = FakeJudge(*(Verdict(s is None or s >= 0.5, s, "") for s in scores))
    child = LLMJudge("Is polite", judge=judge, min_score=min_score)
    return Repeat(len(scores), child, aggregate="mean").check("Hi.")


def test_repeat_mean_averages_the_judges_scores_not_the_pass_count() -> None:
    result = mean_of(0.9, 0.2, 0.7)
    score = (0.9 + 0.2 + 0.7) / 3
    assert result.status is P
    assert result.reason == "mean score 0.6 is at least 0.5"
    assert result.details == {**counts("mean", 2, 1, 0), "mean_score": score, "threshold": 0.5}
    assert result.score == score


def test_repeat_mean_below_the_threshold_fails_and_says_so() -> None:
    result = mean_of(0.3, 0.1, 0.6)
    assert result.status is F
    assert result.reason == "mean score 0.333 is below 0.5"
    assert result.details["mean_score"] == result.score == (0.3 + 0.1 + 0.6) / 3


def test_repeat_mean_uses_the_childs_min_score_as_threshold() -> None:
    # each sample below 0.8 fails on its own; the mean is what decides the repeat
    failed = mean_of(0.7, 0.75, min_score=0.8)
    assert (failed.status, failed.reason) == (F, "mean score 0.725 is below 0.8")
    assert failed.details == {**counts("mean", 0, 2, 0), "mean_score": 0.725, "threshold": 0.8}
    passed = mean_of(0.9, 0.7, min_score=0.8)
    assert (passed.status, passed.reason) == (P, "mean score 0.8 is at least 0.8")


def test_repeat_mean_counts_an_unscored_verdict_as_one_or_zero() -> None:
    result = Repeat(4, LLMRubric("x", judge=FakeJudge(True, False, False, False)), "mean").check(
        "y"
    )
    assert (result.status, result.reason, result.score) == (F, "mean score 0.25 is below 0.5", 0.25)


def test_repeat_mean_with_an_errored_sample_is_an_error_without_a_score() -> None:
    judge = FakeJudge(Verdict(True, 0.9, ""), OSError("down"))
    result = Repeat(2, LLMRubric("x", judge=judge), "mean").check("y")
    assert (result.status, result.reason, result.score) == (
        E,
        f"1 of 2 samples could not be evaluated: {DOWN}",
        None,
    )
    assert result.details == counts("mean", 1, 0, 1)


# --- Repeat asks about the subject it was given, once per sample (docs/judges.md) -------------


def test_repeat_sends_the_subject_to_the_judge_for_every_sample() -> None:
    judge = FakeJudge(default=True)
    check = Repeat(2, LLMRubric("Is polite", judge=judge))
    assert check.check(Turn(input="hello?", text="Hello!")).passed
    assert asyncio.run(check.acheck(Turn(input="again?", text="Again!"))).passed
    asked = [(r.input, r.response, r.sample) for r in judge.requests]
    assert asked == [
        ("hello?", "Hello!", 0),
        ("hello?", "Hello!", 1),
        ("again?", "Again!", 0),
        ("again?", "Again!", 1),
    ]


# --- Repeat construction: "repeat needs n >= 1"; it takes a judged assertion ------------------


@pytest.mark.parametrize("n", [True, False, 0, -1, "3", 2.0])
def test_repeat_n_must_be_a_positive_integer(n: object) -> None:
    with pytest.raises(ValueError, match=r"^repeat needs n >= 1, got ") as info:
        Repeat(n, LLMRubric("x", judge=FakeJudge()))  # type: ignore[arg-type]
    assert str(info.value) == f"repeat needs n >= 1, got {n!r}"


def test_repeat_of_one_sample_is_allowed() -> None:
    assert Repeat(1, LLMRubric("x", judge=FakeJudge(True))).n == 1


def test_repeat_names_the_type_it_was_given_instead_of_a_judged_assertion() -> None:
    with pytest.raises(TypeError) as info:
        Repeat(3, Contains("x"))  # type: ignore[arg-type]
    assert str(info.value) == "repeat takes a judged assertion (such as llm_rubric), got Contains"


# --- FakeJudge.failing(): "A judge that fails everything" with its documented defaults ---------


def test_fake_failing_defaults() -> None:
    result = LLMRubric("Is polite", judge=FakeJudge.failing()).check("No.")
    assert (result.status, result.reason, result.score) == (F, "does not meet the criteria", 0.0)
    assert result.details["verdict"] == {
        "passed": False,
        "score": 0.0,
        "reason": "does not meet the criteria",
    }
    custom = LLMRubric("Is polite", judge=FakeJudge.failing("rude", score=0.2)).check("No.")
    assert (custom.reason, custom.score) == ("rude", 0.2)


# --- FunctionJudge: "returns a Verdict, a mapping with passed, or a bare bool" ----------------


def judged(function: Any) -> Verdict:
    verdict: Verdict = asyncio.run(FunctionJudge(function).judge(JudgeRequest("c", "r")))
    return verdict


def test_function_judge_replies_become_verdicts() -> None:
    # a bare bool has no score and no reason; the raw reply is kept for the record
    assert judged(lambda request: True) == Verdict(True, None, "", True)
    assert judged(lambda request: False) == Verdict(False, None, "", False)
    reply = {"passed": False, "score": 0.3, "reason": "curt"}
    assert judged(lambda request: reply) == Verdict(False, 0.3, "curt", reply)
    verdict = Verdict(True, 1.0, "fine")
    assert judged(lambda request: verdict) is verdict


async def _async_grade(request: JudgeRequest) -> dict[str, Any]:
    return {"passed": True, "reason": "awaited"}


def test_function_judge_awaits_an_async_function() -> None:
    assert judged(_async_grade) == Verdict(
        True, None, "awaited", {"passed": True, "reason": "awaited"}
    )


def test_a_bare_bool_from_a_function_judge_gets_a_generated_reason() -> None:
    result = LLMRubric("x", judge=FunctionJudge(lambda request: True)).check("y")
    assert result.reason == "the judge passed it"
    assert result.details["verdict"] == {"passed": True, "score": None, "reason": ""}


def polite(request: JudgeRequest) -> bool:
    return "please" in request.response.lower()


class Grader:
    def __call__(self, request: JudgeRequest) -> bool:
        return True


# "Its name is function:<module>.<qualified name> unless name= is given. A callable without a
# qualified name is anonymous" (FunctionJudge docstring); a builtin method has no module, and is
# named by its qualified name alone (docs/judges.md "Caching").
@pytest.mark.parametrize(
    ("function", "name", "qualified", "anonymous"),
    [
        (polite, f"function:{polite.__module__}.polite", f"{polite.__module__}.polite", False),
        (functools.partial(polite), "function:partial", None, True),
        (Grader(), "function:Grader", None, True),
        (dict.get, "function:dict.get", "dict.get", False),
        ({}.get, "function:dict.get", "dict.get", False),
    ],
)
def test_function_judge_names(
    function: Any, name: str, qualified: str | None, anonymous: bool, tmp_path: Path
) -> None:
    judge = FunctionJudge(function)
    assert (judge.name, judge.anonymous) == (name, anonymous)
    assert judge.cache_params() == {"function": qualified}
    if anonymous:  # "CachedJudge refuses ... until you name it"
        with pytest.raises(ValueError, match="name it"):
            CachedJudge(judge, tmp_path / "verdicts.sqlite3")
    named = FunctionJudge(function, name="polite-check")
    assert (named.name, named.anonymous) == ("polite-check", False)


# --- prompt templates: "a prompt template must be a non-empty string"; placeholders missing
# from the values are filled with nothing (template_fields / fill_template docstrings) ---------


@pytest.mark.parametrize("template", ["", "   \n", 5])
def test_a_prompt_template_must_be_a_non_empty_string(template: object) -> None:
    with pytest.raises(ValueError) as info:
        template_fields(template)  # type: ignore[arg-type]
    assert str(info.value) == "a prompt template must be a non-empty string"
    with pytest.raises(ValueError, match="a prompt template must be a non-empty string"):
        LLMRubric("x", prompt=template)  # type: ignore[arg-type]


def test_fill_template_leaves_missing_values_empty() -> None:
    filled = fill_template("[{{criteria}}|{{ input }}|{{response}}]", {"criteria": "c"})
    assert filled == "[c||]"


# --- FakeJudge: "A judge that passes everything"; bools as verdicts; an exhausted script ------


def test_fake_passing_defaults_and_a_bool_reply() -> None:
    result = LLMRubric("Is polite", judge=FakeJudge.passing()).check("Please.")
    assert (result.status, result.reason, result.score) == (P, "meets the criteria", 1.0)
    custom = LLMRubric("Is polite", judge=FakeJudge.passing("kind", score=None)).check("Please.")
    assert (custom.reason, custom.score) == ("kind", None)
    verdict = asyncio.run(FakeJudge(False).judge(JudgeRequest("c", "r")))
    assert verdict == Verdict(False, None, "", False)


def test_an_exhausted_fake_script_is_an_error_that_says_so() -> None:
    judge = FakeJudge(True)
    check = LLMRubric("Is polite", judge=judge)
    assert check.check("a").passed
    result = check.check("b")
    assert (result.status, result.reason) == (
        E,
        "judge fake gave no verdict: "
        "the fake judge's script is used up (give more replies or a default)",
    )
    assert result.details["error"] == "JudgeError"


# --- resolve_judge: "an assertion's own model wins over" CHATASSERT_JUDGE_MODEL (docs/judges.md)


def test_the_environment_judge_takes_the_assertions_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHATASSERT_JUDGE", raising=False)
    assert resolve_judge("gpt-4o") is None
    monkeypatch.setenv("CHATASSERT_JUDGE", "openai")
    monkeypatch.setenv("CHATASSERT_JUDGE_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    own = resolve_judge("gpt-4o")
    assert own is not None
    assert own.name == "openai:gpt-4o"
    default = resolve_judge()
    assert default is not None
    assert default.name == "openai:gpt-4o-mini"
