"""Guard an OpenAI Agents SDK run with a `chatassert.monitor.Monitor`.

`MonitorHooks(monitor)` is the SDK's `RunHooks`: passed to `Runner.run(..., hooks=...)` it feeds
the monitor every event of the run, in order: the new user messages of the run's input (at its
first model call), each model response (its text, each function call it asks for, its token
usage), each tool's result. Before it records a call, it asks `monitor.permits(call)` and keeps
the `Decision`; `hooks.guardrail`, the SDK's `ToolInputGuardrail`, given to each function tool
(`function_tool(..., tool_input_guardrails=[hooks.guardrail])`), reads that decision before the
tool runs and, when the call is denied, rejects it: the tool's body never runs and the model gets
the decision's reason as the call's output (or the run stops with the SDK's
`ToolInputGuardrailTripwireTriggered`, with `on_deny="raise"`).

Each denial is recorded where the run's trace keeps it: a `guardrail` span (named by `name`,
triggered) with a `custom` span `chatassert.denial` inside it holding the call and the reason,
and the guardrail's result (`RunResult.tool_input_guardrail_results`, its `output_info`). The
monitor is fed the same guardrail event, so an offline check of the exported trace
(`TraceFile` writes it, `chatassert check` reads it with its `agents-sdk` reader) and the
monitor's `finish()` see one conversation.

A call is recorded when the model asks for it, whether it then runs or not, as the trace
records it. A handoff is the function call the model made to hand over. The calls of one
response are decided in the order the model gave them, each after the ones before it are
recorded, so calls the SDK then runs concurrently are decided as the offline check reads them.

Needs the optional extra: `pip install "chatassert[agents]"`. Tests:
tests/integrations/test_agents_sdk_guard.py.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from agents import (
    Agent,
    ModelResponse,
    RunContextWrapper,
    RunHooks,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)
from agents.tool_context import ToolContext
from agents.tracing import Span, Trace, TracingProcessor, custom_span, guardrail_span
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from chatassert._models import GuardrailEvent, ToolCall, ToolResult
from chatassert.integrations.tool_loop import record_answer
from chatassert.monitor import Decision, Metadata, Monitor

__all__ = ["MonitorHooks", "TraceFile"]

_DENIAL_SPAN = "chatassert.denial"


def _text(result: object) -> str:
    """A tool's output as the trace's reader reads a function span's `output`."""
    if isinstance(result, str):
        return result
    if result is None:
        return ""
    try:
        return json.dumps(result)
    except (TypeError, ValueError):
        return str(result)


def _record(decision: Decision) -> dict[str, Any]:
    """The decision as the trace and the guardrail's result keep it (JSON)."""
    call = decision.call
    return {
        "allowed": decision.allowed,
        "call": {"id": call.id, "name": call.name, "arguments": dict(call.arguments)},
        "denied_by": [state.name for state in decision.denied_by],
        "pending": list(decision.pending),
        "reason": decision.reason,
    }


class MonitorHooks(RunHooks[Any]):
    """Run hooks that feed a monitor an Agents SDK run's events, with a tool input guardrail that
    denies the calls the monitor does not permit.

    Args:
        monitor: The monitor to feed; one per conversation (reuse the hooks, or make new ones
            over the same monitor, for each run of a conversation).
        name: The guardrail's name: the `guardrail` span of a denial, and the guardrail event
            the monitor and an offline check see.
        on_deny: `"reject"` (the default) answers a denied call with the decision's reason and
            lets the run go on; `"raise"` stops the run (`ToolInputGuardrailTripwireTriggered`).

    Attributes:
        monitor: The monitor fed.
        decisions: Every decision made, in order (allowed ones too).

    Example:
        >>> from chatassert.policies import ToolBefore
        >>> hooks = MonitorHooks(Monitor(ToolBefore("lookup_order", "issue_refund")))
        >>> hooks.guardrail.get_name()
        'chatassert'
    """

    def __init__(
        self,
        monitor: Monitor,
        *,
        name: str = "chatassert",
        on_deny: Literal["reject", "raise"] = "reject",
    ) -> None:
        if not isinstance(monitor, Monitor):
            raise TypeError(f"MonitorHooks takes a Monitor, got {type(monitor).__name__}")
        if on_deny not in ("reject", "raise"):
            raise ValueError(f"on_deny must be 'reject' or 'raise', got {on_deny!r}")
        if not isinstance(name, str) or not name.strip():
            raise ValueError("the guardrail's name must be a non-empty string")
        self.monitor = monitor
        self.name = name
        self.on_deny = on_deny
        self.decisions: list[Decision] = []
        self._waiting: dict[str, Decision] = {}  # call id -> its decision, until the tool runs
        self._run: RunContextWrapper[Any] | None = None
        self._guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._guard, name=name
        )

    @property
    def guardrail(self) -> ToolInputGuardrail[Any]:
        """The tool input guardrail to give each function tool (`tool_input_guardrails`)."""
        return self._guardrail

    @property
    def denials(self) -> tuple[Decision, ...]:
        """The decisions that denied a call, in order."""
        return tuple(d for d in self.decisions if not d.allowed)

    # -- the run's events ------------------------------------------------------------------

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[Any],
    ) -> None:
        """Feed the run's new user messages (those that end its input) at its first model
        call."""
        if self._run is context:
            return
        self._run = context
        start = len(input_items)
        while start > 0 and _is_user_message(input_items[start - 1]):
            start -= 1
        for item in input_items[start:]:
            self.monitor.feed(dict(item) if isinstance(item, Mapping) else item)

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """Feed the response: its text, then each function call it asks for, decided first."""
        text: list[str] = []
        calls: list[ToolCall] = []
        for item in response.output:
            if isinstance(item, ResponseOutputMessage):
                text.extend(p.text for p in item.content if isinstance(p, ResponseOutputText))
            elif isinstance(item, ResponseFunctionToolCall):
                calls.append(_tool_call(item.name, item.arguments, item.call_id))
        record_answer(self.monitor, "".join(text), calls, self._decide)
        usage = response.usage
        if usage.requests:
            self.monitor.feed(
                Metadata({"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens})
            )

    async def on_tool_end(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        tool: Tool,
        result: object,
    ) -> None:
        """Feed a tool's result."""
        if isinstance(context, ToolContext):
            self.monitor.tool_result(
                ToolResult(content=_text(result), call_id=context.tool_call_id)
            )

    # -- the guard ---------------------------------------------------------------------------

    def _decide(self, call: ToolCall) -> Decision:
        decision = self.monitor.permits(call)
        self.decisions.append(decision)
        if call.id is not None:
            self._waiting[call.id] = decision
        return decision

    async def _guard(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        context = data.context
        decision = self._waiting.pop(context.tool_call_id, None)
        if decision is None:  # a call no model response of these hooks asked for
            call = _tool_call(context.tool_name, context.tool_arguments, context.tool_call_id)
            decision = self._decide(call)
            self._waiting.pop(context.tool_call_id, None)
            self.monitor.tool_call(call)
        record = _record(decision)
        if decision.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info=record)
        with guardrail_span(self.name, triggered=True), custom_span(_DENIAL_SPAN, data=record):
            pass
        self.monitor.feed(GuardrailEvent(name=self.name, triggered=True))
        if self.on_deny == "raise":
            return ToolGuardrailFunctionOutput.raise_exception(output_info=record)
        self.monitor.tool_result(ToolResult(content=decision.reason, call_id=decision.call.id))
        return ToolGuardrailFunctionOutput.reject_content(decision.reason, output_info=record)


def _is_user_message(item: object) -> bool:
    return isinstance(item, Mapping) and item.get("role") == "user"


def _tool_call(name: str, arguments: str, call_id: str) -> ToolCall:
    """A call as the trace's reader reads it: the arguments (a JSON string) parsed, or kept
    with the parse error when they are not JSON."""
    from chatassert.transcripts._build import tool_call

    return tool_call(name, arguments, call_id)


class TraceFile(TracingProcessor):
    """A tracing processor that appends each finished trace to a JSONL file: one line per
    trace, `{"object": "trace", ..., "spans": [...]}`, as `chatassert check` reads it.

    Register it with `agents.add_trace_processor(TraceFile(path))` (beside the SDK's own
    export) or `agents.set_trace_processors([TraceFile(path)])` (instead of it).

    Args:
        path: The file to append to (created when missing).

    Example:
        >>> import tempfile, pathlib
        >>> TraceFile(pathlib.Path(tempfile.mkdtemp()) / "traces.jsonl").written
        0
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.written = 0
        self._spans: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def on_trace_start(self, trace: Trace) -> None:
        """Start collecting the trace's spans."""
        with self._lock:
            self._spans.setdefault(trace.trace_id, [])

    def on_span_start(self, span: Span[Any]) -> None:
        """Nothing: a span is kept when it ends."""

    def on_span_end(self, span: Span[Any]) -> None:
        """Keep the span's export under its trace."""
        exported = span.export()
        if exported is None:
            return
        with self._lock:
            self._spans.setdefault(span.trace_id, []).append(exported)

    def on_trace_end(self, trace: Trace) -> None:
        """Append the trace and its spans as one line."""
        exported = trace.export()
        with self._lock:
            spans = self._spans.pop(trace.trace_id, [])
            if exported is None:
                return
            line = json.dumps({**exported, "spans": spans}, default=str)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(line + "\n")
            self.written += 1

    def shutdown(self) -> None:
        """Nothing to release: each trace is written when it ends."""

    def force_flush(self) -> None:
        """Nothing to flush: each trace is written when it ends."""
