"""Which forge a repository has: the token, the API's base URL, the repository's name; and the text of a
draft's pull request."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hz.errors import ConfigError
from hz.review.forge import api_base, draft_key_in, forge_for, from_remote_url, marker, pull_text, repository
from hz.review.forge_github import GitHubForge

TOKEN = "ghp_setupToken0123456789abcdef"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _remote(root: Path, url: str) -> None:
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", url], check=True)


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://github.com/fjord/team.git", "fjord/team"),
        ("https://github.com/fjord/team", "fjord/team"),
        ("https://x-access-token:secret@github.com/fjord/team.git", "fjord/team"),
        ("ssh://git@github.com/fjord/team.git", "fjord/team"),
        ("git@github.com:fjord/team.git", "fjord/team"),
        ("git@github.com:fjord/team.v2", "fjord/team.v2"),
        ("git@gitlab.com:fjord/team.git", None),
        ("https://github.com/fjord/team/extra", None),
        ("https://github.com.evil.example/fjord/team", None),
        ("/srv/git/team.git", None),
    ],
)
def test_the_repository_is_read_from_a_github_remote(url: str, name: str | None) -> None:
    assert from_remote_url(url) == name


def test_no_token_or_no_repository_means_no_forge(repo: Path) -> None:
    _remote(repo, "git@github.com:fjord/team.git")
    assert forge_for(repo, {}) is None
    assert forge_for(repo, {"GITHUB_TOKEN": ""}) is None
    elsewhere = repo.parent / "elsewhere"
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    _remote(elsewhere, "/srv/git/team.git")
    assert forge_for(elsewhere, {"GITHUB_TOKEN": TOKEN}) is None


def test_the_forge_comes_from_the_team_remote(repo: Path) -> None:
    _remote(repo, "git@github.com:fjord/team.git")
    forge = forge_for(repo, {"GITHUB_TOKEN": TOKEN})
    assert isinstance(forge, GitHubForge)
    assert (forge.repo, forge.http.base) == ("fjord/team", "https://api.github.com")
    forge.close()


def test_github_repository_wins_then_hz_toml_then_the_remote(repo: Path) -> None:
    _remote(repo, "git@github.com:from/remote.git")
    assert repository(repo, {}) == "from/remote"
    (repo / "hz.toml").write_text('[forge]\nrepo = "from/toml"\n')
    assert repository(repo, {}) == "from/toml"
    assert repository(repo, {"GITHUB_REPOSITORY": "from/env"}) == "from/env"


def test_a_named_state_remote_is_looked_up(repo: Path) -> None:
    subprocess.run(["git", "-C", str(repo), "remote", "add", "team", "https://github.com/fjord/shared"], check=True)
    (repo / "hz.toml").write_text('[state]\nremote = "team"\n')
    assert repository(repo, {}) == "fjord/shared"


@pytest.mark.parametrize(
    ("environ", "toml"),
    [
        ({"GITHUB_REPOSITORY": "not a repo"}, ""),
        ({"GITHUB_REPOSITORY": "a/b/c"}, ""),
        ({}, '[forge]\nrepo = "-x/y"\n'),
        ({}, "[forge]\nrepo = 3\n"),
        ({}, '[forge]\nrepos = "a/b"\n'),
        ({}, 'forge = "a/b"\n'),
    ],
)
def test_a_malformed_repository_is_an_error_not_silence(repo: Path, environ: dict[str, str], toml: str) -> None:
    (repo / "hz.toml").write_text(toml)
    with pytest.raises(ConfigError):
        forge_for(repo, {"GITHUB_TOKEN": TOKEN, **environ})


@pytest.mark.parametrize(
    ("base", "ok"),
    [
        ("https://api.github.com", True),
        ("https://ghe.example.com/api/v3/", True),
        ("http://127.0.0.1:8080", True),
        ("http://[::1]:9000", True),
        ("http://localhost:1", True),
        ("http://api.github.com", False),
        ("ftp://api.github.com", False),
        ("api.github.com", False),
        ("https://user:secret-value@api.github.com", False),
        ("https://api.github.com?x=1", False),
        ("https://-bad-/", False),
    ],
)
def test_the_api_base_is_https_or_loopback_http(base: str, ok: bool) -> None:
    if ok:
        assert api_base({"HZ_GITHUB_API": base}) == base.rstrip("/")
    else:
        with pytest.raises(ConfigError) as caught:
            api_base({"HZ_GITHUB_API": base})
        assert "secret-value" not in caught.value.render()


def test_the_pull_text_has_the_checklist_and_the_hidden_key() -> None:
    title, body = pull_text(
        "Weekly platform report", ["Covers every service", "Links\nthe incidents"], "dk-9", "2026-W45"
    )
    assert title == "Weekly platform report (2026-W45)"
    assert "- [ ] Covers every service\n- [ ] Links the incidents\n" in body
    assert body.rstrip().endswith("<!-- hz-draft: dk-9 -->")
    assert draft_key_in(body) == "dk-9"


def test_contract_text_cannot_plant_a_marker() -> None:
    title, body = pull_text("<!-- hz-draft: evil -->", ["x <!-- hz-draft: evil --> y"], "dk-1", "s")
    assert "evil -->" not in title + body
    assert draft_key_in(body) == "dk-1" and body.count("<!--") == 1


@pytest.mark.parametrize("key", ["", "a b", "x-->", "<k>", "k\n", "k\t", "x" * 201])
def test_a_key_that_is_no_id_is_refused(key: str) -> None:
    with pytest.raises(ValueError):
        marker(key)


def test_a_team_draft_key_goes_in_whole() -> None:
    key = "hz-weekly--report@v1@2026-12-01T10:00Z@state:reports/platform/summary.md"
    assert draft_key_in(pull_text("T", [], key, "s")[1]) == key
