"""The LangSmith run adapter: one run tree (a trace) per record.

A LangSmith run is `{"id", "name", "run_type": "llm" | "chat_model" | "tool" | "chain" | ...,
"inputs", "outputs", "error", "start_time", "end_time", "trace_id", "dotted_order",
"parent_run_id", "child_runs", "extra", "tags"}`. A record is a root run with its `child_runs`
(a run tree, as `Run.dict()` or the SDK's `RunTree` writes it), or a JSON list of runs (as
`list_runs` returns them, flat): a list holding runs of several traces is one conversation per
trace (`parts`, named by trace id). Runs are taken depth first, children in `dotted_order` (or
start time) order.

A record may also be what the SDKs send to LangSmith's `/runs/batch`: a payload `{"post":
[runs], "patch": [run updates]}`, or a JSON array of the payloads of one capture in the order
they were sent. The runs are merged first: each patch's non-null fields replace those of the
run it names, by `id` or else by `dotted_order` (a patch may come before the post of its run);
the merged runs are then read as a list of runs. A trace whose runs are not all in the record
(a patch of a run no post creates, a run posted unfinished that no patch ends, a run whose
parent run is missing) is an error, never a conversation missing its answer.

- `llm` / `chat_model` runs give the messages: `inputs.messages` (a list, or LangChain's list of
  lists), `inputs.prompts` or a list of messages under `inputs.input` (the JS SDK's
  `traceable` given the messages), and `outputs.generations` (`[[{"text", "message"}]]`) or an
  OpenAI response (`outputs.choices[].message`). Messages are OpenAI-shaped (`role`, `content`,
  `tool_calls`), LangChain's serialised form (`{"lc": 1, "type": "constructor", "id": [...,
  "AIMessage"], "kwargs": {...}}`) or LangChain's dict form (`{"type": "ai", "data": {...}}` or
  flat). Token usage (`llm_output.token_usage`, `usage`, a message's `usage_metadata`) and the
  run's duration are the turn's metadata.
- `tool` runs are the tool calls: the run's `name`, `inputs` and `outputs.output` (the JS
  SDK's `outputs.outputs`), errored when the run has an `error`; they mark or add results of
  the calls the messages show, and when no run carries messages they are the calls of the
  turn.
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
from dataclasses import replace
from datetime import UTC, datetime
from itertools import pairwise
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


_OPS = ("post", "patch")
_PARTIAL = (
    "the record holds part of a trace, whose other runs the SDK sent in other requests: read "
    "a capture's requests together, as one JSON array in the order sent (`jq -s . "
    "requests.jsonl > requests.json`)"
)


def _is_payload(value: object) -> bool:
    """Whether `value` is a `/runs/batch` payload: `post` and/or `patch` lists of run objects."""
    if not isinstance(value, Mapping) or "run_type" in value:
        return False
    lists = [value[key] for key in _OPS if key in value]
    if not lists or not all(isinstance(ops, list) for ops in lists):
        return False
    return all(isinstance(op, Mapping) for ops in lists for op in ops[:1])


def _is_payloads(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_payload(v) for v in value)


def detect(record: Any) -> bool:
    """Whether `record` is a LangSmith run (tree), a list of runs, a `/runs/batch` payload or a
    list of payloads."""
    if isinstance(record, list):
        return bool(record) and (_is_run(record[0]) or _is_payloads(record))
    return _is_run(record) or _is_payload(record)


def _run_key(op: Mapping[str, Any]) -> str | None:
    """The id of the run an operation names: its `id`, else the last segment of its
    `dotted_order` (`<start time>Z<run id>`)."""
    key = op.get("id")
    if isinstance(key, str) and key:
        return key
    order = op.get("dotted_order")
    if isinstance(order, str) and "Z" in order:
        return order.rpartition(".")[2].partition("Z")[2] or None
    return None


def _trace_key(op: Mapping[str, Any], key: str) -> str:
    trace = op.get("trace_id")
    return str(trace) if trace else key


def _merge(
    record: Any,
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[Mapping[str, Any]]]]:
    """The runs of a payload (or a list of them) merged with their patches, by trace, in the
    order posted; and the patches of each trace whose run no post creates.

    Raises:
        TranscriptError: naming the place of an operation that is not an object, or that names
            no run (no `id`, no `dotted_order`).
    """
    payloads = record if isinstance(record, list) else [record]
    runs: dict[str, dict[str, Any]] = {}
    by_order: dict[str, str] = {}
    waiting: list[tuple[str, Mapping[str, Any]]] = []
    for i, payload in enumerate(payloads):
        head = f"[{i}]." if isinstance(record, list) else ""
        for j, op in enumerate(_ops(payload, "post", head)):
            key = _named(op, f"{head}post[{j}]")
            run = runs.setdefault(key, {})
            run.update((name, value) for name, value in op.items() if value is not None)
            run["id"] = key
            order = op.get("dotted_order")
            if isinstance(order, str):
                by_order[order] = key
        waiting.extend(
            (_named(op, f"{head}patch[{j}]"), op)
            for j, op in enumerate(_ops(payload, "patch", head))
        )
        still = []
        for key, op in waiting:  # in the order sent, so a later patch of a run wins
            order = op.get("dotted_order")
            target = key if key in runs else by_order.get(order) if isinstance(order, str) else None
            if target is None:
                still.append((key, op))
            else:  # a null never erases what was posted, as the SDK merges them
                runs[target].update((n, v) for n, v in op.items() if v is not None and n != "id")
        waiting = still
    traces: dict[str, list[dict[str, Any]]] = {}
    for key, run in runs.items():
        traces.setdefault(_trace_key(run, key), []).append(run)
    orphans: dict[str, list[Mapping[str, Any]]] = {}
    for key, op in waiting:
        orphans.setdefault(_trace_key(op, key), []).append(op)
        traces.setdefault(_trace_key(op, key), [])
    return traces, orphans


def _ops(payload: Mapping[str, Any], kind: str, head: str) -> list[Mapping[str, Any]]:
    ops = payload.get(kind) or []
    if not isinstance(ops, list):
        raise TranscriptError(f"{head}{kind} must be a list of runs, got {described(ops)}")
    for j, op in enumerate(ops):
        if not isinstance(op, Mapping):
            raise TranscriptError(f"{head}{kind}[{j}] is not a run object, got {described(op)}")
    return ops


def _named(op: Mapping[str, Any], where: str) -> str:
    key = _run_key(op)
    if key is None:
        raise TranscriptError(f"{where} names no run: it has no 'id' or 'dotted_order'")
    return key


def _partial(runs: list[dict[str, Any]], orphans: list[Mapping[str, Any]]) -> str | None:
    """Why a trace's merged runs are not the whole trace, or None when they are."""
    for op in orphans:
        return f"a patch ends run {_label_of(op)}, which no post in the record creates"
    ids = {run["id"] for run in runs}
    for run in runs:
        outputs = run.get("outputs")
        if run.get("end_time") is None and run.get("error") is None and not outputs:
            return (
                f"run {_label_of(run)} was posted unfinished (no end_time, outputs or error) "
                "and no patch in the record ends it"
            )
        parent = run.get("parent_run_id")
        if parent is not None and str(parent) not in ids:
            return f"run {_label_of(run)} belongs to run {parent}, which the record does not hold"
    return None


def _label_of(op: Mapping[str, Any]) -> str:
    name = op.get("name")
    key = _run_key(op)
    return f"{name!r} ({key})" if isinstance(name, str) else str(key)


def _payload_runs(record: Any) -> list[dict[str, Any]]:
    """The merged runs of a payload (or list of payloads) of one trace.

    Raises:
        TranscriptError: for a payload of several traces, no runs, or part of a trace.
    """
    traces, orphans = _merge(record)
    if not traces:
        raise TranscriptError("the payload holds no runs to read")
    if len(traces) > 1:
        raise TranscriptError(
            f"the record holds runs of {len(traces)} traces: read it with read_records, "
            "which reads each as a conversation"
        )
    ((trace, runs),) = traces.items()
    why = _partial(runs, orphans.get(trace, []))
    if why is not None:
        raise TranscriptError(f"{why}: {_PARTIAL}")
    for run in runs:
        if not _is_run(run):
            raise TranscriptError(
                f"run {_label_of(run)} has no 'run_type', or no 'inputs' or 'outputs'"
            )
    return runs


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
    """The traces of a list of runs (or of payloads) that holds several, each `(trace id, its
    runs)` (a payload of its merged runs and the patches no post matched); None for a record
    of one trace."""
    if _is_payload(record) or _is_payloads(record):
        traces, orphans = _merge(record)
        if len(traces) < 2:
            return None
        return [
            (trace, {"post": runs, "patch": orphans.get(trace, [])})
            for trace, runs in traces.items()
        ]
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
    if _is_payload(record) or _is_payloads(record):
        record = _payload_runs(record)
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
        elif _messages_given(inputs.get("input")):  # the JS SDK's traceable(messages)
            request = _list_of(inputs["input"], f"{where}.inputs.input")
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
    if not response and _unrecorded(run) is not None:  # the answer is not in the record
        response = [Msg(role="assistant", unrecorded=_unrecorded(run))]
    if response:
        meta = call_metadata(*sources, places=(f"{where}.outputs", f"{where}.outputs.llm_output"))
        extra = run.get("extra")
        params = extra.get("invocation_params") if isinstance(extra, Mapping) else None
        if isinstance(params, Mapping) and isinstance(params.get("model"), str):
            meta.setdefault("model", params["model"])
        given = extra.get("metadata") if isinstance(extra, Mapping) else None
        if isinstance(given, Mapping) and isinstance(given.get("ls_model_name"), str):
            meta.setdefault("model", given["ls_model_name"])
        latency = iso_latency(_when(run.get("start_time")), _when(run.get("end_time")))
        if latency is not None:
            meta.setdefault("latency_ms", latency)
        response[-1].metadata = {**meta, **(response[-1].metadata or {})}
    return request, response


def _said_next(request: list[Msg], later: list[Msg]) -> Msg | None:
    """The assistant message a later model call's request holds right after repeating
    `request`: what the model answered to it, or None."""
    n = len(request)
    if n == 0 or len(later) <= n or later[n].role != "assistant":
        return None
    same = all(
        (a.role, a.content) == (b.role, b.content) for a, b in zip(request, later, strict=False)
    )
    return later[n] if same else None


def _unrecorded(run: Mapping[str, Any]) -> str | None:
    """Why the record holds none of a run's outputs (`{}` or none at all, and no error), and
    how to record them; None when it holds them."""
    outputs = run.get("outputs")
    if (outputs is not None and outputs != {}) or run.get("error") is not None:
        return None
    name = run.get("name")
    what = f"run {name!r}" if isinstance(name, str) else "the run"
    if run.get("end_time") is None:
        return (
            f"{what} had not ended when its runs were exported, so its outputs are not in "
            "the record: export the trace once it has ended"
        )
    return (
        f"{what} ended without error, but its outputs are empty: the LangSmith SDK records "
        "them so when it hides outputs (LANGSMITH_HIDE_OUTPUTS, or a Client made with "
        "hide_outputs); trace with outputs recorded to check them"
    )


def _messages_given(value: object) -> bool:
    """Whether `value` is a non-empty list of OpenAI-shaped messages (each with a `role`)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in value)
    )


def _when(value: object) -> object:
    """A run time as ISO 8601: the JS SDK sends an end time as epoch milliseconds (a number;
    seconds when it is small, as LangSmith reads it), the Python SDK as ISO 8601."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            seconds = value / 1000 if abs(value) > 2e10 else value
            return datetime.fromtimestamp(seconds, tz=UTC).isoformat()
        except (OverflowError, OSError, ValueError):  # not a time a clock can give
            return None
    return value


def _tool(run: Mapping[str, Any]) -> tuple[str, Any, str, bool]:
    name = run.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError("a tool run has no name")
    inputs, outputs, error = run.get("inputs"), run.get("outputs"), run.get("error")
    arguments: Any = inputs
    if isinstance(inputs, Mapping) and set(inputs) == {"input"}:
        arguments = inputs["input"]
    output = outputs
    if isinstance(outputs, Mapping):  # `traceable`'s wrapping of a value: Python's, then JS's
        output = outputs.get("output", outputs)
        if set(outputs) == {"outputs"}:
            output = outputs["outputs"]
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
    calls: list[tuple[list[Msg], list[Msg]]] = []
    for index, run in enumerate(runs):
        kind = run["run_type"]
        where = f"run {run.get('name', index)!r}"
        if kind in _MODEL_RUNS:
            request, response = _model_call(run, where)
            if request or response:
                calls.append((request, response))
        elif kind == "tool":
            tools.append(_tool(run))
    for (request, response), (later, _) in pairwise(calls):
        said = _said_next(request, later) if response[-1:] and response[-1].unrecorded else None
        if said is not None:  # the next call's request holds what this one's outputs did not
            response[-1] = replace(said, metadata=response[-1].metadata)
    for request, response in calls:
        exchanges.merge(request, response)
    if calls:
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
        elif history and _unrecorded(root) is not None:  # asked, but the answer not kept
            history.append(Msg(role="assistant", unrecorded=_unrecorded(root)))
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
        ("session_name", root.get("session_name")),
        ("tags", root.get("tags")),
    ):
        if value is not None and value != []:
            metadata.setdefault(key, value)
    if root.get("error") is not None:
        metadata.setdefault("error", root["error"])
    return metadata
