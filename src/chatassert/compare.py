"""Did a change make the agent worse? Two runs of a suite compared, case by case, with statistics.

`read_run` reads a run back: a JSON report of `chatassert check` (`-o report.jsonl`) or a
`--results` directory. `compare` pairs the two runs' cases by `(suite, case, subject_id)` and,
inside each pair, their assertions by name, then gives a `Comparison`:

- the `Flip`s: every case and assertion whose status changed (passed→failed, failed→passed,
  →error, added, removed), with the evidence each side's report carries;
- per assertion and overall (`AssertionChange`): the pass rates of both runs with their Wilson
  intervals (`Rate`), the drop, an exact McNemar test on the paired cases with its mid-p value,
  the p-value adjusted by Holm across the assertions and the overall, and whether it regressed;
- the cases only one run has (`unpaired_base`, `unpaired_new`: listed, never dropped), and the
  judge cost and checking time of both runs.

`Comparison.failed` says why a gate fails (`regression`, `any-flip`, a `max_drop` per name), and
`render_comparison` writes the comparison as text, JSON, JUnit XML or an HTML page. The command
line is `chatassert compare BASE NEW`.

The rules (docs/gate-a-change.md says why):

- An assertion is named as the reports name it (its message, else its name in the spec file,
  else its kind); a check inside a turn or step group is one of the case's assertions. Where
  two assertions of one case share a name, each is told apart by its place in the spec
  relative to its case (`turns[1].assertions[0]`), else by its order.
- A pass rate counts `error` as not passed (as `check`'s per-assertion rates do): an error is
  never a pass, and a check that errors where it failed before is no improvement. `skipped`
  is not counted.
- An assertion that is a `Repeat` compares each subject's share of passing samples rather
  than its one verdict: a subject is worse when its share fell, better when it rose, and the
  exact test counts those subjects. A subject whose samples disagree on either side is
  counted apart (`flaky`); it stays in the test.
- The gate's p-value is the exact one, Holm-adjusted; the mid-p value is shown beside it.

Example:
    >>> from chatassert.records import Row
    >>> def run(*statuses):
    ...     return [Row(kind="case", source=f"log:{i}", suite="s", case="c", subject_id=str(i),
    ...                 status=s, assertions=(("polite", s),)) for i, s in enumerate(statuses)]
    >>> result = compare(run(*["passed"] * 12), run(*["failed"] * 10, "passed", "passed"))
    >>> change = result.assertion("polite")
    >>> change.base.passed, change.new.passed, change.test.worse, round(change.test.p_value, 4)
    (12, 2, 10, 0.002)
    >>> change.regressed, len(result.flips)
    (True, 20)

Docs: docs/gate-a-change.md. Tests: tests/compare/.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeAlias

from chatassert._errors import CompareError
from chatassert._result import shorten
from chatassert._rows import Row
from chatassert._stats import McNemar, holm, mcnemar, wilson

__all__ = [
    "AssertionChange",
    "CompareError",
    "Comparison",
    "Flip",
    "Key",
    "Rate",
    "Run",
    "compare",
    "read_run",
    "render_comparison",
]

Key: TypeAlias = tuple[str, str, str | None]
"""What pairs a case across runs: its suite, its name, and the subject's id."""

FAIL_ON = ("regression", "any-flip")
"""The gates `Comparison.failed` knows, besides `max_drop`."""
WHOLE = ("*", "overall")
"""The names a `max_drop` gives the whole case (the overall pass rate)."""
FORMATS = ("text", "json", "junit", "html")
"""The formats `render_comparison` writes."""
CHANGES = ("worse", "error", "removed", "changed", "added", "better")
"""The kinds of flip (`Flip.change`), in the order reports list them."""

_ABSENT = "absent"
_PASSED, _FAILED, _ERROR, _SKIPPED = "passed", "failed", "error", "skipped"
_VERDICTS = (_PASSED, _FAILED, _ERROR)  # what a pass rate counts
_SLACK = 1e-9  # a drop of exactly the limit (0.98 - 0.96) is within it, float error aside


# -- what is compared ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run read back (`read_run`): its rows, and the suites they are of.

    Attributes:
        path: The report or `--results` directory it was read from.
        rows: Its rows, in the report's order: case outcomes, unreadable and unmatched records
            (a report's lines of its suite's gates are not rows: they are not compared).
        suites: The suites its rows name, sorted.
        places: Where each row is in `path` (`report.jsonl:7`), for the messages; empty for a
            run built in code (a row is then named by its `source`).
    """

    path: str
    rows: tuple[Row, ...]
    suites: tuple[str, ...]
    places: tuple[str, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class Rate:
    """A pass rate and its Wilson interval.

    Attributes:
        passed: How many passed.
        total: How many were counted: passed, failed or errored (skipped ones are not).
        low: The interval's lower bound.
        high: The interval's upper bound.
    """

    passed: int
    total: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        """`passed / total`; NaN when nothing was counted."""
        return self.passed / self.total if self.total else math.nan


@dataclass(frozen=True)
class AssertionChange:
    """How one assertion (or the whole case: `Comparison.overall`) changed between the runs,
    over the cases both runs have.

    Attributes:
        name: The assertion's name, as the reports name it (`overall` for the whole case).
        base: Its pass rate in the base run.
        new: Its pass rate in the new run.
        drop: `base.rate - new.rate` (negative: it improved; NaN when a side counted nothing).
        test: The exact McNemar test on the paired cases (`worse`: passed, or a larger share
            of samples, before; `better`: the other way), with its mid-p value.
        adjusted_p: The exact p-value, Holm-adjusted across the assertions and the overall.
        regressed: Whether it got worse significantly: `adjusted_p <= alpha` and more pairs
            got worse than better.
        flaky: The paired subjects whose repeated verdicts disagree on either side (counted
            apart; they stay in the test).
        base_counts: The statuses of its paired cases in the base run.
        new_counts: The statuses of its paired cases in the new run.
        repeated: The pairs compared by their share of passing samples (a `Repeat`).
        pairs: The pairs with a verdict on both sides (what the test is over; a pair with a
            side skipped is not one). Holm's adjustment is across the changes that have some.
    """

    name: str
    base: Rate
    new: Rate
    drop: float
    test: McNemar
    adjusted_p: float
    regressed: bool
    flaky: int
    base_counts: Mapping[str, int] = field(default_factory=dict)
    new_counts: Mapping[str, int] = field(default_factory=dict)
    repeated: int = 0
    pairs: int = 0


@dataclass(frozen=True)
class Flip:
    """A case, or one of its assertions, whose status differs between the runs.

    Attributes:
        key: The case: `(suite, case, subject_id)`.
        assertion: The assertion's name; None for the case as a whole.
        before: Its status in the base run, or `absent`.
        after: Its status in the new run, or `absent`.
        evidence_before: What the base run's report says of it (the reason it did not pass,
            and for a case a transcript excerpt where the report keeps one), or None.
        evidence_after: The same in the new run.
        spec_path: What tells the assertion apart when two of the case's assertions share its
            name: its place in the spec relative to the case (`turns[1].assertions[0]`), or
            `#n`, its order among them, where the report does not give its place.
    """

    key: Key
    assertion: str | None
    before: str
    after: str
    evidence_before: str | None = None
    evidence_after: str | None = None
    spec_path: str | None = None

    @property
    def change(self) -> str:
        """What kind of flip it is (`CHANGES`): `added`, `removed`, `error` (to an error),
        `worse` (passed to failed), `better` (to passed), or `changed` (any other: failed to
        error is `error`; error to failed, or to or from skipped, is `changed`)."""
        return _change(self.before, self.after)


def _change(before: str, after: str) -> str:
    if before == _ABSENT:
        return "added"
    if after == _ABSENT:
        return "removed"
    if after == _ERROR:
        return "error"
    if after == _PASSED:
        return "better"
    if before == _PASSED and after == _FAILED:
        return "worse"
    return "changed"


@dataclass(frozen=True)
class Comparison:
    """Two runs compared (`compare`).

    Attributes:
        assertions: Each assertion's change, by name.
        overall: The whole case's change (each case's own status), named `overall`.
        flips: Every case and assertion whose status differs, the worst kinds first
            (`CHANGES`), then in the runs' order; a case's own flip before its assertions'.
        unpaired_base: The cases only the base run has (also flips: `removed`).
        unpaired_new: The cases only the new run has (also flips: `added`).
        cost: Per run (`base`, `new`): `cases`, `judge` (the judge costs its reports carry,
            summed; None when none do) and `seconds` (time spent checking: `total`,
            `median`, `p95` per case; None when no case was timed).
        alpha: The significance level `regressed` uses.
        confidence: The confidence of the Wilson intervals.
        max_drop: The largest drop of pass rate allowed per name (`*` or `overall`: the
            whole case), as given to `compare`; `failed` checks it.
        paired: How many cases both runs have.
        base_path: Where the base run was read from (None for rows given in code).
        new_path: Where the new run was read from.
        notes: What was not compared and why (unreadable and unmatched records, a suite
            only one run has).
    """

    assertions: tuple[AssertionChange, ...]
    overall: AssertionChange
    flips: tuple[Flip, ...]
    unpaired_base: tuple[Key, ...]
    unpaired_new: tuple[Key, ...]
    cost: Mapping[str, Any]
    alpha: float
    confidence: float = 0.95
    max_drop: Mapping[str, float] = field(default_factory=dict)
    paired: int = 0
    base_path: str | None = None
    new_path: str | None = None
    notes: tuple[str, ...] = ()

    def assertion(self, name: str) -> AssertionChange:
        """The change of the assertion named `name`.

        Raises:
            KeyError: when neither run has an assertion of that name, listing those they have.
        """
        for change in self.assertions:
            if change.name == name:
                return change
        names = ", ".join(repr(c.name) for c in self.assertions) or "none"
        raise KeyError(
            f"no assertion named {name!r} in the runs compared (their assertions: {names})"
        )

    def regressions(self) -> tuple[AssertionChange, ...]:
        """The assertions that regressed, then the overall if it did."""
        found = [c for c in self.assertions if c.regressed]
        if self.overall.regressed:
            found.append(self.overall)
        return tuple(found)

    def failed(self, fail_on: Collection[str], max_drop: Mapping[str, float]) -> list[str]:
        """The reasons a gate fails, one sentence each; empty when it passes.

        Args:
            fail_on: The gates to apply: `regression` (an assertion or the overall regressed,
                `AssertionChange.regressed`) and `any-flip` (any flip at all, added and
                removed cases too).
            max_drop: The largest drop of pass rate allowed, by assertion name (`*` or
                `overall`: the whole case), over those given to `compare` (a name given to
                both takes this one). A side with nothing counted cannot show its drop: that
                fails too.

        Raises:
            ValueError: when `fail_on` names a gate there is not, or a limit is not from 0
                to 1.
            KeyError: when `max_drop` names an assertion neither run has.
        """
        return [reason for _, reason in self._reasons(fail_on, max_drop)]

    def _reasons(
        self, fail_on: Collection[str], max_drop: Mapping[str, float]
    ) -> list[tuple[AssertionChange | None, str]]:
        """`failed`'s reasons, each with the change it is about (None: `any-flip`)."""
        unknown = sorted(set(fail_on) - set(FAIL_ON))
        if unknown:
            raise ValueError(f"unknown gates {unknown} (the gates: {', '.join(FAIL_ON)})")
        reasons: list[tuple[AssertionChange | None, str]] = []
        if "regression" in fail_on:
            for change in self.regressions():
                reasons.append(
                    (
                        change,
                        f"regression: {change.name} fell from {_percent(change.base.rate)} to "
                        f"{_percent(change.new.rate)}: {change.test.worse} worse, "
                        f"{change.test.better} better, Holm-adjusted p "
                        f"{_p(change.adjusted_p)} <= alpha {self.alpha:g}",
                    )
                )
        if "any-flip" in fail_on and self.flips:
            kinds = Counter(flip.change for flip in self.flips)
            listed = ", ".join(f"{kinds[k]} {k}" for k in CHANGES if kinds[k])
            n = len(self.flips)
            reasons.append((None, f"any-flip: {n} flip{'s' if n != 1 else ''} ({listed})"))
        for name, limit in _limits({**self.max_drop, **max_drop}).items():
            change = self.overall if name in WHOLE else self.assertion(name)
            if not (change.base.total and change.new.total):
                side = "base" if not change.base.total else "new"
                reasons.append(
                    (
                        change,
                        f"max-drop {name}={limit:g}: the {side} run has no verdict of "
                        f"{change.name} on the cases both runs have, so its drop cannot be "
                        "measured",
                    )
                )
            elif change.drop > limit + _SLACK:
                reasons.append(
                    (
                        change,
                        f"max-drop {name}={limit:g}: {change.name} fell by {change.drop:.4g} "
                        f"(from {_percent(change.base.rate)} to {_percent(change.new.rate)})",
                    )
                )
        return reasons


def _limits(max_drop: Mapping[str, float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, limit in max_drop.items():
        if isinstance(limit, bool) or not isinstance(limit, int | float) or not 0 <= limit <= 1:
            raise ValueError(f"max_drop {name!r}: the limit must be from 0 to 1, got {limit!r}")
        out[name] = float(limit)
    return out


def _percent(rate: float) -> str:
    return "—" if math.isnan(rate) else f"{rate:.1%}"


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"


# -- reading runs back ---------------------------------------------------------------------------


def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a run back: a JSON report of `chatassert check` (`-f json`, `-o report.jsonl`), or a
    `--results` directory (`check --engine ray --results DIR`).

    Every line is checked before use, and the report must be whole: its summary line last,
    from a run that was not interrupted. A case key (`suite`, `case`, `subject_id`) may come
    once only: it is what pairs the case with the other run's.

    Raises:
        CompareError: naming the file and line, and what to do: a file that cannot be read,
            a line that is not a line of a JSON report, a report cut short (no summary line,
            or one the run wrote when interrupted), a case key twice, a results file that does
            not validate.
    """
    name = os.fspath(path)
    if os.path.isdir(name):
        return _read_results(name)
    try:
        with open(name, "rb") as file:
            text = file.read().decode("utf-8", "surrogateescape")
    except OSError as exc:
        raise CompareError(f"cannot read {name}: {exc.strerror or exc}") from None
    return _read_report(text, name)


def _read_report(text: str, name: str) -> Run:
    from chatassert._jsonlines import json_lines
    from chatassert.reporting._report_reader import read_report, row_kind, say_problems

    if not text.strip():
        raise CompareError(
            f"{name}:1: the file is empty: expected a JSON report of check "
            "(chatassert check SUITE LOGS -o report.jsonl) or a --results directory"
        )
    values, problems = read_report(text, name)
    if problems:
        raise CompareError(
            f"{name} is not a JSON report of check (chatassert check SUITE LOGS -o "
            "report.jsonl):\n" + say_problems(problems).rstrip("\n")
        )
    numbers = [number for number, _ in json_lines(text)]
    rows: list[Row] = []
    places: list[str] = []
    summary_at: int | None = None
    for number, value in zip(numbers, values, strict=True):
        kind = row_kind(value)
        if summary_at is not None:
            raise CompareError(
                f"{name}:{number}: a line after the summary line (line {summary_at}): two "
                "reports joined? compare reads one report of one run"
            )
        if kind == "summary":
            summary_at = number
            if value["summary"].get("interrupted"):
                raise CompareError(
                    f"{name}:{number}: the run was interrupted: its report holds only the "
                    "cases checked before it stopped; run check to the end and compare that"
                )
            continue
        if kind in ("result", "unreadable", "unmatched"):  # not a line of the suite's gates
            rows.append(_report_row(value, kind))
            places.append(f"{name}:{number}")
    if summary_at is None:
        raise CompareError(
            f"{name}:{numbers[-1]}: the report is cut short: it has no summary line (a run "
            "killed before it ended, or a file cut); run check to the end and compare that"
        )
    return _run(name, rows, places)


def _report_row(value: dict[str, Any], kind: str | None) -> Row:
    """The row of one line of a JSON report (its summary line aside)."""
    if kind == "unreadable":
        return Row(kind="unreadable", source=value["unreadable"], error=value["error"])
    if kind == "unmatched":
        return Row(
            kind="unmatched",
            source=value["unmatched"],
            suite=value["suite"],
            subject_id=value.get("subject_id"),
            error=value.get("reason"),
        )
    tree = value["result"]
    duration = tree.get("duration")
    return Row(
        kind="case",
        source=value["source"],
        suite=value["suite"],
        case=value["case"],
        status=tree["status"],
        subject_id=value["subject_id"],
        cost=value.get("cost"),
        flaky=any(_flaky(node) for node in _walk(tree)),
        duration=float(duration) if isinstance(duration, int | float) else 0.0,
        result=json.dumps(tree, ensure_ascii=False),
        assertions=tuple((unit.name, unit.status) for unit in _tree_units(tree)),
        matched_by=value.get("matched_by"),
        match_note=value.get("match_note"),
    )


_ROW_AT = re.compile(r"\Arow (\d+) ")


def _read_results(name: str) -> Run:
    from chatassert.integrations.ray import _results_of

    files = sorted(
        p for p in Path(name).iterdir() if p.name.endswith(".rows.jsonl") and p.name[0] != "."
    )
    if not files:
        raise CompareError(
            f"{name}: no results files (*.rows.jsonl) in this directory: expected the --results "
            "directory of a check run, or a JSON report"
        )
    rows: list[Row] = []
    places: list[str] = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CompareError(f"cannot read {path}: {exc.strerror or exc}") from None
        first = data.split(b"\n", 1)[0]
        try:
            header = json.loads(first.decode("utf-8"))
        except (ValueError, RecursionError):
            header = None
        if not isinstance(header, dict) or not isinstance(header.get("input"), str):
            raise CompareError(
                f"{path}:1: not a results file of check: its first line is not its header"
            )
        try:
            saved = _results_of(data, header["input"])
        except ValueError as exc:
            found = _ROW_AT.match(str(exc))
            line = int(found.group(1)) + 1 if found else 1
            raise CompareError(
                f"{path}:{line}: {exc}: a results file that does not validate cannot be compared"
            ) from None
        for number, saved_row in enumerate(saved.rows, 2):
            rows.append(Row.from_row(saved_row))
            places.append(f"{path}:{number}")
    return _run(name, rows, places)


def _run(name: str, rows: list[Row], places: list[str]) -> Run:
    _cases(rows, places)  # a case key twice is refused here, where the file is known
    suites = sorted({row.suite for row in rows if row.suite is not None})
    return Run(path=name, rows=tuple(rows), suites=tuple(suites), places=tuple(places))


# -- a case's assertions ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Unit:
    """One assertion of one case, in one run."""

    name: str
    status: str
    evidence: str | None = None
    samples: tuple[int, int] | None = None  # a Repeat's (passed, judged) samples
    flaky: bool = False
    spec_path: str | None = None


def _walk(tree: Any) -> Iterator[dict[str, Any]]:
    """Every node of a stored result tree, without recursion."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            children = node.get("children")
            if isinstance(children, list):
                stack.extend(children)


def _flaky(node: dict[str, Any]) -> bool:
    """Whether a stored `repeat` node's samples disagree (some passed, some failed)."""
    if node.get("name") != "repeat":
        return False
    statuses = {c.get("status") for c in node.get("children") or () if isinstance(c, dict)}
    return _PASSED in statuses and _FAILED in statuses


def _samples(node: dict[str, Any]) -> tuple[int, int] | None:
    """A stored `repeat` node's passing and judged samples; None for another node or one whose
    samples gave no verdict."""
    if node.get("name") != "repeat":
        return None
    statuses = [c.get("status") for c in node.get("children") or () if isinstance(c, dict)]
    judged = sum(s in _VERDICTS for s in statuses)
    return (statuses.count(_PASSED), judged) if judged else None


def _tree_units(tree: dict[str, Any]) -> list[_Unit]:
    """The assertions of a stored case result (turn and step groups unwrapped, as `check`'s
    per-assertion counts), each told apart from another of the same name by its place."""
    nodes: list[dict[str, Any]] = []
    for child in tree.get("children") or ():
        grand = child.get("children")
        if grand and child.get("name") in ("turn", "step"):
            nodes.extend(grand)
        else:
            nodes.append(child)
    labels = [str(n.get("message") or n.get("spec_name") or n.get("name")) for n in nodes]
    names: dict[str, int] = {}
    for name in labels:
        names[name] = names.get(name, 0) + 1
    root = tree.get("spec_path")
    units = []
    for node, name in zip(nodes, labels, strict=True):
        place = None
        if names[name] > 1:
            place = node.get("spec_path")
            if isinstance(place, str) and isinstance(root, str) and place.startswith(root + "."):
                place = place[len(root) + 1 :]
        status = str(node.get("status"))
        reason = node.get("reason") if status != _PASSED else None
        units.append(
            _Unit(
                name,
                status,
                reason if isinstance(reason, str) else None,
                _samples(node),
                # a leaf (most nodes) holds no repeat below it
                bool(node.get("children")) and any(_flaky(n) for n in _walk(node)),
                place if isinstance(place, str) else None,
            )
        )
    return units


def _row_tree(row: Row) -> dict[str, Any] | None:
    if row.result is not None:
        tree = json.loads(row.result)
        return tree if isinstance(tree, dict) else None
    if row.outcome is not None:
        from chatassert.reporting._json import compact_result

        return compact_result(row.outcome.result)
    return None


@dataclass(slots=True)
class _Case:
    """A case outcome of one run, ready to pair."""

    row: Row
    place: str
    order: int
    units: dict[tuple[str, str | None], _Unit] = field(default_factory=dict)

    @property
    def key(self) -> Key:
        return (str(self.row.suite), str(self.row.case), self.row.subject_id)

    def evidence(self) -> str | None:
        tree = _row_tree(self.row) if self.row.status != _PASSED else None
        reason = tree.get("reason") if tree is not None else None
        parts = [p for p in (reason, self.row.excerpt) if isinstance(p, str) and p]
        return "\n".join(parts) or None


def _units_of(row: Row) -> dict[tuple[str, str | None], _Unit]:
    """A case row's assertions by `(name, place)`: the place is None for a name the case has
    once, else the assertion's place in the spec relative to the case (`turns[1].assertions[0]`),
    or `#n` (its order among those of its name) where the row does not say it."""
    tree = _row_tree(row)
    if tree is not None:
        units = _tree_units(tree)
    else:  # a row without its tree: its (label, status) pairs
        units = [_Unit(label, status) for label, status in row.assertions]
    out: dict[tuple[str, str | None], _Unit] = {}
    seen: dict[str, int] = {}
    for unit in units:
        name = unit.name
        seen[name] = seen.get(name, 0) + 1
        if (name, None) not in out and seen[name] == 1:
            out[(name, None)] = unit
            continue
        if seen[name] == 2:  # the name's first one is told apart too, now that it has two
            first = out.pop((name, None))
            place = first.spec_path or "#1"
            out[(name, place)] = _placed(first, place)
        place = unit.spec_path or f"#{seen[name]}"
        if (name, place) in out:  # two places alike: their order tells them apart
            place = f"{place}#{seen[name]}"
        out[(name, place)] = _placed(unit, place)
    return out


def _placed(unit: _Unit, place: str) -> _Unit:
    if place == unit.spec_path:
        return unit
    return _Unit(unit.name, unit.status, unit.evidence, unit.samples, unit.flaky, place)


def _cases(rows: Sequence[Row], places: Sequence[str]) -> dict[Key, _Case]:
    """The case rows by key; a key twice is a `CompareError` naming both places."""
    out: dict[Key, _Case] = {}
    for order, (row, place) in enumerate(zip(rows, places, strict=True)):
        if row.kind != "case":
            continue
        case = _Case(row, place, order)
        earlier = out.get(case.key)
        if earlier is not None:
            suite, name, subject = case.key
            who = (
                f"subject {shorten(repr(subject), 80)}"
                if subject is not None
                else "a subject without an id"
            )
            raise CompareError(
                f"{place}: case {name!r} of suite {suite!r} is checked against {who} a second "
                f"time (first at {earlier.place}): compare pairs cases by suite, case and "
                "subject id, so each must come once; give each conversation an id of its own"
            )
        out[case.key] = case
    return out


# -- comparing -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Tally:
    """What one assertion's pairs add up to."""

    base: Counter[str] = field(default_factory=Counter)
    new: Counter[str] = field(default_factory=Counter)
    worse: int = 0
    better: int = 0
    flaky: int = 0
    repeated: int = 0
    pairs: int = 0  # pairs with a verdict on both sides: what the test is over

    def add(self, before: _Unit, after: _Unit) -> None:
        self.base[before.status] += 1
        self.new[after.status] += 1
        if before.flaky or after.flaky:
            self.flaky += 1
        shares = _share(before), _share(after)
        if shares[0] is None or shares[1] is None:
            return
        self.pairs += 1
        if before.samples is not None or after.samples is not None:
            self.repeated += 1
        if shares[1] < shares[0]:
            self.worse += 1
        elif shares[1] > shares[0]:
            self.better += 1


def _share(unit: _Unit) -> float | None:
    """The share of a unit's verdicts that passed: a Repeat's samples, else its one status
    (an error counts as not passed); None when it has no verdict (skipped)."""
    if unit.samples is not None:
        passed, judged = unit.samples
        return passed / judged
    if unit.status not in _VERDICTS:
        return None
    return 1.0 if unit.status == _PASSED else 0.0


def _rate(counts: Counter[str], confidence: float) -> Rate:
    passed = counts[_PASSED]
    total = sum(counts[s] for s in _VERDICTS)
    low, high = wilson(passed, total, confidence)
    return Rate(passed, total, low, high)


def _rows_of(run: Run | Iterable[Row]) -> tuple[str | None, list[Row], list[str]]:
    if isinstance(run, Run):
        places = list(run.places) or [row.source for row in run.rows]
        return run.path, list(run.rows), places
    rows = list(run)
    for row in rows:
        if not isinstance(row, Row):
            raise TypeError(
                f"compare() takes a Run or Rows, got {type(row).__name__} among the rows"
            )
    return None, rows, [row.source for row in rows]


def _suites(rows: Iterable[Row]) -> dict[str, int]:
    """Each suite the rows name, with the index of its first row."""
    out: dict[str, int] = {}
    for index, row in enumerate(rows):
        if row.suite is not None:
            out.setdefault(row.suite, index)
    return out


def compare(
    base: Run | Iterable[Row],
    new: Run | Iterable[Row],
    *,
    alpha: float = 0.05,
    confidence: float = 0.95,
    max_drop: Mapping[str, float] | None = None,
) -> Comparison:
    """Compare two runs of a suite: each a `Run` (`read_run`) or the `Row`s of a `Checker`.

    Cases are paired by `(suite, case, subject_id)`; assertions by name inside each pair (see
    the module's docstring for the rules). Rates, tests and flips are over the paired cases;
    the others are listed (`Comparison.unpaired_base`, `unpaired_new`).

    Args:
        base: The run before the change.
        new: The run after it.
        alpha: The significance level of `AssertionChange.regressed` (after Holm's
            adjustment across the assertions and the overall).
        confidence: The confidence of the Wilson intervals.
        max_drop: The largest drop of pass rate allowed per assertion name (`*` or `overall`:
            the whole case), kept for `Comparison.failed` and the reports.

    Raises:
        CompareError: when the runs share no suite (reports of different suites), or one run
            checks a case against a subject twice; naming where.
        ValueError: when `alpha` or `confidence` is not between 0 and 1, or a `max_drop` is
            not from 0 to 1.
    """
    for what, value in (("alpha", alpha), ("confidence", confidence)):
        if not 0 < value < 1:
            raise ValueError(f"{what} must be between 0 and 1, got {value!r}")
    limits = _limits(max_drop or {})
    base_path, base_rows, base_places = _rows_of(base)
    new_path, new_rows, new_places = _rows_of(new)
    base_name, new_name = base_path or "the base rows", new_path or "the new rows"
    notes = _suite_notes(base_rows, base_places, base_name, new_rows, new_places, new_name)
    notes += _skipped_notes(base_rows, base_name) + _skipped_notes(new_rows, new_name)
    before = _cases(base_rows, base_places)
    after = _cases(new_rows, new_places)

    flips: list[tuple[int, int, Flip]] = []
    tallies: dict[str, _Tally] = {}
    overall = _Tally()
    paired = 0
    for key, old in before.items():
        now = after.get(key)
        if now is None:
            flips.append((old.order, 0, _case_flip(key, old, None)))
            continue
        paired += 1
        overall.add(_case_unit(old.row), _case_unit(now.row))
        if old.row.status != now.row.status:
            flips.append((old.order, 0, _case_flip(key, old, now)))
        old_units, new_units = _units_of(old.row), _units_of(now.row)
        for index, (unit_key, unit) in enumerate({**old_units, **new_units}.items(), 1):
            a, b = old_units.get(unit_key), new_units.get(unit_key)
            if a is not None and b is not None:
                tallies.setdefault(unit.name, _Tally()).add(a, b)
            status_a = _ABSENT if a is None else a.status
            status_b = _ABSENT if b is None else b.status
            if status_a != status_b:
                flip = Flip(
                    key,
                    unit.name,
                    status_a,
                    status_b,
                    None if a is None else a.evidence,
                    None if b is None else b.evidence,
                    unit_key[1],
                )
                flips.append((old.order, index, flip))
    unpaired_new = [(key, case) for key, case in after.items() if key not in before]
    for key, case in unpaired_new:
        flips.append((len(base_rows) + case.order, 0, _case_flip(key, None, case)))

    names = sorted(tallies)
    family = [overall, *(tallies[n] for n in names)]
    tests = [mcnemar(t.worse, t.better) for t in family]
    counted = [i for i, t in enumerate(family) if t.pairs]  # the tests Holm adjusts together
    adjusted = [1.0] * len(family)
    for i, p in zip(counted, holm([tests[i].p_value for i in counted]), strict=True):
        adjusted[i] = p
    changes = [
        _assertion_change(name, tally, test, p, alpha, confidence)
        for name, tally, test, p in zip(["overall", *names], family, tests, adjusted, strict=True)
    ]
    rank = {change: i for i, change in enumerate(CHANGES)}
    flips.sort(key=lambda item: (rank[item[2].change], item[0], item[1]))
    return Comparison(
        assertions=tuple(changes[1:]),
        overall=changes[0],
        flips=tuple(flip for _, _, flip in flips),
        unpaired_base=tuple(key for key in before if key not in after),
        unpaired_new=tuple(key for key, _ in unpaired_new),
        cost=MappingProxyType({"base": _cost(base_rows), "new": _cost(new_rows)}),
        alpha=alpha,
        confidence=confidence,
        max_drop=MappingProxyType(limits),
        paired=paired,
        base_path=base_path,
        new_path=new_path,
        notes=tuple(notes),
    )


def _assertion_change(
    name: str, tally: _Tally, test: McNemar, adjusted: float, alpha: float, confidence: float
) -> AssertionChange:
    base, new = _rate(tally.base, confidence), _rate(tally.new, confidence)
    return AssertionChange(
        name=name,
        base=base,
        new=new,
        drop=base.rate - new.rate,
        test=test,
        adjusted_p=adjusted,
        regressed=adjusted <= alpha and test.worse > test.better,
        flaky=tally.flaky,
        base_counts=MappingProxyType(dict(tally.base)),
        new_counts=MappingProxyType(dict(tally.new)),
        repeated=tally.repeated,
        pairs=tally.pairs,
    )


def _case_unit(row: Row) -> _Unit:
    return _Unit("overall", row.status, flaky=row.flaky)


def _case_flip(key: Key, old: _Case | None, new: _Case | None) -> Flip:
    return Flip(
        key,
        None,
        _ABSENT if old is None else old.row.status,
        _ABSENT if new is None else new.row.status,
        None if old is None else old.evidence(),
        None if new is None else new.evidence(),
    )


def _suite_notes(
    base: Sequence[Row],
    base_places: Sequence[str],
    base_name: str,
    new: Sequence[Row],
    new_places: Sequence[str],
    new_name: str,
) -> list[str]:
    """The notes of suites only one run has; runs that share no suite are a `CompareError`."""
    old, now = _suites(base), _suites(new)
    if old and now and not set(old) & set(now):
        suite, index = next(iter(now.items()))
        raise CompareError(
            f"{new_places[index]}: suite {suite!r} is not a suite of {base_name} (its suites: "
            f"{', '.join(map(repr, old))}): the runs share no suite, so nothing pairs; compare "
            "two runs of the same suite"
        )
    notes = []
    for suite in old:
        if suite not in now:
            notes.append(f"suite {suite!r} is only in {base_name}: its cases are unpaired")
    for suite in now:
        if suite not in old:
            notes.append(f"suite {suite!r} is only in {new_name}: its cases are unpaired")
    return notes


def _skipped_notes(rows: Sequence[Row], name: str) -> list[str]:
    kinds = Counter(row.kind for row in rows)
    said = []
    if kinds["unreadable"]:
        n = kinds["unreadable"]
        said.append(f"{n} unreadable log line{'s' if n != 1 else ''}")
    if kinds["unmatched"]:
        n = kinds["unmatched"]
        said.append(f"{n} subject{'s' if n != 1 else ''} that matched no case")
    if not said:
        return []
    return [f"{name}: {' and '.join(said)}, not compared (no case outcome to pair)"]


def _cost(rows: Sequence[Row]) -> Mapping[str, Any]:
    """What checking a run's cases cost: the judge (where rows carry it) and the time."""
    from chatassert._judging import JudgeCosts

    cases = [row for row in rows if row.kind == "case"]
    judge: JudgeCosts | None = None
    for row in cases:
        if row.cost is not None:
            judge = judge or JudgeCosts()
            judge.add(row.cost)
    durations = sorted(row.duration for row in cases if row.duration > 0)
    seconds = None
    if durations:
        seconds = {
            "total": math.fsum(durations),
            "median": statistics.median(durations),
            "p95": durations[max(0, math.ceil(0.95 * len(durations)) - 1)],
        }
    return MappingProxyType(
        {
            "cases": len(cases),
            "judge": None if judge is None else judge.to_dict(),
            "seconds": seconds,
        }
    )


# -- reports ---------------------------------------------------------------------------------


def render_comparison(comparison: Comparison, format: str, *, fail_on: Collection[str] = ()) -> str:
    """The comparison as a report: `text` (flips first, then a table per assertion, the
    overall, the unpaired cases, cost and time side by side), `json` (one document:
    docs/gate-a-change.md gives its schema), `junit` (a test case for the overall and for each
    assertion that regressed or that a gate names) or `html` (one self-contained page: the
    two runs side by side, flips first, filterable).

    Args:
        comparison: What `compare` gave.
        format: One of `FORMATS`.
        fail_on: The gates applied (`Comparison.failed`), which the reports state with their
            verdict; the `max_drop` limits are the comparison's own.

    Raises:
        ValueError: when `format` is not one of `FORMATS`, or a gate is unknown.
    """
    if format not in FORMATS:
        raise ValueError(
            f"unknown comparison format {format!r} (the formats: {', '.join(FORMATS)})"
        )
    from chatassert import _compare_render

    gate = _compare_render.Gate(
        tuple(fail_on), comparison.max_drop, tuple(comparison._reasons(fail_on, {}))
    )
    if format == "html":
        from chatassert._compare_html import render_html

        return render_html(comparison, gate)
    render = {
        "text": _compare_render.render_text,
        "json": _compare_render.render_json,
        "junit": _compare_render.render_junit,
    }[format]
    return render(comparison, gate)
