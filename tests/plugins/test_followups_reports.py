"""A streamed report format of one's own with a beginning (a header written in `open`) and
an end: `check --jobs 2` writes it byte for byte as `--jobs 1` does. The workers render and
write rows a batch at a time, each batch with a report opened for it; the report's beginning
and end are the main process's alone.

The reporter is a repository's module that calls `register_reporter`, given to the run with
`--plugin`, so that the workers load it too; every run is a `chatassert` subprocess.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from plugin_dists import run_cli

HEADED = '''
    """A line per case under a header, and a closing line with the counts."""

    from chatassert.reporting import register_reporter


    class _Report:
        def __init__(self, out):
            self.out = out
            out.write("source,status\\n")

        def add(self, row, rendered):
            if row.kind == "case":
                self.out.write(rendered["headed"])

        def finish(self, summary, meta):
            self.out.write(f"# {summary.total} cases\\n")


    class Headed:
        name = "headed"
        extensions = (".headed",)
        description = "a line per case under a header"
        rows = "streamed"
        excerpts = False
        needs_subject = False

        def render(self, outcome, subject, options):
            return {"headed": f"{outcome.source},{outcome.result.status.value}\\n"}

        def open(self, out, options):
            return _Report(out)


    register_reporter(Headed())
'''


def _logs(folder: Path) -> list[str]:
    """Three logs (three tasks for the workers, so several batches), nine conversations."""
    names = []
    for n in range(3):
        lines = [
            json.dumps({"turns": [{"input": "where?", "text": text}]}) + "\n"
            for text in ("Paris", "Lyon", "Paris")
        ]
        (folder / f"log{n}.jsonl").write_text("".join(lines), encoding="utf-8")
        names.append(f"log{n}.jsonl")
    return names


def test_a_streamed_format_s_header_is_written_once_with_jobs(tmp_path: Path) -> None:
    (tmp_path / "headed_report.py").write_text(textwrap.dedent(HEADED), encoding="utf-8")
    logs = _logs(tmp_path)
    args = ["check", "-p", "headed_report", "--assert", "{type: contains, value: Paris}", *logs]
    one = run_cli([*args, "-f", "headed", "--no-progress"], tmp_path)
    two = run_cli([*args, "-f", "headed", "--no-progress", "--jobs", "2"], tmp_path)
    assert (one.returncode, two.returncode) == (1, 1), two.stderr
    assert two.stdout == one.stdout
    lines = one.stdout.splitlines()
    assert lines[0] == "source,status"
    assert lines[1:4] == ["log0.jsonl:1,passed", "log0.jsonl:2,failed", "log0.jsonl:3,passed"]
    assert lines[-1] == "# 9 cases"
    assert len(lines) == 11
    # to a file named by its extension, beside the JSON Lines workers write too
    files = ["-o", "out.headed", "-o", "out.jsonl", "-q", "--no-progress"]
    run_cli([*args, *files], tmp_path)
    first = (tmp_path / "out.headed").read_bytes()
    run_cli([*args, *files, "--jobs", "2"], tmp_path)
    assert (tmp_path / "out.headed").read_bytes() == first == one.stdout.encode()
