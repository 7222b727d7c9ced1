"""A lean HTTP/1.1 keep-alive transport for httpx over asyncio streams.

httpcore's connection pool spends time proportional to its connections times its waiting
requests on every request, which at a few dozen concurrent judge requests costs more than the
requests themselves. Judges send small JSON POSTs and read small JSON replies, so this transport
keeps a plain stack of idle connections per origin and parses the response itself (fixed length,
chunked, or until close). httpx still builds the request and decodes the response (including
content encodings); proxies are not supported here, so judges use httpx's own transport when
proxy variables are set.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator

import httpx

__all__ = ["StreamTransport"]

_Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]
_MAX_HEADER = 64 * 1024
_MAX_INTERIM = 32  # interim (1xx) responses skipped before one request's final response


class StreamTransport(httpx.AsyncBaseTransport):
    """An httpx transport: HTTP/1.1 with keep-alive over asyncio streams (no proxies, no HTTP/2).

    Args:
        context: The TLS context for `https` URLs.
        max_idle: The most idle connections kept per origin.
    """

    def __init__(self, context: ssl.SSLContext, *, max_idle: int = 128) -> None:
        self._ssl = context
        self._max_idle = max_idle
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request` on an idle (or new) connection and read the whole response."""
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        origin = (url.scheme, url.host, port)
        timeouts = request.extensions.get("timeout", {})
        body = await request.aread()
        target = url.raw_path
        lines = [b"%s %s HTTP/1.1" % (request.method.encode(), target)]
        if "host" not in request.headers:
            lines.append(b"Host: " + url.netloc)
        lines.extend(b"%s: %s" % (k, v) for k, v in request.headers.raw)
        if body and "content-length" not in request.headers:
            lines.append(b"Content-Length: %d" % len(body))
        payload = b"\r\n".join(lines) + b"\r\n\r\n" + body
        for attempt in range(2):
            conn, reused = self._take(origin)
            if conn is None:
                conn = await self._connect(origin, timeouts.get("connect"))
            try:
                status, headers, content, keep = await _with_timeout(
                    self._exchange(conn, payload, request.method), timeouts.get("read")
                )
            except _StaleConnectionError:
                _close(conn)
                if reused and attempt == 0:  # the server closed an idle connection: reconnect
                    continue
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                ) from None
            except BaseException:
                _close(conn)
                raise
            if keep and not self._closed:
                self._give(origin, conn)
            else:
                _close(conn)
            return httpx.Response(
                status, headers=headers, stream=httpx.ByteStream(content), request=request
            )
        raise AssertionError("unreachable")  # pragma: no cover

    def _take(self, origin: tuple[str, str, int]) -> tuple[_Conn | None, bool]:
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if not conn[1].is_closing() and not conn[0].at_eof():
                return conn, True
            _close(conn)
        return None, False

    def _give(self, origin: tuple[str, str, int], conn: _Conn) -> None:
        idle = self._idle.setdefault(origin, [])
        if len(idle) < self._max_idle:
            idle.append(conn)
        else:
            _close(conn)

    async def _connect(self, origin: tuple[str, str, int], timeout: float | None) -> _Conn:
        scheme, host, port = origin
        try:
            async with asyncio.timeout(timeout):
                if scheme == "https":
                    return await asyncio.open_connection(
                        host, port, ssl=self._ssl, server_hostname=host
                    )
                return await asyncio.open_connection(host, port)
        except TimeoutError:
            raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
        except OSError as exc:
            raise httpx.ConnectError(f"cannot connect to {host}:{port}: {exc}") from None

    async def _exchange(
        self, conn: _Conn, payload: bytes, method: str
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes, bool]:
        reader, writer = conn
        try:
            writer.write(payload)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            if isinstance(exc, asyncio.IncompleteReadError) and exc.partial:
                raise httpx.RemoteProtocolError(
                    "the server closed the connection mid-response"
                ) from None
            raise _StaleConnectionError from None
        except asyncio.LimitOverrunError:
            raise httpx.RemoteProtocolError("response headers too long") from None
        interim = 0
        while True:
            status, http11, headers = _parse_head(head)
            if not 100 <= status < 200 or status == 101:
                break
            # An interim response (100 Continue, 103 Early Hints, ...): the final one follows.
            interim += 1
            if interim > _MAX_INTERIM:
                raise httpx.RemoteProtocolError("too many interim (1xx) responses")
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                raise httpx.RemoteProtocolError(
                    "the server closed the connection mid-response"
                ) from None
            except asyncio.LimitOverrunError:
                raise httpx.RemoteProtocolError("response headers too long") from None
        lowered = {k.lower(): v for k, v in headers}
        # A connection that switched protocols (101) is not HTTP/1.1 any more: never reuse it.
        keep = http11 and status != 101 and lowered.get(b"connection", b"").lower() != b"close"
        try:
            if method == "HEAD" or status in (101, 204, 304):
                content = b""
            elif b"chunked" in lowered.get(b"transfer-encoding", b"").lower():
                content = b"".join([chunk async for chunk in _chunks(reader)])
            elif b"content-length" in lowered:
                content = await reader.readexactly(int(lowered[b"content-length"]))
            else:
                content, keep = await reader.read(), False
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            raise httpx.RemoteProtocolError(
                "the server closed the connection mid-response"
            ) from None
        # The body is already decoded from its transfer coding.
        headers = [(k, v) for k, v in headers if k.lower() != b"transfer-encoding"]
        return status, headers, content, keep

    async def aclose(self) -> None:
        """Close every idle connection."""
        self._closed = True
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                _close(conn)
                with contextlib.suppress(Exception):
                    await conn[1].wait_closed()


def _parse_head(head: bytes) -> tuple[int, bool, list[tuple[bytes, bytes]]]:
    """Parse a response head: its status, whether it is HTTP/1.1, and its header lines."""
    status_line, *header_lines = head[:-4].split(b"\r\n")
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError(f"bad status line {status_line[:80]!r}")
    headers: list[tuple[bytes, bytes]] = []
    for line in header_lines:
        name, sep, value = line.partition(b":")
        if not sep:
            raise httpx.RemoteProtocolError(f"bad header line {line[:80]!r}")
        headers.append((name.strip(), value.strip()))
    return int(parts[1]), parts[0] == b"HTTP/1.1", headers


class _StaleConnectionError(Exception):
    """The connection closed before any response byte arrived."""


def _close(conn: _Conn) -> None:
    with contextlib.suppress(Exception):
        conn[1].close()


async def _with_timeout(
    coro: object, timeout: float | None
) -> tuple[int, list[tuple[bytes, bytes]], bytes, bool]:
    try:
        async with asyncio.timeout(timeout):
            return await coro  # type: ignore[no-any-return, misc]
    except TimeoutError:
        raise httpx.ReadTimeout("the server did not answer in time") from None


async def _chunks(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return
        yield await reader.readexactly(size)
        await reader.readuntil(b"\r\n")
