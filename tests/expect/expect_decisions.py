"""Row builders, clocks, a sample response and the table-driven tests, shared
by the expect checks' test files (tests/expect/test_fields.py, test_each.py, test_dates.py,
test_results.py and test_json_shared.py). Not a test module: imported by them as
`from expect_decisions import ...`.

Each row of a decision table (ROWS in each test file) is a check, a subject and the full
outcome the documentation promises: the status, the reason (the "failure reason" column of the
keys table in docs/expect.md, or the check's description on a pass) and every detail key (the
"Details" section: `path`, `expected`, `actual`, `index`, `offending`, `offending_count`,
`checked`). A row marked `quick` is a common-case pass that the compiled quick test answers with
the shared passing result (`JsonCheck` class docstring); every row is also checked through the
full evaluation alone, which must give the same record. Checks are built inside the test (a
check memoises its passes and its quick test), so every row sees the code as it is when the test
runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from chatassert import Assertion, Status
from chatassert._jsonbase import JsonCheck

P, F, E, S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


NOW = dt.datetime(2026, 1, 20, 12, 0, tzinfo=dt.UTC)


def clock() -> dt.datetime:
    return NOW


def naive_clock() -> dt.datetime:
    """A naive clock reading is UTC (docs/expect.md, Options: `clock=`)."""
    return dt.datetime(2026, 1, 20, 12, 0)


def zone_clock() -> dt.datetime:
    """The same instant as NOW, one hour east of UTC."""
    return dt.datetime(2026, 1, 20, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


CONTAINS_ITSELF: list[Any] = []


CONTAINS_ITSELF.append(CONTAINS_ITSELF)  # a Python value no JSON text can write


def row(
    name: str,
    build: Callable[[], Assertion],
    subject: Any,
    status: Status,
    reason: str,
    details: dict[str, Any],
    *,
    quick: bool = False,
) -> Any:
    return pytest.param(build, subject, status, reason, details, quick, id=name)


def _record(result: Any) -> tuple[Status, str, dict[str, Any]]:
    return result.status, result.reason, dict(result.details)


def _named(result: Any, check: Assertion) -> Any:
    assert result.name == check.kind  # every outcome names the check's kind
    return result


def err(name: str, build: Callable[[], Any], kind: type[Exception], message: str) -> Any:
    return pytest.param(build, kind, message, id=name)


SEARCH = {
    "status": "success",
    "message": "Search finished",
    "summary": "Found 3 Security notes",
    "results": [
        {
            "file": "journal/2026/01/incident.md",
            "type": "note",
            "relevance": 0.97,
            "metadata": {"tags": ["work", "security"], "created": "2026-01-12T09:30:00Z"},
        },
        {
            "file": "journal/2026/01/review.md",
            "type": "note",
            "relevance": 0.81,
            "metadata": {"tags": ["work"], "created": "2026-01-20"},
        },
        {
            "file": "people/alice.md",
            "type": "person",
            "relevance": 0.5,
            "sensitive": True,
            "metadata": {"created": "2026-01-31T23:30:00"},
        },
    ],
    "pagination": {"total": 3, "offset": 0, "next": None},
    "sensitive_dirs_skipped": ["documents/"],
}


def table_tests(
    rows: list[Any], errors: list[Any], descriptions: list[Any]
) -> tuple[Callable[..., None], Callable[..., None], Callable[..., None]]:
    """The three table-driven tests of a family's test file, over its own tables.

    A test file binds them to its own names, so each family reports its rows under the same
    test names: `test_a_check_decides_the_documented_record` (ROWS),
    `test_a_bad_parameter_is_rejected_when_the_check_is_built` (ERRORS) and
    `test_a_check_describes_its_requirement` (DESCRIPTIONS).
    """

    @pytest.mark.parametrize(("build", "subject", "status", "reason", "details", "quick"), rows)
    def decides(
        build: Callable[[], Assertion],
        subject: Any,
        status: Status,
        reason: str,
        details: dict[str, Any],
        quick: bool,
    ) -> None:
        """docs/expect.md, Keys and Details: the status, reason and details of each outcome."""
        check = build()
        result = _named(check.check(subject), check)
        assert _record(result) == (status, reason, details)
        if isinstance(check, JsonCheck):  # the full evaluation alone decides the same
            alone = build()
            assert isinstance(alone, JsonCheck)
            assert _record(_named(alone._check_in_full(subject), alone)) == (
                status,
                reason,
                details,
            )
        if quick:  # the quick test answers the common-case pass itself (JsonCheck docstring)
            fresh = build()
            assert isinstance(fresh, JsonCheck)
            answer = fresh._quick_test()(subject)
            assert answer is not None
            assert _record(answer) == (status, reason, details)
            assert fresh.check(subject) is answer  # the shared passing result

    @pytest.mark.parametrize(("build", "kind", "message"), errors)
    def rejects(build: Callable[[], Any], kind: type[Exception], message: str) -> None:
        """docs/expect.md, Files: bad values say what was expected and what was found."""
        with pytest.raises(kind) as caught:
            build()
        assert str(caught.value) == message

    @pytest.mark.parametrize(("build", "words"), descriptions)
    def describes(build: Callable[[], Assertion], words: str) -> None:
        """docs/expect.md: a pass says what held, and `one_of` and the conditional checks spell
        out their branches with these words (`Neither status is 'error' nor ...`)."""
        assert build().describe() == words

    return decides, rejects, describes
