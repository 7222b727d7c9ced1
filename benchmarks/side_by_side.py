"""Side by side on one workload: a hand-written loop, the library API and the command line.

Generates (seeded) two logs into a temporary directory:

- **conversations**: OpenAI chat-completions transcripts (JSONL), about 10,000 user turns with
  tool calls and tool results, checked with 8 deterministic turn checks on every turn (a
  native suite of rules: `not_contains` twice, `contains`, `contains_any`, `contains_all`,
  `matches`, `contains_function_call` by name and with loose arguments);
- **responses**: 10,000 structured JSON responses (`{"id", "response"}` lines) checked with an
  expect object of 7 keys.

Four implementations run on the same bytes, round-robin, several rounds; medians are reported
as multiples of the hand-written loop's time:

- **hand-written, orjson**: the same loop decoding with `orjson.loads` (when orjson is
  installed; it is not a dependency): what a performance-minded user would write. Each row is
  also given as a multiple of this one's time;
- **hand-written**: `json.loads` per line, the turns cut from the messages by hand,
  `str.lower()` + `in`, a precompiled `re`, a dict walk for the JSON checks: a verdict per
  check, nothing else;
- **lean reference**: the floor of a pure-Python library: the same loop building a lean subject
  model (slotted turns, messages and calls) and a result record per check (passes shared);
  no validation, format detection, combinators, locations or pointers;
- **library**: `chatassert.transcripts.parse_line` + `assertion.check(turn)` per turn and
  check (and `case.check(response)` per response), keeping every `Result`;
- **CLI**: `python -m chatassert check SUITE LOG --format json -o FILE` in a subprocess; its
  start-up (the same command on a one-line log) is measured separately and subtracted.

Before timing, the verdicts of all four are compared check by check; any difference fails.

Usage:
    python benchmarks/side_by_side.py [--turns 10000] [--responses 10000] [--rounds 5]
                                      [--seed 20261125] [--jobs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chatassert
from chatassert.specs import load_suite
from chatassert.transcripts import parse_line

CITIES = ["Paris", "Rome", "Oslo", "Lima", "Kyoto", "Austin", "Cairo", "Perth"]
TOPICS = ["order", "refund", "booking", "table", "weather"]
TOOLS = ["lookup", "create_refund", "send_email"]
FILLER = [
    "The agent checked the records available to it before answering. ",
    "Nothing else was needed from the customer at this point. ",
    "A confirmation was sent by email as well. ",
    "Sorry, an internal error occurred while reading the calendar. ",
]

RULES = """\
chatassert: 1
name: rules
assertions:
  - {type: not_contains, value: internal error}
  - {type: not_contains, value: as an AI}
  - {type: contains, value: your}
  - {type: contains_any, value: [order, refund, booking, table]}
  - {type: contains_all, value: [the, is]}
  - {type: matches, value: "(?i)confirm(ed|ation)"}
  - {type: contains_function_call, value: lookup}
  - {type: contains_function_call, value: lookup, arguments: {topic: order}}
"""

EXPECT = {
    "status": "success",
    "results_min": 1,
    "results_max": 10,
    "has_fields": ["results", "summary"],
    "all_match_pattern": {"path": "results[*].file", "regex": "^journal/"},
    "all_in_range": {"path": "results[*].relevance", "min": 0.0, "max": 1.0},
    "summary_contains": "notes",
}


# -- data --------------------------------------------------------------------------------------


def _conversation(rng: random.Random, i: int) -> tuple[dict[str, Any], int]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a support agent."}]
    turns = rng.randint(1, 5)
    for t in range(turns):
        city, topic = rng.choice(CITIES), rng.choice(TOPICS)
        messages.append({"role": "user", "content": f"About my {topic} in {city} ({t})."})
        for c in range(rng.choice([0, 1, 1, 2])):
            call_id = f"call_{t}_{c}"
            tool = rng.choice(TOOLS)
            args = {"city": city, "topic": rng.choice(TOPICS)}
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": tool, "arguments": json.dumps(args)},
                        }
                    ],
                }
            )
            messages.append({"role": "tool", "tool_call_id": call_id, "content": '{"ok": true}'})
        text = rng.choice(
            [f"Your {topic} in {city} is confirmed. ", f"The {topic} is on its way. ", "Done. "]
        )
        messages.append(
            {"role": "assistant", "content": text + "".join(rng.sample(FILLER, rng.randint(0, 2)))}
        )
    return {"id": f"conv-{i}", "model": "gpt-4o-mini", "messages": messages}, turns


def _response(rng: random.Random, i: int) -> dict[str, Any]:
    results = [
        {
            "file": rng.choice(["journal/2026/01/", "journal/", "work/"]) + f"n{k}.md",
            "relevance": round(rng.uniform(0.0, 1.05), 3),
            "metadata": {"type": "note", "tags": ["work"]},
        }
        for k in range(rng.randint(0, 12))
    ]
    response: dict[str, Any] = {
        "status": rng.choice(["success"] * 9 + ["error"]),
        "summary": f"Found {len(results)} {rng.choice(['notes', 'items'])}",
        "results": results,
    }
    return {"id": "search", "response": response}


def generate(directory: Path, turns: int, responses: int, seed: int) -> dict[str, Path]:
    """Write the two logs, their suites and one-line logs (for start-up); return the paths."""
    rng = random.Random(seed)
    lines, count, i = [], 0, 0
    while count < turns:
        conv, n = _conversation(rng, i)
        lines.append(json.dumps(conv))
        count, i = count + n, i + 1
    paths = {
        "conversations": directory / "conversations.jsonl",
        "responses": directory / "responses.jsonl",
        "rules": directory / "rules.yaml",
        "expect": directory / "search.expect.json",
    }
    paths["conversations"].write_text("\n".join(lines) + "\n")
    paths["responses"].write_text(
        "\n".join(json.dumps(_response(rng, k)) for k in range(responses)) + "\n"
    )
    paths["rules"].write_text(RULES)
    paths["expect"].write_text(json.dumps([{"id": "search", "expect": EXPECT}]))
    for name in ("conversations", "responses"):
        one = directory / f"one-{name}.jsonl"
        one.write_text(paths[name].read_text().split("\n", 1)[0] + "\n")
        paths[f"one-{name}"] = one
    return paths


# -- the hand-written loop -----------------------------------------------------------------------

_CONFIRM = re.compile(r"(?i)confirm(ed|ation)")


def _turns(
    messages: list[dict[str, Any]], loads: Callable[[str], Any] = json.loads
) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """(assistant text, [(tool, arguments)]) per user turn, arguments decoded by `loads`."""
    out: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
    texts: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    started = False
    for m in messages:
        role = m["role"]
        if role == "user":
            if started:
                out.append(("\n".join(texts), calls))
            texts, calls, started = [], [], True
        elif role == "assistant" and started:
            if m.get("content"):
                texts.append(m["content"])
            for call in m.get("tool_calls") or ():
                fn = call["function"]
                calls.append((fn["name"], loads(fn["arguments"])))
    if started:
        out.append(("\n".join(texts), calls))
    return out


def hand_conversations(lines: list[str], loads: Callable[[str], Any] = json.loads) -> list[bool]:
    """A verdict per check per turn, in order (each JSON text decoded by `loads`)."""
    verdicts: list[bool] = []
    add = verdicts.append
    for line in lines:
        for text, calls in _turns(loads(line)["messages"], loads):
            low = text.lower()
            add("internal error" not in low)
            add("as an ai" not in low)
            add("your" in low)
            add("order" in low or "refund" in low or "booking" in low or "table" in low)
            add("the" in low and "is" in low)
            add(_CONFIRM.search(text) is not None)
            add(any(name == "lookup" for name, _ in calls))
            add(any(name == "lookup" and args.get("topic") == "order" for name, args in calls))
    return verdicts


_JOURNAL = re.compile(r"^journal/")


def hand_responses(lines: list[str], loads: Callable[[str], Any] = json.loads) -> list[bool]:
    """A verdict per expect key per response, in order (each line decoded by `loads`)."""
    verdicts: list[bool] = []
    add = verdicts.append
    for line in lines:
        r = loads(line)["response"]
        results = r.get("results")
        n = len(results) if isinstance(results, list) else 0
        add(r.get("status") == "success")
        add(n >= 1)
        add(n <= 10)
        add("results" in r and "summary" in r)
        add(all(_JOURNAL.search(x["file"]) for x in results))
        add(all(0.0 <= x["relevance"] <= 1.0 for x in results))
        add("notes" in r.get("summary", "").lower())
    return verdicts


# -- a lean reference with records -----------------------------------------------------------------
#
# The floor of a pure-Python library on this workload: the hand-written loop's work, plus what
# any library keeps — a subject model (slotted objects: turns, messages, tool calls with parsed
# arguments) and a result record per check (status, name, reason, details; passes shared, the
# failures of the JSON checks listing their offending items). No validation, format detection,
# combinators, locations, pointers or messages: less than the library records.


class _Record:
    __slots__ = ("details", "name", "reason", "status")

    def __init__(self, status: str, name: str, reason: str, details: dict[str, Any]) -> None:
        self.status, self.name, self.reason, self.details = status, name, reason, details


class _Call:
    __slots__ = ("arguments", "id", "name")

    def __init__(self, name: str, arguments: dict[str, Any], id: str | None) -> None:
        self.name, self.arguments, self.id = name, arguments, id


class _Message:
    __slots__ = ("content", "role", "tool_call_id", "tool_calls")

    def __init__(
        self, role: str, content: str | None, calls: tuple[_Call, ...], call_id: str | None
    ) -> None:
        self.role, self.content, self.tool_calls, self.tool_call_id = role, content, calls, call_id


class _Turn:
    __slots__ = ("input", "messages", "text", "tool_calls")

    def __init__(
        self, input: str | None, text: str, calls: list[_Call], messages: tuple[_Message, ...]
    ) -> None:
        self.input, self.text, self.tool_calls, self.messages = input, text, calls, messages


def _lean_turns(line: str) -> list[_Turn]:
    turns: list[_Turn] = []
    group: list[_Message] = []
    calls: list[_Call] = []
    user, text, started = None, "", False
    for m in json.loads(line)["messages"]:
        role, content = m["role"], m.get("content")
        if role == "user":
            if started:
                turns.append(_Turn(user, text, calls, tuple(group)))
                group, calls, text = [], [], ""
            started, user = True, content
        own: tuple[_Call, ...] = ()
        if m.get("tool_calls"):
            own = tuple(
                _Call(c["function"]["name"], json.loads(c["function"]["arguments"]), c.get("id"))
                for c in m["tool_calls"]
            )
        if role == "assistant":
            text = content or text
            calls.extend(own)
        group.append(_Message(role, content, own, m.get("tool_call_id")))
    if group:
        turns.append(_Turn(user, text, calls, tuple(group)))
    return turns


_Rule = Callable[[_Turn], _Record]


def _lean_text_rule(name: str, test: Callable[[str], bool], reason: str) -> _Rule:
    passed = _Record("passed", name, "", {})

    def rule(turn: _Turn) -> _Record:
        if test(turn.text.lower()):
            return passed
        return _Record("failed", name, reason, {"text_length": len(turn.text)})

    return rule


def _lean_call_rule(tool: str, arguments: dict[str, Any] | None) -> _Rule:
    passed = _Record("passed", "contains_function_call", "", {})

    def rule(turn: _Turn) -> _Record:
        for call in turn.tool_calls:
            if call.name == tool and all(
                call.arguments.get(k) == v for k, v in (arguments or {}).items()
            ):
                return passed
        names = [call.name for call in turn.tool_calls]
        return _Record(
            "failed",
            "contains_function_call",
            f"Expected tool {tool!r}, found: {names}",
            {"tool": tool, "called_tools": names},
        )

    return rule


_LEAN_RULES: list[_Rule] = [
    _lean_text_rule("not_contains", lambda t: "internal error" not in t, "forbidden text"),
    _lean_text_rule("not_contains", lambda t: "as an ai" not in t, "forbidden text"),
    _lean_text_rule("contains", lambda t: "your" in t, "missing text"),
    _lean_text_rule(
        "contains_any", lambda t: any(w in t for w in ("order", "refund", "booking", "table")), ""
    ),
    _lean_text_rule("contains_all", lambda t: "the" in t and "is" in t, "missing text"),
    _lean_text_rule("matches", lambda t: _CONFIRM.search(t) is not None, "no match"),
    _lean_call_rule("lookup", None),
    _lean_call_rule("lookup", {"topic": "order"}),
]


def lean_conversations(lines: list[str]) -> list[bool]:
    """The turn verdicts from a lean model and a record per check."""
    records: list[_Record] = []
    add = records.append
    for line in lines:
        for turn in _lean_turns(line):
            for rule in _LEAN_RULES:
                add(rule(turn))
    return [r.status == "passed" for r in records]


def _offending(
    results: list[dict[str, Any]], key: str, ok: Callable[[Any], bool], name: str
) -> _Record | None:
    bad = [(i, x[key]) for i, x in enumerate(results) if not ok(x[key])]
    if not bad:
        return None
    offending = [{"path": f"results[{i}].{key}", "actual": v, "index": i} for i, v in bad]
    reason = f"{offending[0]['actual']!r} at results[{bad[0][0]}] is not allowed"
    return _Record("failed", name, reason, {"offending": offending, "checked": len(results)})


def lean_responses(lines: list[str]) -> list[bool]:
    """The expect verdicts with a record per check."""
    passed = _Record("passed", "expect", "", {})
    records: list[_Record | None] = []
    add = records.append
    for line in lines:
        r = json.loads(line)["response"]
        results = r.get("results")
        n = len(results) if isinstance(results, list) else 0
        status = r.get("status")
        add(passed if status == "success" else _Record("failed", "status", "", {"actual": status}))
        add(passed if n >= 1 else _Record("failed", "results_min", "", {"actual": n}))
        add(passed if n <= 10 else _Record("failed", "results_max", "", {"actual": n}))
        has = "results" in r and "summary" in r
        add(passed if has else _Record("failed", "has_fields", "", {}))
        journal = _offending(results, "file", lambda v: v.startswith("journal/"), "pattern")
        add(journal or passed)
        in_range = _offending(results, "relevance", lambda v: 0.0 <= v <= 1.0, "range")
        add(in_range or passed)
        notes = "notes" in r.get("summary", "").lower()
        add(passed if notes else _Record("failed", "summary_contains", "", {}))
    return [r is passed for r in records]


# -- the library -----------------------------------------------------------------------------------


def library_conversations(lines: list[str], rules: list[Any]) -> list[bool]:
    """The same verdicts through `parse_line` and `.check()`, keeping every result."""
    verdicts: list[bool] = []
    results: list[Any] = []
    for number, line in enumerate(lines, 1):
        conversation = parse_line(line, "log", number).conversation
        assert conversation is not None
        for turn in conversation.turns:
            for rule in rules:
                result = rule.check(turn)
                results.append(result)
                verdicts.append(result.passed)
    return verdicts


def library_responses(lines: list[str], case: Any) -> list[bool]:
    """The expect verdicts through `case.check(response)`, keeping every result."""
    verdicts: list[bool] = []
    results: list[Any] = []
    for line in lines:
        result = case.check(json.loads(line)["response"])
        results.append(result)
        verdicts.extend(child.passed for child in result.children)
    return verdicts


# -- the command line ----------------------------------------------------------------------------


def cli(suite: Path, log: Path, out: Path, jobs: int) -> float:
    """Run `chatassert check` once; return its wall time."""
    start = time.perf_counter()
    subprocess.run(
        [
            *(sys.executable, "-m", "chatassert", "check", str(suite), str(log)),
            *("--format", "json", "-o", str(out), "--jobs", str(jobs), "--no-progress"),
        ],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def cli_verdicts(report: Path, conversation: bool) -> list[bool]:
    """Per-check verdicts read back from a JSON report, in the order the loops produce them."""
    verdicts: list[bool] = []
    for line in report.read_text().splitlines():
        record = json.loads(line)
        if "result" not in record:
            continue
        children = record["result"]["children"]
        if conversation:  # one on_every_turn per rule; turn-major order as the loops
            per_rule = [[c["status"] == "passed" for c in rule["children"]] for rule in children]
            verdicts.extend(v for turn in zip(*per_rule, strict=True) for v in turn)
        else:
            verdicts.extend(c["status"] == "passed" for c in children)
    return verdicts


def _orjson_loads() -> Callable[[str], Any] | None:
    """`orjson.loads` when orjson is installed (it is not a dependency), else None."""
    try:
        import orjson
    except ImportError:
        return None
    loads: Callable[[str], Any] = orjson.loads
    return loads


def main() -> int:
    """Run the comparison and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--responses", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        paths = generate(d, args.turns, args.responses, args.seed)
        conv_lines = paths["conversations"].read_text().splitlines()
        resp_lines = paths["responses"].read_text().splitlines()
        rules = list(load_suite(paths["rules"]).cases[0].checks)
        rules = [r.child for r in rules]  # on_every_turn(x) → x, checked per turn here
        case = load_suite(paths["expect"]).cases[0]
        report = d / "report.jsonl"

        expected = hand_conversations(conv_lines), hand_responses(resp_lines)
        got_lib = library_conversations(conv_lines, rules), library_responses(resp_lines, case)
        cli(paths["rules"], paths["conversations"], report, args.jobs)
        got_cli_conv = cli_verdicts(report, conversation=True)
        cli(paths["expect"], paths["responses"], report, args.jobs)
        got_cli_resp = cli_verdicts(report, conversation=False)
        got_lean = lean_conversations(conv_lines), lean_responses(resp_lines)
        for name, got in (
            ("lean reference", got_lean),
            ("library", got_lib),
            ("CLI", (got_cli_conv, got_cli_resp)),
        ):
            if got != expected:
                print(f"{name} verdicts differ from the hand-written loop's", file=sys.stderr)
                return 1
        checks = len(expected[0]) + len(expected[1])
        failed = checks - sum(expected[0]) - sum(expected[1])

        timers: dict[str, Callable[[], float]] = {}

        def timed(fn: Callable[[], object]) -> Callable[[], float]:
            def run() -> float:
                start = time.perf_counter()
                fn()
                return time.perf_counter() - start

            return run

        timers["hand-written"] = timed(
            lambda: (hand_conversations(conv_lines), hand_responses(resp_lines))
        )
        orjson_loads = _orjson_loads()
        if orjson_loads is not None:  # what a performance-minded user would write
            fast = orjson_loads
            if (hand_conversations(conv_lines, fast), hand_responses(resp_lines, fast)) != expected:
                print(
                    "the orjson loop's verdicts differ from the hand-written loop's",
                    file=sys.stderr,
                )
                return 1
            timers["hand-written, orjson"] = timed(
                lambda: (hand_conversations(conv_lines, fast), hand_responses(resp_lines, fast))
            )
        timers["lean reference (records)"] = timed(
            lambda: (lean_conversations(conv_lines), lean_responses(resp_lines))
        )
        timers["library API"] = timed(
            lambda: (
                library_conversations(conv_lines, rules),
                library_responses(resp_lines, case),
            )
        )

        def run_cli() -> float:
            total = cli(paths["rules"], paths["conversations"], report, args.jobs)
            total += cli(paths["expect"], paths["responses"], report, args.jobs)
            startup = cli(paths["rules"], paths["one-conversations"], report, args.jobs)
            startup += cli(paths["expect"], paths["one-responses"], report, args.jobs)
            return total - startup

        timers[f"CLI --format json --jobs {args.jobs} (start-up excluded)"] = run_cli
        times: dict[str, list[float]] = {name: [] for name in timers}
        for _ in range(args.rounds):
            for name, run in timers.items():
                times[name].append(run())

    print(
        f"chatassert {chatassert.__version__} · Python {platform.python_version()} · "
        f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{len(conv_lines)} conversations ({len(expected[0]) // 8} turns x 8 checks) + "
        f"{len(resp_lines)} responses x 7 checks = {checks} checks, {failed} failing; "
        f"verdicts identical in all four; median of {args.rounds} rounds"
    )
    base = statistics.median(times["hand-written"])
    fast_base = statistics.median(times.get("hand-written, orjson") or [0.0])
    if fast_base:
        print("  (x: of the hand-written loop's time; x orjson: of that loop decoding with orjson)")
    for name, values in times.items():
        median = statistics.median(values)
        fast = f"   x orjson {median / fast_base:5.2f}" if fast_base else ""
        print(f"  {name:<52} {median:7.3f} s   x {median / base:5.2f}{fast}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
