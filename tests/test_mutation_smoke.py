"""The mutation-testing set-up still works: a few mutants of one function, run by mutmut.

The whole mutation run takes tens of minutes (docs/internals/mutation.md); this smoke run uses the
project's own `[tool.mutmut]` settings, narrowed to one module and its test file, on a copy of
the sources, and checks that mutmut builds the mutants and that the tests kill them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _narrowed_config(module: str, tests: str) -> str:
    """The project's pyproject.toml with `[tool.mutmut]` narrowed to one module and test file."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    config = tomllib.loads(text)["tool"]["mutmut"]
    assert module in config["only_mutate"], "the smoke module must be part of the real run"
    text = re.sub(r"only_mutate = \[[^\]]*\]", f'only_mutate = ["{module}"]', text)
    text = re.sub(
        r"pytest_add_cli_args_test_selection = \[[^\]]*\]",
        f'pytest_add_cli_args_test_selection = ["{tests}"]',
        text,
    )
    return re.sub(r"also_copy = \[[^\]]*\]", 'also_copy = ["tests"]', text)


def test_mutmut_builds_and_kills_the_mutants_of_one_function(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "src", tmp_path / "src")
    (tmp_path / "tests").mkdir()
    for name in ("conftest.py", "test_combinators.py"):
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    (tmp_path / "pyproject.toml").write_text(
        _narrowed_config("src/chatassert/_result.py", "tests/test_combinators.py"),
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "mutmut", "run", "--max-children", "2",
         "chatassert._result.x_all_status*"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    results = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    checked = dict(re.findall(r"(x_all_status__mutmut_\d+): (\w+)", results))
    assert checked, results[:2000]
    assert set(checked.values()) == {"killed"}, checked
