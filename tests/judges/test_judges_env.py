"""Judge configuration from environment variables, and the import boundary of httpx."""

from __future__ import annotations

import subprocess
import sys

import pytest
from loopback import LoopbackServer, anthropic_tool, openai_verdict

from chatassert import LLMRubric, Status
from chatassert.judges import (
    AnthropicJudge,
    BatchingJudge,
    CachedJudge,
    OpenAIJudge,
    env_concurrency,
    judge_from_env,
)


def test_import_chatassert_does_not_import_httpx() -> None:
    code = "import chatassert, sys; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_env_configured_judge_is_used_by_judged_assertions(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE", "openai")
    monkeypatch.setenv("CHATASSERT_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("CHATASSERT_JUDGE_API_KEY_ENV", "MY_JUDGE_KEY")
    monkeypatch.setenv("MY_JUDGE_KEY", "k-123456")
    server.default = openai_verdict(True, 1.0, "fine")
    assert LLMRubric("Is polite").check("Please.").status is Status.PASSED
    assert LLMRubric("Is polite", model="override").check("Please.").status is Status.PASSED
    assert [r.body["model"] for r in server.requests] == ["env-model", "override"]
    assert server.requests[0].headers["Authorization"] == "Bearer k-123456"
    again = LLMRubric("Is polite").check("Please.")  # cached by default
    assert again.passed
    assert len(server.requests) == 2


def test_anthropic_from_env(server: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE", "Anthropic")
    monkeypatch.setenv("CHATASSERT_JUDGE_MODEL", "claude-x")
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    server.default = anthropic_tool({"passed": False, "score": 0.0, "reason": "curt"})
    result = LLMRubric("Is polite").check("No.")
    assert result.status is Status.FAILED
    assert server.requests[0].path == "/v1/messages"


def test_env_options_build_the_judge(tmp_path: object) -> None:
    env = {
        "CHATASSERT_JUDGE": "openai",
        "CHATASSERT_JUDGE_MODEL": "m",
        "CHATASSERT_JUDGE_TIMEOUT": "5",
        "CHATASSERT_JUDGE_RETRIES": "4",
        "CHATASSERT_JUDGE_CACHE": f"{tmp_path}/c.sqlite3",
        "CHATASSERT_JUDGE_BATCH": "1",
    }
    judge = judge_from_env(environ=env)
    assert isinstance(judge, BatchingJudge)
    assert isinstance(judge.inner, CachedJudge)
    inner = judge.inner.inner
    assert isinstance(inner, OpenAIJudge)
    assert (inner.timeout, inner.retries) == (5.0, 4)
    assert judge_from_env(environ=env) is judge  # one judge per configuration
    off = judge_from_env(
        environ={**env, "CHATASSERT_JUDGE_CACHE": "off", "CHATASSERT_JUDGE_BATCH": "0"}
    )
    assert isinstance(off, OpenAIJudge)
    anthropic = judge_from_env("c", environ={"CHATASSERT_JUDGE": "anthropic"}, cache=False)
    assert isinstance(anthropic, AnthropicJudge)
    assert anthropic.model == "c"
    assert env_concurrency({"CHATASSERT_JUDGE_CONCURRENCY": "8"}) == 8
    assert env_concurrency({}) == 32


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "set CHATASSERT_JUDGE to openai or anthropic"),
        ({"CHATASSERT_JUDGE": "gemini"}, "CHATASSERT_JUDGE: unknown judge 'gemini'; the judges"),
        ({"CHATASSERT_JUDGE": "openai"}, "set CHATASSERT_JUDGE_MODEL"),
        (
            {
                "CHATASSERT_JUDGE": "openai",
                "CHATASSERT_JUDGE_MODEL": "m",
                "CHATASSERT_JUDGE_TIMEOUT": "soon",
            },
            "CHATASSERT_JUDGE_TIMEOUT must be a number",
        ),
        *(
            (
                {"CHATASSERT_JUDGE": "openai", "CHATASSERT_JUDGE_MODEL": "m", name: value},
                f"{name} must be {words}",
            )
            for name, value, words in [
                ("CHATASSERT_JUDGE_TIMEOUT", "inf", "a finite number"),
                ("CHATASSERT_JUDGE_TIMEOUT", "nan", "a finite number"),
                ("CHATASSERT_JUDGE_TIMEOUT", "0", "more than 0 seconds"),
                ("CHATASSERT_JUDGE_RETRIES", "inf", "a finite number"),
            ]
        ),
    ],
)
def test_bad_configuration_says_what_to_set(env: dict[str, str], message: str) -> None:
    from chatassert.errors import JudgeError

    with pytest.raises(JudgeError, match=message):
        judge_from_env(environ=env)


def test_a_misconfigured_environment_is_an_error_result(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE", "openai")
    result = LLMRubric("Is polite").check("Please.")
    assert result.status is Status.ERROR
    assert "CHATASSERT_JUDGE_MODEL" in result.reason


def test_the_assertions_model_is_enough_without_a_judge_model_variable(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENV_VARS: CHATASSERT_JUDGE_MODEL is "the judge model (a per-assertion model
    overrides it)", so an assertion with its own model needs no such variable."""
    monkeypatch.setenv("CHATASSERT_JUDGE", "openai")
    monkeypatch.delenv("CHATASSERT_JUDGE_MODEL", raising=False)
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    server.default = openai_verdict(True, 1.0, "fine")
    result = LLMRubric("Is polite", model="own-model").check("Please.")
    assert (result.status, result.details["judge"]) == (Status.PASSED, "openai:own-model")
    assert [r.body["model"] for r in server.requests] == ["own-model"]
