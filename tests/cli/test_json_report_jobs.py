"""The JSON report (compact by default, `--full-results`) and `--jobs N` reading byte ranges,
through the command line: the golden report and every run with workers as a subprocess, the
one-job runs they are compared with and the report's variants in this process
(tests/cli_runs.py)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chatassert._cli._engine import byte_ranges, split_lines
from chatassert.transcripts import numbered_lines, open_text
from cli_runs import run_in_process

GOLDEN = Path(__file__).parent.parent / "reporting" / "golden"

# the suite of tests/reporting/test_reports.py, as a spec file
SUITE = """\
chatassert: 1
name: support
cases:
  - name: weather
    turns:
      - assertions:
          - {type: contains_function_call, value: get_weather}
          - {type: not_contains, value: internal error}
          - {type: contains, value: Paris, message: names the city}
"""

NO_ERROR = "{type: not_contains, value: internal error}"
CONFIRMED = "{type: contains, value: confirmed}"


def _conv(i: int, text: str, *, call: bool = True, pad: int = 0) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    if call:
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": "c1", "content": "18C"})
    messages.append({"role": "assistant", "content": text + " ." * pad})
    return {"id": f"conv-{i}", "messages": messages}


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", *args, *(("--no-progress",) if "-f" in args else ())],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def here(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """`run`, in this process."""
    return run_in_process(
        *args, *(("--no-progress",) if "-f" in args else ()), cwd=cwd, stdin=stdin
    )


def _normalised(text: str) -> str:
    return re.sub(r'"duration": [0-9.e-]+', '"duration": 0', text)


@pytest.fixture
def golden_log(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    lines = [
        json.dumps(_conv(0, "It is 18C in Paris.")),
        json.dumps(_conv(1, "Sorry, internal error <b>&</b>", call=False)),
    ]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def _case_lines(out: subprocess.CompletedProcess[str]) -> str:
    return "".join(line + "\n" for line in out.stdout.splitlines() if '"summary"' not in line)


def test_full_results_writes_todays_full_trees(golden_log: Path) -> None:
    out = here("check", "suite.yaml", "log.jsonl", "-f", "json", "--full-results", cwd=golden_log)
    assert out.returncode == 1, out.stderr
    # the golden file the library's `Outcome.to_dict()` is pinned to
    expected = (GOLDEN / "report.jsonl").read_text(encoding="utf-8")
    assert _normalised(_case_lines(out)) == expected


def test_compact_report_golden(golden_log: Path) -> None:
    out = run("check", "suite.yaml", "log.jsonl", "-f", "json", cwd=golden_log)
    assert out.returncode == 1, out.stderr
    expected = (GOLDEN / "report-compact.jsonl").read_text(encoding="utf-8")
    assert _normalised(_case_lines(out)) == expected


def _compacted(node: dict[str, Any]) -> dict[str, Any]:
    """What the compact form of a full tree must be."""
    out = dict(node)
    if node["status"] == "passed":
        del out["reason"], out["details"]
        for evidence in ("pointer", "span", "excerpt"):  # kept only where a node did not pass
            out.pop(evidence, None)
    if "children" in node:
        out["children"] = [_compacted(c) for c in node["children"]]
    return out


def _records(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    for row in rows:
        if "result" in row:
            row["result"].pop("duration", None)
    return rows


def test_compact_keeps_every_status_and_explains_only_what_did_not_pass(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    lines = [
        json.dumps(_conv(i, text, call=i % 3 != 0))
        for i, text in enumerate(["In Paris: 18C.", "internal error", "Rome is warm.", "Paris"])
    ]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n{bad\n", encoding="utf-8")
    compact = _records(here("check", "suite.yaml", "log.jsonl", "-f", "json", cwd=tmp_path))
    full = _records(
        here("check", "suite.yaml", "log.jsonl", "-f", "json", "--full-results", cwd=tmp_path)
    )
    assert len(compact) == len(full) == 6  # 4 cases, the unreadable line, the summary
    for short, long in zip(compact, full, strict=True):
        if "result" in long:
            long = {**long, "result": _compacted(long["result"])}
        assert short == long
    statuses = [r["result"]["status"] for r in compact if "result" in r]
    assert statuses == ["failed", "failed", "failed", "failed"]
    turn = compact[0]["result"]["children"][0]
    assert turn["children"][1] == {  # named and placed as the suite file has it
        "status": "passed",
        "name": "not_contains",
        "spec_name": "not_contains",
        "spec_path": "cases[0].turns[0].assertions[1]",
    }
    assert turn["children"][0]["reason"].startswith("Expected tool 'get_weather'")


def test_every_report_line_validates_against_the_report_schema(golden_log: Path) -> None:
    schema = json.loads(here("schema", "report", cwd=golden_log).stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    with (golden_log / "log.jsonl").open("a", encoding="utf-8") as f:
        f.write("{not json\n")
    for extra in ((), ("--full-results",)):
        out = here("check", "suite.yaml", "log.jsonl", "-f", "json", *extra, cwd=golden_log)
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert {next(iter(r)) for r in rows} == {"suite", "unreadable", "summary"}
        for row in rows:
            jsonschema.validate(row, schema)
    bad = {"suite": "s", "case": "c", "source": "x", "subject_id": None}
    failed_without_reason = {**bad, "result": {"status": "failed", "name": "contains"}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(failed_without_reason, schema)


# -- --jobs: byte ranges read by the workers ---------------------------------------------------

# a log of every shape a range boundary can meet: a byte order mark, CRLF endings, blank and
# whitespace-only lines, an unreadable line, a line longer than a range (1 MB), non-ASCII text,
# bytes that are not UTF-8, and no final newline
_LONG = json.dumps(_conv(10_000, "It is confirmed, café", pad=1_100_000)).encode()


def _awkward_log(records: int = 2400) -> bytes:
    out = [b"\xef\xbb\xbf"]
    for i in range(records):
        text = ["Your booking is confirmed.", "Sorry, an internal error.", "Done, café."][i % 3]
        line = json.dumps(_conv(i, text, call=i % 2 == 0), ensure_ascii=False).encode()
        out.append(line + (b"\r\n" if i % 5 == 0 else b"\n"))
        if i % 400 == 7:
            out.append(b"\n   \n")
        if i == 1300:
            out.append(_LONG + b"\n")
        if i == 1700:
            out.append(b'{"broken": \n')
        if i == 1900:
            out.append(b'{"id": "x", "messages": [{"role": "user", "content": "\xff"}]}\n')
    out.append(json.dumps(_conv(records, "last, confirmed")).encode())  # no newline
    return b"".join(out)


@pytest.fixture(scope="module")
def awkward(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("awkward")
    data = _awkward_log()
    assert len(data) > 2 * (1 << 20)  # several ranges of about 1 MB, one line longer
    (d / "log.jsonl").write_bytes(data)
    (d / "log.jsonl.gz").write_bytes(gzip.compress(data))
    return d


def _report(d: Path, jobs: str, *logs: str, stdin: bytes | None = None) -> list[str]:
    """The JSON report's lines: with workers as a subprocess (standard input a pipe), with one
    job in this process."""
    runner = run if jobs != "1" else here
    out = runner(
        "check", "--assert", NO_ERROR, "--assert", CONFIRMED, *logs, "-f", "json", "-j", jobs,
        cwd=d, stdin=stdin,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    return _normalised(out.stdout).splitlines()


@pytest.fixture(scope="module")
def one_job(awkward: Path) -> list[str]:
    """The report of `awkward`'s log.jsonl with one job, which several tests compare with."""
    return _report(awkward, "1", "log.jsonl")


def test_jobs_two_writes_the_same_lines_as_jobs_one_on_a_file(
    awkward: Path, one_job: list[str]
) -> None:
    one = one_job
    assert _report(awkward, "2", "log.jsonl") == one
    assert _report(awkward, "3", "log.jsonl") == one
    rows = [json.loads(line) for line in one]
    assert {r["error"][:30] for r in rows if "unreadable" in r} == {
        "line is not JSON: Expecting va",
        "line is not UTF-8 (byte 0xff a",
    }
    ids = [r["subject_id"] for r in rows if "result" in r][::2]  # two cases per conversation
    expected = [f"conv-{i}" for i in range(1301)] + ["conv-10000"]
    assert ids == expected + [f"conv-{i}" for i in range(1301, 2401)]
    numbers = [int(r.get("source", r.get("unreadable", ":0")).rsplit(":", 1)[1]) for r in rows[:-1]]
    assert numbers == sorted(numbers)  # input order, line numbers right across ranges
    assert rows[0]["source"] == "log.jsonl:1"  # the byte order mark is not a line
    summary = rows[-1]["summary"]
    assert summary["records"] == 2400 + 4  # the long, broken and non-UTF-8 lines, the last


def test_jobs_two_writes_the_same_lines_as_jobs_one_on_gz_and_stdin(
    awkward: Path, one_job: list[str]
) -> None:
    assert _report(awkward, "2", "log.jsonl.gz") == _report(awkward, "1", "log.jsonl.gz")
    data = (awkward / "log.jsonl").read_bytes()
    from_stdin = _report(awkward, "2", "-", stdin=data)
    assert from_stdin == _report(awkward, "1", "-", stdin=data)
    assert [line.replace('"-:', '"log.jsonl:') for line in from_stdin] == one_job


def test_jobs_keep_the_first_failing_examples_in_input_order(awkward: Path) -> None:
    def text(jobs: str) -> str:
        out = (run if jobs != "1" else here)(
            "check", "--assert", CONFIRMED, "log.jsonl", "--show", "3", "-j", jobs, cwd=awkward
        )
        assert out.returncode == 1
        return out.stdout

    one = text("1")
    assert text("2") == one
    shown = re.findall(r"^- --assert / .* \((log\.jsonl:\d+)\)$", one, re.M)
    assert shown == ["log.jsonl:2", "log.jsonl:3", "log.jsonl:5"]


def test_junit_with_jobs_has_an_excerpt_for_every_failure(awkward: Path) -> None:
    out = run("check", "--assert", CONFIRMED, "log.jsonl", "-f", "junit", "-j", "2", cwd=awkward)
    failures = out.stdout.count("<failure")
    assert failures > 1000
    assert out.stdout.count("<system-out>") == failures


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 4096, 1 << 20])
@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"{}",
        b"{}\n",
        b"\n\n{}\n\n",
        b"{}\r\n{}\r\n",
        b"\xef\xbb\xbf{}\n{}",
        b'{"a": "' + b"x" * 300 + b'"}\n{}\n' + b"y" * 150,
        b"{}\n\xff\xfe\n\r\n \n{}",
        '{"t": "café ☕"}\n'.encode() * 9,
    ],
)
def test_byte_ranges_give_the_lines_of_the_stream_reader(
    tmp_path: Path, data: bytes, size: int
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    with open_text(str(path)) as stream:
        expected = list(numbered_lines(stream, str(path)))
    got: list[tuple[int, str]] = []
    end_before = 0
    for start, end, first, error in byte_ranges(str(path), size):
        assert error is None
        assert start == end_before
        assert start < end
        end_before = end
        with path.open("rb") as f:
            f.seek(start)
            lines = split_lines(f.read(end - start), start == 0)
        assert lines
        assert all(line.endswith("\n") for line in lines[:-1])
        got.extend(enumerate(lines, first))
    assert end_before == len(data)
    assert got == expected


def test_jobs_list_the_same_unreadable_and_unmatched_lines_as_jobs_one(tmp_path: Path) -> None:
    # workers fold the rows of their chunks; the main process still lists the first ten of
    # each kind, counts the rest, and writes every line of the report in input order
    two_cases = "  - name: other\n    turns:\n      - assertions:\n          - " + CONFIRMED + "\n"
    (tmp_path / "suite.yaml").write_text(SUITE + two_cases, encoding="utf-8")
    lines = []
    for i in range(6000):
        if i % 211 == 5:
            lines.append('{"broken": ')
        elif i % 307 == 9:
            lines.append(json.dumps({**_conv(i, "Sunny in Paris"), "case": "nobody"}))
        else:
            conv = _conv(i, "Sunny in Paris" if i % 7 else "Rain", pad=40 * (i % 3))
            lines.append(json.dumps({**conv, "case": "weather"}))
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert (tmp_path / "log.jsonl").stat().st_size > 2 * (1 << 20)  # several byte ranges

    def outcome(jobs: str) -> tuple[list[str], str, int]:
        done = (run if jobs != "1" else here)(
            "check", "suite.yaml", "log.jsonl", "-o", "out.jsonl", "-o", "out.txt", "-j", jobs,
            "--show", "2", cwd=tmp_path,
        )  # fmt: skip
        text = (tmp_path / "out.txt").read_text(encoding="utf-8")
        report = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
        return _normalised(report).splitlines(), done.stderr + text, done.returncode

    one = outcome("1")
    assert outcome("2") == one
    report, said, code = one
    assert code == 1  # failing cases (besides unreadable lines and unmatched subjects)
    assert said.count("- support / weather (log.jsonl:") == 2  # --show 2
    assert said.count(": skipped: line is not JSON") == 10
    assert "… and 19 more unreadable lines (only the first 10 are listed)" in said
    assert said.count(": no case of 'support' matches ") == 10
    assert "… and 10 more unmatched subjects (only the first 10 are listed)" in said
    summary = json.loads(report[-1])["summary"]
    assert (summary["unreadable"], summary["unmatched"], summary["records"]) == (29, 20, 6000)
    assert sum('"unmatched": "log.jsonl:' in line for line in report) == 20
