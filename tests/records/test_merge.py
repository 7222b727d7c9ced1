"""Summaries merge across partitions: any split and any grouping give the one run's summary;
and the command line's reports equal those built from partitions checked with the API."""

from __future__ import annotations

import io
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings, strategies as st
from records_helpers import SPECS, log_lines

from chatassert.records import Checker, ReportWriter, Row, Summary, inline_suite
from cli_runs import without_durations

SRC = Path(__file__).resolve().parents[2] / "src"


def partition_summary(lines: list[tuple[int, str]], keep: int = 10) -> Summary:
    checker = Checker([inline_suite(SPECS)])
    summary = Summary(keep=keep, records=0)
    for number, line in lines:
        for row in checker.check_line(line, "log.jsonl", number):
            summary.add_row(Row.from_row(row.to_row()))  # as an engine ships it
        summary.records = (summary.records or 0) + 1
    return Summary.from_dict(json.loads(json.dumps(summary.to_dict())))


def counts(summary: Summary) -> dict[str, Any]:
    """Everything but the examples (which examples are kept depends on the merge order)."""
    data = summary.to_dict()
    for examples in ("failures", "unreadable", "disagreements"):
        data.pop(examples)
    return data


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cuts=st.lists(st.integers(0, 30), max_size=5),
    order=st.randoms(use_true_random=False),
)
def test_merging_partitions_in_any_grouping_gives_the_whole_run(
    seed: int, cuts: list[int], order: Any
) -> None:
    lines = list(enumerate(log_lines(seed, 30), start=1))
    whole = partition_summary(lines)
    bounds = [0, *sorted(cuts), len(lines)]
    parts = [partition_summary(lines[a:b]) for a, b in itertools.pairwise(bounds)]
    # in order, left to right: the same counts and the same first examples
    merged = Summary(keep=10, records=0)
    for part in parts:
        merged.merge(part)
    assert counts(merged) == counts(whole)
    assert [(o.source, o.result.status) for o in merged.failures] == [
        (o.source, o.result.status) for o in whole.failures
    ]
    assert merged.unreadable == whole.unreadable
    # in any order and grouping: the same counts
    shuffled = parts[:]
    order.shuffle(shuffled)
    while len(shuffled) > 1:
        i = order.randrange(len(shuffled) - 1)
        shuffled[i : i + 2] = [shuffled[i].merge(shuffled[i + 1])]
    assert counts(shuffled[0]) == counts(whole)


def test_partitions_checked_with_the_api_report_what_the_command_line_does(
    tmp_path: Path,
) -> None:
    lines = log_lines(7, 120)
    log = tmp_path / "log.jsonl"
    log.write_text("".join(line + "\n" for line in lines))
    args = [a for spec in SPECS for a in ("--assert", spec)]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", *args, "log.jsonl",
         "-o", "cli.jsonl", "-o", "cli.txt"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    # four partitions, each checked by its own checker (as engine tasks would)
    numbered = list(enumerate(lines, start=1))
    summaries, rows = [], []
    for k in range(4):
        checker = Checker([inline_suite(SPECS)], formats=["json"])
        part = Summary(keep=10, records=0)
        for number, line in numbered[k * 30 : (k + 1) * 30]:
            for row in checker.check_line(line, "log.jsonl", number):
                part.add_row(row)
                rows.append(Row.from_row(row.to_row()))
            part.records = (part.records or 0) + 1
        summaries.append(Summary.from_dict(part.to_dict()))
    # grouped as a tree would merge them, in input order: (1 2) (3 4)
    right = summaries[2].merge(summaries[3])
    total = Summary(keep=10, records=0).merge(summaries[0]).merge(summaries[1]).merge(right)
    final = Checker([inline_suite(SPECS)], formats=["json"]).finish(total)
    assert final == []
    outs = {"json": io.StringIO(), "text": io.StringIO()}
    writer = ReportWriter(outs)
    for row in rows:
        writer.add(row)
    writer.finish(total)
    cli_json = (tmp_path / "cli.jsonl").read_text().splitlines()
    api_json = outs["json"].getvalue().splitlines()
    assert [without_durations(json.loads(x)) for x in api_json] == [
        without_durations(json.loads(x)) for x in cli_json
    ]
    assert outs["text"].getvalue() == (tmp_path / "cli.txt").read_text()
