"""How a run ends, as a subprocess: a bad line among thousands, Ctrl-C, nothing to read, a
closed or full output. (What needs no process of its own, such as the same end in another
report format, runs in this process: tests/cli_runs.py.)

A run never dies of one log line; an interrupted run still leaves a report saying how far it
got (exit 130); a run that read nothing says so (exit 4); a reader that goes away (`| head`)
ends the run quietly; an output that cannot be written is a usage error (exit 2).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from chatassert.reporting._words import counted
from cli_runs import run_in_process

NO_ERROR = "{type: not_contains, value: internal error}"
POLITE = "{type: llm_rubric, value: is polite}"
HUGE = "1" + "0" * 309


def _line(i: int, **extra: Any) -> str:
    messages = [
        {"role": "user", "content": f"Question {i}"},
        {"role": "assistant", "content": f"Answer {i}"},
    ]
    return json.dumps({"id": f"c{i}", "messages": messages, **extra})


def run(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def _summary(stdout: str) -> dict[str, Any]:
    return json.loads(stdout.splitlines()[-1])["summary"]  # type: ignore[no-any-return]


# -- one malformed line among 20,000 -------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_one_malformed_line_among_20000_leaves_every_other_line_checked(
    tmp_path: Path, jobs: str
) -> None:
    bad = 12_345
    lines = [_line(i) for i in range(1, 20_001)]
    messages = json.dumps(json.loads(lines[bad - 1])["messages"])
    usage = f'{{"prompt_tokens": 2.0, "completion_tokens": {HUGE}}}'
    lines[bad - 1] = f'{{"messages": {messages}, "usage": {usage}}}'
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run("check", "--assert", NO_ERROR, "-f", "json", "-j", jobs, "log.jsonl", cwd=tmp_path)
    assert "Traceback" not in done.stderr
    assert done.returncode == 3, done.stderr  # nothing failed, one line unreadable
    assert done.stderr.startswith(
        f"log.jsonl:{bad}: skipped: usage.completion_tokens must be a number of tokens"
    )
    rows = [json.loads(row) for row in done.stdout.splitlines()]
    checked = [row["source"] for row in rows if "source" in row]
    assert checked == [f"log.jsonl:{i}" for i in range(1, 20_001) if i != bad]
    assert (
        rows[-1]["summary"] | {"passed": 19_999, "unreadable": 1, "records": 20_000}
        == rows[-1]["summary"]
    )


# -- Ctrl-C ----------------------------------------------------------------------------------------


class _Judge:
    """An OpenAI-compatible judge on 127.0.0.1 that answers `answered` requests, then hangs."""

    def __init__(self, answered: int) -> None:
        self.answered = answered
        self.count = 0
        self.hanging = threading.Event()  # a request arrived that will not be answered
        self.release = threading.Event()
        self.let_go = threading.Event()  # the unanswered request was given up by the server
        lock = threading.Lock()
        judge = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                with lock:
                    judge.count += 1
                    number = judge.count
                if number > judge.answered:
                    judge.hanging.set()
                    judge.release.wait(60)
                    judge.let_go.set()
                    return
                verdict = json.dumps({"passed": True, "score": 1.0, "reason": "polite"})
                body = json.dumps(
                    {
                        "id": "cmpl",
                        "object": "chat.completion",
                        "model": "m",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": verdict},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # shutdown() waits for the serve loop to look again: every 0.05 s, not every 0.5 s
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def env(self, tmp_path: Path) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith("CHATASSERT_")}
        return {
            **keep,
            "CHATASSERT_JUDGE": "openai",
            "CHATASSERT_JUDGE_MODEL": "judge-model",
            "CHATASSERT_JUDGE_BASE_URL": f"http://127.0.0.1:{self.server.server_port}/v1",
            "CHATASSERT_JUDGE_CACHE": "off",
            "CHATASSERT_JUDGE_RETRIES": "0",
            "OPENAI_API_KEY": "sk-test",
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        }


@pytest.fixture
def judge() -> Iterator[_Judge]:
    server = _Judge(answered=10)
    server.thread.start()
    yield server
    server.release.set()
    server.server.shutdown()
    server.server.server_close()


def _interrupt(
    args: list[str], judge: _Judge, tmp_path: Path, concurrency: int = 1
) -> tuple[int, str, str]:
    """Run `check` over 50 conversations, press Ctrl-C while the 11th request is waited for.

    With one request in flight (`concurrency`), the records are judged in order, so the
    11th request is the 11th record's; with more, any of those in flight."""
    (tmp_path / "log.jsonl").write_text(
        "\n".join(_line(i) for i in range(1, 51)) + "\n", encoding="utf-8"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatassert", "check", "--assert", POLITE, *args, "log.jsonl"],
        cwd=tmp_path,
        env={
            **judge.env(tmp_path),
            "PYTHONFAULTHANDLER": "1",
            "CHATASSERT_JUDGE_CONCURRENCY": str(concurrency),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert judge.hanging.wait(60), "the run never reached the 11th conversation"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # faulthandler prints where every thread was
        try:
            stacks = proc.communicate(timeout=30)[1][-6000:]
        except subprocess.TimeoutExpired:
            stacks = "(it did not end on SIGABRT either)"
        pytest.fail(f"the run did not end after Ctrl-C:\n{stacks}")
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            assert stream is not None
            stream.close()
    return proc.returncode, out, err


PARTIAL = "interrupted after 10 log records (10 cases checked): this report is partial"


def test_ctrl_c_leaves_a_partial_text_report_on_stdout(judge: _Judge, tmp_path: Path) -> None:
    code, out, err = _interrupt([], judge, tmp_path)
    assert code == 130, err
    assert "Traceback" not in err
    assert PARTIAL in err
    assert out.rstrip().endswith(PARTIAL)
    assert "10 checked: 10 passed, 0 failed" in out


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "html"])
def test_ctrl_c_leaves_a_partial_report_in_the_output_file(
    judge: _Judge, tmp_path: Path, fmt: str
) -> None:
    report = tmp_path / f"report.{fmt}"
    code, out, err = _interrupt(["-f", fmt, "-o", str(report)], judge, tmp_path)
    assert code == 130, err
    assert "Traceback" not in err
    # the terminal gets the partial summary too, and where the partial report went
    assert out.endswith(f"{PARTIAL}\nreport written: {report} ({fmt})\n")
    text = report.read_text(encoding="utf-8")
    if fmt == "json":
        rows = [json.loads(row) for row in text.splitlines()]
        assert len(rows) == 11  # ten cases, then the summary
        assert (
            rows[-1]["summary"] | {"passed": 10, "records": 10, "interrupted": True}
            == rows[-1]["summary"]
        )
    elif fmt == "junit":
        root = ET.fromstring(text)
        assert root.get("tests") == "11"
        assert root.get("errors") == "1"
        error = root.find("./testsuite/testcase[@name='interrupted']/error")
        assert error is not None
        assert PARTIAL in (error.get("message") or "")
    else:
        assert PARTIAL in text
        assert "10 checked" in text


def test_ctrl_c_amid_requests_in_flight_reports_the_records_judged_whole_before_it(
    judge: _Judge, tmp_path: Path
) -> None:
    """Sixteen requests in flight, ten answered in whatever order they came: the report holds
    the records up to the first one not judged whole, in log order, and says so."""
    report = tmp_path / "report.jsonl"
    code, _, err = _interrupt(["-f", "json", "-o", str(report)], judge, tmp_path, 16)
    assert code == 130, err
    assert "Traceback" not in err
    rows = [json.loads(row) for row in report.read_text(encoding="utf-8").splitlines()]
    cases, summary = rows[:-1], rows[-1]["summary"]
    records = len(cases)
    assert records <= 10  # only ten requests were answered
    assert [row["subject_id"] for row in cases] == [f"c{i}" for i in range(1, records + 1)]
    assert summary["records"] == records
    assert summary["interrupted"] is True
    read, checked = counted(records, "log record"), counted(records, "case")  # 1: singular
    assert f"interrupted after {read} ({checked} checked): this report is partial" in err


def test_ctrl_c_with_worker_processes_ends_at_once(judge: _Judge, tmp_path: Path) -> None:
    """The workers are stopped, not waited for: one of them is stuck on the judge."""
    code, out, err = _interrupt(["-j", "2"], judge, tmp_path)
    assert code == 130, err
    assert "Traceback" not in err
    assert "interrupted after" in out
    # the run ended while the judge still held the stuck request: nothing waited for it
    assert not judge.let_go.is_set()


# -- nothing to read ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "html"])
def test_an_empty_log_is_not_success(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "empty.jsonl").write_text("\n  \n", encoding="utf-8")
    runner = run if fmt == "text" else run_in_process
    done = runner("check", "--assert", NO_ERROR, "-f", fmt, "empty.jsonl", cwd=tmp_path)
    assert done.returncode == 4, done.stderr
    assert "nothing was checked: the logs held no records" in done.stderr
    if fmt == "json":
        assert _summary(done.stdout)["records"] == 0
    elif fmt == "junit":
        error = ET.fromstring(done.stdout).find(
            "./testsuite/testcase[@name='nothing checked']/error"
        )
        assert error is not None
    else:
        assert "nothing was checked" in done.stdout


def test_an_empty_stdin_is_not_success(tmp_path: Path) -> None:
    done = run("check", "--assert", NO_ERROR, "-", cwd=tmp_path, stdin="")
    assert done.returncode == 4, done.stderr
    assert "nothing was checked" in done.stderr
    assert "nothing was checked" in done.stdout


def test_an_expect_suite_over_an_empty_log_is_nothing_read(tmp_path: Path) -> None:
    """Not one error per test without a response: the one fact is that nothing was read."""
    suite = Path(__file__).parents[2] / "examples" / "search.expect.json"
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    done = run_in_process("check", str(suite), "empty.jsonl", cwd=tmp_path)
    assert done.returncode == 4, done.stderr
    assert done.stderr == (
        "nothing was checked: the logs held no records (an empty log, or empty standard input)\n"
    )
    assert "0 checked" not in done.stdout


# -- the reader goes away, the output is full ----------------------------------------------------


@pytest.mark.parametrize(("fmt", "unbuffered"), [("json", False), ("json", True), ("text", False)])
def test_a_reader_that_goes_away_ends_the_run_quietly(
    tmp_path: Path, fmt: str, unbuffered: bool
) -> None:
    """Each of the 3000 conversations fails, so either report is far more than a pipe holds.

    (With PYTHONUNBUFFERED=1, CPython's text standard output drops the rest of one large write
    that a closing pipe cut short instead of raising, so the text report, written at once,
    cannot notice its reader left; the JSON report, written line by line, does.)
    """
    (tmp_path / "log.jsonl").write_text(
        "\n".join(_line(i) for i in range(3000)) + "\n", encoding="utf-8"
    )
    fails = "{type: contains, value: refund}"
    args = ["check", "--assert", fails, "--show", "3000", "-f", fmt, "log.jsonl"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with subprocess.Popen(
        [sys.executable, "-m", "chatassert", *args],
        cwd=tmp_path,
        env={**env, "PYTHONUNBUFFERED": "1"} if unbuffered else env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # what `| head -1` does
        err = proc.stderr.read().decode()
        proc.wait(timeout=60)
    assert first
    assert err == ""
    assert proc.returncode == 141  # 128 + SIGPIPE, as a shell reports a tool the pipe ended


def test_a_reader_that_goes_away_in_a_shell_pipeline(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text(
        "\n".join(_line(i) for i in range(3000)) + "\n", encoding="utf-8"
    )
    script = (
        f"set -o pipefail; {sys.executable} -m chatassert check --assert '{NO_ERROR}' "
        "-f json log.jsonl | head -1"
    )
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert json.loads(done.stdout)["source"] == "log.jsonl:1"
    assert done.stderr == ""
    assert done.returncode == 141


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


@needs_dev_full
@pytest.mark.parametrize("fmt", ["text", "json", "junit", "html"])
def test_an_output_on_a_full_disk_is_a_usage_error(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "log.jsonl").write_text(_line(1) + "\n", encoding="utf-8")
    runner = run if fmt == "text" else run_in_process
    done = runner(
        "check", "--assert", NO_ERROR, "-f", fmt, "-o", "/dev/full", "log.jsonl", cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr == "cannot write /dev/full: No space left on device\n"


def test_an_output_that_is_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text(_line(1) + "\n", encoding="utf-8")
    (tmp_path / "reports").mkdir()
    done = run_in_process("check", "--assert", NO_ERROR, "-o", "reports", "log.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "cannot write reports: Is a directory\n"


@needs_dev_full
@pytest.mark.parametrize(
    "args",
    [
        ["check", "--assert", NO_ERROR, "log.jsonl"],
        ["check", "--assert", NO_ERROR, "-f", "json", "log.jsonl"],
        ["lint", "suite.yaml"],
        ["schema"],
    ],
    ids=["check", "check-json", "lint", "schema"],
)
def test_a_full_standard_output_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "log.jsonl").write_text(_line(1) + "\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(
        "test_cases:\n  - name: t\n    turns:\n      - user_input: hi\n        assertions:\n"
        "          - {type: contains, value: x}\n",
        encoding="utf-8",
    )
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = subprocess.run(
            [sys.executable, "-m", "chatassert", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == "cannot write to standard output: No space left on device\n"


def test_the_exit_codes_are_in_the_help(tmp_path: Path) -> None:
    for args in (["--help"], ["check", "--help"]):
        done = run_in_process(*args, cwd=tmp_path)
        assert done.returncode == 0
        for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "130 ", "141 "):
            assert f"\n  {code}" in done.stdout, (args, code)
