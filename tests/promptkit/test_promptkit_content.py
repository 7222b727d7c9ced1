"""Tests of chatassert._promptkit_content (docs/promptkit.md): content_includes, content_matches.

Whole result records (status, reason, details) of the content checks at turn and conversation
level, and the arguments they refuse (G4, G7, G10, G11).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from promptkit_decisions_helpers import (
    Build,
    Record,
    records_test,
    refusals_test,
    refused_with,
)
from promptkit_helpers import chat, turn

from chatassert import Conversation
from chatassert.promptkit import (
    ContentIncludes,
    ConversationContentIncludes,
    ConversationContentIncludesAny,
    ConversationContentMatches,
    ConversationContentNotIncludes,
)

# -- turn level ---------------------------------------------------------------------------------

TURN_CASES: list[tuple[str, Build, object, Record]] = [
    # content_includes: all patterns, case-insensitive; details {missing_patterns} (+ patterns)
    (
        "content_includes pass",
        lambda: ContentIncludes(["Paris", "france"]),
        "PARIS, France",
        (
            "passed",
            "response contains 'Paris', 'france'",
            {"patterns": ["Paris", "france"], "missing_patterns": []},
        ),
    ),
    (
        "content_includes fail names every missing pattern",
        lambda: ContentIncludes(["Paris", "France", "Spain"]),
        "paris",
        (
            "failed",
            "Expected the response to contain 'France', 'Spain' but it does not",
            {"patterns": ["Paris", "France", "Spain"], "missing_patterns": ["France", "Spain"]},
        ),
    ),
]


test_turn_level_records = records_test(TURN_CASES)


# -- conversation level: content ----------------------------------------------------------------

ORDERS = chat(
    turn("u1", "Your Order shipped"),
    turn("u2", "Order #12345 is late, order again"),
    turn("u3", "Refund issued"),
)
LONG = "x" * 60 + "secret" + "y" * 60 + "secret" + "z" * 10
SNIPPET = "…" + "x" * 40 + "secret" + "y" * 40 + "…"


def _found(index: int, pattern: str, snippet: str) -> dict[str, Any]:
    return {
        "turn_index": index,
        "description": f"forbidden content '{pattern}' found",
        "evidence": {"pattern": pattern, "snippet": snippet},
    }


def _no_response(patterns: list[str], missing: list[str], closest: int | None) -> Record:
    checked = 0 if closest is None else 3
    return (
        "failed",
        "no response contained all patterns",
        {
            "patterns": patterns,
            "responses_checked": checked,
            "missing_patterns": missing,
            "closest_turn_index": closest,
        },
    )


CONTENT_CASES: list[tuple[str, Build, Conversation, Record]] = [
    # content_includes: one assistant message contains all patterns, case-insensitive
    (
        "content_includes pass names the message",
        lambda: ConversationContentIncludes(["order", "#12345"]),
        ORDERS,
        (
            "passed",
            "a response contains all of 'order', '#12345'",
            {"patterns": ["order", "#12345"], "turn_index": 1},
        ),
    ),
    (
        "content_includes fail: the closest message and what it misses",
        lambda: ConversationContentIncludes(["order", "late", "refund"]),
        ORDERS,
        _no_response(["order", "late", "refund"], ["refund"], 1),
    ),
    (
        "content_includes fail: the first of equally close messages",
        lambda: ConversationContentIncludes(["zz", "yy"]),
        ORDERS,
        _no_response(["zz", "yy"], ["zz", "yy"], 0),
    ),
    (
        "content_includes fail without any response",
        lambda: ConversationContentIncludes(["a"]),
        Conversation(turns=[]),
        _no_response(["a"], ["a"], None),
    ),
    # content_includes_any: case_sensitive default false
    (
        "content_includes_any pass",
        lambda: ConversationContentIncludesAny(["credit", "REFUND"]),
        ORDERS,
        (
            "passed",
            "a response contains one of 'credit', 'REFUND'",
            {"patterns": ["credit", "REFUND"], "matched_pattern": "REFUND", "turn_index": 2},
        ),
    ),
    (
        "content_includes_any case-sensitive fail",
        lambda: ConversationContentIncludesAny(["REFUND"], case_sensitive=True),
        ORDERS,
        (
            "failed",
            "no response contained required patterns",
            {"patterns": ["REFUND"], "case_sensitive": True, "responses_checked": 3},
        ),
    ),
    (
        "content_includes_any case-sensitive pass",
        lambda: ConversationContentIncludesAny(["Refund"], case_sensitive=True),
        ORDERS,
        (
            "passed",
            "a response contains one of 'Refund'",
            {"patterns": ["Refund"], "matched_pattern": "Refund", "turn_index": 2},
        ),
    ),
    # content_not_includes: one violation per (message, pattern) with a snippet
    (
        "content_not_includes fail",
        lambda: ConversationContentNotIncludes(["ORDER", "refund"]),
        ORDERS,
        (
            "failed",
            "forbidden content detected",
            {
                "violations": [
                    _found(0, "ORDER", "Your Order shipped"),
                    _found(1, "ORDER", "Order #12345 is late, order again"),
                    _found(2, "refund", "Refund issued"),
                ]
            },
        ),
    ),
    (
        "content_not_includes case-sensitive",
        lambda: ConversationContentNotIncludes(["Order"], case_sensitive=True),
        chat(turn("u1", "your order"), turn("u2", "Order #1")),
        ("failed", "forbidden content detected", {"violations": [_found(1, "Order", "Order #1")]}),
    ),
    (
        "content_not_includes pass",
        lambda: ConversationContentNotIncludes(["zz"]),
        ORDERS,
        (
            "passed",
            "no response contains 'zz'",
            {"violations": [], "responses_checked": 3},
        ),
    ),
    (
        "content_not_includes snippet: 40 characters around the first occurrence",
        lambda: ConversationContentNotIncludes(["secret"]),
        chat(turn("u", LONG)),
        ("failed", "forbidden content detected", {"violations": [_found(0, "secret", SNIPPET)]}),
    ),
    (
        "content_not_includes snippet at the start of the message",
        lambda: ConversationContentNotIncludes(["SECRET"]),
        chat(turn("u", "secret" + "y" * 60)),
        (
            "failed",
            "forbidden content detected",
            {"violations": [_found(0, "SECRET", "secret" + "y" * 40 + "…")]},
        ),
    ),
]


test_conversation_level_content_records = records_test(CONTENT_CASES)


# -- content_matches at conversation level --------------------------------------------------------

MATCH_CASES: list[tuple[str, Build, Conversation, Record]] = [
    # passes when some assistant message matches; on pass {pattern, matched, turn_index, match}
    (
        "content_matches pass",
        lambda: ConversationContentMatches(r"#\d{5,}"),
        chat(turn("u", "Hi"), turn("u", "Order #12345 shipped")),
        (
            "passed",
            "some response matches /#\\d{5,}/",
            {"pattern": r"#\d{5,}", "matched": True, "turn_index": 1, "match": "#12345"},
        ),
    ),
    (
        "content_matches fail",
        lambda: ConversationContentMatches(r"#\d{6,}"),
        chat(turn("u", "Hi"), turn("u", "Order #12345 shipped")),
        (
            "failed",
            "no response matched pattern",
            {"pattern": r"#\d{6,}", "matched": False, "responses_checked": 2},
        ),
    ),
    (
        "content_matches timeout",
        lambda: ConversationContentMatches("(a|aa)+$", regex_timeout=0.05),
        chat(turn("x", "a" * 40 + "!")),
        (
            "error",
            "pattern '(a|aa)+$' did not finish within 0.05s on a text of 41 characters",
            {"pattern": "(a|aa)+$", "error": "timeout"},
        ),
    ),
]


test_conversation_content_matches_records = records_test(MATCH_CASES)


# -- bad arguments fail at construction, naming the check (G4) -----------------------------------

BAD_ARGUMENTS: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    (
        "content_includes empty",
        lambda: ContentIncludes([]),
        ValueError,
        "content_includes needs at least one value, got an empty list",
    ),
    (
        "conversation content_includes empty",
        lambda: ConversationContentIncludes([]),
        ValueError,
        "conversation_content_includes needs at least one value, got an empty list",
    ),
    (
        "case_sensitive not a bool",
        lambda: ConversationContentIncludesAny(["a"], case_sensitive="yes"),  # type: ignore[arg-type]
        TypeError,
        "case_sensitive must be true or false, got 'yes'",
    ),
]


test_bad_arguments_are_refused_with_a_message = refusals_test(BAD_ARGUMENTS)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: ConversationContentMatches(""),
            "conversation_content_matches pattern must not be empty",
        ),
    ],
)
def test_judged_and_pattern_arguments_are_refused_with_a_message(
    build: Callable[[], object], message: str
) -> None:
    """G4: an empty pattern, a blank or missing criteria/rubric is refused when built."""
    refused_with(build, ValueError, message)
