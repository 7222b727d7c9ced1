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

from chatassert._base import Assertion, SubjectTypeError
from chatassert._combinators import (
    AllOf,
    AnyOf,
    AtLeast,
    Not,
    OnAnyTurn,
    OnEveryTurn,
    OnLastTurn,
    OnTurn,
    When,
)
from chatassert._errors import (
    ChatAssertError,
    JudgeError,
    RegexTimeoutError,
    SpecError,
    SpecProblem,
    TranscriptError,
    UsageError,
)
from chatassert._judged import JudgedAssertion, LLMRubric, Repeat
from chatassert._judging import FakeJudge, FunctionJudge, Judge, JudgeRequest, Verdict
from chatassert._matchers import ArgAny, ArgInRange, ArgMatches, ArgOneOf, ExpectedCall
from chatassert._models import (
    Conversation,
    GuardrailEvent,
    Message,
    ToolCall,
    ToolResult,
    Turn,
    WorkflowState,
    WorkflowTransition,
)
from chatassert._promptkit import (
    AgentInvoked,
    AgentNotInvoked,
    AgentResponseContains,
    ContentIncludes,
    ContentMatches,
    ConversationAgentInvoked,
    ConversationAgentNotInvoked,
    ConversationContentIncludes,
    ConversationContentIncludesAny,
    ConversationContentMatches,
    ConversationContentNotIncludes,
    ConversationToolCallsWithArgs,
    ConversationToolsCalled,
    ConversationToolsNotCalled,
    ConversationToolsNotCalledWithArgs,
    GuardrailTriggered,
    LLMJudge,
    LLMJudgeConversation,
    ToolCallsWithArgs,
    ToolsCalled,
    ToolsNotCalled,
)
from chatassert._registry import Param, from_spec, register, registered
from chatassert._result import Result, Status
from chatassert._text import Contains, ContainsAll, ContainsAny, Equals, Matches, NotContains
from chatassert._tools import ContainsFunctionCall, loose_equal
from chatassert._trajectory import (
    MaxToolCalls,
    NoRepeatedCalls,
    NoToolErrors,
    StepsBeforeAnswer,
    ToolCallCount,
    ToolResultContains,
    ToolResultMatches,
    ToolSequence,
)
from chatassert._workflow import (
    ConversationStateIs,
    ConversationTransitionedTo,
    ConversationWorkflowComplete,
    StateIs,
    TransitionedTo,
    Workflow,
    WorkflowComplete,
)

__version__ = "0.1.0"

__all__ = [
    "AgentInvoked",
    "AgentNotInvoked",
    "AgentResponseContains",
    "AllOf",
    "AnyOf",
    "ArgAny",
    "ArgInRange",
    "ArgMatches",
    "ArgOneOf",
    "Assertion",
    "AtLeast",
    "ChatAssertError",
    "Contains",
    "ContainsAll",
    "ContainsAny",
    "ContainsFunctionCall",
    "ContentIncludes",
    "ContentMatches",
    "Conversation",
    "ConversationAgentInvoked",
    "ConversationAgentNotInvoked",
    "ConversationContentIncludes",
    "ConversationContentIncludesAny",
    "ConversationContentMatches",
    "ConversationContentNotIncludes",
    "ConversationStateIs",
    "ConversationToolCallsWithArgs",
    "ConversationToolsCalled",
    "ConversationToolsNotCalled",
    "ConversationToolsNotCalledWithArgs",
    "ConversationTransitionedTo",
    "ConversationWorkflowComplete",
    "Equals",
    "ExpectedCall",
    "FakeJudge",
    "FunctionJudge",
    "GuardrailEvent",
    "GuardrailTriggered",
    "Judge",
    "JudgeError",
    "JudgeRequest",
    "JudgedAssertion",
    "LLMJudge",
    "LLMJudgeConversation",
    "LLMRubric",
    "Matches",
    "MaxToolCalls",
    "Message",
    "NoRepeatedCalls",
    "NoToolErrors",
    "Not",
    "NotContains",
    "OnAnyTurn",
    "OnEveryTurn",
    "OnLastTurn",
    "OnTurn",
    "Param",
    "RegexTimeoutError",
    "Repeat",
    "Result",
    "SpecError",
    "SpecProblem",
    "StateIs",
    "Status",
    "StepsBeforeAnswer",
    "SubjectTypeError",
    "ToolCall",
    "ToolCallCount",
    "ToolCallsWithArgs",
    "ToolResult",
    "ToolResultContains",
    "ToolResultMatches",
    "ToolSequence",
    "ToolsCalled",
    "ToolsNotCalled",
    "TranscriptError",
    "TransitionedTo",
    "Turn",
    "UsageError",
    "Verdict",
    "When",
    "Workflow",
    "WorkflowComplete",
    "WorkflowState",
    "WorkflowTransition",
    "__version__",
    "from_spec",
    "loose_equal",
    "register",
    "registered",
]
