"""Suite-level gates: what a native suite requires of a whole run, beside each case's checks.

```yaml
chatassert: 1
cases: [...]
gates:
  - {assertion: refund_policy, pass_rate: {min: 0.95, confidence: 0.95}}
  - {max_drop: {assertion: tone, by: 0.02}}
  - {pass_rate: {min: 0.9}}      # no assertion: the run's cases
```

A gate is loaded with its suite (`load_gates`: every problem with its place, an assertion
name the suite does not have refused with the names it has, closest first) and evaluated over
a run's outcomes (`evaluate_gates`, or a `GateTally` the command line fills as rows come and
merges across `--jobs` workers). Each gate gives one `Result` named `gate`, placed at
`gates[i]` in its file:

- `pass_rate`: the share of the evaluated outcomes (passed, failed or error; skipped ones
  were not evaluated) of the assertion, or of the suite's cases, that passed. With
  `confidence`, the lower bound of the Wilson interval at that confidence must be at least
  `min` (a gate a small run cannot meet by luck); without it, the observed rate must.
- `max_drop`: the observed pass rate may be at most `by` below the baseline run's
  (`with_baseline`); with no baseline the gate is `skipped`, saying why, never passed.

No outcome to count is an `error`, never a pass. Docs: docs/specs.md ("Gates"). Tests:
tests/gates/.
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from chatassert._base import spec_of
from chatassert._registry import SpecContext, join_path
from chatassert._result import Result, Status, shorten
from chatassert._stats import wilson

if TYPE_CHECKING:
    from chatassert._rows import Row
    from chatassert._suite import Case, Suite

__all__ = [
    "GATE_KINDS",
    "GateCounts",
    "Gate",
    "GateTally",
    "assertion_labels",
    "closest_first",
    "evaluate_gates",
    "gate_of",
    "gate_tally",
    "load_gates",
    "with_baseline",
]

GATE_KINDS = ("pass_rate", "max_drop")
"""The tests a gate may make, each a key of the gate in a spec file."""

_GATE_KEYS = ("assertion", *GATE_KINDS)
_TEST_KEYS = {"pass_rate": ("min", "confidence", "assertion"), "max_drop": ("by", "assertion")}
_NEEDS = {"pass_rate": "min", "max_drop": "by"}
_BASELINE_HOW = "check --baseline BASE, or pytest --chatassert-baseline BASE"


class GateCounts(NamedTuple):
    """How many evaluated outcomes passed, of how many (skipped ones are not evaluated).

    Example:
        >>> GateCounts(3, 4).rate, GateCounts(0, 0).rate is None
        (0.75, True)
    """

    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        """The share that passed; None when nothing was evaluated."""
        return self.passed / self.total if self.total else None

    @classmethod
    def of(cls, statuses: Mapping[str, int]) -> GateCounts:
        """The counts of outcomes by status (`passed`, `failed`, `error`, `skipped`)."""
        passed = statuses.get("passed", 0)
        return cls(passed, passed + statuses.get("failed", 0) + statuses.get("error", 0))


def _number(value: float) -> str:
    """A threshold as the file writes it (`0.95`, `1`)."""
    return f"{value:g}"


def _rate(value: float) -> str:
    """An observed rate, to three places (`0.965`)."""
    return f"{value:.3f}"


def _exact(value: float) -> Fraction:
    """A threshold as the decimal the file wrote (`0.02` is 1/50, not its binary float)."""
    return Fraction(repr(float(value)))


@dataclass(frozen=True)
class Gate:
    """One requirement of a suite on a whole run: a minimum pass rate, or a largest drop
    from a baseline run's, of one assertion or of the suite's cases.

    Attributes:
        kind: `pass_rate` or `max_drop`.
        assertion: The assertion's label, as reports name it (its `message`, else its type
            as the file writes it); None for the suite's cases.
        min: For `pass_rate`: the least pass rate, from 0 to 1.
        confidence: For `pass_rate`: when given (between 0 and 1), the lower bound of the
            Wilson interval at this confidence must reach `min`; else the observed rate must.
        by: For `max_drop`: the most the pass rate may fall below the baseline's, from 0 to 1.
        suite: The name of the suite whose outcomes it counts (None: every case outcome).
        spec_path: Where it is in its file (`gates[1]`).
        baseline: For `max_drop`, the baseline run's counts (`with_baseline`).
        baseline_source: The baseline run it was compared with (a path); None: no baseline.

    Raises:
        ValueError: for an unknown kind, a threshold out of range, or one the kind does not
            take.

    Example:
        >>> gate = Gate("pass_rate", "refund_policy", min=0.9, confidence=0.95)
        >>> gate.check(GateCounts(97, 100)).status.value, gate.check(GateCounts(9, 10)).status.value
        ('passed', 'failed')
    """

    kind: str
    assertion: str | None = None
    min: float | None = None
    confidence: float | None = None
    by: float | None = None
    suite: str | None = None
    spec_path: str = ""
    baseline: GateCounts | None = None
    baseline_source: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in GATE_KINDS:
            raise ValueError(f"a gate is one of {', '.join(GATE_KINDS)}, got {self.kind!r}")
        need = _NEEDS[self.kind]
        for name in ("min", "confidence", "by"):
            value = getattr(self, name)
            if name not in _TEST_KEYS[self.kind]:
                if value is not None:
                    raise ValueError(f"a {self.kind} gate takes no {name!r}")
                continue
            if value is None:
                if name == need:
                    raise ValueError(f"a {self.kind} gate needs {need!r}")
                continue
            problem = _range_problem(name, value)
            if problem is not None:
                raise ValueError(f"{self.kind} {name!r}: {problem}")

    # -- spelling ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The gate's fields as JSON-ready data (`from_dict` reads them back): what a merged
        summary ships with its counts (`GateTally.to_dict`)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["baseline"] = None if self.baseline is None else list(self.baseline)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Gate:
        """Read back what `to_dict` gave.

        Raises:
            ValueError: for fields no gate has, or values a gate refuses.
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"a gate has no fields {unknown}")
        values = dict(data)
        base = values.get("baseline")
        values["baseline"] = None if base is None else GateCounts(*base)
        return cls(**values)

    def as_spec(self) -> dict[str, Any]:
        """The gate as a spec file writes it (`load_gates` reads it back).

        Example:
            >>> Gate("max_drop", "tone", by=0.02).as_spec()
            {'max_drop': {'by': 0.02, 'assertion': 'tone'}}
        """
        test: dict[str, Any] = {}
        for name in _TEST_KEYS[self.kind]:
            value = getattr(self, name)
            if value is not None and name != "assertion":
                test[name] = value
        if self.kind == "max_drop":
            if self.assertion is not None:
                test["assertion"] = self.assertion
            return {"max_drop": test}
        head = {} if self.assertion is None else {"assertion": self.assertion}
        return {**head, "pass_rate": test}

    def describe(self) -> str:
        """What the gate requires, in words.

        Example:
            >>> Gate("pass_rate", "refund_policy", min=0.95, confidence=0.95).describe()
            "pass rate of 'refund_policy' at least 0.95 (lower bound at 95% confidence)"
            >>> Gate("max_drop", by=0.02).describe()
            'pass rate of the cases at most 0.02 below the baseline'
        """
        what = "the cases" if self.assertion is None else repr(shorten(self.assertion, 60))
        if self.kind == "max_drop":
            return f"pass rate of {what} at most {_number(self.by or 0.0)} below the baseline"
        text = f"pass rate of {what} at least {_number(self.min or 0.0)}"
        if self.confidence is not None:
            text += f" (lower bound at {_number(self.confidence * 100)}% confidence)"
        return text

    # -- evaluation ----------------------------------------------------------------------------

    def _result(self, status: Status, reason: str, details: Mapping[str, Any]) -> Result:
        return Result(
            status,
            "gate",
            reason,
            {"suite": self.suite, "assertion": self.assertion, **details, "gate": self.as_spec()},
            message=self.describe(),
            spec_name=self.kind,
            spec_path=self.spec_path or None,
        )

    def skipped(self, why: str) -> Result:
        """The gate's result when the run cannot decide it (`why`: it stopped early)."""
        return self._result(Status.SKIPPED, f"not evaluated: {why}", {})

    def check(self, counts: GateCounts) -> Result:
        """Decide the gate over a run's `counts` (of its assertion, or of the suite's cases).

        An `error` when nothing was evaluated (in the run, or in the baseline for
        `max_drop`); `skipped` for a `max_drop` gate without a baseline.
        """
        what = "the cases" if self.assertion is None else repr(shorten(self.assertion, 60))
        seen = {"passed": counts.passed, "total": counts.total, "rate": counts.rate}
        if self.kind == "max_drop" and self.baseline_source is None:
            return self._result(
                Status.SKIPPED,
                f"not evaluated: no baseline run to compare with ({_BASELINE_HOW})",
                {**seen, "by": self.by, "threshold": self.by},
            )
        if counts.total == 0:
            return self._result(
                Status.ERROR,
                f"no outcome of {what} was evaluated in the run (skipped ones are not "
                "counted), so the gate cannot be met",
                {**seen, "threshold": self.min if self.kind == "pass_rate" else self.by},
            )
        if self.kind == "pass_rate":
            return self._pass_rate(counts, seen)
        return self._max_drop(counts, what, seen)

    def _pass_rate(self, counts: GateCounts, seen: dict[str, Any]) -> Result:
        minimum = self.min if self.min is not None else 0.0
        observed = f"{counts.passed:,} of {counts.total:,} passed ({_rate(seen['rate'])})"
        details: dict[str, Any] = {**seen, "min": minimum, "threshold": minimum}
        if self.confidence is not None:
            low, high = wilson(counts.passed, counts.total, self.confidence)
            met = low >= minimum
            details.update(confidence=self.confidence, interval=[low, high], observed=low)
            observed += (
                f", {_number(self.confidence * 100)}% interval {_rate(low)} to {_rate(high)}: "
                f"its lower bound {'reaches' if met else 'is below'} the minimum "
                f"{_number(minimum)}"
            )
        else:
            met = Fraction(counts.passed, counts.total) >= _exact(minimum)
            details["observed"] = seen["rate"]
            observed += f": {'reaches' if met else 'below'} the minimum {_number(minimum)}"
        return self._result(Status.PASSED if met else Status.FAILED, observed, details)

    def _max_drop(self, counts: GateCounts, what: str, seen: dict[str, Any]) -> Result:
        by = self.by if self.by is not None else 0.0
        base = self.baseline or GateCounts(0, 0)
        source = self.baseline_source
        details: dict[str, Any] = {
            **seen,
            "by": by,
            "threshold": by,
            "baseline": {"source": source, "passed": base.passed, "total": base.total},
        }
        if base.total == 0:
            return self._result(
                Status.ERROR,
                f"the baseline {source} has no evaluated outcome of {what}, so there is "
                "nothing to compare with",
                details,
            )
        drop = Fraction(base.passed, base.total) - Fraction(counts.passed, counts.total)
        met = drop <= _exact(by)
        details["baseline"]["rate"] = base.rate
        details["drop"] = details["observed"] = float(drop)
        if drop > 0:
            change = f"a drop of {_rate(float(drop))}"
        else:
            change = f"a rise of {_rate(float(-drop))}" if drop else "no change"
        reason = (
            f"{_rate(seen['rate'])} ({counts.passed:,}/{counts.total:,}) against "
            f"{_rate(base.rate or 0.0)} ({base.passed:,}/{base.total:,}) in the baseline: "
            f"{change}, {'within' if met else 'more than'} {_number(by)}"
        )
        return self._result(Status.PASSED if met else Status.FAILED, reason, details)


def _range_problem(name: str, value: object) -> str | None:
    """Why `value` cannot be the gate's `name` (None when it can)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number"
    if not math.isfinite(value):
        return "must be a finite number"
    if name == "confidence":
        if not 0 < value < 1:
            return "must be between 0 and 1 (0.95 for 95%)"
        return None
    return None if 0 <= value <= 1 else "must be from 0 to 1 (0.95 for 95%)"


# -- counting a run ------------------------------------------------------------------------------


class GateTally:
    """What a run's gates count, as its rows come: per gated suite, its case outcomes and the
    outcomes of the assertions its gates name, by status; merged across `--jobs` workers.

    Args:
        gates: Per suite name (None: every case outcome), its gates.

    Example:
        >>> tally = GateTally({"s": [Gate("pass_rate", "tone", min=0.5)]})
        >>> tally.add("s", "failed", [("tone", "passed"), ("polite", "failed")])
        >>> tally.add("other", "failed", [("tone", "failed")])
        >>> tally.counts("s", "tone"), tally.counts("s", None)
        (GateCounts(passed=1, total=1), GateCounts(passed=0, total=1))
    """

    def __init__(self, gates: Mapping[str | None, Sequence[Gate]]) -> None:
        self.gates: dict[str | None, tuple[Gate, ...]] = {k: tuple(v) for k, v in gates.items()}
        self.cases: dict[str | None, Counter[str]] = {k: Counter() for k in self.gates}
        self.labels: dict[str | None, dict[str, Counter[str]]] = {
            k: {g.assertion: Counter() for g in v if g.assertion is not None}
            for k, v in self.gates.items()
        }

    def add(self, suite: str | None, status: str, assertions: Iterable[tuple[str, str]]) -> None:
        """Count one case outcome of `suite`: its status, and its assertions' `(label,
        status)` (only those a gate names are kept)."""
        for key in (suite, None) if None in self.cases and suite is not None else (suite,):
            cases = self.cases.get(key)
            if cases is None:
                continue
            cases[status] += 1
            labels = self.labels[key]
            if labels:
                for label, leaf in assertions:
                    counter = labels.get(label)
                    if counter is not None:
                        counter[leaf] += 1

    def add_row(self, row: Row) -> None:
        """Count a row: a case outcome counts, other rows (unreadable, unmatched) do not."""
        if row.kind == "case":
            self.add(row.suite, row.status, row.assertions)

    def merge(self, other: GateTally) -> GateTally:
        """Add another tally's counts (a worker's) to this one; returns `self`."""
        for key, counter in other.cases.items():
            self.cases.setdefault(key, Counter()).update(counter)
        for key, labels in other.labels.items():
            mine = self.labels.setdefault(key, {})
            for label, counter in labels.items():
                mine.setdefault(label, Counter()).update(counter)
        for key, gates in other.gates.items():
            self.gates.setdefault(key, gates)
        return self

    def empty(self) -> GateTally:
        """A tally of the same gates with nothing counted."""
        return GateTally(self.gates)

    def to_dict(self) -> dict[str, Any]:
        """The tally as JSON-ready data (`from_dict` reads it back): per suite, its gates
        (each as `Gate.to_dict` gives it) and its counts.

        Example:
            >>> import json
            >>> tally = GateTally({"s": [Gate("pass_rate", "tone", min=0.5)]})
            >>> tally.add("s", "passed", [("tone", "failed")])
            >>> again = GateTally.from_dict(json.loads(json.dumps(tally.to_dict())))
            >>> again.counts("s", "tone"), again.evaluate() == tally.evaluate()
            (GateCounts(passed=0, total=1), True)
        """
        return {
            "suites": [
                {
                    "suite": key,
                    "gates": [gate.to_dict() for gate in gates],
                    "cases": dict(self.cases.get(key) or {}),
                    "labels": {k: dict(v) for k, v in (self.labels.get(key) or {}).items()},
                }
                for key, gates in self.gates.items()
            ]
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateTally:
        """Read back what `to_dict` gave."""
        entries = data.get("suites") or []
        tally = cls({e.get("suite"): [Gate.from_dict(g) for g in e["gates"]] for e in entries})
        for entry in entries:
            key = entry.get("suite")
            tally.cases[key].update(entry.get("cases") or {})
            for label, counts in (entry.get("labels") or {}).items():
                tally.labels[key].setdefault(label, Counter()).update(counts)
        return tally

    def counts(self, suite: str | None, assertion: str | None) -> GateCounts:
        """The counts of `suite`'s cases (`assertion` None) or of one of its assertions."""
        if assertion is None:
            return GateCounts.of(self.cases.get(suite) or {})
        return GateCounts.of((self.labels.get(suite) or {}).get(assertion) or {})

    def evaluate(self, why_not: str | None = None) -> list[Result]:
        """Each gate's result, suite by suite in file order; every one `skipped` with
        `why_not` when the run cannot decide them (it was interrupted, or stopped early)."""
        out: list[Result] = []
        for suite, gates in self.gates.items():
            for gate in gates:
                if why_not is not None:
                    out.append(gate.skipped(why_not))
                else:
                    out.append(gate.check(self.counts(suite, gate.assertion)))
        return out


def gate_tally(suites: Iterable[Suite]) -> GateTally | None:
    """A tally of the gates of `suites`; None when none has a gate (nothing to count)."""
    gated: dict[str | None, Sequence[Gate]] = {s.name: s.gates for s in suites if s.gates}
    return GateTally(gated) if gated else None


def evaluate_gates(
    gates: Iterable[Gate],
    rows: Iterable[Row],
    baseline_rows: Iterable[Row] | None = None,
    *,
    baseline_source: str = "the baseline",
) -> list[Result]:
    """Evaluate gates over a run's rows (and a baseline run's, for `max_drop`): a result each.

    A gate with a `suite` counts that suite's case rows; one without, every case row.
    Without `baseline_rows`, a `max_drop` gate keeps the baseline it was given
    (`with_baseline`), else is `skipped`.

    Example:
        >>> from chatassert.records import Row
        >>> rows = [Row("case", f"log:{i}", "s", "c", "passed" if i < 9 else "failed",
        ...             assertions=(("tone", "passed" if i < 9 else "failed"),))
        ...         for i in range(10)]
        >>> [r.status.value for r in evaluate_gates(
        ...     [Gate("pass_rate", "tone", min=0.9), Gate("max_drop", by=0.05)], rows)]
        ['passed', 'skipped']
    """
    chosen = list(gates)
    if baseline_rows is not None:
        chosen = _bound(chosen, baseline_rows, baseline_source)
    by_suite: dict[str | None, list[Gate]] = {}
    for gate in chosen:
        by_suite.setdefault(gate.suite, []).append(gate)
    tally = GateTally(by_suite)
    for row in rows:
        tally.add_row(row)
    results = {id(g): r for g, r in zip(_in_tally_order(tally), tally.evaluate(), strict=True)}
    return [results[id(g)] for g in chosen]


def _in_tally_order(tally: GateTally) -> list[Gate]:
    return [gate for gates in tally.gates.values() for gate in gates]


def _bound(gates: Sequence[Gate], rows: Iterable[Row], source: str) -> list[Gate]:
    """`gates`, each `max_drop` one given the baseline's counts from `rows`."""
    drops: dict[str | None, list[Gate]] = {}
    for gate in gates:
        if gate.kind == "max_drop":
            drops.setdefault(gate.suite, []).append(gate)
    if not drops:
        return list(gates)
    tally = GateTally(drops)
    for row in rows:
        tally.add_row(row)
    return [
        replace(
            gate,
            baseline=tally.counts(gate.suite, gate.assertion),
            baseline_source=source,
        )
        if gate.kind == "max_drop"
        else gate
        for gate in gates
    ]


def with_baseline(suite: Suite, rows: Iterable[Row], source: str) -> Suite:
    """`suite` with its `max_drop` gates given the counts of the baseline run's `rows` (those
    of `suite`'s cases) and named after it (`source`, a path)."""
    if not any(gate.kind == "max_drop" for gate in suite.gates):
        return suite
    return replace(suite, gates=tuple(_bound(suite.gates, rows, source)))


def gate_of(line: Mapping[str, Any]) -> Gate:
    """The gate a JSON report's gate line (`{"gate": <result>, "suite": ...}`) was the result
    of, with the baseline counts it was compared with: what `chatassert regate` decides again
    over the outcomes it re-gates.

    Raises:
        ValueError: when the line does not say its gate (`details.gate`) in a gate's shape.
    """
    result = line.get("gate")
    details = result.get("details") if isinstance(result, Mapping) else None
    spec = details.get("gate") if isinstance(details, Mapping) else None
    where = str(result.get("spec_path") or "gates") if isinstance(result, Mapping) else "gates"
    ctx = SpecContext(file=None)
    gate = _gate(spec, ctx, where, spec) if isinstance(spec, Mapping) else None
    if gate is None:
        found = "; ".join(p.message for p in ctx.problems) or "it has no details.gate"
        raise ValueError(f"the gate line of {where} does not say its gate: {found}")
    suite = line.get("suite")
    gate = replace(gate, suite=suite if isinstance(suite, str) else None)
    base = details.get("baseline") if isinstance(details, Mapping) else None
    if gate.kind == "max_drop" and isinstance(base, Mapping):
        passed, total = base.get("passed"), base.get("total")
        if isinstance(passed, int) and isinstance(total, int) and 0 <= passed <= total:
            source = base.get("source")
            gate = replace(
                gate,
                baseline=GateCounts(passed, total),
                baseline_source=source if isinstance(source, str) else "the baseline",
            )
    return gate


# -- loading -----------------------------------------------------------------------------------


def assertion_labels(cases: Iterable[Case]) -> list[str]:
    """The labels the assertions of `cases` are reported under (their `message`, else their
    type as the file writes it, else their kind), each once, in file order."""
    seen: dict[str, None] = {}
    for case in cases:
        for assertion in case.assertions():
            place = spec_of(assertion)
            seen.setdefault(
                assertion.message or (place.name if place is not None else None) or assertion.kind
            )
    return list(seen)


def closest_first(name: str, known: Sequence[str]) -> list[str]:
    """`known`, the most similar to `name` first (ties in their given order).

    Example:
        >>> closest_first("tone", ["refund_policy", "polite_tone", "greets"])
        ['polite_tone', 'greets', 'refund_policy']
    """
    matcher = difflib.SequenceMatcher(b=name)

    def similarity(candidate: str) -> float:
        matcher.set_seq1(candidate)
        return matcher.ratio()

    return sorted(known, key=lambda k: -similarity(k))


def load_gates(doc: Mapping[str, Any], cases: Sequence[Case], ctx: SpecContext) -> tuple[Gate, ...]:
    """The `gates:` of a native suite, each problem recorded in `ctx` with its place.

    An assertion a gate names must be one of the suite's labels (`assertion_labels`); that is
    checked only when the cases loaded without problems (a case that failed to load would
    leave its labels out).
    """
    if "gates" not in doc:
        return ()
    nodes = doc["gates"]
    if not isinstance(nodes, list):
        ctx.problem(
            doc,
            "gates",
            "'gates' must be a list",
            key="gates",
            expected="a list of gates, such as [{pass_rate: {min: 0.9}}]",
            found=nodes,
        )
        return ()
    clean = not ctx.problems
    known = assertion_labels(cases) if clean else []
    gates: list[Gate] = []
    for i, node in enumerate(nodes):
        gate = _gate(node, ctx, join_path("gates", i), nodes)
        if gate is None:
            continue
        if clean and gate.assertion is not None and gate.assertion not in known:
            listed = ", ".join(repr(k) for k in closest_first(gate.assertion, known)[:8])
            more = f", … ({len(known)} in all)" if len(known) > 8 else ""
            ctx.problem(
                node,
                join_path("gates", i),
                f"the gate names the assertion {gate.assertion!r}, which the suite does not have",
                hint=f"the suite's assertions, closest first: {listed}{more}; an assertion is "
                "named by its 'message', else by its type"
                if known
                else "the suite has no assertions",
            )
            continue
        gates.append(gate)
    return tuple(gates)


def _gate(node: Any, ctx: SpecContext, path: str, listed: object) -> Gate | None:
    """One gate of the list (`listed`, whose line places a gate that is not a mapping), or
    None after recording its problems."""
    from chatassert._params import did_you_mean

    if not isinstance(node, Mapping):
        ctx.problem(
            listed,
            path,
            "a gate must be a mapping",
            expected="a mapping such as {assertion: NAME, pass_rate: {min: 0.95}}",
            found=node,
        )
        return None
    before = len(ctx.problems)
    for key in node:
        if key not in _GATE_KEYS:
            ctx.problem(
                node,
                join_path(path, str(key)),
                f"unknown key {key!r} in a gate",
                key=key,
                hint=did_you_mean(str(key), _GATE_KEYS) or f"valid keys: {', '.join(_GATE_KEYS)}",
            )
    kinds = [k for k in GATE_KINDS if k in node]
    if not kinds:
        ctx.problem(
            node,
            path,
            "a gate needs a test: 'pass_rate' or 'max_drop'",
            hint="add 'pass_rate: {min: 0.95}' or 'max_drop: {by: 0.02}'",
        )
    elif len(kinds) > 1:
        ctx.problem(
            node,
            path,
            "a gate makes one test, and this one has both 'pass_rate' and 'max_drop'",
            hint="write each test as a gate of its own",
        )
    values: dict[str, Any] = {}
    tests = []
    for kind in kinds:
        test = _test(node, kind, ctx, join_path(path, kind), values)
        if test is not None:
            tests.append(test)
    assertion = None
    if len(tests) == 1:
        assertion = _assertion(node, tests[0], ctx, path, join_path(path, kinds[0]))
    if len(ctx.problems) != before:
        return None
    return Gate(kinds[0], assertion, spec_path=path, **values)


def _test(
    node: Mapping[str, Any], kind: str, ctx: SpecContext, path: str, values: dict[str, Any]
) -> Mapping[str, Any] | None:
    """A gate's test (`pass_rate: {...}`), its thresholds put in `values`; None when it is
    not a mapping (recorded)."""
    from chatassert._params import did_you_mean

    test = node[kind]
    if not isinstance(test, Mapping):
        ctx.problem(
            node,
            path,
            f"{kind!r} must be a mapping",
            key=kind,
            expected="{min: 0.95} (and confidence: 0.95)"
            if kind == "pass_rate"
            else "{by: 0.02} (and assertion: NAME)",
            found=test,
        )
        return None
    allowed = _TEST_KEYS[kind]
    for key, value in test.items():
        where = join_path(path, str(key))
        if key not in allowed:
            ctx.problem(
                test,
                where,
                f"unknown key {key!r} in a {kind} gate",
                key=key,
                hint=did_you_mean(str(key), allowed) or f"valid keys: {', '.join(allowed)}",
            )
            continue
        if key == "assertion":
            continue
        problem = _range_problem(key, value)
        if problem is not None:
            ctx.problem(test, where, f"{kind} {key!r} {problem}", key=key, found=value)
            continue
        values[key] = value
    need = _NEEDS[kind]
    if need not in test:
        ctx.problem(
            test,
            path,
            f"a {kind} gate needs {need!r}",
            hint=f"add '{need}: 0.95'" if need == "min" else f"add '{need}: 0.02'",
        )
    return test


def _assertion(
    node: Mapping[str, Any], test: Mapping[str, Any], ctx: SpecContext, path: str, test_path: str
) -> str | None:
    """The assertion a gate names, beside its test or inside it (not both); None: its cases."""
    places = [(n, p) for n, p in ((node, path), (test, test_path)) if "assertion" in n]
    if len(places) > 1:
        ctx.problem(
            test,
            join_path(test_path, "assertion"),
            "the gate names its assertion twice",
            key="assertion",
            hint="keep one 'assertion:', beside the test or inside it",
        )
        return None
    if not places:
        return None
    where, at = places[0]
    value = where["assertion"]
    if not isinstance(value, str) or not value.strip():
        ctx.problem(
            where,
            join_path(at, "assertion"),
            "'assertion' must be the name of one of the suite's assertions",
            key="assertion",
            expected="its message, else its type (refund_policy, contains)",
            found=value,
        )
        return None
    return value
