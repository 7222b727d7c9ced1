"""Turns and conversations read from a log, with their pydantic models built on first use.

Most of a log's cost, once decoded, is building the subject models: a `Message` for every
message, a `ToolResult` for every tool output, the pairing of results with calls. A check of a
turn's text or calls reads none of that. The reader of the commonest log shape (plain OpenAI
chat messages) therefore gives a `LazyTurn`: the few fields checks read most (`input`, `text`,
`tool_calls` and what derives from them) are set when the log is read; anything else — the
messages, the tool results, `model_dump()`, equality, a pickle — builds the `Turn` the eager
reader would have built, by that reader's own code, once, and answers from it. A
`LazyConversation` holds lazy turns the same way.

Each passes for its model: `isinstance(lazy, Turn)` holds (its `__class__` is the model's, as
`unittest.mock` does for a spec), so every check, selector and user function that takes a
`Turn` takes it. `type(lazy)` tells it apart, and `as_model` gives the model itself.
`tests/test_lazy.py` holds the two to the same fields and every check kind to the same result on
both, over the readers' fixtures and random transcripts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar, cast

from chatassert._models import Conversation, ToolCall, Turn

__all__ = ["EMPTY", "TURN_TYPES", "LazyConversation", "LazyTurn", "as_model"]


class _Empty(dict[str, Any]):
    """An empty mapping that stays empty: the `metadata` and `unrecorded` of a plain turn,
    shared by all of them."""

    __slots__ = ()

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a turn read from a log cannot be changed; copy the mapping with dict()")

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, ())


EMPTY: dict[str, Any] = _Empty()
"""The empty, read-only mapping plain turns share for `metadata` and `unrecorded`."""

_SET = object.__setattr__


class _Lazy:
    """What both lazy subjects share: the model built on first use, and everything a pydantic
    model answers that is not set here answered by it."""

    __slots__ = ("_build", "_built")
    _build: Callable[[], Any] | None
    _built: Any

    def _model(self) -> Any:
        built = self._built
        if built is None:
            build = self._build
            assert build is not None
            built = build()
            _SET(self, "_built", built)
            _SET(self, "_build", None)  # what it built from is not needed again
        return built

    def __getattr__(self, name: str) -> Any:  # a field or method not set here: the model's
        return getattr(self._model(), name)

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._model(), name, value)  # frozen: raises as the model does

    def __delattr__(self, name: str) -> None:
        delattr(self._model(), name)

    def __eq__(self, other: object) -> bool:
        return bool(self._model() == (other._model() if isinstance(other, _Lazy) else other))

    def __hash__(self) -> int:
        return hash(self._model())

    def __repr__(self) -> str:
        return repr(self._model())

    def __str__(self) -> str:
        return str(self._model())

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self._model())

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickled, copied: as the model
        return self._model().__reduce_ex__(protocol)

    def __copy__(self) -> Any:
        return self._model().__copy__()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        return self._model().__deepcopy__(memo)


class LazyTurn(_Lazy):
    """A plain turn read from a log: `input`, `text` and `tool_calls` set, the `Turn` built on
    first use of anything else (see the module's documentation).

    What a plain turn cannot have is fixed: no guardrail events, workflow state, structured
    data, media, agent, metadata or unrecorded parts.
    """

    __slots__ = ("_called", "_lower", "input", "text", "tool_calls")
    _called: list[str] | None
    _lower: str | None
    input: str | None
    text: str
    tool_calls: tuple[ToolCall, ...]

    guardrails: tuple[()] = ()
    workflow: None = None
    data: None = None
    media: tuple[()] = ()
    agent: None = None
    metadata: dict[str, Any] = EMPTY
    unrecorded: dict[str, str] = EMPTY

    def __init__(
        self,
        input: str | None,
        text: str,
        tool_calls: tuple[ToolCall, ...],
        build: Callable[[], Turn],
    ) -> None:
        _SET(self, "input", input)
        _SET(self, "text", text)
        _SET(self, "tool_calls", tool_calls)
        _SET(self, "_lower", None)
        _SET(self, "_called", None)
        _SET(self, "_build", build)
        _SET(self, "_built", None)

    @property  # type: ignore[misc]  # a read-only __class__: it passes for a Turn
    def __class__(self) -> type[Turn]:  # type: ignore[override]
        return Turn

    @property
    def text_lower(self) -> str:
        """`Turn.text_lower`: the text, lowered once."""
        lower = self._lower
        if lower is None:
            lower = self.text.lower()
            _SET(self, "_lower", lower)
        return lower

    @property
    def called_tools(self) -> list[str]:
        """`Turn.called_tools`: the names of the tools called, in call order, with repeats."""
        called = self._called
        if called is None:
            called = [c.name for c in self.tool_calls]
            _SET(self, "_called", called)
        return called


class LazyConversation(_Lazy):
    """A conversation of `LazyTurn`s read from a log, its `Conversation` built (from theirs)
    on first use of anything but its `turns`, `id`, `metadata` and `tool_calls`."""

    __slots__ = ("_calls", "id", "metadata", "turns")
    turns: tuple[LazyTurn, ...]
    id: str | None
    metadata: dict[str, Any]

    workflow: None = None
    unrecorded: dict[str, str] = EMPTY

    def __init__(
        self,
        turns: tuple[LazyTurn, ...],
        id: str | None,
        metadata: dict[str, Any],
        build: Callable[[], Conversation],
    ) -> None:
        _SET(self, "turns", turns)
        _SET(self, "id", id)
        _SET(self, "metadata", metadata)
        _SET(self, "_calls", None)
        _SET(self, "_build", build)
        _SET(self, "_built", None)

    @property  # type: ignore[misc]  # a read-only __class__: it passes for a Conversation
    def __class__(self) -> type[Conversation]:  # type: ignore[override]
        return Conversation

    @property
    def tool_calls(self) -> list[tuple[int, ToolCall]]:
        """`Conversation.tool_calls`: every call as `(turn_index, call)`, in order."""
        calls = self._calls
        if calls is None:
            calls = [(i, c) for i, t in enumerate(self.turns) for c in t.tool_calls]
            _SET(self, "_calls", calls)
        return cast(list[tuple[int, ToolCall]], calls)


TURN_TYPES = (Turn, LazyTurn)
"""The exact types of turns, for fast paths that test `type(subject) in TURN_TYPES` (quicker than
`isinstance`, which a lazy turn passes only through its `__class__`)."""

_M = TypeVar("_M")


def as_model(subject: _M) -> _M:
    """The pydantic model of a lazy turn or conversation (built now if it was not yet); any
    other subject as it is.

    Example:
        >>> from chatassert.transcripts import as_model, parse_line
        >>> chat = parse_line('{"messages": [{"role": "user", "content": "Hi"}]}').conversation
        >>> type(chat).__name__, type(as_model(chat)).__name__
        ('LazyConversation', 'Conversation')
    """
    if isinstance(subject, _Lazy):
        return cast(_M, subject._model())
    return subject
