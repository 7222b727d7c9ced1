"""Reports of a run: a summary that accumulates outcomes as they are produced, and its renderings.

Example:
    >>> from chatassert import Contains
    >>> from chatassert.reporting import Outcome, Summary
    >>> summary = Summary()
    >>> summary.add(Outcome("suite", "greets", Contains("hello").check("Hi there"), "log:1"))
    >>> summary.exit_code(), summary.counts["failed"]
    (1, 1)
"""

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

__all__ = [
    "EXIT_ERRORS",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_USAGE",
    "HtmlWriter",
    "JUnitWriter",
    "Outcome",
    "Summary",
    "assertion_statuses",
    "compact_result",
    "cost_text",
    "disagreement_text",
    "excerpt",
    "flaky_only",
    "html_case",
    "json_line",
    "junit_status",
    "pass_rate",
    "recorded_verdicts",
    "regate",
    "render_html",
    "render_junit_case",
    "render_text",
    "report_line",
    "report_schema",
    "write_html",
]
