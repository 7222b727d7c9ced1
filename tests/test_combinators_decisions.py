"""Turn selectors and combinators at their edges: whole result records, checked and async-checked.

Each case pins the record a selector documents (docs/guide.md "Selectors": `OnEveryTurn` is
like `AllOf` over turns, `OnAnyTurn` like `AnyOf`, results name the turn they came from; the
`OnTurn` / `OnLastTurn` docstrings: a conversation without the turn is an error), and the
records of `When` and `AtLeast` (docs/guide.md "Combining" and their docstrings). Found by
mutation testing (docs/mutation.md): before these, the reason, details or children of these
records could change without a failing test.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from chatassert import (
    AllOf,
    AnyOf,
    Assertion,
    AtLeast,
    Contains,
    ContainsFunctionCall,
    Conversation,
    LLMRubric,
    NotContains,
    OnAnyTurn,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    Result,
    ToolCall,
    Turn,
    When,
)
from chatassert.judges import FunctionJudge


def record(result: Result) -> dict[str, Any]:
    """The observable fields of a result tree (everything but its duration)."""
    return {
        "status": result.status.value,
        "name": result.name,
        "reason": result.reason,
        "details": dict(result.details),
        "location": result.location,
        "children": [record(child) for child in result.children],
    }


def called(*names: str) -> Turn:
    return Turn(text="done", tool_calls=[ToolCall(name=n) for n in names])


# Three turns whose failures all read differently, so a reason names which turn it came from.
THREE = Conversation(turns=[called("a"), called("b"), called("c")])
EMPTY = Conversation(turns=[])

# Arguments that are not valid JSON make an argument check an error (SEMANTICS G7).
BROKEN = ToolCall(name="x", arguments='{"a":')
BROKEN_REASON = (
    "tool 'x' was called with arguments that are not valid JSON "
    "(arguments are not valid JSON: Expecting value: line 1 column 6 (char 5))"
)
UNREADABLE = Conversation(
    turns=[
        Turn(text="done", tool_calls=[BROKEN]),
        Turn(text="done", tool_calls=[ToolCall(name="x", arguments={"a": 1})]),
        Turn(text="done", tool_calls=[BROKEN]),
    ]
)
POLITE = FunctionJudge(lambda request: "please" in request.response.lower(), name="polite")


def leaf(status: str, reason: str, details: dict[str, Any], at: int) -> dict[str, Any]:
    return {
        "status": status,
        "name": "contains_function_call",
        "reason": reason,
        "details": details,
        "location": f"turns[{at}]",
        "children": [],
    }


def missing_x(at: int, tool: str) -> dict[str, Any]:
    return leaf(
        "failed",
        f"Expected tool 'x', found: ['{tool}']",
        {"tool": "x", "called_tools": [tool]},
        at,
    )


def unreadable_details() -> dict[str, Any]:
    return {
        "tool": "x",
        "arguments": {"a": 1},
        "called_tools": ["x"],
        "calls": [
            {
                "arguments": '{"a":',
                "error": "arguments are not valid JSON: Expecting value: line 1 column 6 (char 5)",
            }
        ],
    }


CASES: list[tuple[str, Assertion, Conversation, dict[str, Any]]] = [
    (
        "on_every_turn: the failed turns are listed, the first is quoted",
        OnEveryTurn(ContainsFunctionCall("b")),
        THREE,
        {
            "status": "failed",
            "name": "on_every_turn",
            "reason": (
                "2 of 3 turns failed (turns[0], turns[2]); "
                "first: turns[0]: Expected tool 'b', found: ['a']"
            ),
            "details": {"passed": 1, "failed": 2, "error": 0, "skipped": 0},
            "location": None,
            "children": [
                leaf(
                    "failed",
                    "Expected tool 'b', found: ['a']",
                    {"tool": "b", "called_tools": ["a"]},
                    0,
                ),
                leaf("passed", "calls b", {"tool": "b"}, 1),
                leaf(
                    "failed",
                    "Expected tool 'b', found: ['c']",
                    {"tool": "b", "called_tools": ["c"]},
                    2,
                ),
            ],
        },
    ),
    (
        "on_every_turn: errored turns could not be evaluated, like AllOf",
        OnEveryTurn(ContainsFunctionCall("x", {"a": 1})),
        UNREADABLE,
        {
            "status": "error",
            "name": "on_every_turn",
            "reason": (
                "2 of 3 turns could not be evaluated (turns[0], turns[2]); "
                f"first: turns[0]: {BROKEN_REASON}"
            ),
            "details": {"passed": 1, "failed": 0, "error": 2, "skipped": 0},
            "location": None,
            "children": [
                leaf("error", BROKEN_REASON, unreadable_details(), 0),
                leaf(
                    "passed",
                    "calls x with {'a': 1}",
                    {"tool": "x", "arguments": {"a": 1}},
                    1,
                ),
                leaf("error", BROKEN_REASON, unreadable_details(), 2),
            ],
        },
    ),
    (
        "on_every_turn: every turn passed, and the reason counts them",
        OnEveryTurn(Contains("done")),
        THREE,
        {
            "status": "passed",
            "name": "on_every_turn",
            "reason": "3 of 3 turns passed",
            "details": {"passed": 3, "failed": 0, "error": 0, "skipped": 0},
            "location": None,
            "children": [
                {
                    **leaf("passed", "contains 'done'", {"expected": "done", "missing": []}, i),
                    "name": "contains",
                }
                for i in range(3)
            ],
        },
    ),
    (
        # check() on a judged assertion runs its own event loop (docs/guide.md, "Judged
        # assertions"): one loop for every turn of the selector, the same record as acheck.
        "on_every_turn: a judged child is checked synchronously too",
        OnEveryTurn(LLMRubric("Is polite", judge=POLITE)),
        Conversation(turns=[Turn(text="Please wait."), Turn(text="Go away.")]),
        {
            "status": "failed",
            "name": "on_every_turn",
            "reason": "1 of 2 turns failed (turns[1]); first: turns[1]: the judge failed it",
            "details": {"passed": 1, "failed": 1, "error": 0, "skipped": 0},
            "location": None,
            "children": [
                {
                    "status": status,
                    "name": "llm_rubric",
                    "reason": f"the judge {status} it",
                    "details": {
                        "rubric": "Is polite",
                        "model": None,
                        "verdict": {"passed": status == "passed", "score": None, "reason": ""},
                        "judge": "polite",
                    },
                    "location": f"turns[{i}]",
                    "children": [],
                }
                for i, status in enumerate(["passed", "failed"])
            ],
        },
    ),
    (
        "on_any_turn: no turn passed, the reason quotes the last turn",
        OnAnyTurn(ContainsFunctionCall("x")),
        THREE,
        {
            "status": "failed",
            "name": "on_any_turn",
            "reason": "none of 3 turns passed; last: turns[2]: Expected tool 'x', found: ['c']",
            "details": {"passed": 0, "failed": 3, "error": 0, "skipped": 0},
            "location": None,
            "children": [missing_x(0, "a"), missing_x(1, "b"), missing_x(2, "c")],
        },
    ),
    (
        "on_any_turn: the first passing turn is named",
        OnAnyTurn(ContainsFunctionCall("b")),
        THREE,
        {
            "status": "passed",
            "name": "on_any_turn",
            "reason": "turns[1] passed",
            "details": {"passed": 1, "failed": 2, "error": 0, "skipped": 0},
            "location": None,
            "children": [
                leaf(
                    "failed",
                    "Expected tool 'b', found: ['a']",
                    {"tool": "b", "called_tools": ["a"]},
                    0,
                ),
                leaf("passed", "calls b", {"tool": "b"}, 1),
                leaf(
                    "failed",
                    "Expected tool 'b', found: ['c']",
                    {"tool": "b", "called_tools": ["c"]},
                    2,
                ),
            ],
        },
    ),
    (
        "on_any_turn: no turns fails, like AnyOf()",
        OnAnyTurn(Contains("x")),
        EMPTY,
        {
            "status": "failed",
            "name": "on_any_turn",
            "reason": "the conversation has no turns",
            "details": {"passed": 0, "failed": 0, "error": 0, "skipped": 0},
            "location": None,
            "children": [],
        },
    ),
    (
        "on_last_turn: the last turn is checked and named",
        OnLastTurn(ContainsFunctionCall("x")),
        THREE,
        {
            "status": "failed",
            "name": "on_last_turn",
            "reason": "Expected tool 'x', found: ['c']",
            "details": {},
            "location": None,
            "children": [missing_x(2, "c")],
        },
    ),
    (
        "on_last_turn: no turns is an error",
        OnLastTurn(Contains("x")),
        EMPTY,
        {
            "status": "error",
            "name": "on_last_turn",
            "reason": "the conversation has no turns",
            "details": {"turns": 0},
            "location": None,
            "children": [],
        },
    ),
    (
        "on_turn: the turn is checked and named",
        OnTurn(1, ContainsFunctionCall("x")),
        THREE,
        {
            "status": "failed",
            "name": "on_turn",
            "reason": "Expected tool 'x', found: ['b']",
            "details": {},
            "location": None,
            "children": [missing_x(1, "b")],
        },
    ),
    (
        "on_turn: a turn the conversation does not have is an error",
        OnTurn(5, Contains("x")),
        THREE,
        {
            "status": "error",
            "name": "on_turn",
            "reason": "the conversation has no turn 5 (it has 3 turns)",
            "details": {"index": 5, "turns": 3},
            "location": None,
            "children": [],
        },
    ),
]


@pytest.mark.parametrize(("assertion", "subject", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_selector_records(assertion: Assertion, subject: Conversation, expected: Any) -> None:
    assert record(assertion.check(subject)) == expected


@pytest.mark.parametrize(("assertion", "subject", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_selector_records_async(assertion: Assertion, subject: Conversation, expected: Any) -> None:
    """`acheck` gives the same records as `check` (the Assertion contract, docs/guide.md)."""
    assert record(asyncio.run(assertion.acheck(subject))) == expected


# -- When and AtLeast ----------------------------------------------------------------------

NOT_ZZ = {
    "status": "failed",
    "name": "contains",
    "reason": "Response does not contain 'zz'",
    "details": {"expected": "zz", "missing": ["zz"]},
    "location": None,
    "children": [],
}
UNMET = {  # When without `otherwise` whose condition failed: skipped, with the condition inside
    "status": "skipped",
    "name": "when",
    "reason": "condition not met: Response does not contain 'zz'",
    "details": {},
    "location": None,
    "children": [NOT_ZZ],
}


def contains(letter: str, passed: bool) -> dict[str, Any]:
    return {
        "status": "passed" if passed else "failed",
        "name": "contains",
        "reason": f"contains '{letter}'" if passed else f"Response does not contain '{letter}'",
        "details": {"expected": letter, "missing": [] if passed else [letter]},
        "location": None,
        "children": [],
    }


GROUP_CASES: list[tuple[str, Assertion, dict[str, Any], float | None]] = [
    (
        "when: a failed condition without otherwise skips, and keeps the condition's result",
        When(Contains("zz"), Contains("a")),
        UNMET,
        None,
    ),
    (
        # "The score is the fraction of counted children that passed" (AtLeast docstring);
        # skipped children are left out (docs/guide.md, "Combining"): 1 of 2 counted, not of 3.
        "at_least: skipped children are not counted in the score",
        AtLeast(1, Contains("a"), When(Contains("zz"), Contains("x")), Contains("b")),
        {
            "status": "passed",
            "name": "at_least",
            "reason": "1 of 3 passed (needed 1)",
            "details": {"passed": 1, "failed": 1, "error": 0, "skipped": 1, "needed": 1},
            "location": None,
            "children": [contains("a", True), UNMET, contains("b", False)],
        },
        0.5,
    ),
    (
        # n may be 0 (AtLeast: "n must be a non-negative integer"); with every child skipped
        # nothing was counted, so there is no fraction to give.
        "at_least: nothing counted has no score",
        AtLeast(0, When(Contains("zz"), Contains("x"))),
        {
            "status": "passed",
            "name": "at_least",
            "reason": "0 of 1 passed (needed 0)",
            "details": {"passed": 0, "failed": 0, "error": 0, "skipped": 1, "needed": 0},
            "location": None,
            "children": [UNMET],
        },
        None,
    ),
]


@pytest.mark.parametrize(("assertion", "expected", "score"), [c[1:] for c in GROUP_CASES],
                         ids=[c[0] for c in GROUP_CASES])  # fmt: skip
def test_group_records(assertion: Assertion, expected: Any, score: float | None) -> None:
    for result in (assertion.check("a"), asyncio.run(assertion.acheck("a"))):
        assert record(result) == expected
        assert result.score == score


def test_descriptions_name_every_part() -> None:
    """`describe()` is one line naming what is required (docs/guide.md, "Assertions and
    results"; `_Group.describe`: "the group and its children")."""
    a, b, z = Contains("a"), Contains("b"), NotContains("z")
    assert AllOf(a, b).describe() == "all_of(contains 'a', contains 'b')"
    assert AnyOf(a, b, z).describe() == "any_of(contains 'a', contains 'b', does not contain 'z')"
    assert AtLeast(1, a, b).describe() == "at_least(1, contains 'a', contains 'b')"
    assert When(a, b).describe() == "when contains 'a' then contains 'b'"
    assert When(a, b, z).describe() == (
        "when contains 'a' then contains 'b' else does not contain 'z'"
    )


@pytest.mark.parametrize(("index", "kind"), [("1", "str"), (True, "bool"), (1.0, "float")])
def test_on_turn_index_must_be_an_integer(index: Any, kind: str) -> None:
    """Bad arguments fail when the assertion is built, naming what was found (SEMANTICS G4);
    `True` is not the turn 1."""
    with pytest.raises(TypeError) as raised:
        OnTurn(index, Contains("a"))
    assert str(raised.value) == f"index must be an integer, got {kind}"
