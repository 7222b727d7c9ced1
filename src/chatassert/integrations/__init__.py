"""Adapters that run chatassert assertions inside other evaluation frameworks.

- `chatassert.integrations.pydantic_evals`: `ChatAssertEvaluator`, a pydantic-evals evaluator
  (needs the `pydantic-evals` extra: `pip install "chatassert[pydantic-evals]"`);
- `chatassert.integrations.promptfoo`: `get_assert(output, context)` for promptfoo's
  `type: python` assertions (no extra needed).

Guards for running agents (a `chatassert.monitor.Monitor` fed as the agent works, denying the
tool calls it does not permit; docs/guard-a-running-agent.md):

- `chatassert.integrations.agents_sdk`: `MonitorHooks` (run hooks and a tool input guardrail)
  and `TraceFile` for the OpenAI Agents SDK (the `agents` extra);
- `chatassert.integrations.adk`: `MonitorCallbacks`, an ADK agent's callbacks (the `adk`
  extra);
- `chatassert.integrations.tool_loop`: `run_tool` for a hand-written tool loop (no extra).

For pytest and unittest, see `chatassert.testing` and the pytest plugin.
"""
