"""The command line as CI uses it: several reports from one run and JUnit names with paths
relative to the working directory as a subprocess; their variants, and cases selected with `-k`
and `--tag`, in this process (tests/cli_runs.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli_runs import run_in_process

SUITE = """\
test_cases:
  - name: refund quickly
    id: refund-1
    tags: [billing, smoke]
    turns:
      - user_input: I was charged twice
        assertions: [{type: contains, value: refund}]
  - name: refund slowly
    id: refund-2
    tags: [billing]
    turns:
      - user_input: Where is my money
        assertions: [{type: contains, value: refund}]
  - name: greets the user
    id: greet
    tags: [smoke]
    turns:
      - user_input: hello
        assertions: [{type: contains, value: welcome}]
"""


def _line(case: str, user: str, answer: str) -> str:
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": answer}]
    return json.dumps({"id": case, "messages": messages})


LOG = "\n".join(
    [
        _line("refund-1", "I was charged twice", "A refund is on its way."),
        _line("refund-2", "Where is my money", "Please wait."),  # fails: no refund
        _line("greet", "hello", "welcome!"),
    ]
    * 40
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "run.jsonl").write_text(LOG + "\n")
    return tmp_path


def _json_cases(path: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if "case" in line]


def _junit_names(path: Path) -> list[str]:
    return [tc.get("name", "") for tc in ET.parse(path).getroot().iter("testcase")]


# -- several reports from one run ----------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_each_output_gets_the_report_its_extension_names(work: Path, jobs: str) -> None:
    done = run(
        "check", "suite.yaml", "logs/run.jsonl", "-j", jobs,
        "-o", "report.xml", "-o", "report.html", "-o", "results.json", "-o", "summary.txt",
        cwd=work,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout.endswith(
        "report written: report.xml (junit)\nreport written: report.html (html)\n"
        "report written: results.json (json)\nreport written: summary.txt (text)\n"
    )  # after the summary, which summary.txt holds too
    assert (work / "summary.txt").read_text() in done.stdout
    root = ET.parse(work / "report.xml").getroot()
    assert root.get("tests") == "120"
    assert root.get("failures") == "40"
    cases = _json_cases(work / "results.json")
    assert len(cases) == 120
    assert [c["case"] for c in cases[:3]] == ["refund quickly", "refund slowly", "greets the user"]
    last = json.loads((work / "results.json").read_text().splitlines()[-1])
    assert last["summary"]["failed"] == 40
    assert last["summary"]["passed"] == 80
    html = (work / "report.html").read_text()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "refund slowly" in html
    text = (work / "summary.txt").read_text()
    assert "refund slowly" in text
    assert "<" not in text.split("\n", 1)[0]


def test_several_reports_match_the_same_reports_written_one_by_one(work: Path) -> None:
    run_in_process("check", "suite.yaml", "logs/run.jsonl", "-o", "a.json", "-o", "a.xml", cwd=work)
    run_in_process("check", "suite.yaml", "logs/run.jsonl", "-o", "b.json", cwd=work)
    run_in_process("check", "suite.yaml", "logs/run.jsonl", "-o", "b.xml", cwd=work)

    def strip(path: Path) -> list[object]:
        cases = _json_cases(path)
        for case in cases:
            case.pop("seconds", None)
            case.pop("duration", None)
            result = case.get("result")
            if isinstance(result, dict):
                result.pop("duration", None)
        return cases

    assert strip(work / "a.json") == strip(work / "b.json")
    assert _junit_names(work / "a.xml") == _junit_names(work / "b.xml")


def test_two_files_of_one_format_each_get_the_whole_report(work: Path) -> None:
    done = run_in_process(
        "check", "suite.yaml", "logs/run.jsonl", "-o", "a.xml", "-o", "b.xml", cwd=work
    )
    assert done.returncode == 1, done.stderr
    assert (work / "a.xml").read_text() == (work / "b.xml").read_text()
    assert len(_junit_names(work / "a.xml")) == 120


def test_format_with_several_outputs_is_a_usage_error(work: Path) -> None:
    done = run_in_process(
        "check", "suite.yaml", "logs/run.jsonl", "-f", "json", "-o", "a.json", "-o", "b.json",
        cwd=work,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--format json forces one format" in done.stderr
    assert not (work / "a.json").exists()
    assert not (work / "b.json").exists()


def test_an_output_named_twice_is_a_usage_error(work: Path) -> None:
    done = run_in_process(
        "check", "suite.yaml", "logs/run.jsonl", "-o", "a.json", "-o", "./a.json", cwd=work
    )
    assert done.returncode == 2
    assert "--output ./a.json is given twice" in done.stderr


def test_an_unwritable_output_stops_the_run_before_it_starts(work: Path) -> None:
    (work / "adir.xml").mkdir()
    done = run_in_process(
        "check", "suite.yaml", "logs/run.jsonl", "-o", "ok.json", "-o", "adir.xml", cwd=work
    )
    assert done.returncode == 2
    assert "cannot write adir.xml" in done.stderr
    assert (work / "ok.json").read_text() == ""  # nothing was checked


def test_one_output_with_a_matching_format_still_works(work: Path) -> None:
    done = run_in_process(
        "check", "suite.yaml", "logs/run.jsonl", "-f", "junit", "-o", "r.xml", cwd=work
    )
    assert done.returncode == 1, done.stderr
    assert len(_junit_names(work / "r.xml")) == 120


# -- selection: -k and --tag ---------------------------------------------------------------------


def _checked(work: Path, *options: str) -> dict[str, int]:
    done = run_in_process("check", "suite.yaml", "logs/run.jsonl", "-f", "json", *options, cwd=work)
    assert done.returncode in (0, 1), done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[-1]["summary"]["unmatched"] == 0  # a deselected case's records are not
    counts: dict[str, int] = {}
    for line in lines:
        if "case" in line:
            counts[line["case"]] = counts.get(line["case"], 0) + 1
    assert lines[-1]["summary"]["records"] == 120  # every record is still read
    return counts


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (("-k", "refund"), {"refund quickly", "refund slowly"}),
        (("-k", "REFUND and not slow"), {"refund quickly"}),
        (("-k", "greets or slowly"), {"refund slowly", "greets the user"}),
        (("-k", "not (quick or greet)"), {"refund slowly"}),
        (("-k", "'the user'"), {"greets the user"}),
        (("-k", "refund-2"), {"refund slowly"}),  # the id counts too
        (("--tag", "smoke"), {"refund quickly", "greets the user"}),
        (("--tag", "billing", "--tag", "smoke"), {"refund quickly", "refund slowly", "greets the user"}),  # noqa: E501
        (("--tag", "smoke", "-k", "refund"), {"refund quickly"}),
    ],
)  # fmt: skip
def test_selection_checks_only_the_selected_cases(
    work: Path, options: tuple[str, ...], expected: set[str]
) -> None:
    counts = _checked(work, *options)
    assert set(counts) == expected
    assert all(n == 40 for n in counts.values())


def test_selecting_only_passing_cases_passes(work: Path) -> None:
    done = run_in_process("check", "suite.yaml", "logs/run.jsonl", "-k", "not slowly", cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_selection_that_selects_nothing_is_a_usage_error(work: Path, jobs: str) -> None:
    done = run_in_process(
        "check", "suite.yaml", "logs/run.jsonl", "-j", jobs, "-k", "nothing", cwd=work
    )
    assert done.returncode == 2
    assert "-k 'nothing' selects none of the 3 cases of the suites" in done.stderr
    done = run_in_process("check", "suite.yaml", "logs/run.jsonl", "--tag", "nightly", cwd=work)
    assert done.returncode == 2
    assert "--tag nightly selects none of the 3 cases" in done.stderr


@pytest.mark.parametrize(
    ("expression", "said"),
    [
        ("refund and", "expected a name, 'not' or '(' at column 11, found the end"),
        ("(refund", "expected ')' at column 8"),
        ("refund slow", "expected 'and', 'or' or the end at column 8, found 'slow'"),
        ("'refund", "unclosed quote at column 1"),
        ("__import__('os')", "expected 'and', 'or' or the end at column 11, found '('"),
    ],
)
def test_a_bad_expression_is_a_usage_error_saying_where(
    work: Path, expression: str, said: str
) -> None:
    done = run_in_process("check", "suite.yaml", "logs/run.jsonl", "-k", expression, cwd=work)
    assert done.returncode == 2
    assert said in done.stderr


def test_selection_works_with_jobs(work: Path) -> None:
    assert _checked(work, "-j", "3", "-k", "slowly") == {"refund slowly": 40}


# -- JUnit names ---------------------------------------------------------------------------------


def test_junit_names_give_log_paths_relative_to_the_working_directory(work: Path) -> None:
    log = str(work / "logs" / "run.jsonl")
    done = run("check", "suite.yaml", log, "-o", "r.xml", cwd=work)
    assert done.returncode == 1, done.stderr
    names = _junit_names(work / "r.xml")
    assert names[0] == "refund quickly [logs/run.jsonl:1]"
    assert all(str(work) not in name for name in names)


def test_junit_names_keep_a_path_outside_the_working_directory(work: Path) -> None:
    inner = work / "inner"
    inner.mkdir()
    log = str(work / "logs" / "run.jsonl")
    done = run_in_process("check", str(work / "suite.yaml"), log, "-o", "r.xml", cwd=inner)
    assert done.returncode == 1, done.stderr
    assert _junit_names(inner / "r.xml")[0] == f"refund quickly [{log}:1]"


def test_json_format_help_says_json_lines(work: Path) -> None:
    done = run_in_process("check", "--help", cwd=work)
    assert "json (JSON Lines" in " ".join(done.stdout.split())
