"""The command line on flat suites: summary, exit codes, bad specs. A pass, a failure and a bad
spec as a subprocess; the JSON report, lint, a malformed line and usage errors in this process
(tests/cli_runs.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_runs import run_in_process

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def here(*args: str) -> subprocess.CompletedProcess[str]:
    """`run`, in this process."""
    return run_in_process(*args, cwd=ROOT)


def test_the_bundled_example_passes_with_exit_code_0() -> None:
    done = run("check", "examples/booking.flat.yaml", "examples/booking.jsonl")
    assert done.returncode == 0, done.stderr
    assert "2 checked: 2 passed, 0 failed, 0 errors, 0 skipped" in done.stdout
    assert "contains_function_call  100.0% passed  (2/2)" in done.stdout


def test_a_regression_fails_with_exit_code_1_and_names_the_failing_turns() -> None:
    done = run("check", "examples/booking.flat.yaml", "examples/booking-regressions.jsonl")
    assert done.returncode == 1
    out = done.stdout
    case = "- booking / books a table for four"
    assert f"{case} (examples/booking-regressions.jsonl:1; matched by inputs)" in out
    assert "FAIL turns[0] turn: 3 of 3 failed" in out
    assert (
        "FAIL contains_function_call at turns[0].assertions[0]: "
        "Expected tool 'check_availability', found: []"
    ) in out
    assert (
        "FAIL contains_function_call at turns[1].assertions[0]: "
        "tool 'create_reservation' was called with party_size=2,\n        expected 4"
    ) in out  # wrapped at 120 columns, continued under its check
    assert "1 checked: 0 passed, 1 failed" in out


def test_json_output_has_one_record_per_case_and_a_summary(tmp_path: Path) -> None:
    done = here("check", "--format", "json", "examples/booking.flat.yaml", "examples/booking.jsonl")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line.get("case") for line in lines[:-1]] == [
        "books a table for four",
        "declines past dates",
    ]
    assert lines[0]["result"]["status"] == "passed"
    assert lines[-1] == {
        "summary": {
            "passed": 2,
            "failed": 0,
            "error": 0,
            "skipped": 0,
            "unreadable": 0,
            "unmatched": 0,
            "records": 2,
            "interrupted": False,
        }
    }


def test_a_bad_spec_exits_2_listing_every_problem(tmp_path: Path) -> None:
    suite = tmp_path / "bad.yaml"
    suite.write_text(
        "turns:\n  - user_input: x\n    assertions:\n      - {type: contain, value: x}\n"
        "      - {type: matches}\n"
    )
    done = run("check", str(suite), "examples/booking.jsonl")
    assert done.returncode == 2
    assert (
        f"{suite}:4: turns[0].assertions[0]: unknown flat assertion type 'contain'" in done.stderr
    )
    assert f"{suite}:5: turns[0].assertions[1]: flat type 'matches' needs the parameter" in (
        done.stderr
    )
    lint = here("lint", str(suite), "examples/booking.flat.yaml")
    assert lint.returncode == 2
    assert "examples/booking.flat.yaml: ok (flat, 2 cases, 8 assertions)" in lint.stdout


def test_a_malformed_log_line_is_reported_with_its_number_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    good = (EXAMPLES / "booking.jsonl").read_text().splitlines()
    log.write_text("\n".join([good[0], "{oops", '{"no": "messages"}', good[1]]) + "\n")
    done = here("check", "examples/booking.flat.yaml", str(log))
    assert done.returncode == 3
    assert f"{log}:2: skipped: line is not JSON" in done.stderr
    assert f"{log}:3: skipped: unrecognised transcript record" in done.stderr
    assert "2 checked: 2 passed, 0 failed, 0 errors, 0 skipped; 2 unreadable log lines" in (
        done.stdout
    )


def test_usage_errors_exit_2() -> None:
    assert here("check").returncode == 2
    assert here("check", "missing.yaml", "examples/booking.jsonl").returncode == 2
