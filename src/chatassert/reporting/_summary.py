"""The summary of a run: outcomes as they are produced, counts, exit codes, the text rendering."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from chatassert._jsonlines import escape_for_lines
from chatassert._judging import JudgeCosts
from chatassert._result import Result, Status, shorten, strict_json
from chatassert.reporting._words import counted, number

if TYPE_CHECKING:
    from chatassert._gates import GateTally
    from chatassert._rows import Row

__all__ = [
    "EXIT_ERRORS",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_USAGE",
    "Outcome",
    "Summary",
    "assertion_counts",
    "assertion_statuses",
    "cost_text",
    "excerpt",
    "failing_heading",
    "json_line",
    "pass_rate",
    "render_text",
]

EXIT_OK = 0
"""Every check passed."""
EXIT_FAILED = 1
"""At least one check failed."""
EXIT_USAGE = 2
"""The command line or a spec was wrong; nothing was checked."""
EXIT_ERRORS = 3
"""Nothing failed, but something could not be evaluated (a log line could not be read, or a
subject matched no case) beside the cases that were checked."""
EXIT_NOTHING = 4
"""Nothing was checked: no case was checked against any subject (the logs held no records,
every record was unreadable, or no subject matched a case; G17)."""
EXIT_INTERRUPTED = 130
"""The run was interrupted (Ctrl-C, SIGINT) and its report is partial: 128 + SIGINT, as shells
report a program that SIGINT ended."""

NOTHING_READ = (
    "nothing was checked: the logs held no records (an empty log, or empty standard input)"
)

_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone surrogate cannot be written as UTF-8


def json_line(value: Any) -> str:
    r"""Render `value` as one line of JSON, newline included, non-ASCII text kept as it is.

    A lone surrogate (JSON `"\ud800"` in a log) cannot be written as UTF-8; it is written as
    its `\uXXXX` escape, so the line still reads back as the same value. So are NEL, U+2028
    and U+2029, at which `str.splitlines()` would cut the line. An infinite or NaN
    number is written as the string `"Infinity"`, `"-Infinity"` or `"NaN"`.

    Example:
        >>> json_line({"text": "café", "odd": "\ud800"})
        '{"text": "café", "odd": "\\ud800"}\n'
    """
    try:  # strict JSON: `NaN` and `Infinity` are not JSON, and strict readers refuse them
        text = json.dumps(value, ensure_ascii=False, default=repr, allow_nan=False)
    except ValueError:
        text = json.dumps(strict_json(value), ensure_ascii=False, default=repr)
    return escape_for_lines(text) + "\n"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One case checked against one subject.

    Attributes:
        suite: The suite's name.
        case: The case's name.
        result: The case's result tree.
        source: Where the subject came from (`log.jsonl:12`).
        subject_id: The conversation's or response's id, when it has one.
        excerpt: A short rendering of the transcript, kept for failing outcomes' reports.
        recorded: For a recording that carries verdicts of its own (a PromptKit run), each
            recorded verdict beside chatassert's (`recorded_verdicts`).
        disagreements: Those of them where the two verdicts differ.
        cost: What judging this case cost (`JudgeCosts.to_dict()`), when a judge was used.
        matched_by: Why the subject was checked against this case, when it is known: `id`,
            `case field`, `inputs`, `single case` or `every subject` (`Suite.match` says what
            each means).
        match_note: What the pairing leaves to notice, when anything (a one-case suite
            checking a conversation whose id is not the case's).
    """

    suite: str
    case: str
    result: Result
    source: str = ""
    subject_id: str | None = None
    excerpt: str | None = None
    recorded: tuple[dict[str, Any], ...] | None = None
    disagreements: tuple[dict[str, Any], ...] | None = None
    cost: dict[str, Any] | None = None
    matched_by: str | None = None
    match_note: str | None = None

    @property
    def seconds(self) -> float:
        """Time spent checking: the sum of the measured durations of the assertions."""
        if self.result.duration is not None:
            return self.result.duration
        return sum(r.duration for r in self.result.leaves() if r.duration is not None)

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """Return the JSON form: the identifying fields and the whole result tree (and, for a
        recording with verdicts of its own, `recorded` and `disagreements`).

        With `compact=True` the tree is `compact_result`'s: every node's status, but reasons
        and details only where a node did not pass (the JSON report's default form).
        """
        if compact:
            from chatassert.reporting._json import compact_result

            tree = compact_result(self.result)
        else:
            tree = self.result.to_dict()
        out: dict[str, Any] = {
            "suite": self.suite,
            "case": self.case,
            "source": self.source,
            "subject_id": self.subject_id,
            "result": tree,
        }
        if self.recorded is not None:
            out["recorded"] = list(self.recorded)
            out["disagreements"] = list(self.disagreements or ())
        if self.cost is not None:
            out["cost"] = dict(self.cost)
        if self.matched_by is not None:
            out["matched_by"] = self.matched_by
        if self.match_note is not None:
            out["match_note"] = self.match_note
        return out


@dataclass
class Summary:
    """Counts and examples accumulated from outcomes, in constant memory per assertion.

    Attributes:
        counts: Case outcomes by status.
        per_assertion: For each assertion label, its outcomes by status.
        per_case: For each `suite / case`, its outcomes by status.
        failures: The first failing or erroring outcomes (up to `keep`).
        unreadable: Log lines that could not be read, as `(where, error)` (up to `keep`).
        unreadable_count: How many lines could not be read.
        unmatched: How many subjects had no case to check them against.
        unmatched_ids: The ids of the first of them that have one (up to `keep`).
        unanswered: How many case outcomes are of tests no record answered (an expect test
            with no response in the logs: a case row without a source), not checks of a
            subject.
        keep: How many examples to keep.
        records: How many log records (non-blank lines) were read, when the reader counts them.
        interrupted: Whether the run was interrupted before it read every record.
        disagreements: Where chatassert's verdict differs from the one a recording carries,
            as `(case and source, what differs)` (up to `keep`).
        disagreement_count: How many such differences there were.
        flaky: How many case outcomes hold a check whose repeated verdicts were flaky.
        costs: What judging cost over the run (requests, cached, avoided, tokens, cost).
        answered: The `(suite, case)` of every case outcome counted from a row (`add_row`):
            what tells which JSON-response tests no record answered.
        tally: What the suites' gates count (`chatassert._gates.GateTally`), when a suite of
            the run has gates: per gated suite, its case outcomes and those of the assertions
            its gates name; merged with the counts.
        gates: The results of the suites' gates (`GateTally.evaluate`), once the run is
            over: reported after the cases; a failed one fails the run (`exit_code`).
    """

    counts: Counter[str] = field(default_factory=Counter)
    per_assertion: dict[str, Counter[str]] = field(default_factory=dict)
    per_case: dict[str, Counter[str]] = field(default_factory=dict)
    failures: list[Outcome] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    unreadable_count: int = 0
    unmatched: int = 0
    unmatched_ids: list[str] = field(default_factory=list)
    unanswered: int = 0
    keep: int = 20
    records: int | None = None
    interrupted: bool = False
    disagreements: list[tuple[str, str]] = field(default_factory=list)
    disagreement_count: int = 0
    flaky: int = 0
    costs: JudgeCosts = field(default_factory=JudgeCosts)
    answered: set[tuple[str, str]] = field(default_factory=set)
    tally: GateTally | None = None
    gates: list[Result] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        """Count one outcome and keep it as an example if it did not pass."""
        from chatassert._judged import is_flaky

        status = outcome.result.status
        self.count(
            outcome.suite,
            outcome.case,
            status.value,
            [(label, s.value) for label, s in assertion_statuses(outcome.result)],
            flaky=is_flaky(outcome.result),
            cost=outcome.cost,
        )
        if status in (Status.FAILED, Status.ERROR) and len(self.failures) < self.keep:
            self.failures.append(outcome)

    def count(
        self,
        suite: str,
        case: str,
        status: str,
        assertions: Iterable[tuple[str, str]],
        *,
        flaky: bool = False,
        cost: Mapping[str, Any] | None = None,
    ) -> None:
        """Count one case outcome from its status and its assertions' `(label, status)` (and
        whether it was flaky, and what its judging cost)."""
        self.counts[status] += 1
        if flaky:
            self.flaky += 1
        if cost is not None:
            self.costs.add(cost)
        key = f"{suite} / {case}"
        per_case = self.per_case.get(key)
        if per_case is None:
            per_case = self.per_case[key] = Counter()
        per_case[status] += 1
        if self.tally is not None:
            assertions = list(assertions)
            self.tally.add(suite, status, assertions)
        per_assertion = self.per_assertion
        for label, leaf_status in assertions:
            counter = per_assertion.get(label)
            if counter is None:
                counter = per_assertion[label] = Counter()
            counter[leaf_status] += 1

    def add_row(self, row: Row) -> None:
        """Count one `chatassert.records.Row`: a case outcome (its disagreements with a
        recording first; it is kept as an example if it did not pass and carries its outcome
        or its tree), an unreadable record (its error, `unreadable` when it has none) or an
        unmatched one."""
        kind = row.kind
        if kind == "case":
            suite, case = cast(str, row.suite), cast(str, row.case)  # a case row names both
            self.answered.add((suite, case))
            if not row.source:  # only a test no record answered has no source
                self.unanswered += 1
            for text in row.disagreements:
                self.add_disagreement(f"{suite} / {case} ({row.source})", text)
            outcome = row.outcome
            failing = row.status in ("failed", "error")
            if outcome is None and failing and len(self.failures) < self.keep:
                outcome = row.to_outcome()
            if outcome is not None:
                self.add(outcome)
            else:
                self.count(suite, case, row.status, row.assertions, flaky=row.flaky, cost=row.cost)
        elif kind == "unreadable":
            self.add_unreadable(row.source, row.error if row.error is not None else "unreadable")
        else:
            self.unmatched += 1
            if row.subject_id is not None and len(self.unmatched_ids) < self.keep:
                self.unmatched_ids.append(row.subject_id)

    def merge(self, other: Summary) -> Summary:
        """Add another summary's counts to this one (a partition's: the order of merging
        changes only which examples are kept, never a count). Returns `self`.

        Example:
            >>> from chatassert import Contains
            >>> a, b = Summary(records=2), Summary(records=3, unmatched=1)
            >>> a.add(Outcome("s", "c", Contains("a").check("a"), "log:1"))
            >>> a.merge(b).records, a.unmatched, a.exit_code()
            (5, 1, 3)
        """
        self.counts.update(other.counts)
        for mine, theirs in (
            (self.per_assertion, other.per_assertion),
            (self.per_case, other.per_case),
        ):
            for key, counter in theirs.items():
                mine.setdefault(key, Counter()).update(counter)
        self.failures.extend(other.failures[: max(0, self.keep - len(self.failures))])
        self.unreadable.extend(other.unreadable[: max(0, self.keep - len(self.unreadable))])
        self.unreadable_count += other.unreadable_count
        self.unmatched += other.unmatched
        self.unmatched_ids.extend(
            other.unmatched_ids[: max(0, self.keep - len(self.unmatched_ids))]
        )
        self.unanswered += other.unanswered
        if other.records is not None:
            self.records = (self.records or 0) + other.records
        self.interrupted = self.interrupted or other.interrupted
        self.disagreements.extend(
            other.disagreements[: max(0, self.keep - len(self.disagreements))]
        )
        self.disagreement_count += other.disagreement_count
        self.flaky += other.flaky
        self.costs.add(other.costs)
        self.answered |= other.answered
        if other.tally is not None:
            if self.tally is None:
                self.tally = other.tally.empty()
            self.tally.merge(other.tally)
        self.gates.extend(other.gates)
        return self

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data (`from_dict` reads it back): counts, examples with
        their whole result trees, and the cases answered; the gates' tally and results, when
        it has them.

        Example:
            >>> from chatassert import Contains
            >>> s = Summary(records=1)
            >>> s.add(Outcome("s", "c", Contains("a").check("b"), "log:1"))
            >>> again = Summary.from_dict(json.loads(json.dumps(s.to_dict())))
            >>> again.counts == s.counts, again.failures[0].result == s.failures[0].result
            (True, True)
        """
        return {
            "counts": dict(self.counts),
            "per_assertion": {k: dict(v) for k, v in self.per_assertion.items()},
            "per_case": {k: dict(v) for k, v in self.per_case.items()},
            "failures": [{**o.to_dict(), "excerpt": o.excerpt} for o in self.failures],
            "unreadable": [list(pair) for pair in self.unreadable],
            "unreadable_count": self.unreadable_count,
            "unmatched": self.unmatched,
            "unmatched_ids": list(self.unmatched_ids),
            "unanswered": self.unanswered,
            "keep": self.keep,
            "records": self.records,
            "interrupted": self.interrupted,
            "disagreements": [list(pair) for pair in self.disagreements],
            "disagreement_count": self.disagreement_count,
            "flaky": self.flaky,
            "costs": self.costs.to_dict(),
            "answered": sorted(list(pair) for pair in self.answered),
            **({"tally": self.tally.to_dict()} if self.tally is not None else {}),
            **({"gates": [r.to_dict() for r in self.gates]} if self.gates else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        """Read back what `to_dict` gave."""
        failures = [
            Outcome(
                f["suite"],
                f["case"],
                Result.from_dict(f["result"]),
                f.get("source", ""),
                f.get("subject_id"),
                excerpt=f.get("excerpt"),
                recorded=tuple(f["recorded"]) if f.get("recorded") is not None else None,
                disagreements=(
                    tuple(f["disagreements"]) if f.get("recorded") is not None else None
                ),
                cost=f.get("cost"),
                matched_by=f.get("matched_by"),
                match_note=f.get("match_note"),
            )
            for f in data.get("failures", ())
        ]
        costs = JudgeCosts()
        costs.add(data.get("costs") or {})
        if (data.get("costs") or {}).get("cost") is None:
            costs.cost = None
        return cls(
            counts=Counter(data.get("counts") or {}),
            per_assertion={k: Counter(v) for k, v in (data.get("per_assertion") or {}).items()},
            per_case={k: Counter(v) for k, v in (data.get("per_case") or {}).items()},
            failures=failures,
            unreadable=[(w, e) for w, e in data.get("unreadable", ())],
            unreadable_count=int(data.get("unreadable_count", 0)),
            unmatched=int(data.get("unmatched", 0)),
            unmatched_ids=[str(i) for i in data.get("unmatched_ids", ())],
            unanswered=int(data.get("unanswered", 0)),
            keep=int(data.get("keep", 20)),
            records=data.get("records"),
            interrupted=bool(data.get("interrupted", False)),
            disagreements=[(w, t) for w, t in data.get("disagreements", ())],
            disagreement_count=int(data.get("disagreement_count", 0)),
            flaky=int(data.get("flaky", 0)),
            costs=costs,
            answered={(s, c) for s, c in data.get("answered", ())},
            tally=_tally(data.get("tally")),
            gates=[Result.from_dict(r) for r in data.get("gates", ())],
        )

    @property
    def failing(self) -> int:
        """How many case outcomes failed."""
        return self.counts["failed"]

    def add_unreadable(self, where: str, error: str) -> None:
        """Count a log line that could not be read."""
        self.unreadable_count += 1
        if len(self.unreadable) < self.keep:
            self.unreadable.append((where, error))

    def add_disagreement(self, where: str, text: str) -> None:
        """Count a verdict that differs from the recorded one (`where`: suite, case, source)."""
        self.disagreement_count += 1
        if len(self.disagreements) < self.keep:
            self.disagreements.append((where, text))

    @property
    def total(self) -> int:
        """How many case outcomes were counted."""
        return sum(self.counts.values())

    @property
    def checked(self) -> int:
        """How many case outcomes checked a subject: every one but those of tests no record
        answered (`unanswered`)."""
        return self.total - self.unanswered

    @property
    def notice(self) -> str | None:
        """What a report must say before its counts: that the run was interrupted, or that it
        checked nothing and why (G17); None for a run that checked a case against a subject.

        Example:
            >>> Summary(records=0).notice
            'nothing was checked: the logs held no records (an empty log, or empty standard input)'
            >>> Summary(records=63, unreadable_count=63).notice
            'nothing was checked: 63 unreadable log lines, 0 conversations read'
            >>> Summary(records=3, unmatched=3, unmatched_ids=["a", "b", "c"]).notice
            'nothing was checked: 3 conversations matched no case of the suite (ids: a, b, c)'
            >>> Summary(records=12, interrupted=True).notice
            'interrupted after 12 log records (0 cases checked): this report is partial'
        """
        if self.interrupted:
            read = "" if self.records is None else f" after {counted(self.records, 'log record')}"
            checked = counted(self.total, "case")
            return f"interrupted{read} ({checked} checked): this report is partial"
        if self.records == 0:
            return NOTHING_READ
        if self.checked:
            return None
        return "nothing was checked" + self._why_nothing()

    def _why_nothing(self) -> str:
        """Why a run that read records checked no case against them (`: ...`), or nothing
        to add when it read none either."""
        from chatassert.reporting._words import counted, number

        parts: list[str] = []
        subject = "response" if self.unanswered else "conversation"  # tests of responses
        if self.unmatched:
            part = f"{counted(self.unmatched, subject)} matched no case of the suite"
            if self.unmatched_ids:
                shown = self.unmatched_ids[:5]
                ids = ", ".join(shorten(i, 40) for i in shown)
                if self.unmatched > len(shown):
                    ids += f", … and {number(self.unmatched - len(shown))} more"
                part += f" (ids: {ids})"
            parts.append(part)
        others = (self.records or 0) - self.unreadable_count - self.unmatched
        if self.unreadable_count:
            part = counted(self.unreadable_count, "unreadable log line")
            if not self.unmatched and others <= 0:
                part += f", 0 {subject}s read"
            parts.append(part)
        if self.unanswered:
            parts.append(f"{counted(self.unanswered, 'test')} with no response in the logs")
        if others > 0 and not self.unanswered:  # read, matched, and yet not checked
            parts.append(
                f"{counted(others, 'log record')} read matched only cases left out (by -k, "
                "--tag or a selection of the cases)"
            )
        return ": " + "; ".join(parts) if parts else ""

    def exit_code(self) -> int:
        """130 interrupted, 4 nothing checked (G17: no case was checked against any subject),
        1 something failed (a case, or a suite's gate), 3 errors only (unevaluable checks or
        gates, unreadable lines, or subjects no case matched, beside checked cases), 0 all
        passed."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.notice is not None:
            return EXIT_NOTHING
        gates = {r.status for r in self.gates}
        if self.counts["failed"] or Status.FAILED in gates:
            return EXIT_FAILED
        if self.counts["error"] or self.unreadable_count or self.unmatched or Status.ERROR in gates:
            return EXIT_ERRORS
        return EXIT_OK


def _tally(data: Mapping[str, Any] | None) -> GateTally | None:
    """The gates' tally of `Summary.to_dict`'s data, when it has one."""
    if data is None:
        return None
    from chatassert._gates import GateTally

    return GateTally.from_dict(data)


def assertion_statuses(result: Result) -> Iterable[tuple[str, Status]]:
    """Yield `(label, status)` for each assertion of a case result (turn and step groups
    unwrapped)."""
    for child in result.children:
        if child.name in ("turn", "step") and child.children:
            for leaf in child.children:
                yield leaf.label, leaf.status
        else:
            yield child.label, child.status


def render_text(
    summary: Summary, *, max_failures: int = 10, verbose: bool = False, width: int = 120
) -> str:
    """Render a terminal summary: counts, a table per assertion, then the first failures.

    The result trees of the failures are wrapped at `width` (under their own indent, two more
    for the lines they continue), never cut in the middle; only a line longer than `LONGEST`
    characters keeps its start and end around a cut. A differing verdict or an unreadable
    line stays on one line (`- file:line: ...`), for grep.
    """
    lines: list[str] = []
    c = summary.counts
    head = (
        f"{number(summary.total)} checked: {number(c['passed'])} passed, "
        f"{number(c['failed'])} failed, {counted(c['error'], 'error')}, "
        f"{number(c['skipped'])} skipped"
    )
    if summary.flaky:
        head += f"; {number(summary.flaky)} flaky"
    if summary.unreadable_count:
        head += f"; {counted(summary.unreadable_count, 'unreadable log line')}"
    if summary.unmatched:
        head += f"; {number(summary.unmatched)} without a matching case"
    if summary.disagreement_count:
        n = summary.disagreement_count
        head += f"; {counted(n, 'verdict differs', 'verdicts differ')} from the recording's"
    notice = summary.notice
    if notice is not None and not summary.interrupted:
        head = notice  # "0 checked" would read as a run that checked something
    elif notice is not None:
        head += "\n" + notice
    if summary.per_assertion:
        lines.append("per assertion:")
        width_label = min(48, max(len(k) for k in summary.per_assertion))
        for label, counts in sorted(summary.per_assertion.items()):
            lines.append(f"  {shorten(label, 48):<{width_label}}  {assertion_counts(counts)}")
    if summary.failures:
        lines.append("")
        shown = summary.failures[:max_failures]
        lines.append(failing_heading(len(shown), c["failed"] + c["error"]) + ":")
        for outcome in shown:
            where = outcome.source or outcome.subject_id or ""
            if outcome.matched_by not in (None, "every subject"):  # --assert: every one
                where += f"; matched by {outcome.matched_by}"
            lines.append(f"- {outcome.suite} / {outcome.case} ({where})")
            if outcome.match_note is not None:
                lines.append(f"  note: {outcome.match_note}")
            if outcome.cost is not None:
                lines.append("  " + cost_text(outcome.cost))
            body = outcome.result.render(verbose=verbose, width=LONGEST)
            for line in body.splitlines()[1:] or body.splitlines():
                lines.extend(wrap("  " + line, width))
    if summary.disagreements:
        lines.append("")
        lines.append("verdicts that differ from the recording's:")
        lines.extend(f"- {where}: {text}" for where, text in summary.disagreements)
    if summary.unreadable:
        lines.append("")
        lines.append("unreadable log lines:")
        lines.extend(f"- {where}: {error}" for where, error in summary.unreadable)
    if summary.gates:  # what the suites require of the whole run (chatassert._gates)
        from chatassert.reporting._gate_reports import gate_head, gate_line

        lines.append("")
        lines.append("gates:")
        lines.extend(part for gate in summary.gates for part in wrap(gate_line(gate), width))
        head += gate_head(summary.gates)
    lines.append("")
    if summary.costs.used:
        lines.append(cost_text(summary.costs.to_dict()))
    lines.append(head)
    return _SURROGATE.sub("\ufffd", "\n".join(lines))


def assertion_counts(counts: Mapping[str, int]) -> str:
    """One row of the per-assertion table after its label: the pass rate, then how many passed
    of those evaluated, and how many failed, could not be evaluated, or were skipped.

    Example:
        >>> assertion_counts({"passed": 1, "failed": 0, "error": 1, "skipped": 0})
        ' 50.0% passed  (1/2, 1 error)'
        >>> assertion_counts({"passed": 0, "failed": 0, "error": 0, "skipped": 1200})
        '     — passed  (0/0, 1,200 skipped)'
    """
    rate = pass_rate(counts)
    passed, failed = counts.get("passed", 0), counts.get("failed", 0)
    errors, skipped = counts.get("error", 0), counts.get("skipped", 0)
    text = "     —" if rate is None else f"{rate:6.1%}"
    text += f" passed  ({number(passed)}/{number(passed + failed + errors)}"
    if failed:
        text += f", {number(failed)} failed"
    if errors:
        text += f", {counted(errors, 'error')}"
    if skipped:
        text += f", {number(skipped)} skipped"
    return text + ")"


def failing_heading(shown: int, failing: int) -> str:
    """What introduces the failing cases a report lists: `shown` of the run's `failing`
    (failed or erroring) case outcomes.

    Example:
        >>> failing_heading(1, 1), failing_heading(3, 3), failing_heading(10, 1200)
        ('the failing case', 'the 3 failing cases', 'the first 10 of 1,200 failing cases')
    """
    failing = max(failing, shown)
    if shown == failing:
        return "the failing case" if shown == 1 else f"the {number(shown)} failing cases"
    return f"the first {number(shown)} of {number(failing)} failing cases"


LONGEST = 2000
"""The longest line of a result tree the text report shows whole (wrapped); a longer one (a
reason quoting a whole subject) keeps its start and end around '…'."""


def wrap(line: str, width: int) -> list[str]:
    """Wrap a line at `width` columns under its indent, the lines that continue it two spaces
    further in; a word longer than a line is split across lines, never lost.

    Example:
        >>> for part in wrap("  FAIL contains: Response does not contain 'refund'", 30):
        ...     print(part)
          FAIL contains: Response does
            not contain 'refund'
    """
    if len(line) <= width:
        return [line]
    import textwrap

    indent = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.wrap(
        line.lstrip(" "),
        width=max(width, len(indent) + 20),
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=True,
        break_on_hyphens=False,
        drop_whitespace=True,
    ) or [line]


def cost_text(cost: Mapping[str, Any]) -> str:
    """One line saying what judging cost: requests, cached and avoided verdicts, tokens, cost.

    Example:
        >>> cost_text({"requests": 3, "cached": 1, "avoided": 0, "tokens_in": 900,
        ...            "tokens_out": 60, "cost": 0.00042})
        'judge: 3 requests, 1 from cache, 0 avoided; tokens 900 in, 60 out; cost 0.00042'
    """
    text = (
        f"judge: {counted(cost.get('requests', 0), 'request')}, "
        f"{number(cost.get('cached', 0))} from cache, {number(cost.get('avoided', 0))} avoided; "
        f"tokens {number(cost.get('tokens_in', 0))} in, {number(cost.get('tokens_out', 0))} out"
    )
    if cost.get("cost") is not None:
        text += f"; cost {cost['cost']:.6g}"
    if cost.get("unpriced"):
        text += f" ({counted(cost['unpriced'], 'request')} of models the price table lacks)"
    return text


def pass_rate(counts: Mapping[str, int]) -> float | None:
    """The share of evaluated outcomes that passed; skipped ones were not evaluated.

    None when nothing was evaluated (every outcome skipped, or none).

    Example:
        >>> pass_rate({"passed": 1, "failed": 1, "error": 0, "skipped": 2}), pass_rate({})
        (0.5, None)
    """
    evaluated = counts.get("passed", 0) + counts.get("failed", 0) + counts.get("error", 0)
    return counts.get("passed", 0) / evaluated if evaluated else None


def excerpt(subject: object, *, turns: int = 6, width: int = 240) -> str:
    """Render a short transcript excerpt of a conversation (or a turn, or a JSON value).

    A tool call shows its arguments as JSON; a call whose arguments could not be read shows
    the raw text they were logged as, or nothing when no raw text was kept.

    Example:
        >>> from chatassert import Conversation
        >>> print(excerpt(Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                                      {"role": "assistant", "content": "Hello!"}])))
        user: Hi
        assistant: Hello!
    """
    from chatassert._models import Conversation, Turn

    if isinstance(subject, Turn):
        subject = Conversation.model_construct(
            turns=(subject,), metadata={}, workflow=None, id=None
        )
    if not isinstance(subject, Conversation):
        return shorten(json.dumps(subject, ensure_ascii=False, default=str), width * 2)
    lines: list[str] = []
    for turn in subject.turns[:turns]:
        if turn.input is not None:
            lines.append("user: " + shorten(" ".join(turn.input.split()), width))
        for call in turn.tool_calls:
            args = (
                json.dumps(call.arguments, ensure_ascii=False)
                if not call.arguments_error
                else call.raw_arguments or ""
            )
            lines.append(f"  -> {call.name}({shorten(args, width // 2)})")
        for res in turn.tool_results:
            flag = " [error]" if res.is_error else ""
            lines.append(
                f"  <- {res.name or '?'}{flag}: "
                + shorten(" ".join(res.content.split()), width // 2)
            )
        lines.append("assistant: " + shorten(" ".join(turn.text.split()), width))
    if len(subject.turns) > turns:
        lines.append(f"… {len(subject.turns) - turns} more turns")
    return "\n".join(lines)
