"""Named judges and named prompt templates (docs/judges.md), as PromptKit's `llm_judge` and
`llm_judge_conversation` name them with `judge` and `prompt`.

Names come from code (`judges=` / `prompts=` given to the loader or the check) or from the
environment (`CHATASSERT_JUDGES`, `CHATASSERT_JUDGE_PROMPTS`). A judge is looked up when the
check runs, and an unknown one is an `error` result naming the judges there are; a prompt
template is looked up when the check is built, and an unknown one is a spec error with the
closest names, unless none are configured at all.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from loopback import LoopbackServer, openai_verdict

from chatassert import Conversation, Status, Turn, from_spec
from chatassert.errors import JudgeError, SpecError
from chatassert.judges import ENV_VARS, named_judge, named_judges, named_prompts
from chatassert.promptkit import LLMJudge, LLMJudgeConversation
from chatassert.specs import loads_suite
from chatassert.testing import FakeJudge

SCENARIO = textwrap.dedent(
    """\
    apiVersion: promptkit.altairalabs.ai/v1alpha1
    kind: Scenario
    metadata: {name: judged}
    spec:
      turns:
        - role: user
          content: Explain it simply
          assertions:
            - type: llm_judge
              params: {criteria: Is simple, judge: strict, prompt: terse}
      conversation_assertions:
        - type: llm_judge_session
          params: {criteria: Stays friendly, judge: lenient}
    """
)
LOGGED = Conversation(turns=[Turn(input="Explain it simply", text="It is like a map.")])


@pytest.fixture(autouse=True)
def _no_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHATASSERT_JUDGE", "CHATASSERT_JUDGES", "CHATASSERT_JUDGE_PROMPTS"):
        monkeypatch.delenv(name, raising=False)


def test_the_loader_hands_named_judges_and_prompts_to_the_checks() -> None:
    strict, lenient = FakeJudge.failing("too long"), FakeJudge.passing("friendly")
    default = FakeJudge.passing()
    suite = loads_suite(
        SCENARIO,
        filename="s.yaml",
        judge=default,
        judges={"strict": strict, "lenient": lenient},
        prompts={"terse": "Grade: {{criteria}} / {{response}}"},
    )
    result = suite.cases[0].check(LOGGED)
    turn_check = result.children[0].children[0]
    assert (turn_check.status, turn_check.reason) == (Status.FAILED, "too long")
    assert turn_check.details["judge_name"] == "strict"
    assert turn_check.details["prompt_name"] == "terse"
    assert result.children[1].status is Status.PASSED
    assert default.requests == []  # a named check never falls back to the default judge
    (asked,) = strict.requests
    assert asked.prompt == "Grade: {{criteria}} / {{response}}"
    assert lenient.requests[0].prompt is None


def test_an_unknown_judge_is_an_error_naming_the_judges_there_are() -> None:
    check = LLMJudge("Is simple", judge_name="strikt", judges={"strict": FakeJudge.passing()})
    result = check.check("Simple.")
    assert (result.status, result.reason) == (
        Status.ERROR,
        "unknown judge 'strikt'; the configured judges are strict",
    )
    assert (result.details["error"], result.details["known_judges"]) == (
        "unknown_judge",
        ["strict"],
    )


def test_without_any_named_judge_the_error_says_how_to_configure_one() -> None:
    result = LLMJudge("Is simple", judge_name="strict", judge=FakeJudge.passing()).check("x")
    assert result.status is Status.ERROR
    assert result.reason == (
        "unknown judge 'strict': no named judges are configured (set CHATASSERT_JUDGES, or give "
        "judges={...} to the loader); see docs/judges.md"
    )


def test_the_judge_given_as_an_object_still_works_without_a_name() -> None:
    judge = FakeJudge.passing("ok")
    check = from_spec({"type": "llm_judge", "criteria": "Is simple"}, judge=judge)
    assert check.check("Simple.").passed
    assert len(judge.requests) == 1


def test_names_round_trip_through_specs() -> None:
    spec = {"type": "llm_judge_conversation", "criteria": "Kind", "judge": "strict"}
    built = from_spec(spec)
    assert isinstance(built, LLMJudgeConversation)
    assert built.as_spec() == spec
    assert built.judge_name == "strict"
    assert from_spec(built.as_spec()) == built


def test_an_unknown_prompt_template_is_a_spec_error_with_the_closest_names() -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(
            SCENARIO,
            filename="s.yaml",
            judges={"strict": FakeJudge.passing(), "lenient": FakeJudge.passing()},
            prompts={"terser": "{{criteria}}: {{response}}", "verbose": "{{response}}"},
        )
    (problem,) = caught.value.problems
    assert (problem.line, problem.path) == (10, "spec.turns[0].assertions[0].params.prompt")
    assert problem.message == (
        "llm_judge prompt: unknown prompt template 'terse' (did you mean 'terser' or 'verbose'?)"
    )


def test_a_template_with_an_unknown_placeholder_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match=r"unknown prompt placeholder\(s\) \['answer'\]"):
        LLMJudge("x", prompt_name="bad", prompts={"bad": "{{answer}}"})


def test_with_no_templates_configured_the_name_is_looked_up_when_the_check_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check = LLMJudge("Is simple", prompt_name="terse", judge=FakeJudge.passing())
    result = check.check("Simple.")
    assert (result.status, result.details["error"]) == (Status.ERROR, "unknown_prompt")
    assert result.reason.startswith("unknown prompt template 'terse': no prompt templates")
    judge = FakeJudge.passing()
    monkeypatch.setenv("CHATASSERT_JUDGE_PROMPTS", json.dumps({"terse": "{{response}}?"}))
    assert LLMJudge("Is simple", prompt_name="terse", judge=judge).check("Simple.").passed
    assert judge.requests[0].prompt == "{{response}}?"


def test_templates_from_the_environment_are_resolved_when_the_check_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE_PROMPTS", json.dumps({"terse": "{{criteria}}"}))
    assert LLMJudge("x", prompt_name="terse").prompt == "{{criteria}}"
    code_wins = LLMJudge("x", prompt_name="terse", prompts={"terse": "{{response}}"})
    assert code_wins.prompt == "{{response}}"
    with pytest.raises(ValueError, match=r"unknown prompt template 'tres' \(did you mean 'terse'"):
        LLMJudge("x", prompt_name="tres")


def test_a_named_judge_from_the_environment_talks_to_its_server(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judges = {
        "strict": {"judge": "openai", "model": "strict-model", "base_url": server.url + "/v1"},
        "other": {"judge": "anthropic", "model": "claude"},
    }
    monkeypatch.setenv("CHATASSERT_JUDGES", json.dumps(judges))
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    server.default = openai_verdict(True, 0.9, "clear")
    result = LLMJudge("Is simple", judge_name="strict").check("It is like a map.")
    assert (result.status, result.details["judge"], result.reason) == (
        Status.PASSED,
        "openai:strict-model",
        "clear",
    )
    own_model = LLMJudge("Is simple", judge_name="strict", model="mine").check("Map.")
    assert own_model.details["judge"] == "openai:mine"
    assert [r.body["model"] for r in server.requests] == ["strict-model", "mine"]
    missing = LLMJudge("Is simple", judge_name="lenient").check("Map.")
    assert missing.reason == "unknown judge 'lenient'; the configured judges are other, strict"


def test_a_named_judge_does_not_borrow_the_default_judges_server(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE", "openai")
    monkeypatch.setenv("CHATASSERT_JUDGE_MODEL", "default-model")
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", "http://127.0.0.1:9/unused")
    monkeypatch.setenv(
        "CHATASSERT_JUDGES",
        json.dumps({"local": {"judge": "openai", "base_url": server.url + "/v1"}}),
    )
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    server.default = openai_verdict(False, 0.2, "vague")
    result = LLMJudge("Is simple", judge_name="local", model="m").check("Map.")
    assert (result.status, result.reason) == (Status.FAILED, "vague")
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{not json", "CHATASSERT_JUDGES must hold a JSON object: Expecting property name"),
        ("[1]", "CHATASSERT_JUDGES must hold a JSON object, got list"),
        ('{"a": 1}', "CHATASSERT_JUDGES: judge 'a' must be an object of settings, got 1"),
        (
            '{"a": {"model": "m"}}',
            r"CHATASSERT_JUDGES: judge 'a' needs 'judge' \(openai, anthropic",
        ),
        ('{"a": {"judge": "openai", "modle": "m"}}', r"unknown setting 'modle' \(did you mean"),
        ('{"a": {"judge": ["openai"]}}', "judge must be a string or a number"),
    ],
)
def test_a_malformed_judges_variable_says_what_is_wrong(value: str, message: str) -> None:
    with pytest.raises(JudgeError, match=message):
        named_judges({"CHATASSERT_JUDGES": value})


def test_a_malformed_judges_variable_makes_the_check_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGES", "{not json")
    result = LLMJudge("Is simple", judge_name="strict").check("Map.")
    assert result.status is Status.ERROR
    assert "CHATASSERT_JUDGES must hold a JSON object" in result.reason


def test_named_judge_names_the_judges_there_are() -> None:
    env = {"CHATASSERT_JUDGES": '{"a": {"judge": "openai"}}', "CHATASSERT_JUDGE_CACHE": "off"}
    with pytest.raises(
        JudgeError, match=r"no judge named 'b' in CHATASSERT_JUDGES \(its judges: a\)"
    ):
        named_judge("b", environ=env)


def test_named_prompts_must_be_strings() -> None:
    with pytest.raises(JudgeError, match="prompt 'x' must be a string, got 3"):
        named_prompts({"CHATASSERT_JUDGE_PROMPTS": '{"x": 3}'})
    assert named_prompts({}) == {}


def test_the_two_variables_are_documented() -> None:
    assert {"CHATASSERT_JUDGES", "CHATASSERT_JUDGE_PROMPTS"} <= set(ENV_VARS)
