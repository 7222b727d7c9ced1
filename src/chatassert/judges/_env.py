"""Judge configuration from environment variables: the default judge, named judges and named
prompt templates."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import Any

from chatassert._cache import CachedJudge, VerdictStore, default_cache_path, verdict_store
from chatassert._errors import JudgeError
from chatassert._judging import Judge
from chatassert._params import did_you_mean
from chatassert.judges._batch import BatchingJudge
from chatassert.judges._http import AnthropicJudge, HTTPJudge, OpenAIJudge
from chatassert.judges._settings import env_number

__all__ = ["ENV_VARS", "judge_from_env", "named_judge", "named_judges", "named_prompts"]

ENV_VARS = {
    "CHATASSERT_JUDGE": "which judge: openai (any OpenAI-compatible server) or anthropic",
    "CHATASSERT_JUDGE_MODEL": "the judge model (a per-assertion model overrides it)",
    "CHATASSERT_JUDGE_BASE_URL": "the API base URL (default: the provider's)",
    "CHATASSERT_JUDGE_API_KEY_ENV": "the variable holding the API key "
    "(default OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    "CHATASSERT_JUDGE_TIMEOUT": "the deadline of each request, in seconds (default 60)",
    "CHATASSERT_JUDGE_RETRIES": "retries after the first attempt (default 2)",
    "CHATASSERT_JUDGE_CONCURRENCY": "judge requests in flight in batch runs (default 32)",
    "CHATASSERT_JUDGE_CACHE": "the cache file, or off (default: on, in the user cache dir)",
    "CHATASSERT_JUDGE_BATCH": "1 to grade several rubrics of one subject in one request",
    "CHATASSERT_JUDGES": "named judges, a JSON object: "
    '{"strict": {"judge": "openai", "model": "gpt-4o"}, ...}',
    "CHATASSERT_JUDGE_PROMPTS": "named prompt templates, a JSON object: "
    '{"terse": "Grade {{response}} against {{criteria}}"}',
}
"""The documented environment variables and what they mean."""

JUDGES_VAR = "CHATASSERT_JUDGES"
PROMPTS_VAR = "CHATASSERT_JUDGE_PROMPTS"

# The settings of a named judge, and the variable of the default judge each one stands for.
_NAMED_SETTINGS = {
    "judge": "CHATASSERT_JUDGE",
    "model": "CHATASSERT_JUDGE_MODEL",
    "base_url": "CHATASSERT_JUDGE_BASE_URL",
    "api_key_env": "CHATASSERT_JUDGE_API_KEY_ENV",
    "timeout": "CHATASSERT_JUDGE_TIMEOUT",
    "retries": "CHATASSERT_JUDGE_RETRIES",
}

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
            With the cache on, a store given by `use_verdict_store` replaces the file.

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
    shared = verdict_store() if cache is not False else None
    timeout = env_number(env, "CHATASSERT_JUDGE_TIMEOUT", 60.0)
    if timeout <= 0:
        raise JudgeError(
            f"CHATASSERT_JUDGE_TIMEOUT must be more than 0 seconds, got {timeout:g}: it is "
            "the deadline of each judge request"
        )
    config = (
        kind,
        chosen,
        env.get("CHATASSERT_JUDGE_BASE_URL") or None,
        env.get("CHATASSERT_JUDGE_API_KEY_ENV") or None,
        timeout,
        int(env_number(env, "CHATASSERT_JUDGE_RETRIES", 2)),
        cache if shared is None else shared,
        (env.get("CHATASSERT_JUDGE_BATCH") or "").strip().lower() not in _OFF,
    )
    with _memo_lock:
        judge = _memo.get(config)
        if judge is None:
            judge = _memo[config] = _build(*config)
    return judge


def cache_setting(environ: Mapping[str, str] | None = None) -> str | None:
    """The verdict cache file `CHATASSERT_JUDGE_CACHE` names (default: the user cache
    directory's), or None when it turns the cache off.

    Example:
        >>> cache_setting({"CHATASSERT_JUDGE_CACHE": "off"}) is None
        True
    """
    env = os.environ if environ is None else environ
    setting = env.get("CHATASSERT_JUDGE_CACHE")
    if setting is None:
        return str(default_cache_path())
    return None if setting.strip().lower() in _OFF else setting


def _build(
    kind: str,
    model: str,
    base_url: str | None,
    key_env: str | None,
    timeout: float,
    retries: int,
    cache: bool | str | VerdictStore,
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


def _json_object(environ: Mapping[str, str], name: str) -> dict[str, Any]:
    text = environ.get(name)
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise JudgeError(f"{name} must hold a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise JudgeError(f"{name} must hold a JSON object, got {type(value).__name__}")
    return value


def named_judges(environ: Mapping[str, str] | None = None) -> dict[str, dict[str, str]]:
    """Return the named judges `CHATASSERT_JUDGES` configures: name → settings.

    The variable holds a JSON object; each judge's settings are those of the default judge's
    variables, by their last words: `judge` (`openai` or `anthropic`, required), `model`,
    `base_url`, `api_key_env`, `timeout`, `retries`. The cache, batch and concurrency
    settings are shared with the default judge.

    Raises:
        JudgeError: when the variable is not a JSON object of such settings.

    Example:
        >>> named_judges({"CHATASSERT_JUDGES": '{"strict": {"judge": "openai", "timeout": 30}}'})
        {'strict': {'judge': 'openai', 'timeout': '30'}}
    """
    env = os.environ if environ is None else environ
    out: dict[str, dict[str, str]] = {}
    for name, settings in _json_object(env, JUDGES_VAR).items():
        where = f"{JUDGES_VAR}: judge {name!r}"
        if not isinstance(settings, dict):
            raise JudgeError(f"{where} must be an object of settings, got {settings!r}")
        for key, value in settings.items():
            if key not in _NAMED_SETTINGS:
                hint = did_you_mean(key, list(_NAMED_SETTINGS))
                raise JudgeError(
                    f"{where} has an unknown setting {key!r}"
                    + (f" ({hint})" if hint else f"; settings: {', '.join(_NAMED_SETTINGS)}")
                )
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise JudgeError(f"{where}: {key} must be a string or a number, got {value!r}")
        if not settings.get("judge"):
            raise JudgeError(f"{where} needs 'judge' (openai or anthropic)")
        out[name] = {key: str(value) for key, value in settings.items()}
    return out


def named_judge(
    name: str,
    model: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cache: bool | str | None = None,
) -> Judge:
    """Build the judge `CHATASSERT_JUDGES` names `name` (see `named_judges`).

    It is built as `judge_from_env` builds the default judge, from the named judge's settings
    instead of the default judge's; `model` (an assertion's own) wins over the judge's.

    Raises:
        JudgeError: when no judge has that name (naming the ones there are), or its settings
            are wrong.

    Example:
        >>> env = {"CHATASSERT_JUDGES": '{"strict": {"judge": "openai", "model": "gpt-4o"}}',
        ...        "CHATASSERT_JUDGE_CACHE": "off"}
        >>> named_judge("strict", environ=env).name
        'openai:gpt-4o'
    """
    env = os.environ if environ is None else environ
    judges = named_judges(env)
    if name not in judges:
        known = ", ".join(sorted(judges)) or "none"
        raise JudgeError(f"no judge named {name!r} in {JUDGES_VAR} (its judges: {known})")
    merged = {k: v for k, v in env.items() if k not in _NAMED_SETTINGS.values()}
    merged.update({_NAMED_SETTINGS[key]: value for key, value in judges[name].items()})
    return judge_from_env(model, environ=merged, cache=cache)


def named_prompts(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the named prompt templates `CHATASSERT_JUDGE_PROMPTS` configures: name → template.

    Raises:
        JudgeError: when the variable is not a JSON object of strings.

    Example:
        >>> named_prompts({"CHATASSERT_JUDGE_PROMPTS": '{"terse": "{{criteria}}: {{response}}"}'})
        {'terse': '{{criteria}}: {{response}}'}
    """
    env = os.environ if environ is None else environ
    prompts = _json_object(env, PROMPTS_VAR)
    for name, template in prompts.items():
        if not isinstance(template, str):
            raise JudgeError(f"{PROMPTS_VAR}: prompt {name!r} must be a string, got {template!r}")
    return prompts
