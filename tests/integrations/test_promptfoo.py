"""get_assert against the context shapes promptfoo documents for `type: python` assertions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatassert import SpecError
from chatassert.integrations.promptfoo import get_assert, grading_result, subject_from_output


def context(config: dict[str, Any] | None, prompt: str = "Where is my refund?") -> dict[str, Any]:
    """The context promptfoo passes: prompt, vars, test, logProbs, provider, providerResponse,
    and the assertion's config (present only when the assertion has one)."""
    out: dict[str, Any] = {
        "prompt": prompt,
        "vars": {"order": "A17"},
        "test": {
            "vars": {"order": "A17"},
            "assert": [{"type": "python", "value": "file://check.py", "config": config}],
            "options": {},
            "metadata": {},
        },
        "logProbs": None,
        "provider": {"id": "echo", "label": None},
        "providerResponse": {"output": "irrelevant", "tokenUsage": {}},
    }
    if config is not None:
        out["config"] = config
    return out


def test_one_assertion_passes_with_score_one_and_a_component() -> None:
    graded = get_assert(
        "Your refund for A17 is on its way.",
        context({"assertion": {"type": "matches", "value": "A[0-9]+"}}),
    )
    assert graded == {
        "pass": True,
        "score": 1.0,
        "reason": "matches /A[0-9]+/",
        "componentResults": [{"pass": True, "score": 1.0, "reason": "matches: matches /A[0-9]+/"}],
    }
    json.dumps(graded)  # what promptfoo's Python wrapper does with the answer


def test_several_assertions_fail_with_the_failing_branch_and_one_component_each() -> None:
    graded = get_assert(
        "Your refund is on its way.",
        context(
            {
                "assertions": [
                    {"type": "contains", "value": "refund"},
                    {"type": "not_contains", "value": "on its way", "message": "no promises"},
                ],
                "dialect": "flat",
            }
        ),
    )
    assert graded["pass"] is False
    assert graded["score"] == 0.0
    assert graded["reason"] == (
        "FAIL all_of: 1 of 2 failed; first: Response should not contain 'on its way'\n"
        "  FAIL no promises [not_contains]: Response should not contain 'on its way'\n"
        "    at /text 15-25: Your refund is [[on its way]]."
    )
    assert [c["pass"] for c in graded["componentResults"]] == [True, False]
    assert graded["componentResults"][1]["reason"] == (
        "no promises: Response should not contain 'on its way'"
    )


def test_yaml_text_specs_are_accepted() -> None:
    graded = get_assert("Sunny", context({"assertion": "{type: contains, value: sunny}"}))
    assert graded["pass"] is True


def test_tool_call_output_is_checked_as_the_turns_calls() -> None:
    output = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "issue_refund", "arguments": '{"order": "A17", "amount": 20}'},
        }
    ]
    spec = {"type": "contains_function_call", "value": "issue_refund", "arguments": {"amount": 25}}
    graded = get_assert(output, context({"assertion": spec, "dialect": "flat"}))
    assert graded["pass"] is False
    assert "amount=20, expected 25" in graded["reason"]
    message = {"role": "assistant", "content": "Refunding.", "tool_calls": output}
    turn = subject_from_output(message, "Refund A17")
    assert (turn.text, turn.input, turn.tool_calls[0].arguments["order"]) == (
        "Refunding.",
        "Refund A17",
        "A17",
    )


def test_json_output_as_the_subject_of_expect_style_checks() -> None:
    expect = {"status": "success", "results_min": 1}
    ok = get_assert('{"status": "success", "results": [1]}', context({"expect": expect}))
    bad = get_assert({"status": "error", "results": []}, context({"expect": expect}))
    single = get_assert(
        {"status": "error"},
        context({"assertion": {"type": "expect_status", "value": "error"}, "subject": "json"}),
    )
    assert ok["pass"] is True
    assert bad["pass"] is False
    assert [c["reason"] for c in bad["componentResults"]] == [  # named as the config's keys
        "status: Expected status 'success', got 'error'",
        "results_min: Expected at least 1 result, got 0",
    ]
    assert single["pass"] is True


def test_an_error_result_does_not_pass_and_says_error() -> None:
    graded = get_assert("not json at all", context({"expect": {"status": "success"}}))
    assert graded["pass"] is False
    assert graded["score"] == 0.0
    assert graded["reason"].startswith("ERROR ")
    assert graded["componentResults"][0]["reason"].startswith("ERROR ")


def test_a_suite_file_case_is_chosen_by_name_or_by_prompt(tmp_path: Path) -> None:
    suite = tmp_path / "support.yaml"
    suite.write_text(
        "test_cases:\n"
        "  - name: refund status\n"
        "    turns:\n"
        "      - user_input: Where is my refund?\n"
        "        assertions:\n"
        "          - {type: contains, value: refund}\n"
        "          - {type: not_contains, value: sorry}\n"
        "  - name: greeting\n"
        "    turns:\n"
        "      - user_input: Hello\n"
        "        assertions:\n"
        "          - {type: contains_any, value: [hi, hello]}\n"
    )
    by_prompt = get_assert("Sorry, your refund is late.", context({"spec": str(suite)}))
    assert by_prompt["pass"] is False
    assert [c["reason"] for c in by_prompt["componentResults"]] == [
        "turns[0] contains: contains 'refund'",
        "turns[0] not_contains: Response should not contain 'sorry'",
    ]
    by_name = get_assert("Hi there", context({"spec": str(suite), "case": "greeting"}, "Hey"))
    assert by_name["pass"] is True
    with pytest.raises(ValueError, match="has no case 'nope'"):
        get_assert("x", context({"spec": str(suite), "case": "nope"}))
    with pytest.raises(ValueError, match="none starts with this prompt"):
        get_assert("x", context({"spec": str(suite)}, "Unrelated"))


def test_misuse_raises_with_a_message_promptfoo_shows() -> None:
    with pytest.raises(ValueError, match=r"exactly one of config\.assertion"):
        get_assert("x", context(None))
    with pytest.raises(ValueError, match=r"found \['assertion', 'spec'\]"):
        get_assert("x", context({"assertion": {"type": "contains", "value": "x"}, "spec": "s"}))
    with pytest.raises(ValueError, match=r"config\.subject must be"):
        get_assert(
            "x",
            context({"assertion": {"type": "contains", "value": "x"}, "subject": "conversation"}),
        )
    with pytest.raises(SpecError, match="did you mean"):
        get_assert("x", context({"assertion": {"type": "contain", "value": "x"}}))
    with pytest.raises(ValueError, match="non-empty list"):
        get_assert("x", context({"assertions": []}))


def test_a_judged_score_becomes_the_grading_score() -> None:
    from chatassert import LLMRubric
    from chatassert.testing import FakeJudge

    result = LLMRubric("Polite", judge=FakeJudge({"passed": True, "score": 0.75})).check("Hi")
    assert grading_result(result)["score"] == 0.75


def test_one_assertion_is_one_component_whatever_its_parts() -> None:
    negated = {"type": "not", "assertion": {"type": "contains", "value": "z"}}
    graded = get_assert("abc", context({"assertion": negated}))
    assert graded["pass"] is True
    assert [c["pass"] for c in graded["componentResults"]] == [True]


def test_an_error_reason_says_error_once() -> None:
    graded = get_assert("not json", context({"expect": {"status": "ok"}}))
    assert graded["reason"].startswith("ERROR expect [case]: 1 assertion could not be evaluated")
    assert "ERROR ERROR" not in graded["reason"]
