"""Ctrl-C while a check waits: the interrupt is never lost, and what was running is cancelled.

Python swallows an exception raised inside a `__del__` or a weakref callback, and a SIGINT
handler that raises `KeyboardInterrupt` runs wherever the main thread happens to be, finalizers
included. A judged check run synchronously (`run_sync`) therefore asks the SIGINT handler what
the signal means and cancels its task when the handler raises; the command line's `Interrupts`
notes every SIGINT, so one swallowed is raised again before the next record. Each signal here
is raised by the test itself (`signal.raise_signal` runs the handler before it returns), inside
the code it is meant to interrupt: no timing involved.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest

from chatassert import LLMRubric
from chatassert._cli._interrupts import Interrupts
from chatassert.judges import JudgeRequest, Verdict


class _SignalInDel:
    """Raises SIGINT while it is finalised: the handler runs inside `__del__`."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)


class _Judge:
    """A judge that raises SIGINT while it judges (directly, or inside a finaliser), then
    yields to the loop a few times and answers, noting whether it was cancelled instead."""

    name = "interrupting"

    def __init__(self, *, in_del: bool) -> None:
        self.in_del = in_del
        self.cancelled = False
        self.answered = False

    async def judge(self, request: JudgeRequest) -> Verdict:
        if self.in_del:
            finalised = _SignalInDel()
            del finalised
        else:
            signal.raise_signal(signal.SIGINT)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        self.answered = True
        return Verdict(passed=True, reason="polite")


@pytest.fixture
def sigint() -> Iterator[Callable[[Callable[[int, FrameType | None], Any]], list[int]]]:
    """Install a SIGINT handler for the test; put the one found back after it."""
    assert threading.current_thread() is threading.main_thread()  # where signals arrive
    found = signal.getsignal(signal.SIGINT)

    def install(handler: Callable[[int, FrameType | None], Any]) -> list[int]:
        calls: list[int] = []

        def noting(signum: int, frame: FrameType | None) -> Any:
            calls.append(signum)
            return handler(signum, frame)

        signal.signal(signal.SIGINT, noting)
        return calls

    yield install
    signal.signal(signal.SIGINT, found)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _note(signum: int, frame: FrameType | None) -> None:
    pass


@pytest.fixture
def swallowed(monkeypatch: pytest.MonkeyPatch) -> list[type[BaseException]]:
    """The exceptions Python swallowed in finalisers during the test."""
    seen: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    return seen


@pytest.mark.parametrize("in_del", [False, True], ids=["in-the-judge", "in-a-finaliser"])
def test_ctrl_c_during_a_judged_check_cancels_the_judge_then_interrupts(
    sigint: Any, swallowed: list[type[BaseException]], in_del: bool
) -> None:
    calls = sigint(_raise)
    handler = signal.getsignal(signal.SIGINT)
    judge = _Judge(in_del=in_del)
    with pytest.raises(KeyboardInterrupt):
        LLMRubric("Is polite", judge=judge).check("Thank you!")
    assert calls == [signal.SIGINT]
    assert judge.cancelled  # its cleanup ran: the loop was unwound, not torn
    assert not judge.answered
    assert swallowed == []  # nothing raised where Python would have swallowed it
    assert signal.getsignal(signal.SIGINT) is handler


def test_a_ctrl_c_the_handler_only_notes_lets_the_judged_check_finish(sigint: Any) -> None:
    calls = sigint(_note)
    handler = signal.getsignal(signal.SIGINT)
    judge = _Judge(in_del=False)
    result = LLMRubric("Is polite", judge=judge).check("Thank you!")
    assert result.passed
    assert calls == [signal.SIGINT]
    assert judge.answered
    assert not judge.cancelled
    assert signal.getsignal(signal.SIGINT) is handler


def test_under_the_default_handler_asyncio_answers_ctrl_c_itself(sigint: Any) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    judge = _Judge(in_del=False)
    with pytest.raises(KeyboardInterrupt):
        LLMRubric("Is polite", judge=judge).check("Thank you!")
    assert judge.cancelled
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# -- the command line's Interrupts -----------------------------------------------------------------


@pytest.fixture
def interrupts() -> Iterator[Interrupts]:
    assert threading.current_thread() is threading.main_thread()
    found = Interrupts()
    yield found
    found.restore()


def test_a_ctrl_c_swallowed_in_a_finaliser_is_raised_before_the_next_record(
    interrupts: Interrupts, swallowed: list[type[BaseException]]
) -> None:
    interrupts.arm()
    finalised = _SignalInDel()
    del finalised  # the handler raised inside __del__; Python swallowed it
    assert swallowed == [KeyboardInterrupt]
    with pytest.raises(KeyboardInterrupt):
        interrupts.check()
    with pytest.raises(KeyboardInterrupt):
        interrupts.arm()


def test_a_ctrl_c_while_disarmed_is_noted_and_raised_at_the_next_arming(
    interrupts: Interrupts,
) -> None:
    interrupts.armed = False
    signal.raise_signal(signal.SIGINT)  # noted, not raised: results are being written
    assert interrupts.pending
    with pytest.raises(KeyboardInterrupt):
        interrupts.arm()
    assert not interrupts.armed  # the run is ending: a second Ctrl-C is noted, not raised


def test_without_a_ctrl_c_arming_raises_nothing(interrupts: Interrupts) -> None:
    interrupts.armed = False
    interrupts.arm()
    interrupts.check()
    assert interrupts.armed
    assert not interrupts.pending


def test_interrupts_put_back_the_handler_they_found(sigint: Any) -> None:
    sigint(_note)
    handler = signal.getsignal(signal.SIGINT)
    found = Interrupts()
    assert signal.getsignal(signal.SIGINT) is not handler
    found.restore()
    assert signal.getsignal(signal.SIGINT) is handler
