"""The promptfoo adapter: the output JSON of `promptfoo eval -o out.json`, one result per
conversation.

The file is `{"evalId", "results": {"version", "timestamp", "prompts", "results": [...],
"stats"}, "config"}` (the inner `results` object alone is read too); it is read whole, as one
record, and each of `results.results` is one of its conversations (`Record.parts`, named
`results[<index>]`): a one-turn conversation of the result's prompt and its response.

- `prompt.raw` is the prompt as sent: a chat prompt (a JSON list of `{role, content}`
  messages) gives those messages, any other text is the user's message;
- `response.output` is the answer: a string, or other JSON (tool calls, structured output),
  kept as its JSON text (OpenAI-shaped `tool_calls` in it are the turn's calls);
- `response.tokenUsage` (`prompt`, `completion`, `total`), `latencyMs` and `cost` are the
  turn's metadata; `vars`, the provider, the prompt's label, `testIdx`, `promptIdx`, the test's
  `description` and promptfoo's own verdict (`success`, `score`, `gradingResult.reason`) are
  the conversation's.

A result whose provider failed (an `error` and no `response.output`) is reported, not read as
an empty answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation
from chatassert.transcripts._build import Msg, conversation, count, described, duration
from chatassert.transcripts._openai_chat import message as chat_message, messages as chat_messages

__all__ = ["detect", "parse", "parts"]


def _summary(record: Any) -> Mapping[str, Any] | None:
    """The object holding the `results` list: the output's `results`, or the record itself."""
    if not isinstance(record, Mapping):
        return None
    inner = record.get("results")
    if isinstance(inner, Mapping) and isinstance(inner.get("results"), list):
        return inner
    if isinstance(inner, list) and ("version" in record or "stats" in record):
        return record
    return None


def _is_result(value: object) -> bool:
    return isinstance(value, Mapping) and ("response" in value or "prompt" in value)


def detect(record: Any) -> bool:
    """Whether `record` is promptfoo eval output (`results.results` of prompt/response results)."""
    summary = _summary(record)
    if summary is None:
        return False
    results = summary["results"]
    return not results or _is_result(results[0])


def _one(record: Mapping[str, Any], summary: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """The output holding only `result`."""
    if summary is record:
        return {**record, "results": [result]}
    return {**record, "results": {**summary, "results": [result]}}


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """Each result as `(results[<index>], the output holding only that result)`; None for a
    record that is not promptfoo output (`parse` then says so)."""
    summary = _summary(record)
    if summary is None:
        return None
    results = summary["results"]
    if not results:
        raise TranscriptError("the promptfoo output holds no results")
    return [(f"results[{i}]", _one(record, summary, r)) for i, r in enumerate(results)]


def _prompt(prompt: object) -> list[Msg]:
    raw = prompt.get("raw") if isinstance(prompt, Mapping) else prompt
    if not isinstance(raw, str):
        raise TranscriptError(f"prompt.raw must be the prompt's text, got {described(raw)}")
    stripped = raw.strip()
    if stripped.startswith("["):
        try:
            chat = json.loads(stripped)
        except ValueError:
            chat = None
        if (
            isinstance(chat, list)
            and chat
            and all(isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in chat)
        ):
            return chat_messages(chat, "prompt.raw")
    return [Msg(role="user", content=raw)]


def _answer(output: object) -> Msg:
    if isinstance(output, str):
        return Msg(role="assistant", content=output)
    text = json.dumps(output, ensure_ascii=False)
    calls = output if isinstance(output, list) else None
    if isinstance(output, Mapping) and isinstance(output.get("tool_calls"), list):
        calls = output["tool_calls"]
    shaped_calls = calls and all(
        isinstance(c, Mapping) and isinstance(c.get("function"), Mapping) for c in calls
    )
    if shaped_calls:
        shaped = chat_message({"role": "assistant", "tool_calls": calls}, "response.output")
        content = output.get("content") if isinstance(output, Mapping) else None
        return Msg(
            role="assistant",
            content=content if isinstance(content, str) else None,
            tool_calls=shaped.tool_calls,
        )
    return Msg(role="assistant", content=text)


def _facts(result: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    usage = response.get("tokenUsage")
    if isinstance(usage, Mapping):
        for key, name in (
            ("prompt", "input_tokens"),
            ("completion", "output_tokens"),
            ("total", "total_tokens"),
        ):
            value = count(usage.get(key), f"response.tokenUsage.{key}")
            if value is not None:
                facts[name] = value
    latency = duration(result.get("latencyMs"), "latencyMs")
    if latency is not None:
        facts["latency_ms"] = latency
    cost = duration(result.get("cost", response.get("cost")), "cost", "an amount")
    if cost is not None:
        facts["cost"] = cost
    return facts


def parse(record: Any) -> Conversation:
    """Build the one-turn conversation of an output holding one result.

    Raises:
        TranscriptError: when the output holds no result or several, or the result has no
            response.
    """
    summary = _summary(record)
    if summary is None:
        raise TranscriptError("expected promptfoo eval output ('results.results')")
    results = summary["results"]
    if len(results) != 1:
        raise TranscriptError(
            f"the promptfoo output holds {len(results)} results: read it with read_records, "
            "which reads each as a conversation"
        )
    result = results[0]
    if not isinstance(result, Mapping):
        raise TranscriptError(f"the result is not an object, got {described(result)}")
    response = result.get("response")
    output = response.get("output") if isinstance(response, Mapping) else None
    if output is None:
        error = result.get("error") or (
            response.get("error") if isinstance(response, Mapping) else None
        )
        why = f": {error}" if isinstance(error, str) and error else ""
        raise TranscriptError(f"the result has no response.output to check{why}")
    assert isinstance(response, Mapping)
    history = _prompt(result.get("prompt"))
    answer = _answer(output)
    answer.metadata = _facts(result, response)
    history.append(answer)
    key = result.get("id")
    if not isinstance(key, str):
        key = f"test{result.get('testIdx')}-prompt{result.get('promptIdx')}"
    return conversation(history, id=key, metadata=_metadata(record, result))


def _metadata(record: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    given = result.get("metadata")
    if isinstance(given, Mapping):
        metadata.update(given)
    test = result.get("testCase")
    vars_ = result.get("vars", test.get("vars") if isinstance(test, Mapping) else None)
    provider = result.get("provider")
    prompt = result.get("prompt")
    grading = result.get("gradingResult")
    for key, value in (
        ("vars", vars_),
        ("provider", provider.get("id") if isinstance(provider, Mapping) else provider),
        ("prompt_label", prompt.get("label") if isinstance(prompt, Mapping) else None),
        ("test_index", result.get("testIdx")),
        ("prompt_index", result.get("promptIdx")),
        ("description", test.get("description") if isinstance(test, Mapping) else None),
        ("eval_id", record.get("evalId")),
        ("promptfoo_success", result.get("success")),
        ("promptfoo_score", result.get("score")),
        ("promptfoo_reason", grading.get("reason") if isinstance(grading, Mapping) else None),
    ):
        if value is not None:
            metadata.setdefault(key, value)
    return metadata
