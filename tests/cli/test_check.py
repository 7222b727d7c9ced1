"""The command line's check, lint and schema: each exit code and standard input as a
subprocess; formats, gzip, globs, jobs and the other usage errors in this process
(tests/cli_runs.py)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runs import run_in_process

SUITE = """\
name: support
test_cases:
  - name: weather
    turns:
      - user_input: "Weather in Paris?"
        assertions:
          - type: contains_function_call
            value: get_weather
          - type: not_contains
            value: "internal error"
"""


def _conv(i: int, text: str, *, call: bool = True) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    if call:
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": "c1", "content": "18C"})
    messages.append({"role": "assistant", "content": text})
    return {"id": f"conv-{i}", "messages": messages}


GOOD = [json.dumps(_conv(i, "It is 18C in Paris.")) for i in range(6)]
BAD = json.dumps(_conv(99, "Sorry, internal error <oops>", call=False))


def run(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "good.jsonl").write_text("\n".join(GOOD) + "\n", encoding="utf-8")
    (tmp_path / "mixed.jsonl").write_text(
        "\n".join([GOOD[0], BAD, GOOD[1]]) + "\n", encoding="utf-8"
    )
    (tmp_path / "broken.jsonl").write_text(GOOD[0] + "\n{not json\n", encoding="utf-8")
    with gzip.open(tmp_path / "good.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(GOOD) + "\n")
    return tmp_path


def test_exit_codes(files: Path) -> None:
    assert run("check", "suite.yaml", "good.jsonl", cwd=files).returncode == 0
    failed = run("check", "suite.yaml", "mixed.jsonl", cwd=files)
    assert failed.returncode == 1
    assert "mixed.jsonl:2" in failed.stdout
    broken = run("check", "suite.yaml", "broken.jsonl", cwd=files)
    assert broken.returncode == 3
    assert "broken.jsonl:2: skipped: line is not JSON" in broken.stderr
    strict = run("check", "suite.yaml", "broken.jsonl", "--strict", cwd=files)
    assert strict.returncode == 2
    assert "--strict" in strict.stderr
    assert run("check", "--bogus", cwd=files).returncode == 2  # the parser's own exit
    # more usage errors, the same path as --strict's
    assert run_in_process("check", "suite.yaml", "missing.jsonl", cwd=files).returncode == 2
    assert run_in_process("check", "nope.yaml", "good.jsonl", cwd=files).returncode == 2
    assert run_in_process("check", "suite.yaml", cwd=files).returncode == 2


def test_stdin_gzip_and_globs(files: Path) -> None:
    piped = run("check", "suite.yaml", "-", "-f", "json", stdin="\n".join(GOOD), cwd=files)
    assert piped.returncode == 0
    assert json.loads(piped.stdout.splitlines()[-1])["summary"]["passed"] == 6
    gz = run_in_process("check", "suite.yaml", "good.jsonl.gz", "-f", "json", cwd=files)
    assert json.loads(gz.stdout.splitlines()[-1])["summary"]["passed"] == 6
    globbed = run_in_process("check", "suite.yaml", "*.jsonl", "-f", "json", cwd=files)
    sources = {
        json.loads(line).get("source", "").split(":")[0] for line in globbed.stdout.splitlines()
    }
    assert {"broken.jsonl", "good.jsonl", "mixed.jsonl"} <= sources
    assert run_in_process("check", "suite.yaml", "*.nothing", cwd=files).returncode == 2


def test_json_lines_carry_full_result_trees(files: Path) -> None:
    out = run_in_process("check", "suite.yaml", "mixed.jsonl", "-f", "json", cwd=files)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    bad = rows[1]
    assert bad["subject_id"] == "conv-99"
    assert bad["result"]["status"] == "failed"
    leaves = bad["result"]["children"][0]["children"]
    assert [leaf["name"] for leaf in leaves] == ["contains_function_call", "not_contains"]
    assert rows[-1]["summary"] == {
        "passed": 2,
        "failed": 1,
        "error": 0,
        "skipped": 0,
        "unreadable": 0,
        "unmatched": 0,
        "records": 3,
        "interrupted": False,
    }


def test_inline_assertions_without_a_suite(files: Path) -> None:
    out = run_in_process(
        "check",
        "--assert",
        "{type: not_contains, value: internal error}",
        "--assert",
        '{"type": "contains", "value": "Paris"}',
        "mixed.jsonl",
        cwd=files,
    )
    assert out.returncode == 1
    assert "does not contain 'internal error'" in out.stdout
    assert "3 checked" not in out.stdout  # two cases per conversation
    assert "6 checked: 4 passed, 2 failed" in out.stdout
    both = run_in_process(
        "check",
        "--suite",
        "suite.yaml",
        "--assert",
        "{type: contains, value: C}",
        "good.jsonl",
        "-f",
        "json",
        cwd=files,
    )
    summary = json.loads(both.stdout.splitlines()[-1])["summary"]
    assert summary["passed"] == 12
    bad = run_in_process("check", "--assert", "{type: contanis, value: x}", "good.jsonl", cwd=files)
    assert bad.returncode == 2
    assert "did you mean 'contains'" in bad.stderr


def test_max_failures_stops_early_and_fail_fast_skips_the_rest_of_a_turn(files: Path) -> None:
    log = files / "many.jsonl"
    log.write_text("\n".join([BAD] * 5 + GOOD) + "\n", encoding="utf-8")
    out = run_in_process(
        "check", "suite.yaml", "many.jsonl", "--max-failures", "2", "-f", "json", cwd=files
    )
    assert out.returncode == 1
    summary = json.loads(out.stdout.splitlines()[-1])["summary"]
    assert (summary["failed"], summary["records"]) == (2, 2)  # the record stopped at counts
    assert "stopped after 2 failing cases" in out.stderr
    assert "nothing was checked" not in out.stderr
    first = run_in_process("check", "suite.yaml", "many.jsonl", "--max-failures", "1", cwd=files)
    assert first.returncode == 1
    assert "1 checked: 0 passed, 1 failed" in first.stdout
    assert "nothing was checked" not in first.stdout + first.stderr
    ff = run_in_process("check", "suite.yaml", "many.jsonl", "--fail-fast", "-f", "json", cwd=files)
    rows = [json.loads(line) for line in ff.stdout.splitlines()]
    assert rows[-1]["summary"]["failed"] == 5  # every case is still checked
    turn = rows[0]["result"]["children"][0]
    assert [c["status"] for c in turn["children"]] == ["failed", "skipped"]


def test_jobs_two_gives_the_same_results_in_the_same_order(files: Path) -> None:
    log = files / "big.jsonl"
    lines = [GOOD[i % 6] if i % 7 else BAD for i in range(600)] + ["{broken"]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def rows(jobs: str) -> list[Any]:
        out = run_in_process(
            "check", "suite.yaml", "big.jsonl", "-f", "json", "--jobs", jobs, cwd=files
        )
        assert out.returncode == 1
        parsed = [json.loads(line) for line in out.stdout.splitlines()]
        for row in parsed:  # durations differ between runs
            if "result" in row:
                row["result"].pop("duration", None)
        return parsed

    assert rows("1") == rows("2")


def test_output_file_and_junit(files: Path) -> None:
    out = run_in_process(
        "check",
        "suite.yaml",
        "mixed.jsonl",
        "broken.jsonl",
        "-f",
        "junit",
        "-o",
        "report.xml",
        cwd=files,
    )
    assert out.returncode == 1
    # the report went to a file: the terminal gets the summary and where the report went
    assert out.stdout.endswith("report written: report.xml (junit)\n")
    assert "4 checked: 3 passed, 1 failed" in out.stdout
    import xml.etree.ElementTree as ET

    root = ET.parse(files / "report.xml").getroot()
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root}
    assert suites["support"].get("tests") == "4"
    assert suites["support"].get("failures") == "1"
    failure = suites["support"].find("testcase/failure")
    assert failure is not None
    assert "internal error" in (failure.text or "")
    assert suites["unreadable log lines"].get("errors") == "1"


def test_html_report_file(files: Path) -> None:
    out = run_in_process(
        "check", "suite.yaml", "mixed.jsonl", "-f", "html", "-o", "r.html", cwd=files
    )
    assert out.returncode == 1
    page = (files / "r.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "\\u003coops\\u003e" in page  # in the page's JSON document, escaped
    assert "<oops>" not in page


def test_lint_and_schema(files: Path) -> None:
    (files / "bad.yaml").write_text(
        "test_cases:\n  - name: x\n    turns:\n      - user_input: "
        "hi\n        assertions:\n          - type: contanis\n"
        "          - type: equals\n",
        encoding="utf-8",
    )
    ok = run_in_process("lint", "suite.yaml", cwd=files)
    assert ok.returncode == 0
    assert "suite.yaml: ok" in ok.stdout
    bad = run_in_process("lint", "suite.yaml", "bad.yaml", cwd=files)
    assert bad.returncode == 2
    assert "contanis" in bad.stderr
    assert "'value'" in bad.stderr  # every problem, not just the first
    spec = json.loads(run_in_process("schema").stdout)
    kinds = [branch["then"]["$ref"] for branch in spec["$defs"]["assertion"]["allOf"]]
    assert "contains" in spec["$defs"]["assertion"]["properties"]["type"]["enum"]
    assert "#/$defs/kind_contains" in kinds
    assert "#/$defs/kind_all_of" in kinds
    all_of = spec["$defs"]["kind_all_of"]["properties"]
    assert all_of["assertions"]["items"] == {"$ref": "#/$defs/assertion"}
    contains = spec["$defs"]["kind_contains"]
    assert "value" in contains["required"]
    result = json.loads(run_in_process("schema", "result").stdout)
    assert result["$defs"]["result"]["properties"]["status"]["enum"] == [
        "passed",
        "failed",
        "error",
        "skipped",
    ]


def test_strict_still_writes_a_complete_report_of_what_it_read(files: Path) -> None:
    import xml.etree.ElementTree as ET

    junit = run_in_process(
        "check", "suite.yaml", "broken.jsonl", "--strict", "-f", "junit", cwd=files
    )
    assert junit.returncode == 2
    root = ET.fromstring(junit.stdout)
    assert root.get("errors") == "1"  # the unreadable line
    as_json = run_in_process(
        "check", "suite.yaml", "broken.jsonl", "--strict", "-f", "json", cwd=files
    )
    assert json.loads(as_json.stdout.splitlines()[-1])["summary"]["unreadable"] == 1


def test_the_schema_accepts_what_the_native_loader_accepts() -> None:
    from chatassert.specs import loads_suite

    spec = json.loads(run_in_process("schema").stdout)
    turn, case = spec["$defs"]["turn"], spec["$defs"]["case"]
    assert set(turn["properties"]) == {"input", "user_input", "assertions"}
    assert turn["not"] == {"required": ["input", "user_input"]}  # one spelling, not both
    assert "name" not in case.get("required", [])
    # the loader takes both spellings and a case without a name
    loads_suite(
        "chatassert: 1\ncases:\n  - turns: [{user_input: hi, assertions: "
        "[{type: contains, value: x}]}]\n"
    )


@pytest.mark.parametrize(
    ("name", "starts"),
    [
        ("report.html", "<!DOCTYPE html>"),
        ("report.HTM", "<!DOCTYPE html>"),
        ("report.xml", "<?xml"),
        ("results.json", '{"suite": "support"'),
        ("results.jsonl", '{"suite": "support"'),
        ("summary.txt", "per assertion:"),
        ("report.log", "per assertion:"),  # an extension that names no format: text
    ],
)
def test_the_output_file_extension_names_the_format(files: Path, name: str, starts: str) -> None:
    out = files / name
    done = run_in_process(
        "check", str(files / "suite.yaml"), str(files / "good.jsonl"), "-o", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").lstrip().startswith(starts)


def test_a_format_that_contradicts_the_output_extension_is_a_usage_error(files: Path) -> None:
    out = files / "report.html"
    done = run_in_process(
        "check", str(files / "suite.yaml"), str(files / "good.jsonl"), "-f", "junit", "-o", str(out)
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"chatassert check: --format junit does not match the extension of --output {out} "
        "(html); drop --format, or name the file for junit\n"
    )
    assert not out.exists()


def test_a_format_that_agrees_with_the_output_extension_is_fine(files: Path) -> None:
    out = files / "report.xml"
    args = ("check", str(files / "suite.yaml"), str(files / "good.jsonl"), "-f", "junit")
    done = run_in_process(*args, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").startswith("<?xml")
