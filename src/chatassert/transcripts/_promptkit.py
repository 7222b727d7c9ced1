"""PromptKit recordings: arena run output (`promptkit-arena`) and session recordings
(`promptkit-session`).

Both are whole-file JSON documents, usually pretty-printed over many lines; `read_records` (and
`chatassert check`) read such a file as one record.

- **`promptkit-arena`** (`*.arena.json`): what `promptarena run` writes per scenario and
  provider, `{"RunID", "ScenarioID", "ProviderID", "Params", "Messages": [...], "Cost",
  "ToolStats", "Violations", "StartTime", "EndTime", "Duration", ...}`. Each message is
  PromptKit's: `role`, `content`, `parts` (their `text` parts are the content), `tool_calls`
  (`{id, name, args}`), for a `tool` message `tool_result` (`{id, name, content | parts,
  error}`), `latency_ms`, `cost_info`, `finish_reason`, `validations` (`{validator_type,
  passed, details}`: each becomes a `GuardrailEvent` of its turn, triggered when it did not
  pass) and `meta.assertions` (the verdicts PromptKit recorded for the turn).
- **`promptkit-session`** (`*.recording.json`): `{"metadata": {...}, "events": [...]}`; events
  of type `message` (with a `message` object) or `message.created` (with a `data` object, whose
  keys may be Go's field names, `Role`, `ToolCalls`, ...) give the messages; `message.updated`
  adds latency, tokens and cost to the message at its `Index`; `validation.passed` and
  `validation.failed` become guardrail events of the turn in progress; other events are not
  read.

Metadata (docs/offline.md): the conversation's `id` is the run (or session) id;
`conversation.metadata` holds `run_id`, `scenario_id` (also as `case`, so a suite case whose id
is the scenario's is chosen), `provider_id`, `params`, `cost` (USD), `input_tokens`,
`output_tokens`, `cost_info` (PromptKit's own object), `duration_ms`, `start_time`,
`end_time`, `tool_stats`, `violations`, `tags` and, where PromptKit recorded assertion results,
`recorded_assertions`: a list of `{location, type, passed, message, details}` (`location` is
`turns[i]` or `conversation`) that reports compare with chatassert's own verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, GuardrailEvent
from chatassert.transcripts._build import (
    Msg,
    conversation,
    count,
    described,
    duration,
    media_parts,
    split,
    text_of,
    tool_call,
)

__all__ = ["detect_arena", "detect_session", "go_duration_ms", "parse_arena", "parse_session"]

_TEXT = ("text",)


def detect_arena(record: Any) -> bool:
    """Whether `record` is PromptKit arena run output (`Messages` with a run identity)."""
    return (
        isinstance(record, dict)
        and isinstance(record.get("Messages"), list)
        and any(key in record for key in ("RunID", "ScenarioID", "ProviderID"))
    )


def detect_session(record: Any) -> bool:
    """Whether `record` is a PromptKit session recording (`metadata` and a list of `events`)."""
    return (
        isinstance(record, dict)
        and isinstance(record.get("events"), list)
        and isinstance(record.get("metadata"), dict)
    )


# -- durations ---------------------------------------------------------------------------------

_GO_UNIT = {
    "ns": 1e-6,
    "us": 1e-3,
    "µs": 1e-3,
    "μs": 1e-3,
    "ms": 1.0,
    "s": 1e3,
    "m": 6e4,
    "h": 3.6e6,
}
_GO_PART = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")


def go_duration_ms(value: object, field: str) -> float | int | None:
    """Read a Go `time.Duration` as milliseconds: a number of nanoseconds (how Go writes one in
    JSON) or Go's text form (`"5.2s"`, `"1m30s"`, `"150ms"`). None when absent.

    Example:
        >>> go_duration_ms(5_200_000_000, "Duration"), go_duration_ms("1m30.5s", "duration")
        (5200.0, 90500.0)

    Raises:
        TranscriptError: naming `field`, for a negative number or text that is not a duration.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text in ("0", ""):
            return 0
        parts = _GO_PART.findall(text)
        if not parts or "".join(a + u for a, u in parts) != text:
            raise TranscriptError(
                f'{field} must be a duration (nanoseconds, or Go\'s form such as "5.2s"), '
                f"got {described(value)}"
            )
        return sum(float(amount) * _GO_UNIT[unit] for amount, unit in parts)
    nanoseconds = duration(value, field)
    if nanoseconds is None:
        raise TranscriptError(
            f'{field} must be a duration (nanoseconds, or Go\'s form such as "5.2s"), '
            f"got {described(value)}"
        )
    return nanoseconds / 1e6


# -- messages ----------------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _snake(data: Mapping[str, Any]) -> dict[str, Any]:
    """A Go event payload's keys as snake_case (`ToolCalls` → `tool_calls`); others kept."""
    return {
        (_CAMEL.sub("_", k).lower() if k[:1].isupper() else k): v
        for k, v in data.items()
        if isinstance(k, str)
    }


def _recorded(value: object, location: str) -> list[dict[str, Any]]:
    """The assertion verdicts PromptKit recorded: `{results: [...], passed, total, failed}` (a
    run) or a bare list of results (an eval). A result without a true/false `passed` is kept
    with `passed: null`, and is never compared."""
    items = value.get("results") if isinstance(value, Mapping) else value
    if not isinstance(items, list):
        return []
    out: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind, passed, message = item.get("type"), item.get("passed"), item.get("message")
        entry: dict[str, Any] = {
            "location": location,
            "type": kind if isinstance(kind, str) and kind else None,
            "passed": passed if isinstance(passed, bool) else None,
            "message": message if isinstance(message, str) and message else None,
        }
        if item.get("skipped") is True:
            entry["skipped"] = True
        details = item.get("details")
        if isinstance(details, Mapping):
            entry["details"] = dict(details)
        out.append(entry)
    return out


def _cost(info: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Tokens and cost from PromptKit's `CostInfo`."""
    out: dict[str, Any] = {}
    for key in ("input_tokens", "output_tokens"):
        value = count(info.get(key), f"{where}.{key}")
        if value is not None:
            out[key] = value
    for key in ("total_cost_usd", "total_cost"):
        value = duration(info.get(key), f"{where}.{key}", "an amount")
        if value is not None:
            out.setdefault("cost", value)
    if "input_tokens" in out and "output_tokens" in out:
        out["total_tokens"] = out["input_tokens"] + out["output_tokens"]
    return out


class _Reader:
    """Collects normalised messages, with the guardrail events and recorded verdicts of each."""

    def __init__(self) -> None:
        self.msgs: list[Msg] = []
        self.guardrails: dict[int, list[GuardrailEvent]] = {}
        self.recorded: list[tuple[Msg, list[dict[str, Any]]]] = []
        self.pending: list[GuardrailEvent] = []  # validations before the first message

    def message(self, raw: object, where: str) -> Msg:
        """Read one PromptKit message (and its validations and recorded verdicts)."""
        if not isinstance(raw, Mapping):
            raise TranscriptError(f"{where} is not a message object")
        role = raw.get("role")
        if not isinstance(role, str) or not role:
            raise TranscriptError(f"{where} has no 'role'")
        content = raw.get("content")
        if content is not None and not isinstance(content, str):
            raise TranscriptError(f"{where}.content must be a string, got {described(content)}")
        text = content or None
        parts = raw.get("parts")
        if parts is not None:
            if not isinstance(parts, list):
                raise TranscriptError(f"{where}.parts must be a list, got {described(parts)}")
            joined = text_of(parts, _TEXT, f"{where}.parts")
            if joined is not None:
                text = joined  # PromptKit: parts, when given, are the content
        msg = Msg(
            role=role,
            content=text,
            tool_calls=self._calls(raw, where),
            media=media_parts(parts, role, f"{where}.parts"),
        )
        call_id, name = raw.get("tool_call_id"), raw.get("name")
        result = raw.get("tool_result")
        if result is not None:
            if not isinstance(result, Mapping):
                raise TranscriptError(f"{where}.tool_result is not an object")
            call_id = result.get("id") or call_id
            name = result.get("name") or name
            body = result.get("content")
            if isinstance(body, str) and body:
                msg.content = body
            elif isinstance(result.get("parts"), list):
                msg.content = text_of(result["parts"], _TEXT, f"{where}.tool_result.parts") or (
                    msg.content
                )
            error = result.get("error")
            if isinstance(error, str) and error:
                msg.is_error = True
                msg.content = msg.content or error
        msg.tool_call_id = None if call_id is None or call_id == "" else str(call_id)
        msg.name = name if isinstance(name, str) and name else None
        if role == "assistant":  # one model call's answer: its facts go to its turn
            msg.metadata = self._facts(raw, where)
        self.msgs.append(msg)
        events = self._validations(raw.get("validations"), f"{where}.validations")
        if events:
            self.guardrails.setdefault(id(msg), []).extend(events)
        meta = raw.get("meta")
        if isinstance(meta, Mapping) and "assertions" in meta:
            self.recorded.append((msg, _recorded(meta["assertions"], "")))
        return msg

    @staticmethod
    def _calls(raw: Mapping[str, Any], where: str) -> list[Any]:
        calls = raw.get("tool_calls")
        if calls is None:
            return []
        if not isinstance(calls, list):
            raise TranscriptError(f"{where}.tool_calls must be a list, got {described(calls)}")
        out = []
        for j, call in enumerate(calls):
            at = f"{where}.tool_calls[{j}]"
            if not isinstance(call, Mapping):
                raise TranscriptError(f"{at} is not an object")
            fn = call.get("function")
            if isinstance(fn, Mapping):  # the OpenAI shape some recordings use
                name, args = fn.get("name"), fn.get("arguments")
            else:  # PromptKit's own: {id, name, args}
                name, args = call.get("name"), call.get("args", call.get("arguments"))
            if not isinstance(name, str) or not name:
                raise TranscriptError(f"{at} has no 'name'")
            out.append(tool_call(name, args, call.get("id") or None))
        return out

    @staticmethod
    def _facts(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
        facts: dict[str, Any] = {}
        latency = duration(raw.get("latency_ms"), f"{where}.latency_ms")
        if latency is not None:
            facts["latency_ms"] = latency
        info = raw.get("cost_info")
        if isinstance(info, Mapping):
            facts.update(_cost(info, f"{where}.cost_info"))
        for key in ("input_tokens", "output_tokens"):  # a session's message.updated
            value = count(raw.get(key), f"{where}.{key}")
            if value is not None:
                facts.setdefault(key, value)
        total = duration(raw.get("total_cost"), f"{where}.total_cost", "an amount")
        if total is not None:
            facts.setdefault("cost", total)
        if "input_tokens" in facts and "output_tokens" in facts:
            facts.setdefault("total_tokens", facts["input_tokens"] + facts["output_tokens"])
        finish = raw.get("finish_reason")
        if isinstance(finish, str) and finish:
            facts["finish_reason"] = finish
        return facts

    @staticmethod
    def _validations(raw: object, where: str) -> list[GuardrailEvent]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise TranscriptError(f"{where} must be a list, got {described(raw)}")
        events = []
        for k, item in enumerate(raw):
            at = f"{where}[{k}]"
            if not isinstance(item, Mapping):
                raise TranscriptError(f"{at} is not an object")
            name, passed, details = (
                item.get("validator_type"),
                item.get("passed"),
                item.get("details"),
            )
            if not isinstance(name, str) or not name:
                raise TranscriptError(f"{at} has no 'validator_type'")
            if not isinstance(passed, bool):
                raise TranscriptError(f"{at}.passed must be true or false, got {described(passed)}")
            if details is not None and not isinstance(details, Mapping):
                raise TranscriptError(f"{at}.details must be an object, got {described(details)}")
            events.append(
                GuardrailEvent(name=name, triggered=not passed, details=dict(details or {}))
            )
        return events

    def guardrail(self, event: GuardrailEvent) -> None:
        """A validation outcome logged on its own: it belongs to the turn of the latest message."""
        if self.msgs:
            self.guardrails.setdefault(id(self.msgs[-1]), []).append(event)
        else:
            self.pending.append(event)

    def build(
        self, metadata: dict[str, Any], key: object, conversation_level: list[dict[str, Any]]
    ) -> Conversation:
        """The conversation, with each turn's guardrail events and every recorded verdict."""
        if self.pending and self.msgs:
            self.guardrails.setdefault(id(self.msgs[0]), [])[:0] = self.pending
        turn_of = {id(m): i for i, group in enumerate(split(self.msgs)) for m in group}
        recorded = [
            {**entry, "location": f"turns[{turn_of[id(msg)]}]"}
            for msg, entries in self.recorded
            for entry in entries
        ] + conversation_level
        if recorded:
            metadata["recorded_assertions"] = recorded
        built = conversation(self.msgs, id=key or None, metadata=metadata)
        if not self.guardrails:
            return built
        events: dict[int, list[GuardrailEvent]] = {}
        for msg in self.msgs:
            found = self.guardrails.get(id(msg))
            if found:
                events.setdefault(turn_of[id(msg)], []).extend(found)
        turns = tuple(
            t.model_copy(update={"guardrails": tuple(events[i])}) if i in events else t
            for i, t in enumerate(built.turns)
        )
        return built.model_copy(update={"turns": turns})


def _strings(record: Mapping[str, Any], names: Sequence[tuple[str, str]]) -> dict[str, Any]:
    return {
        key: record[name]
        for name, key in names
        if isinstance(record.get(name), str) and record[name] != ""
    }


# -- arena run output --------------------------------------------------------------------------

_RUN_STRINGS = (
    ("RunID", "run_id"),
    ("ScenarioID", "scenario_id"),
    ("ProviderID", "provider_id"),
    ("PromptPack", "prompt_pack"),
    ("Region", "region"),
    ("PersonaID", "persona_id"),
    ("Error", "run_error"),
    ("StartTime", "start_time"),
    ("EndTime", "end_time"),
)


def parse_arena(record: Any) -> Conversation:
    """Build a conversation from PromptKit arena run output.

    Raises:
        TranscriptError: when the record is not run output or a message is malformed.
    """
    if not isinstance(record, dict) or not isinstance(record.get("Messages"), list):
        raise TranscriptError("expected PromptKit arena output: an object with a 'Messages' list")
    reader = _Reader()
    for i, raw in enumerate(record["Messages"]):
        reader.message(raw, f"Messages[{i}]")
    metadata = _strings(record, _RUN_STRINGS)
    if "scenario_id" in metadata:
        metadata["case"] = metadata["scenario_id"]
    if isinstance(record.get("Params"), Mapping):
        metadata["params"] = dict(record["Params"])
    if isinstance(record.get("SelfPlay"), bool):
        metadata["self_play"] = record["SelfPlay"]
    cost = record.get("Cost")
    if isinstance(cost, Mapping):
        metadata.update(_cost(cost, "Cost"))
        metadata["cost_info"] = dict(cost)
    elapsed = go_duration_ms(record.get("Duration"), "Duration")
    if elapsed is not None:
        metadata["duration_ms"] = elapsed
    if isinstance(record.get("ToolStats"), Mapping):
        metadata["tool_stats"] = dict(record["ToolStats"])
    if isinstance(record.get("Violations"), list) and record["Violations"]:
        metadata["violations"] = list(record["Violations"])
    tags = record.get("SessionTags")
    if isinstance(tags, list) and tags:
        metadata["tags"] = list(tags)
    whole = _recorded(record.get("conversation_assertions"), "conversation")
    whole += _recorded(record.get("conv_assertions_results"), "conversation")
    return reader.build(metadata, record.get("RunID"), whole)


# -- session recordings ------------------------------------------------------------------------


def parse_session(record: Any) -> Conversation:
    """Build a conversation from a PromptKit session recording.

    Raises:
        TranscriptError: when the record is not a recording or a message is malformed.
    """
    if not detect_session(record):
        raise TranscriptError(
            "expected a PromptKit session recording: an object with 'metadata' and 'events'"
        )
    reader = _Reader()
    by_index: dict[int, Msg] = {}
    for i, event in enumerate(record["events"]):
        at = f"events[{i}]"
        if not isinstance(event, Mapping):
            raise TranscriptError(f"{at} is not an object")
        kind = event.get("type")
        if kind == "message":
            reader.message(event.get("message"), f"{at}.message")
            continue
        data = event.get("data")
        if kind not in (
            "message.created",
            "message.updated",
            "validation.passed",
            "validation.failed",
        ):
            continue
        if not isinstance(data, Mapping):
            raise TranscriptError(f"{at}.data is not an object")
        data = _snake(data)
        index = data.get("index")
        if kind == "message.created":
            msg = reader.message(data, f"{at}.data")
            if isinstance(index, int) and not isinstance(index, bool):
                by_index[index] = msg
        elif kind == "message.updated":
            target = by_index.get(index) if isinstance(index, int) else None
            if target is not None and target.metadata is not None:
                target.metadata.update(_Reader._facts(data, f"{at}.data"))
        else:
            reader.guardrail(_validation_event(data, kind == "validation.failed", at))
    meta = dict(record["metadata"])
    metadata = {k: v for k, v in meta.items() if k != "duration"}
    elapsed = go_duration_ms(meta.get("duration"), "metadata.duration")
    if elapsed is not None:
        metadata["duration_ms"] = elapsed
    return reader.build(metadata, meta.get("session_id"), [])


def _validation_event(data: Mapping[str, Any], failed: bool, where: str) -> GuardrailEvent:
    name = data.get("validator_name") or data.get("validator_type")
    if not isinstance(name, str) or not name:
        raise TranscriptError(f"{where}.data has no 'ValidatorName' or 'ValidatorType'")
    details = {
        key: data[key]
        for key in ("validator_type", "violations", "error")
        if data.get(key)  # Go writes an `error` it cannot show as {}
    }
    return GuardrailEvent(name=name, triggered=failed, details=details)
