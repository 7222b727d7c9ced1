"""The subject model: tool calls and results, guardrail events, workflows, media, turns,
conversations.

All models are frozen pydantic models. A turn can be given its fields directly, or a list of
chat `messages` from which its text (G1), tool calls (G2), tool results and media are derived.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Self, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

__all__ = [
    "Conversation",
    "GuardrailEvent",
    "UNRECORDED_ARGUMENTS",
    "UNRECORDED_SPOKEN",
    "UNRECORDED_TEXT",
    "JSONValue",
    "Media",
    "Message",
    "Subject",
    "ToolCall",
    "ToolResult",
    "Turn",
    "WorkflowState",
    "WorkflowTransition",
    "as_conversation",
    "as_json",
    "as_turn",
    "lower_text_of",
    "make_media",
    "media_of_message",
    "media_of_part",
    "text_of",
    "turn_of",
    "unheard",
]

JSONValue: TypeAlias = bool | int | float | str | list[Any] | dict[str, Any] | None

if TYPE_CHECKING:
    _CachedProperty = cached_property
else:

    class _CachedProperty(cached_property):
        """`functools.cached_property` without the lock Python 3.11 takes on every first read.

        Checks read a turn's derived values (its lowered text, its called tools) once per turn
        of a log, so the lock was a measurable share of a check. Two threads reading the same
        value at once may both compute it; they compute the same thing (Python 3.12 dropped
        the lock for this reason).
        """

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = instance.__dict__[self.attrname] = self.func(instance)
            return value


_FROZEN = ConfigDict(
    frozen=True, extra="forbid", populate_by_name=True, ignored_types=(_CachedProperty,)
)


def loads_json(text: str) -> Any:
    """`json.loads(text)`, at a fraction of its cost on the common, valid text.

    Logs hold millions of JSON texts (lines, tool-call arguments). Once a process has decoded
    a few hundred (`_WARM`), they are decoded with msgspec's decoder (a core dependency, which
    keeps integers of any size exactly, as `json` does): a short log never pays for importing
    it. Before that, and for any text msgspec does not accept (`NaN`, a number out of a
    double's range, an escaped lone surrogate, malformed or too deeply nested text), `json`
    decodes: values and errors are exactly those of `json.loads` (a property test holds both
    decoders to it on random texts).

    Example:
        >>> loads_json('{"city": "Paris"}'), loads_json(' [1] ')
        ({'city': 'Paris'}, [1])
    """
    return _LOADS(text)


_SCAN: Any = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]

_JSON_SPACE = " \t\n\r"
"""The whitespace JSON allows around a value (`str.isspace` allows more)."""


def _scanned(text: str) -> Any:
    """`json.loads(text)` through the decoder's own scanner: a value that starts at the first
    character and ends at the last (or before JSON whitespace only, as a line read with its
    newline) skips `json.loads`'s fixed cost; any other text goes through `json.loads`."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    if end == len(text) or not text[end:].strip(_JSON_SPACE):
        return value
    return json.loads(text)


def _msgspec_loads() -> Callable[[str], Any]:
    """`json.loads` through msgspec's decoder, `json` deciding whatever msgspec refuses."""
    import msgspec

    decode = msgspec.json.Decoder().decode

    def loads(text: str) -> Any:
        try:
            return decode(text)
        except Exception:  # whatever msgspec refuses, json decides
            return json.loads(text)

    return loads


_WARM = 256
"""How many texts a process decodes with `json` before it imports msgspec (about 10 ms)."""


def _warming(text: str) -> Any:
    """`loads_json` for the first `_WARM` texts of a process; then msgspec takes over."""
    global _LOADS, _WARM
    _WARM -= 1
    if _WARM <= 0:
        _LOADS = _msgspec_loads()
    return _scanned(text)


_LOADS: Callable[[str], Any] = _warming


def parse_arguments(raw: object) -> tuple[dict[str, Any], str | None, str | None]:
    """Turn raw tool-call arguments into `(arguments, raw_text, error)`.

    A mapping is used as it is; a string is parsed as JSON; invalid JSON, or JSON that is not an
    object, is kept as `raw_text` with a parse `error` and empty arguments — never dropped.
    """
    if raw is None:
        return {}, None, None
    if type(raw) is not str and isinstance(raw, Mapping):  # a log's arguments are mostly text
        return dict(raw), None, None
    if isinstance(raw, str):
        if not raw.strip():
            return {}, raw, None
        try:
            value = loads_json(raw)
        except json.JSONDecodeError as exc:
            return {}, raw, f"arguments are not valid JSON: {exc}"
        except RecursionError:
            return {}, raw, "arguments are not valid JSON: nested too deeply to read"
        except ValueError:  # an integer longer than Python converts
            return {}, raw, "arguments are not valid JSON: the number has more than 4300 digits"
        if isinstance(value, dict):
            return value, raw, None
        return {}, raw, f"arguments are JSON but not an object (got {type(value).__name__})"
    return {}, repr(raw), f"arguments must be a JSON object or string, got {type(raw).__name__}"


class ToolCall(BaseModel):
    """One call of a tool (or agent) by the model.

    `arguments` may be given as a mapping or as a JSON string (as OpenAI logs them). A string that
    is not a JSON object is kept in `raw_arguments` with the reason in `arguments_error`, and
    argument checks on such a call report `error`.

    Example:
        >>> ToolCall(name="get_weather", arguments='{"city": "Paris"}').arguments
        {'city': 'Paris'}
        >>> ToolCall(name="f", arguments="{oops").arguments_error is not None
        True
    """

    model_config = _FROZEN

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    raw_arguments: str | None = None
    arguments_error: str | None = None

    @property
    def arguments_unrecorded(self) -> bool:
        """Whether the log did not record the arguments (`arguments_error` says why): checks
        of the arguments are errors, checks of the name and order still read the call."""
        error = self.arguments_error
        return error is not None and error.startswith(UNRECORDED_ARGUMENTS)

    @model_validator(mode="before")
    @classmethod
    def _parse_arguments(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and not isinstance(data.get("arguments", {}), Mapping):
            args, raw, error = parse_arguments(data["arguments"])
            data = {**data, "arguments": args, "raw_arguments": raw}
            if error is not None:
                data["arguments_error"] = error
        return data


class ToolResult(BaseModel):
    """What a tool (or agent) returned: text `content`, optional parsed `data`, an error flag."""

    model_config = _FROZEN

    content: str = ""
    call_id: str | None = None
    name: str | None = None
    data: Any = None
    is_error: bool = False


class GuardrailEvent(BaseModel):
    """A guardrail (validator) that ran on a turn, and whether it flagged it."""

    model_config = _FROZEN

    name: str
    triggered: bool = True
    message: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class WorkflowTransition(BaseModel):
    """One move of a workflow from a state to another, caused by an event."""

    model_config = _FROZEN

    from_state: str | None = Field(default=None, alias="from")
    to_state: str = Field(alias="to")
    event: str | None = None
    turn_index: int | None = None
    valid: bool = True
    error: str | None = None


class WorkflowState(BaseModel):
    """The workflow's position: current state, the transitions so far, and completion."""

    model_config = _FROZEN

    current: str | None = None
    transitions: tuple[WorkflowTransition, ...] = ()
    complete: bool = False


class Media(BaseModel):
    """One image, audio clip or video in a turn: where its bytes are and what is declared about it.

    The bytes are base64 `data`, a local `file_path` or a `url` (never fetched); `mime_type`,
    `format`, `width`, `height` and `duration_seconds` are what the log declares, used before
    anything read from the bytes. `role` is the role of the message that carried the part:
    PromptKit's media checks read the response's parts, those of `assistant` messages.

    Example:
        >>> from chatassert import Media, Turn
        >>> turn = Turn(text="Here it is.", media=[Media(kind="image", mime_type="image/png",
        ...                                              width=1024, height=768)])
        >>> turn.media[0].kind, turn.media[0].role
        ('image', 'assistant')
    """

    model_config = _FROZEN

    kind: Literal["image", "audio", "video"]
    mime_type: str | None = None
    url: str | None = None
    data: str | None = None
    file_path: str | None = None
    format: str | None = None
    width: int | None = Field(default=None, ge=0)
    height: int | None = Field(default=None, ge=0)
    duration_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    detail: str | None = None
    caption: str | None = None
    role: str = "assistant"

    @field_validator("width", "height", "duration_seconds", mode="before")
    @classmethod
    def _no_booleans(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("a size or duration must be a number, not true or false")
        return value


_MEDIA_KINDS = ("image", "audio", "video")
_AN = {"image": "an", "audio": "an", "video": "a"}
_AUDIO_MIME = {"wav": "audio/wav", "mp3": "audio/mpeg"}
# PromptKit's media keys that the model keeps (`duration` is in seconds)
_PROMPTKIT_MEDIA = {
    "url": "url",
    "file_path": "file_path",
    "data": "data",
    "mime_type": "mime_type",
    "format": "format",
    "width": "width",
    "height": "height",
    "duration": "duration_seconds",
    "detail": "detail",
    "caption": "caption",
}


def _data_url(url: str) -> dict[str, Any]:
    """The fields of an image URL: a `data:` URL's MIME type and base64 data, else the URL."""
    if url.startswith("data:"):
        head, comma, payload = url[5:].partition(",")
        if comma and head.endswith(";base64"):
            mime = head.removesuffix(";base64").split(";", 1)[0]
            return {"data": payload, **({"mime_type": mime} if mime else {})}
    return {"url": url}


def make_media(what: str = "a media part", /, **fields: Any) -> Media:
    """Build a `Media` from values read from a log, every field set (as validated ones are).

    Raises:
        ValueError: naming `what` and the field, for a value of the wrong type.
    """
    complete = {name: f.default for name, f in Media.model_fields.items() if name != "kind"}
    try:
        return Media.model_validate({**complete, **fields})
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ValueError(f"{what}: {field}: {message} (got {first.get('input')!r})") from None


def media_of_part(part: object, role: str = "assistant") -> Media | None:
    """The `Media` of one message content part, or None when the part is not media.

    Recognised: OpenAI chat `image_url` and `input_audio` parts, Responses `input_image` and
    `input_audio`, Anthropic `image` blocks (`source` of type `base64` or `url`), and
    PromptKit's parts `{type: image|audio|video, media: {url, file_path, data, mime_type,
    format, width, height, duration, detail, caption}}` (a media part without `media` is
    skipped, as PromptKit skips it). `role` is the role of the message holding the part.

    Raises:
        ValueError: for a media part with a value of the wrong type (an `image_url` that is
            a number, a `width` that is not a whole number, ...). A part that lacks its bytes
            or URL is still media: the checks report that they cannot read it.

    Example:
        >>> media_of_part({"type": "image_url", "image_url": {
        ...     "url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}}).mime_type
        'image/png'
        >>> media_of_part({"type": "audio", "media": {"file_path": "a.wav", "duration": 3}},
        ...               role="user").duration_seconds
        3.0
        >>> media_of_part({"type": "text", "text": "hi"}) is None
        True
    """
    if not isinstance(part, Mapping):
        return None
    kind = part.get("type")
    if kind in ("image_url", "input_image"):
        image = part.get("image_url")
        fields: dict[str, Any] = {"kind": "image", "role": role}
        if isinstance(image, Mapping):
            if isinstance(image.get("detail"), str):
                fields["detail"] = image["detail"]
            image = image.get("url")
        if isinstance(image, str):
            fields.update(_data_url(image))
        elif image is not None:  # no URL at all is an image whose bytes are not in the log
            raise ValueError(f"an {kind} part's URL must be a string (got {image!r})")
        if isinstance(part.get("detail"), str):
            fields["detail"] = part["detail"]
        return make_media(f"an {kind} part", **fields)
    if kind == "input_audio":
        audio = part.get("input_audio")
        if audio is None:
            audio = {}
        if not isinstance(audio, Mapping):
            raise ValueError(f"an input_audio part's input_audio must be an object (got {audio!r})")
        fields = {"kind": "audio", "role": role, "data": audio.get("data")}
        fmt = audio.get("format")
        if isinstance(fmt, str) and fmt:
            fields["format"] = fmt
            if fmt.lower() in _AUDIO_MIME:
                fields["mime_type"] = _AUDIO_MIME[fmt.lower()]
        return make_media("an input_audio part", **fields)
    if kind not in _MEDIA_KINDS:
        return None
    source = part.get("source")
    if kind == "image" and isinstance(source, Mapping):  # an Anthropic image block
        fields = {"kind": "image", "role": role}
        if source.get("type") == "base64":
            fields["data"] = source.get("data")
            fields["mime_type"] = source.get("media_type")
        elif source.get("type") == "url":
            fields["url"] = source.get("url")
        return make_media("an image block", **fields)
    media = part.get("media")
    if not isinstance(media, Mapping):
        if media is None:
            return None
        raise ValueError(f"{_AN[kind]} {kind} part's 'media' must be an object (got {media!r})")
    fields = {"kind": kind, "role": role}
    for key, name in _PROMPTKIT_MEDIA.items():
        if media.get(key) is not None:
            fields[name] = media[key]
    return make_media(f"{_AN[kind]} {kind} part", **fields)


def media_of_message(message: Mapping[str, Any]) -> list[Media]:
    """Every media part of a message mapping, in order: its `content` parts, its `parts`
    (PromptKit) and an OpenAI assistant's `audio` (base64 `data`).

    Raises:
        ValueError: for a malformed media part.
    """
    role = message.get("role")
    role = role if isinstance(role, str) else "assistant"
    out: list[Media] = []
    for key in ("content", "parts"):
        parts = message.get(key)
        if isinstance(parts, list):
            out.extend(m for p in parts if (m := media_of_part(p, role)) is not None)
    audio = message.get("audio")
    if isinstance(audio, Mapping) and isinstance(audio.get("data"), str):
        out.append(make_media("audio", kind="audio", role=role, data=audio["data"]))
    return out


class Message(BaseModel):
    """One chat message, as the subject model keeps it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    role: str
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    media: tuple[Media, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        out = dict(data)
        content = out.get("content")
        if "media" not in out and (isinstance(content, list) or "parts" in out or "audio" in out):
            out["media"] = media_of_message(out)
        if isinstance(content, list):
            out["content"] = content_text(content)
        elif content is None and isinstance(out.get("parts"), list):  # PromptKit's parts
            out["content"] = content_text(out["parts"])
        audio = out.get("audio")
        if not out.get("content") and isinstance(audio, Mapping) and out.get("role") == "assistant":
            transcript = audio.get("transcript")
            if isinstance(transcript, str):  # what a spoken reply said, as text
                out["content"] = transcript
        calls = out.get("tool_calls")
        if calls:
            out["tool_calls"] = [_tool_call_from_wire(c) for c in calls]
        return out


def content_text(content: object) -> str | None:
    """Return the text of a message `content` (a string, or a list of typed parts)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part.get("text", "")
            for part in content
            if isinstance(part, Mapping)
            and part.get("type") in ("text", "input_text", "output_text", None)
            and isinstance(part.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return str(content)


def _tool_call_from_wire(call: Any) -> Any:
    """Accept the OpenAI wire shape `{id, type, function: {name, arguments}}` or the native one."""
    if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
        fn = call["function"]
        return {"name": fn.get("name", ""), "arguments": fn.get("arguments"), "id": call.get("id")}
    return call


class _Derived(BaseModel):
    """A model with values derived from its fields and cached (`cached_property`).

    A copy made with `model_copy(update=...)` drops those caches: they were derived from the
    old field values.
    """

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """Copy the model (see pydantic), without the values derived from the original."""
        copy = super().model_copy(update=update, deep=deep)
        cached = [n for n, v in vars(type(self)).items() if isinstance(v, cached_property)]
        for name in cached:
            copy.__dict__.pop(name, None)
        return copy


class Turn(_Derived):
    """One turn: a user input and everything the agent did up to the next user message.

    Give the fields directly, or give `messages` (the turn's chat messages) and let the turn
    derive `text` (the content of the last assistant message that has text, G1), `tool_calls`
    (every call of every assistant message, in order, G2), `tool_results` (the `tool`
    messages, each that names no tool named after the call it pairs with, `call_results`),
    `media` (every media part of every message, in order, each with the role of its message)
    and `input` (the first user message). A spoken reply's `audio.transcript` is its text; a
    turn with no text whose answer is audio without a transcript has `unrecorded["text"]`
    (`unheard`).

    Example:
        >>> t = Turn(messages=[
        ...     {"role": "user", "content": "Book a table"},
        ...     {"role": "assistant", "content": None, "tool_calls": [
        ...         {"id": "c1", "type": "function",
        ...          "function": {"name": "book", "arguments": "{\\"size\\": 4}"}}]},
        ...     {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ...     {"role": "assistant", "content": "Booked for 4."},
        ... ])
        >>> t.input, t.text, [c.name for c in t.tool_calls], t.tool_results[0].name
        ('Book a table', 'Booked for 4.', ['book'], 'book')
    """

    model_config = _FROZEN

    input: str | None = None
    text: str = ""
    messages: tuple[Message, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    guardrails: tuple[GuardrailEvent, ...] = ()
    workflow: WorkflowState | None = None
    data: Any = None
    media: tuple[Media, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    agent: str | None = None
    """The agent active after this turn (the one that answered it), when known: given in code
    or a native record, or set by a log adapter from the log's agent handoffs."""
    unrecorded: dict[str, str] = Field(default_factory=dict)
    """The parts of the turn its log did not record, each with why and how to record it:
    `{"text": "..."}` for a turn whose text the log left out (a trace with message content
    capture off, a span that keeps only the response's id). A check that reads such a part is
    an `error` with that reason, never a verdict on text that is only missing from the log
    (docs/semantics.md, "What the log did not record").

    Example:
        >>> from chatassert import Contains
        >>> turn = Turn(unrecorded={"text": "content capture was off"})
        >>> result = Contains("Rome").check(turn)
        >>> result.status.value, result.reason
        ('error', 'the log did not record the text of this turn: content capture was off')
    """

    @model_validator(mode="before")
    @classmethod
    def _derive_from_messages(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or not data.get("messages"):
            return data
        messages = [
            m if isinstance(m, Message) else Message.model_validate(m) for m in data["messages"]
        ]
        out = dict(data)
        out["messages"] = messages
        if "input" not in out:
            out["input"] = next((m.content for m in messages if m.role == "user"), None)
        if "text" not in out:
            out["text"] = next(
                (m.content for m in reversed(messages) if m.role == "assistant" and m.content),
                "",
            )
        if "tool_calls" not in out:
            out["tool_calls"] = [c for m in messages if m.role == "assistant" for c in m.tool_calls]
        if "tool_results" not in out:
            out["tool_results"] = link_results(
                out["tool_calls"],
                [
                    ToolResult(content=m.content or "", call_id=m.tool_call_id, name=m.name)
                    for m in messages
                    if m.role == "tool"
                ],
            )
        if "media" not in out:
            out["media"] = [media for m in messages for media in m.media]
        if "unrecorded" not in out and not out["text"] and any(map(unheard, data["messages"])):
            out["unrecorded"] = {"text": UNRECORDED_SPOKEN}
        return out

    @_CachedProperty
    def text_lower(self) -> str:
        """The turn text, lowered once and cached (for case-insensitive checks, G3)."""
        return self.text.lower()

    @_CachedProperty
    def called_tools(self) -> list[str]:
        """The names of the tools called in this turn, in call order, with repeats."""
        return [c.name for c in self.tool_calls]

    @_CachedProperty
    def call_results(self) -> list[tuple[ToolCall, ToolResult | None]]:
        """Each tool call paired with its result, or None (docs/semantics.md G20).

        A result pairs with the call whose id it names; an id repeated on several calls pairs
        its results with those calls in order. A result with no id takes the first call, in
        order, that has no result yet and whose id no result names: never a call whose id was
        used up by its own results, even when they were fewer than its calls. A result naming
        an id that no call has pairs with nothing, and so does a result left over. The rule is
        `pair_results`; the tool name a turn gives a result that declares none (`result_names`)
        is that of the call it pairs with here.

        Example:
            >>> turn = Turn(
            ...     tool_calls=[ToolCall(name="a", id="x"), ToolCall(name="b", id="x"),
            ...                 ToolCall(name="c")],
            ...     tool_results=[ToolResult(call_id="x", content="ra"), ToolResult(content="rc")],
            ... )
            >>> [(c.name, r.content if r else None) for c, r in turn.call_results]
            [('a', 'ra'), ('b', None), ('c', 'rc')]
        """
        results = self.tool_results
        pairing = pair_results([c.id for c in self.tool_calls], [r.call_id for r in results])
        return [
            (call, None if k is None else results[k])
            for call, k in zip(self.tool_calls, pairing, strict=True)
        ]


def pair_results(
    call_ids: Sequence[str | None], result_ids: Sequence[str | None]
) -> list[int | None]:
    """For each call, the index of the result it pairs with, or None (docs/semantics.md G20).

    The one pairing rule, given the calls' ids and the call ids the results name, in order:
    `Turn.call_results` pairs by it and result naming (`names_of_results`) follows it. A result
    pairs with the call whose id it names, the results of an id repeated on several calls with
    those calls in order; a result with no id takes the first call, in order, that has no
    result yet and whose id no result names. A result naming an id no call has, and a result
    left over, pair with no call. Linear in the calls and results.

    Example:
        >>> pair_results(["x", None], [None, "x"])
        [1, 0]
        >>> pair_results(["x", "x"], ["x", "x", "x"])
        [0, 1]
    """
    by_id: dict[str, list[int]] = {}  # each id's results, last first: `pop()` takes the next
    free: list[int] = []  # the results with no id, last first
    for k in range(len(result_ids) - 1, -1, -1):
        ident = result_ids[k]
        if ident is None:
            free.append(k)
        elif (queue := by_id.get(ident)) is None:
            by_id[ident] = [k]
        else:
            queue.append(k)
    out: list[int | None] = []
    for ident in call_ids:
        queue = None if ident is None else by_id.get(ident)
        if queue is None:  # no result names this call's id: it is free for an id-less one
            out.append(free.pop() if free else None)
        else:  # a repeated id takes its results in order, and never an id-less one
            out.append(queue.pop() if queue else None)
    return out


def link_results(
    calls: Sequence[ToolCall | Mapping[str, Any]], results: Iterable[ToolResult]
) -> list[ToolResult]:
    """Fill in the tool `name` of each result that declares none (see `result_names`)."""
    parsed = [c if isinstance(c, ToolCall) else ToolCall.model_validate(c) for c in calls]
    given = list(results)
    return [
        r if r.name is not None or name is None else r.model_copy(update={"name": name})
        for r, name in zip(given, result_names(parsed, given), strict=True)
    ]


def result_names(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> list[str | None]:
    """The tool name of each result: the name it declares, else its call's, else None.

    Its call is the one it pairs with by docs/semantics.md G20 (`pair_results`, as in
    `Turn.call_results`), so a result without a name of its own is always named after the
    call it pairs with; a result that pairs with no call (an id no call has, or one left over)
    has no name unless it declares one. A declared name is the log's word and is kept.

    Example:
        >>> result_names(
        ...     [ToolCall(name="a", id="x"), ToolCall(name="b")],
        ...     [ToolResult(content="rb"), ToolResult(call_id="x", content="ra"),
        ...      ToolResult(call_id="z", content="lost")],
        ... )
        ['b', 'a', None]
    """
    return names_of_results(calls, [(r.call_id, r.name) for r in results])


def names_of_results(
    calls: Sequence[ToolCall], results: Sequence[tuple[str | None, str | None]]
) -> list[str | None]:
    """`result_names` for results given as `(call_id, name)` pairs (before they are built)."""
    names = [own for _, own in results]
    pairing = pair_results([c.id for c in calls], [call_id for call_id, _ in results])
    for call, k in zip(calls, pairing, strict=True):
        if k is not None and names[k] is None:
            names[k] = call.name
    return names


class Conversation(_Derived):
    """A whole conversation: its turns, the workflow's final state, and metadata.

    Give `turns`, or `messages` (a flat chat transcript) to be split into turns at each user
    message (G1, G2). Messages before the first user message (a system prompt) are kept with the
    first turn.

    Example:
        >>> c = Conversation(messages=[
        ...     {"role": "system", "content": "Be brief."},
        ...     {"role": "user", "content": "Hi"},
        ...     {"role": "assistant", "content": "Hello!"},
        ...     {"role": "user", "content": "Bye"},
        ...     {"role": "assistant", "content": "Goodbye."},
        ... ])
        >>> [t.text for t in c.turns]
        ['Hello!', 'Goodbye.']
    """

    model_config = _FROZEN

    turns: tuple[Turn, ...] = ()
    workflow: WorkflowState | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _split_messages(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or "messages" not in data:
            return data
        out = {k: v for k, v in data.items() if k != "messages"}
        if "turns" in out:
            raise ValueError("give either 'turns' or 'messages', not both")
        messages = data["messages"]
        if not isinstance(messages, list | tuple) or not all(
            isinstance(m, Message | Mapping) for m in messages
        ):
            raise ValueError("'messages' must be a list of message objects")
        out["turns"] = [
            Turn.model_validate({"messages": group}) for group in split_turns(data["messages"])
        ]
        return out

    @classmethod
    def from_messages(cls, messages: Sequence[Any], **fields: Any) -> Conversation:
        """Build a conversation from a flat list of chat messages (OpenAI chat format)."""
        return cls.model_validate({"messages": list(messages), **fields})

    @_CachedProperty
    def tool_calls(self) -> list[tuple[int, ToolCall]]:
        """Every tool call of the conversation as `(turn_index, call)`, in order."""
        return [(i, c) for i, t in enumerate(self.turns) for c in t.tool_calls]

    @_CachedProperty
    def unrecorded(self) -> dict[str, str]:
        """The parts its log did not record in some turn (`Turn.unrecorded`), each with the
        reason given for the first turn that lacks it."""
        out: dict[str, str] = {}
        for turn in self.turns:
            for part, why in turn.unrecorded.items():
                out.setdefault(part, why)
        return out


def split_turns(messages: Sequence[Any]) -> list[list[Any]]:
    """Split chat messages into turns: a new turn starts at each user message (G1).

    Messages before the first user message go with the first turn when they are only system or
    developer prompts; when the agent spoke first (a greeting), they form a turn of their own,
    with no user input.
    """
    groups: list[list[Any]] = []
    preamble: list[Any] = []
    for message in messages:
        role = _role(message)
        if role == "user":
            groups.append([message])
        elif groups:
            groups[-1].append(message)
        else:
            preamble.append(message)
    if preamble:
        if all(_role(m) in ("system", "developer") for m in preamble) and groups:
            groups[0][:0] = preamble
        else:
            groups.insert(0, preamble)
    return groups


def _role(message: Any) -> Any:
    return message.role if isinstance(message, Message) else message.get("role")


Subject: TypeAlias = Turn | Conversation | str | JSONValue


def as_turn(subject: object) -> Turn:
    """Coerce a subject to a `Turn`.

    A `Turn` is returned as is; a string becomes a turn with that text; a conversation of exactly
    one turn gives that turn; any other JSON value (an object, a list, a number, `true`, `null`)
    becomes a turn whose `data` is the value and whose text is its JSON rendering (a date in it
    as its ISO text).

    Raises:
        TypeError: for a conversation of several turns (choose one with `OnTurn`,
            `OnLastTurn`, `OnEveryTurn` or `OnAnyTurn`), or a subject of another type.
    """
    if isinstance(subject, Turn):
        return subject
    if isinstance(subject, str):
        return Turn(text=subject)
    if isinstance(subject, Conversation):
        if len(subject.turns) == 1:
            return subject.turns[0]
        raise TypeError(
            f"this assertion checks one turn, but got a Conversation of {len(subject.turns)} "
            "turns; wrap it in OnLastTurn(...), OnTurn(n, ...), OnEveryTurn(...) or OnAnyTurn(...)"
        )
    if isinstance(subject, dict | list | int | float | bool) or subject is None:  # JSON values
        return Turn(text=json.dumps(subject, ensure_ascii=False, default=str), data=subject)
    raise TypeError(
        f"cannot check a {type(subject).__name__}: give a Turn, a Conversation, a str "
        "or a JSON value"
    )


def as_conversation(subject: object) -> Conversation:
    """Coerce a subject to a `Conversation` (a turn or string becomes a one-turn conversation)."""
    if isinstance(subject, Conversation):
        return subject
    if isinstance(subject, list) and all(isinstance(t, Turn) for t in subject):
        return Conversation(turns=tuple(subject))
    return Conversation(turns=(as_turn(subject),))


UNRECORDED_ARGUMENTS = "the log did not record the arguments"
"""How the `arguments_error` of a call whose arguments the log left out begins."""

UNRECORDED_TEXT = "the log did not record the text of this turn"
"""How a check of a turn's text begins its error when the log left the text out."""

UNRECORDED_SPOKEN = (
    "the answer is audio only: the log holds no transcript of what the assistant said (log "
    "the response message's audio.transcript, which the Chat Completions API returns with the "
    "audio, to check its text)"
)
"""Why a turn whose answer is OpenAI chat `audio` alone, with no transcript, has no text
(`Turn.unrecorded["text"]`)."""


def unheard(message: object) -> bool:
    """Whether a chat message (a mapping) is an assistant's spoken reply whose transcript the
    log left out: OpenAI chat `audio` (its bytes, or a reference to them by id) without a
    `transcript`, and no refusal. A turn answered so has no text to check (`UNRECORDED_SPOKEN`).

    Example:
        >>> unheard({"role": "assistant", "audio": {"id": "a1", "data": "SUQz"}})
        True
        >>> unheard({"role": "assistant", "audio": {"data": "SUQz", "transcript": "Rome."}})
        False
    """
    if not isinstance(message, Mapping) or message.get("role") != "assistant":
        return False
    audio = message.get("audio")
    return (
        isinstance(audio, Mapping)
        and not isinstance(audio.get("transcript"), str)
        and (isinstance(audio.get("data"), str) or audio.get("id") is not None)
        and not message.get("refusal")
    )


class NotJSONError(ValueError):
    """The subject has no JSON value (its text is not JSON)."""


def as_json(subject: object) -> Any:
    """Coerce a subject to a JSON value.

    A JSON value is returned as is; a turn gives its structured `data`, else its text parsed as
    JSON; a string is parsed as JSON.

    Raises:
        NotJSONError: when the text is not JSON.
    """
    if isinstance(subject, Turn):
        if subject.data is not None:
            return subject.data
        if "text" in subject.unrecorded:
            raise NotJSONError(f"{UNRECORDED_TEXT}: {subject.unrecorded['text']}")
        subject = subject.text
    elif isinstance(subject, Conversation):
        if not subject.turns:
            raise NotJSONError("the conversation has no turns")
        return as_json(subject.turns[-1])
    if isinstance(subject, str):
        try:
            return json.loads(subject)
        except json.JSONDecodeError as exc:
            raise NotJSONError(f"the response is not JSON ({exc})") from exc
    return subject


def text_of(subject: object) -> str:
    """Return the text a text check reads: a string itself, or a turn's text (G1)."""
    if type(subject) is str:
        return subject
    if type(subject) is Turn:
        return subject.text
    return as_turn(subject).text


def lower_text_of(subject: object) -> str:
    """Return the lowered text (cached on turns, so many checks lower it once)."""
    if type(subject) is str:
        return subject.lower()
    if type(subject) is Turn:
        return subject.text_lower
    return as_turn(subject).text_lower


def turn_of(subject: object) -> Turn:
    """Return the turn a turn-level check reads."""
    return subject if type(subject) is Turn else as_turn(subject)
