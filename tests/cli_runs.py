"""The command line run in this process, answered as `subprocess.run` answers it.

A `python -m chatassert` process costs about 0.4 s to start (the interpreter and the package's
imports) whatever it then does; `chatassert._cli.main` in this process costs milliseconds. Each
behaviour of the command line keeps a test that runs it as a subprocess (its exit code, its
streams, its working directory as a user's shell gives them); the variants of that behaviour (one
more format, one more option, one more awkward line) run here, through `run_in_process`, and are
asserted on exactly as the subprocess's output would be.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from chatassert._cli import main


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """`os.environ` is `env` (when given) while the block runs, then what it was."""
    if env is None:
        yield
        return
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(before)


def run_in_process(
    *args: str,
    cwd: Path | str | None = None,
    stdin: str | bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `chatassert ARGS` in this process, in `cwd`, reading `stdin` (text is UTF-8) and
    seeing `env` as its whole environment; its exit code (argparse's too) and what it wrote to
    standard output and standard error, as `subprocess.run(..., capture_output=True,
    text=True)` gives them for the same command."""
    out, err = io.StringIO(), io.StringIO()
    data = stdin.encode() if isinstance(stdin, str) else stdin
    given = io.TextIOWrapper(io.BytesIO(data or b""), encoding="utf-8")
    saved_stdin = sys.stdin
    sys.stdin = given
    try:
        with (
            _environment(env),
            contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors and --help
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:  # as the interpreter ends on a message: it goes to standard error
                    err.write(f"{exc.code}\n")
                    code = 1
    finally:
        sys.stdin = saved_stdin
        given.close()
    return subprocess.CompletedProcess(
        ["chatassert", *args], code, _universal(out.getvalue()), _universal(err.getvalue())
    )


def _universal(text: str) -> str:
    """`text` with its line ends read as `text=True` reads a process's output."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def without_durations(value: Any) -> Any:
    """A report line or result tree (decoded JSON) without its `duration`s, the one thing two
    runs of the same check never share: what comparisons of two runs compare."""
    if isinstance(value, dict):
        return {k: without_durations(v) for k, v in value.items() if k != "duration"}
    if isinstance(value, list):
        return [without_durations(v) for v in value]
    return value
