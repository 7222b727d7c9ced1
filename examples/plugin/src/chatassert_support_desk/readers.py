"""The log reader: a support desk's ticket export, one ticket per JSON line.

A line of the export is one ticket and its timeline:

```json
{"ticket_id": "T-1001", "case": "refund status", "channel": "chat",
 "timeline": [
   {"author": "customer", "body": "Where is the refund for order A-1042?"},
   {"author": "bot", "action": "lookup_order", "params": {"order_id": "A-1042"},
    "result": {"status": "refunded", "total": 59.0}},
   {"author": "bot", "body": "The refund for order A-1042 was issued on March 1."}]}
```

It reads into one `Conversation` (its id the ticket's, its metadata the ticket's `case` and
`channel`): each customer entry starts a turn (entries in a row are one input); the bot's
`body` entries are the turn's text, its `action` entries the turn's tool calls, each with its
`result` (or `error`) as the call's tool result. An entry before the first customer entry
(a greeting) is a turn without input.
"""

from __future__ import annotations

import json
from typing import Any

from chatassert import Conversation, ToolCall, ToolResult, Turn
from chatassert.errors import TranscriptError
from chatassert.transcripts import Reader

__all__ = ["SUPPORT_DESK", "detect", "parse"]


def detect(record: Any) -> bool:
    """Whether `record` is a ticket of the export: an object with a `ticket_id` and a
    `timeline` list."""
    return (
        isinstance(record, dict)
        and "ticket_id" in record
        and isinstance(record.get("timeline"), list)
    )


def parse(record: Any) -> Conversation:
    """Read a ticket into its `Conversation`.

    Raises:
        TranscriptError: naming the place (`timeline[2].params`), what it should be and what
            it is, for a ticket that does not read.
    """
    ticket = record["ticket_id"]
    if not isinstance(ticket, str) or not ticket:
        raise TranscriptError(f"ticket_id should be a non-empty string, got {ticket!r}")
    turns: list[dict[str, Any]] = []
    for index, entry in enumerate(record["timeline"]):
        where = f"timeline[{index}]"
        if not isinstance(entry, dict):
            raise TranscriptError(f"{where} should be an object, got {type(entry).__name__}")
        author = entry.get("author")
        if author == "customer":
            body = _text(entry, where)
            if turns and not turns[-1]["text"] and not turns[-1]["calls"]:
                turns[-1]["input"] = f"{turns[-1]['input']}\n{body}"  # one input, in a row
            else:
                turns.append({"input": body, "text": "", "calls": [], "results": []})
        elif author == "bot":
            if not turns:
                turns.append({"input": None, "text": "", "calls": [], "results": []})
            _bot_entry(entry, where, f"{ticket}#{index}", turns[-1])
        else:
            raise TranscriptError(f"{where}.author should be 'customer' or 'bot', got {author!r}")
    metadata = {key: record[key] for key in ("case", "channel") if key in record}
    return Conversation(
        id=ticket,
        metadata=metadata,
        turns=tuple(
            Turn(
                input=turn["input"],
                text=turn["text"],
                tool_calls=tuple(turn["calls"]),
                tool_results=tuple(turn["results"]),
            )
            for turn in turns
        ),
    )


def _text(entry: dict[str, Any], where: str) -> str:
    body = entry.get("body")
    if not isinstance(body, str):
        raise TranscriptError(f"{where}.body should be a string, got {body!r}")
    return body


def _bot_entry(entry: dict[str, Any], where: str, call_id: str, turn: dict[str, Any]) -> None:
    """Add a bot entry to its turn: a reply to the text, an action to the tool calls."""
    if "action" not in entry:
        body = _text(entry, where)
        turn["text"] = f"{turn['text']}\n{body}" if turn["text"] else body
        return
    action, params = entry["action"], entry.get("params", {})
    if not isinstance(action, str) or not action:
        raise TranscriptError(f"{where}.action should be a tool's name, got {action!r}")
    if not isinstance(params, dict):
        raise TranscriptError(f"{where}.params should be an object, got {params!r}")
    turn["calls"].append(ToolCall(name=action, arguments=params, id=call_id))
    if "error" in entry:
        turn["results"].append(
            ToolResult(content=str(entry["error"]), call_id=call_id, name=action, is_error=True)
        )
    elif "result" in entry:
        result = entry["result"]
        content = result if isinstance(result, str) else json.dumps(result)
        turn["results"].append(
            ToolResult(content=content, call_id=call_id, name=action, data=result)
        )


SUPPORT_DESK = Reader(
    "support-desk",
    detect,
    parse,
    keys=("ticket_id", "timeline"),
    wants="'ticket_id' with a 'timeline' list",
    fills=frozenset({"text", "tool_calls", "call_ids", "arguments", "tool_results"}),
)
"""The support desk's export as a log format: `--log-format support-desk`, and detected by
its `ticket_id` and `timeline` without it."""
