"""Results as OpenTelemetry: one `gen_ai.evaluation.result` event per node of a result tree.

Each case outcome is one line of OTLP JSON, an `ExportLogsServiceRequest` (`{"resourceLogs":
[{"resource", "scopeLogs": [{"scope", "logRecords": [...]}]}]}`, what the OpenTelemetry
Collector's `otlpjsonfile` receiver reads), holding one log record per node of the case's
result tree, in tree order. Each record is an event named `gen_ai.evaluation.result` (the
`eventName` field) with the attributes the GenAI semantic conventions define for it:

- `gen_ai.evaluation.name`: the case's name for the tree's root, else the node's label (its
  `message`, else the name its suite file gives it, else its assertion kind);
- `gen_ai.evaluation.score.label`: the node's status (`passed`, `failed`, `error`, `skipped`);
- `gen_ai.evaluation.score.value`: the node's score, when it has a finite one;
- `gen_ai.evaluation.explanation`: the node's reason, when it gives one;
- `error.type`: `_OTHER` (the conventions' value for an error of no listed type) when the
  node's status is `error`, an assertion that could not decide;
- `gen_ai.response.id`: the evaluated response's id, when the trace gave one;

and, under the `chatassert.` prefix, what the conventions have no name for:
`chatassert.status` (as the label), `chatassert.suite`, `chatassert.case`,
`chatassert.assertion` (the node's assertion kind), `chatassert.spec_path` (where its suite
file has it, `cases[0].turns[1].assertions[0]`), `chatassert.location` (its full place in
the subject, `turns[2].tool_calls`), `chatassert.pointer` (a JSON Pointer to the evidence),
`chatassert.source` (`file:line`) and `chatassert.subject_id`.

When the conversation was read from traces, each record is linked to the evaluated span
(`traceId`, `spanId`): a node placed in a turn (`turns[i]` in its location, else `/turns/i` in
its pointer) to that turn's first model-call span, any other node to the conversation's root
span. Ids that are not OTLP's hex (32 and 16 digits)
are not written. The severity is INFO for passed and skipped nodes, WARN for failed ones,
ERROR for errors.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from chatassert import __version__
from chatassert._result import Result
from chatassert.reporting._summary import Outcome

if TYPE_CHECKING:
    from chatassert._rows import Row
    from chatassert.reporting._formats import ReportOptions, Writable
    from chatassert.reporting._summary import Summary

__all__ = ["EVENT_NAME", "OTEL", "otel_line"]

EVENT_NAME = "gen_ai.evaluation.result"
"""The GenAI semantic conventions' name of an evaluation result event."""

_SEVERITY = {"passed": (9, "INFO"), "skipped": (9, "INFO"), "failed": (13, "WARN")}
_ERROR = (17, "ERROR")
_TURN = re.compile(r"(?:^|\.)turns\[(-?[0-9]+)\]")
_POINTER = re.compile("/turns/([0-9]+)")
_TRACE_ID = re.compile("[0-9a-f]{32}")
_SPAN_ID = re.compile("[0-9a-f]{16}")


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _ids(subject: object) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]]:
    """The conversation's metadata and each turn's, when the subject is a conversation."""
    metadata = getattr(subject, "metadata", None)
    turns = getattr(subject, "turns", None)
    if not isinstance(metadata, Mapping) or not isinstance(turns, tuple):
        return {}, []
    return metadata, [t.metadata if isinstance(t.metadata, Mapping) else {} for t in turns]


def _link(
    location: str,
    pointer: str | None,
    conversation: Mapping[str, Any],
    turns: list[Mapping[str, Any]],
) -> tuple[Any, Any, Any]:
    """`(trace id, span id, response id)` of the span a node evaluated: its turn's (the turn
    its location, else its evidence's pointer, names), else the conversation's."""
    found = _TURN.search(location) or _POINTER.match(pointer or "")
    if found is not None:
        index = int(found.group(1))
        if -len(turns) <= index < len(turns) and "span_id" in turns[index]:
            turn = turns[index]
            trace = turn.get("trace_id", conversation.get("trace_id"))
            return trace, turn["span_id"], turn.get("response_id")
    return conversation.get("trace_id"), conversation.get("span_id"), None


def _record(
    outcome: Outcome,
    ancestors: tuple[Result, ...],
    node: Result,
    ids: tuple[Mapping[str, Any], list[Mapping[str, Any]]],
    now: str,
) -> dict[str, Any]:
    status = node.status.value
    name = outcome.case if not ancestors else node.label
    location = node.full_location(ancestors)
    attributes: list[tuple[str, Any]] = [
        ("gen_ai.evaluation.name", name),
        ("gen_ai.evaluation.score.label", status),
    ]
    if node.score is not None and math.isfinite(node.score):
        attributes.append(("gen_ai.evaluation.score.value", float(node.score)))
    if node.reason:
        attributes.append(("gen_ai.evaluation.explanation", node.reason))
    if status == "error":
        attributes.append(("error.type", "_OTHER"))
    trace, span, response = _link(location, node.pointer, *ids)
    if isinstance(response, str):
        attributes.append(("gen_ai.response.id", response))
    attributes += [
        ("chatassert.status", status),
        ("chatassert.suite", outcome.suite),
        ("chatassert.case", outcome.case),
        ("chatassert.assertion", node.name),
    ]
    for key, value in (
        ("chatassert.spec_path", node.spec_path),
        ("chatassert.location", location or None),
        ("chatassert.pointer", node.pointer),
        ("chatassert.source", outcome.source or None),
        ("chatassert.subject_id", outcome.subject_id),
    ):
        if value is not None:
            attributes.append((key, value))
    number, text = _SEVERITY.get(status, _ERROR)
    record: dict[str, Any] = {
        "timeUnixNano": now,
        "observedTimeUnixNano": now,
        "severityNumber": number,
        "severityText": text,
        "eventName": EVENT_NAME,
        "attributes": [{"key": k, "value": _value(v)} for k, v in attributes],
    }
    if isinstance(trace, str) and _TRACE_ID.fullmatch(trace):
        record["traceId"] = trace
        if isinstance(span, str) and _SPAN_ID.fullmatch(span):
            record["spanId"] = span
    return record


def otel_line(outcome: Outcome, subject: object = None, *, time_ns: int | None = None) -> str:
    """Render one outcome as a line of OTLP JSON logs, newline included: one
    `gen_ai.evaluation.result` event per node of its result tree, linked to the evaluated
    spans when `subject` is a conversation read from traces.

    Example:
        >>> from chatassert import Contains
        >>> line = otel_line(Outcome("s", "greets", Contains("hi").check("hello"), "log:1"),
        ...                  time_ns=0)
        >>> (event,) = json.loads(line)["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        >>> event["eventName"], event["severityText"]
        ('gen_ai.evaluation.result', 'WARN')
        >>> {a["key"]: a["value"]["stringValue"] for a in event["attributes"][:3]}
        {'gen_ai.evaluation.name': 'greets', 'gen_ai.evaluation.score.label': 'failed', \
'gen_ai.evaluation.explanation': "Response does not contain 'hi'"}
    """
    now = str(time.time_ns() if time_ns is None else time_ns)
    ids = _ids(subject)
    records = [
        _record(outcome, ancestors, node, ids, now) for ancestors, node in outcome.result.walk()
    ]
    document = {
        "resourceLogs": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "chatassert"}}]
                },
                "scopeLogs": [
                    {
                        "scope": {"name": "chatassert", "version": __version__},
                        "logRecords": records,
                    }
                ],
            }
        ]
    }
    return json.dumps(document, allow_nan=False) + "\n"


class _OtelReport:
    """OTLP JSON logs: each case row's line as it comes; nothing at the end (the counts are
    the events' to add up), and nothing for records that gave no outcome."""

    def __init__(self, out: Writable) -> None:
        self.out = out

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Write a case row's line."""
        if row.kind == "case":
            self.out.write(rendered["otel"])

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Nothing: the events are the report."""


class _Otel:
    """The OpenTelemetry report (`--format otel`): `gen_ai.evaluation.result` events."""

    name = "otel"
    extensions = (".otel.jsonl", ".otel.json")
    description = (
        "OTLP JSON logs: a gen_ai.evaluation.result event per result node, linked to the "
        "traces read"
    )
    rows = "streamed"
    excerpts = False
    needs_subject = True

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """The outcome's line of events (`otel_line`), linked to the subject's spans."""
        return {"otel": otel_line(outcome, subject)}

    def open(self, out: Writable, options: ReportOptions) -> _OtelReport:
        """Start an OTel report to `out`."""
        return _OtelReport(out)


OTEL = _Otel()
"""The OpenTelemetry report format."""
