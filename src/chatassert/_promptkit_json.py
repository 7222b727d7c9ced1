"""PromptKit's checks of a JSON response: `is_valid_json`, `json_schema` and `json_path`.

Each reads the turn's response text (G1) and decodes it as JSON, as PromptKit does: the whole
text, or with `allow_wrapped` the first ```` ```json ```` code block, or with `extract_json`
the first balanced `{...}` (else `[...]`) in the text. A response that is not JSON fails these
checks (it is what they check), with the decoder's message and the start of the text in
the details. `json_schema` validates with the `jsonschema` library (the `json` extra);
`json_path` evaluates a JMESPath expression: PromptKit's `json_path` is JMESPath, not
JSONPath, with filters, functions and pipes (`length(items)`, `users[*].age | max(@)`).

Docs: docs/promptkit.md. Tests: tests/promptkit/test_promptkit_json.py.

Example:
    >>> from chatassert.promptkit import IsValidJSON, JSONPath
    >>> IsValidJSON(allow_wrapped=True).check('```json\\n{"ok": true}\\n```').passed
    True
    >>> JSONPath("user.age", min=18).check('{"user": {"age": 16}}').reason
    'Expected user.age to be at least 18 but it is 16'
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from chatassert._base import Assertion
from chatassert._errors import MissingExtraError, RegexTimeoutError
from chatassert._jsonbase import json_equal, show
from chatassert._models import text_of
from chatassert._params import Param, did_you_mean, plain, register
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status

__all__ = [
    "CONTENT_LIMIT",
    "IsValidJSON",
    "JSONPath",
    "JSONSchema",
    "extract_json_text",
    "parse_json",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

CONTENT_LIMIT = 200
"""How much of a response that is not JSON the details keep (PromptKit keeps 200 characters)."""

SCHEMA_FILE_LIMIT = 10 * 1024 * 1024
"""The largest `schema_file` read, in bytes."""


# -- finding and decoding the JSON ---------------------------------------------------------

# The code block PromptKit looks for: ```json (or ```) and a newline, up to a newline and ```.
# ASCII `\s`, as in Go's regexp.
_CODE_BLOCK = re.compile(r"```(?:json)?\s*\n([\s\S]*?)\n```", re.ASCII)


def extract_json_text(content: str, allow_wrapped: bool, extract_json: bool) -> str | None:
    """The JSON text PromptKit would decode from `content`, or None to decode it whole.

    With `allow_wrapped`, the trimmed body of the first ```` ``` ```` (or ```` ```json ````)
    code block; then, with `extract_json`, the first balanced `{...}` starting at the first
    `{`, else the first balanced `[...]` starting at the first `[` (brackets inside strings
    do not count). What is found is decoded even when it is not JSON.

    Example:
        >>> extract_json_text('Here: {"a": "}"} ok', False, True)
        '{"a": "}"}'
        >>> extract_json_text("no json here", True, True) is None
        True
    """
    if allow_wrapped:
        block = _CODE_BLOCK.search(content)
        if block is not None:
            return block.group(1).strip()
    if extract_json:
        for opening, closing in (("{", "}"), ("[", "]")):
            start = content.find(opening)
            if start >= 0:
                found = _balanced(content, start, opening, closing)
                if found is not None:
                    return found
    return None


def _balanced(text: str, start: int, opening: str, closing: str) -> str | None:
    depth = 0
    in_string = escaped = False
    for i in range(start, len(text)):
        char = text[i]
        if escaped:
            escaped = False
        elif char == "\\" and in_string:
            escaped = True
        elif char == '"':
            in_string = not in_string
        elif not in_string and char == opening:
            depth += 1
        elif not in_string and char == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str) -> tuple[Any, str | None]:
    """Decode JSON text as a strict JSON decoder does: `(value, None)` or `(None, error)`.

    `NaN` and `Infinity` are not JSON; a document nested too deeply is refused, not a crash.

    Example:
        >>> parse_json('[1, 2]'), parse_json('NaN')[1]
        (([1, 2], None), 'NaN is not JSON')
    """
    try:
        return json.loads(text, parse_constant=_no_constant), None
    except RecursionError:
        return None, "the JSON is nested too deeply to read"
    except ValueError as exc:  # JSONDecodeError, NaN, an integer of more than 4300 digits
        return None, str(exc)


def _excerpt(text: str) -> str:
    return text if len(text) <= CONTENT_LIMIT else text[:CONTENT_LIMIT] + "..."


_WRAPPED = Param(
    "allow_wrapped",
    "bool",
    default=False,
    doc="read the JSON from a ```json code block of the response",
)
_EXTRACT = Param(
    "extract_json",
    "bool",
    default=False,
    doc="read the first {...} (or [...]) embedded in the response's text",
)


class _JSONResponse(Assertion):
    """What the JSON checks share: where the JSON is read from, and a response that is not."""

    __slots__ = ("allow_wrapped", "extract_json")
    allow_wrapped: bool
    extract_json: bool
    evidence_at = "/text"

    def _where(self, allow_wrapped: bool, extract_json: bool) -> None:
        for name, value in (("allow_wrapped", allow_wrapped), ("extract_json", extract_json)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be true or false, got {value!r}")
        self._set("allow_wrapped", allow_wrapped)
        self._set("extract_json", extract_json)

    def _decode(self, subject: object) -> tuple[str, Any, str | None]:
        """The JSON text read, its value, and the decoder's error (None when it is JSON)."""
        content = text_of(subject)
        if self.allow_wrapped or self.extract_json:
            content = extract_json_text(content, self.allow_wrapped, self.extract_json) or content
        value, error = parse_json(content)
        return content, value, error

    def _not_json(self, text: str, error: str, what: str) -> Result:
        return Result(
            _F,
            self.kind,
            f"Expected the response to be {what} but it is not JSON ({error})",
            {"valid": False, "error": error, "content": _excerpt(text)},
        )

    def _read_from(self) -> str:
        ways = [
            w
            for w, on in (("a code block", self.allow_wrapped), ("embedded", self.extract_json))
            if on
        ]
        return f" (or {' or '.join(ways)})" if ways else ""


# -- is_valid_json ---------------------------------------------------------------------------


@register
class IsValidJSON(_JSONResponse):
    """Passes when the turn's response is valid JSON (any JSON value).

    `allow_wrapped` reads the JSON from a ```` ```json ```` code block; `extract_json` from
    the first `{...}` or `[...]` in the text. PromptKit's later names for it are `json_valid`
    and `valid_json`.

    Example:
        >>> from chatassert.promptkit import IsValidJSON
        >>> IsValidJSON().check('{"name": "John", "age": 30}').passed
        True
        >>> r = IsValidJSON().check("Here you go: {\\"name\\": \\"John\\"}")
        >>> r.status.value, r.details["content"]
        ('failed', 'Here you go: {"name": "John"}')
        >>> IsValidJSON(extract_json=True).check("Here you go: {\\"name\\": \\"John\\"}").passed
        True
    """

    __slots__ = ()
    kind = "is_valid_json"
    dialect_names = {"promptkit.turn": ("is_valid_json", "json_valid", "valid_json")}
    params = (_WRAPPED, _EXTRACT)

    def __init__(
        self,
        *,
        allow_wrapped: bool = False,
        extract_json: bool = False,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        self._where(allow_wrapped, extract_json)

    def _check(self, subject: object) -> Result:
        text, _, error = self._decode(subject)
        if error is not None:
            return self._not_json(text, error, "valid JSON")
        return Result(_P, self.kind, self._held(), {"valid": True})

    def describe(self) -> str:
        """Describe the requirement."""
        return "response is valid JSON" + self._read_from()


# -- json_schema -----------------------------------------------------------------------------

_SCHEMA_EXTRA = (
    "json_schema needs the jsonschema library, which is not installed: "
    "pip install 'chatassert[json]'"
)

# Where a schema holds data, not schemas: a `pattern` key there is not a regular expression.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples", "example"})


def _schema_patterns(node: Any) -> Iterator[str]:
    """The `pattern` regular expressions of a schema and its subschemas."""
    if isinstance(node, Mapping):
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            yield pattern
        for key, value in node.items():
            if key not in _DATA_KEYWORDS:
                yield from _schema_patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from _schema_patterns(item)


def _read_schema_file(path: str) -> dict[str, Any]:
    """Read a JSON Schema file: a regular file of at most `SCHEMA_FILE_LIMIT` bytes."""
    where = os.fspath(Path(path))
    try:
        info = os.stat(where)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"json_schema schema_file {path!r} is not a regular file")
        if info.st_size > SCHEMA_FILE_LIMIT:
            raise ValueError(
                f"json_schema schema_file {path!r} is larger than {SCHEMA_FILE_LIMIT} bytes"
            )
        with open(where, "rb") as handle:
            data = handle.read(SCHEMA_FILE_LIMIT + 1)
    except OSError as exc:
        raise ValueError(
            f"json_schema cannot read schema_file {path!r}: {exc.strerror or exc} "
            "(a path relative to the working directory, as PromptKit reads it)"
        ) from None
    try:
        schema = json.loads(data.decode("utf-8-sig"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"json_schema schema_file {path!r} is not JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise ValueError(f"json_schema schema_file {path!r} does not hold a JSON object")
    return schema


@register
class JSONSchema(_JSONResponse):
    """Passes when the turn's response is JSON that the JSON Schema accepts.

    The schema is given inline (`schema`) or as a JSON file (`schema_file`, read when the check
    is built, relative to the working directory as PromptKit reads it). Validation follows the
    draft the schema's `$schema` names, draft 7 when it names none, and checks `format`s as
    PromptKit's validator does; `pattern`s are Go/RE2 regular expressions with the time limit
    of every pattern (G8). A failure lists every violation as `<field>: <problem>` (`(root)`
    for the document itself). Needs the `jsonschema` library: `pip install 'chatassert[json]'`.

    Example:
        >>> from chatassert.promptkit import JSONSchema
        >>> schema = {"type": "object", "required": ["name", "age"],
        ...           "properties": {"age": {"type": "integer"}}}
        >>> JSONSchema(schema).check('{"name": "John", "age": 30}').passed
        True
        >>> JSONSchema(schema).check('{"name": "John", "age": "30"}').details["errors"]
        ["age: '30' is not of type 'integer'"]

    Raises:
        MissingExtraError: when the jsonschema library is not installed.
        ValueError: for no schema, both forms, an empty schema, a schema the validator
            refuses, a bad `pattern` in it, or a `schema_file` that cannot be read.
    """

    __slots__ = ("_patterns", "_schema", "_validator", "regex_timeout", "schema", "schema_file")
    kind = "json_schema"
    dialect_names = {"promptkit.turn": "json_schema"}
    params = (
        Param("schema", "mapping", default=None, doc="the JSON Schema, inline"),
        Param("schema_file", "str", default=None, doc="a JSON file holding the JSON Schema"),
        _WRAPPED,
        _EXTRACT,
    )
    options = ("regex_timeout",)
    schema: dict[str, Any] | None
    schema_file: str | None
    regex_timeout: float
    _schema: dict[str, Any]
    _patterns: dict[str, Pattern]
    _validator: Any

    def __init__(
        self,
        schema: Mapping[str, Any] | None = None,
        *,
        schema_file: str | None = None,
        allow_wrapped: bool = False,
        extract_json: bool = False,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._where(allow_wrapped, extract_json)
        if (schema is None) == (schema_file is None):
            raise ValueError(
                "json_schema needs one of 'schema' (the JSON Schema) and 'schema_file' "
                "(a JSON file holding it)" + (", not both" if schema is not None else "")
            )
        if schema is not None:
            if not isinstance(schema, Mapping):
                raise TypeError(f"json_schema schema must be a mapping, got {show(schema)}")
            resolved = plain(schema)
        else:
            if not isinstance(schema_file, str) or not schema_file.strip():
                raise ValueError("json_schema schema_file must be a non-empty path")
            resolved = _read_schema_file(schema_file)
        if not resolved:
            raise ValueError(
                "json_schema schema is empty, so it accepts any JSON; "
                "give its constraints (or use is_valid_json)"
            )
        patterns: dict[str, Pattern] = {}
        for source in _schema_patterns(resolved):
            try:
                patterns[source] = compile_regex(source, "json_schema", regex_timeout)
            except ValueError as exc:
                raise ValueError(f"json_schema schema has a bad pattern: {exc}") from None
        self._set("schema", None if schema is None else resolved)
        self._set("schema_file", schema_file)
        self._set("regex_timeout", regex_timeout)
        self._set("_schema", resolved)
        self._set("_patterns", patterns)
        self._set("_validator", None)
        self._validator_of()  # a schema the validator refuses is refused now

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_validator"] = None  # built again on first use
        return state

    def _validator_of(self) -> Any:
        validator = self._validator
        if validator is None:
            validator = _build_validator(self._schema, self._patterns, self.regex_timeout)
            self._set("_validator", validator)
        return validator

    def _check(self, subject: object) -> Result:
        text, value, error = self._decode(subject)
        if error is not None:
            return self._not_json(text, error, "JSON matching the schema")
        try:
            errors = [_describe_error(e) for e in self._validator_of().iter_errors(value)]
        except RegexTimeoutError as exc:
            return Result(_E, self.kind, str(exc), {"error": "timeout", "pattern": exc.pattern})
        if not errors:
            return Result(_P, self.kind, self._held(), {"valid": True, "errors": []})
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return Result(
            _F,
            self.kind,
            f"Expected the response to match the JSON schema but it does not: {errors[0]}{more}",
            {"valid": False, "errors": errors, "count": len(errors)},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        where = f" in {self.schema_file}" if self.schema_file is not None else ""
        return f"response matches the JSON schema{where}" + self._read_from()


def _build_validator(schema: dict[str, Any], patterns: dict[str, Pattern], timeout: float) -> Any:
    try:
        from jsonschema import ValidationError, validators
        from jsonschema.exceptions import SchemaError
    except ImportError:
        raise MissingExtraError(_SCHEMA_EXTRA, name="jsonschema") from None

    if "$schema" in schema and not isinstance(schema["$schema"], str):
        raise ValueError(f"json_schema $schema must be a URI string, got {show(schema['$schema'])}")
    base = validators.validator_for(schema, default=validators.Draft7Validator)
    try:  # its patterns are Go's, compiled above: not checked as Python's `regex` format
        base.check_schema(schema, format_checker=None)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the top level"
        raise ValueError(
            f"json_schema schema is not a valid JSON Schema: {exc.message} (at {where})"
        ) from None

    def pattern(validator: Any, source: str, instance: Any, _schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "string"):
            return
        compiled = patterns.get(source)
        if compiled is None:  # one the walk over the schema did not meet
            compiled = patterns.setdefault(source, compile_regex(source, "json_schema", timeout))
        if compiled.search(instance) is None:
            yield ValidationError(f"{instance!r} does not match {source!r}")

    go_patterns = validators.extend(base, {"pattern": pattern})
    return go_patterns(schema, format_checker=base.FORMAT_CHECKER)


def _describe_error(error: Any) -> str:
    field = ".".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{field}: {error.message}"


# -- json_path -------------------------------------------------------------------------------


def _number(name: str, value: object) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"json_path {name} must be a finite number, got {value!r}")
    return value


def _count(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"json_path {name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"json_path {name} must not be negative, got {value}")
    return value


def _function_names(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        if node.get("type") == "function_expression":
            yield str(node.get("value"))
        for child in node.get("children", ()):
            yield from _function_names(child)


_JMESPATH_EXTRA = (
    "json_path needs the jmespath library, which is not installed: pip install 'chatassert[json]'"
)


def _compile_jmespath(expression: str) -> Any:
    try:
        import jmespath
        from jmespath.functions import Functions
    except ImportError:
        raise MissingExtraError(_JMESPATH_EXTRA, name="jmespath") from None

    try:
        compiled = jmespath.compile(expression)
    except (ValueError, RecursionError) as exc:  # jmespath's errors are ValueErrors
        raise ValueError(
            f"json_path expression {expression!r} is not valid JMESPath: "
            + " ".join(str(exc).split())
        ) from None
    known = sorted(Functions.FUNCTION_TABLE)
    for name in _function_names(compiled.parsed):
        if name not in known:
            hint = did_you_mean(name, known)
            raise ValueError(
                f"json_path expression {expression!r} calls the unknown JMESPath function "
                f"{name}()" + (f" ({hint})" if hint else f"; known: {', '.join(known)}")
            )
    return compiled


def _plain_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@register
class JSONPath(_JSONResponse):
    """Passes when a JMESPath expression over the turn's JSON response gives what is expected.

    PromptKit's `json_path` evaluates `expression` (alias `jmespath_expression`) with JMESPath
    and checks its result, in this order, stopping at the first failure: `expected` (equal
    as JSON: `1` equals `1.0`, `"1"` does not), `contains` (a list whose items all appear in
    the result, a list), `min`/`max` (the result is a number within them) and
    `min_results`/`max_results` (the result is a list of that many items; 0 sets no bound, as
    in PromptKit). At least one of them is needed. A path that is missing gives `null`.

    Example:
        >>> from chatassert.promptkit import JSONPath
        >>> doc = '{"users": [{"name": "Ann", "age": 30}, {"name": "Bo", "age": 25}]}'
        >>> JSONPath("users[*].name", ["Ann", "Bo"]).check(doc).passed
        True
        >>> JSONPath("users[?age > `26`]", max_results=0, min_results=2).check(doc).reason
        'Expected users[?age > `26`] to give at least 2 items but it gives 1'
    """

    __slots__ = (
        "_compiled",
        "contains",
        "expected",
        "expression",
        "max",
        "max_results",
        "min",
        "min_results",
    )
    kind = "json_path"
    dialect_names = {"promptkit.turn": "json_path"}
    params = (
        Param(
            "expression",
            "str",
            required=True,
            aliases=("jmespath_expression",),
            doc="a JMESPath expression over the response's JSON",
        ),
        Param("expected", "any", default=None, doc="the value the expression must give"),
        Param("contains", "any", default=None, doc="items the resulting list must contain"),
        Param("min", "number", default=None, doc="the smallest number the result may be"),
        Param("max", "number", default=None, doc="the largest number the result may be"),
        Param("min_results", "int", default=None, doc="the fewest items the result may have"),
        Param("max_results", "int", default=None, doc="the most items the result may have"),
        _WRAPPED,
        _EXTRACT,
    )
    expression: str
    expected: Any
    contains: list[Any] | None
    min: float | int | None
    max: float | int | None
    min_results: int | None
    max_results: int | None
    _compiled: Any

    def __init__(
        self,
        expression: str,
        expected: Any = None,
        *,
        contains: Sequence[Any] | None = None,
        min: float | None = None,
        max: float | None = None,
        min_results: int | None = None,
        max_results: int | None = None,
        allow_wrapped: bool = False,
        extract_json: bool = False,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        self._where(allow_wrapped, extract_json)
        if not isinstance(expression, str) or not expression.strip():
            raise ValueError("json_path needs a non-empty JMESPath expression")
        if contains is not None:
            if isinstance(contains, str | bytes | Mapping) or not isinstance(contains, Sequence):
                raise TypeError(f"json_path contains must be a list of items, got {show(contains)}")
            if not contains:
                raise ValueError("json_path contains is an empty list, which every list contains")
        low, high = _number("min", min), _number("max", max)
        if low is not None and high is not None and low > high:
            raise ValueError(f"json_path min {low} is greater than max {high}")
        fewest, most = _count("min_results", min_results), _count("max_results", max_results)
        if fewest and most and fewest > most:
            raise ValueError(f"json_path min_results {fewest} is greater than max_results {most}")
        compiled = _compile_jmespath(expression)
        nothing = expected is None and contains is None and low is None and high is None
        if nothing and not fewest and not most:
            raise ValueError(
                "json_path needs something to check: expected, contains, min/max or "
                "min_results/max_results"
            )
        self._set("expression", expression)
        self._set("_compiled", compiled)
        self._set("expected", plain(expected))
        self._set("contains", None if contains is None else plain(list(contains)))
        self._set("min", low)
        self._set("max", high)
        self._set("min_results", fewest)
        self._set("max_results", most)

    def _check(self, subject: object) -> Result:
        text, data, error = self._decode(subject)
        if error is not None:
            return self._not_json(text, error, "JSON")
        base = {"expression": self.expression}
        try:
            result = self._compiled.search(data)
        except (ValueError, RecursionError) as exc:  # a function given the wrong type, say
            return Result(
                _F,
                self.kind,
                f"JMESPath could not evaluate {self.expression} on the response: {exc}",
                {**base, "error": f"JMESPath error: {exc}", "jmespath_expression": self.expression},
            )
        base["result"] = result
        failure = (
            self._expected_failure(result)
            or self._contains_failure(result)
            or self._range_failure(result)
            or self._count_failure(result)
        )
        if failure is not None:
            reason, details = failure
            return Result(_F, self.kind, reason, {**base, **details})
        return Result(_P, self.kind, self._held(), base)

    def _expected_failure(self, result: Any) -> tuple[str, dict[str, Any]] | None:
        if self.expected is None or json_equal(result, self.expected):
            return None
        return (
            f"Expected {self.expression} to be {show(self.expected)} but got {show(result)}",
            {
                "expected": self.expected,
                "actual": result,
                "message": "Result does not match expected value",
            },
        )

    def _contains_failure(self, result: Any) -> tuple[str, dict[str, Any]] | None:
        if self.contains is None:
            return None
        if not isinstance(result, list):
            return (
                f"Expected {self.expression} to give a list containing "
                f"{show(self.contains)} but it gives {show(result)}",
                {"message": "Result is not an array, cannot check contains"},
            )
        for item in self.contains:
            if not any(json_equal(value, item) for value in result):
                return (
                    f"Expected {self.expression} to contain {show(item)} but it does not",
                    {"message": "Expected item not found in result", "missing": item},
                )
        return None

    def _range_failure(self, result: Any) -> tuple[str, dict[str, Any]] | None:
        if self.min is None and self.max is None:
            return None
        if isinstance(result, bool) or not isinstance(result, int | float):
            return (
                f"Expected {self.expression} to be a number but it is {show(result)}",
                {"message": "Result is not a number"},
            )
        if self.min is not None and result < self.min:
            return (
                f"Expected {self.expression} to be at least {_plain_number(self.min)} "
                f"but it is {show(result)}",
                {
                    "message": f"Value {result:.2f} is below minimum {self.min:.2f}",
                    "actual": result,
                    "min": self.min,
                },
            )
        if self.max is not None and result > self.max:
            return (
                f"Expected {self.expression} to be at most {_plain_number(self.max)} "
                f"but it is {show(result)}",
                {
                    "message": f"Value {result:.2f} exceeds maximum {self.max:.2f}",
                    "actual": result,
                    "max": self.max,
                },
            )
        return None

    def _count_failure(self, result: Any) -> tuple[str, dict[str, Any]] | None:
        if not self.min_results and not self.max_results:
            return None
        if not isinstance(result, list):
            return (
                f"Expected {self.expression} to give a list but it gives {show(result)}",
                {"message": "Result is not an array, cannot check count"},
            )
        count = len(result)
        if self.min_results and count < self.min_results:
            return (
                f"Expected {self.expression} to give at least {self.min_results} items "
                f"but it gives {count}",
                {
                    "message": f"Array has {count} items, minimum is {self.min_results}",
                    "actual": count,
                    "min_results": self.min_results,
                },
            )
        if self.max_results and count > self.max_results:
            return (
                f"Expected {self.expression} to give at most {self.max_results} items "
                f"but it gives {count}",
                {
                    "message": f"Array has {count} items, maximum is {self.max_results}",
                    "actual": count,
                    "max_results": self.max_results,
                },
            )
        return None

    def describe(self) -> str:
        """Describe the requirement."""
        parts = []
        if self.expected is not None:
            parts.append(f"equals {show(self.expected)}")
        if self.contains is not None:
            parts.append(f"contains {show(self.contains)}")
        if self.min is not None:
            parts.append(f"≥ {_plain_number(self.min)}")
        if self.max is not None:
            parts.append(f"≤ {_plain_number(self.max)}")
        if self.min_results:
            parts.append(f"has ≥ {self.min_results} items")
        if self.max_results:
            parts.append(f"has ≤ {self.max_results} items")
        return f"{self.expression} of the response {' and '.join(parts)}" + self._read_from()
