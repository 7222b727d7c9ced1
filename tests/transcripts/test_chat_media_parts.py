"""Media wherever a log format carries it (docs/offline.md, docs/promptkit.md "Media checks").

- PromptKit's `{type, media}` parts under a message's `parts` key (not only in `content`), in
  the OpenAI chat, Anthropic and Responses readers, as `Turn(messages=...)` reads them;
- Inspect AI's `image`, `audio` and `video` content parts, read from a log Inspect wrote
  itself (`tests/fixtures/inspect-ai/generate.py`, inspect-ai 0.3.285), whose data URLs Inspect
  moved to the sample's `attachments`.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from chatassert import Conversation, Media
from chatassert._cli import main
from chatassert._errors import TranscriptError
from chatassert.transcripts import parse_record, read_records

INSPECT_LOG = Path(__file__).parents[1] / "fixtures" / "inspect-ai" / "media.json"


def png(width: int, height: int) -> str:
    """The base64 of a PNG's signature and header chunk: all the media checks read."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    data = (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )
    return base64.b64encode(data).decode()


def check(tmp_path: Path, log: Path, spec: str, *extra: str) -> tuple[int, list[str]]:
    """`chatassert check --assert SPEC LOG` in process: exit code and the results' statuses."""
    report = tmp_path / "report.json"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["check", "--assert", spec, "-o", str(report), *extra, str(log)])
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return code, [line["result"]["status"] for line in lines if "result" in line]


def seen(media: tuple[Media, ...]) -> list[tuple[Any, ...]]:
    """Each part as (kind, role, mime_type, url, file_path, detail, format)."""
    return [(m.kind, m.role, m.mime_type, m.url, m.file_path, m.detail, m.format) for m in media]


def _drawn() -> dict[str, Any]:
    image = {"type": "image", "media": {"mime_type": "image/png", "data": png(512, 384)}}
    return {
        "messages": [
            {"role": "user", "content": "Draw a cat"},
            {"role": "assistant", "content": "Here is your cat.", "parts": [image]},
        ]
    }


# -- PromptKit's parts under `parts` -------------------------------------------------------------


def test_an_openai_chat_message_s_parts_are_its_media_as_turn_messages_reads_them() -> None:
    record = _drawn()
    conv = parse_record(record)
    assert seen(conv.turns[0].media) == [
        ("image", "assistant", "image/png", None, None, None, None)
    ]
    assert conv.turns[0].text == "Here is your cat."
    assert Conversation(messages=record["messages"]).turns == conv.turns


def test_check_of_the_media_under_parts_passes(tmp_path: Path) -> None:
    """Before, the reader dropped `parts`: `image_format` was an error, no images found."""
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps(_drawn()) + "\n", encoding="utf-8")
    assert check(tmp_path, log, "{type: image_format, formats: [png]}") == (0, ["passed"])
    assert check(tmp_path, log, "{type: image_dimensions, width: 512, height: 384}") == (
        0,
        ["passed"],
    )


def test_a_message_with_parts_and_no_content_has_the_text_of_its_parts() -> None:
    messages = [
        {"role": "user", "parts": [{"type": "text", "text": "Hum something"}]},
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "La la la."},
                {"type": "audio", "media": {"url": "https://x/la.mp3", "duration": 3}},
            ],
        },
    ]
    for record in ({"messages": messages}, messages):
        conv = parse_record(record)
        (turn,) = conv.turns
        assert (turn.input, turn.text) == ("Hum something", "La la la.")
        assert [(m.kind, m.duration_seconds) for m in turn.media] == [("audio", 3.0)]
        assert Conversation(messages=messages).turns == conv.turns


def test_content_media_come_before_parts_media_and_audio_after() -> None:
    message = {
        "role": "assistant",
        "content": [{"type": "image_url", "image_url": {"url": "https://x/1.png"}}],
        "parts": [{"type": "video", "media": {"url": "https://x/2.mp4"}}],
        "audio": {"data": "SUQz"},
    }
    conv = parse_record({"messages": [{"role": "user", "content": "Go"}, message]})
    assert [m.kind for m in conv.turns[0].media] == ["image", "video", "audio"]
    assert Conversation(messages=[{"role": "user", "content": "Go"}, message]).turns == conv.turns


def test_a_malformed_part_under_parts_is_reported_with_its_place() -> None:
    record = _drawn()
    record["messages"][1]["parts"][0]["media"]["width"] = "wide"
    with pytest.raises(TranscriptError) as caught:
        parse_record(record, "openai")
    assert str(caught.value).startswith("messages[1].parts[0]: an image part: width: ")


def test_anthropic_messages_read_parts_and_promptkit_media_blocks() -> None:
    video = {"type": "video", "media": {"url": "https://x/cat.mp4", "mime_type": "video/mp4"}}
    image = {"type": "image", "media": {"url": "https://x/cat.png", "mime_type": "image/png"}}
    messages = [
        {"role": "user", "content": "Show me"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Here."}, video],
            "parts": [image],
        },
        {"role": "user", "content": "Again"},
        {"role": "assistant", "parts": [{"type": "text", "text": "Again."}, image]},
    ]
    conv = parse_record({"system": "You draw.", "messages": messages}, "anthropic")
    assert [([m.kind for m in t.media], t.text) for t in conv.turns] == [
        (["video", "image"], "Here."),
        (["image"], "Again."),
    ]
    assert [t.media for t in Conversation(messages=messages).turns] == [t.media for t in conv.turns]


def test_responses_message_items_read_parts() -> None:
    image = {"type": "image", "media": {"url": "https://x/cat.png", "mime_type": "image/png"}}
    record = {
        "input": [{"role": "user", "content": "Draw"}],
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Here."}],
                "parts": [image],
            }
        ],
    }
    (turn,) = parse_record(record, "openai-responses").turns
    assert (turn.text, [m.mime_type for m in turn.media]) == ("Here.", ["image/png"])


# -- Inspect AI content parts --------------------------------------------------------------------


def test_an_inspect_log_s_image_audio_and_video_parts_are_the_turn_s_media() -> None:
    (record,) = read_records(INSPECT_LOG)
    conv = record.conversation
    assert conv is not None, record.error
    (turn,) = conv.turns
    assert seen(turn.media) == [
        ("image", "user", "image/png", None, None, "low", None),
        ("audio", "user", "audio/wav", None, None, None, "wav"),
        ("video", "user", "video/mp4", None, None, None, "mp4"),
        ("image", "assistant", "image/png", None, None, "high", None),
    ]
    # the bytes are those Inspect moved into the sample's attachments
    attachments = json.loads(INSPECT_LOG.read_text(encoding="utf-8"))["samples"][0]["attachments"]
    assert {f"data:{m.mime_type};base64,{m.data}" for m in turn.media} <= set(attachments.values())
    assert turn.text == "A cat. Here is a sketch."


def test_check_of_an_inspect_log_s_image_passes(tmp_path: Path) -> None:
    """Before, Inspect image parts were dropped: `image_format` was an error, no images found."""
    assert check(tmp_path, INSPECT_LOG, "{type: image_format, formats: [png]}") == (0, ["passed"])
    spec = "{type: image_dimensions, width: 256, height: 256}"
    assert check(tmp_path, INSPECT_LOG, spec) == (0, ["passed"])


def _inspect(content: list[Any], attachments: dict[str, str] | None = None) -> dict[str, Any]:
    sample = {
        "id": "s1",
        "messages": [
            {"role": "user", "content": "Show me"},
            {"role": "assistant", "content": content},
        ],
        "attachments": attachments or {},
    }
    return {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": [sample]}


def test_inspect_media_may_be_a_url_a_file_path_or_an_attached_data_url() -> None:
    content = [
        {"type": "image", "image": "https://x/cat.jpg", "detail": "auto"},
        {"type": "video", "video": "clips/cat.mov", "format": "mov"},
        {"type": "audio", "audio": "attachment://ab12", "format": "mp3"},
        {"type": "audio", "audio": "data:;base64,SUQz", "format": "MP3"},
    ]
    log = _inspect(content, {"ab12": "data:audio/mpeg;base64,SUQz"})
    (turn,) = parse_record(log).turns
    assert seen(turn.media) == [
        ("image", "assistant", None, "https://x/cat.jpg", None, "auto", None),
        ("video", "assistant", "video/quicktime", None, "clips/cat.mov", None, "mov"),
        ("audio", "assistant", "audio/mpeg", None, None, None, "mp3"),
        ("audio", "assistant", "audio/mpeg", None, None, None, "MP3"),
    ]
    assert [m.data for m in turn.media] == [None, None, "SUQz", "SUQz"]


@pytest.mark.parametrize("value", [None, 7, "", {"url": "x"}])
def test_an_inspect_media_part_without_its_source_is_reported_with_its_place(value: Any) -> None:
    log = _inspect([{"type": "text", "text": "Hi"}, {"type": "image", "image": value}])
    with pytest.raises(TranscriptError) as caught:
        parse_record(log, "inspect")
    assert str(caught.value).startswith(
        "messages[1].content[1].image must be a data URL, URL or file path, got "
    )


def test_the_parts_example_of_the_docs_reads_as_documented() -> None:
    guide = Path(__file__).parents[2] / "docs" / "offline.md"
    (line,) = [x for x in guide.read_text(encoding="utf-8").splitlines() if '"cat-1"' in x]
    (turn,) = parse_record(json.loads(line)).turns
    assert [(m.kind, m.width, m.height, m.role) for m in turn.media] == [
        ("image", 1024, 768, "assistant")
    ]
