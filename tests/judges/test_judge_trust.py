"""Judged verdicts a user can trust: stability of repeats, what judging cost, re-gating.

Every run here is the CLI, judged by the real OpenAI judge against the loopback server on
127.0.0.1, whose replies (verdicts, `usage` fields, faults) are scripted: repeats, costs and
re-gating each as a subprocess, their variants in this process (`run_cli_here`).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply, openai_verdict, run_cli, run_cli_here

SRC = Path(__file__).resolve().parents[2] / "src"


def verdict(passed: bool, score: float, tokens: tuple[int, int] = (100, 10)) -> Reply:
    """A verdict reply whose body reports `usage` as OpenAI does."""
    reply = openai_verdict(passed, score, "graded")
    reply.body["usage"] = {
        "prompt_tokens": tokens[0],
        "completion_tokens": tokens[1],
        "total_tokens": sum(tokens),
    }
    return reply


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A flat suite: one deterministic check and one judged check per turn, one conversation."""
    path = tmp_path / "suite.yaml"
    path.write_text(
        "- type: contains\n  value: refund\n- type: llm_rubric\n  value: Is polite\n",
        encoding="utf-8",
    )
    (tmp_path / "log.jsonl").write_text(
        json.dumps(
            {
                "id": "c1",
                "messages": [
                    {"role": "user", "content": "Where is my refund?"},
                    {"role": "assistant", "content": "Your refund is on its way."},
                ],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "prices.json").write_text(
        json.dumps({"judge-model": {"input": 2.0, "output": 10.0}}), encoding="utf-8"
    )
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- item 1: stability ------------------------------------------------------------------------


def test_repeat_flags_a_flaky_verdict_in_every_report(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(True, 0.9), verdict(False, 0.3), verdict(True, 0.8))
    done = run_cli(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--repeat", "3",
        "-o", "r.jsonl", "-o", "r.xml", "-o", "r.txt",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # the majority passed: the status follows it
    assert server.count == 3
    report = lines(tmp_path / "r.jsonl")
    case = report[0]["result"]
    repeat = next(n for n in _walk(case) if n["name"] == "repeat")
    # compact report: the flaky node passed, yet its stability is there to read
    assert repeat["status"] == "passed"
    assert report[-1]["summary"]["flaky"] == 1
    text = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert "1 flaky" in text.splitlines()[-1]
    junit = ET.parse(tmp_path / "r.xml").getroot()
    testcase = junit.find(".//testcase")
    assert testcase is not None
    skipped = testcase.find("skipped")
    assert skipped is not None
    assert skipped.get("message", "").startswith("flaky: ")
    assert "flaky: the judge passed 2 and failed 1 of 3 samples" in (skipped.text or "")
    assert junit.get("skipped") == "1"
    assert junit.get("failures") == "0"


def test_flaky_fail_makes_the_flaky_case_a_junit_failure(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(True, 0.9), verdict(False, 0.3), verdict(True, 0.8))
    done = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--repeat", "3",
        "--flaky", "fail", "-o", "r.xml", "-o", "r.jsonl", "--full-results",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    testcase = ET.parse(tmp_path / "r.xml").getroot().find(".//testcase")
    assert testcase is not None
    failure = testcase.find("failure")
    assert failure is not None
    assert failure.get("type") == "flaky"
    repeat = next(
        n for n in _walk(lines(tmp_path / "r.jsonl")[0]["result"]) if n["name"] == "repeat"
    )
    assert repeat["details"]["stability"] == "flaky"
    assert repeat["details"]["pass_rate"] == pytest.approx(2 / 3)
    # the samples are asked concurrently: which one got which scripted reply may vary
    assert sorted(s["score"] for s in repeat["details"]["samples"]) == [0.3, 0.8, 0.9]


def test_a_stable_repeat_is_not_flaky_and_a_fault_is_an_error_never_a_pass(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(True, 0.9), Reply({"error": "overloaded"}, status=503), verdict(True, 0.8))
    done = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--repeat", "3", "-o", "r.jsonl",
        "-o", "r.xml",
    )  # fmt: skip
    report = lines(tmp_path / "r.jsonl")
    repeat = next(n for n in _walk(report[0]["result"]) if n["name"] == "repeat")
    # two passes and an unanswered sample: still a majority, and stable (errors not counted)
    assert repeat["status"] == "passed"
    assert "flaky" not in report[-1]["summary"]
    assert done.returncode == 0, done.stderr
    server.push(*[Reply({"error": "down"}, status=500)] * 3)
    done = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--repeat", "3", "-o", "r.jsonl"
    )
    assert done.returncode == 3, done.stderr  # errors only: never a pass
    assert lines(tmp_path / "r.jsonl")[-1]["summary"]["error"] == 1


def test_repeat_must_be_at_least_one(tmp_path: Path, server: LoopbackServer, suite: Path) -> None:
    done = run_cli_here(tmp_path, server, "check", "suite.yaml", "log.jsonl", "--repeat", "0")
    assert done.returncode == 2
    assert "--repeat must be at least 1" in done.stderr
    assert server.count == 0


# -- item 3: cost -----------------------------------------------------------------------------


def test_costs_are_reported_per_case_and_per_run_cli(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(True, 0.9, (1200, 30)))
    done = run_cli(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--judge-prices", "prices.json",
        "-o", "r.jsonl", "-o", "r.xml", "-o", "r.txt", "-o", "r.html",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cost = 1200 * 2.0 / 1e6 + 30 * 10.0 / 1e6
    report = lines(tmp_path / "r.jsonl")
    expected = {
        "requests": 1, "cached": 0, "avoided": 0, "tokens_in": 1200, "tokens_out": 30,
    }  # fmt: skip
    assert {k: report[0]["cost"][k] for k in expected} == expected
    assert report[0]["cost"]["cost"] == pytest.approx(cost)
    assert report[-1]["summary"]["judge"]["tokens_in"] == 1200
    text = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert "judge: 1 request, 0 from cache, 0 avoided; tokens 1,200 in, 30 out; cost 0.0027" in text
    root = ET.parse(tmp_path / "r.xml").getroot()
    case_props = {
        p.get("name"): p.get("value") for p in root.findall(".//testcase/properties/property")
    }
    suite_props = {
        p.get("name"): p.get("value") for p in root.findall("./testsuite/properties/property")
    }
    assert case_props["judge.tokens_in"] == suite_props["judge.tokens_in"] == "1200"
    assert case_props["judge.requests"] == "1"
    assert "judge: 1 request," in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_cached_verdicts_are_counted_and_cost_nothing(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(True, 0.9, (500, 20)))
    cache = str(tmp_path / "verdicts.sqlite")
    first = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "a.jsonl", cache=cache
    )
    again = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "b.jsonl", cache=cache
    )
    assert first.returncode == again.returncode == 0, again.stderr
    assert server.count == 1
    assert lines(tmp_path / "a.jsonl")[0]["cost"]["requests"] == 1
    second = lines(tmp_path / "b.jsonl")[0]["cost"]
    assert (second["requests"], second["cached"], second["tokens_in"]) == (0, 1, 0)
    assert second["cost"] is None  # no price table given


def test_each_retried_request_counts_and_a_run_without_judges_reports_no_cost(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(Reply({"error": "busy"}, status=503), verdict(True, 0.9))
    env_retries = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl",
    )  # fmt: skip
    # retries are 0 here, so the 503 is the one request made, and the case errors
    assert env_retries.returncode == 3
    assert lines(tmp_path / "r.jsonl")[0]["cost"]["requests"] == 1
    (tmp_path / "plain.yaml").write_text("- type: contains\n  value: refund\n")
    done = run_cli_here(
        tmp_path, server, "check", "plain.yaml", "log.jsonl", "-o", "p.jsonl", "-o", "p.txt"
    )
    assert done.returncode == 0
    assert "cost" not in lines(tmp_path / "p.jsonl")[0]
    assert "judge:" not in (tmp_path / "p.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('{"m": {"input": -1}}', "m.input: expected a non-negative number"),
        ('{"m": {"prompt": 1}}', "m: expected {input: price, output: price}"),
        ("[1, 2]", "expected a mapping of model names to prices"),
    ],
)
def test_a_bad_price_table_is_a_usage_error(
    tmp_path: Path, server: LoopbackServer, suite: Path, table: str, problem: str
) -> None:
    (tmp_path / "bad.json").write_text(table, encoding="utf-8")
    done = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--judge-prices", "bad.json"
    )
    assert done.returncode == 2
    assert problem in done.stderr
    assert server.count == 0


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for child in node.get("children", ()):
        out += _walk(child)
    return out


# -- item 1 in the pytest plugin --------------------------------------------------------------

PLUGIN_SUITE = "- type: llm_rubric\n  value: Is polite\n"
PLUGIN_LOG = json.dumps(
    {
        "id": "c1",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Go away."},
        ],
    }
)


def _plugin_env(monkeypatch: pytest.MonkeyPatch, server: LoopbackServer) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE_MODEL", "judge-model")
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("CHATASSERT_JUDGE_RETRIES", "0")
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")


def test_the_plugin_repeats_every_judged_check_of_a_suite_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, server: LoopbackServer
) -> None:
    _plugin_env(monkeypatch, server)
    pytester.makefile(".chatassert.yaml", polite=PLUGIN_SUITE)
    pytester.makefile(".jsonl", polite=PLUGIN_LOG)
    server.push(verdict(False, 0.2), verdict(True, 0.7), verdict(False, 0.1))
    result = pytester.runpytest("--chatassert-judge", "openai", "--chatassert-repeat", "3")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*1 of 3 samples passed (majority); flaky: the judge passed 1*"])
    assert server.count == 3


def test_the_plugin_asks_once_without_repeat_and_refuses_a_repeat_of_zero(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, server: LoopbackServer
) -> None:
    _plugin_env(monkeypatch, server)
    pytester.makefile(".chatassert.yaml", polite=PLUGIN_SUITE)
    pytester.makefile(".jsonl", polite=PLUGIN_LOG)
    server.push(verdict(True, 0.9))
    result = pytester.runpytest("--chatassert-judge", "openai")
    result.assert_outcomes(passed=1)
    assert server.count == 1
    refused = pytester.runpytest("--chatassert-repeat", "0")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*--chatassert-repeat: must be at least 1, got 0*"])


# -- item 6: re-gating ------------------------------------------------------------------------


@pytest.mark.parametrize("full", [False, True])
def test_regate_recomputes_statuses_and_exit_code_without_asking_a_judge(
    tmp_path: Path, server: LoopbackServer, suite: Path, full: bool
) -> None:
    server.push(verdict(True, 0.75, (400, 20)))
    first = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl",
        *(["--full-results"] if full else []),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    judged = next(
        n for n in _walk(lines(tmp_path / "r.jsonl")[0]["result"]) if n["name"] == "llm_rubric"
    )
    assert judged["score"] == 0.75
    assert judged["details"]["threshold"] is None  # kept in the compact report too
    asked = server.count
    stricter = (run_cli if full else run_cli_here)(
        tmp_path, server, "regate", "r.jsonl", "--min-score", "llm_rubric=0.8",
        "-o", "s.jsonl", "-o", "s.xml", "-o", "s.txt",
    )  # fmt: skip
    assert server.count == asked  # no judge asked
    assert stricter.returncode == 1, stricter.stderr
    report = lines(tmp_path / "s.jsonl")
    assert report, (stricter.stderr, (tmp_path / "r.jsonl").read_text())
    case = report[0]["result"]
    assert case["status"] == "failed"
    leaf = next(n for n in _walk(case) if n["name"] == "llm_rubric")
    assert leaf["status"] == "failed"
    assert leaf["reason"] == "score 0.75 is below min_score 0.8 (re-gated)"
    assert leaf["details"]["threshold"] == 0.8
    # the selector and the case above it recombined by their own rules
    selector = next(
        n for n in case["children"] if n["name"] == "on_every_turn" and n["status"] == "failed"
    )
    assert selector["reason"].startswith(
        "1 of 1 turns failed (turns[0]); first: turns[0]: score 0.75"
    )
    assert report[0]["cost"]["tokens_in"] == 400  # the stored cost is kept
    assert report[-1]["summary"]["failed"] == 1
    assert ET.parse(tmp_path / "s.xml").getroot().get("failures") == "1"
    # and back: a looser threshold passes again, from the re-gated report
    looser = run_cli_here(
        tmp_path, server, "regate", "s.jsonl", "--min-score", "llm_rubric=0.7", "-o", "t.jsonl"
    )
    assert looser.returncode == 0, looser.stderr
    leaf = next(
        n for n in _walk(lines(tmp_path / "t.jsonl")[0]["result"]) if n["name"] == "llm_rubric"
    )
    assert leaf["status"] == "passed"


def test_regate_keeps_what_the_judge_failed_or_could_not_decide(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(False, 0.9))
    run_cli_here(tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "f.jsonl")
    done = run_cli_here(
        tmp_path, server, "regate", "f.jsonl", "--min-score", "llm_rubric=0.1", "-o", "g.jsonl"
    )
    assert done.returncode == 1  # the judge said no: no threshold makes it a pass
    server.push(Reply({"error": "down"}, status=500))
    run_cli_here(tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "e.jsonl")
    done = run_cli_here(
        tmp_path, server, "regate", "e.jsonl", "--min-score", "llm_rubric=0.1", "-o", "h.jsonl"
    )
    assert done.returncode == 3  # no verdict: still an error, never a pass
    leaf = next(
        n for n in _walk(lines(tmp_path / "h.jsonl")[0]["result"]) if n["name"] == "llm_rubric"
    )
    assert leaf["status"] == "error"


def test_regate_recombines_a_repeat_by_its_aggregate(
    tmp_path: Path, server: LoopbackServer, suite: Path
) -> None:
    server.push(verdict(True, 0.9), verdict(True, 0.6), verdict(True, 0.65))
    done = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--repeat", "3", "-o", "r.jsonl"
    )
    assert done.returncode == 0, done.stderr
    again = run_cli_here(
        tmp_path, server, "regate", "r.jsonl", "--min-score", "llm_rubric=0.7", "-o", "s.jsonl"
    )
    assert again.returncode == 1  # 1 of 3 samples now passes: no majority
    repeat = next(
        n for n in _walk(lines(tmp_path / "s.jsonl")[0]["result"]) if n["name"] == "repeat"
    )
    assert repeat["status"] == "failed"
    assert repeat["details"]["stability"] == "flaky"
    assert repeat["reason"].startswith("1 of 3 samples passed (majority); flaky")


@pytest.mark.parametrize(
    ("option", "problem"),
    [("llm_rubric", "expected NAME=SCORE"), ("llm_rubric=2", "SCORE from 0 to 1")],
)
def test_regate_refuses_a_bad_threshold(
    tmp_path: Path, server: LoopbackServer, option: str, problem: str
) -> None:
    (tmp_path / "r.jsonl").write_text('{"summary": {}}\n', encoding="utf-8")
    done = run_cli_here(tmp_path, server, "regate", "r.jsonl", "--min-score", option)
    assert done.returncode == 2
    assert problem in done.stderr
