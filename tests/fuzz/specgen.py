"""Spec documents for the fuzz targets: each dialect's real shape, mutations, and YAML text.

Documents are generated as Python values in the shape each dialect's files really have
(the flat `test_cases`, PromptKit Scenario manifests, expect test suites, native suites; the
parameters of every registered assertion type come from the registry), then mutated, and then
written as text for the real loader: block YAML, JSON, or flow YAML written here so that it can
hold what no dumper writes: explicit tags, anchors and aliases, merge keys, duplicate keys,
escapes of any code point, and nesting hundreds of levels deep.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import strategies as st

from chatassert._params import Param
from chatassert._registry import dialect_types, registered
from chatassert.specs._promptkit import API_VERSION

# -- atoms ---------------------------------------------------------------------------------

WORDS = (
    "refund",
    "booking confirmed",
    "Saturday",
    "#AB12CD",
    "error",
    "check_availability",
    "create_reservation",
    "issue_refund",
    "lookup_invoice",
    "a2a__billing_agent__lookup_invoice",
    "a2a__kb_agent__search",
    "workflow__transition",
    "specialist",
    "closed",
    "intake",
    "banned_words",
    "BannedWordsValidator",
    "*validators.BannedWordsValidator",
    "journal/",
    "security",
    "success",
    "INV-2031",
    "two charges",
)

ODD_STRINGS = (
    "",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\x00",
    "\x07",
    "\x1b[31mred\x1b[0m",
    "\x7f",
    "\x85",
    "\x9f",
    "\ud800",
    "\udfff",
    "a\udc80b",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\u202eevil",
    "\u2028",
    "\U0001f600",
    "e\u0301",
    "\u0130",
    "\u00df",
    "'",
    '"',
    "\\",
    "{",
    "}",
    "[",
    "]",
    ": ",
    "# x",
    "&a",
    "*a",
    "!!int",
    "%TAG",
    "@",
    "`",
    "|",
    ">",
    "- x",
    "? x",
    "<<",
    "{{response}}",
    "{{",
    "$",
    "..",
    "0x10",
    "1e400",
    "nan",
    ".inf",
    "~",
    "null",
    "yes",
    "on",
    "2024-02-15",
    "12:30:00",
    "x" * 300,
)

ALL_CHARACTERS = st.characters(exclude_categories=())
"""Every code point, lone surrogates and control characters included."""


@functools.cache
def odd_text(max_size: int = 12) -> st.SearchStrategy[str]:
    """Strings a spec author would not write: control characters, surrogates, YAML syntax."""
    return st.one_of(
        st.sampled_from(ODD_STRINGS),
        st.text(ALL_CHARACTERS, max_size=max_size),
        st.lists(st.sampled_from(ODD_STRINGS), min_size=1, max_size=3).map("".join),
    )


@functools.cache
def words() -> st.SearchStrategy[str]:
    """Realistic text, sometimes odd."""
    return st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(WORDS),
        st.text(max_size=12),
        odd_text(),
    )


@functools.cache
def json_scalars() -> st.SearchStrategy[Any]:
    """JSON scalars, with the numbers JSON cannot hold (NaN, infinities) included."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        words(),
    )


@functools.cache
def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Nested JSON values."""
    return st.recursive(
        json_scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(words(), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


# -- regular expressions and paths, as spec authors write them ---------------------------------

_REGEX_ATOMS = (
    "a",
    "x",
    "refund",
    ".",
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    r"\b",
    r"\B",
    r"\A",
    r"\z",
    r"\Z",
    "^",
    "$",
    "[a-z]",
    "[^0-9]",
    "[[:alpha:]]",
    "[[:^digit:]]",
    "[[:nope:]]",
    "[]a]",
    "[^]a]",
    "[A-Z|a-z]",
    "[a-]",
    "[z-a]",
    "[&&]",
    "[--]",
    r"[\d\s]",
    r"\pL",
    r"\p{Greek}",
    r"\PN",
    r"\p{Nope}",
    r"\x{41}",
    r"\x{110000}",
    r"\x41",
    r"\101",
    r"\Q.*+\E",
    r"\Qunterminated",
    r"\.",
    r"\#",
    r"\k",
    r"\1",
    "{",
    "}",
    "{2}",
    "a{,3}",
    "(?i)",
    "(?m)",
    "(?s)",
    "(?U)",
    "(?i-s)",
    "(?-)",
    "(?x)",
    "(?=a)",
    "(?!a)",
    "(?<=a)",
    "(?>a)",
    "(?P<name>a)",
    "(?<name>a)",
    "(?P=name)",
    "(?#comment)",
    "\\",
    "(",
    ")",
    "|",
    "#",
    " ",
    "\x00",
    "\ud800",
    "\u0130",
    "\u00df",
)
_QUANTIFIERS = ("", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{2,}", "{1,3}", "{1001}")
_QUANTIFIERS_ODD = ("**", "*+", "{3,1}", "{1000,1000}", "{0}", "{99999999999999999999}")


@functools.cache
def go_regexes() -> st.SearchStrategy[str]:
    """Patterns in Go's regexp syntax, valid and not: groups, classes, flags, quantifiers."""
    atom = st.one_of(
        st.sampled_from(_REGEX_ATOMS),
        st.text(max_size=3),
        st.text(ALL_CHARACTERS, max_size=2),
    )
    quantifier = st.one_of(st.sampled_from(_QUANTIFIERS), st.sampled_from(_QUANTIFIERS_ODD))
    piece = st.tuples(atom, quantifier).map("".join)

    def groups(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        opener = st.sampled_from(["(", "(?:", "(?i:", "(?P<g>", "(?s-i:", "(?U:"])
        return st.one_of(
            st.lists(inner, min_size=1, max_size=4).map("".join),
            st.lists(inner, min_size=2, max_size=3).map("|".join),
            st.tuples(opener, inner, st.just(")"), quantifier).map("".join),
        )

    return st.recursive(piece, groups, max_leaves=10)


_PATH_KEYS = (
    "status",
    "results",
    "file",
    "metadata",
    "tags",
    "created",
    "relevance",
    "pagination",
    "total",
    "summary",
    "history_results",
    "a b",
    "a.b",
    "",
    "0",
    "-1",
    "*",
)


@functools.cache
def dotted_paths() -> st.SearchStrategy[str]:
    """The expect dialect's dotted paths: `results[*].metadata.tags`, quoted keys, indexes."""
    key = st.one_of(st.sampled_from(_PATH_KEYS), st.text(max_size=4))
    step = st.one_of(
        key.map(lambda k: f".{k}"),
        st.sampled_from(["[*]", "[0]", "[1]", "[-1]", "[99]", "[x]", "[", "]", "['a.b']", '["k"]']),
        st.integers(-(10**30), 10**30).map(lambda i: f"[{i}]"),
    )
    return st.one_of(
        st.tuples(key, st.lists(step, max_size=5)).map(lambda t: t[0] + "".join(t[1])),
        st.text(ALL_CHARACTERS, max_size=10),
    )


_JSONPATH_PIECES = (
    "$",
    "$.",
    "$..",
    "$.results",
    "$.results[*]",
    "$.results[*].file",
    "$..tags",
    "$.results[0:2]",
    "$.results[-1:]",
    "$.results[::-1]",
    "$.results[0,1]",
    "$.results[?(@.relevance > 0.5)]",
    "$.results[?(@.file == 'x')]",
    "$.results[?(@.metadata.type != 'note')]",
    "$.results[?(@.relevance > 'a')]",
    "$.results[?(@.relevance)]",
    "$.results[?(!@.x)]",
    "$.results[?(@.file =~ /^journal/)]",
    "$.results[?(@.file =~ 'journal')]",
    "$.results[*].file.`len`",
    "$.results.`len`",
    "$.results[*].relevance.`str()`",
    "$.summary.`split(' ', 0, -1)`",
    "$.summary.`split(' ', 99, 2)`",
    "$.summary.`sub(/o/, 0)`",
    "$.summary.`sub(/(/, x)`",
    "$.results[*].file.`sub(/journal/, x)`",
    "$.`this`",
    "$.`parent`",
    "$.results[*].`parent`",
    "$['status']",
    '$["a.b"]',
    "$.*",
    "$[*]",
    "$.results[*].metadata.tags[*]",
    "$.pagination.total + 1",
    "$.results[*].relevance * 2",
    "$.results[?(@.relevance > 0.5) & (@.file)]",
    "$.results.sorted",
    "$.results[\\relevance]",
    "$.results[/relevance]",
)


@functools.cache
def jsonpaths() -> st.SearchStrategy[str]:
    """Full JSONPath (paths starting with `$`), with jsonpath-ng's filter and string extensions.

    The regex extensions (`=~`, `sub`, `split`) take patterns a user writes, so catastrophic
    ones are among them: they must run under the library's time limit.
    """
    catastrophic = st.sampled_from(["(a+)+$", "(a|aa)+$", "(.*)*x", "^(a?){25}a{25}$"])
    filters = st.one_of(
        catastrophic.map(lambda p: f"$.summary.`sub(/{p}/, x)`"),
        catastrophic.map(lambda p: f"$.results[?(@.file =~ /{p}/)]"),
        catastrophic.map(lambda p: f"$.summary.`split(/{p}/, 0, -1)`"),
    )
    return st.one_of(
        st.sampled_from(_JSONPATH_PIECES),
        st.tuples(st.sampled_from(_JSONPATH_PIECES), st.text(max_size=6)).map("".join),
        st.tuples(st.just("$"), dotted_paths()).map(lambda t: t[0] + "." + t[1]),
        filters,
        st.text(ALL_CHARACTERS, max_size=8).map(lambda s: "$" + s),
    )


@functools.cache
def paths() -> st.SearchStrategy[str]:
    """What a spec may give as a path: dotted, or full JSONPath."""
    return st.one_of(dotted_paths(), dotted_paths(), jsonpaths())


DATES = (
    "2026-01-01",
    "2026-01-31",
    "2026-01-12T09:30:00Z",
    "2026-01-28T14:30:00+01:00",
    "2026-02-30",
    "2026-13-45",
    "yesterday",
    "",
    "0",
    "9999-12-31T23:59:59.999999+14:00",
    "0001-01-01",
    "1e9",
)


# -- parameter values, from the registry ------------------------------------------------------

STATES = ("intake", "specialist", "closed", "nowhere", "")
TOOLS = (
    "check_availability",
    "create_reservation",
    "issue_refund",
    "a2a__billing_agent__lookup_invoice",
    "a2a__kb_agent__search",
    "workflow__transition",
    "",
)


@functools.cache  # strategies are immutable: built once, not on every draw
def _arguments() -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(
        st.one_of(st.sampled_from(["invoice_id", "amount", "date", "party_size"]), words()),
        json_values(4),
        max_size=3,
    )


def _by_name(name: str, value_type: str) -> st.SearchStrategy[Any] | None:
    """Values that mean something for a parameter of this name (a regex, a path, a date...)."""
    if name in ("pattern", "regex"):
        return go_regexes()
    if name == "path" or name == "has_field":
        return paths()
    if name in ("start", "end"):
        return st.sampled_from(DATES)
    if name in ("tool", "tool_name"):
        return st.sampled_from(TOOLS)
    if name in ("tools", "tool_names", "agents", "agent_names"):
        return st.lists(st.sampled_from(TOOLS), min_size=1, max_size=3)
    if name == "state":
        return st.sampled_from(STATES)
    if name == "guardrail":
        return st.sampled_from(["banned_words", "BannedWordsValidator", "pii", ""])
    if name in ("expected_args", "required_args", "arguments", "forbidden_args"):
        return _arguments()
    if name == "args_match":
        return st.dictionaries(st.sampled_from(["invoice_id", "amount"]), go_regexes(), max_size=2)
    if name == "steps":
        step = st.one_of(
            st.sampled_from(TOOLS),
            st.fixed_dictionaries(
                {"name": st.sampled_from(TOOLS)}, optional={"args": _arguments()}
            ),
        )
        return st.lists(step, max_size=4)
    if name in ("min_calls", "n", "max", "min", "index") and value_type == "int":
        return st.integers(-2, 5)
    return None


def param_value(param: Param, assertion: Callable[[int], st.SearchStrategy[Any]], depth: int):
    """A value for one declared parameter: of its value type mostly, of another sometimes."""
    value_type = param.value_type
    special = _by_name(param.name, value_type)
    if param.choices:
        good: st.SearchStrategy[Any] = st.sampled_from(param.choices)
    elif special is not None:
        good = special
    elif value_type in ("str", "text"):
        good = words()
    elif value_type == "str_list":
        good = st.one_of(words(), st.lists(words(), max_size=4))
    elif value_type == "mapping":
        good = st.dictionaries(words(), json_values(4), max_size=3)
    elif value_type == "bool":
        good = st.booleans()
    elif value_type == "int":
        good = st.integers(-3, 10)
    elif value_type == "number":
        good = st.one_of(st.integers(-3, 10), st.floats(allow_nan=True, allow_infinity=True))
    elif value_type == "assertion":
        good = assertion(depth + 1)
    elif value_type == "assertions":
        good = st.lists(assertion(depth + 1), max_size=3)
    else:
        good = json_values()
    return st.one_of(good, good, good, good, json_values(4))


def _spec_for(
    cls: type[Any],
    name: str,
    assertion: Callable[[int], st.SearchStrategy[Any]],
    depth: int,
    *,
    params_key: str | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """`{type: name, <params>}` (or `{type, params: {...}}` with `params_key`)."""
    required = {p.name: param_value(p, assertion, depth) for p in cls.params if p.required}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for p in cls.params:
        if not p.required:
            optional[p.name] = param_value(p, assertion, depth)
        for alias in p.aliases:
            optional[alias] = param_value(p, assertion, depth)
    params = st.fixed_dictionaries(required, optional=optional)
    extra = st.fixed_dictionaries({}, optional={"message": words()})
    if params_key is None:
        return st.tuples(params, extra).map(lambda t: {"type": name, **t[0], **t[1]})
    return st.tuples(params, extra).map(lambda t: {"type": name, params_key: t[0], **t[1]})


# -- the four dialects --------------------------------------------------------------------------

_MAX_DEPTH = 2


@functools.cache
def native_assertion(
    depth: int = 0, levels: tuple[str, ...] = ("turn", "conversation", "any", "json")
) -> st.SearchStrategy[dict[str, Any]]:
    """One native assertion of any registered kind (combinators nest, up to a depth)."""
    kinds = registered()
    leaves = [
        k
        for k, c in kinds.items()
        if c.level in levels
        and not any(p.value_type in ("assertion", "assertions") for p in c.params)
    ]
    nested = [k for k, c in kinds.items() if c.level in levels and k not in leaves]
    chosen = leaves if depth >= _MAX_DEPTH else leaves + nested

    return st.one_of([_native_one(kind, depth) for kind in sorted(chosen)])


@functools.cache
def _native_one(kind: str, depth: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.deferred(
        lambda: _spec_for(registered()[kind], kind, lambda d: native_assertion(d), depth)
    )


@functools.cache  # strategies are immutable: built once, not on every draw
def native_documents() -> st.SearchStrategy[Any]:
    """Native suites: `chatassert: 1`, cases of turns and whole-conversation checks."""
    turn = st.fixed_dictionaries(
        {"input": words()},
        optional={"assertions": st.lists(native_assertion(0, ("turn", "any")), max_size=3)},
    )
    case = st.fixed_dictionaries(
        {"name": words()},
        optional={
            "id": st.one_of(words(), st.integers()),
            "turns": st.lists(turn, max_size=3),
            "assertions": st.lists(native_assertion(0, ("conversation", "any")), max_size=3),
            "tags": st.lists(words(), max_size=2),
            "description": words(),
            "fail_fast": st.booleans(),
        },
    )
    return st.fixed_dictionaries(
        {"chatassert": st.sampled_from([1, 1, 1, 2, "1", None])},
        optional={
            "name": words(),
            "description": words(),
            "cases": st.lists(case, max_size=3),
            "assertions": st.lists(native_assertion(0), max_size=3),
            "fail_fast": st.booleans(),
            "gates": st.lists(gates(), max_size=3),
        },
    )


@functools.cache
def gates(names: tuple[str, ...] = ()) -> st.SearchStrategy[Any]:
    """A suite-level gate (`gates:` of a native suite): a pass rate or a largest drop of the
    cases, or of an assertion named by one of `names`, a type's name (as a suite names one
    without a message) or a word; its thresholds mostly in range, now and then out of it or
    not numbers at all, and now and then no gate's shape at all."""
    share = _mostly(st.floats(0, 1), json_scalars())
    level = _mostly(st.floats(0, 1, exclude_min=True, exclude_max=True), share)
    others = st.one_of(st.sampled_from(sorted(registered())), words(), json_scalars())
    name = _mostly(st.sampled_from(names), others) if names else others
    named = st.fixed_dictionaries({}, optional={"assertion": name})
    pass_rate = st.fixed_dictionaries(
        {"min": share}, optional={"confidence": level, "assertion": name}
    )
    max_drop = st.fixed_dictionaries({"by": share}, optional={"assertion": name})
    test = st.one_of(
        st.fixed_dictionaries({"pass_rate": pass_rate}),
        st.fixed_dictionaries({"max_drop": max_drop}),
    )
    either = st.tuples(test, named).map(lambda t: {**t[1], **t[0]})
    return _mostly(st.one_of(test, either), json_values(4))


def _mostly(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`usual` nine draws in ten, `odd` the tenth."""
    return st.integers(0, 9).flatmap(lambda i: odd if i == 0 else usual)


_GATED = {
    "chatassert": 1,
    "name": "refunds",
    "cases": [
        {
            "name": "refund",
            "turns": [
                {
                    "input": "I was charged twice",
                    "assertions": [
                        {"type": "contains", "value": "refund", "message": "refund_policy"},
                        {"type": "not_contains", "value": "sorry"},
                    ],
                }
            ],
        }
    ],
    "assertions": [{"type": "contains_any", "value": ["refund", "error"]}],
}


@functools.cache
def gated_documents() -> st.SearchStrategy[Any]:
    """A native suite that loads, with `gates:` of every shape, most naming its assertions
    (`refund_policy`, `not_contains`, `contains_any`)."""
    names = ("refund_policy", "not_contains", "contains_any")
    # a fresh copy of the suite each draw: a document may be changed by what writes it out
    return st.lists(gates(names), max_size=4).map(
        lambda listed: {**json.loads(json.dumps(_GATED)), "gates": listed}
    )


@functools.cache  # strategies are immutable: built once, not on every draw
def flat_assertion() -> st.SearchStrategy[dict[str, Any]]:
    """One flat assertion `{type, value, arguments?, rubric?, model?}`."""
    table = dialect_types("flat")
    return st.one_of(
        [_spec_for(table[name], name, lambda d: native_assertion(d), 0) for name in sorted(table)]
    )


@functools.cache  # strategies are immutable: built once, not on every draw
def flat_documents() -> st.SearchStrategy[Any]:
    """Flat files: `test_cases:`, one case's `turns:`, or a list of assertions."""
    turn = st.fixed_dictionaries(
        {"user_input": words()},
        optional={
            "assertions": st.lists(flat_assertion(), max_size=4),
            "expected_agent": words(),
        },
    )
    case = st.fixed_dictionaries(
        {"name": words(), "turns": st.lists(turn, max_size=3)},
        optional={
            "tags": st.lists(words(), max_size=2),
            "description": words(),
            "id": words(),
            "test_type": st.just("single_turn"),
        },
    )
    return st.one_of(
        st.fixed_dictionaries(
            {"test_cases": st.lists(case, max_size=3)},
            optional={"agent_id": words(), "description": words(), "name": words()},
        ),
        st.fixed_dictionaries({"turns": st.lists(turn, min_size=1, max_size=3)}),
        st.lists(flat_assertion(), min_size=1, max_size=4),
        flat_assertion(),
    )


@functools.cache  # strategies are immutable: built once, not on every draw
def _promptkit_item(level: str) -> st.SearchStrategy[dict[str, Any]]:
    table = dialect_types(f"promptkit.{level}")
    return st.one_of(
        [
            _spec_for(table[name], name, lambda d: native_assertion(d), 0, params_key="params")
            for name in sorted(table)
        ]
    )


@functools.cache  # strategies are immutable: built once, not on every draw
def workflows() -> st.SearchStrategy[Any]:
    """A workflow inline (a pack's `workflow` section, or a whole pack) or a file name."""
    events = st.dictionaries(
        st.sampled_from(["Escalate", "Resolve", ""]),
        st.one_of(st.sampled_from(STATES), json_values(2)),
        max_size=2,
    )
    state = st.one_of(
        st.none(),
        st.fixed_dictionaries({}, optional={"on_event": events, "description": words()}),
        json_values(2),
    )
    section = st.fixed_dictionaries(
        {"entry": st.one_of(st.sampled_from(STATES), json_values(2))},
        optional={
            "states": st.dictionaries(st.sampled_from(STATES), state, max_size=3),
            "version": st.integers(),
        },
    )
    # file names that are safe to try (never a device that reads forever)
    files = st.sampled_from(["", ".", "/", "missing.workflow.yaml", "/dev/null", "../x.json"])
    return st.one_of(section, section.map(lambda s: {"workflow": s}), files, json_values(2))


@functools.cache  # strategies are immutable: built once, not on every draw
def promptkit_documents() -> st.SearchStrategy[Any]:
    """PromptKit Scenario manifests (turns or workflow steps), or a bare list of items."""
    turn = st.fixed_dictionaries(
        {"content": words()},
        optional={
            "role": st.sampled_from(["user", "user", "assistant", "selfplay-user"]),
            "assertions": st.lists(_promptkit_item("turn"), max_size=4),
            "turns": st.one_of(st.integers(-1, 3), json_values(1)),  # self-play count
            "persona": words(),
        },
    )
    step = st.fixed_dictionaries(
        {"content": words()},
        optional={
            "type": st.sampled_from(["input", "input", "wait"]),
            "assertions": st.lists(_promptkit_item("turn"), max_size=3),
        },
    )
    spec = st.fixed_dictionaries(
        {},
        optional={
            "turns": st.lists(turn, max_size=3),
            "steps": st.lists(step, max_size=3),
            "conversation_assertions": st.lists(_promptkit_item("conversation"), max_size=4),
            "workflow": workflows(),
            "fail_fast": st.booleans(),
            "task_type": words(),
            "description": words(),
            "id": words(),
            "tags": st.lists(words(), max_size=2),
            "context_metadata": st.fixed_dictionaries({"domain": words()}),
            "tool_policy": st.fixed_dictionaries(
                {},
                optional={
                    "blocklist": st.lists(st.sampled_from(TOOLS), max_size=2),
                    "max_tool_calls_per_turn": st.one_of(st.integers(-1, 3), json_values(1)),
                    "max_total_tool_calls": st.integers(0, 4),
                    "tool_choice": st.sampled_from(["auto", "none", "required"]),
                },
            ),
            "pack": st.sampled_from(["", "missing.pack.json", "/dev/null", "."]),
            "providers": st.lists(words(), max_size=2),
        },
    )
    manifest = st.fixed_dictionaries(
        {
            "apiVersion": st.sampled_from([API_VERSION, API_VERSION, "promptkit.x/v2", ""]),
            "kind": st.sampled_from(["Scenario", "Scenario", "Eval"]),
            "spec": spec,
        },
        optional={"metadata": st.fixed_dictionaries({"name": words()})},
    )
    bare = st.lists(
        st.one_of(_promptkit_item("turn"), _promptkit_item("conversation")), min_size=1, max_size=4
    )
    return st.one_of(manifest, manifest, bare)


@functools.cache
def expect_object(depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """One `expect` object: an AND of keys, each in the form its type reads."""
    table = dialect_types("expect")

    def value_for(key: str) -> st.SearchStrategy[Any]:
        cls = table[key]
        form = getattr(cls, "expect_form", "value")
        params = {p.name: p for p in cls.params}
        if key == "one_of":
            if depth >= _MAX_DEPTH:
                return st.lists(st.fixed_dictionaries({"status": words()}), max_size=2)
            return st.lists(expect_object(depth + 1), max_size=3)
        if form == "expect":
            if depth >= _MAX_DEPTH:
                return st.fixed_dictionaries({"results_max": st.integers(-1, 3)})
            return expect_object(depth + 1)
        if form == "fields":
            fields = {
                p.name: param_value(p, lambda d: native_assertion(d), depth)
                for p in cls.params
                if p.required
            }
            optional = {
                p.name: param_value(p, lambda d: native_assertion(d), depth)
                for p in cls.params
                if not p.required
            }
            return st.fixed_dictionaries(fields, optional=optional)
        if form == "field_equals":
            return st.one_of(
                st.dictionaries(dotted_paths(), json_values(4), min_size=1, max_size=3),
                st.fixed_dictionaries({"path": dotted_paths(), "value": json_values(4)}),
            )
        if form == "text":
            return st.one_of(
                words(),
                st.fixed_dictionaries(
                    {"value": words()}, optional={"case_sensitive": st.booleans()}
                ),
            )
        if key == "if_sensitive_results":
            return st.fixed_dictionaries(
                {"has_field": dotted_paths()}, optional={"value": json_values(2)}
            )
        value = params.get("value")
        if value is None:
            return json_values(4)
        return param_value(value, lambda d: native_assertion(d), depth)

    entries = st.one_of(
        [st.deferred(lambda k=k: value_for(k)).map(lambda v, k=k: (k, v)) for k in sorted(table)]
    )
    return st.lists(entries, min_size=1, max_size=4).map(dict)


@functools.cache  # strategies are immutable: built once, not on every draw
def expect_documents() -> st.SearchStrategy[Any]:
    """Expect files: a list of tests, one suite, `test_suites:`, or one bare expect object."""
    test = st.fixed_dictionaries(
        {"expect": expect_object()},
        optional={
            "id": st.one_of(words(), st.integers()),
            "name": words(),
            "input": json_values(4),
            "tags": st.lists(words(), max_size=2),
            "description": words(),
            "skip_if": words(),
        },
    )
    suite = st.fixed_dictionaries(
        {"tests": st.lists(test, max_size=3)},
        optional={"name": words(), "priority": st.sampled_from(["high", "low"])},
    )
    return st.one_of(
        st.lists(test, min_size=1, max_size=3),
        suite,
        st.fixed_dictionaries(
            {"test_suites": st.dictionaries(words(), suite, max_size=2)},
            optional={"agent": words(), "version": words(), "description": words()},
        ),
        expect_object(),
    )


@functools.cache  # strategies are immutable: built once, not on every draw
def documents() -> st.SearchStrategy[Any]:
    """A document of any of the four dialects."""
    return st.one_of(
        flat_documents(), promptkit_documents(), expect_documents(), native_documents()
    )


# -- YAML nodes no dumper writes ----------------------------------------------------------------


@dataclass(frozen=True)
class Tagged:
    """A scalar with an explicit tag: `!!int 0x_`, `!!timestamp 2020-13-45`, `!!binary ...`."""

    tag: str
    text: str


@dataclass(frozen=True)
class Pairs:
    """A mapping written pair by pair, so a key may appear twice."""

    pairs: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class Anchored:
    """A node with an anchor: `&name node`."""

    name: str
    node: Any


@dataclass(frozen=True)
class Alias:
    """A reference to an anchor: `*name`."""

    name: str


@dataclass(frozen=True)
class Raw:
    """YAML text written as it is (an odd escape, a huge number, deep brackets)."""

    text: str


@dataclass(frozen=True)
class Nested:
    """A node inside `depth` levels of `[...]` or `{k: ...}`."""

    depth: int
    node: Any
    mapping: bool = False


TAGS = (
    "!!int",
    "!!float",
    "!!timestamp",
    "!!binary",
    "!!bool",
    "!!null",
    "!!str",
    "!!seq",
    "!!map",
    "!!set",
    "!!omap",
    "!!pairs",
    "!!merge",
    "!!value",
    "!!python/object:os.system",
    "!!python/object/apply:os.system",
    "!!python/name:os.system",
    "!!python/tuple",
    "!!python/bytes",
    "!custom",
    "!",
    "!<tag:yaml.org,2002:int>",
    "!<tag:example.com,2000:x>",
)

TAG_TEXTS = (
    "0x_",
    "0x",
    "0b",
    "0o",
    "0b_",
    "0_",
    "+",
    "-",
    "_",
    "x",
    "1_000",
    "0x" + "f" * 40,
    "0b" + "1" * 200,
    "1" * 5000,
    "-0",
    "1:20",
    "1:60:60",
    "190:20:30",
    "2020-13-45",
    "2020-",
    "2020-02-30",
    "2020-01-01T25:61:61Z",
    "2020-01-01 10:00:00 +99:99",
    "2001-12-14t21:59:43.10-05:00",
    "9999-12-31",
    "0000-01-01",
    ".nan",
    ".inf",
    "-.inf",
    "1e400",
    "1e",
    "aGVsbG8=",
    "!!!",
    "====",
    "maybe",
    "yes",
    "~",
    "",
    '"quoted"',
    "[a, b]",
    "{a: 1}",
    "{a, b}",
    "[a: 1, b: 2]",
)


@functools.cache
def tagged() -> st.SearchStrategy[Tagged]:
    """An explicitly tagged scalar (or collection), most of them invalid for their tag."""
    return st.builds(
        Tagged, st.sampled_from(TAGS), st.one_of(st.sampled_from(TAG_TEXTS), st.text(max_size=5))
    )


RAW_SCALARS = (
    '"\\U00110000"',
    '"\\UFFFFFFFF"',
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"\\x00"',
    '"\\x85"',
    '"\\x9f"',
    '"\\N\\_\\L\\P"',
    '"\\e[31m"',
    '"\\0"',
    '"\\q"',
    '"\\u12"',
    '"\\',
    "'unterminated",
    "1" * 5000,
    "-" + "9" * 4301,
    "0x" + "f" * 5000,
    "0o" + "7" * 5000,
    "0b" + "1" * 20000,
    "1" + "0" * 309,
    "1e400",
    "-1e400",
    "1" + "0" * 309 + ".5",
    ".nan",
    "-.inf",
    "190:20:30",
    "1:" * 2000 + "1",
    "0x_",
    "<<",
    "=",
    "? complex",
    "%YAML 1.1",
    "---",
    "...",
    "!",
    "&",
    "*",
    "*missing",
    "&a",
    "|",
    ">",
    "@x",
    "`x",
)


@functools.cache
def raw_scalars() -> st.SearchStrategy[Raw]:
    """YAML scalars as text: escapes out of range, huge numbers, sexagesimals, stray syntax."""
    return st.sampled_from(RAW_SCALARS).map(Raw)


def deep(node: Any) -> st.SearchStrategy[Nested]:
    """`node` nested tens to thousands of levels deep."""
    depth = st.one_of(st.integers(1, 40), st.sampled_from([100, 250, 300, 500, 990, 1000, 3000]))
    return st.builds(Nested, depth, st.just(node), st.booleans())


@functools.cache  # strategies are immutable: built once, not on every draw
def alias_bombs() -> st.SearchStrategy[Any]:
    """The billion-laughs shape: level i holds `width` aliases of level i-1.

    Small ones expand to a few thousand nodes (they may load); large ones to hundreds of
    millions (they must fail fast, not run for minutes).
    """

    def bomb(levels: int, width: int, leaf: str) -> Any:
        items: list[Any] = [Anchored("b0", [leaf] * width)]
        for level in range(1, levels):
            items.append(Anchored(f"b{level}", [Alias(f"b{level - 1}")] * width))
        return [*items, Alias(f"b{levels - 1}")]

    return st.builds(
        bomb, st.integers(1, 10), st.integers(1, 10), st.sampled_from(["lol", "x", ""])
    )


# -- writing text ------------------------------------------------------------------------------


def _quote(text: str, escape_odd: bool) -> str:
    """A YAML double-quoted scalar; odd code points escaped or written raw."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif escape_odd and (
            code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF or code >= 0xFFFE
        ):
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\U{code:08x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _number(value: float | int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    return str(value)


def to_flow_yaml(node: Any, *, escape_odd: bool = True) -> str:
    """Write a node tree (plain values and the YAML node classes above) as flow YAML."""

    def write(value: Any) -> str:
        if isinstance(value, Pairs):
            return "{" + ", ".join(f"{write(k)}: {write(v)}" for k, v in value.pairs) + "}"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{write(k)}: {write(v)}" for k, v in value.items()) + "}"
        if isinstance(value, list | tuple):
            return "[" + ", ".join(write(v) for v in value) + "]"
        if isinstance(value, Tagged):
            return f"{value.tag} {value.text}"
        if isinstance(value, Anchored):
            return f"&{value.name} {write(value.node)}"
        if isinstance(value, Alias):
            return f"*{value.name}"
        if isinstance(value, Raw):
            return value.text
        if isinstance(value, Nested):
            inner = write(value.node)
            if value.mapping:
                return "{k: " * value.depth + inner + "}" * value.depth
            return "[" * value.depth + inner + "]" * value.depth
        if isinstance(value, str):
            return _quote(value, escape_odd)
        if value is None:
            return "null"
        if isinstance(value, bool | int | float):
            return _number(value)
        raise TypeError(f"cannot write {type(value).__name__}")

    return write(node) + "\n"


def is_plain(node: Any) -> bool:
    """Whether a node tree holds only JSON-like values (so a dumper can write it)."""
    if isinstance(node, dict):
        return all(isinstance(k, str | int | float | bool) or k is None for k in node) and all(
            is_plain(v) for v in node.values()
        )
    if isinstance(node, list):
        return all(is_plain(v) for v in node)
    return node is None or isinstance(node, str | int | float | bool)


def to_block_yaml(node: Any) -> str:
    """Write plain data as block YAML, the way people write spec files."""
    return yaml.safe_dump(node, allow_unicode=True, sort_keys=False, width=1000)


def to_json(node: Any, *, ascii_only: bool = False) -> str:
    """Write plain data as JSON (NaN and infinities as JavaScript writes them)."""
    return json.dumps(node, ensure_ascii=ascii_only, indent=2)


def texts(node: Any) -> st.SearchStrategy[str]:
    """The text of a document: block YAML, JSON, or flow YAML (escaped or raw)."""
    writers: list[st.SearchStrategy[str]] = [
        st.just(to_flow_yaml(node, escape_odd=True)),
        st.just(to_flow_yaml(node, escape_odd=False)),
    ]
    if is_plain(node):
        for write in (
            lambda: to_block_yaml(node),
            lambda: to_json(node),
            lambda: to_json(node, ascii_only=True),
        ):
            # a dumper refuses some values (a lone surrogate in block YAML)
            with contextlib.suppress(ValueError, yaml.YAMLError, UnicodeError):
                writers.append(st.just(write()))
    return st.one_of(writers)


# -- mutation ----------------------------------------------------------------------------------


def _node_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position in a plain tree, in document (pre-)order."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _node_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _node_paths(value, (*prefix, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def _put(node: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of `node` with the value at `path` replaced (copies only along the path)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        out = dict(node)
        out[head] = _put(node[head], rest, new)
        return out
    if isinstance(node, list):
        items = list(node)
        items[head] = _put(node[head], rest, new)
        return items
    return node


@functools.cache
def junk() -> st.SearchStrategy[Any]:
    """A value of the wrong kind for wherever it lands."""
    return st.one_of(
        json_scalars(),
        st.builds(list),  # a fresh one each draw: a target that fills it must not change the next
        st.builds(dict),
        st.lists(json_scalars(), max_size=3),
        st.dictionaries(words(), json_scalars(), max_size=2),
        odd_text(),
        raw_scalars(),
        tagged(),
    )


MUTATIONS = (
    "junk",
    "tag",
    "raw",
    "deep",
    "odd_text",
    "duplicate_key",
    "unknown_key",
    "drop_key",
    "alias",
    "merge",
    "bomb",
)


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[Any]) -> Any:
    """A document of `base`, changed in one to four places (see `MUTATIONS`).

    The result may hold the YAML node classes, so it is written with `to_flow_yaml`.
    """
    doc = draw(base)
    anchors = 0
    for _ in range(draw(st.integers(1, 4))):
        positions = _node_paths(doc)
        where = positions[draw(st.integers(0, len(positions) - 1))]
        current = _get(doc, where)
        kind = draw(st.sampled_from(MUTATIONS))
        if kind == "junk":
            doc = _put(doc, where, draw(junk()))
        elif kind == "tag":
            doc = _put(doc, where, draw(tagged()))
        elif kind == "raw":
            doc = _put(doc, where, draw(raw_scalars()))
        elif kind == "deep":
            doc = _put(doc, where, draw(deep(current)))
        elif kind == "odd_text":
            text = current if isinstance(current, str) else ""
            doc = _put(doc, where, text + draw(odd_text()))
        elif kind in ("duplicate_key", "unknown_key", "drop_key", "merge") and isinstance(
            current, dict
        ):
            pairs = list(current.items())
            if kind == "duplicate_key" and pairs:
                key, _ = pairs[draw(st.integers(0, len(pairs) - 1))]
                pairs.append((key, draw(st.one_of(st.just(current[key]), junk()))))
            elif kind == "unknown_key":
                pairs.append((draw(st.one_of(words(), json_scalars())), draw(junk())))
            elif kind == "drop_key" and pairs:
                pairs.pop(draw(st.integers(0, len(pairs) - 1)))
            elif kind == "merge":
                anchors += 1
                merged = draw(st.one_of(junk(), st.just({"type": "contains"}), st.just([{}])))
                pairs.append((Raw("<<"), merged))
            doc = _put(doc, where, Pairs(tuple(pairs)))
        elif kind == "alias" and len(positions) > 1:
            # an anchor at one position, an alias at a later one (maybe inside it: recursive)
            first = draw(st.integers(0, len(positions) - 2))
            second = draw(st.integers(first + 1, len(positions) - 1))
            name = f"a{anchors}"
            anchors += 1
            anchored, aliased = positions[first], positions[second]
            if is_plain(doc):
                doc = _put(doc, aliased, Alias(name))
                doc = _put(doc, anchored, Anchored(name, _get(doc, anchored)))
        elif kind == "bomb":
            doc = _put(doc, where, draw(alias_bombs()))
        if not is_plain(doc):
            break  # later positions would run through the YAML node classes
    return doc
