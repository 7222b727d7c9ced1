"""PromptKit's assertion types, turn-level and conversation-level (docs/promptkit.md).

A PromptKit scenario file loads with `chatassert.specs.load_suite`; these are the same checks
written in Python. Turn-level types check one turn; the `Conversation…` types check a whole
conversation, with PromptKit's own parameters, details and reasons; the media checks
(`ImageFormat`, `ImageDimensions`, `AudioFormat`, `AudioDuration`, `VideoDuration`,
`VideoResolution`) read the response's media parts (`Turn.media`). PromptKit's later names
(`contains`, `contains_any`, `regex`, `content_excludes`, `json_valid`, `min_length`, ...) are
types here too (docs/promptkit.md lists which is which). `state_is`,
`transitioned_to`, `workflow_complete` and `guardrail_triggered` are the native `StateIs`,
`TransitionedTo`, `WorkflowComplete` and `GuardrailTriggered` of the top level.

Example:
    >>> from chatassert import ToolCall, Turn
    >>> from chatassert.promptkit import ToolsCalled
    >>> turn = Turn(tool_calls=[ToolCall(name="search"), ToolCall(name="fetch")])
    >>> ToolsCalled(["search", "book"]).check(turn).details["missing_tools"]
    ['book']
"""

from chatassert._promptkit_args import (
    ConversationToolCallsWithArgs,
    ConversationToolsNotCalledWithArgs,
    ToolCallsWithArgs,
)
from chatassert._promptkit_content import (
    ContentExcludes,
    ContentIncludes,
    ContentMatches,
    ConversationContentIncludes,
    ConversationContentIncludesAny,
    ConversationContentMatches,
    ConversationContentNotIncludes,
    MaxLength,
    MinLength,
    Regex,
)
from chatassert._promptkit_json import IsValidJSON, JSONPath, JSONSchema
from chatassert._promptkit_judged import LLMJudge, LLMJudgeConversation
from chatassert._promptkit_media import (
    AudioDuration,
    AudioFormat,
    ImageDimensions,
    ImageFormat,
    VideoDuration,
    VideoResolution,
)
from chatassert._promptkit_names import (
    AgentInvoked,
    AgentNotInvoked,
    AgentResponseContains,
    ConversationAgentInvoked,
    ConversationAgentNotInvoked,
    ConversationToolsCalled,
    ConversationToolsNotCalled,
    ToolsCalled,
    ToolsNotCalled,
)
from chatassert._workflow import (
    ConversationStateIs,
    ConversationTransitionedTo,
    ConversationWorkflowComplete,
)

__all__ = [
    "AgentInvoked",
    "AgentNotInvoked",
    "AgentResponseContains",
    "AudioDuration",
    "AudioFormat",
    "ContentExcludes",
    "ContentIncludes",
    "ContentMatches",
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
    "ImageDimensions",
    "ImageFormat",
    "IsValidJSON",
    "JSONPath",
    "JSONSchema",
    "LLMJudge",
    "LLMJudgeConversation",
    "MaxLength",
    "MinLength",
    "Regex",
    "ToolCallsWithArgs",
    "ToolsCalled",
    "ToolsNotCalled",
    "VideoDuration",
    "VideoResolution",
]
