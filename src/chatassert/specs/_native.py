"""The native dialect: every registered assertion and combinator, in one suite format.

```yaml
chatassert: 1
name: booking agent
plugins: [booking_checks]  # modules of checks of one's own, beside the suite (optional)
cases:
  - name: books a table
    turns:
      - input: I want a table for 4 on Saturday
        assertions:
          - type: contains_function_call
            value: check_availability
    assertions:            # on the whole conversation
      - type: on_last_turn
        assertion: {type: not_contains, value: goodbye}
assertions: []             # added to every case (a suite of rules only: one case)
gates:                     # what a whole run must reach (chatassert._gates; optional)
  - {pass_rate: {min: 0.9}}
```
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from chatassert._registry import SpecContext, join_path
from chatassert._suite import Case
from chatassert.plugins import PluginError, load_plugins, parse_plugin_args
from chatassert.specs._common import (
    Dialect,
    build_list,
    check_keys,
    ensure_not_empty,
    flat_turns,
    mapping_node,
    optional_bool,
    register_dialect,
    require_list,
    require_str,
    str_list,
    whole_subject,
)

__all__ = ["NATIVE", "NATIVE_VERSION"]

NATIVE_VERSION = 1
_CASE_KEYS = ("name", "id", "turns", "assertions", "tags", "description", "fail_fast")


def detect(doc: Any) -> bool:
    """Whether `doc` is a native suite (it says `chatassert: 1`)."""
    return isinstance(doc, Mapping) and "chatassert" in doc


def translate(doc: Any, ctx: SpecContext) -> list[Case]:
    """Translate a native suite into cases."""
    if not isinstance(doc, Mapping):  # the dialect was forced on another shape
        ctx.problem(
            doc,
            "",
            "a native suite must be a mapping",
            expected="a mapping with 'chatassert: 1' and 'cases' or 'assertions'",
            found=doc,
            hint="wrap a list of assertions as 'chatassert: 1' and 'assertions: [...]'",
        )
        return []
    check_keys(
        doc,
        [
            "chatassert",
            "name",
            "description",
            "plugins",
            "cases",
            "assertions",
            "fail_fast",
            "gates",  # what the suite requires of a whole run: chatassert._gates reads them
        ],
        ctx,
        "",
        "a native suite",
    )
    if not _plugins(doc, ctx):
        return []  # its checks would be unknown types: the plugin's problem is the one to fix
    if doc.get("chatassert") != NATIVE_VERSION:
        ctx.problem(
            doc,
            "chatassert",
            f"unsupported native spec version {doc.get('chatassert')!r}",
            key="chatassert",
            expected=str(NATIVE_VERSION),
        )
    fail_fast = optional_bool(doc, "fail_fast", ctx, "") or False
    require_str(doc, "description", ctx, "", required=False)
    cases: list[Case] = []
    for i, node in enumerate(require_list(doc, "cases", ctx, "", required=False) or []):
        case = _case(node, ctx, join_path("cases", i), fail_fast)
        if case is not None:
            cases.append(case)
    shared_nodes = require_list(doc, "assertions", ctx, "", required=False) or []
    if shared_nodes:
        built = build_list(shared_nodes, ctx, "assertions")
        checks = whole_subject(built, shared_nodes, ctx, "assertions", wrap_turn_checks=True)
        if cases:  # suite-wide rules: every case checks them too, after its own
            cases = [replace(c, checks=(*c.checks, *checks)) for c in cases]
        else:  # a suite of rules only: one case, for every conversation
            name = require_str(doc, "name", ctx, "", required=False) or "assertions"
            cases.append(
                Case(
                    name=name,
                    checks=tuple(checks),
                    fail_fast=fail_fast,
                    source=f"{ctx.file or ''}: assertions".strip(": "),
                )
            )
    if not cases:
        ctx.problem(
            doc,
            "",
            "the suite has no cases and no assertions",
            hint="add 'cases:' or 'assertions:'",
        )
    return cases


def _plugins(doc: Mapping[str, Any], ctx: SpecContext) -> bool:
    """Import the modules the suite's `plugins:` names (its own checks), found beside the
    suite (its directory is where a module, or a `.py` path, is looked for after `sys.path`);
    False when one could not be, after recording each problem."""
    before = len(ctx.problems)
    for i, module in enumerate(require_list(doc, "plugins", ctx, "", required=False) or []):
        path = join_path("plugins", i)
        if not isinstance(module, str) or not module.strip():
            ctx.problem(
                doc,
                path,
                "a plugin must be a module name",
                key="plugins",
                expected="a module name (my_checks) or the path of a .py file",
                found=module,
            )
            continue
        try:
            modules, disabled = parse_plugin_args([module], given_by="plugins")
            if disabled:
                raise PluginError(
                    f"a suite cannot turn the installed plugin {disabled[0]!r} off; give "
                    f"-p no:{disabled[0]} on the command line (or in CHATASSERT_PLUGINS)"
                )
            directory = os.path.dirname(os.path.abspath(ctx.file)) if ctx.file else None
            load_plugins(
                modules, directory=directory, given_by=f"{ctx.file or 'the suite'}'s plugins"
            )
        except PluginError as exc:
            ctx.problem(doc, path, str(exc), key="plugins")
    return len(ctx.problems) == before


def _case(node: Any, ctx: SpecContext, path: str, fail_fast: bool) -> Case | None:
    before = len(ctx.problems)
    node = mapping_node(
        node, ctx, path, "a case", expected="a mapping with 'name'", keys=_CASE_KEYS
    )
    if node is None:
        return None
    name = require_str(node, "name", ctx, path, required=False) or path
    turns = flat_turns(
        require_list(node, "turns", ctx, path, required=False) or [],
        ctx,
        join_path(path, "turns"),
        table=None,
        dialect="native",
        input_keys=("input", "user_input"),
    )
    whole_nodes = require_list(node, "assertions", ctx, path, required=False) or []
    built = build_list(whole_nodes, ctx, join_path(path, "assertions"))
    checks = whole_subject(
        built, whole_nodes, ctx, join_path(path, "assertions"), wrap_turn_checks=False
    )
    case = Case(
        name=name,
        turns=tuple(turns),
        checks=tuple(checks),
        id=None if node.get("id") is None else str(node["id"]),
        tags=str_list(node, "tags", ctx, path),
        description=require_str(node, "description", ctx, path, required=False),
        fail_fast=fail_fast
        if (own := optional_bool(node, "fail_fast", ctx, path)) is None
        else own,
        source=f"{ctx.file or ''}: {path}".strip(": "),
        spec_path=path,
    )
    if len(ctx.problems) == before:
        ensure_not_empty(case, node, ctx, path)
    return case


NATIVE = register_dialect(
    Dialect(
        "native",
        detect,
        translate,
        priority=0,
        description="chatassert's own format: every type and combinator",
    )
)
