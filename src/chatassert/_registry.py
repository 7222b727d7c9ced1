"""The registry of assertion types and the builder that turns a native spec into assertions.

Each assertion class declares its native `kind`, its `params`, and the names it has in the
dialects it belongs to (`dialect_names`); `register` makes it known. The builder here is
pure: it turns plain mappings (or the line-aware mappings of `chatassert.specs`) into assertion
objects, collecting every problem before raising one `SpecError`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from chatassert._base import Assertion, SpecPlace, with_spec
from chatassert._errors import SpecError, SpecProblem
from chatassert._params import (
    BY_DIALECT,
    MISSING,
    REGISTRY,
    VALUE_TYPES,
    Param,
    WrongValueError,
    did_you_mean,
    normalise_type,
    register,
)
from chatassert._result import Result, Status
from chatassert.plugins import CHECKS, PluginTable, installer, load_group

__all__ = [
    "UNKNOWN_PARAMS",
    "UNKNOWN_TYPES",
    "IgnoredParam",
    "SpecContext",
    "UnknownType",
    "build",
    "dialect_types",
    "from_spec",
    "registered",
    "unknown_type",
    "written_type",
]


def registered() -> dict[str, type[Assertion]]:
    """Return every registered native kind and its class, sorted by kind: the built-in ones
    and those of every installed plugin (`chatassert.plugins.load_group`).

    Raises:
        PluginError: when an installed plugin of checks cannot be loaded.
    """
    _load_builtins()
    load_group(CHECKS)
    return dict(sorted(REGISTRY.items()))


def dialect_types(dialect: str) -> Mapping[str, type[Assertion]]:
    """Return the type names of a dialect and the classes they build: a live view, in which
    a name no type registered so far has is looked for among the installed plugins of checks
    (`chatassert.plugins.PluginTable`); iterating it lists the types registered so far."""
    _load_builtins()
    return PluginTable(CHECKS, lambda: BY_DIALECT.get(dialect, _NONE), prepare=_load_builtins)


_NONE: Mapping[str, type[Assertion]] = {}


def _install_check(name: str, value: object) -> None:
    """Install a `chatassert.checks` entry point's value: a module (importing it registered
    its checks) or an assertion class (registered here unless it registered itself)."""
    if isinstance(value, ModuleType):
        return
    if isinstance(value, type) and issubclass(value, Assertion):
        if REGISTRY.get(value.kind) is not value:
            register(value)
        return
    raise TypeError(
        f"a {CHECKS} entry point must name a module that registers checks or an assertion "
        f"class (a subclass of chatassert.Assertion), not {type(value).__name__} {value!r}"
    )


_BUILTIN_MODULES = (
    "chatassert._text",
    "chatassert._tools",
    "chatassert._combinators",
    "chatassert._judged",
    "chatassert._fields",
    "chatassert._each",
    "chatassert._dates",
    "chatassert._results",
    "chatassert._promptkit_content",
    "chatassert._promptkit_names",
    "chatassert._promptkit_args",
    "chatassert._guardrails",
    "chatassert._promptkit_judged",
    "chatassert._promptkit_media",
    "chatassert._promptkit_json",
    "chatassert._sequence",
    "chatassert._call_counts",
    "chatassert._tool_results",
    "chatassert._policies",
    "chatassert._usage",
    "chatassert._grounding",
    "chatassert._workflow",
    "chatassert._responses",
    "chatassert._agents",
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


_NATIVE: Mapping[str, type[Assertion]] = PluginTable(CHECKS, REGISTRY, prepare=_load_builtins)
"""Every native kind, a kind no type has looked for among the installed plugins."""

installer(CHECKS, _install_check, prepare=_load_builtins)


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


UNKNOWN_TYPES = ("error", "skip")
"""What a loader does with an assertion type it does not know (docs/semantics.md G13)."""


class UnknownType(Assertion):
    """An assertion of a type the dialect does not know, loaded with `unknown_types="skip"`.

    It checks nothing: every check reports it `skipped`, named after the type as written, with
    the reason `unknown assertion type 'X'` (docs/semantics.md G13), so that the rest of a
    real suite still runs and every report lists what was not checked.

    Example:
        >>> UnknownType("image_format").check("any subject").reason
        "unknown assertion type 'image_format'"
    """

    __slots__ = ("type_name",)
    kind = "unknown_type"
    level = "any"
    type_name: str

    def __init__(self, type_name: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("type_name", str(type_name))

    def _check(self, subject: object) -> Result:
        return Result(
            Status.SKIPPED,
            self.type_name,
            f"unknown assertion type {self.type_name!r}",
            {"unknown_type": self.type_name},
        )

    def describe(self) -> str:
        """Describe what is not checked."""
        return f"unknown assertion type {self.type_name!r} (not checked)"


UNKNOWN_PARAMS = ("ignore", "error")
"""What the PromptKit loader does with a parameter PromptKit itself ignores (PromptKit does
not validate parameters): `ignore` it as PromptKit does, noted, or refuse it (docs/promptkit.md,
"Parameters PromptKit ignores")."""


@dataclass(frozen=True)
class IgnoredParam:
    """A parameter a loader accepted and set aside, because the format's own tool ignores it
    (a PromptKit assertion's `case_insensitive`, loaded with `unknown_params="ignore"`).

    Attributes:
        param: The parameter as written (`case_insensitive`).
        type_name: The assertion type it was given to, as written (`content_includes`).
        value: Its value, as plain data.
        path: Where it is in the document (`spec.turns[0].assertions[1].params.case_insensitive`).
        line: Its 1-based line in the file, when known.
        hint: The closest parameters the type does take, when one is close ("did you mean ...?").
    """

    param: str
    type_name: str
    value: Any
    path: str
    line: int | None = None
    hint: str | None = None


@dataclass
class SpecContext:
    """Collects the problems found while building, and the options given to every assertion.

    Attributes:
        file: The file being loaded, for messages.
        options: Construction options (`judge`, `clock`, ...) handed to types that accept them.
        problems: Every problem found so far.
        unknown_types: `error` (the default): an unknown assertion type is a problem; `skip`:
            it loads as an `UnknownType`, reported `skipped` when checked (docs/semantics.md G13).
        unknown_params: `ignore` (the default): a parameter of a PromptKit assertion that
            PromptKit itself ignores loads, has no effect, and is noted in `ignored`; `error`:
            it is a problem. Other dialects always refuse a parameter their type does not take.
        ignored: The parameters set aside so far (`unknown_params="ignore"`).
        places: Whether the assertions built are named and placed as the document has them
            (`with_spec`: their results carry `spec_name` and `spec_path`), as a spec file's
            are; `from_spec` builds from a mapping in code, and does not.
    """

    file: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    problems: list[SpecProblem] = field(default_factory=list)
    unknown_types: str = "error"
    unknown_params: str = "ignore"
    ignored: list[IgnoredParam] = field(default_factory=list)
    places: bool = True

    def __post_init__(self) -> None:
        if self.unknown_types not in UNKNOWN_TYPES:
            raise ValueError(
                f"unknown_types must be one of {', '.join(UNKNOWN_TYPES)}, "
                f"got {self.unknown_types!r}"
            )
        if self.unknown_params not in UNKNOWN_PARAMS:
            raise ValueError(
                f"unknown_params must be one of {', '.join(UNKNOWN_PARAMS)}, "
                f"got {self.unknown_params!r}"
            )

    def unknown(
        self,
        node: Mapping[str, Any],
        path: str,
        type_name: str,
        problem: str,
        hint: str,
        *,
        key: object = "type",
    ) -> Assertion | None:
        """An assertion type this dialect does not know, written at `node[key]`: a problem,
        or (with `unknown_types="skip"`) an `UnknownType` that reports itself skipped (G13)."""
        if self.unknown_types == "skip":
            return self.placed(UnknownType(type_name), str(type_name), path)
        self.problem(node, path, problem, key=key, hint=hint)
        return None

    def placed(self, assertion: Assertion, name: str, path: str) -> Assertion:
        """`assertion`, built from the document, named `name` and placed at `path` as the
        document has it (`with_spec`), unless this context does not place (`places`)."""
        return with_spec(assertion, SpecPlace(name, path)) if self.places else assertion

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
    type_name = next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)
    if isinstance(value, bool):
        type_name = "boolean"
    return f"{type_name} {text}"


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
        dialect: The dialect's name, for messages.
    """
    if table is None:
        _load_builtins()
        table = _NATIVE
    if not isinstance(node, Mapping):
        ctx.problem(
            node,
            path,
            "an assertion must be a mapping",
            expected="a mapping with 'type'",
            found=node,
        )
        return None
    raw_type = written_type(node, ctx, path, expected=f"one of the {dialect} types")
    if raw_type is None:
        return None
    cls = table.get(normalise_type(raw_type))
    if cls is None:
        return unknown_type(
            node, ctx, path, raw_type, table, f"unknown {dialect} assertion type {raw_type!r}"
        )
    return build_typed(cls, node, ctx, path, dialect=dialect)


def written_type(
    node: Mapping[str, Any], ctx: SpecContext, path: str, *, expected: str
) -> str | None:
    """The assertion type `node` names in its `type` key, as written; None, after recording the
    problem, when it names none (`expected` says what would do)."""
    raw_type = node.get("type")
    if isinstance(raw_type, str) and raw_type.strip():
        return raw_type
    ctx.problem(
        node,
        path,
        "the assertion has no 'type'",
        key="type",
        expected=expected,
        found=raw_type if "type" in node else MISSING,
        hint="add 'type: <name>'",
    )
    return None


def unknown_type(
    node: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
    raw_type: str,
    table: Mapping[str, type[Assertion]],
    problem: str,
) -> Assertion | None:
    """A type `node` names that `table` does not hold: the `problem`, with the closest names of
    the table as its hint (or all of them), or an `UnknownType` (`SpecContext.unknown`)."""
    name = normalise_type(raw_type)
    hint = did_you_mean(name, sorted(table)) or f"valid types: {', '.join(sorted(table))}"
    return ctx.unknown(node, path, raw_type, problem, hint)


def build_typed(
    cls: type[Assertion],
    node: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
    *,
    dialect: str = "native",
    ignore: Sequence[str] = (),
    at: str | None = None,
) -> Assertion | None:
    """Validate `node`'s parameters against `cls.params` and construct the assertion.

    The assertion is named and placed as the file has it (`with_spec`): its `type` as written,
    at `at` (where the assertion is, when `path`, where its parameters are, is not: PromptKit's
    `params`), else at `path`.
    """
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
                expected=param.describe_value_type(),
                hint=f"add '{param.name}: ...'" + (f" ({param.doc})" if param.doc else ""),
            )
    if len(ctx.problems) > before:
        return None
    kwargs = {name: ctx.options[name] for name in cls.options if name in ctx.options}
    try:
        built = cls(**values, **kwargs, message=message)
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
    return ctx.placed(built, str(node.get("type")), path if at is None else at)


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
    """Check and coerce one parameter value by its value type (G5 coercions); record a problem
    on a mismatch."""
    if value is None and param.has_default and param.default is None:
        return None
    value_type = VALUE_TYPES[param.value_type]

    def build_part(part: object, index: int | None) -> Assertion | None:
        at = path if index is None else join_path(path, index)
        return build(part, ctx, at, dialect=dialect)

    try:
        value = value_type.convert(value, param, build_part)
        if param.choices and not value_type.nested and value not in param.choices:
            hint = did_you_mean(str(value), [str(c) for c in param.choices])
            raise WrongValueError(
                value,
                f"parameter {param.name!r} must be one of {list(param.choices)}"
                + (f" ({hint})" if hint else ""),
            )
    except WrongValueError as wrong:
        ctx.problem(
            node,
            path,
            wrong.message or f"parameter {param.name!r} has the wrong type",
            key=key,
            expected=param.describe_value_type(),
            found=wrong.found,
        )
        return MISSING
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
    ctx = SpecContext(options=options, places=False)
    built = build(spec, ctx)
    ctx.raise_if_problems()
    assert built is not None
    return built


def iter_params(cls: type[Assertion]) -> Iterator[Param]:
    """Yield the declared params of `cls` (a helper for schema generation)."""
    yield from cls.params


Factory = Callable[..., "Assertion"]
