"""Check a Ray Dataset of log records: the suite of `chatassert check`, on Ray Data.

`check_dataset(dataset, suites)` gives a Ray Dataset of result rows (`Row.to_row()` dicts,
schema `chatassert.records.arrow_schema()`), checked by plain Ray tasks (`map_batches` with a
function, not an actor pool), each building its `Checker` once from a picklable description.
`summarize(rows)` merges the rows' counts into one `Summary`, adding what only the whole set
can say (expect tests no record answered). `chatassert check --engine ray` is built on them.
Judged suites share one judge limit (`JudgeLimit`, an actor behind a `RayRequestGate`) and
one verdict store (`RayVerdictStore`) per run; `ResultsDir` keeps each file's rows for
resuming.

Ray is imported by these functions only (`pip install chatassert[ray]`): `import chatassert`
imports neither Ray nor pyarrow.

Example (see docs/ray.md; needs Ray):
    >>> import ray  # doctest: +SKIP
    >>> from chatassert.integrations.ray import check_dataset, summarize  # doctest: +SKIP
    >>> rows = check_dataset(ray.data.read_json("logs/"), [suite])  # doctest: +SKIP
    >>> summarize(rows, [suite]).exit_code()  # doctest: +SKIP
    0
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import importlib
import io
import json
import math
import os
import re
import sys
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatassert._cache import VerdictCache, VerdictStore, use_verdict_store
from chatassert._errors import ChatAssertError
from chatassert._judging import Verdict
from chatassert._result import Status, shorten
from chatassert._suite import Suite
from chatassert.judges._gate import GateKey, LocalRequestGate, RequestGate, use_request_gate
from chatassert.records import ROW_SCHEMA, Checker, Row, Summary, arrow_schema

__all__ = [
    "CheckerSpec",
    "JudgeLimit",
    "RayRequestGate",
    "RayVerdictStore",
    "ReadStamp",
    "ResultsDir",
    "ResultsFileError",
    "SavedResults",
    "check_dataset",
    "check_files",
    "summarize",
]

EXTRA = "chatassert[ray]"


def _ray() -> Any:
    """The `ray` module, imported now, or an ImportError naming the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise ImportError(
            f"chatassert.integrations.ray needs Ray Data: pip install {EXTRA!r}"
        ) from exc


@dataclass(frozen=True)
class CheckerSpec:
    """What a task needs to build its `Checker`: the suites (they pickle) and its options.

    Attributes:
        suites: The suites, with any `assume` already applied.
        options: The other `Checker` arguments (`keyword`, `tags`, `read_as`, ...).
        token: Names the description: a worker process builds one checker per token.
    """

    suites: tuple[Suite, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    @classmethod
    def of(cls, suites_or_checker: Checker | Suite | Sequence[Suite]) -> CheckerSpec:
        """The description of a checker, or of a checker of these suites (defaults)."""
        if isinstance(suites_or_checker, Checker):
            c = suites_or_checker
            options = {
                "keyword": c.keyword,
                "tags": c.tags,
                "read_as": c.transcript_format,
                "formats": sorted(c.formats),
                "trees": c.trees,
                "examples": c.examples,
                "full_results": c.full_results,
                "verbose": c.verbose,
                "flaky": c.flaky,
                "prices": c.prices,
                "plan_judging": c.plan_judging,
            }
            return cls(tuple(c.suites), options)
        if isinstance(suites_or_checker, Suite):
            return cls((suites_or_checker,))
        return cls(tuple(suites_or_checker))

    def build(self) -> Checker:
        """A new checker of this description."""
        return Checker(list(self.suites), **self.options)


# -- one judge limit for the whole cluster ---------------------------------------------------

_WAITERS = 10_000
"""The calls the limiter actor serves at once: every waiting request holds one."""


@dataclass(frozen=True)
class JudgeLimit:
    """One limit on judge requests for every task of a run, per provider and model.

    Attributes:
        concurrency: Requests in flight per provider and model, cluster-wide; None: no bound.
        per_minute: Requests sent per provider and model in any 60 s; None: no budget.
        backoff: The pause after a 429 without `Retry-After`, doubled for each further one
            in a row (a `Retry-After` is honoured as the server gives it).
        max_backoff: The longest such pause.
    """

    concurrency: int | None = 32
    per_minute: int | None = None
    backoff: float = 1.0
    max_backoff: float = 60.0

    def __post_init__(self) -> None:
        LocalRequestGate(  # the same checks as the gate the actor runs
            self.concurrency,
            per_minute=self.per_minute,
            backoff=self.backoff,
            max_backoff=self.max_backoff,
        )

    def start(self, name: str | None = None) -> RayRequestGate:
        """Start the limiter actor of a run (named `name`, default a new unique name) and
        return the gate that asks it (it pickles into every task)."""
        ray = _ray()
        name = name or f"chatassert-judge-limit-{uuid.uuid4().hex[:12]}"
        actor = (
            ray.remote(_Limiter)
            .options(name=name, max_concurrency=_WAITERS, num_cpus=0)
            .remote(self.concurrency, self.per_minute, self.backoff, self.max_backoff)
        )
        return RayRequestGate(actor, name)


class _Limiter:
    """The limiter actor: one `LocalRequestGate` on the actor's event loop, shared by every
    task through its handle, and the most requests it saw in flight per key."""

    def __init__(
        self, concurrency: int | None, per_minute: int | None, backoff: float, max_backoff: float
    ) -> None:
        self.gate = LocalRequestGate(
            concurrency, per_minute=per_minute, backoff=backoff, max_backoff=max_backoff
        )
        self.most: dict[str, int] = {}
        self.paused: dict[str, int] = {}

    async def acquire(self, key: GateKey) -> None:
        await self.gate.acquire(key)
        name = ":".join(key)
        self.most[name] = max(self.most.get(name, 0), self.gate.in_flight(key))

    async def release(self, key: GateKey) -> None:
        await self.gate.release(key)

    async def pause(self, key: GateKey, seconds: float | None) -> None:
        name = ":".join(key)
        self.paused[name] = self.paused.get(name, 0) + 1
        await self.gate.pause(key, seconds)

    async def stats(self) -> dict[str, dict[str, int]]:
        return {"most_in_flight": dict(self.most), "pauses": dict(self.paused)}


class RayRequestGate:
    """A `RequestGate` whose state is one Ray actor (see `JudgeLimit.start`): every task that
    installs it (`use_request_gate`) shares one limit per provider and model, and a 429 any
    of them gets pauses all of them. It pickles: it holds the actor's handle and name.

    Attributes:
        actor: The limiter actor's handle.
        name: The actor's name (`ray.get_actor(name)` finds it while the run lives).
    """

    def __init__(self, actor: Any, name: str) -> None:
        self.actor = actor
        self.name = name

    def __repr__(self) -> str:
        return f"RayRequestGate({self.name!r})"

    async def acquire(self, key: GateKey) -> None:
        """Wait for the actor to admit a request for `key`."""
        await self.actor.acquire.remote(key)

    async def release(self, key: GateKey) -> None:
        """Tell the actor a request for `key` finished."""
        await self.actor.release.remote(key)

    async def pause(self, key: GateKey, seconds: float | None) -> None:
        """Pause `key` for every task (`seconds`, or the limit's back-off when None)."""
        await self.actor.pause.remote(key, seconds)

    def stats(self) -> dict[str, dict[str, int]]:
        """What the actor saw: the most requests in flight and the pauses, per
        `provider:model`."""
        result: dict[str, dict[str, int]] = _ray().get(self.actor.stats.remote())
        return result


def _gate_of(limit: JudgeLimit | RequestGate | None) -> RequestGate | None:
    if isinstance(limit, JudgeLimit):
        return limit.start()
    return limit


def _gated(gate: RequestGate | None) -> Any:
    return use_request_gate(gate) if gate is not None else contextlib.nullcontext()


# -- one verdict store for the whole cluster -----------------------------------------------


class _Verdicts:
    """The verdict store actor: verdicts in memory (and in a SQLite file on the actor's node
    when it has a path), and the keys being judged, so a task that looks up a verdict another
    task is producing waits for it instead of asking the judge again."""

    def __init__(self, path: str | None, lease: float) -> None:
        self.memory: dict[str, Verdict] = {}
        self.file = VerdictCache(path) if path else None
        self.lease = lease
        self.claims: dict[str, tuple[float, asyncio.Event]] = {}

    def _known(self, key: str) -> Verdict | None:
        verdict = self.memory.get(key)
        if verdict is None and self.file is not None:
            verdict = self.file.get(key)
            if verdict is not None:
                self.memory[key] = verdict
        return verdict

    async def get(self, key: str, claim: bool) -> Verdict | None:
        while True:
            verdict = self._known(key)
            if verdict is not None or not claim:
                return verdict
            now = time.monotonic()
            held = self.claims.get(key)
            if held is None or held[0] <= now:  # nobody judging it (or they went quiet)
                self.claims[key] = (now + self.lease, asyncio.Event())
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(held[1].wait(), held[0] - now)

    async def put_many(self, items: list[tuple[str, Verdict]]) -> None:
        for key, verdict in items:
            self.memory[key] = verdict
            self._settle(key)
        if self.file is not None and items:
            self.file.put_many(items)

    async def abandon(self, key: str) -> None:
        self._settle(key)

    def _settle(self, key: str) -> None:
        held = self.claims.pop(key, None)
        if held is not None:
            held[1].set()

    async def size(self) -> int:
        return len(self.memory)

    async def close(self) -> None:
        if self.file is not None:
            self.file.close()


class RayVerdictStore:
    """A `VerdictStore` shared by every task of a run: one Ray actor holds the verdicts (and
    writes them to a SQLite file on its node when started with a `path`, so a later run with
    the same path reuses them). While one task asks the judge for a key, another task that
    needs the same verdict waits for it (`aget`) rather than asking again. It pickles: it
    holds the actor's handle and name.

    Attributes:
        actor: The store actor's handle.
        name: The actor's name.
    """

    def __init__(self, actor: Any, name: str) -> None:
        self.actor = actor
        self.name = name

    @classmethod
    def start(
        cls, path: str | None = None, *, name: str | None = None, lease: float = 300.0
    ) -> RayVerdictStore:
        """Start the store actor of a run.

        Args:
            path: A SQLite file on the actor's node that keeps the verdicts between runs
                (a `VerdictCache`); None: in memory, for this run.
            name: The actor's name (default a new unique one).
            lease: Seconds a task may take to produce a verdict others wait for; after
                that, or when its judge fails, the next task asks the judge itself.
        """
        ray = _ray()
        name = name or f"chatassert-verdicts-{uuid.uuid4().hex[:12]}"
        actor = (
            ray.remote(_Verdicts)
            .options(name=name, max_concurrency=_WAITERS, num_cpus=0)
            .remote(None if path is None else str(path), float(lease))
        )
        return cls(actor, name)

    def __repr__(self) -> str:
        return f"RayVerdictStore({self.name!r})"

    def get(self, key: str) -> Verdict | None:
        """The stored verdict for `key`, or None (without waiting for one being produced)."""
        found: Verdict | None = _ray().get(self.actor.get.remote(key, False))
        return found

    async def aget(self, key: str) -> Verdict | None:
        """The stored verdict for `key`; when another task is producing it, wait for it;
        else None, and this caller is the one expected to produce it (`put_many`, or
        `abandon` when it cannot)."""
        found: Verdict | None = await self.actor.get.remote(key, True)
        return found

    def put_many(self, items: Sequence[tuple[str, Verdict]]) -> None:
        """Store verdicts (and wake the tasks waiting for them)."""
        _ray().get(self.actor.put_many.remote(list(items)))

    def abandon(self, key: str) -> None:
        """Give up producing `key` (its judge failed): a waiting task may ask instead."""
        self.actor.abandon.remote(key)

    def __len__(self) -> int:
        size: int = _ray().get(self.actor.size.remote())
        return size

    def close(self) -> None:
        """Close the actor's file (a later write reopens it)."""
        _ray().get(self.actor.close.remote())


@contextlib.contextmanager
def _environment(environ: Mapping[str, str]) -> Iterator[None]:
    """Set `environ` in this worker while a task runs (a worker runs one task at a time),
    then put back what was there: the judge settings of the run, without a runtime
    environment of its own (which would start new worker processes)."""
    if not environ:
        yield
        return
    before = {name: os.environ.get(name) for name in environ}
    os.environ.update(environ)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _stored(store: VerdictStore | None) -> Any:
    return use_verdict_store(store) if store is not None else contextlib.nullcontext()


_BUILT: dict[str, Checker] = {}
"""The checkers built in this worker process, by description token."""


def _checker(spec: CheckerSpec) -> Checker:
    checker = _BUILT.get(spec.token)
    if checker is None:
        checker = _BUILT[spec.token] = spec.build()
    checker.reset()
    return checker


def _table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Rows as a pyarrow table of `arrow_schema()`."""
    pa = importlib.import_module("pyarrow")
    schema = arrow_schema()
    return pa.Table.from_pylist(list(rows), schema=schema)


def _rows_of(checker: Checker, value: Any, where: str) -> list[Row]:
    """The rows of one record; a record that cannot be checked at all is `unreadable`."""
    if value is None:
        return [Row(kind="unreadable", source=where, error="the record is null")]
    try:
        return checker.check_record(value, where)
    except Exception as exc:  # one bad record must not fail its partition
        return [Row(kind="unreadable", source=where, error=f"cannot check the record: {exc}")]


def _batch_rows(checker: Checker, batch: list[tuple[Any, str]]) -> list[Row]:
    """The rows of the records `batch` (`(value, where)`), their judged cases asked together
    (`Checker.check_records`); when checking them fails, or one is null, each record's rows as
    `_rows_of` gives them alone (its judged cases asked again), so a bad record still fails
    only itself."""
    if len(batch) == 1 or any(value is None for value, _ in batch):
        return [row for value, where in batch for row in _rows_of(checker, value, where)]
    try:
        return list(checker.check_records([value for value, _ in batch], [w for _, w in batch]))
    except Exception:  # one bad record must not fail its partition: each on its own
        return [row for value, where in batch for row in _rows_of(checker, value, where)]


class _CheckBatch:
    """The function each task applies to a batch (a pyarrow table): picklable, stateless
    apart from the checker its worker builds once per description."""

    def __init__(
        self,
        spec: CheckerSpec,
        column: str | None,
        source: str | None,
        gate: RequestGate | None = None,
        store: VerdictStore | None = None,
    ) -> None:
        self.spec = spec
        self.column = column
        self.source = source
        self.gate = gate
        self.store = store

    def __call__(self, batch: Any) -> Any:
        with _gated(self.gate), _stored(self.store):
            return self._check(batch)

    def _check(self, batch: Any) -> Any:
        checker = _checker(self.spec)
        names = list(batch.schema.names)
        paths = batch.column("path").to_pylist() if "path" in names else None
        numbers = batch.column("row").to_pylist() if "row" in names else None
        if self.column is not None:
            if self.column not in names:
                raise KeyError(f"no column {self.column!r} in the dataset (its columns: {names})")
            values = batch.column(self.column).to_pylist()
        else:
            drop = [n for n in ("path", "row") if n in names]
            values = batch.drop_columns(drop).to_pylist() if drop else batch.to_pylist()
        seen: dict[str, int] = {}
        block = self.source or f"block-{_task_id()}"
        records: list[tuple[Any, str]] = []
        for i, value in enumerate(values):
            where_base = paths[i] if paths is not None and paths[i] else block
            if numbers is not None and numbers[i] is not None:
                number = int(numbers[i])
            else:
                number = seen.get(where_base, 0)
                seen[where_base] = number + 1
            records.append((value, f"{where_base}#row={number}"))
        size = checker.judged_batch()
        out = [
            row.to_row()
            for start in range(0, len(records), size)
            for row in _batch_rows(checker, records[start : start + size])
        ]
        out.extend(row.to_row() for row in checker.flush())
        return _table(out)


def _task_id() -> str:
    """A short name of the running Ray task (for rows of a dataset without paths)."""
    try:
        context = _ray().get_runtime_context()
        return str(context.get_task_id() or "driver")[:12]
    except Exception:
        return "local"


def check_dataset(
    dataset: Any,
    suites_or_checker: Checker | Suite | Sequence[Suite],
    *,
    column: str | None = None,
    source: str | None = None,
    batch_size: int | None = 256,
    judge_limit: JudgeLimit | RequestGate | None = None,
    verdict_store: VerdictStore | None = None,
    **ray_args: Any,
) -> Any:
    """Check each record of a Ray Dataset: a Dataset of result rows (`Row.to_row()` dicts,
    schema `arrow_schema()`), lazily, by plain Ray tasks.

    Args:
        dataset: A `ray.data.Dataset`, one record per row.
        suites_or_checker: The suites, or a `Checker` whose options (selection, formats,
            prices, ...) the tasks' checkers copy; each task builds its checker once from
            this description (the suites pickle).
        column: The column holding each record (a JSON string, bytes or a struct); None: a
            row's columns are the record's fields.
        source: The locator of rows when the dataset has no `path` column (Ray's
            `include_paths=True`); default `block-<task>`.
        batch_size: Records per batch given to a task's function.
        judge_limit: One limit on judge requests for all the tasks (`JudgeLimit`: an actor
            is started for it), or a `RequestGate` to share; None: each task on its own.
        verdict_store: Where the judges built from the environment keep their verdicts
            when their cache is on (`RayVerdictStore.start()`: one store for all the
            tasks); None: each machine's cache file.
        **ray_args: Passed to `map_batches` (`num_cpus`, `max_retries`, `retry_exceptions`,
            `concurrency`...), except that the compute is always tasks.

    A row is located `<path>#row=N`: `path` from the `path` column, `N` from a `row` column
    when the dataset has one, else counted within the task from 0 (exact when a file is read
    by one task and not repartitioned, as Ray's file readers do). A record that cannot be
    read or checked gives an `unreadable` row there, never a failed task; a judge that
    fails gives an `error` row. Multi-step tests are paired within a batch: keep a run's
    steps in one batch.

    Raises:
        ImportError: when Ray is not installed (naming `chatassert[ray]`).
    """
    _ray()
    ray_args.pop("compute", None)
    spec = CheckerSpec.of(suites_or_checker)
    fn = _CheckBatch(spec, column, source, _gate_of(judge_limit), verdict_store)
    return dataset.map_batches(fn, batch_format="pyarrow", batch_size=batch_size, **ray_args)


class _SummarizeBatch:
    """A batch of rows as one summary (`Summary.to_dict()`, JSON) and its row count."""

    def __init__(self, keep: int) -> None:
        self.keep = keep

    def __call__(self, batch: Any) -> Any:
        pa = importlib.import_module("pyarrow")
        part = Summary(keep=self.keep, records=0)
        for data in batch.to_pylist():
            part.add_row(Row.from_row(data))
        return pa.table({"summary": [json.dumps(part.to_dict())]})


def summarize(
    rows: Any,
    suites_or_checker: Checker | Suite | Sequence[Suite] | None = None,
    *,
    keep: int = 20,
    records: int | None = None,
) -> Summary:
    """The summary of a Dataset of result rows (`check_dataset`'s): a summary per block
    (`Summary.add_row`), merged in order (`Summary.merge`), then, given the suites, what
    only the whole set can say (`Checker.finish`: expect tests no record answered).

    Args:
        rows: A Dataset of `Row.to_row()` dicts.
        suites_or_checker: The suites checked, for `Checker.finish`; None: no final step.
        keep: How many examples (failing cases, unreadable records) the summary keeps.
        records: How many records were read, if known (the summary's `records`).
    """
    _ray()
    total = Summary(keep=keep, records=0)
    parts = rows.map_batches(_SummarizeBatch(keep), batch_format="pyarrow", batch_size=None)
    for batch in parts.iter_batches(batch_format="pyarrow", batch_size=None):
        for text in batch.column("summary").to_pylist():
            total.merge(Summary.from_dict(json.loads(text)))
    if suites_or_checker is not None:
        for row in CheckerSpec.of(suites_or_checker).build().finish(total):
            total.add_row(row)
    total.records = records
    return total


# -- reading logs, for `chatassert check --engine ray` -----------------------------------------

_CHUNK = 1 << 20
"""Bytes read from a log at a time."""

_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ReadStamp:
    """What a task read of one log: every byte of it, in one pass from an open file, hashed
    as it was read, and the file's modification time when it was opened.

    Attributes:
        size: How many bytes were read.
        blake2b: Their BLAKE2b hash (a 32-byte digest, in hex).
        mtime_ns: The file's modification time when it was opened (None when not known).
    """

    size: int
    blake2b: str
    mtime_ns: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The stamp as JSON-ready data (the keys of a results file's header)."""
        return {"size": self.size, "blake2b": self.blake2b, "mtime_ns": self.mtime_ns}


class _Hashed(io.RawIOBase):
    """A binary stream read through: each byte that passes is counted and hashed. A failure
    of the stream itself (not of what is made of its bytes) is kept in `failed`."""

    def __init__(self, raw: Any) -> None:
        super().__init__()
        self.raw = raw
        self.hash = hashlib.blake2b(digest_size=32)
        self.size = 0
        self.failed: BaseException | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.raw.read(len(buffer))
        except Exception as exc:
            self.failed = exc
            raise
        count = len(data)
        buffer[:count] = data
        self.hash.update(data)
        self.size += count
        return count

    def rest(self) -> bytes:
        """Read what is left, whole."""
        parts = []
        buffer = bytearray(_CHUNK)
        while count := self.readinto(buffer):
            parts.append(bytes(buffer[:count]))
        return b"".join(parts)

    def drain(self) -> None:
        """Read what is left, keeping only its count and hash."""
        buffer = bytearray(_CHUNK)
        while self.readinto(buffer):
            pass

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(Exception):
                self.raw.close()
        super().close()

    def stamp(self, mtime_ns: int | None) -> ReadStamp:
        return ReadStamp(self.size, self.hash.hexdigest(), mtime_ns)


def _open(name: str) -> tuple[Any, int | None]:
    """Open a log for reading bytes (a local path, or a URI that pyarrow's file systems
    open: `s3://`, `gs://`, `file://`, ...), with its modification time as it is opened."""
    if "://" not in name:
        raw = open(name, "rb", buffering=0)  # noqa: SIM115
        try:
            return raw, os.fstat(raw.fileno()).st_mtime_ns
        except OSError:
            raw.close()
            raise
    fs, path = importlib.import_module("pyarrow.fs").FileSystem.from_uri(name)
    mtime = fs.get_file_info(path).mtime_ns
    return fs.open_input_stream(path), mtime


def _cannot_read(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return str(exc.strerror)
    return str(exc) or type(exc).__name__


def _open_errors() -> tuple[type[BaseException], ...]:
    """What opening or reading a log's bytes may raise: I/O errors, and pyarrow's."""
    arrow = importlib.import_module("pyarrow").ArrowException
    return (OSError, ValueError, arrow)


@dataclass
class _Pass:
    """One reading of a log: its rows, records, lines, and what was read (None when the log
    could not be read through, so that nothing of it may be reused)."""

    rows: list[Row]
    records: int
    lines: int
    read: ReadStamp | None


@dataclass(frozen=True)
class _Planned:
    """What a task is told of a log whose results are kept: what was read to make them, and
    with `only`, the records to check again (the rest stands)."""

    size: int
    blake2b: str
    only: frozenset[int] | None = None

    def matches(self, read: ReadStamp | None) -> bool:
        return read is not None and (read.size, read.blake2b) == (self.size, self.blake2b)


_END = "_file"
"""The key of the item that ends each file's rows: the file's index, and what was read."""

_END_COLUMN = "_end"
_JSON_COLUMN = "_row_json"


def _transport_schema() -> Any:
    """The table a file task gives: the row columns (`arrow_schema`, every one nullable), the
    end of each file as JSON text, and a row whose strings Arrow refuses as JSON text."""
    pa = importlib.import_module("pyarrow")
    fields = [field.with_nullable(True) for field in arrow_schema()]
    extra = [pa.field(_END_COLUMN, pa.string()), pa.field(_JSON_COLUMN, pa.string())]
    return pa.schema(fields + extra)


def _sent(items: Sequence[Mapping[str, Any]]) -> Any:
    """A file task's rows and ends as one table (`_transport_schema`). Rows go as columns;
    one holding a string Arrow cannot encode (a lone surrogate a record escaped) goes as
    ASCII JSON, so that every row travels as it is."""
    pa = importlib.import_module("pyarrow")
    schema = _transport_schema()
    rows = [{_END_COLUMN: json.dumps(x)} if _END in x else x for x in items]
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except UnicodeEncodeError:
        safe = [x if _encodable(x) else {_JSON_COLUMN: json.dumps(x)} for x in rows]
        return pa.Table.from_pylist(safe, schema=schema)


def _encodable(row: Mapping[str, Any]) -> bool:
    """Whether every string of a row is UTF-8 (not a lone surrogate)."""
    try:
        for value in row.values():
            if isinstance(value, str) and not value.isascii():
                value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _received(batch: Any) -> Iterator[dict[str, Any]]:
    """The rows and ends of a table `_sent` made, as it was given."""
    for data in batch.to_pylist():
        end, text = data.pop(_END_COLUMN), data.pop(_JSON_COLUMN)
        if end is not None:
            yield json.loads(end)
        elif text is not None:
            yield json.loads(text)
        else:
            yield data


class _CheckFiles:
    """Check whole log files, one per row of a batch (`input`, `index`): each task opens its
    file itself and reads it in one pass, hashing the bytes as they come (`ReadStamp`). JSONL
    lines are located `path:line` and read as a local run reads them; Parquet rows
    `path#row=N`. Gives each file's rows (`Row.to_row()` dicts), then the item that ends
    the file: its record count and what was read.

    A file planned for resume (`plans`, by index) whose bytes are still those its results
    were made of is not checked (or only its `only` records are); any other is checked
    whole.
    """

    def __init__(
        self,
        spec: CheckerSpec,
        column: str | None,
        gate: RequestGate | None = None,
        store: VerdictStore | None = None,
        environ: Mapping[str, str] | None = None,
        plans: Mapping[int, _Planned] | None = None,
    ) -> None:
        self.spec = spec
        self.column = column
        self.gate = gate
        self.store = store
        self.environ = dict(environ or {})
        self.plans = dict(plans or {})

    def __call__(self, batch: Any) -> Any:
        files = zip(
            batch.column("input").to_pylist(),
            batch.column("index").to_pylist(),
            batch.column("path").to_pylist(),
            strict=True,
        )
        with _environment(self.environ), _gated(self.gate), _stored(self.store):
            out = [item for name, i, path in files for item in self.file(name, i, path)]
        return _sent(out)

    def file(self, name: str, index: int, path: str | None = None) -> list[dict[str, Any]]:
        """The rows of the log `name` (the `index`-th of the run, opened at `path`, default
        `name`), then its end."""
        checker = _checker(self.spec)
        plan = self.plans.get(index)
        path = path or name
        done: _Pass | None = None
        checked = "all"
        if plan is not None and plan.only is None:
            read = self._hash(path)
            if plan.matches(read):
                return [_end(index, "none", 0, 0, read)]
        elif plan is not None:
            done = self._pass(checker, name, path, plan.only)
            if plan.matches(done.read):
                checked = "some"
            else:  # other bytes now: the results stand for nothing
                done = None
        if done is None:
            done = self._pass(checker, name, path, None)
        rows = [row.to_row() for row in done.rows]
        rows.append(_end(index, checked, done.records, done.lines, done.read))
        return rows

    @staticmethod
    def _hash(name: str) -> ReadStamp | None:
        """What reading the whole log now gives, without checking it; None when it cannot."""
        try:
            raw, mtime = _open(name)
        except _open_errors():
            return None
        hashed = _Hashed(raw)
        try:
            hashed.drain()
        except _open_errors():
            return None
        finally:
            hashed.close()
        return hashed.stamp(mtime)

    def _pass(self, checker: Checker, name: str, path: str, only: frozenset[int] | None) -> _Pass:
        """Read the log `name` (at `path`) and check it (with `only`, only those records)."""
        try:
            raw, mtime = _open(path)
        except _open_errors() as exc:
            row = Row(
                kind="unreadable", source=name, error=f"cannot read the log: {_cannot_read(exc)}"
            )
            return _Pass([row], 0, 0, None)
        hashed = _Hashed(raw)
        rows: list[Row] = []
        records = lines = 0
        held: list[tuple[str, str, int | None]] = []  # the last judged lines, not yet checked
        read: ReadStamp | None = None
        try:
            if name.endswith(".parquet"):
                records, lines = self._parquet(checker, name, hashed, rows, only)
            else:
                records, lines = self._jsonl(checker, name, hashed, rows, only, held)
            hashed.drain()
            # stamped before the last lines' judges are waited for: what is written to the
            # log meanwhile is a change that `--resume` sees
            read = hashed.stamp(mtime)
        except _open_errors() as exc:
            if hashed.failed is None:
                raise
            rows.extend(checker.check_lines(held))
            held.clear()
            rows.append(
                Row(
                    kind="unreadable",
                    source=name,
                    error=f"cannot read the log: {_cannot_read(exc)}",
                )
            )
        finally:
            hashed.close()
        rows.extend(checker.check_lines(held))
        rows.extend(checker.flush())
        return _Pass(rows, records, lines, None if hashed.failed else read)

    @staticmethod
    def _jsonl(
        checker: Checker,
        name: str,
        hashed: _Hashed,
        rows: list[Row],
        only: frozenset[int] | None,
        held: list[tuple[str, str, int | None]],
    ) -> tuple[int, int]:
        """Check a JSONL log as a local run reads it (`open_text`): UTF-8 with or without a
        byte order mark, lines ending at `\n`, a `.gz` decompressed; when the rest cannot be
        read (a corrupt `.gz`), an unreadable row at the line after the last one read.

        Judged lines are checked a batch at a time (`Checker.check_lines`); the last batch is
        left in `held`, for the caller to check once what was read is stamped."""
        from chatassert.transcripts import READ_ERRORS, read_error

        buffered = io.BufferedReader(hashed, _CHUNK)
        binary: Any = (
            gzip.GzipFile(fileobj=buffered, mode="rb") if name.endswith(".gz") else buffered
        )
        text = io.TextIOWrapper(
            binary, encoding="utf-8-sig", errors="surrogateescape", newline="\n"
        )
        count = number = 0
        batch = checker.judged_batch()  # judged lines are checked together (`check_lines`)

        def flush() -> None:
            rows.extend(checker.check_lines(held))
            held.clear()

        try:
            for number, line in enumerate(text, 1):
                if line.strip():
                    count += 1
                    if only is not None and number not in only:
                        continue
                    if batch == 1:
                        rows.extend(checker.check_line(line, name, number))
                        continue
                    held.append((line, name, number))
                    if len(held) == batch:
                        flush()
        except READ_ERRORS as exc:
            flush()  # the lines read before it are checked as they would have been
            if hashed.failed is not None:
                raise
            error = f"cannot read the rest of the log: {read_error(exc)}"
            rows.append(Row(kind="unreadable", source=f"{name}:{number + 1}", error=error))
        finally:  # let go of the wrappers without closing the file: the rest is still read
            text.detach()
            if binary is not buffered:
                binary.close()  # a GzipFile given its file object leaves it open
            buffered.detach()
        return count, number

    def _parquet(
        self,
        checker: Checker,
        name: str,
        hashed: _Hashed,
        rows: list[Row],
        only: frozenset[int] | None,
    ) -> tuple[int, int]:
        """Check a Parquet file: a record per row, in a column or as the row's columns."""
        pa = importlib.import_module("pyarrow")
        pq = importlib.import_module("pyarrow.parquet")
        data = hashed.rest()
        try:
            table = pq.read_table(pa.BufferReader(data))
        except (pa.ArrowException, ValueError, OSError) as exc:
            rows.append(
                Row(kind="unreadable", source=name, error=f"cannot read the Parquet file: {exc}")
            )
            return 0, 0
        column = self.column
        if column is None and table.num_columns == 1:
            column = table.schema.names[0]
        if column is not None and column not in table.schema.names:
            names = table.schema.names
            rows.append(
                Row(
                    kind="unreadable",
                    source=name,
                    error=f"no column {column!r} (its columns: {names})",
                )
            )
            return 0, 0
        values = table.column(column).to_pylist() if column is not None else table.to_pylist()
        picked = [
            (value, f"{name}#row={i}")
            for i, value in enumerate(values)
            if only is None or i + 1 in only  # numbered from 1, as `_record_number` does
        ]
        batch = checker.judged_batch()
        for start in range(0, len(picked), batch):
            rows.extend(_batch_rows(checker, picked[start : start + batch]))
        return len(values), len(values)


def _end(
    index: int, checked: str, records: int, lines: int, read: ReadStamp | None
) -> dict[str, Any]:
    """The item that ends a file's rows: which file, what of it was checked (`all`, `some`
    records, or `none`: its results stand), its records and lines, and what was read."""
    return {
        _END: index,
        "checked": checked,
        "records": records,
        "lines": lines,
        "read": None if read is None else read.to_dict(),
    }


def check_files(
    paths: Sequence[str],
    checker: Checker,
    *,
    column: str | None = None,
    judge_limit: JudgeLimit | RequestGate | None = None,
    verdict_store: VerdictStore | None = None,
    environ: Mapping[str, str] | None = None,
    results: str | os.PathLike[str] | None = None,
    resume: bool = False,
    rejudge_errors: bool = False,
    say: Callable[[str], object] | None = None,
    **ray_args: Any,
) -> Generator[Row | int, None, None]:
    """Check log files on Ray (`chatassert check --engine ray`): JSONL, JSONL.gz and Parquet,
    local paths or URIs of files pyarrow opens (`s3://`, `gs://`, `file://`, ...), one task
    per file, its judge requests through `judge_limit`, its verdicts in `verdict_store` (see
    `check_dataset`), with the variables `environ` set while it checks. Yields each file's
    rows in input order, then its record count (an `int`).

    Each task reads its file in one pass and hashes the bytes as they come (`ReadStamp`).
    With `results` (a directory), each file's rows are written there once the file is
    checked, with what was read (`ResultsDir`). With `resume`, a file whose results are
    there and whose bytes are still exactly those read (same size and hash: the file is read
    again to tell) is not checked again: its rows come from its results; a file that changed
    in any way, grew included, is checked whole. With `rejudge_errors` too, the records of
    its `error` case rows are checked again (alone) and their rows replaced (the whole file,
    for a suite of multi-step tests, whose rows stand for several lines). A results file that
    does not validate is not used (`say` tells why, and its log is checked whole).
    """
    spec = CheckerSpec.of(checker)
    gate = _gate_of(judge_limit)

    def task(plans: Mapping[int, _Planned]) -> _CheckFiles:
        return _CheckFiles(spec, column, gate, verdict_store, environ, plans)

    def run(fn: _CheckFiles, inputs: list[str]) -> Iterator[dict[str, Any]]:
        return _on_ray(fn, inputs, **ray_args)

    steps = any(case.steps for suite in checker.suites for case in suite.cases)
    yield from _resumed(
        list(paths),
        task,
        run,
        ResultsDir(results) if results is not None else None,
        resume=resume,
        rejudge_errors=rejudge_errors,
        say=say or _stderr,
        whole_files=steps,
    )


def _stderr(text: str) -> None:
    sys.stderr.write(text + "\n")


def _on_ray(fn: _CheckFiles, inputs: list[str], **ray_args: Any) -> Iterator[dict[str, Any]]:
    """Run `fn` on Ray, one task per file, and give its rows in input order."""
    if not inputs:
        return
    ray = _ray()
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    files = ray.data.from_items(  # a local path from here: the tasks' directory is theirs
        [
            {"input": name, "index": i, "path": name if "://" in name else os.path.abspath(name)}
            for i, name in enumerate(inputs)
        ],
        override_num_blocks=len(inputs),
    )
    checked = files.map_batches(fn, batch_format="pyarrow", batch_size=1, **ray_args)
    for batch in checked.iter_batches(batch_format="pyarrow", batch_size=None):
        yield from _received(batch)


def _resumed(
    inputs: list[str],
    task: Callable[[Mapping[int, _Planned]], _CheckFiles],
    run: Callable[[_CheckFiles, list[str]], Iterable[dict[str, Any]]],
    found: ResultsDir | None,
    *,
    resume: bool,
    rejudge_errors: bool,
    say: Callable[[str], object],
    whole_files: bool = False,
) -> Generator[Row | int, None, None]:
    """`check_files` with its tasks run by `run`: plan what the results in `found` let the
    tasks skip, then give each file's rows and count in input order, saving what was
    checked."""
    saved: dict[int, SavedResults] = {}
    plans: dict[int, _Planned] = {}
    if found is not None and (resume or rejudge_errors):
        for index, name in enumerate(inputs):
            try:
                got = found.load(name)
            except ResultsFileError as exc:
                say(f"chatassert check: {exc}: checking {name} again")
                continue
            if got is None:
                continue
            only = None
            if rejudge_errors:
                errors = frozenset(
                    n
                    for row in got.rows
                    if row["kind"] == "case" and row["status"] == "error"
                    if (n := _record_number(row)) is not None
                )
                if errors and whole_files:  # a multi-step run's row stands for several lines
                    continue
                only = errors or None
            saved[index] = got
            plans[index] = _Planned(got.read.size, got.read.blake2b, only)
    stream = iter(run(task(plans), inputs))
    for index, name in enumerate(inputs):
        rows: list[dict[str, Any]] = []
        end: dict[str, Any] | None = None
        for data in stream:
            if _END in data:
                end = data
                break
            if found is None:  # nothing to keep: stream the file's rows
                yield Row.from_row(data)
            else:
                rows.append(data)
        if end is None or end[_END] != index:
            raise RuntimeError(f"the tasks did not give the rows of {name} in order")
        read = None if end["read"] is None else ReadStamp(**end["read"])
        records: int = end["records"]
        if found is not None:
            old = saved.get(index)
            if end["checked"] == "none" and old is not None:
                rows, records = old.rows, old.records
            elif end["checked"] == "some" and old is not None:
                rows, records = _replaced(old.rows, rows), old.records
            elif old is not None:
                say(
                    f"chatassert check: {name} changed since its results were written: "
                    "checking it again"
                )
            if end["checked"] != "none" and read is not None:
                try:
                    found.save(name, rows, records, read, lines=end["lines"])
                except OSError as exc:
                    say(
                        f"chatassert check: cannot write the results of {name}: {_cannot_read(exc)}"
                    )
            for data in rows:
                yield Row.from_row(data)
        yield records


_NUMBER = re.compile(r"(?:#row=(\d{1,18})|:(\d{1,18}))(?:#[^#]*)?$")


def _record_number(row: Mapping[str, Any]) -> int | None:
    """The line (JSONL, from 1) or row (Parquet, from 0) a result row's source locates, so
    that `0` of a Parquet file is told apart from "none": a Parquet row gives N + 1."""
    match = _NUMBER.search(str(row.get("source") or ""))
    if match is None:
        return None
    if match.group(1) is not None:
        return int(match.group(1)) + 1
    return int(match.group(2))


def _replaced(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`old` rows with the rows of each record checked again replaced by `new`'s, in place."""
    by_record: dict[int | None, list[dict[str, Any]]] = {}
    for row in new:
        by_record.setdefault(_record_number(row), []).append(row)
    out: list[dict[str, Any]] = []
    placed: set[int | None] = set()
    for row in old:
        number = _record_number(row)
        if number is None or number not in by_record:
            out.append(row)
        elif number not in placed:
            placed.add(number)
            out.extend(by_record[number])
    return out


def _results_key(path: str) -> str:
    """What picks a log's results file: the log as named (its rows' sources say it so), and
    for a local path, the file it names from here (the same relative name elsewhere is
    another log)."""
    return path if "://" in path else f"{os.path.abspath(path)}\n{path}"


class ResultsFileError(ChatAssertError, ValueError):
    """A results file of a `ResultsDir` that cannot be used: where it is and what is wrong.

    Attributes:
        path: The results file.
        reason: What is wrong with it.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason


@dataclass(frozen=True)
class SavedResults:
    """The results of one log, as a `ResultsDir` keeps them.

    Attributes:
        rows: The log's result rows (`Row.to_row()` dicts), in the order they were reported.
        records: How many records the log held.
        lines: How many lines (JSONL) or rows (Parquet) were read.
        read: What was read to make them.
    """

    rows: list[dict[str, Any]]
    records: int
    lines: int
    read: ReadStamp


_VERSION = 3
"""Version 3: rows say why a subject was checked against its case (`matched_by`,
`match_note`)."""
_HEADER = frozenset(
    {"chatassert_results", "input", "size", "blake2b", "mtime_ns", "records", "lines", "rows"}
)
_KINDS = frozenset({"case", "unmatched", "unreadable"})
_STATUSES = frozenset(status.value for status in Status)
_TEXT_COLUMNS = (
    "suite",
    "case",
    "subject_id",
    "error",
    "result",
    "excerpt",
    "matched_by",
    "match_note",
)
_COST_COUNTS = ("requests", "cached", "avoided", "tokens_in", "tokens_out", "unpriced")


def _digest(header: Mapping[str, Any], rows: Sequence[bytes]) -> str:
    """The BLAKE2b hash of a results file's header (but its digest) and its row lines."""
    digest = hashlib.blake2b(digest_size=32)
    digest.update(json.dumps({k: header[k] for k in sorted(_HEADER)}, sort_keys=True).encode())
    for line in rows:
        digest.update(b"\n")
        digest.update(line)
    return digest.hexdigest()


def _json_text(line: bytes, what: str) -> Any:
    try:
        return json.loads(line.decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply") from None
    except ValueError:  # not UTF-8, not JSON, or a number too long
        raise ValueError(f"{what} is not JSON") from None


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _loaded(value: Any) -> Any:
    """A JSON column's value, or a `ValueError` when it is not JSON text."""
    if not isinstance(value, str):
        raise ValueError
    try:
        return json.loads(value)
    except RecursionError:
        raise ValueError from None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _column_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a row's JSON columns, or None."""
    try:
        if not _strings(_loaded(row["tags"])):
            return "has tags that are not a JSON list of strings"
        if not _strings(_loaded(row["disagreements"])):
            return "has disagreements that are not a JSON list of strings"
        pairs = _loaded(row["assertions"])
        if not isinstance(pairs, list) or not all(
            _strings(p) and len(p) == 2 and p[1] in _STATUSES for p in pairs
        ):
            return "has assertions that are not a JSON list of [label, status] pairs"
        if row["cost"] is not None:
            cost = _loaded(row["cost"])
            if not isinstance(cost, dict) or not all(
                cost.get(k) is None or _count(cost[k]) for k in _COST_COUNTS
            ):
                return "has a cost that is not a JSON object of counts"
            money = cost.get("cost")
            if money is not None and not (
                type(money) in (int, float) and math.isfinite(money) and money >= 0
            ):
                return "has a cost that is not a finite amount"
        if row["rendered"] is not None:
            rendered = _loaded(row["rendered"])
            if not isinstance(rendered, dict) or not all(
                isinstance(v, str) for v in rendered.values()
            ):
                return "has renderings that are not a JSON object of strings"
            if "junit" in rendered and rendered.get("junit_status") not in _STATUSES:
                return "has a JUnit rendering without its status"
    except ValueError:
        return "has a JSON column that is not JSON text"
    return None


def _row_problem(row: Any, source: str, lines: int) -> str | None:
    """What is wrong with a results file's row of the log `source` (None: nothing)."""
    if not isinstance(row, dict):
        return "is not a JSON object"
    if set(row) != set(ROW_SCHEMA):
        unknown, missing = sorted(set(row) - set(ROW_SCHEMA)), sorted(set(ROW_SCHEMA) - set(row))
        return f"is not a result row (unknown keys {unknown[:3]}, missing {missing[:3]})"
    kind, where, status = row["kind"], row["source"], row["status"]
    if not isinstance(kind, str) or kind not in _KINDS:
        return f"has the kind {shorten(repr(kind), 40)}, not one of {sorted(_KINDS)}"
    if not isinstance(status, str) or status not in _STATUSES:
        return f"has the status {shorten(repr(status), 40)}, not one of {sorted(_STATUSES)}"
    if not isinstance(where, str) or not where.startswith(source):
        return f"is located {shorten(repr(where), 60)}, not in {source!r}"
    for name in _TEXT_COLUMNS:
        if row[name] is not None and not isinstance(row[name], str):
            return f"has a {name} that is neither a string nor null"
    if kind == "case" and (row["suite"] is None or row["case"] is None):
        return "is a case row without its suite and case"
    if type(row["flaky"]) is not bool:
        return "has a flaky that is not true or false"
    duration = row["duration"]
    if type(duration) not in (int, float) or not math.isfinite(duration) or duration < 0:
        return "has a duration that is not a finite number of seconds"
    number = _record_number(row)
    if number is None:
        if not (kind == "unreadable" and where == source):  # a whole file unreadable
            return f"is located {shorten(repr(where), 60)}, which names no record"
    elif not 1 <= number <= lines + 1:  # the line after the last read: where reading stopped
        return f"names record {number}, past the {lines} lines read"
    if row["result"] is not None:
        problem = _tree_problem(row["result"])
        if problem is not None:
            return problem
    return _column_problem(row)


def _tree_problem(text: str) -> str | None:
    """What is wrong with a row's compact result tree (JSON text), or None: the reports
    rebuild a case's outcome from it (`Row.to_outcome`)."""
    from chatassert._jsonlines import nesting_over
    from chatassert.reporting._report_reader import REPORT_DEPTH, result_problems

    if nesting_over(text, REPORT_DEPTH) is not None:
        return "has a result tree nested too deeply"
    try:
        tree = json.loads(text)
    except (ValueError, RecursionError):
        return "has a result that is not JSON text"
    if not isinstance(tree, dict):
        return "has a result that is not a JSON object"
    first = next(result_problems(tree, "result"), None)
    return None if first is None else f"has a result tree that is not one: {first}"


def _results_of(data: bytes, source: str) -> SavedResults:
    """Read and validate a results file's bytes (of the log `source`); a `ValueError` says
    what is wrong."""
    if not data.endswith(b"\n"):
        raise ValueError("it is cut short (its last line does not end)")
    lines = data[:-1].split(b"\n")
    header = _json_text(lines[0], "its header")
    if not isinstance(header, dict):
        raise ValueError("its header is not a JSON object")
    version = header.get("chatassert_results")
    if type(version) is int and version == 1:
        raise ValueError("it was written by an older chatassert, without a content hash")
    if type(version) is int and version == 2:
        raise ValueError(
            "it was written by an older chatassert, whose rows do not say why each subject "
            "was checked against its case"
        )
    if type(version) is not int or version != _VERSION:
        raise ValueError(f"it is not a results file of version {_VERSION}")
    if set(header) != _HEADER | {"digest"}:
        raise ValueError(f"its header has the keys {sorted(header)}, not {sorted(_HEADER)}")
    if header["input"] != source:
        raise ValueError(f"it holds the results of {shorten(repr(header['input']), 80)}")
    for name in ("size", "records", "lines", "rows"):
        if not _count(header[name]):
            raise ValueError(f"its header's {name} is {shorten(repr(header[name]), 40)}")
    if header["mtime_ns"] is not None and not _count(header["mtime_ns"]):
        raise ValueError("its header's mtime_ns is not a time")
    for name in ("blake2b", "digest"):
        if not isinstance(header[name], str) or _HEX.fullmatch(header[name]) is None:
            raise ValueError(f"its header's {name} is not a BLAKE2b hash")
    if header["records"] > header["lines"]:
        raise ValueError(
            f"its header counts {header['records']} records in {header['lines']} lines"
        )
    body = lines[1:]
    if header["rows"] != len(body):
        raise ValueError(f"its header counts {header['rows']} rows, and it holds {len(body)}")
    rows = []
    for number, line in enumerate(body, 1):
        row = _json_text(line, f"row {number}")
        problem = _row_problem(row, source, header["lines"])
        if problem is not None:
            raise ValueError(f"row {number} {problem}")
        rows.append(row)
    if _digest(header, body) != header["digest"]:
        first: dict[bytes, int] = {}
        for number, line in enumerate(body, 1):
            if line in first:
                raise ValueError(f"row {number} repeats row {first[line]} (its digest differs)")
            first.setdefault(line, number)
        raise ValueError("its rows are not those it was written with (its digest differs)")
    read = ReadStamp(header["size"], header["blake2b"], header["mtime_ns"])
    return SavedResults(rows, header["records"], header["lines"], read)


class ResultsDir:
    """A directory of result files, one per log, for resuming a run.

    Each file is JSON Lines (ASCII): a header, then the log's rows (`Row.to_row()` dicts).
    The header is `{"chatassert_results": 2, "input", "size", "blake2b", "mtime_ns",
    "records", "lines", "rows", "digest"}`: the log as named on the command line, what was
    read of it to make these rows (`ReadStamp`: its size, the BLAKE2b hash of its bytes
    taken as they were read, its modification time when opened), its record and line
    counts, the number of rows, and a BLAKE2b digest of the header and rows. A file is
    written to a temporary file then renamed, so it is there only when complete.

    `load` validates a file row by row (each row's shape, the record it names within the
    lines read, the counts, the digest: a row edited, repeated, removed or reordered is
    found) and refuses one that does not validate (`ResultsFileError`); whether the log is
    still what was read is for the task that reads it to tell (`check_files`).

    Args:
        path: The directory (created when missing).
    """

    VERSION = _VERSION

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"ResultsDir({str(self.path)!r})"

    def file_for(self, source: str) -> Path:
        """Where the results of the log `source` go."""
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", source.rstrip("/").rsplit("/", 1)[-1])[-80:]
        digest = hashlib.sha256(_results_key(source).encode("utf-8", "surrogatepass"))
        return self.path / f"{name}.{digest.hexdigest()[:16]}.rows.jsonl"

    def load(self, source: str) -> SavedResults | None:
        """The saved results of the log `source`, or None when there are none.

        Raises:
            ResultsFileError: when its results file cannot be read or does not validate.
        """
        target = self.file_for(source)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ResultsFileError(target, f"cannot be read: {_cannot_read(exc)}") from None
        try:
            return _results_of(data, source)
        except ValueError as exc:
            raise ResultsFileError(target, str(exc)) from None

    def save(
        self,
        source: str,
        rows: Sequence[Mapping[str, Any]],
        records: int,
        read: ReadStamp,
        *,
        lines: int | None = None,
    ) -> Path:
        """Write the results of the log `source` (atomically: a temporary file, then a
        rename): its rows, its record count, what was read to make them, and how many lines
        (JSONL) or rows (Parquet) were read (default: the records)."""
        self.path.mkdir(parents=True, exist_ok=True)
        target = self.file_for(source)
        body = [json.dumps(dict(row)).encode("ascii") for row in rows]
        header: dict[str, Any] = {
            "chatassert_results": _VERSION,
            "input": source,
            **read.to_dict(),
            "records": records,
            "lines": records if lines is None else lines,
            "rows": len(body),
        }
        header["digest"] = _digest(header, body)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with temporary.open("wb") as f:
                f.write(json.dumps(header).encode("ascii") + b"\n")
                for line in body:
                    f.write(line + b"\n")
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        return target
