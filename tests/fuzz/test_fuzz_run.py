"""Fuzz targets for the run's own edges: `--group-by` grouping and Ctrl-C between records.

- `cli.grouping`: logs of span and run records (mutated, cut, spliced with garbage) checked
  with `--group-by` on the trace, an attribute or a field and any `--group-window`: a
  documented exit code, no traceback, a JSON report of whole lines ending in its summary.
- `cli.interrupts`: a real SIGINT raised while the k-th record is checked: the run exits 130
  (or, when it had finished, as usual), and its JSON report is whole lines ending in a summary
  that counts no more records than the log holds.
- `cli.judged_batches`: the same logs checked by a judged suite a batch at a time
  (`Checker.lines_into`), with a real SIGINT at the k-th judge request or none: the items are
  those of the lines checked one by one, or, interrupted, a run of whole records from the first.
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

from chatassert import Contains, LLMRubric, OnEveryTurn
from chatassert._suite import Case, Suite
from chatassert.judges import FunctionJudge
from chatassert.records import RECORD_END, Checker
from cli_runs import without_durations

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


def _batch_checker(judge: FunctionJudge) -> Checker:
    """A checker of every subject against a judged case and a plain one (`--assert` cases)."""
    cases = (
        Case(name="judged", checks=(OnEveryTurn(LLMRubric("is polite", judge=judge)),)),
        Case(name="plain", checks=(OnEveryTurn(Contains("a")),)),
    )
    return Checker([Suite(name="--assert", cases=cases, dialect="native")], trees=True)


def _untimed(item: Any) -> Any:
    """An item as it compares across runs: a row's fields but its duration and the
    durations in its tree."""
    if item is RECORD_END:
        return "END"
    tree = without_durations(json.loads(item.result)) if item.result else None
    return (item.kind, item.source, item.case, item.status, item.error, tree)


@given(logs([*SAMPLES["openai"], *SAMPLES["native"]]), st.integers(0, 8))
@fuzz_target("cli.judged_batches")
def test_judged_records_checked_together_give_what_they_give_one_by_one(
    log: tuple[str, int], at: int
) -> None:
    path, _ = log
    with open(path, encoding="utf-8", errors="surrogateescape") as file:
        lines = [(line, "log", n) for n, line in enumerate(file.read().split("\n"), 1)]
    lines = [entry for entry in lines if entry[0].strip()]
    alone: list[Any] = []
    one_by_one = _batch_checker(FunctionJudge(lambda request: "a" in request.response, name="a"))
    for entry in lines:
        one_by_one.line_into(*entry, alone)
    asked = 0

    def judge(request: Any) -> bool:
        nonlocal asked
        asked += 1
        if asked == at:
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C arrives
        return "a" in request.response

    together: list[Any] = []
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _batch_checker(FunctionJudge(judge, name="a")).lines_into(lines, together)
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    finally:
        signal.signal(signal.SIGINT, previous)
    expected = list(map(_untimed, alone))
    got = list(map(_untimed, together))
    assert interrupted == (0 < at <= asked), (at, asked)
    if not interrupted:
        assert got == expected
        return
    assert got == expected[: len(got)]  # a run of whole records from the first
    assert not got or got[-1] == "END"
