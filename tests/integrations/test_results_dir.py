"""Results files and resume of `check --engine ray`, with its file tasks run in this process.

What a task read is stamped when it reads it (size, modification time, BLAKE2b of the bytes
read), so a log that changed after it was read, or grew, is checked again; a results file is
validated row by row and refused (one line says why) when it does not validate, so resume
gives the verdicts of a fresh run whatever the results directory holds. The same runs on Ray
are in test_ray.py.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chatassert.records import Checker, Row, inline_suite
from chatassert.specs import loads_suite
from optional_engines import optional_module

optional_module("pyarrow", "CHATASSERT_REQUIRE_RAY")

from resume_helpers import SPECS, Run, log_lines, run_files  # noqa: E402

from chatassert.integrations.ray import (  # noqa: E402 (pyarrow first)
    ReadStamp,
    ResultsDir,
    ResultsFileError,
    _record_number,
)


def _checker() -> Checker:
    return Checker([inline_suite(SPECS)])


def _write_logs(folder: Path) -> list[Path]:
    paths = [folder / "a.jsonl", folder / "b.jsonl", folder / "c.jsonl.gz"]
    for seed, path in enumerate(paths):
        lines = log_lines(seed, 30)
        lines[5:5] = ["", "   "]
        text = "".join(line + "\n" for line in lines).encode()
        path.write_bytes(gzip.compress(text) if path.suffix == ".gz" else text)
    return paths


@pytest.fixture
def logs(tmp_path: Path) -> list[Path]:
    """Three logs: two JSONL (one with blank lines), one gzipped."""
    return _write_logs(tmp_path)


@dataclass(frozen=True)
class Checked:
    """`logs` written once for a module's tests that only read them, the results directory of
    a run over them, and the run's verdicts without results (what any resume must give)."""

    logs: list[Path]
    results: Path
    fresh: Run


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    folder = tmp_path_factory.mktemp("checked")
    paths = _write_logs(folder)
    run_files(paths, _checker(), folder / "results")
    return Checked(paths, folder / "results", run_files(paths, _checker()))


def _results_file(results: Path, log: Path) -> Path:
    return ResultsDir(results).file_for(str(log))


# -- what was read, taken when it was read ----------------------------------------------------


def test_a_resumed_run_checks_nothing_of_unchanged_logs(logs: list[Path], tmp_path: Path) -> None:
    results = tmp_path / "results"
    fresh = run_files(logs, _checker())
    first = run_files(logs, _checker(), results)
    assert first.verdicts == fresh.verdicts
    assert first.records == fresh.records == 3 * 30
    written = {p: p.stat().st_mtime_ns for p in results.iterdir()}
    again = run_files(logs, _checker(), results, resume=True)
    assert again.verdicts == fresh.verdicts
    assert again.records == fresh.records
    assert (again.checked, again.said) == ([], [])
    assert {p: p.stat().st_mtime_ns for p in results.iterdir()} == written  # not rewritten


@pytest.mark.parametrize("change", ["same size", "same size and time", "appended", "shorter"])
def test_a_log_changed_after_its_task_read_it_is_checked_again(
    logs: list[Path], tmp_path: Path, change: str
) -> None:
    """The stamp is what the task read: a log that changed between the task's read and the
    saving of its results (or at any time after) is checked whole on resume."""
    results = tmp_path / "results"
    log = logs[0]
    run_files(logs, _checker(), results)
    before = log.stat()
    old = log.read_bytes()
    if change.startswith("same size"):
        new = old.replace(b"refund", b"refuse")  # a record that passed now fails
        assert len(new) == len(old)
        assert new != old
    elif change == "appended":
        new = old + b'{"id": "late", "turns": [{"input": "q", "text": "sorry"}]}\n'
    else:
        new = old[: len(old) // 2]
    log.write_bytes(new)
    if change == "same size and time":
        os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
    fresh = run_files(logs, _checker())
    resumed = run_files(logs, _checker(), results, resume=True)
    assert resumed.verdicts == fresh.verdicts
    assert resumed.records == fresh.records
    assert resumed.checked == [str(log)]
    assert resumed.said == [
        f"chatassert check: {log} changed since its results were written: checking it again"
    ]
    again = run_files(logs, _checker(), results, resume=True)  # the new results stand
    assert (again.verdicts, again.checked) == (fresh.verdicts, [])


def test_the_stamp_is_of_the_bytes_the_task_read_not_of_the_file_when_saved(
    logs: list[Path], tmp_path: Path
) -> None:
    """A log rewritten after its task read it and before its results are saved: the results
    say what was read, so resume checks the new bytes (the stamp taken when saving made a
    resumed run report the old verdicts)."""
    from chatassert.integrations.ray import CheckerSpec, _CheckFiles, _resumed

    results = tmp_path / "results"
    log = logs[0]
    new = log.read_bytes().replace(b"refund", b"refuse")
    spec = CheckerSpec.of(_checker())

    def run(fn: _CheckFiles, inputs: list[str]) -> Any:
        for index, name in enumerate(inputs):
            items = fn.file(name, index)
            if name == str(log):
                log.write_bytes(new)  # read, not yet saved
            yield from items

    items = list(
        _resumed(
            [str(p) for p in logs],
            lambda plans: _CheckFiles(spec, None, plans=plans),
            run,
            ResultsDir(results),
            resume=False,
            rejudge_errors=False,
            say=print,
        )
    )
    assert len(items) > 90
    saved = ResultsDir(results).load(str(log))
    assert saved is not None
    assert saved.read.size == len(new)  # the same size: only the hash tells them apart
    import hashlib

    assert saved.read.blake2b != hashlib.blake2b(new, digest_size=32).hexdigest()
    fresh = run_files(logs, _checker())
    resumed = run_files(logs, _checker(), results, resume=True)
    assert resumed.verdicts == fresh.verdicts
    assert resumed.checked == [str(log)]


def test_an_unreadable_log_keeps_no_results(tmp_path: Path) -> None:
    results = tmp_path / "results"
    missing = tmp_path / "gone.jsonl"
    done = run_files([missing], _checker(), results)
    assert [v[0] for v in done.verdicts] == ["unreadable"]
    assert "cannot read the log" in done.verdicts[0][-1]
    assert not results.exists()  # nothing read: nothing that could be reused
    missing.write_text("", encoding="utf-8")  # an empty log is not "the log that was missing"
    assert run_files([missing], _checker(), results, resume=True).verdicts == []


def test_a_record_with_a_lone_surrogate_is_kept_and_reused(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(
        '{"id": "x\\ud800", "turns": [{"input": "q", "text": "refund \\udfff sorry"}]}\n'
        '{"id": "\\u2028", "turns": [{"input": "q", "text": "refund done"}]}\n',
        encoding="utf-8",
    )
    results = tmp_path / "results"
    fresh = run_files([log], _checker())
    assert [v[5] for v in fresh.verdicts][::3] == ["x\ud800", "\u2028"]
    assert run_files([log], _checker(), results).verdicts == fresh.verdicts
    assert _results_file(results, log).read_bytes().isascii()
    resumed = run_files([log], _checker(), results, resume=True)
    assert (resumed.verdicts, resumed.checked) == (fresh.verdicts, [])


# -- results files validated row by row ---------------------------------------------------------


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def _header(path: Path) -> dict[str, Any]:
    header: dict[str, Any] = json.loads(_lines(path)[0])
    return header


def _write(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _with_header(path: Path, **changes: Any) -> None:
    lines = _lines(path)
    header = {**json.loads(lines[0]), **changes}
    _write(path, [json.dumps(header).encode(), *lines[1:]])


def _with_row(path: Path, number: int, row: Any) -> None:
    lines = _lines(path)
    lines[number] = row if isinstance(row, bytes) else json.dumps(row).encode()
    _write(path, lines)


def _row(path: Path, number: int) -> dict[str, Any]:
    row: dict[str, Any] = json.loads(_lines(path)[number])
    return row


CORRUPTIONS: dict[str, tuple[Any, str]] = {
    "a row that is a list": (lambda p: _with_row(p, 2, [1, 2]), "row 2 is not a JSON object"),
    "a row without its columns": (
        lambda p: _with_row(p, 3, {"kind": "case", "source": "x"}),
        "row 3 is not a result row",
    ),
    "a row whose status is a number": (
        lambda p: _with_row(p, 1, {**_row(p, 1), "status": 5}),
        "row 1 has the status 5",
    ),
    "a row whose tags are not JSON": (
        lambda p: _with_row(p, 1, {**_row(p, 1), "tags": "[oops"}),
        "row 1 has a JSON column that is not JSON text",
    ),
    "a row of another log": (
        lambda p: _with_row(p, 1, {**_row(p, 1), "source": "other.jsonl:1"}),
        "row 1 is located 'other.jsonl:1'",
    ),
    "a row past the lines read": (
        lambda p: _with_row(p, 1, {**_row(p, 1), "source": _row(p, 1)["source"] + "999"}),
        "past the 32 lines read",
    ),
    "a row with a line number of 5,000 digits": (
        lambda p: _with_row(p, 1, {**_row(p, 1), "source": _row(p, 1)["source"] + "9" * 5000}),
        "which names no record",
    ),
    "a row whose result tree has children that are not a list": (
        lambda p: _with_row(
            p, 1, {**_row(p, 1), "result": '{"status": "passed", "name": "case", "children": 5}'}
        ),
        "row 1 has a result tree that is not one: result.children is the number 5",
    ),
    "a row nested too deeply": (
        lambda p: _with_row(p, 1, b"[" * 100_000 + b"]" * 100_000),
        "row 1 is nested too deeply",
    ),
    "a row that is not UTF-8": (
        lambda p: _with_row(p, 4, b'{"kind": "\xff"}'),
        "row 4 is not JSON",
    ),
    "a duration that is not finite": (
        lambda p: _with_row(p, 1, json.dumps({**_row(p, 1), "duration": 1e999}).encode()),
        "row 1 has a duration that is not a finite number",
    ),
    "one row repeated in place of another": (
        lambda p: _with_row(p, 5, _lines(p)[4]),
        "row 5 repeats row 4 (its digest differs)",
    ),
    "two rows swapped": (
        lambda p: _write(p, [*_lines(p)[:1], _lines(p)[2], _lines(p)[1], *_lines(p)[3:]]),
        "its rows are not those it was written with (its digest differs)",
    ),
    "a verdict changed": (
        lambda p: _with_row(
            p,
            2,
            {**_row(p, 2), "status": "failed" if _row(p, 2)["status"] == "passed" else "passed"},
        ),
        "its digest differs",
    ),
    "a row removed and the count with it": (
        lambda p: (_write(p, _lines(p)[:-1]), _with_header(p, rows=_header(p)["rows"] - 1)),
        "its digest differs",
    ),
    "a header counting -5 records": (lambda p: _with_header(p, records=-5), "records is -5"),
    "a header counting records as text": (
        lambda p: _with_header(p, records="30"),
        "its header's records is '30'",
    ),
    "a header counting true rows": (lambda p: _with_header(p, rows=True), "rows is True"),
    "a header counting more records than lines": (
        lambda p: _with_header(p, records=40),
        "counts 40 records in 32 lines",
    ),
    "a header counting other rows": (
        lambda p: _with_header(p, rows=_header(p)["rows"] + 1),
        "rows, and it holds",
    ),
    "a header without its hash": (
        lambda p: _with_header(p, blake2b="abc"),
        "its header's blake2b is not a BLAKE2b hash",
    ),
    "a header of an unknown key": (lambda p: _with_header(p, extra=1), "its header has the keys"),
    "a header of another log": (lambda p: _with_header(p, input="x.jsonl"), "'x.jsonl'"),
    "a header that is a list": (lambda p: _with_row(p, 0, [1]), "not a JSON object"),
    "a header of version 1": (
        lambda p: _with_header(p, chatassert_results=1),
        "written by an older chatassert, without a content hash",
    ),
    "a header of version true": (
        lambda p: _with_header(p, chatassert_results=True),
        "not a results file of version 3",
    ),
    "a file cut in a row": (
        lambda p: p.write_bytes(p.read_bytes()[:-30]),
        "it is cut short (its last line does not end)",
    ),
    "an empty file": (lambda p: p.write_bytes(b""), "it is cut short"),
    "a directory": (lambda p: (p.unlink(), p.mkdir()), "cannot be read"),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_a_results_file_that_does_not_validate_is_refused_and_its_log_checked_again(
    checked: Checked, tmp_path: Path, corruption: str
) -> None:
    results = tmp_path / "results"
    logs, log = checked.logs, checked.logs[0]
    shutil.copytree(checked.results, results)  # the results of a run over the logs
    target = _results_file(results, log)
    corrupt, reason = CORRUPTIONS[corruption]
    corrupt(target)
    with pytest.raises(ResultsFileError) as caught:
        ResultsDir(results).load(str(log))
    assert caught.value.path == str(target)
    assert reason in caught.value.reason
    fresh = checked.fresh
    resumed = run_files(logs, _checker(), results, resume=True, rejudge_errors=True)
    assert resumed.verdicts == fresh.verdicts
    assert resumed.records == fresh.records
    assert resumed.checked == [str(log)]
    assert resumed.said[0] == f"chatassert check: {caught.value}: checking {log} again"
    if corruption == "a directory":  # in the way of the new results: said, and the run goes on
        assert resumed.said[1].startswith(f"chatassert check: cannot write the results of {log}")
    else:
        assert len(resumed.said) == 1
        assert ResultsDir(results).load(str(log)) is not None  # written anew


def test_a_results_file_round_trips_and_leaves_no_temporary(tmp_path: Path) -> None:
    log = tmp_path / "x.jsonl"
    log.write_text('{"id": "a"}\n', encoding="utf-8")
    results = ResultsDir(tmp_path / "results")
    rows = [Row("unreadable", f"{log}:1", error="e \ud800").to_row()]
    read = ReadStamp(12, "0" * 64, 7)
    target = results.save(str(log), rows, 1, read)
    saved = results.load(str(log))
    assert saved is not None
    assert (saved.rows, saved.records, saved.lines, saved.read) == (rows, 1, 1, read)
    assert [p.name for p in target.parent.iterdir()] == [target.name]
    assert results.load(str(tmp_path / "other.jsonl")) is None  # none: not an error
    assert results.file_for("./x.jsonl") != results.file_for("x.jsonl")  # rows say the name


def test_record_numbers_of_any_length_are_read_or_refused() -> None:
    assert _record_number({"source": "a.jsonl:12#sample-3"}) == 12
    assert _record_number({"source": "p.parquet#row=0"}) == 1
    assert _record_number({"source": "a.jsonl:" + "9" * 5000}) is None
    assert _record_number({"source": "a:3.jsonl"}) is None


# -- rejudging errors ---------------------------------------------------------------------------


def _errored(results: Path, log: Path, numbers: set[int]) -> None:
    """Rewrite `log`'s results as if the judge had failed the case rows of these records."""
    store = ResultsDir(results)
    saved = store.load(str(log))
    assert saved is not None
    rows = [
        {**r, "status": "error"} if r["kind"] == "case" and _record_number(r) in numbers else r
        for r in saved.rows
    ]
    store.save(str(log), rows, saved.records, saved.read, lines=saved.lines)


def test_rejudge_errors_checks_only_the_errored_records_of_an_unchanged_log(
    logs: list[Path], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    fresh = run_files(logs, _checker(), results)
    _errored(results, logs[1], {3, 9})
    resumed = run_files(logs, _checker(), results, resume=True, rejudge_errors=True)
    assert resumed.verdicts == fresh.verdicts
    assert resumed.checked == [str(logs[1])]
    assert resumed.said == []
    again = run_files(logs, _checker(), results, resume=True, rejudge_errors=True)
    assert (again.verdicts, again.checked) == (fresh.verdicts, [])


def test_rejudge_errors_of_a_changed_log_checks_it_whole(logs: list[Path], tmp_path: Path) -> None:
    results = tmp_path / "results"
    run_files(logs, _checker(), results)
    _errored(results, logs[0], {3})
    logs[0].write_bytes(logs[0].read_bytes().replace(b"refund", b"refuse"))
    fresh = run_files(logs, _checker())
    resumed = run_files(logs, _checker(), results, resume=True, rejudge_errors=True)
    assert resumed.verdicts == fresh.verdicts
    assert resumed.checked == [str(logs[0])]


STEPS = """\
- id: T1
  expect: {status: success}
- id: T2
  multi_step:
    - {step: 1, expect: {status: success}}
    - {step: 2, expect: {status: success}}
"""


def test_rejudge_errors_of_multi_step_runs_checks_their_log_whole(tmp_path: Path) -> None:
    """A run's row is located at its first step's line: checking that line alone would make
    it an incomplete run, so its log is checked whole."""
    log = tmp_path / "api.jsonl"
    lines = [
        {"id": "T2", "step": 1, "response": {"status": "success"}},
        {"id": "T1", "response": {"status": "success"}},
        {"id": "T2", "step": 2, "response": {"status": "success"}},
    ]
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    checker = Checker([loads_suite(STEPS, filename="api.yaml")])
    results = tmp_path / "results"
    fresh = run_files([log], checker, results)
    assert [v[4] for v in fresh.verdicts] == ["passed", "passed"]
    assert [v[1] for v in fresh.verdicts] == [f"{log}:2", f"{log}:1"]
    _errored(results, log, {1})
    resumed = run_files([log], checker, results, resume=True, rejudge_errors=True)
    assert resumed.verdicts == fresh.verdicts
    assert resumed.checked == [str(log)]


def test_a_parquet_log_that_cannot_be_read_is_one_unreadable_row(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    results = tmp_path / "results"
    done = run_files([bad], _checker(), results)
    assert [(v[0], v[1]) for v in done.verdicts] == [("unreadable", str(bad))]
    assert "cannot read the Parquet file" in str(done.verdicts[0][-1])
    resumed = run_files([bad], _checker(), results, resume=True)
    assert (resumed.verdicts, resumed.checked) == (done.verdicts, [])


def test_rows_travel_from_a_task_as_they_are_given() -> None:
    """A task's table gives back each row and end as given: Arrow columns, and ASCII JSON
    for a row with a string Arrow refuses (a lone surrogate a record escaped)."""
    from chatassert.integrations.ray import _end, _received, _sent

    plain = Row("case", "a.jsonl:1", "s", "c", "passed", excerpt="caf\u00e9").to_row()
    odd = Row("unreadable", "a.jsonl:2", error="bad \ud800 here").to_row()
    items = [plain, odd, _end(0, "all", 2, 2, ReadStamp(5, "0" * 64, None)), plain]
    assert list(_received(_sent(items))) == items
    assert list(_received(_sent(items[:1]))) == items[:1]


def test_a_directory_uri_stands_for_the_logs_in_it(tmp_path: Path) -> None:
    import io

    from chatassert._cli._ray import _logs

    (tmp_path / "sub").mkdir()
    for name in ("b.jsonl", "a.jsonl.gz", "c.parquet", ".hidden.jsonl", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "sub" / "d.jsonl").write_bytes(b"")
    err = io.StringIO()
    base = tmp_path.as_uri()
    assert _logs([base + "/", base + "/b.jsonl"], err) == [
        f"{base}/a.jsonl.gz",
        f"{base}/b.jsonl",
        f"{base}/c.parquet",
        f"{base}/b.jsonl",
    ]
    assert _logs([base + "/nope/"], err) is None
    said = f"cannot read log {base}/nope/: no such file or directory"
    assert err.getvalue().splitlines()[-1] == said
    assert _logs([base + "/sub/"], err) == [f"{base}/sub/d.jsonl"]
    (tmp_path / "sub" / "d.jsonl").unlink()
    assert _logs([base + "/sub/"], err) is None
    assert err.getvalue().splitlines()[-1] == f"cannot read log {base}/sub/: no log in it"
