"""Shared fixtures: realistic booking turns, and an environment with no judge configured."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chatassert import ToolCall, Turn

# The helper modules beside the tests assert too: give their failures pytest's explanations.
pytest.register_assert_rewrite(
    "expect_decisions", "promptkit_decisions_helpers", "promptkit_helpers", "trajectory_helpers"
)

if Path(__file__).resolve().parent.parent.name == "mutants":
    # Under mutation testing (`mutmut run`, see docs/internals/mutation.md) every call of
    # mutated code passes through a trampoline, so deep trees need more stack frames than usual.
    sys.setrecursionlimit(20_000)


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
