"""Real distributions for plugin tests: a directory put on `sys.path` (PYTHONPATH) holding a
`NAME-VERSION.dist-info` with `METADATA` and `entry_points.txt`, as an installer writes them
(that is how `importlib.metadata` finds entry points), beside the distribution's modules.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path


def make_dist(
    root: Path,
    name: str,
    entry_points: Mapping[str, Mapping[str, str]],
    modules: Mapping[str, str] = {},
    *,
    version: str = "1.0",
) -> Path:
    """Write the distribution `name` into `root`: its metadata, its entry points by group
    (`{"chatassert.checks": {"orders": "orders_checks"}}`), and its modules by path relative
    to `root` (`{"orders_checks.py": "..."}`, dedented). Returns `root`."""
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    sections = []
    for group, points in entry_points.items():
        lines = [f"[{group}]", *(f"{key} = {value}" for key, value in points.items())]
        sections.append("\n".join(lines))
    (info / "entry_points.txt").write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    for path, source in modules.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def env_with(path: Path | None, **extra: str) -> dict[str, str]:
    """The environment of a subprocess with `path` first on PYTHONPATH (and `extra` set);
    no judge configured, no plugins from the caller's environment."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("CHATASSERT_") and k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
    }
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(path), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    env.update(extra)
    return env


def run_python(
    code: str, path: Path | None, *, cwd: Path | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """Run `code` (dedented) in a new Python process with `path` on its PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env_with(path, **extra),
        cwd=cwd or path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_cli(
    args: list[str],
    path: Path | None,
    *,
    cwd: Path | None = None,
    stdin: str | None = None,
    **extra: str,
) -> subprocess.CompletedProcess[str]:
    """Run `chatassert ARGS` as a subprocess with `path` on its PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        env=env_with(path, **extra),
        cwd=cwd or path,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


DESK_READER = '''
    """A log format of a repository's own: one support-desk ticket per line."""

    from chatassert import Conversation, Turn
    from chatassert.transcripts import Reader

    def detect(record):
        return isinstance(record, dict) and "ticket" in record and "reply" in record

    def parse(record):
        return Conversation(turns=[Turn(input=record["ticket"], text=record["reply"])])

    DESK = Reader("desk", detect, parse, keys=("ticket", "reply"), wants="'ticket' and 'reply'")
'''
"""The source of a log-reader plugin module: one support-desk ticket (`ticket`, `reply`) per
line, read as the format `desk` (its `DESK` reader)."""
