"""`--judge NAME` and `--judge-model MODEL`: the judge of a run's judged checks, on the command
line (and `check --judge-concurrency N`: its requests in flight).

They stand for `CHATASSERT_JUDGE`, `CHATASSERT_JUDGE_MODEL` and `CHATASSERT_JUDGE_CONCURRENCY`
(docs/judges.md) while the command runs, so the judged checks of the run, its `--jobs` workers
and the tasks of `--engine ray` (which are given this process's `CHATASSERT_*` variables) ask
the same judge, as many at once; the variables are as they were afterwards. NAME is any name
`CHATASSERT_JUDGE` takes: `openai`, `anthropic`, `fake:pass`, `fake:fail`, a plugin judge's
name, or `module:factory`; a name that names no judge is a usage error before any log is read.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["chosen_judge", "judge_options"]

_VARIABLES = {
    "judge": "CHATASSERT_JUDGE",
    "judge_model": "CHATASSERT_JUDGE_MODEL",
    "judge_concurrency": "CHATASSERT_JUDGE_CONCURRENCY",  # check's own option
}


def judge_options(group: Any) -> None:
    """Add `--judge NAME` and `--judge-model MODEL` to a command's options (`group`)."""
    group.add_argument(
        "--judge",
        default=None,
        metavar="NAME",
        help="the judge of judged checks: openai, anthropic, fake:pass, fake:fail (offline, "
        "every verdict the same), a plugin judge's name, or module:factory (default "
        "CHATASSERT_JUDGE)",
    )
    group.add_argument(
        "--judge-model",
        default=None,
        metavar="MODEL",
        help="the judge's model; an assertion's own model wins (default CHATASSERT_JUDGE_MODEL)",
    )


@contextlib.contextmanager
def chosen_judge(args: argparse.Namespace, err: IO[str]) -> Iterator[bool]:
    """While the command runs, the judge `--judge` and `--judge-model` give (when given), as
    the environment variables they stand for; yields whether the run may go on (False: the
    name names no judge, and `err` says so and which there are)."""
    given = {
        variable: str(value)
        for option, variable in _VARIABLES.items()
        if (value := getattr(args, option, None))
    }
    if not given:
        yield True
        return
    name = given.get("CHATASSERT_JUDGE")
    if name is not None:
        from chatassert._errors import ChatAssertError
        from chatassert.judges._env import require_judge

        try:
            require_judge(name, given_by="--judge")
        except ChatAssertError as exc:
            err.write(f"chatassert {args.command}: {exc}\n")
            yield False
            return
    before = {variable: os.environ.get(variable) for variable in given}
    os.environ.update(given)
    try:
        yield True
    finally:
        for variable, value in before.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value
