"""`chatassert lint` recognises workflow files and validates them as `check --workflow` loads
them, as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def lint(*paths: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "chatassert", "lint", *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_example_workflow_is_linted_as_a_workflow() -> None:
    proc = lint("-v", EXAMPLES / "support.workflow.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{EXAMPLES / 'support.workflow.yaml'}: ok (workflow, 3 states, entry 'intake', "
        "terminal: closed; use it with check --workflow)",
        "  intake: Escalate -> specialist, Resolve -> closed",
        "  specialist: Resolve -> closed",
        "  closed: terminal",
    ]


def test_a_pack_with_a_workflow_section_is_recognised_by_its_content(tmp_path: Path) -> None:
    pack = {
        "id": "support",
        "prompts": {"intake": {"system_template": "You triage."}},
        "workflow": {
            "version": 1,
            "entry": "intake",
            "states": {"intake": {"on_event": {"Resolve": "closed"}}, "closed": {}},
        },
    }
    (tmp_path / "support.pack.json").write_text(json.dumps(pack), encoding="utf-8")
    proc = lint("support.pack.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("support.pack.json: ok (workflow, 2 states, entry 'intake'")


def test_a_broken_workflow_is_a_usage_error_saying_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "bad.workflow.yaml").write_text(
        "workflow:\n  entry: intake\n  states:\n    intake: {on_event: {Go: nowhere}}\n",
        encoding="utf-8",
    )
    proc = lint("bad.workflow.yaml", EXAMPLES / "support.workflow.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == (
        "bad.workflow.yaml: not a valid workflow: state 'intake': event 'Go' goes to unknown "
        "state 'nowhere' (states: intake)\n"
    )
    assert "support.workflow.yaml: ok (workflow" in proc.stdout  # the others are still linted


def test_suites_are_still_linted_as_suites() -> None:
    proc = lint(EXAMPLES / "booking.flat.yaml", EXAMPLES / "support.scenario.yaml")
    assert proc.returncode == 0, proc.stderr
    assert "(workflow" not in proc.stdout
    assert proc.stdout.count(": ok (") == 2
