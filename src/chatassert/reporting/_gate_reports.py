"""How each report shows the results of a run's suite-level gates (`chatassert._gates`).

A gate's result is a `Result` named `gate`: its `message` says what the gate requires, its
`reason` what the run showed, its `details` the counts, rates, interval and threshold. The
text summary lists them before its last line, the JSON report writes a line of its own per
gate before the summary line (`{"gate": <its result>, "suite": <its suite's name>}`), JUnit a
`testcase` per gate in a `gates` testsuite, and the HTML page a section.

Docs: docs/specs.md ("Gates"), docs/offline.md. Tests: tests/gates/test_gate_reports.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from html import escape

from chatassert._result import Result, Status, shorten

__all__ = [
    "GATES_SUITE",
    "MARKS",
    "gate_counts",
    "gate_head",
    "gate_html",
    "gate_line",
    "junit_gate_case",
]

GATES_SUITE = "gates"
"""The name of the JUnit testsuite that holds a run's gates."""

MARKS = {
    Status.PASSED: "PASS",
    Status.FAILED: "FAIL",
    Status.ERROR: "ERROR",
    Status.SKIPPED: "SKIP",
}
"""How a gate's status is shown at the start of its line (as a result tree shows it)."""


def gate_counts(results: Iterable[Result]) -> dict[str, int]:
    """How many gates passed, failed, errored and were skipped.

    Example:
        >>> gate_counts([Result(Status.FAILED, "gate", "below")])
        {'passed': 0, 'failed': 1, 'error': 0, 'skipped': 0}
    """
    counts = dict.fromkeys((s.value for s in Status), 0)
    for result in results:
        counts[result.status.value] += 1
    return counts


def gate_head(results: Sequence[Result]) -> str:
    """What the summary's last line adds for the gates (`; gates: 2 passed, 1 failed`), or
    nothing when the run has none.

    Example:
        >>> gate_head([Result(Status.PASSED, "gate", ""), Result(Status.FAILED, "gate", "")])
        '; gates: 1 passed, 1 failed'
    """
    if not results:
        return ""
    counts = gate_counts(results)
    words = {"error": "errors" if counts["error"] > 1 else "error"}
    parts = [f"{n:,} {words.get(k, k)}" for k, n in counts.items() if n]
    return "; gates: " + ", ".join(parts)


def _suite(result: Result) -> str | None:
    suite = result.details.get("suite")
    return suite if isinstance(suite, str) else None


def _title(result: Result) -> str:
    """What a gate requires, with its suite's name when it has one."""
    suite = _suite(result)
    what = result.message or result.label
    return f"{suite}: {what}" if suite else what


def gate_line(result: Result) -> str:
    """A gate's line of the text summary (before it is wrapped): its status, what it requires
    and what the run showed.

    Example:
        >>> from chatassert._gates import GateCounts, Gate
        >>> print(gate_line(Gate("pass_rate", min=0.9).check(GateCounts(8, 10))))
          FAIL  pass rate of the cases at least 0.9: 8 of 10 passed (0.800): below the minimum 0.9
    """
    return f"  {MARKS[result.status]:<5} {_title(result)}: {result.reason}"


def junit_gate_case(result: Result, attr: Callable[[str], str], text: Callable[[str], str]) -> str:
    """A gate's `testcase` of the JUnit report (`attr` and `text` escape an attribute and an
    element's text), named by its suite (`classname`) and what it requires: a failed gate is a
    `failure`, one that could not be decided an `error`, one not evaluated `skipped`."""
    name = (result.message or result.label) + (f" [{result.spec_path}]" if result.spec_path else "")
    head = (
        f'    <testcase classname={attr(_suite(result) or GATES_SUITE)} name={attr(name)} time="0"'
    )
    status = result.status
    if status is Status.PASSED:
        return head + " />\n"
    if status is Status.SKIPPED:
        return head + f">\n      <skipped message={attr(result.reason)} />\n    </testcase>\n"
    tag = "failure" if status is Status.FAILED else "error"
    return (
        head + f">\n      <{tag} message={attr(shorten(result.reason, 500))} "
        f"type={attr('gate')}>{text(result.render(verbose=True))}</{tag}>\n    </testcase>\n"
    )


def gate_html(results: Sequence[Result]) -> list[str]:
    """The HTML page's section of the gates: a table row each, with its status, what it
    requires, what the run showed, and how many outcomes it counted; none without gates."""
    if not results:
        return []
    rows = []
    for result in results:
        status = result.status.value
        total = result.details.get("total")
        counted = "" if not isinstance(total, int) else f"{result.details.get('passed', 0):,}"
        counted += "" if not isinstance(total, int) else f"/{total:,}"
        rows.append(
            f'<tr class="gate {status}"><td><span class="st {status}">'
            f"{escape(MARKS[result.status])}</span></td>"
            f'<th scope="row">{escape(_title(result))}</th>'
            f"<td>{escape(result.reason)}</td>"
            f'<td class="num">{escape(counted)}</td></tr>'
        )
    return [
        '<details open id="gates"><summary><h2 style=display:inline>Gates</h2></summary>',
        "<table>",
        '<thead><tr><th scope="col">status</th><th scope="col">gate</th>'
        '<th scope="col">observed</th><th scope="col" class="num">passed</th></tr></thead>',
        "<tbody>",
        *rows,
        "</tbody></table></details>",
    ]
