"""Tests of chatassert._dates (docs/expect.md, "Keys", dates): `AllDatesBetween`,
`DatesWithinDays`, `AllDatesInYear` and `parse_date`, each on its own.

The decision-table rows of these checks (whole records, built by `expect_decisions.row`; see
`expect_decisions` for what a row promises), their construction errors and their descriptions,
then their standalone tests. Checks combined with another family's are in test_json_shared.py.
"""

from __future__ import annotations

import datetime as dt
import pickle
import time

import pytest
from expect_decisions import (
    SEARCH,
    F,
    P,
    clock,
    err,
    naive_clock,
    row,
    table_tests,
    zone_clock,
)

from chatassert import (
    AllDatesBetween,
    Status,
)
from chatassert._dates import parse_date
from chatassert.expect import (
    AllDatesInYear,
    DatesWithinDays,
)

ROWS = [
    row(
        "db-pass",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-01-01"}, {"d": "2026-01-31T23:59:59Z"}, {"d": "January 12, 2026"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31",
        {"path": "r[*].d", "expected": {"start": "2026-01-01", "end": "2026-01-31"}, "checked": 3},
        quick=True,
    ),
    row(
        "db-start-edge",
        lambda: AllDatesBetween("r[*].d", "2026-01-01T00:00:00Z", "2026-01-31"),
        {"r": [{"d": "2026-01-01T00:00:00Z"}]},
        P,
        "every r[*].d is between 2026-01-01T00:00:00Z and 2026-01-31",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01T00:00:00Z", "end": "2026-01-31"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-end-edge",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31T12:00:00Z"),
        {"r": [{"d": "2026-01-31T12:00:00Z"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31T12:00:00Z",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31T12:00:00Z"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-end-edge-dateutil",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31T12:00:00Z"),
        {"r": [{"d": "Jan 31 2026 12:00 UTC"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31T12:00:00Z",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31T12:00:00Z"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-fail",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-02-05T10:00:00Z"}, {"d": "2025-12-31"}]},
        F,
        "Date 2026-02-05 at r[0].d is outside range 2026-01-01 to 2026-01-31 (and 1 more)",
        {
            "path": "r[0].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": "2026-02-05T10:00:00Z",
            "index": 0,
            "offending": [
                {"path": "r[0].d", "actual": "2026-02-05T10:00:00Z", "index": 0},
                {"path": "r[1].d", "actual": "2025-12-31", "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "db-fail-zone",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-01-31T23:30:00-01:00"}]},
        F,
        "Date 2026-01-31 (2026-02-01 in UTC) at r[0].d is outside range 2026-01-01 to 2026-01-31",
        {
            "path": "r[0].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": "2026-01-31T23:30:00-01:00",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-31T23:30:00-01:00", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "db-not-a-date",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "soon"}, {"d": 3}, {"d": "2026-02-01"}]},
        F,
        "Value 'soon' at r[0].d is not a date (and 2 more)",
        {
            "path": "r[0].d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": "soon",
            "index": 0,
            "offending": [
                {"path": "r[0].d", "actual": "soon", "index": 0, "not_a_date": True},
                {"path": "r[1].d", "actual": 3, "index": 1, "not_a_date": True},
                {"path": "r[2].d", "actual": "2026-02-01", "index": 2},
            ],
            "offending_count": 3,
            "checked": 3,
        },
    ),
    row(
        "db-naive",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": [{"d": "2026-01-31T23:59:59"}]},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31",
        {"path": "r[*].d", "expected": {"start": "2026-01-01", "end": "2026-01-31"}, "checked": 1},
        quick=True,
    ),
    row(
        "db-missing",
        lambda: AllDatesBetween("d", "2026-01-01", "2026-01-31"),
        {},
        F,
        "Missing field: d",
        {
            "path": "d",
            "expected": {"start": "2026-01-01", "end": "2026-01-31"},
            "actual": None,
            "missing": True,
        },
    ),
    row(
        "db-empty",
        lambda: AllDatesBetween("r[*].d", "2026-01-01", "2026-01-31"),
        {"r": []},
        P,
        "every r[*].d is between 2026-01-01 and 2026-01-31",
        {"path": "r[*].d", "expected": {"start": "2026-01-01", "end": "2026-01-31"}, "checked": 0},
        quick=True,
    ),
    row(
        "dw-pass",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "2026-01-13T12:00:00Z"}, {"d": "2026-01-27T12:00:00Z"}]},
        P,
        "every r[*].d is within 7 days of now",
        {"path": "r[*].d", "expected": {"days": 7}, "checked": 2},
    ),
    row(
        "dw-fail-after",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "2026-01-27T12:00:00.000001Z"}]},
        F,
        "Date 2026-01-27 at r[0].d is 7 days from 2026-01-20 (more than 7)",
        {
            "path": "r[0].d",
            "expected": {"days": 7},
            "actual": "2026-01-27T12:00:00.000001Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-27T12:00:00.000001Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-fail",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "2026-01-19"}, {"d": "2026-01-02"}, {"d": "nope"}]},
        F,
        "Date 2026-01-02 at r[1].d is 18.5 days from 2026-01-20 (more than 7) (and 1 more)",
        {
            "path": "r[1].d",
            "expected": {"days": 7},
            "actual": "2026-01-02",
            "index": 1,
            "offending": [
                {"path": "r[1].d", "actual": "2026-01-02", "index": 1},
                {"path": "r[2].d", "actual": "nope", "index": 2, "not_a_date": True},
            ],
            "offending_count": 2,
            "checked": 3,
        },
    ),
    row(
        "dw-naive-clock",
        lambda: DatesWithinDays("r[*].d", 1.5, clock=naive_clock),
        {"r": [{"d": "2026-01-18T23:00:00Z"}]},
        F,
        "Date 2026-01-18 at r[0].d is 1.5 days from 2026-01-20 (more than 1.5)",
        {
            "path": "r[0].d",
            "expected": {"days": 1.5},
            "actual": "2026-01-18T23:00:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-18T23:00:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-zone-clock",
        lambda: DatesWithinDays("r[*].d", 0, clock=zone_clock),
        {"r": [{"d": "2026-01-20T12:00:00Z"}]},
        P,
        "every r[*].d is within 0 days of now",
        {"path": "r[*].d", "expected": {"days": 0}, "checked": 1},
    ),
    row(
        "dw-fraction",
        lambda: DatesWithinDays("r[*].d", 1, clock=clock),
        {"r": [{"d": "2026-01-18T20:00:00Z"}]},
        F,
        "Date 2026-01-18 at r[0].d is 1.7 days from 2026-01-20 (more than 1)",
        {
            "path": "r[0].d",
            "expected": {"days": 1},
            "actual": "2026-01-18T20:00:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-18T20:00:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-fraction-2",
        lambda: DatesWithinDays("r[*].d", 1, clock=clock),
        {"r": [{"d": "2026-01-18T11:42:00Z"}]},
        F,
        "Date 2026-01-18 at r[0].d is 2 days from 2026-01-20 (more than 1)",
        {
            "path": "r[0].d",
            "expected": {"days": 1},
            "actual": "2026-01-18T11:42:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "2026-01-18T11:42:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-missing",
        lambda: DatesWithinDays("d", 1, clock=clock),
        {},
        F,
        "Missing field: d",
        {"path": "d", "expected": {"days": 1}, "actual": None, "missing": True},
    ),
    row(
        "year-pass",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": "2026-01-01T00:30:00+01:00"}, {"d": "January 3, 2026"}]},
        P,
        "every r[*].d is in 2026",
        {"path": "r[*].d", "expected": {"year": 2026}, "checked": 2},
        quick=True,
    ),
    row(
        "year-fail",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": "2025-12-31T23:00:00Z"}, {"d": "2027-01-01"}]},
        F,
        "Date 2025-12-31 at r[0].d is not in 2026 (and 1 more)",
        {
            "path": "r[0].d",
            "expected": {"year": 2026},
            "actual": "2025-12-31T23:00:00Z",
            "index": 0,
            "offending": [
                {"path": "r[0].d", "actual": "2025-12-31T23:00:00Z", "index": 0},
                {"path": "r[1].d", "actual": "2027-01-01", "index": 1},
            ],
            "offending_count": 2,
            "checked": 2,
        },
    ),
    row(
        "year-fail-dateutil",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": "January 3, 2025"}]},
        F,
        "Date January 3, 2025 at r[0].d is not in 2026",
        {
            "path": "r[0].d",
            "expected": {"year": 2026},
            "actual": "January 3, 2025",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "January 3, 2025", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "year-early",
        lambda: AllDatesInYear("r[*].d", 5),
        {"r": [{"d": "0005-06-01"}]},
        P,
        "every r[*].d is in 5",
        {"path": "r[*].d", "expected": {"year": 5}, "checked": 1},
        quick=True,
    ),
    row(
        "year-not-date",
        lambda: AllDatesInYear("r[*].d", 2026),
        {"r": [{"d": 2026}]},
        F,
        "Value 2026 at r[0].d is not a date",
        {
            "path": "r[0].d",
            "expected": {"year": 2026},
            "actual": 2026,
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": 2026, "index": 0, "not_a_date": True}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "dw-far",
        lambda: DatesWithinDays("r[*].d", 7, clock=clock),
        {"r": [{"d": "1998-09-04T12:00:00Z"}]},
        F,
        "Date 1998-09-04 at r[0].d is 10000 days from 2026-01-20 (more than 7)",
        {
            "path": "r[0].d",
            "expected": {"days": 7},
            "actual": "1998-09-04T12:00:00Z",
            "index": 0,
            "offending": [{"path": "r[0].d", "actual": "1998-09-04T12:00:00Z", "index": 0}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
    row(
        "db-one-instant",
        lambda: AllDatesBetween("r[*].d", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00+01:00"),
        {"r": [{"d": "2026-01-01T10:00:00Z"}]},
        P,
        "every r[*].d is between 2026-01-01T10:00:00Z and 2026-01-01T11:00:00+01:00",
        {
            "path": "r[*].d",
            "expected": {"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00+01:00"},
            "checked": 1,
        },
        quick=True,
    ),
    row(
        "db-week-date-end",
        lambda: AllDatesBetween("d", "2026-01-01", "2026-W05-6"),
        {"d": "2026-01-31T23:00:00Z"},
        P,
        "every d is between 2026-01-01 and 2026-W05-6",
        {"path": "d", "expected": {"start": "2026-01-01", "end": "2026-W05-6"}, "checked": 1},
        quick=True,
    ),
    row(
        "db-end-minute",
        lambda: AllDatesBetween("d", "2026-01-01", "Jan 31 2026 23:59 UTC"),
        {"d": "2026-01-31T23:59:30Z"},
        F,
        "Date 2026-01-31 at d is outside range 2026-01-01 to 2026-01-31",
        {
            "path": "d",
            "expected": {"start": "2026-01-01", "end": "Jan 31 2026 23:59 UTC"},
            "actual": "2026-01-31T23:59:30Z",
            "offending": [{"path": "d", "actual": "2026-01-31T23:59:30Z"}],
            "offending_count": 1,
            "checked": 1,
        },
    ),
]


ERRORS = [
    err(
        "dates-bad-start",
        lambda: AllDatesBetween("d", "soon", "2026-01-01"),
        ValueError,
        "all_dates_between start 'soon' is not a date",
    ),
    err(
        "dates-bad-end",
        lambda: AllDatesBetween("d", "2026-01-01", "later"),
        ValueError,
        "all_dates_between end 'later' is not a date",
    ),
    err(
        "dates-reversed",
        lambda: AllDatesBetween("d", "2026-01-02", "2026-01-01"),
        ValueError,
        "all_dates_between end '2026-01-01' is before start '2026-01-02'",
    ),
    err(
        "within-negative",
        lambda: DatesWithinDays("d", -1),
        ValueError,
        "dates_within_days days must be a non-negative number, got -1",
    ),
    err(
        "within-not-number",
        lambda: DatesWithinDays("d", "7"),
        TypeError,
        "dates_within_days days must be a number, got str '7'",
    ),
    err(
        "within-bool",
        lambda: DatesWithinDays("d", True),
        TypeError,
        "dates_within_days days must be a number, got bool True",
    ),
    err(
        "within-nan",
        lambda: DatesWithinDays("d", float("nan")),
        TypeError,
        "dates_within_days days must be a number, got float nan",
    ),
    err(
        "within-none",
        lambda: DatesWithinDays("d", None),
        ValueError,
        "dates_within_days days must be a non-negative number, got None",
    ),
    err(
        "within-clock",
        lambda: DatesWithinDays("d", 1, clock=3),
        TypeError,
        "clock must be a callable returning an aware datetime",
    ),
    err(
        "year-zero",
        lambda: AllDatesInYear("d", 0),
        ValueError,
        "all_dates_in_year year must be at least 1, got 0",
    ),
    err(
        "year-text",
        lambda: AllDatesInYear("d", "2026"),
        TypeError,
        "all_dates_in_year year must be an integer, got str '2026'",
    ),
]


DESCRIPTIONS = [
    (
        lambda: AllDatesBetween("d", "2026-01-01", "2026-01-31"),
        "every d is between 2026-01-01 and 2026-01-31",
    ),
    (lambda: DatesWithinDays("d", 1.5), "every d is within 1.5 days of now"),
    (lambda: AllDatesInYear("d", 2026), "every d is in 2026"),
]


(
    test_a_check_decides_the_documented_record,
    test_a_bad_parameter_is_rejected_when_the_check_is_built,
    test_a_check_describes_its_requirement,
) = table_tests(ROWS, ERRORS, DESCRIPTIONS)


def test_a_time_written_in_the_end_bound_is_kept() -> None:
    """docs/expect.md, Keys: only an `end` written without a time means the end of that day."""
    check = AllDatesBetween("d", "2026-01-01", "2026-01-31T12:00:00Z")
    assert check.check({"d": "2026-01-31T12:00:00Z"}).passed
    late = check.check({"d": "2026-01-31T12:00:01Z"})
    assert (late.status, late.reason) == (
        F,
        "Date 2026-01-31 at d is outside range 2026-01-01 to 2026-01-31",
    )


def test_the_default_clock_is_utc_whatever_the_local_time_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/expect.md, Options: without `clock=`, `dates_within_days` reads the system clock,
    and dates compare as instants (naive means UTC)."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # nine hours east of UTC, no daylight saving
    time.tzset()
    try:
        now = dt.datetime.now(dt.UTC)
        check = DatesWithinDays("d", 0.1)  # 2.4 hours either side
        assert check.check({"d": now.isoformat()}).passed
        assert check.check({"d": now.replace(tzinfo=None).isoformat()}).passed
        unpickled = pickle.loads(pickle.dumps(check))
        assert unpickled.check({"d": now.isoformat()}).passed
        # 20:00 UTC is 05:00 the next day in Tokyo: the clock's day is its UTC day
        late = dt.datetime(2026, 1, 20, 20, 0)
        naive = DatesWithinDays("d", 0.1, clock=lambda: late)
        assert naive.check({"d": "2026-01-20T20:00:00Z"}).passed
        aware = DatesWithinDays("d", 0.1, clock=lambda: late.replace(tzinfo=dt.UTC))
        assert aware.check({"d": "2026-01-10T20:00:00Z"}).reason == (
            "Date 2026-01-10 at d is 10 days from 2026-01-20 (more than 0.1)"
        )
    finally:
        monkeypatch.undo()
        time.tzset()


def test_parse_date_reads_a_string_subclass_as_its_text() -> None:
    """`parse_date` docstring: an ISO 8601 date is parsed; anything that is not text is None."""

    class Text(str):
        __slots__ = ()

    assert parse_date(Text("2026-01-31"), end_of_day=True) == dt.datetime(
        2026, 1, 31, 23, 59, 59, 999999, tzinfo=dt.UTC
    )
    assert parse_date(20260131) is None


def test_parse_date_gives_utc_whatever_the_local_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """`parse_date` docstring: a date is parsed "as aware UTC", whatever the local time zone."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # nine hours east of UTC
    time.tzset()
    try:
        parsed = parse_date("2026-01-15T10:00:00+02:00")
        assert parsed is not None
        assert (parsed.isoformat(), parsed.tzinfo) == ("2026-01-15T08:00:00+00:00", dt.UTC)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_partial_date_is_not_a_date_whatever_the_day_today(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/expect.md, Dates: a partial date (`2026-01`) fails; "nothing is filled in from
    today's date", so the answer does not depend on the day the check runs."""
    import types

    from dateutil.parser import _parser

    class SecondOfMarch(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> SecondOfMarch:
            return cls(2026, 3, 2, 12, 0, tzinfo=tz)

    clock = types.ModuleType("datetime")
    clock.__dict__.update(vars(dt))
    clock.datetime = SecondOfMarch  # type: ignore[attr-defined]
    monkeypatch.setattr(_parser, "datetime", clock)
    assert _parser.parser().parse("March").day == 2  # dateutil's own default is today
    for partial in ("January 2026", "2026 January", "Jan 2026"):
        assert parse_date(partial) is None, partial
    assert parse_date("January 2 2026") == dt.datetime(2026, 1, 2, tzinfo=dt.UTC)


def test_parse_date_takes_naive_as_utc() -> None:
    assert parse_date("2026-01-31T23:30:00") == dt.datetime(2026, 1, 31, 23, 30, tzinfo=dt.UTC)
    assert parse_date("2026-01-31T23:30:00+02:00") == dt.datetime(
        2026, 1, 31, 21, 30, tzinfo=dt.UTC
    )
    assert parse_date("Jan 5 2026") == dt.datetime(2026, 1, 5, tzinfo=dt.UTC)
    assert parse_date("not a date") is None
    assert parse_date(20260101) is None


def test_a_date_only_end_is_the_whole_day() -> None:
    check = AllDatesBetween("results[*].metadata.created", "2026-01-01", "2026-01-31")
    assert check.check(SEARCH).passed  # 2026-01-31T23:30:00 (naive, UTC) is inside


def test_time_zones_are_compared_as_instants() -> None:
    check = AllDatesBetween("d[*]", "2026-01-01T00:00:00Z", "2026-01-31T23:59:59Z")
    assert check.check({"d": ["2026-02-01T00:30:00+01:00"]}).passed  # 23:30 UTC on Jan 31
    late = check.check({"d": ["2026-01-31T23:30:00-01:00"]})  # 00:30 UTC on Feb 1
    assert late.status is F
    assert late.reason == (  # the day as written, and the UTC day that decided it
        "Date 2026-01-31 (2026-02-01 in UTC) at d[0] is outside range 2026-01-01 to 2026-01-31"
    )


def test_a_value_that_is_not_a_date_fails() -> None:
    result = AllDatesBetween("d[*]", "2026-01-01", "2026-01-31").check({"d": ["soon", 3]})
    assert result.reason == "Value 'soon' at d[0] is not a date (and 1 more)"
    assert result.details["offending"][0]["not_a_date"] is True


def test_a_date_before_the_first_instant_in_utc_is_not_a_date_rather_than_an_error() -> None:
    check = AllDatesBetween("d[*]", "2026-01-01", "2026-01-31")
    result = check.check({"d": ["0001-01-01T00:30:00+01:00"]})
    assert result.status is Status.FAILED
    assert result.reason == "Value '0001-01-01T00:30:00+01:00' at d[0] is not a date"


def test_bad_ranges_are_rejected() -> None:
    with pytest.raises(ValueError, match="not a date"):
        AllDatesBetween("d", "yesterday-ish", "2026-01-01")
    with pytest.raises(ValueError, match="before start"):
        AllDatesBetween("d", "2026-02-01", "2026-01-01")


def test_dates_within_days_uses_the_injected_clock() -> None:
    now = dt.datetime(2026, 1, 31, 12, tzinfo=dt.UTC)
    check = DatesWithinDays("results[*].metadata.created", 30, clock=lambda: now)
    assert check.check(SEARCH).passed
    strict = DatesWithinDays("results[*].metadata.created", 5, clock=lambda: now)
    result = strict.check(SEARCH)
    assert result.reason == (
        "Date 2026-01-12 at results[0].metadata.created is 19.1 days from 2026-01-31 "
        "(more than 5) (and 1 more)"
    )
    naive_clock = DatesWithinDays("d[*]", 1, clock=lambda: dt.datetime(2026, 1, 1))
    assert naive_clock.check({"d": ["2026-01-01T20:00:00Z"]}).passed


def test_dates_within_days_defaults_to_the_system_clock_and_pickles() -> None:
    today = dt.datetime.now(dt.UTC).date().isoformat()
    check = DatesWithinDays("d[*]", 2)
    assert check.check({"d": [today]}).passed
    again = pickle.loads(pickle.dumps(check))
    assert again == check
    assert again.check({"d": [today]}).passed


def test_all_dates_in_year_uses_the_written_year() -> None:
    check = AllDatesInYear("d[*]", 2026)
    assert check.check({"d": ["2026-01-01T00:30:00+02:00", "2026-12-31"]}).passed
    assert check.check({"d": ["2025-12-31T23:00:00Z"]}).reason == (
        "Date 2025-12-31 at d[0] is not in 2026"
    )
    assert check.check({"d": ["March 3, 2026"]}).passed


@pytest.mark.parametrize("partial", ["Monday", "10:00", "1", "2026-01", "January"])
def test_a_partial_date_is_not_a_date(partial: str) -> None:
    # python-dateutil would fill the missing day, month or year from today's date
    check = AllDatesBetween("d[*]", "2000-01-01", "2100-12-31")
    result = check.check({"d": [partial]})
    assert result.status is Status.FAILED
    assert result.reason == f"Value '{partial}' at d[0] is not a date"


def test_an_end_written_without_a_time_means_the_end_of_that_day_in_any_format() -> None:
    for end in ("2026-01-31", "20260131", "Jan 31 2026", "31 January 2026"):
        check = AllDatesBetween("d[*]", "2026-01-01", end)
        assert check.check({"d": ["2026-01-31T23:30:00Z"]}).passed, end
    assert (
        not AllDatesBetween("d[*]", "2026-01-01", "Jan 31 2026 10:30")
        .check({"d": ["2026-01-31T23:30:00Z"]})
        .passed
    )
