"""The JUnit report escapes text and attributes exactly as `xml.sax.saxutils` does.

`reporting._junit` writes its own escaping so that writing any report does not import
`xml.sax.saxutils` (which imports `urllib.request`, `http.client`, `email` and `ssl`); these
tests hold it to the standard library's output, character for character.
"""

from __future__ import annotations

import subprocess
import sys
from xml.sax.saxutils import escape, quoteattr

from hypothesis import given, settings, strategies as st

from chatassert.reporting._junit import INVALID_XML, _attr, _text

_CHARS = st.text(alphabet=st.sampled_from([*"ab&<>\"' \n\r\t\x00\x0b\ufffe", "é", "\ud800"]))


@settings(max_examples=400)
@given(_CHARS)
def test_text_and_attributes_are_escaped_as_saxutils_escapes_them(value: str) -> None:
    clean = INVALID_XML.sub("\ufffd", value)
    assert _text(value) == escape(clean)
    assert _attr(value) == quoteattr(clean)


def test_each_quoting_rule_of_quoteattr() -> None:
    assert _attr("plain") == '"plain"'
    assert _attr('say "hi"') == "'say \"hi\"'"
    assert _attr('it\'s "x"') == '"it\'s &quot;x&quot;"'
    assert _attr("a\nb\tc\rd") == '"a&#10;b&#9;c&#13;d"'


def test_writing_reports_does_not_import_the_xml_and_http_modules() -> None:
    code = (
        "import sys\n"
        "import chatassert.reporting\n"
        "print(sorted(m for m in ('xml.sax.saxutils', 'urllib.request', 'http.client')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
