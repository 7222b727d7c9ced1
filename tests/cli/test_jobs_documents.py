"""`check --jobs N` over one-document logs (an Inspect eval log, a promptfoo output, an ADK
eval set, a trace export, a run list, a JSON array of records): the parts of one document are
read and checked across the worker pool, a batch at a time, and the run reports what
`--jobs 1` reports — rows, reports, listed lines and exit code — through the command line (as a
subprocess with workers; `--jobs 1` in this process, tests/cli_runs.py); and the engine's
pieces: what it sends each worker, how it cuts a file.
"""

from __future__ import annotations

import gc
import gzip
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert._cli import _worker
from chatassert._cli._engine import (
    CHUNK_BYTES,
    _record_items,
    _tasks,
    checked_items,
    line_pieces,
)
from chatassert._cli._plan import Plan, load_suites, make_checker
from chatassert.records import RECORD_END, RecordEnd, Row
from chatassert.transcripts import PARTS, numbered_lines, open_text
from cli_runs import run_in_process

SAMPLES = Path(__file__).parent.parent / "transcripts" / "samples"

PARIS = "{type: contains, value: Paris}"
E = '{type: contains, value: "e"}'


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", *args, "--no-progress"],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def _timeless(text: str) -> str:
    """A report without its durations (JSON `duration`, JUnit `time`), which differ by run."""
    text = re.sub(r'"duration": [0-9.e-]+', '"duration": 0', text)
    return re.sub(r'time="[0-9.e-]+"', 'time="0"', text)


def _outcome(folder: Path, jobs: int, *args: str, stdin: bytes | None = None) -> dict[str, Any]:
    """Everything a run gives: exit code, standard output and error, its JSON and JUnit
    reports (written as files beside the text report on standard output)."""
    json_report, junit_report = folder / f"report-{jobs}.jsonl", folder / f"report-{jobs}.xml"
    runner = run if jobs != 1 else run_in_process
    out = runner(
        "check",
        *args,
        "--jobs",
        str(jobs),
        "-o",
        "-",
        "-o",
        json_report.name,
        "-o",
        junit_report.name,
        *(("--no-progress",) if runner is run_in_process else ()),  # as `run` adds it
        cwd=folder,
        stdin=stdin,
    )
    assert out.returncode in (0, 1, 2), out.stderr
    return {
        "code": out.returncode,
        "stdout": _timeless(out.stdout),
        "stderr": out.stderr,
        "json": _timeless(json_report.read_text(encoding="utf-8")),
        "junit": _timeless(junit_report.read_text(encoding="utf-8")),
    }


def _rows(outcome: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in outcome["json"].splitlines()]


def _write_documents(folder: Path) -> list[str]:
    """One pretty-printed `.json` document per sample record of every format with parts, and
    per format a JSON array of its records with a record of no format in the middle (an
    unreadable part, with readable parts on both sides); a document that is not JSON; a
    document of one conversation. Returns the file names, in order."""
    names: list[str] = []
    for name in PARTS:
        records = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
        for index, record in enumerate(records):
            names.append(f"{name}-{index}.json")
            (folder / names[-1]).write_text(json.dumps(record, indent=1), encoding="utf-8")
        objects = [record for record in records if isinstance(record, dict)]
        names.append(f"{name}-array.json")
        array = [*objects, {"bogus": True}, *objects]
        (folder / names[-1]).write_text(json.dumps(array, indent=1), encoding="utf-8")
    (folder / "broken.json").write_text('{\n "samples": [\n  {"id": 1,\n', encoding="utf-8")
    one = {"turns": [{"input": "Capital?", "text": "Paris, I believe."}]}
    (folder / "one.json").write_text(json.dumps(one, indent=1), encoding="utf-8")
    return [*names, "broken.json", "one.json"]


@pytest.mark.parametrize(
    "options", [(), ("--strict",), ("--max-failures", "3")], ids=["whole", "strict", "max-failures"]
)
def test_two_jobs_report_what_one_job_reports_over_every_format_with_parts(
    tmp_path: Path, options: tuple[str, ...]
) -> None:
    logs = sorted(_write_documents(tmp_path))
    args = ("--assert", E, "--assert", PARIS, *options, *logs)
    one, two = _outcome(tmp_path, 1, *args), _outcome(tmp_path, 2, *args)
    assert two == one
    rows = _rows(one)[:-1]
    summary = _rows(one)[-1]["summary"]
    sources = [row.get("source") or row.get("unreadable") for row in rows]
    assert [logs.index(s.partition(":")[0]) for s in sources] == sorted(
        logs.index(s.partition(":")[0]) for s in sources
    )  # in the order of the logs
    if not options:  # every document read to its end
        assert one["code"] == 1
        assert summary["passed"] > 0
        assert summary["failed"] > 0
        assert summary["unreadable"] > 0
        assert summary["records"] == len(logs)
        inspect = [row for row in rows if str(row.get("source")).startswith("inspect-array")]
        unreadable = [row for row in rows if str(row.get("unreadable")).startswith("inspect-array")]
        assert len(unreadable) == 1  # the record of no format, between readable parts
        assert sources.index(inspect[0]["source"]) < sources.index(unreadable[0]["unreadable"])
        assert sources.index(inspect[-1]["source"]) > sources.index(unreadable[0]["unreadable"])
        assert "broken.json:1: " in one["stderr"]
        assert "one.json:1" in sources
    elif options == ("--strict",):  # stopped at the first unreadable part
        assert one["code"] == 2
        assert summary["unreadable"] == 1
        assert "unreadable" in rows[-1]
        assert f"{rows[-1]['unreadable']}: " in one["stderr"]
    else:
        assert one["code"] == 1
        assert summary["failed"] == 3
        assert "stopped after 3 failing" in one["stderr"]


def _inspect_log(samples: int, *, padding: int = 0) -> dict[str, Any]:
    """An Inspect AI eval log: every third sample's answer fails `PARIS`, sample 7 cannot be
    read (a role Inspect does not have)."""
    log: dict[str, Any] = {
        "version": 2,
        "status": "success",
        "eval": {"task": "capitals", "model": "openai/gpt-4o"},
        "samples": [
            {
                "id": f"s{n}",
                "epoch": 1,
                "messages": [
                    {"role": "user" if n != 7 else "human", "content": f"Question {n}?"},
                    {"role": "assistant", "content": "Rome." if n % 3 == 0 else "Paris."},
                ],
            }
            for n in range(samples)
        ],
    }
    if padding:  # a key the reader does not read: a line as long as it needs to be
        log["padding"] = "x" * padding
    return log


def test_a_document_read_here_or_as_a_long_line_reports_the_same_with_two_jobs(
    tmp_path: Path,
) -> None:
    # a pretty-printed document (read here, whole), the same gzipped, on standard input, and
    # as a line of a chunk's size between small lines, in a JSONL file (cut into byte ranges
    # and the long line spread) and in a gzipped one (read here, a chunk at a time)
    log = _inspect_log(60)
    pretty = json.dumps(log, indent=1)
    (tmp_path / "eval.json").write_text(pretty, encoding="utf-8")
    (tmp_path / "eval.json.gz").write_bytes(gzip.compress(pretty.encode()))
    small = [json.dumps({"turns": [{"text": f"Paris {n}" if n % 2 else "Rome"}]}) for n in range(5)]
    long_line = json.dumps(_inspect_log(60, padding=CHUNK_BYTES))
    lines = "\n".join([*small[:3], long_line, *small[3:]]) + "\n"
    (tmp_path / "lines.jsonl").write_text(lines, encoding="utf-8")
    (tmp_path / "lines.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    args = ("--assert", PARIS, "eval.json", "eval.json.gz", "lines.jsonl", "lines.jsonl.gz", "-")
    one = _outcome(tmp_path, 1, *args, stdin=pretty.encode())
    two = _outcome(tmp_path, 2, *args, stdin=pretty.encode())
    assert two == one
    sources = [row.get("source") or row["unreadable"] for row in _rows(one)[:-1]]
    for where in ("eval.json:1", "eval.json.gz:1", "lines.jsonl:4", "lines.jsonl.gz:4", "-:1"):
        parts = [s for s in sources if s.startswith(where + "#")]
        assert parts == [f"{where}#s{n}" for n in range(60)]  # in order, each in its place
        assert f"{where}#s7: " in one["stderr"]  # listed: it cannot be read
    assert sources.index("lines.jsonl:3") < sources.index("lines.jsonl:4#s0")
    assert sources.index("lines.jsonl:4#s59") < sources.index("lines.jsonl:5")
    summary = _rows(one)[-1]["summary"]
    assert (summary["passed"], summary["failed"]) == (5 * 39 + 4, 5 * 20 + 6)
    assert (summary["unreadable"], summary["records"]) == (5, 15)


def test_the_parts_of_a_one_document_log_go_to_the_workers_a_batch_at_a_time(
    tmp_path: Path,
) -> None:
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(_inspect_log(40), indent=1), encoding="utf-8")
    tasks = list(_tasks([str(path)], None, 2))
    assert len(tasks) >= 4  # at least two a job: both are busy with the one document
    assert all(task[0].__name__ == "_work_pieces" for task, _ in tasks)
    parts = [piece.part for task, _ in tasks for piece in task[3]]
    assert parts == [f"s{n}" for n in range(40)]
    assert [task[4] for task, _ in tasks] == [False] * (len(tasks) - 1) + [True]
    size = path.stat().st_size
    assert all(len(pickle.dumps(task[1:])) < size / 2 for task, _ in tasks)  # never the whole
    assert sum(moved for _, moved in tasks) == size  # the progress of the bytes checked


def test_a_document_of_one_conversation_or_none_goes_to_a_worker_whole(tmp_path: Path) -> None:
    # nothing to spread: its text (or the record of why it cannot be decoded) is sent
    one, broken = tmp_path / "one.json", tmp_path / "broken.json"
    one.write_text(json.dumps({"turns": [{"text": "Paris"}]}, indent=1), encoding="utf-8")
    broken.write_text('{\n "samples": [\n', encoding="utf-8")
    ((task, moved),) = _tasks([str(one)], None, 2)
    assert task[0].__name__ == "_work"
    assert task[1:] == (str(one), 1, [one.read_text(encoding="utf-8")])
    assert moved == one.stat().st_size
    ((task, _),) = _tasks([str(broken)], None, 2)
    assert task[0].__name__ == "_work_record"
    assert task[1].error.startswith("the file is not JSON")


def test_a_line_of_a_chunks_size_is_spread_and_the_lines_around_it_read_by_workers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lines.jsonl"
    small = json.dumps({"turns": [{"text": "Paris"}]})
    long_line = json.dumps(_inspect_log(8, padding=CHUNK_BYTES))
    path.write_text(f"{small}\n{small}\n{long_line}\n{small}\n", encoding="utf-8")
    tasks = list(_tasks([str(path)], None, 2))
    kinds = [task[0].__name__ for task, _ in tasks]
    assert kinds[0] == kinds[-1] == "_work_range"
    assert set(kinds[1:-1]) == {"_work_pieces"}
    assert len(kinds) >= 4
    size = path.stat().st_size
    assert tasks[-1][0][1:] == (str(path), size - len(small) - 1, size, 4)
    assert sum(moved for _, moved in tasks) == path.stat().st_size


_PEAKS = """
import resource, sys
from chatassert._cli import main
main(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF)
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
print(own.ru_maxrss, workers.ru_maxrss)
"""


def test_no_worker_holds_the_document_the_main_process_decoded(tmp_path: Path) -> None:
    # the workers start before any log is read: one forked once the main process holds a
    # decoded document would hold it too (its pages resident in the worker, shared until a
    # collection there writes to them)
    padding = 32 << 20
    log = json.dumps(_inspect_log(4, padding=padding), indent=1)
    (tmp_path / "eval.json").write_text(log, encoding="utf-8")
    args = ["check", "--assert", PARIS, "eval.json", "--jobs", "2", "-o", "report.jsonl", "-q"]
    out = subprocess.run(
        [sys.executable, "-c", _PEAKS, *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    main_kb, worker_kb = map(int, out.stdout.split())
    # the main process held the text and the value of the document, 64 MB; no worker did
    assert main_kb - worker_kb > padding // 1024, (main_kb, worker_kb)
    assert '"records": 1' in (tmp_path / "report.jsonl").read_text(encoding="utf-8")


def test_one_job_checks_a_document_a_part_at_a_time(tmp_path: Path) -> None:
    # each part's rows as soon as it is checked: an interrupted run reports every part checked
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(_inspect_log(12), indent=1), encoding="utf-8")
    plan = Plan(None, (PARIS,), None, (("json", None),), False)
    suites = load_suites(plan, sys.stderr)
    assert suites is not None
    batches = list(checked_items(plan, suites, [str(path)], 1))
    assert len(batches) == 12
    items = [item for batch in batches for item in batch]
    assert [type(item) for item in items].count(RecordEnd) == 1
    assert items[-1] is RECORD_END
    sources = [item.source for item in items if isinstance(item, Row)]
    assert sources == [f"{path}:1#s{n}" for n in range(12)]


def test_a_document_read_as_a_json_response_is_one_record_with_two_jobs(tmp_path: Path) -> None:
    # an expect suite reads each record as a response: the document is not split
    suite = {
        "name": "logs",
        "test_suites": {
            "all": {
                "name": "All",
                "tests": [{"id": "t1", "name": "an eval log", "expect": {"has_fields": ["eval"]}}],
            }
        },
    }
    (tmp_path / "logs.expect.json").write_text(json.dumps(suite), encoding="utf-8")
    (tmp_path / "eval.json").write_text(json.dumps(_inspect_log(9), indent=1), encoding="utf-8")
    one = _outcome(tmp_path, 1, "logs.expect.json", "eval.json")
    assert _outcome(tmp_path, 2, "logs.expect.json", "eval.json") == one
    assert one["code"] == 0
    summary = _rows(one)[-1]["summary"]
    assert (summary["passed"], summary["records"]) == (1, 1)


def test_a_document_is_kept_out_of_collections_while_it_is_checked_and_only_then(
    tmp_path: Path,
) -> None:
    # each full collection would traverse the decoded document again: it is frozen while its
    # parts are checked, then unfrozen, whether the run reads it to its end or stops early
    text = json.dumps(_inspect_log(6), indent=1)
    plan = Plan(None, (PARIS,), None, (("json", None),), False)
    suites = load_suites(plan, sys.stderr)
    assert suites is not None
    checker = make_checker(plan, suites)
    gc.unfreeze()  # whatever an earlier test of this process left frozen
    parts = _record_items(checker, "eval.json", 1, text)
    next(parts)
    assert gc.get_freeze_count() > 0
    assert gc.isenabled()
    assert len(list(parts)) == 5
    assert gc.get_freeze_count() == 0
    stopped = _record_items(checker, "eval.json", 1, text)
    next(stopped)
    stopped.close()  # --max-failures, --strict, Ctrl-C
    assert gc.get_freeze_count() == 0
    # a process that froze objects of its own is left as it is
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert len(list(_record_items(checker, "eval.json", 1, text))) == 6
        # neither unfrozen nor frozen further (a frozen object that dies lowers the count)
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_a_worker_keeps_what_it_holds_for_its_life_out_of_collections() -> None:
    plan = Plan(None, (PARIS,), None, (("json", None),), False)
    suites = load_suites(plan, sys.stderr)
    assert suites is not None
    pool = _worker.start_pool(plan, suites, 1)
    try:
        assert pool.submit(gc.get_freeze_count).result() > 0
    finally:
        _worker.end_pool(pool)


def _sample_records() -> list[Any]:
    """Every format's sample records (`tests/transcripts/samples`)."""
    records: list[Any] = []
    for path in sorted(SAMPLES.glob("*.json")):
        records.extend(json.loads(path.read_text(encoding="utf-8")))
    return records


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


@settings(max_examples=100)
@given(
    items=st.lists(st.sampled_from(_sample_records()) | _JSON, min_size=1, max_size=6),
    whole=st.booleans(),
)
def test_a_record_checked_a_part_at_a_time_gives_the_rows_of_the_whole_record(
    items: list[Any], whole: bool
) -> None:
    # a JSON array of records (or its first item alone): what the engine gives a part at a
    # time is what the checker gives for the whole record, row for row
    value = items[0] if whole else items
    text = json.dumps(value, indent=1)
    plan = Plan(None, (E, PARIS), None, (("json", None),), False)
    suites = load_suites(plan, sys.stderr)
    assert suites is not None
    checker = make_checker(plan, suites)
    whole_items: list[Any] = []
    checker.line_into(text, "log.json", 1, whole_items)
    parts = [item for batch, _ in _record_items(checker, "log.json", 1, text) for item in batch]

    def seen(item: Any) -> Any:
        if isinstance(item, Row):
            rendered = {fmt: _timeless(str(text)) for fmt, text in (item.rendered or {}).items()}
            return (item.kind, item.source, item.case, item.status, item.error, rendered)
        return item

    assert [seen(item) for item in parts] == [seen(item) for item in whole_items]


@settings(max_examples=150)
@given(
    lengths=st.lists(st.integers(min_value=0, max_value=70), max_size=25),
    size=st.integers(min_value=4, max_value=24),
    newline_at_end=st.booleans(),
)
def test_line_pieces_give_every_line_of_a_block_or_more_as_a_piece_of_its_own(
    lengths: list[int], size: int, newline_at_end: bool
) -> None:
    data = b"\n".join(b"x" * n for n in lengths) + (b"\n" if newline_at_end and lengths else b"")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.jsonl")
        with open(path, "wb") as file:
            file.write(data)
        with open_text(path) as stream:
            expected = list(numbered_lines(stream, path))
        got: list[tuple[int, str]] = []
        end_before = 0
        for start, end, first, error, long in line_pieces(path, size):
            assert error is None
            assert start == end_before < end
            end_before = end
            piece = data[start:end]
            lines = piece.decode().splitlines(keepends=True)
            if long:  # one line, of `size` bytes or more (its newline counted)
                assert len(lines) == 1
                assert len(piece) >= size
            else:  # lines shorter than `size` bytes, at most two blocks' worth
                assert all(len(line) < size for line in lines)
                assert len(piece) <= 2 * size
            got.extend(enumerate(lines, first))
        assert end_before == len(data)
        assert got == expected
