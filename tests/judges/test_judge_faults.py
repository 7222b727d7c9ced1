"""Every verdict reaches its own request, whatever the server does to the connection."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import stat
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faulty import FAULTS, FaultyServer, PacedServer, expected, passing_reply
from faulty_h2 import H2_FAULTS, Authority, FaultyH2Server, started

from chatassert import LLMRubric, Result
from chatassert.judges import CachedJudge, OpenAIJudge, VerdictCache, check_many
from chatassert.judges._http import DEFAULT_MAX_REPLY_BYTES
from chatassert.testing import FakeJudge

Faulty = FaultyServer | FaultyH2Server

PROTOCOLS = ("http/1.1", "h2")
"""The faulty servers' protocols: HTTP/1.1 in plain text, HTTP/2 over TLS (ALPN)."""


@pytest.fixture
def start_faulty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Faulty]]:
    """Start a faulty server speaking a protocol of `PROTOCOLS`; stop it after the test."""

    def make(protocol: str, **options: Any) -> Faulty:
        if protocol != "h2":
            return FaultyServer(**options)
        authority = Authority(tmp_path)
        monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))
        return FaultyH2Server(authority, **options)

    with started(make) as start:
        yield start


def _check(server: Faulty, count: int, concurrency: int) -> list[tuple[int, bool, str, str]]:
    """Check `count` tagged subjects against `server`, `concurrency` at a time (`check_many`;
    with 1, strictly one after another in one event loop: `check_many` keeps up to twice its
    concurrency under way)."""
    judge = OpenAIJudge("m", base_url=server.url, timeout=5, retries=8, backoff=0.001)
    rubric = LLMRubric("The reply answers the question", judge=judge)
    subjects = [f"Answer for ITEM-{i}." for i in range(count)]

    async def one_by_one() -> list[Result]:
        return [await rubric.acheck(subject) for subject in subjects]

    results = asyncio.run(
        one_by_one() if concurrency == 1 else check_many(rubric, subjects, concurrency=concurrency)
    )
    return [(i, r.passed, r.status, r.reason) for i, r in enumerate(results)]


def test_every_verdict_reaches_its_own_request_under_faults(
    start_faulty: Callable[..., Faulty],
) -> None:
    faulty = start_faulty("http/1.1", rate=0.2, seed=12)
    outcomes = _check(faulty, 600, 64)
    assert set(faulty.injected) >= {*FAULTS, "ok"}, faulty.injected  # every fault happened
    wrong = [
        (i, status, reason)
        for i, passed, status, reason in outcomes
        if status != "error" and (passed != expected(i) or f"item {i}" not in reason)
    ]
    assert not wrong, f"{len(wrong)} verdicts reached the wrong request: {wrong[:5]}"
    stale = [o for o in outcomes if "stale" in o[3]]
    assert not stale
    errors = [o for o in outcomes if o[2] == "error"]
    assert not errors, errors[:3]  # eight retries outlast a 20 % fault rate
    assert sum(not passed for _, passed, _, _ in outcomes) == sum(
        not expected(i) for i in range(600)
    )


def test_every_verdict_reaches_its_own_stream_under_http2_faults(
    start_faulty: Callable[..., Faulty],
) -> None:
    # Over HTTP/2 a reset connection, a cut body or a second answer on an ended stream (a
    # protocol error) ends every stream of the connection: those attempts are retried, and
    # an attempt that keeps sharing a connection with faults runs out of retries. No answer
    # ever reaches another stream, and an attempt that gets none is an error, never a pass.
    faulty = start_faulty("h2", rate=0.05, seed=12)
    outcomes = _check(faulty, 300, 16)
    assert set(faulty.injected) >= {*H2_FAULTS, "ok"}, faulty.injected  # every fault happened
    assert faulty.connections < faulty.requests  # connections were kept and shared
    verdicts = [o for o in outcomes if o[2] != "error"]
    wrong = [(i, r) for i, passed, _, r in verdicts if passed != expected(i) or r != f"item {i}"]
    assert not wrong, f"{len(wrong)} verdicts reached the wrong request: {wrong[:5]}"
    assert len(verdicts) >= 270, len(verdicts)  # nearly every request outlasts the faults
    errors = [o[3] for o in outcomes if o[2] == "error"]
    assert all("connection failed" in reason for reason in errors), errors[:3]


@pytest.mark.parametrize(("protocol", "fault"), [("http/1.1", "double"), ("h2", "double_later")])
def test_a_stale_second_answer_is_never_read_as_the_next_verdict(
    start_faulty: Callable[..., Faulty], protocol: str, fault: str
) -> None:
    # Every answer is followed by a stale second one: over HTTP/2 after the client has read the
    # answer (faulty_h2 waits for the acknowledgement of a PING sent behind it), so it breaks
    # the connection for the request after, which is sent again on a new one.
    server = start_faulty(protocol, rate=1.0, faults=(fault,), seed=1)
    outcomes = _check(server, 40, 1)  # one at a time, on a connection reused while it lasts
    for i, passed, status, reason in outcomes:
        assert status != "error"
        assert passed == expected(i), (i, reason)
        assert reason.endswith(f"item {i}"), (i, reason)


def test_a_stale_answer_in_the_packet_of_the_real_one_is_an_error_over_http2(
    start_faulty: Callable[..., Faulty],
) -> None:
    # The stale frames come in the read that brings the answer: the protocol error they are
    # takes the connection and the answer read with it. Every attempt fails alike: an error,
    # never a verdict, and never the stale one.
    server = start_faulty("h2", rate=1.0, faults=("double",), seed=1)
    outcomes = _check(server, 3, 1)
    assert [status for _, _, status, _ in outcomes] == ["error"] * 3
    assert all("connection failed" in reason for *_, reason in outcomes)
    assert server.requests == 3 * 9  # every attempt was made, each on a new connection


# -- scripted bytes ---------------------------------------------------------------------------

Answer = Callable[[bytes], bytes]


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + await reader.readexactly(length)


def _judge_with(answer: Answer, *checks: str, delay: float = 0.0, **options: Any) -> list[Result]:
    """Check each of `checks` with a judge whose server answers each request with `answer`.

    The server reads a request, waits `delay` seconds, writes the answer and hangs up.
    """

    async def run() -> list[Result]:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                request = await _read_request(reader)
                await asyncio.sleep(delay)
                writer.write(answer(request))
                await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        settings = {"retries": 0, "timeout": 2.0, **options}
        judge = OpenAIJudge("m", base_url=f"http://127.0.0.1:{port}/v1", **settings)
        rubric = LLMRubric("Is fine", judge=judge)
        try:
            return [await rubric.acheck(subject) for subject in checks]
        finally:
            await judge.aclose()
            server.close()
            await server.wait_closed()

    return asyncio.run(run())


def _reply(body: bytes, *headers: bytes, status: bytes = b"200 OK") -> bytes:
    head = [b"HTTP/1.1 " + status, b"Content-Length: %d" % len(body), *headers]
    return b"\r\n".join([*head, b"", body])


def _completion(content: str) -> bytes:
    message = {"role": "assistant", "content": content}
    return json.dumps({"choices": [{"index": 0, "message": message}]}).encode()


def test_a_verdict_that_repeats_a_key_is_an_error_not_its_last_value() -> None:
    [result] = _judge_with(
        lambda _: _reply(_completion('{"passed": false, "passed": true, "reason": "x"}')), "a"
    )
    assert result.status == "error"
    assert "'passed' appears twice" in result.reason


def test_a_reply_body_that_repeats_a_key_is_an_error() -> None:
    verdict = json.dumps({"passed": True, "reason": "fine"})
    message = '{"role": "assistant", "content": ' + json.dumps(verdict) + "}"
    body = '{"choices": [{"index": 0, "message": ' + message + '}], "choices": []}'
    [result] = _judge_with(lambda _: _reply(body.encode()), "a")
    assert result.status == "error"
    assert "'choices' appears twice" in result.reason


def test_a_compressed_reply_within_the_cap_is_read() -> None:
    body = gzip.compress(_completion(json.dumps({"passed": True, "reason": "zipped"})))
    [result] = _judge_with(
        lambda _: _reply(body, b"Content-Encoding: gzip"), "a", max_reply_bytes=4096
    )
    assert (result.status, result.reason) == ("passed", "zipped")


def test_a_compression_bomb_is_an_error_at_the_cap() -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)  # 64 MiB unpacked
    tracemalloc.start()
    try:
        [small, default] = _judge_with(
            lambda _: _reply(bomb, b"Content-Encoding: gzip"), "a", "b", max_reply_bytes=1 << 20
        )[:1] + _judge_with(lambda _: _reply(bomb, b"Content-Encoding: gzip"), "b")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert small.status == "error"
    assert "larger than 1048576 bytes" in small.reason
    assert default.status == "error"
    assert f"larger than {DEFAULT_MAX_REPLY_BYTES} bytes" in (default.reason)
    assert peak < 4 * DEFAULT_MAX_REPLY_BYTES  # read up to the cap, never the whole bomb


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"", "connection failed"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", "connection failed"),
        (b"SPDY/9 what\r\n\r\n", "connection failed"),
        (b"HTTP/1.1 200 OK\r\nno-colon-here\r\n\r\n", "connection failed"),
        (_reply(b"not json at all"), "not a JSON reply"),
    ],
    ids=["dropped", "truncated", "bad-status", "bad-header", "not-json"],
)
def test_broken_replies_are_errors(payload: bytes, words: str) -> None:
    [result] = _judge_with(lambda _: payload, "a")
    assert result.status == "error"
    assert words in result.reason


def test_a_slow_reply_is_a_timeout_error() -> None:
    [result] = _judge_with(
        lambda _: _reply(_completion('{"passed": true}')), "a", delay=0.3, timeout=0.05
    )
    assert result.status == "error"
    assert "timed out after 0.05 s" in result.reason


# -- servers that take their time: one deadline per request --------------------------------------


@pytest.fixture
def paced() -> Iterator[Callable[..., PacedServer]]:
    """Start `PacedServer`s for a test and stop them after it."""
    servers: list[PacedServer] = []

    def start(**options: Any) -> PacedServer:
        server = PacedServer(**options)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()


def _rubric(server: PacedServer, **options: Any) -> LLMRubric:
    judge = OpenAIJudge("m", base_url=server.url, **{"retries": 0, **options})
    return LLMRubric("Is fine", judge=judge)


def _ran_out(result: Result, seconds: str) -> bool:
    return result.status == "error" and (
        f"timed out after {seconds} s (the deadline of one request" in result.reason
    )


def test_a_drip_that_ends_within_the_deadline_is_read(
    paced: Callable[..., PacedServer],
) -> None:
    server = paced(pace=0.001, chunk=8)  # the control: the paced answer is a good verdict
    result = _rubric(server, timeout=30).check("a")
    assert (result.status, result.reason) == ("passed", "paced")


def test_a_dripping_reply_is_an_error_at_the_deadline_never_a_pass(
    paced: Callable[..., PacedServer],
) -> None:
    # headers at once, then a passing verdict a byte every 10 ms: ten seconds and more
    server = paced(pace=0.01, answer=passing_reply(1000))
    result = asyncio.run(_rubric(server, timeout=0.3).acheck("a"))
    assert _ran_out(result, "0.3"), result.reason
    assert server.wait_hung_up(1) == server.opened == 1  # the judge hung up
    assert server.sent < 1000


def test_every_attempt_has_a_deadline_of_its_own(paced: Callable[..., PacedServer]) -> None:
    server = paced(pace=0.01, answer=passing_reply(1000))
    result = _rubric(server, timeout=0.3, retries=2, backoff=0.001).check("a")
    assert _ran_out(result, "0.3"), result.reason
    assert "gave up after 3 attempts" in result.reason
    assert server.wait_hung_up(3) == server.opened == 3


def test_a_server_sending_a_byte_a_second_gives_no_verdict_past_the_deadline(
    paced: Callable[..., PacedServer],
) -> None:
    # The status line too goes a byte a second: each read waits a second, never 1.5.
    server = paced(pace=1.0, slow_head=True)
    result = _rubric(server, timeout=1.5).check("a")  # the synchronous path
    assert _ran_out(result, "1.5"), result.reason
    assert server.wait_hung_up(1) == 1


def test_an_endless_drip_is_an_error_at_the_deadline(paced: Callable[..., PacedServer]) -> None:
    server = paced(pace=0.005, endless=True)
    result = asyncio.run(_rubric(server, timeout=0.3).acheck("a"))
    assert _ran_out(result, "0.3"), result.reason
    assert server.wait_hung_up(1) == 1


def test_an_endless_body_stops_at_the_size_cap(paced: Callable[..., PacedServer]) -> None:
    server = paced(pace=0.0, chunk=64 * 1024, endless=True)
    result = _rubric(server, timeout=30, max_reply_bytes=1 << 20).check("a")
    assert result.status == "error"
    assert "larger than 1048576 bytes" in result.reason
    assert server.wait_hung_up(1) == 1
    assert server.sent < server.limit


@pytest.mark.parametrize(
    "options",
    [{"timeout": 0}, {"timeout": float("inf")}, {"timeout": float("nan")}, {"timeout": -1},
     {"max_retry_after": float("inf")}, {"backoff": float("nan")}],
    ids=["zero", "inf", "nan", "negative", "endless-retry-after", "nan-backoff"],
)  # fmt: skip
def test_every_wait_of_a_judge_is_finite(options: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must be"):
        OpenAIJudge("m", **options)


@pytest.mark.parametrize("temperature", [float("nan"), float("inf"), float("-inf")])
def test_a_temperature_that_json_cannot_carry_is_refused_at_once(temperature: float) -> None:
    with pytest.raises(ValueError, match="temperature must be a finite number"):
        OpenAIJudge("m", temperature=temperature)


def test_proxy_variables_route_judge_traffic_through_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bytes] = []

    def proxy(request: bytes) -> bytes:
        seen.append(request.split(b"\r\n", 1)[0])
        return _reply(_completion('{"passed": true, "reason": "via proxy"}'))

    async def run() -> Result:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(proxy(await _read_request(reader)))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
        judge = OpenAIJudge("m", base_url="http://judge.invalid/v1", retries=0, timeout=2)
        try:
            return await LLMRubric("Is fine", judge=judge).acheck("a")
        finally:
            await judge.aclose()
            server.close()
            await server.wait_closed()

    result = asyncio.run(run())
    assert (result.status, result.reason) == ("passed", "via proxy")
    assert seen == [b"POST http://judge.invalid/v1/chat/completions HTTP/1.1"]


# -- secrets ----------------------------------------------------------------------------------

HEADER_KEY = "sk-hdr-0a1b2c3d4e5f"
BEARER = "tok-bearer-9z8y7x6w"


def _forms(secret: str) -> list[str]:
    """The secret and the ways a JSON writer may escape it."""
    return [
        secret,
        secret.replace("-", "\\u002d"),
        secret.replace("-", "\\u002D"),
        "".join(f"\\u{ord(c):04x}" for c in secret),
    ]


def test_credential_headers_never_reach_results_logs_or_the_cache(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def echo(request: bytes) -> bytes:
        if b"ITEM-1" in request:  # a 500 echoing the key escaped, then a verdict echoing it
            body = f'{{"error": "bad key {_forms(HEADER_KEY)[1]}"}}'
            return _reply(body.encode(), status=b"500 Internal Server Error")
        reason = f"key {HEADER_KEY} and bearer {_forms(BEARER)[3]}"
        return _reply(_completion(json.dumps({"passed": True, "reason": reason})))

    headers = {"x-api-key": HEADER_KEY, "Authorization": f"Bearer {BEARER}", "x-route": "eu"}
    cache = tmp_path / "private" / "verdicts.sqlite3"

    async def run() -> list[Result]:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    writer.write(echo(await _read_request(reader)))
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        inner = OpenAIJudge(
            "m", base_url=f"http://127.0.0.1:{port}/v1", headers=headers, retries=1, backoff=0
        )
        judge = CachedJudge(inner, cache)
        rubric = LLMRubric("Is fine", judge=judge)
        try:
            return [await rubric.acheck("ITEM-1"), await rubric.acheck("ITEM-2")]
        finally:
            judge.flush()
            await inner.aclose()
            server.close()
            await server.wait_closed()

    with caplog.at_level(logging.INFO, logger="chatassert.judges"):
        failed, passed = asyncio.run(run())
    assert failed.status == "error"
    assert "[redacted]" in failed.reason
    assert passed.status == "passed"
    assert passed.reason.count("[redacted]") == 2
    places = {
        "results": json.dumps([failed.to_dict(), passed.to_dict()]),
        "logs": "\n".join(r.getMessage() for r in caplog.records),
        "cache": b"".join(p.read_bytes() for p in cache.parent.iterdir()).decode("latin-1"),
    }
    assert "[redacted]" in places["logs"]
    for place, text in places.items():
        for secret in (HEADER_KEY, BEARER):
            for form in _forms(secret):
                assert form not in text, (place, form)
    assert "headers" in (params := OpenAIJudge("m", headers=headers).cache_params())
    assert params["headers"] == {"x-route": "eu"}  # credentials change no verdict


def test_a_non_ascii_key_in_a_latin_1_error_body_is_redacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-é中-0a1b2c3d"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    latin_1 = b"Content-Type: text/plain; charset=iso-8859-1"
    error = b"500 Internal Server Error"
    [result] = _judge_with(lambda _: _reply(f"bad key {key}".encode(), latin_1, status=error), "a")
    assert result.status == "error"
    assert "bad key [redacted]" in result.reason  # read as Latin-1, the key's bytes are mojibake
    for form in (key, key.encode().decode("latin-1")):
        assert form not in result.reason


def test_the_verdict_cache_is_private_to_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "new-folder" / "cache.sqlite3"
    judge = CachedJudge(FakeJudge.passing(), path)
    assert LLMRubric("Is fine", judge=judge).check("a").passed
    judge.flush()
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    for file in path.parent.iterdir():  # the database and its -wal and -shm files
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    path.chmod(0o644)  # a file left readable by others is made private again
    VerdictCache(path).get("k")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
