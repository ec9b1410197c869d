"""`basra-table serve` as a user runs it: a real uvicorn on 127.0.0.1 and a free port.

A second process (this test) referees a match into the same SQLite file; the server's
WebSocket must stream those events, and writes must need the token it printed once.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time

import httpx
import pytest
from websockets.sync.client import connect

from controller.store import Store
from controller.table import Table
from controller.turns import Snapshot


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(db, port):
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("API docs:"):
            return proc, lines
    proc.kill()
    raise AssertionError("serve did not start:\n" + "\n".join(lines) + proc.stderr.read())


@pytest.fixture
def server(tmp_path):
    db = tmp_path / "venue.db"
    port = free_port()
    proc, lines = start_serve(db, port)
    yield db, port, proc, lines
    proc.terminate()
    proc.wait(timeout=10)


def test_serve_prints_the_token_once_and_keeps_only_its_digest(server, tmp_path):
    db, port, proc, lines = server
    assert lines[0] == f"created venue database {db}"
    url = next(x for x in lines if x.startswith("dashboard: "))
    assert url.startswith(f"dashboard: http://127.0.0.1:{port}/#token=")
    token = url.split("#token=")[1]
    token_file = tmp_path / "venue.db.token"
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    assert token not in token_file.read_text()
    proc.terminate()
    proc.wait(timeout=10)
    # A second start on the same database does not show the token again.
    port2 = free_port()
    proc2, lines2 = start_serve(db, port2)
    try:
        assert not any(token in x for x in lines2)
        assert any("the one shown when" in x for x in lines2)
        r = httpx.post(
            f"http://127.0.0.1:{port2}/api/matches",
            json={},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 201  # the old token still works
    finally:
        proc2.terminate()
        proc2.wait(timeout=10)


def test_websocket_streams_events_written_by_another_process(server):
    db, port, _, lines = server
    token = next(x for x in lines if x.startswith("dashboard: ")).split("#token=")[1]
    base = f"http://127.0.0.1:{port}"
    assert httpx.get(f"{base}/api/health").json()["status"] == "ok"
    r = httpx.post(f"{base}/api/matches", json={"seat_names": ["Rami", "Huda"]})
    assert r.status_code == 401 and r.json()["error"].startswith("missing bearer token")
    r = httpx.post(
        f"{base}/api/matches",
        json={"seat_names": ["Rami", "Huda"], "table_id": "t1"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201, r.text
    mid = r.json()["id"]

    store = Store(db)  # the controller: another process's view of the same file
    table = Table("classic", 2, 0, match_id=mid, subscribers=[store.append])
    floors = [
        ["9C", "5H", "4S", "KD"],  # R1.2 initial floor
        ["9C", "5H", "4S", "KD", "9D"],
        ["KD"],  # 9D takes 9C and 5H+4S (R2.2)
    ]
    with connect(f"ws://127.0.0.1:{port}/api/matches/{mid}/ws") as ws:
        hello = json.loads(ws.recv(timeout=10))
        assert hello["type"] == "state"
        assert [e["type"] for e in hello["events"]] == ["match_started"]
        seen = [e["type"] for e in hello["events"]]
        for i, floor in enumerate(floors):
            table.feed_snapshot(Snapshot(t=float(i + 1), floor=frozenset(floor)))
        state = None
        deadline = time.monotonic() + 10
        while "turn" not in seen and time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=10))
            seen += [e["type"] for e in msg["events"]]
            state = msg["state"]
    # (the controller may also log the laid 9D as it waits for the scoop: `card_laid`)
    assert [x for x in seen if x != "card_laid"] == ["match_started", "round_started", "turn"]
    s = state["summary"]
    assert s["floor"] == ["KD"] and s["to_play"] == 0
    assert s["last_verdict"]["takes"] == ["4S", "5H", "9C"]
    store.close()


def _other_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("198.51.100.1", 9))  # a UDP connect sends no packet
            addr = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") else addr


def test_serve_listens_on_loopback_only(server):
    _, port, _, _ = server
    assert httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 200
    addr = _other_address()
    if addr is None:
        pytest.skip("this machine has no non-loopback address to try")
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://{addr}:{port}/api/health", timeout=2)


def test_serve_refuses_a_busy_port_and_a_bad_database(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "controller.cli", "serve", "--db", str(tmp_path / "v.db"),
             "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    assert len(r.stderr.strip().splitlines()) == 1
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database " * 100)
    r = subprocess.run(
        [sys.executable, "-m", "controller.cli", "serve", "--db", str(bad),
         "--port", str(free_port())],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2
    assert "is not a basra-table database" in r.stderr
