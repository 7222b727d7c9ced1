"""What the PromptKit checks share: quoting, names, assistant texts, argument rendering.

The PromptKit dialect (docs/promptkit.md) checks a turn or a whole conversation. Turn-level
types read one turn (its text, G1, and its tool calls, G2); conversation-level types read a
whole conversation and report violations with the `turn_index` they happened in, a
`description` and `evidence`. Agents are tools whose name is the agent member name
(`a2a__research_agent__search_papers`), so agent checks are tool checks over those names. The
checks are in `_promptkit_content`, `_promptkit_names`, `_promptkit_args` and
`_promptkit_judged`; `GuardrailTriggered` is in `_guardrails` and the workflow types in
`_workflow`.

Tests: tests/promptkit/test_promptkit_content.py, tests/promptkit/test_promptkit_names.py,
tests/promptkit/test_promptkit_args.py, tests/promptkit/test_promptkit_judged.py and
tests/promptkit/test_guardrails.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from chatassert._errors import RegexTimeoutError
from chatassert._models import Conversation, ToolCall, Turn
from chatassert._params import string_values
from chatassert._result import Result, Status

__all__ = [
    "CONTENT_LIMIT",
    "assistant_texts",
    "assistant_texts_of",
    "call_arguments",
    "checked_names",
    "quoted_list",
    "render",
    "timeout_result",
    "unique",
]

_E = Status.ERROR


CONTENT_LIMIT = 500
"""How much of the response `content_matches` keeps in its failure details."""


# -- shared helpers --------------------------------------------------------------------------


def quoted_list(values: Sequence[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def unique(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def assistant_texts(conversation: Conversation) -> list[tuple[int, str]]:
    """Return every assistant message with text as `(turn_index, text)`, in order.

    A turn built without messages contributes its `text`.
    """
    return assistant_texts_of(conversation.turns)


def assistant_texts_of(turns: Sequence[Turn]) -> list[tuple[int, str]]:
    """`assistant_texts` over a sequence of turns (the turn index is the position in it)."""
    out: list[tuple[int, str]] = []
    for index, turn in enumerate(turns):
        if turn.messages:
            out.extend(
                (index, m.content) for m in turn.messages if m.role == "assistant" and m.content
            )
        elif turn.text:
            out.append((index, turn.text))
    return out


def call_arguments(call: ToolCall) -> Any:
    return call.raw_arguments if call.arguments_error is not None else call.arguments


def render(value: Any) -> str:
    """The string a pattern is matched against: a string itself, else its JSON rendering."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def timeout_result(kind: str, exc: RegexTimeoutError, pattern: str) -> Result:
    return Result(_E, kind, str(exc), {"pattern": pattern, "error": "timeout"})


def checked_names(value: str | Sequence[str], what: str) -> tuple[str, ...]:
    return string_values(value, what)
