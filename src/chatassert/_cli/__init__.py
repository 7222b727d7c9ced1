"""The `chatassert` command line: one module per command, each with its `add_parser` and
its `run`, in the table `COMMANDS`.

    chatassert check SUITE LOG [LOG ...]             check logged conversations against a suite
    chatassert check --assert SPEC [...] LOG [...]   check inline assertions, with no suite
    chatassert check --suite SUITE --assert SPEC LOG [LOG ...]   both
    chatassert lint SUITE [SUITE ...]                load and validate suites without running them
    chatassert schema [spec|result|report]           print a JSON Schema
    chatassert schema --dialect DIALECT              the schema of a dialect's files (draft-07)
    chatassert init SPEC [SPEC ...]                  point YAML spec files at their schema
    chatassert compare BASE NEW                      two runs of a suite compared, with gates
    chatassert regate REPORT --min-score NAME=S      re-decide judged checks of a JSON report
    chatassert validate SUITE LABELS LOG [LOG ...]   a judge's agreement with human labels
    chatassert convert [-f FORMAT] LOG [LOG ...]     rewrite logs as native lines or an ADK set

The modules below the commands: `_options` (the parser, which suggests the closest spelling
of a misspelt option, choice or command; its help formatter; the options several commands
share under one name, older names kept as hidden aliases), `_output` (where reports go, and
the summary on the terminal when they all go to files), `_plan` (what the engine and the
commands share: the run plan, the suites, the logs, the chunk sizes), `_engine` and `_worker`
(chunks checked in this process or in worker processes), `_grouping` (`--group-by`), `_run`
(the local run loop), `_progress`, `_interrupts`, `_messages` (what a run says on stderr) and
`_ray` (the Ray engine's driver).

Exit codes: see `EXIT_CODES` in `_options` (shown by `chatassert --help`); each command's
help lists its own.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

from chatassert import __version__

# The modules of the commands and what they share are imported by the functions below, once
# the command line is known to need them: `chatassert --version` imports none of them.

__all__ = ["COMMANDS", "main", "parser"]

COMMANDS = ("check", "compare", "lint", "schema", "init", "regate", "validate", "convert")
"""The commands, in the order `chatassert --help` lists them: each a module of this package
with `add_parser(subparsers)` and `run(args, out, err) -> int`, imported when the parser is
built."""


def parser() -> argparse.ArgumentParser:
    """The parser of the command line, each command's part added by its own module."""
    from chatassert._cli._options import EXIT_CODES, HelpFormatter, Parser, plugin_group

    built = Parser(
        prog="chatassert",
        description="Assertions over what LLM agents produce: check logged conversations "
        "against a suite, and the tools around it. 'chatassert COMMAND --help' describes a "
        "command and its options.",
        epilog=EXIT_CODES.replace(
            "exit codes:", "exit codes of check (each command's --help lists its own):", 1
        ),
        formatter_class=HelpFormatter,
    )
    built.add_argument("--version", action="version", version=f"chatassert {__version__}")
    sub = built.add_subparsers(
        title="commands",
        dest="command",
        metavar="COMMAND",
        required=True,
        parser_class=Parser,
    )
    for name in COMMANDS:
        importlib.import_module(f"chatassert._cli.{name}").add_parser(sub)
        plugin_group(sub.choices[name])
    return built


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["--version"]:  # as the parser answers it, without building the parser
        sys.stdout.write(f"chatassert {__version__}\n")
        return 0
    from chatassert._cli._output import EXIT_PIPE, STDOUT, OutputError
    from chatassert.plugins import PluginError
    from chatassert.reporting import EXIT_INTERRUPTED, EXIT_USAGE

    try:
        return _main(argv)
    except OutputError as exc:
        if exc.name == STDOUT:  # what is still buffered goes nowhere, not to a failing flush
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
        if isinstance(exc.error, BrokenPipeError):  # the reader went away (`... | head`)
            return EXIT_PIPE
        sys.stderr.write(f"{exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:  # before a run started, or in lint or schema: nothing to report
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except PluginError as exc:  # a plugin looked up while a command ran could not be loaded
        sys.stderr.write(f"chatassert: {exc}\n")
        return EXIT_USAGE


def _load_plugins(argv: Sequence[str], err: IO[str]) -> bool:
    """Load the plugins the command line (`-p/--plugin`) and `CHATASSERT_PLUGINS` give,
    before the parser is built, and every installed one when help is asked for (its choices
    list them); False, after saying why, when one cannot be loaded."""
    from chatassert import plugins
    from chatassert._cli._options import plugin_arguments
    from chatassert.plugins import PluginError

    try:
        modules, disabled = plugins.parse_plugin_list(os.environ.get(plugins.ENV, ""))
        given, off = plugins.parse_plugin_args(plugin_arguments(argv), given_by="--plugin")
        plugins.load_plugins(disabled=[*disabled, *off])
        plugins.load_plugins(modules, given_by=plugins.ENV)
        plugins.load_plugins(given, given_by="--plugin")
    except PluginError as exc:
        err.write(f"chatassert: {exc}\n")
        return False
    if "-h" in argv or "--help" in argv:
        for group in plugins.GROUPS:
            try:
                plugins.load_group(group)
            except PluginError as exc:  # the help is shown still, without the broken plugin
                err.write(f"chatassert: warning: {exc}\n")
    return True


def _main(argv: Sequence[str] | None) -> int:
    from chatassert._cli._judge import chosen_judge
    from chatassert._cli._output import STDOUT, Output
    from chatassert.reporting import EXIT_USAGE

    given = list(sys.argv[1:] if argv is None else argv)
    if not _load_plugins(given, sys.stderr):
        return EXIT_USAGE
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the HTML report shows it
    args.started = time.time()
    out = Output(sys.stdout, STDOUT)
    command = importlib.import_module(f"chatassert._cli.{args.command}")
    with chosen_judge(args, sys.stderr) as usable:  # --judge: the run's judge
        code: int = command.run(args, out, sys.stderr) if usable else EXIT_USAGE
    out.flush()
    return code
