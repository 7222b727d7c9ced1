"""The command line on awkward logs: bad lines are skipped, reports survive. Each kind of bad
line, and each exit code, is met by a subprocess once; the same with two jobs and in other
formats, in this process (tests/cli_runs.py)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from cli_runs import run_in_process

NO_ERROR = "{type: not_contains, value: internal error}"

SUITE = """\
test_cases:
  - name: greets
    turns:
      - user_input: "Hello"
        assertions:
          - type: contains
            value: hello
  - name: books
    turns:
      - user_input: "Book a table"
        assertions:
          - type: contains
            value: booked
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _line(text: str = "Hello", **extra: Any) -> str:
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": text}]
    return json.dumps({"messages": messages, **extra})


GOOD = _line()


def _summary(stdout: str) -> dict[str, int]:
    return json.loads(stdout.splitlines()[-1])["summary"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (b'{"messages": [{"role": "user", "content": "caf\xe9"}]}', "line is not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"id": ' + b"1" * 5000 + b"}", "Exceeds the limit (4300 digits)"),
    ],
    ids=["latin-1", "deep", "long-integer"],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bad_line_is_skipped_and_the_run_goes_on(
    tmp_path: Path, bad: bytes, why: str, jobs: str
) -> None:
    (tmp_path / "log.jsonl").write_bytes(f"{GOOD}\n".encode() + bad + f"\n{GOOD}\n".encode())
    runner = run if jobs == "1" else run_in_process
    done = runner(
        "check", "-j", jobs, "--assert", NO_ERROR, "-f", "json", "log.jsonl", cwd=tmp_path
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert "log.jsonl:2: skipped: " in done.stderr
    assert why in done.stderr
    assert _summary(done.stdout) | {"passed": 2, "unreadable": 1} == _summary(done.stdout)
    strict = run_in_process("check", "--strict", "--assert", NO_ERROR, "log.jsonl", cwd=tmp_path)
    assert strict.returncode == 2
    assert "log.jsonl:2:" in strict.stderr
    assert "Traceback" not in strict.stderr


def test_a_truncated_or_false_gzip_is_reported_by_name_and_the_next_log_is_read(
    tmp_path: Path,
) -> None:
    whole = gzip.compress(("\n".join([GOOD] * 3000) + "\n").encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "plain.jsonl.gz").write_bytes(f"{GOOD}\n".encode())
    (tmp_path / "good.jsonl").write_text(GOOD + "\n", encoding="utf-8")
    logs = ("cut.jsonl.gz", "plain.jsonl.gz", "good.jsonl")
    done = run_in_process("check", "--assert", NO_ERROR, "-f", "json", *logs, cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert "cut.jsonl.gz:" in done.stderr
    assert "truncated gzip" in done.stderr
    assert "plain.jsonl.gz:1: skipped: " in done.stderr
    assert "Not a gzipped file" in done.stderr
    summary = _summary(done.stdout)
    assert summary["unreadable"] == 2
    assert summary["failed"] == 0
    assert summary["passed"] > 1  # the lines before the cut, and good.jsonl


@pytest.mark.parametrize("fmt", ["json", "junit", "html"])
def test_a_lone_surrogate_is_escaped_in_every_report(tmp_path: Path, fmt: str) -> None:
    line = _line("internal error \\ud800", id="odd-\\udfff").replace("\\\\u", "\\u")
    (tmp_path / "log.jsonl").write_text(line + "\n", encoding="utf-8")
    done = run(
        "check", "-v", "--assert", NO_ERROR, "-f", fmt, "-o", "report", "log.jsonl", cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    report = (tmp_path / "report").read_text(encoding="utf-8")
    if fmt == "json":
        first = json.loads(report.splitlines()[0])
        assert first["subject_id"] == "odd-\udfff"  # the escape reads back as the same value
    elif fmt == "junit":
        case = ET.fromstring(report).find(".//testcase")
        assert case is not None
        assert "internal error \ufffd" in (case.findtext("system-out") or "")
    else:
        assert "internal error \ufffd" in report


def test_a_greeting_before_the_first_user_message_is_a_turn_of_its_own(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "You are BookBot."},
        {"role": "assistant", "content": "Hello! I am BookBot."},
        {"role": "user", "content": "Hello"},
        {  # the reply is only a tool call: the greeting must not stand in for its text
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "1", "function": {"name": "lookup", "arguments": "{}"}}],
        },
    ]
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(
        json.dumps({"case": "greets", "messages": messages}) + "\n", encoding="utf-8"
    )
    done = run_in_process("check", "suite.yaml", "log.jsonl", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Response does not contain 'hello'" in done.stdout


def test_an_otel_trace_names_its_case(tmp_path: Path) -> None:
    def span(role: str, text: str) -> str:
        return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])

    trace = {
        "case": "greets",
        "spans": [
            {
                "name": "chat",
                "attributes": {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": span("user", "Hello"),
                    "gen_ai.output.messages": span("assistant", "hello there"),
                },
            }
        ],
    }
    other = dict(trace, case="books")
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(
        json.dumps(trace) + "\n" + json.dumps(other) + "\n", encoding="utf-8"
    )
    done = run_in_process("check", "suite.yaml", "log.jsonl", "-f", "json", cwd=tmp_path)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["source"], r["case"]) for r in rows[:-1]] == [
        ("log.jsonl:1", "greets"),
        ("log.jsonl:2", "books"),
    ]
    assert done.returncode == 1  # the reply does not say "booked"


def test_a_subject_without_a_matching_case_beside_a_checked_one_gives_exit_3_and_is_reported(
    tmp_path: Path,
) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    lines = [_line(case="nobody"), _line(case="greets")]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = run("check", "suite.yaml", "log.jsonl", cwd=tmp_path)
    assert text.returncode == 3, text.stdout + text.stderr
    assert "1 checked: 1 passed" in text.stdout
    assert "1 without a matching case" in text.stdout
    assert text.stderr.startswith("log.jsonl:1: no case of 'suite' matches this conversation")
    as_json = run_in_process("check", "suite.yaml", "log.jsonl", "-f", "json", cwd=tmp_path)
    assert as_json.returncode == 3
    rows = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert rows[0] | {"unmatched": "log.jsonl:1", "suite": "suite"} == rows[0]
    assert "'nobody' names no case" in rows[0]["reason"]
    assert rows[-1]["summary"]["unmatched"] == 1
    junit = run_in_process("check", "suite.yaml", "log.jsonl", "-f", "junit", cwd=tmp_path)
    assert junit.returncode == 3
    root = ET.fromstring(junit.stdout)
    assert root.get("errors") == "1"
    error = root.find(".//testcase/error")
    assert error is not None
    assert error.get("type") == "unmatched"


def test_subjects_that_match_no_case_alone_checked_nothing_exit_4(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(_line(case="nobody") + "\n", encoding="utf-8")
    for fmt in ("text", "json", "junit"):
        runner = run if fmt == "text" else run_in_process
        done = runner("check", "suite.yaml", "log.jsonl", "-f", fmt, cwd=tmp_path)
        assert done.returncode == 4, done.stdout + done.stderr
        assert "nothing was checked: 1 conversation matched no case of the suite" in done.stderr


def test_a_byte_order_mark_and_carriage_returns_do_not_break_lines(tmp_path: Path) -> None:
    raw_cr = GOOD.replace('"messages": ', '"messages":\r', 1)  # a CR between JSON tokens
    assert "\r" in raw_cr
    assert json.loads(raw_cr)
    content = "\ufeff" + GOOD + "\r\n" + raw_cr + "\r\n" + _line("internal error") + "\r\n"
    (tmp_path / "log.jsonl").write_bytes(content.encode("utf-8"))
    with gzip.open(tmp_path / "log.jsonl.gz", "wb") as f:
        f.write(content.encode("utf-8"))
    for log in ("log.jsonl", "log.jsonl.gz"):
        done = run_in_process("check", "--assert", NO_ERROR, "-f", "json", log, cwd=tmp_path)
        assert done.stderr == ""
        rows = [json.loads(line) for line in done.stdout.splitlines()]
        assert [r["result"]["status"] for r in rows[:-1]] == ["passed", "passed", "failed"]
        assert rows[2]["source"] == f"{log}:3"
        assert done.returncode == 1


@pytest.mark.skipif(not os.path.exists("/dev/fd"), reason="needs /dev/fd")
def test_pipes_and_special_files_are_logs_and_directories_hold_only_files(
    tmp_path: Path,
) -> None:
    (tmp_path / "good.jsonl").write_text(GOOD + "\n", encoding="utf-8")
    script = (
        f"{sys.executable} -m chatassert check -f json --assert '{NO_ERROR}' "
        "<(cat good.jsonl) /dev/null"
    )
    piped = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert piped.returncode == 0, piped.stderr
    assert _summary(piped.stdout)["passed"] == 1
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text(GOOD + "\n", encoding="utf-8")
    (logs / "zz.jsonl").mkdir()
    done = run_in_process("check", "--assert", NO_ERROR, "-f", "json", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _summary(done.stdout)["passed"] == 1


@pytest.mark.parametrize("option", ["--max-failures", "--show", "--jobs"])
def test_counts_below_one_are_usage_errors(tmp_path: Path, option: str) -> None:
    (tmp_path / "good.jsonl").write_text(GOOD + "\n", encoding="utf-8")
    done = run_in_process("check", option, "0", "--assert", NO_ERROR, "good.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert f"{option} must be at least 1 (got 0)" in done.stderr
    assert done.stdout == ""
