"""Fuzzing `chatassert compare BASE NEW` (in process, through `chatassert._cli.main`) on
reports of check mutated every way a report can go wrong.

The base run is the JSON report `check` writes of four conversations of a suite (some pass,
some fail, one errors). Each input is that report broken in places and changed in meaning:
values of the wrong type anywhere, keys dropped, judged leaves and rules of any shape grafted
into the result trees, lines cut, nested deep or replaced by odd text (`mutated_report`, as
`cli.regate` breaks reports); statuses changed, subjects renamed, lines repeated, removed or
moved, the summary line dropped, repeated or marked interrupted, and suites renamed. It is
compared with the base report, either way round, under random gates.

The contract: a documented exit code (0, 1, 2 or 4) and no traceback. Exit 2 names the place:
the first problem the report reader finds (`file:line: ...`) when there is one, else a
`file:line:` of one of the two reports. Otherwise the JSON comparison is strict JSON whose
counts add up: each case of the base report is paired or listed as only in the base, every
unpaired case is a flip, rates count no more than they pair, p-values are from 0 to 1 and a
Holm-adjusted one never below its own; the text, JUnit (well-formed XML) and HTML reports are
written beside it; and the exit code is 1 exactly when the gate says it failed (4 when nothing
paired).
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import xml.etree.ElementTree as ET
from typing import Any

from fuzzing import fuzz_target
from hypothesis import event, given, strategies as st
from test_fuzz_cli import _DIR, run
from test_fuzz_commands import _problems, _rows, _steady, _write, mutated_report
from test_fuzz_logs import to_line

_SUITE = """\
test_cases:
  - {name: refund, id: refund, turns: [{user_input: hi, assertions: [{type: contains, value: refund, message: mentions refund}, {type: not_contains, value: sorry}]}]}
  - {name: greet, id: greet, turns: [{user_input: hi, assertions: [{type: contains, value: welcome}, {type: not_contains, value: sorry}]}]}
  - {name: invoice, id: invoice, turns: [{user_input: hi, assertions: [{type: contains_function_call, value: lookup, arguments: {n: 7}}]}]}
  - {name: twice, id: twice, turns: [{user_input: hi, assertions: [{type: contains, value: a}, {type: contains, value: b}]}]}
"""  # noqa: E501


def _chat(subject: str, answer: str, arguments: str | None = None) -> str:
    reply: dict[str, Any] = {"role": "assistant", "content": answer}
    if arguments is not None:
        call = {"name": "lookup", "arguments": arguments}
        reply["tool_calls"] = [{"id": "c", "type": "function", "function": call}]
    return json.dumps({"id": subject, "messages": [{"role": "user", "content": "hi"}, reply]})


@functools.cache
def _base() -> tuple[str, tuple[Any, ...]]:
    """The base report (path) and its rows, durations made steady."""
    suite = _write("compare-suite.yaml", [_SUITE])
    log = _write("compare-base.log.jsonl", [
        _chat("refund", "a refund, sorry"),
        _chat("greet", "hi"),
        _chat("invoice", "here", "{oops"),
        _chat("twice", "a b"),
    ])  # fmt: skip
    report = os.path.join(_DIR.name, "compare-base.jsonl")
    code, _, err = run(["check", suite, log, "-o", report, "-q"])
    assert code == 1, err
    return report, tuple(_steady(_rows(report)))


_STATUSES = ("passed", "failed", "error", "skipped")
_ODD_NAMES = ("\ud800", "a\u2028b", "\x00\x01", "</script><b>", "]]>", "\ufffe", "é" * 300, "")


@st.composite
def changed_rows(draw: st.DrawFn, rows: list[Any]) -> list[Any]:
    """The rows changed in meaning: statuses, subjects, suites, lines repeated or gone, the
    summary dropped, repeated or marked interrupted."""
    rows = json.loads(json.dumps(rows))
    for _ in range(draw(st.integers(0, 4))):
        if not rows:
            break
        i = draw(st.integers(0, len(rows) - 1))
        row = rows[i]
        kind = draw(st.sampled_from(
            ["status", "leaf", "subject", "suite", "name", "repeat", "drop", "move", "interrupt"]
        ))  # fmt: skip
        if kind == "status" and "result" in row:
            row["result"]["status"] = draw(st.sampled_from(_STATUSES))
        elif kind == "leaf" and "result" in row:
            leaves = [c for t in row["result"].get("children", []) for c in t.get("children", [])]
            if leaves:
                draw(st.sampled_from(leaves))["status"] = draw(st.sampled_from(_STATUSES))
        elif kind == "subject" and "result" in row:
            row["subject_id"] = draw(st.sampled_from([None, "refund", "greet", "new-one", ""]))
        elif kind == "name" and "result" in row:  # odd text the reports must show
            row["case"] = draw(st.sampled_from(_ODD_NAMES))
            if draw(st.booleans()):
                row["result"]["reason"] = draw(st.sampled_from(_ODD_NAMES))
                row["result"]["details"] = {}
        elif kind == "suite" and "suite" in row:
            row["suite"] = draw(st.sampled_from(["other", "suite", "compare-suite"]))
        elif kind == "repeat":
            rows.insert(draw(st.integers(0, len(rows))), json.loads(json.dumps(row)))
        elif kind == "drop":
            rows.pop(i)
        elif kind == "move":
            rows.insert(draw(st.integers(0, len(rows) - 1)), rows.pop(i))
        elif kind == "interrupt" and "summary" in row:
            row["summary"]["interrupted"] = draw(st.booleans())
    return rows


@given(st.data())
@fuzz_target("cli.compare")
def test_compare_decides_or_names_the_bad_line(data: st.DataObject) -> None:
    base, rows = _base()
    changed = data.draw(changed_rows(list(rows)))
    if data.draw(st.booleans()):
        lines = data.draw(mutated_report(changed))
    else:
        lines = [to_line(row, data.draw(st.booleans())) for row in changed]
    other = _write("compare-new.jsonl", lines)
    first, second = (base, other) if data.draw(st.booleans()) else (other, base)
    gates = data.draw(st.lists(st.sampled_from([
        ["--fail-on", "regression"], ["--fail-on", "any-flip"], ["--max-drop", "overall=0.1"],
        ["--max-drop", "*=0"], ["--alpha", "0.2"], ["--max-drop", "mentions refund=0.5"],
    ]), max_size=3))  # fmt: skip
    out = os.path.join(_DIR.name, "compare.json")
    others = [os.path.join(_DIR.name, f"compare.{ext}") for ext in ("txt", "xml", "html")]
    for path in (out, *others):
        if os.path.exists(path):
            os.remove(path)
    written = [a for path in (out, *others) for a in ("-o", path)]
    argv = ["compare", first, second, *(a for g in gates for a in g), *written, "-q"]
    code, _, err = run(argv, frozenset({0, 1, 2, 4}))
    event(f"compare: exit {code}")
    problems = _problems(other)
    if problems:
        assert code == 2, err
        assert problems[0] in err
        return
    if code == 2:
        assert err.startswith("chatassert compare: "), err
        placed = re.search(rf"({re.escape(base)}|{re.escape(other)}):\d+: ", err)
        assert placed is not None or "--max-drop: no assertion named" in err, err
        assert not os.path.exists(out)
        return
    with open(out, encoding="utf-8") as file:
        document = json.loads(file.read(), parse_constant=_not_strict)
    ET.parse(others[1])  # the JUnit report is well-formed XML
    assert all(os.path.getsize(path) for path in others)
    _counts_add_up(document, first, code)


def _not_strict(name: str) -> None:
    raise AssertionError(f"the comparison is not strict JSON: {name}")


def _counts_add_up(document: dict[str, Any], first: str, code: int) -> None:
    keys = set()
    for row in _rows(first):
        if "result" in row:
            keys.add((row["suite"], row["case"], row["subject_id"]))
    unpaired = document["unpaired"]
    assert document["paired"] + len(unpaired["base"]) == len(keys)
    case_flips = [f for f in document["flips"] if f["assertion"] is None]
    absent = [f for f in case_flips if "absent" in (f["before"], f["after"])]
    assert len(absent) == len(unpaired["base"]) + len(unpaired["new"])
    for change in [document["overall"], *document["assertions"]]:
        for side in ("base", "new"):
            rate = change[side]
            assert 0 <= rate["passed"] <= rate["total"] <= document["paired"] * 8
            assert 0 <= rate["low"] <= rate["high"] <= 1
        assert 0 <= change["mid_p"] <= change["p_value"] <= change["adjusted_p"] <= 1
        assert math.isfinite(change["p_value"])
    failed = document["gate"]["failed"]
    if document["paired"] == 0:
        assert code == 4
    else:
        assert code == (1 if failed else 0)
