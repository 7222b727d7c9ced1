"""Guard a Google ADK agent with a `chatassert.monitor.Monitor`, through the agent's callbacks.

`MonitorCallbacks(monitor)` holds the four callbacks of an `LlmAgent` that feed the monitor and
deny calls; `LlmAgent(..., **guard.callbacks())` sets them all:

- `before_agent_callback` feeds the user's message of each invocation (once, whichever agent
  runs first);
- `after_model_callback` feeds each model response: its text, then each function call it asks
  for, each decided with `monitor.permits(call)` before it is recorded (in the model's order, so
  calls ADK then runs in parallel are decided as the offline check reads them), and its token
  usage. A call the model sent without an id is given ADK's own kind of id (`adk-…`) here, so
  the monitor, the session and the eval set name it alike;
- `before_tool_callback` answers a denied call with `{"error": reason}` instead of running the
  tool: ADK records that dict as the call's function response in the session's events, the
  model reads it, and an eval case made from the session (`adk eval_set add_session`, the web
  UI, `convert_session_to_eval_invocations`) holds it, so `chatassert check` reads an errored
  result whose text is the decision's reason;
- `after_tool_callback` feeds each result (a denial's too), read as chatassert's ADK reader
  reads a function response.

Give the callbacks to every `LlmAgent` of the tree (sub-agents run their own callbacks).

Needs the optional extra: `pip install "chatassert[adk]"`. Tests:
tests/integrations/test_adk_guard.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.flows.llm_flows.functions import generate_client_function_call_id
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext

from chatassert._models import Message, ToolCall, ToolResult
from chatassert.integrations.tool_loop import record_answer
from chatassert.monitor import Decision, Metadata, Monitor

__all__ = ["MonitorCallbacks"]


class MonitorCallbacks:
    """The callbacks of an ADK `LlmAgent` that feed a monitor and deny the calls it does not
    permit.

    Args:
        monitor: The monitor to feed; one per session (conversation).

    Attributes:
        monitor: The monitor fed.
        decisions: Every decision made, in order (allowed ones too).

    Example:
        >>> from chatassert.policies import ToolBefore
        >>> guard = MonitorCallbacks(Monitor(ToolBefore("lookup_order", "issue_refund")))
        >>> sorted(guard.callbacks())
        ['after_model_callback', 'after_tool_callback',
         'before_agent_callback', 'before_tool_callback']
    """

    def __init__(self, monitor: Monitor) -> None:
        if not isinstance(monitor, Monitor):
            raise TypeError(f"MonitorCallbacks takes a Monitor, got {type(monitor).__name__}")
        self.monitor = monitor
        self.decisions: list[Decision] = []
        self._waiting: dict[str, Decision] = {}  # call id -> its decision, until the tool runs
        self._invocations: set[str] = set()

    @property
    def denials(self) -> tuple[Decision, ...]:
        """The decisions that denied a call, in order."""
        return tuple(d for d in self.decisions if not d.allowed)

    def callbacks(self) -> dict[str, Callable[..., Any]]:
        """The callbacks by the names of `LlmAgent`'s fields: `LlmAgent(..., **callbacks())`."""
        return {
            "before_agent_callback": self.before_agent_callback,
            "after_model_callback": self.after_model_callback,
            "before_tool_callback": self.before_tool_callback,
            "after_tool_callback": self.after_tool_callback,
        }

    def before_agent_callback(self, callback_context: CallbackContext) -> None:
        """Feed the user's message of the invocation, the first time an agent runs in it."""
        invocation = callback_context.invocation_id
        if invocation in self._invocations:
            return
        self._invocations.add(invocation)
        content = callback_context.user_content
        if content is None:
            return
        from chatassert.transcripts._adk import _user

        raw = content.model_dump(mode="json", exclude_none=True)
        message, answers = _user(raw, "user_content")
        self.monitor.feed(Message(role="user", content=message.content, media=tuple(message.media)))
        for answer in answers:  # the user answering a call (a confirmation, a long-running tool)
            self.monitor.tool_result(_result(answer))

    def after_model_callback(
        self, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> None:
        """Feed a model response (not a partial one): its text, then each call, decided first."""
        if llm_response.partial or llm_response.content is None:
            return
        text: list[str] = []
        calls: list[ToolCall] = []
        for part in llm_response.content.parts or ():
            if part.text and not part.thought:
                text.append(part.text)
            if part.function_call is not None:
                asked = part.function_call
                if not asked.id:
                    asked.id = generate_client_function_call_id()
                from chatassert.transcripts._build import tool_call

                calls.append(tool_call(asked.name or "", dict(asked.args or {}), asked.id))
        record_answer(self.monitor, "\n".join(text), calls, self._decide)
        usage = llm_response.usage_metadata
        if usage is not None:
            facts = {
                name: value
                for name, value in (
                    ("input_tokens", usage.prompt_token_count),
                    ("output_tokens", usage.candidates_token_count),
                    ("total_tokens", usage.total_token_count),
                )
                if value is not None
            }
            if facts:
                self.monitor.feed(Metadata(facts))

    def before_tool_callback(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Let an allowed call run (None); answer a denied one with `{"error": reason}`."""
        call_id = tool_context.function_call_id
        decision = self._waiting.pop(call_id, None) if call_id is not None else None
        if decision is None:  # a call no model response of these callbacks asked for
            from chatassert.transcripts._build import tool_call

            call = tool_call(tool.name, dict(args), call_id)
            decision = self._decide(call)
            if call_id is not None:
                self._waiting.pop(call_id, None)
            self.monitor.tool_call(call)
        if decision.allowed:
            return None
        return {"error": decision.reason}

    def after_tool_callback(
        self,
        tool: BaseTool,
        args: dict[str, Any],
        tool_context: ToolContext,
        tool_response: Any,
    ) -> None:
        """Feed a tool's result (a denial's too), as the ADK reader reads a function
        response."""
        from chatassert.transcripts._adk import _response

        body = tool_response if isinstance(tool_response, dict) else {"result": tool_response}
        raw = {"id": tool_context.function_call_id, "name": tool.name, "response": body}
        self.monitor.tool_result(_result(_response(raw, f"the response of '{tool.name}'")))

    def _decide(self, call: ToolCall) -> Decision:
        decision = self.monitor.permits(call)
        self.decisions.append(decision)
        if call.id is not None:
            self._waiting[call.id] = decision
        return decision


def _result(msg: Any) -> ToolResult:
    """The `ToolResult` of a reader's `tool` message."""
    return ToolResult(
        content=msg.content or "",
        call_id=msg.tool_call_id,
        name=msg.name,
        data=msg.data,
        is_error=msg.is_error,
    )
