"""Small media files built byte by byte from their format definitions, for the media tests.

Each builder returns the bytes of a file whose header says the given size or duration: PNG
(a whole valid image), GIF, JPEG, WebP, WAV (written by the standard `wave` module), MP3
frames, FLAC, Ogg, MP4 and WebM. `b64` turns bytes into the base64 text logs carry.
"""

from __future__ import annotations

import base64
import io
import struct
import wave
import zlib


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# -- images ------------------------------------------------------------------------------------


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width: int, height: int) -> bytes:
    """A whole, valid RGB PNG of that size (black)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x00" * 3 * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", zlib.compress(rows))
        + _png_chunk(b"IEND", b"")
    )


def gif(width: int, height: int) -> bytes:
    """A GIF89a with one 1x1 frame on a canvas of that size."""
    screen = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00" * 6
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return screen + frame + b"\x3b"


def _segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def jpeg(width: int, height: int, *, progressive: bool = False) -> bytes:
    """A JPEG header: JFIF and EXIF segments, a quantisation table, then the frame header."""
    app0 = _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    app1 = _segment(0xE1, b"Exif\x00\x00" + b"\x00" * 40)
    dqt = _segment(0xDB, b"\x00" + bytes(range(64)))
    dht = _segment(0xC4, b"\x00" + b"\x00" * 16)  # a Huffman table: C4 is not a frame
    sof = _segment(
        0xC2 if progressive else 0xC0,
        struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01",
    )
    return b"\xff\xd8" + app0 + app1 + b"\xff" + dqt + dht + sof + b"\xff\xda\x00\x02\xff\xd9"


def _riff(kind: bytes, chunks: bytes) -> bytes:
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + kind + chunks


def webp_lossy(width: int, height: int) -> bytes:
    frame = b"\x30\x01\x00\x9d\x01\x2a" + struct.pack("<HH", width, height) + b"\x00" * 8
    return _riff(b"WEBP", b"VP8 " + struct.pack("<I", len(frame)) + frame)


def webp_lossless(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14) | (1 << 28)  # alpha used, version 0
    body = b"\x2f" + struct.pack("<I", bits) + b"\x00" * 5
    return _riff(b"WEBP", b"VP8L" + struct.pack("<I", len(body)) + body)


def webp_extended(width: int, height: int) -> bytes:
    body = (
        b"\x10\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    )
    return _riff(b"WEBP", b"VP8X" + struct.pack("<I", len(body)) + body)


# -- audio -------------------------------------------------------------------------------------


def wav(seconds: float, rate: int = 8000, channels: int = 1, width: int = 2) -> bytes:
    """A PCM WAV of that duration (silence), written by the standard `wave` module."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(b"\x00" * int(seconds * rate) * channels * width)
    return out.getvalue()


def wav_with_list_chunk(seconds: float, rate: int = 8000) -> bytes:
    """A WAV with an odd-sized `LIST` chunk between `fmt ` and `data` (padded to even)."""
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    info = b"INFOISFT\x03\x00\x00\x00ab\x00"  # 15 bytes: one pad byte follows
    data = b"\x00" * int(seconds * rate) * 2
    chunks = (
        b"fmt " + struct.pack("<I", len(fmt)) + fmt
        + b"LIST" + struct.pack("<I", len(info)) + info + b"\x00"
        + b"data" + struct.pack("<I", len(data)) + data
    )  # fmt: skip
    return _riff(b"WAVE", chunks)


# MPEG-1 layer III, 128 kbit/s, 44.1 kHz, stereo: 417 bytes a frame without padding
MP3_HEADER = b"\xff\xfb\x90\x00"
MP3_FRAME = 417
MP3_SAMPLES = 1152


def mp3(frames: int, *, id3: bool = True, xing: bool = False) -> bytes:
    """MPEG audio frames (silence), after an ID3v2 tag; with a Xing header frame if asked."""
    tag = b""
    if id3:
        body = b"TIT2\x00\x00\x00\x05\x00\x00test"
        size = len(body)
        synchsafe = bytes((size >> s) & 0x7F for s in (21, 14, 7, 0))
        tag = b"ID3\x04\x00\x00" + synchsafe + body
    frame = MP3_HEADER + b"\x00" * (MP3_FRAME - 4)
    head = b""
    if xing:  # stereo MPEG-1: 32 bytes of side information, then the Xing header
        info = b"Xing" + struct.pack(">II", 1, frames)
        head = MP3_HEADER + b"\x00" * 32 + info + b"\x00" * (MP3_FRAME - 4 - 32 - len(info))
    return tag + head + frame * frames


def flac(seconds: float, rate: int = 16000) -> bytes:
    samples = int(seconds * rate)
    bits = (rate << 44) | (0 << 41) | (15 << 36) | samples  # mono, 16 bits
    info = struct.pack(">HH", 4096, 4096) + b"\x00" * 6 + struct.pack(">Q", bits) + b"\x00" * 16
    return b"fLaC" + b"\x80" + len(info).to_bytes(3, "big") + info


def _ogg_page(serial: int, sequence: int, granule: int, packet: bytes, flags: int) -> bytes:
    lacing = [255] * (len(packet) // 255) + [len(packet) % 255]
    header = (
        b"OggS\x00" + bytes([flags]) + struct.pack("<qIII", granule, serial, sequence, 0)
        + bytes([len(lacing)]) + bytes(lacing)
    )  # fmt: skip
    return header + packet


def ogg_opus(seconds: float, pre_skip: int = 312) -> bytes:
    head = b"OpusHead\x01\x01" + struct.pack("<HIhB", pre_skip, 48000, 0, 0)
    tags = b"OpusTags" + struct.pack("<I", 4) + b"test" + struct.pack("<I", 0)
    last = int(seconds * 48000) + pre_skip
    return (
        _ogg_page(7, 0, 0, head, 0x02)
        + _ogg_page(7, 1, 0, tags, 0)
        + _ogg_page(7, 2, last // 2, b"\x00" * 40, 0)
        + _ogg_page(7, 3, last, b"\x00" * 40, 0x04)
    )


def ogg_vorbis(seconds: float, rate: int = 22050) -> bytes:
    ident = b"\x01vorbis" + struct.pack("<IBIiii", 0, 1, rate, 0, 64000, 0) + b"\xb8\x01"
    return _ogg_page(9, 0, 0, ident, 0x02) + _ogg_page(9, 1, int(seconds * rate), b"\x00" * 30, 4)


# -- video -------------------------------------------------------------------------------------


def _box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def _mvhd(scale: int, length: int, version: int = 0) -> bytes:
    if version == 1:
        times = struct.pack(">QQIQ", 0, 0, scale, length)
    else:
        times = struct.pack(">IIII", 0, 0, scale, length)
    rest = struct.pack(">IH", 0x00010000, 0x0100) + b"\x00" * 10 + b"\x00" * 36 + b"\x00" * 28
    return _box(b"mvhd", bytes([version, 0, 0, 0]) + times + rest)


def _trak(handler: bytes, width: int, height: int, version: int = 0) -> bytes:
    if version == 1:
        times = struct.pack(">QQIIQ", 0, 0, 1, 0, 0)
    else:
        times = struct.pack(">IIIII", 0, 0, 1, 0, 0)
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    tkhd = bytes([version, 0, 0, 3]) + times + b"\x00" * 8 + b"\x00" * 8 + matrix
    tkhd += struct.pack(">II", width << 16, height << 16)
    hdlr = _box(b"hdlr", b"\x00" * 4 + b"\x00" * 4 + handler + b"\x00" * 12 + b"track\x00")
    return _box(b"trak", _box(b"tkhd", tkhd) + _box(b"mdia", _box(b"mdhd", b"\x00" * 24) + hdlr))


def mp4(
    width: int,
    height: int,
    seconds: float,
    *,
    scale: int = 1000,
    brand: bytes = b"isom",
    version: int = 0,
    audio_first: bool = True,
    moov_last: bool = False,
    length: int | None = None,
) -> bytes:
    """An MP4 whose movie header says the duration and whose video track header the size.

    An audio track (size 0x0) comes first unless `audio_first` is false; `moov_last` puts the
    movie box after the media data, as most encoders write it; `length` sets the movie
    header's duration in time-scale units (instead of `seconds` times `scale`).
    """
    ftyp = _box(b"ftyp", brand + struct.pack(">I", 512) + brand + b"mp41")
    tracks = (_trak(b"soun", 0, 0, version) if audio_first else b"") + _trak(
        b"vide", width, height, version
    )
    ticks = int(seconds * scale) if length is None else length
    moov = _box(b"moov", _mvhd(scale, ticks, version) + tracks)
    mdat = _box(b"mdat", b"\x00" * 64)
    return ftyp + (mdat + moov if moov_last else moov + mdat)


def _ebml_id(ident: int) -> bytes:
    return ident.to_bytes((ident.bit_length() + 7) // 8, "big")


def _element(ident: int, body: bytes) -> bytes:
    size = len(body)
    length = 1
    while size >= (1 << (7 * length)) - 1:
        length += 1
    return _ebml_id(ident) + ((1 << (7 * length)) | size).to_bytes(length, "big") + body


def webm(
    width: int,
    height: int,
    seconds: float,
    *,
    doctype: bytes = b"webm",
    duration: bytes | None = None,
    scale: bytes = (1_000_000).to_bytes(3, "big"),
    pixels: tuple[bytes, bytes] | None = None,
) -> bytes:
    """A WebM (Matroska) header: EBML with its DocType, then Info and Tracks in a Segment.

    `duration` (the Duration element's body, else `seconds` in milliseconds as a double),
    `scale` (TimestampScale's body) and `pixels` (PixelWidth's and PixelHeight's bodies, else
    `width` and `height` in 2 bytes) write those elements as given.
    """
    header = _element(0x1A45DFA3, _element(0x4286, b"\x01") + _element(0x4282, doctype))
    info = _element(
        0x1549A966,
        _element(0x2AD7B1, scale)
        + _element(0x4489, struct.pack(">d", seconds * 1000) if duration is None else duration),
    )
    wide, high = pixels or (width.to_bytes(2, "big"), height.to_bytes(2, "big"))
    audio = _element(0xAE, _element(0xD7, b"\x01") + _element(0x83, b"\x02"))
    video = _element(
        0xAE,
        _element(0xD7, b"\x02")
        + _element(0x83, b"\x01")
        + _element(
            0xE0,
            _element(0xB0, wide) + _element(0xBA, high),
        ),
    )
    tracks = _element(0x1654AE6B, audio + video)
    return header + _element(0x18538067, info + tracks)
