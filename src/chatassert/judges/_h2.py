"""The judges' HTTP/2 client: asyncio's transports and the `h2` state machine, nothing between.

httpx's HTTP/2 path (httpcore over anyio) takes locks and checkpoints for every frame and
offers a request to the connection pool several times over: about 2 ms of CPU per request,
more than the rest of a judged check together. Here a connection is an `asyncio.Protocol`
that feeds what it reads to `h2` and hands each stream's events to the request that opened
it, so a request costs one stream's frames and one wake-up when its answer has ended.

It is only ever HTTP/2: `_http._Pools` uses it where ALPN chose `h2` (an origin whose server
chooses HTTP/1.1 is remembered, and its requests go through httpx) or for `http://` with
prior knowledge, and never where a proxy is configured (httpx honours those). What the
transport promises holds here as well: the request's deadline is its caller's (a request cut
short resets its stream, leaving the connection to the others), the reply is read through the
caller's size-capped decoder as it arrives, and every way a connection can fail is an
`httpx.RequestError`, which the judge retries. A request the server provably did not process
(its stream refused, or past the last stream a `GOAWAY` kept) is sent again on another
connection, a few times at most, since no server saw it.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import re
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
import httpx
from hpack.table import HeaderTable

__all__ = ["H2Pool", "Http1Only", "Target", "target"]

IDLE_EXPIRY = 5.0
"""Seconds an idle connection is kept (httpx's default keep-alive expiry)."""

REPLAYS = 3
"""How many times a request no server processed is sent again on another connection."""

CONNECTION_WINDOW = 2**24
"""The receive window of a whole connection (httpcore's): replies never wait for it."""

_CONFIG = h2.config.H2Configuration(
    client_side=True,
    header_encoding=None,
    # The headers are built valid (lowercase names, no connection-specific ones) in
    # `Target.headers`; as in httpcore, inbound headers are not validated one by one.
    validate_outbound_headers=False,
    normalize_outbound_headers=False,
    validate_inbound_headers=False,
    normalize_inbound_headers=False,
)

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


@dataclass(frozen=True)
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
    The server's decoder keeps no entry for us either. It stands in for `H2Connection.encoder`
    (`h2` uses `encode` and sets `header_table_size` from the server's settings).
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

    def encode(self, headers: Any, huffman: bool = True) -> bytes:
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

    __slots__ = ("done", "make_sink", "reply", "sink", "started")

    def __init__(
        self, done: asyncio.Future[None], make_sink: Callable[[Mapping[str, str]], Sink]
    ) -> None:
        self.done = done
        self.make_sink = make_sink
        self.sink: Sink | None = None
        self.reply: Reply | None = None
        self.started = time.monotonic()

    def fail(self, exc: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(exc)

    def end(self) -> None:
        if not self.done.done():
            if self.reply is None:
                self.done.set_exception(
                    httpx.RemoteProtocolError("the stream ended without a response")
                )
            else:
                self.done.set_result(None)


class _Connection(asyncio.Protocol):
    """One HTTP/2 connection: `h2`'s state machine over an asyncio transport."""

    def __init__(self, pool: H2Pool, origin: Origin) -> None:
        self.pool = pool
        self.origin = origin
        self.loop = asyncio.get_running_loop()
        self.h2 = h2.connection.H2Connection(config=_CONFIG)
        self.h2.encoder = _Encoder()  # type: ignore[assignment]
        self.streams: dict[int, _Stream] = {}
        self.transport: asyncio.Transport | None = None
        self.ready: asyncio.Future[None] = self.loop.create_future()
        self.lost: asyncio.Future[None] = self.loop.create_future()
        self.accepting = True  # new streams may open (no GOAWAY, not lost, ids left)
        self.alpn: str | None = None
        self.used = False  # whether a stream has been opened here (a new one never expires)
        self.idle_since = time.monotonic()
        self.last_read = self.idle_since
        self.max_streams = 1  # until the server's SETTINGS say how many
        self._writable: asyncio.Future[None] | None = None
        self._windows: dict[int, asyncio.Future[None]] = {}
        self._flushing = False

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
        self.h2.local_settings = h2.settings.Settings(
            client=True,
            initial_values={
                h2.settings.SettingCodes.ENABLE_PUSH: 0,
                h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 100,
                h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 65536,
            },
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(CONNECTION_WINDOW - 65535)
        transport.write(self.h2.data_to_send())

    def data_received(self, data: bytes) -> None:
        self.last_read = time.monotonic()
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError as exc:
            self._broken(httpx.RemoteProtocolError(f"the server broke HTTP/2 ({exc!r})"))
            return
        for event in events:
            self._event(event)
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

    # -- h2 events ------------------------------------------------------------------------

    def _event(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if event.flow_controlled_length:
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if stream is not None and stream.sink is not None and not stream.done.done():
                stream.sink.feed(event.data)
                if stream.sink.problem:  # refused (too large): read no more of it
                    self._reset(event.stream_id, h2.errors.ErrorCodes.CANCEL)
                    stream.done.set_result(None)
        elif isinstance(event, h2.events.ResponseReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                status, headers = _response_head(event.headers)
                stream.reply = Reply(status, headers)
                stream.sink = stream.make_sink(headers)
                if stream.sink.problem:
                    self._reset(event.stream_id, h2.errors.ErrorCodes.CANCEL)
                    stream.done.set_result(None)
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.end()
        elif isinstance(event, h2.events.StreamReset):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                code = _code(event.error_code)
                if event.error_code == h2.errors.ErrorCodes.REFUSED_STREAM:
                    stream.fail(_Unprocessed(f"the server refused the stream ({code})"))
                else:
                    stream.fail(httpx.RemoteProtocolError(f"the server reset the stream ({code})"))
            self._wake(event.stream_id)
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            self.max_streams = min(self.h2.remote_settings.max_concurrent_streams, 1000)
            if not self.ready.done():
                self.ready.set_result(None)
            self._wake_all()  # the initial window may have grown
        elif isinstance(event, h2.events.WindowUpdated):
            if event.stream_id:
                self._wake(event.stream_id)
            else:
                self._wake_all()
        elif isinstance(event, h2.events.ConnectionTerminated):
            self._goaway(event)

    def _goaway(self, event: h2.events.ConnectionTerminated) -> None:
        """The server sends no more: streams past the last it kept were never processed."""
        self.accepting = False
        last = event.last_stream_id if event.last_stream_id is not None else 2**31
        code = _code(event.error_code)
        for stream_id, stream in self.streams.items():
            if stream_id > last:
                stream.fail(_Unprocessed(f"the server is closing the connection ({code})"))
            elif event.error_code:
                stream.fail(httpx.RemoteProtocolError(f"the server closed the connection ({code})"))
        self._wake_all()
        if not self.ready.done():
            self.ready.set_exception(
                httpx.ConnectError(f"the server refused the connection ({code})")
            )
        self._close_when_idle()

    def _broken(self, error: httpx.RequestError) -> None:
        """A protocol error: every stream fails with `error`, and the connection closes."""
        self.accepting = False
        for stream in self.streams.values():
            stream.fail(error)
        self._wake_all()
        self.flush()  # the GOAWAY h2 prepared
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
        try:
            stream_id = self.h2.get_next_available_stream_id()
        except h2.exceptions.NoAvailableStreamIDError:
            self.retire()
            raise _Unprocessed("the connection ran out of stream ids") from None
        stream = _Stream(self.loop.create_future(), make_sink)
        self.streams[stream_id] = stream
        self.used = True
        try:
            self.h2.send_headers(stream_id, [*target.pseudo, *headers], end_stream=not body)
            await self._send_body(stream_id, body)
            await stream.done
        except BaseException:
            if stream.done.cancelled() or not stream.done.done():  # cut short: the others go on
                self._reset(stream_id, h2.errors.ErrorCodes.CANCEL)
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

    async def _send_body(self, stream_id: int, body: bytes) -> None:
        sent = 0
        while sent < len(body):
            if self._writable is not None:  # the transport's buffer is full
                self.flush()
                await self._writable
            window = self.h2.local_flow_control_window(stream_id)
            size = min(window, self.h2.max_outbound_frame_size, len(body) - sent)
            if size <= 0:
                self.flush()
                waiter = self._windows[stream_id] = self.loop.create_future()
                await waiter
                continue
            end = sent + size == len(body)
            self.h2.send_data(stream_id, body[sent : sent + size], end_stream=end)
            sent += size
        self._schedule_flush()

    def _reset(self, stream_id: int, code: h2.errors.ErrorCodes) -> None:
        with contextlib.suppress(h2.exceptions.ProtocolError):
            self.h2.reset_stream(stream_id, code)
        self.flush()

    def _wake(self, stream_id: int) -> None:
        waiter = self._windows.pop(stream_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_all(self) -> None:
        for stream_id in list(self._windows):
            self._wake(stream_id)
        self.resume_writing()

    # -- writing and closing --------------------------------------------------------------

    def _schedule_flush(self) -> None:
        """Write what is pending at the end of this turn of the loop: the streams a turn
        opens share a write (and, over TLS, a record)."""
        if not self._flushing:
            self._flushing = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write what `h2` has pending."""
        self._flushing = False
        data = self.h2.data_to_send()
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _close_when_idle(self) -> None:
        if not self.streams and self.transport is not None and not self.transport.is_closing():
            with contextlib.suppress(h2.exceptions.ProtocolError):  # after the server's GOAWAY
                self.h2.close_connection()
            self.flush()
            self.transport.close()

    async def aclose(self) -> None:
        """Say goodbye (GOAWAY), close, and wait a moment for the transport to end."""
        self.accepting = False
        if self.transport is None:
            return
        if not self.transport.is_closing() and self.alpn in (None, "h2"):
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self.h2.close_connection()
            self.flush()
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
            await asyncio.shield(opening)

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
        return connection

    def forget(self, connection: _Connection) -> None:
        """Drop a connection that has ended."""
        kept = self.connections.get(connection.origin)
        if kept is not None and connection in kept:
            kept.remove(connection)

    async def aclose(self) -> None:
        """Close every connection (a GOAWAY first) and stop opening new ones."""
        self.closed = True
        for task in list(self.opening.values()):
            task.cancel()
        for task in list(self.opening.values()):
            with contextlib.suppress(BaseException):
                connection = await task
                await connection.aclose()
        connections = [c for kept in self.connections.values() for c in kept]
        self.connections.clear()
        await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)


def _response_head(raw: list[tuple[bytes, bytes]]) -> tuple[int, dict[str, str]]:
    """The status and the headers (lowercase names, repeated ones joined) of a response."""
    status = 0
    headers: dict[str, str] = {}
    for name, value in raw:
        if name == b":status":
            status = int(value)
        elif not name.startswith(b":"):
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return status, headers


def _code(code: int | h2.errors.ErrorCodes | None) -> str:
    """An HTTP/2 error code by its name (`CANCEL`), or its number when unknown."""
    if isinstance(code, h2.errors.ErrorCodes):
        return code.name
    return str(code)
