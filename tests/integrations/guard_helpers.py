"""What the adapters' tests share: the offline verdict of the log a guarded run wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatassert._cli import main


def offline(path: Path, spec: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The status `chatassert check -a SPEC` gives the log's one conversation."""
    code = main(["check", "-a", spec, str(path), "-f", "json", "-q"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line]
    cases = [row for row in rows if "case" in row]
    assert len(cases) == 1, rows
    status = cases[0]["result"]["children"][0]["status"]
    assert code == (0 if status == "passed" else 1)
    return str(status)
