"""The statistics a comparison of two runs needs, exact and dependency-free.

- `wilson`: the Wilson score interval of a pass rate;
- `mcnemar`: the exact McNemar test on paired verdicts, with its mid-p value;
- `holm`: Holm's step-down adjustment of p-values tested together.

Binomial tails are summed in exact integer arithmetic (`math.comb` over `2**n`), so p-values
hold for the tens to thousands of discordant pairs evals produce, with no floating-point
underflow and no approximation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from statistics import NormalDist
from typing import NamedTuple

__all__ = ["McNemar", "holm", "mcnemar", "wilson"]


def wilson(passed: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval `(low, high)` of `passed` out of `total` at `confidence`.

    Unlike the normal ("Wald") interval it stays inside [0, 1] and does not collapse to a
    point at 0 % or 100 %, which is where gates on pass rates live. No trials give `(0, 1)`.

    Example:
        >>> [round(x, 4) for x in wilson(95, 100)]
        [0.8882, 0.9785]
    """
    if total < 0 or not 0 <= passed <= total:
        raise ValueError(f"need 0 <= passed <= total, got {passed} of {total}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if total == 0:
        return 0.0, 1.0
    z = -NormalDist().inv_cdf((1 - confidence) / 2)  # `0.5 + c / 2` rounds to 1 for c near 1
    p = passed / total
    z2n = z * z / total
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / total + z2n / (4 * total)) / (1 + z2n)
    # exact at the ends: 0 of n has a lower bound of 0, n of n an upper bound of 1
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == total else min(1.0, centre + half)
    return low, high


class McNemar(NamedTuple):
    """The exact McNemar test on paired binary outcomes.

    Attributes:
        worse: Discordant pairs that passed before and fail now.
        better: Discordant pairs that failed before and pass now.
        p_value: The exact two-sided p-value (conservative at small counts).
        mid_p: The mid-p value: the exact one minus half the probability of the observed
            count, closer to the nominal level (Fagerland, Lydersen & Laake 2013).
    """

    worse: int
    better: int
    p_value: float
    mid_p: float


def mcnemar(worse: int, better: int) -> McNemar:
    """The exact McNemar test of `worse` pass→fail against `better` fail→pass pairs.

    Under "no change" each discordant pair is equally likely to go either way, so the smaller
    count follows Binomial(worse + better, 1/2); the two-sided p-value doubles its lower tail
    (at most 1). Concordant pairs carry no information about a change and are not arguments.

    Example:
        >>> test = mcnemar(9, 1)
        >>> round(test.p_value, 4), round(test.mid_p, 4)
        (0.0215, 0.0117)
    """
    if worse < 0 or better < 0:
        raise ValueError(f"counts must be >= 0, got {worse} and {better}")
    n = worse + better
    if n == 0:
        return McNemar(worse, better, 1.0, 1.0)
    k = min(worse, better)
    term = 1  # comb(n, i), updated incrementally
    tail = 0
    for i in range(k + 1):
        if i:
            term = term * (n - i + 1) // i
        tail += term
    scale = 2**n
    exact = min(Fraction(2 * tail, scale), Fraction(1))
    mid = min(Fraction(2 * tail - term, scale), Fraction(1))
    return McNemar(worse, better, float(exact), float(mid))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given.

    Compare each adjusted value with the family's alpha: it controls the chance of any false
    "worse" across all the assertions tested together, and is never less powerful than
    Bonferroni. Adjusted values are monotone in the raw ones and at most 1.

    Example:
        >>> holm([0.01, 0.04, 0.03])
        [0.03, 0.06, 0.06]
    """
    for p in p_values:
        if not 0 <= p <= 1:
            raise ValueError(f"a p-value must be between 0 and 1, got {p}")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
