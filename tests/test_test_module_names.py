"""No two test modules share a file name: pytest imports them by basename (the suite has no
packages), and a second `test_adk.py` would be an import-mismatch error in a fresh checkout."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent


def test_every_test_module_has_a_name_of_its_own() -> None:
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if "fixtures" not in p.parts)
    assert [name for name, count in names.items() if count > 1] == []
