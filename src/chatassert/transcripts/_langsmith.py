"""The LangSmith run adapter: one run tree (a trace) per record.

A LangSmith run is `{"id", "name", "run_type": "llm" | "chat_model" | "tool" | "chain" | ...,
"inputs", "outputs", "error", "start_time", "end_time", "trace_id", "dotted_order",
"parent_run_id", "child_runs", "extra", "tags"}`. A record is a root run with its `child_runs`
(a run tree, as `Run.dict()` or the SDK's `RunTree` writes it), or a JSON list of runs (as
`list_runs` returns them, flat): a list holding runs of several traces is one conversation per
trace (`parts`, named by trace id). Runs are taken depth first, children in `dotted_order` (or
start time) order.

- `llm` / `chat_model` runs give the messages: `inputs.messages` (a list, or LangChain's list of
  lists) or `inputs.prompts`, and `outputs.generations` (`[[{"text", "message"}]]`) or an OpenAI
  response (`outputs.choices[].message`). Messages are OpenAI-shaped (`role`, `content`,
  `tool_calls`), LangChain's serialised form (`{"lc": 1, "type": "constructor", "id": [...,
  "AIMessage"], "kwargs": {...}}`) or LangChain's dict form (`{"type": "ai", "data": {...}}` or
  flat). Token usage (`llm_output.token_usage`, `usage`, a message's `usage_metadata`) and the
  run's duration are the turn's metadata.
- `tool` runs are the tool calls: the run's `name`, `inputs` and `outputs.output`, errored when
  the run has an `error`; they mark or add results of the calls the messages show, and when no
  run carries messages they are the calls of the turn.
- When no run carries messages, the root run's string input (`input`, `question`, `query`, or
  its only string value) and string output (`output`, `answer`, or its only string value) are
  the user's message and the answer.

The root run's id is the conversation's id; `extra.metadata`, `tags`, `trace_id` and the root
run's name (`run_name`) are kept in its metadata. Retriever, embedding and parser runs, and
feedback, are not read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts._build import (
    Exchanges,
    Msg,
    call_metadata,
    conversation,
    count,
    described,
    iso_latency,
    match_tool_runs,
    text_of,
    tool_call,
)
from chatassert.transcripts._openai_chat import message as chat_message

__all__ = ["detect", "parse", "parts"]

_MODEL_RUNS = frozenset({"llm", "chat_model"})
_LANGCHAIN_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "tool",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "tool",
    "HumanMessageChunk": "user",
    "AIMessageChunk": "assistant",
}


def _is_run(value: object) -> bool:
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("run_type"), str)
        and ("inputs" in value or "child_runs" in value or "outputs" in value)
    )


def detect(record: Any) -> bool:
    """Whether `record` is a LangSmith run (tree), or a list of runs."""
    if isinstance(record, list):
        return bool(record) and _is_run(record[0])
    return _is_run(record)


def _order(run: Mapping[str, Any]) -> str:
    key = run.get("dotted_order") or run.get("start_time") or ""
    return key if isinstance(key, str) else str(key)


def _traces(runs: list[Any]) -> dict[str, list[Any]]:
    groups: dict[str, list[Any]] = {}
    for i, run in enumerate(runs):
        if not _is_run(run):
            raise TranscriptError(
                f"[{i}] is not a run (an object with 'run_type'), got {described(run)}"
            )
        key = run.get("trace_id") or run.get("id")
        groups.setdefault(str(key), []).append(run)
    return groups


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """The traces of a list of runs that holds several, each `(trace id, its runs)`; None for
    a record of one trace."""
    if not isinstance(record, list):
        return None
    groups = _traces(record)
    return list(groups.items()) if len(groups) > 1 else None


def _flatten(run: Mapping[str, Any], out: list[Mapping[str, Any]], depth: int = 0) -> None:
    if depth > 200:
        raise TranscriptError("the run tree is nested more than 200 runs deep")
    out.append(run)
    children = run.get("child_runs") or []
    if not isinstance(children, list):
        raise TranscriptError(f"run {run.get('name')!r}: child_runs must be a list")
    for child in sorted(children, key=lambda c: _order(c) if isinstance(c, Mapping) else ""):
        if not _is_run(child):
            raise TranscriptError(f"run {run.get('name')!r}: a child run has no 'run_type'")
        _flatten(child, out, depth + 1)


def _runs(record: Any) -> list[Mapping[str, Any]]:
    """The runs of one trace, in order (the root first)."""
    if isinstance(record, list):
        groups = _traces(record)
        if len(groups) > 1:
            raise TranscriptError(
                f"the record holds runs of {len(groups)} traces: read it with read_records, "
                "which reads each as a conversation"
            )
        out: list[Mapping[str, Any]] = []
        for run in sorted(record, key=_order):
            _flatten(run, out)
        return out
    out = []
    _flatten(record, out)
    return out


def _parts_text(content: object, where: str) -> str | None:
    if isinstance(content, list):
        return text_of(content, ("text",), where)
    if content is None or isinstance(content, str):
        return content
    return json.dumps(content)


def message(raw: object, where: str) -> Msg:
    """One message as LangSmith records it: OpenAI-shaped, or LangChain's serialised or dict
    form."""
    if not isinstance(raw, Mapping):
        if isinstance(raw, str):
            return Msg(role="user", content=raw)
        raise TranscriptError(f"{where} is not a message object, got {described(raw)}")
    if isinstance(raw.get("role"), str):
        return chat_message(dict(raw), where)
    kind: object
    if raw.get("lc") == 1 and isinstance(raw.get("id"), list) and raw["id"]:
        kind, body = raw["id"][-1], raw.get("kwargs")
    else:
        kind = raw.get("type")
        body = raw.get("data") if isinstance(raw.get("data"), Mapping) else raw
    role = _LANGCHAIN_ROLES.get(kind) if isinstance(kind, str) else None
    if role is None or not isinstance(body, Mapping):
        raise TranscriptError(f"{where} is not a message: no role or LangChain message type")
    msg = Msg(role=role, content=_parts_text(body.get("content"), f"{where}.content"))
    calls = body.get("tool_calls")
    if isinstance(calls, list) and calls:
        for j, call in enumerate(calls):
            if not isinstance(call, Mapping):
                raise TranscriptError(f"{where}.tool_calls[{j}] is not an object")
            if isinstance(call.get("function"), Mapping):  # the OpenAI shape
                fn = call["function"]
                name, arguments = fn.get("name"), fn.get("arguments")
            else:
                name, arguments = call.get("name"), call.get("args")
            msg.tool_calls.append(tool_call(name, arguments, call.get("id")))
    else:
        extra = body.get("additional_kwargs")
        raw_calls = extra.get("tool_calls") if isinstance(extra, Mapping) else None
        if isinstance(raw_calls, list) and raw_calls:
            shaped = chat_message({"role": "assistant", "tool_calls": raw_calls}, where)
            msg.tool_calls.extend(shaped.tool_calls)
    if role == "tool":
        call_id, name = body.get("tool_call_id"), body.get("name")
        msg.tool_call_id = None if call_id is None else str(call_id)
        msg.name = name if isinstance(name, str) and name else None
        msg.is_error = body.get("status") == "error"
    usage = body.get("usage_metadata")
    if role == "assistant" and isinstance(usage, Mapping):
        facts: dict[str, Any] = {}
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            value = count(usage.get(key), f"{where}.usage_metadata.{key}")
            if value is not None:
                facts[key] = value
        msg.metadata = facts
    return msg


def _list_of(raw: object, where: str) -> list[Msg]:
    if not isinstance(raw, list):
        raise TranscriptError(f"{where} must be a list of messages, got {described(raw)}")
    listed: list[Any] = raw
    if raw and all(isinstance(m, list) for m in raw):  # LangChain: one list per prompt
        listed = raw[0]
        where = f"{where}[0]"
    return [message(m, f"{where}[{i}]") for i, m in enumerate(listed)]


def _model_call(run: Mapping[str, Any], where: str) -> tuple[list[Msg], list[Msg]]:
    inputs, outputs = run.get("inputs"), run.get("outputs")
    request: list[Msg] = []
    if isinstance(inputs, Mapping):
        if "messages" in inputs:
            request = _list_of(inputs["messages"], f"{where}.inputs.messages")
        elif isinstance(inputs.get("prompts"), list):
            request = [Msg(role="user", content=str(p)) for p in inputs["prompts"][:1]]
    response: list[Msg] = []
    sources: list[object] = [outputs]
    if isinstance(outputs, Mapping):
        generations = outputs.get("generations")
        if isinstance(generations, list) and generations:
            first = generations[0]
            first = first[0] if isinstance(first, list) and first else first
            if isinstance(first, Mapping):
                if first.get("message") is not None:
                    response = [message(first["message"], f"{where}.outputs.generations[0]")]
                    response[0].role = "assistant"
                elif isinstance(first.get("text"), str):
                    response = [Msg(role="assistant", content=first["text"])]
        elif isinstance(outputs.get("choices"), list) and outputs["choices"]:
            choice = outputs["choices"][0]
            if isinstance(choice, Mapping) and isinstance(choice.get("message"), Mapping):
                response = [message(choice["message"], f"{where}.outputs.choices[0].message")]
        llm_output = outputs.get("llm_output")
        if isinstance(llm_output, Mapping) and isinstance(llm_output.get("token_usage"), Mapping):
            sources.append({**llm_output, "usage": llm_output["token_usage"]})
    if response:
        meta = call_metadata(*sources, places=(f"{where}.outputs", f"{where}.outputs.llm_output"))
        extra = run.get("extra")
        params = extra.get("invocation_params") if isinstance(extra, Mapping) else None
        if isinstance(params, Mapping) and isinstance(params.get("model"), str):
            meta.setdefault("model", params["model"])
        latency = iso_latency(run.get("start_time"), run.get("end_time"))
        if latency is not None:
            meta.setdefault("latency_ms", latency)
        response[-1].metadata = {**meta, **(response[-1].metadata or {})}
    return request, response


def _tool(run: Mapping[str, Any]) -> tuple[str, Any, str, bool]:
    name = run.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError("a tool run has no name")
    inputs, outputs, error = run.get("inputs"), run.get("outputs"), run.get("error")
    arguments: Any = inputs
    if isinstance(inputs, Mapping) and set(inputs) == {"input"}:
        arguments = inputs["input"]
    output = outputs.get("output", outputs) if isinstance(outputs, Mapping) else outputs
    if isinstance(output, Mapping) and isinstance(output.get("kwargs"), Mapping):
        output = output["kwargs"].get("content", output)  # a serialised ToolMessage
    text = output if isinstance(output, str) else "" if output is None else json.dumps(output)
    if error is not None and not text:
        text = error if isinstance(error, str) else json.dumps(error)
    return name, arguments, text, error is not None


def _single_string(values: object, keys: tuple[str, ...]) -> str | None:
    if isinstance(values, str):
        return values
    if not isinstance(values, Mapping):
        return None
    for key in keys:
        if isinstance(values.get(key), str):
            return str(values[key])
    strings = [v for v in values.values() if isinstance(v, str)]
    return strings[0] if len(strings) == 1 else None


def parse(record: Any) -> Conversation:
    """Build a conversation from one run tree (or a list of one trace's runs).

    Raises:
        TranscriptError: when the record is not one trace of runs or a message is malformed.
    """
    if not detect(record):
        raise TranscriptError("expected a LangSmith run (an object with 'run_type') or a list")
    runs = _runs(record)
    root = runs[0]
    exchanges = Exchanges()
    history = exchanges.history
    tools: list[tuple[str, Any, str, bool]] = []
    models = 0
    for index, run in enumerate(runs):
        kind = run["run_type"]
        where = f"run {run.get('name', index)!r}"
        if kind in _MODEL_RUNS:
            request, response = _model_call(run, where)
            if request or response:
                models += 1
                exchanges.merge(request, response)
        elif kind == "tool":
            tools.append(_tool(run))
    if models:
        match_tool_runs(history, [(name, text, err) for name, _, text, err in tools])
    else:
        question = _single_string(root.get("inputs"), ("input", "question", "query"))
        answer = _single_string(root.get("outputs"), ("output", "answer"))
        if question is not None:
            history.append(Msg(role="user", content=question))
        for i, (name, arguments, text, errored) in enumerate(tools):
            call_id = f"call_{i}"
            history.append(Msg(role="assistant", tool_calls=[tool_call(name, arguments, call_id)]))
            history.append(Msg(role="tool", content=text, tool_call_id=call_id, is_error=errored))
        if answer is not None:
            history.append(Msg(role="assistant", content=answer))
    if not history:
        raise TranscriptError(
            "the runs hold no model messages, tool calls or string input and output to check"
        )
    return conversation(history, id=root.get("id"), metadata=_metadata(root))


def _metadata(root: Mapping[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    extra = root.get("extra")
    given = extra.get("metadata") if isinstance(extra, Mapping) else None
    if isinstance(given, Mapping):
        metadata.update(given)
    for key, value in (
        ("trace_id", root.get("trace_id")),
        ("run_name", root.get("name")),
        ("session_id", root.get("session_id")),
        ("tags", root.get("tags")),
    ):
        if value is not None and value != []:
            metadata.setdefault(key, value)
    if root.get("error") is not None:
        metadata.setdefault("error", root["error"])
    return metadata
