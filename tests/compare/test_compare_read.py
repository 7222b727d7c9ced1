"""`chatassert.compare.read_run`: a JSON report of check and a `--results` directory read back,
and every bad input refused with its file and line and what to do."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from compare_helpers import BASE_LINES, write_runs

from chatassert.compare import CompareError, compare, read_run
from chatassert.integrations.ray import ReadStamp, ResultsDir
from chatassert.records import Checker
from chatassert.specs import load_suite


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_runs(tmp_path_factory.mktemp("read"))


def _refused(path: Path) -> str:
    with pytest.raises(CompareError) as caught:
        read_run(path)
    return str(caught.value)


def test_a_report_reads_back_with_each_row_at_its_line(runs: tuple[Path, Path]) -> None:
    base, _ = runs
    run = read_run(base)
    assert run.path == str(base)
    assert run.suites == ("suite",)
    assert [row.kind for row in run.rows] == ["case"] * 4
    assert run.places == tuple(f"{base}:{n}" for n in range(1, 5))
    greet = run.rows[1]
    assert (greet.case, greet.subject_id, greet.status) == ("greets the user", "greet", "failed")
    assert greet.assertions == (("welcomes", "failed"), ("no internal errors", "passed"))
    assert read_run(str(base)) == run  # a str or a path


def test_a_report_cut_short_is_refused_at_its_last_line(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    lines = runs[0].read_text(encoding="utf-8").splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # the summary line gone
    assert _refused(cut).startswith(f"{cut}:4: the report is cut short: it has no summary line")
    # a line cut in the middle is not a line of a report
    cut.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40] + "\n", encoding="utf-8")
    message = _refused(cut)
    assert message.startswith(f"{cut} is not a JSON report of check")
    assert f"{cut}:3: the line is not JSON" in message


def test_an_interrupted_run_and_two_joined_reports_are_refused(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    lines = runs[0].read_text(encoding="utf-8").splitlines()
    summary = json.loads(lines[-1])
    summary["summary"]["interrupted"] = True
    stopped = tmp_path / "stopped.jsonl"
    stopped.write_text("\n".join([*lines[:-1], json.dumps(summary)]) + "\n", encoding="utf-8")
    assert _refused(stopped).startswith(f"{stopped}:5: the run was interrupted")
    joined = tmp_path / "joined.jsonl"
    joined.write_text("\n".join(lines + lines) + "\n", encoding="utf-8")
    assert _refused(joined).startswith(f"{joined}:6: a line after the summary line (line 5)")


def test_a_line_that_is_not_a_report_line_is_named(runs: tuple[Path, Path], tmp_path: Path) -> None:
    lines = runs[0].read_text(encoding="utf-8").splitlines()
    odd = tmp_path / "odd.jsonl"
    odd.write_text("\n".join([lines[0], '{"hello": 1}', *lines[1:]]) + "\n", encoding="utf-8")
    assert f"{odd}:2: the line has none of 'result'" in _refused(odd)
    html = tmp_path / "report.html"
    html.write_text("<!DOCTYPE html><html></html>\n", encoding="utf-8")
    assert f"{html}:1: the line is not JSON" in _refused(html)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    assert _refused(empty).startswith(f"{empty}:1: the file is empty")
    assert _refused(tmp_path / "missing.jsonl").startswith(f"cannot read {tmp_path}/missing.jsonl")


def test_a_case_key_twice_is_refused_naming_both_lines(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    lines = runs[0].read_text(encoding="utf-8").splitlines()
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join([lines[0], *lines]) + "\n", encoding="utf-8")
    assert _refused(twice).startswith(
        f"{twice}:2: case 'refund quickly' of suite 'suite' is checked against subject "
        f"'refund' a second time (first at {twice}:1)"
    )


def _results_dir(where: Path, lines: list[str]) -> Path:
    """A --results directory holding the rows of `lines` checked as the log `logs/a.jsonl`."""
    checker = Checker([load_suite(where / "suite.yaml")])
    rows = [
        row
        for n, line in enumerate(lines, 1)
        for row in checker.check_line(line, "logs/a.jsonl", n)
    ]
    data = ("\n".join(lines) + "\n").encode()
    stamp = ReadStamp(len(data), hashlib.blake2b(data, digest_size=32).hexdigest())
    results = where / "results"
    ResultsDir(results).save("logs/a.jsonl", [r.to_row() for r in rows], len(lines), stamp)
    return results


def test_a_results_directory_reads_back_and_compares_with_a_report(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    base, new = runs
    (tmp_path / "suite.yaml").write_text((base.parent / "suite.yaml").read_text())
    results = _results_dir(tmp_path, BASE_LINES)
    run = read_run(results)
    (file,) = results.iterdir()
    assert run.places == tuple(f"{file}:{n}" for n in range(2, 6))  # the header is line 1
    assert [r.subject_id for r in run.rows] == ["refund", "greet", "invoice", "cancel"]
    from_dir = compare(run, read_run(new))
    from_report = compare(read_run(base), read_run(new))
    assert from_dir.assertions == from_report.assertions
    assert [(f.key, f.assertion, f.change) for f in from_dir.flips] == [
        (f.key, f.assertion, f.change) for f in from_report.flips
    ]


def test_a_results_file_that_does_not_validate_is_refused_at_its_line(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    (tmp_path / "suite.yaml").write_text((runs[0].parent / "suite.yaml").read_text())
    results = _results_dir(tmp_path, BASE_LINES)
    (file,) = results.iterdir()
    lines = file.read_text().splitlines()
    row = json.loads(lines[2])
    row["status"] = "great"
    file.write_text("\n".join([*lines[:2], json.dumps(row), *lines[3:]]) + "\n")
    message = _refused(results)
    assert message.startswith(f"{file}:3: row 2 has the status 'great'")
    file.write_text("not a header\n")
    assert _refused(results).startswith(f"{file}:1: not a results file of check")
    file.unlink()
    assert _refused(results).startswith(f"{results}: no results files (*.rows.jsonl)")
