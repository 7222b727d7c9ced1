"""The judge verdict parser and prompt layout, pinned as whole values (pure functions).

Each test names the rule it pins: the docstrings of `render_prompt`, `render_many`,
`loads_strict`, `extract_json`, `verdict_from` and `verdicts_from`, and docs/judges.md
("Verdicts, scores and errors", "Several rubrics, one call"). No network: these functions are
what the HTTP judges run on every reply.
"""

from __future__ import annotations

from typing import Any

import pytest

from chatassert.errors import JudgeError
from chatassert.judges import JudgeRequest, Verdict
from chatassert.judges._prompts import (
    DuplicateKeyError,
    JudgeReplyError,
    extract_json,
    loads_strict,
    render_many,
    render_prompt,
    verdict_from,
    verdicts_from,
)

# --- render_prompt: "the criteria, then the conversation, the user input and the tool calls
# when present, then the response"; the request's prompt wins over the judge's template -------

CALLS = ({"name": "lookup", "arguments": {"q": "café", "id": 7}}, {"name": "noop", "arguments": {}})


def test_render_prompt_lays_out_every_part_in_order() -> None:
    request = JudgeRequest(
        "Is polite",
        "Here you go.",
        input="Find my order",
        conversation=(("user", "hi"), ("assistant", "hello")),
        tool_calls=CALLS,
    )
    assert render_prompt(request) == (
        "<criteria>\nIs polite\n</criteria>\n"
        "<conversation>\nuser: hi\nassistant: hello\n</conversation>\n"
        "<user_input>\nFind my order\n</user_input>\n"
        "<tool_calls>\n"
        '{"arguments": {"id": 7, "q": "café"}, "name": "lookup"}\n'
        '{"arguments": {}, "name": "noop"}\n'
        "</tool_calls>\n"
        "<response>\nHere you go.\n</response>"
    )


def test_a_conversation_without_a_response_has_no_response_part() -> None:
    request = JudgeRequest(
        "Stays on topic", "", conversation=(("user", "hi"),), kind="conversation"
    )
    assert render_prompt(request) == (
        "<criteria>\nStays on topic\n</criteria>\n<conversation>\nuser: hi\n</conversation>"
    )
    # without a conversation the response is always shown, even when empty
    assert render_prompt(JudgeRequest("Says something", "")) == (
        "<criteria>\nSays something\n</criteria>\n<response>\n\n</response>"
    )


def test_templates_fill_every_field_and_the_requests_own_prompt_wins() -> None:
    request = JudgeRequest(
        "Is polite", "Hi", conversation=(("user", "yo"),), tool_calls=CALLS[1:], input=None
    )
    template = "{{criteria}}|{{response}}|{{input}}|{{conversation}}|{{tool_calls}}"
    assert render_prompt(request, template) == (
        'Is polite|Hi||user: yo|{"arguments": {}, "name": "noop"}'
    )
    own = JudgeRequest("Is polite", "Hi", prompt="Own: {{criteria}}")
    assert render_prompt(own, template) == "Own: Is polite"


def test_tool_call_values_that_are_not_json_are_rendered_as_text() -> None:
    import datetime

    request = JudgeRequest(
        "c", "r", tool_calls=({"name": "book", "day": datetime.date(2024, 2, 15)},)
    )
    assert '{"day": "2024-02-15", "name": "book"}' in render_prompt(request)


def test_render_many_numbers_the_criteria_from_one() -> None:
    requests = [
        JudgeRequest("Is polite", "Hi", input="hello?"),
        JudgeRequest("Is short", "ignored: the subject of the first request is sent"),
    ]
    assert render_many(requests) == (
        "<criteria>\n1. Is polite\n2. Is short\n</criteria>\n"
        "<user_input>\nhello?\n</user_input>\n"
        "<response>\nHi\n</response>"
    )


# --- loads_strict / extract_json: "the whole text, a fenced block, or one embedded in prose.
# Among embedded objects, the first one holding `key` wins. An object that repeats a key is
# never a verdict." -----------------------------------------------------------------------


def test_loads_strict_reads_bytes_with_a_byte_order_mark() -> None:
    assert loads_strict('\ufeff{"passed": true}'.encode()) == {"passed": True}
    with pytest.raises(DuplicateKeyError, match="the key 'a' appears twice in one object"):
        loads_strict(b'{"x": {"a": 1, "a": 2}}')


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('  {"passed": true}  ', {"passed": True}),
        ("[1, 2]", [1, 2]),  # whole JSON text is taken as it is
        ('```json\n{"passed": false}\n```', {"passed": False}),
        ('```\n{"passed": true}\n```', {"passed": True}),
        ('```{"passed": true}```', {"passed": True}),
        ('```py\nnot json\n```\n```json\n{"passed": true}\n```', {"passed": True}),
        ('Note {"a": 1} then {"passed": false, "reason": "x"}', {"passed": False, "reason": "x"}),
        ('Note {"a": 1} and {"b": 2}', {"a": 1}),
        ('Odd {"a": [1} but {"passed": true} end', {"passed": True}),
        ('list [{"passed": true}] done', {"passed": True}),
    ],
)
def test_extract_json_finds_the_verdict(text: str, found: Any) -> None:
    assert extract_json(text) == found


def test_a_fenced_block_wins_over_prose_even_after_a_fence_that_is_not_json() -> None:
    text = 'Draft: {"passed": true}\n```\nnot json\n```\n```json\n{"passed": false}\n```'
    assert extract_json(text) == {"passed": False}


def test_extract_json_key_chooses_among_embedded_objects() -> None:
    text = 'first {"passed": true} then {"verdicts": []}'
    assert extract_json(text, key="verdicts") == {"verdicts": []}
    assert extract_json(text) == {"passed": True}


@pytest.mark.parametrize(
    "text",
    [
        '{"passed": false, "passed": true}',
        '```json\n{"passed": false, "passed": true}\n```',
        'Verdict: {"passed": false, "passed": true}',
    ],
)
def test_a_repeated_key_anywhere_is_an_ambiguous_reply(text: str) -> None:
    with pytest.raises(JudgeReplyError) as info:
        extract_json(text)
    assert str(info.value) == (
        "the judge's reply is ambiguous: the key 'passed' appears twice in one object"
    )
    assert info.value.raw == text


def test_a_reply_without_json_names_it_shortened_in_the_middle() -> None:
    with pytest.raises(JudgeReplyError) as short:
        extract_json("  I cannot grade this.  ")
    assert str(short.value) == "the judge's reply holds no JSON object: 'I cannot grade this.'"
    assert short.value.raw == "I cannot grade this."
    exactly = "y" * 200
    with pytest.raises(JudgeReplyError) as whole:
        extract_json(exactly)
    assert str(whole.value) == f"the judge's reply holds no JSON object: {exactly!r}"
    just_over = "z" * 201
    with pytest.raises(JudgeReplyError) as over:
        extract_json(just_over)
    assert str(over.value) == (
        f"the judge's reply holds no JSON object: {'z' * 100 + '…' + 'z' * 100!r}"
    )
    long = "a" * 150 + "b" * 150
    with pytest.raises(JudgeReplyError) as cut:
        extract_json(long)
    assert str(cut.value) == (
        f"the judge's reply holds no JSON object: {'a' * 100 + '…' + 'b' * 100!r}"
    )
    assert cut.value.raw == long


# --- verdict_from: "Build a verdict from a parsed reply, attaching the raw reply and prompt to
# any error" -----------------------------------------------------------------------------


def test_verdict_from_keeps_the_raw_reply_and_the_prompt() -> None:
    verdict = verdict_from({"passed": True, "score": 1, "reasoning": "ok"}, raw="RAW", prompt="P")
    assert verdict == Verdict(True, 1.0, "ok", "RAW", "P")
    with pytest.raises(JudgeReplyError) as info:
        verdict_from({"score": 1}, raw="RAW", prompt="P")
    assert str(info.value).startswith("the judge's reply has no 'passed'")
    assert (info.value.raw, info.value.prompt) == ("RAW", "P")


# --- verdicts_from: "Entries are matched by their criterion number, or by position when none
# has one. A criterion the reply leaves out is an error for that criterion only." --------------


def outcome(item: Verdict | JudgeError) -> Any:
    if isinstance(item, Verdict):
        return (item.passed, item.reason, item.raw, item.prompt)
    assert isinstance(item, JudgeReplyError)
    return (type(item).__name__, str(item), item.raw, item.prompt)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            {"verdicts": [{"criterion": 2, "passed": False, "reason": "b"},
                          {"criterion": 1, "passed": True, "reason": "a"}]},
            [(True, "a", "R", "P"), (False, "b", "R", "P")],
        ),
        (
            [{"passed": True, "reason": "a"}, {"passed": False, "reason": "b"}],
            [(True, "a", "R", "P"), (False, "b", "R", "P")],
        ),
        (
            {"verdicts": [{"criterion": 2, "passed": True, "reason": "b"}]},
            [("JudgeReplyError", "the judge gave no verdict for criterion 1", "R", "P"),
             (True, "b", "R", "P")],
        ),
        (
            {"verdicts": [{"passed": "yes"}, {"passed": True, "reason": "b"}]},
            [("JudgeReplyError", "the judge's 'passed' is not true/false: 'yes'", "R", "P"),
             (True, "b", "R", "P")],
        ),
        (
            {"verdicts": []},
            [("JudgeReplyError", "the judge gave no verdict for criterion 1", "R", "P"),
             ("JudgeReplyError", "the judge gave no verdict for criterion 2", "R", "P")],
        ),
    ],
)  # fmt: skip
def test_verdicts_from_matches_verdicts_to_criteria(reply: Any, expected: list[Any]) -> None:
    assert [outcome(v) for v in verdicts_from(reply, 2, raw="R", prompt="P")] == expected


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ({"verdict": []}, None),
        ("not a list", None),
        ({"verdicts": {"criterion": 1}}, None),
        (
            {"verdicts": [{"criterion": 1, "passed": True}, {"passed": True}]},
            "some verdicts have a criterion number and some do not",
        ),
        (
            [{"passed": True}, {"passed": True}, {"passed": True}],
            "3 verdicts for 2 criteria",
        ),
        ([{"criterion": 0, "passed": True}], "criterion number 0 is not from 1 to 2"),
        ([{"criterion": 3, "passed": True}], "criterion number 3 is not from 1 to 2"),
        ([{"criterion": True, "passed": True}], "criterion number True is not from 1 to 2"),
        ([{"criterion": "1", "passed": True}], "criterion number '1' is not from 1 to 2"),
        ([{"criterion": 1.0, "passed": True}], "criterion number 1.0 is not from 1 to 2"),
        (
            [{"criterion": 2, "passed": True}, {"criterion": 2, "passed": False}],
            "criterion 2 has more than one verdict",
        ),
    ],
)
def test_verdicts_that_cannot_be_matched_safely_fail_the_whole_reply(
    reply: Any, problem: str | None
) -> None:
    with pytest.raises(JudgeReplyError) as info:
        verdicts_from(reply, 2, raw="R", prompt="P")
    if problem is None:
        assert str(info.value) == "the judge's reply has no 'verdicts' list"
    else:
        assert str(info.value) == (
            f"the judge's verdicts cannot be matched to the 2 criteria: {problem}"
        )
    assert (info.value.raw, info.value.prompt) == ("R", "P")


def test_the_last_criterion_number_is_in_range() -> None:
    items = [{"criterion": n, "passed": True, "reason": str(n)} for n in (1, 2, 3)]
    verdicts = verdicts_from(items, 3, raw=None, prompt=None)
    assert [outcome(v) for v in verdicts] == [(True, str(n), None, None) for n in (1, 2, 3)]
