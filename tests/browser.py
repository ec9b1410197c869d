"""How the tests start Debian's Chromium: its path and the flags for a closed network.

Shared by the dashboard tests; the browser is never downloaded.
"""

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
