"""Vocabulary types that are a native check under another name (docs/internals/architecture.md).

A dialect's type whose pass/fail rule is a native check's is a subclass of that check that
changes only how it is spelt: its parameter names, its reason and its detail keys. It decides
nothing itself, so the two can never disagree; these tests hold every such spelling to that.
"""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from chatassert import Contains, Matches, Turn
from chatassert._base import Assertion
from chatassert._registry import registered
from chatassert.flat import ContainsAll
from chatassert.promptkit import (
    AgentInvoked,
    AgentNotInvoked,
    ContentIncludes,
    ContentMatches,
    ConversationAgentInvoked,
    ConversationAgentNotInvoked,
    ConversationToolsCalled,
    ConversationToolsNotCalled,
    ToolsCalled,
    ToolsNotCalled,
)

DECIDING = ("check", "acheck", "_check", "_acheck", "_eval", "_compile_quick", "_all_ok_function")
"""The methods that decide an outcome; a spelling inherits every one of them."""


def spellings() -> list[tuple[type[Assertion], type[Assertion]]]:
    """Each registered type that subclasses another registered type, with that native type."""
    kinds = set(registered().values())
    found = []
    for cls in kinds:
        natives = [base for base in cls.__mro__[1:] if base in kinds]
        if natives:
            found.append((cls, natives[0]))
    return sorted(found, key=lambda pair: pair[0].kind)


def test_the_known_spellings_are_found() -> None:
    assert (ContentIncludes, Contains) in spellings()
    assert (ContainsAll, Contains) in spellings()
    assert (ContentMatches, Matches) in spellings()
    assert (AgentInvoked, ToolsCalled) in spellings()
    assert (AgentNotInvoked, ToolsNotCalled) in spellings()
    assert (ConversationAgentInvoked, ConversationToolsCalled) in spellings()
    assert (ConversationAgentNotInvoked, ConversationToolsNotCalled) in spellings()


@pytest.mark.parametrize(("spelling", "native"), spellings(), ids=lambda c: c.kind)
def test_a_spelling_decides_nothing_itself(
    spelling: type[Assertion], native: type[Assertion]
) -> None:
    overridden = [
        name
        for klass in spelling.__mro__[: spelling.__mro__.index(native)]
        for name in DECIDING
        if name in vars(klass)
    ]
    assert overridden == [], f"{spelling.__name__} decides outcomes that {native.__name__} owns"


texts = st.text(alphabet="abcAB xy", max_size=12)
values = st.lists(st.text(alphabet="abAB y", min_size=1, max_size=3), min_size=1, max_size=3)


@given(values, texts)
def test_spellings_of_contains_agree_with_it(expected: list[str], text: str) -> None:
    native = Contains(expected).check(text).status
    assert ContentIncludes(expected).check(text).status is native
    assert ContainsAll(expected).check(Turn(text=text)).status is native


names = st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3)


@given(names, st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=4))
def test_agent_checks_agree_with_the_tool_checks_they_spell(
    expected: list[str], called: list[str]
) -> None:
    from chatassert import ToolCall

    turn = Turn(tool_calls=[ToolCall(name=n) for n in called])
    assert AgentInvoked(expected).check(turn).status is ToolsCalled(expected).check(turn).status
    assert (
        AgentNotInvoked(expected).check(turn).status is ToolsNotCalled(expected).check(turn).status
    )


@given(st.sampled_from(["a", "^b", "x|y", "(?i)ab", "a{2}", "[A-Z]"]), texts)
def test_spellings_of_matches_agree_with_it(pattern: str, text: str) -> None:
    assert ContentMatches(pattern).check(text).status is Matches(pattern).check(text).status


@pytest.mark.parametrize(
    ("check", "text", "record"),
    [
        (
            ContentIncludes(["Paris", "France"]),
            "It is Lyon",
            {
                "status": "failed",
                "name": "content_includes",
                "reason": "Expected the response to contain 'Paris', 'France' but it does not",
                "details": {
                    "patterns": ["Paris", "France"],
                    "missing_patterns": ["Paris", "France"],
                },
                "pointer": "/text",
            },
        ),
        (
            ContentIncludes("Paris"),
            "paris!",
            {
                "status": "passed",
                "name": "content_includes",
                "reason": "response contains 'Paris'",
                "details": {"patterns": ["Paris"], "missing_patterns": []},
            },
        ),
        (
            ContentMatches(r"\d+"),
            "table 12",
            {
                "status": "passed",
                "name": "content_matches",
                "reason": "response matches /\\d+/",
                "details": {"pattern": "\\d+", "matched": True, "match": "12"},
                "pointer": "/text",
                "span": [6, 8],
                "excerpt": {"offset": 0, "text": "table 12"},
            },
        ),
        (
            ContainsAll(["date", "time"]),
            "the date",
            {
                "status": "failed",
                "name": "contains_all",
                "reason": "Response should contain all of: ['date', 'time']",
                "details": {"values": ["date", "time"], "missing": ["time"]},
                "pointer": "/text",
            },
        ),
    ],
)
def test_a_spelling_keeps_its_dialects_words(
    check: Assertion, text: str, record: dict[str, object]
) -> None:
    assert check.check(text).to_dict() == record


def test_a_spelling_writes_its_own_spec_back() -> None:
    spelt = ContentIncludes(["Paris", "France"])
    assert spelt.as_spec() == {"type": "content_includes", "patterns": ["Paris", "France"]}
    assert spelt.patterns == ("Paris", "France")
    assert spelt != Contains(["Paris", "France"])  # a different type, spelt differently
