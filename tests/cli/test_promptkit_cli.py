"""`chatassert check` with PromptKit Eval files and recordings: a failing and a passing eval,
one from another directory, recordings read with jobs and a missing one as a subprocess; the
reports' details and the other recordings in this process (tests/cli_runs.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runs import run_in_process

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "promptkit" / "data"
EXAMPLES = ROOT / "examples"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def evals(tmp_path: Path) -> Path:
    """The billing eval and its recordings, copied where each test may change them."""
    for name in ("billing.eval.yaml", "billing.arena.json", "billing.recording.json"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_an_eval_file_alone_checks_the_recording_it_names(evals: Path) -> None:
    done = run("check", "billing.eval.yaml", cwd=evals)
    assert done.returncode == 1, done.stderr
    assert "- billing / billing-replay (billing.arena.json:1)" in done.stdout
    assert "FAIL turns[1] No banned words [guardrail_triggered]" in done.stdout
    assert done.stdout.splitlines()[-1] == (
        "1 checked: 0 passed, 1 failed, 0 errors, 0 skipped; 1 verdict differs from the recording's"
    )
    assert (
        "- billing / billing-replay (billing.arena.json:1): turns[1] guardrail_triggered: "
        "recorded passed, chatassert failed (Expected guardrail 'banned_words' not to trigger "
        "but it did)"
    ) in done.stdout


def test_fail_fast_leaves_an_eval_as_it_is(evals: Path) -> None:
    plain = run_in_process("check", "-f", "json", "billing.eval.yaml", cwd=evals)
    fast = run_in_process("check", "-f", "json", "--fail-fast", "billing.eval.yaml", cwd=evals)
    statuses = [
        [c["status"] for c in _json_lines(done.stdout)[0]["result"]["children"]]
        for done in (plain, fast)
    ]
    assert statuses == [["passed", "failed", "passed"]] * 2


def test_the_eval_is_found_from_another_directory(evals: Path) -> None:
    done = run("check", str(evals / "billing.eval.yaml"), cwd=ROOT)
    assert done.returncode == 1, done.stderr
    assert f"({evals / 'billing.arena.json'}:1)" in done.stdout


def test_the_json_report_carries_recorded_verdicts_and_disagreements(evals: Path) -> None:
    done = run_in_process("check", "-f", "json", "billing.eval.yaml", cwd=evals)
    case, summary = _json_lines(done.stdout)
    assert case["case"] == "billing-replay"
    assert case["subject_id"] == "run-billing-7"
    assert [(r["location"], r["recorded"], r["chatassert"]) for r in case["recorded"]] == [
        ("turns[0]", "passed", "passed"),
        ("turns[0]", "passed", "passed"),
        ("turns[1]", "passed", "passed"),
        ("turns[1]", "passed", "failed"),
        ("conversation", "passed", "passed"),
    ]
    assert [(d["location"], d["type"], d["label"]) for d in case["disagreements"]] == [
        ("turns[1]", "guardrail_triggered", "No banned words")
    ]
    assert summary["summary"]["records"] == 1


def test_logs_given_are_checked_instead_of_the_named_recording(evals: Path) -> None:
    log = {
        "id": "live-1",
        "messages": [
            {"role": "user", "content": "Charged twice?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c", "type": "function",
                 "function": {"name": "lookup_invoice", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "one charge"},
            {"role": "assistant", "content": "Sorry, I see only one charge."},
        ],
    }  # fmt: skip
    (evals / "live.jsonl").write_text(json.dumps(log) + "\n", encoding="utf-8")
    done = run_in_process("check", "-f", "json", "billing.eval.yaml", "live.jsonl", cwd=evals)
    assert done.returncode == 0, done.stdout + done.stderr
    case, _ = _json_lines(done.stdout)
    assert case["source"] == "live.jsonl:1"
    assert "recorded" not in case  # a log with no verdicts of its own


def test_a_scenario_suite_checks_an_arena_recording() -> None:
    done = run_in_process(
        "check", "examples/support.scenario.yaml", "examples/promptkit/support.arena.json", cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "- support / duplicate-charge-refund (examples/promptkit/support.arena.json:1): "
        "turns[1] state_is: recorded failed, chatassert passed"
    ) in done.stdout


def test_the_example_eval_passes_with_no_log_argument() -> None:
    done = run("check", "examples/promptkit/support.eval.yaml", cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "1 checked: 1 passed, 0 failed, 0 errors, 0 skipped"


def test_a_session_recording_is_a_log_for_inline_assertions(evals: Path) -> None:
    spec = "{type: guardrail_triggered, guardrail: pii_filter, expected: false}"
    done = run_in_process(
        "check", "--assert", spec, "-f", "json", "billing.recording.json", cwd=evals
    )
    assert done.returncode == 1, done.stderr
    case, _ = _json_lines(done.stdout)
    statuses = [c["status"] for c in case["result"]["children"][0]["children"]]
    assert statuses == ["passed", "failed"]


def test_a_directory_of_recordings_is_read_with_jobs(evals: Path) -> None:
    done = run("check", "-j", "2", "--assert", "{type: contains, value: sorry}", str(evals))
    assert done.returncode == 1, done.stderr  # the session recording never apologises
    assert done.stdout.splitlines()[-1].startswith("2 checked: 1 passed, 1 failed")
    assert "billing.recording.json:1)" in done.stdout


def test_a_suite_without_recordings_still_needs_a_log(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(
        "turns:\n  - user_input: Hi\n    assertions:\n      - {type: contains, value: hi}\n",
        encoding="utf-8",
    )
    done = run_in_process("check", "s.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "give at least one LOG" in done.stderr
    assert "a PromptKit Eval" in done.stderr


def test_an_eval_whose_recording_is_missing_is_a_usage_error(evals: Path) -> None:
    (evals / "billing.arena.json").unlink()
    done = run("check", "billing.eval.yaml", cwd=evals)
    assert done.returncode == 2
    assert done.stderr == "cannot read log billing.arena.json: no such file\n"


def test_an_invalid_eval_is_a_spec_error_with_no_log_argument(evals: Path) -> None:
    text = (evals / "billing.eval.yaml").read_text(encoding="utf-8")
    (evals / "billing.eval.yaml").write_text(text.replace("mode: instant", "mode: slow"), "utf-8")
    done = run_in_process("check", "billing.eval.yaml", cwd=evals)
    assert done.returncode == 2
    assert "spec.mode: unknown replay mode 'slow'" in done.stderr
    assert done.stdout == ""


def test_a_broken_recording_is_one_unreadable_record(evals: Path) -> None:
    text = (evals / "billing.arena.json").read_text(encoding="utf-8")
    (evals / "billing.arena.json").write_text(text[: len(text) // 2], encoding="utf-8")
    done = run_in_process("check", "billing.eval.yaml", cwd=evals)
    assert done.returncode == 4  # the only recording: nothing was checked
    assert done.stderr.startswith("billing.arena.json:1: skipped: the file is not JSON: ")
    assert "nothing was checked: 1 unreadable log line, 0 conversations read" in done.stderr
