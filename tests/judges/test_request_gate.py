"""The request gate: every HTTP judge attempt passes it, keyed by provider and model, and a 429
pauses the key for every request sharing the gate (against a real loopback server)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from loopback import LoopbackServer, RefusedOnce, Reply, openai_verdict

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
    async def one(i: int) -> Any:
        await asyncio.sleep(stagger * i)
        try:
            return await judge.judge(JudgeRequest(f"criterion {i}", "Please."))
        except Exception as exc:  # the outcome is what the test looks at
            return exc

    async def all_of() -> list[Any]:
        return list(await asyncio.gather(*(one(i) for i in range(count))))

    return asyncio.run(all_of())


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
    server.default = _slow(0.05)
    judge = openai_judge()
    results = _ask(judge, 8)
    assert all(r.passed for r in results)
    assert server.max_in_flight > 2  # without a gate they overlap

    server.max_in_flight = 0
    gate = LocalRequestGate(concurrency=2)
    with use_request_gate(gate):
        results = _ask(judge, 8)
    assert all(r.passed for r in results)
    assert server.max_in_flight == 2
    assert gate.in_flight(KEY) == 0  # each attempt released its slot


def test_keys_are_limited_apart(server: LoopbackServer) -> None:
    server.default = _slow(0.05)
    gate = LocalRequestGate(concurrency=1)
    judges = [OpenAIJudge(model, base_url=server.url + "/v1", retries=0) for model in ("m1", "m2")]

    async def both() -> None:
        await asyncio.gather(
            *(j.judge(JudgeRequest(f"c{i}", "x")) for j in judges for i in range(3))
        )

    with use_request_gate(gate):
        asyncio.run(both())
    assert server.max_in_flight == 2  # one per model
    assert server.count == 6


def test_a_429_with_retry_after_pauses_every_request_of_the_key(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    reply = RefusedOnce()
    server.default = reply
    arrivals, refused = reply.arrivals, reply.refused
    # The judge's own retry delay is tiny (backoff 1 ms): only the gate holds the others back.
    judge = openai_judge(max_retry_after=5.0, backoff=0.001, max_backoff=0.001)
    original = judge._retry_delay
    judge._retry_delay = lambda attempt, retry_after: original(attempt, None)  # type: ignore[method-assign]
    gate = LocalRequestGate(concurrency=4)
    with use_request_gate(gate):
        results = _ask(judge, 4, stagger=0.1)
    assert all(getattr(r, "passed", False) for r in results), results
    assert len(arrivals) == 5  # four requests and one retry
    later = [t - refused[0] for t in arrivals[1:]]
    assert min(later) >= 0.95, later  # nothing was sent during the pause


def test_without_a_gate_the_others_do_not_wait(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    reply = RefusedOnce()
    server.default = reply
    arrivals = reply.arrivals
    judge = openai_judge(max_retry_after=5.0)
    start = time.monotonic()
    _ask(judge, 4, stagger=0.1)
    assert min(t - start for t in arrivals[1:]) < 0.5  # the control: the gate makes the wait


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
    gate = LocalRequestGate(concurrency=2, backoff=0.05, max_backoff=0.15)
    started = time.monotonic()
    with use_request_gate(gate):
        result = LLMRubric("Is polite", judge=openai_judge(retries=3)).check("Please.")
    took = time.monotonic() - started
    assert result.status is Status.ERROR
    assert server.count == 4
    # pauses of 0.05, 0.1 and 0.15 (capped) seconds before the three retries
    assert took >= 0.29, took


def test_a_503_pauses_only_with_retry_after(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    gate = LocalRequestGate(concurrency=1, backoff=30.0)
    server.push(Reply({"error": "down"}, status=503), openai_verdict())
    with use_request_gate(gate):
        assert LLMRubric("x", judge=openai_judge()).check("y").passed
    assert gate.paused_for(KEY) == 0.0  # no Retry-After: the judge's own back-off only
    server.push(Reply({"error": "down"}, status=503, headers={"Retry-After": "0.2"}))
    server.push(openai_verdict())
    started = time.monotonic()
    with use_request_gate(gate):
        assert LLMRubric("x", judge=openai_judge(max_retry_after=1.0)).check("y").passed
    assert time.monotonic() - started >= 0.19


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
