"""The forge a team's drafts are reviewed on: which one, if any, and what hz asks of it.

`forge_for(root, environ)` gives the GitHub adapter when both a token and a repository are known, and
None otherwise, in which case draft branches alone carry the review, as before there was an adapter.

- The token is `GITHUB_TOKEN`; it travels only in the `Authorization` header and every text that
  leaves the adapter is scrubbed of it (`hz.secrets`).
- The API's base URL is `HZ_GITHUB_API` (default https://api.github.com): https, or plain http to a
  loopback host only, as for git remotes (`hz.gitstate.remote_spec`), and with no user information:
  the token has its own variable.
- The repository is `GITHUB_REPOSITORY` (Actions sets it), else `[forge] repo = "owner/name"` in
  `hz.toml`, else read from the team remote's URL when it is on github.com (`https://github.com/o/r`,
  `ssh://git@github.com/o/r.git`, `git@github.com:o/r.git`). A value that was given but is malformed is
  an error, not a silent "no forge"; a remote elsewhere simply means no forge.

The shapes callers use (`PullRequest`, `Forge`, `ForgeError`) and the pull request's text
(`pull_text`) are re-exported here, so `hz.review.forge` is the one import.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hz.errors import ConfigError
from hz.gitenv import git_env
from hz.gitstate.remote_spec import refusal
from hz.gitstate.settings import load_state_settings, read_hz_toml
from hz.review.forge_text import draft_key_in, marker, pull_text
from hz.review.forge_types import Forge, ForgeError, PullRequest

__all__ = ["Forge", "ForgeError", "PullRequest", "api_base", "draft_key_in", "forge_for", "marker", "pull_text",
           "repository"]  # fmt: skip

TomlTable = Mapping[str, Any]
DEFAULT_API = "https://api.github.com"
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_NAME = r"[A-Za-z0-9._-]{1,100}"
_REPO = re.compile(rf"({_OWNER})/({_NAME})")
# https://[user@]github.com/o/r[.git][/], ssh://git@github.com[:22]/o/r[.git], git@github.com:o/r[.git]
_GITHUB_URL = re.compile(rf"^(?:https|ssh|git\+ssh)://(?:[^@/]*@)?github\.com(?::\d+)?/({_OWNER}/{_NAME})/?$", re.I)
_GITHUB_SCP = re.compile(rf"^(?:[A-Za-z0-9._-]+@)?github\.com:/?({_OWNER}/{_NAME})/?$", re.I)
_REPO_HINT = 'set GITHUB_REPOSITORY=owner/name or write [forge] repo = "owner/name" in hz.toml'


def forge_for(repo_root: Path, environ: Mapping[str, str], document: TomlTable | None = None) -> Forge | None:
    """The GitHub adapter for this repository's team, or None without a token or a known repository.
    `document`: the hz.toml whose `[forge]` counts (main's, hz.gitstate.main_toml), else the work tree's."""
    token = environ.get("GITHUB_TOKEN", "")
    if not token:
        return None
    name = repository(repo_root, environ, document)
    if name is None:
        return None
    from hz.review.forge_github import GitHubForge  # the HTTP client loads only when there is a forge

    return GitHubForge.connect(api_base(environ), name, token, environ)


def api_base(environ: Mapping[str, str]) -> str:
    """`HZ_GITHUB_API` checked (https, or http to loopback; no credentials, query or fragment), no trailing /."""
    base = environ.get("HZ_GITHUB_API") or DEFAULT_API
    why = _base_refusal(base)
    if why is not None:
        shown = repr(base if len(base) <= 80 else base[:77] + "...")
        raise ConfigError(
            f"HZ_GITHUB_API {shown if '@' not in base else '(hidden)'} is refused: {why}",
            hint="use https://api.github.com, your GitHub Enterprise API URL, or http://127.0.0.1:<port> for a test",
        )
    return base.rstrip("/")


def _base_refusal(base: str) -> str | None:
    scheme = base.split("://", 1)[0].lower() if "://" in base else ""
    if scheme not in ("https", "http"):
        return "it is not an https URL"
    why = refusal(base)  # the remote rule: a real host name, and plain http to a loopback host only
    if why is not None:
        return why
    parts = urlsplit(base)
    if "@" in parts.netloc:
        return "it holds user information; the token belongs in GITHUB_TOKEN"
    if parts.query or parts.fragment:
        return "it has a query or a fragment"
    return None


def repository(repo_root: Path, environ: Mapping[str, str], document: TomlTable | None = None) -> str | None:
    """`owner/name` of the team's GitHub repository (see the module's docstring), or None."""
    given = environ.get("GITHUB_REPOSITORY", "")
    if given:
        return _checked(given, "GITHUB_REPOSITORY")
    configured = _configured_repo(repo_root, document)
    if configured is not None:
        return configured
    url = _remote_url(repo_root, load_state_settings(repo_root).remote)
    return None if url is None else from_remote_url(url)


def from_remote_url(url: str) -> str | None:
    """`owner/name` of a github.com remote URL, None for any other remote."""
    found = _GITHUB_URL.match(url.strip()) or _GITHUB_SCP.match(url.strip())
    if found is None:
        return None
    name = found.group(1).removesuffix(".git")
    return name if _REPO.fullmatch(name) and not name.endswith(("/.", "/..")) else None


def _checked(value: str, origin: str) -> str:
    if not _REPO.fullmatch(value) or value.endswith(("/.", "/..")):
        shown = repr(value if len(value) <= 80 else value[:77] + "...")
        raise ConfigError(f"{origin} {shown} is not owner/name of a GitHub repository", hint=_REPO_HINT)
    return value


def _configured_repo(root: Path, given: TomlTable | None = None) -> str | None:
    document = given if given is not None else (read_hz_toml(root) or {})
    table = document.get("forge", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{root / 'hz.toml'}: forge must be a table", hint=_REPO_HINT)
    unknown = sorted(set(table) - {"repo"})
    if unknown:
        raise ConfigError(f"{root / 'hz.toml'}: unknown key forge.{unknown[0]}", hint="known keys: repo")
    value = table.get("repo")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{root / 'hz.toml'}: forge.repo must be a string", hint=_REPO_HINT)
    return _checked(value, f"{root / 'hz.toml'} [forge] repo")


def _remote_url(root: Path, remote: str) -> str | None:
    """The URL of `remote`: itself when it is a URL or scp-like, else the configured URL of that name."""
    if "://" in remote or (":" in remote and "/" not in remote.split(":", 1)[0]):
        return remote
    done = subprocess.run(
        ["git", "-C", str(root), "config", "--get", f"remote.{remote}.url"],
        capture_output=True, text=True, env=git_env(), check=False,
    )  # fmt: skip
    url = done.stdout.strip() if done.returncode == 0 else ""
    return url or None
