"""`chatassert compare BASE NEW`: the reports it writes, the exit codes its gates give, and
each usage error (exit 2, saying where and what to do, writing nothing).

Two runs go through a real process, as a CI job runs the command; the rest run in this
process through `chatassert._cli.main`, to keep the suite fast.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from compare_helpers import cli, write_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    base, new = write_runs(tmp_path_factory.mktemp("cli"))
    return str(base), str(new)


def _process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_a_failing_gate_exits_1_with_every_report_written(
    runs: tuple[str, str], tmp_path: Path
) -> None:
    done = _process(
        "compare", *runs, "--fail-on", "any-flip", "-o", "c.html", "-o", "c.xml", "-o", "c.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""  # the text report on standard output says why
    assert done.stdout.startswith(f"compared {runs[0]} (base) with {runs[1]} (new)\n")
    assert "gate failed (--fail-on any-flip):\n- any-flip: 8 flips" in done.stdout
    assert done.stdout.endswith(
        "report written: c.html (html)\nreport written: c.xml (junit)\n"
        "report written: c.json (json)\n"
    )
    assert json.loads((tmp_path / "c.json").read_text())["gate"]["passed"] is False
    assert ET.parse(tmp_path / "c.xml").getroot().get("failures") == "1"
    assert (tmp_path / "c.html").read_text().startswith("<!DOCTYPE html>")


def test_a_bad_report_exits_2_naming_its_line_and_writes_nothing(
    runs: tuple[str, str], tmp_path: Path
) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_text(Path(runs[1]).read_text().splitlines()[0] + "\n")
    done = _process("compare", runs[0], str(cut), "-o", "c.html", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"chatassert compare: {cut}:1: the report is cut short: it has no summary line (a run "
        "killed before it ended, or a file cut); run check to the end and compare that\n"
    )
    assert not (tmp_path / "c.html").exists()


def test_without_a_gate_the_comparison_is_shown_and_the_exit_code_is_0(
    runs: tuple[str, str],
) -> None:
    code, out, err = cli("compare", *runs)
    assert (code, err) == (0, "")
    assert "flips (8):" in out
    assert "gate" not in out


def _assert_log(where: Path, name: str, answers: list[str]) -> str:
    log = where / f"{name}.log.jsonl"
    log.write_text(
        "".join(
            json.dumps({"id": f"c{i}", "messages": [{"role": "user", "content": "hi"},
                                                    {"role": "assistant", "content": a}]}) + "\n"
            for i, a in enumerate(answers)
        )
    )  # fmt: skip
    report = where / f"{name}.jsonl"
    code, _, err = cli("check", "--assert", "{type: contains, value: ok}", str(log), "-o",
                       str(report), "-q")  # fmt: skip
    assert code in (0, 1), err
    return str(report)


def test_a_significant_regression_fails_the_gate_and_a_drop_over_its_limit_too(
    tmp_path: Path,
) -> None:
    base = _assert_log(tmp_path, "base", ["ok"] * 12)
    new = _assert_log(tmp_path, "new", ["no"] * 10 + ["ok"] * 2)
    code, out, err = cli("compare", base, new, "--fail-on", "regression", "-f", "json")
    assert code == 1, err
    document = json.loads(out)
    assert document["overall"]["worse"] == 10
    assert document["gate"]["failed"][0].startswith(
        "regression: contains 'ok' fell from 100.0% to 16.7%: 10 worse, 0 better"
    )
    # -q, every report in a file: nothing on standard output, the reasons on stderr
    code, out, err = cli("compare", base, new, "--max-drop", "*=0.5", "-o",
                         str(tmp_path / "r.xml"), "-q")  # fmt: skip
    assert (code, out) == (1, "")
    assert err == (
        "chatassert compare: gate failed:\n"
        "- max-drop *=0.5: overall fell by 0.8333 (from 100.0% to 16.7%)\n"
    )
    code, _, _ = cli("compare", base, new, "--fail-on", "regression", "--alpha", "0.0001")
    assert code == 0  # p 0.002 (Holm 0.004) is not below a stricter alpha


def test_nothing_paired_exits_4(tmp_path: Path) -> None:
    base = _assert_log(tmp_path, "base", ["ok"])
    new = tmp_path / "new.jsonl"
    new.write_text(Path(base).read_text().replace('"subject_id": "c0"', '"subject_id": "c9"'))
    code, out, err = cli("compare", base, str(new), "--fail-on", "regression")
    assert code == 4
    assert "only in the base run (1):" in out
    assert err.startswith(f"chatassert compare: nothing was paired: no case of {base} is in")


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--max-drop", "tone"], "--max-drop 'tone': expected NAME=LIMIT with a LIMIT from 0 to 1"),
        (["--max-drop", "tone=2"], "--max-drop 'tone=2': expected NAME=LIMIT"),
        (["--max-drop", "tone=0.1"], "--max-drop: no assertion named 'tone' in the runs "
         "compared (their assertions: 'contains_function_call', 'mentions the refund', "
         "'no internal errors', 'welcomes')"),
        (["--alpha", "0"], "--alpha must be between 0 and 1 (got 0)"),
        (["--confidence", "95"], "--confidence must be between 0 and 1 (got 95)"),
        (["-o", "x.otel.jsonl"], "a comparison is written as text, json, junit, html, not otel"),
        (["-f", "junit", "-o", "x.html"], "--format junit does not match the extension of "
         "--output x.html (html)"),
    ],
)  # fmt: skip
def test_usage_errors_exit_2_saying_what_is_wrong(
    runs: tuple[str, str],
    extra: list[str],
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("compare", *runs, *extra)
    assert code == 2
    assert err.startswith(f"chatassert compare: {said}"), err
    assert out == ""
    assert list(tmp_path.iterdir()) == []


def test_runs_of_different_suites_and_a_missing_run_are_usage_errors(
    runs: tuple[str, str], tmp_path: Path
) -> None:
    other = _assert_log(tmp_path, "other", ["ok"])
    code, _, err = cli("compare", runs[0], other)
    assert code == 2
    assert err.startswith(f"chatassert compare: {other}:1: suite '--assert' is not a suite of")
    code, _, err = cli("compare", runs[0], str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert err.startswith(f"chatassert compare: cannot read {tmp_path / 'nope.jsonl'}")
    code, _, err = cli("compare", runs[0], "--fail-on", "flips", runs[1])
    assert code == 2
    assert "invalid choice: 'flips'" in err


def test_the_help_lists_the_exit_codes() -> None:
    code, out, _ = cli("compare", "--help")
    assert code == 0
    assert "  4    nothing was paired: no case of one run is in the other" in out
    code, out, _ = cli("--help")
    assert "compare" in out
