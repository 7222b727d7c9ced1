"""`check --group-by` (conversations spread over many lines) and `--format otel` (results as
OpenTelemetry evaluation events): grouping with workers and the OpenTelemetry reports as a
subprocess, the other groupings and usage errors in this process (tests/cli_runs.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runs import run_in_process

REFUNDED = "{type: conversation_content_includes, patterns: [Refunded]}"
T1, T2 = "4bf92f3577b34da6a3ce929d0e0e4736", "5cf92f3577b34da6a3ce929d0e0e4736"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _span(trace: str, span: str, start: int, user: str, reply: str, **attrs: Any) -> str:
    def messages(role: str, text: str) -> str:
        return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])

    return json.dumps(
        {
            "traceId": trace,
            "spanId": span,
            "name": "chat",
            "startTimeUnixNano": str(start),
            "attributes": {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": messages("user", user),
                "gen_ai.output.messages": messages("assistant", reply),
                **attrs,
            },
        }
    )


def _call(session: str, history: list[str], reply: str) -> str:
    roles = ["user", "assistant"] * len(history)
    messages = [{"role": r, "content": t} for r, t in zip(roles, history, strict=False)]
    response = {"choices": [{"message": {"role": "assistant", "content": reply}}]}
    return json.dumps(
        {
            "metadata": {"session_id": session},
            "request": {"messages": messages},
            "response": response,
        }
    )


# two sessions whose spans interleave, a bad line in the middle of session a
INTERLEAVED = [
    _span(T1, "a000000000000001", 1, "Hi", "Hello!", **{"session.id": "a"}),
    _span(T2, "b000000000000001", 2, "Yo", "Hey.", **{"session.id": "b"}),
    "{not json",
    _span(T1, "a000000000000002", 3, "Refund?", "Refunded.", **{"session.id": "a"}),
    _span(T2, "b000000000000002", 4, "Bye", "Bye.", **{"session.id": "b"}),
]


def _outcomes(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_interleaved_sessions_are_checked_as_whole_conversations(tmp_path: Path, jobs: str) -> None:
    log = tmp_path / "spans.jsonl"
    log.write_text("\n".join(INTERLEAVED) + "\n")
    done = (run if jobs != "1" else run_in_process)(
        "check", "-a", REFUNDED, "spans.jsonl", "--group-by", "session.id", "-f", "json",
        "-j", jobs, "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    lines = _outcomes(done.stdout)
    assert lines[0] == {
        "unreadable": "spans.jsonl:3",
        "error": "line is not JSON: Expecting property name enclosed in double quotes at column 2",
    }
    checked = {o["source"]: o["result"]["status"] for o in lines if "result" in o}
    # session a holds both of its turns, though a bad line and session b came between them
    assert checked == {"spans.jsonl:1#a": "passed", "spans.jsonl:2#b": "failed"}
    assert lines[-1]["summary"]["records"] == 3  # the bad line and two conversations
    assert done.returncode == 1


def test_a_group_longer_than_the_window_is_split_and_said(tmp_path: Path) -> None:
    """Session a's lines are 3 apart, more than --group-window 2: its first turn is checked
    alone, the rest as a conversation of its own, and an error says so."""
    log = tmp_path / "spans.jsonl"
    log.write_text("\n".join(INTERLEAVED) + "\n")
    done = run_in_process(
        "check", "-a", REFUNDED, "spans.jsonl", "--group-by", "session.id",
        "--group-window", "1", "-f", "json", "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    lines = _outcomes(done.stdout)
    checked = [(o["source"], o["result"]["status"]) for o in lines if "result" in o]
    assert checked == [
        ("spans.jsonl:1#a", "failed"),
        ("spans.jsonl:2#b", "failed"),
        ("spans.jsonl:4#a", "passed"),
        ("spans.jsonl:5#b", "failed"),
    ]
    said = [o for o in lines if o.get("unreadable") == "spans.jsonl:4#a"]
    assert said[0]["error"].startswith(
        "the group 'a' (from spans.jsonl:1#a) continues here, more than --group-window 1 lines"
    )
    assert done.returncode == 1


def test_model_calls_group_by_a_nested_field_and_keyless_lines_are_reported(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text(
        "\n".join(
            [
                _call("s1", ["Refund order 7"], "Checking."),
                _call("s2", ["Hi"], "Hello."),
                json.dumps({"request": {"messages": []}, "response": {}}),
                _call("s1", ["Refund order 7", "Checking.", "Well?"], "Refunded."),
            ]
        )
        + "\n"
    )
    done = run_in_process(
        "check", "-a", REFUNDED, "calls.jsonl", "--group-by", "metadata.session_id",
        "-f", "json", "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    lines = _outcomes(done.stdout)
    assert {"unreadable": "calls.jsonl:3", "error": "1 record of this line has no "
            "'metadata.session_id' to group by"} in lines  # fmt: skip
    checked = {o["source"]: o["result"]["status"] for o in lines if "result" in o}
    assert checked == {"calls.jsonl:1#s1": "passed", "calls.jsonl:2#s2": "failed"}


def test_group_by_trace_and_a_bad_window_value(tmp_path: Path) -> None:
    log = tmp_path / "spans.jsonl"
    log.write_text("\n".join(line for line in INTERLEAVED if line.startswith('{"')) + "\n")
    done = run_in_process(
        "check", "-a", REFUNDED, "spans.jsonl", "--group-by", "trace", "-f", "json",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    checked = {o["source"] for o in _outcomes(done.stdout) if "result" in o}
    assert checked == {"spans.jsonl:1#a", "spans.jsonl:2#b"}  # the trace's session names it
    bad = run_in_process("check", "-a", REFUNDED, "spans.jsonl", "--group-by", "trace",
              "--group-window", "0", cwd=tmp_path)  # fmt: skip
    assert bad.returncode == 2
    assert "--group-window must be at least 1 (got 0)" in bad.stderr


def _events(path: Path) -> list[list[dict[str, Any]]]:
    out = []
    for line in path.read_text().splitlines():
        (resource,) = json.loads(line)["resourceLogs"]
        (scope,) = resource["scopeLogs"]
        assert scope["scope"]["name"] == "chatassert"
        out.append(scope["logRecords"])
    return out


def _attrs(event: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in event["attributes"]}


def test_otel_results_link_each_node_to_the_span_it_evaluated(tmp_path: Path) -> None:
    (tmp_path / "spans.jsonl").write_text("\n".join(INTERLEAVED) + "\n")
    done = run(
        "check", "-a", "{type: contains, value: Refunded}", "spans.jsonl",
        "--group-by", "session.id", "-o", "results.otel.jsonl", "-o", "results.jsonl",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    session_a, session_b = _events(tmp_path / "results.otel.jsonl")
    case, _every_turn, first, second = session_a
    assert {e["eventName"] for e in session_a} == {"gen_ai.evaluation.result"}
    assert _attrs(case) == {
        "gen_ai.evaluation.name": "contains 'Refunded'",
        "gen_ai.evaluation.score.label": "failed",
        "gen_ai.evaluation.explanation": "1 assertion failed; first: contains: Response does "
        "not contain 'Refunded'",
        "chatassert.status": "failed",
        "chatassert.suite": "--assert",
        "chatassert.case": "contains 'Refunded'",
        "chatassert.assertion": "case",
        "chatassert.source": "spans.jsonl:1#a",
    }
    # the case and the every-turn node: the root span; each turn's node: its turn's span
    assert [(e.get("traceId"), e.get("spanId")) for e in session_a] == [
        (T1, "a000000000000001"),
        (T1, "a000000000000001"),
        (T1, "a000000000000001"),
        (T1, "a000000000000002"),
    ]
    assert (first["severityText"], second["severityText"]) == ("WARN", "INFO")
    assert _attrs(second)["chatassert.location"] == "conversation.turns[1]"
    assert _attrs(first)["chatassert.pointer"] == "/turns/0/text"
    assert session_b[0]["traceId"] == T2
    # the JSON report of the same run has the same outcomes
    json_sources = [
        o["source"] for o in _outcomes((tmp_path / "results.jsonl").read_text()) if "result" in o
    ]
    assert json_sources == ["spans.jsonl:1#a", "spans.jsonl:2#b"]


def test_otel_results_of_a_log_without_traces_carry_no_ids_and_errors_say_so(
    tmp_path: Path,
) -> None:
    """A chat log has no spans to link to; a check that cannot decide (no latency logged) is
    an ERROR event with the conventions' `error.type` for an error of no listed type."""
    log = tmp_path / "chat.jsonl"
    log.write_text(_call("s", ["Hi"], "Hello") + "\n")
    done = run(
        "check", "-a", "{type: latency_at_most, ms: 5}", "chat.jsonl", "-f", "otel",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 3
    (events,) = [json.loads(line) for line in done.stdout.splitlines()]
    records = events["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    assert all("traceId" not in r and "spanId" not in r for r in records)
    leaf = _attrs(records[-1])
    assert (records[-1]["severityNumber"], records[-1]["severityText"]) == (17, "ERROR")
    assert (leaf["gen_ai.evaluation.score.label"], leaf["error.type"]) == ("error", "_OTHER")
    assert "latency" in leaf["gen_ai.evaluation.explanation"]


def test_otel_contradicting_an_extension_and_regate_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "chat.jsonl").write_text(_call("s", ["Hi"], "Hello") + "\n")
    done = run_in_process("check", "-a", REFUNDED, "chat.jsonl", "-f", "otel", "-o", "r.jsonl",
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert "--format otel does not match the extension of --output r.jsonl (json)" in done.stderr
    (tmp_path / "r.jsonl").write_text('{"summary": {}}\n')
    regated = run_in_process(
        "regate", "r.jsonl", "--min-score", "j=0.5", "-o", "x.otel.jsonl", cwd=tmp_path
    )
    assert regated.returncode == 2
    assert "otel reports are written by check" in regated.stderr
