"""A raw HTTP/1.1 judge server on 127.0.0.1 that misbehaves on purpose, request by request.

Each request's prompt carries a tag (`ITEM-<n>`); the verdict it deserves is computed from the
tag (`expected(n)`), and its reason names the tag, so a client can tell whether every verdict
reached the request it belongs to. A seeded choice of fault per request exercises the keep-alive
cases a well-behaved test server never shows: a second, stale answer right after the first (in
the same packet or a moment later), a reset before answering, interim 1xx responses, and a body
cut short.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from collections import Counter
from collections.abc import Sequence

TAG = re.compile(r"ITEM-(\d+)")

FAULTS = ("double", "double_later", "reset", "interim", "continue", "truncate")


def expected(tag: int) -> bool:
    """The verdict the item tagged `tag` deserves: every third one fails."""
    return tag % 3 != 0


def _response(status: int, payload: bytes, extra: str = "") -> bytes:
    head = (
        f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n{extra}\r\n"
    )
    return head.encode() + payload


def _verdict(passed: bool, reason: str) -> bytes:
    content = json.dumps({"passed": passed, "score": 1.0 if passed else 0.0, "reason": reason})
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    return json.dumps(body).encode()


class FaultyServer:
    """Serve verdicts, injecting one of `faults` into a `rate` share of the answers."""

    def __init__(self, *, rate: float = 0.2, faults: Sequence[str] = FAULTS, seed: int = 7) -> None:
        self.rate = rate
        self.faults = tuple(faults)
        self.random = random.Random(seed)
        self.injected: Counter[str] = Counter()
        self.requests = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL, for `OpenAIJudge(base_url=...)`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> str:
        """Start serving in a background thread; return the base URL."""
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._server = loop.run_until_complete(
                asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512)
            )
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(5)
        return self.url

    def stop(self) -> None:
        """Stop the server and join its thread."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                self.requests += 1
                match = TAG.search(body.decode())
                tag = int(match.group(1)) if match else -1
                good = _response(200, _verdict(expected(tag), f"item {tag}"))
                fault = (
                    self.random.choice(self.faults) if self.random.random() < self.rate else "ok"
                )
                self.injected[fault] += 1
                await asyncio.sleep(self.random.random() * 0.003)
                if fault == "reset":
                    writer.transport.abort()
                    return
                if fault == "truncate":
                    writer.write(good[: len(good) - 20])
                    await writer.drain()
                    writer.close()
                    return
                stale = _response(200, _verdict(not expected(tag), f"stale answer to item {tag}"))
                if fault == "double":
                    writer.write(good + stale)  # one packet: the stale answer is already read
                elif fault == "double_later":
                    writer.write(good)
                    await writer.drain()
                    await asyncio.sleep(0.002)
                    writer.write(stale)
                elif fault == "interim":
                    writer.write(b"HTTP/1.1 103 Early Hints\r\nLink: </hint>; rel=preload\r\n\r\n")
                    await writer.drain()
                    writer.write(good)
                elif fault == "continue":
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n" + good)
                else:
                    writer.write(good)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()


def passing_reply(size: int = 0) -> bytes:
    """A whole HTTP response carrying a passing verdict, its reason padded to make the
    response about `size` bytes long."""
    payload = _verdict(True, "paced")
    if len(payload) < size:
        payload = _verdict(True, "paced " + "." * (size - len(payload)))
    return _response(200, payload)


class PacedServer:
    """A judge server on 127.0.0.1 that takes its time over the bytes of its answer.

    Each connection's request is read whole; then the answer goes out `chunk` bytes at a time
    with `pace` seconds between chunks: the head first (at once, unless `slow_head`), then the
    body. `answer` is the whole response (`passing_reply()` by default); with `endless=True`
    the head promises no length and the body never ends (`{"choices": [` and then spaces).
    Every answer ends after `limit` bytes or `seconds` seconds, whichever comes first, and
    `stop()` ends what is left. `opened` counts connections, `hung_up` those the client closed
    before the answer was over, `sent` the body bytes written in all.
    """

    def __init__(
        self,
        *,
        pace: float,
        chunk: int = 1,
        answer: bytes | None = None,
        endless: bool = False,
        slow_head: bool = False,
        limit: int = 64 * 1024 * 1024,
        seconds: float = 300.0,
    ) -> None:
        self.pace, self.chunk, self.limit, self.seconds = pace, chunk, limit, seconds
        self.endless, self.slow_head = endless, slow_head
        self.answer = passing_reply() if answer is None else answer
        self.opened = 0
        self.hung_up = 0
        self.sent = 0
        self._changed = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL, for `OpenAIJudge(base_url=...)`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> str:
        """Start serving in a background thread; return the base URL."""
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            server = loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()

            async def finish() -> None:
                server.close()
                for task in list(self._tasks):
                    task.cancel()
                await asyncio.gather(*self._tasks, return_exceptions=True)
                await server.wait_closed()

            loop.run_until_complete(finish())
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(5)
        return self.url

    def stop(self) -> None:
        """Stop the server, end every answer still going out, and join its thread."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def wait_hung_up(self, count: int, timeout: float = 30.0) -> int:
        """Wait until the client has closed `count` connections (or `timeout` passes)."""
        with self._changed:
            self._changed.wait_for(lambda: self.hung_up >= count, timeout=timeout)
            return self.hung_up

    def _count(self, name: str, by: int = 1) -> None:
        with self._changed:
            setattr(self, name, getattr(self, name) + by)
            self._changed.notify_all()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._count("opened")
        gone: asyncio.Future[bytes] | None = None
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            gone = asyncio.ensure_future(reader.read())  # b"" once the client closes
            gone.add_done_callback(lambda f: f.cancelled() or f.exception())
            if self.endless:
                start, body = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b'{"choices": ['
            else:
                start, _, body = self.answer.partition(b"\r\n\r\n")
                start += b"\r\n\r\n"
            if self.slow_head:
                body, start = start + body, b""
            writer.write(start)
            await writer.drain()
            written, finished = 0, False
            loop = asyncio.get_running_loop()
            end = loop.time() + self.seconds
            while written < self.limit and loop.time() < end and not gone.done():
                piece = body[written : written + self.chunk] or b" " * self.chunk
                writer.write(piece)
                await writer.drain()
                written += len(piece)
                self._count("sent", len(piece))
                if not self.endless and written >= len(body):
                    finished = True
                    break
                await asyncio.wait({gone}, timeout=self.pace)  # a pause the client can cut short
            if gone.done() and not finished:
                self._count("hung_up")
        except (asyncio.IncompleteReadError, ConnectionError):
            self._count("hung_up")
        finally:
            if gone is not None:
                gone.cancel()
            self._tasks.discard(task)
            writer.close()
