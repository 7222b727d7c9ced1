"""The example plugin package, examples/plugin, used from outside chatassert as its users use it.

Installed into a virtual environment of its own (built by pip from its pyproject.toml, its
entry points written as any installed distribution's), each of its pieces is used from the
command line: its checks from a native, a flat, a PromptKit and an expect file, its judge
by name, its log reader by name and by detection, its report format by name and by a file's
extension; a run that needs none of them does not import it, and `-p no:NAME` turns it off.
chatassert's pytest plugin collects its suite file and runs its own tests, which hold its
checks to `chatassert.testing.check_contract`. Then the same again from a checkout, not
installed: `--plugin`, `CHATASSERT_PLUGINS` and `--chatassert-plugin`.

Every command runs in a subprocess, as a user would run it, and its outcome is read from the
JSON report (the status of each case and of each check) rather than from its wording. The
install and the twenty-odd processes take a while: the module is `heavy` (tests/conftest.py),
on one xdist worker, and needs the build backend the test extra installs (hatchling).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import site
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "plugin"
DEMO = PACKAGE / "demo"
MODULE = "chatassert_support_desk.plugin"  # registers every piece, for --plugin

TALLY = """\
| case | passed | failed | error | skipped |
|---|---:|---:|---:|---:|
| support / refund status | 1 | 0 | 0 | 0 |
| support / late delivery | 0 | 1 | 0 | 0 |
| **total** | 1 | 1 | 0 | 0 |

1 of 2 cases passed.
"""
"""The tally of the flat suite over the demo's tickets: the late delivery's reply does not
quote its order id."""


# -- environments ----------------------------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    """This process's environment, without what would change a run under test: the shell's
    judge and plugins, pytest's own variables (the outer run's xdist worker), PYTHONPATH."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CHATASSERT_", "PYTEST_", "PIP_")) and key != "PYTHONPATH"
    }
    env["PIP_CONFIG_FILE"] = os.devnull  # no index, no constraints of the machine's pip
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # pytest's runs leave no __pycache__ in the checkout
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a virtual environment with examples/plugin installed by pip.

    The environment sees this one's packages (chatassert, pytest, the build backend) through
    a `.pth` file that adds their directories as site directories. `--system-site-packages`
    would show it the base interpreter's instead, which is not where they are when the tests
    themselves run in a virtual environment (as `.ci/run` runs them).
    """
    home = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True)
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    outer = [
        *site.getsitepackages(),
        *([site.getusersitepackages()] if site.ENABLE_USER_SITE else []),
    ]
    adds = "; ".join(f"site.addsitedir({path!r})" for path in outer)  # their .pth files too
    Path(found.stdout.strip(), "_outer_environment.pth").write_text(f"import site; {adds}\n")
    source = tmp_path_factory.mktemp("source") / "plugin"  # builds leave nothing in the checkout
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    installed = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            str(source),
        ],
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, f"pip could not install the example:\n{installed.stderr}"
    return python


def _run(
    python: Path, *argv: str, cwd: Path = DEMO, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), *argv],
        cwd=cwd,
        env=_env(**(env or {})),
        capture_output=True,
        text=True,
        timeout=120,
    )


Outcome = tuple[str, str, list[tuple[str, str]]]
"""A case outcome of a report: the case, its status, and each of its checks as `(name,
status)`: the name the suite file gave it, with the judge's name for a judged one."""


def _check(
    python: Path, *argv: str, env: Mapping[str, str] | None = None
) -> tuple[int, list[Outcome], str]:
    """Run `chatassert check ARGV` and read its JSON report: the exit code, each case outcome
    in the order of the log, and stderr."""
    argv = ("-m", "chatassert", "check", "-q", *argv, "-f", "json", "--full-results")
    done = _run(python, *argv, env=env)
    outcomes = [
        (row["case"], row["result"]["status"], list(_leaves(row["result"])))
        for row in map(json.loads, done.stdout.splitlines())
        if "case" in row
    ]
    return done.returncode, outcomes, done.stderr


def _leaves(node: dict[str, Any]) -> Iterator[tuple[str, str]]:
    children = node.get("children")
    if not children:
        name = node.get("spec_name") or node["name"]
        judge = (node.get("details") or {}).get("judge")
        yield (f"{name} by {judge}" if judge else name, node["status"])
    for child in children or ():
        yield from _leaves(child)


# -- installed --------------------------------------------------------------------------------

NATIVE = [
    (
        "refund status",
        "passed",
        [("quotes_order_id", "passed"), ("llm_rubric by house-rules", "passed")],
    ),
    ("late delivery", "failed", [("quotes_order_id", "failed")]),
]
"""The native suite's outcomes over the demo's tickets: the late delivery's reply does not
quote its order id; the refund's rubric is graded by the house-rules judge."""

FLAT = [
    ("refund status", "passed", [("quotes_order_id", "passed")]),
    ("late delivery", "failed", [("quotes_order_id", "failed")]),
]

SCENARIO = [  # its one case: the refund ticket names it, the other is checked as its only case
    ("refund status", "passed", [("mentions_order_id", "passed")]),
    ("refund status", "failed", [("mentions_order_id", "failed")]),
]

EXPECT = [
    (
        "order-001: refund status",
        "passed",
        [("status", "passed"), ("message_quotes_order_id", "passed")],
    ),
    (
        "order-002: late delivery",
        "failed",
        [("status", "passed"), ("message_quotes_order_id", "failed")],
    ),
]

SUITES = [
    (("support.yaml", "tickets.jsonl", "--judge", "house-rules"), NATIVE),
    (("support.flat.yaml", "tickets.jsonl"), FLAT),
    (("support.scenario.yaml", "tickets.jsonl"), SCENARIO),
    (("support.expect.json", "responses.jsonl"), EXPECT),
]
"""The demo's suite in each spec format, the arguments that check it, and its outcomes."""


def test_installed_its_checks_are_named_in_every_spec_format(venv: Path) -> None:
    for argv, expected in SUITES:
        code, outcomes, err = _check(venv, *argv)
        assert (code, outcomes) == (1, expected), (argv, err)


def test_installed_lint_and_the_editor_schemas_know_its_checks(venv: Path) -> None:
    for suite in ("support.yaml", "support.flat.yaml", "support.scenario.yaml"):
        done = _run(venv, "-m", "chatassert", "lint", suite)
        assert done.returncode == 0, done.stdout + done.stderr
    done = _run(venv, "-m", "chatassert", "lint", "support.expect.json")
    assert done.returncode == 0, done.stdout + done.stderr

    for dialect, name in (
        ("flat", "quotes_order_id"),
        ("promptkit", "mentions_order_id"),
        ("expect", "message_quotes_order_id"),
    ):
        done = _run(venv, "-m", "chatassert", "schema", "--dialect", dialect)
        assert done.returncode == 0, done.stderr
        assert f'"{name}"' in done.stdout, f"the {dialect} schema lacks {name}"


def test_installed_its_judge_is_named_on_the_command_line_and_in_the_environment(
    venv: Path,
) -> None:
    for argv, env in ((["--judge", "house-rules"], {}), ([], {"CHATASSERT_JUDGE": "house-rules"})):
        code, outcomes, err = _check(venv, "support.yaml", "tickets.jsonl", *argv, env=env)
        assert (code, outcomes) == (1, NATIVE), (argv, env, err)


def test_installed_its_judge_is_a_named_judge_with_options_of_its_own(
    venv: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "judged.scenario.yaml"
    scenario.write_text(
        """
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: refund status}
spec:
  turns:
    - role: user
      content: Where is the refund for order A-1042?
      assertions:
        - type: llm_judge
          params: {criteria: 'Apologises ("Sorry")', judge: desk}
        - type: llm_judge
          params: {criteria: 'Shouts ("SORRY")', judge: desk}
""",
        encoding="utf-8",
    )
    desk = '{"desk": {"judge": "house-rules", "case": "sensitive"}}'  # an option of its own
    code, outcomes, err = _check(
        venv,
        str(scenario),
        "tickets.jsonl",
        "--log-format",
        "support-desk",
        env={"CHATASSERT_JUDGES": desk},
    )
    judged = [("llm_judge by house-rules", "passed"), ("llm_judge by house-rules", "failed")]
    assert (code, outcomes) == (1, [("refund status", "failed", judged)] * 2), err


def test_installed_its_reader_reads_tickets_named_or_detected(venv: Path) -> None:
    for argv in ([], ["--log-format", "support-desk"]):
        code, outcomes, err = _check(venv, "support.flat.yaml", "tickets.jsonl", *argv)
        assert (code, outcomes) == (1, FLAT), (argv, err)


def test_installed_its_report_format_is_named_and_inferred(venv: Path, tmp_path: Path) -> None:
    done = _run(
        venv,
        "-m",
        "chatassert",
        "check",
        "-q",
        "support.flat.yaml",
        "tickets.jsonl",
        "-f",
        "tally-md",
    )
    assert (done.returncode, done.stdout) == (1, TALLY), done.stderr

    report = tmp_path / "report.md"
    done = _run(
        venv,
        "-m",
        "chatassert",
        "check",
        "-q",
        "support.flat.yaml",
        "tickets.jsonl",
        "-o",
        str(report),
        "--jobs",
        "2",
    )
    assert (done.returncode, report.read_text(encoding="utf-8")) == (1, TALLY), done.stderr

    listed = _run(venv, "-m", "chatassert", "check", "--help")
    assert ".md: tally-md" in " ".join(listed.stdout.split())


def test_installed_it_is_not_imported_by_a_run_that_needs_none_of_it(venv: Path) -> None:
    done = _run(
        venv,
        "-X",
        "importtime",
        "-m",
        "chatassert",
        "check",
        "-q",
        "--assert",
        "{type: contains, value: refund}",
        "../../booking.jsonl",
    )
    assert done.returncode in (0, 1), done.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "chatassert" in imported  # the import times were written
    assert not [name for name in imported if name.startswith("chatassert_support_desk")]


def test_installed_p_no_turns_a_piece_off(venv: Path) -> None:
    done = _run(
        venv,
        "-m",
        "chatassert",
        "check",
        "-q",
        "-p",
        "no:support-desk",
        "support.flat.yaml",
        "tickets.jsonl",
    )
    assert done.returncode == 2
    assert "quotes_order_id" in done.stderr, done.stderr


def test_installed_pytest_collects_its_suite_and_runs_its_tests(venv: Path) -> None:
    tests = PACKAGE / "tests"
    done = _run(
        venv, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(tests), "-rA", cwd=PACKAGE
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED")]
    suite_items = [line for line in passed if "tickets.chatassert.yaml" in line]
    assert len(suite_items) == 2, done.stdout  # a test item a case of the suite file
    assert any("test_quotes_order_id_keeps_the_contract" in line for line in passed)


# -- from a checkout, not installed -----------------------------------------------------------


@pytest.fixture(scope="module")
def checkout() -> dict[str, str]:
    """The environment of a run from a checkout: the package's source on PYTHONPATH, not
    installed in this environment."""
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.distribution("chatassert-support-desk")
    return {"PYTHONPATH": str(PACKAGE / "src")}


@pytest.mark.parametrize("given_by", ["--plugin", "CHATASSERT_PLUGINS"])
def test_from_a_checkout_plugin_loads_every_piece(
    given_by: str, checkout: dict[str, str], tmp_path: Path
) -> None:
    python = Path(sys.executable)
    argv = ("--plugin", MODULE) if given_by == "--plugin" else ()
    env = checkout if argv else {**checkout, "CHATASSERT_PLUGINS": MODULE}

    for judge in ("house-rules", "chatassert_support_desk.judges:house_rules"):
        code, outcomes, err = _check(python, *argv, *SUITES[0][0][:2], "--judge", judge, env=env)
        assert (code, outcomes) == (1, NATIVE), (judge, err)
    for suite, expected in SUITES[1:]:
        code, outcomes, err = _check(python, *argv, *suite, env=env)
        assert (code, outcomes) == (1, expected), (suite, err)

    report = tmp_path / "report.md"
    done = _run(
        python,
        "-m",
        "chatassert",
        "check",
        "-q",
        *argv,
        "support.flat.yaml",
        "tickets.jsonl",
        "--log-format",
        "support-desk",
        "-o",
        str(report),
        "--jobs",
        "2",  # checked in worker processes too
        env=env,
    )
    assert (done.returncode, report.read_text(encoding="utf-8")) == (1, TALLY), done.stderr


def test_from_a_checkout_without_plugin_its_checks_are_unknown(checkout: dict[str, str]) -> None:
    done = _run(
        Path(sys.executable),
        "-m",
        "chatassert",
        "check",
        "-q",
        "support.flat.yaml",
        "tickets.jsonl",
        env=checkout,
    )
    assert done.returncode == 2
    assert "quotes_order_id" in done.stderr, done.stderr


def test_from_a_checkout_pytest_takes_chatassert_plugin(checkout: dict[str, str]) -> None:
    done = _run(
        Path(sys.executable),
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rA",
        "--chatassert-plugin",
        MODULE,
        str(PACKAGE / "tests"),
        cwd=PACKAGE,
        env=checkout,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED")]
    assert len([line for line in passed if "tickets.chatassert.yaml" in line]) == 2, done.stdout
