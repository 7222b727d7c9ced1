"""What checking records gives: rows, and the items an engine passes between its parts.

A `Row` is one result of checking records: a case outcome, a record no case matches, or a
record that cannot be read. The checker (`chatassert.records.Checker`) makes rows; the report
writers (`chatassert.reporting.ReportWriter`) and the summaries read them; engines ship them
between processes as flat dicts (`Row.to_row`, `ROW_SCHEMA`, `arrow_schema`). This module sits
below both the checker and the writers, so neither imports the other for them.

What the checker appends to an engine's list of items (`Checker.line_into`,
`Checker.record_into`) is an `Item`: a `Row`, a `HeldStep` (a line answering one step of a
multi-step test, held until its run is whole: `Checker.pair`), or `RECORD_END` after the items
of each record.

Public names are re-exported by `chatassert.records`. Docs: docs/records.md. Tests:
tests/records/test_rows.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final, TypeAlias

from chatassert._result import Result
from chatassert.reporting._json import result_json
from chatassert.reporting._summary import Outcome

__all__ = [
    "RECORD_END",
    "ROW_SCHEMA",
    "HeldStep",
    "Item",
    "RecordEnd",
    "Row",
    "arrow_schema",
    "pyarrow_module",
    "whole_first",
]

ROW_SCHEMA: dict[str, str] = {
    "kind": "string: 'case' (a case outcome), 'unmatched' or 'unreadable'",
    "source": "string: where the record came from, as the caller gave it",
    "suite": "string or null: the suite's name (null for an unreadable record)",
    "case": "string or null: the case's name (a case row only)",
    "status": "string: passed, failed, error or skipped ('error' for the other kinds)",
    "subject_id": "string or null: the conversation's or response's id",
    "error": "string or null: why a record is unreadable, or why no case matches it",
    "tags": "string: the case's tags, a JSON array",
    "cost": "string or null: what judging the case cost, a JSON object",
    "flaky": "bool: whether repeated judge verdicts of the case disagreed",
    "duration": "float64: seconds spent checking",
    "result": "string or null: the compact result tree, JSON",
    "excerpt": "string or null: a transcript excerpt (a case that did not pass)",
    "assertions": "string: the assertions' [label, status] pairs, a JSON array",
    "disagreements": "string: how the verdicts differ from a recording's, a JSON array",
    "rendered": "string or null: the case as each report format renders it, a JSON object",
    "matched_by": "string or null: why the subject was checked against the case (a case row): "
    "id, case field, inputs, single case or every subject",
    "match_note": "string or null: what the pairing leaves to notice (a one-case suite "
    "checking a conversation whose id is not the case's)",
}
"""The columns of `Row.to_row()`, with their types: flat JSON scalars and strings."""

_COLUMNS = tuple(ROW_SCHEMA)


def pyarrow_module(needed_by: str) -> Any:
    """The pyarrow module, imported now (never by `import chatassert`).

    Raises:
        ImportError: when pyarrow is not installed, naming `needed_by` and what to install.
    """
    import importlib

    try:
        return importlib.import_module("pyarrow")
    except ImportError as exc:
        raise ImportError(
            f"{needed_by} needs pyarrow: pip install pyarrow (or chatassert[arrow])"
        ) from exc


def arrow_schema() -> Any:
    """The pyarrow schema of `Row.to_row()` (pyarrow is imported here, and only here).

    Raises:
        ImportError: when pyarrow is not installed.
    """
    pa = pyarrow_module("arrow_schema()")
    types = {"flaky": pa.bool_(), "duration": pa.float64()}
    return pa.schema(
        [
            pa.field(name, types.get(name, pa.string()), nullable=name not in ("kind", "source"))
            for name in _COLUMNS
        ]
    )


@dataclass(frozen=True, slots=True)
class Row:
    """One result of checking records: a case outcome, an unmatched or an unreadable record.

    Attributes:
        kind: `case`, `unmatched` (no case of `suite` matches the record) or `unreadable`.
        source: Where the record came from: any locator the caller gave (`log.jsonl:12`,
            `s3://bucket/part-3.parquet#row=17`), `#part` added for one of a record's several
            conversations. Reports print it as given.
        suite: The suite's name (None for an unreadable record).
        case: The case's name (a case row only).
        status: The case's status (`error` for the other kinds).
        subject_id: The conversation's or response's id, when it has one.
        error: Why the record could not be read (an unreadable row; reports say `unreadable`
            when it is None), or why no case matches it (an unmatched row).
        tags: The case's tags.
        cost: What judging the case cost (`JudgeCosts.to_dict()`), when a judge was used.
        flaky: Whether repeated judge verdicts of the case disagreed.
        duration: Seconds spent checking.
        result: The compact result tree as JSON (`compact_result`), when the checker keeps
            trees.
        excerpt: A transcript excerpt, for a case that did not pass (when kept).
        assertions: Each assertion's `(label, status)` (the summary's per-assertion counts).
        disagreements: How its verdicts differ from a recording's (a PromptKit run's).
        rendered: The row as report formats render it, by format (`json`, `junit` with
            `junit_status`, `html`, `otel`, or a registered format's keys), for those the
            checker was asked for; a report writer renders the others itself.
        matched_by: Why the subject was checked against the case (a case row): `id`, `case
            field`, `inputs`, `single case` or `every subject` (see `Suite.match`).
        match_note: What the pairing leaves to notice, if anything (a one-case suite checking
            a conversation whose id is not the case's).
        outcome: The whole outcome, kept in memory only (never serialised), for a failing
            case the summary may keep as an example.
    """

    kind: str
    source: str
    suite: str | None = None
    case: str | None = None
    status: str = "error"
    subject_id: str | None = None
    error: str | None = None
    tags: tuple[str, ...] = ()
    cost: Mapping[str, Any] | None = None
    flaky: bool = False
    duration: float = 0.0
    result: str | None = None
    excerpt: str | None = None
    assertions: tuple[tuple[str, str], ...] = ()
    disagreements: tuple[str, ...] = ()
    rendered: Mapping[str, str] | None = None
    matched_by: str | None = None
    match_note: str | None = None
    outcome: Outcome | None = field(default=None, compare=False, repr=False)

    def __reduce__(self) -> tuple[type[Row], tuple[Any, ...]]:
        # Pickled as the constructor's arguments: `--jobs` workers send every row to the main
        # process, which unpickles them at half the cost of a slotted dataclass's state.
        return (Row, tuple([getattr(self, name) for name in _ROW_FIELDS]))

    def to_row(self) -> dict[str, Any]:
        """The row as a flat dict of JSON scalars and strings (`ROW_SCHEMA`).

        Example:
            >>> Row(kind="unreadable", source="log:3", error="line is not JSON").to_row()["error"]
            'line is not JSON'
        """
        result = self.result
        if result is None and self.outcome is not None:
            result = result_json(self.outcome.result)
        return {
            "kind": self.kind,
            "source": self.source,
            "suite": self.suite,
            "case": self.case,
            "status": self.status,
            "subject_id": self.subject_id,
            "error": self.error,
            "tags": json.dumps(list(self.tags)),
            "cost": None if self.cost is None else json.dumps(dict(self.cost)),
            "flaky": self.flaky,
            "duration": self.duration,
            "result": result,
            "excerpt": self.excerpt if self.excerpt is not None else self._outcome_excerpt(),
            "assertions": json.dumps([list(pair) for pair in self.assertions]),
            "disagreements": json.dumps(list(self.disagreements)),
            "rendered": None if self.rendered is None else json.dumps(dict(self.rendered)),
            "matched_by": self.matched_by,
            "match_note": self.match_note,
        }

    def _outcome_excerpt(self) -> str | None:
        return None if self.outcome is None else self.outcome.excerpt

    @classmethod
    def from_row(cls, data: Mapping[str, Any]) -> Row:
        """Build a row from `to_row()`'s dict (or a record read back from JSON or Arrow).

        Example:
            >>> row = Row(kind="unmatched", source="log:2", suite="booking")
            >>> Row.from_row(row.to_row()) == row
            True
        """

        def loaded(name: str) -> Any:
            value = data.get(name)
            return json.loads(value) if isinstance(value, str) else value

        return cls(
            kind=data["kind"],
            source=data["source"],
            suite=data.get("suite"),
            case=data.get("case"),
            status=data.get("status") or "error",
            subject_id=data.get("subject_id"),
            error=data.get("error"),
            tags=tuple(loaded("tags") or ()),
            cost=loaded("cost"),
            flaky=bool(data.get("flaky")),
            duration=float(data.get("duration") or 0.0),
            result=data.get("result"),
            excerpt=data.get("excerpt"),
            assertions=tuple((label, status) for label, status in loaded("assertions") or ()),
            disagreements=tuple(loaded("disagreements") or ()),
            rendered=loaded("rendered"),
            matched_by=data.get("matched_by"),
            match_note=data.get("match_note"),
        )

    def to_outcome(self) -> Outcome | None:
        """The outcome of a case row: the one kept in memory, else rebuilt from the compact
        tree (passed nodes without their reasons); None for other rows or without a tree."""
        if self.outcome is not None:
            return self.outcome
        if self.kind != "case" or self.result is None or self.suite is None or self.case is None:
            return None
        tree = Result.from_dict(json.loads(self.result))
        if tree.duration is None:
            tree = tree._with_field("duration", self.duration)
        return Outcome(
            self.suite,
            self.case,
            tree,
            self.source,
            self.subject_id,
            excerpt=self.excerpt,
            cost=None if self.cost is None else dict(self.cost),
            matched_by=self.matched_by,
            match_note=self.match_note,
        )


_ROW_FIELDS = tuple(f.name for f in fields(Row))


class RecordEnd:
    """The end of one log record among an engine's items: the items before it, back to the
    previous end, are the record's (what counts the records read).

    There is one, `RECORD_END`, and it stays one across processes (it pickles as itself), so
    `type(item) is RecordEnd` and `item is RECORD_END` both tell it.
    """

    __slots__ = ()

    def __reduce__(self) -> str:
        return "RECORD_END"

    def __repr__(self) -> str:
        return "RECORD_END"


RECORD_END: Final = RecordEnd()
"""The end of a record (`RecordEnd`): what `Checker.line_into` appends after a line's rows."""


@dataclass(frozen=True, slots=True)
class HeldStep:
    """A line answering one step of a multi-step test, held until the run is whole.

    A checker pairs held steps itself (`Checker(hold_steps=True)`, the default); with
    `hold_steps=False`, `line_into` gives them as they come, for `Checker.pair` to pair where
    every partition's lines meet (the command line's main process, with `--jobs`).

    Attributes:
        suite: The suite's name.
        case: The case's name.
        step: The step's number.
        subject: The response, as its checks read it.
        shown: The response as the line gave it (what a report's excerpt shows).
        where: Where the line came from.
        subject_id: The test's id, when the line names one.
    """

    suite: str
    case: str
    step: int
    subject: Any
    shown: Any
    where: str
    subject_id: str | None


Item: TypeAlias = Row | RecordEnd | HeldStep
"""What checking a record appends to an engine's list (`Checker.line_into`): its rows, held
steps of multi-step tests, then `RECORD_END`."""


def whole_first(fill: Callable[[list[Item]], None]) -> Iterator[list[Item]]:
    """The items `fill` appends to a list: a batch of records checked together
    (`Checker.lines_into`, `records_into`), given as one list. On Ctrl-C, the items of the
    records it checked whole by then come first, then the `KeyboardInterrupt` (a command line
    that noted the signal raises its own once it has counted them)."""
    items: list[Item] = []
    try:
        fill(items)
    except KeyboardInterrupt:
        if items:
            yield items
        raise
    yield items
