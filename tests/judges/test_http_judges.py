"""The HTTP judges against a real loopback server: wire formats, verdicts and the fault matrix."""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from loopback import (
    SECRET,
    LoopbackServer,
    Reply,
    anthropic_text,
    anthropic_tool,
    openai_content,
    openai_verdict,
)

from chatassert import LLMRubric, Status, ToolCall, Turn
from chatassert.errors import UsageError
from chatassert.judges import AnthropicJudge, JudgeReplyError, OpenAIJudge
from chatassert.judges._http import _retry_after

RUBRIC = "Acknowledges the customer's frustration"
TURN = Turn(
    input="My order is late again!",
    text="I'm sorry about the delay.",
    tool_calls=[ToolCall(name="lookup_order", arguments={"id": 7})],
)


def check(judge: Any, subject: object = TURN, **kw: Any) -> Any:
    return LLMRubric(RUBRIC, judge=judge, **kw).check(subject)


# -- OpenAI-compatible: good replies ------------------------------------------------------


def test_openai_good_verdict_passes_and_records_prompt_and_raw(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(openai_verdict(True, 0.8, "apologises for the delay"))
    result = check(openai_judge())
    assert result.status is Status.PASSED
    assert result.reason == "apologises for the delay"
    assert result.score == 0.8
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    assert request.body["model"] == "judge-model"
    assert request.body["response_format"]["type"] == "json_schema"
    user = request.body["messages"][1]["content"]
    assert RUBRIC in user
    assert "My order is late again!" in user
    assert "lookup_order" in user
    assert "I'm sorry about the delay." in user
    assert result.details["prompt"] == user
    assert json.loads(result.details["raw"])["reason"] == "apologises for the delay"
    assert result.details["judge"] == "openai:judge-model"


def test_openai_failing_verdict_fails(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(openai_verdict(False, 0.1, "ignores the complaint"))
    result = check(openai_judge())
    assert result.status is Status.FAILED
    assert result.reason == "ignores the complaint"


@pytest.mark.parametrize(
    "content",
    [
        'Here is my verdict:\n```json\n{"passed": true, "score": 1, "reason": "fenced"}\n```',
        'I think {"passed": true, "score": 1, "reason": "fenced"} is right.',
        '```\n{"passed": true, "reason": "fenced"}\n```',
    ],
    ids=["fenced-json", "embedded", "fenced-bare"],
)
def test_openai_extracts_fenced_or_embedded_json(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], content: str
) -> None:
    server.push(openai_content(content))
    result = check(openai_judge())
    assert result.status is Status.PASSED
    assert result.reason == "fenced"
    assert result.details["raw"] == content


def test_min_score_and_passed_combine_as_and(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    from chatassert._judged_base import JudgedAssertion

    class Scored(LLMRubric):
        __slots__ = ()

        def __init__(self, judge: Any) -> None:
            super().__init__(RUBRIC, judge=judge)
            JudgedAssertion.__init__(self, judge=judge, min_score=0.7)

    server.push(openai_verdict(True, 0.5, "partly"))
    result = Scored(openai_judge()).check(TURN)
    assert result.status is Status.FAILED
    assert "below min_score 0.7" in result.reason


@pytest.mark.parametrize("score", ["NaN", "Infinity", "85", "-1"])
def test_a_score_outside_0_to_1_is_an_error_even_above_min_score(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], score: str
) -> None:
    from chatassert._promptkit_judged import LLMJudge

    server.push(openai_content('{"passed": true, "score": ' + score + ', "reason": "ok"}'))
    result = LLMJudge(RUBRIC, min_score=0.9, judge=openai_judge()).check(TURN)
    assert result.status is Status.ERROR
    assert "from 0 to 1" in result.reason
    assert score in result.details["raw"]
    json.dumps(result.to_dict(), allow_nan=False)


def test_per_assertion_model_and_prompt_override(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(openai_verdict())
    result = check(
        openai_judge(), model="bigger-model", prompt="Rubric={{criteria}} Reply={{response}}"
    )
    body = server.requests[0].body
    assert body["model"] == "bigger-model"
    assert body["messages"][1]["content"] == (f"Rubric={RUBRIC} Reply=I'm sorry about the delay.")
    assert result.details["prompt"] == body["messages"][1]["content"]


def test_per_judge_prompt_and_system_prompt(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(openai_verdict())
    check(
        openai_judge(
            prompt="Q: {{input}} A: {{response}} C: {{criteria}}", system_prompt="Grade strictly."
        )
    )
    messages = server.requests[0].body["messages"]
    assert messages[0] == {"role": "system", "content": "Grade strictly."}
    assert messages[1]["content"].startswith("Q: My order is late again! A: I'm sorry")


def test_unknown_prompt_placeholder_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="unknown prompt placeholder"):
        OpenAIJudge("m", prompt="{{answer}}")
    with pytest.raises(ValueError, match="unknown prompt placeholder"):
        LLMRubric(RUBRIC, prompt="{{answer}}")


def test_rejected_response_format_falls_back_to_plain_json(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(
        Reply({"error": {"message": "response_format json_schema is not supported"}}, status=400),
        openai_content('Sure. {"passed": true, "reason": "ok"}'),
        openai_verdict(),
    )
    judge = openai_judge()
    assert check(judge).status is Status.PASSED
    assert check(judge).status is Status.PASSED
    assert [("response_format" in r.body) for r in server.requests] == [True, False, False]
    assert judge.response_format == "json_schema"  # the setting (and cache key) is unchanged
    assert openai_judge()._format(1) is not None  # another judge still asks for it


@pytest.mark.parametrize("status", [400, 422])
def test_other_400s_do_not_drop_response_format(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], status: int
) -> None:
    too_long = {"error": {"message": "This model's maximum context length is 8192 tokens"}}
    server.push(Reply(too_long, status=status), openai_verdict())
    judge = openai_judge()
    result = check(judge)
    assert result.status is Status.ERROR
    assert "maximum context length" in result.reason
    assert check(judge).status is Status.PASSED
    assert [("response_format" in r.body) for r in server.requests] == [True, True]
    assert judge.response_format == "json_schema"


# -- verdicts that are errors -------------------------------------------------------------


BAD_REPLIES = {
    "missing-passed": openai_content('{"score": 1, "reason": "great"}'),
    "string-passed": openai_content('{"passed": "yes", "reason": "great"}'),
    "garbage-text": openai_content("Absolutely, this looks great to me!"),
    "refusal": openai_content(None, refusal="I can't help with grading that."),
    "content-filter": openai_content('{"passed": true}', finish_reason="content_filter"),
    "empty": openai_content(""),
    "no-choices": Reply({"choices": []}),
    "body-not-json": Reply("<html>oops</html>"),
}


@pytest.mark.parametrize("reply", list(BAD_REPLIES.values()), ids=list(BAD_REPLIES))
def test_unusable_replies_are_errors_with_the_raw_reply(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], reply: Reply
) -> None:
    server.push(reply)
    result = check(openai_judge())
    assert result.status is Status.ERROR
    assert not result.passed
    assert "raw" in result.details
    assert result.details["raw"] is not None
    assert len(server.requests) == 1  # a bad reply is not retried


# -- faults -------------------------------------------------------------------------------


def test_429_is_retried_honouring_retry_after(
    server: LoopbackServer,
    openai_judge: Callable[..., OpenAIJudge],
    caplog: pytest.LogCaptureFixture,
) -> None:
    server.push(
        Reply({"error": "slow down"}, status=429, headers={"Retry-After": "0"}),
        Reply({"error": "slow down"}, status=429, headers={"retry-after-ms": "20"}),
        openai_verdict(),
    )
    with caplog.at_level(logging.INFO, logger="chatassert.judges"):
        result = check(openai_judge())
    assert result.status is Status.PASSED
    assert len(server.requests) == 3
    assert sum("Retry-After" in m for m in caplog.messages) == 2


def test_retry_after_forms() -> None:
    assert _retry_after(httpx.Headers({"Retry-After": "3"})) == 3.0
    assert _retry_after(httpx.Headers({"retry-after-ms": "250", "Retry-After": "3"})) == 0.25
    assert _retry_after(httpx.Headers({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert _retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert _retry_after(httpx.Headers({})) is None


def test_retry_delay_grows_and_is_capped_and_honours_retry_after() -> None:
    judge = OpenAIJudge("m", backoff=1.0, max_backoff=4.0, max_retry_after=10.0)
    assert 0.5 <= judge._retry_delay(0, None) <= 1.0
    assert 1.0 <= judge._retry_delay(1, None) <= 2.0
    assert 2.0 <= judge._retry_delay(5, None) <= 4.0
    assert judge._retry_delay(0, 7.0) == 7.0
    assert judge._retry_delay(0, 60.0) == 10.0


def test_5xx_is_retried_then_passes(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(
        Reply({"error": "boom"}, status=500), Reply("bad gateway", status=502), openai_verdict()
    )
    assert check(openai_judge()).status is Status.PASSED
    assert len(server.requests) == 3


FAULTS: dict[str, tuple[Callable[[], Reply], str]] = {
    "429": (lambda: Reply({"error": "rate"}, status=429, headers={"Retry-After": "0"}), "HTTP 429"),
    "500": (lambda: Reply({"error": "boom"}, status=500), "HTTP 500"),
    "503": (lambda: Reply("unavailable", status=503), "HTTP 503"),
    # five seconds against a 0.05 s deadline: a loaded machine cannot make it look fast
    "slow": (lambda: Reply(openai_verdict().body, delay=5.0), "timed out after 0.05 s"),
    "dropped": (lambda: Reply(drop=True), "connection failed"),
}


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
def test_persistent_faults_give_up_with_an_error_naming_the_cause(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], fault: str
) -> None:
    make, cause = FAULTS[fault]
    server.default = lambda _: make()
    result = check(openai_judge(timeout=0.05 if fault == "slow" else 2.0, retries=2))
    assert result.status is Status.ERROR
    assert "gave up after 3 attempts" in result.reason
    assert cause in result.reason
    assert server.wait_for(3) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_4xx_are_not_retried(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], status: int
) -> None:
    server.default = Reply({"error": "no"}, status=status)
    result = check(openai_judge(response_format="none"))
    assert result.status is Status.ERROR
    assert f"HTTP {status}" in result.reason
    assert "not retried" in result.reason
    assert len(server.requests) == 1


def test_a_refused_connection_is_an_error() -> None:
    judge = OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", retries=1, backoff=0.001, timeout=1.0
    )
    result = check(judge)
    assert result.status is Status.ERROR
    assert "connection failed" in result.reason


def test_the_default_url_without_a_key_says_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    result = check(OpenAIJudge("gpt-4o-mini"))
    assert result.status is Status.ERROR
    assert "set the environment variable OPENAI_API_KEY" in result.reason


def test_api_keys_never_leak(
    server: LoopbackServer,
    openai_judge: Callable[..., OpenAIJudge],
    caplog: pytest.LogCaptureFixture,
) -> None:
    server.push(
        Reply({"error": f"invalid key {SECRET}"}, status=401),
        Reply(f"upstream {SECRET} failed", status=500),
        Reply(f"upstream {SECRET} failed", status=500),
        Reply(f"upstream {SECRET} failed", status=500),
    )
    judge = openai_judge(retries=2)
    with caplog.at_level(logging.DEBUG):
        first = check(judge)
        second = check(judge)
    assert server.requests[0].headers["Authorization"].endswith(SECRET)  # it was sent...
    texts = [
        repr(judge),
        str(vars(judge)),
        repr(pickle.loads(pickle.dumps(judge))),
        json.dumps(first.to_dict()),
        json.dumps(second.to_dict()),
        str(first),
        caplog.text,
    ]
    for text in texts:  # ...and shows up nowhere else
        assert SECRET not in text
    assert "[redacted]" in first.reason
    assert "[redacted]" in second.reason


@pytest.mark.parametrize(
    "reply",
    [
        Reply({"choices": [], "echo": {"key": SECRET}}),
        openai_content(f"I was told {SECRET}, so no JSON here"),
        openai_content(None, refusal=f"I won't repeat {SECRET}"),
        openai_content(json.dumps({"passed": True, "score": 1.0, "reason": f"saw {SECRET}"})),
        Reply({"choices": [{"message": {"content": ""}}], SECRET: "as a key"}),
    ],
    ids=["no-choices", "not-json", "refusal", "verdict", "empty"],
)
def test_api_keys_never_leak_through_raw_replies(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], reply: Reply
) -> None:
    server.push(reply)
    result = check(openai_judge())
    text = json.dumps(result.to_dict())
    assert SECRET not in text
    assert SECRET not in result.reason
    assert "[redacted]" in json.dumps(result.details["raw"])


def test_anthropic_raw_replies_are_redacted(
    server: LoopbackServer, anthropic_judge: Callable[..., AnthropicJudge]
) -> None:
    server.push(anthropic_text(f"my key is {SECRET}"))
    result = check(anthropic_judge())
    assert result.status is Status.ERROR
    assert SECRET not in json.dumps(result.to_dict())
    assert "[redacted]" in result.details["raw"]


def test_sync_check_inside_a_running_loop_says_to_await(
    openai_judge: Callable[..., OpenAIJudge],
) -> None:
    async def inside() -> None:
        with pytest.raises(UsageError, match="acheck"):
            check(openai_judge())

    asyncio.run(inside())


def test_one_judge_serves_many_event_loops_and_pickles(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = openai_verdict()
    judge = openai_judge()
    assert [check(judge).passed for _ in range(3)] == [True, True, True]
    assert not judge._clients  # each loop's pool was closed when its loop ended
    clone = pickle.loads(pickle.dumps(judge))
    assert check(clone).passed


# -- Anthropic ----------------------------------------------------------------------------


def test_anthropic_forces_a_tool_call_and_reads_the_verdict(
    server: LoopbackServer, anthropic_judge: Callable[..., AnthropicJudge]
) -> None:
    server.push(anthropic_tool({"passed": True, "score": 0.7, "reason": "apologises"}))
    result = check(anthropic_judge())
    assert result.status is Status.PASSED
    assert result.reason == "apologises"
    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == SECRET
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert request.body["tools"][0]["input_schema"]["required"] == ["passed", "score", "reason"]
    assert RUBRIC in request.body["messages"][0]["content"]
    assert json.loads(result.details["raw"])["reason"] == "apologises"


@pytest.mark.parametrize(
    "reply",
    [
        anthropic_tool({"score": 1, "reason": "no passed"}),
        anthropic_tool({"passed": 1, "reason": "not a bool"}),
        anthropic_text("I won't grade this.", stop_reason="refusal"),
        anthropic_text("Looks fine to me."),
        Reply({"type": "message", "content": "nope"}),
    ],
    ids=["missing-passed", "non-boolean", "refusal", "no-tool-call", "bad-content"],
)
def test_anthropic_unusable_replies_are_errors(
    server: LoopbackServer, anthropic_judge: Callable[..., AnthropicJudge], reply: Reply
) -> None:
    server.push(reply)
    result = check(anthropic_judge())
    assert result.status is Status.ERROR
    assert result.details.get("raw") is not None


def test_anthropic_text_with_json_is_accepted(
    server: LoopbackServer, anthropic_judge: Callable[..., AnthropicJudge]
) -> None:
    server.push(anthropic_text('```json\n{"passed": false, "reason": "curt"}\n```'))
    result = check(anthropic_judge())
    assert result.status is Status.FAILED
    assert result.reason == "curt"


@pytest.mark.parametrize(
    "reply",
    [
        Reply({"type": "error"}, status=529),
        Reply(drop=True),
        Reply({"error": "rate"}, status=429, headers={"retry-after": "0"}),
    ],
    ids=["overloaded", "dropped", "429"],
)
def test_anthropic_retries_transient_faults(
    server: LoopbackServer, anthropic_judge: Callable[..., AnthropicJudge], reply: Reply
) -> None:
    server.push(reply, anthropic_tool({"passed": True, "score": 1, "reason": "fine"}))
    assert check(anthropic_judge()).status is Status.PASSED
    assert len(server.requests) == 2


def test_anthropic_slow_reply_times_out(
    server: LoopbackServer, anthropic_judge: Callable[..., AnthropicJudge]
) -> None:
    server.default = lambda _: Reply(anthropic_tool({"passed": True}).body, delay=5.0)
    result = check(anthropic_judge(timeout=0.05, retries=1))
    assert result.status is Status.ERROR
    assert "gave up after 2 attempts: timed out" in result.reason


def test_reply_error_keeps_raw_and_prompt() -> None:
    exc = JudgeReplyError("bad", raw="x", prompt="p")
    assert (exc.raw, exc.prompt, str(exc)) == ("x", "p", "bad")
