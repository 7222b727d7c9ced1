"""`chatassert.testing.check_contract`: the contract of tests/test_contract.py, for checks of
one's own.

A well-made check of one's own keeps every promise; the helper holds every built-in kind to
them too (so it asks nothing a built-in does not do); and each deliberately broken check below
breaks one promise, which the helper's error names.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import pytest

from chatassert import Assertion, Param, Result, Status, ToolCall, Turn, from_spec, register
from chatassert._params import BY_DIALECT, REGISTRY
from chatassert.authoring import each_text, failed, find_span, passed
from chatassert.errors import UsageError
from chatassert.judges import FunctionJudge, JudgedAssertion, JudgeRequest
from chatassert.testing import ContractError, FakeJudge, check_contract
from test_contract import CASES

ORDER_ID = re.compile(r"#[A-Z]-\d{4}")


@pytest.fixture
def registry() -> Iterator[None]:
    """The registry as it was, after a test that registers checks of its own."""
    kinds, dialects = dict(REGISTRY), {k: dict(v) for k, v in BY_DIALECT.items()}
    yield
    REGISTRY.clear()
    REGISTRY.update(kinds)
    BY_DIALECT.clear()
    BY_DIALECT.update(dialects)


class QuotesOrderId(Assertion):
    """Passes when the reply quotes an order id (`#A-1234`), or the one given."""

    __slots__ = ("order",)
    kind = "quotes_order_id"
    params = (Param("order", "str", doc="the order id the reply must quote"),)
    order: str | None

    def __init__(self, order: str | None = None, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("order", order)

    def _check(self, subject: object) -> Result:
        for where, text in each_text(subject):
            span = find_span(text, self.order) if self.order else _order_span(text)
            if span is not None:
                return passed(self, f"quotes {text[span[0] : span[1]]}")
            return failed(
                self, f"does not quote {self.order or 'an order id'}", {"order": self.order},
                pointer=where, text=text, span=(0, len(text)),
            )  # fmt: skip
        return failed(self, "has no reply")


def _order_span(text: str) -> tuple[int, int] | None:
    found = ORDER_ID.search(text)
    return None if found is None else found.span()


QUOTED = Turn(text="Your order #A-1234 ships today.")
UNQUOTED = Turn(text="Your order ships today.")
UNRECORDED = Turn(unrecorded={"text": "content capture was off"})
GOOD = {"passed": [QUOTED, "Order #B-0001 is late."], "failed": [UNQUOTED], "error": [UNRECORDED]}


def test_a_well_made_check_keeps_every_promise(registry: None) -> None:
    check_contract(QuotesOrderId(), subjects=GOOD)
    register(QuotesOrderId)  # registered, its spec round-trips too
    one = {"passed": [QUOTED], "failed": [UNQUOTED, "Order #B-0001"], "error": [UNRECORDED]}
    check_contract(QuotesOrderId("#A-1234", message="quotes the order"), subjects=one)


def _booked(request: JudgeRequest) -> bool:
    """The judge of the built-in judged kinds: the booking was confirmed."""
    return "booked" in request.response.lower()


JUDGE = FunctionJudge(_booked)
JUDGES = dict.fromkeys(("first", "second", "third"), JUDGE)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_every_builtin_kind_keeps_the_promises_the_helper_checks(kind: str) -> None:
    case = CASES[kind]
    check = from_spec(case.spec, judge=JUDGE, judges=JUDGES)
    subjects = {"passed": [case.good], "failed": [case.bad]}
    check_contract(check, subjects=subjects, options={"judge": JUDGE, "judges": JUDGES})


# -- checks that each break one promise -----------------------------------------------------


class _Broken(Assertion):
    """A check that passes when the reply says 'yes' (and breaks one promise on top)."""

    kind = "broken_yes"

    def _check(self, subject: object) -> Result:
        text = str(getattr(subject, "text", subject))
        if "yes" in text:
            return Result(Status.PASSED, self.kind, "says yes")
        return Result(Status.FAILED, self.kind, "does not say yes", pointer="/text")


class RaisesTypeError(_Broken):
    """Raises on a reply without 'yes' instead of failing."""

    def _check(self, subject: object) -> Result:
        if "yes" not in str(getattr(subject, "text", subject)):
            raise TypeError("cannot read it")
        return super()._check(subject)


class NamedOtherwise(_Broken):
    """Names its results after another check."""

    def _check(self, subject: object) -> Result:
        return super()._check(subject).replace(name="something_else")


class FifthOutcome(_Broken):
    """Answers 'maybe' for a reply without 'yes'."""

    def _check(self, subject: object) -> Result:
        result = super()._check(subject)
        return result if result.passed else Result("maybe", self.kind, "unsure")  # type: ignore[arg-type]


class Silent(_Broken):
    """Fails without saying why."""

    def _check(self, subject: object) -> Result:
        result = super()._check(subject)
        return result if result.passed else Result(Status.FAILED, self.kind, "", pointer="/text")


class PassesWhatWasNotRecorded(_Broken):
    """Reads the text of a turn whose log left it out, and passes on the empty text."""

    def _check(self, subject: object) -> Result:
        text = getattr(subject, "text", subject)
        return super()._check(subject) if text else Result(Status.PASSED, self.kind, "nothing")


class Polite(JudgedAssertion):
    """Passes when the judge says the reply is polite."""

    kind = "polite"

    @property
    def criteria(self) -> str:
        """Is polite."""
        return "Is polite"

    def _request(self, subject: object) -> JudgeRequest:
        return JudgeRequest(criteria=self.criteria, response=str(getattr(subject, "text", "")))


class LenientJudged(Polite):
    """Passes when the judge says the reply is polite; a judge that fails to answer passes."""

    async def _acheck(self, subject: object) -> Result:
        result = await super()._acheck(subject)
        if result.status is Status.ERROR:
            return Result(Status.PASSED, self.kind, "the judge did not answer: let it pass")
        return result


class NotInvertible(_Broken):
    """Its negation is itself: '~check' passes where the check passes."""

    def __invert__(self) -> Any:
        return self


class PointsAstray(_Broken):
    """Points its failures at a field turns do not have."""

    def _check(self, subject: object) -> Result:
        result = super()._check(subject)
        return result if result.passed else result.replace(pointer="/reply/body")


class PointsAtNoField(_Broken):
    """Points its failures at a field of the turn that does not exist (one level down)."""

    def _check(self, subject: object) -> Result:
        result = super()._check(subject)
        return result if result.passed else result.replace(pointer="/reply")


class SpansTooFar(_Broken):
    """Marks characters beyond the end of the text."""

    def _check(self, subject: object) -> Result:
        result = super()._check(subject)
        return result if result.passed else result.replace(span=(0, 10_000))


class NotJSON(_Broken):
    """Puts a set in its details."""

    def _check(self, subject: object) -> Result:
        result = super()._check(subject)
        return result.replace(details={"words": {"yes"}})


class AwaitsOtherwise(_Broken):
    """Answers `acheck` with the opposite of `check`."""

    async def _acheck(self, subject: object) -> Result:
        result = self._check(subject)
        flipped = Status.FAILED if result.passed else Status.PASSED
        return Result(flipped, self.kind, "flipped", pointer="/text")


class KeepsALambda(_Broken):
    """Keeps a lambda, which does not pickle."""

    __slots__ = ("_test",)

    def __init__(self, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("_test", lambda text: "yes" in text)


class RenamesItsParam(_Broken):
    """Declares the parameter `word` but takes `phrase`: its spec does not build it again."""

    __slots__ = ("word",)
    kind = "renames_its_param"
    params = (Param("word", "str", required=True),)

    def __init__(self, phrase: str, *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("word", phrase)


class Mutable(_Broken):
    """Lets its attributes be set."""

    def __setattr__(self, name: str, value: object) -> None:  # type: ignore[override]
        object.__setattr__(self, name, value)


class Undescribed(_Broken):
    """Describes itself with nothing."""

    def describe(self) -> str:
        """Nothing."""
        return ""


YES, NO = Turn(text="yes, booked"), Turn(text="no")
PLAIN = {"passed": [YES], "failed": [NO]}
BROKEN: list[tuple[str, Callable[[], Assertion], dict[str, list[object]]]] = [
    ("returns a result", RaisesTypeError, PLAIN),
    ("returns a result", NamedOtherwise, PLAIN),
    ("four outcomes", FifthOutcome, PLAIN),
    ("expected outcome", _Broken, {"passed": [YES, NO], "failed": [NO]}),
    ("a failure explains itself", Silent, PLAIN),
    ("error never a pass", PassesWhatWasNotRecorded, {**PLAIN, "error": [UNRECORDED]}),
    ("error never a pass", lambda: LenientJudged(judge=FakeJudge.passing()), PLAIN),
    ("negation swaps only pass and fail", NotInvertible, PLAIN),
    ("pointer resolves", PointsAstray, PLAIN),
    ("pointer resolves", PointsAtNoField, PLAIN),
    ("pointer resolves", SpansTooFar, PLAIN),
    ("JSON round trip", NotJSON, PLAIN),
    ("check and acheck agree", AwaitsOtherwise, PLAIN),
    ("pickles", KeepsALambda, PLAIN),
    ("spec round trip", lambda: RenamesItsParam("sure"), PLAIN),
    ("immutable", Mutable, PLAIN),
    ("describes itself", Undescribed, PLAIN),
]


@pytest.mark.parametrize(
    ("promise", "make", "subjects"),
    BROKEN,
    ids=[f"{promise}-{i}" for i, (promise, _, _) in enumerate(BROKEN)],
)
def test_a_broken_promise_is_named_in_the_failure(
    promise: str,
    make: Callable[[], Assertion],
    subjects: dict[str, list[object]],
    registry: None,
) -> None:
    register(RenamesItsParam)
    check = make()
    with pytest.raises(ContractError) as caught:
        check_contract(check, subjects=subjects)
    assert promise in caught.value.broken, str(caught.value)
    assert f"- {promise}: " in str(caught.value)
    assert isinstance(caught.value, AssertionError)  # any test framework reports it


class SilentAndUndescribed(Silent):
    """Fails without a reason, and describes itself with nothing."""

    def describe(self) -> str:
        """Nothing."""
        return ""


def test_every_broken_promise_is_named_at_once() -> None:
    with pytest.raises(ContractError) as caught:
        check_contract(SilentAndUndescribed(), subjects=PLAIN)
    assert list(caught.value.broken) == ["a failure explains itself", "describes itself"]
    assert str(caught.value).startswith("SilentAndUndescribed broke 2 promises")


def test_a_judged_check_keeps_the_promises_with_a_judge_that_answers_alike() -> None:
    check_contract(Polite(judge=FunctionJudge(_booked)), subjects=PLAIN)


# -- what the helper is given ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("subjects", "error", "says"),
    [
        ({"passed": [YES]}, ValueError, "one it fails"),
        ({"failed": [NO]}, ValueError, "none is passed"),
        ({"passed": [YES], "failed": [NO], "flaky": [NO]}, ValueError, "unknown outcome 'flaky'"),
        ({"passed": YES, "failed": [NO]}, TypeError, "write [subject]"),
        ([YES, NO], TypeError, "subjects={'passed': [good], 'failed': [bad]}"),
    ],
)
def test_what_it_needs_is_said(subjects: Any, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=re.escape(says)):
        check_contract(_Broken(), subjects=subjects)


def test_it_checks_assertions_only() -> None:
    with pytest.raises(TypeError, match="checks an assertion"):
        check_contract("contains", subjects=PLAIN)


def test_inside_an_event_loop_it_says_to_call_it_from_a_plain_test() -> None:
    async def inside() -> NoReturn:
        check_contract(_Broken(), subjects=PLAIN)
        raise AssertionError("not reached")

    with pytest.raises(UsageError, match="not async"):
        asyncio.run(inside())


class CallsRefund(_Broken):
    """Passes when the turn calls refund."""

    def _check(self, subject: object) -> Result:
        calls = [c.name for c in getattr(subject, "tool_calls", ())]
        if "refund" in calls:
            return Result(Status.PASSED, self.kind, "calls refund")
        return Result(Status.FAILED, self.kind, "no refund", pointer="/tool_calls")


def test_a_pointer_at_a_list_resolves() -> None:
    refunded = Turn(tool_calls=[ToolCall(name="refund")])
    check_contract(CallsRefund(), subjects={"passed": [refunded], "failed": [Turn(text="no")]})
