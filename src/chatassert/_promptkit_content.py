"""PromptKit's content checks: `content_includes`, `content_matches`, and their conversation forms.

Turn-level types read the turn's text (G1), ignoring case; conversation-level types read every
assistant message and name the turn of each violation (docs/promptkit.md). Tests:
tests/promptkit/test_promptkit_content.py.

Example:
    >>> from chatassert.promptkit import ContentIncludes
    >>> ContentIncludes(["Paris", "Lyon"]).check("Paris is lovely").details["missing_patterns"]
    ['Lyon']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._errors import RegexTimeoutError
from chatassert._models import as_conversation
from chatassert._params import Param, register, string_values
from chatassert._promptkit_base import CONTENT_LIMIT, _quoted, _timeout, assistant_texts
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status
from chatassert._text import Contains, Matches

__all__ = [
    "ContentIncludes",
    "ContentMatches",
    "ConversationContentIncludes",
    "ConversationContentIncludesAny",
    "ConversationContentMatches",
    "ConversationContentNotIncludes",
]

_P, _F = Status.PASSED, Status.FAILED


# -- content -------------------------------------------------------------------------------


@register
class ContentIncludes(Contains):
    """Passes when the turn's response contains every pattern, ignoring case.

    PromptKit's spelling of `Contains`: the same check, with PromptKit's parameter
    (`patterns`), reason (naming every missing pattern) and detail keys (`patterns`,
    `missing_patterns`).

    Example:
        >>> from chatassert.promptkit import ContentIncludes
        >>> ContentIncludes(["Paris"]).check("The capital is PARIS").passed
        True
        >>> ContentIncludes(["Paris", "France"]).check("It is Paris").details
        {'patterns': ['Paris', 'France'], 'missing_patterns': ['France']}
    """

    __slots__ = ()
    kind = "content_includes"
    dialect_names = {"promptkit.turn": "content_includes"}
    params = (Param("patterns", "str_list", required=True, doc="texts that must all appear"),)

    def __init__(self, patterns: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(patterns, message=message)

    @property
    def patterns(self) -> tuple[str, ...]:
        """The texts that must all appear (PromptKit's name for `values`)."""
        return self.values

    def _details_on_pass(self) -> dict[str, Any]:
        return {"patterns": list(self.values), "missing_patterns": []}

    def _subset_failure(self, subset: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        return f"Expected the response to contain {_quoted(subset)} but it does not", {
            "patterns": list(self.values),
            "missing_patterns": list(subset),
        }

    def describe(self) -> str:
        """Describe the requirement."""
        return "response contains " + _quoted(self.values)


@register
class ContentMatches(Matches):
    """Passes when the regular expression is found in the turn's response (Go/RE2 syntax, G8).

    PromptKit's spelling of `Matches`: the same check, with PromptKit's parameter (`pattern`),
    reasons and details. A pass keeps the matched text as `match`; a failure keeps the first
    500 characters of the response as `content`.

    Example:
        >>> from chatassert.promptkit import ContentMatches
        >>> ContentMatches(r"\\d{3}-\\d{3}-\\d{4}").check("Call 555-123-4567").passed
        True
        >>> ContentMatches("(?i)email").check("Please call us instead").details
        {'pattern': '(?i)email', 'matched': False, 'content': 'Please call us instead'}
    """

    __slots__ = ()
    kind = "content_matches"
    dialect_names = {"promptkit.turn": "content_matches"}
    params = (Param("pattern", "str", required=True, doc="a regular expression (Go/RE2 syntax)"),)

    def _found(self, match: Any, text: str) -> Result:
        details = {"pattern": self.pattern, "matched": True, "match": match.group(0)}
        return Result(_P, self.kind, self._held(), details)

    def _missed(self, text: str) -> Result:
        return Result(
            _F,
            self.kind,
            f"Expected the response to match /{self.pattern}/ but it does not",
            {"pattern": self.pattern, "matched": False, "content": text[:CONTENT_LIMIT]},
        )

    def _timed_out(self, exc: RegexTimeoutError, text: str) -> Result:
        return _timeout(self.kind, exc, self.pattern)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"response matches /{self.pattern}/"


# -- conversation level: content ---------------------------------------------------------------


class _ConversationPatterns(Assertion):
    """Substring checks over every assistant message of a conversation."""

    __slots__ = ("_folded", "case_sensitive", "patterns")
    level = "conversation"
    params: ClassVar[tuple[Param, ...]] = (
        Param("patterns", "str_list", required=True, doc="texts to look for"),
        Param("case_sensitive", "bool", default=False, doc="compare case-sensitively"),
    )
    patterns: tuple[str, ...]
    case_sensitive: bool
    _folded: tuple[str, ...]

    def __init__(
        self,
        patterns: str | Sequence[str],
        case_sensitive: bool = False,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        if not isinstance(case_sensitive, bool):
            raise TypeError(f"case_sensitive must be true or false, got {case_sensitive!r}")
        self._set("patterns", string_values(patterns, self.kind))
        self._set("case_sensitive", case_sensitive)
        self._set(
            "_folded", self.patterns if case_sensitive else tuple(p.lower() for p in self.patterns)
        )

    def _texts(self, subject: object) -> list[tuple[int, str, str]]:
        fold = (lambda s: s) if self.case_sensitive else str.lower
        return [(i, t, fold(t)) for i, t in assistant_texts(as_conversation(subject))]

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.kind} {_quoted(self.patterns)}"


@register
class ConversationContentIncludes(_ConversationPatterns):
    """Passes when one assistant message of the conversation contains every pattern.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentIncludes
        >>> conv = Conversation(turns=[Turn(text="Your order shipped"), Turn(text="It is #12345")])
        >>> ConversationContentIncludes(["order", "#12345"]).check(conv).reason
        'no response contained all patterns'
    """

    __slots__ = ()
    kind = "conversation_content_includes"
    dialect_names = {"promptkit.conversation": "content_includes"}
    params = (Param("patterns", "str_list", required=True, doc="texts that must all appear"),)

    def __init__(self, patterns: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(patterns, message=message)

    def _check(self, subject: object) -> Result:
        best: tuple[int, list[str]] | None = None
        texts = self._texts(subject)
        for index, _, folded in texts:
            missing = [
                p for p, f in zip(self.patterns, self._folded, strict=True) if f not in folded
            ]
            if not missing:
                return Result(
                    _P,
                    self.kind,
                    self._held(),
                    {"patterns": list(self.patterns), "turn_index": index},
                )
            if best is None or len(missing) < len(best[1]):
                best = (index, missing)
        details: dict[str, Any] = {
            "patterns": list(self.patterns),
            "responses_checked": len(texts),
            "missing_patterns": list(self.patterns) if best is None else best[1],
            "closest_turn_index": None if best is None else best[0],
        }
        return Result(_F, self.kind, "no response contained all patterns", details)


@register
class ConversationContentIncludesAny(_ConversationPatterns):
    """Passes when some assistant message contains some pattern (case-insensitive by default).

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentIncludesAny
        >>> conv = Conversation(turns=[Turn(text="Refund issued")])
        >>> r = ConversationContentIncludesAny(["refund", "credit"]).check(conv)
        >>> r.details["matched_pattern"]
        'refund'
    """

    __slots__ = ()
    kind = "conversation_content_includes_any"
    dialect_names = {"promptkit.conversation": "content_includes_any"}

    def _check(self, subject: object) -> Result:
        texts = self._texts(subject)
        for index, _, folded in texts:
            for pattern, f in zip(self.patterns, self._folded, strict=True):
                if f in folded:
                    return Result(
                        _P,
                        self.kind,
                        self._held(),
                        {
                            "patterns": list(self.patterns),
                            "matched_pattern": pattern,
                            "turn_index": index,
                        },
                    )
        return Result(
            _F,
            self.kind,
            "no response contained required patterns",
            {
                "patterns": list(self.patterns),
                "case_sensitive": self.case_sensitive,
                "responses_checked": len(texts),
            },
        )


def _snippet(text: str, start: int, length: int, width: int = 40) -> str:
    lo, hi = max(0, start - width), min(len(text), start + length + width)
    return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")


@register
class ConversationContentNotIncludes(_ConversationPatterns):
    """Passes when no assistant message contains any pattern (case-insensitive by default).

    Each (message, pattern) found is one violation with a snippet of the message around it.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentNotIncludes
        >>> conv = Conversation(turns=[Turn(text="ok"), Turn(text="I guarantee it")])
        >>> r = ConversationContentNotIncludes(["guarantee"]).check(conv)
        >>> r.reason, r.details["violations"][0]["turn_index"]
        ('forbidden content detected', 1)
    """

    __slots__ = ()
    kind = "conversation_content_not_includes"
    dialect_names = {"promptkit.conversation": "content_not_includes"}

    def _check(self, subject: object) -> Result:
        violations: list[dict[str, Any]] = []
        texts = self._texts(subject)
        for index, text, folded in texts:
            for pattern, f in zip(self.patterns, self._folded, strict=True):
                at = folded.find(f)
                if at >= 0:
                    violations.append(
                        {
                            "turn_index": index,
                            "description": f"forbidden content '{pattern}' found",
                            "evidence": {"pattern": pattern, "snippet": _snippet(text, at, len(f))},
                        }
                    )
        if violations:
            return Result(_F, self.kind, "forbidden content detected", {"violations": violations})
        return Result(
            _P, self.kind, self._held(), {"violations": [], "responses_checked": len(texts)}
        )


@register
class ConversationContentMatches(Assertion):
    """Passes when some assistant message of the conversation matches the regular expression.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentMatches
        >>> conv = Conversation(turns=[Turn(text="Hi"), Turn(text="Order #12345 shipped")])
        >>> ConversationContentMatches("#\\\\d{5,}").check(conv).details["turn_index"]
        1
    """

    __slots__ = ("_compiled", "pattern")
    kind = "conversation_content_matches"
    level = "conversation"
    dialect_names = {"promptkit.conversation": "content_matches"}
    params = (Param("pattern", "str", required=True, doc="a regular expression (Go/RE2 syntax)"),)
    options = ("regex_timeout",)
    pattern: str
    _compiled: Pattern

    def __init__(
        self,
        pattern: str,
        *,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(message=message)
        self._set("pattern", pattern)
        self._set("_compiled", compile_regex(pattern, self.kind, regex_timeout))

    def _check(self, subject: object) -> Result:
        texts = assistant_texts(as_conversation(subject))
        timeout: RegexTimeoutError | None = None
        for index, text in texts:
            try:
                match = self._compiled.search(text)
            except RegexTimeoutError as exc:  # undecided: a later response may still match
                timeout = timeout or exc
                continue
            if match is not None:
                return Result(
                    _P,
                    self.kind,
                    self._held(),
                    {
                        "pattern": self.pattern,
                        "matched": True,
                        "turn_index": index,
                        "match": match.group(0),
                    },
                )
        if timeout is not None:
            return _timeout(self.kind, timeout, self.pattern)
        return Result(
            _F,
            self.kind,
            "no response matched pattern",
            {"pattern": self.pattern, "matched": False, "responses_checked": len(texts)},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"some response matches /{self.pattern}/"
