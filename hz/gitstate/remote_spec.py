"""Which remote strings hz hands to git, and how a remote URL is shown without its credentials.

A remote comes from text anyone on the team can change (`[state] remote` of a committed `hz.toml`) or
from the command line, and git reads a word that starts with `-` as an option (`--upload-pack=<cmd>`
runs a command) and a `<transport>::<address>` word as a remote helper (`ext::<cmd>` runs one too). So
a remote is accepted only in one of the shapes people write for a real remote:

- a remote name configured in the repository (`origin`), or any other plain relative path,
- a URL of an allowed scheme: https, ssh (also `git+ssh`, `ssh+git`), git, file; plain http only to a
  loopback host (a test or a local mirror: cleartext elsewhere would expose the credentials it sends),
- scp-like ssh, `[user@]host:path`,
- a filesystem path (absolute, `./…`, `../…`, `~/…`, or a relative one without a colon); from a
  committed `hz.toml`, not one inside the repository (`check_committed_remote`).

Anything else is refused before git runs. This is the first of three layers: git also gets the remote
after `--` (so even a word that slipped through is never an option) and `GIT_ALLOW_PROTOCOL` in its
environment (so no remote, configured or not, reaches a command-running transport); see `hz.gitenv`.
"""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

from hz.errors import ConfigError
from hz.gitenv import git_env

_SCHEMES = frozenset({"https", "ssh", "git+ssh", "ssh+git", "git", "file"})  # git+ssh, ssh+git: git's aliases of ssh
_LOOPBACK_NAMES = {"localhost"}
_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_REMOTE_NAME = re.compile(rf"^{_NAME}$")
_HOST = re.compile(rf"^(?:{_NAME}|\[[0-9A-Fa-f:.]+\])$")
# git's own test for "scp-like": a colon and no slash before it (connect.c, url_is_local_not_ssh)
# (ssh reads a host, user or path that starts with `-` as an option; git refuses one, and so does hz)
_SCP = re.compile(rf"^(?:{_NAME}@)?(?:{_NAME}|\[(?:{_NAME}@)?[0-9A-Za-z:][^\]/@]*\]):(?!-).*$", re.DOTALL)
# git runs `git-remote-<transport>` for `<transport>::<address>` (transport.c, transport_get)
_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*@")

HINT = "name a remote of this repository (git remote -v), an https, ssh, git or file URL, user@host:path, or a path"


class RemoteRefused(ConfigError):
    """A remote string that hz will not hand to git."""


def check_remote(text: str, origin: str) -> str:
    """`text` unchanged when it is a remote hz may use; otherwise RemoteRefused naming `origin`."""
    why = refusal(text)
    if why is not None:
        raise RemoteRefused(f"{origin}: the remote {_shown(text)} is refused: {why}", hint=HINT)
    return text


def check_committed_remote(root: Path, text: str, origin: str) -> str:
    """`check_remote`, and for a remote from a committed file: not a path inside the repository.

    Pushing to a local path runs that repository's hooks, and a commit can add a bare repository whose
    `hooks/pre-receive` is executable, so `remote = "planted.git"` would run the planter's command on
    every member's push. A remote name configured here wins over a path of the same name, as in git.
    """
    check_remote(text, origin)
    if _through_process(root, text):
        why = "it is a path through /proc or /dev, which names another place to git than to hz"
        raise RemoteRefused(f"{origin}: the remote {_shown(text)} is refused: {why}", hint=HINT)
    if _inside(root, text) and not _configured(root, text):
        why = "it is a path inside this repository, where a commit could plant a repository whose hooks a push runs"
        raise RemoteRefused(f"{origin}: the remote {_shown(text)} is refused: {why}", hint=HINT)
    return text


_PROCESS_TREES = ("/proc", "/dev")  # `/proc/self/cwd` is git's working directory to git, hz's to hz


def _through_process(root: Path, text: str) -> bool:
    """Whether a local path of `text` goes through /proc or /dev, as written or after links: git runs in
    the repository (`-C`), so `/proc/self/cwd/planted.git` is the planted repository to git while hz,
    run from elsewhere (a daemon), resolved it to somewhere harmless."""
    for path in _local_paths(text):
        joined = os.path.normpath(os.path.join(os.path.abspath(root), path))
        try:
            real = os.path.realpath(joined)
        except OSError:
            return True
        if any(w == top or w.startswith(top + "/") for w in (joined, real) for top in _PROCESS_TREES):
            return True
    return False


def _inside(root: Path, text: str) -> bool:
    """Whether any path git may open for `text` lies in the repository, as written or after links.

    Git ignores the host of a `file://host/path` URL and decodes its escapes, and for a local path it
    tries `<path>`, `<path>.git`, `<path>/.git` and `<path>.git/.git` in turn; a committed link can make
    one spelling point away while git opens another, so every one of them must stay out.
    """
    bases = {os.path.abspath(root), os.path.realpath(root)}
    for path in _local_paths(text):
        for spelling in (path, path + ".git", path + "/.git", path + ".git/.git"):
            joined = os.path.join(os.path.abspath(root), spelling)
            try:
                real = os.path.realpath(joined)
            except OSError:  # a link that changed while it was followed: fail closed
                return True
            for where in (os.path.normpath(joined), real):
                if any(where == base or where.startswith(base.rstrip("/") + "/") for base in bases):
                    return True
    return False


def _local_paths(text: str) -> list[str]:
    """The paths git may read `text` as when it names a local repository; none for a remote one."""
    if text[:7].lower() == "file://":
        rest = unquote(text[7:])  # git decodes a URL before it splits it
        return [rest, *(rest[at:] for at, char in enumerate(rest) if char == "/")]  # any host git skips
    if "://" in text or _HELPER.match(text) or _scp_like(text):
        return []
    return [text]


def _configured(root: Path, name: str) -> bool:
    if not _REMOTE_NAME.match(name):
        return False
    done = subprocess.run(["git", "-C", str(root), "config", "--get", f"remote.{name}.url"],
                          capture_output=True, env=git_env(), check=False)  # fmt: skip
    return done.returncode == 0


def remote_option(ctx: object, param: object, value: str | None) -> str | None:
    """The click callback of `--remote`: the value is checked where it enters (an HzError, exit 1)."""
    return None if value is None else check_remote(value, "--remote")


def refusal(text: str) -> str | None:
    """Why `text` is not an acceptable remote, or None when it is."""
    if not text:
        return "it is empty"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "it contains a control character (a newline, NUL or the like)"
    if text.startswith("-"):
        return "it starts with '-', which git would read as an option"
    if _HELPER.match(text):
        return "the '<transport>::<address>' form runs a git remote helper"
    if "://" in text:
        return _url_refusal(text)
    if _scp_like(text):
        return _scp_refusal(text)
    return None  # a remote name or a path: git takes it as a local repository or a configured remote


def _scp_like(text: str) -> bool:
    colon, slash = text.find(":"), text.find("/")
    return colon != -1 and (slash == -1 or colon < slash)


def _scp_refusal(text: str) -> str | None:
    if _SCP.match(text) is None:
        return "it is neither a URL, user@host:path nor a path (a colon before any slash means ssh to git)"
    return None


def _url_refusal(text: str) -> str | None:
    scheme = text.split("://", 1)[0].lower()
    if scheme == "http":
        return None if _loopback(text) else "plain http is allowed to a loopback host only; use https"
    if scheme not in _SCHEMES:
        return f"the scheme {scheme!r} is not one of https, ssh, git, file"
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (a port that is no number raises here: `ssh://host:-p/x`)
    except ValueError as exc:
        return f"it is not a well-formed URL ({exc})"
    if (host or scheme != "file") and not _HOST.match(_bracketed(host)):
        return f"{parts.netloc.rpartition('@')[2]!r} is not a host name"
    if unquote(parts.username or "").startswith("-"):
        return "its user starts with '-', which ssh would read as an option"
    return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _loopback(text: str) -> bool:
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:
        return False
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redact_url(url: str) -> str:
    """`url` with the user information of a `scheme://user:secret@host/…` URL left out."""
    return redact_text(url)


def redact_text(text: str, *urls: str) -> str:
    """`text` (git's stderr, a message) with the user information of every URL in it left out.

    `urls` are the remotes the text is about: git can echo their user information without the scheme
    (`unable to look up user:secret@host`), so that is cut out wherever it appears.
    """
    text = _USERINFO.sub(r"\g<scheme>", text)
    for url in urls:
        for secret in _userinfo(url):
            text = text.replace(secret + "@", "").replace(secret, "")
    return text


def _userinfo(url: str) -> tuple[str, ...]:
    """The user information of `url` as written and percent-decoded; none for a URL without it."""
    _, sep, rest = url.partition("://")
    info, at, _host = rest.split("/", 1)[0].rpartition("@")
    if not (sep and at and info):
        return ()
    return tuple(dict.fromkeys((info, unquote(info))))


def _shown(text: str) -> str:
    """The refused remote for an error message: quoted, escapes visible, no credentials, bounded."""
    shown = repr(redact_text(text))
    return shown if len(shown) <= 120 else shown[:117] + "..."
