"""The Inspect AI eval log adapter: a `.json` log, one conversation per sample.

An eval log is one JSON document, `{"version", "status", "eval": {"task", "model", ...},
"plan", "results", "stats", "samples": [...]}`; it is read whole, as one record, and each
sample is one of its conversations (`Record.parts`, named by the sample id, with `@epoch` when
the log ran several epochs). A sample's `messages` are Inspect chat messages:

- `{"role": "system" | "user" | "assistant" | "tool", "content": str | [content parts]}`; the
  `text` parts are the text (`reasoning`, media and other parts are not); `image` (`image`,
  `detail`), `audio` (`audio`, `format`: wav, mp3) and `video` (`video`, `format`: mp4, mpeg,
  mov) parts are the message's media, each a data URL (base64 bytes and MIME type), a URL or
  a file path;
- an assistant message's `tool_calls`: `[{"id", "function", "arguments": {...}}]`, its `model`;
- a tool message's `tool_call_id`, `function` and `error` (`{"type", "message"}`, or the older
  `tool_error` string): a result with an error is errored.

Content that Inspect moved to the sample's `attachments` (`"attachment://<hash>"`) is read back
from there. The sample's `output.usage` is the last turn's tokens; the sample id, its epoch,
`target`, `metadata`, scores (`scores.<name>.value`), the task and the model are kept in the
conversation's metadata; a sample that ended with an `error` keeps its message there.
The log's `.eval` (zip) form is not read: `inspect log convert --to json` writes this one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import TranscriptError
from chatassert._models import Conversation, Media, make_media
from chatassert.transcripts._build import (
    Msg,
    call_metadata,
    conversation,
    described,
    text_of,
    tool_call,
)

__all__ = ["detect", "parse", "parts"]

_ROLES = frozenset({"system", "user", "assistant", "tool"})
_ATTACHMENT = "attachment://"
_MEDIA = ("image", "audio", "video")
_MIME = {  # Inspect's audio and video formats (`ContentAudio.format`, `ContentVideo.format`)
    ("audio", "wav"): "audio/wav",
    ("audio", "mp3"): "audio/mpeg",
    ("video", "mp4"): "video/mp4",
    ("video", "mpeg"): "video/mpeg",
    ("video", "mov"): "video/quicktime",
}


def detect(record: Any) -> bool:
    """Whether `record` is an Inspect AI eval log (an `eval` spec beside `samples` or `status`)."""
    return (
        isinstance(record, Mapping)
        and isinstance(record.get("eval"), Mapping)
        and ("samples" in record or "status" in record)
        and "task" in record["eval"]
    )


def _samples(record: Mapping[str, Any]) -> list[Any]:
    samples = record.get("samples")
    if samples is None or samples == []:
        status = record.get("status")
        raise TranscriptError(
            f"the eval log holds no samples (status {status!r}; a log written with "
            "--no-log-samples keeps none)"
        )
    if not isinstance(samples, list):
        raise TranscriptError(f"'samples' must be a list, got {described(samples)}")
    return samples


def _label(sample: object, index: int, epochs: bool) -> str:
    if not isinstance(sample, Mapping):
        return f"samples[{index}]"
    key = sample.get("id")
    name = f"samples[{index}]" if key is None else str(key)
    epoch = sample.get("epoch")
    return f"{name}@{epoch}" if epochs and epoch is not None else name


def parts(record: Any) -> list[tuple[str, Any]] | None:
    """Each sample of the log as `(sample id, the log holding only that sample)`; None for a
    record that is not a log (`parse` then says so)."""
    if not detect(record):
        return None
    samples = _samples(record)
    epochs = any(isinstance(s, Mapping) and s.get("epoch", 1) != 1 for s in samples)
    head = {k: v for k, v in record.items() if k != "samples"}
    return [
        (_label(sample, i, epochs), {**head, "samples": [sample]})
        for i, sample in enumerate(samples)
    ]


def _text(content: object, attachments: Mapping[str, Any], where: str) -> str | None:
    if isinstance(content, list):
        content = [
            {**part, "text": _resolved(part.get("text"), attachments)}
            if isinstance(part, Mapping) and part.get("type") == "text"
            else part
            for part in content
        ]
        return text_of(content, ("text",), where)
    return text_of(_resolved(content, attachments), ("text",), where)


def _media(content: object, role: str, attachments: Mapping[str, Any], where: str) -> list[Media]:
    """The image, audio and video parts of a message's content, in order."""
    if not isinstance(content, list):
        return []
    out = []
    for i, part in enumerate(content):
        if not isinstance(part, Mapping) or part.get("type") not in _MEDIA:
            continue
        kind = str(part["type"])
        at = f"{where}[{i}]"
        source = _resolved(part.get(kind), attachments)
        if not isinstance(source, str) or not source:
            raise TranscriptError(
                f"{at}.{kind} must be a data URL, URL or file path, got {described(source)}"
            )
        fields: dict[str, Any] = {"kind": kind, "role": role, **_source(source)}
        detail, fmt = part.get("detail"), part.get("format")
        if kind == "image" and isinstance(detail, str):
            fields["detail"] = detail
        if kind != "image" and isinstance(fmt, str) and fmt:
            fields["format"] = fmt
            fields.setdefault("mime_type", _MIME.get((kind, fmt.lower())))
        out.append(make_media(at, **fields))  # every value a string: nothing to reject
    return out


def _source(value: str) -> dict[str, Any]:
    """Where a media part's bytes are: a `data:` URL's base64 data and MIME type, a URL, or a
    file path (Inspect's `image`, `audio` and `video` take all three)."""
    if value.startswith("data:"):
        head, comma, payload = value[5:].partition(",")
        if comma and head.endswith(";base64"):
            mime = head.removesuffix(";base64").split(";", 1)[0]
            return {"data": payload, **({"mime_type": mime} if mime else {})}
        return {"url": value}
    if "://" in value:
        return {"url": value}
    return {"file_path": value}


def _resolved(value: object, attachments: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        found = attachments.get(value[len(_ATTACHMENT) :])
        if isinstance(found, str):
            return found
    return value


def _message(raw: object, where: str, attachments: Mapping[str, Any]) -> Msg:
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"{where} is not a message object, got {described(raw)}")
    role = raw.get("role")
    if not isinstance(role, str) or role not in _ROLES:
        raise TranscriptError(
            f"{where}.role must be system, user, assistant or tool, got {described(role)}"
        )
    content = raw.get("content")
    msg = Msg(
        role=role,
        content=_text(content, attachments, f"{where}.content"),
        media=_media(content, role, attachments, f"{where}.content"),
    )
    if role == "assistant":
        calls = raw.get("tool_calls") or []
        if not isinstance(calls, list):
            raise TranscriptError(f"{where}.tool_calls must be a list, got {described(calls)}")
        for j, call in enumerate(calls):
            at = f"{where}.tool_calls[{j}]"
            if not isinstance(call, Mapping):
                raise TranscriptError(f"{at} is not an object")
            function = call.get("function")
            if not isinstance(function, str) or not function:
                raise TranscriptError(f"{at}.function must be the tool's name")
            msg.tool_calls.append(tool_call(function, call.get("arguments"), call.get("id")))
        model = raw.get("model")
        msg.metadata = {"model": model} if isinstance(model, str) else {}
    elif role == "tool":
        call_id, function = raw.get("tool_call_id"), raw.get("function")
        msg.tool_call_id = None if call_id is None else str(call_id)
        msg.name = function if isinstance(function, str) and function else None
        error = raw.get("error")
        old = raw.get("tool_error")
        if error is not None or (isinstance(old, str) and old):
            msg.is_error = True
            message = error.get("message") if isinstance(error, Mapping) else old
            if not msg.content and isinstance(message, str):
                msg.content = message
    return msg


def parse(record: Any) -> Conversation:
    """Build the conversation of a log of one sample.

    Raises:
        TranscriptError: when the log holds no sample or several, or a message is malformed.
    """
    if not detect(record):
        raise TranscriptError("expected an Inspect AI eval log ('eval' and 'samples')")
    samples = _samples(record)
    if len(samples) > 1:
        raise TranscriptError(
            f"the eval log holds {len(samples)} samples: read it with read_records, which "
            "reads each as a conversation"
        )
    sample = samples[0]
    if not isinstance(sample, Mapping):
        raise TranscriptError(f"samples[0] is not a sample object, got {described(sample)}")
    attachments = sample.get("attachments")
    if not isinstance(attachments, Mapping):
        attachments = {}
    raw = sample.get("messages")
    if not isinstance(raw, list):
        raise TranscriptError(f"the sample's messages must be a list, got {described(raw)}")
    history = [_message(m, f"messages[{i}]", attachments) for i, m in enumerate(raw)]
    output = sample.get("output")
    last = next((m for m in reversed(history) if m.role == "assistant"), None)
    if last is not None and isinstance(output, Mapping):
        facts = call_metadata(output, places=("output",))
        last.metadata = {**(last.metadata or {}), **facts}
    return conversation(history, id=sample.get("id"), metadata=_metadata(record, sample))


def _metadata(record: Mapping[str, Any], sample: Mapping[str, Any]) -> dict[str, Any]:
    spec = record["eval"]
    metadata: dict[str, Any] = {}
    given = sample.get("metadata")
    if isinstance(given, Mapping):
        metadata.update(given)
    for key, value in (
        ("epoch", sample.get("epoch")),
        ("target", sample.get("target")),
        ("task", spec.get("task")),
        ("model", spec.get("model")),
        ("run_id", spec.get("run_id")),
    ):
        if value is not None:
            metadata.setdefault(key, value)
    scores = sample.get("scores")
    if isinstance(scores, Mapping):
        metadata["scores"] = {
            name: score.get("value") if isinstance(score, Mapping) else score
            for name, score in scores.items()
        }
    error = sample.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        metadata["error"] = error["message"]
    elif error is not None:
        metadata["error"] = error if isinstance(error, str) else json.dumps(error)
    return metadata
