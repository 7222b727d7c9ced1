"""`chatassert check` on an expect suite and a JSONL file of responses: a failing, a passing and
an unreadable run as a subprocess, the reports' details in this process (tests/cli_runs.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_runs import run_in_process

EXAMPLES = Path(__file__).parents[2] / "examples"
SUITE = EXAMPLES / "search.expect.json"
RESPONSES = EXAMPLES / "search.responses.jsonl"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def here(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`run`, in this process."""
    return run_in_process(*map(str, args))


def test_the_example_has_one_failing_test() -> None:
    out = run("check", SUITE, RESPONSES)
    assert out.returncode == 1, out.stderr
    assert "6 checked: 5 passed, 1 failed" in out.stdout
    assert "search-001" in out.stdout
    assert (
        "File 'work/security-doc.md' at results[2] doesn't match pattern '^journal/'" in out.stdout
    )


def test_json_output_pairs_responses_by_id(tmp_path: Path) -> None:
    out = here("check", SUITE, RESPONSES, "--format", "json")
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    outcomes, summary = lines[:-1], lines[-1]["summary"]
    assert [o["subject_id"] for o in outcomes] == [
        "search-001",
        "search-002",
        "search-003",
        "filter-001",
        "filter-002",
        "filter-003",
    ]
    assert summary["passed"] == 5
    assert summary["failed"] == 1


def test_tests_with_no_response_are_reported(tmp_path: Path) -> None:
    passing = [
        line
        for line in RESPONSES.read_text().splitlines()
        if '"search-001"' not in line and '"filter-003"' not in line
    ]
    log = tmp_path / "partial.jsonl"
    log.write_text("\n".join(passing) + "\n")
    out = here("check", SUITE, log)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "test 'search-001' has no response in the logs" in out.stderr
    assert "test 'filter-003' has no response in the logs" in out.stderr
    assert "6 checked: 4 passed, 0 failed, 2 errors" in out.stdout


def test_all_passing_responses_exit_zero(tmp_path: Path) -> None:
    lines = RESPONSES.read_text().splitlines()
    fixed = json.loads(lines[0])
    fixed["response"]["results"] = fixed["response"]["results"][:2]
    log = tmp_path / "fixed.jsonl"
    log.write_text("\n".join([json.dumps(fixed), *lines[1:]]) + "\n")
    out = run("check", SUITE, log)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 checked: 6 passed" in out.stdout


def test_unreadable_lines_and_unknown_ids(tmp_path: Path) -> None:
    log = tmp_path / "messy.jsonl"
    extra = ["not json", json.dumps({"id": "nope", "response": {}})]
    log.write_text(RESPONSES.read_text() + "\n".join(extra) + "\n")
    out = run("check", SUITE, log)
    assert out.returncode == 1
    assert f"{log}:7: skipped: " in out.stderr
    assert f"{log}:8: no test of 'note-search' answers response 'nope': it is no test's id" in (
        out.stderr
    )
    assert "; 1 unreadable log line;" in out.stdout
    assert "1 without a matching case" in out.stdout
    assert "has no response" not in out.stderr


def test_lint_accepts_the_example() -> None:
    out = here("lint", SUITE)
    assert out.returncode == 0
    assert "ok (expect, 6 cases" in out.stdout


def test_a_response_naming_no_test_is_unmatched_even_when_the_suite_has_one_test(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "one.expect.json"
    suite.write_text(json.dumps([{"id": "t1", "expect": {"status": "success"}}]))
    log = tmp_path / "responses.jsonl"
    log.write_text(json.dumps({"id": "other", "response": {"status": "error"}}) + "\n")
    out = here("check", suite, log)
    assert "FAIL" not in out.stdout  # 'other' is not t1: it is not checked against it
    assert "no test of 'one' answers response 'other': it is no test's id or name" in out.stderr
    assert "test 't1' has no response in the logs" in out.stderr
    assert out.returncode == 4  # no response was checked: t1 has none, the line is unmatched
    assert out.stderr.splitlines()[-1] == (
        "nothing was checked: 1 response matched no case of the suite (ids: other); "
        "1 test with no response in the logs"
    )


def test_junit_reports_tests_with_no_response_as_errors(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    log = tmp_path / "three.jsonl"
    log.write_text("".join(RESPONSES.read_text().splitlines(keepends=True)[:3]))
    out = here("check", SUITE, log, "--format", "junit")
    root = ET.fromstring(out.stdout)
    assert (root.get("tests"), root.get("errors")) == ("6", "3")
    assert len(root.findall(".//testcase")) == 6


def test_in_a_responses_run_every_line_is_a_response_even_one_shaped_like_a_transcript(
    tmp_path: Path,
) -> None:
    # a run whose every case checks JSON responses reads no transcript: a line shaped like an
    # OpenAI chat record names no test, so it goes to the suite's only test and is checked
    suite = tmp_path / "one.expect.json"
    suite.write_text(json.dumps([{"id": "t1", "expect": {"status": "success"}}]))
    log = tmp_path / "responses.jsonl"
    chat = {"messages": [{"role": "user", "content": "Hi"}]}
    log.write_text(json.dumps(chat) + "\nnull\n")
    out = here("check", suite, log, "--format", "json")
    assert out.returncode == 1, out.stdout + out.stderr
    outcome = json.loads(out.stdout.splitlines()[0])
    assert outcome["case"] == "t1"
    assert outcome["result"]["status"] == "failed"
    assert f"{log}:2: skipped: the line is JSON null: no response to check" in out.stderr
