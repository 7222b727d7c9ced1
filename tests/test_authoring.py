"""`chatassert.authoring`: what a check of one's own needs to read its subject and explain a
failure; and `register`'s docstring rule."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from typing import Any

import pytest

import chatassert
from chatassert import (
    Assertion,
    Contains,
    Conversation,
    OnEveryTurn,
    Result,
    Status,
    ToolCall,
    Turn,
    register,
)
from chatassert._params import BY_DIALECT, REGISTRY
from chatassert.authoring import (
    arguments_of,
    each_call,
    each_text,
    errored,
    failed,
    find_span,
    json_of,
    passed,
    pointer,
    skipped,
    text_of,
    tool_calls_of,
    turn_of,
    turns_of,
    value_at,
)
from chatassert.errors import UnrecordedError
from chatassert.testing import check_contract

NOT_RECORDED = {"text": "content capture was off", "tool_calls": "calls were not traced"}
CHAT = Conversation(
    turns=[
        Turn(text="Hi! How can I help?"),
        Turn(text="Refunded.", tool_calls=[ToolCall(name="lookup"), ToolCall(name="refund")]),
    ]
)


@pytest.fixture
def registry() -> Iterator[None]:
    """The registry as it was, after a test that registers checks of its own."""
    kinds, dialects = dict(REGISTRY), {k: dict(v) for k, v in BY_DIALECT.items()}
    yield
    REGISTRY.clear()
    REGISTRY.update(kinds)
    BY_DIALECT.clear()
    BY_DIALECT.update(dialects)


# -- reading a subject ---------------------------------------------------------------------


def test_text_of_reads_a_reply_however_it_is_given() -> None:
    assert text_of("Hello") == "Hello"
    assert text_of(Turn(text="Hi")) == "Hi"
    assert text_of(Conversation(turns=[Turn(text="Only")])) == "Only"
    assert text_of({"total": 3}) == '{"total": 3}'
    with pytest.raises(TypeError, match="wrap it in OnLastTurn"):
        text_of(CHAT)


def test_what_the_log_did_not_record_is_an_unrecorded_error() -> None:
    blank = Turn(unrecorded=NOT_RECORDED)
    with pytest.raises(UnrecordedError, match="the log did not record the text of this turn"):
        text_of(blank)
    with pytest.raises(UnrecordedError, match="tool calls of this turn: calls were not traced"):
        tool_calls_of(blank)
    chat = Conversation(turns=[Turn(text="a"), blank])
    with pytest.raises(UnrecordedError, match=r"the text of turns\[1\]: content capture"):
        list(each_text(chat))
    with pytest.raises(UnrecordedError, match=r"the tool calls of turns\[1\]"):
        list(each_call(chat))


class MentionsOrder(Assertion):
    """Passes when a reply mentions an order (a check of one's own that reads the text)."""

    kind = "mentions_order"

    def _check(self, subject: object) -> Result:
        for where, text in each_text(subject):
            span = find_span(text, "order")
            if span is not None:
                return passed(self, "mentions an order")
            return failed(self, "does not mention an order", pointer=where)
        return failed(self, "has no reply")


def test_a_check_that_reads_what_was_not_recorded_is_an_error_with_the_logs_reason() -> None:
    result = MentionsOrder().check(Turn(unrecorded=NOT_RECORDED))
    assert (result.status, result.reason) == (
        Status.ERROR,
        "the log did not record the text of this turn: content capture was off",
    )
    assert (~MentionsOrder()).check(Turn(unrecorded=NOT_RECORDED)).status is Status.ERROR


def test_turns_and_tool_calls_of_a_turn_or_a_conversation() -> None:
    assert turn_of("Hi").text == "Hi"
    assert [t.text for t in turns_of(CHAT)] == ["Hi! How can I help?", "Refunded."]
    assert [t.text for t in turns_of("Hi")] == ["Hi"]
    assert [c.name for c in tool_calls_of(CHAT)] == ["lookup", "refund"]
    assert [c.name for c in tool_calls_of(CHAT.turns[1])] == ["lookup", "refund"]
    assert [(p, c.name) for p, c in each_call(CHAT)] == [
        ("/turns/1/tool_calls/0", "lookup"),
        ("/turns/1/tool_calls/1", "refund"),
    ]
    assert list(each_text(CHAT)) == [
        ("/turns/0/text", "Hi! How can I help?"),
        ("/turns/1/text", "Refunded."),
    ]
    assert list(each_text("Hi")) == [("/text", "Hi")]


def test_arguments_of_a_call_say_when_they_cannot_be_read() -> None:
    assert arguments_of(ToolCall(name="refund", arguments='{"amount": 20}')) == {"amount": 20}
    with pytest.raises(ValueError, match="the arguments of the call of refund are not a JSON"):
        arguments_of(ToolCall(name="refund", arguments="{amount: 20"))
    unrecorded = ToolCall(name="refund", arguments_error="the log did not record the arguments")
    with pytest.raises(UnrecordedError, match="did not record the arguments of the call of refund"):
        arguments_of(unrecorded)


def test_json_of_reads_the_json_of_a_reply() -> None:
    assert json_of('{"total": 40}') == {"total": 40}
    assert json_of(Turn(data={"total": 40})) == {"total": 40}
    with pytest.raises(ValueError, match="not JSON"):
        json_of("forty")


# -- pointers and spans --------------------------------------------------------------------


def test_a_pointer_is_written_and_read_back() -> None:
    where = pointer("turns", 1, "tool_calls", 0, "arguments", "a/b~c")
    assert where == "/turns/1/tool_calls/0/arguments/a~1b~0c"
    chat = Conversation(
        turns=[Turn(), Turn(tool_calls=[ToolCall(name="f", arguments={"a/b~c": 7})])]
    )
    assert value_at(chat, where) == 7
    assert value_at("Hi", "/text") == "Hi"
    assert value_at({"results": [{"file": "a"}]}, "/results/0/file") == "a"
    assert value_at([1, 2], "") == [1, 2]
    assert pointer() == ""


def test_a_pointer_that_names_nothing_says_where_it_stops() -> None:
    with pytest.raises(LookupError, match=r"'/turns/1/txt' names nothing: /turns/1 \(Turn\)"):
        value_at(CHAT, "/turns/1/txt")
    with pytest.raises(LookupError, match=r"/turns \(tuple\) has no '5'"):
        value_at(CHAT, "/turns/5")
    with pytest.raises(ValueError, match="not a JSON Pointer: 'turns/0'"):
        value_at(CHAT, "turns/0")


def test_find_span_marks_the_text_as_written() -> None:
    assert find_span("Your ORDER ships", "order") == (5, 10)
    assert find_span("Your ORDER ships", "order", ignore_case=False) is None
    assert find_span("İx order", "order") == (3, 8)  # lowering İ lengthens it: mapped back
    assert find_span("", "order") is None


# -- results -------------------------------------------------------------------------------


def test_the_four_outcomes_are_named_after_the_check() -> None:
    check = Contains("order")
    assert passed(check).reason == "contains 'order'"  # what it requires
    assert passed(check, "quotes it", {"at": 3}, score=1.0).details == {"at": 3}
    text = "x" * 80 + "no order id here"
    result = failed(check, "quotes no order id", {"missing": ["id"]}, pointer="/text",
                    text=text, span=(83, 88))  # fmt: skip
    assert (result.status, result.name, result.pointer, result.span) == (
        Status.FAILED,
        "contains",
        "/text",
        (83, 88),
    )
    assert result.evidence().startswith("at /text 83-88: ")
    assert "[[order]]" in result.evidence()
    assert errored(check, "the order service is down", pointer="/text").status is Status.ERROR
    assert skipped(check, "no order was placed").status is Status.SKIPPED


@pytest.mark.parametrize(
    ("build", "error", "says"),
    [
        (lambda c: failed(c, ""), ValueError, "a failed result needs a reason"),
        (lambda c: errored(c, "  "), ValueError, "an error result needs a reason"),
        (lambda c: skipped(c, ""), ValueError, "a skipped result needs a reason"),
        (lambda c: failed(c, "no", span=(0, 1)), ValueError, "give pointer= too"),
        (lambda c: failed(c, "no", pointer="/text", span=(0, 1)), ValueError, "give text="),
        (lambda c: failed(c, "no", pointer="/text", text="ab", span=(1, 5)), ValueError,
         "span (1, 5) is not within the text's 2 characters"),
        (lambda c: failed(c, "no", pointer="text"), ValueError, "pointer must be a JSON Pointer"),
        (lambda c: failed(c, "no", ["a"]), TypeError, "details must be a mapping"),  # type: ignore[arg-type]
        (lambda c: passed("contains"), TypeError, "give the check the result is of (self)"),  # type: ignore[arg-type]
    ],
)  # fmt: skip
def test_a_result_that_cannot_be_right_is_refused(build: Any, error: type, says: str) -> None:
    with pytest.raises(error, match=re.escape(says)):
        build(Contains("order"))


def test_a_selector_places_the_evidence_of_a_turn_in_its_conversation() -> None:
    chat = Conversation(turns=[Turn(text="Your order ships"), Turn(text="Bye")])
    result = OnEveryTurn(MentionsOrder()).check(chat)
    (leaf,) = result.failures()
    assert (leaf.pointer, value_at(chat, leaf.pointer or "")) == ("/turns/1/text", "Bye")


def test_a_check_built_with_the_toolkit_keeps_the_contract() -> None:
    check_contract(
        MentionsOrder(),
        subjects={
            "passed": ["Your order ships", Conversation(turns=[Turn(text="order 1")])],
            "failed": [Turn(text="Bye")],
            "error": [Turn(unrecorded=NOT_RECORDED)],
        },
    )


# -- register's docstring rule -------------------------------------------------------------


def test_a_registered_check_needs_a_docstring_and_is_told_where(registry: None) -> None:
    class QuotesOrderId(Assertion):
        kind = "quotes_order_id"

    with pytest.raises(ValueError) as caught:
        register(QuotesOrderId)
    assert str(caught.value) == (
        "QuotesOrderId needs a docstring to be registered: add one under `class "
        "QuotesOrderId`, starting with one line that says when it passes (it is the check's "
        "documentation in `chatassert schema`, lint and editors)"
    )
    assert "quotes_order_id" not in REGISTRY


def test_a_blank_docstring_is_no_docstring(registry: None) -> None:
    class Blank(Assertion):
        """ """

        kind = "blank_doc"

    with pytest.raises(ValueError, match="Blank needs a docstring"):
        register(Blank)


def test_a_check_used_in_code_only_needs_no_docstring() -> None:
    class Short(Assertion):
        kind = "short"

        def _check(self, subject: object) -> Result:
            ok = len(text_of(subject)) < 10
            return passed(self) if ok else failed(self, "is 10 characters or more")

    assert Short().check("tiny").passed
    assert not Short().check("a long reply").passed


# -- the namespace -------------------------------------------------------------------------


def test_every_public_name_is_documented() -> None:
    module = importlib.import_module("chatassert.authoring")
    assert module.__all__ == sorted(module.__all__)
    undocumented = [n for n in module.__all__ if not (getattr(module, n).__doc__ or "").strip()]
    assert undocumented == []


def test_authoring_names_no_concept_another_namespace_names_otherwise() -> None:
    authoring = importlib.import_module("chatassert.authoring")
    mine = {id(getattr(authoring, n)): n for n in authoring.__all__}
    for other in ("chatassert", "chatassert.testing", "chatassert.judges", "chatassert.errors"):
        module = importlib.import_module(other)
        for name in module.__all__:
            found = mine.get(id(getattr(module, name)))
            assert found in (None, name), f"{other}.{name} is authoring.{found}"
    assert "text_of" not in chatassert.__all__  # the facade stays small
