"""`chatassert lint`: load and validate suites (and workflow files) without running them."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import IO, Any

from chatassert._cli._options import assume_option, unknown_types_option
from chatassert._cli._output import Output
from chatassert._cli._plan import load_suite_or_say, say_unassumed, say_unknown
from chatassert._errors import SpecError
from chatassert._suite import Suite
from chatassert.reporting import (
    EXIT_OK,
    EXIT_USAGE,
)


def add_parser(sub: Any) -> None:
    """Add the `lint` command to the subparsers `sub`."""
    lint = sub.add_parser("lint", help="validate suites (and workflow files) without running them")
    lint.add_argument(
        "suites",
        nargs="+",
        help="spec files; a workflow file (*.workflow.yaml, or a PromptKit pack with a "
        "'workflow' section) is validated as check --workflow loads it",
    )
    unknown_types_option(lint)
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
    )


def _lint(
    paths: Sequence[str],
    out: Output,
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
        suite = load_suite_or_say(path, err, unknown_types, assume)
        if suite is None:
            code = EXIT_USAGE
            continue
        say_unknown([suite], err)
        say_unassumed([suite], assume, err)
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


def _lint_workflow(path: str, out: Output, err: IO[str], verbose: bool) -> int:
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


def _lint_cases(suite: Suite, out: Output) -> None:
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
