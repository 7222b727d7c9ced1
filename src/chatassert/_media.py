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

Docs: docs/promptkit.md ("Media checks"). Tests: tests/promptkit/test_media_headers.py.
"""

from __future__ import annotations

import base64
import binascii
import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatassert._models import Media

__all__ = ["FILE_LIMIT", "READABLE", "Facts", "Probe", "facts", "format_of_mime", "probe"]

READABLE = "PNG, JPEG, GIF, WebP, WAV, MP3, FLAC, Ogg, MP4/QuickTime and WebM/Matroska"
"""The formats whose headers chatassert reads, for messages."""


@dataclass(frozen=True, slots=True)
class Probe:
    """What the headers of some media bytes say (None: not said, or not read)."""

    format: str | None = None
    width: int | None = None
    height: int | None = None
    duration: float | None = None


_NOTHING = Probe()


def probe(data: bytes) -> Probe:
    """Read the format, dimensions and duration from the headers of media bytes.

    Unrecognised or truncated bytes give what could be read (often nothing); never raises.

    Example:
        >>> import struct, zlib
        >>> ihdr = struct.pack(">IIBBBBB", 640, 480, 8, 2, 0, 0, 0)
        >>> png = (b"\\x89PNG\\r\\n\\x1a\\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
        ...        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))
        >>> probe(png)
        Probe(format='png', width=640, height=480, duration=None)
    """
    try:
        return _probe(data)
    except (struct.error, IndexError, ValueError, OverflowError, ZeroDivisionError):
        return _NOTHING


def _probe(data: bytes) -> Probe:
    head = data[:16]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data)
    if head.startswith(b"\xff\xd8"):
        return _jpeg(data)
    if head[:6] in (b"GIF87a", b"GIF89a"):
        width, height = struct.unpack_from("<HH", data, 6)
        return Probe("gif", width, height)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return _webp(data)
    if head[:4] in (b"RIFF", b"RF64") and head[8:12] == b"WAVE":
        return Probe("wav", duration=_wav_duration(data))
    if head.startswith(b"fLaC"):
        return Probe("flac", duration=_flac_duration(data))
    if head.startswith(b"OggS"):
        return Probe("ogg", duration=_ogg_duration(data))
    if head[4:8] == b"ftyp":
        return _mp4(data)
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return _matroska(data)
    if head.startswith(b"ID3") or _mp3_start(data, 0) is not None:
        return _mp3(data)
    return _NOTHING


# -- images ------------------------------------------------------------------------------------


def _png(data: bytes) -> Probe:
    if data[12:16] != b"IHDR":
        return Probe("png")
    width, height = struct.unpack_from(">II", data, 16)
    return Probe("png", width, height)


# the start-of-frame markers (C0-CF) that hold the frame size; C4, C8 and CC are not frames
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> Probe:
    at = 2
    while at + 4 <= len(data):
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
        if marker in _SOF:
            height, width = struct.unpack_from(">HH", data, at + 5)
            return Probe("jpeg", width, height)
        at += 2 + length
    return Probe("jpeg")


def _webp(data: bytes) -> Probe:
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # lossy: a key frame's start code
        width, height = struct.unpack_from("<HH", data, 26)
        return Probe("webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and data[20] == 0x2F:  # lossless: 14 bits each, minus one
        (bits,) = struct.unpack_from("<I", data, 21)
        return Probe("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:  # extended: the canvas, 24 bits each, minus one
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return Probe("webp", width, height)
    return Probe("webp")


# -- audio -------------------------------------------------------------------------------------


def _wav_duration(data: bytes) -> float | None:
    at, byte_rate, size = 12, None, None
    while at + 8 <= len(data):
        chunk = data[at : at + 4]
        (length,) = struct.unpack_from("<I", data, at + 4)
        if chunk == b"fmt ":
            (byte_rate,) = struct.unpack_from("<I", data, at + 16)
        elif chunk == b"data":
            # a streamed file leaves the size unset (0 or 0xFFFFFFFF): the bytes there count
            size = length if 0 < length <= len(data) - at - 8 else len(data) - at - 8
            break
        at += 8 + length + (length & 1)  # chunks are padded to an even size
    if not byte_rate or size is None:
        return None
    return float(size) / float(byte_rate)


def _flac_duration(data: bytes) -> float | None:
    if data[4] & 0x7F != 0:  # the first block must be STREAMINFO
        return None
    (bits,) = struct.unpack_from(">Q", data, 18)
    rate, samples = bits >> 44, bits & 0xFFFFFFFFF
    return samples / rate if rate and samples else None


def _ogg_duration(data: bytes) -> float | None:
    packet = data[27 + data[26] :]  # after the first page's header and segment table
    if packet.startswith(b"OpusHead"):
        (pre_skip,) = struct.unpack_from("<H", packet, 10)
        rate, skip = 48000, pre_skip  # Opus granules count 48 kHz samples
    elif packet.startswith(b"\x01vorbis"):
        (rate,) = struct.unpack_from("<I", packet, 12)
        skip = 0
    else:
        return None
    serial = data[14:18]
    last = len(data)
    while (last := data.rfind(b"OggS", 0, last)) >= 0:
        if data[last + 14 : last + 18] == serial:
            (granule,) = struct.unpack_from("<q", data, last + 6)
            if granule >= 0:
                return max(granule - skip, 0) / rate if rate else None
    return None


_MP3_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}
_MP3_KBPS = {
    (1, 3): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (1, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (1, 1): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (2, 3): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (2, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (2, 1): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}


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


def _mp3_start(data: bytes, at: int) -> int | None:
    """Where the first MPEG audio frame is, from `at` on: a frame header followed by another
    one (or the end of the data) where its length says; some files pad before the first."""
    for start in range(at, min(at + 4096, len(data) - 3)):
        frame = _mp3_frame(data, start)
        if frame is None:
            continue
        length = frame.length(bool(data[start + 2] & 2))
        after = start + length if length is not None else None
        if after is None or after >= len(data) or _mp3_frame(data, after) is not None:
            return start
    return None


def _mp3(data: bytes) -> Probe:
    at = 0
    if data.startswith(b"ID3"):  # an ID3v2 tag: its size is 4 bytes of 7 bits
        size = sum((b & 0x7F) << (7 * (3 - i)) for i, b in enumerate(data[6:10]))
        at = 10 + size + (10 if data[5] & 0x10 else 0)
    start = _mp3_start(data, at)
    frame = None if start is None else _mp3_frame(data, start)
    if start is None or frame is None:
        return Probe("mp3") if data.startswith(b"ID3") else _NOTHING
    return Probe("mp3", duration=_mp3_duration(data, start, frame))


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


def _boxes(data: bytes, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """The ISO BMFF boxes between `start` and `end`: `(type, body start, body end)`."""
    out = []
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, at)
        header = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, at + 8)
            header = 16
        elif size == 0:
            size = end - at
        if size < header:
            break
        out.append((kind, at + header, min(at + size, end)))
        at += size
    return out


def _mp4(data: bytes) -> Probe:
    top = _boxes(data, 0, len(data))
    brand = next((data[s : s + 4] for k, s, _ in top if k == b"ftyp"), b"")
    name = "quicktime" if brand == b"qt  " else "mp4"
    moov = next(((s, e) for k, s, e in top if k == b"moov"), None)
    if moov is None:
        return Probe(name)
    duration = width = height = None
    for kind, start, end in _boxes(data, *moov):
        if kind == b"mvhd":
            duration = _mvhd_duration(data, start)
        elif kind == b"trak" and width is None:
            width, height = _video_track_size(data, start, end)
        elif kind == b"mvex" and not duration:  # a fragmented file: the whole duration
            duration = _mehd_duration(data, start, end, moov)
    return Probe(name, width, height, duration or None)


def _mvhd_duration(data: bytes, at: int) -> float | None:
    if data[at] == 1:
        scale, length = struct.unpack_from(">IQ", data, at + 20)
        unknown = 0xFFFFFFFFFFFFFFFF
    else:
        scale, length = struct.unpack_from(">II", data, at + 12)
        unknown = 0xFFFFFFFF
    if not scale or length == unknown:
        return None
    return float(length) / float(scale)


def _mehd_duration(data: bytes, start: int, end: int, moov: tuple[int, int]) -> float | None:
    for kind, at, _ in _boxes(data, start, end):
        if kind == b"mehd":
            fmt = ">Q" if data[at] == 1 else ">I"
            (length,) = struct.unpack_from(fmt, data, at + 4)
            scale = next(
                (
                    struct.unpack_from(">I", data, s + (20 if data[s] == 1 else 12))[0]
                    for k, s, _ in _boxes(data, *moov)
                    if k == b"mvhd"
                ),
                0,
            )
            return length / scale if scale else None
    return None


def _video_track_size(data: bytes, start: int, end: int) -> tuple[int | None, int | None]:
    boxes = _boxes(data, start, end)
    handler = None
    for kind, s, e in boxes:
        if kind == b"mdia":
            handler = next(
                (data[h + 8 : h + 12] for k, h, _ in _boxes(data, s, e) if k == b"hdlr"), None
            )
    if handler != b"vide":
        return None, None
    for kind, s, _ in boxes:
        if kind == b"tkhd":
            at = s + (88 if data[s] == 1 else 76)  # past the times, ids, layer, volume, matrix
            width, height = struct.unpack_from(">II", data, at)
            return width >> 16, height >> 16  # 16.16 fixed point
    return None, None


def _ebml(data: bytes, at: int) -> tuple[int, int]:
    """An EBML variable-length number at `at`: `(value with its length marker, its length)`."""
    first = data[at]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    if length > 8:
        raise ValueError("not an EBML number")
    return int.from_bytes(data[at : at + length], "big"), length


def _elements(data: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """The Matroska elements between `start` and `end`: `(id, body start, body end)`."""
    out = []
    at = start
    while at < end:
        ident, id_length = _ebml(data, at)
        raw, size_length = _ebml(data, at + id_length)
        size = raw & ((1 << (7 * size_length)) - 1)  # without its length marker
        body = at + id_length + size_length
        if size == (1 << (7 * size_length)) - 1:  # unknown size: to the end
            size = end - body
        out.append((ident, body, body + size))  # may reach past `end` in a file cut short
        at = body + size
    return out


def _leaf(data: bytes, start: int, end: int) -> bytes | None:
    """The whole body of a Matroska element, or None when the data ends inside it."""
    return data[start:end] if end <= len(data) else None


_SEGMENT, _INFO, _TRACKS, _TRACK, _VIDEO = 0x18538067, 0x1549A966, 0x1654AE6B, 0xAE, 0xE0


def _matroska(data: bytes) -> Probe:
    elements = _elements(data, 0, len(data))
    header = next(((s, e) for i, s, e in elements if i == 0x1A45DFA3), None)
    name = "x-matroska"
    if header is not None:
        inside = _elements(data, header[0], min(header[1], len(data)))
        doc = next((_leaf(data, s, e) for i, s, e in inside if i == 0x4282), None)
        name = "webm" if doc == b"webm" else name
    segment = next(((s, min(e, len(data))) for i, s, e in elements if i == _SEGMENT), None)
    if segment is None:
        return Probe(name)
    duration = width = height = None
    for ident, start, end in _elements(data, *segment):
        end = min(end, len(data))
        if ident == _INFO:
            duration = _matroska_duration(data, start, end)
        elif ident == _TRACKS and width is None:
            width, height = _matroska_size(data, start, end)
    return Probe(name, width, height, duration)


def _matroska_duration(data: bytes, start: int, end: int) -> float | None:
    scale, ticks = 1_000_000, None  # nanoseconds per tick, by default a millisecond
    for ident, s, e in _elements(data, start, end):
        body = _leaf(data, s, e)
        if body is None:
            break
        if ident == 0x2AD7B1:
            scale = int.from_bytes(body, "big")
        elif ident == 0x4489:
            ticks = struct.unpack(">f" if len(body) == 4 else ">d", body)[0]
    return float(ticks) * scale / 1e9 if ticks else None


def _matroska_size(data: bytes, start: int, end: int) -> tuple[int | None, int | None]:
    for ident, s, e in _elements(data, start, end):
        if ident != _TRACK:
            continue
        for inner, vs, ve in _elements(data, s, min(e, len(data))):
            if inner == _VIDEO:
                size = {
                    i: int.from_bytes(body, "big")
                    for i, a, b in _elements(data, vs, min(ve, len(data)))
                    if (body := _leaf(data, a, b)) is not None
                }
                if 0xB0 in size and 0xBA in size:
                    return size[0xB0], size[0xBA]
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
    """

    format: str | None = None
    width: int | None = None
    height: int | None = None
    duration: float | None = None
    unread: str | None = None


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
    one the bytes show. The bytes are read only when something in `needs` is not declared.

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
    )
