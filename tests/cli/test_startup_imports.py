"""What the command line imports before it does its work (start-up is a cost of every run).

`chatassert --version` loads no part of the library; a run of deterministic checks loads
neither the event loop (asyncio: only judged checks await) nor multiprocessing (only
`--jobs N`) nor the XML and HTTP modules (`xml.sax.saxutils` imports `urllib.request`); a
short log is decoded without msgspec, which a log loads once it is long enough to pay for it.
Each command runs in a fresh interpreter, as a user starts it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

_PROBE = """
import runpy, sys
sys.argv = ["chatassert", *{args!r}]
try:
    runpy.run_module("chatassert", run_name="__main__")
except SystemExit as exc:
    code = exc.code
print({names!r} and sorted(m for m in {names!r} if m in sys.modules), code, file=sys.stderr)
"""

_HEAVY = (
    "asyncio",
    "multiprocessing",
    "concurrent.futures.process",
    "urllib.request",
    "ssl",
    "msgspec",
)


def _loaded(args: list[str], names: tuple[str, ...], cwd: Path) -> tuple[list[str], str]:
    probe = _PROBE.format(args=args, names=names)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, check=False
    )
    *_, last = done.stderr.strip().splitlines()
    loaded, code = last.rsplit(" ", 1)
    return ast.literal_eval(loaded), code


def test_version_loads_no_part_of_the_library(tmp_path: Path) -> None:
    names = ("chatassert._cli._options", "chatassert.reporting", "pydantic", "yaml", "msgspec")
    loaded, code = _loaded(["--version"], names, tmp_path)
    assert (loaded, code) == ([], "0")


def test_a_run_of_deterministic_checks_loads_no_event_loop_pool_or_http(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text(
        '{"messages": [{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": "hello"}]}\n'
    )
    spec = "{type: contains, value: hello}"
    args = ["check", "--assert", spec, "log.jsonl", "-f", "junit", "-o", "r.xml"]
    loaded, code = _loaded(args, _HEAVY, tmp_path)
    assert (loaded, code) == ([], "0")
    assert "<testsuites" in (tmp_path / "r.xml").read_text()


def test_jobs_loads_the_process_pool_it_needs(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text(
        '{"messages": [{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": "hello"}]}\n'
    )
    spec = "{type: contains, value: hello}"
    args = ["check", "--assert", spec, "log.jsonl", "--jobs", "2", "-q"]
    loaded, code = _loaded(args, ("concurrent.futures.process",), tmp_path)
    assert (loaded, code) == (["concurrent.futures.process"], "0")


def test_a_long_log_is_decoded_by_msgspec(tmp_path: Path) -> None:
    line = (
        '{"messages": [{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": "hello"}]}\n'
    )
    (tmp_path / "log.jsonl").write_text(line * 300)
    args = ["check", "--assert", "{type: contains, value: hello}", "log.jsonl"]
    loaded, code = _loaded(args, ("msgspec",), tmp_path)
    assert (loaded, code) == (["msgspec"], "0")
