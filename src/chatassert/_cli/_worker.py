"""The state of a worker process (`--jobs N`): the checker it builds once from the run's
plan, and what it does with a chunk's items before they travel back (`fold`). The pool's
initialiser and the functions workers run are top-level functions: they are pickled by
reference.
"""

from __future__ import annotations

import contextlib
import gc
import io
import signal
import sys
from typing import TYPE_CHECKING

from chatassert._cli._plan import Folded, Plan, load_suites, make_checker
from chatassert._gates import gate_tally
from chatassert._suite import Suite
from chatassert.plugins import PluginState, restore, snapshot
from chatassert.records import (
    Checker,
    HeldStep,
    Item,
    ReportWriter,
    Row,
)
from chatassert.reporting import (
    EXIT_USAGE,
    REPORT_FORMATS,
    Summary,
)

if TYPE_CHECKING:  # imported by `start_pool`: a run without --jobs never loads it
    from concurrent.futures import ProcessPoolExecutor

_WORKER: Checker | None = None


_WORKER_PLAN: Plan | None = None


_LOADED: tuple[Plan, list[Suite]] | None = None
"""The suites the main process loaded, for workers it forks (they inherit them, and need not
load them again); a worker that is spawned instead loads them from the plan."""


def init_worker(plan: Plan, plugged: PluginState | None = None) -> None:
    """Start a worker process: give it the plugins of the main process (`plugged`: the
    modules it imported, the plugins it turned off; installed ones are found again when
    looked up), then build its checker from the plan (from the suites the main process
    loaded, when it was forked from it)."""
    global _WORKER, _WORKER_PLAN
    # Ctrl-C reaches every process of the terminal's group: the main process alone answers it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if plugged is not None:
        restore(plugged)  # nothing again in a worker forked after they were loaded
    loaded = _LOADED
    suites = (
        loaded[1] if loaded is not None and loaded[0] == plan else load_suites(plan, sys.stderr)
    )
    if suites is None:  # the suite changed since the main process loaded it
        raise SystemExit(EXIT_USAGE)
    _WORKER = make_checker(plan, suites)
    _WORKER_PLAN = plan
    # what the worker holds for its life (modules, suites, its checker) is kept out of the
    # collections its tasks trigger, each full one of which would traverse it all again
    gc.freeze()


def fold(items: list[Item]) -> list[Item] | Folded:
    """A worker's chunk, folded when the run's plan allows it and no held step of a
    multi-step test is among its items (those are paired in the main process).

    Each streamed format's report is opened for the chunk, and only its rows are kept: the
    beginning its `open` writes (a header) and its end are written once, by the main process,
    which owns the output."""
    plan = _WORKER_PLAN
    if plan is None or not plan.fold or any(type(item) is HeldStep for item in items):
        return items
    outputs = {fmt: io.StringIO() for fmt in plan.formats if REPORT_FORMATS[fmt].rows == "streamed"}
    writer = ReportWriter(
        outputs, full_results=plan.full_results, verbose=plan.verbose, flaky=plan.flaky
    )
    for out in outputs.values():  # what `open` wrote begins the report: the main process's
        out.seek(0)
        out.truncate()
    # the suites' gates count the chunk's outcomes too: the main process merges the counts
    tally = None if _WORKER is None else gate_tally(_WORKER.suites)
    summary = Summary(keep=plan.show, records=0, tally=tally)
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
    return Folded(summary, {fmt: out.getvalue() for fmt, out in outputs.items()}, rows)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate a pool's worker processes (Python 3.14 has `terminate_workers()` for this)."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.terminate()


def start_pool(plan: Plan, suites: list[Suite], jobs: int) -> ProcessPoolExecutor:
    """A pool of `jobs` worker processes for `plan`; the suites the main process loaded are
    left for the workers it forks (`end_pool` forgets them)."""
    from concurrent.futures import ProcessPoolExecutor

    global _LOADED
    _LOADED = (plan, suites)
    pool = ProcessPoolExecutor(
        max_workers=jobs, initializer=init_worker, initargs=(plan, snapshot())
    )
    # Forked at the first task: one now, before any log is read. A worker forked later
    # inherits what the main process holds then (a decoded document), and its collections
    # would copy those pages: each worker would hold the document too.
    pool.submit(int)
    return pool


def end_pool(pool: ProcessPoolExecutor) -> None:
    """Wait for a pool's workers to end (what was not started is cancelled)."""
    global _LOADED
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        _LOADED = None


def task_checker() -> Checker:
    """This worker's checker, reset for a new task."""
    assert _WORKER is not None
    _WORKER.reset()
    return _WORKER
