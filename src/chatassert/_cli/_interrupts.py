"""Ctrl-C during a run, answered only between log records."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


class Interrupts:
    """Ctrl-C, answered only between log records, so a report never holds half a record.

    While a record is being checked, SIGINT raises `KeyboardInterrupt` at once; while its
    results are being counted and written, SIGINT is only noted, and `check()` raises it
    afterwards. Every SIGINT is noted, raised or not: one raised inside a `__del__` or a
    weakref callback is swallowed by Python, and the note raises it again before the next
    record (`arm`). One handler serves the whole run (switching handlers per record would
    cost more than reading the record). Outside the main thread, where no signal arrives, it
    does nothing.
    """

    def __init__(self) -> None:
        self.armed = True
        self.pending = False
        self.previous: Any = None
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            self.previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.pending = True
        if self.armed:
            raise KeyboardInterrupt

    def check(self) -> None:
        """Raise the `KeyboardInterrupt` of a SIGINT noted and not yet answered."""
        if self.pending:
            raise KeyboardInterrupt

    def arm(self) -> None:
        """Answer SIGINT at once from now on (raising one noted before)."""
        self.check()
        self.armed = True

    def restore(self) -> None:
        """Put back the SIGINT handler found at the start."""
        if self.active and self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
