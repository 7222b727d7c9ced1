"""Tests of chatassert._results (docs/expect.md, "Keys" and "Details"): the counts, tags and
schema of `results`, and the conditional and alternative checks (`IfResults`, `IfHasHistory`,
`IfSensitiveResults`, `OneOf`), whatever checks they hold.

The decision-table rows of these checks (whole records, built by `expect_decisions.row`; see
`expect_decisions` for what a row promises), their construction errors and their descriptions,
then their standalone tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from expect_decisions import (
    SEARCH,
    E,
    F,
    P,
    S,
    err,
    row,
    table_tests,
)

from chatassert import (
    AllMatch,
    AllOf,
    SortedDesc,
)
from chatassert.expect import (
    AllHaveTags,
    ArrayContains,
    EachHasAnyTag,
    IfHasHistory,
    IfResults,
    IfSensitiveResults,
    JsonContains,
    NoneHaveTags,
    OneOf,
    ResultsCount,
    ResultsMatchSchema,
    ResultsMax,
    ResultsMin,
    StatusIs,
)

ROWS = [
    row(
        "min-pass",
        lambda: ResultsMin(2),
        {"results": [{}, {}]},
        P,
        "at least 2 results",
        {"path": "results", "expected": 2, "actual": 2},
        quick=True,
    ),
    row(
        "min-fail",
        lambda: ResultsMin(1),
        {"results": []},
        F,
        "Expected at least 1 result, got 0",
        {"path": "results", "expected": 1, "actual": 0},
    ),
    row(
        "min-fail-plural",
        lambda: ResultsMin(3),
        {"results": [{}, {}]},
        F,
        "Expected at least 3 results, got 2",
        {"path": "results", "expected": 3, "actual": 2},
    ),
    row(
        "max-pass-equal",
        lambda: ResultsMax(2),
        {"results": [{}, {}]},
        P,
        "at most 2 results",
        {"path": "results", "expected": 2, "actual": 2},
        quick=True,
    ),
    row(
        "max-fail",
        lambda: ResultsMax(2),
        {"results": [{}, {}, {}]},
        F,
        "Expected at most 2 results, got 3",
        {"path": "results", "expected": 2, "actual": 3},
    ),
    row(
        "max-one-fail",
        lambda: ResultsMax(1),
        {"results": [{}, {}]},
        F,
        "Expected at most 1 result, got 2",
        {"path": "results", "expected": 1, "actual": 2},
    ),
    row(
        "count-pass",
        lambda: ResultsCount(1),
        {"results": [{}]},
        P,
        "exactly 1 result",
        {"path": "results", "expected": 1, "actual": 1},
        quick=True,
    ),
    row(
        "count-fail-low",
        lambda: ResultsCount(2),
        {"results": [{}]},
        F,
        "Expected exactly 2 results, got 1",
        {"path": "results", "expected": 2, "actual": 1},
    ),
    row(
        "count-fail-high",
        lambda: ResultsCount(1),
        {"results": [{}, {}]},
        F,
        "Expected exactly 1 result, got 2",
        {"path": "results", "expected": 1, "actual": 2},
    ),
    row(
        "count-missing",
        lambda: ResultsMin(0),
        {"status": "success"},
        F,
        "Expected at least 0 results, got no 'results' field",
        {"path": "results", "expected": 0, "actual": None},
    ),
    row(
        "count-not-list",
        lambda: ResultsMin(1),
        {"results": "many"},
        F,
        "Expected at least 1 result, got 'results' that is not a list ('many')",
        {"path": "results", "expected": 1, "actual": "many"},
    ),
    row(
        "count-not-list-long",
        lambda: ResultsCount(1),
        {"results": {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}},
        F,
        'Expected exactly 1 result, got \'results\' that is not a list ({"a": "xxxxxxxxxxxxxxxxxxx…xxxxxxxxxxx"})',  # noqa: E501
        {
            "path": "results",
            "expected": 1,
            "actual": {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
        },
    ),
    # `show`: a value in a reason is cut to 80 characters, or to the width its reason gives it
    row(
        "count-not-list-long-text",
        lambda: ResultsCount(1),
        {"results": "y" * 100},
        F,
        "Expected exactly 1 result, got 'results' that is not a list ('"
        + "y" * 26
        + "…"
        + "y" * 13
        + "')",
        {"path": "results", "expected": 1, "actual": "y" * 100},
    ),
    row(
        "count-not-list-long-number",
        lambda: ResultsCount(1),
        {"results": 10**50},
        F,
        "Expected exactly 1 result, got 'results' that is not a list (1"
        + "0" * 25
        + "…"
        + "0" * 13
        + ")",
        {"path": "results", "expected": 1, "actual": 10**50},
    ),
    row(
        "count-not-object",
        lambda: ResultsMax(1),
        [1, 2],
        F,
        "Expected at most 1 result, got no 'results' field",
        {"path": "results", "expected": 1, "actual": None},
    ),
    row(
        "count-zero-pass",
        lambda: ResultsCount(0),
        {"results": []},
        P,
        "exactly 0 results",
        {"path": "results", "expected": 0, "actual": 0},
        quick=True,
    ),
    row(
        "tags-all-pass",
        lambda: AllHaveTags(["work", "security"]),
        {"results": [{"metadata": {"tags": ["security", "work"]}}]},
        P,
        "every result has tags 'work', 'security'",
        {"path": "results[*].metadata.tags", "expected": ["work", "security"], "checked": 1},
        quick=True,
    ),
    row(
        "tags-all-fail",
        lambda: AllHaveTags(["work", "security"]),
        {
            "results": [
                {"metadata": {"tags": ["security", "work"]}},
                {"metadata": {"tags": ["work"]}},
                {"metadata": {}},
            ]
        },
        F,
        "Result 1 missing required tag: 'security' (and 1 more)",
        {
            "path": "results[1].metadata.tags",
            "expected": ["work", "security"],
            "actual": ["work"],
            "index": 1,
            "offending": [
                {
                    "path": "results[1].metadata.tags",
                    "actual": ["work"],
                    "index": 1,
                    "reason": "Result 1 missing required tag: 'security'",
                },
                {
                    "path": "results[2].metadata.tags",
                    "actual": [],
                    "index": 2,
                    "reason": "Result 2 missing required tag: 'work'",
                },
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "tags-all-string-tag",
        lambda: AllHaveTags("work"),
        {"results": [{"metadata": {"tags": "work"}}]},
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 1},
    ),
    row(
        "tags-all-no-meta",
        lambda: AllHaveTags(["work"]),
        {"results": [{"file": "a"}, 3]},
        F,
        "Result 0 missing required tag: 'work' (and 1 more)",
        {
            "path": "results[0].metadata.tags",
            "expected": ["work"],
            "actual": [],
            "index": 0,
            "offending": [
                {
                    "path": "results[0].metadata.tags",
                    "actual": [],
                    "index": 0,
                    "reason": "Result 0 missing required tag: 'work'",
                },
                {
                    "path": "results[1].metadata.tags",
                    "actual": [],
                    "index": 1,
                    "reason": "Result 1 missing required tag: 'work'",
                },
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "tags-all-no-results",
        lambda: AllHaveTags(["work"]),
        {"status": "ok"},
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
    ),
    row(
        "tags-all-results-not-list",
        lambda: AllHaveTags(["work"]),
        {"results": "x"},
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
    ),
    row(
        "tags-not-list",
        lambda: AllHaveTags(["work"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {"tags": 3}}]},
        E,
        "results[1].metadata.tags is not a list of tags (3)",
        {"path": "results[1].metadata.tags", "actual": 3},
    ),
    row(
        "tags-none-pass",
        lambda: NoneHaveTags(["draft", "old"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {}}]},
        P,
        "no result has tags 'draft', 'old'",
        {"path": "results[*].metadata.tags", "expected": ["draft", "old"], "checked": 2},
    ),
    row(
        "tags-none-pass-quick",
        lambda: NoneHaveTags(["draft", "old"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {"tags": []}}]},
        P,
        "no result has tags 'draft', 'old'",
        {"path": "results[*].metadata.tags", "expected": ["draft", "old"], "checked": 2},
        quick=True,
    ),
    row(
        "tags-none-fail",
        lambda: NoneHaveTags(["draft", "old"]),
        {"results": [{"metadata": {"tags": ["work"]}}, {"metadata": {"tags": ["old", "draft"]}}]},
        F,
        "Result 1 has excluded tag: 'draft'",
        {
            "path": "results[1].metadata.tags",
            "expected": ["draft", "old"],
            "actual": ["old", "draft"],
            "index": 1,
            "offending": [
                {
                    "path": "results[1].metadata.tags",
                    "actual": ["old", "draft"],
                    "index": 1,
                    "reason": "Result 1 has excluded tag: 'draft'",
                }
            ],
            "offending_count": 1,
            "checked": 2,
        },
    ),
    row(
        "tags-any-pass",
        lambda: EachHasAnyTag(["work", "personal"]),
        {"results": [{"metadata": {"tags": ["personal"]}}, {"metadata": {"tags": ["work", "x"]}}]},
        P,
        "every result has one of the tags 'work', 'personal'",
        {"path": "results[*].metadata.tags", "expected": ["work", "personal"], "checked": 2},
        quick=True,
    ),
    row(
        "tags-any-fail",
        lambda: EachHasAnyTag(["work", "personal"]),
        {
            "results": [
                {"metadata": {"tags": ["work"]}},
                {"metadata": {"tags": ["misc", 3]}},
                {"metadata": {"tags": []}},
            ]
        },
        F,
        "Result 1 has none of the tags: 'work', 'personal' (and 1 more)",
        {
            "path": "results[1].metadata.tags",
            "expected": ["work", "personal"],
            "actual": ["misc", 3],
            "index": 1,
            "offending": [
                {
                    "path": "results[1].metadata.tags",
                    "actual": ["misc", 3],
                    "index": 1,
                    "reason": "Result 1 has none of the tags: 'work', 'personal'",
                },
                {
                    "path": "results[2].metadata.tags",
                    "actual": [],
                    "index": 2,
                    "reason": "Result 2 has none of the tags: 'work', 'personal'",
                },
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "tags-any-empty",
        lambda: EachHasAnyTag(["work"]),
        {"results": []},
        P,
        "every result has one of the tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
        quick=True,
    ),
    row(
        "schema-pass",
        lambda: ResultsMatchSchema(
            {
                "file": "string",
                "rel": {"type": "number", "min": 0, "max": 1},
                "tags": {"type": "array", "max": 2},
            }
        ),
        {"results": [{"file": "a", "rel": 1, "tags": []}, {"file": "", "rel": 0, "tags": [1, 2]}]},
        P,
        'every result matches {"file": "string", "rel": {"type": "number", "min": 0, "max": 1}, "tags": {"type": "array", "max": 2}}',  # noqa: E501
        {
            "expected": {
                "file": "string",
                "rel": {"type": "number", "min": 0, "max": 1},
                "tags": {"type": "array", "max": 2},
            },
            "checked": 2,
        },
    ),
    row(
        "schema-fail-type",
        lambda: ResultsMatchSchema({"file": "string", "rel": "number"}),
        {"results": [{"file": "a.md", "rel": "0.9"}]},
        F,
        "Result 0 field rel: expected number, got '0.9'",
        {
            "path": "results[0].rel",
            "expected": {"file": "string", "rel": "number"},
            "actual": "0.9",
            "index": 0,
            "offending": [
                {
                    "path": "results[0].rel",
                    "actual": "0.9",
                    "index": 0,
                    "reason": "Result 0 field rel: expected number, got '0.9'",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-fail-missing",
        lambda: ResultsMatchSchema({"file": "string", "n": "integer"}),
        {"results": [{"n": 1.5}, {"file": 3, "n": 2}]},
        F,
        "Result 0 missing field: file (and 2 more)",
        {
            "path": "results[0].file",
            "expected": {"file": "string", "n": "integer"},
            "actual": None,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].file",
                    "actual": None,
                    "index": 0,
                    "reason": "Result 0 missing field: file",
                },
                {
                    "path": "results[0].n",
                    "actual": 1.5,
                    "index": 0,
                    "reason": "Result 0 field n: expected integer, got 1.5",
                },
                {
                    "path": "results[1].file",
                    "actual": 3,
                    "index": 1,
                    "reason": "Result 1 field file: expected string, got 3",
                },
            ],
            "offending_count": 3,
            "checked": 2,
        },
    ),
    row(
        "schema-range-high",
        lambda: ResultsMatchSchema({"rel": {"type": "number", "min": 0, "max": 1}}),
        {"results": [{"rel": 1.5}]},
        F,
        "Result 0 field rel: value 1.5 is outside range 0-1",
        {
            "path": "results[0].rel",
            "expected": {"rel": {"type": "number", "min": 0, "max": 1}},
            "actual": 1.5,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].rel",
                    "actual": 1.5,
                    "index": 0,
                    "reason": "Result 0 field rel: value 1.5 is outside range 0-1",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-range-low",
        lambda: ResultsMatchSchema({"rel": {"type": "number", "min": 0}}),
        {"results": [{"rel": -1}]},
        F,
        "Result 0 field rel: value -1 is outside range 0-inf",
        {
            "path": "results[0].rel",
            "expected": {"rel": {"type": "number", "min": 0}},
            "actual": -1,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].rel",
                    "actual": -1,
                    "index": 0,
                    "reason": "Result 0 field rel: value -1 is outside range 0-inf",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-length",
        lambda: ResultsMatchSchema({"name": {"type": "string", "max": 3}}),
        {"results": [{"name": "abcd"}]},
        F,
        "Result 0 field name: length 4 is outside range -inf-3",
        {
            "path": "results[0].name",
            "expected": {"name": {"type": "string", "max": 3}},
            "actual": "abcd",
            "index": 0,
            "offending": [
                {
                    "path": "results[0].name",
                    "actual": "abcd",
                    "index": 0,
                    "reason": "Result 0 field name: length 4 is outside range -inf-3",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-length-low",
        lambda: ResultsMatchSchema({"tags": {"type": "array", "min": 1}}),
        {"results": [{"tags": []}]},
        F,
        "Result 0 field tags: length 0 is outside range 1-inf",
        {
            "path": "results[0].tags",
            "expected": {"tags": {"type": "array", "min": 1}},
            "actual": [],
            "index": 0,
            "offending": [
                {
                    "path": "results[0].tags",
                    "actual": [],
                    "index": 0,
                    "reason": "Result 0 field tags: length 0 is outside range 1-inf",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-object-no-range",
        lambda: ResultsMatchSchema(
            {"m": {"type": "object", "max": 0}, "b": "boolean", "z": "null"}
        ),
        {"results": [{"m": {"a": 1}, "b": False, "z": None}]},
        P,
        'every result matches {"m": {"type": "object", "max": 0}, "b": "boolean", "z": "null"}',
        {
            "expected": {"m": {"type": "object", "max": 0}, "b": "boolean", "z": "null"},
            "checked": 1,
        },
    ),
    row(
        "schema-bool-not-int",
        lambda: ResultsMatchSchema(
            {"b": "integer", "a": "array", "o": "object", "f": "boolean", "z": "null"}
        ),
        {"results": [{"b": True, "a": {}, "o": [], "f": 0, "z": 0}]},
        F,
        "Result 0 field b: expected integer, got true (and 4 more)",
        {
            "path": "results[0].b",
            "expected": {"b": "integer", "a": "array", "o": "object", "f": "boolean", "z": "null"},
            "actual": True,
            "index": 0,
            "offending": [
                {
                    "path": "results[0].b",
                    "actual": True,
                    "index": 0,
                    "reason": "Result 0 field b: expected integer, got true",
                },
                {
                    "path": "results[0].a",
                    "actual": {},
                    "index": 0,
                    "reason": "Result 0 field a: expected array, got {}",
                },
                {
                    "path": "results[0].o",
                    "actual": [],
                    "index": 0,
                    "reason": "Result 0 field o: expected object, got []",
                },
                {
                    "path": "results[0].f",
                    "actual": 0,
                    "index": 0,
                    "reason": "Result 0 field f: expected boolean, got 0",
                },
                {
                    "path": "results[0].z",
                    "actual": 0,
                    "index": 0,
                    "reason": "Result 0 field z: expected null, got 0",
                },
            ],
            "offending_count": 5,
            "checked": 1,
        },
    ),
    row(
        "schema-nested",
        lambda: ResultsMatchSchema({"metadata.tags": "array"}),
        {"results": [{"metadata": {"tags": "x"}}]},
        F,
        "Result 0 field metadata.tags: expected array, got 'x'",
        {
            "path": "results[0].metadata.tags",
            "expected": {"metadata.tags": "array"},
            "actual": "x",
            "index": 0,
            "offending": [
                {
                    "path": "results[0].metadata.tags",
                    "actual": "x",
                    "index": 0,
                    "reason": "Result 0 field metadata.tags: expected array, got 'x'",
                }
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "schema-no-results",
        lambda: ResultsMatchSchema({"a": "string"}),
        {"status": "ok"},
        P,
        'every result matches {"a": "string"}',
        {"expected": {"a": "string"}, "checked": 0},
    ),
    row(
        "schema-not-object",
        lambda: ResultsMatchSchema({"a": "string"}),
        [1],
        P,
        'every result matches {"a": "string"}',
        {"expected": {"a": "string"}, "checked": 0},
    ),
    row(
        "ifr-skip",
        lambda: IfResults(AllHaveTags(["work"])),
        {"results": []},
        S,
        "condition not met: no results",
        {"condition": False},
    ),
    row(
        "ifr-skip-missing",
        lambda: IfResults(AllHaveTags(["work"])),
        {},
        S,
        "condition not met: no results",
        {"condition": False},
    ),
    row(
        "ifr-fail",
        lambda: IfResults(AllHaveTags(["work"])),
        {"results": [{"metadata": {"tags": ["x"]}}]},
        F,
        "Result 0 missing required tag: 'work'",
        {"condition": True},
    ),
    row(
        "ifs-skip",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {"results": [{"file": "journal/a.md"}, {"file": 3}, 5]},
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "ifs-skip-no-results",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {"results": "x"},
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "ifs-pass",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {
            "results": [
                {"file": "journal/a.md"},
                {"file": "people/b.md", "sensitive": True},
                {"file": "documents/c", "sensitive": True},
            ]
        },
        P,
        "every sensitive result's sensitive is true",
        {"condition": True, "path": "sensitive", "expected": True, "checked": 2},
    ),
    row(
        "ifs-fail",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {
            "results": [
                {"file": "journal/a.md"},
                {"file": "people/b.md", "sensitive": 1},
                {"file": "documents/c"},
            ]
        },
        F,
        "results[1].sensitive: expected true, got 1 (and 1 more)",
        {
            "path": "results[1].sensitive",
            "expected": True,
            "actual": 1,
            "index": 1,
            "condition": True,
            "offending": [
                {"path": "results[1].sensitive", "actual": 1, "index": 1},
                {"path": "results[2].sensitive", "actual": None, "index": 2, "missing": True},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "ifs-missing-first",
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        {"results": [{"file": "people/b.md"}, {"file": "people/c.md", "sensitive": False}]},
        F,
        "Missing field: results[0].sensitive (and 1 more)",
        {
            "path": "results[0].sensitive",
            "expected": True,
            "actual": None,
            "index": 0,
            "condition": True,
            "offending": [
                {"path": "results[0].sensitive", "actual": None, "index": 0, "missing": True},
                {"path": "results[1].sensitive", "actual": False, "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "ifs-exists",
        lambda: IfSensitiveResults(has_field="sensitive"),
        {
            "results": [
                {"file": "people/b.md", "sensitive": None},
                {"file": "people/c.md", "sensitive": False},
            ]
        },
        P,
        "every sensitive result's sensitive exists",
        {"condition": True, "path": "sensitive", "expected": None, "checked": 2},
    ),
    row(
        "ifs-exists-fail",
        lambda: IfSensitiveResults(has_field="meta.flag"),
        {"results": [{"file": "people/b.md", "meta": {}}]},
        F,
        "Missing field: results[0].meta.flag",
        {
            "path": "results[0].meta.flag",
            "expected": None,
            "actual": None,
            "index": 0,
            "condition": True,
            "offending": [
                {"path": "results[0].meta.flag", "actual": None, "index": 0, "missing": True}
            ],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "ifs-own-prefixes",
        lambda: IfSensitiveResults(has_field="s", value="y", sensitive_prefixes=["hr/"]),
        {"results": [{"file": "people/b.md"}, {"file": "hr/x", "s": "n"}]},
        F,
        "results[1].s: expected 'y', got 'n'",
        {
            "path": "results[1].s",
            "expected": "y",
            "actual": "n",
            "index": 1,
            "condition": True,
            "offending": [{"path": "results[1].s", "actual": "n", "index": 1}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "ifs-own-prefixes-skip",
        lambda: IfSensitiveResults(has_field="s", sensitive_prefixes=["hr/", "legal/"]),
        {"results": [{"file": "people/b.md"}]},
        S,
        "condition not met: no result file starts with 'hr/' or 'legal/'",
        {"condition": False},
    ),
    row(
        "ifs-not-object",
        lambda: IfSensitiveResults(has_field="s"),
        [{"file": "people/a"}],
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "tags-not-object",
        lambda: AllHaveTags(["work"]),
        [{"metadata": {"tags": []}}],
        P,
        "every result has tags 'work'",
        {"path": "results[*].metadata.tags", "expected": ["work"], "checked": 0},
    ),
    row(
        "tags-not-list-long",
        lambda: EachHasAnyTag(["work"]),
        {
            "results": [
                {
                    "metadata": {
                        "tags": {
                            "work": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                        }
                    }
                }
            ]
        },
        E,
        'results[0].metadata.tags is not a list of tags ({"work": "xxxxxxxxxxxxxxxx…xxxxxxxxxxx"})',
        {
            "path": "results[0].metadata.tags",
            "actual": {"work": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
        },
    ),
    row(
        "oneof-pass",
        lambda: OneOf(StatusIs("error"), JsonContains("filter")),
        {"status": "ok", "m": "filter"},
        P,
        "expect_contains passed",
        {"passed": 1, "failed": 1, "error": 0, "skipped": 0},
    ),
    row(
        "oneof-two",
        lambda: OneOf(StatusIs("error"), JsonContains("filter")),
        {"status": "ok"},
        F,
        "Neither status is 'error' nor response contains 'filter'",
        {"passed": 0, "failed": 2, "error": 0, "skipped": 0},
    ),
    row(
        "oneof-one",
        lambda: OneOf(StatusIs("error")),
        {"status": "ok"},
        F,
        "Expected status is 'error'",
        {"passed": 0, "failed": 1, "error": 0, "skipped": 0},
    ),
    row(
        "oneof-three",
        lambda: OneOf(StatusIs("a"), StatusIs("b"), AllOf(StatusIs("c"), ResultsMin(1))),
        {"status": "ok"},
        F,
        "None of: status is 'a'; status is 'b'; status is 'c' and at least 1 result",
        {"passed": 0, "failed": 3, "error": 0, "skipped": 0},
    ),
    row(
        "ifr-pass",
        lambda: IfResults(StatusIs("ok")),
        {"results": [1], "status": "ok"},
        P,
        "status is 'ok'",
        {"condition": True},
    ),
    row(
        "ifh-skip",
        lambda: IfHasHistory(StatusIs("ok")),
        {"results": []},
        S,
        "condition not met: no history_results",
        {"condition": False},
    ),
    row(
        "ifh-null",
        lambda: IfHasHistory(StatusIs("ok")),
        {"history_results": None, "status": "no"},
        F,
        "Expected status 'ok', got 'no'",
        {"condition": True},
    ),
    row(
        "ifh-not-object",
        lambda: IfHasHistory(StatusIs("ok")),
        [1],
        S,
        "condition not met: no history_results",
        {"condition": False},
    ),
    row(
        "ifs-child",
        lambda: IfSensitiveResults(StatusIs("ok")),
        {"status": "no", "results": [{"file": "documents/x"}]},
        F,
        "Expected status 'ok', got 'no'",
        {"condition": True},
    ),
    row(
        "ifs-child-skip",
        lambda: IfSensitiveResults(StatusIs("ok")),
        {"status": "no", "results": [{"file": "x/documents/"}]},
        S,
        "condition not met: no result file starts with 'people/' or 'documents/'",
        {"condition": False},
    ),
    row(
        "ifr-not-object",
        lambda: IfResults(StatusIs("ok")),
        [1],
        S,
        "condition not met: no results",
        {"condition": False},
    ),
]


ERRORS = [
    err(
        "count-negative",
        lambda: ResultsMin(-1),
        ValueError,
        "expect_results_min must be at least 0, got -1",
    ),
    err(
        "count-bool",
        lambda: ResultsMax(True),
        TypeError,
        "expect_results_max must be an integer, got bool True",
    ),
    err(
        "count-float",
        lambda: ResultsCount(1.0),
        TypeError,
        "expect_results_count must be an integer, got float 1.0",
    ),
    err(
        "tags-empty",
        lambda: AllHaveTags([]),
        ValueError,
        "expect_all_have_tags needs at least one value, got an empty list",
    ),
    err(
        "tags-not-text",
        lambda: NoneHaveTags(["a", 1]),
        TypeError,
        "expect_none_have_tags values must be a string, got int 1",
    ),
    err(
        "schema-empty",
        lambda: ResultsMatchSchema({}),
        ValueError,
        "results_schema needs a non-empty mapping of field to type",
    ),
    err(
        "schema-not-mapping",
        lambda: ResultsMatchSchema(["a"]),
        ValueError,
        "results_schema needs a non-empty mapping of field to type",
    ),
    err(
        "schema-unknown-type",
        lambda: ResultsMatchSchema({"a": "text"}),
        ValueError,
        "results_schema field 'a': unknown type 'text'; use one of string, number, integer, boolean, object, array, null",  # noqa: E501
    ),
    err(
        "schema-unknown-key",
        lambda: ResultsMatchSchema({"a": {"type": "string", "size": 1, "len": 2}}),
        ValueError,
        "results_schema field 'a': unknown keys ['len', 'size']; use type, min and max",
    ),
    err(
        "schema-bad-min",
        lambda: ResultsMatchSchema({"a": {"type": "number", "min": "0"}}),
        TypeError,
        "results_schema a min must be a number, got str '0'",
    ),
    err(
        "schema-bad-max",
        lambda: ResultsMatchSchema({"a": {"type": "number", "max": "1"}}),
        TypeError,
        "results_schema a max must be a number, got str '1'",
    ),
    err(
        "schema-no-type",
        lambda: ResultsMatchSchema({"a": {"min": 1}}),
        ValueError,
        "results_schema field 'a': unknown type None; use one of string, number, integer, boolean, object, array, null",  # noqa: E501
    ),
    err("oneof-none", lambda: OneOf(), ValueError, "one_of needs at least one branch"),
    err(
        "if-results-not-assertion",
        lambda: IfResults("x"),
        TypeError,
        "IfResults takes an assertion, got str",
    ),
    err(
        "ifs-neither",
        lambda: IfSensitiveResults(),
        ValueError,
        "if_sensitive_results needs either inner assertions or 'has_field' (with an optional 'value')",  # noqa: E501
    ),
    err(
        "ifs-not-assertion",
        lambda: IfSensitiveResults("x"),
        TypeError,
        "IfSensitiveResults takes an assertion, got str",
    ),
    err(
        "ifs-empty-prefixes",
        lambda: IfSensitiveResults(has_field="x", sensitive_prefixes=[]),
        ValueError,
        "sensitive_prefixes needs at least one value, got an empty list",
    ),
    err(
        "ifs-prefix-not-text",
        lambda: IfSensitiveResults(has_field="x", sensitive_prefixes=["a/", 3]),
        TypeError,
        "sensitive_prefixes values must be a string, got int 3",
    ),
    err(
        "ifs-field-empty",
        lambda: IfSensitiveResults(has_field=""),
        ValueError,
        "has_field must not be empty",
    ),
    err(
        "ifs-field-not-text",
        lambda: IfSensitiveResults(has_field=3),
        TypeError,
        "has_field must be a string, got int 3",
    ),
    err(
        "ifs-both",
        lambda: IfSensitiveResults(StatusIs("a"), has_field="x"),
        ValueError,
        "if_sensitive_results needs either inner assertions or 'has_field' (with an optional 'value')",  # noqa: E501
    ),
    err(
        "ifs-child-value",
        lambda: IfSensitiveResults(StatusIs("a"), value=1),
        ValueError,
        "if_sensitive_results 'value' goes with 'has_field'",
    ),
]


DESCRIPTIONS = [
    (
        lambda: IfSensitiveResults(has_field="sensitive", value=True),
        "every sensitive result's sensitive is true",
    ),
    (
        lambda: IfSensitiveResults(has_field="sensitive"),
        "every sensitive result's sensitive exists",
    ),
    (lambda: AllHaveTags(["work", "security"]), "every result has tags 'work', 'security'"),
    (lambda: NoneHaveTags(["draft", "old"]), "no result has tags 'draft', 'old'"),
    (
        lambda: EachHasAnyTag(["work", "personal"]),
        "every result has one of the tags 'work', 'personal'",
    ),
    (
        lambda: ResultsMatchSchema({"file": "string", "rel": {"type": "number", "min": 0}}),
        'every result matches {"file": "string", "rel": {"type": "number", "min": 0}}',
    ),
    (lambda: ResultsMin(1), "at least 1 result"),
    (lambda: ResultsCount(2), "exactly 2 results"),
    (
        lambda: IfResults(AllOf(StatusIs("ok"), ResultsMin(1))),
        "if there are results: status is 'ok' and at least 1 result",
    ),
    (
        lambda: IfHasHistory(AllMatch("history_results[*].op", "delete")),
        "if there is history: every history_results[*].op is 'delete'",
    ),
    (lambda: IfSensitiveResults(StatusIs("ok")), "if some result is sensitive: status is 'ok'"),
    (
        lambda: OneOf(StatusIs("error"), AllOf(JsonContains("filter"), ResultsMax(0))),
        "(status is 'error') or (response contains 'filter' and at most 0 results)",
    ),
]


(
    test_a_check_decides_the_documented_record,
    test_a_bad_parameter_is_rejected_when_the_check_is_built,
    test_a_check_describes_its_requirement,
) = table_tests(ROWS, ERRORS, DESCRIPTIONS)


@pytest.mark.parametrize(
    "subject", [{"status": "ok"}, {"results": None}, {"results": "x"}, [{"file": "a"}]]
)
def test_tags_and_schema_pass_with_nothing_checked_without_a_results_array(subject: Any) -> None:
    """docs/expect.md, Keys (decided): like `all_*`, the tag keys and `results_schema` pass
    with `checked: 0` when there is no `results` array; `if_results` is there to require one."""
    for check in (
        AllHaveTags(["work"]),
        NoneHaveTags(["draft"]),
        EachHasAnyTag(["work"]),
        ResultsMatchSchema({"file": "string"}),
    ):
        result = check.check(subject)
        assert (result.status, result.details["checked"]) == (P, 0)
    assert IfResults(ResultsMatchSchema({"file": "string"})).check(subject).status is S


def test_result_counts() -> None:
    assert ResultsMin(3).check(SEARCH).passed
    assert ResultsMax(3).check(SEARCH).passed
    assert ResultsCount(3).check(SEARCH).passed
    assert ResultsMax(2).check(SEARCH).reason == "Expected at most 2 results, got 3"
    assert ResultsCount(1).check(SEARCH).reason == "Expected exactly 1 result, got 3"
    missing = ResultsMin(0).check({"status": "success"})
    assert missing.status is F
    assert missing.reason == "Expected at least 0 results, got no 'results' field"
    assert ResultsMin(1).check({"results": "many"}).status is F


def test_counts_reject_negative_numbers() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        ResultsMin(-1)


def test_tags_missing_means_no_tags() -> None:
    assert AllHaveTags(["work"]).check(SEARCH).reason == "Result 2 missing required tag: 'work'"
    assert NoneHaveTags(["work"]).check(SEARCH).reason == (
        "Result 0 has excluded tag: 'work' (and 1 more)"
    )
    assert NoneHaveTags(["draft"]).check(SEARCH).passed
    result = EachHasAnyTag(["work", "personal"]).check(SEARCH)
    assert result.reason == "Result 2 has none of the tags: 'work', 'personal'"
    assert result.details["index"] == 2
    assert result.details["path"] == "results[2].metadata.tags"


def test_tags_that_are_not_a_list_are_an_error() -> None:
    result = AllHaveTags(["work"]).check({"results": [{"metadata": {"tags": 3}}]})
    assert result.status is E


def test_results_schema() -> None:
    schema = {
        "file": "string",
        "relevance": {"type": "number", "min": 0, "max": 1},
        "metadata": "object",
        "type": {"type": "string", "min": 4},
    }
    assert ResultsMatchSchema(schema).check(SEARCH).passed
    bad = {
        "results": [
            {"file": "a", "relevance": 2, "metadata": {}, "type": "note"},
            {"relevance": 0.5, "metadata": [], "type": "n"},
        ]
    }
    result = ResultsMatchSchema(schema).check(bad)
    assert result.reason == "Result 0 field relevance: value 2 is outside range 0-1 (and 3 more)"
    assert [o["reason"] for o in result.details["offending"]] == [
        "Result 0 field relevance: value 2 is outside range 0-1",
        "Result 1 missing field: file",
        "Result 1 field metadata: expected object, got []",
        "Result 1 field type: length 1 is outside range 4-inf",
    ]
    with pytest.raises(ValueError, match="unknown type"):
        ResultsMatchSchema({"file": "text"})


def test_if_sensitive_results_field_form() -> None:
    check = IfSensitiveResults(has_field="sensitive", value=True)
    assert check.check(SEARCH).passed
    assert check.check({"results": [{"file": "journal/x.md"}]}).status is S
    missing = check.check({"results": [{"file": "documents/tax.pdf"}]})
    assert missing.reason == "Missing field: results[0].sensitive"
    presence = IfSensitiveResults(has_field="sensitive")
    assert presence.check({"results": [{"file": "people/a", "sensitive": False}]}).passed


def test_one_of_with_three_branches_and_errors() -> None:
    check = OneOf(StatusIs("error"), StatusIs("partial"), JsonContains("nothing here"))
    assert check.check(SEARCH).reason == (
        "None of: status is 'error'; status is 'partial'; response contains 'nothing here'"
    )
    errored = OneOf(StatusIs("error"), SortedDesc("v[*]")).check({"status": "ok", "v": [1, "a"]})
    assert errored.status is E


def test_if_has_history() -> None:
    check = IfHasHistory(AllMatch("history_results[*].operation", "delete"))
    assert check.check(SEARCH).status is S
    ok = {"history_results": [{"operation": "delete"}]}
    assert check.check(ok).passed
    bad = check.check({"history_results": [{"operation": "create"}]})
    assert bad.status is F
    assert bad.children[0].reason == (
        "Found non-matching item: 'create' at history_results[0].operation"
    )


def test_if_sensitive_results_with_inner_checks_and_own_prefixes() -> None:
    inner = IfSensitiveResults(ArrayContains("sensitive_dirs_skipped", ["people/"]))
    assert inner.check(SEARCH).status is F
    custom = IfSensitiveResults(has_field="sensitive", sensitive_prefixes=["journal/"])
    result = custom.check(SEARCH)
    assert result.reason == "Missing field: results[0].sensitive (and 1 more)"
    with pytest.raises(ValueError, match="either"):
        IfSensitiveResults()
