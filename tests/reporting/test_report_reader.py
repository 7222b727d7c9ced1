"""Reading a JSON report back (`chatassert.reporting._report_reader`): every line checked
against the shapes the published report schema gives, each problem by its place.

The property test holds the reader to `report_schema()` itself (through `jsonschema`, keys the
schema does not know aside): a mutated line is accepted exactly when the schema accepts it.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import jsonschema
from hypothesis import given, settings, strategies as st

from chatassert import Contains, Result
from chatassert.promptkit import LLMJudge
from chatassert.reporting import Outcome, report_line, report_schema
from chatassert.reporting._report_reader import REPORT_DEPTH, read_report, row_kind, say_problems
from chatassert.testing import FakeJudge


def _open(schema: Any) -> Any:
    """The schema without `additionalProperties: false`: the reader ignores unknown keys."""
    if isinstance(schema, dict):
        return {k: _open(v) for k, v in schema.items() if k != "additionalProperties"}
    if isinstance(schema, list):
        return [_open(v) for v in schema]
    return schema


_SCHEMA = jsonschema.Draft202012Validator(_open(report_schema()))


def _outcomes() -> list[dict[str, Any]]:
    judge = FakeJudge({"passed": True, "score": 0.75, "reason": "kind"})
    rule = Contains("refund") & LLMJudge("Is polite", min_score=0.5, judge=judge)
    rows = []
    for text in ("Your refund is on its way.", "No."):
        result = rule.check(text)
        cost = {"requests": 1, "cached": 0, "avoided": 0, "tokens_in": 9, "tokens_out": 2,
                "cost": 0.001}  # fmt: skip
        for full in (False, True):
            outcome = Outcome("s", "c", result, "log.jsonl:1", "c1", cost=cost)
            rows.append(json.loads(report_line(outcome, full=full)))
    return rows


BASES: list[dict[str, Any]] = [
    *_outcomes(),
    {"unreadable": "log.jsonl:3", "error": "line is not JSON"},
    {"unmatched": "log.jsonl:4", "suite": "s"},
    {"summary": {"passed": 1, "failed": 1, "error": 0, "skipped": 0, "records": 2,
                 "unreadable": 1, "interrupted": False,
                 "judge": {"requests": 2, "cached": 0, "avoided": 0, "tokens_in": 18,
                           "tokens_out": 4, "cost": None, "unpriced": 2}}},
]  # fmt: skip

_VALUES = [None, True, False, 0, -1, 3, 2.0, 1.5, -0.5, math.nan, math.inf, "", "x", "passed",
           "failed", "NaN", "-Infinity", [], [1], [0, 4], [{}], {}, {"a": 1},
           {"offset": 0, "text": "t"}]  # fmt: skip
_KEYS = ["status", "name", "reason", "details", "message", "score", "location", "duration",
         "pointer", "span", "excerpt", "children", "suite", "case", "source", "subject_id",
         "result", "recorded", "disagreements", "cost", "requests", "cached", "tokens_in",
         "unpriced", "records", "interrupted", "passed", "judge", "error", "other"]  # fmt: skip


def _containers(value: Any, out: list[Any]) -> list[Any]:
    if isinstance(value, dict | list):
        out.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            _containers(child, out)
    return out


@st.composite
def mutated_rows(draw: st.DrawFn) -> Any:
    row = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(0, 3))):
        place = draw(st.sampled_from(_containers(row, [])))
        if isinstance(place, list):
            if place and draw(st.booleans()):
                at = draw(st.integers(0, len(place) - 1))
                place[at] = copy.deepcopy(draw(st.sampled_from(_VALUES)))
            else:
                place.append(copy.deepcopy(draw(st.sampled_from(_VALUES))))
        elif place and draw(st.booleans()):
            del place[draw(st.sampled_from(sorted(place)))]
        else:
            place[draw(st.sampled_from(_KEYS))] = copy.deepcopy(draw(st.sampled_from(_VALUES)))
    return row


def _kinds(row: Any) -> int:
    return sum(k in row for k in ("result", "unreadable", "unmatched", "summary"))


@settings(max_examples=400, deadline=None)
@given(mutated_rows())
def test_a_line_is_accepted_exactly_when_the_report_schema_accepts_it(row: Any) -> None:
    if isinstance(row, dict) and _kinds(row) > 1:
        return  # the schema's oneOf refuses a line of two kinds; the reader takes the first
    rows, problems = read_report(json.dumps(row), "r.jsonl")
    errors = sorted(e.message for e in _SCHEMA.iter_errors(row))
    assert (not problems) == (not errors), (problems, errors)
    assert json.dumps(rows) == json.dumps([] if problems else [row])  # NaN is not NaN
    assert all(p.startswith("r.jsonl:1: ") for p in problems)


def test_checks_own_lines_are_read_back_whole() -> None:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in BASES)
    rows, problems = read_report(text)
    assert problems == []
    assert rows == BASES
    assert [row_kind(r) for r in rows][-3:] == ["unreadable", "unmatched", "summary"]
    tree = Result.from_dict(rows[1]["result"])
    assert tree.children[1].name == "llm_judge"


def test_lines_end_at_a_line_feed_only_and_blank_lines_are_skipped() -> None:
    row = {"unreadable": "a\u2028b\u2029c\u0085d", "error": "e"}
    text = "\r\n" + json.dumps(row, ensure_ascii=False) + "\r\n \t\n"
    assert read_report(text) == ([row], [])


def test_nesting_is_bounded_before_anything_walks_it() -> None:
    deep = "[" * (REPORT_DEPTH + 1) + "]" * (REPORT_DEPTH + 1)
    too_deep = "[" * 100_000 + "]" * 100_000
    rows, problems = read_report(deep + "\n" + too_deep + "\n", "r")
    assert rows == []
    assert problems == [
        f"r:1: the line nests {REPORT_DEPTH + 1} levels (expected at most {REPORT_DEPTH})",
        f"r:2: the line nests too deeply to read (expected at most {REPORT_DEPTH} levels)",
    ]


def test_values_are_named_briefly_in_problems() -> None:
    long = "x" * 500
    _, problems = read_report(json.dumps({"unreadable": long, "error": [long]}), "r")
    assert problems == ["r:1: error is a list (expected a string)"]
    _, problems = read_report(json.dumps({"unmatched": 1e300, "suite": True}), "r")
    assert problems == [
        "r:1: unmatched is the number 1e+300 (expected a string)",
        "r:1: suite is true (expected a string)",
    ]
    _, problems = read_report('{"unmatched": "' + long + '", "suite": 5}\n1e999999', "r")
    assert problems == [
        "r:1: suite is the number 5 (expected a string)",
        "r:2: the line is the number inf (expected an object: a case outcome, an unreadable "
        "record, an unmatched subject or the summary)",
    ]


def test_problems_are_shown_up_to_a_limit() -> None:
    problems = [f"r:{n}: bad" for n in range(1, 24)]
    text = say_problems(problems)
    assert text.count("\n") == 21
    assert text.endswith("r:20: bad\n... and 3 more problems\n")
    assert say_problems(problems[:2]) == "r:1: bad\nr:2: bad\n"
