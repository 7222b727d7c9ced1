"""Suite files collected as tests: one item per case and logged conversation."""

from __future__ import annotations

import json

import pytest

SUITE = """\
test_cases:
  - name: books a table
    tags: [booking]
    turns:
      - user_input: "Book a table for 4 on Saturday"
        assertions:
          - type: contains_function_call
            value: create_reservation
            arguments: {party_size: 4}
          - type: contains
            value: confirmed
  - name: declines past dates
    turns:
      - user_input: "Can I book for last Tuesday?"
        assertions:
          - type: contains_any
            value: ["past", "already passed"]
"""


def chat(record_id: str, user: str, reply: str, calls: list[tuple[str, dict]] = ()) -> str:
    assistant: list[dict] = []
    if calls:
        assistant.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                    for i, (name, args) in enumerate(calls)
                ],
            }
        )
    assistant.append({"role": "assistant", "content": reply})
    messages = [{"role": "user", "content": user}, *assistant]
    return json.dumps({"id": record_id, "messages": messages})


GOOD = chat(
    "books a table",
    "Book a table for 4 on Saturday",
    "Your table is confirmed for Saturday.",
    [("create_reservation", {"party_size": 4})],
)
BAD = chat(
    "books a table",
    "Book a table for 4 on Saturday",
    "Sorry, something went wrong.",
    [("create_reservation", {"party_size": 2})],
)
PAST = chat("run-9", "Can I book for last Tuesday?", "That date has already passed.")


@pytest.fixture
def strict(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    return pytester


def test_each_case_and_conversation_is_an_item_with_its_own_outcome(
    strict: pytest.Pytester,
) -> None:
    strict.makefile(".chatassert.yaml", booking=SUITE)
    strict.makefile(".jsonl", booking="\n".join([GOOD, BAD, PAST]))
    listed = strict.runpytest("--collect-only", "-q")
    listed.stdout.fnmatch_lines(
        [
            "booking.chatassert.yaml::books a table[[]booking.jsonl:1]",
            "booking.chatassert.yaml::books a table[[]booking.jsonl:2]",
            "booking.chatassert.yaml::declines past dates[[]booking.jsonl:3]",
        ]
    )
    result = strict.runpytest("-rf")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ books a table[[]booking.jsonl:2] _*",  # the node id's own name
            "case 'books a table' against booking.jsonl:2",
            "books a table did not pass",
            "FAIL books a table [[]case]: 2 assertions failed; first: *",
            "  FAIL turns[[]0] turn: 2 of 2 failed",
            "    FAIL contains_function_call at turns[[]0].assertions[[]0]: tool"
            " 'create_reservation' was called with party_size=2, expected 4",
            "    FAIL contains at turns[[]0].assertions[[]1]:"
            " Response does not contain 'confirmed'",
            "subject: conversation of 1 turn (id 'books a table'); last turn: input 'Book a table"
            " for 4 on Saturday'; text 'Sorry, something went wrong.'; calls"
            " create_reservation(party_size=2)",
            "FAILED booking.chatassert.yaml::books a table[[]booking.jsonl:2]*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_items_carry_the_marker_and_the_case_tags(strict: pytest.Pytester) -> None:
    strict.makefile(".chatassert.yaml", tables=SUITE)
    strict.makefile(".jsonl", tables="\n".join([GOOD, PAST]))
    strict.makepyfile("def test_other():\n    pass\n")
    strict.runpytest("-m", "chatassert").assert_outcomes(passed=2, deselected=1)
    strict.runpytest("-k", "booking and not other").assert_outcomes(passed=1, deselected=2)


def test_unreadable_and_unmatched_lines_and_unexercised_cases_fail(
    strict: pytest.Pytester,
) -> None:
    stranger = chat("nobody", "What's the weather?", "Sunny.")
    strict.makefile(".chatassert.yaml", booking=SUITE)
    strict.makefile(".jsonl", booking="\n".join([GOOD, "{oops", stranger]))
    result = strict.runpytest()
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines_random(
        [
            "booking.jsonl:2: cannot be read: line is not JSON*",
            "booking.jsonl:3: no case of 'booking' matches conversation 'nobody': its id"
            " 'nobody' is no case's id or name;*name its case in the record's 'case' field*",
            "case 'declines past dates' was checked against no conversation of booking.jsonl;*",
        ]
    )


def test_a_suite_without_a_transcript_is_a_collection_error_saying_where_to_put_it(
    strict: pytest.Pytester,
) -> None:
    strict.makefile(".chatassert.yaml", booking=SUITE)
    result = strict.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "booking.chatassert.yaml: no transcript to check; put the logged conversations in"
            " booking.jsonl (one JSON record per line) next to it"
        ]
    )


def test_a_bad_spec_is_a_collection_error_listing_its_problems(strict: pytest.Pytester) -> None:
    strict.makefile(
        ".chatassert.yaml",
        booking="turns:\n  - user_input: hi\n    assertions:\n      - type: contain\n"
        "        value: x\n",
    )
    strict.makefile(".jsonl", booking=PAST)
    result = strict.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["1 problem in spec:", "*booking.chatassert.yaml:4*contains*"])


def test_the_suite_glob_is_configurable(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nfilterwarnings = error\nchatassert_suites = *.agent.yaml\n")
    pytester.makefile(".agent.yaml", booking=SUITE)
    pytester.makefile(".chatassert.yaml", ignored=SUITE)
    pytester.makefile(".jsonl", booking="\n".join([GOOD, PAST]))
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["booking.agent.yaml::books a table[[]booking.jsonl:1]"])
    assert "ignored" not in result.stdout.str()


def test_the_report_records_every_check_of_the_session(strict: pytest.Pytester) -> None:
    strict.makefile(".chatassert.yaml", booking=SUITE)
    strict.makefile(".jsonl", booking="\n".join([BAD, PAST]))
    strict.makepyfile(
        """
        from chatassert import Contains
        from chatassert.testing import assert_passes, passes

        def test_reply():
            assert_passes(Contains("hello"), "Hello there")
            assert "Bye" == passes(Contains("bye"))
        """
    )
    result = strict.runpytest("--chatassert-report", "out/report.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["chatassert: report: out/report.json"])
    report = json.loads((strict.path / "out" / "report.json").read_text())
    assert report["summary"] == {"checks": 4, "passed": 3, "failed": 1, "error": 0, "skipped": 0}
    by_kind = {(c["kind"], c["test"]): c for c in report["checks"]}
    suite_check = by_kind[("suite", "booking.chatassert.yaml::books a table[booking.jsonl:1]")]
    assert suite_check["case"] == "books a table"
    assert suite_check["source"] == "booking.jsonl:1"
    assert suite_check["result"]["status"] == "failed"
    assert suite_check["result"]["children"][0]["location"] == "turns[0]"
    reply_check = by_kind[
        ("assert_passes", "test_the_report_records_every_check_of_the_session.py::test_reply")
    ]
    assert reply_check["subject"] == "text 'Hello there'"
    assert ("passes", reply_check["test"]) in by_kind


def test_a_report_holds_checks_whose_details_carry_the_subjects_own_values(
    strict: pytest.Pytester,
) -> None:
    strict.makepyfile(
        """
        import datetime as dt
        from chatassert import FieldEquals
        from chatassert.testing import assert_passes

        def test_when():
            assert_passes(FieldEquals({"when": "2024-01-02"}), {"when": dt.date(2024, 1, 1)})
        """
    )
    result = strict.runpytest("--chatassert-report", "report.json")
    result.assert_outcomes(failed=1)
    report = json.loads((strict.path / "report.json").read_text())
    assert report["summary"]["failed"] == 1
    assert report["checks"][0]["result"]["details"]["actual"] == "datetime.date(2024, 1, 1)"


def test_a_suite_glob_with_a_folder_matches_from_the_root(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nfilterwarnings = error\nchatassert_suites = evals/*.flat.yaml\n")
    evals = pytester.mkdir("evals")
    (evals / "booking.flat.yaml").write_text(SUITE)
    (evals / "booking.jsonl").write_text(GOOD + "\n")
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["evals/booking.flat.yaml::books a table[[]booking.jsonl:1]"])


def test_a_suite_file_that_is_not_utf8_is_a_clean_collection_error(
    strict: pytest.Pytester,
) -> None:
    (strict.path / "booking.chatassert.yaml").write_bytes(b"turns: \xff\n")
    strict.makefile(".jsonl", booking=GOOD)
    result = strict.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the file is not UTF-8 (byte 0xff at position 7)*"])
    assert "Traceback" not in result.stdout.str()


def test_a_case_name_with_a_double_colon_still_makes_a_runnable_node_id(
    strict: pytest.Pytester,
) -> None:
    strict.makefile(".chatassert.yaml", booking=SUITE.replace("books a table", "refund::happy"))
    strict.makefile(".jsonl", booking=GOOD.replace("books a table", "refund::happy"))
    collected = strict.runpytest("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["booking.chatassert.yaml::refund:happy[[]booking.jsonl:1]"])
    result = strict.runpytest("booking.chatassert.yaml::refund:happy[booking.jsonl:1]")
    result.assert_outcomes(passed=1)


# -- what a failure says: its reason in -ra, its place in the spec, its header ---------------

ONLY_TEXT_WRONG = chat(
    "books a table",
    "Book a table for 4 on Saturday",
    "Sorry, something went wrong.",
    [("create_reservation", {"party_size": 4})],
)


@pytest.fixture
def wide(strict: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("COLUMNS", "240")  # -ra lines are cut to the terminal's width
    return strict


def test_the_short_summary_gives_the_reason_and_the_failure_ends_at_the_spec_line(
    wide: pytest.Pytester,
) -> None:
    wide.makefile(".chatassert.yaml", booking=SUITE)
    wide.makefile(".jsonl", booking="\n".join([BAD, ONLY_TEXT_WRONG, PAST]))
    result = wide.runpytest("-ra", "--junitxml=junit.xml")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ books a table[[]booking.jsonl:1] _*",
            # both assertions failed: the first one's line (7), and how many more
            "booking.chatassert.yaml:7: contains_function_call: tool 'create_reservation' was"
            " called with party_size=2, expected 4 (at turns[[]0], and 1 more)",
            "*_ books a table[[]booking.jsonl:2] _*",
            # only the second assertion of the turn failed: its line (10)
            "booking.chatassert.yaml:10: contains: Response does not contain 'confirmed'"
            " (at turns[[]0])",
            "FAILED booking.chatassert.yaml::books a table[[]booking.jsonl:1] - "
            "contains_function_call: tool 'create_reservation' was called with party_size=2,"
            " expected 4 (at turns[[]0], and 1 more)",
            "FAILED booking.chatassert.yaml::books a table[[]booking.jsonl:2] - "
            "contains: Response does not contain 'confirmed' (at turns[[]0])",
        ]
    )
    junit = (wide.path / "junit.xml").read_text()
    assert "message=\"contains: Response does not contain 'confirmed' (at turns[0])\"" in junit


def test_an_item_is_placed_at_its_case_in_the_spec(wide: pytest.Pytester) -> None:
    wide.makefile(".chatassert.yaml", booking=SUITE)
    wide.makefile(".jsonl", booking="\n".join([GOOD, PAST]))
    items = wide.getitems(wide.path / "booking.chatassert.yaml")
    assert [(i.name, i.location[1]) for i in items] == [
        ("books a table[booking.jsonl:1]", 1),  # 0-based: `- name: books a table`, line 2
        ("declines past dates[booking.jsonl:2]", 11),
    ]
    assert [i.location[2] for i in items] == [i.nodeid.split("::", 1)[1] for i in items]


def test_a_python_test_s_short_summary_gives_the_failing_reason(wide: pytest.Pytester) -> None:
    wide.makepyfile(
        """
        from chatassert import Contains
        from chatassert.testing import assert_passes

        def test_reply():
            assert_passes(Contains("refund"), "No.")
        """
    )
    result = wide.runpytest("-ra")
    result.stdout.fnmatch_lines(
        [
            "FAILED test_a_python_test_s_short_summary_gives_the_failing_reason.py::test_reply - "
            "contains: Response does not contain 'refund'"
        ]
    )


JUDGED = """\
test_cases:
  - name: polite
    turns:
      - user_input: "Hello"
        assertions:
          - type: llm_rubric
            value: is polite
"""
HELLO = chat("polite", "Hello", "Hi! How can I help?")


@pytest.mark.parametrize(
    ("how", "outcome"),
    [
        (["--chatassert-judge", "fake:pass"], "passed"),
        (["--chatassert-judge", "fake:fail"], "failed"),
        (["-o", "chatassert_judge=fake:pass"], "passed"),
        (["-o", "chatassert_judge=fake:fail"], "failed"),
        # the option wins over the ini file
        (["-o", "chatassert_judge=fake:fail", "--chatassert-judge", "fake:pass"], "passed"),
    ],
)
def test_judged_checks_of_suite_files_use_the_fake_judge_from_configuration(
    wide: pytest.Pytester, how: list[str], outcome: str
) -> None:
    wide.makefile(".chatassert.yaml", polite=JUDGED)
    wide.makefile(".jsonl", polite=HELLO)
    result = wide.runpytest("-ra", *how)
    result.assert_outcomes(**{outcome: 1})
    if outcome == "failed":
        result.stdout.fnmatch_lines(["FAILED * - llm_rubric: does not meet the criteria*"])


def test_the_ini_file_s_fake_judge_is_also_the_fixture_s(wide: pytest.Pytester) -> None:
    wide.makeini("[pytest]\nfilterwarnings = error\nchatassert_judge = fake:fail\n")
    wide.makepyfile(
        """
        from chatassert import LLMRubric

        def test_judge(chatassert_judge):
            result = LLMRubric("is polite", judge=chatassert_judge).check("Hi")
            assert result.status.value == "failed"
        """
    )
    result = wide.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["chatassert: judge: fake:fail"])


def test_an_unknown_judge_in_the_ini_file_is_a_usage_error(wide: pytest.Pytester) -> None:
    wide.makefile(".chatassert.yaml", polite=JUDGED)
    wide.makefile(".jsonl", polite=HELLO)
    result = wide.runpytest("-o", "chatassert_judge=fake:maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*ini option chatassert_judge: unknown judge 'fake:maybe'; the fake judges are"
            " fake:pass and fake:fail"
        ]
    )


def test_a_failing_whole_conversation_check_ends_at_its_line_in_the_case(
    wide: pytest.Pytester,
) -> None:
    wide.makefile(
        ".chatassert.yaml",
        booking="""\
chatassert: 1
cases:
  - name: books a table
    assertions:
      - type: on_every_turn
        assertion: {type: not_contains, value: sorry}
      - type: on_last_turn
        assertion: {type: contains, value: confirmed}
""",
    )
    wide.makefile(".jsonl", booking=ONLY_TEXT_WRONG)
    result = wide.runpytest("-ra")
    result.assert_outcomes(failed=1)
    # both whole-conversation checks failed: the first one's line (5), and how many more
    result.stdout.fnmatch_lines(
        ["booking.chatassert.yaml:5: not_contains: Response should not contain 'sorry' *"]
    )
