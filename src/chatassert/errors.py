"""Every error chatassert raises, in one place.

`ChatAssertError` is the root: catch it to catch them all. `SpecError` (a spec file or
dictionary that cannot be built, listing every problem) is also at the top level, as the one a
user meets first.

Example:
    >>> from chatassert import from_spec
    >>> from chatassert.errors import SpecError
    >>> try:
    ...     from_spec({"type": "contians", "value": "x"})
    ... except SpecError as error:
    ...     print(error.problems[0].message)
    unknown native assertion type 'contians'
"""

from chatassert._base import SubjectTypeError
from chatassert._errors import (
    ChatAssertError,
    CompareError,
    JudgeError,
    MissingExtraError,
    MonitorError,
    PluginError,
    RegexTimeoutError,
    SpecError,
    SpecProblem,
    TranscriptError,
    UnrecordedError,
    UsageError,
)

__all__ = [
    "ChatAssertError",
    "CompareError",
    "JudgeError",
    "MissingExtraError",
    "MonitorError",
    "PluginError",
    "RegexTimeoutError",
    "SpecError",
    "SpecProblem",
    "SubjectTypeError",
    "TranscriptError",
    "UnrecordedError",
    "UsageError",
]
