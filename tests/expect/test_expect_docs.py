"""Run the code examples of docs/expect.md and compare what they print with the page."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "expect.md"
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)


def test_the_expect_page_examples_print_what_it_says() -> None:
    found = [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text())]
    assert len(found) >= 5
    namespace: dict[str, object] = {"__name__": "docs:expect"}
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/expect.md example {number}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue() == expected, f"example {number} printed {out.getvalue()!r}"
