"""Turn selectors at their edges: whole result records, checked and async-checked alike.

Each case pins the record a selector documents (docs/guide.md "Selectors": `OnEveryTurn` is
like `AllOf` over turns, `OnAnyTurn` like `AnyOf`, results name the turn they came from; the
`OnTurn` / `OnLastTurn` docstrings: a conversation without the turn is an error). Found by
mutation testing (docs/mutation.md): before these, the reason, details or children of these
records could change without a failing test.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from chatassert import (
    Assertion,
    Contains,
    ContainsFunctionCall,
    Conversation,
    OnAnyTurn,
    OnLastTurn,
    OnTurn,
    Result,
    ToolCall,
    Turn,
)


def record(result: Result) -> dict[str, Any]:
    """The observable fields of a result tree (everything but its duration)."""
    return {
        "status": result.status.value,
        "name": result.name,
        "reason": result.reason,
        "details": dict(result.details),
        "location": result.location,
        "children": [record(child) for child in result.children],
    }


def called(*names: str) -> Turn:
    return Turn(text="done", tool_calls=[ToolCall(name=n) for n in names])


# Three turns whose failures all read differently, so a reason names which turn it came from.
THREE = Conversation(turns=[called("a"), called("b"), called("c")])
EMPTY = Conversation(turns=[])


def leaf(status: str, reason: str, details: dict[str, Any], at: int) -> dict[str, Any]:
    return {
        "status": status,
        "name": "contains_function_call",
        "reason": reason,
        "details": details,
        "location": f"turns[{at}]",
        "children": [],
    }


def missing_x(at: int, tool: str) -> dict[str, Any]:
    return leaf(
        "failed",
        f"Expected tool 'x', found: ['{tool}']",
        {"tool": "x", "called_tools": [tool]},
        at,
    )


CASES: list[tuple[str, Assertion, Conversation, dict[str, Any]]] = [
    (
        "on_any_turn: no turn passed, the reason quotes the last turn",
        OnAnyTurn(ContainsFunctionCall("x")),
        THREE,
        {
            "status": "failed",
            "name": "on_any_turn",
            "reason": "none of 3 turns passed; last: turns[2]: Expected tool 'x', found: ['c']",
            "details": {"passed": 0, "failed": 3, "error": 0, "skipped": 0},
            "location": None,
            "children": [missing_x(0, "a"), missing_x(1, "b"), missing_x(2, "c")],
        },
    ),
    (
        "on_any_turn: the first passing turn is named",
        OnAnyTurn(ContainsFunctionCall("b")),
        THREE,
        {
            "status": "passed",
            "name": "on_any_turn",
            "reason": "turns[1] passed",
            "details": {"passed": 1, "failed": 2, "error": 0, "skipped": 0},
            "location": None,
            "children": [
                leaf(
                    "failed",
                    "Expected tool 'b', found: ['a']",
                    {"tool": "b", "called_tools": ["a"]},
                    0,
                ),
                leaf("passed", "calls b", {"tool": "b"}, 1),
                leaf(
                    "failed",
                    "Expected tool 'b', found: ['c']",
                    {"tool": "b", "called_tools": ["c"]},
                    2,
                ),
            ],
        },
    ),
    (
        "on_any_turn: no turns fails, like AnyOf()",
        OnAnyTurn(Contains("x")),
        EMPTY,
        {
            "status": "failed",
            "name": "on_any_turn",
            "reason": "the conversation has no turns",
            "details": {"passed": 0, "failed": 0, "error": 0, "skipped": 0},
            "location": None,
            "children": [],
        },
    ),
    (
        "on_last_turn: the last turn is checked and named",
        OnLastTurn(ContainsFunctionCall("x")),
        THREE,
        {
            "status": "failed",
            "name": "on_last_turn",
            "reason": "Expected tool 'x', found: ['c']",
            "details": {},
            "location": None,
            "children": [missing_x(2, "c")],
        },
    ),
    (
        "on_last_turn: no turns is an error",
        OnLastTurn(Contains("x")),
        EMPTY,
        {
            "status": "error",
            "name": "on_last_turn",
            "reason": "the conversation has no turns",
            "details": {"turns": 0},
            "location": None,
            "children": [],
        },
    ),
    (
        "on_turn: the turn is checked and named",
        OnTurn(1, ContainsFunctionCall("x")),
        THREE,
        {
            "status": "failed",
            "name": "on_turn",
            "reason": "Expected tool 'x', found: ['b']",
            "details": {},
            "location": None,
            "children": [missing_x(1, "b")],
        },
    ),
    (
        "on_turn: a turn the conversation does not have is an error",
        OnTurn(5, Contains("x")),
        THREE,
        {
            "status": "error",
            "name": "on_turn",
            "reason": "the conversation has no turn 5 (it has 3 turns)",
            "details": {"index": 5, "turns": 3},
            "location": None,
            "children": [],
        },
    ),
]


@pytest.mark.parametrize(("assertion", "subject", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_selector_records(assertion: Assertion, subject: Conversation, expected: Any) -> None:
    assert record(assertion.check(subject)) == expected


@pytest.mark.parametrize(("assertion", "subject", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_selector_records_async(assertion: Assertion, subject: Conversation, expected: Any) -> None:
    """`acheck` gives the same records as `check` (the Assertion contract, docs/guide.md)."""
    assert record(asyncio.run(assertion.acheck(subject))) == expected
