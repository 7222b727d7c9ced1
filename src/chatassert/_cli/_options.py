"""The parser of the command line and the options several commands share: the judging
options, `--flaky`, `--unknown-types`, `--assume`, the price table `--judge-prices` names, and
the report formats `--format` offers (from `chatassert.reporting.REPORT_FORMATS`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from chatassert.reporting import (
    EXIT_USAGE,
    REPORT_FORMATS,
)

EXIT_CODES = """\
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
"""The exit codes, as `chatassert --help`, `check --help` and `regate --help` list them."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with code 2 and a hint."""

    def error(self, message: str) -> Any:
        """Say the usage error and the hint to `--help`, and exit with code 2."""
        self.print_usage(sys.stderr)
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message}\nrun '{self.prog} --help' for the options\n"
        )


def offered_formats(*, subjects: bool = True) -> tuple[str, ...]:
    """The report formats a command offers (`REPORT_FORMATS`, read as its parser is built):
    every one for `check`; for `regate` (`subjects=False`: it reads a report, not the logs),
    those that can be written without the checked subjects."""
    return tuple(
        name for name, reporter in REPORT_FORMATS.items() if subjects or not reporter.needs_subject
    )


def format_help() -> str:
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


def extensions_help() -> str:
    """The extensions that name each report format, for `--output`'s help."""
    return "; ".join(
        f"{', '.join(reporter.extensions)}: {name}"
        for name, reporter in REPORT_FORMATS.items()
        if reporter.extensions
    )


def judging_options(check: argparse.ArgumentParser) -> None:
    """Add the judging options of `check`: `--repeat`, `--flaky`, `--no-plan`, `--judge-prices`."""
    check.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="ask the judge N times for every judged check of the suites (each wrapped in a "
        "majority repeat) and report how stable the verdicts are; flaky ones are counted apart",
    )
    flaky_option(check)
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


def flaky_option(parser: argparse.ArgumentParser) -> None:
    """Add `--flaky`: how the JUnit report marks a case only flaky verdicts decide."""
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


def unknown_types_option(parser: argparse.ArgumentParser) -> None:
    """Add `--unknown-types`: an assertion type the suite's vocabulary does not know."""
    parser.add_argument(
        "--unknown-types",
        choices=["error", "skip"],
        default="error",
        help="an assertion type the suite's vocabulary does not know: a spec error (default), "
        "or skip: load the suite and report each such assertion as skipped",
    )


def assume_option(parser: argparse.ArgumentParser) -> None:
    """Add `--assume`: conditions that hold, for the tests' `skip_if`."""
    parser.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="CONDITION",
        help="a condition that holds (repeatable): each test whose skip_if names it, exactly "
        "as written, is reported skipped ('skip_if CONDITION holds (--assume)')",
    )
