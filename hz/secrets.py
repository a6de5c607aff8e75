"""Which values in the environment are secrets, and scrubbing them out of text before it travels.

A secret is the value of a variable whose name says it holds one (`GITHUB_TOKEN`, `JIRA_TOKEN`,
`OPENAI_API_KEY`, anything ending in `_TOKEN`, `_KEY`, `_SECRET`, `_PASSWORD`, or naming SECRET or
PASSWORD, and any variable hz's settings name as holding a key, such as `api_key_env = "MY_LLM"`), the
credential in a URL held in any variable or given to hz as a git remote (its password, or a lone user
part, which is how a token is written: `https://<token>@host`), and the Basic credentials an HTTP
client builds from such a URL, from `JIRA_USER` and `JIRA_TOKEN`, or from the workflow token as git's
checkout header carries it (a hostile server that echoes the `Authorization` header sends those back).
A token is also looked for as a URL writes it (%-escaped), since servers quote it back inside links;
other encodings are not, since only a server bent on it writes those, and it holds the token already.
`JIRA_USER` itself is not a secret: it says who, not how to get in. Values shorter than `MIN_LENGTH`
are left alone: scrubbing "1" or "true" would mangle every text and protect nothing.

Scrubbing replaces each secret by `[redacted]` and drops the userinfo (`user:pass@`) of every URL. It
runs at the boundaries where text leaves hz's hands: errors and crash logs, prompts, turn bodies,
source records and the environment of a runner CLI. The pattern for one set of values is compiled once.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hz.errors import HzError

REDACTED = "[redacted]"
MIN_LENGTH = 8
_SUFFIXES = ("_TOKEN", "_KEY", "_APIKEY", "_SECRET", "_PASSWORD", "_PASSWD", "_PAT", "_CREDENTIALS")
_WORDS = ("SECRET", "PASSWORD")
# proxies keep their credentials when the environment is passed on: a runner CLI may need one to go out
PROXIES = frozenset({"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"})

# `://userinfo@`: greedy up to the last `@` of the authority, since people write `p@ss` unescaped. The
# literal start lets the search skip ahead to each `://` (measured: 1 ms per MB, a scheme pattern took 14).
_USERINFO = re.compile(r"://[^/?#\s\"'<>\\]*@")
_USERINFO_BYTES = re.compile(rb"://[^/?#\s\"'<>\\]*@")


# Variables the user's settings name as holding a key, whatever they are called (`count_as_secret`).
_NAMED: set[str] = set()


def count_as_secret(*names: str) -> None:
    """From now on in this process, the variables `names` hold secrets (a runner's `api_key_env`).

    A process-wide set rather than a parameter: the settings that name the variable are read once, where
    the runner is built, while text is scrubbed at many boundaries that never see those settings."""
    _NAMED.update(names)


# Credentials of URLs hz was given outside the environment: a remote in hz.toml, --remote, a git remote's
# configured URL (`count_url_credentials`). git sends them, and a hostile server may echo them back.
_GIVEN: set[str] = set()


def count_url_credentials(url: str) -> None:
    """From now on in this process, the credential in `url` (if any) and its Basic form are secrets."""
    _GIVEN.update(_url_credentials(url))


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return name in _NAMED or upper.endswith(_SUFFIXES) or any(word in upper for word in _WORDS)


def redact_url(url: str) -> str:
    """`url` without its userinfo: `https://user:tok@host/x` -> `https://host/x`; anything else as it is."""
    return _USERINFO.sub("://", url)


def secret_values(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The secret values in `environ`, longest first (so a longer secret wins over a part of it)."""
    found: set[str] = set(_GIVEN)
    for name, value in environ.items():
        if is_secret_name(name):
            found.update((value, *_url_escaped(value)))
        found.update(_url_credentials(value))
    user, token = environ.get("JIRA_USER"), environ.get("JIRA_TOKEN")
    if user and token:
        found.add(_basic(user, token))
    # actions/checkout hands git the workflow's token as `AUTHORIZATION: basic <x-access-token:token>`
    found.update(_basic("x-access-token", environ[n]) for n in _GIT_TOKENS if len(environ.get(n, "")) >= MIN_LENGTH)
    return tuple(sorted((v for v in found if len(v) >= MIN_LENGTH), key=lambda v: (-len(v), v)))


_GIT_TOKENS = ("GITHUB_TOKEN", "GH_TOKEN")
_URL_SAFE = re.compile(r"[A-Za-z0-9_.~-]*")


def _url_escaped(value: str) -> tuple[str, ...]:
    """How a URL writes a token (`a/b+c` as `a%2Fb%2Bc`, the slash escaped or kept): servers quote it back
    inside the links they answer with. Other encodings (base64 of the bare token, hex) are left alone:
    only a server bent on it writes those, and that server holds the token already."""
    if _URL_SAFE.fullmatch(value):
        return ()
    from urllib.parse import quote

    return tuple({quote(value, safe=""), quote(value, safe="/")} - {value})


def _url_credentials(value: str) -> Iterable[str]:
    """The credential of a URL with userinfo as written and decoded, and the Basic credential made of it."""
    if "://" not in value or "@" not in value:
        return ()
    from urllib.parse import unquote, urlsplit  # only for the rare value that holds a credential

    try:
        parts = urlsplit(value.strip())
        user, password = parts.username or "", parts.password
    except ValueError:
        return ()
    if password is None:  # `https://<token>@host`: the user part is the credential
        user, password = "", user
    plain = unquote(password)  # a client sends the decoded form; the URL's text may hold %-escapes
    if len(plain) < MIN_LENGTH:  # `git@`, `x:@`: no credential, and its Basic form would be noise
        return ()
    return (password, plain, *_url_escaped(plain), _basic(unquote(user), plain) if user else _basic(plain, ""))


def _basic(user: str, password: str) -> str:
    import base64

    return base64.b64encode(f"{user}:{password}".encode()).decode()


class Secrets:
    """One set of secret values and the patterns that find them in text, bytes and JSON."""

    __slots__ = ("_bytes", "_text", "values")

    def __init__(self, values: tuple[str, ...], text: re.Pattern[str] | None, data: re.Pattern[bytes] | None) -> None:
        self.values = values
        self._text = text
        self._bytes = data

    def scrub(self, text: str) -> str:
        if self._text is not None:
            text = self._text.sub(REDACTED, text)
        return _USERINFO.sub("://", text) if "://" in text else text

    def scrub_bytes(self, data: bytes) -> bytes:
        """For UTF-8 text and JSON: each secret is found as JSON writes it, so JSON stays valid."""
        if self._bytes is not None:
            data = self._bytes.sub(REDACTED.encode(), data)
        return _USERINFO_BYTES.sub(b"://", data) if b"://" in data else data

    def scrub_value(self, value: Any) -> Any:
        """A JSON-like value with every string in it (keys too) scrubbed."""
        return _each_string(value, self.scrub)

    def redact(self, text: str) -> str:
        """`text` with each secret value replaced and its URLs left whole: for what a model wrote, where
        `ssh://git@host/x` may be meant and any credential of the environment is a secret value anyway."""
        return self._text.sub(REDACTED, text) if self._text is not None else text

    def redact_value(self, value: Any) -> Any:
        return _each_string(value, self.redact)


class TooDeep(HzError):
    """A JSON-like value nested deeper than `MAX_DEPTH`: no answer or outcome hz reads is shaped so."""


# GitHub's answers nest about 6 levels, Jira's rich text a few dozen; a value deeper than this is built to
# hurt (a 1.2 KB answer can nest 600 levels), and is refused rather than walked.
MAX_DEPTH = 256


def _each_string(value: Any, change: Callable[[str], str]) -> Any:
    """`value` rebuilt with `change` applied to every string, keys too; a loop, not recursion, so no
    nesting can exhaust the stack, and a nesting past MAX_DEPTH is a TooDeep error."""
    if isinstance(value, str):
        return change(value)
    if not isinstance(value, Mapping | list | tuple):
        return value
    root = _empty(value)
    stack: list[tuple[Any, Any, int]] = [(value, root, 1)]
    while stack:
        source, target, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise TooDeep(f"a value nested more than {MAX_DEPTH} levels deep was refused")
        pairs = source.items() if isinstance(source, Mapping) else enumerate(source)
        for key, item in pairs:
            if isinstance(item, str):
                new: Any = change(item)
            elif isinstance(item, Mapping | list | tuple):
                new = _empty(item)
                stack.append((item, new, depth + 1))
            else:
                new = item
            if isinstance(target, dict):
                target[change(str(key))] = new
            else:
                target.append(new)
    return root


def _empty(container: Any) -> dict[str, Any] | list[Any]:
    return {} if isinstance(container, Mapping) else []


def secrets_of(environ: Mapping[str, str] = os.environ) -> Secrets:
    return _compiled(secret_values(environ))


@functools.lru_cache(maxsize=16)
def _compiled(values: tuple[str, ...]) -> Secrets:
    if not values:
        return Secrets(values, None, None)
    text = re.compile("|".join(re.escape(v) for v in values))
    # Bytes are searched for each secret as JSON writes it inside a string, which is the plain form for
    # any ordinary token; a secret holding a quote, a backslash or a control character is looked for in
    # its escaped form only, so a match never spans JSON's own punctuation.
    ordered = sorted({_json_escaped(v) for v in values}, key=lambda f: (-len(f), f))
    return Secrets(values, text, re.compile(b"|".join(re.escape(f) for f in ordered)))


# How JSON writers (orjson, json with ensure_ascii=False) write a character inside a string; built here
# rather than by importing json, which an idle `hz tick` never loads.
_JSON_ESCAPES = {
    **{c: f"\\u{c:04x}" for c in range(0x20)},
    **{0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"},
}


def _json_escaped(value: str) -> bytes:
    return value.translate(_JSON_ESCAPES).encode()


def scrub(text: str, environ: Mapping[str, str] = os.environ) -> str:
    """`text` with every secret of `environ` replaced by `[redacted]` and no userinfo in its URLs."""
    return secrets_of(environ).scrub(text)


def without_secrets(environ: Mapping[str, str], keep: Iterable[str] = ()) -> dict[str, str]:
    """`environ` for a child process: no secret-named variable but those in `keep`, and no URL credentials
    in other values (proxies excepted: the child may need one to reach its own service)."""
    kept = frozenset(keep)
    out: dict[str, str] = {}
    for name, value in environ.items():
        if name in kept:
            out[name] = value
        elif is_secret_name(name):
            continue
        elif name.upper() in PROXIES or "@" not in value:
            out[name] = value
        else:
            out[name] = redact_url(value)
    return out
