"""Where reports go: standard output or `--output` files, whose write errors are
`OutputError`s (never a log's fault); the reports of a run per format, the writer that fills
them and what ends them (the HTML page's run metadata); the terminal's width.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

from chatassert import __version__
from chatassert._cli._plan import Plan
from chatassert._suite import Suite
from chatassert.records import (
    ReportWriter,
)
from chatassert.reporting import (
    Summary,
    format_named_by,
)
from chatassert.reporting._junit import relative_to_cwd

EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader went away


STDOUT = "to standard output"
"""How messages name standard output as a report's destination."""


class OutputError(Exception):
    """The report could not be written (a full disk, a closed pipe); never a log's fault."""

    def __init__(self, name: str, error: OSError) -> None:
        super().__init__(f"cannot write {name}: {error.strerror or error}")
        self.name = name
        self.error = error


class Output:
    """Where the report goes: a text stream whose write errors are `OutputError`s.

    Args:
        stream: The stream (standard output, or the `-o` file).
        name: How messages name it (`to standard output`, or the path).
    """

    def __init__(self, stream: IO[str], name: str) -> None:
        self.stream = stream
        self.name = name

    def write(self, text: str) -> int:
        """Write `text`."""
        try:
            return self.stream.write(text)
        except OSError as exc:
            raise OutputError(self.name, exc) from None

    def flush(self) -> None:
        """Flush what is buffered."""
        try:
            self.stream.flush()
        except OSError as exc:
            raise OutputError(self.name, exc) from None

    def close(self) -> None:
        """Flush and close the stream."""
        try:
            self.stream.close()
        except OSError as exc:
            raise OutputError(self.name, exc) from None


class Tee:
    """The outputs of one report format: each gets every write."""

    def __init__(self) -> None:
        self.outputs: list[Output] = []

    def write(self, text: str) -> int:
        """Write `text` to each output."""
        for output in self.outputs:
            output.write(text)
        return len(text)


class Reports:
    """The reports of a run: per format, the outputs it goes to."""

    def __init__(self) -> None:
        self.by_format: dict[str, Tee] = {}
        self.owned: list[Output] = []

    def open(self, outputs: Sequence[tuple[str, str | None]], out: Output, err: IO[str]) -> bool:
        """Open every output (None: `out`) before anything is checked; False, having said why
        on `err`, when one cannot be written."""
        for fmt, path in outputs:
            if path is None:
                self.add(fmt, out)
                continue
            try:
                stream = open(path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                err.write(f"cannot write {path}: {exc.strerror or exc}\n")
                return False
            self.add(fmt, Output(stream, path), owned=True)
        return True

    def add(self, fmt: str, output: Output, owned: bool = False) -> None:
        """Send the `fmt` report to `output` too (closed at the end when `owned`)."""
        self.by_format.setdefault(fmt, Tee()).outputs.append(output)
        if owned:
            self.owned.append(output)

    def get(self, fmt: str) -> Tee | None:
        """The outputs of the `fmt` report, if the run writes one."""
        return self.by_format.get(fmt)

    def close(self, quietly: bool = False) -> None:
        """Close the files opened for the run (a write error raised, unless `quietly`)."""
        while self.owned:
            output = self.owned.pop(0)
            if quietly:
                with contextlib.suppress(OutputError):
                    output.close()
            else:
                output.close()


def report_outputs(
    given: str | None, outputs: Sequence[str], err: IO[str], *, prog: str = "chatassert check"
) -> tuple[tuple[str, str | None], ...] | None:
    """The reports of a run, `(format, path)` each (path None: standard output).

    With no `--output`, one report on standard output (`-o -` names it too); with several,
    each file's format is the one its extension names, and `--format` (which would force one
    format on them all) is a usage error, as is a file named twice (None, said on `err` by
    the command `prog`).
    """
    if not outputs:
        return ((given or "text", None),)
    if outputs.count("-") > 1:
        err.write(f"{prog}: --output - (standard output) is given twice\n")
        return None
    if len(outputs) > 1 and given is not None:
        err.write(
            f"{prog}: --format {given} forces one format, but {len(outputs)} "
            "--output files are given; drop --format: each file's extension names its format\n"
        )
        return None
    seen: set[str] = set()
    out: list[tuple[str, str | None]] = []
    for path in outputs:
        if path == "-":  # standard output, as for every other command
            out.append((given or "text", None))
            continue
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            err.write(f"{prog}: --output {path} is given twice\n")
            return None
        seen.add(key)
        fmt = report_format(given, path, err, prog=prog)
        if fmt is None:
            return None
        out.append((fmt, path))
    return tuple(out)


def with_summary(
    outputs: tuple[tuple[str, str | None], ...], quiet: bool
) -> tuple[tuple[str, str | None], ...]:
    """The reports of a run and, when every one goes to a file, the text summary on standard
    output too (as pytest prints its summary beside the reports it writes); `quiet`: not."""
    if quiet or any(path is None for _, path in outputs):
        return outputs
    return (*outputs, ("text", None))


def say_written(outputs: Sequence[tuple[str, str | None]], out: Output, quiet: bool) -> None:
    """A line per report file written (`report written: report.html (html)`), on standard
    output after the text summary (the only report that goes there beside files); `quiet`:
    none."""
    if not quiet:
        for fmt, path in outputs:
            if path is not None:
                out.write(f"report written: {path} ({fmt})\n")


def report_format(
    given: str | None, output: str | None, err: IO[str], *, prog: str = "chatassert check"
) -> str | None:
    """The report's format: `--format`, else the one `--output`'s extension names, else text.

    A `--format` that contradicts the extension is a usage error (None, said on `err`): a
    JUnit report in `report.html` is never what was meant.
    """
    named = format_named_by(output) if output else None
    if given is not None and named is not None and given != named:
        err.write(
            f"{prog}: --format {given} does not match the extension of "
            f"--output {output} ({named}); drop --format, or name the file for {given}\n"
        )
        return None
    return given or named or "text"


def report_writer(
    plan: Plan,
    reports: Reports,
    args: argparse.Namespace,
    tags: dict[tuple[str, str], tuple[str, ...]] | None = None,
    *,
    subjects: bool = True,
) -> ReportWriter:
    """The writer of a run's reports, to the outputs `reports` opened (`subjects`: whether
    the rows come with their subjects, not read back from a report)."""
    outputs = {fmt: tee for fmt in plan.formats if (tee := reports.get(fmt)) is not None}
    # the text report wraps at the terminal's width when it is read there (and nowhere else)
    texts = [path for fmt, path in plan.outputs if fmt == "text"]
    to_terminal = texts == [None] and isatty(sys.stdout)
    return ReportWriter(
        outputs,
        show=args.show,
        verbose=args.verbose,
        full_results=plan.full_results,
        flaky=plan.flaky,
        tags=tags,
        width=columns(sys.stdout) if to_terminal else 120,
        subjects=subjects,
    )


def finish_reports(
    plan: Plan,
    summary: Summary,
    writer: ReportWriter,
    args: argparse.Namespace,
    files: Sequence[str] = (),
    stopped: str | None = None,
) -> None:
    """End each report: the suites' gates decided (each skipped when the run was interrupted
    or `stopped` before the end of its logs: `_gating.decide_gates`), then the JSON summary
    line, the JUnit document, the text or HTML summary (the HTML page with the run's
    metadata)."""
    if summary.tally is not None:
        from chatassert._cli._gating import decide_gates

        decide_gates(summary, stopped)
    writer.finish(summary, run_meta(plan, args, files))


def case_tags(suites: Sequence[Suite]) -> dict[tuple[str, str], tuple[str, ...]]:
    """The tags of each `(suite, case)` that has some, for the HTML report's filter."""
    return {(s.name, c.name): c.tags for s in suites for c in s.cases if c.tags}


def run_meta(plan: Plan, args: argparse.Namespace, files: Sequence[str]) -> dict[str, Any]:
    """What the HTML report says of the run: date, command line, suites, logs (relative to
    the working directory when below it), version and duration."""
    import datetime
    import shlex

    started = getattr(args, "started", time.time())
    suites = [relative_to_cwd(plan.suite)] if plan.suite is not None else []
    suites += [f"--assert {spec}" for spec in plan.asserts]
    return {
        "date": datetime.datetime.fromtimestamp(started).astimezone().isoformat(timespec="seconds"),
        "command": shlex.join(["chatassert", *getattr(args, "argv", [])]),
        "suites": suites,
        "logs": [relative_to_cwd(os.path.abspath(f)) if f != "-" else f for f in files],
        "version": __version__,
        "duration": round(time.time() - started, 3),
    }


def isatty(stream: IO[str]) -> bool:
    """Whether `stream` is a terminal (False when it cannot tell)."""
    try:
        return stream.isatty()
    except (ValueError, OSError):
        return False


def columns(stream: IO[str]) -> int:
    """The width of the terminal `stream` writes to (80 when it cannot be known)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80
