"""PromptKit's judged checks: `llm_judge` on a turn and `llm_judge_conversation`.

Both ask a judge (docs/judges.md) with PromptKit's criteria, and a judge outage is an `error`,
never a pass. Tests: tests/promptkit/test_promptkit_judged.py and tests/test_judged.py.
"""

from __future__ import annotations

from typing import Any

from chatassert._judged_base import JudgedAssertion, tool_call_summary
from chatassert._judging import Judge, JudgeRequest, Verdict, render_conversation
from chatassert._models import Conversation, as_conversation, turn_of
from chatassert._params import Param, register

__all__ = [
    "LLMJudge",
    "LLMJudgeConversation",
]


# -- judged ------------------------------------------------------------------------------------


class _Judged(JudgedAssertion):
    """PromptKit's judged checks: `criteria` and/or `rubric`, an optional `min_score`."""

    __slots__ = ("criteria_text", "rubric")
    params = (
        Param("criteria", "str", default=None, attr="criteria_text", doc="what the judge checks"),
        Param("rubric", "str", default=None, doc="how to grade (with or instead of criteria)"),
        Param("min_score", "number", default=None, doc="the lowest passing score"),
        Param("model", "str", default=None, doc="the judge model to use"),
    )
    criteria_text: str | None
    rubric: str | None

    def __init__(
        self,
        criteria: str | None = None,
        *,
        rubric: str | None = None,
        min_score: float | None = None,
        model: str | None = None,
        judge: Judge | None = None,
        message: str | None = None,
        criteria_text: str | None = None,
    ) -> None:
        super().__init__(model=model, judge=judge, min_score=min_score, message=message)
        if criteria is None:
            criteria = criteria_text
        for name, text in (("criteria", criteria), ("rubric", rubric)):
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise ValueError(f"{self.kind} {name} must be a non-empty string")
        if criteria is None and rubric is None:
            raise ValueError(f"{self.kind} needs 'criteria' or 'rubric'")
        self._set("criteria_text", criteria)
        self._set("rubric", rubric)

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

    Example:
        >>> from chatassert.promptkit import LLMJudge
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge({"passed": True, "score": 0.8, "reason": "polite"})
        >>> r = LLMJudge("Is polite", min_score=0.7, judge=judge).check("Thank you!")
        >>> r.passed, r.details["reasoning"], r.details["score"]
        (True, 'polite', 0.8)
    """

    __slots__ = ()
    kind = "llm_judge"
    dialect_names = {"promptkit.turn": "llm_judge"}

    def _request(self, subject: object) -> JudgeRequest:
        turn = turn_of(subject)
        return JudgeRequest(
            self.criteria,
            turn.text,
            input=turn.input,
            tool_calls=tool_call_summary(turn),
            model=self.model,
            params=self._params(),
        )


def _conversation_pairs(conversation: Conversation) -> tuple[tuple[str, str], ...]:
    pairs: list[tuple[str, str]] = []
    for turn in conversation.turns:
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
    dialect_names = {"promptkit.conversation": "llm_judge_conversation"}

    def _request(self, subject: object) -> JudgeRequest:
        pairs = _conversation_pairs(as_conversation(subject))
        return JudgeRequest(
            self.criteria,
            render_conversation(pairs),
            conversation=pairs,
            model=self.model,
            kind="conversation",
            params=self._params(),
        )
