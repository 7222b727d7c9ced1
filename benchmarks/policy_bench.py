"""Cost per check of the tool policies, run metadata checks and sequence modes, on generated runs.

Generates (seeded) conversations of a refund agent: 1-4 turns, 0-5 tool calls per turn from a
pool of six tools, with arguments, ids and results (some of them errors), every tenth with one
call whose arguments are not valid JSON; each turn's metadata (from a second seeded generator,
so the calls are the same as without it) has latency, tokens, a model and, for 19 turns in 20,
a cost. Each policy, the run-metadata checks (`chatassert.usage`), the `ToolSequence` modes
matching a reference run, and two existing trajectory checks for scale, then check every
conversation for several rounds; the script prints the median and best
microseconds per check and the outcome counts (so a change in what is decided shows too).

Usage:
    python benchmarks/policy_bench.py [--conversations 5000] [--rounds 5] [--seed 16]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections import Counter

from chatassert import (
    Assertion,
    Conversation,
    NoRepeatedCalls,
    ToolCall,
    ToolResult,
    ToolSequence,
    Turn,
)
from chatassert.policies import (
    GroundedInToolResults,
    MaxConsecutive,
    NoToolLoops,
    OnlyTools,
    ToolBefore,
    ToolNeverAfter,
    ToolOnlyAfterResult,
)
from chatassert.usage import CostAtMost, LatencyAtMost, ModelIs, TokensAtMost

TOOLS = ["verify_customer", "check_eligibility", "issue_refund", "search_kb", "log", "close"]


def conversation(rng: random.Random, number: int) -> Conversation:
    turns = []
    k = 0
    for _ in range(rng.randint(1, 4)):
        calls, results = [], []
        for _ in range(rng.randint(0, 5)):
            k += 1
            name = rng.choice(TOOLS)
            call_id = f"c{k}"
            if number % 10 == 0 and k == 2:
                calls.append(ToolCall(name=name, id=call_id, arguments='{"amount": 4'))
            else:
                args = {"order_id": str(rng.randint(1000, 1010)), "amount": rng.randint(1, 900)}
                calls.append(ToolCall(name=name, id=call_id, arguments=args))
            text = "Error: busy" if rng.random() < 0.1 else '{"ok": true}'
            results.append(ToolResult(call_id=call_id, content=text))
        turns.append(Turn(text="Done.", tool_calls=calls, tool_results=results))
    return Conversation(turns=turns)


def with_usage(rng: random.Random, chat: Conversation) -> Conversation:
    turns = []
    for turn in chat.turns:
        metadata: dict[str, object] = {
            "latency_ms": rng.randint(200, 3000),
            "input_tokens": rng.randint(100, 4000),
            "output_tokens": rng.randint(10, 600),
            "model": "gpt-4o-2024-08-06" if rng.random() < 0.95 else "gpt-4o-mini",
        }
        if rng.random() < 0.95:
            metadata["cost"] = round(rng.uniform(0.0005, 0.01), 5)
        turns.append(turn.model_copy(update={"metadata": metadata}))
    return Conversation(turns=turns)


def with_claims(rng: random.Random, chat: Conversation) -> Conversation:
    """The conversation with results that return the call's arguments, and answers that
    restate an amount and an order id seen so far (one answer in ten misstates the amount)."""
    turns, seen = [], []
    for turn in chat.turns:
        results = []
        for call, result in zip(turn.tool_calls, turn.tool_results, strict=True):
            if not result.content.startswith("Error") and call.arguments:
                seen.append(call.arguments)
                result = result.model_copy(update={"content": json.dumps(call.arguments)})
            results.append(result)
        text = "Done."
        if seen:
            args = rng.choice(seen)
            amount = int(args["amount"]) + (1 if rng.random() < 0.1 else 0)
            text = f"Refund of ${amount:,}.00 for order ORD-{args['order_id']} issued."
        turns.append(turn.model_copy(update={"text": text, "tool_results": results}))
    return Conversation(turns=turns)


def same_order(actual: dict[str, object], expected: dict[str, object]) -> bool:
    return actual.get("order_id") == expected.get("order_id")


BIG_REFUND = {"tool": "issue_refund", "arguments": {"amount": {"$range": [100, None]}}}

CHECKS: list[tuple[str, Assertion]] = [
    ("tool_before", ToolBefore("verify_customer", "issue_refund")),
    ("tool_before (arguments)", ToolBefore("verify_customer", BIG_REFUND)),
    ("tool_never_after", ToolNeverAfter("issue_refund", after="close")),
    ("tool_only_after_result", ToolOnlyAfterResult("issue_refund", result_of="check_eligibility")),
    ("only_tools", OnlyTools(TOOLS[:5])),
    ("max_consecutive_calls", MaxConsecutive("search_kb", 2)),
    ("no_tool_loops", NoToolLoops(3)),
    ("no_tool_loops (by name)", NoToolLoops(3, same_args=False)),
    ("latency_at_most", LatencyAtMost(6000)),
    ("cost_at_most", CostAtMost(0.02)),
    ("tokens_at_most (input, total)", TokensAtMost(input=8000, total=10000)),
    ("model_is", ModelIs("gpt-4o-2024-08-06")),
    (
        "tool_sequence per_message",
        ToolSequence([["verify_customer"], ["issue_refund"]], "per_message"),
    ),
    (
        "tool_sequence subset arguments",
        ToolSequence(
            [{"tool": "issue_refund", "arguments": {"order_id": "1001", "note": "x"}}],
            "superset",
            argument_mode="subset",
            ignore_keys=["amount"],
        ),
    ),
    (
        "tool_sequence comparator",
        ToolSequence(
            [{"tool": "issue_refund", "arguments": {"order_id": "1001"}}],
            "superset",
            comparators={"issue_refund": same_order},
        ),
    ),
    ("tool_sequence no calls", ToolSequence([], "exact")),
    ("grounded_in_tool_results", GroundedInToolResults(identifiers=[r"ORD-([0-9]+)"])),
    ("for scale: no_repeated_calls", NoRepeatedCalls()),
    ("for scale: tool_sequence", ToolSequence(["verify_customer", "issue_refund"])),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    extra = random.Random(args.seed + 1)
    subjects = [with_usage(extra, conversation(rng, n)) for n in range(args.conversations)]
    claimed = [with_claims(extra, c) for c in subjects]
    n_calls = sum(len(t.tool_calls) for c in subjects for t in c.turns)
    print(
        f"{len(subjects)} conversations, {n_calls} calls "
        f"({n_calls / len(subjects):.1f} per conversation); Python {platform.python_version()}"
    )
    print(f"{'check':32} {'median µs':>10} {'best µs':>8}  outcomes")
    for name, check in CHECKS:
        pool = claimed if name.startswith("grounded") else subjects
        outcomes = Counter(check.check(s).status.value for s in pool)
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            for s in pool:
                check.check(s)
            times.append((time.perf_counter() - start) / len(pool) * 1e6)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        print(f"{name:32} {statistics.median(times):10.2f} {min(times):8.2f}  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
