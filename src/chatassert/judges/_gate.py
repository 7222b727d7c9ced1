"""Request gates: one place that admits every HTTP judge request of a provider and model.

`limit_judges` bounds the judge requests of one process (per event loop); a `RequestGate` is
asked around every HTTP attempt as well, keyed by `(provider, model)`, and can be shared: the
Ray integration's gate is an actor that every task of a run asks, so one limit holds for the
whole cluster. When a server answers 429 (or 503 with `Retry-After`) the judge tells the gate
to pause that key, so no process sharing it sends until the pause ends.

`LocalRequestGate` is the policy (a concurrency limit per key, an optional requests-per-minute
budget, pauses with exponential back-off), for one process; the Ray actor runs one of these.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from chatassert._judging import context_value

__all__ = ["GateKey", "LocalRequestGate", "RequestGate", "request_gate", "use_request_gate"]

GateKey = tuple[str, str]
"""What a gate limits: `(provider, model)`, such as `("openai", "gpt-4o-mini")`."""


@runtime_checkable
class RequestGate(Protocol):
    """Admits judge requests, per `(provider, model)` key; shared by the processes of a run.

    An HTTP judge awaits `acquire(key)` before each attempt (a retry too) and `release(key)`
    after its reply (or failure); when the reply is 429, or 503 with `Retry-After`, it awaits
    `pause(key, seconds)` before releasing, `seconds` being the server's `Retry-After` (None
    when it sent none: the gate chooses a back-off). The judge then retries as it would
    without a gate, within its `retries`; a judge still refused after them gives an `error`.
    """

    async def acquire(self, key: GateKey) -> None:
        """Wait until a request for `key` may be sent, and count it as in flight."""
        ...

    async def release(self, key: GateKey) -> None:
        """Count a request for `key` as finished (whatever its outcome)."""
        ...

    async def pause(self, key: GateKey, seconds: float | None) -> None:
        """Admit no request for `key` for `seconds` (None: the gate's own back-off)."""
        ...


_GATE: ContextVar[RequestGate | None] = ContextVar("chatassert_request_gate", default=None)


def use_request_gate(
    gate: RequestGate | None,
) -> contextlib.AbstractContextManager[RequestGate | None]:
    """Send every HTTP judge request made in this context (and the tasks it starts) through
    `gate`; None: no gate (the default, which costs nothing).

    Example:
        >>> gate = LocalRequestGate(concurrency=2)
        >>> with use_request_gate(gate):
        ...     request_gate() is gate
        True
        >>> request_gate() is None
        True
    """
    if gate is not None and not isinstance(gate, RequestGate):
        raise TypeError(f"a request gate has async acquire, release and pause; got {gate!r}")
    return context_value(_GATE, gate)


def request_gate() -> RequestGate | None:
    """The request gate of this context (see `use_request_gate`), or None."""
    return _GATE.get()


@dataclass
class _Key:
    """What a gate knows of one key."""

    held: int = 0
    until: float = 0.0  # the time (on the gate's clock) before which nothing is admitted
    strikes: int = 0  # pauses without Retry-After in a row, for the back-off
    started: deque[float] = field(default_factory=deque)  # admissions of the last minute
    waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = field(
        default_factory=deque
    )


class LocalRequestGate:
    """A `RequestGate` for one process: per key, at most `concurrency` requests in flight,
    at most `per_minute` admitted in any 60 seconds, and pauses.

    A pause with `Retry-After` admits nothing for that long (capped at `max_pause`); one
    without waits `backoff` seconds, doubled for each further one in a row (up to
    `max_backoff`); a pause never shortens one already running. The gate may be shared by
    several event loops and threads of the process.

    Args:
        concurrency: Requests in flight per key; None: no bound.
        per_minute: Requests admitted per key in any 60 s; None: no budget.
        backoff: The first pause after a 429 without `Retry-After`, in seconds.
        max_backoff: The longest such pause.
        max_pause: The longest pause a `Retry-After` can ask for.
        clock: The gate's clock, in seconds (default `time.monotonic`).
        sleep: How the gate waits out a pause or the minute's budget (default
            `asyncio.sleep`). With `clock`, a test can run the gate on time it controls.

    Example:
        >>> import asyncio
        >>> gate = LocalRequestGate(concurrency=1)
        >>> async def two():
        ...     await gate.acquire(("openai", "m"))
        ...     waiting = asyncio.ensure_future(gate.acquire(("openai", "m")))
        ...     await asyncio.sleep(0.01)
        ...     first = waiting.done()
        ...     await gate.release(("openai", "m"))
        ...     await waiting
        ...     return first, gate.in_flight(("openai", "m"))
        >>> asyncio.run(two())
        (False, 1)
    """

    def __init__(
        self,
        concurrency: int | None = None,
        *,
        per_minute: int | None = None,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        max_pause: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        for label, number in (("concurrency", concurrency), ("per_minute", per_minute)):
            if number is not None and (
                isinstance(number, bool) or not isinstance(number, int) or number < 1
            ):
                raise ValueError(f"{label} must be a positive integer or None, got {number!r}")
        for label, seconds in (
            ("backoff", backoff),
            ("max_backoff", max_backoff),
            ("max_pause", max_pause),
        ):
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
                raise ValueError(f"{label} must be a non-negative number, got {seconds!r}")
        self.concurrency = concurrency
        self.per_minute = per_minute
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_pause = float(max_pause)
        self._clock = clock
        self._sleep = sleep
        self._keys: dict[GateKey, _Key] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalRequestGate(concurrency={self.concurrency}, per_minute={self.per_minute})"

    def _key(self, key: GateKey) -> _Key:
        state = self._keys.get(key)
        if state is None:
            state = self._keys[key] = _Key()
        return state

    def _wait(self, state: _Key, now: float) -> float:
        """Seconds until a pause or the minute's budget lets a request through (0: now)."""
        wait = state.until - now
        if self.per_minute is not None:
            while state.started and state.started[0] <= now - 60.0:
                state.started.popleft()
            if len(state.started) >= self.per_minute:
                wait = max(wait, state.started[0] + 60.0 - now)
        return max(0.0, wait)

    async def acquire(self, key: GateKey) -> None:
        """Wait until `key` is not paused, within its budget and below its concurrency."""
        loop = asyncio.get_running_loop()
        while True:
            future: asyncio.Future[None] | None = None
            with self._lock:
                state = self._key(key)
                now = self._clock()
                wait = self._wait(state, now)
                if wait <= 0:
                    if self.concurrency is None or state.held < self.concurrency:
                        state.held += 1
                        if self.per_minute is not None:
                            state.started.append(now)
                        return
                    future = loop.create_future()
                    state.waiters.append((loop, future))
            if future is None:
                await self._sleep(wait)
                continue
            try:
                await future
            except asyncio.CancelledError:
                with self._lock:
                    if (loop, future) in state.waiters:
                        state.waiters.remove((loop, future))
                    elif future.done() and not future.cancelled():
                        self._wake(state)  # pass the slot it was given to the next waiter
                raise

    def _wake(self, state: _Key) -> None:
        """Wake the first waiter of a key (under the lock)."""
        while state.waiters:
            loop, future = state.waiters.popleft()
            if future.done() or loop.is_closed():
                continue
            loop.call_soon_threadsafe(_resolve, future)
            return

    async def release(self, key: GateKey) -> None:
        """Count one request of `key` as finished; wake a waiter."""
        with self._lock:
            state = self._key(key)
            state.held = max(0, state.held - 1)
            self._wake(state)

    async def pause(self, key: GateKey, seconds: float | None) -> None:
        """Admit nothing for `key` for `seconds` (capped at `max_pause`), or, when None, for
        the back-off: `backoff` doubled per pause in a row (a pause ending a minute or more
        before this one starts the count again)."""
        with self._lock:
            state = self._key(key)
            now = self._clock()
            if seconds is None:
                if state.until < now - 60.0:
                    state.strikes = 0
                state.strikes += 1
                delay = min(self.max_backoff, self.backoff * 2.0 ** (state.strikes - 1))
            else:
                delay = min(max(0.0, float(seconds)), self.max_pause)
            state.until = max(state.until, now + delay)

    def in_flight(self, key: GateKey) -> int:
        """Requests of `key` admitted and not released."""
        with self._lock:
            return self._key(key).held

    def paused_for(self, key: GateKey) -> float:
        """Seconds left of the pause of `key` (0 when none)."""
        with self._lock:
            return max(0.0, self._key(key).until - self._clock())


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
