"""`chatassert compare BASE NEW`: two runs of a suite compared (`chatassert.compare`), the
comparison written as text, JSON, JUnit or HTML, and the exit code its gates give.
"""

from __future__ import annotations

import argparse
from typing import IO, Any

from chatassert._cli._options import command, comparison_gates, comparison_options
from chatassert._cli._output import (
    Output,
    Reports,
    report_outputs,
    say_written,
    with_summary,
)
from chatassert.reporting import EXIT_FAILED, EXIT_NOTHING, EXIT_OK, EXIT_USAGE

PROG = "chatassert compare"

COMPARE_EXIT_CODES = """\
exit codes:
  0    no gate failed (or no gate was given)
  1    a gate failed: --fail-on regression, --fail-on any-flip, or a --max-drop
  2    usage error: a bad option, a run that cannot be read, is cut short, is not a JSON
       report of check or a --results directory (named by file:line), a case checked twice
       against one subject in a run, runs that share no suite, a --max-drop naming no
       assertion of the runs, an output that cannot be written
  4    nothing was paired: no case of one run is in the other
  130  interrupted (Ctrl-C)
  141  the reader of standard output went away (`chatassert compare ... | head`)
"""
"""The exit codes of `compare`, as its help lists them."""

_FORMATS = ("text", "json", "junit", "html")


def add_parser(sub: Any) -> None:
    """Add the `compare` command to the subparsers `sub`."""
    parser = command(
        sub,
        "compare",
        help="compare two runs of a suite: flips, pass rates, p-values, gates",
        description="Pair the cases of two runs of a suite (by suite, case and subject id; "
        "their assertions by name), list every case and assertion whose status changed with "
        "the evidence of both runs, and give per assertion and overall both pass rates with "
        "Wilson intervals, the exact McNemar test on the paired cases (its mid-p value "
        "beside it) and the p-value Holm-adjusted across the assertions. Gates (--fail-on, "
        "--max-drop) decide the exit code. Docs: docs/gate-a-change.md.",
        epilog=COMPARE_EXIT_CODES,
    )
    parser.add_argument(
        "base",
        metavar="BASE",
        help="the run before the change: a JSON report of check (check ... -o base.jsonl) or "
        "a --results directory",
    )
    parser.add_argument("new", metavar="NEW", help="the run after the change, likewise")
    gates = parser.add_argument_group("gates and statistics")
    comparison_options(gates)
    gates.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="C",
        help="the confidence of the Wilson intervals of the pass rates (default 0.95)",
    )
    reports = parser.add_argument_group("reports")
    reports.add_argument(
        "-f",
        "--format",
        choices=_FORMATS,
        default=None,
        metavar="FORMAT",
        help="text (default), json (one document), junit (a test case per gated or regressed "
        "assertion, failing where the gate fails) or html (one page, the two runs side by "
        "side, flips first, filterable); default: from the --output file's extension",
    )
    reports.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        metavar="PATH",
        help="write the comparison to PATH instead of standard output (- is standard output); "
        "its extension names the format (.txt: text; .json, .jsonl: json; .xml: junit; "
        ".html, .htm: html); repeatable. When every report goes to a file, the text report "
        "and a line per file written are printed on standard output (-q: not)",
    )
    reports.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no text report on standard output when every report goes to a file",
    )


def run(args: argparse.Namespace, out: Output, err: IO[str]) -> int:
    """Run `chatassert compare` with parsed `args`; return its exit code."""
    gates = comparison_gates(args, PROG, err)
    outputs = report_outputs(args.format, args.output, err, prog=PROG)
    if gates is None or outputs is None:
        return EXIT_USAGE
    fail_on, limits = gates
    unknown = [fmt for fmt, _ in outputs if fmt not in _FORMATS]
    if unknown:
        err.write(
            f"{PROG}: a comparison is written as {', '.join(_FORMATS)}, not {unknown[0]}; "
            "name the file .txt, .json, .xml or .html\n"
        )
        return EXIT_USAGE
    if not 0 < args.confidence < 1:
        err.write(f"{PROG}: --confidence must be between 0 and 1 (got {args.confidence:g})\n")
        return EXIT_USAGE
    outputs = with_summary(outputs, args.quiet)
    from chatassert.compare import CompareError, compare, read_run, render_comparison

    try:
        base = read_run(args.base)
        new = read_run(args.new)
        comparison = compare(
            base, new, alpha=args.alpha, confidence=args.confidence, max_drop=limits
        )
        failed = comparison.failed(fail_on, {})
    except CompareError as exc:
        err.write(f"{PROG}: {exc}\n")
        return EXIT_USAGE
    except KeyError as exc:  # a --max-drop naming no assertion: the names there are
        err.write(f"{PROG}: --max-drop: {exc.args[0]}\n")
        return EXIT_USAGE
    reports = Reports()
    try:
        if not reports.open(outputs, out, err):
            return EXIT_USAGE
        for fmt, tee in reports.by_format.items():
            tee.write(render_comparison(comparison, fmt, fail_on=fail_on))
        reports.close()
    finally:
        reports.close(quietly=True)
    say_written(outputs, out, args.quiet)
    if comparison.paired == 0:
        err.write(
            f"{PROG}: nothing was paired: no case of {args.base} is in {args.new} (cases pair "
            "by suite, case and subject id)\n"
        )
        return EXIT_NOTHING
    if failed:
        shown = any(fmt == "text" and path is None for fmt, path in outputs)
        if not shown:  # the text report on standard output says why already
            err.write(f"{PROG}: gate failed:\n" + "".join(f"- {why}\n" for why in failed))
        return EXIT_FAILED
    return EXIT_OK
