"""Throughput of the expect checks against a hand-written plain-Python baseline.

Generates (seeded) synthetic note-search responses, loads one expect object through the public
API (`chatassert.specs.loads_suite`) and alternates two runners over the same responses:

- **library**: `case.check(response)`, producing the full result tree (one child per key);
- **baseline**: a hand-written function doing the same checks on the same dicts and producing
  a small `{"passed": bool, "reason": str}` record per check, with the same reason on failure.

Before timing, both runners are compared check by check (status and reason), so the baseline
does the same work. Reports median and best responses/s and checks/s of each, and the ratio
library / baseline; the exit code is 0 when the median ratio is at least 0.33.

Usage:
    python benchmarks/expect_bench.py [--responses 5000] [--rounds 7] [--seed 20260115] [--no-gc]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import chatassert
from chatassert import Status
from chatassert.specs import loads_suite

EXPECT: dict[str, Any] = {
    "status": "success",
    "results_min": 1,
    "results_max": 10,
    "has_fields": ["results", "summary", "pagination.total"],
    "field_equals": {"pagination.offset": 0},
    "all_match": {"path": "results[*].metadata.type", "value": "note"},
    "all_match_pattern": {"path": "results[*].file", "regex": "^journal/"},
    "none_match_pattern": {"path": "results[*].file", "regex": "^(people/|documents/)"},
    "all_have_tags": ["work"],
    "none_have_tags": ["draft"],
    "all_in_range": {"path": "results[*].relevance", "min": 0.0, "max": 1.0},
    "sorted_desc": {"path": "results[*].relevance"},
    "all_dates_between": {
        "path": "results[*].metadata.created",
        "start": "2026-01-01",
        "end": "2026-01-31",
    },
    "summary_contains": "notes",
}

DIRS = ["journal/2026/01/", "journal/2026/01/", "journal/2026/01/", "work/", "people/"]
TAGS = ["work", "security", "incident", "draft", "personal"]


def make_responses(n: int, seed: int, fail_rate: float = 0.1) -> list[dict[str, Any]]:
    """Synthetic search responses: about `fail_rate` of them break one check, the rest pass."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        count = rng.randint(1, 8)
        relevance = sorted((round(rng.random(), 3) for _ in range(count)), reverse=True)
        results = []
        for j in range(count):
            tags = ["work", *rng.sample(TAGS[1:3], rng.randint(0, 2))]
            results.append(
                {
                    "file": f"journal/2026/01/n{i}-{j}.md",
                    "relevance": relevance[j],
                    "metadata": {
                        "type": "note",
                        "tags": tags,
                        "created": f"2026-01-{rng.randint(1, 31):02d}"
                        f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
                    },
                }
            )
        response: dict[str, Any] = {
            "status": "success",
            "summary": f"Found {count} notes",
            "results": results,
            "pagination": {"total": count, "offset": 0},
        }
        if rng.random() < fail_rate:
            _break(rng, response)
        out.append(response)
    return out


def _break(rng: random.Random, response: dict[str, Any]) -> None:
    """Make one realistic mistake in a response."""
    results = response["results"]
    item = rng.choice(results)
    mistake = rng.randrange(8)
    if mistake == 0:
        response["status"] = "error"
    elif mistake == 1:
        item["file"] = rng.choice(DIRS[3:]) + "leak.md"
    elif mistake == 2:
        item["metadata"]["tags"] = ["personal", "draft"]
    elif mistake == 3:
        item["metadata"]["type"] = "incident-log"
    elif mistake == 4:
        item["relevance"] = 1.2
    elif mistake == 5:
        item["metadata"]["created"] = "2026-02-05T10:00:00Z"
    elif mistake == 6:
        response["pagination"]["offset"] = 5
    else:
        response["results"] = []


# -- the hand-written baseline -------------------------------------------------------------

_JOURNAL = re.compile("^journal/")
_SENSITIVE = re.compile("^(people/|documents/)")
_START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
_END = dt.datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=dt.UTC)


def _q(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else json.dumps(value)


def baseline(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The same checks written by hand, one small record per check."""
    out: list[dict[str, Any]] = []
    ok = {"passed": True, "reason": ""}
    status = r.get("status")
    out.append(
        ok
        if status == "success"
        else {"passed": False, "reason": f"Expected status 'success', got {_q(status)}"}
    )
    results = r.get("results")
    n = len(results) if isinstance(results, list) else None
    out.append(
        ok
        if n is not None and n >= 1
        else {"passed": False, "reason": f"Expected at least 1 result, got {n}"}
    )
    out.append(
        ok
        if n is not None and n <= 10
        else {"passed": False, "reason": f"Expected at most 10 results, got {n}"}
    )
    missing = [
        p
        for p, present in (
            ("results", "results" in r),
            ("summary", "summary" in r),
            (
                "pagination.total",
                isinstance(r.get("pagination"), dict) and "total" in r["pagination"],
            ),
        )
        if not present
    ]
    out.append(ok if not missing else {"passed": False, "reason": f"Missing field: {missing[0]}"})
    offset = r.get("pagination", {}).get("offset")
    out.append(
        ok
        if offset == 0 and type(offset) is int
        else {"passed": False, "reason": f"pagination.offset: expected 0, got {_q(offset)}"}
    )
    items = results or []
    rec = ok
    for i, item in enumerate(items):
        t = item["metadata"]["type"]
        if t != "note":
            rec = {
                "passed": False,
                "reason": f"Found non-matching item: {_q(t)} at results[{i}].metadata.type",
            }
            break
    out.append(rec)
    rec = ok
    for i, item in enumerate(items):
        if not _JOURNAL.search(item["file"]):
            rec = {
                "passed": False,
                "reason": f"File {_q(item['file'])} at results[{i}] "
                "doesn't match pattern '^journal/'",
            }
            break
    out.append(rec)
    rec = ok
    for i, item in enumerate(items):
        if _SENSITIVE.search(item["file"]):
            rec = {
                "passed": False,
                "reason": f"File {_q(item['file'])} at results[{i}] "
                "matches excluded pattern '^(people/|documents/)'",
            }
            break
    out.append(rec)
    rec = ok
    for i, item in enumerate(items):
        if "work" not in item["metadata"]["tags"]:
            rec = {"passed": False, "reason": f"Result {i} missing required tag: 'work'"}
            break
    out.append(rec)
    rec = ok
    for i, item in enumerate(items):
        if "draft" in item["metadata"]["tags"]:
            rec = {"passed": False, "reason": f"Result {i} has excluded tag: 'draft'"}
            break
    out.append(rec)
    rec = ok
    for i, item in enumerate(items):
        v = item["relevance"]
        if not 0.0 <= v <= 1.0:
            rec = {
                "passed": False,
                "reason": f"Value {v} at results[{i}].relevance is outside range 0.0-1.0",
            }
            break
    out.append(rec)
    rec = ok
    for i in range(1, len(items)):
        if items[i]["relevance"] > items[i - 1]["relevance"]:
            rec = {"passed": False, "reason": f"Values not sorted descending at index {i}"}
            break
    out.append(rec)
    rec = ok
    for i, item in enumerate(items):
        created = item["metadata"]["created"]
        when = dt.datetime.fromisoformat(created)
        if not _START <= when <= _END:
            rec = {
                "passed": False,
                "reason": f"Date {created[:10]} at "
                f"results[{i}].metadata.created is outside range 2026-01-01 to 2026-01-31",
            }
            break
    out.append(rec)
    summary = r.get("summary")
    out.append(
        ok
        if isinstance(summary, str) and "notes" in summary.lower()
        else {"passed": False, "reason": "Expected summary to contain 'notes'"}
    )
    return out


# -- running ---------------------------------------------------------------------------------


def compare(case: Any, responses: list[dict[str, Any]]) -> int:
    """Check both runners agree on every check's outcome and reason; return the check count."""
    checks = 0
    for r in responses:
        lib = case.check(r).children
        base = baseline(r)
        assert len(lib) == len(base) == len(EXPECT)
        for key, a, b in zip(EXPECT, lib, base, strict=True):
            assert (a.status is Status.PASSED) == b["passed"], (key, r, a, b)
            if not b["passed"]:
                # the library's reasons say a little more (the item path, "(and N more)")
                assert a.reason.startswith(b["reason"].split(" at ")[0]), (key, a.reason, b)
            checks += 1
    return checks


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20260115)
    parser.add_argument(
        "--fail-rate",
        type=float,
        default=0.1,
        help="share of responses with one mistake (default 0.1)",
    )
    parser.add_argument("--no-gc", action="store_true", help="disable the GC while timing")
    args = parser.parse_args(argv)

    responses = make_responses(args.responses, args.seed, args.fail_rate)
    suite = loads_suite(json.dumps(EXPECT))
    (case,) = suite.cases
    checks = compare(case, responses)
    failing = sum(not case.check(r).passed for r in responses)

    def library() -> list[Any]:
        return [case.check(r) for r in responses]

    def hand() -> list[Any]:
        return [baseline(r) for r in responses]

    lib_times: list[float] = []
    base_times: list[float] = []
    for _ in range(args.rounds):
        for runner, times in ((library, lib_times), (hand, base_times)):
            gc.collect()
            if args.no_gc:
                gc.disable()
            try:
                times.append(timed(runner))
            finally:
                gc.enable()

    def rate(times: list[float], pick: Callable[[list[float]], float]) -> tuple[float, float]:
        t = pick(times)
        return args.responses / t, checks / t

    print(
        f"chatassert {chatassert.__version__}, Python {platform.python_version()} "
        f"({platform.machine()}), {sys.platform}"
    )
    print(
        f"{args.responses} responses, {len(EXPECT)} expect keys, {checks} checks, "
        f"{args.rounds} alternating rounds, GC {'off' if args.no_gc else 'on'} while timing, "
        f"{failing} responses failing"
    )
    for name, times in (("library", lib_times), ("baseline", base_times)):
        med_r, med_c = rate(times, statistics.median)
        best_r, _ = rate(times, min)
        print(
            f"{name:9} median {med_r:10,.0f} responses/s {med_c:11,.0f} checks/s "
            f"({1e6 / med_c:.2f} µs/check); best {best_r:10,.0f} responses/s"
        )
    ratio = statistics.median(base_times) / statistics.median(lib_times)
    best = min(base_times) / min(lib_times)
    print(f"ratio library/baseline: median {ratio:.2f}, best {best:.2f} (target >= 0.33)")
    return 0 if ratio >= 0.33 else 1


if __name__ == "__main__":
    sys.exit(main())
