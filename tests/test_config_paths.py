"""The default homes: on Linux worked out without platformdirs, and always the folders platformdirs names."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import platformdirs
import pytest

from hz.config import config_home, hz_home

UNSET = None
XDG = (UNSET, "", "   ", "/x/data", "/x/data/", "//x", "rel/data")
HOMES = (UNSET, "/home/u", "/home/u/", "relative")


def _outcome(compute: Callable[[], Path]) -> object:
    try:
        return compute()
    except Exception as exc:  # platformdirs may refuse a home it cannot resolve; hz must refuse alike
        return type(exc)


def _set(monkeypatch: pytest.MonkeyPatch, name: str, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(name, raising=False)
    else:
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize(("xdg", "home"), list(itertools.product(XDG, HOMES)))
def test_the_defaults_are_the_folders_platformdirs_names(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None, home: str | None
) -> None:
    monkeypatch.delenv("HZ_HOME")
    monkeypatch.delenv("HZ_CONFIG_HOME")
    _set(monkeypatch, "HOME", home)
    _set(monkeypatch, "XDG_DATA_HOME", xdg)
    _set(monkeypatch, "XDG_CONFIG_HOME", xdg)
    assert _outcome(lambda: hz_home(os.environ)) == _outcome(lambda: Path(platformdirs.user_data_dir("heinzel")))
    assert _outcome(lambda: config_home(os.environ)) == _outcome(lambda: Path(platformdirs.user_config_dir("heinzel")))


def test_the_environment_passed_in_decides_before_the_defaults() -> None:
    environ = {"HZ_HOME": "/data/hz", "HZ_CONFIG_HOME": "/conf/hz", "HOME": "/home/u"}
    assert (hz_home(environ), config_home(environ)) == (Path("/data/hz"), Path("/conf/hz"))
    if sys.platform == "linux":
        assert hz_home({"HOME": "/home/u"}) == Path("/home/u/.local/share/heinzel")
        assert config_home({"HOME": "/home/u", "XDG_CONFIG_HOME": "/etc/u"}) == Path("/etc/u/heinzel")


@pytest.mark.skipif(sys.platform != "linux", reason="the shortcut is for Linux only")
def test_a_linux_default_home_does_not_import_platformdirs(tmp_path: Path) -> None:
    probe = "import sys; from hz.config import config_home, hz_home; hz_home(); config_home(); "
    probe += "print('platformdirs' in sys.modules)"
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("HZ_", "XDG_"))}
    environ["HOME"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", probe], env=environ, capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"
