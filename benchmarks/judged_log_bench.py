"""A judged log through the command line: `chatassert check` against a judge replying after 50 ms.

Writes a log of 400 one-turn conversations (distinct answers), starts the loopback server of
the judge tests (`tests/judges/loopback.py`, in a process of its own, answering every request
with a passing verdict after `--delay` seconds), and runs

    python -m chatassert check --assert '{type: llm_rubric, ...}' LOG -f json -o REPORT

in a subprocess, `--rounds` times. Its start-up (the same command on a one-line log) is
measured separately and subtracted; what is left is compared with the latency-bound ideal,
records / concurrency x delay. The report must hold a passing case for every record, and the
server must have received one request per record.

`--src DIR` runs another checkout's `src` (for a before/after comparison of the same script).

Usage: python benchmarks/judged_log_bench.py [--records 400] [--delay 0.05] [--concurrency 32]
       [--jobs 1] [--rounds 3] [--src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "judges"))
from loopback import serving  # noqa: E402  (a server process answering after a delay)

RUBRIC = "{type: llm_rubric, value: The reply is polite and answers the question}"


def write_log(path: Path, records: int) -> None:
    """`records` one-turn conversations, each answer its own."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(records):
            messages = [
                {"role": "user", "content": f"When does order {i} ship?"},
                {"role": "assistant", "content": f"Thanks for asking! Order {i} ships Monday."},
            ]
            out.write(json.dumps({"id": f"c{i}", "messages": messages}) + "\n")


def requests_served(url: str) -> int:
    """How many requests the server has received so far."""
    return int(httpx.get(f"{url}/count").raise_for_status().json()["count"])


def check(log: Path, report: Path, env: dict[str, str], jobs: int) -> float:
    """Run `chatassert check` over `log` once; return its wall time."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            *(sys.executable, "-m", "chatassert", "check", "--assert", RUBRIC, str(log)),
            *("-f", "json", "-o", str(report), "--no-progress", "--jobs", str(jobs)),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"check exited {done.returncode}: {done.stderr[-2000:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the src to run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serving(args.delay) as url:
        folder = Path(tmp)
        log, one, report = folder / "log.jsonl", folder / "one.jsonl", folder / "report.jsonl"
        write_log(log, args.records)
        write_log(one, 1)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("CHATASSERT_")},
            "PYTHONPATH": str(args.src.resolve()),
            "CHATASSERT_JUDGE": "openai",
            "CHATASSERT_JUDGE_MODEL": "bench-model",
            "CHATASSERT_JUDGE_BASE_URL": f"{url}/v1",
            "CHATASSERT_JUDGE_CACHE": "off",
            "CHATASSERT_JUDGE_CONCURRENCY": str(args.concurrency),
            "OPENAI_API_KEY": "sk-bench",
        }
        walls, starts = [], []
        for _ in range(args.rounds):
            starts.append(check(one, report, env, args.jobs))
            before = requests_served(url)
            walls.append(check(log, report, env, args.jobs))
            asked = requests_served(url) - before
            rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
            passed = sum(row.get("result", {}).get("status") == "passed" for row in rows)
            if asked != args.records or passed != args.records:
                sys.exit(f"{asked} requests and {passed} passing cases for {args.records} records")
        start, wall = statistics.median(starts), statistics.median(walls)
        ideal = args.records / args.concurrency * args.delay
        print(
            f"{args.records} judged records, server delay {args.delay * 1000:.0f} ms, "
            f"concurrency {args.concurrency}, --jobs {args.jobs}, src {args.src}, load average "
            f"{os.getloadavg()[0]:.2f}"
        )
        print(
            f"wall {wall:.2f} s (median of {args.rounds}: {', '.join(f'{w:.2f}' for w in walls)}), "
            f"start-up {start:.2f} s; less start-up {wall - start:.2f} s against an ideal of "
            f"{ideal:.2f} s: {(wall - start) / ideal:.2f}x"
        )


if __name__ == "__main__":
    main()
