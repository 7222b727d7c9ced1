"""The exception hierarchy: every error chatassert raises derives from `ChatAssertError`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ChatAssertError",
    "CompareError",
    "JudgeError",
    "MonitorError",
    "PluginError",
    "RegexTimeoutError",
    "SpecError",
    "SpecProblem",
    "TranscriptError",
    "UnrecordedError",
    "UsageError",
]


class ChatAssertError(Exception):
    """Base class of every exception raised by chatassert."""


@dataclass(frozen=True, slots=True)
class SpecProblem:
    """One problem found while loading a spec.

    Attributes:
        message: What is wrong, as a sentence fragment ("unknown assertion type 'contain'").
        path: Where in the document, as a path (`test_cases[2].turns[0].assertions[1]`).
        file: The file the spec came from, if any.
        line: The 1-based line in that file, if known.
        expected: What was expected there, if it helps.
        found: What was found there, if it helps.
        hint: How to fix it ("did you mean 'contains'?").
    """

    message: str
    path: str = ""
    file: str | None = None
    line: int | None = None
    expected: str | None = None
    found: str | None = None
    hint: str | None = None

    def location(self) -> str:
        """Return `file:line` (or what is known of it) followed by the path."""
        where = self.file or "<spec>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.path}" if self.path else where

    def __str__(self) -> str:
        text = f"{self.location()}: {self.message}"
        if self.expected is not None:
            text += f"; expected {self.expected}"
        if self.found is not None:
            text += f", found {self.found}"
        if self.hint:
            text += f" ({self.hint})"
        return text


@dataclass(eq=False)
class SpecError(ChatAssertError, ValueError):
    """A spec could not be loaded; `problems` lists every problem found, not just the first."""

    problems: list[SpecProblem] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in spec:"
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])

    def __reduce__(self) -> tuple[type[SpecError], tuple[list[SpecProblem]]]:
        return (type(self), (self.problems,))


class JudgeError(ChatAssertError):
    """A judge could not produce a verdict (unreachable, refused, or unparsable reply)."""


class CompareError(ChatAssertError, ValueError):
    """Two runs cannot be compared (`chatassert.compare`): a report cut short or not a report
    of `check`, a case key twice in one run, runs of different suites. The message names the
    file and line (`base.jsonl:7: ...`) and what to do."""


class MonitorError(ChatAssertError, ValueError):
    """A monitor of a running agent (`chatassert.monitor.Monitor`) cannot do what it was
    asked: it refuses to be built when it would guard nothing or could not decide a check
    (every problem listed), and refuses an event it cannot read, naming the event."""


class RegexTimeoutError(ChatAssertError, TimeoutError):
    """A regular expression did not finish within its time limit.

    Attributes:
        pattern: The pattern as written, when known.
        timeout: The time limit that ran out, in seconds, when known.
    """

    def __init__(
        self, message: str, pattern: str | None = None, timeout: float | None = None
    ) -> None:
        super().__init__(message)
        self.pattern = pattern
        self.timeout = timeout


class TranscriptError(ChatAssertError, ValueError):
    """A transcript record could not be read into a conversation."""


class UnrecordedError(ChatAssertError, ValueError):
    """A check needs a part of its subject that the log did not record (`Turn.unrecorded`, a
    call's unrecorded arguments): the check is an `error` with this reason, never a verdict."""


class UsageError(ChatAssertError, RuntimeError):
    """chatassert was used in a way that cannot work (such as `check()` inside an event loop)."""


class MissingExtraError(ChatAssertError, ImportError, ValueError):
    """An assertion needs a library of an optional extra that is not installed.

    The message names the extra to install (`pip install 'chatassert[json]'`). It is an
    `ImportError`, and a `ValueError` too, so a spec loader reports it as a problem of the
    assertion that needs the library, with its file and line.
    """


class PluginError(ChatAssertError):
    """A plugin could not be loaded: a module given to `load_plugins` (`--plugin`) that does
    not import, or an installed entry point whose import fails, whose value is of the wrong
    type, or whose checks, reader or format its registry refuses.

    The message names the plugin, its entry point (`group: name = value`) and distribution,
    the cause, and how to fix it or turn the plugin off.

    Attributes:
        plugin: The plugin's name: the entry point's, or the module as given.
        group: The entry-point group, None for a module given by name.
        value: The entry point's value (`package.module:object`), None for a module.
        distribution: The distribution declaring the entry point (`name version`), if any.
        failures: For an error that reports several plugins at once, each one's error.
    """

    def __init__(
        self,
        message: str,
        *,
        plugin: str | None = None,
        group: str | None = None,
        value: str | None = None,
        distribution: str | None = None,
        failures: Sequence[PluginError] = (),
    ) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.group = group
        self.value = value
        self.distribution = distribution
        self.failures = tuple(failures)

    def __reduce__(self) -> tuple[Any, ...]:
        keywords = {
            "plugin": self.plugin,
            "group": self.group,
            "value": self.value,
            "distribution": self.distribution,
            "failures": self.failures,
        }
        return (_rebuild_error, (str(self), keywords))


def _rebuild_error(message: str, keywords: dict[str, Any]) -> PluginError:
    return PluginError(message, **keywords)
