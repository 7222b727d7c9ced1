"""The flat agent-turn dialect's own names (docs/flat.md).

The flat dialect's other types are the native checks of the top level: `contains` is
`chatassert.Contains`, `contains_function_call` is `chatassert.ContainsFunctionCall`,
`llm_rubric` is `chatassert.LLMRubric`, and so on. What only the flat dialect spells is here:
`contains_all`, and `ActiveAgent`, the check a turn's `expected_agent` becomes.

Example:
    >>> from chatassert.flat import ContainsAll
    >>> ContainsAll(["date", "party size"]).check("Confirm the date").details["missing"]
    ['party size']
"""

from chatassert._agents import ActiveAgent
from chatassert._text import ContainsAll

__all__ = ["ActiveAgent", "ContainsAll"]
