"""The tools know the checks of one's own: the editor schemas (`chatassert schema --dialect`,
the copies `chatassert init` writes), `chatassert schema spec` and `chatassert lint`, for the
checks registered in the process, given with `--plugin`, or of an installed plugin.

The checks are those of `spec_own_checks`: registered by the `own_checks` fixture for the
commands run in this process, and by a `--plugin` module or an installed distribution's entry
point for those run as a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from spec_own_checks import MentionsOrderId

from chatassert._cli import main
from chatassert._schemas import dialect_schema

HERE = Path(__file__).resolve().parent
OWN_MODULE = MentionsOrderId.__module__
SCENARIO = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: order}
spec:
  turns:
    - role: user
      content: Where is my order?
      assertions:
        - {type: quotes_order_id, message: the reply quotes the order id}
        - {type: mentions_order_id}
        - {type: refund_within_total, params: {field: refund}}
  conversation_assertions:
    - {type: apologises_once}
"""


# -- schemas, init, lint -------------------------------------------------------------------


def valid(schema: dict[str, Any], doc: object) -> list[str]:
    return [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]


@pytest.mark.usefixtures("own_checks")
def test_the_editor_schemas_describe_the_checks_registered() -> None:
    flat = dialect_schema("flat")
    names = flat["definitions"]["flat_assertion"]["properties"]["type"]["enum"]
    assert {"mentions_order_id", "mentions-order", "apologises_once"} <= set(names)
    title = flat["definitions"]["flat_mentions-order"]["description"]
    assert title == (
        f"Passes when the reply quotes an order id (such as A-1234). ({OWN_MODULE}.MentionsOrderId)"
    )
    doc = {"turns": [{"user_input": "hi", "assertions": [{"type": "mentions-order"}]}]}
    assert valid(flat, doc) == []
    promptkit = dialect_schema("promptkit")
    turn = promptkit["definitions"]["turn_assertion"]["properties"]["type"]["enum"]
    conversation = promptkit["definitions"]["conversation_assertion"]["properties"]["type"]
    assert {"quotes_order_id", "mentions_order_id", "refund_within_total"} <= set(turn)
    assert "apologises_once" in conversation["enum"]
    assert "apologises_once" not in turn
    assert valid(promptkit, yaml.safe_load(SCENARIO)) == []
    expect = dialect_schema("expect")
    keys = expect["definitions"]["expect"]["propertyNames"]["enum"]
    assert {"refund_within_total", "within_limit", "has_order", "has-order-number"} <= set(keys)
    assert "mentions_order_id" not in keys
    good = {
        "refund_within_total": "refund_due",
        "has_order": True,
        "within_limit": {"field": "refund_due", "limit": 3},
    }
    assert valid(expect, good) == []
    assert valid(expect, {"within_limit": 10}) != []
    native = dialect_schema("native")
    assert "kind_apologises_once" in native["definitions"]


@pytest.mark.usefixtures("own_checks")
def test_the_shipped_schemas_hold_the_built_in_types_only() -> None:
    for dialect in ("flat", "promptkit", "expect", "native"):
        text = json.dumps(dialect_schema(dialect, plugins=False))
        assert "mentions_order_id" not in text
        assert "refund_within_total" not in text


def run_main(*args: str) -> tuple[int, str, str]:
    """The command line, in this process (where the fixture registered the checks)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", out)
        patch.setattr("sys.stderr", err)
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.usefixtures("own_checks")
def test_schema_dialect_prints_the_checks_registered() -> None:
    code, out, err = run_main("schema", "--dialect", "promptkit")
    assert code == 0, err
    assert "conversation_apologises_once" in json.loads(out)["definitions"]


@pytest.mark.usefixtures("own_checks")
def test_init_writes_a_schema_with_the_checks_registered_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("order.flat.yaml").write_text(
        "turns:\n  - user_input: hi\n    assertions: [{type: mentions-order}]\n"
    )
    code, out, err = run_main("init", "order.flat.yaml")
    assert code == 0, err
    assert (".chatassert/flat.schema.json: wrote (the flat schema of chatassert ") in out
    assert (
        "and 6 checks of one's own: apologises_once, has_order, mentions-order, "
        "mentions_order_id, refund_within_total, within_limit)" in out
    )
    schema = json.loads(Path(".chatassert/flat.schema.json").read_text())
    doc = yaml.safe_load(Path("order.flat.yaml").read_text())
    assert valid(schema, doc) == []


@pytest.mark.usefixtures("own_checks")
def test_lint_loads_them_and_names_them_in_its_hints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("ok.yaml").write_text(SCENARIO)
    Path("typo.yaml").write_text(
        "turns:\n  - user_input: hi\n    assertions: [{type: mentions_order_ix}]\n"
    )
    code, out, err = run_main("lint", "ok.yaml", "typo.yaml")
    assert code == 2
    assert "ok.yaml: ok (promptkit, 1 case, 4 assertions)" in out
    assert (
        "typo.yaml:3: turns[0].assertions[0]: unknown flat assertion type 'mentions_order_ix' "
        "(did you mean 'mentions_order_id'" in err
    )


# -- from the command line, as a subprocess --------------------------------------------------

FLAT = "turns:\n  - user_input: Where is my order?\n    assertions: [{type: mentions-order}]\n"
EXPECT = '[{"id": "t", "expect": {"refund_within_total": "refund_due", "has_order": true}}]\n'


def chatassert(*args: str, cwd: Path, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`chatassert ARGS` in `cwd`, with `path` (and this directory, where `spec_own_checks`
    is) on PYTHONPATH and no plugin from this environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATASSERT_")}
    env["PYTHONPATH"] = os.pathsep.join(
        str(p) for p in (path, HERE, *filter(None, [os.environ.get("PYTHONPATH")])) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=120,
    )


def suites(directory: Path) -> list[str]:
    """Write a flat, a PromptKit and an expect file naming the checks; return their names."""
    files = {"order.flat.yaml": FLAT, "order.scenario.yaml": SCENARIO, "refunds.json": EXPECT}
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return list(files)


def test_lint_schema_and_init_take_the_checks_of_a_plugin_module(tmp_path: Path) -> None:
    (tmp_path / "house.py").write_text(
        "from spec_own_checks import register_all\n\nregister_all()\n", encoding="utf-8"
    )
    names = suites(tmp_path)
    linted = chatassert("lint", "--plugin", "house.py", *names, cwd=tmp_path)
    assert linted.returncode == 0, linted.stderr
    assert linted.stdout.splitlines() == [
        "order.flat.yaml: ok (flat, 1 case, 1 assertion)",
        "order.scenario.yaml: ok (promptkit, 1 case, 4 assertions)",
        "refunds.json: ok (expect, 1 case, 2 assertions)",
    ]
    shown = chatassert("schema", "--dialect", "expect", "-p", "house", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    keys = json.loads(shown.stdout)["definitions"]["expect"]["propertyNames"]["enum"]
    assert {"refund_within_total", "has_order", "has-order-number"} <= set(keys)
    done = chatassert("init", "-p", "house", "order.flat.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "checks of one's own: apologises_once, has_order, mentions-order" in done.stdout
    copied = json.loads((tmp_path / ".chatassert/flat.schema.json").read_text(encoding="utf-8"))
    assert valid(copied, yaml.safe_load(FLAT)) == []
    bare = chatassert("lint", *names, cwd=tmp_path)  # without the module: unknown types
    assert bare.returncode == 2
    assert "unknown flat assertion type 'mentions-order'" in bare.stderr


def test_an_installed_plugins_checks_are_known_everywhere_without_being_named(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    info = site / "house_checks-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: house-checks\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[chatassert.checks]\nhouse = house_plugin\n")
    (site / "house_plugin.py").write_text(
        "from spec_own_checks import register_all\n\nregister_all()\n", encoding="utf-8"
    )
    names = suites(tmp_path)
    linted = chatassert("lint", *names, cwd=tmp_path, path=site)
    assert linted.returncode == 0, linted.stderr
    assert "refunds.json: ok (expect, 1 case, 2 assertions)" in linted.stdout
    shown = chatassert("schema", "--dialect", "promptkit", cwd=tmp_path, path=site)
    assert shown.returncode == 0, shown.stderr
    definitions = json.loads(shown.stdout)["definitions"]
    assert "conversation_apologises_once" in definitions
    assert "turn_quotes_order_id" in definitions
    native = json.loads(chatassert("schema", "spec", cwd=tmp_path, path=site).stdout)
    assert "kind_within_limit" in native["$defs"]
    off = chatassert("lint", "-p", "no:house", "order.flat.yaml", cwd=tmp_path, path=site)
    assert off.returncode == 2
    assert "unknown flat assertion type 'mentions-order'" in off.stderr
    shipped = chatassert(
        "schema", "--dialect", "flat", "-p", "no:house-checks", cwd=tmp_path, path=site
    )
    assert shipped.stdout == (
        HERE.parents[1] / "src/chatassert/schemas/flat.schema.json"
    ).read_text(encoding="utf-8")


def test_a_schema_names_an_installed_plugin_of_checks_that_does_not_load(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "broken_checks-2.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-checks\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text("[chatassert.checks]\nbroken = broken_plugin\n")
    (site / "broken_plugin.py").write_text("raise ImportError('no module named orders_api')\n")
    done = chatassert("schema", "--dialect", "flat", cwd=tmp_path, path=site)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "plugin 'broken' (entry point 'broken = broken_plugin'" in done.stderr
    assert "broken-checks 2.0" in done.stderr
    assert "-p no:broken" in done.stderr
    shipped = chatassert("schema", "--dialect", "flat", "-p", "no:broken", cwd=tmp_path, path=site)
    assert shipped.returncode == 0, shipped.stderr
