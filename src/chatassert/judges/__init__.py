"""Judges: the protocol a judge implements, judges over HTTP, a verdict cache, batch checking.

`Judge` is the protocol (`async judge(request) -> Verdict`), `FunctionJudge` wraps a plain
function, and `JudgedAssertion` is the base of assertions that ask one (`LLMRubric` at the top
level). `OpenAIJudge` and `AnthropicJudge` talk to OpenAI-compatible and Anthropic servers over
httpx; `chatassert.testing.FakeJudge` is the judge for tests. `make_judge` builds a judge by
its name: a built-in one, a plugin's (`chatassert.plugins.register_judge`) or
`module:factory`, as `CHATASSERT_JUDGE` and `--judge` name them (docs/write-a-judge.md).

Like the top level, this namespace is lazy: `from chatassert.judges import Judge` does not
import httpx; the HTTP judges import it when first used.

Example:
    >>> from chatassert.judges import CachedJudge, OpenAIJudge
    >>> judge = OpenAIJudge("llama3.1", base_url="http://localhost:11434/v1", timeout=30)
    >>> judge.name
    'openai:llama3.1'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatassert._cache import (
        CachedJudge as CachedJudge,
        VerdictCache as VerdictCache,
        VerdictStore as VerdictStore,
        default_cache_path as default_cache_path,
        use_verdict_store as use_verdict_store,
        verdict_store as verdict_store,
    )
    from chatassert._calibration import (
        Calibration as Calibration,
        Label as Label,
        calibrate as calibrate,
        cohen_kappa as cohen_kappa,
        read_labels as read_labels,
    )
    from chatassert._judged_base import JudgedAssertion as JudgedAssertion
    from chatassert._judging import (
        FunctionJudge as FunctionJudge,
        Judge as Judge,
        JudgeCosts as JudgeCosts,
        JudgeRequest as JudgeRequest,
        Verdict as Verdict,
        count_judge_costs as count_judge_costs,
        judge_planning as judge_planning,
        judge_slot as judge_slot,
        limit_judges as limit_judges,
    )
    from chatassert.judges._batch import (
        BatchingJudge as BatchingJudge,
        Checkable as Checkable,
        check_all as check_all,
        check_many as check_many,
    )
    from chatassert.judges._env import (
        ENV_VARS as ENV_VARS,
        judge_from_env as judge_from_env,
        judge_names as judge_names,
        make_judge as make_judge,
        named_judge as named_judge,
        named_judges as named_judges,
        named_prompts as named_prompts,
    )
    from chatassert.judges._gate import (
        GateKey as GateKey,
        LocalRequestGate as LocalRequestGate,
        RequestGate as RequestGate,
        request_gate as request_gate,
        use_request_gate as use_request_gate,
    )
    from chatassert.judges._http import (
        AnthropicJudge as AnthropicJudge,
        HTTPJudge as HTTPJudge,
        OpenAIJudge as OpenAIJudge,
    )
    from chatassert.judges._prompts import (
        DEFAULT_SYSTEM_PROMPT as DEFAULT_SYSTEM_PROMPT,
        JudgeReplyError as JudgeReplyError,
        extract_json as extract_json,
        render_prompt as render_prompt,
    )
    from chatassert.judges._settings import env_concurrency as env_concurrency

_EXPORTS: dict[str, str] = {
    # the protocol
    "Judge": "chatassert._judging",
    "JudgeRequest": "chatassert._judging",
    "Verdict": "chatassert._judging",
    "FunctionJudge": "chatassert._judging",
    "JudgedAssertion": "chatassert._judged_base",
    # judges over HTTP, and what they read from the environment
    "HTTPJudge": "chatassert.judges._http",
    "OpenAIJudge": "chatassert.judges._http",
    "AnthropicJudge": "chatassert.judges._http",
    "ENV_VARS": "chatassert.judges._env",
    "env_concurrency": "chatassert.judges._settings",
    "judge_from_env": "chatassert.judges._env",
    # judges by name: the built-in ones, the plugins', module:factory
    "judge_names": "chatassert.judges._env",
    "make_judge": "chatassert.judges._env",
    "named_judge": "chatassert.judges._env",
    "named_judges": "chatassert.judges._env",
    "named_prompts": "chatassert.judges._env",
    # prompts and replies
    "DEFAULT_SYSTEM_PROMPT": "chatassert.judges._prompts",
    "JudgeReplyError": "chatassert.judges._prompts",
    "extract_json": "chatassert.judges._prompts",
    "render_prompt": "chatassert.judges._prompts",
    # caching, batching and limits
    "CachedJudge": "chatassert._cache",
    "VerdictCache": "chatassert._cache",
    "VerdictStore": "chatassert._cache",
    "use_verdict_store": "chatassert._cache",
    "verdict_store": "chatassert._cache",
    "default_cache_path": "chatassert._cache",
    "BatchingJudge": "chatassert.judges._batch",
    "Checkable": "chatassert.judges._batch",
    "check_all": "chatassert.judges._batch",
    "check_many": "chatassert.judges._batch",
    "judge_slot": "chatassert._judging",
    "limit_judges": "chatassert._judging",
    "JudgeCosts": "chatassert._judging",
    "count_judge_costs": "chatassert._judging",
    "judge_planning": "chatassert._judging",
    # one gate for the requests of many processes (a cluster's rate limit)
    "GateKey": "chatassert.judges._gate",
    "LocalRequestGate": "chatassert.judges._gate",
    "RequestGate": "chatassert.judges._gate",
    "request_gate": "chatassert.judges._gate",
    "use_request_gate": "chatassert.judges._gate",
    # calibration against people
    "Calibration": "chatassert._calibration",
    "Label": "chatassert._calibration",
    "calibrate": "chatassert._calibration",
    "cohen_kappa": "chatassert._calibration",
    "read_labels": "chatassert._calibration",
}
"""Each public name and the module it is imported from on first use."""

__all__ = sorted(_EXPORTS, key=str.casefold)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chatassert.judges' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
