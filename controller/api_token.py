"""The referee's bearer token: created once per venue database, kept beside it, mode 0600.

Only a SHA-256 digest is written to disk (`VENUE.db.token`), so the plain token exists only
in the one message that shows it at first start; delete the file to issue a new token.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from controller.errors import UserError

_PREFIX = "sha256:"


def token_path(db_path: str | Path) -> Path:
    """Where the token digest for a database lives: beside it, `<db>.token`."""
    p = Path(db_path)
    return p.with_name(p.name + ".token")


def _digest(token: str) -> str:
    return _PREFIX + hashlib.sha256(token.encode()).hexdigest()


def load_or_create(db_path: str | Path) -> tuple[str, str | None]:
    """Return (digest, new_token): new_token is the plain token when it was just created
    (show it once), None when the file already existed."""
    path = token_path(db_path)
    if path.exists():
        text = path.read_text().strip()
        if not text.startswith(_PREFIX) or len(text) != len(_PREFIX) + 64:
            raise UserError(f"{path} is not a basra-table token file (delete it to make a new one)")
        return text, None
    token = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(_digest(token) + "\n")
    return _digest(token), token


def check(digest: str, presented: str | None) -> bool:
    """Whether a presented bearer token matches the stored digest (constant-time)."""
    if not presented:
        return False
    return hmac.compare_digest(_digest(presented), digest)
