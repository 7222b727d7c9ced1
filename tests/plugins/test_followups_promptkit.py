"""A bare list of PromptKit assertions (no Scenario around it) that names an installed
plugin's check by its PromptKit name is read as PromptKit: detection looks a name no type
registered so far has up among the plugins of checks, and only then. Every run is a
subprocess with a real distribution (`plugin_dists.make_dist`) on its PYTHONPATH.
"""

from __future__ import annotations

import json
from pathlib import Path

from plugin_dists import make_dist, run_cli, run_python

ORDER_CHECKS = '''
    """A check with a PromptKit name of its own: `order_id_quoted`."""

    import re

    from chatassert import Assertion, Result, Status, register


    @register
    class QuotesOrderId(Assertion):
        """Passes when the reply quotes an order id (ORD-1234)."""

        __slots__ = ()
        kind = "quotes_order_id"
        dialect_names = {"promptkit.turn": "order_id_quoted"}
        params = ()

        def _check(self, subject):
            if re.search(r"ORD-\\d+", getattr(subject, "text", None) or ""):
                return Result(Status.PASSED, self.kind, "quotes an order id")
            return Result(Status.FAILED, self.kind, "no order id (ORD-1234) in the reply")

        def describe(self):
            return "quotes an order id"
'''

LOG = (
    '{"turns": [{"input": "Where is my order?", "text": "ORD-12 ships today."}]}\n'
    '{"turns": [{"input": "Where is my order?", "text": "Soon."}]}\n'
)


def _installed(root: Path) -> Path:
    return make_dist(
        root,
        "order-checks",
        {"chatassert.checks": {"orders": "order_checks"}},
        {"order_checks.py": ORDER_CHECKS},
    )


def test_a_bare_promptkit_list_naming_a_plugin_check_is_promptkit(tmp_path: Path) -> None:
    _installed(tmp_path)
    (tmp_path / "checks.yaml").write_text("- type: order_id_quoted\n", encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(LOG, encoding="utf-8")
    loaded = run_python(
        """
        from chatassert.specs import load_suite

        suite = load_suite("checks.yaml")
        print(suite.dialect, [check.describe() for check in suite.cases[0].checks])
        """,
        tmp_path,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.startswith("promptkit [")
    assert "quotes an order id" in loaded.stdout
    checked = run_cli(["check", "checks.yaml", "log.jsonl", "-f", "json"], tmp_path)
    assert checked.returncode == 1, checked.stderr
    rows = [json.loads(line) for line in checked.stdout.splitlines()]
    assert [row["result"]["status"] for row in rows if "source" in row] == ["passed", "failed"]


def test_a_bare_list_of_built_in_names_loads_no_plugin(tmp_path: Path) -> None:
    make_dist(
        tmp_path,
        "broken-checks",
        {"chatassert.checks": {"broken": "broken_checks"}},
        {"broken_checks.py": "raise RuntimeError('imported')\n"},
    )
    (tmp_path / "checks.yaml").write_text("- type: valid_json\n", encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(LOG, encoding="utf-8")
    checked = run_cli(["check", "checks.yaml", "log.jsonl", "-f", "json"], tmp_path)
    assert (checked.returncode, checked.stderr) == (1, "")
    rows = [json.loads(line) for line in checked.stdout.splitlines()]
    assert [row["result"]["status"] for row in rows if "source" in row] == ["failed", "failed"]
