"""The layers of the package: imports go down, families stand alone.

Docs: docs/internals/architecture.md.

Every module of `src/chatassert` belongs to one layer. A module imports from its own layer or a
lower one, never a higher one; an assertion family imports no other family (a vocabulary's own
checks, one layer up, spell or compose the families' checks); and no set of
modules imports itself in a circle. Imports inside functions count (they run too); imports
under `if TYPE_CHECKING:` do not (they never run). The two upward imports the design needs are
listed in `ALLOWED_UP`, each with its reason.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: list[tuple[str, set[str]]] = [
    (
        "foundation",  # data and kernels: subjects, results, parameters, patterns, paths
        {
            "_errors",
            "_budget",
            "_regex",
            "_jsonpath",
            "_models",
            "_lazy",  # turns and conversations read from a log, their models built on first use
            "_media",
            "_result",
            "_params",
            "_judging",
            "_history",
            "_jsonlines",
            "_stats",  # the statistics of a comparison of runs: Wilson, exact McNemar, Holm
            "_early",  # how early a check can be decided while an agent runs
            "plugins",  # the plugins' loading; each registry installs its group's plugins
        },
    ),
    (
        "bases",  # what families build on
        {
            "_base",
            "_matchers",
            "_judged_base",
            "_jsonbase",
            "_promptkit_base",
            "_trajectory_base",
        },
    ),
    (
        "families",  # one module per kind of check; none imports another
        {
            "_text",
            "_tools",
            "_fields",
            "_each",
            "_dates",
            "_results",
            "_sequence",
            "_call_counts",
            "_tool_results",
            "_policies",
            "_usage",
            "_grounding",
            "_workflow",
            "_guardrails",
            "_judged",
            "_combinators",
            "_responses",
            "_agents",
        },
    ),
    (
        "vocabulary checks",  # a vocabulary's own checks: spellings and compositions of families
        {
            "_promptkit_content",
            "_promptkit_names",
            "_promptkit_args",
            "_promptkit_judged",
            "_promptkit_media",
            "_promptkit_json",
        },
    ),
    # type lookup, specs, cases, selection, and a suite's gates over a run (`gates:`)
    ("building", {"_registry", "_suite", "_select", "_gates"}),
    (
        "namespaces",  # the public names
        {"", "flat", "promptkit", "expect", "args", "errors", "policies", "usage", "authoring"},
    ),
    (
        "edges",  # each with its own outside dependency or I/O
        {
            "_cache",
            "_cli",  # the command line: a module per command, and the engine below them
            "_schemas",  # the spec files' JSON Schemas, from the registry and the loaders
            "_calibration",  # `chatassert validate`: judged verdicts against human labels
            "records",  # the pipeline of `chatassert check`: records to rows, summaries, reports
            "_rows",  # rows and engine items: the checker (records) makes them, the report
            # writer (reporting._writer) reads them; it imports neither
            "compare",  # `chatassert compare`: two runs read back, paired, tested, reported
            "_compare_render",  # a comparison as text, JSON and JUnit
            "_compare_html",  # a comparison as an HTML page
            "monitor",  # the checks while an agent runs: events in, states and guards out
            "_monitor",  # the monitor's nodes: each check decided as early as it declares
            "_monitor_log",  # the monitor's events as normalised messages (the readers')
            "__main__",
            "specs",
            "judges",
            "transcripts",
            "reporting",
            "integrations",
            "testing",
            "pytest_plugin",
        },
    ),
]
"""The layers, lowest first, by name under `chatassert` (a package stands for its modules)."""

FAMILIES = LAYERS[2][1]
VOCABULARY_CHECKS = LAYERS[3][1]

ALLOWED_UP = {
    ("_judged_base", "judges._env"): "a judged check given no judge builds the one "
    "CHATASSERT_JUDGE names, when it first needs one (the core never imports httpx otherwise)",
    ("_workflow", "specs._yaml"): "Workflow.from_file reads its YAML through the spec reader, "
    "with the spec reader's limits, when a file is read",
    ("_params", "_registry"): "a check of one's own is registered only after the built-ins are "
    "loaded, so a built-in's name is refused whichever module was imported first",
}
"""Upward imports the design needs, each inside the one function that needs it."""


def _name(path: Path) -> str:
    parts = path.relative_to(SRC / "chatassert").with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = SRC / "chatassert" / name.replace(".", "/")
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _imports(source: str) -> set[str]:
    """The chatassert modules `source` imports at run time, by name under `chatassert`."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module != "chatassert" and not node.module.startswith("chatassert."):
                continue
            module = node.module.removeprefix("chatassert").removeprefix(".")
            found.add(module)
            for alias in node.names:  # `from chatassert.specs import _expect`: a submodule
                sub = f"{module}.{alias.name}" if module else alias.name
                if _is_module(sub):
                    found.add(sub)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "chatassert" or alias.name.startswith("chatassert."):
                    found.add(alias.name.removeprefix("chatassert").removeprefix("."))
    return found


FILES = sorted((SRC / "chatassert").rglob("*.py"))
MODULES = [_name(p) for p in FILES]


class _Graph(Mapping[str, set[str]]):
    """Each module's chatassert imports, parsed when a test first reads them: parsing every
    module takes seconds that each test process would otherwise pay at collection."""

    @cached_property
    def _edges(self) -> dict[str, set[str]]:
        return {_name(p): _imports(p.read_text(encoding="utf-8")) - {_name(p)} for p in FILES}

    def __getitem__(self, module: str) -> set[str]:
        return self._edges[module]

    def __iter__(self) -> Iterator[str]:
        return iter(self._edges)

    def __len__(self) -> int:
        return len(self._edges)


GRAPH = _Graph()


def layer_of(module: str) -> int:
    """The index of the layer holding `module` (a package's layer holds its modules)."""
    for index, (_, members) in enumerate(LAYERS):
        if module in members or module.split(".")[0] in members:
            return index
    raise LookupError(module)


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for module in GRAPH:
        try:
            layer_of(module)
        except LookupError:
            unplaced.append(module or "chatassert")
    assert unplaced == [], "add each new module to a layer in LAYERS"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module: str) -> None:
    mine = layer_of(module)
    upward = {
        target: LAYERS[layer_of(target)][0]
        for target in GRAPH[module]
        if layer_of(target) > mine and (module, target) not in ALLOWED_UP
    }
    assert upward == {}, f"{module or 'chatassert'} ({LAYERS[mine][0]}) imports from above"


@pytest.mark.parametrize("module", sorted(FAMILIES))
def test_a_family_imports_no_other_family(module: str) -> None:
    assert GRAPH[module] & FAMILIES == set()


@pytest.mark.parametrize("module", sorted(VOCABULARY_CHECKS))
def test_vocabulary_checks_build_on_families_not_on_each_other(module: str) -> None:
    assert GRAPH[module] & VOCABULARY_CHECKS == set()


def test_no_module_imports_itself_in_a_circle() -> None:
    # Tarjan's strongly connected components: a component of more than one module is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in GRAPH[module]:
            if (module, target) in ALLOWED_UP:  # imported inside a function, when called
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in GRAPH:
        if module not in index:
            visit(module)
    assert circles == []


def test_rows_sit_below_the_checker_and_the_report_writer() -> None:
    # docs/internals/architecture.md: the checker (records) makes rows, the writers (reporting)
    # read them; rows import neither, and no module of reporting imports the checker
    assert "_rows" in GRAPH["records"]
    writer = {"records", "reporting", "reporting._writer", "reporting._formats"}
    assert GRAPH["_rows"] & writer == set()
    assert [m for m in GRAPH if m.split(".")[0] == "reporting" and "records" in GRAPH[m]] == []


CLI_COMMANDS = {"_cli.check", "_cli.lint", "_cli.schema", "_cli.init", "_cli.regate"}
CLI_COMMANDS |= {"_cli.validate", "_cli.convert", "_cli.compare"}


def test_the_command_lines_engine_and_plumbing_sit_below_its_commands() -> None:
    # docs/internals/architecture.md: each command is a module of `_cli` with `add_parser` and
    # `run`, listed in `COMMANDS`; what they share (`_cli._plan`, `_engine`, `_output`, ...) imports
    # no command, and no module of the package is over 600 lines
    from chatassert._cli import COMMANDS

    assert {f"_cli.{name}" for name in COMMANDS} == CLI_COMMANDS
    shared = {m for m in GRAPH if m.startswith("_cli._")}
    assert {"_cli._plan", "_cli._engine", "_cli._output", "_cli._options"} <= shared
    assert {m: GRAPH[m] & CLI_COMMANDS for m in shared if GRAPH[m] & CLI_COMMANDS} == {}
    assert GRAPH["_cli._plan"] & shared <= {"_cli._options"}
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in (SRC / "chatassert" / "_cli").glob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 600} == {}


def test_log_readers_see_records_and_the_byte_reading_knows_no_format() -> None:
    # docs/internals/architecture.md: each format's module reads a parsed record, knowing nothing
    # of the reading of lines and files (`_reading`, the package), of the table that lists it
    # (`_readers`), or of bytes (`_io`); the table knows no lines; `_io` imports nothing;
    # `_guess` words the errors of what no reader reads, from the table, beside `_reading`
    reading = {"transcripts", "transcripts._reading", "transcripts._readers", "transcripts._io"}
    reading |= {"transcripts._guess"}
    formats = {
        m
        for m in GRAPH
        if m.startswith("transcripts.") and m not in reading | {"transcripts._group"}
    }
    assert {"transcripts._native", "transcripts._otel", "transcripts._build"} <= formats
    assert {m: GRAPH[m] & reading for m in formats if GRAPH[m] & reading} == {}
    assert GRAPH["transcripts._readers"] & reading == set()
    assert GRAPH["transcripts._io"] == set()


def test_the_allowed_upward_imports_are_still_needed() -> None:
    # An exception that no longer happens is removed from the list, so the list stays true.
    for module, target in ALLOWED_UP:
        assert target in GRAPH[module], (module, target)


def test_the_scan_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from chatassert._base import Assertion\n"
        "from chatassert.specs import _yaml, load_suite\n"
        "import chatassert.judges\n"
        "if TYPE_CHECKING:\n"
        "    from chatassert._suite import Case\n"
        "def f():\n"
        "    from chatassert._text import Contains\n"
    )
    assert _imports(source) == {"_base", "specs", "specs._yaml", "judges", "_text"}


@pytest.mark.parametrize("module", sorted(FAMILIES | VOCABULARY_CHECKS | LAYERS[1][1]))
def test_a_module_of_checks_names_its_tests_and_they_exist(module: str) -> None:
    # docs/internals/architecture.md: a check's code, tests and docs are found from one another
    source = (SRC / "chatassert" / f"{module}.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(source))
    assert doc is not None
    assert "Tests:" in doc, f"{module}'s docstring names no tests"
    named = re.findall(r"(tests/[\w/]+(?:\.py)?|docs/\w+\.md)", doc)
    assert any(n.startswith("tests/") for n in named), module
    missing = [n for n in named if not (SRC.parent / n).exists()]
    assert missing == [], f"{module} names files that do not exist: {missing}"
