"""Laws of grounded_in_tool_results, as Hypothesis properties.

- Adding a tool result never turns a pass into a failure (more evidence only grounds more).
- A response whose claims are all copied from a result passes.
- A response with no digits, no quotes and no capitals states nothing to ground: skipped.
"""

from __future__ import annotations

from hypothesis import given, strategies as st

from chatassert import Status, ToolResult, Turn
from chatassert.policies import GroundedInToolResults

CHECK = GroundedInToolResults()
words = st.text(alphabet="abcdefgh ,.!", max_size=30)
numbers = st.one_of(
    st.integers(min_value=0, max_value=10**9).map(str),
    st.integers(min_value=1000, max_value=10**9).map(lambda n: f"{n:,}"),
    st.decimals(min_value=0, max_value=10**6, places=2).map(str),
)
ids = st.from_regex(r"[A-Z]{2,4}-[0-9]{1,6}", fullmatch=True)
quotes = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=20).map(lambda s: f'"{s}"')
claims = st.lists(st.one_of(numbers, ids, quotes), max_size=5)
results = st.lists(st.text(max_size=40), max_size=3)


@given(words, claims, results, st.text(max_size=40))
def test_adding_a_result_never_turns_a_pass_into_a_failure(
    filler: str, said: list[str], before: list[str], extra: str
) -> None:
    text = " ; ".join([filler, *said])
    turn = Turn(text=text, tool_results=[ToolResult(content=c) for c in before])
    more = turn.model_copy(update={"tool_results": (*turn.tool_results, ToolResult(content=extra))})
    if CHECK.check(turn).status is Status.PASSED:
        assert CHECK.check(more).status is Status.PASSED


@given(words, st.lists(st.one_of(numbers, ids, quotes), min_size=1, max_size=5), results)
def test_claims_copied_from_a_result_pass(filler: str, said: list[str], other: list[str]) -> None:
    text = " ; ".join([filler, *said])
    copied = " | ".join(s.strip('"') for s in said)
    turn = Turn(
        text=text,
        tool_results=[*(ToolResult(content=c) for c in other), ToolResult(content=copied)],
    )
    result = CHECK.check(turn)
    assert result.status is Status.PASSED, result.reason


@given(words, results)
def test_nothing_to_ground_is_skipped(filler: str, before: list[str]) -> None:
    turn = Turn(text=filler, tool_results=[ToolResult(content=c) for c in before])
    assert CHECK.check(turn).status is Status.SKIPPED
