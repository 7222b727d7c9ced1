"""The checks of one's own the spec-format tests use, registered for one test at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from spec_own_checks import register_all

from chatassert._params import BY_DIALECT, REGISTRY
from chatassert._registry import _load_builtins


@pytest.fixture
def own_checks() -> Iterator[None]:
    """Register the checks of `spec_own_checks`; afterwards, the registry as it was."""
    _load_builtins()
    kinds = dict(REGISTRY)
    names = {vocabulary: dict(table) for vocabulary, table in BY_DIALECT.items()}
    try:
        register_all()
        yield
    finally:
        REGISTRY.clear()
        REGISTRY.update(kinds)
        BY_DIALECT.clear()
        BY_DIALECT.update(names)
