"""Declaring assertion types: their spec parameters (`Param`) and `register`.

The lowest layer of the type system: an assertion class declares its native `kind`, its
`params` and the names it has in each vocabulary (`dialect_names`), and `register` records it.
Building assertions from specs, and looking types up by name, is `_registry`'s job; it reads
the tables kept here. Families import this module, never the registry.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from chatassert._base import Assertion

__all__ = [
    "MISSING",
    "Param",
    "did_you_mean",
    "normalise_type",
    "plain",
    "register",
    "string_values",
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
            return plain(value)  # as the loader gives it: lists, ISO dates
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
    `promptkit.conversation`, `expect`, ...) to the name the type has in that vocabulary, or
    to a tuple of names when the vocabulary spells it several ways (a later name beside the
    first one: `("content_includes", "contains")`).
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
    for dialect, names in getattr(cls, "dialect_names", {}).items():
        for name in (names,) if isinstance(names, str) else names:
            _DIALECTS.setdefault(dialect, {})[name] = cls
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
