"""The web head's secrets: one token in `$HZ_HOME/web/token`, one-time login codes, cookies, CSRF tokens.

The token (32 random bytes, 0600, written atomically) is what REST clients send as `Authorization: Bearer`.
A browser never holds it: `hz serve` prints a login URL with a one-time code (a file under
`$HZ_HOME/web/logins/` named by the code's hash; unlinking it is what spends it, so two requests with the
same code cannot both win, even from two processes), and the server answers with a session cookie. The
cookie and the CSRF token are HMACs of the token, so they outlive a restart of the server and die
together with the token (`hz serve --new-token`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from hz.fsio import atomic_write, private_dir, read_own

WEB = "web"
TOKEN_FILE = "token"
LOGINS = "logins"
LOGIN_TTL_S = 15 * 60  # a printed login URL works once, within a quarter of an hour
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")  # token_urlsafe(32)
_CODE = re.compile(r"^[A-Za-z0-9_-]{22,64}$")


@dataclass(frozen=True)
class Keys:
    """What the server derives from the token; `token` itself only ever meets `hmac.compare_digest`."""

    token: str
    folder: Path

    @property
    def session(self) -> str:
        return self._derive("session")

    def csrf(self) -> str:
        return self._derive("csrf")

    def _derive(self, purpose: str) -> str:
        return hmac.new(self.token.encode(), purpose.encode(), hashlib.sha256).hexdigest()

    def bearer_ok(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self.token.encode())

    def cookie_ok(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self.session.encode())

    def csrf_ok(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self.csrf().encode())

    def mint_login(self, now: float | None = None) -> str:
        """A new one-time login code, kept as the hash of the code with its expiry."""
        moment = now if now is not None else time.time()
        self._forget_expired(moment)
        code = secrets.token_urlsafe(24)
        atomic_write(self._login_path(code), str(int(moment + LOGIN_TTL_S)))
        return code

    def _forget_expired(self, now: float) -> None:
        """Codes printed and never used would pile up, one per start of the server: gone once expired."""
        folder = self.folder / LOGINS
        if not folder.is_dir() or folder.is_symlink():
            return
        for name in os.listdir(folder):
            raw = read_own(folder / name, 32) if re.fullmatch(r"[0-9a-f]{64}", name) else None
            try:
                expired = raw is not None and int(raw.decode("ascii")) <= now
            except ValueError:
                expired = True
            if expired:
                (folder / name).unlink(missing_ok=True)

    def spend_login(self, code: str, now: float | None = None) -> bool:
        """True once for a code that was minted and has not expired; the code is gone afterwards."""
        if not _CODE.match(code):
            return False
        path = self._login_path(code)
        raw = read_own(path, 32)
        try:
            os.unlink(path)  # only one request unlinks it: the others find it gone
        except OSError:
            return False
        try:
            expires = int((raw or b"").decode("ascii"))
        except ValueError:
            return False
        return (now if now is not None else time.time()) < expires

    def _login_path(self, code: str) -> Path:
        return self.folder / LOGINS / hashlib.sha256(code.encode()).hexdigest()


def load_keys(home: Path, *, renew: bool = False) -> Keys:
    """The token of this home, minted on first use (or anew with `renew`, which logs every browser out)."""
    folder = private_dir(home / WEB)
    path = folder / TOKEN_FILE
    found = read_own(path, 128)
    token = found.decode("ascii", errors="replace").strip() if found is not None else ""
    if renew or not _TOKEN.match(token):
        token = secrets.token_urlsafe(32)
        atomic_write(path, token + "\n")
        _clear_logins(folder)
    return Keys(token, folder)


def _clear_logins(folder: Path) -> None:
    logins = folder / LOGINS
    if logins.is_dir() and not logins.is_symlink():
        for name in os.listdir(logins):
            if re.fullmatch(r"[0-9a-f]{64}", name):
                (logins / name).unlink(missing_ok=True)
