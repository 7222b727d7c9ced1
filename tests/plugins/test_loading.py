"""Loading plugins (`chatassert.plugins`): modules given by name, installed entry points found
lazily by group, broken plugins named with their entry point, disabling.

Each test that installs a distribution writes a real one (`plugin_dists.make_dist`: a
`.dist-info` with METADATA and entry_points.txt, as `importlib.metadata` reads them) and uses
it from a new Python process with the distribution's directory on PYTHONPATH, so the plugin
state of this process is never touched.
"""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest
from plugin_dists import DESK_READER, make_dist, run_python

from chatassert.plugins import (
    PluginError,
    PluginState,
    parse_plugin_args,
    parse_plugin_list,
)

ORDER_CHECK = '''
    """A check of a repository's own: the reply quotes the order id."""

    import re

    from chatassert import Assertion, Param, Result, Status, register


    @register
    class MentionsOrderId(Assertion):
        """Passes when the text quotes an order id (ORD-1234)."""

        __slots__ = ()
        kind = "mentions_order_id"
        level = "any"
        dialect_names = {"flat": "mentions-order-id"}
        params = ()

        def _check(self, subject):
            text = subject if isinstance(subject, str) else getattr(subject, "text", "") or ""
            if re.search(r"ORD-\\d+", text):
                return Result(Status.PASSED, self.kind, "quotes an order id")
            return Result(Status.FAILED, self.kind, "no order id (ORD-1234) in the text")

        def describe(self):
            return "mentions an order id"
'''

TALLY_REPORT = '''
    """A report format of a repository's own: the counts of a run, one line."""

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
        description = "the counts, one line"
        rows = "summary"
        excerpts = False
        needs_subject = False

        def render(self, outcome, subject, options):
            return {}

        def open(self, out, options):
            return _Tally(out)


    TALLY = Tally()
'''

ECHO_JUDGE = '''
    """A judge of a repository's own, by name."""

    def make(model=None, **options):
        return ("echo-judge", model, options)
'''


def _orders(root: Path, **extra_points: dict[str, str]) -> Path:
    """The distribution `orders-plugin`: a check, a reader, a report format and a judge."""
    points = {
        "chatassert.checks": {"orders": "orders_checks"},
        "chatassert.readers": {"desk": "orders_desk:DESK"},
        "chatassert.reports": {"tally": "orders_tally:TALLY"},
        "chatassert.judges": {"echo": "orders_judge:make"},
    }
    for group, more in extra_points.items():
        points[group.replace("_", ".")].update(more)
    return make_dist(
        root,
        "orders-plugin",
        points,
        {
            "orders_checks.py": ORDER_CHECK,
            "orders_desk.py": DESK_READER,
            "orders_tally.py": TALLY_REPORT,
            "orders_judge.py": ECHO_JUDGE,
        },
    )


def _ok(done: object) -> str:
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    return str(done.stdout)  # type: ignore[attr-defined]


# -- what to load ----------------------------------------------------------------------------


def test_plugin_arguments_split_modules_from_disabled_plugins() -> None:
    assert parse_plugin_args(["orders_checks", "no:tally", "ci/house_checks.py", " a.b "]) == (
        ("orders_checks", "ci/house_checks.py", "a.b"),
        ("tally",),
    )


@pytest.mark.parametrize("bad", ["no:", "my checks", "1st", "a..b", "-x", ""])
def test_a_plugin_argument_that_names_nothing_is_an_error_saying_what_would_do(bad: str) -> None:
    with pytest.raises(PluginError) as caught:
        parse_plugin_args([bad], given_by="--plugin")
    message = str(caught.value)
    assert message.startswith("--plugin: ")
    assert "no:NAME" in message


def test_the_environment_list_ignores_empty_entries_and_names_a_bad_one() -> None:
    assert parse_plugin_list(" orders_checks ,, no:tally,") == (("orders_checks",), ("tally",))
    assert parse_plugin_list("") == ((), ())
    with pytest.raises(PluginError, match=r"CHATASSERT_PLUGINS: 'two words'"):
        parse_plugin_list("ok,two words")


def test_errors_and_state_survive_pickling_for_worker_processes() -> None:
    error = PluginError("broken", plugin="p", group="chatassert.reports", value="m:o")
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.plugin, again.group, again.value) == (
        "broken",
        "p",
        "chatassert.reports",
        "m:o",
    )
    state = PluginState((("orders_checks", "/repo"),), frozenset({"tally"}))
    assert pickle.loads(pickle.dumps(state)) == state


# -- modules given by name -------------------------------------------------------------------


def test_a_module_of_the_repository_is_imported_from_the_working_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "house_checks.py").write_text(textwrap.dedent(ORDER_CHECK), encoding="utf-8")
    out = _ok(
        run_python(
            """
            import os, sys
            from chatassert import from_spec, plugins
            sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
            plugins.load_plugins(["house_checks"])
            check = from_spec({"type": "mentions_order_id"})
            print(check.check("Your order ORD-77 ships today").status.value)
            print(check.check("Your order ships today").status.value)
            """,
            None,
            cwd=tmp_path,
        )
    )
    assert out.split() == ["passed", "failed"]


def test_a_module_file_is_imported_from_its_path(tmp_path: Path) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "house_checks.py").write_text(textwrap.dedent(ORDER_CHECK), encoding="utf-8")
    out = _ok(
        run_python(
            """
            from chatassert import from_spec, plugins
            plugins.load_plugins(["ci/house_checks.py"])
            plugins.load_plugins(["ci/house_checks.py"])  # once only
            print(from_spec({"type": "mentions_order_id"}).check("ORD-1").status.value)
            """,
            None,
            cwd=tmp_path,
        )
    )
    assert out.split() == ["passed"]


def test_a_module_that_does_not_import_names_itself_and_what_gave_it(tmp_path: Path) -> None:
    (tmp_path / "broken_checks.py").write_text("import no_such_module_here\n", encoding="utf-8")
    out = _ok(
        run_python(
            """
            from chatassert import plugins
            for module in ("broken_checks", "not_there", "nowhere/x.py"):
                try:
                    plugins.load_plugins([module], given_by="--plugin")
                except plugins.PluginError as error:
                    print(error.plugin, "|", error)
            """,
            None,
            cwd=tmp_path,
        )
    )
    broken, missing, nofile = out.splitlines()
    assert broken.startswith("broken_checks | plugin module 'broken_checks' (--plugin) cannot")
    assert "ModuleNotFoundError: No module named 'no_such_module_here'" in broken
    assert "Fix the module, or the name given to --plugin" in broken
    assert f"looked up on sys.path and in {tmp_path}" in missing
    assert "No module named 'not_there'" in missing
    assert "FileNotFoundError: no file" in nofile


# -- installed entry points, lazily ----------------------------------------------------------

_COUNT_ENTRY_POINTS = """
    import importlib.metadata as metadata
    calls = []
    _real = metadata.entry_points
    def entry_points(**kwargs):
        group = kwargs.get("group")
        if group is None or group.startswith("chatassert"):  # pydantic reads its own group
            calls.append(group)
        return _real(**kwargs)
    metadata.entry_points = entry_points
"""


def test_a_run_with_built_in_names_only_reads_no_entry_point(tmp_path: Path) -> None:
    _orders(tmp_path)
    out = _ok(
        run_python(
            _COUNT_ENTRY_POINTS
            + """
    import io, sys
    from chatassert import from_spec
    from chatassert.specs import loads_suite
    from chatassert.records import Checker
    from chatassert.reporting import REPORT_FORMATS, format_named_by
    from chatassert.transcripts import FORMATS, parse_record
    from_spec({"type": "contains", "value": "x"})
    suite = loads_suite("test_cases: [{name: a, turns: [{user_input: hi, assertions: "
                       "[{type: contains, value: x}]}]}]")
    parse_record({"turns": [{"text": "x"}]})
    assert "openai" in FORMATS and "json" in REPORT_FORMATS
    assert format_named_by("report.xml") == "junit"
    rows = Checker([suite], formats=["json"]).check_records(['{"turns": [{"text": "x"}]}'])
    print(calls, sorted(m for m in sys.modules if m.startswith("orders_")))
    """,
            tmp_path,
        )
    )
    assert out.strip() == "[] []"


def test_each_kind_of_plugin_is_found_by_the_name_it_is_looked_up_by(tmp_path: Path) -> None:
    _orders(tmp_path)
    out = _ok(
        run_python(
            _COUNT_ENTRY_POINTS
            + """
    import sys
    from chatassert import from_spec, plugins
    from chatassert.reporting import REPORT_FORMATS, format_named_by
    from chatassert.transcripts import FORMATS, parse_record
    print(from_spec({"type": "mentions_order_id"}).check("ORD-3").status.value)
    print(REPORT_FORMATS["tally"].name, format_named_by("out/run.TALLY"))
    print("desk" in FORMATS, parse_record({"ticket": "where?", "reply": "ORD-9"}).turns[0].text)
    print(plugins.judge_factories()["echo"]("m1", temperature="0"))
    print(sorted(set(calls)))
    """,
            tmp_path,
        )
    )
    lines = out.splitlines()
    assert lines[:4] == [
        "passed",
        "tally tally",
        "True ORD-9",
        "('echo-judge', 'm1', {'temperature': '0'})",
    ]
    assert lines[4] == str(
        sorted(
            ["chatassert.checks", "chatassert.reports", "chatassert.readers", "chatassert.judges"]
        )
    )


def test_a_plugin_reader_is_asked_after_the_built_in_ones(tmp_path: Path) -> None:
    # a desk reader that claims every record reads only what no built-in format reads
    greedy = (
        DESK_READER.replace(
            'return isinstance(record, dict) and "ticket" in record and "reply" in record',
            "return isinstance(record, dict)",
        )
        .replace('record["ticket"]', 'record.get("ticket", "")')
        .replace('record["reply"]', 'record.get("reply", "")')
    )
    make_dist(
        tmp_path,
        "greedy",
        {"chatassert.readers": {"desk": "greedy_desk:DESK"}},
        {"greedy_desk.py": greedy},
    )
    out = _ok(
        run_python(
            """
            from chatassert.transcripts._readers import detected
            print(detected({"turns": [{"text": "hi"}]}), detected({"reply": "ORD-1"}))
            """,
            tmp_path,
        )
    )
    assert out.split() == ["native", "desk"]


def test_listing_a_group_loads_every_plugin_of_it(tmp_path: Path) -> None:
    _orders(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert import plugins
            from chatassert.reporting import REPORT_FORMATS
            print(list(REPORT_FORMATS)[-1])  # iterating lists what is registered so far
            plugins.load_group(plugins.REPORTS)
            plugins.load_group(plugins.REPORTS)  # once only
            print(list(REPORT_FORMATS)[-1])
            """,
            tmp_path,
        )
    )
    assert out.split() == ["otel", "tally"]


# -- broken plugins --------------------------------------------------------------------------


def _broken(root: Path) -> Path:
    """`orders-plugin` beside `shaky-plugin` 0.3, whose report format does not import and
    whose reader is not a Reader."""
    _orders(root)
    return make_dist(
        root,
        "shaky-plugin",
        {
            "chatassert.reports": {"shaky": "shaky_report:SHAKY"},
            "chatassert.readers": {"shakydesk": "shaky_reader:NOT_A_READER"},
            "chatassert.checks": {"shakychecks": "shaky_checks"},
        },
        {
            "shaky_report.py": "import no_such_dependency\n",
            "shaky_reader.py": "NOT_A_READER = {'name': 'desk2'}\n",
            "shaky_checks.py": "raise RuntimeError('the checks module is broken')\n",
        },
        version="0.3",
    )


def test_a_broken_plugin_names_itself_its_entry_point_and_distribution(tmp_path: Path) -> None:
    _broken(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert import plugins
            for group in (plugins.REPORTS, plugins.READERS):
                try:
                    plugins.load_group(group)
                except plugins.PluginError as error:
                    print(error.plugin, error.group, error.value, error.distribution, sep="|")
                    print(error)
            """,
            tmp_path,
        )
    )
    report_ids, report_error, reader_ids, reader_error = out.splitlines()
    assert report_ids == "shaky|chatassert.reports|shaky_report:SHAKY|shaky-plugin 0.3"
    assert report_error.startswith(
        "plugin 'shaky' (entry point 'shaky = shaky_report:SHAKY' in group chatassert.reports "
        "of shaky-plugin 0.3) cannot be loaded: ModuleNotFoundError: No module named "
        "'no_such_dependency'."
    )
    assert "Fix or upgrade the distribution shaky-plugin" in report_error
    assert "-p no:shaky" in report_error
    assert reader_ids == "shakydesk|chatassert.readers|shaky_reader:NOT_A_READER|shaky-plugin 0.3"
    assert "is refused: a chatassert.readers entry point must name a " in reader_error
    assert "chatassert.transcripts.Reader, not dict" in reader_error


def test_a_broken_plugin_does_not_break_a_lookup_another_plugin_answers(tmp_path: Path) -> None:
    _broken(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert import from_spec, plugins
            from chatassert.reporting import REPORT_FORMATS
            from chatassert.transcripts import parse_record
            print(REPORT_FORMATS["json"].name, REPORT_FORMATS["tally"].name)
            print(parse_record({"ticket": "t", "reply": "r"}).turns[0].text)
            print(from_spec({"type": "contains", "value": "x"}).kind)
            try:
                REPORT_FORMATS["tallly"]
            except plugins.PluginError as error:
                print(error)
            """,
            tmp_path,
        )
    )
    found, read, built, missing = out.splitlines()
    assert (found, read, built) == ("json tally", "r", "contains")
    assert missing.startswith("'tallly' is not built in, and it may be one of the plugins that ")
    assert "plugin 'shaky'" in missing


def test_a_broken_check_plugin_is_an_error_of_the_spec_that_needs_a_plugin(
    tmp_path: Path,
) -> None:
    _broken(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert import from_spec, plugins
            print(from_spec({"type": "mentions_order_id"}).kind)  # in the good plugin
            try:
                from_spec({"type": "mentions_order_idd"})
            except plugins.PluginError as error:
                print(error)
            """,
            tmp_path,
        )
    )
    found, error = out.splitlines()
    assert found == "mentions_order_id"
    assert "'mentions_order_idd' is not built in" in error
    assert "RuntimeError: the checks module is broken" in error


def test_an_unrecognised_record_says_a_reader_plugin_failed_instead_of_crashing(
    tmp_path: Path,
) -> None:
    _broken(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert.transcripts import read_records
            import io
            log = '{"nothing": 1}\\n{"turns": [{"text": "x"}]}\\n'
            records = list(read_records(io.StringIO(log)))
            print(records[0].ok, records[0].error)
            print(records[1].ok)
            """,
            tmp_path,
        )
    )
    first, second = out.splitlines()
    assert first.startswith("False no log format recognises the record, and plugin 'shakydesk'")
    assert second == "True"


def test_a_disabled_plugin_is_not_loaded(tmp_path: Path) -> None:
    _broken(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert import plugins
            from chatassert.reporting import REPORT_FORMATS
            plugins.load_plugins(disabled=["shaky", "ShakyDesk", "orders-plugin"])
            plugins.load_group(plugins.REPORTS)
            plugins.load_group(plugins.READERS)
            print(list(REPORT_FORMATS)[-1])
            plugins.load_plugins(disabled=["shaky_plugin"])  # a distribution's name, too
            plugins.load_group(plugins.CHECKS)
            """,
            tmp_path,
        )
    )
    assert out.split() == ["otel"]


def test_disabling_a_plugin_already_loaded_is_an_error(tmp_path: Path) -> None:
    _orders(tmp_path)
    out = _ok(
        run_python(
            """
            from chatassert import plugins
            plugins.load_group(plugins.REPORTS)
            try:
                plugins.load_plugins(disabled=["tally"])
            except plugins.PluginError as error:
                print(error)
            """,
            tmp_path,
        )
    )
    assert out.startswith("cannot disable plugin 'tally': it is already loaded in this process")


def test_a_worker_process_restores_the_plugins_of_the_main_one(tmp_path: Path) -> None:
    (tmp_path / "house_checks.py").write_text(textwrap.dedent(ORDER_CHECK), encoding="utf-8")
    (tmp_path / "worker_job.py").write_text(
        textwrap.dedent(
            """
            from chatassert import from_spec, plugins

            def in_worker(state):
                plugins.restore(state)
                return from_spec({"type": "mentions_order_id"}).check("ORD-5").status.value
            """
        ),
        encoding="utf-8",
    )
    out = _ok(
        run_python(
            """
            import multiprocessing
            from chatassert import plugins
            from worker_job import in_worker

            plugins.load_plugins(["house_checks"], disabled=["tally"])
            state = plugins.snapshot()
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                print(pool.apply(in_worker, (state,)))
            """,
            tmp_path,
        )
    )
    assert out.split() == ["passed"]


def test_judges_register_by_name_once(tmp_path: Path) -> None:
    out = _ok(
        run_python(
            """
            from chatassert import plugins
            def make(model=None, **options): return "mine"
            plugins.register_judge("house", make)
            plugins.register_judge("house", make)
            for bad in (("house", lambda model=None: 1), ("", make), ("x", 3)):
                try:
                    plugins.register_judge(*bad)
                except (TypeError, ValueError) as error:
                    print(type(error).__name__, error)
            print(plugins.judge_factories()["house"]())
            """,
            None,
            cwd=tmp_path,
        )
    )
    taken, empty, not_callable, made = out.splitlines()
    assert taken.startswith("ValueError judge 'house' is already registered by __main__.make")
    assert empty == "ValueError a judge needs a name, got ''"
    assert not_callable.startswith("TypeError judge 'x': expected a factory")
    assert made == "mine"


# -- what the registries refuse --------------------------------------------------------------


def test_a_reader_that_is_not_one_or_takes_a_built_in_name_is_refused() -> None:
    from chatassert.transcripts import Reader, register_reader

    with pytest.raises(TypeError, match=r"registered as a chatassert.transcripts.Reader\("):
        register_reader({"name": "desk"})  # type: ignore[arg-type]
    taken = Reader("openai", lambda record: False, lambda record: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match=r"'openai' is already registered \(a built-in format\)"):
        register_reader(taken)


def test_a_reporter_that_lacks_a_part_is_refused_naming_it() -> None:
    from chatassert.reporting import register_reporter

    class Half:
        name = "half"
        extensions = (".half",)
        rows = "summary"

        def open(self, out: object, options: object) -> None: ...

    with pytest.raises(TypeError, match=r"lacks description, excerpts, needs_subject, render$"):
        register_reporter(Half())  # type: ignore[arg-type]
