"""Judge throughput: 1,000 judged checks against a loopback server replying after 50 ms.

Runs `tests/judges/loopback.py` in a separate process (so the server does not share the GIL
with the client), checks 1,000 distinct responses with `llm_rubric` through an `OpenAIJudge`
wrapped in a fresh `CachedJudge` at a concurrency of 32, and compares the wall time with the
ideal 1000 / 32 x 50 ms. A second run over the same responses, with a new judge on the same
cache file, must be served entirely from the cache: the server's request count must not move.

Usage: python benchmarks/judge_bench.py [--checks 1000] [--concurrency 32] [--delay 0.05]
       [--target 1.2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from chatassert import LLMRubric
from chatassert.judges import CachedJudge, OpenAIJudge, check_many

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judges"))
from loopback import serving  # noqa: E402  (a server process answering after a delay)


def served(url: str) -> int:
    with urllib.request.urlopen(f"{url}/count") as response:
        return int(json.load(response)["count"])


def run(url: str, cache: Path, checks: int, concurrency: int) -> tuple[float, int, int, int]:
    judge = CachedJudge(OpenAIJudge("bench-model", base_url=f"{url}/v1", timeout=10), cache)
    rubric = LLMRubric("The reply is polite and answers the question", judge=judge)
    subjects = [f"Thanks for asking! Order {i} ships on Monday." for i in range(checks)]
    before = served(url)
    start = time.perf_counter()
    results = asyncio.run(check_many(rubric, subjects, concurrency=concurrency))
    wall = time.perf_counter() - start
    passed = sum(r.passed for r in results)
    return wall, served(url) - before, passed, judge.hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--target", type=float, default=1.2, help="the wall/ideal ratio to meet")
    args = parser.parse_args()
    with serving(args.delay) as url:
        ideal = args.checks / args.concurrency * args.delay
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "verdicts.sqlite3"
            wall, requests, passed, _ = run(url, cache, args.checks, args.concurrency)
            print(
                f"cold:   {args.checks} checks, concurrency {args.concurrency}, "
                f"server delay {args.delay * 1000:.0f} ms"
            )
            print(
                f"        wall {wall:.3f} s, ideal {ideal:.3f} s, ratio {wall / ideal:.2f}x "
                f"(target <= {args.target:.2f}x); {requests} requests; {passed} passed"
            )
            wall2, requests2, passed2, hits = run(url, cache, args.checks, args.concurrency)
            print(
                f"cached: wall {wall2:.3f} s; {requests2} requests (target 0); "
                f"{hits} cache hits; {passed2} passed"
            )
        ok = wall / ideal <= args.target and requests2 == 0 and passed == passed2 == args.checks
        print("OK" if ok else "MISSED TARGET")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
