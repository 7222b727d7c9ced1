"""Reports speak the spec's language: each check named as its file names it, at its place there.

For each vocabulary (flat, PromptKit, expect and the native one) a failing run is reported in
text, JSON and JUnit by the command line, as a user runs it; then the parts that make it so:
the names a loader gives, the wrappers it adds and does not show, the missing turn, and the
counts and their words.

Docs: docs/offline.md ("Reports"), docs/specs.md ("A case's outcome"), docs/guide.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import pickle
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from chatassert import Contains, Conversation, Result, Status, Turn, from_spec
from chatassert._cli import main
from chatassert.reporting import Outcome, Summary, render_text
from chatassert.reporting._json import report_line
from chatassert.specs import load_suite, loads_suite


def run(cwd: Path, *argv: str) -> tuple[int, str]:
    """Run `chatassert argv...` in process in `cwd`: its exit code and standard output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue()


def chat(*pairs: tuple[str, str], id: str = "c1") -> dict[str, Any]:
    """A logged conversation (OpenAI messages) of `(user, assistant)` turns."""
    messages = []
    for user, assistant in pairs:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return {"id": id, "messages": messages}


def reports(
    tmp_path: Path, suite: str, spec: str, *records: dict[str, Any], code: int = 1
) -> dict[str, Any]:
    """The text, JSON and JUnit reports of checking `records` against the file `spec` (and
    the run's exit code, `code`: 1, something failed, unless said)."""
    (tmp_path / suite).write_text(spec, encoding="utf-8")
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out: dict[str, Any] = {}
    for form in ("text", "json", "junit"):
        exit_code, text = run(tmp_path, "check", suite, "log.jsonl", "-f", form, "--no-progress")
        assert exit_code == code, text
        out[form] = text
    out["rows"] = [json.loads(line) for line in out["json"].splitlines()]
    failures = ElementTree.fromstring(out["junit"]).iter("failure")
    out["junit_body"] = "\n".join(f.text or "" for f in failures)
    return out


def by_path(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every node of a JSON result tree that has a spec path, by that path (first wins)."""
    found: dict[str, dict[str, Any]] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        if "spec_path" in node:
            found.setdefault(node["spec_path"], node)
        stack.extend(reversed(node.get("children", [])))
    return found


# -- the four vocabularies, as a user runs them ----------------------------------------------

FLAT = """\
- type: not_contains
  value: sorry
- type: contains
  value: booked
"""


def test_flat_a_top_level_check_is_reported_as_written_not_as_on_every_turn(
    tmp_path: Path,
) -> None:
    got = reports(tmp_path, "rules.yaml", FLAT, chat(("Book", "sorry, booked"), ("Ok?", "sorry")))
    text = got["text"]
    assert "on_every_turn" not in text + got["junit"]  # a wrapper the file never wrote
    line = "FAIL conversation not_contains at [0]: 2 of 2 turns failed (turns[0], turns[1])"
    assert "    " + line in text
    assert "      FAIL turns[1] not_contains: Response should not contain 'sorry'" in text
    assert "    FAIL conversation contains at [1]: 1 of 2 turns failed (turns[1])" in text
    assert "  not_contains    0.0% passed  (0/1, 1 failed)" in text  # the table's row
    assert "  " + line in got["junit_body"]
    [case] = [row for row in got["rows"] if "result" in row]
    first = case["result"]["children"][0]
    assert (first["name"], first["spec_name"], first["spec_path"]) == (
        "on_every_turn",  # the native check that ran, as detail
        "not_contains",
        "[0]",
    )
    assert [c["spec_name"] for c in first["children"]] == ["not_contains", "not_contains"]
    assert [c["location"] for c in first["children"]] == ["turns[0]", "turns[1]"]


FLAT_CASES = """\
name: booking
test_cases:
  - name: books
    id: c1
    turns:
      - user_input: Book a table
        assertions:
          - {type: contains, value: booked}
      - user_input: Thanks
        expected_agent: concierge
        assertions:
          - {type: not_contains, value: sorry}
"""


def test_flat_a_turn_assertion_is_placed_in_its_turn(tmp_path: Path) -> None:
    got = reports(
        tmp_path, "booking.yaml", FLAT_CASES, chat(("Book a table", "booked"), ("Thanks", "sorry"))
    )
    text = got["text"]
    assert "    FAIL turns[1] turn: 1 of 2 failed, 1 could not be evaluated" in text
    assert "      FAIL not_contains at turns[1].assertions[0]: Response should not contain" in text
    assert "      ERROR turns[1].expected_agent: cannot check for agent 'concierge'" in text
    assert "active_agent" not in text  # its native name
    assert "  expected_agent    0.0% passed  (0/1, 1 error)" in text
    assert "FAIL not_contains at turns[1].assertions[0]" in got["junit_body"]
    [case] = [row for row in got["rows"] if "result" in row]
    nodes = by_path(case["result"])
    assert case["result"]["spec_path"] == "test_cases[0]"
    assert nodes["test_cases[0].turns[1]"]["name"] == "turn"
    assert nodes["test_cases[0].turns[1].assertions[0]"]["spec_name"] == "not_contains"
    agent = nodes["test_cases[0].turns[1].expected_agent"]
    assert (agent["name"], agent["spec_name"]) == ("active_agent", "expected_agent")


PROMPTKIT = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: refund}
spec:
  turns:
    - role: user
      content: Refund me
      assertions:
        - type: content_includes
          params: {patterns: [refund]}
  conversation_assertions:
    - type: content_not_includes
      params: {patterns: [guarantee]}
"""


def test_promptkit_a_conversation_assertion_is_reported_by_its_promptkit_name(
    tmp_path: Path,
) -> None:
    got = reports(
        tmp_path, "refund.scenario.yaml", PROMPTKIT, chat(("Refund me", "I guarantee a refund"))
    )
    text = got["text"]
    assert "conversation_content_not_includes" not in text + got["junit"]
    line = "FAIL conversation content_not_includes at conversation_assertions[0]: forbidden"
    assert "    " + line in text
    assert "  content_not_includes    0.0% passed  (0/1, 1 failed)" in text
    assert line in got["junit_body"]
    [case] = [row for row in got["rows"] if "result" in row]
    assert case["result"]["spec_path"] == "spec"
    check = by_path(case["result"])["spec.conversation_assertions[0]"]
    assert (check["name"], check["spec_name"]) == (
        "conversation_content_not_includes",
        "content_not_includes",
    )
    turn_check = by_path(case["result"])["spec.turns[0].assertions[0]"]
    assert (turn_check["status"], turn_check["spec_name"]) == ("passed", "content_includes")


def test_promptkit_otel_events_are_named_as_the_file_names_each_check(tmp_path: Path) -> None:
    (tmp_path / "refund.scenario.yaml").write_text(PROMPTKIT, encoding="utf-8")
    record = chat(("Refund me", "I guarantee a refund"))
    (tmp_path / "log.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, out = run(tmp_path, "check", "refund.scenario.yaml", "log.jsonl", "-f", "otel")
    assert code == 1
    (line,) = out.splitlines()
    records = json.loads(line)["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    events = [{a["key"]: next(iter(a["value"].values())) for a in r["attributes"]} for r in records]
    failed = [e for e in events if e["gen_ai.evaluation.score.label"] == "failed"][1]
    assert (
        failed["gen_ai.evaluation.name"],
        failed["chatassert.assertion"],
        failed["chatassert.spec_path"],
    ) == (
        "content_not_includes",
        "conversation_content_not_includes",
        "spec.conversation_assertions[0]",
    )


EXPECT = json.dumps(
    {
        "name": "search",
        "tests": [{"id": "s1", "name": "finds", "expect": {"status": "success", "results_min": 1}}],
    }
)


def test_expect_a_key_is_reported_by_the_key_at_its_place(tmp_path: Path) -> None:
    record = {"id": "s1", "response": {"status": "error", "results": []}}
    got = reports(tmp_path, "search.json", EXPECT, record)
    text = got["text"]
    assert "expect_status" not in text + got["junit"]
    assert "    FAIL expect.status: Expected status 'success', got 'error'" in text
    assert "    FAIL expect.results_min: Expected at least 1 result, got 0" in text
    assert "  status         0.0% passed  (0/1, 1 failed)" in text
    assert "FAIL expect.status: Expected status 'success', got 'error'" in got["junit_body"]
    assert "first: status: Expected status" in got["junit"]  # the failure's message
    [case] = [row for row in got["rows"] if "result" in row]
    status = case["result"]["children"][0]
    assert (status["name"], status["spec_name"], status["spec_path"]) == (
        "expect_status",
        "status",
        "tests[0].expect.status",
    )


NATIVE = """\
chatassert: 1
name: booking
cases:
  - name: books
    id: c1
    turns:
      - input: Book a table
        assertions:
          - {type: contains, value: booked}
    assertions:
      - type: on_last_turn
        assertion: {type: not_contains, value: sorry}
assertions:
  - {type: not_contains, value: error}
"""


def test_native_case_and_suite_assertions_are_placed_where_the_file_has_them(
    tmp_path: Path,
) -> None:
    got = reports(tmp_path, "booking.yaml", NATIVE, chat(("Book a table", "sorry, an error")))
    text = got["text"]
    assert "      FAIL contains at turns[0].assertions[0]: Response does not contain" in text
    assert "    FAIL conversation on_last_turn at assertions[0]: Response should not" in text
    assert "      FAIL turns[0] not_contains at assertions[0].assertion: Response" in text
    # the suite's own rules are outside the case: said so, not confused with the case's
    assert "    FAIL conversation not_contains at the file's assertions[0]: 1 of 1 turns" in text
    assert "on_every_turn" not in text
    assert "FAIL conversation on_last_turn at assertions[0]" in got["junit_body"]
    [case] = [row for row in got["rows"] if "result" in row]
    nodes = by_path(case["result"])
    assert nodes["cases[0].assertions[0].assertion"]["spec_name"] == "not_contains"
    rule = nodes["assertions[0]"]
    assert (rule["name"], rule["spec_name"]) == ("on_every_turn", "not_contains")


# -- the parts: names, places and wrappers ---------------------------------------------------


def test_the_table_groups_by_the_names_the_files_give() -> None:
    suite = load_suite(Path(__file__).parents[2] / "examples" / "search.expect.json")
    summary = Summary()
    responses = {
        "search-001": {"status": "error"},
        "search-003": {"status": "success", "results": [], "summary": "no results"},
    }
    for key, response in responses.items():
        case = suite.find(key)
        assert case is not None
        summary.add(Outcome(suite.name, case.name, case.check(response), "log:1"))
    assert summary.per_assertion["status"] == {"passed": 1, "failed": 1}  # both tests' key
    assert not [label for label in summary.per_assertion if label.startswith("expect_")]
    assert set(summary.per_assertion) >= {"results_min", "results_count", "if_results"}


def test_an_expect_object_of_several_keys_is_shown_once_under_its_key() -> None:
    suite = loads_suite(
        json.dumps(
            {
                "tests": [
                    {
                        "id": "T1",
                        "expect": {
                            "if_results": {"all_have_tags": ["work"], "results_max": 1},
                            "one_of": [{"status": "error", "contains": "filter"}, {"status": "x"}],
                        },
                    }
                ]
            }
        )
    )
    response = {"status": "ok", "results": [{"metadata": {"tags": []}}, {"metadata": {}}]}
    lines = suite.cases[0].check(response).render(verbose=True).splitlines()[1:]
    assert [line.split(":")[0] for line in lines] == [
        "  FAIL expect.if_results",
        "    FAIL expect.if_results.all_have_tags",  # the AND of the keys is not shown again
        "    FAIL expect.if_results.results_max",
        "  FAIL expect.one_of",
        "    FAIL expect.one_of[0]",  # a branch of several keys: the branch the file wrote
        "      FAIL expect.one_of[0].status",
        "      FAIL expect.one_of[0].contains",
        "    FAIL expect.one_of[1].status",
    ]
    assert "all_of" not in "\n".join(lines)


def test_promptkit_tool_policy_and_every_turn_checks_are_placed_under_their_keys() -> None:
    suite = loads_suite(
        PROMPTKIT + "  tool_policy: {blocklist: [delete_account], max_tool_calls_per_turn: 1}\n"
    )
    calls = [
        {"id": f"t{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for i, name in enumerate(["delete_account", "refund"])
    ]
    record = {
        "messages": [
            {"role": "user", "content": "Refund me"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls),
            {"role": "assistant", "content": "Refunded"},
        ]
    }
    result = suite.cases[0].check(Conversation.from_messages(record["messages"]))
    text = result.render()
    assert "FAIL conversation tool_policy.blocklist: " in text
    assert "FAIL conversation tool_policy.max_tool_calls_per_turn: 1 of 1 turns failed" in text
    per_turn = next(c for c in result.children if c.spec_name == "max_tool_calls_per_turn")
    assert (per_turn.name, per_turn.spec_path) == (
        "on_every_turn",
        "spec.tool_policy.max_tool_calls_per_turn",
    )
    assert per_turn.children[0].spec_name == "max_tool_calls_per_turn"


def test_an_eval_all_turns_check_is_named_as_written_without_an_invented_label() -> None:
    suite = loads_suite(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Eval\nmetadata: {name: e}\n"
        "spec:\n  recording: {path: run.json}\n  turns:\n    - all_turns:\n"
        "        assertions:\n          - {type: content_includes, params: {patterns: [hi]}}\n"
    )
    result = suite.cases[0].check(Conversation(turns=[Turn(input="a", text="no")]))
    check = result.children[0]
    assert (check.label, check.message, check.spec_path) == (
        "content_includes",
        None,
        "spec.turns[0].all_turns.assertions[0]",
    )


def test_an_unknown_type_in_a_bare_promptkit_list_is_skipped_not_passed() -> None:
    suite = loads_suite(
        "- {type: audio_loudness, params: {max_db: 3}}\n"
        "- {type: content_includes, params: {patterns: [a]}}\n",
        unknown_types="skip",
    )
    result = suite.cases[0].check(Conversation(turns=[Turn(input="q", text="a")]))
    unknown = result.children[0]
    assert (unknown.status, unknown.spec_name, unknown.spec_path) == (
        Status.SKIPPED,
        "audio_loudness",
        "[0]",
    )
    assert unknown.reason == "unknown assertion type 'audio_loudness'"


def test_a_repeated_judged_check_takes_the_place_of_the_check_it_repeats() -> None:
    from chatassert.testing import FakeJudge

    suite = loads_suite(
        "- {type: llm_rubric, value: Is polite}\n", judge=FakeJudge(True, False, True)
    ).with_repeat(3)
    result = suite.cases[0].check(Conversation(turns=[Turn(input="q", text="Hello")]))
    every_turn = result.children[0]
    repeat = every_turn.children[0]
    assert (every_turn.label, repeat.name, repeat.label, repeat.spec_path) == (
        "llm_rubric",
        "repeat",
        "llm_rubric",
        "[0]",
    )
    assert [sample.location for sample in repeat.children] == [
        "samples[0]",
        "samples[1]",
        "samples[2]",
    ]


def test_a_check_built_from_a_mapping_in_code_is_not_placed() -> None:
    result = from_spec({"type": "contains", "value": "x"}).check("y")
    assert (result.spec_name, result.spec_path) == (None, None)
    assert result == Contains("x").check("y")


def test_places_survive_pickling_and_every_way_of_checking() -> None:
    # workers receive pickled cases; a judged case checks asynchronously; a JSON case's
    # quick tests skip `check`: each names and places its results the same way
    suite = load_suite(Path(__file__).parents[2] / "examples" / "search.expect.json")
    responses = [{"status": "success", "results": []}, {"status": "error"}, {}]
    for case in suite.cases:
        again = pickle.loads(pickle.dumps(case))
        for response in responses:
            expected = case.check(response)
            assert again.check(response) == expected
            assert asyncio.run(case.acheck(response)) == expected
            assert all(child.spec_path for child in expected.children), case.name


def test_a_constant_outcome_is_placed_once_and_then_shared() -> None:
    # placing must not cost a copy per check: the placed constant is built once
    suite = loads_suite("- {type: contains, value: booked}\n")
    [check] = suite.cases[0].checks
    child = check.child  # type: ignore[attr-defined]
    first, second = child.check(Turn(text="booked")), child.check(Turn(text="booked, yes"))
    assert first is second
    assert (first.spec_name, first.spec_path) == ("contains", "[0]")


def test_a_regated_report_keeps_the_names_and_places() -> None:
    from chatassert.reporting import regate
    from chatassert.testing import FakeJudge

    suite = loads_suite(
        "chatassert: 1\ncases:\n  - name: c\n    turns:\n      - assertions:\n"
        "          - {type: llm_judge, criteria: Is polite, min_score: 0.5}\n",
        judge=FakeJudge({"passed": True, "score": 0.6, "reason": "polite"}),
    )
    result = suite.cases[0].check(Conversation(turns=[Turn(input="q", text="Hi")]))
    regated = regate(result, {"llm_judge": 0.9})
    leaf = regated.children[0].children[0]
    assert (leaf.status, leaf.spec_name, leaf.spec_path) == (
        Status.FAILED,
        "llm_judge",
        "cases[0].turns[0].assertions[0]",
    )
    assert regated.spec_path == "cases[0]"


# -- a turn the conversation lacks ---------------------------------------------------------

THREE_TURNS = """\
name: booking
test_cases:
  - name: books
    turns:
      - user_input: Book a table
        assertions: [{type: contains, value: booked}]
      - user_input: Thanks
        assertions: [{type: not_contains, value: sorry}, {type: contains, value: welcome}]
      - user_input: Bye
        assertions: [{type: contains, value: goodbye}]
"""


def test_a_missing_turn_reads_as_one_and_is_counted_as_its_assertions(tmp_path: Path) -> None:
    record = chat(("Book a table", "booked, sorry"))
    got = reports(tmp_path, "three.yaml", THREE_TURNS, record, code=3)  # errors only
    text = got["text"]
    assert "turn  " not in text.split("the failing case")[0]  # no row named after a turn
    assert (
        "    ERROR turns[1] turn: the case has turn 2 but the transcript has only 1 user turn"
        in text
    )
    assert (
        "      ERROR not_contains at turns[1].assertions[0]: not checked: the transcript has no"
        " user turn 2" in text
    )
    assert "  contains       33.3% passed  (1/3, 2 errors)" in text
    assert "  not_contains        — passed  (0/0" not in text
    assert "  not_contains    0.0% passed  (0/1, 1 error)" in text
    [case] = [row for row in got["rows"] if "result" in row]
    # the case's counts, the table's and the tree's agree: one error per assertion not checked
    assert case["result"]["details"] == {"passed": 1, "failed": 0, "error": 3, "skipped": 0}
    assert case["result"]["reason"].startswith("3 assertions could not be evaluated; first:")
    missing = case["result"]["children"][1]
    assert [c["spec_path"] for c in missing["children"]] == [
        "test_cases[0].turns[1].assertions[0]",
        "test_cases[0].turns[1].assertions[1]",
    ]


# -- counts and their words ------------------------------------------------------------------


def test_counts_agree_with_their_words_and_have_thousands_separators() -> None:
    summary = Summary(keep=20)
    case = loads_suite("- {type: contains, value: x}\n").cases[0]
    failing = case.check(Turn(input="q", text="y"))
    leaf = Contains("x", message="judge").check("y").replace(status=Status.ERROR)
    erroring = Result(Status.ERROR, "case", "broken", children=(leaf,))
    for _ in range(11):
        summary.add(Outcome("s", "c", failing, "log:1"))
    summary.add(Outcome("s", "e", erroring, "log:2"))
    for _ in range(1200):
        summary.count("s", "p", "passed", [("contains", "passed")])
    text = render_text(summary, max_failures=3)
    assert "the first 3 of 12 failing cases:" in text
    assert "  contains   99.1% passed  (1,200/1,211, 11 failed)" in text
    assert "  judge       0.0% passed  (0/1, 1 error)" in text
    assert text.endswith("1,212 checked: 1,200 passed, 11 failed, 1 error, 0 skipped")
    one = Summary()
    one.add(Outcome("s", "c", failing, "log:1"))
    one.add_unreadable("log:2", "not JSON")
    text = render_text(one)
    assert "the failing case:" in text
    assert text.endswith(
        "1 checked: 0 passed, 1 failed, 0 errors, 0 skipped; 1 unreadable log line"
    )


def test_the_json_line_of_a_placed_tree_is_its_dict() -> None:
    # the compact writer remembers node texts: two checks alike but for their place differ
    suite = loads_suite("- {type: contains, value: a}\n- {type: contains, value: a}\n")
    result = suite.cases[0].check(Conversation(turns=[Turn(input="q", text="a")]))
    outcome = Outcome("s", "c", result, "log:1")
    for _ in range(2):
        line = json.loads(report_line(outcome))
        assert line == json.loads(json.dumps(outcome.to_dict(compact=True)))
        assert [c["spec_path"] for c in line["result"]["children"]] == ["[0]", "[1]"]
