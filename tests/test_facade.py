"""The facade: small, lazy, one name per concept; everything else has one namespace of its own.

`import chatassert` is cheap and every public name resolves (docs/internals/architecture.md, "The
facade"); each name the library exports is exported from exactly one public place.
"""

from __future__ import annotations

import ast
import importlib
import re
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
        "print('chatassert._text' in sys.modules, 'chatassert._each' in sys.modules)\n"
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
    module = importlib.import_module(f"chatassert.{chatassert._EXPORTS[name]}")
    assert getattr(chatassert, name) is getattr(module, name)


def test_the_imports_type_checkers_read_agree_with_the_table() -> None:
    # __all__ is derived from the runtime table; the imports type checkers read must match it.
    tree = ast.parse(INIT.read_text())
    checked = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    static = {
        alias.name: str(node.module).removeprefix("chatassert.")
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name  # `X as X`: an explicit re-export
    }
    assert static == chatassert._EXPORTS
    assert chatassert.__all__ == sorted([*chatassert._EXPORTS, "__version__"], key=str.casefold)
    assert set(dir(chatassert)) >= set(chatassert.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Contain'"):
        _ = chatassert.Contain  # type: ignore[attr-defined]


def test_the_top_level_stays_small() -> None:
    # One native class per concept; a dialect's own spellings live in its namespace.
    assert len(chatassert.__all__) <= 60


NAMESPACES = (
    "chatassert.flat",
    "chatassert.promptkit",
    "chatassert.expect",
    "chatassert.args",
    "chatassert.policies",
    "chatassert.usage",
    "chatassert.errors",
    "chatassert.judges",
    "chatassert.testing",
    "chatassert.specs",
    "chatassert.transcripts",
    "chatassert.reporting",
    "chatassert.authoring",
    "chatassert.plugins",
)


def _objects_of(module_name: str) -> dict[int, str]:
    module = importlib.import_module(module_name)
    return {id(getattr(module, name)): f"{module_name}.{name}" for name in module.__all__}


def test_no_concept_is_exported_under_two_names() -> None:
    # The same object may be reachable from two namespaces (errors re-exports the two top-level
    # errors), but never under two different names: one spelling per concept.
    names: dict[int, set[str]] = {}
    for module_name in ("chatassert", *NAMESPACES):
        for key, qualified in _objects_of(module_name).items():
            names.setdefault(key, set()).add(qualified.rsplit(".", 1)[1])
    assert {key: spelt for key, spelt in names.items() if len(spelt) > 1} == {}


def test_dialect_namespaces_add_no_top_level_name() -> None:
    top = set(_objects_of("chatassert"))
    for module_name in ("chatassert.flat", "chatassert.promptkit", "chatassert.expect"):
        assert top.isdisjoint(_objects_of(module_name)), module_name


@pytest.mark.parametrize("name", sorted(chatassert._MOVED))
def test_a_name_outside_the_top_level_is_where_the_error_says(name: str) -> None:
    home = chatassert._MOVED[name]
    with pytest.raises(AttributeError, match=re.escape(f"it is {home}.{name}")):
        getattr(chatassert, name)
    assert name in importlib.import_module(home).__all__


def test_judges_namespace_is_lazy_too() -> None:
    loaded = run(
        "import sys\n"
        "from chatassert.judges import Judge, Verdict, FunctionJudge\n"
        "print('httpx' in sys.modules)"
    )
    assert loaded == "False"
