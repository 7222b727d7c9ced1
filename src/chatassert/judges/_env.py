"""Judge configuration from environment variables."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import Any

from chatassert._cache import CachedJudge, default_cache_path
from chatassert._errors import JudgeError
from chatassert._judging import Judge
from chatassert.judges._batch import BatchingJudge
from chatassert.judges._http import AnthropicJudge, HTTPJudge, OpenAIJudge
from chatassert.judges._settings import env_number

__all__ = ["ENV_VARS", "judge_from_env"]

ENV_VARS = {
    "CHATASSERT_JUDGE": "which judge: openai (any OpenAI-compatible server) or anthropic",
    "CHATASSERT_JUDGE_MODEL": "the judge model (a per-assertion model overrides it)",
    "CHATASSERT_JUDGE_BASE_URL": "the API base URL (default: the provider's)",
    "CHATASSERT_JUDGE_API_KEY_ENV": "the variable holding the API key "
    "(default OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    "CHATASSERT_JUDGE_TIMEOUT": "seconds per request (default 60)",
    "CHATASSERT_JUDGE_RETRIES": "retries after the first attempt (default 2)",
    "CHATASSERT_JUDGE_CONCURRENCY": "judge requests in flight in batch runs (default 32)",
    "CHATASSERT_JUDGE_CACHE": "the cache file, or off (default: on, in the user cache dir)",
    "CHATASSERT_JUDGE_BATCH": "1 to grade several rubrics of one subject in one request",
}
"""The documented environment variables and what they mean."""

_KINDS: dict[str, type[HTTPJudge]] = {"openai": OpenAIJudge, "anthropic": AnthropicJudge}
_OFF = ("", "0", "off", "false", "no", "none")
_memo: dict[tuple[Any, ...], Judge] = {}
_memo_lock = threading.Lock()


def judge_from_env(
    model: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cache: bool | str | None = None,
) -> Judge:
    """Build the judge the environment variables describe (see `ENV_VARS`).

    The same configuration gives the same judge object (so its connection pool and cache are
    shared across checks).

    Args:
        model: A per-assertion model; it wins over `CHATASSERT_JUDGE_MODEL`.
        environ: The variables to read (default `os.environ`).
        cache: `True`/`False` to force the verdict cache on or off, or a file path; default
            `CHATASSERT_JUDGE_CACHE` (a path, or `off`), on in the user cache directory.

    Raises:
        JudgeError: naming the variable to set when the configuration is missing or wrong.

    Example:
        >>> judge = judge_from_env(environ={"CHATASSERT_JUDGE": "openai",
        ...                                 "CHATASSERT_JUDGE_MODEL": "gpt-4o-mini",
        ...                                 "CHATASSERT_JUDGE_CACHE": "off"})
        >>> judge
        OpenAIJudge(model='gpt-4o-mini', base_url='https://api.openai.com/v1', \
api_key_env='OPENAI_API_KEY')
        >>> judge_from_env("gpt-4o", environ={"CHATASSERT_JUDGE": "openai",
        ...                                   "CHATASSERT_JUDGE_CACHE": "off"}).model
        'gpt-4o'
    """
    env = os.environ if environ is None else environ
    kind = (env.get("CHATASSERT_JUDGE") or "").strip().lower()
    if not kind:
        raise JudgeError(
            "no judge configured: set CHATASSERT_JUDGE to openai or anthropic and "
            "CHATASSERT_JUDGE_MODEL to the model, or pass judge=... in code"
        )
    if kind not in _KINDS:
        raise JudgeError(f"CHATASSERT_JUDGE must be openai or anthropic, got {kind!r}")
    chosen = model or env.get("CHATASSERT_JUDGE_MODEL")
    if not chosen:
        raise JudgeError(
            f"CHATASSERT_JUDGE is {kind!r} but no model is set: set "
            "CHATASSERT_JUDGE_MODEL (or give the assertion a model)"
        )
    if cache is None:
        setting = env.get("CHATASSERT_JUDGE_CACHE")
        cache = True if setting is None else (False if setting.strip().lower() in _OFF else setting)
    if cache is True:
        cache = str(default_cache_path())
    config = (
        kind,
        chosen,
        env.get("CHATASSERT_JUDGE_BASE_URL") or None,
        env.get("CHATASSERT_JUDGE_API_KEY_ENV") or None,
        env_number(env, "CHATASSERT_JUDGE_TIMEOUT", 60.0),
        int(env_number(env, "CHATASSERT_JUDGE_RETRIES", 2)),
        cache,
        (env.get("CHATASSERT_JUDGE_BATCH") or "").strip().lower() not in _OFF,
    )
    with _memo_lock:
        judge = _memo.get(config)
        if judge is None:
            judge = _memo[config] = _build(*config)
    return judge


def _build(
    kind: str,
    model: str,
    base_url: str | None,
    key_env: str | None,
    timeout: float,
    retries: int,
    cache: bool | str,
    batch: bool,
) -> Judge:
    judge: Judge = _KINDS[kind](
        model, base_url=base_url, api_key_env=key_env, timeout=timeout, retries=retries
    )
    if cache is not False:
        judge = CachedJudge(judge, None if cache is True else cache)
    if batch:
        judge = BatchingJudge(judge)
    return judge
