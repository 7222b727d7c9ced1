"""The contract every registered assertion type keeps.

For each registered kind, `CASES` holds an example spec, a subject it passes and a subject it
fails. Adding a type means adding one line to `CASES`; a registered kind without a line fails
`test_every_registered_kind_has_a_case` (and its own contract test) loudly.

Judged kinds are built with a `FakeJudge` passed through `from_spec(spec, judge=...)`: a passing
judge for the good subject and a failing one for the bad subject.
"""

from __future__ import annotations

import asyncio
import json
import pickle
from dataclasses import dataclass
from typing import Any

import pytest

from chatassert import (
    Assertion,
    Conversation,
    GuardrailEvent,
    Media,
    Result,
    Status,
    ToolCall,
    ToolResult,
    Turn,
    WorkflowState,
    WorkflowTransition,
    from_spec,
)
from chatassert.specs import registered
from chatassert.testing import FakeJudge


@dataclass(frozen=True)
class Case:
    """An example spec of one kind, a subject it passes, and a subject it fails."""

    spec: dict[str, Any]
    good: object
    bad: object


GOOD = Turn(
    input="A table for 4 on Saturday, please.",
    text="Your table is booked for Saturday, confirmation #AB12CD.",
    tool_calls=[
        ToolCall(name="check_availability", arguments={"date": "2024-02-17"}, id="c1"),
        ToolCall(name="create_reservation", arguments={"party_size": 4}, id="c2"),
    ],
)
BAD = Turn(
    input="A table for 4 on Saturday, please.",
    text="Sorry, no table is available on Saturday.",
    tool_calls=[ToolCall(name="check_availability", arguments={"date": "2024-02-17"}, id="c1")],
)
HELLO = Turn(input="Hi", text="Hello! How can I help?")
GOOD_CHAT = Conversation(turns=[HELLO, GOOD])
BAD_CHAT = Conversation(turns=[HELLO, BAD])

# trajectories: a reservation tool's result, confirmed or failed; an agent stuck in a loop
CONFIRMED = Turn(
    text="Booked.",
    tool_calls=[ToolCall(name="create_reservation", id="r1")],
    tool_results=[ToolResult(call_id="r1", content="Reservation AB12CD confirmed")],
)
DECLINED = Turn(
    text="Sorry.",
    tool_calls=[ToolCall(name="create_reservation", id="r1")],
    tool_results=[ToolResult(call_id="r1", content="Error: no table available")],
)
LOOPING = Turn(
    text="Still checking.",
    tool_calls=[ToolCall(name="check_availability", arguments={"date": "2024-02-17"})] * 3,
)

BOOKED = {"type": "contains", "value": "booked"}
SORRY = {"type": "contains", "value": "sorry"}

# promptkit: a turn that delegated to an agent, tripped a guardrail and closed its workflow
AGENT = "a2a__research_agent__search_papers"
CLOSED = WorkflowState(
    current="closed",
    transitions=[WorkflowTransition.model_validate({"from": "intake", "to": "closed"})],
    complete=True,
)
DELEGATED = Turn(
    text="Found: Quantum Computing Fundamentals",
    tool_calls=[ToolCall(name=AGENT, arguments={"query": "quantum"}, id="a1")],
    tool_results=[ToolResult(call_id="a1", content="Quantum Computing Fundamentals (2021)")],
    guardrails=[GuardrailEvent(name="BannedWordsValidator")],
    workflow=CLOSED,
)
DIRECT = Turn(text="2 + 2 = 4", workflow=WorkflowState(current="intake"))
DELEGATED_CHAT = Conversation(turns=[HELLO, DELEGATED], workflow=CLOSED)
DIRECT_CHAT = Conversation(turns=[HELLO, DIRECT], workflow=DIRECT.workflow)
PK = {"tool_name": "create_reservation"}
# promptkit: a structured reply, and one in prose
AS_JSON = Turn(input="Who is it?", text='{"name": "Ann", "age": 30, "tags": ["vip"]}')
AS_PROSE = Turn(input="Who is it?", text="It is Ann, aged 30.")

# promptkit media: a response with a PNG, a WAV and an MP4, and one with smaller, shorter others
SHOWN = Turn(
    text="Here they are.",
    media=[
        Media(kind="image", mime_type="image/png", width=1024, height=768),
        Media(kind="audio", mime_type="audio/wav", duration_seconds=12),
        Media(kind="video", mime_type="video/mp4", width=1920, height=1080, duration_seconds=30),
    ],
)
SKIMPED = Turn(
    text="Here they are.",
    media=[
        Media(kind="image", mime_type="image/gif", width=64, height=64),
        Media(kind="audio", mime_type="audio/mpeg", duration_seconds=2),
        Media(kind="video", mime_type="video/mp4", width=640, height=480, duration_seconds=3),
    ],
)

# expect: a note-search response that meets the expectations, and one that breaks them all
HIT = {
    "file": "journal/a.md",
    "relevance": 0.9,
    "type": "note",
    "metadata": {"tags": ["work", "security"], "created": "2026-01-12T09:30:00Z"},
}
SEARCH = {
    "status": "success",
    "message": "Search done",
    "summary": "2 security notes",
    "results": [HIT, {**HIT, "relevance": 0.8}],
    "pagination": {"total": 2, "offset": 0},
    "performance": {"search_duration_ms": 84},
    "history_results": [{"operation": "delete"}],
    "sensitive_dirs_skipped": ["people/", "documents/"],
}
MISS = {
    "file": "people/bob.md",
    "relevance": 1.2,
    "type": "person",
    "metadata": {"tags": ["draft"], "created": "1999-02-05T10:00:00Z"},
}
OTHER = {"file": "work/x.md", "relevance": 0.2, "type": "note", "metadata": {"tags": ["work"]}}
BROKEN = {
    "status": "error",
    "message": "Failed",
    "summary": "nothing",
    "results": [OTHER, MISS],
    "pagination": {"offset": 5},
    "performance": {"search_duration_ms": 9000},
    "history_results": [{"operation": "create"}],
    "sensitive_dirs_skipped": [],
}
FLAGGED = {"results": [{"file": "people/bob.md", "sensitive": True}]}
UNFLAGGED = {"results": [{"file": "people/bob.md", "sensitive": False}]}
RESULTS = "results[*].relevance"

# flat: a turn handed off to the billing agent (the SDK's handoff call and its output), and a
# turn the log says the triage agent answered
HANDED_OFF = Turn(
    text="Billing here: the refund is on its way.",
    tool_calls=[ToolCall(name="transfer_to_billing_agent", id="h1")],
    tool_results=[ToolResult(call_id="h1", content='{"assistant": "Billing Agent"}')],
)
KEPT = Turn(text="Triage here.", agent="Triage")

CASES: dict[str, Case] = {
    # flat dialect
    "contains": Case(BOOKED, GOOD, BAD),
    "not_contains": Case({"type": "not_contains", "value": "sorry"}, GOOD, BAD),
    "contains_any": Case({"type": "contains_any", "value": ["booked", "reserved"]}, GOOD, BAD),
    "contains_all": Case({"type": "contains_all", "value": ["table", "booked"]}, GOOD, BAD),
    "equals": Case({"type": "equals", "value": GOOD.text}, GOOD, BAD),
    "matches": Case({"type": "matches", "value": "#[A-Z0-9]{6}"}, GOOD, BAD),
    "contains_function_call": Case(
        {"type": "contains_function_call", "value": "create_reservation",
         "arguments": {"party_size": "4"}}, GOOD, BAD),
    "llm_rubric": Case({"type": "llm_rubric", "value": "Confirms the booking"}, GOOD, BAD),
    "active_agent": Case({"type": "active_agent", "agent": "billing_agent"}, HANDED_OFF, KEPT),
    "repeat": Case({"type": "repeat", "n": 3, "assertion": {"type": "llm_rubric",
                    "value": "Confirms the booking"}}, GOOD, BAD),
    "ensemble": Case({"type": "ensemble", "judges": ["first", "second", "third"],
                      "assertion": {"type": "llm_rubric", "value": "Confirms the booking"}},
                     GOOD, BAD),
    # combinators
    "all_of": Case({"type": "all_of", "assertions": [BOOKED, {"type": "not", "assertion": SORRY}]},
                   GOOD, BAD),
    "any_of": Case({"type": "any_of", "assertions": [BOOKED, {"type": "contains",
                                                              "value": "reserved"}]}, GOOD, BAD),
    "not": Case({"type": "not", "assertion": SORRY}, GOOD, BAD),
    "when": Case({"type": "when", "if": {"type": "contains", "value": "table"}, "then": BOOKED},
                 GOOD, BAD),
    "at_least": Case({"type": "at_least", "n": 2, "assertions": [
        BOOKED, {"type": "contains", "value": "saturday"}, {"type": "matches", "value": "#\\w+"}]},
        GOOD, BAD),
    # turn selectors
    "on_turn": Case({"type": "on_turn", "index": 1, "assertion": BOOKED}, GOOD_CHAT, BAD_CHAT),
    "on_last_turn": Case({"type": "on_last_turn", "assertion": BOOKED}, GOOD_CHAT, BAD_CHAT),
    "on_every_turn": Case({"type": "on_every_turn", "assertion": {"type": "not_contains",
                                                                  "value": "sorry"}},
                          GOOD_CHAT, BAD_CHAT),
    "on_any_turn": Case({"type": "on_any_turn", "assertion": BOOKED}, GOOD_CHAT, BAD_CHAT),
    # trajectories
    "tool_sequence": Case({"type": "tool_sequence", "steps": [
        "check_availability",
        {"tool": "create_reservation", "arguments": {"party_size": {"$range": [1, 8]}}}]},
        GOOD, BAD),
    "tool_call_count": Case({"type": "tool_call_count", "tool": "create_reservation", "min": 1},
                            GOOD, BAD),
    "max_tool_calls": Case({"type": "max_tool_calls", "max": 2}, GOOD, LOOPING),
    "no_repeated_calls": Case({"type": "no_repeated_calls"}, GOOD, LOOPING),
    "steps_before_answer": Case({"type": "steps_before_answer", "max": 2}, GOOD, LOOPING),
    "tool_result_contains": Case({"type": "tool_result_contains", "tool": "create_reservation",
                                  "value": "confirmed"}, CONFIRMED, DECLINED),
    "tool_result_matches": Case({"type": "tool_result_matches", "tool": "create_reservation",
                                 "pattern": "[A-Z0-9]{6} confirmed"}, CONFIRMED, DECLINED),
    "no_tool_errors": Case({"type": "no_tool_errors"}, CONFIRMED, DECLINED),
    # tool policies over time
    "tool_before": Case({"type": "tool_before", "first": "check_availability",
                         "then": "create_reservation"}, GOOD, Turn(tool_calls=list(
                             reversed(GOOD.tool_calls)))),
    "tool_never_after": Case({"type": "tool_never_after", "tool": "check_availability",
                              "after": "create_reservation"}, GOOD, Turn(tool_calls=[
                                  *GOOD.tool_calls, GOOD.tool_calls[0]])),
    "tool_only_after_result": Case({"type": "tool_only_after_result", "tool": "notify",
                                    "result_of": "create_reservation"},
                                   CONFIRMED.model_copy(update={"tool_calls": [
                                       *CONFIRMED.tool_calls, ToolCall(name="notify")]}),
                                   DECLINED.model_copy(update={"tool_calls": [
                                       *DECLINED.tool_calls, ToolCall(name="notify")]})),
    "only_tools": Case({"type": "only_tools", "allowed": ["check_availability",
                                                          "create_reservation"]},
                       GOOD, Turn(tool_calls=[ToolCall(name="cancel_reservation")])),
    "max_consecutive_calls": Case({"type": "max_consecutive_calls", "tool": "check_availability",
                                   "max": 2}, GOOD, LOOPING),
    "no_tool_loops": Case({"type": "no_tool_loops", "window": 3}, GOOD, LOOPING),
    # claims checked against evidence
    "grounded_in_tool_results": Case({"type": "grounded_in_tool_results"},
                                     Turn(text="Booked for 4, code #AB12CD.", tool_results=[
                                         ToolResult(content='{"code": "AB12CD", "party": 4}')]),
                                     Turn(text="Booked for 5, code #AB12CD.", tool_results=[
                                         ToolResult(content='{"code": "AB12CD", "party": 4}')])),
    # run metadata
    "latency_at_most": Case({"type": "latency_at_most", "ms": 1000},
                            Turn(text="Hi", metadata={"latency_ms": 800}),
                            Turn(text="Hi", metadata={"latency_ms": 1200})),
    "cost_at_most": Case({"type": "cost_at_most", "usd": 0.01},
                         Turn(text="Hi", metadata={"cost": 0.004}),
                         Turn(text="Hi", metadata={"cost": 0.02})),
    "tokens_at_most": Case({"type": "tokens_at_most", "output": 100, "total": 500},
                           Turn(text="Hi", metadata={"input_tokens": 300, "output_tokens": 50}),
                           Turn(text="Hi", metadata={"input_tokens": 300, "output_tokens": 250})),
    "model_is": Case({"type": "model_is", "model": "gpt-4o-mini"},
                     Turn(text="Hi", metadata={"model": "gpt-4o-mini-2024-07-18"}),
                     Turn(text="Hi", metadata={"model": "gpt-4o"})),
    # promptkit, turn level
    "content_includes": Case({"type": "content_includes", "patterns": ["booked"]}, GOOD, BAD),
    "content_matches": Case({"type": "content_matches", "pattern": "#[A-Z0-9]{6}"}, GOOD, BAD),
    "tools_called": Case({"type": "tools_called", "tools": ["create_reservation"]}, GOOD, BAD),
    "tools_not_called": Case({"type": "tools_not_called", "tools": ["create_reservation"]},
                             BAD, GOOD),
    "tool_calls_with_args": Case({"type": "tool_calls_with_args", **PK,
                                  "expected_args": {"party_size": "4"}}, GOOD, BAD),
    "agent_invoked": Case({"type": "agent_invoked", "agents": [AGENT]}, DELEGATED, DIRECT),
    "agent_not_invoked": Case({"type": "agent_not_invoked", "agents": [AGENT]}, DIRECT, DELEGATED),
    "agent_response_contains": Case({"type": "agent_response_contains", "agent": AGENT,
                                     "contains": "Quantum"}, DELEGATED, DIRECT),
    "guardrail_triggered": Case({"type": "guardrail_triggered", "guardrail": "banned_words"},
                                DELEGATED, DIRECT),
    "state_is": Case({"type": "state_is", "state": "closed"}, DELEGATED, DIRECT),
    "transitioned_to": Case({"type": "transitioned_to", "state": "closed"}, DELEGATED, DIRECT),
    "workflow_complete": Case({"type": "workflow_complete"}, DELEGATED, DIRECT),
    "llm_judge": Case({"type": "llm_judge", "criteria": "Confirms the booking"}, GOOD, BAD),
    "image_format": Case({"type": "image_format", "formats": ["png", "jpeg"]}, SHOWN, SKIMPED),
    "image_dimensions": Case({"type": "image_dimensions", "min_width": 512}, SHOWN, SKIMPED),
    "audio_format": Case({"type": "audio_format", "formats": ["wav"]}, SHOWN, SKIMPED),
    "audio_duration": Case({"type": "audio_duration", "min_seconds": 5, "max_seconds": 60},
                           SHOWN, SKIMPED),
    "video_duration": Case({"type": "video_duration", "min_seconds": 10}, SHOWN, SKIMPED),
    "video_resolution": Case({"type": "video_resolution", "presets": ["1080p", "4k"]},
                             SHOWN, SKIMPED),
    "regex": Case({"type": "regex", "pattern": "(?i)sorry", "expect_match": False}, GOOD, BAD),
    "content_excludes": Case({"type": "content_excludes", "patterns": ["sorry"]}, GOOD, BAD),
    "min_length": Case({"type": "min_length", "min": 45}, GOOD, BAD),
    "max_length": Case({"type": "max_length", "max": 50}, BAD, GOOD),
    "is_valid_json": Case({"type": "is_valid_json"}, AS_JSON, AS_PROSE),
    "json_schema": Case({"type": "json_schema", "schema": {"type": "object",
                         "required": ["name"]}}, AS_JSON, AS_PROSE),
    "json_path": Case({"type": "json_path", "expression": "tags", "contains": ["vip"]},
                      AS_JSON, Turn(text='{"tags": []}')),
    # promptkit, conversation level
    "conversation_content_includes": Case({"type": "conversation_content_includes",
                                           "patterns": ["booked"]}, GOOD_CHAT, BAD_CHAT),
    "conversation_content_includes_any": Case({"type": "conversation_content_includes_any",
                                               "patterns": ["booked", "reserved"]},
                                              GOOD_CHAT, BAD_CHAT),
    "conversation_content_not_includes": Case({"type": "conversation_content_not_includes",
                                               "patterns": ["sorry"]}, GOOD_CHAT, BAD_CHAT),
    "conversation_content_matches": Case({"type": "conversation_content_matches",
                                          "pattern": "#[A-Z0-9]{6}"}, GOOD_CHAT, BAD_CHAT),
    "conversation_tools_called": Case({"type": "conversation_tools_called",
                                       "tool_names": ["create_reservation"]}, GOOD_CHAT, BAD_CHAT),
    "conversation_tools_not_called": Case({"type": "conversation_tools_not_called",
                                           "tool_names": ["create_reservation"]},
                                          BAD_CHAT, GOOD_CHAT),
    "conversation_tools_not_called_with_args": Case(
        {"type": "conversation_tools_not_called_with_args", **PK,
         "forbidden_args": {"party_size": 4}}, BAD_CHAT, GOOD_CHAT),
    "conversation_tool_calls_with_args": Case({"type": "conversation_tool_calls_with_args", **PK,
                                               "required_args": {"party_size": 4}},
                                              GOOD_CHAT, BAD_CHAT),
    "conversation_agent_invoked": Case({"type": "conversation_agent_invoked",
                                        "agent_names": [AGENT]}, DELEGATED_CHAT, DIRECT_CHAT),
    "conversation_agent_not_invoked": Case({"type": "conversation_agent_not_invoked",
                                            "agent_names": [AGENT]}, DIRECT_CHAT, DELEGATED_CHAT),
    "conversation_state_is": Case({"type": "conversation_state_is", "state": "closed"},
                                  DELEGATED_CHAT, DIRECT_CHAT),
    "conversation_transitioned_to": Case({"type": "conversation_transitioned_to",
                                          "state": "closed"}, DELEGATED_CHAT, DIRECT_CHAT),
    "conversation_workflow_complete": Case({"type": "conversation_workflow_complete"},
                                           DELEGATED_CHAT, DIRECT_CHAT),
    "llm_judge_conversation": Case({"type": "llm_judge_conversation",
                                    "criteria": "Confirms the booking"}, GOOD_CHAT, BAD_CHAT),
    # expect dialect
    "expect_status": Case({"type": "expect_status", "value": "success"}, SEARCH, BROKEN),
    "expect_error_code": Case({"type": "expect_error_code", "value": "NO_FILTERS"},
                              {"error_code": "NO_FILTERS"}, {"error": "BAD_DATE"}),
    "expect_contains": Case({"type": "expect_contains", "value": "security"}, SEARCH, BROKEN),
    "expect_message_contains": Case({"type": "expect_message_contains", "value": "done"},
                                    SEARCH, BROKEN),
    "expect_summary_contains": Case({"type": "expect_summary_contains", "value": "security"},
                                    SEARCH, BROKEN),
    "expect_results_min": Case({"type": "expect_results_min", "value": 1}, SEARCH, {"results": []}),
    "expect_results_max": Case({"type": "expect_results_max", "value": 2}, SEARCH,
                               {"results": [HIT] * 3}),
    "expect_results_count": Case({"type": "expect_results_count", "value": 2}, SEARCH, FLAGGED),
    "expect_has_fields": Case({"type": "expect_has_fields",
                               "value": ["results", "pagination.total"]}, SEARCH, BROKEN),
    "expect_field_equals": Case({"type": "expect_field_equals", "value": {"pagination.offset": 0}},
                                SEARCH, BROKEN),
    "expect_field_contains": Case({"type": "expect_field_contains", "path": "summary",
                                   "text": "security"}, SEARCH, BROKEN),
    "expect_all_match": Case({"type": "expect_all_match", "path": "results[*].type",
                              "value": "note"}, SEARCH, BROKEN),
    "expect_all_match_one_of": Case({"type": "expect_all_match_one_of", "path": "results[*].type",
                                     "values": ["note", "task"]}, SEARCH, BROKEN),
    "expect_all_match_pattern": Case({"type": "expect_all_match_pattern", "path": "results[*].file",
                                      "regex": "^journal/"}, SEARCH, BROKEN),
    "expect_none_match_pattern": Case({"type": "expect_none_match_pattern",
                                       "path": "results[*].file",
                                       "regex": "^(people/|documents/)"}, SEARCH, BROKEN),
    "expect_all_have_tags": Case({"type": "expect_all_have_tags", "value": ["work"]}, SEARCH,
                                 BROKEN),
    "expect_none_have_tags": Case({"type": "expect_none_have_tags", "value": "draft"}, SEARCH,
                                  BROKEN),
    "expect_each_has_any_tag": Case({"type": "expect_each_has_any_tag", "value": ["work", "x"]},
                                    SEARCH, BROKEN),
    "expect_all_dates_between": Case({"type": "expect_all_dates_between",
                                      "path": "results[*].metadata.created",
                                      "start": "2026-01-01", "end": "2026-01-31"}, SEARCH, BROKEN),
    "expect_dates_within_days": Case({"type": "expect_dates_within_days",
                                      "path": "results[*].metadata.created", "days": 3650},
                                     SEARCH, BROKEN),
    "expect_all_dates_in_year": Case({"type": "expect_all_dates_in_year",
                                      "path": "results[*].metadata.created", "year": 2026},
                                     SEARCH, BROKEN),
    "expect_all_in_range": Case({"type": "expect_all_in_range", "path": RESULTS, "min": 0,
                                 "max": 1}, SEARCH, BROKEN),
    "expect_range_check": Case({"type": "expect_range_check",
                                "path": "performance.search_duration_ms", "max": 5000},
                               SEARCH, BROKEN),
    "expect_sorted_desc": Case({"type": "expect_sorted_desc", "path": RESULTS}, SEARCH, BROKEN),
    "expect_array_contains": Case({"type": "expect_array_contains",
                                   "path": "sensitive_dirs_skipped", "values": ["people/"]},
                                  SEARCH, BROKEN),
    "expect_results_schema": Case({"type": "expect_results_schema", "value": {
        "file": "string", "relevance": {"type": "number", "min": 0, "max": 1}}}, SEARCH, BROKEN),
    "expect_one_of": Case({"type": "expect_one_of", "assertions": [
        {"type": "expect_status", "value": "partial"},
        {"type": "expect_contains", "value": "journal"}]}, SEARCH, BROKEN),
    "expect_if_results": Case({"type": "expect_if_results", "assertion": {
        "type": "expect_all_have_tags", "value": "work"}}, SEARCH, BROKEN),
    "expect_if_has_history": Case({"type": "expect_if_has_history", "assertion": {
        "type": "expect_all_match", "path": "history_results[*].operation", "value": "delete"}},
        SEARCH, BROKEN),
    "expect_if_sensitive_results": Case({"type": "expect_if_sensitive_results",
                                         "has_field": "sensitive", "value": True},
                                        FLAGGED, UNFLAGGED),
    "expect_no_overlap": Case({"type": "expect_no_overlap", "path": "results[*].file",
                               "values": ["journal/b.md"]}, SEARCH, {"results": [
                                   {"file": "journal/c.md"}, {"file": "journal/b.md"}]}),
    "expect_agent_used_model": Case({"type": "expect_agent_used_model", "value": "haiku"},
                                    Turn(data=SEARCH, metadata={"model": "claude-3-5-haiku"}),
                                    Turn(data=SEARCH, metadata={"model": "claude-sonnet-4-5"})),
}  # fmt: skip

KINDS = sorted(CASES)


def case_of(kind: str) -> Case:
    if kind not in registered():
        pytest.fail(f"CASES has an entry for {kind!r}, which is not a registered kind")
    case = CASES[kind]
    assert case.spec["type"] == kind, f"the example spec of {kind!r} has another type"
    return case


def build(case: Case, *, passing: bool) -> Assertion:
    judge = FakeJudge.passing() if passing else FakeJudge.failing("does not meet it")
    judges = dict.fromkeys(("first", "second", "third"), judge)  # the ensemble's members
    return from_spec(case.spec, judge=judge, judges=judges)


def test_every_registered_kind_has_a_case() -> None:
    missing = sorted(set(registered()) - set(CASES))
    assert not missing, (
        f"registered kinds without a contract case: {missing}; add one line each to CASES "
        "in tests/test_contract.py"
    )


@pytest.mark.parametrize("kind", sorted(registered()))
def test_registered_kind_has_a_case(kind: str) -> None:
    if kind not in CASES:
        pytest.fail(
            f"registered kind {kind!r} has no contract case: add one line to CASES in "
            f"tests/test_contract.py: {kind!r}: Case(<spec>, <good subject>, <bad subject>)"
        )


@pytest.mark.parametrize("kind", KINDS)
def test_passes_the_good_subject(kind: str) -> None:
    case = case_of(kind)
    result = build(case, passing=True).check(case.good)
    assert result.status is Status.PASSED, result.render(verbose=True)
    assert result.name == kind
    json.dumps(result.to_dict())


@pytest.mark.parametrize("kind", KINDS)
def test_fails_the_bad_subject_with_a_reason(kind: str) -> None:
    case = case_of(kind)
    result = build(case, passing=False).check(case.bad)
    assert result.status is Status.FAILED, result.render(verbose=True)
    assert result.name == kind
    assert result.reason.strip()
    assert result.render().startswith("FAIL")
    json.dumps(result.to_dict())


@pytest.mark.parametrize("kind", KINDS)
def test_acheck_agrees_with_check(kind: str) -> None:
    case = case_of(kind)
    for subject, passing in ((case.good, True), (case.bad, False)):
        sync = build(case, passing=passing).check(subject)
        assert asyncio.run(build(case, passing=passing).acheck(subject)) == sync


@pytest.mark.parametrize("kind", KINDS)
def test_round_trips_its_spec(kind: str) -> None:
    case = case_of(kind)
    assertion = build(case, passing=True)
    spec = assertion.as_spec()
    assert spec["type"] == kind
    json.dumps(spec)
    rebuilt = from_spec(spec, judge=FakeJudge.passing())
    assert rebuilt == assertion
    assert type(rebuilt) is registered()[kind]
    labelled = from_spec({**case.spec, "message": "labelled"}, judge=FakeJudge.passing())
    assert from_spec(labelled.as_spec()) == labelled
    assert labelled.check(case.good).message == "labelled"


@pytest.mark.parametrize("kind", KINDS)
def test_has_a_docstring(kind: str) -> None:
    case_of(kind)
    cls = registered()[kind]
    doc = (cls.__doc__ or "").strip()
    assert doc, f"{cls.__name__} has no docstring"
    summary = doc.splitlines()[0]
    assert summary.endswith("."), f"{cls.__name__}'s summary line is not a sentence: {summary!r}"
    assert cls.describe.__doc__, f"{cls.__name__}.describe has no docstring"


@pytest.mark.parametrize("kind", KINDS)
def test_is_picklable_and_immutable(kind: str) -> None:
    case = case_of(kind)
    assertion = from_spec(case.spec)  # without a judge: a judge is configuration, not state
    again = pickle.loads(pickle.dumps(assertion))
    assert again == assertion
    assert hash(again) == hash(assertion)
    with pytest.raises(AttributeError, match="immutable"):
        assertion.message = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("kind", KINDS)
def test_describes_itself(kind: str) -> None:
    case = case_of(kind)
    assertion = from_spec(case.spec)
    assert assertion.describe().strip()
    assert type(assertion).__name__ in repr(assertion)


def test_equal_assertions_hash_equally_and_distinguish_json_types() -> None:
    from chatassert import ContainsFunctionCall

    one, true = ContainsFunctionCall("f", {"x": 1}), ContainsFunctionCall("f", {"x": True})
    assert one != true  # they check differently: 1 and true are different JSON values
    assert one == ContainsFunctionCall("f", {"x": 1})
    assert hash(one) == hash(ContainsFunctionCall("f", {"x": 1}))
    assert hash(ContainsFunctionCall("f", {1: "a", "b": 2})) is not None  # keys of mixed types


def test_specs_of_tuples_dates_and_empty_mappings_round_trip() -> None:
    import datetime as dt

    from chatassert import ContainsFunctionCall, from_spec
    from chatassert.promptkit import ToolCallsWithArgs

    for assertion in (
        ToolCallsWithArgs("f", expected_args={"x": (1, 2)}),
        ToolCallsWithArgs("f", expected_args={"when": dt.date(2026, 1, 2)}),
        ContainsFunctionCall("f", arguments={}),
    ):
        spec = assertion.as_spec()
        json.dumps(spec)
        assert from_spec(spec) == assertion


class _Unslotted(Assertion):
    """A user's assertion written without `__slots__` (its attributes live in `__dict__`)."""

    kind = "test_unslotted"

    def __init__(self, limit: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("limit", limit)

    def _check(self, subject: object) -> Result:
        short = len(str(subject)) <= self.limit  # type: ignore[attr-defined]
        return Result(Status.PASSED if short else Status.FAILED, self.kind)


def test_a_user_assertion_without_slots_keeps_its_attributes_when_pickled() -> None:
    restored = pickle.loads(pickle.dumps(_Unslotted(3)))
    assert restored.limit == 3  # type: ignore[attr-defined]
    assert restored.check("abc").status is Status.PASSED
    assert isinstance(restored.check("abcd"), Result)


def test_class_names_with_acronyms_are_type_names() -> None:
    from chatassert import LLMRubric, from_spec
    from chatassert._params import normalise_type

    assert normalise_type("LLMRubric") == "llm_rubric"
    assert normalise_type("LLMJudge") == "llm_judge"
    assert type(from_spec({"type": "LLMRubric", "value": "polite"})) is LLMRubric
