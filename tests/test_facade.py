"""The lazy facade: `import chatassert` is cheap, and every public name still resolves."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import chatassert

INIT = Path(chatassert.__file__)


def run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_importing_chatassert_loads_none_of_the_library() -> None:
    loaded = run(
        "import sys, chatassert\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'pydantic', 'regex', 'httpx', 'yaml', 'pytest'} or m.startswith('chatassert.')))"
    )
    assert loaded == "[]"


def test_a_name_is_imported_on_first_use_from_the_module_loaded_now() -> None:
    out = run(
        "import sys, chatassert\n"
        "contains = chatassert.Contains\n"
        "print('chatassert._text' in sys.modules, 'chatassert._json' in sys.modules)\n"
        "del sys.modules['chatassert._text']  # unloaded, as pytest's pytester does\n"
        "import chatassert._text\n"
        "print(chatassert.Contains is chatassert._text.Contains, contains is chatassert.Contains)"
    )
    assert out.split() == ["True", "False", "True", "False"]


def test_a_spec_finds_every_builtin_type_without_importing_them_first() -> None:
    out = run(
        "from chatassert import from_spec\n"
        "print(from_spec({'type': 'expect_all_match', 'path': 'r[*]', 'value': 1}).kind,"
        " from_spec({'type': 'tool_sequence', 'steps': ['a']}).kind)"
    )
    assert out == "expect_all_match tool_sequence"


@pytest.mark.parametrize("name", sorted(set(chatassert.__all__) - {"__version__"}))
def test_every_public_name_is_the_object_its_module_defines(name: str) -> None:
    module = importlib.import_module(chatassert._MODULES[name])
    assert getattr(chatassert, name) is getattr(module, name)


def test_the_three_lists_of_public_names_agree() -> None:
    # __all__, the runtime table and the imports type checkers read must name the same things.
    tree = ast.parse(INIT.read_text())
    checked = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    static = {
        alias.name: node.module
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert static == chatassert._MODULES
    assert set(chatassert.__all__) == {*chatassert._MODULES, "__version__"}
    assert set(dir(chatassert)) >= set(chatassert.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Contain'"):
        _ = chatassert.Contain  # type: ignore[attr-defined]
