"""Judges by name: `CHATASSERT_JUDGE`, `CHATASSERT_JUDGES`, `--judge` and `make_judge` take
`openai`, `anthropic`, `fake:pass`/`fake:fail`, a registered (plugin) judge, or
`module:factory`.

The judge of one's own here is a company's grading gateway reached over HTTP: a module written
into the test's directory, its factory given the model and the options the configuration
sets, talking to a real server on 127.0.0.1 (`loopback.py`) started and stopped by the test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply

from chatassert import LLMRubric, Status
from chatassert._cli import main
from chatassert.errors import JudgeError
from chatassert.judges import (
    JudgeRequest,
    Verdict,
    judge_from_env,
    make_judge,
    named_judge,
    named_judges,
)
from chatassert.promptkit import LLMJudge

GATEWAY = '''\
"""A company's grading gateway: POST {model, criteria, response} to BASE_URL/grade."""

import asyncio
import json
import urllib.request

from chatassert.judges import Verdict

made = []  # every judge the factory built: (model, options)


class Gateway:
    """A judge asking the gateway; its reply is the verdict."""

    def __init__(self, model=None, *, base_url, timeout="5", rubric_prefix=""):
        made.append((model, {"base_url": base_url, "timeout": timeout,
                             "rubric_prefix": rubric_prefix}))
        self.name = f"gateway:{model}"
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.prefix = rubric_prefix

    def cache_params(self):
        return {"base_url": self.base_url, "prefix": self.prefix}

    async def judge(self, request):
        body = json.dumps({"model": request.model or self.model,
                           "criteria": self.prefix + request.criteria,
                           "response": request.response}).encode()

        def post():
            sent = urllib.request.Request(self.base_url + "/grade", data=body,
                                          headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(sent, timeout=self.timeout) as reply:
                return reply.read().decode()

        return Verdict.from_reply(await asyncio.to_thread(post))


def gateway(model=None, **options):
    """The factory: (model, **options) -> Judge."""
    return Gateway(model, **options)


def not_a_judge(model=None):
    return "a string"


def nameless(model=None):
    class Anonymous:
        async def judge(self, request):
            return Verdict(True)
    return Anonymous()


def broken(model=None):
    raise RuntimeError("the gateway's credentials file is missing")
'''


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The gateway module, importable under a name of its own for this test."""
    name = f"gateway_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(GATEWAY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    for variable in ("CHATASSERT_JUDGE", "CHATASSERT_JUDGE_MODEL", "CHATASSERT_JUDGES"):
        monkeypatch.delenv(variable, raising=False)
    yield name
    sys.modules.pop(name, None)


@pytest.fixture
def registered() -> Iterator[None]:
    """The judges registered by name, as they were, after the test."""
    from chatassert import plugins

    before = dict(plugins._JUDGE_FACTORIES)
    yield
    plugins._JUDGE_FACTORIES.clear()
    plugins._JUDGE_FACTORIES.update(before)


def grade(server: LoopbackServer) -> None:
    """The gateway passes a response that says 'booked', with the criteria it was sent."""

    def answer(recorded: Any) -> Reply:
        body = recorded.body
        passed = "booked" in body["response"].lower()
        return Reply({"passed": passed, "score": 1.0 if passed else 0.0,
                      "reason": f"{body['model']} graded {body['criteria']!r}"})  # fmt: skip

    server.default = answer


def test_module_factory_in_the_environment_is_the_judge_of_judged_checks(
    module: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    grade(server)
    monkeypatch.setenv("CHATASSERT_JUDGE", f"{module}:gateway")
    monkeypatch.setenv("CHATASSERT_JUDGE_MODEL", "house-grader")
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url)
    booked = LLMRubric("Confirms the booking").check("Your table is booked.")
    assert (booked.status, booked.reason) == (
        Status.PASSED,
        "house-grader graded 'Confirms the booking'",
    )
    assert booked.details["judge"] == "gateway:house-grader"
    refused = LLMRubric("Confirms the booking", model="other").check("Sorry, no table.")
    assert refused.status is Status.FAILED
    assert [r.body["model"] for r in server.requests] == ["house-grader", "other"]
    options = {"base_url": server.url, "timeout": "5", "rubric_prefix": ""}
    assert sys.modules[module].made == [("house-grader", options), ("other", options)]
    LLMRubric("Confirms the booking").check("booked")  # one judge per model, built once
    assert len(sys.modules[module].made) == 2


def test_a_gateway_that_cannot_answer_is_an_error_never_a_pass(
    module: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE", f"{module}:gateway")
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("CHATASSERT_JUDGE_TIMEOUT", "2")
    server.push(Reply("<html>maintenance</html>"), Reply({"score": 1.0}))
    for _ in range(2):
        result = LLMRubric("Is polite").check("Please.")
        negated = (~LLMRubric("Is polite")).check("Please.")
        assert (result.status, negated.status) == (Status.ERROR, Status.ERROR)
    server.stop()  # nobody answers at all now
    down = LLMRubric("Is polite").check("Please.")
    assert down.status is Status.ERROR
    assert "gave no verdict" in down.reason


def test_a_named_judge_of_ones_own_takes_settings_of_its_own(
    module: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    grade(server)
    judges = {
        "house": {"judge": f"{module}:gateway", "model": "grader-2", "base_url": server.url,
                  "rubric_prefix": "House rule: "},
        "strict": {"judge": "openai", "model": "gpt-4o"},
    }  # fmt: skip
    monkeypatch.setenv("CHATASSERT_JUDGES", json.dumps(judges))
    assert named_judges()["house"]["rubric_prefix"] == "House rule: "
    check = LLMJudge("Confirms the booking", judge_name="house")
    result = check.check("It is booked.")
    assert (result.status, result.reason) == (
        Status.PASSED,
        "grader-2 graded 'House rule: Confirms the booking'",
    )
    assert named_judge("strict").name == "openai:gpt-4o"


def test_an_option_a_factory_does_not_take_is_named_with_where_it_was_set(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CHATASSERT_JUDGE_API_KEY_ENV", "HOUSE_KEY")
    with pytest.raises(JudgeError) as caught:  # the class says what it takes
        judge_from_env(environ={**os.environ, "CHATASSERT_JUDGE": f"{module}:Gateway"})
    message = str(caught.value)
    assert f"judge '{module}:Gateway' cannot be built by {module}.Gateway(model=None, *, " in (
        message
    )
    assert "api_key_env (from CHATASSERT_JUDGE_API_KEY_ENV)" in message
    with pytest.raises(JudgeError) as caught:  # a factory of **options passes them on
        judge_from_env(environ={**os.environ, "CHATASSERT_JUDGE": f"{module}:gateway"})
    message = str(caught.value)
    assert f"{module}.gateway failed to build it: TypeError: " in message
    assert "api_key_env (from CHATASSERT_JUDGE_API_KEY_ENV)" in message
    settings = {"x": {"judge": f"{module}:gateway", "base_url": "http://h", "colour": "red"}}
    monkeypatch.setenv("CHATASSERT_JUDGES", json.dumps(settings))
    monkeypatch.delenv("CHATASSERT_JUDGE_API_KEY_ENV")
    with pytest.raises(JudgeError, match=r"colour \(from CHATASSERT_JUDGES: judge 'x'\)"):
        named_judge("x")


@pytest.mark.parametrize(
    ("factory", "says"),
    [
        ("not_a_judge", "returned 'a string', which has no async judge(request) method"),
        ("nameless", "returned a judge without a name: give it a `name`"),
        ("broken", "failed to build it: RuntimeError: the gateway's credentials file is missing"),
        ("nowhere", "has no 'nowhere'"),
        ("made", "is a list, not a judge factory (model, **options) -> Judge or a judge class"),
    ],
)
def test_a_factory_that_does_not_give_a_judge_is_said(module: str, factory: str, says: str) -> None:
    with pytest.raises(JudgeError) as caught:
        judge_from_env(environ={**os.environ, "CHATASSERT_JUDGE": f"{module}:{factory}"})
    assert says in str(caught.value)


def test_a_module_that_is_not_there_names_itself() -> None:
    with pytest.raises(JudgeError) as caught:
        make_judge("no_such_gateway:make")
    assert str(caught.value) == (
        "judge: cannot import the module of no_such_gateway:make (looked up on sys.path and in "
        "the working directory): ModuleNotFoundError: No module named 'no_such_gateway'"
    )


def test_a_registered_judge_is_a_name(registered: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from chatassert.plugins import register_judge

    class Rule:
        """Passes a response that confirms a booking."""

        def __init__(self, model: str | None = None, **options: str) -> None:
            self.name = f"rule:{model}"
            self.options = options

        async def judge(self, request: JudgeRequest) -> Verdict:
            return Verdict("booked" in request.response, None, "by the house rule")

    register_judge("house-rule", Rule)
    monkeypatch.setenv("CHATASSERT_JUDGE", "house-rule")
    monkeypatch.setenv("CHATASSERT_JUDGE_CACHE", "off")
    monkeypatch.delenv("CHATASSERT_JUDGE_MODEL", raising=False)
    result = LLMRubric("Confirms").check("booked")
    assert (result.status, result.details["judge"]) == (Status.PASSED, "rule:None")
    made = make_judge("house-rule", "m", threshold="0.5")
    assert (made.name, made.options) == ("rule:m", {"threshold": "0.5"})  # type: ignore[attr-defined]
    with pytest.raises(JudgeError, match=r"unknown judge 'house-rul' \(did you mean 'house-rule'"):
        make_judge("house-rul")
    with pytest.raises(JudgeError, match="the judges are openai, anthropic, fake:pass, fake:fail, "
                       "house-rule, or module:factory"):  # fmt: skip
        make_judge("gemini")


def test_fake_judges_are_names_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHATASSERT_JUDGE", "fake:fail")
    result = LLMRubric("Is polite").check("Please.")
    assert (result.status, result.reason) == (
        Status.FAILED,
        "does not meet the criteria (fake:fail)",
    )
    assert make_judge("FAKE:PASS").name == "fake:pass"
    with pytest.raises(JudgeError, match="the fake judges are fake:pass and fake:fail"):
        make_judge("fake:maybe")


def test_make_judge_builds_the_built_in_judges_from_options() -> None:
    judge = make_judge("anthropic", "claude-x", base_url="http://127.0.0.1:9", retries="4")
    assert (judge.name, judge.retries, judge.base_url) == (  # type: ignore[attr-defined]
        "anthropic:claude-x",
        4,
        "http://127.0.0.1:9",
    )
    with pytest.raises(JudgeError, match="needs a model"):
        make_judge("openai")
    with pytest.raises(JudgeError, match="takes the options base_url, api_key_env, timeout, "
                       "retries, not colour"):  # fmt: skip
        make_judge("openai", "m", colour="red")


# -- the command line ------------------------------------------------------------------------

HOUSE_RULE = '''\
"""An installed judge that answers from a house rule: no model is asked."""

from chatassert.judges import Verdict


class HouseRule:
    """Passes a reply that confirms the booking."""

    def __init__(self, model=None, **options):
        self.name = "house"

    async def judge(self, request):
        return Verdict("Booked" in request.response, 1.0, "house rule")
'''

SUITE = """\
test_cases:
  - name: booking
    turns:
      - user_input: A table for two
        assertions:
          - {type: llm_rubric, value: Confirms the booking}
"""


def conversation(reply: str) -> str:
    messages = [{"role": "user", "content": "A table for two"},
                {"role": "assistant", "content": reply}]  # fmt: skip
    return json.dumps({"messages": messages})


def cli(cwd: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def work(tmp_path: Path, module: str) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    lines = [conversation("Booked for two."), conversation("Sorry, we are full.")]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_judge_on_the_command_line_names_the_judge_for_the_run(
    work: Path, module: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    grade(server)
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url)
    code, out, err = cli(
        work, "check", "suite.yaml", "log.jsonl", "--judge", f"{module}:gateway",
        "--judge-model", "cli-model", "-f", "json",
    )  # fmt: skip
    assert (code, err) == (1, "")
    statuses = [json.loads(line)["result"]["status"] for line in out.splitlines()[:2]]
    assert statuses == ["passed", "failed"]
    assert [r.body["model"] for r in server.requests] == ["cli-model", "cli-model"]
    assert "CHATASSERT_JUDGE" not in os.environ  # the run's judge, not the process's
    assert "CHATASSERT_JUDGE_MODEL" not in os.environ


def test_worker_processes_ask_the_judge_the_command_line_names(
    work: Path, module: str, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    grade(server)
    monkeypatch.setenv("CHATASSERT_JUDGE_BASE_URL", server.url)
    lines = [conversation("Booked for two."), conversation("Sorry, we are full.")] * 3
    (work / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = cli(
        work, "check", "suite.yaml", "log.jsonl", "--judge", f"{module}:gateway",
        "--judge-model", "worker-model", "-j", "2", "-f", "json",
    )  # fmt: skip
    assert (code, err) == (1, "")
    rows = [json.loads(line) for line in out.splitlines() if '"result"' in line]
    assert [r["result"]["status"] for r in rows] == ["passed", "failed"] * 3
    assert {r.body["model"] for r in server.requests} == {"worker-model"}
    assert len(server.requests) == 6


def test_validate_takes_the_judge_on_the_command_line_too(work: Path) -> None:
    labels = [{"record": f"log.jsonl:{n}", "assertion": "llm_rubric", "human": human}
              for n, human in ((1, "pass"), (2, "fail"))]  # fmt: skip
    (work / "labels.jsonl").write_text(
        "".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8"
    )
    code, out, err = cli(work, "validate", "suite.yaml", "labels.jsonl", "log.jsonl",
                         "--judge", "fake:pass", "-f", "json")  # fmt: skip
    assert (code, err) == (0, "")
    [rubric] = json.loads(out)["assertions"]
    assert rubric["counts"] == {"tp": 1, "fp": 1, "fn": 0, "tn": 0}


def test_the_pytest_plugin_takes_a_judge_of_ones_own_by_name(
    pytester: pytest.Pytester, module: str, tmp_path: Path
) -> None:
    pytester.makepyfile(
        test_polite="""
        from chatassert import LLMRubric

        def test_booked(chatassert_judge):
            assert chatassert_judge.name == "house"
            assert LLMRubric("Confirms", judge=chatassert_judge).check("Booked.").passed
        """
    )
    house = f"house_{uuid.uuid4().hex[:10]}"
    (pytester.path / f"{house}.py").write_text(HOUSE_RULE, encoding="utf-8")
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "no:xdist", "--chatassert-judge", f"{house}:HouseRule")
    result.assert_outcomes(passed=1)
    typo = pytester.runpytest("-p", "no:xdist", "--chatassert-judge", "opneai")
    assert typo.ret == pytest.ExitCode.USAGE_ERROR
    typo.stderr.fnmatch_lines(["*--chatassert-judge: unknown judge 'opneai' (did you mean*"])


def test_fake_judges_run_judged_checks_offline(work: Path) -> None:
    assert cli(work, "check", "suite.yaml", "log.jsonl", "--judge", "fake:pass", "-q")[0] == 0
    assert cli(work, "check", "suite.yaml", "log.jsonl", "--judge", "fake:fail", "-q")[0] == 1


def test_a_judge_name_that_names_none_is_a_usage_error_before_any_log_is_read(
    work: Path,
) -> None:
    code, out, err = cli(work, "check", "suite.yaml", "nothing-here.jsonl", "--judge", "opnai")
    assert (code, out) == (2, "")
    assert err == (
        "chatassert check: --judge: unknown judge 'opnai' (did you mean 'openai'?); the judges "
        "are openai, anthropic, fake:pass, fake:fail, or module:factory for a judge of one's "
        "own\n"
    )


def test_an_installed_judge_plugin_is_a_name_on_the_command_line(
    tmp_path: Path, work: Path, module: str
) -> None:
    """A real distribution on sys.path declares a `chatassert.judges` entry point; `check`
    finds it by name, in a process of its own (entry points are read once per process)."""
    site = tmp_path / "site"
    info = site / "house_judges-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: house-judges\nVersion: 1.0\n", encoding="utf-8"
    )
    house = f"house_{uuid.uuid4().hex[:10]}"
    (info / "entry_points.txt").write_text(
        f"[chatassert.judges]\nhouse = {house}:HouseRule\n", encoding="utf-8"
    )
    (site / f"{house}.py").write_text(HOUSE_RULE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path]),
           "CHATASSERT_JUDGE_CACHE": "off"}  # fmt: skip
    env.pop("CHATASSERT_JUDGE", None)
    done = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "suite.yaml", "log.jsonl",
         "--judge", "house", "-f", "json"],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()[:2]]
    assert [line["result"]["status"] for line in lines] == ["passed", "failed"]
    typo = subprocess.run(
        [sys.executable, "-m", "chatassert", "check", "suite.yaml", "log.jsonl",
         "--judge", "hous"],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert typo.returncode == 2
    assert "unknown judge 'hous' (did you mean 'house'?)" in typo.stderr
    assert "fake:fail, house, or module:factory" in typo.stderr
