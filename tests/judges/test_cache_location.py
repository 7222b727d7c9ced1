"""Where the verdict cache lives: the platform's user cache folder, as platformdirs puts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatassert._cache import default_cache_path, user_cache_dir


@pytest.mark.parametrize(
    ("platform", "environ", "home", "expected"),
    [
        ("linux", {}, "/home/ada", "/home/ada/.cache/chatassert"),
        ("linux", {"XDG_CACHE_HOME": "/var/cache/ada"}, "/home/ada", "/var/cache/ada/chatassert"),
        # the XDG specification: a relative path is ignored, so is an empty one
        ("linux", {"XDG_CACHE_HOME": "cache"}, "/home/ada", "/home/ada/.cache/chatassert"),
        ("linux", {"XDG_CACHE_HOME": " "}, "/home/ada", "/home/ada/.cache/chatassert"),
        ("freebsd14", {}, "/home/ada", "/home/ada/.cache/chatassert"),
        ("darwin", {}, "/Users/ada", "/Users/ada/Library/Caches/chatassert"),
        ("darwin", {"XDG_CACHE_HOME": "/tmp/xdg"}, "/Users/ada", "/tmp/xdg/chatassert"),
    ],
)
def test_the_cache_folder_of_each_platform(
    platform: str, environ: dict[str, str], home: str, expected: str
) -> None:
    assert user_cache_dir(platform, environ, home).as_posix() == expected


def test_windows_uses_local_app_data_and_falls_back_to_the_profile() -> None:
    local = user_cache_dir("win32", {"LOCALAPPDATA": "C:/Users/ada/AppData/Local"}, "C:/Users/ada")
    assert local.as_posix() == "C:/Users/ada/AppData/Local/chatassert/Cache"
    bare = user_cache_dir("win32", {}, "C:/Users/ada")
    assert bare.as_posix() == "C:/Users/ada/AppData/Local/chatassert/Cache"


def test_the_default_cache_file_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / "chatassert" / "judges.sqlite3"


def test_the_default_matches_platformdirs_where_it_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    platformdirs = pytest.importorskip("platformdirs")  # not a dependency: a cross-check
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    expected = Path(platformdirs.user_cache_dir("chatassert", appauthor=False))
    assert user_cache_dir() == expected
