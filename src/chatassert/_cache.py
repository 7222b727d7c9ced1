"""Verdict caches: `CachedJudge` over a `VerdictStore`, by default the on-disk `VerdictCache`
(stdlib sqlite3 in WAL mode, safe across the processes of one machine); a run may share
another store with every judge built from the environment (`use_verdict_store`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from chatassert._errors import JudgeError
from chatassert._judging import (
    Judge,
    JudgeRequest,
    Verdict,
    context_value,
    record_judge_cached,
)

__all__ = [
    "CachedJudge",
    "VerdictCache",
    "VerdictStore",
    "default_cache_path",
    "use_verdict_store",
    "verdict_store",
]

_VERDICT_FIELDS = tuple(f.name for f in fields(Verdict))
"""A stored verdict's keys, in `asdict`'s order."""


@runtime_checkable
class VerdictStore(Protocol):
    """Where `CachedJudge` keeps verdicts: keys are hex digests, values `Verdict`s.

    `VerdictCache` (one SQLite file) is the default; the Ray integration's store is shared
    by every task of a run. A store may also define `async aget(key)`, which `CachedJudge`
    awaits instead of `get` (a store that waits for a verdict another process is producing
    then does not block the event loop), and `abandon(key)`, which `CachedJudge` calls when
    it got no verdict for a key it looked up and missed (the judge failed: errors are never
    stored).
    """

    def get(self, key: str) -> Verdict | None:
        """The stored verdict for `key`, or None."""
        ...

    def put_many(self, items: Sequence[tuple[str, Verdict]]) -> None:
        """Store verdicts (the last writer of a key wins)."""
        ...

    def close(self) -> None:
        """Release what the store holds open (a later use may reopen it)."""
        ...


_STORE: ContextVar[VerdictStore | None] = ContextVar("chatassert_verdict_store", default=None)


def use_verdict_store(
    store: VerdictStore | None,
) -> contextlib.AbstractContextManager[VerdictStore | None]:
    """Keep the verdicts of every judge built from the environment in this context
    (`judge_from_env`, `named_judge`) in `store` instead of the cache file, when their cache
    is on; None: the cache file (the default).

    Example:
        >>> import tempfile, os
        >>> store = VerdictCache(os.path.join(tempfile.mkdtemp(), "shared.sqlite3"))
        >>> with use_verdict_store(store):
        ...     verdict_store() is store
        True
    """
    if store is not None and not isinstance(store, VerdictStore):
        raise TypeError(f"a verdict store has get, put_many and close; got {store!r}")
    return context_value(_STORE, store)


def verdict_store() -> VerdictStore | None:
    """The verdict store of this context (see `use_verdict_store`), or None."""
    return _STORE.get()


def default_cache_path() -> Path:
    """Return the verdict cache file, `judges.sqlite3` in chatassert's folder of the
    platform's user cache folder (see `user_cache_dir`)."""
    return user_cache_dir() / "judges.sqlite3"


def user_cache_dir(
    platform: str | None = None, environ: Mapping[str, str] | None = None, home: str | None = None
) -> Path:
    r"""chatassert's folder in the user's cache folder, as `platformdirs.user_cache_dir`
    places it: `$XDG_CACHE_HOME/chatassert` when that is set (on any platform: it is an
    explicit choice), else `~/.cache/chatassert` on Linux and other Unixes,
    `~/Library/Caches/chatassert` on macOS, and `%LOCALAPPDATA%\chatassert\Cache` on Windows.

    Example:
        >>> user_cache_dir("darwin", {}, "/Users/ada").as_posix()
        '/Users/ada/Library/Caches/chatassert'
        >>> user_cache_dir("linux", {"XDG_CACHE_HOME": "/tmp/c"}, "/home/ada").as_posix()
        '/tmp/c/chatassert'
    """
    import sys

    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    home = os.path.expanduser("~") if home is None else home
    xdg = environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):  # the XDG specification ignores a relative path
        return Path(xdg) / "chatassert"
    if platform == "darwin":
        return Path(home) / "Library" / "Caches" / "chatassert"
    if platform == "win32":
        local = environ.get("LOCALAPPDATA", "").strip()
        base = Path(local) if local else Path(home) / "AppData" / "Local"
        return base / "chatassert" / "Cache"
    return Path(home) / ".cache" / "chatassert"


class VerdictCache:
    """A verdict store keyed by strings, in one sqlite3 file shared by threads and processes.

    Args:
        path: The database file. It is created readable by its owner only (0600), and a
            missing folder is created 0700, since verdicts hold conversation text.

    Example:
        >>> import tempfile, os
        >>> from chatassert.judges import Verdict
        >>> cache = VerdictCache(os.path.join(tempfile.mkdtemp(), "v.sqlite3"))
        >>> cache.put("k", Verdict(True, 0.9, "fine"))
        >>> cache.get("k").reason, cache.get("other")
        ('fine', None)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def __repr__(self) -> str:
        return f"VerdictCache({str(self.path)!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():  # a forked child opens its own
            # The verdicts hold conversation text: a folder we create is the user's alone
            # (0700), and so is the file (0600; SQLite gives its -wal and -shm files the same).
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            if self.path.stat().st_mode & 0o077:
                os.chmod(self.path, 0o600)
            conn = sqlite3.connect(
                self.path, timeout=30.0, check_same_thread=False, isolation_level=None
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, "
                "verdict TEXT NOT NULL, created REAL NOT NULL)"
            )
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get(self, key: str) -> Verdict | None:
        """Return the stored verdict for `key`, or None."""
        with self._lock:
            row = (
                self._connect()
                .execute("SELECT verdict FROM verdicts WHERE key = ?", (key,))
                .fetchone()
            )
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            return Verdict(
                data["passed"],
                data.get("score"),
                data.get("reason", ""),
                data.get("raw"),
                data.get("prompt"),
            )
        except (ValueError, KeyError, TypeError, JudgeError):
            return None  # an unreadable entry is a miss

    def put(self, key: str, verdict: Verdict) -> None:
        """Store `verdict` under `key` (the last writer wins)."""
        self.put_many([(key, verdict)])

    def put_many(self, items: Sequence[tuple[str, Verdict]]) -> None:
        """Store several verdicts in one transaction."""
        now = time.time()
        rows = []
        for key, verdict in items:
            try:  # the fields as they are (asdict's deep copy costs more than the rest)
                text = json.dumps({f: getattr(verdict, f) for f in _VERDICT_FIELDS})
            except (TypeError, ValueError):  # a raw reply JSON cannot carry as it is
                data = asdict(verdict)
                try:
                    text = json.dumps(data)
                except (TypeError, ValueError):
                    text = json.dumps({**data, "raw": repr(verdict.raw)})
            rows.append((key, text, now))
        with self._lock:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO verdicts (key, verdict, created) VALUES (?, ?, ?)",
                    rows,
                )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def clear(self) -> None:
        """Delete every stored verdict."""
        with self._lock:
            self._connect().execute("DELETE FROM verdicts")

    def __len__(self) -> int:
        with self._lock:
            row = self._connect().execute("SELECT count(*) FROM verdicts").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the database connection (a later use reopens it)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def judge_identity(judge: object) -> Any:
    """What tells `judge` apart from other judges of the same name, for cache keys.

    That is its `cache_params()` when it has them; else its `repr` when its class defines one;
    else its class's qualified name.
    """
    params = getattr(judge, "cache_params", None)
    if callable(params):
        return params()
    cls = type(judge)
    if cls.__repr__ is not object.__repr__:
        return repr(judge)
    return f"{cls.__module__}.{cls.__qualname__}"


class CachedJudge:
    """Wraps a judge so that verdicts are stored on disk and reused.

    The key is a hash of the judge's name, the model, the rendered prompt (when the judge can
    render one, else the whole request), the judge's verdict-changing settings (its
    `cache_params()`, else its `repr`), the request's parameters and its sample index, so each
    of `Repeat`'s samples is cached separately. An anonymous `FunctionJudge` (a lambda without a
    `name`) is refused, since its name would not tell it apart from other lambdas. Only
    verdicts are stored: an error is never cached. `enabled=False` passes every request
    through.

    Args:
        judge: The judge to wrap.
        path: The cache file, or a `VerdictStore` (such as a `VerdictCache`); default
            `default_cache_path()`.
        enabled: Whether to use the cache at all.

    Raises:
        ValueError: for an anonymous `FunctionJudge`, wrapped directly or inside another judge.

    Example:
        >>> import tempfile, os
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> fake = FakeJudge.passing()
        >>> judge = CachedJudge(fake, os.path.join(tempfile.mkdtemp(), "c.sqlite3"))
        >>> check = LLMRubric("Is polite", judge=judge)
        >>> check.check("Please.").passed, check.check("Please.").passed, len(fake.requests)
        (True, True, 1)
        >>> judge.hits, judge.misses
        (1, 1)
    """

    def __init__(
        self,
        judge: Judge,
        path: str | os.PathLike[str] | VerdictStore | None = None,
        *,
        enabled: bool = True,
    ) -> None:
        if not callable(getattr(judge, "judge", None)):
            raise TypeError(f"CachedJudge wraps a judge, got {judge!r}")
        wrapped: object = judge
        for _ in range(32):  # the judge and the judges it wraps
            if wrapped is None:
                break
            if getattr(wrapped, "anonymous", False) is True:
                raise ValueError(
                    f"cannot cache the verdicts of {wrapped!r}: a lambda (or a callable without "
                    "a qualified name) has no name of its own, so its cached verdicts would be "
                    "served to other such functions; name it: FunctionJudge(..., name='...')"
                )
            wrapped = getattr(wrapped, "inner", None)
        self.inner = judge
        self.name: str = judge.name
        self.model: str | None = getattr(judge, "model", None)
        self.cache: VerdictStore = (
            path
            if isinstance(path, VerdictStore)
            else VerdictCache(default_cache_path() if path is None else path)
        )
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        self._pending: dict[str, Verdict] = {}

    def __repr__(self) -> str:
        where = getattr(self.cache, "path", None)
        shown = repr(str(where)) if where is not None else repr(self.cache)
        return f"CachedJudge({self.inner!r}, {shown}, enabled={self.enabled})"

    def _key(self, request: JudgeRequest, prompt: str | None, extra: object = None) -> str:
        material: dict[str, Any] = {
            "judge": self.name,
            "model": request.model or self.model,
            "params": judge_identity(self.inner),
            "request_params": dict(request.params),
            "sample": request.sample,
            "extra": extra,
        }
        if prompt is not None:
            material["prompt"] = prompt
        else:
            material["request"] = {
                k: v for k, v in asdict(request).items() if k not in ("sample", "params")
            }
        text = json.dumps(material, sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def _render(self, request: JudgeRequest) -> str | None:
        render = getattr(self.inner, "render", None)
        return render(request) if callable(render) else None

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Return the cached verdict for `request`, or ask the wrapped judge and store it."""
        if not self.enabled:
            return Verdict.from_reply(await self.inner.judge(request))
        key = self._key(request, self._render(request))
        cached = self._pending.get(key) or await self._lookup(key)
        if cached is not None:
            self.hits += 1
            record_judge_cached()
            return cached
        self.misses += 1
        try:
            verdict = Verdict.from_reply(await self.inner.judge(request))
        except BaseException:
            self._abandon(key)
            raise
        self._store(key, verdict)
        return verdict

    async def _lookup(self, key: str) -> Verdict | None:
        aget = getattr(self.cache, "aget", None)
        if aget is not None:
            found: Verdict | None = await aget(key)
            return found
        return self.cache.get(key)

    def _abandon(self, key: str) -> None:
        abandon = getattr(self.cache, "abandon", None)
        if abandon is not None:
            abandon(key)

    def _store(self, key: str, verdict: Verdict) -> None:
        # Verdicts finishing together are written in one transaction, once the event loop
        # has run the callbacks already queued (before any awaiting code sees the verdict).
        import asyncio

        if not self._pending:
            asyncio.get_running_loop().call_soon(self.flush)
        self._pending[key] = verdict

    def flush(self) -> None:
        """Write the verdicts not yet on disk."""
        pending, self._pending = self._pending, {}
        if pending:
            self.cache.put_many(list(pending.items()))

    async def judge_many(self, requests: Sequence[JudgeRequest]) -> list[Verdict | JudgeError]:
        """Grade several criteria of one subject, from the cache when every verdict is there."""
        import asyncio

        inner_many = getattr(self.inner, "judge_many", None)
        render_many = getattr(self.inner, "render_many", None)
        if not callable(inner_many) or not callable(render_many) or not self.enabled:
            if callable(inner_many):
                return list(await inner_many(requests))
            return list(await asyncio.gather(*(self._one(r) for r in requests)))
        prompt = render_many(requests)
        keys = [self._key(r, prompt, extra=i) for i, r in enumerate(requests)]
        found = [self._pending.get(k) or self.cache.get(k) for k in keys]
        if all(v is not None for v in found):
            self.hits += len(found)
            record_judge_cached(len(found))
            return [v for v in found if v is not None]
        self.misses += len(requests)
        out: list[Verdict | JudgeError] = list(await inner_many(requests))
        for key, verdict in zip(keys, out, strict=True):
            if isinstance(verdict, Verdict):
                self._store(key, verdict)
        return out

    async def _one(self, request: JudgeRequest) -> Verdict | JudgeError:
        try:
            return await self.judge(request)
        except JudgeError as exc:
            return exc
