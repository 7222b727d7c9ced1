"""A log that is not JSON is reported at the log's own line, for JSON lines and for a `.json`
document read whole (as a subprocess, as users see it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOOD = (
    '{"id": "a", "messages": [{"role": "user", "content": "Hi"}, '
    '{"role": "assistant", "content": "Hello"}]}'
)
NO_ERROR = "{type: not_contains, value: internal error}"


def check(*logs: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "-q", "-f", "json", "-a", NO_ERROR, *logs],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
        timeout=60,
        check=False,
    )


def test_a_bad_json_line_is_named_by_its_line_and_column(tmp_path: Path) -> None:
    lines = [GOOD, "", '{"id": "b", "messages": [}', '{"id": "c", "x": "a\tb"}']
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = check("run.jsonl", cwd=tmp_path)
    assert proc.returncode == 3
    assert proc.stderr == (
        "run.jsonl:3: skipped: line is not JSON: Expecting value at column 26\n"
        "run.jsonl:4: skipped: line is not JSON: Invalid control character at column 20\n"
    )


def test_a_bad_json_document_is_named_by_the_file_line_of_the_error(tmp_path: Path) -> None:
    text = '\n\n{\n  "RunID": "r",\n  "Messages": [\n    {"role": "user" "content": "x"}\n  ]\n}\n'
    (tmp_path / "run.arena.json").write_text(text, encoding="utf-8")
    proc = check("run.arena.json", cwd=tmp_path)
    assert proc.returncode in (3, 4)
    # the record starts on line 3; the missing comma is on line 6 of the file
    assert proc.stderr.startswith(
        "run.arena.json:3: skipped: the file is not JSON: Expecting ',' delimiter: line 6 column 21"
    )
