"""The flat dialect (`001_*.txt`): `{type, value, arguments?, rubric?, model?}` assertions.

Accepted documents:

- one assertion, or a list of assertions (checked on every turn of each conversation);
- the document's `turns: [{user_input, assertions}]` form (one case);
- `test_cases: [{name, turns, tags?, description?}]`.

Turn *i* of a case is checked against the *i*-th user turn of the transcript.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatassert._registry import SpecContext, join_path
from chatassert._suite import Case
from chatassert.specs._common import (
    Dialect,
    build_list,
    check_keys,
    ensure_not_empty,
    flat_turns,
    mapping_node,
    register_dialect,
    require_list,
    require_str,
    str_list,
    table_for,
    whole_subject,
)

__all__ = ["FLAT"]

_CASE_KEYS = ("name", "turns", "tags", "description", "id")


def _is_assertion_list(doc: Any) -> bool:
    return (
        isinstance(doc, list)
        and bool(doc)
        and all(
            isinstance(item, Mapping) and "type" in item and "params" not in item for item in doc
        )
    )


def detect(doc: Any) -> bool:
    """Whether `doc` looks like a flat spec (it is also the fallback dialect)."""
    if isinstance(doc, Mapping):
        return "test_cases" in doc or "turns" in doc or ("type" in doc and "params" not in doc)
    return _is_assertion_list(doc)


def translate(doc: Any, ctx: SpecContext) -> list[Case]:
    """Translate a flat document into cases."""
    table = table_for("flat")
    if isinstance(doc, list) or (isinstance(doc, Mapping) and "type" in doc):
        items = doc if isinstance(doc, list) else [doc]
        built = build_list(items, ctx, "", table=table, dialect="flat")
        checks = whole_subject(built, items, ctx, "", wrap_turn_checks=True)
        return [Case(name=_stem(ctx), checks=tuple(checks), source=ctx.file or "")]
    if not isinstance(doc, Mapping):
        ctx.problem(
            doc,
            "",
            "a flat spec must be a mapping or a list of assertions",
            expected="'turns:', 'test_cases:', or a list of {type, value}",
            found=doc,
        )
        return []
    if "test_cases" in doc:
        check_keys(doc, ["test_cases", "name", "description"], ctx, "", "a flat suite")
        nodes = require_list(doc, "test_cases", ctx, "") or []
        if not nodes:
            ctx.problem(
                doc,
                "test_cases",
                "'test_cases' is empty",
                key="test_cases",
                hint="add at least one case",
            )
        cases = [
            _case(node, ctx, join_path("test_cases", i), table) for i, node in enumerate(nodes)
        ]
        return [c for c in cases if c is not None]
    check_keys(doc, _CASE_KEYS, ctx, "", "a flat test file")
    case = _case(doc, ctx, "", table, default_name=_stem(ctx))
    return [case] if case is not None else []


def _case(
    node: Any,
    ctx: SpecContext,
    path: str,
    table: Mapping[str, Any],
    *,
    default_name: str | None = None,
) -> Case | None:
    before = len(ctx.problems)
    node = mapping_node(
        node,
        ctx,
        path,
        "a test case",
        expected="a mapping with 'name' and 'turns'",
        keys=_CASE_KEYS if default_name is None else None,  # a whole file: checked already
    )
    if node is None:
        return None
    name = require_str(node, "name", ctx, path, required=False) or default_name or path
    turn_nodes = require_list(node, "turns", ctx, path) or []
    turns = flat_turns(turn_nodes, ctx, join_path(path, "turns"), table=table, dialect="flat")
    description = node.get("description") if isinstance(node.get("description"), str) else None
    case = Case(
        name=name,
        turns=tuple(turns),
        id=_id(node),
        tags=str_list(node, "tags", ctx, path),
        description=description,
        source=f"{ctx.file or ''}: {path}".strip(": "),
    )
    if len(ctx.problems) == before:
        ensure_not_empty(case, node, ctx, path)
    return case


def _id(node: Mapping[str, Any]) -> str | None:
    value = node.get("id")
    return None if value is None else str(value)


def _stem(ctx: SpecContext) -> str:
    if not ctx.file:
        return "suite"
    name = ctx.file.replace("\\", "/").rsplit("/", 1)[-1]
    return name.split(".", 1)[0] or name


FLAT = register_dialect(
    Dialect(
        "flat",
        detect,
        translate,
        priority=90,
        description="flat assertion types for agent turns "
        "(contains, matches, contains_function_call, llm_rubric, ...)",
    )
)
