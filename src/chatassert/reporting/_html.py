"""A single-file HTML report: no external assets, inline CSS, every user text escaped."""

from __future__ import annotations

from collections import Counter
from html import escape
from typing import TYPE_CHECKING

from chatassert._result import marked
from chatassert.reporting._junit import _INVALID_XML
from chatassert.reporting._summary import cost_text, pass_rate

if TYPE_CHECKING:
    from chatassert._result import Result
    from chatassert.reporting._summary import Summary

__all__ = ["render_html"]


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:70rem;
color:#1d2330;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde}
.totals span{display:inline-block;margin-right:1rem;padding:.2rem .6rem;border-radius:4px}
.passed{background:#e3f6e8}.failed{background:#fde4e4}.error{background:#fff1d6}
.skipped{background:#eef}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}th{background:#f6f7fa}td.num{text-align:right;
font-variant-numeric:tabular-nums}
.bar{background:#fde4e4;width:8rem;height:.7rem;border-radius:3px;overflow:hidden}
.bar div{background:#3fb56b;height:100%}
pre{background:#f6f7fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;font-size:12.5px}
.example{border:1px solid #e4e6ee;border-radius:6px;padding:.2rem 1rem;margin:1rem 0}
mark{background:#ffd86b;padding:0 .1em}.evidence code{font-size:12.5px}
.notice{background:#fff1d6;border:1px solid #e8c77a;border-radius:6px;padding:.6rem 1rem;
font-weight:600}
"""


def _rate_row(label: str, counts: Counter[str]) -> str:
    rate = pass_rate(counts)  # over evaluated outcomes: a skipped check is not a failure
    cells = "".join(
        f'<td class="num">{counts[k]}</td>' for k in ("passed", "failed", "error", "skipped")
    )
    shown = "—" if rate is None else f"{rate:.1%}"
    return (
        f'<tr><td>{escape(label)}</td>{cells}<td class="num">{shown}</td>'
        f'<td><div class="bar"><div style="width:{(rate or 0) * 100:.1f}%"></div></div></td></tr>'
    )


def _table(title: str, rows: dict[str, Counter[str]], what: str) -> list[str]:
    out = [
        f"<h2>{escape(title)}</h2>",
        "<table>",
        f"<tr><th>{escape(what)}</th><th>passed</th><th>failed</th><th>errors</th>"
        "<th>skipped</th><th>pass rate</th><th></th></tr>",
    ]
    out.extend(_rate_row(label, counts) for label, counts in sorted(rows.items()))
    out.append("</table>")
    return out


def _evidence(result: Result) -> list[str]:
    """Where each failure is: its pointer, and the text excerpt with the span in <mark>."""
    out = []
    for leaf in result.failures():
        if leaf.pointer is None or leaf.span is None or leaf.excerpt is None:
            continue
        start, end = leaf.span
        text = marked(leaf.excerpt, leaf.span, "<mark>", "</mark>", escape)
        out.append(
            f'<p class="evidence"><code>{escape(leaf.pointer)}</code> {start}-{end}: '
            f"<span>{text}</span></p>"
        )
    return out


def render_html(
    summary: Summary, *, title: str = "chatassert report", verbose: bool = False
) -> str:
    """Render the summary as one self-contained HTML page.

    It shows the totals, pass rates per assertion and per case, the first failing examples with
    their reasons and transcript excerpts, and the log lines that could not be read.

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.reporting import Outcome, Summary
        >>> summary = Summary()
        >>> summary.add(Outcome("s", "c", Contains("<b>").check("plain"), "log:1"))
        >>> page = render_html(summary)
        >>> "<b>" in page, "&lt;b&gt;" in page
        (False, True)
    """
    c = summary.counts
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        *([f'<p class="notice">{escape(summary.notice)}</p>'] if summary.notice else []),
        '<p class="totals">',
        f'<span class="total">{summary.total} checked</span>',
    ]
    parts.extend(
        f'<span class="{k}">{c[k]} {k}</span>' for k in ("passed", "failed", "error", "skipped")
    )
    if summary.unreadable_count:
        parts.append(f'<span class="error">{summary.unreadable_count} unreadable lines</span>')
    if summary.unmatched:
        parts.append(f'<span class="error">{summary.unmatched} without a matching case</span>')
    parts.append("</p>")
    parts += _judging_block(summary)
    parts += _table("Pass rate per assertion", summary.per_assertion, "assertion")
    parts += _table("Pass rate per case", summary.per_case, "suite / case")
    if summary.failures:
        parts.append(f"<h2>Failing examples (first {len(summary.failures)})</h2>")
        for outcome in summary.failures:
            where = outcome.source or outcome.subject_id or ""
            parts.append('<div class="example">')
            parts.append(
                f'<h3><span class="{outcome.result.status.value}">'
                f"{outcome.result.status.value}</span> {escape(outcome.suite)} / "
                f"{escape(outcome.case)} <small>{escape(where)}</small></h3>"
            )
            parts.append(f'<p class="reason">{escape(outcome.result.reason)}</p>')
            if outcome.cost is not None:
                parts.append(f'<p class="judge">{escape(cost_text(outcome.cost))}</p>')
            parts.append(
                f'<pre class="tree">{escape(outcome.result.render(verbose=verbose))}</pre>'
            )
            parts.extend(_evidence(outcome.result))
            if outcome.excerpt:
                parts.append(f'<pre class="transcript">{escape(outcome.excerpt)}</pre>')
            parts.append("</div>")
    if summary.unreadable:
        parts.append("<h2>Unreadable log lines</h2><ul>")
        parts.extend(
            f"<li><code>{escape(where)}</code>: {escape(error)}</li>"
            for where, error in summary.unreadable
        )
        parts.append("</ul>")
    parts.append("</body></html>")
    # the characters a JUnit file cannot hold (controls, lone surrogates) have no place here
    return _INVALID_XML.sub("\ufffd", "\n".join(parts) + "\n")


def _judging_block(summary: Summary) -> list[str]:
    """The flaky count and what judging cost over the run, when there is anything to say."""
    out = []
    if summary.flaky:
        out.append(f'<p class="flaky">{summary.flaky} cases with flaky judged checks</p>')
    if summary.costs.used:
        out.append(f'<p class="judge">{escape(cost_text(summary.costs.to_dict()))}</p>')
    return out
