"""Ensembles: several judges grade one judged check, combined by a stated rule.

Decision rows use scripted `FakeJudge`s; the wire rows use real OpenAI judges of different
models against the loopback server on 127.0.0.1, and the loader and CLI as users run them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Recorded, Reply, openai_verdict

from chatassert import Ensemble, LLMRubric, Status, from_spec
from chatassert.errors import SpecError
from chatassert.judges import OpenAIJudge, count_judge_costs
from chatassert.specs import load_assertion
from chatassert.testing import FakeJudge

P, F, E = Status.PASSED, Status.FAILED, Status.ERROR
SRC = Path(__file__).resolve().parents[2] / "src"

PASS, FAIL, DOWN = True, False, RuntimeError("judge down")


def members(*replies: Any) -> dict[str, FakeJudge]:
    return {f"j{i}": FakeJudge(default=reply) for i, reply in enumerate(replies)}


def ensemble(replies: tuple[Any, ...], rule: str = "majority", quorum: int | None = None) -> Any:
    judges = members(*replies)
    check = Ensemble(list(judges), LLMRubric("Is polite"), rule, quorum, judges=judges)
    return check.check("Please hold.")


@pytest.mark.parametrize(
    ("replies", "rule", "quorum", "status"),
    [
        ((PASS, PASS, FAIL), "majority", None, P),
        ((PASS, FAIL, FAIL), "majority", None, F),
        ((PASS, FAIL), "majority", None, F),  # a tie is no majority
        ((PASS, PASS, DOWN), "majority", None, P),  # decided despite the error
        ((FAIL, FAIL, DOWN), "majority", None, F),
        ((PASS, FAIL, DOWN), "majority", None, E),  # the error could tip it either way
        ((PASS, PASS, PASS), "unanimous", None, P),
        ((PASS, FAIL, DOWN), "unanimous", None, F),  # one failure decides
        ((PASS, PASS, DOWN), "unanimous", None, E),
        ((PASS, FAIL, FAIL), "quorum", 1, P),
        ((FAIL, FAIL, DOWN), "quorum", 2, F),  # even the errored one could not reach 2
        ((PASS, FAIL, DOWN), "quorum", 2, E),
        ((PASS, PASS, DOWN), "quorum", 2, P),
        ((FAIL, FAIL, FAIL), "quorum", 3, F),
    ],
)
def test_rules(replies: tuple[Any, ...], rule: str, quorum: int | None, status: Status) -> None:
    result = ensemble(replies, rule, quorum)
    assert result.status is status, result.render(verbose=True)
    split = result.details["split"]
    assert split == {
        "passed": replies.count(PASS),
        "failed": replies.count(FAIL),
        "error": len(replies) - replies.count(PASS) - replies.count(FAIL),
    }
    assert [c.location for c in result.children] == [f"judges[{i}]" for i in range(len(replies))]


def test_each_member_is_kept_and_disagreement_is_visible() -> None:
    result = ensemble((PASS, FAIL, PASS))
    assert result.details["disagreement"] is True
    assert [m["judge"] for m in result.details["members"]] == ["j0", "j1", "j2"]
    assert [m["status"] for m in result.details["members"]] == ["passed", "failed", "passed"]
    assert result.reason == "2 of 3 judges passed (majority); the judges disagree: j1 failed it"
    assert [c.details["judge"] for c in result.children] == ["fake", "fake", "fake"]
    assert result.score == pytest.approx(2 / 3)
    agreed = ensemble((FAIL, FAIL))
    assert agreed.details["disagreement"] is False
    assert agreed.reason == "0 of 2 judges passed (majority)"


def test_an_error_says_whether_the_rule_could_be_decided() -> None:
    decided = ensemble((PASS, PASS, DOWN))
    assert decided.reason == (
        "2 of 3 judges passed (majority); 1 gave no verdict, but the rule is decided without them"
    )
    undecided = ensemble((PASS, FAIL, DOWN))
    assert undecided.reason.startswith(
        "1 of 3 judges gave no verdict and the rule (majority) cannot be decided without them: "
        "judge fake gave no verdict: judge down"
    )
    assert undecided.details["disagreement"] is True


def test_an_unknown_member_is_an_error_naming_the_known_ones() -> None:
    judges = members(PASS, PASS)
    check = Ensemble(["j0", "j1", "nope"], LLMRubric("Is polite"), "unanimous", judges=judges)
    result = check.check("Please.")
    assert result.status is E
    assert result.children[2].details["error"] == "unknown_judge"
    assert "unknown judge 'nope'; the configured judges are j0, j1" in result.reason


def test_members_may_be_judges_and_the_threshold_applies_to_each() -> None:
    low = FakeJudge({"passed": True, "score": 0.6}, name="low")
    high = FakeJudge({"passed": True, "score": 0.95}, name="high")
    check = Ensemble([low, high], LLMRubric("Is polite", judge=FakeJudge.failing()), "quorum", 1)
    assert check.judge_names == ("low", "high")
    with count_judge_costs() as costs:
        result = check.check("Please.")
    assert result.status is P
    assert costs.requests == 2
    gated = Ensemble(
        [FakeJudge({"passed": True, "score": 0.6}), FakeJudge({"passed": True, "score": 0.95})],
        from_spec({"type": "llm_judge", "criteria": "Is polite", "min_score": 0.8}),
        "unanimous",
    )
    result = gated.check("Please.")
    assert result.status is F
    assert result.children[0].reason.startswith("score 0.6 is below min_score 0.8")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Ensemble([], LLMRubric("x")), "at least one judge"),
        (lambda: Ensemble([" "], LLMRubric("x")), "non-empty names"),
        (lambda: Ensemble(["a"], LLMRubric("x"), "most"), "rule must be one of"),
        (lambda: Ensemble(["a"], LLMRubric("x"), "quorum"), "needs 'quorum'"),
        (lambda: Ensemble(["a"], LLMRubric("x"), "quorum", 2), "from 1 to the number"),
        (lambda: Ensemble(["a"], LLMRubric("x"), "majority", 1), "only used with rule quorum"),
    ],
)
def test_bad_construction_is_refused(build: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_a_deterministic_check_is_refused() -> None:
    with pytest.raises(TypeError, match="judged assertion"):
        Ensemble(["a"], from_spec({"type": "contains", "value": "x"}))  # type: ignore[arg-type]


def test_specs_load_round_trip_and_report_problems() -> None:
    spec = (
        "{type: ensemble, judges: [a, b, c], rule: quorum, quorum: 2,"
        " assertion: {type: llm_rubric, value: Is polite}}"
    )
    judges = members(PASS, FAIL, PASS)
    check = load_assertion(spec, judges=dict(zip("abc", judges.values(), strict=True)))
    assert isinstance(check, Ensemble)
    assert check.check("Please.").status is P
    assert from_spec(check.as_spec()) == check
    assert check.as_spec()["judges"] == ["a", "b", "c"]
    with pytest.raises(SpecError) as info:
        load_assertion(
            "{type: ensemble, judges: [a], rule: quorum, quorum: 5,"
            " assertion: {type: llm_rubric, value: x}}"
        )
    assert "quorum must be from 1 to the number of judges (1), got 5" in str(info.value)
    with pytest.raises(SpecError) as info:
        load_assertion("{type: ensemble, judges: [a], rule: most, assertion: {type: contains}}")
    assert "rule" in str(info.value)


# -- over the wire ----------------------------------------------------------------------------


def _by_model(recorded: Recorded) -> Reply:
    model = recorded.body["model"]
    if model == "broken":
        return Reply({"error": "overloaded"}, status=503)
    return openai_verdict(model != "strict", 0.9 if model != "strict" else 0.2, f"{model} says")


def test_real_http_judges_of_different_models(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = _by_model
    judges = {
        "lenient": openai_judge(model="lenient", retries=0),
        "strict": openai_judge(model="strict", retries=0),
        "other": openai_judge(model="other", retries=0),
        "broken": openai_judge(model="broken", retries=0),
    }
    check = Ensemble(["lenient", "strict", "other"], LLMRubric("Is polite"), judges=judges)
    result = check.check("Please hold.")
    assert server.count == 3
    assert sorted(r.body["model"] for r in server.requests) == ["lenient", "other", "strict"]
    assert result.status is P
    assert result.details["disagreement"] is True
    assert result.reason.endswith("the judges disagree: strict failed it")
    assert [m["reason"] for m in result.details["members"]] == [
        "lenient says",
        "strict says",
        "other says",
    ]
    broken = Ensemble(["lenient", "broken"], LLMRubric("Is polite"), "unanimous", judges=judges)
    result = broken.check("Please hold.")
    assert result.status is E  # never a pass without every member's verdict
    assert "cannot be decided without them" in result.reason


def test_the_cli_checks_an_ensemble_of_configured_judges(
    tmp_path: Path, server: LoopbackServer
) -> None:
    server.default = _by_model
    (tmp_path / "suite.yaml").write_text(
        "chatassert: 1\nname: support\nassertions:\n"
        "  - type: ensemble\n    judges: [lenient, strict]\n    rule: unanimous\n"
        "    assertion: {type: llm_rubric, value: Is polite}\n",
        encoding="utf-8",
    )
    turns = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Please hold."}]
    record = {"id": "c1", "messages": turns}
    (tmp_path / "log.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    base = {"judge": "openai", "base_url": server.url + "/v1", "retries": 0}
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "CHATASSERT_JUDGE_CACHE": "off",
        "CHATASSERT_JUDGES": json.dumps(
            {"lenient": {**base, "model": "lenient"}, "strict": {**base, "model": "strict"}}
        ),
    }
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl",
         "--full-results"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert server.count == 2
    report = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    node = report[0]["result"]
    while node["name"] != "ensemble":
        node = node["children"][0]
    assert node["details"]["split"] == {"passed": 1, "failed": 1, "error": 0}
    assert node["details"]["disagreement"] is True
