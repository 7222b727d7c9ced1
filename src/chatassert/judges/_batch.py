"""Checking many subjects with bounded judge concurrency, and grading several rubrics at once."""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from chatassert._errors import JudgeError
from chatassert._judging import Judge, JudgeRequest, Verdict, limit_judges
from chatassert._result import Result
from chatassert.judges._settings import env_concurrency

__all__ = ["BatchingJudge", "Checkable", "check_all", "check_many"]


class Checkable(Protocol):
    """Anything with `check`, `acheck` and `needs_judge`: an assertion, or a suite's case."""

    def check(self, subject: object, /) -> Result:
        """Check synchronously."""
        ...

    async def acheck(self, subject: object, /) -> Result:
        """Check asynchronously."""
        ...

    def needs_judge(self) -> bool:
        """Whether checking may call a judge."""
        ...


def _concurrency(concurrency: int | None) -> int:
    if concurrency is None:
        return env_concurrency()
    return concurrency


async def check_all(
    pairs: Iterable[tuple[Checkable, object]], *, concurrency: int | None = None
) -> list[Result]:
    """Check many `(assertion, subject)` pairs with at most `concurrency` judge requests at once.

    Pairs that need no judge are checked at once, without waiting for any judge; judged ones
    run concurrently, each judge request waiting for one of the slots (a cache hit takes none).
    At most twice `concurrency` judged checks are under way at once, taken in order, each
    started as another ends: enough to keep every slot busy, while the first requests go out
    as soon as their checks are ready and a long list is not held in memory check by check.
    Results come back in the order of `pairs`. Works for suite cases (anything with `acheck`)
    over many conversations too.

    Args:
        pairs: `(assertion or case, subject)` pairs.
        concurrency: The bound on judge requests in flight; default
            `CHATASSERT_JUDGE_CONCURRENCY` or 32.

    Example:
        >>> import asyncio
        >>> from chatassert import Contains, LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> rubric = LLMRubric("Is polite", judge=FakeJudge.passing())
        >>> results = asyncio.run(check_all([(rubric, "Please."), (Contains("x"), "y")]))
        >>> [r.status.value for r in results]
        ['passed', 'failed']
    """
    items = list(pairs)
    results: list[Result | None] = [None] * len(items)
    judged: list[int] = []
    for i, (check, subject) in enumerate(items):
        if check.needs_judge():
            judged.append(i)
        else:
            results[i] = check.check(subject)
    if judged:
        limit = _concurrency(concurrency)
        waiting = iter(judged)

        async def work() -> None:  # checks the next pair waiting until none is left
            for i in waiting:
                check, subject = items[i]
                results[i] = await check.acheck(subject)

        with limit_judges(limit):
            await asyncio.gather(*(work() for _ in range(min(len(judged), 2 * limit))))
    return [r for r in results if r is not None]


async def check_many(
    assertion: Checkable, subjects: Iterable[object], *, concurrency: int | None = None
) -> list[Result]:
    """Check one assertion against many subjects with bounded judge concurrency.

    See `check_all`; results come back in the order of `subjects`.

    Example:
        >>> import asyncio
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge(by_criteria={}, default={"passed": True, "reason": "ok"})
        >>> results = asyncio.run(check_many(LLMRubric("Is polite", judge=judge),
        ...                                  ["Please.", "Thanks."], concurrency=4))
        >>> [r.passed for r in results], len(judge.requests)
        ([True, True], 2)
    """
    return await check_all(((assertion, s) for s in subjects), concurrency=concurrency)


def _subject_key(request: JudgeRequest) -> str:
    return json.dumps(
        [
            request.response,
            request.input,
            request.conversation,
            [dict(c) for c in request.tool_calls],
            request.model,
            request.kind,
            request.sample,
            dict(request.params),
        ],
        sort_keys=True,
        default=str,
    )


def _own_prompts(judge: object) -> bool:
    """Whether `judge` (or a judge it wraps) has its own prompt template or system prompt."""
    for _ in range(32):
        if judge is None:
            return False
        if getattr(judge, "prompt", None) is not None:
            return True
        if getattr(judge, "system_prompt", None) is not None:
            return True
        judge = getattr(judge, "inner", None)
    return False


_QUIET = 3
"""How many turns of the event loop a batch waits without a new request before it is sent."""


class BatchingJudge:
    """Grades several rubrics about one subject in a single request, one verdict each.

    Requests that arrive together (within a few turns of the event loop of each other, as the
    judged children of an `AllOf`, nested combinators' ones too, checked with `acheck` or
    `check_many` do) and share the subject, the model and the sample index are sent as one
    request to the wrapped judge's `judge_many`; each criterion
    gets its own verdict and so its own result. A request with its own prompt template, a
    wrapped judge with its own `prompt` or `system_prompt` (which a batched request could not
    honour), or a wrapped judge without `judge_many`, is graded alone.

    Args:
        judge: The judge to wrap (`OpenAIJudge`, `AnthropicJudge`, or a `CachedJudge` of one).
        max_criteria: The most criteria in one request; larger groups are split.

    Example:
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> judge = BatchingJudge(FakeJudge.passing())  # FakeJudge has no judge_many
        >>> (LLMRubric("Is polite", judge=judge) & LLMRubric("Is short", judge=judge)
        ...  ).check("Please.").passed
        True
    """

    def __init__(self, judge: Judge, *, max_criteria: int = 10) -> None:
        if not callable(getattr(judge, "judge", None)):
            raise TypeError(f"BatchingJudge wraps a judge, got {judge!r}")
        if isinstance(max_criteria, bool) or not isinstance(max_criteria, int) or max_criteria < 1:
            raise ValueError(f"max_criteria must be a positive integer, got {max_criteria!r}")
        self.inner = judge
        self.name: str = judge.name
        self.model: str | None = getattr(judge, "model", None)
        self.max_criteria = max_criteria
        self.batches = 0
        self._pending: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop,
            dict[str, list[tuple[JudgeRequest, asyncio.Future[Verdict]]]],
        ] = weakref.WeakKeyDictionary()
        self._tasks: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"BatchingJudge({self.inner!r}, max_criteria={self.max_criteria})"

    def render(self, request: JudgeRequest) -> str | None:
        """The wrapped judge's prompt for `request` alone, or None when it renders none."""
        render = getattr(self.inner, "render", None)
        return render(request) if callable(render) else None

    def cache_params(self) -> Any:
        """The wrapped judge's verdict-changing settings (its identity when it has none)."""
        from chatassert._cache import judge_identity

        return judge_identity(self.inner)

    def __getstate__(self) -> dict[str, Any]:
        return {"inner": self.inner, "max_criteria": self.max_criteria}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["inner"], max_criteria=state["max_criteria"])  # type: ignore[misc]

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Queue `request` with the others about the same subject, and await its verdict."""
        if (
            request.prompt is not None
            or not callable(getattr(self.inner, "judge_many", None))
            or _own_prompts(self.inner)
        ):
            return await self.inner.judge(request)
        loop = asyncio.get_running_loop()
        groups = self._pending.get(loop)
        if groups is None:
            groups = self._pending[loop] = {}
            loop.call_soon(self._wait, loop, 0, _QUIET)
        future: asyncio.Future[Verdict] = loop.create_future()
        groups.setdefault(_subject_key(request), []).append((request, future))
        return await future

    def _wait(self, loop: asyncio.AbstractEventLoop, seen: int, quiet: int) -> None:
        """Flush once `quiet` turns of the loop passed without a new request: the judged leaves
        of nested combinators start a turn or two after their siblings, and join them."""
        now = sum(len(items) for items in self._pending.get(loop, {}).values())
        if now != seen:
            loop.call_soon(self._wait, loop, now, _QUIET)
        elif quiet:
            loop.call_soon(self._wait, loop, now, quiet - 1)
        else:
            self._flush(loop)

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        groups = self._pending.pop(loop, {})
        for items in groups.values():
            for start in range(0, len(items), self.max_criteria):
                task = loop.create_task(self._run(items[start : start + self.max_criteria]))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _run(self, items: Sequence[tuple[JudgeRequest, asyncio.Future[Verdict]]]) -> None:
        outcomes: list[Verdict | BaseException]
        try:
            if len(items) == 1:
                outcomes = [await self.inner.judge(items[0][0])]
            else:
                self.batches += 1
                many = self.inner.judge_many  # type: ignore[attr-defined]
                outcomes = list(await many([request for request, _ in items]))
                if len(outcomes) != len(items):
                    raise JudgeError(
                        f"{self.name}: judge_many gave {len(outcomes)} verdicts "
                        f"for {len(items)} criteria"
                    )
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # this batch itself is being cancelled
                for _, future in items:
                    future.cancel()
                raise
            # The judge raised CancelledError without being cancelled (a cancelled inner future):
            # no verdict, and an error for every criterion rather than a crash.
            error = JudgeError(f"{self.name}: the judge's request was cancelled")
            outcomes = [error] * len(items)
        except Exception as exc:
            outcomes = [exc] * len(items)
        for (_, future), outcome in zip(items, outcomes, strict=True):
            if future.done():
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)
