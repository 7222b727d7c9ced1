"""`chatassert check --engine ray` against `check --jobs 2` on the same generated log.

Writes a log of about `--mb` megabytes of conversations (with failing cases and unreadable
lines) as `--files` JSONL files, then runs both engines on it, each as the command users
run, and prints wall time, records per second and the peak memory of the whole process tree
(the command, and for Ray its raylet, object store and workers), sampled every 0.1 s. The
start-up row is the same command on a one-line log. Needs `pip install chatassert[ray]`.

    python benchmarks/ray_bench.py --mb 100 --files 8
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ASSERTS = ["{type: contains, value: refund}", "{type: max_length, max: 60}"]


def generate(root: Path, megabytes: int, files: int) -> int:
    """Write the log; returns its record count."""
    rnd = random.Random(1)
    texts = ["Your refund is on its way.", "No.", "A refund " + "really " * 12 + "long.", "Done."]
    target = megabytes * 1_000_000 // files
    count = 0
    for n in range(files):
        size = 0
        with (root / f"part-{n:03d}.jsonl").open("w", encoding="utf-8") as f:
            while size < target:
                if rnd.random() < 0.01:
                    line = "{not json\n"
                else:
                    record = {
                        "id": f"c{count}",
                        "turns": [{"input": "Where is my refund?", "text": rnd.choice(texts)}],
                    }
                    line = json.dumps(record) + "\n"
                f.write(line)
                size += len(line)
                count += 1
    return count


def _tree_rss(root: int) -> int:
    """The summed resident memory of `root` and its descendants (Linux /proc)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return sum(rss.get(pid, 0) for pid in tree)


def run(command: list[str]) -> tuple[float, int]:
    """Wall seconds and the peak summed RSS of the process tree."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.1)
    return time.perf_counter() - started, peak


def main() -> None:
    """Run the comparison and print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--files", type=int, default=8)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        logs = root / "logs"
        logs.mkdir()
        records = generate(logs, options.mb, options.files)
        tiny = root / "tiny.jsonl"
        tiny.write_text('{"turns": [{"text": "refund"}]}\n', encoding="utf-8")
        base = [sys.executable, "-m", "chatassert", "check", "-q"]
        base += [f"--assert={a}" for a in ASSERTS]
        engines = {"check --jobs 2": ["--jobs", "2"], "check --engine ray": ["--engine", "ray"]}
        print(f"{records:,} records, {options.mb} MB in {options.files} files")
        print("| engine | wall | records/s | peak RSS (process tree) | start-up (1 record) |")
        print("|---|---|---|---|---|")
        for name, extra in engines.items():
            wall, peak = run([*base, *extra, "-o", str(root / "r.jsonl"), str(logs)])
            start, _ = run([*base, *extra, "-o", str(root / "t.jsonl"), str(tiny)])
            print(
                f"| `{name}` | {wall:.1f} s | {records / wall:,.0f} | "
                f"{peak / 1e6:,.0f} MB | {start:.1f} s |"
            )


if __name__ == "__main__":
    main()
