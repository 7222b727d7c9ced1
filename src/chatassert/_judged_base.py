"""The base of judged assertions: resolve the judge, ask it, turn its verdict into a result.

`JudgedAssertion` is shared by the judged checks of every dialect (`LLMRubric` and `Repeat`
in `_judged`, PromptKit's `llm_judge` types in `_promptkit_judged`); docs/judges.md describes
them.

Tests: tests/test_judged.py and tests/test_judged_decisions.py.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._judging import Judge, JudgeRequest, Verdict, run_sync, template_fields
from chatassert._models import Turn
from chatassert._params import did_you_mean
from chatassert._result import Result, Status

__all__ = [
    "JudgedAssertion",
    "NO_JUDGE",
    "UnknownNameError",
    "gate",
    "named_judge",
    "named_prompt",
    "resolve_judge",
    "tool_call_summary",
]

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
    from chatassert.judges._env import judge_from_env

    return judge_from_env(model=model)


class UnknownNameError(LookupError):
    """A named judge or prompt template that the configuration does not have.

    Attributes:
        known: The names the configuration has.
    """

    def __init__(self, message: str, known: list[str]) -> None:
        super().__init__(message)
        self.known = known


def named_judge(name: str, model: str | None, judges: Mapping[str, Judge] | None) -> Judge:
    """Return the judge named `name`: one of `judges` (given in code), else of the judges
    `CHATASSERT_JUDGES` configures (`chatassert.judges.named_judges`).

    Raises:
        UnknownNameError: when neither has that name (its message names the ones there are).
    """
    if judges and name in judges:
        return judges[name]
    known = list(judges or {})
    if os.environ.get("CHATASSERT_JUDGES"):
        from chatassert.judges._env import named_judge as configured, named_judges

        configured_names = named_judges()
        if name in configured_names:
            return configured(name, model)
        known += [n for n in configured_names if n not in known]
    if not known:
        raise UnknownNameError(
            f"unknown judge {name!r}: no named judges are configured "
            "(set CHATASSERT_JUDGES, or give judges={...} to the loader); see docs/judges.md",
            [],
        )
    raise UnknownNameError(
        f"unknown judge {name!r}; the configured judges are {', '.join(sorted(known))}",
        sorted(known),
    )


def named_prompt(name: str, prompts: Mapping[str, str] | None) -> str | None:
    """Return the prompt template named `name`: one of `prompts` (given in code), else of the
    templates `CHATASSERT_JUDGE_PROMPTS` configures; None when no template is configured at all.

    Raises:
        UnknownNameError: when templates are configured but none has that name (with the closest).
    """
    if prompts and name in prompts:
        return prompts[name]
    known = dict(prompts or {})
    if os.environ.get("CHATASSERT_JUDGE_PROMPTS"):
        from chatassert.judges._env import named_prompts

        known = {**named_prompts(), **known}
        if name in known:
            return known[name]
    if not known:
        return None
    names = sorted(known)
    hint = did_you_mean(name, names)
    raise UnknownNameError(
        f"unknown prompt template {name!r}"
        + (f" ({hint})" if hint else f"; the configured templates are {', '.join(names)}"),
        names,
    )


class JudgedAssertion(Assertion):
    """Shared machinery of judged assertions: resolve the judge, ask it, record the verdict.

    A judged check of one's own subclasses it (docs/write-a-judge.md): it sets `kind` (and
    `params`, registered), implements the `criteria` property (the text the judge grades
    against) and `_request(subject) -> JudgeRequest` (what the judge is asked about a
    subject), and may add facts to the result's details with `_details(verdict)` (called with
    None when there is no verdict). The base finds the judge (`judge=`, else the one the
    configuration names), asks it, applies `min_score` and turns a judge that gives no verdict
    into an `error`, never a pass. A request's own `prompt` template is kept unless the
    assertion sets `prompt=`. A judge without a `name` is accepted: its results record
    `details["judge"]` as None, and an error's reason names it by its `str`.

    Raises:
        ValueError: when `model` is given but is not a non-empty string (a blank one, or not a
            string at all): `model must be a non-empty string`; or `prompt` is not a usable
            template (see `template_fields`).
        TypeError: when `judge` has no `judge` method, or `min_score` is not a number (a
            boolean or a numeric string is not one): `min_score must be a number, got True`.
    """

    __slots__ = ("judge", "min_score", "model", "prompt")
    judged = True
    options: ClassVar[tuple[str, ...]] = ("judge",)
    judge: Judge | None
    model: str | None
    min_score: float | None
    prompt: str | None
    evidence_at = "/text"

    def __init__(
        self,
        *,
        model: str | None = None,
        judge: Judge | None = None,
        min_score: float | None = None,
        message: str | None = None,
        prompt: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if prompt is not None:
            template_fields(prompt)
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ValueError("model must be a non-empty string")
        if judge is not None and not callable(getattr(judge, "judge", None)):
            raise TypeError(f"judge must have an async judge(request) method, got {judge!r}")
        if min_score is not None and (
            isinstance(min_score, bool) or not isinstance(min_score, int | float)
        ):
            raise TypeError(f"min_score must be a number, got {min_score!r}")
        self._set("judge", judge)
        self._set("model", model)
        self._set("min_score", None if min_score is None else float(min_score))
        self._set("prompt", prompt)

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
        return await self._ajudge(subject, 0)

    def _configured(self) -> tuple[Judge | None, str | None] | Result:
        """The judge to ask (None: none is configured) and the prompt template to send, or
        the error result when what the assertion names cannot be found."""
        judge = self.judge if self.judge is not None else resolve_judge(self.model)
        return judge, self.prompt

    async def _ajudge(self, subject: object, sample: int) -> Result:
        """Ask the judge once; `sample` numbers independent verdicts of one subject (`Repeat`)."""
        import asyncio

        request = self._request(subject)
        configured = self._configured()
        if isinstance(configured, Result):
            return configured
        judge, prompt = configured
        if sample or prompt is not None:
            request = dataclasses.replace(
                request,
                sample=sample,
                prompt=prompt if prompt is not None else request.prompt,
            )
        if judge is None:
            return Result(_E, self.kind, NO_JUDGE, {**self._details(None), "error": "no_judge"})
        try:
            verdict = Verdict.from_reply(await judge.judge(request))
        except (Exception, asyncio.CancelledError) as exc:
            if isinstance(exc, asyncio.CancelledError) and _being_cancelled():
                raise  # this check itself is being cancelled
            details = {
                **self._details(None),
                "judge": getattr(judge, "name", None),
                "error": type(exc).__name__,
                "error_message": str(exc),
            }
            for key in ("prompt", "raw"):  # judges attach what they sent and got, when known
                if getattr(exc, key, None) is not None:
                    details[key] = _plain(getattr(exc, key))
            return Result(
                _E,
                self.kind,
                f"judge {getattr(judge, 'name', judge)!s} gave no verdict: "
                f"{str(exc) or type(exc).__name__}",
                details,
            )
        return self._result(verdict, getattr(judge, "name", None))

    def _result(self, verdict: Verdict, judge_name: str | None) -> Result:
        result = self._verdict_result(verdict, judge_name)
        if verdict.prompt is not None:  # a judge that renders prompts: keep prompt and reply
            result.__dict__["details"] = {
                **result.details,
                "prompt": verdict.prompt,
                "raw": _plain(verdict.raw),
            }
        return result

    def _verdict_result(self, verdict: Verdict, judge_name: str | None) -> Result:
        # the threshold and the judge's own verdict are kept, so a stored result can be
        # re-gated (`chatassert regate`) with another threshold, by `gate` again
        details = {
            **self._details(verdict),
            "judge": judge_name,
            "threshold": self.min_score,
            "judge_passed": verdict.passed,
        }
        status, why = gate(verdict.passed, verdict.score, self.min_score)
        if status is _E:
            return Result(_E, self.kind, why or "", details, score=None)
        if why is not None:
            reason = why + (f": {verdict.reason}" if verdict.reason else "")
        else:
            reason = verdict.reason or (
                "the judge passed it" if status is _P else "the judge failed it"
            )
        return Result(status, self.kind, reason, details, score=verdict.score)


def gate(
    judge_passed: bool, score: float | None, threshold: float | None
) -> tuple[Status, str | None]:
    """Decide a judged check from the judge's verdict, its score and the check's `min_score`:
    the status, and the reason when the threshold (not the judge) decided it.

    A verdict the judge failed stays failed; a passed one fails below the threshold, and is an
    error when a threshold is set but the judge gave no score. Judged checks decide with it,
    and so does `chatassert regate` on stored results.

    Example:
        >>> gate(True, 0.7, 0.8)
        (<Status.FAILED: 'failed'>, 'score 0.7 is below min_score 0.8')
        >>> gate(True, 0.9, 0.8), gate(False, 0.9, None)
        ((<Status.PASSED: 'passed'>, None), (<Status.FAILED: 'failed'>, None))
    """
    if not judge_passed:
        return _F, None
    if threshold is None:
        return _P, None
    if score is None:
        return _E, f"min_score {threshold} was set but the judge gave no score"
    if score < threshold:
        return _F, f"score {score} is below min_score {threshold}"
    return _P, None


def _being_cancelled() -> bool:
    """Whether the running task has been asked to cancel (not just handed a CancelledError)."""
    import asyncio

    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _plain(value: Any) -> Any:
    """Return `value` if it is JSON-serialisable, else its `repr` (details stay serialisable)."""
    import json

    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)
    return value


def tool_call_summary(turn: Turn) -> tuple[dict[str, Any], ...]:
    """Return a turn's tool calls as `{name, arguments}` mappings for a judge request."""
    return tuple({"name": c.name, "arguments": c.arguments} for c in turn.tool_calls)
