"""The chunk engine of `chatassert check`: the logs read as chunks of lines (regular files
cut into byte ranges that workers read themselves), checked in this process or in `--jobs`
worker processes, and each chunk's items yielded in input order.

A record of several conversations that is large (a one-document log: an Inspect eval log, a
promptfoo output, an ADK eval set, a trace export; or a line of a chunk's size) is spread by
its parts: the main process decodes and splits it (`transcripts._reading.split_value`) and
each task reads and checks a batch of its parts, so one document is checked on every core.

What a chunk produces, in input order, is a list of `Item`s (`chatassert.records`): rows
(case outcomes, unmatched and unreadable records), held steps of multi-step tests (paired by
the main process's checker, where every chunk's lines meet), and `RECORD_END` after the items
of each log record (after its last batch of parts, for a record spread by its parts).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future
from functools import partial
from typing import IO, TYPE_CHECKING, Any

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
from chatassert._rows import whole_first
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

if TYPE_CHECKING:
    from chatassert.transcripts import Record
    from chatassert.transcripts._reading import Piece


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


def _work_record(record: Record, where: str) -> list[Item] | Folded:
    """Check a record the main process read (a document that could not be decoded)."""
    checker = _worker.task_checker()
    items: list[Item] = []
    checker.record_into(record, where, items)
    return _worker.fold(items)


def _work_pieces(source: str, number: int, pieces: list[Piece], last: bool) -> list[Item] | Folded:
    """Read and check a batch of the parts of the record `source:number` (its last batch
    ends the record)."""
    return _worker.fold(_check_pieces(_worker.task_checker(), source, number, pieces, last))


def _check_pieces(
    checker: Checker, source: str, number: int, pieces: Sequence[Piece], last: bool
) -> list[Item]:
    """The items of some of the parts of the record `source:number`, read here, as
    `Checker.record_into` gives them for the whole record: `RECORD_END` only after the last."""
    from chatassert.transcripts import Record

    parts = tuple(one for piece in pieces for one in piece.read(source, number))
    items: list[Item] = []
    checker.record_into(Record(source, number, parts=parts), f"{source}:{number}", items)
    if not last:
        items.pop()  # the record goes on in the next batch
    return items


def spread(text: str) -> bool:
    r"""Whether a record's text is checked part by part, where it may hold several
    conversations: a whole one-document file (`.json`, pretty-printed JSON), or a line of at
    least a chunk's size (`CHUNK_BYTES`). Smaller lines are checked a chunk of lines at a time.

    Example:
        >>> spread('{"turns": []}\n'), spread('{\n "samples": []\n}\n')
        (False, True)
    """
    return 0 <= text.find("\n") < len(text) - 1 or len(text) >= CHUNK_BYTES


def _record_items(
    checker: Checker, source: str, number: int, text: str
) -> Iterator[tuple[list[Item], float]]:
    """Check a record to spread (`spread`) in this process, a part at a time: the items of
    each part (the last ending with `RECORD_END`), each with how much of the record is done,
    from 0 to 1. What `Checker.line_into` gives for the whole record, read lazily: one part's
    conversation in memory at a time, and its rows given as soon as it is checked."""
    from chatassert.transcripts import read_value
    from chatassert.transcripts._reading import split_value

    raw, error, frozen = _decoded_frozen(text, source, number)
    try:
        pieces = None if error is not None else split_value(raw, checker.read_as)
        if not pieces:
            items: list[Item] = []
            whole = error if error is not None else read_value(raw, source, number, checker.read_as)
            del raw
            checker.record_into(whole, f"{source}:{number}", items)
            yield items, 1.0
            return
        del raw  # each piece holds its own part of the record, let go once it is checked
        count = len(pieces)
        left = deque(pieces)
        del pieces
        while left:
            items = _check_pieces(checker, source, number, [left.popleft()], not left)
            yield items, (count - len(left)) / count
    finally:
        if frozen:
            gc.unfreeze()


def _record_tasks(
    read_as: str | None, source: str, number: int, text: str, moved: int, jobs: int
) -> Iterator[tuple[tuple[Any, ...], int]]:
    """The tasks of a record to spread (`spread`), decoded and split here, each with the
    bytes of the log it accounts for: batches of its parts (about a chunk's bytes each, and
    at least two batches a job), or the whole record when it is one conversation or cannot
    be decoded."""
    from chatassert.transcripts._reading import split_value

    raw, error, frozen = _decoded_frozen(text, source, number)
    try:
        if error is not None:
            yield (_work_record, error, f"{source}:{number}"), moved
            return
        pieces = split_value(raw, read_as)
        if not pieces:  # one conversation: its text travels (a copy), not its value (a pickle)
            del raw
            yield (_work, source, number, [text]), moved
            return
        del raw  # each piece holds its own part of the record, let go once it is sent
        count = len(pieces)
        size = max(1, min(CHUNK_BYTES * count // max(len(text), 1), -(-count // (2 * jobs))))
        tasks = -(-count // size)
        left = deque(pieces)
        del pieces
        for task in range(tasks):
            batch = [left.popleft() for _ in range(min(size, len(left)))]
            share = moved * (task + 1) // tasks - moved * task // tasks
            yield (_work_pieces, source, number, batch, not left), share
    finally:
        if frozen:
            gc.unfreeze()


def _decoded_frozen(text: str, source: str, number: int) -> tuple[Any, Record | None, bool]:
    """`decoded` for a record to spread, and whether what is alive after it was frozen
    (`gc.freeze`: the caller unfreezes it once the record is done).

    The cyclic garbage collector is paused while a large document is decoded (decoding makes
    no cycles), and its millions of objects are then kept out of the collections until the
    record is done: otherwise each full collection, triggered as the document is decoded and
    then as its parts are checked or sent, traverses all of them again (a quarter of the main
    process's time with two jobs on a 65 MB Inspect log). Frozen objects are still freed when
    no longer referenced. A process that froze objects of its own, or turned the collector
    off, is left as it is.
    """
    from chatassert.transcripts._reading import decoded

    if not gc.isenabled() or gc.get_freeze_count():
        raw, error = decoded(text, source, number)
        return raw, error, False
    gc.disable()
    try:
        raw, error = decoded(text, source, number)
        gc.freeze()
    finally:
        gc.enable()
    return raw, error, True


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
    first line, None)`, in order. A line of `size` bytes or more is a piece of its own (see
    `line_pieces`); the last line needs no newline. When the rest of the file cannot be read,
    the last item is `(offset, offset, number of the next line, error)`.

    The file is read once, in blocks, to find the cuts and count the lines (so each piece
    knows its line numbers); nothing is decoded or sent but the offsets.
    """
    for start, end, first, error, _ in line_pieces(path, size):
        yield start, end, first, error


def line_pieces(
    path: str, size: int = CHUNK_BYTES
) -> Iterator[tuple[int, int, int, str | None, bool]]:
    """`byte_ranges`, each piece saying whether it is one line of `size` bytes or more (a
    record the main process spreads by its parts: `spread`), the others at most `2 * size`
    bytes: a piece ends at the last newline of a block of `size` bytes, or before a line that
    began in it and is `size` bytes long or more."""
    from chatassert.transcripts import READ_ERRORS, read_error

    try:
        stream = open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise LogError(f"cannot read log {path}: {exc.strerror or exc}") from None
    block = bytearray(size)
    start = read = 0  # `start` always begins a line: only the line there can be this long
    line = 1
    with stream:
        while True:
            try:
                n = stream.readinto(block)
            except READ_ERRORS as exc:
                yield read, read, line, f"cannot read the rest of the log: {read_error(exc)}", False
                return
            if not n:
                break
            cut = block.rfind(b"\n", 0, n)
            if cut >= 0:  # else a line longer than a block: the piece grows
                after = 0
                first = block.find(b"\n", 0, n)
                if read + first + 1 - start >= size:  # the line at `start` ends here
                    yield start, read + first + 1, line, None, True
                    start, after, line = read + first + 1, first + 1, line + 1
                if cut >= after:
                    end = read + cut + 1
                    yield start, end, line, None, False
                    line += block.count(b"\n", after, cut + 1)
                    start = end
            read += n
    if start < read:
        yield start, read, line, None, read - start >= size


def _check_lines(checker: Checker, source: str, first: int, lines: list[str]) -> list[Item]:
    """A worker's chunk of lines checked, its judged cases asked together."""
    items: list[Item] = []
    entries = [(line, source, first + i) for i, line in enumerate(lines) if line.strip()]
    checker.lines_into(entries, items)
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
    run reports every line checked), or, when a selected case asks a judge, each batch's
    (`Checker.judged_batch()` lines, their judged cases asked together; Ctrl-C reports the
    records of the batch checked whole by then); with several, each chunk's (its judged
    cases asked together), and at most three chunks per job are in flight, so memory stays
    bounded whatever the size of the logs.

    `meter` counts the bytes checked: with one job, a chunk's bytes share by line (by the
    length of each); with several, the bytes of each piece a worker has finished.
    """
    meter = meter or Meter(None)
    if plan.group_by is not None:  # the bytes behind a group are not counted: rates only
        yield from grouped_items(plan, suites, paths, jobs)
        return
    if jobs <= 1:
        checker = make_checker(plan, suites)
        batch = checker.judged_batch()
        for source, first, lines, error, moved in _chunks(paths):
            before, seen, length = meter.done, 0, sum(map(len, lines)) or 1
            held: list[tuple[str, str, int | None]] = []  # lines to check together
            for offset, line in enumerate(lines):
                if not line.strip():
                    seen += len(line)
                    continue
                if spread(line):  # a part at a time
                    if held:
                        meter.done = before + moved * seen // length
                        yield from whole_first(partial(checker.lines_into, held))
                        held = []
                    for items, done in _record_items(checker, source, first + offset, line):
                        meter.done = before + moved * (seen + int(len(line) * done)) // length
                        yield items
                    seen += len(line)
                    continue
                seen += len(line)
                if batch > 1:
                    held.append((line, source, first + offset))
                    if len(held) == batch:
                        meter.done = before + moved * seen // length
                        yield from whole_first(partial(checker.lines_into, held))
                        held = []
                    continue
                items = []
                checker.line_into(line, source, first + offset, items)
                meter.done = before + moved * seen // length
                yield items
            if held:
                yield from whole_first(partial(checker.lines_into, held))
            meter.done = before + moved
            if error is not None:
                yield read_failure(source, first, lines, error)
        return
    read_as = make_checker(plan, suites).read_as
    pool = _worker.start_pool(plan, suites, jobs)
    pending: deque[tuple[Future[list[Item] | Folded], int]] = deque()

    def finished() -> list[Item] | Folded:
        future, moved = pending.popleft()
        result = future.result()
        meter.done += moved
        return result

    try:
        for task, moved in _tasks(paths, read_as, jobs):
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


def _tasks(
    paths: Sequence[str], read_as: str | None, jobs: int
) -> Iterator[tuple[tuple[Any, ...] | list[Item], int]]:
    """What workers do, in input order, each with the bytes of the log it covers:
    `(function, *arguments)` for a piece of a log, or the items of a read failure. A regular
    file is cut into byte ranges that workers read themselves; other logs (standard input,
    pipes, `.gz`, `.json`) are read here, in chunks of lines sent along. A record to spread
    (`spread`: a one-document file, a line of a chunk's size) is decoded and split here,
    and its parts sent in batches (`_record_tasks`: `read_as`, the format records are read in,
    and `jobs` say how)."""
    for path in paths:
        if _splittable(path):
            for start, end, first, error, long in line_pieces(path):
                if error is not None:
                    row = Row(kind="unreadable", source=f"{path}:{first}", error=error)
                    yield [row, RECORD_END], 0
                elif long:
                    yield from _long_line_tasks(path, start, end, first, read_as, jobs)
                else:
                    yield (_work_range, path, start, end, first), end - start
            continue
        for source, first, lines, error, moved in _chunks([path]):
            yield from _line_tasks(source, first, lines, moved, read_as, jobs)
            if error is not None:  # the bytes moved are the chunk's, when it has lines
                yield read_failure(source, first, lines, error), 0 if lines else moved


def _line_tasks(
    source: str, first: int, lines: list[str], moved: int, read_as: str | None, jobs: int
) -> Iterator[tuple[tuple[Any, ...], int]]:
    """The tasks of a chunk of lines read here: its runs of lines sent along, and each
    record to spread among them split into tasks of its own; the chunk's bytes shared by
    line (by the length of each)."""
    length = sum(map(len, lines)) or 1
    run = 0  # where the lines not yet sent begin
    seen = done = 0  # the length of the lines before this one; the bytes accounted for

    def share(upto: int) -> int:
        nonlocal done
        now = moved * upto // length
        step, done = now - done, now
        return step

    for offset, line in enumerate(lines):
        if spread(line) and line.strip():
            if offset > run:
                yield (_work, source, first + run, lines[run:offset]), share(seen)
            share_of_line = share(seen + len(line))
            yield from _record_tasks(read_as, source, first + offset, line, share_of_line, jobs)
            run = offset + 1
        seen += len(line)
    if run < len(lines):
        yield (_work, source, first + run, lines[run:] if run else lines), share(seen)


def _long_line_tasks(
    path: str, start: int, end: int, first: int, read_as: str | None, jobs: int
) -> Iterator[tuple[tuple[Any, ...] | list[Item], int]]:
    """The tasks of a line of a chunk's size or more (`line_pieces`), read here and spread."""
    try:
        with open(path, "rb") as stream:
            stream.seek(start)
            data = stream.read(end - start)
    except OSError as exc:
        error = f"cannot read the log: {exc.strerror or exc}"
        yield [Row(kind="unreadable", source=f"{path}:{first}", error=error), RECORD_END], 0
        return
    line = data.decode("utf-8-sig" if start == 0 else "utf-8", "surrogateescape")
    del data  # the piece is one line: `split_lines` would copy it twice more
    yield from _line_tasks(path, first, [line], end - start, read_as, jobs)
