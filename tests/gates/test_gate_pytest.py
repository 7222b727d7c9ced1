"""The pytest plugin honours a collected suite file's gates at the end of the session: decided
over the session's outcomes of its cases, a failed one fails the session (non-zero exit) with
a terminal section naming each gate, what it requires and what the session showed;
`--chatassert-baseline` gives `max_drop` its baseline. Under pytest-xdist the controlling
process decides them from the workers' outcomes.

Docs: docs/pytest.md ("Gates"). Source: src/chatassert/pytest_plugin.py (`_SessionGates`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gates_helpers import GOOD, SORRY, log, run, suite

STRICT = "{assertion: refund_policy, pass_rate: {min: 0.9, confidence: 0.95}}"
LOOSE = "{pass_rate: {min: 0.5}}"
DROP = "{max_drop: {assertion: tone, by: 0.1}}"


@pytest.fixture
def strict(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    monkeypatch.setenv("COLUMNS", "240")  # a gate's line whole: not wrapped at 80 columns
    return pytester


def _files(pytester: pytest.Pytester, gates: tuple[str, ...], *replies: str) -> None:
    pytester.makefile(".chatassert.yaml", refunds=suite(*gates))
    pytester.makefile(".jsonl", refunds=log(*replies))


def test_a_failed_gate_fails_a_session_whose_items_all_passed(strict: pytest.Pytester) -> None:
    _files(strict, (STRICT, LOOSE), *[GOOD] * 10)
    result = strict.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=10)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= chatassert gates =*",
            "FAIL  refunds.chatassert.yaml::gates[[]0[]] pass rate of 'refund_policy' at least "
            "0.9 (lower bound at 95% confidence): 10 of 10 passed (1.000), 95% interval 0.722 to "
            "1.000: its lower bound is below the minimum 0.9",
            "PASS  refunds.chatassert.yaml::gates[[]1[]] pass rate of the cases at least 0.5:*",
            "the session fails: not every gate was met (gates: 1 passed, 1 failed)",
        ]
    )


def test_gates_that_pass_leave_the_session_passed(strict: pytest.Pytester) -> None:
    _files(strict, (LOOSE, "{assertion: tone, pass_rate: {min: 0.5}}"), GOOD, GOOD, SORRY)
    result = strict.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=2, failed=1)  # the case that failed fails the session
    result.stdout.fnmatch_lines(["PASS  refunds.chatassert.yaml::gates[[]1[]] *: 2 of 3 passed*"])
    _files(strict, (LOOSE,), GOOD, GOOD)
    assert strict.runpytest("-p", "no:xdist").ret == pytest.ExitCode.OK


def test_a_suite_none_of_whose_cases_ran_is_not_gated(strict: pytest.Pytester) -> None:
    _files(strict, (STRICT,), *[GOOD] * 3)
    strict.makepyfile("def test_other():\n    pass\n")
    result = strict.runpytest("-p", "no:xdist", "-k", "other")
    result.assert_outcomes(passed=1, deselected=3)
    assert result.ret == pytest.ExitCode.OK
    assert "chatassert gates" not in result.stdout.str()


def test_a_session_stopped_early_skips_the_gates(strict: pytest.Pytester) -> None:
    _files(strict, (LOOSE,), GOOD, SORRY, GOOD, GOOD)
    result = strict.runpytest("-p", "no:xdist", "-x")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "SKIP  refunds.chatassert.yaml::gates[[]0[]] pass rate of the cases at least 0.5: "
            "not evaluated: the session stopped early: gates need every case of the suite to run"
        ]
    )


def test_the_baseline_decides_max_drop(strict: pytest.Pytester, tmp_path: Path) -> None:
    # the baseline: a run of the same suite by the command line, its JSON report
    base = tmp_path / "base"
    base.mkdir()
    (base / "suite.yaml").write_text(suite(DROP), encoding="utf-8")
    (base / "log.jsonl").write_text(log(*[GOOD] * 10), encoding="utf-8")
    assert run(base, "check", "suite.yaml", "log.jsonl", "-o", "base.jsonl", "-q")[0] == 0
    _files(strict, (DROP,), *[GOOD] * 8, SORRY, SORRY)
    without = strict.runpytest("-p", "no:xdist")
    without.stdout.fnmatch_lines(["SKIP  *gates[[]0[]]*no baseline run to compare with*"])
    given = strict.runpytest("-p", "no:xdist", f"--chatassert-baseline={base / 'base.jsonl'}")
    given.stdout.fnmatch_lines(
        [
            "FAIL  refunds.chatassert.yaml::gates[[]0[]] pass rate of 'tone' at most 0.1 below "
            "the baseline: 0.800 (8/10) against 1.000 (10/10) in the baseline: a drop of 0.200, "
            "more than 0.1",
        ]
    )


def test_a_baseline_that_cannot_be_read_is_a_usage_error(strict: pytest.Pytester) -> None:
    _files(strict, (DROP,), GOOD)
    result = strict.runpytest("-p", "no:xdist", "--chatassert-baseline=missing.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--chatassert-baseline: cannot read missing.jsonl*"])


def test_under_xdist_the_controller_decides_the_gates_of_the_workers_outcomes(
    strict: pytest.Pytester,
) -> None:
    _files(strict, (STRICT, LOOSE), *[GOOD] * 6)
    result = strict.runpytest("-n", "2")
    result.assert_outcomes(passed=6)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL  refunds.chatassert.yaml::gates[[]0[]] *: 6 of 6 passed (1.000)*",
            "PASS  refunds.chatassert.yaml::gates[[]1[]] *: 6 of 6 passed (1.000)*",
        ]
    )
