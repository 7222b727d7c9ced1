"""Transcript builders shared by the promptkit tests."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

from chatassert import Conversation, GuardrailEvent, Turn, WorkflowState

HEADER = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata:
  name: example
spec:
"""

Call = tuple[str, dict[str, Any], str | None]


def turn(
    user: str,
    text: str = "",
    calls: Sequence[Call] = (),
    *,
    guardrails: Sequence[str] = (),
    state: str | None = None,
) -> Turn:
    """One turn: the user's message, the tool calls (name, arguments, result) and the reply."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
    if calls:
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                    for i, (name, args, _) in enumerate(calls)
                ],
            }
        )
        messages += [
            {"role": "tool", "tool_call_id": f"c{i}", "content": result}
            for i, (_, _, result) in enumerate(calls)
            if result is not None
        ]
    messages.append({"role": "assistant", "content": text})
    return Turn(
        messages=messages,
        guardrails=[GuardrailEvent(name=g) for g in guardrails],
        workflow=None if state is None else WorkflowState(current=state),
    )


def chat(*turns: Turn, workflow: WorkflowState | None = None) -> Conversation:
    """A conversation of these turns."""
    return Conversation(turns=turns, workflow=workflow)


def scenario(body: str, *, section: str = "turns") -> str:
    """Wrap a document snippet into a Scenario manifest.

    `section` says what the snippet is: `turns` (a list of turns), `assertions` (one turn's
    `assertions:` block), or `spec` (keys of the spec, such as `conversation_assertions:`).
    """
    body = textwrap.dedent(body)
    if section == "turns":
        return HEADER + "  turns:\n" + textwrap.indent(body, "    ")
    if section == "assertions":
        return (
            HEADER
            + "  turns:\n    - role: user\n      content: hi\n"
            + textwrap.indent(body, "      ")
        )
    return HEADER + "  turns:\n    - role: user\n      content: hi\n" + textwrap.indent(body, "  ")
