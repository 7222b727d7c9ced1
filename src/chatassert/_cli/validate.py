"""`chatassert validate`: how far judged checks agree with human labels, from a run of the
check pipeline over the logs (or a JSON report read back).
"""

from __future__ import annotations

import argparse
import io
import json
import os
from typing import IO, Any

from chatassert._cli import check
from chatassert._cli._judge import judge_options
from chatassert._cli._options import command
from chatassert._cli._output import STDOUT, Output
from chatassert.reporting import (
    EXIT_ERRORS,
    EXIT_FAILED,
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_USAGE,
)


def add_parser(sub: Any) -> None:
    """Add the `validate` command to the subparsers `sub`."""
    validate = command(
        sub,
        "validate",
        help="measure how far judged checks agree with human labels",
        description="Run SUITE over LOGS (or read the JSON report given with --report, asking "
        "no judge), pair each line of LABELS (a JSON object per line: record - a log's "
        "file:line or a subject id -, assertion - a name or kind -, and human - pass or fail) "
        "with the judged verdict for that record and assertion, and print per assertion the "
        "agreement, precision and recall (a pass is the positive class), Cohen's kappa, the "
        "counts and the disagreements.",
        epilog="""\
exit codes:
  0    the agreement was measured (and, with --min-kappa, every assertion reaches it)
  1    with --min-kappa: an assertion's kappa is below it, or undefined
  2    usage error: a bad option, a labels file or report with problems (each named by its
       line), a suite or log that cannot be read
  4    nothing was checked: the run over the logs checked no case (as check says why)
""",
    )
    validate.add_argument("suite", metavar="SUITE", help="the suite file")
    validate.add_argument("labels", metavar="LABELS", help="the labels (.jsonl)")
    validate.add_argument(
        "logs",
        nargs="*",
        metavar="LOG",
        help="the logs to check, as for check (none with --report)",
    )
    validate.add_argument(
        "--report",
        default=None,
        metavar="REPORT",
        help="a JSON report of a run with --full-results to read instead of running the suite",
    )
    validate.add_argument(
        "-f",
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (a table per assertion, default) or json (one JSON document: the "
        "assertions with their figures, the minimum kappa and those below it)",
    )
    validate.add_argument(
        "--min-kappa",
        type=float,
        default=None,
        metavar="X",
        help="exit 1 when an assertion's kappa is below X: the judge is not fit to gate",
    )
    judge_options(validate)


def run(args: argparse.Namespace, out: Output, err: IO[str]) -> int:
    """Run `chatassert validate` with parsed `args`: calibrate judged checks against human
    labels; return its exit code."""
    import tempfile

    from chatassert._calibration import LabelsError, calibrate, read_labels, render_text
    from chatassert.reporting._report_reader import read_report, say_problems

    if args.min_kappa is not None and not -1.0 <= args.min_kappa <= 1.0:
        err.write(f"chatassert validate: --min-kappa must be from -1 to 1 (got {args.min_kappa})\n")
        return EXIT_USAGE
    try:
        with open(args.labels, encoding="utf-8", errors="surrogateescape", newline="") as f:
            labels = read_labels(f.read(), args.labels)
    except LabelsError as exc:
        err.write("chatassert validate: not a labels file:\n" + say_problems(exc.problems))
        return EXIT_USAGE
    except (OSError, UnicodeDecodeError) as exc:
        err.write(f"chatassert validate: cannot read the labels {args.labels}: {exc}\n")
        return EXIT_USAGE
    with tempfile.TemporaryDirectory() as tmp:
        report = args.report
        if report is None:
            if not args.logs:
                err.write("chatassert validate: give the LOGS to check, or --report\n")
                return EXIT_USAGE
            report = os.path.join(tmp, "report.jsonl")
            run = check.options(paths=[args.suite, *args.logs], full_results=True, output=[report])
            run.argv = ["check", args.suite, *args.logs, "--full-results", "-o", report]
            run.started = args.started
            code = check.run(run, Output(io.StringIO(), STDOUT), err)
            if code not in (EXIT_OK, EXIT_FAILED, EXIT_ERRORS):  # failures and errors are
                return code  # what is measured
        try:
            with open(report, encoding="utf-8", errors="surrogateescape", newline="") as f:
                lines, problems = read_report(f.read(), report)
        except (OSError, UnicodeDecodeError) as exc:
            err.write(f"chatassert validate: cannot read the report {report}: {exc}\n")
            return EXIT_USAGE
    if problems:
        err.write("chatassert validate: not a JSON report of check:\n" + say_problems(problems))
        return EXIT_USAGE
    if not any(isinstance(line, dict) and "result" in line for line in lines):
        err.write(
            f"chatassert validate: nothing was checked: the report {report} holds no "
            "case checked against a subject, so no verdict can be compared with the labels\n"
        )
        return EXIT_NOTHING
    results = calibrate(lines, labels)
    below = [
        c.assertion
        for c in results
        if args.min_kappa is not None and (c.kappa is None or c.kappa < args.min_kappa)
    ]
    if args.format == "json":
        data = {
            "assertions": [c.to_dict() for c in results],
            "min_kappa": args.min_kappa,
            "below_min_kappa": below,
        }
        out.write(json.dumps(data, indent=2) + "\n")
    else:
        out.write(render_text(results))
        if below:
            out.write(f"below --min-kappa {args.min_kappa}: {', '.join(below)}\n")
    return EXIT_FAILED if below else EXIT_OK
