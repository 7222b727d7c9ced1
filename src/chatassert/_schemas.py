"""JSON Schemas of the spec files each dialect reads, for editors (yaml-language-server).

Each schema is built from the assertion registry (the parameters of every type, as
`chatassert schema spec` does) and from the key lists of the dialect loaders, so a key the
loader accepts validates, and a key it refuses as unknown fails (`additionalProperties:
false`). They are written for the messages an editor shows: a type name is an `enum` (a
misspelt one is refused with the list of known names), each type's parameters apply by an
`if`/`then` on its name (a mistake is reported in that type's terms, not as "not valid under
any of the given schemas"), and a file's shape is told apart by the key the loader tells it
apart by. The schemas are written in draft-07, the draft yaml-language-server reads. The
package ships them, generated, under `chatassert/schemas/<dialect>.schema.json`
(`schema_file`); `chatassert init` copies them into a repository and points spec files at
the copies.

Example:
    >>> schema = dialect_schema("flat")
    >>> schema["$schema"], "flat_contains" in schema["definitions"]
    ('http://json-schema.org/draft-07/schema#', True)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from chatassert._params import VALUE_TYPES, builtin, declared_names, normalise_type

__all__ = [
    "DIALECTS",
    "DRAFT_07",
    "dialect_schema",
    "native_schema",
    "own_checks",
    "render",
    "schema_file",
]

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DIALECTS = ("flat", "promptkit", "expect", "native")
"""The dialects with a schema of their files."""

_SCHEMAS_DIR = Path(__file__).resolve().parent / "schemas"
_ID = "https://chatassert.dev/schema/"

Schema = dict[str, Any]


_VOCABULARIES = {
    "flat": ("flat",),
    "promptkit": ("promptkit.turn", "promptkit.conversation"),
    "expect": ("expect",),
}


def own_checks(dialect: str) -> list[str]:
    """The names of the checks of one's own that `dialect_schema(dialect)` describes (those
    registered in this process and those of the installed plugins), sorted.

    Raises:
        PluginError: when an installed plugin of checks cannot be loaded.
    """
    defs = _Defs(DRAFT_07)
    if dialect == "native":
        return [kind for kind, cls in defs.kinds().items() if not builtin(cls)]
    found: set[str] = set()
    for vocabulary in _VOCABULARIES[dialect]:
        names = {name: cls for name, cls in defs.names(vocabulary).items() if not builtin(cls)}
        spelt = {normalise_type(name) for name in names if normalise_type(name) != name}
        found.update(name for name in names if name not in spelt)  # as its author wrote it
    return sorted(found)


def schema_file(dialect: str) -> Path:
    """The path of the schema the package ships for `dialect` (`flat`, `promptkit`, ...)."""
    if dialect not in DIALECTS:
        raise ValueError(f"no schema for dialect {dialect!r}; one of {', '.join(DIALECTS)}")
    return _SCHEMAS_DIR / f"{dialect}.schema.json"


def render(schema: Mapping[str, Any]) -> str:
    """The text of a schema as the package ships it (and `chatassert schema` prints it)."""
    return json.dumps(schema, indent=2) + "\n"


def dialect_schema(dialect: str, *, plugins: bool = True) -> Schema:
    """The draft-07 JSON Schema of the files of `dialect`.

    Args:
        dialect: `flat`, `promptkit`, `expect` or `native`.
        plugins: Whether the checks of one's own are in it: those registered in this process
            and those of the installed plugins (loaded first); with False, the built-in
            types only, as the package ships the schema (`schema_file`).

    Raises:
        PluginError: when an installed plugin of checks cannot be loaded (`plugins`).
    """
    builders: dict[str, Callable[[_Defs], Schema]] = {
        "flat": _flat_schema,
        "promptkit": _promptkit_schema,
        "expect": _expect_schema,
        "native": _native_schema,
    }
    if dialect not in builders:
        raise ValueError(f"no schema for dialect {dialect!r}; one of {', '.join(DIALECTS)}")
    return builders[dialect](_Defs(DRAFT_07, plugins=plugins))


# -- shared pieces -------------------------------------------------------------------------


class _Defs:
    """The definitions of one schema and how to refer to them (`$defs` or `definitions`),
    and the types it describes: every one registered (`plugins`), or the built-in ones."""

    def __init__(self, draft: str, *, plugins: bool = True) -> None:
        self.draft = draft
        self.key = "definitions" if draft == DRAFT_07 else "$defs"
        self.table: Schema = {}
        self.plugins = plugins
        if plugins:
            from chatassert.plugins import CHECKS, load_group

            load_group(CHECKS)

    def kinds(self) -> dict[str, type[Any]]:
        """Every native kind described, sorted."""
        from chatassert._params import REGISTRY
        from chatassert._registry import _load_builtins, registered

        if self.plugins:
            return registered()
        _load_builtins()
        return {k: cls for k, cls in sorted(REGISTRY.items()) if builtin(cls)}

    def names(self, vocabulary: str) -> dict[str, type[Any]]:
        """Every name of `vocabulary` described, sorted: each as the loader knows it (in
        snake case), and as a check of one's own declares it when it spells it otherwise
        (`mentions-order`), so that an editor accepts what its author wrote."""
        from chatassert._registry import dialect_types

        out: dict[str, type[Any]] = {}
        for name, cls in dialect_types(vocabulary).items():
            if not self.plugins and not builtin(cls):
                continue
            out[name] = cls
            spelt = declared_names(cls).get(vocabulary, ())
            for spelling in (spelt,) if isinstance(spelt, str) else spelt:
                if spelling != name and normalise_type(spelling) == name:
                    out[spelling] = cls
        return dict(sorted(out.items()))

    def ref(self, name: str) -> Schema:
        return {"$ref": f"#/{self.key}/{name}"}

    def add(self, name: str, schema: Schema) -> Schema:
        self.table[name] = schema
        return self.ref(name)


def _params(cls: type[Any], defs: _Defs) -> tuple[Schema, list[str]]:
    """The properties a type's parameters (and their aliases) take, and the required names
    (a required parameter with other spellings: see `_spellings`)."""
    props: Schema = {}
    required: list[str] = []
    for param in cls.params:
        value_type = VALUE_TYPES[param.value_type]
        schema = dict(value_type.schema(param.allow_empty, defs.ref("assertion")))
        if param.choices:
            schema = {"enum": list(param.choices)}
        if param.doc:
            schema["description"] = param.doc
        if param.has_default:
            try:
                json.dumps(param.default)
                schema["default"] = param.default
            except TypeError:
                pass
        for name in (param.name, *param.aliases):
            props[name] = schema
        if param.required and not param.aliases:
            required.append(param.name)
    return props, required


def _spellings(cls: type[Any]) -> Schema:
    """`{allOf: [...]}`: each required parameter that has other spellings given in one of
    them (the empty mapping when there is none)."""
    alternatives = [
        {"anyOf": [{"required": [name]} for name in (param.name, *param.aliases)]}
        for param in cls.params
        if param.required and param.aliases
    ]
    return {"allOf": alternatives} if alternatives else {}


def _title(cls: type[Any]) -> str:
    """The first line of a type's docstring; a check of one's own says where it is from."""
    title = (cls.__doc__ or "").strip().splitlines()[0]
    return title if builtin(cls) else f"{title} ({cls.__module__}.{cls.__qualname__})"


def _typed(name: str, cls: type[Any], defs: _Defs) -> Schema:
    """`{type: <name>, <params>..., message?, description?}`: one type of a dialect."""
    props: Schema = {
        "type": {"const": name},
        "message": {"type": "string", "description": "a label"},
        "description": {"type": "string"},
    }
    params, required = _params(cls, defs)
    props.update(params)
    return {
        "title": name,
        "description": _title(cls),
        "type": "object",
        "properties": props,
        "required": ["type", *required],
        "additionalProperties": False,
        **_spellings(cls),
    }


def _by_type(types: Mapping[str, Sequence[Schema]], what: str) -> Schema:
    """An item of a dialect (`what`: "a native assertion"): an object whose `type` is one of
    `types`, checked against the schema of that type alone.

    The type names are an `enum`, so a misspelt one gets one message listing the known names
    (an editor shows "Value is not accepted. Valid values: ..."), rather than the
    "not valid under any of the given schemas" of a `oneOf` whose every branch failed; each
    type's own schema is then applied by an `if`/`then` on its name, so only the branch of
    the type written reports, and says which parameter is wrong.
    """
    return {
        "description": f"{what}: {{type: NAME, ...}}, NAME one of the known types",
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": list(types)}},
        "allOf": [
            {
                "if": {"properties": {"type": {"const": name}}, "required": ["type"]},
                "then": schemas[0] if len(schemas) == 1 else {"anyOf": list(schemas)},
            }
            for name, schemas in types.items()
        ],
    }


def _first_of(*branches: tuple[Schema | None, Schema]) -> Schema:
    """The schema of the first branch whose condition the document meets (the last one's
    condition is None: otherwise), as nested `if`/`then`/`else`.

    A file is one of several shapes, told apart by a key the loader tells them apart by; an
    `anyOf` of the shapes would report, for a file with one mistake, only that it fits none,
    where this reports the mistake in the shape the file has.
    """
    (condition, schema), *rest = branches
    if condition is None:
        return schema
    return {"if": condition, "then": schema, "else": _first_of(*rest)}


def _has(*keys: str) -> Schema:
    """The condition that a mapping has one of `keys`."""
    if len(keys) == 1:
        return {"type": "object", "required": list(keys)}
    return {"type": "object", "anyOf": [{"required": [key]} for key in keys]}


_ARRAY: Schema = {"type": "array"}


def _native_assertions(defs: _Defs) -> None:
    """`kind_<kind>` for every registered kind, and `assertion`: one of them, by its type."""
    kinds: dict[str, list[Schema]] = {}
    for kind, cls in defs.kinds().items():
        kinds[kind] = [defs.add(f"kind_{kind}", _typed(kind, cls, defs))]
    defs.add("assertion", _by_type(kinds, "a native assertion"))


def _keys(accepted: Iterable[str], types: Mapping[str, Schema], *, strict: bool = True) -> Schema:
    """The properties of a mapping whose keys the loader lists in `accepted`: each typed from
    `types` (any value when the loader does not look at it)."""
    accepted = list(dict.fromkeys(accepted))
    stray = set(types) - set(accepted)
    if stray:  # a typed key the loader refuses: the schema would accept it
        raise AssertionError(f"keys typed but not accepted by the loader: {sorted(stray)}")
    return {
        "type": "object",
        "properties": {key: types.get(key, {}) for key in accepted},
        "additionalProperties": not strict,
    }


_TEXT: Schema = {"type": ["string", "number"]}
"""A value a loader reads with `require_str`: a string, or a number taken as text."""
_OPTIONAL_TEXT: Schema = {"type": ["string", "number", "null"]}
_TAGS: Schema = {
    "oneOf": [
        {"type": "string"},
        {"type": "array", "items": {"type": ["string", "integer"]}},
        {"type": "null"},
    ]
}
_STRINGS: Schema = {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


# -- native --------------------------------------------------------------------------------


def native_schema(draft: str = DRAFT_2020_12, *, plugins: bool = True) -> Schema:
    """The JSON Schema of the native spec format, generated from the registry.

    `draft` is `DRAFT_2020_12` (`chatassert schema spec`) or `DRAFT_07` (for editors);
    `plugins` as `dialect_schema` takes it.
    """
    return _native_schema(_Defs(draft, plugins=plugins))


def _native_schema(defs: _Defs) -> Schema:
    draft = defs.draft
    _native_assertions(defs)
    assertions = {"type": "array", "items": defs.ref("assertion")}
    defs.table["turn"] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "input": {"type": "string"},
            "user_input": {"type": "string"},  # the flat spelling, also accepted
            "assertions": assertions,
        },
        "not": {"required": ["input", "user_input"]},
    }
    defs.table["case"] = {  # a case without a name is named after its place in the file
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "id": {"type": ["string", "integer"]},
            "turns": {"type": "array", "items": defs.ref("turn")},
            "assertions": assertions,
            "tags": {"type": "array", "items": {"type": "string"}},
            "description": {"type": "string"},
            "fail_fast": {"type": "boolean"},
        },
    }
    return {
        "$schema": draft,
        "$id": _ID + ("spec.json" if draft == DRAFT_2020_12 else "native.schema.json"),
        "title": "chatassert native spec",
        "type": "object",
        "required": ["chatassert"],
        "additionalProperties": False,
        "properties": {
            "chatassert": {"const": 1},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "plugins": {  # modules of the suite's own checks (docs/plugins.md)
                "type": "array",
                "items": {"type": "string", "minLength": 1},
            },
            "cases": {"type": "array", "items": defs.ref("case")},
            "assertions": assertions,
            "fail_fast": {"type": "boolean"},
            "gates": {"type": "array", "items": defs.add("gate", _gate_schema())},
        },
        defs.key: defs.table,
    }


def _gate_schema() -> Schema:
    """A suite-level gate (`chatassert._gates`): one test, `pass_rate` or `max_drop`, of an
    assertion named beside the test or inside it (not both), or of the suite's cases."""
    share = {"type": "number", "minimum": 0, "maximum": 1}
    name = {"type": "string", "minLength": 1}
    tests: dict[str, Schema] = {
        "pass_rate": {
            "type": "object",
            "additionalProperties": False,
            "required": ["min"],
            "properties": {
                "min": share,
                "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "assertion": name,
            },
        },
        "max_drop": {
            "type": "object",
            "additionalProperties": False,
            "required": ["by"],
            "properties": {"by": share, "assertion": name},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {"assertion": name, **tests},
        "oneOf": [{"required": [kind]} for kind in tests],
        "if": {"required": ["assertion"]},  # named once: beside the test, or inside it
        "then": {"properties": {k: {"not": {"required": ["assertion"]}} for k in tests}},
        "description": "what a whole run must reach: pass_rate {min, confidence} or max_drop "
        "{by} of an assertion (its message, else its type) or of the suite's cases",
    }


# -- flat ----------------------------------------------------------------------------------


def _dialect_definitions(dialect: str, prefix: str, defs: _Defs) -> dict[str, list[Schema]]:
    """A definition per type name of `dialect` (`<prefix>_<name>`); the references to them
    by type name."""
    return {
        name: [defs.add(f"{prefix}_{name}", _typed(name, cls, defs))]
        for name, cls in defs.names(dialect).items()
    }


def _flat_schema(defs: _Defs) -> Schema:
    from chatassert.specs import _flat

    _native_assertions(defs)  # what a combinator's `assertion(s)` parameter holds
    types = _dialect_definitions("flat", "flat", defs)
    item = defs.add("flat_assertion", _by_type(types, "a flat assertion"))
    items = {"type": "array", "items": item}
    turn = _keys(
        ["user_input", "assertions", *_flat._TURN_KEYS],
        {"user_input": _TEXT, "assertions": items, "expected_agent": _OPTIONAL_TEXT},
    )
    defs.add("turn", turn)
    case_types: Schema = {
        "name": _TEXT,
        "turns": {"type": "array", "items": defs.ref("turn")},
        "tags": _TAGS,
        "test_type": _OPTIONAL_TEXT,
        "test_data": {"type": ["object", "null"]},
        "start_agent": _OPTIONAL_TEXT,
        "max_turns": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
    }
    file_types: Schema = {
        "test_cases": {"type": "array", "items": defs.ref("case"), "minItems": 1},
        "description": _OPTIONAL_TEXT,
        "agent_id": _OPTIONAL_TEXT,
        "sub_agent_id": _OPTIONAL_TEXT,
        "default_test_data": {"type": ["object", "null"]},
    }
    defs.add("case", {**_keys(_flat._CASE_KEYS, case_types), "required": ["turns"]})
    suite = {
        **_keys(_flat._FILE_KEYS, file_types),
        "title": "a flat suite (eval-generator's test file)",
        "required": ["test_cases"],
    }
    document_types = {**file_types, **case_types}
    del document_types["test_cases"]
    document = {
        **_keys([*_flat._CASE_KEYS, *_flat._FILE_KEYS[1:]], document_types),
        "title": "a flat test file: one case",
        "required": ["turns"],
    }
    return {
        "$schema": DRAFT_07,
        "$id": _ID + "flat.schema.json",
        "title": "chatassert flat spec",
        "description": "A flat test file: `turns`, `test_cases` (eval-generator's test files), "
        "one assertion, or a list of assertions.",
        **_first_of(
            (_ARRAY, {"type": "array", "items": item, "minItems": 1}),
            (_has("type"), item),
            (_has("test_cases"), defs.add("suite", suite)),
            (None, defs.add("document", document)),
        ),
        "definitions": defs.table,
    }


# -- promptkit -----------------------------------------------------------------------------


def _item(name: str, cls: type[Any], defs: _Defs) -> Schema:
    """A PromptKit item `{type, params: {...}, message?, description?}`."""
    params, required = _params(cls, defs)
    params = {
        **params,
        "message": {"type": "string", "description": "a label"},
        "description": {"type": "string"},
    }
    return {
        "title": name,
        "description": _title(cls),
        "type": "object",
        "properties": {
            "type": {"const": name},
            "params": {
                "type": "object" if required or _spellings(cls) else ["object", "null"],
                "properties": params,
                "required": required,
                "additionalProperties": False,
                **_spellings(cls),
            },
            "message": {"type": "string", "description": "a label"},
            "description": {"type": "string"},
        },
        "required": ["type", "params"] if required or _spellings(cls) else ["type"],
        "additionalProperties": False,
    }


def _items(level: str, defs: _Defs) -> dict[str, list[Schema]]:
    """`<level>_<name>` for every PromptKit type of `level` (turn, conversation), and
    `<level>_assertion`: one of them, by its type; the references to them by type name."""
    types = {
        name: [defs.add(f"{level}_{name}", _item(name, cls, defs))]
        for name, cls in defs.names(f"promptkit.{level}").items()
    }
    defs.add(f"{level}_assertion", _by_type(types, f"a PromptKit {level} assertion"))
    return types


def _manifest(kind: str, spec: Schema, defs: _Defs) -> Schema:
    from chatassert.specs import _common, _promptkit

    metadata = _keys(
        _common._MANIFEST_METADATA_KEYS,
        {
            "name": _TEXT,
            "namespace": _TEXT,
            "labels": {"type": "object", "additionalProperties": {"type": _SCALAR}},
            "annotations": {"type": "object", "additionalProperties": {"type": _SCALAR}},
        },
    )
    return {
        **_keys(
            _common._MANIFEST_KEYS,
            {
                "$schema": {"type": "string"},
                "apiVersion": {"const": _promptkit.API_VERSION},
                "kind": {"const": kind},
                "metadata": metadata,
                "spec": spec,
            },
        ),
        "title": f"a PromptKit {kind}",
        "required": ["apiVersion", "kind", "spec"],
    }


_SCALAR = ["string", "number", "boolean"]


def _promptkit_schema(defs: _Defs) -> Schema:
    from chatassert.specs import _promptkit, _promptkit_eval

    _native_assertions(defs)  # what a combinator's `assertion(s)` parameter holds
    turn_types = _items("turn", defs)
    conversation_types = _items("conversation", defs)
    turn_item, conversation_item = defs.ref("turn_assertion"), defs.ref("conversation_assertion")
    either: dict[str, list[Schema]] = {}  # a bare list holds items of both levels
    for name, refs in [*turn_types.items(), *conversation_types.items()]:
        either.setdefault(name, []).extend(refs)
    any_item = defs.add(
        "any_assertion", _by_type(dict(sorted(either.items())), "a PromptKit assertion")
    )
    turn_items = {"type": "array", "items": turn_item}
    conversation_items = {"type": "array", "items": conversation_item}
    part = _keys(
        _promptkit._PART_KEYS,
        {"type": {"type": "string", "minLength": 1}, "text": {"type": "string"}},
    )
    turn = _keys(
        [*_promptkit._TURN_USED, *_promptkit._TURN_KEPT],
        {
            "role": {"type": "string", "minLength": 1},
            "content": _TEXT,
            "parts": {"type": "array", "items": {**part, "required": ["type"]}},
            "assertions": turn_items,
            "turns": {"type": "integer", "minimum": 0, "maximum": _promptkit._MAX_SELFPLAY},
        },
    )
    step = _keys(
        _promptkit._STEP_KEYS,
        {"type": {"const": "input"}, "content": _TEXT, "assertions": turn_items},
    )
    limit = {"type": ["integer", "null"], "minimum": 0}
    tool_policy = _keys(
        _promptkit._TOOL_POLICY_KEYS,
        {
            "tool_choice": {"type": ["string", "null"]},
            "blocklist": _TAGS,
            "max_tool_calls_per_turn": limit,
            "max_total_tool_calls": limit,
        },
    )
    scenario_spec = _keys(
        [*_promptkit._SPEC_USED, *_promptkit._SPEC_KEPT],
        {
            "turns": {"type": "array", "items": defs.add("turn", turn)},
            "steps": {
                "type": "array",
                "items": defs.add("step", {**step, "required": ["content"]}),
            },
            "pack": {"type": ["string", "null"], "minLength": 1},
            "conversation_assertions": conversation_items,
            "context": {"type": ["object", "null"]},
            "context_metadata": {
                "oneOf": [
                    _keys(_promptkit._CONTEXT_METADATA_KEYS, {}),
                    {"type": "null"},
                ]
            },
            "tool_policy": {"oneOf": [tool_policy, {"type": "null"}]},
            "workflow": {
                "oneOf": [
                    {"type": "string", "minLength": 1},
                    defs.ref("workflow_section"),
                    {"type": "null"},
                ]
            },
            "fail_fast": {"type": "boolean"},
            "tags": _TAGS,
        },
    )
    scenario_spec["not"] = {"required": ["turns", "steps"]}
    all_turns = _keys(
        ["all_turns"], {"all_turns": _keys(["assertions"], {"assertions": turn_items})}
    )
    eval_spec = _keys(
        _promptkit_eval._SPEC_KEYS,
        {
            "description": _TEXT,
            "recording": {
                **_keys(
                    ["path", "type"],
                    {
                        "path": {"type": ["string", "number"], "minLength": 1},
                        "type": {"enum": [*_promptkit_eval.RECORDING_TYPES, None]},
                    },
                ),
                "required": ["path"],
            },
            "turns": {"type": "array", "items": {**all_turns, "required": ["all_turns"]}},
            "conversation_assertions": conversation_items,
            "tags": _TAGS,
            "mode": {"enum": [*_promptkit_eval._MODES, None]},
            "speed": {"oneOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
        },
    )
    eval_spec["required"] = ["recording"]
    state = {
        "type": ["object", "null"],
        "properties": {
            "on_event": {"type": ["object", "null"], "additionalProperties": {"type": "string"}}
        },
    }
    defs.add(
        "workflow_section",
        {
            "title": "a workflow: {entry, states}",
            "type": "object",
            "properties": {
                "entry": {"type": "string"},
                "states": {"type": "object", "additionalProperties": state},
                "tool": {"type": "string"},
            },
            "required": ["entry", "states"],
        },
    )
    workflow_file = {
        "title": "a PromptPack (or a file of its workflow section)",
        "type": "object",
        "properties": {"workflow": defs.ref("workflow_section")},
        "required": ["workflow"],
        "not": {"anyOf": [{"required": ["apiVersion"]}, {"required": ["kind"]}]},
    }
    return {
        "$schema": DRAFT_07,
        "$id": _ID + "promptkit.schema.json",
        "title": "chatassert promptkit spec",
        "description": "A PromptKit Scenario or Eval manifest, a list of {type, params} items, "
        "or a workflow file (a pack, or its workflow section) that a Scenario names.",
        **_first_of(
            (_ARRAY, {"type": "array", "minItems": 1, "items": any_item}),
            (
                _has("apiVersion", "kind"),
                {
                    "properties": {"kind": {"enum": ["Scenario", "Eval"]}},
                    **_first_of(
                        (
                            {"properties": {"kind": {"const": "Eval"}}, "required": ["kind"]},
                            defs.add("eval", _manifest("Eval", eval_spec, defs)),
                        ),
                        (None, defs.add("scenario", _manifest("Scenario", scenario_spec, defs))),
                    ),
                },
            ),
            (None, {"anyOf": [workflow_file, defs.ref("workflow_section")]}),
        ),
        "definitions": defs.table,
    }


# -- expect --------------------------------------------------------------------------------


def _expect_value(key: str, cls: type[Any], defs: _Defs) -> Schema:
    """The schema of the value of one expect key, as the loader reads it (`expect_form`)."""
    from chatassert._results import IfSensitiveResults, OneOf

    expect = defs.ref("expect")
    if cls is OneOf:
        return {"type": "array", "items": expect, "minItems": 1, "description": _title(cls)}
    params, required = _params(cls, defs)
    fields = {
        "type": "object",
        "properties": {
            **params,
            "message": {"type": "string", "description": "a label"},
            "description": {"type": "string"},
        },
        "required": required,
        "additionalProperties": False,
        **_spellings(cls),
    }
    if not builtin(cls) and not hasattr(cls, "expect_form"):  # a check of one's own
        return {**_own_value(cls, params, fields), "description": _title(cls)}
    form = getattr(cls, "expect_form", "value")
    if cls is IfSensitiveResults:
        has_field = _keys(
            ["has_field", "value", "message"],
            {"has_field": params["has_field"], "message": {"type": "string"}},
        )
        chosen: Schema = {"anyOf": [{**has_field, "required": ["has_field"]}, expect]}
    elif form == "expect":
        chosen = expect
    elif form == "fields":
        chosen = fields
    elif form == "text":
        chosen = {"anyOf": [params["value"], fields]}
    elif form == "field_equals":
        chosen = {"type": "object", "minProperties": 1}
    else:
        chosen = dict(params["value"])
    return {**chosen, "description": _title(cls)} if "$ref" not in chosen else chosen


def _own_value(cls: type[Any], params: Schema, fields: Schema) -> Schema:
    """The value of an expect key naming a check of one's own, as `_expect.own_form` says."""
    from chatassert.specs._expect import own_form

    form = own_form(cls)
    if form == "one":
        return {"anyOf": [params[cls.params[0].name], fields]}
    if form == "none":
        return {"anyOf": [{"enum": [True, None]}, fields]}
    return fields


def _expect_schema(defs: _Defs) -> Schema:
    from chatassert.specs import _expect

    _native_assertions(defs)
    table = defs.names("expect")  # other spellings too (`has_field`): names of their checks
    defs.add(
        "expect",
        {
            "title": "an expect object: each key one check of the response",
            "type": "object",
            "minProperties": 1,
            "properties": {
                key: _expect_value(key, cls, defs) for key, cls in sorted(table.items())
            },
            # each key is a check's name: a misspelt one is refused naming the known ones
            "propertyNames": {"enum": sorted(table)},
        },
    )
    step = _keys(
        _expect._STEP_KEYS,
        {
            "step": {"type": "integer", "minimum": 1},
            "expect": defs.ref("expect"),
            "store": {"type": "string", "minLength": 1, "pattern": r"\S"},
        },
    )
    case = {
        **_keys(
            _expect._CASE_KEYS,
            {
                "expect": defs.ref("expect"),
                "tags": _TAGS,
                "skip_if": {"type": "string", "minLength": 1, "pattern": r"\S"},
                "multi_step": {"type": "array", "items": step, "minItems": 1},
            },
        ),
        "title": "a test case: {id, name, input, expect}",
        "oneOf": [{"required": ["expect"]}, {"required": ["multi_step"]}],
    }
    defs.add("case", case)
    suite = {
        **_keys(
            _expect._SUITE_KEYS,
            {
                "tags": _TAGS,
                "tests": {"type": "array", "items": defs.ref("case"), "minItems": 1},
            },
        ),
        "title": "a test suite",
        "required": ["tests"],
    }
    defs.add("suite", suite)
    top = {
        **_keys(
            _expect._TOP_KEYS,
            {
                "$schema": {"type": "string"},
                "test_suites": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": defs.ref("suite"),
                },
            },
        ),
        "title": "a suite file: {test_suites: {<name>: suite}}",
        "required": ["test_suites"],
    }
    return {
        "$schema": DRAFT_07,
        "$id": _ID + "expect.schema.json",
        "title": "chatassert expect spec",
        "description": "An expect suite file (test_suites), one suite (tests), a list of test "
        "cases, one test case, or one expect object.",
        **_first_of(
            (_ARRAY, {"type": "array", "items": defs.ref("case"), "minItems": 1}),
            (_has("test_suites"), defs.add("suite_file", top)),
            (_has("tests"), defs.ref("suite")),
            (_has(*[key for key in _expect._CASE_KEYS if key not in table]), defs.ref("case")),
            (None, defs.ref("expect")),
        ),
        "definitions": defs.table,
    }
