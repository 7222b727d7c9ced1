"""Google ADK eval sets as ADK itself writes them (tests/fixtures/adk, by `generate.py` with the
google-adk pinned there): each read into the exact conversations ADK recorded, in each of the
three forms ADK writes, and written back by `convert --to adk-evalset` as ADK's models take it.

google-adk is not installed here (too heavy for the test extra): the fixtures were validated
with its models when they were written, and `generate.py --convert-with` validates what
`convert` writes (see the fixtures' README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import Contains, ContainsFunctionCall, Conversation, Turn
from chatassert._cli import main
from chatassert.transcripts import Record, parse_line, parse_record, read_records
from chatassert.transcripts._adk import write_case

FIXTURES = Path(__file__).parents[1] / "fixtures" / "adk"
FORMS = (".evalset.json", ".full.evalset.json", ".camel.evalset.json")
"""How ADK writes a set: `LocalEvalSetsManager`'s, `model_dump_json()`'s, the camelCase one."""

PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAACAAAFAAFXstS4AAAAAElFTkSuQmCC"
)
SESSION = {"app_name": "chatassert_fixtures", "user_id": "test_user"}


def _records(name: str) -> list[Record]:
    return list(read_records(FIXTURES / name))


def _cases(name: str = "inferred.evalset.json") -> dict[str, Conversation]:
    """The conversations of a fixture by eval id (a scenario case has none)."""
    return {r.part: r.conversation for r in _records(name) if r.conversation is not None}


def _timing(index: int) -> dict[str, Any]:
    """The durations `generate.py` pins on invocation `index` of a played case."""
    return {
        "latency_ms": 1500.0 + 1000 * index,
        "model_latency_ms": 1000.0 + 1000 * index,
        "tool_latency_ms": 250.0,
    }


def _steps(turn: Turn) -> list[tuple[str, str | None, list[str | None], str | None]]:
    return [
        (m.role, m.content, [c.id for c in m.tool_calls], m.tool_call_id) for m in turn.messages
    ]


@pytest.mark.parametrize("name", ["inferred", "written"])
def test_every_form_adk_writes_reads_as_the_same_conversations(name: str) -> None:
    first, *others = (
        [(r.where.rsplit("#", 1)[1], r.conversation, r.error) for r in _records(name + form)]
        for form in FORMS
    )
    assert len(first) == {"inferred": 6, "written": 2}[name]
    for other in others:
        assert other == first


def test_a_played_case_reads_as_adk_recorded_it() -> None:
    conv = _cases()["weather"]
    assert conv.id == "weather"
    assert conv.metadata == {
        "session_input": {**SESSION, "state": {"unit": "C"}},
        "final_session_state": {"unit": "C"},
        "rubrics": [
            {
                "rubric_id": "r1",
                "rubric_content": {"text_property": "The answer gives the temperature."},
                "type": "FINAL_RESPONSE_QUALITY",
            }
        ],
        "creation_timestamp": 1767225600.0,
        "eval_set_id": "inferred",
    }
    first, second = conv.turns
    assert (first.input, first.text, first.agent) == (
        "Weather in Oslo?",
        "It is 4°C and overcast in Oslo.",
        "weather_agent",
    )
    weather = '{"city": "Oslo", "temp_c": 4, "sky": "overcast"}'
    assert _steps(first) == [
        ("user", "Weather in Oslo?", [], None),
        ("assistant", None, ["fc-1"], None),
        ("tool", weather, [], "fc-1"),
        ("assistant", "It is 4°C and overcast in Oslo.", [], None),
    ]
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_weather", {"city": "Oslo"})]
    (result,) = first.tool_results
    assert (result.name, result.is_error, result.data) == (
        "get_weather",
        False,
        {"city": "Oslo", "temp_c": 4, "sky": "overcast"},
    )
    agents = first.metadata.pop("agents")
    assert agents["weather_agent"]["tools"] == ["get_weather"]
    assert agents["weather_agent"]["instructions"].startswith("Answer questions about the weather.")
    assert first.metadata == {
        "input_tokens": 280,  # the two model calls' usage, summed
        "output_tokens": 26,
        "total_tokens": 306,
        "model": "scripted-gemini",
        "invocation_id": "inv-1",
        "creation_timestamp": 1767225600.0,
        **_timing(0),
        "agent_source": "conversation[0] (the author of its last intermediate response)",
    }
    assert (second.input, second.text, second.tool_calls) == ("Thanks!", "You're welcome!", ())
    assert {k: second.metadata[k] for k in _timing(1)} == _timing(1)
    assert second.metadata["invocation_id"] == "inv-2"


def test_a_handoff_to_a_sub_agent_makes_it_the_turns_agent() -> None:
    (turn,) = _cases()["support_handoff"].turns
    assert (turn.input, turn.text, turn.agent) == (
        "Refund order 42",
        "Refunds are down; I will retry later.",
        "billing",
    )
    assert [(c.name, c.arguments, c.id) for c in turn.tool_calls] == [
        ("transfer_to_agent", {"agent_name": "billing"}, "fc-1"),
        ("refund", {"order": 42}, "fc-2"),
    ]
    assert [(r.content, r.is_error) for r in turn.tool_results] == [
        ('{"result": null}', False),
        ("the payment service is down", True),
    ]
    assert [m.content for m in turn.messages if m.role == "assistant"] == [
        None,
        "Refunding order 42.",
        "Refunds are down; I will retry later.",
    ]
    assert {name: a["tools"] for name, a in turn.metadata["agents"].items()} == {
        "concierge": ["transfer_to_agent"],
        "billing": ["transfer_to_agent", "refund"],
    }
    assert _cases()["support_handoff"].metadata["final_session_state"] == {"refunded": 42}


def test_a_confirmed_tool_call_reads_with_the_users_answer_as_a_result() -> None:
    (turn,) = _cases()["confirm_delete"].turns
    # ADK records the resumed invocation with the user's answer as its user_content
    assert (turn.input, turn.text, turn.agent) == (None, "Deleted notes.txt.", "files_agent")
    assert [(c.name, c.id) for c in turn.tool_calls] == [
        ("delete_file", "fc-1"),
        ("adk_request_confirmation", "adk-call-1"),
    ]
    assert turn.tool_calls[1].arguments["originalFunctionCall"] == {
        "id": "fc-1",
        "args": {"path": "notes.txt"},
        "name": "delete_file",
    }
    asked = "This tool call requires confirmation, please approve or reject."
    assert _steps(turn) == [
        ("user", None, [], None),
        ("assistant", None, ["fc-1"], None),
        ("assistant", None, ["adk-call-1"], None),
        ("tool", asked, [], "fc-1"),
        ("tool", "deleted notes.txt", [], "fc-1"),
        ("tool", '{"confirmed": true}', [], "adk-call-1"),  # after the events: ADK keeps no place
        ("assistant", "Deleted notes.txt.", [], None),
    ]
    answer = turn.tool_results[-1]
    assert (answer.name, answer.data, answer.is_error) == (
        "adk_request_confirmation",
        {"confirmed": True},
        False,
    )
    assert [(c.name, r.content if r else None) for c, r in turn.call_results] == [
        ("delete_file", asked),
        ("adk_request_confirmation", '{"confirmed": true}'),
    ]


def test_a_long_running_tool_reads_with_its_pending_and_its_final_response() -> None:
    (turn,) = _cases()["long_running_approval"].turns
    assert (turn.input, turn.text) == (None, "Approved: 250 EUR will be reimbursed.")
    assert [(r.call_id, r.data) for r in turn.tool_results] == [
        ("fc-1", {"status": "pending", "ticket": "T-7", "amount": 250.0, "purpose": "train"}),
        ("fc-1", {"status": "approved", "ticket": "T-7"}),
    ]
    assert [m.role for m in turn.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert turn.messages[3].content == "Your request T-7 is waiting for a manager."


def test_a_final_response_that_is_also_the_last_event_is_read_once() -> None:
    (turn,) = _cases()["pending_approval"].turns
    said = "I have asked your manager to approve it."
    assert turn.text == said
    assert _steps(turn) == [
        ("user", "Reimburse my 900 EUR flight", [], None),
        ("assistant", said, ["fc-1"], None),
    ]
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("start_approval", {"amount": 900.0})
    ]
    assert turn.tool_results == ()


def test_an_image_in_the_final_response_is_the_turns_media() -> None:
    (turn,) = _cases()["chart"].turns
    assert turn.text == "Here is the chart."
    ((kind, mime, data, url, role),) = [
        (m.kind, m.mime_type, m.data, m.url, m.role) for m in turn.media
    ]
    assert (kind, mime, data, url, role) == ("image", "image/png", PIXEL, None, "assistant")
    assert turn.messages[-1].media == turn.media
    assert turn.metadata["output_tokens"] == 300


def test_a_case_written_with_adks_models_reads_its_media_rubrics_and_app_details() -> None:
    conv = _cases("written.evalset.json")["trip"]
    (turn,) = conv.turns
    assert (turn.input, turn.text, turn.agent) == (
        "Where is this? Find me a flight there.",
        "That is Lisbon; TP 1 leaves at 9:00.",
        "trip_agent",
    )
    ((kind, mime, data, role),) = [(m.kind, m.mime_type, m.data, m.role) for m in turn.media]
    assert (kind, mime, data, role) == ("image", "image/png", "iVBORw0K", "user")
    assert turn.messages[0].media == turn.media
    assert [m.content for m in turn.messages] == [
        "Where is this? Find me a flight there.",
        None,
        '{"flights": ["TP 1"]}',
        "Searching flights.",
        "That is Lisbon; TP 1 leaves at 9:00.",
    ]
    assert turn.metadata["rubrics"] == [
        {"rubric_id": "r-inv", "rubric_content": {"text_property": "Names the city."}}
    ]
    assert turn.metadata["agents"] == {
        "trip_agent": {"instructions": "Plan trips.", "tools": ["find_flights"]}
    }
    assert conv.metadata == {
        "session_input": SESSION,
        "creation_timestamp": 1767225600.0,
        "eval_set_id": "written",
    }


@pytest.mark.parametrize("form", FORMS)
def test_a_conversation_scenario_is_reported_as_holding_no_turns(form: str) -> None:
    trip, scenario = _records("written" + form)
    assert trip.conversation is not None
    assert scenario.conversation is None
    assert scenario.where.endswith(f"written{form}:1#simulated_booking")
    assert scenario.error == (
        'the eval case "simulated_booking" has no recorded turns: it has a '
        'conversation_scenario (a plan for a simulated user, starting "I need to book a '
        'flight."), which `adk eval` plays; the eval set records no conversation for it '
        "(check the conversation that run records instead)"
    )


def test_checking_a_scenario_case_is_never_a_silent_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "test_cases:\n  - name: simulated_booking\n    turns:\n      - user_input: hi\n"
        "        assertions:\n          - type: contains\n            value: flight\n",
        encoding="utf-8",
    )
    log = tmp_path / "scenario.evalset.json"
    doc = json.loads((FIXTURES / "written.evalset.json").read_text(encoding="utf-8"))
    doc["eval_cases"] = doc["eval_cases"][1:]
    log.write_text(json.dumps(doc), encoding="utf-8")
    code = main(["check", str(suite), str(log)])
    err = capsys.readouterr().err
    assert code != 0
    assert "simulated_booking: skipped: the eval case" in err
    assert "has no recorded turns" in err


def test_an_empty_conversation_is_reported_as_holding_no_turns() -> None:
    doc = {"eval_set_id": "s", "eval_cases": [{"eval_id": "empty", "conversation": []}]}
    (record,) = parse_line(json.dumps(doc), "s.evalset.json", 1).each()
    assert record.error == (
        "eval_cases[0].conversation is empty: the eval case records no turns to check"
    )


def test_text_checks_read_the_final_response() -> None:
    cases = _cases()
    assert Contains("Oslo").check(cases["weather"].turns[0]).passed
    assert ContainsFunctionCall("delete_file").check(cases["confirm_delete"].turns[0]).passed


# -- writing back --------------------------------------------------------------------------------

_INVOCATION_FIELDS = {
    "invocation_id", "user_content", "final_response", "intermediate_data", "creation_timestamp",
    "duration", "model_duration", "tool_duration", "rubrics", "app_details",
}  # fmt: skip
"""The fields of ADK's `Invocation` (`extra="forbid"`: no other key validates)."""


@pytest.mark.parametrize("name", ["inferred.evalset.json", "written.evalset.json"])
def test_a_fixture_written_back_reads_as_equal_conversations(name: str, tmp_path: Path) -> None:
    first = list(_cases(name).values())
    cases = [write_case(c, str(c.id), c.metadata["eval_set_id"]) for c in first]
    for case in cases:
        for invocation in case["conversation"]:
            assert set(invocation) <= _INVOCATION_FIELDS
    path = tmp_path / "again.evalset.json"
    eval_set_id = first[0].metadata["eval_set_id"]
    doc = {"eval_set_id": eval_set_id, "eval_cases": cases}
    path.write_text(json.dumps(doc), encoding="utf-8")
    second = [r.conversation for r in read_records(path)]
    assert second == first


def _said(asked: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": asked}, {"role": "assistant", "content": answer}]


def test_metadata_an_invocation_has_no_field_for_is_kept_beside_the_case() -> None:
    conv = Conversation.model_validate(
        {
            "id": "c",
            "metadata": {"case": "refund", "session_input": {"user": "u1"}, "rubrics": "be kind"},
            "turns": [
                {"messages": _said("Hi", "Hello"), "metadata": {"span_id": "a1", "cost": 0.5}},
                {"messages": _said("Bye", "Bye"), "metadata": {"latency_ms": 20}},
            ],
        }
    )
    case = write_case(conv, "c", None)
    for invocation in case["conversation"]:
        assert set(invocation) <= _INVOCATION_FIELDS
    assert case["invocation_metadata"] == [{"span_id": "a1", "cost": 0.5}, {}]
    assert case["conversation"][1]["duration"] == 0.02
    # what does not fit ADK's SessionInput and Rubric stays in the case's own metadata
    assert "session_input" not in case
    assert "rubrics" not in case
    assert case["metadata"] == {
        "case": "refund",
        "session_input": {"user": "u1"},
        "rubrics": "be kind",
    }
    again = parse_record(case)
    assert again == conv


def test_media_is_written_where_it_was_and_read_back() -> None:
    conv = _cases("written.evalset.json")["trip"]
    case = write_case(conv, "trip", "written")
    (invocation,) = case["conversation"]
    assert invocation["user_content"]["parts"][1] == {
        "inline_data": {"mime_type": "image/png", "data": "iVBORw0K"}
    }
    assert parse_record(case).turns == conv.turns
