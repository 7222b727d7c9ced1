"""Judged decisions pinned as whole records: `Repeat`'s aggregates, the fake and function judges.

Each test names the rule it pins (the `Repeat` docstring, docs/judges.md "Repeats" and
"Caching", the `FakeJudge` / `FunctionJudge` docstrings). The boundaries of `majority` (a tie)
and of `mean` (a score exactly at the threshold) are pinned in tests/test_boundaries.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from pathlib import Path
from typing import Any

import pytest

from chatassert import Contains, LLMRubric, Repeat, Status, Turn
from chatassert._errors import JudgeError, UsageError
from chatassert._judged_base import NO_JUDGE, resolve_judge
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
    counted = {k: result.details[k] for k in details}  # stability: test_repeat_stability
    assert (result.status, result.reason.split("; flaky")[0], counted, result.score) == (
        status,
        reason,
        details,
        score,
    )
    assert [r.location for r in result.children] == [f"samples[{i}]" for i in range(len(replies))]


@pytest.mark.parametrize(
    ("aggregate", "replies", "status", "stability", "flaky_reason"),
    [
        ("majority", (True, True, True), P, "stable_pass", False),
        ("majority", (False, False), F, "stable_fail", False),
        ("majority", (True, False, True), P, "flaky", True),
        ("majority", (False, True, False), F, "flaky", True),
        ("all", (True, False), F, "flaky", True),
        ("any", (True, False), P, "flaky", True),
        ("all", (OSError("down"), OSError("down")), E, None, False),
        ("majority", (True, OSError("down"), True), P, "stable_pass", False),
    ],
)  # fmt: skip
def test_repeat_stability(
    aggregate: str,
    replies: tuple[object, ...],
    status: Status,
    stability: str | None,
    flaky_reason: bool,
) -> None:
    """A flaky result keeps its aggregate's status and says it is flaky; samples are kept."""
    judge = FakeJudge(*replies)  # type: ignore[arg-type]
    result = Repeat(len(replies), LLMRubric("Is polite", judge=judge), aggregate).check("Hi.")
    passed = sum(r is True for r in replies)
    assert result.status is status
    assert result.details["stability"] == stability
    assert result.details["pass_rate"] == passed / len(replies)
    assert [s["status"] for s in result.details["samples"]] == [
        "passed" if r is True else "failed" if r is False else "error" for r in replies
    ]
    assert ("flaky:" in result.reason) is flaky_reason


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
    assert (
        result.reason
        == "mean score 0.6 is at least 0.5; flaky: the judge passed 2 and failed 1 of 3 samples"
    )
    assert result.details == {
        **counts("mean", 2, 1, 0),
        "mean_score": score,
        "threshold": 0.5,
        "stability": "flaky",
        "pass_rate": 2 / 3,
        "samples": [
            {"status": s, "score": v}
            for s, v in (("passed", 0.9), ("failed", 0.2), ("passed", 0.7))
        ],
    }
    assert result.score == score


def test_repeat_mean_below_the_threshold_fails_and_says_so() -> None:
    result = mean_of(0.3, 0.1, 0.6)
    assert result.status is F
    assert result.reason.startswith("mean score 0.333 is below 0.5; flaky")
    assert result.details["mean_score"] == result.score == (0.3 + 0.1 + 0.6) / 3


def test_repeat_mean_uses_the_childs_min_score_as_threshold() -> None:
    # each sample below 0.8 fails on its own; the mean is what decides the repeat
    failed = mean_of(0.7, 0.75, min_score=0.8)
    assert (failed.status, failed.reason) == (F, "mean score 0.725 is below 0.8")
    assert {k: failed.details[k] for k in ("mean_score", "threshold", "stability")} == {
        "mean_score": 0.725,
        "threshold": 0.8,
        "stability": "stable_fail",
    }
    passed = mean_of(0.9, 0.7, min_score=0.8)
    assert (passed.status, passed.reason) == (
        P,
        "mean score 0.8 is at least 0.8; flaky: the judge passed 1 and failed 1 of 2 samples",
    )


def test_repeat_mean_counts_an_unscored_verdict_as_one_or_zero() -> None:
    result = Repeat(4, LLMRubric("x", judge=FakeJudge(True, False, False, False)), "mean").check(
        "y"
    )
    assert (result.status, result.reason, result.score) == (
        F,
        "mean score 0.25 is below 0.5; flaky: the judge passed 1 and failed 3 of 4 samples",
        0.25,
    )


def test_repeat_mean_with_an_errored_sample_is_an_error_without_a_score() -> None:
    judge = FakeJudge(Verdict(True, 0.9, ""), OSError("down"))
    result = Repeat(2, LLMRubric("x", judge=judge), "mean").check("y")
    assert (result.status, result.reason, result.score) == (
        E,
        f"1 of 2 samples could not be evaluated: {DOWN}",
        None,
    )
    assert {k: result.details[k] for k in counts("mean", 1, 0, 1)} == counts("mean", 1, 0, 1)


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


# --- JudgedAssertion construction (its docstring, "Raises"): a blank or non-string `model` is a
# ValueError, a boolean or non-numeric `min_score` a TypeError, each with a fixed message ------


@pytest.mark.parametrize("model", ["", "  \t", 5, b"gpt-4o"])
def test_a_model_must_be_a_non_empty_string(model: object) -> None:
    for build in (LLMRubric, LLMJudge):
        with pytest.raises(ValueError) as info:
            build("Is polite", model=model, judge=FakeJudge(True))  # type: ignore[arg-type]
        assert str(info.value) == "model must be a non-empty string"


@pytest.mark.parametrize("min_score", [True, False, "0.7", [0.7]])
def test_min_score_must_be_a_number_not_a_boolean(min_score: object) -> None:
    with pytest.raises(TypeError) as info:
        LLMJudge("Is polite", min_score=min_score, judge=FakeJudge(True))  # type: ignore[arg-type]
    assert str(info.value) == f"min_score must be a number, got {min_score!r}"


def test_min_score_takes_an_int_or_a_float() -> None:
    assert LLMJudge("Is polite", min_score=1, judge=FakeJudge(True)).min_score == 1.0
    assert LLMJudge("Is polite", min_score=0.25, judge=FakeJudge(True)).min_score == 0.25


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


# --- a judge that cannot decide: "the assertion reports an error" naming the judge, the error,
# and what the judge sent and got when it attached them (docs/judges.md, "Writing your own
# judge" and "Every result ... keeps the rendered prompt and the raw reply"); details stay
# strict JSON (`_plain`: anything else is kept as its repr) --------------------------------------


class RefusedError(Exception):
    def __init__(self, message: str, prompt: str, raw: object) -> None:
        super().__init__(message)
        self.prompt = prompt
        self.raw = raw


def test_a_judge_error_record_names_the_judge_the_error_and_what_it_sent_and_got() -> None:
    refused = RefusedError("refused", "Grade: Hi.", {"score": float("nan")})
    result = LLMRubric("Is polite", judge=FakeJudge(refused)).check("Hi.")
    assert (result.status, result.name, result.reason, result.score) == (
        E,
        "llm_rubric",
        "judge fake gave no verdict: refused",
        None,
    )
    assert result.details == {
        "rubric": "Is polite",
        "model": None,
        "judge": "fake",
        "error": "RefusedError",
        "error_message": "refused",
        "prompt": "Grade: Hi.",
        "raw": "{'score': nan}",  # NaN is not JSON: kept as its repr
    }
    unserialisable = RefusedError("refused", "Grade: Hi.", object())
    other = LLMRubric("Is polite", judge=FakeJudge(unserialisable)).check("Hi.")
    assert other.details["raw"] == repr(unserialisable.raw)


# --- a judge without a `name` (JudgedAssertion docstring): accepted; named None in details,
# by its str in an error's reason ---------------------------------------------------------------


class Nameless:
    def __init__(self, reply: Verdict | Exception) -> None:
        self.reply = reply

    async def judge(self, request: JudgeRequest) -> Verdict:
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def __repr__(self) -> str:
        return "Nameless()"


def test_a_judge_without_a_name_is_recorded_as_none() -> None:
    passed = LLMRubric("Is polite", judge=Nameless(Verdict(True, 0.9, "fine"))).check("Hi.")
    assert (passed.status, passed.reason, passed.details) == (
        P,
        "fine",
        {
            "rubric": "Is polite",
            "model": None,
            "verdict": {"passed": True, "score": 0.9, "reason": "fine"},
            "judge": None,
            "threshold": None,
            "judge_passed": True,
        },
    )
    failed = LLMRubric("Is polite", judge=Nameless(OSError("down"))).check("Hi.")
    assert (failed.status, failed.reason, failed.details) == (
        E,
        "judge Nameless() gave no verdict: down",
        {
            "rubric": "Is polite",
            "model": None,
            "judge": None,
            "error": "OSError",
            "error_message": "down",
        },
    )


# --- no judge: an `error` result of the assertion's own kind saying what to set (NO_JUDGE) ------


def test_without_a_judge_the_record_is_an_error_of_the_assertions_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CHATASSERT_JUDGE", raising=False)
    result = LLMJudge("Is polite").check("Hi.")
    assert (result.status, result.name, result.reason, result.details) == (
        E,
        "llm_judge",
        NO_JUDGE,
        {"criteria": "Is polite", "rubric": None, "min_score": None, "error": "no_judge"},
    )


# --- min_score: "a pass with a lower score fails; a pass without a score when min_score is set
# is an error" (docs/judges.md, "Verdicts, scores and errors") ---------------------------------


def test_min_score_without_a_score_is_an_error_record_keeping_the_verdict() -> None:
    judge = FakeJudge({"passed": True, "reason": "fine"})
    result = LLMJudge("Is polite", min_score=0.7, judge=judge).check("Hi.")
    assert (result.status, result.name, result.reason, result.details, result.score) == (
        E,
        "llm_judge",
        "min_score 0.7 was set but the judge gave no score",
        {
            "criteria": "Is polite",
            "rubric": None,
            "min_score": 0.7,
            "reasoning": "fine",
            "score": None,
            "judge": "fake",
            "threshold": 0.7,
            "judge_passed": True,
        },
        None,
    )


def test_a_score_below_min_score_without_a_reason_says_only_that() -> None:
    judge = FakeJudge(
        {"passed": True, "score": 0.2}, {"passed": True, "score": 0.2, "reason": "ok"}
    )
    check = LLMJudge("Is polite", min_score=0.5, judge=judge)
    bare, reasoned = check.check("Hi."), check.check("Hi.")
    assert (bare.status, bare.reason, bare.score) == (F, "score 0.2 is below min_score 0.5", 0.2)
    assert reasoned.reason == "score 0.2 is below min_score 0.5: ok"


# --- the sample index: a single check is sample 0 (JudgeRequest docstring: "the sample index");
# an assertion's `prompt=` overrides, else the request's own template is kept -------------------


def test_a_single_check_asks_for_sample_zero_with_the_assertions_prompt() -> None:
    judge = FakeJudge(default=True)
    LLMRubric("Is polite", judge=judge).check("Hi.")
    LLMRubric("Is polite", judge=judge, prompt="Grade {{response}}").check("Hi.")
    asyncio.run(LLMRubric("Is polite", judge=judge, prompt="Grade {{response}}").acheck("Hi."))
    asked = [(r.sample, r.prompt) for r in judge.requests]
    assert asked == [(0, None), (0, "Grade {{response}}"), (0, "Grade {{response}}")]


class OwnTemplate(LLMRubric):
    """A judged assertion whose `_request` brings its own prompt template."""

    __slots__ = ()

    def _request(self, subject: object) -> JudgeRequest:
        return dataclasses.replace(super()._request(subject), prompt="Own {{criteria}}")


def test_a_repeated_request_keeps_its_own_template_unless_the_assertion_sets_one() -> None:
    judge = FakeJudge(default=True)
    assert Repeat(2, OwnTemplate("Is polite", judge=judge)).check("Hi.").passed
    assert Repeat(2, OwnTemplate("Is polite", judge=judge, prompt="Set {{criteria}}")).check("Hi.")
    asked = [(r.sample, r.prompt) for r in judge.requests]
    assert asked == [
        (0, "Own {{criteria}}"),
        (1, "Own {{criteria}}"),
        (0, "Set {{criteria}}"),
        (1, "Set {{criteria}}"),
    ]


# --- Verdict.from_reply: each unusable reply is a JudgeError saying what was wrong; a reply
# without a reason has an empty one (docs/judges.md, "Verdicts, scores and errors") ----------


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("yes", "the judge's reply is not JSON: 'yes'"),
        ("[true]", "the judge's reply is not an object with 'passed': '[true]'"),
        ({"passed": True, "score": True}, "the judge's 'score' is not a number: True"),
        ({"passed": True, "score": "0.5"}, "the judge's 'score' is not a number: '0.5'"),
        ({"passed": True, "score": 1.5}, "the judge's 'score' is not from 0 to 1: 1.5"),
    ],
)
def test_an_unusable_reply_is_a_judge_error_saying_why(reply: object, message: str) -> None:
    with pytest.raises(JudgeError) as info:
        Verdict.from_reply(reply)
    assert str(info.value) == message


def test_a_reply_without_a_reason_has_an_empty_one() -> None:
    assert Verdict.from_reply({"passed": True}) == Verdict(True, None, "", {"passed": True})
    assert Verdict.from_reply('{"passed": false, "reasoning": "curt"}').reason == "curt"


# --- run_sync: inside a running loop, a UsageError "telling you to await
# assertion.acheck(subject)" (docs/judges.md, "Many checks at once") --------------------------


def test_check_inside_a_running_loop_says_to_await_acheck() -> None:
    async def inside() -> None:
        LLMRubric("x", judge=FakeJudge(True)).check("y")

    with pytest.raises(UsageError) as info:
        asyncio.run(inside())
    assert str(info.value) == (
        "a judged assertion cannot be checked synchronously inside a running event loop; "
        "use `await assertion.acheck(subject)` there"
    )
