"""Fuzzing `chatassert check SUITE LOG --baseline BASE` (in process, through
`chatassert._cli.main`) on baselines broken every way a report can go wrong.

The run checks the four conversations the `cli.compare` target's base report was made of;
its baseline is that report broken and changed in meaning as `cli.compare` breaks it
(`changed_rows`, `mutated_report`), under random gates (`--fail-on`, `--max-drop`,
`--alpha`), with the comparison written to `--compare-output`.

The contract: a documented exit code and no traceback. A baseline the report reader refuses
is a usage error (exit 2) naming its first problem, found before any log is read: the run's
own report is not written. Any other exit 2 says `chatassert check:` and names the baseline's
place (or the `--max-drop` name no assertion has). Otherwise the run's report is whole (it
ends with its summary) and the comparison is strict JSON; a comparison whose gate failed
fails the run (exit 1).
"""

from __future__ import annotations

import json
import os
import re

from fuzzing import fuzz_target
from hypothesis import event, given, strategies as st
from test_fuzz_cli import _DIR, run
from test_fuzz_commands import _problems, _rows, _write, mutated_report
from test_fuzz_compare import _SUITE, _base, _chat, _not_strict, changed_rows
from test_fuzz_logs import to_line


def _log() -> str:
    """The conversations of the base report, checked again by each run."""
    return _write("gating.log.jsonl", [
        _chat("refund", "a refund, sorry"),
        _chat("greet", "hi"),
        _chat("invoice", "here", "{oops"),
        _chat("twice", "a b"),
    ])  # fmt: skip


@given(st.data())
@fuzz_target("cli.gating")
def test_check_with_a_baseline_compares_or_names_the_bad_line(data: st.DataObject) -> None:
    _, rows = _base()
    changed = data.draw(changed_rows(list(rows)))
    if data.draw(st.booleans()):
        lines = data.draw(mutated_report(changed))
    else:
        lines = [to_line(row, data.draw(st.booleans())) for row in changed]
    baseline = _write("gating-base.jsonl", lines)
    suite = _write("gating-suite.yaml", [_SUITE])
    gates = data.draw(st.lists(st.sampled_from([
        ["--fail-on", "regression"], ["--fail-on", "any-flip"], ["--max-drop", "overall=0.1"],
        ["--max-drop", "*=0"], ["--alpha", "0.2"], ["--max-drop", "mentions refund=0.5"],
    ]), max_size=3))  # fmt: skip
    report = os.path.join(_DIR.name, "gating-run.jsonl")
    compared = os.path.join(_DIR.name, "gating-compare.json")
    for path in (report, compared):
        if os.path.exists(path):
            os.remove(path)
    argv = [
        *("check", suite, _log(), "--baseline", baseline, *(a for g in gates for a in g)),
        *("--compare-output", compared, "-o", report, "-q"),
    ]
    code, _, err = run(argv)
    event(f"check --baseline: exit {code}")
    problems = _problems(baseline)
    if problems:
        assert code == 2, err
        assert problems[0] in err
        assert not os.path.exists(report)  # refused before any log was read
        return
    if code == 2:
        assert err.startswith("chatassert check: "), err
        placed = re.search(rf"{re.escape(baseline)}(:\d+)?", err)
        assert placed is not None or "--max-drop: no assertion named" in err, err
        return
    assert "summary" in _rows(report)[-1]
    with open(compared, encoding="utf-8") as file:
        document = json.loads(file.read(), parse_constant=_not_strict)
    assert document["chatassert_compare"] == 1
    if document["paired"] and document["gate"]["failed"]:
        assert code == 1, err
