"""The promptkit dialect (`002_*.txt`): PromptKit Arena Scenario manifests.

```yaml
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata:
  name: support-escalation
spec:
  pack: support.pack.json           # optional: a PromptPack whose `workflow` drives `steps`
  fail_fast: false                  # optional: skip the rest of a turn after a failure
  tool_policy: {blocklist: [delete_account], max_tool_calls_per_turn: 3}
  turns:                            # or steps: [{type: input, content, assertions}]
    - role: user
      content: "My invoice is wrong"
      assertions:
        - type: tools_called
          params: {tools: [lookup_invoice]}
          message: "Should look the invoice up"
    - role: selfplay-user           # self-play: the user's side was generated
      turns: 2                      # two logged user turns, each checked
      assertions:
        - type: content_matches
          params: {pattern: "(?i)invoice"}
  conversation_assertions:
    - type: workflow_complete
```

Turn *i* of the scenario is checked against the *i*-th user turn of each logged conversation (a
self-play turn with `turns: N` counts N); `conversation_assertions` and `tool_policy` against the
whole conversation. Every key of PromptKit's Scenario format is accepted; the keys that only
configure a live run (providers, personas, temperatures, ...) are kept in the case's metadata
under `not_used_offline` (docs/promptkit.md, "Scenario files as projects write them"). A bare
list of `{type, params, message}` items is also accepted: conversation-level types check the
whole conversation and turn-only types check every turn. `message` may sit at the top level or
inside `params` (G5).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from chatassert._base import Assertion, SpecPlace, spec_of, with_spec
from chatassert._call_counts import MaxToolCalls
from chatassert._errors import SpecError, SpecProblem
from chatassert._models import content_text
from chatassert._params import MISSING, did_you_mean, normalise_type
from chatassert._promptkit_names import ConversationToolsNotCalled
from chatassert._registry import (
    IgnoredParam,
    SpecContext,
    UnknownType,
    build_typed,
    join_path,
    line_of,
    unknown_type,
    written_type,
)
from chatassert._suite import Case, TurnSpec
from chatassert._workflow import (
    ConversationStateIs,
    ConversationTransitionedTo,
    ConversationWorkflowComplete,
    StateIs,
    TransitionedTo,
    Workflow,
    WorkflowComplete,
)
from chatassert.specs._common import (
    IGNORED_PARAMS,
    NOT_USED_OFFLINE,
    Dialect,
    check_keys,
    children_of,
    keep_ignored,
    keep_not_used,
    mapping_node,
    on_every_turn,
    plain,
    read_manifest,
    register_dialect,
    require_list,
    require_str,
    str_list,
    table_for,
)
from chatassert.specs._promptkit_eval import translate_eval
from chatassert.specs._yaml import LocatedDict, parse_yaml, read_spec_file

__all__ = ["API_VERSION", "PROMPTKIT"]

API_VERSION = "promptkit.altairalabs.ai/v1alpha1"

_ITEM_KEYS = ("type", "params", "message", "description")
_SPEC_USED = (
    "turns",
    "steps",
    "pack",
    "conversation_assertions",
    "id",
    "task_type",
    "description",
    "context",
    "context_metadata",
    "tool_policy",
    "workflow",
    "fail_fast",
    "tags",
)
"""Scenario spec keys that mean something offline (`workflow`, `fail_fast` and `tags` are this
project's own)."""
_SPEC_KEPT = (
    "mode",
    "context_carry_forward",
    "context_policy",
    "variables",
    "constraints",
    "providers",
    "provider_group",
    "required_capabilities",
    "streaming",
    "duplex",
)
"""Scenario spec keys that only configure a live run: kept as `not_used_offline`."""
_CONTEXT_METADATA_KEYS = ("domain", "user_role", "project_stage")
_TOOL_POLICY_KEYS = ("tool_choice", "blocklist", "max_tool_calls_per_turn", "max_total_tool_calls")
_TURN_USED = ("role", "content", "parts", "assertions", "turns")
_TURN_KEPT = ("persona", "assistant_temp", "user_temp", "seed", "streaming", "tts")
_PART_KEYS = ("type", "text", "media")
_STEP_KEYS = ("type", "content", "assertions")
_NOT_USER_ROLES = frozenset({"assistant", "system", "tool"})
"""Roles PromptKit does not run as scenario turns ("unsupported role"); any other role than
`user` names the self-play generator of the user's side."""
_MAX_SELFPLAY = 1_000
_WORKFLOW_CHECKS = (
    StateIs,
    TransitionedTo,
    WorkflowComplete,
    ConversationStateIs,
    ConversationTransitionedTo,
    ConversationWorkflowComplete,
)


# -- detection -----------------------------------------------------------------------------


def _is_item_list(doc: Any) -> bool:
    """Whether `doc` is a bare list of PromptKit assertions: some item has `params`, or every
    type is a PromptKit name and none a flat one. A name no type registered so far has is
    looked for among the installed plugins of checks (and only then: a list of built-in
    names loads none)."""
    if not isinstance(doc, list) or not doc:
        return False
    if not all(isinstance(i, Mapping) and isinstance(i.get("type"), str) for i in doc):
        return False
    if any("params" in i for i in doc):
        return True
    names = {normalise_type(i["type"]) for i in doc}
    turn, conversation = table_for("promptkit.turn"), table_for("promptkit.conversation")
    flat = table_for("flat")
    if names & set(flat):  # iterating a table loads no plugin
        return False
    unknown = names - set(turn) - set(conversation)
    if not unknown:
        return True
    if not all(name in turn or name in conversation for name in unknown):  # plugins looked up
        return False
    return not names & set(flat)  # a plugin found may have given one of them a flat name too


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
    raw_type = written_type(node, ctx, path, expected="a promptkit assertion type")
    if raw_type is None:
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
        return unknown_type(
            node,
            ctx,
            path,
            raw_type,
            mine,
            f"unknown promptkit {level}-level assertion type {raw_type!r}",
        )
    given = {str(k) for k in params if k not in ("message", "description")}
    # the other level's table last: only parameters the type does not take look there
    if not given <= _param_names(cls) and name in other and given <= _param_names(other[name]):
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
    before = len(ctx.problems)
    ignored: dict[str, Any] = {}
    for key, value in params.items():
        if key == "type":
            ctx.problem(
                params,
                join_path(path, "params.type"),
                "'type' belongs next to 'params', not inside it",
                key=key,
            )
            return None
        if key in ("message", "description") or key in _param_names(cls):
            flat[key] = value
        elif _set_aside(cls, raw_type, params, key, value, ctx, join_path(path, "params")):
            ignored[str(key)] = plain(value)
    for key in ("message", "description"):
        if key in node:
            flat[key] = node[key]
            key_line = getattr(node, "key_lines", {}).get(key)
            if key_line is not None:
                lines[key] = key_line
    flat.key_lines = lines
    refused = len(ctx.problems) > before  # its parameters' problems too, all of them (G4)
    built = build_typed(cls, flat, ctx, join_path(path, "params"), dialect="promptkit", at=path)
    if refused or built is None:
        return None
    return noting_ignored(built, ignored) if ignored else built


_TOOL_RESULT_PARAMS = {
    "result_includes": (
        "texts the tool's result must contain",
        "remove it, and check the result with the native check tool_result_contains",
    ),
    "result_matches": (
        "a pattern the tool's result must match",
        "remove it, and check the result with the native check tool_result_matches",
    ),
    "no_error": (
        "the tool must not return an error",
        "remove it, and check the result with the native check tool_result_matches",
    ),
}
_MAX_CALLS = (
    "how many times each tool may be called",
    "remove it, and count the calls with the native check tool_call_count (tool, max)",
)
_VALIDATION = (
    "whether calls whose arguments failed validation count",
    "remove it: a log does not say which calls failed validation, so every call counts",
)
_REQUIRE_ARGS = (
    "counting only the calls that have arguments",
    "remove it: every call counts",
)
_SYSTEM_PROMPT = (
    "the judge's system prompt",
    "remove it, and name a configured prompt template with 'prompt' (docs/judges.md)",
)
_JUDGE_SETTING = (
    "remove it: offline, the judge's settings come from its configuration (docs/judges.md)"
)

PROMPTKIT_READS: Mapping[str, Mapping[str, tuple[str, str]]] = {
    "tools_called": {
        "tool_names": ("the tools to be called", "at turn level, write them as 'tools'"),
        "min_calls": (
            "how many times each tool must be called",
            "move the check under spec.conversation_assertions, where tools_called takes it",
        ),
        "max_calls": _MAX_CALLS,
        "ignore_validation": _VALIDATION,
        "require_args": _REQUIRE_ARGS,
    },
    "conversation_tools_called": {
        "max_calls": _MAX_CALLS,
        "ignore_validation": _VALIDATION,
        "require_args": _REQUIRE_ARGS,
    },
    "tools_not_called": {
        "tool_names": ("the tools not to be called", "at turn level, write them as 'tools'"),
    },
    "tool_calls_with_args": _TOOL_RESULT_PARAMS,
    "conversation_tool_calls_with_args": _TOOL_RESULT_PARAMS,
    "guardrail_triggered": {
        "direction": (
            "which side's guardrail is meant: input, output or both",
            "remove it if either side will do: this check reads every guardrail of the turn",
        ),
    },
    "content_matches": {
        "expect_match": (
            "false: the pattern must not match",
            "write the check as type 'regex', which takes expect_match",
        ),
    },
    "conversation_content_matches": {
        "expect_match": (
            "false: the pattern must not match",
            "remove it, and forbid the pattern turn by turn with type 'regex' and "
            "expect_match: false",
        ),
    },
    "llm_judge": {
        "temperature": ("the judge call's temperature", _JUDGE_SETTING),
        "max_tokens": ("the judge call's token limit", _JUDGE_SETTING),
        "system_prompt": _SYSTEM_PROMPT,
    },
    "llm_judge_conversation": {"system_prompt": _SYSTEM_PROMPT},
}
"""The parameters PromptKit reads that these checks do not implement, by native kind: what
PromptKit does with each, and what to do instead. Such a parameter is always a problem: the
check would not be the one PromptKit runs. Any other parameter a PromptKit assertion does not
take, PromptKit ignores (it does not validate parameters): `unknown_params` decides.

Read from PromptKit's sources: the arena's assertion validators
(`tools/arena/assertions/*.go`) and the handlers of its later eval registry
(`runtime/evals/handlers/*.go`), which also run the old names (`content_matches` is `regex`).
"""


def noting_ignored(assertion: Assertion, ignored: Mapping[str, Any]) -> Assertion:
    """`assertion` (just built, seen by nobody else) with the parameters PromptKit ignores
    that the file gave it: every result it returns carries them in its details under
    `ignored_params`, so a reader who expected one of them to work sees that it did nothing."""
    place = spec_of(assertion)
    name = place.name if place is not None else assertion.kind
    path = place.path if place is not None else ""
    return with_spec(assertion, SpecPlace(name, path, {IGNORED_PARAMS: dict(ignored)}))


def _set_aside(
    cls: type[Assertion],
    raw_type: str,
    params: Mapping[str, Any],
    key: object,
    value: Any,
    ctx: SpecContext,
    at: str,
) -> bool:
    """A parameter `cls` does not take: True when it is set aside, as PromptKit ignores it
    (noted in `ctx.ignored`), False when it is a problem (recorded in `ctx`)."""
    name = str(key)
    where = join_path(at, name)
    read = PROMPTKIT_READS.get(cls.kind, {}).get(name)
    if read is not None:
        what, fix = read
        ctx.problem(
            params,
            where,
            f"PromptKit reads {name!r} of {raw_type!r} ({what}), which this library does not "
            "implement: the check would not be the one PromptKit runs",
            key=key,
            hint=fix,
        )
        return False
    takes = [p.name for p in cls.params]
    close = did_you_mean(name, takes + [a for p in cls.params for a in p.aliases])
    if ctx.unknown_params == "error":
        valid = close or (f"valid parameters: {', '.join(takes)}" if takes else "it takes none")
        ctx.problem(
            params,
            where,
            f"unknown parameter {name!r} for promptkit type {raw_type!r}: PromptKit ignores "
            "it, so it has no effect",
            key=key,
            hint=f"{valid}; remove it, or load the file with --unknown-params ignore to keep "
            "it as PromptKit does",
        )
        return False
    ctx.ignored.append(
        IgnoredParam(name, raw_type, plain(value), where, line_of(params, key), close)
    )
    return True


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
    name, meta, spec = read_manifest(
        doc,
        ctx,
        api_version=API_VERSION,
        what="Scenario",
        spec_expected="a mapping with 'turns' or 'steps'",
    )
    if spec is None:
        return []
    return [_scenario(spec, ctx, name or _stem(ctx), meta)]


def _scenario(spec: Mapping[str, Any], ctx: SpecContext, name: str, meta: dict[str, Any]) -> Case:
    before = len(ctx.problems)
    first_ignored = len(ctx.ignored)
    check_keys(spec, (*_SPEC_USED, *_SPEC_KEPT), ctx, "spec", "a Scenario spec")
    kept: dict[str, Any] = {}
    keep_not_used(spec, _SPEC_KEPT, "spec", kept)
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
            turns += _step(node, ctx, join_path("spec.steps", i))
    else:
        for i, node in enumerate(require_list(spec, "turns", ctx, "spec", required=False) or []):
            turns += _turn(node, ctx, join_path("spec.turns", i), kept)
    nodes = require_list(spec, "conversation_assertions", ctx, "spec", required=False) or []
    checks = _build_items(nodes, ctx, "spec.conversation_assertions", "conversation")
    checks += _tool_policy(spec, ctx, kept)
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
    if "task_type" in spec:
        meta["task_type"] = spec.get("task_type")
    for key in ("context", "context_metadata"):
        value = _context(spec, key, ctx)
        if value is not None:
            meta[key] = value
    keep_ignored(ctx.ignored[first_ignored:], kept, meta)
    if kept:
        meta[NOT_USED_OFFLINE] = kept
    case = Case(
        name=name,
        turns=tuple(turns),
        checks=tuple(checks),
        id=None if raw_id is None else str(raw_id),
        tags=str_list(spec, "tags", ctx, "spec"),
        description=description,
        fail_fast=fail_fast,
        metadata=meta,
        source=f"{ctx.file or ''}: spec".strip(": "),
        spec_path="spec",
        workflow=_case_workflow(spec, ctx, [*(a for t in turns for a in t.assertions), *checks]),
    )
    if len(ctx.problems) == before and not case.assertions():
        # PromptKit runs a scenario with no assertions (it only drives a conversation); it
        # loads, and checks nothing: `skipped`, never a pass (G12, G13).
        case = replace(case, skip=NOTHING_TO_CHECK)
    return case


NOTHING_TO_CHECK = "the scenario has no assertions: nothing to check offline"
"""The reason a Scenario without assertions (turn, conversation or tool_policy) is skipped."""


def _context(spec: Mapping[str, Any], key: str, ctx: SpecContext) -> dict[str, Any] | None:
    """`context` (free-form) or `context_metadata` (`domain`, `user_role`, `project_stage`)."""
    value = spec.get(key)
    if value is None:
        return None
    path = join_path("spec", key)
    if not isinstance(value, Mapping):
        ctx.problem(spec, path, f"{key!r} must be a mapping", key=key, found=value)
        return None
    if key == "context_metadata":
        check_keys(value, _CONTEXT_METADATA_KEYS, ctx, path, "'context_metadata'")
    result: dict[str, Any] = plain(value)
    return result


def _turn(node: Any, ctx: SpecContext, path: str, kept: dict[str, Any]) -> list[TurnSpec]:
    """One turn: a user turn is one logged user turn; a self-play turn (any other role) stands
    for `turns` (default 1) logged user turns, each checked with the turn's assertions."""
    node = mapping_node(
        node,
        ctx,
        path,
        "a turn",
        expected="a mapping with 'role', 'content' and 'assertions'",
        keys=(*_TURN_USED, *_TURN_KEPT),
    )
    if node is None:
        return []
    keep_not_used(node, _TURN_KEPT, path, kept)
    role = node.get("role", "user")
    if not isinstance(role, str) or not role.strip():
        ctx.problem(
            node,
            join_path(path, "role"),
            "'role' must be 'user' or a self-play role",
            key="role",
            expected="'user', or the self-play role that generated the user's side",
            found=role,
        )
        return []
    items = require_list(node, "assertions", ctx, path, required=False) or []
    built = tuple(_build_items(items, ctx, join_path(path, "assertions"), "turn"))
    if role == "user":
        keep_not_used(node, ("turns",), path, kept)  # a scripted turn runs once
        content = require_str(node, "content", ctx, path, required="parts" not in node)
        parts = _parts(node, ctx, path)
        text = content_text(parts) if parts else None  # PromptKit sends parts over content
        return [TurnSpec(built, input=content if text is None else text, source=path)]
    if role in _NOT_USER_ROLES:
        ctx.problem(
            node,
            join_path(path, "role"),
            f"unsupported turn role {role!r}",
            key="role",
            expected="'user', or a self-play role (such as 'selfplay-user')",
            hint="scenario turns are the user's; the assistant's replies come from the log",
        )
        return []
    keep_not_used(node, ("content", "parts"), path, kept)  # the user side was generated
    count = _selfplay_count(node, ctx, path)
    if count == 1:
        return [TurnSpec(built, source=path)]
    return [TurnSpec(built, source=f"{path} ({k} of {count})") for k in range(1, count + 1)]


def _selfplay_count(node: Mapping[str, Any], ctx: SpecContext, path: str) -> int:
    """How many generated user turns a self-play turn stands for (PromptKit: 0 or absent = 1)."""
    value = node.get("turns")
    if value is None:
        return 1
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_SELFPLAY:
        return max(value, 1)
    ctx.problem(
        node,
        join_path(path, "turns"),
        "'turns' of a self-play turn must be a whole number of turns",
        key="turns",
        expected=f"an integer from 0 to {_MAX_SELFPLAY} (0: one turn, as when absent)",
        found=value,
    )
    return 1


def _parts(node: Mapping[str, Any], ctx: SpecContext, path: str) -> list[Any] | None:
    """A turn's multimodal `parts` (`{type, text, media}`); their text is the turn's input."""
    parts = require_list(node, "parts", ctx, path, required=False)
    if parts is None:
        return None
    for i, part in enumerate(parts):
        part_path = join_path(join_path(path, "parts"), i)
        part = mapping_node(
            part,
            ctx,
            part_path,
            "a part",
            expected="{type, text} or {type, media}",
            keys=_PART_KEYS,
        )
        if part is not None:
            require_str(part, "type", ctx, part_path)
    return parts


def _step(node: Any, ctx: SpecContext, path: str) -> list[TurnSpec]:
    """One workflow step (`type: input`): one user turn."""
    node = mapping_node(
        node,
        ctx,
        path,
        "a step",
        expected="a mapping with 'content' and 'assertions'",
        keys=_STEP_KEYS,
    )
    if node is None:
        return []
    if node.get("type", "input") != "input":
        ctx.problem(
            node,
            join_path(path, "type"),
            f"unsupported step type {node.get('type')!r}",
            key="type",
            expected="'input'",
            hint="offline checks read logged transcripts: each 'input' step is one user turn",
        )
    content = require_str(node, "content", ctx, path)
    items = require_list(node, "assertions", ctx, path, required=False) or []
    built = _build_items(items, ctx, join_path(path, "assertions"), "turn")
    return [TurnSpec(tuple(built), input=content, source=path)]


# -- tool_policy -----------------------------------------------------------------------------


def _tool_policy(
    spec: Mapping[str, Any], ctx: SpecContext, kept: dict[str, Any]
) -> list[Assertion]:
    """`tool_policy` as whole-conversation checks, each named `tool_policy.<key>`.

    `blocklist`: none of its tools is called; `max_tool_calls_per_turn`: no turn makes more
    calls; `max_total_tool_calls`: the conversation makes no more calls (0 = no limit, Go's
    unset value); `tool_choice: none`: no tool is called. Other `tool_choice` values only shape
    a live request: kept, not used.
    """
    if spec.get("tool_policy") is None:
        return []
    path = "spec.tool_policy"
    node = mapping_node(
        spec["tool_policy"],
        ctx,
        path,
        "'tool_policy'",
        expected="a mapping with tool_choice, blocklist, max_tool_calls_per_turn and "
        "max_total_tool_calls",
        keys=_TOOL_POLICY_KEYS,
    )
    if node is None:
        return []
    out: list[Assertion] = []
    blocklist = [t for t in str_list(node, "blocklist", ctx, path) if t.strip()]
    if blocklist:
        out.append(_policy(ConversationToolsNotCalled, (blocklist,), "blocklist", ctx, path))
    per_turn = _limit(node, "max_tool_calls_per_turn", ctx, path)
    if per_turn:
        out.append(
            _policy(MaxToolCalls, (per_turn,), "max_tool_calls_per_turn", ctx, path, every=True)
        )
    total = _limit(node, "max_total_tool_calls", ctx, path)
    if total:
        out.append(_policy(MaxToolCalls, (total,), "max_total_tool_calls", ctx, path))
    choice = node.get("tool_choice")
    if choice is not None and not isinstance(choice, str):
        ctx.problem(
            node,
            join_path(path, "tool_choice"),
            "'tool_choice' must be a string",
            key="tool_choice",
            expected="'auto', 'required' or 'none'",
            found=choice,
        )
    elif choice == "none":
        out.append(_policy(MaxToolCalls, (0,), "tool_choice", ctx, path, every=True))
    else:
        keep_not_used(node, ("tool_choice",), path, kept)
    return out


def _policy(
    cls: Callable[..., Assertion],
    args: tuple[Any, ...],
    key: str,
    ctx: SpecContext,
    path: str,
    *,
    every: bool = False,
) -> Assertion:
    """The check `tool_policy`'s `key` stands for, `cls(*args)`, labelled `tool_policy.<key>`
    and named and placed as the key is; with `every`, run on every turn (a limit per turn,
    `tool_choice: none`)."""
    check = ctx.placed(cls(*args, message=f"tool_policy.{key}"), key, join_path(path, key))
    return on_every_turn(check) if every else check


def _limit(node: Mapping[str, Any], key: str, ctx: SpecContext, path: str) -> int | None:
    """A call limit: a whole number, 0 (or absent) for none."""
    value = node.get(key)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    ctx.problem(
        node,
        join_path(path, key),
        f"{key!r} must be a whole number of tool calls",
        key=key,
        expected="an integer of at least 0 (0: no limit)",
        found=value,
    )
    return None


# -- workflows: spec.pack and spec.workflow --------------------------------------------------


def _case_workflow(
    spec: Mapping[str, Any], ctx: SpecContext, assertions: list[Assertion]
) -> Workflow | None:
    """The case's workflow: `spec.workflow`, else the `workflow` section of `spec.pack`."""
    own = _workflow(spec, ctx)
    if spec.get("pack") is None:
        return own
    found, from_pack = _pack_workflow(spec, ctx)
    if not found:
        return own
    if from_pack is None:  # the pack has no workflow section
        if own is None and "workflow" not in spec and _uses_workflow(assertions):
            ctx.problem(
                spec,
                "spec.pack",
                "the pack has no 'workflow' section, but the scenario checks workflow state",
                key="pack",
                expected="a pack with 'workflow: {entry, states}'",
                hint="add the workflow section to the pack, or give the scenario "
                "'workflow:' (a file or the section inline)",
            )
        return own
    if "workflow" in spec and spec["workflow"] is not None:
        ctx.problem(
            spec,
            "spec.workflow",
            "the scenario has two workflows: 'workflow' and the pack's workflow section",
            key="workflow",
            hint="remove 'workflow:', the pack's workflow section drives the steps",
        )
        return own
    return from_pack


def _uses_workflow(assertions: list[Assertion]) -> bool:
    stack = list(assertions)
    while stack:
        assertion = stack.pop()
        if isinstance(assertion, _WORKFLOW_CHECKS):
            return True
        stack.extend(children_of(assertion))
    return False


def _pack_workflow(spec: Mapping[str, Any], ctx: SpecContext) -> tuple[bool, Workflow | None]:
    """Read the PromptPack `spec.pack` names: `(read, its workflow or None)`.

    Only the `workflow` section is read; the pack's other sections (prompts, tools, ...) are
    not validated. The path is relative to the scenario file.
    """
    value = spec["pack"]
    if not isinstance(value, str) or not value.strip():
        ctx.problem(
            spec,
            "spec.pack",
            "'pack' must be the path of a PromptPack file",
            key="pack",
            expected="a path to a PromptPack JSON file, relative to the scenario file",
            found=value,
        )
        return False, None
    path = _beside(ctx, value)
    try:
        text = read_spec_file(path, regular_only=True)  # a regular file of at most 10 MiB
        data = _read_pack(text, os.fspath(path))
    except OSError as exc:
        ctx.problem(
            spec,
            "spec.pack",
            f"cannot read the pack {os.fspath(path)!r}: {exc.strerror or exc}",
            key="pack",
            hint="name a regular PromptPack JSON file, relative to the scenario file",
        )
        return False, None
    except SpecError as exc:  # not JSON nor YAML: its own problems, at their own file:line
        ctx.problems.extend(exc.problems)
        return False, None
    if not isinstance(data, Mapping):
        ctx.problem(
            spec,
            "spec.pack",
            f"the pack {os.fspath(path)!r} is not a PromptPack",
            key="pack",
            expected="a JSON object with a 'workflow' section",
            found=data,
        )
        return False, None
    section = data.get("workflow")
    if section is None:
        return True, None
    try:
        return True, Workflow.from_dict(section)
    except ValueError as exc:
        ctx.problem(
            spec,
            "spec.pack",
            f"invalid workflow in the pack {os.fspath(path)!r}: {exc}",
            key="pack",
            expected="workflow: {entry, states: {<name>: {on_event: {<Event>: <state>}}}}",
        )
        return False, None


def _read_pack(text: str, name: str) -> Any:
    """Parse a pack: a `.json` file as JSON (quickly: packs carry long prompts), any other as
    YAML (JSON is YAML too).

    Raises:
        SpecError: when it cannot be parsed, located at its own line.
    """
    if not name.lower().endswith(".json"):
        return parse_yaml(text, name)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problem = SpecProblem(
            f"the pack is not valid JSON: {exc.msg} (column {exc.colno})",
            file=name,
            line=exc.lineno,
            hint="a PromptPack is one JSON object",
        )
    except (ValueError, RecursionError) as exc:  # numbers too long, nesting too deep
        problem = SpecProblem(f"the pack cannot be read as JSON: {exc}", file=name)
    raise SpecError([problem])


def _beside(ctx: SpecContext, value: str) -> Path:
    """A path named in the scenario: relative to the scenario file, not to the cwd."""
    path = Path(value)
    if not path.is_absolute() and ctx.file:
        path = Path(os.path.dirname(ctx.file)) / path
    return path


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
    path = _beside(ctx, value)
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
    turn_types = table_for("promptkit.turn")
    conversation_types = table_for("promptkit.conversation")
    registered = set(conversation_types)  # the names known now: no plugin looked for
    checks: list[Assertion] = []
    for i, node in enumerate(doc):
        raw = node.get("type") if isinstance(node, Mapping) else None
        name = normalise_type(raw) if isinstance(raw, str) else None
        # a name of both levels is the conversation's; one of neither, the turn's (unknown)
        level = (
            "conversation"
            if name is None
            or name in registered
            or (name not in turn_types and name in conversation_types)
            else "turn"
        )
        built = build_item(node, ctx, join_path("", i), level)
        if isinstance(built, UnknownType):  # reported skipped as it is: a selector passes it
            checks.append(built)
        elif built is not None:
            checks.append(on_every_turn(built) if level == "turn" else built)
    meta: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    keep_ignored(ctx.ignored, kept, meta)
    if kept:
        meta[NOT_USED_OFFLINE] = kept
    return Case(name=_stem(ctx), checks=tuple(checks), source=ctx.file or "", metadata=meta)


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
