"""The report writer: a run's rows, and then its summary, to the report of every format asked.

Docs: docs/records.md ("Reports from rows"). Tests: tests/records/test_rows.py,
tests/reporting/test_report_formats.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chatassert.reporting._formats import (
    REPORT_FORMATS,
    Report,
    Reporter,
    ReportOptions,
    Writable,
    render,
)

if TYPE_CHECKING:
    from chatassert._rows import Row
    from chatassert.reporting._summary import Summary

__all__ = ["ReportWriter"]

_NOTHING: Mapping[str, str] = {}


class ReportWriter:
    """Writes the reports of rows as they come (JSON Lines, OpenTelemetry), spooling what is
    written at the end (JUnit, HTML), then each report's end from a summary (`finish`).

    Args:
        outputs: Per format (a name of `REPORT_FORMATS`: `text`, `json`, `junit`, `html`,
            `otel`, or one registered), where its report goes.
        show: How many failing cases the text report lists.
        verbose: The text report shows every node of a failing case.
        full_results: JSON lines rendered here hold every node in full.
        flaky: How JUnit reports a case only flaky verdicts decide (`skip` or `fail`).
        tags: The tags of each `(suite, case)`, for the HTML report's filter.
        width: The width the text report's result trees wrap at.
        subjects: Whether the rows come with the subjects they were checked against; False
            for rows read back from a report (`ReportOptions.subjects`).

    A row carries a format's rendering when its checker was asked for that format
    (`Checker(formats=...)`); otherwise it is rendered here from the row's compact tree.

    Raises:
        ValueError: when an output names no known format.

    Example:
        >>> import io
        >>> from chatassert.records import Checker, ReportWriter, Summary, inline_suite
        >>> checker = Checker([inline_suite(["{type: contains, value: hi}"])])
        >>> out = io.StringIO()
        >>> writer, summary = ReportWriter({"json": out}), Summary(records=0)
        >>> for row in checker.check_records(['{"turns": [{"text": "hi"}]}']):
        ...     summary.add_row(row)
        ...     writer.add(row)
        >>> summary.records = 1
        >>> writer.finish(summary)
        >>> print(out.getvalue(), end="")  # doctest: +ELLIPSIS
        {"suite": "--assert", "case": "contains 'hi'", "source": "<record 1>", ...}
        {"summary": {"passed": 1, "failed": 0, "error": 0, "skipped": 0, ...}}
    """

    def __init__(
        self,
        outputs: Mapping[str, Writable],
        *,
        show: int = 10,
        verbose: bool = False,
        full_results: bool = False,
        flaky: str = "skip",
        tags: Mapping[tuple[str, str], Sequence[str]] | None = None,
        width: int = 120,
        subjects: bool = True,
    ) -> None:
        unknown = {name for name in outputs if name not in REPORT_FORMATS}  # plugins looked up
        if unknown:
            raise ValueError(
                f"unknown report formats {sorted(unknown)}; known: {tuple(REPORT_FORMATS)}"
            )
        self.outputs = dict(outputs)
        self.options = ReportOptions(
            show=show,
            verbose=verbose,
            full_results=full_results,
            flaky=flaky,
            tags=tags,
            width=width,
            subjects=subjects,
        )
        """How the reports are written."""
        self.reports: dict[str, Report] = {
            name: REPORT_FORMATS[name].open(out, self.options) for name, out in outputs.items()
        }
        """Each format's report, in the order of `outputs`."""
        self._added = list(self.reports.values())
        self._renderers: list[Reporter] = [
            reporter
            for name, reporter in REPORT_FORMATS.items()
            if name in outputs and reporter.rows != "summary"
        ]
        self._wanted = frozenset(reporter.name for reporter in self._renderers)

    def add(self, row: Row) -> None:
        """Write (or spool) what each report shows of one row."""
        rendered = row.rendered
        if row.kind == "case":
            if rendered is None or not self._wanted.issubset(rendered):
                rendered = self._render(row) if self._wanted else _NOTHING
        elif rendered is None:
            rendered = _NOTHING
        for report in self._added:
            report.add(row, rendered)

    def _render(self, row: Row) -> Mapping[str, str]:
        have = dict(row.rendered or {})
        outcome = row.to_outcome()
        if outcome is None:
            raise ValueError(
                f"row {row.source!r} carries neither its result tree nor the renderings of "
                f"{sorted(self._wanted - have.keys())}: check with Checker(trees=True) or "
                "Checker(formats=...)"
            )
        missing = [r for r in self._renderers if r.name not in have]
        have.update(render(outcome, None, missing, self.options))
        return have

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None = None) -> None:
        """End each report, in the order of the outputs: the JSON summary line, the JUnit
        document, the HTML page (with the run's `meta`), the text summary."""
        for report in self.reports.values():
            report.finish(summary, meta)
