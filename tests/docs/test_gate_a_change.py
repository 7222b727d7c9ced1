"""docs/gate-a-change.md runs as written and shows what the commands print.

The page is played as the tutorial is (`test_tutorial.run_page`: its console blocks run in one
bash each and must print exactly what the page shows under each command, its python blocks
run and print what follows them) in a temporary directory holding a copy of the repository's
`examples/`, as a reader runs it from a checkout. After a deliberate change of what the
commands print, `python tests/docs/test_gate_a_change.py --update` rewrites the page's console
outputs, to be reviewed before they are committed.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from test_tutorial import ROOT, Session, run_page

PAGE = ROOT / "docs" / "gate-a-change.md"


def _workdir(where: Path) -> Path:
    shutil.copytree(ROOT / "examples", where / "examples", ignore=shutil.ignore_patterns("plugin"))
    return where


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Session:
    if shutil.which("bash") is None:
        pytest.skip("the page's shell sessions need bash")
    return run_page(PAGE, _workdir(tmp_path_factory.mktemp("gate")))


def test_the_page_runs_as_written_and_prints_what_it_shows(page: Session) -> None:
    written = json.loads((page.workdir / "compare.json").read_text(encoding="utf-8"))
    assert written["gate"] == {"fail_on": ["regression"], "max_drop": {}, "passed": True,
                               "failed": []}  # fmt: skip
    assert (page.workdir / "compare.xml").exists()


def test_the_json_shape_the_page_documents_is_the_one_written(page: Session) -> None:
    text = PAGE.read_text(encoding="utf-8")
    shown = text.split("### The JSON report", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    documented = json.loads(shown)
    written = json.loads((page.workdir / "compare.json").read_text(encoding="utf-8"))
    assert list(documented) == list(written)
    assert list(documented["overall"]) == list(written["overall"])
    assert list(documented["overall"]["base"]) == list(written["overall"]["base"])
    assert list(documented["flips"][0]) == list(written["flips"][0])
    assert list(documented["gate"]) == list(written["gate"])
    assert list(documented["base"]) == list(written["base"])
    flip = next(f for f in written["flips"] if f["assertion"] == "matches")
    assert flip == documented["flips"][0]
    assert written["overall"]["verdict"] == documented["overall"]["verdict"]


if __name__ == "__main__":
    # python tests/docs/test_gate_a_change.py --update: the console outputs as they are now
    import tempfile

    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/docs/test_gate_a_change.py --update")
    with tempfile.TemporaryDirectory() as scratch:
        run_page(PAGE, _workdir(Path(scratch)), update=True)
    print(f"updated {PAGE.relative_to(ROOT)}: review the diff before committing it")
