"""Lazy turns and conversations (`chatassert._lazy`) cannot drift from their models.

The OpenAI chat reader gives plain transcripts as `LazyConversation`s of `LazyTurn`s: the
fields checks read most set when the line is read, the pydantic model built on first use of
anything else. Held here, on random transcripts and on every bundled and fixture log:

- every field and derived value a lazy subject answers itself equals the model's, and the
  model equals what the general reading of the same messages builds;
- every registered check kind (its contract example, passing and failing) gives the same result
  tree on a lazy subject as on its model, turn by turn and on the whole conversation;
- a lazy subject passes for its model everywhere a user meets it: `isinstance`, equality both
  ways, `model_dump`, pickling and copying (which give the model), embedding in a model, and
  a frozen model's refusal of assignment.
"""

from __future__ import annotations

import copy
import functools
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_chat_plain_path import _MESSAGE

from chatassert import Conversation, Result, Turn
from chatassert._lazy import EMPTY, LazyConversation, LazyTurn, as_model
from chatassert.transcripts import parse_line
from chatassert.transcripts._build import conversation
from chatassert.transcripts._openai_chat import _lazy_conversation, messages
from test_contract import CASES, build

_ROOT = Path(__file__).resolve().parents[2]

_TURN_VALUES = ("text_lower", "called_tools", "call_results")
"""Values a turn derives from its fields (cached properties)."""


def _lazy(raw: list[Any]) -> LazyConversation | None:
    chat = _lazy_conversation(raw, "x", {"model": "m"})
    assert chat is None or type(chat) is LazyConversation
    return chat  # type: ignore[return-value]


def _assert_same_fields(lazy: Any, model: Any, names: Any) -> None:
    for name in names:
        assert getattr(lazy, name) == getattr(model, name), name


def _turn_names() -> list[str]:
    return [*Turn.model_fields, *_TURN_VALUES]


def _assert_drift_free(chat: LazyConversation, general: Conversation) -> None:
    """`chat` (not yet built) answers as `general`, a model built by the general reading."""
    for turn, model in zip(chat.turns, general.turns, strict=True):
        assert type(turn) is LazyTurn
        assert turn._built is None
        _assert_same_fields(turn, model, ("input", "text", "tool_calls", *_TURN_VALUES[:2]))
        for name in ("guardrails", "workflow", "data", "media", "agent", "metadata", "unrecorded"):
            assert getattr(LazyTurn, name) == getattr(model, name), name  # fixed for plain turns
    assert chat.id == general.id
    assert chat.metadata == general.metadata
    assert chat.tool_calls == general.tool_calls
    assert chat.unrecorded == general.unrecorded
    assert chat._built is None  # nothing above needed the model
    assert as_model(chat) == general
    for turn, model in zip(chat.turns, general.turns, strict=True):
        _assert_same_fields(turn, model, _turn_names())
    _assert_same_fields(chat, general, [*Conversation.model_fields, "tool_calls", "unrecorded"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_MESSAGE, max_size=8))
def test_a_lazy_conversation_is_what_the_general_reading_builds(raw: list[dict[str, Any]]) -> None:
    chat = _lazy(raw)
    if chat is None:
        return  # not plain: the general reading takes it
    _assert_drift_free(chat, conversation(messages(raw), id="x", metadata={"model": "m"}))


def _outcome(assertion: Any, subject: object) -> Any:
    try:
        result = assertion.check(subject)
    except TypeError as exc:  # a turn check given a conversation, say: refused the same way
        return "TypeError", str(exc)
    assert isinstance(result, Result)
    return _tree(result)


def _tree(result: Result) -> Any:
    """A result tree without its timings (a case's duration differs run to run)."""
    out = result.to_dict()

    def strip(node: dict[str, Any]) -> dict[str, Any]:
        node.pop("duration", None)
        for child in node.get("children", ()):
            strip(child)
        return node

    return strip(out)


@functools.cache
def _checks() -> list[tuple[str, bool, Any]]:
    """Every contract check, passing and failing: built when first needed, not at collection."""
    return [
        (kind, passing, build(CASES[kind], passing=passing))
        for kind in sorted(CASES)
        for passing in (True, False)
    ]


def _assert_same_verdicts(fresh: Any, model: Conversation) -> None:
    """Every contract check gives `fresh()` (a new lazy conversation each time, never built
    before it is checked) the result it gives `model`."""
    for kind, passing, assertion in _checks():
        where = (kind, passing)
        assert _outcome(assertion, fresh()) == _outcome(assertion, model), where
        for index, turn in enumerate(model.turns):
            lazy_turn = fresh().turns[index]
            assert _outcome(assertion, lazy_turn) == _outcome(assertion, turn), (*where, index)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # each example runs every check kind's contract example on every turn
@given(st.lists(_MESSAGE, min_size=1, max_size=6))
def test_every_check_gives_a_lazy_subject_its_models_result(raw: list[dict[str, Any]]) -> None:
    chat = _lazy(raw)
    if chat is None:
        return
    _assert_same_verdicts(lambda: _lazy(raw), as_model(chat))


def _logged_lazy_lines() -> list[tuple[str, str]]:
    """Every line of the bundled and fixture logs the reader gives as a lazy conversation."""
    found = []
    for path in sorted(
        [*_ROOT.glob("examples/**/*.jsonl"), *_ROOT.glob("tests/fixtures/**/*.jsonl")]
    ):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and type(parse_line(line).conversation) is LazyConversation:
                found.append((f"{path.relative_to(_ROOT)}:{number}", line))
    return found


_LOGGED = _logged_lazy_lines()


def test_the_bundled_logs_are_read_lazily() -> None:
    assert len(_LOGGED) >= 5  # the OpenAI chat lines of the examples and fixtures


@pytest.mark.parametrize(("where", "line"), _LOGGED, ids=[w for w, _ in _LOGGED])
def test_a_logged_conversation_answers_and_checks_as_its_model(where: str, line: str) -> None:
    record = json.loads(line)
    raw = record["messages"] if isinstance(record, dict) else record
    chat = parse_line(line).conversation
    assert type(chat) is LazyConversation
    general = conversation(messages(raw), id=chat.id, metadata=chat.metadata)
    _assert_drift_free(chat, general)
    _assert_same_verdicts(lambda: parse_line(line).conversation, as_model(chat))


_LINE = json.dumps(
    {
        "id": 7,
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Book a table"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "book", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": "Booked."},
        ],
    }
)


def test_a_lazy_subject_passes_for_its_model() -> None:
    chat = parse_line(_LINE).conversation
    turn = chat.turns[0]
    assert isinstance(chat, Conversation)
    assert isinstance(turn, Turn)
    assert type(chat) is LazyConversation
    assert type(turn) is LazyTurn
    model = as_model(chat)
    assert type(model) is Conversation
    assert type(model.turns[0]) is Turn
    assert as_model(model) is model  # a model is its own model
    assert chat == model
    assert model == chat
    assert turn == model.turns[0]
    assert chat.model_dump() == model.model_dump()
    assert repr(turn) == repr(model.turns[0])
    assert dict(turn) == dict(model.turns[0])
    for copied in (pickle.loads(pickle.dumps(chat)), copy.copy(chat), copy.deepcopy(chat)):
        assert type(copied) is Conversation
        assert copied == model
    embedded = Conversation(turns=[turn])  # a lazy turn inside a model is dumped as the model
    assert embedded.model_dump()["turns"][0] == model.turns[0].model_dump()


def test_a_lazy_subject_is_as_frozen_as_its_model() -> None:
    turn = parse_line(_LINE).conversation.turns[0]
    with pytest.raises(Exception, match="frozen"):
        turn.text = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError, match="cannot be changed"):
        turn.metadata["key"] = "value"
    assert turn.text == "Booked."
    assert turn.metadata == {}
    assert EMPTY == {}


def test_a_lazy_turn_builds_its_model_once() -> None:
    turn = parse_line(_LINE).conversation.turns[0]
    assert turn._built is None
    first = turn.messages
    assert turn._built is not None
    assert turn._build is None
    assert turn.messages is first  # the same model answers again
    assert turn.tool_calls[0] is turn.messages[2].tool_calls[0]  # one call, as the model has it
