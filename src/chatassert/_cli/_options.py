"""The parser of the command line and the options several commands share: the judging
options, `--flaky`, `--unknown-types`, `--unknown-params`, `--assume`, the report options
(`--format`, `--output`, `--show`, ...), the price table `--judge-prices` names, and the report
formats `--format` offers (from `chatassert.reporting.REPORT_FORMATS`).

The parser says what to do about a usage error: a misspelt option, choice or command gets the
closest spelling (`unknown option '--ouput'; did you mean '--output'?`), and an older name of
an option (`aliases`) keeps working, hidden from the help.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar, overload

from chatassert.reporting import (
    EXIT_USAGE,
    REPORT_FORMATS,
)
from chatassert.reporting._words import plural

EXIT_CODES = """\
exit codes:
  0    every case passed (and every gate of the suite)
  1    a case failed, a gate of the suite failed (even when every case passed), the
       comparison with --baseline failed --fail-on or --max-drop, or --max-failures
       stopped the run
  2    usage or spec error: a bad option, an unreadable suite or log file, an output that
       cannot be written (a full disk, a directory), a judged check with no judge
       configured, a --baseline of another suite or that cannot be compared; or an
       unreadable line with --strict
  3    nothing failed, but something could not be evaluated beside the cases checked: an
       assertion or a gate errored (a gate over no outcome), a log line could not be read,
       or a conversation matched no case
  4    nothing was checked: no records (an empty log, or empty stdin), every line
       unreadable, or no conversation matched a case; or, with --baseline, no case of
       the run is in the baseline (nothing to compare); stderr says which
  130  interrupted (Ctrl-C): the report written is partial and says how far it got
  141  the reader of standard output went away (`chatassert check ... | head`)
"""
"""The exit codes, as `chatassert --help` and `check --help` list them."""

Options = argparse.ArgumentParser | argparse._ArgumentGroup
"""Where an option is added: a command's parser, or one of its groups in the help."""

_N = TypeVar("_N")


class HelpFormatter(argparse.HelpFormatter):
    """The help of a command: its description wrapped paragraph by paragraph, and a paragraph
    whose lines after the first are indented (the exit codes) kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.strip("\n").split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines[1:]):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(paragraphs) + ("\n" if text.endswith("\n") else "")

    def _format_action(self, action: argparse.Action) -> str:
        text = super()._format_action(action)
        if isinstance(action, argparse._SubParsersAction):  # the commands, not their metavar
            text = text.split("\n", 1)[1]
        return text

    def _format_action_invocation(self, action: argparse.Action) -> str:
        hidden: frozenset[str] = getattr(action, "aliases", frozenset())
        if hidden:
            action = copy.copy(action)
            action.option_strings = [o for o in action.option_strings if o not in hidden]
        return super()._format_action_invocation(action)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with code 2, say the closest spelling of a
    misspelt option, choice or command, and point at `--help`."""

    def error(self, message: str) -> NoReturn:
        """Say the usage error and the hint to `--help`, and exit with code 2."""
        self.print_usage(sys.stderr)
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message}\nrun '{self.prog} --help' for the options\n"
        )

    @overload
    def parse_args(
        self, args: Iterable[str] | None = None, namespace: None = None
    ) -> argparse.Namespace: ...
    @overload
    def parse_args(self, args: Iterable[str] | None, namespace: _N) -> _N: ...
    @overload
    def parse_args(self, *, namespace: _N) -> _N: ...

    def parse_args(self, args: Iterable[str] | None = None, namespace: Any = None) -> Any:
        """Parse the command line; an argument no option takes is a usage error of the
        command it was given to, with the closest option's spelling."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = self._command(parsed)
            command.error(unknown_arguments(command, extra))
        return parsed

    def _command(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The parser of the command `parsed` ran (this one when it has no commands)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest or "", None) or "")
                if isinstance(chosen, argparse.ArgumentParser):
                    return chosen
        return self

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """Refuse a value that is not one of the option's choices, with the closest one."""
        if action.choices is None or value in action.choices:
            return
        choices = [str(choice) for choice in action.choices]
        hint = did_you_mean(str(value), choices)
        if isinstance(action, argparse._SubParsersAction):
            raise argparse.ArgumentError(
                None, f"unknown command {value!r}{hint} (the commands: {', '.join(choices)})"
            )
        listed = ", ".join(repr(choice) for choice in choices)
        hidden: frozenset[str] = getattr(action, "aliases", frozenset())
        shown = copy.copy(action)  # named by its own spellings, not its older ones
        shown.option_strings = [o for o in action.option_strings if o not in hidden]
        raise argparse.ArgumentError(
            shown, f"invalid choice: {value!r}{hint} (choose from {listed})"
        )


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """`"; did you mean '--output'?"` for the spelling in `known` closest to `given` (the
    empty string when none is close)."""
    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_arguments(parser: argparse.ArgumentParser, extra: Sequence[str]) -> str:
    """The usage error of arguments `parser` takes no option for: each unknown option with
    the closest one the command has (the values after it are left unsaid: they go with it),
    else the unexpected arguments."""
    known = [
        name
        for action in parser._actions
        for name in action.option_strings
        if name.startswith("--") or len(name) == 2
    ]
    options = [arg for arg in extra if arg.startswith("-") and arg != "-"]
    if not options:
        listed = ", ".join(repr(arg) for arg in extra)
        return f"unexpected {plural(len(extra), 'argument')} {listed}"
    said = []
    for option in options:
        name = option.split("=", 1)[0] if option.startswith("--") else option
        said.append(f"unknown option {name!r}{did_you_mean(name, known)}")
    return "; ".join(said)


def command(
    sub: Any, name: str, *, help: str, description: str, epilog: str | None = None
) -> argparse.ArgumentParser:
    """Add the command `name` to the subparsers `sub`: its line in `chatassert --help`
    (`help`), its description and exit codes (`epilog`) in its own help."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=HelpFormatter,
    )
    return parser


def aliases(action: argparse.Action, *old: str) -> argparse.Action:
    """Mark `old`, older spellings among the option strings of `action`: they keep working
    as the same option, and the help leaves them out (the option's help names them)."""
    unknown = set(old) - set(action.option_strings)
    if unknown:
        raise ValueError(f"{sorted(unknown)} are not option strings of {action.dest!r}")
    action.aliases = frozenset(old)  # type: ignore[attr-defined]
    return action


def plugin_option(options: Options) -> None:
    """Add `-p/--plugin MODULE`: a module of the repository's own checks, judges, log readers
    or report formats to import, or `no:NAME` to turn an installed plugin off. The main
    function reads them before the command's parser is built (`plugin_arguments`), so
    that the plugins' names are choices of its options."""
    options.add_argument(
        "-p",
        "--plugin",
        dest="plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (a module name found from the working directory, or a .py "
        "file): its checks, judges, log readers and report formats register themselves; "
        "repeatable; no:NAME turns the installed plugin NAME off (its entry point's or "
        "distribution's name). CHATASSERT_PLUGINS adds comma-separated ones (docs/plugins.md)",
    )


def plugin_group(parser: argparse.ArgumentParser) -> None:
    """Add the `plugins` group of a command's options (`plugin_option`), the last of its
    help."""
    plugin_option(
        parser.add_argument_group(
            "plugins", "Checks, judges, log readers and report formats from outside."
        )
    )


def plugin_arguments(argv: Sequence[str]) -> list[str]:
    """The values of `-p/--plugin` in a command line (`-p X`, `-pX`, `--plugin X`,
    `--plugin=X`), read before it is parsed; none after `--`.

    Example:
        >>> plugin_arguments(["check", "-p", "a", "--plugin=no:b", "-pc", "s.yaml", "--", "-p"])
        ['a', 'no:b', 'c']
    """
    found: list[str] = []
    args = list(argv)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            break
        if arg in ("-p", "--plugin"):
            if index + 1 < len(args):
                found.append(args[index + 1])
            index += 2
            continue
        if arg.startswith("--plugin="):
            found.append(arg.split("=", 1)[1])
        elif arg.startswith("-p") and not arg.startswith("--"):
            found.append(arg[2:].removeprefix("="))
        index += 1
    return found


class FormatChoices:
    """The `--format` choices of a command: the registered report formats, and a name an
    installed plugin provides, looked up when given (`REPORT_FORMATS`); those that can be
    written without the checked subjects only, for `subjects=False`."""

    def __init__(self, *, subjects: bool = True) -> None:
        self.subjects = subjects

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name not in REPORT_FORMATS:
            return False
        return self.subjects or not REPORT_FORMATS[name].needs_subject

    def __iter__(self) -> Iterator[str]:
        return iter(offered_formats(subjects=self.subjects))


def offered_formats(*, subjects: bool = True) -> tuple[str, ...]:
    """The report formats a command offers (`REPORT_FORMATS`, read as its parser is built):
    every one for `check`; for `regate` (`subjects=False`: it reads a report, not the logs),
    those that can be written without the checked subjects."""
    return tuple(
        name for name, reporter in REPORT_FORMATS.items() if subjects or not reporter.needs_subject
    )


def format_help(*, subjects: bool = True) -> str:
    """`--format`'s help: each report format with what it is (those `offered_formats` gives
    for `subjects`)."""
    offered = offered_formats(subjects=subjects)
    named = [
        f"{name} ({reporter.description})" if reporter.description else name
        for name, reporter in REPORT_FORMATS.items()
        if name in offered
    ]
    listed = ", ".join(named[:-1]) + ", or " + named[-1] if len(named) > 1 else named[0]
    return (
        f"{listed}; default: from the --output file's extension, else text; with several "
        "--output, give none"
    )


def extensions_help(*, subjects: bool = True) -> str:
    """The extensions that name each report format, for `--output`'s help."""
    offered = offered_formats(subjects=subjects)
    return "; ".join(
        f"{', '.join(reporter.extensions)}: {name}"
        for name, reporter in REPORT_FORMATS.items()
        if reporter.extensions and name in offered
    )


def log_format_option(options: Options, *, older: str, dest: str) -> None:
    """Add `--log-format NAME`: the format every log line is read in (one of the log formats
    of `chatassert.transcripts.FORMATS`), with `older`, the command's older name of it."""
    from chatassert.transcripts import FORMATS

    aliases(
        options.add_argument(
            "--log-format",
            older,
            dest=dest,
            choices=FORMATS,
            default=None,
            metavar="NAME",
            help=f"read every log line in this format ({', '.join(FORMATS)}) instead of "
            f"detecting it per line ({older} is an older name of it)",
        ),
        older,
    )


def report_options(reports: Options, *, subjects: bool = True) -> None:
    """Add the report options of `check` (and, `subjects=False`, of `regate`, which reads a
    report, not the logs): `--format`, `--output`, `--full-results`, `--show`, `--verbose`."""
    reports.add_argument(
        "-f",
        "--format",
        choices=FormatChoices(subjects=subjects),
        default=None,
        metavar="FORMAT",
        help=format_help(subjects=subjects),
    )
    reports.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        metavar="PATH",
        help="write the report to PATH instead of standard output (- is standard output); its "
        f"extension names the format ({extensions_help(subjects=subjects)}) unless --format "
        "is given, and a --format that contradicts it is an error; repeatable: one report per "
        "file, from one run. When every report goes to a file, the text summary and a line "
        "per file written are printed on standard output (-q: not)",
    )
    reports.add_argument(
        "--full-results",
        action="store_true",
        help="json: write every node of each result tree in full (reasons and details of "
        "passing checks too); by default passing nodes carry only their status, name, "
        "message and location",
    )
    reports.add_argument(
        "--show",
        type=int,
        default=10,
        metavar="N",
        help="how many failing cases the reports show (default 10, at least 1)",
    )
    reports.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show passing assertions in the failing cases too",
    )


class _Quiet(argparse.Action):
    """`-q`: no progress on stderr, and no summary on the terminal when the reports go to
    files."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        namespace.quiet = True
        if hasattr(namespace, "progress"):
            namespace.progress = "off"


def quiet_option(options: Options, *, progress: bool = True) -> None:
    """Add `-q`/`--quiet` (and, with `progress`, its older name `--no-progress`): nothing on
    the terminal but the reports asked for and the problems."""
    if progress:
        aliases(
            options.add_argument(
                "-q",
                "--quiet",
                "--no-progress",
                action=_Quiet,
                nargs=0,
                default=False,
                help="no progress on stderr, and no summary on standard output when every "
                "report goes to a file (--no-progress is an older name of it)",
            ),
            "--no-progress",
        )
        return
    options.add_argument(
        "-q",
        "--quiet",
        action=_Quiet,
        nargs=0,
        default=False,
        help="no summary on standard output when every report goes to a file",
    )


def judging_options(check: Options) -> None:
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


def flaky_option(parser: Options) -> None:
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


def unknown_types_option(parser: Options) -> None:
    """Add `--unknown-types`: an assertion type the suite's vocabulary does not know."""
    parser.add_argument(
        "--unknown-types",
        choices=["error", "skip"],
        default="error",
        help="an assertion type the suite's vocabulary does not know: a spec error (default), "
        "or skip: load the suite and report each such assertion as skipped",
    )


def unknown_params_option(parser: Options) -> None:
    """Add `--unknown-params`: a parameter PromptKit ignores, on a PromptKit assertion."""
    parser.add_argument(
        "--unknown-params",
        choices=["ignore", "error"],
        default="ignore",
        help="a parameter of a PromptKit assertion that PromptKit itself ignores "
        "(case_insensitive on content_includes, say): ignore it as PromptKit does (default: "
        "it loads, has no effect, and lint warns where it is), or error: refuse the suite. "
        "Other vocabularies always refuse a parameter their type does not take",
    )


def assume_option(parser: Options) -> None:
    """Add `--assume`: conditions that hold, for the tests' `skip_if`."""
    parser.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="CONDITION",
        help="a condition that holds (repeatable): each test whose skip_if names it, exactly "
        "as written, is reported skipped ('skip_if CONDITION holds (--assume)')",
    )


COMPARISON_GATES = ("regression", "any-flip")
"""What `--fail-on` takes: `chatassert.compare.FAIL_ON`."""


def comparison_options(options: Options) -> None:
    """Add the gates of a comparison of two runs (`chatassert.compare`): `--fail-on`,
    `--max-drop NAME=LIMIT` (repeatable) and `--alpha`; `comparison_gates` reads them."""
    options.add_argument(
        "--fail-on",
        action="append",
        default=[],
        choices=COMPARISON_GATES,
        metavar="GATE",
        help="fail (exit 1) on a 'regression' (an assertion, or the whole case, significantly "
        "worse at --alpha, Holm-adjusted across assertions) or on 'any-flip' (any case or "
        "assertion whose status changed); repeatable",
    )
    options.add_argument(
        "--max-drop",
        action="append",
        default=[],
        metavar="NAME=LIMIT",
        help="fail (exit 1) when the pass rate of the assertion NAME ('*' or 'overall': the "
        "whole case) fell by more than LIMIT, from 0 to 1, over the cases both runs have; "
        "repeatable",
    )
    options.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        metavar="P",
        help="the significance level of --fail-on regression (default 0.05)",
    )


def comparison_gates(
    args: argparse.Namespace, prog: str, err: Any
) -> tuple[tuple[str, ...], dict[str, float]] | None:
    """`--fail-on` and `--max-drop` as `Comparison.failed` takes them, or None after saying
    on `err` what is wrong (a `--max-drop` that is not NAME=LIMIT, an `--alpha` not between
    0 and 1)."""
    if not 0 < args.alpha < 1:
        err.write(f"{prog}: --alpha must be between 0 and 1 (got {args.alpha:g})\n")
        return None
    limits: dict[str, float] = {}
    for given in args.max_drop:
        name, eq, text = given.rpartition("=")
        try:
            limit = float(text)
        except ValueError:
            limit = -1.0
        if not eq or not name or not 0 <= limit <= 1:
            err.write(
                f"{prog}: --max-drop {given!r}: expected NAME=LIMIT with a LIMIT from 0 to 1 "
                "(--max-drop refund_policy=0.02)\n"
            )
            return None
        limits[name] = limit
    return tuple(dict.fromkeys(args.fail_on)), limits
