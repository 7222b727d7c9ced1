"""Records and transcripts shared by the PromptKit family tests (docs/promptkit.md).

Used by test_promptkit_content.py, test_promptkit_names.py, test_promptkit_args.py,
test_promptkit_judged.py and test_guardrails.py in this directory, which import it as
`from promptkit_decisions_helpers import ...` (pytest puts the test file's directory on sys.path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chatassert import Assertion, Conversation, ToolCall, Turn

Record = tuple[str, str, dict[str, Any]]
# Table rows build their check when the test runs: a check caches its description, and a
# check shared between test runs would keep the description of the first.
Build = Callable[[], Assertion]


def record(check: Assertion | Build, subject: object) -> Record:
    """The parts of a result a user sees: status, reason and details (and its name, the kind)."""
    if not isinstance(check, Assertion):
        check = check()
    result = check.check(subject)
    assert result.name == check.kind
    return result.status.value, result.reason, dict(result.details)


def refused_with(build: Callable[[], object], error: type[Exception], message: str) -> None:
    """Building the check raises `error` whose text is exactly `message` (G4)."""
    with pytest.raises(error) as caught:
        build()
    assert str(caught.value) == message


def records_test(cases: list[tuple[str, Build, Any, Record]]) -> Callable[..., None]:
    """A test over `(id, build, subject, record)` rows: each check gives exactly its record.

    A test file binds it to its own name (`test_turn_level_records = records_test(...)`).
    """

    @pytest.mark.parametrize(
        ("check", "subject", "expected"), [pytest.param(c, s, e, id=n) for n, c, s, e in cases]
    )
    def test(check: Build, subject: object, expected: Record) -> None:
        assert record(check, subject) == expected

    return test


def refusals_test(
    cases: list[tuple[str, Callable[[], object], type[Exception], str]],
) -> Callable[..., None]:
    """A test over `(id, build, error, message)` rows: building each check is refused (G4)."""

    @pytest.mark.parametrize(
        ("build", "error", "message"), [pytest.param(b, e, m, id=n) for n, b, e, m in cases]
    )
    def test(build: Callable[[], object], error: type[Exception], message: str) -> None:
        refused_with(build, error, message)

    return test


# Conversations of refund calls, read by the tools-and-agents and the tool-argument tests.
INVALID_JSON = ToolCall(name="refund", arguments="{oops")
JSON_ERROR = INVALID_JSON.arguments_error
REFUNDS = Conversation(
    turns=[
        Turn(
            tool_calls=[
                ToolCall(name="refund", arguments={"amount": 5, "note": "a"}),
                ToolCall(name="search", arguments={"q": "x"}),
            ]
        ),
        Turn(tool_calls=[ToolCall(name="refund", arguments={"amount": 5000, "currency": "EUR"})]),
        Turn(tool_calls=[ToolCall(name="refund", arguments={"amount": "7"})]),
    ]
)
# An invalid call first, then a call without the argument, then one with it.
WITH_INVALID = Conversation(
    turns=[
        Turn(
            tool_calls=[
                INVALID_JSON,
                ToolCall(name="refund", arguments={"note": "x"}),
                ToolCall(name="refund", arguments={"amount": 1}),
            ]
        )
    ]
)
