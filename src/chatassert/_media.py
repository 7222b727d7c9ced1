"""What a media part is: its bytes, and the format, size and duration their headers give.

Pure Python, headers only, nothing fetched. `probe(data)` recognises

| format | read |
|---|---|
| PNG, JPEG, GIF, WebP | width and height |
| WAV, MP3, FLAC, Ogg (Vorbis, Opus) | duration |
| MP4 / QuickTime (`ftyp`), WebM / Matroska | duration; width and height of the video track |

and `facts(media)` combines what a `Media` part declares (its MIME type, `format`, `width`,
`height`, `duration_seconds`: declared values win) with what its bytes say, reading them from
base64 `data` or an existing local `file_path`. A part that only has a `url` is never fetched:
what it does not declare stays unknown, with the reason why.

Bytes are not trusted. Every reader visits each box, element, chunk, page or segment of its
input at most once per level of nesting (linear in the input), counts what it visits, and
stops when it has used `HEADER_SECONDS` of CPU time, drawn from the check's time budget
(`chatassert._budget`). Every number a header gives is checked before a check sees it: a size
is a whole number of pixels from 1 to `MAX_SIDE`, a duration a finite number of seconds from
0 to `MAX_SECONDS`, and the rates and time scales it is computed from are above 0. A number
out of range is not a fact: `Probe.rejected` says why, and a check that needs it is an `error`
with that reason.

Docs: docs/promptkit.md ("Media checks"). Tests: tests/promptkit/test_media_headers.py,
tests/promptkit/test_media_bounds.py.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from time import process_time
from typing import TYPE_CHECKING

from chatassert._budget import run_limited
from chatassert._errors import RegexTimeoutError

if TYPE_CHECKING:
    from chatassert._models import Media

__all__ = [
    "FILE_LIMIT",
    "HEADER_SECONDS",
    "MAX_SECONDS",
    "MAX_SIDE",
    "READABLE",
    "Facts",
    "Probe",
    "facts",
    "format_of_mime",
    "probe",
]

READABLE = "PNG, JPEG, GIF, WebP, WAV, MP3, FLAC, Ogg, MP4/QuickTime and WebM/Matroska"
"""The formats whose headers chatassert reads, for messages."""

HEADER_SECONDS = 1.0
"""The CPU time reading the headers of one media part may take, in seconds.

Inside a check it is drawn from the check's time budget (`chatassert._budget.run_limited`),
which its regular expressions share. A header that takes longer is not read: the facts it
would give are rejected with the reason, and a check that needs them is an `error`."""

MAX_SIDE = 2**31 - 1
"""The largest width or height in pixels taken from a header (PNG's own limit, the largest of
the formats read); 0 or more is not a size."""

MAX_SECONDS = 366 * 24 * 3600
"""The longest duration taken from a header: 366 days, in seconds. A header that says more
(or a duration that is negative or not a finite number) is corrupt, not a long recording."""

Rejected = tuple[tuple[str, str], ...]
"""Facts a header gave that were not taken: `(name, why)` pairs, `name` one of `width`,
`height`, `duration`."""


@dataclass(frozen=True, slots=True)
class Probe:
    """What the headers of some media bytes say (None: not said, or not read).

    Attributes:
        format: The format the bytes are in (`png`, `mp4`, `webm`, ...).
        width: In pixels, from 1 to `MAX_SIDE`.
        height: In pixels, from 1 to `MAX_SIDE`.
        duration: In seconds, finite, from 0 to `MAX_SECONDS`.
        rejected: What the headers said that is not a fact (out of range, not a number, or
            not read in time): `(name, why)` pairs; that fact is None.
    """

    format: str | None = None
    width: int | None = None
    height: int | None = None
    duration: float | None = None
    rejected: Rejected = ()


_NOTHING = Probe()

_CLOCK_EVERY = 512
"""How many visits a reader makes between two reads of the CPU clock."""


class _Work:
    """What one header read has visited so far, and its time limit.

    Every box, element, chunk, page, segment or candidate position a reader looks at is one
    `step()`; every `_CLOCK_EVERY` steps the CPU time spent is compared with the limit, and
    `TimeoutError` stops the read. `format` is the format once the bytes have shown it, so
    that a read stopped half-way still says what the bytes are.
    """

    __slots__ = ("_next", "_seconds", "_start", "format", "steps")

    def __init__(self, seconds: float) -> None:
        self.steps = 0
        self.format: str | None = None
        self._seconds = seconds
        self._next = _CLOCK_EVERY
        self._start = process_time()

    def step(self) -> None:
        self.steps += 1
        if self.steps >= self._next:
            self._next += _CLOCK_EVERY
            if process_time() - self._start >= self._seconds:
                raise TimeoutError


def probe(data: bytes, *, seconds: float | None = None) -> Probe:
    """Read the format, dimensions and duration from the headers of media bytes.

    Unrecognised or truncated bytes give what could be read (often nothing); a number out of
    range is left out and listed in `rejected`, and so is everything not yet read when the
    read used up `seconds` of CPU time (default `HEADER_SECONDS`, drawn from the enclosing
    check's budget). Never raises.

    Example:
        >>> import struct, zlib
        >>> ihdr = struct.pack(">IIBBBBB", 640, 480, 8, 2, 0, 0, 0)
        >>> png = (b"\\x89PNG\\r\\n\\x1a\\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
        ...        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))
        >>> probe(png)
        Probe(format='png', width=640, height=480, duration=None, rejected=())
    """
    limit = HEADER_SECONDS if seconds is None else seconds
    work = _Work(limit)

    def run(within: float) -> Probe:
        work._seconds = within
        return _probe_safely(data, work)

    try:
        return run_limited(run, "media header", limit, len(data), "media header")
    except RegexTimeoutError:
        why = (
            f"reading its {work.format or 'media'} headers ({len(data)} bytes) took more than "
            f"{limit:g} s of CPU time, so they were not read"
        )
        return Probe(work.format, rejected=tuple((n, why) for n in ("width", "height", "duration")))


def _probe_safely(data: bytes, work: _Work) -> Probe:
    try:
        return _probe(data, work)
    except (struct.error, IndexError, ValueError, OverflowError, ZeroDivisionError):
        return Probe(work.format) if work.format else _NOTHING  # cut short or corrupt


def _probe(data: bytes, work: _Work) -> Probe:
    """The facts of `data`, each checked (see `_checked`); the readers' own errors escape."""
    head = data[:16]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data, work)
    if head.startswith(b"\xff\xd8"):
        return _jpeg(data, work)
    if head[:6] in (b"GIF87a", b"GIF89a"):
        work.format = "gif"
        width, height = struct.unpack_from("<HH", data, 6)
        return _checked("gif", width, height)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return _webp(data, work)
    if head[:4] in (b"RIFF", b"RF64") and head[8:12] == b"WAVE":
        return _wav(data, work)
    if head.startswith(b"fLaC"):
        return _flac(data, work)
    if head.startswith(b"OggS"):
        return _ogg(data, work)
    if head[4:8] == b"ftyp":
        return _mp4(data, work)
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return _matroska(data, work)
    if head.startswith(b"ID3") or _mp3_start(data, 0, work) is not None:
        return _mp3(data, work)
    return _NOTHING


# -- checking what was read ----------------------------------------------------------------------


def _shown(value: float) -> str:
    """A number for a message: never the thousands of digits of a huge integer."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"a number of {value.bit_length()} bits"
    return repr(value) if isinstance(value, float) else str(value)


def _checked(
    fmt: str,
    width: int | None = None,
    height: int | None = None,
    duration: float | None = None,
    rejected: Rejected = (),
) -> Probe:
    """The probe of what a reader found, every number checked: a size from 1 to `MAX_SIDE`
    pixels, a finite duration from 0 to `MAX_SECONDS`; the rest go to `rejected`."""
    out = list(rejected)
    sides = {"width": width, "height": height}
    for name, side in sides.items():
        if side is not None and not 1 <= side <= MAX_SIDE:
            out.append(
                (
                    name,
                    f"its {fmt} header gives the {name} {_shown(side)}, which is not a size "
                    f"(a whole number of pixels from 1 to {MAX_SIDE})",
                )
            )
            sides[name] = None
    if duration is not None and not (math.isfinite(duration) and 0 <= duration <= MAX_SECONDS):
        out.append(
            (
                "duration",
                f"its {fmt} header gives the duration {_shown(duration)} s, which is not a "
                f"duration (a finite number of seconds from 0 to {MAX_SECONDS}, 366 days)",
            )
        )
        duration = None
    return Probe(fmt, sides["width"], sides["height"], duration, tuple(out))


def _no_rate(fmt: str, what: str, value: int) -> Rejected:
    """The rejection of a duration whose rate or time scale is not above 0."""
    return (
        ("duration", f"its {fmt} header gives the {what} {_shown(value)}, which is not above 0"),
    )


# -- images ------------------------------------------------------------------------------------


def _png(data: bytes, work: _Work) -> Probe:
    work.format = "png"
    if data[12:16] != b"IHDR":
        return Probe("png")
    width, height = struct.unpack_from(">II", data, 16)
    return _checked("png", width, height)


# the start-of-frame markers (C0-CF) that hold the frame size; C4, C8 and CC are not frames
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes, work: _Work) -> Probe:
    work.format = "jpeg"
    at = 2
    while at + 4 <= len(data):  # every step moves on by at least one byte
        work.step()
        if data[at] != 0xFF:
            return Probe("jpeg")  # not a marker where one must be: corrupt
        marker = data[at + 1]
        if marker == 0xFF:  # a fill byte
            at += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header before it
            return Probe("jpeg")
        (length,) = struct.unpack_from(">H", data, at + 2)
        if marker in _SOF:  # a height of 0 (defined later, by a DNL segment) is not read
            height, width = struct.unpack_from(">HH", data, at + 5)
            return _checked("jpeg", width, height)
        at += 2 + length
    return Probe("jpeg")


def _webp(data: bytes, work: _Work) -> Probe:
    work.format = "webp"
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # lossy: a key frame's start code
        width, height = struct.unpack_from("<HH", data, 26)
        return _checked("webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and data[20] == 0x2F:  # lossless: 14 bits each, minus one
        (bits,) = struct.unpack_from("<I", data, 21)
        return _checked("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:  # extended: the canvas, 24 bits each, minus one
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return _checked("webp", width, height)
    return Probe("webp")


# -- audio -------------------------------------------------------------------------------------


def _wav(data: bytes, work: _Work) -> Probe:
    work.format = "wav"
    at, byte_rate, size = 12, None, None
    while at + 8 <= len(data):  # every chunk is at least 8 bytes
        work.step()
        chunk = data[at : at + 4]
        (length,) = struct.unpack_from("<I", data, at + 4)
        if chunk == b"fmt " and byte_rate is None:
            (byte_rate,) = struct.unpack_from("<I", data, at + 16)
        elif chunk == b"data":
            # a streamed file leaves the size unset (0 or 0xFFFFFFFF): the bytes there count
            size = length if 0 < length <= len(data) - at - 8 else len(data) - at - 8
            break
        at += 8 + length + (length & 1)  # chunks are padded to an even size
    if byte_rate is None or size is None:
        return Probe("wav")
    if byte_rate == 0:
        return _checked("wav", rejected=_no_rate("wav", "byte rate", 0))
    return _checked("wav", duration=size / byte_rate)


def _flac(data: bytes, work: _Work) -> Probe:
    work.format = "flac"
    if data[4] & 0x7F != 0:  # the first block must be STREAMINFO
        return Probe("flac")
    (bits,) = struct.unpack_from(">Q", data, 18)
    rate, samples = bits >> 44, bits & 0xFFFFFFFFF
    if not samples:  # 0: the encoder did not know the number of samples
        return Probe("flac")
    if not rate:
        return _checked("flac", rejected=_no_rate("flac", "sample rate", 0))
    return _checked("flac", duration=samples / rate)


def _ogg(data: bytes, work: _Work) -> Probe:
    work.format = "ogg"
    at = 27 + data[26]  # after the first page's header and segment table
    if data.startswith(b"OpusHead", at):
        (pre_skip,) = struct.unpack_from("<H", data, at + 10)
        rate, skip = 48000, pre_skip  # Opus granules count 48 kHz samples
    elif data.startswith(b"\x01vorbis", at):
        (rate,) = struct.unpack_from("<I", data, at + 12)
        skip = 0
    else:
        return Probe("ogg")
    serial = data[14:18]
    last = len(data)
    while (last := data.rfind(b"OggS", 0, last)) >= 0:  # the pages from the end, each once
        work.step()
        if data[last + 14 : last + 18] == serial:
            (granule,) = struct.unpack_from("<q", data, last + 6)
            if granule >= 0:  # -1: no packet ends on this page
                if not rate:
                    return _checked("ogg", rejected=_no_rate("ogg", "sample rate", 0))
                return _checked("ogg", duration=max(granule - skip, 0) / rate)
    return Probe("ogg")


_MP3_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}
_MP3_KBPS = {
    (1, 3): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (1, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (1, 1): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (2, 3): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (2, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (2, 1): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}

_MP3_SEARCH = 4096
"""How many bytes from its start (or the end of its ID3 tag) an MP3's first frame is sought."""


@dataclass(frozen=True, slots=True)
class _Frame:
    mpeg1: bool
    layer: int  # 3 = layer I, 2 = layer II, 1 = layer III (the header's own bits)
    kbps: int
    rate: int
    mono: bool

    @property
    def samples(self) -> int:
        if self.layer == 3:
            return 384
        return 1152 if self.mpeg1 or self.layer == 2 else 576

    def length(self, padded: bool) -> int | None:
        """The frame's length in bytes (None for the free format, which does not say)."""
        if not self.kbps:
            return None
        if self.layer == 3:
            return (12 * self.kbps * 1000 // self.rate + padded) * 4
        return self.samples // 8 * self.kbps * 1000 // self.rate + padded


def _mp3_frame(data: bytes, at: int) -> _Frame | None:
    """The MPEG audio frame header at `at`, if there is a valid one."""
    if at + 4 > len(data) or data[at] != 0xFF or data[at + 1] & 0xE0 != 0xE0:
        return None
    version, layer = (data[at + 1] >> 3) & 3, (data[at + 1] >> 1) & 3
    rate_index, kbps_index = (data[at + 2] >> 2) & 3, data[at + 2] >> 4
    if version == 1 or layer == 0 or rate_index == 3 or kbps_index == 15:
        return None
    mpeg1 = version == 3
    kbps = _MP3_KBPS[(1 if mpeg1 else 2, layer)][kbps_index]
    mono = data[at + 3] >> 6 == 3
    return _Frame(mpeg1, layer, kbps, _MP3_RATES[version][rate_index], mono)


def _mp3_start(data: bytes, at: int, work: _Work) -> int | None:
    """Where the first MPEG audio frame is, from `at` on: a frame header followed by another
    one (or the end of the data) where its length says; some files pad before the first."""
    for start in range(at, min(at + _MP3_SEARCH, len(data) - 3)):
        work.step()
        frame = _mp3_frame(data, start)
        if frame is None:
            continue
        length = frame.length(bool(data[start + 2] & 2))
        after = start + length if length is not None else None
        if after is None or after >= len(data) or _mp3_frame(data, after) is not None:
            return start
    return None


def _mp3(data: bytes, work: _Work) -> Probe:
    at = 0
    if data.startswith(b"ID3"):  # an ID3v2 tag: its size is 4 bytes of 7 bits
        work.format = "mp3"
        size = sum((b & 0x7F) << (7 * (3 - i)) for i, b in enumerate(data[6:10]))
        at = 10 + size + (10 if data[5] & 0x10 else 0)
    start = _mp3_start(data, at, work)
    frame = None if start is None else _mp3_frame(data, start)
    if start is None or frame is None:
        return Probe("mp3") if data.startswith(b"ID3") else _NOTHING
    work.format = "mp3"
    return _checked("mp3", duration=_mp3_duration(data, start, frame))


def _mp3_duration(data: bytes, at: int, frame: _Frame) -> float | None:
    side = (32 if not frame.mono else 17) if frame.mpeg1 else (17 if not frame.mono else 9)
    xing = at + 4 + side
    if data[xing : xing + 4] in (b"Xing", b"Info"):  # a VBR header: the frame count
        (flags,) = struct.unpack_from(">I", data, xing + 4)
        if flags & 1:
            (frames,) = struct.unpack_from(">I", data, xing + 8)
            return float(frames) * frame.samples / frame.rate
    if data[at + 36 : at + 40] == b"VBRI":  # Fraunhofer's VBR header
        (frames,) = struct.unpack_from(">I", data, at + 50)
        return float(frames) * frame.samples / frame.rate
    if not frame.kbps:  # free format: no bit rate to divide by
        return None
    end = len(data) - (128 if data[-128:-125] == b"TAG" else 0)  # an ID3v1 tag at the end
    return (end - at) * 8 / (frame.kbps * 1000)


# -- video containers --------------------------------------------------------------------------


def _boxes(data: bytes, start: int, end: int, work: _Work) -> Iterator[tuple[bytes, int, int]]:
    """The ISO BMFF boxes between `start` and `end`: `(type, body start, body end)`.

    Each box is at least 8 bytes and ends inside its parent, so the boxes of one parent are
    visited once each, in a number of steps at most its size over 8.
    """
    at = start
    while at + 8 <= end:
        work.step()
        size, kind = struct.unpack_from(">I4s", data, at)
        header = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, at + 8)
            header = 16
        elif size == 0:
            size = end - at
        if size < header:
            return
        yield kind, at + header, min(at + size, end)
        at += size


def _mp4(data: bytes, work: _Work) -> Probe:
    first = struct.unpack_from(">I", data, 0)[0]  # the first box is `ftyp`: its brand
    brand = data[16:20] if first == 1 else data[8:12]
    name = "quicktime" if brand == b"qt  " else "mp4"
    work.format = name
    moov = next(((s, e) for k, s, e in _boxes(data, 0, len(data), work) if k == b"moov"), None)
    if moov is None:
        return Probe(name)
    mvhd = mehd = None
    width = height = None
    for kind, start, end in _boxes(data, *moov, work):
        if kind == b"mvhd" and mvhd is None:
            mvhd = start
        elif kind == b"trak" and width is None:
            width, height = _video_track_size(data, start, end, work)
        elif kind == b"mvex" and mehd is None:  # a fragmented file: the whole duration
            mehd = next((s for k, s, _ in _boxes(data, start, end, work) if k == b"mehd"), None)
    duration, rejected = _mp4_duration(data, name, mvhd, mehd)
    return _checked(name, width, height, duration, rejected)


def _mp4_duration(
    data: bytes, name: str, mvhd: int | None, mehd: int | None
) -> tuple[float | None, Rejected]:
    """The movie header's duration, else the movie extends header's (fragmented files), both
    in the movie header's time scale; 0 or all ones means the header does not say."""
    if mvhd is None:
        return None, ()
    if data[mvhd] == 1:
        scale, length = struct.unpack_from(">IQ", data, mvhd + 20)
        unknown = 0xFFFFFFFFFFFFFFFF
    else:
        scale, length = struct.unpack_from(">II", data, mvhd + 12)
        unknown = 0xFFFFFFFF
    if length in (0, unknown) and mehd is not None:
        (length,) = struct.unpack_from(">Q" if data[mehd] == 1 else ">I", data, mehd + 4)
    if length in (0, unknown):
        return None, ()
    if not scale:
        return None, _no_rate(name, "time scale", scale)
    return length / scale, ()


def _video_track_size(
    data: bytes, start: int, end: int, work: _Work
) -> tuple[int | None, int | None]:
    """The size the track header gives, when the track's handler is video."""
    tkhd = handler = None
    for kind, s, e in _boxes(data, start, end, work):
        if kind == b"tkhd" and tkhd is None:
            tkhd = s
        elif kind == b"mdia" and handler is None:
            handler = next(
                (data[h + 8 : h + 12] for k, h, _ in _boxes(data, s, e, work) if k == b"hdlr"),
                b"",
            )
    if handler != b"vide" or tkhd is None:
        return None, None
    at = tkhd + (88 if data[tkhd] == 1 else 76)  # past the times, ids, layer, volume, matrix
    width, height = struct.unpack_from(">II", data, at)
    return width >> 16, height >> 16  # 16.16 fixed point


def _ebml(data: bytes, at: int) -> tuple[int, int]:
    """An EBML variable-length number at `at`: `(value with its length marker, its length)`."""
    first = data[at]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    if length > 8 or at + length > len(data):
        raise ValueError("not an EBML number")
    return int.from_bytes(data[at : at + length], "big"), length


def _elements(data: bytes, start: int, end: int, work: _Work) -> Iterator[tuple[int, int, int]]:
    """The Matroska elements between `start` and `end`: `(id, body start, body end)`.

    Each element is at least 2 bytes and ends at its parent's end at the latest (its body end
    may be past the data, in a file cut short), so the elements of one parent are visited once
    each. An element of unknown size reaches to its parent's end.
    """
    at = start
    stop = min(end, len(data))
    while at < stop:
        work.step()
        ident, id_length = _ebml(data, at)
        raw, size_length = _ebml(data, at + id_length)
        unknown = (1 << (7 * size_length)) - 1
        size = raw & unknown  # without its length marker
        body = at + id_length + size_length
        if size == unknown:
            size = end - body
        yield ident, body, min(body + size, end)
        at = body + size


def _leaf(data: bytes, start: int, end: int) -> bytes | None:
    """The whole body of a Matroska element, or None when the data ends inside it."""
    return data[start:end] if end <= len(data) else None


_NO_END = 2**63
"""The end of the top level of a Matroska file: none, so that an element whose size goes past
the data says the file was cut short (`_leaf`)."""

_EBML, _DOC_TYPE = 0x1A45DFA3, 0x4282
_SEGMENT, _INFO, _TRACKS, _TRACK, _VIDEO = 0x18538067, 0x1549A966, 0x1654AE6B, 0xAE, 0xE0
_TIMESTAMP_SCALE, _DURATION, _PIXEL_WIDTH, _PIXEL_HEIGHT = 0x2AD7B1, 0x4489, 0xB0, 0xBA


def _matroska(data: bytes, work: _Work) -> Probe:
    name = "x-matroska"
    for ident, start, end in _elements(data, 0, _NO_END, work):
        if ident == _EBML and work.format is None:
            doc = next(
                (
                    _leaf(data, s, e)
                    for i, s, e in _elements(data, start, end, work)
                    if i == _DOC_TYPE
                ),
                None,
            )
            name = "webm" if doc == b"webm" else name
            work.format = name
        elif ident == _SEGMENT:
            work.format = name
            return _segment(data, name, start, end, work)
    return Probe(name)


def _segment(data: bytes, name: str, start: int, end: int, work: _Work) -> Probe:
    duration: float | None = None
    rejected: Rejected = ()
    width = height = None
    info_read = False
    for ident, s, e in _elements(data, start, end, work):
        if ident == _INFO and not info_read:
            info_read = True
            duration, rejected = _matroska_duration(data, name, s, e, work)
        elif ident == _TRACKS and width is None:
            width, height = _matroska_size(data, s, e, work)
    return _checked(name, width, height, duration, rejected)


def _matroska_duration(
    data: bytes, name: str, start: int, end: int, work: _Work
) -> tuple[float | None, Rejected]:
    """The segment's Duration (a float of ticks) times its TimestampScale (nanoseconds per
    tick, a millisecond unless said), in seconds; a Duration of 0 does not say one."""
    scale, ticks = 1_000_000, None
    for ident, s, e in _elements(data, start, end, work):
        body = _leaf(data, s, e)
        if body is None:
            break
        if ident == _TIMESTAMP_SCALE:
            if len(body) > 8:
                why = f"its {name} header's TimestampScale is {len(body)} bytes, more than 8"
                return None, (("duration", why),)
            scale = int.from_bytes(body, "big")
        elif ident == _DURATION:
            if len(body) not in (0, 4, 8):
                why = f"its {name} header's Duration is {len(body)} bytes, not a float of 4 or 8"
                return None, (("duration", why),)
            ticks = struct.unpack(">f" if len(body) == 4 else ">d", body)[0] if body else 0.0
    if not ticks:
        return None, ()
    if not scale:
        return None, _no_rate(name, "timestamp scale", scale)
    return ticks * scale / 1e9, ()


def _matroska_size(data: bytes, start: int, end: int, work: _Work) -> tuple[int | None, int | None]:
    """The pixel size of the first video track that gives both its width and its height."""
    for ident, s, e in _elements(data, start, end, work):
        if ident != _TRACK:
            continue
        for inner, vs, ve in _elements(data, s, e, work):
            if inner != _VIDEO:
                continue
            size: dict[int, int] = {}
            for i, a, b in _elements(data, vs, ve, work):
                if i in (_PIXEL_WIDTH, _PIXEL_HEIGHT) and (body := _leaf(data, a, b)) is not None:
                    size.setdefault(i, int.from_bytes(body, "big"))
            if _PIXEL_WIDTH in size and _PIXEL_HEIGHT in size:
                return size[_PIXEL_WIDTH], size[_PIXEL_HEIGHT]
    return None, None


# -- a media part's facts ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Facts:
    """What is known about one media part, and why the rest is not.

    Attributes:
        format: Its format name (PromptKit's: the MIME subtype, `mp3` for `audio/mpeg`).
        width: In pixels, for an image or a video.
        height: In pixels, for an image or a video.
        duration: In seconds, for audio or video.
        unread: Why the bytes were not read, when they were not (no data, a URL, a file that
            does not exist, bad base64); None when they were read or were not needed.
        rejected: What the bytes said that is not a fact, for the facts the part does not
            declare: `(name, why)` pairs (see `Probe.rejected`).
    """

    format: str | None = None
    width: int | None = None
    height: int | None = None
    duration: float | None = None
    unread: str | None = None
    rejected: Rejected = ()


def format_of_mime(mime_type: str) -> str:
    """PromptKit's format name of a MIME type: its subtype, `mp3` for `audio/mpeg`.

    Parameters (`; codecs=...`) are left out; a type without one `/` is its own name.

    Example:
        >>> format_of_mime("image/jpeg"), format_of_mime("audio/mpeg"), format_of_mime("wav")
        ('jpeg', 'mp3', 'wav')
    """
    essence = mime_type.split(";", 1)[0].strip()
    kind, slash, subtype = essence.partition("/")
    if not slash or "/" in subtype:
        return essence
    if subtype == "mpeg" and kind == "audio":
        return "mp3"
    return subtype


FILE_LIMIT = 256 * 2**20
"""The largest local media file whose headers are read (256 MiB); a larger one is not read."""


@lru_cache(maxsize=8)  # the checks of one turn read the same part in turn
def _probe_base64(data: str) -> Probe | str:
    try:
        raw = base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        return f"its base64 data cannot be decoded ({exc})"
    return probe(raw)


def _read(media: Media) -> Probe | str:
    """Probe the bytes of `media`, or say why they cannot be read."""
    if media.data is not None:
        return _probe_base64(media.data)
    if media.file_path is not None:
        path = media.file_path
        if not os.path.isfile(path):
            return f"its file {path!r} does not exist"
        try:
            if os.path.getsize(path) > FILE_LIMIT:
                return f"its file {path!r} is larger than {FILE_LIMIT // 2**20} MiB, not read"
            with open(path, "rb") as stream:
                return probe(stream.read())
        except OSError as exc:
            return f"its file {path!r} cannot be read ({exc.strerror or exc})"
    if media.url is not None:
        return "cannot read media from a URL offline"
    return "the part has no data, file_path or url"


def facts(
    media: Media, *, needs: tuple[str, ...] = ("format", "width", "height", "duration")
) -> Facts:
    """What is known about `media`: what it declares, and what its bytes say about the rest.

    The format is the MIME type's (as PromptKit reads it), else the declared `format`, else the
    one the bytes show. The bytes are read only when something in `needs` is not declared;
    what they say out of range is left unknown, with the reason in `rejected`.

    Example:
        >>> from chatassert import Media
        >>> known = facts(Media(kind="image", mime_type="image/png", url="https://x/y.png"))
        >>> known.format, known.width, known.unread
        ('png', None, 'cannot read media from a URL offline')
    """
    declared = Facts(
        format_of_mime(media.mime_type)
        if media.mime_type
        else (media.format.lower() if media.format else None),
        media.width,
        media.height,
        media.duration_seconds,
    )
    if all(getattr(declared, name) is not None for name in needs):
        return declared
    read = _read(media)
    if isinstance(read, str):
        return Facts(declared.format, declared.width, declared.height, declared.duration, read)
    return Facts(
        declared.format if declared.format is not None else read.format,
        declared.width if declared.width is not None else read.width,
        declared.height if declared.height is not None else read.height,
        declared.duration if declared.duration is not None else read.duration,
        rejected=tuple((n, why) for n, why in read.rejected if getattr(declared, n) is None),
    )
