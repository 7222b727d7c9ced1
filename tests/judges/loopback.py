"""A scripted HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic wire formats.

Each POST takes the next scripted `Reply` (or the default); every request is recorded. Run as a
script (`python loopback.py --delay 0.05`) it serves good verdicts forever, prints its base URL,
and reports how many requests it received (and its CPU time) at `GET /count` (used by the
benchmark).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    """One scripted answer: a status, a JSON (or raw text) body, headers, a delay, or a drop."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False


@dataclass
class Recorded:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    body: Any


SECRET = "sk-test-9f8e7d6c5b4a3210"
"""The API key the judge tests put in the environment (and look for in what leaks)."""


def openai_content(
    content: str | None, *, refusal: str | None = None, finish_reason: str = "stop"
) -> Reply:
    """A chat-completions reply whose message has `content` (and maybe a refusal)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    return Reply(
        {
            "id": "cmpl-1",
            "object": "chat.completion",
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        }
    )


def openai_verdict(
    passed: Any = True, score: float | None = 0.9, reason: str = "meets the rubric", **extra: Any
) -> Reply:
    """A chat-completions reply carrying a JSON verdict."""
    return openai_content(json.dumps({"passed": passed, "score": score, "reason": reason, **extra}))


def anthropic_tool(arguments: Any, name: str = "record_verdict") -> Reply:
    """A Messages reply with a tool call carrying `arguments`."""
    return Reply(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "tu_1", "name": name, "input": arguments}],
        }
    )


def anthropic_text(text: str, stop_reason: str = "end_turn") -> Reply:
    """A Messages reply with only text."""
    return Reply(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "stop_reason": stop_reason,
            "content": [{"type": "text", "text": text}],
        }
    )


class RefusedOnce:
    """Replies for a server: a good verdict (after `delay` seconds) to every request but the
    `nth` (from 1), which is refused with a 429 saying `Retry-After: <retry_after>`. `arrivals`
    holds when each request came, `refused` when the refusal went (a `time.monotonic()` each),
    `prompts` each request's user prompt, in order of arrival."""

    def __init__(self, nth: int = 1, delay: float = 0.0, retry_after: str = "1") -> None:
        self.nth, self.delay, self.retry_after = nth, delay, retry_after
        self.arrivals: list[float] = []
        self.refused: list[float] = []
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.arrivals.append(time.monotonic())
            messages = recorded.body.get("messages") if isinstance(recorded.body, dict) else None
            self.prompts.append(str(messages[-1].get("content")) if messages else "")
            if len(self.arrivals) == self.nth:
                self.refused.append(time.monotonic())
                headers = {"Retry-After": self.retry_after}
                return Reply({"error": "slow down"}, status=429, headers=headers)
        answer = openai_verdict()
        answer.delay = self.delay
        return answer


class Together:
    """Replies that overlap for certain, not by timing: each request is held until `n` are
    held at once (or `patience` seconds pass), then answered with a verdict after `delay`
    seconds; once `n` have met, later requests are not held. `peak` is the most held at once."""

    def __init__(self, n: int, delay: float = 0.0, patience: float = 30.0) -> None:
        self.n, self.delay, self.patience = n, delay, patience
        self.held = 0
        self.peak = 0
        self._met = threading.Condition()

    def __call__(self, recorded: Recorded) -> Reply:
        with self._met:
            self.held += 1
            self.peak = max(self.peak, self.held)
            self._met.notify_all()
            self._met.wait_for(lambda: self.peak >= self.n, timeout=self.patience)
            self.held -= 1
        answer = openai_verdict()
        answer.delay = self.delay
        return answer


class LoopbackServer:
    """The server: `start()` returns its base URL; `push()` scripts replies; `stop()` ends it."""

    def __init__(self, default: Reply | Callable[[Recorded], Reply] | None = None) -> None:
        self.default = default
        self.script: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.count = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def push(self, *replies: Reply) -> None:
        """Script the next replies, in order."""
        with self._lock:
            self.script.extend(replies)

    def wait_for(self, count: int, timeout: float = 5.0) -> int:
        """Wait until `count` requests have arrived (or `timeout` passes); return the count."""
        deadline = time.monotonic() + timeout
        while self.count < count and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.count

    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            self.count += 1
            if self.script:
                return self.script.popleft()
        if callable(self.default):
            return self.default(recorded)
        if self.default is not None:
            return self.default
        return Reply({"error": "no scripted reply"}, status=599)

    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._send(Reply({"count": server.count, "cpu": time.process_time()}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                reply = server._next(Recorded(self.path, dict(self.headers.items()), body))
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                answered = False
                try:
                    if reply.delay:
                        time.sleep(reply.delay)
                    # A request is in flight until its answer starts: a client that waits for
                    # the answer may send its next request before this thread runs again.
                    with server._lock:
                        server.in_flight -= 1
                        answered = True
                    if reply.drop:
                        self.close_connection = True
                        return
                    self._send(reply)
                finally:
                    if not answered:
                        with server._lock:
                            server.in_flight -= 1

            def _send(self, reply: Reply) -> None:
                if isinstance(reply.body, bytes):
                    data = reply.body
                elif isinstance(reply.body, str):
                    data = reply.body.encode()
                else:
                    data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 256

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # clients that time out or hang up are part of the script

        self._server = Server(("127.0.0.1", 0), Handler)
        # `stop` waits for the serve loop to look for it: every 5 ms (a select call, nothing
        # more), not every 50 ms, which each of the ~130 tests with a server waited at its end
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.005}, daemon=True
        )
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None


SRC = Path(__file__).resolve().parents[2] / "src"


def run_cli(
    cwd: Path | None,
    server: LoopbackServer,
    *args: str,
    cache: str = "off",
    retries: int = 0,
    env: Mapping[str, str] | None = None,
    here: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`python -m chatassert ARGS` in `cwd`, its judge an OpenAI judge at `server` (`retries`
    retries; the verdict cache `cache`: `off` or a path), with the variables `env` besides; with
    `here`, in this process (tests/cli_runs.py) with the same environment: for the variants of
    a judged run that a subprocess test already makes."""
    environment = _judged_env(server, cache, retries, env)
    if here:
        from cli_runs import run_in_process  # beside the tests: not where this runs as a script

        return run_in_process(*args, cwd=cwd, env=environment)
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=120,
        check=False,
    )


run_cli_here = functools.partial(run_cli, here=True)
"""`run_cli` in this process."""


def _judged_env(
    server: LoopbackServer, cache: str, retries: int, env: Mapping[str, str] | None
) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "CHATASSERT_JUDGE": "openai",
        "CHATASSERT_JUDGE_MODEL": "judge-model",
        "CHATASSERT_JUDGE_BASE_URL": server.url + "/v1",
        "CHATASSERT_JUDGE_RETRIES": str(retries),
        "CHATASSERT_JUDGE_CACHE": cache,
        **(env or {}),
    }


@contextlib.contextmanager
def serving_script(script: str, *args: str) -> Iterator[str]:
    """Run `script` (a server that prints its base URL, then serves until its standard input
    closes) in a process of its own, so it does not share the client's interpreter; yield
    the URL, and stop it after."""
    server = subprocess.Popen(
        [sys.executable, script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


@contextlib.contextmanager
def serving(delay: float) -> Iterator[str]:
    """Run this script as a server in a process of its own (as in the benchmarks) answering
    after `delay` seconds; yield its base URL."""
    with serving_script(__file__, "--delay", str(delay)) as url:
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.05)
    args = parser.parse_args()
    reply = openai_verdict()
    reply.delay = args.delay
    server = LoopbackServer(default=reply)
    print(server.start(), flush=True)
    try:
        sys.stdin.read()  # serve until the parent closes our stdin
    finally:
        server.stop()


if __name__ == "__main__":
    main()
