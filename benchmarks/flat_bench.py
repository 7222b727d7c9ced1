"""Throughput of the flat deterministic checks against a hand-written plain-Python loop.

Generates (seeded) synthetic booking/support agent turns, then alternates two runners over
them several times:

- **library**: `assertion.check(turn)` for each flat check, producing full `Result` records;
- **baseline**: a hand-written loop doing the same checks on the same `Turn` objects and
  producing a small `{"passed": bool, "reason": str}` record per check, with the same reason
  text on failure.

Before timing, both runners are run once and compared check by check (status and reason), so
the baseline does the same work. Reports best and median turns/s and checks/s of each, and the
ratio library / baseline (the target is at least 0.33).

Usage:
    python benchmarks/flat_bench.py [--turns 10000] [--rounds 7] [--seed 20240215]
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import chatassert
from chatassert import (
    Assertion,
    Contains,
    ContainsAny,
    ContainsFunctionCall,
    Equals,
    Matches,
    NotContains,
    ToolCall,
    Turn,
)
from chatassert.flat import ContainsAll

# -- synthetic turns ------------------------------------------------------------------------

CLOSING = (
    "Thank you for calling Harbor Bistro. Your reservation confirmed for Saturday; we look "
    "forward to seeing you and your party. Goodbye!"
)

SENTENCES = [
    "I checked availability for {day} evening.",
    "We have tables available at {time} and {time2}.",
    "That slot is open if you would like it.",
    "Unfortunately we are fully booked at {time}.",
    "Your reservation confirmed for {day} at {time} for a party of {size}.",
    "Please confirm the date, time, and party size so I can hold the table.",
    "Please confirm the date and time you prefer.",
    "Your confirmation number is #{code}.",
    "You will receive a text at {phone} shortly.",
    "I have opened a support ticket with {priority} priority about your {topic}.",
    "I looked up your account ending in {digits}; everything looks fine.",
    "I'm sorry for the inconvenience, and I understand how frustrating this must be.",
    "Our patio is free from {time} onwards on {day}.",
    "Would you prefer indoor or outdoor seating?",
    "Is there anything else I can help you with today?",
    "We can accommodate dietary requirements if you let us know in advance.",
    "The kitchen closes at 22:00, so the last seating is at 21:15.",
    "A refund for the deposit takes 5 business days.",
    "Sorry, an internal error occurred while saving; I retried and it worked.",
    "For security reasons I cannot read your password back to you.",
]
DAYS = ["Monday", "Tuesday", "Friday", "Saturday", "Sunday"]
TOPICS = ["billing", "delivery", "booking", "account", "refund"]
TOOLS = ["check_availability", "create_reservation", "lookup_account", "create_ticket",
         "send_confirmation"]  # fmt: skip


def _code(rnd: random.Random) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
    return "".join(rnd.choice(alphabet) for _ in range(6))


def _sentence(rnd: random.Random) -> str:
    return rnd.choice(SENTENCES).format(
        day=rnd.choice(DAYS),
        time=f"{rnd.randint(11, 21)}:{rnd.choice(['00', '15', '30', '45'])}",
        time2=f"{rnd.randint(11, 21)}:30",
        size=rnd.randint(1, 10),
        code=_code(rnd),
        phone=f"{rnd.randint(200, 999)}-{rnd.randint(200, 999)}-{rnd.randint(1000, 9999)}",
        priority=rnd.choice(["high", "low", "normal"]),
        topic=rnd.choice(TOPICS),
        digits=rnd.randint(1000, 9999),
    )


def _text(rnd: random.Random) -> str:
    if rnd.random() < 0.05:
        return CLOSING
    target = rnd.randint(100, 800)
    parts: list[str] = []
    length = 0
    while length < target:
        sentence = _sentence(rnd)
        if length + len(sentence) + 1 > 800:
            break
        parts.append(sentence)
        length += len(sentence) + 1
    return " ".join(parts)


def _arguments(rnd: random.Random, tool: str) -> dict[str, Any]:
    size: int | str = rnd.randint(1, 8)
    if rnd.random() < 0.3:
        size = str(size)  # agents often send numbers as strings
    date = f"2024-02-{rnd.randint(10, 20)}"
    if tool == "check_availability":
        return {"date": date, "party_size": size}
    if tool == "create_reservation":
        return {"party_size": size, "date": date, "time": f"{rnd.randint(17, 21)}:30",
                "name": rnd.choice(["Ann", "Bo", "Chen", "Dee"])}  # fmt: skip
    if tool == "lookup_account":
        return {"account_id": f"A-{rnd.randint(1000, 9999)}"}
    if tool == "create_ticket":
        return {"priority": rnd.choice(["high", "low"]), "topic": rnd.choice(TOPICS)}
    return {"email": "guest@example.com", "channel": "sms"}


def make_turns(n: int, seed: int) -> list[Turn]:
    """Build `n` turns deterministically from `seed`."""
    rnd = random.Random(seed)
    turns = []
    for i in range(n):
        calls = [
            ToolCall(name=tool, arguments=_arguments(rnd, tool), id=f"call_{i}_{j}")
            for j, tool in enumerate(rnd.choices(TOOLS, k=rnd.randint(0, 3)))
        ]
        turns.append(Turn(input="I'd like to book a table", text=_text(rnd), tool_calls=calls))
    return turns


# -- the checks, through the library ------------------------------------------------------

RESERVATION_ARGS = {"party_size": 4, "date": "2024-02-15"}


def library_checks() -> list[Assertion]:
    """The flat deterministic checks, built once."""
    return [
        Contains("reservation confirmed"),
        NotContains(["internal error", "password"]),
        ContainsAny(["available", "open", "free"]),
        ContainsAll(["date", "time", "party size"]),
        Equals(CLOSING),
        Matches(r"confirmation.*#[A-Z0-9]{6}"),
        ContainsFunctionCall("check_availability"),
        ContainsFunctionCall("create_reservation", RESERVATION_ARGS),
    ]


def run_library(checks: Sequence[Assertion], turns: Sequence[Turn]) -> list[Any]:
    """Check every turn with every assertion; keep the full results."""
    out: list[Any] = []
    append = out.append
    for turn in turns:
        for check in checks:
            append(check.check(turn))
    return out


# -- the same checks, hand-written -----------------------------------------------------------


def _render(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value).replace("'", '"')


def _loose(expected: Any, actual: Any) -> bool:
    if expected == actual and type(expected) is type(actual):
        return True
    if isinstance(expected, int) and isinstance(actual, str):
        return actual.strip() == str(expected)
    if isinstance(expected, str) and isinstance(actual, int):
        return expected.strip() == str(actual)
    return bool(expected == actual)


def baseline_runner(
    *, share_passes: bool = False
) -> Callable[[Sequence[Turn]], list[dict[str, Any]]]:
    """A plain loop over the same checks, producing `{"passed", "reason"}` records.

    Each pass gets a fresh record, as most hand-written loops do; with `share_passes`, every
    pass appends the same record (as the library shares its constant outcomes).
    """
    contains_value = "reservation confirmed"
    forbidden = ["internal error", "password"]
    any_values = ["available", "open", "free"]
    all_values = ["date", "time", "party size"]
    closing = CLOSING.strip()
    pattern_text = r"confirmation.*#[A-Z0-9]{6}"
    pattern = re.compile(pattern_text)
    any_reason = f"Response should contain at least one of: {any_values}"
    all_reason = f"Response should contain all of: {all_values}"
    shared_ok = {"passed": True, "reason": ""}

    def tool_check(turn: Turn, tool: str, expected: dict[str, Any] | None) -> dict[str, Any]:
        names = [c.name for c in turn.tool_calls]
        named = [c for c in turn.tool_calls if c.name == tool]
        if not named:
            return {"passed": False, "reason": f"Expected tool '{tool}', found: {names}"}
        if expected is None:
            return shared_ok if share_passes else {"passed": True, "reason": ""}
        first = None
        for call in named:
            args = call.arguments
            bad = None
            for key, want in expected.items():
                if key not in args:
                    bad = f"tool '{tool}' was called without argument '{key}'"
                    break
                if not _loose(want, args[key]):
                    bad = (f"tool '{tool}' was called with {key}={_render(args[key])}, "
                           f"expected {_render(want)}")  # fmt: skip
                    break
            if bad is None:
                return shared_ok if share_passes else {"passed": True, "reason": ""}
            first = first or bad
        return {"passed": False, "reason": first}

    def run(turns: Sequence[Turn]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        append = out.append
        for turn in turns:
            text = turn.text
            low = text.lower()
            if contains_value in low:
                append(shared_ok if share_passes else {"passed": True, "reason": ""})
            else:
                append({"passed": False,
                        "reason": f"Response does not contain '{contains_value}'"})  # fmt: skip
            found = [v for v in forbidden if v in low]
            if found:
                append({"passed": False, "reason": f"Response should not contain '{found[0]}'"})
            else:
                append(shared_ok if share_passes else {"passed": True, "reason": ""})
            if any(v in low for v in any_values):
                append(shared_ok if share_passes else {"passed": True, "reason": ""})
            else:
                append({"passed": False, "reason": any_reason})
            if all(v in low for v in all_values):
                append(shared_ok if share_passes else {"passed": True, "reason": ""})
            else:
                append({"passed": False, "reason": all_reason})
            if text.strip() == closing:
                append(shared_ok if share_passes else {"passed": True, "reason": ""})
            else:
                append({"passed": False, "reason": f"Expected exact match with '{CLOSING}'"})
            if pattern.search(text):
                append(shared_ok if share_passes else {"passed": True, "reason": ""})
            else:
                append({"passed": False,
                        "reason": f"Response does not match pattern '{pattern_text}'"})  # fmt: skip
            append(tool_check(turn, "check_availability", None))
            append(tool_check(turn, "create_reservation", RESERVATION_ARGS))
        return out

    return run


# -- measurement ----------------------------------------------------------------------------


def verify(library: list[Any], baseline: list[dict[str, Any]]) -> dict[str, int]:
    """Check that both runners agree on every outcome and every failure reason."""
    assert len(library) == len(baseline), (len(library), len(baseline))
    passed = 0
    for i, (result, record) in enumerate(zip(library, baseline, strict=True)):
        if result.passed != record["passed"]:
            raise AssertionError(f"check {i}: library {result!r} vs baseline {record!r}")
        if not result.passed and result.reason != record["reason"]:
            raise AssertionError(f"check {i}: reason {result.reason!r} vs {record['reason']!r}")
        passed += result.passed
    return {"checks": len(library), "passed": passed, "failed": len(library) - passed}


def _clear_caches(turns: Sequence[Turn]) -> None:
    # Turns cache their lowered text; start every library round cold, as the baseline does.
    for turn in turns:
        turn.__dict__.pop("text_lower", None)


def timed(function: Callable[[], Any], *, mode: str = "on") -> float:
    """Time one call with the cyclic garbage collector `on`, `off`, or on with the input `frozen`.

    `frozen` moves every object alive before the call (the 10,000 input turns) out of the
    collector's reach with `gc.freeze()`, as a harness holding its dataset would, so only the
    objects the runner creates are collected.
    """
    gc.collect()
    if mode == "off":
        gc.disable()
    elif mode == "frozen":
        gc.freeze()
    try:
        start = time.perf_counter()
        function()
        return time.perf_counter() - start
    finally:
        gc.enable()
        gc.unfreeze()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20240215)
    parser.add_argument(
        "--baseline-shares-passes",
        action="store_true",
        help="the baseline appends one shared record for every pass instead of a fresh dict",
    )
    args = parser.parse_args(argv)

    start = time.perf_counter()
    turns = make_turns(args.turns, args.seed)
    lengths = [len(t.text) for t in turns]
    checks = library_checks()
    baseline = baseline_runner(share_passes=args.baseline_shares_passes)
    print(f"chatassert {chatassert.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}")  # fmt: skip
    print(f"{len(turns)} turns (text {min(lengths)}-{max(lengths)} chars, "
          f"mean {statistics.mean(lengths):.0f}; "
          f"{sum(len(t.tool_calls) for t in turns)} tool calls), {len(checks)} checks per turn, "
          f"built in {time.perf_counter() - start:.1f}s")  # fmt: skip

    summary = verify(run_library(checks, turns), baseline(turns))
    print(f"verified: both runners agree on {summary['checks']} checks "
          f"({summary['passed']} passed, {summary['failed']} failed, same reasons)")  # fmt: skip

    n_checks = len(turns) * len(checks)

    def line(name: str, times: list[float]) -> tuple[float, float]:
        best, median = min(times), statistics.median(times)
        print(f"  {name:9} best {len(turns) / best:>10,.0f} turns/s {n_checks / best:>11,.0f} "
              f"checks/s | median {len(turns) / median:>10,.0f} turns/s "
              f"{n_checks / median:>11,.0f} checks/s")  # fmt: skip
        return best, median

    ratios: dict[str, float] = {}
    titles = {
        "on": "garbage collector on (the default)",
        "frozen": "garbage collector on, input turns frozen with gc.freeze() (diagnostic)",
        "off": "garbage collector off while timing (diagnostic)",
    }
    for mode, title in titles.items():
        lib_times: list[float] = []
        base_times: list[float] = []
        for _ in range(args.rounds):
            _clear_caches(turns)
            lib_times.append(timed(lambda: run_library(checks, turns), mode=mode))
            base_times.append(timed(lambda: baseline(turns), mode=mode))
        print(title)
        lib_best, lib_median = line("library", lib_times)
        base_best, base_median = line("baseline", base_times)
        ratios[mode] = base_median / lib_median
        print(f"  ratio library/baseline speed: best {base_best / lib_best:.2f}, median "
              f"{ratios[mode]:.2f} (target >= 0.33); "
              f"{1e6 * lib_median / n_checks:.2f} us per library check, "
              f"{1e6 * base_median / n_checks:.2f} us per baseline check")  # fmt: skip
    print(f"total {time.perf_counter() - start:.1f}s")
    return 0 if ratios["on"] >= 0.33 else 1


if __name__ == "__main__":
    sys.exit(main())
