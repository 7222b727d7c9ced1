"""`chatassert check --engine ray`: the logs checked by Ray tasks, reported as a local run.

Each log file (JSONL, JSONL.gz or Parquet; a local path, or a URI pyarrow's file systems
open, a directory's URI standing for the logs in it) is checked by one Ray task, which opens
and reads it itself (`chatassert.integrations.ray.check_files`); the rows come back in input
order and are counted and written here exactly as a local run's. Ray is imported only when
this engine runs.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
from collections.abc import Callable, Sequence
from typing import IO, Any

from chatassert._cli._messages import failures_reached, say_listed, say_strict_stop
from chatassert._gates import gate_tally
from chatassert.records import Checker, ReportWriter, Summary
from chatassert.reporting._summary import EXIT_USAGE

_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".parquet")
_UNSUPPORTED = (("--group-by", "group_by"),)


_RECORD = re.compile(r"(.*?(?::\d+|#row=\d+))(?:#.*)?")


def _record_of(source: str) -> str:
    """The record a row's source names: `log.jsonl:12` of `log.jsonl:12#sample-3`, and
    `part.parquet#row=4` of itself."""
    match = _RECORD.fullmatch(source)
    return source if match is None else match.group(1)


def _is_uri(path: str) -> bool:
    return "://" in path


def _logs(paths: Sequence[str], err: IO[str]) -> list[str] | None:
    """The logs to read: local directories and globs expanded, URIs passed to Ray as given."""
    import glob

    out: list[str] = []
    for path in paths:
        if _is_uri(path):
            files = _uri_logs(path, err)
            if files is None:
                return None
            out.extend(files)
            continue
        if path == "-":
            err.write("chatassert check: --engine ray reads files, not standard input\n")
            return None
        if os.path.isdir(path):
            found = sorted(p for p in glob.glob(os.path.join(path, "*")) if p.endswith(_SUFFIXES))
        elif glob.has_magic(path):
            found = sorted(p for p in glob.glob(path, recursive=True) if os.path.isfile(p))
        else:
            found = [path] if os.path.isfile(path) else []
        if not found:
            err.write(f"cannot read log {path}: no such file (or no log in it)\n")
            return None
        for name in found:
            if not name.endswith(_SUFFIXES):
                err.write(
                    f"chatassert check: --engine ray reads .jsonl, .jsonl.gz and .parquet "
                    f"logs, not {name}\n"
                )
                return None
        out.extend(found)
    return out


def _uri_logs(uri: str, err: IO[str]) -> list[str] | None:
    """The logs a URI names: itself when it names a file, the logs in it (not in its
    subdirectories, nor hidden) when it names a directory, as for a local directory."""
    try:
        fs = importlib.import_module("pyarrow.fs")
    except ImportError:  # the engine's own check says what to install
        return [uri]
    try:
        system, path = fs.FileSystem.from_uri(uri)
        info = system.get_file_info(path)
        if info.type == fs.FileType.File:
            return [uri]
        if info.type != fs.FileType.Directory:
            err.write(f"cannot read log {uri}: no such file or directory\n")
            return None
        listed = system.get_file_info(fs.FileSelector(path, recursive=False))
    except (OSError, ValueError, importlib.import_module("pyarrow").ArrowException) as exc:
        err.write(f"cannot read log {uri}: {exc}\n")
        return None
    scheme = uri.split("://", 1)[0]
    found = sorted(
        f"{scheme}://{item.path}"
        for item in listed
        if item.type == fs.FileType.File
        and not item.base_name.startswith(".")
        and item.base_name.endswith(_SUFFIXES)
    )
    if not found:
        err.write(f"cannot read log {uri}: no log in it\n")
        return None
    return found


def run_ray(
    checker: Checker,
    writer: ReportWriter,
    finish: Callable[[Summary, ReportWriter, list[str]], None],
    end: Callable[[Summary, ReportWriter, list[str], str | None], int],
    paths: Sequence[str],
    args: argparse.Namespace,
    err: IO[str],
) -> int:
    """Check `paths` on Ray with (a copy of) the run's `checker`, which keeps result trees
    (`Checker(trees=True)`: a failing row's tree travels back, for the summary's examples),
    and write its reports with `writer`; the run ends as a local one does, by
    `end(summary, writer, files, stopped)` (which gives the exit code), or by
    `finish(summary, writer, files)` at an unreadable record under `--strict`."""
    for option, name in _UNSUPPORTED:
        if getattr(args, name, None):
            err.write(f"chatassert check: {option} is not available with --engine ray\n")
            return EXIT_USAGE
    if (args.resume or args.rejudge_errors) and not args.results:
        err.write("chatassert check: --resume and --rejudge-errors need --results DIR\n")
        return EXIT_USAGE
    files = _logs(paths, err)
    if files is None:
        return EXIT_USAGE
    try:
        ray = importlib.import_module("ray")
        from chatassert.integrations.ray import check_files
    except ImportError as exc:
        err.write(f"chatassert check: --engine ray: {exc}\n")
        return EXIT_USAGE
    if not ray.is_initialized():
        ray.init(
            address=os.environ.get("RAY_ADDRESS"),
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,  # its notices are not this run's news
        )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the run's own reports only
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    # that the bars are off is this run's choice, not news for its user
    logging.getLogger("ray.data._internal.progress").setLevel(logging.ERROR)
    summary = Summary(keep=args.show, records=0, tally=gate_tally(checker.suites))
    items = check_files(
        files,
        checker,
        column=getattr(args, "column", None),
        results=args.results,
        resume=args.resume,
        rejudge_errors=args.rejudge_errors,
        say=lambda text: err.write(text + "\n"),
        **_judging(checker, args),
    )
    stopped = None
    reading: set[str] = set()  # the records of the file being read whose rows have come:
    # a run that stops counts them as a local run does (--strict: those before the unreadable
    # one; --max-failures: the one it stopped in too, whose case was checked)
    for item in items:
        if isinstance(item, int):  # a file is done: its count of records
            summary.records = (summary.records or 0) + item
            reading.clear()
            continue
        record = _record_of(item.source)
        reading.add(record)
        if item.kind == "unreadable" and args.strict:  # a complete report of what was read
            items.close()
            summary.records = (summary.records or 0) + len(reading - {record})  # done ones
            summary.add_row(item)
            writer.add(item)
            say_strict_stop(item, err)
            finish(summary, writer, files)
            return EXIT_USAGE
        summary.add_row(item)
        say_listed(item, summary, err)
        writer.add(item)
        stopped = failures_reached(summary, args.max_failures) if item.kind == "case" else None
        if stopped:
            items.close()  # the rows still in flight are not waited for
            summary.records = (summary.records or 0) + len(reading)
            break
    return end(summary, writer, files, stopped)


def _judging(checker: Checker, args: argparse.Namespace) -> dict[str, Any]:
    """What the tasks of a judged run need: the cluster-wide judge limit, the shared verdict
    store (when the cache is on; it keeps the verdicts in the cache file on its node), and
    the judge's settings (the `CHATASSERT_*` variables of this process; an API key is not
    among them: the workers read theirs from their own environment)."""
    if not any(case.needs_judge() for suite in checker.suites for case in suite.cases):
        return {}
    from chatassert.integrations.ray import JudgeLimit, RayVerdictStore
    from chatassert.judges._env import cache_setting
    from chatassert.judges._settings import env_concurrency

    concurrency = getattr(args, "judge_concurrency", None) or env_concurrency()
    limit = JudgeLimit(concurrency, getattr(args, "judge_rpm", None))
    settings = {k: v for k, v in os.environ.items() if k.startswith("CHATASSERT_")}
    path = cache_setting()  # the cache on: one store for every task, kept in this file
    store = RayVerdictStore.start(path) if path is not None else None
    return {
        "judge_limit": limit,
        "verdict_store": store,
        "environ": settings,
    }
