"""A gated suite and its logs for the gate tests: a refund desk's one case, checked against
conversations whose replies pass or fail its two labelled assertions, and the command line
run in this process.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from chatassert._cli import main

SUITE = """\
chatassert: 1
name: refunds
cases:
  - name: refund
    turns:
      - input: I was charged twice
        assertions:
          - {type: contains, value: refund, message: refund_policy}
          - {type: not_contains, value: sorry, message: tone}
gates:
{gates}
"""
"""A native suite of one case; `{gates}` is the list of its gates, one `  - ...` line each."""

GOOD = "We will refund you today."
NO_REFUND = "We cannot help with that."
SORRY = "Sorry, we will refund you."


def suite(*gates: str) -> str:
    """The suite's text with `gates`, each a gate in flow YAML."""
    return SUITE.replace("{gates}", "\n".join(f"  - {g}" for g in gates))


def record(i: int, reply: str, *, prefix: str = "c", pad: int = 0) -> dict[str, Any]:
    """A logged conversation of the refund case (`pad` spaces more in the reply)."""
    messages = [
        {"role": "user", "content": "I was charged twice"},
        {"role": "assistant", "content": reply + " " * pad},
    ]
    return {"id": f"{prefix}{i}", "case": "refund", "messages": messages}


def log(*replies: str, prefix: str = "c") -> str:
    """A JSON Lines log of one conversation per reply."""
    return "".join(json.dumps(record(i, r, prefix=prefix)) + "\n" for i, r in enumerate(replies))


def write(directory: Path, gates: tuple[str, ...], *replies: str, name: str = "log") -> None:
    """Write `suite.yaml` with `gates` and `<name>.jsonl` with `replies` into `directory`."""
    (directory / "suite.yaml").write_text(suite(*gates), encoding="utf-8")
    (directory / f"{name}.jsonl").write_text(log(*replies), encoding="utf-8")


def run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run `chatassert argv...` in this process in `cwd`: exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def json_lines(text: str) -> list[dict[str, Any]]:
    """The values of a JSON report's lines."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def gate_lines(text: str) -> list[dict[str, Any]]:
    """The gate lines of a JSON report, in order."""
    return [value for value in json_lines(text) if "gate" in value]
