"""Scoreboard link benchmark: frame round trips and state-to-digits latency through simavr.

Run: python benchmarks/scoreboard.py [--n 500] [--json]. Needs avr-gcc and simavr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serial  # noqa: E402

from firmware_bridge import protocol as p  # noqa: E402
from firmware_bridge.bridge import DisplayState, ScoreboardBridge  # noqa: E402
from firmware_bridge.sim import SimBoard, sim_available  # noqa: E402


def summary(samples_s: list[float]) -> dict:
    ms = sorted(x * 1000 for x in samples_s)
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 3),
        "max_ms": round(ms[-1], 3),
    }


def raw_round_trips(port: str, n: int, make) -> list[float]:
    """Send a frame, wait for its ACK, n times, over a bare pyserial connection."""
    link = serial.Serial(port, 115200, timeout=1.0)
    decoder = p.Decoder()
    out = []
    try:
        for i in range(n + 10):
            frame = make(i & 0xFF)
            t0 = time.perf_counter()
            link.write(p.encode(frame))
            while True:
                items = decoder.feed(link.read(max(1, link.in_waiting)))
                if any(
                    isinstance(f, p.Frame) and f.type == p.MsgType.ACK and f.seq == frame.seq
                    for f in items
                ):
                    break
            if i >= 10:  # the first few warm the link (and drain the boot banner)
                out.append(time.perf_counter() - t0)
    finally:
        link.close()
    return out


def state_to_display(board: SimBoard, n: int) -> tuple[list[float], list[float]]:
    """bridge.show() to the decoded digits changing: wall time, and simulated time per change."""
    walls = []
    with ScoreboardBridge(board.port) as bridge:
        bridge.wait_link(5)
        for i in range(n):
            left, right = 1000 + i, i
            want = f"{left:>4}{right:>4}"
            since = len(board.events)
            t0 = time.monotonic()
            bridge.show(DisplayState(left, right))
            ev = board.wait_for(want, timeout=2, since=since)
            if ev is None:
                raise SystemExit(f"the digits never showed {want!r}")
            walls.append(ev.t_host - t0)
            time.sleep(0.005)
        health = bridge.health()
    return walls, health


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=500, help="round trips per measurement")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    why = sim_available()
    if why:
        print(f"error: the emulator cannot run here: {why}", file=sys.stderr)
        return 2
    board = SimBoard().start()
    try:
        board.wait_for("  UAit  ", timeout=5)
        ping = summary(raw_round_trips(board.port, args.n, p.ping_frame))
        state = summary(
            raw_round_trips(board.port, args.n, lambda s: p.state_frame(s, DisplayState(s, 0)))
        )
        with ScoreboardBridge(board.port) as bridge:
            bridge.wait_link(5)
            rtts = []
            for _ in range(args.n):
                got = bridge.ping(1.0)
                if got:
                    rtts.append(got[0])
        via_bridge = summary(rtts)
        walls, health = state_to_display(board, min(args.n, 200))
        display = summary(walls)
    finally:
        board.stop()
    result = {
        "baud": 115200,
        "ping_round_trip": ping,
        "state_frame_round_trip": state,
        "bridge_ping_round_trip": via_bridge,
        "state_to_digits": display,
        "bridge_health": {k: health[k] for k in ("frames_sent", "acked", "retries", "timeouts")},
        "goal_p95_ms": 10.0,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, label in (
            ("ping_round_trip", "PING round trip (raw pyserial; 7 B out, 17 B back)"),
            ("state_frame_round_trip", "STATE round trip (raw pyserial; 13 B out, 7 B back)"),
            ("bridge_ping_round_trip", "PING round trip through ScoreboardBridge"),
            ("state_to_digits", "bridge.show() -> decoded digits change"),
        ):
            r = result[key]
            print(
                f"{label:50s} median {r['median_ms']:6.2f} ms  p95 {r['p95_ms']:6.2f} ms  "
                f"max {r['max_ms']:6.2f} ms  (n={r['n']})"
            )
        print("goal: frame round trip p95 <= 10 ms at 115200 baud")
    return 0


if __name__ == "__main__":
    sys.exit(main())
