"""Running `check --engine ray`'s file tasks in this process, for the resume tests and fuzzing.

`run_files` runs the same code a Ray task runs for each log (`_CheckFiles.file`), in input
order, through the same planning and saving (`_resumed`) that `check_files` gives Ray: what
resume decides and keeps, without a cluster.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatassert.integrations.ray import CheckerSpec, ResultsDir, _CheckFiles, _resumed
from chatassert.records import Checker, Row

SPECS = [
    "{type: contains, value: refund}",
    "{type: not_contains, value: sorry}",
    "{type: min_length, min: 6}",
]
"""Inline assertions every conversation of `log_lines` is checked against."""


def log_lines(seed: int, count: int) -> list[str]:
    """`count` log lines: conversations (some failing a spec of `SPECS`) and bad lines."""
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        pick = rng.random()
        if pick < 0.08:
            lines.append("not json at all")
        elif pick < 0.12:
            lines.append("[1, 2]")
        else:
            texts = ["Your refund is on its way.", "Sorry, no refund.", "Done.", "sorry"]
            turns = [
                {"input": f"question {i}.{t}", "text": rng.choice(texts)}
                for t in range(rng.randint(1, 3))
            ]
            lines.append(json.dumps({"id": f"c{i}", "turns": turns}))
    return lines


VERDICT = ("kind", "source", "suite", "case", "status", "subject_id", "error")
"""The columns of a row that say what was found (not how long it took)."""


@dataclass
class Run:
    """What a run gave: each row's verdict, the records counted, what it said, the log files
    whose records were checked (not only reused), and the rows themselves."""

    verdicts: list[tuple[Any, ...]]
    records: int
    said: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


def run_files(
    paths: Sequence[str | Path],
    checker: Checker | CheckerSpec,
    results: Path | None = None,
    *,
    resume: bool = False,
    rejudge_errors: bool = False,
) -> Run:
    """Check `paths` as `check_files` does, its tasks run here, in order (a checker's
    description is built into a checker once per process: pass one to run it often)."""
    spec = checker if isinstance(checker, CheckerSpec) else CheckerSpec.of(checker)
    done = Run([], 0)

    def task(plans: Any) -> _CheckFiles:
        return _CheckFiles(spec, None, plans=plans)

    def run(fn: _CheckFiles, inputs: list[str]) -> Iterator[dict[str, Any]]:
        for index, name in enumerate(inputs):
            items = fn.file(name, index)
            if items[-1]["checked"] != "none":
                done.checked.append(name)
            yield from items

    steps = any(case.steps for suite in spec.suites for case in suite.cases)
    items = _resumed(
        [str(p) for p in paths],
        task,
        run,
        ResultsDir(results) if results is not None else None,
        resume=resume,
        rejudge_errors=rejudge_errors,
        say=done.said.append,
        whole_files=steps,
    )
    for item in items:
        if isinstance(item, int):
            done.records += item
        else:
            assert isinstance(item, Row)
            done.rows.append(item)
            data = item.to_row()
            done.verdicts.append(tuple(data[k] for k in VERDICT))
    return done
