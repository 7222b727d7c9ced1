"""The registry of assertion types and the builder that turns a native spec into assertions.

Each assertion class declares its native `kind`, its `params`, and the names it has in the
vocabularies it belongs to (`dialect_names`); `register` makes it known. The builder here is
pure: it turns plain mappings (or the line-aware mappings of `chatassert.specs`) into assertion
objects, collecting every problem before raising one `SpecError`.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from chatassert._errors import SpecError, SpecProblem

if TYPE_CHECKING:
    from chatassert._base import Assertion

__all__ = [
    "MISSING",
    "Param",
    "SpecContext",
    "build",
    "dialect_types",
    "did_you_mean",
    "from_spec",
    "normalise_type",
    "register",
    "registered",
]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

# The kinds of parameter value the builder understands.
_KINDS = {
    "str": "a string",
    "text": "a string (a number is rendered as text)",
    "str_list": "a list of strings (or one string)",
    "mapping": "a mapping",
    "bool": "true or false",
    "int": "an integer",
    "number": "a number",
    "any": "any value",
    "assertion": "an assertion (a mapping with 'type')",
    "assertions": "a list of assertions",
}


@dataclass(frozen=True)
class Param:
    """A declared spec parameter of an assertion type.

    Attributes:
        name: The name in the native spec (and in the dialect documents).
        kind: One of `str`, `text`, `str_list`, `mapping`, `bool`, `int`, `number`, `any`,
            `assertion`, `assertions`.
        required: Whether the spec must give it.
        default: The value when absent (`MISSING` when there is none).
        aliases: Other accepted spellings.
        allow_empty: Whether an empty string or list is acceptable (G4 says no by default).
        attr: The attribute of the assertion object holding the value (defaults to `name`).
        doc: A short description, used in the JSON Schema and error hints.
        choices: The allowed values, if restricted.
    """

    name: str
    kind: str = "any"
    required: bool = False
    default: Any = MISSING
    aliases: tuple[str, ...] = ()
    allow_empty: bool = False
    attr: str = ""
    doc: str = ""
    choices: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown param kind {self.kind!r}; one of {sorted(_KINDS)}")
        if not self.attr:
            object.__setattr__(self, "attr", self.name)

    @property
    def has_default(self) -> bool:
        """Whether the parameter has a default value."""
        return self.default is not MISSING

    def to_spec(self, value: Any) -> Any:
        """Render an attribute value back into its spec form."""
        if self.kind == "assertion":
            return value.as_spec()
        if self.kind == "assertions":
            return [a.as_spec() for a in value]
        if self.kind == "str_list":
            return value[0] if len(value) == 1 else list(value)
        if self.kind in ("mapping", "any"):
            return _plain(value)  # as the loader gives it: lists, ISO dates
        return value

    def describe_kind(self) -> str:
        """Return what a valid value looks like, in words."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return _KINDS[self.kind]


_REGISTRY: dict[str, type[Assertion]] = {}
_DIALECTS: dict[str, dict[str, type[Assertion]]] = {}

A = TypeVar("A", bound="type[Assertion]")


def register(cls: A) -> A:
    """Class decorator: make an assertion type known to the loader under its `kind`.

    The class may also set `dialect_names`, a mapping from dialect (`flat`, `promptkit.turn`,
    `promptkit.conversation`, `expect`, ...) to the name the type has in that vocabulary.
    """
    kind = cls.kind
    if not kind:
        raise ValueError(f"{cls.__name__} has no kind")
    existing = _REGISTRY.get(kind)
    reloaded = existing is not None and (existing.__module__, existing.__qualname__) == (
        cls.__module__,
        cls.__qualname__,
    )  # the same class from a module loaded again: it takes the old one's place
    if existing is not None and existing is not cls and not reloaded:
        raise ValueError(f"kind {kind!r} is already registered by {existing.__name__}")
    if not cls.__doc__:
        raise ValueError(f"{cls.__name__} needs a docstring: it is the type's documentation")
    _REGISTRY[kind] = cls
    for dialect, name in getattr(cls, "dialect_names", {}).items():
        _DIALECTS.setdefault(dialect, {})[name] = cls
    return cls


def registered() -> dict[str, type[Assertion]]:
    """Return every registered native kind and its class, sorted by kind."""
    _load_builtins()
    return dict(sorted(_REGISTRY.items()))


def dialect_types(dialect: str) -> dict[str, type[Assertion]]:
    """Return the type names of a dialect and the classes they build."""
    _load_builtins()
    return dict(_DIALECTS.get(dialect, {}))


_BUILTIN_MODULES = (
    "chatassert._text",
    "chatassert._tools",
    "chatassert._combinators",
    "chatassert._judged",
    "chatassert._json",
    "chatassert._promptkit",
    "chatassert._trajectory",
    "chatassert._workflow",
)
"""The modules whose assertion types register themselves when imported."""


_builtins_loaded = False


def _load_builtins() -> None:
    # The facade is lazy, so the built-in types are imported here, the first time a type is
    # looked up by name. The flag is set only once every import has finished: a thread that
    # arrives meanwhile imports too, and waits on the import lock of a module in progress.
    global _builtins_loaded
    if not _builtins_loaded:
        for module in _BUILTIN_MODULES:
            importlib.import_module(module)
        _builtins_loaded = True


def normalise_type(name: str) -> str:
    """Normalise a type name: `llm-rubric`, `Not-Contains`, `NotContains` → snake case (G5)."""
    name = name.strip().replace("-", "_").replace(" ", "_")
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)  # LLMRubric
    return name.lower()


def did_you_mean(name: str, choices: Sequence[str]) -> str | None:
    """Return a "did you mean ...?" hint naming the closest valid names, if any are close."""
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.6)
    if not close:
        return None
    return "did you mean " + " or ".join(repr(c) for c in close) + "?"


# -- building ------------------------------------------------------------------------------


def line_of(node: object, key: object = None) -> int | None:
    """Return the 1-based source line of `node` (or of its `key`), when the loader recorded it."""
    if key is not None:
        lines = getattr(node, "key_lines", None)
        if lines and key in lines:
            return int(lines[key])
    line = getattr(node, "line", None)
    return int(line) if line is not None else None


def join_path(path: str, part: str | int) -> str:
    """Extend a spec path with a key or an index: `a` + `b` → `a.b`, `a` + 2 → `a[2]`."""
    if isinstance(part, int):
        return f"{path}[{part}]"
    if not path:
        return part
    return f"{path}.{part}"


@dataclass
class SpecContext:
    """Collects the problems found while building, and the options given to every assertion.

    Attributes:
        file: The file being loaded, for messages.
        options: Construction options (`judge`, `clock`, ...) handed to types that accept them.
        problems: Every problem found so far.
    """

    file: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    problems: list[SpecProblem] = field(default_factory=list)

    def problem(
        self,
        node: object,
        path: str,
        message: str,
        *,
        key: object = None,
        expected: str | None = None,
        found: object = MISSING,
        hint: str | None = None,
    ) -> None:
        """Record one problem at `path` (its line is taken from `node`/`key`)."""
        self.problems.append(
            SpecProblem(
                message=message,
                path=path,
                file=self.file,
                line=line_of(node, key),
                expected=expected,
                found=None if found is MISSING else describe_value(found),
                hint=hint,
            )
        )

    def raise_if_problems(self) -> None:
        """Raise one `SpecError` listing every problem, if there are any."""
        if self.problems:
            raise SpecError(list(self.problems))


def describe_value(value: object) -> str:
    """Describe a found value for a message: its type and a short rendering."""
    text = repr(value)
    if len(text) > 60:
        text = text[:40] + "…" + text[-15:]
    names = {
        str: "string",
        int: "integer",
        float: "number",
        bool: "boolean",
        list: "list",
        dict: "mapping",
        type(None): "null",
    }
    kind = next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)
    if isinstance(value, bool):
        kind = "boolean"
    return f"{kind} {text}"


_RESERVED = ("type", "message", "description")


def build(
    node: object,
    ctx: SpecContext,
    path: str = "",
    *,
    table: Mapping[str, type[Assertion]] | None = None,
    dialect: str = "native",
) -> Assertion | None:
    """Build one assertion from its native spec mapping, or record problems and return None.

    Args:
        node: A mapping `{type: ..., <params>..., message?: ...}`.
        ctx: Where problems are collected and options come from.
        path: The location of `node` in its document.
        table: The type names to accept (default: every registered native kind).
        dialect: The vocabulary name, for messages.
    """
    if table is None:
        _load_builtins()
        table = _REGISTRY
    if not isinstance(node, Mapping):
        ctx.problem(
            node,
            path,
            "an assertion must be a mapping",
            expected="a mapping with 'type'",
            found=node,
        )
        return None
    raw_type = node.get("type")
    if not isinstance(raw_type, str) or not raw_type.strip():
        ctx.problem(
            node,
            path,
            "the assertion has no 'type'",
            key="type",
            expected=f"one of the {dialect} types",
            found=raw_type if "type" in node else MISSING,
            hint="add 'type: <name>'",
        )
        return None
    type_name = normalise_type(raw_type)
    cls = table.get(type_name)
    if cls is None:
        ctx.problem(
            node,
            path,
            f"unknown {dialect} assertion type {raw_type!r}",
            key="type",
            hint=did_you_mean(type_name, sorted(table))
            or f"valid types: {', '.join(sorted(table))}",
        )
        return None
    return build_typed(cls, node, ctx, path, dialect=dialect)


def build_typed(
    cls: type[Assertion],
    node: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
    *,
    dialect: str = "native",
    ignore: Sequence[str] = (),
) -> Assertion | None:
    """Validate `node`'s parameters against `cls.params` and construct the assertion."""
    before = len(ctx.problems)
    by_name: dict[str, Param] = {}
    for param in cls.params:
        by_name[param.name] = param
        for alias in param.aliases:
            by_name[alias] = param
    values: dict[str, Any] = {}
    given_as: dict[str, str] = {}
    message = node.get("message")
    if message is None and isinstance(node.get("description"), str):
        message = node.get("description")
    if message is not None and not isinstance(message, str):
        ctx.problem(
            node,
            join_path(path, "message"),
            "'message' must be a string",
            key="message",
            expected="a string",
            found=message,
        )
    for key, value in node.items():
        if key in _RESERVED or key in ignore:
            continue
        found_param = by_name.get(key) if isinstance(key, str) else None
        if found_param is None:
            names = [p.name for p in cls.params]
            ctx.problem(
                node,
                join_path(path, str(key)),
                f"unknown parameter {key!r} for {dialect} type {node.get('type')!r}",
                key=key,
                hint=did_you_mean(str(key), names + [a for p in cls.params for a in p.aliases])
                or (f"valid parameters: {', '.join(names)}" if names else "it takes none"),
            )
            continue
        param = found_param
        if param.name in given_as:
            ctx.problem(
                node,
                join_path(path, str(key)),
                f"{key!r} and {given_as[param.name]!r} "
                "are two spellings of one parameter; give only one",
                key=key,
            )
            continue
        given_as[param.name] = str(key)
        converted = _convert(param, value, node, key, ctx, join_path(path, str(key)), dialect)
        if converted is not MISSING:
            values[param.attr] = converted
    for param in cls.params:
        if param.required and param.name not in given_as:
            ctx.problem(
                node,
                path,
                f"{dialect} type {node.get('type')!r} needs the parameter {param.name!r}",
                expected=param.describe_kind(),
                hint=f"add '{param.name}: ...'" + (f" ({param.doc})" if param.doc else ""),
            )
    if len(ctx.problems) > before:
        return None
    kwargs = {name: ctx.options[name] for name in cls.options if name in ctx.options}
    try:
        return cls(**values, **kwargs, message=message)
    except (ValueError, TypeError, OverflowError) as exc:  # a number too large, say
        text = str(exc)
        key = _blamed_key(text, {written: node.get(written) for written in given_as.values()})
        # The problem goes on the parameter's line; its name joins the path, unless the message
        # starts with it or the spec never wrote it (a shorthand the loader expanded).
        lines = getattr(node, "key_lines", None)
        written = lines is None or key in lines
        named = key == "type" or re.match(rf"{re.escape(key)}(?![\w])", text) is not None
        ctx.problem(node, path if named or not written else join_path(path, key), text, key=key)
        return None


def _blamed_key(message: str, given: Mapping[str, Any]) -> str:
    """The parameter a constructor's error is about, to place it on its line.

    The only parameter given; else the one whose text value the message quotes (an invalid
    pattern); else the one the message names first, outside quotes; `type` when unsure.
    """
    if len(given) == 1:
        return next(iter(given))
    quoted = [
        key
        for key, value in given.items()
        if isinstance(value, str) and value and (f"'{value}'" in message or f'"{value}"' in message)
    ]
    if len(quoted) == 1:
        return quoted[0]
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "", message)  # not the user's own quoted text
    named = [
        (found.start(), key)
        for key in given
        if (found := re.search(rf"(?<![\w.]){re.escape(key)}(?![\w])", message))
    ]
    return min(named)[1] if named else "type"


def _convert(
    param: Param,
    value: Any,
    node: Mapping[str, Any],
    key: object,
    ctx: SpecContext,
    path: str,
    dialect: str,
) -> Any:
    """Check and coerce one parameter value (G5 coercions); record a problem on mismatch."""
    kind = param.kind

    def bad(message: str | None = None) -> Any:
        ctx.problem(
            node,
            path,
            message or f"parameter {param.name!r} has the wrong type",
            key=key,
            expected=param.describe_kind(),
            found=value,
        )
        return MISSING

    if value is None and param.has_default and param.default is None:
        return None
    if kind == "str":
        if not isinstance(value, str):
            return bad()
        if not value.strip() and not param.allow_empty:
            return bad(f"parameter {param.name!r} must not be empty")
    elif kind == "text":
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            return bad()
        value = str(value)
        if not value.strip() and not param.allow_empty:
            return bad(f"parameter {param.name!r} must not be empty")
    elif kind == "str_list":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return bad()
        if not param.allow_empty and (not value or any(not v for v in value)):
            return bad(f"parameter {param.name!r} must be a non-empty list of non-empty strings")
        value = tuple(value)
    elif kind == "mapping":
        if not isinstance(value, Mapping):
            return bad()
        if not value and not param.allow_empty:
            return bad(f"parameter {param.name!r} must not be empty")
        value = _plain(value)
    elif kind == "bool":
        if not isinstance(value, bool):
            return bad()
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return bad()
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return bad()
    elif kind == "assertion":
        built_one = build(value, ctx, path, dialect=dialect)
        return MISSING if built_one is None else built_one
    elif kind == "assertions":
        if not isinstance(value, list):
            return bad()
        if not value and not param.allow_empty:
            return bad(f"parameter {param.name!r} needs at least one assertion")
        built = [
            build(item, ctx, join_path(path, i), dialect=dialect) for i, item in enumerate(value)
        ]
        if any(b is None for b in built):
            return MISSING
        return tuple(built)
    else:
        value = _plain(value)
    if param.choices and value not in param.choices:
        hint = did_you_mean(str(value), [str(c) for c in param.choices])
        return bad(
            f"parameter {param.name!r} must be one of {list(param.choices)}"
            + (f" ({hint})" if hint else "")
        )
    return value


def _plain(value: Any) -> Any:
    """Copy loader containers into plain dicts/lists, and YAML dates into ISO strings."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value


def from_spec(spec: Mapping[str, Any], **options: Any) -> Assertion:
    """Build an assertion from its native spec (the output of `as_spec()`).

    Args:
        spec: A mapping `{type: <kind>, <params>..., message?: ...}`.
        **options: Construction options such as `judge=` for judged assertions.

    Raises:
        SpecError: listing every problem in the spec.

    Example:
        >>> from chatassert import Contains, from_spec
        >>> from_spec({"type": "contains", "value": "refund"}) == Contains("refund")
        True
    """
    ctx = SpecContext(options=options)
    built = build(spec, ctx)
    ctx.raise_if_problems()
    assert built is not None
    return built


def iter_params(cls: type[Assertion]) -> Iterator[Param]:
    """Yield the declared params of `cls` (a helper for schema generation)."""
    yield from cls.params


Factory = Callable[..., "Assertion"]
