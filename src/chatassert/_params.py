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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from chatassert._base import Assertion

__all__ = [
    "BY_DIALECT",
    "MISSING",
    "REGISTRY",
    "VALUE_TYPES",
    "BuildPart",
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

A = TypeVar("A", bound="type[Assertion]")


def register(cls: A) -> A:
    """Class decorator: make an assertion type known to the loader under its `kind`.

    The class may also set `dialect_names`, a mapping from dialect (`flat`, `promptkit.turn`,
    `promptkit.conversation`, `expect`, ...) to the name the type has in that dialect, or
    to a tuple of names when the dialect spells it several ways (a later name beside the
    first one: `("content_includes", "contains")`).
    """
    kind = cls.kind
    if not kind:
        raise ValueError(f"{cls.__name__} has no kind")
    existing = REGISTRY.get(kind)
    reloaded = existing is not None and (existing.__module__, existing.__qualname__) == (
        cls.__module__,
        cls.__qualname__,
    )  # the same class from a module loaded again: it takes the old one's place
    if existing is not None and existing is not cls and not reloaded:
        raise ValueError(f"kind {kind!r} is already registered by {existing.__name__}")
    if not cls.__doc__:
        raise ValueError(f"{cls.__name__} needs a docstring: it is the type's documentation")
    REGISTRY[kind] = cls
    for dialect, names in getattr(cls, "dialect_names", {}).items():
        for name in (names,) if isinstance(names, str) else names:
            BY_DIALECT.setdefault(dialect, {})[name] = cls
    return cls


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
