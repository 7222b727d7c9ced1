"""The keep-alive transport against a raw asyncio server answering scripted bytes."""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
from collections.abc import Awaitable, Callable

import httpx
import pytest

from chatassert import LLMRubric
from chatassert.judges import OpenAIJudge
from chatassert.judges._http import _Pools
from chatassert.judges._transport import StreamTransport

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + await reader.readexactly(length)


async def _exchange(
    answer: Answer, requests: int = 1, *, timeout: float = 2.0
) -> tuple[list[httpx.Response | Exception], list[int]]:
    """Serve `answer` for each request; return the responses and the connection of each."""
    connections: list[int] = []
    count = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal count
        conn = len(set(connections)) + 1
        try:
            while True:
                await _read_request(reader)
                connections.append(conn)
                count += 1
                await answer(reader, writer, count)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    out: list[httpx.Response | Exception] = []
    async with httpx.AsyncClient(transport=StreamTransport(ssl.create_default_context())) as c:
        for _ in range(requests):
            try:
                response = await c.post(
                    f"http://127.0.0.1:{port}/v1/x?q=1", json={"a": 1}, timeout=timeout
                )
                await response.aread()
                out.append(response)
            except Exception as exc:
                out.append(exc)
    server.close()
    await server.wait_closed()
    return out, connections


def _reply(body: bytes, *headers: bytes) -> bytes:
    return b"\r\n".join(
        [b"HTTP/1.1 200 OK", b"Content-Length: %d" % len(body), *headers, b"", body]
    )


def test_keep_alive_reuses_one_connection() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        w.write(_reply(b'{"n": %d}' % n))

    out, conns = asyncio.run(_exchange(answer, 3))
    assert [o.json()["n"] for o in out if isinstance(o, httpx.Response)] == [1, 2, 3]
    assert conns == [1, 1, 1]


def test_chunked_gzip_and_connection_close() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        data = gzip.compress(b'{"chunked": true}')
        w.write(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n"
            b"Connection: close\r\n\r\n"
            + b"%x\r\n" % 5
            + data[:5]
            + b"\r\n"
            + b"%x;ext=1\r\n" % (len(data) - 5)
            + data[5:]
            + b"\r\n0\r\nX-T: 1\r\n\r\n"
        )
        w.close()

    out, conns = asyncio.run(_exchange(answer, 2))
    assert [o.json() for o in out if isinstance(o, httpx.Response)] == [{"chunked": True}] * 2
    assert conns == [1, 2]


def test_a_body_without_length_is_read_to_the_end() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        w.write(b"HTTP/1.0 503 Service Unavailable\r\n\r\nbusy")
        w.close()

    [response], _ = asyncio.run(_exchange(answer))
    assert isinstance(response, httpx.Response)
    assert (response.status_code, response.text) == (503, "busy")


def test_a_stale_idle_connection_is_replaced() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        w.write(_reply(b"{}"))
        if n == 1:
            await w.drain()
            w.close()  # closes the idle keep-alive connection behind the client's back

    out, conns = asyncio.run(_exchange(answer, 2))
    assert all(isinstance(o, httpx.Response) for o in out)
    assert conns == [1, 2]


def test_interim_responses_are_skipped_until_the_final_one() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        w.write(
            b"HTTP/1.1 100 Continue\r\n\r\n"
            b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
            + _reply(b'{"n": %d}' % n)
        )

    out, conns = asyncio.run(_exchange(answer, 3))
    assert [(o.status_code, o.json()["n"]) for o in out if isinstance(o, httpx.Response)] == [
        (200, 1),
        (200, 2),
        (200, 3),
    ]
    assert conns == [1, 1, 1]  # each final response was read whole, so the connection is clean


def test_a_connection_is_not_reused_after_switching_protocols() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        if n == 1:
            w.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: other\r\n\r\n")
        else:
            w.write(_reply(b"{}"))

    out, conns = asyncio.run(_exchange(answer, 2))
    assert [o.status_code for o in out if isinstance(o, httpx.Response)] == [101, 200]
    assert conns == [1, 2]


def test_an_early_hint_never_hands_a_verdict_to_the_next_request() -> None:
    def completion(passed: bool, reason: str) -> bytes:
        content = json.dumps({"passed": passed, "score": float(passed), "reason": reason})
        message = {"role": "assistant", "content": content}
        return json.dumps({"choices": [{"index": 0, "message": message}]}).encode()

    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        if n == 1:  # an interim 103, then the real verdict
            w.write(b"HTTP/1.1 103 Early Hints\r\n\r\n" + _reply(completion(True, "first")))
        else:
            w.write(_reply(completion(False, "second")))

    async def serve_and_check() -> list[tuple[str, str]]:
        connections: list[int] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    await _read_request(reader)
                    connections.append(1)
                    await answer(reader, writer, len(connections))
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        judge = OpenAIJudge("m", base_url=f"http://127.0.0.1:{port}/v1", retries=0, timeout=2)
        rubric = LLMRubric("Is fine", judge=judge)
        try:
            results = [await rubric.acheck("good answer"), await rubric.acheck("bad answer")]
        finally:
            await judge.aclose()
            server.close()
            await server.wait_closed()
        return [(r.status.value, r.reason) for r in results]

    assert asyncio.run(serve_and_check()) == [("passed", "first"), ("failed", "second")]


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b"", httpx.RemoteProtocolError),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", httpx.RemoteProtocolError),
        (b"SPDY/9 what\r\n\r\n", httpx.RemoteProtocolError),
        (b"HTTP/1.1 200 OK\r\nno-colon-here\r\n\r\n", httpx.RemoteProtocolError),
    ],
    ids=["dropped", "truncated", "bad-status", "bad-header"],
)
def test_broken_replies_raise_transport_errors(payload: bytes, error: type[Exception]) -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        w.write(payload)
        await w.drain()
        w.close()

    [outcome], _ = asyncio.run(_exchange(answer))
    assert isinstance(outcome, error)


def test_a_slow_reply_is_a_read_timeout() -> None:
    async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter, n: int) -> None:
        await asyncio.sleep(0.3)

    [outcome], _ = asyncio.run(_exchange(answer, timeout=0.05))
    assert isinstance(outcome, httpx.ReadTimeout)


def test_proxy_variables_select_httpx_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    context = ssl.create_default_context()
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert not isinstance(_Pools(context).client._transport, StreamTransport)
    monkeypatch.delenv("HTTPS_PROXY")
    for name in ("https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert isinstance(_Pools(context).client._transport, StreamTransport)
