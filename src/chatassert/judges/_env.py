"""Judge configuration from environment variables: the default judge, named judges and named
prompt templates; and judges by name (`make_judge`): the built-in ones, the plugins' and
`module:factory` paths."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from chatassert._cache import CachedJudge, VerdictStore, default_cache_path, verdict_store
from chatassert._errors import JudgeError
from chatassert._judging import FunctionJudge, Judge, JudgeRequest, Verdict
from chatassert._params import did_you_mean
from chatassert.judges._batch import BatchingJudge
from chatassert.judges._http import AnthropicJudge, HTTPJudge, OpenAIJudge
from chatassert.judges._settings import env_number

__all__ = [
    "BUILT_IN_JUDGES",
    "ENV_VARS",
    "judge_from_env",
    "judge_names",
    "make_judge",
    "named_judge",
    "named_judges",
    "named_prompts",
    "require_judge",
]

ENV_VARS = {
    "CHATASSERT_JUDGE": "which judge: openai (any OpenAI-compatible server), anthropic, "
    "fake:pass or fake:fail (no model asked), a plugin judge's name, or module:factory",
    "CHATASSERT_JUDGE_MODEL": "the judge model (a per-assertion model overrides it)",
    "CHATASSERT_JUDGE_BASE_URL": "the API base URL (default: the provider's)",
    "CHATASSERT_JUDGE_API_KEY_ENV": "the variable holding the API key "
    "(default OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    "CHATASSERT_JUDGE_TIMEOUT": "the deadline of each request, in seconds (default 60)",
    "CHATASSERT_JUDGE_RETRIES": "retries after the first attempt (default 2)",
    "CHATASSERT_JUDGE_CONCURRENCY": "judge requests in flight in batch runs and in "
    "chatassert check, which asks the judge for twice as many log lines at once (default 32)",
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


def _fake_pass(request: JudgeRequest) -> Verdict:
    """The verdict of `fake:pass`: every judged check passes."""
    return Verdict(True, 1.0, "meets the criteria (fake:pass)")


def _fake_fail(request: JudgeRequest) -> Verdict:
    """The verdict of `fake:fail`: every judged check fails."""
    return Verdict(False, 0.0, "does not meet the criteria (fake:fail)")


_FAKES: dict[str, Judge] = {
    "fake:pass": FunctionJudge(_fake_pass, name="fake:pass"),
    "fake:fail": FunctionJudge(_fake_fail, name="fake:fail"),
}
"""The judges that ask no model: a run of judged checks offline, every verdict the same."""

BUILT_IN_JUDGES = (*_KINDS, *_FAKES)
"""The judges every installation has by name; plugins add theirs (`judge_names`)."""

# The options a judge of one's own is given from the default judge's variables, when set.
_OPTION_VARS = {
    "base_url": "CHATASSERT_JUDGE_BASE_URL",
    "api_key_env": "CHATASSERT_JUDGE_API_KEY_ENV",
    "timeout": "CHATASSERT_JUDGE_TIMEOUT",
    "retries": "CHATASSERT_JUDGE_RETRIES",
}


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
    name = (env.get("CHATASSERT_JUDGE") or "").strip()
    if not name:
        raise JudgeError(
            "no judge configured: set CHATASSERT_JUDGE to openai or anthropic and "
            "CHATASSERT_JUDGE_MODEL to the model (or to fake:pass, a plugin judge's name or "
            "module:factory), or pass judge=... in code"
        )
    return _from_settings(name, model, env, {}, cache, "CHATASSERT_JUDGE")


def _from_settings(
    name: str,
    model: str | None,
    env: Mapping[str, str],
    extra: Mapping[str, str],
    cache: bool | str | None,
    where: str,
) -> Judge:
    """The judge `name` names, configured by the default judge's variables in `env` (and a
    named judge's own settings, `extra`); `where` says what named it, for messages."""
    kind = name.lower()
    if kind in _FAKES:
        return _FAKES[kind]
    if kind not in _KINDS:
        return _own_judge(name, model, env, extra, cache, where)
    chosen = model or env.get("CHATASSERT_JUDGE_MODEL")
    if not chosen:
        raise JudgeError(
            f"CHATASSERT_JUDGE is {kind!r} but no model is set: set "
            "CHATASSERT_JUDGE_MODEL (or give the assertion a model)"
        )
    cache, shared = _cache_of(env, cache)
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
        _batched(env),
    )
    with _memo_lock:
        judge = _memo.get(config)
        if judge is None:
            judge = _memo[config] = _build(*config)
    return judge


def _cache_of(
    env: Mapping[str, str], cache: bool | str | None
) -> tuple[bool | str, VerdictStore | None]:
    """The verdict cache `cache` or `CHATASSERT_JUDGE_CACHE` asks for: False, or its file;
    and the store given by `use_verdict_store` that replaces the file, if any."""
    if cache is None:
        setting = env.get("CHATASSERT_JUDGE_CACHE")
        cache = True if setting is None else (False if setting.strip().lower() in _OFF else setting)
    if cache is True:
        cache = str(default_cache_path())
    return cache, (verdict_store() if cache is not False else None)


def _batched(env: Mapping[str, str]) -> bool:
    return (env.get("CHATASSERT_JUDGE_BATCH") or "").strip().lower() not in _OFF


def _wrapped(judge: Judge, cache: bool | str | VerdictStore, batch: bool) -> Judge:
    """`judge` behind the verdict cache and the batching the configuration asks for."""
    if cache is not False:
        judge = CachedJudge(judge, None if cache is True else cache)
    if batch:
        judge = BatchingJudge(judge)
    return judge


def _own_judge(
    name: str,
    model: str | None,
    env: Mapping[str, str],
    extra: Mapping[str, str],
    cache: bool | str | None,
    where: str,
) -> Judge:
    """A judge of one's own by name (a plugin's, or `module:factory`), built by its factory
    with the model and options the configuration gives, behind the cache and batching."""
    factory = _factory(name, where)
    chosen = model or env.get("CHATASSERT_JUDGE_MODEL") or None
    options = {opt: env[var] for opt, var in _OPTION_VARS.items() if env.get(var)}
    sources = {opt: var for opt, var in _OPTION_VARS.items() if env.get(var)}
    options.update(extra)
    sources.update(dict.fromkeys(extra, where))
    stored, shared = _cache_of(env, cache)
    config = (
        "own",
        name,
        factory,
        chosen,
        tuple(sorted(options.items())),
        stored if shared is None else shared,
        _batched(env),
    )
    with _memo_lock:
        judge = _memo.get(config)
        if judge is None:
            built = _called(name, factory, chosen, options, sources)
            judge = _memo[config] = _wrapped(built, config[5], config[6])
    return judge


def _factory(name: str, where: str) -> Callable[..., Any]:
    """The factory a judge's name stands for: `module:factory`, else a registered judge
    (`chatassert.plugins.register_judge`, or an installed `chatassert.judges` entry point).

    Raises:
        JudgeError: when nothing has that name (listing the names there are), or the path
            does not name a callable.
        PluginError: when a plugin that may provide it cannot be loaded.
    """
    from chatassert import plugins

    if name.lower().startswith("fake:"):
        raise JudgeError(
            f"{where}: unknown judge {name!r}; the fake judges are fake:pass and fake:fail"
        )
    if ":" in name:
        module, _, attribute = name.partition(":")
        if not module or not attribute:
            raise JudgeError(
                f"{where}: {name!r} is not module:factory (a module, a colon, and the name of "
                "a judge factory or class in it)"
            )
        found: Any = _imported(module, name, where)
        for part in attribute.split("."):
            if not hasattr(found, part):
                raise JudgeError(f"{where}: module {module!r} has no {attribute!r} ({name})")
            found = getattr(found, part)
        if not callable(found):
            raise JudgeError(
                f"{where}: {name} is a {type(found).__name__}, not a judge factory "
                "(model, **options) -> Judge or a judge class"
            )
        return found  # type: ignore[no-any-return]
    factories = plugins.judge_factories()
    try:
        return factories[name]
    except KeyError:
        pass
    names = judge_names()
    hint = did_you_mean(name, names)
    raise JudgeError(
        f"{where}: unknown judge {name!r}"
        + (f" ({hint})" if hint else "")
        + f"; the judges are {', '.join(names)}, or module:factory for a judge of one's own"
    )


def _imported(module: str, name: str, where: str) -> Any:
    """The module of `module:factory`: on `sys.path`, else in the working directory (where a
    repository's own modules are, as for `--plugin`).

    Raises:
        JudgeError: when it cannot be imported, saying why.
    """
    try:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as missing:
            here = os.getcwd()
            if missing.name != module.split(".")[0] or here in sys.path:
                raise
            sys.path.append(here)  # a repository's own module, not installed
            return importlib.import_module(module)
    except Exception as exc:
        raise JudgeError(
            f"{where}: cannot import the module of {name} (looked up on sys.path and in the "
            f"working directory): {type(exc).__name__}: {exc}"
        ) from exc


def _qualified(value: object) -> str:
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None) or type(value).__qualname__
    return f"{module}.{qualname}" if module else qualname


def _called(
    name: str,
    factory: Callable[..., Any],
    model: str | None,
    options: Mapping[str, str],
    sources: Mapping[str, str],
) -> Judge:
    """`factory(model, **options)`, checked to be a judge (a `name`, an async `judge`).

    Raises:
        JudgeError: when the factory does not take an option (naming where it was set), fails,
            or returns something that is not a judge.
    """
    made = _qualified(factory)
    given = ", ".join(f"{k} (from {sources.get(k, 'the options')})" for k in options)
    given = f"; it was given the model {model!r}" + (f" and {given}" if given else "")
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read (a builtin): the call says
        signature = None
    if signature is not None:
        try:
            signature.bind(model, **options)
        except TypeError as exc:
            raise JudgeError(
                f"judge {name!r} cannot be built by {made}{signature}: {exc}{given}"
            ) from None
    try:
        judge = factory(model, **options)
    except JudgeError:
        raise
    except Exception as exc:
        raise JudgeError(
            f"judge {name!r}: {made} failed to build it: {type(exc).__name__}: {exc}{given}"
        ) from exc
    if not callable(getattr(judge, "judge", None)):
        raise JudgeError(
            f"judge {name!r}: {made} returned {judge!r}, which has no async judge(request) "
            "method (the judge protocol: docs/write-a-judge.md)"
        )
    if not isinstance(getattr(judge, "name", None), str) or not judge.name:
        raise JudgeError(
            f"judge {name!r}: {made} returned a judge without a name: give it a `name` "
            "(results record it, and the verdict cache keys on it)"
        )
    return judge  # type: ignore[no-any-return]


def judge_names() -> list[str]:
    """Every judge that has a name here: the built-in ones, then the plugins' (the installed
    `chatassert.judges` entry points are loaded to list them), sorted.

    Raises:
        PluginError: when an installed judge plugin cannot be loaded.

    Example:
        >>> judge_names()[:4]
        ['openai', 'anthropic', 'fake:pass', 'fake:fail']
    """
    from chatassert import plugins

    plugins.load_group(plugins.JUDGES)
    return [*BUILT_IN_JUDGES, *sorted(set(plugins.judge_factories()) - set(BUILT_IN_JUDGES))]


def require_judge(name: str, *, given_by: str = "judge") -> None:
    """Check that `name` names a judge (see `make_judge`) without building one: for a
    command line to refuse a misspelt `--judge` before a log is read.

    Args:
        name: The judge's name.
        given_by: What gave the name (`--judge`), for the message.

    Raises:
        JudgeError: when it names none, listing the names there are.
        PluginError: when a plugin that may provide it cannot be loaded.

    Example:
        >>> require_judge("fake:pass")
        >>> require_judge("opneai")
        Traceback (most recent call last):
        ...
        chatassert._errors.JudgeError: judge: unknown judge 'opneai' (did you mean 'openai'?); ...
    """
    stripped = name.strip()
    if stripped.lower() not in BUILT_IN_JUDGES:
        _factory(stripped, given_by)


def make_judge(name: str, model: str | None = None, **options: str) -> Judge:
    """Build the judge `name` names, with `model` and `options`; nothing is read from the
    environment and no verdict cache is put in front of it.

    A name is `openai` or `anthropic` (options: `base_url`, `api_key_env`, `timeout`,
    `retries`; a model is required), `fake:pass` or `fake:fail` (every verdict the same, no
    model asked), the name of a judge a plugin registers (`chatassert.plugins.register_judge`,
    or an installed `chatassert.judges` entry point), or `module:factory`: a factory or judge
    class in an importable module, called as `factory(model, **options)` (docs/write-a-judge.md).
    It is how code gives a loader named judges of any kind: `judges={"local":
    make_judge("my_gateway", "llama-3")}`.

    Raises:
        JudgeError: when the name names no judge (listing those there are), the judge cannot
            be built with these options, or its factory does not return a judge.
        PluginError: when a plugin that may provide it cannot be loaded.

    Example:
        >>> make_judge("fake:fail").name
        'fake:fail'
        >>> make_judge("openai", "gpt-4o-mini", timeout="30").timeout
        30.0
    """
    kind = name.strip().lower()
    if kind in _FAKES:
        return _FAKES[kind]
    if kind in _KINDS:
        unknown = sorted(set(options) - set(_OPTION_VARS))
        if unknown:
            raise JudgeError(
                f"judge {name!r} takes the options {', '.join(_OPTION_VARS)}, not "
                f"{', '.join(unknown)}"
            )
        if not model:
            raise JudgeError(f"judge {name!r} needs a model")
        settings: dict[str, Any] = {
            "base_url": options.get("base_url"),
            "api_key_env": options.get("api_key_env"),
        }
        env = {var: options[opt] for opt, var in _OPTION_VARS.items() if opt in options}
        if "timeout" in options:
            settings["timeout"] = env_number(env, "CHATASSERT_JUDGE_TIMEOUT", 60.0)
        if "retries" in options:
            settings["retries"] = int(env_number(env, "CHATASSERT_JUDGE_RETRIES", 2))
        return _KINDS[kind](model, **settings)
    stripped = name.strip()
    factory = _factory(stripped, "judge")
    return _called(stripped, factory, model, options, dict.fromkeys(options, "the options"))


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
    return _wrapped(judge, cache, batch)


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
    variables, by their last words: `judge` (required: any name `CHATASSERT_JUDGE` takes),
    `model`, `base_url`, `api_key_env`, `timeout`, `retries`. A judge of one's own (a
    plugin's, or `module:factory`) may have settings of its own too: each is given to its
    factory as an option. The cache, batch and concurrency settings are shared with the
    default judge.

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
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise JudgeError(f"{where}: {key} must be a string or a number, got {value!r}")
        kind = str(settings.get("judge") or "").strip()
        if not kind:
            raise JudgeError(
                f"{where} needs 'judge' (openai, anthropic, fake:pass, fake:fail, a plugin "
                "judge's name, or module:factory)"
            )
        unknown = [key for key in settings if key not in _NAMED_SETTINGS]
        if unknown and kind.lower() in BUILT_IN_JUDGES:  # a judge of one's own takes its own
            hint = did_you_mean(unknown[0], list(_NAMED_SETTINGS))
            raise JudgeError(
                f"{where} has an unknown setting {unknown[0]!r}"
                + (f" ({hint})" if hint else f"; settings: {', '.join(_NAMED_SETTINGS)}")
            )
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
    settings = judges[name]
    merged = {k: v for k, v in env.items() if k not in _NAMED_SETTINGS.values()}
    merged.update({_NAMED_SETTINGS[k]: v for k, v in settings.items() if k in _NAMED_SETTINGS})
    own = {k: v for k, v in settings.items() if k not in _NAMED_SETTINGS}
    where = f"{JUDGES_VAR}: judge {name!r}"
    return _from_settings(settings["judge"].strip(), model, merged, own, cache, where)


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
