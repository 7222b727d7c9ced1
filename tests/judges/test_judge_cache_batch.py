"""The verdict cache, Repeat, batch checking with bounded concurrency, and grading together."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Recorded, Reply, openai_content, openai_verdict

from chatassert import AllOf, Contains, LLMRubric, Repeat, Status, from_spec
from chatassert.judges import (
    BatchingJudge,
    CachedJudge,
    FunctionJudge,
    JudgeRequest,
    OpenAIJudge,
    Verdict,
    VerdictCache,
    check_all,
    check_many,
    limit_judges,
)
from chatassert.testing import FakeJudge

# -- cache --------------------------------------------------------------------------------


def test_cached_verdicts_are_served_without_requests(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], tmp_path: Path
) -> None:
    server.default = openai_verdict(True, 0.9, "polite")
    judge = CachedJudge(openai_judge(), tmp_path / "cache.sqlite3")
    first = LLMRubric("Is polite", judge=judge).check("Please.")
    again = CachedJudge(openai_judge(), tmp_path / "cache.sqlite3")  # a new process, say
    second = LLMRubric("Is polite", judge=again).check("Please.")
    assert len(server.requests) == 1
    assert first == second
    assert second.details["prompt"]
    assert second.details["raw"]
    assert (again.hits, again.misses) == (1, 0)


def test_the_key_covers_prompt_model_params_and_sample(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], tmp_path: Path
) -> None:
    server.default = openai_verdict()
    path = tmp_path / "cache.sqlite3"
    judge = CachedJudge(openai_judge(), path)
    LLMRubric("Is polite", judge=judge).check("Please.")
    LLMRubric("Is polite", judge=judge).check("Please!")  # other response
    LLMRubric("Is kind", judge=judge).check("Please.")  # other rubric
    LLMRubric("Is polite", judge=judge, model="other").check("Please.")  # other model
    LLMRubric("Is polite", judge=CachedJudge(openai_judge(temperature=0.7), path)).check(
        "Please."
    )  # other parameters
    LLMRubric("Is polite", judge=judge).check("Please.")  # a hit
    assert len(server.requests) == 5


def test_errors_are_never_cached(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], tmp_path: Path
) -> None:
    server.push(openai_content("not json"), openai_verdict())
    judge = CachedJudge(openai_judge(), tmp_path / "c.sqlite3")
    assert LLMRubric("Is polite", judge=judge).check("Hi").status is Status.ERROR
    assert LLMRubric("Is polite", judge=judge).check("Hi").status is Status.PASSED
    assert LLMRubric("Is polite", judge=judge).check("Hi").status is Status.PASSED
    assert len(server.requests) == 2


def test_a_disabled_cache_passes_everything_through(tmp_path: Path) -> None:
    fake = FakeJudge.passing()
    judge = CachedJudge(fake, tmp_path / "c.sqlite3", enabled=False)
    for _ in range(2):
        LLMRubric("Is polite", judge=judge).check("Hi")
    assert len(fake.requests) == 2
    assert not (tmp_path / "c.sqlite3").exists()


def test_an_unreadable_entry_is_a_miss(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path / "c.sqlite3")
    cache.put("k", Verdict(True, None, "ok", {"any": "raw"}, "prompt"))
    assert cache.get("k") == Verdict(True, None, "ok", {"any": "raw"}, "prompt")
    cache._connect().execute('UPDATE verdicts SET verdict = \'{"passed": "yes"}\'')
    assert cache.get("k") is None
    assert len(cache) == 1
    cache.clear()
    assert len(cache) == 0
    cache.close()


def _strict(request: JudgeRequest) -> bool:
    return False


def _lenient(request: JudgeRequest) -> bool:
    return True


def test_function_judges_are_keyed_by_module_and_qualified_name(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    lenient = CachedJudge(FunctionJudge(_lenient), path)
    strict = CachedJudge(FunctionJudge(_strict), path)
    assert lenient.name == f"function:{__name__}._lenient"
    assert LLMRubric("Is polite", judge=lenient).check("yo").status is Status.PASSED
    assert LLMRubric("Is polite", judge=strict).check("yo").status is Status.FAILED
    assert (strict.hits, strict.misses) == (0, 1)


def test_an_anonymous_lambda_is_not_cached_until_named(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with pytest.raises(ValueError, match="name it"):
        CachedJudge(FunctionJudge(lambda request: True), path)
    with pytest.raises(ValueError, match="name it"):
        CachedJudge(BatchingJudge(FunctionJudge(lambda request: True)), path)
    lenient = CachedJudge(FunctionJudge(lambda request: True, name="lenient"), path)
    strict = CachedJudge(FunctionJudge(lambda request: False, name="strict"), path)
    assert LLMRubric("Is polite", judge=lenient).check("yo").status is Status.PASSED
    assert LLMRubric("Is polite", judge=strict).check("yo").status is Status.FAILED


@pytest.mark.parametrize(
    "other",
    [
        {"base_url": "http://127.0.0.1:9/v1"},
        {"system_prompt": "Grade strictly."},
        {"temperature": 1.0},
        {"headers": {"X-Route": "model-b"}},
    ],
    ids=["base-url", "system-prompt", "temperature", "headers"],
)
def test_batching_judges_over_different_judges_get_different_keys(
    tmp_path: Path, other: dict[str, Any]
) -> None:
    def key(**options: Any) -> str:
        inner = OpenAIJudge("m", **{"base_url": "http://127.0.0.1:8/v1", **options})
        judge = CachedJudge(BatchingJudge(inner), tmp_path / "c.sqlite3")
        request = JudgeRequest("Is polite", "Hi")
        return judge._key(request, judge._render(request))

    assert key() == key()
    assert key() != key(**other)


def test_a_judge_without_cache_params_is_keyed_by_its_repr(tmp_path: Path) -> None:
    class Graded:
        def __init__(self, strict: bool) -> None:
            self.name = "graded"
            self.strict = strict

        async def judge(self, request: JudgeRequest) -> Verdict:
            return Verdict(not self.strict)

        def __repr__(self) -> str:
            return f"Graded(strict={self.strict})"

    path = tmp_path / "c.sqlite3"
    for wrap in (lambda judge: judge, BatchingJudge):
        lenient = CachedJudge(wrap(Graded(strict=False)), path)
        strict = CachedJudge(wrap(Graded(strict=True)), path)
        assert LLMRubric("Is polite", judge=lenient).check("yo").status is Status.PASSED
        assert LLMRubric("Is polite", judge=strict).check("yo").status is Status.FAILED
        path = tmp_path / "other.sqlite3"


_WRITER = """
import sys
from chatassert.judges import Verdict
from chatassert.judges import VerdictCache
cache = VerdictCache(sys.argv[1])
for i in range(50):
    cache.put(f"{sys.argv[2]}-{i}", Verdict(i % 2 == 0, i / 200, "r"))
    assert cache.get(f"{sys.argv[2]}-{i}") is not None
"""


def test_the_cache_is_safe_for_concurrent_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite3")
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, path, name]) for name in ("a", "b", "c")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    cache = VerdictCache(path)
    assert len(cache) == 150
    assert cache.get("b-10") == Verdict(True, 0.05, "r")


# -- Repeat -------------------------------------------------------------------------------


def test_repeat_takes_independent_samples_each_cached(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], tmp_path: Path
) -> None:
    server.push(openai_verdict(True), openai_verdict(False), openai_verdict(True))
    judge = CachedJudge(openai_judge(temperature=0.8), tmp_path / "c.sqlite3")
    check = Repeat(3, LLMRubric("Is polite", judge=judge))
    first = check.check("Please.")
    second = check.check("Please.")
    assert first.status is Status.PASSED
    assert first.reason == (
        "2 of 3 samples passed (majority); flaky: the judge passed 2 and failed 1 of 3 samples"
    )
    assert [c.status for c in first.children] == [c.status for c in second.children]
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("replies", "aggregate", "status"),
    [
        ([True, False, False], "majority", Status.FAILED),
        ([True, RuntimeError("down"), False], "majority", Status.ERROR),
        ([True, True, RuntimeError("down")], "majority", Status.PASSED),
        ([True, True, False], "all", Status.FAILED),
        ([True, RuntimeError("down"), True], "all", Status.ERROR),
        ([False, False, True], "any", Status.PASSED),
        ([False, RuntimeError("down"), False], "any", Status.ERROR),
        ([False, False, False], "any", Status.FAILED),
        (
            [{"passed": True, "score": 0.9}, {"passed": False, "score": 0.4}, True],
            "mean",
            Status.PASSED,
        ),
        (
            [{"passed": False, "score": 0.1}, {"passed": False, "score": 0.2}, True],
            "mean",
            Status.FAILED,
        ),
        ([True, RuntimeError("down"), True], "mean", Status.ERROR),
    ],
)
def test_repeat_aggregates(replies: list[Any], aggregate: str, status: Status) -> None:
    result = Repeat(3, LLMRubric("x", judge=FakeJudge(*replies)), aggregate).check("y")
    assert result.status is status
    assert len(result.children) == 3


def test_repeat_round_trips_and_validates() -> None:
    check = Repeat(5, LLMRubric("Is polite", model="m"), aggregate="all", message="polite")
    assert from_spec(check.as_spec()) == check
    assert check.as_spec()["type"] == "repeat"
    with pytest.raises(ValueError, match="n >= 1"):
        Repeat(0, LLMRubric("x"))
    with pytest.raises(TypeError, match="judged assertion"):
        Repeat(2, Contains("x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="aggregate"):
        Repeat(2, LLMRubric("x"), aggregate="median")


# -- batch checking -----------------------------------------------------------------------


def test_check_many_bounds_judge_requests(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = lambda _: Reply(openai_verdict().body, delay=0.02)
    check = LLMRubric("Is polite", judge=openai_judge())
    results = asyncio.run(check_many(check, [f"Please {i}" for i in range(24)], concurrency=4))
    assert [r.status for r in results] == [Status.PASSED] * 24
    assert server.max_in_flight <= 4
    assert len(server.requests) == 24
    assert "Please 0" in results[0].details["prompt"]
    assert "Please 23" in results[23].details["prompt"]


def test_check_many_keeps_at_most_twice_its_concurrency_of_checks_under_way() -> None:
    # Starting every check at once had each render its prompt and look in the cache before
    # the first request went out (0.15 s for 1,000 checks); now checks start as others end.
    under_way = peak = 0

    def grade(request: JudgeRequest) -> Awaitable[bool]:
        nonlocal under_way, peak
        under_way += 1  # the check has reached its judge
        peak = max(peak, under_way)

        async def answer() -> bool:
            nonlocal under_way
            await asyncio.sleep(0)
            under_way -= 1
            return True

        return answer()

    from chatassert.judges import FunctionJudge

    rubric = LLMRubric("Is polite", judge=FunctionJudge(grade))
    results = asyncio.run(check_many(rubric, [f"Please {i}" for i in range(40)], concurrency=3))
    assert [r.status for r in results] == [Status.PASSED] * 40
    assert peak == 6


def test_a_judge_limit_spans_several_synchronous_checks(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = lambda _: Reply(openai_verdict().body, delay=0.02)
    judge = openai_judge()
    check = AllOf(*(LLMRubric(f"Rubric {i}", judge=judge) for i in range(3)))
    with limit_judges(1):
        results = [check.check(subject) for subject in ("one", "two", "three")]
    assert [r.status for r in results] == [Status.PASSED] * 3, [r.reason for r in results]
    assert len(server.requests) == 9
    assert server.max_in_flight == 1  # still bounded within each check's own event loop


def test_check_all_keeps_order_and_runs_deterministic_checks_without_judges() -> None:
    seen: list[str] = []

    async def slow(request: JudgeRequest) -> bool:
        seen.append(request.response)
        await asyncio.sleep(0.01)
        return True

    from chatassert.judges import FunctionJudge

    rubric = LLMRubric("Is polite", judge=FunctionJudge(slow))
    pairs = [(rubric, "a"), (Contains("x"), "x"), (rubric, "b"), (Contains("x"), "y")]
    results = asyncio.run(check_all(pairs, concurrency=1))
    assert [r.status for r in results] == [
        Status.PASSED,
        Status.PASSED,
        Status.PASSED,
        Status.FAILED,
    ]
    assert sorted(seen) == ["a", "b"]


def test_check_many_over_conversations_of_a_suite_case() -> None:
    from chatassert import Conversation, OnEveryTurn, Turn

    judge = FakeJudge(default=True)
    check = OnEveryTurn(LLMRubric("Is polite", judge=judge))
    chats = [Conversation(turns=[Turn(text=f"t{i}"), Turn(text=f"u{i}")]) for i in range(5)]
    results = asyncio.run(check_many(check, chats, concurrency=2))
    assert all(r.passed for r in results)
    assert len(judge.requests) == 10


# -- several rubrics, one call ------------------------------------------------------------


def _many_reply(recorded: Recorded) -> Reply:
    user = recorded.body["messages"][1]["content"]
    count = user.split("</criteria>")[0].count("\n") - 1
    verdicts = [
        {
            "criterion": i,
            "passed": i != 2,
            "score": 1.0 if i != 2 else 0.0,
            "reason": f"criterion {i}",
        }
        for i in range(1, count + 1)
    ]
    return openai_content(json.dumps({"verdicts": verdicts}))


def test_rubrics_about_one_subject_are_graded_in_one_request(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = _many_reply
    judge = BatchingJudge(openai_judge())
    check = (
        LLMRubric("Is polite", judge=judge)
        & LLMRubric("Is short", judge=judge)
        & LLMRubric("Mentions a refund", judge=judge)
    )
    result = asyncio.run(check.acheck("Sorry, refund sent."))
    assert len(server.requests) == 1
    body = server.requests[0].body
    assert body["response_format"]["json_schema"]["name"] == "verdicts"
    user = body["messages"][1]["content"]
    assert "1. Is polite\n2. Is short\n3. Mentions a refund" in user
    assert [c.status for c in result.children] == [Status.PASSED, Status.FAILED, Status.PASSED]
    assert [c.reason for c in result.children] == ["criterion 1", "criterion 2", "criterion 3"]
    assert judge.batches == 1


def test_a_missing_criterion_is_an_error_for_that_rubric_only(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.push(
        openai_content(
            json.dumps({"verdicts": [{"criterion": 1, "passed": True, "score": 1, "reason": "ok"}]})
        )
    )
    judge = BatchingJudge(openai_judge())
    check = LLMRubric("Is polite", judge=judge) & LLMRubric("Is short", judge=judge)
    result = asyncio.run(check.acheck("Hi"))
    assert [c.status for c in result.children] == [Status.PASSED, Status.ERROR]
    assert "no verdict for criterion 2" in result.children[1].reason


def _entry(criterion: Any = None, passed: bool = True) -> dict[str, Any]:
    entry: dict[str, Any] = {"passed": passed, "score": float(passed), "reason": f"{passed}"}
    if criterion is not None:
        entry["criterion"] = criterion
    return entry


@pytest.mark.parametrize(
    "verdicts",
    [
        [_entry(0, False), _entry(1, True)],  # numbered from 0
        [_entry(2, False), _entry(3, True)],  # past the last criterion
        [_entry(1, True), _entry(1, False)],  # one criterion twice
        [_entry(2, False), _entry(None, True)],  # numbered and unnumbered mixed
        [_entry(None, True), _entry(None, False), _entry(None, True)],  # more than asked
        [_entry("1", True), _entry("2", True)],  # not integers
    ],
    ids=["zero-based", "past-the-end", "duplicate", "mixed", "too-many", "strings"],
)
def test_an_ambiguous_batch_reply_is_an_error_for_every_rubric(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], verdicts: list[Any]
) -> None:
    server.push(openai_content(json.dumps({"verdicts": verdicts})))
    judge = BatchingJudge(openai_judge())
    check = LLMRubric("Is polite", judge=judge) & LLMRubric("Is short", judge=judge)
    result = asyncio.run(check.acheck("Hi"))
    assert judge.batches == 1
    assert [c.status for c in result.children] == [Status.ERROR, Status.ERROR]
    assert "cannot be matched to the 2 criteria" in result.children[0].reason


def test_batched_verdicts_are_cached_and_faults_error_every_rubric(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], tmp_path: Path
) -> None:
    server.default = _many_reply
    judge = BatchingJudge(CachedJudge(openai_judge(), tmp_path / "c.sqlite3"))
    check = LLMRubric("Is polite", judge=judge) & LLMRubric("Is short", judge=judge)
    asyncio.run(check.acheck("Hi"))
    again = asyncio.run(check.acheck("Hi"))
    assert len(server.requests) == 1
    assert [c.status for c in again.children] == [Status.PASSED, Status.FAILED]
    server.default = Reply({"error": "boom"}, status=500)
    failed = asyncio.run(check.acheck("Other subject"))
    assert [c.status for c in failed.children] == [Status.ERROR, Status.ERROR]


@pytest.mark.parametrize(
    "options",
    [
        {"prompt": "POLICY v7: {{criteria}}\nAgent: {{response}}"},
        {"system_prompt": "Grade strictly."},
    ],
    ids=["prompt", "system-prompt"],
)
@pytest.mark.parametrize("cached", [False, True], ids=["plain", "cached"])
def test_a_judge_with_its_own_prompts_grades_each_rubric_alone_with_them(
    server: LoopbackServer,
    openai_judge: Callable[..., OpenAIJudge],
    tmp_path: Path,
    options: dict[str, str],
    cached: bool,
) -> None:
    server.default = openai_verdict(True, 1.0, "fine")
    inner = openai_judge(**options)
    judge = BatchingJudge(CachedJudge(inner, tmp_path / "c.sqlite3") if cached else inner)
    check = LLMRubric("Is polite", judge=judge) & LLMRubric("Is short", judge=judge)
    result = asyncio.run(check.acheck("hello"))
    assert result.status is Status.PASSED
    assert judge.batches == 0
    sent = sorted(
        (r.body["messages"][0]["content"], r.body["messages"][1]["content"])
        for r in server.requests
    )
    rubrics = ("Is polite", "Is short")
    expected = [(inner._system(1), inner.render(JudgeRequest(c, "hello"))) for c in rubrics]
    assert sent == sorted(expected)  # the judge's own system prompt and template, one by one


def test_judge_many_of_a_judge_with_its_own_prompts_uses_them(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = openai_verdict(True, 1.0, "fine")
    judge = openai_judge(prompt="Rule: {{criteria}} / {{response}}", system_prompt="Be strict.")
    requests = [JudgeRequest("Is polite", "hello"), JudgeRequest("Is short", "hello")]
    verdicts = asyncio.run(judge.judge_many(requests))
    assert [v.passed for v in verdicts if isinstance(v, Verdict)] == [True, True]
    assert sorted(r.body["messages"][1]["content"] for r in server.requests) == [
        "Rule: Is polite / hello",
        "Rule: Is short / hello",
    ]
    assert {r.body["messages"][0]["content"] for r in server.requests} == {"Be strict."}


def test_a_cancelled_error_inside_a_batch_is_an_error_for_every_rubric() -> None:
    class Interrupted:
        name = "interrupted"

        async def judge(self, request: JudgeRequest) -> Verdict:
            return Verdict(True)

        async def judge_many(self, requests: list[JudgeRequest]) -> list[Verdict]:
            future = asyncio.get_running_loop().create_future()
            future.cancel()  # an inner future was cancelled, not the batch
            verdicts: list[Verdict] = await future
            return verdicts

    judge = BatchingJudge(Interrupted())

    async def main() -> list[Any]:
        requests = [JudgeRequest("Is polite", "Hi"), JudgeRequest("Is short", "Hi")]
        return await asyncio.gather(*(judge.judge(r) for r in requests), return_exceptions=True)

    outcomes = asyncio.run(main())
    assert [type(o).__name__ for o in outcomes] == ["JudgeError", "JudgeError"]
    assert "request was cancelled" in str(outcomes[0])


def test_different_subjects_are_not_graded_together(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = openai_verdict()
    judge = BatchingJudge(openai_judge())
    results = asyncio.run(check_many(LLMRubric("Is polite", judge=judge), ["a", "b", "c"]))
    assert all(r.passed for r in results)
    assert len(server.requests) == 3
    assert judge.batches == 0


def test_anthropic_grades_several_rubrics_in_one_tool_call(
    server: LoopbackServer, tmp_path: Path
) -> None:
    from loopback import anthropic_tool

    from chatassert.judges import AnthropicJudge

    server.push(
        anthropic_tool(
            {
                "verdicts": [
                    {"criterion": 2, "passed": False, "score": 0.0, "reason": "too long"},
                    {"criterion": 1, "passed": True, "score": 1.0, "reason": "polite"},
                ]
            }
        )
    )
    judge = BatchingJudge(AnthropicJudge("claude-test", base_url=server.url, backoff=0.001))
    check = LLMRubric("Is polite", judge=judge) & LLMRubric("Is short", judge=judge)
    result = asyncio.run(check.acheck("Please, kindly, if you would..."))
    assert [c.reason for c in result.children] == ["polite", "too long"]
    schema = server.requests[0].body["tools"][0]["input_schema"]
    assert "verdicts" in schema["properties"]


def test_wrapped_judges_and_their_assertions_pickle(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge], tmp_path: Path
) -> None:
    import pickle

    server.default = openai_verdict(True, 1.0, "fine")
    judge = BatchingJudge(CachedJudge(openai_judge(), tmp_path / "c.sqlite3"))
    check = LLMRubric("Is polite", judge=judge)
    assert check.check("Hi").passed
    clone = pickle.loads(pickle.dumps(check))
    assert clone.check("Hi").passed
    assert len(server.requests) == 1  # the clone reads the same cache file


def test_a_judge_closes_its_pool_when_asked(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = openai_verdict()

    async def main() -> bool:
        async with openai_judge() as judge:
            result = await LLMRubric("Is polite", judge=judge).acheck("Hi")
            assert judge._clients
        assert not judge._clients
        return result.passed

    assert asyncio.run(main())
