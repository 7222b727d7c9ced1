"""Turn selectors and combinators at their edges: whole result records, checked and async-checked.

Each case pins the record a selector documents (docs/guide.md "Selectors": `OnEveryTurn` is
like `AllOf` over turns, `OnAnyTurn` like `AnyOf`, results name the turn they came from; the
`OnTurn` / `OnLastTurn` docstrings: a conversation without the turn is an error), and the
records of `When` and `AtLeast` (docs/guide.md "Combining" and their docstrings). Found by
mutation testing (docs/internals/mutation.md): before these, the reason, details or children of
these records could change without a failing test.
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
    Not,
    NotContains,
    OnAnyTurn,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    Result,
    Status,
    ToolCall,
    Turn,
    When,
)
from chatassert._budget import BUDGET
from chatassert._errors import RegexTimeoutError
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
                        "threshold": None,
                        "judge_passed": status == "passed",
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


# -- AllOf, AnyOf, Not, and When's condition -----------------------------------------------


class Fixed(Assertion):
    """A user's assertion (docs/guide.md, "Writing your own assertion") whose result is given:
    an error, or a result that names where in the subject it looked (`Result.location`)."""

    __slots__ = ("outcome",)
    kind = "fixed"
    outcome: Result

    def __init__(self, outcome: Result) -> None:
        super().__init__()
        self._set("outcome", outcome)

    def _check(self, subject: object) -> Result:
        return self.outcome


def fixed(status: str, reason: str, location: str | None = None) -> tuple[Fixed, dict[str, Any]]:
    """The assertion, and the record of its result."""
    outcome = Result(Status(status), "fixed", reason, location=location)
    return Fixed(outcome), {
        "status": status,
        "name": "fixed",
        "reason": reason,
        "details": {},
        "location": location,
        "children": [],
    }


BOOM, BOOM_RECORD = fixed("error", "boom")
FAR, FAR_RECORD = fixed("failed", "not here", "turns[1]")
THERE, THERE_RECORD = fixed("passed", "", "turns[1]")


def counts(passed: int = 0, failed: int = 0, error: int = 0, skipped: int = 0) -> dict[str, int]:
    return {"passed": passed, "failed": failed, "error": error, "skipped": skipped}


def group(status: str, name: str, reason: str, details: Any, *children: Any) -> dict[str, Any]:
    return {
        "status": status,
        "name": name,
        "reason": reason,
        "details": details,
        "location": None,
        "children": list(children),
    }


# Every reason is a fragment that nests in longer explanations (`Result.reason`), so a reason
# that quotes a child names where that child looked (its `location`), and one that counts says
# what it counted; the statuses are docs/guide.md's "Combining" table.
BOOLEAN_CASES: list[tuple[str, Assertion, dict[str, Any]]] = [
    (
        "all_of: every child passed, and the reason counts them",
        AllOf(Contains("a"), Contains("a")),
        group("passed", "all_of", "all 2 passed", counts(passed=2), *[contains("a", True)] * 2),
    ),
    (
        "all_of: skipped children are left out, and the reason says how many",
        AllOf(Contains("a"), When(Contains("zz"), Contains("x"))),
        group(
            "passed",
            "all_of",
            "1 passed, 1 skipped",
            counts(passed=1, skipped=1),
            contains("a", True),
            UNMET,
        ),
    ),
    (
        "all_of: the first failure is quoted with where it looked",
        AllOf(FAR),
        group(
            "failed",
            "all_of",
            "1 of 1 failed; first: turns[1]: not here",
            counts(failed=1),
            FAR_RECORD,
        ),
    ),
    (
        "any_of: none passed and one errored: an error quoting it",
        AnyOf(BOOM, Contains("zz")),
        group(
            "error",
            "any_of",
            "none passed and 1 could not be evaluated: boom",
            counts(failed=1, error=1),
            BOOM_RECORD,
            NOT_ZZ,
        ),
    ),
    (
        "any_of: every failure is quoted, each with where it looked",
        AnyOf(FAR, Contains("zz")),
        group(
            "failed",
            "any_of",
            "none of 2 passed: turns[1]: not here; Response does not contain 'zz'",
            counts(failed=2),
            FAR_RECORD,
            NOT_ZZ,
        ),
    ),
    (
        "any_of: the passing child is named with where it looked",
        AnyOf(Contains("zz"), THERE),
        group(
            "passed",
            "any_of",
            "turns[1]: fixed passed",
            counts(passed=1, failed=1),
            NOT_ZZ,
            THERE_RECORD,
        ),
    ),
    (
        "any_of: nothing evaluated fails like AnyOf(), and says that all were skipped",
        AnyOf(When(Contains("zz"), Contains("x"))),
        group(
            "failed", "any_of", "nothing was evaluated (all 1 skipped)", counts(skipped=1), UNMET
        ),
    ),
    (
        "any_of: no alternatives fails",
        AnyOf(),
        group("failed", "any_of", "no alternatives", counts()),
    ),
    (
        "not: a child that failed passes, and says what did not hold",
        Not(Contains("zz")),
        group("passed", "not", "not contains 'zz'", {}, NOT_ZZ),
    ),
    (
        # a judge's own reason is kept after the requirement (the comment in `Not._negate`)
        "not: a child that held fails, keeping the judge's reason",
        Not(LLMRubric("Is polite", judge=POLITE)),
        group(
            "failed",
            "not",
            "expected not llm_rubric 'Is polite', but it held (the judge passed it)",
            {},
            {
                "status": "passed",
                "name": "llm_rubric",
                "reason": "the judge passed it",
                "details": {
                    "rubric": "Is polite",
                    "model": None,
                    "verdict": {"passed": True, "score": None, "reason": ""},
                    "judge": "polite",
                    "threshold": None,
                    "judge_passed": True,
                },
                "location": None,
                "children": [],
            },
        ),
    ),
    (
        "when: a condition that errored is an error, with the condition inside",
        When(BOOM, Contains("a")),
        group("error", "when", "the condition could not be evaluated: boom", {}, BOOM_RECORD),
    ),
    (
        "when: a condition that was skipped skips, with the condition inside",
        When(When(Contains("zz"), Contains("x")), Contains("a")),
        group(
            "skipped",
            "when",
            "the condition was skipped: condition not met: Response does not contain 'zz'",
            {},
            UNMET,
        ),
    ),
]


@pytest.mark.parametrize(("assertion", "expected"), [c[1:] for c in BOOLEAN_CASES],
                         ids=[c[0] for c in BOOLEAN_CASES])  # fmt: skip
def test_boolean_records(assertion: Assertion, expected: Any) -> None:
    for result in (assertion.check("a please"), asyncio.run(assertion.acheck("a please"))):
        assert record(result) == expected


def test_groups_say_whether_a_judge_is_inside() -> None:
    """`needs_judge`: "Whether any child may call a judge" (`_Group.needs_judge`), nested too."""
    judged = LLMRubric("Is polite", judge=POLITE)
    assert AllOf(Contains("a"), judged).needs_judge()
    assert AnyOf(AllOf(judged)).needs_judge()
    assert AtLeast(1, Contains("a"), judged).needs_judge()
    assert not AllOf(Contains("a"), Contains("b")).needs_judge()


A, B = Contains("a"), Contains("b")


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: AtLeast(1), ValueError, "at_least needs at least one assertion"),
        (lambda: AtLeast(1.5, A, B), ValueError, "n must be a non-negative integer, got 1.5"),
        (lambda: AtLeast(True, A), ValueError, "n must be a non-negative integer, got True"),
        (lambda: AtLeast("1", A), ValueError, "n must be a non-negative integer, got '1'"),
        (lambda: Not("a"), TypeError, "Not takes an assertion, got str"),
        (lambda: When("a", A), TypeError, "When condition must be an assertion, got str"),
        (lambda: When(A, "b"), TypeError, "When then must be an assertion, got str"),
        (lambda: When(A, B, ["c"]), TypeError, "When otherwise must be an assertion, got list"),
        (lambda: OnEveryTurn("a"), TypeError, "OnEveryTurn takes an assertion, got str"),
        (lambda: OnLastTurn(3), TypeError, "OnLastTurn takes an assertion, got int"),
        (lambda: AllOf(A, "b"), TypeError, "AllOf takes assertions, got str"),
        (lambda: AnyOf([A], B), TypeError, "AnyOf takes assertions, got list"),
        (lambda: AllOf(A, colour=[B]), TypeError, "AllOf got unexpected arguments ['colour']"),
    ],
)
def test_bad_arguments_are_named(build: Any, error: type[Exception], message: str) -> None:
    """Bad arguments fail when the assertion is built, naming the argument and what was found
    (SEMANTICS G4); `True` is not the count 1."""
    with pytest.raises(error) as raised:
        build()
    assert type(raised.value) is error
    assert str(raised.value) == message


# -- the base class: crashes, the regex budget, timing, operators (found by mutation testing) --


class Crashing(Assertion):
    """Crashes while checking (a test double; not registered)."""

    kind = "crashing"

    def _check(self, subject: object) -> Result:
        raise ValueError("boom")


CRASHED = Result(
    Status.ERROR,
    "crashing",
    "could not be evaluated: ValueError: boom",
    {"error": "ValueError", "error_message": "boom"},
)


def test_a_crashing_check_is_an_error_record_naming_the_exception() -> None:
    # the `Assertion.check` docstring: the reason and details of a crash
    assert Crashing().check("x") == CRASHED
    assert asyncio.run(Crashing().acheck("x")) == CRASHED
    assert AllOf(Crashing()).check("x").children == (CRASHED,)


class BudgetProbe(Assertion):
    """Reports the regex budget its check sees: `spent` if one is open, else None."""

    kind = "budget_probe"

    def _check(self, subject: object) -> Result:
        budget = BUDGET.get()
        return Result(Status.PASSED, self.kind, "", {"budget": budget and budget.spent})


class SearchingProbe(BudgetProbe):
    options = ("regex_timeout",)


class JudgedProbe(BudgetProbe):
    judged = True


class JudgedSearchingProbe(SearchingProbe):
    judged = True


@pytest.mark.parametrize(
    ("probe", "opens"),
    [
        (BudgetProbe(), False),
        (SearchingProbe(), True),
        (JudgedProbe(), False),
        (JudgedSearchingProbe(), True),
        (AllOf(BudgetProbe()), True),
    ],
    ids=["leaf", "regex_timeout", "judged", "judged-regex_timeout", "group"],
)
def test_a_check_that_may_search_opens_the_regex_budget_and_closes_it(
    probe: Assertion, opens: bool
) -> None:
    """`Assertion._searches` and `_budget`: a check with a `regex_timeout` option (or a
    combinator) opens the budget its searches share, by `check` or `acheck`, and closes it; a
    check that runs no regular expression leaves a nested check to open its own."""

    def seen(result: Result) -> object:
        leaf = result.children[0] if result.children else result
        return leaf.details["budget"]

    assert seen(probe.check("x")) == (0.0 if opens else None)
    assert BUDGET.get() is None

    async def in_a_task() -> tuple[Result, object]:
        result = await probe.acheck("x")
        return result, BUDGET.get()

    result, after = asyncio.run(in_a_task())
    assert (seen(result), after) == ((0.0 if opens else None), None)


def test_the_check_after_a_quick_test_timed_out_gets_what_was_left() -> None:
    # the `_check_after_timeout` docstring: the full evaluation draws on the same limit
    timeout = RegexTimeoutError("pattern 'a+' did not finish", "a+", 0.25)
    result = BudgetProbe()._check_after_timeout("x", timeout)
    assert result.details == {"budget": 0.25}
    assert BUDGET.get() is None


def test_acheck_records_the_time_the_check_took(monkeypatch: pytest.MonkeyPatch) -> None:
    # Result docstring: `duration` is the seconds spent, measured for `acheck` and judged checks
    clock = iter([100.0, 100.25, 200.0, 200.5])
    monkeypatch.setattr("chatassert._base.perf_counter", lambda: next(clock))
    assert asyncio.run(BudgetProbe().acheck("x")).duration == 0.25
    assert JudgedProbe(message="timed").check("x").duration == 0.5
