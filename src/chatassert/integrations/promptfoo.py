"""Run chatassert specs as promptfoo `type: python` assertions.

promptfoo calls `get_assert(output, context)` of a Python file named in an assertion's `value`
(`file://check.py`, or `file://check.py:get_assert`); the chatassert spec goes in the
assertion's `config`, which promptfoo passes as `context["config"]`:

```yaml
assert:
  - type: python
    value: file://chatassert_check.py
    config:
      assertion: {type: contains, value: refund}   # or assertions, expect, spec
```

where `chatassert_check.py` holds one line:
`from chatassert.integrations.promptfoo import get_assert`.

`config` keys:

- `assertion`: one native spec (a mapping, or YAML/JSON text); `assertions`: a list of them, all
  of which must pass; `expect`: an `expect` object of checks on a JSON response (its subject is
  `json` by default); `spec`: a suite file, checked with its case named by `case` (else the case
  whose first input is the prompt, else its only case).
- `dialect`: the vocabulary of `assertion`/`assertions` (`native` by default, or `flat`, ...).
- `subject`: `turn` (default: the output as the agent's turn, with the prompt as its input and
  tool calls read from OpenAI-style output) or `json` (the output as a JSON value).

The answer is promptfoo's grading result: `pass`, `score` (the result's score, else 1 or 0),
`reason` (the failing branches with their locations and reasons) and `componentResults` (one per
assertion). A check that could not be evaluated does not pass, and its reason starts with
`ERROR`. A missing or invalid spec raises, which promptfoo reports as a failed assertion with the
message.

Example:
    >>> graded = get_assert("Your refund is on its way.", {
    ...     "prompt": "Where is my refund?",
    ...     "vars": {},
    ...     "config": {"assertions": [{"type": "contains", "value": "refund"},
    ...                               {"type": "contains", "value": "sorry"}]},
    ... })
    >>> graded["pass"], graded["score"]
    (False, 0.0)
    >>> print(graded["reason"])
    FAIL all_of: 1 of 2 failed; first: Response does not contain 'sorry'
      FAIL contains: Response does not contain 'sorry'
    >>> [c["pass"] for c in graded["componentResults"]]
    [True, False]
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from chatassert._base import Assertion
from chatassert._models import ToolCall, Turn, as_conversation
from chatassert._result import Result, Status
from chatassert._suite import Case, Suite

__all__ = ["get_assert", "grading_result", "subject_from_output"]

_SPEC_KEYS = ("assertion", "assertions", "expect", "spec")


def get_assert(output: Any, context: Mapping[str, Any]) -> dict[str, Any]:
    """Check promptfoo's `output` against the chatassert spec in `context["config"]`.

    Args:
        output: The provider's output: a string, or a JSON value (tool calls, structured data).
        context: promptfoo's assertion context (`prompt`, `vars`, `test`, `config`, ...).

    Returns:
        A promptfoo grading result: `{pass, score, reason, componentResults}`.

    Raises:
        ValueError: when the config names no spec, or more than one kind of spec.
        SpecError: when the spec is invalid (listing every problem).
    """
    config = context.get("config") or {}
    if not isinstance(config, Mapping):
        raise ValueError(f"the assertion's config must be a mapping, got {type(config).__name__}")
    given = [k for k in _SPEC_KEYS if config.get(k) is not None]
    if len(given) != 1:
        found = f"found {given}" if given else "found none"
        raise ValueError(
            "a chatassert promptfoo assertion needs exactly one of config.assertion, "
            f"config.assertions, config.expect or config.spec ({found})"
        )
    subject_kind = config.get("subject", "json" if given[0] == "expect" else "turn")
    if subject_kind not in ("turn", "json"):
        raise ValueError(f"config.subject must be 'turn' or 'json', got {subject_kind!r}")
    prompt = context.get("prompt")
    subject = subject_from_output(output, prompt if isinstance(prompt, str) else None)
    if subject_kind == "json":
        subject = _json_subject(output)
    if given[0] == "spec":
        case = _case(str(config["spec"]), config.get("case"), subject)
        result = case.check(subject if case.subject == "json" else as_conversation(subject))
    elif given[0] == "expect":
        result = _expect(_freeze(config["expect"])).check(subject)
    else:
        dialect = str(config.get("dialect", "native"))
        specs = config["assertions"] if given[0] == "assertions" else config["assertion"]
        result = _assertion(_freeze(specs), dialect, given[0] == "assertions").check(subject)
        if given[0] == "assertion":  # one assertion: one component, whatever its parts
            return grading_result(result, parts=False)
    return grading_result(result)


def subject_from_output(output: Any, prompt: str | None = None) -> Turn:
    """Build the turn a promptfoo output stands for.

    A string is the turn's text. OpenAI-style tool calls (a list of `{type: function, function:
    {name, arguments}}`, or a message with `tool_calls`) become the turn's tool calls; any other
    JSON value is the turn's structured data, with its JSON rendering as text.

    Example:
        >>> turn = subject_from_output([{"id": "c1", "type": "function", "function": {
        ...     "name": "get_weather", "arguments": '{"city": "Paris"}'}}], "Weather?")
        >>> turn.input, turn.tool_calls[0].name, turn.tool_calls[0].arguments
        ('Weather?', 'get_weather', {'city': 'Paris'})
    """
    if isinstance(output, str):
        return Turn(input=prompt, text=output)
    calls = _tool_calls(output)
    if calls is not None:
        text = output.get("content") if isinstance(output, Mapping) else None
        return Turn(input=prompt, text=text if isinstance(text, str) else "", tool_calls=calls)
    return Turn(input=prompt, text=json.dumps(output, ensure_ascii=False), data=output)


def _tool_calls(output: Any) -> tuple[ToolCall, ...] | None:
    raw: Any = None
    if isinstance(output, Mapping) and isinstance(output.get("tool_calls"), list):
        raw = output["tool_calls"]
    elif (
        isinstance(output, list)
        and output
        and all(isinstance(c, Mapping) and isinstance(c.get("function"), Mapping) for c in output)
    ):
        raw = output
    if raw is None:
        return None
    calls = []
    for item in raw:
        fn = item.get("function") if isinstance(item.get("function"), Mapping) else item
        calls.append(
            ToolCall.model_validate(
                {"name": fn.get("name", ""), "arguments": fn.get("arguments"), "id": item.get("id")}
            )
        )
    return tuple(calls)


def _json_subject(output: Any) -> Any:
    if isinstance(output, str):
        try:
            return json.loads(output)
        except json.JSONDecodeError:
            return output  # the JSON assertions report that it is not JSON (an error result)
    return output


def _freeze(value: Any) -> str:
    """A hashable key for a spec (the compiled assertion is cached per spec)."""
    return value if isinstance(value, str) else json.dumps(value, default=str)  # keeps key order


@lru_cache(maxsize=256)
def _assertion(frozen: str, dialect: str, many: bool) -> Assertion:
    from chatassert._base import AllOf
    from chatassert.specs import load_assertion, parse_yaml

    spec: Any = parse_yaml(frozen, None)  # JSON is YAML: one parser for both
    if not many:
        return load_assertion(spec, dialect=dialect)
    if isinstance(spec, str) or not isinstance(spec, Sequence) or not spec:
        raise ValueError("config.assertions must be a non-empty list of assertion specs")
    return AllOf(*(load_assertion(item, dialect=dialect) for item in spec))


@lru_cache(maxsize=256)
def _expect(frozen: str) -> Case:
    from chatassert.specs import loads_suite, parse_yaml

    doc = [{"name": "expect", "expect": parse_yaml(frozen, None)}]
    case: Case = loads_suite(json.dumps(doc), dialect="expect").cases[0]
    return case


def _case(path: str, name: Any, subject: Turn) -> Case:
    suite = _suite(os.path.abspath(path))
    if name is not None:
        found = suite.find(name)
        if found is None:
            raise ValueError(
                f"{path} has no case {name!r}; its cases: {[c.name for c in suite.cases]}"
            )
        return found
    cases = suite.cases_for(as_conversation(subject))
    if not cases:
        raise ValueError(
            f"{path} has {len(suite.cases)} cases and none starts with this prompt; name one "
            "with config.case"
        )
    return cases[0]


@lru_cache(maxsize=32)
def _suite(path: str) -> Suite:
    from chatassert.specs import load_suite

    return load_suite(Path(path))


def grading_result(result: Result, *, parts: bool = True) -> dict[str, Any]:
    """Translate a result tree into promptfoo's grading result.

    With `parts` (a case, or a list of assertions) each part is a component; otherwise the
    result is the one component.

    Example:
        >>> from chatassert import Contains
        >>> grading_result(Contains("refund").check("No."))
        {'pass': False, 'score': 0.0, 'reason': "FAIL contains: Response does not contain \
'refund'", 'componentResults': [{'pass': False, 'score': 0.0, 'reason': "contains: Response \
does not contain 'refund'"}]}
    """
    components = [_component(r) for r in (_assertion_results(result) if parts else [result])]
    return {
        "pass": result.passed,
        "score": _score(result),
        "reason": _reason(result),
        "componentResults": components,
    }


def _score(result: Result) -> float:
    if result.score is not None:
        return float(result.score)
    return 1.0 if result.passed else 0.0


def _reason(result: Result) -> str:
    if result.passed:
        return result.reason or f"{result.label} passed"
    return result.render()  # it starts with FAIL or ERROR


def _component(result: Result) -> dict[str, Any]:
    prefix = f"{result.location} " if result.location else ""
    mark = "ERROR " if result.status is Status.ERROR else ""
    return {
        "pass": result.passed,
        "score": _score(result),
        "reason": f"{mark}{prefix}{result.label}: {result.reason or result.status.value}",
    }


def _assertion_results(result: Result) -> list[Result]:
    """The results of the individual assertions: a case's per-turn ones, or a group's parts."""
    if not result.children:
        return [result]
    out: list[Result] = []
    for child in result.children:
        if child.name == "turn" and child.children:
            out.extend(
                c if c.location else c.replace(location=child.location) for c in child.children
            )
        else:
            out.append(child)
    return out
