"""`--unknown-params`: the command line on PromptKit files whose assertions carry parameters
PromptKit ignores (tests/promptkit/data/real/ignored-params.scenario.yaml), run in-process
through `main`.

`lint` loads such a file, prints its `ok` line and warns on stderr about each parameter at its
`file:line`; `check` checks a file like it (without the judged check, which would need a judge)
and says once, before the report, which parameters have no effect; `--unknown-params error`
refuses the file (exit 2) with every parameter listed at its line with a fix.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from chatassert._cli import main

DATA = Path(__file__).resolve().parents[1] / "promptkit" / "data" / "real"
SCENARIO = "ignored-params.scenario.yaml"
PLAIN = "plain.scenario.yaml"
EXIT_OK, EXIT_USAGE = 0, 2


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # a usage error, as argparse ends it
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the scenario, the same without its judged check, and a log of the
    conversation they describe."""
    shutil.copy(DATA / SCENARIO, tmp_path / SCENARIO)
    text = (DATA / SCENARIO).read_text(encoding="utf-8")
    start = text.index("    - type: llm_judge_conversation")
    end = text.index("    - type: content_not_includes")
    (tmp_path / PLAIN).write_text(text[:start] + text[end:], encoding="utf-8")
    messages = [
        {"role": "user", "content": "Where is my invoice for March?"},
        {"role": "assistant", "content": "Your INVOICE for MARCH is attached."},
        {"role": "user", "content": "Can you send it again?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "resend_invoice", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sent"},
        {"role": "assistant", "content": "Sent."},
    ]
    record = {"id": "invoice-support", "messages": messages}
    (tmp_path / "log.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def test_lint_loads_the_file_and_warns_about_each_parameter_at_its_line(here: Path) -> None:
    code, out, err = run("lint", SCENARIO)
    assert code == EXIT_OK, err
    assert out == f"{SCENARIO}: ok (promptkit, 1 case, 5 assertions)\n"
    at = "spec.turns[0].assertions"
    judged = "spec.conversation_assertions[0].params.expected"
    ignores = "PromptKit ignores this parameter; it has no effect"
    assert err.splitlines() == [
        f"{SCENARIO}:{line_of(here / SCENARIO, 'case_insensitive')}: "
        f"{at}[0].params.case_insensitive: 'case_insensitive' of content_includes: {ignores}",
        f"{SCENARIO}:{line_of(here / SCENARIO, 'case_sensitive: true')}: "
        f"{at}[1].params.case_sensitive: 'case_sensitive' of content_includes: {ignores}",
        f"{SCENARIO}:{line_of(here / SCENARIO, 'match_mode')}: "
        f"{at}[1].params.match_mode: 'match_mode' of content_includes: {ignores}",
        f"{SCENARIO}:{line_of(here / SCENARIO, 'expected: pass')}: "
        f"{judged}: 'expected' of llm_judge_conversation: {ignores}",
    ]


def test_lint_verbose_lists_them_with_the_keys_not_used_offline(here: Path) -> None:
    code, out, _ = run("lint", "-v", SCENARIO)
    assert code == EXIT_OK
    assert (
        "    not used offline: spec.providers, "
        "spec.turns[0].assertions[0].params.case_insensitive, "
        "spec.turns[0].assertions[1].params.case_sensitive, "
        "spec.turns[0].assertions[1].params.match_mode, "
        "spec.conversation_assertions[0].params.expected\n"
    ) in out


def test_unknown_params_error_refuses_the_file_with_every_parameter_and_a_fix(here: Path) -> None:
    for args in (("lint", SCENARIO), ("check", SCENARIO, "log.jsonl")):
        code, out, err = run(args[0], "--unknown-params", "error", *args[1:])
        assert code == EXIT_USAGE, (args, out, err)
        lines = err.splitlines()
        assert lines[0] == "4 problems in spec:"
        assert lines[1] == (
            f"  - {SCENARIO}:{line_of(here / SCENARIO, 'case_insensitive')}: "
            "spec.turns[0].assertions[0].params.case_insensitive: unknown parameter "
            "'case_insensitive' for promptkit type 'content_includes': PromptKit ignores it, so "
            "it has no effect (valid parameters: patterns; remove it, or load the file with "
            "--unknown-params ignore to keep it as PromptKit does)"
        )
        assert [line.split(": ")[1] for line in lines[1:]] == [
            "spec.turns[0].assertions[0].params.case_insensitive",
            "spec.turns[0].assertions[1].params.case_sensitive",
            "spec.turns[0].assertions[1].params.match_mode",
            "spec.conversation_assertions[0].params.expected",
        ]
        assert out == ""


def test_check_says_once_which_parameters_have_no_effect_and_the_results_name_them(
    here: Path,
) -> None:
    code, out, err = run("check", "-f", "json", "--full-results", PLAIN, "log.jsonl")
    assert code == EXIT_OK, err
    assert err.splitlines()[0] == (
        f"{PLAIN}: 3 parameters that PromptKit ignores, with no effect: case_insensitive "
        "(content_includes), case_sensitive (content_includes), match_mode (content_includes); "
        f"'chatassert lint {PLAIN}' says where"
    )
    (row,) = [json.loads(line) for line in out.splitlines() if '"case"' in line]
    assert row["result"]["status"] == "passed"  # case_sensitive did nothing: MARCH is March
    noted = {
        leaf["spec_path"]: leaf["details"]["ignored_params"]
        for leaf in _leaves(row["result"])
        if "ignored_params" in leaf.get("details", {})
    }
    assert noted == {
        "spec.turns[0].assertions[0]": {"case_insensitive": True},
        "spec.turns[0].assertions[1]": {"case_sensitive": True, "match_mode": "exact"},
    }
    code, _, err = run("check", "--unknown-params", "error", PLAIN, "log.jsonl")
    assert code == EXIT_USAGE
    assert err.startswith("3 problems in spec:")


def _leaves(node: dict[str, Any]) -> list[dict[str, Any]]:
    children = node.get("children")
    if not isinstance(children, list) or not children:
        return [node]
    return [leaf for child in children for leaf in _leaves(child)]


def test_the_option_is_checked_like_every_choice(here: Path) -> None:
    code, _, err = run("lint", "--unknown-params", "warn", SCENARIO)
    assert code == EXIT_USAGE
    assert "argument --unknown-params: invalid choice: 'warn'" in err
