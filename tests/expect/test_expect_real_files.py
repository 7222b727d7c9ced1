"""Jarvis test files as they are (docs/expect.md, "Jarvis test files"; docs/offline.md,
"Expect suites"): every key of the format loads, through the real loader, from JSON and YAML;
`chatassert check` pairs a JSONL log of responses with the tests (steps of a multi-step test by
`step`, the model by `model`), and reports passes, failures, errors and the tests skipped by
`--assume`; `chatassert lint --verbose` lists what is kept. (A real log, the YAML file's steps
and a run with jobs as a subprocess; the rest in this process: tests/cli_runs.py.)

The files are tests/expect/data/jarvis-journal-agent.tests.json and
jarvis-todo-agent.tests.yaml; the logs are written here, one record per line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chatassert import SpecError, Status, Turn
from chatassert.specs import Case, StepSpec, load_suite, loads_suite
from chatassert.specs._common import NOT_USED_OFFLINE
from cli_runs import run_in_process

DATA = Path(__file__).parent / "data"
JOURNAL = DATA / "jarvis-journal-agent.tests.json"
TODO = DATA / "jarvis-todo-agent.tests.yaml"
HAIKU = "claude-3-5-haiku-20241022"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def here(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`run`, in this process (tests/cli_runs.py): for the variants of what `run` shows."""
    return run_in_process(*map(str, args))


def write_log(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def outcomes(out: subprocess.CompletedProcess[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The JSON report's outcome lines and its summary."""
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    return [line for line in lines if "result" in line], lines[-1]["summary"]


def by_id(found: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each test id and the statuses of its outcomes, in report order."""
    out: dict[str, list[str]] = {}
    for o in found:
        out.setdefault(o["subject_id"], []).append(o["result"]["status"])
    return out


def entry(n: int) -> dict[str, Any]:
    return {"file": f"journal/2026/02/entry-{n}.md", "title": f"Entry {n}", "words": 120 + n}


def page(*entries: int) -> dict[str, Any]:
    return {"status": "success", "results": [entry(n) for n in entries]}


# -- the journal agent's responses: every test answered, two of them wrongly -----------------

CREATED = {
    "status": "success",
    "entry": {"file": "journal/2026/02/retro.md", "created": "2026-02-03T18:20:00Z"},
}
JOURNAL_LOG = [
    {"id": "JNL-001", "response": CREATED},
    {"id": "JNL-002", "response": {"status": "error", "error_code": "EMPTY_ENTRY"}},
    {"id": "JNL-003", "response": {"status": "success"}},  # the vault was mounted after all
    {"id": "JNL-010", "response": {"status": "success", "results": [entry(1), entry(2)]}},
    {"id": "JNL-011", "step": 1, "response": page(1, 2)},
    {"id": "JNL-011", "step": 2, "response": page(3, 4)},
    {"id": "JNL-020", "model": HAIKU, "response": {"status": "success", "summary": "Calm week"}},
]  # fmt: skip


# -- loading ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [JOURNAL, TODO], ids=["json", "yaml"])
def test_a_jarvis_file_loads_with_every_key(path: Path) -> None:
    suite = load_suite(path)
    assert suite.dialect == "expect"
    agent = "jarvis:jarvis-journal-agent" if path == JOURNAL else "jarvis:jarvis-todo-agent"
    assert {c.metadata["agent"] for c in suite.cases} == {agent}
    assert all(c.skip is None for c in suite.cases)  # nothing is assumed unless asked
    skipping = [c for c in suite.cases if "skip_if" in c.metadata]
    assert len(skipping) == 1
    kept = skipping[0].metadata[NOT_USED_OFFLINE]
    assert sorted(k.rsplit(".", 1)[1] for k in kept) == ["cleanup", "setup"]


def test_the_json_file_keeps_each_test_as_written() -> None:
    suite = load_suite(JOURNAL)
    cases = {c.id: c for c in suite.cases}
    assert list(cases) == ["JNL-001", "JNL-002", "JNL-003", "JNL-010", "JNL-011", "JNL-020"]
    assert [a.kind for a in cases["JNL-001"].checks] == [
        "expect_status",
        "expect_has_fields",  # `has_field`, the one-path spelling
        "expect_field_contains",
        "expect_all_dates_in_year",
    ]
    assert [a.kind for a in cases["JNL-010"].checks][-1] == "expect_results_schema"
    assert cases["JNL-003"].metadata["skip_if"] == "vault_mounted"
    assert cases["JNL-003"].metadata[NOT_USED_OFFLINE] == {
        "test_suites.writing.tests[2].setup": "unmount_vault",
        "test_suites.writing.tests[2].cleanup": "mount_vault",
    }
    assert cases["JNL-003"].metadata["suite"] == "Writing entries"
    assert cases["JNL-003"].metadata["priority"] == "critical"
    stepped = cases["JNL-011"]
    assert stepped.checks == ()
    assert [(s.step, s.store, s.input) for s in stepped.steps] == [
        (1, "first_page", {"limit": 2, "offset": 0}),
        (2, None, {"limit": 2, "offset": 2}),
    ]
    assert [a.kind for a in stepped.steps[1].checks] == ["expect_status", "expect_no_overlap"]
    assert stepped.steps[1].source == "test_suites.listing.tests[1].multi_step[1]"
    assert [a.kind for a in cases["JNL-020"].checks] == ["expect_status", "expect_agent_used_model"]


def test_the_yaml_file_numbers_its_steps_and_nests_no_overlap() -> None:
    cases = {c.id: c for c in load_suite(TODO).cases}
    steps = cases["TODO-010"].steps
    assert [(s.step, s.store) for s in steps] == [(1, "page_one"), (2, "page_two"), (3, None)]
    assert steps[0].checks == ()
    assert [a.kind for a in steps[2].checks] == ["expect_no_overlap", "expect_if_results"]


def test_the_loader_option_assume_skips_the_tests_whose_condition_holds() -> None:
    suite = load_suite(JOURNAL, assume=["vault_mounted", "no_network"])
    (skipped,) = [c for c in suite.cases if c.skip is not None]
    assert skipped.id == "JNL-003"
    result = skipped.check({"status": "success"})  # a response that would fail the test
    assert result.status is Status.SKIPPED
    assert result.reason == "skip_if 'vault_mounted' holds (assumed)"
    assert [(r.name, r.status) for r in result.children] == [
        ("expect_status", Status.SKIPPED),
        ("expect_message_contains", Status.SKIPPED),
    ]
    assert result.details == {"passed": 0, "failed": 0, "error": 0, "skipped": 2}


def test_a_condition_matches_exactly_as_written() -> None:
    for near in ("Vault_mounted", "vault_mounted ", "vault"):
        suite = load_suite(JOURNAL, assume=[near])
        assert all(c.skip is None for c in suite.cases), near
    with pytest.raises(TypeError, match="a list of conditions"):
        load_suite(JOURNAL, assume="vault_mounted")  # type: ignore[arg-type]


# -- the case: steps in order, each against its own response --------------------------------


def stepped() -> Case:
    (case,) = [c for c in load_suite(JOURNAL).cases if c.id == "JNL-011"]
    return case


def test_steps_are_paired_by_number_or_by_position() -> None:
    page1, page2 = page(1, 2), page(2, 3)
    for subject in ({1: page1, 2: page2}, {"2": page2, "1": page1}, [page1, page2]):
        result = stepped().check(subject)
        assert result.status is Status.FAILED, subject
        assert result.reason == (
            "1 assertion failed; first: no_overlap: Value "
            "'journal/2026/02/entry-2.md' at results[0].file is also in what step 1 stored as "
            "'first_page'"
        )
        assert [(c.name, c.message, c.status, c.location) for c in result.children] == [
            ("step", "step 1", Status.PASSED, "multi_step[0]"),
            ("step", "step 2", Status.FAILED, "multi_step[1]"),
        ]
        assert result.children[0].reason == "2 assertions passed, response stored as 'first_page'"
        assert result.details == {"passed": 3, "failed": 1, "error": 0, "skipped": 0}


def test_a_missing_step_is_an_error_and_so_is_what_it_should_have_stored() -> None:
    result = stepped().check({2: {"status": "success", "results": [entry(3)]}})
    assert result.status is Status.ERROR
    missing, second = result.children
    assert (missing.status, missing.reason) == (
        Status.ERROR,
        "no response was logged for step 1",
    )
    assert missing.details == {
        "step": 1,
        "missing_response": True,
        "input": {"limit": 2, "offset": 0},
    }
    assert [(c.name, c.status) for c in second.children] == [
        ("expect_status", Status.PASSED),
        ("expect_no_overlap", Status.ERROR),
    ]
    assert second.children[1].reason == (
        "step 1, which stores 'first_page', has no response in the log"
    )
    only_first = stepped().check({1: {"status": "success", "results": [entry(1), entry(2)]}})
    assert only_first.status is Status.ERROR
    # each check of the missing step is an error of its own, named as the file names it
    assert only_first.reason == (
        "2 assertions could not be evaluated; first: status: not checked: no response was "
        "logged for step 2"
    )
    unlogged = only_first.children[1]
    assert [(c.spec_name, c.status) for c in unlogged.children] == [
        ("status", Status.ERROR),
        ("no_overlap", Status.ERROR),
    ]
    assert only_first.details == {"passed": 2, "failed": 0, "error": 2, "skipped": 0}


def test_a_subject_that_is_not_one_response_per_step_is_an_error() -> None:
    page = {"status": "success", "results": [entry(1), entry(2)]}
    cases = [
        (page, "no step 'status': test 'JNL-011' has 2 steps (1, 2)"),
        ({3: page}, "no step 3: test 'JNL-011' has 2 steps (1, 2)"),
        ([page], "got 1 responses, but test 'JNL-011' has 2 steps (1, 2)"),
        (Turn(data=page), "got Turn, but test 'JNL-011' has 2 steps (1, 2)"),
    ]
    for subject, start in cases:
        result = stepped().check(subject)
        assert result.status is Status.ERROR
        assert result.reason.startswith(start), result.reason
        assert result.reason.endswith(
            "check it against {step number: response}, or a list of responses, one per step"
        )


def test_steps_are_checked_the_same_way_asynchronously() -> None:
    import asyncio

    page1 = {"status": "success", "results": [entry(1), entry(2)]}
    for subject in ([page1, {"status": "success", "results": [entry(2)]}], {2: page1}):
        assert asyncio.run(stepped().acheck(subject)) == stepped().check(subject)


def test_a_step_case_built_in_code() -> None:
    from chatassert.expect import NoOverlap, StatusIs

    case = Case(
        name="pages",
        subject="json",
        steps=(
            StepSpec(1, store="first"),
            StepSpec(2, (StatusIs("success"), NoOverlap("results[*].id", stored="first"))),
        ),
    )
    first = {"results": [{"id": 1}, {"id": 2}]}
    assert case.check([first, {"status": "success", "results": [{"id": 3}]}]).passed
    assert not case.check([first, {"status": "success", "results": [{"id": 2.0}]}]).passed


# -- spec problems ---------------------------------------------------------------------------


def problems(text: str) -> list[str]:
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename="t.tests.yaml")
    return [f"{p.message} | {p.hint}" for p in caught.value.problems]


HEAD = "agent: jarvis:jarvis-x-agent\nversion: 1.0.0\ntest_suites:\n  core:\n    name: Core\n"


def test_misspelt_keys_stay_errors_with_did_you_mean() -> None:
    found = problems(
        "agnet: jarvis:jarvis-x-agent\ntest_suites:\n  core:\n    name: Core\n    tests:\n"
        "      - id: T1\n        skip_iff: no_network\n        setup: seed\n"
        "        expect: {status: success}\n"
        "      - id: T2\n        multi_step:\n          - {step: 1, stor: p1}\n"
        "          - {step: 2, expect: {no_overlap: {path: 'results[*].id', with: p1}}}\n"
    )
    assert found[0] == "unknown key 'agnet' in an expect suite file | did you mean 'agent'?"
    assert "unknown key 'skip_iff' in a test case | did you mean 'skip_if'?" in found
    assert "unknown key 'stor' in a step | did you mean 'store'?" in found


def test_no_overlap_with_needs_an_earlier_step_that_stores() -> None:
    top = problems(
        HEAD + "    tests:\n      - id: T1\n"
        "        expect: {no_overlap: {path: 'results[*].id', with: p1}}\n"
    )
    assert top == [
        "no_overlap compares with 'p1', what an earlier step stored, but this test has no "
        "steps | 'with' works in a step of a multi_step test that follows a step with "
        "'store: p1'; to compare with fixed values give 'values: [...]'"
    ]
    later = problems(
        HEAD + "    tests:\n      - id: T1\n        multi_step:\n"
        "          - {step: 1, store: page_one}\n"
        "          - {step: 2, store: page_two,"
        " expect: {no_overlap: {path: 'results[*].id', with: page_tow}}}\n"
    )
    assert later == [
        "no_overlap compares with 'page_tow', which no earlier step stores | did you mean "
        "'page_one'?"
    ]  # page_two is this step's own store: not yet stored when the step is checked


@pytest.mark.parametrize(
    ("test", "message"),
    [
        (
            "multi_step: [{step: 1, store: a}, {step: 1, expect: {status: success}}]",
            "'step' must be a whole number greater than the step before (1)",
        ),
        (
            "multi_step: [{step: 1, store: a}, {step: 2, store: a, expect: {status: ok}}]",
            "step 1 already stores its response as 'a'",
        ),
        ("multi_step: [{step: 1, store: a}]", "no step of test case 'T1' checks anything, so"),
        ("multi_step: []", "'multi_step' of test case 'T1' must be a non-empty list of steps"),
        (
            "multi_step: [{step: 1, expect: {}}]",
            "'expect' of step 1 must be a non-empty mapping of checks",
        ),
        ("multi_step: [{store: [a], expect: {status: ok}}]", "'store' must be a name to keep"),
        ("skip_if: [no_network]\n        expect: {status: ok}", "'skip_if' must name a condition"),
        (
            "expect: {status: ok}\n        multi_step: [{expect: {status: ok}}]",
            "test case 'T1' has both 'multi_step' and 'expect'",
        ),
        ("input: {q: x}", "test case 'T1' has no 'expect'"),
    ],
)
def test_a_bad_test_is_a_spec_problem(test: str, message: str) -> None:
    found = problems(HEAD + f"    tests:\n      - id: T1\n        {test}\n")
    assert any(p.startswith(message) for p in found), found


def test_steps_without_numbers_count_from_one_and_a_bare_list_of_tests_is_detected() -> None:
    suite = loads_suite(
        '[{"id": "P1", "multi_step": [{"store": "a"}, '
        '{"expect": {"no_overlap": {"path": "ids", "with": "a"}}}]}]'
    )
    assert suite.dialect == "expect"
    assert [s.step for s in suite.cases[0].steps] == [1, 2]
    assert suite.cases[0].check([{"ids": [1, 2]}, {"ids": [3]}]).passed


# -- the command line ------------------------------------------------------------------------


def test_check_reports_every_outcome_of_a_real_log(tmp_path: Path) -> None:
    log = [
        *JOURNAL_LOG,
        {"id": "JNL-011", "step": 1, "response": page(5, 6)},
        {"id": "JNL-011", "step": 2, "response": page(6)},
        {"id": "JNL-020", "model": "claude-sonnet-4-5", "response": {"status": "success"}},
        {"id": "JNL-020", "response": {"status": "success"}},
    ]  # fmt: skip
    # full results: the reason of the passing model check is asserted too
    log_path = write_log(tmp_path / "log.jsonl", log)
    out = run("check", JOURNAL, log_path, "-f", "json", "--full-results")
    assert out.returncode == 1, out.stderr
    found, summary = outcomes(out)
    assert by_id(found) == {
        "JNL-001": ["passed"],
        "JNL-002": ["passed"],
        "JNL-003": ["failed"],  # not assumed: checked, and the vault was there
        "JNL-010": ["passed"],
        "JNL-011": ["passed", "failed"],  # two runs of the steps, one after the other
        "JNL-020": ["passed", "failed", "error"],
    }
    model_runs = [o["result"]["children"][1] for o in found if o["subject_id"] == "JNL-020"]
    assert [r["reason"] for r in model_runs] == [
        f"the response came from {HAIKU!r}",
        "Expected model 'haiku', got 'claude-sonnet-4-5'",
        "the response was logged without the model that produced it: log it beside the "
        'response ({"id": ..., "model": "...", "response": {...}}), or check a Turn whose '
        "metadata has 'model'",
    ]
    overlapping = [o for o in found if o["subject_id"] == "JNL-011"][1]
    assert overlapping["source"].endswith("log.jsonl:8")  # where the run's first step is
    assert overlapping["result"]["reason"] == (
        "1 assertion failed; first: no_overlap: Value 'journal/2026/02/entry-6.md' at "
        "results[0].file is also in what step 1 stored as 'first_page'"
    )
    assert summary["records"] == 11
    assert (summary["passed"], summary["failed"], summary["error"]) == (5, 3, 1)


def test_assume_skips_a_test_in_every_report(tmp_path: Path) -> None:
    log = write_log(tmp_path / "log.jsonl", JOURNAL_LOG)
    out = here("check", JOURNAL, log, "--assume", "vault_mounted", "-f", "json")
    assert out.returncode == 0, out.stdout + out.stderr
    found, summary = outcomes(out)
    (skipped,) = [o for o in found if o["subject_id"] == "JNL-003"]
    assert skipped["result"]["status"] == "skipped"
    assert skipped["result"]["reason"] == "skip_if 'vault_mounted' holds (--assume)"
    assert (summary["passed"], summary["skipped"]) == (5, 1)
    text = here("check", JOURNAL, log, "--assume", "vault_mounted")
    assert "6 checked: 5 passed, 0 failed, 0 errors, 1 skipped" in text.stdout
    junit = here("check", JOURNAL, log, "--assume", "vault_mounted", "-f", "junit")
    assert 'skipped="1"' in junit.stdout
    assert "<skipped message=\"skip_if 'vault_mounted' holds (--assume)\" />" in junit.stdout
    html = here("check", JOURNAL, log, "--assume", "vault_mounted", "-f", "html")
    assert html.returncode == 0
    assert '<span class="skipped">1 skipped</span>' in html.stdout


def test_a_skipped_test_needs_no_response(tmp_path: Path) -> None:
    log = [r for r in JOURNAL_LOG if r["id"] != "JNL-003"]
    out = here(
        "check", JOURNAL, write_log(tmp_path / "log.jsonl", log), "--assume", "vault_mounted"
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "has no response" not in out.stderr
    assert "6 checked: 5 passed, 0 failed, 0 errors, 1 skipped" in out.stdout
    unassumed = here("check", JOURNAL, tmp_path / "log.jsonl")
    assert unassumed.returncode == 3
    assert "test 'JNL-003' has no response in the logs" in unassumed.stderr


def test_an_assumed_condition_no_test_names_is_reported(tmp_path: Path) -> None:
    log = write_log(tmp_path / "log.jsonl", JOURNAL_LOG)
    out = here("check", JOURNAL, log, "--assume", "vault_mountd")
    assert "--assume 'vault_mountd' names no test's skip_if: did you mean 'vault_mounted'?" in (
        out.stderr
    )
    assert out.returncode == 1  # nothing skipped: JNL-003 was checked and failed


def test_a_missing_step_is_an_error_in_the_report(tmp_path: Path) -> None:
    log = [r for r in JOURNAL_LOG if not (r["id"] == "JNL-011" and r.get("step") == 2)]
    path = write_log(tmp_path / "log.jsonl", log)
    out = here("check", JOURNAL, path, "-f", "json", "--assume", "vault_mounted")
    assert out.returncode == 3, out.stdout + out.stderr
    found, _ = outcomes(out)
    (run_,) = [o for o in found if o["subject_id"] == "JNL-011"]
    assert run_["result"]["status"] == "error"
    assert run_["result"]["children"][1]["reason"] == "no response was logged for step 2"
    assert "has no response" not in out.stderr  # the test was answered, in part


def test_steps_may_come_in_any_order_and_with_jobs(tmp_path: Path) -> None:
    log = [r for r in JOURNAL_LOG if r["id"] != "JNL-011"]
    log.insert(0, JOURNAL_LOG[5])  # step 2 first, step 1 at the end
    log.append(JOURNAL_LOG[4])
    path = write_log(tmp_path / "log.jsonl", log)
    one, _ = outcomes(here("check", JOURNAL, path, "-f", "json"))
    two, _ = outcomes(run("check", JOURNAL, path, "-f", "json", "--jobs", "2"))
    assert by_id(one)["JNL-011"] == ["passed"]
    assert [(o["subject_id"], o["result"]["status"]) for o in one] == [
        (o["subject_id"], o["result"]["status"]) for o in two
    ]


@pytest.mark.parametrize(
    ("record", "error"),
    [
        (
            {"id": "JNL-011", "response": {"status": "success"}},
            "test 'JNL-011' has steps 1, 2: the line must say which it answers (\"step\": N)",
        ),
        (
            {"id": "JNL-011", "step": 3, "response": {"status": "success"}},
            "test 'JNL-011' has no step 3 (its steps: 1, 2)",
        ),
        (
            {"id": "JNL-002", "step": 1, "response": {"status": "error"}},
            "test 'JNL-002' has no multi_step, but the line gives 'step': 1",
        ),
    ],
)
def test_a_line_that_cannot_answer_a_step_is_reported(
    tmp_path: Path, record: dict[str, Any], error: str
) -> None:
    path = write_log(tmp_path / "log.jsonl", [*JOURNAL_LOG, record])
    out = here("check", JOURNAL, path, "--assume", "vault_mounted")
    assert out.returncode == 3, out.stdout + out.stderr
    assert f"log.jsonl:8: skipped: {error}" in out.stderr


def test_the_yaml_file_runs_its_three_steps(tmp_path: Path) -> None:
    def projects(*ids: int) -> dict[str, Any]:
        return {"status": "success", "results": [{"id": i} for i in ids]}

    task = {"id": 9, "due": "2026-03-01"}
    log = [
        {"id": "TODO-001", "response": {"status": "success", "task": task}},
        {"id": "TODO-010", "step": 1, "response": projects(1, 2)},
        {"id": "TODO-010", "step": 2, "response": projects(3, 4)},
        {"id": "TODO-010", "step": 3, "response": projects(5, 1)},  # 1 was on page one
        {"id": "TODO-011", "metadata": {"model": "claude-sonnet-4-20250514"},
         "response": {"status": "success"}},
    ]  # fmt: skip
    path = write_log(tmp_path / "log.jsonl", log)
    out = run("check", TODO, path, "--assume", "no_network", "-f", "json")
    assert out.returncode == 1, out.stderr
    found, summary = outcomes(out)
    assert by_id(found) == {
        "TODO-001": ["passed"],
        "TODO-010": ["failed"],
        "TODO-011": ["passed"],
        "TODO-002": ["skipped"],
    }
    (paged,) = [o for o in found if o["subject_id"] == "TODO-010"]
    step3 = paged["result"]["children"][2]
    assert [c["status"] for c in step3["children"]] == ["passed", "failed"]
    assert step3["children"][1]["children"][0]["reason"] == (
        "Value 1 at results[1].id is also in what step 1 stored as 'page_one'"
    )
    assert summary["skipped"] == 1


def test_lint_lists_what_is_kept_and_what_is_assumed() -> None:
    out = here("lint", "-v", JOURNAL, TODO, "--assume", "no_network")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"{JOURNAL}: ok (expect, 6 cases, 17 assertions)"
    assert "  JNL-003: Write without a vault: 2 assertions" in lines
    assert "    skip_if 'vault_mounted': checked unless --assume vault_mounted" in lines
    assert (
        "    not used offline: test_suites.writing.tests[2].setup, "
        "test_suites.writing.tests[2].cleanup"
    ) in lines
    assert "    steps: 1, 2" in lines
    assert f"{TODO}: ok (expect, 4 cases, 9 assertions, 1 skipped)" in lines
    assert "    skipped: skip_if 'no_network' holds (--assume)" in lines
    assert "    steps: 1, 2, 3" in lines
    assert "--assume 'no_network' names no test's skip_if" in out.stderr  # the JSON file's


def test_check_help_documents_assume() -> None:
    out = here("check", "--help")
    assert "--assume CONDITION" in out.stdout
    assert "skip_if" in out.stdout


def test_the_new_keys_are_in_the_spec_schema() -> None:
    out = here("schema", "spec")
    kinds = json.loads(out.stdout)["$defs"]
    assert kinds["kind_expect_no_overlap"]["required"] == ["type", "path"]
    assert {"path", "with", "values"} <= set(kinds["kind_expect_no_overlap"]["properties"])
    assert kinds["kind_expect_agent_used_model"]["required"] == ["type", "value"]
