"""PromptKit `kind: Eval` manifests: checks of a recorded conversation, PromptKit's offline mode.

```yaml
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Eval
metadata:
  name: support-replay
spec:
  id: support-replay
  description: The support bot's recorded run
  recording:
    path: runs/support.arena.json     # relative to this file
    type: arena_output                # session | arena_output | transcript | generic
  turns:
    - all_turns:
        assertions:                    # checked on every turn of the recording
          - type: content_matches
            params: {pattern: "(?i)sorry|happy to help"}
  conversation_assertions:
    - type: tools_called
      params: {tool_names: [lookup_invoice]}
  tags: [support]
  mode: instant                        # replay timing: kept, not used offline
```

One file is one case. `all_turns` assertions are turn-level PromptKit items, each checked on
every turn of the recording (`OnEveryTurn`); `conversation_assertions` check the whole
recording. Eval runs never fail fast: every assertion is evaluated and reported. The case
remembers the recording in `Case.metadata["recording"]` (`{path, type}`, the path resolved
against the eval file's folder), so `chatassert check FILE.eval.yaml` needs no log argument.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from chatassert._base import Assertion, spec_of, with_spec
from chatassert._combinators import OnEveryTurn
from chatassert._registry import SpecContext, UnknownType, join_path
from chatassert._suite import Case
from chatassert.specs._common import (
    NOT_USED_OFFLINE,
    check_keys,
    ensure_not_empty,
    keep_ignored,
    mapping_node,
    read_manifest,
    require_list,
    require_str,
    str_list,
)

__all__ = ["RECORDING_TYPES", "translate_eval"]

RECORDING_TYPES = ("session", "arena_output", "transcript", "generic")
"""The recording types an Eval may name (PromptKit detects the type when none is given)."""

_SPEC_KEYS = (
    "id",
    "description",
    "recording",
    "turns",
    "conversation_assertions",
    "tags",
    "mode",
    "speed",
)
_MODES = ("instant", "realtime", "accelerated")


ItemBuilder = Callable[[Any, SpecContext, str, str], Assertion | None]
"""Builds one `{type, params, message}` item at a level (`specs._promptkit.build_item`)."""


def translate_eval(
    doc: Mapping[str, Any], ctx: SpecContext, api_version: str, build_item: ItemBuilder
) -> list[Case]:
    """Translate an Eval manifest into its one case (problems go to `ctx`).

    `build_item` builds each assertion item, as the Scenario loader does.
    """
    name, metadata, spec = read_manifest(
        doc,
        ctx,
        api_version=api_version,
        what="Eval",
        spec_expected="a mapping with 'recording' and assertions",
    )
    if spec is None:
        return []
    before = len(ctx.problems)
    first_ignored = len(ctx.ignored)
    check_keys(spec, _SPEC_KEYS, ctx, "spec", "an Eval spec")
    checks: list[Assertion] = []
    for i, node in enumerate(require_list(spec, "turns", ctx, "spec", required=False) or []):
        path = join_path("spec.turns", i)
        turn = mapping_node(
            node,
            ctx,
            path,
            "an Eval turn",
            expected="{all_turns: {assertions}}",
            keys=["all_turns"],
        )
        if turn is None or "all_turns" not in turn:
            if turn is not None and not turn:  # other keys are reported as unknown already
                ctx.problem(
                    turn, path, "missing 'all_turns'", hint="add 'all_turns: {assertions: [...]}'"
                )
            continue
        every = mapping_node(
            turn["all_turns"],
            ctx,
            join_path(path, "all_turns"),
            "'all_turns'",
            expected="a mapping with 'assertions'",
            keys=["assertions"],
        )
        if every is None:
            continue
        at = join_path(path, "all_turns")
        for j, item in enumerate(require_list(every, "assertions", ctx, at, required=False) or []):
            built = build_item(item, ctx, join_path(join_path(at, "assertions"), j), "turn")
            if isinstance(built, UnknownType):  # reported skipped as it is, not as a pass
                checks.append(built)
            elif built is not None:  # named and placed as written: the wrapper is not a row
                every_turn = OnEveryTurn(built, message=built.message)
                checks.append(with_spec(every_turn, spec_of(built)))
    nodes = require_list(spec, "conversation_assertions", ctx, "spec", required=False) or []
    for i, node in enumerate(nodes):
        built = build_item(node, ctx, join_path("spec.conversation_assertions", i), "conversation")
        if built is not None:
            checks.append(built)
    metadata.update(_recording(spec, ctx))
    metadata.update(_replay(spec, ctx))
    kept: dict[str, Any] = {}
    keep_ignored(ctx.ignored[first_ignored:], kept, metadata)
    if kept:
        metadata[NOT_USED_OFFLINE] = kept
    description = require_str(spec, "description", ctx, "spec", required=False)
    raw_id = spec.get("id")
    case = Case(
        name=name or _stem(ctx),
        checks=tuple(checks),
        id=None if raw_id is None else str(raw_id),
        tags=str_list(spec, "tags", ctx, "spec"),
        description=description,
        metadata=metadata,
        source=f"{ctx.file or ''}: spec".strip(": "),
        spec_path="spec",
    )
    if len(ctx.problems) == before:
        ensure_not_empty(case, spec, ctx, "spec")
    return [case]


def _recording(spec: Mapping[str, Any], ctx: SpecContext) -> dict[str, Any]:
    """`spec.recording` as `{"recording": {path, type}}`, the path resolved against the file."""
    if "recording" not in spec:
        ctx.problem(
            spec,
            "spec",
            "missing 'recording'",
            expected="{path: <file>, type?: session | arena_output | transcript | generic}",
            hint="name the recorded conversation: 'recording: {path: run.arena.json}'",
        )
        return {}
    node = spec["recording"]
    if not isinstance(node, Mapping):
        ctx.problem(
            spec,
            "spec.recording",
            "'recording' must be a mapping",
            key="recording",
            expected="a mapping with 'path' (and 'type')",
            found=node,
            hint="write 'recording: {path: <file>}'",
        )
        return {}
    check_keys(node, ("path", "type"), ctx, "spec.recording", "'recording'")
    path = require_str(node, "path", ctx, "spec.recording")
    kind = node.get("type")
    if kind is not None and kind not in RECORDING_TYPES:
        ctx.problem(
            node,
            "spec.recording.type",
            f"unknown recording type {kind!r}",
            key="type",
            expected=" | ".join(RECORDING_TYPES),
            found=kind,
            hint="leave 'type' out to detect the format from the file",
        )
        kind = None
    if path is None:
        return {}
    if not os.path.isabs(path) and ctx.file:  # relative to the eval file, not to the cwd
        path = os.path.join(os.path.dirname(ctx.file), path)
    return {"recording": {"path": path, "type": kind}}


def _replay(spec: Mapping[str, Any], ctx: SpecContext) -> dict[str, Any]:
    """`mode` and `speed`: how PromptKit paces a replay; kept, not used offline."""
    kept: dict[str, Any] = {}
    mode = spec.get("mode")
    if mode is not None:
        if mode in _MODES:
            kept["mode"] = mode
        else:
            ctx.problem(
                spec,
                "spec.mode",
                f"unknown replay mode {mode!r}",
                key="mode",
                expected=" | ".join(_MODES),
                found=mode,
            )
    speed = spec.get("speed")
    if speed is not None:
        if isinstance(speed, int | float) and not isinstance(speed, bool) and speed > 0:
            kept["speed"] = speed
        else:
            ctx.problem(
                spec,
                "spec.speed",
                "'speed' must be a positive number",
                key="speed",
                expected="a number above 0 (1.0 is real time)",
                found=speed,
            )
    return kept


def _stem(ctx: SpecContext) -> str:
    if not ctx.file:
        return "eval"
    name = ctx.file.replace("\\", "/").rsplit("/", 1)[-1]
    return name.split(".", 1)[0] or name
