"""The HTML report in a real browser: the command line writes it, headless Chromium loads it
from a file:// URL, and the test uses its filters and collapsible trees and reads the DOM.

Chromium is the distribution's (/usr/bin/chromium), driven by Playwright
(tests/browser_helpers.py). Without it the test skips, unless CHATASSERT_REQUIRE_BROWSER=1 (as
.ci/run sets), where a missing browser fails.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import browser_helpers
from browser_helpers import HOSTILE, chromium, watched_page

SUITE = """\
test_cases:
  - name: refund quickly
    id: refund-1
    tags: [billing, smoke]
    turns:
      - user_input: I was charged twice
        assertions:
          - {type: contains, value: refund}
          - {type: not_contains, value: internal error, message: no internal errors}
  - name: greets the user
    id: greet
    tags: [smoke]
    turns:
      - user_input: hello
        assertions: [{type: contains, value: welcome}]
"""


def _line(case: str, answer: str, *, usage: bool = False) -> str:
    record: dict[str, Any] = {
        "id": case,
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": answer}],
    }
    if usage:
        record["usage"] = {"prompt_tokens": 100, "completion_tokens": 20}
        record["latency_ms"] = 640
    return json.dumps(record)


def _log() -> str:
    lines = []
    for i in range(40):
        lines.append(_line("refund-1", "A refund is on its way.", usage=True))
        # every fifth greeting fails: 8 failing cases, more than --show keeps
        lines.append(_line("greet", "hi there" if i % 5 == 0 else "welcome!"))
    lines.append(_line("refund-1", f"A refund? Sorry, internal error {HOSTILE}", usage=True))
    lines.append(_line("stranger", "who is this?"))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("html")
    (work / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (work / "logs").mkdir()
    (work / "logs" / "run.jsonl").write_text(_log(), encoding="utf-8")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "chatassert", "check", "suite.yaml", "logs/run.jsonl"),
            *("--show", "2", "--jobs", "2", "-o", "report.html", "-o", "results.json"),
        ],
        capture_output=True,
        text=True,
        cwd=work,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    return work / "report.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _data(page_text: str) -> dict[str, Any]:
    match = re.search(
        r'<script type="application/json" id="ca-data">(.*?)</script>', page_text, re.S
    )
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def test_the_page_data_lists_every_failing_case(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    data = _data(text)
    statuses = [row[1] for row in data["rows"]]
    # all nine failing cases, though --show keeps 2: the hostile one, and the eight identical
    # greetings as one group of eight, three of them listed as examples
    failing = [row for row in data["rows"] if row[1] == "f"]
    assert sorted(data["groups"][row[5]] for row in failing) == [1, 8, 8, 8]
    assert statuses.count("p") == 72
    assert data["meta"]["logs"] == ["logs/run.jsonl"]  # relative to the working directory
    assert data["meta"]["suites"] == ["suite.yaml"]
    assert "--jobs 2" in data["meta"]["command"]
    ((where, suite, why),) = data["unmatched"]  # with why no case matches it
    assert (where, suite) == ("logs/run.jsonl:82", "suite")
    assert "its id 'stranger' is no case's id or name" in why
    assert HOSTILE not in text  # escaped in the JSON document
    assert "<img" not in text
    assert text.count("</script>") == 2  # the data's and the script's own


def test_the_report_in_a_browser(
    report: Path, browser: Any, tmp_path: Path, record_property: Any
) -> None:
    page, errors, requests = watched_page(browser, report.as_uri())
    cases = page.locator("#cases details.case")

    # at first: the failing cases, the first one open; the eight identical greetings are one
    # entry that counts them, with three examples
    assert cases.count() == 2
    assert page.locator("#count").inner_text() == "9 of 81 cases"
    greetings = page.locator("#cases details.case", has_text="greets the user")
    assert greetings.get_attribute("data-count") == "8"
    assert greetings.locator(".times").inner_text() == "8 cases"
    summary = greetings.locator(":scope > summary")
    assert "logs/run.jsonl:2, logs/run.jsonl:12, logs/run.jsonl:22, …" in summary.inner_text()
    assert greetings.evaluate("d => d.open") is True
    assert greetings.locator("details.example").count() == 3
    opened = greetings.inner_text()
    assert "The same result in 8 cases; the first 3 of them, as examples:" in opened
    # each reason once: the tree's, not the summary's line that repeats it once opened
    assert opened.count("Response does not contain 'welcome'") == 1
    assert not greetings.locator(":scope > summary > .why").is_visible()
    assert "1 check: 1 failed" in opened
    meta = page.locator("dl.meta").inner_text()
    assert "logs/run.jsonl" in meta
    assert "chatassert check suite.yaml" in meta

    # the hostile answer is text: no image, no script ran, the title is the report's
    hostile = page.locator("#cases details.case", has_text="refund quickly")
    assert hostile.count() == 1
    hostile.locator(":scope > summary").click()
    assert HOSTILE in hostile.locator("pre.transcript").inner_text()
    assert page.locator("img").count() == 0
    assert page.title() == "chatassert report"
    # each check named as the suite file names it, at its place in the file; the case says
    # why the conversation was checked against it
    assert "no internal errors (not_contains) at turns[0].assertions[1]" in (
        hostile.locator("ul.tree").first.inner_text()
    )
    assert "matched by id" in hostile.locator(":scope > summary").inner_text()
    # the failing span is marked, and the usage the log recorded is shown
    assert hostile.locator("mark").all_inner_texts() == ["internal error"]
    assert "120 tokens" in hostile.locator(":scope > summary").inner_text()
    assert "640 ms" in hostile.locator(":scope > summary").inner_text()

    # the result tree collapses, and "collapse all" closes every case
    node = hostile.locator("ul.tree details").first
    assert node.evaluate("d => d.open") is True
    node.locator("summary").first.click()
    assert node.evaluate("d => d.open") is False
    page.click("#expand")
    assert all(cases.evaluate_all("ds => ds.map(d => d.open)"))
    page.click("#collapse")
    assert not any(cases.evaluate_all("ds => ds.map(d => d.open)"))

    # filters: passing cases are listed on demand; by case, tag and assertion
    page.check('#controls input[data-st="p"]')
    assert page.locator("#count").inner_text() == "81 of 81 cases"
    page.fill("#f-case", "greets")
    assert page.locator("#count").inner_text() == "40 of 81 cases"
    page.fill("#f-case", "")
    page.select_option("#f-tag", "billing")
    assert cases.count() == 41
    page.select_option("#f-tag", "")
    page.uncheck('#controls input[data-st="p"]')
    page.fill("#f-assert", "no internal")
    assert cases.count() == 1  # the one case where that assertion failed
    page.fill("#f-assert", "")

    # sorting: by status puts the failing cases first, by log line keeps the log's order
    page.check('#controls input[data-st="p"]')
    page.select_option("#f-sort", "status")
    assert cases.first.get_attribute("data-status") == "failed"
    page.select_option("#f-sort", "line")
    first = cases.locator(".src").first.inner_text()
    assert first == "logs/run.jsonl:1"

    # filtering by file:line finds a group by the source of any of its examples
    page.fill("#f-case", "run.jsonl:22")
    assert cases.count() == 1
    assert page.locator("#count").inner_text() == "8 of 81 cases"
    page.fill("#f-case", "")

    # the unmatched conversation is listed
    page.locator("#unmatched summary").click()
    page.locator("#unmatched li").first.wait_for()
    unmatched = page.locator("#unmatched").inner_text()
    assert "logs/run.jsonl:82" in unmatched
    assert "its id 'stranger' is no case's id or name" in unmatched

    assert errors == []
    assert all(url.startswith("file://") for url in requests)  # nothing from the network
    page.uncheck('#controls input[data-st="p"]')
    hostile.locator(":scope > summary").click()
    page.evaluate("window.scrollTo(0, 0)")
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    record_property("screenshot", str(shot))
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000
    page.close()


def test_columns_align_with_their_headers_and_a_legend_explains_the_evidence(
    report: Path, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(report.as_uri())
    align = "e => getComputedStyle(e).textAlign"
    for table in page.locator("table").all():
        heads = table.locator("thead th").all()
        cells = table.locator("tbody tr").first.locator("th, td").all()
        assert [h.inner_text() for h in heads][1:] == [
            "passed",
            "failed",
            "errors",
            "skipped",
            "pass rate",
        ]
        # the label column left, every count and the rate right, its header with it
        for head, cell in zip(heads, cells, strict=False):
            assert head.evaluate(align) == cell.evaluate(align), head.inner_text()
        assert heads[0].evaluate(align) == "left"
        assert [h.evaluate(align) for h in heads[1:]] == ["right"] * 5
        assert heads[0].get_attribute("scope") == "col"
        assert cells[0].get_attribute("scope") == "row"
        # the header's right edge is the cells' right edge
        head_box, cell_box = heads[1].bounding_box(), cells[1].bounding_box()
        assert head_box is not None
        assert cell_box is not None
        assert abs(head_box["x"] + head_box["width"] - cell_box["x"] - cell_box["width"]) < 1
    legend = page.locator("#legend")
    assert legend.is_visible()
    text = legend.inner_text()
    for word in ("location", "pointer", "span", "excerpt", "identical results"):
        assert word in text
    assert page.locator(".totals .error").first.inner_text() == "0 errors"
    page.close()


_CONTRAST = """els => els.map(e => {
  const rgb = c => c.match(/[\\d.]+/g).map(Number);
  const lum = c => { const v = rgb(c).slice(0, 3).map(x => { x /= 255;
    return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  let n = e, bg = "rgb(255, 255, 255)";
  while (n && n.nodeType === 1) { const b = getComputedStyle(n).backgroundColor;
    if (b && b !== "transparent" && !(rgb(b).length === 4 && rgb(b)[3] === 0)) { bg = b; break; }
    n = n.parentElement; }
  const [a, b] = [lum(getComputedStyle(e).color), lum(bg)].sort((x, y) => y - x);
  return [e.className || e.tagName, (a + 0.05) / (b + 0.05)]; })"""


def test_every_kind_of_text_has_enough_contrast(report: Path, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(report.as_uri())
    page.click("#expand")
    selector = (
        "th, td.num, .totals span, .st, .src, .usage, .why, .muted, .times, .span, mark, "
        "dl.legend dd, .evidence code, pre.transcript, .group, #count"
    )
    ratios = page.locator(selector).evaluate_all(_CONTRAST)
    assert len(ratios) > 50
    low = [(name, round(ratio, 2)) for name, ratio in ratios if ratio < 4.5]
    assert low == []  # WCAG AA for normal text
    page.close()


def test_twenty_thousand_identical_failures_in_a_browser(browser: Any, tmp_path: Path) -> None:
    from chatassert import Contains
    from chatassert.reporting import Outcome, Summary
    from chatassert.reporting._html import HtmlWriter, write_html

    result = Contains("welcome").check("hi there")
    summary, writer = Summary(), HtmlWriter()
    for line in range(1, 20_001):
        outcome = Outcome("support", "greets", result, f"log.jsonl:{line}", f"conv-{line}")
        summary.add(outcome)
        writer.add_outcome(outcome)
    path = tmp_path / "big.html"
    with path.open("w", encoding="utf-8") as out:
        write_html(summary, out, writer=writer)
    assert path.stat().st_size < 50_000
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    assert page.locator("#count").inner_text() == "20,000 of 20,000 cases"
    assert page.locator("#cases details.case").count() == 1
    assert page.locator("#cases .times").inner_text() == "20,000 cases"
    assert page.locator(".totals .failed").inner_text() == "20,000 failed"
    assert page.locator("table td.num").first.inner_text() == "0"
    assert "The same result in 20,000 cases; the first 3" in page.locator("#cases").inner_text()
    assert errors == []
    page.close()


def test_names_places_and_pairing_notes_in_a_browser(browser: Any, tmp_path: Path) -> None:
    from chatassert import Contains, Result, Status
    from chatassert.reporting import Outcome, Summary
    from chatassert.reporting._html import HtmlWriter, write_html

    leaf = Result(
        Status.FAILED,
        "expect_status",
        "Expected status 'success', got 'error'",
        spec_name="status",
        spec_path="tests[0].expect.status",
        pointer="/status",
    )
    case = Result(Status.FAILED, "case", "1 assertion failed", children=(leaf,))
    case = case.replace(spec_path="tests[0]")
    note = "the suite's one case has id 'greet'; the conversation's id is 'hello-1'"
    outcomes = [
        Outcome("search", "finds notes", case, "log.jsonl:1", "r-1", matched_by="id"),
        Outcome(
            "greeting",
            "greets",
            Contains("welcome").check("hi"),
            "log.jsonl:2",
            "hello-1",
            matched_by="single case",
            match_note=note,
        ),
    ]
    summary, writer = Summary(), HtmlWriter()
    for outcome in outcomes:
        summary.add(outcome)
        writer.add_outcome(outcome)
    writer.add_unmatched("log.jsonl:3", "search", "no case of 'search' matches it: its id 'x'")
    path = tmp_path / "names.html"
    with path.open("w", encoding="utf-8") as out:
        write_html(summary, out, writer=writer)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri())
    page.click("#expand")
    search = page.locator("#cases details.case", has_text="finds notes")
    # the place says the name: `expect.status`, then the native check that runs it
    assert "expect.status (native: expect_status) — Expected status" in search.inner_text()
    assert "matched by id" in search.locator(":scope > summary").inner_text()
    greeting = page.locator("#cases details.case", has_text="greets")
    assert "matched by single case" in greeting.locator(":scope > summary").inner_text()
    assert greeting.locator(".note").inner_text() == note
    page.locator("#unmatched summary").click()
    assert "its id 'x'" in page.locator("#unmatched li").first.inner_text()
    page.close()


def test_a_missing_browser_skips_unless_it_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_helpers, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.delenv("CHATASSERT_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="is missing"):
        browser_helpers.require_browser()
    monkeypatch.setenv("CHATASSERT_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="CHATASSERT_REQUIRE_BROWSER=1 but"):
        browser_helpers.require_browser()
