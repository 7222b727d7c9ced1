"""Shared fixtures: realistic booking turns, and an environment with no judge configured."""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from chatassert import ToolCall, Turn

# The helper modules beside the tests assert too: give their failures pytest's explanations.
pytest.register_assert_rewrite(
    "expect_decisions", "promptkit_decisions_helpers", "promptkit_helpers", "trajectory_helpers"
)

if Path(__file__).resolve().parent.parent.name == "mutants":
    # Under mutation testing (`mutmut run`, see docs/internals/mutation.md) every call of
    # mutated code passes through a trampoline, so deep trees need more stack frames than usual.
    sys.setrecursionlimit(20_000)


SRC = Path(__file__).resolve().parents[1] / "src"

# Hypothesis's deadline (200 ms an example) and its too-slow health check time the test on the
# wall clock, which a loaded machine breaks; a property holds or not whatever the machine's load.
# The fuzz targets have their own CPU-time limit per input (tests/fuzz/fuzzing.py).
settings.register_profile("chatassert", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("chatassert")


def pytest_configure(config: pytest.Config) -> None:
    """Compile the package's bytecode once, before any test starts a `chatassert` process.

    Where PYTHONDONTWRITEBYTECODE is set (as in many CI images and containers) no process writes
    it, so each of the suite's ~2,000 command-line subprocesses would compile every module it
    imports again: about 0.3 s of CPU each, a third of a short `chatassert check`. Python still
    reads bytecode it finds, so writing it once here makes every later process start as a user's
    installed one does. Under xdist only the controller does it.
    """
    if not hasattr(config, "workerinput") and (
        sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")
    ):
        compileall.compile_dir(SRC / "chatassert", quiet=1)


# Likewise pytest caches the assertion-rewritten test modules only where bytecode may be written:
# without this each worker rewrote and compiled all ~300 test modules on every run.
sys.dont_write_bytecode = False


# Tests that need a large optional install: Ray (about 600 MB), Dask, or Chromium driven by
# Playwright; and those that build and install examples/plugin into a virtual environment of
# their own (with the build backend, hatchling) and run its pieces in some twenty processes.
# They carry the `heavy` marker, so `python -m pytest -m "not heavy"` runs the rest
# (README.md, "Running the tests"); .ci/run runs everything and requires them. Each such module
# stays on one worker process under pytest-xdist (its engine, browser or install starts once).
HEAVY = {  # a test module, or a test module and a parameter id of its tests
    "tests/integrations/test_ray.py": "ray",
    "tests/integrations/test_dask.py": "dask",
    "tests/reporting/test_html_browser.py": "browser",
    "tests/compare/test_compare_browser.py": "browser",
    "tests/docs/test_pages.py[docs/engines.md]": "dask",
    "tests/plugins/test_example_plugin.py": "example-plugin",
}


FIRST = ("ray", "example-plugin", "browser", "dask")
"""The heavy groups, longest first: they run before the other tests, so that xdist hands each
to a worker at the start and spreads the rest around them (a group handed out last keeps one
worker busy alone at the end: the Ray group alone takes over a minute)."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that need Ray, Dask or the browser `heavy`, keep each group on one
    xdist worker, and put the groups first, longest first (the same order in every worker)."""
    rank: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        parameters = item.nodeid[item.nodeid.find("[") :] if "[" in item.nodeid else ""
        group = HEAVY.get(path) or HEAVY.get(path + parameters)
        if group is not None:
            item.add_marker(pytest.mark.heavy)
            item.add_marker(pytest.mark.xdist_group(group))
            rank[item.nodeid] = FIRST.index(group)
    items.sort(key=lambda item: rank.get(item.nodeid, len(FIRST)))  # stable: file order kept


@pytest.fixture(autouse=True)
def _no_judge_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make judge resolution deterministic: no test sees a judge configured by the shell."""
    monkeypatch.delenv("CHATASSERT_JUDGE", raising=False)
    monkeypatch.delenv("CHATASSERT_JUDGE_MODEL", raising=False)


@pytest.fixture
def booking_turn() -> Turn:
    """A restaurant-booking turn: an availability check, a reservation, a confirmation."""
    return Turn(
        input="I want to book a table for 4 on Saturday",
        text="Your reservation confirmed for Saturday at 7:30 PM, confirmation #AB12CD.",
        tool_calls=[
            ToolCall(name="check_availability", arguments={"date": "2024-02-15"}, id="c1"),
            ToolCall(
                name="create_reservation",
                arguments={"party_size": 4, "date": "2024-02-15", "time": "19:30"},
                id="c2",
            ),
        ],
    )
