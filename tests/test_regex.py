"""Tests for `chatassert._regex`: Go/RE2 syntax on top of `regex`, with a time limit."""

from __future__ import annotations

import copy
import pickle
import string
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert._errors import RegexTimeoutError
from chatassert._regex import Pattern, _translate, compile_pattern


def group(pattern: str, text: str) -> str | None:
    """Return the text matched by `pattern` in `text`, or None."""
    match = compile_pattern(pattern).search(text)
    return None if match is None else str(match.group())


# -- inline flags ---------------------------------------------------------------------------


def test_flag_in_the_middle_applies_from_there_on() -> None:
    assert compile_pattern("a(?i)b").matches("aB")
    assert not compile_pattern("a(?i)b").matches("AB")


def test_leading_case_insensitive_flag() -> None:
    assert compile_pattern("(?i)hello").matches("HELLO")
    assert not compile_pattern("hello").matches("HELLO")


def test_dotall_flag_in_the_middle() -> None:
    assert compile_pattern("x(?s).y").matches("x\ny")
    assert not compile_pattern("x.y").matches("x\ny")


def test_combined_and_negated_flags() -> None:
    assert compile_pattern("(?is)a.b").matches("A\nB")
    assert not compile_pattern("(?s)(?i-s)a.").matches("A\n")
    assert compile_pattern("(?s)(?i-s)a.").matches("Ax")


def test_scoped_flag_group() -> None:
    assert compile_pattern("(?i:a)b").matches("Ab")
    assert not compile_pattern("(?i:a)b").matches("AB")


def test_flag_lasts_until_the_end_of_the_enclosing_group() -> None:
    assert compile_pattern("(a(?i)b)c").matches("aBc")
    assert not compile_pattern("(a(?i)b)c").matches("aBC")


def test_flag_carries_across_alternation_as_in_go() -> None:
    assert compile_pattern("a(?i)b|c").matches("C")


def test_multiline_flag() -> None:
    assert compile_pattern("(?m)^b$").matches("a\nb\nc")
    assert not compile_pattern("^b$").matches("a\nb\nc")
    assert compile_pattern("(?m:^b)").matches("a\nb")


def test_unknown_flag_is_rejected_with_a_hint() -> None:
    with pytest.raises(ValueError, match="flags i, m, s and U"):
        compile_pattern("(?x)a b")


# -- (?U): ungreedy -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("(?U)a+", "aaa", "a"),
        ("(?U)a+?", "aaa", "aaa"),
        ("(?U)a*", "aaa", ""),
        ("(?U)a*?", "aaa", "aaa"),
        ("(?U)a?", "a", ""),
        ("(?U)a??", "a", "a"),
        ("(?U)a{2,3}", "aaa", "aa"),
        ("(?U)a{2,3}?", "aaa", "aaa"),
        ("(?U)a{2,}", "aaaa", "aa"),
        ("(?U)a{2}", "aaaa", "aa"),
        ("a(?U)b+", "abbb", "ab"),
        ("(?U)a+(?-U)b+", "aabbb", "aabbb"),
        ("(?U)\\*+", "***", "*"),
        ("(?U)[*+?]+", "*+?", "*"),
        ("(?U)x{,2}+", "x{,2}}}", "x{,2}"),
        ("(?U:a+)", "aaa", "a"),
        ("(?U:a+)b+", "abbb", "abbb"),
        ("(a(?U)b+)b+", "abbb", "abbb"),
    ],
)
def test_ungreedy_flag(pattern: str, text: str, expected: str) -> None:
    assert group(pattern, text) == expected


def test_ungreedy_scope_ends_with_its_group() -> None:
    match = compile_pattern("(?U:(a+))(a+)").search("aaaa")
    assert match is not None
    assert match.group(1, 2) == ("a", "aaa")
    match = compile_pattern("(?U)(a+)(?-U)(a+)").search("aaaa")
    assert match is not None
    assert match.group(1, 2) == ("a", "aaa")
    match = compile_pattern("((?U)a+)(a+)").search("aaaa")
    assert match is not None
    assert match.group(1, 2) == ("a", "aaa")


def test_ungreedy_rewrites_only_quantifiers() -> None:
    assert _translate("(?U)[*+?]") == "[\\*\\+\\?]"
    assert _translate("(?U)\\*a*") == "\\*a*?"
    assert _translate("(?U)x{,2}") == "x\\{\\,2\\}"
    assert _translate("(?iU)a+") == "(?i)a+?"


# -- anchors --------------------------------------------------------------------------------


def test_lowercase_z_is_end_of_text() -> None:
    assert compile_pattern("a\\z").matches("ba")
    assert not compile_pattern("a\\z").matches("a\n")
    assert compile_pattern("\\Aa").matches("ab")
    assert not compile_pattern("\\Aa").matches("ba")


def test_uppercase_z_is_rejected_with_a_fix() -> None:
    with pytest.raises(ValueError, match=r"use \\z") as info:
        compile_pattern("a\\Z")
    assert "'a\\\\Z'" in str(info.value)


def test_dollar_does_not_match_before_a_trailing_newline() -> None:
    assert not compile_pattern("a$").matches("a\n")
    assert compile_pattern("a$").matches("a")
    assert compile_pattern("(?m)a$").matches("a\n")


# -- \Q...\E --------------------------------------------------------------------------------


def test_quoted_text_is_literal() -> None:
    pattern = compile_pattern("\\Qa.b*(c)\\E+")
    assert group("\\Qa.b*(c)\\E+", "xa.b*(c)))") == "a.b*(c)))"
    assert not pattern.matches("axb(c)")


def test_quoted_text_runs_to_the_end_without_backslash_e() -> None:
    assert compile_pattern("x\\Q[y]").matches("x[y]")
    assert not compile_pattern("x\\Q[y]").matches("xy")


# -- POSIX classes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "inside", "outside"),
    [
        ("alpha", "aZ", "1_é"),
        ("digit", "09", "a٣"),
        ("alnum", "a9Z", "_-é"),
        ("space", " \t\n\v\f\r", "a\u00a0"),
        ("upper", "AZ", "aÉ"),
        ("lower", "az", "Aé"),
        ("punct", "!/:@[`{~_", "a1 "),
        ("xdigit", "09afAF", "gG"),
        ("word", "azAZ09_", "-é "),
    ],
)
def test_posix_class(name: str, inside: str, outside: str) -> None:
    pattern = compile_pattern(f"^[[:{name}:]]$")
    negated = compile_pattern(f"^[^[:{name}:]]$")
    inverse = compile_pattern(f"^[[:^{name}:]]$")
    for char in inside:
        assert pattern.matches(char), (name, char)
        assert not negated.matches(char), (name, char)
        assert not inverse.matches(char), (name, char)
    for char in outside:
        assert not pattern.matches(char), (name, char)
        assert negated.matches(char), (name, char)
        assert inverse.matches(char), (name, char)


def test_posix_classes_combine() -> None:
    assert group("[[:digit:][:space:]]+", "ab1 2 3cd") == "1 2 3"
    assert group("[^[:punct:]]+", "!!ab c!") == "ab c"
    assert group("[x[:digit:]]+", "ax1x2b") == "x1x2"


def test_unknown_posix_class_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"\[:alfa:\].*known POSIX classes"):
        compile_pattern("[[:alfa:]]")


# -- named groups ---------------------------------------------------------------------------


def test_named_groups_in_both_spellings() -> None:
    match = compile_pattern("(?P<first>a+)(?<second>b+)").search("xaabbb")
    assert match is not None
    assert match.group("first") == "aa"
    assert match.group("second") == "bbb"


def test_duplicate_group_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate capture group name 'x'"):
        compile_pattern("(?P<x>a)(?P<x>b)")


# -- character classes: Go reads literally what regex V1 would read as set operations ---------


@pytest.mark.parametrize(
    ("pattern", "inside", "outside"),
    [
        ("[A-Z|a-z]", "A|z", "1-"),
        ("[a-]", "a-", "b"),
        ("[-a]", "a-", "b"),
        ("[]a]", "]a", "b["),
        ("[^]a]", "b[", "]a"),
        ("[a&&b]", "ab&", "c"),
        ("[--/]", "-./", ",0"),
        ("[a\\--]", "a-", "b"),
        ("[a||b]", "ab|", "c"),
        ("[a~~b]", "ab~", "c"),
        ("[[a]", "[a", "]b"),
        ("[a-c-e]", "abc-e", "d"),
        ("[\\]\\\\]", "]\\", "a"),
        ("[\\d]", "5", "a"),
        ("[\\D5]", "a5", "4"),
        ("[^\\d]", "a", "4"),
        ("[\\s]", " \t", "\v"),
        ("[\\w-]", "a_-", "é "),
        ("[\\x41-\\x{43}]", "ABC", "D"),
        ("[\\p{Greek}x]", "\u03b1x", "a"),
        ("[^\\pL]", "1 ", "aé"),
    ],
)
def test_bracket_expressions(pattern: str, inside: str, outside: str) -> None:
    anchored = compile_pattern(f"^{pattern}$")
    for char in inside:
        assert anchored.matches(char), (pattern, char)
    for char in outside:
        assert not anchored.matches(char), (pattern, char)


def test_case_insensitive_class() -> None:
    assert compile_pattern("(?i)[a-c]+$").matches("AbC")
    assert not compile_pattern("(?i)[^a]").matches("A")


# -- Perl classes and word boundaries are ASCII, as in RE2 ------------------------------------


def test_perl_classes_are_ascii() -> None:
    assert compile_pattern("\\d").matches("7")
    assert not compile_pattern("\\d").matches("٣")  # ARABIC-INDIC DIGIT THREE
    assert not compile_pattern("\\w").matches("é")
    assert compile_pattern("\\W").matches("é")
    assert compile_pattern("\\s").matches("\t")
    assert not compile_pattern("\\s").matches("\v")
    assert not compile_pattern("\\s").matches("\u00a0")
    assert compile_pattern("\\S").matches("\v")


def test_word_boundary_is_ascii() -> None:
    assert compile_pattern("\\bcat\\b").matches("a cat.")
    assert not compile_pattern("\\bcat\\b").matches("concat")
    assert compile_pattern("caf\\b").matches("café")  # é is not a word character in RE2
    assert not compile_pattern("caf\\B").matches("café")


def test_unicode_classes_stay_unicode() -> None:
    assert group("\\pL+", "12éa3") == "éa"
    assert group("\\p{Greek}+", "ab\u03b3\u03b4") == "\u03b3\u03b4"
    assert group("\\PL+", "ab12c") == "12"
    assert group("\\p{^Greek}+", "\u03b3ab") == "ab"


# -- escapes and literals -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("\\x41", "A"),
        ("\\x{1F600}", "\U0001f600"),
        ("\\101", "A"),
        ("\\0", "\x00"),
        ("\\012", "\n"),
        ("\\n\\t\\r\\f\\v\\a", "\n\t\r\f\v\a"),
        ("\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\\\-\\_\\#\\ ", ".*+?()[]{}|^$\\-_# "),
        ("a{,3}", "a{,3}"),
        ("a{x}", "a{x}"),
        ("a{01}", "a{01}"),
        ("{", "{"),
        ("}", "}"),
        ("]", "]"),
        ("#", "#"),
        (" ", " "),
    ],
)
def test_escapes_and_literals(pattern: str, text: str) -> None:
    assert compile_pattern(f"^(?:{pattern})$").matches(text)


def test_repeat_counts() -> None:
    assert group("a{2}", "aaa") == "aa"
    assert group("a{2,}", "aaaa") == "aaaa"
    assert group("a{1,2}?", "aaa") == "a"
    assert compile_pattern("a{1000}").matches("a" * 1000)


def test_empty_pattern_is_allowed() -> None:
    pattern = compile_pattern("")
    assert pattern.matches("")
    assert group("", "abc") == ""


# -- invalid patterns -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(", "missing closing )"),
        ("a)", "unexpected )"),
        ("[a", "missing closing ]"),
        ("[]", "missing closing ]"),
        ("[z-a]", "invalid character class range"),
        ("[a--b]", "invalid character class range"),
        ("a**", "invalid nested repetition operator"),
        ("a++", "invalid nested repetition operator"),
        ("a{2}{3}", "invalid nested repetition operator"),
        ("*a", "missing argument to repetition operator"),
        ("(|+)", "missing argument to repetition operator"),
        ("a{1001}", "invalid repeat count"),
        ("a{3,2}", "invalid repeat count"),
        ("(?=a)", "lookahead assertions are not supported"),
        ("(?!a)", "lookahead assertions are not supported"),
        ("(?<=a)b", "lookbehind assertions are not supported"),
        ("(?<!a)b", "lookbehind assertions are not supported"),
        ("(?>a)", "atomic groups are not supported"),
        ("(a)\\1", "backreferences are not supported"),
        ("(?P<n>a)(?P=n)", "backreferences are not supported"),
        ("(?-)a", "invalid or unsupported Perl syntax"),
        ("(?i", "missing closing )"),
        ("(?P<>a)", "invalid named capture"),
        ("(?P<a-b>a)", "invalid named capture"),
        ("(?P<a", "invalid named capture"),
        ("\\", "trailing backslash"),
        ("\\y", "invalid escape sequence"),
        ("\\C", "invalid escape sequence"),
        ("[\\b]", "invalid escape sequence"),
        ("\\x{110000}", "invalid escape sequence"),
        ("\\xZ", "invalid escape sequence"),
        ("\\p{", "invalid character class range"),
        ("\\p{NoSuchScript}", "unknown property"),
    ],
)
def test_invalid_pattern_names_the_pattern_and_the_problem(pattern: str, problem: str) -> None:
    with pytest.raises(ValueError, match="invalid regular expression") as info:
        compile_pattern(pattern)
    message = str(info.value)
    assert repr(pattern) in message
    assert problem in message
    assert "position" in message


def test_error_positions_point_at_the_problem() -> None:
    with pytest.raises(ValueError, match="at position 3"):
        compile_pattern("abc(?=d)")


# -- the time limit -------------------------------------------------------------------------


def test_catastrophic_pattern_times_out() -> None:
    pattern = compile_pattern("(a+)+$", timeout=0.05)
    text = "a" * 5000 + "b"
    with pytest.raises(RegexTimeoutError, match=r"did not finish within 0\.05s") as info:
        pattern.search(text)
    assert "'(a+)+$'" in str(info.value)
    assert "5001 characters" in str(info.value)
    assert isinstance(info.value, TimeoutError)
    with pytest.raises(RegexTimeoutError):
        pattern.matches(text)


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan"), float("inf"), True])
def test_timeout_must_be_positive(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        compile_pattern("a", timeout=timeout)


# -- the Pattern object ---------------------------------------------------------------------


def test_attributes_and_repr() -> None:
    pattern = compile_pattern("a+b", timeout=2)
    assert pattern.source == "a+b"
    assert pattern.timeout == 2.0
    assert repr(pattern) == "Pattern('a+b')"
    assert compile_pattern("a").timeout == 1.0


def test_pickle_round_trip() -> None:
    pattern = compile_pattern("(?i)\\bhello\\b", timeout=0.5)
    restored = pickle.loads(pickle.dumps(pattern))
    assert isinstance(restored, Pattern)
    assert restored == pattern
    assert restored.timeout == 0.5
    assert restored.matches("say HELLO")
    assert copy.deepcopy(pattern) == pattern


def test_equality_and_hash() -> None:
    first = compile_pattern("a+", timeout=1.0)
    second = compile_pattern("a+", timeout=1.0)
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    assert first != compile_pattern("a+", timeout=2.0)
    assert first != compile_pattern("a*")
    assert first != "a+"


def test_immutable() -> None:
    pattern = compile_pattern("a")
    with pytest.raises(AttributeError):
        pattern.source = "b"
    with pytest.raises(AttributeError):
        pattern.timeout = 5.0
    with pytest.raises(AttributeError):
        pattern.other = 1
    with pytest.raises(AttributeError):
        del pattern.source
    assert not hasattr(pattern, "__dict__")
    assert pattern.source == "a"


# -- the PromptKit document's example patterns ----------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "expected", "non_matching"),
    [
        (
            r"(?i)\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Z|a-z]{2,}\b",
            "mail me at Bob@Example.com",
            "Bob@Example.com",
            "mail me at bob@example",
        ),
        (r"\d{3}-\d{3}-\d{4}", "call 555-123-4567 now", "555-123-4567", "call 55-123-4567"),
        (r"#\d{5,}", "order #1234567 shipped", "#1234567", "order #1234"),
        (r"(?i)\b(yes|no)\b", "Well, YES.", "YES", "yesterday, nope"),
        (r"\$\d+(\.\d{2})?", "it costs $5.99", "$5.99", "it costs 5.99"),
        (
            r"\(?\d{3}\)?[-.\s]?\d{3}[-.\s]?\d{4}",
            "phone: (555) 123-4567",
            "(555) 123-4567",
            "phone: 12-34",
        ),
        (
            r"https?://[^\s]+",
            "see https://example.com/x?y=1 now",
            "https://example.com/x?y=1",
            "see ftp://example.com",
        ),
        (r"^PROD-[0-9]+$", "PROD-42", "PROD-42", "PROD-42\n"),
        (r"\d+°[CF]", "It is 21°C outside", "21°C", "It is 21°K outside"),
    ],
)
def test_promptkit_examples(pattern: str, text: str, expected: str, non_matching: str) -> None:
    compiled = compile_pattern(pattern)
    assert group(pattern, text) == expected
    assert not compiled.matches(non_matching)


def test_promptkit_phone_pattern_variants() -> None:
    pattern = compile_pattern(r"\(?\d{3}\)?[-.\s]?\d{3}[-.\s]?\d{4}")
    for text in ("555.123.4567", "5551234567", "555 123 4567"):
        assert pattern.matches(text), text


def test_promptkit_anchored_pattern_rejects_surroundings() -> None:
    pattern = compile_pattern(r"^PROD-[0-9]+$")
    assert not pattern.matches("xPROD-42")
    assert not pattern.matches("PROD-42x")
    assert not pattern.matches("PROD-")


# -- properties -----------------------------------------------------------------------------

_LITERAL_CHARS = string.ascii_letters + string.digits + string.punctuation + " é\n"


def go_escape(text: str) -> str:
    """Escape `text` for Go: a backslash before each ASCII punctuation character."""
    return "".join("\\" + char if char in string.punctuation else char for char in text)


@settings(database=None, max_examples=200)
@given(needle=st.text(alphabet=_LITERAL_CHARS, max_size=6), haystack=st.text(_LITERAL_CHARS))
def test_escaped_literal_search_agrees_with_in(needle: str, haystack: str) -> None:
    assert compile_pattern(go_escape(needle)).matches(haystack) == (needle in haystack)
    if "\\E" not in needle:
        assert compile_pattern(f"\\Q{needle}").matches(haystack) == (needle in haystack)


@settings(database=None, max_examples=200)
@given(
    needle=st.text(alphabet=string.ascii_letters, max_size=4),
    haystack=st.text(alphabet="abAB xyXY"),
)
def test_case_insensitive_literal_search_agrees_with_lowered_in(needle: str, haystack: str) -> None:
    expected = needle.lower() in haystack.lower()
    assert compile_pattern(f"(?i){needle}").matches(haystack) == expected


@pytest.mark.parametrize(
    "pattern",
    ["(?:(?:a{100}){100}){100}", "(?:a{1000}){1000}", "((a{20}){20}){20}", "(?:\\pL{1000}){10}"],
)
def test_nested_repeat_counts_multiply_and_are_limited_as_in_go(pattern: str) -> None:
    # compiled, some of these would take gigabytes: Go rejects them, and so does this
    with pytest.raises(ValueError, match="nested repeat counts multiply"):
        compile_pattern(pattern)


def test_nested_repeats_within_the_limit_compile() -> None:
    assert compile_pattern("(?:a{10}){100}").search("a" * 1000) is not None
    assert compile_pattern("(?:a{2}){2}|b{999}").search("aaaa") is not None


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("(?i)ß", "ss"), ("(?i)ss", "ß"), ("(?i)fi", "ﬁ"), ("(?i)ﬀ", "ff"), ("(?i)[ß]", "SS")],
)
def test_case_folding_is_simple_as_in_re2(pattern: str, text: str) -> None:
    assert compile_pattern(pattern).search(text) is None
    assert compile_pattern("(?i)\u03c3").search("\u03a3") is not None  # sigma: one to one


# -- searches whose work the pattern bounds run without the timer ----------------------------


@pytest.mark.parametrize(
    ("source", "bound"),
    [
        ("abc", 3),
        ("(?i)confirm(ed|ation)", 24),
        (r"\d{3}-\d{4}", 8),
        ("^(yes|no)$", 6),
        ("[a-z]{1,3}x?", 24),  # (3 lengths times 2) paths of at most 4 characters
        ("", 1),
    ],
)
def test_a_pattern_without_unbounded_repeats_has_a_work_bound(source: str, bound: int) -> None:
    from chatassert._regex import _work_bound

    assert _work_bound(source) == bound


@pytest.mark.parametrize(
    "source",
    ["a*b", "(a+)+b", "x{2,}", r"\pL", r"\Qa*\E", "[[:alpha:]]", r"a\z", "(?U)a{1,3}"],
)
def test_unbounded_or_unread_patterns_have_none(source: str) -> None:
    from chatassert._regex import _work_bound

    assert _work_bound(source) is None


def test_a_bounded_but_huge_pattern_is_still_timed() -> None:
    # 3**14 paths: far beyond the untimed budget on any text, so the timer still stops it
    pattern = compile_pattern("(a|a|a){14}b", timeout=0.05)
    with pytest.raises(RegexTimeoutError):
        pattern.search("a" * 40)


def test_only_a_search_within_the_untimed_steps_skips_the_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import chatassert._regex as module
    from chatassert._budget import close_budget, open_budget

    timed: list[int] = []
    real = module.run_limited

    def counting(run: Any, source: str, timeout: float, size: int, what: str = "pattern") -> Any:
        timed.append(size)
        return real(run, source, timeout, size, what)

    monkeypatch.setattr(module, "run_limited", counting)
    pattern = compile_pattern("a{1000}")  # 1,000 steps from each position
    token = open_budget()
    try:
        assert pattern.search("a" * 1500) is not None  # 1.5 M steps: untimed
        assert pattern.search("b" * 3000) is None  # 3 M steps: timed
    finally:
        close_budget(token)
    assert timed == [3000]
