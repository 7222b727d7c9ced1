"""chatassert: composable assertions over what LLM agents produce.

Build assertions in code (`Contains("refund") & ~Contains("sorry")`) or load them from spec
files (`chatassert.specs.load_suite`), check them against a response, a turn, a conversation
or a JSON value, and read the structured result tree.

Example:
    >>> from chatassert import Contains, ContainsFunctionCall, Turn, ToolCall
    >>> turn = Turn(text="Your table for 4 is booked.",
    ...             tool_calls=[ToolCall(name="create_reservation", arguments={"party_size": 4})])
    >>> check = Contains("booked") & ContainsFunctionCall("create_reservation", {"party_size": 4})
    >>> check.check(turn).passed
    True
"""


# The facade is lazy (PEP 562): `import chatassert` loads nothing but this module, and each
# name is imported from its module the first time it is used. The pytest plugin, which
# pytest loads in every run of every project where chatassert is installed, and the command
# line start fast; type checkers see the imports below.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatassert._base import (
        AllOf as AllOf,
        AnyOf as AnyOf,
        Assertion as Assertion,
        Not as Not,
    )
    from chatassert._call_counts import (
        MaxToolCalls as MaxToolCalls,
        NoRepeatedCalls as NoRepeatedCalls,
        StepsBeforeAnswer as StepsBeforeAnswer,
        ToolCallCount as ToolCallCount,
    )
    from chatassert._combinators import (
        AtLeast as AtLeast,
        OnAnyTurn as OnAnyTurn,
        OnEveryTurn as OnEveryTurn,
        OnLastTurn as OnLastTurn,
        OnTurn as OnTurn,
        When as When,
    )
    from chatassert._dates import AllDatesBetween as AllDatesBetween
    from chatassert._each import (
        AllMatch as AllMatch,
        AllMatchPattern as AllMatchPattern,
        InRange as InRange,
        SortedDesc as SortedDesc,
    )
    from chatassert._errors import (
        ChatAssertError as ChatAssertError,
        SpecError as SpecError,
    )
    from chatassert._fields import (
        FieldContains as FieldContains,
        FieldEquals as FieldEquals,
        HasFields as HasFields,
    )
    from chatassert._guardrails import GuardrailTriggered as GuardrailTriggered
    from chatassert._judged import (
        Ensemble as Ensemble,
        LLMRubric as LLMRubric,
        Repeat as Repeat,
    )
    from chatassert._models import (
        Conversation as Conversation,
        GuardrailEvent as GuardrailEvent,
        Media as Media,
        Message as Message,
        ToolCall as ToolCall,
        ToolResult as ToolResult,
        Turn as Turn,
        WorkflowState as WorkflowState,
        WorkflowTransition as WorkflowTransition,
    )
    from chatassert._params import Param as Param, register as register
    from chatassert._registry import from_spec as from_spec
    from chatassert._result import (
        Result as Result,
        Status as Status,
    )
    from chatassert._sequence import ToolSequence as ToolSequence
    from chatassert._text import (
        Contains as Contains,
        ContainsAny as ContainsAny,
        Equals as Equals,
        Matches as Matches,
        NotContains as NotContains,
    )
    from chatassert._tool_results import (
        NoToolErrors as NoToolErrors,
        ToolResultContains as ToolResultContains,
        ToolResultMatches as ToolResultMatches,
    )
    from chatassert._tools import (
        ContainsFunctionCall as ContainsFunctionCall,
    )
    from chatassert._workflow import (
        StateIs as StateIs,
        TransitionedTo as TransitionedTo,
        Workflow as Workflow,
        WorkflowComplete as WorkflowComplete,
    )

__version__ = "0.1.0"
"""The version of the installed package (as `pip show chatassert` and `--version` give it)."""

# One table: the public name, and the private module defining it. `__all__`, `__dir__` and the
# lazy `__getattr__` are derived from it; tests/test_facade.py holds the imports above to it.
_EXPORTS: dict[str, str] = {
    # protocol, results and extension
    "Assertion": "_base",
    "Result": "_result",
    "Status": "_result",
    "Param": "_params",
    "register": "_params",
    "from_spec": "_registry",
    # combinators and turn selectors
    "AllOf": "_base",
    "AnyOf": "_base",
    "Not": "_base",
    "When": "_combinators",
    "AtLeast": "_combinators",
    "OnTurn": "_combinators",
    "OnLastTurn": "_combinators",
    "OnEveryTurn": "_combinators",
    "OnAnyTurn": "_combinators",
    # subjects
    "Conversation": "_models",
    "Turn": "_models",
    "Message": "_models",
    "Media": "_models",
    "ToolCall": "_models",
    "ToolResult": "_models",
    "GuardrailEvent": "_models",
    "WorkflowState": "_models",
    "WorkflowTransition": "_models",
    # text
    "Contains": "_text",
    "NotContains": "_text",
    "ContainsAny": "_text",
    "Matches": "_text",
    "Equals": "_text",
    # tool calls and trajectories
    "ContainsFunctionCall": "_tools",
    "ToolSequence": "_sequence",
    "ToolCallCount": "_call_counts",
    "MaxToolCalls": "_call_counts",
    "NoRepeatedCalls": "_call_counts",
    "NoToolErrors": "_tool_results",
    "StepsBeforeAnswer": "_call_counts",
    "ToolResultContains": "_tool_results",
    "ToolResultMatches": "_tool_results",
    # workflow and guardrails
    "Workflow": "_workflow",
    "StateIs": "_workflow",
    "TransitionedTo": "_workflow",
    "WorkflowComplete": "_workflow",
    "GuardrailTriggered": "_guardrails",
    # JSON responses, at any path
    "FieldEquals": "_fields",
    "FieldContains": "_fields",
    "HasFields": "_fields",
    "AllMatch": "_each",
    "AllMatchPattern": "_each",
    "InRange": "_each",
    "SortedDesc": "_each",
    "AllDatesBetween": "_dates",
    # judged
    "Ensemble": "_judged",
    "LLMRubric": "_judged",
    "Repeat": "_judged",
    # errors (the rest are in chatassert.errors)
    "ChatAssertError": "_errors",
    "SpecError": "_errors",
}
"""Each public name and the module it is imported from on first use."""

# Names that live in a namespace of their own (a dialect's, the judges', the errors'): asking
# the top level for one says where it is.
_MOVED: dict[str, str] = {
    "ActiveAgent": "chatassert.flat",
    "AgentInvoked": "chatassert.promptkit",
    "AgentNotInvoked": "chatassert.promptkit",
    "AgentResponseContains": "chatassert.promptkit",
    "AllDatesInYear": "chatassert.expect",
    "AllHaveTags": "chatassert.expect",
    "AllInRange": "chatassert.expect",
    "AllMatchOneOf": "chatassert.expect",
    "ArgAny": "chatassert.args",
    "ArgInRange": "chatassert.args",
    "ArgMatches": "chatassert.args",
    "ArgOneOf": "chatassert.args",
    "ArrayContains": "chatassert.expect",
    "ContainsAll": "chatassert.flat",
    "CheckState": "chatassert.monitor",
    "CostAtMost": "chatassert.usage",
    "ContentIncludes": "chatassert.promptkit",
    "ContentMatches": "chatassert.promptkit",
    "ConversationAgentInvoked": "chatassert.promptkit",
    "ConversationAgentNotInvoked": "chatassert.promptkit",
    "ConversationContentIncludes": "chatassert.promptkit",
    "ConversationContentIncludesAny": "chatassert.promptkit",
    "ConversationContentMatches": "chatassert.promptkit",
    "ConversationContentNotIncludes": "chatassert.promptkit",
    "ConversationStateIs": "chatassert.promptkit",
    "ConversationToolCallsWithArgs": "chatassert.promptkit",
    "ConversationToolsCalled": "chatassert.promptkit",
    "ConversationToolsNotCalled": "chatassert.promptkit",
    "ConversationToolsNotCalledWithArgs": "chatassert.promptkit",
    "ConversationTransitionedTo": "chatassert.promptkit",
    "ConversationWorkflowComplete": "chatassert.promptkit",
    "DatesWithinDays": "chatassert.expect",
    "Decision": "chatassert.monitor",
    "EachHasAnyTag": "chatassert.expect",
    "ErrorCodeIs": "chatassert.expect",
    "ExpectedCall": "chatassert.args",
    "FakeJudge": "chatassert.testing",
    "FunctionJudge": "chatassert.judges",
    "IfHasHistory": "chatassert.expect",
    "IfResults": "chatassert.expect",
    "IfSensitiveResults": "chatassert.expect",
    "JsonContains": "chatassert.expect",
    "Judge": "chatassert.judges",
    "JudgeError": "chatassert.errors",
    "JudgeRequest": "chatassert.judges",
    "JudgedAssertion": "chatassert.judges",
    "LLMJudge": "chatassert.promptkit",
    "LLMJudgeConversation": "chatassert.promptkit",
    "LatencyAtMost": "chatassert.usage",
    "MaxConsecutive": "chatassert.policies",
    "MessageContains": "chatassert.expect",
    "ModelIs": "chatassert.usage",
    "Monitor": "chatassert.monitor",
    "MonitorError": "chatassert.errors",
    "NoToolLoops": "chatassert.policies",
    "NoneHaveTags": "chatassert.expect",
    "NoneMatchPattern": "chatassert.expect",
    "OneOf": "chatassert.expect",
    "OnlyTools": "chatassert.policies",
    "RegexTimeoutError": "chatassert.errors",
    "ResultsCount": "chatassert.expect",
    "ResultsMatchSchema": "chatassert.expect",
    "ResultsMax": "chatassert.expect",
    "ResultsMin": "chatassert.expect",
    "SpecProblem": "chatassert.errors",
    "StatusIs": "chatassert.expect",
    "SubjectTypeError": "chatassert.errors",
    "SummaryContains": "chatassert.expect",
    "TokensAtMost": "chatassert.usage",
    "ToolBefore": "chatassert.policies",
    "ToolCallsWithArgs": "chatassert.promptkit",
    "ToolNeverAfter": "chatassert.policies",
    "ToolOnlyAfterResult": "chatassert.policies",
    "ToolsCalled": "chatassert.promptkit",
    "ToolsNotCalled": "chatassert.promptkit",
    "TranscriptError": "chatassert.errors",
    "UsageError": "chatassert.errors",
    "Verdict": "chatassert.judges",
    "loose_equal": "chatassert.args",
    "registered": "chatassert.specs",
}
"""Where the names that are not at the top level are."""

__all__ = sorted([*_EXPORTS, "__version__"], key=str.casefold)


def __getattr__(name: str) -> Any:
    """Import a public name from its module (PEP 562).

    The name is looked up in its module each time rather than kept here, so it is always the
    object of the module Python has loaded now: a harness that unloads and reloads modules
    (pytest's pytester does, between its runs) never mixes classes from two loads.
    """
    module = _EXPORTS.get(name)
    if module is not None:
        return getattr(importlib.import_module(f"chatassert.{module}"), name)
    home = _MOVED.get(name)
    hint = f"; it is {home}.{name}" if home else ""
    raise AttributeError(f"module 'chatassert' has no attribute {name!r}{hint}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
