"""Store and API figures: durable append latency, state rebuild time, WebSocket delivery delay.

Run: `python benchmarks/store.py` (about 20 s). Prints one line per figure; `--json` prints a dict.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller import api_token  # noqa: E402
from controller.api import create_app  # noqa: E402
from controller.api_state import StateCache  # noqa: E402
from controller.cli_demo import _Server  # noqa: E402
from controller.events import Event  # noqa: E402
from controller.live_tables import LiveTables  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.turns import Snapshot  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "table_script", ROOT / "tests" / "data" / "store" / "table_script.py"
)
table_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(table_script)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def append_latency(folder: Path, sync: str, n: int = 300) -> dict:
    store = Store(folder / f"append-{sync}.db")
    store._db.execute(f"PRAGMA synchronous={sync}")
    m = store.create_match()
    times = []
    for i in range(1, n + 1):
        ev = Event(i, m.id, "turn", float(i), {"card": "9D", "takes": ["4S", "5H", "9C"]})
        t0 = time.perf_counter()
        store.append(ev)
        times.append((time.perf_counter() - t0) * 1000)
    store.close()
    return {"median_ms": round(statistics.median(times), 3), "p95_ms": round(pct(times, 0.95), 3)}


def played_match(folder: Path, rounds: int) -> tuple[Store, str, list]:
    store = Store(folder / f"match{rounds}.db")
    live = LiveTables(store)
    info = store.create_match("classic", 2, ["Rami", "Huda"], dealer=0)
    live.open(info)
    snaps, _ = table_script.play_script("classic", 2, 0, seed=3, rounds=rounds)
    for t, floor in snaps:
        live.feed_snapshot(info.id, Snapshot(t=t, floor=frozenset(floor)))
    return store, info.id, snaps


def state_rebuild(folder: Path, rounds: int) -> dict:
    store, mid, _ = played_match(folder, rounds)
    n = store.last_event_id(mid)
    times = []
    for _ in range(5):
        cache = StateCache(store)
        t0 = time.perf_counter()
        cache.get(mid)
        times.append((time.perf_counter() - t0) * 1000)
    store.close()
    return {"events": n, "median_ms": round(statistics.median(times), 1)}


def ws_delay(folder: Path, turns: int = 40) -> dict:
    """Time from a step's events being durable to a WebSocket client holding them."""
    from websockets.sync.client import connect

    store = Store(folder / "ws.db")
    digest, _ = api_token.load_or_create(folder / "ws.db")
    live = LiveTables(store)
    app = create_app(store, digest, live=live.view, referee_sink=live.referee)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = _Server(app, "127.0.0.1", port)
    server.start()
    info = store.create_match("classic", 2, dealer=0)
    live.open(info)
    snaps, _ = table_script.play_script("classic", 2, 0, seed=4, rounds=1)
    stamps: dict[int, float] = {}
    delays: list[float] = []
    with connect(f"ws://127.0.0.1:{port}/api/matches/{info.id}/ws") as ws:
        json.loads(ws.recv(timeout=10))

        def feed() -> None:
            for t, floor in snaps[: turns * 2]:
                events = live.feed_snapshot(info.id, Snapshot(t=t, floor=frozenset(floor)))
                now = time.perf_counter()
                for e in events:
                    stamps[e.id] = now
                time.sleep(0.25)

        th = threading.Thread(target=feed)
        th.start()
        while th.is_alive() or len(delays) < len(stamps):
            try:
                msg = json.loads(ws.recv(timeout=2))
            except TimeoutError:
                break
            got = time.perf_counter()
            for e in msg["events"]:
                if e["id"] in stamps:
                    delays.append((got - stamps[e["id"]]) * 1000)
        th.join()
    server.stop()
    store.close()
    return {
        "events": len(delays),
        "median_ms": round(statistics.median(delays), 1),
        "p95_ms": round(pct(delays, 0.95), 1),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        out = {
            "append_full_sync": append_latency(folder, "FULL"),
            "append_normal_sync": append_latency(folder, "NORMAL"),
            "state_rebuild_1_round": state_rebuild(folder, 1),
            "state_rebuild_4_rounds": state_rebuild(folder, 4),
            "ws_delivery": ws_delay(folder),
        }
    if "--json" in sys.argv:
        print(json.dumps(out, indent=1))
        return
    a, b = out["append_full_sync"], out["append_normal_sync"]
    print(
        f"durable append (WAL, synchronous=FULL): median {a['median_ms']} ms, p95 {a['p95_ms']} ms"
    )
    print(
        f"  for comparison synchronous=NORMAL:     median {b['median_ms']} ms, p95 {b['p95_ms']} ms"
    )
    for k in ("state_rebuild_1_round", "state_rebuild_4_rounds"):
        r = out[k]
        print(f"state rebuilt from {r['events']} events: median {r['median_ms']} ms")
    w = out["ws_delivery"]
    print(
        f"WebSocket delivery after a durable step ({w['events']} events): "
        f"median {w['median_ms']} ms, p95 {w['p95_ms']} ms"
    )


if __name__ == "__main__":
    main()
