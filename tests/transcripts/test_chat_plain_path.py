"""The OpenAI chat adapter's one-pass reading of plain transcripts (`plain_turns`) builds the
same conversation as its general reading (`messages` + `conversation`), and hands every
transcript it does not fully understand to the general reading."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from chatassert._models import Conversation
from chatassert.transcripts import parse_line
from chatassert.transcripts._build import conversation, make_conversation
from chatassert.transcripts._openai_chat import messages, plain_turns

_TEXTS = st.one_of(st.none(), st.sampled_from(["", "Hi", "Your order is confirmed.", "ok"]))
_IDS = st.one_of(st.none(), st.sampled_from(["c1", "c2", "c3"]), st.integers(0, 3))


def _call() -> st.SearchStrategy[dict[str, Any]]:
    function = st.fixed_dictionaries(
        {"name": st.sampled_from(["lookup", "refund"] * 10 + ["transfer_to_billing"])},
        optional={"arguments": st.sampled_from(['{"topic": "order"}', "{oops", "", "[1]"])},
    )
    return st.fixed_dictionaries(
        {"function": function}, optional={"id": _IDS, "type": st.just("function")}
    )


_MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(
            ["system", "developer"] + ["user", "assistant", "tool"] * 10 + ["function", "critic"]
        )
    },
    optional={  # mostly plain messages; now and then one the plain path leaves alone
        "content": st.one_of(*[_TEXTS] * 8, st.just([{"type": "text", "text": "part"}])),
        "tool_calls": st.one_of(st.lists(_call(), max_size=2), st.none()),
        "tool_call_id": _IDS,
        "name": st.one_of(st.none(), st.sampled_from(["lookup", "refund"])),
        "is_error": st.sampled_from([True, False, None]),
        "refusal": st.sampled_from([None] * 8 + ["I can't help with that."]),
        "annotations": st.just([]),
    },
)


def _general(raw: list[Any]) -> Conversation:
    return conversation(messages(raw), id="x", metadata={})


def _dump(c: Conversation) -> list[dict[str, Any]]:
    return [t.model_dump() for t in c.turns]


@settings(max_examples=400, deadline=None)
@given(st.lists(_MESSAGE, max_size=8))
def test_the_plain_path_builds_what_the_general_path_builds(raw: list[dict[str, Any]]) -> None:
    turns = plain_turns(raw)
    if turns is None:
        return  # read by the general path, which the adapter tests cover
    fast = make_conversation(turns, id="x", metadata={})
    general = _general(raw)
    assert fast == general
    assert _dump(fast) == _dump(general)  # turn by turn, every derived field


def test_plain_logs_take_the_plain_path() -> None:
    raw = [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": "Where is my order?"},
        {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        {"role": "assistant", "content": "It ships today."},
        {"role": "user", "content": "Thanks"},
    ]
    turns = plain_turns(raw)
    assert turns is not None
    assert [t.input for t in turns] == ["Where is my order?", "Thanks"]
    assert turns[0].tool_results[0].name == "lookup"
    assert make_conversation(turns) == conversation(messages(raw))


def test_what_the_plain_path_leaves_to_the_general_path() -> None:
    base = {"role": "assistant", "content": "ok"}
    for extra in (
        {"content": [{"type": "text", "text": "part"}]},  # content parts
        {"audio": {"data": "UklGRg=="}},
        {"function_call": {"name": "lookup", "arguments": "{}"}},
        {"metadata": {"agent": "billing"}},
        {"content": None, "refusal": "I can't."},
        {"role": "function"},
        {"role": {"not": "a role"}},
        {"tool_calls": [{"function": {"name": "transfer_to_billing"}}]},
        {"tool_calls": [{"function": {"arguments": "{}"}}]},  # no name
        {"tool_calls": "lookup"},
    ):
        assert plain_turns([{"role": "user", "content": "Hi"}, {**base, **extra}]) is None, extra
    assert plain_turns([{"role": "user", "content": "Hi"}, "not a message"]) is None


def test_a_malformed_message_is_still_reported_by_the_general_path() -> None:
    record = parse_line('{"messages": [{"role": "user", "content": "Hi"}, {"content": "x"}]}')
    assert record.error == "messages[1] has no 'role'"
