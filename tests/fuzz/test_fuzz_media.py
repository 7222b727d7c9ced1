"""Fuzzing the media header readers: any bytes, and mutated files of every format read.

The contract under test: `probe` of any bytes returns a `Probe` and never raises; each fact
it gives is in range (a size a whole number of pixels from 1 to `MAX_SIDE`, a duration a
finite number of seconds from 0 to `MAX_SECONDS`) and each fact it rejects is None, with a
reason; its work is bounded by the input's size (at most three steps a byte, every box or
element being at least two bytes and the deepest reader six levels deep, plus the MP3 frame
search); and a media check over a part holding those bytes gives a result that is strict
JSON, never a pass on a fact that was not read.

The inputs are the files of real encoders (tests/promptkit/data/media), mutated: bytes
flipped, numbers overwritten with 0, all ones, NaN or infinity at any offset, cut short,
spliced, a region repeated thousands of times (the shape of a quadratic box or element
walk); and bytes of any value after each format's magic number.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import struct
from pathlib import Path

from fuzzing import fuzz_target
from hypothesis import given, strategies as st

import chatassert._media as media_module
from chatassert import Media, Status, Turn
from chatassert._media import MAX_SECONDS, MAX_SIDE, Probe, _Work, probe
from chatassert.promptkit import AudioDuration, ImageDimensions, VideoDuration, VideoResolution

DATA = Path(__file__).resolve().parents[1] / "promptkit" / "data" / "media"

MAGIC = [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR",
    b"\xff\xd8",
    b"GIF89a",
    b"RIFF\x00\x00\x00\x00WEBPVP8 ",
    b"RIFF\x00\x00\x00\x00WEBPVP8L",
    b"RIFF\x00\x00\x00\x00WEBPVP8X",
    b"RIFF\x00\x00\x00\x00WAVEfmt ",
    b"fLaC",
    b"OggS",
    b"\x00\x00\x00\x18ftypisom",
    b"\x00\x00\x00\x01ftypqt  ",
    b"\x1a\x45\xdf\xa3",
    b"ID3\x04\x00\x00",
    b"\xff\xfb\x90\x00",
]

SPECIAL = [
    b"\x00" * 8,
    b"\xff" * 8,
    struct.pack(">d", math.nan),
    struct.pack(">d", -math.inf),
    struct.pack(">d", -5.0),
    struct.pack(">f", math.nan),
    b"\x00\x00\x00\x01",  # a 64-bit box size follows
    b"\x00\x00\x00\x08",
    b"\x01\xff\xff\xff\xff\xff\xff\xff",  # an EBML size of unknown length
    b"\x80",
]


@functools.cache
def seeds() -> list[bytes]:
    return [p.read_bytes() for p in sorted(DATA.iterdir()) if p.suffix != ".md"]


@functools.cache
def mutations() -> st.SearchStrategy[tuple[str, int, int, bytes]]:
    """One change: (what, where as a share of the length in 1/1000s, how many, bytes)."""
    return st.tuples(
        st.sampled_from(["flip", "overwrite", "cut", "splice", "insert", "repeat"]),
        st.integers(0, 1000),
        st.integers(1, 4000),
        st.one_of(st.sampled_from(SPECIAL), st.binary(min_size=1, max_size=16)),
    )


def mutate(data: bytes, change: tuple[str, int, int, bytes]) -> bytes:
    what, share, count, raw = change
    at = len(data) * share // 1000
    if what == "flip":
        return (
            data[:at]
            + bytes([(data[at] if at < len(data) else 0) ^ (count & 0xFF)])
            + data[at + 1 :]
        )
    if what == "overwrite":
        return data[:at] + raw + data[at + len(raw) :]
    if what == "cut":
        return data[:at]
    if what == "splice":  # a part of the file again, somewhere else
        start = count % max(len(data), 1)
        return data[:at] + data[start : start + 64] + data[at:]
    if what == "insert":
        return data[:at] + raw + data[at:]
    region = data[at : at + 1 + count % 48]  # a short region, thousands of times
    return data[:at] + region * min(count, 65_536 // max(len(region), 1)) + data[at:]


@functools.cache
def media_bytes() -> st.SearchStrategy[bytes]:
    mutated = st.builds(
        functools.reduce,
        st.just(mutate),
        st.lists(mutations(), min_size=1, max_size=4),
        st.sampled_from(seeds()),
    )
    after_magic = st.builds(
        lambda magic, rest: magic + rest, st.sampled_from(MAGIC), st.binary(max_size=512)
    )
    return st.one_of(mutated, after_magic, st.binary(max_size=256))


CHECKS = {
    "image": (ImageDimensions(min_width=1, max_height=100_000), ("width", "height")),
    "video": (VideoDuration(min_seconds=0.5, max_seconds=3600), ("duration",)),
    "audio": (AudioDuration(max_seconds=3600), ("duration",)),
}
RESOLUTION = VideoResolution(presets=["720p"], max_width=4000)


def in_range(found: Probe) -> None:
    for name in ("width", "height"):
        side = getattr(found, name)
        assert side is None or (type(side) is int and 1 <= side <= MAX_SIDE), (name, side)
    duration = found.duration
    assert duration is None or (
        type(duration) is float and math.isfinite(duration) and 0 <= duration <= MAX_SECONDS
    ), duration
    assert found.format is None or isinstance(found.format, str)
    for name, why in found.rejected:
        assert name in ("width", "height", "duration")
        assert getattr(found, name) is None
        assert isinstance(why, str)
        assert why


@given(data=media_bytes(), kind=st.sampled_from(["image", "video", "audio"]))
@fuzz_target("media.headers")
def test_media_headers_give_facts_in_range_in_linear_work(data: bytes, kind: str) -> None:
    found = probe(data)
    in_range(found)
    work = _Work(math.inf)
    with contextlib.suppress(struct.error, IndexError, ValueError, OverflowError):
        media_module._probe(data, work)  # errors `probe` turns into "cut short or corrupt"
    assert work.steps <= 3 * len(data) + 2 * media_module._MP3_SEARCH + 16, (work.steps, len(data))

    part = Media(kind=kind, data=media_module.base64.b64encode(data).decode("ascii"))
    check, needs = CHECKS[kind]
    result = check.check(Turn(input="Make it", text="Here.", media=[part]))
    json.dumps(result.to_dict(), allow_nan=False)
    if any(getattr(found, n) is None for n in needs):
        assert result.status is Status.ERROR, result.reason
    else:
        assert result.status in (Status.PASSED, Status.FAILED), result.reason
    if kind == "video":
        other = RESOLUTION.check(Turn(input="Make it", text="Here.", media=[part]))
        json.dumps(other.to_dict(), allow_nan=False)
        if found.width is None or found.height is None:
            assert other.status is Status.ERROR, other.reason
