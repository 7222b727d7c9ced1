"""Media parts read from every log format into `Turn.media` (docs/offline.md, docs/promptkit.md).

OpenAI chat `image_url` / `input_audio` parts and an assistant's `audio`, Responses
`input_image` / `input_audio` parts and `image_generation_call` results, Anthropic `image`
blocks (also inside tool results), PromptKit's `{type, media}` parts and native records: each
part lands in the turn its message belongs to, with that message's role.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chatassert import Conversation, Media, Turn
from chatassert._errors import TranscriptError
from chatassert.transcripts import parse_line, parse_record
from chatassert.transcripts._build import media_from_part, media_parts

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYPgPAAEDAQAIicLsAAAAAElFTkSuQmCC"


def seen(media: tuple[Media, ...]) -> list[tuple[str, str, str | None, str | None, str | None]]:
    """Each part as (kind, role, mime_type, url, data)."""
    return [(m.kind, m.role, m.mime_type, m.url, m.data) for m in media]


def test_openai_chat_image_url_input_audio_and_a_spoken_reply() -> None:
    record = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this? Say it aloud."},
                    {
                        "type": "image_url",
                        "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"},
                    },
                    {"type": "image_url", "image_url": "https://example.com/cat.jpg"},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "audio": {"id": "a1", "data": "SUQz", "transcript": "A cat."},
            },
            {"role": "user", "content": "Thanks"},
            {
                "role": "assistant",
                "content": "You're welcome.",
                "audio": {"id": "a1"},
            },  # a reference
        ]
    }
    conv = parse_record(record)
    assert seen(conv.turns[0].media) == [
        ("image", "user", "image/png", None, PNG),
        ("image", "user", None, "https://example.com/cat.jpg", None),
        ("audio", "user", "audio/wav", None, "UklGRg=="),
        ("audio", "assistant", None, None, "SUQz"),
    ]
    assert conv.turns[0].media[0].detail == "low"
    assert conv.turns[0].media[2].format == "wav"
    assert conv.turns[1].media == ()
    # the same messages built in code give the same turns
    assert Conversation(messages=record["messages"]).turns == conv.turns


def test_openai_chat_call_records_keep_the_request_s_media_once() -> None:
    request = [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "https://x/a.png"}}],
        }
    ]
    record = {
        "calls": [
            {
                "request": {"model": "gpt-4o", "messages": request},
                "response": {
                    "choices": [{"message": {"role": "assistant", "content": "A chart."}}]
                },
            },
            {
                "request": {
                    "model": "gpt-4o",
                    "messages": [
                        *request,
                        {"role": "assistant", "content": "A chart."},
                        {"role": "user", "content": "More?"},
                    ],
                },
                "response": {"choices": [{"message": {"role": "assistant", "content": "No."}}]},
            },
        ]
    }
    conv = parse_record(record)
    assert [len(t.media) for t in conv.turns] == [1, 0]


def test_openai_responses_input_image_input_audio_and_a_generated_image() -> None:
    record = {
        "model": "gpt-4.1",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Make it blue"},
                    {
                        "type": "input_image",
                        "image_url": f"data:image/png;base64,{PNG}",
                        "detail": "high",
                    },
                    {"type": "input_image", "file_id": "file-123"},
                    {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
                ],
            }
        ],
        "output": [
            {
                "type": "image_generation_call",
                "id": "ig1",
                "status": "completed",
                "result": PNG,
                "output_format": "png",
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Done."}],
            },
        ],
    }
    (turn,) = parse_record(record).turns
    assert seen(turn.media) == [
        ("image", "user", "image/png", None, PNG),
        ("image", "user", None, None, None),
        ("audio", "user", "audio/mpeg", None, "SUQz"),
        ("image", "assistant", "image/png", None, PNG),
    ]
    assert turn.media[0].detail == "high"
    assert turn.text == "Done."


def test_a_responses_output_with_only_a_generated_image_is_recognised() -> None:
    record = {"input": "Draw", "output": [{"type": "image_generation_call", "result": PNG}]}
    (turn,) = parse_record(record).turns
    assert seen(turn.media) == [("image", "assistant", None, None, PNG)]


def test_anthropic_image_blocks_base64_url_and_inside_tool_results() -> None:
    record = {
        "system": "You describe images.",
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                    },
                    {"type": "image", "source": {"type": "url", "url": "https://x/b.jpg"}},
                    {"type": "text", "text": "Compare them"},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": PNG,
                                },
                            }
                        ],
                    },
                    {"type": "image", "source": {"type": "file", "file_id": "f1"}},
                ],
            },
        ],
        "response": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "Same."}],
        },
    }
    conv = parse_record(record)
    assert len(conv.turns) == 1  # the tools answering (with an image) continue the turn
    assert seen(conv.turns[0].media) == [
        ("image", "user", "image/png", None, PNG),
        ("image", "user", None, "https://x/b.jpg", None),
        ("image", "tool", "image/png", None, PNG),
        ("image", "user", None, None, None),
    ]


def test_native_records_give_media_directly_or_through_messages() -> None:
    direct = {
        "turns": [
            {
                "text": "Here.",
                "media": [{"kind": "video", "url": "https://x/v.mp4", "duration_seconds": 4}],
            }
        ]
    }
    (turn,) = parse_record(direct).turns
    assert seen(turn.media) == [("video", "assistant", None, "https://x/v.mp4", None)]
    assert turn.media[0].duration_seconds == 4.0
    parts = {
        "turns": [
            {
                "messages": [
                    {"role": "user", "content": "Sing"},
                    {
                        "role": "assistant",
                        "parts": [
                            {"type": "text", "text": "La la."},
                            {
                                "type": "audio",
                                "media": {
                                    "file_path": "song.mp3",
                                    "mime_type": "audio/mpeg",
                                    "duration": 12,
                                },
                            },
                            {
                                "type": "video"
                            },  # a media part without media is skipped, as PromptKit does
                        ],
                    },
                ]
            }
        ]
    }
    (turn,) = parse_record(parts).turns
    assert turn.text == "La la."
    assert [(m.kind, m.role, m.file_path, m.duration_seconds) for m in turn.media] == [
        ("audio", "assistant", "song.mp3", 12.0)
    ]


def test_a_native_record_with_a_bad_media_part_says_where() -> None:
    record = {"turns": [{"media": [{"kind": "picture"}]}]}
    error = parse_line(json.dumps(record)).error
    assert error is not None
    assert error.startswith(
        "not a native conversation: turns[0].media[0].kind: "
        "Input should be 'image', 'audio' or 'video'"
    )


@pytest.mark.parametrize(
    ("part", "message"),
    [
        (
            {"type": "image_url", "image_url": 5},
            "content[1]: an image_url part's URL must be a string (got 5)",
        ),
        (
            {"type": "input_audio", "input_audio": "SUQz"},
            "content[1]: an input_audio part's input_audio must be an object (got 'SUQz')",
        ),
        (
            {"type": "image", "media": "x.png"},
            "content[1]: an image part's 'media' must be an object (got 'x.png')",
        ),
        (
            {"type": "video", "media": {"url": "u", "width": "wide"}},
            "content[1]: a video part: width: Input should be a valid integer, unable to parse "
            "string as an integer (got 'wide')",
        ),
        (
            {"type": "image", "media": {"data": "x", "height": True}},
            "content[1]: an image part: height: a size or duration must be a number, not true or "
            "false (got True)",
        ),
        (
            {"type": "audio", "media": {"data": "x", "duration": -3}},
            "content[1]: an audio part: duration_seconds: "
            "Input should be greater than or equal to 0 (got -3)",
        ),
    ],
)
def test_malformed_media_parts_are_reported_with_their_place(
    part: dict[str, Any], message: str
) -> None:
    record = {"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}, part]}]}
    with pytest.raises(TranscriptError) as caught:
        parse_record(record, "openai")
    assert str(caught.value) == f"messages[0].{message}"


def test_media_from_part_is_the_function_other_readers_call() -> None:
    part = {
        "type": "image",
        "media": {
            "url": "https://x/a.png",
            "mime_type": "image/png",
            "width": 640,
            "height": 480,
            "detail": "high",
            "caption": "A cat",
            "storage_reference": "s3://bucket/a.png",  # kept by PromptKit, not needed here
            "size_kb": 12,
        },
    }
    media = media_from_part(part, "assistant", "messages[3].parts[0]")
    assert media == Media(
        kind="image",
        url="https://x/a.png",
        mime_type="image/png",
        width=640,
        height=480,
        detail="high",
        caption="A cat",
    )
    assert media_from_part({"type": "text", "text": "hi"}) is None
    assert media_parts("just text", "user") == []
    assert [m.role for m in media_parts([part, {"type": "text"}, part], "user")] == ["user", "user"]


def test_a_turn_built_with_media_and_messages_keeps_the_given_media() -> None:
    given = (Media(kind="image", width=1, height=1),)
    turn = Turn(
        messages=[
            {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}
        ],
        media=given,
    )
    assert turn.media == given
