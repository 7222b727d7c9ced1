"""`chatassert init`: point YAML spec files at the JSON Schema of their dialect.

The first line of a YAML file becomes `# yaml-language-server: $schema=<target>`, the modeline
yaml-language-server (VS Code's YAML extension, and editors using the server) reads. The target
is the path of the schema the installed package ships (it works offline, and follows the
installed version), or `--schema-url` with `{dialect}` replaced. The rest of the file is kept
byte for byte; a file that already has our line with the same target is left alone, and one
whose first line points elsewhere gets the new target on that line only.

JSON files are left as they are: JSON names its schema with a `$schema` key, which the flat,
native and expect loaders would refuse as an unknown key (and a PromptKit manifest's
`$schema` names PromptKit's own schema); the path of the schema is printed instead, to map in
the editor's settings (VS Code: `json.schemas`).
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from typing import IO, Any, Protocol

from chatassert._errors import SpecError

__all__ = ["MODELINE", "add_parser", "init_files", "modeline_for", "run"]

MODELINE = "# yaml-language-server: $schema="
"""The start of the line yaml-language-server reads a file's schema from."""

_EXISTING = re.compile(rb"^#\s*yaml-language-server\s*:\s*\$schema=(.*?)\s*$")
_BOM = b"\xef\xbb\xbf"
_EXIT_OK, _EXIT_USAGE = 0, 2


def modeline_for(dialect: str, schema_url: str | None = None) -> str:
    """The line `init` writes for a file of `dialect` (without its line end).

    Example:
        >>> modeline_for("flat", "https://example.org/{dialect}.schema.json")
        '# yaml-language-server: $schema=https://example.org/flat.schema.json'
    """
    from chatassert._schemas import schema_file

    if schema_url is not None:
        target = schema_url.replace("{dialect}", dialect)
    else:
        target = schema_file(dialect).as_posix()
    return MODELINE + target


def _is_workflow(doc: Any) -> bool:
    """A PromptPack with a workflow section, or the section alone (what a Scenario's
    `workflow:` or `pack:` names)."""
    if not isinstance(doc, Mapping) or "apiVersion" in doc or "kind" in doc:
        return False
    section = doc.get("workflow")
    if isinstance(section, Mapping):
        doc = section
    return "entry" in doc and isinstance(doc.get("states"), Mapping)


def _dialect_of(text: str, name: str) -> str | None:
    """The dialect the loader would read `text` in, or None when none recognises it."""
    from chatassert.specs import detect_dialect, parse_yaml

    doc = parse_yaml(text, name)
    if _is_workflow(doc):
        return "promptkit"
    dialect = detect_dialect(doc)
    return dialect.name if dialect.detect(doc) else None


class _Writer(Protocol):
    def write(self, text: str, /) -> Any: ...


def init_files(
    files: Sequence[str], out: _Writer, err: IO[str], *, schema_url: str | None = None
) -> int:
    """Add the schema line to each YAML spec file; return the exit code (2 if one could not
    be done)."""
    code = _EXIT_OK
    for name in files:
        try:
            said = _init_one(name, schema_url)
        except (OSError, SpecError, UnicodeDecodeError) as exc:
            detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            err.write(f"{name}: not changed: {detail}\n")
            code = _EXIT_USAGE
            continue
        done, message = said
        if done:
            out.write(f"{name}: {message}\n")
        else:
            err.write(f"{name}: not changed: {message}\n")
            code = _EXIT_USAGE
    return code


def add_parser(sub: Any) -> None:
    """Add the `init` command to the subparsers `sub`."""
    init = sub.add_parser(
        "init",
        help="add a '# yaml-language-server: $schema=...' first line to YAML spec files",
        description="Point YAML spec files at the JSON Schema of their dialect (detected as "
        "the loader does), so an editor with yaml-language-server completes and checks them. "
        "Only a first line is added (or an older one of ours replaced); the rest of the file "
        "is kept byte for byte. JSON files are left as they are.",
    )
    init.add_argument("files", nargs="+", metavar="SPEC", help="YAML spec files")
    init.add_argument(
        "--schema-url",
        metavar="URL",
        help="the $schema target to write instead of the path of the installed schema file; "
        "'{dialect}' in it is replaced by the file's dialect (flat, promptkit, expect, native)",
    )


def run(args: argparse.Namespace, out: _Writer, err: IO[str]) -> int:
    """Run `chatassert init` with parsed `args`; return its exit code."""
    return init_files(args.files, out, err, schema_url=args.schema_url)


def _init_one(name: str, schema_url: str | None) -> tuple[bool, str]:
    """Do one file: (whether it is as it should be, what was done)."""
    from chatassert._schemas import schema_file
    from chatassert.specs._yaml import read_spec_file

    text = read_spec_file(name)  # the loader's own limits (a regular file, at most 10 MiB)
    if name.lower().endswith(".json") or text.lstrip().startswith(("{", "[")):
        try:
            dialect = _dialect_of(text, name)
        except SpecError:
            dialect = None
        where = f" ({schema_file(dialect).as_posix()})" if dialect else ""
        return True, (
            "JSON, left as it is: map it to its schema in the editor's settings"
            f"{where}, VS Code: json.schemas"
        )
    dialect = _dialect_of(text, name)
    if dialect is None:
        return False, "no dialect recognises it (is it a spec file?)"
    line = modeline_for(dialect, schema_url).encode("utf-8")
    with open(name, "rb") as handle:
        data = handle.read()
    bom = _BOM if data.startswith(_BOM) else b""
    body = data[len(bom) :]
    first, newline, rest = body.partition(b"\n")
    found = _EXISTING.match(first)
    if found is not None:
        if first.rstrip(b"\r") == line:
            return True, f"already points at the {dialect} schema"
        eol = b"\r" if first.endswith(b"\r") else b""
        _write(name, bom + line + eol + newline + rest)
        return (
            True,
            f"{dialect}: schema line replaced (was {found.group(1).decode('utf-8', 'replace')})",
        )
    if re.search(rb"^#\s*yaml-language-server\s*:\s*\$schema=", body, re.M):
        return (
            True,
            f"{dialect}: has a yaml-language-server schema line further down, left as it is",
        )
    eol = b"\r\n" if first.endswith(b"\r") and newline else b"\n"
    _write(name, bom + line + eol + body)
    return True, f"{dialect}: schema line added"


def _write(name: str, data: bytes) -> None:
    """Replace the file's bytes in one step, keeping its permissions (through a symlink, the
    file it points at)."""
    name = os.path.realpath(name)
    folder = os.path.dirname(os.path.abspath(name))
    mode = os.stat(name).st_mode & 0o7777
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".chatassert-init-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, name)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
