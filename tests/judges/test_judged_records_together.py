"""`chatassert check` asks the judge for many records at once, each verdict for its record.

A run of one job checks the lines of a judged suite in batches (`Checker.lines_into`): the
judged cases of a batch are checked on one event loop, their requests in flight together up to
`CHATASSERT_JUDGE_CONCURRENCY`. These tests run the real command line against real HTTP
servers on 127.0.0.1; overlap is observed by the server (requests held until enough meet),
never by timing.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faulty import FaultyServer, expected
from loopback import LoopbackServer, Together, run_cli

from chatassert import LLMRubric
from chatassert.judges import FunctionJudge
from chatassert.records import RECORD_END, Checker, Row
from cli_runs import without_durations

POLITE = "{type: llm_rubric, value: is polite}"


def _log(folder: Path, count: int) -> None:
    lines = [
        json.dumps(
            {
                "id": f"c{i}",
                "messages": [
                    {"role": "user", "content": f"Question {i}"},
                    {"role": "assistant", "content": f"Answer for ITEM-{i}."},
                ],
            }
        )
        for i in range(count)
    ]
    (folder / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cases(report: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if "result" in row]


@pytest.fixture
def faulty() -> Iterator[FaultyServer]:
    """A judge whose verdict follows the item its request names (no faults): every third
    item fails; answers come back in a shuffled order (each after a random pause)."""
    server = FaultyServer(rate=0.0, seed=3)
    server.start()
    yield server
    server.stop()


def test_the_judged_records_of_a_run_are_asked_together(
    server: LoopbackServer, tmp_path: Path
) -> None:
    server.default = together = Together(8, patience=10)  # held until eight meet
    _log(tmp_path, 8)
    done = run_cli(tmp_path, server, "check", "--assert", POLITE, "log.jsonl", "-o", "r.jsonl")
    assert done.returncode == 0, done.stderr
    assert together.peak == 8  # one after another, no two requests would have met
    cases = _cases(tmp_path / "r.jsonl")
    assert [c["source"] for c in cases] == [f"log.jsonl:{i}" for i in range(1, 9)]
    assert all(c["cost"]["requests"] == 1 for c in cases)  # each case counts its own


def _span(session: int, index: int) -> str:
    """An OpenTelemetry chat span of `session` (its `index`-th), one line of a log."""
    said = [{"role": "user", "parts": [{"type": "text", "content": f"Question {index}"}]}]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": f"ITEM-{session}"}]}]
    attributes = {
        "gen_ai.operation.name": "chat",
        "session.id": f"s{session}",
        "gen_ai.input.messages": json.dumps(said),
        "gen_ai.output.messages": json.dumps(answer),
    }
    span = {
        "traceId": f"{session:032x}",
        "spanId": f"{session * 16 + index:016x}",
        "name": "chat",
        "startTimeUnixNano": str(index * 100 + session),
        "attributes": attributes,
    }
    return json.dumps(span)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_grouped_conversations_are_asked_together_too(
    server: LoopbackServer, tmp_path: Path, jobs: str
) -> None:
    server.default = together = Together(6, patience=10)
    lines = [_span(session, index) for index in range(2) for session in range(6)]
    (tmp_path / "spans.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli(
        tmp_path,
        server,
        *("check", "--assert", POLITE, "--group-by", "session.id", "spans.jsonl"),
        *("-o", "r.jsonl", "--jobs", jobs),
    )
    assert done.returncode == 0, done.stderr
    assert together.peak == 6  # the six sessions' requests met
    cases = _cases(tmp_path / "r.jsonl")
    assert [c["source"] for c in cases] == [f"spans.jsonl:{i}#s{i - 1}" for i in range(1, 7)]


@pytest.mark.parametrize(
    ("option", "env"),
    [
        (["--judge-concurrency", "3"], {}),
        ([], {"CHATASSERT_JUDGE_CONCURRENCY": "3"}),
        (["--judge-concurrency", "3"], {"CHATASSERT_JUDGE_CONCURRENCY": "40"}),  # option wins
    ],
)
def test_the_requests_in_flight_stay_within_the_concurrency(
    server: LoopbackServer, tmp_path: Path, option: list[str], env: dict[str, str]
) -> None:
    server.default = together = Together(3, patience=10)
    _log(tmp_path, 12)
    done = run_cli(tmp_path, server, "check", "--assert", POLITE, *option, "log.jsonl", env=env)
    assert done.returncode == 0, done.stderr
    assert together.peak == 3  # three met, and never a fourth beside them
    assert len(server.requests) == 12


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_each_record_gets_the_verdict_of_its_own_request(
    faulty: FaultyServer, server: LoopbackServer, tmp_path: Path, jobs: str
) -> None:
    _log(tmp_path, 90)
    done = run_cli(
        tmp_path,
        server,
        *("check", "--assert", POLITE, "log.jsonl", "-o", "r.jsonl", "--full-results"),
        *("--jobs", jobs),
        env={"CHATASSERT_JUDGE_BASE_URL": faulty.url, "CHATASSERT_JUDGE_CONCURRENCY": "16"},
    )
    assert done.returncode == 1, done.stderr  # every third item fails
    cases = _cases(tmp_path / "r.jsonl")
    assert [c["subject_id"] for c in cases] == [f"c{i}" for i in range(90)]
    wrong = [
        c["subject_id"]
        for i, c in enumerate(cases)
        if (c["result"]["status"] == "passed") != expected(i)
        or f"item {i}" not in json.dumps(c["result"])
    ]
    assert not wrong, wrong[:5]
    assert faulty.requests == 90


# -- the checker's batches, in process -----------------------------------------------------


def _lines(count: int) -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    for i in range(count):
        text = f"Answer for ITEM-{i}." if i != 2 else "Sorry, no."
        turns = [{"input": f"Question {i}", "text": text}]
        out.append((json.dumps({"id": f"c{i}", "turns": turns}), "log", i + 1))
    out.insert(3, ("not json", "log", 99))  # an unreadable line among them
    return out


def _suite_checker(judge: Any, examples: int = 10) -> Checker:
    from chatassert._combinators import OnEveryTurn
    from chatassert._suite import Case, Suite
    from chatassert._text import Contains

    rubric = OnEveryTurn(LLMRubric("answers the question", judge=judge))
    cases = (
        Case(name="judged", checks=(rubric,)),
        Case(name="plain", checks=(OnEveryTurn(Contains("ITEM")),)),
    )
    # named as `inline_suite` names the cases of `--assert`: every subject is checked by both
    suite = Suite(name="--assert", cases=cases, dialect="native")
    return Checker([suite], trees=True, examples=examples)


def _shown(items: list[Any]) -> list[tuple[Any, ...]]:
    return [
        ("END",) if item is RECORD_END else (item.kind, item.source, item.case, item.status)
        for item in items
    ]


def _tree(item: Any) -> Any:
    """A row's result tree, but its durations (which no two runs share)."""
    tree = getattr(item, "result", None)
    return None if tree is None else without_durations(json.loads(tree))


def test_a_batch_gives_exactly_what_its_lines_give_one_by_one() -> None:
    judge = FunctionJudge(lambda request: "ITEM" in request.response, name="names-an-item")
    lines = _lines(6)
    one_by_one: list[Any] = []
    alone = _suite_checker(judge, examples=2)
    for line in lines:
        alone.line_into(*line, one_by_one)
    together: list[Any] = []
    batched = _suite_checker(judge, examples=2)
    batched.lines_into(lines, together)
    assert _shown(together) == _shown(one_by_one)
    assert list(map(_tree, together)) == list(map(_tree, one_by_one))
    # the failing rows that keep their outcome (the summary's examples) are the same ones
    kept = [(r.source, r.case) for r in together if isinstance(r, Row) and r.outcome]
    assert kept == [(r.source, r.case) for r in one_by_one if isinstance(r, Row) and r.outcome]
    assert len(kept) == 2
    assert ("unreadable", "log:99", None, "error") in _shown(together)


async def _stuck_on_item_3(request: Any) -> bool:
    """A judge that passes every answer but item 3's, whose request is never answered: once
    the others' checks (waiting on nothing) have run to their end, Ctrl-C comes."""
    if "ITEM-3" in request.response:
        for _ in range(100):
            await asyncio.sleep(0)
        signal.raise_signal(signal.SIGINT)
        await asyncio.Event().wait()
    return True


def _interrupted(run: Callable[[], object]) -> None:
    """`run()` under Python's own SIGINT handler (asyncio cancels what it runs), which must
    end in `KeyboardInterrupt`."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
    finally:
        signal.signal(signal.SIGINT, previous)


WHOLE_BEFORE_ITEM_3 = [
    *("log:1", "log:1", "log:2", "log:2", "log:3", "log:3"),
    "log:99",  # the unreadable line, a record of its own, read before item 3
]
"""The sources of the rows of `_lines(6)` checked whole before item 3 (two cases each)."""


def test_ctrl_c_during_a_batch_keeps_the_records_checked_whole_before_it() -> None:
    checker = _suite_checker(FunctionJudge(_stuck_on_item_3, name="stuck-on-3"))
    out: list[Any] = []
    _interrupted(lambda: checker.lines_into(_lines(6), out))
    shown = _shown(out)
    assert [s[1] for s in shown if s != ("END",)] == WHOLE_BEFORE_ITEM_3
    assert shown[-1] == ("END",)
    assert shown.count(("END",)) == 4


def test_check_records_asks_the_judge_for_a_batch_of_records_at_once() -> None:
    """Five requests must be waiting together before any is answered: one after another,
    the first would wait alone (and give up, an error, after ten seconds)."""
    waiting: list[asyncio.Event] = []

    async def reply(request: Any) -> bool:
        met = asyncio.Event()
        waiting.append(met)
        if len(waiting) == 5:
            for event in waiting:
                event.set()
        await asyncio.wait_for(met.wait(), 10)
        return "ITEM" in request.response

    checker = _suite_checker(FunctionJudge(reply, name="five-together"))
    records = [line for line, _, _ in _lines(5) if line != "not json"]
    rows = list(checker.check_records(records))
    assert [(r.source, r.case, r.status) for r in rows if r.case == "judged"] == [
        (f"<record {i}>", "judged", "failed" if i == 3 else "passed") for i in range(1, 6)
    ]


def test_check_records_of_read_records_gives_every_row() -> None:
    """Records read already (`Record`, whose parts are checked as they are) come out whole
    from a batch too, as they do one by one."""
    from chatassert.transcripts import parse_text

    judge = FunctionJudge(lambda request: "ITEM" in request.response, name="names-an-item")
    lines = _lines(4)
    records = [(f"log:{n}", parse_text(text, "log", n)) for text, _, n in lines]
    batched = [(r.source, r.case, r.status) for r in _suite_checker(judge).check_records(records)]
    alone = _suite_checker(judge)
    one_by_one = [
        (r.source, r.case, r.status) for s, x in records for r in alone.check_record(x, s)
    ]
    assert batched == one_by_one
    assert len(batched) == 2 * 4 + 1  # two cases a conversation, and the unreadable line


def test_ctrl_c_in_check_records_gives_the_rows_of_the_records_checked_whole() -> None:
    from chatassert.transcripts import parse_text

    checker = _suite_checker(FunctionJudge(_stuck_on_item_3, name="stuck-on-3"))
    records = [(f"log:{n}", parse_text(text, "log", n)) for text, _, n in _lines(6)]
    rows: list[Row] = []
    _interrupted(lambda: rows.extend(checker.check_records(records)))
    assert [r.source for r in rows] == WHOLE_BEFORE_ITEM_3


def test_ctrl_c_before_the_judges_are_asked_keeps_the_records_that_needed_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the batch's lines are still read: the records before the first judged
    case are whole (here two unreadable lines), the rest is not reported."""
    judge = FunctionJudge(lambda request: True, name="never-asked")
    checker = _suite_checker(judge)
    original = Checker.line_into
    calls = 0

    def line_into(self: Checker, *args: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 4:
            raise KeyboardInterrupt  # as the command line's handler raises it
        original(self, *args)

    monkeypatch.setattr(Checker, "line_into", line_into)
    lines = [("not json", "log", 1), ("{", "log", 2), *_lines(3)]
    out: list[Any] = []
    with pytest.raises(KeyboardInterrupt):
        checker.lines_into(lines, out)
    assert _shown(out) == [
        ("unreadable", "log:1", None, "error"),
        ("END",),
        ("unreadable", "log:2", None, "error"),
        ("END",),
    ]
