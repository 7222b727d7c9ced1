"""A generated log of conversations for the record API tests: passing, failing, unreadable."""

from __future__ import annotations

import json
import random

SPECS = [
    "{type: contains, value: refund}",
    "{type: not_contains, value: sorry}",
    "{type: min_length, min: 6}",
]


def log_lines(seed: int, count: int) -> list[str]:
    """`count` log lines: native conversations (some failing a spec), a few bad lines."""
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        pick = rng.random()
        if pick < 0.08:
            lines.append("not json at all")
        elif pick < 0.12:
            lines.append("[1, 2]")
        else:
            turns = [
                {
                    "input": f"question {i}.{t}",
                    "text": rng.choice(
                        ["Your refund is on its way.", "Sorry, no refund.", "Done.", "sorry"]
                    ),
                }
                for t in range(rng.randint(1, 3))
            ]
            lines.append(json.dumps({"id": f"c{i}", "turns": turns}))
    return lines
