"""The command line as a package: the parser built from each command's module, the check
pipeline callable as a function (as `validate` calls it), the log formats `--log-format`
lists read from the table of formats, and the workers' functions importable by name.

Docs: docs/internals/architecture.md ("The command line").
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import pickle
from pathlib import Path

import pytest

from chatassert._cli import COMMANDS, check as check_command, main, parser
from chatassert._cli._output import STDOUT, Output
from chatassert.reporting import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from chatassert.transcripts import FORMATS


def _help(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(out.getvalue().split())


def test_the_parser_lists_the_commands_of_the_table_in_its_order() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["--help"])
    listed = out.getvalue().split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split()[0] for line in listed if line[4:5].isalpha()] == list(COMMANDS)
    for name in COMMANDS:  # each command's module adds its part and runs it
        module = importlib.import_module(f"chatassert._cli.{name}")
        assert callable(module.add_parser)
        assert callable(module.run)
    assert parser().parse_args(["lint", "a.yaml"]).command == "lint"


def test_log_format_help_lists_the_formats_of_the_table_in_their_order() -> None:
    listed = "".join(_help("check").split()).split("inthisformat(", 1)[1].split(")")[0]
    assert listed.split(",") == list(FORMATS)


def test_an_unknown_log_format_is_a_usage_error_naming_the_known_ones(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("{}\n", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exited:
        main(["check", "-a", "{type: contains, value: x}", "--log-format", "yaml", str(log)])
    assert exited.value.code == EXIT_USAGE
    known = ", ".join(repr(name) for name in FORMATS)
    assert f"argument --log-format: invalid choice: 'yaml' (choose from {known})\n" in (
        err.getvalue()
    )


def test_check_options_are_the_defaults_of_the_command_line_with_the_given_ones() -> None:
    given = check_command.options(paths=["s.yaml", "log.jsonl"], full_results=True)
    parsed = parser().parse_args(["check", "s.yaml", "log.jsonl", "--full-results"])
    assert vars(given) == vars(parsed)
    with pytest.raises(TypeError, match="check has no option 'nope'"):
        check_command.options(nope=1)


def test_the_check_pipeline_runs_as_a_function(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    line = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")
    report = tmp_path / "r.jsonl"
    args = check_command.options(
        paths=[str(log)], asserts=["{type: contains, value: hey}"], output=[str(report)]
    )
    out, err = io.StringIO(), io.StringIO()
    assert check_command.run(args, Output(out, STDOUT), err) == EXIT_FAILED
    # the report went to a file: the summary and where it went are on the output
    assert out.getvalue().endswith(f"1 checked: 0 passed, 1 failed, 0 errors, 0 skipped\n"
                                   f"report written: {report} (json)\n")  # fmt: skip
    quiet = check_command.options(
        paths=[str(log)], asserts=["{type: contains, value: hey}"], output=[str(report)], quiet=True
    )
    out = io.StringIO()
    assert check_command.run(quiet, Output(out, STDOUT), err) == EXIT_FAILED
    assert out.getvalue() == ""
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["summary"]["failed"] == 1
    args = check_command.options(paths=[str(log)], asserts=["{type: contains, value: yo}"])
    assert check_command.run(args, Output(out, STDOUT), err) == EXIT_OK


def test_what_workers_run_is_pickled_by_reference() -> None:
    # --jobs N: ProcessPoolExecutor sends the initialiser and each task's function by name
    from chatassert._cli import _engine, _grouping, _worker

    for function in (
        _worker.init_worker,
        _engine._work,
        _engine._work_range,
        _grouping._work_groups,
    ):
        assert pickle.loads(pickle.dumps(function)) is function
