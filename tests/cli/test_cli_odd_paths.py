"""File names no file can have (a NUL, a lone surrogate) are usage errors, not tracebacks."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from chatassert._cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize("name", ["a\x00b.yaml", "\ud800.yaml"])
@pytest.mark.parametrize("role", ["suite", "log"])
def test_an_impossible_file_name_is_a_usage_error(name: str, role: str) -> None:
    if role == "suite":
        argv = ["check", "--no-progress", name, str(EXAMPLES / "support.jsonl")]
    else:
        argv = ["check", "--no-progress", str(EXAMPLES / "support.scenario.yaml"), name]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 2
    assert f"cannot read {role}" in err.getvalue()
