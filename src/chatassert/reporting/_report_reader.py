"""Reading a JSON report back (`regate`, `validate --report`): every line checked before use.

A line of the JSON report is an outcome, an unreadable record, an unmatched subject or the
summary (`report_schema`). `read_report` checks each line against that shape, unknown keys
aside, and lists every problem by its place (`report.jsonl:3: result.children[0].score is the
string 'high' (expected a number)`), so a hand-edited or corrupt report is a usage error that
says where, never a crash half way through a command or a wrong exit code. A line nested
deeper than `REPORT_DEPTH` levels is refused too: the result trees a run writes are far
shallower, and the commands that read them back walk them recursively.

Lines end at `\\n` only (`chatassert._jsonlines`): a U+2028 a string holds is part of its line.
A report is read with `errors="surrogateescape"`, so a stray byte is a problem of its line.

Docs: docs/judges.md ("Re-gating stored results"). Tests: tests/reporting/test_report_reader.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from chatassert._jsonlines import json_lines, nesting_over, not_utf8
from chatassert._result import Status, shorten

__all__ = [
    "REPORT_DEPTH",
    "SHOWN_PROBLEMS",
    "read_report",
    "result_problems",
    "row_kind",
    "say_problems",
]

REPORT_DEPTH = 400
"""The deepest a line of a report read back may nest (a result tree about half as deep)."""

SHOWN_PROBLEMS = 20
"""How many problems `say_problems` lists before it counts the rest."""

_STATUSES = tuple(s.value for s in Status)
_NOT_PASSED = ("failed", "error", "skipped")
_NON_FINITE = ("Infinity", "-Infinity", "NaN")


def _kind(value: object) -> str:
    """How a message names a JSON value: its type, and the value itself when short."""
    if value is None:
        return "null"
    if value is True or value is False:
        return str(value).lower()
    if isinstance(value, int | float):
        return f"the number {shorten(repr(value), 40)}"
    if isinstance(value, str):
        return f"the string {shorten(repr(value), 40)}"
    return "a list" if isinstance(value, list) else "an object"


def _is_count(value: object) -> bool:
    """A JSON Schema integer from 0 (`2.0` is one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return (isinstance(value, int) or value.is_integer()) and value >= 0


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_Check = tuple[str, Callable[[Any], bool]]

_STRING: _Check = ("a string", lambda v: isinstance(v, str))
_STRING_OR_NULL: _Check = ("a string or null", lambda v: v is None or isinstance(v, str))
_OBJECT: _Check = ("an object", lambda v: isinstance(v, dict))
_COUNT: _Check = ("a whole number from 0", _is_count)
_COUNT_OR_NULL: _Check = ("a whole number from 0, or null", lambda v: v is None or _is_count(v))
_BOOLEAN: _Check = ("true or false", lambda v: isinstance(v, bool))
_OBJECTS: _Check = (
    "a list of objects",
    lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
)
_SCORE: _Check = (
    "a number, or 'Infinity', '-Infinity' or 'NaN'",
    lambda v: _is_number(v) or v in _NON_FINITE,
)
_DURATION: _Check = ("a number from 0", lambda v: _is_number(v) and not v < 0)
_SPAN: _Check = (
    "two whole numbers from 0",
    lambda v: isinstance(v, list) and len(v) == 2 and all(_is_count(x) for x in v),
)
_EXCERPT: _Check = (
    "an object with a whole 'offset' from 0 and a string 'text'",
    lambda v: isinstance(v, dict) and _is_count(v.get("offset")) and isinstance(v.get("text"), str),
)
_COST_OR_NULL: _Check = (
    "a number from 0, or null",
    lambda v: v is None or (_is_number(v) and not v < 0),
)

_RESULT_FIELDS: dict[str, _Check] = {
    "status": (f"one of {', '.join(_STATUSES)}", lambda v: isinstance(v, str) and v in _STATUSES),
    "name": _STRING,
    "reason": _STRING,
    "details": _OBJECT,
    "message": _STRING,
    "score": _SCORE,
    "location": _STRING,
    "duration": _DURATION,
    "pointer": _STRING,
    "span": _SPAN,
    "excerpt": _EXCERPT,
    "spec_name": _STRING,
    "spec_path": _STRING,
    "children": ("a list of results", lambda v: isinstance(v, list)),
}
_COST_FIELDS: dict[str, _Check] = {
    **dict.fromkeys(("requests", "cached", "avoided", "tokens_in", "tokens_out"), _COUNT),
    "unpriced": _COUNT,
    "cost": _COST_OR_NULL,
}
_COST_REQUIRED = ("requests", "cached", "avoided", "tokens_in", "tokens_out", "cost")
_SUMMARY_FIELDS: dict[str, _Check] = {
    **dict.fromkeys(("passed", "failed", "error", "skipped", "unreadable", "unmatched"), _COUNT),
    "flaky": _COUNT,
    "records": _COUNT_OR_NULL,
    "interrupted": _BOOLEAN,
    "judge": _OBJECT,
    "gates": _OBJECT,
}
_OUTCOME_FIELDS: dict[str, _Check] = {
    "suite": _STRING,
    "case": _STRING,
    "source": _STRING,
    "subject_id": _STRING_OR_NULL,
    "result": ("a result: an object", lambda v: isinstance(v, dict)),
    "recorded": _OBJECTS,
    "disagreements": _OBJECTS,
    "cost": _OBJECT,
    "matched_by": _STRING,
    "match_note": _STRING,
}
_UNREADABLE_FIELDS: dict[str, _Check] = {"unreadable": _STRING, "error": _STRING}
_GATE_FIELDS: dict[str, _Check] = {
    "gate": ("a result: an object", lambda v: isinstance(v, dict)),
    "suite": _STRING_OR_NULL,
}
_UNMATCHED_FIELDS: dict[str, _Check] = {
    "unmatched": _STRING,
    "suite": _STRING,
    "subject_id": _STRING,
    "reason": _STRING,
}


def _fields(
    value: dict[str, Any], where: str, fields: dict[str, _Check], required: tuple[str, ...]
) -> Iterator[str]:
    """The problems of an object's known fields (unknown ones are not read, so not checked)."""
    for key in required:
        if key not in value:
            yield f"{where}{key} is missing (expected {fields[key][0]})"
    for key, (expected, ok) in fields.items():
        if key in value and not ok(value[key]):
            yield f"{where}{key} is {_kind(value[key])} (expected {expected})"


def _cost(value: dict[str, Any], where: str) -> Iterator[str]:
    yield from _fields(value, where, _COST_FIELDS, _COST_REQUIRED)


def result_problems(tree: dict[str, Any], where: str) -> Iterator[str]:
    """The problems of a result tree (as JSON), each placed from `where`, walked without
    recursion (a Ray results file's stored trees are checked with it too).

    Example:
        >>> for problem in result_problems({"status": "failed", "name": "x"}, "result"):
        ...     print(problem)
        result.reason is missing (expected a string)
        result.details is missing (expected an object)
    """
    stack: list[tuple[Any, str]] = [(tree, where)]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict):
            yield f"{at} is {_kind(node)} (expected a result: an object)"
            continue
        required: tuple[str, ...] = ("status", "name")
        if node.get("status") in _NOT_PASSED:
            required += ("reason", "details")
        yield from _fields(node, at + ".", _RESULT_FIELDS, required)
        children = node.get("children")
        if isinstance(children, list):
            stack.extend((c, f"{at}.children[{i}]") for i, c in reversed(list(enumerate(children))))


_KINDS = ("result", "unreadable", "unmatched", "gate", "summary")


def row_kind(row: dict[str, Any]) -> str | None:
    """What a line of a report is, by the first of its keys `result` (a case outcome),
    `unreadable`, `unmatched`, `gate` (a suite-level gate) and `summary` it has; None when it
    has none of them."""
    return next((key for key in _KINDS if key in row), None)


def _row(value: Any) -> Iterator[str]:
    """The problems of one line's value, in the words of a message after its place."""
    kind = row_kind(value) if isinstance(value, dict) else None
    if not isinstance(value, dict):
        yield (
            f"the line is {_kind(value)} (expected an object: a case outcome, an unreadable "
            "record, an unmatched subject or the summary)"
        )
    elif kind == "result":
        yield from _fields(
            value, "", _OUTCOME_FIELDS, ("suite", "case", "source", "subject_id", "result")
        )
        if isinstance(value["result"], dict):
            yield from result_problems(value["result"], "result")
        if isinstance(value.get("cost"), dict):
            yield from _cost(value["cost"], "cost.")
    elif kind == "unreadable":
        yield from _fields(value, "", _UNREADABLE_FIELDS, ("unreadable", "error"))
    elif kind == "unmatched":
        yield from _fields(value, "", _UNMATCHED_FIELDS, ("unmatched", "suite"))
    elif kind == "gate":
        yield from _fields(value, "", _GATE_FIELDS, ("gate", "suite"))
        if isinstance(value["gate"], dict):
            yield from result_problems(value["gate"], "gate")
    elif kind == "summary":
        summary = value["summary"]
        if not isinstance(summary, dict):
            yield f"summary is {_kind(summary)} (expected an object of counts)"
            return
        required = ("passed", "failed", "error", "skipped", "records")
        yield from _fields(summary, "summary.", _SUMMARY_FIELDS, required)
        if isinstance(summary.get("judge"), dict):
            yield from _cost(summary["judge"], "summary.judge.")
    else:
        yield (
            "the line has none of 'result', 'unreadable', 'unmatched', 'gate' or 'summary' "
            "(expected a line of a JSON report)"
        )


def _decoded(line: str) -> tuple[Any, str | None]:
    """A line's JSON value, or why it has none."""
    stray = not_utf8(line)
    if stray is not None:
        return None, stray
    try:
        value = json.loads(line)
    except RecursionError:
        return None, f"the line nests too deeply to read (expected at most {REPORT_DEPTH} levels)"
    except json.JSONDecodeError as exc:
        return None, f"the line is not JSON: {exc.msg} at column {exc.colno}"
    except ValueError as exc:  # an integer of more digits than Python converts
        return None, f"the line cannot be read: {str(exc).split(';')[0]}"
    depth = nesting_over(line, REPORT_DEPTH)
    if depth is not None:
        return None, f"the line nests {depth} levels (expected at most {REPORT_DEPTH})"
    return value, None


def read_report(text: str, name: str = "report") -> tuple[list[dict[str, Any]], list[str]]:
    """The lines of a JSON report, and its problems: `name:line: what (expected ...)`.

    Every line is read and checked (`report_schema`'s shapes; keys it does not know are
    ignored), so all problems are listed at once. Only when there are none are the lines fit
    to use; a score written as `'Infinity'`, `'-Infinity'` or `'NaN'` is left as it is (as
    `Result.from_dict` reads it).

    Example:
        >>> good = '{"summary": {"passed": 1, "failed": 0, "error": 0, "skipped": 0, '
        >>> good += '"records": 1}}'
        >>> read_report(good + '\\n{"summary": 5}\\n', "r.jsonl")[1]
        ['r.jsonl:2: summary is the number 5 (expected an object of counts)']
    """
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, line in json_lines(text):
        value, error = _decoded(line)
        found = [error] if error is not None else list(_row(value))
        if found:
            problems.extend(f"{name}:{number}: {problem}" for problem in found)
        elif not problems:
            rows.append(value)
    return rows, problems


def say_problems(problems: list[str], limit: int = SHOWN_PROBLEMS) -> str:
    """The first `limit` problems, a line each, and how many more there were.

    Example:
        >>> print(say_problems(["r:1: a", "r:2: b", "r:3: c"], limit=2), end="")
        r:1: a
        r:2: b
        ... and 1 more problem
    """
    text = "".join(p + "\n" for p in problems[:limit])
    rest = len(problems) - limit
    if rest > 0:
        text += f"... and {rest} more problem{'s' if rest > 1 else ''}\n"
    return text
