"""Run the python examples of docs/integrations.md in order, in one namespace.

A block followed by a line "prints" and a ```text block must print exactly that text.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)


def test_examples_run_and_print_what_the_page_says() -> None:
    page = "docs/integrations.md"
    found = [(m.group(1), m.group(2)) for m in BLOCK.finditer((ROOT / page).read_text())]
    assert len(found) >= 5
    namespace: dict[str, object] = {"__name__": "docs_integrations"}
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{page} example {number}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue() == expected, f"{page} example {number} printed otherwise"
