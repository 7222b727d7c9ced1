"""The table of what each log format fills (docs/offline.md, "Log formats") is what the readers
give now.

docs/tools/formats_table.py reads every format's records and writes the table between its
marker comments; a reader that starts or stops filling a field, or a new format, changes the
table, and a page not regenerated fails here with the command that regenerates it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_tools import load_tool

from chatassert.transcripts._readers import READERS

formats_table = load_tool("formats_table")


def _table(text: str) -> list[str]:
    return text.split(formats_table.BEGIN)[1].split(formats_table.END)[0].strip().splitlines()


def test_the_committed_table_is_what_the_readers_give_now() -> None:
    committed = formats_table.PAGE.read_text(encoding="utf-8")
    old, new = _table(committed), _table(formats_table.page(committed))
    if old != new:
        first = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        pytest.fail(
            f"the table of docs/offline.md is out of date (row {first + 1}: "
            f"{old[first : first + 1]} is now {new[first : first + 1]}); run "
            f"`{formats_table.REGENERATE}` and commit the page"
        )


def test_the_table_has_a_row_for_every_format_in_detection_order() -> None:
    rows = _table(formats_table.PAGE.read_text(encoding="utf-8"))[2:]
    assert [row.split("|")[1].strip().strip("`") for row in rows] == [r.name for r in READERS]


def test_the_table_is_written_between_its_markers_and_nowhere_else() -> None:
    text = "intro\n" + formats_table.BEGIN + "\nstale\n" + formats_table.END + "\nrest\n"
    page = formats_table.page(text)
    assert page.startswith("intro\n" + formats_table.BEGIN + "\n| format |")
    assert page.endswith(formats_table.END + "\nrest\n")
    assert "stale" not in page
    with pytest.raises(ValueError, match="marker comments"):
        formats_table.page("no markers here")


def test_the_check_command_says_when_the_page_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "offline.md"
    page.write_text(f"# Logs\n{formats_table.BEGIN}\n| old |\n{formats_table.END}\n", "utf-8")
    monkeypatch.setattr(formats_table, "PAGE", page)
    assert formats_table.main(["--check"]) == 1
    assert formats_table.REGENERATE in capsys.readouterr().err
    assert formats_table.main([]) == 0
    assert formats_table.main(["--check"]) == 0
    assert "| `native` |" in page.read_text(encoding="utf-8")
