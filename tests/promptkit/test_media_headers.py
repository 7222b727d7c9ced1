"""Tests of chatassert._media: reading media headers, and what a media part is known to be.

Files written by real encoders (tests/promptkit/data/media, README there) and files built byte
by byte from their format definitions (media_helpers.py) must read as their makers say; bytes
that are cut short or are of no known format never raise.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from media_helpers import (
    MP3_FRAME,
    MP3_SAMPLES,
    b64,
    flac,
    gif,
    jpeg,
    mp3,
    mp4,
    ogg_opus,
    ogg_vorbis,
    png,
    wav,
    wav_with_list_chunk,
    webm,
    webp_extended,
    webp_lossless,
    webp_lossy,
)

from chatassert import Media
from chatassert._media import Facts, Probe, facts, format_of_mime, probe

DATA = Path(__file__).parent / "data" / "media"

# What each encoder wrote (Pillow for images, ffmpeg for the rest; see the README there).
REAL: list[tuple[str, Probe]] = [
    ("image.png", Probe("png", 37, 23)),
    ("image.jpg", Probe("jpeg", 37, 23)),
    ("progressive.jpg", Probe("jpeg", 37, 23)),
    ("exif.jpg", Probe("jpeg", 33, 17)),
    ("image.gif", Probe("gif", 37, 23)),
    ("lossy.webp", Probe("webp", 37, 23)),
    ("lossless.webp", Probe("webp", 37, 23)),
    ("alpha.webp", Probe("webp", 41, 19)),
    ("cbr.mp3", Probe("mp3", duration=1.656)),
    ("vbr.mp3", Probe("mp3", duration=1.656)),
    ("sine.flac", Probe("flac", duration=0.5)),
    # the Opus stream is 1.5 s: its last granule less the pre-skip, as RFC 7845 counts it
    ("sine.opus", Probe("ogg", duration=1.5)),
    ("sine.ogg", Probe("ogg", duration=1.5)),
    ("sine.m4a", Probe("mp4", duration=1.5)),
    ("blue.mp4", Probe("mp4", 64, 48, 2.0)),
    ("blue-with-sound.mp4", Probe("mp4", 64, 48, 2.0)),
    ("faststart.mp4", Probe("mp4", 64, 48, 2.0)),
    # an empty movie box: the duration is only in the fragments, which are not read
    ("fragmented.mp4", Probe("mp4", 64, 48, None)),
    ("blue.mov", Probe("quicktime", 64, 48, 2.0)),
    ("blue.webm", Probe("webm", 64, 48, 2.0)),
    ("blue.mkv", Probe("x-matroska", 64, 48, 2.0)),
]


@pytest.mark.parametrize(("name", "expected"), REAL, ids=[n for n, _ in REAL])
def test_files_from_real_encoders_read_as_their_makers_say(name: str, expected: Probe) -> None:
    got = probe((DATA / name).read_bytes())
    assert got.format == expected.format
    assert (got.width, got.height) == (expected.width, expected.height)
    if expected.duration is None:
        assert got.duration is None
    else:
        assert got.duration == pytest.approx(expected.duration, abs=0.001)


def test_every_real_file_is_in_the_table() -> None:
    assert sorted(p.name for p in DATA.iterdir() if p.suffix != ".md") == sorted(n for n, _ in REAL)


BUILT: list[tuple[str, bytes, Probe]] = [
    ("png", png(640, 480), Probe("png", 640, 480)),
    ("png 1x1", png(1, 1), Probe("png", 1, 1)),
    ("gif", gif(300, 200), Probe("gif", 300, 200)),
    ("gif wide", gif(65535, 2), Probe("gif", 65535, 2)),
    ("jpeg baseline", jpeg(1024, 768), Probe("jpeg", 1024, 768)),
    ("jpeg progressive", jpeg(10, 2000, progressive=True), Probe("jpeg", 10, 2000)),
    ("webp lossy", webp_lossy(800, 600), Probe("webp", 800, 600)),
    ("webp lossless", webp_lossless(1000, 16384), Probe("webp", 1000, 16384)),
    ("webp extended", webp_extended(4000, 3000), Probe("webp", 4000, 3000)),
    ("wav mono", wav(2.5), Probe("wav", duration=2.5)),
    ("wav stereo 44.1k", wav(0.75, 44100, 2, 2), Probe("wav", duration=0.75)),
    ("wav 8-bit", wav(1.0, 11025, 1, 1), Probe("wav", duration=1.0)),
    ("wav LIST chunk", wav_with_list_chunk(1.25), Probe("wav", duration=1.25)),
    ("flac", flac(3.5), Probe("flac", duration=3.5)),
    ("ogg opus", ogg_opus(4.0), Probe("ogg", duration=4.0)),
    ("ogg vorbis", ogg_vorbis(2.0), Probe("ogg", duration=2.0)),
    ("mp4", mp4(1920, 1080, 12.5), Probe("mp4", 1920, 1080, 12.5)),
    (
        "mp4 64-bit headers, movie last",
        mp4(1280, 720, 3.0, version=1, moov_last=True, scale=90000),
        Probe("mp4", 1280, 720, 3.0),
    ),
    ("mp4 video track only", mp4(640, 360, 1.0, audio_first=False), Probe("mp4", 640, 360, 1.0)),
    ("quicktime", mp4(640, 480, 1.0, brand=b"qt  "), Probe("quicktime", 640, 480, 1.0)),
    ("webm", webm(1280, 720, 7.25), Probe("webm", 1280, 720, 7.25)),
    ("matroska", webm(320, 240, 1.0, doctype=b"matroska"), Probe("x-matroska", 320, 240, 1.0)),
]


@pytest.mark.parametrize(
    ("data", "expected"), [(d, e) for _, d, e in BUILT], ids=[n for n, *_ in BUILT]
)
def test_files_built_from_the_format_definitions_read_as_built(
    data: bytes, expected: Probe
) -> None:
    assert probe(data) == expected


@pytest.mark.parametrize(
    ("data", "seconds"),
    [
        # constant bit rate: the bytes after the tag over the bit rate (128 kbit/s)
        (mp3(100), 100 * MP3_FRAME * 8 / 128000),
        (mp3(10, id3=False), 10 * MP3_FRAME * 8 / 128000),
        # an ID3v1 tag at the end is not audio
        (mp3(10, id3=False) + b"TAG" + b"\x00" * 125, 10 * MP3_FRAME * 8 / 128000),
        # a Xing header counts the frames: frames x 1152 samples / 44100 Hz
        (mp3(100, xing=True), 100 * MP3_SAMPLES / 44100),
        # junk before the first frame is skipped
        (b"\x00" * 7 + mp3(10, id3=False), 10 * MP3_FRAME * 8 / 128000),
    ],
    ids=["cbr", "no tag", "id3v1", "xing", "junk first"],
)
def test_mp3_durations(data: bytes, seconds: float) -> None:
    found = probe(data)
    assert found.format == "mp3"
    assert found.duration == pytest.approx(seconds)


def test_a_streamed_wav_without_its_size_counts_the_bytes_there() -> None:
    data = bytearray(wav(1.5))
    at = data.index(b"data")
    data[at + 4 : at + 8] = b"\xff\xff\xff\xff"
    assert probe(bytes(data)).duration == pytest.approx(1.5)


def test_an_mp4_whose_duration_is_unknown_says_none() -> None:
    data = bytearray(mp4(64, 48, 2.0, audio_first=False))
    at = data.index(b"mvhd") + 4 + 16  # version 0: flags, two times, the time scale
    data[at : at + 4] = b"\xff\xff\xff\xff"
    assert probe(bytes(data)) == Probe("mp4", 64, 48, None)


ALL_BYTES = [d for _, d, _ in BUILT] + [(DATA / n).read_bytes() for n, _ in REAL]


@pytest.mark.parametrize("data", ALL_BYTES, ids=[n for n, *_ in BUILT] + [n for n, _ in REAL])
def test_bytes_cut_short_never_raise(data: bytes) -> None:
    for end in (1, 4, 8, 12, 16, 20, 27, 30, 40, 64, 100, len(data) // 2, len(data) - 1):
        cut = probe(data[:end])
        assert isinstance(cut, Probe)
        whole = probe(data)
        if cut.width is not None:  # what is read from a cut file is never made up
            assert (cut.width, cut.height) == (whole.width, whole.height)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello world",
        b"\x00" * 64,
        b"RIFF\x00\x00\x00\x00WAVE",
        b"\xff\xd8\xff",
        b"OggS" + b"\x00" * 40,
    ],
    ids=["empty", "text", "zeros", "riff header only", "jpeg start only", "ogg page only"],
)
def test_bytes_of_no_known_format_or_too_short_say_nothing_they_do_not_know(data: bytes) -> None:
    found = probe(data)
    assert (found.width, found.height, found.duration) == (None, None, None)


@pytest.mark.parametrize(
    ("mime", "name"),
    [
        ("image/jpeg", "jpeg"),
        ("image/png", "png"),
        ("audio/mpeg", "mp3"),
        ("video/mpeg", "mpeg"),
        ("audio/wav", "wav"),
        ("audio/x-wav", "x-wav"),
        ("audio/webm; codecs=opus", "webm"),
        ("wav", "wav"),
        ("a/b/c", "a/b/c"),
    ],
)
def test_format_of_a_mime_type_is_its_subtype_as_promptkit_names_it(mime: str, name: str) -> None:
    assert format_of_mime(mime) == name


# -- a part's facts ------------------------------------------------------------------------------

PNG = png(800, 600)


def test_facts_of_base64_data() -> None:
    assert facts(Media(kind="image", data=b64(PNG))) == Facts("png", 800, 600)


def test_base64_data_may_be_wrapped_over_lines() -> None:
    text = b64(PNG)
    wrapped = "\n".join(text[i : i + 76] for i in range(0, len(text), 76))
    assert facts(Media(kind="image", data=wrapped)) == Facts("png", 800, 600)


def test_facts_of_an_existing_local_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.wav"
    path.write_bytes(wav(3.0))
    assert facts(Media(kind="audio", file_path=str(path))) == Facts("wav", duration=3.0)


def test_what_the_part_declares_wins_over_its_bytes() -> None:
    media = Media(kind="image", data=b64(PNG), mime_type="image/webp", width=10)
    assert facts(media) == Facts("webp", 10, 600)


def test_the_mime_type_wins_over_the_declared_format() -> None:
    media = Media(kind="audio", mime_type="audio/mpeg", format="WAV", duration_seconds=1)
    assert facts(media).format == "mp3"
    assert facts(media.model_copy(update={"mime_type": None})).format == "wav"


def test_bytes_are_not_read_when_the_part_declares_what_is_needed() -> None:
    media = Media(kind="image", file_path="/nonexistent/a.png", width=5, height=6)
    assert facts(media, needs=("width", "height")) == Facts(None, 5, 6)
    assert facts(media, needs=("format",)).unread == "its file '/nonexistent/a.png' does not exist"


@pytest.mark.parametrize(
    ("media", "why"),
    [
        (
            Media(kind="image", url="https://example.com/a.png"),
            "cannot read media from a URL offline",
        ),
        (Media(kind="image"), "the part has no data, file_path or url"),
        (
            Media(kind="video", file_path="missing-video.mp4"),
            "its file 'missing-video.mp4' does not exist",
        ),
        (
            Media(kind="image", data="not base64!"),
            "its base64 data cannot be decoded (Only base64 data is allowed)",
        ),
    ],
    ids=["url", "nothing", "no such file", "bad base64"],
)
def test_why_the_bytes_were_not_read(media: Media, why: str) -> None:
    assert facts(media) == Facts(unread=why)


def test_a_directory_is_not_a_media_file(tmp_path: Path) -> None:
    assert facts(Media(kind="image", file_path=str(tmp_path))).unread == (
        f"its file {str(tmp_path)!r} does not exist"
    )


def test_a_file_past_the_limit_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import chatassert._media as media

    path = tmp_path / "long.wav"
    path.write_bytes(wav(1.0))  # 16044 bytes
    monkeypatch.setattr(media, "FILE_LIMIT", 16000)
    assert facts(Media(kind="audio", file_path=str(path))).unread == (
        f"its file {str(path)!r} is larger than 0 MiB, not read"
    )
    monkeypatch.setattr(media, "FILE_LIMIT", 16044)
    assert facts(Media(kind="audio", file_path=str(path))).duration == 1.0
