"""One large one-document log checked with `--jobs 1` and `--jobs 2`: its samples spread.

Generates (seeded) one Inspect AI eval log of `--samples` samples (5,000 by default: about
16 MB) as a pretty-printed `.json` file into `benchmarks/data/`, the conversations of
`log_bench.py` (a system prompt, one to four turns of user message, `lookup` tool call, tool
result and answer). With `--line` the same log is one line of a `.jsonl` file instead (a
line of a chunk's size or more, which the main process reads and spreads too). It runs
`python -m chatassert check SUITE LOG --jobs N -f json` with the four-check suite of
`log_bench.py` under `/usr/bin/time -v` (for the peak resident memory: that of the largest
single process, the main process or one worker), for `--jobs 1` then `--jobs 2`, `--rounds`
times each, alternating, and reports each run's wall time and peak RSS, the medians, and
whether the JSON reports of the two are the same (durations aside). With `--cpu`, one more
run of each splits its CPU seconds between the main process and its workers (what a loaded
machine's wall times cannot show: where the work was done). The generated data is deleted at
the end unless `--keep` is given.

Usage:
    python benchmarks/document_bench.py [--samples 5000] [--rounds 3] [--seed 7] [--line]
        [--cpu] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from log_bench import SUITE, _conversation, as_inspect_sample, cpu_split  # noqa: E402

DATA = HERE / "data"
TIMER = "/usr/bin/time"


def generate(path: Path, samples: int, seed: int, line: bool) -> int:
    """Write an Inspect eval log of `samples` samples to `path`; return the user turns."""
    rng = random.Random(seed)
    items = []
    turns = 0
    for n in range(samples):
        conv = _conversation(rng)
        conv["id"] = f"sample-{n}"
        turns += sum(1 for m in conv["messages"] if m["role"] == "user")  # type: ignore[index,union-attr]
        items.append(as_inspect_sample(conv))
    log = {"version": 2, "status": "success", "eval": {"task": "support", "model": "m"},
           "samples": items}  # fmt: skip
    text = json.dumps(log) + "\n" if line else json.dumps(log, indent=1)
    path.write_text(text, encoding="utf-8")
    return turns


def run(suite: Path, log: Path, jobs: int, report: Path) -> tuple[float, float, str]:
    """One check run: (wall seconds, peak RSS in MB, its summary line)."""
    cmd = [sys.executable, "-m", "chatassert", "check", str(suite), str(log), "--jobs",
           str(jobs), "--no-progress", "-f", "json", "-o", str(report)]  # fmt: skip
    timed = os.path.exists(TIMER)
    start = time.perf_counter()
    proc = subprocess.run(
        [TIMER, "-v", *cmd] if timed else cmd, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"check failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    peak = int(match.group(1)) / 1024 if match else float("nan")
    summary = report.read_text(encoding="utf-8").splitlines()[-1]
    return wall, peak, summary


def _without_durations(path: Path) -> str:
    return re.sub(r'"duration": [0-9.e-]+', '"duration": 0', path.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--line", action="store_true", help="write the log as one JSONL line")
    parser.add_argument("--cpu", action="store_true", help="split CPU seconds by process")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    DATA.mkdir(exist_ok=True)
    suite = DATA / "document-suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    log = DATA / ("inspect-log.jsonl" if args.line else "inspect-log.json")
    reports = {jobs: DATA / f"document-report-{jobs}.jsonl" for jobs in (1, 2)}
    start = time.perf_counter()
    turns = generate(log, args.samples, args.seed, args.line)
    size_mb = log.stat().st_size / 1e6
    print(
        f"generated {log.name}: {size_mb:.1f} MB, {args.samples:,} samples, {turns:,} user "
        f"turns in {time.perf_counter() - start:.1f}s; load average {os.getloadavg()[0]:.1f}"
    )
    try:
        walls: dict[int, list[float]] = {1: [], 2: []}
        peaks: dict[int, list[float]] = {1: [], 2: []}
        for round_ in range(args.rounds):
            for jobs in (1, 2):
                wall, peak, summary = run(suite, log, jobs, reports[jobs])
                walls[jobs].append(wall)
                peaks[jobs].append(peak)
                print(
                    f"round {round_ + 1} --jobs {jobs}: {wall:.2f}s, "
                    f"{args.samples / wall:,.0f} samples/s, peak RSS {peak:.0f} MB  {summary}"
                )
        same = _without_durations(reports[1]) == _without_durations(reports[2])
        for jobs in (1, 2):
            print(
                f"--jobs {jobs}: median {statistics.median(walls[jobs]):.2f}s (best "
                f"{min(walls[jobs]):.2f}s), peak RSS median {statistics.median(peaks[jobs]):.0f}"
                f" MB (max {max(peaks[jobs]):.0f} MB)"
            )
        speedup = statistics.median(walls[1]) / statistics.median(walls[2])
        print(f"speed-up of --jobs 2 over --jobs 1 (medians): {speedup:.2f}x")
        print(f"JSON reports of --jobs 1 and --jobs 2 the same (durations aside): {same}")
        if args.cpu:
            for jobs in (1, 2):
                own, kids = cpu_split(suite, log, jobs, ("-f", "json", "-o", str(reports[jobs])))
                print(f"--jobs {jobs} CPU: main process {own:.2f} s, workers {kids:.2f} s")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        if not same:
            raise SystemExit(1)
    finally:
        if not args.keep:
            for path in (log, suite, *reports.values()):
                path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
