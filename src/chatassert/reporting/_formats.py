"""The report formats: what a reporter is, and the one table of them that everything reads.

A report format is a `Reporter`: its name, the file extensions that name it, how it writes
rows (as they come, kept to the end, or not at all), what it needs of the checked subject, how
it renders one case outcome, and how it opens a `Report` (one run's report, to one output),
which is given each row and then the run's summary. `REPORT_FORMATS` is the table, in the
order the command line lists them; the report writer (`ReportWriter`), the checker's
renderings (`Checker(formats=...)`) and the command line's `--format` choices, `--output`
extensions and help are all read from it.

Adding a format is one module (its reporter and report), one line of `_BUILT_IN` (or a call
to `register_reporter`, or a `chatassert.reports` entry point: docs/plugins.md) and a row in
docs/records.md's table of formats.

Docs: docs/records.md ("Report formats"). Tests: tests/reporting/test_report_formats.py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from chatassert import plugins
from chatassert.plugins import PluginTable
from chatassert.reporting._html import HTML
from chatassert.reporting._json import JSON
from chatassert.reporting._junit import JUNIT
from chatassert.reporting._otel import OTEL
from chatassert.reporting._text import TEXT

if TYPE_CHECKING:
    from chatassert._rows import Row
    from chatassert.reporting._summary import Outcome, Summary

__all__ = [
    "REPORT_FORMATS",
    "ROWS_MODES",
    "Report",
    "ReportOptions",
    "Reporter",
    "Writable",
    "format_named_by",
    "register_reporter",
    "render",
    "unregister_reporter",
]

ROWS_MODES = ("streamed", "spooled", "summary")
"""How a format may write rows (`Reporter.rows`)."""


class Writable(Protocol):
    """Where a report goes: anything with `write(text)` (a text file, `io.StringIO`)."""

    def write(self, text: str, /) -> Any:
        """Write `text`."""


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How a run's reports are written (one set for every format).

    Attributes:
        show: How many failing cases the text report lists.
        verbose: The text report and JUnit show every node of a failing case.
        full_results: JSON lines hold every node in full, not the compact tree.
        flaky: How JUnit reports a case only flaky verdicts decide (`skip` or `fail`).
        tags: The tags of each `(suite, case)`, for the HTML report's filter.
        width: The width the text report's result trees wrap at.
        subjects: Whether rows come with the subjects they were checked against (False for
            rows read back from a report, as `chatassert regate` reads them): a format that
            shows more of a row than its outcome (the HTML page's usage and excerpts) then
            shows what the summary keeps instead.
    """

    show: int = 10
    verbose: bool = False
    full_results: bool = False
    flaky: str = "skip"
    tags: Mapping[tuple[str, str], Sequence[str]] | None = None
    width: int = 120
    subjects: bool = True


class Report(Protocol):
    """One run's report in one format, to one output: given each row, then the summary."""

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Write (or keep) what the report shows of one row, in the order rows come.

        `rendered` holds the row's renderings by key (`Reporter.render`'s): complete for a
        case row; for an unmatched or unreadable row, whatever the row carries (often
        nothing), so the report renders it itself.
        """

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Write the report's end from the run's summary (and `meta`: date, command, suites,
        logs, version, duration, when the caller gives them)."""


class Reporter(Protocol):
    """A report format: what it is called, how it writes rows, how it renders and reports.

    A class whose attributes are plain class attributes (`name = "tally"`) implements it.
    """

    @property
    def name(self) -> str:
        """What `--format` and `ReportWriter`'s outputs call it."""

    @property
    def extensions(self) -> tuple[str, ...]:
        """The file extensions that name it (`-o report.xml`), lower case with their dot; one
        of several dots (`.otel.jsonl`) wins over the last dot's (`.jsonl`)."""

    @property
    def description(self) -> str:
        """What `--format`'s help says of it, after its name."""

    @property
    def rows(self) -> str:
        """How it writes rows: `streamed` (each as it comes, in order: `--jobs` workers
        render and write them, a batch at a time with a report opened for it whose beginning
        is dropped, so its `Report.add` may not see every row and its end reads the summary
        alone; the report's beginning and end are written once, where its output is),
        `spooled` (kept, written at the end) or `summary` (none: the report is
        written from the summary alone)."""

    @property
    def excerpts(self) -> bool:
        """Whether it shows a failing case's transcript excerpt, which the checker then cuts
        from the subject."""

    @property
    def needs_subject(self) -> bool:
        """Whether it cannot be written without the checked subjects (OTel's links to the
        traces read): `chatassert regate`, which reads a report back, does not offer it."""

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """What the report writes of one case outcome, by key (its name, and any other keys it
        reads back in `Report.add`); nothing for a format whose `rows` is `summary`.
        `subject` is what was checked, None when the row is rendered from its tree alone."""

    def open(self, out: Writable, options: ReportOptions) -> Report:
        """Start one run's report to `out`."""


_TABLE: dict[str, Reporter] = {}

REPORT_FORMATS: Mapping[str, Reporter] = PluginTable(plugins.REPORTS, MappingProxyType(_TABLE))
"""The report formats by name, in the order the command line lists them (read-only: change
it with `register_reporter` and `unregister_reporter`). A name no format has is looked for
among the installed plugins (`chatassert.reports`); iterating it lists the formats
registered so far."""

_ATTRIBUTES = ("name", "extensions", "description", "rows", "excerpts", "needs_subject")
_METHODS = ("render", "open")


def register_reporter(reporter: Reporter) -> None:
    """Add a report format to `REPORT_FORMATS` (after the others): `ReportWriter` writes it,
    `Checker(formats=...)` renders it, `chatassert check` offers it in `--format`, names it
    by its extensions in `--output`, and lists it in its help.

    A `chatassert.reports` entry point names a reporter, which is registered when the
    plugins of that group are loaded: when `--format` names a format no reporter has, or an
    `--output` file's extension names none.

    Raises:
        TypeError: when `reporter` lacks an attribute or method of `Reporter`.
        ValueError: when the name is taken or empty, an extension is another format's or
            does not start with a dot, or `rows` is not one of the modes.
    """
    missing = [a for a in _ATTRIBUTES if not hasattr(reporter, a)] + [
        m for m in _METHODS if not callable(getattr(reporter, m, None))
    ]
    if missing:
        raise TypeError(
            f"a report format is a Reporter (docs/add-a-report-format.md): {reporter!r} lacks "
            f"{', '.join(missing)}"
        )
    name = reporter.name
    if not isinstance(name, str) or not name or name in _TABLE:
        raise ValueError(f"a report format needs a name of its own: {name!r} is taken or empty")
    if reporter.rows not in ROWS_MODES:
        raise ValueError(
            f"report format {name!r}: rows is {reporter.rows!r}, not one of {ROWS_MODES}"
        )
    for extension in reporter.extensions:
        if not extension.startswith(".") or extension != extension.lower():
            raise ValueError(
                f"report format {name!r}: extension {extension!r} must be lower case and start "
                "with a dot"
            )
        taken = next((r.name for r in _TABLE.values() if extension in r.extensions), None)
        if taken is not None:
            raise ValueError(f"report format {name!r}: extension {extension!r} names {taken!r}")
    _TABLE[name] = reporter


def unregister_reporter(name: str) -> Reporter:
    """Remove a report format from `REPORT_FORMATS` and return it.

    Raises:
        KeyError: when no format has that name.
    """
    return _TABLE.pop(name)


def format_named_by(path: str) -> str | None:
    """The report format a file's extension names, None when none does.

    An extension of one dot is the part after the name's last dot (`os.path.splitext`: a
    file named only `.json` has none); one of several dots names the format when the path ends
    with it, and wins over the last dot's.

    Example:
        >>> format_named_by("out/report.XML"), format_named_by("events.otel.jsonl")
        ('junit', 'otel')
        >>> format_named_by("results.jsonl"), format_named_by("notes.md")
        ('json', None)
    """
    lower = path.lower()
    last = os.path.splitext(lower)[1]
    named = _named_by(lower, last)
    if named is None and last:  # a format of a plugin, perhaps: its entry point named so
        plugins.find(plugins.REPORTS, last[1:], lambda: _named_by(lower, last) is not None)
        named = _named_by(lower, last)
    return named


def _named_by(lower: str, last: str) -> str | None:
    """The registered format the lower-case path `lower` (of last extension `last`) names."""
    found: tuple[int, str] | None = None
    for reporter in _TABLE.values():
        for extension in reporter.extensions:
            named = lower.endswith(extension) if extension.count(".") > 1 else extension == last
            if named and (found is None or len(extension) > found[0]):
                found = (len(extension), reporter.name)
    return None if found is None else found[1]


def _install(name: str, value: object) -> None:
    if any(reporter is value for reporter in _TABLE.values()):
        return  # registered by its module when imported
    register_reporter(value)  # type: ignore[arg-type]  # checked there


def render(
    outcome: Outcome, subject: object, reporters: Sequence[Reporter], options: ReportOptions
) -> dict[str, str]:
    """What each of `reporters` writes of one case outcome, by key (`Reporter.render`)."""
    rendered: dict[str, str] = {}
    for reporter in reporters:
        rendered.update(reporter.render(outcome, subject, options))
    return rendered


_BUILT_IN: tuple[Reporter, ...] = (TEXT, JSON, JUNIT, HTML, OTEL)
"""The formats chatassert writes, one line each, in the order `--format` lists them."""

for _reporter in _BUILT_IN:
    register_reporter(_reporter)

plugins.installer(plugins.REPORTS, _install)
