"""`chatassert lint`: load and validate suites (and workflow files) without running them."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import IO, Any

from chatassert._cli._options import (
    assume_option,
    command,
    unknown_params_option,
    unknown_types_option,
)
from chatassert._cli._output import Output
from chatassert._cli._plan import load_suite_or_say, say_unassumed, say_unknown
from chatassert._errors import SpecError, SpecProblem
from chatassert._suite import Suite
from chatassert.reporting import (
    EXIT_OK,
    EXIT_USAGE,
)
from chatassert.reporting._words import counted, number

LINT_EXIT_CODES = """\
exit codes:
  0    every file loads (warnings, such as an --assume no test names, go to stderr)
  2    a file could not be read or has problems: each problem is listed with its place
"""
"""The exit codes of `lint`, as its help lists them."""


def add_parser(sub: Any) -> None:
    """Add the `lint` command to the subparsers `sub`."""
    lint = command(
        sub,
        "lint",
        help="validate suites (and workflow files) without running them",
        description="Load each suite as check would, without reading a log, and say "
        "'FILE: ok (dialect, cases, assertions)', or list every problem with its place. A "
        "workflow file is validated as check --workflow loads it.",
        epilog=LINT_EXIT_CODES,
    )
    lint.add_argument(
        "suites",
        nargs="+",
        metavar="SUITE",
        help="spec files; a workflow file (*.workflow.yaml, or a PromptKit pack with a "
        "'workflow' section) is validated as check --workflow loads it",
    )
    unknown_types_option(lint)
    unknown_params_option(lint)
    assume_option(lint)
    lint.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list each case, and the keys of the file kept but not used offline "
        "(keys that configure a live run: providers, personas, temperatures, ...)",
    )


def run(args: argparse.Namespace, out: Output, err: IO[str]) -> int:
    """Run `chatassert lint` with parsed `args`; return its exit code."""
    return _lint(
        args.suites,
        out,
        err,
        args.unknown_types,
        verbose=args.verbose,
        assume=tuple(args.assume),
        unknown_params=args.unknown_params,
    )


def _lint(
    paths: Sequence[str],
    out: Output,
    err: IO[str],
    unknown_types: str = "error",
    *,
    verbose: bool = False,
    assume: Sequence[str] = (),
    unknown_params: str = "ignore",
) -> int:
    code = EXIT_OK
    for path in paths:
        if _is_workflow(path):
            code = max(code, _lint_workflow(path, out, err, verbose))
            continue
        suite = load_suite_or_say(path, err, unknown_types, assume, unknown_params=unknown_params)
        if suite is None:
            code = EXIT_USAGE
            continue
        say_unknown([suite], err)
        say_ignored([suite], err, each=True)
        say_unassumed([suite], assume, err)
        count = sum(len(c.assertions()) for c in suite.cases)
        skipped = sum(c.skip is not None for c in suite.cases)
        also = f", {number(skipped)} skipped" if skipped else ""
        if suite.gates:
            also += f", {counted(len(suite.gates), 'gate')}"
        out.write(
            f"{path}: ok ({suite.dialect}, {counted(len(suite.cases), 'case')}, "
            f"{counted(count, 'assertion')}{also})\n"
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


def _lint_workflow(path: str, out: Output, err: IO[str], verbose: bool) -> int:
    """Validate a workflow file as `check --workflow` loads it."""
    from chatassert._workflow import Workflow

    try:
        flow = Workflow.load(path)
    except (SpecError, OSError, ValueError) as exc:
        err.write(f"{path}: not a valid workflow: {exc}\n")
        return EXIT_USAGE
    terminal = ", ".join(flow.terminal_states) or "none"
    out.write(
        f"{path}: ok (workflow, {counted(len(flow.states), 'state')}, entry "
        f"{flow.entry!r}, terminal: {terminal}; use it with check --workflow)\n"
    )
    if verbose:
        for name, events in flow.states.items():
            moves = ", ".join(f"{event} -> {target}" for event, target in events.items())
            out.write(f"  {name}: {moves or 'terminal'}\n")
    return EXIT_OK


def _lint_cases(suite: Suite, out: Output) -> None:
    """One line per case, then the keys it keeps that are not used offline."""
    from chatassert.specs._common import NOT_USED_OFFLINE

    for case in suite.cases:
        count = len(case.assertions())
        out.write(f"  {case.name}: {counted(count, 'assertion')}\n")
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


def say_ignored(suites: Sequence[Suite], err: IO[str], *, each: bool = False) -> None:
    """Say which parameters of the suites' PromptKit assertions PromptKit ignores (loaded, as
    PromptKit loads them, with `--unknown-params ignore`: they have no effect). With `each`
    (`lint`), one warning per parameter, at its `file:line`; else (`check`) one line per
    suite, naming them and the command that says where they are."""
    from chatassert.specs._common import IGNORED_PARAMS

    for suite in suites:
        found = [e for case in suite.cases for e in case.metadata.get(IGNORED_PARAMS) or ()]
        if not found:
            continue
        if each:
            for entry in found:
                warning = SpecProblem(
                    f"{entry['param']!r} of {entry['type']}: PromptKit ignores this parameter; "
                    "it has no effect",
                    path=entry["path"],
                    file=suite.source,
                    line=entry.get("line"),
                    hint=entry.get("hint"),
                )
                err.write(f"{warning}\n")
            continue
        where = suite.source or suite.name
        names = ", ".join(dict.fromkeys(f"{e['param']} ({e['type']})" for e in found))
        err.write(
            f"{where}: {counted(len(found), 'parameter')} that PromptKit ignores, with no "
            f"effect: {names}; 'chatassert lint {where}' says where\n"
        )
