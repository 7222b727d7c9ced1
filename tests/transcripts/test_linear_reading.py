"""Reading a trace takes work linear in what it holds, measured without a clock.

A trace of thousands of spans on one line (`check --group-by trace`, or a trace read whole)
was read in time quadratic in its spans: each model call's messages were merged by reading the
whole history again, tool results were matched by scanning every call and inserted one list
move at a time, and closing a group scanned every open trace. The measure here is the number
of Python lines the readers execute (`sys.settrace`, counted in `chatassert.transcripts` only):
deterministic, and blind to how busy the machine is. Four times the spans must cost about four
times the lines; a quadratic reader costs sixteen.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import chatassert.transcripts as transcripts
from chatassert.transcripts import parse_line
from chatassert.transcripts._build import Exchanges, Msg, _overlap, match_tool_runs, tool_call
from chatassert.transcripts._group import grouped

_PACKAGE = str(Path(transcripts.__file__).parent)


def lines_run(work: Callable[[], Any]) -> int:
    """How many lines of `chatassert.transcripts` running `work()` executes."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(_PACKAGE) else None

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        work()
    finally:
        sys.settrace(previous)
    return count


def _attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _parts(role: str, **part: Any) -> str:
    return json.dumps([{"role": role, "parts": [part]}])


def otel_trace(spans: int) -> str:
    """One trace: `spans` chat spans, each a user message and a tool call answered only by an
    `execute_tool` span (so each result is added from its span)."""
    out = []
    for i in range(spans):
        call = {"type": "tool_call", "id": f"c{i}", "name": "lookup", "arguments": {"n": i}}
        chat = [
            _attr("gen_ai.operation.name", "chat"),
            _attr("gen_ai.system_instructions", json.dumps("Be brief.")),
            _attr("gen_ai.input.messages", _parts("user", type="text", content=f"q{i}")),
            _attr("gen_ai.output.messages", _parts("assistant", **call)),
        ]
        tool = [
            _attr("gen_ai.operation.name", "execute_tool"),
            _attr("gen_ai.tool.call.id", f"c{i}"),
            _attr("gen_ai.tool.call.result", f"r{i}"),
        ]
        for n, attributes in ((2 * i, chat), (2 * i + 1, tool)):
            out.append(
                {
                    "traceId": "5b8efff798038103d269b633813fc60c",
                    "spanId": f"{n:016x}",
                    "name": "span",
                    "startTimeUnixNano": str(1000 + n),
                    "endTimeUnixNano": str(2000 + n),
                    "attributes": attributes,
                }
            )
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": out}]}]})


def agents_trace(spans: int) -> str:
    """One Agents SDK trace: generation spans each calling a tool whose result only its
    function span gives (matched by name, in order)."""
    out = []
    for i in range(spans):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        generation = {
            "type": "generation",
            "input": [{"role": "system", "content": "S"}, {"role": "user", "content": f"q{i}"}],
            "output": [{"role": "assistant", "content": None, "tool_calls": [call]}],
        }
        function = {"type": "function", "name": "f", "input": "{}", "output": f"r{i}"}
        for n, data in ((2 * i, generation), (2 * i + 1, function)):
            out.append(
                {
                    "object": "trace.span",
                    "id": f"s{n}",
                    "trace_id": "trace_1",
                    "started_at": f"2025-03-01T10:00:00.{n:06d}",
                    "span_data": data,
                }
            )
    return json.dumps({"object": "trace", "id": "trace_1", "spans": out})


def langsmith_runs(runs: int) -> str:
    """One LangSmith run tree: model runs each calling a tool, and the tool runs."""
    children = []
    for i in range(runs):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        children.append(
            {
                "name": "chat",
                "run_type": "llm",
                "dotted_order": f"1.{2 * i:06d}",
                "inputs": {"messages": [{"role": "user", "content": f"q{i}"}]},
                "outputs": {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]},
            }
        )
        children.append(
            {
                "name": "f",
                "run_type": "tool",
                "dotted_order": f"1.{2 * i + 1:06d}",
                "inputs": {},
                "outputs": {"output": f"r{i}"},
            }
        )
    return json.dumps({"name": "root", "run_type": "chain", "inputs": {}, "child_runs": children})


def _read(line: str) -> Callable[[], None]:
    def work() -> None:
        record = parse_line(line, "trace.jsonl", 1)
        assert record.conversation is not None, record.error
        turns = record.conversation.turns
        assert all(t.tool_results for t in turns), "every call's result was read"

    return work


def _group_by_trace(line: str) -> Callable[[], None]:
    def work() -> None:
        (group,) = grouped([(1, line)], "trace.jsonl", "trace", None)
        assert group.record().conversation is not None

    return work


_SHAPES: dict[str, Callable[[int], Callable[[], None]]] = {
    "otel": lambda n: _read(otel_trace(n)),
    "otel --group-by trace": lambda n: _group_by_trace(otel_trace(n)),
    "agents-sdk": lambda n: _read(agents_trace(n)),
    "langsmith": lambda n: _read(langsmith_runs(n)),
}


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_four_times_the_spans_cost_about_four_times_the_work(shape: str) -> None:
    small, large = _SHAPES[shape](150), _SHAPES[shape](600)
    ratio = lines_run(large) / lines_run(small)
    assert ratio < 4.6, f"{shape}: 4x the spans ran {ratio:.1f}x the lines (quadratic: ~16x)"


def test_many_open_groups_close_in_work_linear_in_them() -> None:
    """Groups that each close when the window passes them: closing one does not scan the
    traces of all the others."""

    def lines(groups: int) -> list[tuple[int, str]]:
        out = []
        for i in range(groups):
            span = {"traceId": f"{i:032x}", "spanId": f"{i:016x}", "attributes": {}}
            out.append((i + 1, json.dumps(span)))
        return out

    def work(groups: int) -> Callable[[], None]:
        numbered = lines(groups)
        return lambda: list(grouped(numbered, "spans.jsonl", "trace", groups // 2))

    ratio = lines_run(work(1_600)) / lines_run(work(400))
    assert ratio < 4.6, f"4x the groups ran {ratio:.1f}x the lines"


# -- the pieces, on inputs built to make a careless version quadratic --------------------------


def test_finding_the_repeated_part_of_a_request_is_linear_in_its_messages() -> None:
    """A request that repeats all but the last message of the history's end: trying every
    length of the repeated part, each compared up to its last message, is quadratic."""

    def work(size: int) -> Callable[[], None]:
        def run() -> None:
            history = [*(Msg("user", "a") for _ in range(size)), Msg("assistant", "c")]
            request = [*(Msg("user", "a") for _ in range(size)), Msg("user", "b")]
            Exchanges(history).merge(request, [Msg("assistant", "d")])
            assert len(history) == 2 * size + 3  # nothing was repeated: all of it is new

        return run

    ratio = lines_run(work(1_200)) / lines_run(work(300))
    assert ratio < 4.6, f"4x the messages ran {ratio:.1f}x the lines"


def test_matching_many_tool_runs_is_linear_in_them() -> None:
    def work(calls: int) -> Callable[[], None]:
        def run() -> None:
            history = [Msg("user", "go")]
            history += [
                Msg("assistant", tool_calls=[tool_call("f", {}, f"c{i}")]) for i in range(calls)
            ]
            match_tool_runs(history, [("f", f"r{i}", False) for i in range(calls)])
            assert [m.tool_call_id for m in history[2::2]] == [f"c{i}" for i in range(calls)]

        return run

    ratio = lines_run(work(2_000)) / lines_run(work(500))
    assert ratio < 4.6, f"4x the runs ran {ratio:.1f}x the lines"


@pytest.mark.parametrize(
    ("tail", "head", "expected"),
    [
        ("", "abc", 0),
        ("abc", "", 0),
        ("xabab", "ababc", 4),
        ("abc", "abc", 3),
        ("ab", "ba", 1),
        ("aaaa", "aaab", 3),
        ("abcab", "abcabd", 5),
        ("ababa", "ababa", 5),
        ("zz", "ab", 0),
    ],
)
def test_the_overlap_is_the_longest_start_of_the_request_the_history_ends_with(
    tail: str, head: str, expected: int
) -> None:
    assert _overlap(tail, head) == expected
    naive = max(
        (k for k in range(min(len(tail), len(head)) + 1) if tail[len(tail) - k :] == head[:k]),
    )
    assert naive == expected
