"""A comparison of two runs as one self-contained HTML page (`render_comparison(..., "html")`).

The page holds no external asset: inline CSS and a small inline script. Every text of the
runs (case names, subject ids, assertion names, evidence) is escaped here, when the page is
written, and the script never writes markup: it only hides and shows rows, so no text of a log
can become markup or code.

What it shows, in order: the gate's verdict; the flips, filterable by text (case, subject,
evidence), by assertion (or the case as a whole) and by kind of change, each with the base
run's status and evidence beside the new run's; the pass rates of both runs side by side per
assertion and overall, with the drop, the exact McNemar p-value, the mid-p value, the
Holm-adjusted one and the verdict; the cases only one run has, side by side; judging cost and
checking time side by side; the notes.

This module reads a `Comparison` by its attributes and never imports `chatassert.compare`.

Docs: docs/gate-a-change.md. Tests: tests/compare/test_compare_reports.py,
tests/compare/test_compare_browser.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from chatassert._compare_render import Gate, case_name, interval, p_text, percent, verdict
from chatassert.reporting._junit import INVALID_XML
from chatassert.reporting._summary import cost_text
from chatassert.reporting._words import counted, number

if TYPE_CHECKING:
    from chatassert.compare import AssertionChange, Comparison, Flip, Key, Rate

__all__ = ["render_html"]

_CHANGES = ("worse", "error", "removed", "changed", "added", "better")
_CASE = "(the case)"

_CSS = """
:root { --fail: #b42318; --pass: #067647; --err: #b54708; --mute: #667085; --line: #d0d5dd; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 1rem 1.5rem 3rem;
  max-width: 1400px; color: #101828; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
h2 { font-size: 1.1rem; margin: 1.75rem 0 .5rem; }
.runs { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; margin: .5rem 0; }
.runs div, .side { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.label { color: var(--mute); font-size: .85em; text-transform: uppercase; letter-spacing: .04em; }
.gate { padding: .5rem .75rem; border-radius: 6px; margin: .75rem 0; font-weight: 600; }
.gate.failed { background: #fef3f2; color: var(--fail); }
.gate.passed { background: #ecfdf3; color: var(--pass); }
.gate.none { background: #f2f4f7; color: var(--mute); font-weight: normal; }
.gate ul { margin: .25rem 0 0; font-weight: normal; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left;
  vertical-align: top; }
th { background: #f9fafb; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.base, td.base { border-left: 2px solid var(--line); }
th.new, td.new { border-left: 2px solid var(--line); }
.st { font-weight: 600; }
.st.passed { color: var(--pass); } .st.failed { color: var(--fail); }
.st.error { color: var(--err); } .st.absent, .st.skipped { color: var(--mute); }
.ch { display: inline-block; border-radius: 4px; padding: 0 .35rem; font-size: .85em; }
.ch.worse, .ch.error, .ch.removed { background: #fef3f2; color: var(--fail); }
.ch.better { background: #ecfdf3; color: var(--pass); }
.ch.added, .ch.changed { background: #f2f4f7; color: #344054; }
pre.ev { white-space: pre-wrap; word-break: break-word; margin: .2rem 0 0; font-size: .9em;
  max-height: 12rem; overflow: auto; }
tr.regressed td { background: #fef3f2; }
tr.improved td { background: #ecfdf3; }
tfoot td { font-weight: 600; border-top: 2px solid #98a2b3; }
#controls { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
#controls input[type=search] { min-width: 20rem; padding: .25rem .4rem; }
#count { color: var(--mute); margin-left: auto; }
.muted { color: var(--mute); }
ul.keys { margin: .25rem 0; padding-left: 1.25rem; }
"""

_SCRIPT = """
(function () {
  var text = document.getElementById("f-text");
  var assertion = document.getElementById("f-assertion");
  var change = document.getElementById("f-change");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#flips tbody tr"));
  var count = document.getElementById("count");
  function apply() {
    var words = text.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var ok = (!assertion.value || row.dataset.assertion === assertion.value) &&
        (!change.value || row.dataset.change === change.value);
      if (ok && words.length) {
        var haystack = row.textContent.toLowerCase();
        ok = words.every(function (w) { return haystack.indexOf(w) >= 0; });
      }
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + (rows.length === 1 ? " flip" : " flips");
  }
  [text, assertion, change].forEach(function (el) {
    el.addEventListener("input", apply);
    el.addEventListener("change", apply);
  });
  apply();
})();
"""


def _e(text: object) -> str:
    """Text escaped for HTML, characters no page can hold replaced."""
    return escape(INVALID_XML.sub("\ufffd", str(text)))


def _status(status: str) -> str:
    return f'<span class="st {_e(status)}">{_e(status)}</span>'


def _evidence(text: str | None) -> str:
    return "" if not text else f'<pre class="ev">{_e(text)}</pre>'


def _flip_row(flip: Flip) -> str:
    assertion = flip.assertion if flip.assertion is not None else _CASE
    shown = _e(assertion)
    if flip.spec_path is not None:
        shown += f' <span class="muted">{_e(flip.spec_path)}</span>'
    return (
        f'<tr data-change="{_e(flip.change)}" data-assertion="{_e(assertion)}">'
        f'<td><span class="ch {_e(flip.change)}">{_e(flip.change)}</span></td>'
        f"<td>{_e(case_name(flip.key))}</td><td>{shown}</td>"
        f'<td class="base">{_status(flip.before)}{_evidence(flip.evidence_before)}</td>'
        f'<td class="new">{_status(flip.after)}{_evidence(flip.evidence_after)}</td></tr>'
    )


def _options(values: Sequence[str]) -> str:
    return "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)


def _flips(comparison: Comparison) -> list[str]:
    flips = comparison.flips
    out = [f"<h2>Flips ({number(len(flips))})</h2>"]
    if not flips:
        out.append('<p class="muted">No flips: every paired case and assertion has the status '
                   "it had.</p>")  # fmt: skip
        return out
    names = sorted({f.assertion for f in flips if f.assertion is not None})
    has_case = any(f.assertion is None for f in flips)
    kinds = [k for k in _CHANGES if any(f.change == k for f in flips)]
    out.append(
        '<div id="controls">'
        '<input type="search" id="f-text" placeholder="filter: case, subject, evidence" '
        'aria-label="filter the flips by text">'
        '<select id="f-assertion" aria-label="assertion"><option value="">every assertion'
        f"</option>{_options(([_CASE] if has_case else []) + names)}</select>"
        '<select id="f-change" aria-label="change"><option value="">every change</option>'
        f'{_options(kinds)}</select><span id="count"></span></div>'
    )
    out.append(
        '<table id="flips"><thead><tr><th>change</th><th>case</th><th>assertion</th>'
        '<th class="base">base</th><th class="new">new</th></tr></thead><tbody>'
    )
    out.extend(_flip_row(flip) for flip in flips)
    out.append("</tbody></table>")
    return out


def _rate_cells(rate: Rate, counts: Mapping[str, int], side: str) -> str:
    errors = counts.get("error", 0)
    extra = f'<br><span class="muted">{counted(errors, "error")}</span>' if errors else ""
    return (
        f'<td class="num {side}">{percent(rate.rate)}<br><span class="muted">'
        f"{rate.passed}/{rate.total}</span>{extra}</td>"
        f'<td class="num">{interval(rate)}</td>'
    )


def _change_row(change: AssertionChange, alpha: float) -> str:
    said = verdict(change, alpha)
    cls = {"regressed": "regressed", "improved": "improved"}.get(said, "")
    drop = "—" if math.isnan(change.drop) else f"{change.drop * 100:.1f} pts"
    flaky = f"<br>{counted(change.flaky, 'flaky subject')}" if change.flaky else ""
    return (
        f'<tr class="{cls}"><td>{_e(change.name)}</td>'
        f"{_rate_cells(change.base, change.base_counts, 'base')}"
        f"{_rate_cells(change.new, change.new_counts, 'new')}"
        f'<td class="num">{drop}</td><td class="num">{change.test.worse}</td>'
        f'<td class="num">{change.test.better}</td>'
        f'<td class="num">{p_text(change.test.p_value)}</td>'
        f'<td class="num">{p_text(change.test.mid_p)}</td>'
        f'<td class="num">{p_text(change.adjusted_p)}</td><td>{_e(said)}{flaky}</td></tr>'
    )


def _rates(comparison: Comparison) -> list[str]:
    alpha = comparison.alpha
    return [
        "<h2>Pass rates</h2>",
        f'<p class="muted">Over the {counted(comparison.paired, "paired case")}; '
        f"{comparison.confidence:.0%} Wilson intervals; p: the exact McNemar test on the "
        "paired cases, mid-p beside it; Holm: p adjusted across the assertions and the "
        f"overall; regressed: Holm ≤ {alpha:g} and more worse than better. An error counts "
        "as not passed.</p>",
        '<table id="rates"><thead><tr><th rowspan="2">assertion</th>'
        '<th class="base" colspan="2">base</th><th class="new" colspan="2">new</th>'
        '<th rowspan="2">drop</th><th rowspan="2">worse</th><th rowspan="2">better</th>'
        '<th rowspan="2">p</th><th rowspan="2">mid-p</th><th rowspan="2">Holm</th>'
        '<th rowspan="2">verdict</th></tr><tr><th class="base">rate</th><th>interval</th>'
        '<th class="new">rate</th><th>interval</th></tr></thead><tbody>',
        *(_change_row(change, alpha) for change in comparison.assertions),
        f"</tbody><tfoot>{_change_row(comparison.overall, alpha)}</tfoot></table>",
    ]


def _keys(keys: Sequence[Key]) -> str:
    if not keys:
        return '<p class="muted">none</p>'
    return '<ul class="keys">' + "".join(f"<li>{_e(case_name(k))}</li>" for k in keys) + "</ul>"


def _unpaired(comparison: Comparison) -> list[str]:
    if not (comparison.unpaired_base or comparison.unpaired_new):
        return []
    return [
        "<h2>Cases only one run has</h2>",
        '<div class="runs" id="unpaired">'
        f'<div><span class="label">only in base ({len(comparison.unpaired_base)})</span>'
        f"{_keys(comparison.unpaired_base)}</div>"
        f'<div><span class="label">only in new ({len(comparison.unpaired_new)})</span>'
        f"{_keys(comparison.unpaired_new)}</div></div>",
    ]


def _cost_side(data: Mapping[str, Any]) -> str:
    judge = data.get("judge")
    lines = [cost_text(judge) if judge is not None else "no judge used"]
    seconds = data.get("seconds")
    if seconds is not None:
        lines.append(
            f"checking time {seconds['total']:.3g} s (median {seconds['median']:.3g} s, "
            f"p95 {seconds['p95']:.3g} s per case)"
        )
    lines.append(counted(int(data.get("cases") or 0), "case"))
    return "<br>".join(_e(line) for line in lines)


def _cost(comparison: Comparison) -> list[str]:
    base, new = comparison.cost.get("base") or {}, comparison.cost.get("new") or {}
    if base.get("judge") is None and new.get("judge") is None:
        return []
    return [
        "<h2>Judging, side by side</h2>",
        '<div class="runs" id="cost">'
        f'<div><span class="label">base</span><br>{_cost_side(base)}</div>'
        f'<div><span class="label">new</span><br>{_cost_side(new)}</div></div>',
    ]


def _gate(gate: Gate) -> str:
    if not gate.applied:
        return '<div class="gate none" id="gate">No gate given (--fail-on, --max-drop).</div>'
    if gate.passed:
        return '<div class="gate passed" id="gate">Gate passed.</div>'
    items = "".join(f"<li>{_e(text)}</li>" for _, text in gate.reasons)
    return f'<div class="gate failed" id="gate">Gate failed:<ul>{items}</ul></div>'


def render_html(comparison: Comparison, gate: Gate) -> str:
    """The comparison as one self-contained HTML page."""
    base = comparison.base_path or "base rows"
    new = comparison.new_path or "new rows"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>chatassert compare</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>chatassert compare</h1>",
        '<div class="runs" id="runs">'
        f'<div><span class="label">base</span><br>{_e(base)}</div>'
        f'<div><span class="label">new</span><br>{_e(new)}</div></div>',
        f'<p id="headline">{counted(comparison.paired, "case")} paired; overall '
        f"{percent(comparison.overall.base.rate)} → {percent(comparison.overall.new.rate)}; "
        f"{counted(len(comparison.flips), 'flip')}.</p>",
        _gate(gate),
        *_flips(comparison),
        *_rates(comparison),
        *_unpaired(comparison),
        *_cost(comparison),
    ]
    if comparison.notes:
        parts.append("<h2>Notes</h2><ul>")
        parts.extend(f"<li>{_e(note)}</li>" for note in comparison.notes)
        parts.append("</ul>")
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"
