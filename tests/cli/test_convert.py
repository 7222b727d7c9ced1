"""`chatassert convert` (docs/offline.md): logs of every format chatassert reads, written as
native JSON lines or as a Google ADK eval set, and read back as equal conversations. Each exit
code, standard input and output, lone surrogates and deep nesting meet a subprocess; the other
variants run in this process (tests/cli_runs.py)."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import Conversation
from chatassert._cli.convert import _write_native, native_line
from chatassert.transcripts import FORMATS, Record, parse_line, read_records
from cli_runs import run_in_process

_GUIDE = Path(__file__).parents[2] / "docs" / "offline.md"


def _fixtures() -> list[tuple[str, Conversation]]:
    """Every conversation the examples of docs/offline.md's log formats hold, with its format."""
    text = _GUIDE.read_text(encoding="utf-8")
    text = text[text.index("## Log formats") : text.index("### Expect suites")]
    found: list[tuple[str, Conversation]] = []
    for block in text.split("```json\n")[1:]:
        for n, line in enumerate(block[: block.index("```")].splitlines(), 1):
            if not line.strip():
                continue
            for record in parse_line(line, "docs", n).each():
                if record.conversation is not None:
                    name = next(f for f, (detect, _) in FORMATS.items() if detect(record.raw))
                    found.append((name, record.conversation))
    return found


FIXTURES = _fixtures()


def test_the_fixtures_cover_every_format_the_docs_show() -> None:
    shown = {name for name, _ in FIXTURES}
    assert shown >= set(FORMATS) - {"promptkit-session"}, set(FORMATS) - shown


def _again(conversation: Conversation) -> Conversation | None:
    return parse_line(native_line(conversation), "native.jsonl", 1).conversation


def test_every_fixture_reads_back_equal_from_its_native_line() -> None:
    for name, conversation in FIXTURES:
        assert _again(conversation) == conversation, name


_TEXT = st.text(st.characters(codec="utf-8"), max_size=20)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False,
    allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FIXTURES),
    st.lists(st.tuples(st.sampled_from(["input", "text", "agent"]), _TEXT), max_size=4),
    st.dictionaries(_TEXT, _JSON, max_size=3),
    st.none() | _TEXT,
)
def test_any_conversation_read_from_a_fixture_reads_back_equal(
    fixture: tuple[str, Conversation],
    edits: list[tuple[str, str]],
    metadata: dict[str, Any],
    conversation_id: str | None,
) -> None:
    _, conversation = fixture
    turns = list(conversation.turns)
    for n, (field, value) in enumerate(edits):
        i = n % len(turns)
        turns[i] = turns[i].model_copy(update={field: value})
    changed = conversation.model_copy(
        update={"turns": tuple(turns), "metadata": {**conversation.metadata, **metadata},
                "id": conversation_id}
    )  # fmt: skip
    assert _again(changed) == changed


def test_conversations_are_written_as_they_are_read() -> None:
    out = io.StringIO()
    conversations = [c for _, c in FIXTURES[:3]]

    def items() -> Any:
        for n, conversation in enumerate(conversations):
            assert out.getvalue().count("\n") == n  # the ones before are written already
            yield Record("log", n + 1, conversation=conversation), conversation

    _write_native(items(), out)
    assert out.getvalue().count("\n") == 3


# -- the command line --------------------------------------------------------------------------


def _run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatassert", "convert", *args],
        capture_output=True, text=True, cwd=tmp_path, check=False, input=stdin,
    )  # fmt: skip


def convert_here(
    tmp_path: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`_run`, in this process (tests/cli_runs.py): for the variants of what `_run` shows."""
    return run_in_process("convert", *args, cwd=tmp_path, stdin=stdin)


def _mixed_log(tmp_path: Path) -> Path:
    """A log of a line of every format the docs show, and one line that is not JSON."""
    lines = []
    text = _GUIDE.read_text(encoding="utf-8")
    text = text[text.index("## Log formats") : text.index("### Expect suites")]
    for block in text.split("```json\n")[1:]:
        lines.extend(line for line in block[: block.index("```")].splitlines() if line.strip())
    lines.insert(2, "{not json")
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_convert_to_native_writes_each_conversation_and_names_unreadable_lines(
    tmp_path: Path,
) -> None:
    log = _mixed_log(tmp_path)
    proc = _run(tmp_path, "mixed.jsonl", "-o", "native.jsonl")
    assert proc.returncode == 1, proc.stderr
    assert "mixed.jsonl:3: skipped: line is not JSON" in proc.stderr
    expected = [r.conversation for r in read_records(log) if r.ok]
    again = [r.conversation for r in read_records(tmp_path / "native.jsonl")]
    assert again == expected
    assert len(expected) >= len(FORMATS) - 1


def test_convert_reads_stdin_and_writes_stdout(tmp_path: Path) -> None:
    line = native_line(FIXTURES[0][1])
    proc = _run(tmp_path, "-", stdin=line + "\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == line + "\n"
    assert "converted 1 conversation\n" in proc.stderr


def test_a_forced_format_reads_every_line_as_it(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text(native_line(FIXTURES[0][1]) + "\n", encoding="utf-8")
    proc = convert_here(tmp_path, "--from", "anthropic", "log.jsonl")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "log.jsonl:1: skipped:" in proc.stderr


def test_an_empty_log_converts_nothing_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    proc = _run(tmp_path, "empty.jsonl")
    assert (proc.returncode, proc.stdout) == (4, "")
    assert "nothing converted" in proc.stderr


def test_a_missing_log_is_a_usage_error(tmp_path: Path) -> None:
    proc = _run(tmp_path, "nope.jsonl")
    assert proc.returncode == 2
    assert "cannot read log nope.jsonl: no such file" in proc.stderr


def test_the_help_names_the_exit_codes() -> None:
    proc = run_in_process("convert", "--help")
    assert proc.returncode == 0
    assert "1    some records could not be read" in proc.stdout
    assert "adk-evalset" in proc.stdout


def test_an_adk_eval_set_round_trips_through_the_command_line(tmp_path: Path) -> None:
    source = tmp_path / "weather.evalset.json"
    text = _GUIDE.read_text(encoding="utf-8")
    section = text[text.index("(`adk`)") :]
    block = section[section.index("```json\n") + len("```json\n") :]
    doc = json.loads(block[: block.index("```")])
    second = json.loads(json.dumps(doc["eval_cases"][0]))
    second["eval_id"] = "oslo-again"
    second["conversation"].append({
        "user_content": {"role": "user", "parts": [{"text": "And Bergen?"}]},
        "final_response": {"role": "model", "parts": [{"text": "It is 7°C."}]},
        "intermediate_data": {"invocation_events": [
            {"author": "weather_agent", "content": {"role": "model", "parts": [
                {"function_call": {"id": "f2", "name": "get_weather",
                                   "args": {"city": "Bergen"}}}]},
             "usage_metadata": {"prompt_token_count": 12, "candidates_token_count": 3}},
            {"author": "weather_agent", "content": {"role": "user", "parts": [
                {"function_response": {"id": "f2", "name": "get_weather",
                                       "response": {"error": "rate limited"}}}]}},
        ]},
    })  # fmt: skip
    doc["eval_cases"].append(second)
    source.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    proc = convert_here(tmp_path, "--to", "adk-evalset", source.name, "-o", "out.evalset.json")
    assert proc.returncode == 0, proc.stderr
    written = json.loads((tmp_path / "out.evalset.json").read_text(encoding="utf-8"))
    assert written["eval_set_id"] == "weather_set"
    assert [c["eval_id"] for c in written["eval_cases"]] == ["oslo", "oslo-again"]
    first = [r.conversation for r in read_records(source)]
    again = [r.conversation for r in read_records(tmp_path / "out.evalset.json")]
    assert None not in first
    assert again == first


def test_any_log_converts_to_an_eval_set_that_reads_back(tmp_path: Path) -> None:
    _mixed_log(tmp_path)
    proc = convert_here(tmp_path, "--to", "adk-evalset", "mixed.jsonl", "-o", "all.evalset.json")
    assert proc.returncode == 1, proc.stderr
    records = list(read_records(tmp_path / "all.evalset.json"))
    assert records
    assert all(r.ok for r in records), [r.error for r in records if not r.ok]
    ids = [r.conversation.id for r in records if r.conversation]
    assert len(ids) == len(set(ids))  # unique eval ids, from the conversation id or file:line
    assert any(i.startswith("mixed.jsonl:") for i in ids)
    written = json.loads((tmp_path / "all.evalset.json").read_text(encoding="utf-8"))
    assert written["eval_set_id"] == "all"


# -- what a format cannot carry: named with its place, never a crash, never altered -----------

_CHAT = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]


def _openai(content: str = "Hello", **extra: Any) -> str:
    """An OpenAI chat line; `content` is inserted as JSON text (escapes kept as written)."""
    head = '{"messages": [{"role": "user", "content": "Hi"}, '
    line = head + '{"role": "assistant", "content": "' + content + '"}]'
    for key, text in extra.items():
        line += f', "{key}": {text}'
    return line + "}"


def _deep_call(depth: int) -> str:
    """An OpenAI chat line whose tool call's arguments (a JSON string) nest `depth` levels."""
    arguments = '{"a": ' * depth + "1" + "}" * depth
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return json.dumps({"messages": [_CHAT[0], {"role": "assistant", "tool_calls": [call]}]})


def _log(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_lone_surrogates_round_trip_through_native_lines(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        _openai(),
        _openai("x \\ud800 y"),
        _openai(metadata='{"k\\udc00": "v\\udfff"}'),
        _openai("after"),
    )
    proc = _run(tmp_path, "odd.jsonl", "-o", "native.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert "converted 4 conversations\n" in proc.stderr
    written = (tmp_path / "native.jsonl").read_text(encoding="utf-8")
    assert "\\ud800" in written  # escaped, as JSON allows
    assert '"k\\udc00":"v\\udfff"' in written
    again = [r.conversation for r in read_records(tmp_path / "native.jsonl")]
    assert again == [r.conversation for r in read_records(log)]
    assert again[2] is not None
    assert again[2].metadata == {"k\udc00": "v\udfff"}  # the key kept as it was


def test_an_eval_set_names_a_record_with_a_lone_surrogate_and_writes_the_rest(
    tmp_path: Path,
) -> None:
    _log(tmp_path, _openai(), _openai("x \\ud800 y"), _openai(metadata='{"k\\udc00": 1}'),
         _openai("after"))  # fmt: skip
    proc = _run(tmp_path, "--to", "adk-evalset", "odd.jsonl", "-o", "out.evalset.json")
    assert proc.returncode == 1, proc.stderr
    refused = "skipped: cannot be written as an ADK eval set: it holds a lone surrogate"
    assert f"odd.jsonl:2: {refused} (U+D800)" in proc.stderr
    assert f"odd.jsonl:3: {refused} (U+DC00)" in proc.stderr
    assert "converted 2 conversations; 2 could not be written as adk-evalset" in proc.stderr
    doc = json.loads((tmp_path / "out.evalset.json").read_text(encoding="utf-8"))
    assert [c["eval_id"] for c in doc["eval_cases"]] == ["odd.jsonl:1", "odd.jsonl:4"]


def test_deep_arguments_are_written_or_named_and_the_rest_converted(tmp_path: Path) -> None:
    log = _log(tmp_path, _openai(), _deep_call(300), _deep_call(600), _openai("after"))
    native = _run(tmp_path, "odd.jsonl", "-o", "native.jsonl")
    assert native.returncode == 1, native.stderr
    assert (
        "odd.jsonl:3: skipped: cannot be written as a native line: it nests 607 levels, "
        "more than the 500 a native line may"
    ) in native.stderr
    assert "converted 3 conversations; 1 could not be written as native" in native.stderr
    read = [r.conversation for r in read_records(log)]
    again = [r.conversation for r in read_records(tmp_path / "native.jsonl")]
    assert again == [read[0], read[1], read[3]]  # 300 levels are written, and read back equal
    adk = _run(tmp_path, "--to", "adk-evalset", "odd.jsonl", "-o", "out.json")
    assert adk.returncode == 1, adk.stderr
    assert (
        "odd.jsonl:2: skipped: cannot be written as an ADK eval set: it nests 310 levels, "
        "more than the 199 an eval case may"
    ) in adk.stderr
    assert "odd.jsonl:3: skipped" in adk.stderr
    doc = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert [c["eval_id"] for c in doc["eval_cases"]] == ["odd.jsonl:1", "odd.jsonl:4"]


def test_numbers_a_log_wrote_as_nan_or_infinity_are_kept(tmp_path: Path) -> None:
    _log(tmp_path, _openai(metadata='{"score": NaN, "low": -Infinity}'))
    proc = convert_here(tmp_path, "odd.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert '"metadata":{"score":NaN,"low":-Infinity}' in proc.stdout  # not null


def test_a_log_that_cannot_be_opened_is_named_and_the_document_still_closed(
    tmp_path: Path,
) -> None:
    from chatassert._cli._output import Output
    from chatassert._cli.convert import convert

    _log(tmp_path, _openai(), _openai("two"))
    out = tmp_path / "out.evalset.json"
    args = argparse.Namespace(output=str(out), to="adk-evalset", source_format=None)
    err = io.StringIO()
    code = convert(args, [str(tmp_path / "gone.jsonl"), str(tmp_path / "odd.jsonl")], err, Output)
    assert code == 2
    assert f"cannot read log {tmp_path / 'gone.jsonl'}: No such file" in err.getvalue()
    assert "converted 2 conversations; 1 log could not be opened" in err.getvalue()
    doc = json.loads(out.read_text(encoding="utf-8"))  # the logs after it are converted
    assert len(doc["eval_cases"]) == 2


def test_an_interrupted_eval_set_is_still_one_document() -> None:
    from chatassert._cli.convert import _write_adk

    out = io.StringIO()

    def items() -> Any:
        yield Record("log", 1, conversation=FIXTURES[0][1]), FIXTURES[0][1]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _write_adk(items(), out, "-", io.StringIO())
    assert len(json.loads(out.getvalue())["eval_cases"]) == 1


def test_the_output_may_not_be_one_of_the_logs(tmp_path: Path) -> None:
    log = _log(tmp_path, _openai())
    before = log.read_text(encoding="utf-8")
    (tmp_path / "link.jsonl").symlink_to(log)
    for output in ("odd.jsonl", "./odd.jsonl", "link.jsonl"):
        proc = convert_here(tmp_path, "odd.jsonl", "-o", output)
        assert proc.returncode == 2
        assert f"cannot write {output}: it is one of the logs to convert" in proc.stderr
        assert log.read_text(encoding="utf-8") == before  # not emptied


def test_a_native_line_escapes_the_separators_splitlines_cuts_at() -> None:
    text = "one\x85two\u2028three\u2029four"
    conversation = Conversation.from_messages([{"role": "assistant", "content": text}])
    line = native_line(conversation)
    assert len(line.splitlines()) == 1
    assert parse_line(line, "native.jsonl", 1).conversation == conversation
