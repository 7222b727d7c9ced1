"""The reports say which case each conversation was checked against, and why.

`matched_by` (id, case field, inputs, single case, every subject) is in every JSON report line
of a case outcome, in the text report's list of failing cases and in the JUnit report's
properties of a case that did not pass; a one-case suite checking a conversation whose id is
not its case's says so (`match_note`). A conversation no case matches is listed with its id,
the suite's cases and the closest one, never asked for an id it already has.

The command line runs in process through its `main`; files live in `tmp_path`.
"""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chatassert._cli import main
from chatassert.reporting import report_schema
from support_suite import SUPPORT_SUITE

SUITE = SUPPORT_SUITE

ONE = """\
chatassert: 1
name: one
cases:
  - name: greet
    id: greet-1
    turns:
      - input: hello
        assertions: [{type: contains, value: hi}]
"""


def record(user: str, reply: str, **fields: Any) -> str:
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    return json.dumps({**fields, "messages": messages})


def run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run `chatassert argv...` in process in `cwd`; its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "one.yaml").write_text(ONE, encoding="utf-8")
    (tmp_path / "log.jsonl").write_text(
        "\n".join(
            [
                record("I was charged twice", "Sorry.", id="T-refund"),  # by its id, failing
                record("Hello", "hello there", id="run-2"),  # by its inputs
                record("Anything", "hello", id="run-3", case="greeting"),  # by its case field
                record("What's the weather?", "Sunny.", id="T-refnd"),  # no case: a typo
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "other.jsonl").write_text(record("bye", "nope", id="conv-1") + "\n")
    return tmp_path


def test_each_json_line_says_how_its_conversation_met_its_case(work: Path) -> None:
    code, out, err = run(work, "check", "suite.yaml", "log.jsonl", "-f", "json")
    assert code == 1, err
    rows = lines(out)
    validator = jsonschema.Draft202012Validator(report_schema())
    for row in rows:
        validator.validate(row)
    cases = [(r["subject_id"], r["case"], r.get("matched_by")) for r in rows if "result" in r]
    assert cases == [
        ("T-refund", "refund", "id"),
        ("run-2", "greeting", "inputs"),
        ("run-3", "greeting", "case field"),
    ]
    (unmatched,) = [r for r in rows if "unmatched" in r]
    assert unmatched["unmatched"] == "log.jsonl:4"
    assert unmatched["subject_id"] == "T-refnd"
    assert "the closest to 'T-refnd': 'T-refund'" in unmatched["reason"]


def test_an_unmatched_conversation_is_named_by_its_id_on_stderr(work: Path) -> None:
    _, _, err = run(work, "check", "suite.yaml", "log.jsonl")
    (said,) = [line for line in err.splitlines() if line.startswith("log.jsonl:4: ")]
    assert said.startswith("log.jsonl:4: no case of 'support' matches conversation 'T-refnd': ")
    assert "its id 'T-refnd' is no case's id or name" in said
    assert "the suite's cases, 2: 'T-refund', 'greeting'; the closest to 'T-refnd': 'T-refund'" in (
        said
    )
    assert "give it an 'id'" not in said


def test_the_text_report_says_how_a_failing_case_was_met(work: Path) -> None:
    _, out, _ = run(work, "check", "suite.yaml", "log.jsonl")
    assert "- support / refund (log.jsonl:1; matched by id)" in out.splitlines()


def test_a_one_case_suite_checks_another_id_and_says_so_in_every_report(work: Path) -> None:
    code, _, err = run(
        work, "check", "one.yaml", "other.jsonl", "-o", "r.jsonl", "-o", "r.xml", "-o", "r.txt"
    )
    assert code == 1, err  # checked, as a one-case suite checks every conversation
    note = "the case's id 'greet-1' differs from the conversation's id 'conv-1'"
    (row,) = [r for r in lines((work / "r.jsonl").read_text()) if "result" in r]
    assert (row["matched_by"], row["match_note"]) == ("single case", note)
    text = (work / "r.txt").read_text().splitlines()
    at = text.index("- one / greet (other.jsonl:1; matched by single case)")
    assert text[at + 1] == f"  note: {note}"
    props = {
        p.get("name"): p.get("value") for p in ET.parse(work / "r.xml").getroot().iter("property")
    }
    assert (props["matched_by"], props["match_note"]) == ("single case", note)


def test_regate_keeps_how_each_case_was_met(work: Path) -> None:
    run(work, "check", "suite.yaml", "log.jsonl", "-o", "r.jsonl")
    code, out, err = run(work, "regate", "r.jsonl", "--min-score", "llm_rubric=0.5", "-f", "json")
    assert code == 1, err
    assert [r.get("matched_by") for r in lines(out) if "result" in r] == [
        "id",
        "inputs",
        "case field",
    ]
    (unmatched,) = [r for r in lines(out) if "unmatched" in r]
    assert unmatched["subject_id"] == "T-refnd"


def test_inline_assertions_check_every_subject(work: Path) -> None:
    _, out, _ = run(
        work, "check", "--assert", "{type: contains, value: hello}", "log.jsonl", "-f", "json"
    )
    assert {r["matched_by"] for r in lines(out) if "result" in r} == {"every subject"}


def test_json_responses_say_how_they_met_their_test(tmp_path: Path) -> None:
    suite = Path(__file__).parents[2] / "examples" / "search.expect.json"
    (tmp_path / "r.jsonl").write_text(
        json.dumps({"id": "search-001", "response": {"status": "success"}})
        + "\n"
        + json.dumps({"case": "search-003", "response": {"status": "success"}})
        + "\n"
        + json.dumps({"id": "search-01", "response": {"status": "success"}})
        + "\n",
        encoding="utf-8",
    )
    _, out, err = run(tmp_path, "check", str(suite), "r.jsonl", "-f", "json")
    by_id = {r["subject_id"]: r.get("matched_by") for r in lines(out) if "result" in r}
    assert (by_id["search-001"], by_id["search-003"]) == ("id", "case field")
    (said,) = [line for line in err.splitlines() if line.startswith("r.jsonl:3: ")]
    assert "no test of 'note-search' answers response 'search-01': it is no test's id" in said
    assert "the closest to 'search-01': 'search-001'" in said
