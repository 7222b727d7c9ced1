"""Where chatassert's verdicts differ from the verdicts a recording carries.

A PromptKit recording (`*.arena.json`) keeps the assertion results PromptKit recorded; the
adapter puts them in `conversation.metadata["recorded_assertions"]`, each with its place
(`turns[i]` or `conversation`). Each recorded result is paired with chatassert's result of the
same assertion type at the same place, in order (a recorded result without a type, as an eval
run records them, pairs by its message, else by order), and the two verdicts are compared.

Example:
    >>> from chatassert import Conversation, OnTurn, Turn
    >>> from chatassert.promptkit import ContentIncludes
    >>> from chatassert.specs import Case
    >>> chat = Conversation(turns=[Turn(input="Refund?", text="Refunded.")], metadata={
    ...     "recorded_assertions": [{"location": "turns[0]", "type": "content_includes",
    ...                              "passed": False, "message": None}]})
    >>> case = Case("refund", checks=(OnTurn(0, ContentIncludes(["refunded"])),))
    >>> recorded, differ = recorded_verdicts(case.check(chat), chat)
    >>> print(disagreement_text(differ[0]))
    turns[0] content_includes: recorded failed, chatassert passed
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatassert._models import Conversation
from chatassert._params import normalise_type
from chatassert._registry import dialect_types
from chatassert._result import Result, shorten

__all__ = ["disagreement_text", "recorded_verdicts"]


def _places(result: Result) -> dict[str, list[Result]]:
    """chatassert's assertion results of a case, by place: a turn record's assertions at its
    turn, a selector's per-turn results at their turns, other checks at `conversation`."""
    places: dict[str, list[Result]] = {}
    for child in result.children:
        place = child.location or "conversation"
        if child.name == "turn" and place.startswith("turns["):
            places.setdefault(place, []).extend(child.children)
        elif child.children and all(
            (c.location or "").startswith("turns[") for c in child.children
        ):
            for c in child.children:
                places.setdefault(str(c.location), []).append(c)
        else:
            places.setdefault(place, []).append(child)
    return places


def _kinds(name: str, place: str) -> set[str]:
    """The result names that stand for a PromptKit type at a place (its kind at that level)."""
    level = "conversation" if place == "conversation" else "turn"
    cls = dialect_types(f"promptkit.{level}").get(normalise_type(name))
    return {cls.kind} if cls is not None else {name, normalise_type(name)}


def _verdict(entry: Mapping[str, Any]) -> str | None:
    if entry.get("skipped") is True:
        return "skipped"
    passed = entry.get("passed")
    return None if not isinstance(passed, bool) else "passed" if passed else "failed"


def recorded_verdicts(
    result: Result, conversation: Conversation
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    """Compare a case's result with the verdicts its conversation's recording carries.

    Returns `(recorded, disagreements)`, or None when the conversation carries no recorded
    verdicts. Each recorded row is `{location, type, message, recorded, chatassert}` (the two
    verdicts, `chatassert` None when no result of the case pairs with it); a disagreement is
    such a row whose verdicts are both given and differ (a skipped one is never compared),
    with the `label` and `reason` of chatassert's result.
    """
    entries = conversation.metadata.get("recorded_assertions")
    if not isinstance(entries, list):
        return None
    places = _places(result)
    used: set[int] = set()
    recorded: list[dict[str, Any]] = []
    disagreements: list[dict[str, Any]] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        place = str(entry.get("location") or "conversation")
        free = [c for c in places.get(place, ()) if id(c) not in used]
        kind, message = entry.get("type"), entry.get("message")
        if isinstance(kind, str):
            names = _kinds(kind, place)
            match = next((c for c in free if c.name in names), None)
        else:
            match = next((c for c in free if message and c.message == message), None)
            match = match or next(iter(free), None)
        theirs = _verdict(entry)
        ours = None if match is None else match.status.value
        row = {
            "location": place,
            "type": kind,
            "message": message,
            "recorded": theirs,
            "chatassert": ours,
        }
        recorded.append(row)
        if match is None:
            continue
        used.add(id(match))
        if theirs in ("passed", "failed") and ours != "skipped" and ours != theirs:
            disagreements.append({**row, "label": match.label, "reason": match.reason})
    return recorded, disagreements


def disagreement_text(disagreement: Mapping[str, Any]) -> str:
    """One line for a disagreement: where, which check, both verdicts (and chatassert's reason
    when it did not pass)."""
    what = disagreement.get("type") or disagreement.get("label")
    text = (
        f"{disagreement['location']} {what}: recorded {disagreement['recorded']}, "
        f"chatassert {disagreement['chatassert']}"
    )
    if disagreement["chatassert"] != "passed" and disagreement.get("reason"):
        text += f" ({shorten(str(disagreement['reason']), 100)})"
    return text
