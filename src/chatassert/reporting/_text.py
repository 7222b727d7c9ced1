"""The text report (`--format text`, the default): the summary, written at the end.

It shows no row as it comes: its counts, pass rates and failing examples are the summary's
(`render_text`), so `--jobs` workers fold the rows of a text-only run themselves.

Docs: docs/offline.md. Tests: tests/reporting/test_report_formats.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from chatassert.reporting._summary import Summary, render_text

if TYPE_CHECKING:
    from chatassert._rows import Row
    from chatassert.reporting._formats import ReportOptions, Writable
    from chatassert.reporting._summary import Outcome

__all__ = ["TEXT"]


class _TextReport:
    """The text summary of a run, to one output."""

    def __init__(self, out: Writable, options: ReportOptions) -> None:
        self.out = out
        self.options = options

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Nothing: the summary counts the row."""

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Write the summary (`render_text`)."""
        options = self.options
        text = render_text(
            summary, max_failures=options.show, verbose=options.verbose, width=options.width
        )
        self.out.write(text + "\n")


class _Text:
    """The text report format: a summary of the run."""

    name = "text"
    extensions = (".txt",)
    description = "a summary"
    rows = "summary"
    excerpts = False
    needs_subject = False

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """Nothing: the report shows no row as it comes."""
        return {}

    def open(self, out: Writable, options: ReportOptions) -> _TextReport:
        """Start a text report to `out`."""
        return _TextReport(out, options)


TEXT = _Text()
"""The text report format."""
