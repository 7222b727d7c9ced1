"""Readers name each tool result after the call it pairs with (SEMANTICS G20), as `Turn` does."""

from __future__ import annotations

from typing import Any

import pytest

from chatassert import Turn
from chatassert.transcripts import parse_record


def _call(name: str, ident: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": "{}"}}
    if ident is not None:
        out["id"] = ident
    return out


def _result(content: str, ident: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "tool", "content": content}
    if ident is not None:
        out["tool_call_id"] = ident
    return out


@pytest.mark.parametrize(
    ("calls", "results", "names"),
    [
        (  # the id-less result pairs with b: a's id is named by the later result
            [("a", "x"), ("b", None)],
            [("rb", None), ("ra", "x")],
            ["b", "a"],
        ),
        (  # more results than calls of a repeated id: the extra one pairs with no call
            [("a", "x"), ("b", "x")],
            [("r1", "x"), ("r2", "x"), ("r3", "x")],
            ["a", "b", None],
        ),
    ],
    ids=["named later", "repeated id, extra result"],
)
def test_a_read_log_names_results_as_turns_pair_them(
    calls: list[tuple[str, str | None]],
    results: list[tuple[str, str | None]],
    names: list[str | None],
) -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [_call(n, i) for n, i in calls]},
        *(_result(text, ident) for text, ident in results),
        {"role": "assistant", "content": "done"},
    ]
    (turn,) = parse_record({"messages": messages}).turns
    assert [r.name for r in turn.tool_results] == names
    paired = {r.content: c.name for c, r in turn.call_results if r is not None}
    assert [paired.get(r.content) for r in turn.tool_results] == names
    assert turn.tool_results == Turn(messages=messages).tool_results
