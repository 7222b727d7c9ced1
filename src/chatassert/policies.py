"""Tool policies over time: which tools an agent may call, and when.

`ToolBefore(first, then)`, `ToolNeverAfter(tool, after)`, `ToolOnlyAfterResult(tool,
result_of)`, `OnlyTools(allowed)`, `MaxConsecutive(tool, max)` and `NoToolLoops(window,
same_args)` read the calls of a turn, or of a conversation in order, like the other trajectory
checks; in specs they are `tool_before`, `tool_never_after`, `tool_only_after_result`,
`only_tools`, `max_consecutive_calls` and `no_tool_loops`. The rules are in
docs/trajectories.md ("Tool policies over time").

`GroundedInToolResults` (`grounded_in_tool_results`) holds what an agent says to what its
tools returned: the numbers, identifiers and quoted strings of a response must appear in an
earlier tool result. The rules are in docs/grounding.md.

Example:
    >>> from chatassert import ToolCall, Turn
    >>> from chatassert.policies import OnlyTools, ToolBefore
    >>> turn = Turn(tool_calls=[ToolCall(name="verify"), ToolCall(name="refund")])
    >>> (ToolBefore("verify", "refund") & OnlyTools(["verify", "refund"])).check(turn).passed
    True
"""

from chatassert._grounding import GroundedInToolResults
from chatassert._policies import (
    MaxConsecutive,
    NoToolLoops,
    OnlyTools,
    ToolBefore,
    ToolNeverAfter,
    ToolOnlyAfterResult,
)

__all__ = [
    "GroundedInToolResults",
    "MaxConsecutive",
    "NoToolLoops",
    "OnlyTools",
    "ToolBefore",
    "ToolNeverAfter",
    "ToolOnlyAfterResult",
]
