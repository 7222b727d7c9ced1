"""The Google ADK eval set adapter: an `EvalSet` file, one conversation per eval case.

An eval set (`*.evalset.json`) is one JSON document, `{"eval_set_id", "name", "description",
"eval_cases": [...], "creation_timestamp"}`; it is read whole, as one record, and each eval case
is one of its conversations (`Record.parts`, named by the case's `eval_id`). A line holding a
single eval case (`{"eval_id", "conversation": [...]}`) is one conversation. Keys are read in
ADK's own snake_case or in the camelCase of its aliases.

Each invocation of a case's `conversation` is one turn:

- `user_content` (a genai `Content`: `{"role", "parts": [{"text"}, ...]}`) is the input;
  `final_response` is the turn's text (text parts joined by a line break; `thought` parts are
  not text);
- `intermediate_data` is either `{"tool_uses", "tool_responses", "intermediate_responses"}`
  (calls `{id, name, args}`, responses `{id, name, response}`, and `[author, parts]` pairs a
  sub-agent said on the way) or `{"invocation_events": [{"author", "content",
  "usage_metadata", "model_version"}]}`, the events in the order they happened;
- a function response whose `response` holds an `error` is an errored result; `{"result":
  text}` is read as that text, any other response as its JSON text (with `data` the response);
- the author of the last intermediate response (or event) is the turn's agent;
- `invocation_id`, `creation_timestamp`, `duration` (as `latency_ms`), `rubrics` and the
  events' token usage and model are the turn's metadata; the case's `session_input`,
  `final_session_state`, `rubrics` and the set's id are the conversation's. A `metadata` object
  beside the defined keys (ADK keeps unknown keys) is metadata too.

The older `*.test.json` form (a list of `{"query", "expected_tool_use": [{"tool_name",
"tool_input"}], "expected_intermediate_agent_responses": [{"author", "text"}], "reference"}`, or
a list of `{"name", "data": [...], "initial_session"}` cases) is read the same way.

`write_case` writes a conversation back as an eval case (see docs/offline.md for what an eval
set cannot hold).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, Message, ToolResult, Turn
from chatassert.transcripts._build import (
    Msg,
    count,
    described,
    duration,
    list_at,
    make_conversation,
    make_message,
    make_turn,
    tool_call,
)

__all__ = ["detect", "parse", "parts", "write_case"]

_CAMEL = {
    "eval_set_id": "evalSetId",
    "eval_cases": "evalCases",
    "eval_id": "evalId",
    "session_input": "sessionInput",
    "final_session_state": "finalSessionState",
    "creation_timestamp": "creationTimestamp",
    "user_content": "userContent",
    "final_response": "finalResponse",
    "intermediate_data": "intermediateData",
    "invocation_id": "invocationId",
    "invocation_events": "invocationEvents",
    "tool_uses": "toolUses",
    "tool_responses": "toolResponses",
    "intermediate_responses": "intermediateResponses",
    "usage_metadata": "usageMetadata",
    "model_version": "modelVersion",
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "prompt_token_count": "promptTokenCount",
    "candidates_token_count": "candidatesTokenCount",
    "total_token_count": "totalTokenCount",
    "conversation_scenario": "conversationScenario",
}

_USAGE = (
    ("prompt_token_count", "input_tokens"),
    ("candidates_token_count", "output_tokens"),
    ("total_token_count", "total_tokens"),
)


def _get(raw: Mapping[str, Any], key: str) -> Any:
    """The value of `key`, in ADK's snake_case or its camelCase alias."""
    value = raw.get(key)
    if value is None and key in _CAMEL:
        value = raw.get(_CAMEL[key])
    return value


def _is_set(record: Any) -> bool:
    return (
        isinstance(record, Mapping)
        and isinstance(_get(record, "eval_cases"), list)
        and _get(record, "eval_set_id") is not None
    )


def _is_case(record: Any) -> bool:
    return (
        isinstance(record, Mapping)
        and _get(record, "eval_id") is not None
        and ("conversation" in record or _get(record, "conversation_scenario") is not None)
    )


def _is_old(record: Any) -> bool:
    """The older `.test.json` form: a list of queries, or of named cases holding them."""
    return (
        isinstance(record, list)
        and bool(record)
        and all(isinstance(item, Mapping) for item in record)
        and (
            all("query" in item for item in record)
            or all("name" in item and isinstance(item.get("data"), list) for item in record)
        )
    )


def detect(record: Any) -> bool:
    """Whether `record` is an ADK eval set, one eval case, or the older `.test.json` list."""
    return _is_set(record) or _is_case(record) or _is_old(record)


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """Each eval case as `(eval_id, the set holding only that case)`; None for a record of one
    conversation (a single eval case, the older list of queries)."""
    if _is_set(record):
        cases = _get(record, "eval_cases")
        if not cases:
            raise TranscriptError("the eval set holds no eval cases")
        head = {k: v for k, v in record.items() if k not in ("eval_cases", "evalCases")}
        return [(_label(c, i), {**head, "eval_cases": [c]}) for i, c in enumerate(cases)]
    if _is_old(record) and "query" not in record[0]:
        return [(_label(c, i, "name"), [c]) for i, c in enumerate(record)]
    return None


def _label(case: object, index: int, key: str = "eval_id") -> str:
    value = _get(case, key) if isinstance(case, Mapping) else None
    return f"eval_cases[{index}]" if value is None else str(value)


def parse(record: Any) -> Conversation:
    """Build the conversation of an eval set holding one case, of one case, or of the older form.

    Raises:
        TranscriptError: when the set holds no case or several, or a case is malformed.
    """
    if _is_set(record):
        cases = _get(record, "eval_cases")
        if len(cases) != 1:
            raise TranscriptError(
                f"the eval set holds {len(cases)} eval cases: read it with read_records, which "
                "reads each as a conversation"
            )
        extra = {"eval_set_id": _get(record, "eval_set_id")}
        return _case(cases[0], "eval_cases[0]", extra)
    if _is_case(record):
        return _case(record, "", {})
    if _is_old(record):
        if "query" in record[0]:
            return _old_case(record, None, None)
        if len(record) != 1:
            raise TranscriptError(
                f"the file holds {len(record)} eval cases: read it with read_records, which "
                "reads each as a conversation"
            )
        case = record[0]
        return _old_case(case["data"], case.get("name"), case.get("initial_session"))
    raise TranscriptError("expected a Google ADK eval set ('eval_set_id' and 'eval_cases')")


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _case(case: object, where: str, extra: Mapping[str, Any]) -> Conversation:
    if not isinstance(case, Mapping):
        raise TranscriptError(f"{where or 'the eval case'} is not an object, got {described(case)}")
    invocations = case.get("conversation")
    if invocations is None:
        if _get(case, "conversation_scenario") is not None:
            raise TranscriptError(
                "the eval case has a conversation_scenario (a plan for a simulated user), not "
                "a conversation to check"
            )
        raise TranscriptError(f"{_at(where, 'conversation')} is missing")
    if not isinstance(invocations, list):
        raise TranscriptError(
            f"{_at(where, 'conversation')} must be a list, got {described(invocations)}"
        )
    turns: list[Turn] = []
    agent: tuple[str, str] | None = None
    for i, invocation in enumerate(invocations):
        turn, agent = read_invocation(invocation, f"{_at(where, 'conversation')}[{i}]", i, agent)
        turns.append(turn)
    metadata: dict[str, Any] = {}
    given = case.get("metadata")
    if isinstance(given, Mapping):
        metadata.update(given)
    for key in ("session_input", "final_session_state", "rubrics", "creation_timestamp"):
        value = _get(case, key)
        if value not in (None, {}, 0, 0.0):
            metadata[key] = value
    for key, value in extra.items():
        if value is not None:
            metadata[key] = value
    eval_id = _get(case, "eval_id")
    return make_conversation(turns, id=eval_id, metadata=metadata)


def _text(content: object, where: str) -> str | None:
    """The text of a genai `Content` (or of a list of parts): its text parts, one per line."""
    if content is None:
        return None
    found = content.get("parts") if isinstance(content, Mapping) else content
    if found is None:
        return None
    if not isinstance(found, list):
        raise TranscriptError(f"{where}.parts must be a list, got {described(found)}")
    texts = [
        p["text"]
        for p in found
        if isinstance(p, Mapping) and isinstance(p.get("text"), str) and not p.get("thought")
    ]
    return "\n".join(texts) if texts else None


def _content(raw: object, where: str) -> Mapping[str, Any] | None:
    if raw is None or isinstance(raw, Mapping):
        return raw
    raise TranscriptError(f"{where} must be a genai Content object, got {described(raw)}")


def _call(raw: object, where: str) -> Any:
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} is not a function call object, got {described(raw)}")
    args = raw.get("args")
    if args is not None and not isinstance(args, Mapping):
        raise TranscriptError(f"{where}.args must be an object, got {described(args)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(f"{where}.name must be the tool's name, got {described(name)}")
    return tool_call(name, dict(args or {}), raw.get("id"))


def _response(raw: object, where: str) -> Msg:
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} is not a function response object, got {described(raw)}")
    response = raw.get("response")
    if response is not None and not isinstance(response, Mapping):
        raise TranscriptError(f"{where}.response must be an object, got {described(response)}")
    body = dict(response or {})
    only = next(iter(body.values())) if len(body) == 1 else None
    if isinstance(only, str) and ("result" in body or "error" in body):
        text = only
    else:
        text = json.dumps(body, ensure_ascii=False)
    error = body.get("error")
    call_id, name = raw.get("id"), raw.get("name")
    return Msg(
        role="tool",
        content=text,
        tool_call_id=None if call_id is None else str(call_id),
        name=name if isinstance(name, str) and name else None,
        is_error=error is not None and error is not False and error != "",
        data=body,
    )


def _agent_place(index: int) -> str:
    return f"conversation[{index}] (the author of its last intermediate response)"


def read_invocation(
    raw: object, where: str, index: int, before: tuple[str, str] | None
) -> tuple[Turn, tuple[str, str] | None]:
    """The turn of one invocation, and the agent active after it (`before`, unless the
    invocation's intermediate responses name another).

    Raises:
        TranscriptError: naming the place of what is malformed.
    """
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} is not an invocation object, got {described(raw)}")
    user = _content(_get(raw, "user_content"), f"{where}.user_content")
    input_text = _text(user, f"{where}.user_content")
    history = [Msg(role="user", content=input_text)]
    metadata: dict[str, Any] = {}
    given = raw.get("metadata")
    if isinstance(given, Mapping):
        metadata.update(given)
    author: str | None = None
    data = _get(raw, "intermediate_data")
    if data is not None and not isinstance(data, Mapping):
        raise TranscriptError(f"{where}.intermediate_data must be an object, got {described(data)}")
    at = f"{where}.intermediate_data"
    if data is not None and _get(data, "invocation_events") is not None:
        author = _events(
            _get(data, "invocation_events"), f"{at}.invocation_events", history, metadata
        )
    elif data is not None:
        author = _steps(data, at, history)
    final = _content(_get(raw, "final_response"), f"{where}.final_response")
    text = _text(final, f"{where}.final_response")
    if text:
        history.append(Msg(role="assistant", content=text))
    for key in ("invocation_id", "creation_timestamp", "rubrics"):
        value = _get(raw, key)
        if value not in (None, "", 0, 0.0):
            metadata[key] = value
    seconds = duration(raw.get("duration"), f"{where}.duration")
    if seconds is not None:
        metadata["latency_ms"] = seconds * 1000
    after = (author, _agent_place(index)) if author else before
    messages = tuple(
        make_message(m.role, m.content, tuple(m.tool_calls), m.tool_call_id, m.name)
        for m in history
    )
    calls = [c for m in history if m.role == "assistant" for c in m.tool_calls]
    outputs = [m for m in history if m.role == "tool"]
    turn = make_turn(messages, input_text, text or "", calls, outputs, (), metadata, after)
    return turn, after


def _steps(data: Mapping[str, Any], where: str, history: list[Msg]) -> str | None:
    """Read `IntermediateData`: the calls, their responses, then what sub-agents said."""
    calls = [
        _call(c, f"{where}.tool_uses[{i}]")
        for i, c in enumerate(list_at(_get(data, "tool_uses"), f"{where}.tool_uses"))
    ]
    if calls:
        history.append(Msg(role="assistant", tool_calls=calls))
    responses = list_at(_get(data, "tool_responses"), f"{where}.tool_responses")
    history.extend(_response(r, f"{where}.tool_responses[{i}]") for i, r in enumerate(responses))
    author: str | None = None
    said = list_at(_get(data, "intermediate_responses"), f"{where}.intermediate_responses")
    for i, pair in enumerate(said):
        at = f"{where}.intermediate_responses[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise TranscriptError(f"{at} must be an [author, parts] pair, got {described(pair)}")
        name, pieces = pair
        text = _text(list_at(pieces, f"{at}[1]"), at)
        if isinstance(name, str) and name:
            author = name
        if text is not None:
            history.append(Msg(role="assistant", content=text))
    return author


def _events(events: object, where: str, history: list[Msg], metadata: dict[str, Any]) -> str | None:
    """Read `InvocationEvents`: each event's text and calls, then its function responses."""
    author: str | None = None
    for i, event in enumerate(list_at(events, where)):
        at = f"{where}[{i}]"
        if not isinstance(event, Mapping):
            raise TranscriptError(f"{at} is not an event object, got {described(event)}")
        name = event.get("author")
        content = _content(event.get("content"), f"{at}.content")
        pieces = list_at(content.get("parts") if content else None, f"{at}.content.parts")
        calls, responses, texts = [], [], []
        for j, part in enumerate(pieces):
            if not isinstance(part, Mapping):
                continue
            call, response = _get(part, "function_call"), _get(part, "function_response")
            if call is not None:
                calls.append(_call(call, f"{at}.content.parts[{j}].function_call"))
            elif response is not None:
                responses.append(_response(response, f"{at}.content.parts[{j}].function_response"))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        if name == "user":
            texts = []
        elif isinstance(name, str) and name:
            author = name
        if texts or calls:
            history.append(
                Msg(role="assistant", content="\n".join(texts) or None, tool_calls=calls)
            )
        history.extend(responses)
        _usage(event, at, metadata)
    return author


def _usage(event: Mapping[str, Any], where: str, metadata: dict[str, Any]) -> None:
    usage = _get(event, "usage_metadata")
    if isinstance(usage, Mapping):
        for key, name in _USAGE:
            value = count(_get(usage, key), f"{where}.usage_metadata.{key}")
            if value is not None:
                metadata[name] = metadata.get(name, 0) + value
    model = _get(event, "model_version")
    if isinstance(model, str) and model:
        metadata["model"] = model


def _old_case(queries: object, name: object, session: object) -> Conversation:
    """A case of the older form: a list of `{query, expected_tool_use, reference}`."""
    turns: list[Turn] = []
    agent: tuple[str, str] | None = None
    for i, query in enumerate(list_at(queries, "data")):
        at = f"data[{i}]" if name is not None else f"[{i}]"
        if not isinstance(query, Mapping) or not isinstance(query.get("query"), str):
            raise TranscriptError(f"{at} must be an object whose 'query' is the user's text")
        uses = list_at(query.get("expected_tool_use"), f"{at}.expected_tool_use")
        said = list_at(
            query.get("expected_intermediate_agent_responses"),
            f"{at}.expected_intermediate_agent_responses",
        )
        invocation = {
            "user_content": {"role": "user", "parts": [{"text": query["query"]}]},
            "final_response": {"role": "model", "parts": [{"text": query.get("reference", "")}]},
            "intermediate_data": {
                "tool_uses": [
                    {"name": u.get("tool_name"), "args": u.get("tool_input")}
                    if isinstance(u, Mapping)
                    else u
                    for u in uses
                ],
                "intermediate_responses": [
                    [r.get("author"), [{"text": r.get("text")}]] if isinstance(r, Mapping) else r
                    for r in said
                ],
            },
        }
        turn, agent = read_invocation(invocation, at, i, agent)
        turns.append(turn)
    metadata = {"session_input": session} if session else {}
    return make_conversation(turns, id=name, metadata=metadata)


# -- writing ---------------------------------------------------------------------------------

_TURN_KEYS = ("invocation_id", "creation_timestamp", "rubrics")
_CASE_KEYS = ("session_input", "final_session_state", "rubrics", "creation_timestamp")
_USAGE_KEYS = {name: key for key, name in _USAGE}
_NOT_KEPT = frozenset({"agent_source", "latency_ms", "model", *_USAGE_KEYS, *_TURN_KEYS})


def _parts_of(text: str | None) -> list[dict[str, Any]]:
    return [] if text is None else [{"text": text}]


def _function_response(message: Message, result: ToolResult | None) -> dict[str, Any]:
    if result is not None and isinstance(result.data, Mapping):
        body: Any = dict(result.data)
    elif result is not None and result.is_error:
        body = {"error": result.content}
    else:
        body = {"result": message.content or ""}
    out: dict[str, Any] = {"response": body}
    if message.tool_call_id is not None:
        out["id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def _function_call(call: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": call.name, "args": dict(call.arguments)}
    if call.id is not None:
        out["id"] = call.id
    return out


def _messages(turn: Turn) -> tuple[Message, ...]:
    """The turn's messages; for a turn given by its fields only, the messages they imply."""
    if turn.messages:
        return turn.messages
    out = [make_message("user", turn.input)]
    if turn.tool_calls:
        out.append(make_message("assistant", None, turn.tool_calls))
    out.extend(make_message("tool", r.content, (), r.call_id, r.name) for r in turn.tool_results)
    if turn.text:
        out.append(make_message("assistant", turn.text))
    return tuple(out)


def _body(turn: Turn) -> tuple[list[Message], list[ToolResult | None]]:
    """The messages after the user's (system prompts dropped, the final answer kept apart),
    and the result each tool message carries."""
    messages = [m for m in _messages(turn) if m.role not in ("system", "developer")]
    first_user = next((i for i, m in enumerate(messages) if m.role == "user"), None)
    if first_user is not None:
        del messages[first_user]
    last = messages[-1] if messages else None
    if (
        last is not None
        and last.role == "assistant"
        and not last.tool_calls
        and turn.text
        and last.content == turn.text
    ):
        messages.pop()
    results = iter(turn.tool_results)
    paired = [next(results, None) if m.role == "tool" else None for m in messages]
    return messages, paired


def _invocation_head(turn: Turn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "invocation_id" in turn.metadata:
        out["invocation_id"] = turn.metadata["invocation_id"]
    out["user_content"] = {"role": "user", "parts": _parts_of(turn.input)}
    if turn.text:
        out["final_response"] = {"role": "model", "parts": _parts_of(turn.text)}
    return out


def _invocation_tail(turn: Turn, out: dict[str, Any]) -> dict[str, Any]:
    for key in ("creation_timestamp", "rubrics"):
        if key in turn.metadata:
            out[key] = turn.metadata[key]
    latency = turn.metadata.get("latency_ms")
    if isinstance(latency, int | float) and not isinstance(latency, bool):
        out["duration"] = latency / 1000
    rest = {k: v for k, v in turn.metadata.items() if k not in _NOT_KEPT}
    if rest:
        out["metadata"] = rest
    return out


def _author(turn: Turn, before: tuple[str, str] | None) -> str:
    """The author to write for the turn's responses: its agent, unless carried over from an
    earlier turn (or unknown: an empty author, read back as no agent)."""
    source = turn.metadata.get("agent_source")
    if turn.agent is None or (before is not None and before == (turn.agent, source)):
        return ""
    return turn.agent


def _as_steps(turn: Turn, before: tuple[str, str] | None) -> dict[str, Any]:
    messages, paired = _body(turn)
    calls = [c for m in messages if m.role == "assistant" for c in m.tool_calls]
    responses = [
        _function_response(m, r) for m, r in zip(messages, paired, strict=True) if m.role == "tool"
    ]
    author = _author(turn, before)
    said = [[author, _parts_of(m.content)] for m in messages if m.role == "assistant" and m.content]
    data: dict[str, Any] = {}
    if calls:
        data["tool_uses"] = [_function_call(c) for c in calls]
    if responses:
        data["tool_responses"] = responses
    if said:
        data["intermediate_responses"] = said
    out = _invocation_head(turn)
    if data:
        out["intermediate_data"] = data
    return _invocation_tail(turn, out)


def _as_events(turn: Turn, before: tuple[str, str] | None) -> dict[str, Any]:
    messages, paired = _body(turn)
    author = _author(turn, before)
    events: list[dict[str, Any]] = []
    for message, result in zip(messages, paired, strict=True):
        if message.role == "tool":
            part = {"function_response": _function_response(message, result)}
            events.append({"author": author, "content": {"role": "user", "parts": [part]}})
        elif message.role == "assistant" and (message.content or message.tool_calls):
            pieces = _parts_of(message.content)
            pieces += [{"function_call": _function_call(c)} for c in message.tool_calls]
            events.append({"author": author, "content": {"role": "model", "parts": pieces}})
    usage = {
        key: turn.metadata[name]
        for name, key in _USAGE_KEYS.items()
        if isinstance(turn.metadata.get(name), int | float)
    }
    model = turn.metadata.get("model")
    if usage or isinstance(model, str):
        model_events = [e for e in events if e["content"]["role"] == "model"]
        if not model_events:
            events.append({"author": author})
            model_events = events[-1:]
        if usage:
            model_events[-1]["usage_metadata"] = usage
        if isinstance(model, str):
            model_events[-1]["model_version"] = model
    out = _invocation_head(turn)
    out["intermediate_data"] = {"invocation_events": events}
    return _invocation_tail(turn, out)


def _same_turn(invocation: dict[str, Any], turn: Turn, index: int, before: Any) -> bool:
    try:
        again, _ = read_invocation(invocation, "", index, before)
    except TranscriptError:
        return False
    return _without_source(again) == _without_source(turn)


def _without_source(turn: Turn) -> Turn:
    """The turn without `metadata.agent_source` (where a log said who spoke differs by log)."""
    if "agent_source" not in turn.metadata:
        return turn
    metadata = {k: v for k, v in turn.metadata.items() if k != "agent_source"}
    return turn.model_copy(update={"metadata": metadata})


def write_case(conversation: Conversation, eval_id: str, eval_set_id: str | None) -> dict[str, Any]:
    """The eval case of a conversation, one invocation per turn.

    Each turn is written in `IntermediateData` form when reading that back gives the same
    turn, else as `invocation_events` (which keep the order of its messages, its token usage
    and its model). What an eval set cannot hold is left out: system prompts, guardrail events,
    workflow states, a turn's `data` and media, arguments that were not a JSON object.

    Example:
        >>> c = Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                            {"role": "assistant", "content": "Hello!"}])
        >>> case = write_case(c, "greet", None)
        >>> case["conversation"][0]["final_response"]
        {'role': 'model', 'parts': [{'text': 'Hello!'}]}
    """
    invocations = []
    before: tuple[str, str] | None = None
    for index, turn in enumerate(conversation.turns):
        invocation = _as_steps(turn, before)
        if not _same_turn(invocation, turn, index, before):
            invocation = _as_events(turn, before)
        invocations.append(invocation)
        source = turn.metadata.get("agent_source")
        before = (turn.agent, source if isinstance(source, str) else "") if turn.agent else None
    case: dict[str, Any] = {"eval_id": eval_id, "conversation": invocations}
    metadata = dict(conversation.metadata)
    for key in _CASE_KEYS:
        if key in metadata:
            case[key] = metadata.pop(key)
    if metadata.get("eval_set_id") == eval_set_id:
        metadata.pop("eval_set_id", None)
    if metadata:
        case["metadata"] = metadata
    return case
