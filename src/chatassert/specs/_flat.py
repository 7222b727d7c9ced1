"""The flat dialect (`001_*.txt`): `{type, value, arguments?, rubric?, model?}` assertions.

Accepted documents:

- one assertion, or a list of assertions (checked on every turn of each conversation);
- the document's `turns: [{user_input, assertions}]` form (one case);
- `test_cases: [{name, turns, tags?, description?}]`, as eval-generator writes its test files
  (`agent_id`, `sub_agent_id`, `description`, `default_test_data` beside `test_cases`).

Every key of eval-generator's schema is accepted (docs/flat.md, "Test files from
eval-generator"). A turn's `expected_agent` becomes an `ActiveAgent` check at the end of the
turn's assertions; keys that describe the file or case (`agent_id`, `sub_agent_id`,
`test_type`, `start_agent`, the file's `description`) are kept in `Case.metadata`; keys that
only feed a live run (`test_data`, `default_test_data`, `max_turns`, `context`) are kept under
`Case.metadata[NOT_USED_OFFLINE]`.

Turn *i* of a case is checked against the *i*-th user turn of the transcript.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chatassert._agents import ActiveAgent
from chatassert._registry import SpecContext, join_path
from chatassert._suite import Case, TurnSpec
from chatassert.specs._common import (
    NOT_USED_OFFLINE,
    Dialect,
    build_list,
    check_keys,
    ensure_not_empty,
    flat_turns,
    keep_not_used,
    mapping_node,
    register_dialect,
    require_list,
    require_str,
    str_list,
    table_for,
    whole_subject,
)

__all__ = ["FLAT"]

# eval-generator's schema (`TestCaseFile`, `TestCase`, `Turn`), plus this library's `name`
# of a suite and `id` of a case
_FILE_KEYS = ("test_cases", "name", "description", "agent_id", "sub_agent_id", "default_test_data")
_CASE_KEYS = (
    "name",
    "turns",
    "tags",
    "description",
    "id",
    "test_type",
    "test_data",
    "start_agent",
    "max_turns",
    "context",
)
_TURN_KEYS = ("expected_agent", "context")  # beside `user_input` and `assertions`

# keys that only feed a live run: kept, shown by `lint --verbose`, never checked
_FILE_NOT_USED = ("default_test_data",)
_CASE_NOT_USED = ("test_data", "max_turns", "context")
_TURN_NOT_USED = ("context",)


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
        check_keys(doc, _FILE_KEYS, ctx, "", "a flat suite")
        shared = _file_metadata(doc, ctx, default_agent="default")
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
            _case(node, ctx, join_path("test_cases", i), table, shared)
            for i, node in enumerate(nodes)
        ]
        return [c for c in cases if c is not None]
    # the document form: the file is one case (and may describe itself as a suite file does)
    check_keys(doc, dict.fromkeys([*_CASE_KEYS, *_FILE_KEYS[1:]]), ctx, "", "a flat test file")
    shared = _file_metadata(doc, ctx, default_agent=None)
    case = _case(doc, ctx, "", table, shared, default_name=_stem(ctx))
    return [case] if case is not None else []


def _file_metadata(
    doc: Mapping[str, Any], ctx: SpecContext, *, default_agent: str | None
) -> dict[str, Any]:
    """What a file says about all its cases: `agent_id` (eval-generator's default for a suite
    file is `"default"`), `sub_agent_id`, its `description`, and the keys kept but not used."""
    meta: dict[str, Any] = {}
    agent_id = _optional_str(doc, "agent_id", ctx, "") or default_agent
    if agent_id is not None:
        meta["agent_id"] = agent_id
    sub_agent = _optional_str(doc, "sub_agent_id", ctx, "")
    if sub_agent is not None:
        meta["sub_agent_id"] = sub_agent
    if "test_cases" in doc:  # in the document form, `description` is the case's own
        described = _optional_str(doc, "description", ctx, "")
        if described is not None:
            meta["suite_description"] = described
    _optional_mapping(doc, "default_test_data", ctx, "")
    kept: dict[str, Any] = {}
    keep_not_used(doc, _FILE_NOT_USED, "", kept)
    if kept:
        meta[NOT_USED_OFFLINE] = kept
    return meta


def _optional_str(node: Mapping[str, Any], key: str, ctx: SpecContext, path: str) -> str | None:
    """An optional string (absent or `null`: None); any other value is reported."""
    if node.get(key) is None:
        return None
    return require_str(node, key, ctx, path, required=False)


def _optional_mapping(node: Mapping[str, Any], key: str, ctx: SpecContext, path: str) -> None:
    """Report a value of `key` that is neither a mapping nor `null` (eval-generator's schema
    has a mapping of test data there)."""
    value = node.get(key)
    if value is not None and not isinstance(value, Mapping):
        ctx.problem(
            node,
            join_path(path, key),
            f"{key!r} must be a mapping of test data",
            key=key,
            expected="a mapping (field: value)",
            found=value,
        )


def _optional_count(node: Mapping[str, Any], key: str, ctx: SpecContext, path: str) -> None:
    """Report a value of `key` that is neither a positive whole number nor `null`."""
    value = node.get(key)
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return
    ctx.problem(
        node,
        join_path(path, key),
        f"{key!r} must be a positive whole number",
        key=key,
        expected="a whole number of turns, at least 1",
        found=value,
    )


def _case(
    node: Any,
    ctx: SpecContext,
    path: str,
    table: Mapping[str, Any],
    shared: Mapping[str, Any],
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
    turns_path = join_path(path, "turns")
    turns = flat_turns(
        turn_nodes,
        ctx,
        turns_path,
        table=table,
        dialect="flat",
        extra_keys=_TURN_KEYS,
        one_turn=True,
    )
    kept = dict(shared.get(NOT_USED_OFFLINE, {}))
    keep_not_used(node, _CASE_NOT_USED, path, kept)
    turns = _turn_extras(turns, turn_nodes, ctx, turns_path, kept)
    description = node.get("description") if isinstance(node.get("description"), str) else None
    meta = {k: v for k, v in shared.items() if k != NOT_USED_OFFLINE}
    for key in ("test_type", "start_agent"):
        value = _optional_str(node, key, ctx, path)
        if value is not None:
            meta[key] = value
    _optional_mapping(node, "test_data", ctx, path)
    _optional_count(node, "max_turns", ctx, path)
    if kept:
        meta[NOT_USED_OFFLINE] = kept
    case = Case(
        name=name,
        turns=tuple(turns),
        id=_id(node),
        tags=str_list(node, "tags", ctx, path),
        description=description,
        metadata=meta,
        source=f"{ctx.file or ''}: {path}".strip(": "),
        spec_path=path,
    )
    if len(ctx.problems) == before:
        ensure_not_empty(case, node, ctx, path)
    return case


def _turn_extras(
    turns: Sequence[TurnSpec],
    nodes: Sequence[Any],
    ctx: SpecContext,
    path: str,
    kept: dict[str, Any],
) -> list[TurnSpec]:
    """Add each turn's `expected_agent` check (after its assertions), and keep its `context`."""
    by_place = {join_path(path, i): node for i, node in enumerate(nodes)}
    out: list[TurnSpec] = []
    for turn in turns:
        node = by_place.get(turn.source)
        if isinstance(node, Mapping):
            keep_not_used(node, _TURN_NOT_USED, turn.source, kept)
            agent = _optional_str(node, "expected_agent", ctx, turn.source)
            if agent is not None:
                where = join_path(turn.source, "expected_agent")
                check = ctx.placed(ActiveAgent(agent), "expected_agent", where)
                turn = replace(turn, assertions=(*turn.assertions, check))
        out.append(turn)
    return out


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
