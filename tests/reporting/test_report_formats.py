"""The table of report formats: one reporter a format, read by the writer, the checker and the
command line; a format registered there is written by `chatassert check` with nothing else to
change."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from chatassert._cli import main
from chatassert.records import Checker, Row, inline_suite
from chatassert.reporting import (
    REPORT_FORMATS,
    Outcome,
    ReportOptions,
    ReportWriter,
    Summary,
    format_named_by,
    register_reporter,
    unregister_reporter,
)

GOOD = '{"turns": [{"input": "hello?", "text": "hi there"}]}\n'
BAD = '{"turns": [{"input": "hello?", "text": "go away"}]}\n'


class _TallyReport:
    def __init__(self, out: Any) -> None:
        self.out = out

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        if row.kind == "case":
            self.out.write(rendered["tally"])
        else:
            self.out.write(f"{row.kind} {row.source}\n")

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        # a streamed format's rows may be written by workers: its end reads the summary only
        self.out.write(f"{summary.total} cases, {summary.counts['failed']} failed\n")


class _Tally:
    """A throwaway format: a line per case, its status and case name."""

    name = "tally"
    extensions = (".tally",)
    description = "a line per case"
    rows = "streamed"
    excerpts = False
    needs_subject = False

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        return {"tally": f"{outcome.result.status.value} {outcome.case}\n"}

    def open(self, out: Any, options: ReportOptions) -> _TallyReport:
        return _TallyReport(out)


@pytest.fixture
def tally() -> Iterator[_Tally]:
    reporter = _Tally()
    register_reporter(reporter)
    try:
        yield reporter
    finally:
        unregister_reporter(reporter.name)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text(GOOD + BAD + "oops\n", encoding="utf-8")
    return path


def _check(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["check", "--no-progress", "--assert", "{type: contains, value: hi}", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_registered_format_is_offered_inferred_and_listed_by_check(
    tally: _Tally, log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = (
        f"passed contains 'hi'\nfailed contains 'hi'\nunreadable {log}:3\n2 cases, 1 failed\n"
    )
    code, out, _ = _check(str(log), "--format", "tally", capsys=capsys)
    assert (code, out) == (1, expected)

    report = tmp_path / "run.tally"
    code, out, _ = _check(str(log), "-o", str(report), capsys=capsys)
    assert (code, out, report.read_text(encoding="utf-8")) == (1, "", expected)

    with pytest.raises(SystemExit) as exit_:
        main(["check", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps it
    assert exit_.value.code == 0
    assert "or tally (a line per case)" in help_text
    assert ".tally: tally" in help_text


def test_a_registered_format_folds_in_workers_as_a_streamed_one(
    tally: _Tally, log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "one.tally", tmp_path / "two.tally"
    assert _check(str(log), "-o", str(one), capsys=capsys)[0] == 1
    assert _check(str(log), "-o", str(two), "--jobs", "2", capsys=capsys)[0] == 1
    assert one.read_text(encoding="utf-8") == two.read_text(encoding="utf-8")


def test_an_unregistered_format_is_gone_from_check(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    register_reporter(_Tally())
    unregister_reporter("tally")
    with pytest.raises(SystemExit) as exit_:
        _check(str(log), "--format", "tally", capsys=capsys)
    assert exit_.value.code == 2
    assert "tally" not in REPORT_FORMATS
    assert format_named_by("run.tally") is None


def test_the_built_in_formats_in_the_order_check_lists_them() -> None:
    table = {
        name: (r.rows, r.excerpts, r.needs_subject, r.extensions)
        for name, r in REPORT_FORMATS.items()
    }
    assert table == {
        "text": ("summary", False, False, (".txt",)),
        "json": ("streamed", False, False, (".json", ".jsonl", ".ndjson")),
        "junit": ("spooled", True, False, (".xml",)),
        "html": ("spooled", True, False, (".html", ".htm")),
        "otel": ("streamed", False, True, (".otel.jsonl", ".otel.json")),
    }
    assert list(table) == ["text", "json", "junit", "html", "otel"]


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("report.XML", "junit"),
        ("out/r.htm", "html"),
        ("r.ndjson", "json"),
        ("notes.txt", "text"),
        ("events.otel.jsonl", "otel"),
        ("EVENTS.OTEL.JSON", "otel"),
        (".otel.jsonl", "otel"),  # the whole name is the extension: as before, otel
        (".json", None),  # a file named only `.json` has no extension (os.path.splitext)
        ("dir.json/report", None),
        ("report.md", None),
    ],
)
def test_an_output_file_names_its_format_by_its_longest_extension(
    path: str, named: str | None
) -> None:
    assert format_named_by(path) == named


def test_registering_refuses_a_taken_name_a_taken_extension_and_an_odd_one() -> None:
    class Clash(_Tally):
        name = "json"

    class Steals(_Tally):
        extensions = (".xml",)

    class Shouts(_Tally):
        extensions = (".TALLY",)

    class Drifts(_Tally):
        rows = "sometimes"

    for reporter, said in [
        (Clash(), "'json' is taken"),
        (Steals(), "'.xml' names 'junit'"),
        (Shouts(), "must be lower case"),
        (Drifts(), "rows is 'sometimes'"),
    ]:
        with pytest.raises(ValueError, match=said):
            register_reporter(reporter)
    assert "tally" not in REPORT_FORMATS


def test_a_checker_renders_a_registered_format_into_its_rows(tally: _Tally) -> None:
    checker = Checker([inline_suite(["{type: contains, value: hi}"])], formats=["tally", "text"])
    rows = checker.check_records([GOOD, BAD])
    assert [row.rendered for row in rows] == [
        {"tally": "passed contains 'hi'\n"},
        {"tally": "failed contains 'hi'\n"},
    ]


def test_the_writer_renders_from_the_tree_what_a_row_does_not_carry(tally: _Tally) -> None:
    rows = list(Checker([inline_suite(["{type: contains, value: hi}"])]).check_records([BAD]))
    out = io.StringIO()
    writer = ReportWriter({"tally": out})
    summary = Summary()
    for row in rows:
        summary.add_row(row)
        writer.add(row)
    writer.finish(summary)
    assert out.getvalue() == "failed contains 'hi'\n1 cases, 1 failed\n"


def test_the_writer_names_the_known_formats_when_given_another() -> None:
    with pytest.raises(ValueError, match=r"unknown report formats \['yaml'\]; known: \('text',"):
        ReportWriter({"yaml": io.StringIO()})


def test_rows_without_subjects_list_no_case_on_the_html_page_but_the_summary_examples() -> None:
    rows = list(
        Checker([inline_suite(["{type: contains, value: hi}"])]).check_records([GOOD, BAD, BAD])
    )
    pages = {}
    for subjects in (True, False):
        out = io.StringIO()
        writer = ReportWriter({"html": out}, subjects=subjects)
        summary = Summary(keep=1)
        for row in rows:
            summary.add_row(row)
            writer.add(row)
        writer.finish(summary)
        data = out.getvalue().split('id="ca-data">')[1].split("</script>")[0]
        pages[subjects] = json.loads(data)["rows"]
    assert [row[1] for row in pages[True]] == ["p", "f", "f"]  # every case
    assert [row[1] for row in pages[False]] == ["f"]  # the one example the summary kept


def test_regate_keeps_a_stored_record_line_as_it_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an unreadable line's empty error and unknown keys, an unmatched line's key order:
    # the JSON report holds each line as read, JUnit and the text summary say its error
    report = tmp_path / "r.jsonl"
    report.write_text(
        '{"error": "", "unreadable": "log:3", "note": 1}\n'
        '{"suite": "s", "unmatched": "log:4"}\n'
        '{"summary": {"passed": 0, "failed": 0, "error": 0, "skipped": 0, "records": 2}}\n',
        encoding="utf-8",
    )
    again, xml = tmp_path / "again.jsonl", tmp_path / "again.xml"
    argv = ["regate", str(report), "--min-score", "x=0.5", "-o", str(again), "-o", str(xml)]
    assert main(argv) == 4  # no case was checked: nothing was (G17)
    capsys.readouterr()
    assert again.read_text(encoding="utf-8").splitlines()[:2] == [
        '{"error": "", "unreadable": "log:3", "note": 1}',
        '{"suite": "s", "unmatched": "log:4"}',
    ]
    text = xml.read_text(encoding="utf-8")
    assert '<error message="" type="unreadable"></error>' in text
    assert 'type="unmatched"' in text
