"""Conversations spread over many log lines, grouped by a key with bounded memory.

A span-per-line OpenTelemetry log, or an OpenAI log of one model call per line with a session
field, holds one conversation over many lines, interleaved with others. `grouped` reads such
a log line by line and gathers what each key names: the spans of an OpenTelemetry line (each
span on its own: one line may hold spans of several traces), or the whole record of any other
line. A group not seen for `window` lines is complete: it is read as one conversation, named
`file:first-line#key`, and dropped from memory. So memory holds only the groups seen in the
last `window` lines (and the keys of the groups closed, to notice one that comes back).

A group that comes back after the window closed it (its lines are further apart than the
window) cannot be joined to what was already checked: the rest is read as a conversation of
its own, named by its own first line, and an error record says so, naming the window to raise.
A line that cannot be read, or that has no key, is an error record of its own line; the group
around it is still read.

Example:
    >>> import json
    >>> calls = [("s1", "Hi", "Hello!"), ("s2", "Yo", "Hey."), ("s1", "Bye", "Goodbye.")]
    >>> lines = [(n, json.dumps({"session_id": s, "request": {"messages": [
    ...     {"role": "user", "content": u}]}, "response": {"choices": [
    ...     {"message": {"role": "assistant", "content": a}}]}}))
    ...     for n, (s, u, a) in enumerate(calls, 1)]
    >>> [(g.where, len(g.units)) for g in grouped(lines, "log.jsonl", "session_id", 10)]
    [('log.jsonl:1#s1', 2), ('log.jsonl:2#s2', 1)]
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import chatassert.transcripts._otel as _otel
from chatassert.transcripts._reading import RESPONSES, Record, parse_line, read_one

__all__ = ["TRACE", "Group", "grouped", "key_of"]

TRACE = "trace"
"""The key that names each format's own conversation key: an OpenTelemetry span's trace id (its
session or conversation id when it names one), a record's `trace_id` / `traceId` field."""

_CLOSED_KEYS = 100_000
"""How many closed groups' keys are remembered, to notice a group that comes back."""


@dataclass
class Group:
    """The lines of one conversation gathered by their key: picklable, for worker processes.

    Attributes:
        source: The log.
        line: The group's first line.
        key: What the group is named by.
        units: Its spans (`spans` True) or its records, in log order.
        spans: Whether the units are OpenTelemetry spans.
        last: The last line that added to it.
    """

    source: str
    line: int
    key: str
    units: list[Any] = field(default_factory=list)
    spans: bool = False
    last: int = 0

    @property
    def where(self) -> str:
        """`file:first-line#key`."""
        return f"{self.source}:{self.line}#{self.key}"

    def document(self) -> Any:
        """The group as one record of its format: `{"spans": [...]}` for spans, the record
        itself for one record, `{"calls": [...]}` for several (model calls of one chat, read
        as the formats read a list of calls), with the first record's id and case keys."""
        if self.spans:
            return {"spans": self.units}
        if len(self.units) == 1:
            return self.units[0]
        head: dict[str, Any] = {}
        for unit in self.units:
            if isinstance(unit, Mapping):
                for name in ("id", "case", "test_case", "name", "metadata", "tags"):
                    if name in unit:
                        head.setdefault(name, unit[name])
        head.setdefault("id", self.key)
        return {**head, "calls": self.units}

    def record(self, format: str | None = None) -> Record:
        """The group read as a conversation: a `Record` named `where`."""
        one = read_one(self.document(), self.source, self.line, format, self.key)
        if (
            one.error is not None
            and not self.spans
            and len(self.units) > 1
            and not all(isinstance(u, Mapping) and "request" in u for u in self.units)
        ):
            error = (
                f"{len(self.units)} records share the key; only model calls ({{request, "
                f"response}}) and spans are joined into one conversation: {one.error}"
            )
            return Record(self.source, self.line, error=error, part=self.key)
        return one


def _path(record: Any, key: str) -> Any:
    """The value at `key` in a record: the key itself (`session.id` as one name), else the
    dotted path through nested objects (`metadata.session_id`)."""
    if not isinstance(record, Mapping):
        return None
    if key in record:
        return record[key]
    value: Any = record
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _name(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def key_of(record: Any, key: str) -> str | None:
    """The group key of a record (not a span): the value at `key`, or for `trace` the record's
    trace id field."""
    if key == TRACE:
        for name in ("trace_id", "traceId", "traceID"):
            found = _name(_path(record, name))
            if found is not None:
                return found
        return None
    return _name(_path(record, key))


def grouped(
    lines: Iterable[tuple[int, str]], source: str, key: str, window: int | None
) -> Iterator[Group | Record]:
    """Group the lines of a log by `key`: each `Group` when it is complete, in the order they
    complete (the groups open at the end in order of first line), and in its place a `Record`
    for each line that cannot be read or grouped. `window` None never closes a group early
    (memory then grows with the log).
    """
    limit = math.inf if window is None else window
    open_groups: OrderedDict[str, Group] = OrderedDict()  # least recently added to first
    by_trace: dict[str, str] = {}  # an open group's traces → its key, for spans lacking `key`
    traces_of: dict[str, list[str]] = {}  # an open group's key → its traces in `by_trace`
    closed: OrderedDict[str, str] = OrderedDict()  # key → where its closed group started
    for number, text in lines:
        if not text.strip():
            continue
        while open_groups:
            first = next(iter(open_groups.values()))
            if number - first.last <= limit:
                break
            done = open_groups.popitem(last=False)[1]
            for gone in traces_of.pop(done.key, ()):
                del by_trace[gone]
            closed[done.key] = done.where
            if len(closed) > _CLOSED_KEYS:
                closed.popitem(last=False)
            yield done
        read = parse_line(text, source, number, RESPONSES)
        if read.error is not None:
            yield read
            continue
        raw = read.raw
        units: list[tuple[str | None, str | None, Any]]  # (key, trace, unit)
        spans = False
        try:
            if _otel.detect(raw):
                spans = True
                found = [s for _, s in _otel.raw_spans(raw)]
                units = [_span_key(s, key) for s in found]
            else:
                units = [(key_of(raw, key), None, raw)]
        except Exception as exc:  # a malformed line never ends the grouping of a log
            yield Record(source, number, error=f"cannot group this line: {exc}")
            continue
        missing = 0
        for unit_key, trace, unit in units:
            label = unit_key or (by_trace.get(trace) if trace is not None else None) or trace
            if label is None:
                missing += 1
                continue
            group = open_groups.get(label)
            if group is None and unit_key is not None and trace is not None:
                group = _adopt(open_groups, by_trace, traces_of, trace, unit_key)
            if group is None:
                group = Group(source, number, label, spans=spans)
                open_groups[label] = group
                if label in closed:
                    yield Record(
                        source,
                        number,
                        error=f"the group {label!r} (from {closed[label]}) continues here, "
                        f"more than --group-window {window} lines after its last line: the "
                        "rest is checked as a conversation of its own; raise --group-window",
                        part=label,
                    )
            group.units.append(unit)
            group.last = number
            open_groups.move_to_end(label)
            if trace is not None and trace not in by_trace:
                by_trace[trace] = label
                traces_of.setdefault(label, []).append(trace)
        if missing:
            what = "span" if spans else "record"
            yield Record(
                source,
                number,
                error=f"{missing} {what}{'s' if missing > 1 else ''} of this line "
                f"{'have' if missing > 1 else 'has'} no {key!r} to group by",
            )
    yield from sorted(open_groups.values(), key=lambda g: g.line)


def _span_key(span: Any, key: str) -> tuple[str | None, str | None, Any]:
    """`(its key, its trace id, the span)`: the key is the span's session (for `trace`) or the
    attribute `key` (None when it has none: it then goes with its trace)."""
    if not isinstance(span, Mapping):
        raise ValueError(f"a span must be an object, not {type(span).__name__}")
    trace = _otel.hex_id(span.get("traceId", span.get("trace_id")))
    attrs = _otel.attributes(span.get("attributes"), "span")
    if key == TRACE:
        return _otel.session_of(attrs), trace, span
    return _name(attrs.get(key)), trace, span


def _adopt(
    open_groups: OrderedDict[str, Group],
    by_trace: dict[str, str],
    traces_of: dict[str, list[str]],
    trace: str,
    key: str,
) -> Group | None:
    """The group of spans gathered under their trace id until a span of the trace named `key`:
    it becomes the group of `key` (in time proportional to the traces it holds)."""
    if by_trace.get(trace) != trace or trace not in open_groups:
        return None
    group = open_groups.pop(trace)
    group.key = key
    open_groups[key] = group
    moved = traces_of.pop(trace, [])
    for t in moved:
        by_trace[t] = key
    traces_of.setdefault(key, []).extend(moved)
    return group
