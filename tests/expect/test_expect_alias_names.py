"""The expect key `has_field` is a name `HasFields` declares (beside `has_fields`), so the
registry sees it: a check of one's own that takes it, as its kind or as an expect name, is
refused with both checks named, and `has_field` files load as they always did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chatassert import Assertion, HasFields, Result, Status, register
from chatassert._params import BY_DIALECT, REGISTRY
from chatassert.specs import loads_suite
from chatassert.specs._expect import expect_keys


@pytest.fixture
def registry() -> Iterator[None]:
    """The registry as it was, after a test that registers checks of its own."""
    kinds, dialects = dict(REGISTRY), {k: dict(v) for k, v in BY_DIALECT.items()}
    yield
    REGISTRY.clear()
    REGISTRY.update(kinds)
    BY_DIALECT.clear()
    BY_DIALECT.update(dialects)


def _check(kind: str, names: dict[str, Any]) -> type[Assertion]:
    """A JSON check of one's own of kind `kind`, declaring `names`."""

    def _check(self: Assertion, subject: object) -> Result:
        return Result(Status.PASSED, kind, "fine")

    namespace: dict[str, Any] = {
        "__doc__": "Passes always.",
        "__slots__": (),
        "__module__": "house_checks",
        "kind": kind,
        "level": "json",
        "params": (),
        "_check": _check,
    }
    if names:
        namespace["dialect_names"] = names
    return type("FieldThere", (Assertion,), namespace)


@pytest.mark.usefixtures("registry")
@pytest.mark.parametrize(
    ("kind", "names"),
    [("field_there", {"expect": "has_field"}), ("has_field", {})],
    ids=["expect-name", "kind"],
)
def test_a_check_taking_the_name_has_field_is_refused_naming_both(
    kind: str, names: dict[str, Any]
) -> None:
    with pytest.raises(ValueError) as raised:
        register(_check(kind, names))
    message = str(raised.value)
    assert message.startswith("cannot register house_checks.FieldThere: ")
    built_in = "the built-in chatassert._fields.HasFields"
    assert f"'has_field' is already the expect name of {built_in}" in message
    assert "has_field" not in REGISTRY
    assert expect_keys()["has_field"] is HasFields


def test_has_field_loads_as_before() -> None:
    suite = loads_suite(
        "- name: t\n  expect:\n    has_field: results\n    has_fields: [a]\n",
        filename="fields.yaml",
    )
    one, many = suite.cases[0].checks
    assert (type(one), one.paths, type(many), many.paths) == (
        HasFields,
        ("results",),
        HasFields,
        ("a",),
    )
    assert one.as_spec() == {"type": "expect_has_fields", "value": "results"}
    result = one.check({"results": 1}).to_dict()
    assert (result["status"], result["spec_name"], result["spec_path"]) == (
        "passed",
        "has_field",
        "[0].expect.has_field",
    )
    assert HasFields.dialect_names["expect"] == ("has_fields", "has_field")
