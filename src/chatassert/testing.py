"""Helpers for tests: assertions that raise, terse subject builders, a scripted judge.

`assert_passes(assertion, subject)` checks the subject and raises `ChatAssertionError` (an
`AssertionError`, so every test framework reports it as a failure) whose message shows only the
branches that did not pass, each with its location and reason, and an excerpt of the subject.
`turn(...)`, `call(...)` and `conversation(...)` build subjects in one line each, and `FakeJudge`
scripts the verdicts of judged assertions.

Example:
    >>> from chatassert import Contains, ContainsFunctionCall
    >>> from chatassert.testing import assert_passes, call, turn
    >>> reply = turn("Sunny in Paris.", calls=[call("get_weather", city="Paris")])
    >>> assert_passes(Contains("sunny") & ContainsFunctionCall("get_weather"), reply).passed
    True
    >>> assert_passes(Contains("rain"), reply)
    Traceback (most recent call last):
    ...
    chatassert.testing.ChatAssertionError: contains did not pass
    FAIL contains: Response does not contain 'rain'
    subject: turn text 'Sunny in Paris.'; calls get_weather(city='Paris')
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeAlias

from chatassert._judging import FakeJudge, FunctionJudge, Verdict
from chatassert._models import (
    Conversation,
    GuardrailEvent,
    ToolCall,
    ToolResult,
    Turn,
    WorkflowState,
    link_results,
)
from chatassert._result import Result, Status, shorten

__all__ = [
    "ChatAssertMixin",
    "ChatAssertionError",
    "Checkable",
    "FakeJudge",
    "FunctionJudge",
    "Passes",
    "Verdict",
    "assert_fails",
    "assert_passes",
    "assert_passes_async",
    "call",
    "conversation",
    "describe_subject",
    "explain",
    "load_conversation",
    "load_conversations",
    "passes",
    "turn",
]


class Checkable(Protocol):
    """Anything with `check(subject) -> Result`: an assertion, or a suite's `Case`."""

    def check(self, subject: Any, /) -> Result:
        """Check `subject` and return the result tree."""
        ...


class _AsyncCheckable(Checkable, Protocol):
    async def acheck(self, subject: Any, /) -> Result:
        """Check `subject` asynchronously."""
        ...


# -- observing checks (the pytest plugin's session report listens here) ---------------------

Observer: TypeAlias = Callable[[str, Result, object], None]
_observers: list[Observer] = []
_observers_lock = threading.Lock()


def add_observer(observer: Observer) -> Callable[[], None]:
    """Call `observer(kind, result, subject)` after every check made by this module's helpers.

    Returns a function that removes the observer again. The pytest plugin uses this to write
    `--chatassert-report`.
    """
    with _observers_lock:
        _observers.append(observer)

    def remove() -> None:
        with _observers_lock:
            if observer in _observers:
                _observers.remove(observer)

    return remove


def _notify(kind: str, result: Result, subject: object) -> None:
    for observer in list(_observers):
        observer(kind, result, subject)


# -- failure messages ----------------------------------------------------------------------


def describe_subject(subject: object, width: int = 300) -> str:
    """Return a one-line excerpt of a subject for failure messages.

    Example:
        >>> describe_subject(turn("Booked for 4.", input="Table for 4", calls=[call("book")]))
        "turn input 'Table for 4'; text 'Booked for 4.'; calls book()"
        >>> describe_subject("plain text")
        "text 'plain text'"
    """
    if isinstance(subject, Turn):
        return shorten("turn " + _describe_turn(subject), width)
    if isinstance(subject, Conversation):
        count = len(subject.turns)
        parts = [f"conversation of {count} turn{'s' if count != 1 else ''}"]
        if subject.id:
            parts[0] += f" (id {subject.id!r})"
        if subject.turns:
            parts.append(f"last turn: {_describe_turn(subject.turns[-1])}")
        return shorten("; ".join(parts), width)
    if isinstance(subject, str):
        return shorten(f"text {subject!r}", width)
    try:
        rendered = json.dumps(subject, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        rendered = repr(subject)
    return shorten(f"JSON {rendered}", width)


def _describe_turn(t: Turn) -> str:
    parts = []
    if t.input is not None:
        parts.append(f"input {shorten(t.input, 60)!r}")
    parts.append(f"text {shorten(t.text, 80)!r}")
    if t.tool_calls:
        calls = ", ".join(
            f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
            for c in t.tool_calls[:5]
        )
        more = f" and {len(t.tool_calls) - 5} more" if len(t.tool_calls) > 5 else ""
        parts.append(f"calls {calls}{more}")
    return "; ".join(parts)


def explain(result: Result, subject: object = None, *, verbose: bool = False) -> str:
    """Explain a result for a failure message: a headline, the failing branches, the subject.

    Only the branches that did not pass are shown (unless `verbose`), each with its location and
    reason; the last line is an excerpt of the subject when one is given.

    Example:
        >>> from chatassert import Contains, OnEveryTurn
        >>> talk = conversation(("Hi", "Hello!"), ("Refund?", "No."))
        >>> print(explain(OnEveryTurn(Contains("o!"), message="cheerful").check(talk), talk))
        cheerful did not pass
        FAIL cheerful [on_every_turn]: 1 of 2 turns failed (turns[1]); first: turns[1]: ...
          FAIL turns[1] contains: Response does not contain 'o!'
        subject: conversation of 2 turns; last turn: input 'Refund?'; text 'No.'
    """
    verb = {
        Status.FAILED: "did not pass",
        Status.ERROR: "could not be evaluated",
        Status.SKIPPED: "was skipped (not evaluated)",
        Status.PASSED: "passed",
    }[result.status]
    lines = [f"{result.label} {verb}", result.render(verbose=verbose)]
    if subject is not None:
        lines.append(f"subject: {describe_subject(subject)}")
    return "\n".join(lines)


class ChatAssertionError(AssertionError):
    """A chatassert check did not pass; `result` holds the whole result tree.

    Attributes:
        result: The result tree of the check.
        subject: What was checked.
    """

    result: Result
    subject: object

    def __init__(self, result: Result, subject: object = None, msg: str | None = None) -> None:
        text = explain(result, subject)
        if msg:
            text = f"{msg}\n{text}"
        super().__init__(text)
        self.result = result
        self.subject = subject

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_error, (self.result.to_dict(), str(self)))


def _rebuild_error(result: dict[str, Any], text: str) -> ChatAssertionError:
    error = ChatAssertionError(Result.from_dict(result))
    error.args = (text,)
    return error


# -- asserting -----------------------------------------------------------------------------


def assert_passes(assertion: Checkable, subject: object, *, msg: str | None = None) -> Result:
    """Check `subject` and raise `ChatAssertionError` unless the result passed.

    An `error` result (the check could not be evaluated) and a `skipped` one do not pass either.

    Args:
        assertion: An assertion, or a suite's `Case`.
        subject: A turn, a conversation, a string or a JSON value.
        msg: A first line for the failure message.

    Returns:
        The result, when it passed.

    Raises:
        ChatAssertionError: when the result is not `passed`.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    result = assertion.check(subject)
    _notify("assert_passes", result, subject)
    if not result.passed:
        raise ChatAssertionError(result, subject, msg)
    return result


async def assert_passes_async(
    assertion: _AsyncCheckable, subject: object, *, msg: str | None = None
) -> Result:
    """Like `assert_passes`, but checks with `await assertion.acheck(subject)`.

    Use it inside a running event loop (an async test), where judged assertions cannot be
    checked synchronously.

    Example:
        >>> import asyncio
        >>> from chatassert import LLMRubric
        >>> rubric = LLMRubric("Is polite", judge=FakeJudge.passing())
        >>> asyncio.run(assert_passes_async(rubric, "Thank you!")).passed
        True
    """
    __tracebackhide__ = True
    result = await assertion.acheck(subject)
    _notify("assert_passes", result, subject)
    if not result.passed:
        raise ChatAssertionError(result, subject, msg)
    return result


def assert_fails(assertion: Checkable, subject: object, *, msg: str | None = None) -> Result:
    """Check `subject` and raise `ChatAssertionError` unless the result is `failed`.

    For testing your own assertions and specs: an `error` result does not count as a failure.

    Example:
        >>> from chatassert import Contains
        >>> assert_fails(Contains("refund"), "No.").reason
        "Response does not contain 'refund'"
    """
    __tracebackhide__ = True
    result = assertion.check(subject)
    _notify("assert_fails", result, subject)
    if result.status is not Status.FAILED:
        head = f"expected the check to fail, but its result is {result.status.value}"
        raise ChatAssertionError(result, subject, f"{msg}\n{head}" if msg else head)
    return result


class Passes:
    """A value that equals every subject the assertion passes: `assert subject == passes(a)`.

    The comparison keeps the result in `result`, and the pytest plugin prints its tree when
    the comparison fails.

    Example:
        >>> from chatassert import Contains
        >>> "Your refund is on its way" == passes(Contains("refund"))
        True
        >>> matcher = passes(Contains("refund"))
        >>> "No." == matcher, matcher.result.reason
        (False, "Response does not contain 'refund'")
    """

    __slots__ = ("assertion", "result", "subject")

    def __init__(self, assertion: Checkable) -> None:
        self.assertion = assertion
        self.result: Result | None = None
        self.subject: object = None

    def __eq__(self, subject: object) -> bool:
        self.subject = subject
        self.result = self.assertion.check(subject)
        _notify("passes", self.result, subject)
        return self.result.passed

    def __ne__(self, subject: object) -> bool:
        return not self.__eq__(subject)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"passes({self.assertion!r})"


def passes(assertion: Checkable) -> Passes:
    """Return a value equal to every subject that `assertion` passes (see `Passes`)."""
    return Passes(assertion)


# -- building subjects ---------------------------------------------------------------------

CallLike: TypeAlias = ToolCall | str | tuple[str, Mapping[str, Any]] | Mapping[str, Any]
ResultLike: TypeAlias = ToolResult | str | Mapping[str, Any]


def call(name: str, arguments: Mapping[str, Any] | None = None, /, **kwargs: Any) -> ToolCall:
    """Build a tool call: `call("get_weather", city="Paris")` or `call("f", {"from": "x"})`.

    Example:
        >>> call("get_weather", city="Paris")
        ToolCall(name='get_weather', arguments={'city': 'Paris'}, id=None, raw_arguments=None, \
arguments_error=None)
    """
    return ToolCall(name=name, arguments={**(arguments or {}), **kwargs})


def _as_call(value: CallLike) -> ToolCall:
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, str):
        return ToolCall(name=value)
    if isinstance(value, tuple):
        if len(value) != 2 or not isinstance(value[0], str):
            raise TypeError(f"a call tuple is (name, arguments), got {value!r}")
        name, arguments = value
        return ToolCall.model_validate({"name": name, "arguments": arguments})
    if isinstance(value, Mapping):
        return ToolCall.model_validate(value)
    raise TypeError(
        "a call is a ToolCall, a tool name, a (name, arguments) tuple or a mapping, "
        f"got {type(value).__name__}"
    )


def _as_result(value: ResultLike) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(content=value)
    if isinstance(value, Mapping):
        return ToolResult.model_validate(value)
    raise TypeError(
        f"a tool result is a ToolResult, a string or a mapping, got {type(value).__name__}"
    )


def _as_guardrail(value: GuardrailEvent | str | Mapping[str, Any]) -> GuardrailEvent:
    if isinstance(value, GuardrailEvent):
        return value
    if isinstance(value, str):
        return GuardrailEvent(name=value)
    return GuardrailEvent.model_validate(value)


def _as_workflow(value: WorkflowState | str | Mapping[str, Any] | None) -> WorkflowState | None:
    if value is None or isinstance(value, WorkflowState):
        return value
    if isinstance(value, str):
        return WorkflowState(current=value)
    return WorkflowState.model_validate(value)


def turn(
    text: str = "",
    *,
    input: str | None = None,
    calls: Iterable[CallLike] = (),
    results: Iterable[ResultLike] = (),
    guardrails: Iterable[GuardrailEvent | str | Mapping[str, Any]] = (),
    workflow: WorkflowState | str | Mapping[str, Any] | None = None,
    data: Any = None,
    metadata: Mapping[str, Any] | None = None,
) -> Turn:
    """Build a turn tersely.

    Args:
        text: What the agent answered.
        input: What the user said.
        calls: Tool calls: `call(...)`, a tool name, a `(name, arguments)` tuple, a mapping or a
            `ToolCall`.
        results: Tool results, in call order (their tool names are filled in from the calls):
            a string (the content), a mapping or a `ToolResult`.
        guardrails: Guardrail events: a name (a guardrail that flagged the turn), a mapping or a
            `GuardrailEvent`.
        workflow: The workflow state after the turn: the current state's name, a mapping or a
            `WorkflowState`.
        data: Structured data the turn produced (checked by JSON assertions).
        metadata: Latency, tokens, cost and the like.

    Example:
        >>> t = turn("It is 18°C in Paris.", input="Weather in Paris?",
        ...          calls=[("get_weather", {"city": "Paris"})], results=['{"temp": 18}'])
        >>> t.tool_calls[0].arguments, t.tool_results[0].name
        ({'city': 'Paris'}, 'get_weather')
    """
    tool_calls = [_as_call(c) for c in calls]
    return Turn(
        input=input,
        text=text,
        tool_calls=tuple(tool_calls),
        tool_results=tuple(link_results(tool_calls, [_as_result(r) for r in results])),
        guardrails=tuple(_as_guardrail(g) for g in guardrails),
        workflow=_as_workflow(workflow),
        data=data,
        metadata=dict(metadata or {}),
    )


TurnLike: TypeAlias = Turn | str | tuple[str, "str | Turn"]


def _as_turn(value: TurnLike) -> Turn:
    if isinstance(value, Turn):
        return value
    if isinstance(value, str):
        return Turn(text=value)
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        user, reply = value
        if isinstance(reply, Turn):
            return reply if reply.input == user else reply.model_copy(update={"input": user})
        if isinstance(reply, str):
            return Turn(input=user, text=reply)
    raise TypeError(
        "a conversation turn is a Turn, a reply string, or a (user input, reply) tuple whose "
        f"reply is a string or a Turn; got {value!r}"
    )


def conversation(
    *turns: TurnLike,
    workflow: WorkflowState | str | Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    id: str | None = None,
) -> Conversation:
    """Build a conversation from `(user input, reply)` pairs, turns, or bare replies.

    A reply is a string or a `turn(...)`; the pair's user input becomes the turn's `input`.

    Example:
        >>> talk = conversation(
        ...     ("Book a table for 4", turn("Booked.", calls=[call("book", size=4)])),
        ...     ("Thanks!", "You're welcome."),
        ...     workflow="done",
        ... )
        >>> [t.input for t in talk.turns], talk.turns[0].tool_calls[0].name, talk.workflow.current
        (['Book a table for 4', 'Thanks!'], 'book', 'done')
    """
    return Conversation(
        turns=tuple(_as_turn(t) for t in turns),
        workflow=_as_workflow(workflow),
        metadata=dict(metadata or {}),
        id=id,
    )


# -- loading transcripts -------------------------------------------------------------------


def load_conversations(
    path: str | os.PathLike[str], *, format: str | None = None
) -> list[Conversation]:
    """Read every conversation of a transcript file.

    A `.jsonl` (or `.jsonl.gz`) file holds one record per line; any other file holds one JSON
    record, or a JSON list of records. Records are in any format `chatassert.transcripts`
    reads (native, OpenAI chat, ...).

    Raises:
        TranscriptError: naming the file and line of a record that cannot be read.
    """
    from chatassert._errors import TranscriptError
    from chatassert.transcripts import parse_record, read_records

    name = os.fspath(path)
    if name.endswith((".jsonl", ".jsonl.gz")):
        out: list[Conversation] = []
        for record in read_records(name, format=format):
            if record.conversation is None:
                raise TranscriptError(f"{record.where}: {record.error}")
            out.append(record.conversation)
        return out
    try:
        raw = json.loads(Path(name).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"{name}: not JSON: {exc}") from None
    records = raw if isinstance(raw, list) and all(isinstance(r, dict) for r in raw) else [raw]
    try:
        return [parse_record(r, format) for r in records]
    except TranscriptError as exc:
        raise TranscriptError(f"{name}: {exc}") from None


def load_conversation(path: str | os.PathLike[str], *, format: str | None = None) -> Conversation:
    """Read the one conversation of a transcript file (see `load_conversations`).

    Raises:
        TranscriptError: when the file holds no conversation or more than one.
    """
    from chatassert._errors import TranscriptError

    found = load_conversations(path, format=format)
    if len(found) != 1:
        raise TranscriptError(
            f"{os.fspath(path)} holds {len(found)} conversations, not one; use "
            "load_conversations() (or chatassert_load.all() in pytest) to read them all"
        )
    return found[0]


# -- unittest ------------------------------------------------------------------------------


class ChatAssertMixin:
    """A `unittest.TestCase` mixin with `assertPasses` and `assertFails`.

    Example:
        >>> import unittest
        >>> from chatassert import Contains
        >>> class ReplyTest(ChatAssertMixin, unittest.TestCase):
        ...     def test_mentions_refund(self):
        ...         self.assertPasses(Contains("refund"), "No.")
        >>> outcome = unittest.TestResult()
        >>> _ = ReplyTest("test_mentions_refund").run(outcome)
        >>> print(outcome.failures[0][1].splitlines()[-3:])
        ['chatassert.testing.ChatAssertionError: contains did not pass', \
"FAIL contains: Response does not contain 'refund'", "subject: text 'No.'"]
    """

    def assertPasses(  # noqa: N802 - unittest's spelling
        self, assertion: Checkable, subject: object, msg: str | None = None
    ) -> Result:
        """Fail the test, showing the failing branches, unless `subject` passes `assertion`."""
        __tracebackhide__ = True
        return assert_passes(assertion, subject, msg=msg)

    def assertFails(  # noqa: N802 - unittest's spelling
        self, assertion: Checkable, subject: object, msg: str | None = None
    ) -> Result:
        """Fail the test unless checking `subject` gives a `failed` result (not an error)."""
        __tracebackhide__ = True
        return assert_fails(assertion, subject, msg=msg)
