"""What the tests of `chatassert compare` share: a suite, logs of an agent before and after a
change, the command line run in process, and rows made by hand for the statistics.

The suite is a flat suite of four cases, each paired with its conversation by id. The agent's
change (`NEW_LINES` against `BASE_LINES`): `refund` stops saying "refund" (passed → failed),
`greet` is fixed (failed → passed), `invoice` calls its tool with arguments that are not JSON
(passed → error), `cancel` is no longer logged (removed) and `upgrade` is new (added).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from chatassert._cli import main
from chatassert.records import Row

SUITE = """\
test_cases:
  - name: refund quickly
    id: refund
    turns:
      - user_input: I was charged twice
        assertions:
          - {type: contains, value: refund, message: mentions the refund}
          - {type: not_contains, value: internal error, message: no internal errors}
  - name: greets the user
    id: greet
    turns:
      - user_input: hello
        assertions:
          - {type: contains, value: welcome, message: welcomes}
          - {type: not_contains, value: internal error, message: no internal errors}
  - name: looks up the invoice
    id: invoice
    turns:
      - user_input: where is my invoice
        assertions:
          - {type: contains_function_call, value: lookup_invoice, arguments: {number: 7}}
          - {type: not_contains, value: internal error, message: no internal errors}
  - name: cancels
    id: cancel
    turns:
      - user_input: cancel it
        assertions:
          - {type: contains, value: cancelled, message: confirms}
  - name: upgrades
    id: upgrade
    turns:
      - user_input: upgrade me
        assertions:
          - {type: contains, value: upgraded, message: confirms}
"""


def chat(subject: str, user: str, answer: str, *, arguments: str | None = None) -> str:
    """An OpenAI chat line: the user's message and the answer (with a tool call whose raw
    arguments are `arguments`, when given)."""
    reply: dict[str, Any] = {"role": "assistant", "content": answer}
    if arguments is not None:
        reply["tool_calls"] = [
            {"id": "c1", "type": "function",
             "function": {"name": "lookup_invoice", "arguments": arguments}}
        ]  # fmt: skip
    record = {"id": subject, "messages": [{"role": "user", "content": user}, reply]}
    return json.dumps(record)


BASE_LINES = [
    chat("refund", "I was charged twice", "A refund is on its way."),
    chat("greet", "hello", "hi there"),
    chat("invoice", "where is my invoice", "Here it is.", arguments='{"number": 7}'),
    chat("cancel", "cancel it", "Your order is cancelled."),
]
NEW_LINES = [
    chat("refund", "I was charged twice", "We will look into it."),
    chat("greet", "hello", "welcome!"),
    chat("invoice", "where is my invoice", "Here it is.", arguments="{number: 7"),
    chat("upgrade", "upgrade me", "You are upgraded."),
]


def write_runs(where: Path) -> tuple[Path, Path]:
    """The suite and both logs written in `where`, each log checked into a JSON report:
    the paths of the base report and the new one."""
    (where / "suite.yaml").write_text(SUITE, encoding="utf-8")
    reports = []
    for name, lines in (("base", BASE_LINES), ("new", NEW_LINES)):
        log = where / f"{name}.log.jsonl"
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        report = where / f"{name}.jsonl"
        code, _, err = cli("check", str(where / "suite.yaml"), str(log), "-o", str(report), "-q")
        assert code in (1, 3), err
        reports.append(report)
    return reports[0], reports[1]


def cli(*argv: str) -> tuple[int, str, str]:
    """Run the command line in this process: its exit code, standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def case_rows(
    statuses: Sequence[str],
    *,
    suite: str = "s",
    case: str = "c",
    assertions: Iterable[tuple[str, Sequence[str]]] = (),
    prefix: str = "log",
    subjects: Sequence[str] | None = None,
) -> list[Row]:
    """Case rows made by hand: one per subject `0`, `1`, ... with the case status
    `statuses[i]`, and each assertion `(name, its statuses)` of `assertions`."""
    named = list(assertions)
    ids = list(subjects) if subjects is not None else [str(i) for i in range(len(statuses))]
    return [
        Row(
            kind="case",
            source=f"{prefix}:{i + 1}",
            suite=suite,
            case=case,
            subject_id=ids[i],
            status=status,
            assertions=tuple((name, states[i]) for name, states in named),
        )
        for i, status in enumerate(statuses)
    ]
