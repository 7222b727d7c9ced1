"""Hostile and malformed spec text: every refusal is a `SpecError` with a line, never a crash.

A spec is untrusted input (CI runs whatever a pull request brings). These pin the loader's
limits, documented in `chatassert.specs._yaml` and docs/specs.md ("Limits").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chatassert import Conversation, SpecError, Status
from chatassert.specs import load_suite, loads_suite
from chatassert.specs._yaml import MAX_ALIAS_NODES, MAX_DEPTH, MAX_SPEC_CHARS, parse_yaml
from cli_runs import run_in_process

ASSERT_VALUE = (
    'turns:\n  - user_input: "hi"\n    assertions:\n      - type: contains\n        value: {}\n'
)


def refused(text: str, filename: str = "t.yaml") -> SpecError:
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename=filename)
    return caught.value


def only_problem(error: SpecError) -> tuple[str, int | None]:
    assert len(error.problems) == 1, str(error)
    problem = error.problems[0]
    assert problem.file == "t.yaml"
    assert problem.hint, "every refusal says how to fix it"
    return problem.message, problem.line


@pytest.mark.parametrize(
    ("value", "code", "column"),
    [
        ('"a\x01b"', "U+0001", 18),
        ('"a\x7fb"', "U+007F", 18),
        ("a\x9fb", "U+009F", 17),
    ],
)
def test_a_control_character_is_named_with_its_line_and_column(
    value: str, code: str, column: int
) -> None:
    message, line = only_problem(refused(ASSERT_VALUE.format(value)))
    assert line == 5
    assert f"control character {code} at column {column}" in message


def test_every_control_character_is_listed_not_only_the_first() -> None:
    text = (
        'turns:\n  - user_input: "h\x02i"\n    assertions:\n'
        '      - {type: contains, value: "\x03"}\n'
    )
    error = refused(text)
    assert [(p.line, p.message.split(" at ")[0]) for p in error.problems] == [
        (2, "a control character U+0002"),
        (4, "a control character U+0003"),
    ]


def test_a_flood_of_control_characters_is_counted_after_the_first_twenty() -> None:
    error = refused("turns: []\n" + "\x01" * 50 + "\n")
    assert len(error.problems) == 21
    assert error.problems[-1].message == "and 30 more characters that are not allowed"


def test_a_control_character_in_a_json_spec_is_refused_too() -> None:
    text = '{"turns":[{"user_input":"hi\x07","assertions":[{"type":"contains","value":"x"}]}]}'
    message, line = only_problem(refused(text))
    assert line == 1
    assert "U+0007" in message


def test_a_json_surrogate_pair_is_the_character_it_stands_for() -> None:
    text = json.dumps(
        {"turns": [{"user_input": "hi", "assertions": [{"type": "contains", "value": "😀"}]}]}
    )
    assert "\\ud83d\\ude00" in text  # as json.dumps writes it
    suite = loads_suite(text, filename="t.json")
    happy = Conversation.from_messages(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done 😀"}]
    )
    plain = Conversation.from_messages(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done"}]
    )
    (case,) = suite.cases
    assert case.check(happy).status is Status.PASSED
    assert case.check(plain).status is Status.FAILED


@pytest.mark.parametrize("escape", ['"\\ud800"', '"\\udfff x"', '"\\ude00\\ud83d"'])
def test_a_lone_surrogate_is_refused(escape: str) -> None:
    message, line = only_problem(refused(ASSERT_VALUE.format(escape)))
    assert line == 5
    assert "lone surrogate" in message


@pytest.mark.parametrize(
    ("scalar", "tag"),
    [
        ("!!int 0x_", "!!int"),
        ("!!float x", "!!float"),
        ("!!timestamp 2020-13-45", "!!timestamp"),
        ("!!timestamp 2020-", "!!timestamp"),
        ("!!bool maybe", "!!bool"),
    ],
)
def test_a_tagged_scalar_its_tag_cannot_read_is_refused(scalar: str, tag: str) -> None:
    message, line = only_problem(refused(ASSERT_VALUE.format(scalar)))
    assert line == 5
    assert message.startswith(f"{tag} cannot read ")


def test_a_python_tag_stays_refused() -> None:
    message, line = only_problem(refused(ASSERT_VALUE.format("!!python/object:os.system x")))
    assert line == 5
    assert "could not determine a constructor" in message


@pytest.mark.parametrize(
    "template",
    [
        ASSERT_VALUE,
        'turns:\n  - user_input: "hi"\n    assertions:\n      - type: min_length\n        '
        "value: {}\n",
    ],
)
@pytest.mark.parametrize("number", ["1" * 5000, "0x" + "f" * 5000, "-" + "9" * 4300])
def test_a_huge_integer_is_refused(template: str, number: str) -> None:
    message, line = only_problem(refused(template.format(number)))
    assert line == 5
    assert "is too large" in message


def test_a_huge_integer_as_the_assertion_type_is_refused_at_its_line() -> None:
    text = 'turns:\n  - user_input: "hi"\n    assertions:\n      - type: 0x' + "f" * 5000 + "\n"
    message, line = only_problem(refused(text))
    assert line == 4
    assert "is too large" in message


def test_a_large_but_sane_integer_still_loads() -> None:
    assert parse_yaml("n: " + "1" * 4000) == {"n": int("1" * 4000)}


@pytest.mark.parametrize("escape", ['"\\U00110000"', '"\\UFFFFFFFF"'])
def test_an_escape_past_the_last_code_point_is_refused(escape: str) -> None:
    message, line = only_problem(refused(ASSERT_VALUE.format(escape)))
    assert line == 5
    assert "past U+10FFFF" in message


@pytest.mark.parametrize(
    "text",
    [
        ASSERT_VALUE.format("[" * 300 + "]" * 300),
        "x: " + "{a: " * 300 + "1" + "}" * 300 + "\n",
        "chatassert: 1\nassertions:\n  - "
        + "{type: not, assertion: " * 300
        + "{type: contains, value: x}"
        + "}" * 300
        + "\n",
    ],
    ids=["flow-sequences", "flow-mappings", "native-not"],
)
def test_nesting_past_the_limit_is_refused(text: str) -> None:
    message, _ = only_problem(refused(text))
    assert f"nests deeper than {MAX_DEPTH} levels" in message


def test_nesting_up_to_the_limit_loads() -> None:
    lists = MAX_DEPTH - 2  # and the document's mapping, and the scalar inside
    deepest = "[" * lists + "x" + "]" * lists
    value = parse_yaml(f"v: {deepest}")["v"]
    for _ in range(lists):
        (value,) = value
    assert value == "x"
    with pytest.raises(SpecError, match="nests deeper"):
        parse_yaml(f"v: [{deepest}]")


def bomb(levels: int, width: int = 9) -> str:
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    lines.append(
        "turns:\n  - user_input: hi\n    assertions:\n"
        f"      - type: contains_any\n        value: *a{levels}"
    )
    return "\n".join(lines) + "\n"


def test_anchors_used_as_people_use_them_load() -> None:
    assert MAX_ALIAS_NODES > 2 * 9**4
    doc = parse_yaml(bomb(4))
    assert len(doc["a4"]) == 9
    assert doc["turns"][0]["assertions"][0]["value"] == doc["a4"]


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    # Run in a child process: were the limit gone, 9 aliases over 9 levels (387 million
    # nodes) would exhaust this process's memory instead of failing the test.
    script = textwrap.dedent(
        """
        import sys
        from chatassert import SpecError
        from chatassert.specs import loads_suite
        try:
            loads_suite(sys.stdin.read(), filename="b.yaml")
        except SpecError as exc:
            print(exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=bomb(9),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    assert f"aliases expand the document by more than {MAX_ALIAS_NODES:,} nodes" in done.stdout
    assert "b.yaml:" in done.stdout


def test_a_document_past_the_size_limit_is_refused() -> None:
    error = refused("# " + "x" * MAX_SPEC_CHARS + "\nturns: []\n")
    message, _ = only_problem(error)
    assert "characters long" in message


def test_a_spec_file_past_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as file:
        file.truncate(MAX_SPEC_CHARS + 1)  # sparse: cheap to make
    with pytest.raises(OSError, match="larger than 10 MiB"):
        load_suite(path)


def test_a_spec_file_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"turns: []\n# caf\xe9\n")
    with pytest.raises(SpecError, match=r"not UTF-8 \(byte 0xe9 at position 15\)"):
        load_suite(path)


# --- PromptKit `workflow:` paths ------------------------------------------------------------

SCENARIO = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {{name: s}}
spec:
  task_type: support
  workflow: {}
  steps:
    - type: input
      content: "hello"
      assertions:
        - {{type: state_is, params: {{state: a}}}}
"""

WORKFLOW = "entry: a\nstates: {a: {on_event: {Go: b}}, b: {}}\n"


def scenario(tmp_path: Path, workflow: str) -> Path:
    path = tmp_path / "specs" / "s.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(SCENARIO.format(workflow))
    return path


def test_a_workflow_path_is_relative_to_the_scenario_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = scenario(tmp_path, "flows/support.yaml")
    (spec.parent / "flows").mkdir()
    (spec.parent / "flows" / "support.yaml").write_text(WORKFLOW)
    monkeypatch.chdir(tmp_path)  # not the scenario's directory
    assert load_suite(spec).cases


def workflow_problem(path: Path) -> str:
    with pytest.raises(SpecError) as caught:
        load_suite(path)
    problems = caught.value.problems
    assert len(problems) == 1, str(caught.value)
    assert problems[0].file == str(path)
    assert problems[0].line == 6
    return problems[0].message


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_as_workflow_is_refused_without_reading_it(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this system")
    message = workflow_problem(scenario(tmp_path, device))
    assert message == f"cannot read the workflow file '{device}': not a regular file"


def test_a_pipe_as_workflow_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    message = workflow_problem(scenario(tmp_path, str(tmp_path / "pipe")))
    assert message.endswith("not a regular file")


def test_a_directory_as_workflow_is_refused(tmp_path: Path) -> None:
    message = workflow_problem(scenario(tmp_path, str(tmp_path)))
    assert message.startswith(f"cannot read the workflow file '{tmp_path}'")


def test_a_missing_workflow_file_is_refused(tmp_path: Path) -> None:
    message = workflow_problem(scenario(tmp_path, "missing.yaml"))
    assert "cannot read the workflow file" in message
    assert "No such file" in message


def test_a_huge_workflow_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as file:
        file.truncate(MAX_SPEC_CHARS + 1)
    message = workflow_problem(scenario(tmp_path, str(big)))
    assert message.endswith("larger than 10 MiB")


def test_a_workflow_file_with_bad_yaml_reports_its_own_line(tmp_path: Path) -> None:
    spec = scenario(tmp_path, "bad.yaml")
    (spec.parent / "bad.yaml").write_text("entry: a\nstates: [\n")
    with pytest.raises(SpecError) as caught:
        load_suite(spec)
    (problem,) = caught.value.problems
    assert str(problem.file).endswith("bad.yaml")
    assert problem.line == 3


@pytest.mark.parametrize("value", ["42", "''", "[a, b]"])
def test_a_workflow_that_is_neither_a_path_nor_a_mapping_is_refused(
    tmp_path: Path, value: str
) -> None:
    message = workflow_problem(scenario(tmp_path, value))
    assert "workflow" in message


# --- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "subprocess_run"),
    [  # the deep spec and the bomb in a process of their own (its stack, its memory); the
        # others in this process (tests/cli_runs.py)
        (ASSERT_VALUE.format('"a\x01b"'), False),
        (ASSERT_VALUE.format("!!int 0x_"), False),
        (ASSERT_VALUE.format("[" * 300 + "]" * 300), True),
        (bomb(9), True),
    ],
    ids=["control", "tagged", "deep", "bomb"],
)
def test_lint_reports_a_hostile_spec_as_a_spec_error(
    tmp_path: Path, text: str, subprocess_run: bool
) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    if not subprocess_run:
        done = run_in_process("lint", str(path), cwd=tmp_path)
    else:
        done = subprocess.run(
            [sys.executable, "-m", "chatassert", "lint", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "hostile.yaml:" in done.stdout + done.stderr
