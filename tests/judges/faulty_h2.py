"""HTTP/2 judge servers on 127.0.0.1 for the tests: a misbehaving one built on `h2` and a
well-behaved one (hypercorn serving a small ASGI app), both over TLS with a certificate from a
certificate authority made for the test (`trustme`).

`FaultyH2Server` is `faulty.FaultyServer` over HTTP/2: each request's prompt carries a tag
(`ITEM-<n>`), the verdict it deserves is `faulty.expected(n)`, and a seeded share of the
answers goes wrong in one of the ways HTTP/2 allows: a stale second answer on the stream just
answered (in the same packet, or once the client has acknowledged a PING sent behind the
answer, so after it read the answer, while other streams may be in flight), a reset of
the stream (`RST_STREAM`), a reset of the whole connection with every stream on it, a body cut
short by a dropped connection, or interim 1xx responses first. Faults chosen by name only
(`faults=` or a `script` of the answers in order) cover what a client must survive without
losing a request: a stream refused before processing (`REFUSED_STREAM`), a `GOAWAY` that left
the stream unprocessed, no answer at all (`silent`), headers and then nothing (`stall`), a
good verdict padded past the stream's flow-control window (`large`, sent as the client's
window updates allow), and answers in frames a client meets rarely (`_WELL_FORMED`). It counts
what the client did: the streams it reset, the PINGs it answered and the `GOAWAY` it sent
before closing.

`HypercornServer` counts what a client made of it: requests, the HTTP versions they came over,
and the connections they came on (by the client's port). Run as a script (`python faulty_h2.py
--delay 0.05 --folder DIR [--server hypercorn|h2]`) either serves good verdicts over TLS in a
process of its own, answering after the delay, writes its authority's certificate to DIR,
prints its base URL, and reports how many requests it received (and its CPU time) at `GET /count`
(used by the benchmark).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import random
import socket
import ssl
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
import trustme
from faulty import TAG, expected
from hyperframe.frame import DataFrame, GoAwayFrame, HeadersFrame
from loopback import serving_script

H2_FAULTS = ("double", "double_later", "reset_stream", "reset", "truncate", "interim")
"""The faults a random share of the answers gets by default."""

_WELL_FORMED = ("padded", "continuation", "ping", "unknown", "graceful", "short", "stray")
"""Answers in frames a client meets rarely: padded DATA, a header block continued past a
frame, a PING first, an extension frame first, a GOAWAY keeping the stream first; and two
that break the protocol: a body short of its Content-Length, DATA on a stream never opened."""

H2_NAMED_FAULTS = ("refuse", "goaway", "silent", "stall", "large", *_WELL_FORMED)
"""Faults given by name only (`faults=` or `script=`)."""


class Authority:
    """A certificate authority made for a test, and a certificate it issued for 127.0.0.1.

    `ca_file` is the authority's certificate, for `SSL_CERT_FILE`; `server_context` serves
    the certificate, offering `alpn` (HTTP/2 first).
    """

    def __init__(self, folder: Path) -> None:
        self.ca = trustme.CA()
        self.cert = self.ca.issue_cert("127.0.0.1")
        self.ca_file = folder / "test-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.key_file = folder / "server.pem"
        self.cert.private_key_and_cert_chain_pem.write_to_path(str(self.key_file))

    def server_context(self, alpn: Sequence[str] = ("h2", "http/1.1")) -> ssl.SSLContext:
        """A server-side TLS context with the certificate, offering `alpn`."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.cert.configure_cert(context)
        context.set_alpn_protocols(list(alpn))
        return context


def _verdict_body(passed: bool, reason: str, padding: int = 0) -> bytes:
    content = json.dumps({"passed": passed, "score": 1.0 if passed else 0.0, "reason": reason})
    body: dict[str, Any] = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]
    }
    if padding:
        body["padding"] = "x" * padding
    return json.dumps(body).encode()


def _method(headers: Sequence[tuple[bytes | str, bytes | str]]) -> str:
    """A request's `:method` (h2 gives the headers as text here, whatever its stubs say)."""
    for name, value in headers:
        if name in (":method", b":method"):
            return value.decode() if isinstance(value, bytes) else value
    return ""


def _head(body: bytes) -> list[tuple[str, str]]:
    return [
        (":status", "200"),
        ("content-type", "application/json"),
        ("content-length", str(len(body))),
    ]


class _Thread:
    """An asyncio loop in a daemon thread, running a server until `stop()`."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.port = 0

    def run(self, start: Callable[[], Any], finish: Callable[[], Any]) -> None:
        ready = threading.Event()

        def main() -> None:
            loop = asyncio.new_event_loop()
            self.loop = loop
            self.port = loop.run_until_complete(start())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(finish())
            loop.close()

        self.thread = threading.Thread(target=main, daemon=True)
        self.thread.start()
        if not ready.wait(10):
            raise RuntimeError("the test server did not start within 10 s")

    def stop(self) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self.thread is not None:
            self.thread.join(10)


class FaultyH2Server:
    """Serve verdicts over HTTP/2 and TLS, injecting one of `faults` into a `rate` share.

    `delay` answers every request after that many seconds (no faults: a timer, no task);
    `max_streams` is the SETTINGS_MAX_CONCURRENT_STREAMS it announces; `goaway_at_once` closes
    every connection right after its SETTINGS, as a server shutting down does.
    """

    def __init__(
        self,
        authority: Authority,
        *,
        rate: float = 0.2,
        faults: Sequence[str] = H2_FAULTS,
        seed: int = 7,
        script: Sequence[str] = (),
        padding: int = 200_000,
        delay: float | None = None,
        max_streams: int | None = None,
        goaway_at_once: bool = False,
    ) -> None:
        self.authority = authority
        self.delay = delay
        self.max_streams = max_streams
        self.goaway_at_once = goaway_at_once
        self.rate = rate
        self.faults = tuple(faults)
        self.random = random.Random(seed)
        self.script = list(script)
        self.padding = padding
        self.injected: Counter[str] = Counter()
        self.requests = 0
        self.connections = 0
        self.ended = 0  # connections closed, by either side
        self.cancelled = 0  # streams the client reset
        self.goodbyes = 0  # GOAWAY frames the client sent
        self.pongs = 0  # PINGs the client answered
        self._runner = _Thread()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._windows: dict[h2.connection.H2Connection, asyncio.Event] = {}
        # a `double_later` stale answer waits for the client's acknowledgement of a PING sent
        # after the real answer: by then the client has read the answer, whatever the load
        self._acknowledged: dict[bytes, asyncio.Event] = {}

    @property
    def url(self) -> str:
        """The base URL, for `OpenAIJudge(base_url=...)`."""
        return f"https://127.0.0.1:{self._runner.port}/v1"

    def start(self) -> str:
        """Start serving in a background thread; return the base URL."""
        context = self.authority.server_context(alpn=("h2",))

        async def start() -> int:
            self._server = await asyncio.start_server(
                self._serve, "127.0.0.1", 0, ssl=context, backlog=512
            )
            port: int = self._server.sockets[0].getsockname()[1]
            return port

        async def finish() -> None:
            assert self._server is not None
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        self._runner.run(start, finish)
        return self.url

    def stop(self) -> None:
        """Stop the server and join its thread."""
        self._runner.stop()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        conn = h2.connection.H2Connection(config=config)
        if self.max_streams is not None:
            limit = {h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.max_streams}
            conn.local_settings = h2.settings.Settings(client=False, initial_values=limit)
        conn.initiate_connection()
        if self.goaway_at_once:  # a server shutting down: settings, then goodbye
            conn.close_connection()
        writer.write(conn.data_to_send())
        bodies: dict[int, bytearray] = {}
        answers: set[asyncio.Task[None]] = set()
        timers: list[asyncio.TimerHandle] = []
        loop = asyncio.get_running_loop()
        windows = asyncio.Event()  # set when the client opens a flow-control window
        self._windows[conn] = windows
        try:
            while data := await reader.read(65536):
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.WindowUpdated | h2.events.StreamReset):
                        windows.set()
                    if isinstance(event, h2.events.StreamReset):
                        self.cancelled += 1
                    elif isinstance(event, h2.events.PingAckReceived):
                        self.pongs += 1
                        waiting = self._acknowledged.get(event.ping_data)
                        if waiting is not None:
                            waiting.set()
                    elif isinstance(event, h2.events.RequestReceived):
                        if _method(event.headers) == "GET":  # GET /count
                            seen = {"count": self.requests, "cpu": time.process_time()}
                            count = json.dumps(seen).encode()
                            conn.send_headers(event.stream_id, _head(count))
                            conn.send_data(event.stream_id, count, end_stream=True)
                        else:
                            bodies[event.stream_id] = bytearray()
                    elif isinstance(event, h2.events.DataReceived):
                        bodies[event.stream_id] += event.data
                        conn.acknowledge_received_data(
                            event.flow_controlled_length, event.stream_id
                        )
                    elif isinstance(event, h2.events.StreamEnded):
                        if event.stream_id not in bodies:  # answered already (GET /count)
                            continue
                        body = bytes(bodies.pop(event.stream_id))
                        if self.delay is not None and not self.rate and not self.script:
                            # No fault to inject: a timer answers, with no task of its own.
                            later = functools.partial(
                                self._answer_well, conn, writer, event.stream_id, body
                            )
                            timers.append(loop.call_later(self.delay, later))
                            continue
                        answer = asyncio.ensure_future(
                            self._answer(conn, writer, event.stream_id, body)
                        )
                        answers.add(answer)
                        answer.add_done_callback(answers.discard)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        self.goodbyes += 1
                        return
                writer.write(conn.data_to_send())
                await writer.drain()
        except (ConnectionError, ssl.SSLError, h2.exceptions.ProtocolError):
            pass
        finally:
            for answer in list(answers):
                answer.cancel()
            for timer in timers:
                timer.cancel()
            writer.transport.abort()
            self._windows.pop(conn, None)
            self.ended += 1
            self._tasks.discard(task)

    def _answer_well(
        self,
        conn: h2.connection.H2Connection,
        writer: asyncio.StreamWriter,
        stream: int,
        request: bytes,
    ) -> None:
        """Answer `request` with the verdict it deserves, at once."""
        _, good = self._received(request)
        self.injected["ok"] += 1
        try:
            conn.send_headers(stream, _head(good))
            conn.send_data(stream, good, end_stream=True)
        except h2.exceptions.ProtocolError:  # the client reset the stream or left
            return
        if not writer.transport.is_closing():
            writer.write(conn.data_to_send())

    def _received(self, request: bytes) -> tuple[int, bytes]:
        """Count `request`: its tag (-1 when it has none) and the verdict it deserves."""
        self.requests += 1
        match = TAG.search(request.decode("utf-8", "replace"))
        tag = int(match.group(1)) if match else -1
        return tag, _verdict_body(expected(tag), f"item {tag}")

    def _fault(self) -> str:
        if self.script:
            return self.script.pop(0)
        return self.random.choice(self.faults) if self.random.random() < self.rate else "ok"

    async def _send_flowing(
        self,
        conn: h2.connection.H2Connection,
        writer: asyncio.StreamWriter,
        stream: int,
        body: bytes,
    ) -> None:
        """Send `body` on `stream` as the client's flow-control windows allow, then end it."""
        windows = self._windows[conn]
        while body:
            window = conn.local_flow_control_window(stream)
            size = min(window, conn.max_outbound_frame_size, len(body))
            if size <= 0:
                windows.clear()
                await windows.wait()
                continue
            conn.send_data(stream, body[:size], end_stream=size == len(body))
            body = body[size:]
            writer.write(conn.data_to_send())
            await writer.drain()

    async def _answer(
        self,
        conn: h2.connection.H2Connection,
        writer: asyncio.StreamWriter,
        stream: int,
        request: bytes,
    ) -> None:
        tag, good = self._received(request)
        fault = self._fault()
        self.injected[fault] += 1
        await asyncio.sleep(self.random.random() * 0.003 if self.delay is None else self.delay)
        try:
            if fault in ("silent", "stall"):  # no answer, or headers and no body: never ends
                if fault == "stall":
                    conn.send_headers(stream, _head(good))
                    writer.write(conn.data_to_send())
                return
            if fault == "large":
                large = _verdict_body(expected(tag), f"item {tag}", self.padding)
                conn.send_headers(stream, _head(large))
                await self._send_flowing(conn, writer, stream, large)
                return
            if fault == "refuse":  # before processing: the client may send it again
                conn.reset_stream(stream, h2.errors.ErrorCodes.REFUSED_STREAM)
                writer.write(conn.data_to_send())
                return
            if fault == "goaway":  # this stream and later ones left unprocessed
                conn.close_connection(last_stream_id=max(stream - 2, 0))
                writer.write(conn.data_to_send())
                await writer.drain()
                writer.transport.abort()
                return
            if fault == "reset":
                writer.transport.abort()  # every stream of the connection goes with it
                return
            if fault in _WELL_FORMED:  # a good verdict, in frames a client rarely meets
                writer.write(self._well_formed(fault, conn, stream, good))
                await writer.drain()
                return
            if fault == "reset_stream":
                conn.reset_stream(stream, h2.errors.ErrorCodes.INTERNAL_ERROR)
            elif fault == "truncate":
                conn.send_headers(stream, _head(good))
                conn.send_data(stream, good[: len(good) - 20])
                writer.write(conn.data_to_send())
                await writer.drain()
                writer.transport.abort()
                return
            else:
                if fault == "interim":
                    conn.send_headers(stream, [(":status", "103"), ("link", "</hint>")])
                    conn.send_headers(stream, [(":status", "100")])
                conn.send_headers(stream, _head(good))
                conn.send_data(stream, good, end_stream=True)
                if fault in ("double", "double_later"):
                    if fault == "double_later":
                        # a PING after the answer: its acknowledgement says the client has read
                        # the answer, so the stale one comes apart from it whatever the load
                        opaque = stream.to_bytes(4, "big") + self.random.randbytes(4)
                        acknowledged = self._acknowledged[opaque] = asyncio.Event()
                        conn.ping(opaque)
                        writer.write(conn.data_to_send())
                        await writer.drain()
                        with contextlib.suppress(TimeoutError):  # a connection gone: moot
                            await asyncio.wait_for(acknowledged.wait(), 5.0)
                        self._acknowledged.pop(opaque, None)
                    stale = _verdict_body(not expected(tag), f"stale answer to item {tag}")
                    writer.write(conn.data_to_send() + self._stale(conn, stream, stale))
                    await writer.drain()
                    return
            writer.write(conn.data_to_send())
            await writer.drain()
        except (ConnectionError, h2.exceptions.ProtocolError):
            pass

    @staticmethod
    def _well_formed(
        fault: str, conn: h2.connection.H2Connection, stream: int, good: bytes
    ) -> bytes:
        """The bytes that answer `stream` with `good` as `fault` has it (see `_WELL_FORMED`)."""
        before = b""
        head = _head(good)
        if fault == "ping":
            conn.ping(b"chatasrt")
        elif fault == "unknown":  # an extension frame (type 0xFA): skipped, RFC 9113 4.1
            before = b"\x00\x00\x05\xfa\x00\x00\x00\x00\x00hello"
        elif fault == "graceful":  # GOAWAY keeping this stream, then its answer
            before = GoAwayFrame(0, last_stream_id=stream).serialize()
        elif fault == "continuation":  # past a frame: HEADERS, then CONTINUATION
            head.append(("x-filler", "f" * 40_000))
        elif fault == "short":  # a body that ends short of its Content-Length
            head = [*head[:-1], ("content-length", str(len(good) + 10))]
        elif fault == "stray":  # DATA on a stream the client never opened
            before = DataFrame(stream + 100, data=b"stray").serialize()
        conn.send_headers(stream, head)
        conn.send_data(stream, good, end_stream=True, pad_length=20 if fault == "padded" else None)
        return before + conn.data_to_send()

    @staticmethod
    def _stale(conn: h2.connection.H2Connection, stream: int, body: bytes) -> bytes:
        """A whole second answer on `stream`, already ended: frames `h2` would refuse to send."""
        block = conn.encoder.encode(_head(body))
        headers = HeadersFrame(stream, data=block, flags=["END_HEADERS"])
        data = DataFrame(stream, data=body, flags=["END_STREAM"])
        return bytes(headers.serialize() + data.serialize())


class HypercornServer:
    """hypercorn on 127.0.0.1 serving verdicts after `delay` seconds, counting what it saw.

    Over TLS (`authority`) it offers `alpn` (HTTP/2 and HTTP/1.1 by default); without it, it
    serves plain HTTP/1.1 and HTTP/2 with prior knowledge; an HTTP/2 connection carries at most
    `max_streams` streams at once. `versions` counts the requests by HTTP version, `clients` by
    the client's (host, port): one entry per connection; `headers` holds each request's
    headers, `bodies` the size of each request's body.
    """

    def __init__(
        self,
        authority: Authority | None = None,
        *,
        alpn: Sequence[str] = ("h2", "http/1.1"),
        delay: float = 0.0,
        max_streams: int = 100,
    ) -> None:
        self.authority = authority
        self.alpn = tuple(alpn)
        self.delay = delay
        self.max_streams = max_streams
        self.versions: Counter[str] = Counter()
        self.clients: Counter[tuple[str, int]] = Counter()
        self.headers: list[list[tuple[bytes, bytes]]] = []
        self.bodies: list[int] = []
        self._runner = _Thread()
        self._stopped: asyncio.Event | None = None
        self._served: asyncio.Future[None] | None = None

    @property
    def requests(self) -> int:
        """How many requests the server answered."""
        return sum(self.versions.values())

    @property
    def url(self) -> str:
        """The base URL, for `OpenAIJudge(base_url=...)`."""
        scheme = "https" if self.authority is not None else "http"
        return f"{scheme}://127.0.0.1:{self._runner.port}/v1"

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The ASGI app: a good verdict for every POST, naming the tag of its prompt."""
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["method"] == "GET" and scope["path"] == "/count":
            seen = {"count": self.requests, "cpu": time.process_time()}
            count = json.dumps(seen).encode()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": count})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.versions[scope["http_version"]] += 1
        self.clients[tuple(scope["client"])] += 1
        self.headers.append(list(scope["headers"]))
        self.bodies.append(len(body))
        match = TAG.search(body.decode("utf-8", "replace"))
        tag = int(match.group(1)) if match else 1
        await asyncio.sleep(self.delay)
        payload = _verdict_body(expected(tag), f"item {tag}")
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    def start(self) -> str:
        """Start serving in a background thread; return the base URL."""
        from hypercorn.asyncio import serve
        from hypercorn.config import Config

        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(512)
        config = Config()
        config.bind = [f"fd://{listener.fileno()}"]
        config.alpn_protocols = list(self.alpn)
        config.h2_max_concurrent_streams = self.max_streams
        config.accesslog = config.errorlog = None
        if self.authority is not None:
            config.certfile = config.keyfile = str(self.authority.key_file)

        async def start() -> int:
            self._stopped = asyncio.Event()
            self._served = asyncio.ensure_future(
                serve(self.app, config, shutdown_trigger=self._stopped.wait)  # type: ignore[arg-type]
            )
            port: int = listener.getsockname()[1]
            return port

        async def finish() -> None:
            assert self._stopped is not None
            assert self._served is not None
            self._stopped.set()
            await self._served
            with contextlib.suppress(OSError):  # hypercorn may have closed it
                listener.close()

        self._runner.run(start, finish)
        return self.url

    def stop(self) -> None:
        """Stop the server and join its thread."""
        self._runner.stop()


@contextlib.contextmanager
def started(make: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """A function that builds a server with `make`, starts it and returns it; every server it
    started is stopped when the block ends (what the tests' server fixtures yield)."""
    servers: list[Any] = []

    def start(*args: Any, **options: Any) -> Any:
        server = make(*args, **options)
        servers.append(server)
        server.start()
        return server

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


@contextlib.contextmanager
def serving(delay: float, folder: Path, server: str = "hypercorn") -> Iterator[str]:
    """Run this script as an HTTP/2 server over TLS in a process of its own, answering after
    `delay` seconds, its authority's certificate written to `folder / "test-ca.pem"`; yield
    its base URL. `server` is `hypercorn` or `h2` (`FaultyH2Server` without faults)."""
    args = ("--delay", str(delay), "--folder", str(folder), "--server", server)
    with serving_script(__file__, *args) as url:
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--server", choices=("hypercorn", "h2"), default="hypercorn")
    args = parser.parse_args()
    server: HypercornServer | FaultyH2Server
    if args.server == "h2":
        server = FaultyH2Server(Authority(args.folder), rate=0, delay=args.delay)
    else:
        server = HypercornServer(Authority(args.folder), delay=args.delay)
    print(server.start(), flush=True)
    try:
        sys.stdin.read()  # serve until the parent closes our stdin
    finally:
        server.stop()


if __name__ == "__main__":
    main()
