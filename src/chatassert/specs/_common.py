"""What every dialect loader shares: the dialect registry and the checks of a spec's structure.

Dialect loaders only translate a document into `Case`s of native assertions; they never
evaluate. Each loader reports problems to the `SpecContext` and carries on, so one `SpecError`
lists every problem of a file.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chatassert._base import AllOf, AnyOf, Assertion, spec_of, with_spec
from chatassert._combinators import OnEveryTurn
from chatassert._params import MISSING, did_you_mean
from chatassert._registry import (
    IgnoredParam,
    SpecContext,
    UnknownType,
    build,
    dialect_types,
    join_path,
)
from chatassert._suite import Case, TurnSpec

__all__ = [
    "IGNORED_PARAMS",
    "NOT_USED_OFFLINE",
    "Dialect",
    "build_list",
    "check_keys",
    "dialects",
    "children_of",
    "keep_ignored",
    "keep_not_used",
    "manifest_metadata",
    "plain",
    "read_manifest",
    "levels",
    "on_every_turn",
    "unknown_types",
    "register_dialect",
    "require_list",
    "require_str",
    "whole_subject",
]


@dataclass(frozen=True)
class Dialect:
    """A dialect of spec files: how to recognise its documents and how to translate them.

    Attributes:
        name: The dialect's name (`flat`, `promptkit`, `expect`, `native`).
        detect: Whether a parsed document is written in this dialect.
        translate: Turn a parsed document into cases, reporting problems to the context.
        priority: Detection order (lower first); the flat dialect is the fallback.
        description: One line for `chatassert lint` and the docs.
    """

    name: str
    detect: Callable[[Any], bool]
    translate: Callable[[Any, SpecContext], list[Case]]
    priority: int = 50
    description: str = ""


_DIALECTS: dict[str, Dialect] = {}


def register_dialect(dialect: Dialect) -> Dialect:
    """Make a dialect known to `load_suite` (detection follows `priority`)."""
    _DIALECTS[dialect.name] = dialect
    return dialect


def dialects() -> list[Dialect]:
    """Return the known dialects in detection order."""
    return sorted(_DIALECTS.values(), key=lambda d: (d.priority, d.name))


def check_keys(
    node: Mapping[str, Any], allowed: Iterable[str], ctx: SpecContext, path: str, what: str
) -> None:
    """Report every key of `node` that is not in `allowed`, with a "did you mean" hint."""
    allowed = list(allowed)
    for key in node:
        if key not in allowed:
            ctx.problem(
                node,
                join_path(path, str(key)),
                f"unknown key {key!r} in {what}",
                key=key,
                hint=did_you_mean(str(key), allowed) or f"valid keys: {', '.join(allowed)}",
            )


def mapping_node(
    node: Any,
    ctx: SpecContext,
    path: str,
    what: str,
    *,
    expected: str,
    keys: Iterable[str] | None = None,
) -> Mapping[str, Any] | None:
    """Return `node` if it is a mapping (reporting keys not in `keys`), else report it and None."""
    if not isinstance(node, Mapping):
        ctx.problem(node, path, f"{what} must be a mapping", expected=expected, found=node)
        return None
    if keys is not None:
        check_keys(node, keys, ctx, path, what)
    return node


def optional_bool(node: Mapping[str, Any], key: str, ctx: SpecContext, path: str) -> bool | None:
    """Return `node[key]` if it is true or false, None if absent; report any other value."""
    value = node.get(key)
    if value is None or isinstance(value, bool):
        return value
    ctx.problem(node, join_path(path, key), f"{key!r} must be true or false", key=key, found=value)
    return None


def require_str(
    node: Mapping[str, Any], key: str, ctx: SpecContext, path: str, *, required: bool = True
) -> str | None:
    """Return `node[key]` if it is a non-empty string; report a problem otherwise."""
    if key not in node:
        if required:
            ctx.problem(
                node,
                path,
                f"missing {key!r}",
                expected="a non-empty string",
                hint=f"add '{key}: ...'",
            )
        return None
    value = node[key]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        ctx.problem(
            node,
            join_path(path, key),
            f"{key!r} must be a non-empty string",
            key=key,
            expected="a non-empty string",
            found=value,
        )
        return None
    return value


def require_list(
    node: Mapping[str, Any], key: str, ctx: SpecContext, path: str, *, required: bool = True
) -> list[Any] | None:
    """Return `node[key]` if it is a list; report a problem otherwise."""
    if key not in node:
        if required:
            ctx.problem(
                node, path, f"missing {key!r}", expected="a list", hint=f"add '{key}:' with a list"
            )
        return None
    value = node[key]
    if not isinstance(value, list):
        ctx.problem(
            node,
            join_path(path, key),
            f"{key!r} must be a list",
            key=key,
            expected="a list",
            found=value,
        )
        return None
    return value


def build_list(
    items: Sequence[Any],
    ctx: SpecContext,
    path: str,
    *,
    table: Mapping[str, type[Assertion]] | None = None,
    dialect: str = "native",
) -> list[Assertion]:
    """Build each assertion of a list, reporting problems per item and carrying on."""
    out: list[Assertion] = []
    for i, item in enumerate(items):
        built = build(item, ctx, join_path(path, i), table=table, dialect=dialect)
        if built is not None:
            out.append(built)
    return out


def levels(assertion: Assertion) -> set[str]:
    """Return what an assertion needs as its subject: `turn`, `conversation` and/or `json`.

    Combinators take the union of their children, and a group that declares a level of its
    own (expect's `one_of` reads JSON) adds it; selectors need a conversation, whatever their
    child reads.
    """
    own = set() if assertion.level == "any" else {assertion.level}
    if own and not isinstance(assertion, AllOf | AnyOf):
        return own
    out = own
    for child in children_of(assertion):
        out |= levels(child)
    return out


def children_of(assertion: Assertion) -> list[Assertion]:
    """The assertions a combinator or selector holds (none for a leaf)."""
    children: list[Assertion] = []
    for name in ("children", "child", "condition", "then", "otherwise"):
        value = getattr(assertion, name, None)
        if isinstance(value, Assertion):
            children.append(value)
        elif isinstance(value, tuple):
            children.extend(v for v in value if isinstance(v, Assertion))
    return children


def unknown_types(assertions: Iterable[Assertion]) -> Counter[str]:
    """How many assertions of each unknown type (loaded with `unknown_types="skip"`) the trees
    hold."""
    found: Counter[str] = Counter()
    stack = list(assertions)
    while stack:
        assertion = stack.pop()
        if isinstance(assertion, UnknownType):
            found[assertion.type_name] += 1
        stack.extend(children_of(assertion))
    return found


def whole_subject(
    assertions: Sequence[Assertion],
    nodes: Sequence[Any],
    ctx: SpecContext,
    path: str,
    *,
    wrap_turn_checks: bool,
) -> list[Assertion]:
    """Prepare assertions that check a whole conversation.

    Turn-level assertions are wrapped in `OnEveryTurn` when `wrap_turn_checks` is true and
    reported as problems otherwise (they would not know which turn to read). The wrapper takes
    the name and place of the assertion it wraps: a report shows what the file wrote (a
    `not_contains` at `[0]`, checked on every turn), not a check the file never named.
    """
    out: list[Assertion] = []
    for i, assertion in enumerate(assertions):
        needs = levels(assertion)
        if "turn" in needs:
            if wrap_turn_checks and needs == {"turn"}:
                out.append(on_every_turn(assertion))
                continue
            node = nodes[i] if i < len(nodes) else None
            ctx.problem(
                node,
                join_path(path, i),
                f"{assertion.kind!r} "
                + ("checks one turn" if needs == {"turn"} else "holds a check of one turn")
                + ", but this position checks the whole conversation",
                hint="wrap it in on_every_turn, on_last_turn, on_any_turn or on_turn, "
                "or move it under a turn's assertions",
            )
            continue
        out.append(assertion)
    return out


def on_every_turn(assertion: Assertion) -> Assertion:
    """`assertion`, a check of one turn written where the whole conversation is checked, run
    on every turn: an `OnEveryTurn` named and placed as the assertion is (its message too),
    so that no report shows a wrapper the file never wrote."""
    return with_spec(OnEveryTurn(assertion, message=assertion.message), spec_of(assertion))


def table_for(dialect: str) -> Mapping[str, type[Assertion]]:
    """Return the types of a dialect, keyed by their names in that dialect (a live view: a
    name no type registered so far has is looked for among the installed plugins)."""
    return dialect_types(dialect)


def str_list(node: Mapping[str, Any], key: str, ctx: SpecContext, path: str) -> tuple[str, ...]:
    """Return an optional list of strings (one string is accepted), reporting a bad type."""
    value = node.get(key, MISSING)
    if value is MISSING or value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str | int) for v in value):
        return tuple(str(v) for v in value)
    ctx.problem(
        node,
        join_path(path, key),
        f"{key!r} must be a list of strings",
        key=key,
        expected="a list of strings",
        found=value,
    )
    return ()


def flat_turns(
    turn_nodes: Sequence[Any],
    ctx: SpecContext,
    path: str,
    *,
    table: Mapping[str, type[Assertion]] | None,
    dialect: str,
    input_keys: Sequence[str] = ("user_input",),
    extra_keys: Sequence[str] = (),
    one_turn: bool = False,
) -> list[TurnSpec]:
    """Translate `turns: [{user_input, assertions}]` (flat and native share this shape).

    With `one_turn` (flat), an assertion that checks the whole conversation is a problem: a
    turn's assertions check that turn alone.
    """
    out: list[TurnSpec] = []
    for i, node in enumerate(turn_nodes):
        turn_path = join_path(path, i)
        node = mapping_node(
            node,
            ctx,
            turn_path,
            "a turn",
            expected=f"a mapping with {input_keys[0]!r} and 'assertions'",
            keys=[*input_keys, "assertions", *extra_keys],
        )
        if node is None:
            continue
        text = None
        given = [key for key in input_keys if key in node]
        if len(given) > 1:
            ctx.problem(
                node,
                join_path(turn_path, given[1]),
                f"{given[0]!r} and {given[1]!r} are two spellings of the turn's input",
                key=given[1],
                hint="give only one",
            )
        for key in given[:1]:
            text = require_str(node, key, ctx, turn_path)
        items = require_list(node, "assertions", ctx, turn_path, required=False) or []
        items_path = join_path(turn_path, "assertions")
        built: list[Assertion] = []
        for k, item in enumerate(items):
            at = join_path(items_path, k)
            assertion = build(item, ctx, at, table=table, dialect=dialect)
            if assertion is not None and (not one_turn or _of_one_turn(assertion, item, ctx, at)):
                built.append(assertion)
        out.append(TurnSpec(tuple(built), input=text, source=turn_path))
    return out


def _of_one_turn(assertion: Assertion, node: Any, ctx: SpecContext, path: str) -> bool:
    """Whether `assertion`, written in a flat turn's assertions, checks one turn; a check of
    the whole conversation (a check of one's own, of level `conversation`) is reported."""
    if "conversation" not in levels(assertion):
        return True
    written = node.get("type") if isinstance(node, Mapping) else assertion.kind
    ctx.problem(
        node,
        path,
        f"{written!r} checks the whole conversation, but a flat turn's assertions check one turn",
        key="type",
        hint="check it on the whole conversation: list it in a flat file that is a list of "
        "assertions, or under a native case's 'assertions'",
    )
    return False


def ensure_not_empty(case: Case, node: object, ctx: SpecContext, path: str) -> None:
    """Report a case with no assertions at all: it would pass vacuously (G4)."""
    if not case.assertions():
        ctx.problem(
            node,
            path,
            f"case {case.name!r} has no assertions, so it would pass vacuously",
            hint="add assertions, or remove the case",
        )


_MANIFEST_METADATA_KEYS = ("name", "namespace", "labels", "annotations")


def manifest_metadata(
    doc: Mapping[str, Any], ctx: SpecContext
) -> tuple[str | None, dict[str, Any]]:
    """Read a manifest's `metadata`: its `name`, and `namespace`, `labels` and `annotations`
    as case metadata (PromptKit's `ObjectMeta`; every key is optional)."""
    metadata = doc.get("metadata")
    meta: dict[str, Any] = {}
    if metadata is None:
        return None, meta
    if not isinstance(metadata, Mapping):
        ctx.problem(
            doc,
            "metadata",
            "'metadata' must be a mapping",
            key="metadata",
            expected="a mapping with 'name'",
            found=metadata,
        )
        return None, meta
    check_keys(metadata, _MANIFEST_METADATA_KEYS, ctx, "metadata", "the manifest's metadata")
    name = require_str(metadata, "name", ctx, "metadata", required=False)
    namespace = require_str(metadata, "namespace", ctx, "metadata", required=False)
    if namespace is not None:
        meta["namespace"] = namespace
    for key in ("labels", "annotations"):
        value = _string_map(metadata, key, ctx, "metadata")
        if value:
            meta[key] = value
    return name, meta


def _string_map(
    node: Mapping[str, Any], key: str, ctx: SpecContext, path: str
) -> dict[str, str] | None:
    """An optional mapping of names to scalar values (as strings); a problem otherwise."""
    value = node.get(key)
    if value is None:
        return None
    if isinstance(value, Mapping) and all(
        isinstance(v, str | int | float | bool) for v in value.values()
    ):
        return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}
    ctx.problem(
        node,
        join_path(path, key),
        f"{key!r} must map names to strings",
        key=key,
        expected="a mapping of names to strings",
        found=value,
    )
    return None


_MANIFEST_KEYS = ("$schema", "apiVersion", "kind", "metadata", "spec")


def read_manifest(
    doc: Mapping[str, Any], ctx: SpecContext, *, api_version: str, what: str, spec_expected: str
) -> tuple[str | None, dict[str, Any], Mapping[str, Any] | None]:
    """Read what every PromptKit manifest has (`$schema`, `apiVersion`, `kind`, `metadata`,
    `spec`): its name, its metadata, and its `spec` mapping (None, reported, when missing)."""
    article = "an" if what[0] in "AEIOU" else "a"
    check_keys(doc, _MANIFEST_KEYS, ctx, "", f"{article} {what} manifest")
    if doc.get("apiVersion") != api_version:
        ctx.problem(
            doc,
            "apiVersion",
            "unsupported apiVersion",
            key="apiVersion",
            expected=api_version,
            found=doc.get("apiVersion", MISSING),
            hint=f"set 'apiVersion: {api_version}'",
        )
    name, meta = manifest_metadata(doc, ctx)
    spec = doc.get("spec")
    if isinstance(spec, Mapping):
        return name, meta, spec
    ctx.problem(
        doc,
        "spec",
        f"{article} {what} needs a 'spec' mapping",
        key="spec",
        expected=spec_expected,
        found=spec if "spec" in doc else MISSING,
    )
    return name, meta, None


NOT_USED_OFFLINE = "not_used_offline"
"""The `Case.metadata` key under which a loader keeps the keys of a file that only configure a
live run (providers, personas, temperatures, setup steps): `{spec path: value}`. They are
accepted and kept, shown by `chatassert lint --verbose`, and never checked."""


def plain(value: Any) -> Any:
    """A parsed spec value as plain dicts and lists (no line bookkeeping), for metadata."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def keep_not_used(
    node: Mapping[str, Any], keys: Iterable[str], path: str, kept: dict[str, Any]
) -> None:
    """Copy each of `keys` present in `node` into `kept` as `{spec path: plain value}`.

    Example:
        >>> kept: dict[str, Any] = {}
        >>> keep_not_used({"seed": 7, "content": "Hi"}, ("seed", "persona"), "spec.turns[0]", kept)
        >>> kept
        {'spec.turns[0].seed': 7}
    """
    for key in keys:
        if key in node:
            kept[join_path(path, key)] = plain(node[key])


IGNORED_PARAMS = "ignored_params"
"""Where the parameters a PromptKit file gives that PromptKit ignores are noted (loaded with
`unknown_params="ignore"`): in the details of every result of the check they were given to,
as `{parameter: value}`; in `Case.metadata`, as the list of them, each `{param, type, path,
line}` and a `hint` when a parameter the type takes is close (what `chatassert lint` warns
about). Their values are also kept under `not_used_offline`, by spec path."""


def keep_ignored(
    ignored: Sequence[IgnoredParam], kept: dict[str, Any], metadata: dict[str, Any]
) -> None:
    """Keep the parameters set aside while a case was built: each value in `kept` under its
    spec path (the case's `not_used_offline`), and the list of them in `metadata` under
    `ignored_params`."""
    if not ignored:
        return
    for item in ignored:
        kept[item.path] = item.value
    metadata[IGNORED_PARAMS] = [
        {"param": i.param, "type": i.type_name, "path": i.path, "line": i.line}
        | ({"hint": i.hint} if i.hint else {})
        for i in ignored
    ]
