"""What a log that cannot be read was meant to be, so its error says what to do.

Three wrong guesses are common: a suite given where a log goes (the arguments of `chatassert
check` swapped), a record of no known format, and a pretty-printed JSON document saved as
`.jsonl`. Each is told here from what the reading found, in one message:

- `suite_kind` and `text_suite_kind` recognise a suite by the keys its vocabulary uses (a
  parsed JSON value, or YAML text read for its keys only: this module needs no YAML parser);
- `unrecognised` names the log formats closest to a record and what each needs;
- `not_json` explains a whole file that is not JSON: a suite, a YAML file, pretty-printed
  JSON that does not parse, several documents one after another.

Nothing here reads a record: the readers do (`transcripts._readers`); this module only words
the errors of what none of them could read.

Example:
    >>> suite_kind({"test_cases": [{"name": "t", "turns": []}]})
    'a flat suite'
    >>> unrecognised({"msgs": []}).split(";")[0]
    "unrecognised transcript record (keys: ['msgs']): not native: no 'turns' list"
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from typing import Any

from chatassert.transcripts._readers import FORMATS, readers

__all__ = ["SUITE_FIRST", "not_json", "suite_kind", "text_suite_kind", "unrecognised"]

SUITE_FIRST = "the suite comes first: chatassert check SUITE LOG"
"""What to do with a suite given where a log goes."""

_CLOSEST = 3
"""How many formats an unrecognised record's message describes."""

_COMMON = ("native", "openai", "anthropic")
"""The formats described when a record shares no key with any format."""

_KEYS_WALKED = 2_000
"""At most how many keys of a value are looked at to recognise a suite."""


def _keys(value: Any, depth: int = 4) -> Iterator[str]:
    """The string keys of `value`'s objects, down to `depth` levels (at most `_KEYS_WALKED`)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen = 0
    while stack and seen < _KEYS_WALKED:
        node, level = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                seen += 1
                if isinstance(key, str):
                    yield key
                if level < depth and isinstance(child, dict | list):
                    stack.append((child, level + 1))
        elif isinstance(node, list) and level < depth:
            children = (child for child in node[:50] if isinstance(child, dict | list))
            stack.extend((child, level + 1) for child in children)


def _kind(top: Collection[str], nested: Collection[str]) -> str | None:
    """The kind of suite whose top-level keys are `top` and whose keys at any level include
    `nested`, or None."""
    if "chatassert" in top or ("cases" in top and {"assertions", "turns"} & set(nested)):
        return "a native chatassert suite"
    if "test_cases" in top:
        return "a flat suite"
    if "turns" in top and {"user_input", "assertions"} & set(nested):
        return "a flat test file"
    if "test_suites" in top or ("tests" in top and "expect" in nested):
        return "an expect suite"
    if "apiVersion" in top and "kind" in top:
        return "a PromptKit file"
    return None


def suite_kind(value: Any) -> str | None:
    """What kind of suite a parsed JSON value is, told by its keys, or None for anything else.

    Example:
        >>> suite_kind({"turns": [{"user_input": "Hi", "assertions": []}]})
        'a flat test file'
        >>> suite_kind({"turns": [{"input": "Hi", "text": "Hello"}]}) is None  # a native log
        True
    """
    if isinstance(value, list):
        assertions = bool(value) and all(
            isinstance(item, dict)
            and isinstance(item.get("type"), str)
            and "role" not in item
            and ("value" in item or "params" in item)
            for item in value[:50]
        )
        return "a list of assertions (a suite)" if assertions else None
    if not isinstance(value, dict):
        return None
    return _kind(value, set(_keys(value)))


_TOP_KEY = re.compile(r"^([A-Za-z_$][\w$.-]*)[ \t]*:(?:[ \t]|$)", re.MULTILINE)
_ANY_KEY = re.compile(r"^[ \t]*(?:-[ \t]+)*([A-Za-z_$][\w$.-]*)[ \t]*:(?:[ \t]|$)", re.MULTILINE)
_ASSERTION_ITEM = re.compile(r"\A(?:[ \t]*(?:#.*)?\n)*-[ \t]+type[ \t]*:")


def text_suite_kind(text: str) -> str | None:
    """What kind of suite a YAML (or JSON) text is, told by its keys, or None.

    Example:
        >>> text_suite_kind("name: booking\\ncases:\\n  - name: books\\n    turns: []\\n")
        'a native chatassert suite'
        >>> text_suite_kind('{"turns": [{"input": "Hi"}]}') is None
        True
    """
    head = text[: 1 << 20]
    if _ASSERTION_ITEM.match(head):
        return "a list of assertions (a suite)"
    top = {match.group(1) for match in _TOP_KEY.finditer(head)}
    if not top:
        return None
    return _kind(top, {match.group(1) for match in _ANY_KEY.finditer(head)})


# -- a record of no known format ----------------------------------------------------------------


def _closest(record: dict[Any, Any]) -> list[str]:
    """The names of the formats whose keys `record` shares most, at most `_CLOSEST`, in
    detection order among equals; the common formats when it shares none."""
    keys = {key for key in record if isinstance(key, str)}
    scored = [
        (-len(keys & set(reader.keys)), index, reader.name)
        for index, reader in enumerate(readers())
        if keys & set(reader.keys)
    ]
    names = [name for _, _, name in sorted(scored)[:_CLOSEST]]
    for name in _COMMON:
        if len(names) < _CLOSEST and name not in names:
            names.append(name)
    return names


_JSON_NAMES = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string"}


def unrecognised(record: Any) -> str:
    """Why no log format reads `record`: what it is, and, for an object, what the closest
    formats need (those whose keys it shares, else the most common ones); a suite says so.

    Example:
        >>> import re
        >>> re.findall(r"not ([a-z-]+): no", unrecognised({"calls": []}))  # the closest three
        ['openai-responses', 'anthropic', 'openai']
        >>> unrecognised({"calls": []}).split(": not")[0]
        "unrecognised transcript record (keys: ['calls'])"
    """
    kind = suite_kind(record)
    if kind is not None:
        return f"this is {kind}, not a log: {SUITE_FIRST}"
    known = f"known formats: {', '.join(FORMATS)}"
    if isinstance(record, dict):
        shown = sorted(map(str, record))[:8]
        wants = {reader.name: reader.wants for reader in readers()}
        why = "; ".join(f"not {name}: no {wants[name]}" for name in _closest(record))
        return f"unrecognised transcript record (keys: {shown}): {why}; {known}"
    if isinstance(record, list):
        return f"unrecognised transcript record ({_array(record)}); {known}"
    what = f"a JSON {_JSON_NAMES.get(type(record), 'value')}, not an object"
    return f"unrecognised transcript record ({what}); {known}"


def _array(record: list[Any]) -> str:
    """What a JSON array no format reads holds, and what an array must hold to be read."""
    wanted = "an array is read when it holds chat messages (each with a 'role'), calls, or records"
    if not record:
        return f"an empty JSON array: {wanted}"
    odd = next((i for i, item in enumerate(record) if not isinstance(item, dict)), None)
    if odd is not None:
        found = _JSON_NAMES.get(type(record[odd]), "array")
        return f"a JSON array holding a {found} at [{odd}]: {wanted}"
    first = sorted(map(str, record[0]))[:8]
    return f"a JSON array of objects of no known format ([0] has keys: {first}): {wanted}"


# -- a whole file that is not JSON ----------------------------------------------------------------


def _pretty(text: str) -> bool:
    """Whether `text` starts as a pretty-printed JSON document: a lone `{` or `[` line."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.strip() in ("{", "[")


def not_json(text: str, source: str, reason: str) -> str:
    """The error of a whole file that was read as one JSON document and is not one, by what it
    most likely is: a suite, a YAML file, pretty-printed JSON in a `.jsonl` file (broken, or
    several documents one after another), or a JSON file with an error (`reason` says where).

    Example:
        >>> not_json("turns:\\n  - user_input: Hi\\n    assertions: []\\n", "s.yaml", "x")
        'this is a flat test file, not a log: the suite comes first: chatassert check SUITE LOG'
    """
    kind = text_suite_kind(text)
    if kind is not None:
        return f"this is {kind}, not a log: {SUITE_FIRST}"
    name = source.lower().removesuffix(".gz")
    if name.endswith((".yaml", ".yml")):
        return (
            f"this is a YAML file, not a log: a log holds JSON, one record per line "
            f"({reason.split(':')[0]})"
        )
    if _pretty(text) and not name.endswith(".json"):
        if reason.startswith("Extra data"):
            return (
                f"this holds several pretty-printed JSON documents one after another, not "
                f"JSON Lines ({reason}): write one record per line (jq -c . FILE)"
            )
        return (
            f"this looks like one pretty-printed JSON document, not JSON Lines, and it is not "
            f"valid JSON ({reason}): fix it and name the file .json, or write one record per line"
        )
    return f"the file is not JSON: {reason}"
