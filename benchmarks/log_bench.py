"""Offline validation at scale: `chatassert check` over a 1 GB OpenAI-format log.

Generates (seeded, by templating) a JSONL log of chat-completions transcripts of at least
`--size-gb` gigabytes into `benchmarks/data/`, writes a flat suite of deterministic checks, then
runs `python -m chatassert check SUITE LOG` with `--jobs 1` and `--jobs 2` (each under
`/usr/bin/time -v` when it exists, for the peak resident memory of the process tree), and
reports wall time, conversations/s, turns/s, MB/s, peak RSS and the speed-up of `--jobs 2`.
The generated data is deleted at the end unless `--keep` is given.

With `--failing`, the suite is one whose every check fails on every turn (the same four
assertion types, inverted), so every case fails and every report line carries failure trees:
the worst case for the report and for what workers send back.

Usage:
    python benchmarks/log_bench.py [--size-gb 1.0] [--seed 7] [--keep] [--failing]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

SUITE = """\
test_cases:
  - name: support agent
    turns:
      - user_input: "placeholder"
        assertions:
          - type: not_contains
            value: "internal error"
          - type: contains_any
            value: ["order", "refund", "booking", "table", "weather"]
          - type: matches
            value: "(?i)confirmed"
          - type: contains_function_call
            value: lookup
"""

FAILING_SUITE = """\
test_cases:
  - name: support agent
    turns:
      - user_input: "placeholder"
        assertions:
          - type: not_contains
            value: "confirmed"
          - type: contains_any
            value: ["invoice", "receipt"]
          - type: matches
            value: "(?i)cancelled"
          - type: contains_function_call
            value: create_refund
"""

CITIES = ["Paris", "Rome", "Oslo", "Lima", "Kyoto", "Austin", "Cairo", "Perth"]
TOPICS = ["order", "refund", "booking", "table", "weather"]
FILLER = (
    "The agent considered the request carefully, checked the records available to it, "
    "and wrote a helpful answer that explains the next steps in plain language. "
)


def _conversation(rng: random.Random) -> dict[str, object]:
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a helpful support agent. " + FILLER * 2}
    ]
    for turn in range(rng.randint(1, 4)):
        city, topic = rng.choice(CITIES), rng.choice(TOPICS)
        messages.append(
            {
                "role": "user",
                "content": f"About my {topic} in {city}, turn {turn}. "
                + FILLER * rng.randint(0, 2),
            }
        )
        call_id = f"call_{turn}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "lookup",
                            "arguments": json.dumps({"city": city, "topic": topic}),
                        },
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": json.dumps({"status": "ok", "items": list(range(8))}),
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": f"Your {topic} in {city} is confirmed. " + FILLER * rng.randint(1, 4),
            }
        )
    return {
        "id": "ID",
        "model": "gpt-4o-mini",
        "usage": {"prompt_tokens": rng.randint(100, 900), "completion_tokens": 80},
        "messages": messages,
    }


def generate(path: Path, size: int, seed: int) -> tuple[int, int]:
    """Write at least `size` bytes of log to `path`; return (conversations, user turns)."""
    rng = random.Random(seed)
    templates = []
    for _ in range(200):
        conv = _conversation(rng)
        turns = sum(1 for m in conv["messages"] if m["role"] == "user")  # type: ignore[index,union-attr]
        head, tail = json.dumps(conv).split('"ID"', 1)
        templates.append((head, tail, turns))
    written = conversations = turns = 0
    with path.open("w", encoding="utf-8") as f:
        while written < size:
            block = []
            for i in range(1000):
                head, tail, n = templates[(conversations + i) * 7919 % len(templates)]
                block.append(f'{head}"conv-{conversations + i}"{tail}\n')
                turns += n
            conversations += 1000
            text = "".join(block)
            f.write(text)
            written += len(text)
    return conversations, turns


def run(suite: Path, log: Path, jobs: int) -> dict[str, float]:
    """Run the check command once; return wall seconds, peak RSS (MB) and the exit code."""
    cmd = [
        sys.executable,
        "-m",
        "chatassert",
        "check",
        str(suite),
        str(log),
        "--jobs",
        str(jobs),
        "--no-progress",
    ]
    timer = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    if timer:
        cmd = [timer, "-v", *cmd]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"check failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    if timer:
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        peak = int(match.group(1)) / 1024 if match else float("nan")
    else:
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "wall": wall,
        "peak_mb": peak,
        "code": proc.returncode,
        "summary": proc.stdout.strip().splitlines()[-1],
    }  # type: ignore[dict-item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument(
        "--failing", action="store_true", help="check a suite that fails on every conversation"
    )
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    log, suite = DATA / "openai-chat.jsonl", DATA / "suite.yaml"
    suite.write_text(FAILING_SUITE if args.failing else SUITE, encoding="utf-8")
    start = time.perf_counter()
    conversations, turns = generate(log, int(args.size_gb * 1e9), args.seed)
    print(f"suite: {'every check fails (--failing)' if args.failing else 'mostly passing'}")
    size_mb = log.stat().st_size / 1e6
    print(
        f"generated {size_mb:,.0f} MB, {conversations:,} conversations, {turns:,} user turns "
        f"in {time.perf_counter() - start:.1f}s"
    )
    print(
        "note: /usr/bin/time -v measures peak RSS of the largest process: the main process, "
        "or one worker with --jobs 2"
    )
    try:
        results = {}
        for jobs in (1, 2):
            r = run(suite, log, jobs)
            results[jobs] = r
            print(
                f"--jobs {jobs}: {r['wall']:.1f}s, {conversations / r['wall']:,.0f} "
                f"conversations/s, {turns / r['wall']:,.0f} turns/s, "
                f"{size_mb / r['wall']:.1f} MB/s, peak RSS {r['peak_mb']:.0f} MB "
                f"(exit {r['code']}: {r['summary']})"
            )
        print(f"speed-up of --jobs 2 over --jobs 1: {results[1]['wall'] / results[2]['wall']:.2f}x")
    finally:
        if not args.keep:
            log.unlink(missing_ok=True)
            suite.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
