"""`chatassert init`: point YAML spec files at the JSON Schema of their dialect.

The first line of a YAML file becomes `# yaml-language-server: $schema=<target>`, the modeline
yaml-language-server (VS Code's YAML extension, and editors using the server) reads. Nothing
in it is of this machine, because spec files are committed and read on other machines:

- by default the schema is written into the repository, `.chatassert/<dialect>.schema.json`
  below the working directory (`--schema-dir` names another directory), and the target is
  the path of that copy relative to the spec file, which yaml-language-server resolves from
  the file's own directory. It works offline, on every clone, and the copy is committed with
  the suites; running `init` again after an upgrade refreshes it. It is generated for the
  checks installed: the shipped schema (`chatassert/schemas/`) with the checks of one's own
  of the installed plugins and of `--plugin` modules, so that an editor knows them too;
- with `--schema-url`, the target is that URL (`{dialect}` replaced), and nothing is copied.

The rest of the file is kept byte for byte; a file that already has our line with the same
target is left alone, and one whose first line points elsewhere (the absolute path an older
`init` wrote, say) gets the new target on that line only.

JSON files are left as they are: JSON names its schema with a `$schema` key, which the flat,
native and expect loaders would refuse as an unknown key (and a PromptKit manifest's
`$schema` names PromptKit's own schema); the schema is copied all the same, and its path
printed, to map in the editor's settings (VS Code: `json.schemas`).

Docs: docs/offline.md ("Editor support"). Tests: tests/cli/test_schema_init.py.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from typing import IO, Any, Protocol

from chatassert._errors import SpecError
from chatassert.reporting._words import counted

__all__ = ["MODELINE", "SCHEMA_DIR", "add_parser", "init_files", "modeline_for", "run"]

MODELINE = "# yaml-language-server: $schema="
"""The start of the line yaml-language-server reads a file's schema from."""

SCHEMA_DIR = ".chatassert"
"""Where `init` copies the schemas by default, below the working directory."""

_EXISTING = re.compile(rb"^#\s*yaml-language-server\s*:\s*\$schema=(.*?)\s*$")
_BOM = b"\xef\xbb\xbf"
_EXIT_OK, _EXIT_USAGE = 0, 2


class _Writer(Protocol):
    def write(self, text: str, /) -> Any: ...


def modeline_for(
    dialect: str,
    schema_url: str | None = None,
    *,
    spec: str | None = None,
    schema_dir: str = SCHEMA_DIR,
) -> str:
    """The line `init` writes for a file of `dialect` (without its line end): `schema_url`
    with `{dialect}` replaced, else the path of `schema_dir`'s copy of the schema relative
    to the directory of the file `spec`, with forward slashes.

    Example:
        >>> modeline_for("flat", "https://example.org/{dialect}.schema.json")
        '# yaml-language-server: $schema=https://example.org/flat.schema.json'
        >>> modeline_for("expect", spec="evals/search.yaml", schema_dir=".chatassert")
        '# yaml-language-server: $schema=../.chatassert/expect.schema.json'
        >>> modeline_for("flat", spec="booking.yaml", schema_dir=".chatassert")
        '# yaml-language-server: $schema=./.chatassert/flat.schema.json'
    """
    if schema_url is not None:
        return MODELINE + schema_url.replace("{dialect}", dialect)
    if spec is None:
        raise ValueError("modeline_for: give the spec file the path is relative to, or a URL")
    target = os.path.relpath(
        _copy_path(schema_dir, dialect), os.path.dirname(os.path.abspath(spec))
    )
    target = target.replace(os.sep, "/")
    return MODELINE + (target if target.startswith("../") else "./" + target)


def _copy_path(schema_dir: str, dialect: str) -> str:
    """The path of the copy of `dialect`'s schema in `schema_dir`."""
    return os.path.join(schema_dir, f"{dialect}.schema.json")


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


class _Copies:
    """The schema copies of one `init` run: each written once, when a file first needs it,
    and only when its bytes changed."""

    def __init__(self, schema_dir: str, out: _Writer) -> None:
        self.schema_dir = schema_dir
        self.out = out
        self.done: dict[str, str] = {}

    def ensure(self, dialect: str) -> str:
        """The path of the copy of `dialect`'s schema, written (or refreshed) first: the
        schema generated for the checks installed (the plugins' checks too).

        Raises:
            OSError: when it cannot be written (the spec file is then left as it is).
        """
        if dialect in self.done:
            return self.done[dialect]
        from chatassert import __version__
        from chatassert._schemas import dialect_schema, own_checks, render

        path = _copy_path(self.schema_dir, dialect)
        data = render(dialect_schema(dialect)).encode("utf-8")  # with the plugins' checks
        try:
            with open(path, "rb") as handle:
                before: bytes | None = handle.read()
        except FileNotFoundError:
            before = None
        if before != data:
            os.makedirs(self.schema_dir, exist_ok=True)
            _write(path, data)
            done = "wrote" if before is None else "updated"
            own = own_checks(dialect)
            also = f", and {counted(len(own), 'check')} of one's own: {', '.join(own)}"
            self.out.write(
                f"{path}: {done} (the {dialect} schema of chatassert {__version__}"
                f"{also if own else ''})\n"
            )
        self.done[dialect] = path
        return path


def init_files(
    files: Sequence[str],
    out: _Writer,
    err: IO[str],
    *,
    schema_url: str | None = None,
    schema_dir: str = SCHEMA_DIR,
) -> int:
    """Add the schema line to each YAML spec file (copying the schemas into `schema_dir`
    unless `schema_url` is given); return the exit code (2 if one could not be done)."""
    code = _EXIT_OK
    copies = None if schema_url is not None else _Copies(schema_dir, out)
    for name in files:
        try:
            done, message = _init_one(name, schema_url, copies)
        except (OSError, SpecError, UnicodeDecodeError) as exc:
            if isinstance(exc, OSError) and exc.strerror:
                where = exc.filename if exc.filename not in (None, name) else None
                detail: object = f"cannot write {where}: {exc.strerror}" if where else exc.strerror
            else:
                detail = exc
            err.write(f"{name}: not changed: {detail}\n")
            code = _EXIT_USAGE
            continue
        if done:
            out.write(f"{name}: {message}\n")
        else:
            err.write(f"{name}: not changed: {message}\n")
            code = _EXIT_USAGE
    return code


def add_parser(sub: Any) -> None:
    """Add the `init` command to the subparsers `sub`."""
    from chatassert._cli._options import command

    init = command(
        sub,
        "init",
        help="point YAML spec files at their dialect's JSON Schema, for editors",
        description="Point YAML spec files at the JSON Schema of their dialect (detected as "
        "the loader does), so an editor with yaml-language-server completes and checks them. "
        "The schema, with the checks of installed plugins and --plugin modules, is written "
        "into the repository (.chatassert/ below the working directory: "
        "run init from the repository's root, and commit the copies) and each file gets a "
        "first line '# yaml-language-server: $schema=PATH', PATH relative to the file, so "
        "nothing written is of this machine; or give --schema-url. Only a first line is added "
        "(or an older one of ours replaced); the rest of the file is kept byte for byte. JSON "
        "files are left as they are. Run init again after upgrading, or after adding a "
        "plugin, to refresh the copies.",
        epilog="exit codes:\n  0    every file points at its schema\n"
        "  2    a file is not a spec file, not valid YAML, or could not be written (each "
        "named;\n       the others are done)\n",
    )
    init.add_argument("files", nargs="+", metavar="SPEC", help="YAML spec files")
    target = init.add_mutually_exclusive_group()
    target.add_argument(
        "--schema-dir",
        default=SCHEMA_DIR,
        metavar="DIR",
        help="the directory the schemas are copied into, DIALECT.schema.json each (default "
        f"{SCHEMA_DIR}, below the working directory)",
    )
    target.add_argument(
        "--schema-url",
        metavar="URL",
        help="write this $schema target instead, copying nothing; '{dialect}' in it is "
        "replaced by the file's dialect (flat, promptkit, expect, native)",
    )


def run(args: argparse.Namespace, out: _Writer, err: IO[str]) -> int:
    """Run `chatassert init` with parsed `args`; return its exit code."""
    return init_files(args.files, out, err, schema_url=args.schema_url, schema_dir=args.schema_dir)


def _init_one(name: str, schema_url: str | None, copies: _Copies | None) -> tuple[bool, str]:
    """Do one file: (whether it is as it should be, what was done)."""
    from chatassert.specs._yaml import read_spec_file

    text = read_spec_file(name)  # the loader's own limits (a regular file, at most 10 MiB)
    if name.lower().endswith(".json") or text.lstrip().startswith(("{", "[")):
        try:
            dialect = _dialect_of(text, name)
        except SpecError:
            dialect = None
        where = ""
        if dialect is not None:
            target = schema_url.replace("{dialect}", dialect) if schema_url else None
            if copies is not None:
                target = copies.ensure(dialect).replace(os.sep, "/")
            where = f" ({target})"
        return True, (
            "JSON, left as it is: map it to its schema in the editor's settings"
            f"{where}, VS Code: json.schemas"
        )
    dialect = _dialect_of(text, name)
    if dialect is None:
        return False, "no dialect recognises it (is it a spec file?)"
    if copies is None:
        line = modeline_for(dialect, schema_url)
    else:
        copies.ensure(dialect)
        line = modeline_for(dialect, spec=name, schema_dir=copies.schema_dir)
    encoded = line.encode("utf-8")
    with open(name, "rb") as handle:
        data = handle.read()
    bom = _BOM if data.startswith(_BOM) else b""
    body = data[len(bom) :]
    first, newline, rest = body.partition(b"\n")
    found = _EXISTING.match(first)
    if found is not None:
        if first.rstrip(b"\r") == encoded:
            return True, f"already points at the {dialect} schema"
        eol = b"\r" if first.endswith(b"\r") else b""
        _write(name, bom + encoded + eol + newline + rest)
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
    _write(name, bom + encoded + eol + body)
    return True, f"{dialect}: schema line added ({line.removeprefix(MODELINE)})"


def _write(name: str, data: bytes) -> None:
    """Replace the file's bytes in one step, keeping the permissions of the file it replaces
    (through a symlink, the file it points at); a new file gets the usual ones."""
    name = os.path.realpath(name)
    folder = os.path.dirname(os.path.abspath(name))
    try:
        mode = os.stat(name).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
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
