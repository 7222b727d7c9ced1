"""An API key reaches no result, report, cache or command output, in any form a reply echoes it.

The key may hold `"`, `\\`, `/`, non-ASCII characters and a tab; a judge server on 127.0.0.1
echoes it plainly, JSON-escaped at any depth (a verdict's JSON inside the reply's JSON), with
`\\uXXXX` escapes in either case and surrogate pairs. The command-line runs go through every
report format, the verdict cache, `regate` and `validate`.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from escapes import TRICKY, escape_once, escaped, leaks, secrets
from hypothesis import given, settings, strategies as st
from loopback import LoopbackServer, Recorded, Reply, run_cli, run_cli_here

from chatassert import LLMRubric, Status
from chatassert.judges import JudgeReplyError, OpenAIJudge, Verdict
from chatassert.judges._http import _scrub, _secret

KEYS = [
    'sk-quote"and\\back-9f8e7d',  # a quote and a backslash
    "sk-slash/é中😀-77aa",  # a slash, non-ASCII, beyond the BMP
    'sk-tab\there-\\\\"x/',  # a tab (a header carries it), a run of backslashes
]


# -- the pattern: every escape form, in linear time ----------------------------------------------


@settings(max_examples=400, deadline=None)
@given(secret=secrets(), depth=st.integers(0, 4), rng=st.randoms(use_true_random=False))
def test_every_escape_form_of_a_secret_is_redacted(
    secret: str, depth: int, rng: random.Random
) -> None:
    text = escaped(secret, depth, rng)
    assert _scrub(f"<<{text}>>", [_secret(secret)]) == "<<[redacted]>>", text


@pytest.mark.parametrize("key", KEYS)
def test_the_forms_a_json_writer_gives_are_redacted(key: str) -> None:
    def inner(text: str, ascii_only: bool = True) -> str:  # JSON string content
        return json.dumps(text, ensure_ascii=ascii_only)[1:-1]

    pattern = [_secret(key)]
    forms = [
        key,
        inner(key),
        inner(key, ascii_only=False),
        inner(inner(key)),
        inner(inner(inner(key, ascii_only=False))),
        inner(inner(inner(inner(key)))),
        re.sub(r"\\u[0-9a-f]{4}", lambda m: m.group().upper().replace("U", "u"), inner(key)),
        inner(key).replace("/", "\\/"),
        inner(inner(key).replace("/", "\\/")),
    ]
    for form in forms:
        assert _scrub(f"a {form} b", pattern) == "a [redacted] b", form


@pytest.mark.parametrize(
    "secret",
    ["sk-test-9f8e7d6c5b4a3210", 'sk-\\"ab\\\\cd/é😀', "\\x-\\\\-\\\\\\", TRICKY],
    ids=["plain", "escapes", "backslash-runs", "tricky"],
)
def test_redaction_takes_time_linear_in_the_reply(secret: str) -> None:
    """A reply of nothing but backslashes (or near-escapes) is scrubbed in one pass: the old
    pattern's unbounded backslash runs took minutes on a quarter of a megabyte."""
    pattern = [_secret(secret)]
    texts = [
        "\\" * (1 << 18),
        ("\\" * 15 + "u00") * (1 << 14),
        ("\\" * 7 + '"') * (1 << 15),
        (secret[:-1] + "#") * ((1 << 18) // len(secret)),  # near misses, over and over
    ]
    started = time.process_time()  # CPU time: a busy machine does not add to it
    for text in texts:
        assert _scrub(text, pattern) == text  # nothing there to redact
    assert time.process_time() - started < 20  # quadratic took minutes; linear, a second


# -- the judge: every string that leaves it, as parsed --------------------------------------------


def _judge(server: LoopbackServer, **options: Any) -> OpenAIJudge:
    return OpenAIJudge("judge-model", base_url=server.url + "/v1", retries=0, **options)


def _content(content: str) -> Reply:
    """A chat completion whose `content` is `content`, the body written by hand."""
    rng = random.Random(0)
    body = (
        '{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
        + escape_once(content, rng, first=False)
        + '"}}]}'
    )
    return Reply(body.encode("utf-8"))


@pytest.mark.parametrize("key", KEYS)
def test_a_key_the_verdict_echoes_escaped_is_redacted_as_parsed(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    rng = random.Random(1)
    verdict = '{"passed": true, "score": 0.9, "reason": "echo ' + escaped(key, 1, rng) + '"}'
    server.push(_content(verdict))
    result = LLMRubric("Is fine", judge=_judge(server)).check("a")
    assert result.status is Status.PASSED
    assert result.reason == "echo [redacted]"
    dumped = json.dumps(result.to_dict()) + json.dumps(result.to_dict(), ensure_ascii=False)
    assert not leaks(key, dumped)
    sent = server.requests[0].headers["Authorization"]
    assert sent.encode("latin-1").decode("utf-8") == f"Bearer {key}"  # sent as UTF-8 bytes


def test_what_leaves_the_judge_is_scrubbed_last_of_all(monkeypatch: pytest.MonkeyPatch) -> None:
    key = KEYS[0]
    monkeypatch.setenv("OPENAI_API_KEY", key)
    judge = OpenAIJudge("m", base_url="http://127.0.0.1:9/v1")
    verdict = judge._scrubbed(Verdict(True, 1.0, f"r {key}", raw={key: [key]}, prompt=key))
    assert (verdict.reason, verdict.raw, verdict.prompt) == (
        "r [redacted]",
        {"[redacted]": ["[redacted]"]},
        "[redacted]",
    )
    error = judge._scrubbed(JudgeReplyError(f"bad {key}", raw=(key,), prompt=key))
    assert (str(error), error.raw, error.prompt) == ("bad [redacted]", ["[redacted]"], "[redacted]")
    deep: Any = key
    for _ in range(5000):  # deeper than the recursion limit
        deep = [deep]
    scrubbed = judge._scrubbed(Verdict(True, raw=deep)).raw
    for _ in range(5000):
        [scrubbed] = scrubbed
    assert scrubbed == "[redacted]"


@pytest.mark.parametrize(
    "key", ["sk-line\nbreak-1234", "sk-bell\x07-1234", " sk-leading-1234", "sk-trailing-1234\n"]
)
def test_a_key_no_header_can_carry_is_refused_without_showing_it(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    result = LLMRubric("Is fine", judge=_judge(server)).check("a")
    assert result.status is Status.ERROR
    assert "the API key in OPENAI_API_KEY has a control character" in result.reason
    assert not leaks(key.strip(), json.dumps(result.to_dict()))
    assert server.count == 0  # nothing was sent


def test_a_header_no_request_can_carry_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="'x-api-key' has a control character") as caught:
        OpenAIJudge("m", headers={"x-api-key": "sk-a\r\nX-Injected: 1"})
    assert "sk-a" not in str(caught.value)
    with pytest.raises(ValueError, match="not an HTTP header name"):
        OpenAIJudge("m", headers={"x api key": "v"})


# -- the command line: reports, cache, regate and validate -----------------------------------------

SUITE = """chatassert: 1
name: s
assertions:
  - {type: llm_rubric, value: Is polite, message: polite}
"""


def _echoes(key: str, echoed: list[str]) -> Any:
    """The server's answer per case, each echoing `key` another way (the case is the number
    in the graded response, `case-N`); each form echoed is added to `echoed`."""
    rng = random.Random(7)

    def echo(depth: int) -> str:
        form = escaped(key, depth, rng)
        echoed.append(form)
        return form

    def verdict(reason: str, passed: str = "true") -> str:
        return '{"passed": ' + passed + ', "score": 0.8, "reason": "' + reason + '"}'

    def answer(recorded: Recorded) -> Reply:
        user = recorded.body["messages"][-1]["content"]
        case = int(re.search(r"case-(\d+)", user).group(1))  # type: ignore[union-attr]
        if case == 0:  # the reason, escaped once inside the verdict, twice in the body
            return _content(verdict("echo " + echo(1)))
        if case == 1:  # JSON text of the key inside the reason: three levels in the body
            return _content(verdict("echo " + echo(2), "false"))
        if case == 2:  # a 500 whose plain-text body holds the key as it is
            return Reply(f"upstream refused {key}".encode(), status=500)
        if case == 3:  # not a verdict: the reply's raw text is kept in the result
            return _content("I will not grade this, " + echo(1))
        if case == 4:  # a verdict without `passed`: an error with the raw reply
            return _content('{"reason": "' + echo(1) + '"}')
        return _content(verdict("fine"))

    return answer


@pytest.mark.parametrize("key", KEYS, ids=["quote-backslash", "slash-non-ascii", "tab-run"])
def test_a_key_reaches_no_report_cache_regate_or_validate_output(
    tmp_path: Path, server: LoopbackServer, key: str
) -> None:
    echoed: list[str] = []
    server.default = _echoes(key, echoed)
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    records = [
        {"id": f"c{i}", "messages": [{"role": "user", "content": "Hi"},
                                     {"role": "assistant", "content": f"case-{i}"}]}
        for i in range(6)
    ]  # fmt: skip
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    labels = [{"record": f"c{i}", "assertion": "polite", "human": "pass"} for i in range(6)]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    reports = ["r.txt", "r.jsonl", "r.xml", "r.html", "r.otel.jsonl"]
    outputs = [a for name in reports for a in ("-o", name)]
    env = {"OPENAI_API_KEY": key}
    # the key of non-ASCII text as processes write it; the other keys' runs in this process
    run = run_cli if key == KEYS[1] else run_cli_here
    runs = [
        run(tmp_path, server, "check", "suite.yaml", "log.jsonl", "--full-results",
                *outputs, cache=str(tmp_path / "cache" / "v.sqlite3"), env=env),
        run(tmp_path, server, "regate", "r.jsonl", "--min-score", "polite=0.5",
                "--full-results", "-o", "g.txt", "-o", "g.jsonl", "-o", "g.xml", "-o", "g.html",
                env=env),
        run(tmp_path, server, "validate", "suite.yaml", "labels.jsonl", "--report",
                "r.jsonl", env=env),
        run(tmp_path, server, "validate", "suite.yaml", "labels.jsonl", "--report",
                "r.jsonl", "-f", "json", env=env),
    ]  # fmt: skip
    assert [run.returncode for run in runs] == [1, 1, 0, 0], [r.stderr for r in runs]
    assert server.count == 6  # every case asked the judge once (regate and validate: none)
    texts = {f"{i}:{stream}": getattr(run, stream) for i, run in enumerate(runs)
             for stream in ("stdout", "stderr")}  # fmt: skip
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name not in ("log.jsonl", "labels.jsonl", "suite.yaml"):
            data = path.read_bytes()
            texts[path.name] = data.decode("utf-8", "replace") + data.decode("latin-1")
    assert {"r.html", "r.xml", "r.otel.jsonl", "g.html", "v.sqlite3"} <= set(texts)
    assert len(echoed) == 4
    found = {place: leaks(key, text, echoed) for place, text in texts.items()}
    assert not any(found.values()), found
    report = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert sum("[redacted]" in json.dumps(row) for row in report) >= 5
