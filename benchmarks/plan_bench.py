"""Planning: judge calls avoided on a realistic mixed suite, with and without planning.

Each of 1,000 replies is checked by `all_of(<deterministic guard>, <judged rubric>)`: the guard
(the order number is quoted and no internal error leaks) fails on 30 % of the replies, chosen
by a fixed seed. The rubric goes through an `OpenAIJudge` against the loopback server of the
judge tests (`tests/judges/loopback.py`, a separate process answering after 50 ms), via
`check_many(..., concurrency=32)`. With planning, a reply whose guard failed needs no judge:
its rubric is `skipped` ("not needed: ...") and counted as avoided; without planning
(`judge_planning(False)`, the CLI's `--no-plan`) every rubric is asked. Both runs must give
the same statuses.

Usage: python benchmarks/plan_bench.py [--checks 1000] [--fail-rate 0.3] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import urllib.request
from pathlib import Path

from chatassert import AllOf, Contains, LLMRubric, NotContains
from chatassert.judges import OpenAIJudge, check_many, count_judge_costs, judge_planning

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judges"))
from loopback import serving  # noqa: E402  (a server process answering after a delay)


def served(url: str) -> int:
    with urllib.request.urlopen(f"{url}/count") as response:
        return int(json.load(response)["count"])


def replies(count: int, fail_rate: float) -> list[str]:
    rng = random.Random(17)
    out = []
    for i in range(count):
        if rng.random() < fail_rate:
            out.append(
                rng.choice(
                    [
                        f"Sorry, something went wrong (internal error {i}).",
                        "Your order ships on Monday.",  # no order number
                    ]
                )
            )
        else:
            out.append(f"Thanks for asking! Order #{i} ships on Monday.")
    return out


def run(url: str, subjects: list[str], plan: bool) -> tuple[float, int, int, list[str]]:
    judge = OpenAIJudge("bench-model", base_url=f"{url}/v1", timeout=10)
    check = AllOf(
        Contains("Order #"),
        NotContains("internal error"),
        LLMRubric("The reply is polite and answers the question", judge=judge),
    )
    before = served(url)
    start = time.perf_counter()
    with judge_planning(plan), count_judge_costs() as costs:
        results = asyncio.run(check_many(check, subjects, concurrency=32))
    wall = time.perf_counter() - start
    assert served(url) - before == costs.requests
    return wall, costs.requests, costs.avoided, [r.status.value for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--fail-rate", type=float, default=0.3)
    parser.add_argument("--delay", type=float, default=0.05)
    args = parser.parse_args()
    with serving(args.delay) as url:
        subjects = replies(args.checks, args.fail_rate)
        guard_failures = sum("Order #" not in s or "internal error" in s for s in subjects)
        print(
            f"{args.checks} replies, all_of(guard, rubric); {guard_failures} fail the guard; "
            f"server delay {args.delay * 1000:.0f} ms, concurrency 32"
        )
        rows = {}
        for plan in (False, True):
            wall, made, avoided, statuses = run(url, subjects, plan)
            rows[plan] = statuses
            print(
                f"planning {'on ' if plan else 'off'}: wall {wall:.3f} s; judge calls made "
                f"{made}, avoided {avoided}"
            )
        same = rows[True] == rows[False]
        print("same statuses with and without planning:", same)
        ok = same
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
