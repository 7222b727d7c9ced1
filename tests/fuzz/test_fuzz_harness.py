"""The fuzz harness itself: the per-input time limit.

Docs: docs/internals/fuzzing.md, "What fails a target".
"""

from __future__ import annotations

import contextlib
import gc
import time
from types import FrameType

import pytest
from fuzzing import InputTooSlow, _in_gc_callback, time_limit


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_an_input_that_works_past_its_cpu_limit_is_stopped() -> None:
    with pytest.raises(InputTooSlow), time_limit(0.05):
        _burn(2.0)


def test_an_input_that_waits_past_its_wall_clock_limit_is_stopped() -> None:
    with pytest.raises(InputTooSlow), time_limit(5.0, wall_seconds=0.05):
        time.sleep(2.0)  # uses no CPU: only the wall-clock timer can stop it


def test_an_input_within_its_limits_is_left_alone() -> None:
    with time_limit(5.0):
        _burn(0.01)


def test_a_limit_whose_exception_was_swallowed_still_fails_the_input() -> None:
    # Code under test may catch BaseException (or the timer may fire where an exception is
    # ignored); the input still fails when the block ends.
    def swallowing() -> None:
        with time_limit(0.05), contextlib.suppress(BaseException):
            _burn(0.5)

    with pytest.raises(InputTooSlow):
        swallowing()


def test_a_timer_firing_in_a_gc_callback_is_recognised() -> None:
    # Inside a collector callback an exception is "unraisable": the harness defers it instead.
    seen: list[bool] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        import sys

        frame: FrameType | None = sys._getframe()
        seen.append(_in_gc_callback(frame))

    gc.callbacks.append(callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
    assert seen
    assert all(seen)
    assert not _in_gc_callback(None)
