"""The subject model: turns derived from chat messages (G1, G2), conversations, coercions."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from chatassert import Contains, Conversation, ToolCall, ToolResult, Turn
from chatassert._models import (
    NotJSONError,
    _msgspec_loads,
    _scanned,
    as_conversation,
    as_json,
    as_turn,
    loads_json,
    pair_results,
)

_DECODED = _msgspec_loads()


def call(call_id: str | None, name: str, arguments: str = "{}") -> dict[str, Any]:
    """An OpenAI wire-format tool call."""
    out: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        out["id"] = call_id
    return out


AGENT_LOOP = [
    {"role": "user", "content": "Book a table for 4 on Saturday"},
    {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [call("c1", "check_availability", '{"date": "2024-02-17"}')],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "19:30 free"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            call("c2", "create_reservation", '{"party_size": 4}'),
            call("c3", "send_sms", '{"to": "+1555"}'),
        ],
    },
    {"role": "tool", "tool_call_id": "c3", "content": "sms sent"},
    {"role": "tool", "tool_call_id": "c2", "content": "reservation R-1"},
    {"role": "assistant", "content": "Booked for 4 at 19:30."},
    {"role": "assistant", "content": ""},
]


# -- Turn derived from messages -------------------------------------------------------------


def test_the_text_is_the_last_assistant_message_with_text() -> None:
    turn = Turn(messages=AGENT_LOOP)
    assert turn.text == "Booked for 4 at 19:30."
    assert turn.input == "Book a table for 4 on Saturday"


def test_a_turn_without_assistant_text_has_empty_text() -> None:
    turn = Turn(
        messages=[
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": None, "tool_calls": [call("c1", "f")]},
        ]
    )
    assert turn.text == ""
    assert [c.name for c in turn.tool_calls] == ["f"]


def test_tool_calls_come_from_every_assistant_message_in_order() -> None:
    turn = Turn(messages=AGENT_LOOP)
    assert turn.called_tools == ["check_availability", "create_reservation", "send_sms"]
    assert [c.id for c in turn.tool_calls] == ["c1", "c2", "c3"]
    assert turn.tool_calls[1].arguments == {"party_size": 4}


def test_tool_results_are_linked_by_id() -> None:
    turn = Turn(messages=AGENT_LOOP)
    assert [(r.call_id, r.name) for r in turn.tool_results] == [
        ("c1", "check_availability"),
        ("c3", "send_sms"),
        ("c2", "create_reservation"),
    ]
    pairs = {c.name: r.content if r else None for c, r in turn.call_results}
    assert pairs == {
        "check_availability": "19:30 free",
        "create_reservation": "reservation R-1",
        "send_sms": "sms sent",
    }


def test_tool_results_are_linked_by_order_without_ids() -> None:
    turn = Turn(
        messages=[
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call(None, "weather_paris"), call(None, "weather_rome")],
            },
            {"role": "tool", "content": "12C"},
            {"role": "tool", "content": "18C"},
            {"role": "assistant", "content": "Paris 12C, Rome 18C."},
        ]
    )
    assert [r.name for r in turn.tool_results] == ["weather_paris", "weather_rome"]
    assert [(c.name, r.content if r else None) for c, r in turn.call_results] == [
        ("weather_paris", "12C"),
        ("weather_rome", "18C"),
    ]


def test_a_call_without_a_result_is_paired_with_none() -> None:
    turn = Turn(
        tool_calls=[ToolCall(name="a", id="1"), ToolCall(name="b", id="2")],
        tool_results=[ToolResult(call_id="2", content="ok")],
    )
    assert [(c.name, r.content if r else None) for c, r in turn.call_results] == [
        ("a", None),
        ("b", "ok"),
    ]


def test_content_parts_are_joined_into_text() -> None:
    turn = Turn(
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Hello, "},
                    {"type": "image_url", "image_url": {"url": "x"}},
                    {"type": "text", "text": "Ann."},
                ],
            },
        ]
    )
    assert (turn.input, turn.text) == ("Hi", "Hello, Ann.")


def test_explicit_fields_win_over_derived_ones() -> None:
    turn = Turn(messages=AGENT_LOOP, text="override")
    assert turn.text == "override"
    assert len(turn.tool_calls) == 3


# -- tool-call arguments ----------------------------------------------------------------------


def test_json_string_arguments_are_parsed() -> None:
    tool_call = ToolCall(name="f", arguments='{"a": [1, 2], "b": null}')
    assert tool_call.arguments == {"a": [1, 2], "b": None}
    assert tool_call.arguments_error is None


@pytest.mark.parametrize("raw", ['{"party_size": 4', "not json", "[1, 2]", "42"])
def test_invalid_json_arguments_are_kept_with_their_error(raw: str) -> None:
    tool_call = ToolCall(name="f", arguments=raw)
    assert tool_call.arguments == {}
    assert tool_call.raw_arguments == raw
    assert tool_call.arguments_error


def test_invalid_arguments_survive_derivation_from_messages() -> None:
    turn = Turn(
        messages=[
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [call("c1", "f", "{oops")]},
        ]
    )
    assert turn.tool_calls[0].raw_arguments == "{oops"
    assert "not valid JSON" in (turn.tool_calls[0].arguments_error or "")


def test_empty_argument_text_is_no_arguments() -> None:
    tool_call = ToolCall(name="f", arguments="")
    assert (tool_call.arguments, tool_call.arguments_error) == ({}, None)


# -- Conversation -----------------------------------------------------------------------------

CHAT = [
    {"role": "system", "content": "You book tables."},
    {"role": "user", "content": "Table for 4?"},
    {"role": "assistant", "content": None, "tool_calls": [call("c1", "check_availability")]},
    {"role": "tool", "tool_call_id": "c1", "content": "free"},
    {"role": "assistant", "content": "Available at 19:30."},
    {"role": "user", "content": "Book it."},
    {"role": "assistant", "content": None, "tool_calls": [call("c2", "create_reservation")]},
    {"role": "tool", "tool_call_id": "c2", "content": "done"},
    {"role": "assistant", "content": "Booked."},
    {"role": "user", "content": "Thanks"},
]


def test_from_messages_splits_at_user_messages() -> None:
    chat = Conversation.from_messages(CHAT, id="conv-1")
    assert chat.id == "conv-1"
    assert [t.input for t in chat.turns] == ["Table for 4?", "Book it.", "Thanks"]
    assert [t.text for t in chat.turns] == ["Available at 19:30.", "Booked.", ""]
    assert [t.called_tools for t in chat.turns] == [
        ["check_availability"],
        ["create_reservation"],
        [],
    ]
    assert chat.tool_calls[1][0] == 1


def test_the_system_prompt_is_kept_with_the_first_turn() -> None:
    chat = Conversation.from_messages(CHAT)
    assert [m.role for m in chat.turns[0].messages][:2] == ["system", "user"]
    assert all(m.role != "system" for t in chat.turns[1:] for m in t.messages)


def test_messages_and_turns_cannot_both_be_given() -> None:
    with pytest.raises(ValidationError, match="either 'turns' or 'messages'"):
        Conversation.model_validate({"messages": CHAT, "turns": []})


def test_models_are_frozen_and_picklable() -> None:
    chat = Conversation.from_messages(CHAT)
    with pytest.raises(ValidationError):
        chat.turns[0].text = "changed"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(chat)) == chat


# -- coercions --------------------------------------------------------------------------------


def test_as_turn_coercions() -> None:
    turn = Turn(text="x")
    assert as_turn(turn) is turn
    assert as_turn("hello") == Turn(text="hello")
    assert as_turn(Conversation(turns=[turn])) is turn
    data = {"status": "ok", "n": 1}
    coerced = as_turn(data)
    assert coerced.data == data
    assert json.loads(coerced.text) == data


def test_a_conversation_of_several_turns_is_not_a_turn() -> None:
    chat = Conversation.from_messages(CHAT)
    with pytest.raises(TypeError) as info:
        as_turn(chat)
    message = str(info.value)
    for selector in ("OnLastTurn", "OnTurn", "OnEveryTurn", "OnAnyTurn"):
        assert selector in message
    assert "3 turns" in message


def test_a_turn_check_on_a_long_conversation_raises_naming_the_selectors() -> None:
    with pytest.raises(TypeError, match="OnLastTurn"):
        Contains("booked").check(Conversation.from_messages(CHAT))


def test_as_turn_takes_every_json_value_and_rejects_other_types() -> None:
    assert as_turn(3).text == "3"
    assert as_turn(None).text == "null"
    assert as_turn(True).data is True
    with pytest.raises(TypeError, match="cannot check a set"):
        as_turn({1, 2})


def test_as_conversation_coercions() -> None:
    chat = Conversation(turns=[Turn(text="a")])
    assert as_conversation(chat) is chat
    assert as_conversation("hi").turns == (Turn(text="hi"),)
    assert as_conversation([Turn(text="a"), Turn(text="b")]).turns[1].text == "b"


def test_as_json_coercions() -> None:
    assert as_json({"a": 1}) == {"a": 1}
    assert as_json('{"a": 1}') == {"a": 1}
    assert as_json(Turn(text="[1, 2]")) == [1, 2]
    assert as_json(Turn(text="not json", data={"b": 2})) == {"b": 2}
    assert as_json(Conversation(turns=[Turn(text="1"), Turn(text='{"c": 3}')])) == {"c": 3}


@pytest.mark.parametrize("subject", ["not json", Turn(text="nope"), Conversation()])
def test_as_json_raises_when_there_is_no_json(subject: object) -> None:
    with pytest.raises(NotJSONError):
        as_json(subject)


def test_a_copy_with_new_fields_forgets_what_was_derived_from_the_old_ones() -> None:
    from chatassert.promptkit import ToolsCalled

    turn = Turn(text="Hello", tool_calls=[ToolCall(name="a")])
    assert Contains("hello").check(turn).passed  # caches the lowered text
    assert ToolsCalled(["a"]).check(turn).passed  # caches the called tools
    copy = turn.model_copy(update={"text": "Bye", "tool_calls": ()})
    assert not Contains("hello").check(copy).passed
    assert not ToolsCalled(["a"]).check(copy).passed
    chat = Conversation(turns=[turn])
    assert len(chat.tool_calls) == 1
    assert chat.model_copy(update={"turns": ()}).tool_calls == []


def test_a_repeated_call_id_pairs_its_results_in_order() -> None:
    turn = Turn(
        messages=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [call("x", "a"), call("x", "b")]},
            {"role": "tool", "tool_call_id": "x", "content": "ra"},
            {"role": "tool", "tool_call_id": "x", "content": "rb"},
        ]
    )
    assert [r.name for r in turn.tool_results] == ["a", "b"]
    assert [(c.name, r.content if r else None) for c, r in turn.call_results] == [
        ("a", "ra"),
        ("b", "rb"),
    ]


def paired(
    calls: list[tuple[str, str | None]], results: list[tuple[str, str | None]]
) -> list[tuple[str, str | None]]:
    """The `call_results` of a turn of these (name, id) calls and (content, call id) results."""
    turn = Turn(
        tool_calls=[ToolCall(name=name, id=ident) for name, ident in calls],
        tool_results=[ToolResult(call_id=ident, content=text) for text, ident in results],
    )
    return [(c.name, r.content if r else None) for c, r in turn.call_results]


@pytest.mark.parametrize(
    ("calls", "results", "pairs"),
    [
        (  # fewer results than calls of a repeated id: the id-less result goes past them
            [("a", "x"), ("b", "x"), ("c", None)],
            [("ra", "x"), ("rc", None)],
            [("a", "ra"), ("b", None), ("c", "rc")],
        ),
        (  # a call whose id a later result names is not free for an earlier id-less one
            [("a", "x"), ("b", None)],
            [("rb", None), ("ra", "x")],
            [("a", "ra"), ("b", "rb")],
        ),
        (  # id-less results take the free calls in call order, whatever their own ids
            [("a", "y"), ("b", "x"), ("c", None)],
            [("ra", None), ("rb", "x"), ("rc", None)],
            [("a", "ra"), ("b", "rb"), ("c", "rc")],
        ),
        (  # an id no call has pairs with nothing, not with a call by position
            [("a", None)],
            [("rz", "z")],
            [("a", None)],
        ),
        (  # more results than calls of an id: the rest, and an id-less one, pair with nothing
            [("a", "x")],
            [("r1", "x"), ("r2", "x"), ("r3", None)],
            [("a", "r1")],
        ),
        (  # an id that no result names leaves its calls free for id-less results, in order
            [("a", "x"), ("b", "x")],
            [("r1", None), ("r2", None)],
            [("a", "r1"), ("b", "r2")],
        ),
    ],
    ids=[
        "repeated id used up",
        "named later",
        "free calls in order",
        "unknown id",
        "left over",
        "unnamed repeated id",
    ],
)
def test_results_pair_with_calls_by_id_then_in_order(
    calls: list[tuple[str, str | None]],
    results: list[tuple[str, str | None]],
    pairs: list[tuple[str, str | None]],
) -> None:
    """SEMANTICS G20, as `Turn.call_results` documents it."""
    assert paired(calls, results) == pairs


def result_names_of(
    calls: list[tuple[str, str | None]], results: list[tuple[str, str | None, str | None]]
) -> list[str | None]:
    """The result names a turn derives from chat messages of these (name, id) calls and
    (content, call id, declared name) results."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call(i, n) for n, i in calls]},
    ]
    for text, ident, name in results:
        message: dict[str, Any] = {"role": "tool", "content": text}
        if ident is not None:
            message["tool_call_id"] = ident
        if name is not None:
            message["name"] = name
        messages.append(message)
    return [r.name for r in Turn(messages=messages).tool_results]


@pytest.mark.parametrize(
    ("calls", "results", "names"),
    [
        (  # the id-less result pairs with b: a's id is named by a later result
            [("a", "x"), ("b", None)],
            [("rb", None, None), ("ra", "x", None)],
            ["b", "a"],
        ),
        (  # more results than calls of a repeated id: the extra one pairs with no call
            [("a", "x"), ("b", "x")],
            [("r1", "x", None), ("r2", "x", None), ("r3", "x", None)],
            ["a", "b", None],
        ),
        (  # the id-less result goes past the calls of an id its results used up
            [("a", "x"), ("b", "x"), ("c", None)],
            [("ra", "x", None), ("rc", None, None)],
            ["a", "c"],
        ),
        (  # an id no call has pairs with nothing, not with the call at the result's position
            [("a", None)],
            [("rz", "z", None)],
            [None],
        ),
        (  # a result that pairs with no call keeps the name it declares
            [("a", "x")],
            [("ra", "x", None), ("rq", "q", "search")],
            ["a", "search"],
        ),
        (  # a declared name is the log's word, kept
            [("a", "x")],
            [("ra", "x", "lookup")],
            ["lookup"],
        ),
    ],
    ids=[
        "named later",
        "repeated id, extra result",
        "repeated id used up",
        "unknown id",
        "unpaired keeps its name",
        "declared name kept",
    ],
)
def test_a_result_is_named_after_the_call_it_pairs_with(
    calls: list[tuple[str, str | None]],
    results: list[tuple[str, str | None, str | None]],
    names: list[str | None],
) -> None:
    """SEMANTICS G20: a result names the tool of the call `call_results` pairs it with."""
    assert result_names_of(calls, results) == names


def test_the_terse_turn_helper_names_results_by_the_same_pairing() -> None:
    from chatassert.testing import turn

    built = turn(
        "done",
        calls=[ToolCall(name="a", id="x"), ToolCall(name="b")],
        results=[ToolResult(content="rb"), ToolResult(call_id="x", content="ra")],
    )
    assert [(r.content, r.name) for r in built.tool_results] == [("rb", "b"), ("ra", "a")]
    assert [(c.name, r.content if r else None) for c, r in built.call_results] == [
        ("a", "ra"),
        ("b", "rb"),
    ]


_IDS = st.sampled_from([None, "x", "y", "z"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_IDS, max_size=5),
    st.lists(st.tuples(_IDS, st.sampled_from([None, "own"])), max_size=6),
)
def test_every_result_name_agrees_with_call_results(
    call_ids: list[str | None], results: list[tuple[str | None, str | None]]
) -> None:
    """A result names its own tool, else the call it pairs with, else none: never another's."""
    calls = [(f"tool{k}", ident) for k, ident in enumerate(call_ids)]
    names = result_names_of(calls, [(f"r{k}", i, n) for k, (i, n) in enumerate(results)])
    turn = Turn(
        tool_calls=[ToolCall(name=n, id=i) for n, i in calls],
        tool_results=[ToolResult(content=f"r{k}", call_id=i) for k, (i, _) in enumerate(results)],
    )
    owner = {r.content: c.name for c, r in turn.call_results if r is not None}
    assert len(owner) == sum(r is not None for _, r in turn.call_results)  # each result once
    assert names == [n if n is not None else owner.get(f"r{k}") for k, (_, n) in enumerate(results)]


def g20_pairing(call_ids: list[str | None], result_ids: list[str | None]) -> list[int | None]:
    """SEMANTICS G20 read literally, result by result: the reference `pair_results` must match."""
    out: list[int | None] = [None] * len(call_ids)
    named = {i for i in result_ids if i is not None}
    for k, ident in enumerate(result_ids):
        free = (
            j
            for j, c in enumerate(call_ids)
            if out[j] is None and (c == ident if ident is not None else c not in named)
        )
        j = next(free, None)
        if j is not None:
            out[j] = k
    return out


@settings(max_examples=500, deadline=None)
@given(st.lists(_IDS, max_size=6), st.lists(_IDS, max_size=7))
def test_pair_results_is_the_rule_of_g20(
    call_ids: list[str | None], result_ids: list[str | None]
) -> None:
    assert pair_results(call_ids, result_ids) == g20_pairing(call_ids, result_ids)


_JSON_TEXTS = st.one_of(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=6,
    ).map(json.dumps),
    st.text(alphabet='{}[]":,. 0123456789abenlrstu\ufeff\n\\', max_size=12),
    # what the decoder and json could tell apart: numbers past a double's or int64's range,
    # NaN, escaped lone surrogates, repeated keys, deep nesting
    st.text(alphabet="0123456789eE.+-", min_size=1, max_size=30),
    st.sampled_from(
        [
            "1e400",
            "-1e400",
            "NaN",
            "-Infinity",
            "18446744073709551616",
            "-9223372036854775809",
            "1" * 4301,
            '"\\ud800"',
            '"\\udc00x"',
            '{"a": 1, "a": 2}',
            "[" * 2000 + "]" * 2000,
            "-0",
            "-0.0",
            "5e-324",
            "0.1000000000000000055511151231257827",
        ]
    ),
    st.text(max_size=8).map(lambda t: json.dumps(t, ensure_ascii=True)),
)


@settings(max_examples=300, deadline=None)
@given(
    _JSON_TEXTS,
    st.sampled_from(["", " ", "\n", "\r\n", " \t\n", "x", "\n\x0b", "\u00a0", "\n{}"]),
    st.sampled_from(["", " ", "\ufeff"]),
)
def test_loads_json_reads_what_json_loads_reads(text: str, after: str, before: str) -> None:
    text = before + text + after

    def outcome(load: Any) -> tuple[str, Any]:
        try:
            value = load(text)
        except (ValueError, RecursionError) as exc:
            return type(exc).__name__, str(exc)
        # NaN compares unequal to itself, its text does not; the type tells 1 from 1.0
        return "value", repr(value)

    expected = outcome(json.loads)
    assert outcome(loads_json) == expected
    assert outcome(_scanned) == expected  # the decoder of a process's first texts
    assert outcome(_DECODED) == expected  # the decoder of the rest
