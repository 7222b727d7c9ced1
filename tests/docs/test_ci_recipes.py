"""The CI recipes of docs/offline.md ("In CI"), run as written.

The GitHub Actions job's check step and the shell line that also accepts exit code 3 are taken
from the page and run with `bash -e` (as Actions runs a `run:` step) in a folder laid out as
the recipe expects (`specs/support.yaml`, `logs/*.jsonl.gz`), with `chatassert` on the PATH.
A run that checked nothing — an empty log, a log of unreadable lines, conversations that match
no case — must fail both; a passing run must pass both; a failing case fails both; unreadable
lines beside checked cases fail the strict step and pass the tolerant one.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "offline.md"
EXAMPLES = ROOT / "examples"


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("\n## In CI\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def strict_step() -> str:
    """The `run:` of the job's step that checks the logs."""
    (block,) = re.findall(r"```yaml\n(.*?)```", _section(), re.S)
    steps = yaml.safe_load(block)["jobs"]["transcripts"]["steps"]
    (step,) = [s for s in steps if "chatassert check" in str(s.get("run", ""))]
    return str(step["run"])


def tolerant_line() -> str:
    """The shell recipe that accepts exit code 3 too."""
    (block,) = re.findall(r"```sh\n(.*?)```", _section(), re.S)
    return block


def _stranger() -> str:
    messages = [
        {"role": "user", "content": "What's the weather?"},
        {"role": "assistant", "content": "Sunny."},
    ]
    return json.dumps({"id": "conv-1", "messages": messages}) + "\n"


LOGS = {
    "passing": (EXAMPLES / "booking.jsonl").read_text(encoding="utf-8"),
    "failing": (EXAMPLES / "booking-regressions.jsonl").read_text(encoding="utf-8"),
    "empty": "",
    "unreadable": "{not json\n[1, 2]\nnot a record\n",
    "unmatched": _stranger() * 2,
    "some unreadable": (EXAMPLES / "booking.jsonl").read_text(encoding="utf-8") + "{oops\n",
}

OUTCOMES = {  # the log: (does the strict step pass, does the tolerant line pass)
    "passing": (True, True),
    "failing": (False, False),
    "empty": (False, False),
    "unreadable": (False, False),
    "unmatched": (False, False),
    "some unreadable": (False, True),
}


def run_recipe(script: str, log: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `script` with `bash -e` in a folder holding the suite and the log, as the recipe
    lays them out, with a `chatassert` command on the PATH."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "logs").mkdir()
    suite = (EXAMPLES / "booking.flat.yaml").read_text(encoding="utf-8")
    (tmp_path / "specs" / "support.yaml").write_text(suite, encoding="utf-8")
    (tmp_path / "logs" / "last-night.jsonl.gz").write_bytes(gzip.compress(log.encode()))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "chatassert"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m chatassert "$@"\n')
    command.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_recipes_are_on_the_page() -> None:
    assert "chatassert check specs/support.yaml" in strict_step()
    assert tolerant_line().rstrip().endswith("|| [ $? -eq 3 ]")


@pytest.mark.parametrize("log", list(LOGS))
def test_the_strict_step_passes_only_a_run_that_checked_and_passed(
    log: str, tmp_path: Path
) -> None:
    done = run_recipe(strict_step(), LOGS[log], tmp_path)
    assert (done.returncode == 0) is OUTCOMES[log][0], done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("log", list(LOGS))
def test_the_tolerant_line_fails_a_run_that_checked_nothing(log: str, tmp_path: Path) -> None:
    done = run_recipe(tolerant_line(), LOGS[log], tmp_path)
    assert (done.returncode == 0) is OUTCOMES[log][1], done.stderr
    if log in ("empty", "unreadable", "unmatched"):
        assert "nothing was checked" in done.stderr
    assert (tmp_path / "chatassert.xml").exists()  # the report is written whatever the code
