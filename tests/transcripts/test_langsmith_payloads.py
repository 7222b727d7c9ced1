"""LangSmith SDK payloads: what the Python and JS SDKs send to `/runs/batch` (docs/offline.md,
"LangSmith runs").

The captures in `tests/fixtures/langsmith-sdk/` were sent by the SDKs themselves
(`capture.py`, langsmith 0.15.1 for Python and 0.12.0 for JS), one request body per line: each
traces the same agent twice, and its runs' creations (`post`) and ends (`patch`) are spread
over several requests, as the SDKs' background batching sends them. Read together (a JSON
array of the requests in the order sent) they are two conversations; read one request at a
time, each is part of a trace, and is reported so, never read as a conversation without its
answer.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from chatassert import Conversation
from chatassert._cli import main
from chatassert._errors import TranscriptError
from chatassert.transcripts import parse_record, read_records, read_value

CAPTURES = Path(__file__).parents[1] / "fixtures" / "langsmith-sdk"
_JQ = "`jq -s . requests.jsonl > requests.json`"


def requests(name: str) -> list[dict[str, Any]]:
    """The request bodies of one capture, in the order sent."""
    text = (CAPTURES / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def conversations(value: Any, format: str | None = None) -> dict[str, Conversation]:
    """The conversations a record reads into, by part (trace id); every part must read."""
    out = {}
    for one in read_value(value, "requests.json", 1, format).each():
        assert one.conversation is not None, one.error
        out[one.part or ""] = one.conversation
    return out


def check(tmp_path: Path, log: Path, spec: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    """`chatassert check --assert SPEC LOG` in process: exit code and JSON report lines."""
    report = tmp_path / "report.json"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["check", "--assert", spec, "-o", str(report), *extra, str(log)])
    lines = report.read_text(encoding="utf-8").splitlines()
    return code, [json.loads(line) for line in lines]


def _turns(conv: Conversation) -> list[tuple[Any, ...]]:
    return [
        (
            t.input,
            t.text,
            [(c.name, c.arguments, c.id) for c in t.tool_calls],
            [(r.content, r.is_error) for r in t.tool_results],
        )
        for t in conv.turns
    ]


# -- the SDKs' own requests ----------------------------------------------------------------------


@pytest.mark.parametrize("sdk", ["python-sdk", "js-sdk"])
def test_a_capture_s_requests_read_together_are_its_two_traces(sdk: str) -> None:
    read = conversations(requests(sdk))
    assert len(read) == 2
    oslo, rome = read.values()
    assert _turns(oslo) == [
        (
            "Weather in Oslo?",
            "It is 4°C in Oslo.",
            [("get_weather", {"city": "Oslo"}, "call_1")],
            [("4°C", False)],
        )
    ]
    assert [t.text for t in rome.turns] == ["It is 18°C in Rome."]
    assert list(read) == [oslo.id, rome.id]  # each trace is named by its id, the root run's
    facts = oslo.turns[0].metadata
    assert (facts["model"], facts["model_calls"]) == ("gpt-4o-mini", 2)
    assert (facts["input_tokens"], facts["output_tokens"]) == (60, 16)
    # the Python SDK writes times in ISO 8601, the JS SDK ends a run in epoch milliseconds:
    # each run lasted 0.3 s, and the latency is the sum over the two model runs
    assert 600 <= facts["latency_ms"] < 5000
    assert (oslo.metadata["run_name"], oslo.metadata["session_name"]) == ("agent", "weather")


@pytest.mark.parametrize("sdk", ["python-sdk", "js-sdk"])
def test_check_passes_on_the_answers_the_patches_carry(tmp_path: Path, sdk: str) -> None:
    """The answers are only in the patches: before payloads were read, the record was
    unrecognised and nothing was checked (exit 4)."""
    log = tmp_path / "requests.json"
    log.write_text(json.dumps(requests(sdk), ensure_ascii=False), encoding="utf-8")
    for extra in ((), ("--log-format", "langsmith")):
        code, lines = check(tmp_path, log, "{type: contains, value: '°C in'}", *extra)
        statuses = [line["result"]["status"] for line in lines if "result" in line]
        assert (code, statuses) == (0, ["passed", "passed"])


def test_one_request_holding_two_whole_traces_is_two_conversations() -> None:
    ((line,),) = [requests("js-sdk-batch")]
    read = conversations(line)
    assert [[t.text for t in conv.turns] for conv in read.values()] == [
        ["It is 4°C in Oslo."],
        ["It is 18°C in Rome."],
    ]
    assert conversations(line, "langsmith") == read


@pytest.mark.parametrize("sdk", ["python-sdk", "js-sdk"])
def test_each_request_alone_is_part_of_a_trace_and_an_error_never_a_verdict(
    tmp_path: Path, sdk: str
) -> None:
    """Read line by line, the first request has the question but not the answer: checking it
    would fail `contains`; it is an error that says how to read the capture instead."""
    errors = []
    for number, body in enumerate(requests(sdk), 1):
        for one in read_value(body, f"{sdk}.jsonl", number).each():
            assert one.conversation is None
            assert one.error is not None
            errors.append(one.error)
    assert errors[0].startswith("run 'agent' (")
    assert "was posted unfinished (no end_time, outputs or error)" in errors[0]
    assert any(e.startswith("a patch ends run 'ChatOpenAI' (") for e in errors)
    assert all(e.endswith(f"({_JQ})") for e in errors)
    code, lines = check(tmp_path, CAPTURES / f"{sdk}.jsonl", "{type: contains, value: '°C in'}")
    assert code == 4  # nothing checked
    assert not [line for line in lines if "result" in line]
    assert len([line for line in lines if "unreadable" in line]) == len(errors)


@given(order=st.permutations(range(6)))
def test_patches_apply_in_whatever_order_the_requests_come(order: list[int]) -> None:
    """A patch that comes before the post of its run waits for it: any order of the requests
    reads the same (each run is posted once and patched at most once)."""
    sent = requests("js-sdk")
    assert len(sent) == 6
    assert conversations([sent[i] for i in order]) == conversations(sent)


def test_a_patch_may_name_its_run_by_dotted_order_alone() -> None:
    sent = copy.deepcopy(requests("js-sdk"))
    for body in sent:
        for patch in body["patch"]:
            del patch["id"]
    assert conversations(sent) == conversations(requests("js-sdk"))


def test_a_patch_s_null_fields_leave_what_was_posted() -> None:
    sent = copy.deepcopy(requests("js-sdk"))
    for body in sent:
        for patch in body["patch"]:
            patch["inputs"] = None
            patch["run_type"] = None
    assert conversations(sent) == conversations(requests("js-sdk"))


# -- payloads written out ------------------------------------------------------------------------


def _run(
    key: str, name: str, kind: str, parent: str | None = None, **fields: Any
) -> dict[str, Any]:
    order = "20250301T100000000000Ztr" + ("" if parent is None else f".20250301T10000{key}Z{key}")
    run = {"id": "tr" if parent is None else key, "name": name, "run_type": kind}
    run.update(trace_id="tr", dotted_order=order, start_time="2025-03-01T10:00:00Z")
    if parent is not None:
        run["parent_run_id"] = parent
    return {**run, **fields}


def _payload() -> dict[str, Any]:
    """A trace whose model run is posted unfinished and patched with its answer."""
    messages = [{"role": "user", "content": "Capital of Italy?"}]
    answer = {"choices": [{"message": {"role": "assistant", "content": "Rome."}}]}
    return {
        "post": [
            _run("0", "agent", "chain", inputs={"input": "Capital of Italy?"}, outputs={}),
            _run("1", "ChatOpenAI", "llm", "tr", inputs={"messages": messages}),
        ],
        "patch": [
            {
                "id": "1",
                "trace_id": "tr",
                "end_time": "2025-03-01T10:00:01.250Z",
                "outputs": answer,
            },
            {"id": "tr", "trace_id": "tr", "end_time": "2025-03-01T10:00:02Z", "outputs": {"a": 1}},
        ],
    }


def test_a_payload_of_one_trace_is_one_conversation_detected_and_forced() -> None:
    for format in (None, "langsmith"):
        conv = parse_record(_payload(), format)
        assert [(t.input, t.text) for t in conv.turns] == [("Capital of Italy?", "Rome.")]
        assert conv.turns[0].metadata["latency_ms"] == 1250.0
        assert conv.id == "tr"


def test_check_of_a_patched_output_passes(tmp_path: Path) -> None:
    log = tmp_path / "payload.jsonl"
    log.write_text(json.dumps(_payload()) + "\n", encoding="utf-8")
    code, lines = check(tmp_path, log, "{type: contains, value: Rome}")
    assert (code, [line["result"]["status"] for line in lines if "result" in line]) == (
        0,
        ["passed"],
    )


def test_a_partial_trace_is_reported_beside_the_whole_ones() -> None:
    (line,) = requests("js-sdk-batch")
    stray = {"id": "r9", "name": "agent", "trace_id": "t9", "outputs": {"output": "Hi"}}
    record = read_value({"post": line["post"], "patch": [stray]}, "requests.json", 1)
    read = {one.part: one for one in record.each()}
    assert len(read) == 3
    assert [one.conversation is not None for one in read.values()] == [True, True, False]
    assert read["t9"].error == (
        "a patch ends run 'agent' (r9), which no post in the record creates: the record holds "
        "part of a trace, whose other runs the SDK sent in other requests: read a capture's "
        f"requests together, as one JSON array in the order sent ({_JQ})"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda p: p["patch"].pop(0),
            "run 'ChatOpenAI' (1) was posted unfinished (no end_time, outputs or error) and no "
            "patch in the record ends it",
        ),
        (
            lambda p: p["post"].pop(0),
            "a patch ends run tr, which no post in the record creates",
        ),
        (
            lambda p: p.update(post=p["post"][1:], patch=p["patch"][:1]),
            "run 'ChatOpenAI' (1) belongs to run tr, which the record does not hold",
        ),
    ],
)
def test_a_trace_missing_a_post_or_a_patch_is_an_error_naming_the_run(
    change: Any, message: str
) -> None:
    payload = _payload()
    change(payload)
    with pytest.raises(TranscriptError) as caught:
        parse_record(payload, "langsmith")
    assert str(caught.value).startswith(f"{message}: the record holds part of a trace, ")
    assert str(caught.value).endswith(f"({_JQ})")


def test_a_run_posted_with_its_outputs_or_error_is_finished_without_a_patch() -> None:
    """`Client.batch_ingest_runs(create=[...])` may post finished runs without an end time."""
    payload = _payload()
    payload["post"][1]["outputs"] = payload["patch"][0]["outputs"]
    payload["post"][0]["error"] = "stopped"
    payload["patch"] = []
    conv = parse_record(payload)
    assert conv.turns[0].text == "Rome."
    assert conv.metadata["error"] == "stopped"


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"post": [], "patch": []}, "the payload holds no runs to read"),
        ({"post": [{"id": "a"}, 7]}, "post[1] is not a run object, got 7"),
        ({"patch": [{"name": "x"}]}, "patch[0] names no run: it has no 'id' or 'dotted_order'"),
        (
            [{"post": [_run("0", "agent", "chain", inputs={"q": "Hi"})]}, {"patch": [{}]}],
            "[1].patch[0] names no run: it has no 'id' or 'dotted_order'",
        ),
        (
            {"post": [{"id": "a", "trace_id": "a", "outputs": {"o": "x"}}]},
            "run a has no 'run_type', or no 'inputs' or 'outputs'",
        ),
    ],
)
def test_a_malformed_payload_is_an_error_with_its_place(record: Any, message: str) -> None:
    with pytest.raises(TranscriptError) as caught:
        parse_record(record, "langsmith")
    assert str(caught.value) == message


def test_a_capture_of_several_traces_given_to_parse_record_says_to_read_it_whole() -> None:
    with pytest.raises(TranscriptError, match="holds runs of 2 traces: read it with read_records"):
        parse_record(requests("js-sdk"))


def test_the_capture_read_from_a_json_file_is_named_by_trace(tmp_path: Path) -> None:
    log = tmp_path / "requests.json"
    log.write_text(json.dumps(requests("python-sdk"), indent=1), encoding="utf-8")
    read = list(read_records(log))  # a record of several conversations gives each
    assert [one.where for one in read] == [
        f"{log}:1#{trace}" for trace in conversations(requests("python-sdk"))
    ]


# -- outputs the record does not hold ------------------------------------------------------------

_HIDDEN = (
    "run 'ChatOpenAI' ended without error, but its outputs are empty: the LangSmith SDK "
    "records them so when it hides outputs (LANGSMITH_HIDE_OUTPUTS, or a Client made with "
    "hide_outputs); trace with outputs recorded to check them"
)


def test_hidden_outputs_make_text_checks_errors_not_failures(tmp_path: Path) -> None:
    """The Python SDK with `hide_outputs=True` sends every run finished with outputs `{}`: the
    answer was given but not recorded. Before, the turn's text was empty and `contains`
    failed."""
    log = CAPTURES / "python-sdk-hidden-outputs.jsonl"
    code, lines = check(tmp_path, log, "{type: contains, value: '°C in'}")
    results = [line["result"] for line in lines if "result" in line]
    assert (code, [r["status"] for r in results]) == (3, ["error", "error"])
    (records,) = [list(read_value(requests("python-sdk-hidden-outputs")[0], "log", 1).each())]
    for one in records:
        assert one.conversation is not None
        (turn,) = one.conversation.turns  # the first answer is the next request's message
        assert turn.unrecorded == {"text": _HIDDEN}
        assert [c.name for c in turn.tool_calls] == ["get_weather"]
        assert turn.metadata["model_calls"] == 2


def test_a_model_run_exported_before_it_ended_has_its_text_unrecorded() -> None:
    messages = [{"role": "user", "content": "Capital of Italy?"}]
    run = _run("1", "ChatOpenAI", "llm", inputs={"messages": messages})
    (turn,) = parse_record(run).turns
    assert turn.input == "Capital of Italy?"
    assert turn.unrecorded["text"].startswith(
        "run 'ChatOpenAI' had not ended when its runs were exported, so its outputs are not in "
        "the record"
    )


def test_a_root_run_s_hidden_answer_is_unrecorded_and_an_error_is_not() -> None:
    run = _run("0", "agent", "chain", inputs={"question": "Hi"}, outputs={}, end_time="x")
    (turn,) = parse_record(run).turns
    assert turn.unrecorded == {"text": _HIDDEN.replace("'ChatOpenAI'", "'agent'")}
    failed = parse_record({**run, "error": "boom"})  # no answer because the run failed
    assert (failed.turns[0].unrecorded, failed.metadata["error"]) == ({}, "boom")


def test_the_payload_example_of_the_docs_reads_as_documented() -> None:
    guide = Path(__file__).parents[2] / "docs" / "offline.md"
    (line,) = [x for x in guide.read_text(encoding="utf-8").splitlines() if x.startswith('{"post"')]
    conv = parse_record(json.loads(line))
    assert [(t.input, t.text) for t in conv.turns] == [("Capital of Italy?", "Rome.")]
    assert (conv.turns[0].metadata["latency_ms"], conv.id) == (900.0, "r1")
