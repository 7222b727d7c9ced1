"""Fuzzing judge replies: the text of a reply, the several-criteria verdict list, the HTTP body.

The contracts under test:

- `extract_json` and `verdict_from` turn a reply text into a `Verdict` or raise a
  `JudgeReplyError` (a `JudgeError`), nothing else; a reply whose JSON repeats a key anywhere
  is never a verdict (which of the values counts would be a guess); a clean verdict object
  gives exactly the `passed` it holds;
- `verdicts_from` gives one `Verdict` or `JudgeError` per criterion, or raises
  `JudgeReplyError`;
- an HTTP judge talking to a real server on 127.0.0.1 that answers with fuzzed bodies and
  status codes makes a judged check `passed`, `failed` or `error`, never raises, and passes
  only on a well-formed verdict with `passed: true`;
- an API key of any characters, echoed back by that server in any JSON escape form, appears
  in no form in the result, and does not change the verdict.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st

from chatassert import LLMRubric, Result, Status, Turn
from chatassert.errors import JudgeError
from chatassert.judges import OpenAIJudge, Verdict
from chatassert.judges._prompts import (
    JudgeReplyError,
    extract_json,
    verdict_from,
    verdicts_from,
)

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from escapes import escape_once, escaped, leaks, secrets, sendable
from loopback import LoopbackServer, Reply


class Obj:
    """A JSON object written pair by pair, so that it can repeat a key."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


def write(value: Any) -> str:
    """JSON text of a value that may hold `Obj`s (NaN and infinities as Python writes them)."""
    if isinstance(value, Obj):
        return "{" + ", ".join(f"{json.dumps(k)}: {write(v)}" for k, v in value.pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(write(v) for v in value) + "]"
    return json.dumps(value)


def duplicated(value: Any) -> bool:
    """Whether an object anywhere in the value repeats a key."""
    if isinstance(value, Obj):
        keys = [k for k, _ in value.pairs]
        return len(set(keys)) < len(keys) or any(duplicated(v) for _, v in value.pairs)
    if isinstance(value, list):
        return any(duplicated(v) for v in value)
    return False


def plain(value: Any) -> Any:
    """The value JSON decoding gives (the last of repeated keys wins), for expectations."""
    if isinstance(value, Obj):
        return {k: plain(v) for k, v in value.pairs}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


@functools.cache
def junk() -> st.SearchStrategy[Any]:
    """Nested junk for a verdict's fields and extra keys (built once: drawn very often)."""
    return st.recursive(
        st.one_of(
            specgen.json_scalars(),
            st.sampled_from([1e308, -0.0, 2**64, 10**30, "x" * 5000, "\ud800", "true"]),
        ),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.lists(st.tuples(specgen.words(), inner), max_size=3).map(Obj),
        ),
        max_leaves=6,
    )


_KEYS = ("passed", "score", "reason", "reasoning", "criterion", "verdicts")


@st.composite
def verdict_objects(draw: st.DrawFn) -> Obj:
    """A verdict object: its usual fields (good or bad values), extra keys, maybe a key twice."""
    pairs: list[tuple[str, Any]] = []
    if draw(st.integers(0, 9)):
        pairs.append(("passed", draw(st.one_of(st.booleans(), st.booleans(), junk()))))
    if draw(st.booleans()):
        score = st.one_of(st.floats(0, 1), st.floats(allow_nan=True), st.none(), junk())
        pairs.append(("score", draw(score)))
    if draw(st.booleans()):
        pairs.append(("reason", draw(st.one_of(specgen.words(), junk()))))
    for _ in range(draw(st.integers(0, 2))):
        pairs.append((draw(st.one_of(st.sampled_from(_KEYS), specgen.words())), draw(junk())))
    if pairs and draw(st.integers(0, 3)) == 0:  # a key twice, the second value a flip
        key, value = pairs[draw(st.integers(0, len(pairs) - 1))]
        again = (not value) if isinstance(value, bool) else draw(junk())
        pairs.insert(draw(st.integers(0, len(pairs))), (key, again))
    if draw(st.integers(0, 5)) == 0:  # a nested object that repeats a key
        pairs.append(("details", Obj([("passed", True), ("passed", False)])))
    return Obj(draw(st.permutations(pairs)))


_PROSE = st.text(st.characters(exclude_characters="{`"), max_size=40)


@st.composite
def reply_texts(draw: st.DrawFn, objects: st.SearchStrategy[Any]) -> tuple[str, Any]:
    """A reply: the object alone, fenced, or inside prose; and the object it holds."""
    obj = draw(objects)
    text = write(obj)
    how = draw(st.sampled_from(["alone", "fenced", "prose", "padded"]))
    if how == "fenced":
        text = f"{draw(_PROSE)}\n```json\n{text}\n```\n{draw(_PROSE)}"
    elif how == "prose":
        text = f"{draw(_PROSE)} {text} {draw(_PROSE)}"
    elif how == "padded":
        text = draw(st.sampled_from(["", " ", "\n", "\ufeff"])) + text + " \t\n"
    return text, obj


def _clean_verdict(obj: Any) -> bool | None:
    """The `passed` a duplicate-free verdict object must give, or None if it is no verdict."""
    reply = plain(obj)
    if not isinstance(reply, dict) or not isinstance(reply.get("passed"), bool):
        return None
    score = reply.get("score")
    if score is not None and (
        isinstance(score, bool)
        or not isinstance(score, int | float)
        or not (isinstance(score, int) or math.isfinite(score))
        or not 0 <= score <= 1
    ):
        return None
    passed: bool = reply["passed"]
    return passed


@given(reply_texts(verdict_objects()))
@fuzz_target("judge.reply_text")
def test_a_reply_text_is_a_verdict_or_a_reply_error(reply: tuple[str, Any]) -> None:
    text, obj = reply
    try:
        verdict: Verdict | None = verdict_from(extract_json(text), raw=text, prompt="p")
    except JudgeReplyError as exc:
        verdict, error = None, str(exc)
    else:
        error = ""
    if duplicated(obj):
        assert verdict is None, f"a reply repeating a key became a verdict: {text!r}"
        assert "ambiguous" in error or "twice" in error, error
        return
    expected = _clean_verdict(obj)
    if expected is None:
        assert verdict is None, (text, verdict)
        assert error
    else:
        assert verdict is not None, (text, error)
        assert verdict.passed is expected
        assert verdict.score is None or 0.0 <= verdict.score <= 1.0
        assert isinstance(verdict.reason, str)


@st.composite
def verdict_lists(draw: st.DrawFn) -> tuple[Any, int]:
    """A several-criteria reply: `{"verdicts": [...]}` or a bare list, numbered or not."""
    count = draw(st.integers(1, 5))
    items: list[Any] = []
    for position in range(draw(st.integers(0, count + 2))):
        item = draw(st.one_of(verdict_objects(), junk()))
        if isinstance(item, Obj) and draw(st.booleans()):
            number = draw(
                st.one_of(st.just(position + 1), st.integers(-2, count + 2), junk(), st.just(True))
            )
            item = Obj([*item.pairs, ("criterion", number)])
        items.append(item)
    reply = draw(st.sampled_from([Obj([("verdicts", items)]), items, Obj([("v", items)])]))
    return reply, count


@given(verdict_lists(), st.booleans())
@fuzz_target("judge.verdicts")
def test_a_verdict_list_matches_the_criteria_or_is_a_reply_error(
    reply: tuple[Any, int], through_text: bool
) -> None:
    obj, count = reply
    text = write(obj)
    try:
        parsed = extract_json(text, key="verdicts") if through_text else plain(obj)
        out = verdicts_from(parsed, count, raw=text, prompt="p")
    except JudgeReplyError as exc:
        out, error = None, str(exc)
    else:
        error = ""
    if out is None:
        assert error
        return
    assert len(out) == count
    assert all(isinstance(v, Verdict | JudgeError) for v in out)
    if through_text and duplicated(obj):
        raise AssertionError(f"a reply repeating a key was read: {text!r} -> {out!r}")


# -- over HTTP, against a real loopback server --------------------------------------------------

_SERVER = LoopbackServer()
_SERVER.start()
_JUDGE = OpenAIJudge(
    "judge-model",
    base_url=_SERVER.url + "/v1",
    api_key_env="CHATASSERT_FUZZ_NO_SUCH_KEY",
    timeout=2.0,
    retries=0,
    response_format="none",
)


@pytest.fixture(scope="module", autouse=True)
def _stop_the_server() -> Iterator[None]:
    yield
    _SERVER.stop()


_TURN = Turn(input="My order is late", text="Sorry about the delay.")
_STATUSES = (200, 200, 200, 201, 204, 301, 400, 401, 404, 418, 422, 429, 500, 503, 599)


@st.composite
def http_replies(draw: st.DrawFn) -> tuple[Reply, bool | None]:
    """A fuzzed answer, and the verdict it must give (None: it must not pass)."""
    text, obj = draw(reply_texts(verdict_objects()))
    content: Any = draw(st.one_of(st.just(text), junk()))
    message = Obj([("role", "assistant"), ("content", content)])
    body_obj: Any = Obj([("choices", [Obj([("index", 0), ("message", message)])])])
    how = draw(st.sampled_from(["good", "good", "mutated", "raw", "duplicate_top"]))
    if how == "mutated":
        body_obj = draw(st.one_of(junk(), st.just(Obj([("choices", draw(junk()))]))))
    elif how == "duplicate_top":
        body_obj = Obj([*body_obj.pairs, ("choices", [])])
    body: Any = write(body_obj).encode("utf-8", "surrogatepass")
    if how == "raw":
        body = draw(st.one_of(st.binary(max_size=40), st.just(body[: draw(st.integers(0, 40))])))
    status = draw(st.sampled_from(_STATUSES))
    expected = None
    clean = (
        how == "good"
        and status in (200, 201)
        and content == text  # junk in its place says nothing about the verdict
        and content.strip()
        and not duplicated(obj)
    )
    if clean:
        expected = _clean_verdict(obj)
    return Reply(body, status=status), expected


@given(http_replies())
@fuzz_target("judge.http")
def test_an_http_judge_on_any_answer_passes_only_on_a_clean_verdict(
    answer: tuple[Reply, bool | None],
) -> None:
    reply, expected = answer
    _SERVER.push(reply)
    result = LLMRubric("Apologises", judge=_JUDGE).check(_TURN)
    _SERVER.script.clear()
    assert isinstance(result, Result)
    json.dumps(result.to_dict(), allow_nan=False)
    if expected is None:
        assert result.status is not Status.PASSED, (reply, result)
    else:
        assert result.status is (Status.PASSED if expected else Status.FAILED), (reply, result)


# -- secrets: an echoed API key reaches no result ------------------------------------------------

_SECRET_VAR = "CHATASSERT_FUZZ_SECRET"
_KEYED = OpenAIJudge(
    "judge-model",
    base_url=_SERVER.url + "/v1",
    api_key_env=_SECRET_VAR,
    timeout=5.0,
    retries=0,
    response_format="none",
)
_WHERE = ("reason", "reason", "not_a_verdict", "refusal", "error_body", "json_key", "no_passed")


def _chat(content: str, rng: random.Random, extra: str = "") -> bytes:
    """A chat completion whose `content` is `content`, written by hand (escaped at random)."""
    message = '{"role": "assistant", "content": "' + escape_once(content, rng, first=False) + '"'
    return ('{"choices": [{"index": 0, "message": ' + message + extra + "}}]}").encode()


@st.composite
def echoes(draw: st.DrawFn) -> tuple[str, str, bytes, int, bool | None]:
    """A key, the form the server echoes it in, the reply body and status, and the verdict the
    reply holds (None: none)."""
    key = "sk-" + draw(secrets())
    rng = draw(st.randoms(use_true_random=False))
    where = draw(st.sampled_from(_WHERE))
    depth = draw(st.integers(1, 3)) if where != "error_body" else draw(st.integers(0, 3))
    form = escaped(key, depth, rng)
    passed = draw(st.booleans())
    if where == "reason":
        verdict = f'{{"passed": {json.dumps(passed)}, "score": 0.5, "reason": "saw {form}"}}'
        return key, form, _chat(verdict, rng), 200, passed
    if where == "not_a_verdict":
        return key, form, _chat(f"I will not grade this: {form}", rng), 200, None
    if where == "refusal":
        return key, form, _chat("", rng, f', "refusal": "no, {form}"'), 200, None
    if where == "error_body":
        status = draw(st.sampled_from([401, 500]))
        return key, form, f"upstream refused {form}".encode(), status, None
    if where == "json_key":
        return key, form, ('{"choices": [], "' + form + '": 1}').encode(), 200, None
    return key, form, _chat(f'{{"reason": "{form}"}}', rng), 200, None


@given(echoes())
@fuzz_target("judge.secrets")
def test_an_echoed_key_appears_in_no_form_in_the_result(
    echo: tuple[str, str, bytes, int, bool | None],
) -> None:
    key, form, body, status, verdict = echo
    os.environ[_SECRET_VAR] = key
    _SERVER.script.clear()
    before = _SERVER.count
    _SERVER.push(Reply(body, status=status))
    try:
        result = LLMRubric("Apologises", judge=_KEYED).check(_TURN)
    finally:
        del os.environ[_SECRET_VAR]
        _SERVER.script.clear()
    data = result.to_dict()
    text = "\n".join([json.dumps(data), json.dumps(data, ensure_ascii=False), str(result)])
    assert not leaks(key, text, [form]), (key, form, text)
    if not sendable(key):
        assert result.status is Status.ERROR
        assert "has a control character" in result.reason
        assert _SERVER.count == before  # nothing was sent
    elif verdict is None:
        assert result.status is Status.ERROR, result
    else:
        assert result.status is (Status.PASSED if verdict else Status.FAILED), result
        assert result.reason.endswith("saw [redacted]"), result.reason
