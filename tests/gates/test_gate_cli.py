"""Gates through `chatassert check` (in this process, and once as a subprocess): they decide
the exit code, every report shows them (text, a JSON line each, a JUnit testcase each, an HTML
section), `regate` decides them again, `--jobs 2` decides them as `--jobs 1` does, and
`--baseline` gives the `max_drop` gates their baseline and prints the comparison.

Docs: docs/specs.md ("Gates"), docs/offline.md ("Compare with a baseline").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest
from gates_helpers import GOOD, NO_REFUND, SORRY, gate_lines, json_lines, log, record, run, write

from chatassert.reporting import report_schema
from chatassert.reporting._report_reader import read_report

STRICT = "{assertion: refund_policy, pass_rate: {min: 0.9, confidence: 0.95}}"
LOOSE = "{pass_rate: {min: 0.5}}"
DROP = "{max_drop: {assertion: tone, by: 0.1}}"


def test_a_failed_gate_fails_a_run_whose_cases_all_passed(tmp_path: Path) -> None:
    write(tmp_path, (STRICT, LOOSE), *[GOOD] * 10)
    code, out, _ = run(tmp_path, "check", "suite.yaml", "log.jsonl")
    assert code == 1
    assert "\ngates:\n  FAIL  refunds: pass rate of 'refund_policy' at least 0.9" in out
    assert "  PASS  refunds: pass rate of the cases at least 0.5: 10 of 10 passed" in out
    assert out.splitlines()[-1] == (
        "10 checked: 10 passed, 0 failed, 0 errors, 0 skipped; gates: 1 passed, 1 failed"
    )
    write(tmp_path, (LOOSE,), *[GOOD] * 10)
    assert run(tmp_path, "check", "suite.yaml", "log.jsonl")[0] == 0


def test_a_gate_over_no_outcome_is_an_error_of_the_run(tmp_path: Path) -> None:
    write(tmp_path, ("{assertion: polite, pass_rate: {min: 0.1}}",), GOOD)
    text = (tmp_path / "suite.yaml").read_text(encoding="utf-8")
    other = "  - name: other\n    assertions: [{type: on_last_turn, message: polite, "
    other += "assertion: {type: contains, value: thanks}}]\ngates:"
    (tmp_path / "suite.yaml").write_text(text.replace("gates:", other), encoding="utf-8")
    code, out, _ = run(tmp_path, "check", "suite.yaml", "log.jsonl")
    assert code == 3  # the case passed; the gate could not be decided: never a pass
    assert "ERROR refunds: pass rate of 'polite' at least 0.1: no outcome of 'polite'" in out


def test_every_report_shows_the_gates(tmp_path: Path) -> None:
    write(tmp_path, (STRICT, LOOSE, DROP), *[GOOD] * 9, NO_REFUND)
    code, _, _ = run(
        tmp_path, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl", "-o", "r.xml",
        "-o", "r.html", "-q",
    )  # fmt: skip
    assert code == 1
    report = (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    values = json_lines(report)
    assert [("gate" in v, "summary" in v) for v in values[-4:]] == [
        (True, False),
        (True, False),
        (True, False),
        (False, True),
    ]
    schema = report_schema()
    for value in values:
        jsonschema.validate(value, schema)
    assert read_report(report, "r.jsonl")[1] == []
    statuses = [(g["suite"], g["gate"]["spec_path"], g["gate"]["status"]) for g in values[-4:-1]]
    assert statuses == [
        ("refunds", "gates[0]", "failed"),
        ("refunds", "gates[1]", "passed"),
        ("refunds", "gates[2]", "skipped"),
    ]
    assert values[-1]["summary"]["gates"] == {"passed": 1, "failed": 1, "error": 0, "skipped": 1}
    failed = values[-4]["gate"]
    assert (failed["details"]["passed"], failed["details"]["total"]) == (9, 10)
    assert failed["details"]["observed"] == failed["details"]["interval"][0]

    junit = ElementTree.parse(tmp_path / "r.xml").getroot()
    (gates,) = [s for s in junit.iter("testsuite") if s.get("name") == "gates"]
    cases = list(gates.iter("testcase"))
    assert [c.get("classname") for c in cases] == ["refunds"] * 3
    assert cases[0].get("name") == (
        "pass rate of 'refund_policy' at least 0.9 (lower bound at 95% confidence) [gates[0]]"
    )
    assert cases[0].find("failure") is not None
    assert cases[2].find("skipped") is not None
    assert (gates.get("tests"), gates.get("failures"), gates.get("skipped")) == ("3", "1", "1")

    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = page[page.index('<details open id="gates">') :]
    section = section[: section.index("</details>")]
    assert section.count('<tr class="gate') == 3
    assert "9/10" in section
    assert '<span class="st failed">FAIL</span>' in section


def test_regate_decides_the_gates_again_over_its_outcomes(tmp_path: Path) -> None:
    write(tmp_path, (STRICT, LOOSE), *[GOOD] * 10)
    run(tmp_path, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl", "-q")
    before = gate_lines((tmp_path / "r.jsonl").read_text(encoding="utf-8"))
    code, out, _ = run(tmp_path, "regate", "r.jsonl", "--min-score", "llm_rubric=0.5", "-f", "json")
    assert code == 1  # the strict gate still fails: the cases are as they were
    assert gate_lines(out) == before
    # a gate line whose gate cannot be read back is a report regate cannot trust
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    value = json.loads(lines[-2])
    value["gate"]["details"]["gate"] = {"pass_rate": {"min": 7}}
    lines[-2] = json.dumps(value)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(tmp_path, "regate", "bad.jsonl", "--min-score", "x=0.5")
    assert code == 2
    assert "does not say its gate: pass_rate 'min' must be from 0 to 1" in err


def test_a_run_stopped_early_does_not_decide_its_gates(tmp_path: Path) -> None:
    write(tmp_path, (LOOSE,), GOOD, NO_REFUND, *[GOOD] * 5)
    code, out, _ = run(tmp_path, "check", "suite.yaml", "log.jsonl", "--max-failures", "1")
    assert code == 1
    assert (
        "SKIP refunds: pass rate of the cases at least 0.5: not evaluated: stopped after 1 "
        "failing case (--max-failures): gates need every outcome of the run"
    ) in " ".join(out.split())


def test_jobs_two_decide_the_gates_as_jobs_one_does(tmp_path: Path) -> None:
    # three conversations of half a MiB: the log is read as several chunks, folded by workers
    replies = [GOOD, SORRY, NO_REFUND] * 6
    lines = [record(i, r, pad=500_000 if i % 6 == 0 else 0) for i, r in enumerate(replies)]
    write(tmp_path, (STRICT, LOOSE, "{assertion: tone, pass_rate: {min: 0.6}}"))
    (tmp_path / "log.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    assert (tmp_path / "log.jsonl").stat().st_size > 1 << 20
    one = run(tmp_path, "check", "suite.yaml", "log.jsonl", "-f", "json", "-j", "1")
    two = run(tmp_path, "check", "suite.yaml", "log.jsonl", "-f", "json", "-j", "2")
    assert one[0] == two[0] == 1
    assert gate_lines(two[1]) == gate_lines(one[1])
    assert [g["gate"]["details"]["total"] for g in gate_lines(one[1])] == [18, 18, 18]


# -- --baseline ----------------------------------------------------------------------------------


def _baseline(directory: Path, *replies: str) -> None:
    """`base.jsonl`: the report of a run of the suite over `replies` (ids b0, b1, ...)."""
    (directory / "base-log.jsonl").write_text(log(*replies), encoding="utf-8")
    run(directory, "check", "suite.yaml", "base-log.jsonl", "-o", "base.jsonl", "-q")


def test_a_baseline_of_another_suite_is_refused_before_any_log_is_read(tmp_path: Path) -> None:
    write(tmp_path, (DROP,), GOOD)
    _baseline(tmp_path, GOOD)
    (tmp_path / "suite.yaml").write_text(
        (tmp_path / "suite.yaml").read_text(encoding="utf-8").replace("refunds", "billing"),
        encoding="utf-8",
    )
    code, out, err = run(
        tmp_path, "check", "suite.yaml", "no-such.jsonl", "--baseline", "base.jsonl"
    )
    assert (code, out) == (2, "")
    assert err == (
        "chatassert check: --baseline base.jsonl is a run of another suite (its suites: "
        "'refunds'; this run's: 'billing'): compare two runs of one suite\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--fail-on", "regression"], "--fail-on: compare with a run given by --baseline"),
        (["--baseline", "base.jsonl", "--compare-output", "c.csv"], "name it .json, .xml"),
        (["--baseline", "base.jsonl", "--max-drop", "tone"], "expected NAME=LIMIT"),
        (["--baseline", "missing.jsonl"], "--baseline: cannot read missing.jsonl"),
    ],
)
def test_comparison_options_are_checked_before_the_run(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    write(tmp_path, (LOOSE,), GOOD)
    _baseline(tmp_path, GOOD)
    code, out, err = run(tmp_path, "check", "suite.yaml", "log.jsonl", *argv)
    assert (code, out) == (2, "")
    assert said in err


def test_the_baseline_decides_max_drop_and_the_comparison_follows_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"  # where the run's own JSON report is written, then removed
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    write(tmp_path, (DROP, LOOSE), *[GOOD] * 6, *[SORRY] * 4)  # tone: 0.6
    _baseline(tmp_path, *[GOOD] * 9, SORRY)  # tone: 0.9, of the same subjects: paired
    code, out, _ = run(
        tmp_path, "check", "suite.yaml", "log.jsonl", "--baseline", "base.jsonl",
        "--compare-output", "cmp.json",
    )  # fmt: skip
    assert code == 1
    summary_end = out.index("; gates: 1 passed, 1 failed\n")
    assert (
        "FAIL refunds: pass rate of 'tone' at most 0.1 below the baseline: 0.600 (6/10) "
        "against 0.900 (9/10) in the baseline: a drop of 0.300, more than 0.1"
    ) in " ".join(out[:summary_end].split())
    comparison = out[summary_end:]
    assert "compared base.jsonl (base) with this run (new)" in comparison
    written = json.loads((tmp_path / "cmp.json").read_text(encoding="utf-8"))
    assert isinstance(written, dict)
    assert os.listdir(scratch) == []


def test_fail_on_and_max_drop_of_the_comparison_decide_a_run_whose_cases_passed(
    tmp_path: Path,
) -> None:
    write(tmp_path, (LOOSE,), *[GOOD] * 10)
    _baseline(tmp_path, *[GOOD] * 5, *[SORRY] * 5)  # tone improved since: 0.5 -> 1
    base = ["check", "suite.yaml", "log.jsonl", "--baseline", "base.jsonl", "-q"]
    assert run(tmp_path, *base)[0] == 0  # compared, and no gate of the comparison given
    assert run(tmp_path, *base, "--max-drop", "tone=0", "--fail-on", "regression")[0] == 0
    assert run(tmp_path, *base, "--fail-on", "any-flip", "-o", "r.jsonl")[0] == 1  # 5 flipped
    assert (tmp_path / "r.jsonl").exists()  # the run's own report, compared and kept
    code, _, err = run(tmp_path, *base, "--max-drop", "polite=0.1")
    assert code == 2
    assert "cannot compare: no assertion named 'polite'" in err
    (tmp_path / "log.jsonl").write_text(log(*[GOOD] * 10, prefix="new"), encoding="utf-8")
    code, _, err = run(tmp_path, *base)  # other subjects: none of them is in the baseline
    assert code == 4
    assert "nothing was paired: no case of base.jsonl is in this run" in err


def test_a_gate_failing_as_a_subprocess_exits_1_with_the_gate_on_stdout(tmp_path: Path) -> None:
    write(tmp_path, (STRICT,), *[GOOD] * 10)
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "suite.yaml", "log.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "FAIL  refunds: pass rate of 'refund_policy' at least 0.9" in done.stdout
    assert done.stderr == ""
