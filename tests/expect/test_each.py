"""Tests of chatassert._each (docs/expect.md, "Keys" and "Details"): the checks over every
value at a path (`AllMatch`, `AllMatchOneOf`, `AllMatchPattern`, `NoneMatchPattern`,
`ArrayContains`, `InRange`, `AllInRange`, `SortedDesc`), each on its own.

The decision-table rows of these checks (whole records, built by `expect_decisions.row`; see
`expect_decisions` for what a row promises), their construction errors and their descriptions,
then their standalone tests. Checks combined with another family's are in test_json_shared.py.
"""

from __future__ import annotations

import pytest
from expect_decisions import (
    SEARCH,
    E,
    F,
    P,
    err,
    row,
    table_tests,
)

from chatassert import (
    AllMatch,
    AllMatchPattern,
    InRange,
    SortedDesc,
)
from chatassert.expect import (
    AllInRange,
    AllMatchOneOf,
    ArrayContains,
    NoneMatchPattern,
)

ROWS = [
    row(
        "am-pass",
        lambda: AllMatch("r[*].t", "note"),
        {"r": [{"t": "note"}, {"t": "note"}]},
        P,
        "every r[*].t is 'note'",
        {"path": "r[*].t", "expected": "note", "checked": 2},
        quick=True,
    ),
    row(
        "am-fail",
        lambda: AllMatch("r[*].t", "note"),
        {"r": [{"t": "note"}, {"t": "log"}, {"t": "draft"}]},
        F,
        "Found non-matching item: 'log' at r[1].t (and 1 more)",
        {
            "path": "r[1].t",
            "expected": "note",
            "actual": "log",
            "index": 1,
            "offending": [
                {"path": "r[1].t", "actual": "log", "index": 1},
                {"path": "r[2].t", "actual": "draft", "index": 2},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "am-string-vs-number",
        lambda: AllMatch("r[*].t", "1"),
        {"r": [{"t": 1}]},
        F,
        "Found non-matching item: 1 at r[0].t",
        {
            "path": "r[0].t",
            "expected": "1",
            "actual": 1,
            "index": 0,
            "offending": [{"path": "r[0].t", "actual": 1, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "am-int-float",
        lambda: AllMatch("r[*].v", 1),
        {"r": [{"v": 1.0}, {"v": 1}]},
        P,
        "every r[*].v is 1",
        {"path": "r[*].v", "expected": 1, "checked": 2},
        quick=True,
    ),
    row(
        "am-bool",
        lambda: AllMatch("r[*].v", True),
        {"r": [{"v": 1}]},
        F,
        "Found non-matching item: 1 at r[0].v",
        {
            "path": "r[0].v",
            "expected": True,
            "actual": 1,
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": 1, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "am-null",
        lambda: AllMatch("r[*].v", None),
        {"r": [{"v": None}, {"v": 0}]},
        F,
        "Found non-matching item: 0 at r[1].v",
        {
            "path": "r[1].v",
            "expected": None,
            "actual": 0,
            "index": 1,
            "offending": [{"path": "r[1].v", "actual": 0, "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-empty",
        lambda: AllMatch("r[*].v", 1),
        {"r": []},
        P,
        "every r[*].v is 1",
        {"path": "r[*].v", "expected": 1, "checked": 0},
        quick=True,
    ),
    row(
        "am-single-missing",
        lambda: AllMatch("r[0].v", 1),
        {"r": []},
        F,
        "Missing field: r[0].v",
        {"path": "r[0].v", "expected": 1, "actual": None, "missing": True},
    ),
    row(
        "am-single-pass",
        lambda: AllMatch("r[0].v", "a"),
        {"r": [{"v": "a"}]},
        P,
        "every r[0].v is 'a'",
        {"path": "r[0].v", "expected": "a", "checked": 1},
        quick=True,
    ),
    row(
        "am-list-value",
        lambda: AllMatch("r[*].v", [1, 2]),
        {"r": [{"v": [1, 2.0]}, {"v": [2, 1]}]},
        F,
        "Found non-matching item: [2, 1] at r[1].v",
        {
            "path": "r[1].v",
            "expected": [1, 2],
            "actual": [2, 1],
            "index": 1,
            "offending": [{"path": "r[1].v", "actual": [2, 1], "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-one-of-pass",
        lambda: AllMatchOneOf("r[*].t", ["note", "task"]),
        {"r": [{"t": "note"}, {"t": "task"}]},
        P,
        "every r[*].t is one of 'note', 'task'",
        {"path": "r[*].t", "expected": ["note", "task"], "checked": 2},
        quick=True,
    ),
    row(
        "am-one-of-fail",
        lambda: AllMatchOneOf("r[*].t", ["note", "task"]),
        {"r": [{"t": "note"}, {"t": "draft"}]},
        F,
        "Found non-matching item: 'draft' at r[1].t (expected one of 'note', 'task')",
        {
            "path": "r[1].t",
            "expected": ["note", "task"],
            "actual": "draft",
            "index": 1,
            "offending": [{"path": "r[1].t", "actual": "draft", "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-one-of-scalar",
        lambda: AllMatchOneOf("r[*].t", "note"),
        {"r": [{"t": "draft"}]},
        F,
        "Found non-matching item: 'draft' at r[0].t (expected one of 'note')",
        {
            "path": "r[0].t",
            "expected": ["note"],
            "actual": "draft",
            "index": 0,
            "offending": [{"path": "r[0].t", "actual": "draft", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "pat-pass",
        lambda: AllMatchPattern("r[*].file", "^journal/"),
        {"r": [{"file": "journal/a"}, {"file": "journal/b"}]},
        P,
        "every r[*].file matches /^journal//",
        {"path": "r[*].file", "expected": "^journal/", "checked": 2},
        quick=True,
    ),
    row(
        "pat-fail-file",
        lambda: AllMatchPattern("r[*].file", "^journal/"),
        {"r": [{"file": "journal/a"}, {"file": "work/d.md"}, {"file": "x"}]},
        F,
        "File 'work/d.md' at r[1] doesn't match pattern '^journal/' (and 1 more)",
        {
            "path": "r[1].file",
            "expected": "^journal/",
            "actual": "work/d.md",
            "index": 1,
            "pattern": "^journal/",
            "offending": [
                {"path": "r[1].file", "actual": "work/d.md", "index": 1},
                {"path": "r[2].file", "actual": "x", "index": 2},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "pat-fail-other",
        lambda: AllMatchPattern("r[*].name", "^a"),
        {"r": [{"name": "b"}]},
        F,
        "Value 'b' at r[0].name doesn't match pattern '^a'",
        {
            "path": "r[0].name",
            "expected": "^a",
            "actual": "b",
            "index": 0,
            "pattern": "^a",
            "offending": [{"path": "r[0].name", "actual": "b", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "pat-regex",
        lambda: AllMatchPattern("r[*].file", "\\.md$"),
        {"r": [{"file": "a.md"}, {"file": "b.txt"}]},
        F,
        "File 'b.txt' at r[1] doesn't match pattern '\\.md$'",
        {
            "path": "r[1].file",
            "expected": "\\.md$",
            "actual": "b.txt",
            "index": 1,
            "pattern": "\\.md$",
            "offending": [{"path": "r[1].file", "actual": "b.txt", "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "pat-number",
        lambda: AllMatchPattern("r[*].n", "^4"),
        {"r": [{"n": 42}, {"n": 5}]},
        F,
        "Value 5 at r[1].n doesn't match pattern '^4'",
        {
            "path": "r[1].n",
            "expected": "^4",
            "actual": 5,
            "index": 1,
            "pattern": "^4",
            "offending": [{"path": "r[1].n", "actual": 5, "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "pat-prefix-number",
        lambda: AllMatchPattern("r[*].n", "^4"),
        {"r": [{"n": "4"}, {"n": 41}]},
        P,
        "every r[*].n matches /^4/",
        {"path": "r[*].n", "expected": "^4", "checked": 2},
        quick=True,
    ),
    row(
        "pat-missing",
        lambda: AllMatchPattern("file", "^a"),
        {},
        F,
        "Missing field: file",
        {"path": "file", "expected": "^a", "actual": None, "missing": True},
    ),
    row(
        "pat-empty",
        lambda: AllMatchPattern("r[*].file", "^a"),
        {"r": []},
        P,
        "every r[*].file matches /^a/",
        {"path": "r[*].file", "expected": "^a", "checked": 0},
        quick=True,
    ),
    row(
        "none-pat-fail",
        lambda: NoneMatchPattern("r[*].file", "^(people/|documents/)"),
        {"r": [{"file": "journal/a"}, {"file": "people/alice.md"}]},
        F,
        "File 'people/alice.md' at r[1] matches excluded pattern '^(people/|documents/)'",
        {
            "path": "r[1].file",
            "expected": "^(people/|documents/)",
            "actual": "people/alice.md",
            "index": 1,
            "pattern": "^(people/|documents/)",
            "offending": [{"path": "r[1].file", "actual": "people/alice.md", "index": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "none-pat-pass",
        lambda: NoneMatchPattern("r[*].file", "^(people/|documents/)"),
        {"r": [{"file": "journal/a"}]},
        P,
        "no r[*].file matches /^(people/|documents/)/",
        {"path": "r[*].file", "expected": "^(people/|documents/)", "checked": 1},
        quick=True,
    ),
    row(
        "none-pat-regex-fail",
        lambda: NoneMatchPattern("r[*].v", "secret"),
        {"r": [{"v": "top secret"}]},
        F,
        "Value 'top secret' at r[0].v matches excluded pattern 'secret'",
        {
            "path": "r[0].v",
            "expected": "secret",
            "actual": "top secret",
            "index": 0,
            "pattern": "secret",
            "offending": [{"path": "r[0].v", "actual": "top secret", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "none-pat-regex-pass",
        lambda: NoneMatchPattern("r[*].v", "secret"),
        {"r": [{"v": "public"}, {"v": 3}]},
        P,
        "no r[*].v matches /secret/",
        {"path": "r[*].v", "expected": "secret", "checked": 2},
        quick=True,
    ),
    row(
        "ac-pass",
        lambda: ArrayContains("dirs", ["people/", "documents/"]),
        {"dirs": ["documents/", "people/", "x"]},
        P,
        "dirs contains 'people/', 'documents/'",
        {"path": "dirs", "expected": ["people/", "documents/"]},
    ),
    row(
        "ac-fail",
        lambda: ArrayContains("dirs", ["people/", "documents/", "x"]),
        {"dirs": ["people/"]},
        F,
        "dirs does not contain 'documents/', 'x'",
        {
            "path": "dirs",
            "expected": ["people/", "documents/", "x"],
            "actual": ["people/"],
            "missing": ["documents/", "x"],
        },
    ),
    row(
        "ac-scalar",
        lambda: ArrayContains("dirs", 1),
        {"dirs": [1.0]},
        P,
        "dirs contains 1",
        {"path": "dirs", "expected": [1]},
    ),
    row(
        "ac-strict",
        lambda: ArrayContains("dirs", [1]),
        {"dirs": [True, "1"]},
        F,
        "dirs does not contain 1",
        {"path": "dirs", "expected": [1], "actual": [True, "1"], "missing": [1]},
    ),
    row(
        "ac-not-array",
        lambda: ArrayContains("dirs", ["a"]),
        {"dirs": "a"},
        F,
        "Expected dirs to be an array, got 'a'",
        {"path": "dirs", "expected": ["a"], "actual": "a"},
    ),
    row(
        "ac-missing",
        lambda: ArrayContains("dirs", ["a"]),
        {},
        F,
        "Missing field: dirs",
        {"path": "dirs", "expected": ["a"], "actual": None, "missing": True},
    ),
    row(
        "ac-missing-pattern",
        lambda: ArrayContains("dirs", pattern="^a"),
        {},
        F,
        "Missing field: dirs",
        {"path": "dirs", "expected": "^a", "actual": None, "missing": True},
    ),
    row(
        "ac-wildcard",
        lambda: ArrayContains("r[*].t", ["a", "b"]),
        {"r": [{"t": "a"}, {"t": "c"}]},
        F,
        "r[*].t does not contain 'b'",
        {"path": "r[*].t", "expected": ["a", "b"], "actual": ["a", "c"], "missing": ["b"]},
    ),
    row(
        "ac-wildcard-pass",
        lambda: ArrayContains("r[*].t", ["a"]),
        {"r": [{"t": "a"}, {"t": "c"}]},
        P,
        "r[*].t contains 'a'",
        {"path": "r[*].t", "expected": ["a"]},
    ),
    row(
        "ac-pattern-pass",
        lambda: ArrayContains("dirs", pattern="^peo"),
        {"dirs": ["x", "people/", "people/b"]},
        P,
        "dirs has an item matching /^peo/",
        {"path": "dirs", "expected": "^peo", "actual": "people/"},
    ),
    row(
        "ac-pattern-number",
        lambda: ArrayContains("dirs", pattern="^4"),
        {"dirs": [42]},
        P,
        "dirs has an item matching /^4/",
        {"path": "dirs", "expected": "^4", "actual": 42},
    ),
    row(
        "ac-pattern-fail",
        lambda: ArrayContains("dirs", pattern="^peo"),
        {"dirs": ["x", "y"]},
        F,
        "No item of dirs matches pattern '^peo'",
        {"path": "dirs", "expected": "^peo", "actual": ["x", "y"], "checked": 2},
    ),
    row(
        "ac-pattern-not-array",
        lambda: ArrayContains("dirs", pattern="^peo"),
        {"dirs": 7},
        F,
        "Expected dirs to be an array, got 7",
        {"path": "dirs", "expected": "^peo", "actual": 7},
    ),
    row(
        "range-pass",
        lambda: AllInRange("r[*].v", 0.0, 1.0),
        {"r": [{"v": 0.0}, {"v": 1.0}, {"v": 1}]},
        P,
        "r[*].v in 0.0-1.0",
        {"path": "r[*].v", "expected": {"min": 0.0, "max": 1.0}, "checked": 3},
        quick=True,
    ),
    row(
        "range-fail",
        lambda: AllInRange("r[*].v", 0.0, 1.0),
        {"r": [{"v": 1.2}, {"v": -0.1}]},
        F,
        "Value 1.2 at r[0].v is outside range 0.0-1.0 (and 1 more)",
        {
            "path": "r[0].v",
            "expected": {"min": 0.0, "max": 1.0},
            "actual": 1.2,
            "index": 0,
            "offending": [
                {"path": "r[0].v", "actual": 1.2, "index": 0},
                {"path": "r[1].v", "actual": -0.1, "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "range-not-number",
        lambda: AllInRange("r[*].v", 0, 1),
        {"r": [{"v": "0.5"}, {"v": True}, {"v": None}]},
        F,
        "Value '0.5' at r[0].v is not a number (and 2 more)",
        {
            "path": "r[0].v",
            "expected": {"min": 0, "max": 1},
            "actual": "0.5",
            "index": 0,
            "offending": [
                {"path": "r[0].v", "actual": "0.5", "index": 0},
                {"path": "r[1].v", "actual": True, "index": 1},
                {"path": "r[2].v", "actual": None, "index": 2},
            ],
            "offending_count": 3,
            "checked": 3,
        },
    ),
    row(
        "range-min-only",
        lambda: AllInRange("r[*].v", min=0.5),
        {"r": [{"v": 0.4}]},
        F,
        "Value 0.4 at r[0].v is outside range 0.5-inf",
        {
            "path": "r[0].v",
            "expected": {"min": 0.5, "max": None},
            "actual": 0.4,
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": 0.4, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "range-min-only-pass",
        lambda: AllInRange("r[*].v", min=0.5),
        {"r": [{"v": 99}]},
        P,
        "r[*].v in 0.5-inf",
        {"path": "r[*].v", "expected": {"min": 0.5, "max": None}, "checked": 1},
        quick=True,
    ),
    row(
        "range-max-only",
        lambda: AllInRange("r[*].v", max=5),
        {"r": [{"v": 6}]},
        F,
        "Value 6 at r[0].v is outside range -inf-5",
        {
            "path": "r[0].v",
            "expected": {"min": None, "max": 5},
            "actual": 6,
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": 6, "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "range-max-only-pass",
        lambda: AllInRange("r[*].v", max=5),
        {"r": [{"v": -99}]},
        P,
        "r[*].v in -inf-5",
        {"path": "r[*].v", "expected": {"min": None, "max": 5}, "checked": 1},
        quick=True,
    ),
    row(
        "range-empty",
        lambda: AllInRange("r[*].v", 0, 1),
        {"r": []},
        P,
        "r[*].v in 0-1",
        {"path": "r[*].v", "expected": {"min": 0, "max": 1}, "checked": 0},
        quick=True,
    ),
    row(
        "range-single-missing",
        lambda: AllInRange("v", 0, 1),
        {},
        F,
        "Missing field: v",
        {"path": "v", "expected": {"min": 0, "max": 1}, "actual": None, "missing": True},
    ),
    row(
        "inrange-pass",
        lambda: InRange("p.ms", 0, 5000),
        {"p": {"ms": 5000}},
        P,
        "p.ms in 0-5000",
        {"path": "p.ms", "expected": {"min": 0, "max": 5000}, "checked": 1},
        quick=True,
    ),
    row(
        "inrange-fail",
        lambda: InRange("p.ms", 0, 5000),
        {"p": {"ms": 6200}},
        F,
        "Value 6200 at p.ms is outside range 0-5000",
        {
            "path": "p.ms",
            "expected": {"min": 0, "max": 5000},
            "actual": 6200,
            "offending": [{"path": "p.ms", "actual": 6200}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "inrange-missing",
        lambda: InRange("p.ms", 0, 5000),
        {"p": {}},
        F,
        "Missing field: p.ms",
        {"path": "p.ms", "expected": {"min": 0, "max": 5000}, "actual": None, "missing": True},
    ),
    row(
        "inrange-wildcard-empty",
        lambda: InRange("r[*].v", 0, 1),
        {"r": []},
        F,
        "Missing field: r[*].v",
        {"path": "r[*].v", "expected": {"min": 0, "max": 1}, "actual": None, "missing": True},
    ),
    row(
        "sorted-pass-ties",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 2}, {"v": 2}, {"v": 1.5}]},
        P,
        "r[*].v sorted descending",
        {"path": "r[*].v", "expected": "descending", "checked": 3},
        quick=True,
    ),
    row(
        "sorted-fail",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 0.9}, {"v": 1.0}, {"v": 0.85}, {"v": 0.9}]},
        F,
        "Values not sorted descending at index 1: r[1].v is 1.0, after 0.9",
        {
            "path": "r[1].v",
            "expected": "descending",
            "actual": 1.0,
            "index": 1,
            "values": [0.9, 1.0, 0.85, 0.9],
            "offending": [
                {"path": "r[1].v", "actual": 1.0, "index": 1, "previous": 0.9},
                {"path": "r[3].v", "actual": 0.9, "index": 3, "previous": 0.85},
            ],
            "offending_count": 2,
            "checked": 4,
        },
    ),
    row(
        "sorted-strings",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": "b"}, {"v": "c"}]},
        F,
        "Values not sorted descending at index 1: r[1].v is 'c', after 'b'",
        {
            "path": "r[1].v",
            "expected": "descending",
            "actual": "c",
            "index": 1,
            "values": ["b", "c"],
            "offending": [{"path": "r[1].v", "actual": "c", "index": 1, "previous": "b"}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "sorted-strings-pass",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": "c"}, {"v": "b"}]},
        P,
        "r[*].v sorted descending",
        {"path": "r[*].v", "expected": "descending", "checked": 2},
    ),
    row(
        "sorted-mixed",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 1}, {"v": "b"}]},
        E,
        "the values at r[*].v cannot be ordered (found number, str)",
        {"path": "r[*].v", "actual": [1, "b"]},
    ),
    row(
        "sorted-null",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": None}]},
        E,
        "the values at r[*].v cannot be ordered (found NoneType)",
        {"path": "r[*].v", "actual": [None]},
    ),
    row(
        "sorted-skip",
        lambda: SortedDesc("r[*].v"),
        {"r": [{"v": 1}, {}, {"v": 2}]},
        F,
        "Values not sorted descending at index 2: r[2].v is 2, after 1",
        {
            "path": "r[2].v",
            "expected": "descending",
            "actual": 2,
            "index": 2,
            "values": [1, 2],
            "offending": [{"path": "r[2].v", "actual": 2, "index": 2, "previous": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "sorted-missing",
        lambda: SortedDesc("v"),
        {},
        F,
        "Missing field: v",
        {"path": "v", "expected": "descending", "actual": None, "missing": True},
    ),
    row(
        "sorted-empty",
        lambda: SortedDesc("r[*].v"),
        {"r": []},
        P,
        "r[*].v sorted descending",
        {"path": "r[*].v", "expected": "descending", "checked": 0},
        quick=True,
    ),
    row(
        "ac-timeout",
        lambda: ArrayContains("a", pattern="(a+)+$", regex_timeout=0.05),
        {"a": ["x", "a" * 5000 + "b"]},
        E,
        "pattern '(a+)+$' did not finish within 0.05s on a text of 5001 characters",
        {"path": "a", "error": "timeout"},
    ),
    row(
        "pat-timeout",
        lambda: AllMatchPattern("r[*].t", "(a+)+$", regex_timeout=0.05),
        {"r": [{"t": "a"}, {"t": "a" * 5000 + "b"}]},
        E,
        "pattern '(a+)+$' did not finish within 0.05s on a text of 5001 characters",
        {"path": "r[1].t", "pattern": "(a+)+$", "error": "timeout"},
    ),
    row(
        "range-one-value",
        lambda: InRange("v", 1, 1),
        {"v": 1.0},
        P,
        "v in 1-1",
        {"path": "v", "expected": {"min": 1, "max": 1}, "checked": 1},
        quick=True,
    ),
    row(
        "sorted-no-index",
        lambda: SortedDesc("$..v"),
        {"a": {"v": 1}, "b": {"v": 2}},
        F,
        "Values not sorted descending at index 1: b.v is 2, after 1",
        {
            "path": "b.v",
            "expected": "descending",
            "actual": 2,
            "index": 1,
            "values": [1, 2],
            "offending": [{"path": "b.v", "actual": 2, "index": 1, "previous": 1}],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "am-string-vs-list",
        lambda: AllMatch("r[*].v", ["a", "b"]),
        {"r": [{"v": "ab"}]},
        F,
        "Found non-matching item: 'ab' at r[0].v",
        {
            "path": "r[0].v",
            "expected": ["a", "b"],
            "actual": "ab",
            "index": 0,
            "offending": [{"path": "r[0].v", "actual": "ab", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
]


ERRORS = [
    err(
        "path-not-text",
        lambda: AllMatch(3, "x"),
        TypeError,
        "expect_all_match path must be a string, got int 3",
    ),
    err(
        "path-empty",
        lambda: AllMatch("", "x"),
        ValueError,
        "expect_all_match path must not be empty",
    ),
    err(
        "one-of-empty",
        lambda: AllMatchOneOf("a[*]", []),
        ValueError,
        "all_match_one_of needs 'values': a non-empty list",
    ),
    err(
        "one-of-mapping",
        lambda: AllMatchOneOf("a[*]", {"a": 1}),
        ValueError,
        "all_match_one_of needs 'values': a non-empty list",
    ),
    err(
        "array-contains-both",
        lambda: ArrayContains("a", ["x"], pattern="y"),
        ValueError,
        "array_contains needs exactly one of 'values' (a list) or 'pattern' (a regex)",
    ),
    err(
        "array-contains-neither",
        lambda: ArrayContains("a"),
        ValueError,
        "array_contains needs exactly one of 'values' (a list) or 'pattern' (a regex)",
    ),
    err(
        "array-contains-empty",
        lambda: ArrayContains("a", []),
        ValueError,
        "array_contains 'values' must be a non-empty list",
    ),
    err(
        "array-contains-mapping",
        lambda: ArrayContains("a", {"x": 1}),
        ValueError,
        "array_contains 'values' must be a non-empty list",
    ),
    err(
        "range-neither",
        lambda: AllInRange("v"),
        ValueError,
        "expect_all_in_range needs 'min', 'max' or both",
    ),
    err(
        "range-reversed",
        lambda: InRange("v", 2, 1),
        ValueError,
        "expect_range_check min (2) is larger than max (1)",
    ),
    err(
        "range-not-number",
        lambda: AllInRange("v", "0", 1),
        TypeError,
        "expect_all_in_range min must be a number, got str '0'",
    ),
    err(
        "range-max-not-number",
        lambda: AllInRange("v", 0, "1"),
        TypeError,
        "expect_all_in_range max must be a number, got str '1'",
    ),
    err(
        "array-contains-bad-regex",
        lambda: ArrayContains("a", pattern="("),
        ValueError,
        "invalid regular expression '(': missing closing ) at position 0; add ')' or escape '(' as \\(",  # noqa: E501
    ),
    err(
        "array-contains-empty-regex",
        lambda: ArrayContains("a", pattern=""),
        ValueError,
        "expect_array_contains pattern must not be empty",
    ),
    err(
        "array-contains-regex-not-text",
        lambda: ArrayContains("a", pattern=3),
        TypeError,
        "expect_array_contains pattern must be a string, got int",
    ),
    err(
        "pattern-empty-regex",
        lambda: AllMatchPattern("a", ""),
        ValueError,
        "expect_all_match_pattern pattern must not be empty",
    ),
    err(
        "pattern-regex-not-text",
        lambda: NoneMatchPattern("a", ["x"]),
        TypeError,
        "expect_none_match_pattern pattern must be a string, got list",
    ),
    err(
        "pattern-bad-regex",
        lambda: NoneMatchPattern("a", "["),
        ValueError,
        "invalid regular expression '[': missing closing ] at position 0; add ']' or escape '[' as \\[ to match it",  # noqa: E501
    ),
]


DESCRIPTIONS = [
    (lambda: AllMatch("r[*].t", "note"), "every r[*].t is 'note'"),
    (lambda: AllMatchOneOf("r[*].t", ["note", 1]), "every r[*].t is one of 'note', 1"),
    (lambda: AllMatchPattern("r[*].f", "^a"), "every r[*].f matches /^a/"),
    (lambda: NoneMatchPattern("r[*].f", "^a"), "no r[*].f matches /^a/"),
    (
        lambda: ArrayContains("dirs", ["people/", "documents/"]),
        "dirs contains 'people/', 'documents/'",
    ),
    (lambda: ArrayContains("dirs", pattern="^peo"), "dirs has an item matching /^peo/"),
    (lambda: AllInRange("v", 0, 1.5), "v in 0-1.5"),
    (lambda: InRange("v", max=5), "v in -inf-5"),
    (lambda: SortedDesc("r[*].v"), "r[*].v sorted descending"),
]


(
    test_a_check_decides_the_documented_record,
    test_a_bad_parameter_is_rejected_when_the_check_is_built,
    test_a_check_describes_its_requirement,
) = table_tests(ROWS, ERRORS, DESCRIPTIONS)


def test_all_match_details() -> None:
    result = AllMatch("results[*].type", "note").check(SEARCH)
    assert result.reason == "Found non-matching item: 'person' at results[2].type"
    assert result.details["path"] == "results[2].type"
    assert result.details["index"] == 2
    assert result.details["actual"] == "person"
    assert result.details["expected"] == "note"
    assert result.details["checked"] == 3
    assert result.details["offending"] == [
        {"path": "results[2].type", "actual": "person", "index": 2}
    ]


def test_a_path_without_a_wildcard_must_exist() -> None:
    assert AllMatch("status", "success").check(SEARCH).passed
    assert AllMatch("state", "success").check(SEARCH).reason == "Missing field: state"
    assert SortedDesc("scores").check({}).reason == "Missing field: scores"


def test_all_match_one_of() -> None:
    assert AllMatchOneOf("results[*].type", ["note", "person"]).check(SEARCH).passed
    result = AllMatchOneOf("results[*].type", ["note"]).check(SEARCH)
    assert result.reason == (
        "Found non-matching item: 'person' at results[2].type (expected one of 'note')"
    )
    with pytest.raises(ValueError, match="non-empty list"):
        AllMatchOneOf("results[*].type", [])


def test_patterns_on_files_and_other_fields() -> None:
    result = NoneMatchPattern("results[*].file", "^(people/|documents/)").check(SEARCH)
    assert result.reason == (
        "File 'people/alice.md' at results[2] matches excluded pattern '^(people/|documents/)'"
    )
    generic = AllMatchPattern("results[*].type", "^note$").check(SEARCH)
    assert generic.reason == "Value 'person' at results[2].type doesn't match pattern '^note$'"
    numbers = AllMatchPattern("results[*].relevance", r"^0\.\d+$").check(SEARCH)
    assert numbers.passed


def test_invalid_regex_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError):
        AllMatchPattern("results[*].file", "(unclosed")


def test_a_catastrophic_pattern_is_an_error() -> None:
    check = AllMatchPattern("results[*].text", "(a+)+$", regex_timeout=0.05)
    result = check.check({"results": [{"text": "a" * 5000 + "b"}]})
    assert result.status is E
    assert result.details["error"] == "timeout"


def test_array_contains_values_and_pattern() -> None:
    check = ArrayContains("sensitive_dirs_skipped", ["people/", "documents/"])
    result = check.check(SEARCH)
    assert result.reason == "sensitive_dirs_skipped does not contain 'people/'"
    assert result.details["missing"] == ["people/"]
    assert ArrayContains("sensitive_dirs_skipped", ["documents/"]).check(SEARCH).passed
    assert ArrayContains("results[*].type", ["person"]).check(SEARCH).passed
    assert ArrayContains("results[0].metadata.tags", pattern="^sec").check(SEARCH).passed
    miss = ArrayContains("results[0].metadata.tags", pattern="^draft").check(SEARCH)
    assert miss.reason == "No item of results[0].metadata.tags matches pattern '^draft'"
    assert ArrayContains("summary", ["x"]).check(SEARCH).status is F
    assert ArrayContains("absent", ["x"]).check(SEARCH).reason == "Missing field: absent"
    with pytest.raises(ValueError, match="exactly one"):
        ArrayContains("a", ["x"], pattern="y")
    with pytest.raises(ValueError, match="exactly one"):
        ArrayContains("a")


def test_all_in_range_rejects_non_numbers() -> None:
    check = AllInRange("results[*].relevance", 0, 1)
    assert check.check(SEARCH).passed
    result = check.check({"results": [{"relevance": "0.5"}, {"relevance": True}]})
    assert result.reason == "Value '0.5' at results[0].relevance is not a number (and 1 more)"


def test_range_check_on_one_value() -> None:
    check = InRange("performance.search_duration_ms", 0, 5000)
    assert check.check({"performance": {"search_duration_ms": 5000}}).passed
    assert check.check({}).reason == "Missing field: performance.search_duration_ms"
    assert InRange("x", min=10).check({"x": 3}).reason == "Value 3 at x is outside range 10-inf"
    with pytest.raises(ValueError, match="min"):
        InRange("x")
    with pytest.raises(ValueError, match="larger than max"):
        InRange("x", 5, 1)


def test_sorted_desc_allows_ties_and_errors_on_mixed_values() -> None:
    assert SortedDesc("v[*]").check({"v": [3, 3, 2, 2.0, 1]}).passed
    assert SortedDesc("v[*]").check({"v": ["c", "b", "a"]}).passed
    mixed = SortedDesc("v[*]").check({"v": [3, "b"]})
    assert mixed.status is E
    assert SortedDesc("v[*]").check({"v": [3, None]}).status is E


def test_sorted_desc_names_the_item_index_when_items_have_no_value() -> None:
    result = SortedDesc("results[*].relevance").check(
        {"results": [{"relevance": 1}, {"other": 0}, {"relevance": 2}]}
    )
    assert result.details["index"] == 2
    assert result.reason.startswith("Values not sorted descending at index 2: results[2].relevance")


def test_a_single_field_that_does_not_match_is_named_not_reported_missing() -> None:
    """docs/expect.md ("Keys"): a field that exists but does not match fails with the
    pattern's reason and the first offender; only an absent field is "Missing field"."""
    result = AllMatchPattern("a", "^b").check({"a": "xyz"})
    assert result.status is F
    assert result.reason == "Value 'xyz' at a doesn't match pattern '^b'"
    assert result.details["path"] == "a"
    assert result.details["actual"] == "xyz"
    assert "missing" not in result.details


def test_a_value_that_is_not_a_string_is_matched_as_json_with_its_non_ascii_text_kept() -> None:
    """`_pattern_text`: an object, array or number is matched against its JSON text, with
    non-ASCII characters kept as they are (not `\\u` escapes)."""
    values = {"v": [{"n": "café"}, ["un café"]]}
    assert AllMatchPattern("v[*]", "café").check(values).passed
    result = NoneMatchPattern("v[*]", 'é"').check(values)
    assert result.status is F
    assert result.details["offending_count"] == 2
