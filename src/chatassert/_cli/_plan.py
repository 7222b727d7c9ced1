"""What the engine and the commands share: the plan of a run (what every worker needs to
rebuild the suites), the suites it loads, the checker it builds, the logs it reads (globs and
directories expanded), the size of a chunk, and what a worker sends back.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import IO

from chatassert._cli._options import read_prices
from chatassert._errors import SpecError
from chatassert._suite import Suite
from chatassert.records import (
    Checker,
    Row,
    inline_suite,
)
from chatassert.reporting import (
    REPORT_FORMATS,
    Summary,
)

CHUNK_BYTES = 1 << 20
"""About how many bytes of a log make a chunk (a piece a worker reads and checks)."""


CHUNK_LINES = 2000
"""At most how many lines of a log read here (a pipe, a `.gz`) make a chunk."""


class LogError(Exception):
    """A log could not be opened; unlike an `OSError`, never taken for a write error."""


@dataclass(frozen=True)
class Plan:
    """What a run checks and how it reports; picklable, so workers rebuild suites from it."""

    suite: str | None
    asserts: tuple[str, ...]
    transcript_format: str | None
    outputs: tuple[tuple[str, str | None], ...]
    verbose: bool
    workflow: str | None = None
    fail_fast: bool = False
    unknown_types: str = "error"
    unknown_params: str = "ignore"
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
    """Workers fold each chunk's rows into a `Folded` (`foldable`: when nothing needs
    them one by one in the main process)."""

    @property
    def formats(self) -> tuple[str, ...]:
        """The distinct formats of the reports, in the order of their first output."""
        return tuple(dict.fromkeys(fmt for fmt, _ in self.outputs))


@dataclass(slots=True)
class Folded:
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


class Meter:
    """How many bytes of the logs have been checked, out of `total` (None when unknown)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0


def load_suite_or_say(
    path: str,
    err: IO[str],
    unknown_types: str = "error",
    assume: Sequence[str] = (),
    *,
    unknown_params: str = "ignore",
) -> Suite | None:
    """Load the suite at `path` (with `--unknown-types`, `--unknown-params` and `--assume`),
    or say on `err` why it cannot be loaded and return None."""
    from chatassert.specs import load_suite

    try:
        suite = load_suite(path, unknown_types=unknown_types, unknown_params=unknown_params)
        return suite.assuming(assume, via="--assume") if assume else suite
    except SpecError as exc:
        err.write(f"{exc}\n")
    except OSError as exc:
        err.write(f"cannot read suite {path}: {exc.strerror or exc}\n")
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate: no file has that name
        err.write(f"cannot read suite {path!r}: not a valid file name\n")
    return None


def say_unknown(suites: Sequence[Suite], err: IO[str]) -> None:
    """Say, once and before any report, which assertions are of unknown types (each is then
    reported skipped wherever it is checked: `--unknown-types skip`)."""
    from chatassert.specs._common import unknown_types

    for suite in suites:
        unknown = unknown_types(a for c in suite.cases for a in c.assertions())
        if unknown:
            listed = ", ".join(f"{name} ({n})" if n > 1 else name for name, n in unknown.items())
            where = suite.source or suite.name
            err.write(f"{where}: not checked, reported skipped: unknown assertion types {listed}\n")


JUDGE_HOW = (
    "--judge openai or anthropic with --judge-model MODEL and the API key's variable (or "
    "fake:pass / fake:fail offline, a plugin judge's name, module:factory), or the same in "
    "CHATASSERT_JUDGE and CHATASSERT_JUDGE_MODEL (named judges: CHATASSERT_JUDGES); see "
    "docs/judges.md"
)
"""How a run of the command line is given a judge: `--judge`, or the environment
(docs/judges.md)."""


def say_missing_judges(plan: Plan, suites: Sequence[Suite], err: IO[str]) -> bool:
    """Say, once and before any log is read, which judged checks of the selected cases have
    no judge to ask and how to give one; return whether every judged check has one."""
    from chatassert._select import compile_keyword
    from chatassert._suite import missing_judges_message

    selected = compile_keyword(plan.keyword or "")
    tags = set(plan.tags)
    missing = [
        line
        for suite in suites
        for line in suite.missing_judges(
            c.name
            for c in suite.cases
            if not (selected([c.name, c.id or ""]) and (not tags or tags & set(c.tags)))
        )
    ]
    if missing:
        err.write(f"chatassert check: {missing_judges_message(missing, how=JUDGE_HOW)}\n")
    return not missing


def say_unassumed(suites: Sequence[Suite], assume: Sequence[str], err: IO[str]) -> None:
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


def load_suites(plan: Plan, err: IO[str]) -> list[Suite] | None:
    """The suites of a run: its suite file and its `--assert`s, with the plan's workflow,
    `--repeat` and `--fail-fast` applied; None when one cannot be loaded (said on `err`)."""
    suites: list[Suite] = []
    if plan.suite is not None:
        suite = load_suite_or_say(
            plan.suite,
            err,
            plan.unknown_types,
            plan.assume,
            unknown_params=plan.unknown_params,
        )
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


def make_checker(plan: Plan, suites: Sequence[Suite], *, trees: bool = False) -> Checker:
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


LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".arena.json", ".recording.json")
"""The files of a directory given as a log: JSON lines, and PromptKit recordings."""


def expand_logs(patterns: Sequence[str], err: IO[str]) -> list[str] | None:
    """Expand globs and directories into files, in order; report what matches nothing."""
    out: list[str] = []
    for pattern in patterns:
        if pattern == "-":
            out.append(pattern)
        elif os.path.isdir(pattern):
            found = sorted(
                p
                for p in glob.glob(os.path.join(pattern, "*"))
                if p.endswith(LOG_SUFFIXES) and os.path.isfile(p)
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
    from chatassert.transcripts import whole_file_note

    for path in out:  # said once, before any record: a .jsonl file read as one document
        note = whole_file_note(path)
        if note is not None:
            err.write(f"{note}\n")
    return out
