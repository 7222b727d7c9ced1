"""Tests of chatassert._guardrails (docs/promptkit.md): GuardrailTriggered's records.

Whole result records of `guardrail_triggered`, with and without a guardrail name, and the
arguments it refuses (G4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from promptkit_decisions_helpers import (
    Build,
    Record,
    records_test,
    refusals_test,
)

from chatassert import GuardrailEvent, GuardrailTriggered, Turn

# guardrail_triggered: details {expected_triggered, actually_triggered, guardrail} (+ the names
# that triggered and that ran). Names match exactly or snake_case <-> PascalCase + Validator.
GUARDED = Turn(
    text="x",
    guardrails=[
        GuardrailEvent(name="BannedWordsValidator"),
        GuardrailEvent(name="max_length", triggered=False),
    ],
)
QUIET = Turn(text="x", guardrails=[GuardrailEvent(name="max_length", triggered=False)])
RAN = ["BannedWordsValidator", "max_length"]


def _guard(expected: bool, actually: bool, name: str | None, fired: list[str]) -> dict[str, Any]:
    ran = RAN if fired else ["max_length"]
    return {
        "expected_triggered": expected,
        "actually_triggered": actually,
        "guardrail": name,
        "triggered_guardrails": fired,
        "guardrails_run": ran,
    }


BANNED = ["BannedWordsValidator"]
TURN_CASES: list[tuple[str, Build, object, Record]] = [
    (
        "guardrail triggered as expected",
        lambda: GuardrailTriggered("banned_words"),
        GUARDED,
        ("passed", "banned_words triggers", _guard(True, True, "banned_words", BANNED)),
    ),
    (
        "guardrail triggered but should not have",
        lambda: GuardrailTriggered("banned_words", expected=False),
        GUARDED,
        (
            "failed",
            "Expected guardrail 'banned_words' not to trigger but it did",
            _guard(False, True, "banned_words", BANNED),
        ),
    ),
    (
        "guardrail ran without flagging",
        lambda: GuardrailTriggered("max_length"),
        GUARDED,
        (
            "failed",
            "Expected guardrail 'max_length' to trigger but it did not",
            _guard(True, False, "max_length", BANNED),
        ),
    ),
    (
        "guardrail not triggered, as expected",
        lambda: GuardrailTriggered("MaxLengthValidator", False),
        GUARDED,
        (
            "passed",
            "MaxLengthValidator does not trigger",
            _guard(False, False, "MaxLengthValidator", BANNED),
        ),
    ),
    (
        "no name, expected: any guardrail flagged",
        lambda: GuardrailTriggered(),
        GUARDED,
        ("passed", "any guardrail triggers", _guard(True, True, None, BANNED)),
    ),
    (
        "no name, not expected: one flagged",
        lambda: GuardrailTriggered(expected=False),
        GUARDED,
        (
            "failed",
            "Expected no guardrail to trigger but 'BannedWordsValidator' did",
            _guard(False, True, None, BANNED),
        ),
    ),
    (
        "no name, expected: none flagged",
        lambda: GuardrailTriggered(),
        QUIET,
        ("failed", "Expected a guardrail to trigger but it did not", _guard(True, False, None, [])),
    ),
    (
        "no name, not expected: none flagged",
        lambda: GuardrailTriggered(expected=False),
        QUIET,
        ("passed", "any guardrail does not trigger", _guard(False, False, None, [])),
    ),
]


test_turn_level_records = records_test(TURN_CASES)


# -- bad arguments fail at construction, naming the check (G4) -----------------------------------

BAD_ARGUMENTS: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    (
        "guardrail blank",
        lambda: GuardrailTriggered("  "),
        ValueError,
        "guardrail must be a non-empty string (or omitted)",
    ),
    (
        "guardrail expected not a bool",
        lambda: GuardrailTriggered("g", expected="no"),  # type: ignore[arg-type]
        TypeError,
        "expected must be true or false, got 'no'",
    ),
]


test_bad_arguments_are_refused_with_a_message = refusals_test(BAD_ARGUMENTS)
