"""The result tree: serialisation, its JSON Schema, immutability, rendering, locations."""

from __future__ import annotations

import asyncio
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from chatassert import (
    AllOf,
    AtLeast,
    Contains,
    ContainsFunctionCall,
    Conversation,
    NotContains,
    OnEveryTurn,
    OnTurn,
    Result,
    Status,
    Turn,
    When,
)
from chatassert._result import shorten

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


def tree() -> Result:
    return Result(
        F,
        "all_of",
        "1 of 3 failed",
        {"passed": 1, "failed": 1, "error": 0, "skipped": 1},
        message="books politely",
        children=(
            Result(P, "contains", "", {"expected": "table", "missing": []}, location="turns[0]"),
            Result(
                F,
                "contains",
                "Response does not contain 'x'",
                {"missing": ["x"]},
                location="turns[1]",
                score=0.0,
                duration=0.001,
            ),
            Result(S, "when", "condition not met", None),
        ),
    )


# -- to_dict / from_dict ----------------------------------------------------------------------


def test_round_trip_through_json() -> None:
    original = tree()
    data = json.loads(json.dumps(original.to_dict()))
    assert Result.from_dict(data) == original
    assert Result.from_dict(data).to_dict() == original.to_dict()


def test_defaults_are_left_out_of_to_dict() -> None:
    assert Result(P, "contains").to_dict() == {
        "status": "passed",
        "name": "contains",
        "reason": "",
        "details": {},
    }


def test_results_of_real_checks_round_trip(booking_turn: Turn) -> None:
    check = Contains("confirmed") & ~ContainsFunctionCall("cancel") & NotContains("sorry")
    result = check.check(booking_turn)
    again = Result.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result
    assert again.duration == result.duration


def test_from_dict_rejects_what_is_not_a_result() -> None:
    with pytest.raises(ValueError, match="not a result"):
        Result.from_dict({"name": "x"})
    with pytest.raises(ValueError, match="not a result"):
        Result.from_dict({"status": "maybe", "name": "x"})


def test_equality_ignores_duration_but_not_other_fields() -> None:
    a = Result(P, "x", duration=1.0)
    assert a == Result(P, "x", duration=2.0)
    assert a != Result(P, "x", location="turns[0]")
    assert a != Result(F, "x")


# -- the JSON Schema --------------------------------------------------------------------------


def conforms(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    """A small structural validator for the subset of JSON Schema the result schema uses."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return conforms(value, root["$defs"][name], root)
    if "anyOf" in schema:
        tries = [conforms(value, option, root) for option in schema["anyOf"]]
        return [] if [] in tries else [f"{value!r} matches none of {schema['anyOf']}"]
    problems: list[str] = []
    kind = schema.get("type")
    if kind not in (None, "object", "array", "string", "number", "integer"):
        return [f"the schema names no JSON type {kind!r}"]
    checks = {"object": dict, "array": list, "string": str}
    if kind in checks and not isinstance(value, checks[kind]):
        return [f"{value!r} is not {kind}"]
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, int | float)):
        return [f"{value!r} is not a number"]
    if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
        return [f"{value!r} is not an integer"]
    if kind == "array" and not schema.get("minItems", 0) <= len(value) <= schema.get(
        "maxItems", len(value)
    ):
        problems.append(f"{value!r} has too few or too many items")
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{value!r} < {schema['minimum']}")
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{value!r} not in {schema['enum']}")
    if kind == "object":
        props = schema.get("properties", {})
        problems += [f"missing {k}" for k in schema.get("required", []) if k not in value]
        if schema.get("additionalProperties") is False:
            problems += [f"unexpected {k}" for k in value if k not in props]
        for key, item in value.items():
            if key in props:
                problems += conforms(item, props[key], root)
    if kind == "array" and "items" in schema:
        for item in value:
            problems += conforms(item, schema["items"], root)
    return problems


def test_to_dict_output_conforms_to_the_schema() -> None:
    schema = Result.json_schema()
    data = tree().to_dict()
    assert conforms(data, schema, schema) == []


def test_the_validator_catches_a_bad_document() -> None:
    schema = Result.json_schema()
    bad = tree().to_dict()
    bad["children"][1]["status"] = "maybe"
    bad["children"][0]["extra"] = 1
    del bad["reason"]
    assert len(conforms(bad, schema, schema)) == 3


GOLDEN_SCHEMA = Path(__file__).parent / "golden" / "result.schema.json"


def test_the_schema_is_the_published_one() -> None:
    # docs/offline.md: `chatassert schema result` prints the schema of a result tree, written as
    # `json.dumps(schema, indent=2)`; the golden file is that output. A change to the published
    # schema must be deliberate: regenerate the file with `chatassert schema result`.
    published = json.dumps(Result.json_schema(), indent=2) + "\n"
    assert published == GOLDEN_SCHEMA.read_text(encoding="utf-8")


def real_results() -> list[Result]:
    """Results of real checks, covering every status, a location, a message, a duration."""
    chat = Conversation(turns=[Turn(text="booked for 4"), Turn(text="see you")])
    check = AllOf(
        OnTurn(0, Contains("booked")),  # passed, at turns[0]
        OnTurn(0, When(Contains("refund"), Contains("days"))),  # skipped: no refund talk
        OnTurn(5, Contains("x")),  # error: no such turn
        OnEveryTurn(NotContains("see")),  # failed at turns[1]
        message="books politely",
    )
    whole = check.check(chat)
    scored = asyncio.run(AtLeast(1, Contains("booked"), Contains("no")).acheck("booked"))
    odd = Result(F, "judge", "no", {"seen": float("inf")}, score=float("nan"), duration=0.0)
    return [whole, scored, odd, *(Result(s, "x") for s in (P, F, E, S))]


def test_real_results_of_every_status_conform_to_the_published_schema() -> None:
    schema = json.loads(GOLDEN_SCHEMA.read_text(encoding="utf-8"))
    results = real_results()
    seen = {node.status for r in results for _, node in r.walk()}
    assert seen == {P, F, E, S}
    for result in results:
        data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
        assert conforms(data, schema, schema) == [], result.render(verbose=True)
    assert results[1].to_dict()["score"] == 0.5  # AtLeast scores the share that passed
    assert results[1].to_dict()["duration"] >= 0


def test_the_validator_checks_the_score_alternatives_and_the_json_types() -> None:
    schema = Result.json_schema()
    assert (
        conforms(
            {"status": "failed", "name": "x", "reason": "", "details": {}, "score": "NaN"},
            schema,
            schema,
        )
        == []
    )
    for bad in ("nan", "high", True, None):
        record = {"status": "failed", "name": "x", "reason": "", "details": {}, "score": bad}
        assert len(conforms(record, schema, schema)) == 1, bad
    assert conforms(1, {"type": "strnig"}, schema) == ["the schema names no JSON type 'strnig'"]


def test_the_schema_is_json_and_names_every_field() -> None:
    schema = json.loads(json.dumps(Result.json_schema()))
    props = schema["$defs"]["result"]["properties"]
    assert set(props) == set(Result._FIELDS)
    assert props["status"]["enum"] == ["passed", "failed", "error", "skipped"]


# -- immutability -----------------------------------------------------------------------------


def test_results_are_immutable() -> None:
    result = tree()
    with pytest.raises(AttributeError, match="immutable"):
        result.status = P  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del result.reason


def test_replace_makes_a_changed_copy() -> None:
    result = tree()
    copy = result.replace(status=P, reason="fine")
    assert (copy.status, copy.reason, result.status) == (P, "fine", F)
    assert copy.children == result.children
    with pytest.raises(TypeError, match="no field"):
        result.replace(colour="red")


def test_results_are_picklable_and_unhashable() -> None:
    assert pickle.loads(pickle.dumps(tree())) == tree()
    with pytest.raises(TypeError):
        hash(tree())


def test_passed_is_only_for_passed() -> None:
    assert [Result(s, "x").passed for s in (P, F, E, S)] == [True, False, False, False]


# -- rendering --------------------------------------------------------------------------------


def test_render_shows_only_the_failing_branches() -> None:
    text = tree().render()
    assert text.splitlines() == [
        "FAIL books politely [all_of]: 1 of 3 failed",
        "  FAIL turns[1] contains: Response does not contain 'x'",
        "  SKIP when: condition not met",
    ]


def test_render_verbose_shows_everything() -> None:
    lines = tree().render(verbose=True).splitlines()
    assert len(lines) == 4
    assert lines[1] == "  PASS turns[0] contains"


def test_render_truncates_long_lines_in_the_middle() -> None:
    text = Result(F, "contains", "x" * 500).render(width=60)
    assert len(text) == 60
    assert "…" in text


def test_str_renders() -> None:
    assert str(tree()) == tree().render()


# -- traversal and locations ------------------------------------------------------------------


def test_full_location_joins_keys_and_indexes() -> None:
    a = Result(F, "a", location="turns[2]")
    b = Result(F, "b", location="results[0]")
    c = Result(F, "c", location="[3]")
    leaf = Result(F, "leaf", location="file")
    assert leaf.full_location((a, b, c)) == "turns[2].results[0][3].file"
    assert leaf.full_location((Result(P, "no location"),)) == "file"
    assert Result(F, "x").full_location(()) == ""


def test_walk_leaves_and_failures() -> None:
    result = tree()
    assert [r.name for _, r in result.walk()] == ["all_of", "contains", "contains", "when"]
    assert [len(ancestors) for ancestors, _ in result.walk()] == [0, 1, 1, 1]
    assert [r.location for r in result.failures()] == ["turns[1]"]


def test_selector_locations_join_with_inner_locations() -> None:
    chat = Conversation(turns=[Turn(text="booked"), Turn(text="sorry")])
    result = OnEveryTurn(Contains("booked")).check(chat)
    paths = [
        node.full_location(ancestors)
        for ancestors, node in result.walk()
        if node.status is F and not node.children
    ]
    assert paths == ["turns[1]"]


def test_failures_name_the_node_that_explains_them_even_without_a_failing_leaf() -> None:
    from chatassert import Contains

    result = (Contains("a") & ~Contains("b")).check("a b")
    (explained,) = result.failures()
    assert explained.name == "not"
    assert explained.reason.startswith("expected not contains 'b', but it held")


# -- shared outcomes ----------------------------------------------------------------------------


def test_constant_outcomes_are_shared_and_placing_them_copies() -> None:
    from chatassert import Contains
    from chatassert.specs import Case

    check = Contains("booked", message="says booked")
    first, second = check.check("booked"), check.check("Booked!")
    assert first is second  # built once, at construction, with the message
    assert first.message == "says booked"

    chat = Conversation(turns=[Turn(text="booked"), Turn(text="booked")])
    placed = OnEveryTurn(check).check(chat)
    assert [c.location for c in placed.children] == ["turns[0]", "turns[1]"]
    assert first.location is None  # the shared record was copied, not changed

    case = Case("whole", checks=(check,))
    one_turn = Conversation(turns=[Turn(text="booked")])
    assert case.check(one_turn).children[0].location == "conversation"
    assert first.location is None
    assert first.duration is None


def test_failures_naming_a_subset_are_remembered_per_subset() -> None:
    from chatassert.flat import ContainsAll

    check = ContainsAll(["date", "time", "size"])
    a, b = check.check("the date"), check.check("a DATE")
    assert a is b
    assert a.details["missing"] == ["time", "size"]
    c = check.check("date and time")
    assert c is not a
    assert c.details["missing"] == ["size"]


def test_a_shared_result_survives_a_message_from_a_wrapping_assertion() -> None:
    from chatassert import Contains, OnTurn

    inner = Contains("x")
    shared = inner.check("x")
    wrapped = OnTurn(0, inner, message="first turn").check(Conversation(turns=[Turn(text="x")]))
    assert wrapped.message == "first turn"
    assert shared.message is None
    assert shared.location is None


def test_the_details_of_a_shared_result_cannot_be_changed_by_one_holder() -> None:
    check = Contains("refund")
    result = check.check("nothing")
    with pytest.raises(TypeError, match="read-only"):
        result.details["injected"] = True  # type: ignore[index]
    assert "injected" not in check.check("other").details
    assert json.loads(json.dumps(result.details)) == dict(result.details)
    assert pickle.loads(pickle.dumps(result)) == result


def test_rendering_shows_control_characters_from_a_subject_instead_of_obeying_them() -> None:
    result = Result(F, "contains", "got '\x1b[2J\nFAKE: PASS all'")
    (line,) = result.render().splitlines()
    assert line == "FAIL contains: got '\\x1b[2J\\nFAKE: PASS all'"


def test_a_deep_tree_keeps_each_line_mark_and_label() -> None:
    from chatassert import AllOf

    check: Any = Contains("zz")
    for _ in range(120):  # deeper than the line is wide
        check = AllOf(check)
    last = check.check("hello").render().splitlines()[-1]
    assert last.strip().startswith("FAIL contains: Response does not contain 'zz'")
    assert len(last) <= 200


@pytest.mark.parametrize(
    ("score", "written"),
    [(float("inf"), "Infinity"), (float("-inf"), "-Infinity"), (float("nan"), "NaN")],
)
def test_a_non_finite_score_still_makes_strict_json(score: float, written: str) -> None:
    import math

    result = Result(Status.FAILED, "x", "no", {"seen": [1.5, score]}, score=score)
    text = json.dumps(result.to_dict(), allow_nan=False)  # raises on NaN or Infinity
    data = json.loads(text)
    assert data["score"] == written
    assert data["details"] == {"seen": [1.5, written]}
    back = Result.from_dict(data).score
    assert back is not None
    assert (math.isnan(back) and math.isnan(score)) or back == score


def test_a_json_report_line_is_strict_json() -> None:
    from chatassert.reporting import json_line

    line = json_line({"subject": {"latency": float("nan")}, "ok": [1, 2]})
    assert json.loads(line, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}")) == {
        "subject": {"latency": "NaN"},
        "ok": [1, 2],
    }


# -- survivors of mutation testing (docs/internals/mutation.md), each pinned to its documented rule


def test_from_dict_fills_missing_fields_with_their_defaults_and_takes_the_rest_as_given() -> None:
    # the `from_dict` docstring: only status and name are required; the rest is not validated
    bare = Result.from_dict({"status": "failed", "name": "x"})
    assert bare == Result(F, "x")
    assert bare.to_dict() == {"status": "failed", "name": "x", "reason": "", "details": {}}
    odd = Result.from_dict({"status": "failed", "name": "x", "score": "high"})
    assert odd.score == "high"  # type: ignore[comparison-overlap]


def test_leaves_are_the_results_without_children_in_order() -> None:
    inner = Result(F, "any_of", children=(Result(F, "a"), Result(F, "b")))
    result = Result(F, "all_of", children=(inner, Result(P, "c")))
    assert [r.name for r in result.leaves()] == ["a", "b", "c"]
    assert [r.name for r in tree().leaves()] == ["contains", "contains", "when"]


def test_repr_names_status_label_location_and_reason() -> None:
    assert repr(Result(F, "contains", "no")) == "<Result failed contains: 'no'>"
    placed = Result(F, "contains", "no", message="greets", location="turns[1]")
    assert repr(placed) == "<Result failed greets at turns[1]: 'no'>"


def test_render_fits_200_characters_by_default_but_keeps_40_of_text() -> None:
    # the `render` docstring
    long = Result(F, "contains", "x" * 500)
    assert len(long.render()) == 200
    assert len(long.render(width=10)) == 40
    deep = Result(F, "leaf", "no")
    for _ in range(25):
        deep = Result(F, "all_of", children=(deep,))
    lines = deep.render(width=10).splitlines()
    assert [len(line) - len(line.lstrip()) for line in lines[19:23]] == [38, 40, 40, 40]
    assert lines[-1] == " " * 40 + "FAIL leaf: no"


def test_render_verbose_expands_every_level() -> None:
    nested = Result(P, "all_of", children=(Result(P, "any_of", children=(Result(P, "a"),)),))
    assert nested.render(verbose=True).splitlines() == [
        "PASS all_of",
        "  PASS any_of",
        "    PASS a",
    ]
    assert nested.render().splitlines() == ["PASS all_of"]


def test_shorten_keeps_80_characters_by_default_two_thirds_from_the_start() -> None:
    text = "a" * 60 + "b" * 60
    assert shorten(text) == "a" * 53 + "…" + "b" * 26
    assert shorten("a" * 80) == "a" * 80


def test_the_immutability_errors_say_what_to_do_instead() -> None:
    result = Contains("refund").check("nothing")
    with pytest.raises(
        TypeError,
        match=r"^the details of a shared result are read-only; copy them with dict\(\)$",
    ):
        result.details.clear()  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match=r"^Result is immutable$"):
        del result.reason
    with pytest.raises(
        AttributeError, match=r"^Result is immutable; use result.replace\(name=...\)"
    ):
        result.name = "other"  # type: ignore[misc]
