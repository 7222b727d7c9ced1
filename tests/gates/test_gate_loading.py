"""Loading `gates:` of a native suite: every shape the docs give, and every bad one refused in
one error that places each problem at its `file:line` and says the fix; the editor schema and
`lint` agree with the loader.

Docs: docs/specs.md ("Gates"). Source: src/chatassert/_gates.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from gates_helpers import run, suite

from chatassert import SpecError
from chatassert._gates import Gate, closest_first, load_gates
from chatassert._registry import SpecContext
from chatassert._schemas import dialect_schema
from chatassert.specs import load_suite, loads_suite, parse_yaml


def test_every_shape_loads_as_its_gate_placed_in_the_file() -> None:
    loaded = loads_suite(
        suite(
            "{assertion: refund_policy, pass_rate: {min: 0.95, confidence: 0.95}}",
            "{max_drop: {assertion: tone, by: 0.02}}",
            "{assertion: tone, max_drop: {by: 0}}",
            "{pass_rate: {min: 0.9}}",
            "{pass_rate: {min: 1, assertion: tone}}",
        ),
        filename="suite.yaml",
    )
    assert loaded.gates == (
        Gate("pass_rate", "refund_policy", min=0.95, confidence=0.95, suite="refunds",
             spec_path="gates[0]"),
        Gate("max_drop", "tone", by=0.02, suite="refunds", spec_path="gates[1]"),
        Gate("max_drop", "tone", by=0, suite="refunds", spec_path="gates[2]"),
        Gate("pass_rate", min=0.9, suite="refunds", spec_path="gates[3]"),
        Gate("pass_rate", "tone", min=1, suite="refunds", spec_path="gates[4]"),
    )  # fmt: skip


def test_a_gate_spells_back_as_the_file_writes_it() -> None:
    loaded = loads_suite(
        suite(
            "{assertion: refund_policy, pass_rate: {min: 0.95, confidence: 0.9}}",
            "{max_drop: {by: 0.02, assertion: tone}}",
            "{pass_rate: {min: 0.5}}",
        )
    )
    again = loads_suite(
        suite(*(json.dumps(g.as_spec()) for g in loaded.gates))  # JSON is flow YAML
    )
    assert again.gates == loaded.gates


def test_a_suite_without_gates_has_none_and_other_dialects_take_no_gates_key() -> None:
    assert loads_suite("chatassert: 1\nassertions: [{type: contains, value: x}]").gates == ()
    with pytest.raises(SpecError, match="gates"):  # a flat file has no such key
        loads_suite(
            "turns: [{user_input: hi, assertions: [{type: contains, value: x}]}]\ngates: []"
        )


BAD = [
    ("3", "gates[0]: a gate must be a mapping", "a mapping such as"),
    ("{pass_rate: 0.9}", "gates[0].pass_rate: 'pass_rate' must be a mapping", "{min: 0.95}"),
    ("{assertion: tone}", "gates[0]: a gate needs a test: 'pass_rate' or 'max_drop'", "add"),
    (
        "{pass_rate: {min: 0.5}, max_drop: {by: 0.1}}",
        "gates[0]: a gate makes one test, and this one has both 'pass_rate' and 'max_drop'",
        "each test as a gate of its own",
    ),
    ("{pass_rate: {mn: 0.5}}", "gates[0].pass_rate.mn: unknown key 'mn'", "did you mean 'min'"),
    ("{pass_rate: {}}", "gates[0].pass_rate: a pass_rate gate needs 'min'", "add 'min: 0.95'"),
    ("{max_drop: {}}", "gates[0].max_drop: a max_drop gate needs 'by'", "add 'by: 0.02'"),
    ("{pass_rate: {min: 1.5}}", "gates[0].pass_rate.min: pass_rate 'min' must be from 0 to 1", ""),
    ("{pass_rate: {min: -0.1}}", "'min' must be from 0 to 1", "0.95 for 95%"),
    ("{pass_rate: {min: '95%'}}", "gates[0].pass_rate.min: pass_rate 'min' must be a number", ""),
    ("{pass_rate: {min: true}}", "'min' must be a number", ""),
    ("{pass_rate: {min: .nan}}", "'min' must be a finite number", ""),
    ("{pass_rate: {min: 0.9, confidence: 1}}", "'confidence' must be between 0 and 1", ""),
    ("{pass_rate: {min: 0.9, confidence: 0}}", "'confidence' must be between 0 and 1", ""),
    ("{max_drop: {by: 2}}", "gates[0].max_drop.by: max_drop 'by' must be from 0 to 1", ""),
    ("{max_drop: {by: 0.1, confidence: 0.9}}", "unknown key 'confidence' in a max_drop gate", ""),
    ("{pass_rat: {min: 0.9}}", "gates[0].pass_rat: unknown key 'pass_rat' in a gate", "did you"),
    (
        "{assertion: tone, max_drop: {by: 0.1, assertion: tone}}",
        "gates[0].max_drop.assertion: the gate names its assertion twice",
        "keep one 'assertion:'",
    ),
    ("{assertion: '', pass_rate: {min: 0.9}}", "gates[0].assertion: 'assertion' must be", ""),
    ("{assertion: [tone], pass_rate: {min: 0.9}}", "'assertion' must be the name of one", ""),
]


@pytest.mark.parametrize(("gate", "message", "fix"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_gate_is_refused_at_its_line_with_the_fix(gate: str, message: str, fix: str) -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(suite("{pass_rate: {min: 0.5}}", gate), filename="suite.yaml")
    text = str(caught.value).replace("gates[1]", "gates[0]")
    assert message in text
    assert fix in text
    line = 11 if gate == "3" else 12  # the second gate's line (a scalar has none: its list's)
    assert {p.line for p in caught.value.problems} == {line}
    assert all(p.file == "suite.yaml" for p in caught.value.problems)


def test_every_problem_of_the_gates_is_listed_at_once() -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(
            suite("{pass_rate: {min: 2}}", "{max_drop: {}}", "{assertion: refund_polcy, "
                  "pass_rate: {min: 0.5}}"),
            filename="suite.yaml",
        )  # fmt: skip
    lines = [f"{p.line} {p.path}" for p in caught.value.problems]
    assert lines == ["11 gates[0].pass_rate.min", "12 gates[1].max_drop", "13 gates[2]"]


def test_gates_is_a_list() -> None:
    with pytest.raises(SpecError, match=r"suite.yaml:10: gates: 'gates' must be a list"):
        loads_suite(suite("x").replace("gates:\n  - x", "gates: {min: 1}"), filename="suite.yaml")


def test_an_assertion_the_suite_lacks_is_refused_naming_its_assertions_closest_first() -> None:
    with pytest.raises(SpecError) as caught:
        loads_suite(suite("{max_drop: {assertion: tones, by: 0.1}}"), filename="suite.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.path) == (11, "gates[0]")
    assert "the gate names the assertion 'tones', which the suite does not have" in str(problem)
    assert "closest first: 'tone', 'refund_policy'" in str(problem)


def test_an_assertion_is_named_by_its_message_else_its_type_as_written() -> None:
    text = suite("{assertion: contains, pass_rate: {min: 0.5}}").replace(
        "{type: contains, value: refund, message: refund_policy}", "{type: contains, value: x}"
    )
    assert loads_suite(text).gates[0].assertion == "contains"
    with pytest.raises(SpecError, match="'not_contains'"):  # it has a message: 'tone'
        loads_suite(suite("{assertion: not_contains, pass_rate: {min: 0.5}}"))


def test_suite_wide_assertions_and_whole_conversation_checks_can_be_gated() -> None:
    text = suite("{assertion: polite, pass_rate: {min: 0.5}}", "{assertion: last, "
                 "pass_rate: {min: 0.5}}")  # fmt: skip
    text += "assertions: [{type: not_contains, value: idiot, message: polite}]\n\n"
    text = text.replace(
        "          - {type: not_contains, value: sorry, message: tone}\n",
        "          - {type: not_contains, value: sorry, message: tone}\n"
        "    assertions: [{type: on_last_turn, message: last, "
        "assertion: {type: contains, value: x}}]\n",
    )
    assert [g.assertion for g in loads_suite(text).gates] == ["polite", "last"]


def test_a_gate_of_a_case_with_problems_is_not_refused_for_its_name() -> None:
    # the case's own problem is the one to fix: its assertions did not load to be named
    text = suite("{assertion: refund_policy, pass_rate: {min: 0.5}}").replace(
        "value: refund,", "valu: refund,"
    )
    with pytest.raises(SpecError) as caught:
        loads_suite(text)
    paths = [p.path for p in caught.value.problems]
    assert "cases[0].turns[0].assertions[0].valu" in paths
    assert not [p for p in paths if p.startswith("gates")]


def test_a_json_suite_places_its_gate_problems_at_their_lines(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(parse_yaml(suite("{pass_rate: {min: 0.5}}"))))
    doc["gates"].append({"max_drop": {"by": "two"}})
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_suite(path)
    (problem,) = caught.value.problems
    assert problem.path == "gates[1].max_drop.by"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert problem.line is not None
    assert '"by": "two"' in lines[problem.line - 1]


def test_gate_objects_refuse_what_the_loader_refuses() -> None:
    for bad in (
        lambda: Gate("pass_rate"),
        lambda: Gate("pass_rate", min=1.2),
        lambda: Gate("pass_rate", min=0.5, by=0.1),
        lambda: Gate("max_drop", by=0.1, confidence=0.9),
        lambda: Gate("most", min=0.5),
        lambda: Gate("pass_rate", min=0.5, confidence=1.0),
    ):
        with pytest.raises(ValueError):
            bad()


def test_closest_first_orders_by_likeness_and_keeps_ties_in_order() -> None:
    assert closest_first("refund", ["tone", "refund_policy", "refunded"])[:2] == [
        "refunded",
        "refund_policy",
    ]
    assert closest_first("zzz", ["a", "b"]) == ["a", "b"]


def test_loading_gates_without_cases_names_none_known() -> None:
    ctx = SpecContext(file="s.yaml")
    assert load_gates({"gates": [{"assertion": "x", "pass_rate": {"min": 0.5}}]}, [], ctx) == ()
    assert "the suite has no assertions" in str(ctx.problems[0])


# -- the editor schema and lint agree with the loader ------------------------------------------


def _schema_errors(text: str) -> list[str]:
    validator = jsonschema.Draft7Validator(dialect_schema("native", plugins=False))
    return [e.message for e in validator.iter_errors(json.loads(json.dumps(parse_yaml(text))))]


@pytest.mark.parametrize(
    "gate",
    [
        "{assertion: refund_policy, pass_rate: {min: 0.95, confidence: 0.95}}",
        "{max_drop: {assertion: tone, by: 0.02}}",
        "{assertion: tone, max_drop: {by: 0.02}}",
        "{pass_rate: {min: 0.9}}",
    ],
)
def test_the_schema_accepts_every_shape_the_loader_loads(gate: str) -> None:
    loads_suite(suite(gate))
    assert _schema_errors(suite(gate)) == []


@pytest.mark.parametrize(
    "gate",
    [b[0] for b in BAD if not any(x in b[0] for x in ("''", ".nan", "true"))],
)
def test_the_schema_refuses_every_shape_the_loader_refuses(gate: str) -> None:
    assert _schema_errors(suite(gate)) != []


def test_lint_counts_the_gates_and_lists_their_problems(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(suite("{pass_rate: {min: 0.9}}"), encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(suite("{pass_rate: {min: 9}}"), encoding="utf-8")
    code, out, err = run(tmp_path, "lint", "good.yaml")
    assert (code, out) == (0, "good.yaml: ok (native, 1 case, 2 assertions, 1 gate)\n")
    code, out, err = run(tmp_path, "lint", "bad.yaml")
    assert code == 2
    assert "bad.yaml:11: gates[0].pass_rate.min: pass_rate 'min' must be from 0 to 1" in err
