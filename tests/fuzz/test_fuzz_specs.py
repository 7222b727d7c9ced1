"""Fuzzing the spec loaders: every dialect's real shape, mutated, through the real YAML loader.

The contract under test: loading text (or a file) returns a `Suite` or raises one `SpecError`
that lists its problems; nothing else escapes, nothing runs for long, and no lone surrogate
(which no report could write as UTF-8) reaches a loaded suite. Every case of a loaded suite
checks realistic subjects and returns a result tree that renders and serialises.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st
from subjects import JUDGE, SUBJECTS

from chatassert import Result, SpecError, from_spec
from chatassert._gates import evaluate_gates, gate_of
from chatassert.records import Row
from chatassert.reporting import assertion_statuses, json_line
from chatassert.specs import Suite, load_suite, loads_suite


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= char <= "\udfff" for char in text)


def load(text: str, filename: str | None = None) -> Suite | None:
    """Load spec text; a `SpecError` is a fine outcome, any other exception a finding."""
    try:
        return loads_suite(text, filename=filename, judge=JUDGE)
    except SpecError as exc:
        check_spec_error(exc)
        return None


def check_spec_error(exc: SpecError) -> None:
    """A `SpecError` lists at least one problem, and it can be printed."""
    assert exc.problems, "a SpecError lists its problems"
    assert all(problem.message for problem in exc.problems)
    assert str(exc).startswith(f"{len(exc.problems)} problem")


def exercise(suite: Suite, *, round_trip: bool = False) -> None:
    """Check every case of a loaded suite against realistic subjects, then decide its gates
    over those outcomes."""
    outcomes: list[tuple[str, list[tuple[str, str]]]] = []
    for case in suite.cases:
        texts = [case.name, case.input, case.description, *case.tags]
        texts += [turn.input for turn in case.turns]
        for assertion in case.assertions():
            spec = assertion.as_spec()
            texts += list(_strings(spec))
            if round_trip:
                assert from_spec(spec, judge=JUDGE) == assertion, spec
        bad = [t for t in texts if isinstance(t, str) and _has_surrogate(t)]
        assert not bad, f"a lone surrogate reached the loaded suite: {bad[0]!r}"
        for subject in SUBJECTS[case.subject]:
            result = case.check(subject)
            assert isinstance(result, Result)
            result.render(verbose=True)
            json_line(result.to_dict())
            outcomes.append(
                (result.status.value, [(n, s.value) for n, s in assertion_statuses(result)])
            )
    if suite.gates:  # decided over the outcomes, rendered, and read back from a report line
        rows = [
            Row("case", "fuzz", suite.name, "c", status, assertions=tuple(a))
            for status, a in outcomes
        ]
        for gate, decided in zip(suite.gates, evaluate_gates(suite.gates, rows), strict=True):
            decided.render(verbose=True)
            line = json.loads(json_line({"gate": decided.to_dict(), "suite": gate.suite}))
            assert gate_of(line) == gate


def load_and_exercise(text: str, *, round_trip: bool = False) -> None:
    suite = load(text, filename="fuzz.yaml")
    if suite is not None:
        exercise(suite, round_trip=round_trip)


@st.composite
def written(draw: st.DrawFn, documents: st.SearchStrategy[Any]) -> str:
    """A document of `documents`, written as block YAML, JSON or flow YAML."""
    return draw(specgen.texts(draw(documents)))


@given(written(specgen.flat_documents()))
@fuzz_target("spec.flat")
def test_flat_specs_load_or_fail_with_a_spec_error(text: str) -> None:
    load_and_exercise(text)


@given(written(specgen.promptkit_documents()))
@fuzz_target("spec.promptkit")
def test_promptkit_scenarios_load_or_fail_with_a_spec_error(text: str) -> None:
    load_and_exercise(text)


@given(written(specgen.expect_documents()))
@fuzz_target("spec.expect")
def test_expect_suites_load_or_fail_with_a_spec_error(text: str) -> None:
    load_and_exercise(text)


@given(written(specgen.native_documents()))
@fuzz_target("spec.native")
def test_native_suites_load_or_fail_and_round_trip(text: str) -> None:
    load_and_exercise(text, round_trip=True)


@given(written(specgen.gated_documents()))
@fuzz_target("spec.gates")
def test_suite_gates_load_or_fail_and_are_decided_over_the_outcomes(text: str) -> None:
    suite = load(text, filename="fuzz.yaml")
    if suite is not None:
        exercise(suite, round_trip=True)


@given(specgen.mutated(specgen.documents()), st.booleans())
@fuzz_target("spec.mutated")
def test_mutated_specs_of_every_dialect_fail_cleanly(doc: Any, escape_odd: bool) -> None:
    load_and_exercise(specgen.to_flow_yaml(doc, escape_odd=escape_odd))


_SHAPE_KEYS = (
    "type",
    "value",
    "params",
    "turns",
    "test_cases",
    "assertions",
    "chatassert",
    "apiVersion",
    "kind",
    "spec",
    "expect",
    "test_suites",
    "tests",
    "cases",
    "conversation_assertions",
    "steps",
)


def yaml_nodes() -> st.SearchStrategy[Any]:
    """Any YAML tree whose keys are the words dialect detection looks for."""
    leaf = st.one_of(
        specgen.json_scalars(),
        specgen.tagged(),
        specgen.raw_scalars(),
        st.sampled_from(["contains", "Scenario", "promptkit.altairalabs.ai/v1alpha1"]),
    )
    key = st.one_of(st.sampled_from(_SHAPE_KEYS), specgen.json_scalars())
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(st.tuples(key, inner), max_size=4).map(
                lambda pairs: specgen.Pairs(tuple(pairs))
            ),
            specgen.deep(None).map(lambda n: specgen.Nested(n.depth, [], n.mapping)),
        ),
        max_leaves=12,
    )


@given(st.one_of(yaml_nodes(), specgen.alias_bombs()), st.booleans())
@fuzz_target("spec.yaml_nodes")
def test_any_yaml_tree_loads_or_fails_with_a_spec_error(doc: Any, escape_odd: bool) -> None:
    load_and_exercise(specgen.to_flow_yaml(doc, escape_odd=escape_odd))


@st.composite
def edited_text(draw: st.DrawFn) -> str:
    """A real spec's text, edited as a careless hand would: characters in, out, lines moved."""
    doc = draw(specgen.documents())
    try:
        text = specgen.to_block_yaml(doc)
    except (ValueError, UnicodeError, Exception):
        text = specgen.to_flow_yaml(doc)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "cut", "indent", "repeat", "odd"]))
        if edit == "insert":
            text = text[:at] + draw(st.sampled_from(":-[]{}&*!|>#'\"\\\t %@`?,")) + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif edit == "cut":
            text = text[:at]
        elif edit == "indent":
            start = text.rfind("\n", 0, at) + 1
            text = text[:start] + " " * draw(st.integers(1, 3)) + text[start:]
        elif edit == "repeat":
            end = text.find("\n", at)
            line = text[text.rfind("\n", 0, at) + 1 : end + 1 if end >= 0 else len(text)]
            text = text[:at] + line + text[at:]
        else:
            text = text[:at] + draw(specgen.odd_text()) + text[at:]
    return text


@given(edited_text())
@fuzz_target("spec.text")
def test_hand_edited_spec_text_fails_cleanly(text: str) -> None:
    load_and_exercise(text)


_DIR = tempfile.TemporaryDirectory(prefix="chatassert-fuzz-")


@st.composite
def file_bytes(draw: st.DrawFn) -> bytes:
    """The bytes of a spec file: UTF-8 with a BOM, UTF-16, or UTF-8 with stray bytes."""
    doc = draw(specgen.documents())
    text = specgen.to_flow_yaml(doc)
    data = text.encode("utf-8", "surrogatepass")
    how = draw(st.sampled_from(["bom", "utf16", "stray", "cut", "latin1"]))
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "utf16":
        return text.encode("utf-16", "surrogatepass")
    if how == "latin1":
        return text.encode("latin-1", "replace")
    at = draw(st.integers(0, len(data)))
    if how == "cut":
        return data[:at]
    return data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]


@given(file_bytes(), st.sampled_from([".yaml", ".json", ".yml", ""]))
@fuzz_target("spec.file_bytes")
def test_spec_files_of_any_bytes_fail_cleanly(data: bytes, suffix: str) -> None:
    path = os.path.join(_DIR.name, f"spec{suffix}")
    with open(path, "wb") as file:
        file.write(data)
    try:
        suite = load_suite(path, judge=JUDGE)
    except SpecError as exc:
        check_spec_error(exc)
        files = [p.file for p in exc.problems]
    else:
        exercise(suite)
        return
    assert path in files, "the problems name the file"


# -- text meant as something else: a log, a dialect without its marker --------------------------

_LOG_SAMPLES = [
    record
    for path in sorted((Path(__file__).parents[1] / "transcripts" / "samples").glob("*.json"))
    for record in json.loads(path.read_text(encoding="utf-8"))
]
"""Records of every log format (the reader contract's samples)."""


def _unmarked(doc: Any, word: str) -> Any:
    """A dialect's document with its marker dropped or changed: no `chatassert`, another
    `kind` and `apiVersion`, tests without `expect`."""
    if not isinstance(doc, dict):
        return doc
    doc = {key: value for key, value in doc.items() if key != "chatassert"}
    if "kind" in doc or "apiVersion" in doc:
        doc.update(kind=word, apiVersion=word)
    tests = doc.get("tests")
    if isinstance(tests, list):
        doc["tests"] = [
            {k: v for k, v in t.items() if k != "expect"} if isinstance(t, dict) else t
            for t in tests
        ]
    return doc


@st.composite
def wrong_guesses(draw: st.DrawFn) -> str:
    """Text given where a suite goes that is not a suite as written: a log (JSON Lines of
    records of any format, maybe cut; one record, compact or pretty-printed), a document of a
    dialect with its marker dropped or changed, or any JSON value."""
    how = draw(st.sampled_from(["lines", "record", "unmarked", "value"]))
    if how == "lines":
        records = draw(st.lists(st.sampled_from(_LOG_SAMPLES), min_size=1, max_size=4))
        text = "\n".join(json.dumps(r) for r in records) + "\n"
        return text[: draw(st.integers(len(text) // 2, len(text)))]
    if how == "record":
        return json.dumps(
            draw(st.sampled_from(_LOG_SAMPLES)), indent=draw(st.sampled_from([None, 2]))
        )
    if how == "unmarked":
        doc = _unmarked(draw(specgen.documents()), draw(specgen.words()))
        return draw(specgen.texts(doc))
    return json.dumps(draw(specgen.json_values()))


def _json_lines(text: str) -> bool:
    """Whether `text` is at least two lines, each a whole JSON object or array."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    for line in lines[:5]:
        try:
            if not isinstance(json.loads(line), dict | list):
                return False
        except (ValueError, RecursionError):
            return False
    return True


@given(wrong_guesses())
@fuzz_target("spec.guess")
def test_text_meant_as_something_else_loads_or_says_what_it_is(text: str) -> None:
    """Loads, or fails with a `SpecError` whose problems say what the text is; JSON Lines is
    always one problem naming a log and which argument comes first."""
    try:
        suite = loads_suite(text, filename="fuzz.yaml", judge=JUDGE)
    except SpecError as exc:
        check_spec_error(exc)
        if _json_lines(text):
            (problem,) = exc.problems
            assert problem.message.startswith("this looks like a log (JSON Lines"), problem
            assert problem.hint == "the suite comes first: chatassert check SUITE LOG"
        return
    exercise(suite)
