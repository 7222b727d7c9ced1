"""What a spec file that no vocabulary reads was meant to be, so its problems say what to do.

Loading detects a file's vocabulary from its keys and falls back to the flat one; a file that
fits none then gets the flat loader's problems ("unknown key 'cases' in a flat test file"),
which mislead. This module rewrites them, in three cases:

- a log given where a suite goes (the arguments of `chatassert check` swapped, `chatassert
  lint logs.jsonl`): JSON Lines, or a document that reads as a conversation, is named a log;
- a key that says which vocabulary was meant, without that vocabulary's marker (`cases`
  without `chatassert: 1`, PromptKit's `apiVersion` and `kind` with the wrong values, `tests`
  whose tests have no `expect`): the file is read in that vocabulary, and the hint leads;
- a file that fits none and says nothing: one problem lists what each vocabulary needs.

Example:
    >>> from chatassert.specs import loads_suite
    >>> try:
    ...     loads_suite("name: n\\ncases:\\n  - name: c\\n    assertions: []\\n", filename="s.yaml")
    ... except SpecError as exc:
    ...     print(exc.problems[0].message)
    this looks like a native chatassert suite (it has 'cases'), but it does not say \
'chatassert: 1', so it was read as a flat test file
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from chatassert._errors import SpecError, SpecProblem
from chatassert._registry import SpecContext
from chatassert.specs._common import Dialect, dialects
from chatassert.specs._yaml import parse_yaml

__all__ = ["LOG_HINT", "explain", "parsed"]

LOG_HINT = "the suite comes first: chatassert check SUITE LOG"
"""What to do with a log given where a suite goes."""

_MEANT = (
    ("native", ("cases",), "a native chatassert suite"),
    ("promptkit", ("apiVersion", "kind"), "a PromptKit scenario"),
    ("expect", ("tests",), "an expect suite"),
)
"""Keys that say which vocabulary a file was meant in, when its marker is missing: the
vocabulary, the keys (any one), and how to name such a file."""

_NEEDS = {
    "native": "'chatassert: 1'",
    "promptkit": "'kind: Scenario' or an 'apiVersion' starting 'promptkit.'",
    "expect": "'test_suites', 'tests' of tests with 'expect', or expect keys ('status', ...)",
    "flat": "'turns', 'test_cases', or a list of {type, value} assertions",
}
"""What marks each vocabulary, as its detection reads a file."""

_LINES_LOOKED_AT = 5
"""How many of a text's first non-blank lines tell JSON Lines."""


def parsed(text: str, filename: str | None) -> Any:
    """`text` parsed as YAML (`parse_yaml`); JSON Lines, which is no YAML, is named a log.

    Raises:
        SpecError: the YAML parser's problem, or, for JSON Lines, one problem naming it a log
            and saying which argument comes first.
    """
    try:
        return parse_yaml(text, filename)
    except SpecError:
        what = _json_lines(text)
        if what is None:
            raise
        raise SpecError([_log_problem(what, filename)]) from None


def _json_lines(text: str) -> str | None:
    """What JSON Lines `text` holds ("JSON Lines of conversations", "JSON Lines"), or None
    when its first lines are not each a JSON object or array (two at least)."""
    lines = [line for line in text[: 1 << 20].splitlines() if line.strip()][:_LINES_LOOKED_AT]
    values = []
    for line in lines:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, dict | list):
            return None
        values.append(value)
    if len(values) < 2:
        return None
    return "JSON Lines of conversations" if _conversations(values[0]) else "JSON Lines"


def _conversations(value: Any) -> bool:
    """Whether a log reader reads `value` into at least one conversation."""
    from chatassert.transcripts import read_value

    try:
        return any(one.ok for one in read_value(value).each())
    except RecursionError:  # deeper than the log readers go: not a conversation
        return False


def _log_problem(what: str, filename: str | None) -> SpecProblem:
    return SpecProblem(f"this looks like a log ({what}), not a suite", file=filename, hint=LOG_HINT)


def explain(doc: Any, chosen: Dialect, ctx: SpecContext, *, forced: bool) -> None:
    """Rewrite the problems `chosen` found in `doc` (in `ctx`) when the file was meant as
    something else: a log (replacing them all), or, when no vocabulary recognised it (the flat
    fallback), a suite of the vocabulary a key names (its problems instead, the hint first),
    or none (a first problem saying what each vocabulary needs). Problems of a file its
    vocabulary recognised, or whose dialect was forced, are left as they are."""
    if not ctx.problems:
        return
    if _conversations(doc):
        ctx.problems[:] = [_log_problem("a conversation", ctx.file)]
        return
    if forced or chosen.name != "flat" or _recognised(doc):
        return
    line = getattr(doc, "line", None) or 1
    if isinstance(doc, Mapping):
        for name, keys, title in _MEANT:
            present = [key for key in keys if key in doc]
            if present:
                _as_meant(doc, name, title, present, ctx, line)
                return
    needs = "; ".join(f"{name} needs {_NEEDS.get(name, 'its own keys')}" for name in _order())
    ctx.problems.insert(
        0,
        SpecProblem(
            "no vocabulary recognises this file, so it was read as a flat test file (the "
            f"fallback): {needs}",
            file=ctx.file,
            line=line,
            hint="start from an example, in docs/specs.md, of the vocabulary you meant",
        ),
    )


def _order() -> list[str]:
    """The vocabularies in detection order, the flat fallback last."""
    names = [dialect.name for dialect in dialects()]
    return [name for name in names if name != "flat"] + (["flat"] if "flat" in names else [])


def _recognised(doc: Any) -> bool:
    """Whether some vocabulary's detection recognises `doc` (the flat one included)."""
    return any(dialect.detect(doc) for dialect in dialects())


def _as_meant(
    doc: Mapping[str, Any],
    name: str,
    title: str,
    keys: list[str],
    ctx: SpecContext,
    line: int,
) -> None:
    """Replace `ctx`'s problems with those of `doc` read as the vocabulary `name` (its marker
    problem said by the hint that leads them)."""
    meant = next((d for d in dialects() if d.name == name), None)
    if meant is None:
        return
    again = dataclasses.replace(ctx, problems=[])
    meant.translate(doc, again)
    has = ", ".join(repr(key) for key in keys)
    if name == "native":  # its one missing marker: said here, with the fix
        rest = [p for p in again.problems if p.path != "chatassert"]
        lead = SpecProblem(
            f"this looks like {title} (it has {has}), but it does not say 'chatassert: 1', so "
            "it was read as a flat test file",
            file=ctx.file,
            line=line,
            hint="add 'chatassert: 1' at the top",
        )
    else:
        rest = again.problems
        lead = SpecProblem(
            f"this looks like {title} (it has {has}), but it is not recognised as one "
            f"({name} needs {_NEEDS[name]}), so it was read as a flat test file; read as "
            f"{name}, it has the problems below",
            file=ctx.file,
            line=line,
        )
    ctx.problems[:] = [lead, *rest]
