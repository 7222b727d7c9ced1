"""eval-generator test files as they are: every key loads, `expected_agent` is checked.

tests/flat/data/airline_routing.yaml is a test file written in eval-generator's format (its
Pydantic schema: file `agent_id`, `sub_agent_id`, `description`, `default_test_data`,
`test_cases`; case `name`, `turns`, `tags`, `test_type`, `description`, `test_data`,
`start_agent`, `max_turns`, `context`; turn `user_input`, `assertions`, `expected_agent`,
`context`; assertion `type`, `value`, `rubric`, `model`, `arguments`). It is loaded by the real
loader and checked against logged conversations that say which agent answered each turn in
every way a log can: OpenAI Agents SDK run items, a `transfer_to_<agent>` handoff call, a
message's `metadata.agent`, and a native record's `Turn.agent`.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chatassert import ContainsFunctionCall, LLMRubric, SpecError, Status
from chatassert.flat import ActiveAgent
from chatassert.specs import load_suite, loads_suite
from chatassert.specs._common import NOT_USED_OFFLINE
from chatassert.testing import FakeJudge
from chatassert.transcripts import read_records
from cli_runs import run_in_process

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from loopback import LoopbackServer, openai_verdict

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
SUITE = DATA / "airline_routing.yaml"
RUNS = DATA / "routing_runs.jsonl"
REGRESSIONS = DATA / "routing_regressions.jsonl"


def suite_of(judge: FakeJudge | None = None) -> Any:
    return load_suite(SUITE, judge=judge or FakeJudge.passing("meets the rubric"))


def checked(log: Path) -> list[Any]:
    """Each record of `log` checked against the case it pairs with, in log order."""
    suite = suite_of()
    out = []
    for record in read_records(log):
        assert record.ok, record.error
        (case,) = suite.cases_for(record.conversation)
        out.append((case.name, case.check(record.conversation)))
    return out


def agent_results(result: Any) -> list[Any]:
    """The active_agent results of a case's result, turn by turn."""
    return [
        leaf for turn in result.children for leaf in turn.children if leaf.name == "active_agent"
    ]


# -- loading ----------------------------------------------------------------------------------


def test_every_key_of_the_file_loads_into_cases() -> None:
    suite = suite_of()
    assert suite.dialect == "flat"
    assert [c.name for c in suite.cases] == [
        "TRI-001: A lost bag goes to the baggage desk",
        "TRI-002: A refund request goes to the refunds desk",
        "TRI-003: Triage answers an allowance question itself",
        "TRI-004: Seat change after an upgrade",
    ]
    first = suite.cases[0]
    assert first.tags == ("e2e", "routing", "happy-path")
    assert first.description == (
        "A bag that did not arrive is handed to the baggage desk, which opens a claim"
    )
    assert first.metadata == {
        "agent_id": "airline_support",
        "sub_agent_id": "triage",
        "suite_description": "Triage hands each request to the desk that owns it",
        "test_type": "multi_turn",
        "start_agent": "triage",
        NOT_USED_OFFLINE: {
            "default_test_data": {
                "passenger_name": "Ada Byron",
                "booking_ref": "QX7Y2Z",
                "loyalty_tier": "silver",
            },
            "test_cases[0].test_data": {"checked_bags": 2},
            "test_cases[0].max_turns": 6,
            "test_cases[0].context": {"channel": "web_chat"},
            "test_cases[0].turns[0].context": "the first message of the chat",
        },
    }
    # a `test_data:` holding only comments is YAML's null: kept as it is
    assert suite.cases[1].metadata[NOT_USED_OFFLINE]["test_cases[1].test_data"] is None
    assert "start_agent" not in suite.cases[3].metadata


def test_expected_agent_is_the_last_check_of_its_turn() -> None:
    first, *_ = suite_of().cases
    turn_one, turn_two = first.turns
    assert turn_one.assertions[0] == ContainsFunctionCall("transfer_to_baggage_desk")
    assert turn_one.assertions[-1] == ActiveAgent("Baggage Desk")
    assert turn_two.assertions[-1] == ActiveAgent("baggage_desk")
    rubric = turn_two.assertions[1]
    assert isinstance(rubric, LLMRubric)
    assert rubric.as_spec() == {
        "type": "llm_rubric",
        "rubric": "The agent confirms that a claim was opened and gives its reference",
        "model": "judge-small",
    }
    assert turn_two.assertions[0].as_spec() == {
        "type": "contains_function_call",
        "value": "open_claim",
        "arguments": {"tag_number": "LS123456"},
    }


# -- checking logged conversations --------------------------------------------------------------


def test_the_logged_runs_pass_and_say_where_each_agent_was_read() -> None:
    results = checked(RUNS)
    assert [(name[:7], r.status) for name, r in results] == [
        ("TRI-001", Status.PASSED),
        ("TRI-002", Status.PASSED),
        ("TRI-003", Status.PASSED),
        ("TRI-004", Status.PASSED),
    ]
    details = [leaf.details for _, r in results for leaf in agent_results(r)]
    assert details == [
        # Agents SDK run items: the message after the handoff names its agent
        {"expected": "Baggage Desk", "actual": "Baggage Desk",
         "source": "Turn.agent, read from the log at items[3].agent"},
        {"expected": "baggage_desk", "actual": "Baggage Desk",
         "source": "Turn.agent, read from the log at items[7].agent"},
        # a transfer_to_<agent> call: the agent its output names
        {"expected": "refunds", "actual": "Refunds",
         "source": "Turn.agent, read from the log at handoff call transfer_to_refunds in "
                   "turns[0]"},
        # a message's metadata.agent
        {"expected": "triage", "actual": "triage",
         "source": "Turn.agent, read from the log at messages[1].metadata.agent"},
        # a native record's Turn.agent
        {"expected": "seats", "actual": "seats", "source": "Turn.agent"},
        {"expected": "seats", "actual": "seats", "source": "Turn.agent"},
    ]  # fmt: skip


def test_regressions_fail_and_a_log_that_names_no_agent_is_an_error() -> None:
    results = dict(checked(REGRESSIONS))
    wrong_desk = results["TRI-001: A lost bag goes to the baggage desk"]
    assert wrong_desk.status is Status.FAILED
    assert [leaf.reason for leaf in agent_results(wrong_desk)] == [
        "Expected agent 'Baggage Desk' after the turn, but 'Refunds' was active "
        "(from Turn.agent, read from the log at items[3].agent)",
        "Expected agent 'baggage_desk' after the turn, but 'Refunds' was active "
        "(from Turn.agent, read from the log at items[5].agent)",
    ]
    silent = results["TRI-002: A refund request goes to the refunds desk"]
    assert silent.status is Status.ERROR  # never a pass, and not a failure either
    assert silent.details == {"passed": 2, "failed": 0, "error": 1, "skipped": 0}
    (leaf,) = agent_results(silent)
    assert leaf.reason == (
        "cannot check for agent 'refunds': the log does not say which agent answered the "
        "turn (no Turn.agent, transfer_to_<agent> handoff call or metadata.agent)"
    )
    assert leaf.details == {"expected": "refunds", "actual": None, "source": None}
    metadata_says = results["TRI-003: Triage answers an allowance question itself"]
    assert metadata_says.status is Status.FAILED
    assert [leaf.details["actual"] for leaf in agent_results(metadata_says)] == ["refunds"]
    native = results["TRI-004: Seat change after an upgrade"]
    assert [leaf.status for leaf in agent_results(native)] == [Status.PASSED, Status.FAILED]
    assert agent_results(native)[1].reason == (
        "Expected agent 'seats' after the turn, but 'upgrades' was active (from Turn.agent)"
    )


def test_start_agent_never_stands_in_for_a_silent_log() -> None:
    # TRI-003 starts at triage and expects triage: a log that names no agent is still an error
    suite = suite_of()
    case = suite.find("TRI-003: Triage answers an allowance question itself")
    assert case is not None
    assert case.metadata["start_agent"] == "triage"
    (record,) = read_records_of(
        {"messages": [{"role": "user", "content": "How heavy can my cabin bag be?"},
                      {"role": "assistant", "content": "Up to 8 kg."}]}
    )  # fmt: skip
    result = case.check(record)
    assert result.status is Status.ERROR
    assert agent_results(result)[0].status is Status.ERROR


def read_records_of(*records: dict[str, Any]) -> list[Any]:
    lines = "".join(json.dumps(r) + "\n" for r in records)
    return [r.conversation for r in read_records(io.StringIO(lines))]


# -- the command line ---------------------------------------------------------------------------
# (a passing run as a subprocess; the failing one, lint and the schema in this process)


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def judge_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A judge on 127.0.0.1 that passes every rubric, configured as the CLI reads it."""
    server = LoopbackServer(default=openai_verdict(True, 1.0, "the rubric holds"))
    server.start()
    keep = {k: v for k, v in os.environ.items() if not k.startswith("CHATASSERT_")}
    try:
        yield {
            **keep,
            "PYTHONPATH": str(ROOT / "src"),
            "CHATASSERT_JUDGE": "openai",
            "CHATASSERT_JUDGE_MODEL": "judge-model",
            "CHATASSERT_JUDGE_BASE_URL": f"{server.url}/v1",
            "CHATASSERT_JUDGE_CACHE": "off",
            "CHATASSERT_JUDGE_RETRIES": "0",
            "OPENAI_API_KEY": "sk-test",
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        }
    finally:
        server.stop()


def test_check_runs_the_file_over_the_logged_runs(judge_env: dict[str, str]) -> None:
    done = run("check", str(SUITE), str(RUNS), env=judge_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 checked: 4 passed, 0 failed, 0 errors, 0 skipped" in done.stdout
    # a turn's expected_agent is reported as the file writes it, not as active_agent
    assert "  expected_agent          100.0% passed  (6/6)\n" in done.stdout


def test_check_reports_the_wrong_agent_and_the_silent_log(judge_env: dict[str, str]) -> None:
    done = run_in_process(
        "check", "--show", "10", str(SUITE), str(REGRESSIONS), cwd=ROOT, env=judge_env
    )
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "4 checked: 0 passed, 3 failed, 1 error, 0 skipped" in out
    assert (
        "FAIL turns[1].expected_agent: Expected agent 'seats' after the turn, but 'upgrades' was"
        in out
    )
    assert "ERROR turns[0].expected_agent: cannot check for agent 'refunds': the log" in out


def test_lint_verbose_lists_the_keys_kept_but_not_used_offline() -> None:
    done = run_in_process("lint", "-v", str(SUITE), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"{SUITE}: ok (flat, 4 cases, 16 assertions)",
        "  TRI-001: A lost bag goes to the baggage desk: 6 assertions",
        "    not used offline: default_test_data, test_cases[0].test_data, "
        "test_cases[0].max_turns, test_cases[0].context, test_cases[0].turns[0].context",
        "  TRI-002: A refund request goes to the refunds desk: 3 assertions",
        "    not used offline: default_test_data, test_cases[1].test_data",
        "  TRI-003: Triage answers an allowance question itself: 3 assertions",
        "    not used offline: default_test_data",
        "  TRI-004: Seat change after an upgrade: 4 assertions",
        "    not used offline: default_test_data",
    ]


def test_the_spec_schema_has_the_active_agent_check() -> None:
    done = run_in_process("schema", "spec", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    kind = json.loads(done.stdout)["$defs"]["kind_active_agent"]
    assert kind["required"] == ["type", "agent"]
    assert kind["properties"]["agent"]["type"] == "string"


# -- what the loader refuses, and what it accepts ---------------------------------------------

CASE = """
test_cases:
  - name: routed
    turns:
      - user_input: I was charged twice
        expected_agent: billing
"""


def problems(text: str) -> list[str]:
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="routing.yaml")
    return [str(p) for p in info.value.problems]


def test_misspelt_keys_stay_errors_with_did_you_mean() -> None:
    text = """
agent_idd: support
test_cases:
  - name: routed
    strat_agent: triage
    turns:
      - user_input: I was charged twice
        expected_agnet: billing
        contxt: first
"""
    assert problems(text) == [
        "routing.yaml:2: agent_idd: unknown key 'agent_idd' in a flat suite "
        "(did you mean 'agent_id' or 'sub_agent_id'?)",
        "routing.yaml:5: test_cases[0].strat_agent: unknown key 'strat_agent' in a test case "
        "(did you mean 'start_agent'?)",
        "routing.yaml:8: test_cases[0].turns[0].expected_agnet: unknown key 'expected_agnet' "
        "in a turn (did you mean 'expected_agent'?)",
        "routing.yaml:9: test_cases[0].turns[0].contxt: unknown key 'contxt' in a turn "
        "(did you mean 'context'?)",
    ]


def test_values_of_the_wrong_type_are_reported_where_they_are() -> None:
    text = """
agent_id: [support]
default_test_data: a customer
test_cases:
  - name: routed
    test_type: 2
    test_data: [1, 2]
    max_turns: 0
    start_agent: {name: triage}
    turns:
      - user_input: I was charged twice
        expected_agent: ""
"""
    found = problems(text)
    assert [p.split(": ", 2)[1] for p in found] == [
        "agent_id",
        "default_test_data",
        "test_cases[0].turns[0].expected_agent",
        "test_cases[0].start_agent",
        "test_cases[0].test_data",
        "test_cases[0].max_turns",
    ]
    assert (
        "'max_turns' must be a positive whole number; expected a whole number of turns"
        in (found[5])
    )
    assert "'default_test_data' must be a mapping of test data" in found[1]
    # a number where a name is expected reads as its text, as the other string keys do
    assert (
        loads_suite(CASE.replace("name: routed", "name: routed\n    test_type: 2"))
        .cases[0]
        .metadata["test_type"]
        == "2"
    )


def test_nulls_are_absent_values() -> None:
    suite = loads_suite(
        """
agent_id: support
sub_agent_id: null
test_cases:
  - name: routed
    start_agent: null
    max_turns: null
    test_data:
    turns:
      - user_input: I was charged twice
        expected_agent: null
        assertions: [{type: contains, value: refund}]
"""
    )
    (case,) = suite.cases
    assert case.metadata == {
        "agent_id": "support",
        NOT_USED_OFFLINE: {"test_cases[0].max_turns": None, "test_cases[0].test_data": None},
    }
    assert [a.kind for a in case.turns[0].assertions] == ["contains"]


def test_agent_id_defaults_as_eval_generator_does_and_only_in_a_suite_file() -> None:
    (suite_case,) = loads_suite(CASE).cases
    assert suite_case.metadata == {"agent_id": "default"}
    (document_case,) = loads_suite(
        """
turns:
  - user_input: I was charged twice
    expected_agent: billing
"""
    ).cases
    assert document_case.metadata == {}
    (described,) = loads_suite(
        """
agent_id: support
description: one case of routing
test_data: {plan: pro}
context: {channel: phone}
turns:
  - user_input: I was charged twice
    expected_agent: billing
"""
    ).cases
    assert described.description == "one case of routing"
    assert described.metadata == {
        "agent_id": "support",
        NOT_USED_OFFLINE: {"test_data": {"plan": "pro"}, "context": {"channel": "phone"}},
    }


def test_a_turn_with_only_expected_agent_is_a_check_and_one_with_only_context_is_not() -> None:
    (case,) = loads_suite(CASE).cases
    assert case.turns[0].assertions == (ActiveAgent("billing"),)
    assert problems(CASE.replace("expected_agent: billing", "context: first contact")) == [
        "routing.yaml:3: test_cases[0]: case 'routed' has no assertions, so it would pass "
        "vacuously (add assertions, or remove the case)"
    ]


def test_assertion_keys_are_read_by_the_types_that_use_them() -> None:
    # `rubric` and `model` belong to llm_rubric, `arguments` to contains_function_call: on
    # another type they would be ignored, so they are refused there
    found = problems(
        """
turns:
  - user_input: hi
    assertions:
      - {type: contains, value: hello, model: judge-small}
      - {type: contains_function_call, value: greet, rubric: polite}
"""
    )
    assert found == [
        "routing.yaml:5: turns[0].assertions[0].model: unknown parameter 'model' for flat type "
        "'contains' (valid parameters: value)",
        "routing.yaml:6: turns[0].assertions[1].rubric: unknown parameter 'rubric' for flat "
        "type 'contains_function_call' (valid parameters: value, arguments, args_equality)",
    ]
