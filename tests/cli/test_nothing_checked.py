"""A run that checked nothing is never green (G17, widened): exit 4, and why, on stderr.

A log whose every line is unreadable, or whose every conversation matches no case, used to
exit 3 — the code a CI recipe tolerates for "something could not be evaluated" — so a run
that checked nothing could pass a CI job. Such a run now exits 4 and says why: how many lines
could not be read, which conversations matched no case. Errors beside cases that were checked
keep exit 3. `validate` and `regate` follow.

The command line runs in process through its `main`; files live in `tmp_path`.
"""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from chatassert._cli import main

SUITE = """\
chatassert: 1
name: support
cases:
  - name: refund
    id: T-refund
    turns:
      - input: I was charged twice
        assertions: [{type: contains, value: refund}]
  - name: greeting
    id: T-greeting
    turns:
      - input: Hello
        assertions: [{type: contains, value: hello}]
"""


def record(id: str, user: str, reply: str) -> dict[str, Any]:
    return {
        "id": id,
        "messages": [{"role": "user", "content": user}, {"role": "assistant", "content": reply}],
    }


GOOD = record("T-refund", "I was charged twice", "Your refund is on its way.")
STRANGERS = [record(f"conv-{i}", "What's the weather?", "Sunny.") for i in (1, 2, 3)]


def run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run `chatassert argv...` in process in `cwd`; its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "good.jsonl").write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    (tmp_path / "bad.jsonl").write_text("{oops\nnot json\n[1, 2]\n", encoding="utf-8")
    (tmp_path / "strangers.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in STRANGERS), encoding="utf-8"
    )
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    return tmp_path


def _summary(stdout: str) -> dict[str, Any]:
    (line,) = [json.loads(x) for x in stdout.splitlines() if '"summary"' in x]
    return line["summary"]  # type: ignore[no-any-return]


def test_a_log_whose_every_line_is_unreadable_exits_4_saying_so(work: Path) -> None:
    code, out, err = run(work, "check", "suite.yaml", "bad.jsonl")
    assert code == 4, err
    reason = "nothing was checked: 3 unreadable log lines, 0 conversations read"
    assert err.splitlines()[-1] == reason
    assert out.splitlines()[-1] == reason  # the text report says it in place of "0 checked"


def test_conversations_that_match_no_case_exit_4_naming_them(work: Path) -> None:
    code, out, err = run(work, "check", "suite.yaml", "strangers.jsonl")
    assert code == 4, err
    reason = (
        "nothing was checked: 3 conversations matched no case of the suite "
        "(ids: conv-1, conv-2, conv-3)"
    )
    assert err.splitlines()[-1] == reason
    assert out.splitlines()[-1] == reason


def test_an_empty_log_still_exits_4(work: Path) -> None:
    code, _, err = run(work, "check", "suite.yaml", "empty.jsonl")
    assert code == 4
    assert "nothing was checked: the logs held no records" in err


def test_both_reasons_are_given_together(work: Path) -> None:
    code, _, err = run(work, "check", "suite.yaml", "strangers.jsonl", "bad.jsonl")
    assert code == 4
    assert err.splitlines()[-1] == (
        "nothing was checked: 3 conversations matched no case of the suite "
        "(ids: conv-1, conv-2, conv-3); 3 unreadable log lines"
    )


def test_errors_beside_a_checked_case_keep_exit_3(work: Path) -> None:
    code, out, err = run(work, "check", "suite.yaml", "good.jsonl", "strangers.jsonl")
    assert code == 3, err
    assert "nothing was checked" not in out + err
    code, out, err = run(work, "check", "suite.yaml", "good.jsonl", "bad.jsonl")
    assert code == 3, err
    assert "nothing was checked" not in out + err
    assert run(work, "check", "suite.yaml", "good.jsonl")[0] == 0


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_report_says_nothing_was_checked(work: Path, jobs: str) -> None:
    code, _, err = run(
        work, "check", "suite.yaml", "strangers.jsonl", "-j", jobs,
        "-o", "r.jsonl", "-o", "r.xml", "-o", "r.html", "-o", "r.txt",
    )  # fmt: skip
    assert code == 4, err
    summary = _summary((work / "r.jsonl").read_text(encoding="utf-8"))
    assert (summary["passed"], summary["unmatched"], summary["records"]) == (0, 3, 3)
    junit = ET.parse(work / "r.xml").getroot()
    error = junit.find("./testsuite/testcase[@name='nothing checked']/error")
    assert error is not None
    assert "3 conversations matched no case" in (error.get("message") or "")
    assert "nothing was checked: 3 conversations" in (work / "r.html").read_text(encoding="utf-8")
    assert "nothing was checked: 3 conversations" in (work / "r.txt").read_text(encoding="utf-8")


def test_an_expect_suite_over_unreadable_lines_checked_nothing(tmp_path: Path) -> None:
    """Each test is reported without a response, but no response was checked: exit 4."""
    suite = Path(__file__).parents[2] / "examples" / "search.expect.json"
    (tmp_path / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
    code, _, err = run(tmp_path, "check", str(suite), "bad.jsonl")
    assert code == 4, err
    last = err.splitlines()[-1]
    assert last.startswith("nothing was checked: 1 unreadable log line, 0 responses read; ")
    assert "tests with no response in the logs" in last


def test_regate_of_a_report_that_checked_nothing_exits_4(work: Path) -> None:
    code, _, _ = run(work, "check", "suite.yaml", "strangers.jsonl", "-o", "r.jsonl")
    assert code == 4
    code, _, err = run(work, "regate", "r.jsonl", "--min-score", "llm_rubric=0.5")
    assert code == 4, err
    assert "nothing was checked: 3 conversations matched no case" in err + _


def test_validate_over_logs_that_checked_nothing_exits_4(work: Path) -> None:
    (work / "labels.jsonl").write_text(
        json.dumps({"record": "conv-1", "assertion": "contains", "human": "pass"}) + "\n",
        encoding="utf-8",
    )
    code, _, err = run(work, "validate", "suite.yaml", "labels.jsonl", "strangers.jsonl")
    assert code == 4, err
    assert "nothing was checked: 3 conversations matched no case" in err


def test_validate_of_a_report_without_a_checked_case_exits_4(work: Path) -> None:
    (work / "labels.jsonl").write_text(
        json.dumps({"record": "conv-1", "assertion": "contains", "human": "pass"}) + "\n",
        encoding="utf-8",
    )
    run(work, "check", "suite.yaml", "strangers.jsonl", "--full-results", "-o", "r.jsonl")
    code, out, err = run(work, "validate", "suite.yaml", "labels.jsonl", "--report", "r.jsonl")
    assert code == 4, err
    assert "nothing was checked: the report r.jsonl holds no case checked against a subject" in err
    assert out == ""
