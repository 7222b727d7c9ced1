"""Deciding gates over a run's outcomes: a minimum pass rate met by the Wilson lower bound at
`confidence` or by the observed rate without it, a largest drop from a baseline run's rate,
and nothing to count an error, never a pass.

Docs: docs/specs.md ("Gates"). Source: src/chatassert/_gates.py.
"""

from __future__ import annotations

import json
import pickle

import pytest
from gates_helpers import suite

from chatassert import Status
from chatassert._gates import Gate, GateCounts, GateTally, evaluate_gates, gate_of, with_baseline
from chatassert._stats import wilson
from chatassert.records import Row
from chatassert.reporting import Summary
from chatassert.specs import loads_suite


def rows(*statuses: str, suite: str = "refunds", label: str = "tone") -> list[Row]:
    """A case row per status, its one assertion `label` of that status too."""
    return [
        Row("case", f"log:{i}", suite, "refund", s, subject_id=str(i), assertions=((label, s),))
        for i, s in enumerate(statuses)
    ]


def passed(n: int, failed: int = 0, **kw: str) -> list[Row]:
    return rows(*(["passed"] * n + ["failed"] * failed), **kw)


# -- pass_rate ---------------------------------------------------------------------------------


def test_with_confidence_the_lower_bound_must_reach_the_minimum() -> None:
    gate = Gate("pass_rate", "tone", min=0.9, confidence=0.95)
    met = gate.check(GateCounts(97, 100))
    assert met.status is Status.PASSED
    low, high = wilson(97, 100, 0.95)
    assert met.details["interval"] == [low, high]
    assert met.details["observed"] == low
    assert (met.details["passed"], met.details["total"], met.details["threshold"]) == (97, 100, 0.9)
    # 9 of 10 is a rate of 0.9, but ten outcomes cannot show 0.9 at 95% confidence
    small = gate.check(GateCounts(9, 10))
    assert small.status is Status.FAILED
    assert small.reason == (
        "9 of 10 passed (0.900), 95% interval 0.596 to 0.982: its lower bound is below the "
        "minimum 0.9"
    )


def test_a_confidence_a_float_step_below_one_is_decided() -> None:
    # `0.5 + c / 2` rounds to 1 there; the interval's quantile is taken from the tail instead
    gate = Gate("pass_rate", "tone", min=0.9, confidence=0.9999999999999999)
    result = gate.check(GateCounts(99, 100))
    assert result.status is Status.FAILED  # 99 of 100 cannot show 0.9 at that confidence
    assert 0.5 < result.details["interval"][0] < 0.9


def test_without_confidence_the_observed_rate_must_reach_the_minimum() -> None:
    gate = Gate("pass_rate", "tone", min=0.9)
    assert gate.check(GateCounts(9, 10)).status is Status.PASSED  # exactly the minimum
    below = gate.check(GateCounts(8, 10))
    assert below.status is Status.FAILED
    assert below.reason == "8 of 10 passed (0.800): below the minimum 0.9"
    assert "interval" not in below.details


def test_nothing_evaluated_is_an_error_never_a_pass() -> None:
    for gate in (Gate("pass_rate", "tone", min=0.0), Gate("pass_rate", min=0, confidence=0.9)):
        result = gate.check(GateCounts(0, 0))
        assert result.status is Status.ERROR
        assert "was evaluated in the run" in result.reason
    only_skipped = evaluate_gates([Gate("pass_rate", "tone", min=0.0)], rows("skipped"))
    assert only_skipped[0].status is Status.ERROR


def test_an_error_counts_as_not_passed_and_a_skipped_outcome_is_not_counted() -> None:
    (result,) = evaluate_gates(
        [Gate("pass_rate", "tone", min=0.5)], rows("passed", "error", "skipped", "skipped")
    )
    assert (result.details["passed"], result.details["total"]) == (1, 2)
    assert result.status is Status.PASSED


def test_a_gate_without_an_assertion_counts_the_cases() -> None:
    run = passed(3, 1)
    run[0] = Row("case", "log:0", "refunds", "refund", "failed", assertions=(("tone", "passed"),))
    (cases, tone) = evaluate_gates(
        [Gate("pass_rate", min=0.75), Gate("pass_rate", "tone", min=0.75)], run
    )
    assert (cases.details["passed"], cases.status) == (2, Status.FAILED)
    assert (tone.details["passed"], tone.status) == (3, Status.PASSED)


def test_a_gate_of_a_suite_counts_that_suites_rows_only() -> None:
    run = passed(2, suite="refunds") + passed(0, 5, suite="other") + [Row("unreadable", "l:9")]
    ours, anyone = evaluate_gates(
        [Gate("pass_rate", min=1, suite="refunds"), Gate("pass_rate", min=1)], run
    )
    assert (ours.details["total"], ours.status) == (2, Status.PASSED)
    assert (anyone.details["total"], anyone.status) == (7, Status.FAILED)


# -- max_drop -----------------------------------------------------------------------------------


def test_max_drop_without_a_baseline_is_skipped_saying_so() -> None:
    (result,) = evaluate_gates([Gate("max_drop", "tone", by=0.02)], passed(10))
    assert result.status is Status.SKIPPED
    assert "no baseline run to compare with" in result.reason
    assert "--baseline" in result.reason


def test_max_drop_compares_the_rates_of_the_two_runs() -> None:
    gate = Gate("max_drop", "tone", by=0.05)
    within, beyond, rise = (
        evaluate_gates([gate], passed(17, 3), passed(18, 2), baseline_source="base.jsonl")[0],
        evaluate_gates([gate], passed(15, 5), passed(18, 2), baseline_source="base.jsonl")[0],
        evaluate_gates([gate], passed(20), passed(18, 2), baseline_source="base.jsonl")[0],
    )
    assert within.status is Status.PASSED
    assert within.reason == (
        "0.850 (17/20) against 0.900 (18/20) in the baseline: a drop of 0.050, within 0.05"
    )
    assert beyond.status is Status.FAILED
    assert beyond.details["drop"] == pytest.approx(0.15)
    assert beyond.details["baseline"] == {
        "source": "base.jsonl",
        "passed": 18,
        "total": 20,
        "rate": 0.9,
    }
    assert rise.status is Status.PASSED
    assert "a rise of 0.100" in rise.reason


def test_a_drop_of_exactly_the_limit_is_within_it() -> None:
    # 0.8 - 0.7 is 0.10000000000000009 in binary floating point: the drop is computed exactly
    (result,) = evaluate_gates([Gate("max_drop", by=0.1)], passed(7, 3), passed(8, 2))
    assert result.status is Status.PASSED
    assert 0.8 - 0.7 > 0.1


def test_max_drop_against_a_baseline_without_the_assertion_is_an_error() -> None:
    (result,) = evaluate_gates(
        [Gate("max_drop", "tone", by=0.5)], passed(5), passed(5, label="other"), baseline_source="b"
    )
    assert result.status is Status.ERROR
    assert result.reason.startswith("the baseline b has no evaluated outcome of 'tone'")
    (empty,) = evaluate_gates([Gate("max_drop", "tone", by=0.5)], [], passed(5))
    assert empty.status is Status.ERROR


def test_a_suite_takes_its_baseline_for_its_max_drop_gates_only() -> None:
    loaded = loads_suite(suite("{max_drop: {assertion: tone, by: 0.1}}", "{pass_rate: {min: 0.5}}"))
    bound = with_baseline(loaded, passed(3, 1) + passed(9, suite="other"), "base.jsonl")
    drop, rate = bound.gates
    assert (drop.baseline, drop.baseline_source) == (GateCounts(3, 4), "base.jsonl")
    assert rate == loaded.gates[1]
    alone = loads_suite(suite("{pass_rate: {min: 0.5}}"))
    assert with_baseline(alone, [], "b") is alone  # nothing to compare: the suite as it is


# -- what a result says ----------------------------------------------------------------------


def test_a_gates_result_is_named_placed_and_described() -> None:
    gate = Gate(
        "pass_rate", "tone", min=0.95, confidence=0.9, suite="refunds", spec_path="gates[2]"
    )
    result = gate.check(GateCounts(1, 2))
    assert (result.name, result.spec_name, result.spec_path) == ("gate", "pass_rate", "gates[2]")
    assert result.message == "pass rate of 'tone' at least 0.95 (lower bound at 90% confidence)"
    assert result.details["suite"] == "refunds"
    assert result.details["gate"] == gate.as_spec()
    assert gate.skipped("it stopped").status is Status.SKIPPED


def test_a_report_line_gives_back_its_gate_with_its_baseline() -> None:
    gates = [
        Gate("pass_rate", "tone", min=0.9, confidence=0.95, suite="s", spec_path="gates[0]"),
        Gate("max_drop", by=0.1, suite="s", spec_path="gates[1]", baseline=GateCounts(4, 5),
             baseline_source="base.jsonl"),
        Gate("max_drop", "tone", by=0.1, suite=None, spec_path="gates[2]"),
    ]  # fmt: skip
    for gate in gates:
        line = json.loads(
            json.dumps({"gate": gate.check(GateCounts(3, 4)).to_dict(), "suite": gate.suite})
        )
        assert gate_of(line) == gate
    with pytest.raises(ValueError, match="does not say its gate"):
        gate_of({"gate": {"status": "passed", "name": "gate", "details": {}}, "suite": "s"})


# -- counting as rows come, across workers -----------------------------------------------------


def test_a_tally_merged_from_parts_decides_as_one_tally_of_them_all() -> None:
    gates = {"refunds": [Gate("pass_rate", "tone", min=0.6), Gate("pass_rate", min=0.6)]}
    run = rows("passed", "failed", "error", "passed", "skipped", "passed", "failed")
    whole, first, second = GateTally(gates), GateTally(gates), GateTally(gates)
    for row in run:
        whole.add_row(row)
    for row in run[:3]:
        first.add_row(row)
    for row in run[3:]:
        second.add_row(row)
    merged = pickle.loads(pickle.dumps(first)).merge(pickle.loads(pickle.dumps(second)))
    assert merged.evaluate() == whole.evaluate()
    assert whole.counts("refunds", "tone") == GateCounts(3, 6)
    assert [r.status for r in whole.evaluate("it was interrupted")] == [Status.SKIPPED] * 2


def test_a_tally_keeps_only_the_labels_its_gates_name() -> None:
    tally = GateTally({"refunds": [Gate("pass_rate", "tone", min=0.5)]})
    tally.add("refunds", "passed", [("tone", "passed"), ("polite", "failed")])
    assert set(tally.labels["refunds"]) == {"tone"}
    assert tally.empty().counts("refunds", "tone") == GateCounts(0, 0)


def test_a_summary_ships_its_gates_tally_and_results_as_json() -> None:
    drop = Gate("max_drop", "tone", by=0.1, baseline=GateCounts(9, 10), baseline_source="b")
    gates = {"refunds": [drop, Gate("pass_rate", min=0.5)]}
    parts = []
    for chunk in (rows("passed", "failed"), rows("passed", "error", "skipped")):
        part = Summary(records=len(chunk), tally=GateTally(gates))
        for row in chunk:
            part.add_row(row)
        parts.append(json.loads(json.dumps(part.to_dict())))
    total = Summary(records=0)
    for data in parts:
        total.merge(Summary.from_dict(data))
    assert total.tally is not None
    assert total.tally.counts("refunds", "tone") == GateCounts(2, 4)
    total.gates = total.tally.evaluate()
    again = Summary.from_dict(json.loads(json.dumps(total.to_dict())))
    assert again.gates == total.gates
    assert [r.status for r in again.gates] == [Status.FAILED, Status.PASSED]
    assert again.exit_code() == 1
    assert Summary.from_dict(Summary().to_dict()).tally is None
