"""Matching a tool call's arguments: loose equality, matchers and expected calls.

`ContainsFunctionCall` and the PromptKit argument checks compare expected arguments with
`loose_equal` (G9: numbers by value, a number equals its decimal text, extra keys allowed). The
trajectory checks (`ToolSequence`, `NoRepeatedCalls`, …) take `ExpectedCall`s, whose expected
arguments may hold matchers where one value is not enough: `ArgAny()`, `ArgOneOf([...])`,
`ArgInRange(lo, hi)` and `ArgMatches(pattern)` (in specs `{"$any": true}`, `{"$one_of": [...]}`,
`{"$range": [lo, hi]}`, `{"$regex": "..."}`). The rules are in docs/trajectories.md.

Example:
    >>> from chatassert import ToolCall, ToolSequence, Turn
    >>> from chatassert.args import ArgInRange, ExpectedCall, loose_equal
    >>> loose_equal({"party_size": 4}, {"party_size": "4"})
    True
    >>> turn = Turn(tool_calls=[ToolCall(name="book", arguments={"party_size": 4})])
    >>> step = ExpectedCall("book", {"party_size": ArgInRange(2, 6)})
    >>> ToolSequence([step]).check(turn).passed
    True
"""

from chatassert._matchers import ArgAny, ArgInRange, ArgMatches, ArgOneOf, ExpectedCall, loose_equal

__all__ = ["ArgAny", "ArgInRange", "ArgMatches", "ArgOneOf", "ExpectedCall", "loose_equal"]
