"""The HTML page of `chatassert compare` in a real browser: written for two runs of a suite,
loaded by headless Chromium from a file:// URL, its filters used and its DOM read.

Chromium is the distribution's, driven by Playwright (tests/browser_helpers.py): without it
the test skips, unless CHATASSERT_REQUIRE_BROWSER=1, where a missing browser fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from compare_helpers import BASE_LINES, NEW_LINES, SUITE, cli

from browser_helpers import HOSTILE, chromium, watched_page


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("compare-html")
    # a case named with markup: the page must show it as text
    named = SUITE.replace("- name: refund quickly", f"- name: {json.dumps('refund ' + HOSTILE)}")
    (work / "suite.yaml").write_text(named, encoding="utf-8")
    for name, lines in (("base", BASE_LINES), ("new", NEW_LINES)):
        (work / f"{name}.log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        code, _, err = cli("check", str(work / "suite.yaml"), str(work / f"{name}.log.jsonl"),
                           "-o", str(work / f"{name}.jsonl"), "-q")  # fmt: skip
        assert code in (1, 3), err
    code, _, err = cli("compare", str(work / "base.jsonl"), str(work / "new.jsonl"),
                       "--fail-on", "any-flip", "-o", str(work / "compare.html"), "-q")  # fmt: skip
    assert code == 1, err
    return work / "compare.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def test_the_comparison_in_a_browser(
    page_file: Path, browser: Any, tmp_path: Path, record_property: Any
) -> None:
    page, errors, requests = watched_page(browser, page_file.as_uri())
    flips = page.locator("#flips tbody tr")
    visible = page.locator("#flips tbody tr:visible")

    # the gate first, then the flips: every one listed, the worst first
    assert "Gate failed:" in page.locator("#gate").inner_text()
    assert page.locator("#count").inner_text() == "8 of 8 flips"
    assert flips.count() == 8
    first = flips.first
    assert first.get_attribute("data-change") == "worse"
    cells = first.locator("td")
    assert cells.nth(1).inner_text() == f"suite / refund {HOSTILE} [refund]"
    # two columns: the base run's status beside the new run's, with the new failure's evidence
    assert cells.nth(3).inner_text().strip() == "passed"
    assert cells.nth(4).locator(".st").inner_text() == "failed"
    assert page.locator("img").count() == 0
    assert page.title() == "chatassert compare"

    # filters: by text, by assertion (or the case as a whole), by kind of change
    page.fill("#f-text", "invoice")
    assert page.locator("#count").inner_text() == "2 of 8 flips"
    assert visible.count() == 2
    page.fill("#f-text", "")
    page.select_option("#f-assertion", "(the case)")
    assert page.locator("#count").inner_text() == "5 of 8 flips"
    page.select_option("#f-change", "better")
    assert visible.count() == 1
    assert "greets the user" in visible.first.inner_text()
    page.select_option("#f-assertion", "")
    assert page.locator("#count").inner_text() == "2 of 8 flips"
    page.select_option("#f-change", "")
    page.fill("#f-text", "does not contain 'refund'")  # words of the evidence
    assert visible.count() == 2  # the case's flip and its assertion's
    assert visible.nth(1).get_attribute("data-assertion") == "mentions the refund"
    page.fill("#f-text", "")
    assert visible.count() == 8

    # the pass rates, both runs side by side, the overall last
    rates = page.locator("#rates")
    assert rates.locator("thead th.base").first.inner_text() == "base"
    overall = rates.locator("tfoot tr td")
    assert overall.first.inner_text() == "overall"
    assert "66.7%" in overall.nth(1).inner_text()
    assert "33.3%" in overall.nth(3).inner_text()
    assert "only in base (1)" in page.locator("#unpaired").inner_text().lower()

    assert errors == []
    assert all(url.startswith("file://") for url in requests)  # nothing from the network
    shot = tmp_path / "compare.png"
    page.screenshot(path=str(shot), full_page=True)
    record_property("screenshot", str(shot))
    assert shot.stat().st_size > 10_000
    page.close()
