"""Offline validation at scale: `chatassert check` over a 1 GB OpenAI-format log.

Generates (seeded, by templating) a JSONL log of chat-completions transcripts of at least
`--size-gb` gigabytes into `benchmarks/data/`, writes a flat suite of deterministic checks, then
runs `python -m chatassert check SUITE LOG` with `--jobs 1` and `--jobs 2` (each under
`/usr/bin/time -v` when it exists, for the peak resident memory of the process tree), and
reports wall time, conversations/s, turns/s, MB/s, peak RSS and the speed-up of `--jobs 2`.
The generated data is deleted at the end unless `--keep` is given.

With `--failing`, the suite is one whose every check fails on every turn (the same four
assertion types, inverted), so every case fails and every report line carries failure trees:
the worst case for the report and for what workers send back.

With `--cpu`, each run is repeated in-process to split its CPU seconds between the main
process and its workers (`resource.getrusage`): with two jobs on two cores the speed-up is at
most 2 / (1 + main / workers).

With `--format`, the same conversations are written in another log format the reader
reads: `agents-sdk` (one OpenAI Agents SDK trace per line: agent, generation and function
spans), `langsmith` (one run tree per line), `otel-spans` (one OpenTelemetry chat span per
line, checked with `--group-by session.id`), or the one-document formats `inspect`,
`promptfoo`, `otlp-export` (an OTLP JSON trace export) and `jaeger` (a Jaeger JSON export),
written as `.json` files of 500 samples (results, conversations) each and checked together,
and `adk` (Google ADK eval sets of 500 eval cases each, written by `chatassert convert`'s
writer).

Usage:
    python benchmarks/log_bench.py [--size-gb 1.0] [--seed 7] [--keep] [--failing] [--cpu]
        [--format openai|agents-sdk|langsmith|otel-spans|inspect|promptfoo|otlp-export|
                  jaeger|adk]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

SUITE = """\
test_cases:
  - name: support agent
    turns:
      - user_input: "placeholder"
        assertions:
          - type: not_contains
            value: "internal error"
          - type: contains_any
            value: ["order", "refund", "booking", "table", "weather"]
          - type: matches
            value: "(?i)confirmed"
          - type: contains_function_call
            value: lookup
"""

FAILING_SUITE = """\
test_cases:
  - name: support agent
    turns:
      - user_input: "placeholder"
        assertions:
          - type: not_contains
            value: "confirmed"
          - type: contains_any
            value: ["invoice", "receipt"]
          - type: matches
            value: "(?i)cancelled"
          - type: contains_function_call
            value: create_refund
"""

CITIES = ["Paris", "Rome", "Oslo", "Lima", "Kyoto", "Austin", "Cairo", "Perth"]
TOPICS = ["order", "refund", "booking", "table", "weather"]
FILLER = (
    "The agent considered the request carefully, checked the records available to it, "
    "and wrote a helpful answer that explains the next steps in plain language. "
)


def _conversation(rng: random.Random) -> dict[str, object]:
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a helpful support agent. " + FILLER * 2}
    ]
    for turn in range(rng.randint(1, 4)):
        city, topic = rng.choice(CITIES), rng.choice(TOPICS)
        messages.append(
            {
                "role": "user",
                "content": f"About my {topic} in {city}, turn {turn}. "
                + FILLER * rng.randint(0, 2),
            }
        )
        call_id = f"call_{turn}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "lookup",
                            "arguments": json.dumps({"city": city, "topic": topic}),
                        },
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": json.dumps({"status": "ok", "items": list(range(8))}),
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": f"Your {topic} in {city} is confirmed. " + FILLER * rng.randint(1, 4),
            }
        )
    return {
        "id": "ID",
        "model": "gpt-4o-mini",
        "usage": {"prompt_tokens": rng.randint(100, 900), "completion_tokens": 80},
        "messages": messages,
    }


def _span(trace: str, n: int, data: dict[str, object]) -> dict[str, object]:
    stamp = f"2025-03-01T10:00:{n:02d}.000000+00:00"
    return {
        "object": "trace.span",
        "id": f"span_{n}",
        "trace_id": trace,
        "parent_id": None,
        "started_at": stamp,
        "ended_at": stamp,
        "span_data": data,
        "error": None,
    }


def as_agents_trace(conv: dict[str, Any]) -> dict[str, object]:
    """The conversation as an Agents SDK trace: an agent span, then per model call a
    generation span (its input the history so far) and per tool call a function span."""
    messages: list[dict[str, Any]] = conv["messages"]
    spans = [_span("trace_ID", 0, {"type": "agent", "name": "Support"})]
    for i, msg in enumerate(messages):
        if msg["role"] != "assistant":
            continue
        spans.append(
            _span("trace_ID", len(spans), {
                "type": "generation", "input": messages[:i], "output": [msg],
                "model": conv["model"], "usage": {"input_tokens": 10, "output_tokens": 5},
            })
        )  # fmt: skip
        for call in msg.get("tool_calls") or []:
            fn = call["function"]
            spans.append(
                _span("trace_ID", len(spans), {
                    "type": "function", "name": fn["name"], "input": fn["arguments"],
                    "output": messages[i + 1]["content"],
                })
            )  # fmt: skip
    return {"object": "trace", "id": conv["id"], "workflow_name": "support", "spans": spans}


def as_langsmith_run(conv: dict[str, Any]) -> dict[str, object]:
    """The conversation as a LangSmith run tree: a chain run with an llm run per model call
    (OpenAI-shaped messages) and a tool run per tool call."""
    messages: list[dict[str, Any]] = conv["messages"]
    children: list[dict[str, object]] = []
    for i, msg in enumerate(messages):
        if msg["role"] != "assistant":
            continue
        order = f"1.{len(children):04d}"
        children.append({
            "id": f"llm-{i}", "name": "ChatOpenAI", "run_type": "llm", "dotted_order": order,
            "inputs": {"messages": messages[:i]}, "outputs": {"choices": [{"message": msg}]},
            "child_runs": [],
        })  # fmt: skip
        for call in msg.get("tool_calls") or []:
            children.append({
                "id": f"tool-{i}", "name": call["function"]["name"], "run_type": "tool",
                "dotted_order": f"1.{len(children):04d}",
                "inputs": {"input": call["function"]["arguments"]},
                "outputs": {"output": messages[i + 1]["content"]}, "child_runs": [],
            })  # fmt: skip
    return {"id": conv["id"], "name": "support", "run_type": "chain", "dotted_order": "1",
            "inputs": {}, "outputs": {}, "child_runs": children}  # fmt: skip


def as_inspect_sample(conv: dict[str, Any]) -> dict[str, object]:
    """The conversation as an Inspect AI sample (tool calls with arguments as objects)."""
    messages = []
    for msg in conv["messages"]:
        out = {k: v for k, v in msg.items() if k != "tool_calls"}
        if msg.get("tool_calls"):
            out["content"] = ""
            out["tool_calls"] = [
                {"id": c["id"], "function": c["function"]["name"],
                 "arguments": json.loads(c["function"]["arguments"])}
                for c in msg["tool_calls"]
            ]  # fmt: skip
        messages.append(out)
    return {"id": conv["id"], "epoch": 1, "input": "", "target": "", "messages": messages}


def as_promptfoo_result(conv: dict[str, Any]) -> dict[str, object]:
    """The conversation's first exchange as a promptfoo result (a chat prompt, the answer)."""
    messages: list[dict[str, Any]] = conv["messages"]
    last = next(m for m in reversed(messages) if m["role"] == "assistant")
    return {
        "id": conv["id"], "promptIdx": 0, "testIdx": 0, "vars": {"topic": "order"},
        "prompt": {"raw": json.dumps(messages[:2]), "label": "chat"},
        "response": {"output": last["content"], "tokenUsage": {"prompt": 100, "completion": 80}},
        "success": True, "score": 1, "latencyMs": 300,
    }  # fmt: skip


def as_adk_case(conv: dict[str, Any]) -> dict[str, object]:
    """The conversation as a Google ADK eval case, one invocation per turn."""
    from chatassert import Conversation
    from chatassert.transcripts._adk import write_case

    conversation = Conversation.from_messages(conv["messages"])
    return write_case(conversation, str(conv["id"]), "bench")


def _otel_parts(msg: dict[str, Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if msg.get("content"):
        parts.append({"type": "text", "content": msg["content"]})
    for call in msg.get("tool_calls") or []:
        fn = call["function"]
        parts.append({"type": "tool_call", "id": call["id"], "name": fn["name"],
                      "arguments": fn["arguments"]})  # fmt: skip
    if msg["role"] == "tool":
        return [{"type": "tool_call_response", "id": msg.get("tool_call_id"),
                 "response": msg["content"]}]  # fmt: skip
    return parts


def as_otel_spans(conv: dict[str, Any]) -> list[dict[str, object]]:
    """The conversation as OpenTelemetry GenAI chat spans, one per model call (its input the
    history so far), all naming the conversation's `session.id`."""
    messages: list[dict[str, Any]] = conv["messages"]
    spans: list[dict[str, object]] = []
    for i, msg in enumerate(messages):
        if msg["role"] != "assistant":
            continue
        inputs = [{"role": m["role"], "parts": _otel_parts(m)} for m in messages[:i]]
        n = len(spans)
        spans.append({
            "traceId": f"{n:032x}", "spanId": f"{n + 1:016x}", "name": "chat",
            "startTimeUnixNano": str(1000 + n), "attributes": {
                "gen_ai.operation.name": "chat", "session.id": "ID",
                "gen_ai.request.model": conv["model"],
                "gen_ai.input.messages": json.dumps(inputs),
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": _otel_parts(msg)}]),
            },
        })  # fmt: skip
    return spans


def as_jaeger_trace(conv: dict[str, Any]) -> dict[str, object]:
    """The conversation as one trace of a Jaeger export (its spans' tags the GenAI
    attributes)."""
    spans = []
    for n, span in enumerate(as_otel_spans(conv)):
        attrs: dict[str, Any] = span["attributes"]  # type: ignore[assignment]
        attrs["session.id"] = conv["id"]
        spans.append({
            "traceID": conv["id"], "spanID": f"{n + 1:016x}", "operationName": "chat",
            "references": [], "startTime": 1000 + n, "duration": 5, "processID": "p1",
            "tags": [{"key": k, "type": "string", "value": v} for k, v in attrs.items()],
            "logs": [],
        })  # fmt: skip
    return {"traceID": conv["id"], "spans": spans, "processes": {"p1": {"serviceName": "bench"}}}


def as_otlp_spans(conv: dict[str, Any]) -> list[dict[str, object]]:
    """The conversation's spans for an OTLP export (attributes as key-value lists)."""
    out = []
    for span in as_otel_spans(conv):
        attrs: dict[str, Any] = span["attributes"]  # type: ignore[assignment]
        attrs["session.id"] = conv["id"]
        listed = [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]
        out.append({**span, "traceId": conv["id"], "attributes": listed})
    return out


LINE_FORMATS: dict[str, Callable[[dict[str, Any]], object]] = {
    "openai": lambda conv: conv,
    "agents-sdk": as_agents_trace,
    "langsmith": as_langsmith_run,
    "otel-spans": as_otel_spans,
}
DOCUMENT_FORMATS: dict[str, Callable[[dict[str, Any]], object]] = {
    "inspect": as_inspect_sample,
    "promptfoo": as_promptfoo_result,
    "adk": as_adk_case,
    "otlp-export": as_otlp_spans,
    "jaeger": as_jaeger_trace,
}
GROUP_BY = {"otel-spans": "session.id"}
"""The formats checked with `--group-by`: one conversation over many lines."""
PER_DOCUMENT = 500


def _document(fmt: str, items: list[object]) -> object:
    if fmt == "inspect":
        return {"version": 2, "status": "success", "eval": {"task": "support", "model": "m"},
                "samples": items}  # fmt: skip
    if fmt == "adk":
        return {"eval_set_id": "bench", "name": "bench", "eval_cases": items}
    if fmt == "otlp-export":
        spans = [span for group in items for span in group]  # type: ignore[attr-defined]
        return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    if fmt == "jaeger":
        return {"data": items}
    return {"evalId": "bench", "results": {"version": 3, "results": items}}


def generate_documents(folder: Path, fmt: str, size: int, seed: int) -> tuple[int, int]:
    """Write `.json` logs of `PER_DOCUMENT` conversations each into `folder`, at least `size`
    bytes in all; return (conversations, user turns)."""
    rng = random.Random(seed)
    convert = DOCUMENT_FORMATS[fmt]
    written = conversations = turns = 0
    while written < size:
        items = []
        for _ in range(PER_DOCUMENT):
            conv = _conversation(rng)
            conv["id"] = f"conv-{conversations}"
            if fmt in ("otlp-export", "jaeger"):  # the trace ids are the conversations'
                conv["id"] = f"{conversations:032x}"
            turns += (
                1
                if fmt == "promptfoo"
                else sum(
                    1
                    for m in conv["messages"]
                    if m["role"] == "user"  # type: ignore[index,union-attr]
                )
            )
            items.append(convert(conv))
            conversations += 1
        text = json.dumps(_document(fmt, items), indent=1)
        (folder / f"log-{conversations:09d}.json").write_text(text, encoding="utf-8")
        written += len(text)
    return conversations, turns


def generate(path: Path, size: int, seed: int, fmt: str = "openai") -> tuple[int, int]:
    """Write at least `size` bytes of log to `path`; return (conversations, user turns)."""
    rng = random.Random(seed)
    templates = []
    for _ in range(200):
        conv = _conversation(rng)
        turns = sum(1 for m in conv["messages"] if m["role"] == "user")  # type: ignore[index,union-attr]
        made = LINE_FORMATS[fmt](conv)
        text = (
            "\n".join(json.dumps(m) for m in made) if isinstance(made, list) else json.dumps(made)
        )
        head, tail = text.split('"ID"', 1)
        templates.append((head, tail, turns))
    written = conversations = turns = 0
    with path.open("w", encoding="utf-8") as f:
        while written < size:
            block = []
            for i in range(1000):
                head, tail, n = templates[(conversations + i) * 7919 % len(templates)]
                name = f'"conv-{conversations + i}"'
                block.append(f"{head}{name}{tail.replace(chr(34) + 'ID' + chr(34), name)}\n")
                turns += n
            conversations += 1000
            text = "".join(block)
            f.write(text)
            written += len(text)
    return conversations, turns


def run(suite: Path, log: Path | str, jobs: int, extra: tuple[str, ...] = ()) -> dict[str, float]:
    """Run the check command once; return wall seconds, peak RSS (MB) and the exit code."""
    cmd = [
        sys.executable,
        "-m",
        "chatassert",
        "check",
        str(suite),
        str(log),
        "--jobs",
        str(jobs),
        "--no-progress",
        *extra,
    ]
    timer = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    if timer:
        cmd = [timer, "-v", *cmd]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"check failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    if timer:
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        peak = int(match.group(1)) / 1024 if match else float("nan")
    else:
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "wall": wall,
        "peak_mb": peak,
        "code": proc.returncode,
        "summary": proc.stdout.strip().splitlines()[-1],
    }  # type: ignore[dict-item]


_CPU_SPLIT = """
import contextlib, io, resource, sys
from chatassert._cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime)
"""


def cpu_split(
    suite: Path, log: Path | str, jobs: int, extra: tuple[str, ...] = ()
) -> tuple[float, float]:
    """CPU seconds of the main process and of its workers, for one run of the check command
    (start-up included): with several jobs, the main process's share bounds the speed-up."""
    args = ["check", str(suite), str(log), "--jobs", str(jobs), "--no-progress", *extra]
    proc = subprocess.run(
        [sys.executable, "-c", _CPU_SPLIT, *args], capture_output=True, text=True, check=True
    )
    own, kids = proc.stdout.split()
    return float(own), float(kids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument(
        "--failing", action="store_true", help="check a suite that fails on every conversation"
    )
    parser.add_argument(
        "--format", default="openai", choices=[*LINE_FORMATS, *DOCUMENT_FORMATS],
        help="the log format to write and read",
    )  # fmt: skip
    parser.add_argument(
        "--cpu", action="store_true",
        help="also give the CPU seconds of the main process and of the workers of each run",
    )  # fmt: skip
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    suite = DATA / "suite.yaml"
    suite.write_text(FAILING_SUITE if args.failing else SUITE, encoding="utf-8")
    start = time.perf_counter()
    size = int(args.size_gb * 1e9)
    target: Path | str
    if args.format in DOCUMENT_FORMATS:
        folder = DATA / f"{args.format}-logs"
        folder.mkdir(exist_ok=True)
        conversations, turns = generate_documents(folder, args.format, size, args.seed)
        target = str(folder / "*.json")
        size_mb = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
    else:
        log = DATA / f"{args.format}.jsonl"
        conversations, turns = generate(log, size, args.seed, args.format)
        target = log
        size_mb = log.stat().st_size / 1e6
    print(f"format: {args.format}")
    print(f"suite: {'every check fails (--failing)' if args.failing else 'mostly passing'}")
    print(
        f"generated {size_mb:,.0f} MB, {conversations:,} conversations, {turns:,} user turns "
        f"in {time.perf_counter() - start:.1f}s"
    )
    print(
        "note: /usr/bin/time -v measures peak RSS of the largest process: the main process, "
        "or one worker with --jobs 2"
    )
    try:
        results = {}
        for jobs in (1, 2):
            grouping = GROUP_BY.get(args.format)
            extra = ("--group-by", grouping) if grouping else ()
            r = run(suite, target, jobs, extra)
            results[jobs] = r
            print(
                f"--jobs {jobs}: {r['wall']:.1f}s, {conversations / r['wall']:,.0f} "
                f"conversations/s, {turns / r['wall']:,.0f} turns/s, "
                f"{size_mb / r['wall']:.1f} MB/s, peak RSS {r['peak_mb']:.0f} MB "
                f"(exit {r['code']}: {r['summary']})"
            )
            if args.cpu:
                own, kids = cpu_split(suite, target, jobs, extra)
                print(f"  CPU: main process {own:.2f} s, workers {kids:.2f} s")
        print(f"speed-up of --jobs 2 over --jobs 1: {results[1]['wall'] / results[2]['wall']:.2f}x")
    finally:
        if not args.keep:
            if isinstance(target, Path):
                target.unlink(missing_ok=True)
            else:
                shutil.rmtree(Path(target).parent, ignore_errors=True)
            suite.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
