"""The environment of every git process hz starts: the transports git may use, and no prompts.

`GIT_ALLOW_PROTOCOL` is git's own allow-list of transports, and it overrides `protocol.<name>.allow` in
any configuration. With it, no remote string, configured URL, `insteadOf` rewrite, submodule or
partial-clone fetch can reach a transport that runs a command (`ext::`, `fd::`, or a
`git-remote-<scheme>` helper on PATH). The list is the transports of a real team remote. Plain http
stays on the list because it runs no command, and a configured remote of the member's own may use it
(a local mirror, the tests' loopback server); a remote that comes from `hz.toml` or `--remote` may use
http only to a loopback host (`hz.gitstate.remote_spec`). When the user already set a narrower list,
theirs is kept: hz only ever removes transports.

`GIT_CONFIG_NOSYSTEM` is left alone on purpose: the system configuration may hold the credential
helper and proxy the member needs to reach the remote at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ALLOWED_PROTOCOLS = ("file", "git", "http", "https", "ssh")


def git_env(environ: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """A copy of `environ` (default: this process's) for a git subprocess, with `extra` set on top."""
    env = dict(os.environ if environ is None else environ)
    env.update(extra)
    env["GIT_ALLOW_PROTOCOL"] = allowed_protocols(env.get("GIT_ALLOW_PROTOCOL"))
    env["GIT_TERMINAL_PROMPT"] = "0"  # a daemon must never wait for a password
    return env


def allowed_protocols(users: str | None) -> str:
    """hz's transports, narrowed to the user's own list when they set one."""
    if users is None:
        return ":".join(ALLOWED_PROTOCOLS)
    theirs = set(users.split(":"))
    return ":".join(p for p in ALLOWED_PROTOCOLS if p in theirs)
