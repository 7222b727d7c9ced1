"""The `chatassert` command line.

    chatassert check SUITE LOG [LOG ...]   check logged conversations against a suite
    chatassert lint SUITE [SUITE ...]      load and validate suites without running them

Exit codes: 0 everything passed, 1 something failed, 2 usage or spec error, 3 nothing failed
but something could not be evaluated (or a log line could not be read).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any

from chatassert import __version__
from chatassert._errors import SpecError
from chatassert._suite import Suite
from chatassert.reporting import EXIT_OK, EXIT_USAGE, Outcome, Summary, render_text

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with code 2 and a hint."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message}\nrun '{self.prog} --help' for the options\n"
        )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="chatassert", description="Assertions over what LLM agents produce.")
    parser.add_argument("--version", action="version", version=f"chatassert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser(
        "check",
        help="check logged conversations against a suite",
        description="Check each conversation of the logs against the "
        "suite's matching case and print a summary.",
    )
    check.add_argument("suite", help="a spec file (flat, promptkit, expect or native)")
    check.add_argument("logs", nargs="+", help="JSONL logs (.jsonl, .jsonl.gz, or - for stdin)")
    check.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text (a summary) or json (one JSON object per case, then a summary)",
    )
    check.add_argument(
        "--transcript-format",
        default=None,
        metavar="NAME",
        help="force the log format instead of detecting it per line",
    )
    check.add_argument(
        "--fail-fast", action="store_true", help="skip the rest of a turn after its first failure"
    )
    check.add_argument(
        "--workflow",
        default=None,
        metavar="FILE",
        help="a workflow definition (a PromptKit pack, or its 'workflow' section, as JSON or "
        "YAML): workflow state is derived from each conversation's workflow__transition calls",
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
        default=10,
        metavar="N",
        help="how many failing cases the text summary shows (default 10)",
    )
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show passing assertions in the failing cases too",
    )

    lint = sub.add_parser("lint", help="validate suites without running them")
    lint.add_argument("suites", nargs="+", help="spec files")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    args = _parser().parse_args(argv)
    if args.command == "lint":
        return _lint(args.suites, sys.stdout, sys.stderr)
    return _check(args, sys.stdout, sys.stderr)


def _load(path: str, err: IO[str], **options: Any) -> Suite | None:
    from chatassert.specs import load_suite

    try:
        return load_suite(path, **options)
    except SpecError as exc:
        err.write(f"{exc}\n")
    except OSError as exc:
        err.write(f"cannot read suite {path}: {exc.strerror or exc}\n")
    return None


def _lint(paths: Sequence[str], out: IO[str], err: IO[str]) -> int:
    code = EXIT_OK
    for path in paths:
        suite = _load(path, err)
        if suite is None:
            code = EXIT_USAGE
            continue
        count = sum(len(c.assertions()) for c in suite.cases)
        out.write(f"{path}: ok ({suite.dialect}, {len(suite.cases)} cases, {count} assertions)\n")
    return code


def _check(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    suite = _load(args.suite, err)
    if suite is None:
        return EXIT_USAGE
    if args.fail_fast:
        from dataclasses import replace

        suite = replace(suite, cases=tuple(replace(c, fail_fast=True) for c in suite.cases))
    if args.workflow:
        from chatassert._workflow import Workflow
        from chatassert.specs._promptkit import with_workflow

        try:
            suite = with_workflow(suite, Workflow.load(args.workflow))
        except (OSError, ValueError) as exc:
            err.write(f"cannot load workflow {args.workflow}: {exc}\n")
            return EXIT_USAGE
    if args.workflow:
        from chatassert._workflow import Workflow
        from chatassert.specs._promptkit import with_workflow

        try:
            suite = with_workflow(suite, Workflow.load(args.workflow))
        except (OSError, ValueError) as exc:
            err.write(f"cannot load workflow {args.workflow}: {exc}\n")
            return EXIT_USAGE
    summary = Summary(keep=max(args.max_failures, 1))
    try:
        outcomes = (
            _json_outcomes(suite, args.logs, summary, err)
            if _is_json_suite(suite)
            else _outcomes(suite, args.logs, args.transcript_format, summary, err)
        )
        for outcome in outcomes:
            summary.add(outcome)
            if args.format == "json":
                out.write(json.dumps(outcome.to_dict(), ensure_ascii=False) + "\n")
    except OSError as exc:
        err.write(f"cannot read log: {exc}\n")
        return EXIT_USAGE
    if args.format == "json":
        out.write(
            json.dumps(
                {
                    "summary": {
                        **{s: summary.counts[s] for s in ("passed", "failed", "error", "skipped")},
                        "unreadable": summary.unreadable_count,
                        "unmatched": summary.unmatched,
                    }
                }
            )
            + "\n"
        )
    else:
        out.write(render_text(summary, max_failures=args.max_failures, verbose=args.verbose) + "\n")
    return summary.exit_code()


def _outcomes(
    suite: Suite, logs: Sequence[str], transcript_format: str | None, summary: Summary, err: IO[str]
) -> Iterator[Outcome]:
    from chatassert.transcripts import read_records

    for log in logs:
        for record in read_records(log, format=transcript_format):
            if record.conversation is None:
                summary.add_unreadable(record.where, record.error or "unreadable")
                err.write(f"{record.where}: skipped: {record.error}\n")
                continue
            cases = suite.cases_for(record.conversation)
            if not cases:
                summary.unmatched += 1
                err.write(
                    f"{record.where}: no case of {suite.name!r} matches this "
                    "conversation (give it an 'id' or 'case' naming one)\n"
                )
                continue
            for case in cases:
                yield Outcome(
                    suite.name,
                    case.name,
                    case.check(record.conversation),
                    record.where,
                    record.conversation.id,
                )


def _is_json_suite(suite: Suite) -> bool:
    """Whether the suite checks JSON responses (the expect vocabulary) rather than transcripts."""
    return bool(suite.cases) and all(c.subject == "json" for c in suite.cases)


def _json_outcomes(
    suite: Suite, logs: Sequence[str], summary: Summary, err: IO[str]
) -> Iterator[Outcome]:
    """Check JSONL lines `{"id": ..., "response": {...}}` against the tests with that id.

    Lines that are not such objects are counted as unreadable; ids no test has are unmatched;
    tests that no line answered are reported as errors ("no response").
    """
    from chatassert._result import Result, Status
    from chatassert.transcripts import open_text

    answered: set[str] = set()
    for log in logs:
        stream = open_text(log)
        try:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                where = f"{log}:{number}"
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    summary.add_unreadable(where, f"line is not JSON: {exc}")
                    err.write(f"{where}: skipped: line is not JSON: {exc}\n")
                    continue
                if not isinstance(record, dict) or "id" not in record or "response" not in record:
                    problem = 'expected {"id": ..., "response": {...}}'
                    summary.add_unreadable(where, problem)
                    err.write(f"{where}: skipped: {problem}\n")
                    continue
                key = str(record["id"])
                case = suite.find(key)
                if case is None:
                    summary.unmatched += 1
                    err.write(f"{where}: no test of {suite.name!r} has the id {key!r}\n")
                    continue
                answered.add(case.name)
                yield Outcome(suite.name, case.name, case.check(record["response"]), where, key)
        finally:
            if stream is not sys.stdin:
                stream.close()
    for case in suite.cases:
        if case.name in answered:
            continue
        key = case.id or case.name
        err.write(f"{suite.name}: test {key!r} has no response in the logs\n")
        result = Result(
            Status.ERROR,
            "case",
            f"no response was logged for test {key!r}",
            {"missing_response": True, "id": key},
            message=case.name,
        )
        yield Outcome(suite.name, case.name, result, "", key)
