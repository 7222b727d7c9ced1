"""The request gate: every HTTP judge attempt passes it, keyed by provider and model, and a 429
pauses the key for every request sharing the gate (against a real loopback server)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from loopback import LoopbackServer, RefusedOnce, Reply, Together, openai_verdict

from chatassert import LLMRubric, Status
from chatassert.judges import (
    JudgeRequest,
    LocalRequestGate,
    OpenAIJudge,
    RequestGate,
    request_gate,
    use_request_gate,
)

KEY = ("openai", "judge-model")


def _ask(judge: OpenAIJudge, count: int, stagger: float = 0.0) -> list[Any]:
    async def all_of() -> list[Any]:
        return list(await asyncio.gather(*(_one(judge, i, stagger * i) for i in range(count))))

    return asyncio.run(all_of())


async def _one(judge: OpenAIJudge, i: int, after: float = 0.0) -> Any:
    await asyncio.sleep(after)
    try:
        return await judge.judge(JudgeRequest(f"criterion {i}", "Please."))
    except Exception as exc:  # the outcome is what the test looks at
        return exc


class Clock:
    """Time the test controls, for a gate: `sleep` moves it on at once and records the wait."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        start = self.now
        await asyncio.sleep(0)
        self.now = max(self.now, start + seconds)


class LoggingGate(LocalRequestGate):
    """A local gate on a `Clock` that logs its admissions and pauses, in order."""

    def __init__(self, clock: Clock, **options: Any) -> None:
        super().__init__(clock=clock, sleep=clock.sleep, **options)
        self.clock = clock
        self.log: list[tuple[str, float]] = []
        self.paused = threading.Event()

    async def acquire(self, key: tuple[str, str]) -> None:
        await super().acquire(key)
        self.log.append(("admit", self.clock()))

    async def pause(self, key: tuple[str, str], seconds: float | None) -> None:
        await super().pause(key, seconds)
        self.log.append(("pause", self.clock()))
        self.paused.set()


async def _after_pause(gate: LoggingGate) -> None:
    while not gate.paused.is_set():  # bounded: the test fails at its own time limit
        await asyncio.sleep(0.005)


def _slow(delay: float) -> Reply:
    reply = openai_verdict()
    reply.delay = delay
    return reply


def test_no_gate_is_the_default() -> None:
    assert request_gate() is None
    gate = LocalRequestGate(2)
    assert isinstance(gate, RequestGate)
    with use_request_gate(gate):
        assert request_gate() is gate
        with use_request_gate(None):
            assert request_gate() is None
    with pytest.raises(TypeError, match="acquire, release and pause"), use_request_gate(object()):  # type: ignore[arg-type]
        pass


def test_the_gate_bounds_the_requests_in_flight_per_key(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    judge = openai_judge()
    server.default = ungated = Together(3, delay=0.02)  # three meet: no gate holds them back
    results = _ask(judge, 8)
    assert all(r.passed for r in results)
    assert ungated.peak >= 3

    server.max_in_flight = 0
    server.default = gated = Together(2, delay=0.02)  # two meet, so two were let through
    gate = LocalRequestGate(concurrency=2)
    with use_request_gate(gate):
        results = _ask(judge, 8)
    assert all(r.passed for r in results)
    assert gated.peak == 2
    assert server.max_in_flight <= 2
    assert gate.in_flight(KEY) == 0  # each attempt released its slot


def test_keys_are_limited_apart(server: LoopbackServer) -> None:
    server.default = together = Together(2, delay=0.02)  # one request of each model meet
    gate = LocalRequestGate(concurrency=1)
    judges = [OpenAIJudge(model, base_url=server.url + "/v1", retries=0) for model in ("m1", "m2")]

    async def both() -> None:
        await asyncio.gather(
            *(j.judge(JudgeRequest(f"c{i}", "x")) for j in judges for i in range(3))
        )

    with use_request_gate(gate):
        asyncio.run(both())
    assert together.peak == 2  # one per model
    assert server.max_in_flight <= 2
    assert server.count == 6


def test_a_429_with_retry_after_pauses_every_request_of_the_key(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = reply = RefusedOnce()  # the first request is refused: Retry-After: 1
    # The judge's own retry delay is tiny (backoff 1 ms): only the gate holds the others back.
    judge = openai_judge(max_retry_after=5.0, backoff=0.001, max_backoff=0.001)
    original = judge._retry_delay
    judge._retry_delay = lambda attempt, retry_after: original(attempt, None)  # type: ignore[method-assign]
    gate = LoggingGate(Clock(), concurrency=4)

    async def run() -> list[Any]:
        first = asyncio.ensure_future(_one(judge, 0))
        await _after_pause(gate)  # the others ask once the 429 has paused the key
        return list(await asyncio.gather(first, *(_one(judge, i) for i in range(1, 4))))

    with use_request_gate(gate):
        results = asyncio.run(run())
    assert all(getattr(r, "passed", False) for r in results), results
    assert len(reply.arrivals) == 5  # four requests and one retry
    assert "criterion 0" in reply.prompts[0]  # refused, then retried after the pause
    assert sum("criterion 0" in prompt for prompt in reply.prompts) == 2
    [(first, _), (paused, at), *later] = gate.log
    assert (first, paused) == ("admit", "pause")
    assert [event for event, _ in later] == ["admit"] * 4
    assert all(when >= at + 1.0 for _, when in later), (at, later)  # none during the pause
    assert max(gate.clock.waits, default=0.0) == pytest.approx(1.0)


def test_without_a_gate_the_others_do_not_wait(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = reply = RefusedOnce(retry_after="30")
    judge = openai_judge(max_retry_after=30.0, retries=1)  # the refused one waits 30 s

    async def run() -> tuple[list[Any], bool]:
        first = asyncio.ensure_future(_one(judge, 0))
        while not reply.refused:  # bounded: the test fails at its own time limit
            await asyncio.sleep(0.005)
        others = await asyncio.gather(*(_one(judge, i) for i in range(1, 4)))
        waiting = not first.done()
        first.cancel()
        return list(others), waiting

    others, still_waiting = asyncio.run(run())
    assert all(getattr(r, "passed", False) for r in others), others
    assert still_waiting  # the control: without a gate nothing held the others back
    assert len(reply.arrivals) == 4


def test_a_judge_that_stays_rate_limited_is_an_error_never_a_pass(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = Reply({"error": "slow down"}, status=429, headers={"Retry-After": "0"})
    gate = LocalRequestGate(concurrency=2)
    with use_request_gate(gate):
        result = LLMRubric("Is polite", judge=openai_judge(retries=2)).check("Please.")
    assert result.status is Status.ERROR
    assert "gave up after 3 attempts" in result.reason
    assert "HTTP 429" in result.reason
    assert server.count == 3
    assert gate.in_flight(KEY) == 0


def test_a_429_without_retry_after_backs_off_exponentially_at_the_gate(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = Reply({"error": "slow down"}, status=429)
    clock = Clock()
    gate = LocalRequestGate(
        concurrency=2, backoff=0.05, max_backoff=0.15, clock=clock, sleep=clock.sleep
    )
    with use_request_gate(gate):
        result = LLMRubric("Is polite", judge=openai_judge(retries=3)).check("Please.")
    assert result.status is Status.ERROR
    assert server.count == 4
    # pauses of 0.05, 0.1 and 0.15 (capped) seconds before the three retries
    assert clock.waits == pytest.approx([0.05, 0.1, 0.15])


def test_a_503_pauses_only_with_retry_after(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    clock = Clock()
    gate = LocalRequestGate(concurrency=1, backoff=30.0, clock=clock, sleep=clock.sleep)
    server.push(Reply({"error": "down"}, status=503), openai_verdict())
    with use_request_gate(gate):
        assert LLMRubric("x", judge=openai_judge()).check("y").passed
    assert gate.paused_for(KEY) == 0.0  # no Retry-After: the judge's own back-off only
    assert clock.waits == []
    server.push(Reply({"error": "down"}, status=503, headers={"Retry-After": "0.2"}))
    server.push(openai_verdict())
    with use_request_gate(gate):
        assert LLMRubric("x", judge=openai_judge(max_retry_after=1.0)).check("y").passed
    assert clock.waits == pytest.approx([0.2])


def test_pauses_extend_never_shorten_and_the_back_off_doubles() -> None:
    gate = LocalRequestGate(backoff=1.0, max_backoff=8.0)

    async def pauses() -> list[float]:
        out = []
        for seconds in (None, None, None, 0.5):
            await gate.pause(KEY, seconds)
            out.append(round(gate.paused_for(KEY)))
        return out

    assert asyncio.run(pauses()) == [1, 2, 4, 4]


def test_the_per_minute_budget_holds_the_next_request() -> None:
    gate = LocalRequestGate(per_minute=2)

    async def three() -> bool:
        await gate.acquire(KEY)
        await gate.release(KEY)
        await gate.acquire(KEY)
        await gate.release(KEY)
        try:
            await asyncio.wait_for(gate.acquire(KEY), 0.2)
        except TimeoutError:
            return False
        return True

    assert asyncio.run(three()) is False
    assert gate.in_flight(KEY) == 0  # the cancelled wait took no slot


def test_a_cancelled_waiter_passes_its_slot_on() -> None:
    gate = LocalRequestGate(concurrency=1)

    async def run() -> int:
        await gate.acquire(KEY)
        waiting = [asyncio.ensure_future(gate.acquire(KEY)) for _ in range(2)]
        await asyncio.sleep(0.01)
        waiting[0].cancel()
        await gate.release(KEY)
        await asyncio.wait_for(waiting[1], 1.0)
        return gate.in_flight(KEY)

    assert asyncio.run(run()) == 1


def test_bad_limits_are_refused() -> None:
    for bad in ({"concurrency": 0}, {"per_minute": True}, {"backoff": -1}):
        with pytest.raises(ValueError):
            LocalRequestGate(**bad)
