"""A comparison of two runs as text, JSON and JUnit XML (`chatassert.compare.render_comparison`).

- text: the flips first (the first `SHOWN_FLIPS`, then how many more), a table per assertion
  (both runs' pass rates with their intervals, the drop, the counts that moved, the exact
  p-value, the mid-p value, the Holm-adjusted one and the verdict), the overall, the cases only
  one run has, judge cost and checking time side by side (when a run was judged), the gate;
- json: one document, `SCHEMA_VERSION`, described in docs/gate-a-change.md ("The JSON report");
- junit: one test case for the overall and one for each assertion that regressed or that a
  gate names, failing exactly where the gate fails (so CI's test view agrees with the exit
  code), and one for `any-flip` when it is a gate.

This module reads a `Comparison` by its attributes and never imports `chatassert.compare`
(which imports it when a report is asked for).

Docs: docs/gate-a-change.md. Tests: tests/compare/test_compare_reports.py.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chatassert._result import shorten
from chatassert.reporting._junit import _attr, _text
from chatassert.reporting._summary import cost_text
from chatassert.reporting._words import counted, number

if TYPE_CHECKING:
    from chatassert.compare import AssertionChange, Comparison, Flip, Key, Rate

__all__ = [
    "SCHEMA_VERSION",
    "SHOWN_FLIPS",
    "Gate",
    "case_name",
    "interval",
    "percent",
    "p_text",
    "render_json",
    "render_junit",
    "render_text",
    "verdict",
]

SCHEMA_VERSION = 1
"""The version of the JSON document (its `chatassert_compare` key)."""
SHOWN_FLIPS = 50
"""How many flips the text report lists before it counts the rest (JSON and HTML list all)."""

_ARROW = "→"
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Gate:
    """The gates applied to a comparison and their reasons to fail.

    Attributes:
        fail_on: The gates given (`regression`, `any-flip`).
        max_drop: The limits of drop per name.
        reasons: Each reason to fail, with the change it is about (an assertion's, the
            overall's, or None for `any-flip`).
    """

    fail_on: tuple[str, ...]
    max_drop: Mapping[str, float]
    reasons: tuple[tuple[AssertionChange | None, str], ...]

    @property
    def applied(self) -> bool:
        """Whether any gate was given."""
        return bool(self.fail_on or self.max_drop)

    @property
    def passed(self) -> bool:
        """Whether no gate fails."""
        return not self.reasons

    def about(self, change: AssertionChange | None) -> list[str]:
        """The reasons to fail that are about `change` (None: about no assertion)."""
        return [text for subject, text in self.reasons if subject is change]

    def names(self) -> set[str]:
        """The assertion names a gate looks at (`overall` for the whole case); every name
        when `regression` is a gate."""
        return {"overall" if name in ("*", "overall") else name for name in self.max_drop}


def percent(rate: float) -> str:
    """A rate as a percentage with one decimal; `—` for NaN (nothing counted).

    Example:
        >>> percent(0.25), percent(float("nan"))
        ('25.0%', '—')
    """
    return "—" if math.isnan(rate) else f"{rate:.1%}"


def interval(rate: Rate) -> str:
    """A rate's Wilson interval in percent, `[low, high]`.

    Example:
        >>> from chatassert.compare import Rate
        >>> interval(Rate(95, 100, 0.888, 0.9785))
        '[88.8, 97.9]'
    """
    return f"[{rate.low * 100:.1f}, {rate.high * 100:.1f}]"


def p_text(value: float) -> str:
    """A p-value with three significant digits, in scientific notation below 0.001.

    Example:
        >>> p_text(1.0), p_text(0.02148), p_text(0.0000123)
        ('1', '0.0215', '1.2e-05')
    """
    return f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"


def verdict(change: AssertionChange, alpha: float) -> str:
    """`regressed`, `improved` (significantly better, after Holm's adjustment) or `not
    significant`."""
    if change.regressed:
        return "regressed"
    if change.adjusted_p <= alpha and change.test.better > change.test.worse:
        return "improved"
    return "not significant"


def case_name(key: Key) -> str:
    """How the reports name a case: `suite / case [subject]`.

    Example:
        >>> case_name(("booking", "books a table", "run-1")), case_name(("s", "c", None))
        ('booking / books a table [run-1]', 's / c')
    """
    suite, case, subject = key
    return f"{suite} / {case}" + (f" [{subject}]" if subject is not None else "")


def _one_line(text: str, width: int = 200) -> str:
    return shorten(" ".join(text.split()), width)


def _drop(change: AssertionChange) -> str:
    if math.isnan(change.drop):
        return "—"
    return f"{change.drop * 100:.1f} pts"


def _rate_cell(rate: Rate) -> str:
    return f"{rate.passed}/{rate.total} {percent(rate.rate)} {interval(rate)}"


def _flip_lines(flip: Flip) -> list[str]:
    what = case_name(flip.key)
    if flip.assertion is not None:
        what += f" :: {flip.assertion}"
        if flip.spec_path is not None:
            what += f" ({flip.spec_path})"
    lines = [f"- {flip.change}: {what}: {flip.before} {_ARROW} {flip.after}"]
    for side, evidence in (("base", flip.evidence_before), ("new", flip.evidence_after)):
        if evidence:
            lines.append(f"    {side}: {_one_line(evidence)}")
    return lines


def _table(comparison: Comparison) -> list[str]:
    changes = [*comparison.assertions, comparison.overall]
    header = (
        "assertion",
        "base",
        "new",
        "drop",
        "worse",
        "better",
        "p",
        "mid-p",
        "Holm",
        "verdict",
    )
    rows = [
        (
            shorten(change.name, 40),
            _rate_cell(change.base),
            _rate_cell(change.new),
            _drop(change),
            str(change.test.worse),
            str(change.test.better),
            p_text(change.test.p_value),
            p_text(change.test.mid_p),
            p_text(change.adjusted_p),
            verdict(change, comparison.alpha),
        )
        for change in changes
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    right = {3, 4, 5, 6, 7, 8}

    def line(cells: Sequence[str]) -> str:
        return (
            "  "
            + "  ".join(
                c.rjust(w) if i in right else c.ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )

    out = [line(header)]
    out.extend(line(r) for r in rows[:-1])
    out.append("  " + "-" * (sum(widths) + 2 * (len(widths) - 1)))
    out.append(line(rows[-1]))
    extras = []
    for change in changes:
        errors = change.base_counts.get("error", 0), change.new_counts.get("error", 0)
        notes = []
        if any(errors):
            notes.append(f"errors {errors[0]} {_ARROW} {errors[1]} (counted as not passed)")
        skipped = change.base_counts.get("skipped", 0), change.new_counts.get("skipped", 0)
        if any(skipped):
            notes.append(f"skipped {skipped[0]} {_ARROW} {skipped[1]} (not counted)")
        if change.flaky:
            notes.append(f"{counted(change.flaky, 'flaky subject')} (repeated verdicts disagree)")
        if change.repeated:
            notes.append(f"{number(change.repeated)} compared by their share of passing samples")
        if notes:
            extras.append(f"  {change.name}: {'; '.join(notes)}")
    return out + extras


def _keys(title: str, keys: Sequence[Key]) -> list[str]:
    if not keys:
        return []
    return ["", f"{title} ({number(len(keys))}):", *(f"- {case_name(key)}" for key in keys)]


def _seconds(value: float) -> str:
    return f"{value:.3g} s"


def _cost_lines(cost: Mapping[str, Any]) -> list[str]:
    base, new = cost.get("base") or {}, cost.get("new") or {}
    if base.get("judge") is None and new.get("judge") is None:
        return []
    lines = ["", "judging, side by side:"]
    for side, data in (("base", base), ("new", new)):
        judge = data.get("judge")
        lines.append(f"  {side}: " + (cost_text(judge) if judge is not None else "no judge used"))
        seconds = data.get("seconds")
        if seconds is not None:
            lines.append(
                f"  {' ' * len(side)}  checking time {_seconds(seconds['total'])} "
                f"(median {_seconds(seconds['median'])}, p95 {_seconds(seconds['p95'])} per case)"
            )
    return lines


def _gate_lines(gate: Gate) -> list[str]:
    if not gate.applied:
        return []
    given = [f"--fail-on {name}" for name in gate.fail_on]
    given += [f"--max-drop {name}={limit:g}" for name, limit in gate.max_drop.items()]
    if gate.passed:
        return ["", f"gate passed ({', '.join(given)})"]
    return ["", f"gate failed ({', '.join(given)}):", *(f"- {text}" for _, text in gate.reasons)]


def render_text(comparison: Comparison, gate: Gate) -> str:
    """The comparison as the terminal shows it."""
    base = f"{comparison.base_path} (base)" if comparison.base_path else "the base rows"
    new = f"{comparison.new_path} (new)" if comparison.new_path else "the new rows"
    lines = [f"compared {base} with {new}"]
    flips = comparison.flips
    if flips:
        lines.append("")
        lines.append(f"flips ({number(len(flips))}):")
        for flip in flips[:SHOWN_FLIPS]:
            lines.extend(_flip_lines(flip))
        if len(flips) > SHOWN_FLIPS:
            rest = len(flips) - SHOWN_FLIPS
            lines.append(
                f"... and {counted(rest, 'more flip')} (the JSON and HTML reports list all)"
            )
    else:
        lines += ["", "no flips: every paired case and assertion has the status it had"]
    lines.append("")
    tests = sum(1 for c in (*comparison.assertions, comparison.overall) if c.pairs)
    legend = (
        f"per assertion, over the {counted(comparison.paired, 'paired case')}: pass rates with "
        f"{comparison.confidence:.0%} Wilson intervals; p: the exact McNemar test, mid-p "
        f"beside it; Holm: p adjusted across {counted(tests, 'test')}; regressed: Holm <= "
        f"alpha {comparison.alpha:g} and more worse than better:"
    )
    lines.extend(textwrap.wrap(legend, 100))
    lines.extend(_table(comparison))
    lines.extend(_keys("only in the base run", comparison.unpaired_base))
    lines.extend(_keys("only in the new run", comparison.unpaired_new))
    if comparison.notes:
        lines.append("")
        lines.extend(f"note: {note}" for note in comparison.notes)
    lines.extend(_cost_lines(comparison.cost))
    lines.extend(_gate_lines(gate))
    lines.append("")
    lines.append(_headline(comparison))
    # a lone surrogate (a log's "\ud800") cannot be written as UTF-8: shown as U+FFFD
    return _SURROGATE.sub("\ufffd", "\n".join(lines)) + "\n"


def _headline(comparison: Comparison) -> str:
    overall = comparison.overall
    regressed = comparison.regressions()
    text = (
        f"{counted(comparison.paired, 'case')} paired: overall {percent(overall.base.rate)} "
        f"{_ARROW} {percent(overall.new.rate)}, {counted(len(comparison.flips), 'flip')}"
    )
    if regressed:
        return text + f"; regressed: {', '.join(c.name for c in regressed)}"
    return text + "; no significant regression"


# -- JSON ------------------------------------------------------------------------------------


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _rate_json(rate: Rate, counts: Mapping[str, int]) -> dict[str, Any]:
    return {
        "passed": rate.passed,
        "total": rate.total,
        "rate": _number(rate.rate),
        "low": rate.low,
        "high": rate.high,
        "counts": dict(counts),
    }


def _change_json(change: AssertionChange, alpha: float) -> dict[str, Any]:
    return {
        "name": change.name,
        "base": _rate_json(change.base, change.base_counts),
        "new": _rate_json(change.new, change.new_counts),
        "drop": _number(change.drop),
        "worse": change.test.worse,
        "better": change.test.better,
        "p_value": change.test.p_value,
        "mid_p": change.test.mid_p,
        "adjusted_p": change.adjusted_p,
        "regressed": change.regressed,
        "verdict": verdict(change, alpha),
        "flaky": change.flaky,
        "repeated": change.repeated,
    }


def _flip_json(flip: Flip) -> dict[str, Any]:
    suite, case, subject = flip.key
    return {
        "suite": suite,
        "case": case,
        "subject_id": subject,
        "assertion": flip.assertion,
        "spec_path": flip.spec_path,
        "before": flip.before,
        "after": flip.after,
        "change": flip.change,
        "evidence_before": flip.evidence_before,
        "evidence_after": flip.evidence_after,
    }


def comparison_json(comparison: Comparison, gate: Gate) -> dict[str, Any]:
    """The JSON document of a comparison, as a value (`render_json` writes it)."""
    return {
        "chatassert_compare": SCHEMA_VERSION,
        "base": {"path": comparison.base_path, **dict(comparison.cost.get("base") or {})},
        "new": {"path": comparison.new_path, **dict(comparison.cost.get("new") or {})},
        "alpha": comparison.alpha,
        "confidence": comparison.confidence,
        "paired": comparison.paired,
        "overall": _change_json(comparison.overall, comparison.alpha),
        "assertions": [_change_json(c, comparison.alpha) for c in comparison.assertions],
        "flips": [_flip_json(flip) for flip in comparison.flips],
        "unpaired": {
            "base": [list(key) for key in comparison.unpaired_base],
            "new": [list(key) for key in comparison.unpaired_new],
        },
        "notes": list(comparison.notes),
        "gate": {
            "fail_on": list(gate.fail_on),
            "max_drop": dict(gate.max_drop),
            "passed": gate.passed,
            "failed": [text for _, text in gate.reasons],
        },
    }


def render_json(comparison: Comparison, gate: Gate) -> str:
    """The comparison as one JSON document (a line of its own, newline included)."""
    from chatassert.reporting._summary import json_line

    return json_line(comparison_json(comparison, gate))


# -- JUnit -----------------------------------------------------------------------------------


def _details(change: AssertionChange, comparison: Comparison) -> str:
    lines = [
        f"base: {_rate_cell(change.base)}",
        f"new:  {_rate_cell(change.new)}",
        f"drop: {_drop(change)}; {change.test.worse} worse, {change.test.better} better",
        f"p {p_text(change.test.p_value)} (exact McNemar), mid-p {p_text(change.test.mid_p)}, "
        f"Holm-adjusted {p_text(change.adjusted_p)}: {verdict(change, comparison.alpha)}",
    ]
    name = None if change is comparison.overall else change.name
    flips = [f for f in comparison.flips if f.assertion == name]
    if flips:
        lines.append("flips:")
        for flip in flips[:SHOWN_FLIPS]:
            lines.extend(_flip_lines(flip))
        if len(flips) > SHOWN_FLIPS:
            lines.append(f"... and {counted(len(flips) - SHOWN_FLIPS, 'more flip')}")
    return "\n".join(lines)


def render_junit(comparison: Comparison, gate: Gate) -> str:
    """The comparison as a JUnit XML document: a test case per gated or regressed assertion
    and the overall, failing where the gate fails."""
    every = "regression" in gate.fail_on
    named = gate.names()
    cases: list[tuple[str, str, list[str]]] = []
    for change in (comparison.overall, *comparison.assertions):
        is_overall = change is comparison.overall
        key = "overall" if is_overall else change.name
        if not (is_overall or every or change.regressed or change.name in named):
            continue
        cases.append((key, _details(change, comparison), gate.about(change)))
    if "any-flip" in gate.fail_on:
        body = "\n".join(
            line for flip in comparison.flips[:SHOWN_FLIPS] for line in _flip_lines(flip)
        )
        cases.append(("any-flip", body or "no flips", gate.about(None)))
    failures = sum(1 for _, _, reasons in cases if reasons)
    title = f"compare {comparison.base_path or 'base'} {_ARROW} {comparison.new_path or 'new'}"
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="chatassert compare" tests="{len(cases)}" failures="{failures}">',
        f'  <testsuite name={_attr(title)} tests="{len(cases)}" failures="{failures}" errors="0">',
    ]
    for name, body, reasons in cases:
        out.append(f'    <testcase classname="chatassert.compare" name={_attr(name)}>')
        if reasons:
            message = "; ".join(reasons)
            out.append(
                f'      <failure message={_attr(shorten(message, 500))} type="gate">'
                f"{_text(message + chr(10) + body)}</failure>"
            )
        else:
            out.append(f"      <system-out>{_text(body)}</system-out>")
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"
