"""The report format: a Markdown tally of a run, a table row per case, for a pull request
comment or a wiki page.

It is written from the run's summary alone (`rows = "summary"`): a run's end is all it needs,
so it renders nothing per case and works the same with `--jobs`.

```markdown
| case | passed | failed | error | skipped |
|---|---:|---:|---:|---:|
| support / refund status | 1 | 0 | 0 | 0 |
| support / late delivery | 0 | 1 | 0 | 0 |
| **total** | 1 | 1 | 0 | 0 |

1 of 2 cases passed.
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatassert.records import Row
from chatassert.reporting import Outcome, ReportOptions, Summary, Writable

__all__ = ["MARKDOWN_TALLY", "MarkdownTally", "TallyReport"]

STATUSES = ("passed", "failed", "error", "skipped")
"""The columns of the table, in order."""


class TallyReport:
    """One run's tally, to one output: written at the end, from the summary."""

    def __init__(self, out: Writable) -> None:
        self.out = out

    def add(self, row: Row, rendered: Mapping[str, str]) -> None:
        """Write nothing: the tally is the summary's."""

    def finish(self, summary: Summary, meta: Mapping[str, Any] | None) -> None:
        """Write the table of cases and the line that sums it up."""
        lines = [
            "| case | " + " | ".join(STATUSES) + " |",
            "|---|" + "---:|" * len(STATUSES),
        ]
        for case, counts in summary.per_case.items():
            cells = " | ".join(str(counts[status]) for status in STATUSES)
            lines.append(f"| {_cell(case)} | {cells} |")
        totals = " | ".join(str(summary.counts[status]) for status in STATUSES)
        lines.append(f"| **total** | {totals} |")
        lines += ["", f"{summary.counts['passed']} of {summary.total} cases passed."]
        if summary.unreadable_count:
            lines.append(f"{summary.unreadable_count} log records could not be read.")
        if summary.unmatched:
            lines.append(f"{summary.unmatched} conversations matched no case.")
        self.out.write("\n".join(lines) + "\n")


def _cell(text: str) -> str:
    """`text` in a table cell: its `|` escaped, its lines joined."""
    return " ".join(text.split()).replace("|", "\\|")


class MarkdownTally:
    """The Markdown tally as a report format: `--format tally-md`, or `-o report.md`."""

    name = "tally-md"
    extensions = (".md",)
    description = "a Markdown table of each case's outcomes"
    rows = "summary"
    excerpts = False
    needs_subject = False

    def render(self, outcome: Outcome, subject: object, options: ReportOptions) -> dict[str, str]:
        """Nothing: the tally is written from the summary."""
        return {}

    def open(self, out: Writable, options: ReportOptions) -> TallyReport:
        """Start one run's tally to `out`."""
        return TallyReport(out)


MARKDOWN_TALLY = MarkdownTally()
"""The reporter `chatassert.reporting.register_reporter` takes (the entry point's value)."""
