"""Tests of chatassert._promptkit_args (docs/promptkit.md): tool_calls_with_args and its forms.

Whole result records of tool_calls_with_args (turn and conversation) and
tools_not_called_with_args, arguments that are not JSON (G7), regex timeouts (G8), and the
arguments they refuse (G4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from promptkit_decisions_helpers import (
    JSON_ERROR,
    REFUNDS,
    WITH_INVALID,
    Build,
    Record,
    record,
    records_test,
    refusals_test,
)

from chatassert import Conversation, ToolCall, Turn
from chatassert.promptkit import (
    ConversationToolCallsWithArgs,
    ConversationToolsNotCalledWithArgs,
    ToolCallsWithArgs,
)

# -- conversation level: tool arguments ------------------------------------------------------------


def _arg_violation(index: int, name: str, arg: str, value: object) -> dict[str, Any]:
    return {
        "turn_index": index,
        "description": f"tool '{name}' was called with forbidden {arg}={value!r}",
        "evidence": {
            "tool": name,
            "argument": arg,
            "value": value,
            "arguments": {"amount": 5000, "currency": "EUR"} if index == 1 else {arg: value},
        },
    }


CONVERSATION_CASES: list[tuple[str, Build, Conversation, Record]] = [
    # tools_not_called_with_args: no call has a forbidden value (G9); a value or a list of them
    (
        "tools_not_called_with_args: one violation per forbidden argument",
        lambda: ConversationToolsNotCalledWithArgs(
            "refund", {"amount": [1000, 5000], "currency": "EUR"}
        ),
        REFUNDS,
        (
            "failed",
            "forbidden tool args detected",
            {
                "violations": [
                    _arg_violation(1, "refund", "amount", 5000),
                    _arg_violation(1, "refund", "currency", "EUR"),
                ]
            },
        ),
    ),
    (
        "tools_not_called_with_args: no tool_name means any tool",
        lambda: ConversationToolsNotCalledWithArgs(forbidden_args={"q": "x"}),
        REFUNDS,
        (
            "failed",
            "forbidden tool args detected",
            {"violations": [_arg_violation(0, "search", "q", "x")]},
        ),
    ),
    (
        "tools_not_called_with_args: loose equality, and an absent argument is no violation",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"note": "zzz", "amount": 7}),
        REFUNDS,
        (
            "failed",
            "forbidden tool args detected",
            {"violations": [_arg_violation(2, "refund", "amount", "7")]},
        ),
    ),
    (
        "tools_not_called_with_args pass",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"zz": None, "amount": 6}),
        REFUNDS,
        ("passed", "refund called with {'zz': None, 'amount': 6}", {"violations": []}),
    ),
    (
        "tools_not_called_with_args pass for any tool",
        lambda: ConversationToolsNotCalledWithArgs(forbidden_args={"q": "y"}),
        REFUNDS,
        ("passed", "no tool called with {'q': 'y'}", {"violations": []}),
    ),
    (
        "tools_not_called_with_args: a call that is not JSON cannot be checked (G7 error)",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"amount": 5}),
        WITH_INVALID,
        (
            "error",
            "tool calls with arguments that are not valid JSON could not be checked",
            {
                "violations": [],
                "invalid_calls": [{"turn_index": 0, "tool": "refund", "error": JSON_ERROR}],
            },
        ),
    ),
    (
        "tools_not_called_with_args: a violation decides even next to an invalid call",
        lambda: ConversationToolsNotCalledWithArgs("refund", {"amount": 1}),
        WITH_INVALID,
        (
            "failed",
            "forbidden tool args detected",
            {
                "violations": [
                    {
                        "turn_index": 0,
                        "description": "tool 'refund' was called with forbidden amount=1",
                        "evidence": {
                            "tool": "refund",
                            "argument": "amount",
                            "value": 1,
                            "arguments": {"amount": 1},
                        },
                    }
                ],
                "invalid_calls": [{"turn_index": 0, "tool": "refund", "error": JSON_ERROR}],
            },
        ),
    ),
]


def _args_violation(
    index: int, arguments: dict[str, Any], kind: str, arg: str, description: str, **extra: Any
) -> dict[str, Any]:
    return {
        "type": kind,
        "tool": "refund",
        "argument": arg,
        **extra,
        "turn_index": index,
        "description": description,
        "evidence": {"tool": "refund", "arguments": arguments},
    }


FIRST, SECOND, THIRD = (
    {"amount": 5, "note": "a"},
    {"amount": 5000, "currency": "EUR"},
    {"amount": "7"},
)
CONVERSATION_CASES += [
    # tool_calls_with_args: some call satisfies every requirement; on failure
    # `tool argument violations` with {tool, expected, actual, violations}, `actual` being the
    # arguments of the closest call (the one with the fewest violations)
    (
        "tool_calls_with_args pass: actual is the matching call",
        lambda: ConversationToolCallsWithArgs("refund", {"amount": 5000}),
        REFUNDS,
        (
            "passed",
            "calls refund(amount=5000)",
            {
                "tool": "refund",
                "expected": {"amount": 5000},
                "matching_calls": 1,
                "actual": SECOND,
                "violations": [],
            },
        ),
    ),
    (
        "tool_calls_with_args pass with args_match",
        lambda: ConversationToolCallsWithArgs("refund", args_match={"amount": "^7$"}),
        REFUNDS,
        (
            "passed",
            "calls refund(amount~/^7$/)",
            {
                "tool": "refund",
                "expected": {},
                "args_match": {"amount": "^7$"},
                "matching_calls": 1,
                "actual": THIRD,
                "violations": [],
            },
        ),
    ),
    (
        "tool_calls_with_args never called",
        lambda: ConversationToolCallsWithArgs("missing", {"a": 1}, args_match={"b": "x"}),
        REFUNDS,
        (
            "failed",
            "tool 'missing' was not called",
            {
                "tool": "missing",
                "expected": {"a": 1},
                "args_match": {"b": "x"},
                "actual": None,
                "violations": [],
                "called_tools": ["refund", "search"],
            },
        ),
    ),
    (
        "tool_calls_with_args fail: every call's violations, actual of the closest call",
        lambda: ConversationToolCallsWithArgs("refund", {"amount": 5000, "currency": "USD"}),
        REFUNDS,
        (
            "failed",
            "tool argument violations",
            {
                "tool": "refund",
                "expected": {"amount": 5000, "currency": "USD"},
                "matching_calls": 0,
                "actual": SECOND,
                "violations": [
                    _args_violation(
                        0,
                        FIRST,
                        "value_mismatch",
                        "amount",
                        "Expected 'refund' argument 'amount' to be 5000 but got 5",
                        expected=5000,
                        actual=5,
                    ),
                    _args_violation(
                        0,
                        FIRST,
                        "missing_argument",
                        "currency",
                        "Expected 'refund' to be called with argument 'currency' but it was "
                        "not given",
                    ),
                    _args_violation(
                        1,
                        SECOND,
                        "value_mismatch",
                        "currency",
                        "Expected 'refund' argument 'currency' to be 'USD' but got 'EUR'",
                        expected="USD",
                        actual="EUR",
                    ),
                    _args_violation(
                        2,
                        THIRD,
                        "value_mismatch",
                        "amount",
                        "Expected 'refund' argument 'amount' to be 5000 but got '7'",
                        expected=5000,
                        actual="7",
                    ),
                    _args_violation(
                        2,
                        THIRD,
                        "missing_argument",
                        "currency",
                        "Expected 'refund' to be called with argument 'currency' but it was "
                        "not given",
                    ),
                ],
            },
        ),
    ),
    (
        "tool_calls_with_args match=all: one call without the argument fails",
        lambda: ConversationToolCallsWithArgs("refund", {"amount": None}, match="all"),
        WITH_INVALID,
        (
            "failed",
            "tool argument violations",
            {
                "tool": "refund",
                "expected": {"amount": None},
                "matching_calls": 1,
                "actual": "{oops",  # closest: fewest violations, the first of equals
                "violations": [
                    {
                        "type": "invalid_args_json",
                        "tool": "refund",
                        "argument": None,
                        "error": JSON_ERROR,
                        "turn_index": 0,
                        "description": "'refund' was called with arguments that are not valid "
                        f"JSON ({JSON_ERROR})",
                        "evidence": {"tool": "refund", "arguments": "{oops"},
                    },
                    {
                        "type": "missing_argument",
                        "tool": "refund",
                        "argument": "amount",
                        "turn_index": 0,
                        "description": "Expected 'refund' to be called with argument 'amount' "
                        "but it was not given",
                        "evidence": {"tool": "refund", "arguments": {"note": "x"}},
                    },
                ],
            },
        ),
    ),
]


test_conversation_level_tool_records = records_test(CONVERSATION_CASES)


# -- a regex timeout on one call leaves the others' records intact (G8) --------------------------

SLOW = {"q": "a" * 40 + "!"}  # `(a|aa)+$` backtracks for far longer than 50 ms on this


def test_conversation_args_pass_reports_the_matching_call_not_the_timed_out_one() -> None:
    """`actual` on a pass holds the arguments of a call that satisfied the requirements."""
    conv = Conversation(
        turns=[
            Turn(tool_calls=[ToolCall(name="get", arguments=SLOW)]),
            Turn(tool_calls=[ToolCall(name="get", arguments={"q": "hello world"})]),
        ]
    )
    check = ConversationToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, regex_timeout=0.05
    )
    assert record(check, conv) == (
        "passed",
        "calls get(q~/(a|aa)+$|world/)",
        {
            "tool": "get",
            "expected": {},
            "args_match": {"q": "(a|aa)+$|world"},
            "matching_calls": 1,
            "actual": {"q": "hello world"},
            "violations": [],
        },
    )


def test_conversation_args_match_all_fails_on_a_decided_call_beside_a_timed_out_one() -> None:
    """match=all: a call that violates decides the failure even when another call's pattern
    ran out of time; the violation carries that call's turn_index."""
    conv = Conversation(
        turns=[
            Turn(tool_calls=[ToolCall(name="get", arguments=SLOW)]),
            Turn(tool_calls=[ToolCall(name="get", arguments={"q": "hello"})]),
        ]
    )
    check = ConversationToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, match="all", regex_timeout=0.05
    )
    assert record(check, conv) == (
        "failed",
        "tool argument violations",
        {
            "tool": "get",
            "expected": {},
            "args_match": {"q": "(a|aa)+$|world"},
            "matching_calls": 0,
            "actual": {"q": "hello"},
            "violations": [
                {
                    "type": "pattern_mismatch",
                    "tool": "get",
                    "argument": "q",
                    "pattern": "(a|aa)+$|world",
                    "actual": "hello",
                    "turn_index": 1,
                    "description": "Expected 'get' argument 'q' to match /(a|aa)+$|world/ "
                    "but got 'hello'",
                    "evidence": {"tool": "get", "arguments": {"q": "hello"}},
                }
            ],
        },
    )


def test_conversation_args_timeout_alone_is_an_error_naming_the_pattern() -> None:
    """G7/G8: a pattern that ran out of time and no other call decides: `error`."""
    conv = Conversation(turns=[Turn(tool_calls=[ToolCall(name="get", arguments=SLOW)])])
    check = ConversationToolCallsWithArgs("get", args_match={"q": "(a|aa)+$"}, regex_timeout=0.05)
    assert record(check, conv) == (
        "error",
        "pattern '(a|aa)+$' did not finish within 0.05s on a text of 41 characters",
        {"pattern": "(a|aa)+$", "error": "timeout"},
    )
    assert check.check(conv).name == "conversation_tool_calls_with_args"


def test_turn_args_match_all_counts_only_decided_calls_as_not_matching() -> None:
    """match=all: the reason counts the calls that violate; an undecided (timed-out) call is
    neither a match nor a violation."""
    calls = Turn(
        tool_calls=[
            ToolCall(name="get", arguments=SLOW),
            ToolCall(name="get", arguments={"q": "world"}),
            ToolCall(name="get", arguments={"q": "hello"}),
        ]
    )
    check = ToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, match="all", regex_timeout=0.05
    )
    status, reason, details = record(check, calls)
    assert (status, reason, details["matching_calls"]) == (
        "failed",
        "1 of 3 calls do not match: Expected 'get' argument 'q' to match /(a|aa)+$|world/ "
        "but got 'hello'",
        1,
    )
    assert [v["actual"] for v in details["violations"]] == ["hello"]


# -- tool_calls_with_args at turn level: {violations, matching_calls} ----------------------------

NOT_JSON = ToolCall(name="get", arguments="{oops")
INVALID = {"type": "invalid_args_json", "tool": "get", "argument": None, "error": JSON_ERROR}
HELLO = {
    "type": "pattern_mismatch",
    "tool": "get",
    "argument": "q",
    "pattern": "world",
    "actual": "hello",
}
NOT_WORLD = "Expected 'get' argument 'q' to match /world/ but got 'hello'"


def _calls(*arguments: dict[str, Any] | ToolCall) -> Turn:
    return Turn(
        tool_calls=[
            a if isinstance(a, ToolCall) else ToolCall(name="get", arguments=a) for a in arguments
        ]
    )


ARGS_CASES: list[tuple[str, Build, Turn, Record]] = [
    # args_match reads a value's string rendering: a string itself, else its JSON (unescaped)
    (
        "args_match on numbers, lists and mappings",
        lambda: ToolCallsWithArgs(
            "get", args_match={"n": "^5$", "tags": 'é"\\]$', "o": '^\\{"k": 1\\}$'}
        ),
        _calls({"n": 5, "tags": ["café"], "o": {"k": 1}}),
        (
            "passed",
            'calls get(n~/^5$/, tags~/é"\\]$/, o~/^\\{"k": 1\\}$/)',
            {"violations": [], "matching_calls": 1},
        ),
    ),
    (
        "values and patterns together",
        lambda: ToolCallsWithArgs("get", {"n": 5}, args_match={"q": "x"}),
        _calls({"n": 5, "q": "xy"}),
        ("passed", "calls get(n=5, q~/x/)", {"violations": [], "matching_calls": 1}),
    ),
    (
        "an argument a pattern needs is missing",
        lambda: ToolCallsWithArgs("get", {"n": 5}, args_match={"q": "x"}),
        _calls({"n": 5}),
        (
            "failed",
            "Expected 'get' argument 'q' to match /x/ but it was not given",
            {
                "violations": [
                    {
                        "type": "missing_argument_for_pattern",
                        "tool": "get",
                        "argument": "q",
                        "pattern": "x",
                    }
                ],
                "matching_calls": 0,
            },
        ),
    ),
    # G7: arguments that are not valid JSON make the check `error` unless a call decides: with
    # `any` only a match decides; with `all` a real violation does. The reason names a real
    # violation first.
    (
        "any: invalid JSON beside a violation is an error",
        lambda: ToolCallsWithArgs("get", args_match={"q": "world"}),
        _calls(NOT_JSON, {"q": "hello"}),
        ("error", NOT_WORLD, {"violations": [INVALID, HELLO], "matching_calls": 0}),
    ),
    (
        "all: a violation decides beside invalid JSON",
        lambda: ToolCallsWithArgs("get", args_match={"q": "world"}, match="all"),
        _calls(NOT_JSON, {"q": "hello"}),
        ("failed", NOT_WORLD, {"violations": [INVALID, HELLO], "matching_calls": 0}),
    ),
    (
        "all: invalid JSON beside a match is an error",
        lambda: ToolCallsWithArgs("get", {"q": None}, match="all"),
        _calls(NOT_JSON, {"q": 1}),
        (
            "error",
            "1 of 2 calls do not match: 'get' was called with arguments that are not valid "
            f"JSON ({JSON_ERROR})",
            {"violations": [INVALID], "matching_calls": 1},
        ),
    ),
    (
        "all: no call matches, so no count in the reason",
        lambda: ToolCallsWithArgs("get", {"q": "hi"}, match="all"),
        _calls({"q": "x"}, {"q": "y"}),
        (
            "failed",
            "Expected 'get' argument 'q' to be 'hi' but got 'x'",
            {
                "violations": [
                    {
                        "type": "value_mismatch",
                        "tool": "get",
                        "argument": "q",
                        "expected": "hi",
                        "actual": v,
                    }
                    for v in ("x", "y")
                ],
                "matching_calls": 0,
            },
        ),
    ),
    # G8: with `any`, a violation does not decide; a timeout elsewhere leaves it undecided
    (
        "any: a timeout beside a violation is an error",
        lambda: ToolCallsWithArgs("get", args_match={"q": "(a|aa)+$|world"}, regex_timeout=0.05),
        _calls(SLOW, {"q": "hello"}),
        (
            "error",
            "pattern '(a|aa)+$|world' did not finish within 0.05s on a text of 41 characters",
            {"pattern": "(a|aa)+$|world", "error": "timeout"},
        ),
    ),
]


test_turn_level_tool_calls_with_args_records = records_test(ARGS_CASES)


# -- bad arguments fail at construction, naming the check (G4) -----------------------------------

BAD_ARGUMENTS: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    (
        "forbidden_args empty",
        lambda: ConversationToolsNotCalledWithArgs("t", {}),
        ValueError,
        "tools_not_called_with_args needs a non-empty forbidden_args mapping",
    ),
    (
        "forbidden_args missing",
        lambda: ConversationToolsNotCalledWithArgs("t"),
        ValueError,
        "tools_not_called_with_args needs a non-empty forbidden_args mapping",
    ),
    (
        "forbidden_args empty list",
        lambda: ConversationToolsNotCalledWithArgs("t", {"a": []}),
        ValueError,
        "forbidden_args.a is an empty list, which no value matches; list the forbidden values, "
        "or give one value",
    ),
    (
        "tool_name not a string",
        lambda: ConversationToolsNotCalledWithArgs(3, {"a": 1}),  # type: ignore[arg-type]
        TypeError,
        "tool_name must be a string, got int",
    ),
    (
        "tool_name blank",
        lambda: ToolCallsWithArgs("  ", {"a": 1}),
        ValueError,
        "tool_calls_with_args needs a non-empty tool_name",
    ),
    (
        "tool_name not a string",
        lambda: ConversationToolCallsWithArgs(5, {"a": 1}),  # type: ignore[arg-type]
        ValueError,
        "conversation_tool_calls_with_args needs a non-empty tool_name",
    ),
    (
        "match neither any nor all",
        lambda: ToolCallsWithArgs("t", {"a": 1}, match="some"),
        ValueError,
        "match must be 'any' or 'all', got 'some'",
    ),
    (
        "expected arguments not a mapping",
        lambda: ConversationToolCallsWithArgs("t", [1]),  # type: ignore[arg-type]
        TypeError,
        "expected arguments must be a mapping, got list",
    ),
    (
        "args_match not a mapping",
        lambda: ToolCallsWithArgs("t", args_match=["q"]),  # type: ignore[arg-type]
        TypeError,
        "args_match must be a mapping, got list",
    ),
    (
        "args_match pattern empty",
        lambda: ToolCallsWithArgs("t", args_match={"q": ""}),
        ValueError,
        "args_match.q pattern must not be empty",
    ),
]


test_bad_arguments_are_refused_with_a_message = refusals_test(BAD_ARGUMENTS)
