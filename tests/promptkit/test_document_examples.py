"""Every YAML example of the Assertions Reference loads and runs on a passing and a failing chat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from promptkit_helpers import chat, scenario, turn

from chatassert import Conversation, SpecError, Status, WorkflowState
from chatassert.promptkit import ContentMatches
from chatassert.specs import loads_suite

DATA = Path(__file__).parent / "data"
WEATHER = ("get_weather", {"location": "San Francisco"}, "18°C, fog")
SF = ("get_weather", {"location": "SF"}, "18°C")
RESEARCH = "a2a__research_agent__search_papers"
TRANSLATE = "a2a__translation_agent__translate"
PAPERS = (RESEARCH, {"query": "quantum computing"}, "Quantum Computing Fundamentals (2021)")
OTHER_PAPERS = (RESEARCH, {"query": "quantum computing"}, "No papers found")

# (name, snippet, section, good conversation, bad conversation)
EXAMPLES: list[tuple[str, str, str, Conversation, Conversation]] = [
    (
        "content_includes",
        """
        - role: user
          content: "What is the capital of France?"
          assertions:
            - type: content_includes
              params:
                patterns: ["Paris"]
                message: "Should mention Paris"
        """,
        "turns",
        chat(turn("What is the capital of France?", "PARIS is the capital")),
        chat(turn("What is the capital of France?", "It is Lyon")),
    ),
    (
        "content_includes multiple",
        """
        assertions:
          - type: content_includes
            params:
              patterns:
                - "Paris"
                - "France"
              message: "Should mention both Paris and France"
        """,
        "assertions",
        chat(turn("hi", "Paris is in France")),
        chat(turn("hi", "Paris it is")),
    ),
    (
        "content_matches email",
        r"""
        - role: user
          content: "What's your email?"
          assertions:
            - type: content_matches
              params:
                pattern: "(?i)\\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Z|a-z]{2,}\\b"
                message: "Should provide email address"
        """,
        "turns",
        chat(turn("What's your email?", "Write to help@acme.io")),
        chat(turn("What's your email?", "Please call us instead")),
    ),
    (
        "tools_called",
        """
        - role: user
          content: "What's the weather in San Francisco?"
          assertions:
            - type: tools_called
              params:
                tools:
                  - get_weather
                message: "Should call weather tool"
        """,
        "turns",
        chat(turn("weather?", "18°C", [WEATHER])),
        chat(turn("weather?", "no idea", [("search_web", {}, "x")])),
    ),
    (
        "tools_called multiple",
        """
        - role: user
          content: "Check my order and update my address"
          assertions:
            - type: tools_called
              params:
                tools:
                  - check_order_status
                  - update_customer_address
                message: "Should call both order and address tools"
        """,
        "turns",
        chat(
            turn(
                "x",
                "done",
                [("update_customer_address", {}, "ok"), ("check_order_status", {}, "ok")],
            )
        ),
        chat(turn("x", "done", [("check_order_status", {}, "ok")])),
    ),
    (
        "tools_not_called",
        """
        - role: user
          content: "What's the weather like?"
          assertions:
            - type: tools_not_called
              params:
                tools:
                  - delete_account
                  - charge_credit_card
                message: "Should not call destructive tools"
        """,
        "turns",
        chat(turn("x", "sunny", [WEATHER])),
        chat(turn("x", "sunny", [("charge_credit_card", {}, "ok")])),
    ),
    (
        "tools_not_called policy",
        """
        # Ensure read-only operations
        - role: user
          content: "Show me my account details"
          assertions:
            - type: tools_not_called
              params:
                tools:
                  - update_account
                  - delete_account
                  - create_order
                message: "Should only read, not modify"
        """,
        "turns",
        chat(turn("x", "here", [("get_account", {}, "{}")])),
        chat(turn("x", "here", [("get_account", {}, "{}"), ("delete_account", {}, "ok")])),
    ),
    (
        "tool_calls_with_args exact",
        """
        - role: user
          content: "What's the weather in San Francisco?"
          assertions:
            - type: tool_calls_with_args
              params:
                tool_name: get_weather
                expected_args:
                  location: "San Francisco"
              message: "Should pass location correctly"
        """,
        "turns",
        chat(turn("x", "fog", [WEATHER])),
        chat(turn("x", "fog", [SF])),
    ),
    (
        "tool_calls_with_args regex",
        """
        - role: user
          content: "Analyze this image and describe it"
          assertions:
            - type: tool_calls_with_args
              params:
                tool_name: analyze_image
                args_match:
                  description: "(?i)(logo|image|picture|graphic)"
              message: "Description should reference visual content"
        """,
        "turns",
        chat(turn("x", "ok", [("analyze_image", {"description": "A company LOGO"}, "ok")])),
        chat(turn("x", "ok", [("analyze_image", {"description": "a cat"}, "ok")])),
    ),
    (
        "tool_calls_with_args presence",
        """
        - role: user
          content: "Get weather for my city"
          assertions:
            - type: tool_calls_with_args
              params:
                tool_name: get_weather
                expected_args:
                  location: null  # Just check that location exists
              message: "Should pass some location"
        """,
        "turns",
        chat(turn("x", "ok", [SF])),
        chat(turn("x", "ok", [("get_weather", {"city": "SF"}, "ok")])),
    ),
    (
        "conversation tool_calls_with_args manifest",
        """
        apiVersion: promptkit.altairalabs.ai/v1alpha1
        kind: Scenario
        metadata:
          name: tool-args-test
        spec:
          task_type: test
          description: "Test tool arguments"
          turns:
            - role: user
              content: "What's the weather in San Francisco?"
          conversation_assertions:
            - type: tool_calls_with_args
              params:
                tool_name: get_weather
                required_args:
                  location: "San Francisco"
              message: "Should pass location correctly"
        """,
        "manifest",
        chat(turn("x", "fog", [WEATHER])),
        chat(turn("x", "fog", [SF])),
    ),
    (
        "conversation tool_calls_with_args regex",
        """
        conversation_assertions:
          - type: tool_calls_with_args
            params:
              tool_name: search_products
              args_match:
                query: "(?i)(laptop|computer|electronics)"
            message: "Should search for electronics-related terms"
        """,
        "spec",
        chat(turn("x", "ok", [("search_products", {"query": "Gaming Laptop"}, "[]")])),
        chat(turn("x", "ok", [("search_products", {"query": "sofa"}, "[]")])),
    ),
    (
        "conversation tool_calls_with_args combined",
        """
        conversation_assertions:
          - type: tool_calls_with_args
            params:
              tool_name: create_order
              required_args:
                category: "electronics"
              args_match:
                product_id: "^PROD-[0-9]+$"
            message: "Should create order with valid product ID"
        """,
        "spec",
        chat(
            turn(
                "x",
                "ok",
                [("create_order", {"category": "electronics", "product_id": "PROD-7"}, "ok")],
            )
        ),
        chat(
            turn(
                "x",
                "ok",
                [("create_order", {"category": "electronics", "product_id": "P-7"}, "ok")],
            )
        ),
    ),
    (
        "agent_invoked",
        """
        - role: user
          content: "Search for papers about quantum computing"
          assertions:
            - type: agent_invoked
              params:
                agents:
                  - a2a__research_agent__search_papers
                message: "Should delegate to the research agent"
        """,
        "turns",
        chat(turn("x", "found", [PAPERS])),
        chat(turn("x", "I know some papers")),
    ),
    (
        "agent_invoked multiple",
        """
        - role: user
          content: "Research quantum computing and translate the summary to French"
          assertions:
            - type: agent_invoked
              params:
                agents:
                  - a2a__research_agent__search_papers
                  - a2a__translation_agent__translate
                message: "Should delegate to both research and translation agents"
        """,
        "turns",
        chat(turn("x", "voilà", [PAPERS, (TRANSLATE, {"text": "..."}, "...")])),
        chat(turn("x", "found", [PAPERS])),
    ),
    (
        "agent_not_invoked",
        """
        - role: user
          content: "What is 2 + 2?"
          assertions:
            - type: agent_not_invoked
              params:
                agents:
                  - a2a__research_agent__search_papers
                message: "Should answer directly without delegating to research agent"
        """,
        "turns",
        chat(turn("What is 2 + 2?", "4")),
        chat(turn("What is 2 + 2?", "4", [PAPERS])),
    ),
    (
        "agent_response_contains",
        """
        - role: user
          content: "Search for papers about quantum computing"
          assertions:
            - type: agent_response_contains
              params:
                agent: a2a__research_agent__search_papers
                contains: "Quantum Computing Fundamentals"
                message: "Research agent should return quantum computing papers"
        """,
        "turns",
        chat(turn("x", "found", [PAPERS])),
        chat(turn("x", "none", [OTHER_PAPERS])),
    ),
    (
        "conversation agent_invoked manifest",
        """
        apiVersion: promptkit.altairalabs.ai/v1alpha1
        kind: Scenario
        metadata:
          name: multi-agent-test
        spec:
          task_type: assistant
          description: "Test multi-agent delegation"
          turns:
            - role: user
              content: "Research quantum computing"
            - role: user
              content: "Translate the summary to French"
          conversation_assertions:
            - type: agent_invoked
              params:
                agent_names:
                  - a2a__research_agent__search_papers
                  - a2a__translation_agent__translate
                min_calls: 1
              message: "Both agents should be invoked at least once"
        """,
        "manifest",
        chat(turn("a", "found", [PAPERS]), turn("b", "voilà", [(TRANSLATE, {}, "...")])),
        chat(turn("a", "found", [PAPERS]), turn("b", "Voici le résumé")),
    ),
    (
        "conversation agent_not_invoked",
        """
        conversation_assertions:
          - type: agent_not_invoked
            params:
              agent_names:
                - a2a__admin_agent__execute
            message: "Admin agent should never be invoked in user-facing scenarios"
        """,
        "spec",
        chat(turn("x", "found", [PAPERS])),
        chat(turn("x", "done", [("a2a__admin_agent__execute", {"command": "..."}, "ok")])),
    ),
    (
        "state_is",
        """
        steps:
          - type: input
            content: "I need help with billing"
            assertions:
              - type: state_is
                params:
                  state: "intake"
                message: "Should still be in intake state"
        """,
        "steps",
        chat(turn("I need help with billing", "Sure", state="intake")),
        chat(turn("I need help with billing", "Sure", state="processing")),
    ),
    (
        "transitioned_to",
        """
        steps:
          - type: input
            content: "I need to speak with a specialist about my billing issue"
            assertions:
              - type: transitioned_to
                params:
                  state: "specialist"
                message: "LLM should have called workflow__transition to escalate"
        """,
        "steps",
        chat(turn("x", "escalating", [("workflow__transition", {"event": "Escalate"}, "ok")])),
        chat(turn("x", "I can help you myself")),
    ),
    (
        "workflow_complete",
        """
        steps:
          - type: input
            content: "Thanks for your help, everything is resolved!"
            assertions:
              - type: workflow_complete
                message: "LLM should have resolved the workflow to a terminal state"
        """,
        "steps",
        chat(turn("x", "bye", [("workflow__transition", {"event": "Resolve"}, "ok")])),
        chat(turn("x", "bye")),
    ),
    (
        "guardrail_triggered",
        """
        # Verify banned word is caught
        - role: user
          content: "Will this definitely work?"
          assertions:
            - type: guardrail_triggered
              params:
                guardrail: banned_words
                assertions: true
                message: "Should catch banned word 'definitely'"

        # Verify no guardrail triggered
        - role: user
          content: "This should be fine"
          assertions:
            - type: guardrail_triggered
              params:
                assertions: false
                message: "Should not trigger any guardrail"
        """,
        "turns",
        chat(turn("a", "...", guardrails=["BannedWordsValidator"]), turn("b", "fine")),
        chat(turn("a", "It will definitely work"), turn("b", "...", guardrails=["MaxLength"])),
    ),
    (
        "guardrail_triggered length",
        """
        - role: user
          content: "Tell me everything about the universe"
          assertions:
            - type: guardrail_triggered
              params:
                guardrail: max_length
                assertions: true
                message: "Should trigger length limit"
        """,
        "turns",
        chat(turn("x", "...", guardrails=["MaxLengthValidator"])),
        chat(turn("x", "...", guardrails=["BannedWordsValidator"])),
    ),
    (
        "combining assertions",
        """
        - role: user
          content: "What's the weather?"
          assertions:
            # Check content
            - type: content_includes
              params:
                patterns: ["weather"]
                message: "Should acknowledge weather request"

            # Check tool usage
            - type: tools_called
              params:
                tools: ["get_weather"]
                message: "Should call weather tool"

            # Check response format
            - type: content_matches
              params:
                pattern: "\\\\d+°[CF]"
                message: "Should include temperature with unit"
        """,
        "turns",
        chat(turn("x", "The weather: 18°C and fog", [WEATHER])),
        chat(turn("x", "The weather is nice", [WEATHER])),
    ),
    (
        "conditional logic",
        """
        # Test A: Expect tool call
        - role: user
          content: "What's the weather in NYC?"
          assertions:
            - type: tools_called
              params:
                tools: ["get_weather"]

        # Test B: Expect admission of limitation
        - role: user
          content: "What's the weather next month?"
          assertions:
            - type: content_matches
              params:
                pattern: "(?i)(can't|cannot|unable|don't know)"
                message: "Should admit inability to predict future"
            - type: tools_not_called
              params:
                tools: ["get_weather"]
                message: "Should not attempt weather call for future"
        """,
        "turns",
        chat(turn("a", "12°C", [WEATHER]), turn("b", "I cannot predict next month")),
        chat(turn("a", "12°C", [WEATHER]), turn("b", "It will be sunny", [WEATHER])),
    ),
    (
        "progressive verification",
        """
        turns:
          # Turn 1: Initial request
          - role: user
            content: "I need help with my order"
            assertions:
              - type: content_includes
                params:
                  patterns: ["order"]

          # Turn 2: Provide details
          - role: user
            content: "Order #12345"
            assertions:
              - type: content_includes
                params:
                  patterns: ["#12345"]
              - type: tools_called
                params:
                  tools: ["check_order_status"]

          # Turn 3: Follow-up
          - role: user
            content: "When will it arrive?"
            assertions:
              - type: content_matches
                params:
                  pattern: "(?i)(date|time|day)"
        """,
        "bare-spec",
        chat(
            turn("a", "Happy to help with your order"),
            turn("b", "Order #12345 is packed", [("check_order_status", {"id": 12345}, "ok")]),
            turn("c", "It arrives Monday"),
        ),
        chat(
            turn("a", "Happy to help with your order"),
            turn("b", "Order #12345 is packed"),
            turn("c", "Soon"),
        ),
    ),
    (
        "test both success and failure",
        """
        # Test success case
        - role: user
          content: "Get the weather"
          assertions:
            - type: tools_called
              params:
                tools: ["get_weather"]

        # Test failure case (should NOT call tool)
        - role: user
          content: "What's the weather like generally?"
          assertions:
            - type: tools_not_called
              params:
                tools: ["get_weather"]
                message: "Should not call tool for general question"
        """,
        "turns",
        chat(turn("a", "18°C", [WEATHER]), turn("b", "Mild, usually")),
        chat(turn("a", "It is mild"), turn("b", "Let me check", [WEATHER])),
    ),
]


def _text(snippet: str, section: str) -> str:
    if section in ("manifest",):
        return snippet
    if section in ("steps", "spec"):
        return scenario(snippet, section="spec") if section == "spec" else _steps(snippet)
    if section == "bare-spec":
        import textwrap

        from promptkit_helpers import HEADER

        return HEADER + textwrap.indent(textwrap.dedent(snippet), "  ")
    return scenario(snippet, section=section)


def _steps(snippet: str) -> str:
    import textwrap

    from promptkit_helpers import HEADER

    flow = (
        "  workflow:\n    entry: intake\n    states:\n"
        "      intake: {on_event: {Escalate: specialist, Resolve: closed}}\n"
        "      specialist: {on_event: {Resolve: closed}}\n      closed: {}\n"
    )
    return HEADER + flow + textwrap.indent(textwrap.dedent(snippet), "  ")


@pytest.mark.parametrize(
    ("name", "snippet", "section", "good", "bad"), EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_document_example_passes_and_fails(
    name: str, snippet: str, section: str, good: Conversation, bad: Conversation
) -> None:
    suite = loads_suite(_text(snippet, section), filename=f"{name}.yaml")
    assert suite.dialect == "promptkit"
    (case,) = suite.cases
    passed = case.check(good)
    assert passed.status is Status.PASSED, passed.reason
    failed = case.check(bad)
    assert failed.status is Status.FAILED, failed.reason
    leaves = [r for _, r in failed.walk() if not r.children and r.status is Status.FAILED]
    assert leaves
    assert all(r.reason for r in leaves)


def test_messages_from_params_and_top_level_label_the_results() -> None:
    suite = loads_suite(_text(EXAMPLES[0][1], "turns"))
    result = suite.cases[0].check(EXAMPLES[0][4])
    assert result.children[0].children[0].message == "Should mention Paris"
    suite = loads_suite(_text(EXAMPLES[7][1], "turns"))
    result = suite.cases[0].check(EXAMPLES[7][4])
    assert result.children[0].children[0].message == "Should pass location correctly"


PATTERNS: list[dict[str, Any]] = yaml.safe_load((DATA / "doc_patterns.yaml").read_text())


@pytest.mark.parametrize("case", PATTERNS, ids=[p["pattern"] for p in PATTERNS])
def test_document_patterns_match_as_go_would(case: dict[str, Any]) -> None:
    check = ContentMatches(case["pattern"])
    assert check.check(case["good"]).passed
    assert check.check(case["bad"]).status is Status.FAILED


def test_the_documents_slow_lookaround_is_rejected_at_load_as_go_rejects_it() -> None:
    with pytest.raises(SpecError) as info:
        loads_suite(
            scenario(
                "assertions:\n  - type: content_matches\n    params:\n"
                '      pattern: "(?<=word)pattern(?=word)"\n',
                section="assertions",
            ),
            filename="slow.yaml",
        )
    assert "slow.yaml:12: spec.turns[0].assertions[0].params" in str(info.value)
    assert "lookbehind" in str(info.value)


def test_the_generic_structure_example_is_an_unknown_type_with_a_hint() -> None:
    snippet = """
    assertions:
      - type: assertion_name          # Required: Assertion type
        params:                       # Required: Type-specific parameters
          param1: value1
          param2: value2
        message: "Description"        # Optional: Human-readable description
    """
    with pytest.raises(SpecError) as info:
        loads_suite(scenario(snippet, section="assertions"), filename="s.yaml")
    assert "s.yaml:11" in str(info.value)
    assert "unknown promptkit turn-level assertion type 'assertion_name'" in str(info.value)


BARE = """\
# ❌ Too vague
- type: content_includes
  params:
    patterns: ["help"]

# ✅ Specific and meaningful
- type: content_includes
  params:
    patterns: ["Let me help you track your order"]
    message: "Should offer specific order tracking help"
"""


def test_a_bare_list_of_items_checks_the_whole_conversation() -> None:
    suite = loads_suite(BARE, filename="bare.yaml")
    assert suite.dialect == "promptkit"
    (case,) = suite.cases
    assert [a.kind for a in case.checks] == ["conversation_content_includes"] * 2
    good = chat(turn("x", "Hi"), turn("y", "Let me help you track your order"))
    assert case.check(good).passed
    assert case.check(chat(turn("x", "Hi"))).status is Status.FAILED


def test_a_bare_list_with_turn_only_types_checks_every_turn() -> None:
    text = (
        "- type: guardrail_triggered\n  params: {assertions: false}\n"
        "- type: content_matches\n  params: {pattern: '(?i)email'}\n"
        "  message: Should provide email contact information\n"
    )
    (case,) = loads_suite(text).cases
    assert [a.kind for a in case.checks] == ["on_every_turn", "conversation_content_matches"]
    assert case.check(chat(turn("a", "Email us"))).passed
    assert not case.check(chat(turn("a", "Email us", guardrails=["PII"]))).passed


def test_workflow_state_given_by_the_transcript_is_used_as_is() -> None:
    (case,) = loads_suite(_steps(EXAMPLES[20][1])).cases
    done = WorkflowState(current="closed", complete=True)
    conv = chat(turn("x", "bye"), workflow=done)
    # the turn itself carries no state: the turn-level check cannot know it
    assert case.check(conv).children[0].children[0].status is Status.ERROR
