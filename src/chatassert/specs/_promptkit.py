"""The promptkit dialect (`002_*.txt`): PromptKit Arena Scenario manifests.

```yaml
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata:
  name: support-escalation
spec:
  workflow: support.workflow.yaml   # optional: a pack (or its workflow section), or inline
  fail_fast: false                  # optional: skip the rest of a turn after a failure
  turns:                            # or steps: [{type: input, content, assertions}]
    - role: user
      content: "My invoice is wrong"
      assertions:
        - type: tools_called
          params: {tools: [lookup_invoice]}
          message: "Should look the invoice up"
  conversation_assertions:
    - type: workflow_complete
```

Turn *i* of the scenario is checked against the *i*-th user turn of each logged conversation;
`conversation_assertions` against the whole conversation. A bare list of `{type, params,
message}` items is also accepted: conversation-level types check the whole conversation and
turn-only types check every turn. `message` may sit at the top level or inside `params` (G5).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chatassert._base import Assertion
from chatassert._combinators import OnEveryTurn
from chatassert._errors import SpecError
from chatassert._params import MISSING, did_you_mean, normalise_type
from chatassert._registry import SpecContext, build_typed, join_path
from chatassert._suite import Case, TurnSpec
from chatassert._workflow import Workflow
from chatassert.specs._common import (
    Dialect,
    check_keys,
    ensure_not_empty,
    mapping_node,
    register_dialect,
    require_list,
    require_str,
    str_list,
    table_for,
)
from chatassert.specs._promptkit_eval import translate_eval
from chatassert.specs._yaml import LocatedDict

__all__ = ["API_VERSION", "PROMPTKIT"]

API_VERSION = "promptkit.altairalabs.ai/v1alpha1"

_ITEM_KEYS = ("type", "params", "message", "description")
_SPEC_KEYS = (
    "turns",
    "steps",
    "conversation_assertions",
    "workflow",
    "fail_fast",
    "id",
    "task_type",
    "mode",
    "description",
    "context",
    "context_metadata",
    "constraints",
    "tool_policy",
    "providers",
    "streaming",
    "variables",
    "tags",
)
_TURN_KEYS = ("role", "content", "assertions", "parts")
_STEP_KEYS = ("type", "content", "assertions")


# -- detection -----------------------------------------------------------------------------


def _is_item_list(doc: Any) -> bool:
    if not isinstance(doc, list) or not doc:
        return False
    if not all(isinstance(i, Mapping) and isinstance(i.get("type"), str) for i in doc):
        return False
    if any("params" in i for i in doc):
        return True
    names = {normalise_type(i["type"]) for i in doc}
    ours = set(table_for("promptkit.turn")) | set(table_for("promptkit.conversation"))
    return names <= ours and not names & set(table_for("flat"))


def detect(doc: Any) -> bool:
    """Whether `doc` is a Scenario manifest or a bare list of `{type, params}` items."""
    if isinstance(doc, Mapping):
        api = doc.get("apiVersion")
        return doc.get("kind") == "Scenario" or (
            isinstance(api, str) and api.startswith("promptkit.")
        )
    return _is_item_list(doc)


# -- building one assertion ------------------------------------------------------------------


def _param_names(cls: type[Assertion]) -> set[str]:
    return {n for p in cls.params for n in (p.name, *p.aliases)}


def build_item(node: Any, ctx: SpecContext, path: str, level: str) -> Assertion | None:
    """Build one `{type, params, message}` item of the given level (`turn`/`conversation`)."""
    node = mapping_node(
        node,
        ctx,
        path,
        "an assertion",
        expected="a mapping with 'type' and 'params'",
        keys=_ITEM_KEYS,
    )
    if node is None:
        return None
    raw_type = node.get("type")
    if not isinstance(raw_type, str) or not raw_type.strip():
        ctx.problem(
            node,
            path,
            "the assertion has no 'type'",
            key="type",
            expected="a promptkit assertion type",
            found=raw_type if "type" in node else MISSING,
            hint="add 'type: <name>'",
        )
        return None
    name = normalise_type(raw_type)
    mine = table_for(f"promptkit.{level}")
    other_level = "conversation" if level == "turn" else "turn"
    other = table_for(f"promptkit.{other_level}")
    params = node.get("params")
    if params is None:
        params = LocatedDict()
    if not isinstance(params, Mapping):
        ctx.problem(
            node,
            join_path(path, "params"),
            "'params' must be a mapping",
            key="params",
            expected="a mapping of parameter names to values",
            found=params,
        )
        return None
    where = (
        "under spec.conversation_assertions"
        if other_level == "conversation"
        else "under a turn's (or step's) assertions"
    )
    cls = mine.get(name)
    if cls is None:
        if name in other:
            ctx.problem(
                node,
                path,
                f"{raw_type!r} is a {other_level}-level assertion type",
                key="type",
                hint=f"move it {where}",
            )
            return None
        return ctx.unknown(
            node,
            path,
            raw_type,
            f"unknown promptkit {level}-level assertion type {raw_type!r}",
            did_you_mean(name, sorted(mine)) or f"valid types: {', '.join(sorted(mine))}",
        )
    given = {str(k) for k in params if k not in ("message", "description")}
    if name in other and not given <= _param_names(cls) and given <= _param_names(other[name]):
        ctx.problem(
            node,
            join_path(path, "params"),
            f"{sorted(given - _param_names(cls))} "
            f"are parameters of the {other_level}-level {raw_type!r}",
            key="params",
            hint=f"move it {where}, or use the {level}-level parameters: "
            f"{', '.join(p.name for p in cls.params)}",
        )
        return None
    flat = LocatedDict()
    flat.line = getattr(params, "line", None) or getattr(node, "line", None)
    lines = dict(getattr(params, "key_lines", {}))
    flat["type"] = raw_type
    for key, value in params.items():
        if key == "type":
            ctx.problem(
                params,
                join_path(path, "params.type"),
                "'type' belongs next to 'params', not inside it",
                key=key,
            )
            return None
        flat[key] = value
    for key in ("message", "description"):
        if key in node:
            flat[key] = node[key]
            key_line = getattr(node, "key_lines", {}).get(key)
            if key_line is not None:
                lines[key] = key_line
    flat.key_lines = lines
    return build_typed(cls, flat, ctx, join_path(path, "params"), dialect="promptkit")


def _build_items(nodes: list[Any], ctx: SpecContext, path: str, level: str) -> list[Assertion]:
    out: list[Assertion] = []
    for i, node in enumerate(nodes):
        built = build_item(node, ctx, join_path(path, i), level)
        if built is not None:
            out.append(built)
    return out


# -- translating documents -------------------------------------------------------------------


def translate(doc: Any, ctx: SpecContext) -> list[Case]:
    """Translate a Scenario manifest (or a bare item list) into one case."""
    if isinstance(doc, list):
        return [_bare_list(doc, ctx)]
    if not isinstance(doc, Mapping):  # the dialect was forced on another shape
        ctx.problem(
            doc,
            "",
            "a promptkit spec must be a Scenario manifest or a list of assertions",
            expected=f"a mapping with 'apiVersion: {API_VERSION}' and 'spec'",
            found=doc,
        )
        return []
    if doc.get("kind") == "Eval":  # PromptKit's offline checks of a recording
        return translate_eval(doc, ctx, API_VERSION, build_item)
    check_keys(doc, ["apiVersion", "kind", "metadata", "spec"], ctx, "", "a Scenario manifest")
    if doc.get("apiVersion") != API_VERSION:
        ctx.problem(
            doc,
            "apiVersion",
            "unsupported apiVersion",
            key="apiVersion",
            expected=API_VERSION,
            found=doc.get("apiVersion", MISSING),
            hint=f"set 'apiVersion: {API_VERSION}'",
        )
    if doc.get("kind") != "Scenario":
        ctx.problem(
            doc,
            "kind",
            "this loader reads Scenario manifests",
            key="kind",
            expected="'Scenario'",
            found=doc.get("kind", MISSING),
            hint="set 'kind: Scenario'",
        )
    metadata = doc.get("metadata")
    name = None
    if isinstance(metadata, Mapping):
        name = require_str(metadata, "name", ctx, "metadata", required=False)
    elif metadata is not None:
        ctx.problem(
            doc,
            "metadata",
            "'metadata' must be a mapping",
            key="metadata",
            expected="a mapping with 'name'",
            found=metadata,
        )
    spec = doc.get("spec")
    if not isinstance(spec, Mapping):
        ctx.problem(
            doc,
            "spec",
            "a Scenario needs a 'spec' mapping",
            key="spec",
            expected="a mapping with 'turns' or 'steps'",
            found=spec if "spec" in doc else MISSING,
        )
        return []
    return [_scenario(spec, ctx, name or _stem(ctx))]


def _scenario(spec: Mapping[str, Any], ctx: SpecContext, name: str) -> Case:
    before = len(ctx.problems)
    check_keys(spec, _SPEC_KEYS, ctx, "spec", "a Scenario spec")
    if "turns" in spec and "steps" in spec:
        ctx.problem(
            spec,
            "spec",
            "a Scenario has either 'turns' or 'steps', not both",
            key="steps",
            hint="use 'steps' for workflow scenarios, 'turns' otherwise",
        )
    turns: list[TurnSpec] = []
    if "steps" in spec:
        for i, node in enumerate(require_list(spec, "steps", ctx, "spec") or []):
            turns += _turn(node, ctx, join_path("spec.steps", i), step=True)
    else:
        for i, node in enumerate(require_list(spec, "turns", ctx, "spec", required=False) or []):
            turns += _turn(node, ctx, join_path("spec.turns", i), step=False)
    nodes = require_list(spec, "conversation_assertions", ctx, "spec", required=False) or []
    checks = _build_items(nodes, ctx, "spec.conversation_assertions", "conversation")
    fail_fast = spec.get("fail_fast", False)
    if not isinstance(fail_fast, bool):
        ctx.problem(
            spec,
            "spec.fail_fast",
            "'fail_fast' must be true or false",
            key="fail_fast",
            expected="true or false",
            found=fail_fast,
        )
        fail_fast = False
    description = spec.get("description") if isinstance(spec.get("description"), str) else None
    raw_id = spec.get("id")
    case = Case(
        name=name,
        turns=tuple(turns),
        checks=tuple(checks),
        id=None if raw_id is None else str(raw_id),
        tags=str_list(spec, "tags", ctx, "spec"),
        description=description,
        fail_fast=fail_fast,
        metadata={"task_type": spec.get("task_type")} if "task_type" in spec else {},
        source=f"{ctx.file or ''}: spec".strip(": "),
        workflow=_workflow(spec, ctx),
    )
    if len(ctx.problems) == before:
        ensure_not_empty(case, spec, ctx, "spec")
    return case


def _turn(node: Any, ctx: SpecContext, path: str, *, step: bool) -> list[TurnSpec]:
    what = "a step" if step else "a turn"
    node = mapping_node(
        node,
        ctx,
        path,
        what,
        expected="a mapping with 'content' and 'assertions'",
        keys=_STEP_KEYS if step else _TURN_KEYS,
    )
    if node is None:
        return []
    if step and node.get("type", "input") != "input":
        ctx.problem(
            node,
            join_path(path, "type"),
            f"unsupported step type {node.get('type')!r}",
            key="type",
            expected="'input'",
            hint="offline checks read logged transcripts: each 'input' step is one user turn",
        )
    if not step and node.get("role", "user") != "user":
        ctx.problem(
            node,
            join_path(path, "role"),
            f"unsupported turn role {node.get('role')!r}",
            key="role",
            expected="'user'",
            hint="scenario turns are the user's; the assistant's replies come from the log",
        )
    content = require_str(node, "content", ctx, path, required="parts" not in node)
    items = require_list(node, "assertions", ctx, path, required=False) or []
    built = _build_items(items, ctx, join_path(path, "assertions"), "turn")
    return [TurnSpec(tuple(built), input=content, source=path)]


def _workflow(spec: Mapping[str, Any], ctx: SpecContext) -> Workflow | None:
    if "workflow" not in spec or spec["workflow"] is None:
        return None
    value = spec["workflow"]
    if isinstance(value, Mapping):
        try:
            return Workflow.from_dict(value)
        except ValueError as exc:
            _invalid_workflow(spec, ctx, exc)
            return None
    if not isinstance(value, str) or not value:
        ctx.problem(
            spec,
            "spec.workflow",
            "'workflow' must be a file name or a mapping",
            key="workflow",
            expected="a path to a pack (JSON/YAML) or {entry, states}",
            found=value,
        )
        return None
    path = Path(value)
    if not path.is_absolute() and ctx.file:  # relative to the scenario file, not to the cwd
        path = Path(os.path.dirname(ctx.file)) / path
    try:
        return Workflow.load(path)  # a regular file of at most 10 MiB, parsed with limits
    except OSError as exc:
        ctx.problem(
            spec,
            "spec.workflow",
            f"cannot read the workflow file {os.fspath(path)!r}: {exc.strerror or exc}",
            key="workflow",
            hint="name a regular YAML or JSON file, relative to the scenario file",
        )
    except SpecError as exc:  # not YAML: its own problems, at their own file:line
        ctx.problems.extend(exc.problems)
    except ValueError as exc:
        _invalid_workflow(spec, ctx, exc)
    return None


def _invalid_workflow(spec: Mapping[str, Any], ctx: SpecContext, exc: ValueError) -> None:
    ctx.problem(
        spec,
        "spec.workflow",
        f"invalid workflow: {exc}",
        key="workflow",
        expected="{entry, states: {<name>: {on_event: {<Event>: <state>}}}}",
    )


def _bare_list(doc: list[Any], ctx: SpecContext) -> Case:
    conversation_types = table_for("promptkit.conversation")
    checks: list[Assertion] = []
    for i, node in enumerate(doc):
        raw = node.get("type") if isinstance(node, Mapping) else None
        level = (
            "turn"
            if isinstance(raw, str) and normalise_type(raw) not in conversation_types
            else "conversation"
        )
        built = build_item(node, ctx, join_path("", i), level)
        if built is not None:
            checks.append(OnEveryTurn(built) if level == "turn" else built)
    return Case(name=_stem(ctx), checks=tuple(checks), source=ctx.file or "")


def _stem(ctx: SpecContext) -> str:
    if not ctx.file:
        return "scenario"
    name = ctx.file.replace("\\", "/").rsplit("/", 1)[-1]
    return name.split(".", 1)[0] or name


PROMPTKIT = register_dialect(
    Dialect(
        "promptkit",
        detect,
        translate,
        priority=20,
        description="PromptKit Arena Scenario manifests: turn-level and conversation-level "
        "assertions, workflows and guardrails",
    )
)
