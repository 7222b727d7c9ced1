"""What a check of your own needs: read its subject, point at its evidence, build its result.

A check is a subclass of `chatassert.Assertion` that implements `_check(subject) -> Result`
(docs/write-a-check.md). The subject it is given may be a `Turn`, a `Conversation`, a plain
string (a reply's text) or a JSON value; the readers here take any of them, the way the
built-in checks do:

- `text_of`, `turn_of`, `turns_of`, `tool_calls_of`, `arguments_of` and `json_of` read the
  parts of a subject. A part the log did not record (`Turn.unrecorded`) raises
  `chatassert.errors.UnrecordedError`, so the check comes out as an `error` with the log's
  reason, never as a verdict on text that is only missing from the log.
- `each_text` and `each_call` give each text and each tool call with its place as a JSON
  Pointer (`/text`, `/turns/2/tool_calls/0`), ready to be the evidence of a failure.
- `pointer` writes a JSON Pointer, `value_at` reads one back, and `find_span` finds the
  characters of a text that decide.
- `passed`, `failed`, `errored` and `skipped` build the four outcomes of a check, with the
  pointer, span and excerpt of its evidence.

`chatassert.testing.check_contract` holds a check to the promises every built-in check keeps.

Example:
    >>> from chatassert import Assertion, Result
    >>> from chatassert.authoring import each_text, failed, find_span, passed
    >>> class NoInternalCodes(Assertion):
    ...     '''Passes when no reply shows an internal error code (ERR-1234).'''
    ...     kind = "no_internal_codes"
    ...     def _check(self, subject: object) -> Result:
    ...         for where, text in each_text(subject):
    ...             span = find_span(text, "ERR-")
    ...             if span is not None:
    ...                 return failed(self, "shows an internal error code", pointer=where,
    ...                               text=text, span=span)
    ...         return passed(self)
    >>> result = NoInternalCodes().check("Sorry: ERR-4411")
    >>> result.status.value, result.pointer, result.span
    ('failed', '/text', (7, 11))
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from chatassert._base import Assertion
from chatassert._errors import UnrecordedError
from chatassert._models import (
    UNRECORDED_ARGUMENTS,
    Conversation,
    ToolCall,
    Turn,
    as_conversation,
    as_json,
    as_turn,
)
from chatassert._result import Result, Status
from chatassert._text import span_of

__all__ = [
    "arguments_of",
    "each_call",
    "each_text",
    "errored",
    "failed",
    "find_span",
    "json_of",
    "passed",
    "pointer",
    "skipped",
    "text_of",
    "tool_calls_of",
    "turn_of",
    "turns_of",
    "value_at",
]


# -- reading a subject ---------------------------------------------------------------------


def _recorded(turn: Turn, part: str, where: str) -> Turn:
    """`turn`, when its log recorded `part`; else the `UnrecordedError` saying so."""
    why = turn.unrecorded.get(part) if turn.unrecorded else None
    if why is not None:
        raise UnrecordedError(
            f"the log did not record the {part.replace('_', ' ')} of {where}: {why}"
        )
    return turn


def turn_of(subject: object) -> Turn:
    """Return the turn a turn check reads: a `Turn` itself, a string as a turn with that text,
    the one turn of a one-turn conversation, or a JSON value as a turn whose `data` it is.

    Raises:
        TypeError: for a conversation of several turns (a turn check is run on one with
            `OnTurn`, `OnLastTurn`, `OnEveryTurn` or `OnAnyTurn`), or a subject of another type.

    Example:
        >>> turn_of("Hello").text
        'Hello'
    """
    return as_turn(subject)


def turns_of(subject: object) -> tuple[Turn, ...]:
    """Return the turns of a subject: a conversation's, or the one turn of anything else.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> [t.text for t in turns_of(Conversation(turns=[Turn(text="a"), Turn(text="b")]))]
        ['a', 'b']
        >>> len(turns_of("a reply"))
        1
    """
    return as_conversation(subject).turns


def text_of(subject: object) -> str:
    """Return the text a turn check reads: a string itself, or the turn's text (the content
    of its last assistant message that has text; docs/semantics.md G1).

    Raises:
        UnrecordedError: when the log did not record the turn's text (the check is then an
            `error` with the log's reason).
        TypeError: for a conversation of several turns (see `turn_of`).

    Example:
        >>> from chatassert import Turn
        >>> text_of("Your order #A-1234 ships today."), text_of(Turn(text="Hi"))
        ('Your order #A-1234 ships today.', 'Hi')
    """
    if type(subject) is str:
        return subject
    return _recorded(as_turn(subject), "text", "this turn").text


def tool_calls_of(subject: object) -> tuple[ToolCall, ...]:
    """Return the tool calls of a turn (every call of every assistant message, in order; G2),
    or of every turn of a conversation, in order.

    Raises:
        UnrecordedError: when the log did not record the tool calls of a turn.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> [c.name for c in tool_calls_of(Turn(tool_calls=[ToolCall(name="refund")]))]
        ['refund']
    """
    if isinstance(subject, Conversation):
        return tuple(call for _, call in each_call(subject))
    return _recorded(as_turn(subject), "tool_calls", "this turn").tool_calls


def arguments_of(call: ToolCall) -> dict[str, Any]:
    """Return the arguments of a tool call.

    Raises:
        UnrecordedError: when the log did not record them.
        ValueError: when the model's arguments were not a JSON object (`raw_arguments` holds
            what it sent): a check of them cannot say yes or no.

    Example:
        >>> from chatassert import ToolCall
        >>> arguments_of(ToolCall(name="refund", arguments='{"amount": 20}'))
        {'amount': 20}
    """
    error = call.arguments_error
    if error is None:
        return call.arguments
    if error.startswith(UNRECORDED_ARGUMENTS):
        raise UnrecordedError(f"{error} of the call of {call.name}")
    raise ValueError(f"the arguments of the call of {call.name} are not a JSON object: {error}")


def json_of(subject: object) -> Any:
    """Return the JSON value a JSON check reads: a JSON value itself, a turn's structured
    `data`, else its text (or a string) parsed as JSON; a conversation's last turn's.

    Raises:
        ValueError: when the text is not JSON, or the log did not record it.

    Example:
        >>> json_of('{"total": 40}')
        {'total': 40}
    """
    return as_json(subject)


def each_text(subject: object) -> Iterator[tuple[str, str]]:
    """Yield `(pointer, text)` for the text of a turn (`/text`), or of each turn of a
    conversation (`/turns/0/text`, `/turns/1/text`, ...), in order.

    Raises:
        UnrecordedError: on the first turn whose log did not record its text.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> list(each_text(Conversation(turns=[Turn(text="Hi"), Turn(text="Bye")])))
        [('/turns/0/text', 'Hi'), ('/turns/1/text', 'Bye')]
    """
    if isinstance(subject, Conversation):
        for i, turn in enumerate(subject.turns):
            yield f"/turns/{i}/text", _recorded(turn, "text", f"turns[{i}]").text
    else:
        yield "/text", text_of(subject)


def each_call(subject: object) -> Iterator[tuple[str, ToolCall]]:
    """Yield `(pointer, call)` for each tool call of a turn (`/tool_calls/0`, ...), or of
    each turn of a conversation (`/turns/1/tool_calls/0`, ...), in order.

    Raises:
        UnrecordedError: on the first turn whose log did not record its tool calls.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> [(p, c.name) for p, c in each_call(Turn(tool_calls=[ToolCall(name="refund")]))]
        [('/tool_calls/0', 'refund')]
    """
    if isinstance(subject, Conversation):
        for i, turn in enumerate(subject.turns):
            calls = _recorded(turn, "tool_calls", f"turns[{i}]").tool_calls
            for j, call in enumerate(calls):
                yield f"/turns/{i}/tool_calls/{j}", call
    else:
        for j, call in enumerate(tool_calls_of(subject)):
            yield f"/tool_calls/{j}", call


# -- pointers and spans --------------------------------------------------------------------


def pointer(*parts: str | int) -> str:
    """Write a JSON Pointer (RFC 6901) from its parts: field names and list indexes.

    `~` and `/` inside a part are escaped; no parts is the whole subject (`""`).

    Example:
        >>> pointer("turns", 2, "tool_calls", 0, "arguments", "a/b")
        '/turns/2/tool_calls/0/arguments/a~1b'
    """
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


class _NoPlaceError(LookupError):
    """A pointer that names nothing: where it stopped, and whether only its last part is
    missing from a mapping of free-form data (the place a missing field would be)."""

    def __init__(self, message: str, *, missing_field: bool) -> None:
        super().__init__(message)
        self.missing_field = missing_field


_NOTHING: Any = object()


def _resolve(subject: object, where: str) -> Any:
    """What `where` names in `subject`, else `_NoPlaceError`."""
    if not isinstance(where, str) or (where and not where.startswith("/")):
        raise ValueError(f"not a JSON Pointer: {where!r} (write '' or '/part/part')")
    node: Any = {"text": subject} if isinstance(subject, str) else subject
    if not where:
        return node
    parts = where.split("/")[1:]
    done = ""
    for i, raw in enumerate(parts):
        part = raw.replace("~1", "/").replace("~0", "~")
        child = _NOTHING
        if isinstance(node, BaseModel):
            if part in type(node).model_fields:
                child = getattr(node, part)
        elif isinstance(node, Mapping):
            child = node.get(part, _NOTHING)
        elif isinstance(node, list | tuple) and part.isdigit() and int(part) < len(node):
            child = node[int(part)]
        if child is _NOTHING:
            held = "nothing" if node is None else type(node).__name__
            raise _NoPlaceError(
                f"{where!r} names nothing: {done or 'the subject'} ({held}) has no {part!r}",
                missing_field=i == len(parts) - 1 and isinstance(node, Mapping),
            )
        node = child
        done += "/" + raw
    return node


def value_at(subject: object, where: str) -> Any:
    """Return what the JSON Pointer `where` names in `subject`: a `Turn` or `Conversation` by
    its fields (`/turns/1/tool_calls/0` is a `ToolCall`), a string as a turn whose `text` it
    is, a JSON value as it is.

    Raises:
        ValueError: when `where` is not a JSON Pointer (it must be `""` or start with `/`).
        LookupError: when it names nothing in the subject, saying the first part not found.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> turn = Turn(text="Refunded.", tool_calls=[ToolCall(name="refund",
        ...                                                   arguments={"amount": 20})])
        >>> value_at(turn, "/tool_calls/0/arguments/amount"), value_at("Hi", "/text")
        (20, 'Hi')
    """
    return _resolve(subject, where)


def find_span(text: str, value: str, *, ignore_case: bool = True) -> tuple[int, int] | None:
    """Return the characters `(start, end)` of the first `value` in `text`, or None.

    Case is ignored unless `ignore_case=False` (docs/semantics.md G3: both sides lowered),
    and the span is in `text` as written, even where lowering changes a character's length.

    Example:
        >>> find_span("Order #A-1234 shipped", "#a-1234")
        (6, 13)
        >>> find_span("Order #A-1234", "#a-1234", ignore_case=False) is None
        True
    """
    if ignore_case:
        start, end = span_of(text, text.lower(), value.lower())
    else:
        start = text.find(value)
        end = start + len(value)
    return None if start < 0 else (start, end)


# -- results -------------------------------------------------------------------------------


def _kind(check: Assertion) -> str:
    if not isinstance(check, Assertion):
        raise TypeError(f"give the check the result is of (self), got {check!r}")
    return check.kind


def _why(reason: object, outcome: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(
            f"{'an' if outcome == 'error' else 'a'} {outcome} result needs a reason: say what "
            "was expected and what was found "
            f"(got {reason!r})"
        )
    return reason


def _details(details: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise TypeError(f"details must be a mapping of JSON values, got {type(details).__name__}")
    return dict(details)


def _located(
    result: Result, where: str | None, text: str | None, span: tuple[int, int] | None
) -> Result:
    if where is None:
        if span is not None:
            raise ValueError("a span is a place in the text at a pointer: give pointer= too")
        return result
    if not isinstance(where, str) or (where and not where.startswith("/")):
        raise ValueError(f"pointer must be a JSON Pointer ('' or '/part/...'), got {where!r}")
    if span is None:
        return result._with_evidence(where)
    if text is None:
        raise ValueError(
            "give text= (the text at the pointer) with span=: the excerpt is cut from it"
        )
    start, end = span
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text)):
        raise ValueError(f"span {span!r} is not within the text's {len(text)} characters")
    return result._with_evidence(where, text, start, end)


def passed(
    check: Assertion,
    reason: str = "",
    details: Mapping[str, Any] | None = None,
    *,
    score: float | None = None,
) -> Result:
    """Build the `passed` result of `check` (`self` in `_check`).

    Args:
        check: The check the result is of: the result is named after its `kind`.
        reason: Why it passed; by default what the check requires (`describe()`).
        details: JSON-serialisable facts about the outcome.
        score: A number in the outcome, when the check produces one.

    Example:
        >>> from chatassert import Contains
        >>> passed(Contains("ok"), details={"found": "ok"}).status.value
        'passed'
    """
    return Result(
        Status.PASSED, _kind(check), reason or check._held(), _details(details), score=score
    )


def failed(
    check: Assertion,
    reason: str,
    details: Mapping[str, Any] | None = None,
    *,
    pointer: str | None = None,
    text: str | None = None,
    span: tuple[int, int] | None = None,
    score: float | None = None,
) -> Result:
    """Build the `failed` result of `check`, with the place of its evidence.

    Args:
        check: The check the result is of (`self` in `_check`).
        reason: What was expected and what was found, as a fragment that nests in longer
            explanations (`does not quote the order id (got 'Thanks!')`).
        details: JSON-serialisable facts (the values compared, what was missing).
        pointer: Where the evidence is in the subject, as a JSON Pointer (`each_text` and
            `each_call` give it; `pointer()` writes one). A turn selector running the check on
            a conversation's turn puts `/turns/i` before it.
        text: The text at `pointer`, when `span` marks characters of it.
        span: The characters `(start, end)` of `text` that decide (`find_span`); the result's
            excerpt is cut around them.
        score: A number in the outcome, when the check produces one.

    Raises:
        ValueError: for an empty reason, a span without its text or pointer, or a span
            outside the text.

    Example:
        >>> from chatassert import Contains
        >>> r = failed(Contains("refund"), "does not offer a refund", {"missing": ["refund"]},
        ...            pointer="/text")
        >>> r.status.value, r.pointer
        ('failed', '/text')
    """
    result = Result(
        Status.FAILED, _kind(check), _why(reason, "failed"), _details(details), score=score
    )
    return _located(result, pointer, text, span)


def errored(
    check: Assertion,
    reason: str,
    details: Mapping[str, Any] | None = None,
    *,
    pointer: str | None = None,
) -> Result:
    """Build the `error` result of `check`: it could not be evaluated (what it reads is
    missing or malformed, a service it asks is down). An error is never a pass, and `~`
    leaves it an error.

    A check may also raise: an exception from `_check` becomes an error result (`could not be
    evaluated: <type>: <message>`), and `chatassert.errors.UnrecordedError` one with its own
    words.

    Raises:
        ValueError: for an empty reason.

    Example:
        >>> from chatassert import Contains
        >>> errored(Contains("x"), "the order service did not answer").status.value
        'error'
    """
    result = Result(Status.ERROR, _kind(check), _why(reason, "error"), _details(details))
    return _located(result, pointer, None, None)


def skipped(check: Assertion, reason: str, details: Mapping[str, Any] | None = None) -> Result:
    """Build the `skipped` result of `check`: it did not apply (its condition did not hold).
    A skipped check is left out of the combinators' counts; it is never a pass.

    Raises:
        ValueError: for an empty reason.

    Example:
        >>> from chatassert import Contains
        >>> skipped(Contains("x"), "no order was placed").status.value
        'skipped'
    """
    return Result(Status.SKIPPED, _kind(check), _why(reason, "skipped"), _details(details))
