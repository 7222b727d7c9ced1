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
from chatassert._cli._gating import STRICT_STOP, Baseline, compared
from chatassert._cli._judge import judge_options
from chatassert._cli._options import (
    EXIT_CODES,
    Parser,
    assume_option,
    command,
    comparison_options,
    judging_options,
    log_format_option,
    plugin_group,
    quiet_option,
    read_prices,
    report_options,
    unknown_params_option,
    unknown_types_option,
)
from chatassert._cli._output import (
    Output,
    Reports,
    case_tags,
    finish_reports,
    report_outputs,
    report_writer,
    say_written,
    with_summary,
)
from chatassert._cli._plan import (
    Plan,
    expand_logs,
    load_suite_or_say,
    load_suites,
    make_checker,
    say_missing_judges,
    say_unassumed,
    say_unknown,
)
from chatassert._cli._run import end_run, run_local
from chatassert._cli.lint import say_ignored
from chatassert._errors import TranscriptError
from chatassert._suite import Suite
from chatassert.reporting import (
    EXIT_USAGE,
)
from chatassert.reporting._words import counted


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the `check` command to the subparsers `sub`; return its parser.

    Its options are grouped in the help by what they are about: the suite and the logs,
    which cases, how a run checks and stops, the reports, the judges, speed, and the engine.
    """
    check = command(
        sub,
        "check",
        help="check logged conversations against a suite or inline assertions",
        description="Check each conversation of the logs against the suite's matching case "
        "(and every --assert) and write the reports. Without --assert or --suite the first "
        "argument is the suite; with either, every argument is a log.",
        epilog=EXIT_CODES,
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
    given = check.add_argument_group("suite and logs")
    given.add_argument(
        "-s", "--suite", metavar="SUITE", help="a spec file (flat, promptkit, expect or native)"
    )
    given.add_argument(
        "-a",
        "--assert",
        dest="asserts",
        action="append",
        default=[],
        metavar="SPEC",
        help="a native assertion in YAML or JSON, applied to "
        "every conversation (turn assertions to every turn); repeatable",
    )
    log_format_option(given, older="--transcript-format", dest="transcript_format")
    given.add_argument(
        "--group-by",
        default=None,
        metavar="KEY",
        help="join the lines of one conversation: spans (or records) with the same KEY, an "
        "attribute or field path such as session.id or metadata.session_id, or 'trace' for "
        "the trace id; each group is checked as one conversation, named FILE:FIRST-LINE#KEY",
    )
    given.add_argument(
        "--group-window",
        type=int,
        default=1000,
        metavar="N",
        help="with --group-by: a group not seen for N lines is complete and checked (memory "
        "holds the groups of the last N lines; default 1000)",
    )
    given.add_argument(
        "--workflow",
        default=None,
        metavar="FILE",
        help="a workflow definition (a PromptKit pack, or its 'workflow' section, as JSON or "
        "YAML): workflow state is derived from each conversation's workflow__transition calls",
    )
    unknown_types_option(given)
    unknown_params_option(given)
    selection = check.add_argument_group("selection", "Which cases of the suites are checked.")
    selection.add_argument(
        "-k",
        dest="keyword",
        default=None,
        metavar="EXPR",
        help="check only the cases whose name (or id) contains these words, as pytest's -k: "
        "'refund and not (slow or flaky)', ignoring case; quote a name with spaces",
    )
    selection.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help="check only the cases with this tag (repeatable: a case with any of them); "
        "with -k, a case must satisfy both",
    )
    assume_option(selection)
    stopping = check.add_argument_group("when to stop")
    stopping.add_argument(
        "--fail-fast",
        action="store_true",
        help="after the first failure in a turn, report the rest of that turn as skipped "
        "(PromptKit's behaviour); to stop the run early use --max-failures",
    )
    stopping.add_argument(
        "--max-failures",
        type=int,
        default=None,
        metavar="N",
        help="stop after N failing cases, N at least 1 (exit 1)",
    )
    stopping.add_argument(
        "--strict", action="store_true", help="stop at the first unreadable log line (exit 2)"
    )
    reports = check.add_argument_group("reports")
    report_options(reports)
    shown = reports.add_mutually_exclusive_group()
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
    quiet_option(shown)
    baseline = check.add_argument_group(
        "baseline",
        "Compare the run with an earlier one of the same suite, as chatassert compare does "
        "(docs/gate-a-change.md).",
    )
    baseline.add_argument(
        "--baseline",
        default=None,
        metavar="BASE",
        help="an earlier run of the suite: its JSON report (-o base.jsonl) or --results "
        "directory; the suite's max_drop gates compare with it, and the comparison is printed "
        "after the summary. A run of another suite is an error, before any log is read",
    )
    baseline.add_argument(
        "--compare-output",
        default=None,
        metavar="FILE",
        help="with --baseline: write the comparison to FILE too, in the format its extension "
        "names (.json, .xml for JUnit, .html, .txt)",
    )
    comparison_options(baseline)
    judging = check.add_argument_group("judges", "How judged checks ask their judge.")
    judge_options(judging)
    judging_options(judging)
    speed = check.add_argument_group("performance")
    speed.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="check in N worker processes on this machine (results stay in input order)",
    )
    engine = check.add_argument_group(
        "engines",
        "Where the logs are checked: here, or on a Ray cluster (the options after --engine "
        "are for --engine ray only).",
    )
    engine.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local (this machine, with --jobs) or ray: each log file (.jsonl, .jsonl.gz, "
        ".parquet; local or an object-store URI) checked by a Ray task, on the cluster "
        "RAY_ADDRESS names or a local one (pip install chatassert[ray]; see docs/ray.md)",
    )
    engine.add_argument(
        "--column",
        default=None,
        metavar="NAME",
        help="with --engine ray: the Parquet column holding each record (JSON text or a "
        "struct); default: the only column, else a row's columns are the record's fields",
    )
    engine.add_argument(
        "--results",
        default=None,
        metavar="DIR",
        help="with --engine ray: write each log file's result rows to DIR (one JSON Lines "
        "file per log, written whole), for --resume",
    )
    engine.add_argument(
        "--resume",
        action="store_true",
        help="with --results: do not check again a log whose results are in DIR and whose "
        "bytes (read again and hashed) are those its results were made of; the reports "
        "include its rows. A results file that does not validate is said and not used",
    )
    engine.add_argument(
        "--rejudge-errors",
        action="store_true",
        help="with --results: check again only the records whose rows are errors (a judge "
        "that failed, say) in the logs whose results are in DIR, and replace those rows",
    )
    engine.add_argument(
        "--judge-concurrency",
        type=int,
        default=None,
        metavar="N",
        help="judge requests in flight: in this process (and in each --jobs worker), whose "
        "judged records are asked twice as many at a time; with --engine ray, per provider "
        "and model for the whole cluster (default CHATASSERT_JUDGE_CONCURRENCY, else 32)",
    )
    engine.add_argument(
        "--judge-rpm",
        type=int,
        default=None,
        metavar="N",
        help="with --engine ray: judge requests per minute per provider and model for the "
        "whole cluster (default: no budget; 429s and Retry-After pause every task)",
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
    plugin_group(parser)  # as the command line adds it to every command
    args = parser.parse_args([])
    for name, value in given.items():
        if not hasattr(args, name):
            raise TypeError(f"check has no option {name!r}")
        setattr(args, name, value)
    args.command = "check"
    return args


_RAY_ONLY = ("--judge-rpm", "--results", "--resume", "--rejudge-errors")
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
        suite = load_suite_or_say(
            suite_path, err, args.unknown_types, unknown_params=args.unknown_params
        )
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
    outputs = with_summary(outputs, args.quiet)
    plan = Plan(
        suite_path,
        tuple(args.asserts),
        args.transcript_format,
        outputs,
        args.verbose,
        workflow=args.workflow,
        fail_fast=args.fail_fast,
        unknown_types=args.unknown_types,
        unknown_params=args.unknown_params,
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
    baseline: Baseline | None = None
    if suites is not None and compared(args):  # read and checked before any log is
        baseline = Baseline.open(args, suites, err)
        if baseline is None:
            return EXIT_USAGE
        suites = baseline.bind(suites)  # the suites' max_drop gates compare with it
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
                f"chatassert check: {chosen} selects none of the {counted(total, 'case')} of "
                "the suites\n"
            )
            return EXIT_USAGE
    if not say_missing_judges(plan, suites, err):
        return EXIT_USAGE
    say_unknown(suites, err)
    say_ignored(suites, err)
    say_unassumed(suites, plan.assume, err)
    if baseline is not None:  # the run's JSON report, read back at the end to compare
        plan = replace(plan, outputs=baseline.report_to(plan.outputs))
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
                lambda summary, writer, logs: finish_reports(
                    plan, summary, writer, args, logs, STRICT_STOP
                ),
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
        if baseline is not None:  # after the summary, where the terminal shows it
            on_terminal = ("text", None) in plan.outputs
            shown = out if on_terminal else None if args.quiet else err
            code = baseline.compare(code, shown, err)
            say_written(baseline.shown(plan.outputs), out, args.quiet)
            return code
        say_written(plan.outputs, out, args.quiet)
        return code
    finally:
        reports.close(quietly=True)  # after an error: what could be written is kept
        if baseline is not None:
            baseline.close()


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
