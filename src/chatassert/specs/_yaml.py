"""A YAML loader that remembers where every mapping, sequence and key came from.

Mappings load as `LocatedDict` and sequences as `LocatedList`, plain `dict`/`list` subclasses
with the 1-based `line` of the node and, for mappings, `key_lines` per key, so spec errors can
say `file:line`. Timestamps stay strings (`2024-02-15` is the ISO string it looks like), and a
duplicate key is a problem, not a silent overwrite. JSON files load through the same loader.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from chatassert._errors import SpecError, SpecProblem

__all__ = ["LocatedDict", "LocatedList", "parse_yaml"]


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


class _Loader(yaml.SafeLoader):
    """SafeLoader with locations, no timestamp conversion and duplicate-key detection."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[Any, int]] = []

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


def parse_yaml(text: str, filename: str | None = None) -> Any:
    """Parse YAML (or JSON) text into located containers.

    Raises:
        SpecError: on a syntax error (with its line and column) or duplicate keys.
    """
    loader = _Loader(text)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = f", column {mark.column + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError(
            [
                SpecProblem(
                    f"invalid YAML: {problem}{column}",
                    file=filename,
                    line=line,
                    hint="check the indentation and quoting around this line",
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError([SpecProblem(f"invalid YAML: {exc}", file=filename)]) from None
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
