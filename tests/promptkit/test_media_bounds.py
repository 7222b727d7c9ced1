"""What media headers may say, and how long reading them may take (chatassert._media).

Every number a header gives is checked before a check sees it: a size is a whole number of
pixels from 1 to `MAX_SIDE`, a duration a finite number of seconds from 0 to `MAX_SECONDS`,
and the rates and time scales a duration is computed from are above 0. A number out of range
is rejected with the reason, and a check that needs it is an `error`: never a pass, never a
failure on garbage (a Matroska Duration of NaN passed every `video_duration` check; -5 s
passed `max_seconds`).

Every reader is linear in its input: the steps it takes (boxes, elements, chunks, pages,
segments and candidate positions visited, counted by `_Work`) are at most the input's size,
on inputs built to make a careless reader quadratic (an MP4 with thousands of `mvex` boxes
took 11 s for 100 KB and minutes for 1 MB). And a read stops at its CPU time limit, drawn
from the check's budget: the check is an `error` saying the header took too long.
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from media_helpers import b64, flac, gif, jpeg, mp3, mp4, ogg_vorbis, png, wav, webm, webp_lossy

import chatassert._media as media_module
from chatassert import Media, Status, Turn
from chatassert._budget import BUDGET, close_budget, open_budget
from chatassert._media import MAX_SECONDS, MAX_SIDE, Facts, Probe, _Work, facts, probe
from chatassert.promptkit import AudioDuration, ImageDimensions, VideoDuration, VideoResolution


def size_why(fmt: str, name: str, shown: str) -> str:
    return (
        f"its {fmt} header gives the {name} {shown}, which is not a size "
        f"(a whole number of pixels from 1 to {MAX_SIDE})"
    )


def duration_why(fmt: str, shown: str) -> str:
    return (
        f"its {fmt} header gives the duration {shown} s, which is not a duration "
        f"(a finite number of seconds from 0 to {MAX_SECONDS}, 366 days)"
    )


def rate_why(fmt: str, what: str, shown: str) -> str:
    return f"its {fmt} header gives the {what} {shown}, which is not above 0"


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def wav_byte_rate(rate: int) -> bytes:
    data = bytearray(wav(1.0))
    at = data.index(b"fmt ") + 8 + 8  # format, channels, sample rate, then the byte rate
    data[at : at + 4] = struct.pack("<I", rate)
    return bytes(data)


def flac_bits(rate: int, samples: int) -> bytes:
    data = bytearray(flac(1.0))
    data[18:26] = struct.pack(">Q", (rate << 44) | (15 << 36) | samples)
    return bytes(data)


def mp3_frames(count: int) -> bytes:
    data = bytearray(mp3(10, xing=True))
    at = data.index(b"Xing") + 8
    data[at : at + 4] = struct.pack(">I", count)
    return bytes(data)


NAN = struct.pack(">d", math.nan)

# (name, bytes, what the header reader says)
OUT_OF_RANGE: list[tuple[str, bytes, Probe]] = [
    (
        "png width 0",
        png_header(0, 10),
        Probe("png", None, 10, None, (("width", size_why("png", "width", "0")),)),
    ),
    (
        "png width past 2**31-1",
        png_header(2**31, 5),
        Probe("png", None, 5, None, (("width", size_why("png", "width", "2147483648")),)),
    ),
    ("png at the largest size", png_header(MAX_SIDE, 1), Probe("png", MAX_SIDE, 1)),
    (
        "jpeg height 0",
        jpeg(640, 0),
        Probe("jpeg", 640, None, None, (("height", size_why("jpeg", "height", "0")),)),
    ),
    (
        "gif 0x0",
        gif(0, 0),
        Probe(
            "gif",
            rejected=(
                ("width", size_why("gif", "width", "0")),
                ("height", size_why("gif", "height", "0")),
            ),
        ),
    ),
    (
        "webp width 0",
        webp_lossy(0, 9),
        Probe("webp", None, 9, None, (("width", size_why("webp", "width", "0")),)),
    ),
    (
        "wav byte rate 0",
        wav_byte_rate(0),
        Probe("wav", rejected=(("duration", rate_why("wav", "byte rate", "0")),)),
    ),
    (
        "flac sample rate 0",
        flac_bits(0, 16000),
        Probe("flac", rejected=(("duration", rate_why("flac", "sample rate", "0")),)),
    ),
    (
        "flac past the ceiling",
        flac_bits(1, MAX_SECONDS + 1),
        Probe("flac", rejected=(("duration", duration_why("flac", f"{MAX_SECONDS + 1.0!r}")),)),
    ),
    ("flac at the ceiling", flac_bits(1, MAX_SECONDS), Probe("flac", duration=float(MAX_SECONDS))),
    (
        "ogg vorbis sample rate 0",
        ogg_vorbis(2.0, rate=0),
        Probe("ogg", rejected=(("duration", rate_why("ogg", "sample rate", "0")),)),
    ),
    (
        "mp3 with 2**32-1 frames",
        mp3_frames(2**32 - 1),
        Probe(
            "mp3", rejected=(("duration", duration_why("mp3", repr((2**32 - 1) * 1152 / 44100))),)
        ),
    ),
    (
        "mp4 time scale 0",
        mp4(64, 48, 1.0, scale=0, length=1000),
        Probe("mp4", 64, 48, None, (("duration", rate_why("mp4", "time scale", "0")),)),
    ),
    (
        "mp4 past the ceiling",
        mp4(64, 48, 0, scale=1, length=MAX_SECONDS + 1, version=1),
        Probe("mp4", 64, 48, None, (("duration", duration_why("mp4", f"{MAX_SECONDS + 1.0!r}")),)),
    ),
    (
        "mp4 at the ceiling",
        mp4(64, 48, 0, scale=1, length=MAX_SECONDS),
        Probe("mp4", 64, 48, float(MAX_SECONDS)),
    ),
    (
        "mp4 video width 0",
        mp4(0, 48, 2.0),
        Probe("mp4", None, 48, 2.0, (("width", size_why("mp4", "width", "0")),)),
    ),
    (
        "webm duration NaN",
        webm(64, 48, math.nan),
        Probe("webm", 64, 48, None, (("duration", duration_why("webm", "nan")),)),
    ),
    (
        "webm duration NaN, as a 4-byte float",
        webm(64, 48, 0, duration=struct.pack(">f", math.nan)),
        Probe("webm", 64, 48, None, (("duration", duration_why("webm", "nan")),)),
    ),
    (
        "webm duration -5 s",
        webm(64, 48, -5.0),
        Probe("webm", 64, 48, None, (("duration", duration_why("webm", "-5.0")),)),
    ),
    (
        "webm duration infinite",
        webm(64, 48, math.inf),
        Probe("webm", 64, 48, None, (("duration", duration_why("webm", "inf")),)),
    ),
    (
        "webm duration of 3 bytes",
        webm(64, 48, 0, duration=b"\x00\x00\x01"),
        Probe(
            "webm",
            64,
            48,
            None,
            (("duration", "its webm header's Duration is 3 bytes, not a float of 4 or 8"),),
        ),
    ),
    (
        "matroska timestamp scale 0",
        webm(64, 48, 2.0, doctype=b"matroska", scale=b"\x00"),
        Probe(
            "x-matroska",
            64,
            48,
            None,
            (("duration", rate_why("x-matroska", "timestamp scale", "0")),),
        ),
    ),
    (
        "webm timestamp scale of 9 bytes",
        webm(64, 48, 2.0, scale=b"\x01" + bytes(8)),
        Probe(
            "webm",
            64,
            48,
            None,
            (("duration", "its webm header's TimestampScale is 9 bytes, more than 8"),),
        ),
    ),
    (
        "webm pixel width 0",
        webm(64, 48, 2.0, pixels=(b"\x00", b"\x30")),
        Probe("webm", None, 48, 2.0, (("width", size_why("webm", "width", "0")),)),
    ),
    (
        "webm pixel width of 20 bytes",
        webm(64, 48, 2.0, pixels=(b"\xff" * 20, b"\x30")),
        Probe(
            "webm", None, 48, 2.0, (("width", size_why("webm", "width", "a number of 160 bits")),)
        ),
    ),
]


@pytest.mark.parametrize(
    ("data", "expected"), [(d, e) for _, d, e in OUT_OF_RANGE], ids=[n for n, *_ in OUT_OF_RANGE]
)
def test_a_number_out_of_range_is_rejected_with_the_reason(data: bytes, expected: Probe) -> None:
    assert probe(data) == expected


def said(*parts: Media) -> Turn:
    return Turn(input="Make it", text="Here you are.", media=parts)


NAN_VIDEO = Media(kind="video", data=b64(webm(1280, 720, math.nan)), mime_type="video/webm")
BACKWARDS = Media(kind="video", data=b64(webm(1280, 720, -5.0)), mime_type="video/webm")
AGES = Media(kind="audio", data=b64(flac_bits(1, MAX_SECONDS + 1)), mime_type="audio/flac")


@pytest.mark.parametrize(
    ("check", "part", "why"),
    [
        (VideoDuration(max_seconds=60), NAN_VIDEO, duration_why("webm", "nan")),
        (VideoDuration(min_seconds=1), NAN_VIDEO, duration_why("webm", "nan")),
        (VideoDuration(min_seconds=1, max_seconds=60), NAN_VIDEO, duration_why("webm", "nan")),
        (VideoDuration(max_seconds=60), BACKWARDS, duration_why("webm", "-5.0")),
        (VideoDuration(min_seconds=10), BACKWARDS, duration_why("webm", "-5.0")),
        (AudioDuration(max_seconds=60), AGES, duration_why("flac", f"{MAX_SECONDS + 1.0!r}")),
        (AudioDuration(min_seconds=60), AGES, duration_why("flac", f"{MAX_SECONDS + 1.0!r}")),
    ],
    ids=["nan max", "nan min", "nan both", "-5 max", "-5 min", "ages max", "ages min"],
)
def test_a_duration_out_of_range_is_an_error_never_a_verdict(
    check: VideoDuration | AudioDuration, part: Media, why: str
) -> None:
    result = check.check(said(part))
    noun = part.kind
    assert result.status is Status.ERROR
    assert (
        result.reason == f"cannot tell the duration of {noun} 1 of 1: {why}; declare it on the part"
    )
    assert result.details["found_durations"] == []
    assert result.details["unreadable"] == [{"index": 0, "error": f"{why}; declare it on the part"}]
    json.dumps(result.to_dict(), allow_nan=False)  # nothing out of range reaches a report


def test_a_size_out_of_range_is_an_error_never_a_pass() -> None:
    """A JPEG whose frame height is 0 passed `max_height` before its height was checked."""
    part = Media(kind="image", data=b64(jpeg(640, 0)), mime_type="image/jpeg")
    result = ImageDimensions(max_height=100).check(said(part))
    why = size_why("jpeg", "height", "0")
    assert (result.status, result.reason) == (
        Status.ERROR,
        f"cannot tell the dimensions of image 1 of 1: {why}; declare it on the part",
    )


def test_what_a_header_gives_in_range_is_still_read() -> None:
    """A video whose duration is NaN still has its size; another part's violation still fails."""
    assert VideoResolution(presets=["720p"]).check(said(NAN_VIDEO)).status is Status.PASSED
    long = Media(kind="video", data=b64(mp4(64, 48, 90.0)), mime_type="video/mp4")
    result = VideoDuration(max_seconds=60).check(said(NAN_VIDEO, long))
    assert (result.status, result.reason) == (
        Status.FAILED,
        "video 2 of 2: duration 90.0s exceeds maximum 60.0s",
    )


def test_a_declared_fact_wins_over_one_rejected() -> None:
    declared = NAN_VIDEO.model_copy(update={"duration_seconds": 12.0})
    assert facts(declared) == Facts("webm", 1280, 720, 12.0)
    assert facts(NAN_VIDEO) == Facts(
        "webm", 1280, 720, None, rejected=(("duration", duration_why("webm", "nan")),)
    )
    assert VideoDuration(max_seconds=60).check(said(declared)).status is Status.PASSED


# -- linear work ---------------------------------------------------------------------------------


def box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


FTYP = box(b"ftyp", b"isom\x00\x00\x02\x00isommp41")


def mp4_mvex(n: int) -> bytes:
    """Movie extends boxes, each with its header, filling the movie box; no movie header (the
    shape that took 11 s for 100 KB: each `mehd` read the whole movie box again)."""
    unit = box(b"mvex", box(b"mehd", bytes(4) + struct.pack(">I", 1000)))
    return FTYP + box(b"moov", unit * (n // len(unit)))


def mp4_tracks(n: int) -> bytes:
    """Sound tracks only, each with its handler: every one is read, none is video."""
    hdlr = box(b"hdlr", bytes(8) + b"soun" + bytes(12))
    unit = box(b"trak", box(b"tkhd", bytes(84)) + box(b"mdia", box(b"mdhd", bytes(24)) + hdlr))
    return FTYP + box(b"moov", unit * (n // len(unit)))


def element(ident: bytes, body: bytes, size: bytes | None = None) -> bytes:
    return ident + (size or (0x01 << 56 | len(body)).to_bytes(8, "big")) + body


def mkv_overreaching(n: int) -> bytes:
    """Tracks whose Video element says it runs 1 GB past its track, with no pixel sizes: a
    reader that lets a child outgrow its parent reads the rest of the file once per track."""
    video = element(
        b"\xe0", element(b"\x83", b"\x01"), size=(0x01 << 56 | 2**30).to_bytes(8, "big")
    )
    unit = element(b"\xae", video)
    header = element(b"\x1a\x45\xdf\xa3", element(b"\x42\x82", b"webm"))
    tracks = element(b"\x16\x54\xae\x6b", unit * (n // len(unit)))
    return header + element(b"\x18\x53\x80\x67", tracks)


def mkv_infos(n: int) -> bytes:
    """Info elements filling the segment: only the first is read."""
    unit = element(b"\x15\x49\xa9\x66", element(b"\x44\x89", struct.pack(">d", 1000.0)))
    header = element(b"\x1a\x45\xdf\xa3", element(b"\x42\x82", b"webm"))
    return header + element(b"\x18\x53\x80\x67", unit * (n // len(unit)))


def ogg_strangers(n: int) -> bytes:
    """A Vorbis stream's first page, then pages of another stream, read from the end."""
    first = ogg_vorbis(1.0)
    page = b"OggS\x00\x00" + struct.pack("<qIII", 5, 99, 1, 0) + b"\x00"
    return first + page * ((n - len(first)) // len(page))


def jpeg_fill(n: int) -> bytes:
    """Fill bytes before the frame header, one step each."""
    return b"\xff\xd8" + b"\xff" * n + jpeg(64, 48)[2:]


def jpeg_segments(n: int) -> bytes:
    """Empty application segments before the frame header."""
    return b"\xff\xd8" + b"\xff\xe1\x00\x02" * (n // 4) + jpeg(64, 48)[2:]


def wav_chunks(n: int) -> bytes:
    """Empty chunks before the format and data chunks."""
    whole = wav(0.5)
    return whole[:12] + b"junk\x00\x00\x00\x00" * (n // 8) + whole[12:]


def mp3_junk(n: int) -> bytes:
    """Frame-like bytes that are never two frames in a row."""
    return (b"\xff\xfb\x90\x00" + bytes(13)) * (n // 17)


ADVERSARIAL: list[tuple[str, Callable[[int], bytes]]] = [
    ("mp4 mvex boxes", mp4_mvex),
    ("mp4 sound tracks", mp4_tracks),
    ("matroska overreaching video", mkv_overreaching),
    ("matroska info elements", mkv_infos),
    ("ogg pages of another stream", ogg_strangers),
    ("jpeg fill bytes", jpeg_fill),
    ("jpeg segments", jpeg_segments),
    ("wav chunks", wav_chunks),
    ("mp3 frame-like bytes", mp3_junk),
]


def steps(data: bytes) -> int:
    work = _Work(math.inf)
    media_module._probe(data, work)
    return work.steps


@pytest.mark.parametrize("build", [b for _, b in ADVERSARIAL], ids=[n for n, _ in ADVERSARIAL])
def test_every_reader_takes_at_most_a_step_per_byte(build: Callable[[int], bytes]) -> None:
    """The count of visits grows with the input, not with its square: at most one step per
    byte (an MP3 is sought in its first 4096 bytes, twice: 8192 steps at most)."""
    counts = []
    for size in (10_000, 40_000, 160_000):
        data = build(size)
        counts.append(steps(data))
        assert counts[-1] <= len(data) + 2 * 4096
    assert counts[2] <= 4 * counts[1] + 8192
    assert counts[1] <= 4 * counts[0] + 8192


def test_the_finding_input_reads_in_few_steps() -> None:
    """The 100 KB MP4 that took 11 s: one step per box, about 4,300 in all."""
    data = mp4_mvex(102_400)
    assert probe(data) == Probe("mp4")
    assert steps(data) <= len(data) // 24 + 8


@pytest.mark.parametrize("build", [b for _, b in ADVERSARIAL], ids=[n for n, _ in ADVERSARIAL])
def test_a_read_that_runs_out_of_time_says_so(build: Callable[[int], bytes]) -> None:
    """With no time at all, a read stops at its first look at the clock, which every input
    here reaches: what it did not read is rejected with the reason, the format kept."""
    data = build(160_000)
    assert steps(data) >= media_module._CLOCK_EVERY
    found = probe(data, seconds=0)
    fmt = found.format or "media"
    why = (
        f"reading its {fmt} headers ({len(data)} bytes) took more than 0 s of CPU time, "
        f"so they were not read"
    )
    assert found == Probe(
        found.format, rejected=(("width", why), ("height", why), ("duration", why))
    )


def test_a_check_whose_header_takes_too_long_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read draws on the check's budget: with `HEADER_SECONDS` at 0 the check reports the
    header that took too long, as it would a file that takes more than a second."""
    path = tmp_path / "slow.mp4"
    data = mp4_mvex(102_400)
    path.write_bytes(data)
    monkeypatch.setattr(media_module, "HEADER_SECONDS", 0.0)
    part = Media(kind="video", file_path=str(path), mime_type="video/mp4")
    result = VideoDuration(max_seconds=60).check(said(part))
    why = (
        f"reading its mp4 headers ({len(data)} bytes) took more than 0 s of CPU time, "
        f"so they were not read; declare it on the part"
    )
    assert (result.status, result.reason) == (
        Status.ERROR,
        f"cannot tell the duration of video 1 of 1: {why}",
    )


def test_a_read_that_ends_in_time_is_whole() -> None:
    assert probe(mp4_mvex(102_400), seconds=60.0) == Probe("mp4")
    assert probe(png(3, 2), seconds=0) == Probe("png", 3, 2)  # never needed the clock


def test_a_read_inside_a_check_draws_on_its_budget() -> None:
    """The time a header read takes is added to the budget the check's searches share, so a
    check's regular expressions and its media headers have one limit between them."""
    token = open_budget()
    try:
        budget = BUDGET.get()
        assert budget is not None
        assert budget.spent == 0.0
        assert probe(mp4_mvex(1_048_576)) == Probe("mp4")  # tens of milliseconds of work
        assert budget.spent > 0.0
    finally:
        close_budget(token)
