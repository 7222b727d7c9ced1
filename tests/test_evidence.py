"""Located evidence: the JSON Pointer, span and excerpt of leaf failures, and their rendering."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from chatassert import (
    AllOf,
    Contains,
    Conversation,
    Equals,
    Matches,
    NotContains,
    OnEveryTurn,
    OnTurn,
    Result,
    Status,
    Turn,
)
from chatassert.promptkit import ContentMatches
from chatassert.reporting import Outcome, Summary
from chatassert.reporting._html import render_html
from chatassert.reporting._json import report_line

FILLER = "x" * 100


def _chat(*texts: str) -> Conversation:
    return Conversation(turns=[Turn(text=t) for t in texts])


def test_not_contains_failure_points_at_the_first_named_value_in_the_text() -> None:
    text = FILLER + "Sorry, an Internal Error occurred"
    r = NotContains("internal error").check(text)
    assert (r.pointer, r.span) == ("/text", (110, 124))
    assert text[110:124] == "Internal Error"
    offset, window = r.excerpt or (0, "")
    assert offset == 70
    assert window == text[70:]


def test_not_contains_of_many_values_spans_the_value_its_reason_names() -> None:
    r = NotContains(["refund", "sorry"]).check("Sorry, no refund today")
    assert r.reason == "Response should not contain 'refund'"
    assert r.span == (10, 16)


def test_shared_failures_stay_unlocated_after_a_located_copy() -> None:
    check = NotContains("bad")
    first = check.check("a bad day")
    second = check.check("bad")
    assert (first.span, second.span) == ((2, 5), (0, 3))
    assert check._fail.span is None  # the shared record itself is untouched


def test_a_lowering_that_changes_length_maps_back_to_the_original_text() -> None:
    text = "İİ then forbidden"
    r = NotContains("forbidden").check(text)
    assert r.span is not None
    assert text[r.span[0] : r.span[1]] == "forbidden"


def test_contains_and_matches_failures_point_at_the_text_without_a_span() -> None:
    for check in (Contains("paris"), Matches(r"\d+")):
        r = check.check("no city here")
        assert (r.status, r.pointer, r.span) == (Status.FAILED, "/text", None)


def test_passes_of_the_substring_checks_carry_no_evidence() -> None:
    assert NotContains("bad").check("good").pointer is None
    assert Contains("good").check("good").pointer is None


def test_equals_spans_from_the_first_difference_to_the_end() -> None:
    r = Equals("Thank you. Goodbye!").check("  Thank you. Bye!\n")
    assert r.span == (13, 17)  # the text stripped: "Bye!", not the newline after it


def test_content_matches_pass_records_the_span_found() -> None:
    r = ContentMatches(r"\d{3}-\d{4}").check("Call 555-1234 now")
    assert (r.passed, r.pointer, r.span) == (True, "/text", (5, 13))


def test_a_selector_prefixes_the_pointer_with_the_turn() -> None:
    chat = _chat("fine", "an internal error here")
    r = OnEveryTurn(NotContains("internal error")).check(chat)
    leaf = r.failures()[0]
    assert (leaf.location, leaf.pointer, leaf.span) == ("turns[1]", "/turns/1/text", (3, 17))
    assert OnTurn(-1, Contains("zzz")).check(chat).children[0].pointer == "/turns/1/text"


def test_a_selector_prefixes_pointers_nested_under_a_combinator() -> None:
    chat = _chat("ok", "internal error")
    r = OnEveryTurn(AllOf(NotContains("internal error"), Contains("zzz"))).check(chat)
    pointers = [leaf.pointer for leaf in r.failures()]
    assert pointers == ["/turns/0/text", "/turns/1/text", "/turns/1/text"]


def test_evidence_round_trips_through_to_dict() -> None:
    r = OnEveryTurn(NotContains("bad")).check(_chat("a bad day"))
    data = json.loads(json.dumps(r.to_dict()))
    leaf = data["children"][0]
    assert leaf["pointer"] == "/turns/0/text"
    assert leaf["span"] == [2, 5]
    assert leaf["excerpt"] == {"offset": 0, "text": "a bad day"}
    assert Result.from_dict(data) == r


def test_the_text_renderer_marks_the_span() -> None:
    r = OnEveryTurn(NotContains("bad")).check(_chat("fine", "a bad day"))
    assert r.render().splitlines()[-1] == "    at /turns/1/text 2-5: a [[bad]] day"


def test_a_cut_excerpt_says_so() -> None:
    r = NotContains("bad").check(FILLER + " bad")
    assert r.evidence().endswith(": …" + "x" * 39 + " [[bad]]")


def test_the_compact_json_line_keeps_the_evidence_of_failures_only() -> None:
    for text in ("a bad day", "so bad"):  # the same shared failure, two spans
        outcome = Outcome("s", "c", NotContains("bad").check(text), "log:1")
        line = json.loads(report_line(outcome))
        assert line["result"]["span"] == [text.index("bad"), text.index("bad") + 3]
    passing = json.loads(report_line(Outcome("s", "c", ContentMatches("a").check("a"), "l")))
    assert "pointer" not in passing["result"]


def test_the_html_report_marks_the_span_escaped() -> None:
    summary = Summary()
    summary.add(Outcome("s", "c", NotContains("<b>").check("x <b>&</b> y"), "log:1"))
    page = render_html(summary)
    assert "<b>" not in page
    data = json.loads(page.split('id="ca-data">')[1].split("</script>")[0])
    leaf = data["rows"][0][4][2]["tree"]
    assert leaf["p"] == "/text"
    assert leaf["sp"] == [2, 5]
    assert leaf["mk"] == ["x ", "<b>", "&</b> y"]  # the page's script marks the middle one


def test_the_pytest_failure_shows_the_marked_excerpt(tmp_path: Path) -> None:
    test = tmp_path / "test_located.py"
    test.write_text(
        textwrap.dedent(
            """
            from chatassert import NotContains, OnEveryTurn, Conversation, Turn
            from chatassert.testing import assert_passes

            def test_it():
                chat = Conversation(turns=[Turn(text="Sorry, an internal error.")])
                assert_passes(OnEveryTurn(NotContains("internal error")), chat)
            """
        ),
        encoding="utf-8",
    )
    src = str(Path(__file__).parents[1] / "src")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert run.returncode == 1
    assert "at /turns/0/text 10-24: Sorry, an [[internal error]]." in run.stdout


def test_a_case_places_the_evidence_of_its_turn_checks_under_their_turn() -> None:
    """A suite case checks its turn i against the conversation's user turn: the pointer says
    which turn of the conversation, as a selector's does."""
    from chatassert.specs import loads_suite

    suite = loads_suite(
        "test_cases:\n"
        "  - name: t\n"
        "    turns:\n"
        "      - user_input: hi\n"
        "        assertions: [{type: contains, value: hello}]\n"
        "      - user_input: more\n"
        "        assertions: [{type: not_contains, value: internal error}]\n"
    )
    chat = Conversation(
        turns=[
            Turn(input="hi", text="hello"),
            Turn(text="(a turn without user input)"),
            Turn(input="more", text="Sorry, an internal error occurred"),
        ]
    )
    result = suite.cases[0].check(chat)
    (leaf,) = [node for _, node in result.walk() if node.pointer is not None]
    assert (leaf.name, leaf.pointer, leaf.span) == ("not_contains", "/turns/2/text", (10, 24))


# -- every leaf failure points into its subject --------------------------------------------


def test_every_kind_points_its_failures_into_the_subject() -> None:
    """Each registered kind, on the subject its contract case fails: every leaf that did not
    pass carries a JSON Pointer that resolves in the subject's JSON form."""
    from test_contract import CASES, build

    unlocated = []
    for kind, case in CASES.items():
        result = build(case, passing=False).check(case.bad)
        bad = case.bad
        subject = bad if isinstance(bad, dict) else bad.model_dump(mode="json", warnings=False)  # type: ignore[attr-defined]
        for _, leaf in result.walk():
            if leaf.children or leaf.status is Status.PASSED:
                continue
            if leaf.pointer is None or not _resolves(subject, leaf.pointer):
                unlocated.append((kind, leaf.name, leaf.pointer))
    assert not unlocated


def _resolves(document: object, pointer: str) -> bool:
    """Whether an RFC 6901 pointer names a place in `document` (a missing field's place counts
    when its parent exists: the evidence of 'missing field' is where it should be)."""
    node = document
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, dict):
            if part not in node:
                return last
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def test_a_policy_failure_points_at_the_offending_call_of_its_turn() -> None:
    from chatassert import ToolCall
    from chatassert.policies import ToolBefore

    chat = Conversation(
        turns=[
            Turn(tool_calls=[ToolCall(name="search", arguments={})]),
            Turn(tool_calls=[ToolCall(name="search", arguments={}), ToolCall(name="pay")]),
        ]
    )
    result = ToolBefore("authorize", "pay").check(chat)
    assert (result.status, result.pointer) == (Status.FAILED, "/turns/1/tool_calls/1")


def test_a_json_failure_points_at_the_offending_value() -> None:
    from chatassert.specs import loads_suite

    expect = {"all_match_pattern": {"path": "results[*].file", "regex": "^j/"}}
    suite = json.dumps([{"id": "t", "expect": expect}])
    case = loads_suite(suite, filename="t.expect.json").cases[0]
    result = case.check({"results": [{"file": "j/a"}, {"file": "x/b"}]})
    (leaf,) = result.failures()
    assert leaf.pointer == "/results/1/file"


def test_a_missing_field_points_where_it_should_be() -> None:
    from chatassert import from_spec

    check = from_spec({"type": "expect_has_fields", "value": ["pagination.total"]})
    assert check.check({"pagination": {}}).pointer == "/pagination/total"


def test_a_usage_limit_points_at_the_fact_it_read() -> None:
    from chatassert.usage import LatencyAtMost

    result = LatencyAtMost(100).check(Turn(text="ok", metadata={"latency_ms": 250}))
    assert result.pointer == "/metadata/latency_ms"


def test_forbidden_content_of_a_conversation_is_marked_in_its_turn() -> None:
    from chatassert.promptkit import ConversationContentNotIncludes

    result = ConversationContentNotIncludes(["refund"]).check(_chat("Hello", "No refund today"))
    assert (result.pointer, result.span, result.evidence()) == (
        "/turns/1/text",
        (3, 9),
        "at /turns/1/text 3-9: No [[refund]] today",
    )


def test_an_ungrounded_claim_is_marked_in_the_response() -> None:
    from chatassert.policies import GroundedInToolResults

    result = GroundedInToolResults().check(Turn(text="Your total is 42 EUR."))
    assert (result.status, result.pointer, result.span) == (Status.FAILED, "/text", (14, 16))


def test_the_default_pointer_of_a_conversation_check_is_its_turns() -> None:
    from chatassert.promptkit import ConversationToolsCalled

    result = ConversationToolsCalled(["pay"]).check(_chat("Hi"))
    assert (result.status, result.pointer) == (Status.FAILED, "/turns")


def test_a_shared_failure_is_copied_to_carry_its_pointer() -> None:
    from chatassert import ContainsFunctionCall

    check = ContainsFunctionCall("pay")
    first, second = check.check(Turn(text="a")), check.check(Turn(text="b"))
    assert first.pointer == second.pointer == "/tool_calls"
    assert check.check(Turn(text="c")).pointer == "/tool_calls"
