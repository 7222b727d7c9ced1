"""A spec file that no vocabulary reads says what it was meant to be (`specs._guess`).

A log given where a suite goes is named a log, with which argument comes first; a key that
tells the vocabulary meant leads that vocabulary's problems; a file that fits none lists what
each vocabulary needs. Every test loads a real file through the real loader, or runs the
command line in process.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from chatassert._cli import main
from chatassert.errors import SpecError
from chatassert.specs import load_suite, loads_suite

CHAT = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}
FLAT = "turns:\n  - user_input: Hi\n    assertions:\n      - {type: contains, value: Hello}\n"
LOG_HINT = "the suite comes first: chatassert check SUITE LOG"


def problems(tmp_path: Path, text: str, name: str = "suite.yaml", **given: str) -> list[str]:
    """The problems `load_suite` reports for a file `name` holding `text`."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_suite(path, **given)
    return [str(problem).removeprefix(f"{tmp_path}/") for problem in caught.value.problems]


# -- a log given where a suite goes -------------------------------------------------------------


def test_json_lines_of_conversations_given_as_a_suite_is_named_a_log(tmp_path: Path) -> None:
    text = json.dumps(CHAT) + "\n" + json.dumps(CHAT) + "\n"
    assert problems(tmp_path, text, "logs.jsonl") == [
        f"logs.jsonl: this looks like a log (JSON Lines of conversations), not a suite ({LOG_HINT})"
    ]


def test_json_lines_of_responses_given_as_a_suite_is_named_a_log(tmp_path: Path) -> None:
    text = '{"status": "ok"}\n{"status": "error"}\n'
    assert problems(tmp_path, text, "responses.jsonl") == [
        f"responses.jsonl: this looks like a log (JSON Lines), not a suite ({LOG_HINT})"
    ]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (json.dumps(CHAT) + "\n", "one.jsonl"),  # one line: JSON, read as a document
        (json.dumps(CHAT, indent=2), "pretty.json"),
        (json.dumps(CHAT["messages"]), "bare.json"),  # a bare array of messages
        (json.dumps({"turns": [{"input": "Hi", "text": "Hello"}]}), "native.jsonl"),
    ],
)
def test_a_conversation_given_as_a_suite_is_named_a_log(
    tmp_path: Path, text: str, name: str
) -> None:
    assert problems(tmp_path, text, name) == [
        f"{name}: this looks like a log (a conversation), not a suite ({LOG_HINT})"
    ]


def test_a_log_is_named_also_when_the_dialect_is_forced(tmp_path: Path) -> None:
    found = problems(tmp_path, json.dumps(CHAT), "log.json", dialect="expect")
    assert found == [f"log.json: this looks like a log (a conversation), not a suite ({LOG_HINT})"]


def test_a_broken_yaml_suite_is_not_taken_for_json_lines(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, '{"turns": [\n{"user_input": "x"\n')
    assert "invalid YAML" in found
    assert "log" not in found


@pytest.mark.parametrize("command", ["check", "lint"])
def test_the_command_line_names_a_log_given_as_the_suite(tmp_path: Path, command: str) -> None:
    log = tmp_path / "logs.jsonl"
    log.write_text(json.dumps(CHAT) + "\n" + json.dumps(CHAT) + "\n", encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(FLAT, encoding="utf-8")
    argv = [command, str(log), str(suite)] if command == "check" else [command, str(log)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 2
    assert f"{log}: this looks like a log (JSON Lines of conversations), not a suite" in (
        err.getvalue()
    )
    assert LOG_HINT in err.getvalue()
    assert "document start" not in err.getvalue()


# -- a key that tells the vocabulary meant -------------------------------------------------------

NATIVE_WITHOUT_VERSION = """\
name: booking
cases:
  - name: books
    turns:
      - input: hi
        assertions:
          - type: contains
            value: hello
"""


def test_a_native_suite_without_its_version_is_told_to_add_it(tmp_path: Path) -> None:
    assert problems(tmp_path, NATIVE_WITHOUT_VERSION) == [
        "suite.yaml:1: this looks like a native chatassert suite (it has 'cases'), but it does "
        "not say 'chatassert: 1', so it was read as a flat test file (add 'chatassert: 1' at "
        "the top)"
    ]
    text = "chatassert: 1\n" + NATIVE_WITHOUT_VERSION
    assert loads_suite(text).dialect == "native"  # the fix it says is the whole fix


def test_a_native_suite_without_its_version_gets_its_native_problems_too(tmp_path: Path) -> None:
    text = NATIVE_WITHOUT_VERSION.replace("type: contains", "type: contians")
    found = problems(tmp_path, text)
    assert found[0].startswith("suite.yaml:1: this looks like a native chatassert suite")
    assert len(found) == 2
    assert "unknown native assertion type 'contians'" in found[1]
    assert "flat" not in found[1]


def test_a_promptkit_file_with_a_wrong_kind_leads_with_promptkit_and_its_problems(
    tmp_path: Path,
) -> None:
    text = "apiVersion: v1\nkind: Senario\nspec:\n  turns:\n    - role: user\n      content: hi\n"
    found = problems(tmp_path, text)
    assert found[0].startswith(
        "suite.yaml:1: this looks like a PromptKit scenario (it has 'apiVersion', 'kind'), but "
        "it is not recognised as one (promptkit needs 'kind: Scenario' or an 'apiVersion' "
        "starting 'promptkit.'), so it was read as a flat test file; read as promptkit, it "
        "has the problems below"
    )
    assert any("kind: this loader reads Scenario manifests" in p for p in found[1:])
    assert not any("flat test file" in p for p in found[1:])


def test_expect_tests_without_expect_lead_with_expect_and_its_problems(tmp_path: Path) -> None:
    found = problems(tmp_path, "name: s\ntests:\n  - id: t1\n    input: hi\n")
    assert found[0].startswith("suite.yaml:1: this looks like an expect suite (it has 'tests')")
    assert found[1:] == [
        "suite.yaml:3: tests[0]: test case 't1' has no 'expect' (add 'expect: {...}' with the "
        "checks on the response (or 'multi_step: [...]' for a test of several steps))"
    ]


def test_a_file_of_no_vocabulary_lists_what_each_needs_before_the_flat_problems(
    tmp_path: Path,
) -> None:
    found = problems(tmp_path, "foo: 1\nbar: 2\n")
    assert found[0] == (
        "suite.yaml:1: no vocabulary recognises this file, so it was read as a flat test file "
        "(the fallback): native needs 'chatassert: 1'; promptkit needs 'kind: Scenario' or an "
        "'apiVersion' starting 'promptkit.'; expect needs 'test_suites', 'tests' of tests with "
        "'expect', or expect keys ('status', ...); flat needs 'turns', 'test_cases', or a list "
        "of {type, value} assertions (start from an example, in docs/specs.md, of the "
        "vocabulary you meant)"
    )
    assert [p.split(": ", 2)[1] for p in found[1:]] == [
        "foo",
        "bar",
        "missing 'turns'; expected a list (add 'turns:' with a list)",
    ]


def test_a_recognised_or_forced_file_keeps_its_own_problems(tmp_path: Path) -> None:
    flat = problems(tmp_path, FLAT.replace("contains", "contians"))
    assert len(flat) == 1
    assert "unknown flat assertion type 'contians'" in flat[0]
    forced = problems(tmp_path, NATIVE_WITHOUT_VERSION, dialect="flat")
    assert not any("looks like" in p or "no vocabulary" in p for p in forced)
