"""How the OpenTelemetry reader puts a trace's spans together, whatever convention each
follows: model calls merged into one history, new agents' instructions, tool runs joined to
their calls."""

from __future__ import annotations

import json
from typing import Any

from chatassert.transcripts import parse_record
from chatassert.transcripts._build import Msg, tool_call
from chatassert.transcripts._spans import ToolRun, join_tool_runs


def _message(role: str, text: str = "", call: str = "", result: str = "") -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if text:
        parts.append({"type": "text", "content": text})
    if call:
        parts.append({"type": "tool_call", "id": call, "name": "transfer_to_billing"})
    if result:
        parts.append({"type": "tool_call_response", "id": result, "response": "ok"})
    return {"role": role, "parts": parts}


def _chat(start: int, system: str, inputs: list[Any], outputs: list[Any]) -> dict[str, Any]:
    return {
        "name": "chat",
        "startTimeUnixNano": str(start),
        "attributes": {
            "gen_ai.operation.name": "chat",
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": system}]),
            "gen_ai.input.messages": json.dumps(inputs),
            "gen_ai.output.messages": json.dumps(outputs),
        },
    }


def test_calls_after_a_handoff_repeat_the_history_and_add_no_turn_again() -> None:
    """The second agent's instructions open each of its requests; added where it took over,
    they stood between the history and the next request's repeat of it, and the third call
    was read as a new copy of the whole turn."""
    ask, handoff = _message("user", "Refund please"), _message("assistant", call="h1")
    moved, checking = _message("tool", result="h1"), _message("assistant", "Checking.")
    spans = [
        _chat(1, "Triage.", [ask], [handoff]),
        _chat(2, "Billing.", [ask, handoff, moved], [checking]),
        _chat(3, "Billing.", [ask, handoff, moved, checking, _message("user", "Thanks")],
              [_message("assistant", "Bye.")]),
    ]  # fmt: skip
    first, second = parse_record({"spans": spans}).turns
    assert [(t.input, t.text) for t in (first, second)] == [
        ("Refund please", "Checking."),
        ("Thanks", "Bye."),
    ]
    assert [(m.role, m.content) for m in first.messages] == [
        ("system", "Triage."),
        ("user", "Refund please"),
        ("assistant", None),
        ("system", "Billing."),
        ("tool", "ok"),
        ("assistant", "Checking."),
    ]


def test_tool_runs_join_by_id_then_by_name_and_the_rest_are_calls_where_they_ran() -> None:
    history = [
        Msg("user", "Go"),
        Msg("assistant", tool_calls=[tool_call("f", {}, "c1"), tool_call("g", {}, "c2")]),
        Msg("tool", "f done", tool_call_id="c1"),
        Msg("assistant", "Done."),
    ]
    join_tool_runs(
        history,
        [
            ToolRun("f", "c1", result="f again", is_error=True, position=2),  # marks c1's result
            ToolRun("f", "c1", result="twice", position=2),  # a second span of it: joins it too
            ToolRun("g", None, result="g done", position=2),  # no id: the first call of g
            ToolRun("h", "c9", {"x": 1}, result="h done", position=3),  # no such call: its own
            ToolRun(None, None, result="nameless", position=3),  # no call can be made of it
        ],
    )
    assert [(m.role, m.content, m.tool_call_id, m.is_error) for m in history] == [
        ("user", "Go", None, False),
        ("assistant", None, None, False),
        ("tool", "f done", "c1", True),
        ("tool", "g done", "c2", False),
        ("assistant", None, None, False),
        ("tool", "h done", "c9", False),
        ("assistant", "Done.", None, False),
    ]
    assert [(c.name, c.id, c.arguments) for c in history[4].tool_calls] == [("h", "c9", {"x": 1})]
