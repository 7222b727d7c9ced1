"""Parameter value types (`_params.VALUE_TYPES`): one table that every reader goes through.

The builder converts a spec value with its parameter's value type, the schema generator
describes it with the same entry, and `Param.to_spec` writes it back with it: a new value type
is one entry of the table, and nothing else changes.
"""

from __future__ import annotations

from typing import Any

import pytest

from chatassert import Assertion, Param, Result, Status
from chatassert._params import MISSING, VALUE_TYPES, BuildPart, ValueType, WrongValueError
from chatassert._registry import SpecContext, build_typed
from chatassert._schemas import native_schema


def _to_colour(value: Any, param: Param, build_part: BuildPart) -> Any:
    if not isinstance(value, str) or value.lower() not in ("red", "green"):
        raise WrongValueError(value)
    return value.lower()


_COLOUR = ValueType(
    "colour",
    "'red' or 'green', in any case",
    convert=_to_colour,
    schema=lambda allow_empty, assertion: {"enum": ["red", "green"]},
    to_spec=str.upper,
)


def _painted() -> type[Assertion]:
    """An assertion type (not registered) with one parameter of the throwaway value type."""

    class Painted(Assertion):
        """Passes when the response names its colour."""

        __slots__ = ("shade",)
        kind = "painted"
        params = (Param("shade", "colour", required=True, doc="the colour"),)

        def __init__(self, shade: str, *, message: str | None = None) -> None:
            super().__init__(message=message)
            self._set("shade", shade)

        def _check(self, subject: object) -> Result:
            return Result(Status.PASSED, self.kind, "", None)

    return Painted


def test_a_new_value_type_is_one_table_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(VALUE_TYPES, "colour", _COLOUR)
    painted = _painted()

    ctx = SpecContext()
    built = build_typed(painted, {"type": "painted", "shade": "Red"}, ctx, "a")
    assert not ctx.problems
    assert built is not None
    assert built.shade == "red"
    assert built.as_spec() == {"type": "painted", "shade": "RED"}  # written back by the entry

    ctx = SpecContext()
    assert build_typed(painted, {"type": "painted", "shade": "blue"}, ctx, "a") is None
    [problem] = ctx.problems
    assert problem.message == "parameter 'shade' has the wrong type"
    assert problem.expected == "'red' or 'green', in any case"
    assert problem.found == "string 'blue'"

    from chatassert import _schemas

    properties, required = _schemas._params(painted, _schemas._Defs(_schemas.DRAFT_07))
    assert properties == {"shade": {"enum": ["red", "green"], "description": "the colour"}}
    assert required == ["shade"]


def test_a_param_names_a_value_type_of_the_table() -> None:
    with pytest.raises(ValueError, match=r"unknown param value type 'colour'; one of \["):
        Param("shade", "colour")
    assert Param("shade", value_type="str").value_type == "str"


@pytest.mark.parametrize("name", sorted(VALUE_TYPES))
def test_every_value_type_is_filed_under_its_own_name(name: str) -> None:
    value_type = VALUE_TYPES[name]
    assert value_type.name == name
    assert value_type.description
    assert Param("p", name).describe_value_type() == value_type.description


def test_the_value_type_decides_conversion_schema_and_spec_form() -> None:
    # The same entry answers all three questions for a parameter: a list of strings.
    param = Param("values", "str_list")
    schema = dict(native_schema()["$defs"]["kind_contains_any"]["properties"]["value"])
    del schema["description"]  # the parameter's doc
    assert schema == VALUE_TYPES["str_list"].schema(False, {"$ref": "#/$defs/assertion"})
    assert param.to_spec(("a",)) == "a"
    assert param.to_spec(("a", "b")) == ["a", "b"]
    with pytest.raises(WrongValueError) as refused:
        VALUE_TYPES["str_list"].convert([""], param, lambda node, index: None)
    assert refused.value.found == [""]
    assert refused.value.message == (
        "parameter 'values' must be a non-empty list of non-empty strings"
    )
    assert VALUE_TYPES["assertion"].convert({}, param, lambda node, index: None) is MISSING
