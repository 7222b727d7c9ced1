"""The optional engines some tests drive (Ray, Dask): installed by the test extra, required in
CI (.ci/run sets CHATASSERT_REQUIRE_RAY and CHATASSERT_REQUIRE_DASK)."""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType

import pytest


def optional_module(name: str, required_by: str) -> ModuleType:
    """Import an optional engine the tests drive (Ray, Dask): where it is not installed the
    calling test (or module, at import) skips with the reason, unless the variable
    `required_by` is set, as .ci/run sets it, where its absence is a failure."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get(required_by):
            raise
        pytest.skip(
            f"{name} is not installed (pip install -e '.[test]'); {required_by} is unset",
            allow_module_level=True,
        )


def require_installed(name: str, required_by: str) -> None:
    """`optional_module` without importing the module: whether `name` is installed, for a
    test module that imports it only in its tests (importing a large package at collection
    costs every test process its import time)."""
    try:
        found = importlib.util.find_spec(name) is not None
    except ImportError:  # a parent package is missing
        found = False
    if found:
        return
    if os.environ.get(required_by):
        raise ImportError(f"{name} is not installed, and {required_by} requires it")
    pytest.skip(
        f"{name} is not installed (pip install -e '.[test]'); {required_by} is unset",
        allow_module_level=True,
    )
