"""`chatassert.compare.render_comparison`: the text, JSON, JUnit and HTML reports of a
comparison say what the comparison holds, in their documented order and shape, with every
text of the runs escaped."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from compare_helpers import case_rows, write_runs

from chatassert.compare import Comparison, compare, read_run, render_comparison
from chatassert.records import Row

HOSTILE = "</script><img src=x onerror=\"document.title='pwned'\">\x01 & \ud800"


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    base, new = write_runs(tmp_path_factory.mktemp("reports"))
    return compare(read_run(base), read_run(new), max_drop={"welcomes": 0.5})


def test_text_lists_flips_first_then_the_table_the_unpaired_and_the_gate(
    comparison: Comparison,
) -> None:
    text = render_comparison(comparison, "text", fail_on=["any-flip"])
    order = [
        "flips (8):",
        "- worse: suite / refund quickly [refund]: passed → failed",
        "    new: Response does not contain 'refund'",
        "per assertion, over the 3 paired cases:",
        "  contains_function_call",
        "  overall ",
        "contains_function_call: errors 0 → 1 (counted as not passed)",
        "only in the base run (1):\n- suite / cancels [cancel]",
        "only in the new run (1):\n- suite / upgrades [upgrade]",
        "gate failed (--fail-on any-flip, --max-drop welcomes=0.5):",
        "- any-flip: 8 flips (2 worse, 2 error, 1 removed, 1 added, 2 better)",
        "3 cases paired: overall 66.7% → 33.3%, 8 flips; no significant regression",
    ]
    at = [text.index(part) for part in order]
    assert at == sorted(at), text
    row = next(line for line in text.splitlines() if line.startswith("  mentions the refund"))
    assert row.split() == ["mentions", "the", "refund", "1/1", "100.0%", "[20.7,", "100.0]",
                           "0/1", "0.0%", "[0.0,", "79.3]", "100.0", "pts", "1", "0", "1",
                           "0.5", "1", "not", "significant"]  # fmt: skip
    assert "judging" not in text  # neither run was judged: no cost to show
    passed = render_comparison(comparison, "text")
    assert "\ngate passed (--max-drop welcomes=0.5)\n" in passed  # compare's max_drop
    plain = compare(case_rows(["passed"]), case_rows(["passed"]))
    assert "gate" not in render_comparison(plain, "text")  # no gate given: none stated


def test_text_shows_a_lone_surrogate_as_a_replacement_character() -> None:
    # a log's "\ud800" reaches a case name or a reason: the report is still UTF-8
    rows = [Row(kind="case", source="l:1", suite="s", case="c\ud800", subject_id="1",
                status=s) for s in ("passed",)]  # fmt: skip
    new = [Row(kind="case", source="l:1", suite="s", case="c\ud800", subject_id="1",
               status="failed")]  # fmt: skip
    text = render_comparison(compare(rows, new), "text")
    assert "s / c\ufffd [1]: passed → failed" in text
    text.encode("utf-8")


def test_text_counts_the_flips_it_does_not_list() -> None:
    result = compare(case_rows(["passed"] * 60), case_rows(["failed"] * 60))
    text = render_comparison(result, "text")
    assert text.count("\n- worse: ") == 50
    assert "... and 10 more flips (the JSON and HTML reports list all)" in text
    assert "; regressed: overall" in text


def test_json_is_one_strict_document_of_the_comparison(comparison: Comparison) -> None:
    text = render_comparison(comparison, "json", fail_on=["regression"])
    assert text.endswith("\n")
    assert text.count("\n") == 1
    document = json.loads(text, parse_constant=lambda name: pytest.fail(f"not strict: {name}"))
    assert document["chatassert_compare"] == 1
    assert document["paired"] == 3
    assert document["base"]["path"] == comparison.base_path
    assert document["base"]["cases"] == 4
    assert document["base"]["judge"] is None
    assert set(document["base"]["seconds"]) == {"total", "median", "p95"}
    overall = document["overall"]
    assert overall["base"] == {
        "passed": 2, "total": 3, "rate": 2 / 3, "low": comparison.overall.base.low,
        "high": comparison.overall.base.high, "counts": {"passed": 2, "failed": 1},
    }  # fmt: skip
    assert (overall["worse"], overall["better"]) == (2, 1)
    assert overall["p_value"] == comparison.overall.test.p_value
    assert overall["mid_p"] == comparison.overall.test.mid_p
    assert overall["adjusted_p"] == comparison.overall.adjusted_p
    assert overall["verdict"] == "not significant"
    assert [a["name"] for a in document["assertions"]] == [c.name for c in comparison.assertions]
    first = document["flips"][1]
    assert first == {
        "suite": "suite", "case": "refund quickly", "subject_id": "refund",
        "assertion": "mentions the refund", "spec_path": None, "before": "passed",
        "after": "failed", "change": "worse", "evidence_before": None,
        "evidence_after": "Response does not contain 'refund'",
    }  # fmt: skip
    assert document["unpaired"] == {
        "base": [["suite", "cancels", "cancel"]],
        "new": [["suite", "upgrades", "upgrade"]],
    }
    assert document["gate"] == {
        "fail_on": ["regression"], "max_drop": {"welcomes": 0.5}, "passed": True, "failed": [],
    }  # fmt: skip


def test_json_writes_a_rate_of_nothing_counted_as_null() -> None:
    result = compare(case_rows(["skipped"]), case_rows(["passed"]))
    assert math.isnan(result.overall.base.rate)
    document = json.loads(render_comparison(result, "json"))
    assert document["overall"]["base"]["rate"] is None
    assert document["overall"]["drop"] is None


def test_junit_fails_where_the_gate_fails_and_escapes_every_text(comparison: Comparison) -> None:
    xml = render_comparison(comparison, "junit", fail_on=["any-flip"])
    root = ET.fromstring(xml)
    cases = {case.get("name"): case for case in root.iter("testcase")}
    # the overall, the gated assertion (welcomes: improved, within its limit) and any-flip
    assert list(cases) == ["overall", "welcomes", "any-flip"]
    assert cases["overall"].find("failure") is None
    assert cases["welcomes"].find("failure") is None
    failure = cases["any-flip"].find("failure")
    assert failure is not None
    assert (
        failure.get("message")
        == "any-flip: 8 flips (2 worse, 2 error, 1 removed, 1 added, 2 better)"
    )
    assert root.get("failures") == "1"
    every = ET.fromstring(render_comparison(comparison, "junit", fail_on=["regression"]))
    names = [case.get("name") for case in every.iter("testcase")]
    assert names == ["overall", *(c.name for c in comparison.assertions)]
    # text no XML document may hold is replaced, markup is escaped
    rows = [Row(kind="case", source="l:1", suite="s", case=HOSTILE, subject_id="1",
                status=s, assertions=((HOSTILE, s),)) for s in ("passed",)]  # fmt: skip
    new = [Row(kind="case", source="l:1", suite="s", case=HOSTILE, subject_id="1",
               status="failed", assertions=((HOSTILE, "failed"),))]  # fmt: skip
    hostile = compare(rows, new, max_drop={HOSTILE: 0.1})
    tree = ET.fromstring(render_comparison(hostile, "junit"))
    (gated,) = [c for c in tree.iter("testcase") if c.get("name") != "overall"]
    assert gated.get("name") == HOSTILE.replace("\x01", "\ufffd").replace("\ud800", "\ufffd")
    assert gated.find("failure") is not None


def test_html_is_one_page_with_every_text_escaped(comparison: Comparison) -> None:
    page = render_comparison(comparison, "html", fail_on=["any-flip"])
    assert page.startswith("<!DOCTYPE html>")
    assert page.index('id="flips"') < page.index('id="rates"') < page.index('id="unpaired"')
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing from outside
    assert "Gate failed:" in page
    rows = [Row(kind="case", source="l:1", suite="s", case=HOSTILE, subject_id=HOSTILE,
                status="passed", assertions=((HOSTILE, "passed"),))]  # fmt: skip
    new = [Row(kind="case", source="l:1", suite="s", case=HOSTILE, subject_id=HOSTILE,
               status="failed", assertions=((HOSTILE, "failed"),))]  # fmt: skip
    hostile = render_comparison(compare(rows, new), "html")
    assert "<img" not in hostile
    assert hostile.count("<script>") == 1  # the page's own
    assert "\ud800" not in hostile
    assert "\x01" not in hostile
    hostile.encode("utf-8")  # writable as UTF-8


def test_an_unknown_format_or_gate_is_refused(comparison: Comparison) -> None:
    with pytest.raises(ValueError, match="unknown comparison format 'xml'"):
        render_comparison(comparison, "xml")
    with pytest.raises(ValueError, match="unknown gates"):
        render_comparison(comparison, "text", fail_on=["flips"])


def test_cost_and_time_are_shown_side_by_side_when_a_run_was_judged(tmp_path: Path) -> None:
    cost = {"requests": 3, "cached": 0, "avoided": 1, "tokens_in": 900, "tokens_out": 60,
            "cost": 0.25}  # fmt: skip
    base = [Row(kind="case", source="l:1", suite="s", case="c", subject_id="1",
                status="passed", cost=cost, duration=1.5)]  # fmt: skip
    result = compare(base, case_rows(["passed"], subjects=["1"]))
    text = render_comparison(result, "text")
    assert "judging, side by side:" in text
    assert (
        "  base: judge: 3 requests, 0 from cache, 1 avoided; tokens 900 in, 60 out; cost 0.25"
        in text
    )
    assert "checking time 1.5 s (median 1.5 s, p95 1.5 s per case)" in text
    assert "  new: no judge used" in text
    page = render_comparison(result, "html")
    assert 'id="cost"' in page
    assert "no judge used" in page
