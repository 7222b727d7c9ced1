"""Cost-aware planning: judged children are asked only when their verdict can change the outcome.

The decision table (D: the deterministic children's results, J: the judged children):

| combinator | decided without the judge when | outcome |
|---|---|---|
| `all_of` | some D failed (an error does not decide: a judged failure would win) | failed |
| `any_of` | some D passed (an error does not decide: a judged pass would win) | passed |
| `at_least n` | passed(D) >= n | passed |
| `at_least n` | passed(D) + errors(D) + len(J) < n | failed |
| `when` | (already sequential) the condition first, then only the branch taken | — |

Every other row asks the judge. The unit rows use a scripted `FakeJudge`; the batching and CLI
rows use the real OpenAI judge against the loopback server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, openai_content, openai_verdict, run_cli, run_cli_here

from chatassert import (
    AllOf,
    AnyOf,
    Assertion,
    AtLeast,
    Contains,
    Conversation,
    LLMRubric,
    Not,
    Repeat,
    Result,
    Status,
    When,
)
from chatassert.judges import BatchingJudge, OpenAIJudge, count_judge_costs, judge_planning
from chatassert.testing import FakeJudge

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED
SRC = Path(__file__).resolve().parents[2] / "src"


class Fixed(Assertion):
    """A deterministic check with a fixed outcome (to reach every row of the table)."""

    __slots__ = ("outcome",)
    kind = "fixed"

    def __init__(self, outcome: Status) -> None:
        super().__init__()
        self._set("outcome", outcome)

    def _check(self, subject: object) -> Result:
        return Result(self.outcome, self.kind, f"fixed {self.outcome.value}")

    def describe(self) -> str:
        return f"fixed {self.outcome.value}"


def rubric(judge: FakeJudge, name: str = "Is polite") -> LLMRubric:
    return LLMRubric(name, judge=judge)


def run_counted(check: Assertion, subject: object = "Hello") -> tuple[Result, dict[str, int]]:
    with count_judge_costs() as costs:
        result = check.check(subject)
    return result, {"requests": costs.requests, "avoided": costs.avoided}


# -- all_of ---------------------------------------------------------------------------------


def test_all_of_with_a_failed_deterministic_child_asks_no_judge() -> None:
    judge = FakeJudge.passing()
    check = AllOf(Contains("refund"), rubric(judge), Contains("Hello"))
    result, costs = run_counted(check)
    assert result.status is F
    assert costs == {"requests": 0, "avoided": 1}
    assert judge.requests == []
    assert [c.status for c in result.children] == [F, S, P]  # the children's order
    skipped = result.children[1]
    assert skipped.name == "llm_rubric"
    assert skipped.reason == (
        "not needed: contains 'refund' failed, so all_of fails whatever the judge says"
    )
    assert result.reason.startswith("1 of 3 failed; first: ")


@pytest.mark.parametrize(
    ("deterministic", "verdict", "expected"),
    [
        (E, False, F),  # an error does not decide: the judged failure makes it a failure
        (E, True, E),
        (P, True, P),
        (P, False, F),
        (S, True, P),  # a skipped child decides nothing
        (S, False, F),
    ],
)
def test_all_of_asks_the_judge_when_its_verdict_can_change_the_outcome(
    deterministic: Status, verdict: bool, expected: Status
) -> None:
    judge = FakeJudge(default=verdict)
    result, costs = run_counted(AllOf(Fixed(deterministic), rubric(judge)))
    assert result.status is expected
    assert costs == {"requests": 1, "avoided": 0}


# -- any_of ---------------------------------------------------------------------------------


def test_any_of_with_a_passed_deterministic_child_asks_no_judge() -> None:
    judge = FakeJudge.failing()
    check = AnyOf(rubric(judge), Contains("Hello"))
    result, costs = run_counted(check)
    assert result.status is P
    assert costs == {"requests": 0, "avoided": 1}
    assert [c.status for c in result.children] == [S, P]
    assert result.children[0].reason == (
        "not needed: contains 'Hello' passed, so any_of passes whatever the judge says"
    )


@pytest.mark.parametrize(
    ("deterministic", "verdict", "expected"),
    [
        (E, True, P),  # an error does not decide: the judged pass makes it a pass
        (E, False, E),
        (F, True, P),
        (F, False, F),
        (S, False, F),
    ],
)
def test_any_of_asks_the_judge_when_its_verdict_can_change_the_outcome(
    deterministic: Status, verdict: bool, expected: Status
) -> None:
    judge = FakeJudge(default=verdict)
    result, costs = run_counted(AnyOf(Fixed(deterministic), rubric(judge)))
    assert result.status is expected
    assert costs == {"requests": 1, "avoided": 0}


# -- at_least -------------------------------------------------------------------------------


def test_at_least_already_reached_asks_no_judge() -> None:
    judge = FakeJudge.failing()
    result, costs = run_counted(AtLeast(2, Fixed(P), rubric(judge), Fixed(P)))
    assert result.status is P
    assert costs == {"requests": 0, "avoided": 1}
    assert (
        result.children[1].reason
        == "not needed: 2 of 3 already passed (needed 2), so at_least passes"
    )


def test_at_least_out_of_reach_asks_no_judge() -> None:
    judge = FakeJudge.passing()
    result, costs = run_counted(AtLeast(3, Fixed(F), rubric(judge), Fixed(P), Fixed(F)))
    assert result.status is F
    assert costs == {"requests": 0, "avoided": 1}
    assert result.children[1].reason == (
        "not needed: even if all 1 judged passed, only 2 of 4 would pass (needed 3), "
        "so at_least fails"
    )


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [(True, E), (False, F)],  # with an error in reach, the verdict decides error or failure
)
def test_at_least_with_an_error_in_reach_asks_the_judge(verdict: bool, expected: Status) -> None:
    judge = FakeJudge(default=verdict)
    result, costs = run_counted(AtLeast(3, Fixed(E), rubric(judge), Fixed(P), Fixed(F)))
    assert result.status is expected
    assert costs == {"requests": 1, "avoided": 0}


def test_at_least_still_open_asks_the_judge() -> None:
    judge = FakeJudge(default=True)
    result, costs = run_counted(AtLeast(2, Fixed(P), rubric(judge), Fixed(F)))
    assert result.status is P
    assert costs == {"requests": 1, "avoided": 0}


# -- when -----------------------------------------------------------------------------------


def test_when_asks_only_the_branch_taken() -> None:
    then, otherwise = FakeJudge.passing(), FakeJudge.passing()
    rule = When(Contains("refund"), rubric(then, "Gives a date"), rubric(otherwise, "Is polite"))
    assert rule.check("Hello").details["branch"] == "else"
    assert (len(then.requests), len(otherwise.requests)) == (0, 1)
    no_else = When(Contains("refund"), rubric(then, "Gives a date"))
    result, costs = run_counted(no_else)
    assert result.status is S
    assert costs["requests"] == 0
    judged_condition = When(rubric(FakeJudge.failing(), "Asks for a refund"), Contains("days"))
    assert judged_condition.check("Hello").status is S


# -- counting, nesting, switches ------------------------------------------------------------


def test_avoided_counts_every_judge_request_of_a_skipped_child() -> None:
    judge = FakeJudge.passing()
    check = AllOf(
        Contains("refund"),
        Repeat(3, rubric(judge)),
        AnyOf(Contains("x"), rubric(judge, "Is short"), rubric(judge, "Is kind")),
        Not(rubric(judge, "Is rude")),
    )
    result, costs = run_counted(check)
    assert result.status is F
    assert costs == {"requests": 0, "avoided": 3 + 2 + 1}
    assert [c.name for c in result.children] == ["contains", "repeat", "any_of", "not"]
    assert [c.status for c in result.children[1:]] == [S, S, S]


def test_planning_off_evaluates_everything() -> None:
    judge = FakeJudge.passing()
    check = AllOf(Contains("refund"), rubric(judge))
    with judge_planning(False):
        result, costs = run_counted(check)
    assert result.status is F
    assert costs == {"requests": 1, "avoided": 0}
    assert result.children[1].status is P
    unplanned = AllOf(Contains("refund"), rubric(judge), plan=False)
    assert unplanned.check("Hello").children[1].status is P
    planned = AllOf(Contains("refund"), rubric(judge), plan=True)
    with judge_planning(False):  # the assertion's own option wins
        assert planned.check("Hello").children[1].status is S
    assert (
        AtLeast(1, Contains("Hello"), rubric(judge), plan=False).check("Hello").children[1].status
        is P
    )
    assert len(judge.requests) == 3


def test_plan_is_an_option_not_part_of_the_spec() -> None:
    judge = FakeJudge.passing()
    assert AllOf(Contains("a"), rubric(judge), plan=False) == AllOf(Contains("a"), rubric(judge))
    assert "plan" not in json.dumps(AllOf(Contains("a"), plan=False).as_spec())
    with pytest.raises(TypeError, match="plan must be True, False or None"):
        AllOf(Contains("a"), plan="no")


def test_planning_under_acheck_and_judge_errors() -> None:
    # an erroring judge under a decided all_of is never asked, so it cannot turn F into E
    broken = FakeJudge(default=RuntimeError("down"))
    result = asyncio.run(AllOf(Contains("refund"), rubric(broken)).acheck("Hello"))
    assert result.status is F
    assert broken.requests == []
    # undecided: the judge is asked, and its error is an error, never a pass
    result = asyncio.run(AllOf(Contains("Hello"), rubric(broken)).acheck("Hello"))
    assert result.status is E


# -- batching and the CLI, against the real HTTP judge ---------------------------------------


def _many_reply(recorded: Any) -> Any:
    user = recorded.body["messages"][1]["content"]
    count = sum(1 for line in user.splitlines() if line[:1].isdigit() and ". " in line)
    verdicts = [
        {"criterion": i, "passed": True, "score": 0.9, "reason": f"criterion {i}"}
        for i in range(1, count + 1)
    ]
    return openai_content(json.dumps({"verdicts": verdicts}))


# -- a suite's case: an AND of all its assertions, over its turns ------------------------------

_CASE = """\
test_cases:
  - name: booking
    turns:
      - user_input: Book a table
        assertions:
          - {type: contains, value: booked}
          - {type: llm_rubric, value: Confirms the booking politely}
      - user_input: Thanks
        assertions:
          - {type: llm_rubric, value: Says goodbye}
"""


def _chat(first_reply: str) -> Conversation:
    return Conversation.from_messages(
        [
            {"role": "user", "content": "Book a table"},
            {"role": "assistant", "content": first_reply},
            {"role": "user", "content": "Thanks"},
            {"role": "assistant", "content": "Goodbye!"},
        ]
    )


def test_a_case_with_a_failed_deterministic_check_asks_no_judge_on_any_turn() -> None:
    from chatassert.specs import loads_suite

    judge = FakeJudge.passing()
    case = loads_suite(_CASE, judge=judge).cases[0]
    result, costs = run_counted(case, _chat("Sorry, we are full."))
    assert result.status is F
    assert (judge.requests, costs) == ([], {"requests": 0, "avoided": 2})
    first, second = result.children
    assert [c.status for c in first.children] == [F, S]  # the order of the assertions
    assert first.children[1].reason == (
        "not needed: contains 'booked' failed, so the case fails whatever the judge says"
    )
    assert (second.status, second.children[0].status) == (S, S)  # G12: nothing evaluated


def test_a_case_whose_deterministic_checks_pass_asks_every_judge_with_its_turn() -> None:
    from chatassert.specs import loads_suite

    judge = FakeJudge.passing()
    case = loads_suite(_CASE, judge=judge).cases[0]
    result, costs = run_counted(case, _chat("Your table is booked."))
    assert result.status is P
    assert costs == {"requests": 2, "avoided": 0}
    assert sorted(r.input for r in judge.requests) == ["Book a table", "Thanks"]


def test_a_case_without_planning_asks_every_judge() -> None:
    from chatassert.specs import loads_suite

    judge = FakeJudge.passing()
    case = loads_suite(_CASE, judge=judge).cases[0]
    with judge_planning(False):
        result, costs = run_counted(case, _chat("Sorry, we are full."))
    assert result.status is F
    assert costs == {"requests": 2, "avoided": 0}


def test_the_judged_children_still_needed_go_to_the_batching_judge_together(
    server: LoopbackServer, openai_judge: Callable[..., OpenAIJudge]
) -> None:
    server.default = _many_reply
    judge = BatchingJudge(openai_judge())
    check = AllOf(
        LLMRubric("Is polite", judge=judge),
        Contains("refund"),
        AnyOf(Contains("nothing"), LLMRubric("Is short", judge=judge)),
        LLMRubric("Mentions a date", judge=judge),
    )
    with count_judge_costs() as costs:
        result = check.check("Sorry, your refund arrives Monday.")
    assert result.status is P
    # the two leaves and the nested any_of's leaf: one request about the subject
    assert server.count == 1
    user = server.requests[0].body["messages"][1]["content"]
    # in the order they arrived: the nested leaf starts a turn of the event loop later
    assert "1. Is polite\n2. Mentions a date\n3. Is short\n" in user
    assert [c.reason for c in result.children if c.name == "llm_rubric"] == [
        "criterion 1",
        "criterion 2",
    ]
    assert result.children[2].children[1].reason == "criterion 3"
    assert (costs.requests, costs.avoided) == (1, 0)
    assert [c.name for c in result.children] == ["llm_rubric", "contains", "any_of", "llm_rubric"]
    with count_judge_costs() as costs:
        result = check.check("Goodbye.")
    assert result.status is F
    assert server.count == 1  # no refund: nothing judged
    assert (costs.requests, costs.avoided) == (0, 3)


_PLANNED_SUITE = (
    "chatassert: 1\nname: support\nassertions:\n"
    "  - type: all_of\n    assertions:\n"
    "      - {type: contains, value: refund}\n"
    "      - {type: llm_rubric, value: Is polite}\n"
)
"""A suite whose judge is asked only when the reply mentions a refund."""


def test_the_cli_plans_and_no_plan_asks_everything(tmp_path: Path, server: LoopbackServer) -> None:
    server.default = openai_verdict(True, 0.9, "polite")
    (tmp_path / "suite.yaml").write_text(_PLANNED_SUITE, encoding="utf-8")
    lines = [
        {"id": f"c{i}", "messages": [{"role": "user", "content": "Refund?"},
                                     {"role": "assistant", "content": text}]}
        for i, text in enumerate(["Your refund is on its way.", "Goodbye.", "No idea."])
    ]  # fmt: skip
    (tmp_path / "log.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    done = run_cli(tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl")
    assert done.returncode == 1, done.stderr
    assert server.count == 1
    report = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    judge = report[-1]["summary"]["judge"]
    assert (judge["requests"], judge["avoided"]) == (1, 2)
    done = run_cli_here(
        tmp_path, server, "check", "suite.yaml", "log.jsonl", "--no-plan", "-o", "r.jsonl"
    )
    assert done.returncode == 1, done.stderr
    assert server.count == 1 + 3
    report = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    judge = report[-1]["summary"]["judge"]
    assert (judge["requests"], judge["avoided"]) == (3, 0)


def test_judge_counts_and_costs_are_the_same_with_jobs(
    tmp_path: Path, server: LoopbackServer
) -> None:
    # workers count their chunks' judge requests, avoided requests and costs into the
    # summaries they send back; the run's totals are those of one job
    verdict = openai_verdict(True, 0.9, "polite")
    verdict.body["usage"] = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    server.default = verdict
    (tmp_path / "suite.yaml").write_text(_PLANNED_SUITE, encoding="utf-8")
    (tmp_path / "prices.json").write_text(
        json.dumps({"judge-model": {"input": 1.0, "output": 2.0}}), encoding="utf-8"
    )
    pad = " and more" * 100
    lines = [
        {"id": f"c{i}", "messages": [{"role": "user", "content": "Refund?"}, {
            "role": "assistant",
            "content": (f"Your refund {i} is on its way." if i % 250 == 0 else "No.") + pad,
        }]}
        for i in range(2500)
    ]  # fmt: skip
    (tmp_path / "log.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    assert (tmp_path / "log.jsonl").stat().st_size > 2 * (1 << 20)  # several byte ranges

    def judge_summary(jobs: str) -> dict[str, Any]:
        # with workers as a subprocess; the one job it is compared with, in this process
        done = (run_cli if jobs != "1" else run_cli_here)(
            tmp_path, server, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl",
            "--judge-prices", "prices.json", "-j", jobs,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        report = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
        summary: dict[str, Any] = json.loads(report[-1])["summary"]
        return summary

    one = judge_summary("1")
    assert (one["judge"]["requests"], one["judge"]["avoided"]) == (10, 2490)
    assert one["judge"]["cost"] == pytest.approx(10 * (120 * 1.0 + 30 * 2.0) / 1e6)
    assert judge_summary("2") == one
    assert server.count == 20
