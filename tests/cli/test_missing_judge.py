"""A judged check with no judge to ask is said once, at start-up, before any log is read.

A suite with `llm_rubric` and no judge configured used to run, and repeat a Python-worded
"no judge configured: pass judge=..." error under every conversation. Now `check` looks up the
judge of every judged check of the selected cases before it opens a log: when one has none it
exits 2 with one message naming each such check and how to configure a judge (docs/judges.md),
and the library's `Checker` raises one `JudgeError` the same way. Cases that ask no judge
(left out by `-k`/`--tag`, or skipped by an assumption) need none.

The command line runs in process through its `main` (the test environment configures no
judge), or as a subprocess with a judge on 127.0.0.1 (`tests/judges/loopback.py`).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chatassert import LLMRubric
from chatassert._cli import main
from chatassert._suite import Case, Suite
from chatassert.errors import JudgeError
from chatassert.records import Checker
from chatassert.specs import load_suite, loads_suite
from chatassert.testing import FakeJudge

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from loopback import LoopbackServer, openai_verdict, run_cli

SUITE = """\
chatassert: 1
name: support
cases:
  - name: polite
    turns:
      - input: hello
        assertions:
          - {type: llm_rubric, value: Is polite}
          - {type: contains, value: hi}
  - name: plain
    turns:
      - input: bye
        assertions: [{type: contains, value: bye}]
"""


def run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run `chatassert argv...` in process in `cwd`; its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def conversation(user: str, reply: str) -> str:
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    return json.dumps({"messages": messages})


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    # three conversations and a line that cannot be read: a run that read them would say so
    (tmp_path / "log.jsonl").write_text(
        "\n".join([conversation("hello", "hi!")] * 3 + ["{not json"]) + "\n", encoding="utf-8"
    )
    return tmp_path


def test_a_missing_judge_is_said_once_before_any_log_is_read(work: Path) -> None:
    code, out, err = run(work, "check", "suite.yaml", "log.jsonl", "-o", "report.jsonl")
    assert code == 2
    assert out == ""
    assert err == (
        "chatassert check: 1 judged check has no judge to ask, so nothing was checked:\n"
        "  - suite.yaml: case 'polite', turns[0]: llm_rubric 'Is polite': no judge configured\n"
        "give one: --judge openai or anthropic with --judge-model MODEL and the API key's "
        "variable (or fake:pass / fake:fail offline, a plugin judge's name, module:factory), or "
        "the same in CHATASSERT_JUDGE and CHATASSERT_JUDGE_MODEL (named judges: "
        "CHATASSERT_JUDGES); see docs/judges.md\n"
    )
    assert "skipped" not in err  # the unreadable line was never read
    assert not (work / "report.jsonl").exists()  # nor any report opened


def test_inline_judged_assertions_need_a_judge_too(work: Path) -> None:
    code, _, err = run(work, "check", "--assert", "{type: llm_rubric, value: Is kind}", "log.jsonl")
    assert code == 2
    assert err.count("no judge configured") == 1
    assert "--assert #1: case \"llm_rubric 'Is kind'\"" in err


def test_every_judged_check_is_named_in_the_one_message(tmp_path: Path) -> None:
    rubrics = "".join(f"          - {{type: llm_rubric, value: rubric {i}}}\n" for i in range(7))
    (tmp_path / "many.yaml").write_text(
        "chatassert: 1\ncases:\n  - name: many\n    turns:\n      - input: hi\n"
        "        assertions:\n" + rubrics,
        encoding="utf-8",
    )
    (tmp_path / "log.jsonl").write_text(conversation("hi", "hello") + "\n", encoding="utf-8")
    code, _, err = run(tmp_path, "check", "many.yaml", "log.jsonl")
    assert code == 2
    assert err.startswith("chatassert check: 7 judged checks have no judge to ask")
    assert err.count("\n  - ") == 6  # five checks, then how many more
    assert "  - … and 2 more\n" in err


def test_a_named_judge_nobody_configured_is_said_at_start(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        "chatassert: 1\ncases:\n  - name: c\n    turns:\n      - input: hi\n        assertions:\n"
        "          - {type: llm_judge, criteria: Is polite, judge: strict}\n",
        encoding="utf-8",
    )
    (tmp_path / "log.jsonl").write_text(conversation("hi", "hello") + "\n", encoding="utf-8")
    code, _, err = run(tmp_path, "check", "suite.yaml", "log.jsonl")
    assert code == 2
    assert "unknown judge 'strict': no named judges are configured" in err


def test_cases_left_out_by_k_need_no_judge(work: Path) -> None:
    code, _, err = run(work, "check", "-k", "plain", "suite.yaml", "log.jsonl")
    assert code == 4, err  # the judge was not needed; the conversations are 'polite''s
    assert "no judge" not in err
    assert err.splitlines()[-1] == (
        "nothing was checked: 1 unreadable log line; 3 log records read matched only cases "
        "left out (by -k, --tag or a selection of the cases)"
    )


def test_cases_skipped_by_an_assumption_need_no_judge() -> None:
    case = Case("judged", checks=(LLMRubric("Is polite"),), metadata={"skip_if": "offline"})
    suite = Suite("s", (case,))
    assert len(suite.missing_judges()) == 1
    assert suite.assuming(["offline"]).missing_judges() == []
    checker = Checker([suite], assume=["offline"])  # no judge needed: it is not asked
    (row,) = checker.check_records([conversation("hello", "hi!")])
    assert row.status == "skipped"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    judge = LoopbackServer(default=openai_verdict(True, 1.0, "polite"))
    judge.start()
    yield judge
    judge.stop()


def test_a_configured_judge_runs_the_suite(work: Path, server: LoopbackServer) -> None:
    done = run_cli(work, server, "check", "suite.yaml", "log.jsonl")
    assert done.returncode == 3, done.stderr  # every case passed; one line was unreadable
    assert "no judge" not in done.stderr
    assert server.count == 3  # one verdict per conversation


# -- the library --------------------------------------------------------------------------------


def test_a_checker_without_a_judge_raises_once_naming_the_checks() -> None:
    suite = loads_suite(SUITE, filename="suite.yaml")
    with pytest.raises(JudgeError) as raised:
        Checker([suite])
    message = str(raised.value)
    assert message.count("no judge configured") == 1
    assert "suite.yaml: case 'polite', turns[0]: llm_rubric 'Is polite'" in message
    assert "pass judge=... (or judges={...} for named judges) to the loader" in message


def test_a_checker_with_a_judge_or_without_judged_cases_checks(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    judged = load_suite(tmp_path / "suite.yaml", judge=FakeJudge.passing("polite"))
    rows = Checker([judged]).check_records([conversation("hello", "hi!")])
    assert [row.status for row in rows] == ["passed"]
    plain = Checker([loads_suite(SUITE)], keyword="plain")
    assert [row.kind for row in plain.check_records([conversation("bye", "bye")])] == ["case"]


def test_a_case_reports_each_check_without_a_judge() -> None:
    suite = loads_suite(SUITE, filename="suite.yaml")
    polite, plain = suite.cases
    assert polite.missing_judges() == [
        "cases[0].turns[0]: llm_rubric 'Is polite': no judge configured"
    ]
    assert plain.missing_judges() == []
    assert suite.missing_judges(["polite"]) == []
