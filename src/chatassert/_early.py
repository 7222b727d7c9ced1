"""How early a check can be decided while an agent runs: `Early`, declared by each check class.

Every check class says, next to its rule, how a `chatassert.monitor.Monitor` can decide it
before the conversation ends (`Assertion.decided_early`):

- `finish`: only when the conversation is over (`Monitor.finish`): a later event could always
  change the outcome (the last turn's text, a judge's verdict over everything said);
- `prefix`: checked again on the conversation so far whenever an event touches what it reads
  (`reads`); an outcome in `final` is final, as no later event can undo it (a forbidden call
  that was made stays made);
- `calls`: a fold over the calls in order, one step per call, the same step the offline check
  folds over (O(1) amortised per event); decided as soon as an outcome in `final` is reached,
  and able to tell whether one call, before it runs, would violate it (`Monitor.permits`).

docs/guard-a-running-agent.md lists every registered check with its `Early`, generated from
the registry (docs/tools/early_table.py). Tests: tests/monitor/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["AT_FINISH", "EVENTS", "Early", "on_calls", "on_prefix"]

How = Literal["finish", "prefix", "calls"]

EVENTS = ("user", "assistant", "call", "result", "guardrail", "workflow", "metadata")
"""The kinds of event a monitor is fed, which `Early.reads` names."""


@dataclass(frozen=True, slots=True)
class Early:
    """How early a check can be decided, and what it reads.

    Attributes:
        how: `finish`, `prefix` or `calls` (see the module's docstring).
        final: The outcomes (`passed`, `failed`, `error`, `skipped`) that no later event can
            change once the conversation so far has them.
        reads: The kinds of event that can change the outcome (`EVENTS`); a `prefix` check is
            checked again only after such an event.
        note: Why, in a few words, for the generated table.
    """

    how: How = "finish"
    final: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset(EVENTS)
    note: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.reads) - set(EVENTS)
        if unknown:
            raise ValueError(f"Early.reads names unknown events {sorted(unknown)}")
        bad = set(self.final) - {"passed", "failed", "error", "skipped"}
        if bad:
            raise ValueError(f"Early.final names unknown outcomes {sorted(bad)}")


AT_FINISH = Early("finish", note="a later event can always change it")
"""The default: decided only when the conversation is over."""


def on_prefix(*final: str, reads: tuple[str, ...], note: str) -> Early:
    """An `Early` checked on the conversation so far, final on the outcomes `final`."""
    return Early("prefix", frozenset(final), frozenset(reads), note)


def on_calls(*final: str, note: str, reads: tuple[str, ...] = ("call",)) -> Early:
    """An `Early` folded call by call, final on the outcomes `final`."""
    return Early("calls", frozenset(final), frozenset(reads), note)
