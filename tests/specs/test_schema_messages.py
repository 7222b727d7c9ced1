"""What the dialect schemas say about a mistake, as an editor shows it: a misspelt type name
is refused with the list of known names (not "is not valid under any of the given schemas"),
and a mistake in a known type is reported in that type's own terms.

Sources: src/chatassert/_schemas.py (`_by_type`, `_first_of`). Docs: docs/offline.md
("Editor support").
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import pytest
from jsonschema.exceptions import ValidationError, best_match

from chatassert._schemas import DRAFT_2020_12, dialect_schema, native_schema
from chatassert.specs import parse_yaml

MANIFEST = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: {kind}\nspec:\n"
SCENARIO = MANIFEST.format(kind="Scenario") + "  turns:\n    - role: user\n      content: hi\n"


@cache
def validator(dialect: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(dialect_schema(dialect))


def problems(dialect: str, text: str) -> list[ValidationError]:
    doc: Any = parse_yaml(text, "<spec>")
    return list(validator(dialect).iter_errors(doc))


MISSPELT_TYPES = [
    ("flat", "- {type: contians, value: x}", [0, "type"], "contains"),
    (
        "flat",
        "turns:\n  - user_input: hi\n    assertions: [{type: contians, value: x}]\n",
        ["turns", 0, "assertions", 0, "type"],
        "contains",
    ),
    (
        "flat",
        "test_cases:\n  - name: a\n    turns: [{user_input: hi, assertions: [{type: not_contain, "
        "value: x}]}]\n",
        ["test_cases", 0, "turns", 0, "assertions", 0, "type"],
        "not_contains",
    ),
    (
        "native",
        "chatassert: 1\nassertions: [{type: contians, value: x}]\n",
        ["assertions", 0, "type"],
        "contains",
    ),
    (
        "promptkit",
        SCENARIO + "      assertions: [{type: content_include, params: {patterns: [a]}}]\n",
        ["spec", "turns", 0, "assertions", 0, "type"],
        "content_includes",
    ),
    (
        "promptkit",
        "- {type: tools_calld, params: {tools: [a]}}",
        [0, "type"],
        "tools_called",
    ),
    ("expect", "statsu: success", [], "status"),
    ("expect", "tests: [{id: a, expect: {statsu: success}}]", ["tests", 0, "expect"], "status"),
]


@pytest.mark.parametrize(("dialect", "text", "where", "meant"), MISSPELT_TYPES)
def test_a_misspelt_type_is_refused_with_the_known_names(
    dialect: str, text: str, where: list[Any], meant: str
) -> None:
    found = problems(dialect, text)
    assert len(found) == 1, [e.message for e in found]  # one message, at the name
    (error,) = found
    assert list(error.absolute_path) == where
    assert error.validator in ("enum", "propertyNames")
    assert "is not one of [" in error.message
    assert f"'{meant}'" in error.message  # the list holds the name meant
    assert "any of the given schemas" not in error.message
    assert best_match(iter(problems(dialect, text))).message == error.message


def test_the_native_spec_schema_names_the_known_types_too() -> None:
    schema = native_schema(draft=DRAFT_2020_12)
    doc = parse_yaml("chatassert: 1\nassertions: [{type: contians, value: x}]\n", "<spec>")
    (error,) = jsonschema.Draft202012Validator(schema).iter_errors(doc)
    assert list(error.absolute_path) == ["assertions", 0, "type"]
    assert "'contians' is not one of [" in error.message


@pytest.mark.parametrize(
    ("dialect", "text", "where", "said"),
    [
        ("flat", "- {type: contains, valeu: x}", [0], "('valeu' was unexpected)"),
        (
            "flat",
            "test_cases: [{name: a, turns: [], colour: red}]",
            ["test_cases", 0],
            "('colour' was unexpected)",
        ),
        (
            "native",
            "chatassert: 1\nassertions: [{type: contains, value: [1]}]\n",
            ["assertions", 0, "value"],
            "",
        ),
        (
            "promptkit",
            SCENARIO + "      assertions: [{type: content_includes, params: {patterns: 5}}]\n",
            ["spec", "turns", 0, "assertions", 0, "params", "patterns"],
            "",
        ),
        ("promptkit", MANIFEST.format(kind="Scenari") + "  turns: []\n", ["kind"], "'Scenario'"),
    ],
)
def test_a_mistake_in_a_known_type_is_reported_in_its_terms(
    dialect: str, text: str, where: list[Any], said: str
) -> None:
    found = problems(dialect, text)
    assert found
    best = best_match(iter(found))
    assert list(best.absolute_path)[: len(where)] == where
    assert any(said in e.message and list(e.absolute_path) == where for e in found)
    assert all("any of the given schemas" not in e.message for e in found if not e.path)
