"""The HTML report for a reader: identical results grouped with a count and examples, counts
written the way every report writes them, columns aligned with their headers, a legend.

The page in a real browser is tests/reporting/test_html_browser.py.
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chatassert import AllOf, Contains, Conversation, NotContains, OnTurn, Result, Status
from chatassert.records import Checker, ReportWriter, Summary, inline_suite
from chatassert.reporting import Outcome
from chatassert.reporting._html import EXAMPLES, HtmlWriter, html_case, write_html
from chatassert.reporting._words import counted, number
from cli_runs import run_in_process


def _data(page: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="ca-data">(.*?)</script>', page, re.S)
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def _page(outcomes: list[Outcome]) -> str:
    summary, writer = Summary(), HtmlWriter()
    for outcome in outcomes:
        summary.add(outcome)
        writer.add_outcome(outcome)
    out = io.StringIO()
    write_html(summary, out, writer=writer)
    return out.getvalue()


def _groups(page: str) -> list[tuple[str, int]]:
    """Each listed group, as the source of its first example and its count."""
    data = _data(page)
    first: dict[int, tuple[str, int]] = {}
    for row in data["rows"]:
        if len(row) > 5 and row[5] not in first:
            first[row[5]] = (row[4][0], data["groups"][row[5]])
    return list(first.values())


def test_twenty_thousand_identical_failures_make_a_small_page() -> None:
    result = Contains("welcome").check("hi there")
    outcomes = [
        Outcome("support", "greets", result, f"log.jsonl:{i}", f"conv-{i}", "user: hi")
        for i in range(1, 20_001)
    ]
    page = _page(outcomes)
    assert len(page.encode()) < 200_000  # listed one by one it was 8 MB
    data = _data(page)
    assert data["groups"] == [20_000]
    # the first three, with their sources and ids, as examples; the others counted
    assert [row[4][0] for row in data["rows"]] == ["log.jsonl:1", "log.jsonl:2", "log.jsonl:3"]
    assert [row[4][2]["id"] for row in data["rows"]] == ["conv-1", "conv-2", "conv-3"]
    assert '<span class="failed">20,000 failed</span>' in page
    assert '<td class="num">20,000</td>' in page  # the pass-rate tables' counts


def test_different_failures_are_not_merged() -> None:
    conversation = Conversation.from_messages(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "bye"},
            {"role": "assistant", "content": "see you"},
        ]
    )
    kinds = [
        ("s", "c", Contains("welcome").check("hi")),  # the first
        ("s", "c", Contains("farewell").check("hi")),  # another reason
        ("s", "other case", Contains("welcome").check("hi")),  # another case
        ("other suite", "c", Contains("welcome").check("hi")),  # another suite
        ("s", "c", Contains("welcome", message="greets").check("hi")),  # another message
        ("s", "c", OnTurn(0, Contains("bye")).check(conversation)),  # at turns[0]
        ("s", "c", OnTurn(1, Contains("bye")).check(conversation)),  # at turns[1]
        ("s", "c", Result(Status.ERROR, "contains", "no text to read")),  # an error
        ("s", "c", AllOf(Contains("welcome"), Contains("x")).check("hi")),  # two failing
        ("s", "c", AllOf(Contains("welcome"), Contains("h")).check("hi")),  # one of two
    ]
    outcomes = [
        Outcome(suite, case, result, f"log.jsonl:{n}")
        for n, (suite, case, result) in enumerate(kinds * 2, start=1)
    ]
    groups = _groups(_page(outcomes))
    assert groups == [(f"log.jsonl:{n}", 2) for n in range(1, len(kinds) + 1)]


def test_the_same_failure_with_other_evidence_is_one_group() -> None:
    # the forbidden word at another place in another answer: the same check, the same reason
    answers = ["bad news", "this is bad", "so bad, so bad", "fine"]
    outcomes = [
        Outcome("s", "c", NotContains("bad").check(text), f"log.jsonl:{n}")
        for n, text in enumerate(answers, start=1)
    ]
    page = _page(outcomes)
    assert _groups(page) == [("log.jsonl:1", 3)]
    spans = [row[4][2]["tree"]["sp"] for row in _data(page)["rows"] if row[1] == "f"]
    assert spans == [[0, 3], [8, 11], [3, 6]]  # each example keeps its own evidence
    assert [row[1] for row in _data(page)["rows"]] == ["f", "f", "f", "p"]


def test_passing_cases_are_listed_each() -> None:
    result = Contains("hi").check("hi")
    page = _page([Outcome("s", "c", result, f"log.jsonl:{n}") for n in range(1, 6)])
    data = _data(page)
    assert [row[4][0] for row in data["rows"]] == [f"log.jsonl:{n}" for n in range(1, 6)]
    assert all(len(row) == 5 for row in data["rows"])  # no group
    assert data["groups"] == []


def test_only_the_examples_are_spooled() -> None:
    result = Contains("welcome").check("hi")
    writer = HtmlWriter()
    for n in range(1, 11):
        writer.add_outcome(Outcome("s", "c", result, f"log.jsonl:{n}"))
    out = io.StringIO()
    writer.write_data(out, {})
    data = json.loads(out.getvalue())
    assert len(data["rows"]) == EXAMPLES
    assert data["groups"] == [10]


def test_html_case_keys_identical_results_alike() -> None:
    def key(outcome: Outcome) -> str:
        rendered = json.loads(html_case(outcome))
        assert len(rendered) == 5
        value: str = rendered[4]
        return value

    one = key(Outcome("s", "c", Contains("a").check("b"), "log.jsonl:1", "x", "user: b"))
    two = key(Outcome("s", "c", Contains("a").check("c"), "log.jsonl:9", "y", "user: c"))
    other = key(Outcome("s", "d", Contains("a").check("b"), "log.jsonl:1"))
    assert one == two != other
    assert re.fullmatch("[0-9a-f]{16}", one)
    # a passing case has no key: passing cases are listed each
    assert len(json.loads(html_case(Outcome("s", "c", Contains("a").check("a"))))) == 4


def test_counts_say_their_words_as_every_report_does() -> None:
    failing = Outcome("s", "c", Contains("a").check("b"), "log.jsonl:1")
    summary = Summary()
    summary.add(failing)
    summary.add(Outcome("s", "c", Result(Status.ERROR, "contains", "cannot read"), "log.jsonl:2"))
    summary.add_unreadable("log.jsonl:3", "line is not JSON")
    out = io.StringIO()
    write_html(summary, out)
    page = out.getvalue()
    assert f'<span class="error">{counted(1, "error")}</span>' in page  # "1 error"
    assert '<span class="error">1 unreadable line</span>' in page
    empty = Summary()
    out = io.StringIO()
    write_html(empty, out)
    assert '<span class="error">0 errors</span>' in out.getvalue()
    assert number(20_000) == "20,000"


def test_numeric_headers_are_aligned_with_their_cells() -> None:
    summary = Summary()
    summary.add(Outcome("s", "c", Contains("a").check("b"), "log.jsonl:1"))
    out = io.StringIO()
    write_html(summary, out)
    page = out.getvalue()
    heads = re.findall(r"<thead><tr>(.*?)</tr></thead>", page)
    assert len(heads) == 2
    for head in heads:
        cells = re.findall(r"<t[hd]([^>]*)>([^<]*)</t[hd]>", head)
        assert cells[0] == (' scope="col"', heads and cells[0][1])
        numeric = [attrs for attrs, text in cells[1:] if text]
        assert numeric == [' scope="col" class="num"'] * 5
    assert '<tr><th scope="row">s / c</th><td class="num">0</td>' in page
    css = page.split("<style>")[1].split("</style>")[0]
    assert re.search(r"(^|\})\.num\{text-align:right", css, re.M)  # th.num and td.num alike


def test_the_legend_explains_pointers_spans_and_groups() -> None:
    page = _page([Outcome("s", "c", NotContains("bad").check("so bad"), "log.jsonl:1")])
    legend = page.split('<dl class="legend"')[1].split("</dl>")[0]
    for term in ("location", "pointer", "span", "excerpt"):
        assert f"<dfn>{term}</dfn>" in legend
    assert "JSON Pointer" in legend
    assert f"the first {EXAMPLES} as examples" in legend


def test_the_writer_groups_rows_in_any_order() -> None:
    # engines may hand rows over in another order than the log's: the counts are the same
    checker = Checker([inline_suite(["{type: contains, value: welcome}"])])
    records = []
    for n in range(60):
        text = "welcome" if n % 3 == 0 else ("hi" if n % 3 == 1 else "hello")
        records.append(json.dumps({"turns": [{"text": text}]}))
    rows = list(checker.check_records(records))
    pages = []
    for order in (rows, random.Random(7).sample(rows, len(rows))):
        out = io.StringIO()
        writer, summary = ReportWriter({"html": out}), Summary(records=len(order))
        for row in order:
            summary.add_row(row)
            writer.add(row)
        writer.finish(summary)
        pages.append(_data(out.getvalue()))
    for data in pages:
        assert data["groups"] == [40]  # "hi" and "hello" fail the same way
        assert sum(1 for row in data["rows"] if row[1] == "p") == 20


def _run(args: list[str], cwd: Path, *, here: bool = False) -> dict[str, Any]:
    """The HTML page's data of `chatassert check ARGS` run in `cwd` (as a subprocess, or with
    `here` in this process: tests/cli_runs.py)."""
    done = (
        run_in_process("check", *args, cwd=cwd)
        if here
        else subprocess.run(
            [sys.executable, "-m", "chatassert", "check", *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=120,
            check=False,
        )
    )
    assert done.returncode == 1, done.stderr
    data = _data((cwd / "report.html").read_text(encoding="utf-8"))
    del data["meta"]  # the command line and duration differ
    for row in data["rows"]:
        row[2] = 0  # so do the seconds each case took
    return data


def test_the_grouped_page_is_the_same_with_worker_processes(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        "test_cases:\n"
        "  - name: greets\n"
        "    id: greet\n"
        "    turns:\n"
        "      - user_input: hi\n"
        "        assertions: [{type: contains, value: welcome}]\n",
        encoding="utf-8",
    )
    logs = []
    for part in range(4):  # each file a range of its own, shared out to the workers
        lines = []
        for n in range(30):
            answer = ["welcome!", "hi there", f"answer {part}-{n}"][n % 3]
            record = {
                "id": "greet",
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": answer},
                ],
            }
            lines.append(json.dumps(record) + "\n")
        (tmp_path / f"log{part}.jsonl").write_text("".join(lines), encoding="utf-8")
        logs.append(f"log{part}.jsonl")
    alone = _run(["suite.yaml", *logs, "-o", "report.html"], tmp_path, here=True)
    workers = _run(["suite.yaml", *logs, "-o", "report.html", "-j", "2"], tmp_path)
    assert alone == workers
    assert alone["groups"] == [80]
    examples = [row[4][0] for row in alone["rows"] if row[1] == "f"]
    assert examples == ["log0.jsonl:2", "log0.jsonl:3", "log0.jsonl:5"]


def test_checks_are_named_as_the_spec_names_them_at_their_place() -> None:
    from chatassert.specs import load_suite

    suite = load_suite(Path(__file__).parents[2] / "examples" / "search.expect.json")
    case = suite.cases[0]
    outcome = Outcome(suite.name, case.name, case.check({"status": "error"}), "log.jsonl:1")
    (_, _, detail, _, _) = json.loads(html_case(outcome))
    status = detail["tree"]["c"][0]
    # the expect dialect's `status`, at `expect.status` in its test; run by expect_status
    assert (status["sn"], status["ps"], status["n"]) == ("status", "expect.status", "expect_status")
    # a native name that is the spec's is said once
    assert all(node.get("sn") != node["n"] for node in detail["tree"]["c"])


def test_why_a_case_was_checked_and_its_note_are_kept_for_every_case() -> None:
    note = "the case's id is 'greet', the conversation's 'hello-1'"
    passing = Outcome("s", "c", Contains("a").check("a"), "log.jsonl:1", matched_by="id")
    failing = Outcome(
        "s", "c", Contains("a").check("b"), "log.jsonl:2", matched_by="single case", match_note=note
    )
    assert json.loads(html_case(passing))[3] == "id"
    assert json.loads(html_case(failing))[3] == ["single case", note]
    assert json.loads(html_case(Outcome("s", "c", Contains("a").check("a"))))[3] is None


def test_an_unmatched_conversation_keeps_why() -> None:
    writer = HtmlWriter()
    writer.add_unmatched("log.jsonl:4", "support", "no case of 'support' matches it: its id 'x'")
    writer.add_unmatched("log.jsonl:5", "support")
    out = io.StringIO()
    writer.write_data(out, {})
    assert json.loads(out.getvalue())["unmatched"] == [
        ["log.jsonl:4", "support", "no case of 'support' matches it: its id 'x'"],
        ["log.jsonl:5", "support"],
    ]


def test_past_the_bound_on_groups_failures_are_listed_each(monkeypatch: pytest.MonkeyPatch) -> None:
    import chatassert.reporting._html as html

    monkeypatch.setattr(html, "GROUPS", 2)
    outcomes = [
        Outcome("s", "c", Contains(word).check("x"), f"log.jsonl:{n}")
        for n, word in enumerate(["a", "b", "c", "c", "a"], start=1)
    ]
    data = _data(_page(outcomes))
    # `a` and `b` are the two groups the writer tells apart; each `c` is listed on its own
    assert data["groups"] == [2, 1]
    assert [(row[4][0], row[5] if len(row) > 5 else None) for row in data["rows"]] == [
        ("log.jsonl:1", 0),
        ("log.jsonl:2", 1),
        ("log.jsonl:3", None),
        ("log.jsonl:4", None),
        ("log.jsonl:5", 0),
    ]


def test_reasons_that_differ_only_in_characters_the_page_cannot_hold_are_not_merged() -> None:
    # both read `bad �` on the page, yet they are two reasons
    outcomes = [
        Outcome("s", "c", Result(Status.FAILED, "contains", f"bad {char}"), f"log.jsonl:{n}")
        for n, char in enumerate(["\ud800", "\udfff", "\ud800"], start=1)  # lone surrogates
    ]
    assert _groups(_page(outcomes)) == [("log.jsonl:1", 2), ("log.jsonl:2", 1)]
