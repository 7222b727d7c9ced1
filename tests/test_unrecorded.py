"""What the log did not record is never checked as if it were empty.

A turn whose text its log left out (`Turn.unrecorded["text"]`: content capture off, a span
that keeps only the response's id) makes every check of the text an `error` with the log's
reason, whichever way the check would have gone on an empty string; a call whose arguments
the log left out (`unrecorded_call`) makes every check of its arguments an error, while checks
of names and order still read it. One rule in the subject model (`Assertion.reads`), so every
reader that marks what it did not record gets the same verdicts.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import (
    Contains,
    Conversation,
    Equals,
    FieldEquals,
    LLMRubric,
    NotContains,
    Status,
    ToolCallCount,
    Turn,
)
from chatassert._cli import main
from chatassert.policies import NoToolLoops
from chatassert.promptkit import ContentExcludes, ConversationContentIncludes, ToolCallsWithArgs
from chatassert.testing import FakeJudge
from chatassert.transcripts import parse_line, parse_record
from chatassert.transcripts._build import Msg, conversation, unrecorded_call

WHY = "message content capture was off (set OTEL_..._CAPTURE_MESSAGE_CONTENT=true)"
SILENT = Turn(unrecorded={"text": WHY})


@pytest.mark.parametrize(
    "check",
    [
        Contains("Rome"),
        NotContains("Rome"),  # would pass on the empty string: a false pass
        Equals("Rome"),
        ContentExcludes(patterns=["Paris"]),
        FieldEquals({"city": "Rome"}),  # a JSON check reads the text as JSON
    ],
    ids=lambda c: c.kind,
)
def test_a_check_of_text_the_log_did_not_record_is_an_error_with_the_reason(check: Any) -> None:
    result = check.check(SILENT)
    assert result.status is Status.ERROR
    assert "the log did not record the text of this turn" in result.reason
    assert WHY in result.reason


def test_the_error_points_at_the_turn_that_lacks_the_text_in_a_conversation() -> None:
    conv = Conversation(turns=[Turn(text="Rome is sunny"), SILENT])
    result = ConversationContentIncludes(patterns=["Rome"]).check(conv)
    assert result.status is Status.ERROR
    assert result.reason == f"the log did not record the text of turns[1]: {WHY}"
    assert result.pointer == "/turns/1/text"
    assert result.details["unrecorded"] == "text"


def test_a_judged_check_of_unrecorded_text_asks_no_judge() -> None:
    judge = FakeJudge.passing()
    result = LLMRubric("Names the capital", judge=judge).check(SILENT)
    assert result.status is Status.ERROR
    assert WHY in result.reason
    assert judge.requests == []


def test_checks_of_what_the_log_did_record_still_give_verdicts() -> None:
    turn = Turn(unrecorded={"text": WHY}, tool_calls=[{"name": "weather", "arguments": {}}])
    assert ToolCallCount("weather", min=1).check(turn).status is Status.PASSED
    assert ToolCallCount("search", min=1).check(turn).status is Status.FAILED


def test_a_spec_message_and_place_are_kept_on_the_error() -> None:
    result = Contains("Rome", message="must name the city").check(SILENT)
    assert result.status is Status.ERROR
    assert result.message == "must name the city"


def test_a_turn_with_text_from_another_message_is_recorded() -> None:
    """Only a turn left with no text is unrecorded: a later message's text is the turn's."""
    history = [
        Msg(role="user", content="Weather in Rome?"),
        Msg(role="assistant", unrecorded="the first call kept no text"),
        Msg(role="assistant", content="Sunny."),
    ]
    (turn,) = conversation(history).turns
    assert turn.text == "Sunny."
    assert turn.unrecorded == {}
    history[2] = Msg(role="assistant", unrecorded="no text kept")
    (turn,) = conversation(history).turns
    assert turn.unrecorded == {"text": "no text kept"}


def test_unrecorded_arguments_make_argument_checks_errors_and_leave_names_checkable() -> None:
    turn = Turn(tool_calls=[unrecorded_call("search", "c1", "capture was off")] * 2)
    args = ToolCallsWithArgs(tool_name="search", expected_args={"q": "Rome"}).check(turn)
    assert args.status is Status.ERROR
    assert "the log did not record the arguments: capture was off" in str(args.details)
    loops = NoToolLoops(window=2, same_args=True).check(turn)
    assert loops.status is Status.ERROR  # two calls whose arguments cannot be compared
    assert loops.reason == (
        "cannot compare the arguments of search: the log did not record the arguments: "
        "capture was off"
    )
    assert ToolCallCount("search", min=2).check(turn).status is Status.PASSED


def test_a_native_line_keeps_what_was_not_recorded() -> None:
    conv = Conversation(turns=[SILENT], id="c1")
    line = json.dumps(conv.model_dump(by_alias=True))
    read = parse_line(line, "log.jsonl", 1).conversation
    assert read == conv
    assert read is not None
    assert read.turns[0].unrecorded == {"text": WHY}


def _response_only_trace() -> dict[str, Any]:
    """An OpenAI Agents SDK trace of its default `OpenAIResponsesModel`: the response spans
    keep only `response_id` and `usage`."""

    def span(sid: str, at: str, data: dict[str, Any]) -> dict[str, Any]:
        return {
            "object": "trace.span",
            "id": sid,
            "trace_id": "trace_1",
            "parent_id": None,
            "started_at": f"2026-01-01T00:00:{at}+00:00",
            "ended_at": f"2026-01-01T00:00:{at}+00:00",
            "span_data": data,
            "error": None,
        }

    usage = {"input_tokens": 12, "output_tokens": 3}
    return {
        "object": "trace",
        "id": "trace_1",
        "workflow_name": "Agent workflow",
        "spans": [
            span("s1", "00.000000", {"type": "agent", "name": "Assistant"}),
            span("s2", "00.100000", {"type": "response", "response_id": "resp_1", "usage": usage}),
            span(
                "s3",
                "00.200000",
                {"type": "function", "name": "capital", "input": None, "output": None},
            ),
            span("s4", "00.300000", {"type": "response", "response_id": "resp_2"}),
        ],
    }


def test_an_agents_sdk_trace_without_text_reads_as_unrecorded_text_and_arguments() -> None:
    (turn,) = parse_record(_response_only_trace()).turns
    assert turn.text == ""
    assert "OpenAIChatCompletionsModel" in turn.unrecorded["text"]
    (call,) = turn.tool_calls
    assert call.name == "capital"
    assert call.arguments_unrecorded
    assert "trace_include_sensitive_data" in (call.arguments_error or "")


def test_check_gives_an_error_not_a_failure_for_a_log_that_holds_no_text(
    tmp_path: Path,
) -> None:
    """The reported false verdict: `contains Rome` failed on a trace that holds no text."""
    (tmp_path / "log.jsonl").write_text(json.dumps(_response_only_trace()) + "\n")
    (tmp_path / "suite.yaml").write_text(
        "chatassert: 1\nname: capitals\ncases:\n  - name: capital\n    assertions:\n"
        "      - {type: on_last_turn, assertion: {type: contains, value: Rome}}\n"
    )
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(
            [
                "check",
                str(tmp_path / "suite.yaml"),
                str(tmp_path / "log.jsonl"),
                "--format",
                "json",
            ]
        )
    assert code == 3, (out.getvalue(), err.getvalue())
    (row,) = [json.loads(x) for x in out.getvalue().splitlines() if '"case"' in x]
    assert row["result"]["status"] == "error"
    assert "the log did not record the text" in json.dumps(row)
    assert "Response does not contain" not in out.getvalue()


CALLS_WHY = "the span records no completion (set TRACELOOP_TRACE_CONTENT=true)"


def test_checks_of_calls_the_log_did_not_record_are_errors() -> None:
    from chatassert.policies import OnlyTools
    from chatassert.promptkit import ToolsCalled, ToolsNotCalled

    turn = Turn(unrecorded={"text": CALLS_WHY, "tool_calls": CALLS_WHY})
    for check in (ToolsCalled(["get_weather"]), ToolsNotCalled(["delete"])):  # fail, pass
        result = check.check(turn)
        assert result.status is Status.ERROR
        assert result.reason == f"the log did not record the tool calls of this turn: {CALLS_WHY}"
    conv = Conversation(turns=[Turn(text="hi"), turn])
    assert OnlyTools(["get_weather"]).check(conv).status is Status.ERROR


def test_calls_a_tool_span_recorded_are_checked_though_the_model_call_kept_none() -> None:
    from chatassert.promptkit import ToolsCalled
    from chatassert.transcripts._build import tool_call

    history = [
        Msg(role="user", content="Weather in Rome?"),
        Msg(role="assistant", unrecorded=CALLS_WHY, unrecorded_calls=CALLS_WHY),
        Msg(role="assistant", tool_calls=[tool_call("get_weather", {}, "c1")]),  # a tool span
        Msg(role="tool", content="sunny", tool_call_id="c1"),
    ]
    (turn,) = conversation(history).turns
    assert turn.unrecorded == {"text": CALLS_WHY}
    assert ToolsCalled(["get_weather"]).check(turn).status is Status.PASSED


def test_an_instrumented_trace_with_content_capture_off_fails_no_check() -> None:
    """Written by OpenLLMetry itself with TRACELOOP_TRACE_CONTENT=false: the calls and the
    answer are not in the log, so neither `tools_called` nor `contains` can fail on it."""
    from chatassert.promptkit import ToolsCalled
    from chatassert.transcripts import read_records

    fixture = Path(__file__).parent / "fixtures" / "instrumented" / "openllmetry-no-content.json"
    (record,) = read_records(fixture)
    assert record.conversation is not None
    (turn,) = record.conversation.turns
    for check in (ToolsCalled(["get_weather"]), Contains("Rome")):
        result = check.check(turn)
        assert result.status is Status.ERROR
        assert "TRACELOOP_TRACE_CONTENT" in result.reason


def test_a_check_of_your_own_that_meets_what_was_not_recorded_is_an_error() -> None:
    from chatassert import Assertion
    from chatassert.errors import UnrecordedError

    class QuotesOrderId(Assertion):
        """The reply quotes the order id (the log may not have recorded it)."""

        kind = "quotes_order_id"

        def _check(self, subject: object) -> Any:
            raise UnrecordedError("the log did not record the order id: enable order logging")

    result = QuotesOrderId().check(Turn(text="Your order 42 ships today."))
    assert result.status is Status.ERROR
    assert result.reason == "the log did not record the order id: enable order logging"
