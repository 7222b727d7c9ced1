"""Workflow derivation, failure-detail shapes, aliases, Go regexes, spec errors and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from promptkit_helpers import HEADER, chat, turn

from chatassert import GuardrailTriggered, SpecError, Status, Workflow
from chatassert.promptkit import (
    ContentMatches,
    ConversationAgentInvoked,
    ConversationContentNotIncludes,
    ConversationStateIs,
    ConversationToolCallsWithArgs,
    ConversationTransitionedTo,
    ConversationWorkflowComplete,
    ToolCallsWithArgs,
)
from chatassert.specs import loads_suite
from cli_runs import run_in_process

ROOT = Path(__file__).resolve().parents[2]
FLOW = Workflow.load(ROOT / "examples" / "support.workflow.yaml")
T = "workflow__transition"


def test_workflow_derivation_reports_an_invalid_transition_and_keeps_going() -> None:
    conv = FLOW.apply(
        chat(
            turn("a", "escalating", [(T, {"event": "Escalate", "context": {}}, "ok")]),
            turn("b", "hm", [(T, {"event": "Escalate"}, "error")]),
            turn("c", "bye", [(T, {"event": "Resolve"}, "ok")]),
        )
    )
    assert [t.workflow.current for t in conv.turns if t.workflow] == [
        "specialist",
        "specialist",
        "closed",
    ]
    bad = conv.turns[1].workflow.transitions[1]  # type: ignore[union-attr]
    assert not bad.valid
    assert bad.error == "state 'specialist' does not accept event 'Escalate' (it accepts Resolve)"
    assert conv.workflow is not None
    assert conv.workflow.complete
    result = ConversationWorkflowComplete().check(conv)
    assert result.passed
    assert result.details["invalid_transitions"][0]["turn_index"] == 1
    state = ConversationStateIs("closed").check(conv)
    assert state.details["invalid_transitions"][0]["event"] == "Escalate"


def test_an_event_of_a_terminal_state_and_missing_events_are_invalid() -> None:
    conv = FLOW.apply(
        chat(
            turn("a", "x", [(T, {"event": "Resolve"}, "ok"), (T, {"event": "Resolve"}, "no")]),
            turn("b", "x", [(T, {"context": {}}, "no")]),
        )
    )
    errors = [t.error for t in conv.workflow.transitions]  # type: ignore[union-attr]
    assert errors == [
        None,
        "state 'closed' does not accept event 'Resolve' (it accepts nothing: it is terminal)",
        "workflow__transition was called without an 'event'",
    ]
    never = ConversationTransitionedTo("specialist").check(conv)
    assert never.reason == 'workflow never transitioned to state "specialist"'
    assert [t["valid"] for t in never.details["transitions"]] == [True, False, False]


def test_workflow_definitions_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown state 'nowhere'"):
        Workflow("a", {"a": {"Go": "nowhere"}})
    with pytest.raises(ValueError, match="entry state 'b'"):
        Workflow("b", {"a": {}})
    assert Workflow.from_dict(FLOW.to_dict()) == FLOW


def test_no_workflow_information_is_an_error_not_a_failure() -> None:
    result = ConversationStateIs("intake").check(chat(turn("a", "b")))
    assert result.status is Status.ERROR
    assert result.reason == "no workflow state available"


def _scenario(body: str) -> str:
    return HEADER + body


def test_a_scenario_workflow_file_is_resolved_next_to_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "flow.json").write_text(json.dumps(FLOW.to_dict()))
    text = _scenario(
        "  workflow: flow.json\n  steps:\n    - type: input\n      content: hi\n"
        "      assertions:\n        - type: state_is\n          params: {state: specialist}\n"
    )
    (case,) = loads_suite(text, filename=str(tmp_path / "s.yaml")).cases
    conv = chat(turn("hi", "ok", [(T, {"event": "Escalate"}, "ok")]))
    assert case.check(conv).passed
    missing = _scenario("  workflow: nope.yaml\n  turns: [{role: user, content: hi}]\n")
    with pytest.raises(SpecError, match=r"s.yaml:6: spec.workflow: cannot read the workflow"):
        loads_suite(missing, filename=str(tmp_path / "s.yaml"))


def test_failure_details_have_the_documented_shapes() -> None:
    weather = chat(turn("x", "y", [("get_weather", {"location": "SF"}, "ok")]))
    conv = ConversationToolCallsWithArgs("get_weather", {"location": "San Francisco"})
    details = conv.check(weather).details
    assert details["tool"] == "get_weather"
    assert details["expected"] == {"location": "San Francisco"}
    assert details["actual"] == {"location": "SF"}
    assert details["violations"][0]["turn_index"] == 0
    assert details["violations"][0]["evidence"] == {
        "tool": "get_weather",
        "arguments": {"location": "SF"},
    }
    missing = conv.check(chat(turn("x", "y")))
    assert missing.reason == "tool 'get_weather' was not called"
    agents = ConversationAgentInvoked(["a", "b"]).check(chat(turn("x", "y", [("a", {}, "r")])))
    assert agents.reason == "missing required agent invocations: b"
    assert agents.details == {
        "requirements": [
            {"agent": "a", "calls": 1, "requiredCalls": 1},
            {"agent": "b", "calls": 0, "requiredCalls": 1},
        ],
        "counts": {"a": 1},
    }
    long = "x" * 900
    assert len(ContentMatches("(?i)email").check(long).details["content"]) == 500
    snippet = ConversationContentNotIncludes(["Guarantee"]).check(chat(turn("x", "I guarantee")))
    assert snippet.details["violations"][0]["evidence"] == {
        "pattern": "Guarantee",
        "snippet": "I guarantee",
    }


def test_tool_calls_with_args_violation_types_and_match_all() -> None:
    calls = [
        ("f", {"a": 1, "b": "zzz"}, "ok"),
        ("f", {"a": 2}, "ok"),
    ]
    subject = turn("x", "y", calls)
    r = ToolCallsWithArgs("f", {"a": 1, "c": None}, {"b": "^y", "d": "."}).check(subject)
    types = [v["type"] for v in r.details["violations"]]
    assert types == [
        "missing_argument",
        "pattern_mismatch",
        "missing_argument_for_pattern",
        "value_mismatch",
        "missing_argument",
        "missing_argument_for_pattern",
        "missing_argument_for_pattern",
    ]
    assert ToolCallsWithArgs("f", {"a": "1"}).check(subject).passed
    every = ToolCallsWithArgs("f", {"a": 1}, match="all").check(subject)
    assert every.status is Status.FAILED
    assert every.reason.startswith("1 of 2 calls do not match")
    assert every.details["matching_calls"] == 1
    broken = turn("x", "y")
    broken = broken.model_copy(update={"tool_calls": (broken.tool_calls + tuple(_bad_call()))})
    invalid = ToolCallsWithArgs("f", {"a": 1}).check(broken)
    assert invalid.status is Status.ERROR
    assert invalid.details["violations"][0]["type"] == "invalid_args_json"
    never = ToolCallsWithArgs("g", {"a": 1}).check(subject)
    assert never.details == {"error": "tool_not_called", "tool_name": "g", "called_tools": ["f"]}


def _bad_call() -> list[object]:
    from chatassert import ToolCall

    return [ToolCall(name="f", arguments="{oops")]


@pytest.mark.parametrize(
    "params",
    [
        "{guardrail: banned_words, expected: true}",
        "{validator: BannedWordsValidator, should_trigger: true}",
        "{validator_type: banned-words, assertions: true}",
    ],
)
def test_guardrail_aliases(params: str) -> None:
    text = _scenario(
        "  turns:\n    - role: user\n      content: hi\n      assertions:\n"
        f"        - type: guardrail_triggered\n          params: {params}\n"
    )
    (case,) = loads_suite(text).cases
    assert case.check(chat(turn("hi", "x", guardrails=["BannedWordsValidator"]))).passed
    assert not case.check(chat(turn("hi", "x", guardrails=["MaxLengthValidator"]))).passed


def test_guardrail_not_expected_without_a_name_means_none_flagged() -> None:
    check = GuardrailTriggered(expected=False)
    assert check.check(turn("a", "b")).passed
    failed = check.check(turn("a", "b", guardrails=["PIIValidator"]))
    assert failed.reason == "Expected no guardrail to trigger but 'PIIValidator' did"
    assert failed.details["actually_triggered"] is True


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("refund (?i)POLICY", "refund Policy", "REFUND policy"),
        ("done\\z", "all done", "done\n"),
        ("^[[:alpha:]]+$", "Hello", "Hello1"),
        ("(?P<id>INV-\\d+)", "see INV-12", "see INV-"),
        ("(?U)a+", "aaa", "bbb"),
        ("(?s)a.b", "a\nb", "ab"),
    ],
)
def test_go_regex_syntax(pattern: str, good: str, bad: str) -> None:
    check = ContentMatches(pattern)
    assert check.check(good).passed
    assert check.check(bad).status is Status.FAILED


def test_spec_errors_name_the_line_and_suggest_names() -> None:
    text = _scenario(
        "  turns:\n    - role: user\n      content: hi\n      assertions:\n"
        "        - type: content_include\n          params: {patterns: [a]}\n"
        "        - type: tools_called\n          params: {tools: []}\n"
        "        - type: agent_invoked\n          params: {agent_names: [x]}\n"
        "        - type: content_includes_any\n          params: {patterns: [a]}\n"
        "  conversation_assertions:\n"
        "    - type: tool_calls_with_args\n      params: {required_args: {a: 1}}\n"
        "  colour: blue\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="bad.yaml")
    message = str(info.value)
    assert "bad.yaml:10: spec.turns[0].assertions[0]" in message
    assert "did you mean 'content_includes' or 'content_excludes' or 'content_matches'?" in message
    assert "bad.yaml:13: spec.turns[0].assertions[1].params.tools" in message
    assert "conversation-level 'agent_invoked'" in message
    assert "'content_includes_any' is a conversation-level assertion type" in message
    assert "needs the parameter 'tool_name'" in message
    assert "bad.yaml:21: spec.colour" in message
    assert len(info.value.problems) == 6


def test_argument_checks_that_could_not_fail_on_their_arguments_are_spec_errors() -> None:
    text = _scenario(
        "  turns:\n    - role: user\n      content: hi\n      assertions:\n"
        "        - type: tool_calls_with_args\n          params: {tool_name: get_weather}\n"
        "  conversation_assertions:\n"
        "    - type: tool_calls_with_args\n      params: {tool_name: get_weather}\n"
        "    - type: tools_not_called_with_args\n"
        "      params: {tool_name: refund, forbidden_args: {amount: []}}\n"
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="args.yaml")
    problems = info.value.problems
    assert len(problems) == 3
    assert "tool_calls_with_args needs arguments to check: give expected_args" in str(problems[0])
    assert "give required_args (values) or args_match" in problems[1].message
    assert "forbidden_args.amount is an empty list" in problems[2].message


def test_fail_fast_skips_the_rest_of_the_turn() -> None:
    text = _scenario(
        "  fail_fast: true\n  turns:\n    - role: user\n      content: hi\n"
        "      assertions:\n"
        "        - {type: content_includes, params: {patterns: [nope]}}\n"
        "        - {type: content_includes, params: {patterns: [hello]}}\n"
    )
    (case,) = loads_suite(text).cases
    statuses = [r.status for r in case.check(chat(turn("hi", "hello"))).children[0].children]
    assert statuses == [Status.FAILED, Status.SKIPPED]


def test_cli_checks_the_support_example_and_reports_locations() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "chatassert",
            "check",
            "examples/support.scenario.yaml",
            "examples/support.jsonl",
            "--format",
            "json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    outcomes, summary = lines[:-1], lines[-1]["summary"]
    assert summary["passed"] == 1
    assert summary["failed"] == 1
    text = json.dumps(outcomes)
    for location in ("turns[0]", "turns[1]", "turns[2]", "conversation"):
        assert f'"location": "{location}"' in text
    assert "does not accept event 'Close'" in text


def test_cli_workflow_option_applies_a_definition(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("- type: workflow_complete\n")
    log = tmp_path / "log.jsonl"
    messages = [
        {"role": "user", "content": "thanks"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "t",
                    "type": "function",
                    "function": {"name": T, "arguments": '{"event": "Resolve"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "t", "content": "ok"},
        {"role": "assistant", "content": "bye"},
    ]
    log.write_text(json.dumps({"messages": messages}) + "\n")
    base = [sys.executable, "-m", "chatassert", "check", str(spec), str(log)]
    flow = str(ROOT / "examples" / "support.workflow.yaml")
    assert (
        subprocess.run([*base, "--workflow", flow], capture_output=True, check=False).returncode
        == 0
    )
    # without it: the same command in this process (tests/cli_runs.py)
    assert run_in_process(*base[3:]).returncode == 3


SLOW = "a" * 40000 + "!"  # `(a|aa)+$` backtracks for far longer than 50 ms on this


def test_a_regex_timeout_on_one_candidate_does_not_hide_a_decision_on_another() -> None:
    from chatassert import ToolCall, Turn
    from chatassert.promptkit import ConversationContentMatches, ToolCallsWithArgs

    calls = Turn(
        tool_calls=[
            ToolCall(name="get", arguments={"q": SLOW}),
            ToolCall(name="get", arguments={"q": "world"}),
        ]
    )
    either = ToolCallsWithArgs("get", args_match={"q": "(a|aa)+$|world"}, regex_timeout=0.05)
    assert either.check(calls).passed
    every = ToolCallsWithArgs("get", args_match={"q": "(a|aa)+$"}, match="all", regex_timeout=0.05)
    assert every.check(calls).status is Status.FAILED  # 'world' decides
    undecided = ToolCallsWithArgs(
        "get", args_match={"q": "(a|aa)+$|world"}, match="all", regex_timeout=0.05
    ).check(calls)
    assert undecided.status is Status.ERROR
    assert undecided.details == {"pattern": "(a|aa)+$|world", "error": "timeout"}
    replies = chat(turn("hi", SLOW), turn("and?", "hello world"))
    assert ConversationContentMatches("(a|aa)+$|world", regex_timeout=0.05).check(replies).passed
    alone = ConversationContentMatches("(a|aa)+$", regex_timeout=0.05).check(chat(turn("x", SLOW)))
    assert alone.status is Status.ERROR
