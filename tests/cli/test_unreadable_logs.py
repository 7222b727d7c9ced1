"""A log that cannot be read is unreadable input, not a log without records.

A `.gz` whose bytes are not gzip was reported as unreadable and yet the run said "nothing was
checked: the logs held no records": its failed reading was counted as no record at all. What
could not be read is one record, unreadable, like any line that cannot be read: the run says so
once on stderr, with every way of reading a log. Alone, it leaves nothing checked (exit 4,
saying so: G17); beside a log that was checked, it is an unreadable line (exit 3). (One run is a
subprocess; the other ways of reading, in this process: tests/cli_runs.py.)
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runs import run_in_process

NO_ZZZ = "{type: not_contains, value: zzz}"
GOOD = json.dumps(
    {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _summary(stdout: str) -> dict[str, object]:
    (summary,) = [
        json.loads(line)["summary"] for line in stdout.splitlines() if '"summary"' in line
    ]
    return summary  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "how", [(), ("--jobs", "2"), ("--group-by", "trace")], ids=["one-job", "two-jobs", "grouped"]
)
def test_a_gz_that_is_not_gzip_is_unreadable_input_said_once(
    tmp_path: Path, how: tuple[str, ...]
) -> None:
    (tmp_path / "bad.jsonl.gz").write_bytes(b"not gzip at all\n")
    (tmp_path / "good.jsonl").write_text(GOOD + "\n", encoding="utf-8")
    runner = run if how == () else run_in_process
    done = runner("check", "--assert", NO_ZZZ, "-f", "json", *how, "bad.jsonl.gz", cwd=tmp_path)
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    assert "nothing was checked: the logs held no records" not in done.stderr + done.stdout
    assert "nothing was checked: 1 unreadable log line, 0 conversations read" in done.stderr
    assert done.stderr.count("bad.jsonl.gz:1: skipped: ") == 1, done.stderr
    assert "Not a gzipped file" in done.stderr
    summary = _summary(done.stdout)
    assert (summary["records"], summary["unreadable"]) == (1, 1)
    if "--group-by" in how:
        return  # a plain conversation has no trace to be grouped by
    logs = ("bad.jsonl.gz", "good.jsonl")
    beside = run_in_process("check", "--assert", NO_ZZZ, "-f", "json", *how, *logs, cwd=tmp_path)
    assert beside.returncode == 3, beside.stderr
    assert "nothing was checked" not in beside.stderr + beside.stdout
    assert beside.stderr.count("bad.jsonl.gz:1: skipped: ") == 1, beside.stderr


def test_a_log_cut_short_counts_what_could_not_be_read_as_one_record(tmp_path: Path) -> None:
    whole = gzip.compress(("\n".join([GOOD] * 3000) + "\n").encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    done = run_in_process("check", "--assert", NO_ZZZ, "-f", "json", "cut.jsonl.gz", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    summary = _summary(done.stdout)
    assert summary["unreadable"] == 1
    assert summary["records"] == summary["passed"] + 1  # every line read, and the rest


@pytest.mark.parametrize("data", [b"", gzip.compress(b"")], ids=["no-bytes", "empty-gzip"])
def test_a_log_that_holds_nothing_still_checked_nothing(tmp_path: Path, data: bytes) -> None:
    """An empty file (even named `.gz`) and a gzip of nothing are empty logs: exit 4."""
    (tmp_path / "empty.jsonl.gz").write_bytes(data)
    done = run_in_process("check", "--assert", NO_ZZZ, "-f", "json", "empty.jsonl.gz", cwd=tmp_path)
    assert done.returncode == 4, done.stderr
    assert "nothing was checked" in done.stderr
    assert _summary(done.stdout)["records"] == 0
