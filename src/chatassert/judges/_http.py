"""Judges over HTTP: OpenAI-compatible chat completions and Anthropic Messages.

Both share the transport: per event loop, httpx's own transport (so the proxy variables and
TLS settings users know apply, `SSL_CERT_FILE` and `SSL_CERT_DIR` among them) and, for HTTP/2,
a lean client of asyncio and `h2` (`_h2`: httpx's HTTP/2 path costs several times its CPU per
request) with the same TLS settings; one deadline per request (connecting, sending and
reading the whole reply, whatever pace the server keeps), a cap on the size of a reply,
retries with exponential backoff and jitter on connection errors, timeouts, 429 (honouring
`Retry-After`) and 5xx, and no retry on other 4xx. Over HTTP/1.1 each request has a
connection of its own: a reply cannot be told apart from a stale second answer to an earlier
request on the same connection, so such a connection is never reused for another verdict.
Over HTTP/2 each request is a stream of its own, and an answer carries the stream it belongs
to, so one kept-alive connection carries many requests: a judge offers HTTP/2 over TLS (ALPN)
when the `h2` package is installed (the `http2` extra), and speaks it over plain `http://`
only when asked (`http2=True`, prior knowledge), since an HTTP/1.1-only server cannot read
that. Where a proxy is configured for the URL's scheme, HTTP/2 too goes through httpx, which
speaks to proxies. Each attempt also passes the request gate of its context
(`use_request_gate`), keyed by provider and model, which a 429 (or a 503 with `Retry-After`)
pauses for every process sharing it.

API keys are read from an environment variable when a request is sent and never stored on the
judge, so they cannot show up in a repr, a pickle, a log line or an error message; the key and
the values of credential-bearing `headers=` are scrubbed from everything a reply puts into a
result, an error or a log line: written plainly, in every JSON escape form (at any depth of
JSON inside JSON), and once more after the verdict is parsed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import functools
import importlib.util
import json
import logging
import math
import os
import random
import re
import ssl
import time
import urllib.request
import weakref
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import anyio
import certifi
import httpx
import msgspec

from chatassert._errors import JudgeError, MissingExtraError
from chatassert._judging import (
    JudgeRequest,
    Verdict,
    judge_slot,
    record_judge_request,
    record_judge_usage,
    template_fields,
)
from chatassert.judges._gate import GateKey, RequestGate, request_gate
from chatassert.judges._prompts import (
    DEFAULT_SYSTEM_PROMPT,
    MANY_SYSTEM_PROMPT,
    VERDICT_SCHEMA,
    VERDICTS_SCHEMA,
    JudgeReplyError,
    extract_json,
    loads_strict,
    render_many,
    render_prompt,
    shortened,
    verdict_from,
    verdicts_from,
)

if TYPE_CHECKING:
    from chatassert.judges import _h2

__all__ = ["DEFAULT_MAX_REPLY_BYTES", "AnthropicJudge", "HTTPJudge", "OpenAIJudge"]

log = logging.getLogger("chatassert.judges")

DEFAULT_MAX_REPLY_BYTES = 10 * 1024 * 1024
"""The largest reply body a judge reads, after decompression (10 MiB)."""

_CREDENTIAL_HEADER = re.compile(r"auth|key|token|secret|cookie|passw|signature|session", re.I)
"""Header names whose values are treated as secrets (`Authorization`, `x-api-key`, ...)."""

_UNSENDABLE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]|\A\s|\s\Z")
"""What a header value cannot hold: a control character but tab, or whitespace at either end."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""A header name (an HTTP token)."""

_Outcome = TypeVar("_Outcome", bound=Verdict | JudgeError)

_HTTP2_EXTRA = (
    "HTTP/2 needs the h2 package, which is not installed: pip install 'chatassert[http2]' "
    "(or leave http2= unset to speak HTTP/2 only where it is installed)"
)
"""The message for `http2=True` without the `h2` package."""


def _h2_installed() -> bool:
    """Whether httpx can speak HTTP/2 here (the `h2` package is importable)."""
    return importlib.util.find_spec("h2") is not None


class HTTPJudge:
    """Shared machinery of the HTTP judges (subclass it for another wire format).

    Args:
        model: The model to ask (a per-assertion `model` overrides it per request).
        base_url: The API's base URL.
        api_key_env: The environment variable holding the API key (read per request).
        timeout: The deadline of one request, in seconds: connecting, sending it and reading
            the whole reply must end within it, however the server paces its bytes; a request
            that runs out of it is a timeout (retried like one). Each retry has a deadline of
            its own, so one verdict waits at most `(retries + 1) * timeout` for replies, plus
            the delays between attempts (each at most `max(max_backoff, max_retry_after)`).
        retries: Retries after the first attempt, for transient faults.
        backoff: The first retry delay in seconds; it doubles per retry, with jitter.
        max_backoff: The largest delay between retries.
        max_retry_after: The largest `Retry-After` honoured; a longer one is capped.
        temperature: The sampling temperature.
        max_tokens: The largest reply, in tokens.
        system_prompt: Replaces the default instructions for one criterion.
        prompt: A user-prompt template (`{{criteria}}`, `{{response}}`, `{{input}}`,
            `{{conversation}}`, `{{tool_calls}}`) replacing the default layout.
        headers: Further HTTP headers. The values of credential-bearing ones (a name with
            `auth`, `key`, `token`, `secret`, `cookie`, `password`, `signature` or `session`)
            are redacted wherever a reply could echo them and left out of cache keys. A value
            may not hold a control character (tab aside) or start or end with whitespace.
        max_reply_bytes: The largest reply body read, after decompression; a larger one is
            an error (default 10 MiB).
        http2: Whether to speak HTTP/2, each request on a stream of its own over one
            kept-alive connection. `None` (the default): offered over `https://` (ALPN) when
            the `h2` package is installed, HTTP/1.1 otherwise and over `http://`. `True`:
            offered over `https://`, and spoken over `http://` with prior knowledge (h2c; an
            HTTP/1.1-only server fails every request); without `h2` a `MissingExtraError`.
            `False`: HTTP/1.1 only. Over HTTP/1.1 a connection is never reused.

    Raises:
        MissingExtraError: for `http2=True` when the `h2` package is not installed.
    """

    provider: ClassVar[str] = ""
    default_base_url: ClassVar[str] = ""
    default_key_env: ClassVar[str] = ""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        system_prompt: str | None = None,
        prompt: str | None = None,
        headers: Mapping[str, str] | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        http2: bool | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("a judge needs a model name (a non-empty string)")
        for label, number in (
            ("timeout", timeout),
            ("backoff", backoff),
            ("max_backoff", max_backoff),
            ("max_retry_after", max_retry_after),
        ):
            # Every wait is bounded: no infinite (or NaN) deadline, back-off or Retry-After cap.
            if (
                isinstance(number, bool)
                or not isinstance(number, int | float)
                or not math.isfinite(number)
                or number < 0
            ):
                raise ValueError(f"{label} must be a finite non-negative number, got {number!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be more than 0 seconds, got {timeout!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be a non-negative integer, got {retries!r}")
        if (
            isinstance(max_reply_bytes, bool)
            or not isinstance(max_reply_bytes, int)
            or max_reply_bytes < 1
        ):
            raise ValueError(f"max_reply_bytes must be a positive integer, got {max_reply_bytes!r}")
        if prompt is not None:
            template_fields(prompt)
        if http2 is not None and not isinstance(http2, bool):
            raise TypeError(f"http2 must be True, False or None, got {http2!r}")
        if http2 is True and not _h2_installed():
            raise MissingExtraError(_HTTP2_EXTRA, name="h2")
        for name, value in (headers or {}).items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise TypeError(f"headers= maps names to strings, got {name!r}: {type(value)}")
            if not _TOKEN.fullmatch(name):
                raise ValueError(f"{name!r} is not an HTTP header name (letters, digits, -_.)")
            if not _sendable(value):  # the value is never shown: it may be a credential
                raise ValueError(
                    f"the value of header {name!r} has a control character or starts or ends "
                    "with whitespace, which an HTTP header cannot carry"
                )
        self.model = model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.api_key_env = api_key_env or self.default_key_env
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        self.temperature = float(temperature)
        if not math.isfinite(self.temperature):
            raise ValueError(f"temperature must be a finite number, got {temperature!r}")
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt
        self.prompt = prompt
        self.headers = dict(headers or {})
        self.max_reply_bytes = max_reply_bytes
        self.http2 = http2
        self.name = f"{self.provider}:{model}"
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Pools]
        self._clients = weakref.WeakKeyDictionary()
        self._closers: set[asyncio.Task[None]] = set()
        self._ssl: _Contexts | None = None

    # -- identity -------------------------------------------------------------------------

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r}, "
            f"api_key_env={self.api_key_env!r})"
        )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_clients", None)
        state.pop("_closers", None)
        state.pop("_ssl", None)
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__dict__.update(state)
        self._clients = weakref.WeakKeyDictionary()
        self._closers = set()
        self._ssl = None

    def cache_params(self) -> dict[str, Any]:
        """The settings that change a verdict, for cache keys."""
        params: dict[str, Any] = {
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "system": self._system(1),
        }
        if self.prompt is not None:  # the rendered prompt is not always the single one
            params["prompt"] = self.prompt
        routing = {k: v for k, v in self.headers.items() if not _CREDENTIAL_HEADER.search(k)}
        if routing:  # a header may route to another model; a credential changes no verdict
            params["headers"] = dict(sorted(routing.items()))
        return params

    # -- prompts --------------------------------------------------------------------------

    def render(self, request: JudgeRequest) -> str:
        """Return the user prompt this judge sends for `request`."""
        return render_prompt(request, self.prompt)

    def render_many(self, requests: Sequence[JudgeRequest]) -> str:
        """Return the user prompt this judge sends for several criteria of one subject."""
        return render_many(requests)

    def _system(self, count: int) -> str:
        if count == 1:
            return self.system_prompt or DEFAULT_SYSTEM_PROMPT
        return MANY_SYSTEM_PROMPT

    # -- judging --------------------------------------------------------------------------

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Ask the model for a verdict on `request`.

        Raises:
            JudgeError: after the last retry of a transient fault (naming the cause), on a
                non-retryable HTTP error, or (as `JudgeReplyError`, with the raw reply) when
                the reply is not a usable verdict.
        """
        prompt = self.render(request)
        try:
            reply, raw = await self._exchange(request.model or self.model, prompt, 1)
            verdict = verdict_from(reply, raw=raw, prompt=prompt)
        except JudgeError as exc:
            self._scrubbed(exc)  # in place: the error keeps its traceback
            raise
        return self._scrubbed(verdict)

    async def judge_many(self, requests: Sequence[JudgeRequest]) -> list[Verdict | JudgeError]:
        """Grade several criteria of one subject in a single request, one verdict each.

        The requests must share the subject (response, input, conversation, tool calls) and
        model; `BatchingJudge` groups them so. A judge with its own `prompt` or `system_prompt`
        grades each criterion alone (concurrently), with its own prompts.
        """
        if len(requests) == 1 or self.prompt is not None or self.system_prompt is not None:
            # A judge's own prompt or system prompt is written for one criterion: grade alone.
            return list(await asyncio.gather(*(self._judge_alone(r) for r in requests)))
        prompt = self.render_many(requests)
        try:
            reply, raw = await self._exchange(
                requests[0].model or self.model, prompt, len(requests)
            )
            outcomes = verdicts_from(reply, len(requests), raw=raw, prompt=prompt)
        except JudgeError as exc:
            self._scrubbed(exc)  # in place: the error keeps its traceback
            raise
        return [self._scrubbed(outcome) for outcome in outcomes]

    async def _judge_alone(self, request: JudgeRequest) -> Verdict | JudgeError:
        try:
            return await self.judge(request)
        except JudgeError as exc:
            return exc

    async def _exchange(self, model: str, prompt: str, count: int) -> tuple[Any, Any]:
        """Send one prompt; return the parsed reply object and the raw reply."""
        raise NotImplementedError

    # -- transport ------------------------------------------------------------------------

    def _api_key(self) -> str | None:
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if not key and self.base_url == self.default_base_url:
            raise JudgeError(
                f"{self.name}: no API key; set the environment variable "
                f"{self.api_key_env} (or choose another with api_key_env=...)"
            )
        if key and not _sendable(key):  # never shown: the message names the variable only
            raise JudgeError(
                f"{self.name}: the API key in {self.api_key_env} has a control character or "
                "starts or ends with whitespace (a pasted newline?), which an HTTP header "
                f"cannot carry; set {self.api_key_env} again"
            )
        return key or None

    def _secrets(self) -> list[str]:
        """The API key and the credential-bearing header values (with and without a scheme),
        each also as its UTF-8 bytes read as Latin-1 (how a reply declaring that charset
        shows a non-ASCII one)."""
        found = []
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            found.append(key)
        for name, value in self.headers.items():
            if _CREDENTIAL_HEADER.search(name) and isinstance(value, str):
                found.append(value)
                token = value.partition(" ")[2].strip()  # `Bearer <token>`
                if token:
                    found.append(token)
        for secret in list(found):
            if not secret.isascii():
                found.append(secret.encode("utf-8", "surrogatepass").decode("latin-1"))
        return [s for s in found if len(s) >= 4]

    def _patterns(self) -> list[_Secret]:
        return _patterns(tuple(self._secrets()))

    def _redact(self, text: str) -> str:
        return _scrub(text, self._patterns())

    def _redact_value(self, value: Any) -> Any:
        """`_redact` every string in a decoded JSON value (keys included)."""
        return _scrub_value(value, self._patterns())

    def _scrubbed(self, outcome: _Outcome) -> _Outcome:
        """`outcome` with every string it carries redacted: a verdict's reason, raw reply and
        prompt, or an error's message and raw reply.

        This is the last step before anything a reply said leaves the judge (into a result,
        a cache, a log line), so it sees the verdict as parsed: a secret a reply escaped in a
        way the scrubbing of the reply's text did not recognise is caught here decoded.
        """
        patterns = self._patterns()
        if not patterns:
            return outcome
        if isinstance(outcome, Verdict):
            return dataclasses.replace(
                outcome,
                reason=_scrub(outcome.reason, patterns),
                raw=_scrub_value(outcome.raw, patterns),
                prompt=None if outcome.prompt is None else _scrub(outcome.prompt, patterns),
            )
        outcome.args = tuple(_scrub_value(arg, patterns) for arg in outcome.args)
        if isinstance(outcome, JudgeReplyError):
            outcome.raw = _scrub_value(outcome.raw, patterns)
            if outcome.prompt is not None:
                outcome.prompt = _scrub(outcome.prompt, patterns)
        return outcome

    def _pools(self) -> _Pools:
        loop = asyncio.get_running_loop()
        pools = self._clients.get(loop)
        if pools is None or pools.closed:
            if self._ssl is None:  # building one is slow; every loop's pools share it
                self._ssl = _Contexts()
            pools = _Pools(self._ssl, self._protocols(), self.base_url, self.timeout)
            self._clients[loop] = pools
            task = loop.create_task(self._close_at_loop_end(loop, pools))
            self._closers.add(task)
            task.add_done_callback(self._closers.discard)
        return pools

    def _protocols(self) -> tuple[bool, bool]:
        """Whether the client speaks HTTP/1.1, and whether HTTP/2 (see `http2`)."""
        wanted = getattr(self, "http2", None)  # (absent from older pickles)
        if wanted is False:
            return True, False
        if not _h2_installed():
            if wanted:  # a pickle sent where h2 is missing: say so, never fall back silently
                raise MissingExtraError(f"{self.name}: {_HTTP2_EXTRA}", name="h2")
            return True, False
        if self.base_url.lower().startswith("https://"):
            return True, True  # ALPN: the server picks HTTP/2 or HTTP/1.1
        return (False, True) if wanted else (True, False)

    async def _close_at_loop_end(self, loop: asyncio.AbstractEventLoop, pools: _Pools) -> None:
        # Waits until the loop's runner cancels its leftover tasks, then closes the pools.
        try:
            await asyncio.Event().wait()
        finally:
            if self._clients.get(loop) is pools:
                del self._clients[loop]
            await pools.aclose()

    async def _send(self, url: str, body: dict[str, Any], headers: Mapping[str, str]) -> _Reply:
        """POST once; return the reply with its decoded body.

        Over HTTP/2 the request is a stream of a kept-alive connection (`_h2`, or httpx's
        where a proxy is configured); over HTTP/1.1 it has a connection of its own.
        Connecting, sending and reading every byte of the reply share one deadline,
        `timeout` seconds: httpx's own timeouts bound each step alone, and a server that
        sends a byte now and then would keep every step short and the request going for ever.

        Raises:
            TimeoutError: when the deadline passes first (the stream or connection is closed).
            JudgeError: when the decoded body grows past `max_reply_bytes`.
            httpx.RequestError: when the connection fails, `_CONNECTION_ENDS` included.
        """
        values = {**self.headers, **headers}
        if not any(name.lower() == "content-type" for name in values):
            values["Content-Type"] = "application/json"
        values["Accept-Encoding"] = "gzip, deflate"  # decoded here, within the size cap
        content = _json_body(body)
        pools = self._pools()
        async with asyncio.timeout(self.timeout):
            if pools.lean is not None:
                reply = await self._send_h2(pools.lean, url, values, content)
                if reply is not None:
                    return reply
            return await self._send_httpx(pools.client(), url, values, content)

    async def _send_h2(
        self, lean: _h2.H2Pool, url: str, values: dict[str, str], content: bytes
    ) -> _Reply | None:
        """POST on a stream of the lean HTTP/2 client; None when the server speaks HTTP/1.1."""
        from chatassert.judges import _h2  # (h2 is an extra: imported where it is used)

        target = _h2.target(url)
        decoders: list[_Decoder] = []

        def sink(headers: Mapping[str, str]) -> _Decoder:
            decoders.append(_Decoder(headers.get("content-encoding", ""), self.max_reply_bytes))
            return decoders[-1]

        header_list, host = target.headers(values, len(content))
        if host is not None:  # a `Host` of headers= is the request's authority
            target = dataclasses.replace(
                target,
                pseudo=tuple((k, host if k == b":authority" else v) for k, v in target.pseudo),
            )
        try:
            reply = await lean.post(target, header_list, content, sink)
        except _h2.Http1Only:
            return None
        decoder = decoders[-1]
        if decoder.problem:
            raise JudgeError(f"{self.name}: {decoder.problem}")
        return _Reply(reply.status, reply.headers, reply.reason, reply.encoding, decoder.body())

    async def _send_httpx(
        self, client: httpx.AsyncClient, url: str, values: dict[str, str], content: bytes
    ) -> _Reply:
        """POST through httpx's transport, never reusing an HTTP/1.1 connection."""
        values["Connection"] = "close"
        request = client.build_request(
            "POST",
            url,
            content=content,
            # A non-ASCII value goes as its UTF-8 bytes (httpx would refuse it as text).
            headers=[(k.encode("ascii"), v.encode("utf-8")) for k, v in values.items()],
            timeout=self.timeout,
        )
        try:
            response = await client.send(request, stream=True)
        except _CONNECTION_ENDS as exc:
            raise _ended(exc, request) from exc
        try:
            encoding = response.headers.get("content-encoding", "")
            decoder = _Decoder(encoding, self.max_reply_bytes)
            if decoder.problem:
                raise JudgeError(f"{self.name}: {decoder.problem}")
            async for chunk in response.aiter_raw():
                decoder.feed(chunk)
                if decoder.problem:
                    raise JudgeError(f"{self.name}: {decoder.problem}")
        except _CONNECTION_ENDS as exc:
            raise _ended(exc, request) from exc
        finally:
            await response.aclose()
        return _Reply(
            response.status_code,
            response.headers,
            response.reason_phrase,
            response.encoding or "utf-8",
            decoder.body(),
        )

    async def aclose(self) -> None:
        """Close the connection pools of the running event loop (a later request reopens them)."""
        loop = asyncio.get_running_loop()
        pools = self._clients.pop(loop, None)
        if pools is not None:
            await pools.aclose()

    async def __aenter__(self) -> HTTPJudge:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def _retry_delay(self, attempt: int, retry_after: float | None) -> float:
        delay: float = min(self.max_backoff, self.backoff * 2.0**attempt)
        delay *= 0.5 + random.random() / 2  # jitter: between half and the full delay
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_retry_after))
        return delay

    def _error_status(self, status: int, text: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """Hook for a non-retryable 4xx (`text` is its body): a new body to resend, or None."""
        return None

    async def _gated(
        self,
        gate: RequestGate,
        key: GateKey,
        url: str,
        body: dict[str, Any],
        headers: Mapping[str, str],
    ) -> _Reply:
        """`_send` once `gate` admits `key`; a 429, or a 503 with `Retry-After`, pauses the key
        (before it is released, so no request slips through in between)."""
        await gate.acquire(key)
        try:
            record_judge_request(body.get("model"))
            reply = await self._send(url, body, headers)
            status = reply.status
            if status == 429 or status == 503:
                retry_after = _retry_after(reply.headers)
                if status == 429 or retry_after is not None:  # honoured up to max_retry_after
                    capped = None if retry_after is None else min(retry_after, self.max_retry_after)
                    await gate.pause(key, capped)
            return reply
        finally:
            await gate.release(key)

    async def _post(
        self, path: str, body: dict[str, Any], headers: Mapping[str, str], prompt: str
    ) -> Any:
        """POST `body` with retries; return the decoded JSON reply."""
        url = f"{self.base_url}{path}"
        attempts = self.retries + 1
        cause = "no attempt made"
        attempt = 0
        gate = request_gate()
        key = (self.provider or type(self).__name__, str(body.get("model") or self.model))
        while attempt < attempts:
            retry_after: float | None = None
            try:
                async with judge_slot():
                    if gate is None:
                        record_judge_request(body.get("model"))  # made, answered or not
                        reply = await self._send(url, body, headers)
                    else:
                        reply = await self._gated(gate, key, url, body, headers)
            except (httpx.TimeoutException, TimeoutError):
                cause = (
                    f"timed out after {self.timeout:g} s (the deadline of one request: "
                    "connecting, sending and reading the whole reply)"
                )
            except httpx.RequestError as exc:
                cause = f"connection failed ({type(exc).__name__}: {exc or 'no detail'})"
                cause = self._redact(cause)
            else:
                status, content = reply.status, reply.body
                if 200 <= status < 300:
                    try:
                        # Redacted here, so no raw reply kept in a result can hold the key.
                        data = self._redact_value(loads_strict(content))
                    except ValueError as exc:
                        text = self._redact(content.decode(reply.encoding, "replace"))
                        raise JudgeReplyError(
                            f"{self.name}: HTTP {status} but the body is not a JSON reply "
                            f"({self._redact(str(exc))}): {shortened(text)!r}",
                            raw=text,
                            prompt=prompt,
                        ) from None
                    if isinstance(data, dict) and isinstance(data.get("usage"), dict):
                        record_judge_usage(body.get("model"), data["usage"])
                    return data
                text = self._redact(content.decode(reply.encoding, "replace"))
                detail = shortened(text)
                if status == 429 or status >= 500:
                    cause = f"HTTP {status} {reply.reason}: {detail}"
                    retry_after = _retry_after(reply.headers)
                else:
                    resend = self._error_status(status, text, body)
                    if resend is not None:
                        body = resend
                        continue
                    raise JudgeError(
                        f"{self.name}: HTTP {status} {reply.reason} (not retried): {detail}"
                    )
            attempt += 1
            if attempt >= attempts:
                break
            delay = self._retry_delay(attempt - 1, retry_after)
            log.info(
                "%s: %s; retry %d of %d in %.3f s%s",
                self.name,
                cause,
                attempt,
                self.retries,
                delay,
                " (server asked via Retry-After)" if retry_after is not None else "",
            )
            await asyncio.sleep(delay)
        raise JudgeError(
            f"{self.name}: gave up after {attempts} attempt{'s' if attempts != 1 else ''}: "
            f"{self._redact(cause)}"
        )


@dataclasses.dataclass(frozen=True)
class _Reply:
    """A reply as `_post` reads it, over either client."""

    status: int
    headers: Mapping[str, str]  # looked up by lowercase name
    reason: str
    encoding: str
    body: bytes


class _Contexts:
    """A judge's TLS contexts, built once (building one is slow): httpx's, on which httpx
    sets the ALPN protocols itself, and the lean HTTP/2 client's, offering `h2` first; both
    trust the same authorities (`_ssl_context`)."""

    def __init__(self) -> None:
        self.httpx = _ssl_context()
        self.lean = _ssl_context()
        self.lean.set_alpn_protocols(["h2", "http/1.1"])


class _Pools:
    """The HTTP clients of one event loop: the lean HTTP/2 client and httpx's transport.

    HTTP/2 goes through the lean client (`_h2`), one kept-alive connection carrying a stream
    per request, up to the server's limit of concurrent streams (another connection past
    it), unless a proxy is configured for the URL's scheme: httpx honours proxies, and
    carries HTTP/2 then. HTTP/1.1 goes through httpx, and its connections are never reused:
    without HTTP/2 none is kept alive, and every request says `Connection: close` (which
    closes its HTTP/1.1 connection after the reply even where HTTP/2 connections are kept).
    An origin whose server chooses HTTP/1.1 over ALPN gets its later requests sent by httpx
    straight away.
    """

    def __init__(
        self, contexts: _Contexts, protocols: tuple[bool, bool], base_url: str, timeout: float
    ) -> None:
        self.contexts = contexts
        self.http1, self.http2 = protocols
        self.lean: _h2.H2Pool | None = None
        scheme = base_url.partition("://")[0].lower()
        if self.http2 and not _proxied(scheme):
            from chatassert.judges import _h2  # (h2 is an extra: imported where it is used)

            self.lean = _h2.H2Pool(contexts.lean, timeout)
        self._client: httpx.AsyncClient | None = None
        self.closed = False

    def client(self) -> httpx.AsyncClient:
        """httpx's client (made on first use)."""
        if self._client is None:
            self._client = httpx.AsyncClient(
                verify=self.contexts.httpx,
                follow_redirects=False,
                http1=self.http1 or self.lean is not None,  # the lean client's HTTP/1.1 origins
                http2=self.http2 and self.lean is None,
                limits=httpx.Limits(
                    max_connections=None,
                    max_keepalive_connections=_KEPT_ALIVE if self.http2 else 0,
                ),
            )
        return self._client

    async def aclose(self) -> None:
        """Close both clients' connections."""
        self.closed = True
        if self.lean is not None:
            await self.lean.aclose()
        if self._client is not None:
            await self._client.aclose()


def _proxied(scheme: str) -> bool:
    """Whether a proxy is configured for `scheme` (as httpx reads it: `urllib`'s
    `getproxies`, the `*_PROXY` variables and the system's settings); `NO_PROXY` is left to
    httpx."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get(scheme) or proxies.get("all"))


def _json_body(body: dict[str, Any]) -> bytes:
    """A request body as compact UTF-8 JSON (as httpx writes `json=`, several times faster;
    the only float a judge sends, its temperature, is finite)."""
    return msgspec.json.encode(body)


_CONNECTION_ENDS = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError)
"""How the TLS stream under httpx's HTTP/2 connections can end that httpx does not map to its
own errors (seen when a server drops a connection while a window update is being written)."""


def _ended(exc: Exception, request: httpx.Request) -> httpx.ReadError:
    """The connection failure a `_CONNECTION_ENDS` error is (retried like any other)."""
    return httpx.ReadError(f"the connection ended ({type(exc).__name__})", request=request)


_KEPT_ALIVE = 16
"""How many idle HTTP/2 connections a judge keeps per event loop (one per server is typical)."""


def _ssl_context() -> ssl.SSLContext:
    """The TLS context of the judges: the CA bundle in `SSL_CERT_FILE` or the folder in
    `SSL_CERT_DIR` when set (as httpx and OpenSSL read them), certifi's bundle otherwise."""
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    return ssl.create_default_context(cafile=certifi.where())


class _Decoder:
    """Undo a reply's `gzip` or `deflate` encoding a bounded piece at a time, up to `limit` bytes.

    httpx would inflate a whole network chunk at once, and a few kilobytes of a compression
    bomb inflate to hundreds of megabytes; here no step produces more than the cap allows.
    """

    def __init__(self, encoding: str, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.problem = ""
        self.chunks: list[bytes] = []
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        self.inflate: Any = None
        self.raw_deflate = False
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            self.problem = f"the reply has an unsupported Content-Encoding: {encoding!r}"
        elif codings:
            # gzip, or zlib-wrapped deflate (32 + 15: detect the header); raw deflate below.
            self.inflate = zlib.decompressobj(32 + 15)
            self.raw_deflate = codings[0] == "deflate"

    def feed(self, data: bytes) -> None:
        """Decode `data` and keep it, or set `problem` (too large, or not decodable)."""
        if self.inflate is None:
            self._keep(data)
            return
        pending = data
        try:
            while pending and not self.problem:
                out = self.inflate.decompress(pending, self.limit - self.size + 1)
                pending = self.inflate.unconsumed_tail
                self._keep(out)
        except zlib.error as exc:
            if self.raw_deflate and self.size == 0:  # `deflate` sent without its zlib header
                self.inflate, self.raw_deflate = zlib.decompressobj(-15), False
                self.feed(data)
            else:
                self.problem = f"the reply's compressed body is corrupt ({exc})"

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            self.problem = (
                f"the reply is larger than {self.limit} bytes "
                "(raise max_reply_bytes= if the judge really needs that much)"
            )
        elif data:
            self.chunks.append(data)

    def body(self) -> bytes:
        """The decoded body so far."""
        return b"".join(self.chunks)


def _sendable(value: str) -> bool:
    """Whether an HTTP header can carry `value` (see `_UNSENDABLE`)."""
    return _UNSENDABLE.search(value) is None


def _scrub(text: str, patterns: list[_Secret]) -> str:
    for pattern in patterns:
        text = pattern.redact(text)
    return text


def _scrub_value(value: Any, patterns: list[_Secret]) -> Any:
    """A copy of `value` with `_scrub` applied to every string in it (keys included).

    Iterative, so a value nested deeper than the recursion limit is scrubbed too; lists and
    tuples come back as lists, mappings as dicts, anything else as it is.
    """
    if not patterns:
        return value

    def fresh(item: Any) -> Any:  # a scrubbed string, an empty container to fill, or the item
        if isinstance(item, str):
            return _scrub(item, patterns)
        if isinstance(item, list | tuple):
            return []
        if isinstance(item, Mapping):
            return {}
        return item

    out = fresh(value)
    stack: list[tuple[Any, Any]] = []
    if isinstance(value, list | tuple | Mapping):
        stack.append((value, out))
    while stack:
        item, copy = stack.pop()
        pairs = item.items() if isinstance(item, Mapping) else enumerate(item)
        for key, child in pairs:
            new = fresh(child)
            if isinstance(item, Mapping):
                copy[_scrub(str(key), patterns)] = new
            else:
                copy.append(new)
            if isinstance(child, list | tuple | Mapping):
                stack.append((child, new))
    return out


_DEPTH = 4
"""How many levels of JSON inside JSON redaction looks through: a verdict's JSON in a reply's
JSON is two; a reply quoting such a reply, three."""

_SHORT_ESCAPES = {'"': '"', "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
"""JSON's two-character escapes, by the character they stand for (the backslash aside)."""


@dataclasses.dataclass(frozen=True)
class _Secret:
    """A secret and the pattern of its written forms (see `_secret`)."""

    plain: str
    pattern: re.Pattern[str]

    def redact(self, text: str) -> str:
        """`text` with every written form of the secret replaced by `[redacted]`."""
        if "\\" not in text and self.plain not in text:
            return text  # every escaped form holds a backslash: nothing to search for
        return self.pattern.sub("[redacted]", text)


@functools.lru_cache(maxsize=64)
def _patterns(secrets: tuple[str, ...]) -> list[_Secret]:
    """The patterns of `secrets`, longest first: a header value holding the key is redacted
    whole, not around it. (The callers only read the list.)"""
    return [_secret(s) for s in sorted(set(secrets), key=len, reverse=True)]


@functools.lru_cache(maxsize=64)
def _secret(secret: str) -> _Secret:
    r"""The pattern of `secret` written plainly or as JSON string content up to four levels deep.

    At each depth, each character may be itself, `\uXXXX` (hex digits in either case; a
    surrogate pair beyond the Basic Multilingual Plane) or its short escape (`\"`, `\/`,
    `\n`, ...), behind the backslashes the levels above it doubled; a backslash of the secret
    is exactly `2**depth` backslashes, or `\u005c` behind half as many. Backslash counts are
    exact or end at a letter, so no search backtracks far: it takes time linear in the text,
    whatever a reply puts in it (an unbounded `\+` made a reply of backslashes quadratic).
    The deepest form is tried first, so the whole escaped secret is redacted, not a part.

    Example:
        >>> _secret('sk-"1/2').redact('a sk\\u002D\\"1\\/2 b')
        'a [redacted] b'
        >>> _secret('sk-"1/2').redact('a sk-\\\\\\"1\\\\/2 b')
        'a [redacted] b'
    """
    depths = []
    for depth in range(_DEPTH, 0, -1):
        half = 2 ** (depth - 1)
        run = rf"\\{{1,{2 * half}}}"  # ends at the escape's letter: no backtracking
        parts = []
        for char in secret:
            code = ord(char)
            if char == "\\":
                parts.append(rf"(?:\\{{{half}}}u(?i:005c)|\\{{{2 * half}}})")
                continue
            forms = [re.escape(char)]
            if code > 0xFFFF:
                high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
                forms.append(rf"{run}u(?i:{high:04x}){run}u(?i:{low:04x})")
            else:
                forms.append(rf"{run}u(?i:{code:04x})")
            if char in _SHORT_ESCAPES:
                forms.append(run + re.escape(_SHORT_ESCAPES[char]))
            parts.append(f"(?:{'|'.join(forms)})")
        depths.append("".join(parts))
    depths.append(re.escape(secret))
    return _Secret(secret, re.compile("|".join(f"(?:{d})" for d in depths)))


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Read `retry-after-ms` or `Retry-After` (seconds or an HTTP date) as seconds."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _text_content(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        texts = [p.get("text", "") for p in content if isinstance(p, Mapping)]
        return "".join(t for t in texts if isinstance(t, str))
    return None


_FORMAT_WORDS = ("response_format", "response format", "json_schema", "schema")
"""Words in a 400/422 error body that show the server rejected `response_format` itself."""


class OpenAIJudge(HTTPJudge):
    """A judge over an OpenAI-compatible chat-completions API (OpenAI, vLLM, Ollama, LiteLLM).

    It asks for a JSON-schema structured verdict; a server that rejects `response_format` with
    400/422 (an error naming `response_format` or a schema) is asked again without it, and so
    is every later request of this judge (its `response_format` setting stays as given); the
    verdict is then extracted from plain, fenced or embedded JSON. Any other 400/422 is an
    error. A refusal is an error, never a pass.

    Args:
        model: The model name.
        response_format: `json_schema` (default), `json_object`, or `none`.
        **options: See `HTTPJudge` (`base_url` defaults to `https://api.openai.com/v1`,
            `api_key_env` to `OPENAI_API_KEY`; without a key only the default URL needs one).

    Example:
        >>> judge = OpenAIJudge("gpt-4o-mini", base_url="http://localhost:11434/v1")
        >>> judge
        OpenAIJudge(model='gpt-4o-mini', base_url='http://localhost:11434/v1', \
api_key_env='OPENAI_API_KEY')
        >>> judge.name
        'openai:gpt-4o-mini'
    """

    provider = "openai"
    default_base_url = "https://api.openai.com/v1"
    default_key_env = "OPENAI_API_KEY"

    def __init__(self, model: str, *, response_format: str = "json_schema", **options: Any) -> None:
        super().__init__(model, **options)
        if response_format not in ("json_schema", "json_object", "none"):
            raise ValueError(
                f"response_format must be json_schema, json_object or none, got {response_format!r}"
            )
        self.response_format = response_format
        self._format_rejected = False

    def cache_params(self) -> dict[str, Any]:
        """The settings that change a verdict, for cache keys."""
        return {**super().cache_params(), "response_format": self.response_format}

    def _format(self, count: int) -> dict[str, Any] | None:
        if getattr(self, "_format_rejected", False):  # (absent from older pickles)
            return None
        if self.response_format == "json_schema":
            schema = VERDICT_SCHEMA if count == 1 else VERDICTS_SCHEMA
            return {
                "type": "json_schema",
                "json_schema": {
                    "name": "verdict" if count == 1 else "verdicts",
                    "strict": True,
                    "schema": schema,
                },
            }
        if self.response_format == "json_object":
            return {"type": "json_object"}
        return None

    def _error_status(self, status: int, text: str, body: dict[str, Any]) -> dict[str, Any] | None:
        if (
            status in (400, 422)
            and "response_format" in body
            and any(word in text.lower() for word in _FORMAT_WORDS)
        ):
            log.info("%s: the server rejected response_format; asking again without it", self.name)
            self._format_rejected = True  # this judge's later requests go without it too
            return {k: v for k, v in body.items() if k != "response_format"}
        return None

    async def _exchange(self, model: str, prompt: str, count: int) -> tuple[Any, Any]:
        body: dict[str, Any] = {
            "model": model,
            "messages": [
                {"role": "system", "content": self._system(count)},
                {"role": "user", "content": prompt},
            ],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        response_format = self._format(count)
        if response_format is not None:
            body["response_format"] = response_format
        headers = {}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = await self._post("/chat/completions", body, headers, prompt)
        choices = data.get("choices") if isinstance(data, Mapping) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise JudgeReplyError(f"{self.name}: the reply has no choices", raw=data, prompt=prompt)
        message = choices[0].get("message") or {}
        refusal = message.get("refusal") if isinstance(message, Mapping) else None
        if refusal:
            raise JudgeReplyError(
                f"{self.name}: the judge refused: {shortened(str(refusal))}",
                raw=refusal,
                prompt=prompt,
            )
        content = _text_content(message.get("content") if isinstance(message, Mapping) else None)
        if choices[0].get("finish_reason") == "content_filter":
            raise JudgeReplyError(
                f"{self.name}: the judge refused (content filter)", raw=content, prompt=prompt
            )
        if not content or not content.strip():
            raise JudgeReplyError(
                f"{self.name}: the judge's reply is empty", raw=data, prompt=prompt
            )
        try:
            reply = extract_json(content, key="passed" if count == 1 else "verdicts")
        except JudgeReplyError as exc:
            raise JudgeReplyError(f"{self.name}: {exc}", raw=content, prompt=prompt) from None
        return reply, content


class AnthropicJudge(HTTPJudge):
    """A judge over the Anthropic Messages API, forcing a tool call that carries the verdict.

    Args:
        model: The model name.
        version: The `anthropic-version` header.
        **options: See `HTTPJudge` (`base_url` defaults to `https://api.anthropic.com`,
            `api_key_env` to `ANTHROPIC_API_KEY`, sent as `x-api-key`).

    Example:
        >>> AnthropicJudge("claude-3-5-haiku-latest").name
        'anthropic:claude-3-5-haiku-latest'
    """

    provider = "anthropic"
    default_base_url = "https://api.anthropic.com"
    default_key_env = "ANTHROPIC_API_KEY"
    tool_name = "record_verdict"

    def __init__(self, model: str, *, version: str = "2023-06-01", **options: Any) -> None:
        super().__init__(model, **options)
        self.version = version

    async def _exchange(self, model: str, prompt: str, count: int) -> tuple[Any, Any]:
        schema = VERDICT_SCHEMA if count == 1 else VERDICTS_SCHEMA
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "system": self._system(count),
            "messages": [{"role": "user", "content": prompt}],
            "tools": [
                {
                    "name": self.tool_name,
                    "description": "Record the grading verdict.",
                    "input_schema": schema,
                }
            ],
            "tool_choice": {"type": "tool", "name": self.tool_name},
        }
        headers = {"anthropic-version": self.version}
        key = self._api_key()
        if key:
            headers["x-api-key"] = key
        data = await self._post("/v1/messages", body, headers, prompt)
        blocks = data.get("content") if isinstance(data, Mapping) else None
        if not isinstance(blocks, list):
            raise JudgeReplyError(f"{self.name}: the reply has no content", raw=data, prompt=prompt)
        for block in blocks:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "tool_use"
                and block.get("name") == self.tool_name
            ):
                arguments = block.get("input")
                return arguments, json.dumps(arguments, ensure_ascii=False, default=str)
        text = "".join(
            b.get("text", "") for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"
        )
        if data.get("stop_reason") == "refusal":
            raise JudgeReplyError(
                f"{self.name}: the judge refused: {shortened(text)}",
                raw=text or data,
                prompt=prompt,
            )
        try:
            reply = extract_json(text, key="passed" if count == 1 else "verdicts")
        except JudgeReplyError:
            raise JudgeReplyError(
                f"{self.name}: the judge did not call {self.tool_name}: {shortened(text)!r}",
                raw=text or data,
                prompt=prompt,
            ) from None
        return reply, text
