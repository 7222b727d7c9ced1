"""The judges' HTTP/2 client (`chatassert.judges._h2`): what a stream and a connection survive,
against HTTP/2 servers on 127.0.0.1 (`faulty_h2`: hypercorn, and one that misbehaves)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from faulty import expected
from faulty_h2 import Authority, FaultyH2Server, HypercornServer
from hpack import Decoder
from hypothesis import given, strategies as st
from loopback import SECRET

from chatassert import LLMRubric, Result
from chatassert.judges import OpenAIJudge, _h2, check_many


def _check(url: str, count: int, concurrency: int = 1, **options: Any) -> list[Result]:
    settings = {"timeout": 10.0, "retries": 0, **options}
    judge = OpenAIJudge("m", base_url=url, **settings)
    rubric = LLMRubric("The reply answers the question", judge=judge)
    subjects = [f"Answer for ITEM-{i}." for i in range(count)]
    return asyncio.run(check_many(rubric, subjects, concurrency=concurrency))


def _right(result: Result, item: int) -> bool:
    return (
        result.status != "error"
        and result.passed == expected(item)
        and (result.reason == f"item {item}")
    )


def _wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether `condition` holds within `seconds` (another thread is on its way to it)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


# -- header blocks ---------------------------------------------------------------------------

_names = st.sampled_from(
    [b"content-type", b"authorization", b"user-agent", b"accept-encoding", b"x-route", b"x-" * 70]
)
_values = st.binary(min_size=0, max_size=300).filter(lambda v: b"\n" not in v) | st.sampled_from(
    [b"gzip, deflate", b"application/json", b""]
)


@given(
    blocks=st.lists(
        st.tuples(
            st.lists(st.tuples(_names, _values), max_size=8),
            st.lists(st.integers(0, 70_000), max_size=3),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_header_blocks_decode_to_the_headers_sent_and_leave_the_table_empty(
    blocks: list[tuple[list[tuple[bytes, bytes]], list[int]]],
) -> None:
    encoder, decoder = _h2._Encoder(), Decoder()
    decoder.max_allowed_table_size = 1 << 20
    for fields, sizes in blocks:
        for size in sizes:  # the server's settings change the table's size between blocks
            encoder.header_table_size = size
        if sizes:
            decoder.max_allowed_table_size = max(sizes)
        headers = [
            (b":method", b"POST"),
            (b":scheme", b"https"),
            (b":authority", b"127.0.0.1:8443"),
            (b":path", b"/v1/chat/completions"),
            *fields,
            (b"content-length", b"1019"),
        ]
        assert decoder.decode(encoder.encode(headers), raw=True) == headers
        assert len(decoder.header_table.dynamic_entries) == 0
        if sizes:
            assert decoder.header_table_size == sizes[-1]


# -- replies ---------------------------------------------------------------------------------


def test_a_reply_past_the_stream_window_is_read_whole(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    # 200 kB: three times the 64 kB a stream may receive before the client opens its window.
    server = faulty_h2(rate=0, script=["large"] * 3, padding=200_000)
    results = _check(server.url, 3)
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    assert server.injected["large"] == 3
    assert server.connections == 1


def test_a_reply_past_the_size_cap_resets_its_stream_and_keeps_the_connection(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, script=["large"], padding=2 << 20)
    first, second = _check(server.url, 2, max_reply_bytes=1 << 20)
    assert first.status == "error"
    assert "larger than 1048576 bytes" in first.reason
    assert _right(second, 1)
    assert server.connections == 1  # the stream was reset; the connection went on
    assert _wait_for(lambda: server.cancelled == 1)


def test_a_stream_that_never_ends_is_an_error_at_the_deadline_and_the_connection_stays(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, script=["stall"])  # headers, then nothing
    first, second = _check(server.url, 2, timeout=1.0)
    assert first.status == "error"
    assert "timed out after 1 s (the deadline of one request" in first.reason
    assert _right(second, 1)
    assert server.connections == 1  # the connection spoke: only the stream was given up
    assert _wait_for(lambda: server.cancelled == 1)


def test_a_connection_silent_through_a_deadline_takes_no_new_stream(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, script=["silent"])  # not a byte for the first request
    first, second = _check(server.url, 2, timeout=1.0)
    assert first.status == "error"
    assert "timed out after 1 s" in first.reason
    assert _right(second, 1)
    assert server.connections == 2  # nothing came since the stream began: a new connection


def test_a_refused_stream_is_sent_again_without_spending_a_retry(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    # Three refusals among the first answers: whichever requests they hit, even one request
    # hit by all three, each is sent again and answered (retries=0: no retry is spent).
    server = faulty_h2(rate=0, script=["refuse", "ok", "refuse", "ok", "refuse"])
    results = _check(server.url, 30, 4)
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    assert server.injected["refuse"] == 3
    assert server.requests == 33


def test_a_stream_refused_every_time_is_an_error_after_a_few_sends(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=1.0, faults=("refuse",))
    results = _check(server.url, 2)
    for result in results:
        assert result.status == "error"
        assert "connection failed" in result.reason
        assert "REFUSED_STREAM" in result.reason
    assert server.requests == 2 * (_h2.REPLAYS + 1)


def test_a_stream_a_goaway_left_unprocessed_goes_on_a_new_connection(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    # The second answer is a GOAWAY whose last stream is the first: the second request was
    # never processed, so it is sent again, on a new connection, spending no retry.
    server = faulty_h2(rate=0, script=["ok", "goaway"])
    results = _check(server.url, 3)
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    assert server.requests == 4
    assert server.connections == 2


def test_answers_in_frames_a_client_meets_rarely_are_read(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    script = ["padded", "continuation", "ping", "unknown"]
    server = faulty_h2(rate=0, script=script)
    results = _check(server.url, 6)
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    assert all(server.injected[fault] == 1 for fault in script)
    assert server.connections == 1
    assert _wait_for(lambda: server.pongs == 1)  # the client answered the server's PING


def test_a_goaway_keeping_the_stream_lets_its_reply_finish(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, script=["ok", "graceful"])
    results = _check(server.url, 3)  # retries=0: the kept stream is read, not sent again
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    assert server.requests == 3
    assert server.connections == 2  # no new stream on the connection the server closes


def test_a_body_short_of_its_content_length_is_an_error_never_a_verdict(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, script=["short"])
    first, second = _check(server.url, 2)
    assert first.status == "error"
    assert "connection failed" in first.reason
    assert "short of its Content-Length" in first.reason
    assert _right(second, 1)
    assert server.connections == 1  # a fault of one stream: the connection went on


def test_a_frame_on_a_stream_never_opened_ends_the_connection(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, script=["stray"])
    [result] = _check(server.url, 1, retries=1)  # the retry goes on a new connection
    assert _right(result, 0)
    assert server.requests == 2
    assert server.connections == 2
    assert _wait_for(lambda: server.goodbyes >= 1)  # the client said why it hung up


def test_a_server_that_takes_no_stream_is_an_error_not_a_loop(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, max_streams=0)
    [result] = _check(server.url, 1)
    assert result.status == "error"
    assert "takes no stream" in result.reason
    assert server.connections == 1
    assert server.requests == 0


def test_a_server_closing_every_new_connection_is_an_error_not_a_loop(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0, goaway_at_once=True)  # SETTINGS, then GOAWAY, every time
    [result] = _check(server.url, 1)
    assert result.status == "error"
    assert "closed 3 new connections" in result.reason
    assert server.connections == 3
    assert server.requests == 0


def test_the_connections_say_goodbye_when_their_loop_ends(
    faulty_h2: Callable[..., FaultyH2Server],
) -> None:
    server = faulty_h2(rate=0)
    results = _check(server.url, 20, 8)
    assert all(_right(r, i) for i, r in enumerate(results))
    assert _wait_for(lambda: server.ended == server.connections)
    assert server.goodbyes == server.connections == 1


def test_an_idle_connection_past_its_expiry_is_replaced(
    faulty_h2: Callable[..., FaultyH2Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_h2, "IDLE_EXPIRY", 0.0)  # every idle connection has expired
    server = faulty_h2(rate=0)
    results = _check(server.url, 4)  # one after another: each finds the last one idle
    assert all(_right(r, i) for i, r in enumerate(results))
    assert server.connections == 4
    assert _wait_for(lambda: server.ended == 4)


def test_a_server_that_never_finishes_the_handshake_is_a_timeout(authority: Authority) -> None:
    async def run() -> Result:
        async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reader.read()  # the client's hello, never answered
            except ConnectionError:
                pass
            finally:  # cancelled too, when the loop ends first
                writer.close()

        server = await asyncio.start_server(mute, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        judge = OpenAIJudge("m", base_url=f"https://127.0.0.1:{port}/v1", timeout=0.5, retries=0)
        try:
            return await LLMRubric("Is fine", judge=judge).acheck("a")
        finally:
            await judge.aclose()
            server.close()
            await server.wait_closed()

    result = asyncio.run(run())
    assert result.status == "error"
    assert "timed out after 0.5 s" in result.reason


# -- against hypercorn -----------------------------------------------------------------------


def test_the_request_carries_the_judge_headers_and_body(
    authority: Authority, hypercorn: Callable[..., HypercornServer]
) -> None:
    server = hypercorn(authority)
    headers = {"x-route": "eu", "X-Note": "café", "Connection": "keep-alive"}
    big = "ITEM-1 " + "words " * 60_000  # a 360 kB prompt: past the server's stream window
    judge = OpenAIJudge("m", base_url=server.url, headers=headers, retries=0)
    rubric = LLMRubric("The reply answers the question", judge=judge)
    results = asyncio.run(check_many(rubric, ["Answer for ITEM-2.", big], concurrency=2))
    assert [r.reason for r in results] == ["item 2", "item 1"]
    assert server.versions == {"2": 2}
    for sent, size in zip(server.headers, server.bodies, strict=True):
        fields = dict(sent)
        assert fields[b"authorization"] == f"Bearer {SECRET}".encode()
        assert fields[b"x-route"] == b"eu"
        assert fields[b"x-note"] == "café".encode()
        assert fields[b"content-type"] == b"application/json"
        assert fields[b"accept-encoding"] == b"gzip, deflate"
        assert int(fields[b"content-length"]) == size
        assert b"connection" not in fields  # connection-specific: not HTTP/2
    assert max(server.bodies) > 360_000


def test_the_server_limit_of_concurrent_streams_is_kept(
    authority: Authority, hypercorn: Callable[..., HypercornServer]
) -> None:
    server = hypercorn(authority, max_streams=4, delay=0.02)
    results = _check(server.url, 40, 16)
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    assert server.versions == {"2": 40}
    assert 2 <= len(server.clients) <= 4  # another connection past the limit, as httpx does


def test_a_proxy_for_https_carries_http2_through_httpx(
    authority: Authority,
    hypercorn: Callable[..., HypercornServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The lean client does not speak to proxies: where one is configured, httpx tunnels.
    server = hypercorn(authority)
    tunnels: list[bytes] = []
    ends: list[asyncio.StreamWriter] = []

    async def run() -> list[Result]:
        async def tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            ends.append(writer)
            head = await reader.readuntil(b"\r\n\r\n")
            tunnels.append(head.split(b"\r\n", 1)[0])
            host, _, port = head.split()[1].decode().rpartition(":")
            upstream_reader, upstream = await asyncio.open_connection(host, int(port))
            ends.append(upstream)
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")

            async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
                with contextlib.suppress(ConnectionError):
                    while data := await source.read(65536):
                        sink.write(data)
                        await sink.drain()
                sink.close()

            await asyncio.gather(pipe(reader, upstream), pipe(upstream_reader, writer))

        proxy = await asyncio.start_server(tunnel, "127.0.0.1", 0)
        port = proxy.sockets[0].getsockname()[1]
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "https_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
        judge = OpenAIJudge("m", base_url=server.url, retries=0, timeout=10)
        rubric = LLMRubric("The reply answers the question", judge=judge)
        try:
            subjects = [f"Answer for ITEM-{i}." for i in range(6)]
            return await check_many(rubric, subjects, concurrency=3)
        finally:
            await judge.aclose()
            proxy.close()
            for end in ends:
                end.close()
            await asyncio.gather(*(end.wait_closed() for end in ends), return_exceptions=True)
            await proxy.wait_closed()

    results = asyncio.run(run())
    assert all(_right(r, i) for i, r in enumerate(results)), [r.reason for r in results]
    port = server.url.split(":")[2].split("/")[0]
    assert tunnels
    assert set(tunnels) == {f"CONNECT 127.0.0.1:{port} HTTP/1.1".encode()}
    assert server.versions == {"2": 6}


def test_a_body_is_json_as_httpx_writes_it() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "café ✓"}], "t": 0.5}
    from chatassert.judges._http import _json_body

    written = _json_body(body)
    assert json.loads(written) == body
    assert "café ✓".encode() in written  # UTF-8, not \\u escapes
