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
    afterwards. One handler serves the whole run (switching handlers per record would cost
    more than reading the record). Outside the main thread, where no signal arrives, it does
    nothing.
    """

    def __init__(self) -> None:
        self.armed = True
        self.pending = False
        self.previous: Any = None
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            self.previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.armed:
            raise KeyboardInterrupt
        self.pending = True

    def check(self) -> None:
        """Raise the `KeyboardInterrupt` of a SIGINT noted while disarmed."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def restore(self) -> None:
        """Put back the SIGINT handler found at the start."""
        if self.active and self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
