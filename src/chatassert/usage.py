"""Run metadata: how long, how much, how many tokens, and which model.

`LatencyAtMost(ms)`, `CostAtMost(usd)`, `TokensAtMost(input=, output=, total=)` and
`ModelIs(model)` read what a log records beside the messages (`Turn.metadata`, summed over a
turn's model calls; a conversation adds up its turns); in specs they are `latency_at_most`,
`cost_at_most`, `tokens_at_most` and `model_is`. A fact the log did not record is an `error`,
never a pass. The rules are in docs/usage.md.

Example:
    >>> from chatassert import Turn
    >>> from chatassert.usage import CostAtMost, ModelIs
    >>> turn = Turn(text="Hi", metadata={"model": "gpt-4o-mini", "cost": 0.0004})
    >>> (CostAtMost(0.01) & ModelIs("gpt-4o-mini")).check(turn).passed
    True
"""

from chatassert._usage import CostAtMost, LatencyAtMost, ModelIs, TokensAtMost

__all__ = ["CostAtMost", "LatencyAtMost", "ModelIs", "TokensAtMost"]
