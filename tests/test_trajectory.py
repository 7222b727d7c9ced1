"""Trajectory checks' shared behaviour: specs, YAML, docs blocks and tests across families.

What stays here exercises several trajectory families at once (or none): spec round trips and
pickling, YAML building, spec errors, Python construction errors and immutability across checks,
the docs' blocks, and a spec's regex time limit. Each family's own tests are in
tests/test_sequence.py, tests/test_call_counts.py and tests/test_tool_results.py; matchers alone
in tests/test_matchers_decisions.py.
"""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from chatassert import (
    ContainsFunctionCall,
    Conversation,
    MaxToolCalls,
    NoRepeatedCalls,
    NoToolErrors,
    SpecError,
    Status,
    StepsBeforeAnswer,
    ToolCall,
    ToolCallCount,
    ToolResult,
    ToolResultContains,
    ToolResultMatches,
    ToolSequence,
    Turn,
    from_spec,
)
from chatassert.args import ArgAny, ArgOneOf, ExpectedCall
from trajectory_helpers import (
    BROKEN,
    EXPECTED,
    SLOW,
    call,
    turn,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "trajectories.md"


# -- a check beside another family's ------------------------------------------------------------


def test_no_repeated_calls() -> None:
    same = turn(call("search", {"q": "refund", "n": 4}), call("search", {"n": 4.0, "q": "refund"}))
    result = NoRepeatedCalls().check(same)
    assert not result.passed
    assert result.details["repeats"][0]["calls"] == ["tool_calls[0]", "tool_calls[1]"]
    assert "'search' was called 2 times with the same arguments" in result.reason
    differ = turn(call("search", {"q": "refund"}), call("search", {"q": "returns"}))
    assert NoRepeatedCalls().check(differ).passed
    ids = turn(call("s", {"q": 1, "meta": {"rid": "a"}}), call("s", {"q": 1, "meta": {"rid": "b"}}))
    assert NoRepeatedCalls().check(ids).passed
    assert not NoRepeatedCalls(ignore_keys=["meta.rid"]).check(ids).passed
    # ignoring a nested key leaves the calls' own arguments as the transcript gave them
    assert [c.arguments["meta"] for c in ids.tool_calls] == [{"rid": "a"}, {"rid": "b"}]
    assert ContainsFunctionCall("s", {"meta": {"rid": "a"}}).check(ids).passed
    assert not NoRepeatedCalls().check(turn(BROKEN, BROKEN)).passed
    chat = Conversation(turns=[turn(call("s", {"q": 1})), turn(call("s", {"q": 1}))])
    assert (
        "(turns[0].tool_calls[0], turns[1].tool_calls[0])" in NoRepeatedCalls().check(chat).reason
    )


def test_no_tool_errors_and_error_counts() -> None:
    t = Turn(
        tool_calls=[call("search", id="1"), call("charge", id="2"), call("email", id="3")],
        tool_results=[
            ToolResult(call_id="1", content="3 hits"),
            ToolResult(call_id="2", content="card declined", is_error=True),
            ToolResult(call_id="3", content="Error: mailbox full"),
        ],
    )
    result = NoToolErrors().check(t)
    assert result.reason == (
        "expected no tool errors but 2 of 3 calls errored: 'charge' (tool_calls[1]): "
        "'card declined'; 'email' (tool_calls[2]): 'Error: mailbox full'"
    )
    assert [e["flag"] for e in result.details["errors"]] == ["is_error", "content"]
    assert NoToolErrors(["search"]).check(t).passed
    assert not NoToolErrors("charge").check(t).passed
    assert ToolCallCount("charge", max=1).check(t).details["errored"] == 1
    assert ToolSequence(["search"]).check(t).details["errored_calls"] == [
        "tool_calls[1]",
        "tool_calls[2]",
    ]


# -- specs ----------------------------------------------------------------------------------------


EXAMPLES = [
    ToolSequence(EXPECTED),
    ToolSequence(
        [
            "search_kb",
            {"tool": "create_ticket", "arguments": {"priority": {"$one_of": ["high", "urgent"]}}},
            {"tool": "notify", "arguments": {"to": {"$regex": "@"}}, "argument_mode": "exact",
             "ignore_keys": ["trace"]},
        ],
        "superset",
        argument_mode="ignore",
        ignore_keys=["request_id"],
        per_tool={"search_kb": {"argument_mode": "exact", "ignore_keys": ["page"]}},
        message="support flow",
    ),
    ToolCallCount("search", min=1, max=3),
    ToolCallCount("search", max=0),
    MaxToolCalls(8),
    NoRepeatedCalls(),
    NoRepeatedCalls(ignore_keys=["request_id", "meta.trace"]),
    StepsBeforeAnswer(5),
    ToolResultContains("lookup_order", "shipped", case_sensitive=True, match="all"),
    ToolResultMatches("create_ticket", r"TCK-\d+"),
    NoToolErrors(),
    NoToolErrors(["charge_card", "refund"]),
]  # fmt: skip


@pytest.mark.parametrize("assertion", EXAMPLES, ids=repr)
def test_spec_round_trip(assertion: Any) -> None:
    spec = assertion.as_spec()
    json.dumps(spec)
    assert from_spec(spec) == assertion
    assert from_spec(json.loads(json.dumps(spec))) == assertion
    assert pickle.loads(pickle.dumps(assertion)) == assertion
    assert assertion.describe()


YAML_SPECS = """
- type: tool_sequence
  order: in_order
  steps:
    - search_kb
    - tool: create_ticket
      arguments:
        customer_id: {$regex: '^C\\d+$'}
        priority: {$one_of: [high, urgent]}
        refund: {$range: [0, 500]}
        note: {$any: true}
  ignore_keys: [request_id]
- {type: tool_call_count, tool: search_kb, min: 1, max: 3}
- {type: max_tool_calls, max: 8}
- {type: no_repeated_calls}
- {type: steps_before_answer, max: 6}
- {type: tool_result_contains, tool: create_ticket, value: created}
- {type: tool_result_matches, tool: create_ticket, pattern: 'TCK-\\d+'}
- {type: no_tool_errors}
"""


def test_yaml_specs_build() -> None:
    built = [from_spec(node) for node in yaml.safe_load(YAML_SPECS)]
    assert [type(b).__name__ for b in built] == [
        "ToolSequence",
        "ToolCallCount",
        "MaxToolCalls",
        "NoRepeatedCalls",
        "StepsBeforeAnswer",
        "ToolResultContains",
        "ToolResultMatches",
        "NoToolErrors",
    ]
    t = Turn(
        text="Ticket TCK-2291 created.",
        tool_calls=[
            call("search_kb", {"q": "refund"}),
            call("create_ticket", {"customer_id": "C77", "priority": "urgent", "refund": "120",
                                   "note": "", "request_id": "x"}),
        ],
        tool_results=[ToolResult(content="2 articles"), ToolResult(content="created TCK-2291")],
    )  # fmt: skip
    assert [b.check(t).status for b in built] == [Status.PASSED] * len(built)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"type": "tool_sequence", "steps": [{"tool": "a", "argumnts": {}}]},
         "steps[0]: unknown key 'argumnts' in an expected call (did you mean 'arguments'"),
        ({"type": "tool_sequence", "steps": [{"arguments": {}}]}, "steps[0]: an expected call "
         "needs 'tool'"),
        ({"type": "tool_sequence", "steps": [3]}, "steps[0]: an expected call is a tool name"),
        ({"type": "tool_sequence", "steps": "search"}, "steps must be a list"),
        ({"type": "tool_sequence", "steps": []}, "steps must name at least one expected call"),
        ({"type": "tool_sequence", "steps": ["a"], "order": "inorder"}, "'order' must be one of"),
        ({"type": "tool_sequence", "steps": ["a"], "argument_mode": "strict"},
         "'argument_mode' must be one of"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "argument_mode": "exakt",
                                               "arguments": {}}]},
         "(did you mean 'exact'?)"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$regx": "a"}}}]},
         "steps[0].arguments.x: unknown matcher '$regx' (did you mean '$regex'?)"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$regex": "("}}}]},
         "steps[0].arguments.x: invalid regular expression"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$range": [5]}}}]},
         "$range takes a list [min, max]"),
        ({"type": "tool_sequence",
          "steps": [{"tool": "a", "arguments": {"x": {"$range": [5, 1]}}}]},
         "$range min 5 is greater than max 1"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$one_of": []}}}]},
         "$one_of needs a non-empty list"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$any": 1}}}]},
         "$any takes true"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "arguments": {"x": {"$any": True,
                                                                                "y": 1}}}]},
         "a matcher is a mapping with exactly one key"),
        ({"type": "tool_sequence", "steps": [{"tool": "a", "argument_mode": "exact"}]},
         "has argument_mode 'exact' but no arguments"),
        ({"type": "tool_sequence", "steps": ["a"], "per_tool": {"a": {"mode": "exact"}}},
         "per_tool.a: unknown key 'mode'"),
        ({"type": "tool_sequence", "steps": ["a"], "per_tool": {"a": "exact"}},
         "per_tool.a must be a mapping"),
        ({"type": "tool_sequence", "stepz": ["a"]}, "did you mean 'steps'?"),
        ({"type": "tool_call_count", "tool": "a"}, "needs min, max or both"),
        ({"type": "tool_call_count", "tool": "a", "min": 3, "max": 1}, "must not be greater"),
        ({"type": "tool_call_count", "tool": "a", "max": -1}, "max must not be negative"),
        ({"type": "tool_call_count", "tool": "a", "max": "2"}, "wrong type"),
        ({"type": "max_tool_calls"}, "needs the parameter 'max'"),
        ({"type": "steps_before_answer", "max": 1.5}, "wrong type"),
        ({"type": "tool_result_contains", "tool": "a"}, "needs the parameter 'value'"),
        ({"type": "tool_result_contains", "tool": "a", "value": "x", "match": "every"},
         "'match' must be one of"),
        ({"type": "tool_result_matches", "tool": "a", "pattern": "(?<=a)b"},
         "tool_result_matches pattern: invalid regular"),
        ({"type": "no_tool_errors", "tools": []}, "tools"),
    ],
)  # fmt: skip
def test_bad_specs_raise_clear_spec_errors(spec: dict[str, Any], fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    assert fragment in str(info.value)


def test_spec_errors_in_a_suite_file_name_the_line_and_the_path() -> None:
    from chatassert.specs import loads_suite

    text = (
        "chatassert: 1\n"
        "cases:\n"
        "  - name: refund\n"
        "    assertions:\n"
        "      - {type: max_tool_calls, max: 5}\n"
        "      - type: tool_sequence\n"
        "        steps: [lookup, {tool: ticket, arguments: {priority: {$oneof: [high]}}}]\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="support.yaml")
    assert str(info.value).endswith(
        "support.yaml:7: cases[0].assertions[1]: steps[1].arguments.priority: "
        "unknown matcher '$oneof' (did you mean '$one_of'?)"
    )
    suite = loads_suite(text.replace("$oneof", "$one_of"), filename="support.yaml")
    assert suite.cases[0].checks[1] == ToolSequence(
        ["lookup", ExpectedCall("ticket", {"priority": ArgOneOf(["high"])})]
    )


def test_every_problem_of_a_spec_is_reported() -> None:
    with pytest.raises(SpecError) as info:
        from_spec({"type": "tool_call_count", "tol": "a", "max": "x"})
    assert len(info.value.problems) >= 2


def test_python_construction_errors_are_precise() -> None:
    with pytest.raises(TypeError, match="steps must be a list"):
        ToolSequence("search")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("order must be one of exact, in_order")):
        ToolSequence(["a"], "ordered")
    with pytest.raises(TypeError, match="arguments of expected call 'a' must be a mapping"):
        ExpectedCall("a", ["x"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a non-empty tool name"):
        ToolResultContains("", "x")
    with pytest.raises(TypeError, match="min must be an integer"):
        ToolCallCount("a", min=True)


def test_checks_are_immutable() -> None:
    seq = ToolSequence(["a"])
    with pytest.raises(AttributeError):
        seq.order = "exact"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        seq.steps[0].tool = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ArgAny().x = 1  # type: ignore[attr-defined]


# -- docs --------------------------------------------------------------------------------------


def _python_blocks() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def _yaml_blocks() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


def test_docs_python_blocks_run() -> None:
    blocks = _python_blocks()
    assert len(blocks) >= 3
    namespace: dict[str, Any] = {}
    for number, block in enumerate(blocks):
        exec(compile(block, f"{DOCS}[python block {number}]", "exec"), namespace)


def test_docs_yaml_blocks_build() -> None:
    blocks = _yaml_blocks()
    assert blocks
    for block in blocks:
        for node in yaml.safe_load(block):
            assert from_spec(node).as_spec()["type"] == node["type"]


def test_the_regex_time_limit_of_a_spec_reaches_trajectory_regexes_and_survives_pickling() -> None:
    from chatassert.specs import loads_suite

    doc = (
        "chatassert: 1\n"
        "cases:\n"
        "  - name: slow\n"
        "    assertions:\n"
        "      - {type: tool_sequence, order: superset,\n"
        "         steps: [{tool: get, arguments: {q: {$one_of: [{$regex: '(a|aa)+$'}]}}}]}\n"
        "      - {type: tool_result_matches, tool: get, pattern: '(a|aa)+$'}\n"
    )
    (case,) = loads_suite(doc, regex_timeout=0.05).cases
    for check in case.checks:
        copy = pickle.loads(pickle.dumps(check))
        turn_ = Turn(
            tool_calls=[ToolCall(name="get", id="1", arguments={"q": SLOW})],
            tool_results=[ToolResult(call_id="1", content=SLOW)],
        )
        result = copy.check(turn_)
        assert result.status is Status.ERROR
        assert "did not finish within 0.05s" in result.reason


# -- where calls are found (`located_calls`, survivors of mutation run r3) -----------------------


def test_located_calls_of_a_conversation_and_of_a_list_of_turns() -> None:
    """`_trajectory_base` docstring: a call is `turns[i].tool_calls[j]` in a conversation (a list
    of turns is one), paired with its result, and `LocatedCall.turn` is the turn index."""
    from chatassert._trajectory_base import LocatedCall, located_calls

    got = ToolResult(call_id="b", content="ok")
    first = turn(call("a"))
    second = turn(call("b", id="b"), call("c"), results=[got])
    expected = [
        LocatedCall(call("a"), None, "turns[0].tool_calls[0]", 0),
        LocatedCall(call("b", id="b"), got, "turns[1].tool_calls[0]", 1),
        LocatedCall(call("c"), None, "turns[1].tool_calls[1]", 1),
    ]
    assert located_calls(Conversation(turns=[first, second])) == expected
    assert located_calls([first, second]) == expected


def test_located_calls_of_one_turn_and_of_other_subjects() -> None:
    """`_trajectory_base` docstring: a call is `tool_calls[j]` in a turn, a subclass of `Turn`
    included (its `turn` is `None`); any other subject is a turn by `as_turn`, and a JSON value,
    a list of values that are not all turns included, has no calls."""
    from chatassert._trajectory_base import LocatedCall, located_calls

    class TracedTurn(Turn):
        pass

    traced = TracedTurn(tool_calls=[call("a")])
    assert located_calls(traced) == [LocatedCall(call("a"), None, "tool_calls[0]", None)]
    assert located_calls(Conversation(turns=[traced])) == [
        LocatedCall(call("a"), None, "turns[0].tool_calls[0]", 0)
    ]
    assert located_calls([1, 2]) == []
    assert located_calls([turn(call("a")), "text"]) == []
    assert located_calls([]) == []
    assert located_calls("Done.") == []
    with pytest.raises(TypeError) as raised:
        located_calls(object())
    assert str(raised.value) == (
        "cannot check a object: give a Turn, a Conversation, a str or a JSON value"
    )
