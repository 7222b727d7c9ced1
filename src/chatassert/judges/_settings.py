"""Numbers read from the environment, shared by the judges' configuration and batch runs."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from chatassert._errors import JudgeError

__all__ = ["DEFAULT_CONCURRENCY", "env_concurrency", "env_number"]

DEFAULT_CONCURRENCY = 32
"""Judge requests in flight in batch runs when `CHATASSERT_JUDGE_CONCURRENCY` is not set."""


def env_number(environ: Mapping[str, str], name: str, default: float) -> float:
    text = environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise JudgeError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise JudgeError(f"{name} must be a finite number, not negative, got {text!r}")
    return value


def env_concurrency(environ: Mapping[str, str] | None = None) -> int:
    """Return `CHATASSERT_JUDGE_CONCURRENCY` (default 32)."""
    value = env_number(
        os.environ if environ is None else environ,
        "CHATASSERT_JUDGE_CONCURRENCY",
        DEFAULT_CONCURRENCY,
    )
    return max(1, int(value))
