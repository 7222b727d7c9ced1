"""Google ADK eval sets (docs/offline.md): reading each eval case as a conversation, and writing
conversations back as eval cases.

The fixtures are written from ADK's public definitions: `EvalSet` (`eval_set.py`), `EvalCase`,
`Invocation`, `IntermediateData`, `InvocationEvents`, `SessionInput` (`eval_case.py`), genai's
`Content` / `Part` / `FunctionCall` / `FunctionResponse`, and the older `.test.json` form that
`local_eval_sets_manager.py` converts (`query`, `expected_tool_use`, `reference`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import Contains, Conversation
from chatassert._errors import TranscriptError
from chatassert.transcripts import FORMATS, parse_line, parse_record, read_records
from chatassert.transcripts._adk import write_case


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def _steps_invocation() -> dict[str, Any]:
    return {
        "invocation_id": "inv-1",
        "user_content": _text("user", "Weather in Oslo?"),
        "final_response": _text("model", "It is 4°C in Oslo."),
        "intermediate_data": {
            "tool_uses": [{"id": "fc-1", "name": "get_weather", "args": {"city": "Oslo"}}],
            "tool_responses": [
                {"id": "fc-1", "name": "get_weather", "response": {"result": "4°C"}}
            ],
            "intermediate_responses": [["weather_agent", [{"text": "Looking it up."}]]],
        },
        "creation_timestamp": 1740823200.0,
        "duration": 1.25,
    }


def _event(author: str, role: str, *parts: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"author": author, "content": {"role": role, "parts": list(parts)}, **extra}


def _events_invocation() -> dict[str, Any]:
    call1 = {"id": "c1", "name": "refund", "args": {"order": 42}}
    call2 = {"id": "c2", "name": "refund", "args": {"order": 42, "retry": True}}
    return {
        "user_content": _text("user", "Refund order 42"),
        "final_response": _text("model", "Refunds are down."),
        "intermediate_data": {
            "invocation_events": [
                _event(
                    "billing", "model", {"function_call": call1},
                    usage_metadata={"prompt_token_count": 30, "candidates_token_count": 5,
                                    "total_token_count": 35},
                    model_version="gemini-2.0-flash",
                ),
                _event("billing", "user", {"function_response": {
                    "id": "c1", "name": "refund", "response": {"error": "service down"}}}),
                _event(
                    "billing", "model", {"text": "Trying once more."}, {"function_call": call2},
                    usage_metadata={"prompt_token_count": 50, "candidates_token_count": 9,
                                    "total_token_count": 59},
                ),
                _event("billing", "user", {"function_response": {
                    "id": "c2", "name": "refund", "response": {"status": "queued", "eta": 3}}}),
            ]
        },
    }  # fmt: skip


def _set(*cases: dict[str, Any]) -> dict[str, Any]:
    return {"eval_set_id": "support", "name": "support", "eval_cases": list(cases)}


def _case(eval_id: str, *invocations: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"eval_id": eval_id, "conversation": list(invocations), **extra}


def _read(tmp_path: Path, doc: Any, name: str = "cases.evalset.json") -> list[Any]:
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return list(read_records(path))


# -- reading ----------------------------------------------------------------------------------


def test_an_invocation_with_intermediate_data_is_one_turn(tmp_path: Path) -> None:
    session = {"app_name": "weather", "user_id": "u1", "state": {"unit": "C"}}
    (record,) = _read(tmp_path, _set(_case("oslo", _steps_invocation(), session_input=session)))
    assert record.where.endswith("cases.evalset.json:1#oslo")
    conv = record.conversation
    assert conv is not None, record.error
    assert conv.id == "oslo"
    assert conv.metadata == {"session_input": session, "eval_set_id": "support"}
    (turn,) = conv.turns
    assert (turn.input, turn.text, turn.agent) == (
        "Weather in Oslo?", "It is 4°C in Oslo.", "weather_agent",
    )  # fmt: skip
    assert [(c.name, c.arguments, c.id) for c in turn.tool_calls] == [
        ("get_weather", {"city": "Oslo"}, "fc-1")
    ]
    (result,) = turn.tool_results
    assert (result.content, result.name, result.call_id, result.is_error, result.data) == (
        "4°C", "get_weather", "fc-1", False, {"result": "4°C"},
    )  # fmt: skip
    assert [(m.role, m.content) for m in turn.messages] == [
        ("user", "Weather in Oslo?"),
        ("assistant", None),
        ("tool", "4°C"),
        ("assistant", "Looking it up."),
        ("assistant", "It is 4°C in Oslo."),
    ]
    assert turn.metadata["invocation_id"] == "inv-1"
    assert turn.metadata["latency_ms"] == 1250.0
    assert turn.metadata["creation_timestamp"] == 1740823200.0


def test_invocation_events_are_read_in_their_order_with_usage_and_model(tmp_path: Path) -> None:
    (record,) = _read(tmp_path, _set(_case("refund", _events_invocation())))
    conv = record.conversation
    assert conv is not None, record.error
    (turn,) = conv.turns
    assert [(m.role, m.content, [c.id for c in m.tool_calls]) for m in turn.messages] == [
        ("user", "Refund order 42", []),
        ("assistant", None, ["c1"]),
        ("tool", "service down", []),
        ("assistant", "Trying once more.", ["c2"]),
        ("tool", '{"status": "queued", "eta": 3}', []),
        ("assistant", "Refunds are down.", []),
    ]
    assert turn.text == "Refunds are down."  # the final response, not the text on the way
    assert [(r.is_error, r.data) for r in turn.tool_results] == [
        (True, {"error": "service down"}),
        (False, {"status": "queued", "eta": 3}),
    ]
    assert turn.agent == "billing"
    assert (turn.metadata["input_tokens"], turn.metadata["output_tokens"]) == (80, 14)
    assert turn.metadata["total_tokens"] == 94
    assert turn.metadata["model"] == "gemini-2.0-flash"


def test_camel_case_keys_read_as_snake_case_ones() -> None:
    invocation = {
        "invocationId": "i1",
        "userContent": _text("user", "Hi"),
        "finalResponse": _text("model", "Hello"),
        "intermediateData": {"toolUses": [{"name": "lookup", "args": {"q": "x"}}],
                             "toolResponses": [{"name": "lookup", "response": {"result": "y"}}]},
    }  # fmt: skip
    doc = {"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [invocation]}]}
    (record,) = parse_line(json.dumps(doc), "s.json", 1).each()
    conv = record.conversation
    assert conv is not None, record.error
    (turn,) = conv.turns
    assert (conv.id, turn.input, turn.text, turn.metadata["invocation_id"]) == (
        "c",
        "Hi",
        "Hello",
        "i1",
    )
    assert [r.content for r in turn.tool_results] == ["y"]


def test_the_agent_is_carried_to_later_turns_until_another_is_named() -> None:
    plain = {"user_content": _text("user", "Thanks"), "final_response": _text("model", "Bye")}
    conv = parse_record(_case("c", _steps_invocation(), plain, _events_invocation()))
    assert [t.agent for t in conv.turns] == ["weather_agent", "weather_agent", "billing"]


def test_text_parts_join_by_line_and_thoughts_are_not_text() -> None:
    final = {"role": "model", "parts": [{"text": "plan", "thought": True}, {"text": "a"},
                                        {"text": "b"}]}  # fmt: skip
    conv = parse_record(_case("c", {"user_content": _text("user", "q"), "final_response": final}))
    assert conv.turns[0].text == "a\nb"


def test_a_single_eval_case_per_line_is_one_conversation(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    lines = [_case("a", _steps_invocation()), _case("b", _events_invocation())]
    path.write_text("\n".join(json.dumps(c) for c in lines) + "\n", encoding="utf-8")
    records = list(read_records(path))
    assert [(r.line, r.part, r.conversation.id if r.conversation else None) for r in records] == [
        (1, None, "a"), (2, None, "b"),
    ]  # fmt: skip


def test_the_older_test_json_list_is_one_case() -> None:
    old = [
        {"query": "What can you do?", "expected_tool_use": [], "reference": "I roll dice."},
        {
            "query": "Roll a 17 sided die",
            "expected_tool_use": [{"tool_name": "roll_die", "tool_input": {"sides": 17}}],
            "expected_intermediate_agent_responses": [{"author": "dice", "text": "Rolling."}],
            "reference": "I rolled 13.",
        },
    ]
    (record,) = parse_line(json.dumps(old), "hello.test.json", 1).each()
    conv = record.conversation
    assert conv is not None, record.error
    assert [(t.input, t.text) for t in conv.turns] == [
        ("What can you do?", "I roll dice."), ("Roll a 17 sided die", "I rolled 13."),
    ]  # fmt: skip
    assert [(c.name, c.arguments) for c in conv.turns[1].tool_calls] == [
        ("roll_die", {"sides": 17})
    ]
    assert conv.turns[1].agent == "dice"


def test_the_older_list_of_named_cases_is_one_conversation_per_case() -> None:
    cases = [
        {"name": "first", "data": [{"query": "a", "reference": "b"}],
         "initial_session": {"app_name": "x", "user_id": "u", "state": {}}},
        {"name": "second", "data": [{"query": "c", "reference": "d"}]},
    ]  # fmt: skip
    records = parse_line(json.dumps(cases), "old.json", 1).each()
    assert [(r.part, r.conversation.id if r.conversation else r.error) for r in records] == [
        ("first", "first"), ("second", "second"),
    ]  # fmt: skip
    first = records[0].conversation
    assert first is not None
    assert first.metadata["session_input"]["app_name"] == "x"


def test_a_broken_case_is_reported_and_the_others_are_read(tmp_path: Path) -> None:
    broken = _steps_invocation()
    broken["intermediate_data"]["tool_uses"][0]["args"] = "city=Oslo"
    scenario = {"eval_id": "sim", "conversation_scenario": {"starting_prompt": "hi"}}
    records = _read(
        tmp_path, _set(_case("good", _steps_invocation()), _case("bad", broken), scenario)
    )
    assert [(r.part, r.ok) for r in records] == [("good", True), ("bad", False), ("sim", False)]
    assert records[1].error == (
        "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args must be an object, "
        'got "city=Oslo"'
    )
    assert records[2].error is not None
    assert "conversation_scenario" in records[2].error


def test_an_eval_set_without_cases_is_reported() -> None:
    record = parse_line(json.dumps(_set()), "empty.json", 1)
    assert (record.ok, record.parts, record.error) == (
        False, (), "the eval set holds no eval cases",
    )  # fmt: skip


def test_a_response_that_is_not_an_object_is_reported() -> None:
    invocation = _steps_invocation()
    invocation["intermediate_data"]["tool_responses"][0]["response"] = "4°C"
    with pytest.raises(TranscriptError, match=r"tool_responses\[0\]\.response must be an object"):
        parse_record(_case("c", invocation))


def test_an_eval_set_is_detected_as_adk_and_by_no_other_format() -> None:
    for record in (_set(_case("a", _steps_invocation())), _case("a", _events_invocation()),
                   [{"query": "q", "reference": "r"}]):  # fmt: skip
        assert [n for n, (detect, _) in FORMATS.items() if detect(record)] == ["adk"]


def test_an_answer_to_a_call_of_an_earlier_invocation_is_read_first() -> None:
    asked = _events_invocation()
    answer = {"function_response": {"id": "c2", "name": "refund", "response": {"status": "done"}}}
    later = {
        "user_content": {"role": "user", "parts": [{"text": "Any news?"}, answer]},
        "final_response": _text("model", "It went through."),
    }
    _, turn = parse_record(_case("c", asked, later)).turns
    assert [(m.role, m.content, m.tool_call_id) for m in turn.messages] == [
        ("user", "Any news?", None),
        ("tool", '{"status": "done"}', "c2"),
        ("assistant", "It went through.", None),
    ]
    assert (turn.input, [r.data for r in turn.tool_results]) == ("Any news?", [{"status": "done"}])


def test_an_audio_only_answer_makes_text_checks_errors_not_failures() -> None:
    audio = {"inline_data": {"mime_type": "audio/pcm;rate=24000", "data": "AAAA"}}
    live = {
        "user_content": _text("user", "Capital of Italy?"),
        "final_response": {"role": "model", "parts": [audio]},
    }
    (turn,) = parse_record(_case("live", live)).turns
    assert (turn.text, [m.kind for m in turn.media]) == ("", ["audio"])
    result = Contains("Rome").check(turn)
    assert result.status.value == "error"
    assert "holds no transcript" in result.reason
    assert "output_audio_transcription" in result.reason
    spoken = {**live, "final_response": {"role": "model", "parts": [{"text": "Rome."}, audio]}}
    (turn,) = parse_record(_case("live", spoken)).turns
    assert (turn.unrecorded, Contains("Rome").check(turn).passed) == ({}, True)


def test_only_image_audio_and_video_parts_are_media() -> None:
    pdf = {"file_data": {"file_uri": "gs://b/r.pdf", "mime_type": "application/pdf"}}
    clip = {"fileData": {"fileUri": "gs://b/c.mp4", "mimeType": "video/mp4"}}
    asked = {"role": "user", "parts": [{"text": "Summarise"}, pdf, clip]}
    (turn,) = parse_record(_case("c", {"user_content": asked})).turns
    assert [(m.kind, m.url, m.mime_type, m.role) for m in turn.media] == [
        ("video", "gs://b/c.mp4", "video/mp4", "user")
    ]


@pytest.mark.parametrize(
    ("invocation", "error"),
    [
        (
            {"user_content": {"parts": [{"text": "q"}, {"inline_data": "aGk="}]}},
            'conversation[0].user_content.parts[1].inline_data must be an object, got "aGk="',
        ),
        (
            {"user_content": {"parts": [{"inline_data": {"mime_type": 7}}]}},
            "conversation[0].user_content.parts[0].inline_data.mime_type must be a MIME "
            "type, got 7",
        ),
        (
            {"user_content": _text("user", "q"), "app_details": {"agent_details": ["a"]}},
            "conversation[0].app_details.agent_details must be an object of agents by name, "
            "got a list",
        ),
        (
            {
                "user_content": _text("user", "q"),
                "app_details": {"agent_details": {"a": {"tool_declarations": [3]}}},
            },
            "conversation[0].app_details.agent_details.a.tool_declarations[0] must be a tool "
            "object, got 3",
        ),
        (
            {"user_content": _text("user", "q"), "rubrics": [{"rubric_id": "r"}, "x"]},
            'conversation[0].rubrics[1] must be a rubric object, got "x"',
        ),
        (
            {"user_content": _text("user", "q"), "model_duration": -1},
            "conversation[0].model_duration must be a duration (a number from 0 to 2**63 - 1), "
            "got -1",
        ),
    ],
)
def test_a_malformed_field_of_adks_newer_shapes_is_reported_with_its_place(
    invocation: dict[str, Any], error: str
) -> None:
    with pytest.raises(TranscriptError) as raised:
        parse_record(_case("c", invocation))
    assert str(raised.value) == error


def test_invocation_metadata_that_is_not_a_list_of_objects_is_reported() -> None:
    case = _case("c", _steps_invocation(), invocation_metadata=[{"span": "a"}, 3])
    with pytest.raises(TranscriptError, match=r"^invocation_metadata\[1\] must be an object"):
        parse_record(case)
    (turn,) = parse_record(
        _case("c", _steps_invocation(), invocation_metadata=[{"span": "a"}])
    ).turns
    assert turn.metadata["span"] == "a"


# -- writing ------------------------------------------------------------------------------------


def _turns_equal(tmp_path: Path, doc: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    first = [r.conversation for r in _read(tmp_path, doc, "a.evalset.json")]
    cases = [write_case(c, c.id, "support") for c in first]
    second = [r.conversation for r in _read(tmp_path, _set(*cases), "b.evalset.json")]
    return first, second


def test_an_eval_set_read_written_and_read_again_gives_equal_conversations(
    tmp_path: Path,
) -> None:
    plain = {"user_content": _text("user", "Thanks"), "final_response": _text("model", "Bye")}
    doc = _set(
        _case("oslo", _steps_invocation(), plain,
              session_input={"app_name": "w", "user_id": "u", "state": {}},
              final_session_state={"done": True}, metadata={"case": "weather"}),
        _case("refund", _events_invocation(), plain, _steps_invocation()),
    )  # fmt: skip
    first, second = _turns_equal(tmp_path, doc)
    assert None not in first
    assert first == second


def test_each_turn_is_written_in_the_form_that_keeps_it() -> None:
    conv = parse_record(_case("c", _steps_invocation(), _events_invocation()))
    steps, events = write_case(conv, "c", None)["conversation"]
    assert set(steps["intermediate_data"]) == {
        "tool_uses",
        "tool_responses",
        "intermediate_responses",
    }
    assert [e["author"] for e in events["intermediate_data"]["invocation_events"]] == [
        "billing"
    ] * 4
    assert events["intermediate_data"]["invocation_events"][-2]["usage_metadata"] == {
        "prompt_token_count": 80, "candidates_token_count": 14, "total_token_count": 94,
    }  # fmt: skip


def test_what_an_eval_set_cannot_hold_is_left_out() -> None:
    conv = Conversation.model_validate({
        "id": "c1",
        "metadata": {"case": "refund"},
        "turns": [{
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Refund 42"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "a", "type": "function",
                     "function": {"name": "lookup", "arguments": '{"order": 42}'}}]},
                {"role": "tool", "tool_call_id": "a", "content": "found"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "b", "type": "function",
                     "function": {"name": "refund", "arguments": '{"order": 42}'}}]},
                {"role": "tool", "tool_call_id": "b", "content": "done"},
                {"role": "assistant", "content": "Refunded."},
            ],
            "guardrails": [{"name": "pii", "triggered": False}],
            "metadata": {"latency_ms": 250},
        }],
    })  # fmt: skip
    case = write_case(conv, "c1", None)
    again = parse_record(case)
    (before,), (after,) = conv.turns, again.turns
    assert (after.input, after.text) == (before.input, before.text)
    assert [(c.name, c.arguments, c.id) for c in after.tool_calls] == [
        (c.name, c.arguments, c.id) for c in before.tool_calls
    ]
    assert [(r.content, r.call_id) for r in after.tool_results] == [("found", "a"), ("done", "b")]
    assert after.metadata["latency_ms"] == 250
    assert again.metadata == {"case": "refund"}
    assert after.guardrails == ()  # not held by an eval set
    assert [m.role for m in after.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert after.agent is None  # an empty author is no agent


def test_a_turn_given_by_its_fields_only_is_written_from_them() -> None:
    conv = Conversation.model_validate({"turns": [{
        "input": "Hi", "text": "Hello", "tool_calls": [{"name": "f", "arguments": {"x": 1}}],
        "tool_results": [{"content": "boom", "is_error": True}],
    }]})  # fmt: skip
    again = parse_record(write_case(conv, "x", None))
    (turn,) = again.turns
    assert (turn.input, turn.text, [c.name for c in turn.tool_calls]) == ("Hi", "Hello", ["f"])
    assert [(r.content, r.is_error) for r in turn.tool_results] == [("boom", True)]


def _written(case: dict[str, Any], kind: str) -> list[Any]:
    """The function calls or responses an eval case holds, in either form of invocation."""
    out = []
    for invocation in case["conversation"]:
        data = invocation.get("intermediate_data", {})
        key = {"function_call": "tool_uses", "function_response": "tool_responses"}[kind]
        out += data.get(key, [])
        for event in data.get("invocation_events", []):
            out += [p[kind] for p in event.get("content", {}).get("parts", []) if kind in p]
    return out


def test_what_the_log_did_not_record_stays_unrecorded_after_writing() -> None:
    from chatassert.transcripts._build import unrecorded_call

    why = "the span records only the response id"
    call = unrecorded_call("capital", "c1", "content capture was off")
    conv = Conversation.model_validate({"id": "c", "turns": [
        {"input": "Capital of Italy?", "unrecorded": {"text": why}},
        {"messages": [
            {"role": "user", "content": "And of France?"},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "Paris"},
            {"role": "assistant", "content": "Paris."},
        ]},
    ]})  # fmt: skip
    case = write_case(conv, "c", None)
    assert case["invocation_unrecorded"] == [
        {"turn": {"text": why}},
        {"arguments": {"0": call.arguments_error}},
    ]
    first, second = parse_record(case).turns
    result = Contains("Rome").check(first)  # an error, never a failure on an empty text
    assert (result.status.value, result.reason) == (
        "error", f"the log did not record the text of this turn: {why}",
    )  # fmt: skip
    assert second.tool_calls[0].arguments_error == call.arguments_error
    assert second.tool_calls[0].arguments_unrecorded


def test_arguments_that_were_not_a_json_object_are_written_with_why_and_their_text() -> None:
    conv = Conversation.model_validate({"id": "c", "turns": [{"messages": [
        {"role": "user", "content": "Refund"},
        {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "refund", "arguments": "42"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "done"},
        {"role": "assistant", "content": "Refunded."},
    ]}]})  # fmt: skip
    (before,) = conv.turns[0].tool_calls
    case = write_case(conv, "c", None)
    assert [c["args"] for c in _written(case, "function_call")] == [{}]
    (after,) = parse_record(case).turns[0].tool_calls
    assert (after.arguments, after.raw_arguments, after.arguments_error) == (
        {}, "42", before.arguments_error,
    )  # fmt: skip
    assert after.arguments_error is not None


def test_an_error_response_without_text_is_an_errored_result() -> None:
    # ADK writes `{"error": str(exc)}`, which is "" for an exception raised without a message
    conv = Conversation.model_validate({"id": "c", "turns": [{"messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [{"name": "weather", "id": "w1"}]},
        {"role": "tool", "tool_call_id": "w1", "content": ""},
        {"role": "assistant", "content": "It failed."},
    ], "tool_results": [{"content": "", "call_id": "w1", "is_error": True}]}]})  # fmt: skip
    case = write_case(conv, "c", None)
    assert [r["response"] for r in _written(case, "function_response")] == [{"error": ""}]
    (result,) = parse_record(case).turns[0].tool_results
    assert (result.content, result.is_error) == ("", True)


def test_a_call_named_empty_is_written_and_read_back() -> None:
    conv = Conversation.model_validate({"id": "c", "turns": [{"messages": [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": "Done.", "tool_calls": [{"name": "", "id": "x"}]},
    ]}]})  # fmt: skip
    again = parse_record(write_case(conv, "c", None))
    assert [(c.name, c.id) for c in again.turns[0].tool_calls] == [("", "x")]


def test_tool_calls_a_turn_gives_beside_its_messages_are_written() -> None:
    turn = {
        "input": "Refund INV-1", "text": "Done.",
        "messages": [{"role": "user", "content": "Refund INV-1"}],
        "tool_calls": [{"name": "refund", "arguments": {"invoice": "INV-1"}, "id": "c1"}],
        "tool_results": [{"content": "ok", "call_id": "c1"}],
    }  # fmt: skip
    conv = Conversation.model_validate({"id": "c", "turns": [turn]})
    (again,) = parse_record(write_case(conv, "c", None)).turns
    assert [(c.name, c.arguments) for c in again.tool_calls] == [("refund", {"invoice": "INV-1"})]
    assert [(r.content, r.call_id) for r in again.tool_results] == [("ok", "c1")]
    assert (again.input, again.text) == ("Refund INV-1", "Done.")


def test_the_agent_no_event_content_shows_is_written_as_the_answers_own_event() -> None:
    # ADK records the final response's own event with its author and no content: the writer
    # writes it whenever no other event names the agent, model or token counts or not
    audio = {"inline_data": {"mime_type": "audio/pcm;rate=24000", "data": "AAAAAA=="}}
    live = {
        "user_content": _text("user", "Capital of Italy?"),
        "final_response": {"role": "model", "parts": [audio]},
        "intermediate_data": {
            "invocation_events": [{"author": "voice_agent", "model_version": ""}]
        },
    }
    read = parse_record(_set(_case("live_audio", live)))
    assert read.turns[0].agent == "voice_agent"
    case = write_case(read, "live_audio", "voice")
    assert case["conversation"][0]["intermediate_data"] == {
        "invocation_events": [{"author": "voice_agent"}]
    }
    (again,) = parse_record(case).turns
    assert (again.agent, [m.kind for m in again.media]) == ("voice_agent", ["audio"])
    # so too a turn given by its fields, whose messages do not show who answered
    conv = Conversation.model_validate(
        {"id": "c", "turns": [{"input": "Plot it", "text": "Here.", "agent": "Analyst"}]}
    )
    (again,) = parse_record(write_case(conv, "c", None)).turns
    assert again.agent == "Analyst"


def test_media_a_turn_gives_beside_its_messages_go_on_the_message_of_their_role() -> None:
    def image(name: str, role: str) -> dict[str, Any]:
        url = f"https://example.com/{name}.png"
        return {"kind": "image", "mime_type": "image/png", "url": url, "role": role}

    media = [image("drawn", "assistant"), image("sketch", "user"), image("chart", "tool")]
    conv = Conversation.model_validate({"id": "c", "turns": [{
        "input": "Draw it", "media": media,
        "tool_calls": [{"name": "draw", "id": "d1"}],
        "tool_results": [{"content": "ok", "call_id": "d1"}],
    }]})  # fmt: skip
    case = write_case(conv, "c", None)
    (invocation,) = case["conversation"]
    assert invocation["user_content"]["parts"][1]["file_data"]["file_uri"].endswith("sketch.png")
    assert invocation["final_response"]["parts"][0]["file_data"]["file_uri"].endswith("drawn.png")
    (again,) = parse_record(case).turns
    assert [(m.role, m.url) for m in again.media] == [
        ("user", "https://example.com/sketch.png"),
        ("tool", "https://example.com/chart.png"),
        ("assistant", "https://example.com/drawn.png"),
    ]
    # beside messages that carry some of them: the others are added, none twice
    given = Conversation.model_validate({"id": "c", "turns": [{
        "messages": [
            {"role": "user", "content": "Draw it", "media": [media[1]]},
            {"role": "assistant", "content": "Here."},
        ],
        "media": media[:2],
    }]})  # fmt: skip
    (again,) = parse_record(write_case(given, "c", None)).turns
    assert [m.url for m in again.media] == [
        "https://example.com/sketch.png", "https://example.com/drawn.png",
    ]  # fmt: skip
    assert [(m.role, m.content, len(m.media)) for m in again.messages] == [
        ("user", "Draw it", 1), ("assistant", "Here.", 1),
    ]  # fmt: skip


# -- the example of docs/offline.md ------------------------------------------------------------

_GUIDE = Path(__file__).parents[2] / "docs" / "offline.md"


def _example(heading: str) -> str:
    text = _GUIDE.read_text(encoding="utf-8")
    section = text[text.index(f"(`{heading}`)") :]
    block = section[section.index("```json\n") + len("```json\n") :]
    return block[: block.index("```")]


def test_the_adk_example_of_the_docs_reads_as_documented(tmp_path: Path) -> None:
    path = tmp_path / "weather.evalset.json"
    path.write_text(_example("adk"), encoding="utf-8")
    (record,) = read_records(path)
    assert record.where.endswith("weather.evalset.json:1#oslo")
    conv = record.conversation
    assert conv is not None, record.error
    (turn,) = conv.turns
    assert (turn.input, turn.text, turn.agent) == (
        "Weather in Oslo?", "It is 4°C in Oslo.", "weather_agent",
    )  # fmt: skip
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("get_weather", {"city": "Oslo"})]
    assert [r.content for r in turn.tool_results] == ["4°C"]
    assert conv.metadata["session_input"]["user_id"] == "u1"
