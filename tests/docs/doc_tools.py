"""The generators of docs/tools/, loaded as modules for the tests that hold the pages to them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_tool(name: str) -> ModuleType:
    """The generator `docs/tools/<name>.py`, imported as `docs_<name>` (once per session)."""
    module_name = f"docs_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "docs/tools" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
