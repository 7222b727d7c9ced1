"""Run chatassert assertions as pydantic-evals evaluators.

`ChatAssertEvaluator(assertion)` wraps any assertion (an object, a native spec mapping, or YAML
text of one) as a pydantic-evals `Evaluator`. It checks the task's output and returns an
`EvaluationReason` whose value is whether the check passed and whose reason lists the failing
branches; a check that could not be evaluated (an `error` result) raises, so pydantic-evals
records an evaluator failure instead of a pass or a plain failure.

Needs the optional extra: `pip install "chatassert[pydantic-evals]"`.

Example:
    >>> import asyncio
    >>> from pydantic_evals import Case, Dataset
    >>> from chatassert import Contains
    >>> dataset = Dataset(
    ...     name="support",
    ...     cases=[Case(name="refund", inputs="I want my money back")],
    ...     evaluators=[ChatAssertEvaluator(Contains("refund"), name="mentions refund")],
    ... )
    >>> report = asyncio.run(dataset.evaluate(lambda text: "Your refund is on its way.",
    ...                                       progress=False))
    >>> report.cases[0].assertions["mentions refund"].value
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext

from chatassert._base import Assertion
from chatassert._errors import ChatAssertError
from chatassert._models import Conversation, Turn
from chatassert._result import Result, Status

__all__ = ["ChatAssertEvaluationError", "ChatAssertEvaluator"]


class ChatAssertEvaluationError(ChatAssertError):
    """A chatassert check could not be evaluated (an `error` result); `result` holds the tree."""

    def __init__(self, result: Result) -> None:
        super().__init__(f"{result.label} could not be evaluated\n{result.render()}")
        self.result = result


@dataclass(repr=False)
class ChatAssertEvaluator(Evaluator[Any, Any, Any]):
    """A pydantic-evals evaluator that checks the task's output with a chatassert assertion.

    The output may be a string, a `Turn`, a `Conversation`, a JSON value, or any pydantic model
    (checked as its JSON dump). Judged assertions run with `acheck`, concurrently with the
    other evaluators.

    Attributes:
        assertion: An `Assertion`, a native spec mapping (`{"type": "contains", "value":
            "refund"}`), or YAML/JSON text of one.
        name: The evaluation's name in reports (default: the assertion's message, else its kind).
        dialect: The vocabulary a spec mapping is written in (`native` by default, or
            `flat`, ...).

    Returns (from `evaluate`):
        `EvaluationReason(value=passed, reason=...)`; a `skipped` result is not a pass.

    Raises (from `evaluate`):
        ChatAssertEvaluationError: for an `error` result, which pydantic-evals records as an
            evaluator failure.
    """

    assertion: Any
    name: str | None = None
    dialect: str = "native"
    _built: Assertion = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.assertion, Assertion):
            built = self.assertion
        elif isinstance(self.assertion, Mapping | str):
            from chatassert.specs import load_assertion

            built = load_assertion(self.assertion, dialect=self.dialect)
        else:
            raise TypeError(
                "ChatAssertEvaluator needs an Assertion, a spec mapping or spec text, "
                f"got {type(self.assertion).__name__}"
            )
        object.__setattr__(self, "_built", built)

    @property
    def check(self) -> Assertion:
        """The assertion this evaluator runs."""
        return self._built

    def get_default_evaluation_name(self) -> str:
        """The name in reports: `name`, else the assertion's message, else its kind."""
        return self.name or self._built.message or self._built.kind

    def build_serialization_arguments(self) -> dict[str, Any]:
        """Serialise the assertion as its native spec, so datasets round-trip through files."""
        out: dict[str, Any] = {"assertion": self._built.as_spec()}
        if self.name is not None:
            out["name"] = self.name
        return out

    async def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluationReason:
        """Check `ctx.output` and return whether it passed, with the failing branches."""
        result = await self._built.acheck(subject_of(ctx.output))
        if result.status is Status.ERROR:
            raise ChatAssertEvaluationError(result)
        if result.passed:
            return EvaluationReason(value=True, reason=result.reason or None)
        return EvaluationReason(value=False, reason=result.render())


def subject_of(output: Any) -> Any:
    """Turn a task's output into a chatassert subject (a pydantic model becomes its JSON dump)."""
    if isinstance(output, Turn | Conversation | str):
        return output
    if isinstance(output, BaseModel):
        return output.model_dump(mode="json")
    return output
