"""The Google ADK eval set adapter: an `EvalSet` file, one conversation per eval case.

An eval set (`*.evalset.json`) is one JSON document, `{"eval_set_id", "name", "description",
"eval_cases": [...], "creation_timestamp"}`; it is read whole, as one record, and each eval case
is one of its conversations (`Record.parts`, named by the case's `eval_id`). A line holding a
single eval case (`{"eval_id", "conversation": [...]}`) is one conversation. Keys are read in
ADK's own snake_case or in the camelCase of its aliases, and a null is an absent field: the
forms ADK writes (`LocalEvalSetsManager`'s, without defaults; `model_dump_json()`'s, with every
field; the web server's camelCase) read as equal conversations.

Each invocation of a case's `conversation` is one turn:

- `user_content` (a genai `Content`: `{"role", "parts": [{"text"}, ...]}`) is the input;
  `final_response` is the turn's text (text parts joined by a line break; `thought` parts are
  not text);
- `intermediate_data` is either `{"tool_uses", "tool_responses", "intermediate_responses"}`
  (calls `{id, name, args}`, responses `{id, name, response}`, and `[author, parts]` pairs a
  sub-agent said on the way) or `{"invocation_events": [{"author", "content",
  "usage_metadata", "model_version"}]}`, the events in the order they happened (the final
  response's own event is one without `content`, or with the same content when it also
  calls a tool: its text is read once);
- a function response in `user_content` is the user answering a call (ADK's
  `adk_request_confirmation`, a long-running tool): ADK records an invocation it resumed in
  one invocation whose `user_content` is that answer (the user's first message is not kept).
  It is a tool result, read after the invocation's events when it answers one of their calls
  (ADK keeps no place for it), else first;
- a function response whose `response` holds an `error` is an errored result; `{"result":
  text}` is read as that text, any other response as its JSON text (with `data` the response);
- `inline_data` (base64 bytes) and `file_data` (a URI) parts of an image, audio or video MIME
  type are the turn's media, on the message that carried them (a function response's media in
  its `parts`);
- the author of the last intermediate response (or event) is the turn's agent;
- `invocation_id`, `creation_timestamp`, `duration` (as `latency_ms`), `model_duration` and
  `tool_duration` (as `model_latency_ms`, `tool_latency_ms`), `rubrics`, `app_details` (as
  `agents`: each agent's `instructions` and the names of its `tools`) and the events' token
  usage and model are the turn's metadata; the case's `session_input`, `final_session_state`,
  `rubrics` and the set's id are the conversation's. ADK's own objects are kept in its
  snake_case without nulls or defaults; the session's state is kept as it is. The case's
  `metadata` object, and its `invocation_metadata` list (one object per invocation, what
  `write_case` writes for metadata an invocation has no field for), are metadata too.

A case with a `conversation_scenario` and no `conversation` (a plan for a simulated user,
played by `adk eval`) holds no turns to check, nor does an empty `conversation`: each is an
error naming the case.

The older `*.test.json` form (a list of `{"query", "expected_tool_use": [{"tool_name",
"tool_input"}], "expected_intermediate_agent_responses": [{"author", "text"}], "reference"}`, or
a list of `{"name", "data": [...], "initial_session"}` cases) is read the same way.

`write_case` writes a conversation back as an eval case that ADK's models validate (see
docs/offline.md for what an eval set cannot hold).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, Media, Message, ToolResult, Turn, make_media
from chatassert.transcripts._build import (
    MAX_COUNT,
    Msg,
    count,
    described,
    duration,
    list_at,
    make_conversation,
    make_message,
    make_turn,
    number,
    tool_call,
)

__all__ = ["detect", "parse", "parts", "write_case"]

_SNAKE = (
    "eval_set_id", "eval_cases", "eval_id", "session_input", "final_session_state",
    "creation_timestamp", "user_content", "final_response", "intermediate_data",
    "invocation_id", "invocation_events", "tool_uses", "tool_responses",
    "intermediate_responses", "usage_metadata", "model_version", "function_call",
    "function_response", "prompt_token_count", "candidates_token_count", "total_token_count",
    "conversation_scenario", "model_duration", "tool_duration", "app_details",
    "agent_details", "tool_declarations", "function_declarations", "inline_data", "file_data",
    "mime_type", "file_uri", "rubric_id", "rubric_content", "text_property", "app_name",
    "user_id", "session_id", "starting_prompt", "invocation_metadata", "invocation_unrecorded",
)  # fmt: skip


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


_CAMEL = {name: _camel(name) for name in _SNAKE}
"""ADK's snake_case field names → the camelCase of their aliases (`to_camel`)."""

_USAGE = (
    ("prompt_token_count", "input_tokens"),
    ("candidates_token_count", "output_tokens"),
    ("total_token_count", "total_tokens"),
)

_DURATIONS = (
    ("duration", "latency_ms"),
    ("model_duration", "model_latency_ms"),
    ("tool_duration", "tool_latency_ms"),
)
"""An invocation's durations in seconds → the turn's metadata in milliseconds."""

_MEDIA_KINDS = ("image", "audio", "video")


class Unrecorded(NamedTuple):
    """What a case says of an invocation beyond what ADK's fields hold (`write_case` writes
    it in the case's `invocation_unrecorded`): the turn's parts its log did not record, and
    for the calls whose arguments cannot be read (not recorded, or not a JSON object, written
    as `{}`), by the index of the call in the turn, why and the text they were logged as."""

    turn: dict[str, str]
    errors: dict[str, str]
    raw: dict[str, str]


def _get(raw: Mapping[str, Any], key: str) -> Any:
    """The value of `key`, in ADK's snake_case or its camelCase alias."""
    value = raw.get(key)
    if value is None and key in _CAMEL:
        value = raw.get(_CAMEL[key])
    return value


def _fields(raw: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """An ADK object's fields without its nulls, the `known` ones in snake_case whichever way
    they are spelled; other keys (an object ADK lets hold more) are kept as they are."""
    spelled = {_CAMEL.get(key, key): key for key in known}
    return {spelled.get(k, k): v for k, v in raw.items() if v is not None}


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
        TranscriptError: when the set holds no case or several, or a case is malformed or
            holds no turns.
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


def _no_turns(case: Mapping[str, Any], where: str) -> TranscriptError:
    """The error of a case that records no conversation: a scenario, or nothing at all."""
    scenario = _get(case, "conversation_scenario")
    if scenario is None:
        return TranscriptError(f"{_at(where, 'conversation')} is missing")
    prompt = _get(scenario, "starting_prompt") if isinstance(scenario, Mapping) else None
    opening = f", starting {described(prompt, 60)}" if prompt is not None else ""
    return TranscriptError(
        f"the eval case {described(_get(case, 'eval_id'))} has no recorded turns: it has a "
        f"conversation_scenario (a plan for a simulated user{opening}), which `adk eval` "
        "plays; the eval set records no conversation for it (check the conversation that run "
        "records instead)"
    )


def _case(case: object, where: str, extra: Mapping[str, Any]) -> Conversation:
    if not isinstance(case, Mapping):
        raise TranscriptError(f"{where or 'the eval case'} is not an object, got {described(case)}")
    invocations = case.get("conversation")
    if invocations is None:
        raise _no_turns(case, where)
    if not isinstance(invocations, list):
        raise TranscriptError(
            f"{_at(where, 'conversation')} must be a list, got {described(invocations)}"
        )
    if not invocations:
        raise TranscriptError(
            f"{_at(where, 'conversation')} is empty: the eval case records no turns to check"
        )
    kept = _per_invocation(case, "invocation_metadata", where)
    lost = _per_invocation(case, "invocation_unrecorded", where)
    turns: list[Turn] = []
    agent: tuple[str, str] | None = None
    for i, invocation in enumerate(invocations):
        place = f"{_at(where, 'conversation')}[{i}]"
        said = f"{_at(where, 'invocation_unrecorded')}[{i}]"
        unrecorded = _unrecorded(lost[i], said) if i < len(lost) else None
        turn, agent = read_invocation(invocation, place, i, agent, unrecorded)
        if i < len(kept) and kept[i]:
            turn.metadata.update({k: v for k, v in kept[i].items() if k not in turn.metadata})
        turns.append(turn)
    metadata: dict[str, Any] = {}
    given = case.get("metadata")
    if isinstance(given, Mapping):
        metadata.update(given)
    metadata.update(_case_fields(case, where))
    for key, value in extra.items():
        if value is not None:
            metadata[key] = value
    eval_id = _get(case, "eval_id")
    return make_conversation(turns, id=eval_id, metadata=metadata)


def _per_invocation(case: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    """A case's list of one object per invocation (`invocation_metadata`, ...)."""
    at = _at(where, key)
    found = list_at(_get(case, key), at)
    for i, given in enumerate(found):
        if not isinstance(given, Mapping):
            raise TranscriptError(f"{at}[{i}] must be an object, got {described(given)}")
    return found


def _unrecorded(raw: Mapping[str, Any], where: str) -> Unrecorded:
    """An entry of a case's `invocation_unrecorded`: `{"turn": {"text": why}, "arguments":
    {"<index of the call in the turn>": why}, "raw_arguments": {"<index>": text}}`."""
    out = Unrecorded({}, {}, {})
    for key, target in (("turn", out.turn), ("arguments", out.errors), ("raw_arguments", out.raw)):
        given = raw.get(key)
        if given is None:
            continue
        if not isinstance(given, Mapping):
            raise TranscriptError(f"{where}.{key} must be an object, got {described(given)}")
        for part, why in given.items():
            if not isinstance(why, str):
                raise TranscriptError(
                    f"{where}.{key}.{part} must be a string, got {described(why)}"
                )
            target[part] = why
    return out


def _case_fields(case: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The case's `session_input`, `final_session_state`, `rubrics` and `creation_timestamp`,
    as ADK saves them (snake_case, no nulls, no defaults)."""
    out: dict[str, Any] = {}
    session = _get(case, "session_input")
    if isinstance(session, Mapping):
        session = _fields(session, ("app_name", "user_id", "session_id", "state"))
        if session.get("state") == {}:
            del session["state"]
    if session not in (None, {}):
        out["session_input"] = session
    state = _get(case, "final_session_state")
    if state not in (None, {}):
        out["final_session_state"] = state
    rubrics = _rubrics(_get(case, "rubrics"), _at(where, "rubrics"))
    if rubrics is not None:
        out["rubrics"] = rubrics
    stamp = _get(case, "creation_timestamp")
    if stamp not in (None, 0, 0.0):
        out["creation_timestamp"] = stamp
    return out


def _rubrics(raw: object, where: str) -> list[Any] | None:
    """ADK's `Rubric`s in snake_case without nulls."""
    if raw is None:
        return None
    out: list[Any] = []
    for i, rubric in enumerate(list_at(raw, where)):
        if not isinstance(rubric, Mapping):
            raise TranscriptError(f"{where}[{i}] must be a rubric object, got {described(rubric)}")
        fields = _fields(rubric, ("rubric_id", "rubric_content"))
        content = fields.get("rubric_content")
        if isinstance(content, Mapping):
            fields["rubric_content"] = _fields(content, ("text_property",))
        out.append(fields)
    return out


def _agents(raw: object, where: str) -> dict[str, Any] | None:
    """An invocation's `app_details`: each agent's instructions and the names of its tools."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} must be an object, got {described(raw)}")
    details = _get(raw, "agent_details")
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise TranscriptError(
            f"{where}.agent_details must be an object of agents by name, got {described(details)}"
        )
    out: dict[str, Any] = {}
    for name, agent in details.items():
        at = f"{where}.agent_details.{name}"
        if not isinstance(agent, Mapping):
            raise TranscriptError(f"{at} must be an object, got {described(agent)}")
        entry: dict[str, Any] = {}
        instructions = agent.get("instructions")
        if isinstance(instructions, str) and instructions:
            entry["instructions"] = instructions
        declared = list_at(_get(agent, "tool_declarations"), f"{at}.tool_declarations")
        entry["tools"] = [
            name
            for i, tool in enumerate(declared)
            for name in _tool_names(tool, f"{at}.tool_declarations[{i}]")
        ]
        out[str(name)] = entry
    return out


_UPPER = re.compile(r"(?<!^)(?=[A-Z])")


def _tool_names(tool: object, where: str) -> list[str]:
    """The names a genai `Tool` declares: its functions', else the kinds of built-in tool it
    holds (`google_search`, ...)."""
    if isinstance(tool, str):
        return [tool]
    if not isinstance(tool, Mapping):
        raise TranscriptError(f"{where} must be a tool object, got {described(tool)}")
    names: list[str] = []
    at = f"{where}.function_declarations"
    for i, declaration in enumerate(list_at(_get(tool, "function_declarations"), at)):
        name = declaration.get("name") if isinstance(declaration, Mapping) else None
        if not isinstance(name, str) or not name:
            raise TranscriptError(f"{at}[{i}].name must be the function's name")
        names.append(name)
    kinds = [
        _UPPER.sub("_", key).lower()
        for key, value in tool.items()
        if value is not None and key not in ("function_declarations", "functionDeclarations")
    ]
    return names + kinds


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


def _media(part: Mapping[str, Any], role: str, where: str) -> Media | None:
    """The media of a genai `Part` (`inline_data` or `file_data`), or None when it holds none,
    or a type that is not an image, audio or video (a PDF, a text file)."""
    for key, source in (("inline_data", "data"), ("file_data", "file_uri")):
        blob = _get(part, key)
        if blob is None:
            continue
        at = f"{where}.{key}"
        if not isinstance(blob, Mapping):
            raise TranscriptError(f"{at} must be an object, got {described(blob)}")
        mime = _get(blob, "mime_type")
        if mime is not None and not isinstance(mime, str):
            raise TranscriptError(f"{at}.mime_type must be a MIME type, got {described(mime)}")
        kind = mime.split("/", 1)[0].lower() if mime else None
        if kind not in _MEDIA_KINDS:
            return None
        value = _get(blob, source)
        if value is not None and not isinstance(value, str):
            raise TranscriptError(f"{at}.{source} must be a string, got {described(value)}")
        target = "data" if source == "data" else "url"
        return make_media(at, kind=kind, role=role, mime_type=mime, **{target: value})
    return None


def _pieces(content: Mapping[str, Any] | None, where: str) -> list[Any]:
    return list_at(content.get("parts") if content else None, f"{where}.parts")


def _call(raw: object, where: str) -> Any:
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} is not a function call object, got {described(raw)}")
    args = raw.get("args")
    if args is not None and not isinstance(args, Mapping):
        raise TranscriptError(f"{where}.args must be an object, got {described(args)}")
    name = raw.get("name")
    if not isinstance(name, str):
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
    media = []
    for i, part in enumerate(list_at(raw.get("parts"), f"{where}.parts")):
        if not isinstance(part, Mapping):
            raise TranscriptError(f"{where}.parts[{i}] must be an object, got {described(part)}")
        found = _media(part, "tool", f"{where}.parts[{i}]")
        if found is not None:
            media.append(found)
    return Msg(
        role="tool",
        content=text,
        tool_call_id=None if call_id is None else str(call_id),
        name=name if isinstance(name, str) and name else None,
        is_error=error is not None and error is not False,  # `{"error": str(exc)}` may be ""
        data=body,
        media=media,
    )


def _agent_place(index: int) -> str:
    return f"conversation[{index}] (the author of its last intermediate response)"


def _user(content: Mapping[str, Any] | None, where: str) -> tuple[Msg, list[Msg]]:
    """The user's message of an invocation, and the function responses it holds."""
    answers: list[Msg] = []
    media: list[Media] = []
    for j, part in enumerate(_pieces(content, where)):
        if not isinstance(part, Mapping):
            continue
        response = _get(part, "function_response")
        if response is not None:
            answers.append(_response(response, f"{where}.parts[{j}].function_response"))
            continue
        found = _media(part, "user", f"{where}.parts[{j}]")
        if found is not None:
            media.append(found)
    return Msg(role="user", content=_text(content, where), media=media), answers


def read_invocation(
    raw: object,
    where: str,
    index: int,
    before: tuple[str, str] | None,
    unrecorded: Unrecorded | None = None,
) -> tuple[Turn, tuple[str, str] | None]:
    """The turn of one invocation, and the agent active after it (`before`, unless the
    invocation's intermediate responses name another). `unrecorded` is what the case says
    its log did not record (`_unrecorded`).

    Raises:
        TranscriptError: naming the place of what is malformed.
    """
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} is not an invocation object, got {described(raw)}")
    user, answers = _user(
        _content(_get(raw, "user_content"), f"{where}.user_content"), f"{where}.user_content"
    )
    history = [user]
    metadata: dict[str, Any] = {}
    given = raw.get("metadata")
    if isinstance(given, Mapping):
        metadata.update(given)
    author: str | None = None
    last: Mapping[str, Any] | None = None
    data = _get(raw, "intermediate_data")
    if data is not None and not isinstance(data, Mapping):
        raise TranscriptError(f"{where}.intermediate_data must be an object, got {described(data)}")
    at = f"{where}.intermediate_data"
    if data is not None and _get(data, "invocation_events") is not None:
        author, last = _events(
            _get(data, "invocation_events"), f"{at}.invocation_events", history, metadata
        )
    elif data is not None:
        author = _steps(data, at, history)
    _place(answers, history)
    if unrecorded is not None and (unrecorded.errors or unrecorded.raw):
        _unrecorded_arguments(history, unrecorded)
    final = _content(_get(raw, "final_response"), f"{where}.final_response")
    text = _text(final, f"{where}.final_response")
    said = [] if final is None else _all_media(final, "assistant", f"{where}.final_response")
    if final is not None and final != last and (text or said):
        # else its event was read, and its text with it
        history.append(Msg(role="assistant", content=text, media=said))
    _invocation_fields(raw, where, metadata)
    after = (author, _agent_place(index)) if author else before
    messages = tuple(
        make_message(m.role, m.content, tuple(m.tool_calls), m.tool_call_id, m.name, tuple(m.media))
        for m in history
    )
    calls = [c for m in history if m.role == "assistant" for c in m.tool_calls]
    outputs = [m for m in history if m.role == "tool"]
    media = [x for m in history for x in m.media]
    turn = make_turn(messages, user.content, text or "", calls, outputs, media, metadata, after)
    lost = dict(unrecorded.turn) if unrecorded is not None else {}
    if not text and any(m.kind == "audio" for m in said):
        lost.setdefault("text", _SPOKEN)
    if lost:
        turn = turn.model_copy(update={"unrecorded": lost})
    return turn, after


def _unrecorded_arguments(history: list[Msg], lost: Unrecorded) -> None:
    """Give the calls (by their index in the turn) whose arguments cannot be read the
    `arguments_error` that says why and the `raw_arguments` they were logged as."""
    position = 0
    for msg in history:
        if msg.role != "assistant":
            continue
        for i, call in enumerate(msg.tool_calls):
            key = str(position)
            if key in lost.errors or key in lost.raw:
                update = {
                    "arguments_error": lost.errors.get(key),
                    "raw_arguments": lost.raw.get(key),
                }
                msg.tool_calls[i] = call.model_copy(update=update)
            position += 1


_SPOKEN = (
    "the final response is audio only: the eval set holds no transcript of what the agent "
    "said (set output_audio_transcription in ADK's RunConfig to record one as text)"
)
"""Why a turn whose final response is audio has no text (`Turn.unrecorded`)."""


def _place(answers: list[Msg], history: list[Msg]) -> None:
    """Put the user's function responses in the history: after the invocation's events when
    they answer one of its calls, else right after the user's message."""
    asked = {c.id for m in history for c in m.tool_calls if c.id is not None}
    late = [a for a in answers if a.tool_call_id in asked]
    early = [a for a in answers if a.tool_call_id not in asked]
    history[1:1] = early
    history.extend(late)


def _invocation_fields(raw: Mapping[str, Any], where: str, metadata: dict[str, Any]) -> None:
    """The invocation's own facts, into the turn's metadata."""
    for key in ("invocation_id", "creation_timestamp"):
        value = _get(raw, key)
        if value not in (None, "", 0, 0.0):
            metadata[key] = value
    rubrics = _rubrics(_get(raw, "rubrics"), f"{where}.rubrics")
    if rubrics is not None:
        metadata["rubrics"] = rubrics
    agents = _agents(_get(raw, "app_details"), f"{where}.app_details")
    if agents is not None:
        metadata["agents"] = agents
    for key, name in _DURATIONS:
        seconds = duration(_get(raw, key), f"{where}.{key}")
        if seconds is not None:
            metadata[name] = seconds * 1000


def _all_media(content: Mapping[str, Any], role: str, where: str) -> list[Media]:
    return [
        found
        for j, part in enumerate(_pieces(content, where))
        if isinstance(part, Mapping) and (found := _media(part, role, f"{where}.parts[{j}]"))
    ]


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
        media = _all_media({"parts": pieces}, "assistant", f"{at}[1]")
        if isinstance(name, str) and name:
            author = name
        if text is not None or media:
            history.append(Msg(role="assistant", content=text, media=media))
    return author


def _events(
    events: object, where: str, history: list[Msg], metadata: dict[str, Any]
) -> tuple[str | None, Mapping[str, Any] | None]:
    """Read `InvocationEvents`: each event's text and calls, then its function responses.
    Returns the author of the last event, and the content of the last event that had one."""
    author: str | None = None
    last: Mapping[str, Any] | None = None
    for i, event in enumerate(list_at(events, where)):
        at = f"{where}[{i}]"
        if not isinstance(event, Mapping):
            raise TranscriptError(f"{at} is not an event object, got {described(event)}")
        name = event.get("author")
        content = _content(event.get("content"), f"{at}.content")
        if content is not None:
            last = content
        calls, responses, texts, media = [], [], [], []
        for j, part in enumerate(_pieces(content, f"{at}.content")):
            if not isinstance(part, Mapping):
                continue
            call, response = _get(part, "function_call"), _get(part, "function_response")
            place = f"{at}.content.parts[{j}]"
            if call is not None:
                calls.append(_call(call, f"{place}.function_call"))
            elif response is not None:
                responses.append(_response(response, f"{place}.function_response"))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
            elif (found := _media(part, "assistant", place)) is not None:
                media.append(found)
        if name == "user":
            texts, media = [], []
        elif isinstance(name, str) and name:
            author = name
        if texts or calls or media:
            history.append(
                Msg(
                    role="assistant",
                    content="\n".join(texts) or None,
                    tool_calls=calls,
                    media=media,
                )
            )
        history.extend(responses)
        _usage(event, at, metadata)
    return author, last


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

_CASE_KEYS = ("session_input", "final_session_state", "rubrics", "creation_timestamp")
_USAGE_KEYS = {name: key for key, name in _USAGE}
_RUBRIC_KEYS = frozenset({"rubric_id", "rubric_content", "description", "type"})
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")


def _amount(value: object) -> bool:
    """Whether `value` is a number the reader takes back (from 0 to `MAX_COUNT`)."""
    found = number(value)
    return found is not None and 0 <= found <= MAX_COUNT


def _whole(value: object) -> int | None:
    """A token count ADK's `usage_metadata` takes and the reader reads back, else None."""
    if not _amount(value) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


def _is_rubrics(value: object) -> bool:
    """Whether `value` is a list ADK's `Rubric` model takes."""

    def one(rubric: object) -> bool:
        if not isinstance(rubric, Mapping) or not set(rubric) <= _RUBRIC_KEYS:
            return False
        content = rubric.get("rubric_content")
        return (
            isinstance(rubric.get("rubric_id"), str)
            and isinstance(content, Mapping)
            and set(content) <= {"text_property"}
            and isinstance(content.get("text_property", ""), str)
            and all(isinstance(rubric.get(k, ""), str) for k in ("description", "type"))
        )

    return isinstance(value, list) and all(one(r) for r in value)


def _is_agents(value: object) -> bool:
    """Whether `value` is the `agents` metadata the reader makes of `app_details`."""
    return isinstance(value, Mapping) and all(
        isinstance(name, str)
        and isinstance(agent, Mapping)
        and set(agent) <= {"instructions", "tools"}
        and isinstance(agent.get("instructions", "-"), str)
        and agent.get("instructions") != ""
        and isinstance(agent.get("tools"), list)
        and all(isinstance(t, str) and t for t in agent["tools"])
        for name, agent in value.items()
    )


def _is_session(value: object) -> bool:
    """Whether `value` is an object ADK's `SessionInput` model takes, as the reader gives it
    (no nulls, no empty state)."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("app_name"), str)
        and isinstance(value.get("user_id"), str)
        and isinstance(value.get("session_id", ""), str)
        and isinstance(value.get("state", {"": 0}), Mapping)
        and value.get("state") != {}
        and None not in value.values()
    )


def _is_state(value: object) -> bool:
    return isinstance(value, Mapping) and bool(value)


def _is_time(value: object) -> bool:
    return _amount(value) and value != 0


_CASE_FIELD_OK: dict[str, Callable[[object], bool]] = {
    "session_input": _is_session,
    "final_session_state": _is_state,
    "rubrics": _is_rubrics,
    "creation_timestamp": _is_time,
}
"""Whether a conversation's metadata value fits the eval case's field of that name."""


def _app_details(agents: Mapping[str, Any]) -> dict[str, Any]:
    details: dict[str, Any] = {}
    for name, agent in agents.items():
        out: dict[str, Any] = {"name": name}
        if agent.get("instructions"):
            out["instructions"] = agent["instructions"]
        tools = agent.get("tools") or []
        out["tool_declarations"] = (
            [{"function_declarations": [{"name": t} for t in tools]}] if tools else []
        )
        details[name] = out
    return {"agent_details": details}


def _turn_fields(turn: Turn) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The turn's metadata as an invocation holds it: its fields, the token usage and model
    of its events, and the rest (which no field of an invocation holds)."""
    meta = turn.metadata
    fields: dict[str, Any] = {}
    used = {"agent_source"}
    if isinstance(meta.get("invocation_id"), str) and meta["invocation_id"]:
        fields["invocation_id"] = meta["invocation_id"]
        used.add("invocation_id")
    if _is_time(meta.get("creation_timestamp")):
        fields["creation_timestamp"] = meta["creation_timestamp"]
        used.add("creation_timestamp")
    if "rubrics" in meta and _is_rubrics(meta["rubrics"]):
        fields["rubrics"] = meta["rubrics"]
        used.add("rubrics")
    if "agents" in meta and _is_agents(meta["agents"]):
        fields["app_details"] = _app_details(meta["agents"])
        used.add("agents")
    for key, name in _DURATIONS:
        if _amount(meta.get(name)):
            fields[key] = meta[name] / 1000
            used.add(name)
    events: dict[str, Any] = {}
    usage = {key: _whole(meta.get(name)) for name, key in _USAGE_KEYS.items()}
    usage = {key: value for key, value in usage.items() if value is not None}
    if usage:
        events["usage_metadata"] = usage
        used.update(name for name, key in _USAGE_KEYS.items() if key in usage)
    if isinstance(meta.get("model"), str):
        events["model_version"] = meta["model"]
        used.add("model")
    rest = {k: v for k, v in meta.items() if k not in used}
    return fields, events, rest


def _media_part(media: Media) -> dict[str, Any] | None:
    """A genai part holding `media`: its base64 bytes, else its URI; None when an eval set
    cannot hold it (no MIME type, or bytes that are not base64)."""
    if media.mime_type is None:
        return None
    data = media.data
    if data is not None and _BASE64.fullmatch(data) and len(data.rstrip("=")) % 4 != 1:
        return {"inline_data": {"mime_type": media.mime_type, "data": data}}
    uri = media.url or media.file_path
    if uri is not None:
        return {"file_data": {"mime_type": media.mime_type, "file_uri": uri}}
    if data is None:
        return {"file_data": {"mime_type": media.mime_type}}
    return None


def _parts_of(text: str | None, media: tuple[Media, ...] = ()) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [] if text is None else [{"text": text}]
    out += [part for m in media if (part := _media_part(m)) is not None]
    return out


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
    media = _parts_of(None, message.media)
    if media:
        out["parts"] = media
    return out


def _function_call(call: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": call.name, "args": dict(call.arguments)}
    if call.id is not None:
        out["id"] = call.id
    return out


def _messages(turn: Turn) -> tuple[Message, ...]:
    """The turn's messages; for a turn given by its fields only, or whose messages do not
    show its tool calls and results (a native turn may give both), the messages its fields
    imply. The turn's media that none of them carries are added (`_with_media`)."""
    if turn.messages:
        calls = tuple(c for m in turn.messages if m.role == "assistant" for c in m.tool_calls)
        results = sum(m.role == "tool" for m in turn.messages)
        if calls == turn.tool_calls and results == len(turn.tool_results):
            return _with_media(list(turn.messages), turn)
    out = [make_message("user", turn.input)]
    if turn.tool_calls:
        out.append(make_message("assistant", None, turn.tool_calls))
    out.extend(make_message("tool", r.content, (), r.call_id, r.name) for r in turn.tool_results)
    if turn.text:
        out.append(make_message("assistant", turn.text))
    return _with_media(out, turn)


def _with_media(messages: list[Message], turn: Turn) -> tuple[Message, ...]:
    """The messages, with the turn's media that none of them carries (a native turn may give
    its `media` beside its messages, or give no messages) on the message of each one's role:
    the user's, the last tool result's, else the answer's (the last message when it is an
    assistant's that calls no tool, else a message of media alone after the others)."""
    carried = [m for message in messages for m in message.media]
    beyond: list[Media] = []
    for media in turn.media:
        if media in carried:
            carried.remove(media)
        else:
            beyond.append(media)
    if not beyond:
        return tuple(messages)
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users and any(m.role == "user" for m in beyond):
        messages.insert(0, make_message("user", turn.input))
        users = [0]
    tools = [i for i, m in enumerate(messages) if m.role == "tool"]
    last = messages[-1] if messages else None
    answer = None if last is None or last.role != "assistant" or last.tool_calls else -1
    for media in beyond:
        if media.role == "user":
            at = users[0]
        elif media.role == "tool" and tools:
            at = tools[-1]
        else:
            if answer is None:
                messages.append(make_message("assistant", None))
                answer = -1
            at = answer
        messages[at] = messages[at].model_copy(update={"media": (*messages[at].media, media)})
    return tuple(messages)


def _body(
    turn: Turn,
) -> tuple[Message | None, list[Message], list[ToolResult | None], Message | None]:
    """The user's message, the messages after it (system prompts dropped), the result each
    tool message carries, and the final answer (the last message, when it is the turn's text
    or media and calls no tool)."""
    messages = [m for m in _messages(turn) if m.role not in ("system", "developer")]
    first_user = next((i for i, m in enumerate(messages) if m.role == "user"), None)
    user = None if first_user is None else messages.pop(first_user)
    last = messages[-1] if messages else None
    final = None
    if (
        last is not None
        and last.role == "assistant"
        and not last.tool_calls
        and ((turn.text and last.content == turn.text) or (not last.content and last.media))
    ):
        final = messages.pop()
    results = iter(turn.tool_results)
    paired = [next(results, None) if m.role == "tool" else None for m in messages]
    return user, messages, paired, final


def _invocation_head(turn: Turn, user: Message | None, final: Message | None) -> dict[str, Any]:
    asked = _parts_of(turn.input, user.media if user is not None else ())
    out: dict[str, Any] = {"user_content": {"role": "user", "parts": asked}}
    final_parts = _parts_of(turn.text or None, final.media if final is not None else ())
    if final_parts:
        out["final_response"] = {"role": "model", "parts": final_parts}
    return out


def _author(turn: Turn, before: tuple[str, str] | None) -> str:
    """The author to write for the turn's responses: its agent, unless carried over from an
    earlier turn (or unknown: an empty author, read back as no agent)."""
    source = turn.metadata.get("agent_source")
    if turn.agent is None or (before is not None and before == (turn.agent, source)):
        return ""
    return turn.agent


def _as_steps(turn: Turn, before: tuple[str, str] | None) -> dict[str, Any]:
    user, messages, paired, final = _body(turn)
    calls = [c for m in messages if m.role == "assistant" for c in m.tool_calls]
    responses = [
        _function_response(m, r) for m, r in zip(messages, paired, strict=True) if m.role == "tool"
    ]
    author = _author(turn, before)
    said = [
        [author, _parts_of(m.content, m.media)]
        for m in messages
        if m.role == "assistant" and (m.content or m.media)
    ]
    data: dict[str, Any] = {}
    if calls:
        data["tool_uses"] = [_function_call(c) for c in calls]
    if responses:
        data["tool_responses"] = responses
    if said:
        data["intermediate_responses"] = said
    fields, _, _ = _turn_fields(turn)
    out = {**_invocation_head(turn, user, final)}
    if data:
        out["intermediate_data"] = data
    return {**out, **fields}


def _as_events(turn: Turn, before: tuple[str, str] | None) -> dict[str, Any]:
    user, messages, paired, final = _body(turn)
    author = _author(turn, before)
    events: list[dict[str, Any]] = []
    said: dict[str, Any] | None = None  # the content of the last message's event
    for message, result in zip(messages, paired, strict=True):
        said = None
        if message.role == "tool":
            part = {"function_response": _function_response(message, result)}
            events.append({"author": author, "content": {"role": "user", "parts": [part]}})
        elif message.role == "assistant" and (
            message.content or message.tool_calls or message.media
        ):
            pieces = _parts_of(message.content, message.media)
            pieces += [{"function_call": _function_call(c)} for c in message.tool_calls]
            said = {"role": "model", "parts": pieces}
            events.append({"author": author, "content": said})
    fields, facts, _ = _turn_fields(turn)
    model_events = [e for e in events if e["content"]["role"] == "model"]
    if (facts and not model_events) or (author and not events):
        # the final response's own event, as ADK writes it (no content): it holds the
        # answer's usage and model, and says who answered when no other event does
        events.append({"author": author})
        model_events = events[-1:]
    if facts:
        model_events[-1].update(facts)
    out = _invocation_head(turn, user, final)
    last = messages[-1] if messages else None
    if final is None and said is not None and last is not None and last.content == turn.text:
        # the answer also calls a tool: ADK's final response is that (last) event's content
        out["final_response"] = said
    out["intermediate_data"] = {"invocation_events": events}
    return {**out, **fields}


def _lost(turn: Turn) -> dict[str, Any]:
    """What the turn's log did not record, as the case's `invocation_unrecorded` holds it: the
    turn's unrecorded parts, and of each call whose arguments cannot be read (not recorded, or
    not a JSON object: they are written as `{}`, which checks must not judge) why, and the
    text they were logged as."""
    out: dict[str, Any] = {}
    if turn.unrecorded:
        out["turn"] = dict(turn.unrecorded)
    calls = [c for m in _messages(turn) if m.role == "assistant" for c in m.tool_calls]
    unread = [(str(i), c) for i, c in enumerate(calls) if c.arguments_error is not None]
    errors = {key: c.arguments_error for key, c in unread if c.arguments_error is not None}
    raw = {key: c.raw_arguments for key, c in unread if c.raw_arguments is not None}
    if errors:
        out["arguments"] = errors
    if raw:
        out["raw_arguments"] = raw
    return out


def _same_turn(
    invocation: dict[str, Any],
    turn: Turn,
    index: int,
    before: Any,
    rest: Mapping[str, Any],
    lost: Mapping[str, Any],
) -> bool:
    try:
        again, _ = read_invocation(invocation, "", index, before, _unrecorded(lost, ""))
    except TranscriptError:
        return False
    again.metadata.update(rest)
    return _without_source(again) == _without_source(turn)


def _without_source(turn: Turn) -> Turn:
    """The turn without `metadata.agent_source` (where a log said who spoke differs by log)."""
    if "agent_source" not in turn.metadata:
        return turn
    metadata = {k: v for k, v in turn.metadata.items() if k != "agent_source"}
    return turn.model_copy(update={"metadata": metadata})


def write_case(conversation: Conversation, eval_id: str, eval_set_id: str | None) -> dict[str, Any]:
    """The eval case of a conversation, one invocation per turn, as ADK's `EvalCase` model
    takes it.

    Each turn is written in `IntermediateData` form when reading that back gives the same
    turn, else as `invocation_events` (which keep the order of its messages, its token usage
    and its model). Metadata an invocation has no field for goes in the case's
    `invocation_metadata` list (one object per invocation), and metadata that does not fit
    ADK's fields (a `session_input` without `app_name`, rubrics of another shape) in the
    case's `metadata`. What an eval set cannot hold is left out: system prompts, guardrail
    events, workflow states, a turn's `data`, media without a MIME type, arguments that were
    not a JSON object.

    Example:
        >>> c = Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                            {"role": "assistant", "content": "Hello!"}])
        >>> case = write_case(c, "greet", None)
        >>> case["conversation"][0]["final_response"]
        {'role': 'model', 'parts': [{'text': 'Hello!'}]}
    """
    invocations = []
    kept: list[dict[str, Any]] = []
    lost: list[dict[str, Any]] = []
    before: tuple[str, str] | None = None
    for index, turn in enumerate(conversation.turns):
        _, _, rest = _turn_fields(turn)
        missing = _lost(turn)
        invocation = _as_steps(turn, before)
        if not _same_turn(invocation, turn, index, before, rest, missing):
            invocation = _as_events(turn, before)
        invocations.append(invocation)
        kept.append(rest)
        lost.append(missing)
        source = turn.metadata.get("agent_source")
        before = (turn.agent, source if isinstance(source, str) else "") if turn.agent else None
    case: dict[str, Any] = {"eval_id": eval_id, "conversation": invocations}
    metadata = dict(conversation.metadata)
    for key in _CASE_KEYS:
        if key in metadata and _CASE_FIELD_OK[key](metadata[key]):
            case[key] = metadata.pop(key)
    if metadata.get("eval_set_id") == eval_set_id:
        metadata.pop("eval_set_id", None)
    if metadata:
        case["metadata"] = metadata
    if any(kept):
        case["invocation_metadata"] = kept
    if any(lost):
        case["invocation_unrecorded"] = lost
    return case
