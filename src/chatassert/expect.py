"""The expect dialect's checks over structured JSON responses (docs/expect.md).

An expect file loads with `chatassert.specs.load_suite`; these are the same checks written in
Python. The checks over any JSON path are native and at the top level (`FieldEquals`,
`FieldContains`, `HasFields`, `AllMatch`, `AllMatchPattern`, `InRange`, `SortedDesc`,
`AllDatesBetween`); what is here reads the response shape expect assumes (`status`, `error`,
`results`, `summary`, tags in `results[*].metadata.tags`) or is one of its compositions
(`OneOf`, `IfResults`, …).

Example:
    >>> from chatassert.expect import ResultsMin, StatusIs
    >>> response = {"status": "success", "results": [{"file": "a.md"}]}
    >>> (StatusIs("success") & ResultsMin(2)).check(response).reason
    '1 of 2 failed; first: Expected at least 2 results, got 1'
"""

from chatassert._dates import AllDatesInYear, DatesWithinDays
from chatassert._each import AllInRange, AllMatchOneOf, ArrayContains, NoneMatchPattern
from chatassert._fields import ErrorCodeIs, JsonContains, MessageContains, StatusIs, SummaryContains
from chatassert._responses import AgentUsedModel, NoOverlap
from chatassert._results import (
    AllHaveTags,
    EachHasAnyTag,
    IfHasHistory,
    IfResults,
    IfSensitiveResults,
    NoneHaveTags,
    OneOf,
    ResultsCount,
    ResultsMatchSchema,
    ResultsMax,
    ResultsMin,
)

__all__ = [
    "AgentUsedModel",
    "AllDatesInYear",
    "AllHaveTags",
    "AllInRange",
    "AllMatchOneOf",
    "ArrayContains",
    "DatesWithinDays",
    "EachHasAnyTag",
    "ErrorCodeIs",
    "IfHasHistory",
    "IfResults",
    "IfSensitiveResults",
    "JsonContains",
    "MessageContains",
    "NoOverlap",
    "NoneHaveTags",
    "NoneMatchPattern",
    "OneOf",
    "ResultsCount",
    "ResultsMatchSchema",
    "ResultsMax",
    "ResultsMin",
    "StatusIs",
    "SummaryContains",
]
