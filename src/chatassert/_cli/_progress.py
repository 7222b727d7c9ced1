"""How far a run is, on stderr: a bar redrawn in place on a terminal, or a plain line now
and then for CI logs.
"""

from __future__ import annotations

import os
import time
from typing import IO

from chatassert._cli._output import columns, isatty
from chatassert._cli._plan import Meter
from chatassert.reporting import (
    Summary,
)


def size(count: float) -> str:
    """A byte count for people: `size(1536)` is `'1.5 kB'`."""
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} TB"  # pragma: no cover - the loop always returns


def clock(seconds: float) -> str:
    """A duration as `m:ss` (or `h:mm:ss`)."""
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """How far a run is, on stderr, from the bytes of the logs checked (`Meter`).

    `mode` is `auto` (a bar redrawn in place, only when stderr is a terminal, from the first
    second on), `plain` (a line now and then, for CI logs: every 5 % or 10 s, at most one
    each 2 s, and a last one at the end) or `off`.
    """

    def __init__(self, err: IO[str], mode: str, meter: Meter) -> None:
        self.err = err
        self.meter = meter
        self.mode = mode if mode != "auto" or isatty(err) else "off"
        self.start = time.monotonic()
        self.next = self.start + _delay()
        self.drawn = False
        self.shown = -1.0  # the fraction done at the last plain line
        self.last = self.start

    def update(self, summary: Summary, records: int) -> None:
        """Draw the bar, or write a plain line, when it is time to."""
        if self.mode == "off":
            return
        now = time.monotonic()
        if now < self.next:
            return
        if self.mode == "auto":
            self.next = now + 0.25
            width = columns(self.err)
            self.err.write(f"\r\x1b[2K{self.line(summary, records, now, width)[: width - 1]}")
            self.err.flush()
            self.drawn = True
            return
        self.next = now + 2.0
        fraction = self.fraction()
        if (
            self.drawn
            and now - self.last < 10.0
            and (fraction is None or fraction - self.shown < 0.05)
        ):
            return
        self.plain(summary, records, now)

    def plain(self, summary: Summary, records: int, now: float) -> None:
        """Write a plain progress line."""
        self.err.write(f"chatassert: {self.line(summary, records, now, None)}\n")
        self.err.flush()
        self.drawn = True
        self.last = now
        self.shown = self.fraction() or 0.0

    def fraction(self) -> float | None:
        """The part of the logs' bytes checked, when their size is known."""
        total = self.meter.total
        if total is None:
            return None
        return 1.0 if total == 0 else min(self.meter.done / total, 1.0)

    def line(self, summary: Summary, records: int, now: float, width: int | None) -> str:
        """The text of the bar (`width` given) or of a plain line."""
        elapsed = max(now - self.start, 1e-9)
        c = summary.counts
        counts = (
            f"{records:,} records, {summary.total:,} checked, {c['failed']:,} failed, "
            f"{c['error']:,} errors"
        )
        fraction = self.fraction()
        done = self.meter.done
        if fraction is None or self.meter.total is None:
            return f"{size(done)} read ({records / elapsed:,.0f} records/s) · {counts}"
        rate = done / elapsed
        eta = clock((self.meter.total - done) / rate) if rate > 0 else "?"
        figures = f"{size(done)}/{size(self.meter.total)} {size(rate)}/s ETA {eta} · {counts}"
        percent = f"{100 * fraction:3.0f}%"
        if width is None:
            return f"{percent} {figures}"
        bar = max(10, min(30, width - len(percent) - len(figures) - 5))
        full = int(bar * fraction)
        return f"{percent} |{'█' * full}{' ' * (bar - full)}| {figures}"

    def close(self, summary: Summary | None = None, records: int = 0) -> None:
        """Clear the bar; in plain mode, write the last line (given the `summary`)."""
        if self.mode == "auto" and self.drawn:
            self.err.write("\r\x1b[2K")
            self.err.flush()
        elif self.mode == "plain" and summary is not None:
            self.plain(summary, records, time.monotonic())
        self.mode = "off"


def _delay() -> float:
    """Seconds before the first progress: 1, or `CHATASSERT_PROGRESS_DELAY`."""
    try:
        return max(float(os.environ.get("CHATASSERT_PROGRESS_DELAY", "1")), 0.0)
    except ValueError:
        return 1.0
