"""Laws of the run-metadata checks, as Hypothesis properties.

- A limit is monotone: passing at `n` implies passing at every larger limit, failing at `n`
  implies failing at every smaller one (`TokensAtMost(total=n)` ⇒ `TokensAtMost(total=n+1)`).
- A conversation that passes `CostAtMost(x)` (its turns all logged a cost) has every turn pass
  `CostAtMost(x)`; the sum of the turns' limits bounds the conversation's.
- A fact not logged is never a pass: a conversation with a turn that lacks it, and no figure of
  its own, fails or is an error.
- `ModelIs` holds on a conversation exactly when it holds on every turn (all turns logged one).
"""

from __future__ import annotations

from hypothesis import given, strategies as st

from chatassert import Conversation, Status, Turn
from chatassert.usage import CostAtMost, LatencyAtMost, ModelIs, TokensAtMost

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR

counts = st.integers(min_value=0, max_value=10**6)
amounts = st.one_of(counts, st.floats(min_value=0, max_value=1e6, allow_nan=False))
maybe = st.one_of(st.none(), counts)


@st.composite
def token_turns(draw: st.DrawFn) -> Turn:
    metadata = {
        key: value
        for key in ("input_tokens", "output_tokens", "total_tokens")
        if (value := draw(maybe)) is not None
    }
    return Turn(text="ok", metadata=metadata)


def chat(turns: list[Turn]) -> Conversation:
    return Conversation(turns=turns)


@given(
    st.lists(token_turns(), min_size=1, max_size=4),
    counts,
    st.sampled_from(["input", "output", "total"]),
)
def test_token_limits_are_monotone(turns: list[Turn], n: int, which: str) -> None:
    c = chat(turns)
    here = TokensAtMost(**{which: n}).check(c).status
    above = TokensAtMost(**{which: n + 1}).check(c).status
    below = TokensAtMost(**{which: max(n - 1, 0)}).check(c).status
    if here is P:
        assert above is P
    if here is F:
        assert below is F
    if here is E:  # not logged: no limit decides it, unless the known part exceeds it
        assert above in (E, F)
        assert below in (E, F)


@given(st.lists(amounts, min_size=1, max_size=5), amounts)
def test_a_conversation_within_a_cost_has_every_turn_within_it(
    costs: list[float], x: float
) -> None:
    c = chat([Turn(text="ok", metadata={"cost": v}) for v in costs])
    whole = CostAtMost(x).check(c)
    assert whole.status in (P, F)
    if whole.status is P:
        assert all(CostAtMost(x).check(t).status is P for t in c.turns)
    # the turns' own limits add up to a limit the conversation keeps
    assert CostAtMost(sum(costs)).check(c).status is P


@given(
    st.lists(st.one_of(st.none(), amounts), min_size=1, max_size=5).filter(lambda xs: None in xs),
    amounts,
)
def test_a_latency_not_logged_is_never_a_pass(latencies: list[float | None], x: float) -> None:
    c = chat([Turn(text="ok", metadata={} if v is None else {"latency_ms": v}) for v in latencies])
    result = LatencyAtMost(x).check(c)
    assert result.status in (F, E)
    known = sum(v for v in latencies if v is not None)
    assert (result.status is F) == (known > x)


models = st.sampled_from(["gpt-4o", "gpt-4o-mini", "claude-3-5-haiku-20241022", "o3-mini"])


@given(st.lists(models, min_size=1, max_size=5), models)
def test_model_is_holds_on_a_conversation_iff_on_every_turn(used: list[str], want: str) -> None:
    c = chat([Turn(text="ok", metadata={"model": m}) for m in used])
    whole = ModelIs(want).check(c).status is P
    assert whole == all(ModelIs(want).check(t).status is P for t in c.turns)
