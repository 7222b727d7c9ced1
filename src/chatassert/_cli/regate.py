"""`chatassert regate`: decide the judged checks of a JSON report again with new minimum
scores, and write the new reports (through the same report writer as `check`) and exit code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from chatassert._cli._options import command, flaky_option, quiet_option, report_options
from chatassert._cli._output import (
    Output,
    Reports,
    finish_reports,
    report_outputs,
    report_writer,
    say_written,
    with_summary,
)
from chatassert._cli._plan import Plan
from chatassert._result import Result
from chatassert.records import (
    Row,
)
from chatassert.reporting import (
    EXIT_USAGE,
    REPORT_FORMATS,
    Outcome,
    Summary,
    json_line,
)

REGATE_EXIT_CODES = """\
exit codes:
  0    every case passed with the new thresholds (and every gate of the suite, decided
       again over the new outcomes)
  1    a case failed, or a gate of the suite did
  2    usage error: a bad option, a report that cannot be read or is not a JSON report of
       check (each problem named by its line), an output that cannot be written
  3    nothing failed, but something could not be evaluated: an assertion or a gate errored,
       or the report holds unreadable log lines or conversations that matched no case
  4    nothing was checked: the report holds no case checked against a conversation
  141  the reader of standard output went away (`chatassert regate ... | head`)
"""
"""The exit codes of `regate`, as its help lists them."""


def add_parser(sub: Any) -> None:
    """Add the `regate` command to the subparsers `sub`."""
    regate = command(
        sub,
        "regate",
        help="recompute the statuses of a JSON report with new judged thresholds",
        description="Read a JSON report of check (compact or --full-results), decide its "
        "judged checks again with new minimum scores, recompute every status above them by "
        "its combinator's rule, and write the new reports and exit code; no judge is asked.",
        epilog=REGATE_EXIT_CODES,
    )
    regate.add_argument("report", metavar="REPORT", help="a JSON report (.jsonl), or - for stdin")
    thresholds = regate.add_argument_group("thresholds")
    thresholds.add_argument(
        "--min-score",
        dest="min_scores",
        action="append",
        default=[],
        required=True,
        metavar="NAME=SCORE",
        help="the new threshold of the judged checks named NAME (an assertion's name, else "
        "its kind, such as llm_rubric or llm_judge), SCORE from 0 to 1; repeatable",
    )
    reports = regate.add_argument_group("reports")
    report_options(reports, subjects=False)
    flaky_option(reports)
    quiet_option(reports, progress=False)


def _thresholds(given: Sequence[str], err: IO[str]) -> dict[str, float] | None:
    """`NAME=SCORE` options as a mapping (None after saying what is wrong on `err`)."""
    out: dict[str, float] = {}
    for item in given:
        name, eq, text = item.rpartition("=")
        try:
            score = float(text)
        except ValueError:
            score = -1.0
        if not eq or not name or not 0.0 <= score <= 1.0:
            err.write(
                f"chatassert regate: --min-score {item!r}: expected NAME=SCORE with a SCORE "
                "from 0 to 1 (--min-score llm_rubric=0.8)\n"
            )
            return None
        out[name] = score
    return out


def run(args: argparse.Namespace, out: Output, err: IO[str]) -> int:
    """Run `chatassert regate` with parsed `args`; return its exit code."""
    thresholds = _thresholds(args.min_scores, err)
    outputs = report_outputs(args.format, args.output, err, prog="chatassert regate")
    if thresholds is None or outputs is None:
        return EXIT_USAGE
    outputs = with_summary(outputs, args.quiet)
    needing = next((fmt for fmt, _ in outputs if REPORT_FORMATS[fmt].needs_subject), None)
    if needing is not None:
        err.write(
            f"chatassert regate: {needing} reports are written by check, which reads the logs\n"
        )
        return EXIT_USAGE
    if args.show < 1:
        err.write(f"chatassert regate: --show must be at least 1 (got {args.show})\n")
        return EXIT_USAGE
    from chatassert.reporting._report_reader import read_report, row_kind, say_problems

    try:
        if args.report == "-":  # as bytes: a stray byte is then a problem of its line
            raw = getattr(sys.stdin, "buffer", None)
            text = (
                sys.stdin.read() if raw is None else raw.read().decode("utf-8", "surrogateescape")
            )
        else:
            with open(args.report, encoding="utf-8", errors="surrogateescape", newline="") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        err.write(f"chatassert regate: cannot read {args.report}: {exc}\n")
        return EXIT_USAGE
    lines, problems = read_report(text, "<stdin>" if args.report == "-" else args.report)
    if problems:
        err.write("chatassert regate: not a JSON report of check:\n" + say_problems(problems))
        return EXIT_USAGE
    kinds = [row_kind(value) for value in lines]
    for value, kind in zip(lines, kinds, strict=True):
        if kind == "result":
            value["result"] = Result.from_dict(value["result"])
    plan = Plan(
        None, (), None, outputs, args.verbose, full_results=args.full_results, show=args.show,
        flaky=args.flaky,
    )  # fmt: skip
    summaries = (v["summary"] for v, k in zip(lines, kinds, strict=True) if k == "summary")
    stored: dict[str, Any] = next(summaries, {})
    records = stored.get("records")
    summary = Summary(keep=args.show, records=None if records is None else int(records))
    summary.interrupted = bool(stored.get("interrupted"))
    gate_lines = [v for v, k in zip(lines, kinds, strict=True) if k == "gate"]
    if gate_lines:  # the suites' gates, decided again over the re-gated outcomes
        from chatassert._gates import GateTally, gate_of

        try:
            gates = [gate_of(line) for line in gate_lines]
        except ValueError as exc:
            err.write(f"chatassert regate: not a JSON report of check: {exc}\n")
            return EXIT_USAGE
        by_suite: dict[str | None, list[Any]] = {}
        for gate in gates:
            by_suite.setdefault(gate.suite, []).append(gate)
        summary.tally = GateTally(by_suite)
    reports = Reports()
    try:
        if not reports.open(plan.outputs, out, err):
            return EXIT_USAGE
        # rows read back from a report carry no subject: the HTML page shows the failing
        # examples the summary keeps
        writer = report_writer(plan, reports, args, subjects=False)
        for value, kind in zip(lines, kinds, strict=True):
            row = _regated_row(value, kind, thresholds)
            if row is not None:
                summary.add_row(row)
                writer.add(row)
        if summary.records is None:
            summary.records = summary.total
        finish_reports(plan, summary, writer, args)
        reports.close()
        say_written(plan.outputs, out, args.quiet)
        return summary.exit_code()
    finally:
        reports.close(quietly=True)


def _regated_row(
    value: dict[str, Any], kind: str | None, thresholds: Mapping[str, float]
) -> Row | None:
    """The row of one line of a JSON report, its result re-gated (None for the summary line).

    A case row carries its outcome; an unreadable or unmatched record carries the line as
    read, its JSON rendering, so the new report holds it as the old one did.
    """
    from chatassert.reporting import regate

    if kind == "result":
        recorded = value.get("recorded")
        outcome = Outcome(
            value.get("suite", ""),
            value.get("case", ""),
            regate(value["result"], thresholds),
            value.get("source", ""),
            value.get("subject_id"),
            recorded=None if recorded is None else tuple(recorded),
            disagreements=(None if recorded is None else tuple(value.get("disagreements") or ())),
            cost=value.get("cost"),
            matched_by=value.get("matched_by"),
            match_note=value.get("match_note"),
        )
        return Row(
            kind="case",
            source=outcome.source,
            suite=outcome.suite,
            case=outcome.case,
            status=outcome.result.status.value,
            subject_id=outcome.subject_id,
            cost=outcome.cost,
            duration=outcome.seconds,
            matched_by=outcome.matched_by,
            match_note=outcome.match_note,
            outcome=outcome,
        )
    if kind == "unreadable":
        return Row(
            kind="unreadable",
            source=value["unreadable"],
            error=value["error"],
            rendered={"json": json_line(value)},
        )
    if kind == "unmatched":
        return Row(
            kind="unmatched",
            source=value["unmatched"],
            suite=value["suite"],
            subject_id=value.get("subject_id"),
            error=value.get("reason"),
            rendered={"json": json_line(value)},
        )
    return None
