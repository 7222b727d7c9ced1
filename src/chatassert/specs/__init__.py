"""Loading spec files: the flat, promptkit, expect and native dialects, from YAML or JSON.

Every loader translates its file into one `Suite` of native assertions. A file with problems
raises one `SpecError` listing every problem with `file:line`, the path inside the document,
what was expected and what was found, and a fix. A native suite's `gates:` (what a whole run
must reach) load as `Gate`s (`Suite.gates`), which `evaluate_gates` decides over a run's rows.

Example:
    >>> from chatassert.specs import loads_suite
    >>> suite = loads_suite('''
    ... turns:
    ...   - user_input: "I want to book a table for 4 on Saturday"
    ...     assertions:
    ...       - type: contains_any
    ...         value: ["available", "slot", "opening"]
    ... ''')
    >>> suite.dialect, [a.kind for a in suite.cases[0].assertions()]
    ('flat', ['contains_any'])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from chatassert._base import Assertion
from chatassert._errors import SpecError, SpecProblem
from chatassert._gates import Gate, GateCounts, evaluate_gates, load_gates
from chatassert._params import did_you_mean
from chatassert._registry import SpecContext, build, registered
from chatassert._suite import MATCHED_BY, Case, Match, StepSpec, Suite, TurnSpec
from chatassert.specs import (  # noqa: F401  (register their dialects)
    _expect,
    _flat,
    _guess,
    _native,
    _promptkit,
)
from chatassert.specs._common import Dialect, dialects, register_dialect
from chatassert.specs._yaml import (
    LocatedDict,
    LocatedList,
    parse_json,
    parse_yaml,
    read_spec_file,
)

__all__ = [
    "MATCHED_BY",
    "Case",
    "Dialect",
    "Gate",
    "GateCounts",
    "LocatedDict",
    "LocatedList",
    "Match",
    "StepSpec",
    "Suite",
    "TurnSpec",
    "detect_dialect",
    "dialects",
    "evaluate_gates",
    "load_assertion",
    "load_suite",
    "loads_suite",
    "parse_yaml",
    "register_dialect",
    "registered",
]


def detect_dialect(doc: Any) -> Dialect:
    """Return the dialect a parsed document is written in (the flat dialect is the fallback)."""
    for dialect in dialects():
        if dialect.detect(doc):
            return dialect
    return _by_name("flat")


def _by_name(name: str) -> Dialect:
    known = {d.name: d for d in dialects()}
    if name not in known:
        hint = did_you_mean(name, list(known)) or f"known dialects: {', '.join(known)}"
        raise SpecError([SpecProblem(f"unknown dialect {name!r}", hint=hint)])
    return known[name]


def load_suite(
    path: str | os.PathLike[str],
    *,
    dialect: str | None = None,
    unknown_types: str = "error",
    unknown_params: str = "ignore",
    assume: Iterable[str] = (),
    **options: Any,
) -> Suite:
    """Load a spec file (YAML or JSON) into a `Suite`.

    Args:
        path: The file.
        dialect: Force a dialect (`flat`, `promptkit`, `expect`, `native`) instead of
            detecting it.
        unknown_types: `error` (the default): an assertion type the dialect does not know
            is a problem; `skip`: it loads, and reports `skipped` with the reason
            `unknown assertion type 'X'` wherever it is checked (docs/semantics.md G13).
        unknown_params: For PromptKit files, a parameter PromptKit itself ignores (it does
            not validate parameters): `ignore` (the default) loads it as PromptKit does, with
            no effect, kept in the case's metadata under `not_used_offline` and noted in the
            details of the check's results; `error` refuses it. Every other dialect refuses a
            parameter its type does not take, whatever this says.
        assume: Conditions that hold: a test whose `skip_if` is one of them (compared exactly
            as written) reports `skipped` with the reason `skip_if 'X' holds (assumed)`
            (see `Suite.assuming`).
        **options: Construction options for the assertions, such as `judge=` for judged
            assertions or `regex_timeout=` (seconds) for regular expressions.

    Raises:
        SpecError: listing every problem in the file.
        OSError: when the file cannot be read, or is larger than 10 MiB.
    """
    file = os.fspath(path)
    text = read_spec_file(file)
    return loads_suite(
        text,
        filename=file,
        dialect=dialect,
        unknown_types=unknown_types,
        unknown_params=unknown_params,
        assume=assume,
        **options,
    )


def loads_suite(
    text: str,
    *,
    filename: str | None = None,
    dialect: str | None = None,
    unknown_types: str = "error",
    unknown_params: str = "ignore",
    assume: Iterable[str] = (),
    **options: Any,
) -> Suite:
    """Load a spec from text; see `load_suite`."""
    if isinstance(assume, str):  # one condition, not its characters
        raise TypeError("assume takes a list of conditions, got a string; write assume=[...]")
    quick = parse_json(text)
    doc = _guess.parsed(text, filename) if quick is None else quick  # JSON Lines: a log
    if doc is None or (isinstance(doc, list | Mapping) and not doc):  # it would pass vacuously
        raise SpecError(
            [
                SpecProblem(
                    "the spec is empty", file=filename, hint="add assertions, turns or test cases"
                )
            ]
        )

    def context() -> SpecContext:
        return SpecContext(
            file=filename,
            options=options,
            unknown_types=unknown_types,
            unknown_params=unknown_params,
        )

    ctx = context()
    chosen = _by_name(dialect) if dialect else detect_dialect(doc)
    cases = chosen.translate(doc, ctx)
    _check_unique_names(cases, ctx)
    gates = _gates(chosen, doc, cases, ctx)
    if (ctx.problems or ctx.ignored) and quick is not None:  # again from located nodes: the
        doc = parse_yaml(text, filename)  # line of every problem and of every ignored parameter
        ctx = context()
        cases = chosen.translate(doc, ctx)
        _check_unique_names(cases, ctx)
        gates = _gates(chosen, doc, cases, ctx)
    _guess.explain(doc, chosen, ctx, forced=dialect is not None)  # a log, another vocabulary
    ctx.raise_if_problems()
    name = (
        doc.get("name") if isinstance(doc, Mapping) and isinstance(doc.get("name"), str) else None
    )
    if name is None:
        name = Path(filename).name.split(".", 1)[0] if filename else "suite"
    gates = tuple(replace(gate, suite=name) for gate in gates)
    suite = Suite(name=name, cases=tuple(cases), dialect=chosen.name, source=filename, gates=gates)
    return suite.assuming(assume) if assume else suite


def _gates(chosen: Dialect, doc: Any, cases: list[Case], ctx: SpecContext) -> tuple[Gate, ...]:
    """The suite-level gates of a native file (`gates:`; docs/specs.md "Gates")."""
    if chosen.name != "native" or not isinstance(doc, Mapping):
        return ()
    return load_gates(doc, cases, ctx)


def _check_unique_names(cases: list[Case], ctx: SpecContext) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.name in seen:
            ctx.problems.append(
                SpecProblem(
                    f"two cases are named {case.name!r} ({seen[case.name]} and {case.source})",
                    file=ctx.file,
                    hint="give each case a unique name",
                )
            )
        seen[case.name] = case.source


def load_assertion(
    spec: Any,
    *,
    dialect: str = "native",
    filename: str | None = None,
    unknown_types: str = "error",
    unknown_params: str = "ignore",
    **options: Any,
) -> Assertion:
    """Build one assertion from a mapping or from YAML/JSON text of one.

    `dialect` chooses the type names accepted: `native` (every registered kind) or a
    dialect's own (`flat`, `expect`, `promptkit.turn`, `promptkit.conversation`);
    `unknown_types` and `unknown_params` are as for `load_suite`. A PromptKit assertion is
    read in its file shape, `{type, params, message}`, at the level its dialect names.

    Example:
        >>> load_assertion({"type": "content_includes", "params": {"patterns": ["Paris"]}},
        ...                dialect="promptkit.turn").check("Paris: 18C").passed
        True

    Raises:
        SpecError: listing every problem.
    """
    from chatassert._registry import dialect_types

    if isinstance(spec, str):
        spec = parse_yaml(spec, filename)
    table = None if dialect == "native" else dialect_types(dialect)
    if table is not None and not table:
        raise SpecError([SpecProblem(f"dialect {dialect!r} has no assertion types", file=filename)])
    ctx = SpecContext(
        file=filename,
        options=options,
        unknown_types=unknown_types,
        unknown_params=unknown_params,
    )
    if dialect.startswith("promptkit."):  # PromptKit's shape: {type, params, message}
        from chatassert.specs._promptkit import build_item

        built = build_item(spec, ctx, "", dialect.split(".", 1)[1])
    else:
        built = build(spec, ctx, "", table=table, dialect=dialect)
    ctx.raise_if_problems()
    assert built is not None
    return built
