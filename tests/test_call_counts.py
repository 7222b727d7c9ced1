"""Tests of chatassert._call_counts (docs/trajectories.md, "Counts, loops and steps").

`ToolCallCount`, `MaxToolCalls`, `NoRepeatedCalls` and `StepsBeforeAnswer`: bounds, repeats,
ignored keys, steps before the final answer, whole records and construction errors. Specs shared
with the other trajectory checks are in test_trajectory.py.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from chatassert import (
    Conversation,
    MaxToolCalls,
    NoRepeatedCalls,
    Status,
    StepsBeforeAnswer,
    ToolCall,
    ToolCallCount,
    Turn,
)
from trajectory_helpers import (
    AGENT_LOOP,
    F,
    P,
    call,
    locations,
    raises_with,
    record,
    turn,
)

# -- counts and limits ------------------------------------------------------------------------


def test_tool_call_count() -> None:
    three = turn("search", "search", "fetch", "search")
    assert ToolCallCount("search", min=1, max=3).check(three).passed
    assert ToolCallCount("search", 3, 3).check(three).passed
    result = ToolCallCount("search", max=2).check(three)
    assert result.reason == (
        "expected 'search' to be called at most 2 times but it was called 3 times "
        "(tool_calls[0], tool_calls[1], tool_calls[3])"
    )
    assert result.details["count"] == 3
    assert ToolCallCount("refund", min=1).check(three).reason == (
        "expected 'refund' to be called at least 1 time but it was called 0 times"
    )
    assert (
        ToolCallCount("fetch", 2, 2)
        .check(three)
        .reason.startswith("expected 'fetch' to be called exactly 2 times")
    )


def test_tool_call_count_over_a_conversation() -> None:
    chat = Conversation(turns=[turn("search"), turn("search")])
    result = ToolCallCount("search", max=1).check(chat)
    assert not result.passed
    assert result.details["calls"] == ["turns[0].tool_calls[0]", "turns[1].tool_calls[0]"]


def test_max_tool_calls() -> None:
    assert MaxToolCalls(3).check(turn("a", "b", "c")).passed
    result = MaxToolCalls(2).check(Conversation(turns=[turn("a", "b"), turn("a")]))
    assert result.reason == "expected at most 2 tool calls but got 3: a x2, b x1"
    assert MaxToolCalls(0).check(turn()).passed


def test_steps_before_answer_counts_calls_and_intermediate_messages() -> None:
    t = Turn(messages=AGENT_LOOP)
    assert StepsBeforeAnswer(3).check(t).passed
    result = StepsBeforeAnswer(2).check(t)
    assert result.reason == (
        "expected at most 2 steps before the final answer but took 3 "
        "(2 tool calls, 1 intermediate message)"
    )
    assert result.details["turns"] == [
        {"turn": None, "steps": 3, "tool_calls": 2, "intermediate_messages": 1, "answered": True}
    ]


def test_a_count_of_one_is_worded_in_the_singular() -> None:
    one = Conversation(turns=[turn("a")])
    assert MaxToolCalls(1).check(one).reason == "1 tool call"
    assert MaxToolCalls(1).describe() == "makes at most 1 tool call"
    over = MaxToolCalls(1).check(Conversation(turns=[turn("a", "b")]))
    assert over.reason == "expected at most 1 tool call but got 2: a x1, b x1"


def test_steps_before_answer_without_an_answer_fails_and_reads_each_turn() -> None:
    unanswered = Turn(messages=AGENT_LOOP[:3])
    assert StepsBeforeAnswer(5).check(unanswered).reason.endswith("but has no final answer")
    chat = Conversation(turns=[Turn(messages=AGENT_LOOP), turn("a", "b", "c", "d")])
    result = StepsBeforeAnswer(3).check(chat)
    assert result.reason.endswith("but turns[1] took 4 (4 tool calls, 0 intermediate messages)")
    assert StepsBeforeAnswer(0).check(Turn(text="Hello")).passed


# --- ToolCallCount: inclusive bounds; "the reason lists where the calls were" ------------------


def count_details(min: int | None, max: int | None, n: int) -> dict[str, Any]:
    return {
        "tool": "search",
        "min": min,
        "max": max,
        "count": n,
        "calls": locations(n),
        "errored": 0,
    }


@pytest.mark.parametrize(
    ("min", "max", "n", "status", "reason"),
    [
        (1, None, 1, P, "'search' was called 1 time"),
        (None, 5, 5, P, "'search' was called 5 times"),
        (None, 0, 1, F,
         "expected 'search' to be called at most 0 times but it was called 1 time (tool_calls[0])"),
        (None, 4, 5, F,
         "expected 'search' to be called at most 4 times but it was called 5 times "
         "(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3], tool_calls[4])"),
        (None, 5, 6, F,
         "expected 'search' to be called at most 5 times but it was called 6 times "
         "(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3], tool_calls[4], …)"),
        (2, 3, 0, F,
         "expected 'search' to be called between 2 and 3 times but it was called 0 times"),
    ],
)  # fmt: skip
def test_tool_call_count_records(
    min: int | None, max: int | None, n: int, status: Status, reason: str
) -> None:
    result = ToolCallCount("search", min=min, max=max).check(turn(*["search"] * n, "fetch"))
    assert record(result) == (status, reason, count_details(min, max, n))


def test_tool_call_count_describes_its_bounds() -> None:
    assert ToolCallCount("search", max=0).describe() == "calls search at most 0 times"
    assert ToolCallCount("search", max=1).describe() == "calls search at most 1 time"
    assert ToolCallCount("search", min=2).describe() == "calls search at least 2 times"
    assert ToolCallCount("search", 2, 2).describe() == "calls search exactly 2 times"


# --- MaxToolCalls: "a budget over all tools; the reason breaks the count down by tool" --------


@pytest.mark.parametrize(
    ("max", "status", "reason"),
    [
        (3, P, "3 tool calls"),
        (2, F, "expected at most 2 tool calls but got 3: search x2, fetch x1"),
    ],
)
def test_max_tool_calls_records(max: int, status: Status, reason: str) -> None:
    result = MaxToolCalls(max).check(turn("search", "fetch", "search"))
    assert record(result) == (
        status,
        reason,
        {"max": max, "count": 3, "by_tool": {"search": 2, "fetch": 1}},
    )


# --- NoRepeatedCalls: "same name and JSON-equal arguments (4 and 4.0 are equal), leaving out
# ignore_keys. Arguments that are not valid JSON compare as their raw text." -----------------


def repeated(*calls: ToolCall, ignore_keys: tuple[str, ...] = ()) -> Any:
    return NoRepeatedCalls(ignore_keys=ignore_keys).check(turn(*calls))


def test_no_repeated_calls_pass_record() -> None:
    result = repeated(call("search", {"q": "a"}), call("search", {"q": "b"}), ignore_keys=("id",))
    assert record(result) == (P, "repeats no tool call", {"repeats": [], "ignore_keys": ["id"]})


def test_a_repeat_reports_the_first_calls_arguments_sorted_and_unescaped() -> None:
    first = call("search", {"q": "café", "n": 4, "rid": "a"})
    again = call("search", {"rid": "b", "n": 4.0, "q": "café"})
    result = repeated(first, again, ignore_keys=("rid",))
    assert record(result) == (
        F,
        "expected no repeated calls but 'search' was called 2 times with the same arguments "
        '{"n": 4, "q": "café", "rid": "a"} (tool_calls[0], tool_calls[1])',
        {
            "repeats": [
                {
                    "tool": "search",
                    "arguments": {"q": "café", "n": 4, "rid": "a"},
                    "count": 2,
                    "calls": ["tool_calls[0]", "tool_calls[1]"],
                }
            ],
            "ignore_keys": ["rid"],
        },
    )


@pytest.mark.parametrize(
    ("a", "b", "loops"),
    [
        ({"n": 4}, {"n": 4.0}, True),  # JSON-equal
        ({"n": 4.5}, {"n": 4}, False),  # a fraction is not rounded away
        ({"q": ["refund"]}, {"q": ["returns"]}, False),  # list items are compared
        ({"q": [1, 2.0]}, {"q": [1.0, 2]}, True),
        ({"day": datetime.date(2024, 2, 15)}, {"day": datetime.date(2024, 2, 15)}, True),
        ({"day": datetime.date(2024, 2, 15)}, {"day": datetime.date(2024, 2, 16)}, False),
    ],
)
def test_which_arguments_are_the_same(a: dict[str, Any], b: dict[str, Any], loops: bool) -> None:
    result = repeated(call("s", a), call("s", b))
    assert result.status is (F if loops else P)


def test_arguments_that_are_not_json_compare_as_raw_text() -> None:
    broken = '{"q": "refund'
    result = repeated(call("s", broken), call("s", broken))
    assert result.status is F
    assert result.details["repeats"][0]["arguments"] == broken
    assert result.reason.endswith(
        'the same arguments "{\\"q\\": \\"refund" (tool_calls[0], tool_calls[1])'
    )
    assert repeated(call("s", broken), call("s", '{"q": "returns')).status is P
    # unreadable arguments without any raw text compare as empty text, unlike any other text
    lost = ToolCall(name="s", arguments_error="the arguments were not recorded")
    assert repeated(lost, lost).status is F
    for raw in ("XXXX", "oops", "raw:"):
        assert repeated(lost, call("s", raw)).status is P


@pytest.mark.parametrize(
    ("ignore_keys", "a", "b", "loops"),
    [
        # an ignored key that is absent is no problem
        (("request_id",), {"q": 1}, {"q": 1}, True),
        (("request_id",), {"q": 1, "request_id": "x"}, {"q": 1, "request_id": "y"}, True),
        (("meta.rid",), {"q": 1, "meta": {"rid": "a"}}, {"q": 1, "meta": {"rid": "b"}}, True),
        (("meta.rid",), {"q": 1, "meta": {"rid": "a", "v": 1}}, {"q": 1, "meta": {"rid": "b"}},
         False),
        # a path whose parent is not an object leaves the arguments as they are
        (("meta.rid",), {"q": 1}, {"q": 2}, False),
        (("meta.rid",), {"q": 1, "meta": "x"}, {"q": 2, "meta": "x"}, False),
        (("meta.rid",), {"q": 1, "meta": "x"}, {"q": 1, "meta": "x"}, True),
    ],
)  # fmt: skip
def test_ignore_keys_leave_out_dotted_paths(
    ignore_keys: tuple[str, ...], a: dict[str, Any], b: dict[str, Any], loops: bool
) -> None:
    result = repeated(call("s", a), call("s", b), ignore_keys=ignore_keys)
    assert result.status is (F if loops else P), result.reason


def test_the_reason_names_the_first_repeat_and_counts_the_others() -> None:
    pairs = [call(name, {"q": 1}) for name in ("a", "b", "c") for _ in range(2)]
    assert repeated(*pairs[:4]).reason.endswith(
        "(tool_calls[0], tool_calls[1]); and 1 more repeated call(s)"
    )
    assert repeated(*pairs).reason.endswith(
        "(tool_calls[0], tool_calls[1]); and 2 more repeated call(s)"
    )
    assert repeated(*pairs[:2]).reason.endswith("(tool_calls[0], tool_calls[1])")


def test_the_reason_lists_five_locations_and_shortens_long_arguments_to_80() -> None:
    six = repeated(*[call("s", {"q": 1})] * 6)
    assert six.reason.endswith(
        "(tool_calls[0], tool_calls[1], tool_calls[2], tool_calls[3], tool_calls[4])"
    )
    assert six.details["repeats"][0]["count"] == 6
    value = "x" * 72  # '{"q": "' + 72 + '"}' is 81 characters
    long = repeated(call("s", {"q": value}), call("s", {"q": value}))
    shown = long.reason.split("the same arguments ")[1].rsplit(" (tool_calls", 1)[0]
    assert len(shown) == 80
    assert "…" in shown


# --- StepsBeforeAnswer: "The final answer is the turn's last assistant message that has text
# and no tool calls ... A turn without a final answer fails." (docs/trajectories.md) ---------


def tool_call_message(name: str, id: str) -> dict[str, Any]:
    function = {"name": name, "arguments": "{}"}
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": id, "type": "function", "function": function}]}  # fmt: skip


USER = {"role": "user", "content": "Where is order 1042?"}


@pytest.mark.parametrize(
    ("messages", "steps", "calls", "texts", "answered"),
    [
        # the first assistant message is the answer
        ([USER, {"role": "assistant", "content": "It shipped."}], 0, 0, 0, True),
        # no assistant message at all
        ([USER], 0, 0, 0, False),
        # a trailing call after the answer: the answer is the last message with text only
        (
            [
                USER,
                tool_call_message("lookup", "c1"),
                {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
                {"role": "assistant", "content": "It shipped."},
                tool_call_message("log", "c2"),
            ],
            1, 1, 0, True,
        ),
        (
            [
                USER,
                {"role": "assistant", "content": "Let me look."},
                tool_call_message("lookup", "c1"),
                {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
                {"role": "assistant", "content": "One moment."},
                {"role": "assistant", "content": "It shipped."},
            ],
            3, 1, 2, True,
        ),
    ],
)  # fmt: skip
def test_steps_before_answer_counts(
    messages: list[dict[str, Any]], steps: int, calls: int, texts: int, answered: bool
) -> None:
    result = StepsBeforeAnswer(5).check(Turn(messages=messages))
    row = {
        "turn": None,
        "steps": steps,
        "tool_calls": calls,
        "intermediate_messages": texts,
        "answered": answered,
    }
    assert result.details == {"max": 5, "turns": [row]}
    if answered:
        assert (result.status, result.reason) == (P, "answers within 5 steps")
    else:
        assert (result.status, result.reason) == (
            F,
            "expected at most 5 steps before the final answer but has no final answer",
        )


def test_steps_before_answer_names_the_first_problem_and_counts_the_rest() -> None:
    slow = turn("a", "b")
    chat = Conversation(turns=[slow, Turn(text=""), slow])
    result = StepsBeforeAnswer(1).check(chat)
    assert result.reason == (
        "expected at most 1 steps before the final answer but turns[0] took 2 "
        "(2 tool calls, 0 intermediate messages); and 2 more"
    )
    two = StepsBeforeAnswer(1).check(Conversation(turns=[slow, slow]))
    assert two.reason.endswith("(2 tool calls, 0 intermediate messages); and 1 more")
    one = StepsBeforeAnswer(1).check(Conversation(turns=[Turn(text="Hi"), slow]))
    assert one.reason.endswith("turns[1] took 2 (2 tool calls, 0 intermediate messages)")


# --- construction: exception messages say what was expected and what was found (DESIGN.md) --


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: MaxToolCalls("3"), TypeError, "max must be an integer, got str '3'"),
        (lambda: MaxToolCalls(None), TypeError, "max must be an integer, got NoneType None"),
        (lambda: StepsBeforeAnswer(2.0), TypeError, "max must be an integer, got float 2.0"),
        (lambda: StepsBeforeAnswer(-1), ValueError, "max must not be negative, got -1"),
        (lambda: NoRepeatedCalls(ignore_keys=5), TypeError,
         "ignore_keys must be a list of non-empty argument names, got 5"),
        (lambda: ToolCallCount(5, max=1), ValueError,
         "tool_call_count needs a non-empty tool name, got 5"),
        (lambda: ToolCallCount(" ", max=1), ValueError,
         "tool_call_count needs a non-empty tool name, got ' '"),
        (lambda: ToolCallCount("s"), ValueError, "tool_call_count needs min, max or both"),
    ],
)  # fmt: skip
def test_construction_errors_say_what_was_expected_and_found(
    build: Any, error: type[Exception], message: str
) -> None:
    raises_with(build, error, message)
