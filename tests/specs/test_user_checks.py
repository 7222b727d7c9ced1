"""A check of one's own in every spec format (issue 36, deliverable 2).

A check registered with `chatassert.register` from outside the package (a plugin's, a
repository's, these tests') is a native type under its kind, and also a type of every
vocabulary whose positions check what it checks (its `level`): flat, PromptKit (a turn's
assertions or `conversation_assertions`) and expect. It may declare its own spelling per
vocabulary in `dialect_names`, as the built-in spellings do. A name that another type has in
the same vocabulary is refused at registration, naming both classes. A check written where its
level is not taken is a problem at its `file:line` with the fix.

The checks are those of `spec_own_checks`, registered by the `own_checks` fixture, which puts
the registry back as it was afterwards: every other test sees the built-in types only.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from spec_own_checks import (
    ApologisesOnce,
    HasOrder,
    MentionsOrderId,
    RefundWithinTotal,
)

from chatassert import (
    Assertion,
    Contains,
    Conversation,
    Result,
    SpecError,
    Status,
    Turn,
    from_spec,
    register,
)
from chatassert._params import BY_DIALECT, REGISTRY
from chatassert._registry import _load_builtins, dialect_types
from chatassert.specs import load_assertion, loads_suite

OWN_MODULE = MentionsOrderId.__module__


def problems(text: str, filename: str = "suite.yaml") -> str:
    with pytest.raises(SpecError) as caught:
        loads_suite(text, filename=filename)
    return str(caught.value)


CONVERSATION = Conversation(
    turns=[
        Turn(input="Where is my order?", text="Sorry for the wait: order A-1234 shipped."),
        Turn(input="Thanks", text="Glad to help."),
    ]
)


def named(result: Result) -> tuple[str, str]:
    """A result's name as its spec file writes it, and its status."""
    return (result.spec_name or result.name, result.status.value)


def statuses(result: Result) -> list[tuple[str, str]]:
    """`named` of every leaf of a result tree, depth first."""
    if not result.children:
        return [named(result)]
    return [leaf for child in result.children for leaf in statuses(child)]


# -- registering ---------------------------------------------------------------------------


@pytest.mark.usefixtures("own_checks")
def test_a_check_is_named_by_its_kind_in_every_vocabulary_of_its_level() -> None:
    def where(cls: type[Assertion]) -> list[str]:
        return [v for v, table in sorted(BY_DIALECT.items()) if table.get(cls.kind) is cls]

    assert REGISTRY["mentions_order_id"] is MentionsOrderId
    assert where(MentionsOrderId) == ["flat", "promptkit.turn"]
    assert where(ApologisesOnce) == ["flat", "promptkit.conversation"]
    assert where(RefundWithinTotal) == ["expect", "flat", "promptkit.turn"]


@pytest.mark.usefixtures("own_checks")
def test_its_declared_spellings_are_names_of_their_vocabulary_in_snake_case() -> None:
    assert dialect_types("flat")["mentions_order"] is MentionsOrderId
    assert dialect_types("promptkit.turn")["quotes_order_id"] is MentionsOrderId
    assert dialect_types("expect")["has_order_number"] is HasOrder
    assert "quotes_order_id" not in BY_DIALECT["flat"]  # a spelling is its vocabulary's only


def test_without_registering_no_vocabulary_knows_it() -> None:
    _load_builtins()
    assert "mentions_order_id" not in REGISTRY
    assert all("mentions_order_id" not in table for table in BY_DIALECT.values())


@pytest.mark.usefixtures("own_checks")
def test_a_subclass_of_a_built_in_check_has_the_names_it_declares_not_its_parents() -> None:
    class MentionsRefund(Contains):
        """Passes when the reply mentions a refund."""

        __slots__ = ()
        kind = "mentions_refund"
        params = ()

        def __init__(self, *, message: str | None = None) -> None:
            super().__init__("refund", message=message)

    register(MentionsRefund)  # Contains's flat name, `contains`, is not taken again
    assert dialect_types("flat")["contains"] is Contains
    assert dialect_types("flat")["mentions_refund"] is MentionsRefund
    suite = loads_suite("- {type: mentions_refund}\n", filename="refund.yaml")
    assert suite.cases[0].check(Conversation(turns=[Turn(text="No refund")])).passed


# -- native --------------------------------------------------------------------------------


@pytest.mark.usefixtures("own_checks")
def test_a_native_suite_uses_them_under_their_kinds() -> None:
    suite = loads_suite(
        """\
chatassert: 1
cases:
  - name: order
    turns:
      - input: Where is my order?
        assertions: [{type: mentions_order_id}]
    assertions: [{type: apologises_once}]
""",
        filename="suite.yaml",
    )
    result = suite.cases[0].check(CONVERSATION)
    assert result.status is Status.PASSED
    assert ("mentions_order_id", "passed") in statuses(result)
    assert ("apologises_once", "passed") in statuses(result)
    assert from_spec({"type": "mentions_order_id"}) == MentionsOrderId()


# -- flat ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("own_checks")
def test_a_flat_file_uses_a_check_under_its_kind_and_its_flat_spelling() -> None:
    suite = loads_suite(
        """\
test_cases:
  - name: order
    turns:
      - user_input: Where is my order?
        assertions:
          - {type: mentions-order}
          - {type: mentions_order_id, message: quotes the order}
      - user_input: Thanks
        assertions:
          - {type: mentions_order_id}
""",
        filename="order.flat.yaml",
    )
    assert suite.dialect == "flat"
    leaves = statuses(suite.cases[0].check(CONVERSATION))
    assert leaves == [
        ("mentions-order", "passed"),
        ("mentions_order_id", "passed"),
        ("mentions_order_id", "failed"),
    ]


@pytest.mark.usefixtures("own_checks")
def test_a_flat_list_of_assertions_checks_a_conversation_check_on_the_whole_conversation() -> None:
    suite = loads_suite("- {type: apologises_once}\n- {type: mentions-order}\n", filename="r.yaml")
    assert suite.dialect == "flat"
    apologies = Conversation(turns=[Turn(input="a", text="Sorry A-1234"), Turn(text="sorry")])
    result = suite.cases[0].check(apologies)
    assert [named(c) for c in result.children] == [
        ("apologises_once", "failed"),  # the whole conversation: two apologies
        ("mentions-order", "failed"),  # every turn: the second quotes none
    ]


@pytest.mark.usefixtures("own_checks")
def test_a_conversation_check_in_a_flat_turn_is_a_problem_at_its_line() -> None:
    said = problems(
        """\
turns:
  - user_input: Where is my order?
    assertions:
      - {type: mentions-order}
      - {type: apologises_once}
""",
        filename="order.flat.yaml",
    )
    assert (
        "order.flat.yaml:5: turns[0].assertions[1]: 'apologises_once' checks the whole "
        "conversation, but a flat turn's assertions check one turn" in said
    )
    assert "list it in a flat file that is a list of assertions" in said


# -- PromptKit -----------------------------------------------------------------------------

SCENARIO = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata: {name: order}
spec:
  turns:
    - role: user
      content: Where is my order?
      assertions:
        - {type: quotes_order_id, message: the reply quotes the order id}
        - {type: mentions_order_id}
        - {type: refund_within_total, params: {field: refund}}
  conversation_assertions:
    - {type: apologises_once}
"""


@pytest.mark.usefixtures("own_checks")
def test_a_promptkit_scenario_uses_them_at_their_levels() -> None:
    suite = loads_suite(SCENARIO, filename="order.scenario.yaml")
    assert suite.dialect == "promptkit"
    leaves = statuses(suite.cases[0].check(CONVERSATION))
    assert ("quotes_order_id", "passed") in leaves
    assert ("mentions_order_id", "passed") in leaves
    assert ("apologises_once", "passed") in leaves


@pytest.mark.usefixtures("own_checks")
def test_a_promptkit_check_at_the_wrong_level_is_a_problem_at_its_line() -> None:
    said = problems(
        SCENARIO.replace("{type: mentions_order_id}", "{type: apologises_once}")
        + "    - {type: quotes_order_id}\n    - {type: refund_within_total}\n",
        filename="order.scenario.yaml",
    )
    assert (
        "order.scenario.yaml:10: spec.turns[0].assertions[1]: 'apologises_once' is a "
        "conversation-level assertion type (move it under spec.conversation_assertions)" in said
    )
    assert (
        "order.scenario.yaml:14: spec.conversation_assertions[1]: 'quotes_order_id' is a "
        "turn-level assertion type" in said
    )
    assert "order.scenario.yaml:15: spec.conversation_assertions[2]: 'refund_within_total'" in (
        said
    )


@pytest.mark.usefixtures("own_checks")
def test_a_promptkit_eval_file_and_a_bare_list_use_them() -> None:
    evaluation = loads_suite(
        """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Eval
metadata: {name: replay}
spec:
  recording: {path: run.json}
  turns:
    - all_turns:
        assertions: [{type: quotes_order_id, params: {}}]
  conversation_assertions: [{type: apologises_once}]
""",
        filename="replay.eval.yaml",
    )
    leaves = statuses(evaluation.cases[0].check(CONVERSATION))
    assert ("quotes_order_id", "failed") in leaves  # the second turn quotes none
    assert ("apologises_once", "passed") in leaves
    bare = loads_suite(
        "- {type: quotes_order_id, params: {}}\n- {type: apologises_once, params: {}}\n",
        filename="items.yaml",
    )
    assert bare.dialect == "promptkit"
    result = bare.cases[0].check(CONVERSATION)
    assert [named(c) for c in result.children] == [
        ("quotes_order_id", "failed"),  # on every turn
        ("apologises_once", "passed"),  # on the whole conversation
    ]
    assert (
        load_assertion({"type": "quotes_order_id"}, dialect="promptkit.turn") == MentionsOrderId()
    )


# -- expect --------------------------------------------------------------------------------


@pytest.mark.usefixtures("own_checks")
def test_an_expect_key_reads_its_value_by_the_parameters_of_the_check() -> None:
    suite = loads_suite(
        json.dumps(
            [
                {
                    "id": "one",
                    "expect": {
                        "refund_within_total": "refund_due",  # its only parameter
                        "has_order": True,  # no parameter
                    },
                },
                {
                    "id": "fields",
                    "expect": {
                        "refund_within_total": {"field": "refund_due", "message": "fair"},
                        "within_limit": {"field": "refund_due", "limit": 10},
                        "has-order-number": None,
                    },
                },
            ]
        ),
        filename="refunds.json",
    )
    assert suite.dialect == "expect"
    response = {"order": "A-1234", "refund_due": 12, "total": 30}
    one, fields = (case.check(response) for case in suite.cases)
    assert statuses(one) == [("refund_within_total", "passed"), ("has_order", "passed")]
    assert statuses(fields) == [
        ("refund_within_total", "passed"),
        ("within_limit", "failed"),
        ("has-order-number", "passed"),
    ]


@pytest.mark.usefixtures("own_checks")
def test_a_bare_expect_object_of_checks_of_ones_own_is_read_as_expect() -> None:
    suite = loads_suite("refund_within_total: refund_due\n", filename="refund.yaml")
    assert suite.dialect == "expect"
    assert suite.cases[0].check({"refund_due": 40, "total": 30}).status is Status.FAILED


@pytest.mark.usefixtures("own_checks")
def test_an_expect_value_the_check_cannot_take_is_a_problem_at_its_line() -> None:
    said = problems(
        "- id: t\n  expect:\n    within_limit: 10\n    has_order: yes please\n",
        filename="refunds.yaml",
    )
    assert (
        "refunds.yaml:3: [0].expect.within_limit: 'within_limit' must be a mapping of its "
        "parameters (field, limit); expected a mapping with field, limit, found integer 10" in said
    )
    assert "refunds.yaml:4: [0].expect.has_order: 'has_order' takes no parameters" in said


@pytest.mark.usefixtures("own_checks")
def test_a_check_of_a_turn_or_a_conversation_in_an_expect_file_is_refused_with_the_fix() -> None:
    said = problems(
        "- id: t\n  expect:\n    status: ok\n    mentions_order_id: true\n"
        "    apologises_once: true\n",
        filename="refunds.yaml",
    )
    assert (
        f"refunds.yaml:4: [0].expect.mentions_order_id: the expect key 'mentions_order_id' is "
        f"{OWN_MODULE}.MentionsOrderId, which checks one turn (level 'turn'), but an expect case "
        "checks one JSON response (use it in a flat, promptkit or native file" in said
    )
    assert "refunds.yaml:5: [0].expect.apologises_once: " in said
    assert "which checks a whole conversation (level 'conversation')" in said


# -- names that clash, declarations that cannot work -----------------------------------------


def own(name: str = "Clash", **attrs: Any) -> type[Assertion]:
    """A check class of a module of one's own (`house.checks`)."""
    body = {"__doc__": "A check of one's own.", "__module__": "house.checks", "__slots__": ()}
    return type(name, (Assertion,), {**body, **attrs})


@pytest.mark.usefixtures("own_checks")
@pytest.mark.parametrize(
    ("attrs", "said"),
    [
        (
            {"kind": "contains"},
            "cannot register house.checks.Clash: its kind 'contains' is already the kind and "
            "the flat name of the built-in chatassert._text.Contains and the promptkit.turn "
            "name of the built-in chatassert._promptkit_content.ContentIncludes. One name means "
            "one check in every spec file: give it another kind",
        ),
        (
            {"kind": "status", "level": "json"},
            "its kind 'status' is already the expect name of the built-in "
            "chatassert._fields.StatusIs",
        ),
        (
            {"kind": "tool_args_excluded_session", "level": "conversation"},
            "its kind 'tool_args_excluded_session' is already the promptkit.conversation name "
            "of the built-in chatassert._promptkit_args.ConversationToolsNotCalledWithArgs",
        ),
        (
            {"kind": "order_quoted", "dialect_names": {"flat": "Mentions-Order"}},
            "cannot register house.checks.Clash: its name 'mentions_order' is already the flat "
            f"name of {OWN_MODULE}.MentionsOrderId. One name means one check in every spec file: "
            "give it other names in its dialect_names",
        ),
        (
            {"kind": "order_quoted", "dialect_names": {"promptkit.turn": "content_includes"}},
            "its name 'content_includes' is already the promptkit.turn name of the built-in "
            "chatassert._promptkit_content.ContentIncludes",
        ),
        (
            {"kind": "apologises_once", "level": "conversation"},
            "its kind 'apologises_once' is already the kind, the flat name and the "
            f"promptkit.conversation name of {OWN_MODULE}.ApologisesOnce",
        ),
    ],
    ids=["builtin-kind", "expect-key", "promptkit-name", "own-spelling", "spelling", "own-kind"],
)
def test_a_name_another_type_has_is_refused_naming_both(attrs: dict[str, Any], said: str) -> None:
    before = dict(REGISTRY), {v: dict(t) for v, t in BY_DIALECT.items()}
    with pytest.raises(ValueError) as caught:
        register(own(**attrs))
    assert said in str(caught.value)
    assert (dict(REGISTRY), {v: dict(t) for v, t in BY_DIALECT.items()}) == before


@pytest.mark.usefixtures("own_checks")
@pytest.mark.parametrize(
    ("attrs", "error", "said"),
    [
        (
            {"kind": "order_quoted", "dialect_names": {"promptkit": "quoted"}},
            ValueError,
            "house.checks.Clash.dialect_names names the vocabulary 'promptkit', which is not "
            "one of flat, promptkit.turn, promptkit.conversation, expect: PromptKit has two: "
            "'promptkit.turn' (a turn's assertions) and 'promptkit.conversation'",
        ),
        (
            {"kind": "order_quoted", "dialect_names": {"flta": "quoted"}},
            ValueError,
            "names the vocabulary 'flta', which is not one of flat, promptkit.turn, "
            "promptkit.conversation, expect: did you mean 'flat'?",
        ),
        (
            {"kind": "order_quoted", "dialect_names": {"expect": "quoted"}},
            ValueError,
            "house.checks.Clash.dialect_names gives it an expect name, but an expect file "
            "checks one JSON response and Clash has level 'turn': name it only where its "
            "level is taken (flat, promptkit.turn), or set its level",
        ),
        (
            {
                "kind": "order_quoted",
                "level": "json",
                "dialect_names": {"promptkit.conversation": "q"},
            },
            ValueError,
            "gives it a promptkit.conversation name, but conversation_assertions check the "
            "whole conversation and Clash has level 'json'",
        ),
        (
            {"kind": "OrderQuoted"},
            ValueError,
            "house.checks.Clash has kind 'OrderQuoted', which no spec can name: type names are "
            "matched in snake case; set kind = 'order_quoted'",
        ),
        (
            {"kind": "order_quoted", "level": "turns"},
            ValueError,
            "house.checks.Clash has level 'turns'; a level is one of 'turn', 'conversation', "
            "'json', 'any'",
        ),
        (
            {"kind": "order_quoted", "dialect_names": {"flat": ""}},
            TypeError,
            "house.checks.Clash.dialect_names['flat'] must hold non-empty names, got ''",
        ),
        (
            {"kind": "order_quoted", "dialect_names": {"flat": ()}},
            TypeError,
            "house.checks.Clash.dialect_names['flat'] must be a name or a tuple of names, got ()",
        ),
        (
            {"kind": "order_quoted", "dialect_names": ["flat"]},
            TypeError,
            "house.checks.Clash.dialect_names must map a vocabulary to a name",
        ),
    ],
    ids=[
        "promptkit",
        "misspelt",
        "expect-turn",
        "conversation-json",
        "camel-kind",
        "level",
        "empty-name",
        "no-names",
        "not-a-mapping",
    ],
)
def test_a_declaration_that_cannot_work_is_refused_with_the_fix(
    attrs: dict[str, Any], error: type[Exception], said: str
) -> None:
    with pytest.raises(error) as caught:
        register(own(**attrs))
    assert said in str(caught.value)
    assert "order_quoted" not in REGISTRY


@pytest.mark.usefixtures("own_checks")
def test_a_class_of_a_module_loaded_again_takes_the_old_ones_place() -> None:
    first = register(own("Quoted", kind="order_quoted", dialect_names={"flat": "quoted"}))
    again = register(own("Quoted", kind="order_quoted", dialect_names={"flat": "order-quoted"}))
    assert REGISTRY["order_quoted"] is again is not first
    assert BY_DIALECT["flat"]["order_quoted"] is again
    assert BY_DIALECT["flat"]["order_quoted"] is again
    assert "quoted" not in BY_DIALECT["flat"]  # the old class's names go with it
    assert register(again) is again  # registering a class twice changes nothing
