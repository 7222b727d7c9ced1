"""Suites: named test cases of per-turn and whole-subject assertions, as loaded from spec files.

A `Case` checks a conversation: its turn *i* against the *i*-th user turn of the conversation,
and its `checks` against the whole subject (a conversation, or a JSON response for the expect
dialect). Every assertion is evaluated and reported (G6) unless `fail_fast` is set, in which
case the rest of a turn after its first failure is reported as skipped.

Docs: docs/specs.md. Tests: tests/specs/test_suites.py and tests/specs/test_suite_decisions.py.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from time import perf_counter
from typing import TYPE_CHECKING, Any

from chatassert._base import Assertion, not_needed
from chatassert._history import at_turn
from chatassert._jsonbase import JsonCheck
from chatassert._judging import planning_enabled, run_sync
from chatassert._models import Conversation, NotJSONError, Turn, as_conversation, as_json
from chatassert._responses import NotLogged, stored_values
from chatassert._result import Result, Status, all_status, shared_once, shorten, status_counts
from chatassert._workflow import Workflow, has_workflow

if TYPE_CHECKING:
    from chatassert._gates import Gate

__all__ = [
    "MATCHED_BY",
    "Case",
    "Match",
    "step_number",
    "step_result",
    "StepSpec",
    "Suite",
    "turn_result",
    "TurnSpec",
]

_P, _F, _E, _S = Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED


@dataclass(frozen=True)
class TurnSpec:
    """The assertions for one user turn of a case.

    Attributes:
        assertions: Checked against the matching turn of the conversation.
        input: The user input the spec gives for this turn (used to pair and report).
        source: Where the turn came from in its spec (`turns[1]`), for reports.
    """

    assertions: tuple[Assertion, ...]
    input: str | None = None
    source: str = ""


@dataclass(frozen=True)
class StepSpec:
    """One step of a multi-step test (the expect dialect's `multi_step`).

    Attributes:
        step: The step's number, as the spec gives it (log records name it: `"step": 2`).
        checks: Checked against this step's response.
        input: The input the spec gives for this step, kept for reports.
        store: A name to keep this step's response under, for a later step's `no_overlap`.
        source: Where the step came from in its spec (`multi_step[1]`), for reports.
    """

    step: int
    checks: tuple[Assertion, ...] = ()
    input: Any = None
    store: str | None = None
    source: str = ""


@dataclass(frozen=True)
class Case:
    """One test case: per-turn assertions and whole-subject checks.

    Attributes:
        name: The case's name (unique within its suite).
        turns: Assertions per user turn, in order.
        checks: Assertions on the whole subject (conversation-level, or on a JSON response).
        subject: `conversation` (a transcript) or `json` (a structured response).
        id: The case's id, when the spec gives one (used to pair logged records).
        tags: Labels from the spec.
        description: A longer description from the spec.
        input: The input the spec gives (expect dialect), kept for reports.
        fail_fast: Skip the rest of a turn after its first failure (PromptKit's behaviour).
        metadata: Anything else the spec says about the case (priority, suite name, ...).
        source: Where the case came from (`file.yaml: test_cases[2]`).
        workflow: A workflow definition (PromptKit's `workflow:`). A conversation that carries
            no workflow state of its own gets the state derived from its transition calls
            before it is checked; one that carries state is checked as it is.
        steps: The steps of a multi-step test, checked in order, each against its own
            response: the subject is then `{step number: response}`, or a list of responses,
            one per step. A step without a response is an `error`; a step that stores its
            response makes it what later steps' `no_overlap` compares with.
        skip: When set, the case is not checked: it reports `skipped` with this reason (a
            `skip_if` condition that holds, see `Suite.assuming`).
        spec_path: Where the case is in its spec file (`test_cases[2]`; empty for a file that
            is one case), which its result carries as `spec_path`: reports show the places
            of its assertions from there (`turns[1].assertions[0]`).
    """

    name: str
    turns: tuple[TurnSpec, ...] = ()
    checks: tuple[Assertion, ...] = ()
    subject: str = "conversation"
    id: str | None = None
    tags: tuple[str, ...] = ()
    description: str | None = None
    input: Any = None
    fail_fast: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    workflow: Workflow | None = None
    steps: tuple[StepSpec, ...] = ()
    skip: str | None = None
    spec_path: str = ""

    def assertions(self) -> list[Assertion]:
        """Every assertion of the case: turn by turn, step by step, then the whole-subject
        checks."""
        return (
            [a for t in self.turns for a in t.assertions]
            + [a for s in self.steps for a in s.checks]
            + list(self.checks)
        )

    def needs_judge(self) -> bool:
        """Whether any assertion of the case may call a judge."""
        return self._judged

    def missing_judges(self) -> list[str]:
        """The judged checks of the case that have no judge to ask, each as `where: what:
        why` (`turns[0]: llm_rubric 'Is polite': no judge configured: ...`); empty when every
        judged check has one, or the case is skipped (it asks no judge).

        A check has a judge when one was given in code (`judge=`, or `judges=` to the loader
        for a named one) or the environment configures it (`CHATASSERT_JUDGE`,
        `CHATASSERT_JUDGES`; docs/judges.md). Nothing is sent to a judge to find out.

        Example:
            >>> from chatassert import LLMRubric
            >>> from chatassert.testing import FakeJudge
            >>> case = Case("polite", checks=(LLMRubric("Is polite"),))
            >>> case.missing_judges()[0].split(": ")[:3]
            ['conversation', "llm_rubric 'Is polite'", 'no judge configured']
            >>> Case("polite", checks=(LLMRubric("Is polite", judge=FakeJudge.passing()),)
            ...      ).missing_judges()
            []
        """
        if self.skip is not None or not self._judged:
            return []
        places: list[tuple[str, Sequence[Assertion]]] = [
            (t.source or f"turns[{i}]", t.assertions) for i, t in enumerate(self.turns)
        ]
        places += [(s.source or f"multi_step[{i}]", s.checks) for i, s in enumerate(self.steps)]
        places.append(
            ("conversation" if self.subject == "conversation" else "response", self.checks)
        )
        out: list[str] = []
        for where, assertions in places:
            for assertion in assertions:
                for check, why in _unjudged(assertion):
                    out.append(f"{where}: {shorten(check.describe(), 60)}: {why}")
        return out

    @cached_property
    def _judged(self) -> bool:
        return any(a.needs_judge() for a in self.assertions())

    @cached_property
    def _json_checks(self) -> tuple[Callable[[dict[str, Any]], Result], ...] | None:
        """For a `json` case of JSON checks alone (not skipped, no steps, no judge), each
        check's `check` of a JSON object (compiled closures: not pickled); else None."""
        if self.subject != "json" or self.skip is not None or self.steps or self._judged:
            return None
        checks = tuple(a._json_check() for a in self.checks if isinstance(a, JsonCheck))
        return checks if len(checks) == len(self.checks) else None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_json_checks", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- checking ------------------------------------------------------------------------

    def check(self, subject: object) -> Result:
        """Check a conversation (or a JSON response, for `json` cases) against the case.

        The case's result records its `duration`. A `json` case decodes a JSON object response
        once for its JSON checks; any other assertion among its checks (a text check, a
        combinator) reads the response as it is given, on both `check` and `acheck`.
        """
        start = perf_counter()
        if type(subject) is dict and (checks := self._json_checks) is not None:
            return self._finish([check(subject) for check in checks], start)  # the hot path
        if self.skip is not None:
            return self._skipped(start)
        if self.steps and not self._judged:
            return self._check_steps(subject, start)
        if self._judged:  # one event loop for the whole case: judge calls run concurrently
            result: Result = run_sync(self._acheck(subject, start))
            return result
        if self.subject == "json":
            data = subject if type(subject) is dict else _json_once(subject)
            if type(data) is not dict:
                results = [a.check(data) for a in self.checks]
            elif (checks := self._json_checks) is not None:
                results = [check(data) for check in checks]  # decoded from text
            else:  # a check that is not a JSON check reads the response as given
                results = [
                    a.check(data) if isinstance(a, JsonCheck) else a.check(subject)
                    for a in self.checks
                ]
            return self._finish(results, start)
        conversation = self._prepared(subject)
        results = []
        if self.turns:
            user_turns = _user_turns(conversation)
            others = len(conversation.turns) - len(user_turns)
            results = [
                self._turn(i, spec, user_turns, others, conversation.turns)
                for i, spec in enumerate(self.turns)
            ]
        results += [self._whole(a, a.check(conversation)) for a in self.checks]
        return self._finish(results, start, len(self.turns))

    async def acheck(self, subject: object) -> Result:
        """Check asynchronously: judged assertions of all turns run concurrently."""
        return await self._acheck(subject, perf_counter())

    async def _acheck(self, subject: object, start: float) -> Result:
        import asyncio

        if self.skip is not None:
            return self._skipped(start)
        if self.steps:
            return await self._acheck_steps(subject, start)
        if self.subject == "json":
            outs = await asyncio.gather(*(a.acheck(subject) for a in self.checks))
            return self._finish(
                [self._whole(a, r) for a, r in zip(self.checks, outs, strict=True)], start
            )
        conversation = self._prepared(subject)
        user_turns = _user_turns(conversation)
        others = len(conversation.turns) - len(user_turns)
        if not self.fail_fast and planning_enabled():
            return self._finish(
                await self._planned(conversation, user_turns, others), start, len(self.turns)
            )
        turn_results = await asyncio.gather(
            *(
                self._aturn(i, spec, user_turns, others, conversation.turns)
                for i, spec in enumerate(self.turns)
            )
        )
        whole = await asyncio.gather(*(a.acheck(conversation) for a in self.checks))
        return self._finish(
            [*turn_results, *(self._whole(a, r) for a, r in zip(self.checks, whole, strict=True))],
            start,
            len(self.turns),
        )

    async def _planned(
        self, conversation: Conversation, user_turns: list[tuple[int, Turn]], others: int
    ) -> list[Result]:
        """Cost-aware planning of a case, an AND of all its assertions: the deterministic ones
        first, on every turn; when one of them failed the case fails whatever a judge says, so
        its judged assertions are `skipped` as not needed, else they are asked together."""
        import asyncio

        turns = conversation.turns
        # per turn the log has, then the whole-subject checks: each assertion's result, or
        # None while its judge has not been asked; with the subject and the turn's position
        rows: list[tuple[list[Result | None], Sequence[Assertion], object, int]] = []
        for spec, (position, turn) in zip(self.turns, user_turns, strict=False):
            with at_turn(turns, position):
                done = [None if a.needs_judge() else a.check(turn) for a in spec.assertions]
            rows.append((done, spec.assertions, turn, position))
        whole = [None if a.needs_judge() else a.check(conversation) for a in self.checks]
        rows.append((whole, self.checks, conversation, -1))
        failed = next(
            (
                a
                for done, assertions, _, _ in rows
                for a, r in zip(assertions, done, strict=True)
                if r is not None and r.status is _F
            ),
            None,
        )
        pending = [
            (done, j, a, subject, position)
            for done, assertions, subject, position in rows
            for j, a in enumerate(assertions)
            if done[j] is None
        ]
        if failed is not None:
            why = f"{failed.describe()} failed, so the case fails whatever the judge says"
            for done, j, a, _, _ in pending:
                done[j] = not_needed(a, why)
        else:

            async def ask(a: Assertion, subject: object, position: int) -> Result:
                if position < 0:
                    return await a.acheck(subject)
                with at_turn(turns, position):
                    return await a.acheck(subject)

            answers = await asyncio.gather(*(ask(a, s, p) for _, _, a, s, p in pending))
            for (done, j, _, _, _), answer in zip(pending, answers, strict=True):
                done[j] = answer
        results = [
            turn_result(position, i, spec, turn, _filled(done))  # type: ignore[arg-type]
            for i, (spec, (done, _, turn, position)) in enumerate(
                zip(self.turns, rows[:-1], strict=False)
            )
        ]
        results += [
            self._missing_turn(i, spec, len(user_turns), others)
            for i, spec in enumerate(self.turns)
            if i >= len(rows) - 1
        ]
        results += [self._whole(a, r) for a, r in zip(self.checks, _filled(whole), strict=True)]
        return results

    # -- skipped cases and multi-step tests ----------------------------------------------

    def _skipped(self, start: float) -> Result:
        """The result of a case that is not checked: each assertion skipped with its reason."""
        reason = self.skip or "skipped"
        children = tuple(
            a._in_spec(Result(_S, a.kind, reason, {"skip": reason}, message=a.message))
            for a in self.assertions()
        )
        counts = {"passed": 0, "failed": 0, "error": 0, "skipped": len(children)}
        return Result(
            _S,
            "case",
            reason,
            counts,
            message=self.name,
            children=children,
            duration=perf_counter() - start,
            spec_path=self.spec_path or None,
        )

    def _step_responses(self, subject: object) -> dict[int, object] | Result:
        """The responses of the steps, by step number, or the error result of a subject that
        is not a response per step."""
        numbers = [s.step for s in self.steps]
        how = (
            f"test {self.id or self.name!r} has {len(numbers)} step"
            f"{'s' if len(numbers) != 1 else ''} ({', '.join(map(str, numbers))}): check it "
            "against {step number: response}, or a list of responses, one per step"
        )
        out: dict[int, object] = {}
        if isinstance(subject, Mapping):
            for key, response in subject.items():
                number = step_number(key)
                if number is None or number not in numbers:
                    return self._subject_error(f"no step {key!r}: {how}")
                out[number] = response
            return out
        if isinstance(subject, list | tuple):
            if len(subject) != len(numbers):
                return self._subject_error(f"got {len(subject)} responses, but {how}")
            return dict(zip(numbers, subject, strict=True))
        return self._subject_error(f"got {type(subject).__name__}, but {how}")

    def _subject_error(self, reason: str) -> Result:
        return Result(
            _E,
            "case",
            reason,
            {"steps": [s.step for s in self.steps]},
            message=self.name,
            spec_path=self.spec_path or None,
        )

    def _check_steps(self, subject: object, start: float) -> Result:
        responses = self._step_responses(subject)
        if isinstance(responses, Result):
            return responses.replace(duration=perf_counter() - start)
        stored: dict[str, tuple[int, Any]] = {}
        results: list[Result] = []
        for index, spec in enumerate(self.steps):
            if spec.step not in responses:
                results.append(_missing_step(index, spec))
            else:
                with stored_values(dict(stored)):
                    checked = [a.check(responses[spec.step]) for a in spec.checks]
                results.append(step_result(index, spec, checked))
            if spec.store is not None:
                stored[spec.store] = (spec.step, responses.get(spec.step, NotLogged(spec.step)))
        results += [self._whole(a, a.check(subject)) for a in self.checks]
        return self._finish(results, start, len(self.steps))

    async def _acheck_steps(self, subject: object, start: float) -> Result:
        import asyncio

        responses = self._step_responses(subject)
        if isinstance(responses, Result):
            return responses.replace(duration=perf_counter() - start)
        stored: dict[str, tuple[int, Any]] = {}
        results: list[Result] = []
        for index, spec in enumerate(self.steps):  # in order: a step may read what one stored
            if spec.step not in responses:
                results.append(_missing_step(index, spec))
            else:
                response = responses[spec.step]
                with stored_values(dict(stored)):  # the tasks copy the context as it is now
                    checked = await asyncio.gather(*(a.acheck(response) for a in spec.checks))
                results.append(step_result(index, spec, list(checked)))
            if spec.store is not None:
                stored[spec.store] = (spec.step, responses.get(spec.step, NotLogged(spec.step)))
        whole = await asyncio.gather(*(a.acheck(subject) for a in self.checks))
        results += [self._whole(a, r) for a, r in zip(self.checks, whole, strict=True)]
        return self._finish(results, start, len(self.steps))

    def _prepared(self, subject: object) -> Conversation:
        conversation = as_conversation(subject)
        if self.workflow is None or has_workflow(conversation):
            return conversation
        return self.workflow.apply(conversation)

    def _turn(
        self,
        index: int,
        spec: TurnSpec,
        user_turns: list[tuple[int, Turn]],
        others: int = 0,
        turns: Sequence[Turn] = (),
    ) -> Result:
        if index >= len(user_turns):
            return self._missing_turn(index, spec, len(user_turns), others)
        position, turn = user_turns[index]
        results: list[Result] = []
        failed = False
        with at_turn(turns, position):  # for checks that read the turns before this one
            for assertion in spec.assertions:
                if failed and self.fail_fast:
                    results.append(_skipped(assertion))
                    continue
                result = assertion.check(turn)
                failed = failed or result.status in (_F, _E)
                results.append(result)
        return turn_result(position, index, spec, turn, results)

    async def _aturn(
        self,
        index: int,
        spec: TurnSpec,
        user_turns: list[tuple[int, Turn]],
        others: int = 0,
        turns: Sequence[Turn] = (),
    ) -> Result:
        import asyncio

        if index >= len(user_turns):
            return self._missing_turn(index, spec, len(user_turns), others)
        position, turn = user_turns[index]
        with at_turn(turns, position):  # the tasks started here inherit it
            if self.fail_fast:
                results: list[Result] = []
                failed = False
                for assertion in spec.assertions:
                    if failed:
                        results.append(_skipped(assertion))
                        continue
                    result = await assertion.acheck(turn)
                    failed = result.status in (_F, _E)
                    results.append(result)
            else:
                results = list(await asyncio.gather(*(a.acheck(turn) for a in spec.assertions)))
        return turn_result(position, index, spec, turn, results)

    def _missing_turn(self, index: int, spec: TurnSpec, available: int, others: int) -> Result:
        how = (
            f" ({others} turn{'s' if others != 1 else ''} without user input: a turn built in "
            "code is a user turn when it has `input`, `Turn(input=..., text=...)`)"
            if others
            else ""
        )
        # each assertion of the turn is an error of its own, counted and named as the others
        why = f"not checked: the transcript has no user turn {index + 1}"
        details = {"turn_index": index, "user_turns": available, "missing_turn": True}
        return Result(
            _E,
            "turn",
            f"the case has turn {index + 1} but the transcript has only {available} user "
            f"turn{'s' if available != 1 else ''}{how}",
            {"turn_index": index, "user_turns": available, "input": spec.input},
            children=tuple(
                a._in_spec(Result(_E, a.kind, why, details, message=a.message))
                for a in spec.assertions
            ),
            location=f"turns[{index}]",
            spec_path=_turn_place(spec),
        )

    def _whole(self, assertion: Assertion, result: Result) -> Result:
        if result.location is not None or self.subject != "conversation":
            return result
        if not result._shared:
            return result._with_field("location", "conversation")
        # a constant outcome is placed once
        place = result._with_field
        return shared_once(_WHOLE, id(result), result, place, "location", "conversation")

    def _finish(self, results: Sequence[Result], start: float, turns: int = 0) -> Result:
        """The case's result over its parts, timed from `start`: the first `turns` results are
        the records of the case's turns, the rest are its whole-subject checks."""
        statuses = [r.status for r in results]
        if not turns and statuses.count(_P) == len(statuses):  # the common case, quickly
            status = _P
            reason, counts = _all_passed(len(statuses))
        else:
            if turns:
                status = all_status(statuses)
                counts = status_counts(_leaf_statuses(results[:turns]) + statuses[turns:])
            else:  # every result is an assertion's: the counts say the status
                counts = status_counts(statuses)
                status = _F if counts["failed"] else _E if counts["error"] else _P
            if status is _P and not counts["passed"] and counts["skipped"]:
                status = _S  # G12: a case that evaluated nothing did not pass
                first = _cause(results, _S)
                n = counts["skipped"]
                reason = (
                    f"{'the' if n == 1 else f'all {n}'} assertion{'s' if n != 1 else ''}"
                    f" skipped; first: {first.label}: {first.reason}"
                )
            elif status is _P:
                reason, _ = _all_passed(counts["passed"])
            else:
                first = _cause(results, status)
                what = "failed" if status is _F else "could not be evaluated"
                reason = (
                    f"{counts[status]} assertion{'s' if counts[status] != 1 else ''}"
                    f" {what}; first: {first.label}: {first.reason}"
                )
        return Result(
            status,
            "case",
            reason,
            counts,
            message=self.name,
            children=tuple(results),
            duration=perf_counter() - start,
            spec_path=self.spec_path or None,
        )


_WHOLE: dict[Any, tuple[object, Result]] = {}
"""Constant outcomes of whole-conversation checks placed at `conversation`, under their ids."""


@functools.lru_cache(maxsize=64)
def _all_passed(n: int) -> tuple[str, dict[str, int]]:
    """The reason and counts of a case whose `n` assertions all passed (shared, read-only)."""
    reason = "the assertion passed" if n == 1 else f"all {n} assertions passed"
    return reason, {"passed": n, "failed": 0, "error": 0, "skipped": 0}


def _json_once(subject: object) -> object:
    """Decode a JSON case's subject once for all its checks, when it is a JSON object.

    Anything else is passed on as it is: a subject that is not JSON (every check reports it as
    an error), or JSON that is not an object, such as a JSON string inside a turn's text,
    which must reach each check as the turn gives it or it would be decoded twice.
    """
    if type(subject) is dict:
        return subject
    try:
        data = as_json(subject)
    except NotJSONError:
        return subject
    return data if type(data) is dict else subject


def _skipped(assertion: Assertion) -> Result:
    return assertion._in_spec(
        Result(
            _S,
            assertion.kind,
            "not evaluated: an earlier assertion of this turn failed (fail_fast)",
            {"fail_fast": True},
            message=assertion.message,
        )
    )


def step_number(key: object) -> int | None:
    """A step number as a log or a caller writes it: an integer, or a string of digits."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.strip().isdigit():
        return int(key)
    return None


def _missing_step(index: int, spec: StepSpec) -> Result:
    """The record of a step whose response is missing: an error, never a pass; each of its
    checks is an error of its own, counted and named as the others."""
    why = f"not checked: no response was logged for step {spec.step}"
    details = {"step": spec.step, "missing_response": True}
    return Result(
        _E,
        "step",
        f"no response was logged for step {spec.step}",
        {"step": spec.step, "missing_response": True, "input": spec.input},
        message=f"step {spec.step}",
        children=tuple(
            a._in_spec(Result(_E, a.kind, why, details, message=a.message)) for a in spec.checks
        ),
        location=f"multi_step[{index}]",
        spec_path=spec.source or None,
    )


def step_result(index: int, spec: StepSpec, results: list[Result]) -> Result:
    """The record of one step: its checks' results, like a turn's (G12 included)."""
    status = all_status([r.status for r in results])
    failed = sum(r.status is _F for r in results)
    errors = sum(r.status is _E for r in results)
    skipped = sum(r.status is _S for r in results)
    passed = len(results) - failed - errors - skipped
    parts = [f"{failed} of {len(results)} failed"] if failed else []
    parts += [f"{errors} could not be evaluated"] if errors else []
    if not results:
        parts = [] if spec.store is not None else ["no checks"]
    elif not parts:
        if not passed and skipped:
            status = _S  # G12: a step that evaluated nothing did not pass
        if passed or not skipped:
            parts.append(f"{passed} assertion{'s' if passed != 1 else ''} passed")
        if skipped:
            parts.append(f"{skipped} skipped")
    if spec.store is not None:
        parts.append(f"response stored as {spec.store!r}")
    details: dict[str, Any] = {"step": spec.step, "input": spec.input}
    if spec.store is not None:
        details["store"] = spec.store
    return Result(
        status,
        "step",
        ", ".join(parts),
        details,
        message=f"step {spec.step}",
        children=tuple(results),
        location=f"multi_step[{index}]",
        spec_path=spec.source or None,
    )


def _filled(results: list[Result | None]) -> list[Result]:
    """Results whose every slot planning has filled in."""
    assert all(r is not None for r in results)
    return results  # type: ignore[return-value]


def turn_result(
    position: int, index: int, spec: TurnSpec | None, turn: Turn, results: list[Result]
) -> Result:
    """The record of the case's turn `index` (`spec`), checked against the conversation's turn
    at `position` (`turn`): its assertions' `results`, placed at that turn."""
    status = all_status([r.status for r in results])
    failed = sum(r.status is _F for r in results)
    errors = sum(r.status is _E for r in results)
    skipped = sum(r.status is _S for r in results)
    parts = [f"{failed} of {len(results)} failed"] if failed else []
    parts += [f"{errors} could not be evaluated"] if errors else []
    if not parts:
        passed = len(results) - skipped
        if not passed and skipped:
            status = _S  # G12: a turn that evaluated nothing did not pass
        if passed or not skipped:
            parts.append(f"{passed} assertion{'s' if passed != 1 else ''} passed")
        if skipped:
            parts.append(f"{skipped} skipped")
    reason = ", ".join(parts)
    details: dict[str, Any] = {"turn_index": index, "input": turn.input}
    prefix = f"/turns/{position}"  # evidence points into the conversation, as selectors place it
    placed = tuple(
        r if r.pointer is None and not r.children else r._prefixed(prefix) for r in results
    )
    return Result(
        status,
        "turn",
        reason,
        details,
        children=placed,
        location=f"turns[{position}]",
        spec_path=_turn_place(spec),
    )


def _turn_place(spec: TurnSpec | None) -> str | None:
    """Where a case's turn is in its spec file (`test_cases[0].turns[1]`), when it is known: a
    self-play turn that stands for several (`spec.turns[1] (2 of 3)`) is where it is written."""
    if spec is None or not spec.source:
        return None
    return _OF_SEVERAL.sub("", spec.source)


_OF_SEVERAL = re.compile(r" \(\d+ of \d+\)$")


def _words(text: str | None) -> str | None:
    return None if text is None else " ".join(text.split())


def _unjudged(assertion: Assertion) -> list[tuple[Assertion, str]]:
    """The judged checks in an assertion tree that have no judge to ask, with why: the judge
    each would ask is looked up as checking it would (none configured, a name no judge has,
    a configuration that is wrong), and nothing is sent."""
    from chatassert._errors import ChatAssertError
    from chatassert._judged import Ensemble
    from chatassert._judged_base import JudgedAssertion

    out: list[tuple[Assertion, str]] = []
    stack = [assertion]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Ensemble):
            for member in node.members:
                graded = node._member(member)
                if isinstance(graded, Result):
                    out.append((node, graded.reason))
            continue
        if isinstance(node, JudgedAssertion):
            try:
                configured = node._configured()
            except (ChatAssertError, ValueError) as exc:  # a configuration that is wrong
                out.append((node, str(exc)))
                continue
            if isinstance(configured, Result):
                out.append((node, configured.reason))
            elif configured[0] is None:
                out.append((node, "no judge configured"))
            continue
        for name in ("children", "child", "condition", "then", "otherwise"):
            value = getattr(node, name, None)
            if isinstance(value, Assertion):
                stack.append(value)
            elif isinstance(value, tuple | list):
                stack.extend(v for v in value if isinstance(v, Assertion))
        for param in type(node).params:
            value = getattr(node, param.attr, None)
            if isinstance(value, Assertion):
                stack.append(value)
            elif isinstance(value, tuple | list):
                stack.extend(v for v in value if isinstance(v, Assertion))
    return out


def missing_judges_message(missing: Sequence[str], *, how: str | None = None) -> str:
    """The one message for judged checks that have no judge to ask (`Suite.missing_judges`):
    how many, the first few, and how to give a judge (`how`, else the environment variables
    and `judge=` in code).

    Example:
        >>> print(missing_judges_message(["case 'a' (s.yaml: cases[0]), turns[0]: llm_rubric "
        ...                               "'Is polite': no judge configured"]))
        1 judged check has no judge to ask, so nothing was checked:
          - case 'a' (s.yaml: cases[0]), turns[0]: llm_rubric 'Is polite': no judge configured
        give one: set CHATASSERT_JUDGE (openai or anthropic) and CHATASSERT_JUDGE_MODEL, or pass judge=... (or judges={...} for named judges) to the loader; see docs/judges.md
    """  # noqa: E501
    n = len(missing)
    has = "check has" if n == 1 else "checks have"
    head = f"{n:,} judged {has} no judge to ask, so nothing was checked:"
    lines = [head, *(f"  - {line}" for line in missing[:5])]
    if n > 5:
        lines.append(f"  - … and {n - 5:,} more")
    lines.append(
        "give one: "
        + (
            how
            or "set CHATASSERT_JUDGE (openai or anthropic) and CHATASSERT_JUDGE_MODEL, or pass "
            "judge=... (or judges={...} for named judges) to the loader; see docs/judges.md"
        )
    )
    return "\n".join(lines)


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


MATCHED_BY: Mapping[str, str] = {
    "case field": "the record names the case: its 'case', 'test_case' or 'name' field is the "
    "case's id or name",
    "id": "the subject's id (its 'id', or its metadata's) is the case's id or name",
    "inputs": "the conversation's user inputs begin as the case's do, further than any other "
    "case's",
    "single case": "the suite has one case (or one test of JSON responses): it checks every "
    "subject no other way pairs",
    "every subject": "an inline assertion (--assert) checks every subject",
}
"""Why a subject was checked against a case (`Match.by`, `Outcome.matched_by`): each value,
and what it means."""


@dataclass(frozen=True)
class Match:
    """How a logged conversation was paired with a suite's cases (`Suite.match`).

    Attributes:
        cases: The cases it is checked against: one, or none.
        by: Why, when a case matched: one of `MATCHED_BY` (`id`, `case field`, `inputs`,
            `single case`).
        note: What the pairing leaves to notice, if anything: a one-case suite checking a
            conversation whose id is not its case's, or whose 'case' field names no case.
        reason: Why no case matched, when none did: the conversation's id, the suite's
            cases, the closest one, and how to name one.
    """

    cases: tuple[Case, ...]
    by: str | None = None
    note: str | None = None
    reason: str | None = None


def _user_turns(conversation: Conversation) -> list[tuple[int, Turn]]:
    """The turns a user started: with input text, or with a user message without text (an
    image), so that a turn without text does not shift the ones after it."""
    return [
        (i, t)
        for i, t in enumerate(conversation.turns)
        if t.input is not None or any(m.role == "user" for m in t.messages)
    ]


def _cause(results: Sequence[Result], status: Status) -> Result:
    """The first result with `status`, followed down through children with the same status.

    That is the node that explains the outcome: a failed leaf, or a node that failed on its
    own account (a `Not` whose child passed).
    """
    for node in results:
        if node.status is status:
            break
    else:
        raise ValueError(f"no result is {status}")
    while True:
        for child in node.children:
            if child.status is status:
                node = child
                break
        else:
            return node


def _leaf_statuses(turns: Sequence[Result]) -> list[Status]:
    """The statuses of the assertions of a case's turn records: each turn's children, or the
    turn itself when the transcript lacks it (an error without children).

    Turn records are told by their place (a case's first results), never by their name: a
    whole-subject check whose kind is `turn` is counted once, as itself, like any other.
    """
    out: list[Status] = []
    for r in turns:
        if r.children or r.status is not _E:
            out.extend(c.status for c in r.children)  # a turn without assertions counts none
        else:
            out.append(r.status)
    return out


@dataclass(frozen=True)
class Suite:
    """A loaded spec file: its cases and where it came from.

    Attributes:
        name: The suite's name (from the file, or the file's stem).
        cases: The test cases, in file order.
        dialect: The dialect the file was written in (`flat`, `promptkit`, `expect`, ...).
        source: The file path, when loaded from a file.
        gates: What the suite requires of a whole run (a native file's `gates:`), evaluated
            over the run's outcomes, not per case (`chatassert._gates`).
    """

    name: str
    cases: tuple[Case, ...]
    dialect: str = "native"
    source: str | None = None
    gates: tuple[Gate, ...] = ()

    def needs_judge(self) -> bool:
        """Whether any case may call a judge."""
        return any(c.needs_judge() for c in self.cases)

    def missing_judges(self, leave_out: Iterable[str] = ()) -> list[str]:
        """The judged checks of the suite's cases (but those named in `leave_out`, and the
        skipped ones) that have no judge to ask, each as `file: case 'name', where: what:
        why`; empty when every judged check has a judge (`Case.missing_judges`).

        Example:
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite("- type: llm_rubric\\n  value: Is polite", filename="s.yaml")
            >>> suite.missing_judges()
            ["s.yaml: case 's', conversation: llm_rubric 'Is polite': no judge configured"]
        """
        left_out = set(leave_out)
        out = []
        for case in self.cases:
            if case.name in left_out:
                continue
            where, _, path = (case.source or self.source or self.name).rpartition(": ")
            for line in case.missing_judges():
                line = line.removeprefix(path + ".") if path else line
                out.append(f"{where or path}: case {case.name!r}, {line}")
        return out

    def find(self, key: object) -> Case | None:
        """Return the case whose id or name equals `key` (compared as strings), if any.

        An id wins over a name: when one case's id is another's name, the key finds the case
        with that id. None finds nothing.

        Example:
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite('''
            ... chatassert: 1
            ... cases:
            ...   - {name: refund, id: T1, turns: [{assertions: [{type: contains, value: refund}]}]}
            ...   - {name: greeting, turns: [{assertions: [{type: contains, value: hello}]}]}
            ... ''')
            >>> suite.find("T1").name, suite.find("greeting").name, suite.find("T9")
            ('refund', 'greeting', None)
        """
        if key is None:
            return None
        return self._keys.get(key if type(key) is str else str(key))

    @cached_property
    def _keys(self) -> dict[str, Case]:
        """The cases by id and by name (as strings), an id winning over a name, and the first
        case of a key winning over later ones: `find` in one lookup (a log of responses asks
        for every line)."""
        keys = {c.name: c for c in reversed(self.cases)}
        keys.update({str(c.id): c for c in reversed(self.cases) if c.id is not None})
        return keys

    def assuming(self, conditions: Iterable[str], *, via: str = "assumed") -> Suite:
        """Return the suite with every case whose `skip_if` condition holds marked skipped.

        A case's condition is its `metadata["skip_if"]` (the expect dialect's `skip_if`); it
        holds when it is one of `conditions`, compared exactly as written. A case so marked
        reports `skipped` with the reason `skip_if 'X' holds (<via>)`, whatever its response.

        Example:
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite('[{"id": "T1", "skip_if": "vault_has_git", '
            ...                     '"expect": {"status": "error"}}]')
            >>> suite.assuming(["vault_has_git"]).cases[0].check({"status": "ok"}).reason
            "skip_if 'vault_has_git' holds (assumed)"
        """
        held = set()
        for condition in conditions:
            if not isinstance(condition, str):
                raise TypeError(f"a condition is a string, got {type(condition).__name__}")
            held.add(condition)
        cases = tuple(
            replace(case, skip=f"skip_if {case.metadata['skip_if']!r} holds ({via})")
            if case.metadata.get("skip_if") in held
            else case
            for case in self.cases
        )
        return replace(self, cases=cases)

    def with_workflow(self, workflow: Workflow) -> Suite:
        """Return the suite with every conversation case checked under `workflow`.

        JSON cases (`subject: json`) are returned as they are: a structured response has no
        workflow state to derive.

        Example:
            >>> from chatassert import Workflow
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite("- type: workflow_complete")
            >>> flow = Workflow("open", {"open": {"Close": "done"}, "done": {}})
            >>> suite.with_workflow(flow).cases[0].workflow.entry
            'open'
        """
        cases = tuple(
            replace(case, workflow=workflow) if case.subject == "conversation" else case
            for case in self.cases
        )
        return replace(self, cases=cases)

    def with_repeat(self, n: int, aggregate: str = "majority") -> Suite:
        """Return the suite with every judged check wrapped in `Repeat(n, ...)` (see
        `repeat_judged`): what `chatassert check --repeat N` and the pytest plugin's
        `--chatassert-repeat N` run.

        Example:
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite("- type: llm_rubric\\n  value: Is polite")
            >>> suite.with_repeat(3).cases[0].checks[0].describe()
            "on every turn: majority of 3 verdicts: llm_rubric 'Is polite'"
        """
        from chatassert._judged import repeat_judged

        def wrap(checks: tuple[Assertion, ...]) -> tuple[Assertion, ...]:
            return tuple(repeat_judged(a, n, aggregate) for a in checks)

        cases = tuple(
            replace(
                case,
                checks=wrap(case.checks),
                turns=tuple(replace(t, assertions=wrap(t.assertions)) for t in case.turns),
                steps=tuple(replace(s, checks=wrap(s.checks)) for s in case.steps),
            )
            for case in self.cases
        )
        return replace(self, cases=cases)

    def cases_for(self, conversation: Conversation) -> list[Case]:
        """Choose the cases a logged conversation should be checked against: the cases of
        `match(conversation)` (one, or none), which also says why.

        In order: a case named by the conversation's metadata (`case`, `test_case`, `name`,
        `id`) or its id; else the case whose user inputs match the longest start of the
        conversation's (when two match equally far, the conversation is ambiguous and none is
        chosen; a case's turn without input matches no input); else, for a suite of one case,
        that case; else none.

        Example:
            >>> from chatassert import Conversation
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite('''
            ... chatassert: 1
            ... cases:
            ...   - name: refund
            ...     id: T1
            ...     turns:
            ...       - {input: I was charged twice, assertions: [{type: contains, value: refund}]}
            ...   - name: greeting
            ...     turns: [{input: Hello, assertions: [{type: contains, value: hello}]}]
            ... ''')
            >>> [c.name for c in suite.cases_for(Conversation(id="T1", turns=[]))]
            ['refund']
            >>> chat = Conversation.from_messages([{"role": "user", "content": "Hello"},
            ...                                    {"role": "assistant", "content": "Hi!"}])
            >>> [c.name for c in suite.cases_for(chat)]
            ['greeting']
        """
        return list(self.match(conversation).cases)

    def match(self, conversation: Conversation) -> Match:
        """Pair a logged conversation with the case it is checked against, saying why.

        The case is chosen as `cases_for` says; the `Match` names how (`Match.by`, one of
        `MATCHED_BY`), what is worth noticing about it (`Match.note`: a one-case suite checks
        every conversation, even one whose id is not its case's), or, when no case matches,
        why not (`Match.reason`: the conversation's id, the suite's cases and the closest to
        that id, and how to name one).

        Example:
            >>> from chatassert import Conversation
            >>> from chatassert.specs import loads_suite
            >>> suite = loads_suite('''
            ... chatassert: 1
            ... cases:
            ...   - {name: refund, id: T1, turns: [{assertions: [{type: contains, value: refund}]}]}
            ... ''')
            >>> found = suite.match(Conversation(id="conv-1", turns=[]))
            >>> found.cases[0].name, found.by
            ('refund', 'single case')
            >>> found.note
            "the case's id 'T1' differs from the conversation's id 'conv-1'"
        """
        meta = conversation.metadata
        subject_id = _text_or_none(conversation.id) or _text_or_none(meta.get("id"))
        named: tuple[str, str] | None = None
        for field_name in ("case", "test_case", "name"):
            key = meta.get(field_name)
            if key is None:
                continue
            named = named or (field_name, str(key))
            found = self.find(key)
            if found is not None:
                return Match((found,), "case field")
        for key in (meta.get("id"), conversation.id):  # what the record says before its own id
            found = self.find(key)
            if found is not None:
                return Match((found,), "id")
        inputs = [_words(t.input) for t in conversation.turns if t.input is not None]
        tied: list[Case] = []
        if inputs:
            ranked: dict[int, list[Case]] = {}
            for case in self.cases:
                wanted = [_words(t.input) for t in case.turns]
                shared = 0
                while shared < min(len(wanted), len(inputs)) and wanted[shared] == inputs[shared]:
                    shared += 1
                if shared:
                    ranked.setdefault(shared, []).append(case)
            if ranked:
                best = ranked[max(ranked)]
                if len(best) == 1:
                    return Match((best[0],), "inputs")
                tied = best
        if len(self.cases) == 1:
            case = self.cases[0]
            notes = []
            if named is not None:
                notes.append(f"the record's {named[0]!r} field {named[1]!r} names no case")
            if case.id is not None and subject_id is not None and str(case.id) != subject_id:
                notes.append(
                    f"the case's id {str(case.id)!r} differs from the conversation's id "
                    f"{subject_id!r}"
                )
            return Match((case,), "single case", "; ".join(notes) or None)
        return Match((), None, reason=self._unmatched(subject_id, named, inputs, tied))

    def _unmatched(
        self,
        subject_id: str | None,
        named: tuple[str, str] | None,
        inputs: Sequence[str | None],
        tied: Sequence[Case],
    ) -> str:
        """Why no case of the suite matches a conversation, and how to name one."""
        who = "this conversation" if subject_id is None else f"conversation {subject_id!r}"
        why: list[str] = []
        if named is not None:
            why.append(f"its {named[0]!r} field {named[1]!r} names no case")
        if subject_id is not None:
            why.append(f"its id {subject_id!r} is no case's id or name")
        if named is None and subject_id is None:
            why.append("it has no id and no 'case' field")
        if tied:
            listed = " and ".join(repr(c.name) for c in tied[:2])
            why.append(f"its inputs begin as those of cases {listed} do, as far")
        elif inputs and inputs[0] is not None:
            why.append(f"its first input {shorten(inputs[0], 40)!r} begins no case's turns")
        text = f"no case of {self.name!r} matches {who}: {'; '.join(why)}"
        text += f" ({self.cases_listed(named[1] if named is not None else subject_id)})"
        return text + "; name its case in the record's 'case' field, or log it under the case's id"

    def cases_listed(self, wanted: str | None = None, cases: Sequence[Case] | None = None) -> str:
        """The suite's cases for a message: how many, the ids (else names) of the first five,
        and the one closest to `wanted` (an id or name no case has), when one is close.

        Example:
            >>> suite = Suite("s", (Case("refund", id="T1"), Case("greeting")))
            >>> suite.cases_listed("T2")
            "the suite's cases, 2: 'T1', 'greeting'; the closest to 'T2': 'T1'"
        """
        cases = self.cases if cases is None else cases
        keys = [str(c.id) if c.id is not None else c.name for c in cases]
        shown = ", ".join(repr(shorten(k, 40)) for k in keys[:5])
        if len(keys) > 5:
            shown += ", …"
        text = f"the suite's cases, {len(keys):,}: {shown}"
        if wanted is not None:
            names = keys + [c.name for c in cases if c.id is not None]
            close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.5)
            if close:
                text += f"; the closest to {shorten(wanted, 40)!r}: {close[0]!r}"
        return text
