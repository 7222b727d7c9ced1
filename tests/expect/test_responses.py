"""Tests of chatassert._responses (docs/expect.md, "Multi-step tests" and "The model that
answered"): `no_overlap` against given values and against what an earlier step stored, and
`agent_used_model` against the model a logged response carries.

The decision-table rows (whole records, see `expect_decisions`), construction errors and
descriptions, then the values stored by earlier steps and the model matching rule.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from expect_decisions import SEARCH, E, F, P, err, row, table_tests

from chatassert import Conversation, Status, Turn
from chatassert._responses import NotLogged, model_matches, stored_values
from chatassert.expect import AgentUsedModel, NoOverlap, OneOf, StatusIs

PAGE_2 = {"results": [{"file": "notes/c.md"}, {"file": "journal/2026/01/review.md"}]}
HAIKU = "claude-3-5-haiku-20241022"


def logged(model: Any, data: Any = None) -> Turn:
    """A response as the command line hands it over: a turn whose metadata has the model."""
    return Turn(data=SEARCH if data is None else data, metadata={"model": model})


ROWS = [
    row(
        "values-pass",
        lambda: NoOverlap("results[*].file", values=["notes/x.md", "notes/y.md"]),
        SEARCH,
        P,
        "results[*].file includes none of 'notes/x.md', 'notes/y.md'",
        {"path": "results[*].file", "expected": {"values": ["notes/x.md", "notes/y.md"]},
         "checked": 3},
    ),
    row(
        "values-overlap",
        lambda: NoOverlap(
            "results[*].file", values=["people/alice.md", "journal/2026/01/review.md"]
        ),
        SEARCH,
        F,
        "Value 'journal/2026/01/review.md' at results[1].file is also in the values given"
        " (and 1 more)",
        {
            "path": "results[1].file",
            "expected": {"values": ["people/alice.md", "journal/2026/01/review.md"]},
            "actual": "journal/2026/01/review.md",
            "index": 1,
            "offending": [
                {"path": "results[1].file", "actual": "journal/2026/01/review.md", "index": 1},
                {"path": "results[2].file", "actual": "people/alice.md", "index": 2},
            ],
            "offending_count": 2,
            "checked": 3,
            "overlap": ["journal/2026/01/review.md", "people/alice.md"],
        },
    ),
    row(
        "values-zero-values-pass",
        lambda: NoOverlap("results[*].file", values=["a.md"]),
        {"results": []},
        P,
        "results[*].file includes none of 'a.md'",
        {"path": "results[*].file", "expected": {"values": ["a.md"]}, "checked": 0},
    ),
    row(
        "values-single-field-missing",
        lambda: NoOverlap("pagination.cursor", values=["abc"]),
        SEARCH,
        F,
        "Missing field: pagination.cursor",
        {"path": "pagination.cursor", "expected": {"values": ["abc"]}, "actual": None,
         "missing": True},
    ),
    row(
        "values-array-gives-its-items",
        lambda: NoOverlap("sensitive_dirs_skipped", values=["documents/"]),
        SEARCH,
        F,
        "Value 'documents/' at sensitive_dirs_skipped[0] is also in the values given",
        {
            "path": "sensitive_dirs_skipped[0]",
            "expected": {"values": ["documents/"]},
            "actual": "documents/",
            "offending": [{"path": "sensitive_dirs_skipped[0]", "actual": "documents/"}],
            "offending_count": 1,
            "checked": 1,
            "overlap": ["documents/"],
        },
    ),
    row(
        "values-strict-json-equality-1-is-1.0",
        lambda: NoOverlap("pagination.total", values=[3.0]),
        SEARCH,
        F,
        "Value 3 at pagination.total is also in the values given",
        {
            "path": "pagination.total",
            "expected": {"values": [3.0]},
            "actual": 3,
            "offending": [{"path": "pagination.total", "actual": 3}],
            "offending_count": 1,
            "checked": 1,
            "overlap": [3],
        },
    ),
    row(
        "values-strict-json-equality-3-is-not-'3'-or-true",
        lambda: NoOverlap("pagination.total", values=["3", True]),
        SEARCH,
        P,
        "pagination.total includes none of '3', true",
        {"path": "pagination.total", "expected": {"values": ["3", True]}, "checked": 1},
    ),
    row(
        "values-objects-compare-in-full",
        lambda: NoOverlap("results[*].metadata", values=[{"created": "2026-01-31T23:30:00"}]),
        SEARCH,
        F,
        "Value {\"created\": \"2026-01-31T23:30:00\"} at results[2].metadata is also in the "
        "values given",
        {
            "path": "results[2].metadata",
            "expected": {"values": [{"created": "2026-01-31T23:30:00"}]},
            "actual": {"created": "2026-01-31T23:30:00"},
            "index": 2,
            "offending": [
                {"path": "results[2].metadata", "actual": {"created": "2026-01-31T23:30:00"},
                 "index": 2}
            ],
            "offending_count": 1,
            "checked": 3,
            "overlap": [{"created": "2026-01-31T23:30:00"}],
        },
    ),
    row(
        "values-not-json",
        lambda: NoOverlap("results[*].file", values=["a.md"]),
        "not json",
        E,
        "the response is not JSON (Expecting value: line 1 column 1 (char 0))",
        {"error": "not_json"},
    ),
    row(
        "with-outside-a-step-errors",
        lambda: NoOverlap("results[*].file", stored="page1"),
        SEARCH,
        E,
        "no value is stored as 'page1': 'with' names what an earlier step of a multi_step "
        "test stored (store: page1)",
        {"path": "results[*].file", "with": "page1", "error": "not_stored"},
    ),
    row(
        "model-family-pass",
        lambda: AgentUsedModel("haiku"),
        logged(HAIKU),
        P,
        f"the response came from {HAIKU!r}",
        {"expected": "haiku", "actual": HAIKU},
    ),
    row(
        "model-other-family-fails",
        lambda: AgentUsedModel("haiku"),
        logged("claude-sonnet-4-5"),
        F,
        "Expected model 'haiku', got 'claude-sonnet-4-5'",
        {"expected": "haiku", "actual": "claude-sonnet-4-5"},
    ),
    row(
        "model-exact-id-pass",
        lambda: AgentUsedModel("claude-sonnet-4-5"),
        logged("claude-sonnet-4-5"),
        P,
        "the response came from 'claude-sonnet-4-5'",
        {"expected": "claude-sonnet-4-5", "actual": "claude-sonnet-4-5"},
    ),
    row(
        "model-a-response-alone-errors",
        lambda: AgentUsedModel("haiku"),
        SEARCH,
        E,
        "the response was logged without the model that produced it: log it beside the "
        'response ({"id": ..., "model": "...", "response": {...}}), or check a Turn whose '
        "metadata has 'model'",
        {"expected": "haiku", "actual": None, "error": "no_model"},
    ),
    row(
        "model-the-response's-own-field-is-not-the-model",
        lambda: AgentUsedModel("haiku"),
        {"status": "success", "model": "haiku"},
        E,
        "the response was logged without the model that produced it: log it beside the "
        'response ({"id": ..., "model": "...", "response": {...}}), or check a Turn whose '
        "metadata has 'model'",
        {"expected": "haiku", "actual": None, "error": "no_model"},
    ),
    row(
        "model-turn-without-model-errors",
        lambda: AgentUsedModel("haiku"),
        Turn(data=SEARCH),
        E,
        "the response was logged without the model that produced it: log it beside the "
        'response ({"id": ..., "model": "...", "response": {...}}), or check a Turn whose '
        "metadata has 'model'",
        {"expected": "haiku", "actual": None, "error": "no_model"},
    ),
    row(
        "model-not-a-string-errors",
        lambda: AgentUsedModel("haiku"),
        logged({"name": "haiku"}),
        E,
        "the model in the turn's metadata is not a model id ({\"name\": \"haiku\"})",
        {"expected": "haiku", "actual": {"name": "haiku"}, "error": "not_a_model"},
    ),
    row(
        "model-of-a-conversation-is-its-last-turn's",
        lambda: AgentUsedModel("sonnet"),
        Conversation(
            turns=[
                Turn(input="a", text="x", metadata={"model": "claude-sonnet-4-5"}),
                Turn(input="b", text="y", metadata={"model": HAIKU}),
            ]
        ),
        F,
        f"Expected model 'sonnet', got {HAIKU!r}",
        {"expected": "sonnet", "actual": HAIKU},
    ),
]  # fmt: skip

ERRORS = [
    err(
        "neither-with-nor-values",
        lambda: NoOverlap("results[*].file"),
        ValueError,
        "no_overlap needs exactly one of 'with' (the name an earlier step stored) or 'values' "
        "(a list)",
    ),
    err(
        "both-with-and-values",
        lambda: NoOverlap("results[*].file", stored="p", values=["a"]),
        ValueError,
        "no_overlap needs exactly one of 'with' (the name an earlier step stored) or 'values' "
        "(a list)",
    ),
    err(
        "empty-values",
        lambda: NoOverlap("results[*].file", values=[]),
        ValueError,
        "no_overlap 'values' must be a non-empty list",
    ),
    err(
        "empty-with",
        lambda: NoOverlap("results[*].file", stored=""),
        ValueError,
        "no_overlap with must not be empty",
    ),
    err(
        "model-not-a-string",
        lambda: AgentUsedModel(3),  # type: ignore[arg-type]
        TypeError,
        "agent_used_model must be a string, got int 3",
    ),
    err(
        "model-of-punctuation-only",
        lambda: AgentUsedModel("--"),
        ValueError,
        "agent_used_model must name a model, got '--'",
    ),
]

DESCRIPTIONS = [
    pytest.param(
        lambda: NoOverlap("results[*].file", stored="page1_files"),
        "results[*].file shares no value with what was stored as 'page1_files'",
        id="with",
    ),
    pytest.param(
        lambda: NoOverlap("results[*].file", values="a.md"),
        "results[*].file includes none of 'a.md'",
        id="one-value",
    ),
    pytest.param(
        lambda: AgentUsedModel("haiku"), "the response came from model 'haiku'", id="model"
    ),
]

(
    test_a_check_decides_the_documented_record,
    test_a_bad_parameter_is_rejected_when_the_check_is_built,
    test_a_check_describes_its_requirement,
) = table_tests(ROWS, ERRORS, DESCRIPTIONS)


# -- what earlier steps stored ---------------------------------------------------------------

PAGE_1 = {"results": [{"file": "journal/2026/01/review.md"}, {"file": "notes/a.md"}]}


def test_with_compares_the_same_path_in_the_stored_response() -> None:
    check = NoOverlap("results[*].file", stored="page1_files")
    with stored_values({"page1_files": (1, PAGE_1)}):
        overlap = check.check(PAGE_2)
        apart = check.check({"results": [{"file": "notes/c.md"}]})
    assert overlap.status is F
    assert overlap.reason == (
        "Value 'journal/2026/01/review.md' at results[1].file is also in what step 1 stored as "
        "'page1_files'"
    )
    assert overlap.details["overlap"] == ["journal/2026/01/review.md"]
    assert overlap.details["expected"] == {"with": "page1_files"}
    assert apart.status is P
    assert apart.details["checked"] == 1


def test_the_stored_values_are_read_when_checked_not_when_built() -> None:
    check = NoOverlap("results[*].file", stored="page1_files")
    with stored_values({"page1_files": (1, PAGE_1)}):
        assert check.check(PAGE_2).status is F
    with stored_values({"page1_files": (1, {"results": [{"file": "x.md"}]})}):
        assert check.check(PAGE_2).status is P
    assert check.check(PAGE_2).status is E  # outside any step: nothing is stored


def test_a_stored_step_without_a_response_is_an_error_naming_the_step() -> None:
    check = NoOverlap("results[*].file", stored="page1_files")
    with stored_values({"page1_files": (1, NotLogged(1))}):
        result = check.check(PAGE_2)
    assert result.status is E
    assert result.reason == "step 1, which stores 'page1_files', has no response in the log"
    assert result.details == {
        "path": "results[*].file",
        "with": "page1_files",
        "error": "stored_step_missing",
        "step": 1,
    }


def test_a_stored_response_without_the_field_or_not_json_is_an_error() -> None:
    single = NoOverlap("pagination.cursor", stored="first")
    with stored_values({"first": (2, {"results": []})}):
        result = single.check({"pagination": {"cursor": "abc"}})
    assert result.status is E
    assert result.reason == "the response step 2 stored as 'first' has no field pagination.cursor"
    with stored_values({"first": (2, "<html>")}):
        result = NoOverlap("results[*].file", stored="first").check(PAGE_2)
    assert result.status is E
    assert result.details["error"] == "not_json"


def test_an_empty_stored_page_overlaps_with_nothing() -> None:
    check = NoOverlap("results[*].file", stored="first")
    with stored_values({"first": (1, {"results": []})}):
        result = check.check(PAGE_2)
    assert result.status is P
    assert result.details["checked"] == 2


def test_a_stored_turn_gives_its_data() -> None:
    check = NoOverlap("results[*].file", stored="first")
    with stored_values({"first": (1, logged(HAIKU, PAGE_1))}):
        assert check.check(logged(HAIKU, PAGE_2)).status is F


def test_no_overlap_nested_in_one_of_sees_the_stored_values() -> None:
    check = OneOf(StatusIs("error"), NoOverlap("results[*].file", stored="first"))
    with stored_values({"first": (1, PAGE_1)}):
        assert check.check({"status": "success", **PAGE_2}).status is F
        assert check.check({"status": "success", "results": []}).status is P


def test_acheck_sees_the_stored_values_too() -> None:
    check = NoOverlap("results[*].file", stored="first")

    async def run() -> Status:
        with stored_values({"first": (1, PAGE_1)}):
            return (await check.acheck(PAGE_2)).status

    assert asyncio.run(run()) is F


# -- the model that answered -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "model", "matches"),
    [
        ("haiku", "claude-3-5-haiku-20241022", True),
        ("haiku", "anthropic.claude-3-5-haiku-20241022-v1:0", True),
        ("Haiku", "claude-haiku-4-5", True),  # case is ignored
        ("claude-sonnet-4", "claude-sonnet-4-20250514", True),
        ("claude-sonnet-4", "claude-sonnet-4-5", True),  # a family name: documented
        ("sonnet", "claude-haiku-4-5", False),
        ("sonnet", "sonnet2", False),  # a segment, not a substring
        ("claude-haiku", "claude-3-5-haiku", False),  # segments must be adjacent
        ("4-5", "claude-sonnet-4-5", True),
        ("gpt-4o", "gpt-4o-mini", True),
        ("gpt-4o-mini", "gpt-4o", False),
        ("haiku", "", False),
    ],
)
def test_a_model_is_named_by_a_run_of_its_segments(
    expected: str, model: str, matches: bool
) -> None:
    assert model_matches(expected, model) is matches


def test_agent_used_model_reads_the_record_in_one_of_but_not_under_a_condition() -> None:
    from chatassert.expect import IfResults
    from chatassert.specs import loads_suite

    (case,) = loads_suite(
        '{"one_of": [{"agent_used_model": "sonnet"}, {"agent_used_model": "haiku"}],'
        ' "if_results": {"agent_used_model": "haiku"}}'
    ).cases
    result = case.check(logged(HAIKU))
    assert [r.status for r in result.children] == [P, E]  # documented: docs/expect.md
    assert result.children[1].reason.startswith("the response was logged without the model")
    assert IfResults(AgentUsedModel("haiku")).check(logged(HAIKU)).status is E
