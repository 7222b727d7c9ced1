"""Constant outcomes are built once and shared, and sharing never changes a verdict.

Turn selectors place a check's constant outcome at a turn once, combine runs of the same
constant outcomes once, and a case places a constant whole-conversation outcome once; a
selector skips the turn-place context for checks that never read earlier turns, and the regex
budget for children that never search. These tests hold each shortcut to the long way.
"""

from __future__ import annotations

import asyncio
from typing import Any

from chatassert import (
    AllOf,
    Contains,
    ContainsFunctionCall,
    Conversation,
    Matches,
    Not,
    OnEveryTurn,
    OnLastTurn,
    Turn,
)
from chatassert._base import Assertion, reads_history_of, searches_in
from chatassert._result import Result
from chatassert.promptkit import ContentExcludes
from chatassert.specs import loads_suite


def _chat(*texts: str) -> Conversation:
    return Conversation(turns=[Turn(input=f"q{i}", text=t) for i, t in enumerate(texts)])


class Outside(Assertion):
    """A user's own check: whether it reads earlier turns cannot be known."""

    __slots__ = ()
    kind = "outside_check"

    def _check(self, subject: object) -> Result:
        return Contains("a").check(subject)


def test_history_readers_are_known_by_class_and_through_combinators() -> None:
    assert not reads_history_of(Contains("x"))
    assert not reads_history_of(AllOf(Contains("x"), Not(Matches("y"))))
    assert reads_history_of(ContentExcludes(["secret"]))
    assert reads_history_of(AllOf(Contains("x"), Not(ContentExcludes(["secret"]))))
    assert reads_history_of(Outside())  # defined outside chatassert: assumed to


def test_a_history_reader_under_a_selector_still_reads_the_earlier_turns() -> None:
    # content_excludes reads every turn so far: turn 1 fails for what turn 0 said
    chat = _chat("the secret is out", "nothing here")
    result = OnEveryTurn(AllOf(ContentExcludes(["secret"]))).check(chat)
    assert [c.status.value for c in result.children] == ["failed", "failed"]
    alone = OnEveryTurn(Contains("e")).check(chat)
    assert [c.status.value for c in alone.children] == ["passed", "passed"]


def test_searches_are_known_by_class_and_through_combinators() -> None:
    assert not searches_in(Contains("x"))
    assert searches_in(Matches("x+"))
    assert searches_in(AllOf(Contains("x"), Not(Matches("y"))))
    assert not searches_in(AllOf(Contains("x"), ContainsFunctionCall("t")))
    assert searches_in(Outside())
    assert OnEveryTurn(Matches("x+"))._searches
    assert not OnEveryTurn(Contains("x"))._searches


def _statuses(result: Result) -> list[Any]:
    return [(n.name, n.status.value, n.location, n.reason) for _, n in result.walk()]


def test_a_selector_over_the_same_constant_outcomes_returns_one_shared_node() -> None:
    check = OnEveryTurn(Contains("ok"))
    first, second = check.check(_chat("ok", "ok")), check.check(_chat("ok", "ok then"))
    assert first is second
    assert first._shared
    failing = check.check(_chat("ok", "no"))
    assert failing is not first
    assert _statuses(failing) == [
        ("on_every_turn", "failed", None, failing.reason),
        ("contains", "passed", "turns[0]", first.children[0].reason),
        ("contains", "failed", "turns[1]", "Response does not contain 'ok'"),
    ]
    assert check.check(_chat("ok")) is not first  # another number of turns, another node
    last = OnLastTurn(Contains("ok"))
    assert last.check(_chat("no", "ok")).children[0].location == "turns[1]"


def test_annotating_a_shared_node_copies_it() -> None:
    suite = loads_suite("chatassert: 1\nname: s\nassertions:\n  - {type: contains, value: ok}\n")
    case, chat = suite.cases[0], _chat("ok", "ok")
    bare = case.checks[0].check(chat)
    placed = case.check(chat).children[0]
    assert placed.location == "conversation"
    assert bare.location is None
    assert case.check(_chat("ok", "ok")).children[0] is placed  # placed once, then shared
    assert placed.replace(duration=None) == bare.replace(location="conversation")


def test_shared_and_fresh_paths_give_equal_trees() -> None:
    # the asynchronous path checks every turn through `acheck`: the trees are equal
    check = OnEveryTurn(AllOf(Contains("ok"), Not(Matches("(?i)sorry"))))
    for texts in (("ok",), ("ok", "Sorry ok"), ("no", "ok", "ok")):
        chat = _chat(*texts)
        assert check.check(chat) == asyncio.run(check.acheck(chat)).replace(duration=None)
