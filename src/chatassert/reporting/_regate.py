"""Re-gating stored results: new judged thresholds, recomputed statuses, no judge asked.

A judged check's result keeps its score, its threshold (`details.threshold`) and, where it did
not pass, the judge's own verdict (`details.judge_passed`), in the compact JSON report too. Given
new thresholds by assertion name or kind, `regate` decides each judged leaf again with the
judged checks' own `gate`, then every node above it that changed by its combinator's own rule
(the assertion classes' combining methods, called on the stored children).

Stored values no judge or rule gives (a verdict that is not a boolean, a score outside 0 to 1,
an `at_least` without its `needed`) are never decided into a pass: the node becomes an `error`
saying what it holds.

Docs: docs/judges.md ("Re-gating stored results"). Tests: tests/judges/test_judge_trust.py,
tests/cli/test_regate_reports.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from time import perf_counter
from types import SimpleNamespace
from typing import Any

from chatassert._base import AllOf, AnyOf, Assertion, Not
from chatassert._combinators import AtLeast, OnAnyTurn, OnEveryTurn, OnLastTurn, OnTurn, When
from chatassert._judged import AGGREGATES, LLMRubric, Repeat
from chatassert._judged_base import gate
from chatassert._result import Result, Status, shorten
from chatassert._suite import Case, StepSpec, step_result, turn_result

__all__ = ["regate"]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


def regate(result: Result, thresholds: Mapping[str, float]) -> Result:
    """Return `result` with its judged checks decided again against `thresholds`.

    A threshold applies to a judged check whose assertion name (its `message`), name in its spec
    file (`spec_name`) or kind is a key of `thresholds` (in that order). A check the judge
    failed stays failed; one it passed passes when its score is at least the new threshold,
    fails below it, and is an error without a score. A check that errored (no verdict) stays
    an error. Nodes whose children did not change are returned as they are.

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.promptkit import LLMJudge
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge({"passed": True, "score": 0.75, "reason": "kind"})
        >>> rule = Contains("refund") & LLMJudge("Is polite", min_score=0.5, judge=judge)
        >>> stored = rule.check("Your refund is on its way.")
        >>> again = regate(stored, {"llm_judge": 0.8})
        >>> stored.status.value, again.status.value, again.children[1].reason
        ('passed', 'failed', 'score 0.75 is below min_score 0.8 (re-gated)')
    """
    return _regate(result, thresholds)


def _regate(node: Result, thresholds: Mapping[str, float]) -> Result:
    if node.children:
        children = [_regate(c, thresholds) for c in node.children]
        if all(a is b for a, b in zip(children, node.children, strict=True)):
            return node
        return _recombine(node, children, thresholds)
    details = node.details
    if "threshold" not in details or node.status is _S:
        return node
    threshold = _threshold(node, thresholds)
    if threshold is None:
        return node
    judged = details.get("judge_passed", True if node.status is _P else None)
    if judged is None:  # an error without a verdict: nothing to decide again
        return node
    problem = _unusable_verdict(judged, node.score)
    if problem is not None:  # a stored value no judge gives: never decided into a pass
        return node.replace(
            status=_E,
            reason=f"cannot re-gate: {problem}",
            details={**details, "regate": "bad_stored_value"},
        )
    status, why = gate(judged, node.score, threshold)
    if status is _P:
        reason = (
            node.reason
            if node.status is _P
            else f"score {node.score} meets min_score {threshold} (re-gated)"
        )
    elif why is not None:
        reason = f"{why} (re-gated)"
    else:
        reason = node.reason
    details = {**details, "threshold": threshold, "judge_passed": bool(judged)}
    return node.replace(status=status, reason=reason, details=details)


def _is_score(value: object) -> bool:
    """A score a judge gives: a finite number from 0 to 1 (NaN fails the comparison too)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _unusable_verdict(judged: object, score: object) -> str | None:
    """What makes a stored judged verdict unusable (a judge gives a boolean verdict and a
    score from 0 to 1, or none), or None."""
    if not isinstance(judged, bool):
        return f"the stored judge verdict {shorten(repr(judged), 40)} is not true or false"
    if score is not None and not _is_score(score):
        return f"the stored score {shorten(repr(score), 40)} is not a number from 0 to 1"
    return None


def _unusable_rule(node: Result) -> str | None:
    """What makes a stored combinator's own details unusable by its rule, or None."""
    details = node.details
    if node.name == "at_least":
        needed = details.get("needed")
        if isinstance(needed, bool) or not isinstance(needed, int) or needed < 0:
            return f"its stored 'needed' {shorten(repr(needed), 40)} is not a whole number from 0"
    elif node.name == "repeat":
        if details.get("aggregate") not in AGGREGATES:
            aggregate = shorten(repr(details.get("aggregate")), 40)
            return f"its stored 'aggregate' {aggregate} is not one of {', '.join(AGGREGATES)}"
        threshold = details.get("threshold")
        if threshold is not None and not _is_score(threshold):
            return f"its stored 'threshold' {shorten(repr(threshold), 40)} is not from 0 to 1"
    return None


def _threshold(node: Result, thresholds: Mapping[str, float]) -> float | None:
    """The threshold for a judged check: by its `message`, else by the name its spec file
    gives it (`spec_name`), else by its kind."""
    for key in (node.message, node.spec_name):
        if key is not None and key in thresholds:
            return thresholds[key]
    return thresholds.get(node.name)


def _bare(cls: type[Assertion], **attrs: Any) -> Any:
    """An instance of an assertion class with only the attributes its combining rule reads."""
    out = object.__new__(cls)
    for name, value in {"message": None, **attrs}.items():
        object.__setattr__(out, name, value)
    return out


class _Stored(Assertion):
    """Stands for a stored child where a combining rule describes it (`Not`)."""

    __slots__ = ("_text",)
    kind = "stored"
    _text: str

    def __init__(self, text: str) -> None:
        super().__init__()
        self._set("_text", text)

    def _check(self, subject: object) -> Result:  # pragma: no cover - never checked
        raise NotImplementedError

    def describe(self) -> str:
        """The stored node's label."""
        return self._text


def _index(location: str | None) -> int:
    match = re.search(r"\[(\d+)\]", location or "")
    return int(match.group(1)) if match else 0


def _repeat(node: Result, children: list[Result], thresholds: Mapping[str, float]) -> Result:
    sample = children[0] if children else node
    threshold = _threshold(sample, thresholds)
    if threshold is None:
        threshold = node.details.get("threshold")
    child = _bare(LLMRubric, min_score=threshold)
    rule = _bare(Repeat, n=len(children), aggregate=node.details.get("aggregate"), child=child)
    return rule._combine(children)  # type: ignore[no-any-return]


def _when(node: Result, children: list[Result], _: Mapping[str, float]) -> Result:
    rule = _bare(When)
    if children[0].status is node.children[0].status and len(children) == 2:
        return rule._wrap(children[0], children[1])  # type: ignore[no-any-return]
    if children[0].status is not node.children[0].status:
        return Result(
            _E,
            node.name,
            "cannot re-gate: the condition's status changed, and the branch it now takes was "
            "not checked in the stored run",
            {"regate": "branch_changed"},
            children=tuple(children),
        )
    return node.replace(children=tuple(children))


def _case(node: Result, children: list[Result], _: Mapping[str, float]) -> Result:
    turns = sum(c.name == "turn" for c in children)
    return Case(name=node.message or "")._finish(children, perf_counter(), turns)


def _turn(node: Result, children: list[Result], _: Mapping[str, float]) -> Result:
    turn = SimpleNamespace(input=node.details.get("input"))
    index = node.details.get("turn_index", 0)
    return turn_result(_index(node.location), index, None, turn, children)  # type: ignore[arg-type]


def _step(node: Result, children: list[Result], _: Mapping[str, float]) -> Result:
    d = node.details
    spec = StepSpec(d.get("step", 0), input=d.get("input"), store=d.get("store"))
    return step_result(_index(node.location), spec, children)


def _selector(cls: type[Assertion]) -> Callable[[Result, list[Result], Any], Result]:
    def combine(node: Result, children: list[Result], _: Mapping[str, float]) -> Result:
        attrs = {"index": node.details.get("index")} if cls is OnTurn else {}
        rule = _bare(cls, **attrs)
        return rule._combine(None, children)  # type: ignore[no-any-return]

    return combine


_RULES: dict[str, Callable[[Result, list[Result], Mapping[str, float]], Result]] = {
    "all_of": lambda node, children, _: AllOf()._combine(children),
    "any_of": lambda node, children, _: AnyOf()._combine(children),
    "at_least": lambda node, children, _: _bare(AtLeast, n=node.details["needed"])._combine(
        children
    ),
    "not": lambda node, children, _: Not(_Stored(children[0].label))._negate(children[0]),
    "repeat": _repeat,
    "when": _when,
    "case": _case,
    "turn": _turn,
    "step": _step,
    "on_every_turn": _selector(OnEveryTurn),
    "on_any_turn": _selector(OnAnyTurn),
    "on_turn": _selector(OnTurn),
    "on_last_turn": _selector(OnLastTurn),
}


def _recombine(node: Result, children: list[Result], thresholds: Mapping[str, float]) -> Result:
    rule = _RULES.get(node.name)
    unusable = None if rule is None else _unusable_rule(node)
    if rule is None:
        combined = Result(
            _E,
            node.name,
            f"cannot re-gate {node.name!r}: a judged check inside it changed, and regate "
            "does not know its rule",
            {"regate": "unknown_rule"},
        )
    elif unusable is not None:
        combined = Result(
            _E,
            node.name,
            f"cannot re-gate {node.name!r}: {unusable}",
            {"regate": "bad_stored_value"},
        )
    else:
        combined = rule(node, children, thresholds)
    # the stored node's own placing is kept; the children are the re-gated ones as stored
    return combined.replace(
        message=node.message,
        location=node.location,
        duration=node.duration,
        pointer=node.pointer,
        spec_name=node.spec_name,
        spec_path=node.spec_path,
        children=tuple(children),
    )
