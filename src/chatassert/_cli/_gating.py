"""What decides a `check` run beyond its cases: the suites' gates (`gates:` in a native file),
and `--baseline`: the run compared with an earlier one of the same suite.

The gates count the run's case outcomes as they come (`Summary.tally`, merged across `--jobs`
workers) and are decided once the run is over (`decide_gates`), before the reports end: each
report shows them, and a failed gate fails the run.

With `--baseline BASE` (a JSON report or a `--results` directory of an earlier run), the
baseline is read and checked before any log is (`Baseline.open`: a report of another suite is
a usage error), the suites' `max_drop` gates compare with it, and at the end the run's own JSON
report is read back and compared with it (`chatassert.compare`): as text on the terminal after
the summary, and in `--compare-output FILE`. `--fail-on` and `--max-drop` fail the run as
`chatassert compare` fails.

Docs: docs/offline.md ("Compare with a baseline"), docs/specs.md ("Gates"). Tests:
tests/gates/.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING

from chatassert._cli._options import comparison_gates
from chatassert._gates import with_baseline
from chatassert._suite import Suite
from chatassert.reporting import (
    EXIT_ERRORS,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_USAGE,
    Summary,
)

if TYPE_CHECKING:
    from chatassert._cli._output import Output
    from chatassert.compare import Run

__all__ = [
    "COMPARISON_FORMATS",
    "STRICT_STOP",
    "Baseline",
    "compared",
    "decide_gates",
    "gates_not_decided",
]

COMPARISON_FORMATS = {".json": "json", ".xml": "junit", ".html": "html", ".htm": "html"}
"""The format of `--compare-output`, by the file's extension (`.txt` and others: text)."""

_TEXT_EXTENSIONS = (".txt", ".text", ".log")

STRICT_STOP = "stopped at an unreadable log line (--strict)"
"""Why a run's gates are not decided when `--strict` stopped it."""


def gates_not_decided(summary: Summary, stopped: str | None) -> str | None:
    """Why the run's gates are not decided: it was interrupted, or stopped before the end
    of its logs (`stopped`); None when it ran to the end."""
    if summary.interrupted:
        return "the run was interrupted: gates need every outcome of the run"
    if stopped is not None:
        return f"{stopped}: gates need every outcome of the run"
    return None


def decide_gates(summary: Summary, stopped: str | None = None) -> None:
    """Decide the run's gates (`summary.gates`) from what its tally counted, once: each
    skipped, saying why, when the run did not read its logs to the end (`stopped`)."""
    if summary.tally is None or summary.gates:
        return
    summary.gates = summary.tally.evaluate(gates_not_decided(summary, stopped))


def compared(args: argparse.Namespace) -> bool:
    """Whether the command line compares the run with a baseline, or gives an option of one
    (`Baseline.open` says what is missing)."""
    return bool(args.baseline or args.compare_output or args.fail_on or args.max_drop)


def _comparison_format(path: str) -> str | None:
    """The format `--compare-output PATH` is written in (None: an extension none names)."""
    extension = os.path.splitext(path)[1].lower()
    if extension in COMPARISON_FORMATS:
        return COMPARISON_FORMATS[extension]
    return "text" if extension in _TEXT_EXTENSIONS else None


@dataclass
class Baseline:
    """The earlier run a `check` run is compared with (`--baseline`).

    Attributes:
        path: Where it was read from.
        run: It, read back (`chatassert.compare.read_run`).
        fail_on: The comparison's gates (`--fail-on`).
        max_drop: The largest drops allowed per assertion name (`--max-drop`).
        alpha: The significance level (`--alpha`).
        output: `--compare-output`, with its format.
        report: The run's own JSON report, read back at the end to compare.
        temporary: Whether `report` is a file of this run's own, removed at the end.
    """

    path: str
    run: Run
    fail_on: tuple[str, ...]
    max_drop: dict[str, float]
    alpha: float
    output: tuple[str, str] | None
    report: str = ""
    temporary: bool = False

    @classmethod
    def open(
        cls, args: argparse.Namespace, suites: Sequence[Suite], err: IO[str]
    ) -> Baseline | None:
        """Read `--baseline` and check that it is a run of the suites (before any log is
        read); None after saying on `err` what is wrong: a baseline that cannot be read or
        is of another suite, comparison options without a baseline, a `--compare-output`
        whose extension names no format."""
        prog = "chatassert check"
        given = [
            option
            for option, value in (
                ("--compare-output", args.compare_output),
                ("--fail-on", args.fail_on),
                ("--max-drop", args.max_drop),
            )
            if value
        ]
        if args.baseline is None:
            err.write(f"{prog}: {', '.join(given)}: compare with a run given by --baseline\n")
            return None
        gates = comparison_gates(args, prog, err)
        if gates is None:
            return None
        output = None
        if args.compare_output is not None:
            fmt = _comparison_format(args.compare_output)
            if fmt is None:
                err.write(
                    f"{prog}: --compare-output {args.compare_output}: name it .json, .xml "
                    "(JUnit), .html or .txt: its extension is its format\n"
                )
                return None
            output = (args.compare_output, fmt)
        from chatassert.compare import CompareError, read_run

        try:
            run = read_run(args.baseline)
        except CompareError as exc:
            err.write(f"{prog}: --baseline: {exc}\n")
            return None
        names = [suite.name for suite in suites]
        if not set(names) & set(run.suites):
            ours = ", ".join(repr(n) for n in names)
            theirs = ", ".join(repr(n) for n in run.suites) or "none"
            err.write(
                f"{prog}: --baseline {args.baseline} is a run of another suite (its suites: "
                f"{theirs}; this run's: {ours}): compare two runs of one suite\n"
            )
            return None
        return cls(args.baseline, run, gates[0], gates[1], args.alpha, output)

    def bind(self, suites: Sequence[Suite]) -> list[Suite]:
        """The suites with their `max_drop` gates given the baseline's counts."""
        return [with_baseline(suite, self.run.rows, self.path) for suite in suites]

    def report_to(
        self, outputs: tuple[tuple[str, str | None], ...]
    ) -> tuple[tuple[str, str | None], ...]:
        """The run's reports, with a JSON report to compare: the one the run writes to a
        file, else one of its own (a temporary file, removed by `close`)."""
        for fmt, path in outputs:
            if fmt == "json" and path is not None:
                self.report = path
                return outputs
        handle, self.report = tempfile.mkstemp(prefix="chatassert-run-", suffix=".jsonl")
        os.close(handle)
        self.temporary = True
        return (*outputs, ("json", self.report))

    def shown(
        self, outputs: tuple[tuple[str, str | None], ...]
    ) -> tuple[tuple[str, str | None], ...]:
        """The reports to name as written: all but the run's own temporary one."""
        return tuple(o for o in outputs if not (self.temporary and o[1] == self.report))

    def close(self) -> None:
        """Remove the run's temporary JSON report, if it made one."""
        if self.temporary:
            with contextlib.suppress(OSError):
                os.unlink(self.report)
            self.temporary = False

    def compare(self, code: int, shown: Output | IO[str] | None, err: IO[str]) -> int:
        """Compare the run (its JSON report, read back) with the baseline: the comparison as
        text to `shown` (where the terminal's summary went; None: nowhere, `-q`), and to
        `--compare-output`; return the run's exit code `code` with the comparison's gates
        applied (a failed one: 1). A run that ended without a report is not compared."""
        prog = "chatassert check"
        if code not in (EXIT_OK, EXIT_FAILED, EXIT_ERRORS):
            why = {EXIT_NOTHING: "nothing was checked", EXIT_INTERRUPTED: "it was interrupted"}
            err.write(
                f"{prog}: --baseline: the run is not compared: "
                f"{why.get(code, 'it stopped before the end of its logs')}\n"
            )
            return code
        from chatassert.compare import CompareError, compare, read_run, render_comparison

        try:
            new = read_run(self.report)
            if self.temporary:  # a file of its own, removed at the end: named as what it is
                new = replace(new, path="this run")
            comparison = compare(self.run, new, alpha=self.alpha, max_drop=self.max_drop)
            reasons = comparison.failed(self.fail_on, {})
            text = render_comparison(comparison, "text", fail_on=self.fail_on)
            written = None
            if self.output is not None:
                written = render_comparison(comparison, self.output[1], fail_on=self.fail_on)
        except (CompareError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            err.write(f"{prog}: --baseline {self.path}: cannot compare: {message}\n")
            return EXIT_USAGE
        if shown is not None:
            shown.write("\n" + text.rstrip("\n") + "\n")
        if written is not None and self.output is not None:
            try:
                with open(self.output[0], "w", encoding="utf-8") as stream:
                    stream.write(written)
            except OSError as exc:
                err.write(f"cannot write {self.output[0]}: {exc.strerror or exc}\n")
                return EXIT_USAGE
        if comparison.paired == 0:  # nothing to compare: never taken for a comparison passed
            err.write(
                f"{prog}: --baseline: nothing was paired: no case of {self.path} is in this run "
                "(cases pair by suite, case and subject id)\n"
            )
            return EXIT_NOTHING if code != EXIT_FAILED else code
        if reasons and code != EXIT_FAILED:
            return EXIT_FAILED
        return code
