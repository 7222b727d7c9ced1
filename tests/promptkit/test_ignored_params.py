"""Parameters PromptKit ignores: real PromptKit files load as PromptKit runs them.

PromptKit does not validate an assertion's `params`: each check reads the keys it knows and
ignores the rest, so real files carry keys that never did anything (`case_insensitive` on
`content_includes`, `expected` on `llm_judge_conversation`). With `unknown_params="ignore"`
(the default) such a file loads, the keys are kept under `not_used_offline`, noted in the
details of every result of their check and warned about by `lint`; `unknown_params="error"`
refuses the file with every such key at its line. A parameter PromptKit does read but these
checks do not implement is always refused, and a misspelt parameter of a native (or flat)
check stays an error.
"""

from __future__ import annotations

import json
import pickle
import re
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import assume, given, settings, strategies as st
from promptkit_helpers import HEADER, chat, scenario, turn

from chatassert import SpecError, Status
from chatassert._registry import registered
from chatassert._schemas import dialect_schema
from chatassert.specs import load_assertion, load_suite, loads_suite
from chatassert.specs._common import IGNORED_PARAMS, NOT_USED_OFFLINE
from chatassert.specs._promptkit import PROMPTKIT_READS
from chatassert.specs._yaml import parse_yaml
from chatassert.testing import FakeJudge

ROOT = Path(__file__).resolve().parents[2]
REAL = Path(__file__).resolve().parent / "data" / "real"
INVOICE = REAL / "ignored-params.scenario.yaml"


def line_of(path: Path, text: str) -> int:
    """The 1-based line of `path` on which `text` first appears."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} is not in {path}")


def invoice_chat(reply: str = "Your invoice for March is attached.") -> Any:
    return chat(
        turn("Where is my invoice for March?", reply),
        turn("Can you send it again?", "Sent.", [("resend_invoice", {"month": 3}, "ok")]),
    )


# -- loading -----------------------------------------------------------------------------------


def test_a_real_scenario_with_parameters_promptkit_ignores_loads() -> None:
    suite = load_suite(INVOICE, judge=FakeJudge({"passed": True, "score": 0.9}))
    (case,) = suite.cases
    assert suite.dialect == "promptkit"
    assert [a.kind for t in case.turns for a in t.assertions] == [
        "content_includes",
        "content_includes",
        "tools_called",
    ]
    assert [a.kind for a in case.checks] == [
        "llm_judge_conversation",
        "conversation_content_not_includes",
    ]
    first = "spec.turns[0].assertions[0].params"
    second = "spec.turns[0].assertions[1].params"
    judged = "spec.conversation_assertions[0].params"
    assert case.metadata[NOT_USED_OFFLINE] == {
        "spec.providers": ["openai-gpt-4o"],
        f"{first}.case_insensitive": True,
        f"{second}.case_sensitive": True,
        f"{second}.match_mode": "exact",
        f"{judged}.expected": "pass",
    }
    assert case.metadata[IGNORED_PARAMS] == [
        {
            "param": "case_insensitive",
            "type": "content_includes",
            "path": f"{first}.case_insensitive",
            "line": line_of(INVOICE, "case_insensitive: true"),
        },
        {
            "param": "case_sensitive",
            "type": "content_includes",
            "path": f"{second}.case_sensitive",
            "line": line_of(INVOICE, "case_sensitive: true"),
        },
        {
            "param": "match_mode",
            "type": "content_includes",
            "path": f"{second}.match_mode",
            "line": line_of(INVOICE, "match_mode: exact"),
        },
        {
            "param": "expected",
            "type": "llm_judge_conversation",
            "path": f"{judged}.expected",
            "line": line_of(INVOICE, "expected: pass"),
        },
    ]


def test_the_parameters_have_no_effect_and_every_result_of_the_check_names_them() -> None:
    suite = load_suite(INVOICE, judge=FakeJudge({"passed": True, "score": 0.9}))
    (case,) = suite.cases
    # `case_sensitive: true` did nothing in PromptKit: 'March' is still found in 'MARCH'
    result = case.check(invoice_chat("Your INVOICE for MARCH is attached."))
    assert result.status is Status.PASSED, result.render()
    leaves = {r.spec_path: r for r in result.leaves()}
    assert leaves["spec.turns[0].assertions[0]"].details[IGNORED_PARAMS] == {
        "case_insensitive": True
    }
    assert leaves["spec.turns[0].assertions[1]"].details[IGNORED_PARAMS] == {
        "case_sensitive": True,
        "match_mode": "exact",
    }
    assert leaves["spec.conversation_assertions[0]"].details[IGNORED_PARAMS] == {"expected": "pass"}
    for clean in ("spec.turns[1].assertions[0]", "spec.conversation_assertions[1]"):
        assert IGNORED_PARAMS not in leaves[clean].details
    failed = case.check(invoice_chat("Your bill is attached."))
    (first, *_) = [r for r in failed.leaves() if r.status is Status.FAILED]
    assert first.details == {
        "patterns": ["invoice"],
        "missing_patterns": ["invoice"],
        IGNORED_PARAMS: {"case_insensitive": True},
    }


def test_a_json_scenario_gives_the_line_of_each_parameter_too(tmp_path: Path) -> None:
    doc = {
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "j"},
        "spec": {
            "turns": [
                {
                    "role": "user",
                    "content": "hi",
                    "assertions": [
                        {
                            "type": "content_includes",
                            "params": {"patterns": ["hello"], "case_insensitive": True},
                        }
                    ],
                }
            ]
        },
    }
    path = tmp_path / "s.scenario.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    (entry,) = load_suite(path).cases[0].metadata[IGNORED_PARAMS]
    assert entry["line"] == line_of(path, '"case_insensitive"')


def test_a_parameter_close_to_one_the_check_takes_loads_with_a_hint() -> None:
    text = scenario(
        """\
        assertions:
          - type: llm_judge
            params: {criteria: polite, min_scor: 0.8}
        """,
        section="assertions",
    )
    (case,) = loads_suite(text, filename="s.yaml").cases
    (entry,) = case.metadata[IGNORED_PARAMS]
    assert entry["param"] == "min_scor"
    assert entry["hint"] == "did you mean 'min_score'?"


def test_eval_files_bare_lists_and_single_assertions_keep_them_too() -> None:
    eval_text = textwrap.dedent(
        """\
        apiVersion: promptkit.altairalabs.ai/v1alpha1
        kind: Eval
        metadata: {name: replay}
        spec:
          recording: {path: run.arena.json}
          turns:
            - all_turns:
                assertions:
                  - type: content_includes
                    params: {patterns: [hi], case_insensitive: true}
          conversation_assertions:
            - type: llm_judge_conversation
              params: {criteria: polite, expected: true}
        """
    )
    (case,) = loads_suite(eval_text, filename="r.eval.yaml").cases
    assert [e["path"] for e in case.metadata[IGNORED_PARAMS]] == [
        "spec.turns[0].all_turns.assertions[0].params.case_insensitive",
        "spec.conversation_assertions[0].params.expected",
    ]
    assert case.metadata[NOT_USED_OFFLINE] == {
        "spec.turns[0].all_turns.assertions[0].params.case_insensitive": True,
        "spec.conversation_assertions[0].params.expected": True,
    }
    bare = "- {type: content_includes, params: {patterns: [hi], match_mode: exact}}\n"
    (case,) = loads_suite(bare, filename="list.yaml").cases
    assert case.metadata[NOT_USED_OFFLINE] == {"[0].params.match_mode": "exact"}
    one = load_assertion(
        {"type": "content_includes", "params": {"patterns": ["hi"], "case_insensitive": True}},
        dialect="promptkit.turn",
    )
    assert one.check("hi there").details[IGNORED_PARAMS] == {"case_insensitive": True}


def test_a_noted_check_keeps_its_note_across_processes() -> None:
    one = load_assertion(
        {"type": "content_includes", "params": {"patterns": ["hi"], "case_insensitive": True}},
        dialect="promptkit.turn",
    )
    again = pickle.loads(pickle.dumps(one))
    assert again.check("no").details[IGNORED_PARAMS] == {"case_insensitive": True}
    assert again == one


# -- refusing ----------------------------------------------------------------------------------


def test_unknown_params_error_refuses_with_every_parameter_at_its_line_and_a_fix() -> None:
    with pytest.raises(SpecError) as info:
        load_suite(INVOICE, unknown_params="error")
    problems = info.value.problems
    assert [(p.line, p.path) for p in problems] == [
        (
            line_of(INVOICE, "case_insensitive: true"),
            "spec.turns[0].assertions[0].params.case_insensitive",
        ),
        (
            line_of(INVOICE, "case_sensitive: true"),
            "spec.turns[0].assertions[1].params.case_sensitive",
        ),
        (line_of(INVOICE, "match_mode: exact"), "spec.turns[0].assertions[1].params.match_mode"),
        (line_of(INVOICE, "expected: pass"), "spec.conversation_assertions[0].params.expected"),
    ]
    assert all(p.file == str(INVOICE) for p in problems)
    assert str(problems[0]) == (
        f"{INVOICE}:{problems[0].line}: spec.turns[0].assertions[0].params.case_insensitive: "
        "unknown parameter 'case_insensitive' for promptkit type 'content_includes': PromptKit "
        "ignores it, so it has no effect (valid parameters: patterns; remove it, or load the "
        "file with --unknown-params ignore to keep it as PromptKit does)"
    )
    assert str(info.value).startswith("4 problems in spec:")


def test_the_other_problems_of_the_assertion_are_reported_with_them() -> None:
    text = scenario(
        """\
        assertions:
          - type: content_includes
            params: {case_insensitive: true}
        """,
        section="assertions",
    )
    with pytest.raises(SpecError) as info:
        loads_suite(text, filename="s.yaml", unknown_params="error")
    assert [p.message for p in info.value.problems] == [
        "unknown parameter 'case_insensitive' for promptkit type 'content_includes': PromptKit "
        "ignores it, so it has no effect",
        "promptkit type 'content_includes' needs the parameter 'patterns'",
    ]
    with pytest.raises(SpecError) as info:  # ignoring it leaves the check without patterns
        loads_suite(text, filename="s.yaml")
    assert [p.message for p in info.value.problems] == [
        "promptkit type 'content_includes' needs the parameter 'patterns'"
    ]


@pytest.mark.parametrize(
    ("item", "message", "hint"),
    [
        (
            "{type: tools_called, params: {tools: [a], max_calls: 1}}",
            "PromptKit reads 'max_calls' of 'tools_called' (how many times each tool may be "
            "called), which this library does not implement: the check would not be the one "
            "PromptKit runs",
            "remove it, and count the calls with the native check tool_call_count (tool, max)",
        ),
        (
            "{type: content_matches, params: {pattern: sorry, expect_match: false}}",
            "PromptKit reads 'expect_match' of 'content_matches' (false: the pattern must not "
            "match), which this library does not implement: the check would not be the one "
            "PromptKit runs",
            "write the check as type 'regex', which takes expect_match",
        ),
        (
            "{type: llm_judge, params: {criteria: polite, system_prompt: Be strict}}",
            "PromptKit reads 'system_prompt' of 'llm_judge' (the judge's system prompt), which "
            "this library does not implement: the check would not be the one PromptKit runs",
            "remove it, and name a configured prompt template with 'prompt' (docs/judges.md)",
        ),
    ],
)
def test_a_parameter_promptkit_reads_but_these_checks_do_not_is_always_refused(
    item: str, message: str, hint: str
) -> None:
    text = scenario(f"assertions:\n  - {item}\n", section="assertions")
    for mode in ("ignore", "error"):
        with pytest.raises(SpecError) as info:
            loads_suite(text, filename="s.yaml", unknown_params=mode)
        (problem,) = info.value.problems
        line = text.splitlines().index(f"        - {item}") + 1
        assert (problem.line, problem.message, problem.hint) == (line, message, hint)


def test_a_misspelt_parameter_of_a_native_or_flat_check_stays_an_error() -> None:
    native = "chatassert: 1\nassertions:\n  - {type: contains, value: x, case_insensitive: true}\n"
    flat = "turns:\n  - user_input: hi\n    assertions:\n      - {type: contains, value: x, y: 1}\n"
    for text, key in ((native, "case_insensitive"), (flat, "y")):
        for mode in ("ignore", "error"):
            with pytest.raises(SpecError) as info:
                loads_suite(text, filename="s.yaml", unknown_params=mode)
            (problem,) = info.value.problems
            assert problem.message.startswith(f"unknown parameter {key!r}"), problem
            assert problem.line == len(text.splitlines())


def test_a_mode_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown_params must be one of ignore, error, got 'warn'"):
        loads_suite(HEADER + "  turns: []\n", unknown_params="warn")


def test_the_schema_flags_them_as_unknown_params_error_does() -> None:
    doc = parse_yaml(INVOICE.read_text(encoding="utf-8"), str(INVOICE))
    validator = jsonschema.Draft7Validator(dialect_schema("promptkit"))
    assert list(validator.iter_errors(json.loads(json.dumps(doc)))) != []


def test_the_docs_table_lists_every_parameter_promptkit_reads_that_is_refused() -> None:
    expected = set()
    for kind, params in PROMPTKIT_READS.items():
        cls = registered()[kind]
        for dialect, names in cls.dialect_names.items():
            if dialect.startswith("promptkit."):
                name = names if isinstance(names, str) else names[0]
                level = dialect.split(".", 1)[1]
                expected |= {(name, level, param) for param in params}
    page = (ROOT / "docs" / "promptkit.md").read_text(encoding="utf-8")
    section = page.split("## Parameters PromptKit ignores", 1)[1].split("\n## ", 1)[0]
    shown = set()
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            name, level = cells[0].strip("`"), cells[1]
            listed = re.sub(r"\([^)]*\)", "", cells[2])  # not the notes in brackets
            shown |= {(name, level, param) for param in re.findall(r"`(\w+)`", listed)}
    assert shown == expected


# -- every type, any key -------------------------------------------------------------------

SPECIAL_PARAMS: dict[str, dict[str, Any]] = {
    "llm_judge": {"criteria": "polite"},
    "llm_judge_conversation": {"criteria": "polite"},
    "llm_judge_session": {"criteria": "polite"},
    "json_path": {"expression": "a", "expected": 1},
    "json_schema": {"schema": {"type": "object"}},
    "tool_calls_with_args": {"tool_name": "x", "args_match": {"a": "b"}},
    "image_dimensions": {"min_width": 1},
    "video_resolution": {"min_width": 1},
    "audio_duration": {"min_seconds": 1},
    "video_duration": {"min_seconds": 1},
}
"""`params` for the types whose required parameters alone do not make a check."""


def _good_params() -> dict[tuple[str, str], dict[str, Any]]:
    """A working `params` of each PromptKit type at each level."""
    from chatassert._registry import dialect_types

    samples = {"str": "x", "text": "x", "str_list": ["x"], "mapping": {"a": 1}, "int": 1}
    found = {}
    for level in ("turn", "conversation"):
        for name, cls in sorted(dialect_types(f"promptkit.{level}").items()):
            required = {p.name: samples.get(p.value_type, "x") for p in cls.params if p.required}
            found[(level, name)] = SPECIAL_PARAMS.get(name, required)
    return found


GOOD_PARAMS = _good_params()


def _builds(level: str, name: str, params: dict[str, Any], **options: Any) -> Any:
    return load_assertion(
        {"type": name, "params": params},
        dialect=f"promptkit.{level}",
        judge=FakeJudge({"passed": True}),
        **options,
    )


KEYS = st.from_regex(r"[a-z][a-z_]{0,14}", fullmatch=True)
VALUES = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.lists(st.integers())


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(GOOD_PARAMS)), KEYS, VALUES)
def test_any_key_a_promptkit_type_neither_takes_nor_reads_loads_or_is_refused_by_the_mode(
    where: tuple[str, str], key: str, value: Any
) -> None:
    level, name = where
    cls = registered_class(level, name)
    takes = {n for p in cls.params for n in (p.name, *p.aliases)} | {"message", "description"}
    assume(key not in takes and key not in PROMPTKIT_READS.get(cls.kind, {}) and key != "type")
    params = {**GOOD_PARAMS[where], key: value}
    built = _builds(level, name, params)
    assert built == _builds(level, name, GOOD_PARAMS[where])  # the same check
    with pytest.raises(SpecError) as info:
        _builds(level, name, params, unknown_params="error")
    (problem,) = info.value.problems
    assert problem.path == f"params.{key}"
    assert problem.message.startswith(f"unknown parameter {key!r} for promptkit type {name!r}")


def registered_class(level: str, name: str) -> Any:
    from chatassert._registry import dialect_types

    return dialect_types(f"promptkit.{level}")[name]
