"""`chatassert schema`: print a JSON Schema (of the native spec format, a result tree, a
line of the JSON report, or a dialect's files).
"""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from chatassert._cli._options import command
from chatassert._cli._output import Output
from chatassert.reporting import (
    EXIT_OK,
    EXIT_USAGE,
)


def add_parser(sub: Any) -> None:
    """Add the `schema` command to the subparsers `sub`."""
    schema = command(
        sub,
        "schema",
        help="print the JSON Schema of the spec format, of results or of a dialect's files",
        description="Print a JSON Schema on standard output: of the native spec format "
        "(draft 2020-12, generated from the assertion registry), of a result tree, of a line "
        "of the JSON report, or, with --dialect, of the files of a dialect (draft-07, the "
        "schema editors read; chatassert init points YAML spec files at it). Spec schemas are "
        "generated for the checks installed: the built-in ones, and those of installed "
        "plugins and --plugin modules.",
        epilog="exit codes:\n  0    the schema was printed\n"
        "  2    usage error, or an installed plugin that does not load\n",
    )
    schema.add_argument(
        "which",
        nargs="?",
        choices=["spec", "result", "report"],
        default="spec",
        help="spec (the native spec format, default), result (a result tree) or report "
        "(a line of the JSON report of check --format json)",
    )
    schema.add_argument(
        "--dialect",
        choices=["flat", "promptkit", "expect", "native"],
        help="print the draft-07 schema of the files of a dialect instead, for editors (the "
        "one the package ships, with the checks of plugins)",
    )


def run(args: argparse.Namespace, out: Output, err: IO[str]) -> int:
    """Run `chatassert schema` with parsed `args`; return its exit code."""
    if args.dialect is not None:
        if args.which != "spec":
            err.write(f"chatassert schema: --dialect prints a spec schema, not {args.which}\n")
            return EXIT_USAGE
        from chatassert._schemas import dialect_schema, render

        out.write(render(dialect_schema(args.dialect)))
        return EXIT_OK
    if args.which == "report":
        from chatassert.reporting import report_schema

        schema = report_schema()
    else:
        schema = _spec_schema() if args.which == "spec" else _result_schema()
    out.write(json.dumps(schema, indent=2) + "\n")
    return EXIT_OK


def _spec_schema() -> dict[str, Any]:
    """The JSON Schema of the native spec format (draft 2020-12), generated from the registry."""
    from chatassert._schemas import native_schema

    return native_schema()


def _result_schema() -> dict[str, Any]:
    from chatassert._result import Result

    return Result.json_schema()
