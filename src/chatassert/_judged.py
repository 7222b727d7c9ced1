"""Judged assertions: checks decided by an LLM judge (the flat dialect's `llm_rubric`).

A judge that raises, times out, or replies without a boolean `passed` gives an `error` result,
never a pass. The judge is passed explicitly (`judge=`), or resolved from the documented
environment variables when the check runs.

Docs: docs/judges.md. Tests: tests/test_judged.py and tests/test_judged_decisions.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion, spec_of, with_spec
from chatassert._judged_base import (
    JudgedAssertion,
    UnknownNameError,
    named_judge,
    tool_call_summary,
)
from chatassert._judging import Judge, JudgeRequest, Verdict, run_sync
from chatassert._models import turn_of
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "AGGREGATES",
    "Ensemble",
    "is_flaky",
    "LLMRubric",
    "Repeat",
    "repeat_judged",
    "stability",
]

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


AGGREGATES = ("majority", "all", "any", "mean")


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
            choices=AGGREGATES,
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
        if aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be one of {list(AGGREGATES)}, got {aggregate!r}")
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
        import asyncio

        samples = await asyncio.gather(*(self.child._ajudge(subject, i) for i in range(self.n)))
        return self._combine(
            [
                self.child._point_at_evidence(sample, subject)._with_field(
                    "location", f"samples[{i}]"
                )
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
    if isinstance(assertion, JudgedAssertion):  # named and placed as the check it repeats
        repeated = Repeat(n, assertion, aggregate, message=assertion.message)
        return with_spec(repeated, spec_of(assertion))
    if isinstance(assertion, Repeat) or not assertion.needs_judge():
        return assertion
    changed: dict[str, Any] = {}
    for param in type(assertion).params:
        value = getattr(assertion, param.attr, None)
        if param.value_type == "assertion" and isinstance(value, Assertion):
            new = repeat_judged(value, n, aggregate)
            if new is not value:
                changed[param.attr] = new
        elif param.value_type == "assertions" and isinstance(value, tuple | list):
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


_RULES = ("majority", "unanimous", "quorum")


@register
class Ensemble(Assertion):
    """Asks several judges about one judged check and combines their verdicts by a stated rule.

    `judges` are judges (in code) or names of configured judges (`CHATASSERT_JUDGES`, or
    `judges=` given to the loader), looked up when the check runs; each member grades the
    same check (its rubric, prompt and `min_score`) and its result is kept as a child
    (`location` `judges[i]`). `rule` is one of:

    - `majority`: passes when more than half of the members passed; fails when no majority is
      possible even if every errored member had passed; otherwise an error;
    - `unanimous`: passes when every member passed; one failure fails it; otherwise an error;
    - `quorum`: passes when at least `quorum` members passed; fails when even counting the
      errored members it could not; otherwise an error.

    An errored member (an outage, an unknown name) makes the result an error only when the
    rule cannot be decided without it; when it can, the reason says how many members gave no
    verdict. `details` has the rule, the `split` (passed, failed, error), `disagreement`
    (true when some members passed and some failed) and each member's verdict (`members`).

    Raises:
        ValueError: for no judges, a blank name, an unknown rule, or a `quorum` that is missing
            with `rule: quorum`, given with another rule, or not from 1 to the number of judges.
        TypeError: when the assertion is not a judged check (such as `llm_rubric`), or a
            member is neither a name nor a judge.

    Example:
        >>> from chatassert import Ensemble, LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> judges = {"gpt": FakeJudge.passing(), "claude": FakeJudge.failing("rude"),
        ...           "llama": FakeJudge.passing()}
        >>> check = Ensemble(["gpt", "claude", "llama"], LLMRubric("Is polite"), judges=judges)
        >>> result = check.check("Please hold.")
        >>> result.passed, result.details["disagreement"], result.details["split"]
        (True, True, {'passed': 2, 'failed': 1, 'error': 0})
        >>> print(result.reason)
        2 of 3 judges passed (majority); the judges disagree: claude failed it
    """

    __slots__ = ("_judges", "child", "judge_names", "members", "quorum", "rule")
    kind = "ensemble"
    level = "any"
    options: ClassVar[tuple[str, ...]] = ("judges",)
    params = (
        Param(
            "judges",
            "str_list",
            required=True,
            attr="judge_names",
            doc="the names of the configured judges that each grade the check",
        ),
        Param(
            "assertion",
            "assertion",
            required=True,
            attr="child",
            doc="the judged check every member grades",
        ),
        Param(
            "rule",
            "str",
            default="majority",
            choices=_RULES,
            doc="how the verdicts combine: majority, unanimous or quorum",
        ),
        Param("quorum", "int", default=None, doc="with rule quorum: how many must pass"),
    )
    judge_names: tuple[str, ...]
    members: tuple[str | Judge, ...]
    child: JudgedAssertion
    rule: str
    quorum: int | None
    _judges: dict[str, Judge] | None

    def __init__(
        self,
        judge_names: Sequence[str | Judge],
        child: JudgedAssertion,
        rule: str = "majority",
        quorum: int | None = None,
        *,
        judges: Mapping[str, Judge] | None = None,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if isinstance(judge_names, str) or not isinstance(judge_names, Sequence):
            judge_names = [judge_names]
        members = tuple(judge_names)
        if not members:
            raise ValueError("ensemble needs at least one judge")
        for member in members:
            if isinstance(member, str):
                if not member.strip():
                    raise ValueError("ensemble judges must be non-empty names")
            elif not callable(getattr(member, "judge", None)):
                raise TypeError(
                    f"ensemble judges are names or judges with an async judge(request) method, "
                    f"got {member!r}"
                )
        if not isinstance(child, JudgedAssertion):
            raise TypeError(
                "ensemble takes a judged assertion (such as llm_rubric), "
                f"got {type(child).__name__}"
            )
        if rule not in _RULES:
            raise ValueError(f"rule must be one of {list(_RULES)}, got {rule!r}")
        if rule == "quorum":
            if quorum is None:
                raise ValueError("rule quorum needs 'quorum': how many judges must pass")
            if isinstance(quorum, bool) or not isinstance(quorum, int):
                raise ValueError(f"quorum must be an integer, got {quorum!r}")
            if not 1 <= quorum <= len(members):
                raise ValueError(
                    f"quorum must be from 1 to the number of judges ({len(members)}), got {quorum}"
                )
        elif quorum is not None:
            raise ValueError(f"quorum is only used with rule quorum (the rule is {rule!r})")
        if judges is not None and not isinstance(judges, Mapping):
            raise TypeError(f"judges must be a mapping of names to judges, got {judges!r}")
        self._set("members", members)
        self._set(
            "judge_names",
            tuple(m if isinstance(m, str) else str(getattr(m, "name", m)) for m in members),
        )
        self._set("child", child)
        self._set("rule", rule)
        self._set("quorum", quorum)
        self._set("_judges", None if judges is None else dict(judges))

    def needs_judge(self) -> bool:
        """Always true: every member is a judge."""
        return True

    def _judge_calls(self) -> int:
        return len(self.members)

    def _member(self, member: str | Judge) -> JudgedAssertion | Result:
        """The check graded by `member`, or the error result when its name is unknown."""
        if isinstance(member, str):
            try:
                judge = named_judge(member, self.child.model, self._judges)
            except UnknownNameError as exc:
                return Result(
                    _E,
                    self.child.kind,
                    str(exc),
                    {"judge": member, "error": "unknown_judge", "known_judges": exc.known},
                )
        else:
            judge = member
        state = {k: v for k, v in self.child.__getstate__().items() if k != "_described"}
        state["judge"] = judge
        if "judge_name" in state:  # a PromptKit check naming its judge: the member replaces it
            state["judge_name"] = None
        copy = object.__new__(type(self.child))
        copy.__setstate__(state)
        return copy

    def _check(self, subject: object) -> Result:
        result: Result = run_sync(self._acheck(subject))
        return result

    async def _acheck(self, subject: object) -> Result:
        import asyncio

        checks = [self._member(m) for m in self.members]

        async def grade(check: JudgedAssertion | Result) -> Result:
            return check if isinstance(check, Result) else await check._ajudge(subject, 0)

        outcomes = await asyncio.gather(*(grade(c) for c in checks))
        return self._combine(
            [
                self.child._point_at_evidence(r, subject)._with_field("location", f"judges[{i}]")
                for i, r in enumerate(outcomes)
            ]
        )

    def _combine(self, results: Sequence[Result]) -> Result:
        n = len(results)
        passed = sum(r.status is _P for r in results)
        failed = sum(r.status is _F for r in results)
        errors = n - passed - failed
        if self.rule == "majority":
            status = _P if passed * 2 > n else _F if (passed + errors) * 2 <= n else _E
            needed = n // 2 + 1
        elif self.rule == "unanimous":
            status = _F if failed else _E if errors else _P
            needed = n
        else:
            needed = self.quorum or 1
            status = _P if passed >= needed else _F if passed + errors < needed else _E
        rule = self.rule if self.rule != "quorum" else f"quorum {needed}"
        names = self.judge_names
        disagreement = bool(passed and failed)
        if status is _E:
            first = next(r for r in results if r.status is _E)
            reason = (
                f"{errors} of {n} judges gave no verdict and the rule ({rule}) cannot be "
                f"decided without them: {first.reason}"
            )
        else:
            reason = f"{passed} of {n} judges passed ({rule})"
            if errors:
                reason += f"; {errors} gave no verdict, but the rule is decided without them"
        if disagreement:
            minority = _F if status is _P else _P
            which = [names[i] for i, r in enumerate(results) if r.status is minority]
            verb = "failed" if minority is _F else "passed"
            reason += f"; the judges disagree: {', '.join(which)} {verb} it"
        details: dict[str, Any] = {
            "rule": self.rule,
            "quorum": self.quorum,
            "needed": needed,
            "split": {"passed": passed, "failed": failed, "error": errors},
            "disagreement": disagreement,
            "members": [
                {
                    "judge": names[i],
                    "status": r.status.value,
                    "score": r.score,
                    "reason": r.reason,
                }
                for i, r in enumerate(results)
            ],
        }
        return Result(status, self.kind, reason, details, score=passed / n, children=tuple(results))

    def describe(self) -> str:
        """Describe the ensemble."""
        rule = self.rule if self.rule != "quorum" else f"quorum {self.quorum}"
        return f"{rule} of judges {', '.join(self.judge_names)}: {self.child.describe()}"
