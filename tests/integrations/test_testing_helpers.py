"""chatassert.testing: the unittest mixin, the error type, builders and loaders."""

from __future__ import annotations

import json
import pickle
import unittest
from pathlib import Path

import pytest

from chatassert import (
    Contains,
    ContainsFunctionCall,
    GuardrailEvent,
    LLMRubric,
    ToolCall,
    Turn,
    WorkflowState,
)
from chatassert.errors import TranscriptError
from chatassert.testing import (
    ChatAssertionError,
    ChatAssertMixin,
    FakeJudge,
    add_observer,
    assert_fails,
    assert_passes,
    call,
    conversation,
    describe_subject,
    load_conversation,
    load_conversations,
    passes,
    turn,
)


class _Cases(ChatAssertMixin, unittest.TestCase):
    __test__ = False  # run by the tests below, not collected by pytest

    def test_passes(self) -> None:
        result = self.assertPasses(Contains("refund"), "Your refund is here")
        assert result.passed

    def test_fails(self) -> None:
        self.assertPasses(Contains("refund"), "No.", msg="asks about refunds")

    def test_error_is_not_a_failure(self) -> None:
        self.assertFails(LLMRubric("Polite", judge=FakeJudge(RuntimeError("down"))), "Hi")

    def test_expected_failure(self) -> None:
        self.assertFails(Contains("refund"), "No.")


def run_case(name: str) -> unittest.TestResult:
    outcome = unittest.TestResult()
    _Cases(name).run(outcome)
    return outcome


def test_unittest_mixin_reports_failures_not_errors() -> None:
    assert run_case("test_passes").wasSuccessful()
    assert run_case("test_expected_failure").wasSuccessful()
    failed = run_case("test_fails")
    assert not failed.errors
    text = failed.failures[0][1]
    assert "ChatAssertionError: asks about refunds\ncontains did not pass\n" in text
    assert "FAIL contains: Response does not contain 'refund'" in text
    error = run_case("test_error_is_not_a_failure")
    assert "expected the check to fail, but its result is error" in error.failures[0][1]
    assert "ERROR llm_rubric: judge fake gave no verdict" in error.failures[0][1]


def test_the_error_carries_the_result_and_pickles() -> None:
    with pytest.raises(ChatAssertionError) as caught:
        assert_passes(Contains("refund") & Contains("today"), turn("Refund issued"))
    error = caught.value
    assert isinstance(error, AssertionError)
    assert error.result.status.value == "failed"
    assert error.subject == turn("Refund issued")
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error)
    assert again.result == error.result


def test_error_and_skip_do_not_pass() -> None:
    judge = FakeJudge(RuntimeError("down"))
    with pytest.raises(ChatAssertionError, match="llm_rubric could not be evaluated"):
        assert_passes(LLMRubric("Polite", judge=judge), "Hi")
    with pytest.raises(
        ChatAssertionError, match="expected the check to fail, but its result is passed"
    ):
        assert_fails(Contains("hi"), "hi")


def test_observers_see_every_check_until_removed() -> None:
    seen: list[tuple[str, str]] = []
    remove = add_observer(lambda kind, result, subject: seen.append((kind, result.status)))
    try:
        assert_passes(Contains("a"), "a")
        assert passes(Contains("a")) != "b"
        assert_fails(Contains("a"), "b")
    finally:
        remove()
    assert_passes(Contains("a"), "a")
    assert seen == [("assert_passes", "passed"), ("passes", "failed"), ("assert_fails", "failed")]
    remove()  # removing twice is harmless


def test_turn_builder_accepts_every_call_and_result_form() -> None:
    t = turn(
        "Done",
        input="Book it",
        calls=[
            call("a", {"from": "x"}, size=2),
            ("b", {"n": 1}),
            "c",
            {"name": "d", "arguments": '{"k": true}'},
            ToolCall(name="e"),
        ],
        results=["ok-a", {"content": "ok-b"}],
        guardrails=["pii", {"name": "tone", "triggered": False}, GuardrailEvent(name="x")],
        workflow={"current": "booked", "complete": True},
        data={"id": 7},
        metadata={"latency_ms": 12},
    )
    assert [c.name for c in t.tool_calls] == ["a", "b", "c", "d", "e"]
    assert t.tool_calls[0].arguments == {"from": "x", "size": 2}
    assert t.tool_calls[3].arguments == {"k": True}
    assert [(r.name, r.content) for r in t.tool_results] == [("a", "ok-a"), ("b", "ok-b")]
    assert [(g.name, g.triggered) for g in t.guardrails] == [
        ("pii", True),
        ("tone", False),
        ("x", True),
    ]
    assert t.workflow == WorkflowState(current="booked", complete=True)
    assert (t.data, t.metadata) == ({"id": 7}, {"latency_ms": 12})
    assert_passes(ContainsFunctionCall("a", {"size": 2}), t)


def test_builders_reject_what_they_cannot_read() -> None:
    with pytest.raises(TypeError, match=r"a call tuple is \(name, arguments\)"):
        turn(calls=[("a", {}, "extra")])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="a call is a ToolCall"):
        turn(calls=[42])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="a tool result is"):
        turn(results=[42])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="a conversation turn is"):
        conversation(("user", 3))  # type: ignore[arg-type]


def test_conversation_builder_sets_inputs() -> None:
    reply = turn("Booked", input="old")
    talk = conversation("Welcome!", ("Book", reply), Turn(text="Bye"), id="c1", metadata={"k": 1})
    assert [t.input for t in talk.turns] == [None, "Book", None]
    assert talk.turns[1].text == "Booked"
    assert (talk.id, talk.metadata) == ("c1", {"k": 1})
    assert describe_subject(talk) == "conversation of 3 turns (id 'c1'); last turn: text 'Bye'"
    assert describe_subject({"a": 1}) == 'JSON {"a": 1}'


def test_loaders_read_json_lists_and_jsonl_and_name_bad_records(tmp_path: Path) -> None:
    record = {
        "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    }
    (tmp_path / "one.json").write_text(json.dumps(record))
    (tmp_path / "many.json").write_text(json.dumps([record, record]))
    (tmp_path / "log.jsonl").write_text(json.dumps(record) + "\n\n" + json.dumps(record) + "\n")
    (tmp_path / "bad.jsonl").write_text(json.dumps(record) + "\n{oops\n")
    (tmp_path / "bad.json").write_text("{oops")
    assert load_conversation(tmp_path / "one.json").turns[0].text == "Hello"
    assert len(load_conversations(tmp_path / "many.json")) == 2
    assert len(load_conversations(tmp_path / "log.jsonl")) == 2
    with pytest.raises(TranscriptError, match=r"bad\.jsonl:2: line is not JSON"):
        load_conversations(tmp_path / "bad.jsonl")
    with pytest.raises(TranscriptError, match=r"bad\.json: not JSON"):
        load_conversation(tmp_path / "bad.json")
    with pytest.raises(TranscriptError, match="holds 2 conversations, not one"):
        load_conversation(tmp_path / "many.json")
