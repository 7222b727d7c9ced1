"""Paths into a JSON response: the expect dialect's dotted notation, and full JSONPath.

The dotted notation (`pagination.total`, `results[*].metadata.tags`, `results[0].file`) is
compiled once into a tuple of steps and evaluated by a plain loop. A path that starts with `$`
is full JSONPath, compiled with jsonpath-ng (imported only when such a path is compiled).

Every value found carries its concrete location, so a reason can say `results[2].file`:

- a missing key, an index out of range, or a step into a value of the wrong type is *missing*;
- `[*]` over a missing, `null` or empty array yields nothing;
- a `null` value is present (it exists, with the value `None`).

Example:
    >>> path = compile_path("results[*].file")
    >>> doc = {"results": [{"file": "a.md"}, {"title": "no file"}, {"file": "c.md"}]}
    >>> [(path.location(where), value) for value, where in path.find(doc)]
    [('results[0].file', 'a.md'), ('results[2].file', 'c.md')]
    >>> compile_path("pagination.total").get({"pagination": {}}) is MISSING
    True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Final

from chatassert._budget import run_limited
from chatassert._errors import RegexTimeoutError
from chatassert._params import MISSING

__all__ = ["MISSING", "JsonPath", "PathEvaluationError", "compile_path", "item_index"]

# A step: a key (str), an index (int), or `_ALL` for `[*]`.
_ALL: Final = None
_Step = str | int | None

_TOKEN = re.compile(r"\[(\*|-?\d+)\]|\[(['\"])(.*?)\2\]|\.?([^.\[\]]+)")

# A location: the indexes taken by the `[*]` steps (dotted paths), or the text (JSONPath).
Where = tuple[int, ...] | str

_NAMED = 32
"""How many items' locations a path with one `[*]` writes when it is compiled: failures name
the items they found, and most arrays are shorter."""


class JsonPath:
    """A compiled path: `find` yields every value with where it was found.

    Build one with `compile_path`. Instances are immutable and picklable (they keep their
    source text and compile it again on unpickling).

    Attributes:
        source: The path as written.
        fans_out: Whether the path may select several values (`[*]`, or a JSONPath wildcard,
            recursive descent, filter or slice); a path that does not fan out names one field,
            and a check over it reports that field as missing rather than passing vacuously.
        values: `values(doc)` returns the values `find` would, without their locations: a
            function specialised for the path's shape when it was compiled (the fast path of
            checks).
    """

    __slots__ = (
        "_by_position",
        "_finder",
        "_named",
        "_parts",
        "_steps",
        "fans_out",
        "source",
        "values",
    )

    source: str
    fans_out: bool
    _steps: tuple[_Step, ...]
    _parts: tuple[str, ...]
    _finder: Callable[[Any], list[tuple[Any, Where]]]
    _by_position: tuple[str, ...] | None
    """For `a.b[*].c`, the keys before `[*]`: each item gives at most one value there."""
    _named: tuple[tuple[str, int], ...]
    """For `a.b[*].c`, the location and index of the value of each of the first items."""
    values: Callable[[Any], list[Any]]

    def __init__(self, source: str) -> None:
        if not isinstance(source, str):
            raise TypeError(f"a path must be a string, got {type(source).__name__}")
        text = source.strip()
        if not text:
            raise ValueError("a path must not be empty")
        set_ = object.__setattr__
        set_(self, "source", text)
        if text.startswith("$"):
            set_(self, "_steps", ())
            set_(self, "_parts", ())
            set_(self, "_by_position", None)
            finder, fans_out = _compile_jsonpath(text)
            set_(self, "fans_out", fans_out)
            set_(self, "_finder", finder)
            set_(self, "values", lambda doc: [v for v, _ in finder(doc)])
            return
        steps = _parse(text)
        set_(self, "_steps", steps)
        set_(self, "_by_position", None)
        set_(self, "fans_out", _ALL in steps)
        set_(self, "_parts", _template(steps))
        if len(steps) == 1 and isinstance(steps[0], str):
            set_(self, "_finder", self._find_key)
        elif _ALL not in steps:
            set_(self, "_finder", self._find_one)
        elif (around := _one_wildcard(steps)) is not None:
            set_(self, "_finder", _one_wildcard_finder(*around))
            set_(self, "_by_position", around[0])
            head, tail = self._parts
            set_(self, "_named", tuple((f"{head}[{k}]{tail}", k) for k in range(_NAMED)))
        else:
            set_(self, "_finder", self._find_all)
        set_(self, "values", _values_function(steps, self._finder))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("JsonPath is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (JsonPath, (self.source,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonPath) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)

    def __repr__(self) -> str:
        return f"JsonPath({self.source!r})"

    # -- evaluation ----------------------------------------------------------------------

    def find(self, doc: Any) -> list[tuple[Any, Where]]:
        """Return every `(value, where)` the path selects in `doc`, in document order."""
        return self._finder(doc)

    def get(self, doc: Any) -> Any:
        """Return the single value at the path, or `MISSING` (the first value of a fan-out)."""
        found = self._finder(doc)
        return found[0][0] if found else MISSING

    def location(self, where: Where) -> str:
        """Render a `where` from `find` as a concrete path: `results[2].file`."""
        if isinstance(where, str):
            return where
        parts = self._parts
        if not where:
            return parts[0]
        if len(where) == 1:  # one wildcard (`results[*].file`): most failures name these
            return f"{parts[0]}[{where[0]}]{parts[1]}"
        out = [parts[0]]
        for i, index in enumerate(where):
            out.append(f"[{index}]")
            out.append(parts[i + 1])
        return "".join(out)

    def places(self, doc: Any, count: int, positions: list[int]) -> list[tuple[str, int | None]]:
        """Where the values at `positions` of `values(doc)` are (`count` is how many values
        it gave): each as its concrete location and the index of its item (see `item_index`).

        The loops of checks test the values alone and locate only those that fail. Over
        `a[*].b`, when every item gave a value, a value's position is its item's index.

        Example:
            >>> path = compile_path("results[*].file")
            >>> doc = {"results": [{"file": "a.md"}, {"title": "none"}, {"file": "c.md"}]}
            >>> path.places(doc, 2, [1])
            [('results[2].file', 2)]
        """
        by_position = self._by_position
        if by_position is not None:
            array = _walk_keys(doc, by_position)
            if isinstance(array, list) and len(array) == count:
                named = self._named
                if positions[-1] < len(named):  # positions ascend
                    return [named[k] for k in positions]
                head, tail = self._parts
                return [(f"{head}[{k}]{tail}", k) for k in positions]
        found, location = self._finder(doc), self.location
        return [(location(where), item_index(where)) for where in (found[k][1] for k in positions)]

    def _find_key(self, doc: Any) -> list[tuple[Any, Where]]:
        key = self._steps[0]
        if isinstance(doc, dict) and key in doc:
            return [(doc[key], ())]
        return []

    def _find_one(self, doc: Any) -> list[tuple[Any, Where]]:
        node = doc
        for step in self._steps:
            if type(step) is str:
                if not isinstance(node, dict) or step not in node:
                    return []
                node = node[step]
            else:
                assert isinstance(step, int)
                if not isinstance(node, list) or not -len(node) <= step < len(node):
                    return []
                node = node[step]
        return [(node, ())]

    def _find_all(self, doc: Any) -> list[tuple[Any, Where]]:
        nodes: list[tuple[Any, tuple[int, ...]]] = [(doc, ())]
        for step in self._steps:
            out: list[tuple[Any, tuple[int, ...]]] = []
            if step is _ALL:
                for node, where in nodes:
                    if isinstance(node, list):
                        out.extend((item, (*where, i)) for i, item in enumerate(node))
            elif type(step) is str:
                for node, where in nodes:
                    if isinstance(node, dict) and step in node:
                        out.append((node[step], where))
            else:
                assert isinstance(step, int)
                for node, where in nodes:
                    if isinstance(node, list) and -len(node) <= step < len(node):
                        out.append((node[step], where))
            nodes = out
            if not nodes:
                break
        return nodes  # type: ignore[return-value]


def item_index(where: Where) -> int | None:
    """The index of the item a value was found in: the first `[*]`'s (or, in a JSONPath
    location, the first index), or None for a path without one.

    Example:
        >>> item_index((2, 0)), item_index(()), item_index("$.results[4].file")
        (2, None, 4)
    """
    if isinstance(where, tuple):
        return where[0] if where else None
    match = _FIRST_INDEX.search(where)
    return int(match.group(1)) if match else None


_FIRST_INDEX = re.compile(r"\[(\d+)\]")


def _walk_keys(node: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return MISSING
        node = node[key]
    return node


def _one_wildcard(steps: tuple[_Step, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The keys before and after the one `[*]` of a path like `a.b[*].c.d`, else None."""
    if steps.count(_ALL) != 1 or not all(type(s) is str for s in steps if s is not _ALL):
        return None
    at = steps.index(_ALL)
    return tuple(str(s) for s in steps[:at]), tuple(str(s) for s in steps[at + 1 :])


def _one_wildcard_finder(
    prefix: tuple[str, ...], suffix: tuple[str, ...]
) -> Callable[[Any], list[tuple[Any, Where]]]:
    """`find` for the common shape `a[*].b.c`: one loop, each value with its item's index."""

    first = suffix[0] if len(suffix) == 1 else None

    def find(doc: Any) -> list[tuple[Any, Where]]:
        array = _walk_keys(doc, prefix)
        if not isinstance(array, list):
            return []
        if first is not None:  # `a[*].b`, the most common shape: no call per item
            return [
                (item[first], (i,))
                for i, item in enumerate(array)
                if isinstance(item, dict) and first in item
            ]
        out: list[tuple[Any, Where]] = []
        for i, item in enumerate(array):
            value = _walk_keys(item, suffix)
            if value is not MISSING:
                out.append((value, (i,)))
        return out

    return find


def _values_function(
    steps: tuple[_Step, ...], finder: Callable[[Any], list[tuple[Any, Where]]]
) -> Callable[[Any], list[Any]]:
    """A specialised evaluator for the common shapes: `a.b` and `a[*].b.c` (keys only around
    one wildcard); anything else takes the general loop and drops the locations."""
    if _ALL not in steps and all(type(s) is str for s in steps):
        keys = tuple(str(s) for s in steps)
        if len(keys) == 1:
            key = keys[0]

            def at_key(doc: Any) -> list[Any]:  # `a`: `has_fields`, `status`, …
                return [doc[key]] if isinstance(doc, dict) and key in doc else []

            return at_key

        def keys_only(doc: Any) -> list[Any]:
            value = _walk_keys(doc, keys)
            return [] if value is MISSING else [value]

        return keys_only
    around = _one_wildcard(steps)
    if around is not None:
        prefix, suffix = around
        first, second = (*suffix, "", "")[:2]

        one_key = prefix[0] if len(prefix) == 1 else None
        shape = min(len(suffix), 3)
        if one_key is not None and shape == 1:

            def items_key(doc: Any) -> list[Any]:  # `a[*].b`: the most common shape
                array = doc.get(one_key) if isinstance(doc, dict) else None
                if not isinstance(array, list):
                    return []
                return [item[first] for item in array if isinstance(item, dict) and first in item]

            return items_key

        def one_wildcard(doc: Any) -> list[Any]:
            # No call per item: this runs for most checks of an expect suite.
            if one_key is not None:
                array = doc.get(one_key) if isinstance(doc, dict) else None
            else:
                array = _walk_keys(doc, prefix)
            if not isinstance(array, list):
                return []
            if shape == 1:
                return [item[first] for item in array if isinstance(item, dict) and first in item]
            if shape == 2:
                return [
                    inner[second]
                    for item in array
                    if isinstance(item, dict)
                    and isinstance(inner := item.get(first), dict)
                    and second in inner
                ]
            if shape == 0:
                return list(array)
            out = []
            for item in array:
                value = _walk_keys(item, suffix)
                if value is not MISSING:
                    out.append(value)
            return out

        return one_wildcard
    return lambda doc: [v for v, _ in finder(doc)]


def compile_path(path: str) -> JsonPath:
    """Compile a path once: dotted notation, or full JSONPath when it starts with `$`.

    Raises:
        ValueError: for an empty or malformed path (with the position of the problem). A
            JSONPath that compiles may still fail on a value: its `find` raises
            `PathEvaluationError` (a `ValueError`) or, for a regex extension out of time,
            `RegexTimeoutError`.

    Example:
        >>> compile_path("results[0].file").find({"results": [{"file": "a.md"}]})
        [('a.md', ())]
    """
    return JsonPath(path)


def _parse(text: str) -> tuple[_Step, ...]:
    steps: list[_Step] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise ValueError(
                f"cannot read the path {text!r} at position {pos} "
                f"({text[pos:]!r}); write a.b, a[*].b or a[0].b"
            )
        index, _, quoted, key = match.groups()
        if key is not None:
            if match.group(0).startswith(".") and pos == 0:
                raise ValueError(f"the path {text!r} starts with '.'; write it without the dot")
            if not match.group(0).startswith(".") and pos > 0:
                raise ValueError(
                    f"cannot read the path {text!r} at position {pos}: "
                    "expected '.' or '[' between steps"
                )
            steps.append(key.strip())
        elif quoted is not None:
            steps.append(quoted)
        elif index == "*":
            steps.append(_ALL)
        else:
            steps.append(int(index))
        pos = match.end()
    if text.endswith("."):
        raise ValueError(f"the path {text!r} ends with '.'")
    return tuple(steps)


def _template(steps: tuple[_Step, ...]) -> tuple[str, ...]:
    """The text around each `[*]`: `results[*].file` → `('results', '.file')`."""
    parts: list[str] = []
    current = ""
    started = False
    for step in steps:
        if step is _ALL:
            parts.append(current)
            current = ""
        elif type(step) is int:
            current += f"[{step}]"
        else:
            assert isinstance(step, str)
            if step and not any(c in step for c in ".[]'\" "):
                current += "." + step if started else step
            else:
                current += f"[{step!r}]"
        started = True
    parts.append(current)
    return tuple(parts)


def _compile_jsonpath(text: str) -> tuple[Callable[[Any], list[tuple[Any, Where]]], bool]:
    """The `find` of a full JSONPath, and whether the path may select several values."""
    from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError
    from jsonpath_ng.ext.parser import parse

    try:
        expr = parse(text)
    except (JsonPathLexerError, JsonPathParserError, Exception) as exc:
        raise ValueError(f"invalid JSONPath {text!r}: {exc}") from exc
    _limit_regexes(expr, text)

    def find(doc: Any) -> list[tuple[Any, Where]]:
        try:
            return [(m.value, _jsonpath_location(m)) for m in expr.find(doc)]
        except (RegexTimeoutError, RecursionError, MemoryError):
            raise
        except Exception as exc:  # jsonpath-ng's own: `parent` of $, …
            raise PathEvaluationError(
                f"the JSONPath {text!r} cannot be evaluated on this value: "
                f"{type(exc).__name__}: {exc}"
            ) from None

    return find, _fans_out(expr)


def _fans_out(node: Any) -> bool:
    """Whether a parsed JSONPath may select several values: a wildcard, a slice, several
    names or indices (`['a','b']`, `[0,1]`), recursive descent, a filter, a union or `where`.
    One field, one index, the root and the extensions that compute one value (`len`) do not."""
    from jsonpath_ng.jsonpath import Child, Fields, Index, Parent, Root, This

    if isinstance(node, Child):
        return _fans_out(node.left) or _fans_out(node.right)
    if isinstance(node, Fields):
        return len(node.fields) != 1 or node.fields[0] == "*"
    if isinstance(node, Index):
        return len(node.indices) != 1
    if isinstance(node, Root | This | Parent):
        return False
    from jsonpath_ng.ext.arithmetic import Operation
    from jsonpath_ng.ext.iterable import Len

    if isinstance(node, Len):
        return False
    if isinstance(node, Operation):  # `$.a + $.b`: one value per pair of operands
        return _fans_out(node.left) or _fans_out(node.right)
    return True  # slices, descendants, filters, unions, where, sorted, …: may be several


class PathEvaluationError(ValueError):
    """A JSONPath compiled but failed on a value (`parent` of the root); a check reports
    it as an `error` result."""


def _limit_regexes(node: Any, text: str) -> None:
    """Run the regular expressions of JSONPath extensions under the library's time limit.

    jsonpath-ng's `sub(/re/, repl)` and `=~` filters run Python's `re` with no limit, so a
    pattern such as `(a+)+$` could hang a check. Each one is compiled here with the `regex`
    module instead and runs within `DEFAULT_REGEX_TIMEOUT` and the check's budget (see
    `chatassert._budget`); running out of time raises `RegexTimeoutError`, which the check
    reports as an `error`.
    """
    from jsonpath_ng import JSONPath
    from jsonpath_ng.ext.filter import Expression
    from jsonpath_ng.ext.string import Sub

    if isinstance(node, Sub):
        node.regex = _LimitedRegex(node.expr, text)  # type: ignore[assignment]
    elif isinstance(node, Expression) and node.op == "=~":
        if not isinstance(node.value, str):
            raise ValueError(f"invalid JSONPath {text!r}: `=~` needs a pattern in quotes")
        node.__class__ = _limited_match_class(Expression)
        node.regex = _LimitedRegex(node.value, text)  # type: ignore[attr-defined]
    for value in vars(node).values():
        for child in value if isinstance(value, list | tuple) else (value,):
            if isinstance(child, JSONPath):
                _limit_regexes(child, text)


@functools.cache
def _limited_match_class(base: type) -> type:
    """A subclass of jsonpath-ng's filter `Expression` whose `=~` runs a `_LimitedRegex`."""
    from jsonpath_ng import DatumInContext

    class LimitedMatch(base):  # type: ignore[misc]
        """An `=~` filter whose pattern runs under the time limit."""

        regex: _LimitedRegex

        def find(self, datum: Any) -> list[Any]:
            found = self.target.find(DatumInContext.wrap(datum))
            return [d for d in found if isinstance(d.value, str) and self.regex.search(d.value)]

    return LimitedMatch


class _LimitedRegex:
    """A pattern of a JSONPath extension, run with the `regex` module under the time limit.

    It stands in for the `re.Pattern` jsonpath-ng keeps (`sub`) or looks up (`=~`).
    """

    __slots__ = ("_compiled", "source", "timeout")

    def __init__(self, source: str, path: str) -> None:
        import regex

        from chatassert._regex import DEFAULT_REGEX_TIMEOUT

        self.source = source
        try:
            self._compiled = regex.compile(source)
        except regex.error as exc:
            raise ValueError(f"invalid JSONPath {path!r}: bad pattern {source!r}: {exc}") from None
        self.timeout = DEFAULT_REGEX_TIMEOUT

    def sub(self, repl: str, string: str) -> str:
        compiled = self._compiled
        replaced: str = run_limited(
            lambda limit: compiled.sub(repl, string, timeout=limit),
            self.source,
            self.timeout,
            len(string),
            "the JSONPath pattern",
        )
        return replaced

    def search(self, string: str) -> bool:
        compiled = self._compiled
        found = run_limited(
            lambda limit: compiled.search(string, timeout=limit),
            self.source,
            self.timeout,
            len(string),
            "the JSONPath pattern",
        )
        return found is not None


def _jsonpath_location(match: Any) -> str:
    parts: list[str] = []
    node = match
    while node is not None and node.context is not None:
        text = str(node.path)
        if text.startswith("[") and text.endswith("]"):
            parts.append(text)
        else:
            parts.append("." + text)
        node = node.context
    out = "".join(reversed(parts))
    return out[1:] if out.startswith(".") else out or "$"
