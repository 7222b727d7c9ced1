"""The chatassert_judge and chatassert_load fixtures."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def strict(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for name in ("CHATASSERT_JUDGE", "CHATASSERT_JUDGE_MODEL", "CHATASSERT_JUDGE_CACHE"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    return pytester


def test_the_judge_fixture_is_a_passing_fake_by_default(strict: pytest.Pytester) -> None:
    strict.makepyfile(
        """
        from chatassert import LLMRubric
        from chatassert.testing import FakeJudge, assert_passes

        def test_polite(chatassert_judge):
            assert isinstance(chatassert_judge, FakeJudge)
            assert_passes(LLMRubric("Is polite", judge=chatassert_judge), "Thank you!")
            assert chatassert_judge.requests[0].criteria == "Is polite"
        """
    )
    strict.runpytest().assert_outcomes(passed=1)


def test_a_real_judge_without_a_model_fails_at_setup_saying_what_to_set(
    strict: pytest.Pytester,
) -> None:
    strict.makepyfile(
        """
        def test_uses_judge(chatassert_judge):
            pass
        """
    )
    result = strict.runpytest("--chatassert-judge", "openai")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--chatassert-judge openai: *CHATASSERT_JUDGE_MODEL*"])
    assert "During handling of the above exception" not in result.stdout.str()  # said once


def test_the_real_judge_is_built_from_the_environment_and_option(
    strict: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    strict.makepyfile(
        """
        def test_uses_judge(chatassert_judge):
            assert type(chatassert_judge).__name__ == "AnthropicJudge"
            assert chatassert_judge.model == "claude-test"
        """
    )
    result = strict.runpytest(
        "--chatassert-judge", "anthropic", "--chatassert-judge-model", "claude-test"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["chatassert: judge: anthropic"])


def test_the_loader_reads_json_and_jsonl_relative_to_the_test(strict: pytest.Pytester) -> None:
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "18C"},
        {"role": "assistant", "content": "It is 18°C in Paris."},
    ]
    data = strict.mkdir("data")
    (data / "one.json").write_text(json.dumps({"id": "w1", "messages": messages}))
    (data / "log.jsonl").write_text(
        "\n".join(json.dumps({"id": f"w{i}", "messages": messages}) for i in range(3)) + "\n"
    )
    strict.makepyfile(
        """
        import pytest
        from chatassert import ContainsFunctionCall, OnLastTurn
        from chatassert._errors import TranscriptError
        from chatassert.testing import assert_passes

        def test_load(chatassert_load):
            talk = chatassert_load("data/one.json")
            assert talk.id == "w1"
            assert_passes(OnLastTurn(ContainsFunctionCall("get_weather", {"city": "Paris"})), talk)
            assert [c.id for c in chatassert_load.all("data/log.jsonl")] == ["w0", "w1", "w2"]
            with pytest.raises(TranscriptError, match="holds 3 conversations, not one"):
                chatassert_load("data/log.jsonl")
        """
    )
    strict.runpytest().assert_outcomes(passed=1)
