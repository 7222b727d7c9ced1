"""Judges over HTTP (OpenAI-compatible and Anthropic), a verdict cache, and batch checking.

This namespace imports httpx; `import chatassert` does not import it.

Example:
    >>> from chatassert.judges import CachedJudge, OpenAIJudge
    >>> judge = OpenAIJudge("llama3.1", base_url="http://localhost:11434/v1", timeout=30)
    >>> judge.name
    'openai:llama3.1'
"""

from chatassert._cache import CachedJudge, VerdictCache, default_cache_path
from chatassert._judging import judge_slot, limit_judges
from chatassert.judges._batch import BatchingJudge, Checkable, check_all, check_many
from chatassert.judges._env import ENV_VARS, env_concurrency, judge_from_env
from chatassert.judges._http import AnthropicJudge, HTTPJudge, OpenAIJudge
from chatassert.judges._prompts import (
    DEFAULT_SYSTEM_PROMPT,
    JudgeReplyError,
    extract_json,
    render_prompt,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "ENV_VARS",
    "AnthropicJudge",
    "BatchingJudge",
    "CachedJudge",
    "Checkable",
    "HTTPJudge",
    "JudgeReplyError",
    "OpenAIJudge",
    "VerdictCache",
    "check_all",
    "check_many",
    "default_cache_path",
    "env_concurrency",
    "extract_json",
    "judge_from_env",
    "judge_slot",
    "limit_judges",
    "render_prompt",
]
