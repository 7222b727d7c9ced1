"""`chatassert schema --dialect` and `chatassert init`: each command's success and its usage
error as a subprocess, their variants in this process (tests/cli_runs.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from chatassert import __version__
from chatassert._schemas import schema_file
from cli_runs import run_in_process

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MODELINE = "# yaml-language-server: $schema="


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # init writes its copies below the working directory: never the repository's own
    assert args[:1] != ("init",) or cwd is not None, "run init in a temporary directory"
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.mark.parametrize("dialect", ["flat", "promptkit", "expect", "native"])
def test_schema_dialect_prints_the_shipped_draft_07_schema(dialect: str) -> None:
    done = run_in_process("schema", "--dialect", dialect)
    assert done.returncode == 0, done.stderr
    assert done.stdout == schema_file(dialect).read_text(encoding="utf-8")
    assert json.loads(done.stdout)["$schema"] == "http://json-schema.org/draft-07/schema#"


def test_schema_spec_stays_draft_2020_12_and_the_native_dialect_holds_the_same_types() -> None:
    spec = json.loads(run("schema", "spec").stdout)
    native = json.loads(run("schema", "--dialect", "native").stdout)
    assert spec["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert spec["$defs"]["kind_contains"] == native["definitions"]["kind_contains"]
    assert spec["$defs"].keys() == native["definitions"].keys()


def test_schema_dialect_with_another_schema_is_a_usage_error() -> None:
    done = run("schema", "result", "--dialect", "flat")
    assert done.returncode == 2
    assert "--dialect" in done.stderr
    assert done.stdout == ""


def test_an_unknown_dialect_is_refused_by_the_parser() -> None:
    done = run_in_process("schema", "--dialect", "flatt")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr


# -- init --------------------------------------------------------------------------------------


def copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / Path(name).name
    shutil.copyfile(EXAMPLES / name, target)
    return target


def target_of(spec: Path) -> str:
    """The $schema target of the first line of `spec`."""
    first = spec.read_text(encoding="utf-8").lstrip("\ufeff").splitlines()[0]
    assert first.startswith(MODELINE)
    return first.removeprefix(MODELINE)


@pytest.mark.parametrize(
    ("name", "dialect"),
    [
        ("booking.flat.yaml", "flat"),
        ("support.scenario.yaml", "promptkit"),
        ("promptkit/support.eval.yaml", "promptkit"),
        ("support.workflow.yaml", "promptkit"),
    ],
)
def test_init_adds_the_schema_line_and_keeps_every_other_byte(
    tmp_path: Path, name: str, dialect: str
) -> None:
    spec = copy(tmp_path, name)
    before = spec.read_bytes()
    done = run_in_process("init", spec.name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{dialect}: schema line added (./.chatassert/{dialect}.schema.json)" in done.stdout
    assert spec.read_bytes().split(b"\n", 1)[1] == before
    target = target_of(spec)
    assert target == f"./.chatassert/{dialect}.schema.json"
    # the line points at a copy of the shipped schema, which the file validates against
    copied = spec.parent / target
    assert copied.read_bytes() == schema_file(dialect).read_bytes()
    schema = json.loads(copied.read_text(encoding="utf-8"))
    doc = json.loads(json.dumps(yaml.safe_load(spec.read_text(encoding="utf-8")), default=str))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(doc)) == []


def test_init_writes_nothing_of_this_machine(tmp_path: Path) -> None:
    # spec files are committed: their line, and the copy it points at, hold no absolute path
    evals = tmp_path / "evals" / "booking"
    evals.mkdir(parents=True)
    spec = evals / "booking.flat.yaml"
    shutil.copyfile(EXAMPLES / "booking.flat.yaml", spec)
    done = run("init", str(spec), cwd=tmp_path)  # an absolute argument, still a relative line
    assert done.returncode == 0, done.stderr
    target = target_of(spec)
    assert target == "../../.chatassert/flat.schema.json"
    assert not Path(target).is_absolute()
    written = [spec.read_bytes(), *(p.read_bytes() for p in (tmp_path / ".chatassert").iterdir())]
    machine = [str(tmp_path), str(Path.home()), sys.prefix, str(schema_file("flat").parent)]
    for data in written:
        for path in machine:
            assert path.encode() not in data, path
    # the tree can move to another machine: the line still finds its schema
    moved = tmp_path.parent / (tmp_path.name + "-clone")
    shutil.copytree(tmp_path, moved)
    clone = moved / "evals" / "booking" / "booking.flat.yaml"
    assert (clone.parent / target_of(clone)).resolve() == moved / ".chatassert/flat.schema.json"


def test_init_again_changes_nothing(tmp_path: Path) -> None:
    spec = copy(tmp_path, "booking.flat.yaml")
    assert run_in_process("init", spec.name, cwd=tmp_path).returncode == 0
    once = spec.read_bytes()
    again = run_in_process("init", spec.name, cwd=tmp_path)
    assert again.returncode == 0
    assert again.stdout == "booking.flat.yaml: already points at the flat schema\n"
    assert spec.read_bytes() == once


def test_init_refreshes_a_stale_copy_of_the_schema(tmp_path: Path) -> None:
    spec = copy(tmp_path, "booking.flat.yaml")
    assert run_in_process("init", spec.name, cwd=tmp_path).returncode == 0
    stale = tmp_path / ".chatassert" / "flat.schema.json"
    stale.write_text("{}", encoding="utf-8")  # an older chatassert's schema
    done = run_in_process("init", spec.name, cwd=tmp_path)
    assert done.returncode == 0
    assert ".chatassert/flat.schema.json: updated (the flat schema of chatassert" in done.stdout
    assert stale.read_bytes() == schema_file("flat").read_bytes()


def test_init_copies_into_the_schema_dir_it_is_given(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "s.yaml"
    spec.write_text("- {type: contains, value: refund}\n", encoding="utf-8")
    done = run_in_process("init", "--schema-dir", "tools/schemas", "specs/s.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert target_of(spec) == "../tools/schemas/flat.schema.json"
    assert (tmp_path / "tools/schemas/flat.schema.json").is_file()
    url = "https://e.org/{dialect}"
    both = run_in_process(
        "init", "--schema-dir", "x", "--schema-url", url, "specs/s.yaml", cwd=tmp_path
    )
    assert both.returncode == 2
    assert "not allowed with argument" in both.stderr


def test_a_schema_that_cannot_be_copied_leaves_the_file_as_it_is(tmp_path: Path) -> None:
    spec = copy(tmp_path, "booking.flat.yaml")
    before = spec.read_bytes()
    (tmp_path / ".chatassert").write_text("a file, not a directory", encoding="utf-8")
    done = run("init", spec.name, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("booking.flat.yaml: not changed: cannot write .chatassert")
    assert spec.read_bytes() == before


def test_init_still_loads_the_suite_afterwards(tmp_path: Path) -> None:
    spec = copy(tmp_path, "booking.flat.yaml")
    run_in_process("init", spec.name, cwd=tmp_path)
    done = run_in_process("lint", str(spec))
    assert done.returncode == 0, done.stderr


def test_init_leaves_json_alone_and_says_where_its_schema_is(tmp_path: Path) -> None:
    spec = copy(tmp_path, "search.expect.json")
    before = spec.read_bytes()
    done = run_in_process("init", spec.name, cwd=tmp_path)
    assert done.returncode == 0
    assert spec.read_bytes() == before
    assert "JSON, left as it is" in done.stdout
    assert "(.chatassert/expect.schema.json)" in done.stdout
    assert (tmp_path / ".chatassert/expect.schema.json").read_bytes() == (
        schema_file("expect").read_bytes()
    )


def test_init_keeps_crlf_line_ends_and_a_byte_order_mark(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    body = b"\xef\xbb\xbf- type: contains\r\n  value: refund\r\n"
    spec.write_bytes(body)
    assert run_in_process("init", str(spec), cwd=tmp_path).returncode == 0
    data = spec.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# yaml-language-server: $schema=")
    line, rest = data[3:].split(b"\r\n", 1)
    assert b"\n" not in line
    assert rest == body[3:]


def test_init_replaces_only_an_older_schema_line_of_its_own(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    rest = b"- type: contains\n  value: refund   # kept exactly\n"
    # the absolute path an older init wrote, of the machine it ran on
    spec.write_bytes(b"# yaml-language-server: $schema=/old/place/flat.schema.json\n" + rest)
    done = run_in_process("init", str(spec), cwd=tmp_path)
    assert done.returncode == 0
    assert "replaced (was /old/place/flat.schema.json)" in done.stdout
    assert spec.read_bytes() == (MODELINE + "./.chatassert/flat.schema.json\n").encode() + rest


def test_init_with_a_schema_url_fills_in_the_dialect(tmp_path: Path) -> None:
    spec = copy(tmp_path, "support.scenario.yaml")
    done = run_in_process("init", "--schema-url", "https://example.org/s/{dialect}.json", spec.name,
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0
    first = spec.read_text(encoding="utf-8").splitlines()[0]
    assert first == MODELINE + "https://example.org/s/promptkit.json"
    assert not (tmp_path / ".chatassert").exists()  # nothing copied


def test_init_refuses_a_file_no_dialect_recognises_and_carries_on(tmp_path: Path) -> None:
    other = tmp_path / "config.yaml"
    other.write_text("colour: red\n", encoding="utf-8")
    spec = copy(tmp_path, "booking.flat.yaml")
    done = run_in_process(
        "init", str(other), str(spec), str(tmp_path / "missing.yaml"), cwd=tmp_path
    )
    assert done.returncode == 2
    assert other.read_text(encoding="utf-8") == "colour: red\n"
    assert "config.yaml: not changed: no dialect recognises it" in done.stderr
    assert "missing.yaml: not changed" in done.stderr
    assert spec.read_text(encoding="utf-8").startswith(MODELINE)


def test_init_refuses_invalid_yaml_without_touching_it(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("turns: [\n", encoding="utf-8")
    done = run_in_process("init", str(spec), cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.yaml: not changed" in done.stderr
    assert "invalid YAML" in done.stderr
    assert spec.read_text(encoding="utf-8") == "turns: [\n"


def test_the_documented_init_is_what_init_says(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "offline.md").read_text(encoding="utf-8")
    block = page.split("```\n$ chatassert init ", 1)[1].split("```", 1)[0]
    argument, said = block.split("\n", 1)
    (tmp_path / "evals").mkdir()
    shutil.copyfile(EXAMPLES / "booking.flat.yaml", tmp_path / argument)
    done = run("init", argument, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    version = re.escape(__version__)
    assert re.sub(rf"chatassert {version}\)", "chatassert VERSION)", done.stdout) == re.sub(
        r"chatassert [0-9][^)]*\)", "chatassert VERSION)", said
    )
