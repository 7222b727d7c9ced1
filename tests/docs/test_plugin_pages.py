"""Run the code examples of the pages on log formats and report formats of one's own.

As tests/docs/test_pages.py runs the core pages: each page's ```python blocks run in order in
one namespace, from the repository root, and a block followed by a line "prints" and a
```text block must print exactly that text. These pages register a log format and a report
format for the life of their process, which the pages do not take back; so each page runs in
an interpreter of its own, leaving this one as it was.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["docs/read-your-own-log-format.md", "docs/add-a-report-format.md"]
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)

RUNNER = """
import contextlib, io, json, sys
blocks = json.load(sys.stdin)
namespace = {"__name__": "docs"}
printed = []
for number, code in enumerate(blocks, 1):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"example {number}", "exec"), namespace)
    printed.append(out.getvalue())
print(json.dumps(printed))
"""
"""Runs the blocks given as JSON on stdin and prints what each printed, as JSON."""


@pytest.mark.parametrize("page", PAGES)
def test_examples_run_and_print_what_the_page_says(page: str) -> None:
    found = [(m.group(1), m.group(2)) for m in BLOCK.finditer((ROOT / page).read_text("utf-8"))]
    assert found, f"{page} has no python examples"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHATASSERT_", "PYTEST_"))}
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps([code for code, _ in found]),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{page}: an example raised:\n{done.stderr}"
    printed = json.loads(done.stdout)
    for number, ((_, expected), got) in enumerate(zip(found, printed, strict=True), 1):
        if expected is not None:
            assert got == expected, f"{page} example {number} printed otherwise"
