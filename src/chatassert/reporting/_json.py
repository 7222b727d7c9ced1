"""The JSON report: one line per case outcome, compact by default.

A compact result tree keeps, for every node, its `status`, `name` and the fields that place and
label it (`message`, `score`, `location`, `duration`, `spec_name` and `spec_path`: the name
and place its spec file gives it, `children`), and the details re-gating
reads (`GATE_KEYS`: a judged check's `threshold`, a repeat's `aggregate`, an at_least's
`needed`); the `reason`,
`details` and evidence (`pointer`, `span`, `excerpt`) are kept only for nodes that did not
pass (failed, error, skipped), which are the ones a reader needs explained. `--full-results`
writes every node in full (`Result.to_dict`).

Lines are written by hand from pieces rather than through a dict and `json.dumps`: a batch run
writes hundreds of thousands of them, and most of their nodes are identical passing leaves,
whose text is built once and reused. The text is exactly `json_line(outcome.to_dict(...))`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import TYPE_CHECKING, Any

from chatassert._jsonlines import escape_for_lines
from chatassert._result import ReadOnlyDict, Result, Status, strict_json

if TYPE_CHECKING:
    from chatassert._rows import Row
    from chatassert.reporting._formats import ReportOptions, Writable
    from chatassert.reporting._summary import Outcome, Summary

__all__ = ["JSON", "compact_result", "report_line", "report_schema", "result_json", "summary_line"]

_PASSED = Status.PASSED
_LEAVES_KEPT = 4096  # distinct passing leaves whose text is remembered (then forgotten, all)


_GATE_ORDER = ("threshold", "aggregate", "needed")
GATE_KEYS = frozenset(_GATE_ORDER)
"""The details a compact report keeps for a passing node: a judged check's `threshold`, and the
rule parameters of a `repeat` (`aggregate`) and an `at_least` (`needed`), which re-gating reads."""


def _gate_details(details: Mapping[str, Any]) -> dict[str, Any]:
    if not details:
        return {}
    return {k: details[k] for k in _GATE_ORDER if k in details}


def compact_result(result: Result) -> dict[str, Any]:
    """Return the compact JSON form of a result tree: `reason` and `details` only where a node
    did not pass.

    Example:
        >>> from chatassert import Contains
        >>> compact_result(Contains("Paris").check("Rome"))["reason"]
        "Response does not contain 'Paris'"
        >>> compact_result(Contains("Paris").check("Paris"))
        {'status': 'passed', 'name': 'contains'}
    """
    if result.status is not _PASSED:
        out = result.to_dict()
        out.pop("children", None)
    else:
        out = {"status": result.status.value, "name": result.name}
        kept = _gate_details(result.details)
        if kept:  # a judged check or a rule over them: what re-gating it needs
            out["details"] = kept
        result._optional_fields(out, evidence=False)  # evidence only where it did not pass
    if result.children:
        out["children"] = [compact_result(c) for c in result.children]
    return out


def _default(value: object) -> Any:
    """What `json.dumps` writes for a value it cannot: a mapping as a dict, else its repr."""
    if isinstance(value, Mapping):
        return dict(value)
    return repr(value)


_dumps = json.JSONEncoder(ensure_ascii=False, default=repr).encode
_strict_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=_default).encode
_make = (  # the C encoder, made once rather than once per value (CPython has it)
    None
    if c_make_encoder is None
    else c_make_encoder(None, _default, encode_basestring, None, ": ", ", ", False, False, False)
)


def _strict(value: Any) -> str:
    """`value` as strict JSON (`ValueError` for NaN or an infinity)."""
    if _make is None:  # pragma: no cover
        return _strict_dumps(value)
    try:
        return "".join(_make(value, 0))
    except RecursionError:  # a value that holds itself: as `json.dumps` words it
        return _strict_dumps(value)


def _value(value: Any) -> str:
    """One JSON value, as `json_line` writes it inside a record."""
    if type(value) is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    try:
        return _strict(value)
    except ValueError:  # NaN or an infinity: written as strings, as `strict_json` does
        return _dumps(strict_json(value))


_COUNT_KEYS = ("passed", "failed", "error", "skipped")


def _details(details: Mapping[str, Any]) -> str:
    """A node's details as `_value` writes them; a group's status counts (most of the details
    a report writes) without the encoder."""
    if type(details) is dict and tuple(details) == _COUNT_KEYS:
        p, f, e, s = details.values()
        if type(p) is int and type(f) is int and type(e) is int and type(s) is int:
            return f'{{"passed": {p}, "failed": {f}, "error": {e}, "skipped": {s}}}'
    return _value(details)


class _Writer:
    """Writes result trees as JSON text, remembering the text of leaves seen before.

    A leaf's text is remembered under its fields when it cannot change: a passing leaf's
    (status, name, message, location), a failing one's only when its details are empty or
    those of a shared result (which are read-only, and kept with the text so their id is
    not reused).
    """

    def __init__(self) -> None:
        self.leaves: dict[tuple[Any, ...], tuple[Any, str]] = {}
        self.shared: dict[int, tuple[Result, str]] = {}

    def tree(self, result: Result, full: bool) -> str:
        if full:
            return _value(result.to_dict())
        return self._node(result)

    def _node(self, r: Result) -> str:
        fields = r.__dict__  # what a result was given; absent fields hold their defaults
        if "_shared" in fields:  # a constant outcome (a whole subtree, often): written once
            known = self.shared.get(id(r))
            if known is not None and known[0] is r:
                return known[1]
            text = self._tree(r, fields)
            if len(self.shared) >= _LEAVES_KEPT:
                self.shared.clear()
            self.shared[id(r)] = (r, text)
            return text
        return self._tree(r, fields)

    def _tree(self, r: Result, fields: dict[str, Any]) -> str:
        children = fields.get("children")
        passed = fields["status"] is _PASSED
        if (
            "score" in fields
            or "duration" in fields
            or (fields["details"] and not GATE_KEYS.isdisjoint(fields["details"]))
        ):
            text = self._head(r, passed)
        elif children is None:  # a leaf
            return self._leaf(r, fields, passed)
        elif passed:  # a group that passed: its head is remembered
            key = (
                fields["name"],
                fields.get("message"),
                fields.get("location"),
                fields.get("spec_name"),
                fields.get("spec_path"),
                None,
            )
            known = self.leaves.get(key)
            if known is None:
                if len(self.leaves) >= _LEAVES_KEPT:
                    self.leaves.clear()
                known = self.leaves[key] = (None, self._head(r, passed))
            text = known[1]
        else:
            text = self._head(r, passed)
        if not children:
            return text + "}"
        leaves = self.leaves
        parts = []
        for child in children:
            cf = child.__dict__
            if (
                cf["status"] is _PASSED
                and "location" in cf
                and len(cf) - ("_shared" in cf) - ("spec_name" in cf) - ("spec_path" in cf) == 5
            ):  # the commonest node: a passing leaf placed in the subject (and in its spec)
                seen = (cf["name"], None, cf["location"], cf.get("spec_name"), cf.get("spec_path"))
                known = leaves.get(seen)
                if known is not None:
                    parts.append(known[1])
                    continue
            parts.append(self._node(child))
        return text + ', "children": [' + ", ".join(parts) + "]}"

    def _leaf(self, r: Result, fields: dict[str, Any], passed: bool) -> str:
        """A childless node without score or duration: its text is remembered."""
        details = fields["details"]
        if passed:
            key: tuple[Any, ...] = (
                fields["name"],
                fields.get("message"),
                fields.get("location"),
                fields.get("spec_name"),
                fields.get("spec_path"),
            )
        elif (not details or type(details) is ReadOnlyDict) and "span" not in fields:
            key = (
                fields["status"],
                fields["name"],
                fields["reason"],
                id(details),
                fields.get("message"),
                fields.get("location"),
                fields.get("pointer"),
                fields.get("spec_name"),
                fields.get("spec_path"),
            )
        else:
            return self._head(r, passed) + "}"
        known = self.leaves.get(key)
        if known is not None and (passed or known[0] is details):
            return known[1]
        if len(self.leaves) >= _LEAVES_KEPT:
            self.leaves.clear()
        text = self._head(r, passed) + "}"
        self.leaves[key] = (details, text)
        return text

    @staticmethod
    def _head(r: Result, passed: bool) -> str:
        """A node's fields but its children, not closed: without reason and details when it
        passed."""
        name = r.name
        text = '{"status": "' + r.status.value + '", "name": '
        text += encode_basestring(name) if type(name) is str else _value(name)
        if not passed:
            details = r.details
            text += ', "reason": ' + _value(r.reason) + ', "details": '
            text += _details(details) if details else "{}"
        else:
            kept = _gate_details(r.details)
            if kept:
                text += ', "details": ' + _value(kept)
        if r.message is not None:
            text += ', "message": ' + _value(r.message)
        if r.score is not None:
            text += ', "score": ' + _value(r.score)
        if r.location is not None:
            text += ', "location": ' + _value(r.location)
        if r.duration is not None:
            text += ', "duration": ' + _value(r.duration)
        if r.spec_name is not None:
            text += ', "spec_name": ' + _value(r.spec_name)
        if r.spec_path is not None:
            text += ', "spec_path": ' + _value(r.spec_path)
        if not passed and r.pointer is not None:
            text += ', "pointer": ' + _value(r.pointer)
            if r.span is not None:
                text += ', "span": ' + _value(list(r.span))
            if r.excerpt is not None:
                text += ', "excerpt": ' + _value({"offset": r.excerpt[0], "text": r.excerpt[1]})
        return text


_WRITER = _Writer()


def result_json(result: Result, *, full: bool = False) -> str:
    """The JSON text of a result tree as the JSON report writes it: compact by default
    (`compact_result`), every node in full with `full=True`.

    Example:
        >>> from chatassert import Contains
        >>> result_json(Contains("a").check("abc"))
        '{"status": "passed", "name": "contains"}'
    """
    return _WRITER.tree(result, full)


def report_line(outcome: Outcome, *, full: bool = False) -> str:
    """Render one outcome as a line of the JSON report, newline included: compact by default,
    every node in full with `full=True`. Equal to `json_line(outcome.to_dict(compact=not full))`.

    Example:
        >>> from chatassert import Contains
        >>> from chatassert.reporting import Outcome
        >>> print(report_line(Outcome("s", "c", Contains("a").check("abc"), "log:1")), end="")
        {"suite": "s", "case": "c", "source": "log:1", "subject_id": null, "result": {"status": "passed", "name": "contains"}}
    """  # noqa: E501
    line = (
        '{"suite": '
        + _value(outcome.suite)
        + ', "case": '
        + _value(outcome.case)
        + ', "source": '
        + _value(outcome.source)
        + ', "subject_id": '
        + _value(outcome.subject_id)
        + ', "result": '
        + _WRITER.tree(outcome.result, full)
    )
    if outcome.recorded is not None:
        line += ', "recorded": ' + _value(list(outcome.recorded))
        line += ', "disagreements": ' + _value(list(outcome.disagreements or ()))
    if outcome.cost is not None:
        line += ', "cost": ' + _value(dict(outcome.cost))
    if outcome.matched_by is not None:
        line += ', "matched_by": ' + _value(outcome.matched_by)
    if outcome.match_note is not None:
        line += ', "match_note": ' + _value(outcome.match_note)
    line += "}\n"
    return escape_for_lines(line)


def report_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of one line of the JSON report (`--format json`):
    a case outcome (its result tree compact, or full with `--full-results`), an unreadable
    line, an unmatched subject, a suite-level gate, or the final summary."""
    from chatassert._suite import MATCHED_BY

    full = Result.json_schema()["$defs"]["result"]
    compact = {
        "type": "object",
        "required": ["status", "name"],
        "additionalProperties": False,
        "properties": {
            **{k: v for k, v in full["properties"].items() if k != "children"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/compact_result"}},
        },
        "if": {"properties": {"status": {"enum": ["failed", "error", "skipped"]}}},
        "then": {"required": ["reason", "details"]},
    }
    count = {"type": "integer", "minimum": 0}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://chatassert.dev/schema/report-line.json",
        "title": "chatassert JSON report line",
        "oneOf": [
            {"$ref": "#/$defs/outcome"},
            {
                "type": "object",
                "required": ["unreadable", "error"],
                "additionalProperties": False,
                "properties": {"unreadable": {"type": "string"}, "error": {"type": "string"}},
            },
            {
                "type": "object",
                "required": ["unmatched", "suite"],
                "additionalProperties": False,
                "properties": {
                    "unmatched": {"type": "string"},
                    "suite": {"type": "string"},
                    "subject_id": {"type": "string"},
                    "reason": {"type": "string"},
                },
            },
            {
                "type": "object",
                "required": ["summary"],
                "additionalProperties": False,
                "properties": {
                    "summary": {
                        "type": "object",
                        "required": ["passed", "failed", "error", "skipped", "records"],
                        "properties": {
                            **dict.fromkeys(("passed", "failed", "error", "skipped"), count),
                            "unreadable": count,
                            "unmatched": count,
                            "records": {"type": ["integer", "null"], "minimum": 0},
                            "interrupted": {"type": "boolean"},
                            "flaky": count,
                            "judge": {"$ref": "#/$defs/cost"},
                            "gates": {
                                "type": "object",
                                "description": "how many of the suites' gates passed, "
                                "failed, errored, were skipped (with gates only)",
                                "properties": dict.fromkeys(
                                    ("passed", "failed", "error", "skipped"), count
                                ),
                            },
                        },
                    }
                },
            },
            {
                "type": "object",
                "description": "a suite-level gate (docs/specs.md, 'Gates'): its result, named "
                "'gate', its message what it requires, its reason what the run showed, its "
                "details the counts (passed, total, rate), the threshold and the observed "
                "value compared with it; written before the summary line",
                "required": ["gate", "suite"],
                "additionalProperties": False,
                "properties": {
                    "gate": {"$ref": "#/$defs/result"},
                    "suite": {"type": ["string", "null"]},
                },
            },
        ],
        "$defs": {
            "outcome": {
                "type": "object",
                "required": ["suite", "case", "source", "subject_id", "result"],
                "additionalProperties": False,
                "properties": {
                    "suite": {"type": "string"},
                    "case": {"type": "string"},
                    "source": {"type": "string"},
                    "subject_id": {"type": ["string", "null"]},
                    "result": {
                        "anyOf": [{"$ref": "#/$defs/result"}, {"$ref": "#/$defs/compact_result"}]
                    },
                    "recorded": {"type": "array", "items": {"type": "object"}},
                    "disagreements": {"type": "array", "items": {"type": "object"}},
                    "cost": {"$ref": "#/$defs/cost"},
                    "matched_by": {
                        "enum": list(MATCHED_BY),
                        "description": "why the subject was checked against this case: "
                        + "; ".join(f"{k}: {v}" for k, v in MATCHED_BY.items()),
                    },
                    "match_note": {
                        "type": "string",
                        "description": "what the pairing leaves to notice (a one-case suite "
                        "checking a conversation whose id is not the case's)",
                    },
                },
            },
            "cost": {
                "type": "object",
                "required": ["requests", "cached", "avoided", "tokens_in", "tokens_out", "cost"],
                "additionalProperties": False,
                "properties": {
                    **dict.fromkeys(
                        ("requests", "cached", "avoided", "tokens_in", "tokens_out", "unpriced"),
                        count,
                    ),
                    "cost": {"type": ["number", "null"], "minimum": 0},
                },
            },
            "result": full,
            "compact_result": compact,
        },
    }


def summary_line(summary: Summary) -> str:
    """The JSON report's last line: the run's counts (and its flaky count and what judging
    cost, when there is any)."""
    totals = {s: summary.counts[s] for s in ("passed", "failed", "error", "skipped")}
    return (
        json.dumps(
            {
                "summary": {
                    **totals,
                    "unreadable": summary.unreadable_count,
                    "unmatched": summary.unmatched,
                    "records": summary.records,
                    "interrupted": summary.interrupted,
                    **({"flaky": summary.flaky} if summary.flaky else {}),
                    **({"judge": summary.costs.to_dict()} if summary.costs.used else {}),
                    **({"gates": _gate_counts(summary.gates)} if summary.gates else {}),
                }
            }
        )
        + "\n"
    )


def _gate_counts(results: list[Result]) -> dict[str, int]:
    """The summary line's `gates`: how many gates passed, failed, errored, were skipped."""
    from chatassert.reporting._gate_reports import gate_counts

    return gate_counts(results)


def _record_line(key: str, source: str, other: str, value: str) -> str:
    """The line of a record that gave no case outcome (`{"unreadable": ..., "error": ...}`,
    `{"unmatched": ..., "suite": ...}`), as `json_line` writes it."""
    line = "{" + encode_basestring(key) + ": " + _value(source) + ", "
    line += encode_basestring(other) + ": " + _value(value) + "}\n"
    return escape_for_lines(line)


class _JsonReport:
    """A JSON Lines report: each row's line as it comes, then the summary line."""

    def __init__(self, out: Writable) -> None:
        self.out = out

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Write the row's line: its rendering, else the line of its kind."""
        line = rendered.get("json")
        if line is None:
            if row.kind == "unreadable":
                error = row.error if row.error is not None else "unreadable"
                line = _record_line("unreadable", row.source, "error", error)
            elif row.subject_id is None and row.error is None:
                line = _record_line("unmatched", row.source, "suite", row.suite or "")
            else:  # with the subject's id and why no case matches it
                line = (
                    '{"unmatched": ' + _value(row.source) + ', "suite": ' + _value(row.suite or "")
                )
                if row.subject_id is not None:
                    line += ', "subject_id": ' + _value(row.subject_id)
                if row.error is not None:
                    line += ', "reason": ' + _value(row.error)
                line = escape_for_lines(line + "}\n")
        self.out.write(line)

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Write a line per gate of the suites (`{"gate": ..., "suite": ...}`), then the
        summary line."""
        for gate in summary.gates:  # `{"gate": <its result>, "suite": <its suite's name>}`
            suite = gate.details.get("suite")
            line = '{"gate": ' + _value(gate.to_dict()) + ', "suite": ' + _value(suite) + "}\n"
            self.out.write(escape_for_lines(line))
        self.out.write(summary_line(summary))


class _Json:
    """The JSON report (`--format json`): JSON Lines, a line per case outcome as produced,
    one per unreadable or unmatched record, then the summary."""

    name = "json"
    extensions = (".json", ".jsonl", ".ndjson")
    description = (
        "JSON Lines: one JSON object per line, every case result as produced, then a summary"
    )
    rows = "streamed"
    excerpts = False
    needs_subject = False

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """The outcome's line (`report_line`)."""
        return {"json": report_line(outcome, full=options.full_results)}

    def open(self, out: Writable, options: ReportOptions) -> _JsonReport:
        """Start a JSON report to `out`."""
        return _JsonReport(out)


JSON = _Json()
"""The JSON report format."""
