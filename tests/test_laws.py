"""Hypothesis properties: the laws of the four-valued logic, and spec and pickle round trips."""

from __future__ import annotations

import pickle
import string
from typing import Any

from hypothesis import assume, given, settings, strategies as st

from chatassert import (
    AllOf,
    AnyOf,
    Assertion,
    AtLeast,
    Contains,
    ContainsAny,
    ContainsFunctionCall,
    Equals,
    LLMRubric,
    Matches,
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
    from_spec,
)
from chatassert.flat import ContainsAll

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


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


def status(assertion: Assertion) -> Status:
    return assertion.check("subject").status


# -- the logic, over trees of fixed outcomes ------------------------------------------------

fixed = st.sampled_from(list(Status)).map(Fixed)


def _extend(children: st.SearchStrategy[Assertion], min_size: int) -> st.SearchStrategy[Assertion]:
    lists = st.lists(children, min_size=min_size, max_size=3)
    return st.one_of(
        lists.map(lambda cs: AllOf(*cs)),
        lists.map(lambda cs: AnyOf(*cs)),
        children.map(Not),
        st.builds(When, children, children),
        st.builds(When, children, children, children),
        st.lists(children, min_size=1, max_size=3).flatmap(
            lambda cs: st.integers(0, len(cs)).map(lambda n: AtLeast(n, *cs))
        ),
    )


outcomes = st.recursive(fixed, lambda c: _extend(c, 0), max_leaves=8)
# The operators flatten nested groups (`(a & b) & c` is `AllOf(a, b, c)`); they are checked
# over trees without empty groups, the one case where flattening changes an outcome
# (`AllOf() & skipped` flattens to `AllOf(skipped)`, skipped, where `AllOf(AllOf(), skipped)`
# passes).
non_empty = st.recursive(fixed, lambda c: _extend(c, 1), max_leaves=8)


@given(outcomes, outcomes)
def test_de_morgan_for_the_constructors(a: Assertion, b: Assertion) -> None:
    assert status(Not(AllOf(a, b))) is status(AnyOf(Not(a), Not(b)))
    assert status(Not(AnyOf(a, b))) is status(AllOf(Not(a), Not(b)))


@given(non_empty, non_empty)
def test_operators_build_the_same_outcome_as_the_constructors(a: Assertion, b: Assertion) -> None:
    assert status(a & b) is status(AllOf(a, b))
    assert status(a | b) is status(AnyOf(a, b))


@given(outcomes)
def test_double_negation(a: Assertion) -> None:
    assert status(~~a) is status(a)


@given(non_empty, non_empty)
def test_de_morgan_not_and(a: Assertion, b: Assertion) -> None:
    assert status(~(a & b)) is status(~a | ~b)


@given(non_empty, non_empty)
def test_de_morgan_not_or(a: Assertion, b: Assertion) -> None:
    assert status(~(a | b)) is status(~a & ~b)


def test_identities() -> None:
    assert status(AllOf()) is P
    assert status(AnyOf()) is F


@given(outcomes)
def test_a_group_of_one_is_its_member(a: Assertion) -> None:
    # A lone skipped member leaves nothing evaluated: the group is then an empty group.
    assume(status(a) is not S)
    assert status(AllOf(a)) is status(a)
    assert status(AnyOf(a)) is status(a)


@given(outcomes)
def test_the_identity_element_changes_nothing(a: Assertion) -> None:
    # An empty group is a vacuous pass (or fail), not an absent child: next to a skipped
    # assertion it decides the outcome, so the law holds for evaluated outcomes only.
    assume(status(a) is not S)
    assert status(AllOf(a, AllOf())) is status(a)
    assert status(AnyOf(a, AnyOf())) is status(a)


@given(outcomes)
def test_negation_passes_only_what_failed(a: Assertion) -> None:
    inner, negated = status(a), status(~a)
    if negated is P:
        assert inner is F
    if inner is E:
        assert negated is E


@given(st.lists(outcomes, max_size=4), st.randoms(use_true_random=False))
def test_groups_are_commutative(children: list[Assertion], rnd: Any) -> None:
    shuffled = list(children)
    rnd.shuffle(shuffled)
    assert status(AllOf(*children)) is status(AllOf(*shuffled))
    assert status(AnyOf(*children)) is status(AnyOf(*shuffled))


@given(outcomes, outcomes, outcomes)
def test_groups_are_associative(a: Assertion, b: Assertion, c: Assertion) -> None:
    assert status(AllOf(a, AllOf(b, c))) is status(AllOf(AllOf(a, b), c))
    assert status(AnyOf(a, AnyOf(b, c))) is status(AnyOf(AnyOf(a, b), c))


@given(outcomes)
def test_an_error_never_becomes_a_pass_under_negation_of_groups(a: Assertion) -> None:
    if status(a) is E:
        assert status(~AllOf(a)) is E
        assert status(~AnyOf(a)) is E


# -- spec round trips, over trees of flat leaves and combinators ----------------------------

words = st.text(string.ascii_letters + string.digits + " '-é", min_size=1, max_size=12)
names = st.text(string.ascii_lowercase + "_", min_size=1, max_size=10).filter(str.strip)
blank_free = words.filter(str.strip)
word_lists = st.lists(words, min_size=1, max_size=3)
messages = st.none() | st.text(max_size=10)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=6,
)
patterns = st.sampled_from(
    [r"\d{3}-\d{4}", "(?i)table", r"confirmation.*#[A-Z0-9]{6}", "[[:alpha:]]+", "a|b", r"\z"]
)


def _leaf() -> st.SearchStrategy[Assertion]:
    return st.one_of(
        st.builds(Contains, word_lists | words, message=messages),
        st.builds(NotContains, word_lists | words, message=messages),
        st.builds(ContainsAny, word_lists, message=messages),
        st.builds(ContainsAll, word_lists, message=messages),
        st.builds(Equals, blank_free | st.integers(), message=messages),
        st.builds(Matches, patterns, message=messages),
        st.builds(
            ContainsFunctionCall,
            names,
            st.none() | st.dictionaries(names, json_values, min_size=1, max_size=3),
            message=messages,
        ),
        st.builds(
            LLMRubric,
            st.none() | blank_free,
            rubric=blank_free,
            model=st.none() | st.sampled_from(["gpt-4o", "claude"]),
            message=messages,
        ),
    )


def _combine(children: st.SearchStrategy[Assertion]) -> st.SearchStrategy[Assertion]:
    lists = st.lists(children, max_size=3)
    return st.one_of(
        st.builds(lambda cs, m: AllOf(*cs, message=m), lists, messages),
        st.builds(lambda cs, m: AnyOf(*cs, message=m), lists, messages),
        st.builds(Not, children, message=messages),
        st.builds(When, children, children, st.none() | children, message=messages),
        st.lists(children, min_size=1, max_size=3).flatmap(
            lambda cs: st.integers(0, len(cs)).map(lambda n: AtLeast(n, *cs))
        ),
        st.builds(OnTurn, st.integers(-3, 3), children, message=messages),
        st.builds(OnLastTurn, children),
        st.builds(OnEveryTurn, children),
        st.builds(OnAnyTurn, children),
    )


trees = st.recursive(_leaf(), _combine, max_leaves=10)


@given(trees)
@settings(max_examples=200)
def test_specs_round_trip(a: Assertion) -> None:
    rebuilt = from_spec(a.as_spec())
    assert rebuilt == a
    assert type(rebuilt) is type(a)
    assert rebuilt.as_spec() == a.as_spec()
    assert hash(rebuilt) == hash(a)


@given(trees)
def test_pickling_preserves_equality(a: Assertion) -> None:
    assert pickle.loads(pickle.dumps(a)) == a


TURN = Turn(
    text="Your table for 4 is booked, confirmation #AB12CD. Call 555-1234.",
    tool_calls=[ToolCall(name="create_reservation", arguments={"party_size": 4})],
)


@given(_leaf())
def test_a_rebuilt_leaf_checks_the_same(a: Assertion) -> None:
    assert from_spec(a.as_spec()).check(TURN) == a.check(TURN)
