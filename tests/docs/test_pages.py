"""Run the code examples of the README and the core documentation pages.

Each page's ```python blocks run in order in one namespace, from the repository root. A block
followed by a line "prints" and a ```text block must print exactly that text.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import types
from pathlib import Path

import pytest

from chatassert import _registry, plugins
from optional_engines import optional_module

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    "README.md",
    "docs/guide.md",
    "docs/flat.md",
    "docs/specs.md",
    "docs/internals/architecture.md",
    "docs/usage.md",
    "docs/grounding.md",
    "docs/records.md",
    "docs/engines.md",
    "docs/write-a-check.md",
    "docs/write-a-judge.md",
    "docs/plugins.md",
    "docs/guard-a-running-agent.md",
]
# Pages whose examples import an optional engine: they skip where it is not installed, unless
# the variable that requires it is set (as .ci/run sets it).
NEEDS = {"docs/engines.md": ("dask", "CHATASSERT_REQUIRE_DASK")}
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\nprints\s*\n+```text\n(.*?)```)?", re.S)


def blocks(page: str) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer((ROOT / page).read_text())]


@pytest.mark.parametrize("page", PAGES)
def test_examples_run_and_print_what_the_page_says(page: str) -> None:
    if page in NEEDS:
        optional_module(*NEEDS[page])
    found = blocks(page)
    assert found, f"{page} has no python examples"
    # a module of its own, so that the classes a page defines pickle (as in a user's module)
    module = types.ModuleType("docs_" + re.sub(r"\W", "_", page))
    namespace: dict[str, object] = module.__dict__
    sys.modules[module.__name__] = module
    cwd = os.getcwd()
    os.chdir(ROOT)
    _registry.registered()  # the built-in types first: the snapshot must hold them
    registry = dict(_registry.REGISTRY)  # pages may register example types
    dialects = {k: dict(v) for k, v in _registry.BY_DIALECT.items()}
    judges = dict(plugins._JUDGE_FACTORIES)  # and example judges
    try:
        for number, (code, expected) in enumerate(found, 1):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{page} example {number}", "exec"), namespace)
            if expected is not None:
                assert out.getvalue() == expected, f"{page} example {number} printed otherwise"
    finally:
        os.chdir(cwd)
        sys.modules.pop(module.__name__, None)
        _registry.REGISTRY.clear()
        _registry.REGISTRY.update(registry)
        _registry.BY_DIALECT.clear()
        _registry.BY_DIALECT.update(dialects)
        plugins._JUDGE_FACTORIES.clear()
        plugins._JUDGE_FACTORIES.update(judges)
