"""`basra-table scoreboard show|flash|ping|sim`: drive the LED scoreboard by hand.

Thin I/O over firmware_bridge: every command opens the port, waits for the board's
acknowledgement, and prints what it knows; bad input is one line and exit 2.
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
from typing import Annotated, Any

import typer

from controller.errors import UserError

scoreboard_app = typer.Typer(
    name="scoreboard",
    help="Drive the LED scoreboard: show totals, flash a word, ping it, or run the emulator.",
    no_args_is_help=True,
)

Port = Annotated[
    str,
    typer.Option(
        "--port",
        "-p",
        help="serial device or pyserial URL (/dev/ttyUSB0, socket://host:port), "
        "a glob (/dev/ttyUSB*), sim:// (the emulator) or text://",
    ),
]
Wait = Annotated[float, typer.Option("--timeout", help="seconds to wait for the board")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


def register(app: typer.Typer) -> None:
    app.add_typer(scoreboard_app, name="scoreboard")


# ---- helpers ------------------------------------------------------------------------------------


def _open(port: str, timeout: float) -> Any:
    """A started bridge whose link is up, or a UserError saying why not."""
    from firmware_bridge.bridge import ScoreboardBridge
    from firmware_bridge.sim import sim_available

    if not port.strip():
        raise UserError("--port is empty")
    if timeout <= 0:
        raise UserError(f"--timeout must be positive, not {timeout:g}")
    if port.startswith("sim://"):
        why = sim_available()
        if why:
            raise UserError(f"--port sim:// needs the emulator: {why}")
    try:
        bridge = ScoreboardBridge(port).start()
    except ValueError as exc:
        raise UserError(f"--port {port}: {exc}") from None
    if not bridge.wait_link(timeout):
        error = bridge.health()["last_error"] or "no answer"
        bridge.close()
        raise UserError(f"no scoreboard answers on {port} within {timeout:g} s ({error})")
    return bridge


def _side(text: str, option: str) -> int | None:
    t = text.strip().lower()
    if t in ("0", "1"):
        return int(t)
    if t in ("none", "-", ""):
        return None
    raise UserError(f"{option} must be 0, 1 or none, not {text!r}")


def _finish(bridge: Any, port: str, timeout: float) -> dict:
    """Wait for the acknowledgement (and the emulator's digits); close; a result dict."""
    try:
        if not bridge.wait_synced(timeout):
            error = bridge.health()["last_error"] or "no acknowledgement"
            raise UserError(
                f"the scoreboard on {port} did not acknowledge within {timeout:g} s ({error})"
            )
        if bridge.sim is not None:
            bridge.sim.settled(quiet=0.1, timeout=timeout)  # after the boot self-test
        return {
            "port": port,
            "acknowledged": True,
            "display": bridge.display_text(),
            "health": bridge.health(),
        }
    finally:
        bridge.close()


def _print(result: dict, as_json: bool, line: str) -> None:
    if as_json:
        print(json.dumps(result))
    else:
        print(line)


# ---- commands -----------------------------------------------------------------------------------


@scoreboard_app.command("show")
def show_cmd(
    left: Annotated[int, typer.Argument(help="side 0's match total (0..9999)")],
    right: Annotated[int, typer.Argument(help="side 1's match total (0..9999)")],
    port: Port,
    turn: Annotated[str, typer.Option("--turn", help="whose turn: 0, 1 or none")] = "none",
    brightness: Annotated[int, typer.Option("--brightness", help="0..15")] = 8,
    timeout: Wait = 3.0,
    as_json: JsonOpt = False,
) -> None:
    """Show both sides' totals and whose turn it is."""
    from firmware_bridge.bridge import DisplayState

    try:
        state = DisplayState(left, right, _side(turn, "--turn"), brightness)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    bridge = _open(port, timeout)
    bridge.show(state)
    result = _finish(bridge, port, timeout)
    shown = result["display"]
    _print(
        result,
        as_json,
        f"scoreboard on {port}: [{shown}]"
        if shown is not None
        else f"scoreboard on {port}: {left}-{right} acknowledged",
    )


@scoreboard_app.command("flash")
def flash_cmd(
    port: Port,
    side: Annotated[str, typer.Option("--side", help="0, 1 or none (centred)")] = "none",
    word: Annotated[str, typer.Option("--word", help="bAsrA, FOUL, 7d, UAit ...")] = "bAsrA",
    seconds: Annotated[float, typer.Option("--seconds", help="how long (0.1..25.5)")] = 3.0,
    timeout: Wait = 3.0,
    as_json: JsonOpt = False,
) -> None:
    """Flash a word at one side's end (and blink that side's total)."""
    from firmware_bridge.protocol import announce_frame

    s = _side(side, "--side")
    try:
        announce_frame(0, s, word, seconds)  # validate before touching the port
    except ValueError as exc:
        raise UserError(str(exc)) from None
    bridge = _open(port, timeout)
    bridge.announce(s, word, seconds)
    result = _finish(bridge, port, timeout)
    _print(result, as_json, f"scoreboard on {port}: flashing {word!r} for {seconds:g} s")


@scoreboard_app.command("ping")
def ping_cmd(
    port: Port,
    count: Annotated[int, typer.Option("--count", "-c", help="how many pings")] = 5,
    timeout: Wait = 3.0,
    as_json: JsonOpt = False,
) -> None:
    """Check the board answers: firmware version and round-trip times."""
    if not 1 <= count <= 10000:
        raise UserError(f"--count must be 1..10000, not {count}")
    bridge = _open(port, timeout)
    try:
        version = bridge.version(timeout)
        rtts, last = [], None
        for _ in range(count):
            got = bridge.ping(timeout)
            if got is None:
                raise UserError(
                    f"the scoreboard on {port} stopped answering "
                    f"({bridge.health()['last_error'] or 'timeout'})"
                )
            rtts.append(got[0] * 1000)
            last = got[1]
    finally:
        bridge.close()
    rtts_sorted = sorted(rtts)
    result = {
        "port": port,
        "device": version[1] if version else None,
        "protocol": version[0] if version else None,
        "rtt_ms": [round(r, 3) for r in rtts],
        "median_ms": round(statistics.median(rtts), 3),
        "p95_ms": round(rtts_sorted[min(len(rtts) - 1, int(len(rtts) * 0.95))], 3),
        "uptime_ms": last.uptime_ms if last else None,
        "frames_ok": last.frames_ok if last else None,
        "frames_bad": last.frames_bad if last else None,
    }
    _print(
        result,
        as_json,
        f"{result['device']} (protocol {result['protocol']}) on {port}: "
        f"{count} pings, median {result['median_ms']:.2f} ms, p95 {result['p95_ms']:.2f} ms",
    )


@scoreboard_app.command("sim")
def sim_cmd(
    seconds: Annotated[
        float | None, typer.Option("--seconds", help="stop after this long (default: Ctrl-C)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the firmware in the emulator: print its pty path, then the digits as they change."""
    from firmware_bridge.sim import SimBoard, SimUnavailable, sim_available

    why = sim_available()
    if why:
        raise UserError(f"the emulator cannot run here: {why}")
    if seconds is not None and seconds <= 0:
        raise UserError(f"--seconds must be positive, not {seconds:g}")

    def show(ev: Any) -> None:
        if as_json:
            line = {"event": "display", "text": ev.text, "intensity": ev.intensity, "t_us": ev.t_us}
            print(json.dumps(line), flush=True)
        else:
            print(f"[{ev.text}]  intensity {ev.intensity}", flush=True)

    lock = threading.Lock()
    early: list[Any] = []  # digits that change before the pty line is out wait for it
    started = False

    def shown(ev: Any) -> None:
        with lock:
            if not started:
                early.append(ev)
            else:
                show(ev)

    board = SimBoard(on_display=shown)
    try:
        board.start()
    except SimUnavailable as exc:
        raise UserError(f"the emulator cannot run here: {exc}") from None
    with lock:
        if as_json:
            print(json.dumps({"event": "pty", "path": board.port}), flush=True)
        else:
            print(f"scoreboard emulator on {board.port} (Ctrl-C to stop)", flush=True)
        for ev in early:
            show(ev)
        started = True
    done = threading.Event()
    try:
        while board.alive and not done.wait(0.2):
            if seconds is not None and time.monotonic() - board.started > seconds:
                break
    except KeyboardInterrupt:
        pass
    finally:
        board.stop()
    sys.stdout.flush()
