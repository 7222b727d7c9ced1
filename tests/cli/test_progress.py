"""Progress on stderr, as a subprocess: a bar under a pseudo-terminal, plain lines in a pipe.

The bar says how far the run is from the bytes of the logs (compressed bytes for a `.gz`),
with a rate and an ETA; `--progress` writes plain lines for CI logs; `--quiet` (alias
`--no-progress`) and a stderr that is not a terminal draw nothing. The first progress waits
`CHATASSERT_PROGRESS_DELAY` seconds (1 by default): here 0, so short runs show it. (Plain
lines from a `.gz` or with workers, and a usage error, are checked in this process:
tests/cli_runs.py.)
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

import pytest

from cli_runs import run_in_process

NO_ERROR = "{type: not_contains, value: internal error}"

BAR = re.compile(r"(\d+)% \|([█ ]+)\| (\S+ \S+)/(\S+ \S+) (\S+ \S+)/s ETA (\d+:\d\d)")
PLAIN = re.compile(r"^chatassert: +(\d+)% (\S+ \S+)/(\S+ \S+) \S+ \S+/s ETA \d+:\d\d · ", re.M)


def _line(i: int) -> str:
    messages = [
        {"role": "user", "content": f"Question {i}: " + "where is my parcel? " * 20},
        {"role": "assistant", "content": f"Answer {i}: it left the depot this morning."},
    ]
    return json.dumps({"id": f"c{i}", "messages": messages}) + "\n"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("progress")
    text = "".join(_line(i) for i in range(3000))
    (where / "run.jsonl").write_text(text, encoding="utf-8")
    (where / "run.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    return where


def _env() -> dict[str, str]:
    env = dict(os.environ, CHATASSERT_PROGRESS_DELAY="0")
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def _under_terminal(args: list[str], cwd: Path, columns: int = 100) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal `columns` wide: (exit code, what the
    terminal received, standard output)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    with tempfile.TemporaryFile() as stdout:  # a pipe could fill while the terminal is read
        proc = subprocess.Popen(
            [sys.executable, "-m", "chatassert", *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=slave,
            cwd=cwd,
            env=_env(),
        )
        os.close(slave)
        received = _read_all(master)
        code = proc.wait(timeout=120)
        stdout.seek(0)
        out = stdout.read().decode()
    return code, received, out


def _read_all(master: int) -> str:
    """What a pseudo-terminal received until its last writer closed it."""
    received = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer of the terminal is gone
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return received.decode("utf-8", "replace")


def _in_pipe(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(),
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("log", ["run.jsonl", "run.jsonl.gz"])
def test_a_terminal_gets_a_bar_with_percentage_rate_and_eta_then_a_clean_line(
    logs: Path, log: str
) -> None:
    code, tty, out = _under_terminal(["check", "-f", "json", "-a", NO_ERROR, log], logs)
    assert code == 0, tty
    frames = [f for f in tty.split("\r\x1b[2K") if f]
    bars = [BAR.search(f) for f in frames]
    assert frames
    assert all(bars), frames[:3]
    percents = [int(b.group(1)) for b in bars if b]
    assert percents == sorted(percents)  # never goes back
    assert all(len(f) < 100 for f in frames)  # one line: a wider one would wrap on redraw
    assert tty.endswith("\r\x1b[2K")  # the bar is wiped at the end
    size = os.path.getsize(logs / log)
    last = bars[-1]
    assert last is not None
    expected = f"{size / 1000:.1f} kB" if size < 1_000_000 else f"{size / 1e6:.1f} MB"
    assert last.group(4) == expected  # the stored size, compressed for the .gz
    assert json.loads(out.splitlines()[-1])["summary"]["passed"] == 3000


def test_quiet_and_no_progress_draw_nothing_on_a_terminal(logs: Path) -> None:
    for flag in ("--quiet", "-q", "--no-progress"):
        code, tty, _ = _under_terminal(["check", flag, "-a", NO_ERROR, "run.jsonl"], logs)
        assert code == 0
        assert "%" not in tty, flag
        assert "\x1b[2K" not in tty, flag


def test_a_pipe_gets_no_progress_unless_asked(logs: Path) -> None:
    proc = _in_pipe(["check", "-a", NO_ERROR, "run.jsonl"], logs)
    assert proc.returncode == 0
    assert proc.stderr == ""


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("log", ["run.jsonl", "run.jsonl.gz"])
def test_progress_in_a_pipe_writes_plain_lines_ending_at_100_percent(
    logs: Path, log: str, jobs: str
) -> None:
    args = ["check", "--progress", "-j", jobs, "-a", NO_ERROR, log]
    if (log, jobs) == ("run.jsonl", "1"):
        proc = _in_pipe(args, logs)
    else:  # the other logs and jobs, in this process (tests/cli_runs.py)
        proc = run_in_process(*args, cwd=logs, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr
    assert "\x1b" not in proc.stderr
    lines = PLAIN.findall(proc.stderr)
    assert len(lines) == len(proc.stderr.splitlines()) >= 1, proc.stderr
    percent, done, total = lines[-1]
    assert percent == "100"
    assert done == total  # with -j 2: the pieces workers finished
    assert proc.stderr.splitlines()[-1].endswith("3,000 checked, 0 failed, 0 errors")


def test_progress_and_quiet_cannot_be_given_together(logs: Path) -> None:
    proc = run_in_process("check", "--progress", "--quiet", "-a", NO_ERROR, "run.jsonl", cwd=logs)
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr


def test_standard_input_has_no_known_size_so_progress_counts_records(logs: Path) -> None:
    text = (logs / "run.jsonl").read_text(encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "--progress", "-a", NO_ERROR, "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=logs,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert re.match(r"chatassert: 0 B read \([\d,]+ records/s\) · 3,000 records, ", last), last
