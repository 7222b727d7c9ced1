"""Checks of one's own, for the tests of spec formats (tests/specs/test_user_checks.py and
test_user_check_tools.py): defined here, not registered. The `own_checks` fixture
(tests/specs/conftest.py) registers them for one test; `register_all` registers them in a
process of their own (a `--plugin` module of a subprocess).
"""

from __future__ import annotations

import re
from typing import Any

from chatassert import Assertion, Conversation, Param, Result, Status, register

__all__ = [
    "OWN",
    "ApologisesOnce",
    "HasOrder",
    "MentionsOrderId",
    "RefundWithinTotal",
    "WithinLimit",
    "register_all",
]


def _text(subject: object) -> str:
    return subject if isinstance(subject, str) else str(getattr(subject, "text", "") or "")


class MentionsOrderId(Assertion):
    """Passes when the reply quotes an order id (such as A-1234)."""

    __slots__ = ()
    kind = "mentions_order_id"
    dialect_names = {"flat": "mentions-order", "promptkit.turn": "quotes_order_id"}

    def _check(self, subject: object) -> Result:
        if re.search(r"\bA-\d{4}\b", _text(subject)):
            return Result(Status.PASSED, self.kind, "")
        return Result(Status.FAILED, self.kind, "quotes no order id")


class ApologisesOnce(Assertion):
    """Passes when the agent says sorry at most once in the whole conversation."""

    __slots__ = ()
    kind = "apologises_once"
    level = "conversation"

    def _check(self, subject: object) -> Result:
        turns = subject.turns if isinstance(subject, Conversation) else [subject]
        count = sum("sorry" in _text(turn).lower() for turn in turns)
        if count <= 1:
            return Result(Status.PASSED, self.kind, "")
        return Result(Status.FAILED, self.kind, f"says sorry {count} times")


class RefundWithinTotal(Assertion):
    """Passes when the response's refund does not exceed its order total."""

    __slots__ = ("field",)
    kind = "refund_within_total"
    level = "json"
    params = (Param("field", "str", default="refund", doc="the field holding the refund"),)
    field: str

    def __init__(self, field: str = "refund", *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("field", field)

    def _check(self, subject: object) -> Result:
        data: dict[str, Any] = subject if isinstance(subject, dict) else {}
        if data.get(self.field, 0) <= data.get("total", 0):
            return Result(Status.PASSED, self.kind, "")
        return Result(Status.FAILED, self.kind, f"{self.field} exceeds the total")


class WithinLimit(Assertion):
    """Passes when a numeric field of the response is at most a limit."""

    __slots__ = ("field", "limit")
    kind = "within_limit"
    level = "json"
    params = (Param("field", "str", required=True), Param("limit", "number", required=True))
    field: str
    limit: float

    def __init__(self, field: str, limit: float, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("field", field)
        self._set("limit", limit)

    def _check(self, subject: object) -> Result:
        data: dict[str, Any] = subject if isinstance(subject, dict) else {}
        ok = data.get(self.field, 0) <= self.limit
        return Result(Status.PASSED if ok else Status.FAILED, self.kind, "" if ok else "over")


class HasOrder(Assertion):
    """Passes when the response names an order."""

    __slots__ = ()
    kind = "has_order"
    level = "json"
    dialect_names = {"expect": "has-order-number"}

    def _check(self, subject: object) -> Result:
        ok = isinstance(subject, dict) and "order" in subject
        return Result(Status.PASSED if ok else Status.FAILED, self.kind, "" if ok else "none")


OWN = (MentionsOrderId, ApologisesOnce, RefundWithinTotal, WithinLimit, HasOrder)


def register_all() -> None:
    """Register every check of this module."""
    for cls in OWN:
        register(cls)
