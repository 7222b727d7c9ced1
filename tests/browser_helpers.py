"""Headless Chromium for the tests of the HTML pages (the run report, the comparison).

Chromium is the distribution's (/usr/bin/chromium), driven by Playwright. Without either the
tests skip, unless CHATASSERT_REQUIRE_BROWSER=1 (as .ci/run sets), where a missing browser
fails. The modules that use it are listed as `heavy` in tests/conftest.py, on one worker.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
HOSTILE = "</script><img src=x onerror=\"document.title='pwned'\">"
"""Text of a log that would be markup and script if a page did not escape it."""


def require_browser() -> None:
    """Skip the test when Chromium or Playwright is missing (fail, when required)."""
    required = os.environ.get("CHATASSERT_REQUIRE_BROWSER") == "1"
    missing = None
    if not os.path.exists(CHROMIUM):
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "playwright is not installed (pip install playwright)"
    if missing is not None:
        if required:
            pytest.fail(f"CHATASSERT_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium, launched for a module's tests and closed after them."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            yield browser
        finally:
            browser.close()


def watched_page(browser: Any, uri: str) -> tuple[Any, list[str], list[str]]:
    """A page of `browser` at 1280 by 900 opened at `uri`, with the script errors it raises and the
    URLs it requests as they come (a self-contained page raises none and requests only itself)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(uri)
    return page, errors, requests
