"""How the tests start Debian's Chromium (its path and the flags for a closed network), and
the venue a dashboard test serves: a real SQLite store with its referee token, a free port.

Shared by the dashboard tests; the browser is never downloaded.
"""

from __future__ import annotations

import shutil
import socket

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    """A port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def venue(tmp_path):
    """(store, token digest, token) of a fresh venue database; skips without Chromium."""
    import pytest

    from controller import api_token
    from controller.store import Store

    if not shutil.which(CHROMIUM):
        pytest.skip("Debian chromium is not installed")
    store = Store(tmp_path / "venue.db")
    digest, token = api_token.load_or_create(tmp_path / "venue.db")
    return store, digest, token
