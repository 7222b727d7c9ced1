"""JUnit XML: a `testsuite` per suite, a `testcase` per case and checked conversation.

Test cases are rendered as they are produced and spooled to a temporary file per suite, so the
report's memory stays bounded; the counts the `testsuite` element needs are written at the end.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from chatassert._result import Result, Status, shorten

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from chatassert._rows import Row
    from chatassert.reporting._formats import ReportOptions, Writable
    from chatassert.reporting._summary import Outcome, Summary

__all__ = [
    "INVALID_XML",
    "JUNIT",
    "JUnitWriter",
    "flaky_only",
    "junit_status",
    "relative_to_cwd",
    "render_junit_case",
]

INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""The characters XML 1.0 cannot hold, lone surrogates (which no UTF-8 file can hold) among
them: what the JUnit and HTML reports replace with U+FFFD."""


# what `xml.sax.saxutils.escape` and `quoteattr` write, without importing them: the module
# imports `urllib.request` (and with it `http.client`, `email`, `ssl`), a fifth of the start-up
# of a command that writes no JUnit report


def _text(value: str) -> str:
    value = INVALID_XML.sub("\ufffd", value)
    return value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def _attr(value: str) -> str:
    data = _text(value).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in data:
        return f'"{data}"'
    if "'" not in data:
        return f"'{data}'"
    return '"' + data.replace('"', "&quot;") + '"'


def relative_to_cwd(where: str) -> str:
    """`where` (`path` or `path:line`) with the path relative to the working directory when
    it is below it, so CI shows the same test names on every machine.

    Example:
        >>> import os
        >>> relative_to_cwd(os.path.join(os.getcwd(), "logs", "a.jsonl") + ":3")
        'logs/a.jsonl:3'
        >>> relative_to_cwd("s3://bucket/a.jsonl:3")
        's3://bucket/a.jsonl:3'
    """
    path, colon, line = where.rpartition(":")
    if not (colon and line.isdigit()):
        path, colon, line = where, "", ""
    if not path or not os.path.isabs(path) or path.startswith("-"):
        return where
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return where
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return where
    return relative + colon + line


def _properties(
    cost: Mapping[str, Any] | None, indent: str, more: Mapping[str, str | None] | None = None
) -> str:
    """A `<properties>` element with what judging cost (`judge.requests`, ...) and the
    properties `more` gives (those that are not None), or nothing."""
    pairs = [("judge." + key, value) for key, value in (cost or {}).items()]
    pairs += list((more or {}).items())
    rows = "".join(
        f"{indent}  <property name={_attr(key)} value={_attr(str(value))} />\n"
        for key, value in pairs
        if value is not None
    )
    return f"{indent}<properties>\n{rows}{indent}</properties>\n" if rows else ""


def flaky_only(result: Result) -> bool:
    """Whether a case result holds a flaky `repeat` and nothing failed or errored outside one:
    its outcome is the flaky verdicts' (passed, or failed by them alone)."""
    flaky = False
    for ancestors, node in result.walk():
        if node.name == "repeat" and node.details.get("stability") == "flaky":
            flaky = True
        if (
            node.status in (Status.FAILED, Status.ERROR)
            and not node.children
            and not any(
                a.name == "repeat" and a.details.get("stability") == "flaky"
                for a in (*ancestors, node)
            )
        ):
            return False
    return flaky


def junit_status(result: Result, flaky: str = "skip") -> str:
    """The status a case's `<testcase>` reports: its own, or for a case only flaky verdicts
    decide (`flaky_only`), `skipped` (`flaky="skip"`) or `failed` (`flaky="fail"`)."""
    if result.status in (Status.PASSED, Status.FAILED) and flaky_only(result):
        return "failed" if flaky == "fail" else "skipped"
    return result.status.value


def render_junit_case(outcome: Outcome, *, verbose: bool = False, flaky: str = "skip") -> str:
    """Render one outcome as a `<testcase>` element (with `failure`, `error` or `skipped`).

    A case whose outcome only flaky repeated verdicts decide (see `flaky_only`) is `<skipped>`
    with its result tree as the evidence, or a `<failure>` with `flaky="fail"`. What judging
    the case cost is written as `<properties>` (`judge.requests`, `judge.tokens_in`, ...).

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.reporting import Outcome
        >>> xml = render_junit_case(Outcome("booking", "greets",
        ...                                 Contains("<b>").check("plain"), "log:1"))
        >>> "<failure" in xml and "&lt;b&gt;" in xml and "<b>" not in xml
        True
    """
    result = outcome.result
    where = relative_to_cwd(outcome.source) if outcome.source else outcome.subject_id or "?"
    name = f"{outcome.case} [{where}]"
    head = (
        f"    <testcase classname={_attr(outcome.suite)} name={_attr(name)} "
        f'time="{outcome.seconds:.6f}"'
    )
    shown = result.status is not Status.PASSED or outcome.match_note is not None
    match = {"matched_by": outcome.matched_by, "match_note": outcome.match_note} if shown else None
    props = _properties(outcome.cost, "      ", match)
    if result.status in (Status.PASSED, Status.FAILED) and flaky_only(result):
        body = result.render(verbose=True)
        message = _attr(shorten("flaky: " + result.reason, 500))
        if flaky == "fail":
            element = f'<failure message={message} type="flaky">{_text(body)}</failure>'
        else:
            element = f"<skipped message={message}>{_text(body)}</skipped>"
        return head + f">\n{props}      {element}\n    </testcase>\n"
    if result.status is Status.PASSED:
        return head + (f">\n{props}    </testcase>\n" if props else " />\n")
    if result.status is Status.SKIPPED:
        return (
            head + f">\n{props}      <skipped message={_attr(result.reason)} />\n    </testcase>\n"
        )
    tag = "failure" if result.status is Status.FAILED else "error"
    body = result.render(verbose=verbose)
    out = (
        head + f">\n{props}      <{tag} message={_attr(shorten(result.reason, 500))} "
        f"type={_attr(result.status.value)}>{_text(body)}</{tag}>\n"
    )
    if outcome.excerpt:
        out += f"      <system-out>{_text(outcome.excerpt)}</system-out>\n"
    return out + "    </testcase>\n"


class JUnitWriter:
    """Collects rendered test cases per suite and writes the JUnit XML document at the end."""

    def __init__(self) -> None:
        self._suites: dict[str, tuple[IO[str], dict[str, Any]]] = {}

    def add(
        self,
        suite: str,
        status: str,
        seconds: float,
        xml: str,
        cost: Mapping[str, Any] | None = None,
    ) -> None:
        """Spool one rendered `<testcase>` of `suite` (its status as the XML marks it: a
        flaky case's `skipped` or `failed`), adding what its judging cost to the suite's."""
        entry = self._suites.get(suite)
        if entry is None:
            spool: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
            entry = self._suites[suite] = (
                spool,
                {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0},
            )
        spool, counts = entry
        if cost:
            from chatassert._judging import JudgeCosts

            total = counts.setdefault("cost", JudgeCosts())
            total.add(cost)
        counts["tests"] += 1
        counts["time"] += seconds
        key = {"failed": "failures", "error": "errors", "skipped": "skipped"}.get(status)
        if key:
            counts[key] += 1
        spool.write(xml)

    def add_unreadable(self, where: str, error: str) -> None:
        """Record a log line that could not be read, as an erroring test case."""
        xml = (
            f'    <testcase classname="log" name={_attr(relative_to_cwd(where))} time="0">\n'
            f'      <error message={_attr(shorten(error, 500))} type="unreadable">'
            f"{_text(error)}</error>\n    </testcase>\n"
        )
        self.add("unreadable log lines", "error", 0.0, xml)

    def add_unmatched(self, where: str, suite: str, reason: str | None = None) -> None:
        """Record a subject that no case of `suite` matches, as an erroring test case, with
        `reason` saying why (`Suite.match`)."""
        if reason is None:
            reason = f"no case of {suite!r} matches this subject (name one in its 'case' field)"
        xml = (
            f'    <testcase classname="log" name={_attr(relative_to_cwd(where))} time="0">\n'
            f'      <error message={_attr(shorten(reason, 500))} type="unmatched">'
            f"{_text(reason)}</error>\n    </testcase>\n"
        )
        self.add("subjects without a matching case", "error", 0.0, xml)

    def add_run_error(self, name: str, message: str) -> None:
        """Record a fact about the whole run (interrupted, nothing read) as an erroring test case
        of the suite `run`, so a CI report never shows such a run as a pass."""
        xml = (
            f'    <testcase classname="run" name={_attr(name)} time="0">\n'
            f"      <error message={_attr(shorten(message, 500))} type={_attr(name)}>"
            f"{_text(message)}</error>\n    </testcase>\n"
        )
        self.add("run", "error", 0.0, xml)

    def write(self, out: SupportsWrite[str], name: str = "chatassert") -> None:
        """Write the whole document to `out` and release the spools."""
        totals = {
            k: sum(c[k] for _, c in self._suites.values())
            for k in ("tests", "failures", "errors", "skipped", "time")
        }
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write(
            f'<testsuites name={_attr(name)} tests="{totals["tests"]}" '
            f'failures="{totals["failures"]}" errors="{totals["errors"]}" '
            f'skipped="{totals["skipped"]}" time="{totals["time"]:.6f}">\n'
        )
        for suite, (spool, c) in self._suites.items():
            out.write(
                f'  <testsuite name={_attr(suite)} tests="{c["tests"]}" '
                f'failures="{c["failures"]}" errors="{c["errors"]}" '
                f'skipped="{c["skipped"]}" time="{c["time"]:.6f}">\n'
            )
            if "cost" in c:
                out.write(_properties(c["cost"].to_dict(), "    "))
            spool.seek(0)
            shutil.copyfileobj(spool, out)
            spool.close()
            out.write("  </testsuite>\n")
        out.write("</testsuites>\n")
        self._suites.clear()


class _JUnitReport:
    """A JUnit XML report: each row's `<testcase>` spooled, the document written at the end."""

    def __init__(self, out: Writable) -> None:
        self.out = out
        self.junit = JUnitWriter()

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Spool the row's test case: a case outcome as rendered, an unreadable or unmatched
        record as an erroring one."""
        kind = row.kind
        if kind == "case":
            self.junit.add(
                row.suite or "",
                rendered["junit_status"],
                row.duration,
                rendered["junit"],
                cost=row.cost,
            )
        elif kind == "unreadable":
            self.junit.add_unreadable(
                row.source, row.error if row.error is not None else "unreadable"
            )
        else:
            self.junit.add_unmatched(row.source, row.suite or "", row.error)

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Write the document, with a run error for a run that was interrupted or read
        nothing."""
        if summary.notice is not None:
            name = "interrupted" if summary.interrupted else "nothing checked"
            self.junit.add_run_error(name, summary.notice)
        if summary.gates:  # a testcase each, in a `gates` testsuite
            from chatassert.reporting._gate_reports import GATES_SUITE, junit_gate_case

            for gate in summary.gates:
                self.junit.add(
                    GATES_SUITE, gate.status.value, 0.0, junit_gate_case(gate, _attr, _text)
                )
        self.junit.write(self.out)


class _JUnit:
    """The JUnit XML report (`--format junit`): a `testsuite` per suite, a `testcase` per
    case outcome, erroring ones for unreadable and unmatched records."""

    name = "junit"
    extensions = (".xml",)
    description = "JUnit XML"
    rows = "spooled"
    excerpts = True
    needs_subject = False

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """The outcome's `<testcase>` (`render_junit_case`), and the status it marks
        (`junit_status`: a case only flaky verdicts decide is skipped or failed)."""
        return {
            "junit": render_junit_case(outcome, verbose=options.verbose, flaky=options.flaky),
            "junit_status": junit_status(outcome.result, options.flaky),
        }

    def open(self, out: Writable, options: ReportOptions) -> _JUnitReport:
        """Start a JUnit report to `out`."""
        return _JUnitReport(out)


JUNIT = _JUnit()
"""The JUnit XML report format."""
