"""PromptKit's content checks: `content_includes`, `content_matches`, their conversation forms,
and the content checks of PromptKit's later registry.

Turn-level types read the turn's text (G1), ignoring case; conversation-level types read every
assistant message and name the turn of each violation (docs/promptkit.md). PromptKit's later
names are spellings of these where its registry says they are the same check (`contains` is
`content_includes`, `contains_any` is `content_includes_any`, `content_excludes` is
`content_not_includes`); `regex` (with `expect_match`), `content_excludes` at turn level (over
the conversation so far) and `min_length` / `max_length` are new. Tests:
tests/promptkit/test_promptkit_content.py and tests/promptkit/test_promptkit_later.py.

Example:
    >>> from chatassert.promptkit import ContentIncludes
    >>> ContentIncludes(["Paris", "Lyon"]).check("Paris is lovely").details["missing_patterns"]
    ['Lyon']
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._errors import RegexTimeoutError
from chatassert._history import turns_so_far
from chatassert._models import Conversation, Turn, as_conversation, text_of, turn_of
from chatassert._params import Param, register, string_values
from chatassert._promptkit_base import (
    CONTENT_LIMIT,
    assistant_texts,
    assistant_texts_of,
    quoted_list,
    timeout_result,
)
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_regex
from chatassert._result import Result, Status
from chatassert._text import TEXT, Contains, Matches

__all__ = [
    "MATCH_MODES",
    "ContentExcludes",
    "ContentIncludes",
    "ContentMatches",
    "ConversationContentIncludes",
    "ConversationContentIncludesAny",
    "ConversationContentMatches",
    "ConversationContentNotIncludes",
    "MaxLength",
    "MinLength",
    "Regex",
]

_P, _F = Status.PASSED, Status.FAILED


# -- content -------------------------------------------------------------------------------


@register
class ContentIncludes(Contains):
    """Passes when the turn's response contains every pattern, ignoring case.

    PromptKit's spelling of `Contains`: the same check, with PromptKit's parameter
    (`patterns`), reason (naming every missing pattern) and detail keys (`patterns`,
    `missing_patterns`). PromptKit's later name for it is `contains`.

    Example:
        >>> from chatassert.promptkit import ContentIncludes
        >>> ContentIncludes(["Paris"]).check("The capital is PARIS").passed
        True
        >>> ContentIncludes(["Paris", "France"]).check("It is Paris").details
        {'patterns': ['Paris', 'France'], 'missing_patterns': ['France']}
    """

    __slots__ = ()
    kind = "content_includes"
    dialect_names = {"promptkit.turn": ("content_includes", "contains")}
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
        return f"Expected the response to contain {quoted_list(subset)} but it does not", {
            "patterns": list(self.values),
            "missing_patterns": list(subset),
        }

    def describe(self) -> str:
        """Describe the requirement."""
        return "response contains " + quoted_list(self.values)


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
    params: ClassVar[tuple[Param, ...]] = (
        Param("pattern", "str", required=True, doc="a regular expression (Go/RE2 syntax)"),
    )

    def _found(self, match: Any, text: str) -> Result:
        details = {"pattern": self.pattern, "matched": True, "match": match.group(0)}
        return Result(_P, self.kind, self._held(), details)._with_evidence(
            TEXT, text, *match.span()
        )

    def _missed(self, text: str) -> Result:
        return Result(
            _F,
            self.kind,
            f"Expected the response to match /{self.pattern}/ but it does not",
            {"pattern": self.pattern, "matched": False, "content": text[:CONTENT_LIMIT]},
            pointer=TEXT,
        )

    def _timed_out(self, exc: RegexTimeoutError, text: str) -> Result:
        return timeout_result(self.kind, exc, self.pattern)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"response matches /{self.pattern}/"


def _go_quoted(text: str) -> str:
    """`text` as Go's `%q` quotes it in PromptKit's explanations."""
    return json.dumps(text, ensure_ascii=False)


@register
class Regex(ContentMatches):
    """Passes when the pattern is found in the turn's response (`expect_match=False`: when not).

    PromptKit's later `regex`: `content_matches` with `expect_match` (default true), the same
    search (Go/RE2 syntax, G8). Details say whether it `matched` and what was expected, and
    keep PromptKit's own explanation as `origin_message`.

    Example:
        >>> from chatassert.promptkit import Regex
        >>> Regex(r"\\d{3}-\\d{4}").check("Call 555-1234").passed
        True
        >>> r = Regex("(?i)guarantee", expect_match=False).check("We GUARANTEE it")
        >>> r.reason
        "Expected the response not to match /(?i)guarantee/ but it does ('GUARANTEE')"
        >>> r.details["origin_message"]
        'pattern "(?i)guarantee" matched: true (expect_match: false)'
    """

    __slots__ = ("expect_match",)
    kind = "regex"
    dialect_names = {"promptkit.turn": "regex"}
    params = (
        *ContentMatches.params,
        Param(
            "expect_match",
            "bool",
            default=True,
            doc="true: the pattern must match; false: it must not",
        ),
    )
    expect_match: bool

    def __init__(
        self,
        pattern: str,
        *,
        expect_match: bool = True,
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        if not isinstance(expect_match, bool):
            raise TypeError(f"expect_match must be true or false, got {expect_match!r}")
        self._set("expect_match", expect_match)  # first: the description reads it
        super().__init__(pattern, message=message, regex_timeout=regex_timeout)

    def _origin(self, matched: bool) -> str:
        return (
            f"pattern {_go_quoted(self.pattern)} matched: {str(matched).lower()} "
            f"(expect_match: {str(self.expect_match).lower()})"
        )

    def _found(self, match: Any, text: str) -> Result:
        details = {
            "pattern": self.pattern,
            "matched": True,
            "expect_match": self.expect_match,
            "match": match.group(0),
            "origin_message": self._origin(True),
        }
        if self.expect_match:
            return Result(_P, self.kind, self._held(), details)._with_evidence(
                TEXT, text, *match.span()
            )
        reason = f"Expected the response not to match /{self.pattern}/ but it does"
        failure = Result(_F, self.kind, f"{reason} ({match.group(0)!r})", details)
        return failure._with_evidence(TEXT, text, *match.span())

    def _missed(self, text: str) -> Result:
        details: dict[str, Any] = {
            "pattern": self.pattern,
            "matched": False,
            "expect_match": self.expect_match,
            "origin_message": self._origin(False),
        }
        if not self.expect_match:
            return Result(_P, self.kind, self._held(), details)
        details["content"] = text[:CONTENT_LIMIT]
        reason = f"Expected the response to match /{self.pattern}/ but it does not"
        return Result(_F, self.kind, reason, details, pointer=TEXT)

    def describe(self) -> str:
        """Describe the requirement."""
        if self.expect_match:
            return f"response matches /{self.pattern}/"
        return f"response does not match /{self.pattern}/"


class _Length(Assertion):
    """The length of the turn's response, counted as PromptKit counts it: in UTF-8 bytes."""

    __slots__ = ()
    evidence_at = "/text"

    @staticmethod
    def _measure(subject: object) -> tuple[int, int]:
        """The response's length in UTF-8 bytes (Go's `len`) and in characters."""
        text = text_of(subject)
        return len(text.encode("utf-8", "surrogatepass")), len(text)

    @staticmethod
    def _positive(name: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an integer, got {value!r}")
        if value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value}")
        return value


@register
class MinLength(_Length):
    """Passes when the turn's response is at least `min` long (PromptKit's later `min_length`).

    The length is counted as PromptKit counts it, in UTF-8 bytes: the number of characters for
    ASCII text, more for other text (`é` is 2). `min_characters` and `min_chars` are other
    spellings of `min`.

    Example:
        >>> from chatassert.promptkit import MinLength
        >>> r = MinLength(20).check("Too short.")
        >>> r.reason, r.details["origin_message"]
        ('Expected the response to be at least 20 long but its length is 10', 'length 10, min 20')
    """

    __slots__ = ("min",)
    kind = "min_length"
    dialect_names = {"promptkit.turn": "min_length"}
    params = (
        Param(
            "min",
            "int",
            required=True,
            aliases=("min_characters", "min_chars"),
            doc="the shortest length allowed (UTF-8 bytes, as PromptKit counts)",
        ),
    )
    min: int

    def __init__(self, min: int, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("min", self._positive("min_length min", min))

    def _check(self, subject: object) -> Result:
        length, characters = self._measure(subject)
        details = {
            "length": length,
            "min": self.min,
            "characters": characters,
            "origin_message": f"length {length}, min {self.min}",
        }
        if length >= self.min:
            return Result(_P, self.kind, self._held(), details)
        reason = f"Expected the response to be at least {self.min} long but its length is {length}"
        return Result(_F, self.kind, reason, details)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"response is at least {self.min} long"


@register
class MaxLength(_Length):
    """Passes when the turn's response is at most `max` long (PromptKit's later `max_length`).

    The length is counted in UTF-8 bytes, as PromptKit does (see `MinLength`); `max_characters`
    and `max_chars` are other spellings of `max`, and `length` another name of the type. With
    `max_tokens`, the response must also be at most that many tokens, estimated as PromptKit
    does: a token per 4 bytes, rounded down.

    Example:
        >>> from chatassert.promptkit import MaxLength
        >>> MaxLength(200).check("Short and sweet.").passed
        True
        >>> MaxLength(200, max_tokens=2).check("Short and sweet.").reason
        'Expected the response to be at most 2 tokens but it is about 4 (length 16 / 4)'
    """

    __slots__ = ("max", "max_tokens")
    kind = "max_length"
    dialect_names = {"promptkit.turn": ("max_length", "length")}
    params = (
        Param(
            "max",
            "int",
            required=True,
            aliases=("max_characters", "max_chars"),
            doc="the longest length allowed (UTF-8 bytes, as PromptKit counts)",
        ),
        Param("max_tokens", "int", default=None, doc="the most tokens allowed (length / 4)"),
    )
    max: int
    max_tokens: int | None

    def __init__(
        self, max: int, *, max_tokens: int | None = None, message: str | None = None
    ) -> None:
        super().__init__(message=message)
        self._set("max", self._positive("max_length max", max))
        self._set(
            "max_tokens",
            None if max_tokens is None else self._positive("max_length max_tokens", max_tokens),
        )

    def _check(self, subject: object) -> Result:
        length, characters = self._measure(subject)
        details: dict[str, Any] = {"length": length, "max": self.max, "characters": characters}
        origin = f"length {length}, max {self.max}"
        reason = None
        if length > self.max:
            reason = f"Expected the response to be at most {self.max} long but its length is "
            reason += str(length)
        if self.max_tokens is not None:
            tokens = length // 4
            details.update(tokens=tokens, max_tokens=self.max_tokens)
            if tokens > self.max_tokens:
                origin += f"; tokens ~{tokens}, max_tokens {self.max_tokens}"
                reason = reason or (
                    f"Expected the response to be at most {self.max_tokens} tokens but it is "
                    f"about {tokens} (length {length} / 4)"
                )
        details["origin_message"] = origin
        if reason is None:
            return Result(_P, self.kind, self._held(), details)
        return Result(_F, self.kind, reason, details)

    def describe(self) -> str:
        """Describe the requirement."""
        tokens = f" and {self.max_tokens} tokens" if self.max_tokens is not None else ""
        return f"response is at most {self.max} long{tokens}"


# -- conversation level: content ---------------------------------------------------------------


class _ConversationPatterns(Assertion):
    """Substring checks over every assistant message of a conversation."""

    __slots__ = ("_folded", "case_sensitive", "patterns")
    level = "conversation"
    evidence_at = "/text"
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

    _requirement: ClassVar[str] = "a response contains all of"
    """How `describe` words the requirement, before the patterns (no native kind: a report
    shows it as the reason of a pass, in the file's words)."""

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self._requirement} {quoted_list(self.patterns)}"


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

    PromptKit's later name for it is `contains_any`.

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
    _requirement = "a response contains one of"
    dialect_names = {"promptkit.conversation": ("content_includes_any", "contains_any")}

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


MATCH_MODES = ("substring", "word_boundary")
"""How `content_not_includes` / `content_excludes` look for a pattern."""

_GO_META = re.compile(r"([\\.+*?()|\[\]{}^$])")


def _whole_word(pattern: str, case_sensitive: bool, timeout: float) -> Pattern:
    """`pattern` as a whole word: PromptKit's `(?i)\\b<quoted>\\b`, ASCII word boundaries."""
    flags = "" if case_sensitive else "(?i)"
    quoted = _GO_META.sub(r"\\\1", pattern)  # Go's regexp.QuoteMeta
    return compile_regex(f"{flags}\\b{quoted}\\b", "content_not_includes", timeout)


@register
class ConversationContentNotIncludes(_ConversationPatterns):
    """Passes when no assistant message contains any pattern (case-insensitive by default).

    Each (message, pattern) found is one violation with a snippet of the message around it.
    `match_mode: word_boundary` finds a pattern only as a whole word (`art` is not in
    `start`), with Go's ASCII word boundaries. PromptKit's later name for it is
    `content_excludes`.

    Example:
        >>> from chatassert import Conversation, Turn
        >>> from chatassert.promptkit import ConversationContentNotIncludes
        >>> conv = Conversation(turns=[Turn(text="ok"), Turn(text="I guarantee it")])
        >>> r = ConversationContentNotIncludes(["guarantee"]).check(conv)
        >>> r.reason, r.details["violations"][0]["turn_index"]
        ('forbidden content detected', 1)
        >>> ConversationContentNotIncludes("guar", match_mode="word_boundary").check(conv).passed
        True
    """

    __slots__ = ("_words", "match_mode")
    kind = "conversation_content_not_includes"
    dialect_names = {"promptkit.conversation": ("content_not_includes", "content_excludes")}
    params = (
        *_ConversationPatterns.params,
        Param(
            "match_mode",
            "str",
            default="substring",
            choices=MATCH_MODES,
            doc="substring, or word_boundary (whole words only)",
        ),
    )
    options = ("regex_timeout",)
    match_mode: str
    _words: tuple[Pattern, ...]

    def __init__(
        self,
        patterns: str | Sequence[str],
        case_sensitive: bool = False,
        *,
        match_mode: str = "substring",
        message: str | None = None,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        super().__init__(patterns, case_sensitive, message=message)
        if match_mode not in MATCH_MODES:
            raise ValueError(
                f"match_mode must be one of {', '.join(MATCH_MODES)}, got {match_mode!r}"
            )
        self._set("match_mode", match_mode)
        words = (
            tuple(_whole_word(p, case_sensitive, regex_timeout) for p in self.patterns)
            if match_mode == "word_boundary"
            else ()
        )
        self._set("_words", words)

    def _find(self, i: int, text: str, folded: str) -> tuple[int, int] | None:
        """Where pattern `i` first occurs in a message: `(start, length)`, or None."""
        if self._words:
            found = self._words[i].search(text)
            return None if found is None else (found.start(), found.end() - found.start())
        at = folded.find(self._folded[i])
        return None if at < 0 else (at, len(self._folded[i]))

    def _check(self, subject: object) -> Result:
        violations: list[dict[str, Any]] = []
        first: tuple[int, str, int, int] | None = None
        texts = self._texts(subject)
        for index, text, folded in texts:
            for i, pattern in enumerate(self.patterns):
                try:
                    found = self._find(i, text, folded)
                except RegexTimeoutError as exc:
                    return timeout_result(self.kind, exc, exc.pattern or pattern)
                if found is not None:
                    if first is None:
                        first = (index, text, found[0], found[0] + found[1])
                    violations.append(
                        {
                            "turn_index": index,
                            "description": f"forbidden content '{pattern}' found",
                            "evidence": {"pattern": pattern, "snippet": _snippet(text, *found)},
                        }
                    )
        if first is not None:
            failure = Result(
                _F, self.kind, "forbidden content detected", {"violations": violations}
            )
            return _marked(failure, subject, *first)
        return Result(
            _P, self.kind, self._held(), {"violations": [], "responses_checked": len(texts)}
        )

    def describe(self) -> str:
        """Describe the requirement."""
        words = " (whole words)" if self._words else ""
        return f"no response contains {quoted_list(self.patterns)}{words}"


@register
class ContentExcludes(ConversationContentNotIncludes):
    """Passes when no assistant message of the conversation so far contains any pattern.

    PromptKit's later `content_excludes` checked on a turn: like `content_not_includes`, it
    scans every assistant message up to and including this turn, not only this one, as
    PromptKit does, so a forbidden word in an earlier answer fails every later turn that
    checks it. A turn checked on its own (not as a turn of a conversation) has nothing before
    it. Violations name the `turn_index` in the conversation.

    Example:
        >>> from chatassert import Conversation, OnLastTurn, Turn
        >>> from chatassert.promptkit import ContentExcludes
        >>> chat = Conversation(turns=[Turn(text="I promise a refund"), Turn(text="Done.")])
        >>> r = OnLastTurn(ContentExcludes(["promise"])).check(chat).children[0]
        >>> r.status.value, r.details["violations"][0]["turn_index"]
        ('failed', 0)
    """

    __slots__ = ()
    reads_history = True  # reads the turns before the one checked
    kind = "content_excludes"
    level = "turn"
    dialect_names = {"promptkit.turn": "content_excludes"}

    def _texts(self, subject: object) -> list[tuple[int, str, str]]:
        fold = (lambda s: s) if self.case_sensitive else str.lower
        turns = turns_so_far(turn_of(subject))
        return [(i, t, fold(t)) for i, t in assistant_texts_of(turns)]

    def describe(self) -> str:
        """Describe the requirement."""
        words = " (whole words)" if self._words else ""
        return f"no response so far contains {quoted_list(self.patterns)}{words}"


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
    reads_history = True  # reads the turns before the one checked
    kind = "conversation_content_matches"
    level = "conversation"
    dialect_names = {"promptkit.conversation": "content_matches"}
    params = (Param("pattern", "str", required=True, doc="a regular expression (Go/RE2 syntax)"),)
    options = ("regex_timeout",)
    pattern: str
    _compiled: Pattern
    evidence_at = "/text"

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
            return timeout_result(self.kind, timeout, self.pattern)
        return Result(
            _F,
            self.kind,
            "no response matched pattern",
            {"pattern": self.pattern, "matched": False, "responses_checked": len(texts)},
        )

    def describe(self) -> str:
        """Describe the requirement."""
        return f"some response matches /{self.pattern}/"


def _marked(
    failure: Result, subject: object, index: int, text: str, start: int, end: int
) -> Result:
    """The failure with its first forbidden match marked, when that match is in a turn's
    `text` (the turn checked, or turn `index` of a conversation); a match in another message
    is pointed at by the default evidence only."""
    if isinstance(subject, Conversation):
        turns: Sequence[Turn] = subject.turns
        pointer = f"/turns/{index}/text"
    else:
        turns = turns_so_far(turn_of(subject))
        pointer = "/text" if index == len(turns) - 1 else ""
    if not pointer or not 0 <= index < len(turns) or turns[index].text != text:
        return failure
    return failure._with_evidence(pointer, text, start, end)
