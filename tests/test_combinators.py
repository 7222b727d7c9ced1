"""Combinators over the four outcomes, the operators, and the turn selectors."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from chatassert import (
    AllOf,
    AnyOf,
    Assertion,
    AtLeast,
    Contains,
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
    Turn,
    When,
    from_spec,
)
from chatassert.testing import FakeJudge

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED
ALL_STATUSES = (P, F, E, S)


class Fixed(Assertion):
    """Always comes out with the same status (a test double; not registered)."""

    __slots__ = ("status",)
    kind = "fixed"
    status: Status

    def __init__(self, status: Status) -> None:
        super().__init__()
        self._set("status", status)

    def _check(self, subject: object) -> Result:
        return Result(self.status, "fixed", f"it {self.status.value}")

    def describe(self) -> str:
        return f"fixed {self.status.value}"


def status_of(assertion: Assertion) -> Status:
    return assertion.check("anything").status


def pairs() -> list[tuple[Status, Status]]:
    return list(itertools.product(ALL_STATUSES, repeat=2))


# -- AllOf ------------------------------------------------------------------------------------

ALL_OF = {
    (P, P): P,
    (P, F): F,
    (P, E): E,
    (P, S): P,
    (F, P): F,
    (F, F): F,
    (F, E): F,
    (F, S): F,
    (E, P): E,
    (E, F): F,
    (E, E): E,
    (E, S): E,
    (S, P): P,
    (S, F): F,
    (S, E): E,
    (S, S): P,  # nothing evaluated: vacuously true, like AllOf()
}


@pytest.mark.parametrize(("a", "b"), pairs())
def test_all_of_truth_table(a: Status, b: Status) -> None:
    assert status_of(AllOf(Fixed(a), Fixed(b))) is ALL_OF[a, b]
    assert status_of(Fixed(a) & Fixed(b)) is ALL_OF[a, b]


def test_all_of_reason_names_the_first_failure() -> None:
    result = AllOf(Contains("table"), Contains("saturday"), Contains("window")).check("A table")
    assert result.reason == "2 of 3 failed; first: Response does not contain 'saturday'"
    assert result.details == {"passed": 1, "failed": 2, "error": 0, "skipped": 0}
    assert [c.status for c in result.children] == [P, F, F]


def test_all_of_with_an_error_says_so() -> None:
    result = AllOf(Fixed(P), Fixed(E)).check("x")
    assert result.reason == "1 of 2 could not be evaluated: it error"


def test_all_of_evaluates_every_child_after_a_failure() -> None:
    result = AllOf(Fixed(F), Fixed(P), Fixed(E)).check("x")
    assert len(result.children) == 3


# -- AnyOf ------------------------------------------------------------------------------------

ANY_OF = {
    (P, P): P,
    (P, F): P,
    (P, E): P,
    (P, S): P,
    (F, P): P,
    (F, F): F,
    (F, E): E,
    (F, S): F,
    (E, P): P,
    (E, F): E,
    (E, E): E,
    (E, S): E,
    (S, P): P,
    (S, F): F,
    (S, E): E,
    (S, S): F,  # nothing evaluated: no alternative held, like AnyOf()
}


@pytest.mark.parametrize(("a", "b"), pairs())
def test_any_of_truth_table(a: Status, b: Status) -> None:
    assert status_of(AnyOf(Fixed(a), Fixed(b))) is ANY_OF[a, b]
    assert status_of(Fixed(a) | Fixed(b)) is ANY_OF[a, b]


def test_any_of_failure_lists_every_reason() -> None:
    result = AnyOf(Contains("open"), Contains("available")).check("Please hold")
    assert result.status is F
    assert result.reason == (
        "none of 2 passed: Response does not contain 'open'; Response does not contain 'available'"
    )


def test_empty_groups_are_the_identities() -> None:
    assert status_of(AllOf()) is P
    assert status_of(AnyOf()) is F


# -- Not --------------------------------------------------------------------------------------

NOT = {P: F, F: P, E: E, S: S}


@pytest.mark.parametrize("a", ALL_STATUSES)
def test_not_truth_table(a: Status) -> None:
    assert status_of(Not(Fixed(a))) is NOT[a]
    assert status_of(~Fixed(a)) is NOT[a]


def test_not_explains_what_held() -> None:
    result = (~Contains("goodbye")).check("Goodbye!")
    assert result.status is F
    assert result.reason == "expected not contains 'goodbye', but it held"
    assert result.children[0].status is P


def test_not_keeps_the_reason_of_an_error() -> None:
    assert Not(Fixed(E)).check("x").reason == "it error"


# -- When -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cond", "then"), pairs())
def test_when_without_otherwise(cond: Status, then: Status) -> None:
    result = When(Fixed(cond), Fixed(then)).check("x")
    expected = {P: then, F: S, E: E, S: S}[cond]
    assert result.status is expected
    if cond is P:
        assert result.details == {"branch": "then"}
        assert [c.status for c in result.children] == [P, then]


@pytest.mark.parametrize(("cond", "otherwise"), pairs())
def test_when_with_otherwise(cond: Status, otherwise: Status) -> None:
    result = When(Fixed(cond), Fixed(P), Fixed(otherwise)).check("x")
    expected = {P: P, F: otherwise, E: E, S: S}[cond]
    assert result.status is expected
    if cond is F:
        assert result.details == {"branch": "else"}


def test_when_explains_a_skip() -> None:
    result = When(Contains("refund"), Contains("5 business days")).check("Hello")
    assert result.status is S
    assert result.reason == "condition not met: Response does not contain 'refund'"


def test_when_does_not_check_the_branch_it_does_not_take() -> None:
    judge = FakeJudge()  # any request would exhaust it
    rule = When(Contains("refund"), LLMRubric("Explains the refund", judge=judge))
    assert rule.check("Hello").status is S
    assert judge.requests == []


# -- AtLeast ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statuses", "n", "expected"),
    [
        ((P, P, F), 2, P),
        ((P, F, F), 2, F),
        ((P, E, F), 2, E),
        ((P, E, E), 3, E),
        ((F, E, F), 2, F),
        ((S, P, P), 2, P),
        ((S, P, F), 2, F),
        ((F, F), 0, P),
    ],
)
def test_at_least(statuses: tuple[Status, ...], n: int, expected: Status) -> None:
    result = AtLeast(n, *(Fixed(s) for s in statuses)).check("x")
    assert result.status is expected
    assert result.details["needed"] == n


def test_at_least_scores_the_fraction_that_passed() -> None:
    result = AtLeast(1, Contains("a"), Contains("b"), Contains("z")).check("ab")
    assert result.score == pytest.approx(2 / 3)
    assert result.reason == "2 of 3 passed (needed 1)"


def test_at_least_rejects_an_impossible_n() -> None:
    with pytest.raises(ValueError, match="could never pass"):
        AtLeast(3, Contains("a"), Contains("b"))
    with pytest.raises(ValueError, match="non-negative"):
        AtLeast(-1, Contains("a"))


# -- operators --------------------------------------------------------------------------------


def test_and_flattens_nested_all_of() -> None:
    a, b, c = Contains("a"), Contains("b"), Contains("c")
    combined = a & b & c
    assert type(combined) is AllOf
    assert combined.children == (a, b, c)
    assert (a & (b & c)).children == (a, b, c)


def test_or_flattens_nested_any_of() -> None:
    a, b, c = Contains("a"), Contains("b"), Contains("c")
    assert (a | b | c).children == (a, b, c)
    assert (a | (b | c)).children == (a, b, c)


def test_groups_take_their_children_as_arguments_or_as_one_list() -> None:
    # the `_Group` docstring
    a, b = Contains("a"), Contains("b")
    assert AllOf([a, b]).children == (a, b)
    assert AnyOf((a, b)).children == (a, b)
    assert AllOf([a]).children == (a,)


def test_operators_do_not_flatten_a_labelled_group() -> None:
    a, b, c = Contains("a"), Contains("b"), Contains("c")
    labelled = AllOf(a, b, message="greets")
    assert (labelled & c).children == (labelled, c)
    assert ((a & b) | c).children == (AllOf(a, b), c)


def test_invert_builds_not() -> None:
    a = Contains("a")
    assert ~a == Not(a)
    assert ~~a == Not(Not(a))


def test_operators_reject_non_assertions() -> None:
    with pytest.raises(TypeError):
        Contains("a") & "b"  # type: ignore[operator]
    with pytest.raises(TypeError):
        Contains("a") | 3  # type: ignore[operator]


def test_bool_raises_with_the_whole_advice() -> None:
    with pytest.raises(TypeError) as raised:
        bool(NotContains("a"))
    assert str(raised.value) == (
        "NotContains has no truth value: to combine assertions use `a & b` (all of), "
        "`a | b` (any of) and `~a` (not) instead of and/or/not; "
        "to test a subject use assertion.check(subject).passed"
    )


class TwoParams(Fixed):
    """Describes itself by the base rule (a test double; not registered)."""

    kind = "two_params"
    describe = Assertion.describe

    def spec_params(self) -> dict[str, object]:
        return {"text": "a", "n": 2}


def test_describe_is_the_kind_with_its_spec_parameters() -> None:
    # the `Assertion.describe` docstring; a pass without a reason of its own gives it
    assert TwoParams(P).describe() == "two_params(text='a', n=2)"
    assert TwoParams(P)._held() == "two_params(text='a', n=2)"


def test_assertions_hash_by_their_spec() -> None:
    # equal specs hash alike; different ones spread (a set or dict of assertions stays fast)
    assert hash(Contains("a")) == hash(Contains("a"))
    words = [f"word{i}" for i in range(50)]
    assert len({hash(Contains(w)) for w in words}) == len(words)


def test_remember_keeps_at_most_memo_size_outcomes() -> None:
    # the `remember` docstring: kept while the memo is under MEMO_SIZE
    from chatassert._base import MEMO_SIZE, remember

    memo: dict[object, Result] = {}
    outcome = Result(F, "x")
    for key in range(MEMO_SIZE + 5):
        assert remember(memo, key, outcome) is outcome
    assert len(memo) == MEMO_SIZE
    assert list(memo) == list(range(MEMO_SIZE))


def test_bool_raises_with_advice() -> None:
    with pytest.raises(TypeError, match=r"`a & b` \(all of\), `a \| b` \(any of\)"):
        bool(Contains("a"))
    with pytest.raises(TypeError, match=r"check\(subject\)\.passed"):
        Contains("a") and Contains("b")


def test_groups_take_only_assertions() -> None:
    with pytest.raises(TypeError, match="takes assertions"):
        AllOf(Contains("a"), "b")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be an assertion"):
        When("a", Contains("b"))  # type: ignore[arg-type]


def test_a_message_labels_the_result() -> None:
    result = AllOf(Contains("a"), message="greets the guest").check("b")
    assert result.message == "greets the guest"
    assert result.label == "greets the guest"


def test_combinator_specs_round_trip() -> None:
    rule = When(
        Contains("refund"),
        AtLeast(1, Contains("days"), ~NotContains("weeks")),
        otherwise=AnyOf(Contains("x")),
        message="refund rule",
    )
    assert from_spec(rule.as_spec()) == rule
    assert rule.as_spec()["if"] == {"type": "contains", "value": "refund"}


# -- selectors --------------------------------------------------------------------------------

CHAT = Conversation(
    turns=[
        Turn(text="Hello, how can I help?"),
        Turn(text="A table is available at 19:30."),
        Turn(text="Booked. Goodbye!"),
    ]
)


def test_on_turn_names_the_turn() -> None:
    result = OnTurn(1, Contains("available")).check(CHAT)
    assert result.status is P
    assert result.children[0].location == "turns[1]"


def test_on_turn_counts_from_the_end() -> None:
    result = OnTurn(-1, Contains("goodbye")).check(CHAT)
    assert result.status is P
    assert result.children[0].location == "turns[2]"


def test_on_turn_beyond_the_conversation_is_an_error() -> None:
    result = OnTurn(5, Contains("x")).check(CHAT)
    assert result.status is E
    assert result.reason == "the conversation has no turn 5 (it has 3 turns)"


def test_on_last_turn() -> None:
    assert OnLastTurn(Contains("goodbye")).check(CHAT).children[0].location == "turns[2]"
    assert OnLastTurn(Contains("x")).check(Conversation()).status is E


def test_on_every_turn_names_the_failing_turns() -> None:
    result = OnEveryTurn(NotContains("goodbye")).check(CHAT)
    assert result.status is F
    assert result.reason == (
        "1 of 3 turns failed (turns[2]); first: turns[2]: Response should not contain 'goodbye'"
    )
    assert [c.location for c in result.children] == ["turns[0]", "turns[1]", "turns[2]"]
    assert OnEveryTurn(Contains("x")).check(Conversation()).status is P


def test_on_any_turn() -> None:
    result = OnAnyTurn(Contains("available")).check(CHAT)
    assert (result.status, result.reason) == (P, "turns[1] passed")
    failed = OnAnyTurn(Contains("refund")).check(CHAT)
    assert failed.status is F
    assert failed.reason.startswith("none of 3 turns passed; last: turns[2]:")
    assert OnAnyTurn(Contains("x")).check(Conversation()).status is F


def test_a_selector_accepts_a_single_turn_or_string() -> None:
    assert OnLastTurn(Contains("hi")).check("hi there").children[0].location == "turns[0]"


def test_selectors_compose_with_combinators() -> None:
    rule = OnEveryTurn(NotContains("password")) & OnLastTurn(Contains("goodbye"))
    assert rule.check(CHAT).passed


# -- acheck -----------------------------------------------------------------------------------


def tree_with_judges() -> Assertion:
    judge = FakeJudge(
        by_criteria={
            "polite": {"passed": True, "reason": "polite"},
            "brief": {"passed": False, "reason": "rambles"},
        }
    )
    return AllOf(
        OnEveryTurn(LLMRubric("polite", judge=judge)),
        AnyOf(OnLastTurn(LLMRubric("brief", judge=judge)), OnAnyTurn(Contains("booked"))),
        OnLastTurn(When(Contains("x"), Fixed(E), Fixed(S))),
        ~OnTurn(0, Contains("goodbye")),
        AtLeast(1, Fixed(F), Fixed(P)),
    )


def test_acheck_gives_the_same_results_as_check() -> None:
    sync = tree_with_judges().check(CHAT)
    asynchronous = asyncio.run(tree_with_judges().acheck(CHAT))
    assert asynchronous == sync
    assert sync.status is P
    assert [c.status for c in sync.children] == [P, P, S, P, P]


@pytest.mark.parametrize(("a", "b"), pairs())
def test_acheck_matches_check_for_every_outcome(a: Status, b: Status) -> None:
    for rule in (
        AllOf(Fixed(a), Fixed(b)),
        AnyOf(Fixed(a), Fixed(b)),
        Not(Fixed(a)),
        When(Fixed(a), Fixed(b)),
        AtLeast(1, Fixed(a), Fixed(b)),
    ):
        assert asyncio.run(rule.acheck("x")) == rule.check("x")


def test_at_least_of_nothing_is_rejected_as_it_could_only_pass_vacuously() -> None:
    import pytest

    from chatassert import AtLeast, SpecError, from_spec

    with pytest.raises(ValueError, match="at least one assertion"):
        AtLeast(0)
    with pytest.raises(SpecError, match="needs at least one assertion"):
        from_spec({"type": "at_least", "n": 0, "assertions": []})
