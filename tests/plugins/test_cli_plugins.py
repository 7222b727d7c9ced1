"""Plugins on the command line: `--plugin`/`-p`, `-p no:NAME`, `CHATASSERT_PLUGINS`, a native
suite's `plugins:`, `--jobs` workers, `--help`, and the pytest plugin's options.

Every run is a `chatassert` (or pytest) subprocess with the plugins' directory on PYTHONPATH:
installed plugins are real distributions (`plugin_dists.make_dist`), a repository's own
modules are plain files in the working directory.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from plugin_dists import DESK_READER, make_dist, run_cli

HOUSE_CHECKS = '''
    """A repository's own check: the reply quotes an order id."""

    import re

    from chatassert import Assertion, Result, Status, register


    def _text(subject):
        if isinstance(subject, str):
            return subject
        turns = getattr(subject, "turns", None)
        if turns is not None:
            return " ".join(turn.text or "" for turn in turns)
        return getattr(subject, "text", "") or ""


    @register
    class MentionsOrderId(Assertion):
        """Passes when the text quotes an order id (ORD-1234)."""

        __slots__ = ()
        kind = "mentions_order_id"
        level = "any"
        params = ()

        def _check(self, subject):
            if re.search(r"ORD-\\d+", _text(subject)):
                return Result(Status.PASSED, self.kind, "quotes an order id")
            return Result(Status.FAILED, self.kind, "no order id (ORD-1234) in the text")

        def describe(self):
            return "mentions an order id"
'''

REPORTS = '''
    """Two report formats: a tally of the run (its summary alone) and a line per case
    (streamed: with --jobs, the workers render and write its rows)."""


    class _Tally:
        def __init__(self, out):
            self.out = out

        def add(self, row, rendered):
            pass

        def finish(self, summary, meta):
            counts = summary.counts
            self.out.write(f"tally passed={counts['passed']} failed={counts['failed']}\\n")


    class Tally:
        name = "tally"
        extensions = (".tally",)
        description = "the counts of the run, one line"
        rows = "summary"
        excerpts = False
        needs_subject = False

        def render(self, outcome, subject, options):
            return {}

        def open(self, out, options):
            return _Tally(out)


    class _Lines:
        def __init__(self, out):
            self.out = out

        def add(self, row, rendered):
            if "caseline" in rendered:
                self.out.write(rendered["caseline"])

        def finish(self, summary, meta):
            self.out.write("end\\n")


    class CaseLines:
        name = "caseline"
        extensions = (".caselines",)
        description = "a line per case"
        rows = "streamed"
        excerpts = False
        needs_subject = False

        def render(self, outcome, subject, options):
            return {"caseline": f"{outcome.source} {outcome.result.status.value}\\n"}

        def open(self, out, options):
            return _Lines(out)


    TALLY = Tally()
    CASELINE = CaseLines()
'''

SUITE = """\
chatassert: 1
name: orders
assertions:
  - type: mentions_order_id
"""

DESK_LOG = "".join(
    json.dumps(line) + "\n"
    for line in (
        {"ticket": "where is my parcel?", "reply": "It is ORD-12, shipped today."},
        {"ticket": "refund?", "reply": "Refunded."},
        {"ticket": "address?", "reply": "ORD-7 goes to the new address."},
    )
)


def _dedent(source: str) -> str:
    return textwrap.dedent(source)


def _installed(root: Path) -> Path:
    """`orders-plugin` installed in `root`: the check, the desk reader, two report formats."""
    return make_dist(
        root,
        "orders-plugin",
        {
            "chatassert.checks": {"orders": "orders_checks"},
            "chatassert.readers": {"desk": "orders_desk:DESK"},
            "chatassert.reports": {
                "tally": "orders_reports:TALLY",
                "caseline": "orders_reports:CASELINE",
            },
        },
        {
            "orders_checks.py": HOUSE_CHECKS,
            "orders_desk.py": DESK_READER,
            "orders_reports.py": REPORTS,
        },
    )


def _broken(root: Path) -> Path:
    """`shaky-plugin` 0.3 in `root`: a report format whose module does not import."""
    return make_dist(
        root,
        "shaky-plugin",
        {"chatassert.reports": {"shaky": "shaky_report:SHAKY"}},
        {"shaky_report.py": "import no_such_dependency\n"},
        version="0.3",
    )


def _files(root: Path) -> None:
    (root / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (root / "desk.jsonl").write_text(DESK_LOG, encoding="utf-8")


# -- --plugin, CHATASSERT_PLUGINS ------------------------------------------------------------


@pytest.mark.parametrize("given", [["--plugin", "house_checks"], ["-phouse_checks"], []])
def test_a_module_of_the_repository_gives_its_checks_to_the_suite(
    tmp_path: Path, given: list[str]
) -> None:
    (tmp_path / "house_checks.py").write_text(_dedent(HOUSE_CHECKS), encoding="utf-8")
    _files(tmp_path)
    (tmp_path / "log.jsonl").write_text(
        '{"turns": [{"input": "where?", "text": "ORD-12 ships today"}]}\n', encoding="utf-8"
    )
    extra = {} if given else {"CHATASSERT_PLUGINS": "house_checks"}
    done = run_cli(
        ["check", *given, "suite.yaml", "log.jsonl", "-f", "json"], None, cwd=tmp_path, **extra
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["result"]["status"] == "passed"


def test_without_the_module_the_check_is_an_unknown_type(tmp_path: Path) -> None:
    _files(tmp_path)
    done = run_cli(["check", "suite.yaml", "desk.jsonl"], None, cwd=tmp_path)
    assert done.returncode == 2
    assert "suite.yaml:4: assertions[0]: unknown native assertion type 'mentions_order_id'" in (
        done.stderr
    )


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--plugin", "not_here"], {}, "plugin module 'not_here' (--plugin) cannot be imported"),
        ([], {"CHATASSERT_PLUGINS": "ok,two words"}, "CHATASSERT_PLUGINS: 'two words' is not"),
        (["-p", "no:"], {}, "--plugin: 'no:' names no plugin"),
    ],
)
def test_a_plugin_that_cannot_be_loaded_is_a_usage_error_naming_it(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    _files(tmp_path)
    done = run_cli(["check", *args, "suite.yaml", "desk.jsonl"], None, cwd=tmp_path, **env)
    assert done.returncode == 2
    assert done.stderr.startswith(f"chatassert: {said}")
    assert done.stdout == ""


# -- installed plugins -----------------------------------------------------------------------


def test_an_installed_reader_check_and_report_format_work_by_name(tmp_path: Path) -> None:
    _installed(tmp_path)
    _files(tmp_path)
    detected = run_cli(["check", "suite.yaml", "desk.jsonl", "-f", "tally"], tmp_path)
    assert (detected.returncode, detected.stdout) == (1, "tally passed=2 failed=1\n")
    named = run_cli(
        ["check", "suite.yaml", "desk.jsonl", "--log-format", "desk", "-o", "out.tally", "-q"],
        tmp_path,
    )
    assert named.returncode == 1, named.stderr
    assert (tmp_path / "out.tally").read_text(encoding="utf-8") == "tally passed=2 failed=1\n"


def test_jobs_workers_read_and_report_with_the_plugins(tmp_path: Path) -> None:
    _installed(tmp_path)
    _files(tmp_path)
    (tmp_path / "more.jsonl").write_text(DESK_LOG * 20, encoding="utf-8")
    args = ["check", "suite.yaml", "desk.jsonl", "more.jsonl", "-o", "cases.caselines"]
    one = run_cli([*args, "-o", "one.tally", "-q"], tmp_path)
    two = run_cli([*args, "-o", "two.tally", "-q", "--jobs", "2"], tmp_path)
    assert (one.returncode, two.returncode) == (1, 1), two.stderr
    assert (tmp_path / "one.tally").read_text() == (tmp_path / "two.tally").read_text()
    assert (tmp_path / "two.tally").read_text() == "tally passed=42 failed=21\n"
    lines = (tmp_path / "cases.caselines").read_text().splitlines()
    assert lines[0] == "desk.jsonl:1 passed"
    assert lines[-2:] == ["more.jsonl:60 passed", "end"]
    assert len(lines) == 64


def test_a_broken_report_plugin_does_not_stop_a_run_that_does_not_need_it(
    tmp_path: Path,
) -> None:
    _installed(tmp_path)
    _broken(tmp_path)
    _files(tmp_path)
    json_run = run_cli(["check", "suite.yaml", "desk.jsonl", "-f", "json"], tmp_path)
    assert json_run.returncode == 1, json_run.stderr
    assert json_run.stderr == ""
    tally = run_cli(["check", "suite.yaml", "desk.jsonl", "-f", "tally"], tmp_path)
    assert tally.stdout == "tally passed=2 failed=1\n"
    typo = run_cli(["check", "suite.yaml", "desk.jsonl", "-o", "out.tallly"], tmp_path)
    assert typo.returncode == 2
    assert "plugin 'shaky' (entry point 'shaky = shaky_report:SHAKY' in group " in typo.stderr
    assert "chatassert.reports of shaky-plugin 0.3) cannot be loaded" in typo.stderr
    assert "-p no:shaky" in typo.stderr
    off = run_cli(["check", "-p", "no:shaky", "suite.yaml", "desk.jsonl", "-f", "tallly"], tmp_path)
    assert off.returncode == 2
    assert "invalid choice: 'tallly'; did you mean 'tally'?" in off.stderr
    assert "shaky" not in off.stderr


def test_a_disabled_plugin_is_not_found(tmp_path: Path) -> None:
    _installed(tmp_path)
    _files(tmp_path)
    done = run_cli(
        ["check", "-p", "no:orders-plugin", "suite.yaml", "desk.jsonl"],
        tmp_path,
        CHATASSERT_PLUGINS="no:tally",
    )
    assert done.returncode == 2
    assert "unknown native assertion type 'mentions_order_id'" in done.stderr


def test_help_lists_the_installed_formats_and_warns_of_a_broken_plugin(tmp_path: Path) -> None:
    _installed(tmp_path)
    _broken(tmp_path)
    done = run_cli(["check", "--help"], tmp_path)
    assert done.returncode == 0
    assert "tally (the counts of the run, one line)" in " ".join(done.stdout.split())
    assert "desk" in done.stdout.split("--log-format NAME", 2)[2].split("\n\n")[0]
    assert done.stderr.startswith("chatassert: warning: plugin 'shaky' (entry point ")
    plain = run_cli(["check", "--help"], None)
    assert "tally" not in plain.stdout


# -- a native suite's plugins: ---------------------------------------------------------------


def test_a_native_suite_imports_its_plugins_from_its_own_directory(tmp_path: Path) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "orders_rules.py").write_text(_dedent(HOUSE_CHECKS), encoding="utf-8")
    (suites / "suite.yaml").write_text(
        SUITE.replace("name: orders\n", "name: orders\nplugins: [orders_rules]\n"),
        encoding="utf-8",
    )
    (tmp_path / "log.jsonl").write_text(
        '{"turns": [{"input": "x", "text": "ORD-9"}]}\n', encoding="utf-8"
    )
    done = run_cli(["check", "suites/suite.yaml", "log.jsonl"], None, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    spawned = run_cli(["lint", "suites/suite.yaml"], None, cwd=tmp_path)
    assert spawned.returncode == 0, spawned.stderr


@pytest.mark.parametrize(
    ("plugins", "said"),
    [
        ("[missing_rules]", "suite.yaml:3: plugins[0]: plugin module 'missing_rules' ("),
        ("[no:tally]", "suite.yaml:3: plugins[0]: a suite cannot turn the installed plugin"),
        ("[3]", "suite.yaml:3: plugins[0]: a plugin must be a module name"),
        ("orders_rules", "suite.yaml:3: plugins: 'plugins' must be a list"),
    ],
)
def test_a_suite_plugin_that_cannot_be_loaded_is_a_spec_error_at_its_line(
    tmp_path: Path, plugins: str, said: str
) -> None:
    (tmp_path / "suite.yaml").write_text(
        SUITE.replace("name: orders\n", f"name: orders\nplugins: {plugins}\n"), encoding="utf-8"
    )
    (tmp_path / "log.jsonl").write_text('{"turns": [{"text": "ORD-9"}]}\n', encoding="utf-8")
    done = run_cli(["check", "suite.yaml", "log.jsonl"], None, cwd=tmp_path)
    assert done.returncode == 2
    assert said in done.stderr
    assert "mentions_order_id" not in done.stderr  # the plugin's problem, not its consequence


# -- the pytest plugin -----------------------------------------------------------------------


def test_the_pytest_plugin_loads_plugins_from_its_option_and_ini(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(house_checks=_dedent(HOUSE_CHECKS))
    pytester.makefile(".chatassert.yaml", orders=SUITE)
    (pytester.path / "orders.jsonl").write_text(
        '{"turns": [{"input": "x", "text": "ORD-9"}]}\n{"turns": [{"input": "y", "text": "no"}]}\n',
        encoding="utf-8",
    )
    pytester.syspathinsert()  # the repository's own modules, as `python -m pytest` finds them
    by_option = pytester.runpytest_subprocess(
        "-p", "no:xdist", "--chatassert-plugin", "house_checks"
    )
    by_option.assert_outcomes(passed=1, failed=1)
    pytester.makeini("[pytest]\nchatassert_plugins = house_checks\n")
    by_ini = pytester.runpytest_subprocess("-p", "no:xdist")
    by_ini.assert_outcomes(passed=1, failed=1)
    pytester.makeini("[pytest]\nchatassert_plugins = not_a_module_here\n")
    broken = pytester.runpytest_subprocess("-p", "no:xdist")
    assert broken.ret == pytest.ExitCode.USAGE_ERROR
    broken.stderr.fnmatch_lines(
        ["*plugin module 'not_a_module_here' (ini option chatassert_plugins) cannot be imported*"]
    )
