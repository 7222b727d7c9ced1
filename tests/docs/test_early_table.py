"""The table of how early each check is decided (docs/guard-a-running-agent.md) is what the
checks' classes declare now (`Assertion.decided_early`); a page not regenerated fails here with
the command that regenerates it."""

from __future__ import annotations

from doc_tools import load_tool

early_table = load_tool("early_table")


def test_the_committed_table_is_what_the_checks_declare_now() -> None:
    committed = early_table.PAGE.read_text(encoding="utf-8")
    assert early_table.page(committed) == committed, f"stale table: run `{early_table.REGENERATE}`"


def test_every_registered_kind_has_a_row() -> None:
    from chatassert.specs import registered

    rows = early_table.table().splitlines()[2:]
    assert len(rows) == len(registered())
