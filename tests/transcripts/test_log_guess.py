"""What a log that cannot be read was meant to be, said in its one error (`transcripts._guess`).

A record of no known format names the closest formats and what each needs; a suite given
where a log goes says so and which argument comes first; a pretty-printed JSON document saved
as `.jsonl` is read whole (with one note), and one that does not parse is one error, never
a line-by-line flood; a JSON array of records is read as its records.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from chatassert._cli import main
from chatassert.transcripts import (
    FORMATS,
    parse_line,
    parse_record,
    read_as_one,
    read_records,
    whole_file_note,
)
from chatassert.transcripts._guess import SUITE_FIRST

CHAT = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}
FLAT_SUITE = {
    "test_cases": [
        {"name": "t", "turns": [{"user_input": "Hi", "assertions": [{"type": "contains"}]}]}
    ]
}
FLAT_YAML = """\
turns:
  - user_input: Hi
    assertions:
      - type: contains
        value: Hello
"""


def error_of(record: Any) -> str:
    """The error `parse_line` gives a record (it must have one)."""
    read = parse_line(json.dumps(record), "log.jsonl", 1)
    assert read.error is not None, read
    return read.error


# -- a record of no known format --------------------------------------------------------------


def test_an_unrecognised_object_names_the_closest_formats_and_what_each_needs() -> None:
    error = error_of({"id": "c1", "turn_list": [], "messages": {"user": "Hi"}})
    assert error.startswith("unrecognised transcript record (keys: ['id', 'messages', ")
    assert re.findall(r"not ([a-z-]+): no", error) == ["anthropic", "openai", "native"]
    assert "not openai: no 'messages' list, {request: {messages}, response} call" in error
    assert "not native: no 'turns' list" in error
    assert error.endswith("known formats: " + ", ".join(FORMATS))


def test_an_object_sharing_no_key_with_any_format_names_the_common_ones() -> None:
    error = error_of({"hello": 1})
    assert re.findall(r"not ([a-z-]+): no", error) == ["native", "openai", "anthropic"]


def test_an_object_closest_to_a_trace_export_says_what_the_export_needs() -> None:
    error = error_of({"resourceSpans": {"spans": []}})
    assert re.findall(r"not ([a-z-]+): no", error)[0] == "otel"
    assert "not otel: no 'resourceSpans' list, 'spans' list, or span" in error


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ([], "an empty JSON array"),
        (["Hi"], "a JSON array holding a string at [0]"),
        ([{"q": 1}], "a JSON array of objects of no known format ([0] has keys: ['q'])"),
    ],
)
def test_an_unrecognised_array_says_what_an_array_must_hold(value: Any, said: str) -> None:
    error = error_of(value)
    assert error.startswith(f"unrecognised transcript record ({said}: an array is read when ")
    assert "chat messages (each with a 'role'), calls, or records" in error


# -- a suite given where a log goes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("suite", "kind"),
    [
        (FLAT_SUITE, "a flat suite"),
        ({"turns": [{"user_input": "Hi", "assertions": []}]}, "a flat test file"),
        ({"chatassert": 1, "cases": []}, "a native chatassert suite"),
        ({"name": "n", "cases": [{"name": "c", "assertions": []}]}, "a native chatassert suite"),
        ({"test_suites": {"s": {"tests": []}}}, "an expect suite"),
        ({"tests": [{"id": "t", "expect": {"status": "ok"}}]}, "an expect suite"),
        (
            {"apiVersion": "promptkit.altairalabs.ai/v1alpha1", "kind": "Scenario"},
            "a PromptKit file",
        ),
        ([{"type": "contains", "value": "x"}], "a list of assertions (a suite)"),
    ],
)
def test_a_suite_given_as_a_log_record_is_named_as_a_suite(suite: Any, kind: str) -> None:
    assert error_of(suite) == f"this is {kind}, not a log: {SUITE_FIRST}"


def test_a_suite_is_named_only_when_no_reader_can_read_it() -> None:
    """A native log whose turns are valid stays a log, whatever else it holds."""
    log = {"turns": [{"input": "Hi", "text": "Hello"}], "metadata": {"assertions": []}}
    assert parse_record(log).turns[0].text == "Hello"
    forced = parse_line(json.dumps(FLAT_SUITE["test_cases"][0]), "log.jsonl", 1, "native")
    assert forced.error is not None
    assert forced.error.startswith("not a native conversation")  # forced: the reader's own words


def test_a_yaml_suite_given_as_a_log_is_one_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(FLAT_YAML, encoding="utf-8")
    (record,) = read_records(path)
    assert (record.line, record.error) == (1, f"this is a flat test file, not a log: {SUITE_FIRST}")


def test_a_yaml_file_that_is_no_suite_given_as_a_log_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "config.yml"
    path.write_text("colour: red\nsize: 3\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.error is not None
    assert record.error.startswith("this is a YAML file, not a log: a log holds JSON, one record")


def test_a_yaml_named_file_of_json_lines_is_still_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(json.dumps(CHAT) + "\n" + json.dumps(CHAT) + "\n", encoding="utf-8")
    assert [(r.line, r.ok) for r in read_records(path)] == [(1, True), (2, True)]


def run(*argv: str) -> tuple[int, str, str]:
    """`chatassert` in process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_given_the_suite_twice_says_the_log_is_a_suite_once(
    tmp_path: Path, jobs: str
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(FLAT_YAML, encoding="utf-8")
    code, _, err = run("check", "--jobs", jobs, str(suite), str(suite))
    assert code != 0
    said = f"{suite}:1: skipped: this is a flat test file, not a log: {SUITE_FIRST}"
    assert err.count(said) == 1
    assert "line is not JSON" not in err


# -- pretty-printed JSON in a .jsonl file -----------------------------------------------------


def test_a_pretty_printed_object_in_a_jsonl_file_is_read_as_one_record(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("\n" + json.dumps(CHAT, indent=2) + "\n", encoding="utf-8")
    (record,) = read_records(path)
    assert (record.line, record.ok) == (2, True)
    assert read_as_one(str(path)) == "one pretty-printed JSON document"
    note = whole_file_note(str(path))
    assert note == (
        f"{path}: one pretty-printed JSON document, not JSON Lines: read whole, as one record "
        "(name it .json to say so, or write one record per line)"
    )


def test_no_note_for_json_lines_or_a_json_file(tmp_path: Path) -> None:
    lines = tmp_path / "run.jsonl"
    lines.write_text(json.dumps(CHAT) + "\n", encoding="utf-8")
    document = tmp_path / "run.json"
    document.write_text(json.dumps(CHAT, indent=2), encoding="utf-8")
    assert read_as_one(str(lines)) is None
    assert whole_file_note(str(lines)) is None
    assert read_as_one(str(document)) == "one pretty-printed JSON document"
    assert whole_file_note(str(document)) is None  # its name says what it is
    assert read_as_one(str(tmp_path / "missing.jsonl")) is None


def test_a_pretty_printed_array_of_records_is_read_as_its_records(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    records = [CHAT, {"turns": [{"input": "Yo", "text": "Hey"}]}, {"nope": 1}]
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    read = list(read_records(path))
    assert [(r.where.removeprefix(str(path)), r.ok) for r in read] == [
        (":1#[0]", True),
        (":1#[1]", True),
        (":1#[2]", False),
    ]
    assert read[1].conversation is not None
    assert read[1].conversation.turns[0].text == "Hey"


def test_a_pretty_printed_document_that_does_not_parse_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    text = json.dumps(CHAT, indent=2)
    path.write_text(text[: text.rindex("}")], encoding="utf-8")  # its last brace lost
    (record,) = read_records(path)
    assert record.error is not None
    assert record.error.startswith(
        "this looks like one pretty-printed JSON document, not JSON Lines, and it is not valid "
        "JSON (Expecting ',' delimiter: line "
    )
    assert record.error.endswith("fix it and name the file .json, or write one record per line")


def test_pretty_printed_documents_one_after_another_are_one_error_saying_how_to_fix_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "jq.jsonl"  # what `jq . log.jsonl > jq.jsonl` writes
    path.write_text(json.dumps(CHAT, indent=2) + "\n" + json.dumps(CHAT, indent=2), "utf-8")
    (record,) = read_records(path)
    assert record.error is not None
    assert record.error.startswith(
        "this holds several pretty-printed JSON documents one after another, not JSON Lines"
    )
    assert record.error.endswith("write one record per line (jq -c . FILE)")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_reads_a_pretty_printed_jsonl_file_whole_and_notes_it_once(
    tmp_path: Path, jobs: str
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(FLAT_YAML, encoding="utf-8")
    log = tmp_path / "pretty.jsonl"
    log.write_text(json.dumps([CHAT, CHAT, CHAT], indent=2), encoding="utf-8")
    report = tmp_path / "report.jsonl"
    code, _, err = run("check", "--jobs", jobs, str(suite), str(log), "-o", str(report))
    assert code == 0, err
    assert err.count(f"{log}: one pretty-printed JSON document, not JSON Lines") == 1
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert [row["source"] for row in rows if "source" in row] == [
        f"{log}:1#[0]",
        f"{log}:1#[1]",
        f"{log}:1#[2]",
    ]
    assert rows[-1]["summary"]["records"] == 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_of_a_broken_pretty_printed_jsonl_file_says_so_once_and_checks_nothing(
    tmp_path: Path, jobs: str
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(FLAT_YAML, encoding="utf-8")
    log = tmp_path / "pretty.jsonl"
    text = json.dumps([CHAT] * 20, indent=2)  # 200 lines
    log.write_text(text[:-2], encoding="utf-8")
    report = tmp_path / "report.jsonl"
    code, _, err = run("check", "--jobs", jobs, str(suite), str(log), "-o", str(report))
    assert code not in (0, 1), err  # nothing checked is never a pass
    assert err.count("this looks like one pretty-printed JSON document") == 1
    assert "line is not JSON" not in err
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert [row.get("unreadable") for row in rows if "unreadable" in row] == [f"{log}:1"]
    assert rows[-1]["summary"]["unreadable"] == 1
