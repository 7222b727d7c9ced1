"""`chatassert validate`: agreement of judged checks with human labels.

The CLI runs as a subprocess (each exit code once; the other runs in this process, through
`run_cli_here`); the suite is judged by the real OpenAI judge against the loopback server on
127.0.0.1, whose verdicts are scripted per response text.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Recorded, Reply, openai_verdict, run_cli, run_cli_here

from chatassert._calibration import Label, calibrate, cohen_kappa, read_labels
from chatassert._cli import main
from chatassert.reporting import json_line

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
    done = run_cli_here(project, server, "check", "suite.yaml", "log.jsonl", "--full-results",
                        "-o", "r.jsonl")  # fmt: skip
    assert done.returncode == 1, done.stderr
    asked = server.count
    done = run_cli_here(
        project, server, "validate", "suite.yaml", "labels.jsonl", "--report", "r.jsonl"
    )
    assert done.returncode == 0, done.stderr
    assert server.count == asked  # no judge call
    assert "polite: 7 labelled, 6 judged, 0 without a verdict, 1 unmatched" in done.stdout
    assert "agreement 0.667  precision 0.667  recall 0.667  kappa 0.333" in done.stdout
    assert "  - c2: human pass, judge fail: judged Sorry for the wait." in done.stdout
    gated = run_cli(project, server, "validate", "suite.yaml", "labels.jsonl",
                    "--report", "r.jsonl", "--min-kappa", "0.6")  # fmt: skip
    assert gated.returncode == 1
    assert "below --min-kappa 0.6: polite" in gated.stdout
    passing = run_cli_here(project, server, "validate", "suite.yaml", "labels.jsonl",
                           "--report", "r.jsonl", "--min-kappa", "0.3")  # fmt: skip
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
    done = run_cli_here(project, server, "validate", "suite.yaml", "labels.jsonl")
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


# -- labels and reports read line by line, each problem by its place ---------------------------


def _validate(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """`chatassert validate` in process: exit code, stdout, stderr (never a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", *argv])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def _judged_line(record: str, status: str, reason: str = "judged") -> dict[str, Any]:
    leaf = {"status": status, "name": "llm_rubric", "reason": reason,
            "details": {"judge": "j", "threshold": None}, "message": "polite"}  # fmt: skip
    return {"suite": "s", "case": "c", "source": "log.jsonl:1", "subject_id": record,
            "result": {"status": status, "name": "case", "reason": reason, "details": {},
                       "children": [leaf]}}  # fmt: skip


def _write_lines(path: Path, rows: list[Any]) -> None:
    path.write_text("".join(json_line(r) for r in rows), "utf-8")  # as check writes them


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\u0085"])
def test_labels_and_reports_end_lines_at_a_line_feed_only(tmp_path: Path, sep: str) -> None:
    (tmp_path / "suite.yaml").write_text("", encoding="utf-8")
    record = f"conv{sep}7"
    _write_lines(tmp_path / "r.jsonl", [_judged_line(record, "failed", f"rude{sep}and short")])
    _write_lines(tmp_path / "labels.jsonl",
                 [{"record": record, "assertion": "polite", "human": "fail"}])  # fmt: skip
    code, out, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 0, err
    assert "polite: 1 labelled, 1 judged, 0 without a verdict, 0 unmatched" in out


def test_every_bad_label_is_named_by_its_line(tmp_path: Path) -> None:
    lines = [
        '{"record": "c1", "assertion": "polite", "human": "pass"}',
        '{"record": "c1", "assertion": "polite", "human": "yes"}',
        "[" * 5000 + "]" * 5000,
        '{"record": 1' + "0" * 5000 + "}",
        "{not json",
        "[1]",
        '{"assertion": "polite", "human": "fail"}',
    ]
    (tmp_path / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text("", encoding="utf-8")
    code, out, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        "chatassert validate: not a labels file:",
        "labels.jsonl:2: 'human' must be 'pass' or 'fail', found 'yes'",
        "labels.jsonl:3: the line nests too deeply to read (expected an object of three strings)",
        "labels.jsonl:4: not JSON (Exceeds the limit (4300 digits) for integer string "
        "conversion: value has 5001 digits)",
        "labels.jsonl:5: not JSON (Expecting property name enclosed in double quotes at column 2)",
        "labels.jsonl:6: expected an object, found list",
        "labels.jsonl:7: 'record' must be a non-empty string",
    ]


_BAD_REPORTS = {
    "summary 5": ({"summary": 5}, "summary is the number 5 (expected an object of counts)"),
    "result 5": ({**_judged_line("c1", "failed"), "result": 5},
                 "result is the number 5 (expected a result: an object)"),
    "children not a list": (
        {**_judged_line("c1", "failed"), "result": {"status": "failed", "name": "case",
                                                    "reason": "r", "details": {}, "children": 7}},
        "result.children is the number 7 (expected a list of results)",
    ),
    "details a list": (
        {**_judged_line("c1", "failed"), "result": {"status": "failed", "name": "case",
                                                    "reason": "r", "details": ["judge"]}},
        "result.details is a list (expected an object)",
    ),
    "score a string": (
        {**_judged_line("c1", "passed"), "result": {"status": "passed", "name": "llm_rubric",
                                                    "score": "0.9", "details": {"judge": "j"}}},
        "result.score is the string '0.9' (expected a number, or 'Infinity', '-Infinity' or "
        "'NaN')",
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", list(_BAD_REPORTS))
def test_a_broken_report_is_a_usage_error_naming_the_line(tmp_path: Path, what: str) -> None:
    row, problem = _BAD_REPORTS[what]
    (tmp_path / "suite.yaml").write_text("", encoding="utf-8")
    _write_lines(tmp_path / "r.jsonl", [_judged_line("c0", "passed"), row])
    _write_lines(tmp_path / "labels.jsonl",
                 [{"record": "c1", "assertion": "polite", "human": "fail"}])  # fmt: skip
    code, out, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 2
    assert out == ""
    assert f"r.jsonl:2: {problem}" in err


def test_deep_report_lines_are_refused_by_their_place(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("", encoding="utf-8")
    (tmp_path / "labels.jsonl").write_text(
        '{"record": "c1", "assertion": "polite", "human": "fail"}\n', encoding="utf-8"
    )
    deep = {"status": "failed", "name": "llm_rubric", "reason": "r", "details": {"judge": "j"}}
    for _ in range(300):
        deep = {"status": "failed", "name": "all_of", "reason": "r", "details": {},
                "children": [deep]}  # fmt: skip
    _write_lines(tmp_path / "r.jsonl", [{**_judged_line("c1", "failed"), "result": deep}])
    code, _, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 2
    assert "r.jsonl:1: the line nests 603 levels (expected at most 400)" in err


def test_a_lone_surrogate_in_a_reason_is_shown_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("", encoding="utf-8")
    _write_lines(tmp_path / "r.jsonl", [_judged_line("c1", "failed", "rude \ud800")])
    _write_lines(tmp_path / "labels.jsonl",
                 [{"record": "c1", "assertion": "polite", "human": "pass"}])  # fmt: skip
    code, out, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 0, err
    assert "  - c1: human pass, judge fail: rude \ufffd" in out
    code, out, _ = _validate(
        tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl", "-f", "json"
    )
    assert code == 0
    assert json.loads(out)["assertions"][0]["disagreements"][0]["reason"] == "rude \ud800"


@pytest.mark.parametrize("kappa", ["nan", "2", "-1.5"])
def test_a_min_kappa_outside_minus_one_to_one_is_a_usage_error(tmp_path: Path, kappa: str) -> None:
    code, _, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--min-kappa", kappa)
    assert code == 2
    assert f"--min-kappa must be from -1 to 1 (got {float(kappa)})" in err


def test_a_stray_byte_in_labels_is_named_by_its_line(tmp_path: Path) -> None:
    (tmp_path / "labels.jsonl").write_bytes(
        b'{"record": "c1", "assertion": "polite", "human": "pass"}\n'
        b'{"record": "c\xe9", "assertion": "polite", "human": "pass"}\n'
    )
    code, _, err = _validate(tmp_path, "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 2
    assert "labels.jsonl:2: the line is not UTF-8 (byte 0xe9 at column 14)" in err
