"""Plugins: checks, judges, log readers and report formats from outside the package.

A plugin is found two ways:

- **installed**: a distribution declares entry points in one of the four groups below. They
  are loaded lazily, by group, the first time a registry is asked for a name it does not hold
  (a check type no built-in has, a `--log-format` no reader has, a record no built-in reader
  recognises, a `--format` or `--output` extension no built-in format names, a judge name)
  or when everything must be listed (`chatassert lint`, `schema`, `--help`). A run that needs
  no plugin never loads one, nor even reads the installed entry points.
- **given**: `load_plugins(["my_checks"])` imports modules of a repository's own (on the
  command line `--plugin MODULE`, in the environment `CHATASSERT_PLUGINS`, in a native suite
  `plugins: [...]`). Such a module registers what it defines when imported: `register` for a
  check, `register_judge`, `chatassert.transcripts.register_reader`,
  `chatassert.reporting.register_reporter`.

The groups and what an entry point's value must be:

- `chatassert.checks`: a module (importing it registers its checks) or an assertion class;
- `chatassert.judges`: a judge factory `(model, **options) -> Judge`, or a judge class called
  that way; the judge's name is the entry point's name;
- `chatassert.readers`: a `chatassert.transcripts.Reader`;
- `chatassert.reports`: a reporter, as `chatassert.reporting.register_reporter` takes.

A plugin that cannot be loaded (its import fails, its value is of the wrong type, what it
registers is refused) raises `PluginError`, naming the plugin, its entry point and its
distribution, the cause and the fix, when it is loaded: a broken plugin is met only by a run
that looks for a name no other plugin provides. `load_plugins(disabled=[NAME])` (`-p no:NAME`)
turns an installed plugin off, by its entry point's name or its distribution's.

Docs: docs/plugins.md. Tests: tests/plugins/.

Example:
    >>> from chatassert import plugins
    >>> plugins.GROUPS
    ('chatassert.checks', 'chatassert.judges', 'chatassert.readers', 'chatassert.reports')
    >>> plugins.parse_plugin_list("my_checks, no:tally")
    (('my_checks',), ('tally',))
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from chatassert._errors import PluginError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "CHECKS",
    "ENV",
    "GROUPS",
    "JUDGES",
    "READERS",
    "REPORTS",
    "PluginError",
    "PluginState",
    "PluginTable",
    "installer",
    "judge_factories",
    "load_group",
    "load_plugins",
    "parse_plugin_args",
    "parse_plugin_list",
    "register_judge",
    "restore",
    "snapshot",
]

CHECKS = "chatassert.checks"
"""The entry-point group of checks: a module that registers checks, or an assertion class."""

JUDGES = "chatassert.judges"
"""The entry-point group of judges: a factory `(model, **options) -> Judge` by name."""

READERS = "chatassert.readers"
"""The entry-point group of log readers: a `chatassert.transcripts.Reader`."""

REPORTS = "chatassert.reports"
"""The entry-point group of report formats: a reporter (`chatassert.reporting.Reporter`)."""

GROUPS = (CHECKS, JUDGES, READERS, REPORTS)
"""Every entry-point group chatassert reads, in the order `--help` loads them."""

ENV = "CHATASSERT_PLUGINS"
"""The environment variable of plugins to load: comma-separated modules, `no:NAME` to
disable an installed plugin (`parse_plugin_list`)."""

_OWNERS = {
    CHECKS: "chatassert._registry",
    READERS: "chatassert.transcripts._readers",
    REPORTS: "chatassert.reporting._formats",
}
"""The module that installs each group's plugins into its registry (`installer`), imported
when the group is loaded before its registry was (the judges' table is kept here)."""


@dataclass(frozen=True)
class PluginState:
    """What `load_plugins` was given in this process, to give a worker process the same
    plugins (`snapshot`, `restore`): entry points are found again there, lazily.

    Attributes:
        modules: Each module loaded, as given, with the directory it was looked up from
            (the suite's directory of a `plugins:` key; the working directory otherwise).
        disabled: The installed plugins turned off.
    """

    modules: tuple[tuple[str, str], ...] = ()
    disabled: frozenset[str] = field(default_factory=frozenset)


_LOCK = threading.RLock()
_DISABLED: set[str] = set()
_MODULES: list[tuple[str, str]] = []
_LOADED_GROUPS: set[str] = set()
_LOADED_POINTS: set[tuple[str, str, str]] = set()  # (group, name, value) loaded or refused
_FAILURES: dict[str, list[PluginError]] = {}
_INSTALLERS: dict[str, Callable[[str, object], None]] = {}
_PREPARE: dict[str, Callable[[], None]] = {}
_JUDGE_FACTORIES: dict[str, Callable[..., Any]] = {}

_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")


# -- what to load ----------------------------------------------------------------------------


def parse_plugin_args(
    values: Iterable[str], *, given_by: str = "--plugin"
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split plugin arguments into the modules to import and the plugins to disable.

    Each value is a module name (`my_checks`, `tests.checks`), the path of a Python file
    (`checks/house.py`), or `no:NAME`, which disables the installed plugin NAME (an entry
    point's name or a distribution's), as pytest's `-p no:NAME` does.

    Raises:
        PluginError: for a value that is none of those, saying which and where (`given_by`).

    Example:
        >>> parse_plugin_args(["my_checks", "no:tally", "checks/house.py"])
        (('my_checks', 'checks/house.py'), ('tally',))
    """
    modules: list[str] = []
    disabled: list[str] = []
    for raw in values:
        value = raw.strip()
        if value.startswith("no:"):
            name = value[3:].strip()
            if not name:
                raise PluginError(
                    f"{given_by}: 'no:' names no plugin; write no:NAME, NAME an installed "
                    "plugin's entry point or distribution",
                    plugin=value,
                )
            disabled.append(name)
        elif value.endswith(".py") or _MODULE_NAME.match(value):
            modules.append(value)
        else:
            raise PluginError(
                f"{given_by}: {value!r} is not a module name (such as my_checks or "
                "tests.checks), the path of a .py file, or no:NAME",
                plugin=raw,
            )
    return tuple(modules), tuple(disabled)


def parse_plugin_list(text: str, *, given_by: str = ENV) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Read a comma-separated list of plugins (the value of `CHATASSERT_PLUGINS`): the
    modules to import and the plugins to disable, as `parse_plugin_args` reads each entry.
    Empty entries (`a,,b`, a trailing comma) are ignored.

    Raises:
        PluginError: for an entry that is not a module, a file or `no:NAME`.

    Example:
        >>> parse_plugin_list(" my_checks ,no:tally,")
        (('my_checks',), ('tally',))
    """
    return parse_plugin_args(
        (entry for entry in text.split(",") if entry.strip()), given_by=given_by
    )


def load_plugins(
    modules: Sequence[str] = (),
    *,
    disabled: Collection[str] = (),
    directory: str | None = None,
    given_by: str = "load_plugins",
) -> None:
    """Import the modules of a repository's own plugins, and turn installed plugins off.

    Each module registers what it defines when imported (its checks, judges, readers and
    report formats). A module name is looked up on `sys.path` and, after it, in `directory`
    (default: the working directory), where a repository's own modules are; a path ending in
    `.py` is imported from that file (relative to `directory`), under its file name, its
    directory put on `sys.path` so that its siblings import. A module already imported is not
    imported again.

    Args:
        modules: Module names (`my_checks`, `tests.checks`) or `.py` paths.
        disabled: Installed plugins not to load, by entry-point or distribution name.
        directory: Where relative module files, and modules not on `sys.path`, are found.
        given_by: What gave the modules, for messages (`--plugin`, `CHATASSERT_PLUGINS`).

    Raises:
        PluginError: when a module does not import (naming it, what gave it, and the cause),
            or a plugin to disable was already loaded in this process.
    """
    with _LOCK:
        for name in disabled:
            _disable(name)
        base = os.path.abspath(directory if directory is not None else os.getcwd())
        if modules:
            _prepared(CHECKS)  # the built-in checks first: a module's own collide with them
        for module in modules:
            _import_module(module, base, given_by)
            if (module, base) not in _MODULES:
                _MODULES.append((module, base))


def _disable(name: str) -> None:
    loaded = sorted(
        f"{group}: {ep_name}"
        for group, ep_name, _ in _LOADED_POINTS
        if _norm(ep_name) == _norm(name)
    )
    if loaded:
        raise PluginError(
            f"cannot disable plugin {name!r}: it is already loaded in this process "
            f"({', '.join(loaded)}); disable it before anything looks a plugin up (first on "
            "the command line, in CHATASSERT_PLUGINS or the pytest options)",
            plugin=name,
        )
    _DISABLED.add(name)


def _import_module(module: str, base: str, given_by: str) -> None:
    try:
        if module.endswith(".py"):
            _import_file(module, base)
        else:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as missing:
                top = module.split(".")[0]
                if missing.name not in (top, module) or base in sys.path:
                    raise
                sys.path.append(base)  # a repository's own module, not installed
                importlib.invalidate_caches()
                importlib.import_module(module)
    except PluginError:
        raise
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        where = "" if module.endswith(".py") else f" (looked up on sys.path and in {base})"
        raise PluginError(
            f"plugin module {module!r} ({given_by}) cannot be imported{where}: "
            f"{type(exc).__name__}: {exc}. Fix the module, or the name given to {given_by}",
            plugin=module,
        ) from exc


def _import_file(path: str, base: str) -> None:
    import importlib.util

    full = os.path.abspath(os.path.join(base, path))
    if not os.path.isfile(full):
        raise FileNotFoundError(f"no file {full}")
    name = os.path.splitext(os.path.basename(full))[0]
    if not _MODULE_NAME.match(name) or "." in name:
        raise ImportError(f"{os.path.basename(full)!r} is not the name of a Python module")
    present = sys.modules.get(name)
    if present is not None:
        if os.path.abspath(getattr(present, "__file__", "") or "") == full:
            return
        raise ImportError(
            f"a module named {name!r} is already imported from "
            f"{getattr(present, '__file__', None) or 'elsewhere'}; rename the file"
        )
    folder = os.path.dirname(full)
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(name, full)
    assert spec is not None
    assert spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # pickled by reference in worker processes
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        sys.modules.pop(name, None)
        raise


# -- entry points ----------------------------------------------------------------------------


def installer(
    group: str,
    install: Callable[[str, object], None],
    *,
    prepare: Callable[[], None] | None = None,
) -> None:
    """Set how a group's entry points are installed: `install(name, value)` puts the loaded
    value of entry point `name` into its registry, raising `TypeError` or `ValueError` (with
    the fix) when the value is refused; `prepare()`, when given, runs before any plugin of
    the group (or module given to `load_plugins`) is imported: the registry's built-ins
    loaded first, so that a plugin's name that collides with one is refused. Each registry
    sets its own when it is imported.
    """
    _check_group(group)
    _INSTALLERS[group] = install
    if prepare is not None:
        _PREPARE[group] = prepare


def _prepared(group: str) -> None:
    """Run the group's `prepare` (its registry imported first, when it was not yet)."""
    if group not in _INSTALLERS and group in _OWNERS:
        importlib.import_module(_OWNERS[group])  # sets its installer
    prepare = _PREPARE.get(group)
    if prepare is not None:
        prepare()


def load_group(group: str) -> None:
    """Load every installed, enabled plugin of an entry-point group, once.

    Called by the registries when everything must be listed (lint, schema, help) or when a
    name they do not hold is looked up. Every plugin of the group is tried; then, if any
    could not be loaded, one `PluginError` says which (the others stay loaded). A later call
    loads nothing again and raises the same error.

    Raises:
        PluginError: naming each plugin that failed, its entry point and distribution.
    """
    _check_group(group)
    with _LOCK:
        if group not in _LOADED_GROUPS:
            points = _points(group)
            if points:
                _prepared(group)
            for point in points:
                _try_point(group, point)
            _LOADED_GROUPS.add(group)
        _raise_failures(group)


def find(group: str, name: str, found: Callable[[], bool]) -> None:
    """Load what may provide `name` in `group`, which its registry lacks: the entry points
    named `name` first, then, unless `found()` says it is there by then, the whole group.

    A plugin that failed is not raised while the name is found elsewhere (it is raised by a
    lookup that does not find its name, and by `load_group`).

    Raises:
        PluginError: when an entry point named `name` fails, or when the name is not found
            and some plugin of the group failed.
    """
    _check_group(group)
    with _LOCK:
        if group not in _LOADED_GROUPS:
            points = _points(group)
            if points:
                _prepared(group)
            for point in points:
                if point.name == name:
                    error = _try_point(group, point)
                    if error is not None:
                        raise error
            if found():
                return
            for point in points:
                _try_point(group, point)
            _LOADED_GROUPS.add(group)
        if not found():
            _raise_failures(group, looked_for=name)


def _try_point(group: str, point: EntryPoint) -> PluginError | None:
    """Load one entry point (once); its failure is kept for the group and returned."""
    try:
        _load_point(group, point)
    except PluginError as exc:
        _FAILURES.setdefault(group, []).append(exc)
        return exc
    return None


def _raise_failures(group: str, looked_for: str | None = None) -> None:
    failures = _FAILURES.get(group) or []
    if not failures:
        return
    if len(failures) == 1:
        error = failures[0]
    else:
        listed = "\n".join(f"  - {failure}" for failure in failures)
        error = PluginError(
            f"{len(failures)} plugins of group {group} failed to load:\n{listed}",
            group=group,
            failures=failures,
        )
    if looked_for is not None:
        raise PluginError(
            f"{looked_for!r} is not built in, and it may be one of the plugins that failed to "
            f"load: {error}",
            plugin=error.plugin,
            group=group,
            value=error.value,
            distribution=error.distribution,
            failures=error.failures or (error,),
        )
    raise error


def _check_group(group: str) -> None:
    if group not in GROUPS:
        raise ValueError(f"unknown plugin group {group!r}; one of {', '.join(GROUPS)}")


def _points(group: str) -> list[EntryPoint]:
    """The enabled entry points of `group`, of distributions found on `sys.path` now."""
    from importlib.metadata import entry_points

    points = []
    for point in entry_points(group=group):
        if not _disabled(point):
            points.append(point)
    return points


def _norm(name: str) -> str:
    """A name as distributions compare them (PEP 503): case and `-_.` runs do not count."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _disabled(point: EntryPoint) -> bool:
    if not _DISABLED:
        return False
    names = {_norm(name) for name in _DISABLED}
    dist = getattr(point, "dist", None)
    return _norm(point.name) in names or (dist is not None and _norm(dist.name) in names)


def _distribution(point: EntryPoint) -> str | None:
    dist = getattr(point, "dist", None)
    if dist is None:
        return None
    return f"{dist.name} {dist.version}"


def _load_point(group: str, point: EntryPoint) -> None:
    """Load one entry point into its registry; a failure is a `PluginError` naming it."""
    key = (group, point.name, point.value)
    if key in _LOADED_POINTS:
        return
    _LOADED_POINTS.add(key)  # tried once: a failure is not tried again
    distribution = _distribution(point)
    described = f"entry point '{point.name} = {point.value}' in group {group}" + (
        f" of {distribution}" if distribution else ""
    )
    try:
        value = point.load()
        _install(group, point.name, value)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        action = "is refused" if isinstance(exc, _RefusedError) else "cannot be loaded"
        cause = str(exc) if isinstance(exc, _RefusedError) else f"{type(exc).__name__}: {exc}"
        raise PluginError(
            f"plugin {point.name!r} ({described}) {action}: {cause}. Fix or upgrade "
            f"{'the distribution ' + distribution.split(' ')[0] if distribution else 'it'}, "
            f"or turn it off with -p no:{point.name} (CHATASSERT_PLUGINS=no:{point.name})",
            plugin=point.name,
            group=group,
            value=point.value,
            distribution=distribution,
        ) from exc


class _RefusedError(Exception):
    """A loaded plugin its registry refuses (the message says why and how to fix it)."""


def _install(group: str, name: str, value: object) -> None:
    install = _INSTALLERS.get(group)
    if install is None:
        if group == JUDGES:
            install = _install_judge
        else:
            _prepared(group)
            install = _INSTALLERS[group]
    try:
        install(name, value)
    except (TypeError, ValueError) as exc:
        raise _RefusedError(str(exc)) from exc


# -- judges ----------------------------------------------------------------------------------

J = TypeVar("J", bound=Callable[..., Any])


def register_judge(name: str, factory: J) -> J:
    """Make a judge known by name: `factory(model, **options)` builds it (a judge class
    called that way will do). `--judge NAME`, `CHATASSERT_JUDGE` and `CHATASSERT_JUDGES`
    entries then name it. Returns the factory, so that it decorates one as well.

    Raises:
        ValueError: for an empty name or one another factory has.
        TypeError: for a factory that cannot be called.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a judge needs a name, got {name!r}")
    if not callable(factory):
        raise TypeError(
            f"judge {name!r}: expected a factory (model, **options) -> Judge or a judge class, "
            f"got {type(factory).__name__} {factory!r}"
        )
    with _LOCK:
        existing = _JUDGE_FACTORIES.get(name)
        if existing is not None and existing is not factory:
            raise ValueError(
                f"judge {name!r} is already registered by {_qualified(existing)}; "
                f"{_qualified(factory)} needs another name"
            )
        _JUDGE_FACTORIES[name] = factory
    return factory


def _install_judge(name: str, value: object) -> None:
    if not callable(value):
        raise TypeError(
            f"a {JUDGES} entry point must name a judge factory (model, **options) -> Judge or "
            f"a judge class, not {type(value).__name__} {value!r}"
        )
    register_judge(name, value)


def _qualified(value: object) -> str:
    module = getattr(value, "__module__", None) or "?"
    return f"{module}.{getattr(value, '__qualname__', type(value).__qualname__)}"


def judge_factories() -> PluginTable[Callable[..., Any]]:
    """The judges registered by name (`register_judge`, `chatassert.judges` entry points):
    looking a name up loads the installed plugins that may provide it; iterating lists those
    loaded (call `load_group(JUDGES)` first to list every one)."""
    return _JUDGE_TABLE


# -- tables ----------------------------------------------------------------------------------

V = TypeVar("V")


class PluginTable(Mapping[str, V]):
    """A registry's table that looks for a missing name among the plugins of its group.

    Looking a name up (`table[name]`, `get`, `in`) that the table does not hold loads the
    plugins that may provide it (`find`); iterating, `len` and the views list what is
    registered now and load nothing: call `load_group(table.group)` first to list everything.

    Args:
        group: The entry-point group whose plugins fill the table.
        entries: The table itself, or a function returning it (read at each lookup).
        prepare: Called before a name is looked for among the plugins (the registry's own
            built-ins loaded first, say).
    """

    __slots__ = ("_entries", "_prepare", "group")

    def __init__(
        self,
        group: str,
        entries: Mapping[str, V] | Callable[[], Mapping[str, V]],
        prepare: Callable[[], None] | None = None,
    ) -> None:
        _check_group(group)
        self.group = group
        self._entries: Callable[[], Mapping[str, V]] = (
            entries if callable(entries) else (lambda: entries)
        )
        self._prepare = prepare

    def __getitem__(self, name: str) -> V:
        entries = self._entries()
        if name in entries:
            return entries[name]
        if not isinstance(name, str):
            raise KeyError(name)
        if self._prepare is not None:
            self._prepare()
            entries = self._entries()
            if name in entries:
                return entries[name]
        find(self.group, name, lambda: name in self._entries())
        return self._entries()[name]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries()))

    def __len__(self) -> int:
        return len(self._entries())

    def __repr__(self) -> str:
        return f"PluginTable({self.group!r}, {dict(self._entries())!r})"


_JUDGE_TABLE: PluginTable[Callable[..., Any]] = PluginTable(JUDGES, _JUDGE_FACTORIES)


# -- worker processes ------------------------------------------------------------------------


def snapshot() -> PluginState:
    """What `load_plugins` was given in this process, for `restore` in a worker process."""
    with _LOCK:
        return PluginState(tuple(_MODULES), frozenset(_DISABLED))


def restore(state: PluginState) -> None:
    """Give this process the plugins of another (`snapshot`): the same plugins disabled and
    the same modules imported (nothing again in a process forked after they were).

    Raises:
        PluginError: as `load_plugins` does.
    """
    with _LOCK:
        for name in state.disabled - _DISABLED:
            _disable(name)
        for module, directory in state.modules:
            load_plugins([module], directory=directory, given_by="the main process's plugins")
