"""Tests of chatassert._promptkit_media (docs/promptkit.md, "Media checks").

Whole result records of `image_format`, `image_dimensions`, `audio_format`, `audio_duration`,
`video_duration` and `video_resolution` over turns holding real media bytes (built in
media_helpers.py), the parameters they refuse, and a PromptKit scenario file checked from the
command line against a log whose response carries an image.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from media_helpers import b64, jpeg, mp3, mp4, png, wav, webm
from promptkit_decisions_helpers import Build, Record, records_test, refusals_test
from promptkit_helpers import scenario

from chatassert import Media, Status, Turn
from chatassert.errors import SpecError
from chatassert.promptkit import (
    AudioDuration,
    AudioFormat,
    ImageDimensions,
    ImageFormat,
    VideoDuration,
    VideoResolution,
)
from chatassert.specs import loads_suite
from cli_runs import run_in_process

ROOT = Path(__file__).resolve().parents[2]


def image(data: bytes, mime: str | None = None, role: str = "assistant") -> Media:
    return Media(kind="image", data=b64(data), mime_type=mime, role=role)


def said(*media: Media) -> Turn:
    """A turn whose response carries these media parts."""
    return Turn(input="Make it", text="Here you are.", media=media)


PHOTO = image(jpeg(1920, 1080), "image/jpeg")
ICON = image(png(64, 64))  # no MIME type: the bytes say PNG
WEB = Media(kind="image", url="https://example.com/banner.gif", mime_type="image/gif")
FAR = Media(kind="image", url="https://example.com/photo")  # nothing declared, nothing readable
USERS = image(png(800, 600), "image/png", role="user")
SPEECH = Media(kind="audio", data=b64(wav(4.0)), mime_type="audio/wav")
SONG = Media(kind="audio", data=b64(mp3(100, xing=True)), format="mp3")  # 2.61 s
CLIP = Media(kind="video", data=b64(mp4(1280, 720, 12.5)), mime_type="video/mp4")
MOVIE = Media(kind="video", data=b64(webm(3840, 2160, 95.0)), mime_type="video/webm")

NO_IMAGES = "no images found in the response: the turn has no image parts"

CASES: list[tuple[str, Build, object, Record]] = [
    # -- image_format: PromptKit's format is the MIME subtype, else the declared one, else bytes
    (
        "image_format pass: MIME type and bytes",
        lambda: ImageFormat(["PNG", "jpeg"]),
        said(PHOTO, ICON),
        (
            "passed",
            "image format is one of PNG, jpeg",
            {
                "found_formats": ["jpeg", "png"],
                "invalid_formats": [],
                "allowed_formats": ["PNG", "jpeg"],
                "image_count": 2,
                "violations": [],
            },
        ),
    ),
    (
        "image_format fail: a declared MIME type needs no bytes",
        lambda: ImageFormat(["png", "jpeg"]),
        said(ICON, WEB),
        (
            "failed",
            "image 2 of 2: format gif is not one of the allowed formats [png jpeg]",
            {
                "found_formats": ["png", "gif"],
                "invalid_formats": ["gif"],
                "allowed_formats": ["png", "jpeg"],
                "image_count": 2,
                "violations": ["format gif is not one of the allowed formats [png jpeg]"],
            },
        ),
    ),
    (
        "image_format: jpg is not jpeg, as in PromptKit",
        lambda: ImageFormat("jpg"),
        said(PHOTO),
        (
            "failed",
            "format jpeg is not one of the allowed formats [jpg]",
            {
                "found_formats": ["jpeg"],
                "invalid_formats": ["jpeg"],
                "allowed_formats": ["jpg"],
                "image_count": 1,
                "violations": ["format jpeg is not one of the allowed formats [jpg]"],
            },
        ),
    ),
    (
        "image_format error: an image that cannot be read, none of a wrong format",
        lambda: ImageFormat(["png"]),
        said(ICON, FAR),
        (
            "error",
            "cannot tell the format of image 2 of 2: cannot read media from a URL offline",
            {
                "found_formats": ["png"],
                "invalid_formats": [],
                "allowed_formats": ["png"],
                "image_count": 2,
                "violations": [],
                "unreadable": [{"index": 1, "error": "cannot read media from a URL offline"}],
                "error": "cannot read media from a URL offline",
            },
        ),
    ),
    (
        "image_format fail: a wrong format decides, whatever cannot be read",
        lambda: ImageFormat(["png"]),
        said(FAR, WEB),
        (
            "failed",
            "image 2 of 2: format gif is not one of the allowed formats [png]",
            {
                "found_formats": ["gif"],
                "invalid_formats": ["gif"],
                "allowed_formats": ["png"],
                "image_count": 2,
                "violations": ["format gif is not one of the allowed formats [png]"],
                "unreadable": [{"index": 0, "error": "cannot read media from a URL offline"}],
            },
        ),
    ),
    (
        "image_format error: no image at all",
        lambda: ImageFormat(["png"]),
        Turn(text="No picture, sorry."),
        ("error", NO_IMAGES, {"error": "no images found in message", "allowed_formats": ["png"]}),
    ),
    (
        "image_format error: the user's image is not the response's",
        lambda: ImageFormat(["png"]),
        said(USERS, SPEECH),
        (
            "error",
            "no images found in the response (the turn's 1 image part(s) came with 'user' "
            "messages, which are not the response)",
            {"error": "no images found in message", "allowed_formats": ["png"]},
        ),
    ),
    (
        "image_format error: bytes of no known format",
        lambda: ImageFormat(["png"]),
        said(Media(kind="image", data=b64(b"just some text"))),
        (
            "error",
            "cannot tell the format of image 1 of 1: its bytes, of no format it reads, do not "
            "say its format (chatassert reads PNG, JPEG, GIF, WebP, WAV, MP3, FLAC, Ogg, "
            "MP4/QuickTime and WebM/Matroska); declare it on the part",
            {
                "found_formats": [],
                "invalid_formats": [],
                "allowed_formats": ["png"],
                "image_count": 1,
                "violations": [],
                "unreadable": [
                    {
                        "index": 0,
                        "error": "its bytes, of no format it reads, do not say its format "
                        "(chatassert reads PNG, JPEG, GIF, WebP, WAV, MP3, FLAC, Ogg, "
                        "MP4/QuickTime and WebM/Matroska); declare it on the part",
                    }
                ],
                "error": "its bytes, of no format it reads, do not say its format (chatassert "
                "reads PNG, JPEG, GIF, WebP, WAV, MP3, FLAC, Ogg, MP4/QuickTime and "
                "WebM/Matroska); declare it on the part",
            },
        ),
    ),
    # -- audio_format: audio/mpeg is mp3; OpenAI's declared format counts
    (
        "audio_format pass",
        lambda: AudioFormat(["mp3", "wav"]),
        said(SPEECH, SONG),
        (
            "passed",
            "audio format is one of mp3, wav",
            {
                "found_formats": ["wav", "mp3"],
                "invalid_formats": [],
                "allowed_formats": ["mp3", "wav"],
                "audio_count": 2,
                "violations": [],
            },
        ),
    ),
    (
        "audio_format fail",
        lambda: AudioFormat(["ogg"]),
        said(Media(kind="audio", mime_type="audio/mpeg", url="https://x/a")),
        (
            "failed",
            "format mp3 is not one of the allowed formats [ogg]",
            {
                "found_formats": ["mp3"],
                "invalid_formats": ["mp3"],
                "allowed_formats": ["ogg"],
                "audio_count": 1,
                "violations": ["format mp3 is not one of the allowed formats [ogg]"],
            },
        ),
    ),
    (
        "audio_format error: only images",
        lambda: AudioFormat(["mp3"]),
        said(ICON),
        (
            "error",
            "no audio found in the response: the turn has no audio parts",
            {"error": "no audio found in message", "allowed_formats": ["mp3"]},
        ),
    ),
    # -- image_dimensions
    (
        "image_dimensions pass: sizes from the JPEG and PNG headers",
        lambda: ImageDimensions(min_width=64, max_width=1920, max_height=1080),
        said(PHOTO, ICON),
        (
            "passed",
            "image 64 <= width <= 1920, height <= 1080",
            {
                "found_dimensions": ["1920x1080", "64x64"],
                "min_width": 64,
                "max_width": 1920,
                "max_height": 1080,
                "image_count": 2,
                "violations": [],
            },
        ),
    ),
    (
        "image_dimensions fail: every violation, PromptKit's words, which image in the reason",
        lambda: ImageDimensions(width=1920, height=1080, min_width=100, min_height=100),
        said(PHOTO, ICON),
        (
            "failed",
            "image 2 of 2: width 64 does not match required 1920; image 2 of 2: height 64 does "
            "not match required 1080; image 2 of 2: width 64 below minimum 100; image 2 of 2: "
            "height 64 below minimum 100",
            {
                "found_dimensions": ["1920x1080", "64x64"],
                "min_width": 100,
                "min_height": 100,
                "width": 1920,
                "height": 1080,
                "image_count": 2,
                "violations": [
                    "width 64 does not match required 1920",
                    "height 64 does not match required 1080",
                    "width 64 below minimum 100",
                    "height 64 below minimum 100",
                ],
            },
        ),
    ),
    (
        "image_dimensions fail: maxima",
        lambda: ImageDimensions(max_width=1024, max_height=768),
        said(PHOTO),
        (
            "failed",
            "width 1920 exceeds maximum 1024; height 1080 exceeds maximum 768",
            {
                "found_dimensions": ["1920x1080"],
                "max_width": 1024,
                "max_height": 768,
                "image_count": 1,
                "violations": [
                    "width 1920 exceeds maximum 1024",
                    "height 1080 exceeds maximum 768",
                ],
            },
        ),
    ),
    (
        "image_dimensions: declared sizes are used as they are",
        lambda: ImageDimensions(min_width=500),
        said(Media(kind="image", url="https://x/y.png", width=400, height=300)),
        (
            "failed",
            "width 400 below minimum 500",
            {
                "found_dimensions": ["400x300"],
                "min_width": 500,
                "image_count": 1,
                "violations": ["width 400 below minimum 500"],
            },
        ),
    ),
    (
        "image_dimensions error: a URL is not fetched",
        lambda: ImageDimensions(min_width=500),
        said(WEB),
        (
            "error",
            "cannot tell the dimensions of image 1 of 1: cannot read media from a URL offline",
            {
                "found_dimensions": [],
                "min_width": 500,
                "image_count": 1,
                "violations": [],
                "unreadable": [{"index": 0, "error": "cannot read media from a URL offline"}],
                "error": "cannot read media from a URL offline",
            },
        ),
    ),
    (
        "image_dimensions error: no image",
        lambda: ImageDimensions(min_width=1),
        "just text",
        ("error", NO_IMAGES, {"error": "no images found in message"}),
    ),
    # -- audio_duration: declared, else the WAV / MP3 headers
    (
        "audio_duration pass",
        lambda: AudioDuration(min_seconds=1, max_seconds=5),
        said(SPEECH, SONG),
        (
            "passed",
            "audio 1s <= duration <= 5s",
            {
                "found_durations": [4.0, pytest.approx(100 * 1152 / 44100)],
                "min_seconds": 1,
                "max_seconds": 5,
                "audio_count": 2,
                "violations": [],
            },
        ),
    ),
    (
        "audio_duration fail: PromptKit's one-decimal words",
        lambda: AudioDuration(min_seconds=3, max_seconds=3.5),
        said(SPEECH, SONG),
        (
            "failed",
            "audio 1 of 2: duration 4.0s exceeds maximum 3.5s; audio 2 of 2: duration 2.6s "
            "below minimum 3.0s",
            {
                "found_durations": [4.0, pytest.approx(100 * 1152 / 44100)],
                "min_seconds": 3,
                "max_seconds": 3.5,
                "audio_count": 2,
                "violations": [
                    "duration 4.0s exceeds maximum 3.5s",
                    "duration 2.6s below minimum 3.0s",
                ],
            },
        ),
    ),
    (
        "audio_duration error: a missing file",
        lambda: AudioDuration(max_seconds=10),
        said(Media(kind="audio", file_path="no-such-dir/reply.wav")),
        (
            "error",
            "cannot tell the duration of audio 1 of 1: its file 'no-such-dir/reply.wav' does not "
            "exist",
            {
                "found_durations": [],
                "max_seconds": 10,
                "audio_count": 1,
                "violations": [],
                "unreadable": [
                    {"index": 0, "error": "its file 'no-such-dir/reply.wav' does not exist"}
                ],
                "error": "its file 'no-such-dir/reply.wav' does not exist",
            },
        ),
    ),
    (
        "audio_duration error: the user's recording is not the response",
        lambda: AudioDuration(max_seconds=10),
        said(SPEECH.model_copy(update={"role": "user"}), image(png(1, 1), role="tool")),
        (
            "error",
            "no audio found in the response (the turn's 1 audio part(s) came with 'user' "
            "messages, which are not the response)",
            {"error": "no audio found in message"},
        ),
    ),
    # -- video_duration and video_resolution: MP4 and WebM headers
    (
        "video_duration pass",
        lambda: VideoDuration(min_seconds=10, max_seconds=100),
        said(CLIP, MOVIE),
        (
            "passed",
            "video 10s <= duration <= 100s",
            {
                "found_durations": [12.5, 95.0],
                "min_seconds": 10,
                "max_seconds": 100,
                "video_count": 2,
                "violations": [],
            },
        ),
    ),
    (
        "video_duration fail",
        lambda: VideoDuration(max_seconds=60),
        said(CLIP, MOVIE),
        (
            "failed",
            "video 2 of 2: duration 95.0s exceeds maximum 60.0s",
            {
                "found_durations": [12.5, 95.0],
                "max_seconds": 60,
                "video_count": 2,
                "violations": ["duration 95.0s exceeds maximum 60.0s"],
            },
        ),
    ),
    (
        "video_duration error: no video",
        lambda: VideoDuration(max_seconds=60),
        said(PHOTO),
        (
            "error",
            "no video found in the response: the turn has no video parts",
            {"error": "no video found in message"},
        ),
    ),
    (
        "video_resolution pass: presets by height, any case",
        lambda: VideoResolution(["720P", "UHD"]),
        said(CLIP, MOVIE),
        (
            "passed",
            "video resolution one of 720P, UHD",
            {
                "found_resolutions": ["1280x720", "3840x2160"],
                "allowed_presets": ["720P", "UHD"],
                "video_count": 2,
                "violations": [],
            },
        ),
    ),
    (
        "video_resolution fail: a preset miss is reported alone, bounds are not checked",
        lambda: VideoResolution(["1080p", "4k"], max_width=1000),
        said(CLIP, MOVIE),
        (
            "failed",
            "video 1 of 2: resolution 1280x720 does not match any preset: [1080p 4k]; video 2 of "
            "2: width 3840 exceeds maximum 1000",
            {
                "found_resolutions": ["1280x720", "3840x2160"],
                "allowed_presets": ["1080p", "4k"],
                "max_width": 1000,
                "video_count": 2,
                "violations": [
                    "resolution 1280x720 does not match any preset: [1080p 4k]",
                    "width 3840 exceeds maximum 1000",
                ],
            },
        ),
    ),
    (
        "video_resolution fail: bounds",
        lambda: VideoResolution(min_height=1080),
        said(CLIP),
        (
            "failed",
            "height 720 below minimum 1080",
            {
                "found_resolutions": ["1280x720"],
                "min_height": 1080,
                "video_count": 1,
                "violations": ["height 720 below minimum 1080"],
            },
        ),
    ),
]

test_media_records = records_test(CASES)


REFUSALS: list[tuple[str, Any, type[Exception], str]] = [
    (
        "no formats",
        lambda: ImageFormat([]),
        ValueError,
        "formats needs at least one value, got an empty list",
    ),
    (
        "empty format",
        lambda: AudioFormat([""]),
        ValueError,
        "formats values must not be empty strings",
    ),
    (
        "no bounds",
        lambda: ImageDimensions(),
        ValueError,
        "image_dimensions needs at least one of min_width, max_width, min_height, max_height, "
        "width, height",
    ),
    (
        "a fraction of a pixel",
        lambda: ImageDimensions(min_width=1.5),
        TypeError,
        "min_width must be a whole number of pixels, got float 1.5",
    ),
    (
        "a boolean",
        lambda: VideoResolution(max_height=True),
        TypeError,
        "max_height must be a whole number of pixels, got bool True",
    ),
    (
        "negative",
        lambda: ImageDimensions(width=-1),
        ValueError,
        "width must be a finite number from 0, got -1",
    ),
    (
        "min over max",
        lambda: ImageDimensions(min_width=800, max_width=600),
        ValueError,
        "min_width (800) is greater than max_width (600): nothing passes",
    ),
    (
        "no seconds",
        lambda: AudioDuration(),
        ValueError,
        "audio_duration needs min_seconds, max_seconds or both",
    ),
    (
        "seconds as text",
        lambda: VideoDuration(max_seconds="60"),
        TypeError,
        "max_seconds must be a number of seconds, got str '60'",
    ),
    (
        "infinite seconds",
        lambda: VideoDuration(max_seconds=float("inf")),
        ValueError,
        "max_seconds must be a finite number from 0, got inf",
    ),
    (
        "seconds the wrong way round",
        lambda: AudioDuration(min_seconds=10, max_seconds=2.5),
        ValueError,
        "min_seconds (10) is greater than max_seconds (2.5): nothing passes",
    ),
    (
        "no presets nor bounds",
        lambda: VideoResolution(),
        ValueError,
        "video_resolution needs presets or at least one of min_width, max_width, min_height, "
        "max_height",
    ),
    (
        "an unknown preset",
        lambda: VideoResolution(["1080", "4k"]),
        ValueError,
        "presets: unknown preset '1080'; did you mean '1080p'?",
    ),
    (
        "a preset nowhere near",
        lambda: VideoResolution(["cinema"]),
        ValueError,
        "presets: unknown preset 'cinema'; known: 480p, sd, 720p, hd, 1080p, fhd, full_hd, "
        "1440p, 2k, qhd, 2160p, 4k, uhd, 4320p, 8k",
    ),
]

test_media_refusals = refusals_test(REFUSALS)


def test_every_preset_is_matched_by_its_height_alone() -> None:
    heights = {
        "480p": 480,
        "SD": 480,
        "hd": 720,
        "Full_HD": 1080,
        "2K": 1440,
        "4k": 2160,
        "8K": 4320,
    }
    for preset, height in heights.items():
        check = VideoResolution([preset])
        wide = said(Media(kind="video", width=99999, height=height))
        off = said(Media(kind="video", width=1920, height=height + 1))
        assert check.check(wide).status is Status.PASSED, preset
        assert check.check(off).status is Status.FAILED, preset


def test_a_media_part_built_in_code_is_the_response_s() -> None:
    assert Media(kind="image").role == "assistant"


def test_media_parts_of_the_response_come_from_messages_in_any_shape() -> None:
    turn = Turn(
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Draw a cat"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64," + b64(png(10, 10))},
                    },
                ],
            },
            {
                "role": "assistant",
                "content": "Here is your cat.",
                "parts": [
                    {"type": "text", "text": "Here is your cat."},
                    {
                        "type": "image",
                        "media": {"data": b64(png(512, 512)), "mime_type": "image/png"},
                    },
                ],
            },
        ]
    )
    assert [(m.role, m.mime_type) for m in turn.media] == [
        ("user", "image/png"),
        ("assistant", "image/png"),
    ]
    result = ImageDimensions(width=512, height=512).check(turn)
    assert result.status is Status.PASSED
    assert result.details["found_dimensions"] == ["512x512"]  # the user's 10x10 is not read


def test_a_scenario_file_loads_the_media_checks_and_refuses_bad_parameters() -> None:
    text = scenario(
        """\
        assertions:
          - type: image_format
            params: {formats: [png]}
          - type: image_dimensions
            params: {min_width: wide}
          - type: video_resolution
            params: {presets: [1080i]}
          - type: audio_duration
            params: {}
        """,
        section="assertions",
    )
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename="media.yaml")
    problems = [(p.path, p.message) for p in caught.value.problems]
    assert problems == [
        (
            "spec.turns[0].assertions[1].params.min_width",
            "parameter 'min_width' has the wrong type",
        ),
        # the message names the parameter, so the path stops at params
        (
            "spec.turns[0].assertions[2].params",
            "presets: unknown preset '1080i'; did you mean '1080p'?",
        ),
        (
            "spec.turns[0].assertions[3].params",
            "audio_duration needs min_seconds, max_seconds or both",
        ),
    ]


LOG_RECORD = {
    "turns": [
        {
            "input": "Draw a cat",
            "text": "Here is your cat.",
            "media": [{"kind": "image", "mime_type": "image/png", "data": b64(png(256, 256))}],
        }
    ]
}


def test_the_command_line_checks_a_scenario_against_a_log_with_media(tmp_path: Path) -> None:
    suite = tmp_path / "media.scenario.yaml"
    suite.write_text(
        scenario(
            """\
            - role: user
              content: Draw a cat
              assertions:
                - {type: image_format, params: {formats: [png, jpeg]}}
                - {type: image_dimensions, params: {min_width: 512}}
                - {type: audio_duration, params: {max_seconds: 30}}
            """
        )
    )
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(LOG_RECORD) + "\n")
    proc = run_in_process("check", str(suite), str(log), "--format", "json", cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    text = proc.stdout
    assert "width 256 below minimum 512" in text
    assert "no audio found in the response" in text
    summary = json.loads(text.splitlines()[-1])["summary"]
    assert summary["failed"] == 1
