"""The `chatassert` command line.

    chatassert check SUITE LOG [LOG ...]             check logged conversations against a suite
    chatassert check --assert SPEC [...] LOG [...]   check inline assertions, with no suite
    chatassert check --suite SUITE --assert SPEC LOG [LOG ...]   both
    chatassert lint SUITE [SUITE ...]                load and validate suites without running them
    chatassert schema [spec|result|report]           print a JSON Schema
    chatassert schema --dialect DIALECT              the schema of a dialect's files (draft-07)
    chatassert init SPEC [SPEC ...]                  point YAML spec files at their schema
    chatassert regate REPORT --min-score NAME=S      re-decide judged checks of a JSON report
    chatassert validate SUITE LABELS LOG [LOG ...]   a judge's agreement with human labels
    chatassert convert [--to FORMAT] LOG [LOG ...]   rewrite logs as native lines or an ADK set

Without `--assert` or `--suite`, the first positional argument is the suite and the rest are
logs; with either, every positional argument is a log. A log is a file (`.jsonl`, `.jsonl.gz`,
or a PromptKit recording `.arena.json` / `.recording.json`, read whole), a glob (expanded
here, so it may be quoted), a directory (its `*.jsonl`, `*.jsonl.gz` and recording files),
`-` for standard input, or any other path that is not a directory (a pipe). A suite whose
every case names its recording (a PromptKit Eval file) needs no log.

Exit codes: see `_EXIT_CODES` (shown by `chatassert --help`).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Generator, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from types import FrameType
from typing import IO, Any

from chatassert import __version__
from chatassert._errors import SpecError
from chatassert._result import Result
from chatassert._run_messages import LISTED, failures_reached, say_listed, say_strict_stop
from chatassert._suite import Suite
from chatassert.records import (
    RECORD_END,
    Checker,
    HeldStep,
    Item,
    RecordEnd,
    ReportWriter,
    Row,
    inline_suite,
)
from chatassert.reporting import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    REPORT_FORMATS,
    Outcome,
    Summary,
    format_named_by,
    json_line,
)
from chatassert.reporting._junit import relative_to_cwd

__all__ = ["main"]


def _offered_formats(*, subjects: bool = True) -> tuple[str, ...]:
    """The report formats a command offers (`REPORT_FORMATS`, read as its parser is built):
    every one for `check`; for `regate` (`subjects=False`: it reads a report, not the logs),
    those that can be written without the checked subjects."""
    return tuple(
        name for name, reporter in REPORT_FORMATS.items() if subjects or not reporter.needs_subject
    )


def _format_help() -> str:
    """`--format`'s help: each report format with what it is."""
    named = [
        f"{name} ({reporter.description})" if reporter.description else name
        for name, reporter in REPORT_FORMATS.items()
    ]
    listed = ", ".join(named[:-1]) + ", or " + named[-1] if len(named) > 1 else named[0]
    return (
        f"{listed}; default: from the --output file's extension, else text; with several "
        "--output, give none"
    )


def _extensions_help() -> str:
    """The extensions that name each report format, for `--output`'s help."""
    return "; ".join(
        f"{', '.join(reporter.extensions)}: {name}"
        for name, reporter in REPORT_FORMATS.items()
        if reporter.extensions
    )


_CHUNK_BYTES = 1 << 20
_CHUNK_LINES = 2000
_EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader went away

_EXIT_CODES = """\
exit codes:
  0    every case passed
  1    a case failed (or --max-failures stopped the run)
  2    usage or spec error: a bad option, an unreadable suite or log file, an output that
       cannot be written (a full disk, a directory); or an unreadable line with --strict
  3    nothing failed, but something could not be evaluated: an assertion errored, a log
       line could not be read, or a conversation matched no case
  4    nothing was checked: the logs held no records (an empty log, or empty stdin)
  130  interrupted (Ctrl-C): the report written is partial and says how far it got
  141  the reader of standard output went away (`chatassert check ... | head`)
"""


class _OutputError(Exception):
    """The report could not be written (a full disk, a closed pipe); never a log's fault."""

    def __init__(self, name: str, error: OSError) -> None:
        super().__init__(f"cannot write {name}: {error.strerror or error}")
        self.name = name
        self.error = error


class _Output:
    """Where the report goes: a text stream whose write errors are `_OutputError`s.

    Args:
        stream: The stream (standard output, or the `-o` file).
        name: How messages name it (`to standard output`, or the path).
    """

    def __init__(self, stream: IO[str], name: str) -> None:
        self.stream = stream
        self.name = name

    def write(self, text: str) -> int:
        """Write `text`."""
        try:
            return self.stream.write(text)
        except OSError as exc:
            raise _OutputError(self.name, exc) from None

    def flush(self) -> None:
        """Flush what is buffered."""
        try:
            self.stream.flush()
        except OSError as exc:
            raise _OutputError(self.name, exc) from None

    def close(self) -> None:
        """Flush and close the stream."""
        try:
            self.stream.close()
        except OSError as exc:
            raise _OutputError(self.name, exc) from None


class _LogError(Exception):
    """A log could not be opened; unlike an `OSError`, never taken for a write error."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with code 2 and a hint."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message}\nrun '{self.prog} --help' for the options\n"
        )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chatassert",
        description="Assertions over what LLM agents produce.",
        epilog=_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chatassert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser(
        "check",
        help="check logged conversations against a suite or inline assertions",
        description="Check each conversation of the logs against the suite's matching case "
        "(and every --assert) and report. Without --assert or --suite the first argument is "
        "the suite; with either, every argument is a log.",
        epilog=_EXIT_CODES,
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
        choices=_offered_formats(),
        default=None,
        help=_format_help(),
    )
    check.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        metavar="PATH",
        help="write the report to PATH instead of standard output; its extension names the "
        f"format ({_extensions_help()}) unless --format is given, and a --format that "
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
        help="force the log format (native, openai, openai-responses, anthropic, "
        "otel, jaeger, promptkit-arena, promptkit-session, agents-sdk, inspect, langsmith, "
        "promptfoo, adk) "
        "instead of detecting it per line",
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
    _unknown_types_option(check)
    _assume_option(check)
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
    _judging_options(check)
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

    lint = sub.add_parser("lint", help="validate suites (and workflow files) without running them")
    lint.add_argument(
        "suites",
        nargs="+",
        help="spec files; a workflow file (*.workflow.yaml, or a PromptKit pack with a "
        "'workflow' section) is validated as check --workflow loads it",
    )
    _unknown_types_option(lint)
    _assume_option(lint)
    lint.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list each case, and the keys of the file kept but not used offline "
        "(keys that configure a live run: providers, personas, temperatures, ...)",
    )

    schema = sub.add_parser("schema", help="print the JSON Schema of the spec format or results")
    schema.add_argument(
        "which",
        nargs="?",
        choices=["spec", "result", "report"],
        default="spec",
        help="spec (the native spec format, default), result (a result tree) or report "
        "(a line of the JSON report of check --format json)",
    )
    schema.add_argument(
        "--dialect",
        choices=["flat", "promptkit", "expect", "native"],
        help="print the draft-07 schema of the files of a dialect instead (the one the "
        "package ships, for editors)",
    )

    init = sub.add_parser(
        "init",
        help="add a '# yaml-language-server: $schema=...' first line to YAML spec files",
        description="Point YAML spec files at the JSON Schema of their dialect (detected as "
        "the loader does), so an editor with yaml-language-server completes and checks them. "
        "Only a first line is added (or an older one of ours replaced); the rest of the file "
        "is kept byte for byte. JSON files are left as they are.",
    )
    init.add_argument("files", nargs="+", metavar="SPEC", help="YAML spec files")
    init.add_argument(
        "--schema-url",
        metavar="URL",
        help="the $schema target to write instead of the path of the installed schema file; "
        "'{dialect}' in it is replaced by the file's dialect (flat, promptkit, expect, native)",
    )
    _regate_parser(sub)
    _validate_parser(sub)
    from chatassert._convert import add_parser as _convert_parser

    _convert_parser(sub)
    return parser


def _regate_parser(sub: Any) -> None:
    regate = sub.add_parser(
        "regate",
        help="recompute the statuses of a JSON report with new judged thresholds",
        description="Read a JSON report of check (compact or --full-results), decide its "
        "judged checks again with new minimum scores, recompute every status above them by "
        "its combinator's rule, and write the new report and exit code; no judge is asked.",
        epilog=_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    regate.add_argument("report", metavar="REPORT", help="a JSON report (.jsonl), or - for stdin")
    regate.add_argument(
        "--min-score",
        dest="min_scores",
        action="append",
        default=[],
        required=True,
        metavar="NAME=SCORE",
        help="the new threshold of the judged checks named NAME (an assertion's name, else "
        "its kind, such as llm_rubric or llm_judge), SCORE from 0 to 1; repeatable",
    )
    regate.add_argument(
        "-f",
        "--format",
        choices=_offered_formats(subjects=False),
        default=None,
        help="as for check",
    )
    regate.add_argument(
        "-o", "--output", action="append", default=[], metavar="PATH", help="as for check"
    )
    regate.add_argument("--full-results", action="store_true", help="as for check")
    regate.add_argument("--show", type=int, default=10, metavar="N", help="as for check")
    regate.add_argument("-v", "--verbose", action="store_true", help="as for check")
    _flaky_option(regate)


def _validate_parser(sub: Any) -> None:
    validate = sub.add_parser(
        "validate",
        help="measure how far judged checks agree with human labels",
        description="Run SUITE over LOGS (or read the JSON report given with --report, asking "
        "no judge), pair each line of LABELS (a JSON object per line: record - a log's "
        "file:line or a subject id -, assertion - a name or kind -, and human - pass or fail) "
        "with the judged verdict for that record and assertion, and print per assertion the "
        "agreement, precision and recall (a pass is the positive class), Cohen's kappa, the "
        "counts and the disagreements. Exit 0; with --min-kappa, 1 when an assertion is below "
        "it (or its kappa is undefined); 2 for a labels file or report with problems, each "
        "named by its line.",
    )
    validate.add_argument("suite", metavar="SUITE", help="the suite file")
    validate.add_argument("labels", metavar="LABELS", help="the labels (.jsonl)")
    validate.add_argument("logs", nargs="*", metavar="LOG", help="the logs to check, as for check")
    validate.add_argument(
        "--report",
        default=None,
        metavar="REPORT",
        help="a JSON report of a run with --full-results to read instead of running the suite",
    )
    validate.add_argument("-f", "--format", choices=("text", "json"), default="text")
    validate.add_argument(
        "--min-kappa",
        type=float,
        default=None,
        metavar="X",
        help="exit 1 when an assertion's kappa is below X: the judge is not fit to gate",
    )


def _validate(args: argparse.Namespace, out: _Output, err: IO[str]) -> int:
    """`chatassert validate`: calibrate judged checks against human labels."""
    import io
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
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet):
                code = _main(["check", args.suite, *args.logs, "--full-results", "-o", report])
            if code not in (EXIT_OK, 1, 3):  # ran; failures and errors are what is measured
                return code
        try:
            with open(report, encoding="utf-8", errors="surrogateescape", newline="") as f:
                lines, problems = read_report(f.read(), report)
        except (OSError, UnicodeDecodeError) as exc:
            err.write(f"chatassert validate: cannot read the report {report}: {exc}\n")
            return EXIT_USAGE
    if problems:
        err.write("chatassert validate: not a JSON report of check:\n" + say_problems(problems))
        return EXIT_USAGE
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
    return 1 if below else EXIT_OK


def _judging_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="ask the judge N times for every judged check of the suites (each wrapped in a "
        "majority repeat) and report how stable the verdicts are; flaky ones are counted apart",
    )
    _flaky_option(check)
    check.add_argument(
        "--no-plan",
        action="store_true",
        help="ask the judge for every judged check, even where a deterministic one already "
        "decides all_of, any_of or at_least (planning skips those as 'not needed')",
    )
    check.add_argument(
        "--judge-prices",
        default=None,
        metavar="FILE",
        help="a JSON or YAML price table, {model: {input: P, output: P}} per million tokens "
        "('*' for any other model): the reports then give the cost of the tokens judges used",
    )


def _flaky_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--flaky",
        choices=("skip", "fail"),
        default="skip",
        help="how the JUnit report marks a case only flaky judged verdicts decide: skipped "
        "(default, with the evidence) or a failure",
    )


def read_prices(path: str) -> dict[str, dict[str, float]]:
    """Read a price table: `{model: {"input": price, "output": price}}` per million tokens.

    Raises:
        ValueError: when the file cannot be read or is not such a table (saying where).
    """
    from chatassert.specs._yaml import parse_yaml, read_spec_file

    try:
        data = parse_yaml(read_spec_file(path), path)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except Exception as exc:  # the YAML reader's own error, with its position
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{path}: expected a mapping of model names to prices, got {data!r}")
    table: dict[str, dict[str, float]] = {}
    for model, price in data.items():
        if not isinstance(price, dict) or not price or set(price) - {"input", "output"}:
            raise ValueError(
                f"{path}: {model}: expected {{input: price, output: price}} per million "
                f"tokens, got {price!r}"
            )
        for key, value in price.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(
                    f"{path}: {model}.{key}: expected a non-negative number, got {value!r}"
                )
        table[str(model)] = {k: float(v) for k, v in price.items()}
    return table


def _unknown_types_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unknown-types",
        choices=["error", "skip"],
        default="error",
        help="an assertion type the suite's vocabulary does not know: a spec error (default), "
        "or skip: load the suite and report each such assertion as skipped",
    )


def _assume_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="CONDITION",
        help="a condition that holds (repeatable): each test whose skip_if names it, exactly "
        "as written, is reported skipped ('skip_if CONDITION holds (--assume)')",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    try:
        return _main(argv)
    except _OutputError as exc:
        if exc.name == _STDOUT:  # what is still buffered goes nowhere, not to a failing flush
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
        if isinstance(exc.error, BrokenPipeError):  # the reader went away (`... | head`)
            return _EXIT_PIPE
        sys.stderr.write(f"{exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:  # before a run started, or in lint or schema: nothing to report
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED


_STDOUT = "to standard output"


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the HTML report shows it
    args.started = time.time()
    out = _Output(sys.stdout, _STDOUT)
    if args.command == "lint":
        code = _lint(
            args.suites,
            out,
            sys.stderr,
            args.unknown_types,
            verbose=args.verbose,
            assume=tuple(args.assume),
        )
    elif args.command == "init":
        from chatassert._init import init_files

        code = init_files(args.files, out, sys.stderr, schema_url=args.schema_url)
    elif args.command == "schema" and args.dialect is not None:
        if args.which != "spec":
            sys.stderr.write(
                f"chatassert schema: --dialect prints a spec schema, not {args.which}\n"
            )
            return EXIT_USAGE
        from chatassert._schemas import dialect_schema, render

        out.write(render(dialect_schema(args.dialect)))
        code = EXIT_OK
    elif args.command == "schema":
        if args.which == "report":
            from chatassert.reporting import report_schema

            schema = report_schema()
        else:
            schema = _spec_schema() if args.which == "spec" else _result_schema()
        out.write(json.dumps(schema, indent=2) + "\n")
        code = EXIT_OK
    elif args.command == "regate":
        code = _regate(args, out, sys.stderr)
    elif args.command == "validate":
        code = _validate(args, out, sys.stderr)
    elif args.command == "convert":
        from chatassert._convert import convert

        paths = _expand(args.logs, sys.stderr)
        code = EXIT_USAGE if paths is None else convert(args, paths, sys.stderr, _Output)
    else:
        code = _check(args, out, sys.stderr)
    out.flush()
    return code


def _load(
    path: str, err: IO[str], unknown_types: str = "error", assume: Sequence[str] = ()
) -> Suite | None:
    from chatassert.specs import load_suite

    try:
        suite = load_suite(path, unknown_types=unknown_types)
        return suite.assuming(assume, via="--assume") if assume else suite
    except SpecError as exc:
        err.write(f"{exc}\n")
    except OSError as exc:
        err.write(f"cannot read suite {path}: {exc.strerror or exc}\n")
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate: no file has that name
        err.write(f"cannot read suite {path!r}: not a valid file name\n")
    return None


def _say_unknown(suites: Sequence[Suite], err: IO[str]) -> None:
    """Say, once and before any report, which assertions are of unknown types (each is then
    reported skipped wherever it is checked: `--unknown-types skip`)."""
    from chatassert.specs._common import unknown_types

    for suite in suites:
        unknown = unknown_types(a for c in suite.cases for a in c.assertions())
        if unknown:
            listed = ", ".join(f"{name} ({n})" if n > 1 else name for name, n in unknown.items())
            where = suite.source or suite.name
            err.write(f"{where}: not checked, reported skipped: unknown assertion types {listed}\n")


def _say_unassumed(suites: Sequence[Suite], assume: Sequence[str], err: IO[str]) -> None:
    """Say which `--assume` conditions no test's `skip_if` names (a typo skips nothing)."""
    from chatassert._params import did_you_mean

    named = {c.metadata.get("skip_if") for s in suites for c in s.cases} - {None}
    for condition in dict.fromkeys(assume):
        if condition in named:
            continue
        known = sorted(str(n) for n in named)
        hint = did_you_mean(condition, known) or (
            f"the skip_if conditions are: {', '.join(known)}" if known else "no test has skip_if"
        )
        err.write(f"--assume {condition!r} names no test's skip_if: {hint}\n")


def _outputs(
    given: str | None, outputs: Sequence[str], err: IO[str]
) -> tuple[tuple[str, str | None], ...] | None:
    """The reports of a run, `(format, path)` each (path None: standard output).

    With no `--output`, one report on standard output; with several, each file's format is
    the one its extension names, and `--format` (which would force one format on them all)
    is a usage error, as is a file named twice (None, said on `err`).
    """
    if not outputs:
        return ((given or "text", None),)
    if len(outputs) > 1 and given is not None:
        err.write(
            f"chatassert check: --format {given} forces one format, but {len(outputs)} "
            "--output files are given; drop --format: each file's extension names its format\n"
        )
        return None
    seen: set[str] = set()
    out: list[tuple[str, str | None]] = []
    for path in outputs:
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            err.write(f"chatassert check: --output {path} is given twice\n")
            return None
        seen.add(key)
        fmt = _report_format(given, path, err)
        if fmt is None:
            return None
        out.append((fmt, path))
    return tuple(out)


def _report_format(given: str | None, output: str | None, err: IO[str]) -> str | None:
    """The report's format: `--format`, else the one `--output`'s extension names, else text.

    A `--format` that contradicts the extension is a usage error (None, said on `err`): a
    JUnit report in `report.html` is never what was meant.
    """
    named = format_named_by(output) if output else None
    if given is not None and named is not None and given != named:
        err.write(
            f"chatassert check: --format {given} does not match the extension of "
            f"--output {output} ({named}); drop --format, or name the file for {given}\n"
        )
        return None
    return given or named or "text"


def _lint(
    paths: Sequence[str],
    out: _Output,
    err: IO[str],
    unknown_types: str = "error",
    *,
    verbose: bool = False,
    assume: Sequence[str] = (),
) -> int:
    code = EXIT_OK
    for path in paths:
        if _is_workflow(path):
            code = max(code, _lint_workflow(path, out, err, verbose))
            continue
        suite = _load(path, err, unknown_types, assume)
        if suite is None:
            code = EXIT_USAGE
            continue
        _say_unknown([suite], err)
        _say_unassumed([suite], assume, err)
        count = sum(len(c.assertions()) for c in suite.cases)
        skipped = sum(c.skip is not None for c in suite.cases)
        also = f", {skipped} skipped" if skipped else ""
        out.write(
            f"{path}: ok ({suite.dialect}, {len(suite.cases)} cases, {count} assertions{also})\n"
        )
        if verbose:
            _lint_cases(suite, out)
    return code


_SUITE_KEYS = ("kind", "spec", "turns", "test_cases", "tests", "cases", "assertions")


def _is_workflow(path: str) -> bool:
    """Whether `lint` should read `path` as a workflow: a `*.workflow.{yaml,yml,json}` file,
    or a document whose top level is a workflow (`entry` and `states`) or a PromptKit pack
    with a `workflow` section, and none of a suite's keys."""
    if path.lower().endswith((".workflow.yaml", ".workflow.yml", ".workflow.json")):
        return True
    from chatassert.specs._yaml import parse_yaml, read_spec_file

    try:
        doc = parse_yaml(read_spec_file(path, regular_only=True), path)
    except (SpecError, OSError, ValueError):
        return False  # the suite loader says what is wrong
    if not isinstance(doc, dict) or any(key in doc for key in _SUITE_KEYS):
        return False
    section = doc.get("workflow")
    return ("entry" in doc and "states" in doc) or (
        isinstance(section, dict) and "states" in section
    )


def _lint_workflow(path: str, out: _Output, err: IO[str], verbose: bool) -> int:
    """Validate a workflow file as `check --workflow` loads it."""
    from chatassert._workflow import Workflow

    try:
        flow = Workflow.load(path)
    except (SpecError, OSError, ValueError) as exc:
        err.write(f"{path}: not a valid workflow: {exc}\n")
        return EXIT_USAGE
    terminal = ", ".join(flow.terminal_states) or "none"
    count = len(flow.states)
    out.write(
        f"{path}: ok (workflow, {count} state{'' if count == 1 else 's'}, entry "
        f"{flow.entry!r}, terminal: {terminal}; use it with check --workflow)\n"
    )
    if verbose:
        for name, events in flow.states.items():
            moves = ", ".join(f"{event} -> {target}" for event, target in events.items())
            out.write(f"  {name}: {moves or 'terminal'}\n")
    return EXIT_OK


def _lint_cases(suite: Suite, out: _Output) -> None:
    """One line per case, then the keys it keeps that are not used offline."""
    from chatassert.specs._common import NOT_USED_OFFLINE

    for case in suite.cases:
        count = len(case.assertions())
        out.write(f"  {case.name}: {count} assertion{'' if count == 1 else 's'}\n")
        if case.steps:
            out.write(f"    steps: {', '.join(str(s.step) for s in case.steps)}\n")
        if case.skip is not None:
            out.write(f"    skipped: {case.skip}\n")
        elif case.metadata.get("skip_if") is not None:
            condition = case.metadata["skip_if"]
            out.write(f"    skip_if {condition!r}: checked unless --assume {condition}\n")
        kept = case.metadata.get(NOT_USED_OFFLINE) or {}
        if kept:
            out.write(f"    not used offline: {', '.join(kept)}\n")


# -- the plan of a run: what every worker needs to rebuild the suites -----------------------


@dataclass(frozen=True)
class _Plan:
    """What a run checks and how it reports; picklable, so workers rebuild suites from it."""

    suite: str | None
    asserts: tuple[str, ...]
    transcript_format: str | None
    outputs: tuple[tuple[str, str | None], ...]
    verbose: bool
    workflow: str | None = None
    fail_fast: bool = False
    unknown_types: str = "error"
    assume: tuple[str, ...] = ()
    full_results: bool = False
    show: int = 10
    keyword: str | None = None
    tags: tuple[str, ...] = ()
    repeat: int | None = None
    flaky: str = "skip"
    judge_prices: str | None = None
    no_plan: bool = False
    group_by: str | None = None
    group_window: int = 1000
    fold: bool = False
    """Workers fold each chunk's rows into a `_Folded` (`_foldable`: when nothing needs
    them one by one in the main process)."""

    @property
    def formats(self) -> tuple[str, ...]:
        """The distinct formats of the reports, in the order of their first output."""
        return tuple(dict.fromkeys(fmt for fmt, _ in self.outputs))


def _suites(plan: _Plan, err: IO[str]) -> list[Suite] | None:
    suites: list[Suite] = []
    if plan.suite is not None:
        suite = _load(plan.suite, err, plan.unknown_types, plan.assume)
        if suite is None:
            return None
        suites.append(suite)
    if plan.asserts:
        try:
            suites.append(inline_suite(plan.asserts))
        except SpecError as exc:
            err.write(f"{exc}\n")
            return None
    if plan.workflow is not None:
        from chatassert._workflow import Workflow

        try:
            flow = Workflow.load(plan.workflow)
        except (OSError, ValueError) as exc:
            err.write(f"cannot load workflow {plan.workflow}: {exc}\n")
            return None
        suites = [suite.with_workflow(flow) for suite in suites]
    if plan.repeat is not None:
        suites = [suite.with_repeat(plan.repeat) for suite in suites]
    if plan.fail_fast:
        suites = [
            replace(suite, cases=tuple(replace(c, fail_fast=True) for c in suite.cases))
            for suite in suites
        ]
    return suites


# -- checking chunks of lines (in this process or in workers) --------------------------------

# What a chunk produces, in input order, is a list of `Item`s (`chatassert.records`): rows
# (case outcomes, unmatched and unreadable records), held steps of multi-step tests (paired by
# the main process's checker, where every chunk's lines meet), and `RECORD_END` after the
# items of each log record.


def _checker(plan: _Plan, suites: Sequence[Suite], *, trees: bool = False) -> Checker:
    """The checker of a run (in the main process or a worker): its rows carry the renderings
    of the reports written as the run goes, and no tree unless asked (the reports need none;
    Ray tasks send a failing row's tree back, for the summary's examples). The lines of
    multi-step tests are paired in the main process, across chunks."""
    prices = read_prices(plan.judge_prices) if plan.judge_prices is not None else None
    return Checker(
        suites,
        keyword=plan.keyword,
        tags=plan.tags,
        read_as=plan.transcript_format,
        formats=[f for f in plan.formats if REPORT_FORMATS[f].rows != "summary"],
        trees=trees,
        examples=plan.show,
        full_results=plan.full_results,
        verbose=plan.verbose,
        flaky=plan.flaky,
        prices=prices,
        plan_judging=not plan.no_plan,
        hold_steps=False,
    )


_WORKER: Checker | None = None
_WORKER_PLAN: _Plan | None = None
_LOADED: tuple[_Plan, list[Suite]] | None = None
"""The suites the main process loaded, for workers it forks (they inherit them, and need not
load them again); a worker that is spawned instead loads them from the plan."""


def _init_worker(plan: _Plan) -> None:
    global _WORKER, _WORKER_PLAN
    # Ctrl-C reaches every process of the terminal's group: the main process alone answers it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    loaded = _LOADED
    suites = loaded[1] if loaded is not None and loaded[0] == plan else _suites(plan, sys.stderr)
    if suites is None:  # the suite changed since the main process loaded it
        raise SystemExit(EXIT_USAGE)
    _WORKER = _checker(plan, suites)
    _WORKER_PLAN = plan


def _foldable(plan: _Plan, jobs: int, args: argparse.Namespace) -> bool:
    """Whether workers may fold their chunks (`_Folded`): with several jobs, when the run
    stops at no particular row (`--strict`, `--max-failures`) and no report spools rows to
    write them at the end (JUnit, HTML): each is streamed or written from the summary."""
    return (
        jobs > 1
        and plan.group_by is None
        and not args.strict
        and args.max_failures is None
        and all(REPORT_FORMATS[fmt].rows != "spooled" for fmt in plan.formats)
    )


@dataclass(slots=True)
class _Folded:
    """A chunk's rows as the worker that checked them folded them: what the main process
    would have done with each case row (counted it, kept it as an example, written its report
    lines) done in the worker, so that only counts and text travel back.

    Attributes:
        summary: The chunk's case rows and records, counted (its examples: the first `--show`).
        text: Per streamed format, the chunk's report lines, in order.
        rows: Its unreadable and unmatched rows, which the main process counts and lists on
            stderr itself (their report lines are in `text`).
    """

    summary: Summary
    text: dict[str, str]
    rows: list[Row]


def _folded(items: list[Item]) -> list[Item] | _Folded:
    """A worker's chunk, folded when the run's plan allows it and no held step of a
    multi-step test is among its items (those are paired in the main process)."""
    plan = _WORKER_PLAN
    if plan is None or not plan.fold or any(type(item) is HeldStep for item in items):
        return items
    outputs = {fmt: io.StringIO() for fmt in plan.formats if REPORT_FORMATS[fmt].rows == "streamed"}
    writer = ReportWriter(
        outputs, full_results=plan.full_results, verbose=plan.verbose, flaky=plan.flaky
    )
    summary = Summary(keep=plan.show, records=0)
    rows: list[Row] = []
    records = 0
    for row in items:
        if type(row) is not Row:  # the end of a record: no held step is among the items
            records += 1
            continue
        writer.add(row)
        if row.kind == "case":
            summary.add_row(row)
        else:
            rows.append(row)
    summary.records = records
    return _Folded(summary, {fmt: out.getvalue() for fmt, out in outputs.items()}, rows)


def _work(source: str, first: int, lines: list[str]) -> list[Item] | _Folded:
    """Check lines read by the main process (standard input, a pipe, a `.gz`)."""
    assert _WORKER is not None
    _WORKER.reset()
    return _folded(_check_lines(_WORKER, source, first, lines))


def _work_range(path: str, start: int, end: int, first: int) -> list[Item] | _Folded:
    """Read the bytes `start:end` of a log (whole lines, the first numbered `first`) and
    check them: the main process only says where the pieces of a file are."""
    assert _WORKER is not None
    _WORKER.reset()
    try:
        with open(path, "rb") as stream:
            stream.seek(start)
            data = stream.read(end - start)
    except OSError as exc:
        error = f"cannot read the log: {exc.strerror or exc}"
        return [Row(kind="unreadable", source=f"{path}:{first}", error=error), RECORD_END]
    return _folded(_check_lines(_WORKER, path, first, _split_lines(data, start == 0)))


def _split_lines(data: bytes, at_start: bool) -> list[str]:
    r"""The lines of whole-line bytes of a log as `open_text` reads them: UTF-8 (a byte order
    mark skipped at the start of the file), bytes that are not UTF-8 kept as escapes, lines
    ending at `\n` only and keeping it.

    Example:
        >>> _split_lines(b'{"a": 1}\r\n\n{"b": 2}', True)
        ['{"a": 1}\r\n', '\n', '{"b": 2}']
    """
    text = data.decode("utf-8-sig" if at_start else "utf-8", "surrogateescape")
    lines = text.split("\n")
    last = lines.pop()  # empty when the data ends with a newline
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def _splittable(path: str) -> bool:
    """Whether workers can read a log by byte ranges: a regular file read as lines (not
    standard input, a pipe, a `.gz`, or a `.json` file that may be one document)."""
    return (
        path != "-"
        and not path.endswith(".gz")
        and not path.lower().endswith(".json")
        and os.path.isfile(path)
    )


def _byte_ranges(path: str, size: int = _CHUNK_BYTES) -> Iterator[tuple[int, int, int, str | None]]:
    """Cut a log into pieces of whole lines of about `size` bytes: `(start, end, number of the
    first line, None)`, in order. A piece ends at the last newline of a block of `size`
    bytes, so a line longer than a block makes its piece longer; the last line needs no
    newline. When the rest of the file cannot be read, the last item is
    `(offset, offset, number of the next line, error)`.

    The file is read once, in blocks, to find the cuts and count the lines (so each piece
    knows its line numbers); nothing is decoded or sent but the offsets.
    """
    from chatassert.transcripts import READ_ERRORS, read_error

    try:
        stream = open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise _LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
    block = bytearray(size)
    start = read = 0
    line = 1
    with stream:
        while True:
            try:
                n = stream.readinto(block)
            except READ_ERRORS as exc:
                yield read, read, line, f"cannot read the rest of the log: {read_error(exc)}"
                return
            if not n:
                break
            cut = block.rfind(b"\n", 0, n)
            if cut >= 0:  # else a line longer than a block: the piece grows
                end = read + cut + 1
                yield start, end, line, None
                line += block.count(b"\n", 0, cut + 1)
                start = end
            read += n
    if start < read:
        yield start, read, line, None


def _check_lines(checker: Checker, source: str, first: int, lines: list[str]) -> list[Item]:
    items: list[Item] = []
    for offset, line in enumerate(lines):
        if line.strip():
            checker.line_into(line, source, first + offset, items)
    return items


def _paired(
    checker: Checker, batches: Generator[list[Item] | _Folded, None, None]
) -> Generator[Sequence[Row | RecordEnd] | _Folded, None, None]:
    """The batches of items, with the lines of multi-step tests paired into checked runs."""
    try:
        for items in batches:
            yield items if isinstance(items, _Folded) else checker.pair(items)
        yield checker.flush()
    finally:
        batches.close()


def _chunks(paths: Sequence[str]) -> Iterator[tuple[str, int, list[str], str | None, int]]:
    """Read the logs as chunks of raw lines: `(source, first line number, lines, error,
    bytes)`, where `bytes` is how far the chunk moved the reading of the file (of compressed
    bytes, for a `.gz`; 0 when that cannot be known: standard input, a pipe).

    When the rest of a log cannot be read (a truncated or corrupt `.gz`), its last chunk
    carries the error, reported against the line after the last one read; the next log is
    read as usual.
    """
    from chatassert.transcripts import READ_ERRORS, numbered_lines, open_text, read_error

    for path in paths:
        try:
            stream = open_text(path)
        except OSError as exc:
            raise _LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
        lines: list[str] = []
        size = 0
        first, number = 1, 0
        at = 0

        def moved(stream: IO[str] = stream) -> int:
            nonlocal at
            now = _consumed(stream)
            if now is None:
                return 0
            step, at = now - at, now
            return max(step, 0)

        try:
            for number, line in numbered_lines(stream, path):
                if not lines:
                    first = number
                lines.append(line)
                size += len(line)
                if size >= _CHUNK_BYTES or len(lines) >= _CHUNK_LINES:
                    yield path, first, lines, None, moved()
                    lines, size = [], 0
            if lines:
                yield path, first, lines, None, moved()
        except READ_ERRORS as exc:
            first = number + 1 - len(lines)
            error = f"cannot read the rest of the log: {read_error(exc)}"
            yield path, first, lines, error, moved()
        finally:
            if stream is not sys.stdin:
                stream.close()


def _consumed(stream: IO[str]) -> int | None:
    """How many bytes of its file a log's text stream has read (compressed bytes for a
    `.gz`: the position in the raw file); None when a stream cannot tell (a pipe)."""
    import gzip

    raw: Any = getattr(stream, "buffer", None)
    if isinstance(raw, gzip.GzipFile):
        raw = raw.fileobj
    try:
        return int(raw.tell()) if raw is not None and raw.seekable() else None
    except (OSError, ValueError, AttributeError):
        return None


def _log_bytes(paths: Sequence[str]) -> int | None:
    """The total size of the logs (as stored: compressed for a `.gz`); None when one is not
    a regular file (standard input, a pipe), whose size is not known in advance."""
    import stat

    total = 0
    for path in paths:
        try:
            info = os.stat(path) if path != "-" else None
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode):
            return None
        total += info.st_size
    return total


class _Meter:
    """How many bytes of the logs have been checked, out of `total` (None when unknown)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0


def _read_failure(source: str, first: int, lines: list[str], error: str | None) -> list[Item]:
    """The items of a log whose rest could not be read, after the chunk `first, lines`: what
    could not be read is a record of its own, unreadable (so a `.gz` that is not gzip is an
    unreadable log, exit 3, not a log without records)."""
    if error is None:
        return []
    where = f"{source}:{first + len(lines)}"
    return [Row(kind="unreadable", source=where, error=error), RECORD_END]


def _items(
    plan: _Plan, suites: list[Suite], paths: Sequence[str], jobs: int, meter: _Meter | None = None
) -> Generator[list[Item] | _Folded, None, None]:
    """Check the logs chunk by chunk, yielding each chunk's items in input order (folded by
    the worker that checked them when the plan says so).

    With one job, each line's items are yielded as soon as it is checked (so an interrupted
    run reports every line checked); with several, each chunk's, and at most three chunks per
    job are in flight, so memory stays bounded whatever the size of the logs.

    `meter` counts the bytes checked: with one job, a chunk's bytes share by line (by the
    length of each); with several, the bytes of each piece a worker has finished.
    """
    meter = meter or _Meter(None)
    if plan.group_by is not None:  # the bytes behind a group are not counted: rates only
        yield from _grouped_items(plan, suites, paths, jobs)
        return
    if jobs <= 1:
        checker = _checker(plan, suites)
        for source, first, lines, error, moved in _chunks(paths):
            before, seen, length = meter.done, 0, sum(map(len, lines)) or 1
            for offset, line in enumerate(lines):
                seen += len(line)
                if line.strip():
                    items: list[Item] = []
                    checker.line_into(line, source, first + offset, items)
                    meter.done = before + moved * seen // length
                    yield items
            meter.done = before + moved
            if error is not None:
                yield _read_failure(source, first, lines, error)
        return
    global _LOADED
    _LOADED = (plan, suites)
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(plan,))
    pending: deque[tuple[Future[list[Item] | _Folded], int]] = deque()

    def finished() -> list[Item] | _Folded:
        future, moved = pending.popleft()
        result = future.result()
        meter.done += moved
        return result

    try:
        for task, moved in _tasks(paths):
            if isinstance(task, list):  # a read failure, reported in its place
                failed: Future[list[Item] | _Folded] = Future()
                failed.set_result(task)
                pending.append((failed, moved))
            else:
                pending.append((pool.submit(*task), moved))
            if len(pending) >= 3 * jobs:
                yield finished()
        while pending:
            yield finished()
    except (KeyboardInterrupt, GeneratorExit):  # stop now, not after the chunks in flight
        _stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _LOADED = None


def _tasks(paths: Sequence[str]) -> Iterator[tuple[tuple[Any, ...] | list[Item], int]]:
    """What workers do, in input order, each with the bytes of the log it covers:
    `(function, *arguments)` for a piece of a log, or the items of a read failure. A regular
    file is cut into byte ranges that workers read themselves; other logs (standard input,
    pipes, `.gz`, `.json`) are read here, in chunks of lines sent along."""
    for path in paths:
        if _splittable(path):
            for start, end, first, error in _byte_ranges(path):
                if error is not None:
                    row = Row(kind="unreadable", source=f"{path}:{first}", error=error)
                    yield [row, RECORD_END], 0
                else:
                    yield (_work_range, path, start, end, first), end - start
            continue
        for source, first, lines, error, moved in _chunks([path]):
            if lines:
                yield (_work, source, first, lines), moved
                moved = 0
            if error is not None:
                yield _read_failure(source, first, lines, error), moved


# -- grouping lines into conversations (--group-by) ---------------------------------------------
#
# The main process reads and groups the lines (a group is complete only once the lines after it
# are read, so grouping cannot be split between workers); with --jobs, workers get whole
# groups, a batch at a time, and read and check them.

_GROUP_BATCH = 64


def _groups(plan: _Plan, paths: Sequence[str]) -> Iterator[Any]:
    """The groups of the logs, in the order they complete, with a `Record` for each line that
    cannot be read or grouped and a list of items for a log whose rest cannot be read."""
    from chatassert.transcripts import READ_ERRORS, numbered_lines, open_text, read_error
    from chatassert.transcripts._group import grouped

    assert plan.group_by is not None
    for path in paths:
        try:
            stream = open_text(path)
        except OSError as exc:
            raise _LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
        failure: list[Item] = []

        def lines(
            stream: IO[str] = stream, path: str = path, failure: list[Item] = failure
        ) -> Iterator[tuple[int, str]]:
            number = 0
            try:
                for number, line in numbered_lines(stream, path):
                    yield number, line
            except READ_ERRORS as exc:  # the groups read so far are still checked
                error = f"cannot read the rest of the log: {read_error(exc)}"
                where = f"{path}:{number + 1}"
                failure.extend([Row(kind="unreadable", source=where, error=error), RECORD_END])

        try:
            yield from grouped(lines(), path, plan.group_by, plan.group_window)
        finally:
            if stream is not sys.stdin:
                stream.close()
        if failure:
            yield failure


def _check_grouped(checker: Checker, group: Any, items: list[Item]) -> None:
    """Check one group (or report a line that could not be grouped), then `RECORD_END`."""
    from chatassert.transcripts._group import Group

    record = group.record(checker.transcript_format) if isinstance(group, Group) else group
    checker.record_into(record, f"{record.source}:{record.line}", items)


def _work_groups(groups: list[Any]) -> list[Item]:
    """Check whole groups in a worker."""
    assert _WORKER is not None
    _WORKER.reset()
    items: list[Item] = []
    for group in groups:
        _check_grouped(_WORKER, group, items)
    return items


def _grouped_items(
    plan: _Plan, suites: list[Suite], paths: Sequence[str], jobs: int
) -> Generator[list[Item], None, None]:
    """`_items` with --group-by: each group's items as it completes (in batches with
    --jobs, at most three per job in flight)."""
    if jobs <= 1:
        checker = _checker(plan, suites)
        for group in _groups(plan, paths):
            if isinstance(group, list):
                yield group
                continue
            items: list[Item] = []
            _check_grouped(checker, group, items)
            yield items
        return
    global _LOADED
    _LOADED = (plan, suites)
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(plan,))
    pending: deque[Future[list[Item]]] = deque()
    batch: list[Any] = []

    def send(task: list[Any] | list[Item], done: bool) -> None:
        if done:
            ready: Future[list[Item]] = Future()
            ready.set_result(task)
            pending.append(ready)
        else:
            pending.append(pool.submit(_work_groups, task))

    try:
        for group in _groups(plan, paths):
            if isinstance(group, list):  # a read failure, in its place
                if batch:
                    send(batch, False)
                    batch = []
                send(group, True)
            else:
                batch.append(group)
                if len(batch) >= _GROUP_BATCH:
                    send(batch, False)
                    batch = []
            while len(pending) >= 3 * jobs:
                yield pending.popleft().result()
        if batch:
            send(batch, False)
        while pending:
            yield pending.popleft().result()
    except (KeyboardInterrupt, GeneratorExit):
        _stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _LOADED = None


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate a pool's worker processes (Python 3.14 has `terminate_workers()` for this)."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.terminate()


# -- the check command -------------------------------------------------------------------------

_LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".arena.json", ".recording.json")
"""The files of a directory given as a log: JSON lines, and PromptKit recordings."""


def _expand(patterns: Sequence[str], err: IO[str]) -> list[str] | None:
    """Expand globs and directories into files, in order; report what matches nothing."""
    out: list[str] = []
    for pattern in patterns:
        if pattern == "-":
            out.append(pattern)
        elif os.path.isdir(pattern):
            found = sorted(
                p
                for p in glob.glob(os.path.join(pattern, "*"))
                if p.endswith(_LOG_SUFFIXES) and os.path.isfile(p)
            )
            if not found:
                err.write(f"no .jsonl, .jsonl.gz or recording file in directory {pattern}\n")
                return None
            out.extend(found)
        elif glob.has_magic(pattern):
            found = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
            if not found:
                err.write(f"no file matches {pattern!r}\n")
                return None
            out.extend(found)
        elif os.path.exists(pattern):  # a file, or a pipe such as <(...) or /dev/stdin
            out.append(pattern)
        else:
            err.write(f"cannot read log {pattern}: no such file\n")
            return None
    return out


def _size(count: float) -> str:
    """A byte count for people: `_size(1536)` is `'1.5 kB'`."""
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} TB"  # pragma: no cover - the loop always returns


def _clock(seconds: float) -> str:
    """A duration as `m:ss` (or `h:mm:ss`)."""
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class _Progress:
    """How far a run is, on stderr, from the bytes of the logs checked (`_Meter`).

    `mode` is `auto` (a bar redrawn in place, only when stderr is a terminal, from the first
    second on), `plain` (a line now and then, for CI logs: every 5 % or 10 s, at most one
    each 2 s, and a last one at the end) or `off`.
    """

    def __init__(self, err: IO[str], mode: str, meter: _Meter) -> None:
        self.err = err
        self.meter = meter
        self.mode = mode if mode != "auto" or _isatty(err) else "off"
        self.start = time.monotonic()
        self.next = self.start + _delay()
        self.drawn = False
        self.shown = -1.0  # the fraction done at the last plain line
        self.last = self.start

    def update(self, summary: Summary, records: int) -> None:
        """Draw the bar, or write a plain line, when it is time to."""
        if self.mode == "off":
            return
        now = time.monotonic()
        if now < self.next:
            return
        if self.mode == "auto":
            self.next = now + 0.25
            width = _columns(self.err)
            self.err.write(f"\r\x1b[2K{self.line(summary, records, now, width)[: width - 1]}")
            self.err.flush()
            self.drawn = True
            return
        self.next = now + 2.0
        fraction = self.fraction()
        if (
            self.drawn
            and now - self.last < 10.0
            and (fraction is None or fraction - self.shown < 0.05)
        ):
            return
        self.plain(summary, records, now)

    def plain(self, summary: Summary, records: int, now: float) -> None:
        """Write a plain progress line."""
        self.err.write(f"chatassert: {self.line(summary, records, now, None)}\n")
        self.err.flush()
        self.drawn = True
        self.last = now
        self.shown = self.fraction() or 0.0

    def fraction(self) -> float | None:
        """The part of the logs' bytes checked, when their size is known."""
        total = self.meter.total
        if total is None:
            return None
        return 1.0 if total == 0 else min(self.meter.done / total, 1.0)

    def line(self, summary: Summary, records: int, now: float, width: int | None) -> str:
        """The text of the bar (`width` given) or of a plain line."""
        elapsed = max(now - self.start, 1e-9)
        c = summary.counts
        counts = (
            f"{records:,} records, {summary.total:,} checked, {c['failed']:,} failed, "
            f"{c['error']:,} errors"
        )
        fraction = self.fraction()
        done = self.meter.done
        if fraction is None or self.meter.total is None:
            return f"{_size(done)} read ({records / elapsed:,.0f} records/s) · {counts}"
        rate = done / elapsed
        eta = _clock((self.meter.total - done) / rate) if rate > 0 else "?"
        figures = f"{_size(done)}/{_size(self.meter.total)} {_size(rate)}/s ETA {eta} · {counts}"
        percent = f"{100 * fraction:3.0f}%"
        if width is None:
            return f"{percent} {figures}"
        bar = max(10, min(30, width - len(percent) - len(figures) - 5))
        full = int(bar * fraction)
        return f"{percent} |{'█' * full}{' ' * (bar - full)}| {figures}"

    def close(self, summary: Summary | None = None, records: int = 0) -> None:
        """Clear the bar; in plain mode, write the last line (given the `summary`)."""
        if self.mode == "auto" and self.drawn:
            self.err.write("\r\x1b[2K")
            self.err.flush()
        elif self.mode == "plain" and summary is not None:
            self.plain(summary, records, time.monotonic())
        self.mode = "off"


def _delay() -> float:
    """Seconds before the first progress: 1, or `CHATASSERT_PROGRESS_DELAY`."""
    try:
        return max(float(os.environ.get("CHATASSERT_PROGRESS_DELAY", "1")), 0.0)
    except ValueError:
        return 1.0


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):
        return False


def _columns(stream: IO[str]) -> int:
    """The width of the terminal `stream` writes to (80 when it cannot be known)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80


_RAY_ONLY = ("--judge-concurrency", "--judge-rpm", "--results", "--resume", "--rejudge-errors")
"""Options of `check --engine ray` alone."""


def _check(args: argparse.Namespace, out: _Output, err: IO[str]) -> int:
    paths = list(args.paths)
    suite_path = args.suite
    if suite_path is None and not args.asserts:
        if not paths:
            err.write("chatassert check: give a SUITE and LOGs, or --assert SPEC and LOGs\n")
            return EXIT_USAGE
        suite_path = paths.pop(0)
    if not paths and suite_path is not None:  # a suite whose cases name their recordings
        suite = _load(suite_path, err, args.unknown_types)
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
    outputs = _outputs(args.format, args.output, err)
    if outputs is None:
        return EXIT_USAGE
    plan = _Plan(
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
        from chatassert.transcripts import FORMATS

        if plan.transcript_format not in FORMATS:
            err.write(
                f"unknown transcript format {plan.transcript_format!r}; known: "
                f"{', '.join(FORMATS)}\n"
            )
            return EXIT_USAGE
    if plan.keyword is not None:
        from chatassert._select import KeywordError, compile_keyword

        try:
            compile_keyword(plan.keyword)
        except KeywordError as exc:
            err.write(f"chatassert check: -k {plan.keyword!r}: {exc}\n")
            return EXIT_USAGE
    suites = _suites(plan, err)
    ray_engine = args.engine == "ray"
    ray_only = [o for o in _RAY_ONLY if getattr(args, o.lstrip("-").replace("-", "_"), None)]
    if ray_only and not ray_engine:
        err.write(f"chatassert check: {', '.join(ray_only)}: for --engine ray only\n")
        return EXIT_USAGE
    files = paths if ray_engine else _expand(paths, err)  # Ray's readers open URIs too
    if suites is None or files is None:
        return EXIT_USAGE
    if plan.keyword is not None or plan.tags:
        total = sum(len(suite.cases) for suite in suites)
        if len(_checker(plan, suites).deselected) == total:
            chosen = " and ".join(
                [f"-k {plan.keyword!r}"] * (plan.keyword is not None)
                + [f"--tag {' --tag '.join(plan.tags)}"] * bool(plan.tags)
            )
            err.write(
                f"chatassert check: {chosen} selects none of the {total} case"
                f"{'s' if total != 1 else ''} of the suites\n"
            )
            return EXIT_USAGE
    _say_unknown(suites, err)
    _say_unassumed(suites, plan.assume, err)
    reports = _Reports()
    try:
        if not reports.open(plan.outputs, out, err):
            return EXIT_USAGE
        if ray_engine:
            from chatassert._ray_engine import run_ray

            # a failing row's tree travels back from the tasks: the summary's examples
            checker = _checker(plan, suites, trees=True)
            code = run_ray(
                checker,
                _writer(plan, reports, args, _tags(suites)),
                lambda summary, writer, logs: _finish(plan, summary, writer, args, logs),
                lambda summary, writer, logs, stopped: _end_run(
                    plan, checker, summary, writer, args, logs, stopped, err
                ),
                files,
                args,
                err,
            )
        else:
            plan = replace(plan, fold=_foldable(plan, args.jobs, args))
            code = _run(plan, suites, files, args, args.max_failures, reports, err)
        reports.close()  # a full disk often shows only here, when the last of it is written
        return code
    finally:
        reports.close(quietly=True)  # after an error: what could be written is kept


class _Tee:
    """The outputs of one report format: each gets every write."""

    def __init__(self) -> None:
        self.outputs: list[_Output] = []

    def write(self, text: str) -> int:
        """Write `text` to each output."""
        for output in self.outputs:
            output.write(text)
        return len(text)


class _Reports:
    """The reports of a run: per format, the outputs it goes to."""

    def __init__(self) -> None:
        self.by_format: dict[str, _Tee] = {}
        self.owned: list[_Output] = []

    def open(self, outputs: Sequence[tuple[str, str | None]], out: _Output, err: IO[str]) -> bool:
        """Open every output (None: `out`) before anything is checked; False, having said why
        on `err`, when one cannot be written."""
        for fmt, path in outputs:
            if path is None:
                self.add(fmt, out)
                continue
            try:
                stream = open(path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                err.write(f"cannot write {path}: {exc.strerror or exc}\n")
                return False
            self.add(fmt, _Output(stream, path), owned=True)
        return True

    def add(self, fmt: str, output: _Output, owned: bool = False) -> None:
        """Send the `fmt` report to `output` too (closed at the end when `owned`)."""
        self.by_format.setdefault(fmt, _Tee()).outputs.append(output)
        if owned:
            self.owned.append(output)

    def get(self, fmt: str) -> _Tee | None:
        """The outputs of the `fmt` report, if the run writes one."""
        return self.by_format.get(fmt)

    def close(self, quietly: bool = False) -> None:
        """Close the files opened for the run (a write error raised, unless `quietly`)."""
        while self.owned:
            output = self.owned.pop(0)
            if quietly:
                with contextlib.suppress(_OutputError):
                    output.close()
            else:
                output.close()


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


class _Interrupts:
    """Ctrl-C, answered only between log records, so a report never holds half a record.

    While a record is being checked, SIGINT raises `KeyboardInterrupt` at once; while its
    results are being counted and written, SIGINT is only noted, and `check()` raises it
    afterwards. One handler serves the whole run (switching handlers per record would cost
    more than reading the record). Outside the main thread, where no signal arrives, it does
    nothing.
    """

    def __init__(self) -> None:
        self.armed = True
        self.pending = False
        self.previous: Any = None
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            self.previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.armed:
            raise KeyboardInterrupt
        self.pending = True

    def check(self) -> None:
        """Raise the `KeyboardInterrupt` of a SIGINT noted while disarmed."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def restore(self) -> None:
        """Put back the SIGINT handler found at the start."""
        if self.active and self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _run(
    plan: _Plan,
    suites: list[Suite],
    files: list[str],
    args: argparse.Namespace,
    max_failures: int | None,
    reports: _Reports,
    err: IO[str],
) -> int:
    interrupts = _Interrupts()
    try:
        return _run_until_done(plan, suites, files, args, max_failures, reports, err, interrupts)
    finally:
        interrupts.restore()


def _run_until_done(
    plan: _Plan,
    suites: list[Suite],
    files: list[str],
    args: argparse.Namespace,
    max_failures: int | None,
    reports: _Reports,
    err: IO[str],
    interrupts: _Interrupts,
) -> int:
    """Check the logs and write the report: whole, or, when interrupted, partial (exit 130)."""
    summary = Summary(keep=args.show, records=0)
    writer = _writer(plan, reports, args, _tags(suites))
    meter = _Meter(None if plan.group_by is not None else _log_bytes(files))
    progress = _Progress(err, args.progress, meter)
    stopped: str | None = None
    checker = _checker(plan, suites)
    batches = _paired(checker, _items(plan, suites, files, args.jobs, meter))
    try:
        while not stopped:
            interrupts.armed = True
            items = next(batches, None)
            interrupts.armed = False
            if items is None:
                break
            if isinstance(items, _Folded):
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
                    if stopped:
                        break
                elif kind == "unreadable" and args.strict:
                    progress.close()  # stop, but leave a complete report of what was read
                    say_strict_stop(row, err)
                    _finish(plan, summary, writer, args, files)
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
        _finish(plan, summary, writer, args, files)
        return summary.exit_code()
    except _LogError as exc:
        progress.close()
        err.write(f"{exc}\n")
        return EXIT_USAGE
    progress.close(summary, summary.records or 0)
    return _end_run(plan, checker, summary, writer, args, files, stopped, err)


def _end_run(
    plan: _Plan,
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
    if summary.records == 0:
        err.write(f"{summary.notice}\n")
    _finish(plan, summary, writer, args, files)
    return EXIT_FAILED if stopped else summary.exit_code()


def _writer(
    plan: _Plan,
    reports: _Reports,
    args: argparse.Namespace,
    tags: dict[tuple[str, str], tuple[str, ...]] | None = None,
    *,
    subjects: bool = True,
) -> ReportWriter:
    """The writer of a run's reports, to the outputs `reports` opened (`subjects`: whether
    the rows come with their subjects, not read back from a report)."""
    outputs = {fmt: tee for fmt in plan.formats if (tee := reports.get(fmt)) is not None}
    # the text report wraps at the terminal's width when it is read there
    to_terminal = not getattr(args, "output", None) and _isatty(sys.stdout)
    return ReportWriter(
        outputs,
        show=args.show,
        verbose=args.verbose,
        full_results=plan.full_results,
        flaky=plan.flaky,
        tags=tags,
        width=_columns(sys.stdout) if to_terminal else 120,
        subjects=subjects,
    )


def _finish(
    plan: _Plan,
    summary: Summary,
    writer: ReportWriter,
    args: argparse.Namespace,
    files: Sequence[str] = (),
) -> None:
    """End each report: the JSON summary line, the JUnit document, the text or HTML summary
    (the HTML page with the run's metadata)."""
    writer.finish(summary, _run_meta(plan, args, files))


def _tags(suites: Sequence[Suite]) -> dict[tuple[str, str], tuple[str, ...]]:
    """The tags of each `(suite, case)` that has some, for the HTML report's filter."""
    return {(s.name, c.name): c.tags for s in suites for c in s.cases if c.tags}


def _run_meta(plan: _Plan, args: argparse.Namespace, files: Sequence[str]) -> dict[str, Any]:
    """What the HTML report says of the run: date, command line, suites, logs (relative to
    the working directory when below it), version and duration."""
    import datetime
    import shlex

    started = getattr(args, "started", time.time())
    suites = [relative_to_cwd(plan.suite)] if plan.suite is not None else []
    suites += [f"--assert {spec}" for spec in plan.asserts]
    return {
        "date": datetime.datetime.fromtimestamp(started).astimezone().isoformat(timespec="seconds"),
        "command": shlex.join(["chatassert", *getattr(args, "argv", [])]),
        "suites": suites,
        "logs": [relative_to_cwd(os.path.abspath(f)) if f != "-" else f for f in files],
        "version": __version__,
        "duration": round(time.time() - started, 3),
    }


# -- regate ------------------------------------------------------------------------------------


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


def _regate(args: argparse.Namespace, out: _Output, err: IO[str]) -> int:
    thresholds = _thresholds(args.min_scores, err)
    outputs = _outputs(args.format, args.output, err)
    if thresholds is None or outputs is None:
        return EXIT_USAGE
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
    plan = _Plan(
        None, (), None, outputs, args.verbose, full_results=args.full_results, show=args.show,
        flaky=args.flaky,
    )  # fmt: skip
    summaries = (v["summary"] for v, k in zip(lines, kinds, strict=True) if k == "summary")
    stored: dict[str, Any] = next(summaries, {})
    records = stored.get("records")
    summary = Summary(keep=args.show, records=None if records is None else int(records))
    summary.interrupted = bool(stored.get("interrupted"))
    reports = _Reports()
    try:
        if not reports.open(plan.outputs, out, err):
            return EXIT_USAGE
        # rows read back from a report carry no subject: the HTML page shows the failing
        # examples the summary keeps
        writer = _writer(plan, reports, args, subjects=False)
        for value, kind in zip(lines, kinds, strict=True):
            row = _regated_row(value, kind, thresholds)
            if row is not None:
                summary.add_row(row)
                writer.add(row)
        if summary.records is None:
            summary.records = summary.total
        _finish(plan, summary, writer, args)
        reports.close()
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
            rendered={"json": json_line(value)},
        )
    return None


# -- schema ------------------------------------------------------------------------------------


def _spec_schema() -> dict[str, Any]:
    """The JSON Schema of the native spec format (draft 2020-12), generated from the registry."""
    from chatassert._schemas import native_schema

    return native_schema()


def _result_schema() -> dict[str, Any]:
    from chatassert._result import Result

    return Result.json_schema()
