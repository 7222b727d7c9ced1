"""`chatassert validate`: agreement of judged checks with human labels.

The CLI runs as a subprocess; the suite is judged by the real OpenAI judge against the loopback
server on 127.0.0.1, whose verdicts are scripted per response text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Recorded, Reply, openai_verdict, run_cli

from chatassert._calibration import Label, calibrate, cohen_kappa, read_labels

SRC = Path(__file__).resolve().parents[2] / "src"

# response text -> the judge's verdict; the humans disagree on "Fine." (judge pass, human fail)
# and on "Sorry for the wait." (judge fail, human pass)
JUDGE = {"Thank you!": True, "Fine.": True, "Sorry for the wait.": False, "Go away.": False,
         "Happy to help.": True, "Whatever.": False}  # fmt: skip
HUMAN = {"Thank you!": "pass", "Fine.": "fail", "Sorry for the wait.": "pass", "Go away.": "fail",
         "Happy to help.": "pass", "Whatever.": "fail"}  # fmt: skip


def _reply(recorded: Recorded) -> Reply:
    user = recorded.body["messages"][1]["content"]
    for text, passed in JUDGE.items():
        if f"<response>\n{text}\n</response>" in user:
            return openai_verdict(passed, 0.9 if passed else 0.1, f"judged {text}")
    return Reply({"error": "unknown"}, status=500)


@pytest.fixture
def project(tmp_path: Path, server: LoopbackServer) -> Path:
    server.default = _reply
    (tmp_path / "suite.yaml").write_text(
        "chatassert: 1\nname: support\nassertions:\n"
        "  - {type: llm_rubric, value: Is polite, message: polite}\n",
        encoding="utf-8",
    )
    records = [
        {"id": f"c{i}", "messages": [{"role": "user", "content": "Hi"},
                                     {"role": "assistant", "content": text}]}
        for i, text in enumerate(JUDGE)
    ]  # fmt: skip
    (tmp_path / "log.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    labels = [
        {"record": f"log.jsonl:{i + 1}" if i % 2 else f"c{i}", "assertion": "polite",
         "human": HUMAN[text]}
        for i, text in enumerate(JUDGE)
    ]  # fmt: skip
    labels.append({"record": "c99", "assertion": "polite", "human": "pass"})  # no such record
    (tmp_path / "labels.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8"
    )
    return tmp_path


def test_validate_runs_the_suite_and_measures_agreement(
    project: Path, server: LoopbackServer
) -> None:
    done = run_cli(
        project, server, "validate", "suite.yaml", "labels.jsonl", "log.jsonl", "-f", "json"
    )
    assert done.returncode == 0, done.stderr
    assert server.count == 6
    [polite] = json.loads(done.stdout)["assertions"]
    assert polite["counts"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 2}
    assert (polite["labelled"], polite["judged"], polite["unmatched"]) == (7, 6, 1)
    assert polite["agreement"] == pytest.approx(4 / 6)
    assert polite["precision"] == pytest.approx(2 / 3)
    assert polite["recall"] == pytest.approx(2 / 3)
    assert polite["kappa"] == pytest.approx(1 / 3)  # po 2/3, pe 1/2
    assert sorted((d["record"], d["human"], d["judge"]) for d in polite["disagreements"]) == [
        ("c2", "pass", "fail"),
        ("log.jsonl:2", "fail", "pass"),
    ]
    assert {d["reason"] for d in polite["disagreements"]} == {
        "judged Fine.",
        "judged Sorry for the wait.",
    }


def test_validate_reads_a_report_without_asking_a_judge_and_gates_on_kappa(
    project: Path, server: LoopbackServer
) -> None:
    done = run_cli(project, server, "check", "suite.yaml", "log.jsonl", "--full-results",
               "-o", "r.jsonl")  # fmt: skip
    assert done.returncode == 1, done.stderr
    asked = server.count
    done = run_cli(project, server, "validate", "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert done.returncode == 0, done.stderr
    assert server.count == asked  # no judge call
    assert "polite: 7 labelled, 6 judged, 0 without a verdict, 1 unmatched" in done.stdout
    assert "agreement 0.667  precision 0.667  recall 0.667  kappa 0.333" in done.stdout
    assert "  - c2: human pass, judge fail: judged Sorry for the wait." in done.stdout
    gated = run_cli(project, server, "validate", "suite.yaml", "labels.jsonl",
                    "--report", "r.jsonl", "--min-kappa", "0.6")  # fmt: skip
    assert gated.returncode == 1
    assert "below --min-kappa 0.6: polite" in gated.stdout
    passing = run_cli(project, server, "validate", "suite.yaml", "labels.jsonl", "--report",
                  "r.jsonl", "--min-kappa", "0.3")  # fmt: skip
    assert passing.returncode == 0


def test_bad_labels_are_a_usage_error_naming_the_line(
    project: Path, server: LoopbackServer
) -> None:
    (project / "bad.jsonl").write_text(
        '{"record": "c1", "assertion": "polite", "human": "pass"}\n'
        '{"record": "c1", "assertion": "polite", "human": "yes"}\n',
        encoding="utf-8",
    )
    done = run_cli(project, server, "validate", "suite.yaml", "bad.jsonl", "log.jsonl")
    assert done.returncode == 2
    assert "bad.jsonl:2: 'human' must be 'pass' or 'fail', found 'yes'" in done.stderr
    assert server.count == 0
    done = run_cli(project, server, "validate", "suite.yaml", "labels.jsonl")
    assert done.returncode == 2
    assert "give the LOGS to check, or --report" in done.stderr


def test_kappa_and_verdicts_by_hand() -> None:
    assert cohen_kappa(5, 0, 0, 5) == 1.0
    assert cohen_kappa(0, 5, 5, 0) == pytest.approx(-1.0)
    assert cohen_kappa(3, 0, 0, 0) is None  # both always passed: undefined
    assert cohen_kappa(0, 0, 0, 0) is None
    with pytest.raises(ValueError, match="labels:1: 'record' must be a non-empty string"):
        read_labels('{"assertion": "x", "human": "pass"}')

    # several judged nodes of one assertion in a record (every turn): a failure decides,
    # an error without a failure leaves no verdict
    def line(*statuses: str) -> dict[str, Any]:
        kids = [{"status": s, "name": "llm_rubric", "reason": s, "details": {"judge": "j"}}
                for s in statuses]  # fmt: skip
        return {"source": "l:1", "result": {"status": "x", "name": "case", "children": kids}}

    [cal] = calibrate([line("passed", "failed")], [Label("l:1", "llm_rubric", "fail")])
    assert (cal.tn, cal.no_verdict) == (1, 0)
    [cal] = calibrate([line("passed", "error")], [Label("l:1", "llm_rubric", "pass")])
    assert (cal.judged, cal.no_verdict) == (0, 1)
    [cal] = calibrate([line("passed")], [Label("l:1", "contains", "pass")])
    assert cal.unmatched == 1  # not a judged check
