"""Fixtures: a loopback HTTP server per test, judges pointed at it with tiny backoff; HTTP/2
servers (hypercorn, and one that misbehaves) with a certificate authority made for the test."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faulty_h2 import Authority, FaultyH2Server, HypercornServer, started
from loopback import SECRET, LoopbackServer

from chatassert.judges import AnthropicJudge, OpenAIJudge


@pytest.fixture(autouse=True)
def _judge_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """A known API key, and no judge variables or user cache from the shell."""
    for name in (
        "CHATASSERT_JUDGE_BASE_URL",
        "CHATASSERT_JUDGE_API_KEY_ENV",
        "CHATASSERT_JUDGE_CACHE",
        "CHATASSERT_JUDGE_BATCH",
        "CHATASSERT_JUDGE_TIMEOUT",
        "CHATASSERT_JUDGE_RETRIES",
        "CHATASSERT_JUDGE_CONCURRENCY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A started loopback server, stopped after the test."""
    srv = LoopbackServer()
    srv.start()
    yield srv
    srv.stop()


FAST = {
    "timeout": 2.0,
    "retries": 2,
    "backoff": 0.001,
    "max_backoff": 0.005,
    "max_retry_after": 0.05,
}


@pytest.fixture
def openai_judge(server: LoopbackServer) -> Callable[..., OpenAIJudge]:
    """Build an OpenAI judge for the server, with tiny backoff (override any option)."""

    def make(**options: Any) -> OpenAIJudge:
        return OpenAIJudge(
            options.pop("model", "judge-model"),
            **{"base_url": server.url + "/v1", **FAST, **options},
        )

    return make


@pytest.fixture
def anthropic_judge(server: LoopbackServer) -> Callable[..., AnthropicJudge]:
    """Build an Anthropic judge for the server, with tiny backoff (override any option)."""

    def make(**options: Any) -> AnthropicJudge:
        return AnthropicJudge(
            options.pop("model", "claude-test"), **{"base_url": server.url, **FAST, **options}
        )

    return make


@pytest.fixture
def authority(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Authority:
    """A certificate authority made for the test, trusted by judges through SSL_CERT_FILE."""
    made = Authority(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(made.ca_file))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return made


@pytest.fixture
def hypercorn() -> Iterator[Callable[..., HypercornServer]]:
    """Start hypercorn servers for a test and stop them after it."""
    with started(HypercornServer) as start:
        yield start


@pytest.fixture
def faulty_h2(authority: Authority) -> Iterator[Callable[..., FaultyH2Server]]:
    """Start misbehaving HTTP/2 servers (trusted through `authority`) and stop them after."""
    with started(functools.partial(FaultyH2Server, authority)) as start:
        yield start
