"""Fuzzing what names plugins: the value of `CHATASSERT_PLUGINS` and the `-p/--plugin`
arguments of a command line.

The contracts under test:

- `parse_plugin_list` reads any text into the modules to import and the plugins to turn
  off, or raises one `PluginError` naming the entry it refuses and saying what would do;
  every module it gives is a dotted name of identifiers or a `.py` path, every plugin to
  turn off a non-empty name; writing what it read back as a list reads the same;
- `plugin_arguments` raises nothing on any command line; each value it finds is written in
  it; it finds the values of `--plugin=VALUE` in order, and nothing after a `--`.
"""

from __future__ import annotations

import re

from fuzzing import fuzz_target
from hypothesis import given, strategies as st

from chatassert._cli._options import plugin_arguments
from chatassert.plugins import PluginError, parse_plugin_list

_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")

_identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_module = st.lists(_identifier, min_size=1, max_size=3).map(".".join)
_entry = st.one_of(
    _module,
    _module.map(lambda name: "no:" + name),
    _module.map(lambda name: name.replace(".", "/") + ".py"),
    st.text(max_size=12),  # anything at all: spaces, commas, colons, odd characters
    st.sampled_from(["no:", "no: ", "..", ".py", "a..b", "1x", "no:no:x", " , "]),
)


@given(entries=st.lists(_entry, max_size=6), spaces=st.sampled_from(["", " ", "\t", "  "]))
@fuzz_target("plugins.list")
def test_a_plugin_list_is_read_whole_or_refused_naming_its_entry(
    entries: list[str], spaces: str
) -> None:
    text = ",".join(spaces + entry + spaces for entry in entries)
    try:
        modules, disabled = parse_plugin_list(text)
    except PluginError as error:
        message = str(error)
        assert message.startswith("CHATASSERT_PLUGINS: ")
        assert "no:NAME" in message
        return
    for module in modules:
        assert module == module.strip()
        assert module.endswith(".py") or _MODULE.match(module), module
    assert all(name and name == name.strip() for name in disabled)
    written = ",".join([*modules, *(f"no:{name}" for name in disabled)])
    assert parse_plugin_list(written) == (modules, disabled)


_argument = st.one_of(
    st.sampled_from(["-p", "--plugin", "--", "-q", "check", "-pno:x", "--plugin=a.b", "-p="]),
    st.text(max_size=8),
)


@given(
    before=st.lists(_argument.filter(lambda arg: arg != "--"), max_size=6),
    values=st.lists(st.text(max_size=8), max_size=3),
    after=st.lists(_argument, max_size=4),
)
@fuzz_target("plugins.list")
def test_the_plugin_arguments_of_any_command_line_are_found(
    before: list[str], values: list[str], after: list[str]
) -> None:
    # what comes before is taken as written; each value given with --plugin=VALUE is found,
    # in order, after them; nothing after a `--` is
    head = plugin_arguments(before)
    assert all(any(value in arg for arg in before) for value in head)
    if before and before[-1] in ("-p", "--plugin"):
        before = [*before, "x"]  # the option takes the next argument: give it one
        head = plugin_arguments(before)
    argv = [*before, *(f"--plugin={value}" for value in values), "--", *after]
    assert plugin_arguments(argv) == [*head, *values]
