"""The local run of `chatassert check`: the checked items counted, written to the reports
and listed on stderr as they come, until the logs end, `--max-failures` or `--strict` stops
the run, or Ctrl-C does (the report then partial, and saying so).
"""

from __future__ import annotations

import argparse
from typing import IO

from chatassert._cli._engine import checked_items, log_bytes, paired
from chatassert._cli._gating import STRICT_STOP
from chatassert._cli._interrupts import Interrupts
from chatassert._cli._messages import LISTED, failures_reached, say_listed, say_strict_stop
from chatassert._cli._output import Reports, case_tags, finish_reports, report_writer
from chatassert._cli._plan import Folded, LogError, Meter, Plan, make_checker
from chatassert._cli._progress import Progress
from chatassert._gates import gate_tally
from chatassert._suite import Suite
from chatassert.records import (
    Checker,
    RecordEnd,
    ReportWriter,
)
from chatassert.reporting import (
    EXIT_FAILED,
    EXIT_USAGE,
    Summary,
)


def run_local(
    plan: Plan,
    suites: list[Suite],
    files: list[str],
    args: argparse.Namespace,
    max_failures: int | None,
    reports: Reports,
    err: IO[str],
) -> int:
    """Check the logs in this process (or its `--jobs` workers) and write the reports; return
    the exit code. Ctrl-C is answered between records (`Interrupts`)."""
    interrupts = Interrupts()
    try:
        return _run_until_done(plan, suites, files, args, max_failures, reports, err, interrupts)
    finally:
        interrupts.restore()


def _run_until_done(
    plan: Plan,
    suites: list[Suite],
    files: list[str],
    args: argparse.Namespace,
    max_failures: int | None,
    reports: Reports,
    err: IO[str],
    interrupts: Interrupts,
) -> int:
    """Check the logs and write the report: whole, or, when interrupted, partial (exit 130)."""
    summary = Summary(keep=args.show, records=0, tally=gate_tally(suites))
    writer = report_writer(plan, reports, args, case_tags(suites))
    meter = Meter(None if plan.group_by is not None else log_bytes(files))
    progress = Progress(err, args.progress, meter)
    stopped: str | None = None
    checker = make_checker(plan, suites)
    batches = paired(checker, checked_items(plan, suites, files, args.jobs, meter))
    try:
        while not stopped:
            interrupts.arm()
            items = next(batches, None)
            interrupts.armed = False
            if items is None:
                break
            if isinstance(items, Folded):
                for folded in items.rows:
                    summary.add_row(folded)
                    say_listed(folded, summary, err)
                summary.merge(items.summary)
                for fmt, text in items.text.items():
                    writer.outputs[fmt].write(text)
                progress.update(summary, summary.records or 0)
                interrupts.check()
                continue
            for row in items:
                if isinstance(row, RecordEnd):
                    summary.records = (summary.records or 0) + 1
                    continue
                kind = row.kind
                summary.add_row(row)
                writer.add(row)
                if kind == "case":
                    stopped = failures_reached(summary, max_failures)
                    if stopped:  # the record of this case was read, if not to its end
                        summary.records = (summary.records or 0) + 1
                        break
                elif kind == "unreadable" and args.strict:
                    progress.close()  # stop, but leave a complete report of what was read
                    say_strict_stop(row, err)
                    finish_reports(plan, summary, writer, args, files, STRICT_STOP)
                    return EXIT_USAGE
                else:
                    say_listed(row, summary, err)
            progress.update(summary, summary.records or 0)
            interrupts.check()
    except KeyboardInterrupt:
        interrupts.armed = False  # a second Ctrl-C does not cut the partial report short
        progress.close()
        batches.close()  # stops the worker processes, if any
        summary.interrupted = True
        err.write(f"{summary.notice}\n")
        # SIGINT is only noted while it is written
        finish_reports(plan, summary, writer, args, files)
        return summary.exit_code()
    except LogError as exc:
        progress.close()
        err.write(f"{exc}\n")
        return EXIT_USAGE
    progress.close(summary, summary.records or 0)
    return end_run(plan, checker, summary, writer, args, files, stopped, err)


def end_run(
    plan: Plan,
    checker: Checker,
    summary: Summary,
    writer: ReportWriter,
    args: argparse.Namespace,
    files: list[str],
    stopped: str | None,
    err: IO[str],
) -> int:
    """End a run that read its logs (to their end, or until `stopped` says why not): what
    was not listed, the expect tests no record answered, the reports; the exit code."""
    for what, count in (
        ("unreadable lines", summary.unreadable_count),
        ("unmatched subjects", summary.unmatched),
    ):
        if count > LISTED:
            err.write(f"… and {count - LISTED} more {what} (only the first {LISTED} are listed)\n")
    if stopped:
        err.write(stopped + "\n")
    elif summary.records:  # with nothing read, that is the one thing to say
        for row in checker.unanswered(summary):
            summary.add_row(row)
            if row.status == "error":
                err.write(f"{row.suite}: test {row.subject_id!r} has no response in the logs\n")
            writer.add(row)
    if summary.notice is not None and not stopped:  # nothing was checked: say why (G17)
        err.write(f"{summary.notice}\n")
    finish_reports(plan, summary, writer, args, files, stopped)
    return EXIT_FAILED if stopped else summary.exit_code()
