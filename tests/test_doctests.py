"""Run the docstring examples of every module of the package, so documentation stays true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import chatassert

# Modules that may only be imported with an optional extra installed, and that extra's name.
# A module listed here is skipped (saying so) only when its import fails: the test-core extra
# leaves these out.
OPTIONAL: dict[str, str] = {
    "chatassert.integrations.adk": "adk",
    "chatassert.integrations.agents_sdk": "agents",
}

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(chatassert.__path__, prefix="chatassert.")
    if info.name.rpartition(".")[2] != "__main__"
)


def test_modules_were_found() -> None:
    assert "chatassert._text" in MODULES
    assert "chatassert._combinators" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        extra = OPTIONAL.get(name)
        if extra is None:
            pytest.fail(f"{name} failed to import and needs no optional extra: {exc}")
        pytest.skip(f"{name} needs the optional extra chatassert[{extra}], not installed: {exc}")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} docstring example(s) of {name} failed"


def test_the_facade_documents_how_to_use_it() -> None:
    tests = doctest.DocTestFinder().find(chatassert, "chatassert")
    assert any(t.examples for t in tests if t.name == "chatassert")
