"""The JSON Schemas of each dialect's files (`chatassert schema --dialect`, shipped under
chatassert/schemas/): every file and documented example the loader accepts validates against
its dialect's schema, keys the loader refuses fail, and the shipped files are what the
generator writes."""

from __future__ import annotations

import datetime as dt
import re
import textwrap
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chatassert import from_spec
from chatassert._schemas import DIALECTS, dialect_schema, render, schema_file
from chatassert._workflow import Workflow
from chatassert.errors import SpecError
from chatassert.specs import load_suite, loads_suite
from chatassert.specs._yaml import parse_yaml, read_spec_file

ROOT = Path(__file__).resolve().parents[2]
SPEC_SUFFIXES = (".yaml", ".yml", ".json")


@cache
def validator(dialect: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(dialect_schema(dialect))


def plain(value: Any) -> Any:
    """A parsed document as JSON would hold it (YAML dates as ISO text, as editors see it)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def errors(dialect: str, doc: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
        for e in validator(dialect).iter_errors(plain(doc))
    ]


def dialect_of_file(path: Path) -> str | None:
    """The dialect the loader reads the file in, or promptkit for a workflow file a Scenario
    names; None when the loader refuses it (a log, a fixture of a bad spec). Files are loaded
    strictly, as the schema reads them: a parameter PromptKit ignores loads by default, and
    the schema, like `unknown_params="error"`, flags it."""
    try:
        return load_suite(path, unknown_params="error").dialect
    except (SpecError, OSError, ValueError, TypeError):
        pass
    try:
        Workflow.load(path)
    except (SpecError, OSError, ValueError):
        return None
    return "promptkit"


def spec_files(folder: str) -> Iterator[Path]:
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix in SPEC_SUFFIXES and path.is_file() and path.stat().st_size < 1 << 20:
            yield path


@cache
def accepted(folder: str) -> list[tuple[Path, str]]:
    """The spec files under `folder` the loader accepts, with their dialects: read when a test
    first asks (loading every file takes seconds, which each test process would pay at
    collection if this ran at import)."""
    found = []
    for path in spec_files(folder):
        dialect = dialect_of_file(path)
        if dialect is not None:
            found.append((path, dialect))
    return found


def invalid_files(folder: str) -> dict[str, list[str]]:
    """The schema's errors for each accepted file of `folder` that it refuses."""
    found = {}
    for path, dialect in accepted(folder):
        problems = errors(dialect, parse_yaml(read_spec_file(str(path)), str(path)))
        if problems:
            found[str(path.relative_to(ROOT))] = problems
    return found


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCED = re.compile(r"```(?:yaml|json)\n(.*?)```", re.S)
IN_PYTHON = re.compile(
    r"loads_suite\(\s*(?:textwrap\.dedent\(\s*)?r?(\"\"\"|\'\'\')\\?\n?(.*?)\1", re.S
)
"""A spec written inside a ```python example: `loads_suite(\"\"\"...\"\"\")`."""


def doc_texts() -> Iterator[tuple[str, str]]:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for number, match in enumerate(FENCED.finditer(text)):
            yield f"{page.name}[{number}]", match.group(1)
        for block in re.findall(r"```python\n(.*?)```", text, re.S):
            for number, match in enumerate(IN_PYTHON.finditer(block)):
                yield f"{page.name}[python {number}]", textwrap.dedent(match.group(2))


def doc_blocks() -> list[tuple[str, str, str]]:
    """Every ```yaml and ```json block of the docs and the README, and every spec a ```python
    example loads, that the loader accepts as a spec, strictly: (where, dialect, text)."""
    found = []
    for where, text in doc_texts():
        try:
            dialect = loads_suite(text, unknown_params="error").dialect
        except (SpecError, ValueError, TypeError):
            continue
        found.append((where, dialect, text))
    return found


def doc_assertion_lists() -> list[tuple[str, str]]:
    """The documented blocks that are lists of native assertions (as a native spec's
    `assertions:` holds them), each of which the builder accepts."""
    found = []
    for where, text in doc_texts():
        try:
            doc = parse_yaml(text, where)
        except SpecError:
            continue
        if not isinstance(doc, list) or not doc or not all(isinstance(i, Mapping) for i in doc):
            continue
        try:
            for item in doc:
                from_spec(item)
        except (SpecError, ValueError, TypeError):
            continue
        found.append((where, text))
    return found


DOC_BLOCKS = doc_blocks()
ASSERTION_LISTS = doc_assertion_lists()


def test_every_dialect_is_covered_by_examples_fixtures_and_docs() -> None:
    # not vacuous: each dialect's schema meets real files and documented blocks
    assert {d for _, d in accepted("examples")} == {"flat", "promptkit", "expect"}
    assert {d for _, d in accepted("tests")} == {"flat", "promptkit", "expect"}
    assert {d for _, d, _ in DOC_BLOCKS} == set(DIALECTS)
    assert len(ASSERTION_LISTS) >= 5


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_schema_is_a_valid_draft_07_schema(dialect: str) -> None:
    schema = dialect_schema(dialect)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator.check_schema(schema)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_shipped_schema_is_what_the_generator_writes(dialect: str) -> None:
    regenerate = (
        "the registry or a loader changed: regenerate with `for d in flat promptkit expect "
        "native; do chatassert schema --dialect $d > src/chatassert/schemas/$d.schema.json; "
        "done` (where no plugin of checks is installed) and review the diff"
    )
    shipped = schema_file(dialect).read_text(encoding="utf-8")
    assert shipped == render(dialect_schema(dialect, plugins=False)), regenerate


def test_every_example_file_validates() -> None:
    assert len(accepted("examples")) >= 5
    assert invalid_files("examples") == {}


def test_the_workflow_example_is_a_promptkit_file() -> None:
    assert ("examples/support.workflow.yaml", "promptkit") in [
        (str(p.relative_to(ROOT)), d) for p, d in accepted("examples")
    ]


def test_every_fixture_the_loader_accepts_validates() -> None:
    assert len(accepted("tests")) >= 10
    assert invalid_files("tests") == {}


@pytest.mark.parametrize(
    ("where", "dialect", "text"), DOC_BLOCKS, ids=[where for where, _, _ in DOC_BLOCKS]
)
def test_every_documented_spec_validates(where: str, dialect: str, text: str) -> None:
    assert errors(dialect, parse_yaml(text, where)) == []


def test_the_readme_flat_suite_validates() -> None:
    readme = [(w, d) for w, d, _ in DOC_BLOCKS if w.startswith("README.md")]
    assert "flat" in {d for _, d in readme}, readme
    for where, dialect, text in DOC_BLOCKS:
        if where.startswith("README.md"):
            assert errors(dialect, parse_yaml(text, where)) == [], where


@pytest.mark.parametrize(("where", "text"), ASSERTION_LISTS, ids=[w for w, _ in ASSERTION_LISTS])
def test_every_documented_list_of_assertions_validates_as_native_assertions(
    where: str, text: str
) -> None:
    schema = dialect_schema("native")
    one = jsonschema.Draft7Validator({**schema, "$ref": "#/definitions/assertion"})
    for item in parse_yaml(text, where):
        assert [e.message for e in one.iter_errors(plain(item))] == []


# -- what the loader refuses fails validation too -------------------------------------------

CASE = "{user_input: hi, assertions: [{type: contains, value: x}]}"
REFUSED = [
    ("flat", f"test_cases: [{{name: a, turns: [{CASE}], colour: red}}]"),  # unknown case key
    ("flat", f"turns: [{CASE}]\nmax_turns: three"),  # wrong type
    ("flat", "turns: [{user_input: hi, assertions: {type: contains, value: x}}]"),  # not a list
    ("flat", "- {type: contains, valeu: x}"),  # unknown parameter
    ("flat", "- {type: contians, value: x}"),  # unknown type
    ("flat", "- {type: contains, value: [1, 2]}"),  # wrong parameter type
    ("flat", "test_cases: []"),  # an empty suite would pass vacuously
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec: {turnz: []}",
    ),
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - {role: user, content: hi, assertions: "
        "[{type: content_includes, params: {patterns: 5}}]}",
    ),
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - {role: user, content: hi, assertions: "
        "[{type: content_includes, params: {patterns: [a], colour: red}}]}",
    ),
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v2\nkind: Scenario\nspec:\n  turns: [{content: hi}]",
    ),
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Eval\nspec:\n"
        "  recording: {path: run.json}\n  mode: slow\n"
        "  conversation_assertions: [{type: tools_called, params: {tool_names: [a]}}]",
    ),
    ("expect", "statsu: success"),
    ("expect", "results_min: five"),
    ("expect", "tools_called: [search]"),  # needs tool calls a JSON response has not
    ("expect", "- {id: a, expect: {status: success}, multi_step: [{expect: {status: ok}}]}"),
    ("expect", "tests: [{id: a, expect: {status: success}, colour: red}]"),
    ("expect", "test_suites: {s: {tests: [{id: a, expect: {}}]}}"),  # empty expect
    ("native", "chatassert: 1\nassertions: [{type: contains, value: x}]\ncolour: red"),
    ("native", "chatassert: 1\nassertions: [{type: contains, value: x}]\nfail_fast: maybe"),
    ("native", "chatassert: 2\nassertions: [{type: contains, value: x}]"),
]


@pytest.mark.parametrize(("dialect", "text"), REFUSED)
def test_what_the_loader_refuses_fails_validation(dialect: str, text: str) -> None:
    with pytest.raises(SpecError):
        loads_suite(text, dialect=dialect, unknown_params="error")
    assert errors(dialect, parse_yaml(text, "<spec>")) != []


ACCEPTED = [
    ("flat", "- {type: contains, value: x, message: says x}"),
    ("flat", f"name: s\nagent_id: a\ntest_cases: [{{name: a, turns: [{CASE}], max_turns: 2}}]"),
    ("expect", "contains: {text: Security, case_sensitive: true}"),  # `text` spells `value`
    ("expect", "all_match_pattern: {path: 'results[*].file', pattern: '[.]md$'}"),  # an alias
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - {role: user, content: hi, assertions: "
        "[{type: content_includes, params: {patterns: [a], message: says a}}]}",
    ),  # `message` inside params (G5)
    ("promptkit", "- {type: content_includes, params: {patterns: [a]}}"),
    (
        "native",
        "chatassert: 1\ncases: [{name: a, id: 7, turns: [{input: hi, assertions: "
        "[{type: contains, value: x}]}], fail_fast: true}]",
    ),
]


@pytest.mark.parametrize(("dialect", "text"), ACCEPTED)
def test_what_the_loader_accepts_validates(dialect: str, text: str) -> None:
    assert loads_suite(text).dialect == dialect
    assert errors(dialect, parse_yaml(text, "<spec>")) == []
