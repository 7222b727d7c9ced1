"""The judges' HTTP/2 client: asyncio's transports and HTTP/2's frames, nothing between.

httpx's HTTP/2 path (httpcore over anyio) takes locks and checkpoints for every frame and
offers a request to the connection pool several times over: about 2 ms of CPU per request,
more than the rest of a judged check together; the `h2` state machine alone, under the lean
client this module was first, still took about 0.2 ms of a request's 0.9 (events, frame
objects, state machines of its own for every stream, and its HPACK encoder's Huffman coding
in Python). So a connection here is an `asyncio.Protocol` that reads the frames of RFC 9113
itself, as a client that only sends requests needs them: a reply's HEADERS (and
CONTINUATION), DATA with flow control both ways, RST_STREAM, SETTINGS, PING, GOAWAY and
WINDOW_UPDATE; it decodes header blocks with `hpack` (h2's own decoder) and writes its own
(`_Encoder`: static-table entries and literals that leave the dynamic table alone). A request
costs its two frames, the reply's frames read from one buffer, and one wake-up when its
reply has ended. Whatever else a server sends is a protocol error that ends the connection
(a GOAWAY naming it) and fails every request on it, as `h2` would have it: a frame on a stream
whose reply has ended (a second answer) among them.

It is only ever HTTP/2: `_http._Pools` uses it where ALPN chose `h2` (an origin whose server
chooses HTTP/1.1 is remembered, and its requests go through httpx) or for `http://` with
prior knowledge, and never where a proxy is configured (httpx honours those). What the
transport promises holds here as well: the request's deadline is its caller's (a request cut
short resets its stream, leaving the connection to the others), the reply is read through the
caller's size-capped decoder as it arrives, and every way a connection can fail is an
`httpx.RequestError`, which the judge retries. A request the server provably did not process
(its stream refused, or past the last stream a `GOAWAY` kept) is sent again on another
connection, a few times at most, since no server saw it; the streams a `GOAWAY` kept are
read to their end.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import re
import ssl
import struct
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import hpack
import httpx
from hpack.table import HeaderTable

__all__ = ["H2Pool", "Http1Only", "Target", "target"]

IDLE_EXPIRY = 5.0
"""Seconds an idle connection is kept (httpx's default keep-alive expiry)."""

REPLAYS = 3
"""How many times a request no server processed is sent again on another connection."""

CONNECTION_WINDOW = 2**24
"""The receive window of a whole connection (httpcore's): replies never wait for it."""

_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_HEAD = struct.Struct(">BHBBL")  # a frame's header: length (24 bits), type, flags, stream
_SETTING = struct.Struct(">HL")

# Frame types, flags, settings and error codes (RFC 9113 6, 7).
_DATA, _HEADERS, _PRIORITY_FRAME, _RST_STREAM, _SETTINGS, _PUSH_PROMISE = 0, 1, 2, 3, 4, 5
_PING, _GOAWAY, _WINDOW_UPDATE, _CONTINUATION = 6, 7, 8, 9
_END_STREAM, _ACK, _END_HEADERS, _PADDED, _PRIORITY = 0x1, 0x1, 0x4, 0x8, 0x20
_HEADER_TABLE_SIZE, _ENABLE_PUSH, _MAX_CONCURRENT_STREAMS = 1, 2, 3
_INITIAL_WINDOW_SIZE, _MAX_FRAME_SIZE, _MAX_HEADER_LIST_SIZE = 4, 5, 6
_ERRORS = [
    "NO_ERROR",
    "PROTOCOL_ERROR",
    "INTERNAL_ERROR",
    "FLOW_CONTROL_ERROR",
    "SETTINGS_TIMEOUT",
    "STREAM_CLOSED",
    "FRAME_SIZE_ERROR",
    "REFUSED_STREAM",
    "CANCEL",
    "COMPRESSION_ERROR",
    "CONNECT_ERROR",
    "ENHANCE_YOUR_CALM",
    "INADEQUATE_SECURITY",
    "HTTP_1_1_REQUIRED",
]
_NO_ERROR, _PROTOCOL_ERROR, _FLOW_CONTROL_ERROR, _STREAM_CLOSED = 0x0, 0x1, 0x3, 0x5
_FRAME_SIZE_ERROR, _REFUSED_STREAM, _CANCEL, _COMPRESSION_ERROR = 0x6, 0x7, 0x8, 0x9

_WINDOW = 65535
"""The initial flow-control window of a stream and of a connection."""

_MAX_WINDOW = 2**31 - 1
"""The largest flow-control window (and stream id)."""

_MAX_FRAME = 16384
"""The largest frame either side sends before SETTINGS_MAX_FRAME_SIZE says otherwise (we
never raise ours)."""

_MAX_HEADER_LIST = 65536
"""The largest header list the client takes (SETTINGS_MAX_HEADER_LIST_SIZE)."""

_MAX_STREAMS = 1000
"""The most streams opened at once on a connection whose server sets no lower limit."""

_REFUSALS = 3
"""How many new connections a request sees closed before they took a stream (a GOAWAY at
once) before it gives up, rather than opening them for ever."""

_DROPPED = frozenset(
    [
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"transfer-encoding",
        b"upgrade",
        b"te",
        b"content-length",
    ]
)
"""Header names not sent as given: those HTTP/2 forbids (connection-specific; `te` is only
allowed as `trailers`), and the body's length, which is the body's own."""

_CHARSET = re.compile(rb";\s*charset\s*=\s*\"?([^\";\s]+)", re.I)

Origin = tuple[bytes, str, int]
"""A connection's end: scheme, host, port."""


class Http1Only(Exception):  # noqa: N818  (a signal for the caller, not an error)
    """The server chose HTTP/1.1 over ALPN: send this request, and the origin's next ones,
    through httpx instead."""


class _Unprocessed(Exception):  # noqa: N818
    """The server refused the stream before processing it: safe to send again."""


class Sink(Protocol):
    """What a reply's body is fed to as it arrives (`_http._Decoder`)."""

    problem: str

    def feed(self, data: bytes) -> None:
        """Take the next bytes of the body (setting `problem` to refuse the rest)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """A reply's status and headers (names in lowercase); the body went to its sink."""

    status: int
    headers: Mapping[str, str]

    @property
    def reason(self) -> str:
        """The reason phrase of the status (HTTP/2 sends none)."""
        return httpx.codes.get_reason_phrase(self.status)

    @property
    def encoding(self) -> str:
        """The charset of `Content-Type` when Python knows it, UTF-8 otherwise."""
        match = _CHARSET.search(self.headers.get("content-type", "").encode("latin-1"))
        if match:
            name = match.group(1).decode("latin-1")
            with contextlib.suppress(LookupError):
                return codecs.lookup(name).name
        return "utf-8"


@dataclass(frozen=True)
class Target:
    """Where a URL's requests go: the origin and the request's pseudo-headers."""

    origin: Origin
    pseudo: tuple[tuple[bytes, bytes], ...]

    def headers(
        self, values: Mapping[str, str], length: int
    ) -> tuple[list[tuple[bytes, bytes]], bytes | None]:
        """The header block of a POST with `values` and a body of `length` bytes, and the
        `Host` value given among `values` (sent as `:authority`), if any."""
        out: list[tuple[bytes, bytes]] = []
        host = None
        for name, value in values.items():
            key = name.lower().encode("ascii")
            encoded = value.encode("utf-8")
            if key == b"host":
                host = encoded
            elif key not in _DROPPED or (key == b"te" and encoded.lower() == b"trailers"):
                out.append((key, encoded))
        out.append((b"content-length", str(length).encode("ascii")))
        return out, host


@functools.lru_cache(maxsize=256)
def target(url: str) -> Target:
    """The `Target` of `url` (read as httpx reads it)."""
    parsed = httpx.URL(url)
    scheme = parsed.raw_scheme
    port = parsed.port or (443 if scheme == b"https" else 80)
    authority = parsed.raw_host if parsed.port is None else b"%s:%d" % (parsed.raw_host, port)
    if b":" in parsed.raw_host:  # an IPv6 address
        authority = b"[%s]" % parsed.raw_host + (b"" if parsed.port is None else b":%d" % port)
    pseudo = (
        (b":method", b"POST"),
        (b":scheme", scheme),
        (b":authority", authority),
        (b":path", parsed.raw_path),
    )
    return Target((scheme, parsed.host, port), pseudo)


def _integer(value: int, bits: int, flags: int) -> bytes:
    """An HPACK integer with a prefix of `bits` bits, `flags` in the first byte's other bits."""
    limit = (1 << bits) - 1
    if value < limit:
        return bytes([flags | value])
    out = bytearray([flags | limit])
    value -= limit
    while value >= 128:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _string(value: bytes) -> bytes:
    """An HPACK string literal, not Huffman-coded."""
    return _integer(len(value), 7, 0) + value


def _static() -> tuple[dict[tuple[bytes, bytes], int], dict[bytes, int]]:
    """The HPACK static table's entries by (name, value), and its names (first index)."""
    entries: dict[tuple[bytes, bytes], int] = {}
    names: dict[bytes, int] = {}
    for index, (name, value) in enumerate(HeaderTable.STATIC_TABLE, 1):
        entries.setdefault((name, value), index)
        names.setdefault(name, index)
    return entries, names


_STATIC, _STATIC_NAMES = _static()


class _Encoder:
    """The HPACK encoder of a judge's requests: each header an indexed entry of the static
    table or a literal that is never indexed, so the dynamic table stays empty.

    A judge sends the same headers with every request, the body's length aside, so each
    field's bytes are worked out once and the blocks are joined from them; `hpack`'s encoder
    searches its tables and Huffman-codes every new value in Python, request after request.
    The server's decoder keeps no entry for us either; a change of the table's size in the
    server's SETTINGS is signalled at the start of the next block, as RFC 7541 asks.
    """

    def __init__(self) -> None:
        self.size = 4096
        self.sizes: list[int] = []  # table size changes not yet signalled
        self.fields: dict[tuple[bytes, bytes], bytes] = {}

    @property
    def header_table_size(self) -> int:
        """The dynamic table's size (only ever signalled: no entry is added)."""
        return self.size

    @header_table_size.setter
    def header_table_size(self, value: int) -> None:
        if value != self.size:
            self.size = value
            self.sizes.append(value)

    def encode(self, headers: Iterable[tuple[bytes, bytes]]) -> bytes:
        """The header block of `headers` ((name, value) pairs of bytes)."""
        block = []
        if self.sizes:  # RFC 7541 4.2: the smallest size since the last block, then the last
            for size in dict.fromkeys([min(self.sizes), self.sizes[-1]]):
                block.append(_integer(size, 5, 0x20))
            self.sizes.clear()
        fields = self.fields
        for name, value in headers:
            field = fields.get((name, value))
            if field is None:
                field = _field(name, value)
                if name != b"content-length":  # a new value per body: not worth keeping
                    if len(fields) > 256:
                        fields.clear()
                    fields[(name, value)] = field
            block.append(field)
        return b"".join(block)


def _field(name: bytes, value: bytes) -> bytes:
    """One header field: its static table entry, or a never-indexed literal."""
    index = _STATIC.get((name, value))
    if index is not None:
        return _integer(index, 7, 0x80)
    index = _STATIC_NAMES.get(name)
    if index is not None:
        return _integer(index, 4, 0x10) + _string(value)
    return b"\x10" + _string(name) + _string(value)


class _Stream:
    """One request's stream: its reply as it arrives, and the future its request awaits."""

    __slots__ = (
        "done",
        "expected",
        "finished",
        "make_sink",
        "receive_window",
        "received",
        "reply",
        "send_window",
        "sink",
        "started",
        "unacknowledged",
    )

    def __init__(
        self,
        done: asyncio.Future[None],
        make_sink: Callable[[Mapping[str, str]], Sink],
        send_window: int,
    ) -> None:
        self.done = done
        self.make_sink = make_sink
        self.sink: Sink | None = None
        self.reply: Reply | None = None
        self.started = time.monotonic()
        self.send_window = send_window
        self.receive_window = _WINDOW
        self.unacknowledged = 0  # body bytes read since the last WINDOW_UPDATE
        self.received = 0  # body bytes read in all
        self.expected: int | None = None  # the reply's Content-Length
        self.finished = False  # ended, failed or reset: nothing more is read for it

    def fail(self, exc: BaseException) -> None:
        self.finished = True
        if not self.done.done():
            self.done.set_exception(exc)


class _Broken(Exception):  # noqa: N818  (a control-flow signal of the frame reader)
    """The server broke the protocol: the connection ends (a GOAWAY with `code`)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Connection(asyncio.Protocol):
    """One HTTP/2 connection of a client that only sends requests (RFC 9113).

    Reads frames as they arrive and hands each stream's reply to the request that opened the
    stream; writes a request's frames as soon as they are ready (requests that waited to share
    a write with the others a turn of the event loop opened went out in bursts, answered in
    bursts, and waited for each other again on every round trip).
    """

    def __init__(self, pool: H2Pool, origin: Origin) -> None:
        self.pool = pool
        self.origin = origin
        self.loop = asyncio.get_running_loop()
        self.encoder = _Encoder()
        self.decoder = hpack.Decoder()
        self.decoder.max_header_list_size = _MAX_HEADER_LIST
        self.streams: dict[int, _Stream] = {}
        self.next_stream = 1
        self.dropped: dict[int, None] = {}  # streams reset or failed: late frames are dropped
        self.transport: asyncio.Transport | None = None
        self.ready: asyncio.Future[None] = self.loop.create_future()
        self.lost: asyncio.Future[None] = self.loop.create_future()
        self.accepting = True  # new streams may open (no GOAWAY, not lost, ids left)
        self.alpn: str | None = None
        self.used = False  # whether a stream has been opened here (a new one never expires)
        self.idle_since = time.monotonic()
        self.last_read = self.idle_since
        self.max_streams = 1  # until the server's SETTINGS say how many
        self.max_frame = _MAX_FRAME  # the largest frame the server takes
        self.initial_window = _WINDOW  # each new stream's send window
        self.send_window = _WINDOW  # the connection's
        self.receive_window = CONNECTION_WINDOW
        self.said_goodbye = False
        self._buffer = bytearray()
        self._block: tuple[int, int, list[bytes]] | None = None  # headers awaiting CONTINUATION
        self._out: list[bytes] = []
        self._writable: asyncio.Future[None] | None = None
        self._windows: dict[int, asyncio.Future[None]] = {}
        self._ended: list[_Stream] = []  # replies completed by the read being handled

    # -- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        tls = transport.get_extra_info("ssl_object")
        if tls is not None:
            self.alpn = tls.selected_alpn_protocol()
            if self.alpn != "h2":  # HTTP/1.1 (or no ALPN): no preface, and no request
                self.accepting = False
                transport.close()
                return
        settings = b"".join(
            _SETTING.pack(code, value)
            for code, value in ((_ENABLE_PUSH, 0), (_MAX_HEADER_LIST_SIZE, _MAX_HEADER_LIST))
        )
        increment = (CONNECTION_WINDOW - _WINDOW).to_bytes(4, "big")
        transport.write(
            _PREFACE + _frame(_SETTINGS, 0, 0, settings) + _frame(_WINDOW_UPDATE, 0, 0, increment)
        )

    def data_received(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return  # after a protocol error or a goodbye: nothing more is read
        self.last_read = time.monotonic()
        buffer = self._buffer
        buffer += data
        size, position = len(buffer), 0
        try:
            while size - position >= 9:
                high, low, kind, flags, stream_id = _HEAD.unpack_from(buffer, position)
                length = high << 16 | low
                if length > _MAX_FRAME:
                    raise _Broken(_FRAME_SIZE_ERROR, f"a frame of {length} bytes")
                end = position + 9 + length
                if end > size:
                    break
                payload = bytes(buffer[position + 9 : end])
                position = end
                self._frame(kind, flags, stream_id & 0x7FFFFFFF, payload)
        except _Broken as exc:
            self._broken(exc)
            return
        del buffer[:position]
        # Replies end once the whole read is in: a protocol error later in the same read (a
        # second answer on a stream just answered) takes them with the connection, as h2 does.
        ended, self._ended = self._ended, []
        for stream in ended:
            if not stream.done.done():
                stream.done.set_result(None)
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self.accepting = False
        detail = f" ({type(exc).__name__}: {exc})" if exc else ""
        error = httpx.ReadError(f"the connection ended{detail}")
        if not self.ready.done():
            self.ready.set_exception(httpx.ConnectError(f"the connection ended{detail}"))
            self.ready.exception()  # retrieved: a request awaiting it reads it from `lost`
        for stream in self.streams.values():
            stream.fail(error)
        self._wake_all()
        if not self.lost.done():
            self.lost.set_result(None)
        self.pool.forget(self)

    def pause_writing(self) -> None:
        if self._writable is None:
            self._writable = self.loop.create_future()

    def resume_writing(self) -> None:
        writable, self._writable = self._writable, None
        if writable is not None and not writable.done():
            writable.set_result(None)

    # -- reading frames -------------------------------------------------------------------

    def _frame(self, kind: int, flags: int, stream_id: int, payload: bytes) -> None:
        if self._block is not None and kind != _CONTINUATION:
            raise _Broken(_PROTOCOL_ERROR, "a header block cut by another frame")
        if not self.ready.done() and kind != _SETTINGS:
            raise _Broken(_PROTOCOL_ERROR, "the server's first frame is not SETTINGS")
        if kind == _DATA:
            self._data(flags, stream_id, payload)
        elif kind in (_HEADERS, _CONTINUATION):
            self._headers(kind, flags, stream_id, payload)
        elif kind == _WINDOW_UPDATE:
            self._window_update(stream_id, payload)
        elif kind == _RST_STREAM:
            if len(payload) != 4 or not stream_id:
                raise _Broken(_PROTOCOL_ERROR, "a malformed RST_STREAM")
            self._idle(stream_id)
            code = int.from_bytes(payload, "big")
            stream = self.streams.get(stream_id)
            if stream is not None and not stream.finished:
                self._drop(stream_id)
                error = f"the server reset the stream ({_code(code)})"
                stream.fail(
                    _Unprocessed(error)
                    if code == _REFUSED_STREAM
                    else httpx.RemoteProtocolError(error)
                )
                self._wake(stream_id)
        elif kind == _SETTINGS:
            self._settings(flags, stream_id, payload)
        elif kind == _PING:
            if stream_id or len(payload) != 8:
                raise _Broken(_PROTOCOL_ERROR, "a malformed PING")
            if not flags & _ACK:
                self._out.append(_frame(_PING, _ACK, 0, payload))
        elif kind == _GOAWAY:
            if stream_id or len(payload) < 8:
                raise _Broken(_PROTOCOL_ERROR, "a malformed GOAWAY")
            last = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            self._goaway(last, int.from_bytes(payload[4:8], "big"))
        elif kind == _PUSH_PROMISE:
            raise _Broken(_PROTOCOL_ERROR, "a PUSH_PROMISE, which the client disabled")
        # PRIORITY frames and frames of unknown types are ignored (RFC 9113 4.1, 5.3.2).

    def _data(self, flags: int, stream_id: int, payload: bytes) -> None:
        if not stream_id:
            raise _Broken(_PROTOCOL_ERROR, "DATA on stream 0")
        length = len(payload)  # flow control counts the padding too
        self.receive_window -= length
        if self.receive_window < 0:
            raise _Broken(_FLOW_CONTROL_ERROR, "DATA past the connection's window")
        if self.receive_window <= CONNECTION_WINDOW // 2:
            increment = CONNECTION_WINDOW - self.receive_window
            self._out.append(_frame(_WINDOW_UPDATE, 0, 0, increment.to_bytes(4, "big")))
            self.receive_window = CONNECTION_WINDOW
        stream = self._open_stream(stream_id)
        if stream is None:  # one we reset: its late frames are dropped
            return
        data = _unpadded(flags, payload)
        stream.receive_window -= length
        if stream.reply is None or stream.receive_window < 0:
            problem = "DATA before the response" if stream.reply is None else "DATA past its window"
            self._stream_error(stream_id, _PROTOCOL_ERROR, problem)
            return
        stream.received += len(data)
        if stream.expected is not None and stream.received > stream.expected:
            self._stream_error(stream_id, _PROTOCOL_ERROR, "a body past its Content-Length")
            return
        if data and stream.sink is not None:
            stream.sink.feed(data)
            if stream.sink.problem:  # refused (too large): read no more of it
                self._refuse(stream_id, stream)
                return
        if flags & _END_STREAM:
            self._end(stream_id, stream)
        else:
            stream.unacknowledged += length
            if stream.unacknowledged >= _WINDOW // 2:
                more = stream.unacknowledged.to_bytes(4, "big")
                self._out.append(_frame(_WINDOW_UPDATE, 0, stream_id, more))
                stream.receive_window += stream.unacknowledged
                stream.unacknowledged = 0

    def _headers(self, kind: int, flags: int, stream_id: int, payload: bytes) -> None:
        if kind == _CONTINUATION:
            if self._block is None or self._block[0] != stream_id:
                raise _Broken(_PROTOCOL_ERROR, "a CONTINUATION out of place")
            self._block[2].append(payload)
            if not flags & _END_HEADERS:
                return
            stream_id, flags, fragments = self._block
            self._block = None
            block = b"".join(fragments)
        else:
            if not stream_id:
                raise _Broken(_PROTOCOL_ERROR, "HEADERS on stream 0")
            block = _unpadded(flags, payload)
            if flags & _PRIORITY:
                block = block[5:]
            if not flags & _END_HEADERS:
                self._block = (stream_id, flags, [block])
                return
        try:  # every block, whoever it is for: the decoder's table must follow the server's
            fields = self.decoder.decode(block, raw=True)
        except hpack.HPACKError as exc:
            raise _Broken(_COMPRESSION_ERROR, f"a header block it cannot decode ({exc})") from None
        stream = self._open_stream(stream_id)
        if stream is None:
            return
        if stream.reply is not None:  # trailers: they must end the stream
            if not flags & _END_STREAM:
                self._stream_error(stream_id, _PROTOCOL_ERROR, "trailers that do not end it")
            else:
                self._end(stream_id, stream)
            return
        status, headers = _response_head(fields)
        if not 100 <= status <= 999:
            self._stream_error(stream_id, _PROTOCOL_ERROR, "a response without a valid :status")
            return
        if status < 200:  # an interim response (100 Continue, 103 Early Hints): skipped
            if flags & _END_STREAM:
                self._stream_error(stream_id, _PROTOCOL_ERROR, "an interim response ending it")
            return
        stream.reply = Reply(status, headers)
        length = headers.get("content-length", "")
        if length.isdigit() and status not in (204, 304):
            stream.expected = int(length)
        stream.sink = stream.make_sink(headers)
        if stream.sink.problem:
            self._refuse(stream_id, stream)
        elif flags & _END_STREAM:
            self._end(stream_id, stream)

    def _open_stream(self, stream_id: int) -> _Stream | None:
        """The stream a server frame is for; None for one reset or failed, whose late frames
        are dropped. A frame for a stream never opened, or for one whose reply has ended (a
        second answer), breaks the protocol (as `h2` has it)."""
        stream = self.streams.get(stream_id)
        if stream is not None and not stream.finished:
            return stream
        if stream_id in self.dropped:
            return None
        self._idle(stream_id)
        raise _Broken(_STREAM_CLOSED, f"a frame on stream {stream_id}, which has ended")

    def _idle(self, stream_id: int) -> None:
        if stream_id >= self.next_stream or not stream_id % 2:
            raise _Broken(_PROTOCOL_ERROR, f"a frame on stream {stream_id}, never opened")

    def _end(self, stream_id: int, stream: _Stream) -> None:
        if stream.expected is not None and stream.received != stream.expected:
            self._stream_error(stream_id, _PROTOCOL_ERROR, "a body short of its Content-Length")
        else:
            stream.finished = True
            self._ended.append(stream)

    def _refuse(self, stream_id: int, stream: _Stream) -> None:
        """The reply's sink refused it (`problem`, read by the caller): reset the stream."""
        self._reset(stream_id, _CANCEL)
        stream.finished = True
        self._ended.append(stream)

    def _stream_error(self, stream_id: int, code: int, problem: str) -> None:
        """The server broke the protocol on one stream: reset it, and fail its request."""
        self._reset(stream_id, code)
        stream = self.streams.get(stream_id)
        if stream is not None:
            stream.fail(httpx.RemoteProtocolError(f"the server sent {problem}"))

    def _settings(self, flags: int, stream_id: int, payload: bytes) -> None:
        if stream_id or len(payload) % 6 or (flags & _ACK and payload):
            raise _Broken(_PROTOCOL_ERROR, "a malformed SETTINGS")
        if flags & _ACK:
            return
        for offset in range(0, len(payload), 6):
            code, value = _SETTING.unpack_from(payload, offset)
            if code == _HEADER_TABLE_SIZE:
                self.encoder.header_table_size = value
            elif code == _MAX_CONCURRENT_STREAMS:
                self.max_streams = min(value, _MAX_STREAMS)
            elif code == _INITIAL_WINDOW_SIZE:
                if value > _MAX_WINDOW:
                    raise _Broken(_FLOW_CONTROL_ERROR, "an initial window past 2**31 - 1")
                for stream in self.streams.values():
                    stream.send_window += value - self.initial_window
                self.initial_window = value
            elif code == _MAX_FRAME_SIZE:
                if not _MAX_FRAME <= value < 2**24:
                    raise _Broken(_PROTOCOL_ERROR, f"a maximum frame size of {value}")
                self.max_frame = value
        self._out.append(_frame(_SETTINGS, _ACK, 0, b""))
        if not self.ready.done():
            if self.max_streams == 1 and not _has_setting(payload, _MAX_CONCURRENT_STREAMS):
                self.max_streams = _MAX_STREAMS  # no limit given
            self.ready.set_result(None)
        self._wake_all()

    def _window_update(self, stream_id: int, payload: bytes) -> None:
        if len(payload) != 4:
            raise _Broken(_FRAME_SIZE_ERROR, "a malformed WINDOW_UPDATE")
        increment = int.from_bytes(payload, "big") & 0x7FFFFFFF
        if not stream_id:
            if not increment:
                raise _Broken(_PROTOCOL_ERROR, "a WINDOW_UPDATE of 0")
            self.send_window += increment
            if self.send_window > _MAX_WINDOW:
                raise _Broken(_FLOW_CONTROL_ERROR, "a connection window past 2**31 - 1")
            self._wake_all()
            return
        self._idle(stream_id)
        stream = self.streams.get(stream_id)
        if stream is None:
            return  # a stream that has ended
        if not increment:
            self._stream_error(stream_id, _PROTOCOL_ERROR, "a WINDOW_UPDATE of 0")
            return
        stream.send_window += increment
        if stream.send_window > _MAX_WINDOW:
            self._stream_error(stream_id, _FLOW_CONTROL_ERROR, "a window past 2**31 - 1")
        self._wake(stream_id)

    def _goaway(self, last: int, code: int) -> None:
        """The server takes no new stream: those past `last` were never processed; those up
        to it are answered (unless the server closes for an error)."""
        self.accepting = False
        for stream_id, stream in self.streams.items():
            if stream.finished:
                continue
            if stream_id > last:
                self._drop(stream_id)
                stream.fail(_Unprocessed(f"the server is closing the connection ({_code(code)})"))
            elif code:
                self._drop(stream_id)
                error = f"the server closed the connection ({_code(code)})"
                stream.fail(httpx.RemoteProtocolError(error))
        self._wake_all()
        self._close_when_idle()

    def _broken(self, exc: _Broken) -> None:
        """A protocol error: every stream fails, and the connection closes with a GOAWAY."""
        self.accepting = False
        error = httpx.RemoteProtocolError(f"the server broke HTTP/2 ({exc})")
        for stream in self.streams.values():
            stream.fail(error)
        self._ended.clear()
        self._wake_all()
        self._goodbye(exc.code)
        if self.transport is not None:
            self.transport.close()

    # -- requests -------------------------------------------------------------------------

    def usable(self, now: float) -> bool:
        """Whether a new stream may open here now (an idle connection past its expiry closes)."""
        if not self.accepting or not self.ready.done() or self.ready.exception() is not None:
            return False
        if not self.streams and self.used and now - self.idle_since > IDLE_EXPIRY:
            self.retire()
            return False
        return len(self.streams) < self.max_streams

    def retire(self) -> None:
        """Open no new stream here; close once the streams on it have ended."""
        self.accepting = False
        self._close_when_idle()

    async def exchange(
        self,
        target: Target,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        make_sink: Callable[[Mapping[str, str]], Sink],
    ) -> Reply:
        """Send a request on a new stream and wait until its reply has ended."""
        stream_id = self.next_stream
        if stream_id > _MAX_WINDOW:  # stream ids run to 2**31 - 1
            self.retire()
            raise _Unprocessed("the connection ran out of stream ids")
        self.next_stream += 2
        stream = _Stream(self.loop.create_future(), make_sink, self.initial_window)
        self.streams[stream_id] = stream
        self.used = True
        try:
            self._send_headers(stream_id, [*target.pseudo, *headers], not body)
            size = len(body)
            if not body:
                pass
            elif (
                self._writable is None
                and size <= self.max_frame
                and size <= stream.send_window
                and size <= self.send_window
            ):  # the usual body: one frame
                stream.send_window -= size
                self.send_window -= size
                self._out.append(_frame(_DATA, _END_STREAM, stream_id, body))
            else:
                await self._send_body(stream_id, stream, body)
            self.flush()  # at once: waiting to share a write with other requests delays this one
            await stream.done
        except BaseException:
            if stream.done.cancelled() or not stream.done.done():  # cut short: the others go on
                self._reset(stream_id, _CANCEL)
                if self.last_read < stream.started:  # nothing came since it began
                    self.retire()
            raise
        finally:
            del self.streams[stream_id]
            self._windows.pop(stream_id, None)
            if not self.streams:
                self.idle_since = time.monotonic()
                if not self.accepting:
                    self._close_when_idle()
        assert stream.reply is not None
        return stream.reply

    def _send_headers(self, stream_id: int, fields: list[tuple[bytes, bytes]], end: bool) -> None:
        block = self.encoder.encode(fields)
        flags = _END_STREAM if end else 0
        if len(block) <= self.max_frame:
            self._out.append(_frame(_HEADERS, flags | _END_HEADERS, stream_id, block))
            return
        pieces = [block[i : i + self.max_frame] for i in range(0, len(block), self.max_frame)]
        self._out.append(_frame(_HEADERS, flags, stream_id, pieces[0]))
        for piece in pieces[1:-1]:
            self._out.append(_frame(_CONTINUATION, 0, stream_id, piece))
        self._out.append(_frame(_CONTINUATION, _END_HEADERS, stream_id, pieces[-1]))

    async def _send_body(self, stream_id: int, stream: _Stream, body: bytes) -> None:
        sent = 0
        while sent < len(body):
            if stream.done.done():  # reset or failed: nothing more to send
                return
            if self._writable is not None:  # the transport's buffer is full
                self.flush()
                await self._writable
                continue
            size = min(self.max_frame, stream.send_window, self.send_window, len(body) - sent)
            if size <= 0:  # wait for the server's WINDOW_UPDATE
                self.flush()
                waiter = self._windows[stream_id] = self.loop.create_future()
                await waiter
                continue
            end = sent + size == len(body)
            stream.send_window -= size
            self.send_window -= size
            flags = _END_STREAM if end else 0
            self._out.append(_frame(_DATA, flags, stream_id, body[sent : sent + size]))
            sent += size

    def _reset(self, stream_id: int, code: int) -> None:
        self._drop(stream_id)
        self._out.append(_frame(_RST_STREAM, 0, stream_id, code.to_bytes(4, "big")))
        self.flush()

    def _drop(self, stream_id: int) -> None:
        """Drop the late frames of `stream_id` (remembered for a while, not for ever)."""
        self.dropped[stream_id] = None
        if len(self.dropped) > 1024:
            del self.dropped[next(iter(self.dropped))]

    def _wake(self, stream_id: int) -> None:
        waiter = self._windows.pop(stream_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_all(self) -> None:
        for stream_id in list(self._windows):
            self._wake(stream_id)
        self.resume_writing()

    # -- writing and closing --------------------------------------------------------------

    def flush(self) -> None:
        """Write the frames pending."""
        if self._out:
            data = b"".join(self._out)
            self._out.clear()
            if self.transport is not None and not self.transport.is_closing():
                self.transport.write(data)

    def _goodbye(self, code: int = _NO_ERROR) -> None:
        """Send a GOAWAY (once): the server opens no stream here (it never does)."""
        if not self.said_goodbye:
            self.said_goodbye = True
            self._out.append(
                _frame(_GOAWAY, 0, 0, (0).to_bytes(4, "big") + code.to_bytes(4, "big"))
            )
        self.flush()

    def _close_when_idle(self) -> None:
        if not self.streams and self.transport is not None and not self.transport.is_closing():
            self._goodbye()
            self.transport.close()

    async def aclose(self) -> None:
        """Say goodbye (GOAWAY), close, and wait a moment for the transport to end."""
        self.accepting = False
        if self.transport is None:
            return
        if not self.transport.is_closing():
            self._goodbye()
            self.transport.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), 1.0)
        except TimeoutError:
            self.transport.abort()


class H2Pool:
    """The HTTP/2 connections of one judge in one event loop, by origin.

    Args:
        context: The TLS context of `https://` origins (ALPN offering `h2` and `http/1.1`).
        timeout: The deadline of opening a connection (a request's own deadline bounds its
            wait for one too).
    """

    def __init__(self, context: ssl.SSLContext, timeout: float) -> None:
        self.context = context
        self.timeout = timeout
        self.connections: dict[Origin, list[_Connection]] = {}
        self.opening: dict[Origin, asyncio.Task[_Connection]] = {}
        self.http1: set[Origin] = set()
        self.closed = False

    async def post(
        self,
        target: Target,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        make_sink: Callable[[Mapping[str, str]], Sink],
    ) -> Reply:
        """POST `body` to `target` on a stream of a kept-alive connection; return the reply
        once it has ended (its body fed to the sink `make_sink` makes of its headers).

        Raises:
            Http1Only: when the server chose HTTP/1.1 (now or before).
            httpx.RequestError: when the connection fails or the stream is reset.
        """
        for _ in range(REPLAYS + 1):
            connection = await self._connection(target.origin)
            try:
                return await connection.exchange(target, headers, body, make_sink)
            except _Unprocessed as exc:
                refused = exc
        raise httpx.RemoteProtocolError(f"{refused} ({REPLAYS + 1} times)")

    async def _connection(self, origin: Origin) -> _Connection:
        refused = 0
        while True:
            if origin in self.http1:
                raise Http1Only()
            if self.closed:
                raise httpx.ConnectError("the judge's connections were closed")
            now = time.monotonic()
            for connection in self.connections.get(origin, ()):
                if connection.usable(now):
                    return connection
            opening = self.opening.get(origin)
            if opening is None:
                opening = asyncio.get_running_loop().create_task(self._open(origin))
                self.opening[origin] = opening
                opening.add_done_callback(functools.partial(self._opened, origin))
            # Shielded: a request cut short leaves the opening to the others waiting for it.
            opened = await asyncio.shield(opening)
            if not opened.accepting and not opened.used:  # closed before it took a stream
                refused += 1
                if refused == _REFUSALS:
                    raise httpx.ConnectError(
                        f"the server closed {_REFUSALS} new connections before they took a stream"
                    )

    def _opened(self, origin: Origin, task: asyncio.Task[_Connection]) -> None:
        if self.opening.get(origin) is task:
            del self.opening[origin]
        if not task.cancelled() and task.exception() is None:
            self.connections.setdefault(origin, []).append(task.result())

    async def _open(self, origin: Origin) -> _Connection:
        scheme, host, port = origin
        loop = asyncio.get_running_loop()
        tls = scheme == b"https"
        async with asyncio.timeout(self.timeout):
            try:
                _, connection = await loop.create_connection(
                    lambda: _Connection(self, origin),
                    host,
                    port,
                    ssl=self.context if tls else None,
                    server_hostname=host if tls else None,
                )
            except (OSError, ssl.SSLError) as exc:
                raise httpx.ConnectError(f"{type(exc).__name__}: {exc}") from exc
            if tls and connection.alpn != "h2":
                self.http1.add(origin)
                raise Http1Only()
            await asyncio.wait([connection.ready, connection.lost], return_when="FIRST_COMPLETED")
            if not connection.ready.done():
                raise httpx.ConnectError("the connection ended before the server's settings")
            connection.ready.result()
            if connection.max_streams < 1:
                await connection.aclose()
                raise httpx.ConnectError("the server takes no stream (its limit is 0)")
        return connection

    def forget(self, connection: _Connection) -> None:
        """Drop a connection that has ended."""
        kept = self.connections.get(connection.origin)
        if kept is not None and connection in kept:
            kept.remove(connection)

    async def aclose(self) -> None:
        """Close every connection (a GOAWAY first) and stop opening new ones."""
        self.closed = True
        opening = list(self.opening.values())
        for task in opening:
            task.cancel()
        await asyncio.gather(*opening, return_exceptions=True)  # opened ones are kept below
        connections = [c for kept in self.connections.values() for c in kept]
        self.connections.clear()
        await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)


def _frame(kind: int, flags: int, stream_id: int, payload: bytes) -> bytes:
    """A frame of `kind`, with its header."""
    length = len(payload)
    return _HEAD.pack(length >> 16, length & 0xFFFF, kind, flags, stream_id) + payload


def _unpadded(flags: int, payload: bytes) -> bytes:
    """A DATA or HEADERS frame's payload without its padding.

    Raises:
        _Broken: when the padding is longer than the payload.
    """
    if not flags & _PADDED:
        return payload
    if not payload or payload[0] >= len(payload):
        raise _Broken(_PROTOCOL_ERROR, "padding longer than its frame")
    return payload[1 : len(payload) - payload[0]]


def _has_setting(payload: bytes, code: int) -> bool:
    return any(_SETTING.unpack_from(payload, i)[0] == code for i in range(0, len(payload), 6))


def _response_head(raw: Iterable[tuple[bytes, bytes]]) -> tuple[int, dict[str, str]]:
    """The status and the headers (lowercase names, repeated ones joined) of a response
    (status 0 when `:status` is missing or not a number)."""
    status = 0
    headers: dict[str, str] = {}
    for name, value in raw:
        if name == b":status":
            status = int(value) if value.isdigit() and len(value) == 3 else 0
        elif not name.startswith(b":"):
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return status, headers


def _code(code: int) -> str:
    """An HTTP/2 error code by its name (`CANCEL`), or its number when unknown."""
    return _ERRORS[code] if code < len(_ERRORS) else f"error {code:#x}"
