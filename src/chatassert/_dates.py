"""Checks on dates at a path of a JSON response: between two instants, within days, in a year.

Dates are ISO 8601 (python-dateutil reads anything else); a naive date means UTC; a date-only
`end` means the end of that day (docs/expect.md, "Dates"). Tests:
tests/expect/test_dates.py (combined with other families: tests/expect/test_json_shared.py).

Example:
    >>> from chatassert import AllDatesBetween
    >>> response = {"results": [{"date": "2024-03-01"}, {"date": "2024-05-02"}]}
    >>> AllDatesBetween("results[*].date", "2024-01-01", "2024-03-31").check(response).passed
    False
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from chatassert._jsonbase import (
    PATH_PARAM,
    Offenders,
    PathCheck,
    checked_int,
    checked_number,
    item_index,
    show,
)
from chatassert._params import Param, register
from chatassert._result import Result, Status

__all__ = [
    "AllDatesBetween",
    "AllDatesInYear",
    "DatesWithinDays",
    "parse_date",
]

_F = Status.FAILED

# -- dates ---------------------------------------------------------------------------------

_DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}")
_UTC = _dt.UTC
_FROM_ISO = _dt.datetime.fromisoformat
_EARLY = _dt.datetime(2000, 1, 1)
_LATE = _dt.datetime(2001, 2, 2, 23, 59, 59, 999999)  # every field differs from _EARLY


def _is_iso_date(text: str) -> bool:
    """Whether `text` is an ISO 8601 date without a time (`2026-01-31`, `20260131`)."""
    try:
        _dt.date.fromisoformat(text.strip())
    except ValueError:
        return False
    return True


def parse_date(value: Any, *, end_of_day: bool = False) -> _dt.datetime | None:
    """Parse an ISO 8601 date or datetime (other formats via python-dateutil) as aware UTC.

    A naive value is taken as UTC; a date-only value is midnight, or the last microsecond of
    the day when `end_of_day` is set. Returns None when the value is not a date.

    Example:
        >>> parse_date("2026-01-31", end_of_day=True).isoformat()
        '2026-01-31T23:59:59.999999+00:00'
        >>> parse_date("2026-01-15T10:00:00+02:00").isoformat()
        '2026-01-15T08:00:00+00:00'
    """
    if type(value) is not str:
        if not isinstance(value, str):
            return None
        value = str(value)
    try:
        parsed = _FROM_ISO(value)
        if parsed.tzinfo is _UTC and not end_of_day:  # the common case: ISO 8601 in UTC
            return parsed
        if end_of_day and _is_iso_date(value):
            parsed = parsed.replace(hour=23, minute=59, second=59, microsecond=999999)
    except ValueError:
        text = value.strip()
        if not text:
            return None
        try:
            from dateutil import parser as _parser

            # dateutil fills what the text leaves out from a default: parsed against two
            # different defaults, a partial date ("Monday", "10:00", "2026-01") differs
            first = _parser.parse(text, default=_EARLY)
            second = _parser.parse(text, default=_LATE)
        except (ValueError, OverflowError):
            return None
        if first.date() != second.date():
            return None  # not a date: a day, month or year is missing
        no_time = first.time() == _EARLY.time() and second.time() == _LATE.time()
        parsed = second if end_of_day and no_time else first
    zone = parsed.tzinfo
    if zone is None:
        return parsed.replace(tzinfo=_UTC)
    try:
        return parsed if zone is _UTC else parsed.astimezone(_UTC)
    except OverflowError:  # 0001-01-01T00:30+01:00 is before the first representable instant
        return None


def _shown_day(value: Any, when: _dt.datetime) -> str:
    """The day of a date for a reason: as written, with its UTC day when that differs."""
    written, utc = _day(value), when.date().isoformat()
    return written if written == utc else f"{written} ({utc} in UTC)"


def _day(value: Any) -> str:
    """The `YYYY-MM-DD` a date value was written with (its own calendar day)."""
    if isinstance(value, str):
        text = value.strip()
        if _DATE_PREFIX.match(text):
            return text[:10]
    return str(value)


class _Dates(PathCheck):
    """Every value at the path must be a date satisfying `_ok_date`."""

    __slots__ = ()

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        raise NotImplementedError

    def _context(self) -> Any:
        return None

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        raise NotImplementedError

    def _all_dates_ok(self, values: list[Any], ctx: Any) -> bool:
        """Whether every value is a date satisfying `_ok_date` (the common case)."""
        ok = self._ok_date
        for value in values:
            when = parse_date(value)
            if when is None or not ok(when, value, ctx):
                return False
        return True

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return lambda values: self._all_dates_ok(values, self._context())

    def _eval(self, data: Any) -> Result:
        found = self._path.find(data)
        if not found and not self._path.fans_out:
            return self._missing(self.path, self._expected())
        ctx = self._context()
        bad: Offenders | None = None
        first_reason = ""
        for value, where in found:
            when = parse_date(value)
            if when is not None and self._ok_date(when, value, ctx):
                continue
            location = self._path.location(where)
            if bad is None:
                bad = Offenders()
                first_reason = (
                    f"Value {show(value)} at {location} is not a date"
                    if when is None
                    else self._date_reason(value, when, location, ctx)
                )
            bad.add(
                location,
                value,
                item_index(where),
                **({} if when is not None else {"not_a_date": True}),
            )
        if bad is None:
            return self._passed(len(found))
        return Result(
            _F, self.kind, first_reason + bad.more(), bad.details(self._expected(), len(found))
        )


def _between(dates: Iterable[_dt.datetime | None], start: _dt.datetime, end: _dt.datetime) -> bool:
    """Whether every date is one (not None) in the inclusive range: `AllDatesBetween`'s rule."""
    for when in dates:  # noqa: SIM110 - a plain loop: no generator on the hot path
        if when is None or not start <= when <= end:  # aware datetimes compare as instants
            return False
    return True


@register
class AllDatesBetween(_Dates):
    """Passes when every date at the path is in the inclusive range (`all_dates_between`).

    Naive dates are UTC; a date-only `end` means the end of that day.

    Example:
        >>> from chatassert import AllDatesBetween
        >>> check = AllDatesBetween("results[*].metadata.created", "2026-01-01", "2026-01-31")
        >>> check.check({"results": [{"metadata": {"created": "2026-02-05T10:00:00Z"}}]}).reason
        'Date 2026-02-05 at results[0].metadata.created is outside range 2026-01-01 to 2026-01-31'
    """

    __slots__ = ("_end", "_start", "end", "start")
    kind = "expect_all_dates_between"
    dialect_names = {"expect": "all_dates_between"}
    params = (
        PATH_PARAM,
        Param("start", "str", required=True, doc="the earliest date (inclusive)"),
        Param("end", "str", required=True, doc="the latest date (inclusive)"),
    )
    start: str
    end: str
    _start: _dt.datetime
    _end: _dt.datetime

    def __init__(self, path: str, start: str, end: str, *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        parsed_start = parse_date(start)
        parsed_end = parse_date(end, end_of_day=True)
        if parsed_start is None:
            raise ValueError(f"all_dates_between start {start!r} is not a date")
        if parsed_end is None:
            raise ValueError(f"all_dates_between end {end!r} is not a date")
        if parsed_end < parsed_start:
            raise ValueError(f"all_dates_between end {end!r} is before start {start!r}")
        self._set("start", start)
        self._set("end", end)
        self._set("_start", parsed_start)
        self._set("_end", parsed_end)

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        return _between((when,), self._start, self._end)

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        start, end = self._start, self._end
        return lambda values: _between(map(parse_date, values), start, end)

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        return (
            f"Date {_shown_day(value, when)} at {location} is outside range "
            f"{self._start.date().isoformat()} to {self._end.date().isoformat()}"
        )

    def _expected(self) -> Any:
        return {"start": self.start, "end": self.end}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is between {self.start} and {self.end}"


def _system_clock() -> _dt.datetime:
    return _dt.datetime.now(_UTC)


@register
class DatesWithinDays(_Dates):
    """Passes when every date at the path is within N days of now (`dates_within_days`).

    "Within" is either side of now. The clock is injectable: `clock` is a callable returning
    an aware datetime (a naive one is taken as UTC); it is called once per check.

    Example:
        >>> import datetime as dt
        >>> from chatassert.expect import DatesWithinDays
        >>> now = lambda: dt.datetime(2026, 1, 31, tzinfo=dt.timezone.utc)
        >>> check = DatesWithinDays("results[*].date", 7, clock=now)
        >>> check.check({"results": [{"date": "2026-01-28"}, {"date": "2026-01-02"}]}).reason
        'Date 2026-01-02 at results[1].date is 29 days from 2026-01-31 (more than 7)'
    """

    __slots__ = ("_clock", "_span", "days")
    kind = "expect_dates_within_days"
    dialect_names = {"expect": "dates_within_days"}
    options = ("clock",)
    params = (PATH_PARAM, Param("days", "number", required=True, doc="how many days from now"))
    days: float
    _span: _dt.timedelta
    _clock: Callable[[], _dt.datetime]

    def __init__(
        self,
        path: str,
        days: float,
        *,
        message: str | None = None,
        clock: Callable[[], _dt.datetime] | None = None,
    ) -> None:
        super().__init__(path, message=message)
        number = checked_number("dates_within_days days", days)
        if number is None or number < 0:
            raise ValueError(f"dates_within_days days must be a non-negative number, got {days!r}")
        if clock is not None and not callable(clock):
            raise TypeError("clock must be a callable returning an aware datetime")
        self._set("days", number)
        self._set("_span", _dt.timedelta(days=number))
        self._set("_clock", clock or _system_clock)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        if state.get("_clock") is _system_clock:
            state["_clock"] = None
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        super().__setstate__({**state, "_clock": state.get("_clock") or _system_clock})

    def _all_ok_function(self) -> Callable[[list[Any]], bool] | None:
        return None  # no quick test: the clock is read once per check, by the full evaluation

    def _context(self) -> Any:
        now = self._clock()
        return now.replace(tzinfo=_UTC) if now.tzinfo is None else now.astimezone(_UTC)

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        return bool(abs(ctx - when) <= self._span)

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        days = round(abs(ctx - when).total_seconds() / 86400, 1)
        return (
            f"Date {_shown_day(value, when)} at {location} is {days:g} days from "
            f"{ctx.date().isoformat()} (more than {self.days:g})"
        )

    def _expected(self) -> Any:
        return {"days": self.days}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is within {self.days:g} days of now"


@register
class AllDatesInYear(_Dates):
    """Passes when every date at the path falls in the year (expect `all_dates_in_year`).

    The year is that of the date as written (its own time zone).

    Example:
        >>> from chatassert.expect import AllDatesInYear
        >>> AllDatesInYear("results[*].date", 2026).check(
        ...     {"results": [{"date": "2025-12-31T23:00:00Z"}]}).reason
        'Date 2025-12-31 at results[0].date is not in 2026'
    """

    __slots__ = ("year",)
    kind = "expect_all_dates_in_year"
    dialect_names = {"expect": "all_dates_in_year"}
    params = (PATH_PARAM, Param("year", "int", required=True, doc="the year"))
    year: int

    def __init__(self, path: str, year: int, *, message: str | None = None) -> None:
        super().__init__(path, message=message)
        self._set("year", checked_int("all_dates_in_year year", year, 1))

    def _ok_date(self, when: _dt.datetime, raw: str, ctx: Any) -> bool:
        if _DATE_PREFIX.match(raw):
            return raw.strip()[:4] == f"{self.year:04d}"
        return when.year == self.year

    def _date_reason(self, value: Any, when: _dt.datetime, location: str, ctx: Any) -> str:
        return f"Date {_day(value)} at {location} is not in {self.year}"  # the year as written

    def _expected(self) -> Any:
        return {"year": self.year}

    def describe(self) -> str:
        """Describe the requirement."""
        return f"every {self.path} is in {self.year}"
