"""PromptKit `kind: Eval` manifests: one case that checks the recording it names
(docs/promptkit.md "Eval files and recordings")."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from chatassert import Conversation, SpecError, Status, Turn
from chatassert._registry import UnknownType
from chatassert.reporting import recorded_verdicts
from chatassert.specs import load_suite, loads_suite
from chatassert.transcripts import read_records

DATA = Path(__file__).resolve().parent / "data"
EVAL = DATA / "billing.eval.yaml"

HEAD = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Eval
metadata:
  name: replay
spec:
"""


def _eval(spec: str, head: str = HEAD) -> str:
    return head + textwrap.indent(textwrap.dedent(spec), "  ")


MINIMAL = """\
description: d
recording: {path: run.arena.json}
conversation_assertions:
  - type: tools_called
    params: {tool_names: [lookup]}
"""


def _recording() -> Conversation:
    [record] = read_records(DATA / "billing.arena.json")
    assert record.conversation is not None
    return record.conversation


def test_an_eval_file_is_one_promptkit_case_with_every_key_kept() -> None:
    suite = load_suite(EVAL)
    assert (suite.dialect, suite.name) == ("promptkit", "billing")
    [case] = suite.cases
    assert (case.name, case.id, case.tags) == (
        "billing-replay",
        "billing-replay-1",
        ("billing", "replay"),
    )
    assert case.description == "Replays the recorded double-charge conversation"
    assert case.fail_fast is False
    assert dict(case.metadata) == {
        "namespace": "support",
        "labels": {"team": "billing"},
        "annotations": {"owner": "billing-oncall"},
        "recording": {
            "path": os.path.join(str(DATA), "billing.arena.json"),
            "type": "arena_output",
        },
        "mode": "instant",
        "speed": 1.0,
    }
    assert case.turns == ()
    assert [a.kind for a in case.checks] == [
        "on_every_turn",
        "on_every_turn",
        "conversation_tools_called",
    ]
    assert [a.message for a in case.checks] == [
        "Apologises",
        "No banned words",
        "Looked the invoice up",
    ]


def test_all_turns_assertions_check_every_turn_of_the_recording() -> None:
    [case] = load_suite(EVAL).cases
    result = case.check(_recording())
    apologises, banned, looked_up = result.children
    assert [(r.location, r.status) for r in apologises.children] == [
        ("turns[0]", Status.PASSED),
        ("turns[1]", Status.PASSED),
    ]
    assert [(r.location, r.status) for r in banned.children] == [
        ("turns[0]", Status.PASSED),
        ("turns[1]", Status.FAILED),  # the banned-words validator flagged the second answer
    ]
    assert banned.children[1].details["actually_triggered"] is True
    assert looked_up.status is Status.PASSED
    assert result.status is Status.FAILED
    assert result.details == {"passed": 2, "failed": 1, "error": 0, "skipped": 0}


def test_an_eval_never_fails_fast() -> None:
    suite = loads_suite(
        _eval("""\
        description: d
        recording: {path: run.json}
        turns:
          - all_turns:
              assertions:
                - {type: content_includes, params: {patterns: [refund]}}
                - {type: content_includes, params: {patterns: [sorry]}}
        """)
    )
    chat = Conversation(turns=[Turn(input="a", text="no"), Turn(input="b", text="sorry")])
    first, second = suite.cases[0].check(chat).children
    assert [r.status for r in first.children] == [Status.FAILED, Status.FAILED]
    assert [r.status for r in second.children] == [Status.FAILED, Status.PASSED]


def test_the_recording_is_checked_against_the_recorded_verdicts() -> None:
    [case] = load_suite(EVAL).cases
    chat = _recording()
    compared = recorded_verdicts(case.check(chat), chat)
    assert compared is not None
    recorded, differ = compared
    assert [(r["location"], r["type"], r["recorded"], r["chatassert"]) for r in recorded] == [
        ("turns[0]", "content_matches", "passed", "passed"),
        ("turns[0]", "guardrail_triggered", "passed", "passed"),
        ("turns[1]", "content_matches", "passed", "passed"),
        ("turns[1]", "guardrail_triggered", "passed", "failed"),
        ("conversation", "tools_called", "passed", "passed"),
    ]
    assert [(d["location"], d["type"], d["label"]) for d in differ] == [
        ("turns[1]", "guardrail_triggered", "No banned words")
    ]


def test_the_recording_path_is_relative_to_the_eval_file(tmp_path: Path) -> None:
    nested = tmp_path / "evals"
    nested.mkdir()
    (nested / "a.eval.yaml").write_text(_eval(MINIMAL), encoding="utf-8")
    absolute = _eval(MINIMAL.replace("run.arena.json", str(tmp_path / "x.json")))
    (nested / "b.eval.yaml").write_text(absolute, encoding="utf-8")
    a = load_suite(nested / "a.eval.yaml").cases[0].metadata["recording"]
    b = load_suite(nested / "b.eval.yaml").cases[0].metadata["recording"]
    assert a == {"path": os.path.join(str(nested), "run.arena.json"), "type": None}
    assert b["path"] == str(tmp_path / "x.json")
    text = loads_suite(_eval(MINIMAL)).cases[0]  # no file: the path as written
    assert text.metadata["recording"]["path"] == "run.arena.json"
    assert text.name == "replay"


def test_an_eval_without_metadata_is_named_after_its_file() -> None:
    head = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Eval\nspec:\n"
    case = loads_suite(_eval(MINIMAL, head), filename="nightly.eval.yaml").cases[0]
    assert case.name == "nightly"


@pytest.mark.parametrize(
    ("spec", "message", "path", "hint"),
    [
        (
            MINIMAL.replace("recording: {path: run.arena.json}\n", ""),
            "missing 'recording'",
            "spec",
            "name the recorded conversation",
        ),
        (
            MINIMAL.replace("{path: run.arena.json}", "{type: session}"),
            "missing 'path'",
            "spec.recording",
            "add 'path: ...'",
        ),
        (
            MINIMAL.replace("{path: run.arena.json}", "run.arena.json"),
            "'recording' must be a mapping",
            "spec.recording",
            "write 'recording: {path: <file>}'",
        ),
        (
            MINIMAL.replace("{path: run.arena.json}", "{path: r.json, type: arena}"),
            "unknown recording type 'arena'",
            "spec.recording.type",
            "leave 'type' out",
        ),
        (
            MINIMAL.replace("{path: run.arena.json}", "{path: r.json, format: json}"),
            "unknown key 'format' in 'recording'",
            "spec.recording.format",
            "valid keys: path, type",
        ),
        (
            MINIMAL.replace("conversation_assertions:", "conversation_assertion:"),
            "unknown key 'conversation_assertion' in an Eval spec",
            "spec.conversation_assertion",
            "did you mean 'conversation_assertions'?",
        ),
        (
            MINIMAL + "turns:\n  - assertions: []\n",
            "unknown key 'assertions' in an Eval turn",
            "spec.turns[0].assertions",
            "valid keys: all_turns",
        ),
        (
            MINIMAL + "turns:\n  - {}\n",
            "missing 'all_turns'",
            "spec.turns[0]",
            "add 'all_turns: {assertions: [...]}'",
        ),
        (
            MINIMAL + "turns:\n  - all_turns: [x]\n",
            "'all_turns' must be a mapping",
            "spec.turns[0].all_turns",
            None,
        ),
        (
            MINIMAL
            + "turns:\n  - all_turns:\n      assertions:\n"
            + "        - {type: tools_called, params: {tool_names: [x], min_calls: 2}}\n",
            "['min_calls', 'tool_names'] are parameters of the conversation-level 'tools_called'",
            "spec.turns[0].all_turns.assertions[0].params",
            "move it under spec.conversation_assertions",
        ),
        (
            MINIMAL
            + "turns:\n  - all_turns:\n      assertions:\n        - {type: content_includes_any}\n",
            "'content_includes_any' is a conversation-level assertion type",
            "spec.turns[0].all_turns.assertions[0]",
            "move it under spec.conversation_assertions",
        ),
        (
            MINIMAL + "mode: fast\n",
            "unknown replay mode 'fast'",
            "spec.mode",
            None,
        ),
        (MINIMAL + "speed: 0\n", "'speed' must be a positive number", "spec.speed", None),
        (MINIMAL + "speed: true\n", "'speed' must be a positive number", "spec.speed", None),
        (
            "description: d\nrecording: {path: r.json}\n",
            "case 'replay' has no assertions, so it would pass vacuously",
            "spec",
            "add assertions, or remove the case",
        ),
        (MINIMAL + "tags: billing-and-more\nid: 7\n", None, None, None),
    ],
)
def test_eval_spec_problems_say_where_and_how_to_fix_them(
    spec: str, message: str | None, path: str | None, hint: str | None
) -> None:
    if message is None:  # a control: one string is a one-tag list, a number an id
        case = loads_suite(_eval(spec), filename="e.eval.yaml").cases[0]
        assert (case.tags, case.id) == (("billing-and-more",), "7")
        return
    with pytest.raises(SpecError) as caught:
        loads_suite(_eval(spec), filename="e.eval.yaml")
    [problem] = caught.value.problems
    assert problem.message == message
    assert problem.path == path
    assert problem.file == "e.eval.yaml"
    assert problem.line is not None
    if hint is None:
        assert problem.expected is not None
    else:
        assert problem.hint is not None
        assert problem.hint.startswith(hint)


@pytest.mark.parametrize(
    ("head", "message", "path"),
    [
        (HEAD.replace("v1alpha1", "v2"), "unsupported apiVersion", "apiVersion"),
        (
            HEAD.replace("  name: replay", "  name: replay\n  owner: me"),
            "unknown key 'owner' in the manifest's metadata",
            "metadata.owner",
        ),
        (
            HEAD.replace("  name: replay", "  labels: [a]"),
            "'labels' must map names to strings",
            "metadata.labels",
        ),
        (
            HEAD.replace("kind: Eval", "kind: Eval\nstatus: {}"),
            "unknown key 'status' in an Eval manifest",
            "status",
        ),
    ],
)
def test_eval_manifest_problems(head: str, message: str, path: str) -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(_eval(MINIMAL, head), filename="e.eval.yaml")
    assert [(p.message, p.path) for p in caught.value.problems] == [(message, path)]


def test_an_eval_needs_a_spec_mapping() -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(HEAD + "  42\n", filename="e.eval.yaml")
    assert [p.message for p in caught.value.problems] == ["an Eval needs a 'spec' mapping"]


def test_every_problem_of_an_eval_is_reported_together() -> None:
    spec = MINIMAL.replace("{path: run.arena.json}", "{type: tape}") + "mode: fast\nspeed: -1\n"
    with pytest.raises(SpecError) as caught:
        loads_suite(_eval(spec), filename="e.eval.yaml")
    assert [p.path for p in caught.value.problems] == [
        "spec.recording",
        "spec.recording.type",
        "spec.mode",
        "spec.speed",
    ]


def test_unknown_types_are_errors_or_skipped_as_in_every_file() -> None:
    item = "{type: audio_loudness, params: {formats: [png]}}"
    spec = MINIMAL + f"turns:\n  - all_turns:\n      assertions:\n        - {item}\n"
    with pytest.raises(
        SpecError, match="unknown promptkit turn-level assertion type 'audio_loudness'"
    ):
        loads_suite(_eval(spec))
    [case] = loads_suite(_eval(spec), unknown_types="skip").cases
    assert isinstance(case.checks[0], UnknownType)  # not wrapped: a selector would pass it
    result = case.check(Conversation(turns=[Turn(input="a", text="b")]))
    assert result.children[0].status is Status.SKIPPED
    assert result.children[0].reason == "unknown assertion type 'audio_loudness'"
