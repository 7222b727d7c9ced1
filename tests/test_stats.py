"""The statistics of a comparison of runs (`chatassert._stats`) against references.

- the exact McNemar test against scipy's exact binomial test (`scipy.stats.binomtest`, two
  sided, p = 1/2, on the discordant pairs), and its mid-p value against scipy's binomial
  distribution (twice the lower tail less the probability of the count observed);
- the Wilson interval against its formula written out here with scipy's normal quantile, and
  against the published values of Newcombe (1998), Table I;
- Holm's adjustment against its definition computed term by term, and against the step-down
  procedure it stands for: at any alpha, the hypotheses it rejects are those the procedure does.

Counts range over 0 to 2,000 each (Hypothesis), beside the edges: no pairs, all one way, ties.
scipy is a test dependency only (the `test-core` extra); chatassert never imports it.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert._stats import McNemar, holm, mcnemar, wilson

counts = st.integers(0, 2000)


def _scipy() -> Any:
    """`scipy.stats`, imported when a test first uses it (a second of import that every test
    process would otherwise pay at collection)."""
    from scipy import stats

    return stats


def _reference_mid_p(worse: int, better: int) -> float:
    n = worse + better
    if n == 0:
        return 1.0
    k = min(worse, better)
    tail = _scipy().binom.cdf(k, n, 0.5)
    return float(min(1.0, 2 * tail - _scipy().binom.pmf(k, n, 0.5)))


def _close(got: float, want: float) -> bool:
    # relative agreement; below 1e-250 scipy's floating-point tails have lost their digits
    # (10 against 1,065 discordant pairs: scipy 0.0, the exact value 2.7e-300), and any gate
    # reads both as zero
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-250)


@settings(max_examples=200, deadline=None)
@given(counts, counts)
def test_mcnemar_is_scipys_exact_binomial_test_on_the_discordant_pairs(
    worse: int, better: int
) -> None:
    test = mcnemar(worse, better)
    assert (test.worse, test.better) == (worse, better)
    want = 1.0 if worse + better == 0 else _scipy().binomtest(
        min(worse, better), worse + better, 0.5
    ).pvalue  # fmt: skip
    assert _close(test.p_value, want), (worse, better, test.p_value, want)
    assert _close(test.mid_p, _reference_mid_p(worse, better)), (worse, better)
    assert 0 <= test.mid_p <= test.p_value <= 1
    assert mcnemar(better, worse)[2:] == test[2:]  # symmetric in its two counts


def test_mcnemar_keeps_its_digits_where_floating_point_tails_underflow() -> None:
    # the exact lower tail of Binomial(1075, 1/2) at 10, doubled: 2 * sum C(1075, i) / 2**1075
    exact = 2 * sum(math.comb(1075, i) for i in range(11)) / 2**1075
    test = mcnemar(10, 1065)
    assert math.isclose(test.p_value, exact, rel_tol=1e-12)
    assert 2e-300 < test.p_value < 3e-300


@pytest.mark.parametrize(
    ("worse", "better", "p", "mid_p"),
    [
        (0, 0, 1.0, 1.0),  # no discordant pair: no evidence either way
        (1, 0, 1.0, 0.5),
        (5, 5, 1.0, 1.0),
        (9, 1, 0.021484375, 0.01171875),  # 22/1024 and 12/1024
        (10, 0, 2 / 1024, 1 / 1024),
        (2000, 0, 0.0, 0.0),  # 2**-1999: below the smallest double
    ],
)
def test_mcnemar_edges(worse: int, better: int, p: float, mid_p: float) -> None:
    assert mcnemar(worse, better) == McNemar(worse, better, p, mid_p)


def test_mcnemar_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match="counts must be >= 0"):
        mcnemar(-1, 3)


def _reference_wilson(passed: int, total: int, confidence: float) -> tuple[float, float]:
    z = _scipy().norm.ppf(1 - (1 - confidence) / 2)
    p = passed / total
    denominator = 1 + z * z / total
    centre = p + z * z / (2 * total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    return (centre - half) / denominator, (centre + half) / denominator


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(1, 2000), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_is_its_formula(data: st.DataObject, total: int, confidence: float) -> None:
    passed = data.draw(st.integers(0, total))
    low, high = wilson(passed, total, confidence)
    want_low, want_high = _reference_wilson(passed, total, confidence)
    assert math.isclose(low, max(0.0, want_low), abs_tol=1e-12)
    assert math.isclose(high, min(1.0, want_high), abs_tol=1e-12)
    assert 0 <= low <= passed / total <= high <= 1
    assert (low == 0) == (passed == 0) or want_low <= 1e-12
    assert (high == 1) == (passed == total) or want_high >= 1 - 1e-12


@pytest.mark.parametrize(
    ("passed", "total", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_gives_newcombes_published_intervals(
    passed: int, total: int, low: float, high: float
) -> None:
    # Newcombe, "Two-sided confidence intervals for the single proportion" (1998), Table I
    assert [round(x, 4) for x in wilson(passed, total)] == [low, high]


def test_wilson_edges() -> None:
    assert wilson(0, 0) == (0.0, 1.0)  # no trials: nothing is known
    assert wilson(7, 7)[1] == 1.0
    assert wilson(0, 7)[0] == 0.0
    for bad in [(3, 2), (-1, 2), (1, -1)]:
        with pytest.raises(ValueError, match="0 <= passed <= total"):
            wilson(*bad)
    for confidence in (0, 1, 1.5):
        with pytest.raises(ValueError, match="confidence"):
            wilson(1, 2, confidence)
    # the largest confidence below 1: `0.5 + c / 2` rounds to 1.0, where the quantile is not
    # defined; the interval is then (almost) all of [0, 1], never an exception
    low, high = wilson(1, 2, 0.9999999999999999)
    assert 0.0 <= low < 0.01
    assert 0.99 < high <= 1.0


def _reference_holm(p_values: list[float]) -> list[float]:
    """Holm's adjusted p-values by definition: the i-th smallest p is adjusted to the largest
    of min(1, (m - j) * p_(j)) over j <= i (0-based ranks)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    for rank, index in enumerate(order):
        out[index] = max(min(1.0, (m - j) * p_values[order[j]]) for j in range(rank + 1))
    return out


def _step_down(p_values: list[float], alpha: float) -> set[int]:
    """Holm's procedure: reject the smallest p while it is at most alpha / (m - rank)."""
    m = len(p_values)
    rejected: set[int] = set()
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[index] > alpha / (m - rank):
            break
        rejected.add(index)
    return rejected


p_values = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 1.0])), max_size=30
)


@settings(max_examples=300, deadline=None)
@given(p_values, st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_is_its_definition_and_rejects_what_the_step_down_procedure_does(
    values: list[float], alpha: float
) -> None:
    adjusted = holm(values)
    assert adjusted == pytest.approx(_reference_holm(values), rel=1e-12, abs=0)
    assert all(p <= a <= 1 for p, a in zip(values, adjusted, strict=True))
    # adjusted p <= alpha exactly where the procedure rejects (away from float ties at the
    # boundary, where the procedure's division and the adjustment's product may round apart)
    rejected = {i for i, a in enumerate(adjusted) if a <= alpha}
    near = {
        i for i, p in enumerate(values) if any(math.isclose(p * k, alpha) for k in range(1, 31))
    }
    assert rejected - near == _step_down(values, alpha) - near


def test_holm_edges() -> None:
    assert holm([]) == []
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    assert holm([0.02, 0.02]) == [0.04, 0.04]  # ties adjust alike
    assert holm([0.6, 0.9]) == [1.0, 1.0]  # never above 1
    with pytest.raises(ValueError, match="between 0 and 1"):
        holm([0.5, 1.5])
    with pytest.raises(ValueError, match="between 0 and 1"):
        holm([math.nan])
