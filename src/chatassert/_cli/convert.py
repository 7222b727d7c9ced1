"""`chatassert convert`: rewrite logs of any format chatassert reads in one format.

`--to native` (the default) writes one native JSON line per conversation (`native_line`),
which the native reader reads back into an equal conversation. `--to adk-evalset` writes one
Google ADK eval set, one eval case per conversation. Logs are streamed: a conversation is
written as soon as it is read, and nothing but the eval case ids already written (to keep them
unique) is kept.

Nothing is altered to fit and nothing is lost: a record that cannot be read, or that the
output format cannot carry as it is (a lone surrogate in an eval set, nesting deeper than the
format's readers take), is named on stderr with its place (`file:line`) and skipped, and the
others are written; a case is written whole or not at all, and the eval set is closed whatever
happens, so the output is always one well-formed document.

Docs: docs/offline.md ("Converting logs"). Tests: tests/cli/test_convert.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from chatassert._jsonlines import escape_for_lines, nesting_over
from chatassert._models import Conversation
from chatassert.reporting._words import counted, number
from chatassert.transcripts import Record, read_records

__all__ = [
    "ADK_DEPTH",
    "EXIT_EMPTY",
    "EXIT_UNREADABLE",
    "EXIT_USAGE",
    "NATIVE_DEPTH",
    "add_parser",
    "convert",
    "native_line",
    "run",
]

TARGETS = ("native", "adk-evalset")
"""The formats `convert` writes."""

EXIT_UNREADABLE = 1
"""Some records could not be read, or written in the output format: each was reported and
skipped, the rest converted."""

EXIT_USAGE = 2
"""A bad option, an output that cannot be written, or a log that cannot be opened (the other
logs are converted)."""

EXIT_EMPTY = 4
"""The logs held no record at all: nothing was converted."""

_EPILOG = """\
exit codes:
  0    every record was converted
  1    some records could not be read, or written in the output format (a lone surrogate in
       an ADK eval set, nesting too deep): each is named (file:line) on stderr and skipped;
       the others were converted
  2    usage error: a bad option, an output that cannot be written, a log that cannot be
       opened (named on stderr; the other logs are converted)
  4    nothing was converted: the logs held no records
"""


def add_parser(sub: Any) -> None:
    """Add the `convert` subcommand to the subparsers `sub`."""
    from chatassert._cli._options import aliases, command, log_format_option

    parser = command(
        sub,
        "convert",
        help="rewrite logs in the native format (or as a Google ADK eval set)",
        description="Read each conversation of the logs, in any format chatassert reads, and "
        "write it in one format: native JSON lines (one conversation per line, read back as "
        "the same conversation) or a Google ADK eval set (one eval case per conversation). "
        "Records that cannot be read are named on stderr and skipped.",
        epilog=_EPILOG,
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="log files, globs, or - for stdin")
    aliases(
        parser.add_argument(
            "-f",
            "--format",
            "--to",
            dest="to",
            choices=TARGETS,
            default="native",
            metavar="FORMAT",
            help="the format written: native (JSON lines, default) or adk-evalset (one EvalSet "
            "JSON document) (--to is an older name of it)",
        ),
        "--to",
    )
    log_format_option(parser, older="--from", dest="source_format")
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="PATH",
        help="where to write (default -, standard output)",
    )


def native_line(conversation: Conversation) -> str:
    r"""The native JSON line of a conversation (without its line break).

    Every key and value is written as the conversation holds it: a lone surrogate (JSON
    `"\ud800"` in a log) as its `\uXXXX` escape, a number a log wrote as `NaN` or `Infinity`
    as that word, so the line reads back as the same conversation.

    Raises:
        ValueError: when the conversation cannot be written as JSON (a value that holds
            itself); `RecursionError` when it nests too deeply to write.

    Example:
        >>> from chatassert.transcripts import parse_line
        >>> c = Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                            {"role": "assistant", "content": "Hello!"}], id="c1")
        >>> parse_line(native_line(c)).conversation == c
        True
    """
    # the Python form keeps keys as they are (the JSON form rewrites a lone surrogate in a key
    # and writes NaN as null) and nests as deep as the data (the JSON form stops at 255)
    data = conversation.model_dump(by_alias=True)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_jsonable)
    return escape_for_lines(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _jsonable(value: object) -> Any:
    """A value a conversation built in code may hold that JSON has no type for (a date)."""
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)


NATIVE_DEPTH = 500
"""The deepest a native line may nest: Python's JSON reader takes about a thousand levels from
the top of its stack, and a check reads a line well below it."""

ADK_DEPTH = 199
"""The deepest an eval case may nest: an eval set nests two levels more (`{"eval_cases": [`),
and the JSON reader of pydantic, which ADK's `EvalSet.model_validate_json` uses, reads 201."""


def _carried(text: str, limit: int, target: str, surrogates: bool, unit: str) -> str:
    """`text` when the target format carries it unaltered; else a `ValueError` saying why."""
    if not surrogates and not text.isascii():
        lone = _SURROGATE.search(text)
        if lone is not None:
            raise ValueError(
                f"it holds a lone surrogate (U+{ord(lone.group()):04X}), which {target} cannot "
                "carry: ADK reads eval sets with pydantic, whose JSON parser refuses one (--to "
                "native keeps it, escaped)"
            )
    depth = nesting_over(text, limit)
    if depth is not None:
        raise ValueError(f"it nests {depth} levels, more than the {limit} {unit} may")
    return text


def _conversations(
    paths: Sequence[str], format: str | None, err: IO[str], tally: dict[str, int]
) -> Iterator[tuple[Record, Conversation]]:
    """Each conversation of the logs with its record; what cannot be read is reported, and a
    log that cannot be opened is named and the others read."""
    for path in paths:
        try:
            for record in read_records(path, format=format):
                if record.conversation is None:
                    tally["unreadable"] += 1
                    err.write(f"{record.where}: skipped: {record.error}\n")
                    continue
                yield record, record.conversation
        except OSError as exc:  # a log that cannot be opened (one that vanished, a directory)
            tally["unopened"] += 1
            name = getattr(exc, "filename", None) or path
            err.write(f"cannot read log {name}: {exc.strerror or exc}\n")


def _refused(record: Record, target: str, exc: BaseException, err: IO[str]) -> None:
    if isinstance(exc, RecursionError):
        why = f"it nests too deeply to write as {target}"
    else:
        why = str(exc)
    err.write(f"{record.where}: skipped: cannot be written as {target}: {why}\n")


def _unique(wanted: str, seen: set[str]) -> str:
    name, n = wanted, 1
    while name in seen:
        n += 1
        name = f"{wanted}-{n}"
    return name


def _printable(name: str) -> str:
    """A name the command made (a file name, `file:line`), with what is not UTF-8 escaped."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _set_id(output: str) -> str:
    base = os.path.basename(output)
    for suffix in (".evalset.json", ".json"):
        base = base.removesuffix(suffix)
    return _printable(base) if output != "-" and base else "chatassert"


def _write_native(
    items: Iterator[tuple[Record, Conversation]],
    out: Any,
    err: IO[str] | None = None,
    tally: dict[str, int] | None = None,
) -> None:
    """Write each conversation as a native line; one that cannot be is named on `err`."""
    tally = tally if tally is not None else {}
    for record, conversation in items:
        try:
            line = _carried(native_line(conversation), NATIVE_DEPTH, "", True, "a native line")
        except (ValueError, RecursionError) as exc:
            tally["unwritable"] = tally.get("unwritable", 0) + 1
            _refused(record, "a native line", exc, err or sys.stderr)
            continue
        out.write(line + "\n")
        tally["written"] = tally.get("written", 0) + 1


def _write_adk(
    items: Iterator[tuple[Record, Conversation]],
    out: Any,
    output: str,
    err: IO[str] | None = None,
    tally: dict[str, int] | None = None,
) -> None:
    """Write one eval set, a case per line, the set's id last (the first case may name it).

    A case is written whole or not at all, and the document is closed whatever happens to
    the records (an interrupt too), so what is written is one JSON document."""
    from chatassert.transcripts._adk import write_case

    tally = tally if tally is not None else {}
    target = "an ADK eval set"
    seen: set[str] = set()
    set_id: str | None = None
    out.write('{"eval_cases": [')
    try:
        for record, conversation in items:
            given = conversation.metadata.get("eval_set_id")
            wanted = set_id or (given if isinstance(given, str) and given else _set_id(output))
            eval_id = _unique(conversation.id or _printable(record.where), seen)
            try:
                case = write_case(conversation, eval_id, wanted)
                text = json.dumps(case, ensure_ascii=False)
                _carried(text + wanted, ADK_DEPTH, target, False, "an eval case")
            except (ValueError, RecursionError) as exc:
                tally["unwritable"] = tally.get("unwritable", 0) + 1
                _refused(record, target, exc, err or sys.stderr)
                continue
            out.write(("\n" if not seen else ",\n") + text)
            seen.add(eval_id)
            set_id = wanted
            tally["written"] = tally.get("written", 0) + 1
    finally:
        set_id = set_id or _set_id(output)
        head = {"eval_set_id": set_id, "name": set_id, "creation_timestamp": 0.0}
        out.write("\n], " + json.dumps(head, ensure_ascii=False)[1:] + "\n")


def _is_a_log(output: str, paths: Sequence[str]) -> bool:
    """Whether the output file is one of the logs (opening it to write would empty it)."""
    for path in paths:
        if path == "-":
            continue
        with contextlib.suppress(OSError):
            if os.path.samefile(output, path):
                return True
    return False


def convert(
    args: argparse.Namespace,
    paths: Sequence[str],
    err: IO[str],
    wrap: Callable[[IO[str], str], Any],
) -> int:
    """Run `chatassert convert` with parsed `args` over the expanded log `paths`; return the
    exit code. `wrap(stream, name)` is the command line's output, whose write errors it
    reports."""
    if args.output == "-":
        out = wrap(sys.stdout, "to standard output")
    elif _is_a_log(args.output, paths):
        err.write(
            f"cannot write {args.output}: it is one of the logs to convert, which writing it "
            "would empty first (write elsewhere, then move the file)\n"
        )
        return EXIT_USAGE
    else:
        try:
            stream = open(args.output, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            err.write(f"cannot write {args.output}: {exc.strerror or exc}\n")
            return EXIT_USAGE
        out = wrap(stream, args.output)
    tally = {"written": 0, "unreadable": 0, "unwritable": 0, "unopened": 0}
    try:
        items = _conversations(paths, args.source_format, err, tally)
        if args.to == "native":
            _write_native(items, out, err, tally)
        else:
            _write_adk(items, out, args.output, err, tally)
    finally:
        if out.stream is not sys.stdout:
            out.close()
        else:
            out.flush()
    skipped = tally["unreadable"] + tally["unwritable"]
    if tally["unopened"]:
        code = EXIT_USAGE
    elif tally["written"] == 0 and skipped == 0:
        err.write("nothing converted: the logs held no records\n")
        return EXIT_EMPTY
    else:
        code = EXIT_UNREADABLE if skipped else 0
    unreadable, unwritable, unopened = tally["unreadable"], tally["unwritable"], tally["unopened"]
    err.write(
        f"converted {counted(tally['written'], 'conversation')}"
        + (f"; {counted(unreadable, 'record')} could not be read" if unreadable else "")
        + (f"; {number(unwritable)} could not be written as {args.to}" if unwritable else "")
        + (f"; {counted(unopened, 'log')} could not be opened" if unopened else "")
        + "\n"
    )
    return code


def run(args: argparse.Namespace, out: Any, err: IO[str]) -> int:
    """Run `chatassert convert` with parsed `args` (its output is `--output`'s, not `out`);
    return its exit code."""
    from chatassert._cli._output import Output
    from chatassert._cli._plan import expand_logs

    paths = expand_logs(args.logs, err)
    return EXIT_USAGE if paths is None else convert(args, paths, err, Output)
