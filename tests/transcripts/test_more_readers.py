"""OpenAI Agents SDK traces, Inspect AI eval logs, LangSmith runs and promptfoo output
(docs/offline.md), and records that hold several conversations (`Record.parts`).

Each fixture is written from its format's public definition: the Agents SDK's `Trace.export()`
and `Span.export()` (`span_data` per span type), Inspect AI's `EvalLog` / `EvalSample` /
`ChatMessage*`, LangSmith's `Run` (`run_type`, `inputs`, `outputs`, `child_runs`,
`dotted_order`), and promptfoo's `promptfoo eval -o out.json` (`results.results[]`).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chatassert._errors import TranscriptError
from chatassert.transcripts import FORMATS, parse_line, parse_record, read_records
from cli_runs import run_in_process

# -- OpenAI Agents SDK ---------------------------------------------------------------------------


def _span(sid: str, start: str, data: dict[str, Any], error: Any = None) -> dict[str, Any]:
    return {
        "object": "trace.span",
        "id": sid,
        "trace_id": "trace_abc",
        "parent_id": None,
        "started_at": f"2025-03-01T10:00:{start}+00:00",
        "ended_at": f"2025-03-01T10:00:{start}+00:00",
        "span_data": data,
        "error": error,
    }


_HANDOFF_CALL = {
    "id": "call_h",
    "type": "function",
    "function": {"name": "transfer_to_billing", "arguments": "{}"},
}
_REFUND_CALL = {
    "id": "call_r",
    "type": "function",
    "function": {"name": "refund", "arguments": '{"order": 42}'},
}
_USER = {"role": "user", "content": "I want a refund for order 42"}


def _trace() -> dict[str, Any]:
    """Triage hands over to Billing, whose refund tool fails; two guardrails run."""
    first = [{"role": "system", "content": "Route the user."}, _USER]
    second = [
        {"role": "system", "content": "Handle billing."},
        _USER,
        {"role": "assistant", "content": None, "tool_calls": [_HANDOFF_CALL]},
        {"role": "tool", "tool_call_id": "call_h", "content": '{"assistant": "Billing"}'},
    ]
    third = [
        *second,
        {"role": "assistant", "content": None, "tool_calls": [_REFUND_CALL]},
        {"role": "tool", "tool_call_id": "call_r", "content": "An error occurred."},
    ]
    spans = [
        # out of start order on purpose: spans are read by started_at
        _span(
            "span_gen3",
            "03.000000",
            {
                "type": "generation",
                "input": third,
                "model": "gpt-4o",
                "output": [{"role": "assistant", "content": "Sorry, refunds are down."}],
                "usage": {"input_tokens": 70, "output_tokens": 10},
            },
        ),
        _span(
            "span_agent1",
            "00.000000",
            {
                "type": "agent",
                "name": "Triage",
                "handoffs": ["Billing"],
                "tools": [],
                "output_type": "str",
            },
        ),
        _span(
            "span_guard",
            "00.100000",
            {
                "type": "guardrail",
                "name": "pii_check",
                "triggered": False,
            },
        ),
        _span(
            "span_gen1",
            "00.200000",
            {
                "type": "generation",
                "input": first,
                "model": "gpt-4o",
                "model_config": {},
                "output": [{"role": "assistant", "content": None, "tool_calls": [_HANDOFF_CALL]}],
                "usage": {"input_tokens": 30, "output_tokens": 5},
            },
        ),
        _span(
            "span_hand",
            "01.000000",
            {
                "type": "handoff",
                "from_agent": "Triage",
                "to_agent": "Billing",
            },
        ),
        _span("span_agent2", "01.100000", {"type": "agent", "name": "Billing"}),
        _span(
            "span_gen2",
            "01.200000",
            {
                "type": "generation",
                "input": second,
                "model": "gpt-4o",
                "output": [{"role": "assistant", "content": None, "tool_calls": [_REFUND_CALL]}],
                "usage": {"input_tokens": 50, "output_tokens": 8},
            },
        ),
        _span(
            "span_fn",
            "02.000000",
            {
                "type": "function",
                "name": "refund",
                "input": '{"order": 42}',
                "output": None,
                "mcp_data": None,
            },
            {"message": "Error running tool", "data": {"tool_name": "refund"}},
        ),
        _span(
            "span_guard2",
            "04.000000",
            {
                "type": "guardrail",
                "name": "tone_check",
                "triggered": True,
            },
        ),
    ]
    return {
        "object": "trace", "id": "trace_abc", "workflow_name": "Support",
        "group_id": "thread_1", "metadata": {"case": "refund"}, "spans": spans,
    }  # fmt: skip


def test_an_agents_trace_gives_messages_calls_results_agents_and_guardrails() -> None:
    record = parse_line(json.dumps(_trace()), "traces.jsonl", 1)
    assert record.error is None
    conv = record.conversation
    assert conv is not None
    assert conv.id == "trace_abc"
    assert conv.metadata == {
        "case": "refund",
        "trace_id": "trace_abc",
        "workflow_name": "Support",
        "group_id": "thread_1",
    }
    (turn,) = conv.turns  # Billing's system prompt is not a message: one user turn
    assert turn.input == "I want a refund for order 42"
    assert turn.text == "Sorry, refunds are down."
    assert [c.name for c in turn.tool_calls] == ["transfer_to_billing", "refund"]
    assert turn.tool_calls[1].arguments == {"order": 42}
    assert [(r.name, r.is_error) for r in turn.tool_results] == [
        ("transfer_to_billing", False),
        ("refund", True),  # the function span's error marks the result its call got
    ]
    assert turn.agent == "Billing"
    assert [(g.name, g.triggered) for g in turn.guardrails] == [
        ("pii_check", False),
        ("tone_check", True),
    ]
    assert turn.metadata["model_calls"] == 3
    assert turn.metadata["input_tokens"] == 150
    assert turn.metadata["model"] == "gpt-4o"


def test_a_handoff_in_an_earlier_turn_sets_that_turns_agent() -> None:
    trace = _trace()
    # a second user turn answered after the handoff
    spans = trace["spans"]
    later = copy.deepcopy(spans[0])
    later["id"] = "span_gen4"
    later["started_at"] = "2025-03-01T10:00:05.000000+00:00"
    later["span_data"]["input"] = [
        *later["span_data"]["input"],
        {"role": "assistant", "content": "Sorry, refunds are down."},
        {"role": "user", "content": "Thanks"},
    ]
    later["span_data"]["output"] = [{"role": "assistant", "content": "You're welcome."}]
    spans.append(later)
    conv = parse_record(trace)
    assert [t.input for t in conv.turns] == ["I want a refund for order 42", "Thanks"]
    assert [t.agent for t in conv.turns] == ["Billing", "Billing"]
    assert conv.turns[0].guardrails[0].name == "pii_check"
    assert [g.name for g in conv.turns[1].guardrails] == []


def test_a_trace_of_response_spans_reads_its_function_spans_as_the_calls() -> None:
    """The SDK's default export keeps only a response span's id: the function spans are then
    what can be checked."""
    spans = [
        _span("s1", "00.000000", {"type": "agent", "name": "Researcher"}),
        _span("s2", "00.100000", {"type": "response", "response_id": "resp_1", "usage": None}),
        _span("s3", "00.200000", {"type": "function", "name": "search",
                                  "input": '{"q": "EU AI Act"}', "output": "3 hits"}),
        _span("s4", "00.300000", {"type": "function", "name": "fetch", "input": "{bad json",
                                  "output": None}, {"message": "timeout", "data": None}),
    ]  # fmt: skip
    conv = parse_record([{"object": "trace", "id": "trace_abc"}, *spans])
    (turn,) = conv.turns
    assert turn.input is None
    assert [c.name for c in turn.tool_calls] == ["search", "fetch"]
    assert turn.tool_calls[0].arguments == {"q": "EU AI Act"}
    assert turn.tool_calls[1].arguments_error is not None
    assert not turn.tool_calls[1].arguments_unrecorded  # recorded, as text that is not JSON
    assert turn.text == ""
    assert turn.unrecorded["text"].startswith("the trace keeps only the model call's id")
    assert [(r.content, r.is_error) for r in turn.tool_results] == [
        ("3 hits", False),
        ("timeout", True),
    ]
    assert turn.agent == "Researcher"


def test_a_batch_of_several_traces_is_one_conversation_per_trace(tmp_path: Path) -> None:
    def trace(tid: str, answer: str) -> list[dict[str, Any]]:
        gen = _span(f"{tid}_g", "00.000000", {
            "type": "generation", "input": [{"role": "user", "content": "Hi"}],
            "output": [{"role": "assistant", "content": answer}],
        })  # fmt: skip
        gen["trace_id"] = tid
        return [{"object": "trace", "id": tid, "workflow_name": "w"}, gen]

    batch = {"data": [*trace("trace_1", "Hello"), *trace("trace_2", "Hey")]}
    log = tmp_path / "batch.jsonl"
    log.write_text(json.dumps(batch) + "\n", encoding="utf-8")
    records = list(read_records(log))
    assert [r.where for r in records] == [f"{log}:1#trace_1", f"{log}:1#trace_2"]
    assert [r.conversation.turns[0].text for r in records if r.conversation] == ["Hello", "Hey"]
    with pytest.raises(TranscriptError, match="holds 2 traces"):
        parse_record(batch)


@pytest.mark.parametrize(
    ("record", "error"),
    [
        (
            _span("s1", "00.000000", {"type": "agent", "name": "A"}),
            "the record is one span (of trace 'trace_abc'), not a trace",
        ),
        (
            {"object": "trace", "id": "t", "spans": [
                _span("g", "00.000000", {"type": "guardrail", "name": "x", "triggered": "yes"})
            ]},
            "span 'g': span_data.triggered must be true or false, got \"yes\"",
        ),
        ({"object": "trace", "id": "t", "spans": []}, "the trace has no spans to read"),
        (
            {"object": "trace", "id": "t", "spans": [
                _span("g", "00.000000", {"type": "generation", "input": "Hi", "output": []})
            ]},
            "span 'g'.span_data.input is not a list",
        ),
    ],
)  # fmt: skip
def test_a_malformed_agents_trace_is_an_error_naming_what_is_wrong(record: Any, error: str) -> None:
    read = parse_line(json.dumps(record), "t.jsonl", 7)
    assert read.conversation is None
    assert read.error is not None
    assert read.error.startswith(error), read.error


# -- Inspect AI ----------------------------------------------------------------------------------


def _sample(sid: Any, epoch: int = 1) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": epoch,
        "input": "What is 17 * 3?",
        "target": "51",
        "messages": [
            {"id": "m1", "role": "system", "content": "Use the calculator.", "source": "input"},
            {"id": "m2", "role": "user", "content": "What is 17 * 3?", "source": "input"},
            {
                "id": "m3",
                "role": "assistant",
                "source": "generate",
                "model": "openai/gpt-4o",
                "content": [
                    {"type": "reasoning", "reasoning": "multiply"},
                    {"type": "text", "text": "Let me compute."},
                ],
                "tool_calls": [
                    {
                        "id": "tc1",
                        "function": "calc",
                        "arguments": {"expr": "17*3"},
                        "type": "function",
                    }
                ],
            },
            {
                "id": "m4",
                "role": "tool",
                "tool_call_id": "tc1",
                "function": "calc",
                "content": "",
                "error": {"type": "timeout", "message": "calculator timed out"},
            },
            {"id": "m5", "role": "assistant", "content": "attachment://a1b2", "source": "generate"},
        ],
        "output": {
            "model": "gpt-4o-2024-08-06",
            "choices": [{"message": {"role": "assistant", "content": "It is 51."}}],
            "usage": {"input_tokens": 40, "output_tokens": 6, "total_tokens": 46},
        },
        "scores": {"match": {"value": "C", "answer": "51", "explanation": "51"}},
        "metadata": {"difficulty": "easy"},
        "attachments": {"a1b2": "It is 51."},
    }


def _log(*samples: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {"run_id": "run1", "task": "arithmetic", "task_id": "t1", "model": "openai/gpt-4o",
                 "created": "2025-03-01T10:00:00+00:00", "dataset": {"samples": len(samples)}},
        "plan": {"name": "plan", "steps": []},
        "results": {"total_samples": len(samples), "scores": []},
        "stats": {"started_at": "", "completed_at": ""},
        "samples": list(samples),
    }  # fmt: skip


def test_an_inspect_log_is_one_conversation_per_sample(tmp_path: Path) -> None:
    broken = _sample("q2")
    broken["messages"][1]["role"] = "human"
    log = tmp_path / "eval.json"
    log.write_text(json.dumps(_log(_sample("q1"), broken, _sample(3)), indent=2), "utf-8")
    records = list(read_records(log))
    assert [r.where for r in records] == [f"{log}:1#q1", f"{log}:1#q2", f"{log}:1#3"]
    first, second, third = records
    assert second.error == ('messages[1].role must be system, user, assistant or tool, got "human"')
    assert third.conversation is not None
    assert third.conversation.id == "3"
    conv = first.conversation
    assert conv is not None
    assert conv.id == "q1"
    (turn,) = conv.turns
    assert turn.input == "What is 17 * 3?"
    assert turn.text == "It is 51."  # read back from the sample's attachments
    assert turn.tool_calls[0].name == "calc"
    assert turn.tool_calls[0].arguments == {"expr": "17*3"}
    (result,) = turn.tool_results
    assert (result.name, result.is_error, result.content) == ("calc", True, "calculator timed out")
    assert turn.metadata["output_tokens"] == 6
    assert turn.metadata["model"] == "openai/gpt-4o"  # the message's model comes first
    assert conv.metadata == {
        "difficulty": "easy",
        "epoch": 1,
        "target": "51",
        "task": "arithmetic",
        "model": "openai/gpt-4o",
        "run_id": "run1",
        "scores": {"match": "C"},
    }


def test_samples_of_several_epochs_are_named_with_their_epoch() -> None:
    record = parse_line(json.dumps(_log(_sample("q1", 1), _sample("q1", 2))), "e.json", 1)
    assert [r.where for r in record.each()] == ["e.json:1#q1@1", "e.json:1#q1@2"]
    assert record.conversation is None
    assert record.error is None


def test_an_inspect_log_without_samples_is_one_error() -> None:
    log = _log()
    log["status"] = "started"
    (record,) = parse_line(json.dumps(log), "e.json", 1).each()
    assert record.error == (
        "the eval log holds no samples (status 'started'; a log written with "
        "--no-log-samples keeps none)"
    )
    with pytest.raises(TranscriptError, match="holds 2 samples: read it with read_records"):
        parse_record(_log(_sample(1), _sample(2)))


# -- LangSmith -----------------------------------------------------------------------------------


def _lc(kind: str, **kwargs: Any) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind],
            "kwargs": kwargs}  # fmt: skip


def _run(name: str, run_type: str, order: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"id-{name}", "name": name, "run_type": run_type, "trace_id": "tr-1",
        "dotted_order": order, "start_time": "2025-03-01T10:00:00",
        "end_time": "2025-03-01T10:00:01.5", "inputs": {}, "outputs": {}, "error": None,
        "child_runs": [], **fields,
    }  # fmt: skip


def _run_tree() -> dict[str, Any]:
    question = _lc("HumanMessage", content="Weather in Oslo?")
    call = _lc(
        "AIMessage",
        content="",
        tool_calls=[
            {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1", "type": "tool_call"}
        ],
    )
    first = _run(
        "ChatOpenAI",
        "llm",
        "1.1",
        inputs={"messages": [[question]]},
        outputs={
            "generations": [[{"text": "", "message": call}]],
            "llm_output": {"token_usage": {"prompt_tokens": 20, "completion_tokens": 7}},
        },
        extra={"invocation_params": {"model": "gpt-4o-mini"}},
    )
    tool = _run(
        "get_weather",
        "tool",
        "1.2",
        inputs={"input": "{'city': 'Oslo'}"},
        outputs=None,
        error="ConnectionError: weather API down",
    )
    answer = _lc(
        "AIMessage",
        content="I could not get the weather.",
        usage_metadata={"input_tokens": 30, "output_tokens": 8, "total_tokens": 38},
    )
    second = _run(
        "ChatOpenAI",
        "llm",
        "1.3",
        inputs={
            "messages": [
                [
                    question,
                    call,
                    _lc("ToolMessage", content="error", tool_call_id="call_1", status="error"),
                ]
            ]
        },
        outputs={"generations": [[{"text": "", "message": answer}]]},
    )
    return _run("agent", "chain", "1", inputs={"input": "Weather in Oslo?"},
                outputs={"output": "I could not get the weather."},
                child_runs=[second, tool, first], tags=["prod"],
                extra={"metadata": {"case": "weather"}})  # fmt: skip


def test_a_langsmith_run_tree_gives_messages_tool_calls_and_results() -> None:
    conv = parse_record(_run_tree())
    assert conv.id == "id-agent"
    assert conv.metadata == {
        "case": "weather",
        "trace_id": "tr-1",
        "run_name": "agent",
        "tags": ["prod"],
    }
    (turn,) = conv.turns
    assert turn.input == "Weather in Oslo?"
    assert turn.text == "I could not get the weather."
    assert [(c.name, c.arguments, c.id) for c in turn.tool_calls] == [
        ("get_weather", {"city": "Oslo"}, "call_1")
    ]
    (result,) = turn.tool_results
    assert (result.content, result.is_error) == ("error", True)
    assert turn.metadata["model"] == "gpt-4o-mini"
    assert turn.metadata["input_tokens"] == 50
    assert turn.metadata["latency_ms"] == 3000.0


def test_a_run_without_model_messages_reads_its_string_input_output_and_tools() -> None:
    tool = _run("lookup", "tool", "1.1", inputs={"order": 7}, outputs={"output": "shipped"})
    root = _run("flow", "chain", "1", inputs={"question": "Where is order 7?"},
                outputs={"answer": "Order 7 has shipped."}, child_runs=[tool])  # fmt: skip
    (turn,) = parse_record(root).turns
    assert (turn.input, turn.text) == ("Where is order 7?", "Order 7 has shipped.")
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("lookup", {"order": 7})]
    assert [r.content for r in turn.tool_results] == ["shipped"]


def test_a_flat_list_of_runs_of_two_traces_is_two_conversations() -> None:
    one = _run("a", "chain", "1", inputs={"input": "Hi"}, outputs={"output": "Hello"})
    two = _run("b", "chain", "1", inputs={"input": "Yo"}, outputs={"output": "Hey"})
    two["trace_id"] = "tr-2"
    record = parse_line(json.dumps([one, two]), "runs.jsonl", 4)
    assert [(r.where, r.conversation.turns[0].text if r.conversation else None)
            for r in record.each()] == [("runs.jsonl:4#tr-1", "Hello"),
                                        ("runs.jsonl:4#tr-2", "Hey")]  # fmt: skip


def test_a_langsmith_run_with_nothing_to_check_is_an_error() -> None:
    record = parse_line(json.dumps(_run("r", "retriever", "1")), "runs.jsonl", 1)
    assert record.error == (
        "the runs hold no model messages, tool calls or string input and output to check"
    )


# -- promptfoo -----------------------------------------------------------------------------------


def _promptfoo() -> dict[str, Any]:
    chat = json.dumps([
        {"role": "system", "content": "Answer in French."},
        {"role": "user", "content": "Translate: good morning"},
    ])  # fmt: skip
    return {
        "evalId": "eval-2025-03-01",
        "results": {
            "version": 3,
            "timestamp": "2025-03-01T10:00:00.000Z",
            "prompts": [],
            "results": [
                {
                    "id": "r-1", "promptIdx": 0, "testIdx": 0,
                    "testCase": {"vars": {"phrase": "good morning"}, "description": "greeting"},
                    "prompt": {"raw": chat, "label": "chat.json"},
                    "provider": {"id": "openai:gpt-4o-mini", "label": ""},
                    "vars": {"phrase": "good morning"},
                    "response": {"output": "Bonjour",
                                 "tokenUsage": {"total": 14, "prompt": 12, "completion": 2}},
                    "success": True, "score": 1, "latencyMs": 420, "cost": 0.0001,
                    "gradingResult": {"pass": True, "score": 1, "reason": "All assertions passed"},
                },
                {
                    "promptIdx": 1, "testIdx": 0,
                    "prompt": {"raw": "Say hi to {{name}}", "label": "plain"},
                    "vars": {"name": "Ana"}, "provider": {"id": "echo"},
                    "response": {"output": {"tool_calls": [{"id": "c1", "type": "function",
                                 "function": {"name": "greet", "arguments": '{"who": "Ana"}'}}]}},
                    "success": False, "score": 0,
                },
                {
                    "promptIdx": 2, "testIdx": 0, "prompt": {"raw": "Hi"},
                    "error": "API error: 429 Too Many Requests", "response": {"error": "429"},
                    "success": False, "score": 0,
                },
            ],
            "stats": {"successes": 1, "failures": 2},
        },
        "config": {},
    }  # fmt: skip


def test_promptfoo_output_is_one_turn_per_result_with_vars_kept() -> None:
    record = parse_line(json.dumps(_promptfoo()), "out.json", 1)
    chat, tools, failed = record.each()
    assert [r.where for r in record.each()] == [
        "out.json:1#results[0]",
        "out.json:1#results[1]",
        "out.json:1#results[2]",
    ]
    conv = chat.conversation
    assert conv is not None
    assert conv.id == "r-1"
    (turn,) = conv.turns
    assert (turn.input, turn.text) == ("Translate: good morning", "Bonjour")
    assert turn.messages[0].role == "system"
    assert {k: turn.metadata[k] for k in ("input_tokens", "output_tokens", "latency_ms")} == {
        "input_tokens": 12,
        "output_tokens": 2,
        "latency_ms": 420,
    }
    assert conv.metadata["vars"] == {"phrase": "good morning"}
    assert conv.metadata["description"] == "greeting"
    assert conv.metadata["provider"] == "openai:gpt-4o-mini"
    assert conv.metadata["promptfoo_success"] is True
    assert tools.conversation is not None
    assert tools.conversation.id == "test0-prompt1"
    (turn,) = tools.conversation.turns
    assert turn.input == "Say hi to {{name}}"
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("greet", {"who": "Ana"})]
    assert failed.error == (
        "the result has no response.output to check: API error: 429 Too Many Requests"
    )


# -- detection, reading and the command line -----------------------------------------------------


@pytest.mark.parametrize(
    ("record", "name"),
    [
        (_trace(), "agents-sdk"),
        (_log(_sample(1)), "inspect"),
        (_run_tree(), "langsmith"),
        (_promptfoo(), "promptfoo"),
    ],
)
def test_each_new_format_is_detected_as_itself_and_by_no_other(record: Any, name: str) -> None:
    assert [n for n, (detect, _) in FORMATS.items() if detect(record)] == [name]


def test_a_forced_format_still_reads_every_part() -> None:
    record = parse_line(json.dumps(_promptfoo()), "out.json", 1, format="promptfoo")
    assert len(record.each()) == 3
    wrong = parse_line(json.dumps(_promptfoo()), "out.json", 1, format="inspect")
    assert wrong.error == "expected an Inspect AI eval log ('eval' and 'samples')"


_NOT_A_LIST = 'the sample\'s messages must be a list, got "none"'


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_cli_checks_and_reports_each_sample_of_a_log(tmp_path: Path, jobs: str) -> None:
    good = _sample("ok")
    bad = _sample("leaky")
    bad["attachments"] = {"a1b2": "It is 51. internal error"}
    broken = _sample("broken")
    broken["messages"] = "none"
    log = tmp_path / "run.json"
    log.write_text(json.dumps(_log(good, bad, broken), indent=2), encoding="utf-8")
    args = ["check", "--assert", "{type: not_contains, value: internal error}", "run.json",
            "-f", "json", "--jobs", jobs]  # fmt: skip
    if jobs == "1":  # in this process (tests/cli_runs.py); with workers, as a subprocess
        proc = run_in_process(*args, cwd=tmp_path)
    else:
        proc = subprocess.run(
            [sys.executable, "-m", "chatassert", *args],
            capture_output=True, text=True, cwd=tmp_path, check=False,
        )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    checked = [(r["source"], r["subject_id"], r["result"]["status"]) for r in rows if "source" in r]
    assert checked == [("run.json:1#ok", "ok", "passed"), ("run.json:1#leaky", "leaky", "failed")]
    assert {"unreadable": "run.json:1#broken", "error": _NOT_A_LIST} in rows
    assert f"run.json:1#broken: skipped: {_NOT_A_LIST}" in proc.stderr
    summary = rows[-1]["summary"]
    assert (summary["passed"], summary["failed"], summary["unreadable"]) == (1, 1, 1)
    assert summary["records"] == 1  # one log record, three conversations


# -- the examples of docs/offline.md -------------------------------------------------------------

_GUIDE = Path(__file__).parents[2] / "docs" / "offline.md"


def _example(heading: str) -> str:
    """The first ```json block of the section of docs/offline.md whose heading names `heading`."""
    text = _GUIDE.read_text(encoding="utf-8")
    section = text[text.index(f"(`{heading}`)") :]
    block = section[section.index("```json\n") + len("```json\n") :]
    return block[: block.index("```")]


def test_the_agents_sdk_example_of_the_docs_reads_as_documented(tmp_path: Path) -> None:
    (record,) = read_records(_write(tmp_path, "trace.jsonl", _example("agents-sdk")))
    conv = record.conversation
    assert conv is not None, record.error
    (turn,) = conv.turns
    assert (turn.input, turn.agent) == ("Refund order 42", "Billing")
    assert [(r.name, r.is_error) for r in turn.tool_results] == [("refund", True)]
    assert [g.name for g in turn.guardrails] == ["pii_check"]
    assert (conv.id, conv.metadata["case"]) == ("trace_7f3a", "refund")


def test_the_inspect_example_of_the_docs_reads_as_documented(tmp_path: Path) -> None:
    (record,) = read_records(_write(tmp_path, "log.json", _example("inspect")))
    assert record.where.endswith("log.json:1#q1")
    conv = record.conversation
    assert conv is not None, record.error
    assert conv.turns[0].text == "It is 51."
    assert conv.turns[0].tool_calls[0].arguments == {"expr": "17*3"}
    assert conv.metadata["scores"] == {"match": "C"}


def test_the_langsmith_example_of_the_docs_reads_as_documented(tmp_path: Path) -> None:
    (record,) = read_records(_write(tmp_path, "runs.jsonl", _example("langsmith")))
    conv = record.conversation
    assert conv is not None, record.error
    (turn,) = conv.turns
    assert (turn.input, turn.text) == ("Weather in Oslo?", "It is 4°C in Oslo.")
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("get_weather", {"city": "Oslo"})]
    assert [r.content for r in turn.tool_results] == ["4°C"]
    assert conv.metadata["case"] == "weather"


def test_the_promptfoo_example_of_the_docs_reads_as_documented(tmp_path: Path) -> None:
    (record,) = read_records(_write(tmp_path, "out.json", _example("promptfoo")))
    assert record.where.endswith("out.json:1#results[0]")
    conv = record.conversation
    assert conv is not None, record.error
    assert (conv.turns[0].input, conv.turns[0].text) == (
        "Translate to French: good morning",
        "Bonjour",
    )
    assert conv.metadata["vars"] == {"phrase": "good morning"}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path
