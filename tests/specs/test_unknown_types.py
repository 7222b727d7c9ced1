"""Unknown assertion types (SEMANTICS G13): an error by default, or loaded and reported skipped.

Real suites name types this library does not implement (yet, or ever). By default that is a
spec error with "did you mean"; `unknown_types="skip"` (command line: `--unknown-types skip`)
loads the rest and reports each unknown assertion as `skipped` with the reason
`unknown assertion type 'X'`, so a suite still runs and every report shows what was not checked.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from chatassert import Conversation, SpecError, Status, Turn
from chatassert._registry import UnknownType
from chatassert.specs import load_assertion, loads_suite
from cli_runs import run_in_process

FLAT = """\
test_cases:
  - name: weather
    turns:
      - user_input: Weather in Paris?
        assertions:
          - {type: contains, value: Paris}
          - {type: image_format, value: png}
"""

PROMPTKIT = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: weather}
spec:
  turns:
    - role: user
      content: Weather in Paris?
      assertions:
        - {type: content_includes, params: {patterns: [Paris]}}
        - {type: cosine_similarity, params: {min_score: 0.8}}
  conversation_assertions:
    - {type: tool_anti_pattern, params: {patterns: [retry_loop]}}
"""

EXPECT = json.dumps([{"id": "t1", "expect": {"status": "ok", "agent_mood": "calm"}}])

NATIVE = """\
chatassert: 1
cases:
  - name: weather
    turns:
      - input: Weather in Paris?
        assertions:
          - type: any_of
            assertions:
              - {type: contains, value: Paris}
              - {type: sounds_friendly}
"""

PARIS = Conversation(turns=[Turn(input="Weather in Paris?", text="Paris: 18C")])


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (FLAT, "unknown flat assertion type 'image_format'"),
        (PROMPTKIT, "unknown promptkit turn-level assertion type 'cosine_similarity'"),
        (EXPECT, "unknown expect key 'agent_mood'"),
        (NATIVE, "unknown native assertion type 'sounds_friendly'"),
    ],
    ids=["flat", "promptkit", "expect", "native"],
)
def test_an_unknown_type_is_a_spec_error_by_default(text: str, fragment: str) -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename="suite.yaml")
    assert fragment in str(caught.value)


def _skipped_leaves(result: object) -> list[tuple[str, str, dict[str, object]]]:
    return [
        (leaf.name, leaf.reason, dict(leaf.details))
        for _, leaf in result.walk()  # type: ignore[attr-defined]
        if not leaf.children and leaf.status is Status.SKIPPED
    ]


def test_flat_skips_the_unknown_assertion_and_checks_the_rest() -> None:
    suite = loads_suite(FLAT, filename="suite.yaml", unknown_types="skip")
    result = suite.cases[0].check(PARIS)
    assert result.status is Status.PASSED  # the known check passed; the unknown one is left out
    assert result.details == {"passed": 1, "failed": 0, "error": 0, "skipped": 1}
    assert _skipped_leaves(result) == [
        ("image_format", "unknown assertion type 'image_format'", {"unknown_type": "image_format"})
    ]


def test_promptkit_skips_unknown_types_at_both_levels() -> None:
    suite = loads_suite(PROMPTKIT, filename="s.yaml", unknown_types="skip")
    result = suite.cases[0].check(PARIS)
    names = [name for name, _, _ in _skipped_leaves(result)]
    assert names == ["cosine_similarity", "tool_anti_pattern"]
    assert result.status is Status.PASSED


def test_expect_skips_an_unknown_key_and_a_case_of_nothing_else_is_skipped() -> None:
    suite = loads_suite(EXPECT, filename="t.json", unknown_types="skip")
    assert suite.cases[0].check({"status": "ok"}).status is Status.PASSED
    only = loads_suite(
        json.dumps([{"id": "t2", "expect": {"agent_mood": "calm"}}]),
        filename="t.json",
        unknown_types="skip",
    )
    assert only.cases[0].check({"status": "ok"}).status is Status.SKIPPED  # G12


def test_inside_a_combinator_the_unknown_child_is_left_out() -> None:
    suite = loads_suite(NATIVE, filename="n.yaml", unknown_types="skip")
    result = suite.cases[0].check(PARIS)
    assert result.status is Status.PASSED
    assert [n for n, _, _ in _skipped_leaves(result)] == ["sounds_friendly"]


def test_load_assertion_takes_the_option_too() -> None:
    built = load_assertion({"type": "cosine_similarity", "min": 0.8}, unknown_types="skip")
    assert isinstance(built, UnknownType)
    assert built.check("text").status is Status.SKIPPED
    with pytest.raises(SpecError, match="unknown native assertion type 'cosine_similarity'"):
        load_assertion({"type": "cosine_similarity"})


def test_a_bad_choice_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown_types must be one of error, skip, got 'warn'"):
        loads_suite(FLAT, unknown_types="warn")


def test_an_unknown_type_survives_pickling_for_workers() -> None:
    again = pickle.loads(pickle.dumps(UnknownType("image_format")))
    assert again.type_name == "image_format"
    assert again.check("x").reason == "unknown assertion type 'image_format'"
    assert again.describe() == "unknown assertion type 'image_format' (not checked)"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_the_command_line_lints_and_checks_with_unknown_types_skipped(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(FLAT, encoding="utf-8")
    log = {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "Paris: 18C"},
        ]
    }
    (tmp_path / "log.jsonl").write_text(json.dumps(log) + "\n", encoding="utf-8")
    refused = _cli("lint", "suite.yaml", cwd=tmp_path)
    assert refused.returncode == 2
    assert "unknown flat assertion type 'image_format'" in refused.stderr

    notice = "suite.yaml: not checked, reported skipped: unknown assertion types image_format\n"
    linted = run_in_process("lint", "--unknown-types", "skip", "suite.yaml", cwd=tmp_path)
    assert linted.returncode == 0, linted.stderr
    assert linted.stderr == notice

    checked = _cli(
        "check",
        "--unknown-types",
        "skip",
        "--format",
        "json",
        "suite.yaml",
        "log.jsonl",
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stderr
    assert notice in checked.stderr
    record, summary = [json.loads(line) for line in checked.stdout.splitlines()]
    assert summary["summary"]["passed"] == 1
    turn = record["result"]["children"][0]
    assert [(c["name"], c["status"]) for c in turn["children"]] == [
        ("contains", "passed"),
        ("image_format", "skipped"),
    ]


@pytest.mark.parametrize(
    ("dialect", "text", "expected"),
    [
        ("flat", "- {value: Paris}\n", "one of the flat types"),
        ("promptkit", "- {params: {patterns: [Paris]}}\n", "a promptkit assertion type"),
        ("native", "chatassert: 1\nassertions:\n  - {value: Paris}\n", "one of the native types"),
    ],
)
def test_an_assertion_without_a_type_is_one_problem_in_every_dialect(
    dialect: str, text: str, expected: str
) -> None:
    # The builder and the PromptKit item loader read the type through one function.
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename="suite.yaml", dialect=dialect)
    [problem] = caught.value.problems
    assert problem.message == "the assertion has no 'type'"
    assert problem.expected == expected
    assert problem.hint == "add 'type: <name>'"
    assert problem.line == text.count("\n")


def test_promptkit_names_the_closest_types_of_its_level() -> None:
    text = PROMPTKIT.replace("cosine_similarity", "content_include")
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename="suite.yaml")
    [problem] = [p for p in caught.value.problems if "content_include'" in p.message]
    assert problem.message == "unknown promptkit turn-level assertion type 'content_include'"
    assert problem.hint is not None
    assert problem.hint.startswith("did you mean 'content_includes'")
