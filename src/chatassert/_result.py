"""The result tree: the outcome of checking an assertion against a subject.

Docs: docs/guide.md. Tests: tests/test_result.py.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, NoReturn

__all__ = [
    "all_status",
    "any_status",
    "ReadOnlyDict",
    "Result",
    "shared_once",
    "Status",
    "status_counts",
]


class Status(enum.StrEnum):
    """The four outcomes of a check.

    `PASSED` and `FAILED` say what the subject did; `ERROR` says the assertion could not be
    evaluated (judge unreachable, regex timed out, data missing); `SKIPPED` says it was not
    evaluated (a condition did not hold, or fail-fast stopped the turn). Only `PASSED` passes.
    """

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


def all_status(statuses: Sequence[Status]) -> Status:
    """Kleene AND: failed if any failed, else error if any errored, else passed.

    Skipped statuses are left out; with nothing left (no statuses, or only skipped ones) the
    outcome is passed, the identity of AND.
    """
    if Status.FAILED in statuses:
        return Status.FAILED
    if Status.ERROR in statuses:
        return Status.ERROR
    return Status.PASSED


_F, _E, _S = Status.FAILED, Status.ERROR, Status.SKIPPED


def status_counts(statuses: Sequence[Status]) -> dict[str, int]:
    """How many of each status: the `details` of a combinator, a selector or a case.

    Counted with `list.count`, which compares members by identity first: a dictionary keyed
    by the members would hash each through `Enum.__hash__`, a Python call per result.
    """
    failed, errors, skipped = statuses.count(_F), statuses.count(_E), statuses.count(_S)
    passed = len(statuses) - failed - errors - skipped
    return {"passed": passed, "failed": failed, "error": errors, "skipped": skipped}


def any_status(statuses: Sequence[Status]) -> Status:
    """Kleene OR: passed if any passed, else error if any errored, else failed.

    Skipped statuses are left out; with nothing left (no statuses, or only skipped ones) the
    outcome is failed, the identity of OR.
    """
    if Status.PASSED in statuses:
        return Status.PASSED
    if Status.ERROR in statuses:
        return Status.ERROR
    return Status.FAILED


_MARKS = {
    Status.PASSED: "PASS",
    Status.FAILED: "FAIL",
    Status.ERROR: "ERROR",
    Status.SKIPPED: "SKIP",
}

_EMPTY: Mapping[str, Any] = {}
_CONTROL = re.compile("[\x00-\x1f\x7f]")


class ReadOnlyDict(dict[str, Any]):
    """The details of a shared result: a dict (JSON encoders take it) that cannot be changed,
    so one holder cannot change what every other check returns."""

    __slots__ = ()

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("the details of a shared result are read-only; copy them with dict()")

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyDict, (dict(self),))


class Result:
    """The immutable outcome of one check, with the outcomes of its parts as `children`.

    Results are built millions of times in a batch run, so construction is a handful of
    dictionary writes; optional fields that are not given stay as class-level defaults.

    Attributes:
        status: One of the four `Status` values.
        name: The kind of assertion that produced it (`contains`, `all_of`, ...).
        reason: Why it came out this way, as a fragment that nests in longer explanations.
        details: JSON-serialisable facts about the outcome (never truncated).
        message: The user's label for the assertion (the spec's `message`), if any.
        score: A number in the outcome, when the assertion produces one (judges, `AtLeast`).
        children: The results of the parts, for combinators and selectors.
        location: Where in the subject this applies: `turns[3]`, `results[2].file`.
        duration: Seconds spent, when measured: for judged checks, `acheck`, and whole cases.
        pointer: The evidence of a failure as a JSON Pointer into the subject
            (`/turns/3/text`, `/turns/1/tool_calls/0`, `/results/2/file`); a turn selector
            prefixes it with `/turns/i` as it sets `location`.
        span: For text evidence, the characters `[start, end)` of the text at `pointer`.
        excerpt: `(offset, text)`: the text around `span`, starting at character `offset`.
        spec_name: The assertion's name as its spec file writes it (`status`,
            `content_not_includes`, `not_contains`), when it was loaded from one; `name` is
            then the native check that runs it (`expect_status`). A check the loader wraps
            (a top-level turn check run on every turn) carries the name of what was written.
        spec_path: Where the assertion is in its spec file, in the file's own keys
            (`test_cases[0].turns[2].assertions[0]`, `tests[3].expect.status`,
            `spec.conversation_assertions[1]`); a case's result carries the case's own place
            and a turn's the turn's.

    Example:
        >>> r = Result(Status.FAILED, "contains", "Response does not contain 'refund'")
        >>> r.passed
        False
        >>> Result.from_dict(r.to_dict()) == r
        True
    """

    message: str | None = None
    score: float | None = None
    children: tuple[Result, ...] = ()
    location: str | None = None
    duration: float | None = None
    pointer: str | None = None
    span: tuple[int, int] | None = None
    excerpt: tuple[int, str] | None = None
    spec_name: str | None = None
    spec_path: str | None = None
    _shared: bool = False

    status: Status
    name: str
    reason: str
    details: Mapping[str, Any]

    _FIELDS: ClassVar[tuple[str, ...]] = (
        "status",
        "name",
        "reason",
        "details",
        "message",
        "score",
        "children",
        "location",
        "duration",
        "pointer",
        "span",
        "excerpt",
        "spec_name",
        "spec_path",
    )

    def __init__(
        self,
        status: Status,
        name: str,
        reason: str = "",
        details: Mapping[str, Any] | None = None,
        *,
        message: str | None = None,
        score: float | None = None,
        children: tuple[Result, ...] = (),
        location: str | None = None,
        duration: float | None = None,
        pointer: str | None = None,
        span: tuple[int, int] | None = None,
        excerpt: tuple[int, str] | None = None,
        spec_name: str | None = None,
        spec_path: str | None = None,
    ) -> None:
        d = self.__dict__
        d["status"] = status
        d["name"] = name
        d["reason"] = reason
        d["details"] = _EMPTY if details is None else details
        if message is not None:
            d["message"] = message
        if score is not None:
            d["score"] = score
        if children:
            d["children"] = children
        if location is not None:
            d["location"] = location
        if duration is not None:
            d["duration"] = duration
        if pointer is not None:
            d["pointer"] = pointer
        if span is not None:
            d["span"] = span
        if excerpt is not None:
            d["excerpt"] = excerpt
        if spec_name is not None:
            d["spec_name"] = spec_name
        if spec_path is not None:
            d["spec_path"] = spec_path

    @classmethod
    def shared(
        cls,
        status: Status,
        name: str,
        reason: str = "",
        details: Mapping[str, Any] | None = None,
        *,
        message: str | None = None,
        pointer: str | None = None,
    ) -> Result:
        """Build a result to be returned by many checks: an outcome that never varies.

        An assertion builds its constant outcomes once (a pass, a failure whose reason does
        not depend on the subject) and returns the same object every time, so such a check
        allocates nothing. Code that places a result (a turn selector setting `location`, a
        case setting `duration`) copies a shared result instead of changing it.

        Example:
            >>> ok = Result.shared(Status.PASSED, "contains")
            >>> ok._with_field("location", "turns[0]") is ok, ok.location is None
            (False, True)
        """
        frozen = None if details is None else ReadOnlyDict(details)
        result = cls(status, name, reason, frozen, message=message, pointer=pointer)
        result.__dict__["_shared"] = True
        return result

    def _with_field(self, name: str, value: Any) -> Result:
        """Set one field on a result nobody else has seen yet, or on a copy if it is shared.

        Internal: this is how `check`, selectors and suites annotate the results of their
        parts (`message`, `location`, `duration`) without copying every result. A fresh result
        is changed in place; a `shared` one is copied first. Everyone else uses `replace`.
        """
        if self._shared:  # a fresh copy of the same fields: no validation, no per-field calls
            copy = object.__new__(type(self))
            fields = copy.__dict__
            fields.update(self.__dict__)
            del fields["_shared"]
            fields[name] = value
            return copy
        self.__dict__[name] = value
        return self

    def _with_evidence(
        self, pointer: str, text: str | None = None, start: int = 0, end: int = 0
    ) -> Result:
        """Set the evidence of a result nobody else has seen yet (or of a copy if shared).

        Internal: a leaf check gives the JSON Pointer of what it read and, for text, the
        characters `[start, end)` of `text` that decide; the excerpt around them is cut here.
        """
        result = self._with_field("pointer", pointer)
        if text is not None:
            fields = result.__dict__
            fields["span"] = (start, end)
            fields["excerpt"] = cut_excerpt(text, start, end)
        return result

    def _prefixed(self, prefix: str) -> Result:
        """Prefix the pointers in this tree with `prefix`: how a selector places a turn's evidence.

        Internal, like `_with_field`: fresh results are changed in place, shared ones copied.
        """
        pointer = self.pointer
        if pointer is not None:
            return self._with_field("pointer", prefix + pointer)
        children = self.children
        if not children:
            return self
        placed = tuple(c._prefixed(prefix) for c in children)
        if all(a is b for a, b in zip(placed, children, strict=True)):
            return self
        return self._with_field("children", placed)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"Result is immutable; use result.replace({name}=...) for a copy")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("Result is immutable")

    @property
    def passed(self) -> bool:
        """Whether the status is `passed` (an error or a skip is not a pass)."""
        return self.status is Status.PASSED

    @property
    def label(self) -> str:
        """The user's message if there is one, else the assertion's name as its spec wrote it
        (`spec_name`), else its native name."""
        return self.message or self.spec_name or self.name

    def replace(self, **changes: Any) -> Result:
        """Return a copy with the given fields changed."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"Result has no field(s) {sorted(unknown)}; fields: {self._FIELDS}")
        values = {name: getattr(self, name) for name in self._FIELDS}
        values.update(changes)
        return Result(**values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS if f != "duration")

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        where = f" at {self.location}" if self.location else ""
        return f"<Result {self.status.value} {self.label}{where}: {self.reason!r}>"

    def __str__(self) -> str:
        return self.render()

    # -- traversal -----------------------------------------------------------------------

    def walk(self) -> Iterator[tuple[tuple[Result, ...], Result]]:
        """Yield `(ancestors, result)` for this result and every descendant, depth first."""
        stack: list[tuple[tuple[Result, ...], Result]] = [((), self)]
        while stack:
            ancestors, node = stack.pop()
            yield ancestors, node
            stack.extend(((*ancestors, node), c) for c in reversed(node.children))

    def leaves(self) -> Iterator[Result]:
        """Yield the results that have no children, in order."""
        for _, node in self.walk():
            if not node.children:
                yield node

    def failures(self) -> list[Result]:
        """Return the results that explain a failure or error, in order.

        These are the failed or errored nodes none of whose children has the same status: a
        failed leaf, or a node that failed on its own account (a `Not` whose child passed).
        """
        bad = (Status.FAILED, Status.ERROR)
        return [
            node
            for _, node in self.walk()
            if node.status in bad and not any(c.status is node.status for c in node.children)
        ]

    def full_location(self, ancestors: tuple[Result, ...]) -> str:
        """Join the locations of `ancestors` and this result into one path."""
        parts = [a.location for a in (*ancestors, self) if a.location]
        out = ""
        for part in parts:
            if not out or part.startswith("["):
                out += part
            else:
                out += "." + part
        return out

    # -- serialisation -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict; `from_dict` reverses it.

        Fields that hold their default (no message, no score, ...) are left out. The output is
        strict JSON (`json.dumps(..., allow_nan=False)` takes it): a score or a number in the
        details that is infinite or NaN is written as the string `"Infinity"`, `"-Infinity"`
        or `"NaN"`, and `from_dict` reads such a score back as the number.

        Example:
            >>> Result(Status.FAILED, "x", "no", score=float("nan")).to_dict()["score"]
            'NaN'
            >>> Result.from_dict({"status": "failed", "name": "x", "score": "-Infinity"}).score
            -inf
        """
        out: dict[str, Any] = {
            "status": self.status.value,
            "name": self.name,
            "reason": self.reason,
            "details": strict_json(self.details) if self.details else {},
        }
        self._optional_fields(out, evidence=True)
        if self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out

    def _optional_fields(self, out: dict[str, Any], *, evidence: bool) -> None:
        """Add to `out` the fields `to_dict` writes only when set (the evidence: if asked)."""
        if self.message is not None:
            out["message"] = self.message
        if self.score is not None:
            out["score"] = strict_json(self.score)
        if self.location is not None:
            out["location"] = self.location
        if self.duration is not None:
            out["duration"] = self.duration
        if self.spec_name is not None:
            out["spec_name"] = self.spec_name
        if self.spec_path is not None:
            out["spec_path"] = self.spec_path
        if not evidence:
            return
        if self.pointer is not None:
            out["pointer"] = self.pointer
        if self.span is not None:
            out["span"] = list(self.span)
        if self.excerpt is not None:
            out["excerpt"] = {"offset": self.excerpt[0], "text": self.excerpt[1]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        """Build a result from the output of `to_dict` (or JSON parsed from it).

        Only `status` and `name` are required and checked (`ValueError` otherwise). A missing
        field takes its default (reason `""`, no details, no message, ...), and a score of
        `"Infinity"`, `"-Infinity"` or `"NaN"` is read back as the number; every other value is
        taken as given, not validated: check untrusted input against `json_schema()` first.
        """
        try:
            status = Status(data["status"])
            name = data["name"]
        except (KeyError, ValueError) as exc:
            raise ValueError(
                f"not a result: needs 'status' (one of {[s.value for s in Status]}) and 'name'"
            ) from exc
        score = data.get("score")
        span, excerpt = data.get("span"), data.get("excerpt")
        return cls(
            status,
            name,
            data.get("reason", ""),
            dict(data.get("details") or {}),
            message=data.get("message"),
            score=_NON_FINITE[score] if isinstance(score, str) and score in _NON_FINITE else score,
            children=tuple(cls.from_dict(c) for c in data.get("children") or ()),
            location=data.get("location"),
            duration=data.get("duration"),
            pointer=data.get("pointer"),
            span=None if span is None else (span[0], span[1]),
            excerpt=None if excerpt is None else (excerpt["offset"], excerpt["text"]),
            spec_name=data.get("spec_name"),
            spec_path=data.get("spec_path"),
        )

    @staticmethod
    def json_schema() -> dict[str, Any]:
        """Return the JSON Schema (draft 2020-12) of `to_dict()` output."""
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://chatassert.dev/schema/result.json",
            "title": "chatassert result",
            "$ref": "#/$defs/result",
            "$defs": {
                "result": {
                    "type": "object",
                    "required": ["status", "name", "reason", "details"],
                    "additionalProperties": False,
                    "properties": {
                        "status": {"enum": [s.value for s in Status]},
                        "name": {"type": "string"},
                        "reason": {"type": "string"},
                        "details": {"type": "object"},
                        "message": {"type": "string"},
                        "score": {
                            "anyOf": [
                                {"type": "number"},
                                {"enum": ["Infinity", "-Infinity", "NaN"]},
                            ]
                        },
                        "location": {"type": "string"},
                        "duration": {"type": "number", "minimum": 0},
                        "pointer": {"type": "string"},
                        "span": {
                            "type": "array",
                            "items": {"type": "integer", "minimum": 0},
                            "minItems": 2,
                            "maxItems": 2,
                        },
                        "excerpt": {
                            "type": "object",
                            "required": ["offset", "text"],
                            "additionalProperties": False,
                            "properties": {
                                "offset": {"type": "integer", "minimum": 0},
                                "text": {"type": "string"},
                            },
                        },
                        "spec_name": {"type": "string"},
                        "spec_path": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/result"}},
                    },
                }
            },
        }

    # -- rendering -----------------------------------------------------------------------

    def evidence(self, mark: tuple[str, str] = ("[[", "]]")) -> str:
        """Say where the evidence is: the pointer, the span and the excerpt with the span marked.

        Example:
            >>> from chatassert import NotContains, OnEveryTurn, Conversation, Turn
            >>> chat = Conversation(turns=[Turn(text="Hi"), Turn(text="Sorry, internal error.")])
            >>> leaf = OnEveryTurn(NotContains("internal error")).check(chat).failures()[0]
            >>> leaf.evidence()
            'at /turns/1/text 7-21: Sorry, [[internal error]].'
        """
        if self.pointer is None:
            return ""
        out = f"at {self.pointer}"
        if self.span is not None:
            out += f" {self.span[0]}-{self.span[1]}"
            if self.excerpt is not None:
                out += ": " + marked(self.excerpt, self.span, *mark)
        return out

    def render(self, *, verbose: bool = False, width: int = 200) -> str:
        """Render the tree as indented text.

        Only the branches that did not pass are expanded unless `verbose` is true, so a
        failure reads as the path from the top to the leaves that explain it. Each level is
        indented by two spaces, up to 20 levels (deeper ones stay at 40 spaces); a line is cut
        in the middle (see `shorten`) to fit `width` characters (200 by default) with its
        indent, but keeps at least 40 characters of text.
        """
        lines: list[str] = []
        self._render_into(lines, 0, verbose, width, self.spec_path, self.spec_path)
        return "\n".join(lines)

    def spec_place(self, root: str | None = None, above: str | None = None) -> str | None:
        """`spec_path` as a report shows it: relative to `root` (the place of the case the
        result belongs to) when it lies inside it, `the file's ...` when it lies outside (a
        native suite's `assertions`, which every case checks), and None when it says nothing
        new (no place, the root's own, or `above`: the place of the node shown above it, as
        for the per-turn results of a check run on every turn).

        Example:
            >>> r = Result(Status.FAILED, "expect_status", spec_name="status",
            ...            spec_path="tests[0].expect.status")
            >>> r.spec_place("tests[0]"), r.spec_place(), r.spec_place(above=r.spec_path)
            ('expect.status', 'tests[0].expect.status', None)
            >>> r.replace(spec_path="assertions[0]").spec_place("cases[0]")
            "the file's assertions[0]"
        """
        path = self.spec_path
        if not path or path in (above, root):
            return None
        if not root:
            return path
        if path.startswith(root) and path[len(root)] in ".[":
            return path[len(root) :].lstrip(".")
        return f"the file's {path}"

    def _heading(self, place: str | None) -> str:
        """The node's name as a report shows it: the spec's name (the user's message first,
        with it in brackets), and where the spec has it when that says more than the name."""
        named = self.spec_name or self.name
        label = self.message or named
        if place is not None and _ends_with(place, label):
            # `expect.status`, `spec.tool_policy.blocklist`: the place names the check too
            return place if _ends_with(place, named) else f"{place} [{named}]"
        if self.message is not None:
            label = f"{self.message} [{named}]"
        if place is not None and place != self.location:
            label += f" at {place}"
        return label

    def _render_into(
        self,
        lines: list[str],
        depth: int,
        verbose: bool,
        width: int,
        root: str | None,
        above: str | None,
    ) -> None:
        where = f"{self.location} " if self.location else ""
        label = self._heading(self.spec_place(root, above))
        text = f"{_MARKS[self.status]} {where}{label}"
        if self.reason:
            text += f": {self.reason}"
        # text from a subject (a reason quoting it) is shown, never obeyed: a newline or a
        # terminal escape in it cannot break the tree; the indent is not what gets cut
        indent = "  " * min(depth, 20)
        text = _CONTROL.sub(_escaped, text)
        lines.append(indent + shorten(text, max(width - len(indent), 40)))
        if self.excerpt is not None and self.status is not Status.PASSED:
            evidence = self.evidence()
            lines.append(indent + "  " + shorten(_CONTROL.sub(_escaped, evidence), width))
        here = self.spec_path or above
        for child in self._shown_children():
            if verbose or child.status is not Status.PASSED:
                child._render_into(lines, depth + 1, verbose, width, root, here)

    def _shown_children(self) -> Iterator[Result]:
        """The children a rendering shows: a child that is this node again (the same place in
        the spec, no place of its own in the subject, as the AND of an expect object's keys
        under the key holding it) is not shown twice: its own children are, in its place."""
        for child in self.children:
            if (
                child.children
                and child.spec_path is not None
                and child.spec_path == self.spec_path
                and child.location is None
                and child.message is None
            ):
                yield from child._shown_children()
            else:
                yield child


def _ends_with(path: str, key: str) -> bool:
    """Whether the spec path `path` is `key`, or ends with it as its last key (`a.key`)."""
    return path == key or path.endswith("." + key)


def _escaped(m: re.Match[str]) -> str:
    return repr(m.group())[1:-1]


EXCERPT_CONTEXT = 40
"""Characters of context kept on each side of a span in an excerpt."""
EXCERPT_SPAN = 160
"""Characters of a long span kept in an excerpt (the span itself stays whole)."""


def cut_excerpt(text: str, start: int, end: int) -> tuple[int, str]:
    """Return `(offset, window)`: the text around `[start, end)` with some context.

    Example:
        >>> cut_excerpt("x" * 100 + "needle" + "y" * 100, 100, 106)[0]
        60
    """
    begin = max(0, start - EXCERPT_CONTEXT)
    stop = min(len(text), min(end, start + EXCERPT_SPAN) + EXCERPT_CONTEXT)
    return begin, text[begin:stop]


_STEP = re.compile(r"\.?\[(-?\d+)\]|\.?\[(['\"])(.*?)\2\]|\.?([^.\[\]]+)")


@functools.lru_cache(maxsize=4096)  # the places failures name repeat across a log's records
def location_pointer(location: str) -> str | None:
    """The JSON Pointer of a place written as a path (`turns[2].tool_calls[0]`,
    `results[1].metadata.created`), or None when the text is not such a path.

    Example:
        >>> location_pointer("turns[2].tool_calls[0]"), location_pointer("a/b.c~d")
        ('/turns/2/tool_calls/0', '/a~1b/c~0d')
        >>> location_pointer("results[-1]") is None  # counted from an end it does not know
        True
    """
    if location.startswith("$"):  # a JSONPath's root
        location = location[1:]
    parts: list[str] = []
    at = 0
    while at < len(location):
        step = _STEP.match(location, at)
        if step is None or step.end() == at:
            return None
        index, _, quoted, key = step.groups()
        if index is not None and index.startswith("-"):
            return None
        part = index if index is not None else quoted if quoted is not None else key
        parts.append(part.replace("~", "~0").replace("/", "~1"))
        at = step.end()
    return "".join("/" + p for p in parts)


def marked(
    excerpt: tuple[int, str],
    span: tuple[int, int],
    left: str,
    right: str,
    quote: Callable[[str], str] = str,
) -> str:
    """The excerpt with the span between `left` and `right`, and `…` where text was cut off.

    `quote` is applied to the text (not to the marks): `html.escape` for a page, say.

    Example:
        >>> marked((0, "Sorry, internal error."), (7, 21), "[[", "]]")
        'Sorry, [[internal error]].'
        >>> import html
        >>> marked((0, "a <b> c"), (2, 5), "<mark>", "</mark>", html.escape)
        'a <mark>&lt;b&gt;</mark> c'
    """
    offset, window = excerpt
    a = min(max(span[0] - offset, 0), len(window))
    b = min(max(span[1] - offset, a), len(window))
    cut = "…" if span[1] - offset > len(window) else ""
    head = "…" if offset > 0 else ""
    return f"{head}{quote(window[:a])}{left}{quote(window[a:b])}{cut}{right}{quote(window[b:])}"


def shorten(text: str, width: int = 80) -> str:
    """Truncate `text` in the middle to at most `width` characters, marking the cut with '…'.

    Two thirds of what is kept come from the start, one third from the end.
    """
    if len(text) <= width:
        return text
    keep = width - 1
    head = keep - keep // 3
    return text[:head] + "…" + text[len(text) - (keep - head) :]


_NON_FINITE = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


def strict_json(value: Any) -> Any:
    """`value` with every infinite or NaN float written as a string, for strict JSON.

    Example:
        >>> strict_json({"a": [1.5, float("-inf")]})
        {'a': [1.5, '-Infinity']}
    """
    if type(value) is float:
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    return value


_SHARED_KEPT = 4096


def shared_once(
    memo: dict[Any, tuple[object, Result]],
    key: Any,
    holds: object,
    build: Callable[..., Result],
    *args: Any,
) -> Result:
    """`build(*args)` made a shared result once per `key`, then the same result every time.

    How constant outcomes are annotated without a copy per subject: a turn selector placing a
    check's shared outcome at turn 3, or combining shared turn outcomes, a case placing one at
    `conversation`. `key` holds the ids of the objects the outcome derives from, and `holds`
    those objects, kept with the outcome so their ids cannot be reused while it is known. The
    result is marked shared: whoever annotates it further copies it. The memo is cleared when
    it reaches a few thousand entries; a race only builds a result twice.
    """
    known = memo.get(key)
    if known is not None:
        return known[1]
    result = build(*args)
    result.__dict__["_shared"] = True
    if len(memo) >= _SHARED_KEPT:
        memo.clear()
    memo[key] = (holds, result)
    return result
