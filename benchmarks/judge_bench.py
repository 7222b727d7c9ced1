"""Judge throughput: 1,000 judged checks against a loopback server replying after 50 ms.

Runs `tests/judges/loopback.py` in a separate process (so the server does not share the GIL
with the client), checks 1,000 distinct responses with `llm_rubric` through an `OpenAIJudge`
wrapped in a fresh `CachedJudge` at a concurrency of 32, and compares the wall time with the
ideal 1000 / 32 x 50 ms. With `--protocol h2` the server is hypercorn over TLS instead
(`tests/judges/faulty_h2.py`, a certificate authority made for the run, trusted through
`SSL_CERT_FILE`), and the judge speaks HTTP/2 to it, each request a stream of one kept-alive
connection; `http/1.1` (the default) is the stdlib server, one connection per request. The
client's CPU time per check is printed too. A second run over the same responses, with a new
judge on the same cache file, must be served entirely from the cache: the server's request count
must not move.

Usage: python benchmarks/judge_bench.py [--checks 1000] [--concurrency 32] [--delay 0.05]
       [--target 1.2] [--protocol http/1.1|h2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import ssl
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from chatassert import LLMRubric
from chatassert.judges import CachedJudge, OpenAIJudge, check_many

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judges"))
import faulty_h2  # noqa: E402  (hypercorn over TLS in a process of its own)
from loopback import serving  # noqa: E402  (a server process answering after a delay)


@contextlib.contextmanager
def server(protocol: str, delay: float, folder: Path) -> Iterator[str]:
    """The base URL of a server process answering after `delay` seconds over `protocol`."""
    if protocol == "h2":
        with faulty_h2.serving(delay, folder) as url:
            os.environ["SSL_CERT_FILE"] = str(folder / "test-ca.pem")  # the judge trusts it
            yield url.removesuffix("/v1")
    else:
        with serving(delay) as url:
            yield url


def served(url: str) -> int:
    context = None
    if url.startswith("https://"):
        context = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    with urllib.request.urlopen(f"{url}/count", context=context) as response:
        return int(json.load(response)["count"])


def run(url: str, cache: Path, checks: int, concurrency: int) -> tuple[float, float, int, int, int]:
    judge = CachedJudge(OpenAIJudge("bench-model", base_url=f"{url}/v1", timeout=10), cache)
    rubric = LLMRubric("The reply is polite and answers the question", judge=judge)
    subjects = [f"Thanks for asking! Order {i} ships on Monday." for i in range(checks)]
    before = served(url)
    start, cpu = time.perf_counter(), time.process_time()
    results = asyncio.run(check_many(rubric, subjects, concurrency=concurrency))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    passed = sum(r.passed for r in results)
    return wall, cpu, served(url) - before, passed, judge.hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--target", type=float, default=1.2, help="the wall/ideal ratio to meet")
    parser.add_argument("--protocol", choices=("http/1.1", "h2"), default="http/1.1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, server(args.protocol, args.delay, Path(tmp)) as url:
        ideal = args.checks / args.concurrency * args.delay
        cache = Path(tmp) / "verdicts.sqlite3"
        wall, cpu, requests, passed, _ = run(url, cache, args.checks, args.concurrency)
        print(
            f"cold:   {args.checks} checks over {args.protocol}, concurrency {args.concurrency}, "
            f"server delay {args.delay * 1000:.0f} ms"
        )
        print(
            f"        wall {wall:.3f} s, ideal {ideal:.3f} s, ratio {wall / ideal:.2f}x "
            f"(target <= {args.target:.2f}x); {requests} requests; {passed} passed; "
            f"client CPU {cpu / args.checks * 1000:.2f} ms per check"
        )
        wall2, _, requests2, passed2, hits = run(url, cache, args.checks, args.concurrency)
        print(
            f"cached: wall {wall2:.3f} s; {requests2} requests (target 0); "
            f"{hits} cache hits; {passed2} passed"
        )
        ok = wall / ideal <= args.target and requests2 == 0 and passed == passed2 == args.checks
        print("OK" if ok else "MISSED TARGET")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
