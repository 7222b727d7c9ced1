"""What the span conventions read alike: flattened attribute lists, and tool runs joined to calls.

Instrumentations that cannot write a list into a span attribute flatten it into keys
(`gen_ai.prompt.0.role`, `llm.output_messages.1.message.tool_calls.0.tool_call.id`):
`indexed` reads such keys back into the list they were made from. A trace's tool spans
(standard `execute_tool`, OpenLLMetry `traceloop.span.kind` `tool`, OpenInference `TOOL`) are
each a `ToolRun`; `join_tool_runs` joins them to the calls the model-call spans show, and makes
a call of each one that joins none, so that a tool span is never lost when it is the only
record of its call.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import ToolCall
from chatassert.transcripts._build import Msg, described, tool_call, unrecorded_call

__all__ = ["ToolRun", "indexed", "join_tool_runs", "result_text", "role_of"]

_ROLES = {
    **{role: role for role in ("system", "developer", "user", "assistant", "tool")},
    "function": "tool",  # OpenAI's legacy function result
    "ipython": "tool",  # Llama's tool result
    "model": "assistant",  # Gemini
    "chatbot": "assistant",  # Cohere
    "ai": "assistant",  # LangChain
    "human": "user",  # LangChain
}

_MAX_INDEX_DIGITS = 9  # more is no list an instrumentation wrote, and int() of it stays cheap


def indexed(attrs: Mapping[str, Any], prefix: str) -> list[tuple[int, dict[str, Any]]]:
    """The list flattened into the keys `prefix{i}.{field}` of `attrs`, as `(i, {field: value})`
    in order of `i`. Keys whose `i` is not a whole number of at most nine digits are no part of
    such a list and are skipped.

    Example:
        >>> indexed({"p.1.role": "user", "p.0.role": "system", "p.0.content": "Be brief.",
        ...          "p.x.role": "?", "q.0.role": "?"}, "p.")
        [(0, {'role': 'system', 'content': 'Be brief.'}), (1, {'role': 'user'})]
    """
    groups: dict[int, dict[str, Any]] = {}
    start = len(prefix)
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        index, dot, field = key[start:].partition(".")
        if (
            dot
            and field
            and len(index) <= _MAX_INDEX_DIGITS
            and index.isascii()
            and index.isdigit()
        ):
            groups.setdefault(int(index), {})[field] = value
    return sorted(groups.items())


def role_of(value: object, where: str) -> str:
    """A flattened message's role as the subject model names it (`system`, `developer`,
    `user`, `assistant`, `tool`), from the names instrumentations write, in any case.

    Raises:
        TranscriptError: naming `where`, for anything else: a message of no known role has no
            place in a conversation's turns.

    Example:
        >>> role_of("Model", "gen_ai.completion.0.role")
        'assistant'
    """
    role = _ROLES.get(value.lower()) if isinstance(value, str) else None
    if role is None:
        raise TranscriptError(
            f"{where} must be a role (system, developer, user, assistant or tool), got "
            f"{described(value)}"
        )
    return role


def result_text(value: object) -> tuple[str, Any]:
    """A tool's result as logged, as `(text, structured data or None)`: a string is its own
    text; an object or list is also its data; anything else is its JSON text.

    Example:
        >>> result_text("18 C"), result_text({"temp": 18})
        (('18 C', None), ('{"temp": 18}', {'temp': 18}))
    """
    if isinstance(value, str):
        return value, None
    if value is None:
        return "", None
    text = json.dumps(value, ensure_ascii=False)
    return text, value if isinstance(value, dict | list) else None


@dataclass(slots=True)
class ToolRun:
    """One run of a tool that a span records.

    Attributes:
        name: The tool's name (None when the span does not give it).
        call_id: The id of the call it answers (None when the span does not give it).
        arguments: The arguments as logged (a mapping or a JSON string); None when not given.
        unrecorded: Why the span holds no arguments, and how to record them, when the
            instrumentation left them out; None when they are recorded (or absent because
            there were none).
        result: The tool's result as text.
        data: The structured result, when the span gives one.
        is_error: Whether the tool failed (the span's status is ERROR, or it names an error).
        position: How many messages the conversation held when the span started: where a
            call of its own goes when it joins no call the model-call spans show.
    """

    name: str | None
    call_id: str | None
    arguments: Any = None
    unrecorded: str | None = None
    result: str = ""
    data: Any = None
    is_error: bool = False
    position: int = 0

    def call(self) -> ToolCall | None:
        """The call this run answers, for a run that joins no logged call (None without a
        tool name: there is no call to make of it)."""
        if self.name is None:
            return None
        if self.unrecorded is not None:
            return unrecorded_call(self.name, self.call_id, self.unrecorded)
        return tool_call(self.name, self.arguments, self.call_id)


def join_tool_runs(history: list[Msg], runs: list[ToolRun]) -> None:
    """Join the tool runs of a trace to the calls of `history`, in place.

    A run joins the call with its `call_id`; a run without one joins the first call of its
    tool's name that no run has joined yet. A joined call's result is marked errored when the
    run failed, and a call without a result gets the run's, after the results it already has.
    A run that joins no call is a call of its own with its result, placed where the run
    happened (`ToolRun.position`). Linear in the messages and runs.

    Example:
        >>> h = [Msg("user", "Hi"), Msg("assistant", tool_calls=[tool_call("f", {}, "c1")])]
        >>> join_tool_runs(h, [ToolRun("f", "c1", result="boom", is_error=True, position=2),
        ...                    ToolRun("g", None, {"q": 1}, result="ok", position=2)])
        >>> [(m.role, m.content, m.is_error, [c.name for c in m.tool_calls]) for m in h]
        [('user', 'Hi', False, []), ('assistant', None, False, ['f']), ('tool', 'boom', True, []),
         ('assistant', None, False, ['g']), ('tool', 'ok', False, [])]
    """
    if not runs:
        return
    by_id: dict[str, tuple[int, ToolCall]] = {}
    by_name: dict[str, deque[tuple[int, ToolCall]]] = {}
    run_ids = {run.call_id for run in runs if run.call_id is not None}
    for position, msg in enumerate(history):
        if msg.role == "assistant" and msg.tool_calls:
            for call in msg.tool_calls:
                if call.id is not None:
                    by_id.setdefault(call.id, (position, call))
                if call.id is None or call.id not in run_ids:
                    by_name.setdefault(call.name, deque()).append((position, call))
    results = {m.tool_call_id: m for m in history if m.role == "tool" and m.tool_call_id}
    after_call: dict[int, list[Msg]] = {}  # results to add after the message at a position
    own_calls: dict[int, list[Msg]] = {}  # calls of their own, before the message at a position
    for run in runs:
        found = None
        if run.call_id is not None:
            found = by_id.get(run.call_id)  # two spans of one call join it both
        elif run.name is not None and run.name in by_name:
            queue = by_name[run.name]
            found = queue.popleft() if queue else None
        if found is not None:
            position, call = found
            result = results.get(call.id) if call.id is not None else None
            if result is not None:
                result.is_error = result.is_error or run.is_error
            else:
                added = _result(run, call.id)
                after_call.setdefault(position, []).append(added)
                if call.id is not None:
                    results[call.id] = added
            continue
        made = run.call()
        if made is None:
            continue
        own = own_calls.setdefault(run.position, [])
        own.append(Msg(role="assistant", tool_calls=[made]))
        own.append(_result(run, made.id))
        if made.id is not None:
            results[made.id] = own[-1]
    if after_call or own_calls:
        history[:] = _placed(history, after_call, own_calls)


def _result(run: ToolRun, call_id: str | None) -> Msg:
    return Msg(
        role="tool",
        content=run.result,
        tool_call_id=call_id,
        data=run.data,
        is_error=run.is_error,
    )


def _placed(
    history: list[Msg], after_call: dict[int, list[Msg]], own_calls: dict[int, list[Msg]]
) -> list[Msg]:
    """`history` with results added after their calls (after the results those calls already
    have) and calls of their own added before the message at their position."""
    out: list[Msg] = []
    pending: list[Msg] = []
    for position, msg in enumerate(history):
        if pending and msg.role != "tool":
            out.extend(pending)
            pending = []
        if position in own_calls:
            out.extend(pending)
            pending = []
            out.extend(own_calls[position])
        out.append(msg)
        if position in after_call:
            pending = pending + after_call[position]
    out.extend(pending)
    out.extend(own_calls.get(len(history), ()))
    return out
