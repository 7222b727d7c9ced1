"""PromptKit's judged checks: `llm_judge` on a turn and `llm_judge_conversation`.

Both ask a judge (docs/judges.md) with PromptKit's criteria, and a judge outage is an `error`,
never a pass. `judge` names a configured judge and `prompt` a configured prompt template
(`CHATASSERT_JUDGES`, `CHATASSERT_JUDGE_PROMPTS`, or `judges=` / `prompts=` given to the
loader); `conversation_aware` shows the turn's judge the conversation so far. Tests:
tests/promptkit/test_promptkit_judged.py, tests/judges/test_named_judges.py and
tests/test_judged.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from chatassert._history import turns_so_far
from chatassert._judged_base import (
    JudgedAssertion,
    UnknownNameError,
    named_judge,
    named_prompt,
    tool_call_summary,
)
from chatassert._judging import Judge, JudgeRequest, Verdict, render_conversation, template_fields
from chatassert._models import Turn, as_conversation, turn_of
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "LLMJudge",
    "LLMJudgeConversation",
]


# -- judged ------------------------------------------------------------------------------------


_JUDGE = Param(
    "judge",
    "str",
    default=None,
    attr="judge_name",
    doc="the name of a configured judge (CHATASSERT_JUDGES, or judges= given to the loader)",
)
_PROMPT = Param(
    "prompt",
    "str",
    default=None,
    attr="prompt_name",
    doc="the name of a configured prompt template (CHATASSERT_JUDGE_PROMPTS, or prompts=)",
)


def _name(kind: str, what: str, value: object) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"{kind} {what} must be a non-empty name, got {value!r}")
    return value


class _Judged(JudgedAssertion):
    """PromptKit's judged checks: `criteria` and/or `rubric`, an optional `min_score`, and the
    names of a configured judge (`judge`) and prompt template (`prompt`).

    The judge is looked up by name when the check runs: among `judges` (given in code or to
    the loader), else among those `CHATASSERT_JUDGES` configures; an unknown name is an
    `error` result naming the judges there are. The prompt template is looked up when the
    check is built: an unknown name is refused with the closest names, unless no templates
    are configured at all, in which case it is looked up again when the check runs.
    """

    __slots__ = ("_judges", "criteria_text", "judge_name", "prompt_name", "rubric")
    options: ClassVar[tuple[str, ...]] = ("judge", "judges", "prompts")
    params: ClassVar[tuple[Param, ...]] = (
        Param("criteria", "str", default=None, attr="criteria_text", doc="what the judge checks"),
        Param("rubric", "str", default=None, doc="how to grade (with or instead of criteria)"),
        Param("min_score", "number", default=None, doc="the lowest passing score"),
        Param("model", "str", default=None, doc="the judge model to use"),
        _JUDGE,
        _PROMPT,
    )
    criteria_text: str | None
    rubric: str | None
    judge_name: str | None
    prompt_name: str | None
    _judges: dict[str, Judge] | None

    def __init__(
        self,
        criteria: str | None = None,
        *,
        rubric: str | None = None,
        min_score: float | None = None,
        model: str | None = None,
        judge: Judge | None = None,
        judge_name: str | None = None,
        prompt_name: str | None = None,
        judges: Mapping[str, Judge] | None = None,
        prompts: Mapping[str, str] | None = None,
        message: str | None = None,
        criteria_text: str | None = None,
    ) -> None:
        _name(self.kind, "judge", judge_name)
        _name(self.kind, "prompt", prompt_name)
        template = None
        if prompt_name is not None:
            if prompts is not None and not isinstance(prompts, Mapping):
                raise TypeError(f"prompts must be a mapping of names to templates, got {prompts!r}")
            try:
                template = named_prompt(prompt_name, prompts)
            except UnknownNameError as exc:
                raise ValueError(f"{self.kind} prompt: {exc}") from None
        super().__init__(
            model=model, judge=judge, min_score=min_score, message=message, prompt=template
        )
        if judges is not None:
            if not isinstance(judges, Mapping):
                raise TypeError(f"judges must be a mapping of names to judges, got {judges!r}")
            for name, named in judges.items():
                if not callable(getattr(named, "judge", None)):
                    raise TypeError(
                        f"judges[{name!r}] must have an async judge(request) method, got {named!r}"
                    )
        if criteria is None:
            criteria = criteria_text
        for name, text in (("criteria", criteria), ("rubric", rubric)):
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise ValueError(f"{self.kind} {name} must be a non-empty string")
        if criteria is None and rubric is None:
            raise ValueError(f"{self.kind} needs 'criteria' or 'rubric'")
        self._set("criteria_text", criteria)
        self._set("rubric", rubric)
        self._set("judge_name", judge_name)
        self._set("prompt_name", prompt_name)
        self._set("_judges", None if judges is None else dict(judges))

    def _configured(self) -> tuple[Judge | None, str | None] | Result:
        if self.judge_name is None:
            default = super()._configured()
            if isinstance(default, Result):
                return default
            judge = default[0]
        else:
            try:
                judge = named_judge(self.judge_name, self.model, self._judges)
            except UnknownNameError as exc:
                return self._unknown("judge", exc)
        prompt = self.prompt
        if prompt is None and self.prompt_name is not None:  # none was configured when built
            try:
                prompt = named_prompt(self.prompt_name, None)
            except UnknownNameError as exc:
                return self._unknown("prompt", exc)
            if prompt is None:
                message = (
                    f"unknown prompt template {self.prompt_name!r}: no prompt templates are "
                    "configured (set CHATASSERT_JUDGE_PROMPTS, or give prompts={...} to the "
                    "loader); see docs/judges.md"
                )
                return self._unknown("prompt", UnknownNameError(message, []))
            template_fields(prompt)
        return judge, prompt

    def _unknown(self, what: str, exc: UnknownNameError) -> Result:
        details = {**self._details(None), "error": f"unknown_{what}", f"known_{what}s": exc.known}
        return Result(Status.ERROR, self.kind, str(exc), details)

    @property
    def criteria(self) -> str:
        """The criteria, followed by the rubric when both are given."""
        parts = [p for p in (self.criteria_text, self.rubric) if p]
        return "\n\nRubric: ".join(parts)

    def _params(self) -> dict[str, Any]:
        return {} if self.min_score is None else {"min_score": self.min_score}

    def _details(self, verdict: Verdict | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "criteria": self.criteria_text,
            "rubric": self.rubric,
            "min_score": self.min_score,
        }
        if self.judge_name is not None:
            out["judge_name"] = self.judge_name
        if self.prompt_name is not None:
            out["prompt_name"] = self.prompt_name
        if verdict is not None:
            out["reasoning"] = verdict.reason
            out["score"] = verdict.score
        return out

    def describe(self) -> str:
        """Describe the criteria."""
        return f"{self.kind} {self.criteria!r}"


@register
class LLMJudge(_Judged):
    """Passes when a judge finds the turn's response meets the criteria (promptkit `llm_judge`).

    With `conversation_aware`, the judge also sees the conversation so far: every user and
    assistant message up to and including this turn's, as PromptKit shows its judge the
    messages before the response (a turn checked on its own has only itself).

    Example:
        >>> from chatassert.promptkit import LLMJudge
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge({"passed": True, "score": 0.8, "reason": "polite"})
        >>> r = LLMJudge("Is polite", min_score=0.7, judge=judge).check("Thank you!")
        >>> r.passed, r.details["reasoning"], r.details["score"]
        (True, 'polite', 0.8)
    """

    __slots__ = ("conversation_aware",)
    reads_history = True  # reads the turns before the one checked
    kind = "llm_judge"
    dialect_names = {"promptkit.turn": "llm_judge"}
    params = (
        *_Judged.params,
        Param(
            "conversation_aware",
            "bool",
            default=False,
            doc="show the judge the conversation so far, not only this turn",
        ),
    )
    conversation_aware: bool

    def __init__(
        self,
        criteria: str | None = None,
        *,
        rubric: str | None = None,
        min_score: float | None = None,
        model: str | None = None,
        conversation_aware: bool = False,
        judge: Judge | None = None,
        judge_name: str | None = None,
        prompt_name: str | None = None,
        judges: Mapping[str, Judge] | None = None,
        prompts: Mapping[str, str] | None = None,
        message: str | None = None,
        criteria_text: str | None = None,
    ) -> None:
        if not isinstance(conversation_aware, bool):
            raise TypeError(f"conversation_aware must be true or false, got {conversation_aware!r}")
        self._set("conversation_aware", conversation_aware)
        super().__init__(
            criteria,
            rubric=rubric,
            min_score=min_score,
            model=model,
            judge=judge,
            judge_name=judge_name,
            prompt_name=prompt_name,
            judges=judges,
            prompts=prompts,
            message=message,
            criteria_text=criteria_text,
        )

    def _request(self, subject: object) -> JudgeRequest:
        turn = turn_of(subject)
        conversation = None
        if self.conversation_aware:
            conversation = _pairs(turns_so_far(turn))
        return JudgeRequest(
            self.criteria,
            turn.text,
            input=turn.input,
            conversation=conversation,
            tool_calls=tool_call_summary(turn),
            model=self.model,
            params=self._params(),
        )

    def _details(self, verdict: Verdict | None) -> dict[str, Any]:
        out = super()._details(verdict)
        if self.conversation_aware:
            out["conversation_aware"] = True
        return out


def _pairs(turns: Sequence[Turn]) -> tuple[tuple[str, str], ...]:
    """The user and assistant messages with text of `turns`, as `(role, text)`, in order."""
    pairs: list[tuple[str, str]] = []
    for turn in turns:
        if turn.messages:
            pairs.extend(
                (m.role, m.content)
                for m in turn.messages
                if m.content and m.role in ("user", "assistant")
            )
        else:
            if turn.input:
                pairs.append(("user", turn.input))
            if turn.text:
                pairs.append(("assistant", turn.text))
    return tuple(pairs)


@register
class LLMJudgeConversation(_Judged):
    """Passes when a judge finds the whole conversation meets the criteria.

    PromptKit's later name for it is `llm_judge_session`.

    Example:
        >>> from chatassert import Conversation
        >>> from chatassert.promptkit import LLMJudgeConversation
        >>> from chatassert.testing import FakeJudge
        >>> conv = Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                               {"role": "assistant", "content": "Hello!"}])
        >>> judge = FakeJudge({"passed": False, "score": 0.2, "reason": "too curt"})
        >>> LLMJudgeConversation(criteria="Is warm", judge=judge).check(conv).reason
        'too curt'
        >>> judge.requests[0].kind, judge.requests[0].response
        ('conversation', 'user: Hi\\nassistant: Hello!')
    """

    __slots__ = ()
    kind = "llm_judge_conversation"
    level = "conversation"
    dialect_names = {"promptkit.conversation": ("llm_judge_conversation", "llm_judge_session")}

    def _request(self, subject: object) -> JudgeRequest:
        pairs = _pairs(as_conversation(subject).turns)
        return JudgeRequest(
            self.criteria,
            render_conversation(pairs),
            conversation=pairs,
            model=self.model,
            kind="conversation",
            params=self._params(),
        )
