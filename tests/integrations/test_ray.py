"""chatassert[ray]: check_dataset, summarize and `check --engine ray` against a local run.

Runs Ray in local mode on 2 CPUs. Without Ray installed these tests skip, unless
CHATASSERT_REQUIRE_RAY is set (as .ci/run sets it), where a missing Ray fails them.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from resume_helpers import run_files

from chatassert._cli import main
from chatassert.integrations.ray import check_dataset, summarize
from chatassert.records import Checker, Row, Summary, inline_suite
from chatassert.specs import load_suite
from optional_engines import optional_module

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from loopback import LoopbackServer, Recorded, RefusedOnce, Reply, Together, openai_verdict

from cli_runs import without_durations

pytestmark = [
    pytest.mark.ray,
    # Ray's own deprecation notices (its DataContext warns about its own defaults)
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
    pytest.mark.filterwarnings("ignore::FutureWarning:ray.*"),
    # max_retries / retry_exceptions reach Ray's tasks through map_batches' remote args
    pytest.mark.filterwarnings("ignore:`ray_remote_args` is deprecated"),
]

ray = optional_module("ray", "CHATASSERT_REQUIRE_RAY")

SRC = Path(__file__).resolve().parents[2] / "src"
ASSERTS = ["{type: contains, value: refund}", "{type: max_length, max: 60}"]
EXPECT = """\
- id: T1
  expect: {status: success}
- id: T2
  expect: {status: success, message_contains: booked}
- id: T3
  expect: {status: success}
- id: T4
  expect: {status: success}
"""


def _conversation(rnd: random.Random, i: int) -> dict[str, Any]:
    text = rnd.choice(
        [
            "Your refund is on its way.",
            "No.",
            "A refund " + "really " * 12 + "long answer.",
            "We sent the refund.",
        ]
    )
    return {"id": f"c{i}", "turns": [{"input": "Refund?", "text": text}]}


def _log(path: Path, count: int, seed: int) -> list[dict[str, Any] | None]:
    """A log of `count` lines: conversations, a few unreadable and blank lines."""
    rnd = random.Random(seed)
    records: list[dict[str, Any] | None] = []
    with path.open("w", encoding="utf-8") as f:
        for i in range(count):
            roll = rnd.random()
            if roll < 0.04:
                f.write("{not json\n")
                records.append(None)
            elif roll < 0.06:
                f.write("\n")
            else:
                record = _conversation(rnd, i)
                records.append(record)
                f.write(json.dumps(record) + "\n")
    return records


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray of 2 CPUs: in-process `--engine ray` runs use it, subprocesses join it."""
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [
            str(SRC),
            str(Path(__file__).parent),
            str(Path(__file__).parents[1]),
            *filter(None, [os.environ.get("PYTHONPATH")]),
        ]
    )  # the workers import this checkout, and this module (for _fail_once) and its helpers
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two conversation logs (one gzipped), an expect suite and its responses."""
    root = tmp_path_factory.mktemp("ray-logs")
    _log(root / "a.jsonl", 250, seed=1)
    _log(root / "b.jsonl", 150, seed=2)
    with (root / "b.jsonl").open("rb") as f, gzip.open(root / "b.jsonl.gz", "wb") as g:
        g.write(f.read())
    (root / "b.jsonl").unlink()
    (root / "api.yaml").write_text(EXPECT, encoding="utf-8")
    responses = [
        {"id": "T1", "response": {"status": "success"}},
        {"id": "T2", "response": {"status": "success", "message": "pending"}},
        {"id": "T3", "response": {"status": "failure"}},
        {"id": "T9", "response": {"status": "success"}},
    ]
    lines = [json.dumps(r) for r in responses] + ["not json"]
    (root / "responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _cli_process(address: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`chatassert check -q args...` as a process of its own joining the cluster at `address`:
    what it writes to its standard error includes whatever Ray itself prints there."""
    env = {**os.environ, "RAY_ADDRESS": address, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "-q", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _cli(address: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`chatassert check -q args...`, run in this process: its `--engine ray` joins the module's
    cluster, which this process already holds (a subprocess would spend seconds joining it)."""
    out, err = io.TextIOWrapper(io.BytesIO(), "utf-8"), io.TextIOWrapper(io.BytesIO(), "utf-8")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", "-q", *args])
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode("utf-8"))  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(["chatassert", "check", *args], code, *texts)


def _reports(address: str, tmp: Path, engine: str, *args: str) -> tuple[int, Any, str, str]:
    out = tmp / engine
    out.mkdir()
    done = _cli(
        address,
        "--engine",
        engine,
        *args,
        "-o",
        str(out / "r.jsonl"),
        "-o",
        str(out / "r.txt"),
        "-o",
        str(out / "r.xml"),
    )
    lines = (out / "r.jsonl").read_text(encoding="utf-8").splitlines()
    junit = (out / "r.xml").read_text(encoding="utf-8")
    junit_verdicts = [
        part.split('"', 1)[0] for part in junit.split('<testcase name="')[1:]
    ]  # case names in order, with what follows each kept by the text comparison below
    return (
        done.returncode,
        [without_durations(json.loads(line)) for line in lines],
        (out / "r.txt").read_text(encoding="utf-8"),
        json.dumps(junit_verdicts) + str(junit.count("<failure")) + str(junit.count("<error")),
    )


def test_check_engine_ray_writes_the_reports_of_a_local_run(
    cluster: str, logs: Path, tmp_path: Path
) -> None:
    args = [f"--assert={spec}" for spec in ASSERTS]
    paths = [str(logs / "a.jsonl"), str(logs / "b.jsonl.gz")]
    local = _reports(cluster, tmp_path, "local", *args, *paths)
    on_ray = _reports(cluster, tmp_path, "ray", *args, *paths)
    assert local[0] == 1  # failing cases
    summary = local[1][-1]["summary"]
    assert summary["passed"] > 100
    assert summary["failed"] > 50
    assert summary["unreadable"] > 5
    assert on_ray == local


def test_an_expect_suite_on_ray_reports_unanswered_tests_as_a_local_run(
    cluster: str, logs: Path, tmp_path: Path
) -> None:
    args = [str(logs / "api.yaml"), str(logs / "responses.jsonl")]
    local = _reports(cluster, tmp_path, "local", *args)
    on_ray = _reports(cluster, tmp_path, "ray", *args)
    statuses = {row.get("case"): row["result"]["status"] for row in local[1] if "case" in row}
    assert statuses == {"T1": "passed", "T2": "failed", "T3": "failed", "T4": "error"}
    assert local[1][-1]["summary"]["unmatched"] == 1
    assert local[1][-1]["summary"]["unreadable"] == 1
    assert on_ray == local


def _local_rows(checker: Checker, records: list[Any], source: str) -> list[Row]:
    rows: list[Row] = []
    for i, record in enumerate(records):
        rows += checker.check_record(record, f"{source}#row={i}")
    return rows


def test_check_dataset_gives_a_local_checkers_rows_and_summary(cluster: str, logs: Path) -> None:
    suite = inline_suite(ASSERTS)
    rnd = random.Random(5)
    records: list[Any] = [json.dumps(_conversation(rnd, i)) for i in range(300)]
    records[7] = "{broken"
    records[8] = None
    table = pa.table({"record": records, "path": ["mem.jsonl"] * 300, "row": list(range(300))})
    rows = check_dataset(ray.data.from_arrow(table), [suite], column="record", batch_size=64)
    got = [Row.from_row(r) for r in rows.take_all()]
    checker = Checker([suite])
    want = _local_rows(checker, records[:8], "mem.jsonl")
    want.append(Row("unreadable", "mem.jsonl#row=8", error="the record is null"))
    want += _local_rows(checker, records[9:], "x")
    key = [(r.source.split("#")[-1], r.kind, r.status, r.case) for r in got]
    assert sorted(key) == sorted(
        (f"row={i}", r.kind, r.status, r.case)
        for i, r in [
            (int(r.source.rsplit("=", 1)[1]) + (9 if r.source.startswith("x") else 0), r)
            for r in want
        ]
    )
    assert all(r.source.startswith("mem.jsonl#row=") for r in got)
    summary = summarize(rows, [suite], records=300)
    local = Summary(records=300)
    for row in want:
        local.add_row(row)
    assert summary.counts == local.counts
    assert summary.unreadable_count == 2
    assert summary.exit_code() == local.exit_code() == 1


def test_summarize_adds_the_expect_tests_no_record_answered(cluster: str, logs: Path) -> None:
    suite = load_suite(str(logs / "api.yaml"))
    lines = (logs / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    rows = check_dataset(ray.data.from_items([{"line": x} for x in lines]), suite, column="line")
    summary = summarize(rows, suite)
    assert (summary.counts["passed"], summary.counts["failed"], summary.counts["error"]) == (
        1,
        2,
        1,
    )
    assert [o.case for o in summary.failures if o.result.status.value == "error"] == ["T4"]


def test_parquet_with_a_json_string_column_and_a_struct_column(
    cluster: str, logs: Path, tmp_path: Path
) -> None:
    rnd = random.Random(9)
    conversations = [_conversation(rnd, i) for i in range(120)]
    pq.write_table(
        pa.table({"record": [json.dumps(c) for c in conversations]}), tmp_path / "text.parquet"
    )
    pq.write_table(pa.table({"record": conversations}), tmp_path / "struct.parquet")
    names = ("text", "struct")
    for name in names:  # the same conversations as JSONL, for the local run
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps(c) + "\n" for c in conversations), encoding="utf-8"
        )
    args = [f"--assert={spec}" for spec in ASSERTS]
    local = _reports(
        cluster, tmp_path, "local", *args, *(str(tmp_path / f"{n}.jsonl") for n in names)
    )
    # both Parquet files in one run on Ray: a task each
    out = tmp_path / "parquet.jsonl"
    parquets = [str(tmp_path / f"{name}.parquet") for name in names]
    done = _cli(cluster, "--engine", "ray", *args, *parquets, "-o", str(out))
    assert done.returncode == local[0], done.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[-1] == local[1][-1] | {"summary": rows[-1]["summary"]}
    assert without_durations(rows[-1]) == local[1][-1]
    assert local[1][-1]["summary"]["records"] == 240
    verdicts = [(r["source"], r["result"]["status"]) for r in rows[:-1]]

    def located(source: str) -> str:  # text.jsonl:3 -> text.parquet#row=2
        path, line = source.rsplit(":", 1)
        return f"{path.removesuffix('.jsonl')}.parquet#row={int(line) - 1}"

    assert verdicts == [(located(r["source"]), r["result"]["status"]) for r in local[1][:-1]]
    assert {s.split("#")[0] for s, _ in verdicts} == set(parquets)
    # the same struct column through check_dataset, located by Ray's include_paths
    dataset = ray.data.read_parquet(str(tmp_path / "struct.parquet"), include_paths=True)
    rows = check_dataset(dataset, inline_suite(ASSERTS), column="record").take_all()
    assert [r["source"] for r in rows[:4]] == [  # a case row per assertion
        f"{tmp_path / 'struct.parquet'}#row={i}" for i in (0, 0, 1, 1)
    ]
    struct = str(tmp_path / "struct.jsonl") + ":"
    assert [r["status"] for r in rows] == [
        r["result"]["status"] for r in local[1][:-1] if r["source"].startswith(struct)
    ]


COUNTER = "CHATASSERT_TEST_FAIL_ONCE"


def _fail_once(batch: Any) -> Any:
    """Fails the first batch it sees across every attempt (counted in a file), then passes
    batches through: a task that fails once."""
    path = Path(os.environ[COUNTER])
    seen = int(path.read_text()) if path.exists() else 0
    path.write_text(str(seen + 1))
    if seen == 0:
        raise RuntimeError("injected failure")
    return batch


def test_a_task_that_fails_once_is_retried_and_its_rows_come_once(
    cluster: str, tmp_path: Path
) -> None:
    counter = tmp_path / "counter"
    os.environ[COUNTER] = str(counter)  # read by the worker through the runtime env
    rnd = random.Random(3)
    records = [{"record": json.dumps(_conversation(rnd, i)), "row": i} for i in range(200)]
    dataset = ray.data.from_items(records, override_num_blocks=4).map_batches(
        _fail_once,
        batch_format="pyarrow",
        max_retries=2,
        retry_exceptions=True,
        runtime_env={"env_vars": {COUNTER: str(counter)}},
    )
    rows = check_dataset(
        dataset,
        inline_suite(ASSERTS),
        column="record",
        source="mem",
        max_retries=2,
        retry_exceptions=True,
        runtime_env={"env_vars": {COUNTER: str(counter)}},
    ).take_all()
    assert int(counter.read_text()) > 4  # the first attempt failed, and was run again
    assert sorted(r["source"] for r in rows) == sorted(  # one case row per assertion
        f"mem#row={i}" for i in range(200) for _ in ASSERTS
    )
    local = Checker([inline_suite(ASSERTS)])
    want = sorted(
        (f"mem#row={i}", r.status)
        for i, x in enumerate(records)
        for r in local.check_record(x["record"], "m")
    )
    assert sorted((r["source"], r["status"]) for r in rows) == want


def test_import_chatassert_imports_neither_ray_nor_pyarrow_and_names_the_extra() -> None:
    code = (
        "import sys, chatassert, chatassert.records, chatassert.integrations.ray as r\n"
        "assert 'ray' not in sys.modules and 'pyarrow' not in sys.modules, 'imported'\n"
        "sys.modules['ray'] = None\n"
        "try:\n    r.check_dataset(None, [])\nexcept ImportError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=True,
    )
    assert "pip install 'chatassert[ray]'" in done.stdout


def test_the_guide_pages_example_prints_what_it_says(cluster: str) -> None:
    page = (SRC.parent / "docs" / "ray.md").read_text(encoding="utf-8")
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    said = page.split("prints\n\n```text\n", 1)[1].split("```", 1)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/ray.md", "exec"), {})
    assert out.getvalue() == said


# -- judged suites on Ray: one judge limit for the cluster, judge failures as error rows ----------

RUBRIC = "{type: llm_rubric, value: Is polite}"  # on every turn: a case asks once per turn


def _judged_log(path: Path, count: int, first: int = 0, turns: int = 3) -> None:
    """`count` conversations of `turns` turns, every turn's text its own (so no two requests
    are the same)."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(first, first + count):
            record = {
                "id": f"j{i}",
                "turns": [{"input": "Hi", "text": f"Reply {t} of {i}."} for t in range(turns)],
            }
            f.write(json.dumps(record) + "\n")


def _judged_cli(
    address: str,
    server: LoopbackServer,
    *args: str,
    retries: int = 0,
    cache: str = "off",
    engine: str = "ray",
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`chatassert check -q --engine ENGINE args...` in this process (which holds the cluster),
    its judge an OpenAI judge at `server`, as `run_cli` sets one in the environment."""
    env = {
        "CHATASSERT_JUDGE": "openai",
        "CHATASSERT_JUDGE_MODEL": "judge-model",
        "CHATASSERT_JUDGE_BASE_URL": server.url + "/v1",
        "CHATASSERT_JUDGE_RETRIES": str(retries),
        "CHATASSERT_JUDGE_CACHE": cache,
        "CHATASSERT_JUDGE_API_KEY_ENV": "CHATASSERT_TEST_NO_KEY",
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        with contextlib.chdir(cwd or Path.cwd()):
            return _cli(address, "--engine", engine, *args)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def judge_server() -> Iterator[LoopbackServer]:
    """A loopback judge server (tests/judges/loopback.py), stopped after the test."""
    server = LoopbackServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def judged_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two logs (two tasks) of 6 conversations of 3 turns each: 36 judge requests."""
    root = tmp_path_factory.mktemp("judged-logs")
    _judged_log(root / "a.jsonl", 6, first=0)
    _judged_log(root / "b.jsonl", 6, first=100)
    return root


def _slow_verdicts(server: LoopbackServer, delay: float) -> None:
    reply = openai_verdict()
    reply.delay = delay
    server.default = reply


@pytest.mark.parametrize("limit", [2, 4])
def test_a_judged_suite_keeps_one_judge_limit_for_the_cluster(
    cluster: str, judged_logs: Path, judge_server: LoopbackServer, limit: int, tmp_path: Path
) -> None:
    _slow_verdicts(judge_server, 0.1)
    done = _judged_cli(
        cluster,
        judge_server,
        f"--assert={RUBRIC}",
        str(judged_logs / "a.jsonl"),
        str(judged_logs / "b.jsonl"),
        "--judge-concurrency",
        str(limit),
        "-o",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    assert judge_server.count == 36  # each turn of each conversation, once
    rows = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(rows[-1])["summary"]["passed"] == 12
    # Two tasks ask up to three requests at once each: without the actor up to six overlap.
    assert judge_server.max_in_flight <= limit
    assert judge_server.max_in_flight > (1 if limit == 2 else 2)


@pytest.mark.parametrize("kind", ["jsonl", "parquet"])
def test_a_task_asks_the_judge_for_its_records_together(
    cluster: str, judge_server: LoopbackServer, tmp_path: Path, kind: str
) -> None:
    """One log, one task, eight one-turn conversations: their eight requests must all be
    waiting before any is answered (one record after another, they never would be)."""
    judge_server.default = together = Together(8, patience=10)
    log = tmp_path / "one.jsonl"
    _judged_log(log, 8, turns=1)
    if kind == "parquet":
        texts = log.read_text(encoding="utf-8").splitlines()
        pq.write_table(pa.table({"record": texts}), tmp_path / "one.parquet")
        log = tmp_path / "one.parquet"
    done = _judged_cli(
        cluster,
        judge_server,
        f"--assert={RUBRIC}",
        str(log),
        "--judge-concurrency",
        "8",
        "-o",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    assert together.peak == 8
    rows = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text("utf-8").splitlines()]
    assert [r["subject_id"] for r in rows[:-1]] == [f"j{i}" for i in range(8)]


def test_a_429_with_retry_after_holds_every_worker(
    cluster: str, judged_logs: Path, judge_server: LoopbackServer, tmp_path: Path
) -> None:
    reply = RefusedOnce(nth=8, delay=0.05)  # once both tasks are under way
    judge_server.default = reply
    arrivals, refused = reply.arrivals, reply.refused
    done = _judged_cli(
        cluster,
        judge_server,
        f"--assert={RUBRIC}",
        str(judged_logs / "a.jsonl"),
        str(judged_logs / "b.jsonl"),
        "--judge-concurrency",
        "4",
        retries=2,
    )
    assert done.returncode == 0, done.stderr
    assert len(arrivals) == 37  # 36 requests and the one retry
    after = sorted(t - refused[0] for t in arrivals if t > refused[0])
    # Only requests the limiter admitted before the pause reached it (at most the four in
    # flight then) can arrive within the second the 429 asked for, however late a loaded
    # machine delivers them; whatever either worker asks after that waits the second out.
    # Without the shared pause both workers go on sending, dozens of requests a second.
    assert len([t for t in after if t < 1.0]) <= 4, after
    assert len([t for t in after if t >= 1.0]) > 10  # the run went on after the pause


def test_a_judge_that_always_fails_gives_error_rows_not_a_retried_task(
    cluster: str, judged_logs: Path, judge_server: LoopbackServer, tmp_path: Path
) -> None:
    judge_server.default = Reply({"error": "broken"}, status=500)
    done = _judged_cli(
        cluster,
        judge_server,
        f"--assert={RUBRIC}",
        str(judged_logs / "a.jsonl"),
        str(judged_logs / "b.jsonl"),
        "--judge-concurrency",
        "4",
        "-o",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode == 3, done.stderr  # errors only
    rows = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text("utf-8").splitlines()]
    assert [r["result"]["status"] for r in rows[:-1]] == ["error"] * 12
    assert "HTTP 500" in json.dumps(rows[0])
    assert judge_server.count == 36  # asked once each (no retries): no task ran twice


def test_the_cluster_judge_options_are_for_the_ray_engine(judged_logs: Path) -> None:
    # --judge-concurrency bounds a local run too (tests/judges/test_judged_records_together.py)
    done = _cli("", f"--assert={RUBRIC}", "--judge-rpm", "60", str(judged_logs / "a.jsonl"))
    assert done.returncode == 2
    assert "--judge-rpm: for --engine ray only" in done.stderr
    done = _cli(
        "",
        "--engine",
        "ray",
        f"--assert={RUBRIC}",
        "--judge-concurrency",
        "0",
        str(judged_logs / "a.jsonl"),
    )
    assert done.returncode == 2
    assert "--judge-concurrency must be at least 1 (got 0)" in done.stderr


def test_tasks_share_one_verdict_store_and_a_later_run_reuses_its_file(
    cluster: str, judge_server: LoopbackServer, tmp_path: Path
) -> None:
    # Two files (two tasks, side by side) with the same conversations: each verdict is asked
    # for once, the other task waiting for it; the store keeps them in the cache file.
    _judged_log(tmp_path / "a.jsonl", 4)
    _judged_log(tmp_path / "b.jsonl", 4)
    _slow_verdicts(judge_server, 0.2)
    cache = tmp_path / "verdicts.sqlite3"
    logs = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    done = _judged_cli(cluster, judge_server, f"--assert={RUBRIC}", *logs, cache=str(cache))
    assert done.returncode == 0, done.stderr
    assert judge_server.count == 12  # 4 conversations of 3 turns, asked once for two files
    assert not (tmp_path / "xdg").exists()
    done = _judged_cli(cluster, judge_server, f"--assert={RUBRIC}", *logs, cache=str(cache))
    assert done.returncode == 0, done.stderr
    assert judge_server.count == 12  # all from the file
    done = _judged_cli(cluster, judge_server, f"--assert={RUBRIC}", *logs, cache="off")
    assert judge_server.count == 36  # the control: without the cache each task asks


# -- results directory and resume -------------------------------------------------------------


def _run(address: str, out: Path, *args: str, engine: str = "ray") -> tuple[Any, str]:
    """A run's reports (exit code, JSON rows without durations, text) and what it said on
    stderr, from one run."""
    out.mkdir()
    done = _cli(
        address, "--engine", engine, *args, "-o", str(out / "r.jsonl"), "-o", str(out / "r.txt")
    )
    assert "Traceback" not in done.stderr, done.stderr
    lines = (out / "r.jsonl").read_text(encoding="utf-8").splitlines()
    report = (
        done.returncode,
        [without_durations(json.loads(line)) for line in lines],
        (out / "r.txt").read_text(encoding="utf-8"),
    )
    return report, done.stderr


def _run_reports(address: str, out: Path, *args: str, engine: str = "ray") -> Any:
    """A run's reports: exit code, JSON rows without durations, text. A local run
    (`engine="local"`) is the reference a run on Ray is compared with: that both write the
    same reports is test_check_engine_ray_writes_the_reports_of_a_local_run's."""
    return _run(address, out, *args, engine=engine)[0]


def _rows_of(rows: list[Any], log: Path) -> list[Any]:
    """The rows of a JSON report (its summary aside) located in `log`."""
    return [r for r in rows[:-1] if r.get("source", r.get("unreadable")).startswith(f"{log}:")]


def test_a_resumed_run_checks_again_only_unfinished_or_rewritten_logs_as_a_fresh_run(
    cluster: str, tmp_path: Path
) -> None:
    """Resume reuses a log's results when what is read now has the hash of what was read: a
    log whose results are missing is checked again, and so is one rewritten with other bytes
    of the same size and modification time."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name, seed in (("a", 11), ("b", 12), ("c", 13)):
        _log(logs / f"{name}.jsonl", 60, seed=seed)
    paths = [str(logs / f"{name}.jsonl") for name in "abc"]
    args = [f"--assert={spec}" for spec in ASSERTS]
    fresh = _run_reports(cluster, tmp_path / "fresh", *args, *paths, engine="local")
    results = tmp_path / "results"
    saved = _run_reports(cluster, tmp_path / "saved", *args, *paths, "--results", str(results))
    assert saved == fresh
    files = sorted(results.iterdir())
    assert [f.name.split(".")[0] for f in files] == ["a", "b", "c"]
    written = {f.name: f.stat().st_mtime_ns for f in files}
    next(f for f in files if f.name.startswith("b.")).unlink()  # b did not finish
    c = logs / "c.jsonl"
    info = c.stat()
    c.write_bytes(b"x" * info.st_size)  # every line of c unreadable now
    os.utime(c, ns=(info.st_atime_ns, info.st_mtime_ns))
    fresh = _run_reports(cluster, tmp_path / "fresh-now", *args, *paths, engine="local")
    assert [r["unreadable"] for r in _rows_of(fresh[1], c)] == [f"{c}:1"]
    resumed = _run_reports(
        cluster, tmp_path / "resumed", *args, *paths, "--results", str(results), "--resume"
    )
    assert resumed == fresh
    now = {f.name: f.stat().st_mtime_ns for f in results.iterdir()}
    assert now.keys() == written.keys()  # b's results again
    assert [now[n] == written[n] for n in sorted(now)] == [True, False, False]  # a reused


def test_logs_changed_while_their_tasks_ran_are_checked_again_on_resume(
    cluster: str, judge_server: LoopbackServer, tmp_path: Path
) -> None:
    """Each log changes after its task read it, while the task waits for the judge, before
    its results are saved, one rewritten (the same size) and one appended to: resume gives a
    fresh run's verdicts and exit code (it used to reuse the first run's, stamped with the
    changed file's size and time)."""
    texts = {"rewritten": "Your refund is ready.", "appended": "Your refund is on its way."}
    logs = {change: tmp_path / f"{change}.jsonl" for change in texts}
    for change, log in logs.items():
        said = [{"id": f"{change}{i}", "turns": [{"input": "Hi", "text": texts[change]}]}
                for i in (1, 2)]  # fmt: skip
        log.write_text("".join(json.dumps(x) + "\n" for x in said), encoding="utf-8")
    old = {change: log.read_bytes() for change, log in logs.items()}
    changed: set[str] = set()
    lock = threading.Lock()

    def reply(recorded: Recorded) -> Reply:
        asked = json.dumps(recorded.body)
        with lock:
            for change, log in logs.items():
                if texts[change] in asked and change not in changed:
                    changed.add(change)  # its task has read the log: it is checking it
                    if change == "rewritten":  # the same size: a record that passed now fails
                        log.write_bytes(old[change].replace(b"refund", b"refuse"))
                    else:
                        late = {"id": "late", "turns": [{"input": "Hi", "text": "No."}]}
                        with log.open("a", encoding="utf-8") as f:
                            f.write(json.dumps(late) + "\n")
        return openai_verdict()

    judge_server.default = reply
    paths = [str(logs[change]) for change in texts]
    args = [f"--assert={RUBRIC}", "--assert={type: contains, value: refund}", *paths]
    results = ["--results", str(tmp_path / "results")]
    out = {name: tmp_path / f"{name}.jsonl" for name in ("first", "resumed", "fresh")}
    first = _judged_cli(cluster, judge_server, *args, *results, "-o", str(out["first"]))
    assert first.returncode in (0, 1), first.stderr
    assert changed == set(texts)
    resumed = _judged_cli(
        cluster, judge_server, *args, *results, "--resume", "-o", str(out["resumed"])
    )
    fresh = _judged_cli(cluster, judge_server, *args, "-o", str(out["fresh"]), engine="local")
    assert fresh.returncode == 1, fresh.stderr
    assert resumed.returncode == fresh.returncode, resumed.stderr
    reports = {
        name: [without_durations(json.loads(x)) for x in path.read_text("utf-8").splitlines()]
        for name, path in out.items()
    }
    assert reports["resumed"] == reports["fresh"]
    for log in logs.values():  # each change alone makes a record fail
        assert "failed" in {r["result"]["status"] for r in _rows_of(reports["fresh"], log)}
    assert any(r["source"] == f"{logs['appended']}:3" for r in reports["fresh"][:-1])


def _corrupt_results(results: Path, name: str, how: str) -> None:
    target = next(f for f in results.iterdir() if f.name.startswith(f"{name}."))
    lines = target.read_bytes().split(b"\n")[:-1]
    if how == "a row of the wrong shape":
        lines[3] = b'{"kind": "case", "source": 5}'
    elif how == "records: -5":
        lines[0] = json.dumps({**json.loads(lines[0]), "records": -5}).encode()
    elif how == "a bad records header":
        lines[0] = json.dumps({**json.loads(lines[0]), "records": {"n": 1}}).encode()
    elif how == "one row repeated in place of another":
        lines[6] = lines[5]
    else:
        lines = lines[:-1]  # truncated: the rows it counts are not all there
    target.write_bytes(b"".join(line + b"\n" for line in lines))


def test_corrupt_results_files_are_refused_and_their_logs_checked_again(
    cluster: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    corruptions = [
        "a row of the wrong shape",
        "records: -5",
        "a bad records header",
        "one row repeated in place of another",
        "rows cut off",
    ]
    names = [f"log{i}" for i in range(len(corruptions) + 1)]
    for i, name in enumerate(names):
        _log(logs / f"{name}.jsonl", 30, seed=40 + i)
    paths = [str(logs / f"{name}.jsonl") for name in names]
    args = [f"--assert={spec}" for spec in ASSERTS]
    results = tmp_path / "results"
    fresh = _run_reports(cluster, tmp_path / "fresh", *args, *paths, engine="local")
    saved = _run_reports(cluster, tmp_path / "saved", *args, *paths, "--results", str(results))
    assert saved == fresh
    for name, how in zip(names, corruptions, strict=False):  # the last log's results stand
        _corrupt_results(results, name, how)
    again = [*args, *paths, "--results", str(results), "--resume"]
    resumed, said = _run(cluster, tmp_path / "resumed", *again)
    lines = said.splitlines()
    assert len([x for x in lines if x.startswith("chatassert check: ")]) == len(corruptions)
    for name in names[:-1]:
        assert f"checking {logs / name}.jsonl again" in said
    assert resumed == fresh  # every record: none lost, none counted twice
    # the refused files were written again: resume (its file tasks run here) takes them all
    reused = run_files(paths, Checker([inline_suite(ASSERTS)]), results, resume=True)
    assert (reused.said, reused.checked) == ([], [])
    assert reused.records == fresh[1][-1]["summary"]["records"]


def test_rejudge_errors_asks_only_for_the_errored_records_however_the_logs_are_named(
    cluster: str, judge_server: LoopbackServer, tmp_path: Path
) -> None:
    """The records to check again reach the task of their log however the log is named:
    absolutely, relatively, relatively from `./` (a relative name used to miss them: every
    record was judged again)."""
    (tmp_path / "logs").mkdir()
    logs = [str(tmp_path / "a.jsonl"), "logs/b.jsonl", "./logs/c.jsonl"]
    for k, log in enumerate(logs):
        _judged_log(tmp_path / log, 6, first=100 * k, turns=1)
    asked: list[str] = []
    refused: dict[int, str] = {}  # the first request of each log's records: its judge fails
    lock = threading.Lock()

    def reply(recorded: Recorded) -> Reply:
        body = json.dumps(recorded.body)
        found = re.search(r"Reply 0 of (\d+)\.", body)
        assert found, body
        log = int(found[1]) // 100  # conversation 104 is of the second log
        with lock:
            asked.append(body)
            if log not in refused:
                refused[log] = body
                return Reply({"error": "overloaded"}, status=500)
        return openai_verdict()

    judge_server.default = reply
    run = ("--assert=" + RUBRIC, *logs, "--results", "results")
    first = _judged_cli(
        cluster, judge_server, *run, "-o", str(tmp_path / "first.jsonl"), cwd=tmp_path
    )
    assert first.returncode == 3, first.stderr  # errors only
    rows = [json.loads(x) for x in (tmp_path / "first.jsonl").read_text("utf-8").splitlines()]
    errored = [r["source"] for r in rows[:-1] if r["result"]["status"] == "error"]
    assert len(errored) == len(refused) == 3  # one record of each log
    assert len(asked) == 18
    again = _judged_cli(
        cluster, judge_server, *run, "--resume", "--rejudge-errors",
        "-o", str(tmp_path / "again.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert len(asked) == 18 + 3  # only the records that had errors
    assert sorted(refused.values()) == sorted(asked[18:])  # the same subjects, asked again
    rows = [json.loads(x) for x in (tmp_path / "again.jsonl").read_text("utf-8").splitlines()]
    assert rows[-1]["summary"]["passed"] == 18
    assert [r["source"] for r in rows[:-1]] == [f"{p}:{n}" for p in logs for n in range(1, 7)]
    # the results now hold the new rows: a plain resume asks nothing and passes
    done = _judged_cli(cluster, judge_server, *run, "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(asked) == 18 + 3


def test_every_log_of_a_directory_uri_is_checked(cluster: str, tmp_path: Path) -> None:
    """A URI naming a directory stands for the logs in it, each a task, as a local directory
    does (the rows of all but its first file were lost)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name, seed in (("a", 21), ("b", 22), ("c", 23)):
        _log(logs / f"{name}.jsonl", 40, seed=seed)
    (logs / "notes.txt").write_text("not a log\n", encoding="utf-8")
    args = [f"--assert={spec}" for spec in ASSERTS]
    local = _run_reports(cluster, tmp_path / "local", *args, str(logs), engine="local")
    results = tmp_path / "r"
    on_ray = _run_reports(
        cluster, tmp_path / "uri", *args, logs.as_uri() + "/", "--results", str(results)
    )
    assert on_ray[0] == local[0]
    assert on_ray[1][-1] == local[1][-1]  # the same counts: 120 lines
    assert [json.dumps(r).replace(logs.as_uri(), str(logs)) for r in on_ray[1]] == [
        json.dumps(r) for r in local[1]
    ]
    # resume (its file tasks run here) takes the results saved for each log of the URI
    uris = [f"{logs.as_uri()}/{name}.jsonl" for name in "abc"]
    reused = run_files(uris, Checker([inline_suite(ASSERTS)]), results, resume=True)
    assert (reused.checked, reused.said) == ([], [])
    assert reused.records == local[1][-1]["summary"]["records"]
    assert [(v[1], v[4]) for v in reused.verdicts if v[0] == "case"] == [
        (r["source"], r["result"]["status"]) for r in on_ray[1][:-1] if "source" in r
    ]


def test_a_record_with_a_lone_surrogate_is_reported_as_a_local_run_does(
    cluster: str, tmp_path: Path
) -> None:
    """A record holding an escaped lone surrogate (valid JSON) travels back from its task
    and into the results (Arrow strings refused it: the run stopped)."""
    log = tmp_path / "s.jsonl"
    log.write_text(
        '{"id": "s\\ud800", "turns": [{"input": "q", "text": "A refund \\udfff."}]}\n'
        '{"id": "t", "turns": [{"input": "q", "text": "No."}]}\n',
        encoding="utf-8",
    )
    args = [f"--assert={spec}" for spec in ASSERTS]
    local = _reports(cluster, tmp_path, "local", *args, str(log))
    on_ray = _reports(cluster, tmp_path, "ray", *args, str(log), "--results", str(tmp_path / "r"))
    assert on_ray == local
    assert local[1][-1]["summary"]["records"] == 2


@pytest.mark.parametrize("option", [["--max-failures", "5"], ["--strict"]])
def test_stopping_early_on_ray_reports_what_a_local_run_does(
    cluster: str, logs: Path, tmp_path: Path, option: list[str]
) -> None:
    args = [*option, *(f"--assert={spec}" for spec in ASSERTS), str(logs / "a.jsonl")]
    local = _reports(cluster, tmp_path, "local", *args)
    on_ray = _reports(cluster, tmp_path, "ray", *args)
    assert local[0] == (1 if option[0] == "--max-failures" else 2)
    assert len(local[1]) < 100  # it stopped early: a.jsonl holds 250 conversations
    assert on_ray == local


def test_a_clean_run_on_ray_says_nothing_on_stderr(cluster: str, tmp_path: Path) -> None:
    log = tmp_path / "clean.jsonl"
    said = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    log.write_text(json.dumps({"messages": said}) + "\n", encoding="utf-8")
    done = _cli_process(
        cluster, "--engine", "ray", "--assert", "{type: contains, value: hello}", str(log)
    )
    assert (done.returncode, done.stderr) == (0, "")  # Ray's own notices are not the run's
