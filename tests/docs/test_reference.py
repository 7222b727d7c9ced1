"""The generated reference pages (docs/reference/) are those the code gives now, and complete.

docs/tools/reference.py builds docs/reference/api.md from the docstrings and
docs/reference/parameters.md from the assertion registry; a docstring or a parameter changed
without regenerating the pages fails here, with the command that regenerates them.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest
from doc_tools import ROOT, load_tool

import chatassert
from chatassert import _registry
from chatassert.specs import _expect
from optional_engines import require_installed

# The API page documents the adapters of the Agents SDK and ADK, which import their frameworks
# (the test extra installs them; .ci/run requires them).
require_installed("agents", "CHATASSERT_REQUIRE_AGENTS")
require_installed("google.adk", "CHATASSERT_REQUIRE_ADK")

reference = load_tool("reference")


def _sections(text: str, level: str) -> dict[str, str]:
    """The text under each heading of `level` (`##`, `###`), by heading."""
    parts = re.split(rf"^{level} (.+)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize("page", ["api", "parameters"])
def test_the_committed_page_is_what_the_code_gives_now(page: str) -> None:
    path = {"api": reference.API_PAGE, "parameters": reference.PARAMETERS_PAGE}[page]
    build = {"api": reference.api_page, "parameters": reference.parameters_page}[page]
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: run `{reference.REGENERATE}`"
    committed = path.read_text(encoding="utf-8")
    now = build()
    if committed != now:
        old, new = committed.splitlines(), now.splitlines()
        first = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        pytest.fail(
            f"{path.relative_to(ROOT)} is out of date (first difference at line {first + 1}: "
            f"{old[first : first + 1]} is now {new[first : first + 1]}); run "
            f"`{reference.REGENERATE}` and commit the page"
        )


def test_every_public_module_is_in_the_api_reference() -> None:
    public = {"chatassert"}
    for info in pkgutil.walk_packages(chatassert.__path__, "chatassert."):
        parts = info.name.split(".")[1:]
        if any(part.startswith("_") for part in parts):
            continue
        if hasattr(importlib.import_module(info.name), "__all__"):
            public.add(info.name)
    missing = public - set(reference.PUBLIC_MODULES)
    assert not missing, f"add {sorted(missing)} to PUBLIC_MODULES in docs/tools/reference.py"


def test_every_public_name_is_in_the_api_reference() -> None:
    sections = _sections(reference.API_PAGE.read_text(encoding="utf-8"), "##")
    missing = []
    for module_name, names in reference.public_names().items():
        body = sections.get(module_name, "")
        rows = set(re.findall(r"^\| \[?`([^`]+)`", body, flags=re.M))
        missing += [f"{module_name}.{name}" for name in names if name not in rows]
    assert not missing, f"not in docs/reference/api.md: {missing}"


def test_every_public_name_has_a_docstring() -> None:
    text = reference.API_PAGE.read_text(encoding="utf-8")
    undocumented = re.findall(r"^\| \[`([^`]+)`\]\([^)]*\) \|\s*\|$", text, flags=re.M)
    assert not undocumented, f"public names without a docstring: {undocumented}"
    assert "(no docstring)" not in text, "a public method or property has no docstring"


def test_the_harness_loop_methods_are_described_with_an_example() -> None:
    # a harness pairs its own conversations with a suite's cases: Suite.find and cases_for
    methods = _sections(reference.API_PAGE.read_text(encoding="utf-8"), "####")
    for name in ("Suite.find", "Suite.cases_for"):
        assert name in methods, f"{name} is not in docs/reference/api.md"
        assert "```pycon" in methods[name], f"{name}'s docstring has no example"


def test_every_type_of_every_vocabulary_is_in_the_parameters_page() -> None:
    headings = set(_sections(reference.PARAMETERS_PAGE.read_text(encoding="utf-8"), "###"))
    wanted = [f"flat: `{n}`" for n in _registry.dialect_types("flat")]
    for level in ("turn", "conversation"):
        types = _registry.dialect_types(f"promptkit.{level}")
        wanted += [f"PromptKit {level}: `{n}`" for n in types]
    wanted += [f"expect: `{key}`" for key in _expect.expect_keys()]
    wanted += [f"native: `{kind}`" for kind in _registry.registered()]
    missing = [w for w in wanted if w not in headings]
    assert not missing, f"not in docs/reference/parameters.md: {missing}"


def test_every_parameter_and_its_other_spellings_are_in_the_parameters_page() -> None:
    sections = _sections(reference.PARAMETERS_PAGE.read_text(encoding="utf-8"), "###")
    missing = []
    for kind, cls in _registry.registered().items():
        body = sections[f"native: `{kind}`"]
        for param in cls.params:
            for name in (param.name, *param.aliases):
                if f"`{name}`" not in body:
                    missing.append(f"{kind}.{name}")
    assert not missing, f"parameters missing from docs/reference/parameters.md: {missing}"


def test_the_anchors_the_pages_link_to_exist() -> None:
    for path in (reference.API_PAGE, reference.PARAMETERS_PAGE):
        text = path.read_text(encoding="utf-8")
        anchors = {reference.anchor(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
        links = set(re.findall(r"\]\(#([^)]+)\)", text))
        assert links - anchors == set(), f"{path.name} links to missing anchors"


def test_check_mode_says_how_to_regenerate_a_stale_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "parameters.md"
    stale.write_text("# an old page\n", encoding="utf-8")
    monkeypatch.setattr(reference, "ROOT", tmp_path)
    monkeypatch.setattr(reference, "PAGES", {stale: reference.parameters_page})
    assert reference.main(["--check"]) == 1
    assert "out of date: parameters.md; run `python docs/tools/reference.py`" in (
        capsys.readouterr().err
    )
    assert stale.read_text(encoding="utf-8") == "# an old page\n"  # --check writes nothing
    assert reference.main([]) == 0
    assert stale.read_text(encoding="utf-8") == reference.parameters_page()
    assert reference.main(["--check"]) == 0
