"""Run the code examples of docs/judges.md.

The page's ```python blocks run in order in one namespace; a block followed by a line "prints"
and a ```text block must print exactly that text. None of them needs a network: examples that
would talk to a model only build the judge.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "judges.md"
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)


def test_the_judges_page_examples_run_and_print_what_it_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CHATASSERT_JUDGE", raising=False)
    found = [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text())]
    assert len(found) >= 8
    namespace: dict[str, object] = {"__name__": "docs:judges"}
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/judges.md example {number}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue() == expected, f"example {number} printed {out.getvalue()!r}"
