"""A YAML loader that remembers where every mapping, sequence and key came from.

Mappings load as `LocatedDict` and sequences as `LocatedList`, plain `dict`/`list` subclasses
with the 1-based `line` of the node and, for mappings, `key_lines` per key, so spec errors can
say `file:line`. Timestamps stay strings (`2024-02-15` is the ISO string it looks like), and a
duplicate key is a problem, not a silent overwrite. JSON files load through the same loader.

A spec is untrusted input, so the loader has limits, and everything it refuses is a
`SpecError` with a line: a document larger than `MAX_SPEC_CHARS`, nesting deeper than
`MAX_DEPTH`, aliases that would expand the document by more than `MAX_ALIAS_NODES` nodes (a
"billion laughs" bomb), characters YAML does not allow (C0/C1 controls, lone surrogates), a
tagged scalar its tag cannot read (`!!int 0x_`, `!!float x`, `!!timestamp 2020-13-45`), and
integers of more than about 4200 digits. A JSON surrogate pair (`"\\ud83d\\ude00"`, as `json.dumps`
writes an emoji) is the one character it stands for; a lone surrogate is refused, since no
UTF-8 text could ever match it.

`parse_json` is the quick way in for JSON text: the `json` module's parser, returning plain
containers (no lines), or None for anything it is not certain the YAML loader would read the
same way, so the caller reads it with `parse_yaml`. A loader that found problems in what
`parse_json` returned reads the text again with `parse_yaml`, so every problem has its line.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from typing import Any

import yaml

from chatassert._errors import SpecError, SpecProblem

__all__ = [
    "parse_json",
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_SPEC_CHARS",
    "LocatedDict",
    "LocatedList",
    "parse_yaml",
    "read_spec_file",
]

MAX_SPEC_CHARS = 10 * 2**20
"""The largest spec document read, in characters (10 Mi): real specs are a thousand times
smaller, and a bigger one is a mistake or an attack."""

MAX_DEPTH = 100
"""The deepest nesting of mappings and sequences a spec may have."""

MAX_ALIAS_NODES = 100_000
"""How many nodes aliases may add to a document beyond those written out: enough for any
real use of anchors, far too few for a bomb (9 aliases over 9 levels expand to 387 million)."""

_MAX_INT_BITS = 14_000  # about 4200 decimal digits: Python's own limit for int <-> str is 4300

# What YAML allows in a stream (YAML 1.1 and 1.2 alike), as PyYAML's reader checks it.
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
_LISTED = 20  # characters listed one by one before the rest are counted


class LocatedDict(dict[Any, Any]):
    """A dict that knows its source `line` and the line of each key (`key_lines`)."""

    line: int | None = None
    key_lines: dict[Any, int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_lines = {}


class LocatedList(list[Any]):
    """A list that knows its source `line`."""

    line: int | None = None


_TOO_LARGE = "integers in a spec have at most 4200 digits"


class _Refused(yaml.MarkedYAMLError):
    """Valid YAML the loader will not read (past a limit, or a value its tag cannot hold)."""

    def __init__(self, problem: str, at: yaml.Node | yaml.Mark, hint: str) -> None:
        mark = at if isinstance(at, yaml.Mark) else at.start_mark
        super().__init__(problem=problem, problem_mark=mark)
        self.hint = hint


class _Loader(yaml.SafeLoader):
    """SafeLoader with locations, no timestamp conversion and duplicate-key detection."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[Any, int]] = []
        self.depth = 0
        self.written = 0  # nodes written out in the text
        self.sizes: dict[int, int] = {}  # id(node) -> nodes in it once its aliases are expanded

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        """Compose one node, keeping count of nesting depth and of alias expansion."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _Refused(
                    f"the document nests deeper than {MAX_DEPTH} levels",
                    self.peek_event().start_mark,  # type: ignore[no-untyped-call]
                    "flatten it: no spec needs that many levels",
                )
            node = super().compose_node(parent, index)
            assert node is not None  # an event was there to compose
        finally:
            self.depth -= 1
        self.written += 1
        size = self.sizes.get(id(node), 0)  # an alias: the anchored node's size, once more
        if not size:
            size = 1
            if isinstance(node, yaml.SequenceNode):
                size += sum(self.sizes[id(child)] for child in node.value)
            elif isinstance(node, yaml.MappingNode):
                size += sum(self.sizes[id(k)] + self.sizes[id(v)] for k, v in node.value)
            self.sizes[id(node)] = size
        if size - self.written > MAX_ALIAS_NODES:
            raise _Refused(
                f"aliases expand the document by more than {MAX_ALIAS_NODES:,} nodes",
                node,
                "write the repeated parts out, or repeat them fewer times",
            )
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """Construct a node; a scalar its tag cannot read is a `_Refused` at its mark."""
        try:
            value = super().construct_object(node, deep=deep)
        except (ValueError, TypeError, LookupError, AttributeError, OverflowError) as exc:
            tag, text = _tag(node), _shown(node.value)
            if "digits" in str(exc):  # Python's limit on int("…"), 4300 digits
                raise _Refused(f"the integer {text} is too large", node, _TOO_LARGE) from None
            raise _Refused(
                f"{tag} cannot read {text}",
                node,
                f"write a value {tag} accepts, or drop the tag (quote it to keep a string)",
            ) from None
        if isinstance(value, str) and _SURROGATE.search(value):
            return _join_surrogates(value, node)
        if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
            raise _Refused(f"the integer {_shown(node.value)} is too large", node, _TOO_LARGE)
        return value

    def construct_located_mapping(self, node: yaml.MappingNode) -> LocatedDict:
        self.flatten_mapping(node)
        out = LocatedDict()
        out.line = node.start_mark.line + 1
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, "mapping keys must be scalars", key_node.start_mark
                )
            line = key_node.start_mark.line + 1
            if key in out:
                self.duplicates.append((key, line))
            out[key] = self.construct_object(value_node, deep=True)
            out.key_lines[key] = line
        return out

    def construct_located_sequence(self, node: yaml.SequenceNode) -> LocatedList:
        out = LocatedList(self.construct_object(child, deep=True) for child in node.value)
        out.line = node.start_mark.line + 1
        return out


# YAML 1.1 reads `1e3` as a string (its floats need a dot); JSON and YAML 1.2 read a number, as
# a spec written in JSON means. Resolvers are tried in order, so this one comes first.
_EXPONENT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?[eE][-+]?[0-9]+$")
for _first in "-+0123456789":
    _Loader.yaml_implicit_resolvers.setdefault(_first, []).insert(
        0, ("tag:yaml.org,2002:float", _EXPONENT)
    )

_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_located_mapping)
_Loader.add_constructor("tag:yaml.org,2002:seq", _Loader.construct_located_sequence)


def _tag(node: yaml.Node) -> str:
    tag = str(node.tag)
    return "!!" + tag.rsplit(":", 1)[1] if tag.startswith("tag:yaml.org,2002:") else tag


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else ""
    return repr(text if len(text) <= 40 else text[:30] + "…" + text[-8:])


def _join_surrogates(value: str, node: yaml.Node) -> str:
    """Join JSON-style surrogate pairs into their characters; refuse a lone surrogate."""
    try:
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        lone = ord(_SURROGATE.findall(value)[0])
        raise _Refused(
            f"the string holds a lone surrogate (\\u{lone:04x}), which no UTF-8 text contains",
            node,
            "write the character itself, or both halves of its surrogate pair",
        ) from None


def _where(text: str, position: int) -> tuple[int, int]:
    """The 1-based line and column of a position, counting line breaks as YAML does."""
    line, start = 1, 0
    for found in _LINE_BREAK.finditer(text, 0, position):
        line, start = line + 1, found.end()
    return line, position - start + 1


def _unprintable(text: str, filename: str | None) -> SpecError:
    """One problem per character YAML does not allow (the first `_LISTED`, then a count)."""
    found = list(_NOT_PRINTABLE.finditer(text))
    problems = []
    for match in found[:_LISTED]:
        line, column = _where(text, match.start())
        code = ord(match.group())
        what = "a lone surrogate" if 0xD800 <= code <= 0xDFFF else "a control character"
        problems.append(
            SpecProblem(
                f"{what} U+{code:04X} at column {column} is not allowed in YAML or JSON",
                file=filename,
                line=line,
                hint=f'remove it, or write it as the escape "\\u{code:04x}" inside a '
                "double-quoted string",
            )
        )
    if len(found) > _LISTED:
        problems.append(
            SpecProblem(
                f"and {len(found) - _LISTED} more characters that are not allowed",
                file=filename,
            )
        )
    return SpecError(problems)


def read_spec_file(path: str | os.PathLike[str], *, regular_only: bool = False) -> str:
    """Read a spec file's text: UTF-8, at most `MAX_SPEC_CHARS` bytes.

    Args:
        path: The file.
        regular_only: Refuse anything but a regular file (a device such as `/dev/zero`, a
            pipe, a directory): for paths named inside a spec, which is untrusted input.

    Raises:
        OSError: when the file cannot be read, is too large, or (with `regular_only`) is not
            a regular file; its `strerror` says which.
        SpecError: when it is not UTF-8.
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | (getattr(os, "O_NONBLOCK", 0) if regular_only else 0)
    fd = os.open(name, flags)  # non-blocking: opening a pipe must not wait for a writer
    with open(fd, "rb") as file:
        info = os.fstat(fd)
        if regular_only and not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", name)
        too_big = info.st_size > MAX_SPEC_CHARS  # a pipe's size shows only once it is read
        data = b"" if too_big else file.read(MAX_SPEC_CHARS + 1)
    if too_big or len(data) > MAX_SPEC_CHARS:
        raise OSError(errno.EFBIG, f"larger than {MAX_SPEC_CHARS // 2**20} MiB", name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at position {exc.start}"
        raise SpecError(
            [SpecProblem(f"the file is not UTF-8 ({where})", file=name, hint="save it as UTF-8")]
        ) from None


_JSON_START = re.compile(r"\s*[\[{]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_MAX_INT = 2**_MAX_INT_BITS


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN and Infinity are not JSON (and not YAML's spellings)


def _float(literal: str) -> float:
    if "e" in literal or "E" in literal:  # YAML 1.1 reads `1e3` as a string: leave it to YAML
        raise ValueError(literal)
    return float(literal)


def parse_json(text: str) -> Any:
    """Parse JSON text quickly into plain containers, or return None to leave it to `parse_yaml`.

    None when the text is not a JSON object or array, is not valid JSON, or holds anything the
    YAML loader refuses or reads otherwise: a duplicate key, a character YAML does not allow,
    a surrogate escape, a number with an exponent (YAML 1.1 reads `1e3` as a string), an integer
    past the limit, nesting as deep as `MAX_DEPTH`.

    Example:
        >>> parse_json('{"tests": [{"id": "t1", "expect": {"status": "ok"}}]}')["tests"][0]["id"]
        't1'
        >>> parse_json('{"a": 1, "a": 2}') is None  # parse_yaml reports it, with its line
        True
    """
    if len(text) > MAX_SPEC_CHARS or not _JSON_START.match(text):
        return None
    if _SURROGATE_ESCAPE.search(text) or yaml.reader.Reader.NON_PRINTABLE.search(text):
        return None
    duplicate = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicate
        out = dict(items)
        if len(out) != len(items):
            duplicate = True
        return out

    try:
        doc = json.loads(
            text, object_pairs_hook=pairs, parse_constant=_no_constant, parse_float=_float
        )
    except (ValueError, RecursionError):
        return None
    if duplicate or not _within_limits(doc):
        return None
    return doc


def _within_limits(doc: Any) -> bool:
    """Whether no container nests deeper than `MAX_DEPTH` and no integer is too large."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        values = node.values() if type(node) is dict else node
        for value in values:
            kind = type(value)
            if kind is dict or kind is list:
                if depth + 2 > MAX_DEPTH:  # the YAML loader counts the scalars inside too
                    return False
                stack.append((value, depth + 1))
            elif kind is int and not -_MAX_INT < value < _MAX_INT:
                return False
    return True


_UNCLOSED_QUOTE = ("found unexpected end of stream", "found unexpected document separator")
_FLOW = {
    "while parsing a flow sequence": ("'['", "']'"),
    "while parsing a flow mapping": ("'{'", "'}'"),
}


def _syntax_problem(exc: yaml.MarkedYAMLError, filename: str | None) -> SpecProblem:
    r"""A YAML error as one problem, placed where the mistake starts.

    The parser notices an unclosed quote or bracket only where it gives up, often many lines
    later (at the end of the file); its error also marks where the construct began
    (`context_mark`). A quoted string, a `[` or `{`, or a key missing its `:` is reported at
    that start, with the line where the parser gave up; any other error at its own place.

    Example:
        >>> text = "a: 1\nb: 'never closed\nc: 2\n"
        >>> try:
        ...     parse_yaml(text, "suite.yaml")
        ... except SpecError as exc:
        ...     print(exc.problems[0])  # doctest: +NORMALIZE_WHITESPACE
        suite.yaml:2: invalid YAML: a quoted string opened here (column 4) is never closed;
        the parser gave up at line 4 (close the quote: inside '...' write a quote as '', inside
        "..." as \")
    """
    start, stop = exc.context_mark, exc.problem_mark
    problem = exc.problem or exc.context or "invalid YAML"
    if isinstance(exc, _Refused) or start is None or stop is None or start.line >= stop.line:
        mark = stop or start
        column = f", column {mark.column + 1}" if mark is not None else ""
        hint = exc.hint if isinstance(exc, _Refused) else None
        return SpecProblem(
            f"invalid YAML: {problem}{column}" if hint is None else f"{problem}{column}",
            file=filename,
            line=mark.line + 1 if mark is not None else None,
            hint=hint or "check the indentation and quoting around this line",
        )
    gave_up = f"the parser gave up at line {stop.line + 1}"
    at = f"(column {start.column + 1})"
    context = exc.context or ""
    if "quoted scalar" in context and problem in _UNCLOSED_QUOTE:
        message = f"a quoted string opened here {at} is never closed; {gave_up}"
        hint = "close the quote: inside '...' write a quote as '', inside \"...\" as \\\""
    elif context in _FLOW:
        opener, closer = _FLOW[context]
        if "<stream end>" in problem:
            message = f"a {opener} opened here {at} is never closed; {gave_up}"
        else:
            message = (
                f"a {opener} opened here {at} is not closed before line {stop.line + 1}, where "
                f"the parser {problem}"
            )
        hint = f"close it with {closer} where it ends, or write it as a block, one item a line"
    elif context == "while scanning a simple key":
        message = f"the key that starts here {at} has no ':' after it; {gave_up}"
        hint = "write 'key: value', or quote the text if it is a value, not a key"
    else:
        construct = context.removeprefix("while parsing a ").removeprefix("while scanning a ")
        message = f"{problem}, column {stop.column + 1}, in the {construct} that starts at line "
        message += str(start.line + 1)
        return SpecProblem(
            f"invalid YAML: {message}",
            file=filename,
            line=stop.line + 1,
            hint="check the indentation and quoting around this line",
        )
    return SpecProblem(f"invalid YAML: {message}", file=filename, line=start.line + 1, hint=hint)


def parse_yaml(text: str, filename: str | None = None) -> Any:
    """Parse YAML (or JSON) text into located containers.

    Raises:
        SpecError: on a syntax error (with its line and column), duplicate keys, or input past
            the loader's limits (see the module documentation).
    """
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(
            [
                SpecProblem(
                    f"the spec is {len(text):,} characters long; at most {MAX_SPEC_CHARS:,} are "
                    "read",
                    file=filename,
                    hint="split it into several spec files",
                )
            ]
        )
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError:
        raise _unprintable(text, filename) from None
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        raise SpecError([_syntax_problem(exc, filename)]) from None
    except yaml.YAMLError as exc:
        raise SpecError([SpecProblem(f"invalid YAML: {exc}", file=filename)]) from None
    # The scanner's own, for an escape past U+10FFFF: ValueError for `"\\U00110000"`,
    # OverflowError for one past a C int (`"\\UFFFFFFFF"`).
    except (ValueError, OverflowError) as exc:
        mark = loader.get_mark()
        raise SpecError(
            [
                SpecProblem(
                    f"invalid YAML: an escape past U+10FFFF ({exc}), column {mark.column + 1}",
                    file=filename,
                    line=mark.line + 1,
                    hint="an escape names a code point from \\u0000 to \\U0010FFFF",
                )
            ]
        ) from None
    finally:
        loader.dispose()
    if loader.duplicates:
        raise SpecError(
            [
                SpecProblem(
                    f"duplicate key {key!r}",
                    file=filename,
                    line=line,
                    hint="each key may appear once in a mapping; remove or rename one",
                )
                for key, line in loader.duplicates
            ]
        )
    return data
