"""Run metadata: `LatencyAtMost`, `CostAtMost`, `TokensAtMost`, `ModelIs`.

They read what a log records beside the messages (docs/offline.md, "Metadata"): a `Turn`'s
`metadata` holds its model calls' facts summed (`latency_ms`, `cost`, `input_tokens`,
`output_tokens`, `total_tokens`) and the `model`; a `Conversation` adds up its turns, or, when
its turns did not record a fact, reads the conversation's own `metadata` (a record's top-level
`usage`, `latency_ms`, `cost`, `model`). A fact that was not logged is an `error` naming the
turns that lack it, never a pass; a sum that already exceeds a limit fails even when some turns
are missing (what is missing only adds). Docs: docs/usage.md. Tests: tests/test_usage.py and
tests/test_usage_props.py.

Example:
    >>> from chatassert import Turn
    >>> from chatassert.usage import LatencyAtMost
    >>> LatencyAtMost(500).check(Turn(text="Hi", metadata={"latency_ms": 812})).reason
    'expected a latency of at most 500 ms but it was 812 ms'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chatassert._base import Assertion
from chatassert._matchers import model_matches, word_segments
from chatassert._models import Conversation, Turn, as_turn
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = ["CostAtMost", "LatencyAtMost", "ModelIs", "TokensAtMost", "usage_total"]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR


def _turns(subject: object) -> tuple[list[tuple[str, Turn]], Mapping[str, Any] | None]:
    """The turns of the subject with their places, and the conversation's own metadata."""
    if isinstance(subject, Conversation):
        return [(f"turns[{i}]", t) for i, t in enumerate(subject.turns)], subject.metadata
    if isinstance(subject, Turn):
        return [("the turn", subject)], None
    return [("the turn", as_turn(subject))], None


def _at(place: str, key: str) -> str:
    """Where a turn's metadata key is: `turns[1].metadata.cost`, or `metadata.cost` in a turn."""
    return f"{place}.metadata.{key}" if place.startswith("turns[") else f"metadata.{key}"


def _amount(value: object) -> float | int | None:
    """A logged amount: a finite, non-negative number that is not a bool, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if value >= 0 else None


@dataclass
class _Total:
    """A fact added up over a subject: its sum, where it came from, and what is missing."""

    value: float | int = 0
    parts: list[tuple[str, float | int]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    invalid: list[tuple[str, object]] = field(default_factory=list)
    source: str = ""


def _fact(metadata: Mapping[str, Any], key: str) -> tuple[bool, object]:
    """Whether `key` was logged in `metadata`, and its value (`total_tokens` may be derived)."""
    if key in metadata and metadata[key] is not None:
        return True, metadata[key]
    if key == "total_tokens":
        low, high = _amount(metadata.get("input_tokens")), _amount(metadata.get("output_tokens"))
        if low is not None and high is not None:
            return True, low + high
    return False, None


def usage_total(subject: object, key: str) -> _Total:
    """Add `key` up over the subject's turns (or read the conversation's own figure)."""
    turns, own = _turns(subject)
    out = _Total()
    for place, turn in turns:
        logged, value = _fact(turn.metadata, key)
        if not logged:
            out.missing.append(place)
            continue
        amount = _amount(value)
        if amount is None:
            out.invalid.append((_at(place, key), value))
            continue
        out.parts.append((place, amount))
        out.value += amount
    if own is not None and (out.missing or out.invalid or not turns):
        logged, value = _fact(own, key)
        amount = _amount(value) if logged else None
        if amount is not None:  # the record's own figure covers the whole conversation
            return _Total(amount, [("metadata", amount)], source="the conversation's metadata")
        if logged:
            out.invalid.append((f"metadata.{key}", value))
        elif not turns:
            out.missing.append("the conversation (no turns, and no figure in its metadata)")
    if own is not None and not out.source:
        out.source = f"summed over {len(out.parts)} of {len(turns)} turns"
    return out


def _show(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _places(items: Sequence[str], limit: int = 5) -> str:
    more = f", and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


class _Limit:
    """One `at most` limit on one metadata fact, and its verdict on a subject."""

    def __init__(self, key: str, noun: str, unit: str, limit: float | int) -> None:
        self.key, self.noun, self.unit, self.limit = key, noun, unit, limit

    def amount(self, value: float | int) -> str:
        """The value with its unit (`812 ms`, `$0.002`, `120 tokens`)."""
        if self.unit == "USD":
            return f"${_show(value)}"
        return f"{_show(value)} {self.unit}"

    def judge(self, subject: object) -> tuple[Status, str, dict[str, Any]]:
        """Pass, fail or error, with the reason's fragment and the details."""
        total = usage_total(subject, self.key)
        details: dict[str, Any] = {
            "key": self.key,
            "limit": self.limit,
            "actual": total.value if not (total.missing or total.invalid) else None,
            "parts": dict(total.parts),
        }
        if total.source:
            details["source"] = total.source
        if total.value > self.limit:  # what is missing or unreadable only adds
            details["actual_at_least"] = total.value
            if total.missing:
                details["missing"] = total.missing
            partial = " at least" if total.missing or total.invalid else ""
            return (
                _F,
                f"expected {self.noun} of at most {self.amount(self.limit)} but it was"
                f"{partial} {self.amount(total.value)}{self._breakdown(total)}",
                details,
            )
        if total.invalid:
            place, value = total.invalid[0]
            details["invalid"] = [{"at": p, "value": v} for p, v in total.invalid]
            return (
                _E,
                f"{place} is not an amount ({value!r}): cannot tell the {self.noun.split()[-1]}",
                details,
            )
        if total.missing:
            details["missing"] = total.missing
            return (
                _E,
                f"{_places(total.missing)} logged no {self.key}: cannot tell the "
                f"{self.noun.split()[-1]} (see docs/usage.md for the keys each log format fills)",
                details,
            )
        return (
            _P,
            f"{self.noun} {self.amount(total.value)} is at most "
            f"{self.amount(self.limit)}{self._breakdown(total)}",
            details,
        )

    def _breakdown(self, total: _Total) -> str:
        if total.parts == [("metadata", total.value)]:
            return " (the conversation's metadata)"
        if len(total.parts) < 2:
            return ""
        shown = [f"{place} {self.amount(v)}" for place, v in total.parts]
        return f" ({_places(shown, 4)})"


def _limit(value: Any, what: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number from 0 up, got {value!r}")
    return value


class _LimitCheck(Assertion):
    """A single `at most` limit on a metadata fact of a turn or a conversation."""

    __slots__ = ("_limit_rule",)
    level = "any"
    _key = ""
    _noun = ""
    _unit = ""
    _param = ""
    _limit_rule: _Limit
    evidence_at = "/metadata"

    def _init_limit(self, value: Any) -> None:
        """Set the limit parameter and build, once, the rule that checks it."""
        limit = _limit(value, self._param)
        self._set(self._param, limit)
        self._set("_limit_rule", _Limit(self._key, self._noun, self._unit, limit))

    def _rule(self) -> _Limit:
        return self._limit_rule

    def describe(self) -> str:
        """Describe the requirement."""
        rule = self._rule()
        return f"{self._noun} of at most {rule.amount(rule.limit)}"

    def _check(self, subject: object) -> Result:
        status, reason, details = self._rule().judge(subject)
        return Result(status, self.kind, reason, details)

    def _pointer_of(self, result: Result, subject: object) -> str | None:
        """The turn's fact that decides (`/metadata/latency_ms`); `/turns` on a conversation."""
        if isinstance(subject, Conversation):
            return "/turns"
        return f"/metadata/{result.details.get('key', '')}".rstrip("/")


@register
class LatencyAtMost(_LimitCheck):
    """Passes when the logged latency is at most `ms` milliseconds.

    A turn's latency is its model calls' `latency_ms`, summed (the log adapters sum them); a
    conversation's is the sum over its turns, or its own `metadata["latency_ms"]` when its
    turns logged none. Not logged → `error`.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> chat = Conversation(turns=[Turn(text="a", metadata={"latency_ms": 700}),
        ...                            Turn(text="b", metadata={"latency_ms": 840})])
        >>> LatencyAtMost(1000).check(chat).reason
        'expected a latency of at most 1000 ms but it was 1540 ms (turns[0] 700 ms, turns[1] \
840 ms)'
        >>> LatencyAtMost(1000).check(Turn(text="a")).reason
        'the turn logged no latency_ms: cannot tell the latency (see docs/usage.md for the keys \
each log format fills)'
    """

    __slots__ = ("ms",)
    kind = "latency_at_most"
    params = (Param("ms", "number", required=True, doc="the most milliseconds allowed"),)
    ms: float | int
    _key, _noun, _unit, _param = "latency_ms", "a latency", "ms", "ms"

    def __init__(self, ms: float, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._init_limit(ms)


@register
class CostAtMost(_LimitCheck):
    """Passes when the logged cost is at most `usd` US dollars.

    A turn's cost is its model calls' `cost`, summed; a conversation's is the sum over its
    turns, or its own `metadata["cost"]` when its turns logged none. Not logged → `error`.

    Example:
        >>> from chatassert import Turn
        >>> CostAtMost(0.01).check(Turn(text="a", metadata={"cost": 0.002})).reason
        'a cost $0.002 is at most $0.01'
    """

    __slots__ = ("usd",)
    kind = "cost_at_most"
    params = (Param("usd", "number", required=True, doc="the most US dollars allowed"),)
    usd: float | int
    _key, _noun, _unit, _param = "cost", "a cost", "USD", "usd"

    def __init__(self, usd: float, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._init_limit(usd)


_TOKENS = (("input", "input_tokens"), ("output", "output_tokens"), ("total", "total_tokens"))


@register
class TokensAtMost(Assertion):
    """Passes when the logged token counts are within every limit given.

    Give `input`, `output`, `total` or several. Counts are the turn's `input_tokens`,
    `output_tokens` and `total_tokens` (summed over its model calls; `total_tokens` is input
    plus output when a log gives those two only), or their sums over a conversation's turns.
    One count over its limit fails; else a count that was not logged is an `error`.

    Example:
        >>> from chatassert import Turn
        >>> turn = Turn(text="a", metadata={"input_tokens": 900, "output_tokens": 200})
        >>> TokensAtMost(output=100, total=2000).check(turn).reason
        'expected output tokens of at most 100 tokens but it was 200 tokens'
        >>> TokensAtMost(total=1000).check(turn).passed
        False
    """

    __slots__ = ("_limit_rules", "input", "output", "total")
    kind = "tokens_at_most"
    level = "any"
    evidence_at = "/metadata"
    params = (
        Param("input", "int", default=None, doc="the most input (prompt) tokens"),
        Param("output", "int", default=None, doc="the most output (completion) tokens"),
        Param("total", "int", default=None, doc="the most tokens in all"),
    )
    input: int | None
    output: int | None
    total: int | None
    _limit_rules: tuple[_Limit, ...]

    def __init__(
        self,
        input: int | None = None,
        output: int | None = None,
        total: int | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        for name, value in (("input", input), ("output", output), ("total", total)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be a whole number of tokens, got {value!r}")
            if value is not None and value < 0:
                raise ValueError(f"{name} must not be negative, got {value}")
            self._set(name, value)
        if input is None and output is None and total is None:
            raise ValueError("tokens_at_most needs input, output, total or several")
        rules = tuple(
            _Limit(key, f"{name} tokens", "tokens", getattr(self, name))
            for name, key in _TOKENS
            if getattr(self, name) is not None
        )
        self._set("_limit_rules", rules)

    def _rules(self) -> tuple[_Limit, ...]:
        return self._limit_rules

    def describe(self) -> str:
        """Describe the requirement."""
        return "; ".join(f"{r.noun} of at most {r.amount(r.limit)}" for r in self._rules())

    def _check(self, subject: object) -> Result:
        verdicts = [(rule, *rule.judge(subject)) for rule in self._rules()]
        details = {rule.key: d for rule, _, _, d in verdicts}
        for wanted in (_F, _E):
            found = [reason for _, status, reason, _ in verdicts if status is wanted]
            if found:
                return Result(wanted, self.kind, "; ".join(found), details)
        return Result(_P, self.kind, "; ".join(r for _, _, r, _ in verdicts), details)


def _models(value: object) -> list[str] | None:
    """The model ids a `model` entry records: one id, or a list (one per model call)."""
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return None


@register
class ModelIs(Assertion):
    """Passes when every model call was answered by `model` (an id, or a family name).

    `model` is matched like `agent_used_model`: `gpt-4o` names `gpt-4o-2024-08-06`, `haiku`
    names `claude-3-5-haiku-20241022`. A turn's model is its `metadata["model"]`: one id, or a
    list of ids when its model calls used several (then every one must match: a turn that
    mixed models passes only when all of them are the model). A conversation's turns must all
    match; a turn that logged no model takes the conversation's own `metadata["model"]`. No
    model logged → `error`.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> chat = Conversation(turns=[Turn(text="a", metadata={"model": "gpt-4o-2024-08-06"}),
        ...                            Turn(text="b", metadata={"model": "gpt-4o-mini"})])
        >>> ModelIs("gpt-4o").check(chat).passed
        True
        >>> ModelIs("gpt-4o-2024-08-06").check(chat).reason
        "expected every model call to use 'gpt-4o-2024-08-06' but turns[1] used 'gpt-4o-mini'"
    """

    __slots__ = ("model",)
    kind = "model_is"
    level = "any"
    evidence_at = "/metadata/model"
    params = (
        Param("model", "str", required=True, doc="a model id, or a family name such as haiku"),
    )
    model: str

    def __init__(self, model: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        if not isinstance(model, str) or not word_segments(model):
            raise ValueError(f"model_is must name a model, got {model!r}")
        self._set("model", model)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every model call used {self.model!r}"

    def _check(self, subject: object) -> Result:
        turns, own = _turns(subject)
        fallback = _models(own.get("model")) if own is not None else None
        used: dict[str, list[str]] = {}
        missing: list[str] = []
        invalid: list[tuple[str, object]] = []
        for place, turn in turns:
            raw = turn.metadata.get("model")
            models = _models(raw)
            if models is None and raw is not None:
                invalid.append((_at(place, "model"), raw))
            elif models is None and fallback is not None:
                used[place] = fallback
            elif models is None:
                missing.append(place)
            else:
                used[place] = models
        if not turns and fallback is not None:
            used["metadata"] = fallback
        elif not turns:
            missing.append("the conversation (no turns, and no model in its metadata)")
        wrong = [
            (place, m) for place, ms in used.items() for m in ms if not model_matches(self.model, m)
        ]
        details: dict[str, Any] = {"expected": self.model, "models": used}
        if wrong:
            details["mismatches"] = [{"at": p, "model": m} for p, m in wrong]
            shown = "; ".join(f"{p} used {m!r}" for p, m in wrong[:3])
            more = f"; and {len(wrong) - 3} more" if len(wrong) > 3 else ""
            return Result(
                _F,
                self.kind,
                f"expected every model call to use {self.model!r} but {shown}{more}",
                details,
            )
        if invalid:
            place, value = invalid[0]
            details["invalid"] = [{"at": p, "value": v} for p, v in invalid]
            return Result(_E, self.kind, f"{place} is not a model id ({value!r})", details)
        if missing:
            details["missing"] = missing
            return Result(
                _E,
                self.kind,
                f"{_places(missing)} logged no model: cannot tell which model answered",
                details,
            )
        names = sorted({m for ms in used.values() for m in ms})
        return Result(_P, self.kind, f"every model call used {', '.join(names)}", details)
