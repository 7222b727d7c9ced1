"""YAML syntax errors are reported where the mistake starts, not where the parser gave up.

An unclosed quote or bracket is noticed only where the parser runs out of text, often at the
end of the file; the problem names the line where the quote or bracket was opened, and the
line where the parser gave up. Every test reads a real file through the real loader.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from chatassert._cli import main
from chatassert.errors import SpecError
from chatassert.specs import load_suite

UNCLOSED_QUOTE = """\
turns:
  - user_input: hi
    assertions:
      - type: contains
        value: "hello
      - type: contains
        value: x
  - user_input: bye
"""


def problems(tmp_path: Path, text: str) -> list[str]:
    """The problems `load_suite` reports for a file holding `text`."""
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_suite(path)
    return [str(problem) for problem in caught.value.problems]


def test_an_unclosed_quote_is_reported_on_the_line_that_opens_it(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, UNCLOSED_QUOTE)
    assert found.startswith(f"{tmp_path / 'suite.yaml'}:5: invalid YAML: a quoted string ")
    assert "opened here (column 16) is never closed; the parser gave up at line 9" in found
    assert "close the quote" in found


def test_an_unclosed_single_quote_before_a_document_separator_is_reported_where_it_opens(
    tmp_path: Path,
) -> None:
    (found,) = problems(tmp_path, "turns:\n  - user_input: 'hi\n---\nmore: 1\n")
    assert ":2: invalid YAML: a quoted string opened here (column 17) is never closed" in found
    assert "gave up at line 3" in found


@pytest.mark.parametrize(
    ("text", "line", "said"),
    [
        ("a: 1\nb: [1, 2\n", 2, "a '[' opened here (column 4) is never closed"),
        ("a: 1\nb: {x: 1\n", 2, "a '{' opened here (column 4) is never closed"),
        (
            "a: [1, 2\n\n\nb: 3\n",
            1,
            "a '[' opened here (column 4) is not closed before line 4, where the parser "
            "expected ',' or ']', but got ':'",
        ),
    ],
)
def test_an_unclosed_bracket_is_reported_on_the_line_that_opens_it(
    tmp_path: Path, text: str, line: int, said: str
) -> None:
    (found,) = problems(tmp_path, text)
    assert f"suite.yaml:{line}: invalid YAML: {said}" in found


def test_a_key_without_its_colon_is_reported_where_the_key_starts(tmp_path: Path) -> None:
    (found,) = problems(tmp_path, "a: 1\nb\nc: 2\n")
    assert "suite.yaml:2: invalid YAML: the key that starts here (column 1) has no ':'" in found


def test_an_error_the_parser_finds_in_place_keeps_its_place_and_names_the_enclosing_start(
    tmp_path: Path,
) -> None:
    (found,) = problems(tmp_path, "a:\n  b: 1\n c: 2\n")
    assert "suite.yaml:3: invalid YAML: expected <block end>" in found
    assert "in the block mapping that starts at line 1" in found
    (escape,) = problems(tmp_path, 'a: "x\\qy"\n')
    assert "suite.yaml:1: invalid YAML: found unknown escape character 'q', column 7" in escape


def test_lint_reports_an_unclosed_quote_at_its_start_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "quote.yaml"
    path.write_text(UNCLOSED_QUOTE, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["lint", str(path)])
    assert code == 2
    assert f"{path}:5: invalid YAML: a quoted string opened here" in err.getvalue()
    assert f"{path}:9" not in err.getvalue()
