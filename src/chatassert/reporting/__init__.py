"""Reports of a run: a summary that accumulates outcomes as they are produced, and its renderings.

The report formats (`text`, `json`, `junit`, `html`, `otel`) are one table, `REPORT_FORMATS`,
of `Reporter`s; `ReportWriter` writes a run's rows and summary to any of them, and
`register_reporter` adds one.

Example:
    >>> from chatassert import Contains
    >>> from chatassert.reporting import Outcome, Summary
    >>> summary = Summary()
    >>> summary.add(Outcome("suite", "greets", Contains("hello").check("Hi there"), "log:1"))
    >>> summary.exit_code(), summary.counts["failed"]
    (1, 1)
"""

from chatassert.reporting._formats import (
    REPORT_FORMATS,
    Report,
    Reporter,
    ReportOptions,
    Writable,
    format_named_by,
    register_reporter,
    unregister_reporter,
)
from chatassert.reporting._html import HtmlWriter, html_case, render_html, write_html
from chatassert.reporting._json import compact_result, report_line, report_schema
from chatassert.reporting._junit import JUnitWriter, flaky_only, junit_status, render_junit_case
from chatassert.reporting._recorded import disagreement_text, recorded_verdicts
from chatassert.reporting._regate import regate
from chatassert.reporting._summary import (
    EXIT_ERRORS,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_USAGE,
    Outcome,
    Summary,
    assertion_statuses,
    cost_text,
    excerpt,
    json_line,
    pass_rate,
    render_text,
)
from chatassert.reporting._writer import ReportWriter

__all__ = [
    "EXIT_ERRORS",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_USAGE",
    "REPORT_FORMATS",
    "HtmlWriter",
    "JUnitWriter",
    "Outcome",
    "Report",
    "ReportOptions",
    "ReportWriter",
    "Reporter",
    "Summary",
    "Writable",
    "assertion_statuses",
    "compact_result",
    "cost_text",
    "disagreement_text",
    "excerpt",
    "flaky_only",
    "format_named_by",
    "html_case",
    "json_line",
    "junit_status",
    "pass_rate",
    "recorded_verdicts",
    "regate",
    "register_reporter",
    "render_html",
    "render_junit_case",
    "render_text",
    "report_line",
    "report_schema",
    "unregister_reporter",
    "write_html",
]
