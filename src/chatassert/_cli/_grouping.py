"""Grouping lines into conversations (`check --group-by`).

The main process reads and groups the lines (a group is complete only once the lines after it
are read, so grouping cannot be split between workers); with --jobs, workers get whole
groups, a batch at a time, and read and check them.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future
from functools import partial
from typing import IO, Any

from chatassert._cli import _worker
from chatassert._cli._plan import LogError, Plan, make_checker
from chatassert._rows import whole_first
from chatassert._suite import Suite
from chatassert.records import (
    RECORD_END,
    Checker,
    Item,
    Row,
)

_GROUP_BATCH = 64


def _groups(plan: Plan, paths: Sequence[str]) -> Iterator[Any]:
    """The groups of the logs, in the order they complete, with a `Record` for each line that
    cannot be read or grouped and a list of items for a log whose rest cannot be read."""
    from chatassert.transcripts import READ_ERRORS, numbered_lines, open_text, read_error
    from chatassert.transcripts._group import grouped

    assert plan.group_by is not None
    for path in paths:
        try:
            stream = open_text(path)
        except OSError as exc:
            raise LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
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


def _check_grouped(checker: Checker, groups: list[Any], items: list[Item]) -> None:
    """Check groups (or report lines that could not be grouped), each followed by
    `RECORD_END`, their judged cases asked together (`Checker.records_into`)."""
    from chatassert.transcripts._group import Group

    def record(group: Any) -> Any:
        return group.record(checker.transcript_format) if isinstance(group, Group) else group

    checker.records_into(((r, f"{r.source}:{r.line}") for r in map(record, groups)), items)


def _work_groups(groups: list[Any]) -> list[Item]:
    """Check whole groups in a worker."""
    items: list[Item] = []
    _check_grouped(_worker.task_checker(), groups, items)
    return items


def grouped_items(
    plan: Plan, suites: list[Suite], paths: Sequence[str], jobs: int
) -> Generator[list[Item], None, None]:
    """`checked_items` with --group-by: each group's items as it completes (in batches with
    --jobs, at most three per job in flight)."""
    if jobs <= 1:
        checker = make_checker(plan, suites)
        size = checker.judged_batch()  # 1 (a group as soon as it is whole) unless judged
        held: list[Any] = []
        for group in _groups(plan, paths):
            if isinstance(group, list):  # a read failure, in its place
                if held:
                    yield from whole_first(partial(_check_grouped, checker, held))
                    held = []
                yield group
                continue
            held.append(group)
            if len(held) == size:
                yield from whole_first(partial(_check_grouped, checker, held))
                held = []
        if held:
            yield from whole_first(partial(_check_grouped, checker, held))
        return
    pool = _worker.start_pool(plan, suites, jobs)
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
        _worker.stop_workers(pool)
        raise
    finally:
        _worker.end_pool(pool)
