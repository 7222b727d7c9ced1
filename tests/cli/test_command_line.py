"""The command line as its users read it: help grouped and complete, one name per concept
(older names kept working), the closest spelling of a misspelt option, choice or command, the
summary on the terminal when the reports go to files, and messages that count right. Each
behaviour meets a subprocess once; its variants run in this process (tests/cli_runs.py).

Docs: docs/offline.md ("Command line"). Sources: src/chatassert/_cli/_options.py (the
parser), _output.py (the summary), each command's `add_parser`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from chatassert._cli import COMMANDS, main, parser
from cli_runs import run_in_process

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUITE = str(EXAMPLES / "support.scenario.yaml")
LOG = str(EXAMPLES / "support.jsonl")


def in_process(*argv: str) -> tuple[int, str, str]:
    """Run the command line in this process: its exit code (argparse's too), stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def help_of(*command: str) -> str:
    code, out, _ = in_process(*command, "--help")
    assert code == 0
    return out


# -- help ----------------------------------------------------------------------------------


def test_every_command_has_a_description_and_every_option_its_help() -> None:
    listed = commands()
    assert list(listed) == list(COMMANDS)
    for name, command in listed.items():
        assert len(command.description or "") > 40, name
        assert (command.epilog or "").startswith("exit codes:"), name
        for action in command._actions:
            assert action.help not in (None, "", argparse.SUPPRESS), (name, action.dest)


def test_the_top_help_lists_each_command_with_one_line() -> None:
    text = help_of()
    commands_part = text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    named = [line.split()[0] for line in commands_part.splitlines() if line[4:5].isalpha()]
    assert named == list(COMMANDS)
    assert "COMMAND\n" not in commands_part  # the metavar is not a command


def test_check_help_groups_its_options() -> None:
    text = help_of("check")
    groups = [
        "suite and logs:",
        "selection:",
        "when to stop:",
        "reports:",
        "judges:",
        "performance:",
        "engines:",
        "exit codes:",
    ]
    places = [text.index(f"\n{group}\n") for group in groups]
    assert places == sorted(places)
    section: dict[str, str] = {}
    for group, nxt in itertools.pairwise(groups):
        section[group] = text[text.index(f"\n{group}\n") : text.index(f"\n{nxt}\n")]
    expected = {
        "suite and logs:": ["--suite", "--assert", "--log-format", "--group-by", "--workflow"],
        "selection:": ["-k EXPR", "--tag", "--assume"],
        "when to stop:": ["--fail-fast", "--max-failures", "--strict"],
        "reports:": ["--format", "--output", "--full-results", "--show", "--quiet"],
        "judges:": ["--repeat", "--flaky", "--no-plan", "--judge-prices"],
        "performance:": ["--jobs"],
        "engines:": ["--engine", "--column", "--results", "--judge-rpm"],
    }
    for group, options in expected.items():
        for option in options:
            assert f"  {option}" in section[group] or f", {option}" in section[group], option


def test_each_command_lists_only_its_own_exit_codes() -> None:
    regate = help_of("regate")
    epilog = regate[regate.index("exit codes:") :]
    for foreign in ("--max-failures", "--strict", "Ctrl-C", "log file"):
        assert foreign not in epilog
    assert "regate ... | head" in epilog
    lint = help_of("lint")
    codes = [line.split()[0] for line in lint[lint.index("exit codes:") :].splitlines()[1:]]
    assert [c for c in codes if c.isdigit()] == ["0", "2"]
    validate = help_of("validate")
    assert "--min-kappa" in validate[validate.index("exit codes:") :]


def test_validate_format_is_described() -> None:
    text = " ".join(help_of("validate").split())
    assert "-f {text,json}, --format {text,json} text (a table per assertion" in text


# -- one name per concept ------------------------------------------------------------------


def test_older_option_names_are_aliases_left_out_of_the_help() -> None:
    built = parser()
    pairs = [
        (["check", "--log-format", "openai", "s"], ["check", "--transcript-format", "openai", "s"]),
        (["check", "-q", "s"], ["check", "--no-progress", "s"]),
        (["convert", "--log-format", "otel", "-f", "adk-evalset", "l"],
         ["convert", "--from", "otel", "--to", "adk-evalset", "l"]),
    ]  # fmt: skip
    for new, old in pairs:
        assert vars(built.parse_args(new)) == vars(built.parse_args(old)), old
    assert built.parse_args(pairs[0][0]).transcript_format == "openai"
    assert built.parse_args(pairs[1][0]).progress == "off"
    check, convert = help_of("check"), help_of("convert")
    shown = {
        word.rstrip(",") for line in check.splitlines() if line[2:3] == "-" for word in line.split()
    }
    assert {"--log-format", "-q", "--quiet"} <= shown
    assert not {"--transcript-format", "--no-progress"} & shown
    assert "[--transcript-format" not in check  # nor in the usage
    assert "--transcript-format is an older name of it" in " ".join(check.split())
    assert "--from NAME" not in convert
    assert "--to FORMAT" not in convert
    assert "--from is an older name of it" in " ".join(convert.split())
    assert "--to is an older name of it" in " ".join(convert.split())


def test_the_log_format_and_the_output_format_have_one_name_in_every_command() -> None:
    for name, command in commands().items():
        strings = {s for a in command._actions for s in a.option_strings}
        if "--from" in strings or "--transcript-format" in strings:
            assert "--log-format" in strings, name
        if name in ("check", "regate", "validate", "convert"):
            assert {"-f", "--format"} <= strings, name
        if name in ("check", "regate", "convert"):
            assert {"-o", "--output"} <= strings, name


# -- what to do about a usage error ----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["check", SUITE, LOG, "--ouput", "r.html"],
         "chatassert check: error: unknown option '--ouput'; did you mean '--output'?\n"),
        (["check", SUITE, LOG, "--ouput=r.html"], "unknown option '--ouput'; did you mean"),
        (["check", SUITE, LOG, "-f", "jsn"], "invalid choice: 'jsn'; did you mean 'json'?"),
        (["chek", SUITE, LOG], "unknown command 'chek'; did you mean 'check'?"),
        (["convert", "--log-format", "antropic", LOG],
         "argument --log-format: invalid choice: 'antropic'; did you mean 'anthropic'?"),
        (["check", SUITE, LOG, "--transcript-format", "opena"],
         "argument --log-format: invalid choice: 'opena'; did you mean 'openai'?"),
        (["lint", SUITE, "--verbsoe"], "unknown option '--verbsoe'; did you mean '--verbose'?"),
        (["regate", "r.jsonl", "--min-score", "x=1", "--flaky", "fial"], "did you mean 'fail'?"),
    ],
)  # fmt: skip
def test_a_misspelt_option_choice_or_command_gets_the_closest_spelling(
    argv: list[str], said: str
) -> None:
    code, out, err = in_process(*argv)
    assert code == 2
    assert out == ""
    assert said in err
    assert err.endswith("--help' for the options\n")


def test_an_option_like_no_other_gets_no_guess() -> None:
    code, _, err = in_process("check", SUITE, LOG, "--zzzz")
    assert code == 2
    assert "unknown option '--zzzz'\n" in err


def test_an_unexpected_argument_is_named() -> None:
    code, _, err = in_process("schema", "spec", "extra")
    assert code == 2
    assert "chatassert schema: error: unexpected argument 'extra'\n" in err


# -- the summary on the terminal -----------------------------------------------------------


def test_reports_to_files_still_print_the_summary_and_where_they_went(tmp_path: Path) -> None:
    done = run("check", SUITE, LOG, "-o", "r.html", "-o", "r.xml", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-3].startswith("2 checked: 1 passed, 1 failed")
    assert lines[-2:] == ["report written: r.html (html)", "report written: r.xml (junit)"]
    assert "- support / duplicate-charge-refund" in done.stdout  # the failing case, shown
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "report written" not in done.stderr


def test_quiet_prints_nothing_but_the_reports(tmp_path: Path) -> None:
    for flag in ("-q", "--quiet", "--no-progress"):
        runner = run if flag == "-q" else run_in_process  # the other spellings: in this process
        done = runner("check", SUITE, LOG, "-o", "r.jsonl", flag, cwd=tmp_path)
        assert done.returncode == 1
        assert done.stdout == ""
        assert json.loads((tmp_path / "r.jsonl").read_text().splitlines()[-1])["summary"]


def test_a_report_on_standard_output_is_not_mixed_with_the_summary(tmp_path: Path) -> None:
    alone = run_in_process("check", SUITE, LOG, "-f", "json", cwd=tmp_path)
    assert [json.loads(line) for line in alone.stdout.splitlines()]  # JSON Lines only
    dash = run_in_process("check", SUITE, LOG, "-f", "json", "-o", "-", cwd=tmp_path)
    assert [json.loads(line).keys() for line in dash.stdout.splitlines()] == [
        json.loads(line).keys() for line in alone.stdout.splitlines()
    ]
    assert not (tmp_path / "-").exists()  # `-o -` is standard output, not a file named -


def test_dash_beside_files_is_the_text_summary(tmp_path: Path) -> None:
    done = run_in_process("check", SUITE, LOG, "-o", "-", "-o", "r.xml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.count("2 checked: 1 passed, 1 failed") == 1  # once, not twice
    assert done.stdout.endswith("report written: r.xml (junit)\n")
    twice = run_in_process("check", SUITE, LOG, "-o", "-", "-o", "-", cwd=tmp_path)
    assert twice.returncode == 2
    assert "--output - (standard output) is given twice" in twice.stderr


def test_regate_prints_the_summary_when_its_reports_go_to_files(tmp_path: Path) -> None:
    assert run_in_process("check", SUITE, LOG, "-o", "r.jsonl", "-q", cwd=tmp_path).returncode == 1
    done = run("regate", "r.jsonl", "--min-score", "llm_rubric=0.5", "-o", "n.xml", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout.endswith("report written: n.xml (junit)\n")
    assert "2 checked: 1 passed, 1 failed" in done.stdout
    quiet = run_in_process(
        "regate", "r.jsonl", "--min-score", "x=0.5", "-o", "n.xml", "-q", cwd=tmp_path
    )
    assert quiet.stdout == ""


# -- counted words -------------------------------------------------------------------------


def test_lint_and_convert_count_in_words_that_agree(tmp_path: Path) -> None:
    suite = tmp_path / "one.yaml"
    suite.write_text("- {type: contains, value: hi}\n", encoding="utf-8")
    done = run_in_process("lint", str(suite), "-v", cwd=tmp_path)
    assert f"{suite}: ok (flat, 1 case, 1 assertion)" in done.stdout
    assert ": 1 assertion\n" in done.stdout
    log = tmp_path / "log.jsonl"
    line = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hi"}]}
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")
    converted = run_in_process("convert", str(log), "-o", str(tmp_path / "out.jsonl"), cwd=tmp_path)
    assert converted.stderr == "converted 1 conversation\n"
    none = run_in_process("check", str(suite), str(log), "-k", "nothing", cwd=tmp_path)
    assert "selects none of the 1 case of the suites" in none.stderr


def test_the_documented_suggestion_is_what_the_command_line_says(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "offline.md").read_text()
    block = page.split("```\n$ chatassert check suite.yaml logs.jsonl --ouput", 1)[1]
    said = block.split("```", 1)[0].split("\n", 1)[1]
    done = run("check", "suite.yaml", "logs.jsonl", "--ouput", "report.html", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(said)
