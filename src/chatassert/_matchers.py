"""Argument matchers and expected calls: the building blocks of trajectory checks.

An expected call names a tool and, optionally, the arguments it must have. Arguments compare in
one of three modes:

- `partial` (the default): G9 loose equality, recursive; the call may have extra arguments.
- `exact`: as `partial`, but the call may have no argument (at any level of nesting) that the
  expectation does not name, apart from ignored keys.
- `ignore`: arguments are not compared; the tool name alone decides.
- `subset`: the call's arguments are a subset of the expected ones: every argument the call
  has (at any level of nesting) must be expected and match, and an expected argument the call
  leaves out is fine (openevals/agentevals' `subset`).

Anywhere in the expected arguments a value may be a matcher, written in specs as a mapping with
one `$` key:

- `{"$any": true}` (`ArgAny()`): any value, as long as the argument is present;
- `{"$regex": "..."}` (`ArgMatches(...)`): the value's text is searched (G8: Go syntax,
  unanchored; a non-string value is matched against its JSON rendering);
- `{"$one_of": [a, b]}` (`ArgOneOf([a, b])`): a value loosely equal (G9) to one of them;
- `{"$range": [min, max]}` (`ArgInRange(min, max)`): a number, or numeric string, in the
  inclusive range; `null` leaves a side open.

Docs: docs/trajectories.md. Tests: tests/test_matchers_decisions.py.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from chatassert._jsonbase import json_equal
from chatassert._models import ToolResult
from chatassert._params import did_you_mean
from chatassert._regex import DEFAULT_REGEX_TIMEOUT, Pattern, compile_pattern

__all__ = [
    "ARGS_EQUALITY",
    "ARGUMENT_MODES",
    "ArgAny",
    "ArgInRange",
    "ArgMatcher",
    "ArgMatches",
    "ArgOneOf",
    "ArgProblem",
    "compare_arguments",
    "compile_arguments",
    "equality",
    "error_flag",
    "ExpectedCall",
    "loose_equal",
    "model_matches",
    "render_arguments",
    "strict_equal",
    "word_segments",
]

ARGUMENT_MODES = ("partial", "exact", "ignore", "subset")
"""The argument modes, in the order the docs list them."""

ARGS_EQUALITY = ("loose", "strict")
"""How argument values compare (docs/semantics.md G14): `loose` (G9, the default) or `strict`."""

Equality = Callable[[Any, Any], bool]
"""A test of whether an actual argument value equals the expected one."""

_STEP_KEYS = ("tool", "arguments", "argument_mode", "ignore_keys")


def _text_of_value(value: Any) -> str:
    """Render an argument value as the text a regex reads."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _number_of(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


class ArgMatcher:
    """Base class of the argument matchers that may stand for a value in expected arguments."""

    __slots__ = ()
    key: ClassVar[str] = ""

    def matches(self, actual: Any, exact: bool = False) -> bool:
        """Return whether the actual argument value satisfies this matcher."""
        raise NotImplementedError

    def to_spec(self) -> dict[str, Any]:
        """Return the `{"$...": ...}` spec form."""
        raise NotImplementedError

    def describe(self) -> str:
        """Describe what the matcher accepts, for reasons."""
        return json.dumps(self.to_spec())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArgMatcher):
            return NotImplemented
        return self.to_spec() == other.to_spec()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_spec(), sort_keys=True))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_spec()[self.key]!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (compile_arguments, (self.to_spec(),))


class ArgAny(ArgMatcher):
    """Matches any value of a present argument (spec form `{"$any": true}`).

    Example:
        >>> ArgAny().matches({"anything": [1, 2]})
        True
    """

    __slots__ = ()
    key = "$any"

    def matches(self, actual: Any, exact: bool = False) -> bool:
        """Any value matches."""
        return True

    def to_spec(self) -> dict[str, Any]:
        """Return `{"$any": true}`."""
        return {"$any": True}

    def describe(self) -> str:
        """Describe the matcher."""
        return "any value"

    def __repr__(self) -> str:
        return "ArgAny()"


class ArgMatches(ArgMatcher):
    """Matches a value whose text the regex finds (spec form `{"$regex": "..."}`).

    The pattern is Go/RE2 syntax, searched unanchored (G8). A non-string value is matched
    against its JSON rendering (`4` → `"4"`, `true` → `"true"`, `None` → `"null"`); a list or
    mapping renders with its keys sorted and non-ASCII characters as they are
    (`{"b": 1, "a": "é"}` → `{"a": "é", "b": 1}`), and a value JSON cannot hold, such as a
    date, as its `str()` (`"2024-02-15"`).

    Example:
        >>> ArgMatches(r"^C\\d+$").matches("C1042"), ArgMatches(r"^C\\d+$").matches("1042")
        (True, False)
    """

    __slots__ = ("pattern",)
    key = "$regex"
    pattern: Pattern

    def __init__(self, pattern: str, *, timeout: float = DEFAULT_REGEX_TIMEOUT) -> None:
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"$regex needs a non-empty pattern string, got {pattern!r}")
        object.__setattr__(self, "pattern", compile_pattern(pattern, timeout=timeout))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_arg_matches, (self.pattern.source, self.pattern.timeout))

    def matches(self, actual: Any, exact: bool = False) -> bool:
        """Search the value's text (raises `RegexTimeoutError` past the time limit)."""
        return self.pattern.matches(_text_of_value(actual))

    def to_spec(self) -> dict[str, Any]:
        """Return `{"$regex": pattern}`."""
        return {"$regex": self.pattern.source}

    def describe(self) -> str:
        """Describe the matcher."""
        return f"a value matching /{self.pattern.source}/"


class ArgOneOf(ArgMatcher):
    """Matches a value loosely equal (G9) to one of the choices (spec form `{"$one_of": [...]}`).

    Example:
        >>> ArgOneOf(["high", "urgent"]).matches("urgent")
        True
    """

    __slots__ = ("_compiled", "_regex_timeout", "choices")
    key = "$one_of"
    choices: tuple[Any, ...]
    _compiled: tuple[Any, ...]
    _regex_timeout: float

    def __init__(
        self, choices: Sequence[Any], *, regex_timeout: float = DEFAULT_REGEX_TIMEOUT
    ) -> None:
        if isinstance(choices, str | bytes) or not isinstance(choices, Sequence) or not choices:
            raise ValueError(f"$one_of needs a non-empty list of values, got {choices!r}")
        compiled = tuple(
            compile_arguments(c, f"$one_of[{i}]", regex_timeout=regex_timeout)
            for i, c in enumerate(choices)
        )
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "_regex_timeout", regex_timeout)
        object.__setattr__(self, "choices", tuple(render_arguments(c) for c in compiled))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_arg_one_of, (list(self.choices), self._regex_timeout))

    def matches(self, actual: Any, exact: bool = False) -> bool:
        """Return whether some choice matches."""
        return any(not _problems(c, actual, "", exact, frozenset()) for c in self._compiled)

    def to_spec(self) -> dict[str, Any]:
        """Return `{"$one_of": [...]}`."""
        return {"$one_of": list(self.choices)}

    def describe(self) -> str:
        """Describe the matcher."""
        return "one of " + json.dumps(list(self.choices))


class ArgInRange(ArgMatcher):
    """Matches a number, or a numeric string, in an inclusive range (spec `{"$range": [lo, hi]}`).

    Either bound may be `None` (open on that side), not both.

    Example:
        >>> ArgInRange(1, 10).matches("4"), ArgInRange(1, 10).matches(11)
        (True, False)
    """

    __slots__ = ("high", "low")
    key = "$range"
    low: float | None
    high: float | None

    def __init__(self, low: float | None = None, high: float | None = None) -> None:
        for name, bound in (("min", low), ("max", high)):
            if (bound is not None and _number_of(bound) is None) or isinstance(bound, str):
                raise ValueError(f"$range {name} must be a number or null, got {bound!r}")
        if low is None and high is None:
            raise ValueError("$range needs at least one bound: [min, max], null for an open side")
        if low is not None and high is not None and low > high:
            raise ValueError(f"$range min {low!r} is greater than max {high!r}")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def matches(self, actual: Any, exact: bool = False) -> bool:
        """Return whether the value is a number within the bounds."""
        number = _number_of(actual)
        if number is None:
            return False
        return (self.low is None or number >= self.low) and (
            self.high is None or number <= self.high
        )

    def to_spec(self) -> dict[str, Any]:
        """Return `{"$range": [min, max]}`."""
        return {"$range": [self.low, self.high]}

    def describe(self) -> str:
        """Describe the matcher."""
        if self.low is None:
            return f"a number ≤ {self.high}"
        if self.high is None:
            return f"a number ≥ {self.low}"
        return f"a number in [{self.low}, {self.high}]"

    def __repr__(self) -> str:
        return f"ArgInRange({self.low!r}, {self.high!r})"


def _immutable(self: object, name: str, value: object) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable")


ArgMatcher.__setattr__ = _immutable  # type: ignore[method-assign]

_MATCHER_KEYS = ("$any", "$regex", "$one_of", "$range")


def _arg_matches(source: str, timeout: float) -> ArgMatches:
    return ArgMatches(source, timeout=timeout)


def _arg_one_of(choices: list[Any], regex_timeout: float) -> ArgOneOf:
    return ArgOneOf(choices, regex_timeout=regex_timeout)


def _matcher_from_spec(key: str, value: Any, where: str, regex_timeout: float) -> ArgMatcher:
    if key == "$any":
        if value is not True:
            raise ValueError(f"{where}: $any takes true, got {value!r}")
        return ArgAny()
    if key == "$regex":
        if not isinstance(value, str):
            raise TypeError(f"{where}: $regex takes a pattern string, got {value!r}")
        try:
            return ArgMatches(value, timeout=regex_timeout)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    if key == "$one_of":
        if not isinstance(value, list | tuple):
            raise TypeError(f"{where}: $one_of takes a list of values, got {value!r}")
        try:  # a bad choice is named from the argument down: `arguments.q: $one_of[1]: ...`
            return ArgOneOf(value, regex_timeout=regex_timeout)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        except TypeError as exc:
            raise TypeError(f"{where}: {exc}") from None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise TypeError(f"{where}: $range takes a list [min, max], got {value!r}")
    try:
        return ArgInRange(value[0], value[1])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def compile_arguments(
    value: Any, where: str = "arguments", *, regex_timeout: float = DEFAULT_REGEX_TIMEOUT
) -> Any:
    """Turn expected arguments (spec form or Python) into a tree with matcher objects.

    A mapping whose only key starts with `$` is a matcher; an unknown `$` key is an error.
    `$regex` patterns written in the spec search with the time limit `regex_timeout` (G8). A date
    (any value with `isoformat`) becomes its ISO text, which G9 takes as equal to the date.

    Raises:
        ValueError: for an unknown or malformed matcher (the message names where it is).
        TypeError: for a value that is not JSON.
    """
    if isinstance(value, ArgMatcher):
        return value
    if isinstance(value, Mapping):
        dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
        if dollar:
            if len(value) != 1:
                raise ValueError(
                    f"{where}: a matcher is a mapping with exactly one key "
                    f"({', '.join(_MATCHER_KEYS)}), got keys {sorted(map(str, value))}"
                )
            key = dollar[0]
            if key not in _MATCHER_KEYS:
                hint = did_you_mean(key, _MATCHER_KEYS)
                raise ValueError(
                    f"{where}: unknown matcher {key!r}"
                    + (f" ({hint})" if hint else f"; matchers are {', '.join(_MATCHER_KEYS)}")
                )
            return _matcher_from_spec(key, value[key], where, regex_timeout)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where}: argument names must be strings, got {key!r}")
            out[key] = compile_arguments(item, f"{where}.{key}", regex_timeout=regex_timeout)
        return out
    if isinstance(value, list | tuple):
        return [
            compile_arguments(item, f"{where}[{i}]", regex_timeout=regex_timeout)
            for i, item in enumerate(value)
        ]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"{where}: expected a JSON value, got {type(value).__name__} {value!r}")


def render_arguments(node: Any) -> Any:
    """Render a compiled argument tree back into its JSON spec form."""
    if isinstance(node, ArgMatcher):
        return node.to_spec()
    if isinstance(node, dict):
        return {k: render_arguments(v) for k, v in node.items()}
    if isinstance(node, list):
        return [render_arguments(v) for v in node]
    return node


@dataclass(frozen=True, slots=True)
class ArgProblem:
    """One way a call's arguments differ from the expectation.

    Attributes:
        argument: The path of the argument (`address.city`, `items[0]`).
        problem: `missing`, `value_mismatch` or `unexpected` (an extra argument in `exact` mode).
        expected: The expected value or matcher (spec form).
        actual: The value found.
    """

    argument: str
    problem: str
    expected: Any = None
    actual: Any = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form used in details.

        A `missing` argument has no `actual` (nothing was found) and an `unexpected` one no
        `expected` (nothing was asked for); a `value_mismatch` has both.
        """
        out: dict[str, Any] = {"argument": self.argument, "problem": self.problem}
        if self.problem != "unexpected":
            out["expected"] = self.expected
        if self.problem != "missing":
            out["actual"] = self.actual
        return out

    def describe(self) -> str:
        """Explain the problem as a reason fragment.

        Values are shown as JSON (non-ASCII characters as they are, a value JSON cannot hold,
        such as a date, as its `str`); one over 60 characters is cut to its first 45 and last
        10 around `…`.
        """
        if self.problem == "missing":
            return f"argument '{self.argument}' is missing"
        if self.problem == "unexpected":
            return f"unexpected argument {self.argument}={_short(self.actual)}"
        if isinstance(self.expected, dict) and len(self.expected) == 1:
            key = next(iter(self.expected))
            if key in _MATCHER_KEYS:
                return (
                    f"{self.argument}={_short(self.actual)} is not "
                    f"{compile_arguments(self.expected).describe()}"
                )
        return f"{self.argument}={_short(self.actual)}, expected {_short(self.expected)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:45] + "…" + text[-10:]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _problems(
    expected: Any,
    actual: Any,
    path: str,
    exact: bool,
    ignored: frozenset[str],
    equal: Equality | None = None,
    subset: bool = False,
) -> list[ArgProblem]:
    if isinstance(expected, ArgMatcher):
        if expected.matches(actual, exact):
            return []
        return [ArgProblem(path, "value_mismatch", expected.to_spec(), actual)]
    if expected is None:
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, Mapping):
            return [
                ArgProblem(
                    path or "arguments", "value_mismatch", render_arguments(expected), actual
                )
            ]
        out: list[ArgProblem] = []
        for key, want in expected.items():
            where = _join(path, key)
            if where in ignored:
                continue
            if key not in actual:
                if not subset:
                    out.append(ArgProblem(where, "missing", render_arguments(want)))
            else:
                out.extend(_problems(want, actual[key], where, exact, ignored, equal, subset))
        if exact or subset:
            for key, got in actual.items():
                where = _join(path, str(key))
                if key not in expected and where not in ignored:
                    out.append(ArgProblem(where, "unexpected", actual=got))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple) or len(actual) != len(expected):
            return [ArgProblem(path, "value_mismatch", render_arguments(expected), actual)]
        out = []
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            out.extend(_problems(want, got, f"{path}[{i}]", exact, ignored, equal, subset))
        return out
    if (equal or loose_equal)(expected, actual):
        return []
    return [ArgProblem(path, "value_mismatch", expected, actual)]


def compare_arguments(
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    *,
    mode: str = "partial",
    ignore_keys: Sequence[str] = (),
    args_equality: str = "loose",
) -> list[ArgProblem]:
    """List how `actual` arguments differ from compiled `expected` ones under `mode`.

    Args:
        expected: Expected arguments, as returned by `compile_arguments`.
        actual: The call's arguments.
        mode: `partial`, `exact`, `ignore` or `subset`.
        ignore_keys: Argument paths (`request_id`, `page.cursor`) left out of the comparison.
        args_equality: How plain values compare: `loose` (G9) or `strict` (G14); matchers
            keep their own rules.

    An `actual` that is not a mapping at all is one `value_mismatch` named `arguments`.

    Example:
        >>> exp = compile_arguments({"q": {"$regex": "(?i)refund"}, "limit": 5})
        >>> compare_arguments(exp, {"q": "Refund policy", "limit": "5", "lang": "en"})
        []
        >>> [p.problem for p in compare_arguments(exp, {"q": "refund", "limit": 5, "lang": "en"},
        ...                                        mode="exact")]
        ['unexpected']
        >>> compare_arguments(exp, {"q": "refund"}, mode="subset")  # limit left out: fine
        []
    """
    if mode == "ignore":
        return []
    return _problems(
        dict(expected),
        actual,
        "",
        mode == "exact",
        frozenset(ignore_keys),
        equality(args_equality),
        mode == "subset",
    )


class ExpectedCall:
    """One expected tool call in a trajectory: a tool name and, optionally, its arguments.

    Args:
        tool: The tool's exact name.
        arguments: The arguments the call must have (values may be matchers); `None` checks
            the name alone.
        argument_mode: `partial`, `exact`, `ignore` or `subset`; `None` takes the sequence's
            setting.
        ignore_keys: Argument paths left out of the comparison, added to the sequence's.

    In a spec an expected call is a tool name, or a mapping
    `{tool, arguments?, argument_mode?, ignore_keys?}`.

    Example:
        >>> step = ExpectedCall("create_ticket", {"priority": ArgOneOf(["high", "urgent"])})
        >>> step.to_spec()
        {'tool': 'create_ticket', 'arguments': {'priority': {'$one_of': ['high', 'urgent']}}}
        >>> ExpectedCall.from_spec(step.to_spec()) == step
        True
    """

    __slots__ = ("argument_mode", "arguments", "ignore_keys", "tool")
    tool: str
    arguments: dict[str, Any] | None
    argument_mode: str | None
    ignore_keys: tuple[str, ...]

    def __init__(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        argument_mode: str | None = None,
        ignore_keys: Sequence[str] = (),
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> None:
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError(f"an expected call needs a non-empty tool name, got {tool!r}")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise TypeError(
                f"arguments of expected call '{tool}' must be a mapping, "
                f"got {type(arguments).__name__} {arguments!r}"
            )
        check_mode(argument_mode, f"argument_mode of expected call '{tool}'", allow_none=True)
        if argument_mode in ("exact", "subset") and arguments is None:
            raise ValueError(
                f"expected call '{tool}' has argument_mode {argument_mode!r} but no arguments; "
                "give arguments ({} for a call without any)"
            )
        object.__setattr__(self, "tool", tool)
        object.__setattr__(
            self,
            "arguments",
            None
            if arguments is None
            else compile_arguments(arguments, f"{tool}.arguments", regex_timeout=regex_timeout),
        )
        object.__setattr__(self, "argument_mode", argument_mode)
        object.__setattr__(
            self, "ignore_keys", check_keys(ignore_keys, f"ignore_keys of expected call '{tool}'")
        )

    @classmethod
    def coerce(
        cls, value: Any, where: str = "step", *, regex_timeout: float = DEFAULT_REGEX_TIMEOUT
    ) -> ExpectedCall:
        """Accept an `ExpectedCall` (kept as it is), a tool name, or the spec mapping."""
        if isinstance(value, ExpectedCall):
            return value
        return cls.from_spec(value, where, regex_timeout=regex_timeout)

    @classmethod
    def from_spec(
        cls, value: Any, where: str = "step", *, regex_timeout: float = DEFAULT_REGEX_TIMEOUT
    ) -> ExpectedCall:
        """Build from the spec form: a tool name or `{tool, arguments?, ...}`.

        `regex_timeout` is the time limit of the `$regex` matchers written in `value`.

        Raises:
            ValueError: for an unknown key (with a did-you-mean hint) or a bad value.
            TypeError: for a value of the wrong type.
        """
        if isinstance(value, str):
            return cls(value)
        if not isinstance(value, Mapping):
            raise TypeError(
                f"{where}: an expected call is a tool name or a mapping with 'tool', "
                f"got {type(value).__name__} {value!r}"
            )
        for key in value:
            if key not in _STEP_KEYS:
                hint = did_you_mean(str(key), _STEP_KEYS)
                raise ValueError(
                    f"{where}: unknown key {key!r} in an expected call"
                    + (f" ({hint})" if hint else f"; valid keys: {', '.join(_STEP_KEYS)}")
                )
        if "tool" not in value:
            raise ValueError(f"{where}: an expected call needs 'tool' (the tool's name)")
        tool = value["tool"]
        if not isinstance(tool, str):
            raise TypeError(f"{where}.tool must be a string, got {type(tool).__name__} {tool!r}")
        ignore = value.get("ignore_keys", ())
        if isinstance(ignore, str):
            ignore = (ignore,)
        arguments = value.get("arguments")
        if isinstance(arguments, Mapping):
            arguments = compile_arguments(
                arguments, f"{where}.arguments", regex_timeout=regex_timeout
            )
        try:
            return cls(
                tool,
                arguments,
                argument_mode=value.get("argument_mode"),
                ignore_keys=ignore,
                regex_timeout=regex_timeout,
            )
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{where}: {exc}") from None

    def to_spec(self) -> str | dict[str, Any]:
        """Return the spec form: the tool name alone when nothing else is set."""
        if self.arguments is None and self.argument_mode is None and not self.ignore_keys:
            return self.tool
        out: dict[str, Any] = {"tool": self.tool}
        if self.arguments is not None:
            out["arguments"] = render_arguments(self.arguments)
        if self.argument_mode is not None:
            out["argument_mode"] = self.argument_mode
        if self.ignore_keys:
            out["ignore_keys"] = list(self.ignore_keys)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExpectedCall):
            return NotImplemented
        return self.to_spec() == other.to_spec()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_spec(), sort_keys=True))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ExpectedCall is immutable")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_expected_call_from_spec, (self.to_spec(),))

    def __repr__(self) -> str:
        spec = self.to_spec()
        if isinstance(spec, str):
            return f"ExpectedCall({spec!r})"
        args = [repr(self.tool)]
        if self.arguments is not None:
            args.append(repr(render_arguments(self.arguments)))
        if self.argument_mode is not None:
            args.append(f"argument_mode={self.argument_mode!r}")
        if self.ignore_keys:
            args.append(f"ignore_keys={list(self.ignore_keys)!r}")
        return f"ExpectedCall({', '.join(args)})"


def _expected_call_from_spec(spec: Any) -> ExpectedCall:
    return ExpectedCall.from_spec(spec)


def check_mode(mode: Any, what: str, *, allow_none: bool = False) -> None:
    """Raise if `mode` is not an argument mode."""
    if mode is None and allow_none:
        return
    if mode not in ARGUMENT_MODES:
        hint = did_you_mean(str(mode), ARGUMENT_MODES)
        raise ValueError(
            f"{what} must be one of {', '.join(ARGUMENT_MODES)}, got {mode!r}"
            + (f" ({hint})" if hint else "")
        )


def check_keys(keys: Any, what: str) -> tuple[str, ...]:
    """Validate a list of argument paths (a single string is one path)."""
    if isinstance(keys, str):
        keys = (keys,)
    if not isinstance(keys, Sequence) or not all(isinstance(k, str) and k for k in keys):
        raise TypeError(f"{what} must be a list of non-empty argument names, got {keys!r}")
    return tuple(keys)


_ERROR_PREFIXES = ("error:", "error -", "traceback (most recent call last)")


def error_flag(result: ToolResult | None) -> str | None:
    """Return why a tool result counts as an error, or `None` when it does not.

    A result is an error when the transcript flags it (`is_error`), when its text starts with
    `Error:` / `Error -` (any case) or a Python traceback, or when its structured `data` (or
    its text parsed as JSON) is an object with a non-empty `error` key or `is_error`/`isError`
    set to true. An `error` of `null`, `false`, `0`, `""`, `{}` or `[]` is empty; the text is
    parsed only when there is no `data`.

    Example:
        >>> error_flag(ToolResult(content="Error: customer not found"))
        'content'
        >>> error_flag(ToolResult(content="3 errors fixed")) is None
        True
    """
    if result is None:
        return None
    if result.is_error:
        return "is_error"
    text = result.content.lstrip().lower()
    if text.startswith(_ERROR_PREFIXES):
        return "content"
    data = result.data
    if data is None and text.startswith("{"):
        try:
            data = json.loads(result.content)
        except ValueError:
            data = None
    if isinstance(data, Mapping) and (
        data.get("error") not in (None, "", False, {}, [])
        or data.get("is_error") is True
        or data.get("isError") is True
    ):
        return "data"
    return None


def loose_equal(expected: Any, actual: Any) -> bool:
    """Return whether `actual` loosely equals `expected` (G9, with the edges of G19).

    - JSON-equal values are equal, and numbers compare numerically (`4 == 4.0`);
    - a number equals the string of its canonical decimal rendering (`4 == "4"`, `2.5 == "2.5"`):
      an integer its digits (so `4 != "4.0"`), a float Python's rendering of it (`4.0 == "4.0"`)
      and, when it is whole, its digits too (`4.0 == "4"`); `"+4"`, `"04"`, `"4e0"` are not;
    - a bool equals `"true"` / `"false"` in any case (`"True"`, `"FALSE"`), and no other
      string (`"yes"`, `"1"`); a date equals its ISO string;
    - a string compared with a number, a bool or a date is read without its surrounding
      whitespace (`" 4 " == 4`); two strings compare exactly (`"Paris" != " paris"`);
    - an expected `None` means "present, any value";
    - an expected mapping matches a mapping with at least those keys, loosely equal (recursive);
    - an expected list matches a list of the same length, loosely equal item by item.

    The rule is the same whichever side the number, bool or date is on.

    Example:
        >>> loose_equal({"party_size": 4}, {"party_size": "4", "date": "2024-02-15"})
        True
        >>> loose_equal([1, 2], [1, 2, 3])
        False
    """
    if expected is None:
        return True
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and loose_equal(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(loose_equal(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return _bool_equal(expected, actual)
    if _is_number(expected):
        if _is_number(actual):
            return bool(expected == actual)
        return isinstance(actual, str) and actual.strip() in _number_renderings(expected)
    if _is_number(actual):
        return isinstance(expected, str) and expected.strip() in _number_renderings(actual)
    if isinstance(expected, _dt.date):
        return _date_equal(expected, actual)
    if isinstance(actual, _dt.date):
        return _date_equal(actual, expected)
    return bool(expected == actual)


def strict_equal(expected: Any, actual: Any) -> bool:
    """Return whether `actual` equals `expected` with strict JSON equality (G14).

    Values compare as JSON does: `1 == 1.0`, but `4 != "4"`, `true != 1` and `true != "true"`,
    at every depth; a date is its ISO string. The shape rules are those of `loose_equal`:
    an expected `None` means "present, any value", an expected mapping matches a mapping with
    at least those keys, an expected list a list of the same length, item by item.

    Example:
        >>> strict_equal({"party_size": 4}, {"party_size": 4.0, "date": "2024-02-15"})
        True
        >>> strict_equal(4, "4"), strict_equal(True, 1), loose_equal(4, "4")
        (False, False, True)
    """
    if expected is None:
        return True
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and strict_equal(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(strict_equal(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, _dt.date):
        expected = expected.isoformat()
    if isinstance(actual, _dt.date):
        actual = actual.isoformat()
    return json_equal(expected, actual)


def equality(args_equality: str) -> Equality:
    """Return the argument equality `args_equality` names: `loose_equal` or `strict_equal`.

    Raises:
        ValueError: for another name (with a did-you-mean hint).
    """
    if args_equality == "loose":
        return loose_equal
    if args_equality == "strict":
        return strict_equal
    hint = did_you_mean(str(args_equality), ARGS_EQUALITY)
    raise ValueError(
        f"args_equality must be one of {', '.join(ARGS_EQUALITY)}, got {args_equality!r}"
        + (f" ({hint})" if hint else "")
    )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number_renderings(value: float) -> set[str]:
    """The strings a number loosely equals (G19): an integer's digits; a float's rendering,
    and a whole float's digits too; a number that is not finite, its rendering alone."""
    if isinstance(value, int):
        try:
            return {str(value)}
        except ValueError:  # more digits than Python renders: no string is that number
            return set()
    if not math.isfinite(value):
        return {repr(value)}
    if value.is_integer():
        return {repr(value), str(int(value))}
    return {repr(value)}


def _bool_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) and isinstance(b, bool):
        return a is b
    flag, other = (a, b) if isinstance(a, bool) else (b, a)
    return isinstance(other, str) and other.strip().lower() == ("true" if flag else "false")


def _date_equal(date: _dt.date, other: Any) -> bool:
    if isinstance(other, _dt.date):
        return date == other
    return isinstance(other, str) and other.strip() == date.isoformat()


# -- model ids ---------------------------------------------------------------------------

_SEGMENTS = re.compile(r"[^a-z0-9]+")


def word_segments(text: str) -> list[str]:
    return [part for part in _SEGMENTS.split(text.lower()) if part]


def model_matches(expected: str, model: str) -> bool:
    """Whether the model id `model` is the model, or of the family, `expected` names.

    Both are split into segments at every character that is not a letter or digit and compared
    ignoring case: the expected segments must appear in the model's, in order and adjacent. So
    `haiku` names `claude-3-5-haiku-20241022`, `claude-sonnet-4` names
    `claude-sonnet-4-20250514` (and `claude-sonnet-4-5`: give the full id to pin a version),
    and `sonnet` does not name `sonnet2`.

    Example:
        >>> model_matches("haiku", "anthropic.claude-3-5-haiku-20241022-v1:0")
        True
        >>> model_matches("sonnet", "claude-haiku-4-5"), model_matches("gpt-4o", "gpt-4o-mini")
        (False, True)
    """
    want, have = word_segments(expected), word_segments(model)
    if not want:
        return False
    size = len(want)
    return any(have[i : i + size] == want for i in range(len(have) - size + 1))
