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

import contextlib
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
    "ContractError",
    "FakeJudge",
    "FunctionJudge",
    "Passes",
    "Verdict",
    "assert_fails",
    "assert_passes",
    "assert_passes_async",
    "call",
    "check_contract",
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


# -- the contract every check keeps --------------------------------------------------------

_PROMISES = (
    "returns a result",
    "four outcomes",
    "expected outcome",
    "a failure explains itself",
    "error never a pass",
    "negation swaps only pass and fail",
    "pointer resolves",
    "JSON round trip",
    "check and acheck agree",
    "pickles",
    "spec round trip",
    "immutable",
    "describes itself",
)
"""The promises `check_contract` holds a check to, in the order it reports them."""

_NEGATED = {
    Status.PASSED: Status.FAILED,
    Status.FAILED: Status.PASSED,
    Status.ERROR: Status.ERROR,
    Status.SKIPPED: Status.SKIPPED,
}


class ContractError(AssertionError):
    """A check broke promises of the contract every check keeps (see `check_contract`).

    It is an `AssertionError`, so every test framework reports it as a failure; its message
    names each broken promise and what broke it.

    Attributes:
        broken: Each broken promise, by name, with what broke it.
    """

    def __init__(self, check: str, broken: Mapping[str, list[str]]) -> None:
        self.broken = {p: list(broken[p]) for p in _PROMISES if p in broken}
        count = len(self.broken)
        lines = [f"{check} broke {count} promise{'s' if count > 1 else ''} of the check contract:"]
        for promise, problems in self.broken.items():
            lines += [f"- {promise}: {problem}" for problem in problems]
        super().__init__("\n".join(lines))


def check_contract(
    assertion: Any,
    subjects: Mapping[str, list[object] | tuple[object, ...]],
    *,
    options: Mapping[str, Any] | None = None,
) -> None:
    """Hold a check to the promises every built-in check keeps; raise `ContractError` naming
    each one it breaks.

    For a check of your own (docs/write-a-check.md), from your own test suite:

    - **returns a result**: `check` returns a `Result` named after the check's `kind` for each
      subject, and raises nothing (a crash inside `_check` is an `error` result already).
    - **four outcomes**: every status in the result tree is `passed`, `failed`, `error` or
      `skipped`.
    - **expected outcome**: each subject comes out as `subjects` says.
    - **a failure explains itself**: every `failed` or `error` result has a reason.
    - **error never a pass**: a subject listed as an `error` does not pass; a judged check
      whose judge cannot answer (it raises, or replies without `passed`) is an `error`, and
      its negation too.
    - **negation swaps only pass and fail**: `~check` fails where the check passes, passes
      where it fails, and keeps an error an error and a skip a skip.
    - **pointer resolves**: each pointer in the result names a place in the subject (a missing
      field's place counts when its parent is there), and each span lies within the text
      there.
    - **JSON round trip**: `to_dict()` is strict JSON, and `Result.from_dict` reads it back
      to the same JSON.
    - **check and acheck agree**: `await acheck(subject)` gives the result `check` gives.
    - **pickles**: the check survives `pickle` (as `--jobs` workers need) and checks the same
      after (a judge given in code is left out: a run gives its own).
    - **spec round trip**: when the class is registered, `as_spec()` is JSON and
      `chatassert.from_spec` rebuilds an equal check from it.
    - **immutable**: setting an attribute raises.
    - **describes itself**: `describe()` says what the check requires.

    Each subject is checked several times, so a judged check needs a judge that answers the
    same way every time (`FakeJudge.passing()`, a `FunctionJudge`), not a script of replies.
    Call it from a test that is not itself `async`: it runs `acheck` in an event loop of its
    own.

    Args:
        assertion: The check, built as a spec or your code would build it.
        subjects: The subjects to check, by the outcome each must have: `"passed"` and
            `"failed"` (at least one each), `"error"` and `"skipped"` (optional).
        options: What `chatassert.from_spec` needs to rebuild the check from its spec
            (`judge=`, `judges=`); by default its own `judge`, if it has one.

    Raises:
        ContractError: naming every broken promise, with the subject that broke it.
        TypeError: when `assertion` is not an assertion, or `subjects` is not a mapping of
            lists.
        ValueError: for an unknown outcome, or without a subject that passes and one that
            fails.
        UsageError: when called inside a running event loop.

    Example:
        >>> from chatassert import Contains
        >>> check_contract(Contains("refund"),
        ...                subjects={"passed": ["Your refund is on its way."],
        ...                          "failed": ["No luck."]})
    """
    import asyncio

    from chatassert._base import Assertion
    from chatassert._errors import UsageError

    if not isinstance(assertion, Assertion):
        raise TypeError(f"check_contract checks an assertion, got {assertion!r}")
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise UsageError(
            "check_contract runs the check synchronously and in an event loop of its own: "
            "call it from a test that is not async"
        )
    groups = _contract_subjects(subjects)
    broken: dict[str, list[str]] = {}

    def breaks(promise: str, problem: str) -> None:
        problems = broken.setdefault(promise, [])
        if problem not in problems:
            problems.append(problem)

    results: list[tuple[object, Result]] = []
    for expected, subject in groups:
        result = _contract_result(assertion, subject, expected, breaks)
        if result is not None:
            results.append((subject, result))
    _contract_judge_faults(assertion, groups, breaks)
    _contract_pickles(assertion, results, breaks)
    _contract_spec(assertion, options, breaks)
    message = assertion.message
    try:
        assertion.message = "changed"
    except AttributeError:
        pass
    else:
        object.__setattr__(assertion, "message", message)
        breaks("immutable", "setting its message did not raise AttributeError")
    described = assertion.describe()
    if not isinstance(described, str) or not described.strip():
        breaks("describes itself", f"describe() gave {described!r}")
    if broken:
        raise ContractError(type(assertion).__name__, broken)


def _contract_subjects(
    subjects: Mapping[str, list[object] | tuple[object, ...]],
) -> list[tuple[Status, object]]:
    """The subjects of `check_contract`, each with the outcome it must have."""
    if not isinstance(subjects, Mapping):
        raise TypeError(
            "subjects must map outcomes to lists of subjects: "
            "subjects={'passed': [good], 'failed': [bad]}"
        )
    out: list[tuple[Status, object]] = []
    for key, group in subjects.items():
        try:
            status = Status(key)
        except ValueError:
            raise ValueError(
                f"unknown outcome {key!r} in subjects: the outcomes are passed, failed, error "
                "and skipped"
            ) from None
        if not isinstance(group, list | tuple):
            raise TypeError(
                f"subjects[{key!r}] must be a list of subjects, got {type(group).__name__} "
                "(for one subject write [subject])"
            )
        out += [(status, subject) for subject in group]
    given = {status for status, _ in out}
    missing = [s.value for s in (Status.PASSED, Status.FAILED) if s not in given]
    if missing:
        raise ValueError(
            "give at least one subject the check passes and one it fails "
            f"(subjects={{'passed': [...], 'failed': [...]}}); none is {' or '.join(missing)}"
        )
    return out


def _contract_result(
    assertion: Any, subject: object, expected: Status, breaks: Callable[[str, str], None]
) -> Result | None:
    """Check one subject and hold the result to the promises of one result."""
    import asyncio

    shown = describe_subject(subject, 80)
    try:
        result = assertion.check(subject)
    except Exception as exc:
        breaks("returns a result", f"check raised {type(exc).__name__}: {exc} on {shown}")
        return None
    if not isinstance(result, Result):
        breaks("returns a result", f"check returned {result!r}, not a Result, on {shown}")
        return None
    if result.name != assertion.kind:
        breaks("returns a result", f"the result is named {result.name!r}, not {assertion.kind!r}")
    outcomes = True
    for _, node in result.walk():
        if not isinstance(node.status, Status):
            breaks("four outcomes", f"{node.name} has the status {node.status!r} on {shown}")
            outcomes = False
        elif node.status in (Status.FAILED, Status.ERROR) and not str(node.reason).strip():
            breaks("a failure explains itself", f"{node.name} {node.status} without a reason")
    if not outcomes:
        return None  # nothing else can be read from it
    status = result.status
    if status is not expected:
        promise = (
            "error never a pass"
            if expected is Status.ERROR and status is Status.PASSED
            else "expected outcome"
        )
        breaks(promise, f"{shown} {status}, expected {expected}: {result.reason}")
    try:
        negated = (~assertion).check(subject).status
    except Exception as exc:
        breaks("negation swaps only pass and fail", f"~check raised {exc!r} on {shown}")
    else:
        if negated is not _NEGATED[status]:
            breaks(
                "negation swaps only pass and fail",
                f"the check {status} but its negation {negated} on {shown}",
            )
    for _, node in result.walk():
        if node.pointer is not None:
            problem = _pointer_problem(subject, node.pointer, node.span)
            if problem is not None:
                breaks("pointer resolves", f"{node.name}: {problem} in {shown}")
    try:
        written = json.loads(json.dumps(result.to_dict(), allow_nan=False))
        again = json.loads(json.dumps(Result.from_dict(written).to_dict(), allow_nan=False))
    except Exception as exc:
        breaks("JSON round trip", f"the result on {shown} is not JSON: {exc!r}")
    else:
        if again != written:
            breaks("JSON round trip", f"the result on {shown} reads back otherwise: {again}")
    try:
        awaited = asyncio.run(assertion.acheck(subject))
    except Exception as exc:
        breaks("check and acheck agree", f"acheck raised {type(exc).__name__}: {exc} on {shown}")
    else:
        if awaited != result:
            breaks(
                "check and acheck agree", f"on {shown} acheck gave {awaited!r}, check {result!r}"
            )
    return result


def _contract_judge_faults(
    assertion: Any, groups: list[tuple[Status, object]], breaks: Callable[[str, str], None]
) -> None:
    """A judged leaf whose judge cannot answer is an error, and so is its negation."""
    import copy

    from chatassert._judged_base import JudgedAssertion

    if not isinstance(assertion, JudgedAssertion):
        return
    faults = (
        ("raises", FakeJudge(default=RuntimeError("the judge is unreachable"), name="faulty")),
        ("replies without 'passed'", FakeJudge(default={"score": 1.0}, name="faulty")),
    )
    for what, judge in faults:
        probe = copy.copy(assertion)
        object.__setattr__(probe, "judge", judge)
        for _, subject in groups:
            asked = len(judge.requests)
            statuses = (probe.check(subject).status, (~probe).check(subject).status)
            if len(judge.requests) > asked and statuses != (Status.ERROR, Status.ERROR):
                breaks(
                    "error never a pass",
                    f"with a judge that {what}, the check {statuses[0]} and its negation "
                    f"{statuses[1]} on {describe_subject(subject, 80)}",
                )


def _contract_pickles(
    assertion: Any, results: list[tuple[object, Result]], breaks: Callable[[str, str], None]
) -> None:
    """The check survives pickle and checks the same after (without a judge given in code)."""
    import copy
    import pickle

    judge = getattr(assertion, "judge", None)
    sent = assertion
    if judge is not None:  # configuration, not state: a worker is given its own
        sent = copy.copy(assertion)
        object.__setattr__(sent, "judge", None)
    try:
        again = pickle.loads(pickle.dumps(sent))
    except Exception as exc:
        breaks("pickles", f"{type(exc).__name__}: {exc}")
        return
    if again != sent:
        breaks("pickles", f"it reads back as {again!r}")
        return
    if judge is not None:
        object.__setattr__(again, "judge", judge)
    for subject, result in results:
        try:
            same = again.check(subject) == result
        except Exception as exc:
            breaks("pickles", f"once unpickled its check raised {exc!r}")
            return
        if not same:
            breaks("pickles", f"once unpickled it checks {describe_subject(subject, 80)} otherwise")


def _contract_spec(
    assertion: Any, options: Mapping[str, Any] | None, breaks: Callable[[str, str], None]
) -> None:
    """A registered check's spec is JSON, and `from_spec` rebuilds an equal check from it."""
    from chatassert._errors import SpecError
    from chatassert._params import REGISTRY
    from chatassert._registry import from_spec

    if REGISTRY.get(assertion.kind) is not type(assertion):
        return  # used in code only: it has no spec to round-trip
    spec = assertion.as_spec()
    try:
        json.dumps(spec, allow_nan=False)
    except (TypeError, ValueError) as exc:
        breaks("spec round trip", f"as_spec() is not JSON: {exc}")
        return
    if options is None:
        judge = getattr(assertion, "judge", None)
        options = {} if judge is None else {"judge": judge}
    try:
        rebuilt = from_spec(spec, **options)
    except SpecError as exc:
        breaks("spec round trip", f"from_spec(as_spec()) refused {spec}: {exc}")
        return
    if type(rebuilt) is not type(assertion) or rebuilt != assertion:
        breaks("spec round trip", f"from_spec({spec}) built {rebuilt!r}, not {assertion!r}")


def _pointer_problem(subject: object, where: str, span: tuple[int, int] | None) -> str | None:
    """What is wrong with a pointer (and span) into `subject`, or None when it resolves: in
    the subject, its form as a turn, or its JSON value. The place of a missing field counts
    when its parent is free-form data (a JSON object, arguments, metadata): the evidence of a
    missing field is where it should be."""
    from chatassert._models import as_json, as_turn
    from chatassert.authoring import _NoPlaceError, _resolve

    documents: list[object] = [subject]
    if not isinstance(subject, Turn | Conversation):
        with contextlib.suppress(TypeError):
            documents.append(as_turn(subject))
        with contextlib.suppress(ValueError):
            documents.append(as_json(subject))
    problem = f"{where!r} names nothing"
    for document in documents:
        try:
            found = _resolve(document, where)
        except ValueError as exc:
            return str(exc)
        except _NoPlaceError as exc:
            if exc.missing_field and span is None:
                return None
            problem = str(exc)
            continue
        if span is None:
            return None
        if not isinstance(found, str):
            problem = f"span {span} at {where!r}, which is not a text"
            continue
        start, end = span
        if 0 <= start <= end <= len(found):
            return None
        problem = f"span {span} is outside the {len(found)} characters at {where!r}"
    return problem


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
