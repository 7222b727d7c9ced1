"""The docs hold together: links resolve, cited rules are written down, tables render.

- Every relative link of the README and of docs/ names a file that exists, and an anchor
  (`page.md#section`, `#section`) names a heading or an `<a id>` of that page, as GitHub
  renders them.
- Every rule id cited in the docs, the docstrings or the shipped schemas (G1 to G21) has its
  anchor in docs/semantics.md, and nothing refers to a semantics file outside the repository.
- The README leads: tutorial first, then guides, then reference, internals last; the docs
  index lists every user page, the internals index every internal note.
- Every Markdown table renders: a header, its separator row, and as many cells in each row
  as in the header (a `|` inside a cell, even in code, must be written `\\|`).
- The PromptKit page's tables of types name every type the registry has at each level.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from chatassert import _registry

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")
RULE = re.compile(r"\bG\d{1,2}\b")


def prose(text: str) -> str:
    """A page without its fenced code blocks and inline code."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    heading = re.sub(r"<[^>]+>", "", heading)
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors of a page: its headings' (a repeated heading gets -1, -2, ...) and its
    `<a id>`s."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        base = slug(heading)
        name, n = base, 0
        while name in found:
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    found |= set(re.findall(r"<a id=\"([^\"]+)\"", text))
    return frozenset(found)


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target} (no such anchor)")
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"


def _rule_citations() -> dict[str, set[str]]:
    """Each rule id cited, and where."""
    cited: dict[str, set[str]] = {}
    sources = [
        *(p for p in PAGES if p.name != "semantics.md"),
        *(ROOT / "src").rglob("*.py"),
        *(ROOT / "src" / "chatassert" / "schemas").glob("*.json"),
    ]
    for path in sources:
        for rule in RULE.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return cited


def test_every_cited_rule_is_written_in_the_semantics_page() -> None:
    semantics = ROOT / "docs" / "semantics.md"
    written = anchors(semantics)
    cited = _rule_citations()
    assert cited, "no rule citations found: the pattern is wrong"
    missing = {rule: sorted(where) for rule, where in cited.items() if rule.lower() not in written}
    assert not missing, f"rules cited but not in docs/semantics.md: {missing}"
    text = semantics.read_text(encoding="utf-8")
    for rule in sorted(cited):
        assert f'<a id="{rule.lower()}"></a>\n**{rule} — ' in text, f"{rule} has no statement"


def test_every_rule_of_the_semantics_page_has_one_anchor_and_one_statement() -> None:
    text = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")
    ids = re.findall(r'<a id="(g\d+)"></a>', text)
    assert len(ids) == len(set(ids))
    statements = re.findall(r"^\*\*(G\d+) — ", text, flags=re.M)
    assert [s.lower() for s in statements] == ids


def test_nothing_refers_to_a_semantics_file_outside_the_repository() -> None:
    # rule ids once cited "SEMANTICS G9", a file users never had
    sources = [*PAGES, *(ROOT / "src").rglob("*.py")]
    citing = [str(p.relative_to(ROOT)) for p in sources if "SEMANTICS" in p.read_text("utf-8")]
    assert not citing, f"cite docs/semantics.md instead: {citing}"


def test_the_readme_leads_from_the_tutorial_to_the_internals() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docs = readme.split("## Documentation", 1)[1].split("\n## ", 1)[0]
    targets = links_in(docs)
    assert targets[0] == "docs/tutorial.md", targets
    assert targets[-1] == "docs/internals/", targets
    internal = [t for t in targets if t.startswith("docs/internals")]
    assert internal == ["docs/internals/"], "internal pages are reached through their index"
    for wanted in ("docs/reference/api.md", "docs/reference/parameters.md", "docs/semantics.md",
                   "docs/glossary.md"):  # fmt: skip
        assert wanted in targets, wanted


def links_in(text: str) -> list[str]:
    return LINK.findall(prose(text))


def test_every_user_page_is_in_the_docs_index() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    listed = {t.split("#")[0] for t in links_in(index)}
    pages = {
        str(p.relative_to(ROOT / "docs"))
        for p in (ROOT / "docs").rglob("*.md")
        if p.name != "README.md" and "internals" not in p.parts
    }
    assert pages - listed == set(), f"docs/README.md does not list {sorted(pages - listed)}"
    internals = (ROOT / "docs" / "internals" / "README.md").read_text(encoding="utf-8")
    listed = {t.split("#")[0] for t in links_in(internals)}
    notes = {p.name for p in (ROOT / "docs" / "internals").glob("*.md") if p.name != "README.md"}
    assert notes - listed == set(), f"docs/internals/README.md does not list {notes - listed}"


def _cells(row: str) -> list[str]:
    row = row.strip().removeprefix("|")
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return re.split(r"(?<!\\)\|", row)


def tables(page: Path) -> list[tuple[int, list[str]]]:
    """The tables of a page (outside code blocks): their first line, and their rows."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"))
    found: list[tuple[int, list[str]]] = []
    rows: list[str] = []
    for number, line in enumerate([*text.splitlines(), ""], 1):
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            found.append((number - len(rows), rows))
            rows = []
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_table_renders(page: Path) -> None:
    bad = []
    for line, rows in tables(page):
        if len(rows) < 2 or not re.match(r"^\|?\s*:?-{3,}", rows[1]):
            bad.append(f"line {line}: no header and separator row (a blank line in a table?)")
            continue
        width = len(_cells(rows[0]))
        bad += [
            f"line {line + i}: {len(_cells(row))} cells, the header has {width}"
            for i, row in enumerate(rows)
            if len(_cells(row)) != width
        ]
    assert not bad, f"{page.relative_to(ROOT)}: {bad}"


def _table_names(rows: list[str], column: int) -> list[tuple[str, list[str]]]:
    out = []
    for row in rows[2:]:
        cells = _cells(row)
        out.append((cells[0].strip(), re.findall(r"`(\w+)`", cells[column])))
    return out


def test_the_promptkit_page_lists_every_type_of_each_level() -> None:
    page = ROOT / "docs" / "promptkit.md"
    found = {t[1][0]: t[1] for t in tables(page)}
    levels = _table_names(found["| level | types |"], 1)
    later = found["| later name | level | is |"]
    listed: dict[str, set[str]] = {level: set(names) for level, names in levels}
    for row in later[2:]:
        cells = _cells(row)
        for name in re.findall(r"`(\w+)`", cells[0]):
            listed.setdefault(cells[1].strip(), set()).add(name)
    for level in ("turn", "conversation"):
        registered = set(_registry.dialect_types(f"promptkit.{level}"))
        shown = listed.get(level, set())
        assert shown == registered, (
            f"docs/promptkit.md, {level} level: missing {sorted(registered - shown)}, "
            f"not registered {sorted(shown - registered)}"
        )


def test_the_pytest_page_documents_every_option_of_the_plugin(pytester: pytest.Pytester) -> None:
    # the options as pytest itself lists them (`pytest --help`), with the plugin installed
    shown = pytester.runpytest("--help").stdout.str()
    options = set(re.findall(r"(--chatassert-[\w-]+)", shown))
    ini = set(re.findall(r"^\s+(chatassert_\w+) \(", shown, flags=re.M))
    assert {"--chatassert-repeat", "--chatassert-no-plan"} <= options, shown
    assert "chatassert_suites" in ini, shown
    page = (ROOT / "docs" / "pytest.md").read_text(encoding="utf-8")
    table = page.split("## Options and report", 1)[1]
    missing = [o for o in sorted(options) if f"| `{o}" not in table]
    missing += [f"ini {i}" for i in sorted(ini) if f"| ini `{i}`" not in table]
    assert not missing, f"docs/pytest.md's options table lacks {missing}"
