"""Reading logged transcripts into `Conversation`s, streaming, one JSON record per line.

A line that cannot be read is reported as a `Record` with its file, line number and error, and
reading carries on. A `.json` file holding one JSON document spread over several lines (a
PromptKit `*.arena.json` or `*.recording.json` recording, an Inspect AI eval log) is read as one
record, and so is a pretty-printed JSON document in a file of any other name (`read_as_one`).
A record may hold several conversations (an Inspect AI log: one per sample; a promptfoo
output: one per result; a Google ADK eval set: one per eval case; an OTLP or Jaeger trace
export: one per session or trace; a JSON array of records: one per record): they are its
`parts`, each a `Record` of its own whose `where` names it (`file:line#sample-id`,
`file:line#[2]`), and `read_records` yields them one by one.

A plain OpenAI chat transcript — the commonest log line — is read lazily: its conversation
and turns are set up with what checks read most (each turn's input, text and tool calls), and
the pydantic models are built on first use of anything else. They pass for `Conversation` and
`Turn` everywhere (`isinstance`, equality, `model_dump()`, pickling gives the model);
`as_model` gives the model itself, for code that needs `type(x) is Conversation`
(`chatassert._lazy`).

What a record of no known format, or a file that is not a log, was meant to be is told in
its error (`transcripts._guess`): a suite given where a log goes says so.

Each log format is one module, listed once among the readers (`transcripts._readers`, from
which `FORMATS` and `PARTS` derive, in detection order); the native format's is
`transcripts._native`. A log format of one's own is a `Reader` given to `register_reader`
(or named by a `chatassert.readers` entry point): it is asked after the built-in ones
(docs/plugins.md); `unregister_reader` takes it out. Lines, documents and values become
records in `transcripts._reading`; a log's bytes become numbered lines in `transcripts._io`.

Example:
    >>> import io, json
    >>> from chatassert.transcripts import read_records
    >>> log = io.StringIO(json.dumps({"messages": [
    ...     {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]})
    ...     + "\\n{not json\\n")
    >>> [(r.line, r.ok) for r in read_records(log)]
    [(1, True), (2, False)]
"""

from __future__ import annotations

from chatassert._lazy import as_model
from chatassert.transcripts._io import (
    READ_ERRORS,
    numbered_lines,
    open_text,
    read_as_one,
    read_error,
    whole_file_note,
)
from chatassert.transcripts._readers import (
    FORMATS,
    PARTS,
    Reader,
    readers,
    register_reader,
    unregister_reader,
)
from chatassert.transcripts._reading import (
    RESPONSES,
    Record,
    parse_document,
    parse_line,
    parse_record,
    parse_text,
    read_records,
    read_value,
    require_format,
)

__all__ = [
    "FORMATS",
    "PARTS",
    "READ_ERRORS",
    "RESPONSES",
    "Reader",
    "Record",
    "as_model",
    "numbered_lines",
    "open_text",
    "parse_document",
    "parse_line",
    "parse_record",
    "parse_text",
    "read_as_one",
    "read_error",
    "read_records",
    "read_value",
    "readers",
    "register_reader",
    "require_format",
    "unregister_reader",
    "whole_file_note",
]
