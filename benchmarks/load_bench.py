"""Loading real-shaped spec files: 100 files of the three origin formats, every key they define.

Generates (seeded) 100 spec files into a temporary directory — PromptKit Scenario manifests
(half of them workflow scenarios with `pack:` and `steps:`), PromptKit Eval files,
eval-generator test files and jarvis test files — each written with the keys its own project
defines, live-run keys included. Then it alternates, for several rounds:

- **library**: `chatassert.specs.load_suite(path)` for every file (parse with line numbers,
  validate every key, build every assertion, collect problems);
- **baseline (parse only)**: `yaml.load(text, Loader=yaml.CSafeLoader)` (or `json.loads`) for
  every file: what reading the same files costs with no validation and no building at all;
- **baseline (pure-Python parse)**: the same with `yaml.SafeLoader`, the parser the library
  builds on (it needs node positions for `file:line` in its errors).

And once, `chatassert lint` on all 100 files in one process, start-up included. Every file must
load without a problem: the script fails otherwise.

Usage:
    python benchmarks/load_bench.py [--files 100] [--rounds 7] [--seed 20261125]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

import chatassert
from chatassert.specs import load_suite

WORDS = [
    "booking",
    "table",
    "invoice",
    "refund",
    "order",
    "account",
    "password",
    "shipping",
    "weather",
    "flight",
]
TOOLS = ["lookup_invoice", "create_refund", "check_availability", "send_email", "search_notes"]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _pk_turn_assertions(rng: random.Random) -> list[dict[str, Any]]:
    tool = rng.choice(TOOLS)
    pool = [
        {"type": "content_includes", "params": {"patterns": [rng.choice(WORDS)]}},
        {"type": "content_matches", "params": {"pattern": r"(?i)order\s+#?\d+"}},
        {"type": "tools_called", "params": {"tools": [tool]}, "message": f"calls {tool}"},
        {"type": "tools_not_called", "params": {"tools": ["delete_account"]}},
        {
            "type": "tool_calls_with_args",
            "params": {"tool_name": tool, "expected_args": {"id": "A1"}},
        },
        {"type": "guardrail_triggered", "params": {"validator": "banned_words", "expected": False}},
    ]
    return rng.sample(pool, k=rng.randint(2, 4))


def _scenario(rng: random.Random, i: int, workflow: bool) -> tuple[str, dict[str, Any]]:
    spec: dict[str, Any] = {
        "id": f"scenario-{i}",
        "task_type": "support",
        "mode": "self_play" if i % 3 == 0 else "scripted",
        "description": _words(rng, 8),
        "context_metadata": {"domain": "billing", "project_stage": "beta", "user_role": "customer"},
        "context": {"customer_tier": "gold"},
        "context_carry_forward": True,
        "context_policy": {"strategy": "sliding_window", "token_budget": 8000},
        "variables": {"company": "Acme"},
        "constraints": {"max_turns": 8},
        "tool_policy": {
            "tool_choice": "auto",
            "blocklist": ["delete_account"],
            "max_tool_calls_per_turn": 4,
            "max_total_tool_calls": 20,
        },
        "providers": ["openai-gpt-4o", "claude-sonnet"],
        "required_capabilities": ["tools"],
        "streaming": False,
        "conversation_assertions": [
            {"type": "content_not_includes", "params": {"patterns": ["guaranteed"]}},
            {
                "type": "tools_not_called_with_args",
                "params": {"tool_name": "send_email", "forbidden_args": {"to": ["all"]}},
            },
        ],
    }
    if workflow:
        spec["pack"] = f"pack-{i}.pack.json"
        spec["steps"] = [
            {"type": "input", "content": _words(rng, 10), "assertions": _pk_turn_assertions(rng)}
            for _ in range(rng.randint(3, 6))
        ]
        spec["steps"][-1]["assertions"].append(
            {"type": "state_is", "params": {"state": "resolved"}}
        )
    else:
        turns: list[dict[str, Any]] = []
        for t in range(rng.randint(3, 8)):
            turn: dict[str, Any] = {
                "role": "user",
                "content": _words(rng, 12),
                "assertions": _pk_turn_assertions(rng),
            }
            if t == 0:
                turn.update({"persona": "impatient-customer", "assistant_temp": 0.2, "seed": 7})
            turns.append(turn)
        if i % 3 == 0:
            turns.append(
                {
                    "role": "selfplay-user",
                    "persona": "curious",
                    "turns": 2,
                    "user_temp": 0.9,
                    "assertions": _pk_turn_assertions(rng),
                }
            )
        spec["turns"] = turns
    doc = {
        "$schema": "https://promptkit.altairalabs.ai/schemas/v1alpha1/scenario.json",
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Scenario",
        "metadata": {
            "name": f"scenario-{i}",
            "namespace": "support",
            "labels": {"team": "billing"},
            "annotations": {"owner": "qa"},
        },
        "spec": spec,
    }
    return f"scenario-{i}.scenario.yaml", doc


def _pack() -> dict[str, Any]:
    return {
        "id": "support-pack",
        "prompts": {"triage": {"system_template": "You are a support agent."}},
        "workflow": {
            "version": 1,
            "entry": "triage",
            "states": {
                "triage": {
                    "prompt_task": "triage",
                    "on_event": {"Escalate": "specialist", "Resolve": "resolved"},
                },
                "specialist": {"prompt_task": "triage", "on_event": {"Resolve": "resolved"}},
                "resolved": {"description": "terminal"},
            },
        },
    }


def _eval_generator(rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
    cases = []
    for c in range(rng.randint(4, 12)):
        turns = []
        for _ in range(rng.randint(1, 4)):
            assertions: list[dict[str, Any]] = [
                {"type": "contains_any", "value": rng.sample(WORDS, 3)},
                {"type": "not_contains", "value": "error"},
                {
                    "type": "contains_function_call",
                    "value": rng.choice(TOOLS),
                    "arguments": {"id": "A1"},
                },
                {"type": "matches", "value": r"\d+"},
            ]
            turns.append(
                {
                    "user_input": _words(rng, 12),
                    "assertions": rng.sample(assertions, k=rng.randint(1, 4)),
                    "expected_agent": "billing_agent",
                    "context": {"channel": "web"},
                }
            )
        cases.append(
            {
                "name": f"case-{i}-{c}",
                "description": _words(rng, 6),
                "tags": ["billing", "regression"],
                "test_type": "multi_turn" if len(turns) > 1 else "single_turn",
                "test_data": {"order_id": "A1"},
                "start_agent": "triage_agent",
                "max_turns": 6,
                "context": {"locale": "en-GB"},
                "turns": turns,
            }
        )
    doc = {
        "agent_id": "support",
        "sub_agent_id": "billing_agent",
        "description": _words(rng, 8),
        "default_test_data": {"customer": "Ada"},
        "test_cases": cases,
    }
    return f"eval-gen-{i}.yaml", doc


def _jarvis(rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
    tests = []
    for t in range(rng.randint(4, 12)):
        tests.append(
            {
                "id": f"J{i}-{t}",
                "name": _words(rng, 4),
                "description": _words(rng, 8),
                "input": {"query": _words(rng, 4), "limit": 5},
                "expect": {
                    "status": "success",
                    "results_min": 1,
                    "results_max": 10,
                    "has_fields": ["results", "summary"],
                    "all_match_pattern": {"path": "results[*].file", "regex": "^journal/"},
                    "all_in_range": {"path": "results[*].relevance", "min": 0, "max": 1},
                    "sorted_desc": {"path": "results[*].relevance"},
                    "summary_contains": rng.choice(WORDS),
                },
                "setup": [{"action": "create_note", "path": "journal/a.md"}],
                "cleanup": [{"action": "delete_note", "path": "journal/a.md"}],
            }
        )
    tests[0]["skip_if"] = "no_vault"
    tests[1]["multi_step"] = [
        {
            "step": 1,
            "input": {"query": "first"},
            "expect": {"status": "success"},
            "store": "first_results",
        },
        {
            "step": 2,
            "input": {"query": "second"},
            "expect": {
                "status": "success",
                "no_overlap": {"path": "results[*].file", "with": "first_results"},
            },
        },
    ]
    del tests[1]["expect"]
    doc = {
        "$schema": "./test-schema.json",
        "agent": "jarvis-journal",
        "version": "1.0",
        "description": _words(rng, 8),
        "metadata": {"owner": "qa"},
        "test_suites": {"search": {"name": "Search", "priority": "high", "tests": tests}},
    }
    return f"jarvis-{i}.json", doc


def generate(directory: Path, files: int, seed: int) -> list[Path]:
    """Write `files` spec files (and the packs they name) into `directory`; return their paths."""
    rng = random.Random(seed)
    paths: list[Path] = []
    for i in range(files):
        which = i % 4
        if which == 0:
            name, doc = _scenario(rng, i, workflow=i % 8 == 0)
            if doc["spec"].get("pack"):
                (directory / doc["spec"]["pack"]).write_text(json.dumps(_pack(), indent=2))
        elif which == 1:
            name, doc = _scenario(rng, i, workflow=True)
            (directory / doc["spec"]["pack"]).write_text(json.dumps(_pack(), indent=2))
        elif which == 2:
            name, doc = _eval_generator(rng, i)
        else:
            name, doc = _jarvis(rng, i)
        path = directory / name
        if name.endswith(".json"):
            path.write_text(json.dumps(doc, indent=2))
        else:
            path.write_text(yaml.safe_dump(doc, sort_keys=False, width=100))
        paths.append(path)
    return paths


def _parse_only(loader: Any) -> Callable[[list[Path]], int]:
    def run(paths: list[Path]) -> int:
        n = 0
        for path in paths:
            text = path.read_text(encoding="utf-8")
            doc = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=loader)
            n += len(doc)
        return n

    return run


def _library(paths: list[Path]) -> int:
    return sum(len(load_suite(path).cases) for path in paths)


def main() -> int:
    """Run the benchmark and print what it measured."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20261125)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        paths = generate(Path(tmp), args.files, args.seed)
        cases = _library(paths)  # fails loudly (SpecError) if any file does not load
        size = sum(p.stat().st_size for p in paths)
        runners: dict[str, Callable[[list[Path]], int]] = {
            "library: load_suite": _library,
            "baseline: parse only (CSafeLoader)": _parse_only(
                getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            ),
            "baseline: parse only (SafeLoader)": _parse_only(yaml.SafeLoader),
        }
        times: dict[str, list[float]] = {name: [] for name in runners}
        for _ in range(args.rounds):
            for name, run in runners.items():
                start = time.perf_counter()
                run(paths)
                times[name].append(time.perf_counter() - start)

        start = time.perf_counter()
        lint = subprocess.run(
            [sys.executable, "-m", "chatassert", "lint", *map(str, paths)],
            capture_output=True,
            text=True,
            check=False,
        )
        lint_seconds = time.perf_counter() - start
        if lint.returncode != 0:
            print(lint.stderr, file=sys.stderr)
            return 1

    print(
        f"chatassert {chatassert.__version__} · Python {platform.python_version()} · "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"{len(paths)} files, {size / 1024:.0f} KiB, {cases} cases; median of {args.rounds}")
    library = statistics.median(times["library: load_suite"])
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:<36} {median * 1000:8.1f} ms  ({median / len(paths) * 1000:6.2f} ms/file, "
            f"library / this {library / median:5.2f})"
        )
    print(f"  chatassert lint, one process (start-up included): {lint_seconds * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
