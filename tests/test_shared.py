"""The small shared helpers: fingerprints, atomic private writes, user configuration."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.canonical import canonical_json, fingerprint
from hz.config import load_user_config
from hz.errors import ConfigError
from hz.fsio import atomic_write, private_dir

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), json_values, max_size=6))
def test_fingerprint_ignores_key_order(value: dict[str, object]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert fingerprint(value) == fingerprint(reordered)


def test_fingerprint_is_rfc8785_sha256() -> None:
    assert canonical_json({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()
    assert fingerprint({}) == "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"


@given(json_values, json_values)
def test_distinct_values_have_distinct_fingerprints(a: object, b: object) -> None:
    if canonical_json(a) != canonical_json(b):
        assert fingerprint(a) != fingerprint(b)


def test_atomic_write_is_private(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "file.json"
    atomic_write(target, "hello")
    assert target.read_text() == "hello"
    assert target.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "a" / "b").stat().st_mode & 0o777 == 0o700
    atomic_write(target, b"again")
    assert target.read_bytes() == b"again"
    assert sorted(os.listdir(target.parent)) == ["file.json"]


def test_private_dir_tightens_mode(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    private_dir(loose)
    assert loose.stat().st_mode & 0o777 == 0o700


def test_user_config_defaults_and_errors(tmp_path: Path) -> None:
    env = {"HZ_CONFIG_HOME": str(tmp_path)}
    config = load_user_config(env)
    assert config.handle is None
    assert config.heinzel.retention_days == 90
    (tmp_path / "config.toml").write_text('[user]\nhandle = "@priya"\n[heinzel]\nmax_usd = 0.5\n')
    config = load_user_config({**env, "HZ_HANDLE": "@theo"})
    assert config.handle == "@theo"
    assert config.heinzel.max_usd == 0.5
    (tmp_path / "config.toml").write_text("[heinzel]\nmax_usd = 'lots'\n")
    with pytest.raises(ConfigError, match=r"heinzel\.max_usd must be a number"):
        load_user_config(env)
