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
import json
import os
import re
import time
import uuid
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatassert._cache import VerdictCache, VerdictStore, use_verdict_store
from chatassert._judging import Verdict
from chatassert._suite import Suite
from chatassert.judges._gate import GateKey, LocalRequestGate, RequestGate, use_request_gate
from chatassert.records import Checker, Row, Summary, arrow_schema

__all__ = [
    "CheckerSpec",
    "JudgeLimit",
    "RayRequestGate",
    "RayVerdictStore",
    "ResultsDir",
    "check_dataset",
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
        return [Row("unreadable", where, error="the record is null")]
    try:
        return checker.check_record(value, where)
    except Exception as exc:  # one bad record must not fail its partition
        return [Row("unreadable", where, error=f"cannot check the record: {exc}")]


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
        out: list[dict[str, Any]] = []
        block = self.source or f"block-{_task_id()}"
        for i, value in enumerate(values):
            where_base = paths[i] if paths is not None and paths[i] else block
            if numbers is not None and numbers[i] is not None:
                number = int(numbers[i])
            else:
                number = seen.get(where_base, 0)
                seen[where_base] = number + 1
            where = f"{where_base}#row={number}"
            out.extend(row.to_row() for row in _rows_of(checker, value, where))
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

_RECORDS = "_records"
"""The kind of the marker row closing each file's rows: its `error` is the file's record
count (the command line counts records read; a deselected record gives no row)."""


def _lines(data: bytes) -> list[str]:
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8-sig", "surrogateescape")
    lines = text.split("\n")
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


class _CheckFiles:
    """Check whole log files (rows `path`, `bytes`): JSONL lines located `path:line` as a
    local run does, Parquet rows `path#row=N`; then a `_records` marker row per file."""

    def __init__(
        self,
        spec: CheckerSpec,
        column: str | None,
        gate: RequestGate | None = None,
        store: VerdictStore | None = None,
        environ: Mapping[str, str] | None = None,
        only: Mapping[str, frozenset[int]] | None = None,
    ) -> None:
        self.spec = spec
        self.column = column
        self.gate = gate
        self.store = store
        self.environ = dict(environ or {})
        self.only = dict(only or {})

    def __call__(self, batch: Any) -> Any:
        with _environment(self.environ), _gated(self.gate), _stored(self.store):
            return self._check(batch)

    def _check(self, batch: Any) -> Any:
        checker = _checker(self.spec)
        out: list[dict[str, Any]] = []
        for path, data in zip(
            batch.column("path").to_pylist(), batch.column("bytes").to_pylist(), strict=True
        ):
            count = 0
            only = self.only.get(_file_key(path, local=False))
            if path.endswith(".parquet"):
                count = self._parquet(checker, path, data, out, only)
            else:
                for number, line in enumerate(_lines(data), 1):
                    if line.strip():
                        count += 1
                        if only is not None and number not in only:
                            continue
                        out.extend(r.to_row() for r in checker.check_line(line, path, number))
            out.extend(row.to_row() for row in checker.flush())
            out.append(Row(_RECORDS, path, error=str(count)).to_row())
        return _table(out)

    def _parquet(
        self,
        checker: Checker,
        path: str,
        data: bytes,
        out: list[Any],
        only: frozenset[int] | None = None,
    ) -> int:
        pa = importlib.import_module("pyarrow")
        pq = importlib.import_module("pyarrow.parquet")
        table = pq.read_table(pa.BufferReader(data))
        column = self.column
        if column is None and table.num_columns == 1:
            column = table.schema.names[0]
        values = table.column(column).to_pylist() if column is not None else table.to_pylist()
        for i, value in enumerate(values):
            if only is None or i + 1 in only:  # numbered from 1, as `_record_number` does
                out.extend(r.to_row() for r in _rows_of(checker, value, f"{path}#row={i}"))
        return len(values)


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
    **ray_args: Any,
) -> Generator[Row | int, None, None]:
    """Check log files on Ray (`chatassert check --engine ray`): JSONL, JSONL.gz and Parquet,
    local paths or object-store URIs (read by Ray's `read_binary_files`), one task per file,
    its judge requests through `judge_limit`, its verdicts in `verdict_store` (see
    `check_dataset`), with the variables `environ` set while it checks. Yields each file's
    rows in input order, then its record count (an `int`).

    With `results` (a directory), each file's rows are also written there once the file is
    checked (`ResultsDir`); with `resume`, a file whose results are there (and whose size
    and modification time are unchanged) is not read again: its rows come from its results;
    with `rejudge_errors` too, the records of its `error` rows are checked again (alone)
    and their rows replaced.
    """
    found = ResultsDir(results) if results is not None else None
    plan: list[tuple[str, tuple[list[dict[str, Any]], int] | None]] = []
    only: dict[str, frozenset[int]] = {}
    todo: list[str] = []
    for path in paths:
        saved = found.load(path) if found is not None and (resume or rejudge_errors) else None
        plan.append((path, saved))
        if saved is None:
            todo.append(path)
        elif rejudge_errors:
            errors = frozenset(
                n for n in (_record_number(r) for r in saved[0] if r["status"] == "error") if n
            )
            if errors:
                todo.append(path)
                only[_file_key(path, local=True)] = errors
    checked = _checked_files(
        todo, checker, column, only, judge_limit, verdict_store, environ, **ray_args
    )
    for path, saved in plan:
        if saved is not None and _file_key(path, local=True) not in only:
            rows, records = saved  # finished before: not read again
        elif found is None:  # nothing to keep: stream the file's rows
            for item in next(checked):
                if isinstance(item, int):
                    yield item
                else:
                    yield Row.from_row(item)
            continue
        else:
            fresh = list(next(checked))
            count = fresh.pop()
            assert isinstance(count, int)
            new_rows = [r for r in fresh if not isinstance(r, int)]
            if saved is None:
                rows, records = new_rows, count
            else:
                rows, records = _replaced(saved[0], new_rows), saved[1]
            found.save(path, rows, records)
        for data in rows:
            yield Row.from_row(data)
        yield records


def _checked_files(
    todo: list[str],
    checker: Checker,
    column: str | None,
    only: Mapping[str, frozenset[int]],
    judge_limit: JudgeLimit | RequestGate | None,
    verdict_store: VerdictStore | None,
    environ: Mapping[str, str] | None,
    **ray_args: Any,
) -> Iterator[Iterator[dict[str, Any] | int]]:
    """For each file of `todo` in order, an iterator of its row dicts, then its count."""
    if not todo:
        return
    ray = _ray()
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    files = ray.data.read_binary_files(list(todo), include_paths=True)
    fn = _CheckFiles(
        CheckerSpec.of(checker), column, _gate_of(judge_limit), verdict_store, environ, only
    )
    checked = files.map_batches(fn, batch_format="pyarrow", batch_size=1, **ray_args)
    stream = (
        data
        for batch in checked.iter_batches(batch_format="pyarrow", batch_size=None)
        for data in batch.to_pylist()
    )

    def one_file() -> Iterator[dict[str, Any] | int]:
        for data in stream:
            if data["kind"] == _RECORDS:
                yield int(data["error"])
                return
            yield data

    for _ in todo:
        yield one_file()


_NUMBER = re.compile(r"(?:#row=(\d+)|:(\d+))(?:#[^#]*)?$")


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


def _file_key(path: str, *, local: bool) -> str:
    """A file as Ray's `path` column names it: without a URI's scheme; a local path given on
    the command line made absolute."""
    if "://" in path:
        return path.split("://", 1)[1]
    return os.path.abspath(path) if local else path


class ResultsDir:
    """A directory of result files, one per input file, for resuming a run.

    Each file is JSON Lines: a header (`{"chatassert_results": 1, "input", "size",
    "mtime_ns", "records", "rows"}`) then the input's rows (`Row.to_row()` dicts). It is
    written to a temporary file then renamed, so it is there only when complete; it counts as
    finished for the same input only while the input's size and modification time are those
    recorded (an object-store URI, not examined, counts as unchanged).

    Args:
        path: The directory (created when missing).
    """

    VERSION = 1

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"ResultsDir({str(self.path)!r})"

    def file_for(self, source: str) -> Path:
        """Where the results of the input `source` go."""
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", source.rstrip("/").rsplit("/", 1)[-1])[-80:]
        digest = hashlib.sha256(_file_key(source, local=True).encode()).hexdigest()[:16]
        return self.path / f"{name}.{digest}.rows.jsonl"

    @staticmethod
    def stamp(source: str) -> dict[str, Any]:
        """What identifies this version of the input: its size and modification time."""
        if "://" in source:
            return {"input": source}
        info = os.stat(source)
        return {"input": source, "size": info.st_size, "mtime_ns": info.st_mtime_ns}

    def load(self, source: str) -> tuple[list[dict[str, Any]], int] | None:
        """The saved rows and record count of `source`, or None when there are none, they
        are incomplete, or the input changed since."""
        target = self.file_for(source)
        try:
            with target.open(encoding="utf-8") as f:
                header = json.loads(f.readline())
                rows = [json.loads(line) for line in f]
            stamp = self.stamp(source)
        except (OSError, ValueError):
            return None
        if (
            not isinstance(header, dict)
            or header.get("chatassert_results") != self.VERSION
            or {k: header.get(k) for k in stamp} != stamp
            or header.get("rows") != len(rows)
        ):
            return None
        return rows, int(header["records"])

    def save(self, source: str, rows: Sequence[Mapping[str, Any]], records: int) -> Path:
        """Write the results of `source` (atomically: a temporary file, then a rename)."""
        self.path.mkdir(parents=True, exist_ok=True)
        target = self.file_for(source)
        header = {
            "chatassert_results": self.VERSION,
            **self.stamp(source),
            "records": records,
            "rows": len(rows),
        }
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with temporary.open("w", encoding="utf-8") as f:
                f.write(json.dumps(header) + "\n")
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        return target
