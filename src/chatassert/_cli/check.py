"""`chatassert check`: check logged conversations against a suite (or inline assertions) and
write the reports.

Without `--assert` or `--suite`, the first positional argument is the suite and the rest are
logs; with either, every positional argument is a log. A log is a file (`.jsonl`, `.jsonl.gz`,
or a PromptKit recording `.arena.json` / `.recording.json`, read whole), a glob (expanded
here, so it may be quoted), a directory (its `*.jsonl`, `*.jsonl.gz` and recording files),
`-` for standard input, or any other path that is not a directory (a pipe). A suite whose
every case names its recording (a PromptKit Eval file) needs no log.

Tests: tests/cli/.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import IO, Any

from chatassert._cli._engine import foldable
from chatassert._cli._options import (
    EXIT_CODES,
    Parser,
    assume_option,
    extensions_help,
    format_help,
    judging_options,
    offered_formats,
    read_prices,
    unknown_types_option,
)
from chatassert._cli._output import (
    Output,
    Reports,
    case_tags,
    finish_reports,
    report_outputs,
    report_writer,
)
from chatassert._cli._plan import (
    Plan,
    expand_logs,
    load_suite_or_say,
    load_suites,
    make_checker,
    say_unassumed,
    say_unknown,
)
from chatassert._cli._run import end_run, run_local
from chatassert._errors import TranscriptError
from chatassert._suite import Suite
from chatassert.reporting import (
    EXIT_USAGE,
)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the `check` command to the subparsers `sub`; return its parser."""
    from chatassert.transcripts import FORMATS

    check: argparse.ArgumentParser = sub.add_parser(
        "check",
        help="check logged conversations against a suite or inline assertions",
        description="Check each conversation of the logs against the suite's matching case "
        "(and every --assert) and report. Without --assert or --suite the first argument is "
        "the suite; with either, every argument is a log.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="[SUITE] LOG",
        help="the suite (unless --suite or --assert is given), then JSONL logs: "
        "files (.jsonl, .jsonl.gz, PromptKit .arena.json and .recording.json), globs, "
        "directories, pipes, or - for stdin; none for a PromptKit Eval file, which names its "
        "recording",
    )
    check.add_argument(
        "-s", "--suite", metavar="SUITE", help="a spec file (flat, promptkit, expect or native)"
    )
    check.add_argument(
        "-a",
        "--assert",
        dest="asserts",
        action="append",
        default=[],
        metavar="SPEC",
        help="a native assertion in YAML or JSON, applied to "
        "every conversation (turn assertions to every turn); repeatable",
    )
    check.add_argument(
        "-f",
        "--format",
        choices=offered_formats(),
        default=None,
        help=format_help(),
    )
    check.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        metavar="PATH",
        help="write the report to PATH instead of standard output; its extension names the "
        f"format ({extensions_help()}) unless --format is given, and a --format that "
        "contradicts it is an error; repeatable: one report per file, from one run",
    )
    check.add_argument(
        "--full-results",
        action="store_true",
        help="json: write every node of each result tree in full (reasons and details of "
        "passing checks too); by default passing nodes carry only their status, name, "
        "message and location",
    )
    check.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="check in N worker processes (results stay in input order)",
    )
    check.add_argument(
        "--transcript-format",
        "--log-format",
        default=None,
        metavar="NAME",
        help=f"force the log format ({', '.join(FORMATS)}) instead of detecting it per line",
    )
    check.add_argument(
        "--group-by",
        default=None,
        metavar="KEY",
        help="join the lines of one conversation: spans (or records) with the same KEY, an "
        "attribute or field path such as session.id or metadata.session_id, or 'trace' for "
        "the trace id; each group is checked as one conversation, named FILE:FIRST-LINE#KEY",
    )
    check.add_argument(
        "--group-window",
        type=int,
        default=1000,
        metavar="N",
        help="with --group-by: a group not seen for N lines is complete and checked (memory "
        "holds the groups of the last N lines; default 1000)",
    )
    unknown_types_option(check)
    assume_option(check)
    check.add_argument(
        "--fail-fast",
        action="store_true",
        help="after the first failure in a turn, report the rest of that turn as skipped "
        "(PromptKit's behaviour); to stop the run early use --max-failures",
    )
    check.add_argument(
        "--workflow",
        default=None,
        metavar="FILE",
        help="a workflow definition (a PromptKit pack, or its 'workflow' section, as JSON or "
        "YAML): workflow state is derived from each conversation's workflow__transition calls",
    )
    check.add_argument(
        "--max-failures",
        type=int,
        default=None,
        metavar="N",
        help="stop after N failing cases, N at least 1 (exit 1)",
    )
    check.add_argument(
        "--strict", action="store_true", help="stop at the first unreadable log line (exit 2)"
    )
    check.add_argument(
        "--show",
        type=int,
        default=10,
        metavar="N",
        help="how many failing cases the reports show (default 10, at least 1)",
    )
    check.add_argument(
        "-k",
        dest="keyword",
        default=None,
        metavar="EXPR",
        help="check only the cases whose name (or id) contains these words, as pytest's -k: "
        "'refund and not (slow or flaky)', ignoring case; quote a name with spaces",
    )
    check.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help="check only the cases with this tag (repeatable: a case with any of them); "
        "with -k, a case must satisfy both",
    )
    shown = check.add_mutually_exclusive_group()
    shown.add_argument(
        "--progress",
        dest="progress",
        action="store_const",
        const="plain",
        default="auto",
        help="write a plain progress line to stderr now and then (every 5%% of the logs' "
        "bytes or 10 s, at most one each 2 s), for CI logs; by default a progress bar is "
        "drawn only when stderr is a terminal",
    )
    shown.add_argument(
        "-q",
        "--quiet",
        "--no-progress",
        dest="progress",
        action="store_const",
        const="off",
        help="no progress on stderr (--no-progress is the same option)",
    )
    judging_options(check)
    check.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local (this machine, with --jobs) or ray: each log file (.jsonl, .jsonl.gz, "
        ".parquet; local or an object-store URI) checked by a Ray task, on the cluster "
        "RAY_ADDRESS names or a local one (pip install chatassert[ray]; see docs/ray.md)",
    )
    check.add_argument(
        "--column",
        default=None,
        metavar="NAME",
        help="with --engine ray: the Parquet column holding each record (JSON text or a "
        "struct); default: the only column, else a row's columns are the record's fields",
    )
    check.add_argument(
        "--results",
        default=None,
        metavar="DIR",
        help="with --engine ray: write each log file's result rows to DIR (one JSON Lines "
        "file per log, written whole), for --resume",
    )
    check.add_argument(
        "--resume",
        action="store_true",
        help="with --results: do not check again a log whose results are in DIR and whose "
        "bytes (read again and hashed) are those its results were made of; the reports "
        "include its rows. A results file that does not validate is said and not used",
    )
    check.add_argument(
        "--rejudge-errors",
        action="store_true",
        help="with --results: check again only the records whose rows are errors (a judge "
        "that failed, say) in the logs whose results are in DIR, and replace those rows",
    )
    check.add_argument(
        "--judge-concurrency",
        type=int,
        default=None,
        metavar="N",
        help="with --engine ray: judge requests in flight per provider and model for the "
        "whole cluster (default CHATASSERT_JUDGE_CONCURRENCY, else 32)",
    )
    check.add_argument(
        "--judge-rpm",
        type=int,
        default=None,
        metavar="N",
        help="with --engine ray: judge requests per minute per provider and model for the "
        "whole cluster (default: no budget; 429s and Retry-After pause every task)",
    )
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show passing assertions in the failing cases too",
    )
    return check


def options(**given: Any) -> argparse.Namespace:
    """The options of a check run as the command line gives them: each option's default,
    then `given` (by destination: `paths`, `output`, `full_results`, ...).

    Example:
        >>> args = options(paths=["suite.yaml", "log.jsonl"], full_results=True)
        >>> args.full_results, args.jobs, args.format
        (True, 1, None)
    """
    parser = add_parser(Parser(prog="chatassert").add_subparsers(parser_class=Parser))
    args = parser.parse_args([])
    for name, value in given.items():
        if not hasattr(args, name):
            raise TypeError(f"check has no option {name!r}")
        setattr(args, name, value)
    args.command = "check"
    return args


_RAY_ONLY = ("--judge-concurrency", "--judge-rpm", "--results", "--resume", "--rejudge-errors")
"""Options of `check --engine ray` alone."""


def run(args: argparse.Namespace, out: Output, err: IO[str]) -> int:
    """Run `chatassert check` with parsed `args`; return its exit code."""
    paths = list(args.paths)
    suite_path = args.suite
    if suite_path is None and not args.asserts:
        if not paths:
            err.write("chatassert check: give a SUITE and LOGs, or --assert SPEC and LOGs\n")
            return EXIT_USAGE
        suite_path = paths.pop(0)
    if not paths and suite_path is not None:  # a suite whose cases name their recordings
        suite = load_suite_or_say(suite_path, err, args.unknown_types)
        if suite is None:
            return EXIT_USAGE
        paths = _recordings(suite)
    if not paths:
        err.write(
            "chatassert check: give at least one LOG (a file, a glob, or - for stdin); only a "
            "suite whose every case names its recording (a PromptKit Eval) needs none\n"
        )
        return EXIT_USAGE
    for option, value in (
        ("--jobs", args.jobs),
        ("--max-failures", args.max_failures),
        ("--show", args.show),
        ("--repeat", args.repeat),
        ("--group-window", args.group_window),
        ("--judge-concurrency", args.judge_concurrency),
        ("--judge-rpm", args.judge_rpm),
    ):
        if value is not None and value < 1:
            err.write(f"chatassert check: {option} must be at least 1 (got {value})\n")
            return EXIT_USAGE
    outputs = report_outputs(args.format, args.output, err)
    if outputs is None:
        return EXIT_USAGE
    plan = Plan(
        suite_path,
        tuple(args.asserts),
        args.transcript_format,
        outputs,
        args.verbose,
        workflow=args.workflow,
        fail_fast=args.fail_fast,
        unknown_types=args.unknown_types,
        assume=tuple(args.assume),
        full_results=args.full_results,
        show=args.show,
        keyword=args.keyword,
        tags=tuple(args.tags),
        repeat=args.repeat,
        flaky=args.flaky,
        judge_prices=args.judge_prices,
        no_plan=args.no_plan,
        group_by=args.group_by,
        group_window=args.group_window,
    )
    if plan.judge_prices is not None:
        try:
            read_prices(plan.judge_prices)
        except ValueError as exc:
            err.write(f"chatassert check: --judge-prices: {exc}\n")
            return EXIT_USAGE
    if plan.transcript_format is not None:
        from chatassert.transcripts import require_format

        try:
            require_format(plan.transcript_format)
        except TranscriptError as exc:
            err.write(f"{exc}\n")
            return EXIT_USAGE
    if plan.keyword is not None:
        from chatassert._select import KeywordError, compile_keyword

        try:
            compile_keyword(plan.keyword)
        except KeywordError as exc:
            err.write(f"chatassert check: -k {plan.keyword!r}: {exc}\n")
            return EXIT_USAGE
    suites = load_suites(plan, err)
    ray_engine = args.engine == "ray"
    ray_only = [o for o in _RAY_ONLY if getattr(args, o.lstrip("-").replace("-", "_"), None)]
    if ray_only and not ray_engine:
        err.write(f"chatassert check: {', '.join(ray_only)}: for --engine ray only\n")
        return EXIT_USAGE
    files = paths if ray_engine else expand_logs(paths, err)  # Ray's readers open URIs too
    if suites is None or files is None:
        return EXIT_USAGE
    if plan.keyword is not None or plan.tags:
        total = sum(len(suite.cases) for suite in suites)
        if len(make_checker(plan, suites).deselected) == total:
            chosen = " and ".join(
                [f"-k {plan.keyword!r}"] * (plan.keyword is not None)
                + [f"--tag {' --tag '.join(plan.tags)}"] * bool(plan.tags)
            )
            err.write(
                f"chatassert check: {chosen} selects none of the {total} case"
                f"{'s' if total != 1 else ''} of the suites\n"
            )
            return EXIT_USAGE
    say_unknown(suites, err)
    say_unassumed(suites, plan.assume, err)
    reports = Reports()
    try:
        if not reports.open(plan.outputs, out, err):
            return EXIT_USAGE
        if ray_engine:
            from chatassert._cli._ray import run_ray

            # a failing row's tree travels back from the tasks: the summary's examples
            checker = make_checker(plan, suites, trees=True)
            code = run_ray(
                checker,
                report_writer(plan, reports, args, case_tags(suites)),
                lambda summary, writer, logs: finish_reports(plan, summary, writer, args, logs),
                lambda summary, writer, logs, stopped: end_run(
                    plan, checker, summary, writer, args, logs, stopped, err
                ),
                files,
                args,
                err,
            )
        else:
            plan = replace(plan, fold=foldable(plan, args.jobs, args))
            code = run_local(plan, suites, files, args, args.max_failures, reports, err)
        reports.close()  # a full disk often shows only here, when the last of it is written
        return code
    finally:
        reports.close(quietly=True)  # after an error: what could be written is kept


def _recordings(suite: Suite) -> list[str]:
    """The recordings a suite's cases name (`Case.metadata["recording"]`, as a PromptKit Eval
    gives it), in order; none unless every case names one."""
    paths: list[str] = []
    for case in suite.cases:
        recording = case.metadata.get("recording")
        path = recording.get("path") if isinstance(recording, dict) else None
        if not isinstance(path, str):
            return []
        if path not in paths:
            paths.append(path)
    return paths
