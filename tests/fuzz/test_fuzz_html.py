"""Fuzzing the HTML report's grouping: identical results are one entry, nothing is lost.

The contract under test: for any run of case outcomes (result trees of any shape and text,
evidence, sources, ids and pairing notes, the same results repeated), the page's data is one
JSON document that no text ends early; every passing case is a row of its own; the cases
that did not pass fall into groups exactly as their suite, case and nodes that did not pass
(status, names, message, places, pointer, reason) say, each group counting all of its cases
and listing the first `EXAMPLES` of them; the totals count every case.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st
from test_fuzz_results import results

from chatassert import Result, Status
from chatassert.reporting import Outcome, Summary
from chatassert.reporting._html import EXAMPLES, HtmlWriter, write_html
from chatassert.reporting._words import number


def _evidence(result: Result, text: str, start: int, size: int) -> Result:
    """The result with text evidence: a pointer, a span and the excerpt around it."""
    start = min(start, len(text))
    end = min(start + size, len(text))
    return result.replace(pointer="/turns/0/text", span=(start, end), excerpt=(0, text))


_CHANGES = [
    # each splits a group...
    ("reason", "\ud800"),
    ("reason", "\udfff"),
    ("reason", "\x00"),
    ("message", "m"),
    ("spec_name", "status"),
    ("spec_path", "cases[1]"),
    ("location", "turns[9]"),
    ("pointer", "/turns/9/text"),
    ("status", Status.ERROR),
    # ... and these do not: the score, details and duration say nothing of why
    ("score", 0.5),
    ("details", {"found": ["x"]}),
    ("duration", 2.0),
]


def _changed(result: Result, field: str, value: Any, deep: bool) -> Result:
    """The result with one field of it (or of its first child, when `deep`) changed."""
    if deep and result.children:
        first = _changed(result.children[0], field, value, False)
        return result.replace(children=(first, *result.children[1:]))
    if field == "reason":
        value = result.reason + value
    return result.replace(**{field: value})


@st.composite
def runs(draw: st.DrawFn) -> list[Outcome]:
    """Outcomes drawn from a small pool of results, so that the same result comes again:
    results of any shape, and copies of them with one field changed (at the root or in a
    child), which may or may not make another result."""
    pool = draw(st.lists(results(), min_size=1, max_size=3))
    for _ in range(draw(st.integers(0, 3))):
        field, value = draw(st.sampled_from(_CHANGES))
        pool.append(_changed(draw(st.sampled_from(pool)), field, value, draw(st.booleans())))
    if draw(st.booleans()):
        text = draw(specgen.odd_text(30))
        start, size = draw(st.integers(0, 40)), draw(st.integers(0, 10))
        pool = [_evidence(r, text, start, size) for r in pool]
    out = []
    cases = st.sampled_from([("support", "greets")] * 3 + [("billing", "greets"), ("s", "\ud800")])
    for n in range(draw(st.integers(0, 30))):
        suite, case = draw(cases)
        out.append(
            Outcome(
                suite,
                case,
                draw(st.sampled_from(pool)),
                draw(st.sampled_from([f"log.jsonl:{n + 1}", "", "odd\u2028file:3"])),
                draw(st.one_of(st.none(), specgen.words())),
                draw(st.one_of(st.none(), specgen.odd_text(20))),
                matched_by=draw(st.sampled_from([None, "id", "single case"])),
                match_note=draw(st.one_of(st.none(), specgen.odd_text(20))),
            )
        )
    return out


def _same(result: Result, root: str | None, above: str | None) -> Any:
    """What makes two results the same (the page's rule, from the result itself)."""
    named = result.spec_name if result.spec_name != result.name else None
    here = result.spec_path or above
    return (
        result.status,
        result.name,
        result.message or None,
        named,
        result.spec_place(root, above),
        result.location or None,
        result.pointer,
        result.reason,
        tuple(_same(c, root, here) for c in result.children if c.status is not Status.PASSED),
    )


@given(runs())
@fuzz_target("report.html")
def test_identical_results_are_one_entry_and_nothing_is_lost(outcomes: list[Outcome]) -> None:
    summary, writer = Summary(), HtmlWriter()
    for outcome in outcomes:
        summary.add(outcome)
        writer.add_outcome(outcome)
    out = io.StringIO()
    write_html(summary, out, writer=writer)
    page = out.getvalue()
    assert page.count("</script>") == 2  # the data's and the script's own: no text ends one
    match = re.search(r'<script type="application/json" id="ca-data">(.*?)</script>', page, re.S)
    assert match is not None
    data = json.loads(match.group(1))

    passing = [o for o in outcomes if o.result.status is Status.PASSED]
    sizes: dict[Any, int] = {}
    for o in outcomes:
        if o.result.status is not Status.PASSED:
            key = (o.suite, o.case, _same(o.result, o.result.spec_path, o.result.spec_path))
            sizes[key] = sizes.get(key, 0) + 1
    assert data["groups"] == list(sizes.values())  # in the order each first came
    rows = data["rows"]
    assert [r[4][0] for r in rows if r[1] == "p"] == [o.source for o in passing]
    listed: dict[int, int] = {}
    for row in rows:
        if row[1] != "p":
            listed[row[5]] = listed.get(row[5], 0) + 1
    assert listed == {g: min(n, EXAMPLES) for g, n in enumerate(data["groups"])}
    assert f'<span class="total">{number(len(outcomes))} checked</span>' in page
