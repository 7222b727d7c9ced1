"""Check log records one by one, anywhere: the pipeline `chatassert check` runs, as an API.

A `Checker` holds suites and checks records against them: a raw log line (`check_line`), a
decoded record, a `Conversation` (`check_record`), or many (`check_records`). Each gives
`Row`s, one per case outcome plus one per record that matches no case (`unmatched`) or cannot
be read (`unreadable`), exactly as the command line reports them. Rows are small and
serialisable (`Row.to_row` / `Row.from_row`, `ROW_SCHEMA`, `arrow_schema`), so an engine can
check partitions of a log anywhere, merge their `Summary`s (`Summary.merge`, `to_dict` /
`from_dict`), add what only the whole set can say (`Checker.finish`) and write the reports
(`ReportWriter`, from `chatassert.reporting`). An engine that checks many lines into one list
(the command line's) uses `Checker.line_into` / `Checker.record_into`, whose items (`Item`) end
each record with `RECORD_END`. `Row` and the items live in `chatassert._rows`, which the report
writer reads too; they are re-exported here.

Example:
    >>> from chatassert.records import Checker, inline_suite
    >>> checker = Checker([inline_suite(["{type: contains, value: Paris}"])])
    >>> [row] = checker.check_line('{"turns": [{"input": "Capital?", "text": "Paris."}]}',
    ...                            "s3://logs/part-0001.jsonl#row=7")
    >>> row.status, row.source, row.case
    ('passed', 's3://logs/part-0001.jsonl#row=7', "contains 'Paris'")
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Final, TypeAlias, cast

from chatassert._errors import JudgeError, SpecError
from chatassert._judged import is_flaky
from chatassert._judging import run_sync
from chatassert._models import Conversation
from chatassert._result import Result, Status, shorten
from chatassert._rows import (
    RECORD_END,
    ROW_SCHEMA,
    HeldStep,
    Item,
    RecordEnd,
    Row,
    arrow_schema,
    pyarrow_module,
    whole_first,
)
from chatassert._suite import Case, Match, Suite, missing_judges_message
from chatassert.reporting._formats import REPORT_FORMATS, ReportOptions, render
from chatassert.reporting._json import result_json
from chatassert.reporting._summary import Outcome, Summary, excerpt
from chatassert.reporting._writer import ReportWriter

if TYPE_CHECKING:
    from chatassert.transcripts import Record

__all__ = [
    "RECORD_END",
    "ROW_SCHEMA",
    "Checker",
    "HeldStep",
    "Item",
    "RecordEnd",
    "ReportWriter",
    "Row",
    "Summary",
    "arrow_schema",
    "inline_suite",
    "rows_from_arrow",
]

_FAILING = (Status.FAILED, Status.ERROR)


# -- inline suites -----------------------------------------------------------------------------


def inline_suite(specs: Sequence[str]) -> Suite:
    """Build the suite of inline assertion specs (`chatassert check --assert SPEC`): one case
    per spec, applied to every subject; a spec of turn checks checks every turn.

    Raises:
        SpecError: when a spec is invalid or mixes turn and conversation checks.

    Example:
        >>> suite = inline_suite(["{type: contains, value: refund}", "{type: min_length, min: 3}"])
        >>> suite.name, [case.name for case in suite.cases]
        ('--assert', ["contains 'refund'", 'response is at least 3 long'])
    """
    from chatassert._combinators import OnEveryTurn
    from chatassert._errors import SpecProblem
    from chatassert.specs import load_assertion
    from chatassert.specs._common import levels

    cases = []
    for i, spec in enumerate(specs):
        assertion = load_assertion(spec, filename=f"--assert #{i + 1}")
        label = assertion.message or shorten(assertion.describe(), 60)
        needs = levels(assertion)
        if needs == {"turn"}:
            assertion = OnEveryTurn(assertion, message=label)
        elif "turn" in needs:
            raise SpecError(
                [
                    SpecProblem(
                        f"{assertion.kind!r} mixes turn and conversation checks",
                        file=f"--assert #{i + 1}",
                        hint="wrap its turn checks in on_every_turn, on_last_turn or on_turn",
                    )
                ]
            )
        cases.append(Case(name=label, checks=(assertion,), source=f"--assert #{i + 1}"))
    return Suite(name="--assert", cases=tuple(cases), dialect="native")


# -- the checker -------------------------------------------------------------------------------


def _statuses(result: Result) -> tuple[tuple[str, str], ...]:
    """`(label, status)` of each assertion of a case result, as `assertion_statuses` gives
    them (turn and step groups unwrapped), with the statuses as plain strings."""
    out: list[tuple[str, str]] = []
    add = out.append
    for child in result.children:
        grand = child.children
        if grand and child.name in ("turn", "step"):
            for leaf in grand:
                add((leaf.message or leaf.spec_name or leaf.name, leaf.status._value_))
        else:
            add((child.message or child.spec_name or child.name, child.status._value_))
    return tuple(out)


def _timed(case: Case, subject: object) -> Result:
    start = time.perf_counter()
    result = case.check(subject)
    return result._with_field("duration", time.perf_counter() - start)


def _with_model(raw: dict[str, Any], response: Any) -> Any:
    """The response as a `Turn` carrying the model its line logs (`model`, or
    `metadata.model`), or the response itself when the line logs none."""
    model = raw.get("model")
    meta = raw.get("metadata")
    if model is None and isinstance(meta, dict):
        model = meta.get("model")
    if model is None:
        return response
    from chatassert._models import Turn

    if isinstance(response, str):  # text, read as JSON by the checks, as it would be alone
        return Turn(text=response, metadata={"model": model})
    return Turn(data=response, metadata={"model": model})


class Checker:
    """Checks records against suites, giving `Row`s: what `chatassert check` reports.

    Args:
        suites: The suites (`load_suite`, `inline_suite`, `expect.load`, ...).
        keyword: Select cases as `-k` does (a pytest-style expression over name and id).
        tags: Select the cases that have one of these tags (`--tag`).
        assume: Facts the suites may assume (`--assume`), applied to each suite.
        read_as: The transcript format of every record; None detects it, except that when
            every case checks JSON responses (an expect suite) a record is read as a response.
        formats: The report formats whose rendering each case row carries (`Row.rendered`):
            any of `json`, `junit`, `html`, `otel` (or a registered one: `REPORT_FORMATS`).
            A `ReportWriter` renders the rest itself.
        trees: Whether case rows carry their compact result tree (`Row.result`) and, when
            they did not pass, a transcript excerpt (what a report built from rows needs).
        examples: How many failing rows of one call keep their whole `Outcome` in memory
            (`Row.outcome`, not serialised): the examples a local summary shows.
        full_results: JSON renderings hold every node in full, not the compact tree.
        verbose: JUnit renderings show every node, not only the failing ones.
        flaky: How JUnit reports a case only flaky verdicts decide: `skip` or `fail`.
        prices: A judge price table (`{model: {"input": ..., "output": ...}}`) for costs.
        plan_judging: Whether judged checks are planned (calls that cannot change a verdict
            are avoided).
        hold_steps: Whether the lines of multi-step tests are paired here (the default);
            False: `line_into` and `record_into` give them as `HeldStep`s, as they come, for
            `pair` to pair where every partition's lines meet (the command line's main
            process, with `--jobs`).

    Raises:
        JudgeError: when a judged check of a selected case has no judge to ask (none given
            in code, none configured by the environment: `Suite.missing_judges`), naming
            every such check once, before any record is read.
        ValueError: when `formats` names a format no reporter has (nor an installed plugin).

    Multi-step tests (expect suites with `multi_step`): the lines of one run, one per step,
    are held by the checker until the run is whole, then checked (one row). A step that comes
    again starts the next run. `finish` checks the runs still open, whose missing steps are
    `error`s, so a run whose lines are split between partitions checked by different
    checkers is reported as two incomplete runs: keep a test's steps in one partition (for
    example, partition by test id).

    Example:
        >>> from chatassert.records import Checker, inline_suite
        >>> checker = Checker([inline_suite(["{type: min_length, min: 2}"])])
        >>> rows = checker.check_records(['{"turns": [{"text": "a"}]}', "oops"])
        >>> [(row.kind, row.status, row.source) for row in rows]
        [('case', 'failed', '<record 1>'), ('unreadable', 'error', '<record 2>')]
    """

    def __init__(
        self,
        suites: Sequence[Suite],
        *,
        keyword: str | None = None,
        tags: Sequence[str] = (),
        assume: Sequence[str] = (),
        read_as: str | None = None,
        formats: Sequence[str] = (),
        trees: bool = True,
        examples: int = 10,
        full_results: bool = False,
        verbose: bool = False,
        flaky: str = "skip",
        prices: Mapping[str, Mapping[str, float]] | None = None,
        plan_judging: bool = True,
        hold_steps: bool = True,
    ) -> None:
        if assume:
            suites = [suite.assuming(assume, via="assume") for suite in suites]
        self.suites: list[Suite] = list(suites)
        self.keyword = keyword
        self.tags = tuple(tags)
        self.formats = frozenset(formats)
        self.trees = trees
        self.examples = examples
        self.full_results = full_results
        self.verbose = verbose
        self.flaky = flaky
        self.prices = None if prices is None else {k: dict(v) for k, v in prices.items()}
        self.plan_judging = plan_judging
        self.deselected = self._deselected()
        missing = [
            line
            for suite in self.suites
            for line in suite.missing_judges(c for s, c in self.deselected if s == suite.name)
        ]
        if missing:  # said once, here, rather than as an error of every record checked
            raise JudgeError(missing_judges_message(missing))
        self.transcript_format = read_as
        """The transcript format given (None: detected)."""
        if read_as is None and all(
            case.subject == "json" for suite in self.suites for case in suite.cases
        ):
            from chatassert.transcripts import RESPONSES

            read_as = RESPONSES
        self.read_as = read_as
        self.kept = 0
        """How many failing rows kept their outcome since `reset` (up to `examples`)."""
        self.hold_steps = hold_steps
        """Whether the lines of multi-step tests are paired here (else given as they come,
        for `pair` to pair where every partition's lines meet)."""
        self._options = ReportOptions(full_results=full_results, verbose=verbose, flaky=flaky)
        unknown = sorted(name for name in self.formats if name not in REPORT_FORMATS)
        if unknown:  # a format of a plugin is loaded by this lookup
            raise ValueError(f"unknown report formats {unknown}; known: {tuple(REPORT_FORMATS)}")
        self._renderers = [
            reporter
            for name, reporter in REPORT_FORMATS.items()
            if name in self.formats and reporter.rows != "summary"
        ]
        self._excerpts = any(reporter.excerpts for reporter in self._renderers)
        self._tag_of = {(s.name, c.name): c.tags for s in self.suites for c in s.cases}
        self._judged = {(s.name, c.name): c.needs_judge() for s in self.suites for c in s.cases}
        self._json_cases = [
            (s, cases)
            for s in self.suites
            if (cases := [c for c in s.cases if c.subject == "json"])
        ]
        self._step_cases = {(s.name, c.name): c for s in self.suites for c in s.cases if c.steps}
        self._open: dict[tuple[str, str], dict[str, Any]] = {}
        self._counter = 0
        self._due: list[tuple[_Due, _Checked | None]] | None = None  # what `lines_into` gathers

    def _deselected(self) -> frozenset[tuple[str, str]]:
        """`(suite, case)` of the cases `keyword` and `tags` leave out: records that match
        them are read, and not checked (nor reported unmatched)."""
        if self.keyword is None and not self.tags:
            return frozenset()
        from chatassert._select import compile_keyword

        selected = compile_keyword(self.keyword or "")
        tags = set(self.tags)
        return frozenset(
            (suite.name, case.name)
            for suite in self.suites
            for case in suite.cases
            if not (selected([case.name, case.id or ""]) and (not tags or tags & set(case.tags)))
        )

    def asks_judges(self) -> bool:
        """Whether a case this checker checks (one the selection keeps) may ask a judge."""
        return any(judged for key, judged in self._judged.items() if key not in self.deselected)

    def reset(self) -> None:
        """Start counting the failing rows that keep their outcome (`examples`) afresh."""
        self.kept = 0

    # -- the public forms ----------------------------------------------------------------

    def check_line(self, text: str, source: str, line: int | None = None) -> list[Row]:
        """Check one log line (a JSON record, or a whole one-document file's text).

        `source` locates it in the reports as given; with `line`, it is `source:line`
        (`file:line` as the command line reports it). Rows of one of a record's several
        conversations add `#part`.
        """
        out: list[Item] = []
        self.line_into(text, source, line, out)
        return self._paired(out)

    def check_record(self, record: Any, source: str) -> list[Row]:
        """Check one record: a raw line (`str` or `bytes`), a decoded JSON value (a `dict`),
        a `Conversation`, or a `chatassert.transcripts.Record`."""
        out: list[Item] = []
        self._any_into(record, source, out)
        return self._paired(out)

    def check_records(
        self, records: Iterable[Any], sources: Iterable[str] | None = None
    ) -> Iterator[Row]:
        """Check many records (anything `check_record` takes, or `(source, record)` pairs
        when `sources` is not given and the items are tuples), yielding their rows in order.
        A record without a source is `<record N>`, counting from 1 over the checker's life.

        Held steps of multi-step tests are not flushed: call `finish` at the end of the set.

        When a case asks a judge, the records are checked `judged_batch()` at a time, the
        judged cases of each batch together (as `lines_into` does), and the rows of a batch
        come when it is checked; Ctrl-C gives the rows of the batch's records checked whole
        before raising `KeyboardInterrupt`.
        """
        given = iter(sources) if sources is not None else None
        size = self.judged_batch()
        held: list[tuple[Any, str]] = []
        for record in records:
            if given is not None:
                source = next(given)
            elif isinstance(record, tuple) and len(record) == 2 and isinstance(record[0], str):
                source, record = record
            else:
                self._counter += 1
                source = f"<record {self._counter}>"
            if size == 1:
                yield from self.check_record(record, source)
                continue
            held.append((record, source))
            if len(held) == size:
                yield from self._rows_together(held)
        if held:
            yield from self._rows_together(held)

    def _rows_together(self, held: list[tuple[Any, str]]) -> Iterator[Row]:
        """The rows of the records `held` (emptied), their judged cases asked together; on
        Ctrl-C, those of the records checked whole by then, then the `KeyboardInterrupt`."""

        def check(items: list[Item]) -> None:
            for record, source in held:
                self._any_into(record, source, items)
                items.append(RECORD_END)  # (a `Record` given whole has none of its own)

        try:
            for items in whole_first(partial(self._together_into, check)):
                yield from self._paired(items)
        finally:
            held.clear()

    def flush(self) -> list[Row]:
        """Check the runs of multi-step tests still open (their missing steps `error`)."""
        out = [self._run_row(key, run) for key, run in self._open.items()]
        self._open.clear()
        return out

    def unanswered(self, summary: Summary) -> list[Row]:
        """Rows for the JSON-response tests (expect suites) that no record answered in the
        whole set `summary` counts: `error` (no response was logged), or `skipped` for a test
        that is skipped. Deselected tests are not reported. Only meaningful on a summary of
        every partition (`Summary.merge`)."""
        answered = summary.answered | self.deselected
        out: list[Row] = []
        for suite in self.suites:
            for case in suite.cases:
                if case.subject != "json" or (suite.name, case.name) in answered:
                    continue
                key = case.id or case.name
                if case.skip is not None:
                    result = case.check(None)
                else:
                    result = Result(
                        Status.ERROR,
                        "case",
                        f"no response was logged for test {key!r}",
                        {"missing_response": True, "id": key},
                        message=case.name,
                    )
                out.append(self._final_row(Outcome(suite.name, case.name, result, "", key)))
        return out

    def finish(self, summary: Summary) -> list[Row]:
        """The rows only the whole set can give: the runs of multi-step tests still open
        (`flush`), then the JSON-response tests no record answered (`unanswered`). Call it
        once, on the summary merged from every partition, and add its rows to that summary
        (`Summary.add_row`) and to the reports."""
        flushed = self.flush()
        whole = Summary(keep=0)
        whole.answered = set(summary.answered)
        for row in flushed:
            whole.answered.add((row.suite or "", row.case or ""))
        return flushed + self.unanswered(whole)

    def pair(self, items: list[Item]) -> list[Row | RecordEnd]:
        """Replace the held steps among `items` (a checker with `hold_steps` off gives them)
        with the rows of the runs they complete, in order."""
        if not any(type(item) is HeldStep for item in items):
            return cast("list[Row | RecordEnd]", items)
        out: list[Row | RecordEnd] = []
        for item in items:
            if not isinstance(item, HeldStep):
                out.append(item)
                continue
            key = (item.suite, item.case)
            run = self._open.get(key)
            if run is not None and item.step in run["responses"]:
                out.append(self._run_row(key, self._open.pop(key)))  # the next run begins
                run = None
            if run is None:
                run = self._open[key] = {
                    "responses": {},
                    "shown": {},
                    "where": item.where,
                    "subject_id": item.subject_id,
                }
            run["responses"][item.step] = item.subject
            run["shown"][str(item.step)] = item.shown
            if len(run["responses"]) == len(self._step_cases[key].steps):
                out.append(self._run_row(key, self._open.pop(key)))
        return out

    # -- the engines' forms: items appended to a list -------------------------------------

    def line_into(self, text: str, source: str, line: int | None, out: list[Item]) -> None:
        """Check one non-blank log line, appending its items to `out`: its rows (and, with
        `hold_steps` off, its `HeldStep`s), then `RECORD_END`.

        What `check_line` does, for an engine that checks many lines into one list and pairs
        held steps where every partition's lines meet (`pair`); `line` as for `check_line`.
        """
        from chatassert.transcripts import parse_text

        record = parse_text(text, source, 0 if line is None else line, self.read_as)
        self.record_into(record, source if line is None else f"{source}:{line}", out)

    def check_lines(self, lines: Iterable[tuple[str, str, int | None]]) -> list[Row]:
        """`check_line` for many lines `(text, source, line)`, their judged cases asked
        together (`lines_into`): the rows of all of them, in order.

        Example:
            >>> from chatassert.records import Checker, inline_suite
            >>> checker = Checker([inline_suite(["{type: contains, value: Paris}"])])
            >>> rows = checker.check_lines([('{"turns": [{"text": "Paris"}]}', "log", 1),
            ...                             ("oops", "log", 2)])
            >>> [(row.kind, row.source) for row in rows]
            [('case', 'log:1'), ('unreadable', 'log:2')]
        """
        out: list[Item] = []
        self.lines_into(lines, out)
        return self._paired(out)

    def lines_into(self, lines: Iterable[tuple[str, str, int | None]], out: list[Item]) -> None:
        """Check many non-blank log lines `(text, source, line)` as `line_into` does, one
        after another, appending their items to `out` in order, but with the judged cases of
        all of them checked together, on one event loop: their judge requests are in flight
        at once (up to the bound of `limit_judges` when one is set, else
        `CHATASSERT_JUDGE_CONCURRENCY`, 32 by default), so a batch of judged records takes
        about as long as its slowest record, not as long as all of them.

        Each case comes out exactly as `line_into` gives it: same result, cost and row.
        Ctrl-C cancels every judge request still in flight; the records checked whole by
        then, from the first up to the first that was not, are appended to `out`, and the
        `KeyboardInterrupt` is raised again. Any other error appends nothing.

        Example:
            >>> from chatassert.records import Checker, inline_suite
            >>> checker = Checker([inline_suite(["{type: contains, value: Paris}"])])
            >>> out = []
            >>> checker.lines_into([('{"turns": [{"text": "Paris"}]}', "log", 1),
            ...                     ('{"turns": [{"text": "Rome"}]}', "log", 2)], out)
            >>> [item.status for item in out if isinstance(item, Row)]
            ['passed', 'failed']
        """

        def check(items: list[Item]) -> None:
            for text, source, line in lines:
                self.line_into(text, source, line, items)

        self._together_into(check, out)

    def records_into(self, records: Iterable[tuple[Record, str]], out: list[Item]) -> None:
        """Check many read records `(record, where)` as `record_into` does, their judged
        cases together, as `lines_into` checks lines."""

        def check(items: list[Item]) -> None:
            for record, where in records:
                self.record_into(record, where, items)

        self._together_into(check, out)

    def judged_batch(self) -> int:
        """How many records to check together (`lines_into`, `check_records`): twice the
        judge requests in flight (`CHATASSERT_JUDGE_CONCURRENCY`, 32 by default), so that a
        record with fewer judged checks than another leaves no request slot idle for long;
        1 when no case this checker checks asks a judge (nothing to wait for together)."""
        if not self.asks_judges():
            return 1
        from chatassert.judges._settings import env_concurrency

        return 2 * env_concurrency()

    def _together_into(self, check: Callable[[list[Item]], None], out: list[Item]) -> None:
        """`check(items)`, its judged cases gathered and then asked together (`lines_into`)."""
        due: list[tuple[_Due, _Checked | None]] = []
        items: list[Item] = []
        answers: list[_Checked | None] = []
        try:
            self._due = due
            try:
                check(items)
            finally:
                self._due = None
            asked = [d for d, checked in due if checked is None]
            answers = [None] * len(asked)
            if asked:
                run_sync(self._judged_together(asked, answers))
        except KeyboardInterrupt:  # the records checked whole, then the interrupt
            out.extend(self._filled(items, due, answers))
            raise
        out.extend(self._filled(items, due, answers) if due else items)

    async def _judged_together(self, due: list[_Due], answers: list[_Checked | None]) -> None:
        """Check the judged cases `due` concurrently, each one's answer put in `answers` (at
        its index) as soon as it is checked, so an interrupted batch keeps what it had."""
        import asyncio
        import contextlib

        from chatassert._judging import judges_limited, limit_judges
        from chatassert.judges._settings import env_concurrency

        async def answer(index: int) -> None:
            answers[index] = await self._achecked(due[index])

        bound = contextlib.nullcontext() if judges_limited() else limit_judges(env_concurrency())
        with bound:
            await asyncio.gather(*map(answer, range(len(due))))

    def _filled(
        self,
        items: list[Item],
        due: list[tuple[_Due, _Checked | None]],
        answers: list[_Checked | None],
    ) -> list[Item]:
        """`items` with their places (`_DUE`) filled with the rows of the cases `due` (the
        judged ones answered in `answers`, in order), as far as the records are whole: to the
        end of the last record before the first case not answered."""
        asked = iter(answers)  # (none yet when the judges were not asked)
        rows: list[Row] = []
        for d, checked in due:
            answered = checked if checked is not None else next(asked, None)
            if answered is None:
                break
            rows.append(self._due_row(d, *answered))
        filled: list[Item] = []
        whole = 0  # how many of `filled` make whole records
        made = iter(rows)
        for item in items:
            if item is _DUE:
                row = next(made, None)
                if row is None:  # not answered: the records before it are what is whole
                    del filled[whole:]
                    return filled
                item = row
            filled.append(item)
            if item is RECORD_END:
                whole = len(filled)
        return filled

    def record_into(self, record: Record, where: str, out: list[Item]) -> None:
        """Check one read record (`chatassert.transcripts.Record`: a line, or a group of
        lines `--group-by` made), appending its items to `out` as `line_into` does; `where`
        locates it (`file:line`), `#part` added for one of its several conversations."""
        if record.parts:
            for one in record.parts:
                self._one_into(one, f"{where}#{one.part}", out)
        else:
            self._one_into(record, where if record.part is None else f"{where}#{record.part}", out)
        out.append(RECORD_END)

    # -- the pipeline --------------------------------------------------------------------

    def _paired(self, out: list[Item]) -> list[Row]:
        """The rows among `out` (its held steps paired when the checker holds them)."""
        items: list[Item] | list[Row | RecordEnd] = self.pair(out) if self.hold_steps else out
        # with `hold_steps` off, held steps stay among the rows, for the caller's `pair`
        return cast("list[Row]", [item for item in items if type(item) is not RecordEnd])

    def _any_into(self, record: Any, source: str, out: list[Item]) -> None:
        from chatassert.transcripts import Record

        if isinstance(record, bytes):
            record = record.decode("utf-8", "surrogateescape")
        if isinstance(record, str):
            self.line_into(record, source, None, out)
        elif isinstance(record, Conversation):
            self.record_into(Record(source, 0, conversation=record), source, out)
        elif isinstance(record, Record):
            for one in record.each():
                self._one_into(one, source if one.part is None else f"{source}#{one.part}", out)
        else:
            from chatassert.transcripts import read_value

            self.record_into(read_value(record, source, 0, self.read_as), source, out)

    def _one_into(self, record: Record, where: str, out: list[Item]) -> None:
        """Check one conversation of a record (or one JSON response), appending its rows."""
        conversation = record.conversation
        if conversation is None:
            if not self._json_into(record.raw, where, out):
                error = record.error or "unreadable"
                out.append(Row(kind="unreadable", source=where, error=error))
            return
        for suite in self.suites:
            if suite.name == "--assert" and suite.dialect == "native":
                match = Match(suite.cases, "every subject")
            else:
                match = suite.match(conversation)
            cases = [c for c in match.cases if c.subject != "json"]
            if not cases:
                why = match.reason or (
                    f"no case of {suite.name!r} matches {_who(conversation)}: the case its id "
                    "names checks JSON responses, not conversations"
                )
                out.append(
                    Row(
                        kind="unmatched",
                        source=where,
                        suite=suite.name,
                        subject_id=conversation.id,
                        error=why,
                    )
                )
                continue
            if self.deselected:
                cases = [c for c in cases if (suite.name, c.name) not in self.deselected]
            recorded = "recorded_assertions" in conversation.metadata
            for case in cases:
                due = _Due(
                    suite.name,
                    case,
                    conversation,
                    where,
                    conversation.id,
                    match.by,
                    match.note,
                    conversation,
                    recorded,
                )
                self._case_into(due, out)

    def _json_into(self, raw: Any, where: str, out: list[Item]) -> bool:
        """Check a record as a structured JSON response against the suites' `json` cases.

        A record `{"case" | "id": <name>, "output" | "response": <value>}` checks the value
        against the named case (a name no case has leaves it unmatched); one that names none,
        and any other JSON value, is checked against the only `json` case. A `model` beside the
        response (or in the record's `metadata`) is the model that produced it: the response
        is then checked as a `Turn` whose metadata carries it (for `agent_used_model`). A
        record of a multi-step test names its step (`"step": 2`). Returns whether it was
        checked.
        """
        checked = False
        if raw is None:
            return False
        for suite, json_cases in self._json_cases:
            subject = raw
            case: Case | None = None
            named = None
            by = "single case"
            if isinstance(raw, dict) and ("output" in raw or "response" in raw):
                subject = raw.get("output", raw.get("response"))
                field_name = next((k for k in ("case", "test_case", "id") if k in raw), None)
                named = None if field_name is None else raw[field_name]
                by = "id" if field_name == "id" else "case field"
                case = suite.find(named)
            if case is None and named is None and len(json_cases) == 1:
                case = json_cases[0]  # a record that names no test goes to the only one
                by = "single case"
            if case is None or case.subject != "json":
                out.append(_unmatched_response(suite, json_cases, named, where))
                checked = True  # read as a response, but no test has its id: unmatched only
                continue
            checked = True
            if (suite.name, case.name) in self.deselected:
                continue
            key = raw.get("id", raw.get("case")) if isinstance(raw, dict) else None
            subject_id = None if key is None or subject is raw else str(key)
            shown = subject
            if subject is not raw:
                subject = _with_model(raw, subject)
            step = raw.get("step") if isinstance(raw, dict) and subject is not raw else None
            if case.steps or step is not None:
                out.append(_step_item(suite, case, step, subject, shown, where, subject_id))
                continue
            self._case_into(
                _Due(suite.name, case, subject, where, subject_id, by, None, shown, False), out
            )
        return checked

    def _case_into(self, due: _Due, out: list[Item]) -> None:
        """Append the row of a case to check; while `lines_into` gathers the cases of its
        lines, a place for it that `lines_into` fills in order (a judged case is checked
        then, with the others)."""
        gathered = self._due
        if gathered is None:
            out.append(self._due_row(due, *self._checked(due.case, due.subject)))
            return
        judged = due.case.needs_judge()
        gathered.append((due, None if judged else self._checked(due.case, due.subject)))
        out.append(_DUE)

    def _due_row(self, due: _Due, result: Result, cost: dict[str, Any] | None) -> Row:
        """The row of a case checked: its outcome (beside the verdicts its recording
        carries, if it carries any)."""
        outcome = Outcome(
            due.suite,
            due.case.name,
            result,
            due.where,
            due.subject_id,
            cost=cost,
            matched_by=due.matched_by,
            match_note=due.match_note,
        )
        differ: tuple[str, ...] = ()
        if due.recorded:
            outcome, differ = _beside_recorded(outcome, cast(Conversation, due.shown))
        return self._row(outcome, due.shown, due.case.needs_judge(), differ)

    def _checked(self, case: Case, subject: object) -> _Checked:
        """Check `subject` against `case`: its result (timed) and what judging it cost (None
        when it asked no judge)."""
        if not case.needs_judge():  # nothing to count, nothing to plan
            return _timed(case, subject), None
        from chatassert._judging import count_judge_costs, judge_planning

        with count_judge_costs(self.prices) as costs, judge_planning(self.plan_judging):
            result = _timed(case, subject)
        return result, costs.to_dict() if costs.used else None

    async def _achecked(self, due: _Due) -> _Checked:
        """`_checked` of a judged case, on the running event loop: what `lines_into` gathers."""
        from chatassert._judging import count_judge_costs, judge_planning

        with count_judge_costs(self.prices) as costs, judge_planning(self.plan_judging):
            start = time.perf_counter()
            result = await due.case.acheck(due.subject)
            result = result._with_field("duration", time.perf_counter() - start)
        return result, costs.to_dict() if costs.used else None

    def _run_row(self, key: tuple[str, str], run: dict[str, Any]) -> Row:
        case = self._step_cases[key]
        result, cost = self._checked(case, run["responses"])
        outcome = Outcome(key[0], case.name, result, run["where"], run["subject_id"], cost=cost)
        return self._row(outcome, run["shown"])

    def _row(
        self,
        outcome: Outcome,
        subject: object,
        judged: bool = True,
        differ: tuple[str, ...] = (),
    ) -> Row:
        """The row of an outcome: its counts, its renderings, its tree (when kept), and the
        outcome itself (with its excerpt) only while a summary may still keep it."""
        result = outcome.result
        status = result.status
        failing = status in _FAILING
        kept = failing and self.kept < self.examples
        if kept:
            self.kept += 1
        shown = None
        if failing and (kept or self.trees or self._excerpts):
            shown = excerpt(subject)
            outcome = replace(outcome, excerpt=shown)
        rendered: dict[str, str] | None = None
        if self.formats:
            rendered = render(outcome, subject, self._renderers, self._options)
        return Row(
            kind="case",
            source=outcome.source,
            suite=outcome.suite,
            case=outcome.case,
            status=status._value_,
            subject_id=outcome.subject_id,
            tags=self._tag_of.get((outcome.suite, outcome.case), ()),
            cost=outcome.cost,
            flaky=judged and is_flaky(result),
            duration=outcome.seconds,
            result=result_json(result) if self.trees else None,
            excerpt=shown if self.trees else None,
            assertions=_statuses(result),
            disagreements=differ,
            rendered=rendered,
            matched_by=outcome.matched_by,
            match_note=outcome.match_note,
            outcome=outcome if kept else None,
        )

    def _final_row(self, outcome: Outcome) -> Row:
        """The row of an outcome only the whole set gives (a test with no response): kept
        whole, rendered as the reports show such a test (no time, not verbose; its status is
        an error or a skip, which no flaky verdict decides)."""
        result = outcome.result
        rendered: dict[str, str] | None = None
        if self.formats:
            final = replace(self._options, verbose=False, flaky="skip")
            rendered = render(outcome, None, self._renderers, final)
        return Row(
            kind="case",
            source=outcome.source,
            suite=outcome.suite,
            case=outcome.case,
            status=result.status._value_,
            subject_id=outcome.subject_id,
            tags=self._tag_of.get((outcome.suite, outcome.case), ()),
            result=result_json(result) if self.trees else None,
            assertions=_statuses(result),
            rendered=rendered,
            outcome=outcome,
        )


@dataclass(slots=True)
class _Due:
    """A case to check against a subject, and what its row says of them: the case's suite,
    where the subject came from, its id, how it matched the case (`Outcome.matched_by`,
    `match_note`), what the row's excerpt shows, and whether the subject carries recorded
    verdicts to compare (a conversation's `recorded_assertions`)."""

    suite: str
    case: Case
    subject: object
    where: str
    subject_id: str | None
    matched_by: str | None = None
    match_note: str | None = None
    shown: object = None
    recorded: bool = False


_Checked: TypeAlias = tuple[Result, "dict[str, Any] | None"]
"""A case checked: its result, and what judging it cost (None when it asked no judge)."""

_DUE: Final = Row(kind="case", source="")
"""Where the row of a judged case `lines_into` gathers goes among the items, until checked."""


def _beside_recorded(
    outcome: Outcome, conversation: Conversation
) -> tuple[Outcome, tuple[str, ...]]:
    """The outcome with the verdicts its recording carries (a PromptKit run's), if any, and
    the text of each verdict that differs."""
    from chatassert.reporting import disagreement_text, recorded_verdicts

    compared = recorded_verdicts(outcome.result, conversation)
    if compared is None:
        return outcome, ()
    recorded, differ = compared
    outcome = replace(outcome, recorded=tuple(recorded), disagreements=tuple(differ))
    return outcome, tuple(disagreement_text(d) for d in differ)


def _who(conversation: Conversation) -> str:
    """A conversation as a message names it: by its id, when it has one."""
    return "this conversation" if conversation.id is None else f"conversation {conversation.id!r}"


def _unmatched_response(suite: Suite, json_cases: Sequence[Case], named: Any, where: str) -> Row:
    """The row of a JSON response no test of `suite` answers, saying why: the test it names
    is none of the suite's (the closest named), or it names none and the suite has several."""
    listed = suite.cases_listed(None if named is None else str(named), json_cases)
    listed = listed.replace("the suite's cases", "the suite's tests", 1)
    if named is None:
        why = (
            f"no test of {suite.name!r} answers this response: it names no test, and the "
            f"suite has several ({listed}); give the record an 'id' (or 'case') naming one"
        )
    else:
        found = suite.find(named)
        what = (
            "is a case of conversations, not a test of JSON responses"
            if found is not None
            else "is no test's id or name"
        )
        why = f"no test of {suite.name!r} answers response {str(named)!r}: it {what} ({listed})"
    return Row(
        kind="unmatched",
        source=where,
        suite=suite.name,
        subject_id=None if named is None else str(named),
        error=why,
    )


def _step_item(
    suite: Suite,
    case: Case,
    step: Any,
    subject: Any,
    shown: Any,
    where: str,
    subject_id: str | None,
) -> Row | HeldStep:
    """The held step of a line answering one step of a multi-step test, or why it cannot."""
    from chatassert._suite import step_number

    name = case.id or case.name
    numbers = [s.step for s in case.steps]
    if not case.steps:
        return Row(
            kind="unreadable",
            source=where,
            error=f"test {name!r} has no multi_step, but the line gives 'step': {step!r}",
        )
    if step is None:
        return Row(
            kind="unreadable",
            source=where,
            error=f"test {name!r} has steps {', '.join(map(str, numbers))}: the line must say "
            'which it answers ("step": N)',
        )
    number = step_number(step)
    if number not in numbers:
        return Row(
            kind="unreadable",
            source=where,
            error=f"test {name!r} has no step {step!r} (its steps: {', '.join(map(str, numbers))})",
        )
    return HeldStep(
        suite=suite.name,
        case=case.name,
        step=number,
        subject=subject,
        shown=shown,
        where=where,
        subject_id=subject_id,
    )


# -- Arrow record batches ----------------------------------------------------------------------


def rows_from_arrow(
    checker: Checker,
    batch: Any,
    column: str | None = None,
    *,
    source: str = "arrow",
    offset: int = 0,
) -> list[Row]:
    """Check the records of an Arrow record batch (or table): one record per row.

    With `column`, that column holds each record, as a JSON string (or bytes) or a struct
    (read with `to_pylist`, no JSON round trip); without it, each row's columns are the
    record's fields. A row is located as `{source}#row={offset + i}`; a row that cannot be
    read (null, not JSON, of no known format) is an `unreadable` row there.

    Raises:
        ImportError: when pyarrow is not installed.
        KeyError: when `column` is not a column of the batch.
    """
    pyarrow_module("rows_from_arrow()")
    if column is not None:
        names = list(batch.schema.names)
        if column not in names:
            raise KeyError(f"no column {column!r} in the batch (its columns: {names})")
        values = batch.column(names.index(column)).to_pylist()
    else:
        values = batch.to_pylist()
    out: list[Row] = []
    for i, value in enumerate(values):
        where = f"{source}#row={offset + i}"
        if value is None:
            out.append(Row(kind="unreadable", source=where, error="the record is null"))
            continue
        out.extend(checker.check_record(value, where))
    return out
