"""Calibration of judged checks against people: agreement, precision, recall and Cohen's kappa.

`chatassert validate SUITE LABELS.jsonl [LOGS...]` pairs each human label (a record, an
assertion, `pass` or `fail`) with the judged verdict the JSON report of a run holds for that
record and assertion, and measures, per assertion, how far the judge agrees with the people.
A pass is the positive class: precision is the share of the judge's passes that people passed
too (a low one lets bad replies through a gate), recall the share of the people's passes the
judge passed.

Docs: docs/judges.md ("Calibrating a judge against people"). Tests: tests/judges/test_validate.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chatassert._jsonlines import json_lines, not_utf8
from chatassert._result import shorten

__all__ = [
    "Calibration",
    "Label",
    "LabelsError",
    "calibrate",
    "cohen_kappa",
    "read_labels",
    "render_text",
]

_VERDICTS = ("pass", "fail")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Label:
    """One human verdict: a record (`file:line` or subject id), an assertion (its name, else its
    kind) and `pass` or `fail`."""

    record: str
    assertion: str
    human: str


class LabelsError(ValueError):
    """A labels file with problems: `problems` lists each (`file:line: what ...`), and the
    message joins them, a line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def _label(line: str) -> Label | str:
    """The label a line holds, or what is wrong with it."""
    stray = not_utf8(line)
    if stray is not None:
        return stray
    try:
        value = json.loads(line)
    except RecursionError:
        return "the line nests too deeply to read (expected an object of three strings)"
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg} at column {exc.colno})"
    except ValueError as exc:  # an integer of more digits than Python converts
        return f"not JSON ({str(exc).split(';')[0]})"
    if not isinstance(value, Mapping):
        return f"expected an object, found {type(value).__name__}"
    for key in ("record", "assertion"):
        if not isinstance(value.get(key), str) or not value[key].strip():
            return f"'{key}' must be a non-empty string"
    human = value.get("human")
    if human not in _VERDICTS:
        return f"'human' must be 'pass' or 'fail', found {shorten(repr(human), 40)}"
    return Label(value["record"], value["assertion"], human)


def read_labels(text: str, where: str = "labels") -> list[Label]:
    r"""Parse a labels file: one JSON object per line with `record`, `assertion` and `human`.

    Lines end at `\n` only (JSON Lines): a U+2028 inside a string is part of its line. Text
    read with `errors="surrogateescape"` has its stray bytes named by their line.

    Raises:
        LabelsError: a `ValueError` listing every line that is wrong, by its place.

    Example:
        >>> read_labels('{"record": "log.jsonl:2", "assertion": "polite", "human": "fail"}')
        [Label(record='log.jsonl:2', assertion='polite', human='fail')]
    """
    labels = []
    problems = []
    for number, line in json_lines(text):
        label = _label(line)
        if isinstance(label, str):
            problems.append(f"{where}:{number}: {label}")
        else:
            labels.append(label)
    if problems:
        raise LabelsError(problems)
    return labels


def cohen_kappa(tp: int, fp: int, fn: int, tn: int) -> float | None:
    """Cohen's kappa of two raters over pass/fail: `(po - pe) / (1 - pe)`; None when chance
    agreement is certain (both always gave one verdict), where kappa is undefined.

    Example:
        >>> round(cohen_kappa(20, 5, 10, 15), 3), cohen_kappa(4, 0, 0, 0)
        (0.4, None)
    """
    n = tp + fp + fn + tn
    if not n:
        return None
    observed = (tp + tn) / n
    chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1 - chance)


@dataclass
class Calibration:
    """How far the judge agrees with people on one assertion.

    Attributes:
        assertion: The assertion's name (or kind) as the labels give it.
        labelled: Labels for it.
        no_verdict: Labelled records whose judged check gave no verdict (an error, a skip).
        unmatched: Labels whose record or assertion the report does not have.
        tp, fp, fn, tn: Human/judge pairs: pass/pass, fail/pass, pass/fail, fail/fail.
        disagreements: `{record, assertion, human, judge, reason}` where they differ.
    """

    assertion: str
    labelled: int = 0
    no_verdict: int = 0
    unmatched: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    disagreements: list[dict[str, str]] = field(default_factory=list)

    @property
    def judged(self) -> int:
        """Labels paired with a judged verdict."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def agreement(self) -> float | None:
        """The share of judged labels where the judge agreed with people."""
        return (self.tp + self.tn) / self.judged if self.judged else None

    @property
    def precision(self) -> float | None:
        """Of the judge's passes, the share people passed (None without a judged pass)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """Of the people's passes, the share the judge passed (None without a human pass)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa (see `cohen_kappa`)."""
        return cohen_kappa(self.tp, self.fp, self.fn, self.tn)

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-ready."""
        return {
            "assertion": self.assertion,
            "labelled": self.labelled,
            "judged": self.judged,
            "no_verdict": self.no_verdict,
            "unmatched": self.unmatched,
            "agreement": self.agreement,
            "precision": self.precision,
            "recall": self.recall,
            "kappa": self.kappa,
            "counts": {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn},
            "disagreements": self.disagreements,
        }


_JUDGED_KINDS = ("repeat", "ensemble")


def _judged_nodes(node: Mapping[str, Any], name: str) -> Iterable[Mapping[str, Any]]:
    """The judged nodes of a stored result tree that `name` names (its message or kind)."""
    judged = node.get("name") in _JUDGED_KINDS or "judge" in (node.get("details") or {})
    if judged and name in (node.get("message"), node.get("name")):
        yield node
        return
    for child in node.get("children") or ():
        if isinstance(child, Mapping):
            yield from _judged_nodes(child, name)


def _verdict(nodes: list[Mapping[str, Any]]) -> tuple[str | None, str]:
    """The judge's verdict over a record's nodes of one assertion (fail if any failed, pass if
    the rest passed, None when none gave a verdict) and the reason to show."""
    statuses = [n.get("status") for n in nodes]
    for wanted, verdict in (("failed", "fail"), ("passed", "pass")):
        if wanted in statuses:
            first = nodes[statuses.index(wanted)]
            if verdict == "pass" and any(s not in ("passed",) for s in statuses):
                return None, str(first.get("reason", ""))
            return verdict, str(first.get("reason", ""))
    return None, str(nodes[0].get("reason", "")) if nodes else ""


def calibrate(lines: Iterable[Mapping[str, Any]], labels: Iterable[Label]) -> list[Calibration]:
    """Pair `labels` with the outcomes of a JSON report (`lines`, its outcome objects) and
    measure the agreement per assertion, in the order the labels first name them.

    A record is named by its `source` (`file:line`) or its `subject_id`.

    Example:
        >>> line = {"source": "log.jsonl:1", "subject_id": "c1", "result": {
        ...     "status": "failed", "name": "llm_rubric", "reason": "rude",
        ...     "details": {"judge": "gpt"}}}
        >>> [c] = calibrate([line], [Label("c1", "llm_rubric", "pass")])
        >>> c.fn, c.agreement, c.disagreements[0]["judge"]
        (1, 0.0, 'fail')
    """
    by_record: dict[str, list[Mapping[str, Any]]] = {}
    for line in lines:
        result = line.get("result")
        if not isinstance(result, Mapping):
            continue
        for key in (line.get("source"), line.get("subject_id")):
            if isinstance(key, str):
                by_record.setdefault(key, []).append(result)
    out: dict[str, Calibration] = {}
    for label in labels:
        cal = out.setdefault(label.assertion, Calibration(label.assertion))
        cal.labelled += 1
        nodes = [
            n
            for result in by_record.get(label.record, ())
            for n in _judged_nodes(result, label.assertion)
        ]
        if not nodes:
            cal.unmatched += 1
            continue
        judge, reason = _verdict(nodes)
        if judge is None:
            cal.no_verdict += 1
            continue
        pair = (label.human, judge)
        if pair == ("pass", "pass"):
            cal.tp += 1
        elif pair == ("fail", "pass"):
            cal.fp += 1
        elif pair == ("pass", "fail"):
            cal.fn += 1
        else:
            cal.tn += 1
        if label.human != judge:
            cal.disagreements.append(
                {
                    "record": label.record,
                    "assertion": label.assertion,
                    "human": label.human,
                    "judge": judge,
                    "reason": reason,
                }
            )
    return list(out.values())


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render_text(calibrations: Iterable[Calibration]) -> str:
    """The calibration as text: one block per assertion, with its disagreements (a lone
    surrogate shown as U+FFFD, as the text report of a run shows it)."""
    lines = []
    for cal in calibrations:
        lines.append(
            f"{cal.assertion}: {cal.labelled} labelled, {cal.judged} judged, "
            f"{cal.no_verdict} without a verdict, {cal.unmatched} unmatched"
        )
        lines.append(
            f"  agreement {_number(cal.agreement)}  precision {_number(cal.precision)}  "
            f"recall {_number(cal.recall)}  kappa {_number(cal.kappa)}"
        )
        lines.append(
            f"  human/judge: pass/pass {cal.tp}  fail/pass {cal.fp}  "
            f"pass/fail {cal.fn}  fail/fail {cal.tn}"
        )
        for d in cal.disagreements:
            lines.append(
                f"  - {d['record']}: human {d['human']}, judge {d['judge']}: {d['reason']}"
            )
    # a lone surrogate (JSON "\ud800" in a report) cannot be written as UTF-8, as in the
    # text report of a run
    return _SURROGATE.sub("\ufffd", "\n".join(lines)) + "\n"
