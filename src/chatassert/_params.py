"""Declaring assertion types: their spec parameters (`Param`), their value types, `register`.

The lowest layer of the type system: an assertion class declares its native `kind`, its
`params` and the names it has in each dialect (`dialect_names`), and `register` records it.
Each parameter names its value type, one entry of `VALUE_TYPES`: how a spec value is checked
and coerced, its JSON Schema and its spec form. Building assertions from specs, and looking
types up by name, is `_registry`'s job; it reads the tables kept here, as the schema generator
(`_schemas`) does. Families import this module, never the registry.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from chatassert._base import Assertion

__all__ = [
    "BY_DIALECT",
    "LEVELS",
    "MISSING",
    "REGISTRY",
    "VALUE_TYPES",
    "VOCABULARIES",
    "BuildPart",
    "builtin",
    "declared_names",
    "did_you_mean",
    "normalise_type",
    "Param",
    "plain",
    "register",
    "string_values",
    "ValueType",
    "WrongValueError",
]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Param:
    """A declared spec parameter of an assertion type.

    Attributes:
        name: The name in the native spec (and in the dialect documents).
        value_type: The name of its value type in `VALUE_TYPES`: `str`, `text`, `str_list`,
            `mapping`, `bool`, `int`, `number`, `any`, `assertion` or `assertions`.
        required: Whether the spec must give it.
        default: The value when absent (`MISSING` when there is none).
        aliases: Other accepted spellings.
        allow_empty: Whether an empty string or list is acceptable (G4 says no by default).
        attr: The attribute of the assertion object holding the value (defaults to `name`).
        doc: A short description, used in the JSON Schema and error hints.
        choices: The allowed values, if restricted.
    """

    name: str
    value_type: str = "any"
    required: bool = False
    default: Any = MISSING
    aliases: tuple[str, ...] = ()
    allow_empty: bool = False
    attr: str = ""
    doc: str = ""
    choices: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.value_type not in VALUE_TYPES:
            raise ValueError(
                f"unknown param value type {self.value_type!r}; one of {sorted(VALUE_TYPES)}"
            )
        if not self.attr:
            object.__setattr__(self, "attr", self.name)

    @property
    def has_default(self) -> bool:
        """Whether the parameter has a default value."""
        return self.default is not MISSING

    def to_spec(self, value: Any) -> Any:
        """Render an attribute value back into its spec form."""
        return VALUE_TYPES[self.value_type].to_spec(value)

    def describe_value_type(self) -> str:
        """Return what a valid value looks like, in words."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return VALUE_TYPES[self.value_type].description


REGISTRY: dict[str, type[Assertion]] = {}
BY_DIALECT: dict[str, dict[str, type[Assertion]]] = {}

LEVELS = ("turn", "conversation", "json", "any")
"""What an assertion type may check (its `level`): one turn, a whole conversation, a JSON
response, or any of them (combinators)."""

VOCABULARIES: dict[str, tuple[str, ...]] = {
    "flat": LEVELS,
    "promptkit.turn": ("turn", "json", "any"),
    "promptkit.conversation": ("conversation", "any"),
    "expect": ("json", "any"),
}
"""The vocabularies a type may have names in (the keys of `dialect_names`), each with the
levels of the types it takes: a PromptKit turn's assertions check one turn (a JSON check reads
the turn's text), its `conversation_assertions` the whole conversation, an expect file one
JSON response. A flat file checks turns, and a flat file that is a list of assertions the
whole conversation."""

_WHAT_IT_CHECKS = {
    "promptkit.turn": "a turn's assertions check one turn",
    "promptkit.conversation": "conversation_assertions check the whole conversation",
    "expect": "an expect file checks one JSON response",
}

A = TypeVar("A", bound="type[Assertion]")


def builtin(cls: type[Assertion]) -> bool:
    """Whether `cls` is one of this package's own types; a check of one's own (registered by
    a plugin, a test suite or a harness) is not."""
    return cls.__module__.startswith("chatassert.")


def register(cls: A) -> A:
    """Class decorator: make an assertion type known to the loader under its `kind`.

    The class may also set `dialect_names`, a mapping from vocabulary (`flat`,
    `promptkit.turn`, `promptkit.conversation`, `expect`) to the name the type has in that
    vocabulary, or to a tuple of names when the vocabulary spells it several ways (a later
    name beside the first one: `("content_includes", "contains")`). Names are matched as spec
    files are, in snake case (`mentions-order` is `mentions_order`).

    A check of one's own (a class outside this package: a plugin's, a test suite's) is also
    known by its `kind` in every vocabulary whose positions check what it checks, by its
    `level`: a `turn` check (the default) is a flat type and a PromptKit turn assertion; a
    `json` check an expect key too; a `conversation` check a flat type (in a file that is a
    list of assertions) and a PromptKit conversation assertion; an `any` check all of them. A
    vocabulary names a check only at a level it takes (an expect name needs level `json` or
    `any`). Its kind and names must not be taken: a name another type has in the same
    vocabulary is refused, naming both types (docs/specs.md, "Checks of your own").

    A registered class needs a docstring, whose first line says when the check passes: it is
    the check's documentation wherever specs are written (`chatassert schema`, lint, the
    editor schemas). A class that is only used in code needs no registration, and so no
    docstring.

    Raises:
        ValueError: for a type without a kind or a docstring, a level that is not `turn`,
            `conversation`, `json` or `any`, a kind that is not in snake case (a check of
            one's own), a vocabulary that does not take the type's level, or a name another
            type has (the message names both classes and their modules).
        TypeError: for `dialect_names` that are not names.
    """
    kind = cls.kind
    if not kind:
        raise ValueError(f"{cls.__name__} has no kind")
    own = not builtin(cls)
    if own:
        _builtins_first()
    names = _names_of(cls, own)
    clashes = [
        (vocabulary, name, other)
        for vocabulary, name in names
        if (other := _holder(vocabulary, name)) is not None and not _same(other, cls)
    ]
    if clashes:
        raise ValueError(_clash_message(cls, clashes))
    if not (cls.__doc__ or "").strip():
        raise ValueError(
            f"{cls.__name__} needs a docstring to be registered: add one under "
            f"`class {cls.__name__}`, starting with one line that says when it passes "
            "(it is the check's documentation in `chatassert schema`, lint and editors)"
        )
    existing = REGISTRY.get(kind)
    if existing is not None and existing is not cls:
        _forget(existing)  # the same class from a module loaded again: it takes the old place
    for vocabulary, name in names:
        table = REGISTRY if vocabulary == "native" else BY_DIALECT.setdefault(vocabulary, {})
        table[name] = cls
    return cls


def _builtins_first() -> None:
    """Load the built-in types, before a check of one's own takes its names: a name of a
    built-in is refused whichever was imported first."""
    from chatassert._registry import _load_builtins

    _load_builtins()


def _names_of(cls: type[Assertion], own: bool) -> list[tuple[str, str]]:
    """`(vocabulary, name)` for every name `cls` is to be known by: `("native", kind)` first,
    then (a check of one's own) its kind in each vocabulary that takes its level, then the
    names of its `dialect_names`."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    level = cls.level
    if level not in LEVELS:
        raise ValueError(
            f"{where} has level {level!r}; a level is one of {', '.join(map(repr, LEVELS))} "
            "(what the check reads: one turn, a whole conversation, a JSON response, any)"
        )
    kind = cls.kind
    if own and normalise_type(kind) != kind:
        raise ValueError(
            f"{where} has kind {kind!r}, which no spec can name: type names are matched in "
            f"snake case; set kind = {normalise_type(kind)!r}"
        )
    names = [("native", kind)]
    if own:
        names += [
            (vocabulary, kind) for vocabulary, levels in VOCABULARIES.items() if level in levels
        ]
    declared = declared_names(cls)
    if not isinstance(declared, Mapping):
        raise TypeError(
            f"{where}.dialect_names must map a vocabulary to a name (or a tuple of names), "
            f"got {type(declared).__name__}"
        )
    for vocabulary, spelt in declared.items():
        if vocabulary not in VOCABULARIES:
            hint = (
                "PromptKit has two: 'promptkit.turn' (a turn's assertions) and "
                "'promptkit.conversation' (conversation_assertions)"
                if vocabulary == "promptkit"
                else did_you_mean(str(vocabulary), list(VOCABULARIES))
                or f"one of {', '.join(VOCABULARIES)}"
            )
            raise ValueError(
                f"{where}.dialect_names names the vocabulary {vocabulary!r}, which is not one "
                f"of {', '.join(VOCABULARIES)}: {hint}"
            )
        if level not in VOCABULARIES[vocabulary]:
            raise ValueError(
                f"{where}.dialect_names gives it {'an' if vocabulary == 'expect' else 'a'} "
                f"{vocabulary} name, but "
                f"{_WHAT_IT_CHECKS[vocabulary]} and {cls.__name__} has level {level!r}: name "
                "it only where its level is taken "
                f"({', '.join(v for v, levels in VOCABULARIES.items() if level in levels)}), "
                "or set its level"
            )
        spellings = (spelt,) if isinstance(spelt, str) else spelt
        if not isinstance(spellings, tuple | list) or not spellings:
            raise TypeError(
                f"{where}.dialect_names[{vocabulary!r}] must be a name or a tuple of names, "
                f"got {spelt!r}"
            )
        for name in spellings:
            if not isinstance(name, str) or not name.strip():
                raise TypeError(
                    f"{where}.dialect_names[{vocabulary!r}] must hold non-empty names, got {name!r}"
                )
            entry = (vocabulary, normalise_type(name))
            if entry not in names:
                names.append(entry)
    return names


def declared_names(cls: type[Assertion]) -> Mapping[str, str | tuple[str, ...]]:
    """The names `cls` declares per vocabulary (`dialect_names`). A check of one's own
    declares its own: a subclass of a built-in check does not take the names of the class
    it extends (`contains` stays `Contains`'s), only the kind and the names it sets."""
    if builtin(cls):
        return getattr(cls, "dialect_names", {})
    declared: Mapping[str, str | tuple[str, ...]] = cls.__dict__.get("dialect_names", {})
    return declared


def _holder(vocabulary: str, name: str) -> type[Assertion] | None:
    """The type registered under `name` in `vocabulary` (`native`: a kind), if any."""
    if vocabulary == "native":
        return REGISTRY.get(name)
    return BY_DIALECT.get(vocabulary, {}).get(name)


def _same(one: type[Assertion], other: type[Assertion]) -> bool:
    """Whether two classes are one type: the same class, or the same class of a module
    loaded again (it takes the old one's place)."""
    return one is other or (one.__module__, one.__qualname__) == (
        other.__module__,
        other.__qualname__,
    )


def _forget(cls: type[Assertion]) -> None:
    """Remove every name of `cls` (a class whose module was loaded again)."""
    for table in (REGISTRY, *BY_DIALECT.values()):
        for name in [n for n, held in table.items() if held is cls]:
            del table[name]


def _clash_message(
    cls: type[Assertion], clashes: Sequence[tuple[str, str, type[Assertion]]]
) -> str:
    """Say which names of `cls` other types have, naming both, and how to fix it."""
    by_name: dict[str, dict[type[Assertion], list[str]]] = {}
    for vocabulary, name, other in clashes:
        what = "kind" if vocabulary == "native" else f"{vocabulary} name"
        by_name.setdefault(name, {}).setdefault(other, []).append(what)
    said = []
    for name, holders in by_name.items():
        whose = _listed(
            f"{_listed(['the ' + what for what in whats])} of "
            f"{'the built-in ' if builtin(other) else ''}{other.__module__}.{other.__qualname__}"
            for other, whats in holders.items()
        )
        mine = "kind" if name == cls.kind else "name"
        said.append(f"its {mine} {name!r} is already {whose}")
    fix = (
        "give it another kind"
        if cls.kind in by_name
        else "give it other names in its dialect_names"
    )
    return (
        f"cannot register {cls.__module__}.{cls.__qualname__}: {'; '.join(said)}. One name "
        f"means one check in every spec file: {fix}"
    )


def _listed(items: Iterable[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    words = list(items)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def plain(value: Any) -> Any:
    """Copy loader containers into plain dicts/lists, and YAML dates into ISO strings."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value


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


def string_values(value: str | Sequence[str], what: str) -> tuple[str, ...]:
    """Return one string or a list of them as a tuple: at least one, none empty (G4).

    Raises:
        ValueError: for no values or an empty string; TypeError for a value that is not a string.
    """
    values = (value,) if isinstance(value, str) else tuple(value)
    if not values:
        raise ValueError(f"{what} needs at least one value, got an empty list")
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"{what} values must be strings, got {type(v).__name__} {v!r}")
        if not v:
            raise ValueError(f"{what} values must not be empty strings")
    return values


# -- value types -----------------------------------------------------------------------------


class WrongValueError(Exception):
    """A value its parameter's value type refuses.

    Attributes:
        message: What is wrong, for the spec problem (None: the value has the wrong type).
        found: The value as it stood when refused (after any coercion), for the message.
    """

    def __init__(self, found: object, message: str | None = None) -> None:
        super().__init__(message)
        self.found = found
        self.message = message


BuildPart = Callable[[object, "int | None"], "Assertion | None"]
"""Builds a nested assertion from its spec: at the parameter's own path (None), or at an index
of it; None when the spec had problems (recorded where the builder collects them)."""

Schema = dict[str, Any]


@dataclass(frozen=True)
class ValueType:
    """One type of parameter value: what it accepts, its JSON Schema, and its spec form.

    Every reader of a parameter's value type goes through its entry in `VALUE_TYPES`: the
    builder converts with it, the schema generator describes it, `Param.to_spec` writes it
    back. A new value type is one more entry there.

    Attributes:
        name: The name parameters declare (`Param.value_type`).
        description: What a valid value looks like, in words (spec problems say it).
        convert: Check and coerce a spec value for a parameter (the G5 coercions): `convert(
            value, param, build_part)` returns the attribute value (`MISSING` when a nested
            assertion had problems), or raises `WrongValueError`.
        schema: The JSON Schema of a value: `schema(allow_empty, assertion)`, where
            `assertion` is the schema of one assertion (a `$ref`).
        to_spec: Render an attribute value back into its spec form.
        nested: Whether the values are assertions (built by the builder; never `choices`).
    """

    name: str
    description: str
    convert: Callable[[Any, Param, BuildPart], Any]
    schema: Callable[[bool, Schema], Schema]
    to_spec: Callable[[Any], Any]
    nested: bool = False


def _not_blank(value: str, param: Param) -> str:
    if not value.strip() and not param.allow_empty:
        raise WrongValueError(value, f"parameter {param.name!r} must not be empty")
    return value


def _to_str(value: Any, param: Param, build_part: BuildPart) -> Any:
    if not isinstance(value, str):
        raise WrongValueError(value)
    return _not_blank(value, param)


def _to_text(value: Any, param: Param, build_part: BuildPart) -> Any:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise WrongValueError(value)
    return _not_blank(str(value), param)


def _to_str_list(value: Any, param: Param, build_part: BuildPart) -> Any:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WrongValueError(value)
    if not param.allow_empty and (not value or any(not v for v in value)):
        raise WrongValueError(
            value, f"parameter {param.name!r} must be a non-empty list of non-empty strings"
        )
    return tuple(value)


def _to_mapping(value: Any, param: Param, build_part: BuildPart) -> Any:
    if not isinstance(value, Mapping):
        raise WrongValueError(value)
    if not value and not param.allow_empty:
        raise WrongValueError(value, f"parameter {param.name!r} must not be empty")
    return plain(value)


def _to_bool(value: Any, param: Param, build_part: BuildPart) -> Any:
    if not isinstance(value, bool):
        raise WrongValueError(value)
    return value


def _to_int(value: Any, param: Param, build_part: BuildPart) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WrongValueError(value)
    return value


def _to_number(value: Any, param: Param, build_part: BuildPart) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WrongValueError(value)
    return value


def _to_any(value: Any, param: Param, build_part: BuildPart) -> Any:
    return plain(value)


def _to_assertion(value: Any, param: Param, build_part: BuildPart) -> Any:
    built = build_part(value, None)
    return MISSING if built is None else built


def _to_assertions(value: Any, param: Param, build_part: BuildPart) -> Any:
    if not isinstance(value, list):
        raise WrongValueError(value)
    if not value and not param.allow_empty:
        raise WrongValueError(value, f"parameter {param.name!r} needs at least one assertion")
    built = [build_part(item, i) for i, item in enumerate(value)]
    if any(b is None for b in built):
        return MISSING
    return tuple(built)


def _string(allow_empty: bool) -> Schema:
    return {"type": "string"} if allow_empty else {"type": "string", "minLength": 1}


def _as_is(value: Any) -> Any:
    return value


VALUE_TYPES: dict[str, ValueType] = {
    t.name: t
    for t in (
        ValueType(
            "str",
            "a string",
            convert=_to_str,
            schema=lambda allow_empty, assertion: _string(allow_empty),
            to_spec=_as_is,
        ),
        ValueType(
            "text",
            "a string (a number is rendered as text)",
            convert=_to_text,
            schema=lambda allow_empty, assertion: {
                "oneOf": [_string(allow_empty), {"type": "number"}]
            },
            to_spec=_as_is,
        ),
        ValueType(
            "str_list",
            "a list of strings (or one string)",
            convert=_to_str_list,
            schema=lambda allow_empty, assertion: {
                "oneOf": [_string(allow_empty), {"type": "array", "items": _string(allow_empty)}]
            },
            to_spec=lambda value: value[0] if len(value) == 1 else list(value),
        ),
        ValueType(
            "mapping",
            "a mapping",
            convert=_to_mapping,
            schema=lambda allow_empty, assertion: {"type": "object"},
            to_spec=plain,  # as the loader gives it: lists, ISO dates
        ),
        ValueType(
            "bool",
            "true or false",
            convert=_to_bool,
            schema=lambda allow_empty, assertion: {"type": "boolean"},
            to_spec=_as_is,
        ),
        ValueType(
            "int",
            "an integer",
            convert=_to_int,
            schema=lambda allow_empty, assertion: {"type": "integer"},
            to_spec=_as_is,
        ),
        ValueType(
            "number",
            "a number",
            convert=_to_number,
            schema=lambda allow_empty, assertion: {"type": "number"},
            to_spec=_as_is,
        ),
        ValueType(
            "any",
            "any value",
            convert=_to_any,
            schema=lambda allow_empty, assertion: {},
            to_spec=plain,  # as the loader gives it: lists, ISO dates
        ),
        ValueType(
            "assertion",
            "an assertion (a mapping with 'type')",
            convert=_to_assertion,
            schema=lambda allow_empty, assertion: assertion,
            to_spec=lambda value: value.as_spec(),
            nested=True,
        ),
        ValueType(
            "assertions",
            "a list of assertions",
            convert=_to_assertions,
            schema=lambda allow_empty, assertion: {"type": "array", "items": assertion},
            to_spec=lambda value: [a.as_spec() for a in value],
            nested=True,
        ),
    )
}
"""Every value type a parameter may declare, by name, in the order the docs list them."""
