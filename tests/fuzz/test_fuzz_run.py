"""Fuzz targets for the run's own edges: `--group-by` grouping and Ctrl-C between records.

- `cli.grouping`: logs of span and run records (mutated, cut, spliced with garbage) checked
  with `--group-by` on the trace, an attribute or a field and any `--group-window`: a
  documented exit code, no traceback, a JSON report of whole lines ending in its summary.
- `cli.interrupts`: a real SIGINT raised while the k-th record is checked: the run exits 130
  (or, when it had finished, as usual), and its JSON report is whole lines ending in a summary
  that counts no more records than the log holds.
"""

from __future__ import annotations

import json
import signal
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st
from test_fuzz_cli import DOCUMENTED, _path, run
from test_fuzz_logs import SAMPLES, mutated_record, to_line

from chatassert.records import Checker

_SPANS = [*SAMPLES["otel"], *SAMPLES["native"], *SAMPLES["openai"]]
_INLINE = ["--assert", "{type: not_contains, value: zzz}"]


@st.composite
def logs(draw: st.DrawFn, records: list[Any]) -> tuple[str, int]:
    """A log of records, mutated records, garbage and blank lines; its path and line count."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["record", "record", "mutated", "garbage", "blank"]))
        if kind == "record":
            lines.append(to_line(draw(st.sampled_from(records)), True))
        elif kind == "mutated":
            lines.append(to_line(draw(mutated_record(records)), draw(st.booleans())))
        elif kind == "garbage":
            lines.append(draw(specgen.odd_text(20)).replace("\n", " "))
        else:
            lines.append("")
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    return _path("run.jsonl", data), len(lines)


def _report(out: str) -> dict[str, Any]:
    """The summary of a JSON report whose every line is JSON."""
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows, "no report"
    assert "summary" in rows[-1], rows[-1]
    summary: dict[str, Any] = rows[-1]["summary"]
    return summary


@given(
    logs(_SPANS),
    st.sampled_from(["trace", "session.id", "metadata.session_id", "gen_ai.conversation.id"]),
    st.sampled_from(["1", "2", "1000"]),
)
@fuzz_target("cli.grouping")
def test_grouping_any_log_gives_a_whole_report(log: tuple[str, int], key: str, window: str) -> None:
    path, _ = log
    argv = ["check", "--no-progress", "--format", "json", *_INLINE]
    code, out, _ = run([*argv, "--group-by", key, "--group-window", window, path])
    if code != 2:
        _report(out)


@given(logs(_SPANS), st.integers(1, 6))
@fuzz_target("cli.interrupts")
def test_a_sigint_while_a_record_is_checked_leaves_a_whole_report(
    log: tuple[str, int], at: int
) -> None:
    path, lines = log
    original = Checker.line_into
    calls = 0

    def line_into(self: Checker, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == at:
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C arrives: the handler decides
        return original(self, *args, **kwargs)

    Checker.line_into = line_into  # type: ignore[method-assign]
    try:
        argv = ["check", "--no-progress", "--format", "json", *_INLINE, path]
        code, out, err = run(argv, DOCUMENTED | {130})
    finally:
        Checker.line_into = original  # type: ignore[method-assign]
    interrupted = calls >= at
    assert (code == 130) == interrupted, (code, calls, at, err[-1000:])
    summary = _report(out)
    assert summary["records"] <= lines, summary
