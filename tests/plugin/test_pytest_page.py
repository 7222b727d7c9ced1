"""Run the examples of docs/pytest.md: python blocks in one namespace, test files through pytester.

A block whose info string has `file=NAME` is written to a pytester folder; a following
```text pytest-output block runs pytest on the files written since the previous one, whose
output must contain its lines in order (each as the start of an output line). A plain python
block runs as is; when followed by "prints" and a ```text block, it must print exactly that.
"""

from __future__ import annotations

import contextlib
import glob
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```(\w+)([^\n]*)\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)


def sections(page: str) -> list[tuple[dict[str, str], str]]:
    """The groups of files, each with the output pytest must show for them."""
    out: list[tuple[dict[str, str], str]] = []
    files: dict[str, str] = {}
    for m in BLOCK.finditer((ROOT / page).read_text()):
        lang, info, body = m.group(1), m.group(2).strip(), m.group(3)
        if info.startswith("file="):
            files[info.removeprefix("file=")] = body
        elif lang == "text" and info == "pytest-output":
            out.append((files, body))
            files = {}
    assert not files, f"{page}: files {sorted(files)} have no pytest-output block after them"
    return out


def test_python_examples_run_and_print_what_the_page_says() -> None:
    namespace: dict[str, object] = {"__name__": "docs:pytest"}
    found = 0
    for m in BLOCK.finditer((ROOT / "docs/pytest.md").read_text()):
        if m.group(1) != "python" or m.group(2).strip():
            continue
        found += 1
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(m.group(3), f"docs/pytest.md example {found}", "exec"), namespace)
        if m.group(4) is not None:
            assert out.getvalue() == m.group(4)
    assert found


@pytest.mark.parametrize("index", range(len(sections("docs/pytest.md"))))
def test_pytest_examples_print_what_the_page_says(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, index: int
) -> None:
    """Each line of the sample is a whole line pytest prints (on 80 columns, as in CI, where
    pytest does not cut the short summary's lines to the terminal's width), in order."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("CI", "true")
    files, expected = sections("docs/pytest.md")[index]
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    for name, body in files.items():
        (pytester.path / name).write_text(body)
    targets = [n for n in files if n.endswith((".py", ".yaml"))]
    result = pytester.runpytest("-ra", *targets)
    # pytest sometimes prefixes the first line of an assertion's explanation with its type;
    # a line of the progress (`test_x.py .F`) ends with the percentage, at the right margin
    patterns = [
        re.sub(r"^E       assert ", "E       *assert ", glob.escape(line))
        + (" *[[]*%]" if re.fullmatch(r"\S+ [.FEsx]+", line) else "")
        for line in expected.splitlines()
        if line
    ]
    result.stdout.fnmatch_lines(patterns)
