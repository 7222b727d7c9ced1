"""The verdict store protocol: CachedJudge over any store, and the store a run shares with every
judge built from the environment (`use_verdict_store`)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply, openai_verdict

from chatassert import LLMRubric, Status
from chatassert.judges import (
    CachedJudge,
    Verdict,
    VerdictCache,
    VerdictStore,
    judge_from_env,
    use_verdict_store,
    verdict_store,
)
from chatassert.judges._env import cache_setting
from chatassert.testing import FakeJudge


class DictStore:
    """A store in a dict that records what CachedJudge asked of it."""

    def __init__(self) -> None:
        self.verdicts: dict[str, Verdict] = {}
        self.calls: list[str] = []

    def get(self, key: str) -> Verdict | None:
        self.calls.append("get")
        return self.verdicts.get(key)

    async def aget(self, key: str) -> Verdict | None:
        self.calls.append("aget")
        return self.verdicts.get(key)

    def put_many(self, items: Sequence[tuple[str, Verdict]]) -> None:
        self.calls.append("put_many")
        self.verdicts.update(items)

    def abandon(self, key: str) -> None:
        self.calls.append("abandon")

    def close(self) -> None:
        self.calls.append("close")


def test_cached_judge_keeps_verdicts_in_any_store() -> None:
    store = DictStore()
    assert isinstance(store, VerdictStore)
    assert isinstance(VerdictCache("unused.sqlite3"), VerdictStore)
    fake = FakeJudge.passing()
    judge = CachedJudge(fake, store)
    rubric = LLMRubric("Is polite", judge=judge)
    assert rubric.check("Please.").passed
    assert rubric.check("Please.").passed
    assert len(fake.requests) == 1
    assert store.calls == ["aget", "put_many", "aget"]  # an async lookup when it has one
    assert repr(judge).startswith("CachedJudge(FakeJudge(")


def test_a_failed_judgement_is_abandoned_never_stored() -> None:
    store = DictStore()
    judge = CachedJudge(FakeJudge(RuntimeError("outage")), store)
    assert LLMRubric("Is polite", judge=judge).check("Please.").status is Status.ERROR
    assert store.calls == ["aget", "abandon"]
    assert store.verdicts == {}


def test_judges_from_the_environment_use_the_runs_store(server: LoopbackServer) -> None:
    server.default = openai_verdict()
    env = {
        "CHATASSERT_JUDGE": "openai",
        "CHATASSERT_JUDGE_MODEL": "store-model",
        "CHATASSERT_JUDGE_BASE_URL": server.url + "/v1",
    }
    store = DictStore()
    assert verdict_store() is None
    with use_verdict_store(store):
        judge = judge_from_env(environ=env)
        assert isinstance(judge, CachedJudge)
        assert judge.cache is store
        for _ in range(2):
            assert LLMRubric("Is polite", judge=judge).check("Please.").passed
        off = judge_from_env(environ={**env, "CHATASSERT_JUDGE_CACHE": "off"})
        assert not isinstance(off, CachedJudge)  # the cache off stays off
    assert server.count == 1
    assert len(store.verdicts) == 1
    outside = judge_from_env(environ=env)
    assert isinstance(outside, CachedJudge)
    assert isinstance(outside.cache, VerdictCache)
    with pytest.raises(TypeError, match="get, put_many and close"), use_verdict_store({}):  # type: ignore[arg-type]
        pass


def test_the_cache_setting_names_the_file_or_none() -> None:
    assert cache_setting({"CHATASSERT_JUDGE_CACHE": "off"}) is None
    assert cache_setting({"CHATASSERT_JUDGE_CACHE": "/tmp/v.sqlite3"}) == "/tmp/v.sqlite3"
    assert cache_setting({}).endswith("judges.sqlite3")  # type: ignore[union-attr]


def test_a_server_error_is_abandoned_too(server: LoopbackServer) -> None:
    from chatassert.judges import OpenAIJudge

    server.default = Reply({"error": "down"}, status=500)
    store = DictStore()
    judge = CachedJudge(OpenAIJudge("m", base_url=server.url + "/v1", retries=0), store)
    assert LLMRubric("x", judge=judge).check("y").status is Status.ERROR
    assert store.calls == ["aget", "abandon"]


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    "raw",
    [None, "text", {"choices": [{"n": 1.5, "t": (1, 2)}]}, _Point(3), {"set": {1}}],
    ids=["none", "text", "json", "dataclass", "not-json"],
)
def test_the_cache_file_stores_verdicts_as_it_always_has(tmp_path: Path, raw: object) -> None:
    # Entries written before stay readable, and entries written now read the same elsewhere:
    # the stored text is json.dumps(asdict(verdict)), raw as its repr when JSON cannot carry it.
    verdict = Verdict(True, 0.5, "fine", raw, "the prompt")
    cache = VerdictCache(tmp_path / "c.sqlite3")
    cache.put_many([("k", verdict)])
    with sqlite3.connect(tmp_path / "c.sqlite3") as conn:
        [(stored,)] = conn.execute("SELECT verdict FROM verdicts").fetchall()
    try:
        expected = json.dumps(dataclasses.asdict(verdict))
    except TypeError:
        expected = json.dumps({**dataclasses.asdict(verdict), "raw": repr(raw)})
    assert stored == expected
    assert cache.get("k") == Verdict(True, 0.5, "fine", json.loads(expected)["raw"], "the prompt")
    cache.close()
