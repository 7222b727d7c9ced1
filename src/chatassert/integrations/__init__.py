"""Adapters that run chatassert assertions inside other evaluation frameworks.

- `chatassert.integrations.pydantic_evals`: `ChatAssertEvaluator`, a pydantic-evals evaluator
  (needs the `pydantic-evals` extra: `pip install "chatassert[pydantic-evals]"`);
- `chatassert.integrations.promptfoo`: `get_assert(output, context)` for promptfoo's
  `type: python` assertions (no extra needed).

For pytest and unittest, see `chatassert.testing` and the pytest plugin.
"""
