"""Tests of PromptKit's later names (runtime/evals/handlers on its main branch), docs/promptkit.md.

Where PromptKit's own registry makes a later name an alias of an earlier one, it spells the
same check here (`contains` is `content_includes`, `contains_any` is `content_includes_any`,
`content_excludes` is `content_not_includes`, `json_valid` is `is_valid_json`,
`tool_args_excluded_session` is `tools_not_called_with_args`, `llm_judge_session` is
`llm_judge_conversation`); `regex` adds `expect_match`, `content_excludes` at turn level reads
the conversation so far, and `min_length` / `max_length` are new.
"""

from __future__ import annotations

import asyncio

import pytest
import yaml
from promptkit_decisions_helpers import records_test, refusals_test
from promptkit_helpers import scenario, turn

from chatassert import Conversation, OnEveryTurn, OnLastTurn, Status, ToolCall, Turn, from_spec
from chatassert._history import at_turn
from chatassert.errors import SpecError
from chatassert.promptkit import (
    ContentExcludes,
    ContentIncludes,
    ConversationContentIncludesAny,
    ConversationContentNotIncludes,
    ConversationToolsNotCalledWithArgs,
    IsValidJSON,
    LLMJudgeConversation,
    MaxLength,
    MinLength,
    Regex,
)
from chatassert.specs import loads_suite
from chatassert.specs._common import table_for


@pytest.mark.parametrize(
    ("level", "name", "cls"),
    [
        ("turn", "contains", ContentIncludes),
        ("turn", "json_valid", IsValidJSON),
        ("turn", "valid_json", IsValidJSON),
        ("turn", "regex", Regex),
        ("turn", "content_excludes", ContentExcludes),
        ("turn", "min_length", MinLength),
        ("turn", "max_length", MaxLength),
        ("turn", "length", MaxLength),
        ("conversation", "contains_any", ConversationContentIncludesAny),
        ("conversation", "content_excludes", ConversationContentNotIncludes),
        ("conversation", "tool_args_excluded_session", ConversationToolsNotCalledWithArgs),
        ("conversation", "llm_judge_session", LLMJudgeConversation),
    ],
)
def test_each_later_name_builds_its_check(level: str, name: str, cls: type) -> None:
    assert table_for(f"promptkit.{level}")[name] is cls


def test_the_earlier_names_stay_beside_the_later_ones() -> None:
    turn_level, conversation_level = (
        table_for("promptkit.turn"),
        table_for("promptkit.conversation"),
    )
    assert turn_level["content_includes"] is turn_level["contains"]
    assert turn_level["is_valid_json"] is turn_level["json_valid"]
    assert conversation_level["content_not_includes"] is conversation_level["content_excludes"]
    assert conversation_level["llm_judge_conversation"] is conversation_level["llm_judge_session"]


def test_contains_any_is_not_a_turn_level_name() -> None:
    """PromptKit's registry files contains_any under the session-level handlers only."""
    assert "contains_any" not in table_for("promptkit.turn")


# -- contains and contains_any: the same checks as content_includes(_any) ----------------------

LATER = """\
- role: user
  content: Where is my order?
  assertions:
    - type: contains
      params: {patterns: [shipped, Tuesday]}
    - type: regex
      params: {pattern: "#\\\\d{5}"}
    - type: regex
      params: {pattern: "(?i)sorry", expect_match: false}
    - type: max_length
      params: {max_characters: 60}
    - type: content_excludes
      params: {patterns: [refund]}
"""


def test_a_scenario_of_later_names_checks_a_conversation() -> None:
    suite = loads_suite(
        scenario(LATER)
        + "  conversation_assertions:\n"
        + "    - {type: contains_any, params: {patterns: [Tuesday, Wednesday]}}\n"
        + "    - {type: content_excludes, params: {patterns: [guarantee]}}\n",
        filename="later.yaml",
    )
    good = Conversation(
        turns=[Turn(input="Where is my order?", text="Order #12345 shipped, due Tuesday.")]
    )
    bad = Conversation(
        turns=[Turn(input="Where is my order?", text="Sorry, I guarantee a refund for #12.")]
    )
    assert suite.cases[0].check(good).status is Status.PASSED
    result = suite.cases[0].check(bad)
    turn_leaves = [(r.name, r.status.value) for r in result.children[0].children]
    assert turn_leaves == [
        ("content_includes", "failed"),
        ("regex", "failed"),
        ("regex", "failed"),
        ("max_length", "passed"),
        ("content_excludes", "failed"),
    ]
    whole = [(r.name, r.status.value) for r in result.children[1:]]
    assert whole == [
        ("conversation_content_includes_any", "failed"),
        ("conversation_content_not_includes", "failed"),
    ]


# -- regex ------------------------------------------------------------------------------------

ORDER = "Order #12345 shipped"

test_regex_records = records_test(
    [
        ("matches", lambda: Regex(r"#\d{5}"), ORDER, (
            "passed", "response matches /#\\d{5}/",
            {"pattern": "#\\d{5}", "matched": True, "expect_match": True, "match": "#12345",
             "origin_message": 'pattern "#\\\\d{5}" matched: true (expect_match: true)'})),
        ("does-not-match", lambda: Regex(r"#\d{6}"), ORDER, (
            "failed", "Expected the response to match /#\\d{6}/ but it does not",
            {"pattern": "#\\d{6}", "matched": False, "expect_match": True, "content": ORDER,
             "origin_message": 'pattern "#\\\\d{6}" matched: false (expect_match: true)'})),
        ("must-not-match-and-does-not", lambda: Regex("(?i)refund", expect_match=False), ORDER, (
            "passed", "response does not match /(?i)refund/",
            {"pattern": "(?i)refund", "matched": False, "expect_match": False,
             "origin_message": 'pattern "(?i)refund" matched: false (expect_match: false)'})),
        ("must-not-match-but-does", lambda: Regex("ship+ed", expect_match=False), ORDER, (
            "failed", "Expected the response not to match /ship+ed/ but it does ('shipped')",
            {"pattern": "ship+ed", "matched": True, "expect_match": False, "match": "shipped",
             "origin_message": 'pattern "ship+ed" matched: true (expect_match: false)'})),
    ]
)  # fmt: skip


def test_regex_is_case_sensitive_unless_the_pattern_says_otherwise() -> None:
    assert Regex("order").check(ORDER).status is Status.FAILED
    assert Regex("(?i)order").check(ORDER).passed


def test_a_regex_that_runs_out_of_time_is_an_error_whatever_it_expects() -> None:
    slow = "a" * 40_000 + "!"
    for expect in (True, False):
        result = Regex("(a|aa)+$", expect_match=expect, regex_timeout=0.05).check(slow)
        assert (result.status, result.details["error"]) == (Status.ERROR, "timeout")


# -- content_excludes -------------------------------------------------------------------------


def test_content_excludes_in_whole_word_mode_needs_word_boundaries() -> None:
    chat = Conversation(turns=[Turn(text="Let's start the art class.")])
    words = ConversationContentNotIncludes(["art", "star"], match_mode="word_boundary")
    result = words.check(chat)
    assert [v["evidence"]["pattern"] for v in result.details["violations"]] == ["art"]
    assert result.details["violations"][0]["evidence"]["snippet"] == "Let's start the art class."
    substring = ConversationContentNotIncludes(["art", "star"])
    assert len(substring.check(chat).details["violations"]) == 2


@pytest.mark.parametrize(
    ("pattern", "text", "case_sensitive", "found"),
    [
        ("ART", "the art class", False, True),
        ("ART", "the art class", True, False),
        ("a.b", "axb is here", False, False),  # the pattern is literal text, not a regex
        ("a.b", "see a.b now", False, True),
        ("c++", "I write c++ daily", False, False),  # no word boundary after '+'
        ("café", "un café noir", False, False),  # Go's \b is ASCII: é is not a word character
    ],
)
def test_whole_word_patterns_are_literal_and_go_like(
    pattern: str, text: str, case_sensitive: bool, found: bool
) -> None:
    check = ConversationContentNotIncludes(
        pattern, case_sensitive=case_sensitive, match_mode="word_boundary"
    )
    assert (check.check(Conversation(turns=[Turn(text=text)])).status is Status.FAILED) is found


def test_an_unknown_match_mode_is_refused_with_the_two_there_are() -> None:
    with pytest.raises(SpecError) as caught:
        from_spec(
            {
                "type": "conversation_content_not_includes",
                "patterns": ["x"],
                "match_mode": "words",
            }
        )
    assert "must be one of ['substring', 'word_boundary']" in caught.value.problems[0].message


TWO_TURNS = """\
- role: user
  content: Can I get my money back?
- role: user
  content: And when?
  assertions:
    - type: content_excludes
      params: {patterns: [guarantee]}
"""


def test_content_excludes_on_a_turn_reads_the_conversation_so_far() -> None:
    """PromptKit checks every assistant message up to the turn (its transcript scope)."""
    suite = loads_suite(scenario(TWO_TURNS), filename="s.yaml")
    earlier = Conversation(
        turns=[
            turn("Can I get my money back?", "I guarantee a refund."),
            turn("And when?", "Within five days."),
        ]
    )
    result = suite.cases[0].check(earlier)
    (leaf,) = result.children[1].children
    assert (leaf.name, leaf.status.value, leaf.details["violations"][0]["turn_index"]) == (
        "content_excludes",
        "failed",
        0,
    )
    assert asyncio.run(suite.cases[0].acheck(earlier)).children[1].children[0] == leaf
    later = Conversation(
        turns=[
            turn("Can I get my money back?", "Yes."),
            turn("And when?", "Within five days."),
            turn("Sure?", "I guarantee it."),  # after the checked turn: not read
        ]
    )
    assert suite.cases[0].check(later).status is Status.PASSED


def test_turn_indexes_count_every_turn_of_the_conversation() -> None:
    greeted = Conversation(
        turns=[
            Turn(text="Welcome! I guarantee fast answers."),  # the agent spoke first
            Turn(input="Hi", text="Hello."),
        ]
    )
    result = OnLastTurn(ContentExcludes("guarantee")).check(greeted)
    assert result.children[0].details["violations"][0]["turn_index"] == 0


def test_content_excludes_under_a_selector_reads_each_turns_past() -> None:
    chat = Conversation(
        turns=[Turn(text="fine"), Turn(text="I guarantee it"), Turn(text="fine again")]
    )
    check = OnEveryTurn(ContentExcludes(["guarantee"]))
    statuses = [r.status.value for r in check.check(chat).children]
    assert statuses == ["passed", "failed", "failed"]
    assert [r.status.value for r in asyncio.run(check.acheck(chat)).children] == statuses


def test_a_turn_checked_on_its_own_has_nothing_before_it() -> None:
    result = ContentExcludes(["guarantee"]).check(Turn(text="fine"))
    assert (result.status, result.details) == (
        Status.PASSED,
        {"violations": [], "responses_checked": 1},
    )


def test_a_different_turn_object_does_not_borrow_the_place_of_the_one_checked() -> None:
    """The place is of the turn being checked: a check given another turn reads only it."""
    chat = Conversation(turns=[Turn(text="I guarantee it"), Turn(text="fine")])
    with at_turn(chat.turns, 1):
        assert ContentExcludes("guarantee").check(chat.turns[1]).status is Status.FAILED
        assert ContentExcludes("guarantee").check(Turn(text="fine")).passed


# -- min_length and max_length ----------------------------------------------------------------

test_length_records = records_test(
    [
        ("long-enough", lambda: MinLength(5), "Hello", (
            "passed", "response is at least 5 long",
            {"length": 5, "min": 5, "characters": 5, "origin_message": "length 5, min 5"})),
        ("too-short", lambda: MinLength(6), "Hello", (
            "failed", "Expected the response to be at least 6 long but its length is 5",
            {"length": 5, "min": 6, "characters": 5, "origin_message": "length 5, min 6"})),
        ("bytes-not-characters", lambda: MinLength(6), "Héllo", (
            "passed", "response is at least 6 long",
            {"length": 6, "min": 6, "characters": 5, "origin_message": "length 6, min 6"})),
        ("empty", lambda: MinLength(1), "", (
            "failed", "Expected the response to be at least 1 long but its length is 0",
            {"length": 0, "min": 1, "characters": 0, "origin_message": "length 0, min 1"})),
        ("short-enough", lambda: MaxLength(5), "Hello", (
            "passed", "response is at most 5 long",
            {"length": 5, "max": 5, "characters": 5, "origin_message": "length 5, max 5"})),
        ("too-long", lambda: MaxLength(4), "Hello", (
            "failed", "Expected the response to be at most 4 long but its length is 5",
            {"length": 5, "max": 4, "characters": 5, "origin_message": "length 5, max 4"})),
        ("too-long-in-bytes", lambda: MaxLength(5), "Héllo", (
            "failed", "Expected the response to be at most 5 long but its length is 6",
            {"length": 6, "max": 5, "characters": 5, "origin_message": "length 6, max 5"})),
        ("tokens-ok", lambda: MaxLength(100, max_tokens=2), "12345678901", (
            "passed", "response is at most 100 long and 2 tokens",
            {"length": 11, "max": 100, "characters": 11, "tokens": 2, "max_tokens": 2,
             "origin_message": "length 11, max 100"})),
        ("too-many-tokens", lambda: MaxLength(100, max_tokens=2), "123456789012", (
            "failed",
            "Expected the response to be at most 2 tokens but it is about 3 (length 12 / 4)",
            {"length": 12, "max": 100, "characters": 12, "tokens": 3, "max_tokens": 2,
             "origin_message": "length 12, max 100; tokens ~3, max_tokens 2"})),
        ("both-too-long", lambda: MaxLength(10, max_tokens=2), "123456789012", (
            "failed", "Expected the response to be at most 10 long but its length is 12",
            {"length": 12, "max": 10, "characters": 12, "tokens": 3, "max_tokens": 2,
             "origin_message": "length 12, max 10; tokens ~3, max_tokens 2"})),
    ]
)  # fmt: skip

test_length_refusals = refusals_test(
    [
        ("min-zero", lambda: MinLength(0), ValueError,
         "min_length min must be a positive integer, got 0"),
        ("max-negative", lambda: MaxLength(-3), ValueError,
         "max_length max must be a positive integer, got -3"),
        ("max-bool", lambda: MaxLength(True), TypeError,
         "max_length max must be an integer, got True"),
        ("tokens-zero", lambda: MaxLength(5, max_tokens=0), ValueError,
         "max_length max_tokens must be a positive integer, got 0"),
    ]
)  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "spelt"),
    [
        ({"type": "min_length", "params": {"min_characters": 3}}, {"min": 3}),
        ({"type": "min_length", "params": {"min_chars": 3}}, {"min": 3}),
        ({"type": "max_length", "params": {"max_chars": 9}}, {"max": 9}),
        ({"type": "length", "params": {"max": 9, "max_tokens": 2}}, {"max": 9, "max_tokens": 2}),
    ],
)
def test_the_other_spellings_of_the_lengths_load(spec: dict[str, object], spelt: object) -> None:
    text = scenario(yaml.safe_dump({"assertions": [spec]}), section="assertions")
    (built,) = loads_suite(text, filename="s.yaml").cases[0].turns[0].assertions
    assert built.spec_params() == spelt


# -- tool_args_excluded_session ---------------------------------------------------------------


def test_tool_args_excluded_session_takes_excluded_args() -> None:
    suite = loads_suite(
        scenario(
            """\
            conversation_assertions:
              - type: tool_args_excluded_session
                params: {tool_name: refund, excluded_args: {amount: 5000}}
            """,
            section="spec",
        ),
        filename="s.yaml",
    )
    (check,) = suite.cases[0].checks
    assert isinstance(check, ConversationToolsNotCalledWithArgs)
    refund = Conversation(
        turns=[Turn(input="hi", tool_calls=[ToolCall(name="refund", arguments={"amount": 5000})])]
    )
    result = suite.cases[0].check(refund)
    assert result.children[-1].reason == "forbidden tool args detected"
