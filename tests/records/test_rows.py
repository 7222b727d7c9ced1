"""Rows: their flat form, their Arrow schema, Arrow batches read into rows, and locators."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pytest

from chatassert.records import (
    RECORD_END,
    ROW_SCHEMA,
    Checker,
    HeldStep,
    Item,
    RecordEnd,
    ReportWriter,
    Row,
    Summary,
    arrow_schema,
    inline_suite,
    rows_from_arrow,
)

GOOD = {"id": "a", "turns": [{"input": "refund?", "text": "Your refund is on its way."}]}
BAD = {"id": "b", "turns": [{"input": "refund?", "text": "No."}]}


def checker(**options: object) -> Checker:
    return Checker([inline_suite(["{type: contains, value: refund}"])], **options)  # type: ignore[arg-type]


def test_a_row_goes_to_a_flat_dict_of_its_schema_and_back() -> None:
    rows = list(checker().check_records([json.dumps(GOOD), json.dumps(BAD), "oops"]))
    assert [(r.kind, r.status) for r in rows] == [
        ("case", "passed"),
        ("case", "failed"),
        ("unreadable", "error"),
    ]
    for row in rows:
        flat = row.to_row()
        assert list(flat) == list(ROW_SCHEMA)
        assert all(v is None or isinstance(v, str | bool | float) for v in flat.values())
        back = Row.from_row(json.loads(json.dumps(flat)))
        assert back == row
    failed = rows[1].to_row()
    assert json.loads(failed["result"])["status"] == "failed"
    assert "No." in failed["excerpt"]
    assert rows[2].to_row()["error"].startswith("line is not JSON")


def test_the_arrow_schema_holds_every_row() -> None:
    rows = list(checker().check_records([json.dumps(GOOD), "oops"]))
    table = pa.Table.from_pylist([r.to_row() for r in rows], schema=arrow_schema())
    assert table.schema.names == list(ROW_SCHEMA)
    assert table.schema.field("duration").type == pa.float64()
    assert [Row.from_row(d) for d in table.to_pylist()] == rows


def test_arrow_batches_of_json_strings_and_of_structs_give_the_same_verdicts() -> None:
    strings = pa.record_batch({"line": [json.dumps(GOOD), None, "oops", json.dumps(BAD)]})
    by_text = rows_from_arrow(checker(), strings, "line", source="part-3.parquet")
    assert [(r.source, r.kind, r.status) for r in by_text] == [
        ("part-3.parquet#row=0", "case", "passed"),
        ("part-3.parquet#row=1", "unreadable", "error"),
        ("part-3.parquet#row=2", "unreadable", "error"),
        ("part-3.parquet#row=3", "case", "failed"),
    ]
    assert by_text[1].error == "the record is null"
    structs = pa.record_batch({"record": [GOOD, BAD]})
    by_struct = rows_from_arrow(checker(), structs, "record", source="p", offset=10)
    assert [(r.source, r.status) for r in by_struct] == [
        ("p#row=10", "passed"),
        ("p#row=11", "failed"),
    ]
    whole = rows_from_arrow(checker(), pa.Table.from_pylist([GOOD, BAD]), source="t")
    assert [r.status for r in whole] == ["passed", "failed"]
    with pytest.raises(KeyError, match="no column 'nope'"):
        rows_from_arrow(checker(), strings, "nope")


def test_a_record_of_no_known_format_in_a_struct_column_is_unreadable_where_it_is() -> None:
    batch = pa.record_batch({"record": [{"what": "no transcript"}]})
    (row,) = rows_from_arrow(checker(), batch, "record", source="s3://b/part-0.parquet")
    assert row.kind == "unreadable"
    assert row.source == "s3://b/part-0.parquet#row=0"
    assert "unrecognised transcript record" in (row.error or "")


def test_reports_print_a_locator_as_given() -> None:
    where = "s3://bucket/part-0003.parquet#row=17"
    (row,) = checker().check_record(BAD, where)
    assert row.source == where
    outs = {"text": io.StringIO(), "junit": io.StringIO(), "json": io.StringIO()}
    writer = ReportWriter(outs)
    summary = Summary(records=1)
    summary.add_row(row)
    writer.add(row)
    writer.finish(summary)
    assert f"- --assert / contains 'refund' ({where})" in outs["text"].getvalue()
    assert f"[{where}]" in outs["junit"].getvalue()
    assert json.loads(outs["json"].getvalue().splitlines()[0])["source"] == where


def test_a_row_without_tree_or_rendering_cannot_be_written_and_says_why() -> None:
    (row,) = checker(trees=False, examples=0).check_record(BAD, "x")
    with pytest.raises(ValueError, match="Checker\\(trees=True\\)"):
        ReportWriter({"json": io.StringIO()}).add(row)


def test_a_conversation_and_a_decoded_dict_check_as_the_line_does() -> None:
    from chatassert.transcripts import parse_record

    line = checker().check_line(json.dumps(BAD), "log", 4)
    as_dict = checker().check_record(BAD, "log:4")
    as_conversation = checker().check_record(parse_record(BAD), "log:4")
    assert (
        [(r.source, r.status, r.assertions) for r in line]
        == [(r.source, r.status, r.assertions) for r in as_dict]
        == [(r.source, r.status, r.assertions) for r in as_conversation]
    )
    assert line[0].source == "log:4"


def test_selection_leaves_cases_out_and_the_suite_without_a_match_is_unmatched() -> None:
    suites = [inline_suite(["{type: contains, value: refund}", "{type: min_length, min: 6}"])]
    rows = Checker(suites, keyword="least").check_record(GOOD, "x")
    assert [r.case for r in rows] == ["response is at least 6 long"]


def test_a_pickled_row_keeps_every_field_and_its_outcome() -> None:
    # `--jobs` workers send rows to the main process pickled; the outcome (for the summary's
    # examples) goes with them, though rows compare without it
    import pickle

    rows = list(checker(trees=True).check_records([json.dumps(GOOD), json.dumps(BAD), "oops"]))
    for row in rows:
        back = pickle.loads(pickle.dumps(row))
        assert back == row
        assert back.outcome == row.outcome
        assert type(back) is Row
    assert rows[1].outcome is not None


def test_line_into_appends_a_records_rows_then_its_end() -> None:
    items: list[Item] = []
    check = checker()
    check.line_into(json.dumps(GOOD), "log", 1, items)
    check.line_into("oops", "log", 2, items)
    assert [type(item) for item in items] == [Row, RecordEnd, Row, RecordEnd]
    assert items[1] is items[3] is RECORD_END
    assert [(r.kind, r.source) for r in items if isinstance(r, Row)] == [
        ("case", "log:1"),
        ("unreadable", "log:2"),
    ]


def test_the_record_end_is_one_object_in_every_process() -> None:
    # `--jobs` workers send their items pickled: the end must still be the end
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(RECORD_END)) is RECORD_END
    assert copy.deepcopy([RECORD_END])[0] is RECORD_END


STEPS = """
- id: T1
  multi_step:
    - {step: 1, expect: {status: success}}
    - {step: 2, expect: {status: success}}
"""


def test_a_checker_made_not_to_hold_steps_gives_them_for_pair_to_pair() -> None:
    from chatassert.specs import loads_suite

    suite = loads_suite(STEPS, filename="steps.yaml")
    lines = [
        '{"id": "T1", "step": 1, "response": {"status": "success"}}',
        '{"id": "T1", "step": 2, "response": {"status": "success"}}',
    ]
    holding = Checker([suite])
    assert [r.status for line in lines for r in holding.check_line(line, "a")] == ["passed"]
    worker, pairing = Checker([suite], hold_steps=False), Checker([suite], hold_steps=False)
    assert worker.hold_steps is False
    items: list[Item] = []
    for number, line in enumerate(lines, 1):
        worker.line_into(line, "a", number, items)
    assert [type(item) for item in items] == [HeldStep, RecordEnd, HeldStep, RecordEnd]
    paired = pairing.pair(items)
    assert [(r.kind, r.status, r.source) for r in paired if isinstance(r, Row)] == [
        ("case", "passed", "a:1")
    ]
    assert paired.count(RECORD_END) == 2
