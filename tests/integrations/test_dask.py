"""The record API under Dask (docs/engines.md): the reports of a `dask.bag` run equal those of
`chatassert check` on the same logs.

Without Dask installed these tests skip, unless CHATASSERT_REQUIRE_DASK is set (as .ci/run
sets it), where a missing Dask fails them.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from chatassert.records import Checker, ReportWriter, Row, Summary
from chatassert.specs import load_suite
from cli_runs import without_durations
from optional_engines import optional_module

db = optional_module("dask.bag", "CHATASSERT_REQUIRE_DASK")

SRC = Path(__file__).resolve().parents[2] / "src"
SUITE = """\
test_cases:
  - name: mentions the refund
    tags: [refund]
    turns:
      - assertions:
          - {type: contains, value: refund}
          - {type: not_contains, value: really}
          - {type: not_contains, value: "No."}
"""
EXPECT = """\
- id: T1
  expect: {status: success}
- id: T2
  expect: {status: success, message_contains: booked}
- id: T3
  expect: {status: success}
- id: T4
  expect: {status: success}
"""
TEXTS = [
    "Your refund is on its way.",
    "No.",
    "A refund " + "really " * 12 + "long answer.",
    "We sent the refund.",
]


def _log(path: Path, count: int, seed: int) -> None:
    """`count` lines: conversations, with a few unreadable and blank lines among them."""
    rnd = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for i in range(count):
            roll = rnd.random()
            if roll < 0.05:
                f.write("{not json\n")
            elif roll < 0.08:
                f.write("\n")
            else:
                turn = {"input": "Refund?", "text": rnd.choice(TEXTS)}
                f.write(json.dumps({"id": f"{path.stem}-{i}", "turns": [turn]}) + "\n")


def _check_partition(lines: Any, suite_path: str) -> list[dict[str, Any]]:
    """docs/engines.md's task: one checker per partition (one file), rows as dicts."""
    checker = Checker([load_suite(suite_path)])
    summary, rows = Summary(records=0), []
    for number, (line, path) in enumerate(lines, 1):
        if not line.strip():
            continue
        summary.records = (summary.records or 0) + 1
        for row in checker.check_line(line, path, number):
            summary.add_row(row)
            rows.append(row.to_row())
    for row in checker.flush():
        summary.add_row(row)
        rows.append(row.to_row())
    return [{"summary": summary.to_dict(), "rows": rows}]


def _on_dask(suite: Path, logs: list[Path]) -> tuple[int, str]:
    """The Dask run of docs/engines.md on the threads scheduler: exit code, JSON report."""
    bag = db.read_text([str(p) for p in logs], include_path=True)
    assert bag.npartitions == len(logs)
    parts = bag.map_partitions(_check_partition, str(suite)).compute(scheduler="threads")
    total = Summary(records=0)
    for part in parts:
        total.merge(Summary.from_dict(json.loads(json.dumps(part["summary"]))))
    final = Checker([load_suite(suite)]).finish(total)
    for row in final:
        total.add_row(row)
    out = io.StringIO()
    writer = ReportWriter({"json": out})
    for part in parts:
        for data in part["rows"]:
            writer.add(Row.from_row(json.loads(json.dumps(data))))
    for row in final:
        writer.add(row)
    writer.finish(total)
    return total.exit_code(), out.getvalue()


def _locally(suite: Path, logs: list[Path], tmp: Path) -> tuple[int, str]:
    report = tmp / "local.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "-q", str(suite)]
        + [str(p) for p in logs]
        + ["-o", str(report)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        timeout=120,
        check=False,
    )
    assert report.exists(), done.stderr
    return done.returncode, report.read_text(encoding="utf-8")


def _lines(report: str) -> list[Any]:
    return [without_durations(json.loads(line)) for line in report.splitlines()]


def test_a_dask_run_writes_the_json_report_of_chatassert_check(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"]
    for seed, (path, count) in enumerate(zip(logs, [120, 80, 40], strict=True)):
        _log(path, count, seed)
    code, local = _locally(suite, logs, tmp_path)
    dask_code, on_dask = _on_dask(suite, logs)
    summary = json.loads(local.splitlines()[-1])["summary"]
    assert summary["passed"] > 50
    assert summary["failed"] > 50
    assert summary["unreadable"] > 3
    assert summary["records"] < 240  # blank lines are not records
    assert (dask_code, _lines(on_dask)) == (code, _lines(local))
    assert code == 1


def test_expect_tests_no_record_answered_come_from_finish_as_locally(tmp_path: Path) -> None:
    suite = tmp_path / "api.yaml"
    suite.write_text(EXPECT, encoding="utf-8")
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    first.write_text(
        json.dumps({"id": "T1", "response": {"status": "success"}})
        + "\n\n"
        + json.dumps({"id": "T2", "response": {"status": "success", "message": "pending"}})
        + "\n",
        encoding="utf-8",
    )
    second.write_text(
        json.dumps({"id": "T3", "response": {"status": "failure"}})
        + "\nnot json\n"
        + json.dumps({"id": "T9", "response": {"status": "success"}})
        + "\n",
        encoding="utf-8",
    )
    code, local = _locally(suite, [first, second], tmp_path)
    dask_code, on_dask = _on_dask(suite, [first, second])
    rows = _lines(local)
    statuses = {row["case"]: row["result"]["status"] for row in rows if "case" in row}
    assert statuses == {"T1": "passed", "T2": "failed", "T3": "failed", "T4": "error"}
    assert rows[-1]["summary"]["unmatched"] == 1
    assert rows[-1]["summary"]["records"] == 5
    assert (dask_code, _lines(on_dask)) == (code, rows)
