"""The judge interface: a request, a typed verdict, and the two judges that need no network.

A judge is any object with an async `judge(request) -> Verdict` method and a `name`. HTTP judges
live in `chatassert.judges`; here are the protocol, `FunctionJudge` (wrap a function) and
`FakeJudge` (scripted replies, for tests).

Docs: docs/judges.md. Tests: tests/test_judged.py and tests/judges/.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from chatassert._errors import JudgeError

if TYPE_CHECKING:
    import asyncio
# asyncio is imported where an event loop is used: a run without judged checks never loads it

__all__ = [
    "JudgeCosts",
    "count_judge_costs",
    "judge_planning",
    "planning_enabled",
    "record_judge_avoided",
    "record_judge_cached",
    "record_judge_request",
    "record_judge_usage",
    "FakeJudge",
    "FunctionJudge",
    "Judge",
    "JudgeRequest",
    "Verdict",
    "judge_slot",
    "limit_judges",
    "run_sync",
    "template_fields",
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's decision.

    Attributes:
        passed: Whether the subject meets the criteria: a `bool` (anything else is a
            `JudgeError`).
        score: An optional score, a finite number from 0 to 1 (anything else is a `JudgeError`).
        reason: The judge's explanation.
        raw: The raw reply, for the record.
        prompt: The prompt the judge rendered, when it renders one (kept in result details).
    """

    passed: bool
    score: float | None = None
    reason: str = ""
    raw: Any = None
    prompt: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.passed, bool):
            raise JudgeError(f"a verdict needs a boolean 'passed', got {self.passed!r}")
        if self.score is not None and (
            isinstance(self.score, bool) or not isinstance(self.score, int | float)
        ):
            raise JudgeError(f"a verdict's 'score' must be a number, got {self.score!r}")
        if self.score is not None and not 0.0 <= self.score <= 1.0:  # NaN fails this too
            raise JudgeError(f"a verdict's 'score' must be from 0 to 1, got {self.score!r}")

    @classmethod
    def from_reply(cls, reply: object) -> Verdict:
        """Build a verdict from a judge's reply: a `Verdict`, a mapping, or JSON text of one.

        Raises:
            JudgeError: when the reply has no boolean `passed` (never guessed as a pass), or a
                `score` that is not a finite number from 0 to 1.
        """
        if isinstance(reply, Verdict):
            return reply
        raw = reply
        if isinstance(reply, str):
            try:
                reply = json.loads(reply)
            except json.JSONDecodeError as exc:
                raise JudgeError(f"the judge's reply is not JSON: {raw!r}") from exc
        if not isinstance(reply, Mapping):
            raise JudgeError(f"the judge's reply is not an object with 'passed': {raw!r}")
        if "passed" not in reply:
            raise JudgeError(f"the judge's reply has no 'passed': {raw!r}")
        passed = reply["passed"]
        if not isinstance(passed, bool):
            raise JudgeError(f"the judge's 'passed' is not true/false: {passed!r}")
        score = reply.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
            raise JudgeError(f"the judge's 'score' is not a number: {score!r}")
        if score is not None and not 0.0 <= score <= 1.0:  # NaN and infinities fail this too
            raise JudgeError(f"the judge's 'score' is not from 0 to 1: {score!r}")
        reason = reply.get("reason", reply.get("reasoning", ""))
        return cls(passed, None if score is None else float(score), str(reason or ""), raw)

    def to_dict(self) -> dict[str, Any]:
        """Return `{passed, score, reason}` for result details."""
        return {"passed": self.passed, "score": self.score, "reason": self.reason}


@dataclass(frozen=True)
class JudgeRequest:
    """What a judge is asked to grade.

    Attributes:
        criteria: The rubric or criteria, in the spec's words.
        response: The text being graded (a turn's text, or a rendered conversation).
        input: The user's input for the turn, when known.
        conversation: The conversation as `(role, text)` pairs, when grading a conversation.
        tool_calls: The turn's tool calls as `{name, arguments}` mappings.
        model: A model override (the flat dialect's `model`).
        kind: `rubric` (one turn) or `conversation`.
        prompt: A prompt template overriding the judge's default for this request.
        sample: The sample index, so repeated judging of one subject gets independent verdicts.
        params: Further parameters that change the verdict (such as `min_score`).
    """

    criteria: str
    response: str
    input: str | None = None
    conversation: tuple[tuple[str, str], ...] | None = None
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    model: str | None = None
    kind: str = "rubric"
    prompt: str | None = None
    sample: int = 0
    params: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Judge(Protocol):
    """The judge protocol: a `name` and an async `judge(request) -> Verdict`.

    A judge raises `JudgeError` (or any exception) when it cannot produce a verdict; judged
    assertions turn that into an `error` result, never a pass.
    """

    name: str

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Grade `request` and return a verdict."""
        ...


PROMPT_FIELDS = ("criteria", "response", "input", "conversation", "tool_calls")
"""The placeholders a prompt template may use, written `{{ name }}`."""

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def template_fields(template: str) -> tuple[str, ...]:
    """Return the placeholders of a prompt template, checking they are all known.

    Raises:
        ValueError: for an empty template or an unknown placeholder.

    Example:
        >>> template_fields("Rubric: {{criteria}}; answer: {{ response }}")
        ('criteria', 'response')
    """
    if not isinstance(template, str) or not template.strip():
        raise ValueError("a prompt template must be a non-empty string")
    names = tuple(m.group(1) for m in _PLACEHOLDER.finditer(template))
    unknown = sorted(set(names) - set(PROMPT_FIELDS))
    if unknown:
        raise ValueError(
            f"unknown prompt placeholder(s) {unknown}; use {{{{name}}}} with one of "
            f"{list(PROMPT_FIELDS)}"
        )
    return names


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """Replace the `{{ name }}` placeholders of `template` with `values` (missing → empty)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), template)


class _JudgeLimit:
    """A bound on judge requests in flight: a number, with one semaphore per event loop.

    An asyncio semaphore belongs to the loop that first waits on it, while `limit_judges` may
    span several loops (each synchronous `check()` runs its own), so each loop gets its own.
    As an async context manager it holds one slot on the running loop.
    """

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self._lock = threading.Lock()
        self._semaphores: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()

    def semaphore(self) -> asyncio.Semaphore:
        """Return the running event loop's semaphore (made on first use)."""
        import asyncio

        loop = asyncio.get_running_loop()
        with self._lock:
            semaphore = self._semaphores.get(loop)
            if semaphore is None:
                semaphore = self._semaphores[loop] = asyncio.Semaphore(self.concurrency)
            return semaphore

    async def __aenter__(self) -> None:
        await self.semaphore().acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        self.semaphore().release()

    def __repr__(self) -> str:
        return f"limit_judges({self.concurrency})"


_LIMIT: ContextVar[_JudgeLimit | None] = ContextVar("chatassert_judge_limit", default=None)


_T = TypeVar("_T")


@contextlib.contextmanager
def context_value(var: ContextVar[_T], value: _T) -> Iterator[_T]:
    """Set `var` to `value` for the block (and the tasks it starts), yielding `value`; the
    value before it is back when the block ends. How the `use_*` settings are scoped."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


@contextlib.contextmanager
def limit_judges(concurrency: int) -> Iterator[_JudgeLimit]:
    """Bound the judge requests in flight in this context (and the tasks it starts).

    Judges that do I/O wait for a slot with `judge_slot()`; everything else runs unbounded,
    so deterministic checks never wait for judges. The bound applies per event loop, so it
    may wrap several synchronous `check()` calls (each runs its own loop). It yields the
    limit, which as an async context manager holds one slot.

    Example:
        >>> import asyncio
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> async def main():
        ...     with limit_judges(2):
        ...         check = LLMRubric("Is polite", judge=FakeJudge.passing())
        ...         return [r.passed for r in await asyncio.gather(
        ...             *(check.acheck("Please.") for _ in range(3)))]
        >>> asyncio.run(main())
        [True, True, True]
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}")
    limit = _JudgeLimit(concurrency)
    with context_value(_LIMIT, limit):
        yield limit


def judges_limited() -> bool:
    """Whether `limit_judges` bounds the judge requests in this context."""
    return _LIMIT.get() is not None


@contextlib.asynccontextmanager
async def judge_slot() -> AsyncIterator[None]:
    """Hold one of the judge-request slots set by `limit_judges` (no bound when none is set)."""
    limit = _LIMIT.get()
    if limit is None:
        yield
        return
    async with limit.semaphore():
        yield


@dataclass
class JudgeCosts:
    """What judging cost while it was counted (`count_judge_costs`): per run or per case.

    Attributes:
        requests: Requests sent to a judge (an HTTP judge counts each attempt it sends, a
            retry too; a batch of verdicts is one request).
        cached: Verdicts answered from a verdict cache (`CachedJudge`) instead.
        avoided: Judge requests that planning found unneeded (0 until a plan skips some).
        tokens_in: Prompt tokens the provider reported (its `usage`).
        tokens_out: Completion tokens the provider reported.
        cost: The price of those tokens, in the price table's currency, when the table has the
            model (`prices`); None when nothing was priced.
        unpriced: Requests whose usage was reported but whose model the table does not price.
        prices: The price table: model name (or `*` for any other) to
            `{"input": price, "output": price}` per million tokens.
    """

    requests: int = 0
    cached: int = 0
    avoided: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    unpriced: int = 0
    prices: Mapping[str, Mapping[str, float]] | None = field(default=None, repr=False)

    @property
    def used(self) -> bool:
        """Whether any judging was counted (a request, a cached verdict or an avoided one)."""
        return bool(self.requests or self.cached or self.avoided)

    def add(self, other: JudgeCosts | Mapping[str, Any]) -> None:
        """Add another count (or its `to_dict()`) to this one."""
        get = other.get if isinstance(other, Mapping) else other.__dict__.get
        for name in ("requests", "cached", "avoided", "tokens_in", "tokens_out", "unpriced"):
            setattr(self, name, getattr(self, name) + int(get(name) or 0))
        cost = get("cost")
        if cost is not None:
            self.cost = (self.cost or 0.0) + float(cost)

    def to_dict(self) -> dict[str, Any]:
        """Return the counts as a JSON-ready dict (without the price table).

        Example:
            >>> costs = JudgeCosts(prices={"m": {"input": 1.0, "output": 2.0}})
            >>> costs.record("m", {"prompt_tokens": 1000, "completion_tokens": 500})
            >>> costs.to_dict()["cost"], costs.to_dict()["tokens_in"]
            (0.002, 1000)
        """
        out = {
            name: getattr(self, name)
            for name in ("requests", "cached", "avoided", "tokens_in", "tokens_out", "cost")
        }
        if self.unpriced:
            out["unpriced"] = self.unpriced
        return out

    def record(self, model: str | None, usage: object) -> None:
        """Count one request and the usage the provider reported for it (OpenAI's
        `prompt_tokens`/`completion_tokens` or Anthropic's `input_tokens`/`output_tokens`)."""
        self.requests += 1
        self.add_usage(model, usage)

    def add_usage(self, model: str | None, usage: object) -> None:
        """Add the tokens (and their price) of one reply's `usage` (ignored if not a mapping)."""
        if not isinstance(usage, Mapping):
            return
        tokens_in = _tokens(usage, "prompt_tokens", "input_tokens")
        tokens_out = _tokens(usage, "completion_tokens", "output_tokens")
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        if self.prices is None:
            return
        price = self.prices.get(model or "", self.prices.get("*"))
        if price is None:
            self.unpriced += 1
            return
        cost = (tokens_in * price.get("input", 0.0) + tokens_out * price.get("output", 0.0)) / 1e6
        self.cost = (self.cost or 0.0) + cost


def _tokens(usage: Mapping[str, Any], *names: str) -> int:
    for name in names:
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return 0


_COSTS: ContextVar[tuple[JudgeCosts, ...]] = ContextVar("chatassert_judge_costs", default=())


@contextlib.contextmanager
def count_judge_costs(
    prices: Mapping[str, Mapping[str, float]] | None = None,
) -> Iterator[JudgeCosts]:
    """Count judge requests, cached verdicts, tokens and cost in this context (nested counts
    all see the same requests: a run's and a case's).

    Example:
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> with count_judge_costs() as costs:
        ...     _ = LLMRubric("Is polite", judge=FakeJudge.passing()).check("Please.")
        >>> costs.requests, costs.cached, costs.cost
        (1, 0, None)
    """
    costs = JudgeCosts(prices=prices)
    token = _COSTS.set((*_COSTS.get(), costs))
    try:
        yield costs
    finally:
        _COSTS.reset(token)


def record_judge_request(model: str | None = None, usage: object = None) -> None:
    """Count one judge request (and its reported usage) in every active `count_judge_costs`."""
    for costs in _COSTS.get():
        costs.record(model, usage)


def record_judge_usage(model: str | None, usage: object) -> None:
    """Count the usage a provider reported for a request already counted."""
    for costs in _COSTS.get():
        costs.add_usage(model, usage)


def record_judge_cached(count: int = 1) -> None:
    """Count verdicts answered from a cache in every active `count_judge_costs`."""
    for costs in _COSTS.get():
        costs.cached += count


def record_judge_avoided(count: int = 1) -> None:
    """Count judge requests that planning found unneeded in every active `count_judge_costs`."""
    for costs in _COSTS.get():
        costs.avoided += count


_PLANNING: ContextVar[bool] = ContextVar("chatassert_judge_planning", default=True)


@contextlib.contextmanager
def judge_planning(enabled: bool) -> Iterator[None]:
    """Turn cost-aware planning on or off in this context (it is on by default).

    With planning, `AllOf`, `AnyOf` and `AtLeast` check their deterministic children first and
    ask the judge for the judged ones only when their verdicts can still change the outcome;
    the others are `skipped` ("not needed: ...") and counted as `avoided`. Off, every child is
    evaluated, for a full report (the CLI's `--no-plan`, the pytest plugin's
    `--chatassert-no-plan`). An assertion's own `plan=` option wins over this.

    Example:
        >>> from chatassert import Contains, LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge.passing()
        >>> rule = Contains("refund") & LLMRubric("Is polite", judge=judge)
        >>> print(rule.check("Hello").children[1].reason)
        not needed: contains 'refund' failed, so all_of fails whatever the judge says
        >>> with judge_planning(False):
        ...     rule.check("Hello").children[1].status.value
        'passed'
        >>> len(judge.requests)
        1
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"judge_planning takes True or False, got {enabled!r}")
    token = _PLANNING.set(enabled)
    try:
        yield
    finally:
        _PLANNING.reset(token)


def planning_enabled() -> bool:
    """Whether cost-aware planning is on in this context (see `judge_planning`)."""
    return _PLANNING.get()


def run_sync(awaitable: Awaitable[Any]) -> Any:
    """Run an awaitable to completion from synchronous code.

    Raises:
        UsageError: when called inside a running event loop (use `await` there instead).
    """
    import asyncio

    from chatassert._errors import UsageError

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_interruptibly(awaitable)
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise UsageError(
        "a judged assertion cannot be checked synchronously inside a running event loop; "
        "use `await assertion.acheck(subject)` there"
    )


async def _as_coroutine(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _run_interruptibly(awaitable: Awaitable[Any]) -> Any:
    """Run `awaitable` on an event loop of its own; Ctrl-C cancels it, then interrupts.

    asyncio does this itself only under Python's default SIGINT handler. Under another
    handler that raises `KeyboardInterrupt` (a command line that answers Ctrl-C between
    records, a test harness), the exception would be raised wherever the loop happens to be:
    inside a `__del__` or a weakref callback, Python swallows it and the interrupt is lost,
    and a judge that never answers is then waited for until its timeout. Here the handler is
    asked what the signal means: when it raises, the running task is cancelled (its cleanup
    runs, the loop unwinds) and `KeyboardInterrupt` is raised once the loop is closed; when
    it only notes the signal, nothing changes. A second Ctrl-C while the task is cancelled
    goes to the handler alone.
    """
    import asyncio
    import signal

    previous = signal.getsignal(signal.SIGINT)
    if (
        not callable(previous)
        or previous is signal.default_int_handler  # asyncio's own answer
        or threading.current_thread() is not threading.main_thread()
    ):
        return asyncio.run(_as_coroutine(awaitable))
    runner = asyncio.Runner()
    loop = runner.get_loop()
    task = loop.create_task(_as_coroutine(awaitable))
    interrupted = False

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal interrupted
        if interrupted:  # asked again: no more waiting for the cleanup
            previous(signum, frame)
            return
        try:
            previous(signum, frame)
        except KeyboardInterrupt:
            interrupted = True
            task.cancel()
            if not loop.is_closed():
                loop.call_soon_threadsafe(lambda: None)  # wake a loop waiting in select()

    signal.signal(signal.SIGINT, on_sigint)
    try:
        with runner:  # (closing it cancels what the task left running, under on_sigint too)
            try:
                result = runner.run(_as_coroutine(task))
            except (asyncio.CancelledError, Exception):
                if not interrupted:
                    raise
    finally:
        if signal.getsignal(signal.SIGINT) is on_sigint:
            signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt
    return result


ReplyFunction = Callable[[JudgeRequest], Any]


class FunctionJudge:
    """A judge made from a function of the request.

    The function (sync or async) returns a `Verdict`, a mapping with `passed`, or a bare bool.
    Its name is `function:<module>.<qualified name>` unless `name=` is given. A lambda (or a
    callable without a qualified name, such as a `functools.partial`) is `anonymous`: every
    such function would share one name, so `CachedJudge` refuses it until it is given a `name`.

    Attributes:
        name: The judge's name.
        anonymous: Whether the name does not tell the function apart from others.

    Example:
        >>> from chatassert import LLMRubric
        >>> from chatassert.judges import FunctionJudge
        >>> polite = FunctionJudge(lambda req: "please" in req.response.lower())
        >>> LLMRubric("Is polite", judge=polite).check("Please hold.").passed
        True
    """

    def __init__(self, function: ReplyFunction, *, name: str | None = None) -> None:
        self._function = function
        self._qualified = _qualified_name(function)
        self.anonymous = not name and (self._qualified is None or "<lambda>" in self._qualified)
        self.name = name or f"function:{self._qualified or type(function).__qualname__}"

    def cache_params(self) -> dict[str, Any]:
        """The function's module and qualified name, for cache keys."""
        return {"function": self._qualified}

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Call the function and turn its reply into a verdict (counted as one request)."""
        record_judge_request(request.model)
        reply = self._function(request)
        if inspect.isawaitable(reply):
            async with judge_slot():
                reply = await reply
        if isinstance(reply, bool):
            return Verdict(reply, None, "", reply)
        return Verdict.from_reply(reply)

    def __repr__(self) -> str:
        return f"FunctionJudge({self.name!r})"


def _qualified_name(function: object) -> str | None:
    """Return `module.qualname` of a function, or None when it has no qualified name."""
    qualname = getattr(function, "__qualname__", None)
    if not isinstance(qualname, str):
        return None
    module = getattr(function, "__module__", None)
    return f"{module}.{qualname}" if isinstance(module, str) else qualname


Reply = Verdict | Mapping[str, Any] | bool | str | BaseException


class FakeJudge:
    """A scripted judge for tests: replies in order, by criteria, or a default.

    Each reply is a `Verdict`, a mapping such as `{"passed": True, "reason": "..."}`, a bool, a
    JSON string, or an exception to raise (to simulate an outage). Every request is recorded in
    `requests`.

    Args:
        *replies: Replies used in order, one per request.
        by_criteria: Replies chosen by the request's exact criteria text (checked first).
        default: The reply once the script is used up; without one, an exhausted script raises
            `JudgeError`.

    Example:
        >>> from chatassert import LLMRubric
        >>> from chatassert.testing import FakeJudge
        >>> judge = FakeJudge({"passed": False, "reason": "no apology"})
        >>> result = LLMRubric("Apologises", judge=judge).check("Whatever.")
        >>> result.status.value, result.reason
        ('failed', 'no apology')
        >>> judge.requests[0].criteria
        'Apologises'
    """

    def __init__(
        self,
        *replies: Reply,
        by_criteria: Mapping[str, Reply] | None = None,
        default: Reply | None = None,
        name: str = "fake",
    ) -> None:
        self.name = name
        self._script = list(replies)
        self._by_criteria = dict(by_criteria or {})
        self._default = default
        self._lock = threading.Lock()
        self.requests: list[JudgeRequest] = []

    @classmethod
    def passing(cls, reason: str = "meets the criteria", score: float | None = 1.0) -> FakeJudge:
        """A judge that passes everything."""
        return cls(default=Verdict(True, score, reason))

    @classmethod
    def failing(
        cls, reason: str = "does not meet the criteria", score: float | None = 0.0
    ) -> FakeJudge:
        """A judge that fails everything."""
        return cls(default=Verdict(False, score, reason))

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Return the next scripted reply for `request` (counted as one request)."""
        record_judge_request(request.model)
        with self._lock:
            self.requests.append(request)
            if request.criteria in self._by_criteria:
                reply: Reply | None = self._by_criteria[request.criteria]
            elif self._script:
                reply = self._script.pop(0)
            else:
                reply = self._default
        if reply is None:
            raise JudgeError("the fake judge's script is used up (give more replies or a default)")
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, bool):
            return Verdict(reply, None, "", reply)
        return Verdict.from_reply(reply)

    def cache_params(self) -> dict[str, Any]:
        """No settings of a fake change its verdicts beyond its name (its script decides)."""
        return {}

    def __repr__(self) -> str:
        return f"FakeJudge(name={self.name!r}, remaining={len(self._script)})"


def render_conversation(pairs: Sequence[tuple[str, str]]) -> str:
    """Render `(role, text)` pairs as a transcript for a judge prompt."""
    return "\n".join(f"{role}: {text}" for role, text in pairs)
