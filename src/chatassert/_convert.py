"""`chatassert convert`: rewrite logs of any format chatassert reads in one format.

`--to native` (the default) writes one native JSON line per conversation, the
`Conversation.model_dump(mode="json")` that the native reader reads back into an equal
conversation. `--to adk-evalset` writes one Google ADK eval set, one eval case per
conversation. Logs are streamed: a conversation is written as soon as it is read, and nothing
but the eval case ids already written (to keep them unique) is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from chatassert._models import Conversation
from chatassert.transcripts import FORMATS, Record, read_records

__all__ = ["EXIT_EMPTY", "EXIT_UNREADABLE", "add_parser", "convert", "native_line"]

TARGETS = ("native", "adk-evalset")
"""The formats `convert` writes."""

EXIT_UNREADABLE = 1
"""Some records could not be read: they were reported and skipped, the rest converted."""

EXIT_EMPTY = 4
"""The logs held no record at all: nothing was converted."""

_EPILOG = """\
exit codes:
  0    every record was converted
  1    some records could not be read: each is named (file:line) on stderr and skipped; the
       others were converted
  2    usage error: a bad option, a log that cannot be opened, an output that cannot be written
  4    nothing was converted: the logs held no records
"""


def add_parser(sub: Any) -> None:
    """Add the `convert` subcommand to the subparsers `sub`."""
    parser = sub.add_parser(
        "convert",
        help="rewrite logs in the native format (or as a Google ADK eval set)",
        description="Read each conversation of the logs, in any format chatassert reads, and "
        "write it in one format: native JSON lines (one conversation per line, read back as "
        "the same conversation) or a Google ADK eval set (one eval case per conversation). "
        "Records that cannot be read are named on stderr and skipped.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="log files, globs, or - for stdin")
    parser.add_argument(
        "--to",
        choices=TARGETS,
        default="native",
        help="native (JSON lines, default) or adk-evalset (one EvalSet JSON document)",
    )
    parser.add_argument(
        "--from",
        dest="source_format",
        choices=list(FORMATS),
        default=None,
        metavar="FORMAT",
        help=f"force the log format ({', '.join(FORMATS)}) instead of detecting it per line",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="OUT",
        help="where to write (default -, standard output)",
    )


def native_line(conversation: Conversation) -> str:
    """The native JSON line of a conversation (without its line break).

    Example:
        >>> from chatassert.transcripts import parse_line
        >>> c = Conversation(messages=[{"role": "user", "content": "Hi"},
        ...                            {"role": "assistant", "content": "Hello!"}], id="c1")
        >>> parse_line(native_line(c)).conversation == c
        True
    """
    data = conversation.model_dump(mode="json", by_alias=True)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _conversations(
    paths: Sequence[str], format: str | None, err: IO[str], tally: dict[str, int]
) -> Iterator[tuple[Record, Conversation]]:
    """Each conversation of the logs with its record; what cannot be read is reported."""
    for path in paths:
        for record in read_records(path, format=format):
            if record.conversation is None:
                tally["unreadable"] += 1
                err.write(f"{record.where}: skipped: {record.error}\n")
                continue
            tally["read"] += 1
            yield record, record.conversation


def _unique(wanted: str, seen: set[str]) -> str:
    name, n = wanted, 1
    while name in seen:
        n += 1
        name = f"{wanted}-{n}"
    seen.add(name)
    return name


def _set_id(output: str) -> str:
    base = os.path.basename(output)
    for suffix in (".evalset.json", ".json"):
        base = base.removesuffix(suffix)
    return base if output != "-" and base else "chatassert"


def _write_native(items: Iterator[tuple[Record, Conversation]], out: Any) -> None:
    for _, conversation in items:
        out.write(native_line(conversation) + "\n")


def _write_adk(items: Iterator[tuple[Record, Conversation]], out: Any, output: str) -> None:
    """Write one eval set, a case per line, the set's id last (the first case may name it)."""
    from chatassert.transcripts._adk import write_case

    seen: set[str] = set()
    set_id: str | None = None
    out.write('{"eval_cases": [')
    for n, (record, conversation) in enumerate(items):
        if set_id is None:
            given = conversation.metadata.get("eval_set_id")
            set_id = given if isinstance(given, str) and given else _set_id(output)
        eval_id = _unique(conversation.id or record.where, seen)
        case = write_case(conversation, eval_id, set_id)
        out.write(("\n" if n == 0 else ",\n") + json.dumps(case, ensure_ascii=False))
    set_id = set_id or _set_id(output)
    head = {"eval_set_id": set_id, "name": set_id, "creation_timestamp": 0.0}
    out.write("\n], " + json.dumps(head, ensure_ascii=False)[1:] + "\n")


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
    else:
        try:
            stream = open(args.output, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            err.write(f"cannot write {args.output}: {exc.strerror or exc}\n")
            return 2
        out = wrap(stream, args.output)
    tally = {"read": 0, "unreadable": 0}
    try:
        items = _conversations(paths, args.source_format, err, tally)
        try:
            if args.to == "native":
                _write_native(items, out)
            else:
                _write_adk(items, out, args.output)
        except OSError as exc:  # a log that cannot be opened (one that vanished, a directory)
            name = getattr(exc, "filename", None) or "a log"
            err.write(f"cannot read log {name}: {exc.strerror or exc}\n")
            return 2
    finally:
        if out.stream is not sys.stdout:
            out.close()
        else:
            out.flush()
    if tally["read"] == 0 and tally["unreadable"] == 0:
        err.write("nothing converted: the logs held no records\n")
        return EXIT_EMPTY
    err.write(
        f"converted {tally['read']} conversation(s)"
        + (f"; {tally['unreadable']} record(s) could not be read" if tally["unreadable"] else "")
        + "\n"
    )
    return EXIT_UNREADABLE if tally["unreadable"] else 0
