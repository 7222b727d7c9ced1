"""The checks: the reply quotes the order id, in a conversation and in a JSON response.

Importing this module registers both (the `chatassert.checks` entry point names the module).
A check of one's own is known by its kind in every vocabulary whose positions check what it
checks (its `level`), and by the names its `dialect_names` adds:

- `QuotesOrderId` checks a turn: `quotes_order_id` in native and flat files and PromptKit
  turn assertions, where `mentions_order_id` names it too;
- `MessageQuotesOrderId` checks a JSON response: `message_quotes_order_id` in expect files
  (and in native and flat files and PromptKit turn assertions, on a turn's JSON).
"""

from __future__ import annotations

import re

from chatassert import Assertion, Param, Result, register
from chatassert.authoring import (
    arguments_of,
    each_call,
    errored,
    failed,
    json_of,
    passed,
    pointer,
    text_of,
)

__all__ = ["MessageQuotesOrderId", "QuotesOrderId"]


@register
class QuotesOrderId(Assertion):
    """Passes when the reply quotes the order id: `id` when given, else every id the turn
    looked up (the `order_id` argument of its `lookup_order` calls).

    An id is quoted when the reply holds it as written, as a word of its own (`A-1042`, not
    `A-10420`). A turn that looked no order up, given no `id`, cannot be checked: an error.

    Example:
        >>> from chatassert import ToolCall, Turn
        >>> lookup = ToolCall(name="lookup_order", arguments={"order_id": "A-1042"})
        >>> turn = Turn(text="Your refund for A-1042 is on its way.", tool_calls=[lookup])
        >>> QuotesOrderId().check(turn).passed
        True
        >>> QuotesOrderId(id="B-77").check(turn).reason
        "does not quote order id 'B-77'"
    """

    __slots__ = ("argument", "id", "tool")
    kind = "quotes_order_id"
    dialect_names = {"promptkit.turn": "mentions_order_id"}
    evidence_at = "/text"
    params = (
        Param("id", "str", default=None, doc="the id to quote (default: the ids looked up)"),
        Param("tool", "str", default="lookup_order", doc="the tool whose calls name the order"),
        Param("argument", "str", default="order_id", doc="the argument that holds the id"),
    )
    id: str | None
    tool: str
    argument: str

    def __init__(
        self,
        id: str | None = None,
        *,
        tool: str = "lookup_order",
        argument: str = "order_id",
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        for name, value in (("tool", tool), ("argument", argument)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"quotes_order_id: {name} must be a non-empty string")
        if id is not None and (not isinstance(id, str) or not id.strip()):
            raise ValueError("quotes_order_id: id must be a non-empty string")
        self._set("id", id)
        self._set("tool", tool)
        self._set("argument", argument)

    def _check(self, subject: object) -> Result:
        text = text_of(subject)
        if self.id is not None:
            wanted = [self.id]
        else:
            looked_up = [
                arguments_of(call).get(self.argument)
                for _, call in each_call(subject)
                if call.name == self.tool
            ]
            wanted = [str(value) for value in looked_up if isinstance(value, str | int)]
            if not wanted:
                return errored(
                    self,
                    f"no order id to look for: no {self.tool} call with {self.argument!r}, "
                    "and no id given",
                )
        for order_id in wanted:
            if _quoted(order_id, text) is None:
                return failed(
                    self,
                    f"does not quote order id {order_id!r}",
                    {"id": order_id, "ids": wanted},
                    pointer="/text",
                )
        return passed(self, details={"ids": wanted})

    def describe(self) -> str:
        """What the check requires, in words."""
        if self.id is not None:
            return f"the reply quotes order id {self.id!r}"
        return f"the reply quotes the {self.argument} of each {self.tool} call"


@register
class MessageQuotesOrderId(Assertion):
    """Passes when a JSON response's message quotes its order id: the `message` field holds
    the `order_id` field's value (or `id`, when given) as a word of its own.

    A response that is not a JSON object, or names no order id when no `id` is given, cannot
    be checked: an error.

    Example:
        >>> MessageQuotesOrderId().check({"order_id": "A-1042", "message": "A-1042 shipped"}).passed
        True
        >>> MessageQuotesOrderId().check({"order_id": "A-1042", "message": "Shipped"}).reason
        "message does not quote order id 'A-1042'"
    """

    __slots__ = ("field", "id", "id_field")
    kind = "message_quotes_order_id"
    level = "json"
    params = (
        Param("id", "str", default=None, doc="the id to quote (default: the id_field's value)"),
        Param("field", "str", default="message", doc="the field of the text that quotes it"),
        Param("id_field", "str", default="order_id", doc="the field of the order id"),
    )
    id: str | None
    field: str
    id_field: str

    def __init__(
        self,
        id: str | None = None,
        *,
        field: str = "message",
        id_field: str = "order_id",
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        for name, value in (("field", field), ("id_field", id_field)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"message_quotes_order_id: {name} must be a non-empty string")
        if id is not None and (not isinstance(id, str) or not id.strip()):
            raise ValueError("message_quotes_order_id: id must be a non-empty string")
        self._set("id", id)
        self._set("field", field)
        self._set("id_field", id_field)

    def _check(self, subject: object) -> Result:
        response = json_of(subject)
        if not isinstance(response, dict):
            return errored(
                self, f"the response is not a JSON object (got {type(response).__name__})"
            )
        order_id = self.id if self.id is not None else response.get(self.id_field)
        if not isinstance(order_id, str | int) or isinstance(order_id, bool):
            return errored(
                self,
                f"no order id to look for: the response has no {self.id_field!r}, and no id given",
                pointer=pointer(self.id_field),
            )
        text = response.get(self.field)
        where = pointer(self.field)
        if not isinstance(text, str):
            return failed(self, f"has no {self.field} to quote the order id", pointer=where)
        if _quoted(str(order_id), text) is None:
            return failed(
                self,
                f"{self.field} does not quote order id {str(order_id)!r}",
                {"id": str(order_id)},
                pointer=where,
            )
        return passed(self, details={"id": str(order_id)})

    def describe(self) -> str:
        """What the check requires, in words."""
        quoted = repr(self.id) if self.id is not None else f"the {self.id_field}"
        return f"the response's {self.field} quotes order id {quoted}"


def _quoted(order_id: str, text: str) -> tuple[int, int] | None:
    """The characters of `text` that are `order_id` as a word of its own, or None."""
    match = re.search(rf"(?<![\w-]){re.escape(order_id)}(?![\w-])", text)
    return None if match is None else match.span()
