"""`chatassert regate` reading reports: check's own, whatever its strings hold, and broken ones
refused with every problem by its place (exit 2), never a traceback or a case's exit code.

The command line runs in process through its `main`; files live in `tmp_path`.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from chatassert._cli import main

# where str.splitlines() splits and json.dumps(ensure_ascii=False) writes the character as is
_SEPARATORS = {"U+2028": "\u2028", "U+2029": "\u2029", "U+0085": "\u0085"}


def run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run `chatassert argv...` in process in `cwd`; its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


@pytest.mark.parametrize("name", list(_SEPARATORS))
@pytest.mark.parametrize("full", [False, True])
def test_regate_reads_checks_report_whatever_line_separator_a_string_holds(
    tmp_path: Path, name: str, full: bool
) -> None:
    sep = _SEPARATORS[name]
    chat = {
        "id": f"c{sep}1",
        "messages": [
            {"role": "user", "content": f"Hi{sep}there"},
            {"role": "assistant", "content": f"hello{sep}you"},
        ],
    }
    other = {"messages": [{"role": "user", "content": "Hi"},
                          {"role": "assistant", "content": "fine"}]}  # fmt: skip
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in (chat, other)), encoding="utf-8"
    )
    rule = "{type: not_contains, value: hello, message: 'no hello" + sep + "here'}"
    flags = ["--full-results"] if full else []
    code, _, err = run(tmp_path, "check", "--assert", rule, "log.jsonl", "-o", "r.jsonl", *flags)
    assert code == 1, err
    text = (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    escape = f"\\u{ord(sep):04x}"
    assert sep not in text  # escaped, so that str.splitlines() keeps each line whole
    assert escape in text
    assert len(text.splitlines()) == len(_rows(tmp_path / "r.jsonl"))
    # a report that holds it raw (JSON allows it: an older chatassert, another writer) reads too
    raw = text.replace(escape, sep)
    (tmp_path / "raw.jsonl").write_text(raw, encoding="utf-8")
    assert len(raw.splitlines()) > len(_rows(tmp_path / "raw.jsonl"))  # what regate must not cut
    code, _, err = run(
        tmp_path, "regate", "raw.jsonl", "--min-score", "llm_rubric=0.5", "-o", "s.jsonl", *flags
    )
    assert code == 1, err
    assert _rows(tmp_path / "s.jsonl") == _rows(tmp_path / "r.jsonl")


_GOOD = {
    "suite": "s", "case": "c", "source": "log.jsonl:1", "subject_id": None,
    "result": {"status": "failed", "name": "case", "reason": "no", "details": {},
               "children": [{"status": "passed", "name": "llm_rubric", "score": 0.9,
                             "details": {"threshold": 0.5}}]},
}  # fmt: skip
_SUMMARY = {"summary": {"passed": 0, "failed": 1, "error": 0, "skipped": 0, "records": 1}}


def _with(path: str, value: Any) -> dict[str, Any]:
    """`_GOOD` with the value at a dotted path (`result.children.0.score`) replaced."""
    row = json.loads(json.dumps(_GOOD))
    *head, last = path.split(".")
    node: Any = row
    for key in head:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(last) if isinstance(node, list) else last] = value
    return row


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"status": "passed", "name": "leaf"}
    for _ in range(levels):
        node = {"status": "passed", "name": "all_of", "children": [node]}
    return {**_GOOD, "result": node}


BROKEN: list[tuple[str, Any, str]] = [
    ("summary 5", {"summary": 5}, "summary is the number 5 (expected an object of counts)"),
    ("result 5", {**_GOOD, "result": 5}, "result is the number 5 (expected a result: an object)"),
    (
        "children not a list",
        _with("result.children", {"a": 1}),
        "result.children is an object (expected a list of results)",
    ),
    (
        "details a list",
        _with("result.details", [1]),
        "result.details is a list (expected an object)",
    ),
    (
        "score a string",
        _with("result.children.0.score", "high"),
        "result.children[0].score is the string 'high' (expected a number, or 'Infinity', "
        "'-Infinity' or 'NaN')",
    ),
    (
        "a child not an object",
        _with("result.children.0", [1]),
        "result.children[0] is a list (expected a result: an object)",
    ),
    (
        "an unknown status",
        _with("result.status", "maybe"),
        "result.status is the string 'maybe' (expected one of passed, failed, error, skipped)",
    ),
    (
        "a failure without a reason",
        {**_GOOD, "result": {"status": "failed", "name": "x", "details": {}}},
        "result.reason is missing (expected a string)",
    ),
    (
        "a cost of text",
        {**_GOOD, "cost": "cheap"},
        "cost is the string 'cheap' (expected an object)",
    ),
    (
        "a count of text",
        {
            **_GOOD,
            "cost": {
                "requests": "1",
                "cached": 0,
                "avoided": 0,
                "tokens_in": 0,
                "tokens_out": 0,
                "cost": None,
            },
        },
        "cost.requests is the string '1' (expected a whole number from 0)",
    ),
    (
        "records negative",
        {"summary": {**_SUMMARY["summary"], "records": -5}},
        "summary.records is the number -5 (expected a whole number from 0, or null)",
    ),
    ("a list", [1, 2], "the line is a list (expected an object: a case outcome"),
    ("no kind", {"suite": "s"}, "the line has none of 'result', 'unreadable', 'unmatched'"),
    ("unreadable of 5", {"unreadable": 5, "error": "x"}, "unreadable is the number 5"),
    ("deep", _deep(250), "the line nests 502 levels (expected at most 400)"),
]


@pytest.mark.parametrize(("what", "row", "problem"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_report_is_a_usage_error_naming_the_line(
    tmp_path: Path, what: str, row: Any, problem: str
) -> None:
    lines = [_GOOD, row, _SUMMARY]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    code, out, err = run(tmp_path, "regate", "r.jsonl", "--min-score", "llm_rubric=0.8")
    assert code == 2, (what, err)
    assert f"r.jsonl:2: {problem}" in err
    assert out == ""


def test_every_problem_is_listed_up_to_twenty_and_then_counted(tmp_path: Path) -> None:
    lines = [json.dumps(_GOOD), "{not json", "[", json.dumps({"summary": 5})]
    lines += [json.dumps({"summary": []})] * 30
    lines.append("[" * 2000 + "]" * 2000)
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    code, _, err = run(tmp_path, "regate", "r.jsonl", "--min-score", "llm_rubric=0.8")
    assert code == 2
    said = err.splitlines()
    assert said[0] == "chatassert regate: not a JSON report of check:"
    assert said[1].startswith("r.jsonl:2: the line is not JSON: Expecting property name")
    assert said[3] == "r.jsonl:4: summary is the number 5 (expected an object of counts)"
    assert len(said) == 1 + 20 + 1
    assert said[-1] == "... and 14 more problems"  # 34 in all, the last one nested 2000 deep


def test_a_good_report_regates_and_an_unknown_key_is_ignored(tmp_path: Path) -> None:
    rows = [{**_GOOD, "added_later": [1]}, {**_SUMMARY, "note": "x"}]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows), "utf-8")
    code, _, err = run(
        tmp_path, "regate", "r.jsonl", "--min-score", "llm_rubric=0.95", "-o", "s.jsonl"
    )
    assert code == 1, err
    [outcome, summary] = _rows(tmp_path / "s.jsonl")
    assert outcome["result"]["children"][0]["status"] == "failed"  # 0.9 is below 0.95 now
    assert summary["summary"]["records"] == 1


def test_a_stray_byte_is_a_problem_of_its_line(tmp_path: Path) -> None:
    good = json.dumps(_GOOD).encode()
    (tmp_path / "r.jsonl").write_bytes(good + b"\n" + b'{"unreadable": "\xff", "error": "x"}\n')
    code, _, err = run(tmp_path, "regate", "r.jsonl", "--min-score", "llm_rubric=0.8")
    assert code == 2
    assert "r.jsonl:2: the line is not UTF-8 (byte 0xff at column 17)" in err


def test_a_report_on_standard_input_names_its_lines_as_stdin(tmp_path: Path) -> None:
    import subprocess
    import sys

    data = json.dumps(_GOOD).encode() + b"\n{\xfe}\n"
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "regate", "-", "--min-score", "llm_rubric=0.8"],
        input=data, capture_output=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"<stdin>:2: the line is not UTF-8 (byte 0xfe at column 2)" in done.stderr


def _judged(score: Any = 0.9, judged: Any = True) -> dict[str, Any]:
    return {"status": "passed", "name": "llm_rubric", "score": score,
            "details": {"threshold": 0.5, "judge_passed": judged}}  # fmt: skip


UNUSABLE: list[tuple[str, dict[str, Any], str]] = [
    (
        "a NaN score",
        _judged("NaN"),
        "cannot re-gate: the stored score nan is not a number from 0 to 1",
    ),
    ("an infinite score", _judged("Infinity"), "the stored score inf is not a number from 0 to 1"),
    ("a score above 1", _judged(2), "the stored score 2 is not a number from 0 to 1"),
    ("a verdict of text", _judged(0.9, "no"), "the stored judge verdict 'no' is not true or false"),
    (
        "at_least without needed",
        {"status": "passed", "name": "at_least", "details": {}, "children": [_judged(), _judged()]},
        "cannot re-gate 'at_least': its stored 'needed' None is not a whole number from 0",
    ),
    (
        "a repeat of an unknown aggregate",
        {
            "status": "passed",
            "name": "repeat",
            "details": {"aggregate": "most"},
            "children": [_judged(), _judged()],
        },
        "cannot re-gate 'repeat': its stored 'aggregate' 'most' is not one of majority, all, any, "
        "mean",
    ),
]


@pytest.mark.parametrize(("what", "tree", "reason"), UNUSABLE, ids=[u[0] for u in UNUSABLE])
def test_a_stored_value_no_judge_gives_is_an_error_never_a_pass(
    tmp_path: Path, what: str, tree: dict[str, Any], reason: str
) -> None:
    row = {**_GOOD, "result": tree}
    (tmp_path / "r.jsonl").write_text(json.dumps(row) + "\n", "utf-8")
    code, _, err = run(
        tmp_path, "regate", "r.jsonl", "--min-score", "llm_rubric=0.85", "-o", "s.jsonl"
    )
    assert code == 3, (what, err)
    [outcome, _] = _rows(tmp_path / "s.jsonl")
    assert outcome["result"]["status"] == "error"
    assert reason in outcome["result"]["reason"]


def test_a_usage_error_of_the_outputs_names_regate(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text(json.dumps(_GOOD) + "\n" + json.dumps(_SUMMARY) + "\n")
    argv = ("regate", "r.jsonl", "--min-score", "llm_rubric=0.5", "-o", "a.txt", "-o", "a.txt")
    code, _, err = run(tmp_path, *argv)
    assert code == 2
    assert err.startswith("chatassert regate: --output a.txt is given twice")
