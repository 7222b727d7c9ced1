"""Decision tests of the run-metadata checks: latency_at_most, cost_at_most, tokens_at_most,
model_is — each outcome on a turn and on a conversation, what the reason and details say,
metadata read from real log records through the adapters, and spec problems."""

from __future__ import annotations

import pytest

from chatassert import Conversation, SpecError, Status, Turn, from_spec
from chatassert.transcripts import parse_record
from chatassert.usage import CostAtMost, LatencyAtMost, ModelIs, TokensAtMost

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR


def turn(**metadata: object) -> Turn:
    return Turn(text="ok", metadata=metadata)


def chat(*turns: Turn, **metadata: object) -> Conversation:
    return Conversation(turns=list(turns), metadata=metadata)


# -- latency and cost: one limit ----------------------------------------------------------------

LIMIT_TABLE = [
    # (check, subject, status, reason fragment)
    (LatencyAtMost(1000), turn(latency_ms=1000), P, "1000 ms is at most 1000 ms"),
    (LatencyAtMost(1000), turn(latency_ms=1000.5), F, "but it was 1000.5 ms"),
    (LatencyAtMost(1000), turn(), E, "the turn logged no latency_ms"),
    (LatencyAtMost(1000), turn(latency_ms=None), E, "logged no latency_ms"),
    (
        LatencyAtMost(1000),
        turn(latency_ms="fast"),
        E,
        "metadata.latency_ms is not an amount ('fast')",
    ),
    (LatencyAtMost(1000), turn(latency_ms=True), E, "is not an amount (True)"),
    (LatencyAtMost(1000), turn(latency_ms=-5), E, "is not an amount (-5)"),
    (LatencyAtMost(1000), turn(latency_ms=float("nan")), E, "is not an amount"),
    (LatencyAtMost(0), turn(latency_ms=0), P, "0 ms is at most 0 ms"),
    (CostAtMost(0.01), turn(cost=0.01), P, "$0.01 is at most $0.01"),
    (CostAtMost(0.01), turn(cost=0.0100001), F, "at most $0.01 but it was $0.0100001"),
    (CostAtMost(0.01), turn(latency_ms=3), E, "logged no cost"),
    (CostAtMost(0.01), "just text", E, "the turn logged no cost"),
]


@pytest.mark.parametrize(("check", "subject", "status", "fragment"), LIMIT_TABLE)
def test_a_limit_on_a_turn(check: object, subject: object, status: Status, fragment: str) -> None:
    result = check.check(subject)  # type: ignore[attr-defined]
    assert result.status is status, result.reason
    assert fragment in result.reason


def test_a_conversation_sums_its_turns_and_names_each_part() -> None:
    c = chat(turn(latency_ms=700), turn(latency_ms=840), turn(latency_ms=10))
    result = LatencyAtMost(1500).check(c)
    assert result.status is F
    assert result.reason == (
        "expected a latency of at most 1500 ms but it was 1550 ms "
        "(turns[0] 700 ms, turns[1] 840 ms, turns[2] 10 ms)"
    )
    assert result.details["actual"] == 1550
    assert result.details["parts"] == {"turns[0]": 700, "turns[1]": 840, "turns[2]": 10}
    assert result.details["source"] == "summed over 3 of 3 turns"
    assert LatencyAtMost(1550).check(c).status is P


def test_a_missing_turn_is_an_error_unless_the_rest_already_exceed() -> None:
    c = chat(turn(cost=0.004), turn(), turn(cost=0.003))
    undecided = CostAtMost(0.01).check(c)
    assert undecided.status is E
    assert undecided.reason.startswith("turns[1] logged no cost")
    assert undecided.details["missing"] == ["turns[1]"]
    assert undecided.details["actual"] is None
    over = CostAtMost(0.005).check(c)
    assert over.status is F  # what turns[1] cost can only add
    assert "but it was at least $0.007" in over.reason
    assert over.details["actual_at_least"] == pytest.approx(0.007)
    assert over.details["missing"] == ["turns[1]"]


def test_an_unreadable_part_is_an_error_unless_the_rest_already_exceed() -> None:
    c = chat(turn(latency_ms=400), turn(latency_ms={"p50": 3}))
    assert LatencyAtMost(1000).check(c).status is E
    assert "turns[1].metadata.latency_ms is not an amount" in LatencyAtMost(1000).check(c).reason
    assert LatencyAtMost(300).check(c).status is F


def test_the_conversation_figure_stands_in_when_its_turns_logged_none() -> None:
    c = chat(turn(), turn(), cost=0.02)
    result = CostAtMost(0.01).check(c)
    assert result.status is F
    assert result.reason == (
        "expected a cost of at most $0.01 but it was $0.02 (the conversation's metadata)"
    )
    assert result.details["source"] == "the conversation's metadata"
    assert CostAtMost(0.02).check(c).status is P
    # and when only some turns logged it, the record's own total is the whole conversation's
    partly = chat(turn(cost=0.001), turn(), cost=0.002)
    assert CostAtMost(0.0015).check(partly).status is F
    assert CostAtMost(0.002).check(partly).status is P


def test_turns_that_all_logged_win_over_the_conversation_figure() -> None:
    c = chat(turn(latency_ms=100), turn(latency_ms=100), latency_ms=5000)
    assert LatencyAtMost(200).check(c).status is P


def test_an_empty_conversation_is_an_error_not_a_pass() -> None:
    result = LatencyAtMost(10).check(Conversation(turns=[]))
    assert result.status is E
    assert "no turns, and no figure in its metadata" in result.reason
    assert LatencyAtMost(10).check(chat(latency_ms=3)).status is P
    assert ModelIs("gpt-4o").check(Conversation(turns=[])).status is E


# -- tokens ------------------------------------------------------------------------------------


def test_tokens_check_every_limit_given() -> None:
    t = turn(input_tokens=900, output_tokens=200)
    assert TokensAtMost(input=900, output=200, total=1100).check(t).status is P
    over = TokensAtMost(input=100, output=100, total=2000).check(t)
    assert over.status is F
    assert over.reason == (
        "expected input tokens of at most 100 tokens but it was 900 tokens; "
        "expected output tokens of at most 100 tokens but it was 200 tokens"
    )
    assert set(over.details) == {"input_tokens", "output_tokens", "total_tokens"}


def test_total_tokens_is_derived_from_input_and_output_when_not_logged() -> None:
    assert TokensAtMost(total=1000).check(turn(input_tokens=900, output_tokens=200)).status is F
    assert TokensAtMost(total=1100).check(turn(input_tokens=900, output_tokens=200)).status is P
    assert TokensAtMost(total=1000).check(turn(input_tokens=900)).status is E
    # a logged total is taken as it is
    assert TokensAtMost(total=50).check(turn(total_tokens=40, input_tokens=900)).status is P


def test_a_failing_token_limit_wins_over_one_that_cannot_be_told() -> None:
    t = turn(output_tokens=500)
    result = TokensAtMost(input=10, output=100).check(t)
    assert result.status is F
    assert "output tokens" in result.reason
    assert "input" not in result.reason
    undecided = TokensAtMost(input=10, output=1000).check(t)
    assert undecided.status is E
    assert "logged no input_tokens" in undecided.reason


def test_tokens_over_a_conversation_are_summed() -> None:
    c = chat(turn(input_tokens=10, output_tokens=5), turn(input_tokens=20, output_tokens=5))
    assert TokensAtMost(input=30, output=10, total=40).check(c).status is P
    assert TokensAtMost(total=39).check(c).status is F


# -- model -------------------------------------------------------------------------------------

MODEL_TABLE = [
    (turn(model="gpt-4o-mini"), "gpt-4o-mini", P, "every model call used gpt-4o-mini"),
    (turn(model="gpt-4o-2024-08-06"), "gpt-4o", P, "used gpt-4o-2024-08-06"),
    (turn(model="claude-3-5-haiku-20241022"), "haiku", P, "haiku"),
    (turn(model="claude-sonnet-4-5"), "haiku", F, "but the turn used 'claude-sonnet-4-5'"),
    (turn(model="gpt-4o"), "gpt-4o-mini", F, "used 'gpt-4o'"),
    (turn(), "gpt-4o", E, "the turn logged no model"),
    (turn(model=42), "gpt-4o", E, "is not a model id (42)"),
    (turn(model=["gpt-4o", "gpt-4o"]), "gpt-4o", P, "every model call used gpt-4o"),
    (turn(model=["gpt-4o", "o3-mini"]), "gpt-4o", F, "the turn used 'o3-mini'"),
]


@pytest.mark.parametrize(("subject", "model", "status", "fragment"), MODEL_TABLE)
def test_model_on_a_turn(subject: Turn, model: str, status: Status, fragment: str) -> None:
    result = ModelIs(model).check(subject)
    assert result.status is status, result.reason
    assert fragment in result.reason


def test_model_on_a_conversation() -> None:
    c = chat(turn(model="gpt-4o"), turn(), turn(model="o3-mini"), model="gpt-4o")
    result = ModelIs("gpt-4o").check(c)
    assert result.status is F
    assert result.reason == "expected every model call to use 'gpt-4o' but turns[2] used 'o3-mini'"
    assert result.details["models"]["turns[1]"] == ["gpt-4o"]  # from the conversation
    assert result.details["mismatches"] == [{"at": "turns[2]", "model": "o3-mini"}]
    no_fallback = chat(turn(model="gpt-4o"), turn())
    assert ModelIs("gpt-4o").check(no_fallback).status is E
    assert ModelIs("o3").check(no_fallback).status is F  # a wrong model is decided anyway


# -- real log records through the adapters -------------------------------------------------------


def test_an_openai_transcript_carries_its_usage_to_the_conversation() -> None:
    record = {
        "model": "gpt-4o-mini",
        "usage": {"prompt_tokens": 120, "completion_tokens": 30},
        "latency_ms": 812,
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "18°C."},
        ],
    }
    c = parse_record(record)
    assert TokensAtMost(input=120, output=30, total=150).check(c).status is P
    assert TokensAtMost(total=149).check(c).status is F
    assert LatencyAtMost(800).check(c).status is F
    assert ModelIs("gpt-4o-mini").check(c).status is P
    assert CostAtMost(1).check(c).status is E  # that log records no cost


def test_a_promptkit_run_sums_its_messages_per_turn() -> None:
    record = {
        "RunID": "r1",
        "ScenarioID": "s",
        "ProviderID": "p",
        "Messages": [
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "content": "Hello",
                "latency_ms": 400,
                "cost_info": {"input_tokens": 100, "output_tokens": 20, "total_cost_usd": 0.001},
            },
        ],
    }
    c = parse_record(record, "promptkit-arena")
    assert CostAtMost(0.001).check(c).status is P
    assert CostAtMost(0.0009).check(c).status is F
    assert LatencyAtMost(400).check(c.turns[0]).status is P
    assert TokensAtMost(total=120).check(c).status is P


# -- specs -------------------------------------------------------------------------------------


def test_specs_build_the_same_checks() -> None:
    assert from_spec({"type": "latency_at_most", "ms": 500}) == LatencyAtMost(500)
    assert from_spec({"type": "cost_at_most", "usd": 0.5}) == CostAtMost(0.5)
    assert from_spec({"type": "tokens_at_most", "total": 9}) == TokensAtMost(total=9)
    assert from_spec({"type": "model_is", "model": "haiku"}) == ModelIs("haiku")
    assert TokensAtMost(output=3).as_spec() == {"type": "tokens_at_most", "output": 3}


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"type": "latency_at_most", "ms": -1}, "from 0 up"),
        ({"type": "latency_at_most", "ms": "fast"}, "ms"),
        ({"type": "cost_at_most"}, "usd"),
        ({"type": "tokens_at_most"}, "input, output, total or several"),
        ({"type": "tokens_at_most", "total": -3}, "must not be negative"),
        ({"type": "model_is", "model": "--"}, "must name a model"),
    ],
)
def test_spec_problems(spec: dict[str, object], fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    assert fragment in str(info.value)


def test_code_rejects_bad_limits() -> None:
    with pytest.raises(TypeError):
        LatencyAtMost(True)
    with pytest.raises(ValueError):
        CostAtMost(float("inf"))
    with pytest.raises(TypeError):
        TokensAtMost(total=1.5)  # type: ignore[arg-type]
