"""Fuzzing the command line in process: garbage arguments, garbage suites, garbage logs.

The contract under test: `chatassert._cli.main(argv)` returns one of the documented exit codes
(0 to 4) or exits through argparse with code 0 or 2, and never lets an exception (a traceback)
out. Output goes to in-memory streams; files are written only in a temporary directory.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st
from test_fuzz_logs import SAMPLES, mutated_record, to_line

from chatassert._cli import main

_DIR = tempfile.TemporaryDirectory(prefix="chatassert-fuzz-cli-")
_EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
SUITE = os.path.join(_EXAMPLES, "support.scenario.yaml")
LOG = os.path.join(_EXAMPLES, "support.jsonl")
DOCUMENTED = frozenset({0, 1, 2, 3, 4})


def run(argv: list[str], documented: frozenset[int] = DOCUMENTED) -> tuple[int, str, str]:
    """Run the command line in process; return its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code
            assert code in (0, 2), f"argparse exited with {code!r} for {argv!r}"
    assert isinstance(code, int), (argv, code)
    assert code in documented, (argv, code, err.getvalue()[-2000:])
    assert "Traceback (most recent call last)" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def _path(name: str, data: bytes) -> str:
    path = os.path.join(_DIR.name, name)
    with open(path, "wb") as file:
        file.write(data)
    return path


_OPTIONS = (
    "check",
    "lint",
    "schema",
    "spec",
    "result",
    "nope",
    "--suite",
    "-s",
    "--assert",
    "-a",
    "--format",
    "json",
    "junit",
    "html",
    "text",
    "xml",
    "--output",
    "--jobs",
    "-j",
    "--transcript-format",
    "--log-format",
    "openai",
    "otel",
    "--fail-fast",
    "--workflow",
    "--max-failures",
    "--strict",
    "--show",
    "--verbose",
    "-v",
    "--version",
    "--help",
    "-h",
    "--",
    "0",
    "1",
    "-1",
    "99999999999999999999",
    "nan",
    "",
    "{type: contains, value: x}",
    '{"type": "tools_called", "params": {"tools": ["x"]}}',
    "[",
    "*.jsonl",
    "/nonexistent/log.jsonl",
    "\x00",
    "\ud800",
)


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    """Arguments: the real vocabulary in any order, with real files, temp outputs and junk."""
    token = st.one_of(
        st.sampled_from(_OPTIONS),
        st.sampled_from([SUITE, LOG, _DIR.name, os.path.join(_DIR.name, "*.jsonl")]),
        st.just(os.path.join(_DIR.name, "out.txt")),
        specgen.odd_text(8),
    )
    argv = draw(st.lists(token, max_size=8))
    # a parallel run starts worker processes: keep the in-process fuzz to one
    for i, arg in enumerate(argv):
        if arg in ("--jobs", "-j") and i + 1 < len(argv):
            argv[i + 1] = draw(st.sampled_from(["1", "0", "-1", "x"]))
    if argv and argv[-1] in ("--jobs", "-j"):
        argv.pop()
    first = draw(st.sampled_from(["check", "lint", "schema", ""]))
    argv = ([first] if first else []) + argv
    if argv[:1] == ["check"]:
        argv.insert(1, "--no-progress")
    return argv


@given(argvs())
@fuzz_target("cli.argv")
def test_any_arguments_give_a_documented_exit_code(argv: list[str]) -> None:
    run(argv)


@st.composite
def suite_files(draw: st.DrawFn) -> str:
    """A suite file: a mutated document of any dialect as YAML text, or hand-edited bytes."""
    doc = draw(specgen.mutated(specgen.documents()))
    text = specgen.to_flow_yaml(doc, escape_odd=draw(st.booleans()))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=4)) + data[at:]
    suffix = draw(st.sampled_from([".yaml", ".json", ".yml", ".txt"]))
    return _path(f"suite{suffix}", data)


@given(suite_files())
@fuzz_target("cli.lint")
def test_lint_of_any_suite_file_gives_a_documented_exit_code(path: str) -> None:
    code, _, err = run(["lint", path])
    assert code in (0, 2), (code, err)


_ALL = [s for samples in SAMPLES.values() for s in samples]


@st.composite
def log_files(draw: st.DrawFn) -> str:
    """A log: mutated records of any adapter, garbage lines, stray bytes."""
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["record", "mutated", "garbage", "blank"]))
        if kind == "record":
            lines.append(to_line(draw(st.sampled_from(_ALL)), True))
        elif kind == "mutated":
            lines.append(to_line(draw(mutated_record(_ALL)), draw(st.booleans())))
        elif kind == "garbage":
            lines.append(draw(specgen.odd_text(20)).replace("\n", " "))
        else:
            lines.append("")
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    return _path("log.jsonl", data)


@given(
    log_files(),
    st.sampled_from(["text", "json", "junit", "html"]),
    st.lists(st.sampled_from(["--strict", "--fail-fast", "-v", "--show=1"]), max_size=2),
    st.sampled_from(["suite", "assert", "both"]),
)
@fuzz_target("cli.check")
def test_check_of_any_log_gives_a_documented_exit_code(
    log: str, format: str, flags: list[str], how: str
) -> None:
    inline = ["--assert", "{type: contains, value: refund}"]
    if how == "suite":
        argv = [SUITE, log]
    elif how == "assert":
        argv = [*inline, log]
    else:
        argv = ["--suite", SUITE, *inline, log]
    code, out, _ = run(["check", "--no-progress", "--format", format, *flags, *argv])
    if format == "json" and code != 2:
        for line in out.splitlines():
            json.loads(line)
