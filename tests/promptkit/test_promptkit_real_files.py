"""PromptKit Scenario files as projects write them: every key loads, live-run keys are kept.

The files under data/real/ use every key the Scenario format defines (the file, `metadata`,
`spec`, turns, self-play turns, workflow steps, a PromptPack with a workflow section). They are
loaded with the real loader and checked against logged conversations; `lint -v` and a failing
`check` run as a subprocess (their variants in this process: tests/cli_runs.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from promptkit_helpers import HEADER, chat, turn

from chatassert import Conversation, Result, SpecError, Status, Turn
from chatassert.specs import load_suite, loads_suite
from chatassert.specs._common import NOT_USED_OFFLINE
from cli_runs import run_in_process

ROOT = Path(__file__).resolve().parents[2]
REAL = Path(__file__).resolve().parent / "data" / "real"
REFUND = REAL / "refund-workflow.scenario.yaml"
SELFPLAY = REAL / "curious-learner.scenario.yaml"
MOVE = "workflow__transition"


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def problems(text: str, tmp_path: Path, name: str = "s.scenario.yaml") -> str:
    """Load `text` as a scenario file beside copies of the packs; return the SpecError text."""
    for pack in REAL.glob("*.pack.json"):
        shutil.copy(pack, tmp_path / pack.name)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_suite(path)
    return str(info.value)


def by_message(result: Result, message: str) -> Result:
    found = [r for r in result.children if r.message == message]
    assert len(found) == 1, [r.message for r in result.children]
    return found[0]


def keys_of(value: Any, path: str = "") -> Iterator[str]:
    """Every key path of a parsed document, list indexes written `[]`."""
    if isinstance(value, dict):
        for key, inner in value.items():
            here = f"{path}.{key}" if path else str(key)
            yield here
            yield from keys_of(inner, here)
    elif isinstance(value, list):
        for inner in value:
            yield from keys_of(inner, f"{path}[]")


# -- the fixtures use every key of the format --------------------------------------------------

FILE_KEYS = ["$schema", "apiVersion", "kind", "metadata", "spec"]
METADATA_KEYS = ["name", "namespace", "labels", "annotations"]
SPEC_KEYS = [
    "id",
    "task_type",
    "mode",
    "description",
    "context_metadata",
    "context",
    "context_carry_forward",
    "context_policy",
    "variables",
    "constraints",
    "tool_policy",
    "providers",
    "provider_group",
    "required_capabilities",
    "streaming",
    "duplex",
    "steps",
    "pack",
    "conversation_assertions",
]
TURN_KEYS = [
    "role",
    "content",
    "parts",
    "assertions",
    "persona",
    "turns",
    "assistant_temp",
    "user_temp",
    "seed",
    "streaming",
    "tts",
]
NESTED = [
    "spec.context_metadata.domain",
    "spec.context_metadata.project_stage",
    "spec.context_metadata.user_role",
    "spec.context_policy.strategy",
    "spec.context_policy.token_budget",
    "spec.context_policy.reserve_for_output",
    "spec.context_policy.cache_breakpoints",
    "spec.context_policy.relevance",
    "spec.tool_policy.tool_choice",
    "spec.tool_policy.blocklist",
    "spec.tool_policy.max_tool_calls_per_turn",
    "spec.tool_policy.max_total_tool_calls",
    "spec.duplex.timeout",
    "spec.duplex.turn_detection.mode",
    "spec.duplex.turn_detection.vad",
    "spec.duplex.resilience",
    "spec.steps[].type",
    "spec.steps[].content",
    "spec.steps[].assertions",
]
TURN_NESTED = [
    "spec.turns[].parts[].type",
    "spec.turns[].parts[].text",
    "spec.turns[].parts[].media.url",
    "spec.turns[].parts[].media.file_path",
    "spec.turns[].parts[].media.data",
    "spec.turns[].parts[].media.mime_type",
    "spec.turns[].parts[].media.detail",
    "spec.turns[].parts[].media.caption",
    "spec.turns[].parts[].media.storage_reference",
    "spec.turns[].tts.provider",
    "spec.turns[].tts.voice",
    "spec.turns[].tts.audio_files",
    "spec.turns[].tts.sample_rate",
]


def test_the_fixture_files_use_every_key_of_the_scenario_format() -> None:
    refund = set(keys_of(yaml.safe_load(REFUND.read_text(encoding="utf-8"))))
    selfplay = set(keys_of(yaml.safe_load(SELFPLAY.read_text(encoding="utf-8"))))
    wanted = [
        *FILE_KEYS,
        *(f"metadata.{k}" for k in METADATA_KEYS),
        *(f"spec.{k}" for k in SPEC_KEYS),
        *NESTED,
    ]
    assert [k for k in wanted if k not in refund] == []
    wanted_turns = [*(f"spec.turns[].{k}" for k in TURN_KEYS), *TURN_NESTED]
    assert [k for k in wanted_turns if k not in selfplay] == []
    pack = json.loads((REAL / "billing.pack.json").read_text(encoding="utf-8"))
    states = pack["workflow"]["states"]
    assert {"version", "entry", "states"} <= set(pack["workflow"])
    assert {"on_event", "prompt_task", "description", "persistence", "orchestration"} <= set(
        states["triage"]
    )
    assert "on_event" not in states["closed"]  # a terminal state
    assert {"prompts", "tools", "metadata"} <= set(pack)  # sections the loader ignores


# -- loading: what is used, what is kept ---------------------------------------------------------


def test_a_workflow_scenario_with_every_key_loads_and_keeps_the_live_run_keys() -> None:
    suite = load_suite(REFUND)
    (case,) = suite.cases
    assert (case.name, case.id, case.description) == (
        "duplicate-charge-refund",
        "refund-workflow",
        "A customer charged twice is refunded once and the ticket is closed",
    )
    meta = dict(case.metadata)
    kept = meta.pop(NOT_USED_OFFLINE)
    assert meta == {
        "namespace": "billing",
        "labels": {"team": "payments", "tier": "critical"},
        "annotations": {"owner": "support-platform@acme.example", "ticket": "PAY-1182"},
        "task_type": "support",
        "context": {"customer_tier": "gold", "invoice": "INV-2031"},
        "context_metadata": {
            "domain": "billing",
            "user_role": "customer",
            "project_stage": "production",
        },
    }
    assert list(kept) == [
        "spec.mode",
        "spec.context_carry_forward",
        "spec.context_policy",
        "spec.variables",
        "spec.constraints",
        "spec.providers",
        "spec.provider_group",
        "spec.required_capabilities",
        "spec.streaming",
        "spec.duplex",
        "spec.tool_policy.tool_choice",
    ]
    assert kept["spec.providers"] == ["openai-gpt-4o", "claude-sonnet"]
    assert kept["spec.duplex"]["turn_detection"]["vad"] == {
        "silence_threshold_ms": 500,
        "min_speech_ms": 800,
    }
    assert [t.input for t in case.turns] == [
        "Hi, I was charged twice for invoice INV-2031.",
        "Please refund the duplicate charge.",
        "Thanks, that's everything.",
    ]
    assert case.workflow is not None
    assert (case.workflow.entry, case.workflow.terminal_states) == ("triage", ("closed",))
    assert [c.message for c in case.checks][-3:] == [
        "tool_policy.blocklist",
        "tool_policy.max_tool_calls_per_turn",
        "tool_policy.max_total_tool_calls",
    ]


def test_a_self_play_scenario_with_every_turn_key_loads() -> None:
    (case,) = load_suite(SELFPLAY).cases
    kept = case.metadata[NOT_USED_OFFLINE]
    assert list(kept) == [
        "spec.streaming",
        "spec.turns[0].streaming",
        "spec.turns[0].turns",
        "spec.turns[1].persona",
        "spec.turns[1].assistant_temp",
        "spec.turns[1].user_temp",
        "spec.turns[1].seed",
        "spec.turns[1].streaming",
        "spec.turns[1].tts",
        "spec.turns[1].content",
        "spec.turns[2].persona",
    ]
    assert kept["spec.turns[1].tts"]["audio_files"] == ["media/q1.pcm"]
    assert kept["spec.turns[1].content"] == "Ask follow-up questions about costs"
    # the scripted turn, two generated turns (turns: 2), one more generated turn
    assert [t.input for t in case.turns] == [
        "Let's talk about renewable energy, starting with solar power.",
        None,
        None,
        None,
    ]
    assert case.turns[1].assertions == case.turns[2].assertions
    assert [t.source for t in case.turns] == [
        "spec.turns[0]",
        "spec.turns[1] (1 of 2)",
        "spec.turns[1] (2 of 2)",
        "spec.turns[2]",
    ]


def test_a_scenario_without_live_run_keys_keeps_nothing() -> None:
    suite = loads_suite(
        HEADER + "  turns:\n    - role: user\n      content: hi\n      assertions:\n"
        "        - {type: content_includes, params: {patterns: [a]}}\n"
    )
    assert NOT_USED_OFFLINE not in suite.cases[0].metadata


def test_nested_keys_of_kept_values_are_not_validated(tmp_path: Path) -> None:
    text = REFUND.read_text(encoding="utf-8").replace(
        "    resilience: {max_retries: 2, retry_delay_ms: 500}",
        "    resilience: {max_retries: 2, not_a_real_knob: true}\n    future_option: 3",
    )
    text = text.replace("  variables:\n", "  variables:\n    anything: {nested: [1, 2]}\n")
    (tmp_path / "billing.pack.json").write_text(
        (REAL / "billing.pack.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    kept = load_suite(tmp_path / "s.yaml").cases[0].metadata[NOT_USED_OFFLINE]
    assert kept["spec.duplex"]["future_option"] == 3
    assert kept["spec.variables"]["anything"] == {"nested": [1, 2]}


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            REFUND,
            "$schema:",
            "$shema:",
            "unknown key '$shema' in a Scenario manifest (did you mean '$schema'?)",
        ),
        (
            REFUND,
            "  namespace:",
            "  namspace:",
            "metadata.namspace: unknown key 'namspace' in "
            "the manifest's metadata (did you mean 'namespace' or 'name'?)",
        ),
        (
            REFUND,
            "  providers:",
            "  provders:",
            "spec.provders: unknown key 'provders' in a Scenario spec (did you mean "
            "'providers' or 'provider_group'?)",
        ),
        (
            REFUND,
            "  context_carry_forward:",
            "  context_cary_forward:",
            "(did you mean 'context_carry_forward'?)",
        ),
        (
            REFUND,
            "    blocklist:",
            "    blocklst:",
            "spec.tool_policy.blocklst: unknown key "
            "'blocklst' in 'tool_policy' (did you mean 'blocklist'?)",
        ),
        (
            REFUND,
            "    project_stage:",
            "    project_stag:",
            "spec.context_metadata.project_stag"
            ": unknown key 'project_stag' in 'context_metadata' (did you mean 'project_stage'?)",
        ),
        (
            REFUND,
            '    - type: input\n      content: "Please',
            '    - type: input\n      contnet: "Please',
            "spec.steps[1].contnet: unknown key 'contnet' in a step (did you mean 'content'?)",
        ),
        (
            SELFPLAY,
            "      persona: curious-learner",
            "      persna: curious-learner",
            "spec.turns[1].persna: unknown key 'persna' in a turn (did you mean 'persona'?)",
        ),
        (SELFPLAY, "      user_temp:", "      user_tmp:", "(did you mean 'user_temp'?)"),
        (
            SELFPLAY,
            "          media:",
            "          medai:",
            "spec.turns[0].parts[1].medai: unknown key 'medai' in a part (did you mean 'media'?)",
        ),
    ],
)
def test_a_misspelt_key_is_still_an_error_with_did_you_mean(
    tmp_path: Path, file: Path, old: str, new: str, expected: str
) -> None:
    text = file.read_text(encoding="utf-8")
    assert text.count(old) == 1
    assert expected in problems(text.replace(old, new), tmp_path)


def test_kept_and_used_keys_with_the_wrong_shape_are_reported(tmp_path: Path) -> None:
    text = (
        REFUND.read_text(encoding="utf-8")
        .replace("  labels:\n    team: payments\n    tier: critical", "  labels: [payments]")
        .replace("  context:\n    customer_tier: gold\n    invoice: INV-2031", "  context: gold")
        .replace("max_tool_calls_per_turn: 3", "max_tool_calls_per_turn: -1")
        .replace("max_total_tool_calls: 6", "max_total_tool_calls: many")
        .replace("tool_choice: auto", "tool_choice: [auto]")
    )
    text = problems(text, tmp_path)
    assert "metadata.labels: 'labels' must map names to strings" in text
    assert "spec.context: 'context' must be a mapping" in text
    assert (
        "spec.tool_policy.max_tool_calls_per_turn: 'max_tool_calls_per_turn' must be a whole "
        "number of tool calls; expected an integer of at least 0 (0: no limit), found "
        "integer -1"
    ) in text
    assert "spec.tool_policy.max_total_tool_calls: 'max_total_tool_calls' must be a whole" in text
    assert "spec.tool_policy.tool_choice: 'tool_choice' must be a string" in text


# -- the workflow scenario against logged conversations ---------------------------------------


def refund_log(*, refunded: bool = True, blocked: bool = False) -> Conversation:
    first = [
        ("lookup_invoice", {"invoice_id": "INV-2031"}, "two charges of $49"),
        (MOVE, {"event": "NeedsRefund"}, "ok"),
    ]
    second = [("issue_refund", {"invoice_id": "INV-2031", "amount": 49}, "refunded")]
    if refunded:
        second.append((MOVE, {"event": "Refunded"}, "ok"))
    if blocked:
        second.append(("wipe_ledger", {}, "done"))
    return chat(
        turn("Hi, I was charged twice for invoice INV-2031.", "I see two charges.", first),
        turn("Please refund the duplicate charge.", "I refunded $49.", second),
        turn(
            "Thanks, that's everything.",
            "Closed. Have a nice day.",
            [(MOVE, {"event": "Closed"}, "ok")],
        ),
    )


def test_the_pack_workflow_drives_the_steps_on_a_passing_conversation() -> None:
    (case,) = load_suite(REFUND).cases
    result = case.check(refund_log())
    assert result.status is Status.PASSED, result.render(verbose=True)
    assert result.details["passed"] == 10


def test_the_pack_workflow_drives_the_steps_on_a_failing_conversation() -> None:
    (case,) = load_suite(REFUND).cases
    result = case.check(refund_log(refunded=False))
    assert result.status is Status.FAILED
    failed = [(r.label, r.reason) for r in result.leaves() if r.status is Status.FAILED]
    assert failed == [
        ("state_is", 'expected state "wrap_up" but workflow is in state "refunds"'),
        ("workflow_complete", "workflow is not complete"),
        # named as the file writes it under conversation_assertions, not by its native kind
        ("transitioned_to", 'workflow never transitioned to state "closed"'),
    ]
    assert [r.spec_path for r in result.leaves() if r.status is Status.FAILED] == [
        "spec.steps[1].assertions[1]",
        "spec.steps[2].assertions[0]",
        "spec.conversation_assertions[1]",
    ]


def test_the_pack_path_is_relative_to_the_scenario_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (case,) = load_suite(os.path.relpath(REFUND, tmp_path)).cases
    assert case.workflow is not None
    assert case.workflow.entry == "triage"


def test_a_pack_without_a_workflow_section_is_fine_when_nothing_checks_workflow_state() -> None:
    (case,) = loads_suite(
        HEADER + "  pack: prompts-only.pack.json\n  steps:\n    - type: input\n"
        "      content: hi\n      assertions:\n"
        "        - {type: content_includes, params: {patterns: [hello]}}\n",
        filename=str(REAL / "inline.scenario.yaml"),
    ).cases
    assert case.workflow is None
    assert case.check(chat(turn("hi", "hello there"))).status is Status.PASSED


def test_a_pack_without_a_workflow_section_is_a_problem_when_steps_check_workflow_state(
    tmp_path: Path,
) -> None:
    text = REFUND.read_text(encoding="utf-8").replace(
        "pack: billing.pack.json", "pack: prompts-only.pack.json"
    )
    found = problems(text, tmp_path)
    assert (
        "spec.pack: the pack has no 'workflow' section, but the scenario checks workflow state"
        "; expected a pack with 'workflow: {entry, states}' (add the workflow section to "
        "the pack, or give the scenario 'workflow:' (a file or the section inline))"
    ) in found


@pytest.mark.parametrize(
    ("pack", "expected"),
    [
        ("missing.pack.json", "spec.pack: cannot read the pack"),
        ("[1, 2]", "is not a PromptPack"),
        ('{"workflow": {"entry": "nowhere", "states": {"a": {}}}}', "invalid workflow in the pack"),
        (
            "{not json: [",
            "odd.pack.json:1: the pack is not valid JSON: Expecting property name enclosed in "
            "double quotes (column 2) (a PromptPack is one JSON object)",
        ),
    ],
)
def test_a_pack_that_cannot_drive_the_steps_is_a_problem(
    tmp_path: Path, pack: str, expected: str
) -> None:
    if not pack.endswith(".json"):
        (tmp_path / "odd.pack.json").write_text(pack, encoding="utf-8")
        pack = "odd.pack.json"
    text = REFUND.read_text(encoding="utf-8").replace("billing.pack.json", pack)
    assert expected in problems(text, tmp_path)


def test_a_pack_written_as_yaml_is_read_too(tmp_path: Path) -> None:
    data = json.loads((REAL / "billing.pack.json").read_text(encoding="utf-8"))
    (tmp_path / "billing.pack.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    text = REFUND.read_text(encoding="utf-8").replace("billing.pack.json", "billing.pack.yaml")
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    (case,) = load_suite(tmp_path / "s.yaml").cases
    assert case.check(refund_log()).status is Status.PASSED


def test_a_pack_workflow_and_a_scenario_workflow_are_one_too_many(tmp_path: Path) -> None:
    text = REFUND.read_text(encoding="utf-8").replace(
        "  pack: billing.pack.json\n",
        "  pack: billing.pack.json\n  workflow: {entry: a, states: {a: {}}}\n",
    )
    assert "spec.workflow: the scenario has two workflows" in problems(text, tmp_path)


def test_a_scenario_workflow_serves_a_pack_without_one() -> None:
    (case,) = loads_suite(
        HEADER + "  pack: prompts-only.pack.json\n"
        "  workflow: {entry: open, states: {open: {on_event: {Close: done}}, done: {}}}\n"
        "  steps:\n    - content: hi\n      assertions:\n        - type: state_is\n"
        "          params: {state: open}\n",
        filename=str(REAL / "inline.scenario.yaml"),
    ).cases
    assert case.workflow is not None
    assert case.workflow.entry == "open"


# -- self-play turns -----------------------------------------------------------------------------


def solar_log(second_reply: str = "Solar panels cost less every year.") -> Conversation:
    return chat(
        turn("Let's talk about renewable energy, starting with solar power.", "Solar is great."),
        turn("How much do panels cost?", "Solar panels cost about $3 per watt."),
        turn("And in ten years?", second_reply),
        turn("Is it worth it at all?", "Yes: solar pays back within eight years."),
    )


def test_self_play_turns_are_matched_to_the_logged_user_turns() -> None:
    (case,) = load_suite(SELFPLAY).cases
    result = case.check(solar_log())
    assert result.status is Status.PASSED, result.render(verbose=True)
    records = [r for r in result.children if r.label == "turn"]
    assert [(r.location, r.details["input"]) for r in records] == [
        ("turns[0]", "Let's talk about renewable energy, starting with solar power."),
        ("turns[1]", "How much do panels cost?"),
        ("turns[2]", "And in ten years?"),
        ("turns[3]", "Is it worth it at all?"),
    ]


def test_each_of_the_n_generated_turns_is_checked_with_the_self_play_turns_assertions() -> None:
    (case,) = load_suite(SELFPLAY).cases
    result = case.check(solar_log(second_reply="Prices will keep falling."))
    assert result.status is Status.FAILED
    (bad,) = [r for r in result.children if r.status is Status.FAILED]
    assert (bad.location, bad.details["turn_index"]) == ("turns[2]", 2)
    assert bad.children[0].message == "Every answer should stay on solar power"


def test_a_log_shorter_than_the_self_play_turns_is_an_error_not_a_pass() -> None:
    (case,) = load_suite(SELFPLAY).cases
    log = chat(*solar_log().turns[:2])
    result = case.check(log)
    assert result.status is Status.ERROR
    assert [r.reason for r in result.children if r.status is Status.ERROR] == [
        "the case has turn 3 but the transcript has only 2 user turns",
        "the case has turn 4 but the transcript has only 2 user turns",
    ]


def test_a_self_play_turn_without_content_does_not_break_pairing_by_input() -> None:
    from chatassert.specs import Suite

    refund = load_suite(REFUND).cases[0]
    selfplay = load_suite(SELFPLAY).cases[0]
    suite = Suite("both", (refund, selfplay))
    assert suite.cases_for(solar_log()) == [selfplay]
    assert suite.cases_for(refund_log()) == [refund]


@pytest.mark.parametrize(
    ("extra", "count"),
    [("", 1), ("      turns: 0\n", 1), ("      turns: 3\n", 3)],
)
def test_a_self_play_turn_stands_for_its_turns_count(extra: str, count: int) -> None:
    suite = loads_suite(
        HEADER + "  turns:\n    - role: selfplay-user\n" + extra + "      assertions:\n"
        "        - {type: content_includes, params: {patterns: [ok]}}\n"
    )
    assert len(suite.cases[0].turns) == count
    assert all(t.input is None for t in suite.cases[0].turns)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("      role: assistant\n", "spec.turns[0].role: unsupported turn role 'assistant'"),
        ("      role: system\n", "unsupported turn role 'system'"),
        ("      role: ''\n", "'role' must be 'user' or a self-play role"),
        (
            "      role: selfplay-user\n      turns: -2\n",
            "spec.turns[0].turns: 'turns' of a self-play turn must be a whole number of turns",
        ),
        ("      role: selfplay-user\n      turns: true\n", "'turns' of a self-play turn"),
    ],
)
def test_roles_and_counts_that_cannot_be_self_play_are_problems(line: str, expected: str) -> None:
    with pytest.raises(SpecError) as info:
        loads_suite(
            HEADER + "  turns:\n    - content: hi\n" + line + "      assertions:\n"
            "        - {type: content_includes, params: {patterns: [ok]}}\n"
        )
    assert expected in str(info.value)


def test_a_user_turn_given_as_parts_is_paired_by_the_text_of_its_parts() -> None:
    (case,) = loads_suite(
        HEADER + "  turns:\n    - role: user\n      parts:\n"
        "        - {type: text, text: 'What is in '}\n"
        "        - {type: text, text: 'this picture?'}\n"
        "        - {type: image, media: {url: 'https://example.com/a.png', mime_type: image/png}}\n"
        "      assertions:\n        - {type: content_includes, params: {patterns: [cat]}}\n"
    ).cases
    assert case.turns[0].input == "What is in this picture?"


def test_a_user_turn_with_parts_and_content_is_paired_by_its_parts() -> None:
    (case,) = loads_suite(
        HEADER + "  turns:\n    - role: user\n      content: 'Describe it'\n      parts:\n"
        "        - {type: text, text: 'What is in this picture?'}\n"
        "      assertions:\n        - {type: content_includes, params: {patterns: [cat]}}\n"
        "    - role: user\n      content: 'And now?'\n"
        "      parts: [{type: image, media: {url: 'https://example.com/b.png'}}]\n"
    ).cases
    assert [t.input for t in case.turns] == ["What is in this picture?", "And now?"]


# -- tool_policy ---------------------------------------------------------------------------------


def policy_case(policy: str, *, checks: str = "") -> Any:
    (case,) = loads_suite(
        HEADER + "  tool_policy: " + policy + "\n  turns:\n    - role: user\n      content: a\n"
        "    - role: user\n      content: b\n" + checks
    ).cases
    return case


def two_turns(first: list[str], second: list[str]) -> Conversation:
    return chat(
        turn("a", "done", [(name, {"n": i}, "ok") for i, name in enumerate(first)]),
        turn("b", "done", [(name, {"n": i}, "ok") for i, name in enumerate(second)]),
    )


def test_a_blocklist_passes_when_no_blocked_tool_is_called() -> None:
    result = policy_case("{blocklist: [delete_account]}").check(
        two_turns(["search"], ["search", "refund"])
    )
    check = by_message(result, "tool_policy.blocklist")
    assert check.status is Status.PASSED


def test_a_blocklist_fails_on_a_blocked_call_and_says_where() -> None:
    result = policy_case("{blocklist: [delete_account, wipe]}").check(
        two_turns(["search"], ["delete_account"])
    )
    check = by_message(result, "tool_policy.blocklist")
    assert (check.status, check.reason) == (Status.FAILED, "forbidden tools were called")
    assert [(v["turn_index"], v["evidence"]["tool"]) for v in check.details["violations"]] == [
        (1, "delete_account")
    ]


def test_the_per_turn_limit_checks_every_turn() -> None:
    case = policy_case("{max_tool_calls_per_turn: 2}")
    ok = by_message(
        case.check(two_turns(["a", "b"], ["c", "d"])), "tool_policy.max_tool_calls_per_turn"
    )
    assert ok.status is Status.PASSED
    bad = by_message(
        case.check(two_turns(["a"], ["b", "c", "d"])), "tool_policy.max_tool_calls_per_turn"
    )
    assert bad.status is Status.FAILED
    assert [(r.location, r.status) for r in bad.children] == [
        ("turns[0]", Status.PASSED),
        ("turns[1]", Status.FAILED),
    ]
    assert bad.children[1].reason == "expected at most 2 tool calls but got 3: b x1, c x1, d x1"


def test_the_total_limit_counts_the_whole_conversation() -> None:
    case = policy_case("{max_total_tool_calls: 3}")
    ok = by_message(case.check(two_turns(["a", "b"], ["c"])), "tool_policy.max_total_tool_calls")
    assert (ok.status, ok.details["count"]) == (Status.PASSED, 3)
    bad = by_message(
        case.check(two_turns(["a", "b"], ["c", "a"])), "tool_policy.max_total_tool_calls"
    )
    assert (bad.status, bad.reason) == (
        Status.FAILED,
        "expected at most 3 tool calls but got 4: a x2, b x1, c x1",
    )


def test_tool_choice_none_allows_no_tool_call() -> None:
    case = policy_case("{tool_choice: none, max_tool_calls_per_turn: 0, max_total_tool_calls: 0}")
    assert [c.message for c in case.checks] == ["tool_policy.tool_choice"]
    ok = by_message(case.check(two_turns([], [])), "tool_policy.tool_choice")
    assert ok.status is Status.PASSED
    bad = by_message(case.check(two_turns([], ["search"])), "tool_policy.tool_choice")
    assert bad.status is Status.FAILED
    assert bad.children[1].reason == "expected at most 0 tool calls but got 1: search x1"


@pytest.mark.parametrize("choice", ["auto", "required"])
def test_other_tool_choices_and_zero_limits_are_kept_not_checked(choice: str) -> None:
    case = policy_case(
        f"{{tool_choice: {choice}, blocklist: [], max_tool_calls_per_turn: 0, "
        "max_total_tool_calls: 0}",
        checks="      assertions:\n"
        "        - {type: content_includes, params: {patterns: [done]}}\n",
    )
    assert case.checks == ()
    assert case.check(two_turns(["a"] * 9, ["b"] * 9)).status is Status.PASSED  # 0: no limit
    assert case.metadata[NOT_USED_OFFLINE] == {"spec.tool_policy.tool_choice": choice}


def test_a_scenario_of_only_a_tool_policy_is_not_vacuous() -> None:
    case = policy_case("{blocklist: [wipe]}")
    assert case.check(two_turns([], ["wipe"])).status is Status.FAILED


# -- the command line --------------------------------------------------------------------------


def test_lint_verbose_lists_the_kept_keys_per_case() -> None:
    out = run_cli("lint", "-v", str(REFUND.relative_to(ROOT)), str(SELFPLAY.relative_to(ROOT)))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == (
        "tests/promptkit/data/real/refund-workflow.scenario.yaml: ok (promptkit, 1 case, "
        "10 assertions)"
    )
    assert lines[1] == "  duplicate-charge-refund: 10 assertions"
    assert lines[2] == (
        "    not used offline: spec.mode, spec.context_carry_forward, spec.context_policy, "
        "spec.variables, spec.constraints, spec.providers, spec.provider_group, "
        "spec.required_capabilities, spec.streaming, spec.duplex, spec.tool_policy.tool_choice"
    )
    assert lines[4] == "  renewable-energy-chat: 5 assertions"
    assert lines[5].startswith("    not used offline: spec.streaming, spec.turns[0].streaming,")
    assert "spec.turns[1].tts" in lines[5]
    assert "spec.turns[2].persona" in lines[5]


def test_lint_without_verbose_does_not_list_them() -> None:
    out = run_in_process("lint", str(REFUND.relative_to(ROOT)), cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "not used offline" not in out.stdout


def test_lint_reports_a_misspelt_key_with_did_you_mean(tmp_path: Path) -> None:
    text = REFUND.read_text(encoding="utf-8").replace("  provider_group:", "  provider_grop:")
    (tmp_path / "billing.pack.json").write_text(
        (REAL / "billing.pack.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    out = run_in_process("lint", "-v", "s.yaml", cwd=tmp_path)
    assert out.returncode != 0
    assert (
        "unknown key 'provider_grop' in a Scenario spec (did you mean 'provider_group' or "
        "'providers'?)" in (out.stdout + out.stderr)
    )


def test_check_reports_tool_policy_results_by_their_origin(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    record = {"id": "refund-workflow", "messages": _messages(refund_log(blocked=True))}
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = run_cli("check", str(REFUND), str(log))
    assert out.returncode == 1, out.stderr
    assert "tool_policy.blocklist" in out.stdout
    assert "tool_policy.max_tool_calls_per_turn" in out.stdout
    good = tmp_path / "good.jsonl"
    good.write_text(
        json.dumps({"id": "refund-workflow", "messages": _messages(refund_log())}) + "\n",
        encoding="utf-8",
    )
    out = run_in_process("check", str(REFUND), str(good))
    assert out.returncode == 0, out.stdout + out.stderr


def _messages(conversation: Conversation) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in conversation.turns:
        for m in t.messages:
            message: dict[str, Any] = {"role": m.role, "content": m.content}
            if m.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in m.tool_calls
                ]
            if m.tool_call_id:
                message["tool_call_id"] = m.tool_call_id
            out.append(message)
    return out


# -- the documentation -------------------------------------------------------------------------

DOC = (ROOT / "docs" / "promptkit.md").read_text(encoding="utf-8")
SECTION = DOC.split("## Scenario files as projects write them", 1)[1]


def test_the_docs_table_decides_every_key() -> None:
    table = SECTION.split("### Self-play turns", 1)[0]
    missing = [k for k in SPEC_KEYS if f"`spec.{k}`" not in table]
    missing += [f"metadata.{k}" for k in METADATA_KEYS if f"`metadata.{k}`" not in table]
    missing += [f"turn {k}" for k in TURN_KEYS if f"`{k}`" not in table]
    assert missing == []


def test_the_docs_self_play_example_loads_and_checks_each_generated_turn() -> None:
    blocks = [part.split("```", 1)[0] for part in SECTION.split("```yaml\n")[1:]]
    (snippet,) = [block for block in blocks if "gemini-user" in block]
    (case,) = loads_suite(HEADER + "\n".join("  " + line for line in snippet.splitlines())).cases
    assert [t.input for t in case.turns] == ["Let's talk about solar power.", None, None]
    log = chat(
        turn("Let's talk about solar power.", "Sure."),
        turn("Is it cheap?", "Solar got cheaper."),
        turn("Why?", "Panels are mass-produced."),
    )
    result = case.check(log)
    assert result.status is Status.FAILED
    assert [r.location for r in result.children if r.status is Status.FAILED] == ["turns[2]"]


LIVE_ONLY = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: warm-up}
spec:
  providers: [openai-gpt-4o]
  turns:
    - role: user
      content: Hello there
    - role: selfplay-user
      persona: chatty
      turns: 3
"""


def test_a_scenario_without_assertions_loads_and_is_skipped_never_passed() -> None:
    """PromptKit runs such a scenario only to drive a conversation: nothing to check offline."""
    suite = loads_suite(LIVE_ONLY, filename="warm-up.scenario.yaml")
    (case,) = suite.cases
    assert case.skip == "the scenario has no assertions: nothing to check offline"
    result = case.check(Conversation(turns=[Turn(input="Hello there", text="Hi!")]))
    assert result.status is Status.SKIPPED
    assert result.reason == "the scenario has no assertions: nothing to check offline"


def test_lint_says_a_scenario_without_assertions_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "warm-up.scenario.yaml"
    path.write_text(LIVE_ONLY, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "lint", "-v", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "ok (promptkit, 1 case, 0 assertions, 1 skipped)" in done.stdout
    assert "skipped: the scenario has no assertions: nothing to check offline" in done.stdout
