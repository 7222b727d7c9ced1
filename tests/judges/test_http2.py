"""Judges over HTTP/2: one kept-alive connection, a stream per request, where the server speaks
it; HTTP/1.1 with a connection per request everywhere else."""

from __future__ import annotations

import asyncio
import pickle
import sys
from collections.abc import Callable
from typing import Any

import pytest
from faulty import expected
from faulty_h2 import Authority, HypercornServer

from chatassert import LLMRubric, Result
from chatassert.errors import MissingExtraError
from chatassert.judges import OpenAIJudge, check_many


def _check(url: str, count: int, concurrency: int, **options: Any) -> list[Result]:
    judge = OpenAIJudge("m", base_url=url, timeout=10, retries=0, **options)
    rubric = LLMRubric("The reply answers the question", judge=judge)
    subjects = [f"Answer for ITEM-{i}." for i in range(count)]
    return asyncio.run(check_many(rubric, subjects, concurrency=concurrency))


def _all_right(results: list[Result]) -> None:
    for i, result in enumerate(results):
        assert result.status != "error", result.reason
        assert result.passed == expected(i)
        assert result.reason == f"item {i}"


def test_an_https_server_speaking_http2_gets_every_request_as_a_stream_of_one_connection(
    authority: Authority, hypercorn: Callable[..., HypercornServer]
) -> None:
    server = hypercorn(authority)
    results = _check(server.url, 200, 32)
    _all_right(results)
    assert server.versions == {"2": 200}
    assert len(server.clients) <= 2  # kept alive: not one connection per request


def test_requests_one_after_another_share_the_kept_alive_connection(
    authority: Authority, hypercorn: Callable[..., HypercornServer]
) -> None:
    server = hypercorn(authority)
    _all_right(_check(server.url, 20, 1))
    assert server.versions == {"2": 20}
    assert len(server.clients) == 1


def test_a_server_choosing_http1_over_alpn_gets_a_connection_per_request(
    authority: Authority, hypercorn: Callable[..., HypercornServer]
) -> None:
    # HTTP/2 connections are kept alive, so the HTTP/1.1 ones must be closed all the same.
    server = hypercorn(authority, alpn=("http/1.1",))
    results = _check(server.url, 60, 8) + _check(server.url, 10, 1)
    _all_right(results[:60])
    assert server.versions == {"1.1": 70}
    assert len(server.clients) == 70  # never a reused HTTP/1.1 connection


@pytest.mark.parametrize(
    ("http2", "version", "connections"),
    [(None, "1.1", 30), (False, "1.1", 30), (True, "2", 1)],
    ids=["default", "off", "prior-knowledge"],
)
def test_plain_http_speaks_http2_only_when_asked(
    hypercorn: Callable[..., HypercornServer], http2: bool | None, version: str, connections: int
) -> None:
    server = hypercorn()  # plain http: HTTP/1.1, and HTTP/2 with prior knowledge
    _all_right(_check(server.url, 30, 1, http2=http2))
    assert server.versions == {version: 30}
    assert len(server.clients) == connections


def test_http2_off_keeps_https_on_http1(
    authority: Authority, hypercorn: Callable[..., HypercornServer]
) -> None:
    server = hypercorn(authority)
    _all_right(_check(server.url, 10, 4, http2=False))
    assert server.versions == {"1.1": 10}
    assert len(server.clients) == 10


def test_the_judge_trusts_the_authority_in_ssl_cert_file_only(
    authority: Authority, hypercorn: Callable[..., HypercornServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = hypercorn(authority)
    monkeypatch.delenv("SSL_CERT_FILE")  # certifi's bundle does not know the test's authority
    [result] = _check(server.url, 1, 1)
    assert result.status == "error"
    assert "CERTIFICATE_VERIFY_FAILED" in result.reason
    assert server.requests == 0


def test_asking_for_http2_without_h2_installed_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "h2", None)  # as if the package were not installed
    with pytest.raises(MissingExtraError, match=r"pip install 'chatassert\[http2\]'"):
        OpenAIJudge("m", base_url="https://judge.invalid/v1", http2=True)
    # Left unset, a judge speaks HTTP/1.1 without h2, as before.
    assert OpenAIJudge("m", base_url="https://judge.invalid/v1")._protocols() == (True, False)


def test_a_judge_asking_for_http2_unpickled_where_h2_is_missing_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judge = pickle.loads(pickle.dumps(OpenAIJudge("m", base_url="http://127.0.0.1:9", http2=True)))
    assert judge.http2 is True
    monkeypatch.setitem(sys.modules, "h2", None)
    result = LLMRubric("Is fine", judge=judge).check("a")
    assert result.status == "error"
    assert "chatassert[http2]" in result.reason


def test_http2_must_be_a_boolean_or_none() -> None:
    with pytest.raises(TypeError, match="http2 must be True, False or None"):
        OpenAIJudge("m", http2="yes")  # type: ignore[arg-type]
