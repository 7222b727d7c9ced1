"""`GuardrailTriggered`: whether a named guardrail fired on the turn (docs/promptkit.md).

Guardrail names compare after normalising case and separators (`guardrail_key`). Tests:
tests/promptkit/test_guardrails.py.

Example:
    >>> from chatassert import GuardrailEvent, GuardrailTriggered, Turn
    >>> turn = Turn(guardrails=[GuardrailEvent(name="pii_filter", triggered=True)])
    >>> GuardrailTriggered("pii-filter").check(turn).passed
    True
"""

from __future__ import annotations

import re

from chatassert._base import Assertion
from chatassert._models import turn_of
from chatassert._params import Param, normalise_type, register
from chatassert._promptkit_base import quoted_list
from chatassert._result import Result, Status

__all__ = [
    "GuardrailTriggered",
    "guardrail_key",
]

_P, _F = Status.PASSED, Status.FAILED


# -- guardrails --------------------------------------------------------------------------------


_GO_TYPE = re.compile(r"\*?[a-z_][a-z0-9_]*\.([A-Z]\w*)")
"""Go's name of a type, `*validators.BannedWordsValidator`: a package, then an exported type."""


def guardrail_key(name: str) -> str:
    """Normalise a guardrail name: `BannedWordsValidator`, `banned-words` → `banned_words`.

    Go's type form, as PromptKit names its validators, is read as its type name (G15):
    `*validators.BannedWordsValidator` is `BannedWordsValidator`; other dotted names are kept
    whole.

    Example:
        >>> guardrail_key("BannedWordsValidator") == guardrail_key("banned_words")
        True
        >>> guardrail_key("*validators.BannedWordsValidator")
        'banned_words'
    """
    go_type = _GO_TYPE.match(name)
    key = normalise_type(go_type.group(1) if go_type else name)
    return key[: -len("_validator")] if key.endswith("_validator") else key


@register
class GuardrailTriggered(Assertion):
    """Passes when the guardrail (validator) flagged the turn, or did not when `expected=False`.

    Names match exactly or as `snake_case` ↔ `PascalCase` + `Validator`, also in Go's type
    form (`banned_words` ≡ `BannedWordsValidator` ≡ `*validators.BannedWordsValidator`, G15).
    Without a guardrail name, `expected=False` passes when no guardrail flagged the turn (and
    `expected=True` when any did).

    Example:
        >>> from chatassert import GuardrailEvent, GuardrailTriggered, Turn
        >>> turn = Turn(text="...", guardrails=[GuardrailEvent(name="BannedWordsValidator")])
        >>> GuardrailTriggered("banned_words").check(turn).passed
        True
        >>> details = GuardrailTriggered("max_length").check(turn).details
        >>> details["expected_triggered"], details["actually_triggered"], details["guardrail"]
        (True, False, 'max_length')
    """

    __slots__ = ("_key", "expected", "guardrail")
    kind = "guardrail_triggered"
    dialect_names = {"promptkit.turn": "guardrail_triggered"}
    evidence_at = "/guardrails"
    params = (
        Param(
            "guardrail",
            "str",
            default=None,
            aliases=("validator", "validator_type"),
            doc="the validator's name (snake_case or its PascalCase class name)",
        ),
        Param(
            "expected",
            "bool",
            default=True,
            aliases=("should_trigger", "assertions"),
            doc="whether it should trigger (default true)",
        ),
    )
    guardrail: str | None
    expected: bool
    _key: str | None

    def __init__(
        self, guardrail: str | None = None, expected: bool = True, *, message: str | None = None
    ) -> None:
        super().__init__(message=message)
        if guardrail is not None and (not isinstance(guardrail, str) or not guardrail.strip()):
            raise ValueError("guardrail must be a non-empty string (or omitted)")
        if not isinstance(expected, bool):
            raise TypeError(f"expected must be true or false, got {expected!r}")
        self._set("guardrail", guardrail)
        self._set("expected", expected)
        self._set("_key", None if guardrail is None else guardrail_key(guardrail))

    def _check(self, subject: object) -> Result:
        events = turn_of(subject).guardrails
        triggered = [e.name for e in events if e.triggered]
        if self._key is None:
            actually = bool(triggered)
        else:
            actually = any(e.triggered and guardrail_key(e.name) == self._key for e in events)
        details = {
            "expected_triggered": self.expected,
            "actually_triggered": actually,
            "guardrail": self.guardrail,
            "triggered_guardrails": triggered,
            "guardrails_run": [e.name for e in events],
        }
        if actually == self.expected:
            return Result(_P, self.kind, self._held(), details)
        what = f"guardrail '{self.guardrail}'" if self.guardrail else "a guardrail"
        if self.expected:
            reason = f"Expected {what} to trigger but it did not"
        elif self.guardrail:
            reason = f"Expected {what} not to trigger but it did"
        else:
            reason = f"Expected no guardrail to trigger but {quoted_list(triggered)} did"
        return Result(_F, self.kind, reason, details)

    def describe(self) -> str:
        """Describe the requirement."""
        what = self.guardrail or "any guardrail"
        return f"{what} {'triggers' if self.expected else 'does not trigger'}"
