"""Reports against golden files (durations normalised), and the HTML report parsed."""

from __future__ import annotations

import io
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from chatassert import Contains, ContainsFunctionCall, Conversation, NotContains
from chatassert._suite import Case, Suite, TurnSpec
from chatassert.reporting import (
    JUnitWriter,
    Outcome,
    Summary,
    excerpt,
    render_html,
    render_junit_case,
    render_text,
)
from chatassert.specs import loads_suite

GOLDEN = Path(__file__).parent / "golden"

SPEC = """\
chatassert: 1
name: support
cases:
  - name: weather
    turns:
      - assertions:
          - {type: contains_function_call, value: get_weather}
          - {type: not_contains, value: internal error}
          - {type: contains, value: Paris, message: names the city}
"""
"""The suite as a spec file (tests/cli/test_json_report_jobs.py writes the same file): the
reports name each check as the file does, at its place in it."""

SUITE = loads_suite(SPEC)

CODE_SUITE = Suite(
    "support",
    (
        Case(
            "weather",
            turns=(
                TurnSpec(
                    (
                        ContainsFunctionCall("get_weather"),
                        NotContains("internal error"),
                        Contains("Paris", message="names the city"),
                    )
                ),
            ),
        ),
    ),
)
"""The same suite built in code: its results carry no spec names or places."""


def _conversation(text: str, *, call: bool) -> Conversation:
    messages: list[dict[str, object]] = [{"role": "user", "content": "Weather in Paris?"}]
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
    return Conversation.from_messages(messages)


def _outcomes(suite: Suite = SUITE) -> list[Outcome]:
    subjects = [
        _conversation("It is 18C in Paris.", call=True),
        _conversation("Sorry, internal error <b>&</b>", call=False),
    ]
    out = []
    for i, conversation in enumerate(subjects):
        result = suite.cases[0].check(conversation).replace(duration=0.25)
        failing = not result.passed
        out.append(
            Outcome(
                "support",
                "weather",
                result,
                f"log.jsonl:{i + 1}",
                f"conv-{i}",
                excerpt(conversation) if failing else None,
                matched_by="single case",  # as `check` pairs them: the suite has one case
            )
        )
    return out


def _summary(suite: Suite = SUITE) -> Summary:
    summary = Summary()
    for outcome in _outcomes(suite):
        summary.add(outcome)
    summary.add_unreadable("log.jsonl:3", "line is not JSON: Expecting value")
    return summary


def _normalise(text: str) -> str:
    text = re.sub(r'"duration": [0-9.e-]+', '"duration": 0', text)
    return re.sub(r'time="[0-9.]+"', 'time="0"', text)


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    text = _normalise(text)
    if os.environ.get("CHATASSERT_UPDATE_GOLDEN"):  # regenerate, then review the diff
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_text_report_golden() -> None:
    _golden("report.txt", render_text(_summary()) + "\n")


def test_a_suite_built_in_code_is_reported_by_its_native_names_without_places() -> None:
    # the same checks without a spec file: nothing to name them after but their native kind
    for code, loaded in zip(_outcomes(CODE_SUITE), _outcomes(), strict=True):
        assert code.result.spec_path is None
        assert [leaf.spec_name for leaf in code.result.leaves()] == [None, None, None]
        assert [leaf.spec_name for leaf in loaded.result.leaves()] == [
            "contains_function_call",
            "not_contains",
            "contains",
        ]
        assert code.result.to_dict() == _without_places(loaded.result.to_dict())
    text = render_text(_summary(CODE_SUITE))
    assert "      FAIL not_contains: Response should not contain 'internal error'\n" in text
    assert " at turns[0]" not in text


def _without_places(tree: dict[str, Any]) -> dict[str, Any]:
    """A JSON result tree without the names and places its spec file gave it."""
    out = {k: v for k, v in tree.items() if k not in ("spec_name", "spec_path")}
    if "children" in tree:
        out["children"] = [_without_places(c) for c in tree["children"]]
    return out


def test_json_lines_golden() -> None:
    lines = "".join(json.dumps(o.to_dict(), indent=None) + "\n" for o in _outcomes())
    _golden("report.jsonl", lines)


def test_junit_golden() -> None:
    writer = JUnitWriter()
    for outcome in _outcomes():
        writer.add(
            outcome.suite, outcome.result.status.value, outcome.seconds, render_junit_case(outcome)
        )
    writer.add_unreadable("log.jsonl:3", "line is not JSON: Expecting value")
    out = io.StringIO()
    writer.write(out)
    _golden("report.xml", out.getvalue())


def test_html_golden() -> None:
    _golden("report.html", render_html(_summary()))


class _Page(HTMLParser):
    """Collects the text of the page by tag, and every tag and attribute seen."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: dict[str, list[str]] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in ("meta", "br", "link"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.text.setdefault(self.stack[-1], []).append(data)


def test_html_report_content() -> None:
    text = render_html(_summary(), title="Nightly <run>")
    page = _Page()
    page.feed(text)
    assert "Nightly <run>" in page.text["title"]
    # no external assets: scripts and styles are inline, nothing is loaded from anywhere
    assert not [t for t, a in page.tags if t in ("link", "img", "iframe")]
    assert not [a for _, a in page.tags if "src" in a or "href" in a]
    cells = " | ".join(page.text["td"] + page.text["th"])  # each row's label is its header
    assert "names the city" in cells
    assert "50.0%" in cells  # two conversations, one passed
    assert "support / weather" in cells
    assert "line is not JSON" in " ".join(page.text["li"])
    data = json.loads(text.split('id="ca-data">')[1].split("</script>")[0])
    assert data["cases"] == [["support", "weather", []]]
    ((case, status, _, assertions, (source, usage, detail, _matched), group),) = data["rows"]
    assert data["groups"][group] == 1
    assert (case, status, source, usage) == (0, "f", "log.jsonl:2", None)
    assert [data["labels"][i] for i, _ in assertions] == [
        "contains_function_call",
        "not_contains",
        "names the city",
    ]
    assert "Sorry, internal error <b>&</b>" in detail["excerpt"]  # escaped and intact
    assert detail["tree"]["s"] == "f"


@pytest.mark.parametrize("count", [0, 1, 25])
def test_summary_keeps_a_bounded_number_of_examples(count: int) -> None:
    summary = Summary(keep=3)
    bad = _outcomes()[1]
    for _ in range(count):
        summary.add(bad)
    assert summary.counts["failed"] == count
    assert len(summary.failures) == min(count, 3)
    assert summary.exit_code() == (1 if count else 4)  # nothing checked is not success (G17)


def test_the_html_report_holds_no_control_characters() -> None:
    from chatassert import Contains, Status
    from chatassert.reporting import Outcome, Summary

    summary = Summary(keep=5)
    result = Contains("x").check("nul \x00 and escape \x1b[2J")
    summary.add(Outcome("s", "c", result, "log.jsonl:1", None, excerpt="\x00\x1b"))
    page = render_html(summary)
    assert result.status is Status.FAILED
    assert "\x00" not in page
    assert "\x1b" not in page


def test_a_skipped_check_does_not_lower_a_pass_rate() -> None:
    from chatassert.expect import IfResults, ResultsMin
    from chatassert.reporting import Outcome, Summary, pass_rate
    from chatassert.specs import Case

    summary = Summary(keep=5)
    case = Case("c", checks=(IfResults(ResultsMin(5)),), subject="json")
    summary.add(Outcome("s", "c", case.check({"results": []}), "log.jsonl:1", None))
    (counts,) = summary.per_assertion.values()
    assert pass_rate(counts) is None
    assert "— passed  (0/0, 1 skipped)" in render_text(summary)
    assert '<td class="num">—</td>' in render_html(summary)
