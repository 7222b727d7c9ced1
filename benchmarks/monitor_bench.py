"""Events per second of a `chatassert.monitor.Monitor` on a long conversation, against
re-checking the whole conversation from scratch after every event.

Generates (seeded) a conversation of a refund agent: `--turns` turns (200), each a user
message, two to four tool calls from a pool of five tools with their results, and an answer.
The checks are the call-by-call ones: the temporal policies `tool_before`,
`tool_never_after`, `only_tools`, `max_consecutive_calls`, `no_tool_loops` and
`tool_only_after_result`, the counts `max_tool_calls`, `tool_call_count` and
`no_repeated_calls`, and the forbidden calls `conversation_tools_not_called` and
`conversation_tools_not_called_with_args`. The **monitor** is fed every event and asked
`permits` before every call; the **baseline** feeds the same events to a list and, after each
one, checks every check on the conversation so far (what a guard without a monitor does).
Both end with the same verdicts (checked before timing is reported). Prints events per second
of each and the ratio, the median of `--rounds` rounds.

Usage:
    python benchmarks/monitor_bench.py [--turns 200] [--rounds 3] [--seed 39]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

from chatassert import (
    Assertion,
    MaxToolCalls,
    Message,
    NoRepeatedCalls,
    ToolCall,
    ToolCallCount,
    ToolResult,
)
from chatassert._monitor_log import EventLog, message_of, result_msg
from chatassert.monitor import Monitor
from chatassert.policies import (
    MaxConsecutive,
    NoToolLoops,
    OnlyTools,
    ToolBefore,
    ToolNeverAfter,
    ToolOnlyAfterResult,
)
from chatassert.promptkit import ConversationToolsNotCalled, ConversationToolsNotCalledWithArgs

TOOLS = ["lookup_order", "verify_identity", "search_policy", "issue_refund", "send_email"]


def checks() -> list[Assertion]:
    return [
        ToolBefore("verify_identity", "issue_refund"),
        ToolNeverAfter("issue_refund", after="send_email"),
        OnlyTools(TOOLS),
        MaxConsecutive("search_policy", 3),
        NoToolLoops(3),
        MaxToolCalls(10_000),
        ToolCallCount("issue_refund", max=10_000),
        ToolOnlyAfterResult("issue_refund", result_of="lookup_order"),
        NoRepeatedCalls(),
        ConversationToolsNotCalled(["delete_account"]),
        ConversationToolsNotCalledWithArgs("issue_refund", {"order": [-1]}),
    ]


def events(turns: int, seed: int) -> list[object]:
    rng = random.Random(seed)
    out: list[object] = []
    n = 0
    for t in range(turns):
        out.append(Message(role="user", content=f"Question {t} about order {rng.randrange(999)}"))
        for _ in range(rng.randint(2, 4)):
            n += 1
            name = rng.choice(TOOLS)
            out.append(ToolCall(name=name, arguments={"order": rng.randrange(50)}, id=f"c{n}"))
            out.append(ToolResult(call_id=f"c{n}", content="ok"))
        out.append(Message(role="assistant", content=f"Answer {t}."))
    return out


def monitored(stream: list[object]) -> tuple[float, list[str]]:
    start = time.perf_counter()
    monitor = Monitor(checks())
    for event in stream:
        if isinstance(event, ToolCall):
            monitor.permits(event)
        monitor.feed(event)
    verdicts = [r.status.value for r in monitor.finish().children]
    return time.perf_counter() - start, verdicts


def from_scratch(stream: list[object]) -> tuple[float, list[str]]:
    start = time.perf_counter()
    log = EventLog()
    every = checks()
    verdicts: list[str] = []
    from chatassert.transcripts._build import Msg

    for event in stream:
        if isinstance(event, ToolCall):
            log.add(Msg(role="assistant", tool_calls=[event]))
        elif isinstance(event, ToolResult):
            log.add(result_msg(event, "event"))
        else:
            assert isinstance(event, Message)
            log.add(message_of(event))
        conversation = log.conversation()
        verdicts = [c.check(conversation).status.value for c in every]
    return time.perf_counter() - start, verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args(argv)
    stream = events(args.turns, args.seed)
    mine, theirs = [], []
    for _ in range(args.rounds):
        seconds, a = monitored(stream)
        mine.append(seconds)
        seconds, b = from_scratch(stream)
        theirs.append(seconds)
        if a != b:
            print(f"verdicts differ: monitor {a}, from scratch {b}", file=sys.stderr)
            return 1
    fast, slow = len(stream) / statistics.median(mine), len(stream) / statistics.median(theirs)
    print(f"python {platform.python_version()}, load {os.getloadavg()[0]:.2f}")
    print(f"{args.turns} turns, {len(stream)} events, {len(checks())} checks")
    print(f"monitor (with permits before each call): {fast:,.0f} events/s")
    print(f"re-checked from scratch per event:       {slow:,.0f} events/s")
    print(f"ratio: {fast / slow:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
