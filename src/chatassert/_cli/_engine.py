"""The chunk engine of `chatassert check`: the logs read as chunks of lines (regular files
cut into byte ranges that workers read themselves), checked in this process or in `--jobs`
worker processes, and each chunk's items yielded in input order.

What a chunk produces, in input order, is a list of `Item`s (`chatassert.records`): rows
(case outcomes, unmatched and unreadable records), held steps of multi-step tests (paired by
the main process's checker, where every chunk's lines meet), and `RECORD_END` after the items
of each log record.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future
from typing import IO, Any

from chatassert._cli import _worker
from chatassert._cli._grouping import grouped_items
from chatassert._cli._plan import (
    CHUNK_BYTES,
    CHUNK_LINES,
    Folded,
    LogError,
    Meter,
    Plan,
    make_checker,
)
from chatassert._suite import Suite
from chatassert.records import (
    RECORD_END,
    Checker,
    Item,
    RecordEnd,
    Row,
)
from chatassert.reporting import (
    REPORT_FORMATS,
)


def foldable(plan: Plan, jobs: int, args: argparse.Namespace) -> bool:
    """Whether workers may fold their chunks (`Folded`): with several jobs, when the run
    stops at no particular row (`--strict`, `--max-failures`) and no report spools rows to
    write them at the end (JUnit, HTML): each is streamed or written from the summary."""
    return (
        jobs > 1
        and plan.group_by is None
        and not args.strict
        and args.max_failures is None
        and all(REPORT_FORMATS[fmt].rows != "spooled" for fmt in plan.formats)
    )


def _work(source: str, first: int, lines: list[str]) -> list[Item] | Folded:
    """Check lines read by the main process (standard input, a pipe, a `.gz`)."""
    checker = _worker.task_checker()
    return _worker.fold(_check_lines(checker, source, first, lines))


def _work_range(path: str, start: int, end: int, first: int) -> list[Item] | Folded:
    """Read the bytes `start:end` of a log (whole lines, the first numbered `first`) and
    check them: the main process only says where the pieces of a file are."""
    checker = _worker.task_checker()
    try:
        with open(path, "rb") as stream:
            stream.seek(start)
            data = stream.read(end - start)
    except OSError as exc:
        error = f"cannot read the log: {exc.strerror or exc}"
        return [Row(kind="unreadable", source=f"{path}:{first}", error=error), RECORD_END]
    return _worker.fold(_check_lines(checker, path, first, split_lines(data, start == 0)))


def split_lines(data: bytes, at_start: bool) -> list[str]:
    r"""The lines of whole-line bytes of a log as `open_text` reads them: UTF-8 (a byte order
    mark skipped at the start of the file), bytes that are not UTF-8 kept as escapes, lines
    ending at `\n` only and keeping it.

    Example:
        >>> split_lines(b'{"a": 1}\r\n\n{"b": 2}', True)
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
    standard input, a pipe, a `.gz`, a `.json` file that may be one document, or a file read
    whole: pretty-printed JSON, a YAML file, `transcripts.read_as_one`)."""
    from chatassert.transcripts import read_as_one

    return (
        path != "-"
        and not path.endswith(".gz")
        and not path.lower().endswith(".json")
        and os.path.isfile(path)
        and read_as_one(path) is None
    )


def byte_ranges(path: str, size: int = CHUNK_BYTES) -> Iterator[tuple[int, int, int, str | None]]:
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
        raise LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
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


def paired(
    checker: Checker, batches: Generator[list[Item] | Folded, None, None]
) -> Generator[Sequence[Row | RecordEnd] | Folded, None, None]:
    """The batches of items, with the lines of multi-step tests paired into checked runs."""
    try:
        for items in batches:
            yield items if isinstance(items, Folded) else checker.pair(items)
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
            raise LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
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
                if size >= CHUNK_BYTES or len(lines) >= CHUNK_LINES:
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


def log_bytes(paths: Sequence[str]) -> int | None:
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


def read_failure(source: str, first: int, lines: list[str], error: str | None) -> list[Item]:
    """The items of a log whose rest could not be read, after the chunk `first, lines`: what
    could not be read is a record of its own, unreadable (so a `.gz` that is not gzip is an
    unreadable log, exit 3, not a log without records)."""
    if error is None:
        return []
    where = f"{source}:{first + len(lines)}"
    return [Row(kind="unreadable", source=where, error=error), RECORD_END]


def checked_items(
    plan: Plan, suites: list[Suite], paths: Sequence[str], jobs: int, meter: Meter | None = None
) -> Generator[list[Item] | Folded, None, None]:
    """Check the logs chunk by chunk, yielding each chunk's items in input order (folded by
    the worker that checked them when the plan says so).

    With one job, each line's items are yielded as soon as it is checked (so an interrupted
    run reports every line checked); with several, each chunk's, and at most three chunks per
    job are in flight, so memory stays bounded whatever the size of the logs.

    `meter` counts the bytes checked: with one job, a chunk's bytes share by line (by the
    length of each); with several, the bytes of each piece a worker has finished.
    """
    meter = meter or Meter(None)
    if plan.group_by is not None:  # the bytes behind a group are not counted: rates only
        yield from grouped_items(plan, suites, paths, jobs)
        return
    if jobs <= 1:
        checker = make_checker(plan, suites)
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
                yield read_failure(source, first, lines, error)
        return
    pool = _worker.start_pool(plan, suites, jobs)
    pending: deque[tuple[Future[list[Item] | Folded], int]] = deque()

    def finished() -> list[Item] | Folded:
        future, moved = pending.popleft()
        result = future.result()
        meter.done += moved
        return result

    try:
        for task, moved in _tasks(paths):
            if isinstance(task, list):  # a read failure, reported in its place
                failed: Future[list[Item] | Folded] = Future()
                failed.set_result(task)
                pending.append((failed, moved))
            else:
                pending.append((pool.submit(*task), moved))
            if len(pending) >= 3 * jobs:
                yield finished()
        while pending:
            yield finished()
    except (KeyboardInterrupt, GeneratorExit):  # stop now, not after the chunks in flight
        _worker.stop_workers(pool)
        raise
    finally:
        _worker.end_pool(pool)


def _tasks(paths: Sequence[str]) -> Iterator[tuple[tuple[Any, ...] | list[Item], int]]:
    """What workers do, in input order, each with the bytes of the log it covers:
    `(function, *arguments)` for a piece of a log, or the items of a read failure. A regular
    file is cut into byte ranges that workers read themselves; other logs (standard input,
    pipes, `.gz`, `.json`) are read here, in chunks of lines sent along."""
    for path in paths:
        if _splittable(path):
            for start, end, first, error in byte_ranges(path):
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
                yield read_failure(source, first, lines, error), moved
