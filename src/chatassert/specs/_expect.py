"""The expect dialect (`004_*.txt`): `expect` objects checked against a structured JSON response.

Accepted documents:

- one bare expect object: `{"status": "success", "results_max": 5, ...}` (one case);
- a list of test cases `[{id, name, input, expect}, ...]`;
- one suite `{name, priority, tests: [...]}`, or the suite form
  `{test_suites: {<name>: {name, priority, tests: [...]}}}` of the jarvis test files (with
  `$schema`, `agent`, `version`, `description` and `metadata` beside it).

A test is `{id, name, description, input, expect}`, and may say `skip_if` (a condition: kept in
`Case.metadata["skip_if"]`, and the case skipped when it is assumed, see `Suite.assuming`),
`setup` and `cleanup` (live-run steps: kept, not used offline), or `multi_step` instead of
`expect`: a list of `{step, input, expect, store}` checked in order, each against its own
response (`StepSpec`); `store: NAME` keeps a step's response for a later step's
`no_overlap: {path, with: NAME}`.

One expect object is an AND of its keys: each key becomes one check of the case (reported as
its own result). `one_of` takes a list of expect objects (each an AND of its keys);
`if_results`, `if_has_history` and `if_sensitive_results` take one. Unknown keys are spec errors
with "did you mean"; keys that need data a JSON response cannot give (tool calls, a judge,
timings) are rejected with an explanation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chatassert._base import AllOf, Assertion
from chatassert._params import REGISTRY, builtin, did_you_mean, normalise_type
from chatassert._registry import SpecContext, build_typed, join_path, line_of
from chatassert._responses import NoOverlap
from chatassert._results import IfSensitiveResults, OneOf
from chatassert._suite import Case, StepSpec
from chatassert.specs._common import (
    NOT_USED_OFFLINE,
    Dialect,
    check_keys,
    children_of,
    keep_not_used,
    mapping_node,
    plain,
    register_dialect,
    str_list,
    table_for,
)
from chatassert.specs._yaml import LocatedDict

__all__ = ["EXPECT", "UNSUPPORTED", "expect_keys", "own_form", "translate_expect"]

_TOOLS = (
    "needs the agent's tool calls, which a JSON response does not carry; check the "
    "conversation with the flat or promptkit vocabulary instead"
)
_JUDGE = (
    "needs a judge reading the response text; use llm_rubric in the flat vocabulary "
    "(or llm_judge in promptkit)"
)
_TIMING = (
    "needs timing or usage data, which a JSON response does not carry; if the response "
    "reports it as a field, use range_check on that field (for example "
    "{path: performance.search_duration_ms, max: 5000})"
)
_CONVERSATION = (
    "needs a conversation, but an expect case checks one JSON response; use the "
    "flat, promptkit or native vocabulary"
)

UNSUPPORTED: dict[str, str] = {
    "tools_called": _TOOLS,
    "tools_not_called": _TOOLS,
    "tool_calls": _TOOLS,
    "tool_called": _TOOLS,
    "contains_function_call": _TOOLS,
    "function_call": _TOOLS,
    "llm_rubric": _JUDGE,
    "rubric": _JUDGE,
    "llm_judge": _JUDGE,
    "latency_ms": _TIMING,
    "max_latency_ms": _TIMING,
    "response_time": _TIMING,
    "response_time_ms": _TIMING,
    "max_duration_ms": _TIMING,
    "max_tokens": _TIMING,
    "max_cost": _TIMING,
    "turns": _CONVERSATION,
    "conversation": _CONVERSATION,
}
"""Keys that look like expect keys but need data a JSON response cannot give, and why."""

_CASE_KEYS = (
    "id",
    "name",
    "description",
    "input",
    "expect",
    "tags",
    "priority",
    "category",
    "notes",
    "skip_if",
    "setup",
    "cleanup",
    "multi_step",
)
_LIVE_RUN_KEYS = ("setup", "cleanup")
"""Keys of a test that only configure a live run (kept, not used offline)."""
_STEP_KEYS = ("step", "input", "expect", "store")
_SUITE_KEYS = ("name", "description", "priority", "tags", "tests")
_TOP_KEYS = ("$schema", "agent", "test_suites", "name", "description", "version", "metadata")
_OTHER_DIALECTS = (
    "type",
    "turns",
    "test_cases",
    "chatassert",
    "apiVersion",
    "spec",
    "kind",
    "assertions",
)


def expect_keys() -> Mapping[str, type[Assertion]]:
    """Return every expect key and the class it builds, other spellings included (`has_field`
    is `HasFields`'s, beside `has_fields`): a live view, in which a key no type registered so
    far has is looked for among the installed plugins."""
    return table_for("expect")


# -- detection -----------------------------------------------------------------------------

_FLAT_KEYS = frozenset({"name", "description", "tags", "turns", "id", "type", "value"})
"""Keys of a flat test file, the fallback dialect: a mapping with one of them is not expect."""


def _is_case_list(doc: Any) -> bool:
    # a list of test cases: some item has 'expect' or 'multi_step' (the others are reported
    # as incomplete)
    return (
        isinstance(doc, list)
        and bool(doc)
        and all(isinstance(item, Mapping) for item in doc)
        and any("expect" in item or "multi_step" in item for item in doc)
        and not any("type" in item for item in doc)
    )


def detect(doc: Any) -> bool:
    """Whether `doc` is an expect document (cases with `expect`, suites, or one expect object)."""
    if _is_case_list(doc):
        return True
    if not isinstance(doc, Mapping) or not doc:
        return False
    if "test_suites" in doc:
        return True
    if any(key in doc for key in _OTHER_DIALECTS):
        return False
    if (
        "expect" in doc
        or "multi_step" in doc
        or ("tests" in doc and _is_case_list(doc.get("tests")))
    ):
        return True
    names = expect_keys()
    keys = [normalise_type(k) for k in doc if isinstance(k, str)]
    if any(key in names or key in UNSUPPORTED for key in keys):
        return True
    # an expect object whose keys are all misspelt ({statsu: success}): expect's errors,
    # with "did you mean", help more than the flat dialect's "missing 'turns'"
    known = [*names, *UNSUPPORTED]
    return (
        bool(keys)
        and not any(key in _FLAT_KEYS for key in keys)
        and all(did_you_mean(key, known) for key in keys)
    )


# -- translation ---------------------------------------------------------------------------


def translate(doc: Any, ctx: SpecContext) -> list[Case]:
    """Translate an expect document into cases whose subject is a JSON response."""
    if isinstance(doc, list):
        return _tests(doc, ctx, "", {})
    if not isinstance(doc, Mapping):
        ctx.problem(
            doc,
            "",
            "an expect spec must be a mapping or a list of test cases",
            expected="an expect object, a list of {id, input, expect}, or {test_suites: ...}",
            found=doc,
        )
        return []
    if "test_suites" in doc:
        check_keys(doc, _TOP_KEYS, ctx, "", "an expect suite file")
        top: dict[str, Any] = {}
        if isinstance(doc.get("agent"), str):
            top["agent"] = doc["agent"]
        suites = doc["test_suites"]
        if not isinstance(suites, Mapping) or not suites:
            ctx.problem(
                doc,
                "test_suites",
                "'test_suites' must be a non-empty mapping of suite name to suite",
                key="test_suites",
                expected="a mapping",
                found=suites,
            )
            return []
        cases: list[Case] = []
        for key, suite in suites.items():
            cases += _suite(suite, ctx, join_path("test_suites", str(key)), str(key), top)
        return cases
    if "tests" in doc:
        return _suite(doc, ctx, "", None)
    if "expect" in doc or "multi_step" in doc:
        case = _case(doc, ctx, "", {}, default_name=_stem(ctx))
        return [case] if case is not None else []
    checks = translate_expect(doc, ctx, "")
    _check_stored_names(checks, doc, ctx, "", available=None)
    if not checks and not ctx.problems:
        ctx.problem(doc, "", "the expect object is empty, so it would pass vacuously")
    return [Case(name=_stem(ctx), checks=tuple(checks), subject="json", source=ctx.file or "")]


def _suite(
    node: Any,
    ctx: SpecContext,
    path: str,
    key: str | None,
    top: Mapping[str, Any] | None = None,
) -> list[Case]:
    node = mapping_node(
        node, ctx, path, "a test suite", expected="a mapping with 'tests'", keys=_SUITE_KEYS
    )
    if node is None:
        return []
    name = node.get("name") if isinstance(node.get("name"), str) else key
    metadata: dict[str, Any] = dict(top or {})
    if name is not None:
        metadata["suite"] = name
    if "priority" in node:
        metadata["priority"] = node["priority"]
    tests = node.get("tests")
    if not isinstance(tests, list) or not tests:
        ctx.problem(
            node,
            join_path(path, "tests"),
            "'tests' must be a non-empty list of test cases",
            key="tests" if "tests" in node else None,
            expected="a list of {id, input, expect}",
            found=tests,
        )
        return []
    return _tests(tests, ctx, join_path(path, "tests"), metadata)


def _tests(
    nodes: list[Any], ctx: SpecContext, path: str, metadata: Mapping[str, Any]
) -> list[Case]:
    cases = [_case(node, ctx, join_path(path, i), metadata) for i, node in enumerate(nodes)]
    return [c for c in cases if c is not None]


def _case(
    node: Any,
    ctx: SpecContext,
    path: str,
    metadata: Mapping[str, Any],
    *,
    default_name: str | None = None,
) -> Case | None:
    node = mapping_node(
        node,
        ctx,
        path,
        "a test case",
        expected="a mapping with 'id', 'input' and 'expect'",
        keys=_CASE_KEYS,
    )
    if node is None:
        return None
    case_id = None if node.get("id") is None else str(node["id"])
    title = node.get("name") if isinstance(node.get("name"), str) else None
    if case_id and title:
        name = f"{case_id}: {title}"
    else:
        name = title or case_id or default_name or path
    meta = dict(metadata)
    if "priority" in node:
        meta["priority"] = node["priority"]
    if isinstance(node.get("category"), str):
        meta["category"] = node["category"]
    skip_if = _skip_if(node, ctx, path)
    if skip_if is not None:
        meta["skip_if"] = skip_if
    kept: dict[str, Any] = {}
    keep_not_used(node, _LIVE_RUN_KEYS, path, kept)
    if kept:
        meta[NOT_USED_OFFLINE] = kept
    steps: tuple[StepSpec, ...] = ()
    checks: list[Assertion] = []
    if "multi_step" in node:
        if "expect" in node:
            ctx.problem(
                node,
                join_path(path, "expect"),
                f"test case {name!r} has both 'multi_step' and 'expect'",
                key="expect",
                hint="move the checks into the 'expect' of the step whose response they read",
            )
            return None
        found = _steps(node, ctx, path, name)
        if found is None:
            return None
        steps = found
    elif "expect" not in node:
        ctx.problem(
            node,
            path,
            f"test case {name!r} has no 'expect'",
            hint="add 'expect: {...}' with the checks on the response (or 'multi_step: "
            "[...]' for a test of several steps)",
        )
        return None
    else:
        owner = f"test case {name!r}"
        of_case = _expect_of(node, ctx, path, owner, " (an empty one would pass vacuously)", None)
        if of_case is None:
            return None
        checks = of_case
    description = node.get("description") if isinstance(node.get("description"), str) else None
    return Case(
        name=name,
        checks=tuple(checks),
        subject="json",
        id=case_id,
        tags=str_list(node, "tags", ctx, path),
        description=description,
        input=plain(node.get("input")),
        metadata=meta,
        source=f"{ctx.file or ''}: {path}".strip(": "),
        steps=steps,
        spec_path=path,
    )


def _skip_if(node: Mapping[str, Any], ctx: SpecContext, path: str) -> str | None:
    """The test's `skip_if` condition: a non-empty string, kept exactly as written."""
    if "skip_if" not in node:
        return None
    value = node["skip_if"]
    if isinstance(value, str) and value.strip():
        return value
    ctx.problem(
        node,
        join_path(path, "skip_if"),
        "'skip_if' must name a condition",
        key="skip_if",
        expected="a non-empty string such as vault_has_git",
        found=value,
        hint="assume it with --assume CONDITION (or load_suite(..., assume=[...])) to skip "
        "the test",
    )
    return None


def _steps(
    node: Mapping[str, Any], ctx: SpecContext, path: str, name: str
) -> tuple[StepSpec, ...] | None:
    """Translate `multi_step: [{step, input, expect, store}, ...]`, reporting problems."""
    items = node["multi_step"]
    steps_path = join_path(path, "multi_step")
    if not isinstance(items, list) or not items:
        ctx.problem(
            node,
            steps_path,
            f"'multi_step' of test case {name!r} must be a non-empty list of steps",
            key="multi_step",
            expected="a list of {step, input, expect, store}",
            found=items,
        )
        return None
    before = len(ctx.problems)
    out: list[StepSpec] = []
    stores: dict[str, int] = {}
    previous = 0
    for i, item in enumerate(items):
        step_path = join_path(steps_path, i)
        item = mapping_node(
            item,
            ctx,
            step_path,
            "a step",
            expected="a mapping with 'step', 'input', 'expect' and/or 'store'",
            keys=_STEP_KEYS,
        )
        if item is None:
            continue
        number = item.get("step", previous + 1)
        if isinstance(number, bool) or not isinstance(number, int) or number <= previous:
            ctx.problem(
                item,
                join_path(step_path, "step"),
                f"'step' must be a whole number greater than the step before ({previous})",
                key="step" if "step" in item else None,
                expected=f"an integer above {previous}",
                found=number,
                hint="number the steps 1, 2, 3, ... in the order they run",
            )
            continue
        previous = number
        checks: list[Assertion] = []
        if "expect" in item:
            found = _expect_of(item, ctx, step_path, f"step {number}", "", tuple(stores))
            if found is None:
                continue
            checks = found
        store = _store(item, ctx, step_path, stores)
        if store is not None:
            stores[store] = number
        out.append(
            StepSpec(
                number,
                tuple(checks),
                input=plain(item.get("input")),
                store=store,
                source=step_path,
            )
        )
    if len(ctx.problems) > before:
        return None
    if not any(step.checks for step in out):
        ctx.problem(
            node,
            steps_path,
            f"no step of test case {name!r} checks anything, so it would pass vacuously",
            key="multi_step",
            hint="give a step an 'expect' (for example {no_overlap: {path, with}})",
        )
        return None
    return tuple(out)


def _expect_of(
    node: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
    owner: str,
    why: str,
    available: tuple[str, ...] | None,
) -> list[Assertion] | None:
    """The checks of `node["expect"]` (a test's or a step's), or None when it is not a
    non-empty mapping (reported); `available` names the stores earlier steps keep."""
    expect = node["expect"]
    expect_path = join_path(path, "expect")
    if not isinstance(expect, Mapping) or not expect:
        ctx.problem(
            node,
            expect_path,
            f"'expect' of {owner} must be a non-empty mapping of checks{why}",
            key="expect",
            expected="a mapping such as {status: success}",
            found=expect,
        )
        return None
    checks = translate_expect(expect, ctx, expect_path)
    _check_stored_names(checks, expect, ctx, expect_path, available=available)
    return checks


def _store(
    item: Mapping[str, Any], ctx: SpecContext, path: str, stores: Mapping[str, int]
) -> str | None:
    """A step's `store`: the name its response is kept under (unique within the test)."""
    if "store" not in item:
        return None
    value = item["store"]
    if not isinstance(value, str) or not value.strip():
        ctx.problem(
            item,
            join_path(path, "store"),
            "'store' must be a name to keep this step's response under",
            key="store",
            expected="a non-empty string such as page1_files",
            found=value,
            hint="a later step compares with it: no_overlap: {path: ..., with: <the name>}",
        )
        return None
    if value in stores:
        ctx.problem(
            item,
            join_path(path, "store"),
            f"step {stores[value]} already stores its response as {value!r}",
            key="store",
            hint="give each stored response its own name",
        )
        return None
    return value


def _check_stored_names(
    checks: list[Assertion],
    expect: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
    *,
    available: tuple[str, ...] | None,
) -> None:
    """Report each `no_overlap` whose `with` names nothing an earlier step stores
    (`available`: the names earlier steps store; None outside a multi-step test)."""
    stack = list(checks)
    while stack:
        check = stack.pop()
        stack.extend(children_of(check))
        if not isinstance(check, NoOverlap) or check.stored is None:
            continue
        if available is not None and check.stored in available:
            continue
        key = "no_overlap" if "no_overlap" in expect else None
        where = join_path(path, "no_overlap") if key else path
        if available is None:
            ctx.problem(
                expect,
                where,
                f"no_overlap compares with {check.stored!r}, what an earlier step stored, "
                "but this test has no steps",
                key=key,
                hint="'with' works in a step of a multi_step test that follows a step with "
                f"'store: {check.stored}'; to compare with fixed values give 'values: [...]'",
            )
            continue
        hint = did_you_mean(check.stored, list(available)) or (
            f"earlier steps store: {', '.join(available)}"
            if available
            else "no earlier step stores anything: add 'store: NAME' to one"
        )
        ctx.problem(
            expect,
            where,
            f"no_overlap compares with {check.stored!r}, which no earlier step stores",
            key=key,
            hint=hint,
        )


def translate_expect(node: Mapping[str, Any], ctx: SpecContext, path: str) -> list[Assertion]:
    """Translate one expect object into its checks (one per key), reporting problems to `ctx`."""
    table = expect_keys()
    out: list[Assertion] = []
    for key, value in node.items():
        key_path = join_path(path, str(key))
        name = normalise_type(key) if isinstance(key, str) else key  # `Results-Min` (G5)
        cls = table.get(name) if isinstance(name, str) else None
        if cls is None and name in UNSUPPORTED:
            ctx.problem(node, key_path, f"the expect key {key!r} {UNSUPPORTED[name]}", key=key)
            continue
        if cls is None and _of_another_level(name, key, node, ctx, key_path):
            continue
        if cls is None:
            unknown = ctx.unknown(
                node,
                key_path,
                str(key),
                f"unknown expect key {key!r}",
                did_you_mean(str(key), sorted(table)) or f"valid keys: {', '.join(sorted(table))}",
                key=key,
            )
            if unknown is not None:
                out.append(unknown)
            continue
        built = _key(cls, str(key), value, node, ctx, key_path)
        if built is not None:
            out.append(built)
    return out


def _of_another_level(
    name: object, key: object, node: Mapping[str, Any], ctx: SpecContext, path: str
) -> bool:
    """Whether `name` is the kind of a check of one's own that does not read a JSON response
    (its level is `turn` or `conversation`): reported, as a key that needs what a JSON
    response cannot give is."""
    cls = REGISTRY.get(name) if isinstance(name, str) else None
    if cls is None or builtin(cls) or cls.level not in ("turn", "conversation"):
        return False
    reads = "one turn" if cls.level == "turn" else "a whole conversation"
    ctx.problem(
        node,
        path,
        f"the expect key {key!r} is {cls.__module__}.{cls.__qualname__}, which checks {reads} "
        f"(level {cls.level!r}), but an expect case checks one JSON response",
        key=key,
        hint="use it in a flat, promptkit or native file; or, if it reads a JSON response, "
        "give the class level = 'json'",
    )
    return True


def _and(node: Any, ctx: SpecContext, path: str, what: str) -> Assertion | None:
    if not isinstance(node, Mapping) or not node:
        ctx.problem(
            node,
            path,
            f"{what} must be a non-empty expect object",
            expected="a mapping such as {all_have_tags: [work]}",
            found=node,
        )
        return None
    before = len(ctx.problems)
    checks = translate_expect(node, ctx, path)
    if len(ctx.problems) > before or not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    # the AND of the object's keys is the object: named by the key (or index) that holds it
    return ctx.placed(AllOf(*checks), path.rsplit(".", 1)[-1], path)


def _node_with_lines(
    parent: Mapping[str, Any], key: str, fields: Mapping[str, Any], source: object = None
) -> LocatedDict:
    """A mapping for the builder that keeps the spec's line numbers."""
    out = LocatedDict(fields)
    out.line = line_of(parent, key)
    for name in out:  # a field the loader made up (a shorthand's `value`) has no line of its own
        inner = line_of(source, name) if isinstance(source, Mapping) and name in source else None
        if inner is not None:
            out.key_lines[name] = inner
    return out


def _key(
    cls: type[Assertion],
    key: str,
    value: Any,
    parent: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
) -> Assertion | None:
    if not builtin(cls) and not hasattr(cls, "expect_form"):
        return _own_key(cls, key, value, parent, ctx, path)
    form = getattr(cls, "expect_form", "value")
    if cls is OneOf:
        if not isinstance(value, list) or not value:
            ctx.problem(
                parent,
                path,
                "'one_of' must be a non-empty list of expect objects",
                key=key,
                expected="a list such as [{status: error}, {contains: filter}]",
                found=value,
            )
            return None
        branches = [
            _and(item, ctx, join_path(path, i), "each 'one_of' branch")
            for i, item in enumerate(value)
        ]
        if any(b is None for b in branches):
            return None
        return ctx.placed(OneOf(*[b for b in branches if b is not None]), key, path)
    if (
        cls is IfSensitiveResults
        and isinstance(value, Mapping)
        and "has_field" in value
        and set(value) <= {"has_field", "value", "message"}
    ):
        node = _node_with_lines(parent, key, {"type": key, **value}, value)
        return build_typed(cls, node, ctx, path, dialect="expect")
    if form == "expect":
        child = _and(value, ctx, path, f"'{key}'")
        if child is None:
            return None
        options = {name: ctx.options[name] for name in cls.options if name in ctx.options}
        try:
            factory: Callable[..., Assertion] = cls
            return ctx.placed(factory(child, **options), key, path)
        except (TypeError, ValueError) as exc:
            ctx.problem(parent, path, str(exc), key=key)
            return None
    if form == "fields" or (form == "text" and isinstance(value, Mapping)):
        if not isinstance(value, Mapping):
            names = ", ".join(p.name for p in cls.params)
            ctx.problem(
                parent,
                path,
                f"'{key}' must be a mapping with {names}",
                key=key,
                expected=f"a mapping with {names}",
                found=value,
            )
            return None
        node = _node_with_lines(parent, key, {"type": key, **value}, value)
        return build_typed(cls, node, ctx, path, dialect="expect")
    if form == "field_equals":
        if (
            isinstance(value, Mapping)
            and set(value) == {"path", "value"}
            and isinstance(value["path"], str)
        ):
            value = {value["path"]: value["value"]}
        node = _node_with_lines(parent, key, {"type": key, "value": value})
        return build_typed(cls, node, ctx, path, dialect="expect")
    node = _node_with_lines(parent, key, {"type": key, "value": value})
    return build_typed(cls, node, ctx, path, dialect="expect")


def own_form(cls: type[Assertion]) -> str:
    """How the value of an expect key that names a check of one's own (without an
    `expect_form` of its own) is read: `fields`, a mapping of its parameters; `one`, the value
    of its only parameter, or a mapping of its parameters; `none`, `true` (or nothing) for a
    check that takes no parameter, or an empty mapping."""
    if not cls.params:
        return "none"
    return "one" if len(cls.params) == 1 else "fields"


def _own_key(
    cls: type[Assertion],
    key: str,
    value: Any,
    parent: Mapping[str, Any],
    ctx: SpecContext,
    path: str,
) -> Assertion | None:
    """An expect key naming a check of one's own: its value read as `own_form` says."""
    form = own_form(cls)
    takes = {n for p in cls.params for n in (p.name, *p.aliases)} | {"message", "description"}
    fields = isinstance(value, Mapping) and {str(k) for k in value} <= takes
    if fields:
        node = _node_with_lines(parent, key, {"type": key, **value}, value)
    elif form == "one":
        node = _node_with_lines(parent, key, {"type": key, cls.params[0].name: value})
    elif form == "none" and (value is True or value is None):
        node = _node_with_lines(parent, key, {"type": key})
    else:
        names = ", ".join(p.name for p in cls.params)
        ctx.problem(
            parent,
            path,
            f"'{key}' takes no parameters"
            if form == "none"
            else f"'{key}' must be a mapping of its parameters ({names})",
            key=key,
            expected=f"'{key}: true'" if form == "none" else f"a mapping with {names}",
            found=value,
        )
        return None
    return build_typed(cls, node, ctx, path, dialect="expect")


def _stem(ctx: SpecContext) -> str:
    if not ctx.file:
        return "expect"
    name = ctx.file.replace("\\", "/").rsplit("/", 1)[-1]
    return name.split(".", 1)[0] or name


EXPECT = register_dialect(
    Dialect(
        "expect",
        detect,
        translate,
        priority=40,
        description="expect objects checked against a structured JSON "
        "response (status, results_min, all_match, ...)",
    )
)
