"""Log adapters set `Turn.agent`: the agent active after each turn, as the log says it.

Each record is one log line in its format's public shape (docs/offline.md, "Agents and
handoffs"). What counts as the log saying which agent is active, in log order, the last one
winning and carried over to later turns until another: an OpenAI Agents SDK handoff call
(`transfer_to_<agent>`, named by its output `{"assistant": ...}`), an Agents SDK run item's
`agent` (a handoff output's `target_agent`), a message's `metadata.agent`. Where the log said
so is kept in the turn's `metadata.agent_source`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatassert._agents import active_agent
from chatassert._errors import TranscriptError
from chatassert.transcripts import parse_line, parse_record


def agents(record: Any, format: str | None = None) -> list[tuple[str | None, str | None]]:
    """Each turn's agent and where the log said it."""
    return [(t.agent, t.metadata.get("agent_source")) for t in parse_record(record, format).turns]


def chat_handoff(call_id: str, agent: str, said: str | None) -> list[dict[str, Any]]:
    """An OpenAI chat handoff: the call, and (when `said` is given) its output naming `said`."""
    call = {"id": call_id, "type": "function", "function": {"name": f"transfer_to_{agent}",
                                                            "arguments": "{}"}}  # fmt: skip
    out: list[dict[str, Any]] = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    if said is not None:
        out.append({"role": "tool", "tool_call_id": call_id,
                    "content": json.dumps({"assistant": said})})  # fmt: skip
    return out


# -- OpenAI chat: handoff calls and message metadata --------------------------------------------


def test_a_handoff_holds_for_its_turn_and_every_later_one_until_the_next() -> None:
    record = {"messages": [
        {"role": "system", "content": "You are the triage agent."},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi! How can I help?"},
        {"role": "user", "content": "I was charged twice"},
        *chat_handoff("c1", "billing_agent", "Billing Agent"),
        {"role": "assistant", "content": "Billing here: let me look."},
        {"role": "user", "content": "It was on May 2"},
        {"role": "assistant", "content": "Found it."},
        {"role": "user", "content": "I also want a refund for my seat"},
        *chat_handoff("c2", "refunds", None),
        {"role": "assistant", "content": "Refunds here."},
    ]}  # fmt: skip
    assert agents(record) == [
        (None, None),  # before any handoff the log does not say
        ("Billing Agent", "handoff call transfer_to_billing_agent in turns[1]"),
        ("Billing Agent", "handoff call transfer_to_billing_agent in turns[1]"),
        ("refunds", "handoff call transfer_to_refunds in turns[3]"),  # no output: its tool name
    ]


def test_a_messages_metadata_agent_names_its_agent_and_later_facts_win() -> None:
    record = {"messages": [
        {"role": "user", "content": "I was charged twice"},
        {"role": "assistant", "content": None, "metadata": {"agent": "triage"},
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "transfer_to_billing", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"assistant": "billing"}'},
        {"role": "assistant", "content": "Billing here.", "metadata": {"agent": "billing"}},
        {"role": "user", "content": "Thanks"},
        {"role": "assistant", "content": "Triage again.", "metadata": {"agent": "triage"}},
    ]}  # fmt: skip
    assert agents(record) == [
        ("billing", "messages[3].metadata.agent"),
        ("triage", "messages[5].metadata.agent"),
    ]


@pytest.mark.parametrize("meta", [{"agent": ""}, {"agent": 7}, {"agent": {"name": "x"}}, "x"])
def test_a_metadata_agent_that_is_not_a_name_is_read_as_absent(meta: object) -> None:
    said = {"role": "assistant", "content": "Hello", "metadata": meta}
    record = {"messages": [{"role": "user", "content": "Hi"}, said]}
    assert agents(record) == [(None, None)]


def test_a_log_without_agents_is_read_as_before() -> None:
    record = {"messages": [{"role": "user", "content": "Hi"},
                           {"role": "assistant", "content": "Hello"}],
              "usage": {"prompt_tokens": 3, "completion_tokens": 1}}  # fmt: skip
    (turn,) = parse_record(record).turns
    assert turn.agent is None
    assert "agent_source" not in turn.metadata


def test_calls_that_repeat_the_history_hand_off_once() -> None:
    first = [{"role": "user", "content": "I was charged twice"}]
    handed = chat_handoff("c1", "billing", "Billing")
    record = {"calls": [
        {"request": {"messages": first},
         "response": {"choices": [{"message": handed[0]}]}},
        {"request": {"messages": [*first, *handed]},
         "response": {"choices": [{"message": {"role": "assistant", "content": "Billing."}}]}},
    ]}  # fmt: skip
    assert agents(record) == [("Billing", "handoff call transfer_to_billing in turns[0]")]


def handoff_call(agent: str, call_id: str | None) -> dict[str, Any]:
    """An assistant message making one handoff call, with `call_id` or with no id."""
    function = {"name": f"transfer_to_{agent}", "arguments": "{}"}
    call: dict[str, Any] = {"type": "function", "function": function}
    if call_id is not None:
        call["id"] = call_id
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def handoff_output(call_id: str | None, said: str) -> dict[str, Any]:
    """A tool message answering a handoff call with `{"assistant": said}`, with or without id."""
    out: dict[str, Any] = {"role": "tool", "content": json.dumps({"assistant": said})}
    if call_id is not None:
        out["tool_call_id"] = call_id
    return out


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(  # a call with no id takes the result with no id
            [handoff_call("billing", None), handoff_output(None, "Billing Agent")],
            ("Billing Agent", "handoff call transfer_to_billing in turns[0]"),
            id="no-ids",
        ),
        pytest.param(  # ... and so does a call whose id no result names
            [handoff_call("billing", "c9"), handoff_output(None, "Billing Agent")],
            ("Billing Agent", "handoff call transfer_to_billing in turns[0]"),
            id="id-no-result-names",
        ),
        pytest.param(  # each call of a repeated id takes its own result, in order
            [
                handoff_call("a", "c1"),
                handoff_output("c1", "Agent A"),
                handoff_call("b", "c1"),
                handoff_output("c1", "Agent B"),
            ],
            ("Agent B", "handoff call transfer_to_b in turns[0]"),
            id="repeated-id",
        ),
        pytest.param(  # a result used up by an earlier call of its id is not a later call's
            [handoff_call("a", "c1"), handoff_call("b", "c1"), handoff_output("c1", "Agent A")],
            ("b", "handoff call transfer_to_b in turns[0]"),
            id="repeated-id-one-result",
        ),
    ],
)
def test_a_handoffs_output_is_the_result_it_pairs_with_as_active_agent_reads_it(
    messages: list[dict[str, Any]], expected: tuple[str, str]
) -> None:
    # SEMANTICS G20: the result a handoff call pairs with (`pair_results`) names the agent, so
    # the agent a reader sets agrees with the one `active_agent` reads from the turn's calls
    record = {"messages": [{"role": "user", "content": "I was charged twice"}, *messages]}
    (turn,) = parse_record(record).turns
    assert (turn.agent, turn.metadata.get("agent_source")) == expected
    read = active_agent(turn.model_copy(update={"agent": None}))
    assert read == (expected[0], expected[1].removesuffix(" in turns[0]"))


# -- OpenAI Responses: raw items and the Agents SDK's run items ---------------------------------


def test_raw_responses_items_hand_off_as_the_sdk_writes_them() -> None:
    # `result.to_input_list()`: the handoff is a function call and its output
    record = {"items": [
        {"role": "user", "content": "My bag is lost"},
        {"type": "function_call", "call_id": "fc1", "name": "transfer_to_baggage_desk",
         "arguments": "{}"},
        {"type": "function_call_output", "call_id": "fc1",
         "output": '{"assistant": "Baggage Desk"}'},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Baggage desk here."}],
         "metadata": {"agent": "Baggage Desk"}},
    ]}  # fmt: skip
    assert agents(record) == [("Baggage Desk", "items[3].metadata.agent")]
    del record["items"][3]["metadata"]
    assert agents(record) == [("Baggage Desk", "handoff call transfer_to_baggage_desk in turns[0]")]


RUN_ITEMS = [
    {"type": "message", "role": "user", "content": "My bag is lost"},
    {"type": "message_output_item", "agent": {"name": "Triage"},
     "raw_item": {"type": "message", "role": "assistant",
                  "content": [{"type": "output_text", "text": "Let me find the right desk."}]}},
    {"type": "handoff_call_item", "agent": {"name": "Triage"},
     "raw_item": {"type": "function_call", "call_id": "h1", "name": "transfer_to_baggage",
                  "arguments": "{}"}},
    {"type": "handoff_output_item", "agent": {"name": "Triage"},
     "source_agent": {"name": "Triage"}, "target_agent": {"name": "Baggage Desk"},
     "raw_item": {"type": "function_call_output", "call_id": "h1",
                  "output": '{"assistant": "Baggage Desk"}'}},
    {"type": "tool_call_item", "agent": {"name": "Baggage Desk"},
     "raw_item": {"type": "function_call", "call_id": "t1", "name": "open_claim",
                  "arguments": '{"tag": "LS1"}'}},
    {"type": "tool_call_output_item", "agent": {"name": "Baggage Desk"}, "output": "BG-1",
     "raw_item": {"type": "function_call_output", "call_id": "t1", "output": "BG-1"}},
    {"type": "reasoning_item", "agent": {"name": "Baggage Desk"},
     "raw_item": {"type": "reasoning", "id": "rs_1", "summary": []}},
    {"type": "message_output_item", "agent": "Baggage Desk",
     "raw_item": {"type": "message", "role": "assistant",
                  "content": [{"type": "output_text", "text": "Claim BG-1 is open."}]}},
]  # fmt: skip


def test_agents_sdk_run_items_are_read_with_the_agents_they_name() -> None:
    conversation = parse_record({"items": RUN_ITEMS})
    (turn,) = conversation.turns
    assert turn.text == "Claim BG-1 is open."
    assert [c.name for c in turn.tool_calls] == ["transfer_to_baggage", "open_claim"]
    assert [(r.name, r.content) for r in turn.tool_results] == [
        ("transfer_to_baggage", '{"assistant": "Baggage Desk"}'),
        ("open_claim", "BG-1"),
    ]
    assert (turn.agent, turn.metadata["agent_source"]) == ("Baggage Desk", "items[7].agent")
    # the handoff output names the agent handed to, even before that agent speaks
    assert agents({"items": RUN_ITEMS[:4]}) == [("Baggage Desk", "items[3].target_agent")]
    # before the handoff, the run item of the first answer names the triage agent
    assert agents({"items": RUN_ITEMS[:2]}) == [("Triage", "items[1].agent")]


def test_a_run_item_without_its_raw_item_is_an_unreadable_line() -> None:
    line = json.dumps({"items": [{"type": "message", "role": "user", "content": "Hi"},
                                 {"type": "message_output_item", "agent": {"name": "A"},
                                  "raw_item": "Hello"}]})  # fmt: skip
    assert parse_line(line).error == "items[1] (message_output_item) has no 'raw_item' object"
    with pytest.raises(TranscriptError, match=r"items\[1\]\.raw_item: 'type' must be a string"):
        parse_record({"items": [{"type": "message", "role": "user", "content": "Hi"},
                                {"type": "tool_call_item", "raw_item": {"type": 3}}]})  # fmt: skip


# -- Anthropic ------------------------------------------------------------------------------------


def test_anthropic_tool_use_hands_off_and_assistant_metadata_names_the_agent() -> None:
    record = {"system": "You route requests.", "messages": [
        {"role": "user", "content": "I was charged twice"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tu1", "name": "transfer_to_billing", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu1", "content": '{"assistant": "Billing"}'}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Billing here."}]},
        {"role": "user", "content": "And my seat?"},
        {"role": "assistant", "content": "Seats here.", "metadata": {"agent": "Seats"}},
    ]}  # fmt: skip
    assert agents(record, "anthropic") == [
        ("Billing", "handoff call transfer_to_billing in turns[0]"),
        ("Seats", "messages[5].metadata.agent"),
    ]


# -- native records -----------------------------------------------------------------------------


def test_a_native_record_gives_the_agent_per_turn() -> None:
    record = {"turns": [{"input": "Hi", "text": "Hello", "agent": "triage"},
                        {"input": "Refund", "text": "Done"}]}  # fmt: skip
    assert agents(record) == [("triage", None), (None, None)]  # a native record is taken as given
    bad = json.dumps({"turns": [{"input": "Hi", "agent": 5}]})
    assert parse_line(bad).error == (
        "not a native conversation: turns[0].agent: Input should be a valid string (got 5)"
    )


def test_the_guides_sample_of_run_items_names_the_agent_handed_to() -> None:
    guide = (Path(__file__).parents[2] / "docs" / "offline.md").read_text(encoding="utf-8")
    section = guide.split("### Agents and handoffs", 1)[1]
    sample = section.split("```json\n", 1)[1].split("```", 1)[0]
    assert agents(json.loads(sample)) == [("Baggage Desk", "items[3].agent")]
