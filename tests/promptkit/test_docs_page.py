"""The ```python examples of docs/promptkit.md run and print what the page says."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)


def test_promptkit_page_examples_run() -> None:
    found = BLOCK.findall((ROOT / "docs" / "promptkit.md").read_text(encoding="utf-8"))
    assert len(found) == 7
    namespace: dict[str, object] = {"__name__": "docs:promptkit"}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for number, (code, expected) in enumerate(found, 1):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"docs/promptkit.md example {number}", "exec"), namespace)
            assert out.getvalue() == expected, f"example {number} printed {out.getvalue()!r}"
    finally:
        os.chdir(cwd)
