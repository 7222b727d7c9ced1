"""Judged assertions: checks decided by an LLM judge (the flat vocabulary's `llm_rubric`).

A judge that raises, times out, or replies without a boolean `passed` gives an `error` result,
never a pass. The judge is passed explicitly (`judge=`), or resolved from the documented
environment variables when the check runs.

Docs: docs/judges.md. Tests: tests/test_judged.py and tests/test_judged_decisions.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from chatassert._base import Assertion
from chatassert._judged_base import JudgedAssertion, tool_call_summary
from chatassert._judging import Judge, JudgeRequest, Verdict, run_sync
from chatassert._models import turn_of
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = ["LLMRubric", "Repeat", "is_flaky", "repeat_judged", "stability"]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR


@register
class LLMRubric(JudgedAssertion):
    """Passes when a judge finds the turn's response meets the rubric (flat `llm_rubric`).

    The rubric comes from `value` or `rubric` (`value` wins when both are set); `model`
    overrides the judge's model. The judge's reason is the result's reason, on a pass too.

    Raises:
        ValueError: when `value` or `rubric` is given but is not a non-empty string (a blank
            one, or not a string at all), naming which (`llm_rubric value must be a non-empty
            string`), or when neither is given (`llm_rubric needs the rubric in 'value' or
            'rubric'`); and for a bad `model` or `prompt` (see `JudgedAssertion`).

    Example:
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge({"passed": True, "score": 0.9, "reason": "acknowledges it"})
        >>> r = LLMRubric("Acknowledges the frustration", judge=judge).check("I'm sorry.")
        >>> r.passed, r.reason, r.details["verdict"]["score"]
        (True, 'acknowledges it', 0.9)
    """

    __slots__ = ("rubric", "value")
    kind = "llm_rubric"
    dialect_names = {"flat": "llm_rubric"}
    params = (
        Param("value", "str", default=None, doc="the rubric"),
        Param("rubric", "str", default=None, doc="the rubric (when value is not set)"),
        Param("model", "str", default=None, doc="the judge model to use"),
        Param(
            "prompt",
            "str",
            default=None,
            doc="a prompt template overriding the judge's ({{criteria}}, {{response}}, ...)",
        ),
    )
    value: str | None
    rubric: str | None

    def __init__(
        self,
        value: str | None = None,
        *,
        rubric: str | None = None,
        model: str | None = None,
        judge: Judge | None = None,
        message: str | None = None,
        prompt: str | None = None,
    ) -> None:
        super().__init__(model=model, judge=judge, message=message, prompt=prompt)
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
        return JudgeRequest(
            self.criteria,
            turn.text,
            input=turn.input,
            tool_calls=tool_call_summary(turn),
            model=self.model,
        )

    def _details(self, verdict: Verdict | None) -> dict[str, Any]:
        out: dict[str, Any] = {"rubric": self.criteria, "model": self.model}
        if verdict is not None:
            out["verdict"] = verdict.to_dict()
        return out

    def describe(self) -> str:
        """Describe the rubric."""
        return f"llm_rubric {self.criteria!r}"


_AGGREGATES = ("majority", "all", "any", "mean")


@register
class Repeat(Assertion):
    """Asks the judge `n` times for independent verdicts and aggregates them (flaky judges).

    Each sample carries its index (`JudgeRequest.sample`), so a cache keeps each verdict
    separately and a judge may vary its sampling per index. `aggregate` is one of:

    - `majority`: passes when more than half passed; fails when no majority is possible
      even if every errored sample had passed; otherwise an error;
    - `all` / `any`: like `AllOf` / `AnyOf` over the samples;
    - `mean`: passes when the mean score (a verdict without a score counts 1 for a pass, 0 for
      a fail) is at least the child's `min_score` (0.5 when unset); any error is an error.

    Example:
        >>> from chatassert import LLMRubric, Repeat
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge(True, False, True)
        >>> result = Repeat(3, LLMRubric("Is polite", judge=judge)).check("Please.")
        >>> result.passed, [r.location for r in result.children]
        (True, ['samples[0]', 'samples[1]', 'samples[2]'])
        >>> print(result.reason)
        2 of 3 samples passed (majority); flaky: the judge passed 2 and failed 1 of 3 samples
        >>> [request.sample for request in judge.requests]
        [0, 1, 2]
        >>> result.details["stability"], result.details["pass_rate"]
        ('flaky', 0.6666666666666666)

    `details` says how stable the verdict is: `stability` is `stable_pass` (every sample
    passed), `stable_fail` (every sample failed), `flaky` (some passed, some failed; the
    reason says so) or None (no sample gave a verdict); `pass_rate` is the share of samples
    that passed and `samples` lists each sample's status and score. A flaky result's status
    is still the one its `aggregate` gives.
    """

    __slots__ = ("aggregate", "child", "n")
    kind = "repeat"
    level = "any"
    params = (
        Param("n", "int", required=True, doc="how many independent verdicts to take"),
        Param(
            "assertion",
            "assertion",
            required=True,
            attr="child",
            doc="the judged assertion to repeat",
        ),
        Param(
            "aggregate",
            "str",
            default="majority",
            choices=_AGGREGATES,
            doc="how the verdicts combine: majority, all, any or mean",
        ),
    )
    n: int
    child: JudgedAssertion
    aggregate: str

    def __init__(
        self,
        n: int,
        child: JudgedAssertion,
        aggregate: str = "majority",
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"repeat needs n >= 1, got {n!r}")
        if not isinstance(child, JudgedAssertion):
            raise TypeError(
                f"repeat takes a judged assertion (such as llm_rubric), got {type(child).__name__}"
            )
        if aggregate not in _AGGREGATES:
            raise ValueError(f"aggregate must be one of {list(_AGGREGATES)}, got {aggregate!r}")
        self._set("n", n)
        self._set("child", child)
        self._set("aggregate", aggregate)

    def needs_judge(self) -> bool:
        """Always true: every sample asks the judge."""
        return True

    def _judge_calls(self) -> int:
        return self.n

    def _check(self, subject: object) -> Result:
        result: Result = run_sync(self._acheck(subject))
        return result

    async def _acheck(self, subject: object) -> Result:
        samples = await asyncio.gather(*(self.child._ajudge(subject, i) for i in range(self.n)))
        return self._combine(
            [
                self.child._located(sample, subject)._with_field("location", f"samples[{i}]")
                for i, sample in enumerate(samples)
            ]
        )

    def _combine(self, samples: Sequence[Result]) -> Result:
        passed = sum(r.status is _P for r in samples)
        failed = sum(r.status is _F for r in samples)
        errors = len(samples) - passed - failed
        n = len(samples)
        details: dict[str, Any] = {
            "aggregate": self.aggregate,
            "passed": passed,
            "failed": failed,
            "error": errors,
        }
        score: float | None = passed / n
        if self.aggregate == "majority":
            if passed * 2 > n:
                status = _P
            elif (passed + errors) * 2 <= n:
                status = _F
            else:
                status = _E
        elif self.aggregate == "all":
            status = _F if failed else _E if errors else _P
        elif self.aggregate == "any":
            status = _P if passed else _E if errors else _F
        else:
            if errors:
                status, score = _E, None
            else:
                scores = [
                    r.score if r.score is not None else float(r.status is _P) for r in samples
                ]
                score = sum(scores) / n
                threshold = self.child.min_score if self.child.min_score is not None else 0.5
                status = _P if score >= threshold else _F
                details.update(mean_score=score, threshold=threshold)
        if status is _E:
            first = next(r for r in samples if r.status is _E)
            reason = f"{errors} of {n} samples could not be evaluated: {first.reason}"
        elif self.aggregate == "mean":
            verb = "is at least" if status is _P else "is below"
            reason = f"mean score {score:.3g} {verb} {details['threshold']:.3g}"
        else:
            reason = f"{passed} of {n} samples passed ({self.aggregate})"
        stable = stability(passed, failed)
        details.update(
            stability=stable,
            pass_rate=passed / n,
            samples=[{"status": r.status.value, "score": r.score} for r in samples],
        )
        if stable == "flaky":
            reason += f"; flaky: the judge passed {passed} and failed {failed} of {n} samples"
        return Result(status, self.kind, reason, details, score=score, children=tuple(samples))

    def describe(self) -> str:
        """Describe the repetition."""
        return f"{self.aggregate} of {self.n} verdicts: {self.child.describe()}"


def stability(passed: int, failed: int) -> str | None:
    """How stable repeated verdicts are: `stable_pass`, `stable_fail`, `flaky`, or None when no
    sample gave a verdict (errored samples are not counted).

    Example:
        >>> stability(3, 0), stability(0, 3), stability(2, 1), stability(0, 0)
        ('stable_pass', 'stable_fail', 'flaky', None)
    """
    if passed and failed:
        return "flaky"
    if passed:
        return "stable_pass"
    return "stable_fail" if failed else None


def is_flaky(result: Result) -> bool:
    """Whether any `repeat` node of a result tree (a stored one too) found its verdicts flaky.

    Example:
        >>> from chatassert.testing import FakeJudge
        >>> is_flaky(Repeat(2, LLMRubric("Is polite", judge=FakeJudge(True, False))).check("x"))
        True
    """
    return any(
        node.name == "repeat" and node.details.get("stability") == "flaky"
        for _, node in result.walk()
    )


def repeat_judged(assertion: Assertion, n: int, aggregate: str = "majority") -> Assertion:
    """Return `assertion` with every judged check in it wrapped in `Repeat(n, ...)`.

    A check already inside a `Repeat` is left as it is; an assertion without judged checks is
    returned unchanged (the same object). The CLI's `check --repeat N` and the pytest plugin's
    `--chatassert-repeat N` apply it to every check of a suite.

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.testing import FakeJudge
        >>> rule = Contains("hi") & LLMRubric("Is polite", judge=FakeJudge.passing())
        >>> repeat_judged(rule, 3).describe()
        "all_of(contains 'hi', majority of 3 verdicts: llm_rubric 'Is polite')"
    """
    if isinstance(assertion, JudgedAssertion):
        return Repeat(n, assertion, aggregate, message=assertion.message)
    if isinstance(assertion, Repeat) or not assertion.needs_judge():
        return assertion
    changed: dict[str, Any] = {}
    for param in type(assertion).params:
        value = getattr(assertion, param.attr, None)
        if param.kind == "assertion" and isinstance(value, Assertion):
            new = repeat_judged(value, n, aggregate)
            if new is not value:
                changed[param.attr] = new
        elif param.kind == "assertions" and isinstance(value, tuple | list):
            items = [
                repeat_judged(v, n, aggregate) if isinstance(v, Assertion) else v for v in value
            ]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changed[param.attr] = type(value)(items)
    if not changed:
        return assertion
    state = {k: v for k, v in assertion.__getstate__().items() if k != "_described"}
    copy = object.__new__(type(assertion))
    copy.__setstate__({**state, **changed})
    return copy
