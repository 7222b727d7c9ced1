"""Fuzzing the commands that write files from what they read: convert, regate and validate.

Each runs in process through `chatassert._cli.main` (as `test_fuzz_cli.py` runs check) on
fuzzed input files in a temporary directory, and must return a documented exit code and print
no traceback. Beyond that:

- `cli.convert`: logs of records of every format (the samples of `test_fuzz_logs.py` and the
  examples of docs/offline.md), mutated, cut, nested deep, with lone surrogates and U+2028 in
  strings and keys, converted `--to native` and `--to adk-evalset`. Every record the log holds
  is either written or named on stderr (`file:line: skipped: ...`); the output is well formed
  (each native line is JSON, the eval set one JSON document that pydantic's parser, ADK's,
  reads too) and reads back to exactly the conversations written, each native line to the
  same one.
- `cli.regate`: the JSON report `check` writes of a fuzzed log (strings holding U+2028, U+2029,
  U+0085, lone surrogates) reads back whole: regate with a threshold that names nothing
  exits as check did and writes the same outcome lines. Then the report mutated (values of the
  wrong type anywhere, keys dropped, judged leaves with odd scores grafted in, lines cut,
  nested deep): regate exits 2 naming each bad line by its place, or re-gates it and writes a
  report that reads back without a problem.
- `cli.validate`: fuzzed labels files (good labels of the report's records, bad and odd lines)
  and fuzzed reports: exit 2 naming the bad lines, else 0 or 1 with counts that add up.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic_core
import specgen
from fuzzing import fuzz_target
from hypothesis import event, given, strategies as st
from test_fuzz_cli import _DIR, run
from test_fuzz_logs import SAMPLES, mutated_record, odd_lines, odd_values, to_line

from chatassert._cli.convert import native_line
from chatassert.reporting._report_reader import read_report
from chatassert.reporting._words import counted
from chatassert.transcripts import parse_line, read_records

_GUIDE = Path(__file__).parents[2] / "docs" / "offline.md"
_SEPARATORS = ("\u2028", "\u2029", "\u0085")


@functools.cache
def _doc_records() -> list[Any]:
    """One record of every log format docs/offline.md shows (its JSON examples)."""
    text = _GUIDE.read_text(encoding="utf-8")
    text = text[text.index("## Log formats") : text.index("### Expect suites")]
    found: list[Any] = []
    for block in text.split("```json\n")[1:]:
        body = block[: block.index("```")]
        try:
            found.append(json.loads(body))
            continue
        except ValueError:
            pass
        for line in body.splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
    return found


@functools.cache
def _records() -> list[Any]:
    return [*(s for samples in SAMPLES.values() for s in samples), *_doc_records()]


def _deep_call(depth: int) -> str:
    """An OpenAI chat line whose tool call's arguments (a JSON string) nest `depth` levels."""
    arguments = '{"a": ' * depth + "1" + "}" * depth
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    chat = [{"role": "user", "content": "Hi"}, {"role": "assistant", "tool_calls": [call]}]
    return json.dumps({"messages": chat})


def _odd_chat(text: str, key: str) -> str:
    """An OpenAI chat line with odd text in a message, in a metadata key and its value."""
    chat = {
        "messages": [
            {"role": "user", "content": "Hi " + text},
            {"role": "assistant", "content": text + " refund"},
        ],
        "metadata": {key: text},
        "id": text or None,
    }
    line = json.dumps(chat, ensure_ascii=False)
    if any("\ud800" <= c <= "\udfff" for c in line):
        line = json.dumps(chat)  # a lone surrogate as JSON writes it: "\ud800"
    return line


_ODD_TEXT = st.one_of(
    specgen.odd_text(),
    st.sampled_from(["\ud800", "a\udfffb", "k\udc00", *_SEPARATORS, "\U0010ffff", "e\u0301"]),
)


@st.composite
def log_lines(draw: st.DrawFn) -> list[str]:
    """The lines of a log: records of every format, whole or mutated, odd lines, odd text,
    tool arguments nested from a little to more than any reader takes."""
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["record", "mutated", "odd", "odd_text", "deep", "blank"]))
        if kind == "record":
            lines.append(to_line(draw(st.sampled_from(_records())), draw(st.booleans())))
        elif kind == "mutated":
            lines.append(to_line(draw(mutated_record(_records())), draw(st.booleans())))
        elif kind == "odd":
            lines.append(draw(odd_lines()).replace("\n", " "))
        elif kind == "odd_text":
            lines.append(_odd_chat(draw(_ODD_TEXT), draw(_ODD_TEXT)))
        elif kind == "deep":
            lines.append(_deep_call(draw(st.sampled_from([150, 197, 199, 250, 494, 499, 900]))))
        else:
            lines.append("")
    return lines


def _write(name: str, lines: list[str]) -> str:
    path = os.path.join(_DIR.name, name)
    with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as file:
        file.write("".join(line + "\n" for line in lines))
    return path


_SKIPPED = re.compile(r"^(.*): skipped: ", re.MULTILINE)


def _written(log: str, err: str) -> Iterator[Any]:
    """The conversations of the log that convert did not name as skipped, in order."""
    skipped = Counter(_SKIPPED.findall(err))
    for record in read_records(log):
        if skipped[record.where]:
            skipped[record.where] -= 1
            continue
        assert record.conversation is not None, (record.where, record.error, err)
        yield record.conversation
    assert not +skipped, f"named as skipped but not a record of the log: {+skipped}"


@given(log_lines(), st.sampled_from(["native", "adk-evalset"]))
@fuzz_target("cli.convert")
def test_convert_writes_or_names_every_record_and_the_output_reads_back(
    lines: list[str], to: str
) -> None:
    log = _write("convert.jsonl", lines)
    out = os.path.join(_DIR.name, "out.evalset.json" if to == "adk-evalset" else "out.jsonl")
    code, _, err = run(["convert", "--to", to, log, "-o", out])
    event(f"exit {code}, {len(_SKIPPED.findall(err))} skipped")
    records = list(read_records(log))
    if not records:
        assert code == 4, err
        return
    assert code in (0, 1), err
    skipped = len(_SKIPPED.findall(err))
    assert (code == 1) == (skipped > 0), err
    written = list(_written(log, err))
    assert len(written) + skipped == len(records), err
    assert f"converted {counted(len(written), 'conversation')}" in err
    with open(out, encoding="utf-8") as file:
        text = file.read()
    if to == "native":
        out_lines = text.split("\n")
        assert out_lines[-1] == ""
        assert len(out_lines) - 1 == len(written)
        for line, conversation in zip(out_lines, written, strict=False):
            again = parse_line(line, out, 1).conversation
            assert again is not None, line[:300]
            assert native_line(again) == line == native_line(conversation)
    else:
        document = json.loads(text)
        pydantic_core.from_json(text)  # the parser ADK reads eval sets with
        assert len(document["eval_cases"]) == len(written)
        again = list(read_records(out))
        if written:
            assert [r.error for r in again if r.conversation is None] == []
            assert len(again) == len(written)


# -- regate ------------------------------------------------------------------------------------

_RULES = (
    '{type: not_contains, value: refund, message: "no refund\\u2028here"}',
    "{type: contains, value: e}",
    '{type: regex, pattern: "\\\\w+", message: "x\\u0085y"}',
    "{type: max_length, max: 5}",
)


@st.composite
def checked_logs(draw: st.DrawFn) -> str:
    """A log whose strings hold line separators and lone surrogates, among fuzzed records."""
    lines = draw(log_lines())
    for _ in range(draw(st.integers(1, 3))):
        text = draw(_ODD_TEXT) + draw(st.sampled_from(_SEPARATORS)) + draw(_ODD_TEXT)
        lines.insert(draw(st.integers(0, len(lines))), _odd_chat(text, draw(_ODD_TEXT)))
    return _write("checked.jsonl", lines)


def _report(log: str, full: bool, rules: list[str]) -> tuple[int, str]:
    """Check the log and return check's exit code and its JSON report's path."""
    report = os.path.join(_DIR.name, "report.jsonl")
    if os.path.exists(report):
        os.remove(report)
    argv = ["check", "--no-progress", *(a for r in rules for a in ("--assert", r)), log]
    code, _, err = run([*argv, "-o", report, *(["--full-results"] if full else [])])
    assert code != 2, err  # the rules and the log are fine: no usage error
    return code, report


def _rows(path: str) -> list[Any]:
    with open(path, encoding="utf-8", newline="") as file:
        return [json.loads(line) for line in file.read().split("\n") if line.strip()]


def _steady(value: Any) -> Any:
    """The report's rows with every `duration` 0.5: the inputs drawn from them must not depend
    on how long a check took."""
    if isinstance(value, list):
        return [_steady(v) for v in value]
    if isinstance(value, dict):
        return {k: 0.5 if k == "duration" else _steady(v) for k, v in value.items()}
    return value


def _read(path: str) -> tuple[list[dict[str, Any]], list[str]]:
    """What `read_report` reads of a file read as regate and validate read it: its lines and
    its problems."""
    with open(path, "rb") as file:
        return read_report(file.read().decode("utf-8", "surrogateescape"), path)


def _problems(path: str) -> list[str]:
    """The problems `read_report` finds in a file read as regate and validate read it."""
    return _read(path)[1]


def _judged_leaf(score: Any, judged: Any, threshold: Any) -> dict[str, Any]:
    details = {"judge": "fuzz", "threshold": threshold, "judge_passed": judged}
    return {"status": "passed" if judged is True else "failed", "name": "llm_rubric",
            "reason": "judged", "details": details, "score": score}  # fmt: skip


_RULE_NAMES = (
    "all_of",
    "any_of",
    "at_least",
    "not",
    "repeat",
    "when",
    "case",
    "turn",
    "step",
    "on_every_turn",
    "on_any_turn",
    "on_turn",
    "on_last_turn",
    "ensemble",
    "nope",
)
_RULE_KEYS = (
    "needed",
    "aggregate",
    "threshold",
    "index",
    "turn_index",
    "input",
    "step",
    "store",
    "judge_passed",
)
_RULE_VALUES = (None, True, 0, 1, 2, -1, 0.5, 1.5, "x", "majority", "mean", "all", "any", [],
                {}, [1], "NaN")  # fmt: skip


@st.composite
def stored_rules(draw: st.DrawFn) -> dict[str, Any]:
    """A combinator node as a report could hold it: any rule, odd details, judged children."""
    children = [
        _judged_leaf(draw(st.sampled_from([0.2, 0.7, 1.0, None])), True, 0.5)
        for _ in range(draw(st.integers(0, 3)))
    ]
    details = {
        key: draw(st.sampled_from(_RULE_VALUES))
        for key in draw(st.lists(st.sampled_from(_RULE_KEYS), max_size=3, unique=True))
    }
    node = {"status": draw(st.sampled_from(["passed", "failed", "error", "skipped"])),
            "name": draw(st.sampled_from(_RULE_NAMES)), "reason": "stored", "details": details,
            "children": children}  # fmt: skip
    if draw(st.booleans()):
        node["location"] = draw(st.sampled_from(["turns[1]", "steps[x]", "turns[99999999999]"]))
    return node


@st.composite
def mutated_report(draw: st.DrawFn, rows: list[Any]) -> list[str]:
    """The report's lines changed in one to four places (or not at all)."""
    rows = json.loads(json.dumps(rows))
    extra: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        if not rows:
            break
        i = draw(st.integers(0, len(rows) - 1))
        positions = specgen._node_paths(rows[i])
        where = positions[draw(st.integers(0, len(positions) - 1))]
        current = specgen._get(rows[i], where)
        kind = draw(
            st.sampled_from(["value", "drop", "graft", "rule", "deep", "cut", "line", "value"])
        )
        if kind == "value":
            rows[i] = specgen._put(rows[i], where, draw(odd_values()))
        elif kind == "drop" and isinstance(current, dict) and current:
            key = draw(st.sampled_from(sorted(current)))
            rows[i] = specgen._put(rows[i], where, {k: v for k, v in current.items() if k != key})
        elif kind == "graft" and isinstance(current, dict) and "status" in current:
            score = draw(st.one_of(st.floats(), st.sampled_from(["NaN", "Infinity", None, "0.9"])))
            judged = draw(st.sampled_from([True, False, None, "yes"]))
            threshold = draw(st.sampled_from([0.5, None, 2, "x"]))
            rows[i] = specgen._put(rows[i], where, _judged_leaf(score, judged, threshold))
        elif kind == "rule" and isinstance(current, dict) and "status" in current:
            rows[i] = specgen._put(rows[i], where, draw(stored_rules()))
        elif kind == "deep":  # a result tree nested deep, written as text (json.dumps recurses)
            depth = draw(st.sampled_from([10, 150, 199, 201, 400, 2_000]))
            row = rows.pop(i)
            tree = json.dumps(row.get("result") if isinstance(row, dict) else row)
            head = '{"suite": "s", "case": "c", "source": "l:1", "subject_id": null, "result": '
            level = '{"status": "passed", "name": "all_of", "children": ['
            extra.append(head + level * depth + tree + "]}" * depth + "}")
        elif kind == "cut":
            text = json.dumps(rows.pop(i))
            extra.append(text[: draw(st.integers(0, len(text)))])
        elif kind == "line":
            extra.append(draw(odd_lines()).replace("\n", " "))
    lines = [to_line(row, draw(st.booleans())) for row in rows]
    for line in extra:
        lines.insert(draw(st.integers(0, len(lines))), line)
    return lines


@given(checked_logs(), st.booleans(), st.data())
@fuzz_target("cli.regate")
def test_regate_reads_checks_report_back_and_refuses_a_broken_one_by_place(
    log: str, full: bool, data: st.DataObject
) -> None:
    rules = data.draw(st.lists(st.sampled_from(_RULES), min_size=1, max_size=2, unique=True))
    checked, report = _report(log, full, rules)
    again = os.path.join(_DIR.name, "regated.jsonl")
    flags = ["--full-results"] if full else []
    code, _, err = run(["regate", report, "--min-score", "nothing=0.5", "-o", again, *flags])
    assert code == checked, err
    stored, regated = _rows(report), _rows(again)
    assert [r for r in regated if "summary" not in r] == [r for r in stored if "summary" not in r]
    # the report broken in places
    lines = data.draw(mutated_report(_steady(stored)))
    broken = _write("broken.jsonl", lines)
    threshold = data.draw(st.sampled_from(["0", "0.5", "1"]))
    code, _, err = run(["regate", broken, "--min-score", f"llm_rubric={threshold}", "-o", again])
    problems = _problems(broken)
    event(f"broken report: exit {code}")
    if problems:
        assert code == 2, err
        assert problems[0] in err
        return
    assert code in (0, 1, 3, 4), err
    assert read_report(Path(again).read_text(encoding="utf-8"))[1] == []


# -- validate ----------------------------------------------------------------------------------


_NOT_NAME = (None, 5, "", " \t", "\u2028", [], {}, True, 1.5, ["r"])
_NOT_HUMAN = (None, 5, "", "PASS", "yes", " pass", [], {"a": 1}, True)


@st.composite
def labels_files(draw: st.DrawFn, records: list[str]) -> tuple[str, int]:
    """A labels file: labels of the report's records and of none, and bad lines; with the
    number of good labels."""
    lines, good = [], 0
    names = records or ["none"]
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["label", "label", "odd", "bad", "blank"]))
        if kind == "label":
            label = {"record": draw(st.sampled_from(names)),
                     "assertion": draw(st.sampled_from(["llm_rubric", "polite", "contains"])),
                     "human": draw(st.sampled_from(["pass", "fail"]))}  # fmt: skip
            lines.append(to_line(label, draw(st.booleans())))
            good += 1
        elif kind == "odd":
            record = draw(_ODD_TEXT)
            odd = {"record": record if record.strip() else "x" + record, "assertion": "polite",
                   "human": "pass"}  # fmt: skip
            lines.append(to_line(odd, draw(st.booleans())))
            good += 1
        elif kind == "bad":
            label: dict[str, Any] = {"record": "r", "assertion": "polite", "human": "pass"}
            key = draw(st.sampled_from(["record", "assertion", "human"]))
            label[key] = draw(st.sampled_from(_NOT_HUMAN if key == "human" else _NOT_NAME))
            lines.append(to_line(label, draw(st.booleans())) if draw(st.booleans()) else
                         draw(odd_lines()).replace("\n", " "))  # fmt: skip
        else:
            lines.append(draw(st.sampled_from(["", " \t", "\r"])))
    return _write("labels.jsonl", lines), good


@given(checked_logs(), st.data())
@fuzz_target("cli.validate")
def test_validate_measures_or_names_every_bad_line(log: str, data: st.DataObject) -> None:
    _, report = _report(log, True, ["{type: contains, value: e}"])
    rows = _steady(_rows(report))
    judged = data.draw(st.lists(st.sampled_from([True, False, None]), max_size=3))
    for row, verdict in zip((r for r in rows if "result" in r), judged, strict=False):
        row["result"]["children"].append(_judged_leaf(0.7, verdict, 0.5))
    lines = data.draw(mutated_report(rows)) if data.draw(st.booleans()) else [
        to_line(r, False) for r in rows
    ]  # fmt: skip
    fuzzed = _write("validate-report.jsonl", lines)
    names = [
        n
        for r in rows
        for n in (r.get("source"), r.get("subject_id"))
        if isinstance(n, str) and n.strip()  # what a label may name
    ]
    labels, good = data.draw(labels_files(names))
    argv = ["validate", "suite.yaml", labels, "--report", fuzzed, "-f", "json"]
    kappa = data.draw(st.sampled_from([None, "0.5", "nan", "-1"]))
    code, out, err = run(argv + ([] if kappa is None else ["--min-kappa", kappa]))
    with open(labels, encoding="utf-8", errors="surrogatepass", newline="") as file:
        bad_labels = sum(1 for line in file.read().split("\n") if line.strip(" \t\r"))
    bad_labels -= good
    problems = _problems(fuzzed)
    event(f"exit {code}, {good} good labels, {bad_labels} bad, report problems: {bool(problems)}")
    if kappa == "nan" or bad_labels or problems:
        assert code == 2, err
        assert out == ""
        if kappa != "nan" and bad_labels:
            assert f"{labels}:" in err
        return
    if not any("result" in line for line in _read(fuzzed)[0]):  # no case row (every line of
        assert code == 4, err  # the log unreadable, say): nothing to compare with the labels
        assert "nothing was checked" in err
        assert out == ""
        return
    assert code in (0, 1), err
    measured = json.loads(out)["assertions"]
    assert sum(a["labelled"] for a in measured) == good
    for a in measured:
        assert a["judged"] + a["no_verdict"] + a["unmatched"] == a["labelled"], a
