"""`chatassert.compare.compare`: pairing, flips, rates, the tests and Holm's adjustment, the
gates, and the rows it refuses.

The runs are checked by the real `Checker` and the real command line where the point is what
a report holds (names, places, evidence, repeats); rows are made by hand where the point is
the arithmetic (how many pairs went which way).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from compare_helpers import case_rows, write_runs

from chatassert import LLMRubric, Repeat
from chatassert._stats import holm, mcnemar, wilson
from chatassert._suite import Case, Suite
from chatassert.compare import CompareError, Flip, compare, read_run
from chatassert.judges import FunctionJudge
from chatassert.records import Checker, Row
from chatassert.specs import load_suite

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_runs(tmp_path_factory.mktemp("runs"))


def test_cases_pair_by_suite_case_and_subject_and_every_change_is_a_flip(
    runs: tuple[Path, Path],
) -> None:
    base, new = runs
    result = compare(read_run(base), read_run(new))
    assert result.paired == 3
    assert result.unpaired_base == (("suite", "cancels", "cancel"),)
    assert result.unpaired_new == (("suite", "upgrades", "upgrade"),)
    got = [(f.key[2], f.assertion, f.before, f.after, f.change) for f in result.flips]
    assert got == [  # the worst kinds first, a case before its assertions
        ("refund", None, "passed", "failed", "worse"),
        ("refund", "mentions the refund", "passed", "failed", "worse"),
        ("invoice", None, "passed", "error", "error"),
        ("invoice", "contains_function_call", "passed", "error", "error"),
        ("cancel", None, "passed", "absent", "removed"),
        ("upgrade", None, "absent", "passed", "added"),
        ("greet", None, "failed", "passed", "better"),
        ("greet", "welcomes", "failed", "passed", "better"),
    ]
    # the evidence of the new failure beside the old pass
    refund = result.flips[1]
    assert refund.evidence_before is None
    assert refund.evidence_after == "Response does not contain 'refund'"
    assert result.flips[7].evidence_before == "Response does not contain 'welcome'"
    assert "not valid JSON" in str(result.flips[3].evidence_after)
    # rates over the paired cases: the error counts as not passed
    overall = result.overall
    assert (overall.base.passed, overall.base.total) == (2, 3)
    assert (overall.new.passed, overall.new.total) == (1, 3)
    assert dict(overall.new_counts) == {"failed": 1, "passed": 1, "error": 1}
    assert (overall.test.worse, overall.test.better) == (2, 1)  # refund, invoice; greet
    assert overall.drop == pytest.approx(1 / 3)
    shared = result.assertion("no internal errors")
    assert (shared.base.passed, shared.base.total, shared.pairs) == (3, 3, 3)
    assert [c.name for c in result.assertions] == [
        "contains_function_call", "mentions the refund", "no internal errors", "welcomes",
    ]  # fmt: skip


def test_rows_of_a_checker_compare_as_the_report_read_back(runs: tuple[Path, Path]) -> None:
    # compare() takes rows of a Checker too (a harness, a notebook): the same numbers
    base, new = runs
    suite = load_suite(base.parent / "suite.yaml")
    checker = Checker([suite])
    logs = {name: (base.parent / f"{name}.log.jsonl").read_text() for name in ("base", "new")}
    rows = {name: list(checker.check_records(text.splitlines())) for name, text in logs.items()}
    in_code = compare(rows["base"], rows["new"])
    read_back = compare(read_run(base), read_run(new))
    assert in_code.assertions == read_back.assertions
    assert in_code.overall == read_back.overall
    assert [(f.key, f.assertion, f.before, f.after) for f in in_code.flips] == [
        (f.key, f.assertion, f.before, f.after) for f in read_back.flips
    ]
    # a checker's rows keep a transcript excerpt of a case that did not pass (a JSON report
    # does not): the case's evidence adds it after the reason
    refund, read = in_code.flips[0], read_back.flips[0]
    assert read.evidence_after is not None
    assert refund.evidence_after is not None
    assert refund.evidence_after.startswith(read.evidence_after + "\nuser: I was charged twice")
    assert in_code.flips[1].evidence_after == read_back.flips[1].evidence_after
    assert in_code.base_path is None
    assert read_back.base_path == str(base)


def test_two_checks_of_one_name_in_a_case_pair_by_their_place(tmp_path: Path) -> None:
    # the booking suite's first case calls contains_function_call in both turns: each pairs
    # with its own, and the flip says which one broke
    log = (EXAMPLES / "booking.jsonl").read_text(encoding="utf-8")
    broken = log.replace('"name": "create_reservation"', '"name": "hold_table"', 1)
    assert broken != log
    suite = load_suite(EXAMPLES / "booking.flat.yaml")
    checker = Checker([suite])
    base = list(checker.check_records(log.splitlines()))
    new = list(checker.check_records(broken.splitlines()))
    result = compare(base, new)
    (flip,) = [f for f in result.flips if f.assertion is not None]
    assert (flip.assertion, flip.spec_path) == ("contains_function_call", "turns[1].assertions[0]")
    calls = result.assertion("contains_function_call")
    assert (calls.base.passed, calls.new.passed, calls.test.worse) == (2, 1, 1)
    # rows without their trees tell them apart by order
    bare = [Row(**{**_fields(r), "result": None, "outcome": None}) for r in base]
    bare_new = [Row(**{**_fields(r), "result": None, "outcome": None}) for r in new]
    (flip,) = [f for f in compare(bare, bare_new).flips if f.assertion is not None]
    assert (flip.assertion, flip.spec_path) == ("contains_function_call", "#2")


def _fields(row: Row) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__dataclass_fields__}


def test_the_tests_are_exact_mcnemar_and_holm_adjusts_across_assertions_and_overall() -> None:
    n = 20
    # `tone` 10 pass -> fail; `policy` 6 pass -> fail (raw p 0.031 < 0.05, but not after Holm);
    # `format` unchanged; the case fails when any does
    tone = ["passed"] * n, ["failed"] * 10 + ["passed"] * 10
    policy = ["passed"] * n, ["passed"] * 10 + ["failed"] * 6 + ["passed"] * 4
    fmt = ["passed"] * n, ["passed"] * n

    def run(side: int) -> list[Row]:
        named = [("tone", tone[side]), ("policy", policy[side]), ("format", fmt[side])]
        statuses = [
            "failed" if any(s[i] == "failed" for _, s in named) else "passed" for i in range(n)
        ]
        return case_rows(statuses, assertions=named)

    result = compare(run(0), run(1))
    family = [result.overall, *result.assertions]
    assert [c.name for c in family] == ["overall", "format", "policy", "tone"]
    raw = [mcnemar(c.test.worse, c.test.better).p_value for c in family]
    assert [c.test.p_value for c in family] == raw
    assert [c.adjusted_p for c in family] == holm(raw)
    tone_change = result.assertion("tone")
    assert (tone_change.test.worse, tone_change.test.better) == (10, 0)
    assert tone_change.test.p_value == 2 / 2**10
    assert tone_change.regressed
    policy_change = result.assertion("policy")
    assert policy_change.test.p_value == pytest.approx(0.03125)
    assert policy_change.adjusted_p > 0.05
    assert not policy_change.regressed
    assert result.overall.regressed  # 16 cases worse, none better
    assert [c.name for c in result.regressions()] == ["tone", "overall"]
    low, high = wilson(10, 20)
    assert (tone_change.new.low, tone_change.new.high) == (low, high)
    # a stricter alpha, and intervals at another confidence
    strict = compare(run(0), run(1), alpha=0.001, confidence=0.8)
    assert not strict.assertion("tone").regressed
    assert strict.assertion("tone").new.low == wilson(10, 20, 0.8)[0]


def test_an_improvement_is_never_a_regression() -> None:
    result = compare(case_rows(["failed"] * 12), case_rows(["passed"] * 12))
    assert result.overall.test.better == 12
    assert result.overall.adjusted_p < 0.001
    assert not result.overall.regressed
    assert result.overall.drop == -1.0
    assert result.regressions() == ()


def test_an_error_counts_as_not_passed_and_skipped_not_at_all() -> None:
    base = case_rows(["passed", "failed", "passed", "skipped", "passed"])
    new = case_rows(["error", "error", "skipped", "passed", "passed"])
    result = compare(base, new)
    overall = result.overall
    # passed -> error is worse; failed -> error is no change; a skipped side pairs nothing
    assert (overall.test.worse, overall.test.better, overall.pairs) == (1, 0, 3)
    assert (overall.base.passed, overall.base.total) == (3, 4)  # skipped not counted
    assert (overall.new.passed, overall.new.total) == (2, 4)  # errors counted, not passed
    changes = [(f.key[2], f.before, f.after, f.change) for f in result.flips]
    assert changes == [
        ("0", "passed", "error", "error"),
        ("1", "failed", "error", "error"),
        ("2", "passed", "skipped", "changed"),
        ("3", "skipped", "passed", "better"),
    ]


def _repeat_rows(shares: list[str]) -> list[Row]:
    """Rows of a one-case suite whose check is a Repeat of three judged samples; subject i's
    samples pass as `shares[i]` says (`PPF`: the first two pass)."""

    def verdict(request: object) -> bool:
        pattern = str(getattr(request, "response", ""))
        return pattern[getattr(request, "sample", 0)] == "P"

    check = Repeat(3, LLMRubric("Is polite", judge=FunctionJudge(verdict)), message="polite")
    suite = Suite(name="s", cases=(Case(name="c", checks=(check,)),), dialect="native")
    checker = Checker([suite])
    records = [
        f'{{"id": "{i}", "messages": [{{"role": "user", "content": "hi"}}, '
        f'{{"role": "assistant", "content": "{pattern}"}}]}}'
        for i, pattern in enumerate(shares)
    ]
    return list(checker.check_records(records))


def test_a_repeat_compares_each_subjects_share_of_passing_samples() -> None:
    # eight subjects went from 3 of 3 samples passing to 2 of 3: each verdict (a majority) is
    # still a pass, so nothing flips, but each subject is worse and flaky now
    base = _repeat_rows(["PPP"] * 8 + ["PFF", "FFF"])
    new = _repeat_rows(["PPF"] * 8 + ["PPF", "FFF"])
    result = compare(base, new)
    polite = result.assertion("polite")
    assert (polite.base.passed, polite.new.passed) == (8, 9)  # the verdicts: PFF -> PPF
    assert (polite.test.worse, polite.test.better) == (8, 1)
    assert polite.repeated == 10
    assert polite.flaky == 9
    assert polite.test.p_value == mcnemar(8, 1).p_value
    assert [f.key[2] for f in result.flips] == ["8", "8"]  # only subject 8's verdict flipped
    assert result.overall.flaky == 9  # the case row's own flaky mark


def test_gates_say_why_they_fail() -> None:
    base = case_rows(["passed"] * 100, assertions=[("tone", ["passed"] * 100)])
    new = case_rows(["passed"] * 98 + ["failed"] * 2,
                    assertions=[("tone", ["passed"] * 98 + ["failed"] * 2)])  # fmt: skip
    result = compare(base, new, max_drop={"tone": 0.02})
    assert result.failed([], {}) == []  # a drop of exactly the limit passes (0.02, float aside)
    assert result.failed([], {"tone": 0.01}) == [
        "max-drop tone=0.01: tone fell by 0.02 (from 100.0% to 98.0%)"
    ]
    assert result.failed([], {"*": 0.015}) == [
        "max-drop *=0.015: overall fell by 0.02 (from 100.0% to 98.0%)"
    ]
    assert result.failed(["regression"], {}) == []  # 2 of 100: no evidence
    assert result.failed(["any-flip"], {}) == ["any-flip: 4 flips (4 worse)"]
    with pytest.raises(KeyError, match=r"no assertion named 'ton' .*'tone'"):
        result.failed([], {"ton": 0.1})
    with pytest.raises(ValueError, match="unknown gates"):
        result.failed(["regressions"], {})
    with pytest.raises(ValueError, match="from 0 to 1"):
        result.failed([], {"tone": 1.5})
    failing = compare(case_rows(["passed"] * 12), case_rows(["failed"] * 12))
    (reason,) = failing.failed(["regression"], {})
    assert reason.startswith("regression: overall fell from 100.0% to 0.0%: 12 worse, 0 better")


def test_a_drop_that_cannot_be_measured_fails_its_gate() -> None:
    base = case_rows(["passed"] * 3, assertions=[("tone", ["passed"] * 3)])
    new = case_rows(["passed"] * 3, assertions=[("tone", ["skipped"] * 3)])
    (reason,) = compare(base, new).failed([], {"tone": 0.5})
    assert "the new run has no verdict of tone" in reason
    assert math.isnan(compare(base, new).assertion("tone").drop)


def test_compare_refuses_bad_arguments() -> None:
    rows = case_rows(["passed"])
    for bad in ({"alpha": 0}, {"alpha": 1.0}, {"confidence": 1}):
        with pytest.raises(ValueError, match="between 0 and 1"):
            compare(rows, rows, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="from 0 to 1"):
        compare(rows, rows, max_drop={"x": -0.1})
    with pytest.raises(TypeError, match="a Run or Rows"):
        compare(rows, [{"kind": "case"}])  # type: ignore[list-item]


def test_a_case_twice_against_one_subject_is_refused_naming_both_places() -> None:
    rows = case_rows(["passed", "failed"], subjects=["a", "a"], prefix="new.log")
    with pytest.raises(CompareError) as caught:
        compare(case_rows(["passed"]), rows)
    assert str(caught.value).startswith(
        "new.log:2: case 'c' of suite 's' is checked against subject 'a' a second time "
        "(first at new.log:1)"
    )
    without_ids = case_rows(["passed", "passed"], subjects=[None, None])  # type: ignore[list-item]
    with pytest.raises(CompareError, match=r"a subject without an id .* give each conversation"):
        compare(without_ids, case_rows(["passed"]))


def test_runs_of_suites_that_share_none_are_refused_and_a_suite_of_one_run_is_noted() -> None:
    with pytest.raises(CompareError, match=r"^b:1: suite 'other' is not a suite of the base rows"):
        compare(case_rows(["passed"]), case_rows(["passed"], suite="other", prefix="b"))
    both = case_rows(["passed"]) + case_rows(["passed"], suite="extra", prefix="x")
    result = compare(case_rows(["passed"]), both)
    assert result.notes == ("suite 'extra' is only in the new rows: its cases are unpaired",)
    assert result.unpaired_new == (("extra", "c", "0"),)


def test_unreadable_and_unmatched_records_are_noted_not_dropped() -> None:
    extra = [Row(kind="unreadable", source="log:9", error="not JSON"),
             Row(kind="unmatched", source="log:10", suite="s")]  # fmt: skip
    result = compare(case_rows(["passed"]) + extra, case_rows(["passed"]))
    assert result.notes == (
        "the base rows: 1 unreadable log line and 1 subject that matched no case, not "
        "compared (no case outcome to pair)",
    )


def test_cost_and_time_of_both_runs_side_by_side() -> None:
    cost = {"requests": 2, "cached": 1, "avoided": 0, "tokens_in": 300, "tokens_out": 20,
            "cost": 0.5}  # fmt: skip
    base = [Row(kind="case", source=f"l:{i}", suite="s", case="c", subject_id=str(i),
                status="passed", cost=cost, duration=d)
            for i, d in enumerate([1.0, 2.0, 4.0])]  # fmt: skip
    result = compare(base, case_rows(["passed"] * 3))
    judged = result.cost["base"]
    assert judged["judge"] == {"requests": 6, "cached": 3, "avoided": 0, "tokens_in": 900,
                               "tokens_out": 60, "cost": 1.5}  # fmt: skip
    assert judged["seconds"] == {"total": 7.0, "median": 2.0, "p95": 4.0}
    assert result.cost["new"] == {"cases": 3, "judge": None, "seconds": None}


def test_assertion_lists_the_names_there_are() -> None:
    result = compare(case_rows(["passed"], assertions=[("tone", ["passed"])]),
                     case_rows(["passed"], assertions=[("tone", ["passed"])]))  # fmt: skip
    with pytest.raises(KeyError, match=r"no assertion named 'x' .*\(their assertions: 'tone'\)"):
        result.assertion("x")
    assert Flip(("s", "c", None), None, "failed", "error").change == "error"
    assert Flip(("s", "c", None), "a", "error", "failed").change == "changed"
