"""The pytest plugin: result trees in assertion failures, fixtures, suite files as tests, a report.

Installed with chatassert and registered through the `pytest11` entry point, so it is active in
every pytest run; importing it loads only the standard library and pytest, and chatassert itself
is imported the first time a hook or fixture needs it.

- A failing `assert subject == passes(assertion)`, `assert result.passed` or comparison of a
  `Result` prints the failing branches of the result tree with their locations and reasons.
- Fixtures: `chatassert_judge` (a passing `FakeJudge`, or the real judge chosen with
  `--chatassert-judge`) and `chatassert_load` (read transcript files into `Conversation`s).
- Suite files matching the `chatassert_suites` ini globs (default `*.chatassert.yaml`,
  `*.chatassert.yml`, `*.chatassert.json`) are collected: `X.chatassert.yaml` is checked against
  the logged conversations in `X.jsonl` (or `X.jsonl.gz`) next to it, and each case and conversation
  becomes one test item.
- `--chatassert-report PATH` writes a JSON report of every check made in the session.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import sys
import threading
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Sequence

    from chatassert._gates import Gate
    from chatassert._judging import Judge
    from chatassert._models import Conversation
    from chatassert._result import Result
    from chatassert._suite import Case, Suite
    from chatassert.testing import ChatAssertionError

__all__ = [
    "DEFAULT_SUITE_GLOBS",
    "CaseItem",
    "SuiteFile",
    "TranscriptLoader",
    "chatassert_judge",
    "chatassert_load",
]

DEFAULT_SUITE_GLOBS = ("*.chatassert.yaml", "*.chatassert.yml", "*.chatassert.json")
"""The suite files collected when the `chatassert_suites` ini option is not set."""

TRANSCRIPT_SUFFIXES = (".jsonl", ".jsonl.gz")
"""The transcript paired with `X.chatassert.yaml` is `X` plus one of these, in this order."""

JUDGES = ("openai", "anthropic", "fake:pass", "fake:fail")
"""The built-in values of `--chatassert-judge` and of the `chatassert_judge` ini option: a
real judge, or a `FakeJudge` that passes (or fails) every judged check. A plugin judge's name
and a `module:factory` path are values too (docs/write-a-judge.md)."""

_report_key = pytest.StashKey["_Report"]()
_judge_key = pytest.StashKey["Judge"]()
_gates_key = pytest.StashKey["_SessionGates"]()


# -- options -------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the `chatassert` option group and the `chatassert_suites` ini option."""
    group = parser.getgroup("chatassert", "chatassert: assertions over LLM agent output")
    group.addoption(
        "--chatassert-judge",
        default=None,
        metavar="NAME",
        help="judge judged assertions with a real LLM (openai, anthropic: configured by the "
        "CHATASSERT_JUDGE_* environment variables), a fake judge that passes or fails every "
        "judged check (fake:pass, fake:fail), a plugin judge's name or module:factory, instead "
        "of the passing fake judge of the chatassert_judge fixture; suite files use it too "
        "(default: the chatassert_judge ini option)",
    )
    group.addoption(
        "--chatassert-judge-model",
        default=None,
        metavar="MODEL",
        help="the judge model (default: CHATASSERT_JUDGE_MODEL)",
    )
    group.addoption(
        "--chatassert-repeat",
        type=_positive,
        default=None,
        metavar="N",
        help="ask the judge N times for every judged check of the suite files (a majority "
        "repeat of each); a result then says whether its verdicts were stable or flaky",
    )
    group.addoption(
        "--chatassert-no-plan",
        action="store_true",
        default=False,
        help="ask the judge for every judged check, even where a deterministic one already "
        "decides all_of, any_of or at_least (planning skips those as 'not needed')",
    )
    group.addoption(
        "--chatassert-report",
        default=None,
        metavar="PATH",
        help="write a JSON report of every chatassert check made in the session to PATH",
    )
    group.addoption(
        "--chatassert-baseline",
        default=None,
        metavar="FILE",
        help="an earlier run of the suite files (a JSON report of chatassert check, or a "
        "--results directory): their max_drop gates compare the session's pass rates with it",
    )
    parser.addini(
        "chatassert_judge",
        f"the judge of --chatassert-judge when it is not given ({', '.join(JUDGES)})",
        default=None,
    )
    group.addoption(
        "--chatassert-plugin",
        dest="chatassert_plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE (a module name found from the working directory, or a .py file) "
        "for the checks, judges, log readers and report formats it registers; repeatable; "
        "no:NAME turns the installed chatassert plugin NAME off (docs/plugins.md)",
    )
    parser.addini(
        "chatassert_plugins",
        "modules of chatassert plugins to import (found from the rootdir), and no:NAME for "
        "an installed one to turn off, as --chatassert-plugin takes them",
        type="args",
        default=[],
    )
    parser.addini(
        "chatassert_suites",
        "glob patterns of chatassert suite files to collect as tests; each X.<...> suite is "
        "checked against the transcript X.jsonl next to it",
        type="linelist",
        default=list(DEFAULT_SUITE_GLOBS),
    )


def _positive(text: str) -> int:
    """An option's value as an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def pytest_configure(config: pytest.Config) -> None:
    """Register the `chatassert` marker and start the report when one is asked for."""
    config.addinivalue_line(
        "markers",
        "chatassert: a check collected from a chatassert suite file (select with -m chatassert)",
    )
    _load_plugins(config)
    gates = _SessionGates(config)  # the suite files' gates, decided at the end of the session
    config.stash[_gates_key] = gates
    config.pluginmanager.register(gates, "chatassert-gates")
    path = config.getoption("chatassert_report", None)
    if path:  # also in pytest-xdist workers: their checks travel with their test reports
        report = _Report(Path(path).resolve())  # from the directory pytest started in
        config.stash[_report_key] = report
        config.pluginmanager.register(report, "chatassert-report")
        from chatassert.testing import add_observer

        report.remove_observer = add_observer(report.observe)


def _load_plugins(config: pytest.Config) -> None:
    """Load the chatassert plugins `CHATASSERT_PLUGINS`, the `chatassert_plugins` ini option
    and `--chatassert-plugin` give (those turned off first); nothing is imported when none is.

    Raises:
        pytest.UsageError: when one is not a module, a file or no:NAME, or does not import.
    """
    env = os.environ.get("CHATASSERT_PLUGINS", "")
    ini = config.getini("chatassert_plugins") or []
    given = config.getoption("chatassert_plugins", None) or []
    if not (env.strip() or ini or given):
        return
    from chatassert import plugins

    try:
        from_env = plugins.parse_plugin_list(env)
        from_ini = plugins.parse_plugin_args(ini, given_by="ini option chatassert_plugins")
        from_option = plugins.parse_plugin_args(given, given_by="--chatassert-plugin")
        plugins.load_plugins(disabled=[*from_env[1], *from_ini[1], *from_option[1]])
        plugins.load_plugins(from_env[0], given_by=plugins.ENV)
        plugins.load_plugins(
            from_ini[0], directory=str(config.rootpath), given_by="ini option chatassert_plugins"
        )
        plugins.load_plugins(from_option[0], given_by="--chatassert-plugin")
    except plugins.PluginError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_unconfigure(config: pytest.Config) -> None:
    """Write the report and stop observing checks."""
    gates = config.stash.get(_gates_key, None)
    if gates is not None:
        config.pluginmanager.unregister(gates)
        del config.stash[_gates_key]
    report = config.stash.get(_report_key, None)
    if report is not None:
        report.remove_observer()
        config.pluginmanager.unregister(report)
        if not hasattr(config, "workerinput"):
            report.write()
        del config.stash[_report_key]


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Say which judge and report the run uses, when they are not the defaults."""
    parts = []
    judge = _judge_choice(config)
    if judge:
        parts.append(f"judge: {judge}")
    path = config.getoption("chatassert_report", None)
    if path:
        parts.append(f"report: {path}")
    return [f"chatassert: {', '.join(parts)}"] if parts else None


# -- the session report --------------------------------------------------------------------


class _Report:
    """Every check made in the session, written as JSON at the end.

    Checks made while a test runs are attached to that test's reports (so they reach the
    controlling process under pytest-xdist) and gathered from the reports as they are logged.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.checks: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self.current: str | None = None
        self.lock = threading.Lock()
        self.remove_observer: Any = lambda: None

    def observe(self, kind: str, result: Result, subject: object) -> None:
        from chatassert.testing import describe_subject

        self.add(kind, result, describe_subject(subject) if subject is not None else None)

    def add(self, kind: str, result: Result, subject: str | None, **extra: Any) -> None:
        entry = {
            "test": self.current,
            "kind": kind,
            **extra,
            "subject": subject,
            "result": result.to_dict(),
        }
        # plain JSON now: details may hold a subject's own values (a date), which neither the
        # report file nor pytest-xdist's channel to the controller could carry
        entry = json.loads(json.dumps(entry, ensure_ascii=False, default=repr))
        with self.lock:
            self.pending.append(entry)

    def take_pending(self) -> list[dict[str, Any]]:
        with self.lock:
            taken, self.pending = self.pending, []
        return taken

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Gather the checks a test made (here or in an xdist worker) from its reports."""
        self.checks.extend(report.__dict__.get(_CHECKS_ATTR) or ())

    def write(self) -> None:
        counts = dict.fromkeys(("passed", "failed", "error", "skipped"), 0)
        for entry in self.checks:
            counts[entry["result"]["status"]] += 1
        data = {"summary": {"checks": len(self.checks), **counts}, "checks": self.checks}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Attribute the checks made while `item` runs to its node id in the report (and turn
    judge planning off for it under `--chatassert-no-plan`)."""
    from chatassert._judging import judge_planning

    report = item.config.stash.get(_report_key, None)
    if report is not None:
        report.current = item.nodeid
    try:
        with judge_planning(not item.config.getoption("chatassert_no_plan", False)):
            return (yield)
    finally:
        if report is not None:
            report.current = None


_CHECKS_ATTR = "chatassert_checks"
_GATE_ATTR = "chatassert_gate_outcome"


# -- the suite files' gates ----------------------------------------------------------------


class _SessionGates:
    """The gates of the suite files (`gates:` in a native file), decided over the session's
    case outcomes at its end: a failed one fails the session, with a terminal section naming
    each gate, what it requires and what the session showed.

    Each case item's outcome (its suite file, status and assertions' statuses) travels with
    its test report, so under pytest-xdist the controlling process, which collects nothing,
    counts every worker's; it loads a suite file's gates itself when it did not collect it. A
    suite file none of whose cases ran (all deselected) is not gated.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.outcomes: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {}
        self.suites: dict[str, Suite] = {}
        self.results: list[tuple[str, Result]] = []
        """Each gate decided, with its suite file."""
        self.baseline: Any = None
        path = config.getoption("chatassert_baseline", None)
        if path and not hasattr(config, "workerinput"):  # read once, where gates are decided
            from chatassert.compare import CompareError, read_run

            try:
                self.baseline = read_run(path)
            except CompareError as exc:
                raise pytest.UsageError(f"--chatassert-baseline: {exc}") from None

    def collected(self, path: Path, suite: Suite) -> None:
        """Keep a collected suite file's gates (with the baseline, for `max_drop`)."""
        if suite.gates:
            self.suites[str(path)] = self._with_baseline(suite)

    def _with_baseline(self, suite: Suite) -> Suite:
        if self.baseline is None:
            return suite
        from chatassert._gates import with_baseline

        return with_baseline(suite, self.baseline.rows, self.baseline.path)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Count a case item's outcome (here, or from an xdist worker's report)."""
        outcome = report.__dict__.get(_GATE_ATTR)
        if isinstance(outcome, dict):
            pairs = [(str(label), str(status)) for label, status in outcome["assertions"]]
            self.outcomes.setdefault(outcome["path"], []).append((outcome["status"], pairs))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Decide the gates of every suite file whose cases ran; a failed (or undecidable)
        gate fails a session that had not failed."""
        if hasattr(self.config, "workerinput") or not self.outcomes:
            return
        from chatassert._gates import GateTally

        gates: dict[str | None, Sequence[Gate]] = {}
        for path in self.outcomes:
            suite = self.suites.get(path) or self._load(path)
            if suite is not None and suite.gates:
                gates[path] = suite.gates
        if not gates:
            return
        tally = GateTally(gates)
        for path, outcomes in self.outcomes.items():
            for status, pairs in outcomes:
                tally.add(path, status, pairs)
        why_not = None
        if session.shouldstop or session.shouldfail:
            why_not = "the session stopped early: gates need every case of the suite to run"
        results = iter(tally.evaluate(why_not))  # in the order of the tally's gates
        self.results = [
            (str(path), next(results)) for path, suite_gates in gates.items() for _ in suite_gates
        ]
        bad = any(r.status.value in ("failed", "error") for _, r in self.results)
        if bad and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _load(self, path: str) -> Suite | None:
        """A suite file's gates, loaded here (an xdist controller collects no file)."""
        from chatassert._errors import SpecError
        from chatassert.specs import load_suite

        try:
            suite = load_suite(path)
        except (SpecError, OSError):  # its items said so where they were collected
            return None
        return self._with_baseline(suite) if suite.gates else None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The gates' section: each gate's status, what it requires, what the session
        showed; and that the session fails when one failed."""
        if not self.results:
            return
        from chatassert.reporting._gate_reports import MARKS, gate_head
        from chatassert.reporting._summary import wrap

        width = max(terminalreporter._tw.fullwidth, 60)
        terminalreporter.section("chatassert gates")
        for path, result in self.results:
            try:  # as pytest names the file in node ids: from the root
                where = Path(path).relative_to(self.config.rootpath).as_posix()
            except ValueError:
                where = path
            head = f"{MARKS[result.status]:<5} {where}::{result.spec_path}"
            for line in wrap(f"{head} {result.message}: {result.reason}", width):
                terminalreporter.line(line)
        results = [result for _, result in self.results]
        if any(r.status.value in ("failed", "error") for r in results):
            terminalreporter.line(
                f"the session fails: not every gate was met ({gate_head(results)[2:]})",
                red=True,
            )


# -- assertion messages --------------------------------------------------------------------


def _loaded() -> bool:
    """Whether chatassert has been imported (if not, no object can be one of ours)."""
    return "chatassert._result" in sys.modules


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """Explain a failed comparison involving a chatassert matcher, result or assertion.

    - `subject == passes(assertion)`: the failing branches of the check and the subject;
    - a `Result` compared with anything: its tree;
    - a subject compared with a bare assertion (always unequal): the tree of checking it, and
      a hint to use `passes(...)` or `assert_passes(...)`.
    """
    if op not in ("==", "!=") or not _loaded():
        return None
    from chatassert._base import Assertion
    from chatassert._result import Result
    from chatassert.testing import Passes, explain

    verbose = config.get_verbosity() > 0
    for matcher, other in ((left, right), (right, left)):
        if isinstance(matcher, Passes) and matcher.result is not None:
            head = f"subject {'==' if op == '==' else '!='} passes({matcher.assertion!r})"
            return [head, *explain(matcher.result, other, verbose=verbose).splitlines()]
    results = [side for side in (left, right) if isinstance(side, Result)]
    if results:
        lines = [f"{_kind(left)} {op} {_kind(right)}: the chatassert results are"]
        for result in results:
            lines.extend(result.render(verbose=verbose).splitlines())
        return lines
    for assertion, subject in ((left, right), (right, left)):
        if isinstance(assertion, Assertion) and not isinstance(subject, Assertion):
            head = f"subject {op} {assertion!r}"
            hint = (
                "a subject never equals an assertion; write `assert subject == "
                "passes(assertion)` or call `assert_passes(assertion, subject)` "
                "(from chatassert.testing)"
            )
            try:
                result = assertion.check(subject)
            except Exception as exc:
                return [head, hint, f"checking it raised {type(exc).__name__}: {exc}"]
            return [head, hint, *explain(result, subject, verbose=verbose).splitlines()]
    return None


def _kind(value: object) -> str:
    return "Result" if type(value).__name__ == "Result" else type(value).__name__


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Add the trees of the failing results in scope to a plain assertion failure.

    So `assert result.passed` shows why the result did not pass, not just `False`.
    """
    report = yield
    session_report = item.config.stash.get(_report_key, None)
    if session_report is not None:
        report.__dict__[_CHECKS_ATTR] = session_report.take_pending()
    gate_outcome = getattr(item, "gate_outcome", None)
    if call.when == "call" and gate_outcome is not None:  # reaches the controller under xdist
        report.__dict__[_GATE_ATTR] = gate_outcome
    if (
        call.when != "call"
        or call.excinfo is None
        or not call.excinfo.errisinstance(AssertionError)
        or not _loaded()
    ):
        return report
    from chatassert.testing import ChatAssertionError

    if isinstance(call.excinfo.value, ChatAssertionError):
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:  # what `-ra` and JUnit say: the reason, not the type's name
            crash.message = crash_message(call.excinfo.value.result)
        return report  # its message already has the tree
    message = str(call.excinfo.value)
    trees = [
        (name, tree)
        for name, tree in _failing_results_in_scope(call.excinfo.tb)
        if tree.splitlines()[0] not in message  # already explained by assertrepr_compare
    ]
    addsection = getattr(report.longrepr, "addsection", None)  # a traceback's representation
    if trees and callable(addsection):
        body = "\n".join(
            f"{name} = {tree}" if "\n" not in tree else f"{name} =\n{tree}" for name, tree in trees
        )
        addsection("chatassert results that did not pass", body)
    return report


def crash_message(result: Result) -> str:
    """One line saying why `result` did not pass: its first failing (or erroring) leaf, where
    it is and its reason, and how many more there are; what pytest's `-ra` summary and JUnit's
    `message` show.

    Example:
        >>> from chatassert import Contains
        >>> crash_message((Contains("refund") & Contains("sorry")).check("No."))
        "contains: Response does not contain 'refund' (1 more)"
    """
    from chatassert._result import Status

    bad = (Status.FAILED, Status.ERROR)
    found = [
        (ancestors, node)
        for ancestors, node in result.walk()
        if node.status in bad and not any(c.status is node.status for c in node.children)
    ]
    if not found:
        return f"{result.label}: {result.status.value}: {result.reason}"
    ancestors, node = found[0]
    evaluated = "could not be evaluated: " if node.status is Status.ERROR else ""
    text = " ".join(f"{node.label}: {evaluated}{node.reason}".split())
    where = node.full_location(ancestors)
    notes = ([f"at {where}"] if where else []) + ([f"{len(found) - 1} more"] if found[1:] else [])
    return text + (f" ({', and '.join(notes)})" if notes else "")


def _failing_results_in_scope(tb: Any, limit: int = 3) -> Iterator[tuple[str, str]]:
    """Yield `(variable, rendered tree)` for non-passing results in the failing frames."""
    from chatassert._result import Result
    from chatassert.testing import Passes

    seen: set[int] = set()
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    count = 0
    for frame in reversed(frames):
        for name, value in frame.f_locals.items():
            if name.startswith("@"):  # the assertion rewriter's temporaries
                continue
            result = value.result if isinstance(value, Passes) else value
            if isinstance(result, Result) and not result.passed and id(result) not in seen:
                seen.add(id(result))
                yield name, result.render()
                count += 1
                if count >= limit:
                    return


# -- fixtures ------------------------------------------------------------------------------


_JUDGE_HOW = (
    "--chatassert-judge openai or anthropic (with CHATASSERT_JUDGE_MODEL and the API key's "
    "variable), or fake:pass / fake:fail to run the suite files offline, or a plugin judge's "
    "name, or the chatassert_judge ini option; see docs/pytest.md"
)
"""How a pytest run gives the judged checks of suite files a judge."""


def _judge_choice(config: pytest.Config) -> str | None:
    """`--chatassert-judge`, else the `chatassert_judge` ini option, else None.

    Raises:
        pytest.UsageError: when the name names no judge (`JUDGES`, a plugin's, or
            `module:factory`), saying which there are.
    """
    kind = config.getoption("chatassert_judge", None)
    given_by = "--chatassert-judge"
    if not kind:
        value = config.getini("chatassert_judge")
        kind = value.strip() if isinstance(value, str) else None
        given_by = "ini option chatassert_judge"
    if not kind:
        return None
    kind = str(kind).strip()
    if kind not in JUDGES:
        from chatassert._errors import ChatAssertError
        from chatassert.judges._env import require_judge

        try:
            require_judge(kind, given_by=given_by)
        except ChatAssertError as exc:
            raise pytest.UsageError(str(exc)) from None
    return kind


def _real_judge(config: pytest.Config) -> Judge | None:
    """The judge chosen with `--chatassert-judge` (or the `chatassert_judge` ini option),
    built once per session; None without either. `fake:pass` and `fake:fail` are a
    `FakeJudge` passing or failing every judged check.

    Raises:
        pytest.UsageError: when the judge cannot be built, saying what to set.
    """
    kind = _judge_choice(config)
    if not kind:
        return None
    cached = config.stash.get(_judge_key, None)
    if cached is not None:
        return cached
    if kind.startswith("fake:"):
        from chatassert._judging import FakeJudge

        fake = FakeJudge.passing() if kind == "fake:pass" else FakeJudge.failing()
        config.stash[_judge_key] = fake
        return fake
    try:
        from chatassert.judges import judge_from_env
    except ImportError as exc:  # pragma: no cover - chatassert.judges ships with chatassert
        raise pytest.UsageError(
            f"--chatassert-judge {kind}: chatassert.judges cannot be imported ({exc}); "
            "reinstall chatassert"
        ) from None
    environ = {**os.environ, "CHATASSERT_JUDGE": kind}
    try:
        judge = judge_from_env(
            model=config.getoption("chatassert_judge_model", None), environ=environ
        )
    except Exception as exc:
        raise pytest.UsageError(f"--chatassert-judge {kind}: {exc}") from None
    config.stash[_judge_key] = judge
    return judge


@pytest.fixture
def chatassert_judge(request: pytest.FixtureRequest) -> Judge:
    """A judge for judged assertions: a `FakeJudge` that passes everything, by default.

    With `--chatassert-judge openai|anthropic` (or the `chatassert_judge` ini option) it is
    the real judge that the `CHATASSERT_JUDGE_*` environment variables configure (model from
    `--chatassert-judge-model` or `CHATASSERT_JUDGE_MODEL`); a missing setting fails the test
    at setup, saying what to set. `fake:fail` makes it a `FakeJudge` that fails everything.
    """
    problem = None
    try:
        judge = _real_judge(request.config)
    except pytest.UsageError as exc:
        problem = str(exc)  # failed below, outside the handler: shown once, not chained
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    if judge is not None:
        return judge
    from chatassert._judging import FakeJudge

    return FakeJudge.passing()


class TranscriptLoader:
    """Read transcript files into conversations; relative paths are taken from the test's folder.

    Call it for a file holding one conversation (`chatassert_load("chat.json")`), or use
    `.all(path)` for every conversation of a JSONL log.
    """

    def __init__(self, base: Path) -> None:
        self.base = base

    def path(self, path: str | os.PathLike[str]) -> Path:
        """Resolve `path` against the test's folder."""
        return self.base / path

    def __call__(self, path: str | os.PathLike[str], *, format: str | None = None) -> Conversation:
        """Read the one conversation of a `.json` or single-line `.jsonl` file."""
        from chatassert.testing import load_conversation

        return load_conversation(self.path(path), format=format)

    def all(self, path: str | os.PathLike[str], *, format: str | None = None) -> list[Conversation]:
        """Read every conversation of a `.jsonl` log (or a JSON list of records)."""
        from chatassert.testing import load_conversations

        return load_conversations(self.path(path), format=format)


@pytest.fixture
def chatassert_load(request: pytest.FixtureRequest) -> TranscriptLoader:
    """Load transcripts (native, OpenAI chat, ... JSON or JSONL) into `Conversation`s."""
    return TranscriptLoader(Path(request.path).parent)


# -- suite files ---------------------------------------------------------------------------


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect the suite files that match the `chatassert_suites` globs."""
    patterns = parent.config.getini("chatassert_suites")
    try:  # a pattern with a folder (evals/*.flat.yaml) matches the path from the root
        relative = file_path.relative_to(parent.config.rootpath).as_posix()
    except ValueError:
        relative = file_path.as_posix()
    if any(fnmatch.fnmatch(relative if "/" in p else file_path.name, p) for p in patterns):
        collector: SuiteFile = SuiteFile.from_parent(parent, path=file_path)
        return collector
    return None


class _SuiteFileError(Exception):
    """A suite file or its transcript cannot be used; the message says why and what to do."""


def transcript_for(suite_path: Path) -> Path | None:
    """Return the transcript paired with a suite file: `X.jsonl` (or `.jsonl.gz`) for `X.<...>`."""
    stem = suite_path.name.split(".", 1)[0]
    for suffix in TRANSCRIPT_SUFFIXES:
        candidate = suite_path.with_name(stem + suffix)
        if candidate.is_file():
            return candidate
    return None


class SuiteFile(pytest.File):
    """A chatassert suite file, checked against the transcript log next to it."""

    def collect(self) -> Iterator[pytest.Item]:
        """Yield one item per case and conversation, and failing items for what was not paired."""
        from chatassert._errors import SpecError
        from chatassert.specs import load_suite
        from chatassert.transcripts import read_records

        log = transcript_for(self.path)
        if log is None:
            stem = self.path.name.split(".", 1)[0]
            raise _SuiteFileError(
                f"{self.path.name}: no transcript to check; put the logged conversations "
                f"in {stem}.jsonl (one JSON record per line) next to it"
            )
        options: dict[str, Any] = {}
        judge = _real_judge(self.config)
        if judge is not None:
            options["judge"] = judge
        try:
            suite = load_suite(self.path, **options)
        except SpecError as exc:
            raise _SuiteFileError(str(exc)) from None
        self.spec_doc = _spec_with_lines(self.path)
        repeat = self.config.getoption("chatassert_repeat", None)
        if repeat is not None:
            suite = suite.with_repeat(repeat)
        gates = self.config.stash.get(_gates_key, None)
        if gates is not None:
            gates.collected(self.path, suite)
        checked: set[str] = set()
        unjudged = {c.name for c in suite.cases if c.missing_judges()}
        if unjudged:  # said once, before the transcript is read; those cases are not run
            from chatassert._suite import missing_judges_message

            yield ProblemItem.from_parent(
                self,
                name="[no judge]",
                problem=f"{self.path.name}: "
                + missing_judges_message(suite.missing_judges(), how=_JUDGE_HOW),
            )
            checked |= unjudged
        for record in read_records(log):
            where = f"{log.name}:{record.line}"
            if record.conversation is None:
                yield ProblemItem.from_parent(
                    self, name=f"[{where}]", problem=f"{where}: cannot be read: {record.error}"
                )
                continue
            match = suite.match(record.conversation)
            cases = [c for c in match.cases if c.name not in unjudged]
            if not match.cases:
                yield ProblemItem.from_parent(
                    self, name=f"[{where}]", problem=f"{where}: {match.reason}"
                )
                continue
            for case in cases:
                checked.add(case.name)
                yield CaseItem.from_parent(
                    self,
                    name=f"{case.name.replace('::', ':')}[{where}]",  # '::' splits node ids
                    suite=suite,
                    case=case,
                    conversation=record.conversation,
                    where=where,
                )
        for case in suite.cases:
            if case.name not in checked:
                yield ProblemItem.from_parent(
                    self,
                    name=f"{case.name}[no conversation]",
                    problem=f"case {case.name!r} was checked against no conversation of "
                    f"{log.name}; log one whose 'id' (or metadata 'case') is {case.name!r}",
                )

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | Any:
        """Show a spec or pairing problem as its message, without a traceback."""
        if isinstance(excinfo.value, _SuiteFileError | pytest.UsageError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


def _spec_with_lines(path: Path) -> Any:
    """The spec file parsed with the line of each node (None when it cannot be)."""
    from chatassert._errors import SpecError
    from chatassert.specs._yaml import parse_yaml, read_spec_file

    try:
        return parse_yaml(read_spec_file(path), os.fspath(path))
    except (SpecError, OSError, ValueError):
        return None


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _node_at(doc: Any, path: str) -> Any:
    """The node of `doc` at a spec path such as `test_cases[0].turns[1]` (None if absent)."""
    node = doc
    for key, index in _PART.findall(path):
        try:
            node = node[int(index)] if index else node[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return node


def _line(node: Any) -> int | None:
    line = getattr(node, "line", None)
    return line if isinstance(line, int) else None


class _Crash:
    """Where and why a suite-file check failed, as pytest reads it from a failure's
    `reprcrash`: `-ra` shows the `message`, JUnit makes it the failure's message."""

    def __init__(self, path: str, lineno: int, message: str) -> None:
        self.path = path
        self.lineno = lineno
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


class CaseFailure:
    """How pytest shows a failed case: its text, ending with the spec's `file:line` of the
    failing assertion, and the one-line reason `-ra` shows.

    Attributes:
        text: The whole failure, shown in the failures section.
        reprcrash: The place and the one-line reason.
    """

    def __init__(self, text: str, reprcrash: _Crash) -> None:
        self.text = text
        self.reprcrash = reprcrash

    def toterminal(self, tw: Any) -> None:
        """Write the failure to pytest's terminal writer."""
        for line in self.text.splitlines():
            tw.line(line)

    def __str__(self) -> str:
        return self.text


class CaseItem(pytest.Item):
    """One case of a suite checked against one logged conversation."""

    def __init__(
        self,
        *,
        suite: Suite,
        case: Case,
        conversation: Conversation,
        where: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case
        self.conversation = conversation
        self.where = where
        self.gate_outcome: dict[str, Any] | None = None
        """What the suite's gates count of this item once it ran (a gated suite's only)."""
        self.add_marker(pytest.mark.chatassert)
        self.extra_keyword_matches.update(case.tags)

    def runtest(self) -> None:
        """Check the conversation against the case; a result that did not pass fails the item."""
        from chatassert.testing import ChatAssertionError, describe_subject

        outcome: dict[str, Any] = {"path": str(self.path), "status": "error", "assertions": []}
        if self.suite.gates:  # a check that raises counts as an error for the suite's gates
            self.gate_outcome = outcome
        result = self.case.check(self.conversation)
        if self.suite.gates:
            from chatassert.reporting._summary import assertion_statuses

            outcome["status"] = result.status.value
            outcome["assertions"] = [[label, s.value] for label, s in assertion_statuses(result)]
        report = self.config.stash.get(_report_key, None)
        if report is not None:
            report.add(
                "suite",
                result,
                describe_subject(self.conversation),
                suite=self.suite.name,
                case=self.case.name,
                source=self.where,
            )
        if not result.passed:
            raise ChatAssertionError(
                result, self.conversation, f"case {self.case.name!r} against {self.where}"
            )

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        """Show the result tree of a failed check, without a traceback, ending with the
        spec's `file:line` of the failing assertion (else of the case) and why it failed."""
        if _is_chatassert_error(excinfo.value):
            result: Result = excinfo.value.result  # type: ignore[attr-defined]
            path = self.nodeid.split("::", 1)[0]
            line = self.assertion_line(result) or self.case_line() or 1
            crash = _Crash(path, line, crash_message(result))
            return CaseFailure(f"{excinfo.value}\n{crash}", crash)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Place the item at its case in the spec, named as its node id names it."""
        line = self.case_line()
        return self.path, None if line is None else line - 1, self.name

    def _doc(self) -> Any:
        return getattr(self.parent, "spec_doc", None)

    def _case_path(self) -> str | None:
        """Where the case is in its file (`cases[2]`), or None for a file of one case."""
        _, found, path = self.case.source.rpartition(": ")
        return path if found and path else None

    def case_line(self) -> int | None:
        """The spec line of the case, when the file says it."""
        path = self._case_path()
        return None if path is None else _line(_node_at(self._doc(), path))

    def assertion_line(self, result: Result) -> int | None:
        """The spec line of the first assertion that did not pass: of a turn's assertions, or
        of the case's whole-conversation `assertions` (else of that turn, or None)."""
        from chatassert._result import Status

        bad = (Status.FAILED, Status.ERROR)
        turns = self.case.turns
        for index, child in enumerate(result.children):
            if child.status not in bad:
                continue
            if index >= len(turns):  # a whole-conversation check, in the case's `assertions`
                path = self._case_path()
                listed = _node_at(self._doc(), f"{path}.assertions" if path else "assertions")
                k = index - len(turns)
                return _line(listed[k]) if isinstance(listed, list) and k < len(listed) else None
            if not turns[index].source:
                return None
            listed = _node_at(self._doc(), f"{turns[index].source}.assertions")
            for k, leaf in enumerate(child.children):
                if leaf.status in bad and isinstance(listed, list) and k < len(listed):
                    return _line(listed[k]) or _line(listed)
            return _line(_node_at(self._doc(), turns[index].source))
        return None


class ProblemItem(pytest.Item):
    """A failing item for a log line or case that could not be paired or read."""

    def __init__(self, *, problem: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem
        self.add_marker(pytest.mark.chatassert)

    def runtest(self) -> None:
        """Fail with the problem."""
        raise _SuiteFileError(self.problem)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        """Show the problem without a traceback."""
        if isinstance(excinfo.value, _SuiteFileError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Name the item in reports."""
        return self.path, None, self.name


def _is_chatassert_error(exc: BaseException) -> bool:
    if "chatassert.testing" not in sys.modules:
        return False
    error_type: type[ChatAssertionError] = sys.modules["chatassert.testing"].ChatAssertionError
    return isinstance(exc, error_type)
