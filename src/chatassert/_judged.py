"""Judged assertions: checks decided by an LLM judge (the flat vocabulary's `llm_rubric`).

A judge that raises, times out, or replies without a boolean `passed` gives an `error` result,
never a pass. The judge is passed explicitly (`judge=`), or resolved from the documented
environment variables when the check runs.
"""

from __future__ import annotations

import os
from typing import Any

from chatassert._base import Assertion
from chatassert._judging import Judge, JudgeRequest, Verdict, run_sync
from chatassert._models import Turn
from chatassert._registry import Param, register
from chatassert._result import Result, Status
from chatassert._tools import turn_of

__all__ = ["JudgedAssertion", "LLMRubric", "resolve_judge"]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

NO_JUDGE = (
    "no judge configured: pass judge=... when building the assertion (or to the loader), "
    "or set CHATASSERT_JUDGE (openai or anthropic) and CHATASSERT_JUDGE_MODEL; "
    "see docs/judges.md"
)


def resolve_judge(model: str | None = None) -> Judge | None:
    """Return the judge configured by environment variables, or None when none is configured.

    `CHATASSERT_JUDGE` names the judge; `chatassert.judges` reads the rest of the configuration
    (and is imported only here, when a judge is actually needed).
    """
    if not os.environ.get("CHATASSERT_JUDGE"):
        return None
    from chatassert import judges

    return judges.judge_from_env(model=model)


class JudgedAssertion(Assertion):
    """Shared machinery of judged assertions: resolve the judge, ask it, record the verdict.

    Subclasses build the `JudgeRequest` (`_request`) and may add details (`_details`).
    """

    __slots__ = ("judge", "model", "min_score")
    judged = True
    options = ("judge",)
    judge: Judge | None
    model: str | None
    min_score: float | None

    def __init__(self, *, model: str | None = None, judge: Judge | None = None,
                 min_score: float | None = None, message: str | None = None) -> None:
        super().__init__(message=message)
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ValueError("model must be a non-empty string")
        if judge is not None and not callable(getattr(judge, "judge", None)):
            raise TypeError(f"judge must have an async judge(request) method, got {judge!r}")
        if min_score is not None and (isinstance(min_score, bool)
                                      or not isinstance(min_score, int | float)):
            raise TypeError(f"min_score must be a number, got {min_score!r}")
        self._set("judge", judge)
        self._set("model", model)
        self._set("min_score", None if min_score is None else float(min_score))

    @property
    def criteria(self) -> str:
        """The text the judge grades against."""
        raise NotImplementedError

    def _request(self, subject: object) -> JudgeRequest:
        raise NotImplementedError

    def _details(self, verdict: Verdict | None) -> dict[str, Any]:
        return {}

    def _check(self, subject: object) -> Result:
        result: Result = run_sync(self._acheck(subject))
        return result

    async def _acheck(self, subject: object) -> Result:
        request = self._request(subject)
        judge = self.judge if self.judge is not None else resolve_judge(self.model)
        if judge is None:
            return Result(_E, self.kind, NO_JUDGE, {**self._details(None), "error": "no_judge"})
        try:
            verdict = Verdict.from_reply(await judge.judge(request))
        except Exception as exc:
            return Result(
                _E,
                self.kind,
                f"judge {getattr(judge, 'name', judge)!s} gave no verdict: {exc}",
                {**self._details(None), "judge": getattr(judge, "name", None),
                 "error": type(exc).__name__, "error_message": str(exc)},
            )
        return self._result(verdict, getattr(judge, "name", None))

    def _result(self, verdict: Verdict, judge_name: str | None) -> Result:
        passed = verdict.passed
        reason = verdict.reason
        if passed and self.min_score is not None:
            if verdict.score is None:
                return Result(_E, self.kind, f"min_score {self.min_score} was set but the judge "
                              "gave no score", {**self._details(verdict), "judge": judge_name},
                              score=None)
            if verdict.score < self.min_score:
                passed = False
                reason = (f"score {verdict.score} is below min_score {self.min_score}"
                          + (f": {verdict.reason}" if verdict.reason else ""))
        if not reason:
            reason = "the judge passed it" if passed else "the judge failed it"
        return Result(_P if passed else _F, self.kind, reason,
                      {**self._details(verdict), "judge": judge_name}, score=verdict.score)


def tool_call_summary(turn: Turn) -> tuple[dict[str, Any], ...]:
    """Return a turn's tool calls as `{name, arguments}` mappings for a judge request."""
    return tuple({"name": c.name, "arguments": c.arguments} for c in turn.tool_calls)


@register
class LLMRubric(JudgedAssertion):
    """Passes when a judge finds the turn's response meets the rubric (flat `llm_rubric`).

    The rubric comes from `value` or `rubric` (`value` wins when both are set); `model`
    overrides the judge's model. The judge's reason is the result's reason, on a pass too.

    Example:
        >>> from chatassert import FakeJudge, LLMRubric
        >>> judge = FakeJudge({"passed": True, "score": 0.9, "reason": "acknowledges it"})
        >>> r = LLMRubric("Acknowledges the frustration", judge=judge).check("I'm sorry.")
        >>> r.passed, r.reason, r.details["verdict"]["score"]
        (True, 'acknowledges it', 0.9)
    """

    __slots__ = ("value", "rubric")
    kind = "llm_rubric"
    dialect_names = {"flat": "llm_rubric"}
    params = (
        Param("value", "str", default=None, doc="the rubric"),
        Param("rubric", "str", default=None, doc="the rubric (when value is not set)"),
        Param("model", "str", default=None, doc="the judge model to use"),
    )
    value: str | None
    rubric: str | None

    def __init__(self, value: str | None = None, *, rubric: str | None = None,
                 model: str | None = None, judge: Judge | None = None,
                 message: str | None = None) -> None:
        super().__init__(model=model, judge=judge, message=message)
        for name, text in (("value", value), ("rubric", rubric)):
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise ValueError(f"llm_rubric {name} must be a non-empty string")
        if value is None and rubric is None:
            raise ValueError("llm_rubric needs the rubric in 'value' or 'rubric'")
        self._set("value", value)
        self._set("rubric", rubric)

    @property
    def criteria(self) -> str:
        """The rubric: `value` if set, else `rubric`."""
        return self.value if self.value is not None else self.rubric or ""

    def _request(self, subject: object) -> JudgeRequest:
        turn = turn_of(subject)
        return JudgeRequest(self.criteria, turn.text, input=turn.input,
                            tool_calls=tool_call_summary(turn), model=self.model)

    def _details(self, verdict: Verdict | None) -> dict[str, Any]:
        out: dict[str, Any] = {"rubric": self.criteria, "model": self.model}
        if verdict is not None:
            out["verdict"] = verdict.to_dict()
        return out

    def describe(self) -> str:
        """Describe the rubric."""
        return f"llm_rubric {self.criteria!r}"
