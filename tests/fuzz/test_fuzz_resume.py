"""Fuzzing resume (`check --engine ray --results DIR --resume`): results files of any content.

The contract under test (`cli.results`), with the file tasks run in this process
(`tests/integrations/resume_helpers.py`: the code a Ray task runs, and the same planning
and saving): whatever the results directory holds (files cut short, rows of any shape,
headers of any values, rows repeated, swapped, removed or inserted, stray bytes, hashes of
other bytes), and whatever became of the logs since (rewritten with the same size, appended
to, cut short), a resumed run (with `--rejudge-errors` or not) raises nothing and reports
exactly the verdicts and record count of a fresh run over the logs as they are now; each
results file it does not use is named on one line. A file whose digest was recomputed after
its rows were changed (as a broken writer would leave it) may be trusted; its rows then go
through a summary and every report format without an error.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "integrations"))
from optional_engines import optional_module

optional_module("pyarrow", "CHATASSERT_REQUIRE_RAY")

from resume_helpers import SPECS, Run, log_lines, run_files  # noqa: E402

from chatassert.integrations.ray import _HEADER, CheckerSpec, ResultsDir, _digest  # noqa: E402
from chatassert.records import Checker, ReportWriter, Summary, inline_suite  # noqa: E402


@dataclass
class _World:
    """Two logs, their pristine results and a fresh run's report, made once."""

    root: Path
    logs: list[Path]
    data: list[bytes]
    results: Path
    saved: dict[str, bytes]
    fresh: Run


_DIR = tempfile.TemporaryDirectory(prefix="chatassert-fuzz-resume-")


@functools.cache
def _checker() -> CheckerSpec:
    """One checker description for every run (each task builds its checker once)."""
    return CheckerSpec.of(Checker([inline_suite(SPECS)]))


@functools.cache
def world() -> _World:
    root = Path(_DIR.name)
    logs = [root / "a.jsonl", root / "b.jsonl.gz"]
    texts = ["".join(x + "\n" for x in log_lines(seed, 6)) for seed in (1, 2)]
    data = [texts[0].replace("\n", "\n\n", 1).encode(), gzip.compress(texts[1].encode())]
    for path, content in zip(logs, data, strict=True):
        path.write_bytes(content)
    results = root / "results"
    fresh = run_files(logs, _checker(), results)
    saved = {p.name: p.read_bytes() for p in results.iterdir()}
    return _World(root, logs, data, results, saved, fresh)


# -- corrupting a results file -------------------------------------------------------------------

_KEYS = sorted(_HEADER | {"digest", "kind", "source", "status", "tags", "duration", "result"})


@functools.cache
def values() -> st.SearchStrategy[Any]:
    """Values a header or row field may be given: JSON of any kind and the near misses."""
    return st.one_of(
        specgen.json_values(),
        st.sampled_from(
            [-5, -1, 0, True, False, None, 2**70, 1e308, "x", "", [], {}, "a" * 64, "0" * 64]
        ),
        st.sampled_from(["case", "unreadable", "unmatched", "passed", "error", "[]", "{}"]),
    )


@functools.cache
def operations() -> st.SearchStrategy[tuple[Any, ...]]:
    """One change to a results file's lines (line numbers are taken modulo its length)."""
    line = st.integers(0, 40)
    return st.one_of(
        st.tuples(st.just("cut"), st.floats(0, 1)),
        st.tuples(st.just("line"), line, values()),
        st.tuples(st.just("raw"), line, st.binary(max_size=20)),
        st.tuples(st.just("field"), line, st.sampled_from(_KEYS), values()),
        st.tuples(st.just("drop"), line, st.sampled_from(_KEYS)),
        st.tuples(st.just("repeat"), line, line),
        st.tuples(st.just("swap"), line, line),
        st.tuples(st.just("delete"), line),
        st.tuples(st.just("insert"), line, values()),
        st.tuples(st.just("bytes"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
        st.tuples(st.just("gone")),
    )


def _changed(lines: list[bytes], op: tuple[Any, ...]) -> list[bytes] | None:
    """`lines` after `op` (None: the file is gone)."""
    kind = op[0]
    if kind == "gone":
        return None
    whole = b"".join(x + b"\n" for x in lines)
    if kind in ("cut", "bytes"):
        at = int(op[1] * len(whole))
        cut = whole[:at] if kind == "cut" else whole[:at] + op[2] + whole[at:]
        return cut.split(b"\n")[:-1] + ([cut.rsplit(b"\n", 1)[-1]] if cut[-1:] != b"\n" else [])
    lines = list(lines) or [b""]
    i = op[1] % len(lines)
    if kind == "line":
        lines[i] = json.dumps(op[2]).encode()
    elif kind == "raw":
        lines[i] = op[2].replace(b"\n", b" ")
    elif kind in ("field", "drop"):
        try:
            item = json.loads(lines[i])
        except ValueError:
            return lines
        if isinstance(item, dict):
            if kind == "field":
                item[op[2]] = op[3]
            else:
                item.pop(op[2], None)
            lines[i] = json.dumps(item).encode()
    elif kind in ("repeat", "swap"):
        j = op[2] % len(lines)
        if kind == "repeat":
            lines[j] = lines[i]
        else:
            lines[i], lines[j] = lines[j], lines[i]
    elif kind == "delete":
        del lines[i]
    elif kind == "insert":
        lines.insert(i, json.dumps(op[2]).encode())
    return lines


def _forged(lines: list[bytes]) -> list[bytes]:
    """The lines with the header's digest made to match them, where the header allows."""
    try:
        header = json.loads(lines[0])
        header["digest"] = _digest(header, lines[1:])
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return lines
    return [json.dumps(header).encode(), *lines[1:]]


# -- changing a log since its results were written ---------------------------------------------


def _log_changed(data: bytes, how: str, gz: bool) -> bytes:
    text = gzip.decompress(data) if gz else data
    if how == "rewritten":
        text = text.replace(b"refund", b"refuse").replace(b"Done", b"Gone")
    elif how == "appended":
        text += b'{"id": "late", "turns": [{"input": "q", "text": "sorry"}]}\n'
    elif how == "cut":
        text = text[: len(text) // 2]
    return gzip.compress(text) if gz else text


def _through_reports(run: Run) -> None:
    """Every row of a run counted by a summary and written in every report format."""
    outputs = {fmt: io.StringIO() for fmt in ("text", "json", "junit", "html", "otel")}
    writer = ReportWriter(outputs)
    summary = Summary(records=run.records)
    for row in run.rows:
        summary.add_row(row)
        writer.add(row)
    writer.finish(summary)
    assert summary.exit_code() in (0, 1, 3, 4)


@given(
    changes=st.lists(
        st.tuples(st.integers(0, 1), st.lists(operations(), min_size=1, max_size=3)),
        max_size=3,
    ),
    forge=st.booleans(),
    log_change=st.tuples(
        st.integers(0, 1), st.sampled_from(["none", "rewritten", "appended", "cut"])
    ),
    rejudge=st.booleans(),
)
@fuzz_target("cli.results")
def test_resume_over_any_results_gives_a_fresh_runs_verdicts(
    changes: list[tuple[int, list[tuple[Any, ...]]]],
    forge: bool,
    log_change: tuple[int, str],
    rejudge: bool,
) -> None:
    w = world()
    shutil.rmtree(w.results, ignore_errors=True)
    w.results.mkdir()
    files = {ResultsDir(w.results).file_for(str(log)).name: log for log in w.logs}
    lines = {name: data.split(b"\n")[:-1] for name, data in w.saved.items()}
    gone: set[str] = set()
    for which, ops in changes:
        name = ResultsDir(w.results).file_for(str(w.logs[which])).name
        for op in ops:
            if name in gone:
                break
            now = _changed(lines[name], op)
            if now is None:
                gone.add(name)
            else:
                lines[name] = now
        if forge and name not in gone:
            lines[name] = _forged(lines[name])
    for name, body in lines.items():
        if name not in gone:
            (w.results / name).write_bytes(b"".join(x + b"\n" for x in body))
    index, how = log_change
    log = w.logs[index]
    try:
        if how != "none":
            log.write_bytes(_log_changed(w.data[index], how, log.suffix == ".gz"))
        fresh = w.fresh if how == "none" else run_files(w.logs, _checker())
        resumed = run_files(w.logs, _checker(), w.results, resume=True, rejudge_errors=rejudge)
    finally:
        log.write_bytes(w.data[index])
    _through_reports(resumed)
    for said in resumed.said:
        assert said.startswith("chatassert check: "), said
        assert os.linesep not in said.strip()
    refused = [s for s in resumed.said if "again" in s and "changed since" not in s]
    assert len(refused) <= len(files)
    if not forge:
        assert resumed.verdicts == fresh.verdicts
        assert resumed.records == fresh.records
        untouched = {n for n in files if n not in gone and lines[n] == w.saved[n].split(b"\n")[:-1]}
        if how == "none":  # a file left as written is used: its log is not checked again
            assert not {str(files[n]) for n in untouched} & set(resumed.checked)
