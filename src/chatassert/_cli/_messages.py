"""What a `chatassert check` run says on stderr as rows come, whichever engine checks them
(the local loop in `_cli._run`, or `_cli._ray`): the records it lists, and why it stops."""

from __future__ import annotations

from typing import IO

from chatassert.records import Row, Summary
from chatassert.reporting._words import counted

__all__ = ["LISTED", "failures_reached", "say_listed", "say_strict_stop"]

LISTED = 10
"""Unreadable or unmatched records listed on stderr before they are only counted."""


def failures_reached(summary: Summary, max_failures: int | None) -> str | None:
    """Why a run stops now, when `--max-failures` failing cases have been counted."""
    n = summary.failing
    if max_failures is None or n < max_failures:
        return None
    return f"stopped after {counted(n, 'failing case')} (--max-failures)"


def say_strict_stop(row: Row, err: IO[str]) -> None:
    """Say that `--strict` stops the run at this unreadable record."""
    err.write(f"{row.source}: {row.error}\nstopped: unreadable log line (--strict)\n")


def say_listed(row: Row, summary: Summary, err: IO[str]) -> None:
    """List a counted unreadable or unmatched record on stderr, while under `LISTED`."""
    if row.kind == "unreadable":
        if summary.unreadable_count <= LISTED:
            err.write(f"{row.source}: skipped: {row.error}\n")
    elif row.kind == "unmatched" and summary.unmatched <= LISTED:
        why = row.error or (
            f"no case of {row.suite!r} matches this subject (give it an 'id' or 'case' naming one)"
        )
        err.write(f"{row.source}: {why}\n")
