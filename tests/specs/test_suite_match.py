"""Which case a logged conversation is checked against, and why (`Suite.match`).

A run that pairs conversations with cases must be able to say how each pairing was made (an
id, a 'case' field, the user inputs, a suite of one case) and, when none was, why not: the
conversation's id, the suite's cases and the one closest to that id. A one-case suite checks
every conversation (docs/specs.md), and says so when the ids differ.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import Conversation
from chatassert._suite import MATCHED_BY, Case, Match, Suite
from chatassert.specs import loads_suite
from support_suite import SUPPORT_SUITE

SUITE = (
    SUPPORT_SUITE
    + """\
  - name: greeting again
    turns:
      - input: Hello
        assertions: [{type: contains, value: hi}]
      - input: Bye
        assertions: [{type: contains, value: bye}]
"""
)

ONE = """\
chatassert: 1
name: one
cases:
  - name: greet
    id: greet-1
    turns:
      - input: hello
        assertions: [{type: contains, value: hi}]
"""


def chat(*inputs: str, id: str | None = None, **metadata: Any) -> Conversation:
    messages: list[dict[str, Any]] = []
    for text in inputs:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return Conversation.from_messages(messages, id=id, metadata=metadata)


@pytest.fixture(scope="module")
def suite() -> Suite:
    return loads_suite(SUITE)


def test_an_id_that_is_a_case_id_matches_by_id(suite: Suite) -> None:
    found = suite.match(chat("anything", id="T-refund"))
    assert [c.name for c in found.cases] == ["refund"]
    assert (found.by, found.note, found.reason) == ("id", None, None)


def test_a_case_field_naming_a_case_matches_by_case_field(suite: Suite) -> None:
    for field in ("case", "test_case", "name"):
        found = suite.match(chat("anything", id="run-7", **{field: "greeting"}))
        assert [c.name for c in found.cases] == ["greeting"], field
        assert found.by == "case field"


def test_the_case_field_comes_before_the_id(suite: Suite) -> None:
    found = suite.match(chat("x", id="T-refund", case="greeting"))
    assert ([c.name for c in found.cases], found.by) == (["greeting"], "case field")


def test_inputs_that_begin_as_one_case_match_by_inputs(suite: Suite) -> None:
    found = suite.match(chat("Hello", "Bye", id="run-1"))
    assert ([c.name for c in found.cases], found.by) == (["greeting again"], "inputs")


def test_every_value_of_matched_by_is_documented() -> None:
    assert set(MATCHED_BY) == {"id", "case field", "inputs", "single case", "every subject"}
    assert all(MATCHED_BY.values())


def test_an_unmatched_conversation_with_an_id_is_told_its_id_matched_none(suite: Suite) -> None:
    found = suite.match(chat("What is the weather?", id="conv-1"))
    assert found == Match((), None, None, found.reason)
    reason = found.reason or ""
    assert reason.startswith("no case of 'support' matches conversation 'conv-1': ")
    assert "its id 'conv-1' is no case's id or name" in reason
    assert "give it an 'id'" not in reason  # it has one
    assert "its first input 'What is the weather?' begins no case's turns" in reason
    assert "the suite's cases, 3: 'T-refund', 'greeting', 'greeting again'" in reason
    assert reason.endswith(
        "name its case in the record's 'case' field, or log it under the case's id"
    )


def test_the_closest_case_is_named(suite: Suite) -> None:
    reason = suite.match(chat("x", id="T-refnd")).reason or ""
    assert "the closest to 'T-refnd': 'T-refund'" in reason
    reason = suite.match(chat("x", case="greting")).reason or ""
    assert "its 'case' field 'greting' names no case" in reason
    assert "the closest to 'greting': 'greeting'" in reason


def test_nothing_is_called_closest_when_nothing_is_close(suite: Suite) -> None:
    assert "closest" not in (suite.match(chat("x", id="zzzzzzzz")).reason or "")


def test_a_conversation_without_an_id_is_told_so(suite: Suite) -> None:
    reason = suite.match(chat("Weather?")).reason or ""
    assert reason.startswith("no case of 'support' matches this conversation: ")
    assert "it has no id and no 'case' field" in reason


def test_inputs_that_begin_as_two_cases_do_are_ambiguous_and_said_so(suite: Suite) -> None:
    found = suite.match(chat("Hello", id="run-2"))
    assert found.cases == ()
    assert "its inputs begin as those of cases 'greeting' and 'greeting again' do" in (
        found.reason or ""
    )


def test_the_suite_lists_five_cases_and_their_count() -> None:
    many = loads_suite(
        "chatassert: 1\ncases:\n"
        + "".join(
            f"  - {{name: c{i}, id: id-{i}, turns: [{{input: q{i}, assertions: "
            "[{type: contains, value: a}]}]}\n"
            for i in range(12)
        )
    )
    reason = many.match(chat("other", id="x")).reason or ""
    assert "the suite's cases, 12: 'id-0', 'id-1', 'id-2', 'id-3', 'id-4', …" in reason


def test_a_one_case_suite_checks_a_conversation_whose_id_differs_and_says_so() -> None:
    one = loads_suite(ONE)
    found = one.match(chat("something else", id="conv-1"))
    assert [c.name for c in found.cases] == ["greet"]
    assert found.by == "single case"
    assert found.note == "the case's id 'greet-1' differs from the conversation's id 'conv-1'"


def test_a_one_case_suite_notes_a_case_field_that_names_no_case() -> None:
    found = loads_suite(ONE).match(chat("bye", case="gret"))
    assert found.by == "single case"
    assert found.note == "the record's 'case' field 'gret' names no case"


def test_a_one_case_suite_has_nothing_to_note_without_ids() -> None:
    found = loads_suite(ONE).match(chat("bye"))
    assert (found.by, found.note) == ("single case", None)


def test_cases_for_gives_the_cases_of_match(suite: Suite) -> None:
    for conversation in (chat("Hello", "Bye"), chat("x", id="T-refund"), chat("Hello")):
        assert suite.cases_for(conversation) == list(suite.match(conversation).cases)


_KEYS = ["a", "b", "1", "2"]


@settings(max_examples=150, deadline=None)
@given(
    cases=st.lists(
        st.tuples(st.sampled_from(_KEYS), st.one_of(st.none(), st.sampled_from([*_KEYS, 1, 2]))),
        min_size=1,
        max_size=5,
    ),
    key=st.one_of(st.none(), st.sampled_from([*_KEYS, 1, 2, "c"])),
)
def test_find_takes_the_first_case_of_an_id_then_the_first_of_a_name(
    cases: list[tuple[str, object]], key: object
) -> None:
    suite = Suite(
        name="s",
        cases=tuple(Case(name=name, id=ident) for name, ident in cases),  # type: ignore[arg-type]
    )
    if key is None:
        expected = None
    else:
        text = str(key)
        by_id = [c for c in suite.cases if c.id is not None and str(c.id) == text]
        by_name = [c for c in suite.cases if c.name == text]
        expected = (by_id or by_name or [None])[0]
    assert suite.find(key) is expected
