"""Tests of chatassert._promptkit_json (docs/promptkit.md): is_valid_json, json_schema, json_path.

The verdicts, reasons and details of PromptKit's three JSON checks, where they read the JSON
from (the whole text, a code block, or embedded), what they refuse when built (G4), and how a
scenario file spells them.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from promptkit_decisions_helpers import records_test, refusals_test
from promptkit_helpers import scenario, turn

from chatassert import Conversation, Status, Turn
from chatassert.errors import SpecError
from chatassert.promptkit import IsValidJSON, JSONPath, JSONSchema
from chatassert.specs import loads_suite

ROOT = Path(__file__).resolve().parents[2]
PERSON = {
    "type": "object",
    "required": ["name", "age"],
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "maximum": 150}},
}

# -- is_valid_json ---------------------------------------------------------------------------

NOT_JSON = "Expecting value: line 1 column 1 (char 0)"
FENCED = '```json\n{"name": "John"}\n```'
VALID = ("passed", "response is valid JSON", {"valid": True})

test_is_valid_json_records = records_test(
    [
        ("object", IsValidJSON, '{"name": "John", "age": 30}', VALID),
        ("array", IsValidJSON, '[1, 2, 3, "test"]', VALID),
        ("string", IsValidJSON, '"simple string"', VALID),
        ("number", IsValidJSON, "42", VALID),
        ("null", IsValidJSON, "null", VALID),
        ("surrounding-space", IsValidJSON, ' \n{"a": 1}\n', VALID),
        ("malformed", IsValidJSON, '{"name": "John", "age": }', (
            "failed",
            "Expected the response to be valid JSON but it is not JSON "
            "(Expecting value: line 1 column 25 (char 24))",
            {"valid": False, "error": "Expecting value: line 1 column 25 (char 24)",
             "content": '{"name": "John", "age": }'})),
        ("plain-text", IsValidJSON, "This is just plain text", (
            "failed",
            f"Expected the response to be valid JSON but it is not JSON ({NOT_JSON})",
            {"valid": False, "error": NOT_JSON, "content": "This is just plain text"})),
        ("empty", IsValidJSON, "", (
            "failed",
            f"Expected the response to be valid JSON but it is not JSON ({NOT_JSON})",
            {"valid": False, "error": NOT_JSON, "content": ""})),
        ("nan-is-not-json", IsValidJSON, "[NaN]", (
            "failed",
            "Expected the response to be valid JSON but it is not JSON (NaN is not JSON)",
            {"valid": False, "error": "NaN is not JSON", "content": "[NaN]"})),
        ("fence-not-allowed", IsValidJSON, FENCED, (
            "failed",
            f"Expected the response to be valid JSON but it is not JSON ({NOT_JSON})",
            {"valid": False, "error": NOT_JSON, "content": FENCED})),
        ("fence-allowed", lambda: IsValidJSON(allow_wrapped=True), FENCED, (
            "passed", "response is valid JSON (or a code block)", {"valid": True})),
        ("bare-fence-allowed", lambda: IsValidJSON(allow_wrapped=True),
         'Sure:\n```\n[1, 2]\n```\nDone.', (
             "passed", "response is valid JSON (or a code block)", {"valid": True})),
        ("embedded-with-extract", lambda: IsValidJSON(extract_json=True),
         'Here is the data: {"name": "John", "age": 30} - that\'s the info', (
             "passed", "response is valid JSON (or embedded)", {"valid": True})),
        ("brace-inside-a-string", lambda: IsValidJSON(extract_json=True),
         'Data: {"note": "a } inside", "n": 1} end', (
             "passed", "response is valid JSON (or embedded)", {"valid": True})),
        ("embedded-array", lambda: IsValidJSON(extract_json=True), "ids: [1, 2, 3].", (
            "passed", "response is valid JSON (or embedded)", {"valid": True})),
        ("embedded-but-broken", lambda: IsValidJSON(extract_json=True), "Data: {oops} ok", (
            "failed",
            "Expected the response to be valid JSON but it is not JSON (Expecting property "
            "name enclosed in double quotes: line 1 column 2 (char 1))",
            {"valid": False,
             "error": "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
             "content": "{oops}"})),
        ("embedded-without-extract", IsValidJSON, 'Data: {"n": 1}', (
            "failed",
            f"Expected the response to be valid JSON but it is not JSON ({NOT_JSON})",
            {"valid": False, "error": NOT_JSON, "content": 'Data: {"n": 1}'})),
    ]
)  # fmt: skip


def test_a_code_block_wins_over_embedded_json_and_needs_its_newlines() -> None:
    both = IsValidJSON(allow_wrapped=True, extract_json=True)
    assert both.check('{"a": 1} and ```json\n[2]\n```').passed
    # no newline after the fence: not a code block (PromptKit's pattern needs one)
    assert IsValidJSON(allow_wrapped=True).check('```json {"a": 1}```').status is Status.FAILED


def test_the_details_keep_the_first_200_characters_of_what_is_not_json() -> None:
    text = "x" * 250
    details = IsValidJSON().check(text).details
    assert details["content"] == "x" * 200 + "..."


def test_it_reads_the_last_assistant_message_with_text() -> None:
    subject = turn("Give me JSON", '{"done": true}', [("search", {"q": "x"}, "not json")])
    assert IsValidJSON().check(subject).passed


def test_a_document_nested_too_deeply_is_not_json_rather_than_a_crash() -> None:
    result = IsValidJSON().check("[" * 100_000 + "]" * 100_000)
    assert (result.status, result.details["error"]) == (
        Status.FAILED,
        "the JSON is nested too deeply to read",
    )


# -- json_schema ------------------------------------------------------------------------------

test_json_schema_records = records_test(
    [
        ("valid", lambda: JSONSchema(PERSON), '{"name": "John", "age": 30}', (
            "passed", "response matches the JSON schema", {"valid": True, "errors": []})),
        ("missing-required", lambda: JSONSchema(PERSON), '{"name": "John"}', (
            "failed",
            "Expected the response to match the JSON schema but it does not: "
            "(root): 'age' is a required property",
            {"valid": False, "errors": ["(root): 'age' is a required property"], "count": 1})),
        ("two-violations", lambda: JSONSchema(PERSON), '{"name": 7, "age": 200}', (
            "failed",
            "Expected the response to match the JSON schema but it does not: "
            "name: 7 is not of type 'string' (and 1 more)",
            {"valid": False, "count": 2, "errors": [
                "name: 7 is not of type 'string'",
                "age: 200 is greater than the maximum of 150"]})),
        ("array-item", lambda: JSONSchema({"type": "array", "items": {"type": "string"}}),
         '["go", 123]', (
             "failed",
             "Expected the response to match the JSON schema but it does not: "
             "1: 123 is not of type 'string'",
             {"valid": False, "errors": ["1: 123 is not of type 'string'"], "count": 1})),
        ("nested", lambda: JSONSchema({"properties": {"user": {"required": ["name"]}}}),
         '{"user": {}}', (
             "failed",
             "Expected the response to match the JSON schema but it does not: "
             "user: 'name' is a required property",
             {"valid": False, "errors": ["user: 'name' is a required property"], "count": 1})),
        ("additional-properties",
         lambda: JSONSchema({"properties": {"name": {}}, "additionalProperties": False}),
         '{"name": "John", "age": 30}', (
             "failed",
             "Expected the response to match the JSON schema but it does not: (root): "
             "Additional properties are not allowed ('age' was unexpected)",
             {"valid": False, "count": 1, "errors": [
                 "(root): Additional properties are not allowed ('age' was unexpected)"]})),
        ("not-json", lambda: JSONSchema(PERSON), "{invalid json}", (
            "failed",
            "Expected the response to be JSON matching the schema but it is not JSON "
            "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
            {"valid": False,
             "error": "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
             "content": "{invalid json}"})),
        ("format-is-checked", lambda: JSONSchema({"format": "email"}), '"not an email"', (
            "failed",
            "Expected the response to match the JSON schema but it does not: "
            "(root): 'not an email' is not a 'email'",
            {"valid": False, "errors": ["(root): 'not an email' is not a 'email'"], "count": 1})),
        ("go-pattern", lambda: JSONSchema({"pattern": r"^[[:upper:]]{3}\z"}), '"ABCD"', (
            "failed",
            "Expected the response to match the JSON schema but it does not: "
            r"(root): 'ABCD' does not match '^[[:upper:]]{3}\\z'",
            {"valid": False, "count": 1,
             "errors": [r"(root): 'ABCD' does not match '^[[:upper:]]{3}\\z'"]})),
        ("wrapped", lambda: JSONSchema(PERSON, allow_wrapped=True),
         'Here:\n```json\n{"name": "A", "age": 1}\n```', (
             "passed", "response matches the JSON schema (or a code block)",
             {"valid": True, "errors": []})),
    ]
)  # fmt: skip


def test_the_draft_is_the_one_the_schema_names_and_draft_7_otherwise() -> None:
    first_is_text = {"prefixItems": [{"type": "string"}]}  # a 2020-12 keyword
    named = {"$schema": "https://json-schema.org/draft/2020-12/schema", **first_is_text}
    assert JSONSchema(named).check("[1]").status is Status.FAILED
    assert JSONSchema(first_is_text).check("[1]").passed  # draft 7 does not know it


def test_a_pattern_that_runs_out_of_time_is_an_error() -> None:
    check = JSONSchema({"pattern": "(a|aa)+$"}, regex_timeout=0.05)
    result = check.check(json.dumps("a" * 40_000 + "!"))
    assert (result.status, result.details["error"], result.details["pattern"]) == (
        Status.ERROR,
        "timeout",
        "(a|aa)+$",
    )


def test_a_schema_file_is_read_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "person.json").write_text(json.dumps(PERSON), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    check = JSONSchema(schema_file="schemas/person.json")
    assert check.check('{"name": "A", "age": 3}').passed
    assert check.check('{"name": "A"}').details["errors"] == [
        "(root): 'age' is a required property"
    ]
    assert check.as_spec() == {"type": "json_schema", "schema_file": "schemas/person.json"}
    assert check.describe() == "response matches the JSON schema in schemas/person.json"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "json_schema cannot read schema_file 'x.json': No such file or directory"),
        ("{oops", "json_schema schema_file 'x.json' is not JSON: Expecting property name"),
        ("[1]", "json_schema schema_file 'x.json' does not hold a JSON object"),
        ('{"type": 12}', "json_schema schema is not a valid JSON Schema: 12 is not valid"),
    ],
    ids=["missing", "not-json", "not-an-object", "not-a-schema"],
)
def test_a_bad_schema_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / "x.json").write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        JSONSchema(schema_file="x.json")


def test_a_directory_is_not_a_schema_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.json").mkdir()
    with pytest.raises(ValueError, match=r"'d\.json' is not a regular file"):
        JSONSchema(schema_file="d.json")


test_json_schema_refusals = refusals_test(
    [
        ("neither", lambda: JSONSchema(), ValueError,
         "json_schema needs one of 'schema' (the JSON Schema) and 'schema_file' "
         "(a JSON file holding it)"),
        ("both", lambda: JSONSchema(PERSON, schema_file="p.json"), ValueError,
         "json_schema needs one of 'schema' (the JSON Schema) and 'schema_file' "
         "(a JSON file holding it), not both"),
        ("empty", lambda: JSONSchema({}), ValueError,
         "json_schema schema is empty, so it accepts any JSON; give its constraints "
         "(or use is_valid_json)"),
        ("not-a-mapping", lambda: JSONSchema(["type"]), TypeError,  # type: ignore[arg-type]
         "json_schema schema must be a mapping, got [\"type\"]"),
        ("bad-keyword", lambda: JSONSchema({"type": "strin"}), ValueError,
         "json_schema schema is not a valid JSON Schema: 'strin' is not valid under any of "
         "the given schemas (at type)"),
        ("bad-pattern", lambda: JSONSchema({"pattern": "(?<=a)b"}), ValueError,
         "json_schema schema has a bad pattern: invalid regular expression '(?<=a)b': invalid "
         "or unsupported Perl syntax '(?<=' at position 0; lookbehind assertions are not "
         "supported by Go's RE2"),
        ("schema-uri-not-text", lambda: JSONSchema({"$schema": 7, "type": "object"}), ValueError,
         "json_schema $schema must be a URI string, got 7"),
    ]
)  # fmt: skip


def test_it_survives_pickling_and_builds_its_validator_again() -> None:
    check = JSONSchema(PERSON)
    again = pickle.loads(pickle.dumps(check))
    assert again == check
    assert again.check('{"name": "A"}').details["count"] == 1


@pytest.mark.parametrize(
    ("module", "build", "message"),
    [
        (
            "jsonschema",
            "JSONSchema({'type': 'object'})",
            "json_schema needs the jsonschema library, which is not installed: "
            "pip install 'chatassert[json]'",
        ),
        (
            "jmespath",
            "JSONPath('users[0].name', expected='John')",
            "json_path needs the jmespath library, which is not installed: "
            "pip install 'chatassert[json]'",
        ),
    ],
)
def test_without_the_json_extra_building_names_it(module: str, build: str, message: str) -> None:
    """Run in a fresh interpreter where the import fails, as when the library is missing."""
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from chatassert.errors import MissingExtraError\n"
        "from chatassert.promptkit import JSONPath, JSONSchema\n"
        "try:\n"
        f"    {build}\n"
        "except MissingExtraError as exc:\n"
        "    print(isinstance(exc, ImportError), isinstance(exc, ValueError), exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout == f"True True {message}\n"


# -- json_path --------------------------------------------------------------------------------

USERS = '{"users": [{"name": "John", "age": 30}, {"name": "Jane", "age": 25}]}'
PRODUCTS = '{"products": [{"name": "laptop", "price": 1200}, {"name": "mouse", "price": 25}]}'


def _passed(
    expression: str, result: object, requirement: str
) -> tuple[str, str, dict[str, object]]:
    return (
        "passed",
        f"{expression} of the response {requirement}",
        {"expression": expression, "result": result},
    )


test_json_path_records = records_test(
    [
        ("field", lambda: JSONPath("name", "John"), '{"name": "John", "age": 30}',
         _passed("name", "John", "equals 'John'")),
        ("field-differs", lambda: JSONPath("name", "Jane"), '{"name": "John"}', (
            "failed", "Expected name to be 'Jane' but got 'John'",
            {"expression": "name", "result": "John", "expected": "Jane", "actual": "John",
             "message": "Result does not match expected value"})),
        ("nested", lambda: JSONPath("user.address.city", "NYC"),
         '{"user": {"address": {"city": "NYC"}}}',
         _passed("user.address.city", "NYC", "equals 'NYC'")),
        ("index", lambda: JSONPath("items[0]", "apple"), '{"items": ["apple", "banana"]}',
         _passed("items[0]", "apple", "equals 'apple'")),
        ("slice", lambda: JSONPath("items[0:2]", ["apple", "banana"]),
         '{"items": ["apple", "banana", "orange"]}',
         _passed("items[0:2]", ["apple", "banana"], 'equals ["apple", "banana"]')),
        ("projection", lambda: JSONPath("users[*].name", ["John", "Jane"]), USERS,
         _passed("users[*].name", ["John", "Jane"], 'equals ["John", "Jane"]')),
        ("filter", lambda: JSONPath("products[?price > `100`]", min_results=1), PRODUCTS,
         _passed("products[?price > `100`]", [{"name": "laptop", "price": 1200}],
                 "has ≥ 1 items")),
        ("filter-finds-none", lambda: JSONPath("products[?price > `2000`]", min_results=1),
         PRODUCTS, (
             "failed", "Expected products[?price > `2000`] to give at least 1 items but it gives 0",
             {"expression": "products[?price > `2000`]", "result": [], "actual": 0,
              "min_results": 1, "message": "Array has 0 items, minimum is 1"})),
        ("function", lambda: JSONPath("length(items)", 3), '{"items": ["a", "b", "c"]}',
         _passed("length(items)", 3, "equals 3")),
        ("pipe", lambda: JSONPath("users[*].age | max(@)", 30.0), USERS,
         _passed("users[*].age | max(@)", 30, "equals 30.0")),
        ("min", lambda: JSONPath("price", min=100), '{"price": 150}',
         _passed("price", 150, "≥ 100")),
        ("below-min", lambda: JSONPath("price", min=100.5), '{"price": 99}', (
            "failed", "Expected price to be at least 100.5 but it is 99",
            {"expression": "price", "result": 99, "actual": 99, "min": 100.5,
             "message": "Value 99.00 is below minimum 100.50"})),
        ("above-max", lambda: JSONPath("price", max=1000.0), '{"price": 1500}', (
            "failed", "Expected price to be at most 1000 but it is 1500",
            {"expression": "price", "result": 1500, "actual": 1500, "max": 1000.0,
             "message": "Value 1500.00 exceeds maximum 1000.00"})),
        ("not-a-number", lambda: JSONPath("price", min=1), '{"price": "12"}', (
            "failed", "Expected price to be a number but it is '12'",
            {"expression": "price", "result": "12", "message": "Result is not a number"})),
        ("contains", lambda: JSONPath("tags", contains=["golang", "testing"]),
         '{"tags": ["golang", "testing", "json"]}',
         _passed("tags", ["golang", "testing", "json"], 'contains ["golang", "testing"]')),
        ("contains-missing", lambda: JSONPath("tags", contains=["golang", "rust"]),
         '{"tags": ["golang", "testing"]}', (
             "failed", "Expected tags to contain 'rust' but it does not",
             {"expression": "tags", "result": ["golang", "testing"], "missing": "rust",
              "message": "Expected item not found in result"})),
        ("contains-not-a-list", lambda: JSONPath("tags", contains=["a"]), '{"tags": "a"}', (
            "failed", "Expected tags to give a list containing [\"a\"] but it gives 'a'",
            {"expression": "tags", "result": "a",
             "message": "Result is not an array, cannot check contains"})),
        ("too-many", lambda: JSONPath("items", max_results=2), '{"items": ["a", "b", "c"]}', (
            "failed", "Expected items to give at most 2 items but it gives 3",
            {"expression": "items", "result": ["a", "b", "c"], "actual": 3, "max_results": 2,
             "message": "Array has 3 items, maximum is 2"})),
        ("count-not-a-list", lambda: JSONPath("items", max_results=2), '{"items": 3}', (
            "failed", "Expected items to give a list but it gives 3",
            {"expression": "items", "result": 3,
             "message": "Result is not an array, cannot check count"})),
        ("missing-path", lambda: JSONPath("missing.field", "value"), '{"name": "John"}', (
            "failed", "Expected missing.field to be 'value' but got null",
            {"expression": "missing.field", "result": None, "expected": "value",
             "actual": None, "message": "Result does not match expected value"})),
        ("not-json", lambda: JSONPath("name", "John"), "{invalid}", (
            "failed",
            "Expected the response to be JSON but it is not JSON (Expecting property name "
            "enclosed in double quotes: line 1 column 2 (char 1))",
            {"valid": False,
             "error": "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
             "content": "{invalid}"})),
        ("type-error", lambda: JSONPath("length(a)", 1), '{"a": 5}', (
            "failed",
            "JMESPath could not evaluate length(a) on the response: In function length(), "
            "invalid type for value: 5, expected one of: ['string', 'array', 'object'], "
            'received: "number"',
            {"expression": "length(a)", "jmespath_expression": "length(a)",
             "error": "JMESPath error: In function length(), invalid type for value: 5, "
                      "expected one of: ['string', 'array', 'object'], received: \"number\""})),
    ]
)  # fmt: skip


@pytest.mark.parametrize(
    ("expected", "result", "passes"),
    [(1, "1.0", True), (1, '"1"', False), (True, "1", False), ({"a": [1]}, '{"a": [1.0]}', True)],
    ids=["1-is-1.0", "1-is-not-'1'", "true-is-not-1", "nested"],
)
def test_expected_compares_as_json(expected: object, result: str, passes: bool) -> None:
    assert JSONPath("x", expected).check(f'{{"x": {result}}}').passed is passes


def test_the_checks_run_in_order_and_the_first_failure_is_reported() -> None:
    check = JSONPath("items", ["a"], contains=["z"], max_results=0, min_results=5)
    assert check.check('{"items": ["b"]}').details["message"] == (
        "Result does not match expected value"
    )
    assert check.check('{"items": ["a"]}').details["message"] == "Expected item not found in result"


def test_zero_counts_set_no_bound_as_in_promptkit() -> None:
    check = JSONPath("items", contains=["a"], min_results=0, max_results=0)
    assert check.check('{"items": ["a", "b", "c"]}').passed


test_json_path_refusals = refusals_test(
    [
        ("nothing-to-check", lambda: JSONPath("a"), ValueError,
         "json_path needs something to check: expected, contains, min/max or "
         "min_results/max_results"),
        ("only-zero-counts", lambda: JSONPath("a", min_results=0), ValueError,
         "json_path needs something to check: expected, contains, min/max or "
         "min_results/max_results"),
        ("empty-expression", lambda: JSONPath(" ", 1), ValueError,
         "json_path needs a non-empty JMESPath expression"),
        ("syntax", lambda: JSONPath("a[", 1), ValueError,
         "json_path expression 'a[' is not valid JMESPath: Invalid jmespath expression: "
         'Incomplete expression: "a[" ^'),
        ("unknown-function", lambda: JSONPath("lenght(a)", 1), ValueError,
         "json_path expression 'lenght(a)' calls the unknown JMESPath function lenght() "
         "(did you mean 'length'?)"),
        ("contains-not-a-list", lambda: JSONPath("a", contains="x"), TypeError,
         "json_path contains must be a list of items, got 'x'"),
        ("contains-empty", lambda: JSONPath("a", contains=[]), ValueError,
         "json_path contains is an empty list, which every list contains"),
        ("min-above-max", lambda: JSONPath("a", min=5, max=1), ValueError,
         "json_path min 5 is greater than max 1"),
        ("nan", lambda: JSONPath("a", min=float("nan")), TypeError,
         "json_path min must be a finite number, got nan"),
        ("bool", lambda: JSONPath("a", max=True), TypeError,
         "json_path max must be a finite number, got True"),
        ("negative-count", lambda: JSONPath("a", min_results=-1), ValueError,
         "json_path min_results must not be negative, got -1"),
        ("counts-crossed", lambda: JSONPath("a", min_results=3, max_results=2), ValueError,
         "json_path min_results 3 is greater than max_results 2"),
    ]
)  # fmt: skip


def test_json_path_survives_pickling() -> None:
    check = JSONPath("users[*].age | max(@)", 30)
    again = pickle.loads(pickle.dumps(check))
    assert again == check
    assert again.check(USERS).passed


# -- in a scenario file ------------------------------------------------------------------------


def test_a_scenario_spells_them_with_their_later_names_too() -> None:
    suite = loads_suite(
        scenario(
            """\
            - role: user
              content: Give me the user as JSON
              assertions:
                - type: is_valid_json
                - type: json_valid
                  params: {allow_wrapped: true}
                - type: valid_json
                - type: json_schema
                  params:
                    schema: {type: object, required: [name]}
                - type: json_path
                  params: {jmespath_expression: name, expected: Ann}
            """
        ),
        filename="s.yaml",
    )
    kinds = [type(a).__name__ for a in suite.cases[0].turns[0].assertions]
    assert kinds == ["IsValidJSON", "IsValidJSON", "IsValidJSON", "JSONSchema", "JSONPath"]
    logged = Conversation(turns=[Turn(input="Give me the user as JSON", text='{"name": "Ann"}')])
    assert suite.cases[0].check(logged).status is Status.PASSED


def test_a_scenario_problem_is_reported_where_it_is_written() -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(
            scenario(
                """\
                assertions:
                  - type: json_path
                    params: {expression: "a[", expected: 1}
                  - type: json_path
                    params: {expression: a, jmespath_expression: b, expected: 1}
                  - type: json_schema
                    params: {schema: {type: objekt}}
                """,
                section="assertions",
            ),
            filename="s.yaml",
        )
    problems = [(p.line, p.path, p.message.split(":")[0]) for p in caught.value.problems]
    assert problems == [
        (11, "spec.turns[0].assertions[0].params.expression", "json_path expression 'a[' is not "
         "valid JMESPath"),
        (13, "spec.turns[0].assertions[1].params.jmespath_expression",
         "'jmespath_expression' and 'expression' are two spellings of one parameter; give only "
         "one"),
        (15, "spec.turns[0].assertions[2].params.schema", "json_schema schema is not a valid JSON "
         "Schema"),
    ]  # fmt: skip
