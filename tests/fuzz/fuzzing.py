"""What every fuzz target shares: its example budget, a time limit per input, and counters.

A target is a Hypothesis test decorated with `fuzz_target(name)` (below `@given`):

```python
@given(doc=flat_documents())
@fuzz_target("spec.flat")
def test_flat_specs_load_or_fail_cleanly(doc): ...
```

The decorator gives the test the settings of the active profile (`ci` unless the environment
variable `CHATASSERT_FUZZ` says `long`; both are registered in `conftest.py`) with the
target's own `max_examples` from `BUDGETS`, stops any single input that runs longer than
`INPUT_SECONDS` (a hang is a finding, not a stuck CI job), and counts the inputs it ran, which
`conftest.py` prints at the end of the session.

Triage: with `CHATASSERT_FUZZ_TRIAGE=1` a target does not stop at its first finding; it records
each distinct one (exception type and the frame that raised it) with the smallest input seen
so far, and `conftest.py` lists them all at the end. Use it to see everything a change breaks
at once; the normal mode is what CI runs.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import signal
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

from hypothesis import settings

__all__ = [
    "BUDGETS",
    "COUNTS",
    "INPUT_SECONDS",
    "PROFILE",
    "SECONDS",
    "FINDINGS",
    "TRIAGE",
    "Finding",
    "InputTooSlow",
    "fuzz_target",
    "time_limit",
]

PROFILE = os.environ.get("CHATASSERT_FUZZ", "ci") or "ci"
"""The active profile: `ci` (bounded, the default) or `long` (at least a million inputs)."""

if PROFILE not in ("ci", "long"):
    raise RuntimeError(f"CHATASSERT_FUZZ must be 'ci' or 'long', got {PROFILE!r}")

# name -> (inputs in the ci profile, inputs in the long profile)
BUDGETS: dict[str, tuple[int, int]] = {
    # spec files, through the real YAML loader
    "spec.flat": (120, 60_000),
    "spec.promptkit": (120, 60_000),
    "spec.expect": (120, 60_000),
    "spec.native": (120, 60_000),
    "spec.gates": (100, 40_000),
    "spec.mutated": (250, 80_000),
    "spec.yaml_nodes": (250, 80_000),
    "spec.text": (200, 50_000),
    "spec.file_bytes": (60, 10_000),
    "spec.guess": (60, 20_000),
    # transcript records, one adapter at a time
    "log.openai": (150, 50_000),
    "log.openai_responses": (150, 50_000),
    "log.anthropic": (150, 50_000),
    "log.otel": (150, 50_000),
    "log.native": (150, 50_000),
    "log.jaeger": (80, 80_000),
    "log.promptkit_arena": (80, 80_000),
    "log.promptkit_session": (80, 80_000),
    "log.agents_sdk": (80, 80_000),
    "log.inspect": (80, 80_000),
    "log.langsmith": (80, 80_000),
    "log.promptfoo": (80, 80_000),
    "log.adk": (80, 80_000),
    # the span conventions inside traces (OpenLLMetry, OpenInference) and Tempo's envelope
    "log.openllmetry": (60, 50_000),
    "log.openinference": (60, 50_000),
    "log.tempo": (40, 30_000),
    "log.lines": (200, 60_000),
    "log.bytes": (60, 10_000),
    "log.guess": (60, 20_000),
    # patterns and paths
    "regex.translate": (400, 100_000),
    "regex.search": (150, 30_000),
    "jsonpath.dotted": (300, 60_000),
    "jsonpath.full": (200, 30_000),
    "jsonpath.check": (150, 30_000),
    # judge replies
    "judge.reply_text": (300, 60_000),
    "judge.verdicts": (200, 40_000),
    "judge.http": (40, 4_000),
    "judge.secrets": (60, 10_000),
    "judge.h2_frames": (60, 10_000),
    # results
    "result.roundtrip": (300, 60_000),
    "report.html": (150, 30_000),
    # a monitor of a running agent: random event streams, malformed raw dicts among them
    "monitor.events": (150, 40_000),
    # media headers: any bytes, mutated files of every format read
    "media.headers": (300, 100_000),
    # the command line
    "cli.argv": (40, 2_000),
    "cli.lint": (40, 2_000),
    "cli.check": (40, 2_000),
    # the commands that write files from what they read
    "cli.convert": (40, 20_000),
    "cli.regate": (40, 20_000),
    "cli.validate": (40, 20_000),
    # two reports of check, one mutated, compared under random gates (chatassert compare)
    "cli.compare": (40, 20_000),
    "cli.gating": (40, 20_000),
    # resume: results files of any content (check --engine ray --results, in process)
    "cli.results": (40, 20_000),
    "cli.grouping": (40, 10_000),
    "cli.interrupts": (40, 10_000),
    # judged records checked together (Checker.lines_into), with Ctrl-C at any request
    "cli.judged_batches": (60, 10_000),
    # what names plugins: CHATASSERT_PLUGINS, -p/--plugin
    "plugins.list": (200, 50_000),
}

INPUT_SECONDS = {"ci": 10.0, "long": 10.0}[PROFILE]
"""The most CPU time one input may use (loading, reading or checking): more is a finding.

Six times as much wall-clock time stops an input that waits instead of working."""

COUNTS: Counter[str] = Counter()
"""Inputs run per target in this session (generation, replay and shrinking alike)."""

SECONDS: Counter[str] = Counter()
"""Seconds spent per target in this session."""

TRIAGE = os.environ.get("CHATASSERT_FUZZ_TRIAGE", "") not in ("", "0")
"""Whether targets record their findings and go on instead of failing (see the module doc)."""

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Finding:
    """One distinct unexpected exception: where it was raised and the smallest input seen."""

    target: str
    error: str
    frame: str
    example: str
    count: int = 0


FINDINGS: dict[tuple[str, str, str], Finding] = {}
"""Triage findings by (target, exception type, raising frame)."""


def _record(name: str, exc: BaseException, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    frame = f"{last.filename}:{last.lineno} in {last.name}" if last else "?"
    error = f"{type(exc).__name__}: {str(exc)[:160]}"
    example = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    key = (name, type(exc).__name__, frame)
    found = FINDINGS.get(key)
    if found is None:
        found = FINDINGS[key] = Finding(name, error, frame, example)
    elif len(example) < len(found.example):
        found.example, found.error = example, error
    found.count += 1


class InputTooSlow(BaseException):
    """Raised inside the code under test when an input ran past its time limit.

    A `BaseException`, so no `except Exception` of the library can swallow it and report it
    as an ordinary error result; `fuzz_target` turns it into a test failure.
    """


@contextlib.contextmanager
def time_limit(seconds: float, wall_seconds: float | None = None) -> Iterator[None]:
    """Raise `InputTooSlow` in the running code if the block uses more than `seconds` of CPU.

    CPU time (an `ITIMER_PROF` timer) does not grow when the machine is busy, so a loaded
    machine does not turn a slow-but-fine input into a finding; a block that waits instead of
    working is stopped by a wall-clock timer at `wall_seconds` (default six times `seconds`).
    A timer that fires inside a garbage-collector callback, where an exception cannot
    propagate, fires again a moment later; and a block that outlived its limit fails when it
    ends even if the exception was swallowed. Works in the main thread on POSIX; elsewhere
    the block runs without a limit.
    """
    usable = hasattr(signal, "setitimer") and _main_thread()
    if not usable:
        yield
        return
    expired = False

    def _alarm(signum: int, frame: FrameType | None) -> None:
        nonlocal expired
        expired = True
        if _in_gc_callback(frame):
            signal.setitimer(_TIMERS[signum], 0.01)  # a moment later, outside the callback
            return
        raise InputTooSlow

    previous = {sig: signal.signal(sig, _alarm) for sig in _TIMERS}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall_seconds or 6 * seconds)
    try:
        yield
    finally:
        for sig, timer in _TIMERS.items():
            signal.setitimer(timer, 0)
            signal.signal(sig, previous[sig])
    if expired:
        raise InputTooSlow


_TIMERS = {signal.SIGPROF: signal.ITIMER_PROF, signal.SIGALRM: signal.ITIMER_REAL}


def _in_gc_callback(frame: FrameType | None) -> bool:
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    depth = 0
    while frame is not None and depth < 8:
        if frame.f_code in callbacks:
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def target_settings(name: str) -> settings:
    """The active profile's settings with this target's example budget."""
    ci, long = BUDGETS[name]
    return settings(settings.get_profile(PROFILE), max_examples=ci if PROFILE == "ci" else long)


def fuzz_target(name: str) -> Callable[[F], F]:
    """Make a test function a fuzz target: budget, time limit per input, and a counter.

    Apply it below `@given`, so it wraps the function Hypothesis calls for each input.
    """
    if name not in BUDGETS:
        raise KeyError(f"add the fuzz target {name!r} to BUDGETS in tests/fuzz/fuzzing.py")

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            COUNTS[name] += 1
            start = time.perf_counter()
            try:
                try:
                    with time_limit(INPUT_SECONDS):
                        return function(*args, **kwargs)
                except InputTooSlow:
                    raise AssertionError(
                        f"{name}: one input used more than {INPUT_SECONDS:g} s of CPU, or "
                        f"{6 * INPUT_SECONDS:g} s in all (a hang or a denial of service)"
                    ) from None
            except Exception as exc:
                if not TRIAGE:
                    raise
                _record(name, exc, args, kwargs)
                return None
            finally:
                SECONDS[name] += time.perf_counter() - start

        run.fuzz_target = name  # type: ignore[attr-defined]
        return target_settings(name)(run)  # type: ignore[return-value]

    return decorate
